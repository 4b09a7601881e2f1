//! Instantaneous collisions with Newton's restitution (docs/physics.md §1).
//!
//! Sources: B. Neumann, "The three-dimensional collision of two spheres" (2024), §§3–6;
//! E. A. Nikulin, "Physical modeling of mechanical collisions in MathCAD", Trans. NNSTU 2024
//! no. 2, eqs. (5)–(9).

use crate::Real;

/// Restitution coefficient of a pair: the smaller of the two (Nikulin).
#[inline(always)]
pub fn pair_restitution<R: Real>(e_a: R, e_b: R) -> R {
    e_a.min(e_b)
}

/// Restitution of a contact approaching at `u_n` (m/s): `e`, or 0 for a *resting* contact,
/// one approaching slower than `resting_speed` (m/s).
///
/// A sphere resting on another under gravity approaches it by about |g| dt every step (the
/// half kicks); reflecting that with e > 0 makes stacks micro-bounce forever ("ghost"
/// velocities). Below the threshold the contact is treated as perfectly inelastic along the
/// normal, as rigid-body engines do (Box2D's velocity threshold, Bullet's restitution
/// threshold). The engine uses `resting_speed = 2 |g| dt` ([`resting_speed`]).
#[inline(always)]
pub fn effective_restitution<R: Real>(e: R, u_n: R, resting_speed: R) -> R {
    if u_n < resting_speed { R::zero() } else { e }
}

/// Approach speed below which a contact counts as resting, m/s: `2 |g| dt` for a uniform field
/// `g` (m/s²) and step `dt` (s). Zero without a uniform field.
pub fn resting_speed(gravity: glam::DVec3, dt: f64) -> f64 {
    2.0 * gravity.length() * dt
}

/// Magnitude of the normal impulse J, N·s, of a binary collision (Nikulin eq. 8):
/// `J = (1 + e) u_n / (w_a + w_b)`.
///
/// * `u_n` — normal approach speed `(v_a − v_b)·n`, m/s (> 0 when approaching);
/// * `e` — restitution coefficient in [0, 1];
/// * `w_a`, `w_b` — inverse masses, kg⁻¹ (0 for a fixed body; not both 0).
///
/// The velocities after are `v_a − J w_a n` and `v_b + J w_b n`: momentum is conserved exactly,
/// kinetic energy too when `e = 1`, and tangential components are untouched (Neumann §5).
#[inline(always)]
pub fn normal_impulse<R: Real>(u_n: R, e: R, w_a: R, w_b: R) -> R {
    (R::one() + e) * u_n / (w_a + w_b)
}

/// Velocity change of a sphere bouncing off an immovable plane with unit normal `n`, m/s
/// (docs/physics.md §1): `Δv = −(1 + e)(v·n) n` when `v·n < 0`, else zero.
#[inline(always)]
pub fn plane_velocity_change<R: Real>(v: R::V3, n: R::V3, e: R) -> R::V3 {
    let vn = R::dot(v, n);
    if vn < R::zero() {
        n * (-(R::one() + e) * vn)
    } else {
        R::zero3()
    }
}

/// Velocities `(v_a', v_b')` after a binary collision along unit normal `n` (from a to b), by
/// [`normal_impulse`]; unchanged when the spheres separate. A reference for tests and tools.
pub fn collide_velocities<R: Real>(
    v_a: R::V3,
    v_b: R::V3,
    n: R::V3,
    e: R,
    w_a: R,
    w_b: R,
) -> (R::V3, R::V3) {
    let u_n = R::dot(v_a - v_b, n);
    if u_n <= R::zero() || w_a + w_b == R::zero() {
        return (v_a, v_b);
    }
    let j = normal_impulse(u_n, e, w_a, w_b);
    (v_a - n * (j * w_a), v_b + n * (j * w_b))
}

/// Change of a pair's relative velocity `v = v_b − v_a` (m/s) when an overlap push moves the
/// spheres `push` metres further apart along their line of centres, chosen so that the pair's
/// own angular momentum `μ d × v` *and* its kinetic energy are kept (docs/physics.md §1.2,
/// overlap removal): the relative velocity is turned, not shortened.
///
/// `v_⊥' = f v_⊥`,  `f = |d| / (|d| + s)`;  `v_r' = ±sqrt(v_r² + (1 − f²) |v_⊥|²)` (sign of v_r,
/// + for 0), with `v_r = v·d̂`, `v_⊥ = v − v_r d̂`.
///
/// * `axis` — unit vector d̂ along the separation `d = x_b − x_a` before the push;
/// * `dist` — |d|, m;
/// * `push` — the distance s ≥ 0 the push adds to |d|, m (not both `dist` and `push` zero).
///
/// With `d' = (|d| + s) d̂`: `d' × v' = (|d| + s) d̂ × f v_⊥ = d × v`, what a central interaction
/// does as it changes the distance, keeping `r v_⊥` (H. Goldstein, C. Poole, J. Safko, *Classical
/// Mechanics*, 3rd ed., 2002, §§3.1–3.2); the tangential kinetic energy it takes goes into the
/// radial motion, as a central force's centrifugal term would put it (`|v'| = |v|`). Split by
/// inverse mass (`a` takes `−Δv w_a/(w_a + w_b)`, `b` takes `+Δv w_b/(w_a + w_b)`), as the push
/// itself is, the pair's centre of mass and momentum stay.
#[inline(always)]
pub fn push_velocity_change<R: Real>(axis: R::V3, dist: R, v: R::V3, push: R) -> R::V3 {
    let v_r = R::dot(v, axis);
    let v_perp = v - axis * v_r;
    let f = dist / (dist + push);
    let gain = (R::one() - f * f) * R::dot(v_perp, v_perp);
    let speed = (v_r * v_r + gain).sqrt();
    let v_r_new = if v_r < R::zero() { -speed } else { speed };
    axis * (v_r_new - v_r) + v_perp * (f - R::one())
}
