//! What the passes store per listed pair between their two halves: the soft contact's records
//! ([`PairOut`], [`SpinPairOut`], [`RollPairOut`], one [`PairRecord`] type per scene) with their
//! flags ([`PAIR_CONTACT`], [`PAIR_COLLISION`], [`PAIR_FORCE`]), and the impulse model's
//! ([`PairImpulse`]).

use crate::Real;

use super::pair_laws::PairResponse;

/// One soft-contact pair's result, as its lower-id sphere evaluated it ([`collide_pairs`]).
///
/// [`collide_pairs`]: super::collide_pairs
#[derive(Clone, Copy, Debug, Default)]
pub struct PairOut<R: Real> {
    /// Force on the pair's higher-id sphere, N (`n F_n + F_t`; the lower-id one gets minus it).
    pub force: R::V3,
    /// Elastic energy of the contact, J.
    pub energy: R,
    /// Power dissipated by the contact, W.
    pub power: R,
    /// [`PAIR_CONTACT`], [`PAIR_COLLISION`], [`PAIR_FORCE`] bits.
    pub flags: u32,
}

/// A [`PairOut`] with what rotation needs: the friction's [`friction_moment`] `n × F_t` (N),
/// from which each sphere turns by [`friction_torque`] with its own arm, and the overlap δ (m)
/// that sets the arms ([`contact_arm`]). Zero for a pair without a force.
///
/// [`friction_moment`]: crate::physics::rotation::friction_moment
/// [`friction_torque`]: crate::physics::rotation::friction_torque
/// [`contact_arm`]: crate::physics::rotation::contact_arm
#[derive(Clone, Copy, Debug, Default)]
pub struct SpinPairOut<R: Real> {
    /// The pair's result without rotation.
    pub out: PairOut<R>,
    /// `n × F_t`, N.
    pub moment: R::V3,
    /// Overlap δ, m.
    pub overlap: R,
}

/// A [`SpinPairOut`] with the pair's rolling resistance torque on its lower-id sphere, N·m
/// ([`rolling_resistance`]; the other sphere gets minus it).
///
/// [`rolling_resistance`]: crate::physics::rotation::rolling_resistance
#[derive(Clone, Copy, Debug, Default)]
pub struct RollPairOut<R: Real> {
    /// The pair's result without rolling resistance.
    pub spin: SpinPairOut<R>,
    /// Rolling resistance torque on the lower-id sphere, N·m.
    pub rolling: R::V3,
}

/// One list entry's record of a soft-contact pair: [`PairOut`] without rotation (so that a scene
/// without it moves no more bytes than before rotation existed), [`SpinPairOut`] with, and
/// [`RollPairOut`] with rolling resistance.
pub trait PairRecord<R: Real>: Copy + Default + Send + Sync {
    /// The record of a pair's result, with its friction moment, overlap and rolling resistance
    /// torque (dropped by the records without them).
    fn new(out: PairOut<R>, moment: R::V3, overlap: R, rolling: R::V3) -> Self;
    /// The result without rotation.
    fn out(&self) -> &PairOut<R>;
    /// The friction moment (N) and overlap (m); `None` for a record without rotation.
    fn spin(&self) -> Option<(R::V3, R)>;
    /// The rolling resistance torque on the lower-id sphere (N·m); `None` for a record without
    /// rolling resistance.
    #[inline(always)]
    fn rolling(&self) -> Option<R::V3> {
        None
    }
}

impl<R: Real> PairRecord<R> for PairOut<R> {
    #[inline(always)]
    fn new(out: PairOut<R>, _: R::V3, _: R, _: R::V3) -> Self {
        out
    }
    #[inline(always)]
    fn out(&self) -> &PairOut<R> {
        self
    }
    #[inline(always)]
    fn spin(&self) -> Option<(R::V3, R)> {
        None
    }
}

impl<R: Real> PairRecord<R> for SpinPairOut<R> {
    #[inline(always)]
    fn new(out: PairOut<R>, moment: R::V3, overlap: R, _: R::V3) -> Self {
        Self {
            out,
            moment,
            overlap,
        }
    }
    #[inline(always)]
    fn out(&self) -> &PairOut<R> {
        &self.out
    }
    #[inline(always)]
    fn spin(&self) -> Option<(R::V3, R)> {
        Some((self.moment, self.overlap))
    }
}

impl<R: Real> PairRecord<R> for RollPairOut<R> {
    #[inline(always)]
    fn new(out: PairOut<R>, moment: R::V3, overlap: R, rolling: R::V3) -> Self {
        Self {
            spin: SpinPairOut::new(out, moment, overlap, rolling),
            rolling,
        }
    }
    #[inline(always)]
    fn out(&self) -> &PairOut<R> {
        &self.spin.out
    }
    #[inline(always)]
    fn spin(&self) -> Option<(R::V3, R)> {
        self.spin.spin()
    }
    #[inline(always)]
    fn rolling(&self) -> Option<R::V3> {
        Some(self.rolling)
    }
}

/// [`PairOut::flags`]: the spheres touch.
pub const PAIR_CONTACT: u32 = 1;
/// [`PairOut::flags`]: the contact began this step.
pub const PAIR_COLLISION: u32 = 2;
/// [`PairOut::flags`]: the normal force is non-zero, so the force is applied.
pub const PAIR_FORCE: u32 = 4;

/// One impulse-model pair's response, as its lower-id sphere evaluated it
/// ([`impulse_pairs`]): the parts of [`PairResponse`] the impulse model uses.
///
/// [`impulse_pairs`]: super::impulse_pairs
#[derive(Clone, Copy, Debug, Default)]
pub struct PairImpulse<R: Real> {
    /// Unit normal from the lower-id sphere to the other.
    pub n: R::V3,
    /// Normal impulse J, N·s.
    pub impulse: R,
    /// Time left in the step after the contact instant, s.
    pub rest: R,
    /// Fraction τ of the step at which the spheres touched.
    pub tau: R,
    /// Residual overlap to remove, m.
    pub push: R,
    /// [`PAIR_CONTACT`], [`PAIR_COLLISION`] bits.
    pub flags: u32,
}

impl<R: Real> PairImpulse<R> {
    /// The pair response this stands for (soft-contact fields zero).
    #[inline(always)]
    pub(super) fn response(&self) -> PairResponse<R> {
        PairResponse {
            n: self.n,
            impulse: self.impulse,
            rest: self.rest,
            tau: self.tau,
            push: self.push,
            contact: self.flags & PAIR_CONTACT != 0,
            collision: self.flags & PAIR_COLLISION != 0,
            ..PairResponse::default()
        }
    }
}
