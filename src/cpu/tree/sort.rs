//! Stage `radix_sort`: bodies in Morton order, ties by body index.

use rayon::prelude::*;

/// Key bits per pass of the GPU twin's LSD radix sort (`shaders/radix_sort.wgsl`): 16 digit
/// values, so a block's ranks fit one 16-bit counter per digit.
pub const RADIX_BITS: u32 = 4;

/// Fills `order` with the body indices `0..codes.len()` sorted by `(codes[i], i)`, and
/// `sorted_codes` with the codes in that order. The GPU twin is an LSD radix sort, which is
/// stable and so gives this same order.
pub fn radix_sort(codes: &[u64], order: &mut [u32], sorted_codes: &mut [u64]) {
    for (k, o) in order.iter_mut().enumerate() {
        *o = k as u32;
    }
    // Keys are unique (the index breaks ties), so an unstable sort is deterministic.
    order.par_sort_unstable_by_key(|&i| (codes[i as usize], i));
    for (s, &i) in sorted_codes.iter_mut().zip(order.iter()) {
        *s = codes[i as usize];
    }
}
