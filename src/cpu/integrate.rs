//! Stage `integrate`: kick–drift–kick leapfrog (velocity Verlet), docs/physics.md §4.
//! Twin of `shaders/integrate.wgsl` (entry points `kick_drift`, `accelerations`, `end_of_step`).

use crate::Real;
use crate::physics::guard::within_bounds;
use crate::physics::periodic::{PeriodicBox, wrap_position};
use rayon::prelude::*;

use super::collide::ContactOut;
use super::neighbours::{Decide, needs_rebuild};
use super::{CHUNK, Disjoint};

/// First half of a step: `v += a dt/2`, then `x += v dt`, for every sphere with `inv_mass > 0`
/// (fixed spheres never move), wrapped into the periodic box with its image counted
/// ([`wrap_position`], with `periodic`); with `decide`, the neighbour list's rebuild decision
/// after each sphere's drift ([`needs_rebuild`], the GPU's `DECIDE`).
///
/// Returns the largest speed |v| (m/s) after the kick among spheres with `radius ≤
/// small_radius_max` (the broad phase widens its cells by it, see `cell_keys::cell_edge`), and
/// whether some sphere has moved past its sweep (false without `decide`).
#[allow(clippy::too_many_arguments)]
pub fn kick_drift<R: Real>(
    position: &mut [R::V3],
    velocity: &mut [R::V3],
    acceleration: &[R::V3],
    inv_mass: &[R],
    radius: &[R],
    small_radius_max: R,
    dt: R,
    decide: Option<Decide<'_, R>>,
    periodic: Periodic<'_, R>,
) -> (R, bool) {
    let half = dt * R::of(0.5);
    let pbox = periodic.pbox;
    // Sphere i's image is written by the block that holds sphere i (empty without periodic
    // axes).
    let images = Disjoint::new(periodic.image);
    let (vmax2, moved) = position
        .par_chunks_mut(CHUNK)
        .zip(velocity.par_chunks_mut(CHUNK))
        .enumerate()
        .map(|(c, (xs, vs))| {
            let base = c * CHUNK;
            let mut vmax2 = R::zero();
            let mut moved = false;
            for k in 0..xs.len() {
                let i = base + k;
                // In locals, stored once: re-reading a vector just stored in two parts
                // (8 + 4 bytes) missed the store forwarding and stalled every sphere.
                let (mut x, mut v) = (xs[k], vs[k]);
                if inv_mass[i] != R::zero() {
                    v += acceleration[i] * half;
                    x += v * dt;
                    if !images.is_empty() {
                        let mut image = images.read(i);
                        x = wrap_position(x, &mut image, &pbox);
                        images.write(i, image);
                    }
                    (xs[k], vs[k]) = (x, v);
                    if radius[i] <= small_radius_max {
                        vmax2 = vmax2.max(R::norm2(v));
                    }
                }
                if let Some(d) = &decide {
                    let v = d.travel.then_some(v);
                    moved |= needs_rebuild(x, d.x_build[i], v, dt, d.sweep[i], &pbox);
                }
            }
            (vmax2, moved)
        })
        .reduce(|| (R::zero(), false), |a, b| (a.0.max(b.0), a.1 | b.1));
    (vmax2.sqrt(), moved)
}

/// The periodic box of [`kick_drift`], and each sphere's image (sorted order; empty, with
/// [`PeriodicBox::open`], without periodic axes).
#[derive(Debug)]
pub struct Periodic<'a, R: Real> {
    /// The box.
    pub pbox: PeriodicBox<R>,
    /// Box lengths each sphere has crossed, per axis.
    pub image: &'a mut [[i32; 3]],
}

/// One sphere's acceleration, m/s²: uniform field `gravity`, mutual gravity `a_mutual`, and
/// `w × (contact force + Stokes drag)`; zero for a fixed sphere (`w = 0`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn acceleration_of<R: Real>(
    w: R,
    radius: R,
    velocity: R::V3,
    contact_force: Option<R::V3>,
    a_mutual: Option<R::V3>,
    gravity: R::V3,
    drag: R,
) -> R::V3 {
    if w == R::zero() {
        return R::zero3();
    }
    let mut f = crate::physics::drag::stokes_drag(drag, radius, velocity);
    if let Some(fc) = contact_force {
        f += fc;
    }
    let mut acc = gravity + f * w;
    if let Some(am) = a_mutual {
        acc += am;
    }
    acc
}

/// Total acceleration of each sphere, m/s²: uniform field `g`, mutual gravity `a_mutual` (may be
/// empty when G = 0), and `inv_mass × (contact force + Stokes drag)`, the contact force from
/// the soft contacts' sums `contact` (empty for impulses). Zero for fixed spheres. Set-up's
/// force sum; a step's is [`end_of_step`].
#[allow(clippy::too_many_arguments)]
pub fn accelerations<R: Real>(
    acceleration: &mut [R::V3],
    velocity: &[R::V3],
    radius: &[R],
    inv_mass: &[R],
    contact: &[ContactOut<R>],
    a_mutual: &[R::V3],
    gravity: R::V3,
    drag: R,
) {
    acceleration.par_iter_mut().enumerate().for_each(|(i, a)| {
        *a = acceleration_of(
            inv_mass[i],
            radius[i],
            velocity[i],
            contact.get(i).map(|c| c.force),
            a_mutual.get(i).copied(),
            gravity,
            drag,
        );
    });
}

/// The end of a step in one pass over the spheres, the twin of the WGSL entry of the same name:
/// each sphere's acceleration (as [`accelerations`]), the second half kick `v += a dt/2` (for
/// `inv_mass > 0`), and the check that its position and velocity are finite and within the
/// magnitude guard's `(speed, distance)` bounds about `centre`
/// ([`within_bounds`]). Each part touches only its own
/// sphere, so fusing them changes no bit. Returns the lowest input id (`id`) of a sphere that
/// fails the check.
#[allow(clippy::too_many_arguments)]
pub fn end_of_step<R: Real>(
    acceleration: &mut [R::V3],
    velocity: &mut [R::V3],
    position: &[R::V3],
    radius: &[R],
    inv_mass: &[R],
    contact: &[ContactOut<R>],
    a_mutual: &[R::V3],
    gravity: R::V3,
    drag: R,
    dt: R,
    (centre, speed, distance): (R::V3, R, R),
    id: &[u32],
) -> Option<u32> {
    let half = dt * R::of(0.5);
    acceleration
        .par_chunks_mut(CHUNK)
        .zip(velocity.par_chunks_mut(CHUNK))
        .enumerate()
        .map(|(c, (acc, vs))| {
            let span = c * CHUNK..c * CHUNK + acc.len();
            let (x, r, w) = (
                &position[span.clone()],
                &radius[span.clone()],
                &inv_mass[span.clone()],
            );
            let (contact, mutual) = (contact.get(span.clone()), a_mutual.get(span.clone()));
            let finite = |x: R::V3, v: R::V3| {
                let within = within_bounds::<R>(x, v, centre, speed, distance);
                let (x, v) = (R::comps(x), R::comps(v));
                x.iter().chain(&v).fold(within, |f, c| f & c.is_finite())
            };
            // The chunk's check without a branch per sphere; the ids only when it fails.
            let mut all_finite = true;
            for k in 0..acc.len() {
                let a = acceleration_of(
                    w[k],
                    r[k],
                    vs[k],
                    contact.map(|c| c[k].force),
                    mutual.map(|m| m[k]),
                    gravity,
                    drag,
                );
                acc[k] = a;
                // v in a local, as in kick_drift: no re-read of a split store.
                let mut v = vs[k];
                if w[k] != R::zero() {
                    v += a * half;
                    vs[k] = v;
                }
                all_finite &= finite(x[k], v);
            }
            if all_finite {
                return None;
            }
            (0..acc.len())
                .filter(|&k| !finite(x[k], vs[k]))
                .map(|k| id[span.start + k])
                .min()
        })
        .reduce(|| None, |a, b| a.into_iter().chain(b).min())
}

/// Rotation, first half of a step: `ω += α dt/2`, then the orientation drifts by the new ω over
/// `dt` ([`drift_orientation`](crate::physics::rotation::drift_orientation)). A fixed sphere's
/// α is zero (its inverse inertia is), so its ω stays zero.
pub fn kick_drift_rotation<R: Real>(
    spin: &mut [R::V3],
    orientation: &mut [[R; 4]],
    angular_acceleration: &[R::V3],
    dt: R,
) {
    let half = dt * R::of(0.5);
    spin.par_iter_mut()
        .zip(orientation.par_iter_mut())
        .zip(angular_acceleration.par_iter())
        .for_each(|((w, q), &alpha)| {
            // The kicked ω from a register, not re-read from its split store (kick_drift).
            let omega = *w + alpha * half;
            *w = omega;
            *q = crate::physics::rotation::drift_orientation::<R>(*q, omega, dt);
        });
}

/// Rotation, second half of a step: `ω += α dt/2`.
pub fn kick_rotation<R: Real>(spin: &mut [R::V3], angular_acceleration: &[R::V3], dt: R) {
    let half = dt * R::of(0.5);
    spin.par_iter_mut()
        .zip(angular_acceleration.par_iter())
        .for_each(|(w, &alpha)| *w += alpha * half);
}

/// Angular acceleration of each sphere, rad/s²: the contacts' friction torque times the inverse
/// moment of inertia ([`inverse_inertia`](crate::physics::rotation::inverse_inertia); zero for
/// fixed spheres).
pub fn angular_accelerations<R: Real>(
    angular_acceleration: &mut [R::V3],
    contact: &[super::collide::ContactOut<R>],
    inv_inertia: &[R],
) {
    angular_acceleration
        .par_iter_mut()
        .zip(contact.par_iter())
        .zip(inv_inertia.par_iter())
        .for_each(|((alpha, c), &k)| *alpha = c.torque * k);
}
