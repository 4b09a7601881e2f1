//! What the contact stage reads and writes per sphere and per wall: the bodies ([`Ball`],
//! [`Body`], [`PlaneBody`], the spins), what a contact keeps ([`ContactHistory`]), the stage's
//! parameters ([`CollideParams`], [`Round`]) and its per-sphere result ([`ContactOut`]).
//!
//! Plain data: this file imports nothing else of the stage, so that every other file of it, and
//! `neighbours`, may import it.

use crate::Real;
use crate::cpu::cell_keys::GridAxes;
use crate::physics::periodic::{PeriodicBox, minimum_image};
use crate::scene::{ContactModel, Damping, RollingModel};
use crate::setup::WallKind;

/// A sphere's centre (m) and radius (m) alone: 16 bytes in f32, so that the loops that only
/// test distances (the neighbour-list build, the list's contact pre-test) read a quarter of
/// the memory a [`Body`] takes.
/// `repr(C)`: `Real::reach_select` loads an f32 ball as four floats x, y, z, r.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct Ball<R: Real> {
    /// Centre, m.
    pub x: R::V3,
    /// Radius, m.
    pub r: R,
}

/// What the contact stage sees of one sphere.
#[derive(Clone, Copy, Debug)]
pub struct Body<R: Real> {
    /// Centre at the end of the drift, m.
    pub x: R::V3,
    /// Velocity after the first half kick, m/s.
    pub v: R::V3,
    /// Radius, m.
    pub r: R,
    /// Inverse mass, kg⁻¹ (0 = fixed).
    pub w: R,
    /// Restitution coefficient.
    pub e: R,
    /// Damping ratio ζ for `e` (see `physics::spring_dashpot::damping_ratio`): the
    /// spring–dashpot's normal dashpot and the soft laws' tangential dashpot; 0 for impulses.
    pub zeta: R,
    /// Compliance `(1 − ν²)/E`, Pa⁻¹ (Hertz law).
    pub compliance: R,
    /// Friction coefficient μ.
    pub mu: R,
    /// Input id (index in the scene), which orders the pair.
    pub id: u32,
    /// Grid cell at binning time. Every round of the step finds candidates from these cells,
    /// not from positions moved since, so both sides of a pair always see each other.
    pub cell: [i32; 3],
}

/// Cell range `[lo, hi]` (inclusive) a large sphere's swept extent covers, fixed at binning
/// time; see [`large_box`].
///
/// [`large_box`]: super::large_box
pub type CellBox = ([i32; 3], [i32; 3]);

/// A wall as the contact stage sees it: its [`WallKind`] (a plane, the inside of a spherical
/// container), whose module in `walls/` reads `point`, `normal` and `radius`, and its surface.
#[derive(Clone, Copy, Debug)]
pub struct PlaneBody<R: Real> {
    /// Which geometry the wall has (`walls::wall_gap` and the other per-kind operations
    /// dispatch on it).
    pub kind: WallKind,
    /// A point on the plane, or the container's centre, m.
    pub point: R::V3,
    /// Unit normal into the domain (planes only).
    pub normal: R::V3,
    /// Restitution coefficient.
    pub e: R,
    /// Damping ratio ζ for `e`.
    pub zeta: R,
    /// Compliance `(1 − ν²)/E`, Pa⁻¹ (Hertz law).
    pub compliance: R,
    /// Friction coefficient μ.
    pub mu: R,
    /// Rolling friction coefficient μ_r.
    pub rolling_friction: R,
    /// The inner radius R_W of a spherical container, m; `0` for a plane.
    pub radius: R,
    /// Velocity of the wall's surface, m/s, in its plane (zero for a container).
    pub velocity: R::V3,
}

/// One sphere's rotation as the contact stage reads it.
#[derive(Clone, Copy, Debug)]
pub struct SphereSpin<R: Real> {
    /// Angular velocity ω, rad/s.
    pub omega: R::V3,
    /// Inverse moment of inertia, (kg·m²)⁻¹ (0 for a fixed sphere).
    pub inv_inertia: R,
    /// Rolling friction coefficient μ_r; `None` without rolling resistance.
    pub rolling_friction: Option<R>,
}

/// The spheres' rotation as the contact stage reads it, one entry per sorted sphere: every
/// slice empty without rotation, `rolling_friction` empty without rolling resistance.
#[derive(Clone, Copy, Debug)]
pub struct Spins<'a, R: Real> {
    /// Angular velocities ω, rad/s.
    pub omega: &'a [R::V3],
    /// Inverse moments of inertia, (kg·m²)⁻¹.
    pub inv_inertia: &'a [R],
    /// Rolling friction coefficients μ_r.
    pub rolling_friction: &'a [R],
}

impl<'a, R: Real> Spins<'a, R> {
    /// No rotation.
    pub fn none() -> Self {
        Self {
            omega: &[],
            inv_inertia: &[],
            rolling_friction: &[],
        }
    }

    /// Sphere `i`'s rotation; `None` without rotation.
    #[inline(always)]
    pub fn get(&self, i: usize) -> Option<SphereSpin<R>> {
        (!self.omega.is_empty()).then(|| SphereSpin {
            omega: self.omega[i],
            inv_inertia: self.inv_inertia[i],
            rolling_friction: self.rolling_friction.get(i).copied(),
        })
    }
}

/// What a soft contact keeps from one step to the next (with contact history,
/// `setup::contact_history`): its tangential displacement and, for the Hertz law, the approach
/// speed at first touch. Both zero while apart.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactHistory<R: Real> {
    /// Tangential displacement ξ, m (friction).
    pub xi: R::V3,
    /// Approach speed δ̇⁻ when the contact began, m/s (Hertz law; 0 before the first touch).
    pub impact: R,
    /// Spring torque of the rolling resistance on the first body, N·m
    /// ([`RollingModel::Epsd`]; zero otherwise).
    pub rolling: R::V3,
}

/// Uniform parameters of the contact stage, derived from the step's parameters by
/// [`crate::params::CpuParams::collide`].
#[derive(Clone, Copy, Debug)]
pub struct CollideParams<R: Real> {
    /// Time step, s.
    pub dt: R,
    /// Contact law.
    pub model: ContactModel,
    /// Damping of the Hertz law.
    pub damping: Damping,
    /// Rolling resistance law (none without rotation).
    pub rolling: RollingModel,
    /// Spring stiffness k_n, N/m.
    pub stiffness: R,
    /// Grid cell edge h, m, and its inverse.
    pub cell_edge: R,
    /// `1 / cell_edge`, m⁻¹.
    pub inv_cell_edge: R,
    /// Number of hash buckets.
    pub table_size: u32,
    /// Sorted index of the first large sphere; large spheres fill `[n_small, N)`.
    pub n_small: u32,
    /// Largest small-sphere radius, m.
    pub small_radius_max: R,
    /// Largest small-sphere speed this step, m/s.
    pub small_speed_max: R,
    /// Approach speed below which a contact is resting (e = 0), m/s; see
    /// `physics::impulse::effective_restitution`.
    pub resting_speed: R,
    /// Neighbour-list skin s, m (0 for impulses): widens the large spheres' boxes.
    pub skin: R,
    /// The periodic box (open without periodic axes): pair separations are minimum images.
    pub periodic: PeriodicBox<R>,
    /// The grid's periodic cells, from this step's cell edge.
    pub grid: GridAxes<R>,
}

impl<R: Real> CollideParams<R> {
    /// The separation `x_b − x_a` (m) of two spheres, as a pair law sees it: the minimum image
    /// in a periodic box ([`minimum_image`]).
    #[inline(always)]
    pub fn separation(&self, x_a: R::V3, x_b: R::V3) -> R::V3 {
        minimum_image::<R>(x_b - x_a, &self.periodic)
    }
}

/// Which resolution round of the impulse model a [`sum_impulses`] pass is.
///
/// [`sum_impulses`]: super::sum_impulses
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Round {
    /// Only mutual-earliest (binary) collisions; no pushes, no contact counts.
    Matching,
    /// Every pending collision with mass splitting, then overlap pushes, plane projection and
    /// contact counts. The spring–dashpot model has only this round.
    Final,
}

/// Per-sphere result of the contact stage.
#[derive(Clone, Copy, Debug, Default)]
pub struct ContactOut<R: Real> {
    /// Velocity change, m/s (impulse model).
    pub dv: R::V3,
    /// Position change, m (impulse model: rest-of-step travel and overlap removal).
    pub dx: R::V3,
    /// Contact force, N (soft contact: normal and friction).
    pub force: R::V3,
    /// Torque of the contacts' friction and rolling resistance, N·m (soft contact with
    /// rotation).
    pub torque: R::V3,
    /// Elastic energy of the contacts this sphere owns (lower id of the pair), J.
    pub energy: R,
    /// Power dissipated by the contacts this sphere owns (damping and friction), W.
    pub power: R,
    /// Contacts this sphere owns.
    pub contacts: u32,
    /// Collisions (impulses, or soft contacts begun this step) this sphere owns.
    pub collisions: u32,
}
