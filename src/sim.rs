//! Backend-independent simulation driver.

use crate::checkpoint::{EngineState, Offsets};
use crate::cpu::CpuBackend;
use crate::engine::{Engine, Halt};
use crate::event::{EventBackend, EventError};
use crate::gpu::GpuOptions;
#[cfg(feature = "gpu")]
use crate::gpu::{GpuBackend, GpuError};
use crate::naming::Setting;
use crate::scene::insert::Around;
use crate::scene::{Insert, SceneError, SceneInput, Sphere};
use crate::{Diagnostics, Precision, Scene, Snapshot};

/// Which engine steps the scene (`--backend`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// The GPU when a hardware adapter exists, else the CPU with a notice (default). A software
    /// adapter (lavapipe) is used only when `WGPU_ADAPTER_NAME` names it.
    #[default]
    Auto,
    /// wgpu compute shaders, f32 (a build with the `gpu` Cargo feature; without it, refused
    /// with [`SimError::Unavailable`]).
    // `spheresim --help` shows this plain text rather than the rustdoc link above.
    #[cfg_attr(
        feature = "cli",
        value(help = "wgpu compute shaders, f32 (a build with the `gpu` Cargo feature)")
    )]
    Gpu,
    /// The CPU reference backend.
    Cpu,
    /// The exact event-driven solver, f64, for small scenes without mutual gravity, drag or
    /// soft contact (see [`crate::event`]).
    // `spheresim --help` shows this plain text rather than the rustdoc link above.
    #[cfg_attr(
        feature = "cli",
        value(
            help = "The exact event-driven solver, f64, for small scenes without mutual gravity, \
                drag or soft contact"
        )
    )]
    Event,
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Backend::Auto => "auto",
            Backend::Gpu => "gpu",
            Backend::Cpu => "cpu",
            Backend::Event => "event",
        })
    }
}

/// Errors while setting up or stepping a simulation.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// A sphere's position or velocity became NaN or infinite.
    #[error(
        "simulation became non-finite at step {step}: sphere {sphere} has a NaN or infinite \
         position, velocity or angular velocity; likely cause: {cause}"
    )]
    NonFinite {
        /// Step at which it was detected (1 = after the first step).
        step: u64,
        /// Input id of the sphere (lowest such id).
        sphere: u32,
        /// The time step, s.
        dt: f64,
        /// The likely cause ([`likely_cause`]): the time step, f32 overflow or the mass range.
        cause: String,
    },
    /// A sphere's speed or distance from the scene's centre passed the magnitude guard's bound
    /// ([`crate::physics::guard`]): the run blew up, although every number may be finite.
    #[error(
        "the run blew up at step {step}: sphere {sphere}'s {quantity} passed the magnitude \
         guard's bound ({value}; docs/physics.md §7); likely cause: {cause}"
    )]
    Runaway {
        /// Step at which it was detected (1 = after the first step).
        step: u64,
        /// Input id of the sphere (lowest such id).
        sphere: u32,
        /// "speed" or "distance from the scene's centre".
        quantity: &'static str,
        /// The value and the bound, with units, e.g. "4.1e17 m/s against 212 m/s".
        value: String,
        /// The likely cause ([`likely_cause`]).
        cause: String,
    },
    /// The requested backend is not available in this build or on this machine.
    #[error("backend '{backend}' is not available: {reason}")]
    Unavailable {
        /// The backend asked for.
        backend: Backend,
        /// Why.
        reason: String,
    },
    /// The GPU backend failed to start (no adapter, scene too large, …). Only with the `gpu`
    /// feature; without it the GPU backend is [`SimError::Unavailable`] ([`no_gpu_feature`]).
    #[cfg(feature = "gpu")]
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// The CPU backend would need more memory than the machine has available.
    #[error(
        "scene too large for this machine: the CPU backend needs about {need} bytes for \
         {spheres} spheres, over the {available} bytes available (MemAvailable); at most about \
         {fits} spheres fit"
    )]
    TooLarge {
        /// Spheres in the scene.
        spheres: usize,
        /// Estimated bytes ([`CpuBackend::memory_estimate`]).
        need: u64,
        /// Bytes the operating system reports available.
        available: u64,
        /// Spheres that would fit.
        fits: u64,
    },
    /// The event-driven solver refused the scene or hit an inelastic collapse.
    #[error(transparent)]
    Event(#[from] EventError),
    /// A plain `&Scene` given to [`Simulation::new`] (or a sibling) failed [`Scene::check`].
    #[error(transparent)]
    Scene(#[from] SceneError),
}

/// The refusal of `backend` (the GPU, or a GPU checkpoint's exact resume) in a build without
/// the `gpu` Cargo feature.
pub fn no_gpu_feature(backend: Backend) -> SimError {
    SimError::Unavailable {
        backend,
        reason: "this spheresim library was built without the `gpu` Cargo feature (wgpu); \
                 enable it, or use the CPU backend"
            .to_string(),
    }
}

/// Bytes the OS reports available to new allocations (Linux `MemAvailable`); `None` elsewhere.
pub(crate) fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The notice of `--backend gpu` on a software adapter: why it is slow, and why one would
/// still use it.
pub fn software_notice(adapter: &str) -> String {
    format!(
        "the GPU backend runs on a software adapter, {adapter}: the shaders execute on the CPU, \
         many times slower than {}; use it to check the GPU path without a GPU",
        Setting::BackendCpu
    )
}

/// Checks that the CPU backend's estimated memory for `n` spheres in `precision`, with the
/// friction history when `history` ([`CpuBackend::memory_estimate`]), fits in `available` bytes
/// (`None`: unknown, accepted).
///
/// # Errors
/// [`SimError::TooLarge`] with the estimate, the bytes available and the spheres that would fit.
pub fn check_cpu_memory(
    n: usize,
    history: bool,
    precision: Precision,
    available: Option<u64>,
) -> Result<(), SimError> {
    check_cpu_memory_with_tree(n, history, false, false, precision, available)
}

/// [`check_cpu_memory`], adding the gravity tree's
/// [`bytes_per_body`](crate::cpu::tree::bytes_per_body) per sphere when `tree`, and rotation's
/// state when `rotation`.
///
/// # Errors
/// As [`check_cpu_memory`].
pub fn check_cpu_memory_with_tree(
    n: usize,
    history: bool,
    tree: bool,
    rotation: bool,
    precision: Precision,
    available: Option<u64>,
) -> Result<(), SimError> {
    let tree_bytes = |per: u64| if tree { per * n as u64 } else { 0 };
    let need = match precision {
        Precision::F32 => {
            CpuBackend::<f32>::memory_estimate(n, history, rotation)
                + tree_bytes(crate::cpu::tree::bytes_per_body::<f32>())
        }
        Precision::F64 => {
            CpuBackend::<f64>::memory_estimate(n, history, rotation)
                + tree_bytes(crate::cpu::tree::bytes_per_body::<f64>())
        }
    };
    log::info!(
        "CPU memory estimate for {n} spheres: {:.1} MiB",
        need as f64 / 1048576.0
    );
    match available {
        Some(available) if need > available => {
            let per = need.div_ceil(n.max(1) as u64).max(1);
            Err(SimError::TooLarge {
                spheres: n,
                need,
                available,
                fits: available / per,
            })
        }
        _ => Ok(()),
    }
}

/// The CPU engine for `scene`, refused before allocation when its estimated memory exceeds what
/// the machine has available.
fn cpu_engine(scene: &Scene, precision: Precision) -> Result<Box<dyn Engine>, SimError> {
    check_cpu_memory_with_tree(
        scene.spheres.len(),
        crate::setup::contact_history(scene),
        scene.sim.gravity_solver == crate::scene::GravitySolver::Tree,
        scene.sim.rotation,
        precision,
        available_memory(),
    )?;
    Ok(match precision {
        Precision::F32 => Box::new(CpuBackend::<f32>::new(scene)),
        Precision::F64 => Box::new(CpuBackend::<f64>::new(scene)),
    })
}

/// Host bytes `backend` needs, besides the scene itself, to set up a scene of `n` spheres like
/// `scene` (its contact law, rotation and gravity solver; the sphere count of `scene` is not
/// used), for refusing a built-in scene before it is built
/// ([`builtin::check_size`](crate::scene::builtin::check_size)).
///
/// Every backend packs the scene first ([`PackedScene`](crate::setup::PackedScene): three
/// `DVec3` and eight `f64` per sphere). Then the CPU adds
/// [`CpuBackend::memory_estimate`] in `precision` (and the gravity tree's bytes per body with
/// tree gravity); the GPU adds its upload arrays (position, velocity, acceleration and
/// properties as `[f32; 4]`, the `u32` id, three `[f32; 4]` with rotation) twice, for wgpu's
/// staging copies; its device buffers are checked against the adapter's limits when it starts.
/// `Auto` counts the GPU's (a CPU fallback checks its own estimate before allocating) and the
/// event-driven solver the packing alone (it takes at most 20 000 spheres).
pub fn host_memory_estimate(backend: Backend, precision: Precision, scene: &Scene, n: u64) -> u64 {
    use std::mem::size_of;
    let packed = n * (3 * size_of::<glam::DVec3>() + 8 * size_of::<f64>()) as u64;
    let rotation = scene.sim.rotation;
    match backend {
        Backend::Cpu => {
            let tree = scene.sim.gravity_solver == crate::scene::GravitySolver::Tree;
            let history = crate::setup::contact_history(scene);
            let (own, per_body) = match precision {
                Precision::F32 => (
                    CpuBackend::<f32>::memory_estimate(n as usize, history, rotation),
                    crate::cpu::tree::bytes_per_body::<f32>(),
                ),
                Precision::F64 => (
                    CpuBackend::<f64>::memory_estimate(n as usize, history, rotation),
                    crate::cpu::tree::bytes_per_body::<f64>(),
                ),
            };
            packed + own + if tree { per_body * n } else { 0 }
        }
        Backend::Gpu | Backend::Auto => {
            let upload = 4 * 16 + 4 + if rotation { 3 * 16 } else { 0 };
            packed + 2 * upload * n
        }
        Backend::Event => packed,
    }
}

/// Wall-clock accounting of stepping (excluding loading and output).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct StepStats {
    /// Steps completed.
    pub steps: u64,
    /// Seconds spent stepping.
    pub wall_seconds: f64,
    /// Spheres × steps / seconds.
    pub particle_steps_per_second: f64,
}

/// A running simulation on one backend. Create with [`Simulation::new`] from a checked scene,
/// or [`Simulation::resume`] from a checkpoint's state.
pub struct Simulation {
    /// The backend that steps: CPU (f32 or f64), GPU or event solver.
    engine: Box<dyn Engine>,
    base: Offsets,
    backend: Backend,
    particles: usize,
    stepping: std::time::Duration,
    notice: Option<String>,
    /// The likely cause of a blow-up, for the stop's message (`dt` and the guard's bounds are
    /// the engine's [`Engine::step_params`]); with outflows or insertions it is computed from
    /// the open scene when the run stops, so that a pass does not pay for it.
    cause: String,
    /// The open system's bookkeeping, when the scene has outflows.
    open: Option<Box<OpenSystem>>,
    /// Open-system passes that changed the spheres ([`Simulation::open_passes`]).
    open_passes: u64,
}

/// What an open-system pass needs: the scene as it now runs (the spheres present, with their
/// static properties), the open state, and how to start the backend again on them.
struct OpenSystem {
    scene: Scene,
    state: OpenState,
    precision: Precision,
    gpu: GpuOptions,
}

impl OpenSystem {
    /// The spheres the insertions due at step `done` place among those of `snap` that do not
    /// leave (`leaves`), and how many found no place; each insertion's progress moves on.
    fn place_due(&mut self, done: u64, snap: &Snapshot, leaves: &[bool]) -> (Vec<Sphere>, u64) {
        // The spheres that stay, then each new one: where the next may not go.
        let (mut xs, mut rs): (Vec<_>, Vec<_>) = leaves
            .iter()
            .enumerate()
            .filter(|(_, l)| !**l)
            .map(|(i, _)| (snap.position[i], snap.radius[i]))
            .unzip();
        let scene = &self.scene;
        let planes: Vec<_> = scene.planes.iter().map(|p| (p.point, p.normal)).collect();
        let containers: Vec<_> = scene
            .containers
            .iter()
            .map(|c| (c.center, c.radius))
            .collect();
        let (mut added, mut failed) = (Vec::new(), 0);
        for (k, ins) in scene.inserts.iter().enumerate() {
            let Some(pass) = ins
                .pass_at(done)
                .filter(|_| !self.state.inserts[k].done(ins))
            else {
                continue;
            };
            let progress = &mut self.state.inserts[k];
            let around = Around {
                spheres: (&xs, &rs),
                planes: &planes,
                containers: &containers,
                periodic: &scene.sim.periodic,
            };
            let placed = ins.place(
                (k, pass, scene.sim.dt),
                &around,
                &mut progress.owed,
                progress.made,
            );
            progress.made += placed.spheres.len() as u64;
            failed += placed.failed;
            xs.extend(placed.spheres.iter().map(|s| s.position));
            rs.extend(placed.spheres.iter().map(|s| s.radius));
            added.extend(placed.spheres);
        }
        (added, failed)
    }

    /// The new spheres `added`, packed as the scene's own (`crate::setup::PackedScene`).
    fn pack(&mut self, added: &[Sphere]) -> crate::setup::PackedScene {
        let present = std::mem::replace(&mut self.scene.spheres, added.to_vec());
        let packed = crate::setup::PackedScene::new(&self.scene);
        self.scene.spheres = present;
        packed
    }

    /// True when some insertion has not reached its `total`.
    fn can_refill(&self) -> bool {
        self.scene
            .inserts
            .iter()
            .zip(&self.state.inserts)
            .any(|(i, p)| !p.done(i))
    }

    /// Whether an insertion that has not reached its `total` is due after step `done`.
    fn inserting_at(&self, done: u64) -> bool {
        self.scene
            .inserts
            .iter()
            .zip(&self.state.inserts)
            .any(|(i, p)| !p.done(i) && i.pass_at(done).is_some())
    }

    /// The first step after `done` that ends with a pass of an outflow, or of an insertion that
    /// has not reached its `total`.
    fn next_pass_after(&self, done: u64) -> u64 {
        let outflows = self
            .scene
            .outflows
            .iter()
            .map(|f| (done / f.every + 1).saturating_mul(f.every));
        let inserts = self
            .scene
            .inserts
            .iter()
            .zip(&self.state.inserts)
            .filter(|(i, p)| !p.done(i))
            .map(|(i, _)| i.next_pass_after(done));
        outflows.chain(inserts).min().unwrap_or(u64::MAX)
    }
}

/// The room a backend set up on `scene`'s spheres keeps for the insertions to come: what
/// they can still make (the insertions with a `total`), at most as many spheres as the scene
/// has.
fn scene_room(scene: &Scene, state: &OpenState) -> u64 {
    let n = scene.spheres.len() as u64;
    scene
        .inserts
        .iter()
        .zip(&state.inserts)
        .map(|(i, p)| i.total.map_or(n, |t| t.saturating_sub(p.made)))
        .fold(0u64, |a, b| a.saturating_add(b))
        .min(n)
}

/// The mass (kg) and the energy (J: kinetic, and in the uniform field `g`) the spheres
/// `added` bring in. A new sphere touches nothing; under mutual gravity its pair terms fall
/// to `removed_energy`, which keeps the balance.
fn inserted(added: &[Sphere], g: glam::DVec3) -> (f64, f64) {
    let mass = added.iter().map(|s| s.mass).sum();
    let energy = added
        .iter()
        .map(|s| 0.5 * s.mass * s.velocity.length_squared() - s.mass * g.dot(s.position))
        .sum();
    (mass, energy)
}

/// The offsets after an open-system pass: `rest` with the ledger of the `gone` spheres (count,
/// mass in kg) and the `inserted` ones (count, mass in kg, energy in J), from the diagnostics
/// before and after the pass. What left took the mechanical energy the pass removed, less what
/// came in.
fn after_pass(
    (before, after): (&Diagnostics, &Diagnostics),
    gone: (u64, f64),
    inserted: (u64, f64, f64),
    rest: Offsets,
) -> Offsets {
    Offsets {
        removed_spheres: before.removed_spheres + gone.0,
        removed_mass: before.removed_mass + gone.1,
        removed_energy: before.removed_energy + before.total_energy() - after.total_energy()
            + inserted.2,
        inserted_spheres: before.inserted_spheres + inserted.0,
        inserted_mass: before.inserted_mass + inserted.1,
        inserted_energy: before.inserted_energy + inserted.2,
        ..rest
    }
}

/// The bookkeeping of a run with outflows or insertions that a checkpoint keeps
/// ([`Simulation::open_state`]).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct OpenState {
    /// The id of each sphere present, in the order of the snapshots: a sphere keeps the id it
    /// started with (or was inserted with) for the whole run.
    pub ids: Vec<u64>,
    /// The id the next inserted sphere gets.
    pub next_id: u64,
    /// Per insertion of the scene ([`Scene::inserts`]): what it has made.
    pub inserts: Vec<InsertProgress>,
    /// Spheres the backend holds room for (its buffers, on the GPU): a pass whose spheres fit
    /// runs inside the backend's binning (`crate::removal`); one that does not sets the backend
    /// up again, with room for the insertions to come, up to as many spheres again.
    pub capacity: u64,
}

/// What one insertion has made so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InsertProgress {
    /// Spheres placed so far.
    pub made: u64,
    /// The fraction of a sphere (`rate`) or the kilograms (`mass_rate`) carried to the next
    /// pass.
    pub owed: f64,
}

impl InsertProgress {
    /// Whether `insert` has made its `total`.
    fn done(&self, insert: &Insert) -> bool {
        insert.total.is_some_and(|t| self.made >= t)
    }
}

/// The likely cause of a run of `scene` blowing up, computed in f32 (`f32`) or f64, for the
/// stop's message:
///
/// * overflow, when the largest gravitational acceleration `G M / (2 r_min)²`, a mass or the
///   guard's speed bound comes within about 10⁸ of the format's largest value (f32: 3.4e38),
///   where squares and products overflow;
/// * the mass range, when the heaviest movable sphere outweighs the lightest by more than the
///   format resolves (`1/ε`: 8.4e6 in f32, 4.5e15 in f64), so that the light sphere's share of a
///   pair's momentum rounds away;
/// * else the time step, with the time-step check's suggestion for a soft contact law.
pub fn likely_cause(scene: &Scene, f32: bool) -> String {
    let (max, eps, name) = if f32 {
        (f32::MAX as f64, f32::EPSILON as f64, "f32")
    } else {
        (f64::MAX, f64::EPSILON, "f64")
    };
    let near = max / 1e8;
    let movable: Vec<f64> = scene
        .spheres
        .iter()
        .filter(|s| !s.fixed)
        .map(|s| s.mass)
        .collect();
    let heaviest = movable.iter().copied().fold(0.0, f64::max);
    let lightest = movable.iter().copied().fold(f64::INFINITY, f64::min);
    let r_min = scene.smallest_radius();
    let all_mass: f64 = scene
        .spheres
        .iter()
        .map(|s| s.mass)
        .filter(|m| m.is_finite())
        .sum();
    let accel = scene.sim.g_const * all_mass / (2.0 * r_min).powi(2);
    let speed = crate::physics::guard::Bounds::of_scene(scene).speed;
    if accel > near || heaviest > near || speed * speed > near {
        return format!(
            "{name} overflow: the scene's values reach the edge of {name}'s range ({max:.1e}): \
             mutual gravity's largest pull G M/(2 r_min)² is {accel:.2e} m/s², the heaviest \
             sphere {heaviest:.2e} kg{}",
            if f32 {
                format!("; run it with {}, or rescale the units", Setting::CpuF64)
            } else {
                "; rescale the units".to_string()
            }
        );
    }
    if lightest > 0.0 && heaviest / lightest > 1.0 / eps {
        return format!(
            "the mass range: the heaviest movable sphere ({heaviest:.2e} kg) is {:.1e} times \
             the lightest ({lightest:.2e} kg), more than {name} resolves ({:.1e}){}",
            heaviest / lightest,
            1.0 / eps,
            if f32 {
                format!("; use {}, or fix the heavy spheres", Setting::CpuF64)
            } else {
                "; fix the heavy spheres".to_string()
            }
        );
    }
    match scene.contact_time() {
        Some(t) => format!(
            "the time step: dt = {:e} s against the shortest contact's t_c/20 = {:.2e} s; \
             use a smaller {}",
            scene.sim.dt,
            t.suggested_dt(),
            Setting::Dt
        ),
        None => format!(
            "the time step: dt = {:e} s is too long for the scene's fastest encounters; use a \
             smaller {}{}",
            scene.sim.dt,
            Setting::Dt,
            if scene.sim.g_const > 0.0 {
                " or a softening length"
            } else {
                ""
            }
        ),
    }
}

impl Simulation {
    /// Sets up `scene` on `backend` in `precision`. `scene` is a
    /// [`CheckedScene`](crate::scene::CheckedScene) (from [`Scene::check`]), or a plain `&Scene`
    /// that is checked here first ([`SceneInput`]: overlaps allowed).
    ///
    /// `Backend::Auto` takes the GPU when an adapter opens (and the precision is f32), else the
    /// CPU, and leaves a [`Simulation::notice`] saying so.
    ///
    /// # Errors
    /// `SimError::Gpu` when the GPU backend was asked for and cannot run the scene (no adapter,
    /// too large); [`SimError::Unavailable`] for f64 on the GPU, or for the GPU in a build
    /// without the `gpu` feature ([`no_gpu_feature`]); [`SimError::Event`] when the
    /// event-driven solver refuses the scene (mutual gravity, drag, soft contact, too many
    /// spheres); [`SimError::Scene`] when a plain `&Scene` fails its check. The event backend
    /// always computes in f64, whatever `precision` says.
    pub fn new<'a>(
        scene: impl SceneInput<'a>,
        backend: Backend,
        precision: Precision,
    ) -> Result<Self, SimError> {
        Self::with_gpu_options(scene, backend, precision, GpuOptions::default())
    }

    /// As [`Simulation::new`], with options for the GPU backend. `--backend gpu` on a software
    /// adapter leaves a [`Simulation::notice`] saying that it runs on the CPU.
    pub fn with_gpu_options<'a>(
        scene: impl SceneInput<'a>,
        backend: Backend,
        precision: Precision,
        gpu: GpuOptions,
    ) -> Result<Self, SimError> {
        let mut sim = Self::start(&*scene.into_checked_scene()?, backend, precision, gpu)?;
        sim.fill()?;
        Ok(sim)
    }

    /// An insertion that starts at step 0 fills the scene before the first step: part of the
    /// set-up, so not counted in [`Simulation::open_passes`]. (A resume comes through `start`
    /// alone: its scene holds what that pass made.)
    fn fill(&mut self) -> Result<(), SimError> {
        self.open_pass()?;
        self.open_passes = 0;
        Ok(())
    }

    /// [`Simulation::with_gpu_options`] on a scene that passed [`Scene::check`] (or a checked
    /// scene whose positions and velocities a checkpoint replaced with finite values).
    fn start(
        scene: &Scene,
        backend: Backend,
        precision: Precision,
        gpu: GpuOptions,
    ) -> Result<Self, SimError> {
        let mut notice = None;
        let (engine, backend) = match backend {
            Backend::Event if scene.sim.rotation => {
                return Err(SimError::Unavailable {
                    backend,
                    reason: format!(
                        "the event-driven solver has no rotation (`rotation = true`); use {}",
                        Setting::BackendCpuOrGpu
                    ),
                });
            }
            Backend::Event if scene.sim.periodic.any() => {
                return Err(SimError::Unavailable {
                    backend,
                    reason: format!(
                        "the event-driven solver has no periodic boundaries; use {}",
                        Setting::BackendCpuOrGpu
                    ),
                });
            }
            Backend::Event => (
                Box::new(EventBackend::new(scene)?) as Box<dyn Engine>,
                Backend::Event,
            ),
            Backend::Gpu if precision == Precision::F64 => {
                return Err(SimError::Unavailable {
                    backend,
                    reason: format!(
                        "the GPU backend computes in f32; use {} or {}",
                        Setting::PrecisionF32,
                        Setting::BackendCpu
                    ),
                });
            }
            #[cfg(not(feature = "gpu"))]
            Backend::Gpu => {
                let _ = gpu;
                return Err(no_gpu_feature(backend));
            }
            #[cfg(not(feature = "gpu"))]
            Backend::Auto if precision == Precision::F32 => {
                notice = Some(
                    "built without the `gpu` Cargo feature: running on the CPU backend".to_string(),
                );
                (cpu_engine(scene, precision)?, Backend::Cpu)
            }
            #[cfg(feature = "gpu")]
            Backend::Gpu => {
                let g = GpuBackend::new(scene, gpu)?;
                if g.is_software() {
                    notice = Some(software_notice(&g.adapter_name()));
                }
                (Box::new(g) as Box<dyn Engine>, Backend::Gpu)
            }
            #[cfg(feature = "gpu")]
            Backend::Auto if precision == Precision::F32 => {
                let cpu = |notice: &mut Option<String>, why: String| {
                    *notice = Some(why);
                    Ok::<_, SimError>((cpu_engine(scene, precision)?, Backend::Cpu))
                };
                match crate::gpu::GpuContext::new() {
                    // A software rasteriser is slower than the CPU backend on the same cores:
                    // take it only when the user names it (WGPU_ADAPTER_NAME) or asks for
                    // --backend gpu.
                    Ok(ctx)
                        if ctx.is_software() && std::env::var_os("WGPU_ADAPTER_NAME").is_none() =>
                    {
                        cpu(
                            &mut notice,
                            format!(
                                "the only GPU adapter is a software one ({}); running on the CPU \
                                 backend ({} runs on it anyway)",
                                ctx.adapter_name(),
                                Setting::BackendGpu
                            ),
                        )?
                    }
                    Ok(ctx) => match GpuBackend::with_context(ctx, scene, gpu) {
                        Ok(g) => (Box::new(g) as Box<dyn Engine>, Backend::Gpu),
                        Err(e) => cpu(
                            &mut notice,
                            format!("GPU backend unavailable ({e}); running on the CPU"),
                        )?,
                    },
                    Err(e) => cpu(
                        &mut notice,
                        format!("GPU backend unavailable ({e}); running on the CPU"),
                    )?,
                }
            }
            Backend::Auto | Backend::Cpu => (cpu_engine(scene, precision)?, Backend::Cpu),
        };
        Ok(
            Self::of_engine(engine, backend, scene, Offsets::default(), notice)
                .with_open(scene, precision, gpu),
        )
    }

    /// The simulation of `scene` stepped by `engine` (which is `backend`), with `base` the
    /// counters from before a conversion of backend or precision (zero otherwise). The stop's
    /// message computes its likely cause in the engine's precision.
    fn of_engine(
        engine: Box<dyn Engine>,
        backend: Backend,
        scene: &Scene,
        base: Offsets,
        notice: Option<String>,
    ) -> Self {
        let f32 = engine.precision() == Precision::F32;
        Self {
            engine,
            base,
            backend,
            particles: scene.spheres.len(),
            stepping: std::time::Duration::ZERO,
            notice,
            cause: likely_cause(scene, f32),
            open: None,
            open_passes: 0,
        }
    }

    /// Keeps what the open-system passes of `scene` need, when it has outflows or insertions.
    fn with_open(mut self, scene: &Scene, precision: Precision, gpu: GpuOptions) -> Self {
        if scene.is_open() {
            let n = scene.spheres.len() as u64;
            self.open = Some(Box::new(OpenSystem {
                scene: scene.clone(),
                state: OpenState {
                    ids: (0..n).collect(),
                    next_id: n,
                    inserts: vec![InsertProgress::default(); scene.inserts.len()],
                    capacity: n,
                },
                precision,
                gpu,
            }));
        }
        self
    }

    /// Why `Backend::Auto` did not take the GPU, if it did not; that `Backend::Gpu` runs on a
    /// software adapter ([`software_notice`]), if it does.
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// The backend actually running (never `Auto`).
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The device the backend runs on, e.g. the CPU's core count.
    pub fn adapter(&self) -> String {
        self.engine.adapter()
    }

    /// Number of spheres.
    pub fn particles(&self) -> usize {
        self.particles
    }

    /// Advances `n` steps. Stops at the first non-finite state with [`SimError::NonFinite`].
    ///
    /// With outflows or insertions, each step that is a multiple of one's `every` ends with an
    /// open-system pass: the movable spheres whose centres lie in a due outflow leave, and each
    /// due insertion places its new spheres. The CPU and GPU backends take them out and put
    /// them in inside their binning, on their buffers, where their room holds the new spheres
    /// ([`OpenState::capacity`]); otherwise the backend starts again on the spheres present,
    /// from their state (positions, velocities, angular velocities, orientations, images). The
    /// contacts of the spheres that stay keep their history (friction's tangential springs,
    /// the rolling springs) either way; the event solver predicts every event afresh
    /// (docs/open-systems.md).
    ///
    /// # Errors
    /// As above, and [`SimError::Unavailable`] when the last movable spheres leave.
    pub fn step(&mut self, n: u64) -> Result<(), SimError> {
        if n == 0 || self.open.is_none() {
            return self.step_engine(n);
        }
        let mut left = n;
        while left > 0 {
            let done = self.steps_done();
            let next = self
                .open
                .as_ref()
                .map_or(u64::MAX, |o| o.next_pass_after(done));
            let chunk = (next - done).min(left);
            self.step_engine(chunk)?;
            left -= chunk;
            // A pass is part of the stepping: its time counts in `stepping`.
            let t0 = std::time::Instant::now();
            let pass = self.open_pass();
            self.stepping += t0.elapsed();
            pass?;
        }
        Ok(())
    }

    /// The outflows and insertions due at this step take spheres out and put new ones in (see
    /// [`Simulation::step`]).
    fn open_pass(&mut self) -> Result<(), SimError> {
        let done = self.steps_done();
        let Some(open) = &self.open else {
            return Ok(());
        };
        let outflows: Vec<_> = open
            .scene
            .outflows
            .iter()
            .filter(|f| done > 0 && done.is_multiple_of(f.every))
            .copied()
            .collect();
        let inserting = open.inserting_at(done);
        if outflows.is_empty() && !inserting {
            return Ok(());
        }
        let snap = self.snapshot();
        let open = self.open.as_mut().expect("checked above");
        let leaves: Vec<bool> = open
            .scene
            .spheres
            .iter()
            .zip(&snap.position)
            .map(|(s, &x)| !s.fixed && outflows.iter().any(|f| f.takes(x)))
            .collect();
        let gone = leaves.iter().filter(|&&l| l).count();
        let (added, failed) = if inserting {
            open.place_due(done, &snap, &leaves)
        } else {
            (Vec::new(), 0)
        };
        self.base.insertion_failures += failed;
        if gone == 0 && added.is_empty() {
            return Ok(());
        }
        // Fixed spheres alone may wait for an insertion that can still add some; an empty
        // scene cannot run.
        let stay = leaves.iter().filter(|&&l| !l).count() + added.len();
        let moving = open
            .scene
            .spheres
            .iter()
            .zip(&leaves)
            .filter(|(s, l)| !s.fixed && !**l)
            .count()
            + added.len();
        if stay == 0 || (moving == 0 && !open.can_refill()) {
            return Err(SimError::Unavailable {
                backend: self.backend,
                reason: format!(
                    "every movable sphere has left through the outflows by step {done} ({} \
                     removed) and no insertion can add more: nothing is left to simulate",
                    self.base.removed_spheres + gone as u64
                ),
            });
        }
        // Inside the backend's binning where its room holds the new spheres (`crate::removal`).
        let room = leaves.len() + added.len() <= open.state.capacity as usize;
        let packed = room.then(|| open.pack(&added));
        let before = self.diagnostics();
        if let Some(packed) = packed {
            let backend = self.backend;
            let native = self
                .engine
                .exchange_spheres(&leaves, &packed)
                .map_err(|reason| SimError::Unavailable { backend, reason })?;
            if native {
                self.exchanged_in_binning(&snap, &leaves, added, &before);
                return Ok(());
            }
        }
        // The contacts of the spheres that stay keep their history across the new set-up.
        let memory = self.engine.contact_memory();
        let OpenSystem {
            mut scene,
            mut state,
            precision,
            gpu,
        } = *self.open.take().expect("checked above");
        let mut ids = Vec::with_capacity(state.ids.len() - gone + added.len());
        let mut removed_mass = 0.0;
        let spheres = std::mem::take(&mut scene.spheres);
        scene
            .spheres
            .reserve_exact(spheres.len() - gone + added.len());
        for (i, mut s) in spheres.into_iter().enumerate() {
            if leaves[i] {
                removed_mass += s.mass;
                continue;
            }
            s.take_state(&snap, i);
            scene.spheres.push(s);
            ids.push(state.ids[i]);
        }
        let (inserted_mass, inserted_energy) = inserted(&added, scene.sim.gravity);
        let inserted = added.len() as u64;
        for s in added {
            scene.spheres.push(s);
            ids.push(state.next_id);
            state.next_id += 1;
        }
        // Room for the insertions to come, up to as many spheres again (the list's rule).
        state.capacity = scene.spheres.len() as u64 + scene_room(&scene, &state);
        let gpu_room = GpuOptions {
            sphere_capacity: Some(state.capacity as usize),
            ..gpu
        };
        self.engine = match self.engine_for(&scene, precision, gpu_room) {
            Ok(engine) => engine,
            // A device that holds the spheres but not the room: no room.
            Err(_) if state.capacity > scene.spheres.len() as u64 => {
                state.capacity = scene.spheres.len() as u64;
                self.engine_for(&scene, precision, gpu)?
            }
            Err(e) => return Err(e),
        };
        if let Some(memory) = memory {
            let mut next = 0;
            let new_id: Vec<Option<u32>> = leaves
                .iter()
                .map(|&gone| {
                    (!gone).then(|| {
                        next += 1;
                        next - 1
                    })
                })
                .collect();
            let memory = memory.renumber(&new_id, scene.spheres.len());
            self.restore_contact_memory(&memory)?;
        }
        if !snap.orientation.is_empty() {
            // New spheres start at the identity, as at a run's start.
            let orientation: Vec<glam::DQuat> = snap
                .orientation
                .iter()
                .zip(&leaves)
                .filter(|&(_, &gone)| !gone)
                .map(|(&q, _)| q)
                .chain(std::iter::repeat(glam::DQuat::IDENTITY))
                .take(scene.spheres.len())
                .collect();
            self.set_orientations(&orientation)?;
        }
        self.open_passes += 1;
        self.particles = scene.spheres.len();
        // `cause` is computed from the open scene if the run stops (`stopped`): a pass need not.
        let after = self.engine.diagnostics();
        self.base = after_pass(
            (&before, &after),
            (gone as u64, removed_mass),
            (inserted, inserted_mass, inserted_energy),
            Offsets::of(&before),
        );
        state.ids = ids;
        self.open = Some(Box::new(OpenSystem {
            scene,
            state,
            precision,
            gpu,
        }));
        Ok(())
    }

    /// The bookkeeping of a pass whose backend took the spheres with `leaves[i]` out and put
    /// `added` in inside its binning ([`Engine::exchange_spheres`]): the open scene and the
    /// ids lose the first and gain the second, and the ledger books their mass and energy.
    /// `snap` and `before` are the state and the diagnostics before the pass. The backend kept
    /// its counters, but not its dissipated energy, which moves to the offsets as after a new
    /// set-up.
    fn exchanged_in_binning(
        &mut self,
        snap: &Snapshot,
        leaves: &[bool],
        added: Vec<Sphere>,
        before: &Diagnostics,
    ) {
        let open = self.open.as_mut().expect("a pass has an open system");
        let g = open.scene.sim.gravity;
        let (inserted_mass, inserted_energy) = inserted(&added, g);
        let inserted = added.len() as u64;
        let spheres = std::mem::take(&mut open.scene.spheres);
        let mut removed_mass = 0.0;
        let mut ids = Vec::with_capacity(spheres.len());
        for (i, mut s) in spheres.into_iter().enumerate() {
            if leaves[i] {
                removed_mass += s.mass;
                continue;
            }
            s.take_state(snap, i);
            open.scene.spheres.push(s);
            ids.push(open.state.ids[i]);
        }
        for s in added {
            open.scene.spheres.push(s);
            ids.push(open.state.next_id);
            open.state.next_id += 1;
        }
        open.state.ids = ids;
        let gone = leaves.iter().filter(|&&l| l).count() as u64;
        self.particles = open.scene.spheres.len();
        self.open_passes += 1;
        let after = self.engine.diagnostics();
        let kept = Offsets {
            dissipated: before.dissipated,
            ..self.base
        };
        self.base = after_pass(
            (before, &after),
            (gone, removed_mass),
            (inserted, inserted_mass, inserted_energy),
            kept,
        );
    }

    /// A backend of this simulation's kind on `scene` (checked when the run began; its spheres
    /// moved since), on the same GPU device when it runs on one.
    fn engine_for(
        &self,
        scene: &Scene,
        precision: Precision,
        gpu: GpuOptions,
    ) -> Result<Box<dyn Engine>, SimError> {
        match self.backend {
            #[cfg(feature = "gpu")]
            Backend::Gpu => {
                let g = match self.engine.gpu() {
                    Some(g) => GpuBackend::with_context(g.context().clone(), scene, gpu)?,
                    None => GpuBackend::new(scene, gpu)?,
                };
                Ok(Box::new(g))
            }
            // Predicted afresh from the spheres present: what the solver remembers between
            // events (resting contacts, the TC model's recent collisions) starts again.
            Backend::Event => Ok(Box::new(EventBackend::new(scene)?)),
            _ => {
                let _ = gpu;
                cpu_engine(scene, precision)
            }
        }
    }

    /// The scene as it runs now, in a run with outflows or insertions: the spheres present,
    /// with their static properties (positions and velocities as of the last pass). A
    /// checkpoint stores this scene. `None` without outflows and insertions.
    pub fn open_scene(&self) -> Option<&Scene> {
        self.open.as_ref().map(|o| &o.scene)
    }

    /// Open-system passes so far that took spheres out or put new ones in. Each changes the
    /// spheres present, inside the backend's binning on its buffers or by starting it again on
    /// new ones (docs/open-systems.md): a drawing of the run binds them again when this
    /// changes. 0 without outflows and insertions, and for the fill before the first step
    /// (`start = 0`), which is part of the run's set-up.
    pub fn open_passes(&self) -> u64 {
        self.open_passes
    }

    /// The open system's bookkeeping (ids, what each insertion made), for a checkpoint; `None`
    /// without outflows and insertions.
    pub fn open_state(&self) -> Option<&OpenState> {
        self.open.as_ref().map(|o| &o.state)
    }

    /// The id of each sphere, in the order of [`Simulation::snapshot`]: `0..n` unless outflows
    /// removed spheres or insertions added some (every sphere keeps its id).
    pub fn ids(&self) -> Vec<u64> {
        match &self.open {
            Some(o) => o.state.ids.clone(),
            None => (0..self.particles as u64).collect(),
        }
    }

    /// The contacts' history ([`crate::history`]): what each contact keeps from one step to
    /// the next (friction's ξ, the Hertz law's first-touch speed, the rolling spring). A sphere
    /// is named by its index in [`Simulation::snapshot`]'s order ([`Simulation::ids`] gives
    /// its id). `None` where none is kept: a law without history, or the event solver. Reads
    /// the list back from the GPU on that backend.
    pub fn contact_memory(&self) -> Option<crate::history::ContactMemory> {
        self.engine.contact_memory()
    }

    /// Gives the contacts the history `memory` (spheres named by their index in
    /// [`Simulation::snapshot`]'s order, as [`Simulation::contact_memory`] names them) and
    /// evaluates the forces of the current state again with it. Meant for a simulation just
    /// started or resumed: a run started again from a changed state keeps its contacts'
    /// springs this way. Nothing to do where no history is kept.
    ///
    /// # Errors
    /// [`SimError::Unavailable`] when `memory` names other walls or more spheres.
    pub fn restore_contact_memory(
        &mut self,
        memory: &crate::history::ContactMemory,
    ) -> Result<(), SimError> {
        let backend = self.backend;
        self.engine
            .restore_contact_memory(memory)
            .map_err(|reason| SimError::Unavailable { backend, reason })
    }

    /// Sets each sphere's orientation (unit quaternions, in [`Simulation::snapshot`]'s order)
    /// of a simulation just started or resumed, which starts them at the identity: a run
    /// started again from a changed state keeps its spheres' orientations this way. Nothing
    /// to do without rotation.
    ///
    /// # Errors
    /// [`SimError::Unavailable`] when `orientation` does not hold one quaternion a sphere.
    pub fn set_orientations(&mut self, orientation: &[glam::DQuat]) -> Result<(), SimError> {
        let backend = self.backend;
        self.engine
            .set_orientations(orientation)
            .map_err(|reason| SimError::Unavailable { backend, reason })
    }

    /// Continues with the open state a checkpoint saved ([`Simulation::open_state`]); nothing
    /// to do for a scene without outflows and insertions.
    ///
    /// # Errors
    /// [`SimError::Unavailable`] when `state` does not fit the scene (one id a sphere, one
    /// entry an insertion).
    pub fn restore_open_state(&mut self, state: &OpenState) -> Result<(), SimError> {
        let Some(o) = &mut self.open else {
            return Ok(());
        };
        if state.ids.len() != self.particles || state.inserts.len() != o.scene.inserts.len() {
            return Err(SimError::Unavailable {
                backend: self.backend,
                reason: format!(
                    "the checkpoint's open state names {} sphere ids and {} insertions for {} \
                     spheres and {} insertions",
                    state.ids.len(),
                    state.inserts.len(),
                    self.particles,
                    o.scene.inserts.len()
                ),
            });
        }
        o.state = state.clone();
        Ok(())
    }

    /// Advances the backend `n` steps.
    fn step_engine(&mut self, n: u64) -> Result<(), SimError> {
        let t0 = std::time::Instant::now();
        let result = self.engine.step(n);
        self.stepping += t0.elapsed();
        match result {
            Ok(()) => Ok(()),
            Err(Halt::Guard { step, sphere }) => Err(self.stopped(self.base.step + step, sphere)),
            Err(Halt::Failed(e)) => Err(e),
        }
    }

    /// The error of a stop at `step` on sphere `sphere`: [`SimError::NonFinite`] when its state
    /// is not finite, else [`SimError::Runaway`] naming the quantity past its guard bound. The
    /// values are the state's now: on the GPU a submission may have run a few steps past the
    /// stop.
    fn stopped(&mut self, step: u64, sphere: u32) -> SimError {
        let dt = self.engine.step_params().dt;
        let cause = match &self.open {
            Some(o) => likely_cause(&o.scene, self.engine.precision() == Precision::F32),
            None => self.cause.clone(),
        };
        let snap = self.snapshot();
        let i = sphere as usize;
        let (x, v) = (
            snap.position.get(i).copied().unwrap_or(glam::DVec3::NAN),
            snap.velocity.get(i).copied().unwrap_or(glam::DVec3::NAN),
        );
        let w = snap
            .angular_velocity
            .get(i)
            .copied()
            .unwrap_or(glam::DVec3::ZERO);
        if !(x.is_finite() && v.is_finite() && w.is_finite()) {
            return SimError::NonFinite {
                step,
                sphere,
                dt,
                cause,
            };
        }
        let b = &self.engine.step_params().guard;
        let (speed, distance) = crate::physics::guard::guard_bounds::<f64>(
            step.min(u32::MAX as u64) as u32,
            dt,
            b.speed,
            b.accel,
            b.distance,
        );
        let r = (x - b.centre).length();
        let (quantity, value) = if v.length() > speed || r <= distance {
            // Past the speed bound, or (moved on since the stop) past neither.
            (
                "speed",
                format!("{:.3e} m/s against {speed:.3e} m/s", v.length()),
            )
        } else {
            (
                "distance from the scene's centre",
                format!("{r:.3e} m against {distance:.3e} m"),
            )
        };
        SimError::Runaway {
            step,
            sphere,
            quantity,
            value,
            cause,
        }
    }

    /// The force the spheres exerted on each wall in the last step, N, in the scene's order
    /// (its planes, then its containers; a box container's six planes among the planes):
    /// minus the sum of the forces each wall exerts on the spheres. Empty unless the scene
    /// records wall forces (`[simulation] wall_forces = true`, soft laws only); zero before the
    /// first step.
    pub fn wall_forces(&self) -> Vec<glam::DVec3> {
        self.engine.wall_forces()
    }

    /// Steps completed.
    pub fn steps_done(&self) -> u64 {
        self.base.step + self.engine.steps_done()
    }

    /// Simulated time, s.
    pub fn time(&self) -> f64 {
        self.steps_done() as f64 * self.engine.step_params().dt
    }

    /// Diagnostics of the current state.
    pub fn diagnostics(&mut self) -> Diagnostics {
        let mut d = self.engine.diagnostics();
        if self.base.step > 0 {
            d.step = self.steps_done();
            d.time = self.time();
        }
        // Zero unless the backend was replaced (the dissipated energy: or a pass ran inside
        // its binning).
        d.collisions += self.base.collisions;
        d.dissipated += self.base.dissipated;
        d.friction_history_dropped += self.base.history_dropped;
        d.neighbour_rebuilds += self.base.rebuilds;
        d.removed_spheres = self.base.removed_spheres;
        d.removed_mass = self.base.removed_mass;
        d.removed_energy = self.base.removed_energy;
        d.inserted_spheres = self.base.inserted_spheres;
        d.inserted_mass = self.base.inserted_mass;
        d.inserted_energy = self.base.inserted_energy;
        d.insertion_failures = self.base.insertion_failures;
        d
    }

    /// The current state in input order.
    pub fn snapshot(&mut self) -> Snapshot {
        let mut s = Snapshot::default();
        self.snapshot_into(&mut s);
        s
    }

    /// [`Simulation::snapshot`] written into `out`, reusing its vectors: once `out` has held a
    /// snapshot of this simulation, the CPU and event backends allocate nothing (the GPU backend
    /// still allocates the buffers it reads back from the device).
    pub fn snapshot_into(&mut self, out: &mut Snapshot) {
        self.engine.snapshot_into(out);
        out.id.clear();
        if let Some(o) = &self.open {
            out.id.extend_from_slice(&o.state.ids);
        }
        if self.base.step > 0 {
            out.step = self.steps_done();
            out.time = self.time();
        }
    }

    /// The precision the backend computes in (the event solver: always f64).
    pub fn precision(&self) -> Precision {
        self.engine.precision()
    }

    /// Counters carried over from before a change of backend or precision (zero otherwise);
    /// a checkpoint stores them beside [`Simulation::save_state`].
    pub fn offsets(&self) -> Offsets {
        self.base
    }

    /// Everything a later step reads, for a checkpoint ([`Simulation::resume`] continues from
    /// it with [`Simulation::offsets`]).
    ///
    /// # Errors
    /// [`SimError::Unavailable`] on the event-driven solver, whose event queue is not saved.
    pub fn save_state(&self) -> Result<EngineState, SimError> {
        self.engine.save_state()
    }

    /// Continues a checkpoint's run: `scene` is the checkpoint's, `state` its backend state,
    /// `offsets` its counters from before an earlier conversion and `at` its diagnostics. On the checkpoint's own backend and precision the state is restored
    /// exactly and the run continues bit for bit (on the GPU: on the same adapter). On another
    /// backend or precision the spheres start from the saved positions, velocities, angular
    /// velocities, orientations and periodic images, and the contacts from their saved history,
    /// all rounded to the new precision; the returned notice says that the run is not
    /// bit-identical.
    ///
    /// `scene` as for [`Simulation::new`]: a [`CheckedScene`](crate::scene::CheckedScene), or a
    /// `&Scene` checked here (overlaps allowed: they were accepted when the run started).
    ///
    /// # Errors
    /// As [`Simulation::with_gpu_options`], and [`SimError::Unavailable`] when the state does not
    /// fit the scene.
    #[allow(clippy::too_many_arguments)]
    pub fn resume<'a>(
        scene: impl SceneInput<'a>,
        state: &EngineState,
        offsets: Offsets,
        at: &Diagnostics,
        backend: Backend,
        precision: Precision,
        gpu: GpuOptions,
    ) -> Result<(Self, Option<String>), SimError> {
        let checked = scene.into_checked_scene()?;
        let scene: &Scene = &checked;
        let unusable = |reason: String| SimError::Unavailable { backend, reason };
        // Without the `gpu` feature a GPU checkpoint is converted (on `Auto`: to the CPU).
        let exact = (backend == state.backend() || backend == Backend::Auto)
            && precision == state.precision()
            && (cfg!(feature = "gpu") || !matches!(state, EngineState::Gpu(_)));
        if exact {
            let (mut engine, notice) = match state {
                EngineState::Cpu(_) => (cpu_engine(scene, precision)?, None),
                #[cfg(not(feature = "gpu"))]
                EngineState::Gpu(_) => return Err(no_gpu_feature(Backend::Gpu)),
                #[cfg(feature = "gpu")]
                EngineState::Gpu(g) => {
                    // The same room as the backend that saved it (`GpuState`'s entry).
                    let room = g.buffer(crate::gpu::SIZED_FOR).and_then(|b| {
                        Some(u32::from_le_bytes(b.get(..4)?.try_into().ok()?) as usize)
                    });
                    let gpu = GpuOptions {
                        sphere_capacity: room.or(gpu.sphere_capacity),
                        ..gpu
                    };
                    let b = GpuBackend::new(scene, gpu)?;
                    let notice = (b.adapter_name() != g.adapter).then(|| {
                        format!(
                            "the checkpoint was written on {}, this run is on {}: the \
                             continuation is not bit-identical across adapters",
                            g.adapter,
                            b.adapter_name()
                        )
                    });
                    (Box::new(b) as Box<dyn Engine>, notice)
                }
            };
            engine.restore_state(state).map_err(unusable)?;
            let sim = Self::of_engine(engine, state.backend(), scene, offsets, None).with_open(
                scene,
                state.precision(),
                gpu,
            );
            return Ok((sim, notice));
        }
        let p = state.portable(scene).map_err(unusable)?;
        let mut moved = scene.clone();
        for (i, s) in moved.spheres.iter_mut().enumerate() {
            s.position = p.position[i];
            s.velocity = p.velocity[i];
            if let Some(&w) = p.angular_velocity.get(i) {
                s.angular_velocity = w;
            }
            if let Some(&image) = p.image.get(i) {
                s.image = image;
            }
        }
        // Not checked again: only the dynamic state changed, to the checkpoint's finite values
        // (a sphere pressed into a container's wall may be deeper than the check allows).
        let mut sim = Self::start(&moved, backend, precision, gpu)?;
        if let Some(memory) = &p.memory {
            sim.restore_contact_memory(memory)?;
        }
        if !p.orientation.is_empty() {
            sim.set_orientations(&p.orientation)?;
        }
        sim.base = Offsets::of(at);
        let notice = format!(
            "resuming a {} {} checkpoint on the {} backend in {}: the state is converted (contact \
             history included), and the run is not bit-identical to an uninterrupted one",
            state.backend(),
            state.precision(),
            sim.backend(),
            sim.precision()
        );
        let notice = match sim.notice.take() {
            Some(n) => format!("{notice}; {n}"),
            None => notice,
        };
        Ok((sim, Some(notice)))
    }

    /// Seconds spent per stage so far, named as [`crate::setup::STAGES`]: wall-clock on the CPU
    /// backend (always on), GPU time from timestamp queries on the GPU backend once
    /// [`Simulation::set_profiling`] turned them on; empty otherwise.
    pub fn stage_seconds(&self) -> Vec<(&'static str, f64)> {
        self.engine.stage_seconds()
    }

    /// GPU seconds per compute pass, by label, since profiling was turned on (the GPU backend
    /// with timestamp queries); empty elsewhere.
    pub fn pass_seconds(&self) -> Vec<(&'static str, f64)> {
        self.engine.pass_seconds()
    }

    /// Turns per-stage timing on or off and returns whether per-stage times are available: always
    /// on the CPU backend; on the GPU backend when the adapter has timestamp queries; never on
    /// the event-driven solver (it has no stages).
    pub fn set_profiling(&mut self, on: bool) -> bool {
        self.engine.set_profiling(on)
    }

    /// The integer outputs of the last binning (CPU f32/f64 or GPU), for exact comparisons.
    pub fn binning_state(&self) -> crate::setup::BinningState {
        self.engine.binning_state()
    }

    /// GPU only: counts work from now on (`on`), or stops counting, and restarts the counts;
    /// returns whether this backend counts work (`gpu::work`). Counting slows the contact
    /// passes: time runs without it.
    pub fn set_work_counting(&mut self, on: bool) -> bool {
        self.engine.set_work_counting(on)
    }

    /// GPU only: dispatches per step and candidate-pair visits per invocation since
    /// [`Simulation::set_work_counting`]; `None` on other backends.
    #[cfg(feature = "gpu")]
    pub fn work_counts(&self) -> Option<crate::gpu::work::WorkCounts> {
        self.engine.work_counts()
    }

    /// Interaction counts of the last gravity-tree walk (one walk per body); `None` unless the
    /// backend sums gravity by the tree.
    pub fn walk_counts(&self) -> Option<crate::cpu::tree::WalkCounts> {
        self.engine.walk_counts().filter(|c| c.walks > 0)
    }

    /// The neighbour list in sorted order, for exact comparisons of the twins: the list as last
    /// built, on the CPU and on the GPU; empty for the event-driven solver.
    pub fn list_rows(&self) -> crate::setup::ListRows {
        self.engine.list_rows()
    }

    /// Time spent in [`Simulation::step`] so far, and the throughput.
    pub fn step_stats(&self) -> StepStats {
        let secs = self.stepping.as_secs_f64();
        let steps = self.steps_done();
        StepStats {
            steps,
            wall_seconds: secs,
            particle_steps_per_second: if secs > 0.0 {
                self.particles as f64 * steps as f64 / secs
            } else {
                0.0
            },
        }
    }

    /// Sets up `scene` (checked) on the GPU backend on an open context, e.g. one that also
    /// presents to a window.
    #[cfg(feature = "gpu")]
    ///
    /// # Errors
    /// [`SimError::Gpu`] when the scene does not fit the adapter.
    pub fn on_gpu_context<'a>(
        scene: impl SceneInput<'a>,
        ctx: crate::gpu::GpuContext,
        gpu: GpuOptions,
    ) -> Result<Self, SimError> {
        let checked = scene.into_checked_scene()?;
        let scene: &Scene = &checked;
        let engine = Box::new(GpuBackend::with_context(ctx, scene, gpu)?);
        // An open system's passes start the backend again on the same device
        // ([`Simulation::open_passes`] tells the drawing to bind the new buffers).
        let mut sim = Self::of_engine(engine, Backend::Gpu, scene, Offsets::default(), None)
            .with_open(scene, Precision::F32, gpu);
        sim.fill()?;
        Ok(sim)
    }

    /// The GPU backend, when that is what runs (the renderer binds its state buffers).
    #[cfg(feature = "gpu")]
    pub fn gpu_backend(&self) -> Option<&GpuBackend> {
        self.engine.gpu()
    }
}
