//! Stage `collide`: narrow phase over the 27 neighbour cells, the large-sphere list and the planes.
//! Twin of `shaders/collide.wgsl`.
//!
//! Every sphere visits its candidates and handles each pair *symmetrically*: both sides compute
//! the same impulse (or force) from the same data, with the lower sphere id always playing `a`,
//! so the two results are bitwise equal and opposite. Momentum balances without float atomics,
//! and the result does not depend on which thread ran first.
//!
//! Impulse model (docs/physics.md §1): a pair collides when its linear relative path within the step
//! reaches contact while approaching (Nikulin's two inequalities, [`contact_fraction`]); the
//! impulse acts at the contact instant τ, and the rest of the step `(1 − τ) dt` is travelled
//! with the new velocity. A residual overlap is removed by moving the pair apart along its line
//! of centres, split by inverse mass, and turning its relative velocity so that the pair's
//! angular momentum and kinetic energy stay (`apply`). Soft contact, spring–dashpot (§2.1) or Hertz with
//! Hunt–Crossley dissipation (§2.2), with Coulomb friction (§2.3, a tangential spring): forces at the
//! end-of-drift positions, and the power they dissipate for the energy balance.
//!
//! Friction (Cundall–Strack, `physics::friction`) keeps a tangential displacement ξ per
//! contact. It lives on the neighbour list (`neighbours`), one ξ per list entry and one per
//! sphere and wall, and [`collide_pairs`] and [`sum_pairs`] read and rewrite it (the GPU's twins
//! likewise, on its own list).
//!
//! Walls are planes and the insides of spherical containers ([`PlaneBody::radius`] > 0); both
//! meet a sphere along the wall's normal at the sphere's nearest point ([`wall_gap`]).
//!
//! Summing several impulses computed from the same pre-collision velocities (Jacobi) does not
//! conserve energy when a sphere meets two movable bodies in one step. So the impulse model
//! resolves a step in rounds. [`MATCHING_ROUNDS`] × [`Round::Matching`]: [`earliest_from_pairs`]
//! finds each sphere's first event from the current velocities, and a pair's impulse is applied
//! only when each sphere is the other's earliest (fixed spheres and planes, whose velocity never
//! changes, always agree) — binary collisions, exact. Then [`Round::Final`]: every collision
//! still pending is applied at once, so no contact is ever starved, with *mass splitting*
//! (R. Tonge, F. Benevolenskiy, A. Voroshilov, "Mass splitting for jitter-free parallel rigid
//! body simulation", ACM TOG 31(4), 2012): a sphere with k pending collisions meets each partner
//! as a body of mass m/k, so each impulse is `(1 + e) u_n / (k_a w_a + k_b w_b)` and the sum is
//! the average of k binary collisions — kinetic energy cannot grow (plain Jacobi sums over-shoot:
//! +12.6 % kinetic energy in a 100 000-sphere wall-break with e ≈ 0.5). Then overlaps are pushed
//! apart and spheres projected onto the planes. In a dilute gas a sphere rarely has three events in one
//! step, so energy stays exact to rounding; in dense packings the final round keeps every contact
//! served.

use crate::Real;
use crate::physics::friction::{TANGENTIAL_STIFFNESS_RATIO, pair_friction, tangential_spring};
use crate::physics::hertz::{
    effective_modulus, effective_radius, elastic_energy, hertz_stiffness, hysteresis_factor,
    hysteresis_force, impact_speed,
};
use crate::physics::impulse::{
    effective_restitution, normal_impulse, pair_restitution, plane_velocity_change,
    push_velocity_change,
};
use crate::physics::rotation::{
    add_spin_slip, contact_arm, friction_moment, friction_torque, inverse_rolling_inertia,
    rolling_resistance, spin_lever,
};
use crate::physics::spring_dashpot::{dashpot_coefficient, normal_force};
use crate::physics::toi::{contact_fraction, plane_contact_fraction};
use crate::scene::{ContactModel, Damping, RollingModel};
use rayon::prelude::*;

use super::CHUNK;
use super::cell_keys::{BLOCK_BITS, cell_of, hash_cell, neighbour_buckets};
use super::neighbours::Rows;

pub use crate::setup::{MATCHING_ROUNDS, OVERLAP_RELAXATION};

/// True unless the pair is clearly apart: `|x_b − x_a|² ≤ 1.01 (r_a + r_b)²`, a superset of
/// [`pair_force`]'s contact test (the margin absorbs rounding and fused multiply–adds), so that
/// the pair handling runs only for pairs that may touch. [`in_reach`] with no skin.
#[inline(always)]
pub fn may_touch<R: Real>(a: &Body<R>, b: &Body<R>) -> bool {
    in_reach(a.x, a.r, b.x, b.r, R::zero())
}

/// True when spheres at `x_a`, `x_b` (m) of radii `r_a`, `r_b` (m) are within `skin` (m) of
/// touching, with a 1 % margin: `|x_b − x_a|² ≤ 1.01 (r_a + r_b + skin)²`. The neighbour list
/// (`neighbours`) holds the pairs within reach at its build.
#[inline(always)]
pub fn in_reach<R: Real>(x_a: R::V3, r_a: R, x_b: R::V3, r_b: R, skin: R) -> bool {
    let reach = r_a + r_b + skin;
    R::norm2(x_b - x_a) <= R::of(1.01) * reach * reach
}

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
pub type CellBox = ([i32; 3], [i32; 3]);

/// The cells a large sphere can reach this step: its radius plus the largest small radius plus
/// both speeds times dt, plus half the neighbour-list skin of each (the large sphere's from
/// `neighbours::sphere_skin`), around its centre at binning time.
#[inline(always)]
pub fn large_box<R: Real>(x: R::V3, v: R::V3, r: R, params: &CollideParams<R>) -> CellBox {
    let skins =
        params.skin + super::neighbours::sphere_skin(params.skin, r, params.small_radius_max);
    let reach = r
        + params.small_radius_max
        + (R::norm2(v).sqrt() + params.small_speed_max) * params.dt
        + skins * R::of(0.5);
    let reach3 = R::vec(reach, reach, reach);
    (
        cell_of::<R>(x - reach3, params.inv_cell_edge),
        cell_of::<R>(x + reach3, params.inv_cell_edge),
    )
}

#[inline(always)]
fn in_box(c: [i32; 3], b: &CellBox) -> bool {
    (0..3).all(|k| b.0[k] <= c[k] && c[k] <= b.1[k])
}

/// A wall as the contact stage sees it: a plane, or the inside of a spherical container.
#[derive(Clone, Copy, Debug)]
pub struct PlaneBody<R: Real> {
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
    /// `0` for a plane; the inner radius R_W of a spherical container, m.
    pub radius: R,
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

/// Uniform parameters of the contact stage.
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
}

/// Which resolution round of the impulse model a [`sum_impulses`] pass is.
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

/// The outcome of one sphere pair, seen from `a` (the lower id); `b` gets the opposite.
#[derive(Clone, Copy, Debug, Default)]
pub struct PairResponse<R: Real> {
    /// Unit normal from a to b.
    pub n: R::V3,
    /// Normal impulse J, N·s (impulse model).
    pub impulse: R,
    /// Time left in the step after the contact instant, `(1 − τ) dt`, s.
    pub rest: R,
    /// Fraction τ of the step at which the spheres touched (impulse model).
    pub tau: R,
    /// Residual overlap to remove after the impulse, m, split by inverse mass.
    pub push: R,
    /// Normal force magnitude on b along n, N (soft contact).
    pub force: R,
    /// Friction force on b, N (soft contact).
    pub friction: R::V3,
    /// Elastic energy of the contact (normal and tangential springs), J (soft contact).
    pub energy: R,
    /// Power dissipated by the contact's damping and friction, W (soft contact).
    pub power: R,
    /// What the contact keeps for the next step (soft contact).
    pub kept: ContactHistory<R>,
    /// Normal contact stiffness dF_el/dδ, N/m (soft contact).
    pub stiffness: R,
    /// Overlap δ, m (soft contact).
    pub overlap: R,
    /// The spheres touch or overlap at the end of the step.
    pub contact: bool,
    /// An impulse was applied (or a soft contact began).
    pub collision: bool,
}

impl<R: Real> PairResponse<R> {
    /// A matching round's view of an impulse response: the impulse acts only for a `mutual`
    /// (binary) collision; no pushes and no contact counts.
    #[inline(always)]
    fn keep_binary(&mut self, mutual: bool) {
        if !(self.collision && mutual) {
            self.impulse = R::zero();
            self.collision = false;
        }
        self.push = R::zero();
        self.contact = false;
    }
}

/// Mechanical energy a contact round gives one movable sphere of mass `m` (kg) whose velocity
/// `v` (m/s, as the round saw it) changes by `dv` and whose position changes by `dx` (m), between
/// the drift and the second half kick of a step of `dt` (s), in the field `a` (m/s²) that kicks
/// the sphere: its acceleration from the last force stage (uniform gravity, mutual gravity,
/// drag), J:
///
/// `ΔE = m [Δv·(v + ½ Δv + ½ a dt) − a·Δx]`
///
/// The energy ledger books `−ΔE` as dissipated (`Diagnostics::dissipated`; docs/physics.md
/// §4.3). Twin of `impulse_energy_change` in `shaders/common.wgsl`.
///
/// Derivation (exact in a uniform field `a = g`): a kick–drift–kick step under a constant
/// acceleration `g` conserves `½ m v² − m g·x` exactly; inserting `v → v + Δv`, `x → x + Δx`
/// before the second half kick (velocity then `v + Δv + ½ g dt`) changes the step's end energy
/// by exactly ΔE. Successive rounds add up exactly (the sum telescopes), so mass splitting,
/// overlap pushes and the projection onto walls are all counted as the velocities and positions
/// really change. Under mutual gravity the second half kick uses the field at the step's end,
/// which differs from `a` by O(dt): the terms in `a` then hold to that order. They matter: in a
/// self-gravitating pile every resting contact takes back the approach its neighbours' pull gave
/// it each step, and booking that in `g` alone (zero there) overstated the dissipation by more
/// than the infall released (docs/gravity-tree.md).
///
/// * Without a field: ΔE is the kinetic energy change `½ m (|v + Δv|² − |v|²)`. Summed over the
///   two spheres of a binary collision with `J = (1 + e) u_n / (w_a + w_b)` (Nikulin eq. 8) it
///   is `−½ μ (1 − e²) u_n²`, μ = `1/(w_a + w_b)` the reduced mass (m against a fixed sphere or
///   a wall), u_n the normal approach speed (B. Neumann, "The three-dimensional collision of two
///   spheres", 2024, §5); with `e = 0` below the resting speed (`effective_restitution`).
/// * In a uniform field, the field terms cancel over a pair of movable spheres (`Σ m Δv = 0` and
///   `Σ m Δx = 0`: both are split by inverse mass). Against a wall or a fixed sphere, with the
///   rest-of-step travel `Δx = Δv (1 − τ) dt`, ΔE is the kinetic energy change at the contact
///   instant τ, where the velocity is `v + g (τ − ½) dt`. So a sphere resting on a floor, which
///   the half kicks give `|g| dt` of approach speed each step and the contact takes back (τ = 0,
///   e = 0), loses nothing, as the mechanical energy shows.
#[inline(always)]
pub fn impulse_energy_change<R: Real>(m: R, v: R::V3, dv: R::V3, dx: R::V3, a: R::V3, dt: R) -> R {
    let half = R::of(0.5);
    m * (R::dot(dv, v + dv * half + a * (half * dt)) - R::dot(a, dx))
}

/// Unit vector along `d`, or `fallback` when `d` is (nearly) zero.
#[inline(always)]
fn unit_or<R: Real>(d: R::V3, fallback: R::V3) -> R::V3 {
    let l2 = R::norm2(d);
    if l2 > R::min_positive_value() {
        d / l2.sqrt()
    } else {
        fallback
    }
}

/// Impulse-model response of a pair (docs/physics.md §1, Nikulin's detection and return to the
/// contact point). `a` must have the lower id.
#[inline(always)]
/// `k_a`, `k_b` are the mass-splitting factors (1 for a binary collision; see [`Round::Final`]).
pub fn resolve_pair<R: Real>(
    a: &Body<R>,
    b: &Body<R>,
    dt: R,
    resting_speed: R,
    k_a: R,
    k_b: R,
) -> PairResponse<R> {
    let mut out = PairResponse::<R>::default();
    let wsum = a.w + b.w;
    if wsum == R::zero() {
        return out;
    }
    let radius_sum = a.r + b.r;
    let d1 = b.x - a.x;
    let dv = b.v - a.v;
    let delta = dv * dt;
    let d0 = d1 - delta;
    let fallback = R::vec(R::one(), R::zero(), R::zero());
    let overlapping = R::norm2(d0) <= radius_sum * radius_sum;
    let (tau, n) = if !overlapping {
        let tau = match contact_fraction::<R>(d0, delta, radius_sum) {
            Some(tau) => tau,
            // Apart at the start, touching at the end: the root is in [0, 1] but rounded past it.
            None if R::norm2(d1) <= radius_sum * radius_sum => R::one(),
            None => return out,
        };
        (tau, unit_or::<R>(d0 + delta * tau, fallback))
    } else {
        (R::zero(), unit_or::<R>(d1, fallback))
    };
    let dist1 = R::norm2(d1).sqrt();
    out.contact = dist1 <= radius_sum;
    out.n = n;
    out.tau = tau;
    // A pair that overlaps at the start meets at the end of the drift, along d1, with no travel
    // left: the impulse then acts on the line it points along, and so exerts no torque on the
    // pair (docs/physics.md §1.2). Travel from the start would act on d0 = d1 − Δv dt.
    out.rest = if overlapping {
        R::zero()
    } else {
        (R::one() - tau) * dt
    };
    let u_n = -R::dot(dv, n);
    if u_n > R::zero() {
        let e = effective_restitution(pair_restitution(a.e, b.e), u_n, resting_speed);
        out.impulse = normal_impulse(u_n, e, k_a * a.w, k_b * b.w);
        out.collision = true;
    }
    let d1c = d1 + n * (out.impulse * wsum * out.rest);
    out.push = (radius_sum - R::norm2(d1c).sqrt()).max(R::zero()) * R::of(OVERLAP_RELAXATION);
    out
}

/// Normal force of a soft contact ([`soft_normal_force`]).
#[derive(Clone, Copy, Debug)]
pub struct NormalForce<R: Real> {
    /// F_n, N.
    pub force: R,
    /// Its elastic part, N.
    pub elastic: R,
    /// Elastic energy, J.
    pub energy: R,
    /// Contact stiffness dF_el/dδ, N/m.
    pub stiffness: R,
    /// Approach speed δ̇⁻ to keep, m/s (Hertz; 0 for the spring–dashpot).
    pub impact: R,
}

/// Normal force of a soft contact for the law `model` (spring–dashpot, docs/physics.md §2.1, or
/// Hertz with the hysteresis damping `damping`, §2.2), overlap δ (m), approach speed `u_n` (m/s),
/// pair restitution `e`, damping ratio `zeta` (spring–dashpot), spring stiffness (N/m), the two
/// bodies' compliance sum (Pa⁻¹) and curvature sum (m⁻¹, Hertz), inverse-mass sum (kg⁻¹), the
/// approach speed `impact_old` stored at first touch (m/s; 0 at the first step of a contact,
/// which then stores [`impact_speed`]) and the step `dt` (s). The law uses the larger of the
/// stored δ̇⁻ and [`impact_speed`] of the present state (`physics::hertz`'s guard).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn soft_normal_force<R: Real>(
    model: ContactModel,
    damping: Damping,
    overlap: R,
    u_n: R,
    e: R,
    zeta: R,
    stiffness: R,
    compliance_sum: R,
    curvature_sum: R,
    inverse_mass_sum: R,
    impact_old: R,
    dt: R,
) -> NormalForce<R> {
    if model == ContactModel::Hertz {
        let k0 = hertz_stiffness(
            effective_modulus(compliance_sum, R::zero()),
            effective_radius(curvature_sum, R::zero()),
        );
        // δ̇⁻ as stored at first touch, but never below the speed of the contact's present
        // energy (physics::hertz, "Guard"): equal to it in a binary impact.
        let now = impact_speed(u_n, k0, inverse_mass_sum, overlap);
        let impact = if impact_old > R::zero() {
            impact_old
        } else {
            now
        };
        let root = overlap.sqrt();
        let factor = hysteresis_factor(damping, e);
        NormalForce {
            force: hysteresis_force(
                k0,
                overlap,
                u_n,
                factor,
                impact.max(now),
                inverse_mass_sum,
                dt,
            ),
            elastic: k0 * overlap * root,
            energy: elastic_energy(k0, overlap),
            stiffness: R::of(1.5) * k0 * root,
            impact,
        }
    } else {
        let c_n = dashpot_coefficient(zeta, stiffness, inverse_mass_sum);
        NormalForce {
            force: normal_force(stiffness, c_n, overlap, u_n),
            elastic: stiffness * overlap,
            energy: R::of(0.5) * stiffness * overlap * overlap,
            stiffness,
            impact: R::zero(),
        }
    }
}

/// What a soft contact does to the second body of a pair.
#[derive(Clone, Copy, Debug)]
pub struct Soft<R: Real> {
    /// Normal force magnitude along n, N.
    pub force: R,
    /// Friction force, N.
    pub friction: R::V3,
    /// Elastic energy of the normal and tangential springs, J.
    pub energy: R,
    /// Power taken out by damping and friction, W.
    pub power: R,
    /// What the contact keeps for the next step.
    pub kept: ContactHistory<R>,
    /// Normal contact stiffness dF_el/dδ, N/m.
    pub stiffness: R,
}

/// Normal force, friction and dissipated power of a soft contact with unit normal `n` (from
/// the first body to the second), overlap δ (m), relative velocity `dv` (second minus first,
/// m/s) and what the contact kept from the last step, `kept` (its tangential displacement and
/// approach speed at first touch). The power
/// `(F_n − F_el) u_n − F_t·v_t` is what damping and friction take out of kinetic plus normal
/// elastic energy. The tangential spring's energy `½ k_t |ξ|²` is not counted as elastic: it
/// is lost whenever a contact opens with ξ ≠ 0, and a sliding contact's ξ grows with the slip
/// speed (ξ is rescaled so that spring plus dashpot equal μ F_n), so counting it left the
/// ledger open by tens of per cent on sliding spheres. Booking the whole work of the
/// tangential force on the slip, `−F_t·v_t`, closes it at every step; while a contact sticks
/// its stored spring energy shows as dissipated until the spring unloads. `zeta` sets the
/// normal dashpot of the spring–dashpot and the tangential dashpot of both laws. `spin` is the
/// spheres' lever sum ([`spin_lever`], m·rad/s; `None` without rotation): friction works on the
/// contact point's slip, which adds `n × spin` ([`add_spin_slip`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn soft_contact<R: Real>(
    model: ContactModel,
    damping: Damping,
    n: R::V3,
    overlap: R,
    dv: R::V3,
    spin: Option<R::V3>,
    kept: ContactHistory<R>,
    e: R,
    zeta: R,
    mu: R,
    stiffness: R,
    compliance_sum: R,
    curvature_sum: R,
    inverse_mass_sum: R,
    dt: R,
) -> Soft<R> {
    let u_n = -R::dot(dv, n);
    let normal = soft_normal_force(
        model,
        damping,
        overlap,
        u_n,
        e,
        zeta,
        stiffness,
        compliance_sum,
        curvature_sum,
        inverse_mass_sum,
        kept.impact,
        dt,
    );
    let (f, f_el, energy, k_n) = (
        normal.force,
        normal.elastic,
        normal.energy,
        normal.stiffness,
    );
    let v_t = match spin {
        Some(s) => add_spin_slip::<R>(dv + n * u_n, n, s),
        None => dv + n * u_n,
    };
    let k_t = R::of(TANGENTIAL_STIFFNESS_RATIO) * k_n;
    // Hertz: k_n' ∝ δ^{1/2}; the overlap a step ago was δ − u_n dt.
    let k_t_old = if model == ContactModel::Hertz {
        k_t * ((overlap - u_n * dt).max(R::zero()) / overlap).sqrt()
    } else {
        k_t
    };
    let c_t = dashpot_coefficient(zeta, k_t, inverse_mass_sum);
    let t = tangential_spring::<R>(kept.xi, n, v_t, k_t, k_t_old, c_t, f, mu, dt);
    Soft {
        force: f,
        friction: t.force,
        energy,
        power: (f - f_el) * u_n - R::dot(t.force, v_t),
        kept: ContactHistory {
            xi: t.xi,
            impact: normal.impact,
            rolling: R::zero3(),
        },
        stiffness: k_n,
    }
}

/// Soft-contact response of a pair (spring–dashpot or Hertz, with friction) at the
/// end-of-drift positions, with what the pair kept from the last step (`kept`) and, with
/// rotation, the two angular velocities `spin` (rad/s, a's then b's; `None`
/// without). `a` must have the lower id.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn pair_force<R: Real>(
    a: &Body<R>,
    b: &Body<R>,
    spin: Option<(R::V3, R::V3)>,
    kept: ContactHistory<R>,
    params: &CollideParams<R>,
) -> PairResponse<R> {
    let dt = params.dt;
    let mut out = PairResponse::<R>::default();
    let wsum = a.w + b.w;
    if wsum == R::zero() {
        return out;
    }
    let radius_sum = a.r + b.r;
    let d1 = b.x - a.x;
    let dist2 = R::norm2(d1);
    if dist2 > radius_sum * radius_sum {
        return out;
    }
    let n = unit_or::<R>(d1, R::vec(R::one(), R::zero(), R::zero()));
    let overlap = radius_sum - dist2.sqrt();
    let dv = b.v - a.v;
    let spin = spin.map(|(omega_a, omega_b)| {
        spin_lever::<R>(
            contact_arm(a.r, overlap),
            omega_a,
            contact_arm(b.r, overlap),
            omega_b,
        )
    });
    let soft = soft_contact(
        params.model,
        params.damping,
        n,
        overlap,
        dv,
        spin,
        kept,
        pair_restitution(a.e, b.e),
        a.zeta.max(b.zeta),
        pair_friction(a.mu, b.mu),
        params.stiffness,
        a.compliance + b.compliance,
        a.r.recip() + b.r.recip(),
        wsum,
        dt,
    );
    out.n = n;
    out.force = soft.force;
    out.friction = soft.friction;
    out.energy = soft.energy;
    out.power = soft.power;
    out.kept = soft.kept;
    out.stiffness = soft.stiffness;
    out.overlap = overlap;
    out.contact = true;
    // Began this step: apart at the start of the drift.
    let d0 = d1 - dv * dt;
    out.collision = R::norm2(d0) > radius_sum * radius_sum;
    out
}

/// The earliest collision of a sphere within the step: fraction τ and partner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Event<R: Real> {
    /// Fraction of the step, in [0, 1]; `inf` for none.
    pub tau: R,
    /// Input id of the partner sphere, or [`PLANE_EVENT`]` | plane index`, or [`NO_EVENT`].
    pub partner: u32,
    /// Number of collisions (spheres and planes) the sphere has pending: the `k` of the final
    /// round's mass splitting.
    pub count: u32,
}

/// Partner tag of a plane event (high bit set, low bits the plane index).
pub const PLANE_EVENT: u32 = 0x8000_0000;
/// Partner of a sphere with no event this step.
pub const NO_EVENT: u32 = u32::MAX;

impl<R: Real> Default for Event<R> {
    fn default() -> Self {
        Self {
            tau: R::infinity(),
            partner: NO_EVENT,
            count: 0,
        }
    }
}

impl<R: Real> Event<R> {
    /// Keeps the earliest of `self` and the sphere's wall events within the step.
    #[inline(always)]
    fn keep_plane_events(&mut self, me: &Body<R>, planes: &[PlaneBody<R>], dt: R) {
        for (k, plane) in planes.iter().enumerate() {
            if let Some(tau) = plane_event(me, plane, dt) {
                self.keep_earliest(tau, PLANE_EVENT | k as u32);
            }
        }
    }

    /// Keeps the earlier of `self` and (tau, partner). Ties go to planes first (a resting
    /// sphere's floor before its neighbours), then to the lower id, so the choice does not depend
    /// on visiting order.
    #[inline(always)]
    fn keep_earliest(&mut self, tau: R, partner: u32) {
        self.count += 1;
        if tau < self.tau
            || (tau == self.tau && (partner ^ PLANE_EVENT) < (self.partner ^ PLANE_EVENT))
        {
            self.tau = tau;
            self.partner = partner;
        }
    }
}

/// Adds the pair's effect on `me` (which is `a` when `me_is_a`; `other` is the partner, the
/// same bodies [`resolve_pair`] saw) to `acc`; counts are added by `a` only, so each pair is
/// counted once.
///
/// Impulse model: the impulse `J n` (with its rest-of-step travel), then the overlap push. The
/// push moves the pair apart by `s` along its separation `d` after the impulse's travel (the
/// line the overlap was measured on), split by inverse mass, and changes the relative velocity
/// by `physics::impulse::push_velocity_change`, split the same way: linear and angular momentum
/// and kinetic energy stay (docs/physics.md §1.2). Moving positions alone at unchanged velocity changed the angular
/// momentum by `μ s d̂ × v` a push: a spinning pile gained 95 % (docs/gravity-tree.md).
#[inline(always)]
fn apply<R: Real>(
    acc: &mut ContactOut<R>,
    p: &PairResponse<R>,
    me: &Body<R>,
    other: &Body<R>,
    wsum: R,
    me_is_a: bool,
) {
    let sign = if me_is_a { -R::one() } else { R::one() };
    if p.impulse != R::zero() || p.push != R::zero() {
        let dv = p.n * (sign * p.impulse * me.w);
        acc.dv += dv;
        // Separate additions, in this order, as in the WGSL twin: written as one, `acc + (a + b)`,
        // lavapipe's compiled shader added `(acc + a) + b`, and the backends parted by an ulp.
        acc.dx += dv * p.rest;
        if p.push != R::zero() {
            // From `a`'s side, as resolve_pair computed the push: the same bits on both sides.
            let (a, b) = if me_is_a { (me, other) } else { (other, me) };
            let d = (b.x - a.x) + p.n * (p.impulse * wsum * p.rest);
            let v = (b.v - a.v) + p.n * (p.impulse * wsum);
            let axis = unit_or::<R>(d, p.n);
            let share = sign * me.w / wsum;
            acc.dx += axis * (share * p.push);
            acc.dv += push_velocity_change(axis, R::norm2(d).sqrt(), v, p.push) * share;
        }
    }
    if p.force != R::zero() {
        acc.force += (p.n * p.force + p.friction) * sign;
    }
    if me_is_a {
        acc.energy += p.energy;
        acc.power += p.power;
        acc.contacts += p.contact as u32;
        acc.collisions += p.collision as u32;
    }
}

/// Whether a pair's impulse is binary this step: each sphere is the other's earliest event, or
/// is fixed (a fixed sphere's velocity never changes, so it can take any number of impulses).
#[inline(always)]
fn is_mutual<R: Real>(me: &Body<R>, mine: u32, other: &Body<R>, theirs: u32) -> bool {
    (me.w == R::zero() || mine == other.id) && (other.w == R::zero() || theirs == me.id)
}

/// Signed gap `s` (m) of a sphere of radius `r` centred at `x` to a wall, and the wall's unit
/// normal `n` into the domain at the sphere's nearest point. Plane: `s = (x − o)·n − r`.
/// Spherical container of radius R_W about c: `s = R_W − |x − c| − r`, `n = −(x − c)/|x − c|`.
#[inline(always)]
pub fn wall_gap<R: Real>(x: R::V3, r: R, wall: &PlaneBody<R>) -> (R, R::V3) {
    if wall.radius > R::zero() {
        let d = x - wall.point;
        let n = unit_or::<R>(-d, wall.normal);
        (wall.radius - R::norm2(d).sqrt() - r, n)
    } else {
        (R::dot(x - wall.point, wall.normal) - r, wall.normal)
    }
}

/// Gap of a sphere to a wall at the end of the drift (m), `v·n` (m/s) and the normal `n`
/// ([`wall_gap`]).
#[inline(always)]
fn plane_gap<R: Real>(me: &Body<R>, plane: &PlaneBody<R>) -> (R, R, R::V3) {
    let (s, n) = wall_gap(me.x, me.r, plane);
    (s, R::dot(me.v, n), n)
}

/// Fraction of the step at which a sphere meets a plane while approaching it, if it does.
#[inline(always)]
pub fn plane_event<R: Real>(me: &Body<R>, plane: &PlaneBody<R>, dt: R) -> Option<R> {
    if me.w == R::zero() {
        return None;
    }
    let (s1, vn, _) = plane_gap(me, plane);
    if vn >= R::zero() {
        return None;
    }
    let s0 = s1 - vn * dt;
    if s0 > R::zero() {
        (s1 <= R::zero()).then(|| plane_contact_fraction(s0, s1))
    } else {
        Some(R::zero())
    }
}

/// Sphere–wall response (docs/physics.md §1 for impulses, §2 for soft contact), added to
/// `acc`. Planes are immovable. Impulse model: in the matching round the impulse acts when the
/// plane is the sphere's `earliest` event, in the final round whenever the sphere reaches the
/// plane approaching it; it acts at the contact instant and the sphere travels the rest of the
/// step with its new velocity. Projection onto the plane is [`project_onto_planes`].
#[inline(always)]
/// `k_me` is the sphere's mass-splitting factor in the final round (1 otherwise); `kept` what
/// the contact kept from the last step (soft contact); `spin` the sphere's rotation (`None` without):
/// the wall's friction and rolling resistance ([`rolling_resistance`], the wall's rolling friction
/// with the sphere's as for μ) turn it. Returns the ξ to keep when a soft contact is on.
#[allow(clippy::too_many_arguments)]
pub fn plane_contact<R: Real>(
    acc: &mut ContactOut<R>,
    me: &Body<R>,
    plane: &PlaneBody<R>,
    round: Round,
    earliest: bool,
    k_me: R,
    kept: ContactHistory<R>,
    spin: Option<SphereSpin<R>>,
    params: &CollideParams<R>,
) -> Option<ContactHistory<R>> {
    if me.w == R::zero() {
        return None;
    }
    let (s1, vn, n) = plane_gap(me, plane);
    match params.model {
        ContactModel::Impulse => {
            let event = plane_event(me, plane, params.dt);
            let act = match round {
                Round::Matching => earliest,
                Round::Final => event.is_some(),
            };
            if act {
                let tau = event.unwrap_or(R::zero());
                let e = effective_restitution(
                    pair_restitution(me.e, plane.e),
                    -vn,
                    params.resting_speed,
                );
                let dv = plane_velocity_change::<R>(me.v, n, e) / k_me;
                acc.dv += dv;
                acc.dx += dv * ((R::one() - tau) * params.dt);
                acc.collisions += 1;
            }
            if round == Round::Final {
                acc.contacts += (s1 <= R::zero()) as u32;
            }
            None
        }
        ContactModel::SpringDashpot | ContactModel::Hertz => {
            if s1 > R::zero() {
                return None;
            }
            // The wall is the first body (immovable, curvature 0 or −1/R_W), the sphere the
            // second: the normal force acts along n on the sphere.
            let arm = contact_arm(me.r, -s1);
            let lever = spin.map(|s| spin_lever::<R>(R::zero(), R::zero3(), arm, s.omega));
            let soft = soft_contact(
                params.model,
                params.damping,
                n,
                -s1,
                me.v,
                lever,
                kept,
                pair_restitution(me.e, plane.e),
                me.zeta.max(plane.zeta),
                pair_friction(me.mu, plane.mu),
                params.stiffness,
                me.compliance + plane.compliance,
                me.r.recip() + wall_curvature(plane),
                me.w,
                params.dt,
            );
            // The sphere is body a of its rolling resistance: the torque is the sphere's.
            let mut keep = soft.kept;
            let (rolling, rolling_power) = match spin {
                Some(SphereSpin {
                    omega,
                    inv_inertia,
                    rolling_friction: Some(mu_r),
                }) if soft.force != R::zero() => {
                    let (torque, spring, power) = rolling_resistance::<R>(
                        params.rolling,
                        n,
                        omega,
                        R::zero3(),
                        kept.rolling,
                        pair_friction(mu_r, plane.rolling_friction),
                        effective_radius(me.r.recip(), wall_curvature(plane)),
                        soft.force,
                        soft.stiffness,
                        inv_inertia,
                        if params.rolling == RollingModel::Epsd {
                            inverse_rolling_inertia(inv_inertia, me.w, me.r)
                        } else {
                            R::zero()
                        },
                        params.dt,
                    );
                    keep.rolling = spring;
                    (torque, power)
                }
                _ => (R::zero3(), R::zero()),
            };
            acc.force += n * soft.force + soft.friction;
            if spin.is_some() {
                acc.torque += friction_torque(arm, friction_moment::<R>(n, soft.friction));
                acc.torque += rolling;
            }
            acc.energy += soft.energy;
            acc.power += soft.power + rolling_power;
            acc.contacts += 1;
            acc.collisions += (s1 - vn * params.dt > R::zero()) as u32;
            Some(keep)
        }
    }
}

/// Curvature of a wall as the Hertz law sees it, m⁻¹: `0` for a plane, `−1/R_W` for the inside
/// of a spherical container (docs/physics.md §2.2).
#[inline(always)]
pub fn wall_curvature<R: Real>(wall: &PlaneBody<R>) -> R {
    if wall.radius > R::zero() {
        -wall.radius.recip()
    } else {
        R::zero()
    }
}

/// Last act of the impulse model's final round: a sphere that would end below a plane is put
/// back on it (Nikulin eq. 9), and a velocity still pointing into the plane gets the plane's
/// impulse law (with e = 0 that is the projection of eq. 9: it slides instead of sinking).
/// Applied to the sphere's accumulated position and velocity changes, after every pair push.
#[inline(always)]
pub fn project_onto_planes<R: Real>(
    acc: &mut ContactOut<R>,
    me: &Body<R>,
    planes: &[PlaneBody<R>],
    resting_speed: R,
) {
    if me.w == R::zero() {
        return;
    }
    for plane in planes {
        let (s, n) = wall_gap(me.x + acc.dx, me.r, plane);
        if s < R::zero() {
            acc.dx -= n * s;
            let v = me.v + acc.dv;
            let e = effective_restitution(
                pair_restitution(me.e, plane.e),
                -R::dot(v, n),
                resting_speed,
            );
            acc.dv += plane_velocity_change::<R>(v, n, e);
        }
    }
}

/// Word and bit of bucket `k` in the 256-bit filter (eight words) of the buckets a candidate
/// walk has seen:
/// the top byte of a multiplicative (Fibonacci) hash, since the bucket's low bits repeat from
/// one block of cells to the next.
#[inline(always)]
pub fn seen_filter_bit(k: u32) -> (usize, u32) {
    let b = k.wrapping_mul(SEEN_FILTER_MULTIPLIER) >> 24;
    ((b >> 5) as usize, 1u32 << (b & 31))
}

/// Multiplier of [`seen_filter_bit`]: ⌊2³² / φ⌋ (Knuth, TAOCP vol. 3, §6.4).
pub const SEEN_FILTER_MULTIPLIER: u32 = 0x9E37_79B9;

/// Calls `f(bucket)` with the sorted-index range of each of the 27 neighbour buckets of `cell`,
/// each bucket once, in [`for_each_candidate`]'s order. A bucket may also hold spheres of a cell
/// that is not a neighbour (hash aliasing); those are more than one cell edge away, so they
/// cannot touch within the step and the pair functions reject them. This is cheaper than
/// checking every candidate's cell.
#[inline(always)]
pub(crate) fn for_each_neighbour_bucket<R: Real>(
    cell: [i32; 3],
    cell_start: &[u32],
    counts: &[u32],
    params: &CollideParams<R>,
    mut f: impl FnMut(std::ops::Range<usize>),
) {
    let buckets = neighbour_buckets(cell, params.table_size);
    if params.table_size >= 1 << (3 * BLOCK_BITS) {
        // At least one block of buckets: the 27 are distinct (`neighbour_buckets`).
        for k in buckets {
            let start = cell_start[k as usize] as usize;
            f(start..start + counts[k as usize] as usize);
        }
        return;
    }
    let mut seen = [u32::MAX; 27];
    let mut n_seen = 0;
    // A 256-bit filter of the buckets seen: a bucket not in it is new without a search of
    // `seen` (27 buckets would cost 351 comparisons a sphere).
    let mut seen_bits = [0u32; 8];
    for k in buckets {
        let (word, bit) = seen_filter_bit(k);
        if seen_bits[word] & bit != 0 && seen[..n_seen].contains(&k) {
            continue;
        }
        seen_bits[word] |= bit;
        seen[n_seen] = k;
        n_seen += 1;
        let start = cell_start[k as usize] as usize;
        f(start..start + counts[k as usize] as usize);
    }
}

/// Calls `f(j)` for each large sphere `j` (sorted index) whose box holds `cell`, in order: the
/// large candidates of a small sphere in `cell`.
#[inline(always)]
pub(crate) fn for_each_large_over<R: Real>(
    cell: [i32; 3],
    boxes: &[CellBox],
    params: &CollideParams<R>,
    mut f: impl FnMut(usize),
) {
    for (k, b) in boxes.iter().enumerate() {
        if in_box(cell, b) {
            f(params.n_small as usize + k);
        }
    }
}

/// Calls `f(j, other)` for every candidate partner of sorted sphere `i`: small spheres in the 27
/// neighbour buckets of its binned cell, or, for a large sphere, in the cells of its box; large
/// spheres (a small sphere takes a large one only when its cell lies in that one's box). Each
/// candidate comes at most once; `i` itself is skipped. The relation is symmetric: j is a
/// candidate of i exactly when i is one of j, or the pair is too far apart to touch (hash
/// aliasing). `boxes[k]` is the box of large sphere `n_small + k`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn for_each_candidate<R: Real>(
    i: usize,
    bodies: &[Body<R>],
    boxes: &[CellBox],
    cell_start: &[u32],
    counts: &[u32],
    params: &CollideParams<R>,
    mut f: impl FnMut(usize, &Body<R>),
) {
    let n_small = params.n_small as usize;
    let (small, large) = bodies.split_at(n_small);
    let me = &bodies[i];
    if i < n_small {
        let cell = me.cell;
        for_each_neighbour_bucket(cell, cell_start, counts, params, |bucket| {
            let start = bucket.start;
            for (j, other) in small[bucket].iter().enumerate() {
                if start + j != i {
                    f(start + j, other);
                }
            }
        });
        for_each_large_over(cell, boxes, params, |j| f(j, &large[j - n_small]));
    } else {
        let b = &boxes[i - n_small];
        let ncells: f64 = (0..3)
            .map(|a| (b.1[a] as i64 - b.0[a] as i64 + 1) as f64)
            .product();
        if ncells > n_small as f64 {
            // Fewer spheres than cells: test every small sphere's cell against the box.
            for (j, other) in small.iter().enumerate() {
                if in_box(other.cell, b) {
                    f(j, other);
                }
            }
        } else {
            for cz in b.0[2]..=b.1[2] {
                for cy in b.0[1]..=b.1[1] {
                    for cx in b.0[0]..=b.1[0] {
                        let c = [cx, cy, cz];
                        let k = hash_cell(c, params.table_size) as usize;
                        let start = cell_start[k] as usize;
                        let end = start + counts[k] as usize;
                        // Buckets alias cells: take only this cell's spheres, so none comes twice.
                        for (j, other) in small[start..end].iter().enumerate() {
                            if other.cell == c {
                                f(start + j, other);
                            }
                        }
                    }
                }
            }
        }
        // Large–large pairs: always (both sides test every large sphere).
        for (k, other) in large.iter().enumerate() {
            if n_small + k != i {
                f(n_small + k, other);
            }
        }
    }
}

/// One soft-contact pair's result, as its lower-id sphere evaluated it ([`collide_pairs`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct PairOut<R: Real> {
    /// Force on the pair's higher-id sphere, N (`n F_n + F_t`; the lower-id one gets minus it).
    pub force: R::V3,
    /// Elastic energy of the contact, J.
    pub energy: R,
    /// Power dissipated by the contact, W.
    pub power: R,
    /// [`PAIR_CONTACT`], [`PAIR_COLLISION`], [`PAIR_FORCE`] bits.
    pub flags: u32,
}

/// A [`PairOut`] with what rotation needs: the friction's [`friction_moment`] `n × F_t` (N),
/// from which each sphere turns by [`friction_torque`] with its own arm, and the overlap δ (m)
/// that sets the arms ([`contact_arm`]). Zero for a pair without a force.
#[derive(Clone, Copy, Debug, Default)]
pub struct SpinPairOut<R: Real> {
    /// The pair's result without rotation.
    pub out: PairOut<R>,
    /// `n × F_t`, N.
    pub moment: R::V3,
    /// Overlap δ, m.
    pub overlap: R,
}

/// A [`SpinPairOut`] with the pair's rolling resistance torque on its lower-id sphere, N·m
/// ([`rolling_resistance`]; the other sphere gets minus it).
#[derive(Clone, Copy, Debug, Default)]
pub struct RollPairOut<R: Real> {
    /// The pair's result without rolling resistance.
    pub spin: SpinPairOut<R>,
    /// Rolling resistance torque on the lower-id sphere, N·m.
    pub rolling: R::V3,
}

/// One list entry's record of a soft-contact pair: [`PairOut`] without rotation (so that a scene
/// without it moves no more bytes than before rotation existed), [`SpinPairOut`] with, and
/// [`RollPairOut`] with rolling resistance.
pub trait PairRecord<R: Real>: Copy + Default + Send + Sync {
    /// The record of a pair's result, with its friction moment, overlap and rolling resistance
    /// torque (dropped by the records without them).
    fn new(out: PairOut<R>, moment: R::V3, overlap: R, rolling: R::V3) -> Self;
    /// The result without rotation.
    fn out(&self) -> &PairOut<R>;
    /// The friction moment (N) and overlap (m); `None` for a record without rotation.
    fn spin(&self) -> Option<(R::V3, R)>;
    /// The rolling resistance torque on the lower-id sphere (N·m); `None` for a record without
    /// rolling resistance.
    #[inline(always)]
    fn rolling(&self) -> Option<R::V3> {
        None
    }
}

impl<R: Real> PairRecord<R> for PairOut<R> {
    #[inline(always)]
    fn new(out: PairOut<R>, _: R::V3, _: R, _: R::V3) -> Self {
        out
    }
    #[inline(always)]
    fn out(&self) -> &PairOut<R> {
        self
    }
    #[inline(always)]
    fn spin(&self) -> Option<(R::V3, R)> {
        None
    }
}

impl<R: Real> PairRecord<R> for SpinPairOut<R> {
    #[inline(always)]
    fn new(out: PairOut<R>, moment: R::V3, overlap: R, _: R::V3) -> Self {
        Self {
            out,
            moment,
            overlap,
        }
    }
    #[inline(always)]
    fn out(&self) -> &PairOut<R> {
        &self.out
    }
    #[inline(always)]
    fn spin(&self) -> Option<(R::V3, R)> {
        Some((self.moment, self.overlap))
    }
}

impl<R: Real> PairRecord<R> for RollPairOut<R> {
    #[inline(always)]
    fn new(out: PairOut<R>, moment: R::V3, overlap: R, rolling: R::V3) -> Self {
        Self {
            spin: SpinPairOut::new(out, moment, overlap, rolling),
            rolling,
        }
    }
    #[inline(always)]
    fn out(&self) -> &PairOut<R> {
        &self.spin.out
    }
    #[inline(always)]
    fn spin(&self) -> Option<(R::V3, R)> {
        self.spin.spin()
    }
    #[inline(always)]
    fn rolling(&self) -> Option<R::V3> {
        Some(self.rolling)
    }
}

/// [`PairOut::flags`]: the spheres touch.
pub const PAIR_CONTACT: u32 = 1;
/// [`PairOut::flags`]: the contact began this step.
pub const PAIR_COLLISION: u32 = 2;
/// [`PairOut::flags`]: the normal force is non-zero, so the force is applied.
pub const PAIR_FORCE: u32 = 4;

/// Soft contact from the neighbour list, first half: every pair once, by its lower-id sphere
/// (the list's owned entries): [`pair_force`] at the end-of-drift positions into `pairs[k]`, k
/// the pair's index ([`Rows::pair`] of both its entries; zero for a pair apart), so that
/// [`sum_pairs`] reads each row in order. `balls` (centres and radii) screen the entries with
/// [`in_reach`] (no skin) before the bodies are read; `spin` is the spheres' rotation
/// ([`Spins::none`] without); with rolling friction a pair with a force gets its
/// [`rolling_resistance`] (μ_r the smaller of the two, `1/R* = 1/r_a + 1/r_b`), whose power joins
/// the pair's. With contact history `kept` holds what each entry's contact keeps
/// ([`ContactHistory`]), read as last step's and overwritten with this step's (zero when apart)
/// on the owned entries; without, it is empty. `pairs` holds at least one record per owned
/// entry.
#[allow(clippy::too_many_arguments)]
pub fn collide_pairs<R: Real, P: PairRecord<R>>(
    bodies: &[Body<R>],
    spin: Spins<R>,
    balls: &[Ball<R>],
    rows: &Rows<'_>,
    params: &CollideParams<R>,
    pairs: &mut [P],
    kept: &mut [ContactHistory<R>],
) {
    let history = !kept.is_empty();
    // may_touch, from the compact array: most entries are apart.
    let screen =
        |i: usize, j: usize| in_reach(balls[i].x, balls[i].r, balls[j].x, balls[j].r, R::zero());
    let eval = |i: usize, j: usize, kept: Option<&mut ContactHistory<R>>, _: &P| {
        let me = &bodies[i];
        let old = kept.as_ref().map_or(ContactHistory::default(), |k| **k);
        let other = &bodies[j];
        let p = pair_force(
            me,
            other,
            (!spin.omega.is_empty()).then(|| (spin.omega[i], spin.omega[j])),
            old,
            params,
        );
        let force = p.force != R::zero();
        let (moment, overlap) = if force {
            (friction_moment::<R>(p.n, p.friction), p.overlap)
        } else {
            (R::zero3(), R::zero())
        };
        let mut keep = p.kept;
        let (rolling, rolling_power) = if force && !spin.rolling_friction.is_empty() {
            let (ii, ij) = (spin.inv_inertia[i], spin.inv_inertia[j]);
            let (torque, spring, power) = rolling_resistance::<R>(
                params.rolling,
                p.n,
                spin.omega[i],
                spin.omega[j],
                old.rolling,
                pair_friction(spin.rolling_friction[i], spin.rolling_friction[j]),
                effective_radius(me.r.recip(), other.r.recip()),
                p.force,
                p.stiffness,
                ii + ij,
                // Type C's only: no divisions for the others.
                if params.rolling == RollingModel::Epsd {
                    inverse_rolling_inertia(ii, me.w, me.r)
                        + inverse_rolling_inertia(ij, other.w, other.r)
                } else {
                    R::zero()
                },
                params.dt,
            );
            keep.rolling = spring;
            (torque, power)
        } else {
            (R::zero3(), R::zero())
        };
        if let Some(kept) = kept {
            *kept = if p.contact {
                keep
            } else {
                ContactHistory::default()
            };
        }
        let out = PairOut {
            force: if force {
                p.n * p.force + p.friction
            } else {
                R::zero3()
            },
            energy: p.energy,
            power: p.power + rolling_power,
            flags: (p.contact as u32 * PAIR_CONTACT)
                | (p.collision as u32 * PAIR_COLLISION)
                | (force as u32 * PAIR_FORCE),
        };
        Some(P::new(out, moment, overlap, rolling))
    };
    debug_assert!(!history || kept.len() == rows.partner.len());
    evaluate_pairs(
        rows,
        pairs,
        kept,
        Some(P::default()),
        &screen,
        balls,
        bodies,
        &eval,
    );
}

/// Asks the cache for `items[k]` (nothing when out of range or off x86-64): the screen of
/// [`evaluate_pairs`] knows the partners a batch ahead of their evaluation.
#[inline(always)]
fn prefetch<B>(items: &[B], k: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(item) = items.get(k) {
        // SAFETY: a prefetch is a hint; it never faults, and the address is in bounds.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                (item as *const B).cast(),
            )
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (items, k);
}

/// Owned entries [`evaluate_pairs`] screens before it evaluates the hits.
const SCREEN_BATCH: usize = 64;
/// How many owned entries ahead the screen asks for a partner's [`Ball`].
const SCREEN_AHEAD: usize = 16;

/// Evaluates every listed pair once, by its lower-id sphere (the list's
/// [`owned`](super::neighbours::NeighbourList::owned) entries), and stores the result
/// `f(i, j, state, current)` at the pair's index k in that list, `out[k]`, or leaves it as it is
/// when it is `None`. `state` is per-entry state of the owned entry (one per entry, or empty:
/// then `f` gets `None`); `current` the pair's value now. With `miss` given, a pair that fails
/// `screen(i, j)` is not evaluated: `miss` is stored and its state reset to the default. Blocks
/// of [`CHUNK`] spheres run in parallel.
///
/// The screen runs over a batch of entries first and the hits are evaluated after, so the
/// evaluation has no branch that depends on the pair: a row mixes pairs in and out of reach at
/// random, and a mispredicted branch per pair stalled the loop on it. While it screens, it asks
/// the cache for the `screened[j]` of the partner [`SCREEN_AHEAD`] entries on and for the
/// `touch[j]` the evaluation will read (either may be empty), since the partners lie at random
/// in memory and `perf annotate` put the stalls on their loads. Results go to the pair, not to
/// its two entries, so the stores run in order; the row sums read them through
/// [`pair`](super::neighbours::NeighbourList::pair).
#[allow(clippy::too_many_arguments)]
fn evaluate_pairs<T: Copy + Send + Sync, U: Send + Default, S: Sync, B: Sync>(
    rows: &Rows<'_>,
    out: &mut [T],
    state: &mut [U],
    miss: Option<T>,
    screen: &(impl Fn(usize, usize) -> bool + Sync),
    screened: &[S],
    touch: &[B],
    f: &(impl Fn(usize, usize, Option<&mut U>, &T) -> Option<T> + Sync),
) {
    /// `out` shared by the blocks, each of which stores the pairs it owns.
    struct Shared<T>(*mut T, usize);
    // SAFETY: a pair index belongs to one block (its owned entry's), and nobody reads `out`
    // until the parallel loop has joined.
    unsafe impl<T: Send> Sync for Shared<T> {}
    impl<T> Shared<T> {
        #[inline(always)]
        fn write(&self, k: usize, v: T) {
            assert!(k < self.1);
            // SAFETY: in bounds (checked) and written by the pair's own block only.
            unsafe { self.0.add(k).write(v) }
        }
        #[inline(always)]
        fn read(&self, k: usize) -> T
        where
            T: Copy,
        {
            assert!(k < self.1);
            // SAFETY: in bounds (checked); only the pair's own block accesses it.
            unsafe { self.0.add(k).read() }
        }
    }
    let Rows {
        start,
        partner,
        owned,
        owned_block,
        ..
    } = *rows;
    assert!(out.len() >= owned.len());
    let shared = Shared(out.as_mut_ptr(), out.len());
    super::neighbours::for_each_block(start, state, &mut [(); 0], &|b, state, _| {
        let base = start[b * CHUNK] as usize;
        let first = owned_block[b] as usize;
        let items = &owned[first..owned_block[b + 1] as usize];
        let mut hits = [0u8; SCREEN_BATCH];
        for (c, batch) in items.chunks(SCREEN_BATCH).enumerate() {
            let at = first + c * SCREEN_BATCH;
            let mut found = 0;
            for (k, &[i, e]) in batch.iter().enumerate() {
                if let Some(&[_, ahead]) = items.get(c * SCREEN_BATCH + k + SCREEN_AHEAD) {
                    prefetch(screened, partner[ahead as usize] as usize);
                }
                hits[found] = k as u8;
                let Some(miss) = miss else {
                    found += 1;
                    continue;
                };
                let e = e as usize;
                let j = partner[e] as usize;
                let hit = screen(i as usize, j);
                found += hit as usize;
                prefetch(touch, j);
                // Every pair, hit or not: a hit's is overwritten below.
                shared.write(at + k, miss);
                if !state.is_empty() && !hit {
                    state[e - base] = U::default();
                }
            }
            for &k in &hits[..found] {
                let [i, e] = batch[k as usize];
                let (i, e, k) = (i as usize, e as usize, at + k as usize);
                let current = shared.read(k);
                if let Some(po) = f(i, partner[e] as usize, state.get_mut(e - base), &current) {
                    shared.write(k, po);
                }
            }
        }
    });
}

/// One impulse-model pair's response, as its lower-id sphere evaluated it
/// ([`impulse_pairs`]): the parts of [`PairResponse`] the impulse model uses.
#[derive(Clone, Copy, Debug, Default)]
pub struct PairImpulse<R: Real> {
    /// Unit normal from the lower-id sphere to the other.
    pub n: R::V3,
    /// Normal impulse J, N·s.
    pub impulse: R,
    /// Time left in the step after the contact instant, s.
    pub rest: R,
    /// Fraction τ of the step at which the spheres touched.
    pub tau: R,
    /// Residual overlap to remove, m.
    pub push: R,
    /// [`PAIR_CONTACT`], [`PAIR_COLLISION`] bits.
    pub flags: u32,
}

impl<R: Real> PairImpulse<R> {
    /// The pair response this stands for (soft-contact fields zero).
    #[inline(always)]
    fn response(&self) -> PairResponse<R> {
        PairResponse {
            n: self.n,
            impulse: self.impulse,
            rest: self.rest,
            tau: self.tau,
            push: self.push,
            contact: self.flags & PAIR_CONTACT != 0,
            collision: self.flags & PAIR_COLLISION != 0,
            ..PairResponse::default()
        }
    }
}

/// Impulse model from the neighbour list, first half of a round: [`resolve_pair`] of every
/// listed pair once, by its lower-id sphere, into `pairs[k]`, k the pair's index
/// ([`Rows::pair`]).
///
/// * Binary (k = 1, an empty `earliest`): with an empty `moved` every pair is evaluated;
///   otherwise `pairs` must hold the binary responses from the same bodies except those with
///   `moved[i]`, and only pairs with a moved sphere are evaluated again.
/// * Final round (`earliest` given): `pairs` must hold the binary responses of these bodies;
///   the colliding pairs are evaluated again with the mass-splitting factors
///   `earliest[i].count.max(1)`. A pair that does not collide has no impulse, so its response
///   does not depend on them.
///
/// Either way the result is bit for bit that of evaluating every pair afresh.
#[allow(clippy::too_many_arguments)]
pub fn impulse_pairs<R: Real>(
    bodies: &[Body<R>],
    rows: &Rows<'_>,
    earliest: &[Event<R>],
    moved: &[bool],
    params: &CollideParams<R>,
    pairs: &mut [PairImpulse<R>],
) {
    let split = !earliest.is_empty();
    let k_of = |i: usize| {
        earliest
            .get(i)
            .map_or(R::one(), |ev| R::of(ev.count.max(1) as f64))
    };
    let eval = |i: usize, j: usize, _: Option<&mut ()>, current: &PairImpulse<R>| {
        if split {
            if current.flags & PAIR_COLLISION == 0 {
                return None;
            }
        } else if !moved.is_empty() && !moved[i] && !moved[j] {
            return None;
        }
        let p = resolve_pair(
            &bodies[i],
            &bodies[j],
            params.dt,
            params.resting_speed,
            k_of(i),
            k_of(j),
        );
        Some(PairImpulse {
            n: p.n,
            impulse: p.impulse,
            rest: p.rest,
            tau: p.tau,
            push: p.push,
            flags: (p.contact as u32 * PAIR_CONTACT) | (p.collision as u32 * PAIR_COLLISION),
        })
    };
    evaluate_pairs::<_, (), (), Body<R>>(rows, pairs, &mut [], None, &|_, _| true, &[], &[], &eval);
}

/// Impulse model from the neighbour list: each sphere's earliest event and pending count, from
/// the binary ([`impulse_pairs`] without `earliest`) responses of its entries and from the
/// walls, into `earliest`. The choice does not depend on order.
pub fn earliest_from_pairs<R: Real>(
    bodies: &[Body<R>],
    rows: &Rows<'_>,
    pairs: &[PairImpulse<R>],
    planes: &[PlaneBody<R>],
    params: &CollideParams<R>,
    earliest: &mut [Event<R>],
) {
    use super::neighbours::NO_PAIR;
    let Rows {
        start,
        partner,
        pair,
        ..
    } = *rows;
    earliest.par_iter_mut().enumerate().for_each(|(i, ev)| {
        *ev = Event::default();
        let me = &bodies[i];
        if me.w == R::zero() {
            return;
        }
        for e in start[i] as usize..start[i + 1] as usize {
            let k = pair[e];
            if k == NO_PAIR {
                continue;
            }
            let p = &pairs[k as usize];
            if p.flags & PAIR_COLLISION != 0 {
                ev.keep_earliest(p.tau, bodies[partner[e] as usize].id);
            }
        }
        ev.keep_plane_events(me, planes, params.dt);
    });
}

/// Impulse model from the neighbour list, second half of a round: every sphere adds the
/// responses of its entries ([`impulse_pairs`]) in row order (a large sphere in [`sum_row`]'s
/// order; in a matching round only mutual collisions act), then meets the walls, into `out`.
#[allow(clippy::too_many_arguments)]
pub fn sum_impulses<R: Real>(
    bodies: &[Body<R>],
    rows: &Rows<'_>,
    pairs: &[PairImpulse<R>],
    planes: &[PlaneBody<R>],
    earliest: &[Event<R>],
    round: Round,
    params: &CollideParams<R>,
    out: &mut [ContactOut<R>],
) {
    use super::neighbours::{NO_PAIR, OWNED};
    let Rows {
        start,
        partner,
        link,
        pair,
        ..
    } = *rows;
    out.par_iter_mut().enumerate().for_each(|(i, acc)| {
        *acc = ContactOut::default();
        let me = &bodies[i];
        let mine = if round == Round::Matching {
            earliest[i].partner
        } else {
            NO_EVENT
        };
        if round == Round::Matching && mine == NO_EVENT && me.w != R::zero() {
            return;
        }
        let k_me = if round == Round::Final {
            R::of(earliest.get(i).map_or(1, |ev| ev.count.max(1)) as f64)
        } else {
            R::one()
        };
        let add = |acc: &mut ContactOut<R>, e: usize| {
            let k = pair[e];
            if k == NO_PAIR {
                return;
            }
            let owned = link[e] & OWNED != 0;
            let j = partner[e] as usize;
            let other = &bodies[j];
            let mut p = pairs[k as usize].response();
            if round == Round::Matching {
                p.keep_binary(is_mutual(me, mine, other, earliest[j].partner));
            }
            apply(acc, &p, me, other, me.w + other.w, owned);
        };
        *acc = sum_row(i, start, params, add);
        for (k, plane) in planes.iter().enumerate() {
            let earliest = mine == PLANE_EVENT | k as u32;
            plane_contact(
                acc,
                me,
                plane,
                round,
                earliest,
                k_me,
                ContactHistory::default(),
                None,
                params,
            );
        }
        if round == Round::Final {
            project_onto_planes(acc, me, planes, params.resting_speed);
        }
    });
}

/// Lanes of the work-group that sums a large sphere's row on the GPU (`gpu::WORKGROUP_SIZE`).
pub const ROW_LANES: usize = 256;

/// The sums of sphere i's row (`start[i]..start[i + 1]`), each entry added by `add`, in the
/// GPU's order. A small sphere's row is short and one invocation adds it in row order. A large
/// sphere's row grows with its surface, so a work-group of [`ROW_LANES`] invocations sums it:
/// lane l adds entries l, l + L, l + 2L, … in order, then the lanes' sums are combined pairwise
/// in a fixed tree (lane l takes lane l + s, for s = L/2, L/4, …, 1). No lane adds more than
/// ⌈len/L⌉ entries, and the order, hence every rounding, is the same on both backends.
#[inline(always)]
pub fn sum_row<R: Real>(
    i: usize,
    start: &[u32],
    params: &CollideParams<R>,
    mut add: impl FnMut(&mut ContactOut<R>, usize),
) -> ContactOut<R> {
    let row = start[i] as usize..start[i + 1] as usize;
    if i < params.n_small as usize {
        let mut acc = ContactOut::default();
        for e in row {
            add(&mut acc, e);
        }
        return acc;
    }
    let mut lanes = [ContactOut::default(); ROW_LANES];
    for (l, acc) in lanes.iter_mut().enumerate() {
        for e in row.clone().skip(l).step_by(ROW_LANES) {
            add(acc, e);
        }
    }
    let mut s = ROW_LANES / 2;
    while s > 0 {
        for l in 0..s {
            let other = lanes[l + s];
            lanes[l].combine(&other);
        }
        s /= 2;
    }
    lanes[0]
}

impl<R: Real> ContactOut<R> {
    /// Adds another partial sum of the same sphere's contacts ([`sum_row`]'s tree).
    #[inline(always)]
    pub fn combine(&mut self, o: &Self) {
        self.dv += o.dv;
        self.dx += o.dx;
        self.force += o.force;
        self.torque += o.torque;
        self.energy += o.energy;
        self.power += o.power;
        self.contacts += o.contacts;
        self.collisions += o.collisions;
    }
}

/// Soft contact from the neighbour list, second half: every sphere i adds the results of its
/// entries (`start[i]..start[i + 1]`, written by [`collide_pairs`]) in row order (a large
/// sphere in [`sum_row`]'s order), with the energy, power and counts of the pairs it owns and
/// the force reversed for the others, then meets the walls, into `out[i]`. With
/// contact history `wall_kept` holds what each sphere's contact with each wall keeps (`n ×
/// planes.len()`), read and overwritten; without, it is empty.
#[allow(clippy::too_many_arguments)]
pub fn sum_pairs<R: Real, P: PairRecord<R>>(
    bodies: &[Body<R>],
    spin: Spins<R>,
    rows: &Rows<'_>,
    pairs: &[P],
    planes: &[PlaneBody<R>],
    params: &CollideParams<R>,
    out: &mut [ContactOut<R>],
    wall_kept: &mut [ContactHistory<R>],
) {
    use super::neighbours::{NO_PAIR, OWNED};
    let Rows {
        start, link, pair, ..
    } = *rows;
    let np = planes.len().max(1);
    let history = !wall_kept.is_empty();
    let block = |b: usize, outs: &mut [ContactOut<R>], walls: &mut [ContactHistory<R>]| {
        for (k, acc) in outs.iter_mut().enumerate() {
            let i = b * CHUNK + k;
            let add = |acc: &mut ContactOut<R>, e: usize| {
                let k = pair[e];
                if k == NO_PAIR {
                    return;
                }
                let owned = link[e] & OWNED != 0;
                let record = &pairs[k as usize];
                let (p, sign) = (record.out(), if owned { -R::one() } else { R::one() });
                // Without branches on the pair's flags, which a row mixes unpredictably: a pair
                // without a force stores a zero force, and ±0 added to a sum that starts at +0
                // leaves its bits as they are (round to nearest never makes −0 from a sum), so
                // the result is the branching sum's.
                acc.force += p.force * sign;
                if p.flags & PAIR_FORCE != 0 {
                    if let Some((moment, overlap)) = record.spin() {
                        let me = &bodies[i];
                        acc.torque += friction_torque(contact_arm(me.r, overlap), moment);
                    }
                    if let Some(rolling) = record.rolling() {
                        acc.torque += if owned { rolling } else { -rolling };
                    }
                }
                let own = if owned { R::one() } else { R::zero() };
                acc.energy += p.energy * own;
                acc.power += p.power * own;
                acc.contacts += (p.flags & PAIR_CONTACT) * owned as u32;
                acc.collisions += ((p.flags & PAIR_COLLISION) >> 1) * owned as u32;
            };
            *acc = sum_row(i, start, params, add);
            let me = &bodies[i];
            for (w, plane) in planes.iter().enumerate() {
                let old = if history {
                    walls[k * np + w]
                } else {
                    ContactHistory::default()
                };
                let kept = plane_contact(
                    acc,
                    me,
                    plane,
                    Round::Final,
                    false,
                    R::one(),
                    old,
                    spin.get(i),
                    params,
                );
                if history {
                    walls[k * np + w] = kept.unwrap_or_default();
                }
            }
        }
    };
    if history {
        out.par_chunks_mut(CHUNK)
            .zip(wall_kept.par_chunks_mut(CHUNK * np))
            .enumerate()
            .for_each(|(b, (outs, walls))| block(b, outs, walls));
    } else {
        out.par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(b, outs)| block(b, outs, &mut []));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::cell_keys::hash_cell;
    use glam::Vec3;

    /// With a table of a few buckets nearly every neighbour cell aliases another: the walk must
    /// still visit each sphere of the distinct buckets once, the sphere itself never. The
    /// expected set comes from the 27 cells' buckets directly, without the walk's filter.
    #[test]
    fn the_candidate_walk_visits_each_bucket_once_under_aliasing() {
        for table_size in [1u32, 2, 4, 8, 64, 1 << 12] {
            // Spheres on a 5 × 5 × 5 block of cells, two per cell.
            let mut cells = Vec::new();
            for z in 0..5 {
                for y in 0..5 {
                    for x in 0..5 {
                        cells.push([x, y, z]);
                        cells.push([x, y, z]);
                    }
                }
            }
            // Sorted by bucket, as the binning leaves them.
            cells.sort_by_key(|&c| hash_cell(c, table_size));
            let n = cells.len();
            let bodies: Vec<Body<f32>> = cells
                .iter()
                .enumerate()
                .map(|(i, &cell)| Body {
                    x: Vec3::ZERO,
                    v: Vec3::ZERO,
                    r: 0.1,
                    w: 1.0,
                    e: 1.0,
                    zeta: 0.0,
                    compliance: 0.0,
                    mu: 0.0,
                    id: i as u32,
                    cell,
                })
                .collect();
            let mut counts = vec![0u32; table_size as usize];
            for &c in &cells {
                counts[hash_cell(c, table_size) as usize] += 1;
            }
            let mut cell_start = vec![0u32; table_size as usize];
            for k in 1..table_size as usize {
                cell_start[k] = cell_start[k - 1] + counts[k - 1];
            }
            let params = CollideParams::<f32> {
                dt: 1e-3,
                model: ContactModel::Impulse,
                damping: Damping::default(),
                rolling: RollingModel::None,
                stiffness: 0.0,
                cell_edge: 0.25,
                inv_cell_edge: 4.0,
                table_size,
                n_small: n as u32,
                small_radius_max: 0.1,
                small_speed_max: 0.0,
                resting_speed: 0.0,
                skin: 0.0,
            };
            for i in [0, n / 3, n / 2, n - 1] {
                let mut visits = vec![0u32; n];
                for_each_candidate(i, &bodies, &[], &cell_start, &counts, &params, |j, _| {
                    visits[j] += 1
                });
                let c = cells[i];
                let mut buckets = Vec::new();
                for dz in -1..=1 {
                    for dy in -1..=1 {
                        for dx in -1..=1 {
                            buckets.push(hash_cell([c[0] + dx, c[1] + dy, c[2] + dz], table_size));
                        }
                    }
                }
                for j in 0..n {
                    let want =
                        u32::from(j != i && buckets.contains(&hash_cell(cells[j], table_size)));
                    assert_eq!(
                        visits[j], want,
                        "table {table_size}, sphere {i}, candidate {j}"
                    );
                }
            }
        }
    }
}
