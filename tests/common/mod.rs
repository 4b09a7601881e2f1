//! Shared helpers for integration tests: scenes built by hand, stepping to completion.
#![allow(dead_code)]

use glam::DVec3;
use spheresim::scene::{ContactModel, Plane, Scene, SimParams, Sphere};
use spheresim::{Backend, Precision, Simulation};

pub fn sphere(position: DVec3, velocity: DVec3, radius: f64, mass: f64, e: f64) -> Sphere {
    Sphere {
        position,
        velocity,
        radius,
        mass,
        restitution: e,
        material: None,
        fixed: false,
    }
}

pub fn fixed(position: DVec3, radius: f64) -> Sphere {
    Sphere {
        position,
        velocity: DVec3::ZERO,
        radius,
        mass: f64::INFINITY,
        restitution: 1.0,
        material: None,
        fixed: true,
    }
}

pub fn plane(point: DVec3, normal: DVec3, e: f64) -> Plane {
    Plane {
        point,
        normal: normal.normalize(),
        restitution: e,
    }
}

pub fn scene(spheres: Vec<Sphere>, planes: Vec<Plane>, sim: SimParams) -> Scene {
    Scene {
        name: "test".into(),
        sim,
        materials: vec![],
        spheres,
        planes,
    }
}

pub fn params(dt: f64, steps: u64) -> SimParams {
    SimParams {
        dt,
        steps,
        ..SimParams::default()
    }
}

pub fn spring(dt: f64, steps: u64, stiffness: f64) -> SimParams {
    SimParams {
        dt,
        steps,
        contact: ContactModel::SpringDashpot,
        stiffness,
        ..SimParams::default()
    }
}

pub fn run(scene: &Scene, precision: Precision) -> Simulation {
    let mut sim = Simulation::new(scene, Backend::Cpu, precision).expect("cpu backend");
    sim.step(scene.sim.steps).expect("finite");
    sim
}

/// Relative difference |a − b| / max(|b|, floor).
pub fn rel(a: f64, b: f64, floor: f64) -> f64 {
    (a - b).abs() / b.abs().max(floor)
}

/// True when a GPU adapter opens (Mesa's lavapipe on machines without a GPU). Without one: fails
/// when `CI=true`, else prints why and returns `false` so that the caller skips, saying so.
pub fn gpu_available() -> bool {
    match spheresim::gpu::GpuContext::new() {
        Ok(ctx) => {
            eprintln!("GPU tests on {}", ctx.adapter_name());
            true
        }
        Err(e) => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("CI=true and no GPU adapter: {e}");
            }
            eprintln!("SKIPPED: no GPU adapter ({e})");
            false
        }
    }
}
