//! CPU reference backend: the step of docs/architecture.md, stage by stage, parallel with rayon.
//!
//! One module per GPU stage, with the stage's name, inputs and order: [`integrate`] →
//! [`cell_keys`] → [`count`] → [`prefix_sum`] → [`scatter`] → [`collide`] → [`gravity`] →
//! [`integrate`]; [`diagnostics`] on demand. Sphere state is kept sorted by grid bucket (the
//! scatter reorders it at every binning), and `id` maps back to input order. The state is binned
//! only when the [`neighbours`] list is rebuilt, and the contact stage runs from the list: the
//! soft laws by [`collide::collide_pairs`] and [`collide::sum_pairs`], the impulse model's rounds
//! by [`collide::impulse_pairs`], [`collide::earliest_from_pairs`] and [`collide::sum_impulses`].
//!
//! [`CpuBackend`] is laid out as `src/gpu/` is: its state and the [`crate::engine::Engine`]
//! impl here, set-up in `setup.rs`, the step (the recipe's passes and their twins) in `step.rs`,
//! and what is read back (diagnostics, snapshots, checkpoint state) in `readback.rs`.

pub mod cell_keys;
pub mod collide;
pub mod count;
pub mod diagnostics;
pub mod gravity;
pub mod integrate;
pub mod neighbours;
pub mod prefix_sum;
mod readback;
mod removal;
pub mod scatter;
mod setup;
mod step;
#[doc(hidden)]
#[cfg(feature = "gpu")]
pub mod swap;
pub mod tree;

use crate::checkpoint::{CpuState, Floats};
use crate::physics::guard::guard_bounds;
use crate::recipe::{self, Kind, Pairs, Pass};
use crate::scene::{ContactModel, Scene};
use crate::setup::PackedScene;
use crate::{Diagnostics, Real, Snapshot};
use collide::{Ball, Body, CellBox, CollideParams, ContactOut, Event, PlaneBody, Round, Spins};
use glam::DVec3;
use neighbours::NeighbourList;
use rayon::prelude::*;
use step::{ContactSums, StepRun};

/// Spheres per block of the parallel loops and reductions (fixed, so sums are reproducible).
pub const CHUNK: usize = 4096;

/// A slice shared by the blocks of a parallel loop, each of which reads and writes only its own
/// indices (the caller's invariant, stated where it builds one); nobody else touches the slice
/// until the loop has joined.
pub(crate) struct Disjoint<'a, T> {
    ptr: *mut T,
    len: usize,
    _slice: std::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: the blocks access disjoint indices (Disjoint's invariant), so sharing the pointer
// between threads shares no element.
unsafe impl<T: Send> Sync for Disjoint<'_, T> {}

impl<'a, T> Disjoint<'a, T> {
    pub(crate) fn new(slice: &'a mut [T]) -> Self {
        Self {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            _slice: std::marker::PhantomData,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    pub(crate) fn write(&self, k: usize, v: T) {
        assert!(k < self.len);
        // SAFETY: in bounds (checked), and index k is the calling block's alone.
        unsafe { self.ptr.add(k).write(v) }
    }

    #[inline(always)]
    pub(crate) fn read(&self, k: usize) -> T
    where
        T: Copy,
    {
        assert!(k < self.len);
        // SAFETY: in bounds (checked), and index k is the calling block's alone.
        unsafe { self.ptr.add(k).read() }
    }
}

/// Below this many spheres [`CpuBackend::step_many`] runs on one thread (see there). Chosen
/// from `box-gas` on 2 cores (docs/performance.md): about where the two rates meet.
pub const SERIAL_BELOW: usize = 1024;

/// A one-thread pool for small scenes: inside it every parallel loop runs inline.
fn serial_pool() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .thread_name(|_| "spheresim-serial".into())
            .build()
            .expect("a one-thread pool")
    })
}

pub use crate::setup::{
    BinningState, LARGE_RADIUS_RATIO, MAX_LARGE, STAGES, contact_history, small_radius_max,
};

/// Values of precision `R` (given widened to f64, which is exact) as checkpoint floats.
fn floats<R: Real>(values: impl Iterator<Item = f64>) -> Floats {
    match R::PRECISION {
        crate::Precision::F32 => Floats::F32(values.map(|x| x as f32).collect()),
        crate::Precision::F64 => Floats::F64(values.collect()),
    }
}

/// Neighbour-list entries per sphere assumed by [`CpuBackend::memory_estimate`]: a sphere in
/// a dense packing of equal spheres has 12 touching neighbours, and a skin below a quarter
/// radius adds few more.
pub const LIST_ENTRIES_ESTIMATE: usize = 16;

/// The step's parameters in the backend's precision ([`crate::params`]).
type Params<R> = crate::params::CpuParams<R>;

/// The contact sums whose forces enter the accelerations: the soft laws' (`contact`); none for
/// impulses, which change velocities directly.
fn soft_contacts<R: Real>(model: ContactModel, contact: &[ContactOut<R>]) -> &[ContactOut<R>] {
    if model.is_soft() { contact } else { &[] }
}

/// The CPU reference backend in precision `R` (`f32` or `f64`).
pub struct CpuBackend<R: Real> {
    params: Params<R>,
    planes: Vec<PlaneBody<R>>,
    n_small: u32,
    // Sphere state, sorted by bucket.
    position: Vec<R::V3>,
    velocity: Vec<R::V3>,
    acceleration: Vec<R::V3>,
    // Rotation (empty without): angular velocity (rad/s), orientation (unit quaternion
    // x, y, z, w), angular acceleration of the last force evaluation (rad/s²), and the inverse
    // moment of inertia ((kg·m²)⁻¹).
    spin: Vec<R::V3>,
    orientation: Vec<[R; 4]>,
    angular_acceleration: Vec<R::V3>,
    inv_inertia: Vec<R>,
    // Rolling friction μ_r (empty without rolling resistance).
    rolling_friction: Vec<R>,
    radius: Vec<R>,
    mass: Vec<R>,
    inv_mass: Vec<R>,
    restitution: Vec<R>,
    zeta: Vec<R>,
    compliance: Vec<R>,
    mu: Vec<R>,
    id: Vec<u32>,
    // Box lengths crossed per axis in a periodic box (empty without periodic axes).
    image: Vec<[i32; 3]>,
    // Radius and mass as given, in input order (snapshots report them unrounded).
    radius_input: Vec<f64>,
    mass_input: Vec<f64>,
    // Scratch.
    keys: Vec<u32>,
    counts: Vec<u32>,
    cell_start: Vec<u32>,
    perm: Vec<u32>,
    bodies: Vec<Body<R>>,
    balls: Vec<Ball<R>>,
    /// Whether `bodies` and `balls` hold other spheres, or other constants, than the state:
    /// set when the state is sorted or replaced; otherwise only positions and velocities move.
    bodies_stale: bool,
    // Soft laws: each list entry's pair result (its lower-id sphere's entries).
    pairs: Vec<collide::PairOut<R>>,
    /// The same with rotation (with each pair's friction moment and overlap).
    spin_pairs: Vec<collide::SpinPairOut<R>>,
    /// The same with rolling resistance (with each pair's rolling torque).
    roll_pairs: Vec<collide::RollPairOut<R>>,
    /// Impulse model: each list entry's pair response in the current round.
    impulses: Vec<collide::PairImpulse<R>>,
    /// Impulse model: whether the last round changed each sphere's position or velocity.
    moved: Vec<bool>,
    /// Each sphere's sweep σ for the next build (`neighbours::sweeps`), m.
    sweep: Vec<R>,
    cells: Vec<[i32; 3]>,
    boxes: Vec<CellBox>,
    contact: Vec<ContactOut<R>>,
    /// The force each wall exerts on each sphere in the last step, N (`n × walls`, sorted
    /// order; empty unless the scene records wall forces).
    wall_force: Vec<R::V3>,
    earliest: Vec<Event<R>>,
    // Soft laws: the neighbour list with its friction history.
    list: NeighbourList<R>,
    a_mutual: Vec<R::V3>,
    // Mutual gravity by tree: the tree and its last walk's interaction counts.
    tree: tree::Tree<R>,
    walk_counts: tree::WalkCounts,
    // Reused every step, so that a step allocates nothing: the reordering's spare arrays (one
    // per element type), the prefix sum's block sums, the scatter's next free slots, and the
    // per-block partial sums.
    spare_v3: Vec<R::V3>,
    spare_r: Vec<R>,
    spare_u32: Vec<u32>,
    spare_q: Vec<[R; 4]>,
    spare_i3: Vec<[i32; 3]>,
    block_sums: Vec<u32>,
    next_slot: Vec<u32>,
    contact_blocks: Vec<ContactSums>,
    loss_blocks: Vec<f64>,
    // Counters.
    step: u64,
    collisions: u64,
    history_dropped: u64,
    contacts: u64,
    spring_energy: f64,
    dissipated: f64,
    cell_edge: R,
    stage_seconds: [f64; 6],
    /// The passes of a step ([`crate::recipe::step`]).
    recipe: Vec<Pass>,
}

/// The CPU backend behind [`Simulation`](crate::Simulation), in either precision.
impl<R: Real> crate::engine::Engine for CpuBackend<R> {
    fn step(&mut self, n: u64) -> Result<(), crate::engine::Halt> {
        self.step_many(n)
            .map_err(|(step, sphere)| crate::engine::Halt::Guard { step, sphere })
    }

    fn steps_done(&self) -> u64 {
        CpuBackend::steps_done(self)
    }

    fn diagnostics(&self) -> Diagnostics {
        CpuBackend::diagnostics(self)
    }

    fn snapshot(&self) -> Snapshot {
        CpuBackend::snapshot(self)
    }

    fn wall_forces(&self) -> Vec<glam::DVec3> {
        CpuBackend::wall_forces(self)
    }

    fn snapshot_into(&self, out: &mut Snapshot) {
        CpuBackend::snapshot_into(self, out)
    }

    fn precision(&self) -> crate::Precision {
        R::PRECISION
    }

    fn adapter(&self) -> String {
        crate::engine::cpu_threads()
    }

    fn save_state(&self) -> Result<crate::checkpoint::EngineState, crate::SimError> {
        Ok(crate::checkpoint::EngineState::Cpu(CpuBackend::save_state(
            self,
        )))
    }

    fn restore_state(&mut self, state: &crate::checkpoint::EngineState) -> Result<(), String> {
        match state {
            crate::checkpoint::EngineState::Cpu(s) => CpuBackend::restore_state(self, s),
            crate::checkpoint::EngineState::Gpu(_) => {
                Err("the state is the GPU backend's, not the CPU backend's".into())
            }
        }
    }

    fn contact_memory(&self) -> Option<crate::history::ContactMemory> {
        CpuBackend::contact_memory(self)
    }

    fn restore_contact_memory(
        &mut self,
        memory: &crate::history::ContactMemory,
    ) -> Result<(), String> {
        CpuBackend::restore_contact_memory(self, memory)
    }

    fn exchange_spheres(
        &mut self,
        leaving: &[bool],
        added: &crate::setup::PackedScene,
    ) -> Result<bool, String> {
        CpuBackend::exchange_spheres(self, leaving, added)
    }

    fn set_orientations(&mut self, orientation: &[glam::DQuat]) -> Result<(), String> {
        CpuBackend::set_orientations(self, orientation)
    }

    fn stage_seconds(&self) -> Vec<(&'static str, f64)> {
        crate::setup::STAGES
            .iter()
            .copied()
            .zip(CpuBackend::stage_seconds(self))
            .collect()
    }

    fn set_profiling(&mut self, _on: bool) -> bool {
        // Stages are always timed on the CPU.
        true
    }

    fn binning_state(&self) -> BinningState {
        CpuBackend::binning_state(self)
    }

    fn list_rows(&self) -> crate::setup::ListRows {
        CpuBackend::list_rows(self)
    }

    fn walk_counts(&self) -> Option<tree::WalkCounts> {
        Some(CpuBackend::walk_counts(self))
    }

    fn step_params(&self) -> &crate::params::StepParams {
        &self.params.host
    }
}
