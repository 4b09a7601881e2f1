//! Stage `integrate`: kick–drift–kick leapfrog (velocity Verlet), docs/physics.md §4.
//! Twin of `shaders/integrate.wgsl` (entry points `kick_drift`, `kick`).

use crate::Real;
use rayon::prelude::*;

use super::CHUNK;

/// First half of a step: `v += a dt/2`, then `x += v dt`, for every sphere with `inv_mass > 0`
/// (fixed spheres never move).
///
/// Returns the largest speed |v| (m/s) after the kick among spheres with `radius ≤
/// small_radius_max`: the broad phase widens its cells by it (see `cell_keys::cell_edge`).
pub fn kick_drift<R: Real>(
    position: &mut [R::V3],
    velocity: &mut [R::V3],
    acceleration: &[R::V3],
    inv_mass: &[R],
    radius: &[R],
    small_radius_max: R,
    dt: R,
) -> R {
    let half = dt * R::of(0.5);
    position
        .par_chunks_mut(CHUNK)
        .zip(velocity.par_chunks_mut(CHUNK))
        .enumerate()
        .map(|(c, (xs, vs))| {
            let base = c * CHUNK;
            let mut vmax2 = R::zero();
            for k in 0..xs.len() {
                let i = base + k;
                if inv_mass[i] == R::zero() {
                    continue;
                }
                vs[k] += acceleration[i] * half;
                xs[k] += vs[k] * dt;
                if radius[i] <= small_radius_max {
                    vmax2 = vmax2.max(R::norm2(vs[k]));
                }
            }
            vmax2
        })
        .reduce(R::zero, |a, b| a.max(b))
        .sqrt()
}

/// Second half of a step: `v += a dt/2` for every sphere with `inv_mass > 0`.
pub fn kick<R: Real>(velocity: &mut [R::V3], acceleration: &[R::V3], inv_mass: &[R], dt: R) {
    let half = dt * R::of(0.5);
    velocity
        .par_iter_mut()
        .zip(acceleration.par_iter())
        .zip(inv_mass.par_iter())
        .for_each(|((v, &a), &w)| {
            if w != R::zero() {
                *v += a * half;
            }
        });
}

/// Total acceleration of each sphere, m/s²: uniform field `g`, mutual gravity `a_mutual` (may be
/// empty when G = 0), and `inv_mass × (contact force + Stokes drag)`. Zero for fixed spheres.
#[allow(clippy::too_many_arguments)]
pub fn accelerations<R: Real>(
    acceleration: &mut [R::V3],
    velocity: &[R::V3],
    radius: &[R],
    inv_mass: &[R],
    contact_force: &[R::V3],
    a_mutual: &[R::V3],
    gravity: R::V3,
    drag: R,
) {
    acceleration.par_iter_mut().enumerate().for_each(|(i, a)| {
        let w = inv_mass[i];
        if w == R::zero() {
            *a = R::zero3();
            return;
        }
        let mut f = crate::physics::drag::stokes_drag(drag, radius[i], velocity[i]);
        if let Some(&fc) = contact_force.get(i) {
            f += fc;
        }
        let mut acc = gravity + f * w;
        if let Some(&am) = a_mutual.get(i) {
            acc += am;
        }
        *a = acc;
    });
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
            *w += alpha * half;
            *q = crate::physics::rotation::drift_orientation::<R>(*q, *w, dt);
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
