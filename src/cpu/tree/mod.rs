//! Mutual gravity by a Barnes–Hut tree (`gravity_solver = "tree"`), O(N log N); the GPU twins
//! have the same stage names in `shaders/` and `src/gpu/` (docs/gravity-tree.md).
//!
//! The recipe of one evaluation, top to bottom:
//! [`bounds::tree_bounds`] → [`morton::morton_codes`] → [`sort::radix_sort`] →
//! [`karras::karras_tree`] and [`karras::escapes`] → [`moments::tree_moments`] →
//! [`walk::tree_walk`] per body.
//!
//! Every stage but the walk is exact and order-independent (integers, min/max, or sums in a
//! fixed order), so codes, order, topology and moments can be compared bit for bit between
//! backends. The walk is the only approximation; its error against the direct sum is measured
//! by `spheresim validate` (cases `tree-error-*`).

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
    (2 * size_of::<Cell<R>>() + size_of::<R::V3>() + 2 * size_of::<u64>() + 9 * size_of::<u32>())
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
    /// Per internal node (n − 1): left child, right child, last sorted position covered.
    pub left: Vec<u32>,
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
    arrivals: Vec<u32>,
    sorted_acc: Vec<R::V3>,
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
                &mut self.last,
                &mut self.split_right,
                &mut self.parent,
            );
        }
        karras::escapes(&self.last, &self.split_right, &mut self.escape);
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

    /// The walk of a body at `x` (m) through the built tree ([`walk::tree_walk`]);
    /// `skip` is a leaf to leave out (the body's own) or [`karras::NO_NODE`].
    #[inline]
    pub fn walk<const WITH_POTENTIAL: bool>(
        &self,
        x: R::V3,
        skip: u32,
        theta: R,
        eps2: R,
    ) -> walk::WalkOut<R> {
        let (cells, left, escape) = (&self.cells, &self.left, &self.escape);
        walk::tree_walk::<R, WITH_POTENTIAL>(x, skip, cells, left, escape, theta * theta, eps2)
    }

    /// Builds the tree and fills `a[i]` with the mutual acceleration of body i, m/s², with
    /// opening angle `theta`, `g_const` = G (m³ kg⁻¹ s⁻²) and `eps2` = ε² (m²); the same
    /// quantity as the direct sum [`crate::cpu::gravity::gravity`], to the tree's error.
    /// Returns the walks' interaction counts.
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
        // Walks in Morton order: neighbouring walks open nearly the same cells, so the cells
        // stay in cache. The results are scattered back to body order afterwards.
        let mut sorted = std::mem::take(&mut self.sorted_acc);
        sorted.resize(position.len(), R::zero3());
        let tree = &*self;
        let counts = sorted
            .par_chunks_mut(super::CHUNK)
            .zip(self.order.par_chunks(super::CHUNK))
            .map(|(acc, bodies)| {
                let mut c = WalkCounts::default();
                for (ai, &b) in acc.iter_mut().zip(bodies) {
                    let w = tree.walk::<false>(position[b as usize], karras::NO_NODE, theta, eps2);
                    *ai = w.pull * g_const;
                    c.walks += 1;
                    c.interactions += w.interactions as u64;
                    c.max = c.max.max(w.interactions);
                }
                c
            })
            .reduce(WalkCounts::default, |a, b| WalkCounts {
                walks: a.walks + b.walks,
                interactions: a.interactions + b.interactions,
                max: a.max.max(b.max),
            });
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
        &self,
        position: &[R::V3],
        mass: &[R],
        theta: R,
        g_const: f64,
        eps2: R,
    ) -> f64 {
        let first_leaf = self.len().saturating_sub(1);
        self.order
            .par_chunks(super::CHUNK)
            .enumerate()
            .map(|(c, bodies)| {
                let mut u = 0.0;
                for (k, &b) in bodies.iter().enumerate() {
                    let (xi, mi) = (position[b as usize], mass[b as usize]);
                    if mi.is_finite() {
                        let leaf = (first_leaf + c * super::CHUNK + k) as u32;
                        let w = self.walk::<true>(xi, leaf, theta, eps2);
                        u += 0.5 * g_const * mi.f64() * w.potential.f64();
                    }
                }
                u
            })
            .collect::<Vec<f64>>()
            .iter()
            .sum()
    }
}
