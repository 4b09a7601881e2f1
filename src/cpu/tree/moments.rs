//! Stage `tree_moments`: each cell's mass, centre of mass, quadrupole and box, bottom up.
//!
//! Every leaf climbs toward the root; at each internal node the first child to arrive stops and
//! the second computes the node from its two children, left then right (the GPU twin counts
//! arrivals with an atomic). A node's value therefore depends only on its children, never on
//! which arrived first, so the moments are the same whatever order the threads finish in.

use super::karras::NO_NODE;
use crate::Real;
use crate::physics::multipole::{Quadrupole, add_point_quadrupole};

/// A cell of the tree: a leaf (one body) or an internal node (its subtree's bodies).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cell<R: Real> {
    /// Centre of mass, m (for a massless cell, the middle of its box).
    pub com: R::V3,
    /// Gravitating mass, kg (a body of non-finite mass, a fixed one, counts 0).
    pub mass: R,
    /// Traceless quadrupole about `com`, kg m² ([`Quadrupole`]).
    pub quad: Quadrupole<R>,
    /// Corners of the box of the cell's bodies, m.
    pub lo: R::V3,
    /// See `lo`.
    pub hi: R::V3,
    /// `b_max²`, m²: the squared distance from `com` to the farthest corner of the box, which
    /// bounds the distance to any of the cell's bodies.
    pub b_max2: R,
}

/// The leaf cell of a body at `x` (m) of mass `m` (kg).
#[inline(always)]
pub fn leaf_cell<R: Real>(x: R::V3, m: R) -> Cell<R> {
    Cell {
        com: x,
        mass: if m.is_finite() { m } else { R::zero() },
        quad: [R::zero(); 6],
        lo: x,
        hi: x,
        b_max2: R::zero(),
    }
}

/// The cell of two children `a` (left) and `b` (right): masses add, centres of mass average,
/// quadrupoles add with the parallel-axis shift ([`add_point_quadrupole`]), boxes merge.
#[inline(always)]
pub fn combine_cells<R: Real>(a: &Cell<R>, b: &Cell<R>) -> Cell<R> {
    let [alo, blo] = [R::comps(a.lo), R::comps(b.lo)];
    let [ahi, bhi] = [R::comps(a.hi), R::comps(b.hi)];
    let lo = R::vec(alo[0].min(blo[0]), alo[1].min(blo[1]), alo[2].min(blo[2]));
    let hi = R::vec(ahi[0].max(bhi[0]), ahi[1].max(bhi[1]), ahi[2].max(bhi[2]));
    let mass = a.mass + b.mass;
    let com = if mass > R::zero() {
        (a.com * a.mass + b.com * b.mass) / mass
    } else {
        (lo + hi) * R::of(0.5)
    };
    let mut quad: Quadrupole<R> = std::array::from_fn(|k| a.quad[k] + b.quad[k]);
    add_point_quadrupole::<R>(&mut quad, a.mass, a.com - com);
    add_point_quadrupole::<R>(&mut quad, b.mass, b.com - com);
    let [cx, cy, cz] = R::comps(com);
    let (l, h) = (R::comps(lo), R::comps(hi));
    let far = |c: R, l: R, h: R| (c - l).max(h - c);
    let (fx, fy, fz) = (
        far(cx, l[0], h[0]),
        far(cy, l[1], h[1]),
        far(cz, l[2], h[2]),
    );
    Cell {
        com,
        mass,
        quad,
        lo,
        hi,
        b_max2: fx * fx + fy * fy + fz * fz,
    }
}

/// Fills `cells` (2n − 1, by node reference) from the bodies' `position` (m) and `mass` (kg),
/// given the sorted `order` and the tree's `left`, `right` and `parent` ([`super::karras`]).
/// `arrivals` (n − 1) is scratch.
#[allow(clippy::too_many_arguments)] // the stage's buffers, as the GPU twin binds them
pub fn tree_moments<R: Real>(
    position: &[R::V3],
    mass: &[R],
    order: &[u32],
    left: &[u32],
    right: &[u32],
    parent: &[u32],
    arrivals: &mut [u32],
    cells: &mut [Cell<R>],
) {
    let n = order.len();
    arrivals.fill(0);
    for (i, &body) in order.iter().enumerate() {
        let b = body as usize;
        let leaf = n - 1 + i;
        cells[leaf] = leaf_cell::<R>(position[b], mass[b]);
        let mut node = if n > 1 { parent[leaf] } else { NO_NODE };
        while node != NO_NODE {
            let k = node as usize;
            arrivals[k] += 1;
            if arrivals[k] < 2 {
                break;
            }
            cells[k] = combine_cells::<R>(&cells[left[k] as usize], &cells[right[k] as usize]);
            node = parent[k];
        }
    }
}
