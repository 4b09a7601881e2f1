//! Floating-point precision of a backend: `f32` (what the GPU computes in, the default) or `f64`.
//!
//! The CPU reference is generic over [`Real`] so one implementation serves both
//! `--precision f32` and `--precision f64`. Vectors are glam's `Vec3` / `DVec3`.

use crate::cpu::collide::{Ball, in_reach};
use glam::{DVec3, Vec3};
use num_traits::Float;
use std::fmt::{Debug, Display};
use std::iter::Sum;
use std::ops::{Add, AddAssign, Div, Mul, MulAssign, Neg, Sub, SubAssign};

/// Arithmetic precision (`--precision f32|f64`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// 32-bit floats, the arithmetic of the GPU backend (default).
    #[default]
    F32,
    /// 64-bit floats.
    F64,
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        })
    }
}

/// A 3-vector of a [`Real`] type.
pub trait Vector<R>:
    Copy
    + Send
    + Sync
    + Debug
    + Default
    + PartialEq
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<R, Output = Self>
    + Div<R, Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
{
}
impl Vector<f32> for Vec3 {}
impl Vector<f64> for DVec3 {}

/// A scalar the engine computes in, with its matching glam vector type.
pub trait Real:
    Float + Send + Sync + Default + Debug + Display + Sum + AddAssign + SubAssign + MulAssign + 'static
{
    /// The 3-vector of this precision (`Vec3` or `DVec3`).
    type V3: Vector<Self>;
    /// The precision this type implements.
    const PRECISION: Precision;
    /// Converts from `f64` (rounding to nearest for `f32`).
    fn of(x: f64) -> Self;
    /// Widens to `f64`.
    fn f64(self) -> f64;
    /// Converts a `DVec3`.
    fn v3(v: DVec3) -> Self::V3;
    /// Widens a vector to `DVec3`.
    fn v3_f64(v: Self::V3) -> DVec3;
    /// Builds a vector from components.
    fn vec(x: Self, y: Self, z: Self) -> Self::V3;
    /// The components `[x, y, z]`.
    fn comps(v: Self::V3) -> [Self; 3];
    /// Dot product.
    fn dot(a: Self::V3, b: Self::V3) -> Self;
    /// Cross product.
    fn cross(a: Self::V3, b: Self::V3) -> Self::V3;
    /// `floor(self)` as an `i32`, saturating at the `i32` range (NaN gives 0). Truncation plus
    /// a correction: no libm call on targets without a rounding instruction.
    fn floor_i32(self) -> i32;
    /// The zero vector.
    fn zero3() -> Self::V3 {
        Self::V3::default()
    }
    /// Squared length.
    fn norm2(v: Self::V3) -> Self {
        Self::dot(v, v)
    }
    /// Appends to `row`, in order, each `cand[c]` other than `skip` whose ball `others[c]`
    /// (centre and radius, m) is within reach of a sphere at `x` (m) of radius `r` (m):
    /// [`in_reach`]`(x, r, others[c].x, others[c].r, 0)`. `others` and `cand` have the same
    /// length. The neighbour-list build's inner loop: f32 on x86-64 tests eight candidates an
    /// instruction with AVX (four with SSE2 where AVX is missing), with the scalar test's
    /// operations in the same order, so the rows are those of the scalar test.
    fn reach_select(
        x: Self::V3,
        r: Self,
        others: &[Ball<Self>],
        cand: &[u32],
        skip: u32,
        row: &mut Vec<u32>,
    ) {
        for (o, &j) in others.iter().zip(cand) {
            if j != skip && in_reach(x, r, o.x, o.r, Self::zero()) {
                row.push(j);
            }
        }
    }
}

/// The x86-64 candidate test of [`Real::reach_select`] for f32: a 4 × 4 transpose turns four
/// 16-byte balls into x, y, z, r lanes; `in_reach` then runs lane by lane.
#[cfg(target_arch = "x86_64")]
mod reach_simd {
    use super::{Ball, in_reach};
    use glam::Vec3;
    use std::arch::x86_64::*;

    /// Writes candidate `j` at `out[m]` and advances m past it when `k` (kept): no branch per
    /// candidate, where a row keeps about one candidate in ten.
    ///
    /// # Safety
    /// `m < out.len()`. [`sse`] and [`avx`] call it with m ≤ c for candidate c and ask their
    /// callers for `out.len() >= cand.len()` and `others.len() == cand.len()` (and AVX for
    /// `avx`).
    #[inline(always)]
    unsafe fn keep(out: &mut [std::mem::MaybeUninit<u32>], m: &mut usize, j: u32, k: bool) {
        // SAFETY: the caller's bound m < out.len().
        unsafe { out.get_unchecked_mut(*m).write(j) };
        *m += k as usize;
    }

    /// `in_reach` for four balls: d = x_b − x_a, |d|² = (dx² + dy²) + dz², reach = (r_a + r_b)
    /// + 0, hit when |d|² ≤ (1.01 reach) reach. Bit k of the result is lane k's test.
    #[inline(always)]
    unsafe fn test4(p: *const f32, me: [__m128; 4]) -> i32 {
        // SAFETY (caller): p points at four in-bounds balls of four floats each.
        unsafe {
            let [mx, my, mz, mr] = me;
            let (mut bx, mut by) = (_mm_loadu_ps(p), _mm_loadu_ps(p.add(4)));
            let (mut bz, mut br) = (_mm_loadu_ps(p.add(8)), _mm_loadu_ps(p.add(12)));
            _MM_TRANSPOSE4_PS(&mut bx, &mut by, &mut bz, &mut br);
            let (dx, dy, dz) = (_mm_sub_ps(bx, mx), _mm_sub_ps(by, my), _mm_sub_ps(bz, mz));
            let d2 = _mm_add_ps(
                _mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy)),
                _mm_mul_ps(dz, dz),
            );
            let reach = _mm_add_ps(_mm_add_ps(mr, br), _mm_setzero_ps());
            let limit = _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(1.01), reach), reach);
            _mm_movemask_ps(_mm_cmple_ps(d2, limit))
        }
    }

    /// SSE2 (part of x86-64): four candidates a test. Returns the number kept, written to
    /// `out[..m]` in order.
    ///
    /// # Safety
    /// `out.len() >= cand.len()` and `others.len() == cand.len()`.
    pub(super) unsafe fn sse(
        x: Vec3,
        r: f32,
        others: &[Ball<f32>],
        cand: &[u32],
        skip: u32,
        out: &mut [std::mem::MaybeUninit<u32>],
    ) -> usize {
        // SAFETY: SSE is part of x86-64.
        let me = unsafe {
            [
                _mm_set1_ps(x.x),
                _mm_set1_ps(x.y),
                _mm_set1_ps(x.z),
                _mm_set1_ps(r),
            ]
        };
        let base = others.as_ptr().cast::<f32>();
        let mut m = 0;
        let quads = cand.len() / 4;
        for q in 0..quads {
            // SAFETY: `Ball<f32>` is `repr(C)` x, y, z, r: candidate c starts at float 4c, and
            // candidates 4q..4q + 4 are in bounds; `out` has room (the contract).
            unsafe {
                let mask = test4(base.add(16 * q), me);
                for k in 0..4 {
                    let j = *cand.get_unchecked(4 * q + k);
                    keep(out, &mut m, j, (mask >> k) & 1 != 0 && j != skip);
                }
            }
        }
        for c in 4 * quads..cand.len() {
            let j = cand[c];
            let hit = j != skip && in_reach(x, r, others[c].x, others[c].r, 0.0);
            // SAFETY: as above.
            unsafe { keep(out, &mut m, j, hit) };
        }
        m
    }

    /// AVX: eight candidates a test, balls c and c + 4 in the two 128-bit lanes; the rest as
    /// [`sse`], whose result and contract it shares, and the CPU must have AVX.
    ///
    /// # Safety
    /// As [`sse`], on a CPU with AVX.
    #[target_feature(enable = "avx")]
    pub(super) unsafe fn avx(
        x: Vec3,
        r: f32,
        others: &[Ball<f32>],
        cand: &[u32],
        skip: u32,
        out: &mut [std::mem::MaybeUninit<u32>],
    ) -> usize {
        let (mx, my, mz) = (
            _mm256_set1_ps(x.x),
            _mm256_set1_ps(x.y),
            _mm256_set1_ps(x.z),
        );
        let (mr, margin) = (_mm256_set1_ps(r), _mm256_set1_ps(1.01));
        let base = others.as_ptr().cast::<f32>();
        let mut m = 0;
        let octets = cand.len() / 8;
        for q in 0..octets {
            // SAFETY: candidates 8q..8q + 8 are in bounds (16 bytes each, `repr(C)`); `out` has
            // room (the contract).
            unsafe {
                let p = base.add(32 * q);
                let row = |k: usize| _mm256_loadu2_m128(p.add(16 + 4 * k), p.add(4 * k));
                let (r0, r1, r2, r3) = (row(0), row(1), row(2), row(3));
                // In each 128-bit lane, the 4 × 4 transpose of _MM_TRANSPOSE4_PS.
                let (t0, t1) = (_mm256_unpacklo_ps(r0, r1), _mm256_unpackhi_ps(r0, r1));
                let (t2, t3) = (_mm256_unpacklo_ps(r2, r3), _mm256_unpackhi_ps(r2, r3));
                let bx = _mm256_shuffle_ps::<0x44>(t0, t2);
                let by = _mm256_shuffle_ps::<0xEE>(t0, t2);
                let bz = _mm256_shuffle_ps::<0x44>(t1, t3);
                let br = _mm256_shuffle_ps::<0xEE>(t1, t3);
                let (dx, dy, dz) = (
                    _mm256_sub_ps(bx, mx),
                    _mm256_sub_ps(by, my),
                    _mm256_sub_ps(bz, mz),
                );
                let d2 = _mm256_add_ps(
                    _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy)),
                    _mm256_mul_ps(dz, dz),
                );
                let reach = _mm256_add_ps(_mm256_add_ps(mr, br), _mm256_setzero_ps());
                let limit = _mm256_mul_ps(_mm256_mul_ps(margin, reach), reach);
                let mask = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(d2, limit));
                for k in 0..8 {
                    let j = *cand.get_unchecked(8 * q + k);
                    keep(out, &mut m, j, (mask >> k) & 1 != 0 && j != skip);
                }
            }
        }
        let done = 8 * octets;
        // SAFETY: the tail's slots follow the m written so far; `out[m..]` still has room
        // for every remaining candidate.
        m + unsafe {
            sse(
                x,
                r,
                &others[done..],
                &cand[done..],
                skip,
                out.get_unchecked_mut(m..),
            )
        }
    }
}

impl Real for f32 {
    type V3 = Vec3;
    #[cfg(target_arch = "x86_64")]
    fn reach_select(
        x: Vec3,
        r: f32,
        others: &[Ball<f32>],
        cand: &[u32],
        skip: u32,
        row: &mut Vec<u32>,
    ) {
        assert_eq!(others.len(), cand.len());
        // Each candidate is written at the row's end and kept by advancing past it, so the row
        // needs room for all of them.
        row.reserve(cand.len());
        let before = row.len();
        let out = row.spare_capacity_mut();
        // SAFETY: `out` has room for every candidate (reserved above) and the lengths match;
        // `avx` runs only where the CPU has AVX.
        let m = unsafe {
            if std::arch::is_x86_feature_detected!("avx") {
                reach_simd::avx(x, r, others, cand, skip, out)
            } else {
                reach_simd::sse(x, r, others, cand, skip, out)
            }
        };
        // SAFETY: the first m spare slots were written.
        unsafe { row.set_len(before + m) };
    }
    const PRECISION: Precision = Precision::F32;
    #[inline(always)]
    fn of(x: f64) -> Self {
        x as f32
    }
    #[inline(always)]
    fn f64(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn v3(v: DVec3) -> Vec3 {
        v.as_vec3()
    }
    #[inline(always)]
    fn v3_f64(v: Vec3) -> DVec3 {
        v.as_dvec3()
    }
    #[inline(always)]
    fn vec(x: f32, y: f32, z: f32) -> Vec3 {
        Vec3::new(x, y, z)
    }
    #[inline(always)]
    fn comps(v: Vec3) -> [f32; 3] {
        v.to_array()
    }
    #[inline(always)]
    fn dot(a: Vec3, b: Vec3) -> f32 {
        // Written out so the operation order is the one the WGSL copies use.
        a.x * b.x + a.y * b.y + a.z * b.z
    }
    #[inline(always)]
    fn cross(a: Vec3, b: Vec3) -> Vec3 {
        // Written out, as `dot`: the WGSL copy is `cross3` in shaders/common.wgsl.
        Vec3::new(
            a.y * b.z - a.z * b.y,
            a.z * b.x - a.x * b.z,
            a.x * b.y - a.y * b.x,
        )
    }
    #[inline(always)]
    fn floor_i32(self) -> i32 {
        let t = self as i32;
        if (t as f32) > self { t - 1 } else { t }
    }
}

impl Real for f64 {
    type V3 = DVec3;
    const PRECISION: Precision = Precision::F64;
    #[inline(always)]
    fn of(x: f64) -> Self {
        x
    }
    #[inline(always)]
    fn f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn v3(v: DVec3) -> DVec3 {
        v
    }
    #[inline(always)]
    fn v3_f64(v: DVec3) -> DVec3 {
        v
    }
    #[inline(always)]
    fn vec(x: f64, y: f64, z: f64) -> DVec3 {
        DVec3::new(x, y, z)
    }
    #[inline(always)]
    fn comps(v: DVec3) -> [f64; 3] {
        v.to_array()
    }
    #[inline(always)]
    fn dot(a: DVec3, b: DVec3) -> f64 {
        a.x * b.x + a.y * b.y + a.z * b.z
    }
    #[inline(always)]
    fn cross(a: DVec3, b: DVec3) -> DVec3 {
        a.cross(b)
    }
    #[inline(always)]
    fn floor_i32(self) -> i32 {
        let t = self as i32;
        if (t as f64) > self { t - 1 } else { t }
    }
}

#[cfg(test)]
mod tests {
    use super::Real;
    use crate::cpu::collide::{Ball, in_reach};
    use glam::Vec3;

    /// The scalar test `reach_select` must reproduce: every candidate but `skip` in reach.
    fn scalar(x: Vec3, r: f32, others: &[Ball<f32>], cand: &[u32], skip: u32) -> Vec<u32> {
        (others.iter().zip(cand))
            .filter(|&(o, &j)| j != skip && in_reach(x, r, o.x, o.r, 0.0))
            .map(|(_, &j)| j)
            .collect()
    }

    #[test]
    fn reach_select_keeps_what_the_scalar_test_keeps() {
        // A small linear congruential generator: the same candidates on every run.
        let mut state = 0x2545_f491_u32;
        let mut uniform = move || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) as f32 / (1 << 24) as f32
        };
        let (x, r) = (Vec3::new(0.3, -0.2, 0.1), 0.12);
        for len in 0..70 {
            let mut others: Vec<Ball<f32>> = (0..len)
                .map(|_| {
                    let d = Vec3::new(uniform(), uniform(), uniform()) * 0.8 - Vec3::splat(0.4);
                    Ball {
                        x: x + d,
                        r: 0.05 + 0.1 * uniform(),
                    }
                })
                .collect();
            if len > 5 {
                // (Neither is `skip`, at len / 2 ≥ 3.) A NaN centre is never in reach; a centre at distance r_a + r_b is.
                others[1].x.y = f32::NAN;
                others[2].x = x + Vec3::new(r + others[2].r, 0.0, 0.0);
            }
            let cand: Vec<u32> = (0..len as u32).map(|c| 7 * c + 3).collect();
            let skip = cand.get(len / 2).copied().unwrap_or(u32::MAX);
            let expected = scalar(x, r, &others, &cand, skip);
            if len > 5 {
                assert!(!expected.contains(&cand[1]) && expected.contains(&cand[2]));
            }
            // What the row held before stays in front.
            let mut row = vec![u32::MAX];
            f32::reach_select(x, r, &others, &cand, skip, &mut row);
            assert_eq!(row[0], u32::MAX);
            assert_eq!(row[1..], expected[..], "{len} candidates");
            #[cfg(target_arch = "x86_64")]
            {
                // The SSE2 path, which the dispatch above skips on a CPU with AVX.
                let mut out: Vec<u32> = Vec::with_capacity(len);
                // SAFETY: `out` has room for every candidate; the lengths match.
                let m = unsafe {
                    super::reach_simd::sse(x, r, &others, &cand, skip, out.spare_capacity_mut())
                };
                // SAFETY: the first m slots were written.
                unsafe { out.set_len(m) };
                assert_eq!(out, expected, "{len} candidates, SSE2");
            }
        }
    }
}
