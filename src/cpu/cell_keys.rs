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

/// Integer cell coordinates of a point, `floor(x × inv_h)`, clamped to ±[`CELL_LIMIT`].
#[inline(always)]
pub fn cell_of<R: Real>(x: R::V3, inv_h: R) -> [i32; 3] {
    let lim = R::of(CELL_LIMIT);
    R::comps(x).map(|c| (c * inv_h).max(-lim).min(lim).floor_i32())
}

/// Bits of a cell coordinate inside its block: blocks of 16 × 16 × 16 cells. A sphere's
/// neighbour cells then share its block unless it sits on one of the block's faces, 33 % of
/// the cells, against 87 % with blocks of 4³, so the spheres a sphere meets lie close together
/// in memory (the block benchmark stepped about 10 % faster on the CPU, benches/NOTES.md).
/// Larger blocks leave fewer bits to hash the blocks with, so an elongated scene aliases more.
pub const BLOCK_BITS: u32 = 4;

/// Morton (bit-interleaved) index of a cell within its block, `0..2^(3 BLOCK_BITS)`: the low
/// [`BLOCK_BITS`] bits of each coordinate, x in the lowest bit of each triple.
#[inline(always)]
fn morton_in_block(c: [i32; 3]) -> u32 {
    // Moves bit b of a 4-bit value to bit 3b.
    let spread = |v: i32| {
        let v = (v as u32) & ((1 << BLOCK_BITS) - 1);
        (v & 1) | ((v & 2) << 2) | ((v & 4) << 4) | ((v & 8) << 6)
    };
    spread(c[0]) | (spread(c[1]) << 1) | (spread(c[2]) << 2)
}

/// Hash bucket of a cell: the block `c >> BLOCK_BITS` hashed with the primes of Teschner et
/// al., "Optimized Spatial Hashing for Collision Detection of Deformable Objects" (VMV 2003),
/// times `2^(3 BLOCK_BITS)`, plus the cell's Morton index in the block. `table_size` is a power
/// of two.
#[inline(always)]
pub fn hash_cell(c: [i32; 3], table_size: u32) -> u32 {
    let block = ((c[0] >> BLOCK_BITS) as u32).wrapping_mul(73_856_093)
        ^ ((c[1] >> BLOCK_BITS) as u32).wrapping_mul(19_349_663)
        ^ ((c[2] >> BLOCK_BITS) as u32).wrapping_mul(83_492_791);
    (block.wrapping_shl(3 * BLOCK_BITS) | morton_in_block(c)) & (table_size - 1)
}

/// Writes the bucket of every sphere into `keys`: the hashed cell of its centre, or `table_size`
/// for a large sphere (`radius > small_radius_max`).
pub fn cell_keys<R: Real>(
    position: &[R::V3],
    radius: &[R],
    small_radius_max: R,
    inv_h: R,
    table_size: u32,
    keys: &mut [u32],
) {
    keys.par_iter_mut().enumerate().for_each(|(i, k)| {
        *k = if radius[i] > small_radius_max {
            table_size
        } else {
            hash_cell(cell_of::<R>(position[i], inv_h), table_size)
        };
    });
}
