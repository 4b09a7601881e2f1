//! Stage `tree_walk`: each body walks the tree depth first without a stack, following `left`
//! to open a cell and `escape` to skip one ([`super::karras::escapes`]).
//!
//! Opening criterion (Barnes–Hut with the cell's `b_max`, as in J. Salmon & M. Warren, J.
//! Comput. Phys. 111, 136, 1994, §2): a cell at distance d from the body, measured to its centre
//! of mass, is used whole when `d > b_max / θ` and the body lies outside the cell's box; it is
//! opened otherwise. The second condition keeps a body from ever being summed inside a cell
//! (possible for θ > 1 otherwise). Leaves are single bodies and add the direct sum's softened
//! pull, so a body and itself add exactly zero.

use super::karras::NO_NODE;
use super::moments::Cell;
use crate::Real;
use crate::physics::gravity::softened_pull;
use crate::physics::multipole::{multipole_potential, multipole_pull};

/// What one walk found: the pull (m⁻² kg; times G gives m/s²), the potential (kg/m; times G
/// gives J/kg, when asked for) and the cells it used (leaves plus accepted cells).
#[derive(Clone, Copy, Debug, Default)]
pub struct WalkOut<R: Real> {
    /// `Σ` pulls of the used cells, kg m⁻².
    pub pull: R::V3,
    /// `Σ` potentials of the used cells, kg m⁻¹ (0 unless `WITH_POTENTIAL`).
    pub potential: R,
    /// Cells used: the walk's interactions.
    pub interactions: u32,
}

#[inline(always)]
fn outside<R: Real>(x: R::V3, lo: R::V3, hi: R::V3) -> bool {
    let ([x0, x1, x2], [l0, l1, l2], [h0, h1, h2]) = (R::comps(x), R::comps(lo), R::comps(hi));
    x0 < l0 || x0 > h0 || x1 < l1 || x1 > h1 || x2 < l2 || x2 > h2
}

/// Walks the tree of `cells` (2n − 1 by node reference, [`super::moments`]) for a body at `x`
/// (m), with `left` and `escape` of [`super::karras`], `theta2` = θ² and `eps2` = ε² (m²).
/// The leaf `skip` (the body's own, or [`NO_NODE`]) is left out: its pull on itself is zero
/// anyway, but its softened potential is not.
#[inline]
pub fn tree_walk<R: Real, const WITH_POTENTIAL: bool>(
    x: R::V3,
    skip: u32,
    cells: &[Cell<R>],
    left: &[u32],
    escape: &[u32],
    theta2: R,
    eps2: R,
) -> WalkOut<R> {
    let first_leaf = (cells.len() / 2) as u32; // n − 1
    let mut out = WalkOut::<R>::default();
    let mut node = 0u32;
    while node != NO_NODE {
        let c = &cells[node as usize];
        let d = c.com - x;
        if node >= first_leaf {
            if node == skip {
                node = escape[node as usize];
                continue;
            }
            out.pull += softened_pull::<R>(d, c.mass, eps2);
            if WITH_POTENTIAL {
                out.potential += multipole_potential::<R>(d, c.mass, &c.quad, eps2);
            }
            out.interactions += 1;
            node = escape[node as usize];
        } else if R::dot(d, d) * theta2 > c.b_max2 && outside::<R>(x, c.lo, c.hi) {
            out.pull += multipole_pull::<R>(d, c.mass, &c.quad, eps2);
            if WITH_POTENTIAL {
                out.potential += multipole_potential::<R>(d, c.mass, &c.quad, eps2);
            }
            out.interactions += 1;
            node = escape[node as usize];
        } else {
            node = left[node as usize];
        }
    }
    out
}
