//! [`SimRun`]: a run set up (outputs checked, backend created, perhaps resumed from a
//! checkpoint) and its step loop, with snapshots, checkpoints and the energy-balance guard.

use super::progress::Progress;
use super::{RunOptions, RunReport};
use crate::checkpoint::{Checkpoint, Checkpointer, Reason, RunState};
use crate::naming::Setting;
use crate::output::{self, RunStats, SeriesWriter, SnapshotFormat};
use crate::scene::fmt_num;
use crate::{Backend, Diagnostics, Precision, Scene, Simulation, StepStats};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The energy-balance guard's limit: a run whose (E + dissipated) moves from its start by more
/// than this fraction of the energy scale `K + |U|`
/// ([`Diagnostics::energy_balance_change_relative`]) stops, unless
/// [`RunOptions::allow_energy_drift`] (docs/physics.md §7; the built-in scenes' drift is in
/// §7.2).
pub const ENERGY_DRIFT_LIMIT: f64 = 0.5;

/// Wall-clock seconds between two checks of the energy balance during a run, at least (a check
/// takes a diagnostics pass, which may cost as much as a step: the interval is also at least 20
/// times the last check's time).
const ENERGY_CHECK_SECONDS: f64 = 1.0;

/// Where a resumed run started: the checkpoint's file, its step and its bookkeeping.
struct Resumed {
    path: PathBuf,
    step: u64,
    run: RunState,
}

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
    /// Spheres when the run began: the scene's, with what an insertion placed before the first
    /// step (a resumed run: its checkpoint's scene's).
    particles_at_start: usize,
    /// The walls' forces of each row of the energy log (empty rows without `wall_forces`).
    wall_log: Vec<Vec<glam::DVec3>>,
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
                "{} {} is at or before the checkpoint's step {} ({}); {} gives the run's total, \
                 counted from its start: give more than {}",
                Setting::StepsValue,
                scene.sim.steps,
                ckpt.step,
                path.display(),
                Setting::Steps,
                ckpt.step
            );
        }
        ckpt.check(scene, path)?;
        // Before `start`'s checks, which would name the checkpoint directory that the resumed
        // run inherits rather than the resume the caller asked for.
        if opts.backend == Backend::Event {
            bail!(
                "{} {}: the event-driven solver restores no checkpoints; use {}",
                Setting::ResumeFrom,
                path.display(),
                Setting::BackendCpuOrGpu
            );
        }
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
            bail!("{} needs {}", Setting::RunEvery, Setting::RunOutput);
        }
        if opts.every == Some(0) {
            bail!("{} must be at least 1", Setting::RunEvery);
        }
        if opts.output.is_some() && opts.formats.is_empty() {
            bail!(
                "{} needs at least one of csv, vtk, vtp",
                Setting::RunFormats
            );
        }
        if opts.checkpoint_every.is_some() && opts.checkpoint.is_none() {
            bail!(
                "{} needs {}",
                Setting::CheckpointEvery,
                Setting::RunCheckpointDir
            );
        }
        if opts.checkpoint_every == Some(0) {
            bail!("{} must be at least 1", Setting::CheckpointEvery);
        }
        if opts.checkpoint.is_some() && opts.backend == Backend::Event {
            bail!(
                "{}: the event-driven solver writes no checkpoints; use {}",
                Setting::RunCheckpoint,
                Setting::BackendCpu
            );
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
                match &resume {
                    Some((_, r)) => Checkpointer::resuming(dir, opts.checkpoint_every, &r.path),
                    None => Checkpointer::new(dir, opts.checkpoint_every),
                }
                .with_context(|| format!("{} {}", Setting::RunCheckpoint, dir.display()))?,
            ),
            None => None,
        };
        let setup = Instant::now();
        let (sim, resume_notice) = match &resume {
            Some((ckpt, _)) => {
                ckpt.resume_simulation(scene, opts.backend, opts.precision, Default::default())?
            }
            None => (Simulation::new(scene, opts.backend, opts.precision)?, None),
        };
        // What the backend computes in (the event-driven solver: f64 whatever the options say).
        let precision = sim.precision();
        let particles_at_start = match &resume {
            Some(_) => scene.spheres.len(),
            None => sim.particles(),
        };
        let mut run = SimRun {
            particles_at_start,
            scene,
            opts,
            series,
            every,
            precision,
            setup_seconds: setup.elapsed().as_secs_f64(),
            sim,
            checkpointer,
            wall_log: resume
                .as_ref()
                .map(|(_, r)| r.run.wall_log.clone())
                .unwrap_or_default(),
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
            wall_log: self.wall_log.clone(),
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
            scene: self.sim.open_scene().unwrap_or(self.scene).clone(),
            backend: self.sim.backend(),
            precision: self.precision,
            adapter: self.sim.adapter(),
            engine: self.sim.save_state()?,
            offsets: self.sim.offsets(),
            open: self.sim.open_state().cloned(),
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
             {} runs on",
            self.sim.steps_done(),
            100.0 * drift,
            100.0 * ENERGY_DRIFT_LIMIT,
            initial.energy_balance(),
            now.energy_balance(),
            initial.energy_scale().max(now.energy_scale()),
            crate::sim::likely_cause(self.scene, f32),
            Setting::AllowEnergyDrift
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

    /// One line describing the run: spheres, walls, periodic axes, steps, law, backend, adapter,
    /// precision and the set-up time.
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
            } + &periodic_text(&scene.sim.periodic),
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
                self.wall_log = vec![self.sim.wall_forces()];
                (d, vec![d], 0.0)
            }
        };
        if resumed.is_none()
            && let Some(s) = self.series.as_mut()
        {
            s.write(&self.sim.snapshot())?;
            write_diagnostics_log(
                log_dir.as_deref().unwrap(),
                &log,
                &self.wall_log,
                self.scene.is_open(),
            )?;
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
                self.wall_log.push(self.sim.wall_forces());
                write_diagnostics_log(
                    log_dir.as_deref().unwrap(),
                    &log,
                    &self.wall_log,
                    self.scene.is_open(),
                )?;
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
        // Read once: the summary and the stats JSON report the same last step.
        let walls_final = self.sim.wall_forces();
        let mut files = Vec::new();
        if let Some(path) = &self.opts.final_csv {
            output::write_csv(path, &self.sim.snapshot())?;
            files.push(("final state", path.clone()));
        }
        // The spheres the run started with: outflows may have removed some since.
        let n = self.particles_at_start;
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
            if self.scene.sim.wall_forces {
                st.wall_forces_final = Some(walls_final.iter().map(|f| f.to_array()).collect());
            }
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
                && sc.sim.drag == 0.0
                && !sc.is_open(),
            soft: self.scene.sim.contact.is_soft(),
            outflow: sc.is_open(),
            particles_left: self.sim.particles(),
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
            wall_forces: walls_final,
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

/// Rewrites `DIR/diagnostics.csv` (atomically) with one row per diagnostics sample, and the
/// walls' forces of each (`walls`, empty rows without `wall_forces`), and the outflows' columns
/// when `removed`.
fn write_diagnostics_log(
    dir: &Path,
    log: &[Diagnostics],
    walls: &[Vec<glam::DVec3>],
    removed: bool,
) -> Result<()> {
    output::write_energy_log_open(&dir.join("diagnostics.csv"), log, walls, removed)?;
    Ok(())
}

/// `, periodic in x [0, 0.1) m, z [0, 0.1) m` for the header; empty without periodic axes.
fn periodic_text(p: &crate::scene::Periodic) -> String {
    let axes: Vec<String> = (0..3)
        .filter(|&a| p.axes[a])
        .map(|a| {
            format!(
                "{} [{}, {}) m",
                ["x", "y", "z"][a],
                fmt_num(p.min[a]),
                fmt_num(p.max[a])
            )
        })
        .collect();
    if axes.is_empty() {
        String::new()
    } else {
        format!(", periodic in {}", axes.join(", "))
    }
}
