//! A sphere against a wall. Each [`WallKind`] has its own module for its geometry, `plane` and
//! `sphere_inside` (twins of `shaders/walls/<kind>.wgsl`), with the same three functions: `gap`
//! (the gap along the wall's normal at the sphere's nearest point, and that normal), `curvature`
//! (for the Hertz law) and `event` (the fraction of the step at which the sphere meets it).
//! Here, one function per operation dispatches on the kind ([`wall_gap`], [`wall_curvature`],
//! [`wall_event`]; twins in `shaders/walls.wgsl`), and the response, which is the same for
//! every kind, goes through them only (`contact`: [`wall_contact`], the final round's
//! [`project_onto_walls`]). A new kind adds its module and one arm to each `match`.
//!
//! Nothing on a backend's broad phase or guard reads a wall: every sphere meets every wall in
//! the contact passes (a row of `n × walls`), and the guard's bounds come from the scene.

mod contact;
mod plane;
mod sphere_inside;

use crate::Real;
use crate::physics::toi::plane_contact_fraction;
use crate::setup::WallKind;

use super::bodies::{Body, PlaneBody};

pub use contact::{project_onto_walls, wall_contact, wall_power};

/// Signed gap `s` (m) of a sphere of radius `r` centred at `x` to a wall, and the wall's unit
/// normal `n` into the domain at the sphere's nearest point (the kind's `gap`).
#[inline(always)]
pub fn wall_gap<R: Real>(x: R::V3, r: R, wall: &PlaneBody<R>) -> (R, R::V3) {
    match wall.kind {
        WallKind::Plane => plane::gap(x, r, wall),
        WallKind::SphereInside => sphere_inside::gap(x, r, wall),
    }
}

/// Curvature of a wall as the Hertz law sees it, m⁻¹ (the kind's `curvature`; docs/physics.md
/// §2.2): `0` for a plane, `−1/R_W` for the inside of a spherical container.
#[inline(always)]
pub fn wall_curvature<R: Real>(wall: &PlaneBody<R>) -> R {
    match wall.kind {
        WallKind::Plane => plane::curvature(wall),
        WallKind::SphereInside => sphere_inside::curvature(wall),
    }
}

/// Fraction of the step at which a movable sphere meets a wall while approaching it, if it
/// does (the kind's `event`); `None` for a fixed sphere.
#[inline(always)]
pub fn wall_event<R: Real>(me: &Body<R>, wall: &PlaneBody<R>, dt: R) -> Option<R> {
    if me.w == R::zero() {
        return None;
    }
    match wall.kind {
        WallKind::Plane => plane::event(me, wall, dt),
        WallKind::SphereInside => sphere_inside::event(me, wall, dt),
    }
}

/// Event fraction from the gap `s1` (m) at the end of the drift and the normal velocity `vn`
/// (m/s, negative approaching), the gap taken as linear in time over the step `dt`: `None`
/// when not approaching or still apart at the end, 0 when already touching at the start, else
/// the crossing ([`plane_contact_fraction`]).
#[inline(always)]
fn approach_event<R: Real>(s1: R, vn: R, dt: R) -> Option<R> {
    if vn >= R::zero() {
        return None;
    }
    let s0 = s1 - vn * dt;
    if s0 > R::zero() {
        (s1 <= R::zero()).then(|| plane_contact_fraction(s0, s1))
    } else {
        Some(R::zero())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    fn wall(kind: WallKind, point: DVec3, normal: DVec3, radius: f64) -> PlaneBody<f64> {
        PlaneBody {
            kind,
            point,
            normal,
            e: 1.0,
            zeta: 0.0,
            compliance: 0.0,
            mu: 0.0,
            rolling_friction: 0.0,
            radius,
            velocity: DVec3::ZERO,
        }
    }

    fn ball(x: DVec3, v: DVec3, w: f64) -> Body<f64> {
        Body {
            x,
            v,
            r: 0.5,
            w,
            e: 1.0,
            zeta: 0.0,
            compliance: 0.0,
            mu: 0.0,
            id: 0,
            cell: [0; 3],
        }
    }

    /// The kind, not the radius, decides the geometry: a plane record whose radius field
    /// holds a number is still a plane.
    #[test]
    fn the_kind_chooses_the_geometry() {
        let x = DVec3::new(0.0, 0.0, 2.0);
        let plane = wall(WallKind::Plane, DVec3::ZERO, DVec3::Z, 4.0);
        assert_eq!(wall_gap(x, 0.5, &plane), (1.5, DVec3::Z));
        assert_eq!(wall_curvature(&plane), 0.0);
        let inside = wall(WallKind::SphereInside, DVec3::ZERO, DVec3::X, 4.0);
        assert_eq!(wall_gap(x, 0.5, &inside), (1.5, -DVec3::Z));
        assert_eq!(wall_curvature(&inside), -0.25);
        // At the container's centre the record's normal stands in.
        assert_eq!(wall_gap(DVec3::ZERO, 0.5, &inside), (3.5, DVec3::X));
    }

    /// Each kind's event: the fraction of the step at which the approaching sphere touches.
    #[test]
    fn events_by_kind() {
        let dt = 1.0;
        let plane = wall(WallKind::Plane, DVec3::ZERO, DVec3::Z, 0.0);
        // Ends 0.25 m past contact after moving 1 m down: touched at 3/4 of the step.
        let me = ball(DVec3::new(0.0, 0.0, 0.25), -DVec3::Z, 1.0);
        assert_eq!(wall_event(&me, &plane, dt), Some(0.75));
        assert_eq!(wall_event(&ball(me.x, DVec3::Z, 1.0), &plane, dt), None);
        assert_eq!(wall_event(&ball(me.x, -DVec3::Z, 0.0), &plane, dt), None);
        let inside = wall(WallKind::SphereInside, DVec3::ZERO, DVec3::X, 2.0);
        // Moving out along +z, ends at |x| = 1.75: 0.25 m past contact, touched at 3/4.
        let out = ball(DVec3::new(0.0, 0.0, 1.75), DVec3::Z, 1.0);
        assert_eq!(wall_event(&out, &inside, dt), Some(0.75));
        assert_eq!(wall_event(&ball(out.x, -DVec3::Z, 1.0), &inside, dt), None);
    }
}
