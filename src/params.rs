//! The step's parameters: one block per meaning (issue 39, item 3).
//!
//! [`StepParams`] is the one place the step's constants are set: `dt`, the uniform field, G and
//! ε², drag, the contact law and its stiffness and damping, the resting speed, the skin, the
//! large-sphere split, the hash-table size, the tree's θ, rotation and rolling resistance, and
//! the magnitude guard's bounds. It is built once, in f64, from the checked scene
//! ([`StepParams::of_scene`], called by [`crate::setup::PackedScene::new`]). Every other view is
//! derived from it by one function and holds no constant of its own:
//!
//! | view | derived by | holds |
//! |---|---|---|
//! | [`CpuParams<R>`] (the CPU backend's) | [`CpuParams::of`] | every constant rounded to `R`, and the f64 block it came from ([`CpuParams::host`]) |
//! | `cpu::collide::CollideParams<R>` (the contact stage's) | [`CpuParams::collide`] | the contact constants in `R`, with this step's grid (cell edge, fastest small sphere) |
//! | `gpu::buffers::Params` (`Params` in shaders/common.wgsl) | `gpu::buffers::Params::of` | the constants rounded to f32, with the GPU's counts and dispatch sizes |
//! | the GPU and event backends | they keep the [`StepParams`] | read `dt`, the law, rotation, … through it |
//!
//! [`crate::Simulation`] reads `dt` and the guard's bounds through its engine
//! ([`crate::engine::Engine::step_params`]). A value that a view rounds (`R::of(x)`, `x as f32`)
//! is rounded where the view is derived, from the f64 value, exactly once; a derived quantity
//! (the resting speed `2 |g| dt`, ε²) is computed in f64 here and rounded by the views.
//! [`crate::scene::SimParams`] stays the scene's own record (its keys are a contract); this
//! block is what the step makes of it.

use crate::Real;
use crate::cpu::cell_keys::GridAxes;
use crate::cpu::collide::CollideParams;
use crate::physics::guard::Bounds;
use crate::physics::impulse::resting_speed;
use crate::physics::periodic::PeriodicBox;
use crate::scene::{ContactModel, Damping, GravitySolver, Periodic, RollingModel, Scene};
use glam::DVec3;

/// Uniform parameters of the step, in f64 (each backend rounds them to its precision).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepParams {
    /// Time step, s.
    pub dt: f64,
    /// Uniform gravitational field, m/s².
    pub gravity: DVec3,
    /// Gravitational constant G, m³ kg⁻¹ s⁻² (0: no mutual gravity).
    pub g_const: f64,
    /// Squared Plummer softening ε², m².
    pub eps2: f64,
    /// Stokes drag coefficient, N·s/m².
    pub drag: f64,
    /// Normal stiffness of the spring–dashpot law, N/m.
    pub stiffness: f64,
    /// Contact law.
    pub contact: ContactModel,
    /// Damping of the Hertz law.
    pub damping: Damping,
    /// Approach speed below which an impulse contact rests, m/s
    /// ([`crate::physics::impulse::resting_speed`]).
    pub resting_speed: f64,
    /// Largest radius of a small sphere, m ([`crate::setup::small_radius_max`]).
    pub small_radius_max: f64,
    /// Hash-table buckets ([`crate::setup::table_size`]).
    pub table_size: u32,
    /// Whether friction history is kept ([`crate::setup::contact_history`]).
    pub history: bool,
    /// Neighbour-list skin, m ([`Scene::skin`]).
    pub skin: f64,
    /// How mutual gravity is summed.
    pub gravity_solver: GravitySolver,
    /// The tree's opening angle θ.
    pub theta: f64,
    /// Whether spheres rotate under friction torques ([`crate::scene::SimParams::rotation`]).
    pub rotation: bool,
    /// Rolling resistance law ([`Scene::rolling_model`]; none without rotation).
    pub rolling: RollingModel,
    /// The magnitude guard's bounds ([`crate::physics::guard`]).
    pub guard: Bounds,
    /// Periodic boundaries ([`crate::scene::SimParams::periodic`]).
    pub periodic: Periodic,
    /// Whether each wall's force is recorded ([`crate::scene::SimParams::wall_forces`]).
    pub wall_forces: bool,
}

impl StepParams {
    /// The step's parameters of a checked scene whose largest small-sphere radius is
    /// `small_radius_max` (m; [`crate::setup::small_radius_max`] of its radii, 0 without
    /// spheres), passed in so that the radii are sorted once.
    pub fn of_scene(scene: &Scene, small_radius_max: f64) -> Self {
        let sim = &scene.sim;
        Self {
            dt: sim.dt,
            gravity: sim.gravity,
            g_const: sim.g_const,
            eps2: sim.softening * sim.softening,
            drag: sim.drag,
            stiffness: sim.stiffness,
            contact: sim.contact,
            damping: sim.damping,
            resting_speed: resting_speed(sim.gravity, sim.dt),
            small_radius_max,
            table_size: crate::setup::table_size(scene.spheres.len()),
            history: crate::setup::contact_history(scene),
            skin: scene.skin(),
            gravity_solver: sim.gravity_solver,
            theta: sim.theta,
            rotation: sim.rotation,
            rolling: scene.rolling_model(),
            guard: Bounds::of_scene(scene),
            periodic: sim.periodic,
            wall_forces: sim.wall_forces,
        }
    }

    /// Whether mutual gravity is on (G > 0).
    pub fn mutual_gravity(&self) -> bool {
        self.g_const > 0.0
    }

    /// Whether mutual gravity is summed by the tree (and is on).
    pub fn gravity_tree(&self) -> bool {
        self.gravity_solver == GravitySolver::Tree && self.mutual_gravity()
    }
}

/// The step's parameters in the CPU backend's precision `R`, derived from a [`StepParams`] by
/// [`CpuParams::of`].
#[derive(Clone, Debug)]
pub struct CpuParams<R: Real> {
    /// The f64 block this view was rounded from (for what the CPU counts in f64: time,
    /// dissipated energy, potential energy).
    pub host: StepParams,
    /// Time step, s.
    pub dt: R,
    /// Approach speed below which an impulse contact rests, m/s.
    pub resting_speed: R,
    /// Uniform gravitational field, m/s².
    pub gravity: R::V3,
    /// Gravitational constant G, m³ kg⁻¹ s⁻².
    pub g_const: R,
    /// Squared Plummer softening ε², m².
    pub eps2: R,
    /// Stokes drag coefficient, N·s/m².
    pub drag: R,
    /// Normal stiffness of the spring–dashpot law, N/m.
    pub stiffness: R,
    /// Contact law.
    pub model: ContactModel,
    /// Damping of the Hertz law.
    pub damping: Damping,
    /// Neighbour-list skin s, m.
    pub skin: R,
    /// Largest small-sphere radius, m.
    pub small_radius_max: R,
    /// Hash-table buckets.
    pub table_size: u32,
    /// Whether friction history is kept.
    pub history: bool,
    /// Mutual gravity by the tree rather than the direct sum.
    pub tree: bool,
    /// The tree's opening angle θ.
    pub theta: R,
    /// Spheres rotate under friction torques.
    pub rotation: bool,
    /// Contacts resist rolling (a [`RollingModel`] other than none).
    pub rolling: bool,
    /// The rolling resistance law.
    pub rolling_model: RollingModel,
    /// The magnitude guard's centre (m), speed bound at t = 0 (m/s), its growth (m/s²) and
    /// distance bound at t = 0 (m) ([`crate::physics::guard`]).
    pub guard: (R::V3, R, R, R),
    /// The periodic box ([`PeriodicBox::open`] without periodic axes).
    pub periodic: PeriodicBox<R>,
}

impl<R: Real> CpuParams<R> {
    /// `sp` rounded to precision `R`, each value once, from f64.
    pub fn of(sp: &StepParams) -> Self {
        Self {
            host: *sp,
            dt: R::of(sp.dt),
            resting_speed: R::of(sp.resting_speed),
            gravity: R::v3(sp.gravity),
            g_const: R::of(sp.g_const),
            eps2: R::of(sp.eps2),
            drag: R::of(sp.drag),
            stiffness: R::of(sp.stiffness),
            model: sp.contact,
            damping: sp.damping,
            skin: R::of(sp.skin),
            small_radius_max: R::of(sp.small_radius_max),
            table_size: sp.table_size,
            history: sp.history,
            // As before: the tree flag alone (the stages test G > 0 themselves).
            tree: sp.gravity_solver == GravitySolver::Tree,
            theta: R::of(sp.theta),
            rotation: sp.rotation,
            rolling: sp.rolling != RollingModel::None,
            rolling_model: sp.rolling,
            guard: (
                R::v3(sp.guard.centre),
                R::of(sp.guard.speed),
                R::of(sp.guard.accel),
                R::of(sp.guard.distance),
            ),
            periodic: PeriodicBox::of(
                sp.periodic.axes,
                sp.periodic.min.to_array(),
                sp.periodic.max.to_array(),
            ),
        }
    }

    /// The contact stage's parameters for this step: `n_small` small spheres (sorted first),
    /// grid cell edge `cell_edge` (m; its inverse is computed here, in `R`) and the fastest
    /// small sphere's speed `small_speed_max` (m/s).
    pub fn collide(&self, n_small: u32, cell_edge: R, small_speed_max: R) -> CollideParams<R> {
        CollideParams {
            dt: self.dt,
            model: self.model,
            damping: self.damping,
            rolling: self.rolling_model,
            stiffness: self.stiffness,
            cell_edge,
            inv_cell_edge: cell_edge.recip(),
            table_size: self.table_size,
            n_small,
            small_radius_max: self.small_radius_max,
            small_speed_max,
            resting_speed: self.resting_speed,
            skin: self.skin,
            periodic: self.periodic,
            grid: GridAxes::of(&self.periodic, cell_edge),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::builtin;
    use crate::setup::PackedScene;

    /// The CPU's f32 view and the GPU's block are rounded from the same f64 values, once each,
    /// so every constant they share is the same f32 (a view that rounded twice, or computed a
    /// derived value such as ε² in f32, would differ in the last bit for some scene).
    #[test]
    #[cfg(feature = "gpu")]
    fn cpu_and_gpu_views_round_the_same_f64_values() {
        for name in ["wall-break", "orbits", "rubble-pile"] {
            let scene = builtin::build(name, Some(300)).unwrap();
            let p = PackedScene::new(&scene);
            let sp = &p.params;
            let cpu = CpuParams::<f32>::of(sp);
            let gpu = crate::gpu::buffers::Params::of(sp, p.len(), 0, p.walls.len(), 256, 1);
            let bits = |x: f32| x.to_bits();
            assert_eq!(cpu.host, *sp, "{name}");
            assert_eq!(bits(cpu.dt), bits(gpu.dt), "{name}: dt");
            assert_eq!(bits(cpu.dt), bits(sp.dt as f32), "{name}: dt");
            assert_eq!(cpu.gravity.to_array(), gpu.gravity, "{name}: gravity");
            for (what, c, g) in [
                ("G", cpu.g_const, gpu.g_const),
                ("eps2", cpu.eps2, gpu.eps2),
                ("drag", cpu.drag, gpu.drag),
                ("stiffness", cpu.stiffness, gpu.stiffness),
                ("resting speed", cpu.resting_speed, gpu.resting_speed),
                ("skin", cpu.skin, gpu.skin),
                ("small radius", cpu.small_radius_max, gpu.small_radius_max),
                ("guard speed", cpu.guard.1, gpu.guard_speed),
                ("guard accel", cpu.guard.2, gpu.guard_accel),
                ("guard distance", cpu.guard.3, gpu.guard_distance),
            ] {
                assert_eq!(bits(c), bits(g), "{name}: {what}");
            }
            assert_eq!(
                cpu.guard.0.to_array(),
                gpu.guard_centre,
                "{name}: guard centre"
            );
            assert_eq!(cpu.table_size, gpu.table_size, "{name}");
            let c = cpu.collide(7, 0.3, 2.0);
            assert_eq!((bits(c.dt), bits(c.skin)), (bits(cpu.dt), bits(cpu.skin)));
            assert_eq!(bits(c.inv_cell_edge), bits(0.3f32.recip()));
        }
    }
}
