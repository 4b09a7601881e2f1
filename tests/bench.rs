//! `spheresim bench` and the per-stage timers behind it: the table and JSON contract, rejected
//! input, and that GPU timestamp profiling does not change the simulation. No timing is asserted
//! beyond "positive and finite": speeds are measured by the benchmark, not tested.

mod common;

use common::gpu_available;

use spheresim::bench::{self, BenchBackend, BenchConfig};
use spheresim::gpu::GpuContext;
use spheresim::scene::builtin;
use spheresim::{Backend, Precision, Simulation};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_spheresim"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("spawn spheresim")
}

fn positive(x: f64) -> bool {
    x.is_finite() && x > 0.0
}

#[test]
fn json_rows_have_the_contract_keys_and_consistent_figures() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("bench.json");
    let o = run(&[
        "bench",
        "--scenes",
        "box-gas,orbits",
        "--particles",
        "3e2",
        "--backends",
        "cpu,cpu1",
        "--steps",
        "2",
        "--repeats",
        "3",
        "--warmup",
        "1",
        "--json",
        json.to_str().unwrap(),
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(rows.len(), 4);
    for r in &rows {
        for key in [
            "scene",
            "particles",
            "backend",
            "adapter",
            "ms_per_step_median",
            "particle_steps_per_second",
        ] {
            assert!(r.get(key).is_some(), "row lacks {key}: {r}");
        }
        assert!(r["error"].is_null(), "{r}");
        let n = r["particles"].as_f64().unwrap();
        let (lo, med, hi) = (
            r["ms_per_step_min"].as_f64().unwrap(),
            r["ms_per_step_median"].as_f64().unwrap(),
            r["ms_per_step_max"].as_f64().unwrap(),
        );
        assert!(positive(lo) && lo <= med && med <= hi, "{r}");
        // particle-steps/s is N over the median step time, not an independent number.
        let ps = r["particle_steps_per_second"].as_f64().unwrap();
        assert!((ps - n / (med * 1e-3)).abs() <= 1e-9 * ps, "{r}");
        assert!(r["memory_bytes_per_sphere"].as_f64().unwrap() > 0.0);
        // Stage times are measured during the timed repeats: they add up to at most the
        // timed wall clock and are not all zero.
        let stages = r["stage_ms_per_step"].as_object().unwrap();
        let sum: f64 = stages.values().map(|v| v.as_f64().unwrap()).sum();
        assert!(positive(sum) && sum <= hi * 1.01, "{r}");
    }
    let cpu = rows.iter().find(|r| r["backend"] == "cpu").unwrap();
    let cpu1 = rows.iter().find(|r| r["backend"] == "cpu1").unwrap();
    assert_eq!(cpu1["adapter"], "CPU (1 thread)");
    let s = cpu["speedup_vs_one_thread"].as_f64().unwrap();
    let expect =
        cpu1["ms_per_step_median"].as_f64().unwrap() / cpu["ms_per_step_median"].as_f64().unwrap();
    assert!((s - expect).abs() <= 1e-12 * expect);
    // Mutual gravity reports interactions/s for orbits only, N(N−1) over the gravity stage.
    for r in &rows {
        let g = &r["gravity_interactions_per_second"];
        if r["scene"] == "orbits" {
            let n = r["particles"].as_f64().unwrap();
            let t = r["stage_ms_per_step"]["gravity"].as_f64().unwrap();
            assert!(positive(t), "{r}");
            let ips = g.as_f64().unwrap();
            assert!((ips - n * (n - 1.0) / (t * 1e-3)).abs() <= 1e-9 * ips);
        } else {
            assert!(g.is_null(), "{r}");
        }
    }
    // The table names every configuration and the devices.
    assert!(out.contains("box-gas") && out.contains("orbits") && out.contains("CPU (1 thread)"));
    assert!(out.contains("per-stage ms/step") && out.contains("interactions/s"));
}

#[test]
fn rejected_input_names_the_item_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("b.json");
    let j = json.to_str().unwrap();
    // Exit status 2: rejected by the argument parser; 1: by the configuration check.
    let cases: [(&[&str], &str, i32); 6] = [
        (&["--scenes", "nope"], "unknown built-in scene `nope`", 1),
        (
            &["--particles", "0"],
            "`0` is not a whole number of spheres",
            2,
        ),
        (&["--particles", "12.5"], "`12.5` is not a whole number", 2),
        (&["--particles", "lots"], "`lots` is not a number", 2),
        (
            &["--steps", "0"],
            "--steps and --repeats must be at least 1",
            1,
        ),
        (&["--backends", "tpu"], "invalid value 'tpu'", 2),
    ];
    for (args, msg, code) in cases {
        let mut all = vec!["bench", "--json", j];
        all.extend_from_slice(args);
        let o = run(&all);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.contains(msg), "{args:?}: {err}");
        assert!(!json.exists(), "{args:?} wrote {j}");
    }
    let o = run(&[
        "bench",
        "--scenes",
        "box-gas",
        "--particles",
        "100",
        "--json",
        "/nonexistent-dir/b.json",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("/nonexistent-dir"), "{err}");
    // Refused before any configuration ran.
    assert!(!err.contains("configurations"), "{err}");
}

#[test]
fn a_configuration_over_the_budget_is_skipped_and_says_so() {
    let cfg = BenchConfig {
        scenes: vec!["orbits".into()],
        particles: vec![200, 200_000],
        backends: vec![BenchBackend::Cpu],
        steps: 1,
        repeats: 1,
        warmup: 0,
        // 200 spheres take well under a second; 200 000 with O(N²) gravity are predicted at
        // 10⁶ times that.
        budget_seconds: 5.0,
        ..Default::default()
    };
    bench::check(&cfg).unwrap();
    let rows = bench::run(&cfg, |_| {});
    assert!(rows[0].error.is_none(), "{:?}", rows[0]);
    let e = rows[1].error.as_deref().unwrap();
    assert!(
        e.starts_with("skipped: predicted") && e.contains("--budget-seconds 5"),
        "{e}"
    );
    assert!(bench::table(&rows).contains("skipped: predicted"));
}

#[test]
fn gpu_rows_have_stage_times_from_timestamps_and_a_speedup() {
    if !gpu_available() {
        return;
    }
    let cfg = BenchConfig {
        scenes: vec!["orbits".into()],
        particles: vec![300],
        backends: vec![BenchBackend::Gpu, BenchBackend::Cpu],
        steps: 2,
        repeats: 2,
        warmup: 1,
        budget_seconds: 60.0,
        ..Default::default()
    };
    let rows = bench::run(&cfg, |_| {});
    let gpu = &rows[0];
    assert!(gpu.error.is_none(), "{gpu:?}");
    let ctx = GpuContext::new().unwrap();
    assert_eq!(gpu.adapter, ctx.adapter_name());
    // Work counters on the GPU row only (gpu::work; exact counts: tests/gpu.rs).
    let max = gpu
        .max_pair_visits_per_invocation
        .expect("GPU work counted");
    let mean = gpu
        .mean_pair_visits_per_invocation
        .expect("GPU work counted");
    // (The orbits' bodies are far apart: their list rows may be empty.)
    assert!(max as f64 >= mean && mean >= 0.0, "{gpu:?}");
    assert!(gpu.dispatches_per_step.unwrap() >= 10.0, "{gpu:?}");
    assert_eq!(rows[1].max_pair_visits_per_invocation, None);
    assert_eq!(rows[1].dispatches_per_step, None);
    let s = gpu.speedup_vs_cpu.unwrap();
    assert!((s - rows[1].ms_per_step_median / gpu.ms_per_step_median).abs() <= 1e-12 * s);
    if ctx.timestamps {
        assert_eq!(gpu.stage_timing, "timestamp queries");
        for stage in spheresim::cpu::STAGES {
            if stage == "check" {
                // The GPU checks inside the forces' pass (integrate::end_of_step).
                assert_eq!(gpu.stage_ms_per_step[stage], 0.0, "{gpu:?}");
            } else {
                assert!(positive(gpu.stage_ms_per_step[stage]), "{stage}: {gpu:?}");
            }
        }
        assert_eq!(
            gpu.gravity_interactions_timing.as_deref(),
            Some("gravity stage")
        );
        // The passes split the stages' timestamps: the same total, and the binning's gather
        // and the gravity pass among them.
        let passes: f64 = gpu.pass_ms_per_step.values().sum();
        let stages: f64 = gpu.stage_ms_per_step.values().sum();
        assert!((passes - stages).abs() <= 1e-9 * stages, "{gpu:?}");
        for label in ["gather", "gravity"] {
            assert!(positive(gpu.pass_ms_per_step[label]), "{label}: {gpu:?}");
        }
    } else {
        assert!(gpu.stage_ms_per_step.is_empty());
        assert!(gpu.pass_ms_per_step.is_empty());
        assert!(gpu.stage_timing.starts_with("none"));
    }
}

#[test]
fn gpu_profiling_does_not_change_the_trajectory() {
    if !gpu_available() {
        return;
    }
    let scene = builtin::build("box-gas", Some(400)).unwrap();
    let mut plain = Simulation::new(&scene, Backend::Gpu, Precision::F32).unwrap();
    let mut timed = Simulation::new(&scene, Backend::Gpu, Precision::F32).unwrap();
    let on = timed.set_profiling(true);
    plain.step(40).unwrap();
    timed.step(40).unwrap();
    let (a, b) = (plain.snapshot(), timed.snapshot());
    assert_eq!(a.position, b.position);
    assert_eq!(a.velocity, b.velocity);
    let stages = timed.stage_seconds();
    if on {
        assert_eq!(stages.len(), 6);
        let by = |k: &str| stages.iter().find(|(n, _)| *n == k).unwrap().1;
        assert!(positive(by("contacts")) && positive(by("binning")));
        assert_eq!(by("gravity"), 0.0, "box-gas has no mutual gravity pass");
        assert!(plain.stage_seconds().is_empty());
        timed.set_profiling(false);
        assert!(timed.stage_seconds().is_empty());
    }
}

#[test]
fn cpu_stage_timers_put_mutual_gravity_in_the_gravity_stage() {
    let scene = builtin::build("orbits", Some(500)).unwrap();
    let mut sim = Simulation::new(&scene, Backend::Cpu, Precision::F32).unwrap();
    sim.step(3).unwrap();
    let st = sim.stage_seconds();
    let by = |k: &str| st.iter().find(|(n, _)| *n == k).unwrap().1;
    // The O(N²) direct sum dominates the O(N) accelerations.
    assert!(by("gravity") > by("forces"), "{st:?}");
}

#[test]
fn cpu_memory_check_refuses_with_the_numbers() {
    use spheresim::SimError;
    use spheresim::sim::check_cpu_memory;
    check_cpu_memory(1_000_000, false, Precision::F32, None).unwrap();
    check_cpu_memory(1_000_000, true, Precision::F32, Some(1 << 40)).unwrap();
    let e = check_cpu_memory(1_000_000, false, Precision::F64, Some(100_000_000)).unwrap_err();
    let SimError::TooLarge {
        spheres,
        need,
        available,
        fits,
    } = e
    else {
        panic!("{e}")
    };
    assert_eq!((spheres, available), (1_000_000, 100_000_000));
    // f64 state: at least 5 three-vectors and 5 scalars per sphere, 160 bytes.
    assert!(need > 160_000_000, "{need}");
    assert!(
        fits < 1_000_000 && fits * need / 1_000_000 <= available,
        "{fits}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("1000000 spheres") && msg.contains("100000000 bytes"),
        "{msg}"
    );
}

/// The contact history (ξ, δ̇⁻, the rolling spring and a partner id per neighbour-list entry, both copies during a
/// rebuild) counts towards the CPU memory check: a machine that fits the state without it
/// refuses the state with it.
#[test]
fn cpu_memory_check_counts_the_contact_history() {
    use spheresim::cpu::{CpuBackend, LIST_ENTRIES_ESTIMATE};
    use spheresim::sim::check_cpu_memory;
    let n = 100_000;
    let without = CpuBackend::<f32>::memory_estimate(n, false, false);
    let with = CpuBackend::<f32>::memory_estimate(n, true, false);
    // Per entry and copy: a u32 partner id, an f32 three-vector ξ, an f32 δ̇⁻ and an f32
    // three-vector rolling spring torque, 32 bytes.
    assert_eq!(with - without, (n * LIST_ENTRIES_ESTIMATE * 2 * 32) as u64);
    let between = Some((without + with) / 2);
    check_cpu_memory(n, false, Precision::F32, between).unwrap();
    assert!(check_cpu_memory(n, true, Precision::F32, between).is_err());
}

/// `--skin-fraction` sets every scene's skin from its smallest radius (box-gas's own 0.6 r and the
/// wall-break's default alike), and the row reports it in metres. A negative or non-finite
/// fraction is refused by name.
#[test]
fn the_skin_fraction_sets_every_scenes_skin() {
    let cfg = |f: Option<f64>| BenchConfig {
        scenes: vec!["box-gas".into(), "wall-break".into()],
        particles: vec![500],
        backends: vec![BenchBackend::Cpu],
        steps: 4,
        repeats: 1,
        warmup: 0,
        skin_fraction: f,
        ..Default::default()
    };
    let own = bench::run(&cfg(None), |_| {});
    let zero = bench::run(&cfg(Some(0.0)), |_| {});
    let wide = bench::run(&cfg(Some(0.9)), |_| {});
    for (i, r_min) in [(0, 0.01), (1, 0.01)] {
        assert!(own[i].error.is_none(), "{:?}", own[i]);
        assert!(
            (own[i].skin - 0.6 * r_min).abs() < 1e-12,
            "{:?}",
            own[i].skin
        );
        assert_eq!(zero[i].skin, 0.0);
        assert!(
            (wide[i].skin - 0.9 * r_min).abs() < 1e-12,
            "{:?}",
            wide[i].skin
        );
    }
    for f in [-0.1, f64::NAN, f64::INFINITY] {
        let e = bench::check(&cfg(Some(f))).unwrap_err();
        assert!(e.contains("--skin-fraction"), "{e}");
    }
}

/// A tree row names the solver and θ, reports bodies per second of the gravity stage and the
/// walk's interaction counts; a direct row reports no walk.
#[test]
fn tree_rows_report_the_solver_and_the_walk_counts() {
    let mut cfg = BenchConfig {
        scenes: vec!["plummer".into()],
        particles: vec![2000],
        backends: vec![BenchBackend::Cpu],
        steps: 1,
        repeats: 1,
        warmup: 0,
        budget_seconds: 60.0,
        theta: Some(0.7),
        ..Default::default()
    };
    let rows = bench::run(&cfg, |_| {});
    let r = &rows[0];
    assert!(r.error.is_none(), "{r:?}");
    assert_eq!(r.gravity_solver.as_deref(), Some("tree"));
    assert_eq!(r.theta, Some(0.7));
    let (max, mean) = (
        r.max_interactions_per_walk.unwrap(),
        r.mean_interactions_per_walk.unwrap(),
    );
    assert!(
        max as f64 >= mean && (1.0..2000.0).contains(&mean),
        "{max} {mean}"
    );
    assert!(r.gravity_bodies_per_second.unwrap() > 0.0);
    assert!(bench::table(&rows).contains("tree θ=0.7"));
    cfg.gravity_solver = Some(spheresim::scene::GravitySolver::Direct);
    let rows = bench::run(&cfg, |_| {});
    let r = &rows[0];
    assert_eq!(r.gravity_solver.as_deref(), Some("direct"));
    assert_eq!((r.theta, r.max_interactions_per_walk), (None, None));
    // θ out of range is refused by the scene check, naming θ.
    cfg.theta = Some(2.0);
    cfg.gravity_solver = None;
    let rows = bench::run(&cfg, |_| {});
    let e = rows[0].error.as_deref().unwrap();
    assert!(e.contains("theta") && e.contains('2'), "{e}");
}

/// `bytes_per_sphere_step` (gpu::traffic) on the GPU row only, and at least what the integrate
/// passes must move: `kick_drift` reads and writes every sphere's position and velocity
/// (`vec4<f32>`, 16 B each) and `end_of_step` its velocity, 2 × (16 + 16) + 2 × 16 = 96 B.
#[test]
fn gpu_rows_count_the_bytes_each_step_may_move() {
    if !gpu_available() {
        return;
    }
    let cfg = BenchConfig {
        scenes: vec!["box-gas".into()],
        particles: vec![500],
        backends: vec![BenchBackend::Gpu, BenchBackend::Cpu],
        steps: 2,
        repeats: 1,
        warmup: 1,
        budget_seconds: 60.0,
        ..Default::default()
    };
    let rows = bench::run(&cfg, |_| {});
    let gpu = &rows[0];
    assert!(gpu.error.is_none(), "{gpu:?}");
    let with_work = gpu.bytes_per_sphere_step.expect("GPU bytes counted");
    let recorded = gpu
        .bytes_per_sphere_step_recorded
        .expect("GPU bytes counted");
    assert!(positive(with_work) && with_work >= 96.0, "{gpu:?}");
    assert!(with_work <= recorded, "{gpu:?}");
    assert_eq!(rows[1].bytes_per_sphere_step, None);
    assert_eq!(rows[1].bytes_per_sphere_step_recorded, None);
    assert!(bench::table(&rows).contains("B/sph-step"));
}

/// The bytes of the binning and the list's build count only in a step that rebuilds: with a
/// zero skin every step does (all bytes recorded have work); a resting wall-stand rebuilds in
/// none, and its binning's `cell_keys` alone reads every position (16 B) and writes every key
/// (4 B): at least 20 B per sphere of the recorded bytes have no work, for the two steps of
/// one halting submission, 10 B per sphere and step.
#[test]
fn bytes_of_a_binning_count_only_when_it_rebuilds() {
    if !gpu_available() {
        return;
    }
    let small = |name: &str, n: usize| {
        let mut s = builtin::build(name, Some(n)).expect("built-in scene");
        s.sim.steps = 4;
        s
    };
    let mut every = small("box-gas", 1000);
    every.sim.skin = Some(0.0);
    let mut g = Simulation::new(&every, Backend::Gpu, Precision::F32).unwrap();
    g.step(1).unwrap();
    g.set_work_counting(true);
    g.step(3).unwrap();
    let w = g.work_counts().unwrap();
    let all = w.bytes_per_step.unwrap();
    assert!(all > 0.0, "{w:?}");
    assert_eq!(w.bytes_with_work_per_step, Some(all), "{w:?}");

    let mut resting = small("wall-stand", 500);
    resting.sim.gravity = glam::DVec3::ZERO;
    let n = resting.spheres.len() as f64;
    let mut g = Simulation::new(&resting, Backend::Gpu, Precision::F32).unwrap();
    g.step(1).unwrap();
    let rebuilds = g.diagnostics().neighbour_rebuilds;
    g.set_work_counting(true);
    g.step(2).unwrap();
    assert_eq!(g.diagnostics().neighbour_rebuilds, rebuilds, "no rebuild");
    let w = g.work_counts().unwrap();
    let idle = w.bytes_per_step.unwrap() - w.bytes_with_work_per_step.unwrap();
    assert!(idle >= 10.0 * n, "{w:?}");
}
