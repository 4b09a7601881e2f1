//! The candidate walk: which spheres a sphere meets. The 27 neighbour buckets of its binned
//! cell ([`for_each_neighbour_bucket`], with the [`seen_filter_bit`] filter against hash
//! aliasing), the large spheres whose boxes hold the cell ([`for_each_large_over`]), both in
//! [`for_each_candidate`]'s order, and the distance tests [`in_reach`] and [`may_touch`].
//!
//! `neighbours` builds its list with this walk, so this file imports only the bodies and the
//! cell keys, never `neighbours`.

use crate::Real;
use crate::cpu::cell_keys::{BLOCK_BITS, hash_cell, neighbour_buckets};

use super::bodies::{Body, CellBox, CollideParams};

/// True unless the pair is clearly apart: `|x_b − x_a|² ≤ 1.01 (r_a + r_b)²`, a superset of
/// [`pair_force`]'s contact test (the margin absorbs rounding and fused multiply–adds), so that
/// the pair handling runs only for pairs that may touch. [`in_reach`] with no skin, on the
/// separation `params.separation` gives (the minimum image in a periodic box).
///
/// [`pair_force`]: super::pair_force
#[inline(always)]
pub fn may_touch<R: Real>(a: &Body<R>, b: &Body<R>, params: &CollideParams<R>) -> bool {
    separation_in_reach(params.separation(a.x, b.x), a.r, b.r, R::zero())
}

/// [`in_reach`] of a separation `d = x_b − x_a` (m): `|d|² ≤ 1.01 (r_a + r_b + skin)²`.
#[inline(always)]
pub fn separation_in_reach<R: Real>(d: R::V3, r_a: R, r_b: R, skin: R) -> bool {
    let reach = r_a + r_b + skin;
    R::norm2(d) <= R::of(1.01) * reach * reach
}

/// True when spheres at `x_a`, `x_b` (m) of radii `r_a`, `r_b` (m) are within `skin` (m) of
/// touching, with a 1 % margin: `|x_b − x_a|² ≤ 1.01 (r_a + r_b + skin)²`. The neighbour list
/// (`neighbours`) holds the pairs within reach at its build.
#[inline(always)]
pub fn in_reach<R: Real>(x_a: R::V3, r_a: R, x_b: R::V3, r_b: R, skin: R) -> bool {
    separation_in_reach(x_b - x_a, r_a, r_b, skin)
}

#[inline(always)]
fn in_box(c: [i32; 3], b: &CellBox) -> bool {
    (0..3).all(|k| b.0[k] <= c[k] && c[k] <= b.1[k])
}

/// Word and bit of bucket `k` in the 256-bit filter (eight words) of the buckets a candidate
/// walk has seen:
/// the top byte of a multiplicative (Fibonacci) hash, since the bucket's low bits repeat from
/// one block of cells to the next.
#[inline(always)]
pub fn seen_filter_bit(k: u32) -> (usize, u32) {
    let b = k.wrapping_mul(SEEN_FILTER_MULTIPLIER) >> 24;
    ((b >> 5) as usize, 1u32 << (b & 31))
}

/// Multiplier of [`seen_filter_bit`]: ⌊2³² / φ⌋ (Knuth, TAOCP vol. 3, §6.4).
pub const SEEN_FILTER_MULTIPLIER: u32 = 0x9E37_79B9;

/// Calls `f(bucket)` with the sorted-index range of each of the 27 neighbour buckets of `cell`,
/// each bucket once, in [`for_each_candidate`]'s order. A bucket may also hold spheres of a cell
/// that is not a neighbour (hash aliasing); those are more than one cell edge away, so they
/// cannot touch within the step and the pair functions reject them. This is cheaper than
/// checking every candidate's cell.
#[inline(always)]
pub(crate) fn for_each_neighbour_bucket<R: Real>(
    cell: [i32; 3],
    cell_start: &[u32],
    counts: &[u32],
    params: &CollideParams<R>,
    mut f: impl FnMut(std::ops::Range<usize>),
) {
    let buckets = neighbour_buckets(cell, params.grid.cells, params.table_size);
    if params.table_size >= 1 << (3 * BLOCK_BITS) && !params.grid.any() {
        // At least one block of buckets and no wrap: the 27 are distinct (`neighbour_buckets`).
        for k in buckets {
            let start = cell_start[k as usize] as usize;
            f(start..start + counts[k as usize] as usize);
        }
        return;
    }
    let mut seen = [u32::MAX; 27];
    let mut n_seen = 0;
    // A 256-bit filter of the buckets seen: a bucket not in it is new without a search of
    // `seen` (27 buckets would cost 351 comparisons a sphere).
    let mut seen_bits = [0u32; 8];
    for k in buckets {
        let (word, bit) = seen_filter_bit(k);
        if seen_bits[word] & bit != 0 && seen[..n_seen].contains(&k) {
            continue;
        }
        seen_bits[word] |= bit;
        seen[n_seen] = k;
        n_seen += 1;
        let start = cell_start[k as usize] as usize;
        f(start..start + counts[k as usize] as usize);
    }
}

/// Calls `f(j)` for each large sphere `j` (sorted index) whose box holds `cell`, in order: the
/// large candidates of a small sphere in `cell`.
#[inline(always)]
pub(crate) fn for_each_large_over<R: Real>(
    cell: [i32; 3],
    boxes: &[CellBox],
    params: &CollideParams<R>,
    mut f: impl FnMut(usize),
) {
    for (k, b) in boxes.iter().enumerate() {
        if in_box(cell, b) {
            f(params.n_small as usize + k);
        }
    }
}

/// Calls `f(j, other)` for every candidate partner of sorted sphere `i`: small spheres in the 27
/// neighbour buckets of its binned cell, or, for a large sphere, in the cells of its box; large
/// spheres (a small sphere takes a large one only when its cell lies in that one's box). Each
/// candidate comes at most once; `i` itself is skipped. The relation is symmetric: j is a
/// candidate of i exactly when i is one of j, or the pair is too far apart to touch (hash
/// aliasing). `boxes[k]` is the box of large sphere `n_small + k`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn for_each_candidate<R: Real>(
    i: usize,
    bodies: &[Body<R>],
    boxes: &[CellBox],
    cell_start: &[u32],
    counts: &[u32],
    params: &CollideParams<R>,
    mut f: impl FnMut(usize, &Body<R>),
) {
    let n_small = params.n_small as usize;
    let (small, large) = bodies.split_at(n_small);
    let me = &bodies[i];
    if i < n_small {
        let cell = me.cell;
        for_each_neighbour_bucket(cell, cell_start, counts, params, |bucket| {
            let start = bucket.start;
            for (j, other) in small[bucket].iter().enumerate() {
                if start + j != i {
                    f(start + j, other);
                }
            }
        });
        for_each_large_over(cell, boxes, params, |j| f(j, &large[j - n_small]));
    } else {
        let b = &boxes[i - n_small];
        let ncells: f64 = (0..3)
            .map(|a| (b.1[a] as i64 - b.0[a] as i64 + 1) as f64)
            .product();
        if ncells > n_small as f64 {
            // Fewer spheres than cells: test every small sphere's cell against the box.
            for (j, other) in small.iter().enumerate() {
                if in_box(other.cell, b) {
                    f(j, other);
                }
            }
        } else {
            for cz in b.0[2]..=b.1[2] {
                for cy in b.0[1]..=b.1[1] {
                    for cx in b.0[0]..=b.1[0] {
                        let c = [cx, cy, cz];
                        let k = hash_cell(c, params.table_size) as usize;
                        let start = cell_start[k] as usize;
                        let end = start + counts[k] as usize;
                        // Buckets alias cells: take only this cell's spheres, so none comes twice.
                        for (j, other) in small[start..end].iter().enumerate() {
                            if other.cell == c {
                                f(start + j, other);
                            }
                        }
                    }
                }
            }
        }
        // Large–large pairs: always (both sides test every large sphere).
        for (k, other) in large.iter().enumerate() {
            if n_small + k != i {
                f(n_small + k, other);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::cell_keys::hash_cell;
    use crate::scene::{ContactModel, Damping, RollingModel};
    use glam::Vec3;

    /// With a table of a few buckets nearly every neighbour cell aliases another: the walk must
    /// still visit each sphere of the distinct buckets once, the sphere itself never. The
    /// expected set comes from the 27 cells' buckets directly, without the walk's filter.
    #[test]
    fn the_candidate_walk_visits_each_bucket_once_under_aliasing() {
        for table_size in [1u32, 2, 4, 8, 64, 1 << 12] {
            // Spheres on a 5 × 5 × 5 block of cells, two per cell.
            let mut cells = Vec::new();
            for z in 0..5 {
                for y in 0..5 {
                    for x in 0..5 {
                        cells.push([x, y, z]);
                        cells.push([x, y, z]);
                    }
                }
            }
            // Sorted by bucket, as the binning leaves them.
            cells.sort_by_key(|&c| hash_cell(c, table_size));
            let n = cells.len();
            let bodies: Vec<Body<f32>> = cells
                .iter()
                .enumerate()
                .map(|(i, &cell)| Body {
                    x: Vec3::ZERO,
                    v: Vec3::ZERO,
                    r: 0.1,
                    w: 1.0,
                    e: 1.0,
                    zeta: 0.0,
                    compliance: 0.0,
                    mu: 0.0,
                    id: i as u32,
                    cell,
                })
                .collect();
            let mut counts = vec![0u32; table_size as usize];
            for &c in &cells {
                counts[hash_cell(c, table_size) as usize] += 1;
            }
            let mut cell_start = vec![0u32; table_size as usize];
            for k in 1..table_size as usize {
                cell_start[k] = cell_start[k - 1] + counts[k - 1];
            }
            let params = CollideParams::<f32> {
                dt: 1e-3,
                model: ContactModel::Impulse,
                damping: Damping::default(),
                rolling: RollingModel::None,
                stiffness: 0.0,
                cell_edge: 0.25,
                inv_cell_edge: 4.0,
                table_size,
                n_small: n as u32,
                small_radius_max: 0.1,
                small_speed_max: 0.0,
                resting_speed: 0.0,
                skin: 0.0,
                periodic: crate::physics::periodic::PeriodicBox::open(),
                grid: crate::cpu::cell_keys::GridAxes::open(),
            };
            for i in [0, n / 3, n / 2, n - 1] {
                let mut visits = vec![0u32; n];
                for_each_candidate(i, &bodies, &[], &cell_start, &counts, &params, |j, _| {
                    visits[j] += 1
                });
                let c = cells[i];
                let mut buckets = Vec::new();
                for dz in -1..=1 {
                    for dy in -1..=1 {
                        for dx in -1..=1 {
                            buckets.push(hash_cell([c[0] + dx, c[1] + dy, c[2] + dz], table_size));
                        }
                    }
                }
                for j in 0..n {
                    let want =
                        u32::from(j != i && buckets.contains(&hash_cell(cells[j], table_size)));
                    assert_eq!(
                        visits[j], want,
                        "table {table_size}, sphere {i}, candidate {j}"
                    );
                }
            }
        }
    }
}
