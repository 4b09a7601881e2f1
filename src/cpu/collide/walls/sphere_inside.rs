//! Wall kind [`WallKind::SphereInside`]: the inside of a spherical container of inner radius
//! R_W (`radius`) about `point`. Twin of `shaders/walls/sphere_inside.wgsl`.
//!
//! [`WallKind::SphereInside`]: crate::setup::WallKind::SphereInside

use crate::Real;

use super::super::bodies::{Body, PlaneBody};
use super::super::pair_laws::unit_or;
use super::approach_event;

/// Signed gap `s = R_W − |x − c| − r` (m) of a sphere of radius `r` centred at `x`, and the
/// wall's normal into the domain at the sphere's nearest point, `n = −(x − c)/|x − c|` (the
/// record's `normal` at the very centre).
#[inline(always)]
pub fn gap<R: Real>(x: R::V3, r: R, wall: &PlaneBody<R>) -> (R, R::V3) {
    let d = x - wall.point;
    let n = unit_or::<R>(-d, wall.normal);
    (wall.radius - R::norm2(d).sqrt() - r, n)
}

/// Curvature as the Hertz law sees it: `−1/R_W`, concave (docs/physics.md §2.2).
#[inline(always)]
pub fn curvature<R: Real>(wall: &PlaneBody<R>) -> R {
    -wall.radius.recip()
}

/// Fraction of the step at which the sphere meets the wall while approaching it, if it does:
/// [`approach_event`] on the end-of-drift gap and normal speed (the gap taken as linear in
/// time over the step).
#[inline(always)]
pub fn event<R: Real>(me: &Body<R>, wall: &PlaneBody<R>, dt: R) -> Option<R> {
    let (s1, n) = gap(me.x, me.r, wall);
    approach_event(s1, R::dot(me.v, n), dt)
}
