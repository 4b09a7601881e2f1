//! Stage `morton`: a 63-bit Morton code per body, 21 bits per axis, over the bounding cube.
//!
//! 21 bits per axis resolve a cube 2 × 10⁶ cells wide, so a Plummer sphere's far outliers
//! (hundreds of scale radii out) still leave its core finely divided; 30-bit codes would put the
//! core of a 10⁶-body sphere into a few cells, where only the body index splits the tree. WGSL
//! has no 64-bit integer: the GPU twin keeps a code as two `u32` (high, low).

use crate::Real;

/// Bits per axis of a Morton code; codes have `3 × MORTON_BITS = 63` bits.
pub const MORTON_BITS: u32 = 21;

/// Cells per axis of the Morton grid, `2^MORTON_BITS`.
pub const MORTON_CELLS: u32 = 1 << MORTON_BITS;

/// Spreads the low 21 bits of `v` so that bit k moves to bit 3k (the magic-number interleave of
/// T. Karras, "Thinking parallel, part III", NVIDIA developer blog, 2012, widened to 64 bits).
#[inline(always)]
pub fn spread_bits(v: u32) -> u64 {
    let mut x = (v & (MORTON_CELLS - 1)) as u64;
    x = (x | (x << 32)) & 0x001f_0000_0000_ffff;
    x = (x | (x << 16)) & 0x001f_0000_ff00_00ff;
    x = (x | (x << 8)) & 0x100f_00f0_0f00_f00f;
    x = (x | (x << 4)) & 0x10c3_0c30_c30c_30c3;
    x = (x | (x << 2)) & 0x1249_2492_4924_9249;
    x
}

/// The grid scale of [`morton_codes`], cells per m: the power of two `2^(20 − e)`, where
/// `2^e ≤ side < 2^(e+1)` for the largest side of the box, so that the cube of
/// `MORTON_CELLS / scale ≥ side` holds every body; 0 when the box is a point (all codes are
/// then 0). A power of two makes `(x − lo) · scale` exact after the subtraction, so the GPU twin
/// (`shaders/morton.wgsl`, whose division would not be correctly rounded) gets the same codes.
/// The exponent is clamped to f32's normal range, `[−126, 126]`.
pub fn morton_scale<R: Real>(lo: R::V3, hi: R::V3) -> R {
    let [a, b, c] = R::comps(hi - lo);
    let side = a.max(b).max(c);
    if side > R::zero() {
        R::of(2f64.powi(morton_scale_exponent(side.f64())))
    } else {
        R::zero()
    }
}

/// The exponent `20 − e` of [`morton_scale`] for a side `2^e ≤ side < 2^(e+1)` (m, > 0), read
/// from the bits of the side in f32 as the GPU twin reads them (subnormal sides count e = −127).
pub fn morton_scale_exponent(side: f64) -> i32 {
    let e = ((side as f32).to_bits() >> 23 & 0xff) as i32 - 127;
    (20 - e).clamp(-126, 126)
}

/// The Morton cell index along one axis of a coordinate already shifted and scaled to cells:
/// `floor`, clamped to `[0, MORTON_CELLS − 1]`.
#[inline(always)]
pub fn morton_cell<R: Real>(v: R) -> u32 {
    let top = R::of((MORTON_CELLS - 1) as f64);
    v.max(R::zero()).min(top).floor_i32() as u32
}

/// `codes[i]` = the Morton code of `position[i]` (m) in a cube of `MORTON_CELLS³` cells with its
/// corner at `lo` (m) and `scale` cells per m ([`morton_scale`]); x takes bit 3k+2, y 3k+1, z 3k.
pub fn morton_codes<R: Real>(position: &[R::V3], lo: R::V3, scale: R, codes: &mut [u64]) {
    for (c, &p) in codes.iter_mut().zip(position) {
        let [x, y, z] = R::comps((p - lo) * scale);
        let (x, y, z) = (morton_cell(x), morton_cell(y), morton_cell(z));
        *c = (spread_bits(x) << 2) | (spread_bits(y) << 1) | spread_bits(z);
    }
}
