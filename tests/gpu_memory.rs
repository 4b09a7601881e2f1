//! A long GPU run keeps its resident memory flat: the same process after N and after 10 N
//! steps holds the same resident set within a few percent (issue 36, item 1).
//!
//! Mesa's lavapipe 22.3 compiled a new shader variant, with the uniform values inlined, on
//! every dispatch of a shader whose loops read a uniform, and kept each until the device was
//! dropped: about 230 KB a step at any N. The compute shaders now read their parameters from
//! read-only storage buffers (shaders/common.wgsl), which the driver does not inline.
//!
//! One test in its own executable: other tests in the same process would move its resident set.

mod common;

use spheresim::real::Precision;
use spheresim::scene::builtin;
use spheresim::sim::{Backend, Simulation};

/// The process's resident set size, bytes (Linux `VmRSS`).
fn resident_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("read /proc/self/status");
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmRSS in /proc/self/status");
    kib * 1024
}

/// Steps after the warm-up; the check runs N and then 9 N more.
const N: u64 = 200;

/// Resident growth allowed from N to 10 N steps, as a fraction of the resident set at N.
const ALLOWED_GROWTH: f64 = 0.03;

#[test]
#[cfg(target_os = "linux")]
fn resident_memory_stays_flat_over_ten_times_the_steps() {
    if !common::gpu_available() {
        return;
    }
    // An impulse gas in a box and a frictional Hertz stand with its neighbour list: between
    // them every stage of a step that has no gravity tree.
    for name in ["box-gas", "wall-stand"] {
        let scene = builtin::build(name, Some(64)).expect("built-in scene");
        let mut sim = Simulation::new(&scene, Backend::Gpu, Precision::F32).expect("GPU backend");
        // Warm-up: pipelines, pools and the allocator's arenas reach their working size.
        sim.step(N).expect("warm-up steps");
        sim.step(N).expect("N steps");
        let at_n = resident_bytes();
        sim.step(9 * N).expect("9 N more steps");
        let at_10n = resident_bytes();
        let growth = at_10n as f64 / at_n as f64 - 1.0;
        eprintln!(
            "{name}: resident {:.1} MiB after N = {N} steps, {:.1} MiB after 10 N ({:+.2} %)",
            at_n as f64 / 1048576.0,
            at_10n as f64 / 1048576.0,
            100.0 * growth
        );
        assert!(
            growth <= ALLOWED_GROWTH,
            "{name}: the resident set grew by {:.1} % from {N} to {} steps ({:.0} KB a step), \
             over the {:.0} % allowed",
            100.0 * growth,
            10 * N,
            (at_10n as f64 - at_n as f64) / 1024.0 / (9 * N) as f64,
            100.0 * ALLOWED_GROWTH
        );
    }
}

/// No compute stage declares a `var<uniform>` (the renderer's shaders, impostor.wgsl and
/// plane.wgsl, may): the parameter blocks are read-only storage, which lavapipe does not inline
/// and recompile. A shader with an entry point other than `@compute` is the renderer's.
#[test]
fn compute_stages_bind_no_uniform_buffers() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut checked = 0;
    // The shared modules that stages compose (shaders/physics, shaders/walls) count too.
    let mut files = Vec::new();
    for sub in [dir.clone(), dir.join("physics"), dir.join("walls")] {
        for entry in std::fs::read_dir(&sub).expect("read a shader directory") {
            files.push(entry.expect("directory entry").path());
        }
    }
    let modules = files.iter().filter(|p| p.parent() != Some(&dir)).count();
    assert!(modules >= 4, "only {modules} shared WGSL modules found");
    for path in files {
        let name = path
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if !name.ends_with(".wgsl") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read shader");
        if text.contains("@vertex") || text.contains("@fragment") {
            continue;
        }
        for (k, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            assert!(
                !code.contains("var<uniform>"),
                "shaders/{name}:{}: a compute stage binds a uniform buffer; bind its parameters \
                 as var<storage, read> (src/gpu/buffers.rs: uniform)",
                k + 1
            );
        }
        checked += 1;
    }
    assert!(
        checked >= 10,
        "only {checked} compute shaders found in {}",
        dir.display()
    );
}
