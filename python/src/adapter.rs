//! Every call into the engine crate's API: loading and checking scenes, starting, restarting,
//! saving and resuming simulations. The Python classes in `lib.rs` go through these functions
//! only, so that a change of the engine's signatures (e.g. a checked scene type for
//! `Simulation::new`) is made here, in a few lines.

use spheresim::checkpoint::{Checkpoint, CheckpointError, Offsets, Reason, RunState};
use spheresim::scene::{CheckOptions, Origins, SceneFile, builtin};
use spheresim::{Backend, Diagnostics, Precision, Scene, SceneError, SimError, Simulation};
use std::path::Path;

/// A scene file's scene and where each of its items was defined (for located check errors).
///
/// # Errors
/// As [`SceneFile::load`]: an unreadable file ([`SceneError::Io`]), bad TOML, bad values.
pub fn load(path: &Path) -> Result<(Scene, Origins), SceneError> {
    SceneFile::load(path).map(|f| (f.scene, f.origins))
}

/// A built-in scene with `particles` spheres (`None`: its own count), refused before it is
/// built when the count exceeds the engine's sphere ids.
///
/// # Errors
/// An unknown name (the message lists the known ones), a count the scene cannot take.
pub fn builtin(name: &str, particles: Option<usize>) -> Result<Scene, SceneError> {
    if let Some(n) = particles {
        builtin::check_size(name, n, None, None)?;
    }
    builtin::build(name, particles)
}

/// [`Scene::check`] (or, for a scene read from a file, the same check naming file lines).
///
/// # Errors
/// Every bad value, sphere outside a container, or (unless `allow_overlap`) initial overlap
/// deeper than 1 % of the smaller radius.
pub fn check(
    scene: &Scene,
    origins: Option<&Origins>,
    allow_overlap: bool,
) -> Result<(), SceneError> {
    let opts = CheckOptions { allow_overlap };
    match origins {
        Some(o) => o.check(scene, &opts),
        None => scene.check(&opts).map(drop),
    }
}

/// A simulation of a checked `scene`.
///
/// # Errors
/// As [`Simulation::new`].
pub fn start(
    scene: &Scene,
    backend: Backend,
    precision: Precision,
) -> Result<Simulation, SimError> {
    Simulation::new(scene, backend, precision)
}

/// A simulation that continues `sim` from `scene`, a checked scene holding the state to go on
/// from (new positions or velocities): a fresh engine on the same backend and precision, with
/// the step count, time, collisions, dissipated energy and rebuild count carried over.
/// The contacts keep their history (friction's ξ, the Hertz law's first-touch speed, the
/// rolling spring) and the spheres their orientations; an open system's ids and insertion
/// progress carry over.
///
/// # Errors
/// As [`Simulation::new`]; [`SimError::Unavailable`] on the event-driven solver, which has no
/// state to carry over.
pub fn restart(sim: &mut Simulation, scene: &Scene) -> Result<Simulation, SimError> {
    let (backend, precision) = (sim.backend(), sim.precision());
    let at = sim.diagnostics();
    let old_open = sim.open_state().cloned();
    let memory = sim.contact_memory();
    let orientation = sim.snapshot().orientation;
    let offsets = Offsets::of(&at);
    // The engine's public way to start with carried-over counters is a resume of a state; the
    // fresh engine's step-0 state is restored exactly.
    let state = Simulation::new(scene, backend, precision)?.save_state()?;
    let (sim, _) = Simulation::resume(
        scene,
        &state,
        offsets,
        &at,
        backend,
        precision,
        Default::default(),
    )?;
    let mut sim = sim;
    if let Some(memory) = &memory {
        sim.restore_contact_memory(memory)?;
    }
    if !orientation.is_empty() {
        sim.set_orientations(&orientation)?;
    }
    // An open system keeps its ids and its insertions' progress across the restart.
    if let Some(open) = old_open {
        sim.restore_open_state(&open)?;
    }
    Ok(sim)
}

/// Writes a checkpoint of `sim` (which runs `scene`, with `initial` its diagnostics at step 0)
/// to `path` atomically, in the format of `spheresim run --checkpoint`.
///
/// # Errors
/// [`SimError::Unavailable`] on the event-driven solver; [`CheckpointError::Write`] naming the
/// path.
pub fn checkpoint(
    sim: &mut Simulation,
    scene: &Scene,
    initial: Diagnostics,
    path: &Path,
) -> Result<(), Failure> {
    let ckpt = Checkpoint {
        reason: Reason::Periodic,
        step: sim.steps_done(),
        time: sim.time(),
        scene: sim.open_scene().unwrap_or(scene).clone(),
        backend: sim.backend(),
        precision: sim.precision(),
        adapter: sim.adapter(),
        engine: sim.save_state()?,
        offsets: sim.offsets(),
        open: sim.open_state().cloned(),
        diagnostics: sim.diagnostics(),
        run: RunState {
            initial,
            ..Default::default()
        },
    };
    ckpt.write(path)?;
    Ok(())
}

/// A resumed checkpoint: the simulation, its scene, its diagnostics at step 0 and the resume's
/// notice (when it is not bit-identical to an uninterrupted run).
pub struct Resumed {
    /// The simulation, at the checkpoint's step.
    pub sim: Simulation,
    /// The checkpoint's scene.
    pub scene: Scene,
    /// Diagnostics of the run's first state.
    pub initial: Diagnostics,
    /// Why the continuation is not bit for bit, if it is not.
    pub notice: Option<String>,
}

/// Resumes the checkpoint file `path` on `backend` in `precision` (`None`: the checkpoint's).
///
/// # Errors
/// As [`Checkpoint::read`] and [`Checkpoint::check`]; as [`Checkpoint::resume_simulation`].
pub fn resume(
    path: &Path,
    backend: Option<Backend>,
    precision: Option<Precision>,
) -> Result<Resumed, Failure> {
    let ckpt = Checkpoint::read(path)?;
    ckpt.check(&ckpt.scene, path)?;
    let (sim, notice) = ckpt.resume_simulation(
        &ckpt.scene,
        backend.unwrap_or(ckpt.backend),
        precision.unwrap_or(ckpt.precision),
        Default::default(),
    )?;
    Ok(Resumed {
        sim,
        scene: ckpt.scene,
        initial: ckpt.run.initial,
        notice,
    })
}

/// An error of [`checkpoint`] or [`resume`].
#[derive(Debug)]
pub enum Failure {
    /// Setting up or saving the simulation.
    Sim(SimError),
    /// Reading, checking or writing the file.
    Checkpoint(CheckpointError),
}

impl From<SimError> for Failure {
    fn from(e: SimError) -> Self {
        Failure::Sim(e)
    }
}

impl From<CheckpointError> for Failure {
    fn from(e: CheckpointError) -> Self {
        Failure::Checkpoint(e)
    }
}
