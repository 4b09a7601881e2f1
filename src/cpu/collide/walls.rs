//! A sphere against a wall (a plane or the inside of a spherical container): the gap along the
//! wall's normal at the sphere's nearest point ([`wall_gap`]), the impulse model's event and
//! response and the soft contact's force ([`plane_event`], [`plane_contact`]), the Hertz law's
//! wall curvature ([`wall_curvature`]) and the final round's projection
//! ([`project_onto_planes`]).

use crate::Real;
use crate::physics::friction::pair_friction;
use crate::physics::hertz::effective_radius;
use crate::physics::impulse::{effective_restitution, pair_restitution, plane_velocity_change};
use crate::physics::rotation::{
    contact_arm, friction_moment, friction_torque, inverse_rolling_inertia, rolling_resistance,
    spin_lever,
};
use crate::physics::toi::plane_contact_fraction;
use crate::scene::{ContactModel, RollingModel};

use super::bodies::{
    Body, CollideParams, ContactHistory, ContactOut, PlaneBody, Round, SphereSpin,
};
use super::pair_laws::{soft_contact, unit_or};

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
