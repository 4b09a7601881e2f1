//! The sphere–wall response, the same for every wall kind: the impulse model's event and
//! response and the soft contact's force ([`wall_contact`]) and the final round's projection
//! ([`project_onto_walls`]). They see a wall only through `walls`' per-kind operations
//! ([`wall_gap`], [`wall_event`], [`wall_curvature`]).

use crate::Real;
use crate::physics::friction::pair_friction;
use crate::physics::hertz::effective_radius;
use crate::physics::impulse::{effective_restitution, pair_restitution, plane_velocity_change};
use crate::physics::rotation::{
    contact_arm, friction_moment, friction_torque, inverse_rolling_inertia, rolling_resistance,
    spin_lever,
};
use crate::scene::{ContactModel, RollingModel};

use super::super::bodies::{
    Body, CollideParams, ContactHistory, ContactOut, PlaneBody, Round, SphereSpin,
};
use super::super::pair_laws::soft_contact;
use super::{wall_curvature, wall_event, wall_gap};

/// Gap of a sphere to a wall at the end of the drift (m), `v·n` (m/s) and the normal `n`
/// ([`wall_gap`]).
#[inline(always)]
fn approach<R: Real>(me: &Body<R>, wall: &PlaneBody<R>) -> (R, R, R::V3) {
    let (s, n) = wall_gap(me.x, me.r, wall);
    (s, R::dot(me.v, n), n)
}

/// Power, W, that a wall whose surface moves at `wall.velocity` (in its plane) puts into a
/// sphere through the contact force `force` (N, on the sphere): `F·v_wall` (docs/physics.md
/// §2.4). The ledger books it against the contact's losses. Exactly 0 for a wall at rest, whose
/// contacts then book what they always did.
#[inline(always)]
pub fn wall_power<R: Real>(force: R::V3, wall: &PlaneBody<R>) -> R {
    if wall.velocity == R::zero3() {
        R::zero()
    } else {
        R::dot(force, wall.velocity)
    }
}

/// Sphere–wall response (docs/physics.md §1 for impulses, §2 for soft contact), added to
/// `acc`. Walls do not move, but a plane's surface may (`velocity`, in its plane): the soft
/// laws see the sphere's velocity relative to it, and its work is taken off the contact's
/// dissipated power ([`wall_power`]). The impulse model's response is along the normal only,
/// so a surface velocity changes nothing there. Impulse model: in the matching round the impulse acts when the
/// wall is the sphere's `earliest` event, in the final round whenever the sphere reaches the
/// wall approaching it; it acts at the contact instant and the sphere travels the rest of the
/// step with its new velocity. Projection onto the wall is [`project_onto_walls`].
/// `k_me` is the sphere's mass-splitting factor in the final round (1 otherwise); `kept` what
/// the contact kept from the last step (soft contact); `spin` the sphere's rotation (`None` without):
/// the wall's friction and rolling resistance ([`rolling_resistance`], the wall's rolling friction
/// with the sphere's as for μ) turn it. Returns the ξ to keep when a soft contact is on, and
/// the force the wall exerts on the sphere, N (zero apart and with impulses; the wall takes its
/// opposite: [`crate::scene::SimParams::wall_forces`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn wall_contact<R: Real>(
    acc: &mut ContactOut<R>,
    me: &Body<R>,
    wall: &PlaneBody<R>,
    round: Round,
    earliest: bool,
    k_me: R,
    kept: ContactHistory<R>,
    spin: Option<SphereSpin<R>>,
    params: &CollideParams<R>,
) -> (Option<ContactHistory<R>>, R::V3) {
    if me.w == R::zero() {
        return (None, R::zero3());
    }
    let (s1, vn, n) = approach(me, wall);
    match params.model {
        ContactModel::Impulse => {
            let event = wall_event(me, wall, params.dt);
            let act = match round {
                Round::Matching => earliest,
                Round::Final => event.is_some(),
            };
            if act {
                let tau = event.unwrap_or(R::zero());
                let e = effective_restitution(
                    pair_restitution(me.e, wall.e),
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
            (None, R::zero3())
        }
        ContactModel::SpringDashpot | ContactModel::Hertz => {
            if s1 > R::zero() {
                return (None, R::zero3());
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
                me.v - wall.velocity,
                lever,
                kept,
                pair_restitution(me.e, wall.e),
                me.zeta.max(wall.zeta),
                pair_friction(me.mu, wall.mu),
                params.stiffness,
                me.compliance + wall.compliance,
                me.r.recip() + wall_curvature(wall),
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
                        pair_friction(mu_r, wall.rolling_friction),
                        effective_radius(me.r.recip(), wall_curvature(wall)),
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
            let force = n * soft.force + soft.friction;
            acc.force += force;
            if spin.is_some() {
                acc.torque += friction_torque(arm, friction_moment::<R>(n, soft.friction));
                acc.torque += rolling;
            }
            acc.energy += soft.energy;
            acc.power += soft.power + rolling_power - wall_power(force, wall);
            acc.contacts += 1;
            acc.collisions += (s1 - vn * params.dt > R::zero()) as u32;
            (Some(keep), force)
        }
    }
}

/// Last act of the impulse model's final round: a sphere that would end below a wall is put
/// back on it (Nikulin eq. 9), and a velocity still pointing into the wall gets the wall's
/// impulse law (with e = 0 that is the projection of eq. 9: it slides instead of sinking).
/// Applied to the sphere's accumulated position and velocity changes, after every pair push.
#[inline(always)]
pub fn project_onto_walls<R: Real>(
    acc: &mut ContactOut<R>,
    me: &Body<R>,
    walls: &[PlaneBody<R>],
    resting_speed: R,
) {
    if me.w == R::zero() {
        return;
    }
    for wall in walls {
        let (s, n) = wall_gap(me.x + acc.dx, me.r, wall);
        if s < R::zero() {
            acc.dx -= n * s;
            let v = me.v + acc.dv;
            let e =
                effective_restitution(pair_restitution(me.e, wall.e), -R::dot(v, n), resting_speed);
            acc.dv += plane_velocity_change::<R>(v, n, e);
        }
    }
}
