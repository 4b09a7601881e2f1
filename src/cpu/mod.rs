//! CPU reference backend: the step of docs/architecture.md, stage by stage, parallel with rayon.
//!
//! One module per GPU stage, with the stage's name, inputs and order: [`integrate`] →
//! [`cell_keys`] → [`count`] → [`prefix_sum`] → [`scatter`] → [`collide`] → [`gravity`] →
//! [`integrate`]; [`diagnostics`] on demand. Sphere state is kept sorted by grid bucket (the
//! scatter reorders it at every binning), and `id` maps back to input order. The state is binned
//! only when the [`neighbours`] list is rebuilt, and the contact stage runs from the list: the
//! soft laws by [`collide::collide_pairs`] and [`collide::sum_pairs`], the impulse model's rounds
//! by [`collide::impulse_pairs`], [`collide::earliest_from_pairs`] and [`collide::sum_impulses`].

pub mod cell_keys;
pub mod collide;
pub mod count;
pub mod diagnostics;
pub mod gravity;
pub mod integrate;
pub mod neighbours;
pub mod prefix_sum;
pub mod scatter;
pub mod tree;

use crate::checkpoint::{CpuState, Floats};
use crate::physics::guard::guard_bounds;
use crate::physics::rotation::inverse_inertia;
use crate::recipe::{self, Kind, Pairs, Pass};
use crate::scene::{ContactModel, RollingModel, Scene};
use crate::setup::PackedScene;
use crate::{Diagnostics, Real, Snapshot};
use collide::{Ball, Body, CellBox, CollideParams, ContactOut, Event, PlaneBody, Round, Spins};
use glam::DVec3;
use neighbours::NeighbourList;
use rayon::prelude::*;

/// Spheres per block of the parallel loops and reductions (fixed, so sums are reproducible).
pub const CHUNK: usize = 4096;

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

/// Sums of the contact stage's per-sphere results.
#[derive(Clone, Copy, Debug, Default)]
struct ContactSums {
    contacts: u64,
    /// Elastic energy, J.
    energy: f64,
    /// Dissipated power, W.
    power: f64,
    collisions: u64,
    /// Energy the impulse rounds took out of the step, J (see [`CpuBackend::apply_contacts`]).
    impulse_loss: f64,
}

/// What one step's passes hand each other on the CPU ([`CpuBackend::run_pass`]).
struct StepRun<R: Real> {
    /// Set-up's evaluation (nothing applied, no rebuild counted).
    init: bool,
    /// Largest small-sphere speed after the first half kick, m/s.
    vmax: R,
    /// The list is rebuilt this step.
    rebuild: bool,
    /// The contact stage's sums (the final round's, or the soft laws').
    sums: ContactSums,
    /// Collisions of the matching rounds.
    collisions: u64,
    /// Energy the impulse rounds took out of the step, J.
    impulse_loss: f64,
    /// The final round's impulses are not yet applied.
    unapplied: bool,
    /// Input id of the first sphere the check stopped.
    bad: Option<u32>,
}

impl<R: Real> StepRun<R> {
    fn new(init: bool) -> Self {
        Self {
            init,
            vmax: R::zero(),
            rebuild: true,
            sums: ContactSums::default(),
            collisions: 0,
            impulse_loss: 0.0,
            unapplied: false,
            bad: None,
        }
    }
}

/// The profiler's stage (`CpuBackend::stage_seconds`) of a pass: integrate, binning,
/// contacts, gravity, forces.
fn stage_of(kind: Kind) -> usize {
    match kind {
        Kind::MeasureSpeed | Kind::KickDrift => 0,
        Kind::Binning => 1,
        Kind::Gravity => 3,
        Kind::EndOfStep | Kind::Accelerations => 4,
        _ => 2,
    }
}

/// Uniform parameters of a scene, in the backend's precision.
#[derive(Clone, Debug)]
struct Params<R: Real> {
    dt: R,
    resting_speed: R,
    gravity: R::V3,
    g_const: R,
    eps2: R,
    drag: R,
    stiffness: R,
    model: ContactModel,
    damping: crate::scene::Damping,
    /// Neighbour-list skin s, m.
    skin: R,
    /// Whether friction history is kept.
    history: bool,
    /// Mutual gravity by the tree rather than the direct sum.
    tree: bool,
    /// The tree's opening angle θ.
    theta: R,
    /// Spheres rotate under friction torques.
    rotation: bool,
    /// Contacts resist rolling (a [`RollingModel`] other than none).
    rolling: bool,
    /// The rolling resistance law.
    rolling_model: RollingModel,
    /// The magnitude guard's centre (m), speed bound at t = 0 (m/s), its growth (m/s²) and
    /// distance bound at t = 0 (m) ([`crate::physics::guard`]).
    guard: (R::V3, R, R, R),
}

/// The contact sums whose forces enter the accelerations: the soft laws' (`contact`); none for
/// impulses, which change velocities directly.
fn soft_contacts<R: Real>(model: ContactModel, contact: &[ContactOut<R>]) -> &[ContactOut<R>] {
    if model.is_soft() { contact } else { &[] }
}

/// The CPU reference backend in precision `R` (`f32` or `f64`).
pub struct CpuBackend<R: Real> {
    params: Params<R>,
    gravity_f64: DVec3,
    planes: Vec<PlaneBody<R>>,
    small_radius_max: R,
    n_small: u32,
    table_size: u32,
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
    block_sums: Vec<u32>,
    next_slot: Vec<u32>,
    contact_blocks: Vec<ContactSums>,
    loss_blocks: Vec<f64>,
    // Counters.
    step: u64,
    dt_f64: f64,
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

impl<R: Real> CpuBackend<R> {
    /// Sets up a checked scene: converts to precision `R`, splits small and large spheres, sorts
    /// by bucket and evaluates the initial forces.
    pub fn new(scene: &Scene) -> Self {
        Self::from_packed(&PackedScene::new(scene))
    }

    /// Sets up a packed scene (see [`PackedScene`]).
    pub fn from_packed(p: &PackedScene) -> Self {
        let n = p.len();
        let sp = &p.params;
        let n_large = p.large_count(R::of);
        let ts = sp.table_size;
        let of = |v: &[f64]| -> Vec<R> { v.iter().map(|&x| R::of(x)).collect() };
        let mut b = Self {
            params: Params {
                dt: R::of(sp.dt),
                resting_speed: R::of(sp.resting_speed),
                gravity: R::v3(sp.gravity),
                g_const: R::of(sp.g_const),
                eps2: R::of(sp.eps2),
                drag: R::of(sp.drag),
                stiffness: R::of(sp.stiffness),
                model: sp.contact,
                damping: sp.damping,
                skin: R::of(sp.skin),
                history: sp.history,
                tree: sp.gravity_solver == crate::scene::GravitySolver::Tree,
                theta: R::of(sp.theta),
                rotation: sp.rotation,
                rolling: sp.rolling != RollingModel::None,
                rolling_model: sp.rolling,
                guard: (
                    R::v3(sp.guard.centre),
                    R::of(sp.guard.speed),
                    R::of(sp.guard.accel),
                    R::of(sp.guard.distance),
                ),
            },
            gravity_f64: sp.gravity,
            planes: p
                .walls
                .iter()
                .map(|w| PlaneBody {
                    point: R::v3(w.point),
                    normal: R::v3(w.normal),
                    e: R::of(w.restitution),
                    zeta: R::of(w.zeta),
                    compliance: R::of(w.compliance),
                    mu: R::of(w.friction),
                    rolling_friction: R::of(w.rolling_friction),
                    radius: R::of(w.radius),
                })
                .collect(),
            small_radius_max: R::of(sp.small_radius_max),
            n_small: (n - n_large) as u32,
            table_size: ts,
            position: p.position.iter().map(|&x| R::v3(x)).collect(),
            velocity: p.velocity.iter().map(|&v| R::v3(v)).collect(),
            acceleration: vec![R::zero3(); n],
            spin: if sp.rotation {
                p.angular_velocity.iter().map(|&w| R::v3(w)).collect()
            } else {
                Vec::new()
            },
            orientation: if sp.rotation {
                vec![[R::zero(), R::zero(), R::zero(), R::one()]; n]
            } else {
                Vec::new()
            },
            angular_acceleration: if sp.rotation {
                vec![R::zero3(); n]
            } else {
                Vec::new()
            },
            inv_inertia: if sp.rotation {
                p.inv_mass
                    .iter()
                    .zip(&p.radius)
                    .map(|(&w, &r)| R::of(inverse_inertia(w, r)))
                    .collect()
            } else {
                Vec::new()
            },
            rolling_friction: if sp.rolling != RollingModel::None {
                of(&p.rolling_friction)
            } else {
                Vec::new()
            },
            radius: of(&p.radius),
            mass: of(&p.mass),
            inv_mass: of(&p.inv_mass),
            restitution: of(&p.restitution),
            zeta: of(&p.zeta),
            compliance: of(&p.compliance),
            mu: of(&p.friction),
            id: (0..n as u32).collect(),
            radius_input: p.radius.clone(),
            mass_input: p.mass.clone(),
            keys: vec![0; n],
            counts: vec![0; ts as usize + 1],
            cell_start: vec![0; ts as usize + 1],
            perm: vec![0; n],
            bodies: Vec::with_capacity(n),
            balls: Vec::with_capacity(n),
            bodies_stale: true,
            pairs: Vec::new(),
            spin_pairs: Vec::new(),
            roll_pairs: Vec::new(),
            impulses: Vec::new(),
            moved: Vec::with_capacity(n),
            sweep: Vec::with_capacity(n),
            cells: Vec::with_capacity(n),
            boxes: Vec::new(),
            contact: vec![ContactOut::default(); n],
            earliest: vec![Event::default(); n],
            list: NeighbourList::default(),
            a_mutual: Vec::new(),
            tree: tree::Tree::new(),
            walk_counts: tree::WalkCounts::default(),
            spare_v3: Vec::with_capacity(n),
            spare_r: Vec::with_capacity(n),
            spare_u32: Vec::with_capacity(n),
            spare_q: Vec::new(),
            block_sums: Vec::new(),
            next_slot: Vec::with_capacity(ts as usize + 1),
            contact_blocks: Vec::new(),
            loss_blocks: Vec::new(),
            step: 0,
            dt_f64: sp.dt,
            collisions: 0,
            history_dropped: 0,
            contacts: 0,
            spring_energy: 0.0,
            dissipated: 0.0,
            cell_edge: R::one(),
            stage_seconds: [0.0; 6],
            recipe: Vec::new(),
        };
        let mut run = StepRun::new(true);
        b.run_recipe(&recipe::step(b.recipe_config(), true), &mut run);
        b.contacts = run.sums.contacts;
        b.spring_energy = run.sums.energy;
        // The stage timers count steps, not set-up.
        b.stage_seconds = [0.0; 6];
        b.recipe = recipe::step(b.recipe_config(), false);
        b
    }

    /// Number of spheres.
    pub fn len(&self) -> usize {
        self.position.len()
    }

    /// True when there are no spheres.
    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }

    /// Estimated heap memory of the backend for `n` spheres, bytes: every per-sphere array at
    /// its element size (with the reordering's spare arrays), the neighbour list at
    /// [`LIST_ENTRIES_ESTIMATE`] entries per sphere (partner, link, build scratch, pair result;
    /// with the friction history's ξ and partner id per entry, both copies during a rebuild,
    /// when `history`, [`contact_history`]; counted for every law),
    /// rotation's state and pair records when `rotation` (with rolling resistance's: a bound),
    /// and the hash table (`table_size(n) + 1` counts and starts). Large-sphere boxes and walls
    /// are not counted (at most 256 boxes).
    pub fn memory_estimate(n: usize, history: bool, rotation: bool) -> u64 {
        use std::mem::size_of;
        let per_entry = if history {
            2 * (size_of::<u32>() + size_of::<collide::ContactHistory<R>>())
        } else {
            0
        };
        // Partner, link, the build's scratch row and the pair result (one law's).
        let pair = if rotation {
            size_of::<collide::RollPairOut<R>>()
        } else {
            size_of::<collide::PairOut<R>>()
        }
        .max(size_of::<collide::PairImpulse<R>>());
        let per_entry = per_entry + 3 * size_of::<u32>() + pair;
        let per_sphere = 7 * size_of::<R::V3>() // position, velocity, acceleration, force, a_mutual, spare, x_build
            + 10 * size_of::<R>() // radius, mass, inverse mass, restitution, ζ, compliance, μ, spare, two sweeps
            + size_of::<bool>() // moved (impulses)
            + 7 * size_of::<u32>() // id, keys, permutation, spare, list counts, rows and old rows
            + 2 * size_of::<f64>() // radius and mass as given
            + size_of::<collide::Body<R>>()
            + size_of::<collide::Ball<R>>()
            + size_of::<[i32; 3]>()
            + size_of::<collide::ContactOut<R>>()
            + size_of::<collide::Event<R>>()
            // Rotation: ω, orientation and its spare, angular acceleration, inverse inertia, μ_r.
            + if rotation {
                2 * size_of::<R::V3>() + 2 * size_of::<[R; 4]>() + 2 * size_of::<R>()
            } else {
                0
            }
            + LIST_ENTRIES_ESTIMATE * per_entry;
        // Counts, starts and the scatter's next free slots.
        let table = 3 * 4 * (cell_keys::table_size(n) as u64 + 1);
        per_sphere as u64 * n as u64 + table
    }

    /// Steps completed.
    pub fn steps_done(&self) -> u64 {
        self.step
    }

    /// Collisions resolved so far.
    pub fn collisions(&self) -> u64 {
        self.collisions
    }

    /// Cell edge of the last binning, m.
    pub fn cell_edge(&self) -> f64 {
        self.cell_edge.f64()
    }

    /// The integer outputs of the last binning.
    pub fn binning_state(&self) -> BinningState {
        BinningState {
            keys: self.keys.clone(),
            counts: self.counts.clone(),
            cell_start: self.cell_start.clone(),
            ids: self.id.clone(),
        }
    }

    /// Seconds spent in each stage of [`STAGES`] since set-up (binning = keys, count, prefix
    /// sum, scatter and reordering). As on the GPU, the check runs inside the force sum's
    /// pass (`integrate::end_of_step`) and is timed with `forces`, so `check` stays zero.
    pub fn stage_seconds(&self) -> [f64; 6] {
        self.stage_seconds
    }

    /// The pairs on the neighbour list, as input ids `(a, b)` with `a < b`, sorted. For tests of the list's safety invariant.
    pub fn listed_pairs(&self) -> Vec<(u32, u32)> {
        let list = &self.list;
        let mut pairs: Vec<(u32, u32)> = (0..list.start.len().saturating_sub(1))
            .flat_map(|i| {
                (list.start[i]..list.start[i + 1]).map(move |e| {
                    let (a, b) = (self.id[i], self.id[list.partner[e as usize] as usize]);
                    (a.min(b), a.max(b))
                })
            })
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }

    /// Neighbour-list rebuilds since set-up.
    pub fn rebuilds(&self) -> u64 {
        self.list.rebuilds
    }

    /// The neighbour list's rows as built last (sorted order of that build).
    pub fn list_rows(&self) -> crate::setup::ListRows {
        crate::setup::ListRows {
            start: self.list.start.clone(),
            partner: self.list.partner.clone(),
            link: self.list.link.clone(),
        }
    }

    /// Spheres in the large-sphere list.
    pub fn large_count(&self) -> usize {
        self.len() - self.n_small as usize
    }

    /// Stages `cell_keys`, `count`, `prefix_sum`, `scatter`: sorts the state by bucket, in
    /// cells widened by the neighbour-list skin (half on each side).
    fn bin(&mut self, small_speed_max: R) {
        let reach = self.small_radius_max + self.params.skin * R::of(0.5);
        self.cell_edge = cell_keys::cell_edge(reach, small_speed_max, self.params.dt);
        let inv_h = self.cell_edge.recip();
        cell_keys::cell_keys::<R>(
            &self.position,
            &self.radius,
            self.small_radius_max,
            inv_h,
            self.table_size,
            &mut self.keys,
        );
        count::count(&self.keys, &mut self.counts);
        prefix_sum::prefix_sum(&self.counts, &mut self.cell_start, &mut self.block_sums);
        scatter::scatter(
            &self.keys,
            &self.cell_start,
            &mut self.perm,
            &mut self.next_slot,
        );
        let perm = &self.perm;
        // Gathers into the spare array and swaps: the old array becomes the next spare.
        fn permute<T: Copy + Send + Sync>(v: &mut Vec<T>, spare: &mut Vec<T>, perm: &[u32]) {
            scatter::gather(v, perm, spare);
            std::mem::swap(v, spare);
        }
        let (sv, sr) = (&mut self.spare_v3, &mut self.spare_r);
        permute(&mut self.position, sv, perm);
        permute(&mut self.velocity, sv, perm);
        permute(&mut self.acceleration, sv, perm);
        if self.params.rotation {
            permute(&mut self.spin, sv, perm);
            permute(&mut self.angular_acceleration, sv, perm);
            permute(&mut self.orientation, &mut self.spare_q, perm);
            permute(&mut self.inv_inertia, sr, perm);
        }
        if self.params.rolling {
            permute(&mut self.rolling_friction, sr, perm);
        }
        permute(&mut self.radius, sr, perm);
        permute(&mut self.mass, sr, perm);
        permute(&mut self.inv_mass, sr, perm);
        permute(&mut self.restitution, sr, perm);
        permute(&mut self.zeta, sr, perm);
        permute(&mut self.compliance, sr, perm);
        permute(&mut self.mu, sr, perm);
        permute(&mut self.id, &mut self.spare_u32, perm);
        self.bodies_stale = true;
        // Cells (and large spheres' boxes) at binning time, used by every contact round.
        self.cells.clear();
        self.cells.par_extend(
            self.position
                .par_iter()
                .map(|&x| cell_keys::cell_of::<R>(x, inv_h)),
        );
    }

    /// Refreshes the contact stage's view of the spheres from the state arrays.
    fn load_bodies(&mut self) {
        let n = self.len();
        if !self.bodies_stale && self.bodies.len() == n && self.balls.len() == n {
            // Between sorts only the positions and velocities change: rewrite those alone,
            // which reads 24 bytes a sphere instead of 60.
            self.bodies
                .par_iter_mut()
                .zip(self.balls.par_iter_mut())
                .zip(self.position.par_iter().zip(self.velocity.par_iter()))
                .for_each(|((body, ball), (&x, &v))| {
                    body.x = x;
                    body.v = v;
                    ball.x = x;
                });
            return;
        }
        self.bodies_stale = false;
        self.bodies.clear();
        self.bodies.par_extend((0..n).into_par_iter().map(|i| Body {
            x: self.position[i],
            v: self.velocity[i],
            r: self.radius[i],
            w: self.inv_mass[i],
            e: self.restitution[i],
            zeta: self.zeta[i],
            compliance: self.compliance[i],
            mu: self.mu[i],
            id: self.id[i],
            cell: self.cells[i],
        }));
        self.balls.clear();
        self.balls.par_extend(
            self.position
                .par_iter()
                .zip(self.radius.par_iter())
                .map(|(&x, &r)| Ball { x, r }),
        );
    }

    /// What decides this scene's recipe.
    fn recipe_config(&self) -> recipe::Config {
        recipe::Config {
            impulse: self.params.model == ContactModel::Impulse,
            gravity: self.params.g_const > R::zero(),
            rounds: collide::MATCHING_ROUNDS,
        }
    }

    /// The contact stage's uniform parameters for this step.
    fn collide_params(&self, small_speed_max: R) -> CollideParams<R> {
        CollideParams {
            dt: self.params.dt,
            model: self.params.model,
            damping: self.params.damping,
            rolling: self.params.rolling_model,
            stiffness: self.params.stiffness,
            cell_edge: self.cell_edge,
            inv_cell_edge: self.cell_edge.recip(),
            table_size: self.table_size,
            n_small: self.n_small,
            small_radius_max: self.small_radius_max,
            small_speed_max,
            resting_speed: self.params.resting_speed,
            skin: self.params.skin,
        }
    }

    /// The recipe's `BuildList` twin: the contact stage's view of this step (the large spheres'
    /// boxes, the bodies), and on a `rebuild` the list's build from the binning just before. At
    /// set-up (`init`) the build is not counted as a rebuild.
    fn build_list(&mut self, params: &CollideParams<R>, init: bool, rebuild: bool) {
        let impulse = self.params.model == ContactModel::Impulse;
        let n_small = self.n_small as usize;
        if impulse || rebuild {
            self.boxes.clear();
            self.boxes.extend((n_small..self.len()).map(|i| {
                collide::large_box(self.position[i], self.velocity[i], self.radius[i], params)
            }));
        }
        self.load_bodies();
        if rebuild {
            // Impulses: the step's own travel counts in each sphere's reach.
            let velocity: &[R::V3] = if impulse { &self.velocity } else { &[] };
            neighbours::sweeps(
                velocity,
                &self.radius,
                self.small_radius_max,
                self.params.dt,
                self.params.skin,
                &mut self.sweep,
            );
            self.list.build(
                &self.bodies,
                &self.balls,
                &self.id,
                &self.boxes,
                &self.cell_start,
                &self.counts,
                params,
                &self.sweep,
                self.params.history,
                self.planes.len(),
                (!init).then_some(&self.perm[..]),
            );
            self.list.rebuilds += u64::from(!init);
        }
    }

    /// The recipe's `CollidePairs` (`sum` false) or `SumPairs` (`sum`) twin: the soft laws'
    /// pair forces from the list, or each sphere's sum of its row and walls into `self.contact`.
    fn soft_pass(&mut self, params: &CollideParams<R>, sum: bool) {
        let spin = Spins {
            omega: &self.spin,
            inv_inertia: &self.inv_inertia,
            rolling_friction: &self.rolling_friction,
        };
        let (bodies, balls, list, planes, contact) = (
            &self.bodies,
            &self.balls,
            &mut self.list,
            &self.planes,
            &mut self.contact,
        );
        if self.params.rolling {
            let pairs = &mut self.roll_pairs;
            soft_pass(
                bodies, spin, balls, list, planes, params, pairs, contact, sum,
            );
        } else if self.params.rotation {
            let pairs = &mut self.spin_pairs;
            soft_pass(
                bodies, spin, balls, list, planes, params, pairs, contact, sum,
            );
        } else {
            let pairs = &mut self.pairs;
            soft_pass(
                bodies, spin, balls, list, planes, params, pairs, contact, sum,
            );
        }
    }

    /// Runs the passes of `recipe` (`crate::recipe::step`) in order, each by its CPU twin;
    /// `run` carries what they hand each other.
    fn run_recipe(&mut self, recipe: &[Pass], run: &mut StepRun<R>) {
        let mut clock = std::time::Instant::now();
        for pass in recipe {
            self.run_pass(pass, run);
            let now = std::time::Instant::now();
            self.stage_seconds[stage_of(pass.kind)] += (now - clock).as_secs_f64();
            clock = now;
        }
    }

    /// The CPU twin of one pass of the recipe. The CPU applies a matching round's impulses at
    /// once (the GPU defers them to the next pass that reads the state), and the final round's
    /// at `ApplyContacts` or the end of the step, as the GPU does.
    fn run_pass(&mut self, pass: &Pass, run: &mut StepRun<R>) {
        let params = |b: &Self, run: &StepRun<R>| b.collide_params(run.vmax);
        match pass.kind {
            Kind::MeasureSpeed => {
                run.vmax = self
                    .velocity
                    .par_iter()
                    .zip(self.radius.par_iter())
                    .filter(|&(_, &r)| r <= self.small_radius_max)
                    .map(|(&v, _)| R::norm2(v))
                    .reduce(R::zero, |a, b| a.max(b))
                    .sqrt();
            }
            Kind::KickDrift => self.kick_drift(run),
            Kind::Binning => {
                if run.rebuild {
                    self.bin(run.vmax);
                }
            }
            Kind::BuildList => {
                let params = params(self, run);
                self.build_list(&params, run.init, run.rebuild);
            }
            Kind::ImpulsePairs(Pairs::Binary) => {
                neighbours::resize_with_headroom(
                    &mut self.impulses,
                    self.list.owned.len(),
                    Default::default(),
                );
                // Each pair is evaluated in full once per step; then only where a round moved
                // one of its spheres (`collide::impulse_pairs`).
                self.moved.clear();
                self.impulse_pairs(&params(self, run), false);
            }
            Kind::ImpulsePairs(Pairs::Pending) => self.impulse_pairs(&params(self, run), false),
            Kind::ImpulsePairs(Pairs::Final) => self.impulse_pairs(&params(self, run), true),
            Kind::EarliestEvents { .. } => self.earliest_events(&params(self, run)),
            Kind::SumImpulses(Round::Matching) => {
                self.collide(Round::Matching, &params(self, run));
                run.collisions += self.sum_contacts().collisions;
                run.impulse_loss += self.apply_contacts();
                self.load_bodies();
            }
            Kind::SumImpulses(Round::Final) => {
                self.collide(Round::Final, &params(self, run));
                run.sums = self.sum_contacts();
                run.unapplied = !run.init;
            }
            Kind::ApplyContacts => {
                run.impulse_loss += self.apply_contacts();
                run.unapplied = false;
            }
            Kind::CollidePairs => self.soft_pass(&params(self, run), false),
            Kind::SumPairs => {
                self.soft_pass(&params(self, run), true);
                if run.init {
                    // No time has passed: set-up starts no friction history.
                    self.list.kept.fill(Default::default());
                    self.list.wall_kept.fill(Default::default());
                }
                run.sums = self.sum_contacts();
            }
            Kind::Gravity => self.mutual_gravity(),
            Kind::Accelerations => self.accelerations(),
            Kind::EndOfStep => self.end_of_step(run),
        }
    }

    /// Stage `collide`, impulse model: the listed pairs' responses, binary (those with a sphere
    /// in `self.moved`, or all when it is empty) or (`split`) with the mass-splitting factors
    /// of `self.earliest`, into `self.impulses`.
    fn impulse_pairs(&mut self, params: &CollideParams<R>, split: bool) {
        let list = &self.list;
        let earliest: &[Event<R>] = if split { &self.earliest } else { &[] };
        collide::impulse_pairs(
            &self.bodies,
            &list.rows(),
            earliest,
            &self.moved,
            params,
            &mut self.impulses,
        );
    }

    /// Stage `collide`, earliest events, into `self.earliest`, from the binary responses in
    /// `self.impulses`.
    fn earliest_events(&mut self, params: &CollideParams<R>) {
        collide::earliest_from_pairs(
            &self.bodies,
            &self.list.rows(),
            &self.impulses,
            &self.planes,
            params,
            &mut self.earliest,
        );
    }

    /// Stage `collide`, one round of the impulse model, into `self.contact`.
    fn collide(&mut self, round: Round, params: &CollideParams<R>) {
        collide::sum_impulses(
            &self.bodies,
            &self.list.rows(),
            &self.impulses,
            &self.planes,
            &self.earliest,
            round,
            params,
            &mut self.contact,
        );
    }

    /// Impulse model: `x += dx`, `v += dv` from the contact stage. Returns the energy the
    /// round takes out of the step, J: minus [`collide::impulse_energy_change`] of every
    /// movable sphere, each in precision `R` (as the GPU's `apply_contacts`), summed in f64 in
    /// blocks of [`CHUNK`] and then in block order (reproducible).
    fn apply_contacts(&mut self) -> f64 {
        let dt = self.params.dt;
        let (mass, inv_mass, field) = (&self.mass, &self.inv_mass, &self.acceleration);
        self.moved.resize(self.position.len(), false);
        self.position
            .par_chunks_mut(CHUNK)
            .zip(self.velocity.par_chunks_mut(CHUNK))
            .zip(self.contact.par_chunks(CHUNK))
            .zip(self.moved.par_chunks_mut(CHUNK))
            .enumerate()
            .map(|(b, (((xs, vs), cs), ms))| {
                let mut loss = 0.0;
                let items = xs.iter_mut().zip(vs.iter_mut()).zip(cs).zip(ms);
                for (k, (((x, v), c), moved)) in items.enumerate() {
                    let i = b * CHUNK + k;
                    // Fixed spheres (infinite mass) never move.
                    if inv_mass[i] != R::zero() {
                        let a = field[i];
                        let gain = collide::impulse_energy_change(mass[i], *v, c.dv, c.dx, a, dt);
                        loss -= gain.f64();
                    }
                    *x += c.dx;
                    *v += c.dv;
                    let zero = |d: R::V3| R::comps(d).iter().all(|&c| c == R::zero());
                    *moved = !(zero(c.dx) && zero(c.dv));
                }
                loss
            })
            .collect_into_vec(&mut self.loss_blocks);
        self.loss_blocks.iter().sum()
    }

    /// The contact results summed in fixed blocks (reproducible order).
    fn sum_contacts(&mut self) -> ContactSums {
        self.contact
            .par_chunks(CHUNK)
            .map(|c| {
                c.iter().fold(ContactSums::default(), |s, o| ContactSums {
                    contacts: s.contacts + o.contacts as u64,
                    energy: s.energy + o.energy.f64(),
                    power: s.power + o.power.f64(),
                    collisions: s.collisions + o.collisions as u64,
                    impulse_loss: 0.0,
                })
            })
            .collect_into_vec(&mut self.contact_blocks);
        self.contact_blocks
            .iter()
            .fold(ContactSums::default(), |s, o| ContactSums {
                contacts: s.contacts + o.contacts,
                energy: s.energy + o.energy,
                power: s.power + o.power,
                collisions: s.collisions + o.collisions,
                impulse_loss: s.impulse_loss + o.impulse_loss,
            })
    }

    /// Stage gravity (when G > 0): mutual accelerations into `a_mutual`.
    fn mutual_gravity(&mut self) {
        let n = self.len();
        if self.params.g_const > R::zero() && self.params.tree {
            self.a_mutual.resize(n, R::zero3());
            self.walk_counts = self.tree.accelerations(
                &self.position,
                &self.mass,
                self.params.theta,
                self.params.g_const,
                self.params.eps2,
                &mut self.a_mutual,
            );
        } else if self.params.g_const > R::zero() {
            self.a_mutual.resize(n, R::zero3());
            gravity::gravity::<R>(
                &self.position,
                &self.mass,
                self.params.g_const,
                self.params.eps2,
                &mut self.a_mutual,
            );
        }
    }

    /// Accelerations from contact forces, mutual gravity, uniform gravity and drag.
    fn accelerations(&mut self) {
        integrate::accelerations::<R>(
            &mut self.acceleration,
            &self.velocity,
            &self.radius,
            &self.inv_mass,
            soft_contacts(self.params.model, &self.contact),
            &self.a_mutual,
            self.params.gravity,
            self.params.drag,
        );
        self.angular_accelerations();
    }

    /// With rotation, the angular accelerations from the contacts' torques.
    fn angular_accelerations(&mut self) {
        if self.params.rotation {
            integrate::angular_accelerations::<R>(
                &mut self.angular_acceleration,
                &self.contact,
                &self.inv_inertia,
            );
        }
    }

    /// Advances `k` steps; stops at the first non-finite state with `(step, sphere id)`.
    ///
    /// Scenes of fewer than [`SERIAL_BELOW`] spheres step on one thread of a private pool:
    /// waking the shared pool's threads for each of a step's dozens of parallel loops would cost
    /// more than the work. Larger scenes step on a worker thread of rayon's pool. A step
    /// allocates nothing (`tests/no_alloc.rs`).
    pub fn step_many(&mut self, k: u64) -> Result<(), (u64, u32)> {
        let serial = self.len() < SERIAL_BELOW;
        let mut run = || -> Result<(), (u64, u32)> {
            for _ in 0..k {
                self.step().map_err(|id| (self.step, id))?;
            }
            Ok(())
        };
        if serial {
            serial_pool().install(run)
        } else {
            // On a worker thread of the pool, the step's parallel loops push their work to the
            // worker's own queue; from outside, every loop would be injected into the pool's
            // shared queue, which allocates a block every few dozen jobs.
            rayon::scope(|_| run())
        }
    }

    /// Advances one step: the passes of [`crate::recipe::step`]. On a non-finite position or
    /// velocity, returns the input id of the first such sphere (lowest id).
    pub fn step(&mut self) -> Result<(), u32> {
        let mut run = StepRun::new(false);
        let recipe = std::mem::take(&mut self.recipe);
        self.run_recipe(&recipe, &mut run);
        self.recipe = recipe;
        match run.bad {
            Some(id) => Err(id),
            None => Ok(()),
        }
    }

    /// The recipe's `KickDrift` twin: the first half kick and the drift (and the rotation's),
    /// with the list's rebuild decision.
    fn kick_drift(&mut self, run: &mut StepRun<R>) {
        // The impulse model's reach includes the step's travel (`neighbours::needs_rebuild`).
        let travel = self.params.model == ContactModel::Impulse;
        let decide = neighbours::Decide::of(&self.list, self.len(), self.params.skin, travel);
        let always = decide.is_none();
        let (vmax, moved) = integrate::kick_drift::<R>(
            &mut self.position,
            &mut self.velocity,
            &self.acceleration,
            &self.inv_mass,
            &self.radius,
            self.small_radius_max,
            self.params.dt,
            decide,
        );
        run.vmax = vmax;
        run.rebuild = always || moved;
        if self.params.rotation {
            integrate::kick_drift_rotation::<R>(
                &mut self.spin,
                &mut self.orientation,
                &self.angular_acceleration,
                self.params.dt,
            );
        }
    }

    /// The recipe's `EndOfStep` twin: books the contact stage's sums, applies the impulses'
    /// last round where no pass did, then the accelerations, the second half kick and the check
    /// of x and v in one pass (and the rotation's).
    fn end_of_step(&mut self, run: &mut StepRun<R>) {
        let dt = self.params.dt;
        if run.unapplied {
            run.impulse_loss += self.apply_contacts();
            run.unapplied = false;
        }
        let sums = run.sums;
        self.contacts = sums.contacts;
        self.spring_energy = sums.energy;
        self.collisions += sums.collisions + run.collisions;
        // The forces of this step's contacts act for one step (the two half kicks); impulses
        // book what their rounds took out of the step.
        self.dissipated += sums.power * self.dt_f64 + run.impulse_loss;
        let contact = soft_contacts(self.params.model, &self.contact);
        let (centre, speed0, accel, distance0) = self.params.guard;
        // The guard's bounds at the end of this step (grid.step on the GPU: steps begun).
        let (speed, distance) =
            guard_bounds::<R>((self.step + 1) as u32, dt, speed0, accel, distance0);
        let mut bad = integrate::end_of_step::<R>(
            &mut self.acceleration,
            &mut self.velocity,
            &self.position,
            &self.radius,
            &self.inv_mass,
            contact,
            &self.a_mutual,
            self.params.gravity,
            self.params.drag,
            dt,
            (centre, speed, distance),
            &self.id,
        );
        if self.params.rotation {
            self.angular_accelerations();
            integrate::kick_rotation::<R>(&mut self.spin, &self.angular_acceleration, dt);
            let spin_bad = self
                .spin
                .par_iter()
                .zip(self.id.par_iter())
                .filter(|(w, _)| !R::comps(**w).iter().all(|c| c.is_finite()))
                .map(|(_, &id)| id)
                .min();
            bad = bad.into_iter().chain(spin_bad).min();
        }
        self.step += 1;
        run.bad = bad;
    }

    /// Simulated time, s.
    pub fn time(&self) -> f64 {
        self.step as f64 * self.dt_f64
    }

    /// Interaction counts of the last tree walk (zero unless `gravity_solver = "tree"`).
    pub fn walk_counts(&self) -> tree::WalkCounts {
        self.walk_counts
    }

    /// Diagnostics of the current state (the direct solver's mutual-gravity potential is
    /// O(N²); the tree's is its walk, with the potential added).
    pub fn diagnostics(&self) -> Diagnostics {
        let s = diagnostics::diagnostics::<R>(
            &self.position,
            &self.velocity,
            &self.mass,
            &self.inv_mass,
            self.gravity_f64,
        );
        let g = self.params.g_const.f64();
        let potential_gravity = if g > 0.0 && self.params.tree {
            // A fresh tree: the backend's may predate the current positions.
            let mut t = tree::Tree::<R>::new();
            t.build(&self.position, &self.mass);
            let (theta, eps2) = (self.params.theta, self.params.eps2);
            t.potential_energy(&self.position, &self.mass, theta, g, eps2)
        } else if g > 0.0 {
            let eps2 = self.params.eps2.f64();
            diagnostics::gravity_potential::<R>(&self.position, &self.mass, g, eps2)
        } else {
            0.0
        };
        let (kinetic_rotational, spin_momentum) =
            diagnostics::spin_sums::<R>(&self.spin, &self.radius, &self.mass, &self.inv_mass);
        Diagnostics {
            step: self.step,
            time: self.time(),
            kinetic: s.kinetic,
            kinetic_rotational,
            potential_uniform: s.potential_uniform,
            potential_gravity,
            potential_spring: self.spring_energy,
            dissipated: self.dissipated,
            momentum: s.momentum,
            momentum_magnitude_sum: s.momentum_magnitude_sum,
            angular_momentum: s.angular_momentum + spin_momentum,
            contacts: self.contacts,
            collisions: self.collisions,
            friction_history_dropped: self.history_dropped,
            neighbour_rebuilds: self.rebuilds(),
        }
    }

    /// Everything a later step reads (see [`CpuState`]), for a checkpoint.
    pub fn save_state(&self) -> CpuState {
        let flat = |v: &[R::V3]| floats::<R>(v.iter().flat_map(|&x| R::comps(x)).map(|c| c.f64()));
        let list = &self.list;
        CpuState {
            id: self.id.clone(),
            position: flat(&self.position),
            velocity: flat(&self.velocity),
            acceleration: flat(&self.acceleration),
            spin: flat(&self.spin),
            orientation: floats::<R>(self.orientation.iter().flatten().map(|c| c.f64())),
            angular_acceleration: flat(&self.angular_acceleration),
            list_start: list.start.clone(),
            list_partner: list.partner.clone(),
            history_partner: list.partner_id.clone(),
            history_xi: floats::<R>(
                list.kept
                    .iter()
                    .flat_map(|k| R::comps(k.xi))
                    .map(|c| c.f64()),
            ),
            history_impact: floats::<R>(list.kept.iter().map(|k| k.impact.f64())),
            history_rolling: floats::<R>(
                list.kept
                    .iter()
                    .flat_map(|k| R::comps(k.rolling))
                    .map(|c| c.f64()),
            ),
            wall_xi: floats::<R>(
                list.wall_kept
                    .iter()
                    .flat_map(|k| R::comps(k.xi))
                    .map(|c| c.f64()),
            ),
            wall_impact: floats::<R>(list.wall_kept.iter().map(|k| k.impact.f64())),
            wall_rolling: floats::<R>(
                list.wall_kept
                    .iter()
                    .flat_map(|k| R::comps(k.rolling))
                    .map(|c| c.f64()),
            ),
            x_build: flat(&list.x_build),
            list_sweep: floats::<R>(list.sweep.iter().map(|s| s.f64())),
            rebuilds: list.rebuilds,
            step: self.step,
            collisions: self.collisions,
            history_dropped: self.history_dropped,
            contacts: self.contacts,
            spring_energy: self.spring_energy,
            dissipated: self.dissipated,
        }
    }

    /// Continues from a saved state of the same scene and precision: the next step is
    /// bit-identical to the one the saving backend would have taken.
    ///
    /// # Errors
    /// A message when the state is of the other precision or does not fit this scene (sphere
    /// count, ids, neighbour list, friction history); the backend is then unchanged.
    pub fn restore_state(&mut self, s: &CpuState) -> Result<(), String> {
        let n = self.len();
        if s.position.precision() != R::PRECISION {
            return Err(format!(
                "it holds {} values, this backend computes in {}",
                s.position.precision(),
                R::PRECISION
            ));
        }
        if s.id.len() != n
            || [&s.position, &s.velocity, &s.acceleration]
                .iter()
                .any(|f| f.len() != 3 * n)
        {
            return Err(format!(
                "it holds {} spheres, the scene has {n}",
                s.id.len()
            ));
        }
        let rot = if self.params.rotation { n } else { 0 };
        if s.spin.len() != 3 * rot
            || s.angular_acceleration.len() != 3 * rot
            || s.orientation.len() != 4 * rot
        {
            return Err(format!(
                "its rotational state does not fit a scene with rotation = {}",
                self.params.rotation
            ));
        }
        check_list(s, n, self.params.history, self.planes.len())?;
        // Slot of each input id now, to carry the per-sphere constants into the saved order.
        let mut slot = vec![u32::MAX; n];
        for (i, &id) in self.id.iter().enumerate() {
            slot[id as usize] = i as u32;
        }
        let mut seen = vec![false; n];
        for &id in &s.id {
            if id as usize >= n || std::mem::replace(&mut seen[id as usize], true) {
                return Err(format!("sphere id {id} is out of range or repeated"));
            }
        }
        let order: Vec<u32> = s.id.iter().map(|&id| slot[id as usize]).collect();
        fn reorder<T: Copy>(v: &mut Vec<T>, order: &[u32]) {
            *v = order.iter().map(|&i| v[i as usize]).collect();
        }
        self.bodies_stale = true;
        reorder(&mut self.radius, &order);
        reorder(&mut self.mass, &order);
        reorder(&mut self.inv_mass, &order);
        reorder(&mut self.restitution, &order);
        reorder(&mut self.zeta, &order);
        reorder(&mut self.compliance, &order);
        reorder(&mut self.mu, &order);
        if self.params.rotation {
            reorder(&mut self.inv_inertia, &order);
        }
        if self.params.rolling {
            reorder(&mut self.rolling_friction, &order);
        }
        self.id.clone_from(&s.id);
        let v3s = |f: &Floats| -> Vec<R::V3> {
            (0..f.len() / 3)
                .map(|i| R::v3(DVec3::new(f.get(3 * i), f.get(3 * i + 1), f.get(3 * i + 2))))
                .collect()
        };
        self.position = v3s(&s.position);
        self.velocity = v3s(&s.velocity);
        self.acceleration = v3s(&s.acceleration);
        self.spin = v3s(&s.spin);
        self.angular_acceleration = v3s(&s.angular_acceleration);
        self.orientation = (0..s.orientation.len() / 4)
            .map(|i| std::array::from_fn(|k| R::of(s.orientation.get(4 * i + k))))
            .collect();
        let list = &mut self.list;
        list.start.clone_from(&s.list_start);
        list.partner.clone_from(&s.list_partner);
        list.partner_id.clone_from(&s.history_partner);
        let kept = |xi: &Floats, impact: &Floats, rolling: &Floats| {
            v3s(xi)
                .into_iter()
                .zip(v3s(rolling))
                .enumerate()
                .map(|(e, (xi, rolling))| collide::ContactHistory {
                    xi,
                    impact: R::of(impact.get(e)),
                    rolling,
                })
                .collect::<Vec<_>>()
        };
        list.kept = kept(&s.history_xi, &s.history_impact, &s.history_rolling);
        list.wall_kept = kept(&s.wall_xi, &s.wall_impact, &s.wall_rolling);
        list.x_build = v3s(&s.x_build);
        list.sweep = (0..s.list_sweep.len())
            .map(|i| R::of(s.list_sweep.get(i)))
            .collect();
        list.rebuilds = s.rebuilds;
        list.relink(&self.id);
        self.step = s.step;
        self.collisions = s.collisions;
        self.history_dropped = s.history_dropped;
        self.contacts = s.contacts;
        self.spring_energy = s.spring_energy;
        self.dissipated = s.dissipated;
        Ok(())
    }

    /// The state in input order, widened to f64.
    pub fn snapshot(&self) -> Snapshot {
        let mut snap = Snapshot::default();
        self.snapshot_into(&mut snap);
        snap
    }

    /// [`CpuBackend::snapshot`] written into `snap`, reusing its allocations: no allocation once
    /// its vectors hold this many spheres.
    pub fn snapshot_into(&self, snap: &mut Snapshot) {
        let n = self.len();
        let rotation = self.params.rotation;
        snap.reset(
            self.step,
            self.time(),
            &self.radius_input,
            &self.mass_input,
            rotation,
        );
        for i in 0..n {
            let id = self.id[i] as usize;
            snap.position[id] = R::v3_f64(self.position[i]);
            snap.velocity[id] = R::v3_f64(self.velocity[i]);
            if rotation {
                snap.angular_velocity[id] = R::v3_f64(self.spin[i]);
                let [x, y, z, w] = self.orientation[i].map(|c| c.f64());
                snap.orientation[id] = glam::DQuat::from_xyzw(x, y, z, w);
            }
        }
    }
}

/// Stage `collide` of the soft laws from the neighbour list: `collide_pairs` into `pairs` (sized
/// to the list first), or (`sum`) `sum_pairs` into `contact`; `P` is the record with or without
/// rotation.
#[allow(clippy::too_many_arguments)]
fn soft_pass<R: Real, P: collide::PairRecord<R>>(
    bodies: &[Body<R>],
    spin: Spins<R>,
    balls: &[Ball<R>],
    list: &mut NeighbourList<R>,
    planes: &[PlaneBody<R>],
    params: &CollideParams<R>,
    pairs: &mut Vec<P>,
    contact: &mut [ContactOut<R>],
    sum: bool,
) {
    if !sum {
        neighbours::resize_with_headroom(pairs, list.owned.len(), Default::default());
    }
    let (rows, kept, wall_kept) = list.rows_and_history();
    if sum {
        collide::sum_pairs(
            bodies, spin, &rows, pairs, planes, params, contact, wall_kept,
        );
    } else {
        collide::collide_pairs(bodies, spin, balls, &rows, params, pairs, kept);
    }
}

/// Checks a saved neighbour list against the scene: `n + 1` non-decreasing rows ending at the
/// entry count, partners in range, a build position and sweep per sphere, a ξ and partner id per
/// entry and a ξ per sphere and wall with friction history (none without).
fn check_list(s: &CpuState, n: usize, history: bool, walls: usize) -> Result<(), String> {
    let entries = s.list_partner.len();
    let rows_ok = s.list_start.len() == n + 1
        && s.list_start.windows(2).all(|w| w[0] <= w[1])
        && s.list_start.first() == Some(&0)
        && s.list_start.last().map(|&e| e as usize) == Some(entries)
        && entries < neighbours::NO_MIRROR as usize
        && s.list_partner.iter().all(|&j| (j as usize) < n)
        && s.x_build.len() == 3 * n
        && s.list_sweep.len() == n;
    if !rows_ok {
        return Err(format!(
            "its neighbour list ({} rows, {entries} entries) does not fit this scene of {n} \
             spheres",
            s.list_start.len(),
        ));
    }
    let (want_entries, want_walls) = if history {
        (entries, n * walls)
    } else {
        (0, 0)
    };
    if s.history_partner.len() != want_entries
        || s.history_xi.len() != 3 * want_entries
        || s.history_impact.len() != want_entries
        || s.history_rolling.len() != 3 * want_entries
        || s.wall_xi.len() != 3 * want_walls
        || s.wall_impact.len() != want_walls
        || s.wall_rolling.len() != 3 * want_walls
    {
        return Err(format!(
            "its friction history ({} contacts, {} wall values) does not fit this scene, which \
             needs {want_entries} and {want_walls}",
            s.history_partner.len(),
            s.wall_xi.len() / 3
        ));
    }
    Ok(())
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
}
