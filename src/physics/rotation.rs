//! Rotation of spheres: moment of inertia, the contact point's lever arm, the spin's share of a
//! contact's slip, the friction torque, rolling resistance (§2.7) and the orientation's drift
//! (docs/physics.md §2.6).
//!
//! A contact's friction force acts at the contact point, which sits on the line of centres at
//! the middle of the overlap: at `l_a = r_a − δ/2` from a's centre and `l_b = r_b − δ/2` from
//! b's (a wall's contact, likewise, at `r − δ/2` from the sphere's centre). The two arms add up
//! to the distance of the centres, so a pair's torques and the moment of its forces about any
//! point cancel: orbital plus spin angular momentum is kept to rounding (P. A. Cundall and
//! O. D. L. Strack, Géotechnique 29 (1979) 47, eq. 6; T. Pöschel and T. Schwager,
//! "Computational Granular Dynamics", Springer 2005, §2.3).

use crate::Real;
use crate::scene::RollingModel;

/// `I / (m r²)` of a solid homogeneous sphere, 2/5.
pub const SOLID_SPHERE_INERTIA: f64 = 0.4;

/// Moment of inertia of a solid sphere of mass `m` (kg) and radius `r` (m), `(2/5) m r²`, kg·m².
#[inline(always)]
pub fn moment_of_inertia<R: Real>(m: R, r: R) -> R {
    R::of(SOLID_SPHERE_INERTIA) * m * r * r
}

/// Inverse moment of inertia `1 / ((2/5) m r²)`, (kg·m²)⁻¹, from the inverse mass `w = 1/m`
/// (kg⁻¹; 0 for a fixed sphere, which then does not rotate) and the radius `r` (m).
#[inline(always)]
pub fn inverse_inertia<R: Real>(w: R, r: R) -> R {
    w / (R::of(SOLID_SPHERE_INERTIA) * r * r)
}

/// Lever arm of a contact from a sphere's centre to the contact point, m: `r − δ/2` for radius
/// `r` (m) and overlap δ (m).
#[inline(always)]
pub fn contact_arm<R: Real>(r: R, overlap: R) -> R {
    r - overlap * R::of(0.5)
}

/// The spins' lever sum `s = l_a ω_a + l_b ω_b` (m·rad/s) of a contact, for arms `l_a`, `l_b`
/// (m, [`contact_arm`]) and angular velocities `ω_a`, `ω_b` (rad/s): the spin's share of the
/// slip of b relative to a at the contact point is `n × s` ([`add_spin_slip`]; Cundall and
/// Strack 1979, eq. 6). A wall is body a, with `l_a ω_a = 0`.
#[inline(always)]
pub fn spin_lever<R: Real>(arm_a: R, omega_a: R::V3, arm_b: R, omega_b: R::V3) -> R::V3 {
    omega_a * arm_a + omega_b * arm_b
}

/// `v + n × s` (m/s): a velocity `v` with the spin's share of the slip added, for the unit
/// normal `n` from a to b and the lever sum `s` ([`spin_lever`]); `n × s` is tangential to `n`.
///
/// Each component is evaluated as `(v + n_j s_k) − n_k s_j`, a chain from the left: lavapipe's
/// shader compiler re-associates `v + (p − q)` into `(v + p) − q`, so the written-out chain is
/// the only order both backends keep (docs/architecture.md, "Determinism").
#[inline(always)]
pub fn add_spin_slip<R: Real>(v: R::V3, n: R::V3, s: R::V3) -> R::V3 {
    let [vx, vy, vz] = R::comps(v);
    let [nx, ny, nz] = R::comps(n);
    let [sx, sy, sz] = R::comps(s);
    R::vec(
        vx + ny * sz - nz * sy,
        vy + nz * sx - nx * sz,
        vz + nx * sy - ny * sx,
    )
}

/// Moment of a contact's friction about the contact normal, `n × F_t` (N), for the unit normal
/// `n` from a to b and the friction force `F_t` (N) on b: what a pair keeps for
/// [`friction_torque`].
#[inline(always)]
pub fn friction_moment<R: Real>(n: R::V3, f_t: R::V3) -> R::V3 {
    R::cross(n, f_t)
}

/// Torque of a contact's friction on one of its two spheres, N·m: `−l (n × F_t)`, for the arm
/// `l` (m) of that sphere and the pair's [`friction_moment`] `n × F_t`. Both spheres get the
/// same sign: b feels `F_t` at `−l_b n`, a feels `−F_t` at `+l_a n`.
#[inline(always)]
pub fn friction_torque<R: Real>(arm: R, moment: R::V3) -> R::V3 {
    -(moment * arm)
}

/// Rolling resistance of a contact under the constant directional torque law (J. Ai, J.-F. Chen,
/// J. M. Rotter and J. Y. Ooi, Powder Technol. 206 (2011) 269, model type A; LIGGGHTS' `cdt`):
/// the torque on body a, N·m (b gets minus it), and the power it takes out, W (≥ 0).
///
/// The relative rolling velocity is `ω_roll = ω_rel − n (n·ω_rel)` with `ω_rel = ω_a − ω_b`
/// (rad/s; the twist about `n` is left free), and the torque is `−M ω_roll / |ω_roll|` with
/// `M = μ_r R* F_n` for the pair's rolling friction `mu_r`, effective radius `r_star` (m,
/// `1/R* = 1/r_a + 1/r_b`; a wall's sphere radius) and normal force `normal_force` (N). The law
/// has no rest state: at `ω_roll → 0` its sign flips every step. So `M` is capped at
/// `|ω_roll| / ((I_a⁻¹ + I_b⁻¹) dt)`, the torque that stops the relative rolling in one step
/// `dt` (s) without reversing it, for the inverse moments of inertia' sum `inv_inertia_sum`
/// ((kg·m²)⁻¹). The power is `M |ω_roll|`, the work the torques do on the two spins.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn rolling_torque<R: Real>(
    n: R::V3,
    omega_a: R::V3,
    omega_b: R::V3,
    mu_r: R,
    r_star: R,
    normal_force: R,
    inv_inertia_sum: R,
    dt: R,
) -> (R::V3, R) {
    let relative = omega_a - omega_b;
    let roll = relative - n * R::dot(n, relative);
    let speed = R::norm2(roll).sqrt();
    if speed == R::zero() {
        return (R::zero3(), R::zero());
    }
    let limit = speed / (inv_inertia_sum * dt);
    let moment = (mu_r * r_star * normal_force).min(limit);
    (roll * -(moment / speed), moment * speed)
}

/// Damping ratio η_r of the rolling dashpot of [`rolling_spring`] (Ai et al. 2011 use 0.3).
pub const ROLLING_DAMPING_RATIO: f64 = 0.3;

/// Rolling resistance of a contact under the elastic–plastic spring–dashpot law (J. Ai,
/// J.-F. Chen, J. M. Rotter and J. Y. Ooi, Powder Technol. 206 (2011) 269, model type C): the
/// torque on body a, N·m (b gets minus it), the spring torque to keep, N·m, and the power the
/// torque takes out, W.
///
/// With `ω_roll` as in [`rolling_torque`], the kept spring torque `spring_old` is turned into
/// the tangent plane of `n` and loaded by `−k_r ω_roll dt`, `k_r = 2.25 k_n μ_r² R*²` (N·m/rad,
/// for the contact's normal stiffness `k_n`, N/m). Past `M_m = μ_r R* F_n` it slides: it is
/// scaled back to `M_m` and the dashpot is off. Below it the dashpot adds
/// `−η_r 2 sqrt(I_r k_r) ω_roll` with [`ROLLING_DAMPING_RATIO`] η_r and the rolling inertia
/// `I_r = 1 / inv_rolling_inertia`, `inv_rolling_inertia = Σ 1/(I + m r²)` of the two bodies
/// ((kg·m²)⁻¹; a wall adds 0). The power is `−M·ω_roll`: the spring's work is booked as
/// dissipated, as the tangential spring's (docs/physics.md §2.3).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn rolling_spring<R: Real>(
    n: R::V3,
    omega_a: R::V3,
    omega_b: R::V3,
    spring_old: R::V3,
    mu_r: R,
    r_star: R,
    normal_force: R,
    normal_stiffness: R,
    inv_rolling_inertia: R,
    dt: R,
) -> (R::V3, R::V3, R) {
    let relative = omega_a - omega_b;
    let roll = relative - n * R::dot(n, relative);
    let k_r = R::of(2.25) * normal_stiffness * mu_r * mu_r * r_star * r_star;
    let limit = mu_r * r_star * normal_force;
    let held = spring_old - n * R::dot(n, spring_old);
    let mut spring = held - roll * (k_r * dt);
    let size2 = R::dot(spring, spring);
    let torque = if size2 > limit * limit {
        spring = spring * (limit / size2.sqrt());
        spring
    } else {
        let c_r = R::of(2.0 * ROLLING_DAMPING_RATIO) * (k_r / inv_rolling_inertia).sqrt();
        spring - roll * c_r
    };
    (torque, spring, -R::dot(torque, roll))
}

/// One contact's rolling resistance under `model`: the torque on body a (N·m), the spring
/// torque to keep (N·m; zero but for [`RollingModel::Epsd`]) and the power taken out (W).
/// `cdt` is [`rolling_torque`] with the inverse-inertia sum `inv_inertia_sum`, `epsd`
/// [`rolling_spring`] with `spring_old`, the normal stiffness and `inv_rolling_inertia`; `none`
/// gives zero.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn rolling_resistance<R: Real>(
    model: RollingModel,
    n: R::V3,
    omega_a: R::V3,
    omega_b: R::V3,
    spring_old: R::V3,
    mu_r: R,
    r_star: R,
    normal_force: R,
    normal_stiffness: R,
    inv_inertia_sum: R,
    inv_rolling_inertia: R,
    dt: R,
) -> (R::V3, R::V3, R) {
    match model {
        RollingModel::None => (R::zero3(), R::zero3(), R::zero()),
        RollingModel::Cdt => {
            let (torque, power) = rolling_torque::<R>(
                n,
                omega_a,
                omega_b,
                mu_r,
                r_star,
                normal_force,
                inv_inertia_sum,
                dt,
            );
            (torque, R::zero3(), power)
        }
        RollingModel::Epsd => rolling_spring::<R>(
            n,
            omega_a,
            omega_b,
            spring_old,
            mu_r,
            r_star,
            normal_force,
            normal_stiffness,
            inv_rolling_inertia,
            dt,
        ),
    }
}

/// `1 / (I + m r²)` of a sphere, (kg·m²)⁻¹, from its inverse moment of inertia (kg·m²)⁻¹,
/// inverse mass `w` (kg⁻¹) and radius `r` (m): its share of [`rolling_spring`]'s rolling
/// inertia; 0 for a fixed sphere.
#[inline(always)]
pub fn inverse_rolling_inertia<R: Real>(inv_inertia: R, w: R, r: R) -> R {
    if w == R::zero() {
        return R::zero();
    }
    (inv_inertia.recip() + r * r / w).recip()
}

/// Rotational kinetic energy `½ I |ω|²` of a sphere, J.
#[inline(always)]
pub fn rotational_energy(m: f64, r: f64, omega: glam::DVec3) -> f64 {
    0.5 * moment_of_inertia(m, r) * omega.length_squared()
}

/// Drifts the orientation quaternion `q = [x, y, z, w]` (unit) by the angular velocity `ω`
/// (rad/s, world frame) over `dt` (s): `q + (dt/2) (ω, 0) ⊗ q`, renormalised (first order; the
/// orientation is kept for the API's snapshots and checkpoints; nothing in the dynamics reads it).
#[inline(always)]
pub fn drift_orientation<R: Real>(q: [R; 4], omega: R::V3, dt: R) -> [R; 4] {
    let [wx, wy, wz] = R::comps(omega);
    let [x, y, z, w] = q;
    let h = dt * R::of(0.5);
    // (ω, 0) ⊗ (q_v, q_w) = (q_w ω + ω × q_v, −ω·q_v).
    // Chains from the left, as `add_spin_slip`.
    let nx = x + h * (w * wx + wy * z - wz * y);
    let ny = y + h * (w * wy + wz * x - wx * z);
    let nz = z + h * (w * wz + wx * y - wy * x);
    let nw = w - h * (wx * x + wy * y + wz * z);
    let norm = (nx * nx + ny * ny + nz * nz + nw * nw).sqrt();
    [nx / norm, ny / norm, nz / norm, nw / norm]
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DQuat, DVec3};

    #[test]
    fn a_pairs_torques_cancel_the_moment_of_its_forces() {
        // Two spheres touching with overlap δ: forces ±F_t at the contact point.
        let (r_a, r_b, delta) = (0.3, 0.5, 0.01);
        let n = DVec3::new(1.0, 2.0, -0.5).normalize();
        let x_a = DVec3::new(0.1, -0.2, 0.3);
        let x_b = x_a + n * (r_a + r_b - delta);
        let f_t = DVec3::new(0.3, -1.0, 2.0);
        let f_t = f_t - n * f_t.dot(n);
        let (l_a, l_b) = (contact_arm(r_a, delta), contact_arm(r_b, delta));
        let m = friction_moment::<f64>(n, f_t);
        let spin = friction_torque(l_a, m) + friction_torque(l_b, m);
        let orbital = x_b.cross(f_t) + x_a.cross(-f_t);
        assert!((spin + orbital).length() < 1e-14, "{:?}", spin + orbital);
        // The torque on b is that of F_t at the contact point about b's centre.
        let c = x_a + n * l_a;
        let tb = (c - x_b).cross(f_t);
        assert!((friction_torque(l_b, m) - tb).length() < 1e-14);
    }

    #[test]
    fn the_spin_slip_is_the_contact_points_relative_velocity() {
        let (l_a, l_b) = (0.2, 0.7);
        let n = DVec3::new(0.0, 0.6, 0.8);
        let (w_a, w_b) = (DVec3::new(1.0, -2.0, 3.0), DVec3::new(-0.5, 0.1, 4.0));
        // Velocity of the contact point as part of each body, centres at rest.
        let on_a = w_a.cross(n * l_a);
        let on_b = w_b.cross(-n * l_b);
        let v = DVec3::new(0.3, -0.1, 0.2);
        let slip = add_spin_slip::<f64>(v, n, spin_lever(l_a, w_a, l_b, w_b)) - v;
        assert!((slip - (on_b - on_a)).length() < 1e-14);
        assert!(slip.dot(n).abs() < 1e-14);
    }

    #[test]
    fn rolling_resistance_opposes_the_relative_rolling_and_stops_without_reversing() {
        let n = DVec3::new(0.0, 0.0, 1.0);
        let (w_a, w_b) = (DVec3::new(2.0, 0.0, 5.0), DVec3::new(-1.0, 0.0, 0.0));
        // μ_r R* F_n = 0.1 · 0.05 · 20 = 0.1 N·m; the cap is far above it.
        let (t, p) = rolling_torque::<f64>(n, w_a, w_b, 0.1, 0.05, 20.0, 10.0, 1e-3);
        // Against ω_roll = (3, 0, 0): the twist about n (the z spin) is not resisted.
        assert!((t - DVec3::new(-0.1, 0.0, 0.0)).length() < 1e-15, "{t:?}");
        assert!((p - 0.1 * 3.0).abs() < 1e-15);
        // Swapping the bodies (and the normal) gives b's torque, minus a's.
        let (t_b, p_b) = rolling_torque::<f64>(-n, w_b, w_a, 0.1, 0.05, 20.0, 10.0, 1e-3);
        assert!((t_b + t).length() < 1e-15);
        assert_eq!(p_b, p);
        // Slow rolling: the torque stops the relative rolling in one step, no further.
        let (inv_sum, dt) = (10.0, 1e-3);
        let slow = DVec3::new(1e-3, 0.0, 0.0);
        let (t, _) = rolling_torque::<f64>(n, slow, DVec3::ZERO, 0.1, 0.05, 20.0, inv_sum, dt);
        assert!((slow + t * (inv_sum * dt)).length() < 1e-15, "{t:?}");
        assert_eq!(
            rolling_torque::<f64>(n, w_b, w_b, 0.1, 0.05, 20.0, 10.0, 1e-3),
            (DVec3::ZERO, 0.0)
        );
    }

    #[test]
    fn the_orientation_turns_at_the_angular_velocity() {
        let omega = DVec3::new(0.3, -1.2, 2.0);
        let (dt, steps) = (1e-4, 10_000);
        let mut q = [0.0, 0.0, 0.0, 1.0];
        for _ in 0..steps {
            q = drift_orientation::<f64>(q, omega, dt);
        }
        let got = DQuat::from_xyzw(q[0], q[1], q[2], q[3]);
        let want = DQuat::from_scaled_axis(omega * (dt * steps as f64));
        // First order in ω dt per step: the angle error is O(|ω|² dt) over the run.
        assert!(got.angle_between(want) < 1e-3, "{got:?} vs {want:?}");
        assert!((got.length() - 1.0).abs() < 1e-12);
        assert_eq!(inverse_inertia(0.0, 1.0), 0.0);
        assert!((moment_of_inertia(2.0f64, 0.5) - 0.2).abs() < 1e-15);
    }
}
