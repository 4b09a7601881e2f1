//! Checkpoint and resume through the `spheresim run` command line: a run split by a checkpoint
//! ends bit-identical to an uninterrupted one (CPU f32 and f64, and the GPU on lavapipe), Ctrl-C
//! writes a checkpoint that resumes bit-identically, and a damaged or foreign checkpoint is
//! refused with nothing overwritten.

mod common;

use spheresim::checkpoint::{Checkpoint, Checkpointer, EngineState, Reason};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_spheresim"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("spawn spheresim")
}

fn ok(args: &[&str]) -> Output {
    let o = run(args);
    assert!(
        o.status.success(),
        "spheresim {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

struct Dir(tempfile::TempDir);

impl Dir {
    fn new() -> Self {
        Dir(tempfile::tempdir().unwrap())
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }
    fn s(&self, name: &str) -> String {
        self.path(name).to_str().unwrap().to_string()
    }
}

/// The stats JSON without the keys that differ between an uninterrupted and a resumed run
/// (wall-clock time, rate, where it resumed).
fn stats_without_timing(path: &Path) -> serde_json::Value {
    let mut v: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    let o = v.as_object_mut().unwrap();
    for k in [
        "wall_seconds",
        "particle_steps_per_second",
        "resumed_from_step",
    ] {
        assert!(o.remove(k).is_some(), "stats lack {k}");
    }
    v
}

/// Runs `scene` for `steps` uninterrupted, and again as `steps / 2` with a checkpoint plus a
/// resume to `steps`; asserts identical final CSV, snapshot series, energy log and stats.
fn split_run_is_identical(scene: &[&str], extra: &[&str], steps: u64) {
    let d = Dir::new();
    let label = format!("{} {}", scene.join(" "), extra.join(" "));
    let total = steps.to_string();
    let half = (steps / 2).to_string();
    let mut whole: Vec<&str> = vec!["run"];
    whole.extend(scene);
    whole.extend(extra);
    let (a_final, a_out, a_stats) = (d.s("a.csv"), d.s("a"), d.s("a.json"));
    whole.extend([
        "--steps",
        &total,
        "--final",
        &a_final,
        "--output",
        &a_out,
        "--every",
        "10",
        "--stats-json",
        &a_stats,
        "-q",
    ]);
    ok(&whole);

    let mut first: Vec<&str> = vec!["run"];
    first.extend(scene);
    first.extend(extra);
    let (b_final, b_out, b_stats, ck) = (d.s("b.csv"), d.s("b"), d.s("b.json"), d.s("ck"));
    first.extend([
        "--steps",
        &half,
        "--final",
        &b_final,
        "--output",
        &b_out,
        "--every",
        "10",
        "--stats-json",
        &b_stats,
        "--checkpoint",
        &ck,
        "-q",
    ]);
    ok(&first);
    let half_csv = fs::read(d.path("b.csv")).unwrap();
    // The outputs, cadences, backend and precision come from the checkpoint.
    let o = ok(&["run", "--resume", &ck, "--steps", &total, "-q"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(&format!("resumed at step {half}")),
        "{label}: {out}"
    );
    assert!(
        stderr(&o).find("notice").is_none(),
        "{label}: {}",
        stderr(&o)
    );

    let (a, b) = (
        fs::read(d.path("a.csv")).unwrap(),
        fs::read(d.path("b.csv")).unwrap(),
    );
    assert_ne!(
        b, half_csv,
        "{label}: the resumed run did not rewrite the final state"
    );
    assert!(a == b, "{label}: final states differ after the resume");
    for f in ["diagnostics.csv", "series.pvd", "snapshot_00000030.csv"] {
        let (x, y) = (d.path("a").join(f), d.path("b").join(f));
        assert!(
            fs::read(&x).unwrap() == fs::read(&y).unwrap(),
            "{label}: {f} differs"
        );
    }
    assert_eq!(
        stats_without_timing(&d.path("a.json")),
        stats_without_timing(&d.path("b.json")),
        "{label}: stats differ"
    );
    let stats: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(d.path("b.json")).unwrap()).unwrap();
    assert_eq!(stats["resumed_from_step"], steps / 2, "{label}");
    assert_eq!(stats["steps"], steps, "{label}");
}

#[test]
fn resume_on_the_cpu_is_bit_identical_in_f32_and_f64() {
    for precision in ["f32", "f64"] {
        let extra = ["--backend", "cpu", "--precision", precision];
        // Hertz contact with friction history, impulses, mutual gravity.
        split_run_is_identical(&["wall-stand", "--particles", "300"], &extra, 60);
        split_run_is_identical(&["wall-break", "--particles", "400"], &extra, 60);
        split_run_is_identical(&["orbits", "--particles", "200"], &extra, 60);
    }
    // Mutual gravity by the tree, with Hertz contacts.
    let extra = ["--backend", "cpu"];
    split_run_is_identical(&["rubble-pile", "--particles", "300"], &extra, 60);
    // Periodic boundaries with friction and rotation: grains cross the faces (their images
    // carry over) between moving walls.
    split_run_is_identical(&["shear-cell", "--particles", "300"], &extra, 600);
    // Rotation with the rolling spring: spin, orientation, angular acceleration and each
    // contact's spring torque carry over.
    let extra = [
        "--backend",
        "cpu",
        "--rotation",
        "true",
        "--rolling-friction",
        "0.05",
        "--rolling-model",
        "epsd",
    ];
    split_run_is_identical(&["wall-stand", "--particles", "300"], &extra, 60);
}

#[test]
fn resume_on_the_gpu_is_bit_identical() {
    if !common::gpu_available() {
        return;
    }
    let extra = ["--backend", "gpu"];
    split_run_is_identical(&["wall-stand", "--particles", "300"], &extra, 60);
    split_run_is_identical(&["wall-break", "--particles", "400"], &extra, 60);
    split_run_is_identical(&["orbits", "--particles", "200"], &extra, 60);
    split_run_is_identical(&["rubble-pile", "--particles", "300"], &extra, 60);
    split_run_is_identical(&["shear-cell", "--particles", "300"], &extra, 600);
    let extra = [
        "--backend",
        "gpu",
        "--rotation",
        "true",
        "--rolling-friction",
        "0.05",
        "--rolling-model",
        "epsd",
    ];
    split_run_is_identical(&["wall-stand", "--particles", "300"], &extra, 60);
}

#[test]
fn periodic_checkpoints_keep_the_newest_two() {
    let d = Dir::new();
    let ck = d.s("ck");
    ok(&[
        "run",
        "bounce",
        "--steps",
        "100",
        "--backend",
        "cpu",
        "--checkpoint",
        &ck,
        "--checkpoint-every",
        "30",
        "-q",
    ]);
    let mut names: Vec<String> = fs::read_dir(d.path("ck"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    // 30, 60, 90 periodic and 100 final: the newest two stay.
    assert_eq!(
        names,
        ["checkpoint_0000000090.ckpt", "checkpoint_0000000100.ckpt"]
    );
    let c = Checkpoint::read(&d.path("ck").join(&names[1])).unwrap();
    assert_eq!((c.step, c.reason), (100, Reason::Final));
    assert!(matches!(c.engine, EngineState::Cpu(_)));
}

#[cfg(unix)]
#[test]
fn ctrl_c_writes_a_checkpoint_that_resumes_bit_identically() {
    ctrl_c_then_resume("cpu");
    if common::gpu_available() {
        ctrl_c_then_resume("gpu");
    }
}

/// Interrupts a long run on `backend` with SIGINT once it is stepping, resumes its checkpoint
/// for 25 more steps and compares with an uninterrupted run to the same step.
#[cfg(unix)]
fn ctrl_c_then_resume(backend: &str) {
    use std::io::{BufRead, BufReader};
    let d = Dir::new();
    let ck = d.s("ck");
    let scene = ["wall-stand", "--particles", "300"];
    let mut args = vec!["run"];
    args.extend(scene);
    args.extend([
        "--backend",
        backend,
        "--steps",
        "100000000",
        "--checkpoint",
        &ck,
        "-q",
        "--progress-every",
        "1",
    ]);
    let mut child = bin()
        .args(&args)
        .stderr(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // With -q and no terminal, progress goes to the log as lines: wait for the first, so the
    // run is stepping, then interrupt it.
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        if err.read_line(&mut line).unwrap() == 0 {
            panic!("spheresim ended before a progress line: {seen}");
        }
        seen.push_str(&line);
        if line.starts_with("progress: step ") {
            assert!(line.contains("steps/s") && line.contains("eta"), "{line}");
            break;
        }
    }
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{seen}");
    let path = spheresim::checkpoint::resolve(&d.path("ck")).unwrap();
    let c = Checkpoint::read(&path).unwrap();
    assert_eq!(c.reason, Reason::Interrupted);
    assert!(c.step > 0);

    // Resumed for 25 more steps, it must equal an uninterrupted run of as many steps.
    let total = (c.step + 25).to_string();
    let (r, u) = (d.s("resumed.csv"), d.s("straight.csv"));
    ok(&[
        "run",
        "--resume",
        &path.to_string_lossy(),
        "--steps",
        &total,
        "--final",
        &r,
        "-q",
    ]);
    let mut straight = vec!["run"];
    straight.extend(scene);
    straight.extend(["--backend", backend, "--steps", &total, "--final", &u, "-q"]);
    ok(&straight);
    assert!(
        fs::read(&r).unwrap() == fs::read(&u).unwrap(),
        "resumed run differs"
    );
}

#[test]
fn damaged_or_foreign_checkpoints_are_refused_and_nothing_is_overwritten() {
    let d = Dir::new();
    let ck = d.s("ck");
    let fin = d.s("final.csv");
    ok(&[
        "run",
        "bounce",
        "--steps",
        "20",
        "--backend",
        "cpu",
        "--checkpoint",
        &ck,
        "--final",
        &fin,
        "-q",
    ]);
    let good = fs::read(d.path("ck/checkpoint_0000000020.ckpt")).unwrap();
    let final_before = fs::read(&fin).unwrap();

    let mut flipped = good.clone();
    let k = flipped.len() - 9;
    flipped[k] ^= 0x40;
    let truncated = good[..good.len() / 2].to_vec();
    let foreign = final_before.clone();
    for (name, bytes, want) in [
        ("flipped.ckpt", flipped, "is corrupt"),
        ("truncated.ckpt", truncated, "is truncated"),
        ("foreign.ckpt", foreign, "is not a spheresim checkpoint"),
        ("empty.ckpt", Vec::new(), "is not a spheresim checkpoint"),
    ] {
        let p = d.path(name);
        fs::write(&p, &bytes).unwrap();
        let o = run(&[
            "run",
            "--resume",
            p.to_str().unwrap(),
            "--steps",
            "40",
            "-q",
        ]);
        assert_eq!(o.status.code(), Some(1), "{name}");
        let e = stderr(&o);
        assert!(e.contains(name) && e.contains(want), "{name}: {e}");
        assert_eq!(fs::read(&p).unwrap(), bytes, "{name} was modified");
        assert_eq!(
            fs::read(&fin).unwrap(),
            final_before,
            "{name}: final CSV overwritten"
        );
    }
    // Checkpoints from before the step asked for, a missing file and an empty directory.
    let o = run(&["run", "--resume", &ck, "--steps", "10", "-q"]);
    assert!(
        stderr(&o).contains("before the checkpoint's step 20"),
        "{}",
        stderr(&o)
    );
    let o = run(&["run", "--resume", &d.s("missing.ckpt"), "-q"]);
    assert!(stderr(&o).contains("missing.ckpt") && !o.status.success());
    fs::create_dir(d.path("empty")).unwrap();
    let o = run(&["run", "--resume", &d.s("empty"), "-q"]);
    assert!(stderr(&o).contains("holds no checkpoint"), "{}", stderr(&o));
    assert_eq!(fs::read(&fin).unwrap(), final_before);
}

#[test]
fn a_newer_format_version_is_named() {
    let d = Dir::new();
    let ck = d.s("ck");
    ok(&[
        "run",
        "bounce",
        "--steps",
        "5",
        "--backend",
        "cpu",
        "--checkpoint",
        &ck,
        "-q",
    ]);
    let p = d.path("ck/checkpoint_0000000005.ckpt");
    let good = fs::read(&p).unwrap();
    // The header is the magic string, then the version as a postcard varint (one byte here).
    let magic = postcard::to_allocvec(spheresim::checkpoint::MAGIC).unwrap();
    assert_eq!(
        good[magic.len()] as u32,
        spheresim::checkpoint::FORMAT_VERSION
    );
    let mut newer = good.clone();
    newer[magic.len()] += 1;
    fs::write(&p, &newer).unwrap();
    let e = Checkpoint::read(&p).unwrap_err().to_string();
    let newer_version = format!(
        "format version {}",
        spheresim::checkpoint::FORMAT_VERSION + 1
    );
    assert!(e.contains(&newer_version), "{e}");
}

#[test]
fn a_non_finite_stop_writes_a_checkpoint_that_resume_refuses() {
    let d = Dir::new();
    // G m = 3e39 overflows f32: the first kick makes the velocities infinite.
    let scene = r#"
[simulation]
dt = 0.001
steps = 20
G = 10.0

[[particle]]
position = [0.0, 0.0, 0.0]
velocity = [0.0, 0.0, 0.0]
radius = 0.1
mass = 3e38

[[particle]]
position = [1.0, 0.0, 0.0]
velocity = [0.0, 0.0, 0.0]
radius = 0.1
mass = 3e38
"#;
    fs::write(d.path("blowup.toml"), scene).unwrap();
    let ck = d.s("ck");
    let o = run(&[
        "run",
        &d.s("blowup.toml"),
        "--backend",
        "cpu",
        "--checkpoint",
        &ck,
        "-q",
    ]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("non-finite at step 1"), "{e}");
    assert!(e.contains("nonfinite_0000000001.ckpt"), "{e}");
    let p = d.path("ck/nonfinite_0000000001.ckpt");
    let c = Checkpoint::read(&p).unwrap();
    assert_eq!((c.step, c.reason), (1, Reason::NonFinite));
    let o = run(&["run", "--resume", p.to_str().unwrap(), "-q"]);
    assert!(stderr(&o).contains("non-finite stop"), "{}", stderr(&o));
}

#[test]
fn the_space_check_refuses_a_checkpoint_larger_than_the_disk() {
    let d = Dir::new();
    let c = Checkpointer::new(&d.path("ck"), None).unwrap();
    c.check_space(1 << 20).unwrap();
    let e = c.check_space(u64::MAX / 8).unwrap_err().to_string();
    assert!(
        e.contains("not enough disk space") && e.contains("ck"),
        "{e}"
    );
}

#[test]
fn resuming_on_another_precision_continues_with_a_notice() {
    let d = Dir::new();
    let ck = d.s("ck");
    ok(&[
        "run",
        "wall-stand",
        "--particles",
        "300",
        "--steps",
        "30",
        "--backend",
        "cpu",
        "--precision",
        "f64",
        "--checkpoint",
        &ck,
        "-q",
    ]);
    let j = d.s("s.json");
    let o = ok(&[
        "run",
        "--resume",
        &ck,
        "--steps",
        "60",
        "--precision",
        "f32",
        "--stats-json",
        &j,
        "-q",
    ]);
    let e = stderr(&o);
    assert!(
        e.contains("notice: resuming a cpu f64 checkpoint on the cpu backend in f32"),
        "{e}"
    );
    let stats: serde_json::Value = serde_json::from_str(&fs::read_to_string(&j).unwrap()).unwrap();
    assert_eq!(stats["steps"], 60);
    assert_eq!(stats["precision"], "f32");
    // Simulated time continues from the checkpoint's.
    let dt = stats["dt"].as_f64().unwrap();
    let t = stats["simulated_time"].as_f64().unwrap();
    assert!((t - 60.0 * dt).abs() <= 1e-9 * t, "{stats}");
}

#[test]
fn an_f64_checkpoint_resumes_on_the_gpu_in_f32_with_a_notice() {
    if !common::gpu_available() {
        return;
    }
    let d = Dir::new();
    let ck = d.s("ck");
    ok(&[
        "run",
        "wall-stand",
        "--particles",
        "300",
        "--steps",
        "20",
        "--backend",
        "cpu",
        "--precision",
        "f64",
        "--checkpoint",
        &ck,
        "-q",
    ]);
    let o = ok(&[
        "run",
        "--resume",
        &ck,
        "--steps",
        "40",
        "--backend",
        "gpu",
        "-q",
    ]);
    let e = stderr(&o);
    assert!(
        e.contains("notice: resuming a cpu f64 checkpoint on the gpu backend in f32"),
        "{e}"
    );
}

/// Two checkpointers on one directory: the second is refused while the first holds the lock
/// (before, both wrote and each pruned the other's checkpoints), and the lock goes with the
/// first.
#[test]
fn a_checkpoint_directory_belongs_to_one_checkpointer() {
    let d = Dir::new();
    let first = Checkpointer::new(&d.path("ck"), None).unwrap();
    let e = Checkpointer::new(&d.path("ck"), Some(5)).unwrap_err();
    let msg = e.to_string();
    assert!(
        matches!(e, spheresim::checkpoint::CheckpointError::Locked { .. }),
        "{msg}"
    );
    assert!(
        msg.contains(&d.s("ck")) && msg.contains("in use by another spheresim run"),
        "{msg}"
    );
    // A clone shares the lock; dropping every handle releases it.
    let clone = first.clone();
    drop(first);
    assert!(Checkpointer::new(&d.path("ck"), None).is_err());
    drop(clone);
    // A process that other tests fork at this moment holds a copy of the directory's descriptor,
    // and with it the lock, until it execs: a few tries.
    let mut again = Checkpointer::new(&d.path("ck"), None);
    for _ in 0..100 {
        if again.is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
        again = Checkpointer::new(&d.path("ck"), None);
    }
    again.unwrap();
}

/// A second `spheresim run` on the checkpoint directory of a running one is refused, names the
/// directory, and leaves the first run's checkpoints alone.
#[cfg(unix)]
#[test]
fn a_second_run_on_a_locked_checkpoint_directory_is_refused() {
    let d = Dir::new();
    let ck = d.s("ck");
    let mut child = common::start_endless_run(&["--checkpoint", &ck, "--checkpoint-every", "1000"]);
    let o = run(&[
        "run",
        "bounce",
        "--steps",
        "10",
        "--backend",
        "cpu",
        "--checkpoint",
        &ck,
        "-q",
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains(&format!("checkpoint directory {ck} is in use")),
        "{e}"
    );
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    assert_eq!(child.wait().unwrap().code(), Some(130));
    // The first run's newest checkpoint is its own interrupted one, not bounce's.
    let c = Checkpoint::read(&spheresim::checkpoint::resolve(&d.path("ck")).unwrap()).unwrap();
    assert_eq!(
        (c.scene.name.as_str(), c.reason),
        ("two-spheres", Reason::Interrupted)
    );
}

/// Writes a 4-sphere checkpoint at step 10 on `backend` and returns its path.
fn small_checkpoint(d: &Dir, backend: &str) -> PathBuf {
    let ck = d.s(&format!("ck-{backend}"));
    ok(&[
        "run",
        "two-spheres",
        "--particles",
        "4",
        "--steps",
        "10",
        "--backend",
        backend,
        "--checkpoint",
        &ck,
        "-q",
    ]);
    d.path(&format!("ck-{backend}/checkpoint_0000000010.ckpt"))
}

/// The sphere ids of a checkpoint's state, for either backend.
fn set_ids(c: &mut Checkpoint, ids: &[u32]) {
    match &mut c.engine {
        EngineState::Cpu(s) => s.id = ids.to_vec(),
        EngineState::Gpu(g) => {
            let b = g.buffers.iter_mut().find(|b| b.name == "ids").unwrap();
            b.bytes = ids.iter().flat_map(|i| i.to_le_bytes()).collect();
        }
    }
}

/// A crafted checkpoint (it decodes, its checksum is right) whose scene or state fails the
/// checks of a fresh run is refused with the file and the reason, before any backend sees it.
/// Before, dt = 0 and a negative radius ran, and the GPU panicked on a bad id.
fn crafted_checkpoints_are_refused(backend: &str) {
    let d = Dir::new();
    let good_path = small_checkpoint(&d, backend);
    let good = Checkpoint::read(&good_path).unwrap();
    type Edit = fn(&mut Checkpoint);
    let cases: [(&str, Edit, &str); 4] = [
        ("dt0", |c| c.scene.sim.dt = 0.0, "dt"),
        ("radius", |c| c.scene.spheres[1].radius = -0.1, "radius"),
        (
            "twice",
            |c| set_ids(c, &[0, 1, 1, 3]),
            "sphere id 1 appears twice",
        ),
        (
            "range",
            |c| set_ids(c, &[0, 1, 2, 4]),
            "sphere id 4 (slot 3) is out of range",
        ),
    ];
    for (name, edit, want) in cases {
        let mut c = good.clone();
        edit(&mut c);
        let p = d.path(&format!("{name}.ckpt"));
        c.write(&p).unwrap();
        let fin = d.s(&format!("{name}.csv"));
        let o = run(&[
            "run",
            "--resume",
            p.to_str().unwrap(),
            "--steps",
            "20",
            "--final",
            &fin,
            "-q",
        ]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{backend} {name}: {e}");
        assert!(
            e.contains(&format!("checkpoint {} cannot be resumed", p.display()))
                && e.contains(want),
            "{backend} {name}: {e}"
        );
        assert!(!e.contains("panicked"), "{backend} {name}: {e}");
        assert!(
            !Path::new(&fin).exists(),
            "{backend} {name}: final CSV written"
        );
    }
}

#[test]
fn crafted_checkpoints_are_refused_on_the_cpu() {
    crafted_checkpoints_are_refused("cpu");
}

#[test]
fn crafted_checkpoints_are_refused_on_the_gpu() {
    if common::gpu_available() {
        crafted_checkpoints_are_refused("gpu");
    }
}

/// `--steps` at the checkpoint's step is refused with both numbers (before, it ran 0 steps and
/// rewrote the outputs); one step more runs.
#[test]
fn resume_to_the_checkpoints_own_step_is_refused() {
    let d = Dir::new();
    let p = small_checkpoint(&d, "cpu");
    let fin = d.s("final.csv");
    let o = run(&[
        "run",
        "--resume",
        p.to_str().unwrap(),
        "--steps",
        "10",
        "--final",
        &fin,
        "-q",
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("--steps 10 is at or before the checkpoint's step 10"),
        "{e}"
    );
    assert!(!Path::new(&fin).exists());
    ok(&[
        "run",
        "--resume",
        p.to_str().unwrap(),
        "--steps",
        "11",
        "--final",
        &fin,
        "-q",
    ]);
    assert_eq!(fs::read_to_string(&fin).unwrap().lines().count(), 5);
}

#[test]
fn resuming_on_the_event_solver_is_refused_naming_the_resume() {
    // The resumed run inherits the checkpoint directory; the refusal is of the resume.
    let d = Dir::new();
    let p = small_checkpoint(&d, "cpu");
    let fin = d.s("final.csv");
    let args = ["run", "--resume", p.to_str().unwrap(), "--steps", "20"];
    let o = run(&[&args[..], &["--backend", "event", "--final", &fin, "-q"]].concat());
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("--resume") && e.contains("restores no checkpoints") && !e.contains("writes"),
        "{e}"
    );
    assert!(!Path::new(&fin).exists());
}

/// A new run refuses a directory that holds another run's checkpoints (its own would overwrite
/// those of the same step and prune the rest); the files are left as they were, and the earlier
/// run still resumes from the directory, naming its scene, and prunes as it goes.
#[test]
fn a_new_run_refuses_a_directory_holding_another_runs_checkpoints() {
    let d = Dir::new();
    let ck = d.s("ck");
    let args = |scene: &'static str, steps: &'static str| {
        [
            "run",
            scene,
            "--steps",
            steps,
            "--backend",
            "cpu",
            "--checkpoint",
            ck.as_str(),
            "--checkpoint-every",
            "10",
            "-q",
        ]
        .map(String::from)
    };
    fn as_strs(a: &[String; 11]) -> Vec<&str> {
        a.iter().map(String::as_str).collect()
    }
    ok(&as_strs(&args("bounce", "30")));
    let listing = || {
        let mut v: Vec<(String, Vec<u8>)> = fs::read_dir(d.path("ck"))
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let before = listing();
    // bounce kept its checkpoints at 20 and 30; two-spheres would write one at 20.
    let names: Vec<&str> = before.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["checkpoint_0000000020.ckpt", "checkpoint_0000000030.ckpt"]
    );
    let o = run(&as_strs(&args("two-spheres", "20")));
    assert!(!o.status.success(), "a second run was let into {ck}");
    let e = stderr(&o);
    assert!(
        e.contains(&format!(
            "--checkpoint {ck}: checkpoint directory {ck} already holds 2 checkpoint(s) of \
             another run (the newest {ck}/checkpoint_0000000030.ckpt)"
        )) && e.contains(&format!("continue that run (--resume {ck})")),
        "{e}"
    );
    assert!(listing() == before, "the refused run touched {ck}");
    // The run they belong to continues there and prunes its own.
    let o = ok(&["run", "--resume", &ck, "--steps", "50", "-q"]);
    let e = stderr(&o);
    assert!(
        e.contains(&format!(
            "--resume {ck}: resuming scene bounce at step 30 from {ck}/checkpoint_0000000030.ckpt"
        )),
        "{e}"
    );
    let names: Vec<String> = listing().into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        ["checkpoint_0000000040.ckpt", "checkpoint_0000000050.ckpt"]
    );
}

/// `memory` with every value rounded to f32, as an f32 backend holds it.
fn in_f32(memory: &spheresim::history::ContactMemory) -> spheresim::history::ContactMemory {
    use spheresim::history::{ContactMemory, Kept};
    let round = |k: &Kept| Kept {
        xi: k.xi.as_vec3().as_dvec3(),
        impact: k.impact as f32 as f64,
        rolling: k.rolling.as_vec3().as_dvec3(),
    };
    ContactMemory::collect(
        memory.pairs.iter().map(|(i, j, k)| (*i, *j, round(k))),
        memory.spheres(),
        memory.walls,
        |id, w| round(&memory.wall(id as u32, w)),
    )
}

/// A resume on another precision or backend starts each grain with the checkpoint's spin and
/// orientation and each contact with its saved history (before 2026-11-28: the scene's spins,
/// the identity and no history).
/// CPU f64 → CPU f32 rounds them to f32; the GPU's f32 state → CPU f32 carries them exactly.
#[test]
fn a_converting_resume_keeps_the_spins_orientations_and_contact_history() {
    use common::contract::{gpu_contract, test_gpu_options};
    use spheresim::gpu::GpuOptions;
    use spheresim::{Backend, Precision, Simulation};
    let scene = common::rubber_pile().steps(8000).build().unwrap();
    let resume_on_cpu_f32 = |first: &mut Simulation| {
        let state = first.save_state().unwrap();
        let at = first.diagnostics();
        let (resumed, notice) = Simulation::resume(
            &scene,
            &state,
            first.offsets(),
            &at,
            Backend::Cpu,
            Precision::F32,
            GpuOptions::default(),
        )
        .unwrap();
        let notice = notice.expect("a converting resume says so");
        assert!(notice.contains("contact history included"), "{notice}");
        resumed
    };
    let mut first = Simulation::new(&scene, Backend::Cpu, Precision::F64).unwrap();
    first.step(8000).unwrap();
    let (saved, memory) = (first.snapshot(), first.contact_memory().unwrap());
    assert!(
        memory.pairs.len() > 10 && saved.angular_velocity.iter().any(|w| w.length() > 0.01),
        "the grains should touch and spin at the checkpoint"
    );
    let mut resumed = resume_on_cpu_f32(&mut first);
    let spins: Vec<_> = saved
        .angular_velocity
        .iter()
        .map(|w| w.as_vec3().as_dvec3())
        .collect();
    assert_eq!(resumed.snapshot().angular_velocity, spins);
    let turns: Vec<_> = saved
        .orientation
        .iter()
        .map(|q| q.as_quat().as_dquat())
        .collect();
    assert!(saved.orientation.iter().all(|q| q.w < 1.0));
    assert_eq!(resumed.snapshot().orientation, turns);
    assert!(
        resumed.contact_memory().unwrap() == in_f32(&memory),
        "the f32 run's history is not the checkpoint's rounded"
    );
    if gpu_contract("a_converting_resume_keeps_the_spins_orientations_and_contact_history")
        .is_some()
    {
        // Whatever the adapter's rounding: the state is carried, not computed again.
        let mut gpu =
            Simulation::with_gpu_options(&scene, Backend::Gpu, Precision::F32, test_gpu_options())
                .unwrap();
        gpu.step(3000).unwrap();
        let memory = gpu.contact_memory().unwrap();
        assert!(!memory.pairs.is_empty());
        let mut resumed = resume_on_cpu_f32(&mut gpu);
        let (from, to) = (gpu.snapshot(), resumed.snapshot());
        assert_eq!(to.angular_velocity, from.angular_velocity);
        assert_eq!(to.orientation, from.orientation);
        assert!(resumed.contact_memory().unwrap() == memory);
    }
}
