//! Mutual gravity by a Barnes–Hut tree (`gravity_solver = "tree"`), O(N log N)
//! (docs/gravity-tree.md). The GPU twins of these stages have the same names in `shaders/` and
//! `src/gpu/tree.rs` (integer outputs, fixed-order sums, no stack).
//!
//! The recipe of one evaluation, top to bottom:
//! [`bounds::tree_bounds`] → [`morton::morton_codes`] → [`sort::radix_sort`] →
//! [`karras::karras_tree`], [`karras::escapes`] and [`karras::tree_groups`] →
//! [`moments::tree_moments`] → per group [`walk::tree_walk`], then [`walk::sum_group`] for the
//! group's bodies.
//!
//! Every stage but the walk is exact and order-independent (integers, min/max, or sums in a
//! fixed order), so codes, order, topology and moments can be compared bit for bit between
//! backends. The walk is the only approximation; its error against the direct sum is measured
//! by `spheresim validate tree-error`.

pub mod bounds;
pub mod karras;
pub mod moments;
pub mod morton;
pub mod sort;
pub mod walk;

use crate::Real;
use moments::Cell;
use rayon::prelude::*;

/// The default opening angle θ (`theta` in `[simulation]`).
pub const DEFAULT_THETA: f64 = 0.5;

/// The largest opening angle accepted; beyond it the quadrupole expansion is used so close to
/// its cell that its error grows past tens of per cent.
pub const MAX_THETA: f64 = 1.5;

/// Bytes per body of a [`Tree`] in precision `R` (two cells per body plus the integer arrays),
/// for memory-fit checks.
pub fn bytes_per_body<R: Real>() -> u64 {
    (2 * size_of::<Cell<R>>() + size_of::<R::V3>() + 2 * size_of::<u64>() + 11 * size_of::<u32>())
        as u64
}

/// Interaction counts of the last [`Tree::accelerations`], per body (one walk per body).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WalkCounts {
    /// Bodies walked.
    pub walks: u64,
    /// Sum of the interactions (cells used) over all walks.
    pub interactions: u64,
    /// The largest count of one walk.
    pub max: u32,
}

impl WalkCounts {
    /// Mean interactions per walk (0 when none).
    pub fn mean(&self) -> f64 {
        if self.walks == 0 {
            0.0
        } else {
            self.interactions as f64 / self.walks as f64
        }
    }
}

/// A Barnes–Hut tree and its scratch, reused from step to step (no allocation once sized).
#[derive(Clone, Debug, Default)]
pub struct Tree<R: Real> {
    /// Morton code per body, input order.
    pub codes: Vec<u64>,
    /// Body indices in Morton order.
    pub order: Vec<u32>,
    /// `codes` in Morton order.
    pub sorted_codes: Vec<u64>,
    /// Per internal node (n − 1): left child, right child, first and last sorted positions
    /// covered.
    pub left: Vec<u32>,
    /// See `left`.
    pub first: Vec<u32>,
    /// See `left`.
    pub right: Vec<u32>,
    /// See `left`.
    pub last: Vec<u32>,
    /// Right child of the node splitting between sorted positions γ and γ + 1 (n − 1).
    pub split_right: Vec<u32>,
    /// Per node reference (2n − 1): parent, and the node after its subtree.
    pub parent: Vec<u32>,
    /// See `parent`.
    pub escape: Vec<u32>,
    /// The walk groups ([`karras::tree_groups`]): node references in Morton order.
    pub groups: Vec<u32>,
    arrivals: Vec<u32>,
    sorted_acc: Vec<R::V3>,
    /// Group index ranges of the parallel blocks of the walk, about [`super::CHUNK`] bodies each.
    blocks: Vec<(u32, u32)>,
    /// Per node reference (2n − 1).
    pub cells: Vec<Cell<R>>,
}

impl<R: Real> Tree<R> {
    /// An empty tree; [`Tree::build`] sizes it.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bodies in the tree.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether the tree holds no body.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Builds the tree of bodies at `position` (m) with `mass` (kg; non-finite counts 0).
    /// Allocates only when the body count grows.
    pub fn build(&mut self, position: &[R::V3], mass: &[R]) {
        let n = position.len();
        let internal = n.saturating_sub(1);
        let nodes = (2 * n).saturating_sub(1);
        self.codes.resize(n, 0);
        self.order.resize(n, 0);
        self.sorted_codes.resize(n, 0);
        for v in [
            &mut self.left,
            &mut self.right,
            &mut self.first,
            &mut self.last,
            &mut self.split_right,
        ] {
            v.resize(internal, 0);
        }
        self.arrivals.resize(internal, 0);
        self.parent.resize(nodes, karras::NO_NODE);
        self.escape.resize(nodes, karras::NO_NODE);
        self.cells.resize(nodes, Cell::default());
        if n == 0 {
            return;
        }
        let (lo, hi) = bounds::tree_bounds::<R>(position);
        let scale = morton::morton_scale::<R>(lo, hi);
        morton::morton_codes::<R>(position, lo, scale, &mut self.codes);
        sort::radix_sort(&self.codes, &mut self.order, &mut self.sorted_codes);
        if n > 1 {
            karras::karras_tree(
                &self.sorted_codes,
                &mut self.left,
                &mut self.right,
                &mut self.first,
                &mut self.last,
                &mut self.split_right,
                &mut self.parent,
            );
        }
        karras::escapes(&self.last, &self.split_right, &mut self.escape);
        karras::tree_groups(
            &self.first,
            &self.last,
            &self.left,
            &self.escape,
            walk::GROUP,
            &mut self.groups,
        );
        moments::tree_moments::<R>(
            position,
            mass,
            &self.order,
            &self.left,
            &self.right,
            &self.parent,
            &mut self.arrivals,
            &mut self.cells,
        );
    }

    /// The sorted positions a node covers.
    fn node_range(&self, node: u32) -> std::ops::Range<usize> {
        let (k, first_leaf) = (node as usize, self.len() - 1);
        if k >= first_leaf {
            k - first_leaf..k - first_leaf + 1
        } else {
            self.first[k] as usize..self.last[k] as usize + 1
        }
    }

    /// Splits the groups into blocks of about [`super::CHUNK`] bodies for the parallel walk.
    fn make_blocks(&mut self) {
        self.blocks.clear();
        let (mut start, mut bodies) = (0usize, 0usize);
        for g in 0..self.groups.len() {
            bodies += self.node_range(self.groups[g]).len();
            if bodies >= super::CHUNK || g + 1 == self.groups.len() {
                self.blocks.push((start as u32, g as u32 + 1));
                (start, bodies) = (g + 1, 0);
            }
        }
    }

    /// Walks every group ([`karras::tree_groups`]) once, blocks of groups in parallel, and
    /// calls `fold(acc, s, b, out)` for each body b at sorted position s, in sorted order
    /// within a block, with its sum over the group's list. Returns each block's `acc` and its
    /// first sorted position.
    fn walk_groups<T: Send, const WITH_POTENTIAL: bool>(
        &self,
        position: &[R::V3],
        theta: R,
        eps2: R,
        skip_self: bool,
        init: impl Fn() -> T + Sync + Send,
        fold: impl Fn(&mut T, usize, u32, walk::WalkOut<R>) + Sync + Send,
    ) -> Vec<(usize, T)> {
        let first_leaf = self.len().saturating_sub(1);
        let theta2 = theta * theta;
        self.blocks
            .par_iter()
            .map_init(walk::WalkList::default, |list, &(g0, g1)| {
                let mut acc = init();
                let start = self.node_range(self.groups[g0 as usize]).start;
                for &node in &self.groups[g0 as usize..g1 as usize] {
                    let c = &self.cells[node as usize];
                    let (cells, left, escape) = (&self.cells, &self.left, &self.escape);
                    walk::tree_walk::<R>(c.lo, c.hi, cells, left, escape, theta2, list);
                    for s in self.node_range(node) {
                        let b = self.order[s];
                        let skip = if skip_self {
                            (first_leaf + s) as u32
                        } else {
                            karras::NO_NODE
                        };
                        let x = position[b as usize];
                        let out = walk::sum_list::<R, WITH_POTENTIAL>(x, skip, cells, list, eps2);
                        fold(&mut acc, s, b, out);
                    }
                }
                (start, acc)
            })
            .collect()
    }

    /// Builds the tree and fills `a[i]` with the mutual acceleration of body i, m/s², with
    /// opening angle `theta`, `g_const` = G (m³ kg⁻¹ s⁻²) and `eps2` = ε² (m²); the same
    /// quantity as the direct sum [`crate::cpu::gravity::gravity`], to the tree's error.
    /// Returns the walks' interaction counts (per body: the entries of its group's list).
    pub fn accelerations(
        &mut self,
        position: &[R::V3],
        mass: &[R],
        theta: R,
        g_const: R,
        eps2: R,
        a: &mut [R::V3],
    ) -> WalkCounts {
        self.build(position, mass);
        self.make_blocks();
        // Results in Morton order, scattered back to body order afterwards.
        let mut sorted = std::mem::take(&mut self.sorted_acc);
        sorted.resize(position.len(), R::zero3());
        let theta2 = theta * theta;
        let tree = &*self;
        // Per block: its first sorted position, its pulls (m/s²) and its counts.
        type Block<V> = (usize, (Vec<V>, WalkCounts));
        let blocks: Vec<Block<R::V3>> = self
            .blocks
            .par_iter()
            .map_init(
                || (walk::WalkList::default(), walk::GroupSums::<R>::default()),
                |(list, sums), &(g0, g1)| {
                    let start = tree.node_range(tree.groups[g0 as usize]).start;
                    let (mut pulls, mut c) =
                        (Vec::with_capacity(super::CHUNK), WalkCounts::default());
                    for &node in &tree.groups[g0 as usize..g1 as usize] {
                        let cell = &tree.cells[node as usize];
                        let (cells, left, escape) = (&tree.cells, &tree.left, &tree.escape);
                        walk::tree_walk::<R>(cell.lo, cell.hi, cells, left, escape, theta2, list);
                        let range = tree.node_range(node);
                        let x = tree.order[range.clone()]
                            .iter()
                            .map(|&b| position[b as usize]);
                        walk::sum_group::<R>(x, cells, list, eps2, sums);
                        let used = (list.far.len() + list.near.len()) as u32;
                        for i in 0..range.len() {
                            let [px, py, pz] = &sums.pull;
                            pulls.push(R::vec(px[i], py[i], pz[i]) * g_const);
                        }
                        c.walks += range.len() as u64;
                        c.interactions += used as u64 * range.len() as u64;
                        c.max = c.max.max(used);
                    }
                    (start, (pulls, c))
                },
            )
            .collect();
        let mut counts = WalkCounts::default();
        for (start, (pulls, c)) in blocks {
            sorted[start..start + pulls.len()].copy_from_slice(&pulls);
            counts.walks += c.walks;
            counts.interactions += c.interactions;
            counts.max = counts.max.max(c.max);
        }
        for (&b, &ai) in self.order.iter().zip(&sorted) {
            a[b as usize] = ai;
        }
        self.sorted_acc = sorted;
        counts
    }

    /// The gravitational potential energy `½ Σ_i G m_i Φ_i`, J, of the bodies the tree was
    /// last built from (same `position`, `mass`, `theta`, `eps2` as [`Tree::accelerations`]).
    /// Bodies of non-finite mass count 0. The sum is in f64 over fixed blocks.
    pub fn potential_energy(
        &mut self,
        position: &[R::V3],
        mass: &[R],
        theta: R,
        g_const: f64,
        eps2: R,
    ) -> f64 {
        self.make_blocks();
        let blocks = self.walk_groups::<f64, true>(
            position,
            theta,
            eps2,
            true,
            || 0.0,
            |u: &mut f64, _, b, w| {
                let m = mass[b as usize];
                if m.is_finite() {
                    *u += 0.5 * g_const * m.f64() * w.potential.f64();
                }
            },
        );
        blocks.iter().map(|(_, u)| u).sum()
    }
}
