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

    /// Applies `--steps`, `--dt`, `--contact` and `--friction` to a scene (unchecked).
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
    /// Show a progress bar (on a terminal) or a progress line every [`PROGRESS_LOG_SECONDS`]
    /// (otherwise); `--quiet` turns both off.
    pub progress: bool,
}

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
        }
    }
}

/// Seconds between progress lines when standard error is not a terminal.
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
}

impl<'a> SimRun<'a> {
    /// Checks every output path (so a bad one costs no stepping), then creates the backend.
    ///
    /// # Errors
    /// An unwritable output path, `--every` without `--output` or equal to 0, no formats, or a
    /// backend that cannot take the scene.
    pub fn new(scene: &'a Scene, opts: RunOptions) -> Result<Self> {
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
        let every = opts.every.unwrap_or((scene.sim.steps / 20).max(1));
        let series = match &opts.output {
            Some(dir) => Some(SeriesWriter::new(dir)?.with_formats(&opts.formats)),
            None => None,
        };
        let setup = Instant::now();
        let sim = Simulation::new(scene, opts.backend, opts.precision)?;
        // The event-driven solver computes in f64 whatever the options say.
        let precision = if sim.backend() == Backend::Event {
            Precision::F64
        } else {
            opts.precision
        };
        Ok(SimRun {
            scene,
            opts,
            series,
            every,
            precision,
            setup_seconds: setup.elapsed().as_secs_f64(),
            sim,
        })
    }

    /// The simulation, for inspection before [`execute`](Self::execute).
    pub fn simulation(&self) -> &Simulation {
        &self.sim
    }

    /// A notice from the backend choice (e.g. a fallback), if any.
    pub fn notice(&self) -> Option<&str> {
        self.sim.notice()
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
        let initial = self.sim.diagnostics();
        let mut log: Vec<Diagnostics> = vec![initial];
        let log_dir = self.opts.output.clone();
        if let Some(s) = self.series.as_mut() {
            s.write(&self.sim.snapshot())?;
            write_diagnostics_log(log_dir.as_deref().unwrap(), &log)?;
        }
        let mut progress = Progress::new(self.opts.progress, steps, self.scene.sim.dt);
        // Step in chunks sized for about ten progress updates per second.
        let mut chunk: u64 = 1;
        let mut interrupted = false;
        while self.sim.steps_done() < steps {
            if stop.load(Ordering::SeqCst) {
                interrupted = true;
                break;
            }
            let done = self.sim.steps_done();
            let next_snapshot = if self.series.is_some() {
                (done / self.every + 1) * self.every
            } else {
                u64::MAX
            };
            let k = chunk.min(steps - done).min(next_snapshot - done);
            let t0 = Instant::now();
            if let Err(e) = self.sim.step(k) {
                progress.abandon();
                return Err(e.into());
            }
            let dt = t0.elapsed();
            if dt < Duration::from_millis(50) {
                chunk = (chunk * 2).min(1 << 20);
            } else if dt > Duration::from_millis(200) && chunk > 1 {
                chunk /= 2;
            }
            progress.set(self.sim.steps_done());
            if let Some(s) = self.series.as_mut() {
                let d = self.sim.steps_done();
                if d % self.every == 0 || d == steps {
                    s.write(&self.sim.snapshot())?;
                    log.push(self.sim.diagnostics());
                    write_diagnostics_log(log_dir.as_deref().unwrap(), &log)?;
                }
            }
        }
        progress.finish();

        let stats = self.sim.step_stats();
        let fin = self.sim.diagnostics();
        let mut files = Vec::new();
        if let Some(path) = &self.opts.final_csv {
            output::write_csv(path, &self.sim.snapshot())?;
            files.push(("final state", path.clone()));
        }
        let n = self.sim.particles();
        if let Some(path) = &self.opts.stats_json {
            let st = RunStats::from_diagnostics(
                &self.scene.name,
                &self.sim.backend().to_string(),
                &self.sim.adapter(),
                &self.precision.to_string(),
                n,
                stats.steps,
                self.scene.sim.dt,
                stats.wall_seconds,
                &initial,
                &fin,
                interrupted,
            );
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
        Ok(RunReport {
            particles: n,
            interrupted,
            soft: self.scene.sim.contact.is_soft(),
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
}

/// Rewrites `DIR/diagnostics.csv` (atomically) with one row per diagnostics sample.
fn write_diagnostics_log(dir: &Path, log: &[Diagnostics]) -> Result<()> {
    output::write_energy_log(&dir.join("diagnostics.csv"), log)?;
    Ok(())
}

/// Progress of a run: a bar with simulated time, steps/s and the ETA on a terminal; a line
/// every [`PROGRESS_LOG_SECONDS`] otherwise (batch logs); nothing when off.
struct Progress {
    bar: Option<ProgressBar>,
    log_every: Option<Duration>,
    last_log: Instant,
    start: Instant,
    total: u64,
    dt: f64,
}

impl Progress {
    fn new(on: bool, total: u64, dt: f64) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let bar = (on && terminal).then(|| {
            let b = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} steps  {msg}  eta {eta}",
                )
                .expect("valid template"),
            );
            b
        });
        Progress {
            bar,
            log_every: (on && !terminal).then(|| Duration::from_secs(PROGRESS_LOG_SECONDS)),
            last_log: Instant::now(),
            start: Instant::now(),
            total,
            dt,
        }
    }

    fn set(&mut self, done: u64) {
        let rate = done as f64 / self.start.elapsed().as_secs_f64().max(1e-9);
        if let Some(b) = &self.bar {
            b.set_position(done);
            b.set_message(format!(
                "t = {:.4} s  {rate:.0} steps/s",
                done as f64 * self.dt
            ));
        } else if let Some(every) = self.log_every
            && self.last_log.elapsed() >= every
        {
            self.last_log = Instant::now();
            let eta = (self.total - done) as f64 / rate.max(1e-9);
            eprintln!(
                "progress: step {done}/{} (t = {:.4} s), {rate:.0} steps/s, eta {eta:.0} s",
                self.total,
                done as f64 * self.dt
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

/// What a run did: its statistics, the diagnostics at the start and end, and the files written.
/// `Display` prints the summary `spheresim run` shows.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// Spheres.
    pub particles: usize,
    /// Stopped before the last step (Ctrl-C).
    pub interrupted: bool,
    /// A soft contact law (spring–dashpot or Hertz) was used.
    pub soft: bool,
    /// Steps and wall-clock time of stepping.
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
    /// Exit status of `spheresim run`: 0, or 130 when interrupted (as after SIGINT).
    pub fn exit_code(&self) -> i32 {
        if self.interrupted { 130 } else { 0 }
    }

    /// Warnings a user should see after the summary (e.g. lost friction history).
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        let dropped = self
            .fin
            .friction_history_dropped
            .saturating_sub(self.initial.friction_history_dropped);
        if dropped > 0 {
            w.push(format!(
                "{dropped} contact-steps lost their friction history (a sphere owned more than {} \
                 contacts): static friction is weaker there than the law says",
                crate::setup::HISTORY_SLOTS
            ));
        }
        w
    }
}

impl fmt::Display for RunReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (i, e) = (&self.initial, &self.fin);
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
            "  collisions: {} resolved, {} contacts now",
            e.collisions, e.contacts
        )?;
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

/// Installs a Ctrl-C handler that sets the returned flag (for [`SimRun::execute`]).
///
/// # Errors
/// When a handler is already installed in this process.
pub fn ctrl_c_flag() -> Result<std::sync::Arc<AtomicBool>> {
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    ctrlc::set_handler(move || s.store(true, Ordering::SeqCst))
        .context("installing the Ctrl-C handler")?;
    Ok(stop)
}
