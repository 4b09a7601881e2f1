//! Wall kind [`WallKind::Plane`]: an infinite plane through `point` with unit normal `normal`
//! into the domain. Twin of `shaders/walls/plane.wgsl`.
//!
//! [`WallKind::Plane`]: crate::setup::WallKind::Plane

use crate::Real;

use super::super::bodies::{Body, PlaneBody};
use super::approach_event;

/// Signed gap `s = (x − o)·n − r` (m) of a sphere of radius `r` centred at `x`, and the
/// plane's normal `n`.
#[inline(always)]
pub fn gap<R: Real>(x: R::V3, r: R, wall: &PlaneBody<R>) -> (R, R::V3) {
    (R::dot(x - wall.point, wall.normal) - r, wall.normal)
}

/// Curvature as the Hertz law sees it: 0 (docs/physics.md §2.2).
#[inline(always)]
pub fn curvature<R: Real>(_wall: &PlaneBody<R>) -> R {
    R::zero()
}

/// Fraction of the step at which the sphere meets the plane while approaching it, if it does:
/// the gap is linear in time along the drift, so [`approach_event`] is exact here.
#[inline(always)]
pub fn event<R: Real>(me: &Body<R>, wall: &PlaneBody<R>, dt: R) -> Option<R> {
    let (s1, n) = gap(me.x, me.r, wall);
    approach_event(s1, R::dot(me.v, n), dt)
}
