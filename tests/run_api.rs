//! The `spheresim run` driver as library calls (`spheresim::run`): scene overrides, the run
//! loop, its files and its summary.

use spheresim::output::SnapshotFormat;
use spheresim::run::{RunOptions, SceneOptions, SimRun};
use spheresim::scene::ContactModel;
use spheresim::{Backend, Precision};
use std::sync::atomic::AtomicBool;

fn cpu(precision: Precision) -> RunOptions {
    RunOptions {
        backend: Backend::Cpu,
        precision,
        ..RunOptions::default()
    }
}

#[test]
fn overrides_apply_to_builtin_scenes() {
    let scene = SceneOptions::new("bounce")
        .steps(123)
        .dt(2e-4)
        .contact(ContactModel::Hertz)
        .friction(0.3)
        .load()
        .unwrap();
    assert_eq!(scene.sim.steps, 123);
    assert_eq!(scene.sim.dt, 2e-4);
    assert_eq!(scene.sim.contact, ContactModel::Hertz);
    assert!(scene.spheres.iter().all(|s| s.surface.friction == 0.3));
    assert!(scene.planes.iter().all(|p| p.surface.friction == 0.3));

    let n = SceneOptions::new("box-gas")
        .particles(300)
        .load()
        .unwrap()
        .spheres
        .len();
    assert!((250..=350).contains(&n), "{n}");
}

#[test]
fn overrides_that_do_not_apply_are_errors() {
    let err = SceneOptions::new("two-spheres")
        .friction(0.5)
        .load()
        .unwrap_err()
        .to_string();
    // Library calls: the messages name the library's fields, not the CLI's flags (the binary
    // turns those on with `naming::use_cli_flags`).
    assert!(
        err.contains("`SceneOptions::friction` = 0.5")
            && err.contains("impulse")
            && err.contains("`ContactModel::Hertz`")
            && !err.contains("--"),
        "{err}"
    );
    let mut o = SceneOptions::new("two-spheres");
    o.digits = Some(3);
    let err = o.load().unwrap_err().to_string();
    assert!(
        err.contains("`SceneOptions::digits`") && err.contains("pi-blocks") && !err.contains("--"),
        "{err}"
    );
    let err = SceneOptions::new("two-spheres")
        .particles(4)
        .rolling_friction(0.1)
        .load()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`SceneOptions::rolling_friction` = 0.1") && !err.contains("--"),
        "{err}"
    );
}

/// The run driver's own option checks, called as a library: they name `RunOptions`' fields.
#[test]
fn run_option_errors_name_the_library_fields() {
    let scene = SceneOptions::new("two-spheres").steps(10).load().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            RunOptions {
                every: Some(5),
                ..cpu(Precision::F64)
            },
            "`RunOptions::every` needs `RunOptions::output`",
        ),
        (
            RunOptions {
                checkpoint_every: Some(5),
                ..cpu(Precision::F64)
            },
            "`RunOptions::checkpoint_every` needs `RunOptions::checkpoint`",
        ),
        (
            RunOptions {
                backend: Backend::Event,
                checkpoint: Some(dir.path().join("ckpt")),
                ..cpu(Precision::F64)
            },
            "`RunOptions::checkpoint`: the event-driven solver writes no checkpoints; use \
             `Backend::Cpu`",
        ),
    ];
    for (opts, expected) in cases {
        let err = SimRun::new(&scene, opts)
            .err()
            .expect("refused")
            .to_string();
        assert!(err.contains(expected) && !err.contains("--"), "{err}");
    }
}

#[test]
fn run_steps_writes_and_summarises() {
    let dir = tempfile::tempdir().unwrap();
    let scene = SceneOptions::new("two-spheres")
        .steps(40)
        .dt(1e-2)
        .load()
        .unwrap();
    let final_csv = dir.path().join("final.csv");
    let series = dir.path().join("series");
    let opts = RunOptions {
        final_csv: Some(final_csv.clone()),
        output: Some(series.clone()),
        every: Some(20),
        formats: vec![SnapshotFormat::Csv],
        ..cpu(Precision::F64)
    };
    let run = SimRun::new(&scene, opts).unwrap();
    assert!(run.header().contains("2 spheres"), "{}", run.header());
    let report = run.execute(&AtomicBool::new(false)).unwrap();
    assert_eq!(report.stats.steps, 40);
    assert_eq!(report.exit_code(), 0);
    assert_eq!(report.fin.collisions, 1);
    // Snapshots at steps 0, 20 and 40, and the final state.
    for f in [
        "snapshot_00000000.csv",
        "snapshot_00000020.csv",
        "snapshot_00000040.csv",
        "diagnostics.csv",
    ] {
        assert!(series.join(f).is_file(), "{f}");
    }
    assert_eq!(
        std::fs::read_to_string(&final_csv).unwrap(),
        std::fs::read_to_string(series.join("snapshot_00000040.csv")).unwrap()
    );
    let text = report.to_string();
    assert!(text.starts_with("ran 40 steps of 2 spheres"), "{text}");
    assert!(
        text.contains("of Σ|m v|") && text.contains("final state"),
        "{text}"
    );
}

#[test]
fn a_set_stop_flag_interrupts_before_the_first_step() {
    let scene = SceneOptions::new("two-spheres").load().unwrap();
    let report = SimRun::new(&scene, cpu(Precision::F32))
        .unwrap()
        .execute(&AtomicBool::new(true))
        .unwrap();
    assert!(report.interrupted);
    assert_eq!(report.stats.steps, 0);
    assert_eq!(report.exit_code(), 130);
    assert!(report.to_string().starts_with("interrupted after 0 steps"));
}

#[test]
fn bad_run_options_fail_before_the_backend_is_made() {
    let scene = SceneOptions::new("two-spheres").load().unwrap();
    let every_without_output = RunOptions {
        every: Some(5),
        ..cpu(Precision::F32)
    };
    let err = SimRun::new(&scene, every_without_output).err().unwrap();
    // A library call: the message names the field, not the CLI's `--output`.
    let err = err.to_string();
    assert!(
        err.contains("`RunOptions::output`") && !err.contains("--"),
        "{err}"
    );
    let dir = tempfile::tempdir().unwrap();
    let no_formats = RunOptions {
        output: Some(dir.path().join("o")),
        formats: vec![],
        ..cpu(Precision::F32)
    };
    let err = SimRun::new(&scene, no_formats).err().unwrap();
    let err = err.to_string();
    assert!(
        err.contains("`RunOptions::formats` needs at least one of") && !err.contains("--"),
        "{err}"
    );
}

/// Small scenes step on one thread (`cpu::SERIAL_BELOW`), large ones on the pool. That is only
/// sound because a step's result does not depend on the thread count: a scene above the
/// threshold stepped on the pool and on a one-thread pool must end bit-identical.
#[test]
fn stepping_does_not_depend_on_the_thread_count() {
    use spheresim::Simulation;
    use spheresim::cpu::SERIAL_BELOW;
    let scene = SceneOptions::new("box-gas")
        .particles(2 * SERIAL_BELOW)
        .load()
        .unwrap();
    assert!(scene.spheres.len() >= SERIAL_BELOW);
    let mut a = Simulation::new(&scene, Backend::Cpu, Precision::F32).unwrap();
    a.step(30).unwrap();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let sb = one.install(|| {
        let mut b = Simulation::new(&scene, Backend::Cpu, Precision::F32).unwrap();
        b.step(30).unwrap();
        b.snapshot()
    });
    let sa = a.snapshot();
    assert!(a.diagnostics().collisions > 0, "the gas must collide");
    assert_eq!(sa.position, sb.position);
    assert_eq!(sa.velocity, sb.velocity);
}
