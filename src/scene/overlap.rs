//! Search for the first deep initial overlap among many spheres, without comparing all
//! pairs.
//!
//! Spheres are split into radius classes `[r_min 2^k, r_min 2^(k+1))`. Each class is binned
//! into its own hashed uniform grid with cell edge twice its largest radius, so within a class
//! a sphere meets all possible partners in the cells its extent touches (27 for equal radii),
//! and a cell holds a bounded number of spheres unless they overlap. Pairs of classes are
//! searched from whichever side is cheaper: the small spheres look up the 27 cells around them
//! in the large class's grid, or each large sphere scans the small class's cells under its
//! extent, or, when that extent covers more cells than the small class has spheres, all of
//! them. All candidates in a grid bucket are kept in ascending id order, and the best pair so
//! far prunes the search, so a heap of coincident spheres costs O(N), not O(N²).
//!
//! The result is the overlapping pair with the smallest `(a, b)`, whatever the thread timing.

use crate::scene::Sphere;
use glam::DVec3;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// An overlapping pair found by [`first_overlap`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Overlap {
    /// Smaller sphere id.
    pub a: usize,
    /// Larger sphere id.
    pub b: usize,
    /// `r_a + r_b − |x_b − x_a|`, m.
    pub depth: f64,
    /// `min(r_a, r_b)`, m.
    pub min_radius: f64,
}

/// The pair `(a, b)`, `a < b`, with the smallest `(a, b)` among pairs of spheres that are not
/// both fixed and overlap by more than `tolerance × min(r_a, r_b)`; `None` if there is none.
///
/// Radii must be positive and finite, positions finite, and there must be at most
/// `u32::MAX` spheres (as [`crate::Scene::check`] ensures); otherwise the answer may be
/// wrong but the function does not panic.
pub fn first_overlap(spheres: &[Sphere], tolerance: f64) -> Option<Overlap> {
    let n = spheres.len();
    if !(2..=u32::MAX as usize).contains(&n) {
        return None;
    }
    let ctx = Ctx {
        spheres,
        tolerance,
        best: AtomicU64::new(u64::MAX),
    };
    let grids: Vec<Grid> = classes(spheres)
        .into_iter()
        .map(|c| Grid::build(spheres, c))
        .collect();

    for (k, gk) in grids.iter().enumerate() {
        // Within class k.
        gk.members.par_iter().for_each(|&i| ctx.query_grid(i, gk));
        // Class j < k (smaller spheres) against class k.
        for gj in &grids[..k] {
            let cost_small_side = gj.members.len() as f64 * 27.0;
            let cost_large_side = gk.members.len() as f64
                * gj.cells_under(2.0 * gk.max_radius + gj.edge)
                    .min(gj.members.len() as f64);
            if cost_small_side <= cost_large_side {
                gj.members.par_iter().for_each(|&i| ctx.query_grid(i, gk));
            } else {
                gk.members.par_iter().for_each(|&i| ctx.query_grid(i, gj));
            }
        }
    }

    let best = ctx.best.load(Ordering::Relaxed);
    if best == u64::MAX {
        return None;
    }
    let (a, b) = ((best >> 32) as usize, (best & 0xffff_ffff) as usize);
    let (sa, sb) = (&spheres[a], &spheres[b]);
    Some(Overlap {
        a,
        b,
        depth: sa.radius + sb.radius - (sb.position - sa.position).length(),
        min_radius: sa.radius.min(sb.radius),
    })
}

/// [`first_overlap`] in a box periodic on the axes of `periodic`: also the pairs that overlap
/// through a face. The spheres within reach of a face (twice the largest radius) are searched
/// again with copies of those near a lower face moved by a box length (by each combination of
/// their axes, for the edges and corners); a copy found stands for its sphere, with the depth
/// of the nearest image. The pair with the smallest `(a, b)` of the two searches.
pub fn first_overlap_in(
    spheres: &[Sphere],
    tolerance: f64,
    periodic: &crate::scene::Periodic,
) -> Option<Overlap> {
    let inside = first_overlap(spheres, tolerance);
    if !periodic.any() {
        return inside;
    }
    let reach = 2.0 * spheres.iter().map(|s| s.radius).fold(0.0, f64::max);
    let axes: Vec<usize> = (0..3).filter(|&a| periodic.axes[a]).collect();
    let len = periodic.max - periodic.min;
    // The spheres near a face (ids), then the copies of those near a lower face.
    let mut near: Vec<Sphere> = Vec::new();
    let mut id: Vec<usize> = Vec::new();
    for (i, s) in spheres.iter().enumerate() {
        let x = s.position;
        let low: Vec<usize> = axes
            .iter()
            .copied()
            .filter(|&a| x[a] - periodic.min[a] < reach)
            .collect();
        let high = axes.iter().any(|&a| periodic.max[a] - x[a] < reach);
        if low.is_empty() && !high {
            continue;
        }
        near.push(s.clone());
        id.push(i);
        for mask in 1..(1u32 << low.len()) {
            let mut shift = DVec3::ZERO;
            for (k, &a) in low.iter().enumerate() {
                if mask & (1 << k) != 0 {
                    shift[a] = len[a];
                }
            }
            near.push(Sphere {
                position: x + shift,
                ..s.clone()
            });
            id.push(i);
        }
    }
    // Copies ordered after the spheres they stand for keep the smallest pair first; a sphere
    // never meets its own copy (the box is longer than twice the reach, `Scene::check`).
    let across = first_overlap(&near, tolerance).and_then(|o| {
        let (a, b) = (id[o.a], id[o.b]);
        (a != b).then(|| Overlap {
            a: a.min(b),
            b: a.max(b),
            ..o
        })
    });
    match (inside, across) {
        (Some(x), Some(y)) => Some(if (y.a, y.b) < (x.a, x.b) { y } else { x }),
        (x, y) => x.or(y),
    }
}

struct Ctx<'a> {
    spheres: &'a [Sphere],
    tolerance: f64,
    /// Best pair so far, `a << 32 | b`; `u64::MAX` for none.
    best: AtomicU64,
}

impl Ctx<'_> {
    /// Tests sphere `i` against the candidates `js` (ascending ids), recording overlaps and
    /// stopping once no later candidate can give a smaller pair than the best so far.
    fn test(&self, i: u32, js: &[u32]) {
        let si = &self.spheres[i as usize];
        for &j in js {
            if j == i {
                continue;
            }
            // pair_key(i, j) grows with j, and candidates are ascending: once a pair is no
            // better than the best so far, neither is any later one.
            let key = pair_key(i, j);
            if key >= self.best.load(Ordering::Relaxed) {
                return;
            }
            let sj = &self.spheres[j as usize];
            if si.fixed && sj.fixed {
                continue;
            }
            let reach = si.radius + sj.radius - self.tolerance * si.radius.min(sj.radius);
            if (sj.position - si.position).length_squared() < reach * reach {
                self.best.fetch_min(key, Ordering::Relaxed);
            }
        }
    }

    /// Tests sphere `i` against every member of `grid` that its extent can reach: by the
    /// cells under its extent, or all members when there are fewer members than cells.
    fn query_grid(&self, i: u32, grid: &Grid) {
        let s = &self.spheres[i as usize];
        let reach = DVec3::splat(s.radius + grid.max_radius);
        let lo = grid.cell(s.position - reach);
        let hi = grid.cell(s.position + reach);
        let cells = (0..3)
            .map(|d| (i128::from(hi[d]) - i128::from(lo[d]) + 1).max(0) as u128)
            .fold(1u128, u128::saturating_mul);
        if cells > grid.members.len() as u128 {
            // Fewer members than cells (a huge sphere, or a degenerate tiny cell edge).
            self.scan_all(i, &grid.members);
            return;
        }
        for x in lo[0]..=hi[0] {
            for y in lo[1]..=hi[1] {
                for z in lo[2]..=hi[2] {
                    self.test(i, grid.bucket([x, y, z]));
                }
            }
        }
    }

    /// Tests sphere `i` against all `members` (ascending ids), in parallel when they are many.
    fn scan_all(&self, i: u32, members: &[u32]) {
        const CHUNK: usize = 4096;
        if members.len() <= CHUNK {
            self.test(i, members);
        } else {
            members
                .par_chunks(CHUNK)
                .for_each(|chunk| self.test(i, chunk));
        }
    }
}

fn pair_key(i: u32, j: u32) -> u64 {
    let (a, b) = if i < j { (i, j) } else { (j, i) };
    u64::from(a) << 32 | u64::from(b)
}

/// Sphere ids split into radius classes `[r_min 2^k, r_min 2^(k+1))`, smallest class first,
/// empty classes dropped, ids ascending within a class.
fn classes(spheres: &[Sphere]) -> Vec<Vec<u32>> {
    let r_min = spheres
        .par_iter()
        .map(|s| s.radius)
        .reduce(|| f64::INFINITY, f64::min);
    // Positive finite radii span at most ~2100 binary orders of magnitude.
    let class_of = |r: f64| -> u16 {
        let k = (r / r_min).log2().floor();
        if k.is_finite() && k > 0.0 {
            k.min(f64::from(u16::MAX)) as u16
        } else {
            0
        }
    };
    let ks: Vec<u16> = spheres.par_iter().map(|s| class_of(s.radius)).collect();
    let n_classes = usize::from(ks.par_iter().copied().max().unwrap_or(0)) + 1;
    let mut counts = vec![0usize; n_classes];
    for &k in &ks {
        counts[usize::from(k)] += 1;
    }
    let mut out: Vec<Vec<u32>> = counts.iter().map(|&c| Vec::with_capacity(c)).collect();
    for (i, &k) in ks.iter().enumerate() {
        out[usize::from(k)].push(i as u32);
    }
    out.retain(|c| !c.is_empty());
    out
}

/// A hashed uniform grid over one radius class: the members of each bucket are contiguous
/// in `items`, in ascending id order.
struct Grid {
    /// Cell edge, m: twice `max_radius`.
    edge: f64,
    inv_edge: f64,
    /// Largest radius in the class, m.
    max_radius: f64,
    /// Ids in the class, ascending.
    members: Vec<u32>,
    /// `starts[b]..starts[b + 1]` indexes the members of bucket `b` in `items`.
    starts: Vec<u32>,
    items: Vec<u32>,
    mask: u64,
}

impl Grid {
    fn build(spheres: &[Sphere], members: Vec<u32>) -> Grid {
        let max_radius = members
            .par_iter()
            .map(|&i| spheres[i as usize].radius)
            .reduce(|| 0.0, f64::max);
        let edge = 2.0 * max_radius;
        let n_buckets = members.len().next_power_of_two().max(16);
        let mut grid = Grid {
            edge,
            inv_edge: 1.0 / edge,
            max_radius,
            members: Vec::new(),
            starts: Vec::new(),
            items: Vec::new(),
            mask: n_buckets as u64 - 1,
        };
        let buckets: Vec<u32> = members
            .par_iter()
            .map(|&i| grid.bucket_of(grid.cell(spheres[i as usize].position)) as u32)
            .collect();
        // Stable counting sort by bucket: ids stay ascending within a bucket.
        let mut starts = vec![0u32; n_buckets + 1];
        for &b in &buckets {
            starts[b as usize + 1] += 1;
        }
        for b in 0..n_buckets {
            starts[b + 1] += starts[b];
        }
        let mut next = starts.clone();
        let mut items = vec![0u32; members.len()];
        for (&i, &b) in members.iter().zip(&buckets) {
            let slot = &mut next[b as usize];
            items[*slot as usize] = i;
            *slot += 1;
        }
        grid.members = members;
        grid.starts = starts;
        grid.items = items;
        grid
    }

    /// Integer cell of a point (saturating far away: that only costs time, not accuracy).
    fn cell(&self, p: DVec3) -> [i64; 3] {
        let c = (p * self.inv_edge).floor();
        [c.x as i64, c.y as i64, c.z as i64]
    }

    fn bucket_of(&self, c: [i64; 3]) -> usize {
        let mut h = (c[0] as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (c[1] as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
            ^ (c[2] as u64).wrapping_mul(0x1656_67B1_9E37_79F9);
        h ^= h >> 29;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 32;
        (h & self.mask) as usize
    }

    fn bucket(&self, c: [i64; 3]) -> &[u32] {
        let b = self.bucket_of(c);
        &self.items[self.starts[b] as usize..self.starts[b + 1] as usize]
    }

    /// About how many cells a cube of edge `width` covers (at least 1).
    fn cells_under(&self, width: f64) -> f64 {
        ((width * self.inv_edge).ceil() + 1.0).powi(3)
    }
}

#[cfg(test)]
mod tests {
    use super::first_overlap;
    use crate::scene::Sphere;
    use glam::DVec3;
    use rand::{RngExt, SeedableRng};
    use rand_pcg::Pcg64;

    use crate::scene::test_sphere as sphere;

    fn brute(spheres: &[Sphere], tol: f64) -> Option<(usize, usize)> {
        for a in 0..spheres.len() {
            for b in a + 1..spheres.len() {
                let (sa, sb) = (&spheres[a], &spheres[b]);
                if sa.fixed && sb.fixed {
                    continue;
                }
                let reach = sa.radius + sb.radius - tol * sa.radius.min(sb.radius);
                if (sb.position - sa.position).length_squared() < reach * reach {
                    return Some((a, b));
                }
            }
        }
        None
    }

    /// Random scenes with radii over several binary orders of magnitude, some fixed spheres:
    /// the grid search agrees with the all-pairs search.
    #[test]
    fn grid_search_matches_all_pairs() {
        let mut rng = Pcg64::seed_from_u64(1);
        for case in 0..300 {
            let n = rng.random_range(2..400);
            let box_size = rng.random_range(1.0..40.0);
            let spread: f64 = [0.0, 1.0, 3.0, 8.0][case % 4];
            let spheres: Vec<Sphere> = (0..n)
                .map(|_| {
                    let p = DVec3::new(
                        rng.random_range(0.0..box_size),
                        rng.random_range(0.0..box_size),
                        rng.random_range(0.0..box_size),
                    );
                    let r = 0.1 * 2f64.powf(rng.random_range(0.0..=spread));
                    sphere(p, r, rng.random_bool(0.1))
                })
                .collect();
            let got = first_overlap(&spheres, 0.01).map(|o| (o.a, o.b));
            assert_eq!(got, brute(&spheres, 0.01), "case {case}, n {n}");
        }
    }

    #[test]
    fn heaps_of_coincident_spheres_are_fast_and_exact() {
        let n = 200_000;
        let mut spheres: Vec<Sphere> = (0..n)
            .map(|_| sphere(DVec3::new(3.0, 3.0, 3.0), 1.0, false))
            .collect();
        spheres[0].position = DVec3::new(-100.0, 0.0, 0.0);
        let o = first_overlap(&spheres, 0.01).unwrap();
        assert_eq!((o.a, o.b, o.depth, o.min_radius), (1, 2, 2.0, 1.0));
    }

    #[test]
    fn subnormal_radii_and_far_positions_do_not_hang() {
        let tiny = 1e-310;
        let spheres = vec![
            sphere(DVec3::ZERO, tiny, false),
            sphere(DVec3::new(1.0, 0.0, 0.0), tiny, false),
            sphere(DVec3::new(1.0 + tiny, 0.0, 0.0), tiny, false),
            sphere(DVec3::new(1e300, -1e300, 0.0), 1.0, false),
            sphere(DVec3::new(1e300, -1e300, 1.0), 1.0, false),
        ];
        let got = first_overlap(&spheres, 0.01).map(|o| (o.a, o.b));
        // (Squared distances underflow at this scale, so spheres 1 and 2 pass; what matters is
        // that the search ends and agrees with the all-pairs one.)
        assert_eq!(got, brute(&spheres, 0.01));
        assert_eq!(got, Some((3, 4)));
    }

    #[test]
    fn a_huge_sphere_among_small_ones() {
        // A touching lattice of small spheres and one huge sphere well away from it, then inside it.
        let mut spheres = Vec::new();
        for z in 0..40 {
            for y in 0..40 {
                for x in 0..40 {
                    let p = DVec3::new(x as f64, y as f64, z as f64) * 0.02;
                    spheres.push(sphere(p, 0.01, false));
                }
            }
        }
        spheres.push(sphere(DVec3::new(0.4, 0.4, 1e6 + 2.0), 1e6, false));
        assert_eq!(first_overlap(&spheres, 0.01), None);
        let last = spheres.len() - 1;
        spheres[last].position.z = 1e6 + 0.5;
        let o = first_overlap(&spheres, 0.01).unwrap();
        assert_eq!(o.b, last);
        // The lattice itself only touches, so the first pair is the first sphere inside.
        let big = spheres[last].clone();
        let first_inside = spheres
            .iter()
            .position(|s| {
                (s.position - big.position).length() < s.radius + big.radius - 0.01 * s.radius
            })
            .unwrap();
        assert_eq!(o.a, first_inside);
    }
}
