//! The magnitude guard: a bound on every sphere's speed and on its distance from the scene's
//! centre that no trajectory of the scene's physics can pass (docs/physics.md §7). A run that
//! passes one has blown up (a time step too long for its contacts, f32 overflow, a mass range
//! f32 cannot hold), even while every number is still finite; both backends stop it at that
//! step, without relying on NaN or infinity surviving the hardware.
//!
//! The bounds, at time t after the scene's start:
//!
//! * speed `v(t) = F sqrt(2 E / m_min) + ρ r_min / dt + a t`,
//! * distance `d(t) = r₀ + v(0) t + a t² / 2`, with `a = |g|` in a scene open below, else 0,
//!
//! with the energy scale `E = K + K_rot + Σ m |g| h + G M M_all / max(2 r_min, ε)`: the kinetic
//! energies, what the uniform field can give each movable sphere (its height h above the floor,
//! or the container's diameter; in a scene open below, the extent H, and the bounds grow by
//! the free fall's `|g| t` and `|g| t²/2`, which closed scenes leave out), and the most that
//! mutual gravity, of the movable mass M, can release, every pair at contact. No sphere can hold more
//! kinetic energy than E, so `sqrt(2 E / m_min)` bounds every speed; F = [`SPEED_FACTOR`]
//! leaves a factor 100 in energy for what the estimate leaves out (elastic energy stored in
//! overlaps at the start, the integrator's own error). The floor `ρ r_min / dt`
//! (ρ = [`STEP_FRACTION`]) keeps a scene at rest from tripping on rounding: moving 1 % of the
//! smallest radius a step is never a blow-up.
//! `r₀` is the largest distance of a sphere from the centre at the start plus H.

use glam::DVec3;

use crate::real::Real;
use crate::scene::Scene;

/// Factor on the largest physically reachable speed, `F` (so `F²` = 100 on energy).
pub const SPEED_FACTOR: f64 = 10.0;

/// Fraction of the smallest radius a sphere may move per step whatever the energy, `ρ`.
pub const STEP_FRACTION: f64 = 0.01;

/// Ceiling of both bounds, m/s or m: beyond it f32 arithmetic (squares near 1e38) is no longer
/// trustworthy, so a bound this large is clamped rather than left to overflow.
pub const MAX_BOUND: f64 = 1e30;

/// The guard's constants for one scene (f64, m and m/s).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bounds {
    /// The centre distances are measured from: the middle of the scene's bounding box, m.
    pub centre: DVec3,
    /// Speed bound at t = 0, `v(0)`, m/s.
    pub speed: f64,
    /// Growth of the speed bound, `|g|`, m/s².
    pub accel: f64,
    /// Distance bound at t = 0, `r₀`, m.
    pub distance: f64,
}

impl Bounds {
    /// The bounds of `scene` at its start (module docs); [`MAX_BOUND`] when no sphere moves
    /// (a scene that insertions will fill): nothing can blow up, and the fixed spheres stay
    /// where they are, wherever that is. An open-system pass sets the guard again.
    pub fn of_scene(scene: &Scene) -> Self {
        let movable = || scene.spheres.iter().filter(|s| !s.fixed);
        let Some(m_min) = movable().map(|s| s.mass).reduce(f64::min) else {
            return Self {
                centre: DVec3::ZERO,
                speed: MAX_BOUND,
                accel: 0.0,
                distance: MAX_BOUND,
            };
        };
        let (lo, hi) = scene.bounds().unwrap_or((DVec3::ZERO, DVec3::ZERO));
        let centre = 0.5 * (lo + hi);
        let extent = (hi - lo).max_element();
        let r_min = scene.smallest_radius();
        let mass: f64 = movable().map(|s| s.mass).sum();
        let all_mass: f64 = scene
            .spheres
            .iter()
            .map(|s| if s.fixed { s.mass.max(0.0) } else { s.mass })
            .filter(|m| m.is_finite())
            .sum();
        let g = scene.sim.gravity.length();
        let kinetic: f64 = movable()
            .map(|s| {
                let spin = 0.4 * s.mass * s.radius * s.radius * s.angular_velocity.length_squared();
                0.5 * (s.mass * s.velocity.length_squared() + spin)
            })
            .sum();
        let mutual = if scene.sim.g_const > 0.0 {
            let closest = (2.0 * r_min).max(scene.sim.softening);
            scene.sim.g_const * mass * all_mass / closest
        } else {
            0.0
        };
        // The uniform field's share: down to the floor where one stops the fall, else across
        // the extent, and then on for ever (the bound's growth |g| t).
        let (field, closed) = field_energy(scene, extent);
        let energy = kinetic + field + mutual;
        let speed =
            SPEED_FACTOR * (2.0 * energy / m_min).sqrt() + STEP_FRACTION * r_min / scene.sim.dt;
        let farthest = scene
            .spheres
            .iter()
            .map(|s| (s.position - centre).length())
            .fold(0.0, f64::max);
        Self {
            centre,
            speed: speed.min(MAX_BOUND),
            accel: if closed { 0.0 } else { g.min(MAX_BOUND) },
            distance: (farthest + extent).min(MAX_BOUND),
        }
    }
}

/// What the uniform field can give the movable spheres, J, and whether the scene is closed
/// against it. Closed: a plane whose inward normal is within 45° of `−g` (a floor), or a
/// spherical container, stops every fall; each sphere can then fall at most its height above
/// the floor along the field (the lowest such height over the floors), or the container's
/// diameter. Open: each sphere falls across the scene's `extent` and on, without end.
fn field_energy(scene: &Scene, extent: f64) -> (f64, bool) {
    let g = scene.sim.gravity.length();
    if g == 0.0 {
        return (0.0, true);
    }
    let down = scene.sim.gravity / g;
    let floors: Vec<_> = scene
        .planes
        .iter()
        .filter(|p| p.normal.dot(-down) >= std::f64::consts::FRAC_1_SQRT_2)
        .collect();
    let container = scene
        .containers
        .iter()
        .map(|c| 2.0 * c.radius)
        .reduce(f64::min);
    let closed = !floors.is_empty() || container.is_some();
    let energy = scene
        .spheres
        .iter()
        .filter(|s| !s.fixed)
        .map(|s| {
            let above_floor = floors
                .iter()
                .map(|p| (s.position - p.point).dot(p.normal) / p.normal.dot(-down))
                .reduce(f64::min);
            let fall = match (above_floor, container) {
                (Some(h), Some(d)) => h.min(d),
                (Some(h), None) => h,
                (None, Some(d)) => d,
                (None, None) => extent,
            };
            s.mass * g * fall.max(0.0)
        })
        .sum();
    (energy, closed)
}

/// The speed and distance bounds at the end of step `step` (1 = after the first), m/s and m:
/// `v(t)` and `d(t)` of the module docs at `t = step · dt`, each at most [`MAX_BOUND`]. The
/// twin of `guard_bounds` in shaders/check.wgsl, in the same operations and order.
pub fn guard_bounds<R: Real>(step: u32, dt: R, speed: R, accel: R, distance: R) -> (R, R) {
    let t = R::of(step as f64) * dt;
    let max = R::of(MAX_BOUND);
    let v = (speed + accel * t).min(max);
    let d = (distance + (speed + R::of(0.5) * accel * t) * t).min(max);
    (v, d)
}

/// Whether a sphere at `x` (m) moving at `v` (m/s) is within the bounds `(speed, distance)`
/// about `centre`: `|v| ≤ speed` and `|x − centre| ≤ distance`. False for NaN or infinite input
/// (the comparisons fail), whatever the hardware does with the NaN bits. The twin of
/// `within_bounds` in shaders/check.wgsl.
pub fn within_bounds<R: Real>(x: R::V3, v: R::V3, centre: R::V3, speed: R, distance: R) -> bool {
    let d = x - centre;
    R::norm2(v).sqrt() <= speed && R::norm2(d).sqrt() <= distance
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::builtin;

    /// Every built-in scene starts inside its own bounds, with room to spare.
    #[test]
    fn built_in_scenes_start_well_inside_their_bounds() {
        for name in builtin::names() {
            let scene = builtin::build(name, Some(200).filter(|_| name != "pi-blocks"))
                .or_else(|_| builtin::build(name, None))
                .unwrap();
            let b = Bounds::of_scene(&scene);
            for s in scene.spheres.iter().filter(|s| !s.fixed) {
                assert!(
                    s.velocity.length() <= 0.2 * b.speed,
                    "{name}: a sphere starts at {} m/s against a bound of {} m/s",
                    s.velocity.length(),
                    b.speed
                );
                assert!((s.position - b.centre).length() <= b.distance);
            }
        }
    }

    /// The bounds grow with time as the uniform field allows, and stop at MAX_BOUND.
    #[test]
    fn bounds_grow_with_the_field_and_saturate() {
        let (v0, d0) = guard_bounds::<f64>(0, 1e-3, 2.0, 9.81, 5.0);
        assert_eq!((v0, d0), (2.0, 5.0));
        let (v, d) = guard_bounds::<f64>(1000, 1e-3, 2.0, 9.81, 5.0);
        assert!((v - (2.0 + 9.81)).abs() < 1e-12, "{v}");
        assert!((d - (5.0 + 2.0 + 0.5 * 9.81)).abs() < 1e-12, "{d}");
        let (v, d) = guard_bounds::<f32>(u32::MAX, 1.0, 1e29, 1e29, 1e29);
        assert_eq!(
            (v as f64, d as f64),
            (MAX_BOUND as f32 as f64, MAX_BOUND as f32 as f64)
        );
    }

    /// A NaN or infinite position or velocity is never within bounds.
    #[test]
    fn non_finite_input_is_out_of_bounds() {
        let c = glam::Vec3::ZERO;
        let ok = glam::Vec3::ONE;
        assert!(within_bounds::<f32>(ok, ok, c, 10.0, 10.0));
        for bad in [f32::NAN, f32::INFINITY, -f32::INFINITY, 1e20] {
            let b = glam::Vec3::new(bad, 0.0, 0.0);
            assert!(!within_bounds::<f32>(b, ok, c, 10.0, 10.0), "x = {bad}");
            assert!(!within_bounds::<f32>(ok, b, c, 10.0, 10.0), "v = {bad}");
        }
    }
}
