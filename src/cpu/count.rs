//! Stage `count`: spheres per bucket with u32 atomics. Twin of the counting in
//! `shaders/cell_keys.wgsl`'s `cell_keys` (the GPU counts in the keys' pass) and of
//! `shaders/count.wgsl`, whose `seed_cell_start` hands the counts to the prefix sum.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

/// Sets `counts[k]` to the number of spheres with key `k`; `counts` has `table_size + 1` entries
/// (the last one counts the large spheres).
pub fn count(keys: &[u32], counts: &mut [u32]) {
    counts.fill(0);
    // SAFETY: AtomicU32 has the size and alignment of u32, and `counts` is borrowed mutably,
    // so nothing else reads it while the atomics are in use.
    let atomic: &[AtomicU32] = unsafe { &*(counts as *mut [u32] as *const [AtomicU32]) };
    keys.par_iter().for_each(|&k| {
        atomic[k as usize].fetch_add(1, Ordering::Relaxed);
    });
}
