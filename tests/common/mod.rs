//! Shared helpers for integration tests: scenes built by hand, stepping to completion.
#![allow(dead_code)]

pub mod contract;
pub mod tree_cases;

use glam::DVec3;
use spheresim::scene::{ContactModel, Plane, Scene, SimParams, Sphere};
/// The validation cases' builders: a free sphere, a fixed one, a plane.
pub use spheresim::validate::{fixed, plane, sphere};
use spheresim::{Backend, Precision, Simulation};

pub fn scene(spheres: Vec<Sphere>, planes: Vec<Plane>, sim: SimParams) -> Scene {
    Scene {
        inserts: Vec::new(),
        outflows: Vec::new(),
        name: "test".into(),
        sim,
        materials: vec![],
        containers: vec![],
        spheres,
        planes,
    }
}

/// 27 frictional rubber grains with rotation settling in a 10 cm box (Hertz, dt = 10 µs,
/// gravity along −y): contacts that keep a history, with each other and with the walls, and
/// spinning grains. The builder, for a test to add its steps or an outflow.
pub fn rubber_pile() -> spheresim::scene::SceneBuilder {
    use spheresim::scene::BoxContainer;
    let mut b = Scene::builder()
        .dt(1e-5)
        .gravity(DVec3::new(0.0, -9.81, 0.0))
        .contact(ContactModel::Hertz)
        .rotation(true)
        .box_container(BoxContainer::new(DVec3::ZERO, DVec3::splat(0.1)).material("rubber"));
    for i in 0..27 {
        let (x, y, z) = ((i % 3) as f64, ((i / 3) % 3) as f64, (i / 9) as f64);
        b = b.sphere(
            Sphere::new(
                DVec3::new(
                    0.025 + 0.025 * x + 0.002 * y,
                    0.012 + 0.021 * y,
                    0.025 + 0.025 * z,
                ),
                0.01,
            )
            .velocity(DVec3::new(0.1 * (x - 1.0), -0.1, 0.05 * (z - 1.0)))
            .material("rubber"),
        );
    }
    b
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

/// The adapter of this process's GPU tests, probed once: its name and whether it is a software
/// one, or why none opened.
fn adapter() -> &'static Result<(String, bool), String> {
    static ADAPTER: std::sync::OnceLock<Result<(String, bool), String>> =
        std::sync::OnceLock::new();
    ADAPTER.get_or_init(|| {
        spheresim::gpu::GpuContext::new()
            .map(|c| (c.adapter_name(), c.is_software()))
            .map_err(|e| e.to_string())
    })
}

/// On a hardware adapter, holds the process's GPU-test lock until this test's thread ends: the
/// GPU tests of one executable then run one at a time, since test executables running several
/// at once crashed on NVIDIA (benches/RESULTS.md, the H200 runs). A software adapter runs them
/// in parallel.
fn one_gpu_test_at_a_time() {
    use std::sync::{Mutex, MutexGuard};
    static LOCK: Mutex<()> = Mutex::new(());
    thread_local! {
        static HELD: std::cell::RefCell<Option<MutexGuard<'static, ()>>> =
            const { std::cell::RefCell::new(None) };
    }
    HELD.with(|h| {
        let mut h = h.borrow_mut();
        if h.is_none() {
            *h = Some(LOCK.lock().unwrap_or_else(|e| e.into_inner()));
        }
    });
}

/// The adapter's name and whether it is a software one, when a GPU adapter opens (Mesa's
/// lavapipe on machines without a GPU), with this test holding the hardware lock
/// (`one_gpu_test_at_a_time`). Without one: fails when `CI=true`, else prints why and returns
/// `None` so that the caller skips, saying so.
pub fn usable_adapter() -> Option<&'static (String, bool)> {
    match adapter() {
        Ok(a) => {
            if !a.1 {
                one_gpu_test_at_a_time();
            }
            Some(a)
        }
        Err(e) => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("CI=true and no GPU adapter: {e}");
            }
            eprintln!("SKIPPED: no GPU adapter ({e})");
            None
        }
    }
}

/// True when a GPU adapter opens; see [`usable_adapter`].
pub fn gpu_available() -> bool {
    usable_adapter()
        .inspect(|(name, _)| eprintln!("GPU tests on {name}"))
        .is_some()
}

/// A sphere hitting a fixed sphere head-on and another hitting a plane obliquely (e = 0.5), for
/// 1 s at dt = 1 ms: the infinite-mass partners of every backend.
pub fn fixed_obstacle_scene() -> Scene {
    scene(
        vec![
            sphere(
                DVec3::new(-1.0, 0.0, 0.0),
                DVec3::new(2.0, 0.0, 0.0),
                0.1,
                1.0,
                0.5,
            ),
            fixed(DVec3::ZERO, 0.5),
            sphere(
                DVec3::new(3.0, -0.5, 0.0),
                DVec3::new(1.0, -3.0, 0.0),
                0.1,
                1.0,
                0.5,
            ),
        ],
        vec![plane(DVec3::new(0.0, -1.0, 0.0), DVec3::Y, 1.0)],
        params(1e-3, 1000),
    )
}

/// Starts `spheresim run two-spheres` (200 spheres on the CPU for 10⁸ steps: it runs until
/// stopped) with `extra` arguments after `-q --progress-every 1`, standard error piped, and
/// returns once its first progress line shows it stepping, with its signal handlers installed.
#[cfg(unix)]
pub fn start_endless_run(extra: &[&str]) -> std::process::Child {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spheresim"));
    cmd.args([
        "run",
        "two-spheres",
        "--particles",
        "200",
        "--backend",
        "cpu",
    ])
    .args(["--steps", "100000000", "-q", "--progress-every", "1"])
    .args(extra)
    .stderr(Stdio::piped())
    .stdout(Stdio::null());
    // Under `nohup` the tests inherit SIGHUP ignored, and the run keeps an ignored SIGHUP
    // ignored (src/run/signal.rs): the run gets the default back, as from a terminal.
    #[cfg(unix)]
    {
        use nix::sys::signal::{SigHandler, Signal, signal};
        use std::os::unix::process::CommandExt;
        // SAFETY: between fork and exec only `signal(2)`, which is async-signal-safe, runs.
        unsafe {
            cmd.pre_exec(|| {
                signal(Signal::SIGHUP, SigHandler::SigDfl)
                    .map(|_| ())
                    .map_err(std::io::Error::from)
            });
        }
    }
    let mut child = cmd.spawn().expect("spawn spheresim");
    let mut err = BufReader::new(child.stderr.take().expect("piped stderr"));
    let mut line = String::new();
    while !line.starts_with("progress: step ") {
        line.clear();
        assert_ne!(err.read_line(&mut line).unwrap(), 0, "run ended early");
    }
    // Keep the pipe open: the run goes on writing progress lines to it.
    child.stderr = Some(err.into_inner());
    child
}

/// `spheresim` with lavapipe's `XDG_RUNTIME_DIR` warning silenced.
pub fn cli() -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_spheresim"));
    c.env("XDG_RUNTIME_DIR", std::env::temp_dir());
    c
}

/// Runs `scene` (a file) on `backend` to step `stop` with checkpoints in `dir/ck`, resumes the
/// newest to step `end`, and asserts that its final CSV is `whole` (the uninterrupted run's)
/// to the byte. The contract: a resume on the checkpoint's own backend and adapter continues
/// bit for bit, on a software adapter and on hardware alike (the hardware contract keeps
/// run-to-run identity; docs/long-runs.md).
pub fn assert_resumes_bit_for_bit(
    scene: &std::path::Path,
    dir: &std::path::Path,
    backend: &str,
    (stop, end): (u64, u64),
    whole: &str,
) {
    let ck = dir.join("ck");
    let first = cli()
        .arg("run")
        .arg(scene)
        .args(["--backend", backend, "--steps", &stop.to_string()])
        .arg("--checkpoint")
        .arg(&ck)
        .output()
        .unwrap();
    assert!(first.status.success(), "{backend}: {first:?}");
    let resumed = dir.join("resumed.csv");
    let second = cli()
        .arg("run")
        .arg("--resume")
        .arg(&ck)
        .args(["--steps", &end.to_string()])
        .arg("--final")
        .arg(&resumed)
        .output()
        .unwrap();
    assert!(second.status.success(), "{backend}: {second:?}");
    assert_eq!(
        std::fs::read_to_string(&resumed).unwrap(),
        whole,
        "{backend}: the resumed run ends where the whole run ends"
    );
}

/// Runs `scene` (a file) on `backend` with `extra` arguments, writing `dir/whole.csv` and
/// `dir/stats.json`; asserts that it succeeds and returns its output (standard error, then
/// standard output) and its stats.
pub fn run_scene_file(
    scene: &std::path::Path,
    dir: &std::path::Path,
    backend: &str,
    extra: &[&str],
) -> (String, serde_json::Value) {
    std::fs::create_dir_all(dir).unwrap();
    let out = cli()
        .arg("run")
        .arg(scene)
        .args(["--backend", backend])
        .args(extra)
        .arg("--final")
        .arg(dir.join("whole.csv"))
        .arg("--stats-json")
        .arg(dir.join("stats.json"))
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{backend}: {text}");
    let stats = std::fs::read_to_string(dir.join("stats.json")).unwrap();
    (text, serde_json::from_str(&stats).unwrap())
}
