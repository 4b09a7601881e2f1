//! The soft contact of [`pair_force`](super::pair_laws::pair_force), with what
//! [`collide_pairs`](super::collide_pairs) makes of it (the friction moment, the flags, what the
//! contact keeps), for [`LANES`] pairs at once in f32: [`pair_force_lanes`].
//!
//! Why: the frictional Hertz law is a chain of about a dozen divisions and square roots a pair,
//! and one pair at a time leaves the divider waiting on each (issue 40's profile: the pair law
//! was over half of a dense granular step). Eight independent pairs side by side fill it.
//!
//! Every lane runs the scalar law's operations in its order, with each branch turned into a
//! select of both sides, and the operations are IEEE's (no fused multiply–add), so each lane's
//! result is the scalar law's bit for bit, and hence the WGSL twin's on a software adapter. The
//! test below compares them pair by pair. The lanes are plain arrays that the compiler turns into
//! SSE2 vector instructions, or AVX where the CPU has it ([`LaneKernel::detect`]).
//!
//! Not here: rolling resistance (a scene with it takes the scalar law) and the impulse model.

// A loop over a lane index, reading and writing the same lane of fixed arrays, is the form the
// vectoriser turns into one instruction.
#![allow(clippy::needless_range_loop)]

use std::ops::{Add, Div, Mul, Neg, Sub};

use crate::Real;
use crate::physics::friction::TANGENTIAL_STIFFNESS_RATIO;
use crate::physics::periodic::PeriodicBox;
use crate::scene::{ContactModel, Damping};

use super::bodies::{Body, CollideParams, ContactHistory};
use super::pair_records::{PAIR_COLLISION, PAIR_CONTACT, PAIR_FORCE, PairOut, PairRecord};

/// Pairs a [`pair_force_lanes`] call evaluates.
pub const LANES: usize = 8;

/// One f32 a lane.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LaneF32(pub [f32; LANES]);

/// One condition a lane: all bits set where it holds, none where not (a vector compare's
/// result, so that selects are bitwise blends).
pub type LaneMask = [u32; LANES];

impl LaneF32 {
    #[inline(always)]
    fn splat(x: f32) -> Self {
        LaneF32([x; LANES])
    }
    #[inline(always)]
    fn map(self, f: impl Fn(f32) -> f32) -> Self {
        let mut o = [0.0; LANES];
        for l in 0..LANES {
            o[l] = f(self.0[l]);
        }
        LaneF32(o)
    }
    #[inline(always)]
    fn zip(self, b: Self, f: impl Fn(f32, f32) -> f32) -> Self {
        let mut o = [0.0; LANES];
        for l in 0..LANES {
            o[l] = f(self.0[l], b.0[l]);
        }
        LaneF32(o)
    }
    #[inline(always)]
    fn test(self, b: Self, f: impl Fn(f32, f32) -> bool) -> LaneMask {
        let mut o = [0; LANES];
        for l in 0..LANES {
            o[l] = if f(self.0[l], b.0[l]) { !0 } else { 0 };
        }
        o
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        self.map(f32::sqrt)
    }
    #[inline(always)]
    fn recip(self) -> Self {
        self.map(f32::recip)
    }
    #[inline(always)]
    fn min(self, b: Self) -> Self {
        self.zip(b, f32::min)
    }
    #[inline(always)]
    fn max(self, b: Self) -> Self {
        self.zip(b, f32::max)
    }
    #[inline(always)]
    fn le(self, b: Self) -> LaneMask {
        self.test(b, |x, y| x <= y)
    }
    #[inline(always)]
    fn gt(self, b: Self) -> LaneMask {
        self.test(b, |x, y| x > y)
    }
    #[inline(always)]
    fn lt(self, b: Self) -> LaneMask {
        self.test(b, |x, y| x < y)
    }
    #[inline(always)]
    fn ne(self, b: Self) -> LaneMask {
        self.test(b, |x, y| x != y)
    }
}

/// Per lane: `a` where `m`, else `b`.
#[inline(always)]
fn select(m: LaneMask, a: LaneF32, b: LaneF32) -> LaneF32 {
    let mut o = [0.0; LANES];
    for l in 0..LANES {
        o[l] = f32::from_bits((a.0[l].to_bits() & m[l]) | (b.0[l].to_bits() & !m[l]));
    }
    LaneF32(o)
}

#[inline(always)]
fn and(a: LaneMask, b: LaneMask) -> LaneMask {
    let mut o = [0; LANES];
    for l in 0..LANES {
        o[l] = a[l] & b[l];
    }
    o
}

#[inline(always)]
fn or(a: LaneMask, b: LaneMask) -> LaneMask {
    let mut o = [0; LANES];
    for l in 0..LANES {
        o[l] = a[l] | b[l];
    }
    o
}

#[inline(always)]
fn not(a: LaneMask) -> LaneMask {
    let mut o = [0; LANES];
    for l in 0..LANES {
        o[l] = !a[l];
    }
    o
}

macro_rules! lane_op {
    ($tr:ident, $f:ident, $op:tt) => {
        impl $tr for LaneF32 {
            type Output = LaneF32;
            #[inline(always)]
            fn $f(self, b: LaneF32) -> LaneF32 {
                self.zip(b, |x, y| x $op y)
            }
        }
    };
}
lane_op!(Add, add, +);
lane_op!(Sub, sub, -);
lane_op!(Mul, mul, *);
lane_op!(Div, div, /);

impl Neg for LaneF32 {
    type Output = LaneF32;
    #[inline(always)]
    fn neg(self) -> LaneF32 {
        self.map(|x| -x)
    }
}

/// A 3-vector a lane, as glam's `Vec3` computes it: component by component.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LaneV3 {
    /// x components.
    pub x: LaneF32,
    /// y components.
    pub y: LaneF32,
    /// z components.
    pub z: LaneF32,
}

impl LaneV3 {
    #[inline(always)]
    fn splat(x: f32, y: f32, z: f32) -> Self {
        LaneV3 {
            x: LaneF32::splat(x),
            y: LaneF32::splat(y),
            z: LaneF32::splat(z),
        }
    }
    #[inline(always)]
    fn scale(self, s: LaneF32) -> Self {
        LaneV3 {
            x: self.x * s,
            y: self.y * s,
            z: self.z * s,
        }
    }
    #[inline(always)]
    fn over(self, s: LaneF32) -> Self {
        LaneV3 {
            x: self.x / s,
            y: self.y / s,
            z: self.z / s,
        }
    }
    /// `Real::dot`'s order: `(a.x b.x + a.y b.y) + a.z b.z`.
    #[inline(always)]
    fn dot(self, b: Self) -> LaneF32 {
        self.x * b.x + self.y * b.y + self.z * b.z
    }
    #[inline(always)]
    fn norm2(self) -> LaneF32 {
        self.dot(self)
    }
    /// `Real::cross`'s order.
    #[inline(always)]
    fn cross(self, b: Self) -> Self {
        LaneV3 {
            x: self.y * b.z - self.z * b.y,
            y: self.z * b.x - self.x * b.z,
            z: self.x * b.y - self.y * b.x,
        }
    }
    #[inline(always)]
    fn select(m: LaneMask, a: Self, b: Self) -> Self {
        LaneV3 {
            x: select(m, a.x, b.x),
            y: select(m, a.y, b.y),
            z: select(m, a.z, b.z),
        }
    }
}

impl Add for LaneV3 {
    type Output = LaneV3;
    #[inline(always)]
    fn add(self, b: LaneV3) -> LaneV3 {
        LaneV3 {
            x: self.x + b.x,
            y: self.y + b.y,
            z: self.z + b.z,
        }
    }
}

impl Sub for LaneV3 {
    type Output = LaneV3;
    #[inline(always)]
    fn sub(self, b: LaneV3) -> LaneV3 {
        LaneV3 {
            x: self.x - b.x,
            y: self.y - b.y,
            z: self.z - b.z,
        }
    }
}

impl Neg for LaneV3 {
    type Output = LaneV3;
    #[inline(always)]
    fn neg(self) -> LaneV3 {
        LaneV3 {
            x: -self.x,
            y: -self.y,
            z: -self.z,
        }
    }
}

/// What [`pair_force_lanes`] reads of a lane's pair: the two bodies (a the lower id), their
/// angular velocities (rad/s; zero without rotation) and what the contact kept.
#[derive(Clone, Copy, Debug, Default)]
pub struct PairLanes {
    /// Centres at the end of the drift, m.
    pub x_a: LaneV3,
    /// Centres at the end of the drift, m.
    pub x_b: LaneV3,
    /// Velocities, m/s.
    pub v_a: LaneV3,
    /// Velocities, m/s.
    pub v_b: LaneV3,
    /// Angular velocities, rad/s.
    pub omega_a: LaneV3,
    /// Angular velocities, rad/s.
    pub omega_b: LaneV3,
    /// Kept tangential displacement ξ, m.
    pub xi: LaneV3,
    /// Kept approach speed at first touch, m/s.
    pub impact: LaneF32,
    /// Radii, m.
    pub r_a: LaneF32,
    /// Radii, m.
    pub r_b: LaneF32,
    /// Inverse masses, kg⁻¹.
    pub w_a: LaneF32,
    /// Inverse masses, kg⁻¹.
    pub w_b: LaneF32,
    /// Restitution coefficients.
    pub e_a: LaneF32,
    /// Restitution coefficients.
    pub e_b: LaneF32,
    /// Damping ratios.
    pub zeta_a: LaneF32,
    /// Damping ratios.
    pub zeta_b: LaneF32,
    /// Compliances, Pa⁻¹.
    pub c_a: LaneF32,
    /// Compliances, Pa⁻¹.
    pub c_b: LaneF32,
    /// Friction coefficients.
    pub mu_a: LaneF32,
    /// Friction coefficients.
    pub mu_b: LaneF32,
}

/// What `collide_pairs` stores of a lane's pair (see there): the pair record's fields and what
/// the contact keeps.
#[derive(Clone, Copy, Debug, Default)]
pub struct PairLanesOut {
    /// Force on b, N (zero without a force).
    pub force: LaneV3,
    /// Elastic energy, J.
    pub energy: LaneF32,
    /// Dissipated power, W.
    pub power: LaneF32,
    /// `PAIR_CONTACT | PAIR_COLLISION | PAIR_FORCE` bits.
    pub flags: [u32; LANES],
    /// Friction moment `n × F_t`, N (zero without a force).
    pub moment: LaneV3,
    /// Overlap, m (zero without a force).
    pub overlap: LaneF32,
    /// ξ to keep, m.
    pub xi: LaneV3,
    /// δ̇⁻ to keep, m/s.
    pub impact: LaneF32,
}

/// The uniform parameters [`pair_force_lanes`] reads.
#[derive(Clone, Copy, Debug)]
pub struct LaneParams {
    /// Time step, s.
    pub dt: f32,
    /// Contact law (spring–dashpot or Hertz).
    pub model: ContactModel,
    /// Hertz damping.
    pub damping: Damping,
    /// Spring stiffness, N/m.
    pub stiffness: f32,
    /// Periodic half lengths and lengths, m, or `None` in a closed box.
    pub periodic: Option<([f32; 3], [f32; 3])>,
    /// Rotation on: the slip adds the spin lever.
    pub spin: bool,
}

impl LaneParams {
    /// The lane law's parameters, or `None` where [`collide_pairs`](super::collide_pairs) must
    /// take the scalar law: not f32, rolling resistance on, or an impulse model.
    pub fn of<R: Real>(params: &CollideParams<R>, spin: bool, rolling: bool) -> Option<Self> {
        let soft = matches!(
            params.model,
            ContactModel::Hertz | ContactModel::SpringDashpot
        );
        if R::PRECISION != crate::real::Precision::F32 || rolling || !soft {
            return None;
        }
        let f = |x: R| x.f64() as f32;
        let PeriodicBox { half, len, on, .. } = params.periodic;
        Some(Self {
            dt: f(params.dt),
            model: params.model,
            damping: params.damping,
            stiffness: f(params.stiffness),
            periodic: on.then(|| (half.map(f), len.map(f))),
            spin,
        })
    }
}

impl PairLanes {
    /// Fills lane `l` with the pair (`a`, `b`), their spins and what the contact kept. Exact:
    /// `R` is f32 wherever [`LaneParams::of`] allowed the lanes.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn load<R: Real>(
        &mut self,
        l: usize,
        a: &Body<R>,
        b: &Body<R>,
        omega: Option<(R::V3, R::V3)>,
        kept: &ContactHistory<R>,
    ) {
        let f = |x: R| x.f64() as f32;
        let put = |v: &mut LaneV3, x: R::V3| {
            let [x, y, z] = R::comps(x);
            (v.x.0[l], v.y.0[l], v.z.0[l]) = (f(x), f(y), f(z));
        };
        put(&mut self.x_a, a.x);
        put(&mut self.x_b, b.x);
        put(&mut self.v_a, a.v);
        put(&mut self.v_b, b.v);
        if let Some((oa, ob)) = omega {
            put(&mut self.omega_a, oa);
            put(&mut self.omega_b, ob);
        }
        put(&mut self.xi, kept.xi);
        self.impact.0[l] = f(kept.impact);
        (self.r_a.0[l], self.r_b.0[l]) = (f(a.r), f(b.r));
        (self.w_a.0[l], self.w_b.0[l]) = (f(a.w), f(b.w));
        (self.e_a.0[l], self.e_b.0[l]) = (f(a.e), f(b.e));
        (self.zeta_a.0[l], self.zeta_b.0[l]) = (f(a.zeta), f(b.zeta));
        (self.c_a.0[l], self.c_b.0[l]) = (f(a.compliance), f(b.compliance));
        (self.mu_a.0[l], self.mu_b.0[l]) = (f(a.mu), f(b.mu));
    }
}

impl PairLanesOut {
    /// Lane `l` as `collide_pairs` stores it: the pair record and what the contact keeps.
    #[inline(always)]
    pub fn record<R: Real, P: PairRecord<R>>(&self, l: usize) -> (P, ContactHistory<R>) {
        let r = |x: &LaneF32| R::of(x.0[l] as f64);
        let v = |x: &LaneV3| R::vec(r(&x.x), r(&x.y), r(&x.z));
        let out = PairOut {
            force: v(&self.force),
            energy: r(&self.energy),
            power: r(&self.power),
            flags: self.flags[l],
        };
        let kept = ContactHistory {
            xi: v(&self.xi),
            impact: r(&self.impact),
            rolling: R::zero3(),
        };
        (
            P::new(out, v(&self.moment), r(&self.overlap), R::zero3()),
            kept,
        )
    }
}

/// [`pair_force`](super::pair_laws::pair_force) and `collide_pairs`' use of it (without
/// rolling resistance), for [`LANES`] pairs: the lane twin of `soft_contact`,
/// `soft_normal_force`, `hysteresis_force`, `impact_speed`, `tangential_spring`,
/// `dashpot_coefficient`, `normal_force`, `spin_lever` and `add_spin_slip`, each step in the
/// order those functions compute it. A pair apart (or of two fixed spheres) gets a zero record
/// and keeps nothing.
#[inline(always)]
pub fn pair_force_lanes(p: &PairLanes, k: &LaneParams) -> PairLanesOut {
    let zero = LaneF32::splat(0.0);
    let one = LaneF32::splat(1.0);
    let dt = LaneF32::splat(k.dt);
    let wsum = p.w_a + p.w_b;
    let radius_sum = p.r_a + p.r_b;
    let mut d1 = p.x_b - p.x_a;
    if let Some((half, len)) = k.periodic {
        // minimum_image: one correction an axis.
        let fold = |c: LaneF32, half: f32, len: f32| {
            let (h, l) = (LaneF32::splat(half), LaneF32::splat(len));
            select(c.gt(h), c - l, select(c.lt(-h), c + l, c))
        };
        d1 = LaneV3 {
            x: fold(d1.x, half[0], len[0]),
            y: fold(d1.y, half[1], len[1]),
            z: fold(d1.z, half[2], len[2]),
        };
    }
    let dist2 = d1.norm2();
    let rs2 = radius_sum * radius_sum;
    // pair_force's two early returns.
    let contact = and(wsum.ne(zero), not(dist2.gt(rs2)));
    // unit_or
    let dist = dist2.sqrt();
    let n = LaneV3::select(
        dist2.gt(LaneF32::splat(f32::MIN_POSITIVE)),
        d1.over(dist),
        LaneV3::splat(1.0, 0.0, 0.0),
    );
    let overlap = radius_sum - dist;
    let dv = p.v_b - p.v_a;
    let e = p.e_a.min(p.e_b);
    let zeta = p.zeta_a.max(p.zeta_b);
    let mu = p.mu_a.min(p.mu_b);
    // soft_contact
    let u_n = -dv.dot(n);
    let positive = not(overlap.le(zero));
    let (force, elastic, energy, k_n, impact) = if k.model == ContactModel::Hertz {
        let compliance_sum = p.c_a + p.c_b;
        let curvature_sum = p.r_a.recip() + p.r_b.recip();
        let k0 = LaneF32::splat((4.0f64 / 3.0) as f32)
            * (compliance_sum + zero).recip()
            * (curvature_sum + zero).recip().sqrt();
        let root = overlap.sqrt();
        let d52 = overlap * overlap * root;
        let now = (u_n * u_n + LaneF32::splat(0.8) * k0 * wsum * d52).sqrt();
        let impact = select(p.impact.gt(zero), p.impact, now);
        let factor = match k.damping {
            Damping::HuntCrossley => LaneF32::splat(1.5) * (one - e),
            Damping::Flores => LaneF32::splat(8.0) * (one - e) / (LaneF32::splat(5.0) * e),
        };
        let elastic = k0 * overlap * root;
        let c = (factor * elastic / impact.max(now)).min((wsum * dt).recip());
        let force = select(positive, (elastic + c * u_n).max(zero), zero);
        let energy = LaneF32::splat(0.4) * k0 * overlap * overlap * root;
        (
            force,
            elastic,
            energy,
            LaneF32::splat(1.5) * k0 * root,
            impact,
        )
    } else {
        let s = LaneF32::splat(k.stiffness);
        let c_n = LaneF32::splat(2.0) * zeta * (s / wsum).sqrt();
        let force = select(positive, (s * overlap + c_n * u_n).max(zero), zero);
        let energy = LaneF32::splat(0.5) * s * overlap * overlap;
        (force, s * overlap, energy, s, zero)
    };
    let v_n = dv + n.scale(u_n);
    let v_t = if k.spin {
        let arm_a = p.r_a - overlap * LaneF32::splat(0.5);
        let arm_b = p.r_b - overlap * LaneF32::splat(0.5);
        let s = p.omega_a.scale(arm_a) + p.omega_b.scale(arm_b);
        LaneV3 {
            x: v_n.x + n.y * s.z - n.z * s.y,
            y: v_n.y + n.z * s.x - n.x * s.z,
            z: v_n.z + n.x * s.y - n.y * s.x,
        }
    } else {
        v_n
    };
    let k_t = LaneF32::splat(TANGENTIAL_STIFFNESS_RATIO as f32) * k_n;
    let c_t = LaneF32::splat(2.0) * zeta * (k_t / wsum).sqrt();
    // tangential_spring
    let cap = mu * force;
    let stuck = or(cap.le(zero), k_t.le(zero));
    let xi_tangent = p.xi - n.scale(p.xi.dot(n));
    let xi = xi_tangent + v_t.scale(dt);
    let trial = -xi.scale(k_t) - v_t.scale(c_t);
    let f2 = trial.norm2();
    let sliding = f2.gt(cap * cap);
    let slid = trial.scale(cap / f2.sqrt());
    let slid_xi = (-(slid + v_t.scale(c_t))).over(k_t);
    let none = LaneV3::default();
    let friction = LaneV3::select(stuck, none, LaneV3::select(sliding, slid, trial));
    let xi = LaneV3::select(stuck, none, LaneV3::select(sliding, slid_xi, xi));
    let power = (force - elastic) * u_n - friction.dot(v_t);
    let collision = (d1 - dv.scale(dt)).norm2().gt(rs2);
    // collide_pairs' record of the response.
    let pushes = and(contact, force.ne(zero));
    let mut flags = [0; LANES];
    for l in 0..LANES {
        flags[l] = (contact[l] & PAIR_CONTACT)
            | (contact[l] & collision[l] & PAIR_COLLISION)
            | (pushes[l] & PAIR_FORCE);
    }
    PairLanesOut {
        force: LaneV3::select(pushes, n.scale(force) + friction, none),
        energy: select(contact, energy, zero),
        // `p.power + rolling_power`, the latter zero here.
        power: select(contact, power, zero) + zero,
        flags,
        moment: LaneV3::select(pushes, n.cross(friction), none),
        overlap: select(pushes, overlap, zero),
        xi: LaneV3::select(contact, xi, none),
        impact: select(contact, impact, zero),
    }
}

/// The instruction sets [`pair_force_lanes`] is compiled for: AVX's 8-wide registers where the
/// CPU has them, SSE2 (every x86-64) otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneKernel {
    /// The baseline build.
    Baseline,
    /// Compiled with AVX enabled (x86-64 with AVX only).
    Avx,
}

impl LaneKernel {
    /// The best this CPU runs.
    pub fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx") {
            return Self::Avx;
        }
        Self::Baseline
    }

    /// [`pair_force_lanes`] in this instruction set.
    #[inline(always)]
    pub fn run(self, p: &PairLanes, k: &LaneParams) -> PairLanesOut {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Avx` comes from `detect`, which saw the CPU's AVX.
            Self::Avx => unsafe { pair_force_avx(p, k) },
            _ => pair_force_lanes(p, k),
        }
    }
}

/// [`pair_force_lanes`] compiled with AVX. AVX has no fused multiply–add (that is FMA's), so
/// every operation rounds as in the baseline build.
///
/// # Safety
/// The CPU must have AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn pair_force_avx(p: &PairLanes, k: &LaneParams) -> PairLanesOut {
    pair_force_lanes(p, k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::collide::pair_laws::pair_force;
    use crate::cpu::collide::pair_records::SpinPairOut;
    use crate::physics::rotation::friction_moment;
    use glam::Vec3;

    /// A small deterministic generator (xorshift), so the test needs no crate.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }
        fn range(&mut self, lo: f32, hi: f32) -> f32 {
            lo + (hi - lo) * self.next()
        }
        fn v(&mut self, s: f32) -> Vec3 {
            Vec3::new(self.range(-s, s), self.range(-s, s), self.range(-s, s))
        }
    }

    fn body(rng: &mut Rng, x: Vec3) -> Body<f32> {
        let r = rng.range(0.004, 0.006);
        Body {
            x,
            v: rng.v(0.5),
            r,
            // Now and then a fixed sphere (w = 0).
            w: if rng.next() < 0.05 {
                0.0
            } else {
                rng.range(500.0, 900.0)
            },
            e: rng.range(0.3, 0.9),
            zeta: rng.range(0.05, 0.3),
            compliance: rng.range(1.0e-7, 2.0e-7),
            mu: if rng.next() < 0.1 {
                0.0
            } else {
                rng.range(0.2, 0.6)
            },
            id: 0,
            cell: [0; 3],
        }
    }

    /// What `collide_pairs`' scalar closure stores for one pair (rolling off).
    fn scalar(
        a: &Body<f32>,
        b: &Body<f32>,
        spin: Option<(Vec3, Vec3)>,
        old: ContactHistory<f32>,
        params: &CollideParams<f32>,
    ) -> (SpinPairOut<f32>, ContactHistory<f32>) {
        let p = pair_force(a, b, spin, old, params);
        let force = p.force != 0.0;
        let (moment, overlap) = if force {
            (friction_moment::<f32>(p.n, p.friction), p.overlap)
        } else {
            (Vec3::ZERO, 0.0)
        };
        let out = PairOut {
            force: if force {
                p.n * p.force + p.friction
            } else {
                Vec3::ZERO
            },
            energy: p.energy,
            power: p.power + 0.0,
            flags: (p.contact as u32 * PAIR_CONTACT)
                | (p.collision as u32 * PAIR_COLLISION)
                | (force as u32 * PAIR_FORCE),
        };
        let kept = if p.contact {
            p.kept
        } else {
            ContactHistory::default()
        };
        (SpinPairOut::new(out, moment, overlap, Vec3::ZERO), kept)
    }

    fn bits(v: Vec3) -> [u32; 3] {
        v.to_array().map(f32::to_bits)
    }

    /// Every lane equals the scalar law bit for bit, for both laws and dampings, with and
    /// without rotation, in a closed and a periodic box, on pairs that touch, slide, stick,
    /// separate or are apart, in both instruction sets this CPU runs (the baseline build and
    /// AVX where the CPU has it). Contract: bitwise, the CPU against itself; no adapter is
    /// involved, and neither side may contract into a fused multiply–add (Rust never does).
    #[test]
    fn every_lane_is_the_scalar_law_bit_for_bit() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let kernels = [LaneKernel::Baseline, LaneKernel::detect()];
        let mut checked = [0usize; 3];
        // x and y periodic with an edge of 0.2 m; the centres lie in ±0.1 m.
        let periodic = PeriodicBox::of([true, true, false], [-0.1, -0.1, 0.0], [0.1, 0.1, 0.0]);
        let cases = [ContactModel::Hertz, ContactModel::SpringDashpot]
            .into_iter()
            .flat_map(|m| [Damping::HuntCrossley, Damping::Flores].map(|d| (m, d)))
            .flat_map(|(m, d)| [false, true].map(|s| (m, d, s)))
            .flat_map(|(m, d, s)| [PeriodicBox::open(), periodic].map(|p| (m, d, s, p)));
        for (model, damping, spin, pbox) in cases {
            let params = test_params(model, damping, pbox);
            let lane = LaneParams::of(&params, spin, false).expect("f32, soft");
            for _ in 0..400 {
                let mut input = PairLanes::default();
                let mut want = Vec::new();
                for l in 0..LANES {
                    let centre = rng.v(0.1);
                    let a = body(&mut rng, centre);
                    let gap = rng.range(-0.02, 0.004) * (a.r + 0.005);
                    let dir = rng.v(1.0).normalize_or(Vec3::X);
                    let mut b = body(&mut rng, Vec3::ZERO);
                    b.x = a.x + dir * (a.r + b.r + gap);
                    if pbox.any() && rng.next() < 0.5 {
                        // b's image a box length away: the minimum image brings it back.
                        let shift = if rng.next() < 0.5 { 0.2 } else { -0.2 };
                        b.x += if rng.next() < 0.5 {
                            Vec3::new(shift, 0.0, 0.0)
                        } else {
                            Vec3::new(0.0, shift, 0.0)
                        };
                    }
                    let omega = if spin {
                        Some((rng.v(50.0), rng.v(50.0)))
                    } else {
                        None
                    };
                    // Half the contacts carry history: a large ξ makes them slide.
                    let old = if rng.next() < 0.5 {
                        ContactHistory {
                            xi: {
                                let size = if rng.next() < 0.5 { 1e-6 } else { 1e-3 };
                                rng.v(size)
                            },
                            impact: rng.range(0.0, 0.3),
                            rolling: Vec3::ZERO,
                        }
                    } else {
                        ContactHistory::default()
                    };
                    input.load(l, &a, &b, omega, &old);
                    want.push(scalar(&a, &b, omega, old, &params));
                }
                for kernel in kernels {
                    let got = kernel.run(&input, &lane);
                    for (l, (rec, kept)) in want.iter().enumerate() {
                        let (g, gk): (SpinPairOut<f32>, ContactHistory<f32>) = got.record(l);
                        let what = format!(
                            "{model:?} {damping:?} spin {spin} periodic {} lane {l}",
                            pbox.any()
                        );
                        assert_eq!(bits(g.out.force), bits(rec.out.force), "{what}");
                        assert_eq!(g.out.energy.to_bits(), rec.out.energy.to_bits());
                        assert_eq!(g.out.power.to_bits(), rec.out.power.to_bits());
                        assert_eq!(g.out.flags, rec.out.flags, "{what}");
                        assert_eq!(bits(g.moment), bits(rec.moment), "{what}");
                        assert_eq!(g.overlap.to_bits(), rec.overlap.to_bits());
                        assert_eq!(bits(gk.xi), bits(kept.xi), "{what}");
                        assert_eq!(gk.impact.to_bits(), kept.impact.to_bits());
                        let f = rec.out.flags;
                        checked[0] += (f & PAIR_FORCE != 0) as usize;
                        checked[1] += (f & PAIR_CONTACT == 0) as usize;
                        checked[2] += (f & PAIR_COLLISION != 0) as usize;
                    }
                }
            }
        }
        // The draw covers pushing contacts, pairs apart and new contacts.
        assert!(checked.iter().all(|&c| c > 1000), "{checked:?}");
    }

    fn test_params(
        model: ContactModel,
        damping: Damping,
        periodic: PeriodicBox<f32>,
    ) -> CollideParams<f32> {
        CollideParams {
            dt: 5.0e-5,
            model,
            damping,
            rolling: crate::scene::RollingModel::None,
            stiffness: 2.0e4,
            cell_edge: 0.02,
            inv_cell_edge: 50.0,
            table_size: 1,
            n_small: 0,
            small_radius_max: 0.006,
            small_speed_max: 1.0,
            resting_speed: 0.0,
            skin: 0.0,
            periodic,
            grid: crate::cpu::cell_keys::GridAxes::of(&periodic, 0.02),
        }
    }
}
