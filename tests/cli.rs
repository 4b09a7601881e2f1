//! The `spheresim` binary end to end: outputs, every rejected input (message, exit status, nothing
//! written), non-finite detection and Ctrl-C.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_spheresim"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("spawn spheresim")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch directory with the three output paths a run may write.
struct Outs {
    dir: tempfile::TempDir,
}

impl Outs {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    fn s(&self, name: &str) -> String {
        self.path(name).to_string_lossy().into_owned()
    }
    /// The output flags, pointing into the scratch directory.
    fn flags(&self) -> Vec<String> {
        vec![
            "--final".into(),
            self.s("final.csv"),
            "--stats-json".into(),
            self.s("stats.json"),
            "--output".into(),
            self.s("snaps"),
            "--every".into(),
            "10".into(),
        ]
    }
    /// Names in the scratch directory besides the scene file.
    fn written(&self) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(self.dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "scene.toml")
            .collect();
        v.sort();
        v
    }
}

/// Runs a scene file that must be rejected: non-zero exit, every `expect` in the message, and no
/// output file at all.
fn rejected(toml: &str, extra: &[&str], expect: &[&str]) {
    let outs = Outs::new();
    let scene = outs.path("scene.toml");
    fs::write(&scene, toml).unwrap();
    let mut args: Vec<String> = vec!["run".into(), scene.to_string_lossy().into_owned()];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(outs.flags());
    let o = bin().args(&args).output().unwrap();
    let err = stderr(&o);
    assert!(!o.status.success(), "accepted:\n{toml}\n{err}");
    for e in expect {
        assert!(err.contains(e), "message lacks {e:?}:\n{err}");
    }
    assert!(err.starts_with("error: "), "{err}");
    assert_eq!(
        outs.written(),
        Vec::<String>::new(),
        "files written for a rejected run"
    );
}

const TWO: &str = r#"
[simulation]
dt = 1e-3
steps = 20

[[particle]]
position = [0.0, 0.0, 0.0]
radius = 0.1
mass = 1.0

[[particle]]
position = [1.0, 0.0, 0.0]
velocity = [-1.0, 0.0, 0.0]
radius = 0.1
mass = 1.0
"#;

#[test]
fn scenes_lists_every_builtin() {
    let o = run(&["scenes"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    for name in ["wall-break", "box-gas", "orbits", "bounce", "two-spheres"] {
        assert!(
            text.lines().any(|l| l.starts_with(name)),
            "{name} missing:\n{text}"
        );
    }
}

#[test]
fn run_writes_final_csv_stats_and_snapshots() {
    let outs = Outs::new();
    let mut args = vec![
        "run",
        "two-spheres",
        "--steps",
        "40",
        "--dt",
        "1e-2",
        "-q",
        "--format",
        "csv,vtk,vtp",
    ];
    let flags = outs.flags();
    args.extend(flags.iter().map(|s| s.as_str()));
    let o = bin().args(&args).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("particle-steps/s") && out.contains("collisions: 1 resolved"),
        "{out}"
    );

    let csv = fs::read_to_string(outs.path("final.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "id,x,y,z,vx,vy,vz,radius,mass,wx,wy,wz");
    assert_eq!(lines.len(), 3);
    assert!(lines[1].starts_with("0,") && lines[2].starts_with("1,"));

    let stats: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(outs.path("stats.json")).unwrap()).unwrap();
    for key in [
        "backend",
        "adapter",
        "particles",
        "steps",
        "wall_seconds",
        "particle_steps_per_second",
        "collisions",
        "kinetic_energy_initial",
        "kinetic_energy_final",
        "total_energy_initial",
        "total_energy_final",
        "momentum_initial",
        "momentum_final",
    ] {
        assert!(!stats[key].is_null(), "stats lacks {key}: {stats}");
    }
    assert_eq!(stats["backend"], "cpu");
    assert_eq!(stats["particles"], 2);
    assert_eq!(stats["steps"], 40);
    assert_eq!(stats["collisions"], 1);
    assert_eq!(stats["momentum_final"].as_array().unwrap().len(), 3);
    // Elastic oblique collision: kinetic energy kept.
    let (k0, k1) = (
        stats["kinetic_energy_initial"].as_f64().unwrap(),
        stats["kinetic_energy_final"].as_f64().unwrap(),
    );
    assert!((k1 - k0).abs() < 1e-5 * k0, "{k0} -> {k1}");

    let snaps = outs.path("snaps");
    for f in [
        "series.pvd",
        "series.vtk.series",
        "diagnostics.csv",
        "snapshot_00000000.csv",
        "snapshot_00000040.vtk",
        "snapshot_00000040.vtp",
    ] {
        assert!(snaps.join(f).is_file(), "{f} missing");
    }
    let pvd = fs::read_to_string(snaps.join("series.pvd")).unwrap();
    assert_eq!(
        pvd.matches("<DataSet").count(),
        5,
        "steps 0, 10, 20, 30, 40"
    );
    let diag = fs::read_to_string(snaps.join("diagnostics.csv")).unwrap();
    assert_eq!(diag.lines().count(), 6);
}

/// `--format` picks the snapshot files; without it, CSV and VTP only.
/// `--particles` takes `1e3` as `bench` does, and the same count as `1000`; a fraction is
/// refused by name.
#[test]
fn particles_take_a_power_of_ten() {
    let outs = Outs::new();
    let counts: Vec<u64> = ["1e3", "1000"]
        .iter()
        .map(|n| {
            let stats = outs.path(&format!("stats-{n}.json"));
            let o = run(&[
                "run",
                "box-gas",
                "--particles",
                n,
                "--steps",
                "1",
                "-q",
                "--stats-json",
                stats.to_str().unwrap(),
            ]);
            assert!(o.status.success(), "{}", stderr(&o));
            let v: serde_json::Value =
                serde_json::from_str(&fs::read_to_string(stats).unwrap()).unwrap();
            v["particles"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(counts, [1000, 1000]);
    let o = run(&["run", "box-gas", "--particles", "12.5", "--steps", "1"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("`12.5` is not a whole number"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn output_formats_are_chosen_by_format() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &[&str], &[&str]); 3] = [
        (
            &[],
            &[
                "snapshot_00000040.csv",
                "snapshot_00000040.vtp",
                "series.pvd",
            ],
            &["snapshot_00000040.vtk", "series.vtk.series"],
        ),
        (
            &["--format", "csv"],
            &["snapshot_00000040.csv"],
            &[
                "snapshot_00000040.vtp",
                "series.pvd",
                "snapshot_00000040.vtk",
            ],
        ),
        (
            &["--format", "vtk"],
            &["snapshot_00000040.vtk", "series.vtk.series"],
            &[
                "snapshot_00000040.csv",
                "snapshot_00000040.vtp",
                "series.pvd",
            ],
        ),
    ];
    for (k, (extra, present, absent)) in cases.iter().enumerate() {
        let out = dir.path().join(format!("out{k}"));
        let out_s = out.to_str().unwrap();
        let mut args = vec![
            "run",
            "two-spheres",
            "--steps",
            "40",
            "-q",
            "--output",
            out_s,
        ];
        args.extend_from_slice(extra);
        let o = run(&args);
        assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
        assert!(out.join("diagnostics.csv").is_file(), "{extra:?}");
        for f in *present {
            assert!(out.join(f).is_file(), "{extra:?}: {f} missing");
        }
        for f in *absent {
            assert!(!out.join(f).exists(), "{extra:?}: {f} written");
        }
    }
    let o = run(&["run", "two-spheres", "--output", "x", "--format", "png"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("png"), "{}", stderr(&o));
}

#[test]
fn toml_syntax_error_names_line_and_column() {
    rejected(
        "[simulation]\ndt = 1e-3\nsteps = = 3\n",
        &[],
        &["scene.toml", "line 3", "column"],
    );
}

#[test]
fn unknown_key_is_rejected_by_name() {
    rejected(&TWO.replace("steps = 20", "stpes = 20"), &[], &["stpes"]);
}

#[test]
fn negative_radius_names_the_sphere() {
    rejected(
        &TWO.replacen("radius = 0.1", "radius = -0.1", 1),
        &[],
        &["sphere 0", "radius"],
    );
}

#[test]
fn nan_position_names_the_sphere() {
    rejected(
        &TWO.replace("position = [1.0, 0.0, 0.0]", "position = [nan, 0.0, 0.0]"),
        &[],
        &["sphere 1", "position"],
    );
}

#[test]
fn restitution_outside_unit_interval() {
    rejected(
        &TWO.replace("steps = 20", "steps = 20\nrestitution = 1.5"),
        &[],
        &["restitution", "1.5"],
    );
}

#[test]
fn non_positive_mass_and_dt() {
    rejected(
        &TWO.replacen("mass = 1.0", "mass = 0.0", 1),
        &[],
        &["sphere 0", "mass"],
    );
    rejected(&TWO.replace("dt = 1e-3", "dt = 0.0"), &[], &["dt"]);
    rejected(TWO, &["--dt", "-1"], &["dt"]);
}

#[test]
fn zero_plane_normal_names_the_plane() {
    let toml = format!("{TWO}\n[[plane]]\npoint = [0.0, -1.0, 0.0]\nnormal = [0.0, 0.0, 0.0]\n");
    rejected(
        &toml,
        &[],
        &["[[plane]] #0 at line 17: normal has zero length"],
    );
}

#[test]
fn unknown_material_is_named() {
    rejected(
        &TWO.replacen("mass = 1.0", "material = \"unobtainium\"", 1),
        &[],
        &["unobtainium", "sphere 0"],
    );
}

#[test]
fn deep_initial_overlap_names_both_spheres_unless_allowed() {
    let toml = TWO.replace("position = [1.0, 0.0, 0.0]", "position = [0.15, 0.0, 0.0]");
    rejected(&toml, &[], &["0", "1", "overlap"]);
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("scene.toml");
    fs::write(&scene, &toml).unwrap();
    let o = run(&["run", scene.to_str().unwrap(), "--allow-overlap", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn empty_scene_is_rejected() {
    rejected("[simulation]\ndt = 1e-3\n", &[], &["no spheres"]);
}

#[test]
fn unknown_builtin_lists_the_names() {
    let o = run(&["run", "wall-brake"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("wall-brake") && err.contains("wall-break"),
        "{err}"
    );
}

#[test]
fn unavailable_backend_is_a_clear_error() {
    let o = run(&[
        "run",
        "bounce",
        "--backend",
        "gpu",
        "--precision",
        "f64",
        "--steps",
        "1",
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("'gpu' is not available"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn unwritable_output_paths_fail_before_stepping_and_write_nothing() {
    let outs = Outs::new();
    let missing = outs.path("no/such/dir/final.csv");
    let o = run(&[
        "run",
        "bounce",
        "--final",
        missing.to_str().unwrap(),
        "--stats-json",
        &outs.s("stats.json"),
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("final.csv") && err.contains("does not exist"),
        "{err}"
    );
    assert!(!err.contains("ran "), "stepping started: {err}");
    assert_eq!(outs.written(), Vec::<String>::new());

    // A directory where a file is expected, and an output dir under a regular file.
    let o = run(&["run", "bounce", "--stats-json", &outs.s("")]);
    assert!(!o.status.success());
    fs::write(outs.path("plain"), "x").unwrap();
    let o = run(&["run", "bounce", "--output", &outs.s("plain/snaps")]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("plain"), "{}", stderr(&o));
    assert_eq!(outs.written(), vec!["plain".to_string()]);
}

#[test]
fn non_finite_state_stops_with_step_and_sphere() {
    // G m = 3e39 overflows f32: the first kick makes the velocities infinite.
    let toml = TWO
        .replace("steps = 20", "steps = 20\nG = 10.0")
        .replace("mass = 1.0", "mass = 3e38");
    let outs = Outs::new();
    let scene = outs.path("scene.toml");
    fs::write(&scene, toml).unwrap();
    let o = run(&[
        "run",
        scene.to_str().unwrap(),
        "--final",
        &outs.s("final.csv"),
        "-q",
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("non-finite at step 1: sphere 0"), "{err}");
    assert!(
        !outs.path("final.csv").exists(),
        "a non-finite final state was written"
    );
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_between_steps_and_leaves_whole_files() {
    let outs = Outs::new();
    let flags = outs.flags();
    let mut args = vec![
        "run",
        "box-gas",
        "--particles",
        "2000",
        "--steps",
        "100000000",
        "-q",
    ];
    args.extend(flags.iter().map(|s| s.as_str()));
    let child = bin().args(&args).spawn().unwrap();
    // Wait until stepping has produced a few snapshots, then interrupt.
    let pvd = outs.path("snaps/series.pvd");
    let start = std::time::Instant::now();
    while start.elapsed().as_secs() < 60 {
        if fs::read_to_string(&pvd).is_ok_and(|t| t.matches("<DataSet").count() >= 3) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    let csv = fs::read_to_string(outs.path("final.csv")).unwrap();
    assert_eq!(csv.lines().count(), 2001, "final CSV whole");
    let stats: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(outs.path("stats.json")).unwrap()).unwrap();
    assert_eq!(stats["interrupted"], true);
    // Every snapshot the series lists is complete.
    let listed = fs::read_to_string(&pvd).unwrap();
    for name in listed
        .split("file=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap())
    {
        let csv_name = Path::new(name).with_extension("csv");
        let text = fs::read_to_string(outs.path("snaps").join(csv_name)).unwrap();
        assert_eq!(text.lines().count(), 2001);
    }
}

/// True when wgpu finds an adapter; without one, fails under CI=true, else skips with a reason.
fn gpu_available() -> bool {
    match spheresim::gpu::GpuContext::new() {
        Ok(_) => true,
        Err(e) => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("CI=true and no GPU adapter: {e}");
            }
            eprintln!("SKIPPED: no GPU adapter ({e})");
            false
        }
    }
}

#[test]
fn gpu_backend_writes_the_same_final_state_as_the_cpu() {
    if !gpu_available() {
        return;
    }
    let outs = Outs::new();
    for backend in ["gpu", "cpu"] {
        let o = run(&[
            "run",
            "two-spheres",
            "--particles",
            "6",
            "--steps",
            "500",
            "--dt",
            "1e-3",
            "--backend",
            backend,
            "-q",
            "--final",
            &outs.s(&format!("{backend}.csv")),
            "--stats-json",
            &outs.s(&format!("{backend}.json")),
        ]);
        assert!(o.status.success(), "{backend}: {}", stderr(&o));
    }
    let (g, c) = (
        fs::read_to_string(outs.path("gpu.csv")).unwrap(),
        fs::read_to_string(outs.path("cpu.csv")).unwrap(),
    );
    assert_eq!(g, c, "final states differ");
    let stats: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(outs.path("gpu.json")).unwrap()).unwrap();
    assert_eq!(stats["backend"], "gpu");
    assert!(
        stats["adapter"]
            .as_str()
            .is_some_and(|a| !a.starts_with("CPU (")),
        "{stats}"
    );
    assert_eq!(stats["collisions"], 3);
}

#[test]
fn gpu_in_f64_is_refused_clearly() {
    let o = run(&["run", "bounce", "--backend", "gpu", "--precision", "f64"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("f32"), "{}", stderr(&o));
}

#[test]
fn unknown_adapter_name_is_an_error_not_a_panic() {
    let o = bin()
        .args(["run", "bounce", "--backend", "gpu", "--steps", "1"])
        .env("WGPU_ADAPTER_NAME", "no-such-adapter-xyz")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("no-such-adapter-xyz") && !err.contains("panicked"),
        "{err}"
    );
}

#[test]
fn contact_and_friction_flags_override_the_scene() {
    // box-gas with the Hertz law and friction: the summary names the law and the losses.
    let o = run(&[
        "run",
        "box-gas",
        "--particles",
        "200",
        "--steps",
        "20",
        "--contact",
        "hertz",
        "--friction",
        "0.3",
        "--backend",
        "cpu",
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("dissipated by contact damping and friction"),
        "{out}"
    );
    assert!(stderr(&o).contains("hertz contact"), "{}", stderr(&o));
    // The box's default dt is far above the Hertz contact time of its spheres: warned, naming
    // the flag (the library's message names `Scene.sim.dt`).
    assert!(stderr(&o).contains("exceeds t_c/20"), "{}", stderr(&o));
    assert!(stderr(&o).contains("; use --dt "), "{}", stderr(&o));
}

#[test]
fn friction_with_impulses_and_negative_friction_are_rejected() {
    rejected(
        TWO,
        &["--friction", "0.3"],
        &["--friction", "impulse", "--contact hertz"],
    );
    rejected(
        TWO,
        &["--contact", "hertz", "--friction", "-1"],
        &["friction", "-1"],
    );
    rejected(TWO, &["--contact", "elastic"], &["elastic"]);
}

/// The summary's energy ledger names the uniform field's potential (the energy a falling heap
/// gives up), with the value −Σ m g·x of the movable spheres, and leaves out mutual gravity
/// in a scene without it.
#[test]
fn ledger_line_names_the_uniform_field() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("snaps");
    let o = run(&[
        "run",
        "pile",
        "--particles",
        "50",
        "--steps",
        "20",
        "--backend",
        "cpu",
        "--output",
        out_dir.to_str().unwrap(),
        "--format",
        "csv",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let line = out
        .lines()
        .find(|l| l.contains("energy ledger"))
        .unwrap_or_else(|| panic!("no ledger line in\n{out}"));
    assert!(!line.contains("gravitational"), "{line}");
    let start = line
        .split("uniform field ")
        .nth(1)
        .unwrap_or_else(|| panic!("no uniform-field term in {line}"))
        .split(" -> ")
        .next()
        .unwrap();
    let printed: f64 = start.parse().unwrap();
    // Step 0's snapshot: U = Σ m g z over the movable spheres (g = 9.81 m/s² along −z; the
    // fixed carpet is left out: the pile's first 50 spheres move).
    let csv = fs::read_to_string(out_dir.join("snapshot_00000000.csv")).unwrap();
    let u: f64 = csv
        .lines()
        .skip(1)
        .take(50)
        .map(|l| {
            let v: Vec<f64> = l.split(',').map(|x| x.parse().unwrap()).collect();
            v[8] * 9.81 * v[3]
        })
        .sum();
    assert!(
        (printed - u).abs() <= 1e-4 * u.abs(),
        "ledger prints {printed} J, the snapshot gives {u} J"
    );
}

/// Sends `signal` (`TERM`, `HUP`) to a long run once it is stepping; it must stop as Ctrl-C
/// does: the final state, the statistics with `"interrupted": true`, an interrupted checkpoint,
/// and the exit status 128 + the signal. Before, SIGTERM and SIGHUP killed it with no files.
#[cfg(unix)]
fn a_signal_stops_the_run_like_ctrl_c(signal: &str, code: i32) {
    let outs = Outs::new();
    let (fin, stats, ck) = (outs.s("final.csv"), outs.s("stats.json"), outs.s("ck"));
    let mut child =
        common::start_endless_run(&["--final", &fin, "--stats-json", &stats, "--checkpoint", &ck]);
    let killed = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(code), "SIG{signal}: {status:?}");
    let csv = fs::read_to_string(&fin).unwrap();
    assert_eq!(csv.lines().count(), 201, "SIG{signal}: final CSV whole");
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(v["interrupted"], true, "SIG{signal}");
    let steps = v["steps"].as_u64().unwrap();
    assert!(
        steps > 0 && steps < 100_000_000,
        "SIG{signal}: {steps} steps"
    );
    let c = spheresim::checkpoint::Checkpoint::read(
        &spheresim::checkpoint::resolve(Path::new(&ck)).unwrap(),
    )
    .unwrap();
    assert_eq!(
        (c.reason, c.step),
        (spheresim::checkpoint::Reason::Interrupted, steps)
    );
}

#[cfg(unix)]
#[test]
fn sigterm_and_sighup_stop_the_run_like_ctrl_c() {
    a_signal_stops_the_run_like_ctrl_c("TERM", 143);
    a_signal_stops_the_run_like_ctrl_c("HUP", 129);
}

/// A pipe whose read end is already closed, as standard output: every write fails with EPIPE.
#[cfg(unix)]
fn closed_pipe() -> std::process::Stdio {
    let (r, w) = nix::unistd::pipe().unwrap();
    drop(r);
    std::process::Stdio::from(w)
}

/// `spheresim scenes` (and `validate --list`) into a closed pipe end quietly, killed by SIGPIPE
/// like `cat` (a shell reports 141), with nothing on standard error; before, they panicked
/// ("failed printing to stdout") with exit 101. A run's summary into a closed pipe costs the
/// summary only: the run's files are written and it exits 0.
#[cfg(unix)]
#[test]
fn a_closed_stdout_ends_quietly() {
    use std::os::unix::process::ExitStatusExt;
    for args in [&["scenes"][..], &["validate", "--list"]] {
        let o = bin().args(args).stdout(closed_pipe()).output().unwrap();
        assert_eq!(o.status.signal(), Some(13), "{args:?}: {:?}", o.status);
        assert_eq!(stderr(&o), "", "{args:?}");
    }
    let outs = Outs::new();
    let fin = outs.s("final.csv");
    let o = bin()
        .args([
            "run",
            "bounce",
            "--steps",
            "5",
            "--backend",
            "cpu",
            "-q",
            "--final",
            &fin,
        ])
        .stdout(closed_pipe())
        .output()
        .unwrap();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(!e.contains("panicked") && !e.contains("warning"), "{e}");
    assert_eq!(fs::read_to_string(&fin).unwrap().lines().count(), 2);
}

/// A run whose standard error was closed (`spheresim run … 2>&1 | head -1`) goes on: its header,
/// progress lines and warnings are dropped, its files are written and it exits 0. Before, the
/// first line to a closed stderr panicked (exit 101).
#[cfg(unix)]
#[test]
fn a_closed_stderr_does_not_stop_the_run() {
    let outs = Outs::new();
    let fin = outs.s("final.csv");
    let mut child = bin()
        .args(["run", "bounce", "--backend", "cpu", "--steps", "3000"])
        .args(["-q", "--progress-every", "1", "--final", &fin])
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{status:?}");
    assert!(outs.path("final.csv").exists(), "no final state written");
}
