//! The examples users copy: every scene file in `examples/` loads, passes the checks
//! `spheresim run` makes, and steps on the CPU backend with a finite state, walls that hold,
//! spheres that do not sink into each other, momentum that follows the external forces and
//! energy that does not grow; and the Rust API example `examples/api.rs` runs and gives back its
//! materials' restitution coefficients.
//!
//! The scene files are found by listing `examples/`, so a new example is tested without
//! changing this file.

use glam::DVec3;
use spheresim::scene::check::overlap::first_overlap;
use spheresim::scene::{CheckOptions, ContactModel};
use spheresim::{Backend, Diagnostics, Precision, Scene, Simulation, Snapshot};
use std::path::{Path, PathBuf};

#[allow(dead_code)]
#[path = "../examples/api.rs"]
mod api;

/// Fewest scene files `examples/` must hold.
const MIN_EXAMPLES: usize = 5;
/// Each scene is run for 1/FRACTION of its own `steps`: enough to see the first events of most
/// examples (the cradle's first pass, the billiard break, balls sliding down the incline, the
/// clusters' approach) ...
const FRACTION: u64 = 10;
/// ... but for at most this many sphere-steps, so that the test stays quick.
const SPHERE_STEPS: u64 = 1_000_000;
/// Checkpoints within those steps.
const CHECKPOINTS: u64 = 8;
/// How far a sphere may have moved past a wall, or into another sphere, as a fraction of its
/// radius (of the smaller one), before we call it sunk or tunnelled. Soft contacts overlap by
/// design: about 1 % at rest in these scenes, more for a moment in a hard impact (the hopper's
/// falling beads, later than the steps run here).
const PENETRATION: f64 = 0.1;

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")
}

/// Every `examples/*.toml`, sorted.
fn scene_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(examples_dir())
        .expect("examples/ can be listed")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
}

/// Loads a scene as `spheresim run` does: parse, then the full check without overlaps allowed.
fn load(path: &Path) -> Scene {
    let scene = Scene::load(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    scene
        .check(&CheckOptions {
            allow_overlap: false,
        })
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    scene
}

/// The scene's movable mass, kg.
fn movable_mass(scene: &Scene) -> f64 {
    scene
        .spheres
        .iter()
        .filter(|s| !s.fixed)
        .map(|s| s.mass)
        .sum()
}

/// Σ m |v| over the movable spheres of a snapshot, kg·m/s: the scale momentum errors are
/// measured against.
fn momentum_scale(scene: &Scene, snap: &Snapshot) -> f64 {
    scene
        .spheres
        .iter()
        .zip(&snap.velocity)
        .filter(|(s, _)| !s.fixed)
        .map(|(s, v)| s.mass * v.length())
        .sum()
}

/// Runs `scene` for `steps` steps on the CPU in f64, returning the diagnostics and snapshots at
/// the start and at `CHECKPOINTS` evenly spaced steps.
fn run(scene: &Scene, steps: u64, name: &str) -> Vec<(Diagnostics, Snapshot)> {
    let mut sim = Simulation::new(scene, Backend::Cpu, Precision::F64)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut out = vec![(sim.diagnostics(), sim.snapshot())];
    let chunk = (steps / CHECKPOINTS).max(1);
    while sim.steps_done() < steps {
        let k = chunk.min(steps - sim.steps_done());
        sim.step(k).unwrap_or_else(|e| panic!("{name}: {e}"));
        out.push((sim.diagnostics(), sim.snapshot()));
    }
    out
}

/// Steps to run `scene` for: a tenth of its steps, at most `SPHERE_STEPS` sphere-steps, and at
/// least 5 (or all of them, if it has fewer).
fn test_steps(scene: &Scene) -> u64 {
    let n = scene.spheres.len().max(1) as u64;
    (scene.sim.steps / FRACTION)
        .min(SPHERE_STEPS / n)
        .max(scene.sim.steps.min(5))
}

fn assert_finite(name: &str, d: &Diagnostics, snap: &Snapshot) {
    for (i, (x, v)) in snap.position.iter().zip(&snap.velocity).enumerate() {
        assert!(
            x.is_finite() && v.is_finite(),
            "{name}: sphere {i} non-finite at step {}: x {x}, v {v}",
            d.step
        );
    }
    let values = [
        d.kinetic,
        d.potential_uniform,
        d.potential_gravity,
        d.potential_spring,
        d.dissipated,
    ];
    assert!(
        values.iter().all(|v| v.is_finite()) && d.momentum.is_finite(),
        "{name}: non-finite diagnostics at step {}: {d:?}",
        d.step
    );
}

/// No movable sphere has gone deeper than `PENETRATION` of its radius through a plane or out of a
/// spherical container, and no two spheres overlap by more than that of the smaller radius.
fn assert_contained(name: &str, scene: &Scene, snap: &Snapshot) {
    for (i, (s, x)) in scene.spheres.iter().zip(&snap.position).enumerate() {
        if s.fixed {
            continue;
        }
        for (k, p) in scene.planes.iter().enumerate() {
            let gap = (*x - p.point).dot(p.normal) - s.radius;
            assert!(
                gap >= -PENETRATION * s.radius,
                "{name}: sphere {i} is {:.3e} m through plane {k} at step {}",
                -gap,
                snap.step
            );
        }
        for (k, c) in scene.containers.iter().enumerate() {
            let gap = c.radius - (*x - c.center).length() - s.radius;
            assert!(
                gap >= -PENETRATION * s.radius,
                "{name}: sphere {i} is {:.3e} m out of sphere_container {k} at step {}",
                -gap,
                snap.step
            );
        }
    }
    let mut moved = scene.spheres.clone();
    for (s, x) in moved.iter_mut().zip(&snap.position) {
        s.position = *x;
    }
    if let Some(o) = first_overlap(&moved, PENETRATION) {
        panic!(
            "{name}: spheres {} and {} overlap by {:.3e} m (radius {} m) at step {}",
            o.a, o.b, o.depth, o.min_radius, snap.step
        );
    }
}

#[test]
fn examples_directory_holds_the_example_scenes() {
    let files = scene_files();
    assert!(
        files.len() >= MIN_EXAMPLES,
        "expected at least {MIN_EXAMPLES} scene files in {}, found {}: {files:?}",
        examples_dir().display(),
        files.len()
    );
}

/// Each file opens with comment lines that say how to run it.
#[test]
fn every_example_says_how_to_run_it() {
    for path in scene_files() {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let header: String = text
            .lines()
            .take_while(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            text.starts_with('#'),
            "{file}: should start with a comment saying what it shows"
        );
        for command in ["run", "view"] {
            let wanted = format!("spheresim {command} examples/{file}");
            assert!(
                header.contains(&wanted),
                "{file}: the leading comment should show `{wanted}`"
            );
        }
    }
}

/// Every example loads, passes `spheresim run`'s checks without a time-step warning, and stays
/// physical over the first tenth of its steps (at most `SPHERE_STEPS` sphere-steps) on the CPU
/// backend.
#[test]
fn every_example_loads_checks_and_steps() {
    let files = scene_files();
    assert!(!files.is_empty(), "no scene files in examples/");
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let scene = load(&path);
        assert!(
            scene.spheres.iter().any(|s| !s.fixed),
            "{name}: nothing can move"
        );
        // The examples are meant to be copied: their dt must suit their contact law.
        assert_eq!(
            scene.time_step_warning(),
            None,
            "{name}: dt too large for its contacts"
        );
        let steps = test_steps(&scene);
        let samples = run(&scene, steps, &name);
        for (d, snap) in &samples {
            assert_finite(&name, d, snap);
            assert_contained(&name, &scene, snap);
        }
        check_energy(&name, &scene, &samples);
        check_free_momentum(&name, &scene, steps);
    }
}

/// Nothing in the examples feeds energy in: kinetic + potential + elastic + dissipated must not
/// grow, measured against the energies that change in the run. Impulses book exactly what they
/// take out, so only rounding is allowed (f64). The soft laws' ledger is first order in dt: at
/// the examples' dt ≈ t_c/20 the billiard break gains about 0.4 % of its energy scale, and
/// 2 % with a dt five times too large; 1 % lies between. With impulses of restitution 1
/// everywhere and no field, drag or mutual gravity, the kinetic energy itself is conserved to
/// rounding.
fn check_energy(name: &str, scene: &Scene, samples: &[(Diagnostics, Snapshot)]) {
    let d0 = &samples[0].0;
    let scale = samples
        .iter()
        .map(|(d, _)| {
            d.kinetic
                + d.potential_spring
                + d.dissipated
                + (d.potential_uniform - d0.potential_uniform).abs()
                + d.potential_gravity.abs()
        })
        .fold(0.0, f64::max);
    assert!(scale > 0.0, "{name}: no energy at all in the scene");
    let tolerance = if scene.sim.contact.is_soft() {
        1e-2
    } else {
        1e-9
    };
    for (d, _) in samples {
        let growth = d.energy_balance() - d0.energy_balance();
        assert!(
            growth <= tolerance * scale,
            "{name}: energy grew by {growth:.3e} J (scale {scale:.3e} J) by step {}",
            d.step
        );
    }
    let elastic = scene.sim.contact == ContactModel::Impulse
        && scene.sim.gravity == DVec3::ZERO
        && scene.sim.g_const == 0.0
        && scene.sim.drag == 0.0
        && scene.spheres.iter().all(|s| s.restitution == 1.0)
        && scene.planes.iter().all(|p| p.restitution == 1.0)
        && scene.containers.iter().all(|c| c.restitution == 1.0);
    if elastic {
        for (d, _) in samples {
            let change = (d.kinetic - d0.kinetic).abs();
            assert!(
                change <= 1e-12 * d0.kinetic.max(f64::MIN_POSITIVE),
                "{name}: elastic scene changed its kinetic energy by {change:.3e} J by step {}",
                d.step
            );
        }
    }
}

/// The example's movable spheres alone (walls, containers and fixed spheres removed) feel no
/// external force but the uniform field: their momentum must follow `p₀ + M g t` to rounding,
/// whatever the contacts and the mutual gravity do. Skipped with drag, an external force that
/// depends on each sphere's velocity.
fn check_free_momentum(name: &str, scene: &Scene, steps: u64) {
    if scene.sim.drag != 0.0 {
        return;
    }
    let mut free = scene.clone();
    free.planes.clear();
    free.containers.clear();
    free.spheres.retain(|s| !s.fixed);
    free.check(&CheckOptions {
        allow_overlap: false,
    })
    .unwrap_or_else(|e| panic!("{name} without walls: {e}"));
    let mass = movable_mass(&free);
    let samples = run(&free, steps, name);
    let (d0, s0) = &samples[0];
    for (d, snap) in &samples {
        let expected = d0.momentum + mass * scene.sim.gravity * (d.time - d0.time);
        let scale = momentum_scale(&free, s0).max(momentum_scale(&free, snap))
            + mass * scene.sim.gravity.length() * d.time;
        let error = (d.momentum - expected).length();
        assert!(
            error <= 1e-10 * scale.max(f64::MIN_POSITIVE),
            "{name} without walls: momentum {} at t = {} s, expected {expected} (error {error:.3e}, scale {scale:.3e} kg m/s)",
            d.momentum,
            d.time
        );
    }
}

/// The API example's scene passes the checks, and each ball's rebound gives back its material's
/// restitution: the impulse law applies Newton's restitution exactly at the contact instant, and
/// leapfrog is exact in a uniform field, so only the sampling of the apex at whole steps and
/// rounding remain.
#[test]
fn api_example_reproduces_the_restitution_coefficients() {
    let summary = api::run(api::DEFAULT_STEPS).expect("the API example runs");
    assert_eq!(summary.rebounds.len(), summary.scene.spheres.len());
    assert!(summary.rebounds.len() >= 2);
    for r in &summary.rebounds {
        let e = r
            .measured_restitution()
            .unwrap_or_else(|| panic!("{}: no rebound within the default steps", r.material));
        assert!(
            (e - r.restitution).abs() < 1e-3,
            "{}: rebound gives e = {e}, the material's is {}",
            r.material,
            r.restitution
        );
    }
    // The energy only ever drops (at the bounces, by (1 − e²) of each ball's kinetic energy),
    // and nothing pushes sideways.
    let first = &summary.samples[0];
    let last = summary.samples.last().unwrap();
    for w in summary.samples.windows(2) {
        assert!(
            w[1].total_energy() <= w[0].total_energy() + 1e-12 * first.total_energy().abs(),
            "energy grew between t = {} s and {} s",
            w[0].time,
            w[1].time
        );
    }
    assert!(last.total_energy() < first.total_energy());
    assert!(last.momentum.x.abs() < 1e-12 && last.momentum.z.abs() < 1e-12);
    assert_eq!(last.step, api::DEFAULT_STEPS);
}

/// A short run returns the samples it promises and no rebounds that have not happened: the
/// balls need sqrt(2 h / g) ≈ 0.2 s to reach the floor.
#[test]
fn api_example_short_run_reports_no_rebound_yet() {
    let fall_steps = ((2.0 * api::DROP_HEIGHT / api::G).sqrt() / api::DT) as u64;
    let steps = fall_steps / 2;
    let summary = api::run(steps).expect("the API example runs");
    assert!(summary.rebounds.iter().all(|r| r.rebound_height.is_none()));
    assert_eq!(summary.samples.first().unwrap().step, 0);
    assert_eq!(summary.samples.last().unwrap().step, steps);
    // Free fall so far: p_y = −M g t exactly up to rounding.
    let mass = movable_mass(&summary.scene);
    let last = summary.samples.last().unwrap();
    let expected = -mass * api::G * last.time;
    assert!((last.momentum.y - expected).abs() <= 1e-12 * expected.abs());
}
