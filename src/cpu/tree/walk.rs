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
use crate::physics::gravity::{softened_pull, softened_pull_xyz};
use crate::physics::multipole::{multipole_potential, multipole_pull, multipole_pull_xyz};

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
    let (al, ah, bl, bh) = (
        R::comps(a_lo),
        R::comps(a_hi),
        R::comps(b_lo),
        R::comps(b_hi),
    );
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
/// not), with `eps2` = ε² (m²). The far cells' sum plus the leaves' sum, each in walk order.
#[inline]
pub fn sum_list<R: Real, const WITH_POTENTIAL: bool>(
    x: R::V3,
    skip: u32,
    cells: &[Cell<R>],
    list: &WalkList,
    eps2: R,
) -> WalkOut<R> {
    // Far cells and leaves in separate sums, added at the end, as the GPU twin adds them in
    // one pass over the tree.
    let (mut far, mut near) = (WalkOut::<R>::default(), WalkOut::<R>::default());
    for &k in &list.far {
        let c = &cells[k as usize];
        let d = c.com - x;
        far.pull += multipole_pull::<R>(d, c.mass, &c.quad, eps2);
        if WITH_POTENTIAL {
            far.potential += multipole_potential::<R>(d, c.mass, &c.quad, eps2);
        }
    }
    for &k in &list.near {
        if k == skip {
            continue;
        }
        let c = &cells[k as usize];
        let d = c.com - x;
        near.pull += softened_pull::<R>(d, c.mass, eps2);
        if WITH_POTENTIAL {
            near.potential += multipole_potential::<R>(d, c.mass, &c.quad, eps2);
        }
    }
    let mut out = WalkOut::<R> {
        pull: far.pull + near.pull,
        potential: far.potential + near.potential,
        interactions: 0,
    };
    out.interactions = (list.far.len() + list.near.len()) as u32;
    out
}

/// A group's list gathered into flat arrays, and the group's bodies, for [`sum_group`].
#[derive(Clone, Debug)]
pub struct GroupSums<R: Real> {
    /// Far cells: centre of mass and mass `[x, y, z, m]`, and quadrupole.
    far: Vec<[R; 4]>,
    far_q: Vec<[R; 6]>,
    /// Leaves: position and mass `[x, y, z, m]`.
    near: Vec<[R; 4]>,
    /// The group's bodies (unused lanes repeat the first body) and their pulls.
    x: [[R; GROUP]; 3],
    /// Pull of each body, kg m⁻², components.
    pub pull: [[R; GROUP]; 3],
    near_pull: [[R; GROUP]; 3],
}

impl<R: Real> Default for GroupSums<R> {
    fn default() -> Self {
        Self {
            far: Vec::new(),
            far_q: Vec::new(),
            near: Vec::new(),
            x: [[R::zero(); GROUP]; 3],
            pull: [[R::zero(); GROUP]; 3],
            near_pull: [[R::zero(); GROUP]; 3],
        }
    }
}

/// The pulls on the group's bodies at `x` (m, at most [`GROUP`]) from the group's `list`, into
/// `g.pull`: for each body, the far cells' sum plus the leaves' sum, each in walk order, as
/// [`sum_list`] adds them (without the potential). The loops run over the list outside and the
/// bodies inside, so each body's terms are added in list order while the compiler vectorises
/// across bodies.
pub fn sum_group<R: Real>(
    x: impl ExactSizeIterator<Item = R::V3>,
    cells: &[Cell<R>],
    list: &WalkList,
    eps2: R,
    g: &mut GroupSums<R>,
) {
    let len = x.len();
    debug_assert!((1..=GROUP).contains(&len));
    for (i, p) in x.enumerate() {
        let [a, b, c] = R::comps(p);
        (g.x[0][i], g.x[1][i], g.x[2][i]) = (a, b, c);
    }
    for i in len..GROUP {
        (g.x[0][i], g.x[1][i], g.x[2][i]) = (g.x[0][0], g.x[1][0], g.x[2][0]);
    }
    g.far.clear();
    g.far_q.clear();
    g.near.clear();
    for &k in &list.far {
        let c = &cells[k as usize];
        let [cx, cy, cz] = R::comps(c.com);
        g.far.push([cx, cy, cz, c.mass]);
        g.far_q.push(c.quad);
    }
    for &k in &list.near {
        let c = &cells[k as usize];
        let [cx, cy, cz] = R::comps(c.com);
        g.near.push([cx, cy, cz, c.mass]);
    }
    // Lanes in whole vectors of 8: unused lanes hold the first body and are not read back.
    let lanes = len.next_multiple_of(8).min(GROUP);
    let [xs, ys, zs] = &g.x;
    let [px, py, pz] = &mut g.pull;
    let [nx, ny, nz] = &mut g.near_pull;
    for v in [&mut *px, &mut *py, &mut *pz, &mut *nx, &mut *ny, &mut *nz] {
        *v = [R::zero(); GROUP];
    }
    for (&[cx, cy, cz, m], q) in g.far.iter().zip(&g.far_q) {
        for i in 0..lanes {
            let a = multipole_pull_xyz::<R>(cx - xs[i], cy - ys[i], cz - zs[i], m, q, eps2);
            px[i] += a[0];
            py[i] += a[1];
            pz[i] += a[2];
        }
    }
    for &[cx, cy, cz, m] in &g.near {
        for i in 0..lanes {
            let a = softened_pull_xyz::<R>(cx - xs[i], cy - ys[i], cz - zs[i], m, eps2);
            nx[i] += a[0];
            ny[i] += a[1];
            nz[i] += a[2];
        }
    }
    for i in 0..lanes {
        px[i] += nx[i];
        py[i] += ny[i];
        pz[i] += nz[i];
    }
}
