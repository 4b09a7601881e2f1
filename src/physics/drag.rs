//! Stokes drag (docs/physics.md §4, after Nikulin).

use crate::Real;

/// Stokes drag force `F = −k_c r v`, N, on a sphere of radius `r` (m) moving at `v` (m/s), with
/// coefficient `k_c` in N·s/m².
#[inline(always)]
pub fn stokes_drag<R: Real>(k_c: R, r: R, v: R::V3) -> R::V3 {
    v * (-k_c * r)
}
