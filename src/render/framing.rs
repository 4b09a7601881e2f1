//! What the automatic camera keeps in view, as pure functions of the spheres' positions and the
//! scene's walls (unit-tested without an adapter).
//!
//! `spheresim render` re-frames every frame (unless `--eye` or `--target` fix the camera):
//!
//! 1. **Bulk** ([`bulk_box`]): the box of the sphere centres with the outermost
//!    [`TRIM_FRACTION`] of the spheres' volume cut on each side of each axis (volume-weighted
//!    percentiles, so a few small spheres thrown far away do not shrink the rest to a dot,
//!    while one big sphere, such as wall-break's projectile, counts for its size), widened by
//!    the largest radius among the spheres inside. Under [`TRIM_MIN_SPHERES`] spheres nothing
//!    is cut: every sphere counts.
//! 2. **Context** ([`context_box`]): the bulk grown to take in each spherical container whole,
//!    and each plane's point nearest the bulk's centre when that plane is within
//!    [`PLANE_REACH`] bulk radii of it, so a floor a ball will land on is in view from the start
//!    while a far-off wall does not shrink the scene.
//! 3. **Smoothing** ([`follow`]): the framed ball (centre and radius) moves each frame part of
//!    the way towards the context's bounding ball ([`follow_rate`]: a time constant of
//!    [`FOLLOW_SPAN`] of the render's frames, so a 60-frame video glides while a 4-frame render
//!    frames each state afresh), and then grows at once, if needed, to contain the bulk's
//!    bounding ball: the spheres never leave the frame, and the camera does not jump when the
//!    context changes (a plane coming within reach, spray passing the trimmed share).
//!
//! The view direction stays [`super::DEFAULT_VIEW_DIRECTION`] turned by the up axis; only the
//! point looked at and the distance follow the spheres.

use crate::Scene;
use crate::scene::{Plane, SphereContainer};
use glam::DVec3;

/// Share of the spheres' volume left out on each side of each axis of the bulk box (2 %).
pub const TRIM_FRACTION: f64 = 0.02;

/// Below this many spheres the bulk box takes in every sphere.
pub const TRIM_MIN_SPHERES: usize = 50;

/// A plane is in the context when its distance from the bulk's centre is at most this many
/// bulk radii.
pub const PLANE_REACH: f64 = 10.0;

/// Time constant of the smoothing, as a share of the render's frames (3 %: about 2 frames of
/// a 60-frame render).
pub const FOLLOW_SPAN: f64 = 0.03;

/// Share of the way the framed ball moves towards the context's each frame of a render of
/// `frames` frames: `1 − exp(−1 / (FOLLOW_SPAN · frames))` (0.43 for 60 frames, 0.054 for 600,
/// 0.9998 for 4).
pub fn follow_rate(frames: u64) -> f64 {
    1.0 - (-1.0 / (FOLLOW_SPAN * frames.max(1) as f64)).exp()
}

/// A ball to keep in view: centre and radius, m.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ball {
    /// Centre, m.
    pub centre: DVec3,
    /// Radius, m (≥ 0).
    pub radius: f64,
}

impl Ball {
    /// The bounding ball of the box `lo..hi`.
    pub fn of_box((lo, hi): (DVec3, DVec3)) -> Self {
        Self {
            centre: (lo + hi) * 0.5,
            radius: ((hi - lo) * 0.5).length(),
        }
    }

    /// Whether `other` lies inside this ball (to a relative 1e-9).
    pub fn contains(&self, other: &Ball) -> bool {
        (other.centre - self.centre).length() + other.radius <= self.radius * (1.0 + 1e-9) + 1e-12
    }
}

/// What one frame should show: the bulk (must stay in view) and the context (bulk, containers
/// and near planes; what the camera moves towards).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameTarget {
    /// Bounding ball of [`bulk_box`].
    pub bulk: Ball,
    /// Bounding ball of [`context_box`].
    pub context: Ball,
}

/// The trimmed box of the spheres at `position` with radii `radius` (step 1 of the module
/// docs). Non-finite positions are left out; `None` when none is left.
pub fn bulk_box(position: &[DVec3], radius: &[f64]) -> Option<(DVec3, DVec3)> {
    let r = |i: usize| {
        radius
            .get(i)
            .copied()
            .filter(|r| r.is_finite() && *r > 0.0)
            .unwrap_or(0.0)
    };
    let ok: Vec<usize> = (0..position.len())
        .filter(|&i| position[i].is_finite())
        .collect();
    let n = ok.len();
    if n == 0 {
        return None;
    }
    let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
    if n < TRIM_MIN_SPHERES {
        for &i in &ok {
            lo = lo.min(position[i] - r(i));
            hi = hi.max(position[i] + r(i));
        }
        return Some((lo, hi));
    }
    // Volume weights (all equal when every radius is 0 or missing).
    let mut weight: Vec<f64> = ok.iter().map(|&i| r(i).powi(3)).collect();
    if weight.iter().all(|w| *w == 0.0) {
        weight.fill(1.0);
    }
    let total: f64 = weight.iter().sum();
    let cut = TRIM_FRACTION * total;
    let mut order: Vec<(f64, f64)> = Vec::with_capacity(n);
    for axis in 0..3 {
        order.clear();
        order.extend(
            ok.iter()
                .zip(&weight)
                .map(|(&i, &w)| (position[i][axis], w)),
        );
        order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        // The first centre whose cumulative weight passes the cut, from each end.
        lo[axis] = past_cut(order.iter(), cut);
        hi[axis] = past_cut(order.iter().rev(), cut);
    }
    let pad = ok
        .iter()
        .filter(|&&i| position[i].cmpge(lo).all() && position[i].cmple(hi).all())
        .map(|&i| r(i))
        .fold(0.0, f64::max);
    Some((lo - DVec3::splat(pad), hi + DVec3::splat(pad)))
}

/// The coordinate of the first `(coordinate, weight)` whose cumulative weight exceeds `cut`
/// (the last one's if none does).
fn past_cut<'a>(items: impl Iterator<Item = &'a (f64, f64)>, cut: f64) -> f64 {
    let mut acc = 0.0;
    let mut last = f64::NAN;
    for &(x, w) in items {
        acc += w;
        last = x;
        if acc > cut {
            break;
        }
    }
    last
}

/// `bulk` grown to take in every container whole and the point of each plane nearest the
/// bulk's centre, for planes within [`PLANE_REACH`] bulk radii of that centre (step 2 of the
/// module docs).
pub fn context_box(
    bulk: (DVec3, DVec3),
    planes: &[Plane],
    containers: &[SphereContainer],
) -> (DVec3, DVec3) {
    let ball = Ball::of_box(bulk);
    let reach = PLANE_REACH * ball.radius;
    let (mut lo, mut hi) = bulk;
    for c in containers {
        lo = lo.min(c.center - DVec3::splat(c.radius));
        hi = hi.max(c.center + DVec3::splat(c.radius));
    }
    for p in planes {
        let n = p.normal.normalize_or_zero();
        if n == DVec3::ZERO {
            continue;
        }
        let d = (ball.centre - p.point).dot(n);
        if d.abs() <= reach {
            let foot = ball.centre - n * d;
            lo = lo.min(foot);
            hi = hi.max(foot);
        }
    }
    (lo, hi)
}

/// The bulk and context balls of spheres at `position` (radii `radius`) in `scene` (its planes
/// and containers); `None` without a finite position.
pub fn frame_target(scene: &Scene, position: &[DVec3], radius: &[f64]) -> Option<FrameTarget> {
    let bulk = bulk_box(position, radius)?;
    Some(FrameTarget {
        bulk: Ball::of_box(bulk),
        context: Ball::of_box(context_box(bulk, &scene.planes, &scene.containers)),
    })
}

/// The frame target of `scene`'s initial state.
pub fn initial_target(scene: &Scene) -> Option<FrameTarget> {
    let position: Vec<DVec3> = scene.spheres.iter().map(|s| s.position).collect();
    let radius: Vec<f64> = scene.spheres.iter().map(|s| s.radius).collect();
    frame_target(scene, &position, &radius)
}

/// The next framed ball after `previous` (step 3 of the module docs): the context's ball for
/// the first frame; after that `rate` (in [0, 1], see [`follow_rate`]) of the way towards it,
/// grown to contain the bulk's ball.
pub fn follow(previous: Option<Ball>, target: &FrameTarget, rate: f64) -> Ball {
    let Some(p) = previous else {
        return target.context;
    };
    let rate = rate.clamp(0.0, 1.0);
    let centre = p.centre.lerp(target.context.centre, rate);
    let radius = p.radius + (target.context.radius - p.radius) * rate;
    let need = (target.bulk.centre - centre).length() + target.bulk.radius;
    Ball {
        centre,
        radius: radius.max(need),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Surface;

    fn plane(point: DVec3, normal: DVec3) -> Plane {
        Plane {
            point,
            normal,
            restitution: 1.0,
            surface: Surface::default(),
            velocity: DVec3::ZERO,
        }
    }

    /// A 10 × 10 × 10 grid in the unit cube and 8 spheres thrown 100 m away: the bulk box is
    /// the grid's, not the outliers'.
    #[test]
    fn a_cloud_with_outliers_is_framed_by_its_bulk() {
        let mut pos = Vec::new();
        for i in 0..1000 {
            let (x, y, z) = (i % 10, (i / 10) % 10, i / 100);
            pos.push(DVec3::new(x as f64, y as f64, z as f64) / 9.0);
        }
        for k in 0..8 {
            let s = if k % 2 == 0 { 1.0 } else { -1.0 };
            pos.push(DVec3::new(100.0 * s, 37.0 * k as f64, -80.0));
        }
        pos.push(DVec3::NAN);
        let mut radius = vec![0.01; pos.len()];
        radius[1004] = 0.02; // an outlier's radius does not pad the box
        let (lo, hi) = bulk_box(&pos, &radius).unwrap();
        for a in 0..3 {
            assert!(lo[a] > -0.05 && lo[a] < 0.2, "{lo}");
            assert!(hi[a] < 1.05 && hi[a] > 0.8, "{hi}");
        }
        // Most of the spheres lie in the box.
        let inside = pos
            .iter()
            .filter(|p| p.cmpge(lo).all() && p.cmple(hi).all())
            .count();
        assert!(inside >= 850, "{inside} of {} inside", pos.len());
        // With a few spheres every one counts.
        let few = [DVec3::ZERO, DVec3::new(0.0, 10.0, 0.0)];
        let (lo, hi) = bulk_box(&few, &[0.5, 0.5]).unwrap();
        assert_eq!((lo, hi), (DVec3::splat(-0.5), DVec3::new(0.5, 10.5, 0.5)));
        assert!(bulk_box(&[DVec3::NAN], &[1.0]).is_none());
    }

    /// One big sphere among 300 small ones, away from them (wall-stand's projectile before
    /// it hits): it holds 30 % of the volume and stays in the box, all of it.
    #[test]
    fn a_big_sphere_counts_for_its_volume() {
        let mut pos: Vec<DVec3> = (0..300)
            .map(|i| DVec3::new((i % 3) as f64, (i / 3 % 10) as f64, (i / 30) as f64) * 0.02)
            .collect();
        let mut radius = vec![0.01; 300];
        pos.push(DVec3::new(-0.3, 0.1, 0.1));
        radius.push(0.05);
        let (lo, hi) = bulk_box(&pos, &radius).unwrap();
        assert!((lo.x - -0.35).abs() < 1e-12, "{lo}");
        assert!(hi.x > 0.04, "{hi}");
    }

    /// A floor 0.9 m under a 0.1 m ball is taken in; one 1 km away is not; a container is
    /// taken in whole.
    #[test]
    fn near_planes_and_containers_join_the_context() {
        let ball = (DVec3::new(-0.1, 0.9, -0.1), DVec3::new(0.1, 1.1, 0.1));
        let floor = plane(DVec3::new(5.0, 0.0, 3.0), DVec3::Y);
        let (lo, hi) = context_box(ball, &[floor], &[]);
        assert_eq!(lo, DVec3::new(-0.1, 0.0, -0.1));
        assert_eq!(hi, ball.1);
        let far = plane(DVec3::new(0.0, -1000.0, 0.0), DVec3::Y);
        assert_eq!(context_box(ball, &[far], &[]), ball);
        let c = SphereContainer {
            center: DVec3::ZERO,
            radius: 2.0,
            restitution: 1.0,
            surface: Surface::default(),
        };
        assert_eq!(
            context_box(ball, &[], &[c]),
            (DVec3::splat(-2.0), DVec3::splat(2.0))
        );
    }

    /// The framed ball always contains the bulk, starts at the context and closes in on it.
    #[test]
    fn follow_keeps_the_bulk_and_closes_in_on_the_context() {
        let t = |c: DVec3, r: f64, cc: DVec3, cr: f64| FrameTarget {
            bulk: Ball {
                centre: c,
                radius: r,
            },
            context: Ball {
                centre: cc,
                radius: cr,
            },
        };
        let first = t(DVec3::ZERO, 1.0, DVec3::ZERO, 2.0);
        let rate = follow_rate(60);
        assert!((rate - 0.4265).abs() < 1e-3, "{rate}");
        assert!(follow_rate(4) > 0.999 && follow_rate(600) < 0.06);
        let b0 = follow(None, &first, rate);
        assert_eq!(b0, first.context);
        // The bulk jumps 10 m away: contained at once.
        let moved = t(
            DVec3::new(10.0, 0.0, 0.0),
            1.0,
            DVec3::new(10.0, 0.0, 0.0),
            1.0,
        );
        let b1 = follow(Some(b0), &moved, rate);
        assert!(b1.contains(&moved.bulk), "{b1:?}");
        assert!(b1.radius > 2.0, "{b1:?}");
        let mut b = b1;
        for _ in 0..60 {
            b = follow(Some(b), &moved, rate);
            assert!(b.contains(&moved.bulk));
        }
        assert!((b.centre - moved.context.centre).length() < 1e-6, "{b:?}");
        assert!((b.radius - 1.0).abs() < 1e-6, "{b:?}");
        // A rate of 1 frames the context at once.
        assert_eq!(follow(Some(b0), &moved, 1.0), moved.context);
    }
}
