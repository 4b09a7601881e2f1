//! Stage `gravity`: mutual Newtonian attraction by softened direct sum, O(N²).
//! Twin of `shaders/gravity.wgsl` (tiled through work-group memory there, GPU Gems 3 ch. 31).

use crate::Real;
use crate::physics::gravity::softened_pull;
use rayon::prelude::*;

/// Bodies per tile; the GPU's work-group size. Summation runs over j in tile order, so the CPU
/// and GPU add the same terms in the same order.
pub const TILE: usize = 256;

/// `a[i] = G Σ_{j≠i} m_j (x_j − x_i) / (|x_j − x_i|² + ε²)^{3/2}`, m/s² (docs/physics.md §3).
/// `mass` in kg (a non-finite mass contributes nothing), `g_const` in m³ kg⁻¹ s⁻², `eps2` = ε² m².
pub fn gravity<R: Real>(position: &[R::V3], mass: &[R], g_const: R, eps2: R, a: &mut [R::V3]) {
    let n = position.len();
    a.par_iter_mut().enumerate().for_each(|(i, ai)| {
        let xi = position[i];
        let mut acc = R::zero3();
        for t in (0..n).step_by(TILE) {
            for j in t..(t + TILE).min(n) {
                if j == i || !mass[j].is_finite() {
                    continue;
                }
                acc += softened_pull::<R>(position[j] - xi, mass[j], eps2);
            }
        }
        *ai = acc * g_const;
    });
}
