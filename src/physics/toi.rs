//! Time of impact within a step: Nikulin's return to the contact point (docs/physics.md §1).

use crate::Real;

/// Fraction τ ∈ [0, 1] of the step at which two spheres first touch, or `None`.
///
/// The centre separation moves linearly within the step, `d(τ) = d0 + τ Δ`, with `d0` the
/// separation at the start of the step and `Δ` the relative displacement over the step, m. The
/// spheres touch when `|d(τ)| = R` (sum of radii, m): the smaller root of
/// `|Δ|² τ² + 2 (d0·Δ) τ + |d0|² − R² = 0` (docs/physics.md §5 in step-fraction form).
///
/// Returns `None` unless the spheres are separated at the start (`|d0| > R`), approach
/// (`d0·Δ < 0`) and the root lies in [0, 1]. Detection by this inequality pair, not by equality,
/// is what keeps a fast sphere from tunnelling through another (Nikulin).
#[inline(always)]
pub fn contact_fraction<R: Real>(d0: R::V3, delta: R::V3, radius_sum: R) -> Option<R> {
    contact_time(d0, delta, radius_sum).filter(|&tau| tau <= R::one())
}

/// Time until two spheres in uniform relative motion first touch, s, or `None` (docs/physics.md §5,
/// after the MIT 3.029 π-collisions notes).
///
/// `dx` is the separation `x_b − x_a` now (m), `dv` the relative velocity `v_b − v_a` (m/s),
/// `radius_sum` R the sum of radii (m). The spheres touch at the smaller root of
/// `|dv|² t² + 2 (dx·dv) t + |dx|² − R² = 0`,
/// `t = −(dx·dv + sqrt((dx·dv)² − |dv|² (|dx|² − R²))) / |dv|²`, evaluated in the Citardauq form
/// `t = (|dx|² − R²) / (−dx·dv + sqrt(…))`, which has no cancellation when `dx·dv ≈ −sqrt(…)`.
///
/// Returns `None` unless the spheres are apart now (`|dx| > R`), approach (`dx·dv < 0`) and the
/// root is real. A uniform field accelerates both spheres alike and drops out of `dv`.
/// [`contact_fraction`] is the same root in step-fraction form.
#[inline(always)]
pub fn contact_time<R: Real>(dx: R::V3, dv: R::V3, radius_sum: R) -> Option<R> {
    let c = R::dot(dx, dx) - radius_sum * radius_sum;
    let b = R::dot(dx, dv);
    let a = R::dot(dv, dv);
    if c <= R::zero() || b >= R::zero() || a == R::zero() {
        return None;
    }
    let disc = b * b - a * c;
    if disc < R::zero() {
        return None;
    }
    // Citardauq form of the smaller root: no cancellation when b ≈ −sqrt(disc).
    Some(c / (-b + disc.sqrt()))
}

/// Time until a sphere in a uniform field first reaches a plane moving towards it, s, or `None`.
///
/// The gap `s(t) = s0 + u t + ½ a t²` (m) with `s0 = (x − o)·n − r` now, `u = v·n` (m/s) and
/// `a = g·n` (m/s²), n the plane's unit normal. Of the two roots of `s(t) = 0` the one where the
/// sphere moves *into* the plane has `s'(t) = −sqrt(u² − 2 a s0)`; in forms free of
/// cancellation: `t = 2 s0 / (sqrt(u² − 2 a s0) − u)` when `u < 0`, and
/// `t = (u + sqrt(u² − 2 a s0)) / (−a)` when `u ≥ 0` and `a < 0` (the sphere rises, then falls
/// back). A sphere already touching or overlapping (`s0 ≤ 0`) and moving in gets `Some(0)`;
/// one touching with `u = 0` and the field pressing it in (`a < 0`) gets `Some(0)` too. A
/// negative `s0` (an overlap left by rounding) counts as touching.
/// Returns `None` when the sphere never reaches the plane.
pub fn plane_contact_time(s0: f64, u: f64, a: f64) -> Option<f64> {
    // An overlap is rounding error at an event: count it as touching.
    let s0 = s0.max(0.0);
    let disc = u * u - 2.0 * a * s0;
    if disc < 0.0 {
        return None;
    }
    let sq = disc.sqrt();
    let t = if u < 0.0 {
        2.0 * s0 / (sq - u)
    } else if a < 0.0 {
        (u + sq) / -a
    } else {
        return None;
    };
    Some(t.max(0.0))
}

/// Fraction τ ∈ [0, 1] of the step at which a sphere reaches a plane, from its signed gaps at the
/// start `s0 > 0` and end `s1 ≤ 0` of the step, m (gap `s = (x − o)·n − r`). Linear in between.
#[inline(always)]
pub fn plane_contact_fraction<R: Real>(s0: R, s1: R) -> R {
    (s0 / (s0 - s1)).min(R::one())
}

/// Time until two spheres with *different* constant accelerations first touch, s, or `None`.
///
/// With separation `dx` (m), relative velocity `dv` (m/s) and relative acceleration `da` (m/s²),
/// all `b − a`, the separation is `d(t) = dx + dv t + ½ da t²` and the spheres touch where the
/// quartic `f(t) = |d(t)|² − R² = c₀ + c₁ t + c₂ t² + c₃ t³ + c₄ t⁴` vanishes, with
/// `c₀ = |dx|² − R²`, `c₁ = 2 dx·dv`, `c₂ = |dv|² + dx·da`, `c₃ = dv·da`, `c₄ = |da|²/4`.
/// This happens in the event-driven solver when one sphere of a pair rests on a plane (the field
/// along the plane's normal is cancelled for it) or is fixed (no field at all); when both feel
/// the same field, use [`contact_time`] (docs/physics.md §5).
///
/// Returns the first `t ≥ 0` where f crosses from positive to negative (the spheres move into
/// each other; grazing touches are not contacts): `Some(0)` for spheres touching or overlapping
/// and approaching now. Roots are isolated exactly between the real roots of the derivatives
/// (each interval between consecutive critical points is monotone) and then bisected to the
/// last bit, so no root is skipped however close two roots are.
pub fn contact_time_accelerated(
    dx: glam::DVec3,
    dv: glam::DVec3,
    da: glam::DVec3,
    radius_sum: f64,
) -> Option<f64> {
    let c0 = dx.length_squared() - radius_sum * radius_sum;
    let c1 = 2.0 * dx.dot(dv);
    let c2 = dv.length_squared() + dx.dot(da);
    let c3 = dv.dot(da);
    let c4 = 0.25 * da.length_squared();
    if c0 <= 0.0 {
        if c1 < 0.0 || (c1 == 0.0 && c2 < 0.0) {
            return Some(0.0);
        }
        // Touching and separating (just after a collision): the root at t = 0 is the contact
        // that just ended; the next one is the first downward crossing of f(t)/t.
        return first_downcrossing(&[c1, c2, c3, c4]);
    }
    first_downcrossing(&[c0, c1, c2, c3, c4])
}

/// Evaluates the polynomial `Σ c[k] t^k` (Horner).
fn poly(c: &[f64], t: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &ck| acc * t + ck)
}

/// Coefficients of the derivative of `Σ c[k] t^k`.
fn derivative(c: &[f64]) -> Vec<f64> {
    c.iter()
        .enumerate()
        .skip(1)
        .map(|(k, &ck)| k as f64 * ck)
        .collect()
}

/// Drops vanishing leading coefficients (degree reduction).
fn trim(c: &[f64]) -> &[f64] {
    let mut n = c.len();
    while n > 0 && c[n - 1] == 0.0 {
        n -= 1;
    }
    &c[..n]
}

/// Cauchy's bound: every real root of the polynomial lies in `[−B, B]`.
fn root_bound(c: &[f64]) -> f64 {
    let lead = c[c.len() - 1].abs();
    1.0 + c[..c.len() - 1]
        .iter()
        .map(|x| x.abs() / lead)
        .fold(0.0, f64::max)
}

/// Bisects `[lo, hi]`, on which the polynomial changes sign, to the last representable bit.
fn bisect(c: &[f64], mut lo: f64, mut hi: f64) -> f64 {
    let f_lo_positive = poly(c, lo) > 0.0;
    for _ in 0..2100 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if (poly(c, mid) > 0.0) == f_lo_positive {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// Sorted real roots in `(0, hi)` of a polynomial, isolated between its critical points.
fn roots_in(c: &[f64], hi: f64) -> Vec<f64> {
    let c = trim(c);
    if c.len() < 2 {
        return Vec::new();
    }
    if c.len() == 2 {
        let t = -c[0] / c[1];
        return if t > 0.0 && t < hi { vec![t] } else { vec![] };
    }
    let mut knots = vec![0.0];
    knots.extend(roots_in(&derivative(c), hi));
    knots.push(hi);
    let mut out = Vec::new();
    for w in knots.windows(2) {
        let (fa, fb) = (poly(c, w[0]), poly(c, w[1]));
        // A spurious knot (a root at an interval's end found twice) only splits an interval.
        if (fa > 0.0) != (fb > 0.0) {
            out.push(bisect(c, w[0], w[1]));
        }
    }
    out
}

/// First `t ≥ 0` at which `Σ c[k] t^k` crosses from positive to non-positive, or `None`.
fn first_downcrossing(c: &[f64]) -> Option<f64> {
    let c = trim(c);
    if c.is_empty() {
        return None;
    }
    if c[0] < 0.0 {
        return Some(0.0);
    }
    if c[0] == 0.0 {
        // f(t) = t h(t): moving in now if h(0) ≤ 0, else the first down-crossing of h.
        return first_downcrossing(&c[1..]);
    }
    if c.len() < 2 {
        return None;
    }
    let hi = 2.0 * root_bound(c);
    let mut knots = vec![0.0];
    knots.extend(roots_in(&derivative(c), hi));
    knots.push(hi);
    knots
        .windows(2)
        .find(|w| poly(c, w[0]) > 0.0 && poly(c, w[1]) <= 0.0)
        .map(|w| bisect(c, w[0], w[1]))
}
