//! Host-side set-up: the one place that turns a [`Scene`] into what the backends consume.
//!
//! [`PackedScene::new`] packs a checked scene into per-sphere arrays (input order, f64), the
//! walls (planes, then spherical containers) and the step's parameters ([`StepParams`], built in
//! [`crate::params`]). The CPU
//! backend ([`crate::cpu`]), the GPU backend ([`crate::gpu`]) and the event-driven solver
//! ([`crate::event`]) each convert these to their own precision and layout; none of them reads
//! the scene's spheres, materials or walls itself, so a property is derived once (a damping ratio
//! from a restitution coefficient, a compliance from E and ν, the resting speed).
//!
//! The constants both step backends share (large-sphere split, friction-history slots, matching
//! rounds, prefix-sum block, hash-table size, stage names) live here too: `src/cpu` and
//! `src/gpu` import them from this module, and `tests/shader_constants.rs` checks the WGSL copies.

use crate::physics::spring_dashpot::damping_ratio;
use crate::scene::{ContactModel, RollingModel, Scene};
use glam::DVec3;
use rayon::prelude::*;

/// A sphere is *large* when its radius exceeds this multiple of the median radius; large spheres
/// skip the grid and go to the large-sphere list (docs/architecture.md, "Large spheres").
pub const LARGE_RADIUS_RATIO: f64 = 4.0;

/// At most this many spheres go to the large-sphere list (every small sphere tests all of them);
/// past it the threshold rises to the radius of the largest of the rest.
pub const MAX_LARGE: usize = 256;

/// Matching rounds of the impulse model per step, before the final round (docs/physics.md
/// §1.2). Each round resolves exactly the events that are both spheres' earliest, so a chain of
/// events (a sphere whose earliest partner has an earlier event of its own, against a wall, say)
/// is resolved one link a round; what is left reaches the final round, whose mass splitting is
/// not elastic. Three, because with two an elastic gas lost kinetic energy in half of the
/// seeds tried (`tests/dynamics.rs`).
pub const MATCHING_ROUNDS: usize = 3;

/// Fraction of a residual overlap removed per step by the position correction. Below 1 because
/// a sphere with several overlapping neighbours gets every correction at once (Jacobi).
pub const OVERLAP_RELAXATION: f64 = 0.5;

/// Entries per block of the prefix sum; the GPU's work-group size × items per thread.
pub const SCAN_BLOCK: usize = 2048;

/// Names of the timed stages, in step order (`Simulation::stage_seconds`).
pub const STAGES: [&str; 6] = [
    "integrate",
    "binning",
    "contacts",
    "gravity",
    "forces",
    "check",
];

/// Number of hash buckets for `n` spheres: the power of two ≥ 2n (at least 64, one block).
pub fn table_size(n: usize) -> u32 {
    (2 * n).max(64).next_power_of_two() as u32
}

/// Splits radii into small and large: returns the largest small radius, m. Spheres with a larger
/// radius are large.
///
/// # Panics
/// On an empty slice (a checked scene has at least one sphere).
pub fn small_radius_max(radii: &[f64]) -> f64 {
    let mut sorted: Vec<f64> = radii.to_vec();
    sorted.par_sort_unstable_by(|a, b| b.total_cmp(a));
    let median = sorted[sorted.len() / 2];
    let threshold = LARGE_RADIUS_RATIO * median;
    let n_large = sorted.partition_point(|&r| r > threshold).min(MAX_LARGE);
    // Largest radius that is not large (ties with it stay small).
    sorted[n_large..].first().copied().unwrap_or(median)
}

/// Whether a scene keeps contact history (`cpu::collide::ContactHistory`): a soft contact law
/// with friction on some sphere (a pair's μ is the smaller of its two, so a contact has
/// friction only when its sphere does), the Hertz law (its damping needs the approach speed
/// at first touch), or the rolling spring of [`RollingModel::Epsd`].
pub fn contact_history(scene: &Scene) -> bool {
    scene.sim.contact == ContactModel::Hertz
        || scene.rolling_model() == RollingModel::Epsd
        || (scene.sim.contact.is_soft() && scene.spheres.iter().any(|s| s.surface.friction > 0.0))
}

/// Integer outputs of the binning stages, for comparing backends exactly: `keys` (input to the
/// sort, in the order before it), `counts` and `cell_start` (`table_size + 1` each), and the
/// input ids in sorted order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinningState {
    /// Bucket of each sphere, in the order before the sort.
    pub keys: Vec<u32>,
    /// Spheres per bucket.
    pub counts: Vec<u32>,
    /// Exclusive prefix sum of `counts`.
    pub cell_start: Vec<u32>,
    /// Input ids in sorted order.
    pub ids: Vec<u32>,
}

/// The rows of a neighbour list in sorted order (`cpu::neighbours::NeighbourList`), for exact
/// comparison of the backends.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListRows {
    /// First entry of each sorted sphere (`n + 1`; the last is the entry count).
    pub start: Vec<u32>,
    /// Sorted index of each entry's partner.
    pub partner: Vec<u32>,
    /// Each entry's owner flag and mirror entry (`cpu::neighbours::OWNED`, `NO_MIRROR`).
    pub link: Vec<u32>,
}

/// What a wall is: which geometry meets a sphere, and so what its [`Wall`]'s `point`, `normal`
/// and `radius` mean. Each kind's geometry (gap and normal at a sphere, curvature, event
/// fraction) lives in its own module, `cpu::collide::walls::<kind>` with its WGSL twin
/// `shaders/walls/<kind>.wgsl`; docs/architecture.md ("How to add a wall kind") lists the rest.
/// The discriminant is the kind's code in the GPU's wall record (`WALL_*` in
/// `shaders/walls.wgsl`, checked by `tests/shader_constants.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u32)]
pub enum WallKind {
    /// An infinite plane: `point` on it, `normal` into the domain; `radius` unused (0).
    #[default]
    Plane = 0,
    /// The inside of a spherical container: `point` its centre, `radius` its inner radius R_W;
    /// `normal` only stands in for the direction at the very centre (`+x`).
    SphereInside = 1,
}

impl WallKind {
    /// The kind's code in the GPU's wall record (`WALL_PLANE`, `WALL_SPHERE_INSIDE`).
    pub const fn code(self) -> u32 {
        self as u32
    }
}

/// A wall as the backends see it: a [`WallKind`] and its geometry, with its surface.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wall {
    /// Which geometry the wall has, and so what `point`, `normal` and `radius` mean.
    pub kind: WallKind,
    /// A point on the plane, or the container's centre, m.
    pub point: DVec3,
    /// Unit normal into the domain (planes; `+x` for containers, unused).
    pub normal: DVec3,
    /// Restitution coefficient, 0 ≤ e ≤ 1.
    pub restitution: f64,
    /// Damping ratio ζ of the soft laws' dashpots for `restitution` (0 for impulses).
    pub zeta: f64,
    /// Hertz compliance (1 − ν²)/E, 1/Pa.
    pub compliance: f64,
    /// Coulomb friction coefficient μ.
    pub friction: f64,
    /// Rolling friction coefficient μ_r.
    pub rolling_friction: f64,
    /// Inner radius R_W of a [`WallKind::SphereInside`], m; 0 for a plane.
    pub radius: f64,
    /// Velocity of the wall's surface, m/s, in its plane (a plane's `velocity`; zero for a
    /// container).
    pub velocity: DVec3,
}

pub use crate::params::StepParams;

/// The walls [`PackedScene::new`] makes of `scene`: its planes, then its containers.
pub fn wall_count(scene: &Scene) -> usize {
    scene.planes.len() + scene.containers.len()
}

/// A scene packed for the backends: per-sphere arrays in input order, walls and parameters.
///
/// Fixed spheres get zero velocity, infinite mass and zero inverse mass, as the scene defines
/// them. Every array has one entry per sphere.
#[derive(Clone, Debug)]
pub struct PackedScene {
    /// Centres, m.
    pub position: Vec<DVec3>,
    /// Velocities, m/s (zero for fixed spheres).
    pub velocity: Vec<DVec3>,
    /// Angular velocities, rad/s (zero for fixed spheres, which the scene check requires, and
    /// for every sphere without rotation).
    pub angular_velocity: Vec<DVec3>,
    /// Periodic images at the start, box lengths per axis ([`crate::scene::Sphere::image`];
    /// zeros without periodic axes).
    pub image: Vec<[i32; 3]>,
    /// Radii, m.
    pub radius: Vec<f64>,
    /// Masses, kg (infinite for fixed spheres).
    pub mass: Vec<f64>,
    /// Inverse masses, 1/kg (0 for fixed spheres).
    pub inv_mass: Vec<f64>,
    /// Restitution coefficients.
    pub restitution: Vec<f64>,
    /// Damping ratios ζ of the soft laws' dashpots (0 with impulses).
    pub zeta: Vec<f64>,
    /// Hertz compliances (1 − ν²)/E, 1/Pa.
    pub compliance: Vec<f64>,
    /// Coulomb friction coefficients μ.
    pub friction: Vec<f64>,
    /// Rolling friction coefficients μ_r.
    pub rolling_friction: Vec<f64>,
    /// Planes first, then spherical containers, in scene order.
    pub walls: Vec<Wall>,
    /// Number of planes at the front of `walls`.
    pub n_planes: usize,
    /// The step's parameters ([`crate::params`]: the one block every backend derives its
    /// view from).
    pub params: StepParams,
}

impl PackedScene {
    /// Packs a checked scene (see `Scene::check`).
    pub fn new(scene: &Scene) -> Self {
        let sim = &scene.sim;
        // ζ sets the spring–dashpot's normal dashpot and the tangential dashpot of both soft
        // laws (physics::friction); impulses have no dashpot.
        // Spheres mostly share a restitution: the last (e, ζ) is kept, since each ζ is a
        // bisection of some fifty steps.
        let last = std::cell::Cell::new((f64::NAN, 0.0));
        let zeta_of = |e: f64| {
            if !sim.contact.is_soft() {
                return 0.0;
            }
            let (last_e, last_zeta) = last.get();
            if last_e.to_bits() == e.to_bits() {
                return last_zeta;
            }
            let zeta = damping_ratio(e);
            last.set((e, zeta));
            zeta
        };
        let spheres = &scene.spheres;
        let radius: Vec<f64> = spheres.iter().map(|s| s.radius).collect();
        let small_max = if radius.is_empty() {
            0.0
        } else {
            small_radius_max(&radius)
        };
        let walls = scene
            .planes
            .iter()
            .map(|p| Wall {
                kind: WallKind::Plane,
                point: p.point,
                normal: p.normal,
                restitution: p.restitution,
                zeta: zeta_of(p.restitution),
                compliance: p.surface.compliance(),
                friction: p.surface.friction,
                rolling_friction: p.surface.rolling_friction,
                radius: 0.0,
                velocity: p.velocity,
            })
            .chain(scene.containers.iter().map(|c| Wall {
                kind: WallKind::SphereInside,
                point: c.center,
                normal: DVec3::X,
                restitution: c.restitution,
                zeta: zeta_of(c.restitution),
                compliance: c.surface.compliance(),
                friction: c.surface.friction,
                rolling_friction: c.surface.rolling_friction,
                radius: c.radius,
                velocity: DVec3::ZERO,
            }))
            .collect();
        Self {
            position: spheres.iter().map(|s| s.position).collect(),
            velocity: spheres
                .iter()
                .map(|s| if s.fixed { DVec3::ZERO } else { s.velocity })
                .collect(),
            // Ignored without rotation (Scene::rotation_hint says so).
            angular_velocity: spheres
                .iter()
                .map(|s| {
                    if s.fixed || !sim.rotation {
                        DVec3::ZERO
                    } else {
                        s.angular_velocity
                    }
                })
                .collect(),
            image: spheres.iter().map(|s| s.image).collect(),
            mass: spheres.iter().map(|s| s.mass).collect(),
            inv_mass: spheres.iter().map(|s| s.inverse_mass()).collect(),
            restitution: spheres.iter().map(|s| s.restitution).collect(),
            zeta: spheres.iter().map(|s| zeta_of(s.restitution)).collect(),
            compliance: spheres.iter().map(|s| s.surface.compliance()).collect(),
            friction: spheres.iter().map(|s| s.surface.friction).collect(),
            rolling_friction: spheres.iter().map(|s| s.surface.rolling_friction).collect(),
            walls,
            n_planes: scene.planes.len(),
            params: StepParams::of_scene(scene, small_max),
            radius,
        }
    }

    /// Number of spheres.
    pub fn len(&self) -> usize {
        self.position.len()
    }

    /// True when there are no spheres.
    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }

    /// Number of large spheres as a backend of precision `T` classifies them: radii and the
    /// threshold are first rounded by `round`, as the stages compare them (f64 radii that differ
    /// may round to the same f32).
    pub fn large_count<T: PartialOrd>(&self, round: impl Fn(f64) -> T) -> usize {
        let threshold = round(self.params.small_radius_max);
        self.radius
            .iter()
            .filter(|&&r| round(r) > threshold)
            .count()
    }

    /// Pads every per-sphere array to `capacity` spheres with fixed spheres of radius 0 at the
    /// origin, which a backend that keeps room for more spheres than it has (the GPU's set-up
    /// with `GpuOptions::sphere_capacity`) allocates but never steps. The step's parameters stay
    /// those of the spheres given.
    pub fn with_room(mut self, capacity: usize) -> Self {
        let n = self.position.len();
        let pad = capacity.saturating_sub(n);
        fn grow<T: Copy>(v: &mut Vec<T>, n: usize, pad: usize, value: T) {
            if v.len() == n {
                v.extend(std::iter::repeat_n(value, pad));
            }
        }
        grow(&mut self.position, n, pad, DVec3::ZERO);
        grow(&mut self.velocity, n, pad, DVec3::ZERO);
        grow(&mut self.angular_velocity, n, pad, DVec3::ZERO);
        grow(&mut self.image, n, pad, [0; 3]);
        grow(&mut self.radius, n, pad, 0.0);
        grow(&mut self.mass, n, pad, f64::INFINITY);
        grow(&mut self.inv_mass, n, pad, 0.0);
        grow(&mut self.restitution, n, pad, 1.0);
        grow(&mut self.zeta, n, pad, 0.0);
        grow(&mut self.compliance, n, pad, 0.0);
        grow(&mut self.friction, n, pad, 0.0);
        grow(&mut self.rolling_friction, n, pad, 0.0);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::builtin;

    #[test]
    fn packs_every_sphere_and_wall_in_order() {
        let scene = builtin::build("container", Some(50)).unwrap();
        let p = PackedScene::new(&scene);
        assert_eq!(p.len(), scene.spheres.len());
        assert_eq!(p.walls.len(), wall_count(&scene));
        assert_eq!(p.n_planes, scene.planes.len());
        for (w, c) in p.walls[p.n_planes..].iter().zip(&scene.containers) {
            assert_eq!(w.kind, WallKind::SphereInside);
            assert_eq!(w.radius, c.radius);
            assert_eq!(w.point, c.center);
        }
        for (i, s) in scene.spheres.iter().enumerate() {
            assert_eq!(p.position[i], s.position);
            assert_eq!(p.radius[i], s.radius);
            assert_eq!(p.inv_mass[i], s.inverse_mass());
        }
        assert!(p.params.table_size as usize >= 2 * p.len());
    }

    #[test]
    fn fixed_spheres_do_not_move_and_impulses_have_no_dashpot() {
        let mut scene = builtin::build("two-spheres", None).unwrap();
        scene.spheres[0].fixed = true;
        scene.spheres[0].velocity = DVec3::new(1.0, 2.0, 3.0);
        scene.sim.contact = ContactModel::Impulse;
        let p = PackedScene::new(&scene);
        assert_eq!(p.velocity[0], DVec3::ZERO);
        assert_eq!(p.inv_mass[0], 0.0);
        assert!(p.zeta.iter().all(|&z| z == 0.0));
    }

    #[test]
    fn large_spheres_are_counted_after_rounding() {
        let scene = builtin::build("wall-break", Some(1000)).unwrap();
        let p = PackedScene::new(&scene);
        // The projectile is the one sphere far above the median radius.
        assert_eq!(p.large_count(|r| r), 1);
        assert_eq!(p.large_count(|r| r as f32), 1);
    }
}
