//! The `spheresim run` driver as library calls: load a scene with the command-line overrides,
//! step it with snapshots and a progress bar, and summarise the run.
//!
//! ```no_run
//! use spheresim::run::{RunOptions, SceneOptions, SimRun};
//! use std::sync::atomic::AtomicBool;
//! let scene = SceneOptions::new("bounce").steps(500).load()?;
//! let run = SimRun::new(&scene, RunOptions::default())?;
//! let report = run.execute(&AtomicBool::new(false))?;
//! print!("{report}");
//! # Ok::<(), anyhow::Error>(())
//! ```

use crate::checkpoint::{Checkpoint, Checkpointer, Reason, RunState};
use crate::output::{self, RunStats, SeriesWriter, SnapshotFormat};
use crate::scene::{CheckOptions, ContactModel, SceneFile, builtin, fmt_num};
use crate::{Backend, Diagnostics, Precision, Scene, Simulation, StepStats};
use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fmt;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Where a scene comes from (a built-in name or a `.toml` file) and the command-line overrides
/// that `run`, `view` and `render` share. Build with [`SceneOptions::new`] and the setters.
#[derive(Clone, Debug, Default)]
pub struct SceneOptions {
    /// Built-in scene name or scene-file path.
    pub scene: String,
    /// Spheres of a built-in scene (`--particles`); an error with a file.
    pub particles: Option<usize>,
    /// Digits of π of the built-in `pi-blocks` (`--digits`, 1–8).
    pub digits: Option<u32>,
    /// Steps (`--steps`), replacing the scene's.
    pub steps: Option<u64>,
    /// Time step, s (`--dt`), replacing the scene's.
    pub dt: Option<f64>,
    /// Contact law (`--contact`), replacing the scene's.
    pub contact: Option<ContactModel>,
    /// Coulomb friction μ ≥ 0 (`--friction`) for every sphere, plane and container; soft laws
    /// only.
    pub friction: Option<f64>,
    /// Accept initial overlaps deeper than 1 % of the smaller radius (`--allow-overlap`).
    pub allow_overlap: bool,
    /// Neighbour-list skin, m (`--skin`), replacing the scene's.
    pub skin: Option<f64>,
    /// Mutual-gravity solver (`--gravity-solver`), replacing the scene's.
    pub gravity_solver: Option<crate::scene::GravitySolver>,
    /// The tree's opening angle θ (`--theta`), replacing the scene's.
    pub theta: Option<f64>,
    /// Whether spheres rotate (`--rotation`), replacing the scene's.
    pub rotation: Option<bool>,
    /// Rolling friction μ_r ≥ 0 (`--rolling-friction`) for every sphere, plane and container;
    /// soft laws with rotation only.
    pub rolling_friction: Option<f64>,
    /// Rolling resistance law (`--rolling-model`), replacing the scene's.
    pub rolling_model: Option<crate::scene::RollingModel>,
    /// The Hertz law's damping (`--damping`), replacing the scene's.
    pub damping: Option<crate::scene::Damping>,
    /// The backend and precision that will step the scene (`--backend`, `--precision`;
    /// default: auto, f32), whose host memory [`SceneOptions::load`] adds when it checks that a
    /// built-in scene with `--particles` fits before building it.
    pub stepped_by: Option<(Backend, Precision)>,
}

impl SceneOptions {
    /// Options for the built-in scene or scene file `scene`, with no overrides.
    pub fn new(scene: impl Into<String>) -> Self {
        SceneOptions {
            scene: scene.into(),
            ..Default::default()
        }
    }

    /// Sets `--particles`.
    pub fn particles(mut self, n: usize) -> Self {
        self.particles = Some(n);
        self
    }

    /// Sets `--steps`.
    pub fn steps(mut self, steps: u64) -> Self {
        self.steps = Some(steps);
        self
    }

    /// Sets `--dt`, s.
    pub fn dt(mut self, dt: f64) -> Self {
        self.dt = Some(dt);
        self
    }

    /// Sets `--contact`.
    pub fn contact(mut self, model: ContactModel) -> Self {
        self.contact = Some(model);
        self
    }

    /// Sets `--friction`.
    pub fn friction(mut self, mu: f64) -> Self {
        self.friction = Some(mu);
        self
    }

    /// Sets `--skin`, m.
    pub fn skin(mut self, skin: f64) -> Self {
        self.skin = Some(skin);
        self
    }

    /// Sets `--gravity-solver`.
    pub fn gravity_solver(mut self, solver: crate::scene::GravitySolver) -> Self {
        self.gravity_solver = Some(solver);
        self
    }

    /// Sets `--theta`.
    pub fn theta(mut self, theta: f64) -> Self {
        self.theta = Some(theta);
        self
    }

    /// Sets `--rotation`.
    pub fn rotation(mut self, rotation: bool) -> Self {
        self.rotation = Some(rotation);
        self
    }

    /// Sets `--rolling-friction`.
    pub fn rolling_friction(mut self, mu_r: f64) -> Self {
        self.rolling_friction = Some(mu_r);
        self
    }

    /// Sets `--damping`.
    pub fn damping(mut self, damping: crate::scene::Damping) -> Self {
        self.damping = Some(damping);
        self
    }

    /// Sets `--rolling-model`.
    pub fn rolling_model(mut self, model: crate::scene::RollingModel) -> Self {
        self.rolling_model = Some(model);
        self
    }

    /// Whether the scene names a file (ends in `.toml` or is an existing file).
    pub fn is_file(&self) -> bool {
        self.scene.ends_with(".toml") || Path::new(&self.scene).is_file()
    }

    /// Loads the scene, applies the overrides and checks the result (`Scene::check`).
    ///
    /// # Errors
    /// An unknown built-in name, an unreadable or invalid file, an override that does not apply
    /// (`--particles` with a file, `--digits` outside `pi-blocks`, `--friction` with impulses),
    /// or a failed check; each message names the item and the reason.
    pub fn load(&self) -> Result<Scene> {
        let is_file = self.is_file();
        // A file's origins let the check name the table and line of each problem.
        let mut origins = None;
        let mut scene = if is_file {
            if self.particles.is_some() {
                bail!(
                    "--particles applies to built-in scenes only, not to the file {}",
                    self.scene
                );
            }
            let file = SceneFile::load(Path::new(&self.scene))?;
            origins = Some(file.origins);
            file.scene
        } else if let Some(d) = self.digits.filter(|_| self.scene == "pi-blocks") {
            if self.particles.is_some_and(|n| n != 2) {
                bail!("--particles: pi-blocks has exactly 2 spheres; its size is set by --digits");
            }
            builtin::pi_blocks(d)?
        } else {
            if let Some(n) = self.particles {
                // Refuse what cannot fit before anything is built, with the backend's share.
                let (backend, precision) = self.stepped_by.unwrap_or_default();
                let cost = |probe: &Scene, n: u64| {
                    let mut probe = probe.clone();
                    // A bad override is reported by the load below.
                    let _ = self.apply(&mut probe);
                    crate::sim::host_memory_estimate(backend, precision, &probe, n)
                };
                let label = format!("{backend} backend ({precision})");
                builtin::check_size(
                    &self.scene,
                    n,
                    Some((&label, &cost)),
                    crate::sim::available_memory(),
                )?;
            }
            builtin::build(&self.scene, self.particles)?
        };
        if self.digits.is_some() && (is_file || self.scene != "pi-blocks") {
            bail!(
                "--digits applies to the built-in scene pi-blocks only, not to {}",
                self.scene
            );
        }
        self.apply(&mut scene)?;
        let check = CheckOptions {
            allow_overlap: self.allow_overlap,
        };
        match origins {
            Some(o) => o.check(&scene, &check)?,
            None => scene.check(&check)?,
        }
        Ok(scene)
    }

    /// Applies `--steps`, `--dt`, `--contact`, `--skin`, `--gravity-solver`, `--theta`,
    /// `--rotation`, `--rolling-model`, `--damping`, `--friction` and `--rolling-friction` to a
    /// scene (unchecked).
    ///
    /// # Errors
    /// `--friction` with the impulse law, which has no friction.
    pub fn apply(&self, scene: &mut Scene) -> Result<()> {
        if let Some(steps) = self.steps {
            scene.sim.steps = steps;
        }
        if let Some(dt) = self.dt {
            scene.sim.dt = dt;
        }
        if let Some(model) = self.contact {
            scene.sim.contact = model;
        }
        if self.skin.is_some() {
            scene.sim.skin = self.skin;
        }
        if let Some(solver) = self.gravity_solver {
            scene.sim.gravity_solver = solver;
        }
        if let Some(theta) = self.theta {
            scene.sim.theta = theta;
        }
        if let Some(rotation) = self.rotation {
            scene.sim.rotation = rotation;
        }
        if let Some(damping) = self.damping {
            scene.sim.damping = damping;
        }
        if self.rolling_model.is_some() {
            scene.sim.rolling_model = self.rolling_model;
        }
        if let Some(mu_r) = self.rolling_friction {
            if !scene.sim.contact.is_soft() {
                bail!(
                    "--rolling-friction {mu_r}: the impulse contact law has no friction; choose \
                     a soft law with --contact hertz or --contact spring-dashpot"
                );
            }
            scene.sim.surface.rolling_friction = mu_r;
            for s in &mut scene.spheres {
                s.surface.rolling_friction = mu_r;
            }
            for p in &mut scene.planes {
                p.surface.rolling_friction = mu_r;
            }
            for c in &mut scene.containers {
                c.surface.rolling_friction = mu_r;
            }
        }
        if let Some(mu) = self.friction {
            if !scene.sim.contact.is_soft() {
                bail!(
                    "--friction {mu}: the impulse contact law has no friction; choose a soft law \
                     with --contact hertz or --contact spring-dashpot"
                );
            }
            scene.sim.surface.friction = mu;
            for s in &mut scene.spheres {
                s.surface.friction = mu;
            }
            for p in &mut scene.planes {
                p.surface.friction = mu;
            }
            for c in &mut scene.containers {
                c.surface.friction = mu;
            }
        }
        Ok(())
    }
}

/// What a run writes and how it steps. Defaults: automatic backend, f32, no files, progress bar
/// on a terminal.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Backend that steps the scene.
    pub backend: Backend,
    /// Arithmetic precision (the event backend always computes in f64).
    pub precision: Precision,
    /// Final state as CSV (`--final`).
    pub final_csv: Option<PathBuf>,
    /// Snapshot directory (`--output`).
    pub output: Option<PathBuf>,
    /// Steps between snapshots (`--every`; default: steps / 20).
    pub every: Option<u64>,
    /// Snapshot formats written into `output` (`--format`; default CSV and VTP).
    pub formats: Vec<SnapshotFormat>,
    /// Run statistics as JSON (`--stats-json`).
    pub stats_json: Option<PathBuf>,
    /// Show a progress bar when standard error is a terminal (`--quiet` turns it off).
    pub progress: bool,
    /// Seconds between progress lines on standard error when no bar is shown (`--quiet`, or no
    /// terminal: a batch job's log); `None`: no lines (`--progress-every 0`).
    pub progress_every: Option<u64>,
    /// Checkpoint directory (`--checkpoint`): a checkpoint every `checkpoint_every` steps, at
    /// the last step, on Ctrl-C and at a non-finite stop; the newest
    /// [`KEEP`](crate::checkpoint::KEEP) periodic ones are kept.
    pub checkpoint: Option<PathBuf>,
    /// Steps between checkpoints (`--checkpoint-every`; needs `checkpoint`). `None`: only at the
    /// end, on Ctrl-C and at a non-finite stop.
    pub checkpoint_every: Option<u64>,
    /// Run on past the energy-balance guard's limit, [`ENERGY_DRIFT_LIMIT`]
    /// (`--allow-energy-drift`; default `false`: the run stops there).
    pub allow_energy_drift: bool,
}

/// The energy-balance guard's limit: a run whose (E + dissipated) moves from its start by more
/// than this fraction of the energy scale `K + |U|`
/// ([`Diagnostics::energy_balance_change_relative`]) stops, unless
/// [`RunOptions::allow_energy_drift`] (docs/physics.md §7). The built-in scenes stay below 0.04.
pub const ENERGY_DRIFT_LIMIT: f64 = 0.5;

/// The summary warns when (E + dissipated) moved by more than this fraction of the energy scale.
pub const ENERGY_DRIFT_WARNING: f64 = 0.05;

/// The summary warns when the momentum of a scene that conserves it (no walls, fixed spheres,
/// uniform field or drag) moved by more than this fraction of `Σ m|v|`
/// ([`Diagnostics::momentum_change_relative`]).
pub const MOMENTUM_DRIFT_WARNING: f64 = 1e-2;

/// Wall-clock seconds between two checks of the energy balance during a run, at least (a check
/// takes a diagnostics pass, which may cost as much as a step: the interval is also at least 20
/// times the last check's time).
const ENERGY_CHECK_SECONDS: f64 = 1.0;

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            backend: Backend::Auto,
            precision: Precision::F32,
            final_csv: None,
            output: None,
            every: None,
            formats: SnapshotFormat::DEFAULT.to_vec(),
            stats_json: None,
            progress: false,
            progress_every: None,
            checkpoint: None,
            checkpoint_every: None,
            allow_energy_drift: false,
        }
    }
}

impl RunOptions {
    /// The options a checkpoint's run was started with (outputs, snapshot and checkpoint
    /// cadence), on its backend and precision, without progress output. `--resume` starts from
    /// these and applies what the command line gives.
    pub fn resumed(ckpt: &Checkpoint) -> Self {
        let r = &ckpt.run;
        RunOptions {
            backend: ckpt.backend,
            precision: ckpt.precision,
            final_csv: r.final_csv.clone(),
            output: r.output.clone(),
            every: r.every,
            formats: if r.formats.is_empty() {
                SnapshotFormat::DEFAULT.to_vec()
            } else {
                r.formats.clone()
            },
            stats_json: r.stats_json.clone(),
            progress: false,
            progress_every: None,
            checkpoint: r.checkpoint.clone(),
            checkpoint_every: r.checkpoint_every,
            allow_energy_drift: false,
        }
    }
}

/// Where a resumed run started: the checkpoint's file, its step and its bookkeeping.
struct Resumed {
    path: PathBuf,
    step: u64,
    run: RunState,
}

/// Default seconds between progress lines when no bar is shown (`--progress-every`).
pub const PROGRESS_LOG_SECONDS: u64 = 10;

/// A run set up and ready to step: the scene is loaded, every output path checked, the backend
/// created. [`SimRun::execute`] steps it.
pub struct SimRun<'a> {
    scene: &'a Scene,
    opts: RunOptions,
    sim: Simulation,
    series: Option<SeriesWriter>,
    every: u64,
    precision: Precision,
    setup_seconds: f64,
    checkpointer: Option<Checkpointer>,
    resumed: Option<Resumed>,
    resume_notice: Option<String>,
}

/// `path` made absolute against the working directory (a checkpoint stores absolute paths, so a
/// resume works from any directory).
fn absolute(path: &Option<PathBuf>) -> Option<PathBuf> {
    path.as_ref()
        .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
}

impl<'a> SimRun<'a> {
    /// Checks every output path (so a bad one costs no stepping), then creates the backend.
    ///
    /// # Errors
    /// An unwritable output path, `--every` without `--output` or equal to 0, no formats, or a
    /// backend that cannot take the scene.
    pub fn new(scene: &'a Scene, opts: RunOptions) -> Result<Self> {
        Self::start(scene, opts, None)
    }

    /// Continues the run of checkpoint `ckpt` (read from `path`) on `scene`, its scene with
    /// perhaps another `steps`. `opts` usually starts from [`RunOptions::resumed`]. On the
    /// checkpoint's backend and precision the run continues bit for bit (on the GPU: on the
    /// same adapter); otherwise [`SimRun::notice`] says what differs. Snapshots, the energy log
    /// and the statistics continue the checkpoint's series.
    ///
    /// # Errors
    /// A checkpoint written at a non-finite stop, a target step at or before the checkpoint's,
    /// a scene or state that fails [`Checkpoint::check`] or does not fit the backend, and the
    /// errors of [`SimRun::new`].
    pub fn resume(
        scene: &'a Scene,
        ckpt: &Checkpoint,
        path: &Path,
        opts: RunOptions,
    ) -> Result<Self> {
        if ckpt.reason == Reason::NonFinite {
            bail!(
                "{} was written at a non-finite stop or a guard's stop (step {}): its state holds \
                 NaN or infinity, or blew up. Resume from an earlier checkpoint in {}",
                path.display(),
                ckpt.step,
                path.parent()
                    .map_or(".".into(), |d| d.display().to_string())
            );
        }
        // Not even equal: a resume to the checkpoint's own step would run nothing and rewrite
        // the run's outputs.
        if scene.sim.steps <= ckpt.step {
            bail!(
                "--steps {} is at or before the checkpoint's step {} ({}); --steps gives the \
                 run's total, counted from its start: give more than {}",
                scene.sim.steps,
                ckpt.step,
                path.display(),
                ckpt.step
            );
        }
        ckpt.check(scene, path)?;
        Self::start(
            scene,
            opts,
            Some((
                ckpt,
                Resumed {
                    path: path.to_path_buf(),
                    step: ckpt.step,
                    run: ckpt.run.clone(),
                },
            )),
        )
    }

    fn start(
        scene: &'a Scene,
        opts: RunOptions,
        resume: Option<(&Checkpoint, Resumed)>,
    ) -> Result<Self> {
        for p in [&opts.final_csv, &opts.stats_json].into_iter().flatten() {
            output::check_writable_file(p)?;
        }
        if opts.every.is_some() && opts.output.is_none() {
            bail!("--every needs --output DIR");
        }
        if opts.every == Some(0) {
            bail!("--every must be at least 1");
        }
        if opts.output.is_some() && opts.formats.is_empty() {
            bail!("--format needs at least one of csv, vtk, vtp");
        }
        if opts.checkpoint_every.is_some() && opts.checkpoint.is_none() {
            bail!("--checkpoint-every needs --checkpoint DIR");
        }
        if opts.checkpoint_every == Some(0) {
            bail!("--checkpoint-every must be at least 1");
        }
        if opts.checkpoint.is_some() && opts.backend == Backend::Event {
            bail!("--checkpoint: the event-driven solver writes no checkpoints; use --backend cpu");
        }
        let every = opts.every.unwrap_or((scene.sim.steps / 20).max(1));
        let series = match &opts.output {
            Some(dir) => {
                let mut w = SeriesWriter::new(dir)?.with_formats(&opts.formats);
                if let Some((_, r)) = &resume {
                    w = w.with_entries(r.run.series.clone());
                }
                Some(w)
            }
            None => None,
        };
        let checkpointer = match &opts.checkpoint {
            Some(dir) => Some(
                Checkpointer::new(dir, opts.checkpoint_every)
                    .with_context(|| format!("--checkpoint {}", dir.display()))?,
            ),
            None => None,
        };
        let setup = Instant::now();
        let (sim, resume_notice) = match &resume {
            Some((ckpt, _)) => Simulation::resume(
                scene,
                &ckpt.engine,
                ckpt.offsets,
                &ckpt.diagnostics,
                opts.backend,
                opts.precision,
                Default::default(),
            )?,
            None => (Simulation::new(scene, opts.backend, opts.precision)?, None),
        };
        // What the backend computes in (the event-driven solver: f64 whatever the options say).
        let precision = sim.precision();
        let mut run = SimRun {
            scene,
            opts,
            series,
            every,
            precision,
            setup_seconds: setup.elapsed().as_secs_f64(),
            sim,
            checkpointer,
            resumed: resume.map(|(_, r)| r),
            resume_notice,
        };
        // The space check encodes the current state once: the exact size of every checkpoint
        // of this run (the state's size does not change as it steps).
        if run.checkpointer.is_some() {
            let (initial, log, secs) = match &run.resumed {
                Some(r) => (r.run.initial, r.run.log.clone(), r.run.stepping_seconds),
                None => (run.sim.diagnostics(), Vec::new(), 0.0),
            };
            let ckpt = run.checkpoint(Reason::Periodic, initial, &log, secs)?;
            let bytes = ckpt.encode()?.len() as u64;
            run.checkpointer
                .as_ref()
                .expect("checked above")
                .check_space(bytes)?;
        }
        Ok(run)
    }

    /// The run's bookkeeping now: its options with absolute paths, the diagnostics so far and
    /// the snapshot series.
    fn run_state(&self, initial: Diagnostics, log: &[Diagnostics], seconds: f64) -> RunState {
        let o = &self.opts;
        RunState {
            final_csv: absolute(&o.final_csv),
            output: absolute(&o.output),
            every: o.every,
            formats: o.formats.clone(),
            stats_json: absolute(&o.stats_json),
            checkpoint: absolute(&o.checkpoint),
            checkpoint_every: o.checkpoint_every,
            initial,
            log: log.to_vec(),
            series: self
                .series
                .as_ref()
                .map(|s| s.entries().to_vec())
                .unwrap_or_default(),
            stepping_seconds: seconds,
        }
    }

    /// A checkpoint of the current state with the run's bookkeeping: its diagnostics at the
    /// start (`initial`), the energy log so far and the stepping seconds so far.
    fn checkpoint(
        &mut self,
        reason: Reason,
        initial: Diagnostics,
        log: &[Diagnostics],
        seconds: f64,
    ) -> Result<Checkpoint> {
        let diagnostics = self.sim.diagnostics();
        let run = self.run_state(initial, log, seconds);
        Ok(Checkpoint {
            reason,
            step: self.sim.steps_done(),
            time: self.sim.time(),
            scene: self.scene.clone(),
            backend: self.sim.backend(),
            precision: self.precision,
            adapter: self.sim.adapter(),
            engine: self.sim.save_state()?,
            offsets: self.sim.offsets(),
            diagnostics,
            run,
        })
    }

    /// The energy-balance guard: an error when (E + dissipated) has moved from `initial` by
    /// more than [`ENERGY_DRIFT_LIMIT`] of the energy scale (or is not a number).
    fn check_energy(&mut self, initial: &Diagnostics) -> Result<()> {
        let now = self.sim.diagnostics();
        let drift = now.energy_balance_change_relative(initial);
        if drift.abs() <= ENERGY_DRIFT_LIMIT {
            return Ok(());
        }
        let f32 = self.precision == Precision::F32 && self.sim.backend() != Backend::Event;
        bail!(
            "the energy balance drifted at step {}: total + dissipated energy moved by {:+.1} % \
             of the energy scale, past the limit of {:.0} % (docs/physics.md §7): from {:.4e} J \
             to {:.4e} J, with the energy scale K + |U| at {:.3e} J; likely cause: {}; \
             --allow-energy-drift runs on",
            self.sim.steps_done(),
            100.0 * drift,
            100.0 * ENERGY_DRIFT_LIMIT,
            initial.energy_balance(),
            now.energy_balance(),
            initial.energy_scale().max(now.energy_scale()),
            crate::sim::likely_cause(self.scene, f32)
        )
    }

    /// `err` of a run that stopped (a non-finite or runaway state, an energy drift), with the
    /// checkpoint of the state it stopped in when checkpointing: for inspection, a later resume
    /// refuses it.
    fn stopped(
        &mut self,
        mut err: anyhow::Error,
        initial: Diagnostics,
        log: &[Diagnostics],
        seconds_before: f64,
    ) -> anyhow::Error {
        if self.checkpointer.is_some() {
            let secs = seconds_before + self.sim.step_stats().wall_seconds;
            match self.write_checkpoint(Reason::NonFinite, initial, log, secs) {
                Ok(path) => {
                    err = err.context(format!(
                        "the state it stopped in is in {}; earlier checkpoints are in {}",
                        path.display(),
                        path.parent()
                            .map_or(String::new(), |d| d.display().to_string())
                    ))
                }
                Err(w) => err = err.context(format!("no checkpoint written: {w:#}")),
            }
        }
        err
    }

    /// The simulation, for inspection before [`execute`](Self::execute).
    pub fn simulation(&self) -> &Simulation {
        &self.sim
    }

    /// A notice from the backend choice (e.g. a fallback) or from a resume on another backend
    /// or precision, if any.
    pub fn notice(&self) -> Option<&str> {
        self.resume_notice.as_deref().or(self.sim.notice())
    }

    /// One line describing the run: spheres, walls, steps, law, backend, adapter, precision and
    /// the set-up time.
    pub fn header(&self) -> String {
        let scene = self.scene;
        let steps = scene.sim.steps;
        format!(
            "{}: {} spheres, {} planes{}, {} steps of {} s ({} s simulated), {} contact, backend {} on {}, {}; set up in {:.2} s",
            scene.name,
            self.sim.particles(),
            scene.planes.len(),
            match scene.containers.len() {
                0 => String::new(),
                k => format!(", {k} spherical container{}", if k == 1 { "" } else { "s" }),
            },
            steps,
            fmt_num(scene.sim.dt),
            fmt_num(steps as f64 * scene.sim.dt),
            scene.sim.contact,
            self.sim.backend(),
            self.sim.adapter(),
            self.precision,
            self.setup_seconds
        )
    }

    /// Steps to the scene's last step (or until `stop` is set, e.g. by Ctrl-C), writing
    /// snapshots, the energy log, the final state and the statistics as asked.
    ///
    /// # Errors
    /// A non-finite state (with the step and sphere id) or a failed write; files written before
    /// stay complete.
    pub fn execute(mut self, stop: &AtomicBool) -> Result<RunReport> {
        let steps = self.scene.sim.steps;
        let log_dir = self.opts.output.clone();
        let resumed = self.resumed.take();
        let (initial, mut log, seconds_before) = match &resumed {
            Some(r) => (r.run.initial, r.run.log.clone(), r.run.stepping_seconds),
            None => {
                let d = self.sim.diagnostics();
                (d, vec![d], 0.0)
            }
        };
        if resumed.is_none()
            && let Some(s) = self.series.as_mut()
        {
            s.write(&self.sim.snapshot())?;
            write_diagnostics_log(log_dir.as_deref().unwrap(), &log)?;
        }
        let start_step = self.sim.steps_done();
        let mut progress = Progress::new(
            self.opts.progress,
            self.opts.progress_every,
            start_step,
            steps,
            self.scene.sim.dt,
        );
        let ckpt_every = self.checkpointer.as_ref().and_then(|c| c.every());
        let next_multiple = |done: u64, k: Option<u64>| match k {
            Some(k) => (done / k + 1) * k,
            None => u64::MAX,
        };
        let mut checkpoints = Vec::new();
        // Step in chunks sized for about ten progress updates per second.
        let mut chunk: u64 = 1;
        let mut interrupted = false;
        // The energy-balance guard (ENERGY_DRIFT_LIMIT); drag's losses are not in the ledger.
        let guard_energy = !self.opts.allow_energy_drift && self.scene.sim.drag == 0.0;
        let mut last_energy_check = Instant::now();
        let mut energy_interval = Duration::from_secs_f64(ENERGY_CHECK_SECONDS);
        while self.sim.steps_done() < steps {
            if stop.load(Ordering::SeqCst) {
                interrupted = true;
                break;
            }
            let done = self.sim.steps_done();
            let snap_every = self.series.is_some().then_some(self.every);
            let k = chunk
                .min(steps - done)
                .min(next_multiple(done, snap_every) - done)
                .min(next_multiple(done, ckpt_every) - done);
            let t0 = Instant::now();
            if let Err(e) = self.sim.step(k) {
                progress.abandon();
                return Err(self.stopped(e.into(), initial, &log, seconds_before));
            }
            let dt = t0.elapsed();
            if dt < Duration::from_millis(50) {
                chunk = (chunk * 2).min(1 << 20);
            } else if dt > Duration::from_millis(200) && chunk > 1 {
                chunk /= 2;
            }
            let d = self.sim.steps_done();
            progress.set(d);
            if let Some(s) = self.series.as_mut()
                && (d.is_multiple_of(self.every) || d == steps)
            {
                s.write(&self.sim.snapshot())?;
                log.push(self.sim.diagnostics());
                write_diagnostics_log(log_dir.as_deref().unwrap(), &log)?;
            }
            if guard_energy && (d == steps || last_energy_check.elapsed() >= energy_interval) {
                let t = Instant::now();
                if let Err(e) = self.check_energy(&initial) {
                    progress.abandon();
                    return Err(self.stopped(e, initial, &log, seconds_before));
                }
                // A check costs a diagnostics pass: at most 5 % of the run's time.
                last_energy_check = Instant::now();
                energy_interval = Duration::from_secs_f64(ENERGY_CHECK_SECONDS)
                    .max(20 * last_energy_check.duration_since(t));
            }
            if ckpt_every.is_some_and(|k| d.is_multiple_of(k)) && d < steps {
                let secs = seconds_before + self.sim.step_stats().wall_seconds;
                let path = self.write_checkpoint(Reason::Periodic, initial, &log, secs)?;
                checkpoints.push(path);
            }
        }
        progress.finish();

        let session = self.sim.step_stats();
        let wall_seconds = seconds_before + session.wall_seconds;
        if self.checkpointer.is_some() {
            let reason = if interrupted {
                Reason::Interrupted
            } else {
                Reason::Final
            };
            checkpoints.push(self.write_checkpoint(reason, initial, &log, wall_seconds)?);
        }
        let fin = self.sim.diagnostics();
        let mut files = Vec::new();
        if let Some(path) = &self.opts.final_csv {
            output::write_csv(path, &self.sim.snapshot())?;
            files.push(("final state", path.clone()));
        }
        let n = self.sim.particles();
        let steps_done = self.sim.steps_done();
        if let Some(path) = &self.opts.stats_json {
            let mut st = RunStats::from_diagnostics(
                &self.scene.name,
                &self.sim.backend().to_string(),
                &self.sim.adapter(),
                &self.precision.to_string(),
                n,
                steps_done,
                self.scene.sim.dt,
                wall_seconds,
                &initial,
                &fin,
                interrupted,
            );
            st.resumed_from_step = resumed.as_ref().map(|r| r.step);
            if let Some((solver, theta)) = self.gravity() {
                st.gravity_solver = solver.to_string();
                st.theta = theta;
            }
            output::write_stats_json(path, &st)?;
            files.push(("stats", path.clone()));
        }
        if let Some(s) = &self.series {
            let main = if self.opts.formats.contains(&SnapshotFormat::Vtp) {
                s.pvd_path()
            } else {
                s.dir().to_path_buf()
            };
            files.push(("snapshots", main));
        }
        if let Some(last) = checkpoints.last() {
            files.push(("checkpoint", last.clone()));
        }
        // This session's steps and time: the rate the summary reports.
        let run_steps = steps_done - start_step;
        let stats = StepStats {
            steps: run_steps,
            wall_seconds: session.wall_seconds,
            particle_steps_per_second: if session.wall_seconds > 0.0 {
                n as f64 * run_steps as f64 / session.wall_seconds
            } else {
                0.0
            },
        };
        let sc = self.scene;
        Ok(RunReport {
            particles: n,
            interrupted,
            balanced: sc.sim.drag == 0.0,
            momentum_conserved: sc.planes.is_empty()
                && sc.containers.is_empty()
                && sc.spheres.iter().all(|s| !s.fixed)
                && sc.sim.gravity == glam::DVec3::ZERO
                && sc.sim.drag == 0.0,
            soft: self.scene.sim.contact.is_soft(),
            gravity: self.gravity(),
            resumed_from: resumed.map(|r| (r.path, r.step)),
            stats,
            initial,
            fin,
            stage_seconds: self
                .sim
                .stage_seconds()
                .into_iter()
                .map(|(s, t)| (s.to_string(), t))
                .collect(),
            files,
        })
    }

    /// The mutual-gravity solver and, for the tree, θ; `None` when G = 0.
    fn gravity(&self) -> Option<(crate::scene::GravitySolver, Option<f64>)> {
        let sim = &self.scene.sim;
        (sim.g_const > 0.0).then(|| {
            let tree = sim.gravity_solver == crate::scene::GravitySolver::Tree;
            (sim.gravity_solver, tree.then_some(sim.theta))
        })
    }

    /// Writes a checkpoint of the current state with the run's bookkeeping; returns its path.
    fn write_checkpoint(
        &mut self,
        reason: Reason,
        initial: Diagnostics,
        log: &[Diagnostics],
        seconds: f64,
    ) -> Result<PathBuf> {
        let ckpt = self.checkpoint(reason, initial, log, seconds)?;
        let c = self.checkpointer.as_ref().expect("checkpointing is on");
        Ok(c.write(&ckpt)?)
    }
}

/// Rewrites `DIR/diagnostics.csv` (atomically) with one row per diagnostics sample.
fn write_diagnostics_log(dir: &Path, log: &[Diagnostics]) -> Result<()> {
    output::write_energy_log(&dir.join("diagnostics.csv"), log)?;
    Ok(())
}

/// Progress of a run: a bar with simulated time, steps/s and the ETA on a terminal; otherwise
/// (`--quiet`, or a batch job's log) a line every `--progress-every` seconds; nothing when both
/// are off.
struct Progress {
    bar: Option<ProgressBar>,
    log_every: Option<Duration>,
    last_log: Instant,
    start: Instant,
    first: u64,
    total: u64,
    dt: f64,
}

impl Progress {
    fn new(bar: bool, lines_every: Option<u64>, first: u64, total: u64, dt: f64) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let bar = (bar && terminal).then(|| {
            let b = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} steps  {msg}",
                )
                .expect("valid template"),
            );
            b.set_position(first);
            b
        });
        Progress {
            log_every: if bar.is_none() {
                lines_every.filter(|&s| s > 0).map(Duration::from_secs)
            } else {
                None
            },
            bar,
            last_log: Instant::now(),
            start: Instant::now(),
            first,
            total,
            dt,
        }
    }

    /// Steps per second of this session, and the seconds left at that rate.
    fn rate_eta(&self, done: u64) -> (f64, f64) {
        let rate = (done - self.first) as f64 / self.start.elapsed().as_secs_f64().max(1e-9);
        let eta = self.total.saturating_sub(done) as f64 / rate.max(1e-9);
        (rate, eta)
    }

    fn set(&mut self, done: u64) {
        let (rate, eta) = self.rate_eta(done);
        let t = done as f64 * self.dt;
        if let Some(b) = &self.bar {
            b.set_position(done);
            b.set_message(format!(
                "t = {} s  {}  eta {}",
                fmt_sig(t),
                fmt_rate(rate),
                fmt_duration(eta)
            ));
        } else if let Some(every) = self.log_every
            && self.last_log.elapsed() >= every
        {
            self.last_log = Instant::now();
            crate::note!(
                "progress: step {done}/{} ({:.1} %), t = {} s of {} s, {}, elapsed {}, eta {}",
                self.total,
                100.0 * done as f64 / self.total.max(1) as f64,
                fmt_sig(t),
                fmt_sig(self.total as f64 * self.dt),
                fmt_rate(rate),
                fmt_duration(self.start.elapsed().as_secs_f64()),
                fmt_duration(eta)
            );
        }
    }

    fn abandon(&self) {
        if let Some(b) = &self.bar {
            b.abandon();
        }
    }

    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// `x` with 4 significant digits (`0.01234`, `12.35`, `1.235e5`).
fn fmt_sig(x: f64) -> String {
    if x == 0.0 || (1e-3..1e5).contains(&x.abs()) {
        let digits = if x == 0.0 {
            0
        } else {
            (3 - x.abs().log10().floor() as i32).max(0) as usize
        };
        format!("{x:.digits$}")
    } else {
        format!("{x:.3e}")
    }
}

/// Steps per second, readable at any rate.
fn fmt_rate(rate: f64) -> String {
    if rate >= 100.0 {
        format!("{rate:.0} steps/s")
    } else {
        format!("{rate:.2} steps/s")
    }
}

/// Seconds as `45 s`, `12 min 5 s` or `3 h 20 min`.
fn fmt_duration(secs: f64) -> String {
    if !secs.is_finite() {
        return "unknown".into();
    }
    let s = secs.round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}

/// What a run did: its statistics, the diagnostics at the start and end, and the files written.
/// `Display` prints the summary `spheresim run` shows.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// Spheres.
    pub particles: usize,
    /// Stopped before the last step (Ctrl-C, SIGTERM, SIGHUP or the stop flag).
    pub interrupted: bool,
    /// The energy ledger balances: no drag, whose losses it does not book.
    pub balanced: bool,
    /// Nothing outside the spheres acts on them (no walls, fixed spheres, uniform field or
    /// drag), so their momentum is conserved.
    pub momentum_conserved: bool,
    /// A soft contact law (spring–dashpot or Hertz) was used.
    pub soft: bool,
    /// The mutual-gravity solver and the tree's θ; `None` when G = 0.
    pub gravity: Option<(crate::scene::GravitySolver, Option<f64>)>,
    /// The checkpoint file and step the run was resumed from (`--resume`).
    pub resumed_from: Option<(PathBuf, u64)>,
    /// Steps and wall-clock time of this invocation's stepping (after the checkpoint when
    /// resumed).
    pub stats: StepStats,
    /// Diagnostics before the first step.
    pub initial: Diagnostics,
    /// Diagnostics after the last step.
    pub fin: Diagnostics,
    /// Seconds by stage, named as [`crate::setup::STAGES`] (empty where not measured).
    pub stage_seconds: Vec<(String, f64)>,
    /// Files written: (what, path).
    pub files: Vec<(&'static str, PathBuf)>,
}

impl RunReport {
    /// Exit status of `spheresim run`: 0, or when interrupted 128 + the signal that stopped it
    /// ([`stop_signal`]): 130 after SIGINT (also when the stop flag was set without a signal),
    /// 143 after SIGTERM, 129 after SIGHUP, as a shell reports a process killed by it.
    pub fn exit_code(&self) -> i32 {
        if self.interrupted {
            128 + stop_signal().unwrap_or(SIGINT)
        } else {
            0
        }
    }

    /// Warnings a user should see after the summary: (E + dissipated) moved by more than
    /// [`ENERGY_DRIFT_WARNING`] of the energy scale, or a conserved momentum by more than
    /// [`MOMENTUM_DRIFT_WARNING`] of `Σ m|v|`.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        let drift = self.fin.energy_balance_change_relative(&self.initial);
        if self.balanced && (drift.is_nan() || drift.abs() > ENERGY_DRIFT_WARNING) {
            w.push(format!(
                "total + dissipated energy moved by {:+.2} % of the energy scale, more than the \
                 {:.0} % a trustworthy run keeps to: shorten --dt or check the scene \
                 (docs/physics.md §7)",
                100.0 * drift,
                100.0 * ENERGY_DRIFT_WARNING
            ));
        }
        let moved = self.fin.momentum_change_relative(&self.initial);
        if self.momentum_conserved && (moved.is_nan() || moved > MOMENTUM_DRIFT_WARNING) {
            w.push(format!(
                "the momentum, which nothing outside the spheres changes here, moved by {:.2} % \
                 of Σ m|v|, more than the {:.0} % allowed (docs/physics.md §7)",
                100.0 * moved,
                100.0 * MOMENTUM_DRIFT_WARNING
            ));
        }
        w
    }
}

impl fmt::Display for RunReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (i, e) = (&self.initial, &self.fin);
        if let Some((path, step)) = &self.resumed_from {
            writeln!(
                f,
                "resumed at step {step} from {}; the figures below cover the whole run",
                path.display()
            )?;
        }
        writeln!(
            f,
            "{} {} steps of {} spheres in {:.3} s: {:.3e} particle-steps/s (stepping only)",
            if self.interrupted {
                "interrupted after"
            } else {
                "ran"
            },
            self.stats.steps,
            self.particles,
            self.stats.wall_seconds,
            self.stats.particle_steps_per_second
        )?;
        let (e0, e1) = (i.total_energy(), e.total_energy());
        writeln!(
            f,
            "  energy: total {e0:.6e} -> {e1:.6e} J, kinetic {:.6e} -> {:.6e} J (energy scale K + |U| {:.3e} J)",
            i.kinetic,
            e.kinetic,
            i.energy_scale().max(e.energy_scale())
        )?;
        let by = if self.soft {
            "contact damping and friction"
        } else {
            "inelastic impulses"
        };
        writeln!(
            f,
            "  dissipated by {by}: {:.6e} J; total + dissipated {:.6e} J (change {:+.3e} of the energy scale)",
            e.dissipated - i.dissipated,
            e.energy_balance(),
            e.energy_balance_change_relative(i)
        )?;
        writeln!(
            f,
            "  momentum: [{:.6e}, {:.6e}, {:.6e}] -> [{:.6e}, {:.6e}, {:.6e}] kg m/s (change {:.3e} of Σ|m v|)",
            i.momentum.x,
            i.momentum.y,
            i.momentum.z,
            e.momentum.x,
            e.momentum.y,
            e.momentum.z,
            e.momentum_change_relative(i)
        )?;
        writeln!(
            f,
            "  collisions: {} resolved, {} contacts now; neighbour list rebuilt {} times",
            e.collisions,
            e.contacts,
            e.neighbour_rebuilds.saturating_sub(i.neighbour_rebuilds)
        )?;
        if self.gravity.is_some() || self.soft {
            // The uniform field's potential is named apart from mutual gravity's, and each is
            // printed only where the scene has it.
            let mut terms = vec![format!("kinetic {:.4e} -> {:.4e}", i.kinetic, e.kinetic)];
            if i.potential_uniform != 0.0 || e.potential_uniform != 0.0 {
                terms.push(format!(
                    "uniform field {:.4e} -> {:.4e}",
                    i.potential_uniform, e.potential_uniform
                ));
            }
            if self.gravity.is_some() {
                terms.push(format!(
                    "gravitational {:.4e} -> {:.4e}",
                    i.potential_gravity, e.potential_gravity
                ));
            }
            terms.push(format!(
                "elastic {:.4e} -> {:.4e}",
                i.potential_spring, e.potential_spring
            ));
            terms.push(format!("dissipated {:.4e}", e.dissipated - i.dissipated));
            writeln!(f, "  energy ledger (start -> end, J): {}", terms.join(", "))?;
        }
        if i.kinetic_rotational != 0.0 || e.kinetic_rotational != 0.0 {
            writeln!(
                f,
                "  rotation: rotational kinetic energy {:.4e} -> {:.4e} J (counted in the totals)",
                i.kinetic_rotational, e.kinetic_rotational
            )?;
        }
        match self.gravity {
            Some((solver, Some(theta))) => {
                writeln!(f, "  mutual gravity: {solver}, opening angle θ = {theta}")?
            }
            Some((solver, None)) => writeln!(f, "  mutual gravity: {solver} sum")?,
            None => {}
        }
        let stages: Vec<String> = self
            .stage_seconds
            .iter()
            .filter(|(_, t)| *t > 0.0)
            .map(|(name, t)| format!("{name} {t:.2} s"))
            .collect();
        if !stages.is_empty() {
            writeln!(f, "  time by stage: {}", stages.join(", "))?;
        }
        for (what, path) in &self.files {
            writeln!(f, "  {what}: {}", path.display())?;
        }
        Ok(())
    }
}

/// The first signal that stopped the run (0: none), set by [`ctrl_c_flag`]'s handlers.
static STOP_SIGNAL: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// The flag [`ctrl_c_flag`] returned, for the SIGTERM and SIGHUP handler.
#[cfg(unix)]
static STOP_FLAG: std::sync::OnceLock<std::sync::Arc<AtomicBool>> = std::sync::OnceLock::new();

/// SIGINT's number, on every platform (`ctrlc` reports Ctrl-C as it).
const SIGINT: i32 = 2;

/// The signal that stopped this process's run: SIGINT (2), SIGTERM (15) or SIGHUP (1); `None`
/// before one arrives or without [`ctrl_c_flag`].
pub fn stop_signal() -> Option<i32> {
    match STOP_SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// Installs handlers for Ctrl-C (SIGINT) and, on Unix, SIGTERM and SIGHUP, that set the
/// returned flag (for [`SimRun::execute`]) and record the signal ([`stop_signal`]). Each stops
/// the run the same way: a checkpoint, the final state and the statistics with
/// `"interrupted": true`; [`RunReport::exit_code`] then gives 128 + the signal. Batch schedulers
/// send SIGTERM some time before they kill a job; a closed terminal sends SIGHUP. A SIGTERM or
/// SIGHUP this process inherited as ignored (`nohup`) stays ignored.
///
/// # Errors
/// When a handler is already installed in this process (this is called once).
pub fn ctrl_c_flag() -> Result<std::sync::Arc<AtomicBool>> {
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    ctrlc::set_handler(move || {
        let _ = STOP_SIGNAL.compare_exchange(0, SIGINT, Ordering::SeqCst, Ordering::SeqCst);
        s.store(true, Ordering::SeqCst)
    })
    .context("installing the Ctrl-C handler")?;
    #[cfg(unix)]
    {
        use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, sigaction};
        STOP_FLAG
            .set(stop.clone())
            .map_err(|_| anyhow::anyhow!("the stop signal handlers are already installed"))?;
        // Async-signal-safe: the handler only stores to atomics.
        extern "C" fn on_signal(sig: std::ffi::c_int) {
            let _ = STOP_SIGNAL.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
            if let Some(f) = STOP_FLAG.get() {
                f.store(true, Ordering::SeqCst);
            }
        }
        let action = SigAction::new(
            SigHandler::Handler(on_signal),
            SaFlags::SA_RESTART,
            SigSet::empty(),
        );
        for sig in [Signal::SIGTERM, Signal::SIGHUP] {
            // SAFETY: the handler touches nothing but atomics and an initialised OnceLock.
            let old = unsafe { sigaction(sig, &action) }
                .with_context(|| format!("installing the {sig} handler"))?;
            // An ignored signal stays ignored: `nohup spheresim run ...` must outlive its
            // terminal.
            if matches!(old.handler(), SigHandler::SigIgn) {
                // SAFETY: puts back the action that was there.
                unsafe { sigaction(sig, &old) }
                    .with_context(|| format!("restoring {sig}'s ignored state"))?;
            }
        }
    }
    Ok(stop)
}
