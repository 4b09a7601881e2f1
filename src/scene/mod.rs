//! Scene model: spheres, materials, planes and simulation parameters, in SI units.
//!
//! A [`Scene`] is built either from a TOML file ([`Scene::from_toml_str`], [`Scene::load`]; format
//! in docs/scene-files.md) or by a named built-in builder ([`builtin`]). Every scene is
//! checked by [`Scene::check`] before a backend sees it.

pub mod builder;
pub mod builtin;
pub mod check;
pub mod file;
pub mod insert;
pub mod materials;
pub mod outflow;
pub mod overlap;
pub mod timestep;

use glam::DVec3;

pub use builder::{BoxContainer, ContainerBuilder, PlaneBuilder, SceneBuilder, SphereBuilder};
pub use check::{CheckOptions, CheckedScene, SceneError, SceneInput, fmt_num};
pub use file::{Origins, SceneFile};
pub use insert::{Insert, InsertAmount, InsertBuilder, InsertRegion, InsertSizes};
pub use materials::{Material, sphere_volume};
pub use outflow::{Outflow, OutflowRegion};

/// Normal contact law between touching bodies (`contact` key).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum ContactModel {
    /// Instantaneous impulses with Newton's restitution (docs/physics.md §1) (default).
    // The `#[cfg_attr(feature = "cli", value(help))]` texts are what `spheresim --help` shows: plain, without the
    // document citations meant for rustdoc readers.
    #[default]
    #[cfg_attr(
        feature = "cli",
        value(help = "Instantaneous impulses with Newton's restitution (default)")
    )]
    Impulse,
    /// Linear spring–dashpot with damping set from the restitution (docs/physics.md §2.1).
    #[cfg_attr(
        feature = "cli",
        value(help = "Linear spring–dashpot with damping set from the restitution")
    )]
    SpringDashpot,
    /// Hertz elastic law with hysteresis damping (Flores by default, Hunt–Crossley with
    /// `damping`), stiffness from the materials' Young's moduli and Poisson ratios
    /// (docs/physics.md §2.2).
    #[cfg_attr(
        feature = "cli",
        value(
            help = "Hertz elastic law with hysteresis damping (Flores by default, Hunt–Crossley with \
                --damping), stiffness from the materials' Young's moduli and Poisson ratios"
        )
    )]
    Hertz,
}

impl ContactModel {
    /// Whether the law is a force law (soft contact) rather than instantaneous impulses.
    pub fn is_soft(self) -> bool {
        self != ContactModel::Impulse
    }
}

impl std::fmt::Display for ContactModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ContactModel::Impulse => "impulse",
            ContactModel::SpringDashpot => "spring-dashpot",
            ContactModel::Hertz => "hertz",
        })
    }
}

/// How mutual gravity is summed (`gravity_solver` in `[simulation]`, `--gravity-solver`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum GravitySolver {
    /// Softened direct sum over all pairs, O(N²), exact to rounding (the default of a scene
    /// file; `plummer` and `rubble-pile` use the tree).
    #[default]
    #[cfg_attr(
        feature = "cli",
        value(
            help = "Softened direct sum over all pairs, O(N²), exact to rounding (default of a scene \
                file)"
        )
    )]
    Direct,
    /// Barnes–Hut tree with quadrupole moments and opening angle `theta`, O(N log N)
    /// (docs/gravity-tree.md).
    #[cfg_attr(
        feature = "cli",
        value(
            help = "Barnes–Hut tree with quadrupole moments and opening angle --theta, O(N log N)"
        )
    )]
    Tree,
}

impl std::fmt::Display for GravitySolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            GravitySolver::Direct => "direct",
            GravitySolver::Tree => "tree",
        })
    }
}

/// Scenes with at least this many spheres and G > 0 that sum gravity directly are told that a
/// tree is available.
pub const TREE_HINT_SPHERES: usize = 20_000;

/// Global simulation parameters (`[simulation]` table).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SimParams {
    /// Time step, s (default: `1e-4`).
    pub dt: f64,
    /// Number of steps to run (default: `1000`).
    pub steps: u64,
    /// Uniform gravitational field, m/s² (default: `[0, 0, 0]`).
    pub gravity: DVec3,
    /// Newton's constant for mutual attraction, m³ kg⁻¹ s⁻²; `0` switches it off (default: `0`).
    pub g_const: f64,
    /// Plummer softening length ε, m (default: `0`).
    pub softening: f64,
    /// Normal contact law (default: impulse).
    pub contact: ContactModel,
    /// Normal stiffness k_n of the spring–dashpot model, N/m (default: `1e4`).
    pub stiffness: f64,
    /// Stokes drag coefficient k_c, N·s/m², force `−k_c r v` (default: `0`).
    pub drag: f64,
    /// Restitution of spheres that name no material, in [0, 1] (default: `1`).
    pub restitution: f64,
    /// Elastic constants and friction of spheres, planes and containers that name no material
    /// (default: [`Surface::default`]).
    pub surface: Surface,
    /// Neighbour-list skin s, m: pairs within `r_a + r_b + s` are listed
    /// (the impulse law adds each sphere's travel in a step), and the list is rebuilt once some
    /// sphere has moved s/2. `0` rebuilds every step. Default (`None`):
    /// [`DEFAULT_SKIN_FRACTION`] of the smallest radius ([`Scene::skin`]). Both backends use it.
    pub skin: Option<f64>,
    /// How mutual gravity is summed (default: [`GravitySolver::Direct`]).
    #[serde(default)]
    pub gravity_solver: GravitySolver,
    /// Opening angle θ of the tree, in (0, [`MAX_THETA`](crate::cpu::tree::MAX_THETA)]: a cell
    /// is used whole when its distance exceeds `b_max / θ` (default:
    /// [`DEFAULT_THETA`](crate::cpu::tree::DEFAULT_THETA) = 0.5).
    #[serde(default = "default_theta")]
    pub theta: f64,
    /// Spheres rotate: friction turns them through the torque at the contact point, and the slip
    /// includes the spin (docs/physics.md §2.6). Soft laws only (the impulse model has no
    /// friction). Default: `false` (the spheres keep their initial angular velocity).
    #[serde(default)]
    pub rotation: bool,
    /// Rolling resistance law (scene key `rolling_model`). `None` (the key left out): the
    /// constant directional torque ([`RollingModel::Cdt`]) when some body has a rolling friction
    /// μ_r > 0, else none ([`Scene::rolling_model`]). Needs rotation.
    #[serde(default)]
    pub rolling_model: Option<RollingModel>,
    /// Damping of the Hertz law (scene key `damping`; default: [`Damping::Flores`]).
    #[serde(default)]
    pub damping: Damping,
    /// Periodic boundaries (scene keys `periodic` and `[domain]`; default: none,
    /// [`Periodic::default`]).
    #[serde(default)]
    pub periodic: Periodic,
    /// Record the force every plane and container takes from the spheres, each step (scene key
    /// `wall_forces`; default `false`): [`crate::Simulation::wall_forces`], the diagnostics
    /// CSV's `wall*_f*` columns and the stats JSON's `wall_forces`. Soft laws only.
    #[serde(default)]
    pub wall_forces: bool,
}

/// Hysteresis damping of the Hertz law (scene key `damping`, `--damping`): the normal force is
/// `k₀ δ^{3/2} [1 + f(e) δ̇/δ̇⁻]` with the approach speed δ̇⁻ stored per contact at first touch
/// (docs/physics.md §2.2, `physics::hertz::hysteresis_factor`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum Damping {
    /// K. H. Hunt and F. R. E. Crossley, J. Appl. Mech. 42 (1975) 440: `f = (3/2)(1 − e)`,
    /// accurate near e = 1 only (the exit restitution is above e).
    #[cfg_attr(
        feature = "cli",
        value(help = "Hunt–Crossley, f = (3/2)(1 − e): exit restitution above e away from e = 1")
    )]
    HuntCrossley,
    /// P. Flores, M. Machado, M. T. Silva and J. M. Martins, Multibody Syst. Dyn. 25 (2011) 357:
    /// `f = 8(1 − e)/(5e)` (default: closer to e over the whole range).
    #[default]
    #[cfg_attr(
        feature = "cli",
        value(help = "Flores et al. 2011, f = 8(1 − e)/(5e) (default): exit restitution near e")
    )]
    Flores,
}

/// Rolling resistance law (scene key `rolling_model`, `--rolling-model`): the torque a contact
/// puts against the relative rolling of its two bodies (docs/physics.md §2.7). The types are
/// those of J. Ai, J.-F. Chen, J. M. Rotter and J. Y. Ooi, Powder Technol. 206 (2011) 269.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum RollingModel {
    /// No rolling resistance: a rolling sphere rolls on for ever on a level plane.
    #[cfg_attr(feature = "cli", value(help = "No rolling resistance"))]
    None,
    /// Constant directional torque (Ai et al. 2011, model type A; LIGGGHTS' `cdt`):
    /// `M_r = −μ_r R* F_n ω̂_roll`.
    #[cfg_attr(
        feature = "cli",
        value(help = "Constant directional torque −μ_r R* F_n ω_roll/|ω_roll| (Ai et al. type A)")
    )]
    Cdt,
    /// Elastic–plastic spring–dashpot (Ai et al. 2011, model type C): a rolling spring of
    /// stiffness `2.25 k_n μ_r² R*²` per contact, capped at `μ_r R* F_n`, with a dashpot while
    /// it holds (`physics::rotation::rolling_spring`).
    #[cfg_attr(
        feature = "cli",
        value(
            help = "Elastic–plastic spring–dashpot: a rolling spring per contact, capped at μ_r R* F_n \
                (Ai et al. type C)"
        )
    )]
    Epsd,
}

fn default_theta() -> f64 {
    crate::cpu::tree::DEFAULT_THETA
}

/// Default neighbour-list skin as a fraction of the smallest sphere radius ([`Scene::skin`]),
/// chosen by timing the built-in scenes (benches/skin/sweep.py; docs/physics.md, "Neighbour
/// list with a skin"); 0.25 before 2026-11-27.
pub const DEFAULT_SKIN_FRACTION: f64 = 0.6;

impl Default for SimParams {
    fn default() -> Self {
        Self {
            dt: 1e-4,
            steps: 1000,
            gravity: DVec3::ZERO,
            g_const: 0.0,
            softening: 0.0,
            contact: ContactModel::Impulse,
            stiffness: 1e4,
            drag: 0.0,
            restitution: 1.0,
            surface: Surface::default(),
            skin: None,
            gravity_solver: GravitySolver::Direct,
            theta: default_theta(),
            rotation: false,
            rolling_model: None,
            damping: Damping::default(),
            periodic: Periodic::default(),
            wall_forces: false,
        }
    }
}

/// Periodic boundaries (docs/open-systems.md): on each axis where `axes` is true, space repeats
/// with period `max − min` (m). A sphere leaving through a face re-enters through the opposite
/// one, contacts take the nearest image (`physics::periodic::minimum_image`), and each sphere
/// counts the box lengths it has crossed (its image, in the CSV's `ix,iy,iz`). Scene keys:
/// `[simulation] periodic = [true, true, false]` and `[domain] min = [..], max = [..]`.
#[derive(Clone, Copy, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Periodic {
    /// Which axes (x, y, z) are periodic (default: none).
    pub axes: [bool; 3],
    /// Lower corner of the box, m (read on the periodic axes only).
    pub min: DVec3,
    /// Upper corner of the box, m: a centre lies in `[min, max)` on each periodic axis.
    pub max: DVec3,
}

impl Periodic {
    /// Whether some axis is periodic.
    pub fn any(&self) -> bool {
        self.axes.iter().any(|&a| a)
    }

    /// The periodic box `[min, max)` on the axes in `axes`.
    pub fn new(axes: [bool; 3], min: DVec3, max: DVec3) -> Self {
        Self { axes, min, max }
    }
}

/// What the Hertz law and friction need of a body's material: Young's modulus, Poisson ratio
/// and the Coulomb friction coefficient (scene keys `youngs_modulus`, `poisson_ratio`,
/// `friction` of `[[material]]` and `[simulation]`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Surface {
    /// Young's modulus E, Pa (> 0) (default: `1e8`, a soft polymer; name a material for real
    /// values).
    pub youngs_modulus: f64,
    /// Poisson ratio ν, in (−1, 0.5] (default: `0.3`).
    pub poisson_ratio: f64,
    /// Coulomb friction coefficient μ ≥ 0, used by the soft contact laws; a pair uses the smaller
    /// of its two bodies' values (default: `0`, frictionless).
    pub friction: f64,
    /// Rolling friction coefficient μ_r ≥ 0 (dimensionless), used with rotation by the rolling
    /// resistance ([`SimParams::rolling_model`]); a pair uses the smaller of its two bodies'
    /// values (default: `0`, no rolling resistance).
    #[serde(default)]
    pub rolling_friction: f64,
}

impl Default for Surface {
    fn default() -> Self {
        Self {
            youngs_modulus: 1e8,
            poisson_ratio: 0.3,
            friction: 0.0,
            rolling_friction: 0.0,
        }
    }
}

impl Surface {
    /// The material's surface: its E, ν and μ.
    pub fn of(m: &Material) -> Self {
        Self {
            youngs_modulus: m.youngs_modulus,
            poisson_ratio: m.poisson_ratio,
            friction: m.friction,
            rolling_friction: m.rolling_friction,
        }
    }

    /// Compliance `(1 − ν²)/E`, Pa⁻¹: the body's share of `1/E*` in the Hertz law
    /// (docs/physics.md §2.2, `physics::hertz::effective_modulus`).
    pub fn compliance(&self) -> f64 {
        (1.0 - self.poisson_ratio * self.poisson_ratio) / self.youngs_modulus
    }
}

/// One sphere, as given by the user (id = its index in [`Scene::spheres`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sphere {
    /// Centre, m.
    pub position: DVec3,
    /// Velocity, m/s.
    pub velocity: DVec3,
    /// Angular velocity ω, rad/s (default 0; must be 0 for a fixed sphere; ignored without
    /// [`SimParams::rotation`], [`Scene::rotation_hint`]).
    #[serde(default)]
    pub angular_velocity: DVec3,
    /// Radius, m (> 0).
    pub radius: f64,
    /// Mass, kg (> 0). Ignored when `fixed`.
    pub mass: f64,
    /// Restitution coefficient of this sphere in [0, 1]; a pair uses the smaller (Nikulin).
    pub restitution: f64,
    /// Index into [`Scene::materials`], if the sphere names one.
    pub material: Option<usize>,
    /// Infinite mass: never moves, inverse mass 0.
    pub fixed: bool,
    /// Elastic constants and friction: the material's, else `[simulation]`'s.
    pub surface: Surface,
    /// Periodic images at the start: box lengths already crossed along x, y and z, so that the
    /// unwrapped centre is `position + image × (max − min)` (default 0; non-zero only on
    /// periodic axes; a `[[particles_file]]` with `ix,iy,iz` columns sets it;
    /// docs/open-systems.md).
    #[serde(default)]
    pub image: [i32; 3],
}

impl Sphere {
    /// Inverse mass `w = 1/m`, kg⁻¹; `0` for a fixed sphere.
    pub fn inverse_mass(&self) -> f64 {
        if self.fixed { 0.0 } else { 1.0 / self.mass }
    }

    /// Takes sphere `i`'s dynamic state from `snap`: position (m), velocity (m/s), angular
    /// velocity (rad/s) and, where the snapshot has them, the periodic images, so that a run
    /// started again from this sphere goes on where `snap` stood. The static properties
    /// (radius, mass, material, …) stay. Panics when `i` is past the snapshot's spheres.
    pub fn take_state(&mut self, snap: &crate::state::Snapshot, i: usize) {
        self.position = snap.position[i];
        self.velocity = snap.velocity[i];
        self.angular_velocity = snap.angular_velocity_of(i);
        if let Some(&image) = snap.image.get(i) {
            self.image = image;
        }
    }
}

/// An infinite plane; spheres live on the side its normal points to.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Plane {
    /// A point on the plane, m.
    pub point: DVec3,
    /// Unit normal pointing into the domain (normalised on load).
    pub normal: DVec3,
    /// Restitution coefficient against spheres, in [0, 1]; the pair uses the smaller of this and
    /// the sphere's.
    pub restitution: f64,
    /// Elastic constants and friction of the plane (its `material`, else `[simulation]`'s).
    pub surface: Surface,
    /// Velocity of the plane's surface, m/s (default zero): a conveyor belt or a shear wall.
    /// It lies in the plane (checked by [`Scene::check`]), so the plane itself stays where it
    /// is; the soft laws' friction and dashpots see the sphere's velocity relative to it, and
    /// the work it does is booked in the ledger (docs/physics.md §2.4). The impulse model is
    /// frictionless: a velocity in the plane changes nothing there.
    #[serde(default)]
    pub velocity: DVec3,
}

/// A hollow sphere that keeps spheres inside it (`[[sphere_container]]`): the concave wall of
/// docs/physics.md §2.2, whose radius enters the Hertz law as `r_b = −R_W`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SphereContainer {
    /// Centre, m.
    pub center: DVec3,
    /// Inner radius R_W, m (> 0); every sphere must lie inside it.
    pub radius: f64,
    /// Restitution coefficient against spheres, in [0, 1] (pair: the smaller).
    pub restitution: f64,
    /// Elastic constants and friction of the wall.
    pub surface: Surface,
}

/// A complete scene: what a backend needs to start stepping.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Scene {
    /// Name shown in summaries (built-in name or file stem).
    pub name: String,
    /// Simulation parameters.
    pub sim: SimParams,
    /// Materials that spheres may refer to by index.
    pub materials: Vec<Material>,
    /// Spheres in input order; the id of a sphere is its index.
    pub spheres: Vec<Sphere>,
    /// Planes (box containers are expanded to six planes on load).
    pub planes: Vec<Plane>,
    /// Spherical containers.
    pub containers: Vec<SphereContainer>,
    /// Outflow regions (`[[outflow]]`; default none): where spheres leave the simulation.
    #[serde(default)]
    pub outflows: Vec<Outflow>,
    /// Insertion regions (`[[insert]]`; default none): where spheres enter it.
    #[serde(default)]
    pub inserts: Vec<Insert>,
}

impl Scene {
    /// True when spheres enter or leave the scene during a run: it has outflows or insertions.
    pub fn is_open(&self) -> bool {
        !self.outflows.is_empty() || !self.inserts.is_empty()
    }

    /// A hint when the scene sums mutual gravity directly (G > 0) over at least
    /// [`TREE_HINT_SPHERES`] spheres, where the O(N²) sum dominates the step and the tree is
    /// available; `None` otherwise.
    pub fn gravity_solver_hint(&self) -> Option<String> {
        let n = self.spheres.len();
        (self.sim.g_const > 0.0
            && self.sim.gravity_solver == GravitySolver::Direct
            && n >= TREE_HINT_SPHERES)
            .then(|| {
                format!(
                    "mutual gravity by direct sum costs O(N²) = {:.1e} pair terms a step for {n} \
                     spheres; gravity_solver = \"tree\"{} costs O(N log N) at a controlled \
                     error (docs/gravity-tree.md)",
                    n as f64 * n as f64,
                    crate::naming::Setting::GravitySolverTreeFlag
                )
            })
    }

    /// A warning for settings rotation makes moot: angular velocities in a scene without
    /// rotation (ignored), or rotation with the impulse law (no friction, so every sphere keeps
    /// its spin).
    pub fn rotation_hint(&self) -> Option<String> {
        if !self.sim.rotation && self.max_rolling_friction() > 0.0 {
            return Some(format!(
                "rolling_friction is ignored without rotation (rotation = true in [simulation]{})",
                crate::naming::Setting::RotationFlag
            ));
        }
        let spinning = self
            .spheres
            .iter()
            .filter(|s| s.angular_velocity != DVec3::ZERO)
            .count();
        if !self.sim.rotation && spinning > 0 {
            return Some(format!(
                "{spinning} spheres have an angular velocity, which is ignored without rotation \
                 (rotation = true in [simulation]{})",
                crate::naming::Setting::RotationFlag
            ));
        }
        (self.sim.rotation && self.sim.contact == ContactModel::Impulse).then(|| {
            format!(
                "rotation with the impulse contact law: impulses carry no friction, so every \
                 sphere keeps its spin; choose a soft law ({}) for rolling",
                crate::naming::Setting::SoftContact
            )
        })
    }

    /// The largest rolling friction coefficient μ_r of any sphere, plane or container.
    pub fn max_rolling_friction(&self) -> f64 {
        let spheres = self.spheres.iter().map(|s| s.surface.rolling_friction);
        let planes = self.planes.iter().map(|p| p.surface.rolling_friction);
        let containers = self.containers.iter().map(|c| c.surface.rolling_friction);
        spheres.chain(planes).chain(containers).fold(0.0, f64::max)
    }

    /// The rolling resistance law the backends use: [`SimParams::rolling_model`] when given,
    /// else [`RollingModel::Cdt`] when some body has μ_r > 0; always [`RollingModel::None`]
    /// without rotation or with the impulse law (which has no friction).
    pub fn rolling_model(&self) -> RollingModel {
        if !self.sim.rotation || !self.sim.contact.is_soft() {
            return RollingModel::None;
        }
        self.sim
            .rolling_model
            .unwrap_or(if self.max_rolling_friction() > 0.0 {
                RollingModel::Cdt
            } else {
                RollingModel::None
            })
    }

    /// The neighbour-list skin s, m: the `skin` key, or [`DEFAULT_SKIN_FRACTION`] of the
    /// smallest sphere radius (0 for an empty scene).
    pub fn skin(&self) -> f64 {
        self.sim
            .skin
            .unwrap_or_else(|| self.skin_of_fraction(DEFAULT_SKIN_FRACTION))
    }

    /// `fraction` of the smallest sphere radius, m (0 for an empty scene): the default skin's
    /// rule, and `spheresim bench --skin-fraction`'s.
    pub fn skin_of_fraction(&self, fraction: f64) -> f64 {
        let r_min = self.smallest_radius();
        if r_min.is_finite() {
            fraction * r_min
        } else {
            0.0
        }
    }

    /// The smallest sphere radius, m; infinite for an empty scene.
    pub fn smallest_radius(&self) -> f64 {
        self.spheres
            .iter()
            .map(|s| s.radius)
            .fold(f64::INFINITY, f64::min)
    }

    /// Six inward-facing planes of the axis-aligned box `[min, max]`, m.
    pub fn box_planes(min: DVec3, max: DVec3, restitution: f64, surface: Surface) -> [Plane; 6] {
        let p = |point: DVec3, normal: DVec3| Plane {
            point,
            normal,
            restitution,
            surface,
            velocity: DVec3::ZERO,
        };
        [
            p(min, DVec3::X),
            p(max, -DVec3::X),
            p(min, DVec3::Y),
            p(max, -DVec3::Y),
            p(min, DVec3::Z),
            p(max, -DVec3::Z),
        ]
    }

    /// Axis-aligned bounds `(min, max)` of all spheres including their radii, m.
    /// `None` for an empty scene.
    pub fn bounds(&self) -> Option<(DVec3, DVec3)> {
        let mut it = self.spheres.iter();
        let s = it.next()?;
        let (mut lo, mut hi) = (
            s.position - DVec3::splat(s.radius),
            s.position + DVec3::splat(s.radius),
        );
        for s in it {
            lo = lo.min(s.position - DVec3::splat(s.radius));
            hi = hi.max(s.position + DVec3::splat(s.radius));
        }
        Some((lo, hi))
    }
}

/// A sphere of unit mass at rest with the default surface, for the scene modules' unit tests.
#[cfg(test)]
pub(crate) fn test_sphere(position: DVec3, radius: f64, fixed: bool) -> Sphere {
    Sphere {
        position,
        velocity: DVec3::ZERO,
        angular_velocity: DVec3::ZERO,
        radius,
        mass: 1.0,
        restitution: 1.0,
        material: None,
        fixed,
        surface: Surface::default(),
        image: [0; 3],
    }
}
