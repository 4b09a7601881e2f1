//! The `pile` scene and `spheresim repose`: the column collapses into a heap whose angle of
//! repose rises with the rolling friction (docs/physics.md §2.7).

use std::process::Command;

use spheresim::repose::angle_of_repose;
use spheresim::run::SceneOptions;
use spheresim::{Backend, Precision, Simulation};

/// The time steps of the samples, s: a collapsing heap is chaotic, so each step gives another
/// heap (benches/repose/README.md); their mean is the measurement. Twelve a side, sized by the
/// spread of sixteen heaps a side (benches/RESULTS.md, 2026-11-27, "the pile's angle of repose
/// over sixteen heaps a side"): with one heap's angle spreading by about 2.2 deg, two means of
/// twelve differ by chance with a standard error of 0.9 deg, so the 2 deg threshold below
/// rarely fails a working rolling torque (a rise of 4.5 deg there) and rarely passes an ignored
/// one.
const SAMPLE_DT: [f64; 12] = [
    4.0e-5, 3.9e-5, 3.8e-5, 3.7e-5, 3.6e-5, 3.5e-5, 3.4e-5, 3.3e-5, 3.2e-5, 3.1e-5, 3.0e-5, 2.9e-5,
];

/// The angles of repose (degrees) of an 800-grain pile with rolling friction `mu_r`, one per
/// time step of [`SAMPLE_DT`], 1 s each.
fn angles(mu_r: f64) -> Vec<f64> {
    use rayon::prelude::*;
    // The heaps are independent and an 800-grain step keeps about one core busy: they run side
    // by side, in order.
    SAMPLE_DT
        .par_iter()
        .map(|&dt| {
            let s = SceneOptions::new("pile")
                .particles(800)
                .rolling_friction(mu_r)
                .dt(dt)
                .steps((1.0 / dt).ceil() as u64)
                .load()
                .unwrap();
            let mut sim = Simulation::new(&s, Backend::Cpu, Precision::F32).unwrap();
            sim.step(s.sim.steps).unwrap();
            angle_of_repose(&sim.snapshot()).unwrap().angle_deg
        })
        .collect()
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

#[test]
fn the_heap_stands_steeper_with_rolling_friction() {
    let (free, rough) = (angles(0.0), angles(0.1));
    eprintln!("angles of repose: {free:.1?} deg at mu_r = 0, {rough:.1?} deg at mu_r = 0.1");
    // Every sample is a heap (one measured heap stood three spreads below the mean, so the
    // bound is low), and on the means of twelve samples the rise is more than 2 deg.
    assert!(
        free.iter().chain(&rough).all(|&a| a > 5.0 && a < 45.0),
        "{free:?}, {rough:?}"
    );
    assert!(mean(&rough) > mean(&free) + 2.0, "{free:?} -> {rough:?}");
}

#[test]
fn repose_reads_a_state_file_and_refuses_a_flat_one() {
    let dir = tempfile::tempdir().unwrap();
    let flat = dir.path().join("flat.csv");
    std::fs::write(
        &flat,
        "id,x,y,z,vx,vy,vz,radius,mass\n0,0,0,0.01,0,0,0,0.01,1\n1,0.05,0,0.01,0,0,0,0.01,1\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_spheresim"))
        .args(["repose", flat.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("flat.csv") && err.contains("no heap"), "{err}");
    let missing = dir.path().join("missing.csv");
    let out = Command::new(env!("CARGO_BIN_EXE_spheresim"))
        .args(["repose", missing.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.csv"));
}
