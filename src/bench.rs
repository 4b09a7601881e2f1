//! `spheresim bench`: timed runs of built-in scenes on each backend, GPU against CPU.
//!
//! Each configuration (scene × sphere count × backend) is set up, warmed up, then stepped
//! `repeats` times for `steps` steps each; every timed run ends when the backend has finished
//! the work (the GPU backend waits for its submissions), so ms/step is time to completion, not
//! to submission. Per-stage times are means over the same timed steps: on the GPU from timestamp
//! queries (adapter feature `TIMESTAMP_QUERY`) in a replay of those steps on a fresh simulation,
//! so that the timed runs carry no query overhead; on the CPU from wall-clock stage timers.

use crate::cpu::CpuBackend;
use crate::gpu::work::ROW_PASS;
use crate::scene::builtin;
use crate::{Backend, Precision, Simulation};
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Instant;

/// A backend as `spheresim bench` runs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum BenchBackend {
    /// The GPU backend (wgpu compute shaders, f32).
    Gpu,
    /// The CPU reference backend on every core (rayon's global pool), f32.
    Cpu,
    /// The CPU reference backend on one thread: the baseline for the parallel speedup.
    Cpu1,
}

impl std::fmt::Display for BenchBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BenchBackend::Gpu => "gpu",
            BenchBackend::Cpu => "cpu",
            BenchBackend::Cpu1 => "cpu1",
        })
    }
}

/// What to run; also the options of `spheresim bench` (`help` gives the command-line text).
#[derive(Clone, Debug, clap::Args)]
pub struct BenchConfig {
    /// Built-in scene names (default: wall-break, box-gas, orbits).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "wall-break,box-gas,orbits",
        help = "Built-in scenes, comma-separated"
    )]
    pub scenes: Vec<String>,
    /// Sphere counts (default: 10³, 10⁴, 10⁵, 10⁶).
    #[arg(long, value_delimiter = ',', default_value = "1e3,1e4,1e5,1e6",
          value_parser = parse_count,
          help = "Sphere counts, comma-separated; `1e5` and `100000` both work")]
    pub particles: Vec<usize>,
    /// Backends (default: gpu, cpu).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "gpu,cpu",
        help = "Backends, comma-separated: gpu, cpu (every core), cpu1 (one thread)"
    )]
    pub backends: Vec<BenchBackend>,
    /// Timed steps per repeat (default: `10`).
    #[arg(long, default_value_t = 10, help = "Timed steps per repeat")]
    pub steps: u64,
    /// Timed repeats (default: `3`).
    #[arg(
        long,
        default_value_t = 3,
        help = "Timed repeats (the table gives their median, min and max)"
    )]
    pub repeats: usize,
    /// Untimed steps before the repeats (default: `2`): first-use costs (pipeline compilation,
    /// page faults) stay out of the figures.
    #[arg(
        long,
        default_value_t = 2,
        help = "Untimed warm-up steps before the repeats"
    )]
    pub warmup: u64,
    /// Seconds one configuration may take, estimated from the previous sphere count of the same
    /// scene and backend; a configuration predicted to take longer is skipped, and its row says
    /// so (default: `300`).
    #[arg(
        long,
        default_value_t = 300.0,
        help = "Skip a configuration predicted (from the previous count) to take longer than this, s"
    )]
    pub budget_seconds: f64,
    /// Mutual-gravity solver of the scenes with G > 0 (default: each scene's own).
    #[arg(
        long,
        value_enum,
        help = "Mutual-gravity solver for scenes with G > 0 [default: the scene's]"
    )]
    pub gravity_solver: Option<crate::scene::GravitySolver>,
    /// Opening angle θ of the gravity tree, in (0, 1.5] (default: the scene's, 0.5).
    #[arg(
        long,
        help = "Opening angle θ of the gravity tree, in (0, 1.5] [default: the scene's]"
    )]
    pub theta: Option<f64>,
    /// Neighbour-list skin of every scene as a fraction of its smallest radius, ≥ 0 (default:
    /// each scene's own: [`crate::scene::DEFAULT_SKIN_FRACTION`] of it, or the scene's `skin`).
    #[arg(
        long,
        help = "Neighbour-list skin as a fraction of each scene's smallest radius (0: rebuild every step) [default: the scene's]"
    )]
    pub skin_fraction: Option<f64>,
    /// Record the walls' forces (`wall_forces`) in every scene with walls and a soft contact
    /// law; the others run as they are (default: off, as in the scenes).
    #[arg(
        long,
        help = "Record the walls' forces in every scene with walls and a soft contact law (the others run as they are)"
    )]
    pub wall_forces: bool,
}

impl Default for BenchConfig {
    fn default() -> Self {
        Self {
            scenes: vec!["wall-break".into(), "box-gas".into(), "orbits".into()],
            particles: vec![1_000, 10_000, 100_000, 1_000_000],
            backends: vec![BenchBackend::Gpu, BenchBackend::Cpu],
            steps: 10,
            repeats: 3,
            warmup: 2,
            budget_seconds: 300.0,
            gravity_solver: None,
            theta: None,
            skin_fraction: None,
            wall_forces: false,
        }
    }
}

/// One measured (or skipped) configuration. JSON keys are a contract (docs/output.md):
/// `scene`, `particles`, `backend`, `adapter`, `ms_per_step_median`,
/// `particle_steps_per_second` at least.
#[derive(Clone, Debug, Default, Serialize)]
pub struct BenchRow {
    /// Built-in scene name.
    pub scene: String,
    /// Spheres actually built (a lattice scene may round the requested count).
    pub particles: usize,
    /// The requested count.
    pub particles_requested: usize,
    /// `gpu`, `cpu` or `cpu1`.
    pub backend: String,
    /// The device: GPU adapter name, or `CPU (k threads)`.
    pub adapter: String,
    /// Timed steps per repeat.
    pub steps: u64,
    /// Timed repeats.
    pub repeats: usize,
    /// Median over the repeats of wall-clock milliseconds per step, to completion.
    pub ms_per_step_median: f64,
    /// Fastest repeat, ms/step.
    pub ms_per_step_min: f64,
    /// Slowest repeat, ms/step.
    pub ms_per_step_max: f64,
    /// Spheres × steps per second at the median.
    pub particle_steps_per_second: f64,
    /// GPU rows: CPU ms/step ÷ GPU ms/step for the same scene and count, when both ran.
    pub speedup_vs_cpu: Option<f64>,
    /// `cpu` rows: one-thread ms/step ÷ all-thread ms/step, when `cpu1` ran too.
    pub speedup_vs_one_thread: Option<f64>,
    /// Estimated memory of the backend per sphere, bytes (GPU: device buffers; CPU: heap arrays).
    pub memory_bytes_per_sphere: f64,
    /// Per-stage milliseconds per step, mean over the timed steps, named as the CPU's stages
    /// (`integrate`, `binning`, `contacts`, `gravity`, `forces`, `check`); empty when
    /// unavailable.
    pub stage_ms_per_step: BTreeMap<String, f64>,
    /// GPU rows with timestamp queries: milliseconds per step of each compute pass, by its label
    /// (`cell_keys + count`, `neighbours`, `collide::impulse_pairs`, ...), mean over the timed
    /// steps; the stages split finer. Empty elsewhere.
    pub pass_ms_per_step: BTreeMap<String, f64>,
    /// Where the stage times come from: `timestamp queries`, `wall clock`, or why there are none.
    pub stage_timing: String,
    /// Mutual-gravity pair interactions per second, N(N−1) per step, for scenes with G > 0.
    pub gravity_interactions_per_second: Option<f64>,
    /// `gravity stage` (timed alone) or `whole step` (an under-estimate of the stage's rate).
    pub gravity_interactions_timing: Option<String>,
    /// Why this configuration was not measured (skipped or failed), else `None`.
    pub error: Option<String>,
    /// GPU rows: compute dispatches recorded per step.
    pub dispatches_per_step: Option<f64>,
    /// GPU rows: the most candidate pairs one invocation of a contact pass visited in one pass,
    /// over a replay of the timed steps with the counting pipelines (`gpu::work`).
    pub max_pair_visits_per_invocation: Option<u32>,
    /// GPU rows: candidate pairs visited per invocation of the contact passes, mean over the
    /// same replay.
    pub mean_pair_visits_per_invocation: Option<f64>,
    /// GPU rows: of `dispatches_per_step`, those that run work-groups, on average: the
    /// binning's and the list build's indirect dispatches are empty in a step that does not
    /// rebuild the list.
    pub dispatches_with_work_per_step: Option<f64>,
    /// GPU rows: bytes per sphere per step the dispatches with work may move, over the replay:
    /// for each dispatch, the bound size of each buffer its entry point uses (twice when it
    /// both reads and writes it), summed over a step, divided by the spheres
    /// (`gpu::traffic`). An upper bound on DRAM traffic; `null` for the CPU. docs/performance.md,
    /// "Bytes per sphere-step".
    pub bytes_per_sphere_step: Option<f64>,
    /// GPU rows: the same over every dispatch recorded, the empty ones too.
    pub bytes_per_sphere_step_recorded: Option<f64>,
    /// GPU rows: the row passes' busiest invocation and mean, in candidate pairs
    /// (`gpu::work::ROW_PASS`; the per-entry passes visit one pair at most).
    pub row_pass_max_pair_visits: Option<u32>,
    /// GPU rows: the list build's walks (`gpu::work::BUILD_PASS`): the busiest invocation's
    /// visits (candidates, boxes, cells) in one pass, over the same replay; `null` for the CPU.
    pub build_pass_max_visits: Option<u32>,
    /// GPU rows: the list build's walks, mean visits per invocation.
    pub build_pass_mean_visits: Option<f64>,
    /// GPU rows: the row passes' mean candidate pairs per invocation.
    pub row_pass_mean_pair_visits: Option<f64>,
    /// GPU rows: the busiest invocation's visits over the mean of its own kind of contact pass
    /// (per entry, per row), the larger of the two: how long a pass waits on its busiest lane,
    /// relative to an even share ([`crate::gpu::work::WorkCounts::max_over_mean`]).
    pub pair_visits_max_over_mean: Option<f64>,
    /// Scenes with G > 0: `direct` or `tree`.
    pub gravity_solver: Option<String>,
    /// Tree rows: the opening angle θ.
    pub theta: Option<f64>,
    /// The neighbour-list skin the scene ran with, m.
    pub skin: f64,
    /// Scenes with G > 0: bodies whose mutual acceleration the gravity stage computed per
    /// second (N / stage time; `gravity_interactions_timing` says which time).
    pub gravity_bodies_per_second: Option<f64>,
    /// Tree rows: the most interactions (cells and bodies used) of one body's walk, in the
    /// last timed step.
    pub max_interactions_per_walk: Option<u32>,
    /// Tree rows: interactions per walk, mean over the bodies of the last timed step.
    pub mean_interactions_per_walk: Option<f64>,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        0.5 * (v[m - 1] + v[m])
    }
}

/// Runs one configuration on the current rayon pool.
fn measure(
    cfg: &BenchConfig,
    scene_name: &str,
    requested: usize,
    backend: BenchBackend,
) -> Result<BenchRow, String> {
    let mut scene = builtin::build(scene_name, Some(requested)).map_err(|e| e.to_string())?;
    if let Some(f) = cfg.skin_fraction {
        scene.sim.skin = Some(scene.skin_of_fraction(f));
        scene
            .check(&Default::default())
            .map_err(|e| e.to_string())?;
    }
    scene.sim.wall_forces = cfg.wall_forces
        && scene.sim.contact.is_soft()
        && !(scene.planes.is_empty() && scene.containers.is_empty());
    if scene.sim.g_const > 0.0 {
        if let Some(solver) = cfg.gravity_solver {
            scene.sim.gravity_solver = solver;
        }
        if let Some(theta) = cfg.theta {
            scene.sim.theta = theta;
        }
        scene
            .check(&Default::default())
            .map_err(|e| e.to_string())?;
    }
    let b = match backend {
        BenchBackend::Gpu => Backend::Gpu,
        BenchBackend::Cpu | BenchBackend::Cpu1 => Backend::Cpu,
    };
    let mut sim = Simulation::new(&scene, b, Precision::F32).map_err(|e| e.to_string())?;
    // With what an insertion placed before the first step.
    let n = sim.particles();
    let fail = |e: crate::SimError| e.to_string();
    sim.step(cfg.warmup).map_err(fail)?;

    let stage_before = sim.stage_seconds();
    let mut ms = Vec::with_capacity(cfg.repeats);
    for _ in 0..cfg.repeats {
        let t = Instant::now();
        sim.step(cfg.steps).map_err(fail)?;
        ms.push(t.elapsed().as_secs_f64() * 1e3 / cfg.steps as f64);
    }
    let walks = sim.walk_counts();
    let (lo, hi) = (
        ms.iter().copied().fold(f64::INFINITY, f64::min),
        ms.iter().copied().fold(0.0, f64::max),
    );
    let med = median(&mut ms);

    // Stage times, as the mean over the timed steps. CPU: the stage timers ran during the timed
    // repeats. GPU: the same steps replayed on a fresh simulation with timestamp queries (the
    // GPU backend is deterministic), so the timed repeats carry no query overhead and the stage
    // times cover the same stretch of the scene's evolution.
    let timed_steps = cfg.steps * cfg.repeats as u64;
    let adapter = sim.adapter();
    // The list as allocated after the timed steps (set-up sizes it from its first build, and it
    // grows between submissions): B/sphere counts what the run really held.
    let list_capacity = sim.gpu_backend().map(|g| g.list_capacity());
    // Seconds so far, by name, as milliseconds per timed step.
    let per_step = |seconds: Vec<(&'static str, f64)>| -> BTreeMap<String, f64> {
        seconds
            .into_iter()
            .map(|(k, t)| (k.to_string(), t * 1e3 / timed_steps as f64))
            .collect()
    };
    let mut pass_ms = BTreeMap::new();
    let (stage_ms, stage_timing) = match backend {
        BenchBackend::Gpu => {
            drop(sim);
            let mut replay =
                Simulation::new(&scene, b, Precision::F32).map_err(|e| e.to_string())?;
            replay.step(cfg.warmup).map_err(fail)?;
            if replay.set_profiling(true) {
                replay.step(timed_steps).map_err(fail)?;
                pass_ms = per_step(replay.pass_seconds());
                (
                    per_step(replay.stage_seconds()),
                    "timestamp queries".to_string(),
                )
            } else {
                (
                    BTreeMap::new(),
                    "none: the adapter has no timestamp queries (whole step only)".to_string(),
                )
            }
        }
        _ => {
            let after = sim.stage_seconds();
            let timed = after
                .iter()
                .zip(&stage_before)
                .map(|((name, t1), (_, t0))| (*name, t1 - t0))
                .collect();
            (per_step(timed), "wall clock".to_string())
        }
    };
    // GPU: work per invocation, counted in a third run of the same steps (counting slows the
    // contact passes, so neither the timed run nor the timestamp replay carries it).
    let work = match backend {
        BenchBackend::Gpu => {
            let mut replay =
                Simulation::new(&scene, b, Precision::F32).map_err(|e| e.to_string())?;
            replay.step(cfg.warmup).map_err(fail)?;
            replay.set_work_counting(true);
            replay.step(timed_steps).map_err(fail)?;
            replay.work_counts()
        }
        _ => None,
    };
    let history = crate::setup::contact_history(&scene);
    let memory = match backend {
        BenchBackend::Gpu => crate::gpu::buffers::memory_estimate(
            n as u64,
            crate::setup::table_size(n) as u64,
            list_capacity.unwrap_or_else(|| crate::gpu::neighbours::initial_capacity(n as u32))
                as u64,
            history,
            scene.sim.g_const > 0.0
                && scene.sim.gravity_solver == crate::scene::GravitySolver::Tree,
            scene.sim.rotation,
            scene.rolling_model(),
            crate::gpu::buffers::option_bytes_per_sphere(
                scene.sim.periodic.any(),
                scene.sim.wall_forces,
                scene.planes.len() + scene.containers.len(),
            ),
        ),
        _ => CpuBackend::<f32>::memory_estimate(n, history, scene.sim.rotation),
    };
    let gravity = scene.sim.g_const > 0.0 && n > 1;
    let tree = gravity && scene.sim.gravity_solver == crate::scene::GravitySolver::Tree;
    // The direct sum does N(N−1) pair terms a step; the tree what its walks counted.
    let per_step = match walks {
        Some(w) if tree => w.interactions as f64,
        _ => n as f64 * n.saturating_sub(1) as f64,
    };
    let (gravity_ips, gravity_bps, gravity_timing) = if gravity {
        let (secs, timing) = match stage_ms.get("gravity") {
            Some(g) if *g > 0.0 => (g * 1e-3, "gravity stage"),
            _ => (med * 1e-3, "whole step"),
        };
        (
            Some(per_step / secs),
            Some(n as f64 / secs),
            Some(timing.to_string()),
        )
    } else {
        (None, None, None)
    };
    Ok(BenchRow {
        scene: scene_name.to_string(),
        particles: n,
        particles_requested: requested,
        backend: backend.to_string(),
        adapter,
        steps: cfg.steps,
        repeats: cfg.repeats,
        ms_per_step_median: med,
        ms_per_step_min: lo,
        ms_per_step_max: hi,
        particle_steps_per_second: n as f64 / (med * 1e-3),
        speedup_vs_cpu: None,
        speedup_vs_one_thread: None,
        memory_bytes_per_sphere: memory as f64 / n.max(1) as f64,
        stage_ms_per_step: stage_ms,
        pass_ms_per_step: pass_ms,
        stage_timing,
        gravity_interactions_per_second: gravity_ips,
        gravity_interactions_timing: gravity_timing,
        error: None,
        dispatches_per_step: work.and_then(|w| w.dispatches_per_step),
        max_pair_visits_per_invocation: work.map(|w| w.max_pair_visits_per_invocation),
        mean_pair_visits_per_invocation: work.and_then(|w| w.mean_pair_visits_per_invocation()),
        dispatches_with_work_per_step: work.and_then(|w| w.dispatches_with_work_per_step),
        bytes_per_sphere_step: work
            .and_then(|w| w.bytes_with_work_per_step)
            .map(|b| b / n.max(1) as f64),
        bytes_per_sphere_step_recorded: work
            .and_then(|w| w.bytes_per_step)
            .map(|b| b / n.max(1) as f64),
        row_pass_max_pair_visits: work.map(|w| w.by_pass[ROW_PASS].max_pair_visits),
        build_pass_max_visits: work.map(|w| w.build.max_pair_visits),
        build_pass_mean_visits: work.and_then(|w| w.build.mean()),
        row_pass_mean_pair_visits: work.and_then(|w| w.by_pass[ROW_PASS].mean()),
        pair_visits_max_over_mean: work.and_then(|w| w.max_over_mean()),
        gravity_solver: gravity.then(|| scene.sim.gravity_solver.to_string()),
        theta: tree.then_some(scene.sim.theta),
        skin: scene.skin(),
        gravity_bodies_per_second: gravity_bps,
        max_interactions_per_walk: walks.filter(|_| tree).map(|w| w.max),
        mean_interactions_per_walk: walks.filter(|_| tree).map(|w| w.mean()),
    })
}

/// The lines `spheresim bench` prints before it starts: version, configurations, steps, and the
/// load average (other work on the machine skews every figure).
pub fn header(cfg: &BenchConfig) -> String {
    let total = cfg.scenes.len() * cfg.particles.len() * cfg.backends.len();
    let mut h = format!(
        "spheresim bench {}: {} configurations, {} warm-up + {} × {} timed steps each",
        env!("CARGO_PKG_VERSION"),
        total,
        cfg.warmup,
        cfg.repeats,
        cfg.steps
    );
    if let Some(f) = cfg.skin_fraction {
        h.push_str(&format!(
            "; neighbour-list skin {f} of each scene's smallest radius"
        ));
    }
    if cfg.wall_forces {
        h.push_str("; the walls' forces recorded where a scene has walls and a soft law");
    }
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        let avg: Vec<&str> = load.split_whitespace().take(3).collect();
        h.push_str(&format!(
            "\nload average (1, 5, 15 min) before the run: {} on {} threads",
            avg.join(" "),
            std::thread::available_parallelism().map_or(0, |n| n.get())
        ));
    }
    h
}

/// Checks the configuration before anything runs.
///
/// # Errors
/// A message naming the offending item: an unknown scene, zero steps or repeats, an empty list,
/// a sphere count of zero, a negative or non-finite skin fraction.
pub fn check(cfg: &BenchConfig) -> Result<(), String> {
    let known = builtin::names();
    for s in &cfg.scenes {
        if !known.contains(&s.as_str()) {
            return Err(format!(
                "--scenes: unknown built-in scene `{s}`; known scenes: {}",
                known.join(", ")
            ));
        }
    }
    if cfg.scenes.is_empty() || cfg.particles.is_empty() || cfg.backends.is_empty() {
        return Err("--scenes, --particles and --backends each need at least one value".into());
    }
    if cfg.particles.contains(&0) {
        return Err("--particles: a sphere count must be at least 1".into());
    }
    if cfg.steps == 0 || cfg.repeats == 0 {
        return Err("--steps and --repeats must be at least 1".into());
    }
    if cfg.budget_seconds.is_nan() || cfg.budget_seconds <= 0.0 {
        return Err("--budget-seconds must be positive".into());
    }
    if let Some(f) = cfg.skin_fraction
        && !(f.is_finite() && f >= 0.0)
    {
        return Err(format!(
            "--skin-fraction: must be a finite fraction ≥ 0 of the smallest radius, got {f}"
        ));
    }
    Ok(())
}

/// Runs every configuration in order (scene, then count, then backend) and returns one row
/// each, then fills in the speedups. `progress` is told each configuration before it starts
/// and each row when it is done.
///
/// A configuration that cannot run (no adapter, too large, predicted over the time budget,
/// non-finite state) gives a row with `error` set instead of figures; the others still run.
pub fn run(cfg: &BenchConfig, mut progress: impl FnMut(Progress<'_>)) -> Vec<BenchRow> {
    let one_thread = rayon::ThreadPoolBuilder::new().num_threads(1).build();
    let mut rows: Vec<BenchRow> = Vec::new();
    for scene in &cfg.scenes {
        let small = builtin::build(scene, Some(2)).ok();
        let gravity = small.as_ref().is_some_and(|s| s.sim.g_const > 0.0);
        let tree = small.is_some_and(|s| {
            cfg.gravity_solver.unwrap_or(s.sim.gravity_solver) == crate::scene::GravitySolver::Tree
        });
        for &n in &cfg.particles {
            for &backend in &cfg.backends {
                progress(Progress::Start {
                    scene,
                    particles: n,
                    backend,
                });
                // Predict from the last measured count of this scene and backend: O(N) per step,
                // O(N²) with mutual gravity by direct sum, O(N log N) by the tree.
                let prev = rows.iter().rev().find(|r| {
                    r.scene == *scene && r.backend == backend.to_string() && r.error.is_none()
                });
                let predicted = prev.map(|r| {
                    let ratio = n as f64 / r.particles_requested as f64;
                    let growth = match (gravity, tree) {
                        (true, false) => ratio * ratio,
                        (true, true) => ratio * (1.0 + ratio.ln().max(0.0) / 10.0),
                        _ => ratio,
                    };
                    let per_step = r.ms_per_step_median * 1e-3 * growth;
                    per_step * (cfg.warmup + cfg.steps * (cfg.repeats as u64 + 1)) as f64
                });
                let row = match predicted {
                    Some(t) if t > cfg.budget_seconds => Err(format!(
                        "skipped: predicted {t:.0} s > --budget-seconds {}",
                        cfg.budget_seconds
                    )),
                    _ => match (backend, &one_thread) {
                        (BenchBackend::Cpu1, Ok(pool)) => {
                            pool.install(|| measure(cfg, scene, n, backend))
                        }
                        (BenchBackend::Cpu1, Err(e)) => Err(format!("no one-thread pool: {e}")),
                        _ => measure(cfg, scene, n, backend),
                    },
                };
                let row = row.unwrap_or_else(|e| BenchRow {
                    scene: scene.clone(),
                    particles_requested: n,
                    backend: backend.to_string(),
                    error: Some(e),
                    ..Default::default()
                });
                progress(Progress::Done(&row));
                rows.push(row);
            }
        }
    }
    fill_speedups(&mut rows);
    rows
}

/// What [`run`] reports as it goes.
#[derive(Debug)]
pub enum Progress<'a> {
    /// A configuration starts.
    Start {
        /// Scene name.
        scene: &'a str,
        /// Requested sphere count.
        particles: usize,
        /// Backend.
        backend: BenchBackend,
    },
    /// A configuration finished (or was skipped).
    Done(&'a BenchRow),
}

fn fill_speedups(rows: &mut [BenchRow]) {
    let ms = |rows: &[BenchRow], scene: &str, n: usize, b: &str| {
        rows.iter()
            .find(|r| {
                r.scene == scene
                    && r.particles_requested == n
                    && r.backend == b
                    && r.error.is_none()
            })
            .map(|r| r.ms_per_step_median)
    };
    for i in 0..rows.len() {
        if rows[i].error.is_some() {
            continue;
        }
        let (scene, n) = (rows[i].scene.clone(), rows[i].particles_requested);
        let cpu = ms(rows, &scene, n, "cpu");
        let cpu1 = ms(rows, &scene, n, "cpu1");
        let me = rows[i].ms_per_step_median;
        match rows[i].backend.as_str() {
            "gpu" => rows[i].speedup_vs_cpu = cpu.map(|c| c / me),
            "cpu" => rows[i].speedup_vs_one_thread = cpu1.map(|c| c / me),
            _ => {}
        }
    }
}

fn si(x: f64) -> String {
    format!("{x:.3e}")
}

/// The results as a plain-text table: one line per configuration, the devices, then per-stage
/// times where measured.
pub fn table(rows: &[BenchRow]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<11} {:>9} {:<5} {:>31} {:>12} {:>11} {:>9}",
        "scene", "N", "back", "ms/step median (min–max)", "p-steps/s", "speedup", "B/sphere"
    );
    for r in rows {
        if let Some(e) = &r.error {
            let _ = writeln!(
                out,
                "{:<11} {:>9} {:<5} {}",
                r.scene, r.particles_requested, r.backend, e
            );
            continue;
        }
        let speedup = match (r.speedup_vs_cpu, r.speedup_vs_one_thread) {
            (Some(s), _) => format!("{s:.2}×CPU"),
            (_, Some(s)) => format!("{s:.2}×1thr"),
            _ => "–".into(),
        };
        let timing = format!(
            "{:.3} ({:.3}–{:.3})",
            r.ms_per_step_median, r.ms_per_step_min, r.ms_per_step_max
        );
        let _ = writeln!(
            out,
            "{:<11} {:>9} {:<5} {:>31} {:>12} {:>11} {:>9.0}",
            r.scene,
            r.particles,
            r.backend,
            timing,
            si(r.particle_steps_per_second),
            speedup,
            r.memory_bytes_per_sphere
        );
    }
    let mut devices: Vec<(String, String)> = rows
        .iter()
        .filter(|r| r.error.is_none())
        .map(|r| (r.backend.clone(), r.adapter.clone()))
        .collect();
    devices.dedup();
    devices.sort();
    devices.dedup();
    let _ = writeln!(out, "\ndevices:");
    for (b, a) in devices {
        let _ = writeln!(out, "  {b:<5} {a}");
    }
    let staged: Vec<&BenchRow> = rows.iter().filter(|r| r.error.is_none()).collect();
    if !staged.is_empty() {
        let names = crate::setup::STAGES;
        let _ = write!(
            out,
            "\nper-stage ms/step\n{:<11} {:>9} {:<5}",
            "scene", "N", "back"
        );
        for s in names {
            let _ = write!(out, " {s:>10}");
        }
        let _ = writeln!(out, "  source");
        for r in staged {
            let _ = write!(out, "{:<11} {:>9} {:<5}", r.scene, r.particles, r.backend);
            for s in names {
                match r.stage_ms_per_step.get(s) {
                    Some(t) => {
                        let _ = write!(out, " {t:>10.3}");
                    }
                    None => {
                        let _ = write!(out, " {:>10}", "–");
                    }
                }
            }
            let _ = writeln!(out, "  {}", r.stage_timing);
        }
    }
    // The GPU's compute passes, slowest first: where a stage's time goes.
    for r in rows.iter().filter(|r| !r.pass_ms_per_step.is_empty()) {
        let mut passes: Vec<(&String, &f64)> = r.pass_ms_per_step.iter().collect();
        passes.sort_by(|a, b| b.1.total_cmp(a.1));
        let _ = writeln!(
            out,
            "\nper-pass ms/step, {} {} {} (timestamp queries)",
            r.scene, r.particles, r.backend
        );
        for (label, ms) in passes {
            let _ = writeln!(out, "  {label:<34} {ms:>10.3}");
        }
    }
    let counted: Vec<&BenchRow> = rows
        .iter()
        .filter(|r| r.max_pair_visits_per_invocation.is_some())
        .collect();
    if !counted.is_empty() {
        let _ = writeln!(
            out,
            "\nGPU work per step (a replay of the timed steps; docs/performance.md, \"Reading the work counters\")\n\
             {:<11} {:>9} {:<5} {:>11} {:>10} {:>10} {:>16} {:>9} {:>9} {:>9} {:>9} {:>10} {:>10}",
            "scene",
            "N",
            "back",
            "dispatches",
            "with work",
            "B/sph-step",
            "pair visits max",
            "mean",
            "row max",
            "row mean",
            "max/mean",
            "build max",
            "build mean"
        );
        let opt = |v: Option<f64>, digits: usize| {
            v.map_or_else(|| "–".to_string(), |v| format!("{v:.digits$}"))
        };
        for r in counted {
            let _ = writeln!(
                out,
                "{:<11} {:>9} {:<5} {:>11.1} {:>10} {:>10} {:>16} {:>9} {:>9} {:>9} {:>9} {:>10} {:>10}",
                r.scene,
                r.particles,
                r.backend,
                r.dispatches_per_step.unwrap_or(0.0),
                opt(r.dispatches_with_work_per_step, 1),
                opt(r.bytes_per_sphere_step, 0),
                r.max_pair_visits_per_invocation.unwrap_or(0),
                opt(r.mean_pair_visits_per_invocation, 2),
                r.row_pass_max_pair_visits.unwrap_or(0),
                opt(r.row_pass_mean_pair_visits, 2),
                opt(r.pair_visits_max_over_mean, 1),
                r.build_pass_max_visits.unwrap_or(0),
                opt(r.build_pass_mean_visits, 1),
            );
        }
    }
    let gravity: Vec<&BenchRow> = rows
        .iter()
        .filter(|r| r.gravity_interactions_per_second.is_some())
        .collect();
    if !gravity.is_empty() {
        let _ = writeln!(
            out,
            "\nmutual gravity (direct sum: N(N−1) interactions per step; tree: cells and bodies \
             its walks used)"
        );
        for r in gravity {
            let solver = match r.theta {
                Some(t) => format!("tree θ={t}"),
                None => r.gravity_solver.clone().unwrap_or_default(),
            };
            let walks = match (r.max_interactions_per_walk, r.mean_interactions_per_walk) {
                (Some(max), Some(mean)) => {
                    format!(
                        ", per walk max {max} mean {mean:.0} (max/mean {:.1})",
                        max as f64 / mean
                    )
                }
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "{:<11} {:>9} {:<5} {:<11} {:>12} interactions/s {:>10} bodies/s ({}){walks}",
                r.scene,
                r.particles,
                r.backend,
                solver,
                si(r.gravity_interactions_per_second.unwrap_or(0.0)),
                si(r.gravity_bodies_per_second.unwrap_or(0.0)),
                r.gravity_interactions_timing.as_deref().unwrap_or("")
            );
        }
    }
    out
}

/// A sphere count for `--particles`: a positive integer, also written like `1e6`.
///
/// # Errors
/// Text that is not a whole number ≥ 1 (at most 10¹²).
pub fn parse_count(s: &str) -> Result<usize, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number"))?;
    if !(v >= 1.0 && v.fract() == 0.0 && v <= 1e12) {
        return Err(format!("`{s}` is not a whole number of spheres ≥ 1"));
    }
    Ok(v as usize)
}

/// `spheresim bench`: checks the configuration and the JSON path, runs every configuration
/// with a progress bar on standard error, prints the table and writes the rows as JSON.
///
/// # Errors
/// A bad configuration or an unwritable JSON path (both before anything runs), or a failed
/// write of the JSON.
pub fn run_cli(cfg: &BenchConfig, json: Option<&std::path::Path>) -> anyhow::Result<()> {
    use anyhow::Context;
    use indicatif::{ProgressBar, ProgressStyle};
    check(cfg).map_err(anyhow::Error::msg)?;
    if let Some(p) = json {
        crate::output::check_writable_file(p)?;
    }
    let total = (cfg.scenes.len() * cfg.particles.len() * cfg.backends.len()) as u64;
    crate::note!("{}", header(cfg));
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .expect("valid template"),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    let rows = run(cfg, |p| match p {
        Progress::Start {
            scene,
            particles,
            backend,
        } => bar.set_message(format!("{scene} N={particles} {backend}")),
        Progress::Done(row) => {
            bar.inc(1);
            if let Some(e) = &row.error {
                bar.println(format!(
                    "{} N={} {}: {e}",
                    row.scene, row.particles_requested, row.backend
                ));
            }
        }
    });
    bar.finish_and_clear();
    print!("{}", table(&rows));
    if let Some(p) = json {
        let text = serde_json::to_string_pretty(&rows).context("serialising the bench rows")?;
        crate::output::write_atomic(p, |w| w.write_all(text.as_bytes()))?;
        println!("rows: {}", p.display());
    }
    Ok(())
}
