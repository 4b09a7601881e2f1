//! The laws of one sphere pair: the impulse model's response ([`resolve_pair`]), the soft
//! contact's normal force, friction and dissipation ([`soft_normal_force`], [`soft_contact`],
//! [`pair_force`]), the outcome they share ([`PairResponse`]) and the energy a contact round
//! gives a sphere ([`impulse_energy_change`]). The walls use the same soft law (`walls`).

use crate::Real;
use crate::physics::friction::{TANGENTIAL_STIFFNESS_RATIO, pair_friction, tangential_spring};
use crate::physics::hertz::{
    effective_modulus, effective_radius, elastic_energy, hertz_stiffness, hysteresis_factor,
    hysteresis_force, impact_speed,
};
use crate::physics::impulse::{effective_restitution, normal_impulse, pair_restitution};
use crate::physics::periodic::{PeriodicBox, minimum_image};
use crate::physics::rotation::{add_spin_slip, contact_arm, spin_lever};
use crate::physics::spring_dashpot::{dashpot_coefficient, normal_force};
use crate::physics::toi::contact_fraction;
use crate::scene::{ContactModel, Damping};
use crate::setup::OVERLAP_RELAXATION;

use super::bodies::{Body, CollideParams, ContactHistory};

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
    pub(super) fn keep_binary(&mut self, mutual: bool) {
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
pub(super) fn unit_or<R: Real>(d: R::V3, fallback: R::V3) -> R::V3 {
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
///
/// [`Round::Final`]: super::Round::Final
pub fn resolve_pair<R: Real>(
    a: &Body<R>,
    b: &Body<R>,
    pbox: &PeriodicBox<R>,
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
    let d1 = minimum_image::<R>(b.x - a.x, pbox);
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
    let d1 = params.separation(a.x, b.x);
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
