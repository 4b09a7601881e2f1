//! How messages name the settings they suggest. The library speaks of its own fields and types
//! (`Scene.sim.dt`, `Backend::Cpu`, `CheckOptions::allow_overlap`); the `spheresim` binary calls
//! [`use_cli_flags`] before anything else, and the same messages then name its flags (`--dt`,
//! `--backend cpu`, `--allow-overlap`), as its users type them.

use std::sync::atomic::{AtomicBool, Ordering};

static CLI_FLAGS: AtomicBool = AtomicBool::new(false);

/// Makes every later message of this process name the CLI's flags instead of the library's
/// fields. For the `spheresim` binary; a library user has no reason to call it.
pub fn use_cli_flags() {
    CLI_FLAGS.store(true, Ordering::Relaxed);
}

/// Whether messages name the CLI's flags ([`use_cli_flags`]).
pub fn cli_flags() -> bool {
    CLI_FLAGS.load(Ordering::Relaxed)
}

/// A setting a message suggests; its [`Display`](std::fmt::Display) is the library's name, or
/// the CLI's flag after [`use_cli_flags`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// The time step: `Scene.sim.dt`, `--dt`.
    Dt,
    /// The time step before its value: `Scene.sim.dt =`, `--dt`.
    DtValue,
    /// The CPU backend: `Backend::Cpu`, `--backend cpu`.
    BackendCpu,
    /// The GPU backend: `Backend::Gpu`, `--backend gpu`.
    BackendGpu,
    /// Either stepping backend: `Backend::Cpu` or `Backend::Gpu`, `--backend cpu or gpu`.
    BackendCpuOrGpu,
    /// The CPU backend in f64.
    CpuF64,
    /// f32 arithmetic: `Precision::F32`, `--precision f32`.
    PrecisionF32,
    /// Accepting initial overlaps (with its verb): set `CheckOptions::allow_overlap`, pass
    /// `--allow-overlap`.
    AllowOverlap,
    /// The sphere count of a built-in scene: `particles` of `builtin::build`, `--particles`.
    Particles,
    /// The parenthesised flag after `gravity_solver = "tree"` (nothing in the library).
    GravitySolverTreeFlag,
    /// The flag after `rotation = true in [simulation]` (nothing in the library).
    RotationFlag,
    /// The soft contact laws: `ContactModel::Hertz` or `SpringDashpot`, `--contact hertz or
    /// spring-dashpot`.
    SoftContact,
    /// The digits of the built-in scene `pi-blocks`: `digits` of `builtin::pi_blocks`,
    /// `--digits`.
    Digits,
    /// Saving checkpoints: `Simulation::save_state`, `--checkpoint`.
    Checkpoint,
    /// A checkpoint directory: a `Checkpointer::new` directory, a `--checkpoint` directory.
    CheckpointDir,
    /// The event-driven backend: `Backend::Event`, `--backend event`.
    BackendEvent,
    /// The backends that can be drawn: `Backend::Gpu`, `Backend::Cpu` or `Backend::Auto`;
    /// gpu, cpu or auto (after `--backend event`).
    DrawableBackends,
    /// The frames drawn: `RenderOptions::frames`, `--frames`.
    Frames,
    /// The steps between frames: `RenderOptions::every`, `--every`.
    Every,
    /// The PNG frames' directory: `RenderOutputs::frames_dir`, `--out DIR`.
    FramesDir,
    /// The video file: `RenderOutputs::video`, `--video FILE`.
    Video,
    /// The image size in pixels: `RenderOptions` width × height, `--size`.
    Size,
    /// The vertical field of view: `RenderOptions::fov_deg`, `--fov`.
    Fov,
    /// The video's frame rate: `VideoOptions::fps`, `--fps`.
    Fps,
    /// A run's total steps: `Scene.sim.steps`, `--steps`.
    Steps,
    /// A run's total steps before its value: `Scene.sim.steps =`, `--steps`.
    StepsValue,
    /// A built-in scene's sphere count in the run driver: `SceneOptions::particles`,
    /// `--particles`.
    RunParticles,
    /// `pi-blocks`' digits in the run driver: `SceneOptions::digits`, `--digits`.
    RunDigits,
    /// The friction override before its value: `SceneOptions::friction =`, `--friction`.
    FrictionValue,
    /// The rolling-friction override before its value: `SceneOptions::rolling_friction =`,
    /// `--rolling-friction`.
    RollingFrictionValue,
    /// A soft contact law in the run driver: `SceneOptions::contact` Hertz or SpringDashpot,
    /// `--contact hertz or --contact spring-dashpot`.
    RunSoftContact,
    /// Snapshots' interval: `RunOptions::every`, `--every`.
    RunEvery,
    /// The snapshot directory: `RunOptions::output`, `--output DIR`.
    RunOutput,
    /// The snapshot formats: `RunOptions::formats`, `--format`.
    RunFormats,
    /// The checkpoint directory of a run: `RunOptions::checkpoint`, `--checkpoint`.
    RunCheckpoint,
    /// As [`Setting::RunCheckpoint`], where it needs its value: `--checkpoint DIR`.
    RunCheckpointDir,
    /// The checkpoints' interval: `RunOptions::checkpoint_every`, `--checkpoint-every`.
    CheckpointEvery,
    /// Running on past the energy guard: `RunOptions::allow_energy_drift`,
    /// `--allow-energy-drift`.
    AllowEnergyDrift,
    /// Continuing a run from its checkpoint directory: `SimRun::resume` with a checkpoint of
    /// it, `--resume` with the directory.
    ResumeFrom,
}

impl Setting {
    /// The library's name and the CLI's.
    fn names(self) -> (&'static str, &'static str) {
        match self {
            Setting::Dt => ("`Scene.sim.dt`", "--dt"),
            Setting::DtValue => ("`Scene.sim.dt` =", "--dt"),
            Setting::BackendCpu => ("`Backend::Cpu`", "--backend cpu"),
            Setting::BackendGpu => ("`Backend::Gpu`", "--backend gpu"),
            Setting::BackendCpuOrGpu => {
                ("`Backend::Cpu` or `Backend::Gpu`", "--backend cpu or gpu")
            }
            Setting::CpuF64 => (
                "`Backend::Cpu` with `Precision::F64`",
                "--backend cpu --precision f64",
            ),
            Setting::PrecisionF32 => ("`Precision::F32`", "--precision f32"),
            Setting::AllowOverlap => ("set `CheckOptions::allow_overlap`", "pass --allow-overlap"),
            Setting::Particles => ("`particles` count", "--particles"),
            Setting::GravitySolverTreeFlag => ("", " (--gravity-solver tree)"),
            Setting::RotationFlag => ("", ", or --rotation true"),
            Setting::SoftContact => (
                "`ContactModel::Hertz` or `ContactModel::SpringDashpot`",
                "--contact hertz or spring-dashpot",
            ),
            Setting::Digits => ("`digits` of `builtin::pi_blocks`", "--digits"),
            Setting::Checkpoint => ("`Simulation::save_state`", "--checkpoint"),
            Setting::CheckpointDir => ("`Checkpointer::new` directory", "--checkpoint directory"),
            Setting::BackendEvent => ("`Backend::Event`", "--backend event"),
            Setting::DrawableBackends => (
                "`Backend::Gpu`, `Backend::Cpu` or `Backend::Auto`",
                "gpu, cpu or auto",
            ),
            Setting::Frames => ("`RenderOptions::frames`", "--frames"),
            Setting::Every => ("`RenderOptions::every`", "--every"),
            Setting::FramesDir => ("`RenderOutputs::frames_dir`", "--out DIR"),
            Setting::Video => ("`RenderOutputs::video`", "--video FILE"),
            Setting::Size => ("`RenderOptions` size", "--size"),
            Setting::Fov => ("`RenderOptions::fov_deg`", "--fov"),
            Setting::Fps => ("`VideoOptions::fps`", "--fps"),
            Setting::Steps => ("`Scene.sim.steps`", "--steps"),
            Setting::StepsValue => ("`Scene.sim.steps` =", "--steps"),
            Setting::RunParticles => ("`SceneOptions::particles`", "--particles"),
            Setting::RunDigits => ("`SceneOptions::digits`", "--digits"),
            Setting::FrictionValue => ("`SceneOptions::friction` =", "--friction"),
            Setting::RollingFrictionValue => {
                ("`SceneOptions::rolling_friction` =", "--rolling-friction")
            }
            Setting::RunSoftContact => (
                "`SceneOptions::contact` = `ContactModel::Hertz` or `ContactModel::SpringDashpot`",
                "--contact hertz or --contact spring-dashpot",
            ),
            Setting::RunEvery => ("`RunOptions::every`", "--every"),
            Setting::RunOutput => ("`RunOptions::output`", "--output DIR"),
            Setting::RunFormats => ("`RunOptions::formats`", "--format"),
            Setting::RunCheckpoint => ("`RunOptions::checkpoint`", "--checkpoint"),
            Setting::RunCheckpointDir => ("`RunOptions::checkpoint`", "--checkpoint DIR"),
            Setting::ResumeFrom => ("`SimRun::resume` with a checkpoint of", "--resume"),
            Setting::CheckpointEvery => ("`RunOptions::checkpoint_every`", "--checkpoint-every"),
            Setting::AllowEnergyDrift => {
                ("`RunOptions::allow_energy_drift`", "--allow-energy-drift")
            }
        }
    }
}

impl std::fmt::Display for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (library, cli) = self.names();
        f.write_str(if cli_flags() { cli } else { library })
    }
}
