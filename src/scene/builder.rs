//! Builders for scenes in code: [`Sphere::new`], [`Plane::new`], [`BoxContainer::new`],
//! [`SphereContainer::new`] and [`Scene::builder`].
//!
//! They take what a scene file takes and resolve it the same way (docs/scene-files.md):
//! materials by name (the presets steel, glass, wood, ivory and rubber on first use, unless
//! [`SceneBuilder::material`] defines one of that name), a sphere's mass from its own value,
//! else its material's density × 4/3 π r³, else infinite when fixed; restitution from its own
//! value, else the material's, else the scene's; elastic constants and friction from the
//! material, else the scene's. SI units throughout.
//!
//! ```
//! use glam::DVec3;
//! use spheresim::scene::{CheckOptions, Plane, Scene, Sphere};
//! let scene = Scene::builder()
//!     .name("drop")
//!     .dt(1e-4)
//!     .gravity(DVec3::new(0.0, -9.81, 0.0))
//!     .sphere(Sphere::new(DVec3::new(0.0, 0.5, 0.0), 0.02).material("steel"))
//!     .sphere(Sphere::new(DVec3::new(0.1, 0.5, 0.0), 0.02).mass(0.1).velocity(DVec3::X))
//!     .plane(Plane::new(DVec3::ZERO, DVec3::Y).restitution(0.9))
//!     .build()
//!     .unwrap();
//! assert_eq!(scene.spheres.len(), 2);
//! let checked = scene.check(&CheckOptions::default()).unwrap();
//! assert_eq!(checked.spheres[0].material, Some(0));
//! ```

use super::check::{fmt_vec, report};
use super::file::{Materials, Resolved, resolve, resolve_wall};
use super::{
    CheckOptions, CheckedScene, ContactModel, Damping, GravitySolver, Material, Plane,
    RollingModel, Scene, SceneError, SimParams, Sphere, SphereContainer, Surface,
};
use glam::DVec3;

/// A sphere to be added to a [`SceneBuilder`]: position and radius, the rest optional. Made by
/// [`Sphere::new`]; the keys are those of a `[[particle]]` table.
#[derive(Clone, Debug, PartialEq)]
#[must_use = "a sphere builder does nothing until it is given to SceneBuilder::sphere"]
pub struct SphereBuilder {
    position: DVec3,
    radius: f64,
    velocity: DVec3,
    angular_velocity: DVec3,
    mass: Option<f64>,
    material: Option<String>,
    restitution: Option<f64>,
    fixed: bool,
    image: [i32; 3],
}

impl Sphere {
    /// A sphere centred at `position` (m) with `radius` (m), at rest, to be given to
    /// [`SceneBuilder::sphere`]. It needs a [`mass`](SphereBuilder::mass), a
    /// [`material`](SphereBuilder::material) with a density, or to be
    /// [`fixed`](SphereBuilder::fixed).
    // `Sphere::new(x, r).material("steel")` reads as the thing it builds; `build` makes it.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(position: DVec3, radius: f64) -> SphereBuilder {
        SphereBuilder {
            position,
            radius,
            velocity: DVec3::ZERO,
            angular_velocity: DVec3::ZERO,
            mass: None,
            material: None,
            restitution: None,
            fixed: false,
            image: [0; 3],
        }
    }
}

impl SphereBuilder {
    /// Velocity, m/s (default: 0).
    pub fn velocity(mut self, v: DVec3) -> Self {
        self.velocity = v;
        self
    }

    /// Angular velocity ω, rad/s (default: 0; must be 0 for a fixed sphere; ignored without
    /// [`SceneBuilder::rotation`]).
    pub fn angular_velocity(mut self, w: DVec3) -> Self {
        self.angular_velocity = w;
        self
    }

    /// Mass, kg, > 0 (default: the material's density × 4/3 π r³; infinite when fixed).
    pub fn mass(mut self, kg: f64) -> Self {
        self.mass = Some(kg);
        self
    }

    /// The material, by name: one given to [`SceneBuilder::material`], else a preset (steel,
    /// glass, wood, ivory, rubber). Default: none (restitution and surface from the scene).
    pub fn material(mut self, name: impl Into<String>) -> Self {
        self.material = Some(name.into());
        self
    }

    /// Restitution coefficient in [0, 1]; a pair uses the smaller (default: the material's,
    /// else [`SceneBuilder::restitution`]).
    pub fn restitution(mut self, e: f64) -> Self {
        self.restitution = Some(e);
        self
    }

    /// Infinite mass: the sphere never moves (default: `false`).
    pub fn fixed(mut self, fixed: bool) -> Self {
        self.fixed = fixed;
        self
    }

    /// Periodic images at the start: box lengths already crossed along x, y, z (default 0;
    /// non-zero only on periodic axes; [`crate::scene::Sphere::image`]).
    pub fn image(mut self, image: [i32; 3]) -> Self {
        self.image = image;
        self
    }
}

/// What planes, boxes and sphere containers take besides their shape.
#[derive(Clone, Debug, Default, PartialEq)]
struct Wall {
    restitution: Option<f64>,
    material: Option<String>,
}

/// The restitution and material setters of a wall builder.
macro_rules! wall_setters {
    ($t:ty) => {
        impl $t {
            /// Restitution coefficient against spheres, in [0, 1]; a pair uses the smaller
            /// (default: the material's, else [`SceneBuilder::restitution`]).
            pub fn restitution(mut self, e: f64) -> Self {
                self.wall.restitution = Some(e);
                self
            }

            /// The material, by name, for the elastic constants and friction (and the
            /// restitution when none is given); default: the scene's.
            pub fn material(mut self, name: impl Into<String>) -> Self {
                self.wall.material = Some(name.into());
                self
            }
        }
    };
}

/// An infinite plane to be added to a [`SceneBuilder`] (a `[[plane]]` table). Made by
/// [`Plane::new`].
#[derive(Clone, Debug, PartialEq)]
#[must_use = "a plane builder does nothing until it is given to SceneBuilder::plane"]
pub struct PlaneBuilder {
    point: DVec3,
    normal: DVec3,
    velocity: DVec3,
    wall: Wall,
}

impl Plane {
    /// The plane through `point` (m) with `normal` pointing into the domain (any nonzero
    /// length; normalised by [`SceneBuilder::build`]), to be given to [`SceneBuilder::plane`].
    // `Sphere::new(x, r).material("steel")` reads as the thing it builds; `build` makes it.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(point: DVec3, normal: DVec3) -> PlaneBuilder {
        PlaneBuilder {
            point,
            normal,
            velocity: DVec3::ZERO,
            wall: Wall::default(),
        }
    }
}
wall_setters!(PlaneBuilder);

impl PlaneBuilder {
    /// Velocity of the plane's surface, m/s (default zero): a conveyor belt or a shear wall.
    /// It must lie in the plane ([`Scene::check`] refuses a component along the normal); see
    /// [`Plane::velocity`].
    pub fn velocity(mut self, v: DVec3) -> Self {
        self.velocity = v;
        self
    }
}

/// An axis-aligned box of six inward planes (a `[[box_container]]` table), to be given to
/// [`SceneBuilder::box_container`].
#[derive(Clone, Debug, PartialEq)]
#[must_use = "a box builder does nothing until it is given to SceneBuilder::box_container"]
pub struct BoxContainer {
    min: DVec3,
    max: DVec3,
    wall: Wall,
}

impl BoxContainer {
    /// The box from corner `min` to corner `max`, m (`min` below `max` on every axis).
    pub fn new(min: DVec3, max: DVec3) -> Self {
        Self {
            min,
            max,
            wall: Wall::default(),
        }
    }
}
wall_setters!(BoxContainer);

/// A hollow sphere that keeps the spheres inside it (a `[[sphere_container]]` table). Made by
/// [`SphereContainer::new`].
#[derive(Clone, Debug, PartialEq)]
#[must_use = "a container builder does nothing until it is given to SceneBuilder::sphere_container"]
pub struct ContainerBuilder {
    center: DVec3,
    radius: f64,
    wall: Wall,
}

impl SphereContainer {
    /// The hollow sphere of inner radius `radius` (m, > 0) centred at `center` (m), to be given
    /// to [`SceneBuilder::sphere_container`].
    // `Sphere::new(x, r).material("steel")` reads as the thing it builds; `build` makes it.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(center: DVec3, radius: f64) -> ContainerBuilder {
        ContainerBuilder {
            center,
            radius,
            wall: Wall::default(),
        }
    }
}
wall_setters!(ContainerBuilder);

/// A scene put together in code. Made by [`Scene::builder`]; the simulation parameters default
/// to [`SimParams::default`] (those of a scene file's `[simulation]` table).
#[derive(Clone, Debug, Default, PartialEq)]
#[must_use = "a scene builder does nothing until built"]
pub struct SceneBuilder {
    name: String,
    sim: SimParams,
    materials: Vec<Material>,
    spheres: Vec<SphereBuilder>,
    planes: Vec<PlaneBuilder>,
    boxes: Vec<BoxContainer>,
    containers: Vec<ContainerBuilder>,
    outflows: Vec<super::Outflow>,
    inserts: Vec<super::InsertBuilder>,
}

impl Scene {
    /// An empty scene builder with the default simulation parameters.
    pub fn builder() -> SceneBuilder {
        SceneBuilder::default()
    }
}

/// A setter of one [`SimParams`] field.
macro_rules! sim_setter {
    ($(#[$doc:meta])* $name:ident: $t:ty) => {
        $(#[$doc])*
        pub fn $name(mut self, value: $t) -> Self {
            self.sim.$name = value;
            self
        }
    };
}

impl SceneBuilder {
    /// Name shown in summaries and errors (default: empty, errors then say `scene`).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// All simulation parameters at once (replacing those set before).
    pub fn sim(mut self, sim: SimParams) -> Self {
        self.sim = sim;
        self
    }

    sim_setter!(
        /// Time step, s, > 0 (default: `1e-4`).
        dt: f64
    );
    sim_setter!(
        /// Number of steps a run takes (default: `1000`).
        steps: u64
    );
    sim_setter!(
        /// Uniform gravitational field, m/s² (default: 0).
        gravity: DVec3
    );
    sim_setter!(
        /// Newton's constant for mutual attraction, m³ kg⁻¹ s⁻²; 0 switches it off (default: 0).
        g_const: f64
    );
    sim_setter!(
        /// Plummer softening length ε, m (default: 0).
        softening: f64
    );
    sim_setter!(
        /// Normal contact law (default: [`ContactModel::Impulse`]).
        contact: ContactModel
    );
    sim_setter!(
        /// Normal stiffness of the spring–dashpot law, N/m (default: `1e4`).
        stiffness: f64
    );
    sim_setter!(
        /// Stokes drag coefficient k_c, N·s/m² (default: 0).
        drag: f64
    );
    sim_setter!(
        /// Restitution of bodies that give none and name no material, in [0, 1] (default: 1).
        restitution: f64
    );
    sim_setter!(
        /// Elastic constants and friction of bodies that name no material (default:
        /// [`Surface::default`]).
        surface: Surface
    );
    sim_setter!(
        /// How mutual gravity is summed (default: [`GravitySolver::Direct`]).
        gravity_solver: GravitySolver
    );
    sim_setter!(
        /// Opening angle θ of the gravity tree (default: 0.5).
        theta: f64
    );
    sim_setter!(
        /// Spheres rotate under friction torques (default: `false`).
        rotation: bool
    );
    sim_setter!(
        /// Damping of the Hertz law (default: [`Damping::Flores`]).
        damping: Damping
    );

    /// Periodic boundaries on the `axes` (x, y, z) with the box `[min, max)` (m) (default:
    /// none; docs/open-systems.md).
    pub fn periodic(mut self, axes: [bool; 3], min: DVec3, max: DVec3) -> Self {
        self.sim.periodic = crate::scene::Periodic::new(axes, min, max);
        self
    }

    /// Records the force each plane and container takes from the spheres every step (default
    /// off; soft laws only): [`crate::Simulation::wall_forces`].
    pub fn wall_forces(mut self, on: bool) -> Self {
        self.sim.wall_forces = on;
        self
    }

    /// Neighbour-list skin, m, ≥ 0 (default: 0.6 of the smallest radius, [`crate::scene::DEFAULT_SKIN_FRACTION`]).
    pub fn skin(mut self, skin: f64) -> Self {
        self.sim.skin = Some(skin);
        self
    }

    /// Rolling resistance law (default: [`RollingModel::Cdt`] when some body has a rolling
    /// friction, else none).
    pub fn rolling_model(mut self, model: RollingModel) -> Self {
        self.sim.rolling_model = Some(model);
        self
    }

    /// Defines a material that spheres and walls may name; one with a preset's name replaces
    /// the preset.
    pub fn material(mut self, material: Material) -> Self {
        self.materials.push(material);
        self
    }

    /// Adds a sphere; its id is the number of spheres added before it.
    pub fn sphere(mut self, sphere: SphereBuilder) -> Self {
        self.spheres.push(sphere);
        self
    }

    /// Adds spheres, in order.
    pub fn spheres(mut self, spheres: impl IntoIterator<Item = SphereBuilder>) -> Self {
        self.spheres.extend(spheres);
        self
    }

    /// Adds a plane. Planes come first in [`Scene::planes`], in order, then each box's six.
    pub fn plane(mut self, plane: PlaneBuilder) -> Self {
        self.planes.push(plane);
        self
    }

    /// Adds a box container (six inward planes, after every [`SceneBuilder::plane`]).
    pub fn box_container(mut self, b: BoxContainer) -> Self {
        self.boxes.push(b);
        self
    }

    /// Adds a spherical container.
    pub fn sphere_container(mut self, c: ContainerBuilder) -> Self {
        self.containers.push(c);
        self
    }

    /// Adds an outflow: spheres whose centres enter it leave the simulation
    /// ([`Outflow`](super::Outflow)).
    pub fn outflow(mut self, o: super::Outflow) -> Self {
        self.outflows.push(o);
        self
    }

    /// Adds an insertion: spheres placed in a region at intervals
    /// ([`InsertBuilder`](super::InsertBuilder)); its material is resolved as a sphere's.
    pub fn insert(mut self, i: super::InsertBuilder) -> Self {
        self.inserts.push(i);
        self
    }

    /// The scene, resolved as a scene file is (see the [module](self) notes) and checked for
    /// every value as [`Scene::check`] checks it; overlaps between spheres are not searched here
    /// (see [`SceneBuilder::check`]).
    ///
    /// # Errors
    /// Every problem found, each naming the item (`sphere 3`, `plane 0`, `box_container 1`,
    /// `sphere_container 0`, `material "x"`, `[simulation]`) and the field: an unknown material,
    /// a sphere without mass, a zero plane normal, a box whose `min` is not below its `max`, a
    /// material defined twice; then the value checks of [`Scene::check`].
    pub fn build(self) -> Result<Scene, SceneError> {
        let origin = if self.name.is_empty() {
            "scene".to_string()
        } else {
            format!("scene {}", self.name)
        };
        let mut found: Vec<(usize, SceneError)> = Vec::new();
        let mut bad = |item: String, reason: String| {
            let k = found.len();
            found.push((k, SceneError::invalid(item, reason)));
        };
        let mut seen = std::collections::HashSet::new();
        for m in &self.materials {
            if !seen.insert(m.name.as_str()) {
                bad(format!("material {:?}", m.name), "defined twice".into());
            }
        }
        let mut materials = Materials::of(self.materials.clone());
        let sim = self.sim;
        let mut spheres = Vec::with_capacity(self.spheres.len());
        for (i, s) in self.spheres.into_iter().enumerate() {
            let r = resolve(
                &mut materials,
                &sim,
                s.radius,
                s.mass,
                s.material.as_deref(),
                s.restitution,
                s.fixed,
            );
            let Resolved {
                mass,
                restitution,
                material,
                surface,
            } = match r {
                Ok(r) => r,
                Err(reason) => {
                    bad(format!("sphere {i}"), reason);
                    continue;
                }
            };
            spheres.push(Sphere {
                position: s.position,
                velocity: s.velocity,
                angular_velocity: s.angular_velocity,
                radius: s.radius,
                mass,
                restitution,
                material,
                fixed: s.fixed,
                surface,
                image: s.image,
            });
        }
        let mut planes = Vec::with_capacity(self.planes.len() + 6 * self.boxes.len());
        for (i, p) in self.planes.into_iter().enumerate() {
            let wall = resolve_wall(
                &mut materials,
                &sim,
                p.wall.material.as_deref(),
                p.wall.restitution,
            );
            // Normalise via the largest component, as a scene file does, so that tiny but
            // nonzero normals survive.
            let scale = p.normal.abs().max_element();
            match wall {
                Err(reason) => bad(format!("plane {i}"), reason),
                Ok(_) if !(scale.is_finite() && scale > 0.0) => bad(
                    format!("plane {i}"),
                    format!(
                        "normal must be finite and nonzero, got {}",
                        fmt_vec(p.normal)
                    ),
                ),
                Ok((restitution, surface)) => planes.push(Plane {
                    point: p.point,
                    normal: (p.normal / scale).normalize(),
                    restitution,
                    surface,
                    velocity: p.velocity,
                }),
            }
        }
        for (i, b) in self.boxes.into_iter().enumerate() {
            let wall = resolve_wall(
                &mut materials,
                &sim,
                b.wall.material.as_deref(),
                b.wall.restitution,
            );
            match wall {
                Err(reason) => bad(format!("box_container {i}"), reason),
                Ok(_) if !b.min.cmplt(b.max).all() => bad(
                    format!("box_container {i}"),
                    format!(
                        "min must be below max on every axis, got min {}, max {}",
                        fmt_vec(b.min),
                        fmt_vec(b.max)
                    ),
                ),
                Ok((e, surface)) => planes.extend(Scene::box_planes(b.min, b.max, e, surface)),
            }
        }
        let mut containers = Vec::with_capacity(self.containers.len());
        for (i, c) in self.containers.into_iter().enumerate() {
            match resolve_wall(
                &mut materials,
                &sim,
                c.wall.material.as_deref(),
                c.wall.restitution,
            ) {
                Err(reason) => bad(format!("sphere_container {i}"), reason),
                Ok((restitution, surface)) => containers.push(SphereContainer {
                    center: c.center,
                    radius: c.radius,
                    restitution,
                    surface,
                }),
            }
        }
        let mut inserts = Vec::with_capacity(self.inserts.len());
        for (i, b) in self.inserts.into_iter().enumerate() {
            match b.resolve(&mut materials, &sim) {
                Ok(ins) => inserts.push(ins),
                Err(reason) => bad(format!("insert {i}"), reason),
            }
        }
        if !found.is_empty() {
            return Err(report(&origin, false, found, 0));
        }
        let scene = Scene {
            name: self.name,
            sim,
            materials: materials.into_list(),
            spheres,
            planes,
            containers,
            outflows: self.outflows,
            inserts,
        };
        scene.check(&CheckOptions {
            allow_overlap: true,
        })?;
        Ok(scene)
    }

    /// [`SceneBuilder::build`], then [`Scene::into_checked`] with `opts` (which also searches
    /// for overlaps unless `opts.allow_overlap`): a scene ready for
    /// [`Simulation::new`](crate::Simulation::new).
    ///
    /// # Errors
    /// As [`SceneBuilder::build`] and [`Scene::check`].
    pub fn check(self, opts: &CheckOptions) -> Result<CheckedScene<'static>, SceneError> {
        self.build()?.into_checked(opts)
    }
}
