//! Stage `scatter`: stable counting-sort scatter that reorders sphere state by bucket.
//! Twin of `shaders/scatter.wgsl`.
//!
//! Stable (spheres of one bucket keep their previous relative order), so the order, and with it
//! every floating-point sum that follows, is the same from run to run.

use rayon::prelude::*;

/// Fills `perm` so that `perm[new] = old`: sphere `old` goes to slot `cell_start[key] + rank`,
/// its rank counting earlier spheres with the same key. `next` is scratch (the next free slot
/// of each bucket), kept by the caller so a step allocates nothing.
pub fn scatter(keys: &[u32], cell_start: &[u32], perm: &mut [u32], next: &mut Vec<u32>) {
    next.clear();
    next.extend_from_slice(cell_start);
    for (old, &k) in keys.iter().enumerate() {
        let slot = &mut next[k as usize];
        perm[*slot as usize] = old as u32;
        *slot += 1;
    }
}

/// `dst[new] = src[perm[new]]`: applies the permutation to one state array.
pub fn gather<T: Copy + Send + Sync>(src: &[T], perm: &[u32], dst: &mut Vec<T>) {
    dst.clear();
    dst.par_extend(perm.par_iter().map(|&p| src[p as usize]));
}

/// Row version of [`gather`]: `dst` row `new` = `src` row `perm[new]`, rows of `width` elements
/// (the friction history's slots).
pub fn gather_rows<T: Copy + Send + Sync>(src: &[T], perm: &[u32], width: usize, dst: &mut [T]) {
    dst.par_chunks_mut(width)
        .zip(perm.par_iter())
        .for_each(|(row, &p)| {
            let p = p as usize;
            row.copy_from_slice(&src[p * width..(p + 1) * width]);
        });
}
