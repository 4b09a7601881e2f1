//! Stage `prefix_sum`: exclusive prefix sum over the buckets, reduce-then-scan.
//! Twin of `shaders/prefix_sum.wgsl` (entry points `reduce`, `scan_blocks`).
//!
//! Three steps, as on the GPU, where no forward-progress guarantee allows a single-pass
//! decoupled look-back: (1) each block of [`SCAN_BLOCK`] entries reduces to one sum; (2) the block
//! sums are scanned; (3) each block scans itself and adds its offset. On the GPU, (2) is
//! recursive above `SCAN_BLOCK²` entries, and its last level is folded into (3): each
//! work-group sums the raw block sums before its block (`SUM_OFFSET`); for the cell starts and
//! the list's rows, (1) is done by the pass that writes the input (`seed_cell_start`,
//! `list_count`).

use rayon::prelude::*;

pub use crate::setup::SCAN_BLOCK;

/// `out[i] = Σ_{k<i} input[k]`; `out` has the length of `input`. Returns the total.
/// `block_sums` is scratch (one entry per block), kept by the caller so a step allocates nothing.
pub fn prefix_sum(input: &[u32], out: &mut [u32], block_sums: &mut Vec<u32>) -> u32 {
    input
        .par_chunks(SCAN_BLOCK)
        .map(|b| b.iter().sum())
        .collect_into_vec(block_sums);
    // The block sums become their exclusive scan: each block's offset.
    let mut total = 0u32;
    for s in block_sums.iter_mut() {
        let sum = *s;
        *s = total;
        total += sum;
    }
    out.par_chunks_mut(SCAN_BLOCK)
        .zip(input.par_chunks(SCAN_BLOCK))
        .zip(block_sums.par_iter())
        .for_each(|((o, i), &off)| {
            let mut acc = off;
            for (dst, &v) in o.iter_mut().zip(i) {
                *dst = acc;
                acc += v;
            }
        });
    total
}
