//! Building and running a scene through the library API instead of a scene file.
//!
//! Five balls of the built-in material presets (glass, ivory, rubber, steel, wood), 2 cm in
//! radius, are dropped side by side from 0.2 m onto a floor under gravity, with the impulse
//! contact law (Newton's restitution, see docs/physics.md). The scene is put together with the
//! builders (`Scene::builder`, `Sphere::new`, `Plane::new`), which resolve the materials as a
//! scene file does, checked as `spheresim run` checks scene files (`Scene::check` gives the
//! `CheckedScene` that `Simulation::new` takes), and stepped on the CPU backend in f64, read
//! back each step with `Simulation::snapshot_into`, which reuses one `Snapshot`. Energy and momentum are printed at a few points, and at the end each ball's
//! rebound: a ball that hits the floor at speed v leaves it at e v, so it climbs back to e² times
//! its drop height, and `sqrt(rebound / drop)` gives back the restitution e of its material.
//!
//! Run it with
//!
//! ```text
//! cargo run --example api            # the default 5000 steps of 0.1 ms
//! cargo run --example api -- 8000    # another number of steps
//! ```
//!
//! `tests/examples.rs` includes this file and calls [`run`].

use anyhow::{Context, Result, ensure};
use glam::DVec3;
use spheresim::scene::{CheckOptions, ContactModel, Material, Plane, Scene, Sphere};
use spheresim::{Backend, Diagnostics, Precision, Simulation, Snapshot};

/// Gap between a ball's lowest point and the floor at the start, m.
pub const DROP_HEIGHT: f64 = 0.2;
/// Ball radius, m.
pub const RADIUS: f64 = 0.02;
/// Time step, s. The impulse law resolves each collision at its instant within the step, so the
/// step does not have to resolve the contact.
pub const DT: f64 = 1e-4;
/// Steps `main` runs by default: 0.5 s, enough for every ball to fall (0.2 s), bounce and reach
/// the top of its first rebound (0.19 s more for glass, the bounciest).
pub const DEFAULT_STEPS: u64 = 5000;
/// Standard gravity, m/s².
pub const G: f64 = 9.81;

/// One ball's first rebound.
#[derive(Clone, Debug)]
pub struct Rebound {
    /// The ball's material.
    pub material: String,
    /// The material's restitution coefficient e (the floor's is 1, and a pair uses the smaller).
    pub restitution: f64,
    /// Highest gap between the ball and the floor after its first bounce, m; `None` if the ball
    /// has not bounced yet or is still climbing when the run ends.
    pub rebound_height: Option<f64>,
}

impl Rebound {
    /// The restitution measured from the rebound, `sqrt(rebound height / drop height)`.
    pub fn measured_restitution(&self) -> Option<f64> {
        self.rebound_height.map(|h| (h / DROP_HEIGHT).sqrt())
    }
}

/// What [`run`] found.
#[derive(Debug)]
pub struct Summary {
    /// The scene that was run.
    pub scene: Scene,
    /// Diagnostics at the start, at every fifth of the run, and at the end.
    pub samples: Vec<Diagnostics>,
    /// Each ball's first rebound, in input order.
    pub rebounds: Vec<Rebound>,
}

/// The scene: one ball per material preset in a row along x, and a steel floor at y = 0.
pub fn scene() -> Scene {
    // Each ball takes its mass (density × 4/3 π r³), restitution and surface from its material.
    let balls = Material::presets().into_iter().enumerate().map(|(i, m)| {
        Sphere::new(
            DVec3::new(0.1 * i as f64, RADIUS + DROP_HEIGHT, 0.0),
            RADIUS,
        )
        .material(m.name)
    });
    Scene::builder()
        .name("api-drop")
        .dt(DT)
        .steps(DEFAULT_STEPS)
        .gravity(DVec3::new(0.0, -G, 0.0))
        .contact(ContactModel::Impulse)
        .spheres(balls)
        // The floor's restitution is 1, so that each ball keeps its own material's e (a pair
        // takes the smaller of the two).
        .plane(
            Plane::new(DVec3::ZERO, DVec3::Y)
                .material("steel")
                .restitution(1.0),
        )
        .build()
        .expect("the example's scene is valid")
}

/// Builds [`scene`], runs it for `steps` steps on the CPU backend in f64, prints diagnostics at
/// a few points and returns them with every ball's first rebound.
///
/// # Errors
/// When the scene fails its checks or the simulation becomes non-finite.
pub fn run(steps: u64) -> Result<Summary> {
    ensure!(steps > 0, "steps must be at least 1");
    let mut scene = scene();
    scene.sim.steps = steps;
    // The checks `spheresim run` makes on every scene: values in range, no initial overlaps.
    // Only a checked scene starts a simulation.
    let checked = scene
        .check(&CheckOptions::default())
        .context("checking the scene")?;
    if let Some(w) = checked.time_step_warning() {
        eprintln!("warning: {w}");
    }
    let mut sim = Simulation::new(&checked, Backend::Cpu, Precision::F64)?;

    let mut rebounds: Vec<Rebound> = scene
        .spheres
        .iter()
        .map(|s| {
            let m = &scene.materials[s.material.expect("every ball names its material")];
            Rebound {
                material: m.name.clone(),
                restitution: s.restitution,
                rebound_height: None,
            }
        })
        .collect();
    // Per ball: bounced yet, highest gap since the bounce, apex passed.
    let mut bounced = vec![false; rebounds.len()];
    let mut highest = vec![0.0_f64; rebounds.len()];
    let mut done = vec![false; rebounds.len()];

    let print = |d: &Diagnostics| {
        println!(
            "t = {:.3} s: kinetic {:.6} J, potential {:.6} J, total {:.6} J, momentum [{:+.4}, {:+.4}, {:+.4}] kg m/s, {} collisions",
            d.time,
            d.kinetic,
            d.potential_uniform,
            d.total_energy(),
            d.momentum.x,
            d.momentum.y,
            d.momentum.z,
            d.collisions
        )
    };
    let mut samples = vec![sim.diagnostics()];
    print(&samples[0]);
    let every = (steps / 5).max(1);
    let mut snap = Snapshot::default();
    for _ in 0..steps {
        sim.step(1)?;
        sim.snapshot_into(&mut snap);
        for (i, s) in scene.spheres.iter().enumerate() {
            let gap = snap.position[i].y - s.radius;
            let vy = snap.velocity[i].y;
            if !bounced[i] {
                bounced[i] = vy > 0.0;
            } else if !done[i] {
                highest[i] = highest[i].max(gap);
                if vy <= 0.0 {
                    done[i] = true;
                    rebounds[i].rebound_height = Some(highest[i]);
                }
            }
        }
        if sim.steps_done() % every == 0 || sim.steps_done() == steps {
            let d = sim.diagnostics();
            print(&d);
            samples.push(d);
        }
    }
    Ok(Summary {
        scene,
        samples,
        rebounds,
    })
}

fn main() -> Result<()> {
    let steps = match std::env::args().nth(1) {
        Some(s) => s
            .parse()
            .with_context(|| format!("the argument must be a number of steps, got {s:?}"))?,
        None => DEFAULT_STEPS,
    };
    let summary = run(steps)?;
    println!();
    println!("dropped from {DROP_HEIGHT} m; rebound height h gives e = sqrt(h / {DROP_HEIGHT} m):");
    println!(
        "{:<8} {:>12} {:>14} {:>12}",
        "material", "e (preset)", "rebound (m)", "measured e"
    );
    for r in &summary.rebounds {
        match (r.rebound_height, r.measured_restitution()) {
            (Some(h), Some(e)) => println!(
                "{:<8} {:>12.4} {:>14.5} {:>12.4}",
                r.material, r.restitution, h, e
            ),
            _ => println!(
                "{:<8} {:>12.4} {:>14} {:>12}",
                r.material, r.restitution, "not yet", "-"
            ),
        }
    }
    Ok(())
}
