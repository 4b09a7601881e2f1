//! Stage `tree_walk`: a group of bodies adjacent in Morton order walks the tree once, depth first
//! and without a stack (following `left` to open a cell and `escape` to skip one,
//! [`super::karras::escapes`]), and collects the cells it may use whole and the leaves it
//! reaches; then each body of the group sums the pulls of that list.
//!
//! Opening criterion (Barnes–Hut with the cell's `b_max`; J. Salmon & M. Warren, J. Comput.
//! Phys. 111, 136, 1994): a cell is used whole when `d > b_max / θ`, d being the distance from
//! the group's box to the cell's centre of mass, and the group's box does not overlap the cell's
//! box; it is opened otherwise. Measured from the group's box, d is at most any one body's
//! distance, so each body's own criterion holds too; the overlap test keeps a body from ever
//! being summed inside a cell (possible for θ > 1 otherwise). Sharing the walk among [`GROUP`]
//! bodies is the grouping of J. Barnes, J. Comput. Phys. 87, 161 (1990): the tree is read once
//! per group, and the sums run over a flat list. Leaves are single bodies and add the direct
//! sum's softened pull, so a body and itself add exactly zero.

use super::karras::NO_NODE;
use super::moments::Cell;
use crate::Real;
use crate::physics::gravity::softened_pull;
use crate::physics::multipole::{multipole_potential, multipole_pull};

/// Bodies that share one walk: consecutive runs of this many bodies in Morton order (the last
/// group may be shorter).
pub const GROUP: usize = 32;

/// What one body's sum over its group's list found: the pull (kg m⁻²; times G gives m/s²), the
/// potential (kg/m; times G gives J/kg, when asked for) and the entries it used.
#[derive(Clone, Copy, Debug, Default)]
pub struct WalkOut<R: Real> {
    /// `Σ` pulls of the used cells and leaves, kg m⁻².
    pub pull: R::V3,
    /// `Σ` potentials of the used cells and leaves, kg m⁻¹ (0 unless `WITH_POTENTIAL`).
    pub potential: R,
    /// Cells and leaves used: the body's interactions.
    pub interactions: u32,
}

/// The interaction list of one group: internal cells used whole, and leaves, each in walk order.
#[derive(Clone, Debug, Default)]
pub struct WalkList {
    /// Internal node references of the cells used whole.
    pub far: Vec<u32>,
    /// Leaf references (one body each).
    pub near: Vec<u32>,
}

/// Squared distance from the box `[lo, hi]` to the point `c` (0 inside).
#[inline(always)]
fn box_distance2<R: Real>(lo: R::V3, hi: R::V3, c: R::V3) -> R {
    let (l, h, p) = (R::comps(lo), R::comps(hi), R::comps(c));
    let mut d2 = R::zero();
    for k in 0..3 {
        let d = (l[k] - p[k]).max(p[k] - h[k]).max(R::zero());
        d2 += d * d;
    }
    d2
}

/// Whether the boxes `[a_lo, a_hi]` and `[b_lo, b_hi]` share a point.
#[inline(always)]
fn overlap<R: Real>(a_lo: R::V3, a_hi: R::V3, b_lo: R::V3, b_hi: R::V3) -> bool {
    let (al, ah, bl, bh) = (R::comps(a_lo), R::comps(a_hi), R::comps(b_lo), R::comps(b_hi));
    (0..3).all(|k| al[k] <= bh[k] && bl[k] <= ah[k])
}

/// Walks the tree of `cells` (2n − 1 by node reference, [`super::moments`]) for a group whose
/// bodies lie in the box `[lo, hi]` (m), with `left` and `escape` of [`super::karras`] and
/// `theta2` = θ², filling `list` (cleared first).
pub fn tree_walk<R: Real>(
    lo: R::V3,
    hi: R::V3,
    cells: &[Cell<R>],
    left: &[u32],
    escape: &[u32],
    theta2: R,
    list: &mut WalkList,
) {
    let first_leaf = (cells.len() / 2) as u32; // n − 1
    list.far.clear();
    list.near.clear();
    let mut node = 0u32;
    while node != NO_NODE {
        let c = &cells[node as usize];
        if node >= first_leaf {
            list.near.push(node);
            node = escape[node as usize];
        } else if box_distance2::<R>(lo, hi, c.com) * theta2 > c.b_max2
            && !overlap::<R>(lo, hi, c.lo, c.hi)
        {
            list.far.push(node);
            node = escape[node as usize];
        } else {
            node = left[node as usize];
        }
    }
}

/// One body's sum over its group's `list`: the body at `x` (m), leaving out the leaf `skip`
/// (its own, or [`NO_NODE`]: its pull on itself is zero anyway, but its softened potential is
/// not), with `eps2` = ε² (m²). Far cells first, then leaves, each in walk order.
#[inline]
pub fn sum_list<R: Real, const WITH_POTENTIAL: bool>(
    x: R::V3,
    skip: u32,
    cells: &[Cell<R>],
    list: &WalkList,
    eps2: R,
) -> WalkOut<R> {
    let mut out = WalkOut::<R>::default();
    for &k in &list.far {
        let c = &cells[k as usize];
        let d = c.com - x;
        out.pull += multipole_pull::<R>(d, c.mass, &c.quad, eps2);
        if WITH_POTENTIAL {
            out.potential += multipole_potential::<R>(d, c.mass, &c.quad, eps2);
        }
    }
    for &k in &list.near {
        if k == skip {
            continue;
        }
        let c = &cells[k as usize];
        let d = c.com - x;
        out.pull += softened_pull::<R>(d, c.mass, eps2);
        if WITH_POTENTIAL {
            out.potential += multipole_potential::<R>(d, c.mass, &c.quad, eps2);
        }
    }
    out.interactions = (list.far.len() + list.near.len()) as u32;
    out
}
