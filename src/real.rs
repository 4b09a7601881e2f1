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
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
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
    /// Flags each of `others` (centres and radii, m) that is within reach of a sphere at `x`
    /// (m) of radius `r` (m): `hit[c]` = [`in_reach`]`(x, r,
    /// others[c].x, others[c].r, 0)`, for the first `others.len()` of `hit`. The neighbour-list
    /// build's inner loop. f32 on x86-64 tests four candidates an instruction, with the same
    /// operations in the same order, so the flags are those of the scalar test.
    fn reach_flags(x: Self::V3, r: Self, others: &[Ball<Self>], hit: &mut [bool]) {
        for (h, o) in hit.iter_mut().zip(others) {
            *h = in_reach(x, r, o.x, o.r, Self::zero());
        }
    }
}

impl Real for f32 {
    type V3 = Vec3;
    #[cfg(target_arch = "x86_64")]
    fn reach_flags(x: Vec3, r: f32, others: &[Ball<f32>], hit: &mut [bool]) {
        use std::arch::x86_64::*;
        let quads = others.len() / 4;
        assert!(hit.len() >= others.len());
        // SAFETY: SSE2 is part of x86-64. `Ball<f32>` is `repr(C)`: x, y, z, r, 16 bytes, so
        // candidate c's four floats start at float 4c of the slice; every quad is in bounds.
        unsafe {
            let (mx, my, mz) = (_mm_set1_ps(x.x), _mm_set1_ps(x.y), _mm_set1_ps(x.z));
            let (mr, zero) = (_mm_set1_ps(r), _mm_setzero_ps());
            let margin = _mm_set1_ps(f32::of(1.01));
            let base = others.as_ptr().cast::<f32>();
            for q in 0..quads {
                let p = base.add(16 * q);
                let (mut bx, mut by) = (_mm_loadu_ps(p), _mm_loadu_ps(p.add(4)));
                let (mut bz, mut br) = (_mm_loadu_ps(p.add(8)), _mm_loadu_ps(p.add(12)));
                _MM_TRANSPOSE4_PS(&mut bx, &mut by, &mut bz, &mut br);
                // in_reach, lane by lane: d = x_b − x_a, |d|² = (dx² + dy²) + dz²,
                // reach = (r_a + r_b) + 0, hit when |d|² ≤ (1.01 reach) reach.
                let (dx, dy, dz) = (_mm_sub_ps(bx, mx), _mm_sub_ps(by, my), _mm_sub_ps(bz, mz));
                let d2 = _mm_add_ps(
                    _mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy)),
                    _mm_mul_ps(dz, dz),
                );
                let reach = _mm_add_ps(_mm_add_ps(mr, br), zero);
                let limit = _mm_mul_ps(_mm_mul_ps(margin, reach), reach);
                let mask = _mm_movemask_ps(_mm_cmple_ps(d2, limit));
                for (k, h) in hit[4 * q..4 * q + 4].iter_mut().enumerate() {
                    *h = (mask >> k) & 1 != 0;
                }
            }
        }
        for c in 4 * quads..others.len() {
            hit[c] = in_reach(x, r, others[c].x, others[c].r, 0.0);
        }
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
