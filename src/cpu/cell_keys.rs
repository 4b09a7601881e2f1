//! Stage `cell_keys`: hashed uniform grid (broad phase). Twin of `shaders/cell_keys.wgsl`.
//!
//! The domain is unbounded: cell coordinates `floor(x / h)` are hashed into a table of
//! `table_size` buckets (a power of two ≥ 2N). Large spheres get the sentinel key `table_size`,
//! which sorts them after every small sphere into the short large-sphere list.
//!
//! Cells are grouped in blocks of 16 × 16 × 16 ([`BLOCK_BITS`]): the block coordinates are
//! hashed, and the 4096 cells of a block take 4096 consecutive buckets in Morton order. Neighbouring cells then mostly share a
//! block, so a sphere's 27 neighbour cells, and the spheres in them (state is sorted by bucket),
//! lie close together in memory. A plain per-cell hash scatters them and makes the narrow phase
//! wait on memory.

use crate::Real;
use crate::physics::periodic::{PeriodicBox, periodic_cells, wrap_cell};
use rayon::prelude::*;

/// Cell coordinates are clamped to ±2³⁰ so that a far-away sphere cannot overflow them.
pub const CELL_LIMIT: f64 = 1_073_741_824.0;

/// Edge `h` of a grid cell, m: `2 (r_small_max + v_max dt)`, the diameter of the largest small
/// sphere swept over one step. Any two small spheres that touch at some time within the step
/// then have end positions within `h` of each other, so the 27 neighbour cells find them.
#[inline]
pub fn cell_edge<R: Real>(small_radius_max: R, small_speed_max: R, dt: R) -> R {
    R::of(2.0) * (small_radius_max + small_speed_max * dt)
}

pub use crate::setup::table_size;

/// The grid's periodic axes: along each, `cells` cells (0: the axis is not periodic) of edge
/// `L / cells ≥ h` from the box's lower face `min` (m), `inv = cells / L` (m⁻¹), so that the
/// cells tile the box exactly ([`periodic_cells`]).
#[derive(Clone, Copy, Debug)]
pub struct GridAxes<R: Real> {
    /// Cells along each periodic axis; 0 on an axis that is not periodic.
    pub cells: [i32; 3],
    /// The box's lower corner, m.
    pub min: [R; 3],
    /// `cells / L`, m⁻¹.
    pub inv: [R; 3],
}

impl<R: Real> GridAxes<R> {
    /// No periodic axis.
    pub fn open() -> Self {
        Self {
            cells: [0; 3],
            min: [R::zero(); 3],
            inv: [R::zero(); 3],
        }
    }

    /// The cells of the periodic box `pbox` for the cell edge `h` (m). The WGSL copy is
    /// `grid_axes` in `shaders/common.wgsl`.
    pub fn of(pbox: &PeriodicBox<R>, h: R) -> Self {
        let mut g = Self::open();
        for a in 0..3 {
            if pbox.is_periodic(a) {
                let n = periodic_cells(pbox.len[a], h);
                g.cells[a] = n;
                g.min[a] = pbox.min[a];
                g.inv[a] = R::of(f64::from(n)) / pbox.len[a];
            }
        }
        g
    }

    /// Whether some axis is periodic.
    #[inline(always)]
    pub fn any(&self) -> bool {
        self.cells != [0; 3]
    }
}

/// Integer cell coordinates of a point: `floor(x × inv_h)`, clamped to ±[`CELL_LIMIT`]; on a
/// periodic axis of `axes`, `floor((x − min) × inv)` clamped to its cells `[0, cells)`.
#[inline(always)]
pub fn cell_of<R: Real>(x: R::V3, inv_h: R, axes: &GridAxes<R>) -> [i32; 3] {
    let lim = R::of(CELL_LIMIT);
    let c = R::comps(x);
    std::array::from_fn(|a| {
        if axes.cells[a] == 0 {
            (c[a] * inv_h).max(-lim).min(lim).floor_i32()
        } else {
            ((c[a] - axes.min[a]) * axes.inv[a])
                .floor_i32()
                .clamp(0, axes.cells[a] - 1)
        }
    })
}

/// Bits of a cell coordinate inside its block: blocks of 16 × 16 × 16 cells. A sphere's
/// neighbour cells then share its block unless it sits on one of the block's faces, 33 % of
/// the cells, against 87 % with blocks of 4³, so the spheres a sphere meets lie close together
/// in memory (the block benchmark stepped about 10 % faster on the CPU, benches/NOTES.md).
/// Larger blocks leave fewer bits to hash the blocks with, so an elongated scene aliases more.
pub const BLOCK_BITS: u32 = 4;

/// The block hash's primes, one per axis: Teschner et al., "Optimized Spatial Hashing for
/// Collision Detection of Deformable Objects" (VMV 2003).
const BLOCK_PRIMES: [u32; 3] = [73_856_093, 19_349_663, 83_492_791];

/// Axis `a`'s share of a cell's bucket for coordinate `c`: its block's hash term, shifted above
/// the Morton bits, and the low [`BLOCK_BITS`] bits of `c` spread to every third bit from bit
/// `a` (a Morton, bit-interleaved, index within the block, x lowest). The bucket is the XOR of
/// the three shares: the hash terms sit above the Morton bits, so XOR joins both.
#[inline(always)]
fn axis_part(c: i32, a: usize) -> u32 {
    let block = ((c >> BLOCK_BITS) as u32).wrapping_mul(BLOCK_PRIMES[a]);
    let v = (c as u32) & ((1 << BLOCK_BITS) - 1);
    let spread = (v & 1) | ((v & 2) << 2) | ((v & 4) << 4) | ((v & 8) << 6);
    block.wrapping_shl(3 * BLOCK_BITS) | (spread << a)
}

/// Hash bucket of a cell: the block `c >> BLOCK_BITS` hashed with the primes of Teschner et
/// al. (VMV 2003), times `2^(3 BLOCK_BITS)`, plus the cell's Morton index in the block.
/// `table_size` is a power of two.
#[inline(always)]
pub fn hash_cell(c: [i32; 3], table_size: u32) -> u32 {
    (axis_part(c[0], 0) ^ axis_part(c[1], 1) ^ axis_part(c[2], 2)) & (table_size - 1)
}

/// The buckets of the 27 cells around `cell` (itself included), dz outermost, then dy, then dx,
/// each −1, 0, 1: [`hash_cell`] of each, from three block hashes and three Morton spreads per
/// axis instead of 27 of each. In a table of at least one block, `2^(3 BLOCK_BITS)` buckets,
/// the 27 are distinct: two of the cells differ by at most 2 in each coordinate, so their
/// coordinates within a block, and with them their Morton indices (the bucket's low bits),
/// differ. `table_size` is a power of two. On a periodic axis (`cells[a]` > 0 cells) the
/// neighbour coordinates wrap ([`wrap_cell`]), and then two of the 27 may share a bucket.
#[inline(always)]
pub fn neighbour_buckets(cell: [i32; 3], cells: [i32; 3], table_size: u32) -> [u32; 27] {
    // Per axis a and offset d: the share of cell[a] + d.
    let mut parts = [[0u32; 3]; 3];
    for (a, axis) in parts.iter_mut().enumerate() {
        for (k, part) in axis.iter_mut().enumerate() {
            *part = axis_part(wrap_cell(cell[a] + k as i32 - 1, cells[a]), a);
        }
    }
    let mut out = [0u32; 27];
    for (z, &pz) in parts[2].iter().enumerate() {
        for (y, &py) in parts[1].iter().enumerate() {
            for (x, &px) in parts[0].iter().enumerate() {
                out[9 * z + 3 * y + x] = (px ^ py ^ pz) & (table_size - 1);
            }
        }
    }
    out
}

/// Writes the bucket of every sphere into `keys`: the hashed cell of its centre ([`cell_of`]
/// with `inv_h` and the periodic `axes`), or `table_size` for a large sphere (`radius >
/// small_radius_max`).
pub fn cell_keys<R: Real>(
    position: &[R::V3],
    radius: &[R],
    small_radius_max: R,
    inv_h: R,
    axes: &GridAxes<R>,
    table_size: u32,
    keys: &mut [u32],
) {
    keys.par_iter_mut().enumerate().for_each(|(i, k)| {
        *k = if radius[i] > small_radius_max {
            table_size
        } else {
            hash_cell(cell_of::<R>(position[i], inv_h, axes), table_size)
        };
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cells on and around block faces, at both signs, near the coordinate limits.
    fn cells() -> Vec<[i32; 3]> {
        let edge = 1 << BLOCK_BITS;
        let coords = [
            -edge - 1,
            -edge,
            -1,
            0,
            1,
            edge - 1,
            edge,
            7,
            1_000_003,
            -70_001,
        ];
        let mut out = Vec::new();
        for &x in &coords {
            for &y in &coords {
                for &z in coords.iter().rev() {
                    out.push([x, y, z]);
                }
            }
        }
        out
    }

    #[test]
    fn neighbour_buckets_are_the_hashes_of_the_27_cells_in_order() {
        for table_size in [64, 4096, 1 << 20] {
            for c in cells() {
                let fast = neighbour_buckets(c, [0; 3], table_size);
                let mut k = 0;
                for dz in -1..=1 {
                    for dy in -1..=1 {
                        for dx in -1..=1 {
                            let n = [c[0] + dx, c[1] + dy, c[2] + dz];
                            assert_eq!(fast[k], hash_cell(n, table_size), "{n:?}, {table_size}");
                            k += 1;
                        }
                    }
                }
                if table_size >= 1 << (3 * BLOCK_BITS) {
                    let mut sorted = fast.to_vec();
                    sorted.sort_unstable();
                    sorted.dedup();
                    assert_eq!(sorted.len(), 27, "{c:?}: two neighbours share a bucket");
                }
            }
        }
    }
}
