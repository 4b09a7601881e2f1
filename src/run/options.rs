//! What `run`, `view` and `render` are asked for: the scene with its command-line overrides
//! ([`SceneOptions`]) and what a run writes and how it steps ([`RunOptions`]).

use crate::checkpoint::Checkpoint;
use crate::naming::Setting;
use crate::output::SnapshotFormat;
use crate::scene::{CheckOptions, ContactModel, SceneFile, builtin};
use crate::{Backend, Precision, Scene};
use anyhow::{Result, bail};
use std::path::{Path, PathBuf};

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
    /// Whether each wall's force is recorded (`--wall-forces`), replacing the scene's.
    pub wall_forces: Option<bool>,
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

    /// Sets `--wall-forces`.
    pub fn wall_forces(mut self, on: bool) -> Self {
        self.wall_forces = Some(on);
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
                    "{} applies to built-in scenes only, not to the file {}",
                    Setting::RunParticles,
                    self.scene
                );
            }
            let file = SceneFile::load(Path::new(&self.scene))?;
            origins = Some(file.origins);
            file.scene
        } else if let Some(d) = self.digits.filter(|_| self.scene == "pi-blocks") {
            if self.particles.is_some_and(|n| n != 2) {
                bail!(
                    "{}: pi-blocks has exactly 2 spheres; its size is set by {}",
                    Setting::RunParticles,
                    Setting::RunDigits
                );
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
                "{} applies to the built-in scene pi-blocks only, not to {}",
                Setting::RunDigits,
                self.scene
            );
        }
        self.apply(&mut scene)?;
        let check = CheckOptions {
            allow_overlap: self.allow_overlap,
        };
        match origins {
            Some(o) => o.check(&scene, &check)?,
            None => {
                scene.check(&check)?;
            }
        }
        Ok(scene)
    }

    /// Applies `--steps`, `--dt`, `--contact`, `--skin`, `--gravity-solver`, `--theta`,
    /// `--rotation`, `--wall-forces`, `--rolling-model`, `--damping`, `--friction` and
    /// `--rolling-friction` to a scene (unchecked).
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
        if let Some(on) = self.wall_forces {
            scene.sim.wall_forces = on;
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
                    "{} {mu_r}: the impulse contact law has no friction; choose a soft law with \
                     {}",
                    Setting::RollingFrictionValue,
                    Setting::RunSoftContact
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
                    "{} {mu}: the impulse contact law has no friction; choose a soft law with {}",
                    Setting::FrictionValue,
                    Setting::RunSoftContact
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
    ///
    /// [`ENERGY_DRIFT_LIMIT`]: super::ENERGY_DRIFT_LIMIT
    pub allow_energy_drift: bool,
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
