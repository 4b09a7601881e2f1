//! Stage `radix_sort`: bodies in Morton order, ties by body index.

use rayon::prelude::*;

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
