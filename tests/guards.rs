//! The run guards (issue 36, item 3; docs/physics.md §7): the magnitude guard stops a run whose
//! spheres pass the scene's speed or distance bound while every number is still finite, on the
//! CPU and the GPU; the energy-balance guard stops a run whose (E + dissipated) drifts by more
//! than half the energy scale, unless `--allow-energy-drift`; the summary warns of a drift too
//! small to stop.

mod common;

use common::contract::{Contract, gpu_contract};
use spheresim::scene::builtin;
use spheresim::{Backend, Precision, SimError, Simulation};
use std::process::{Command, Output};

fn spheresim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spheresim"))
        .args(args)
        .output()
        .expect("run spheresim")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The wall-stand with dt = 1e-2 s, 350 times its contacts' t_c/20: the stop of `backend`.
fn runaway_stand(backend: Backend) -> (u64, u32, String) {
    let mut s = builtin::build("wall-stand", Some(300)).unwrap();
    s.sim.dt = 1e-2;
    let mut sim = Simulation::new(&s, backend, Precision::F32).unwrap();
    match sim.step(50) {
        Err(SimError::Runaway {
            step,
            sphere,
            quantity,
            ..
        }) => (step, sphere, quantity.to_string()),
        other => panic!("{backend}: expected the magnitude guard to stop the run, got {other:?}"),
    }
}

/// The magnitude guard stops the exploding stand on a finite state (a `Runaway`, not a
/// `NonFinite`: no NaN or infinity needed), at the same step and sphere on both backends.
#[test]
fn the_magnitude_guard_stops_a_finite_blow_up_on_both_backends() {
    let cpu = runaway_stand(Backend::Cpu);
    assert!(cpu.0 <= 5, "the CPU stopped only at step {}", cpu.0);
    let Some(contract) = gpu_contract("the_magnitude_guard_stops_a_finite_blow_up") else {
        return;
    };
    let gpu = runaway_stand(Backend::Gpu);
    match contract {
        // The same f32 operations in the same order: the same step, sphere and quantity.
        Contract::BitForBit => assert_eq!(gpu, cpu, "GPU (left) against CPU (right)"),
        // A fused multiply–add may move the first sphere past the bound; the step is the
        // same within one, since the state explodes by orders of magnitude a step.
        Contract::Hardware => assert!(gpu.0.abs_diff(cpu.0) <= 1, "GPU {gpu:?}, CPU {cpu:?}"),
    }
}

/// A Hertz bounce at 8 times the time step its contact allows gains energy bounce by bounce:
/// past half the energy scale the run stops with a non-zero exit and names the flag; with
/// `--allow-energy-drift` it runs to the end and the summary warns.
fn energy_guard(backend: &str) {
    let args = [
        "run",
        "bounce",
        "--contact",
        "hertz",
        "--dt",
        "1.2e-3",
        "--steps",
        "2000",
        "--backend",
        backend,
        "-q",
    ];
    let o = spheresim(&args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{backend}: {err}");
    assert!(
        err.contains("the energy balance drifted at step")
            && err.contains("--allow-energy-drift")
            && err.contains("likely cause: the time step"),
        "{backend}: {err}"
    );
    let mut allowed = args.to_vec();
    allowed.push("--allow-energy-drift");
    let o = spheresim(&allowed);
    let err = stderr(&o);
    assert!(o.status.success(), "{backend}: {err}");
    assert!(
        err.contains("warning: total + dissipated energy moved by"),
        "{backend}: {err}"
    );
}

#[test]
fn the_energy_guard_stops_a_drifting_run_on_the_cpu() {
    energy_guard("cpu");
}

#[test]
fn the_energy_guard_stops_a_drifting_run_on_the_gpu() {
    if gpu_contract("the_energy_guard_stops_a_drifting_run_on_the_gpu").is_none() {
        return;
    }
    energy_guard("gpu");
}

/// A run within every bound and tolerance ends with exit 0 and no warning.
#[test]
fn a_sound_run_passes_both_guards_without_a_warning() {
    let o = spheresim(&["run", "bounce", "--backend", "cpu", "-q"]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(!err.contains("warning:"), "{err}");
}
