//! Time of impact within a step: Nikulin's return to the contact point (PHYSICS.md §1).

use crate::Real;

/// Fraction τ ∈ [0, 1] of the step at which two spheres first touch, or `None`.
///
/// The centre separation moves linearly within the step, `d(τ) = d0 + τ Δ`, with `d0` the
/// separation at the start of the step and `Δ` the relative displacement over the step, m. The
/// spheres touch when `|d(τ)| = R` (sum of radii, m): the smaller root of
/// `|Δ|² τ² + 2 (d0·Δ) τ + |d0|² − R² = 0` (PHYSICS.md §5 in step-fraction form).
///
/// Returns `None` unless the spheres are separated at the start (`|d0| > R`), approach
/// (`d0·Δ < 0`) and the root lies in [0, 1]. Detection by this inequality pair, not by equality,
/// is what keeps a fast sphere from tunnelling through another (Nikulin).
#[inline(always)]
pub fn contact_fraction<R: Real>(d0: R::V3, delta: R::V3, radius_sum: R) -> Option<R> {
    let c = R::dot(d0, d0) - radius_sum * radius_sum;
    let b = R::dot(d0, delta);
    let a = R::dot(delta, delta);
    if c <= R::zero() || b >= R::zero() || a == R::zero() {
        return None;
    }
    let disc = b * b - a * c;
    if disc < R::zero() {
        return None;
    }
    // Citardauq form of the smaller root: no cancellation when b ≈ −sqrt(disc).
    let tau = c / (-b + disc.sqrt());
    if tau <= R::one() { Some(tau) } else { None }
}

/// Fraction τ ∈ [0, 1] of the step at which a sphere reaches a plane, from its signed gaps at the
/// start `s0 > 0` and end `s1 ≤ 0` of the step, m (gap `s = (x − o)·n − r`). Linear in between.
#[inline(always)]
pub fn plane_contact_fraction<R: Real>(s0: R, s1: R) -> R {
    (s0 / (s0 - s1)).min(R::one())
}
