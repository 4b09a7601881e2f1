//! The time step a soft contact law needs: the contact duration of the scene's stiffest,
//! lightest contact, and the `dt ≤ t_c / 20` rule of docs/physics.md §2.1.

use super::{ContactModel, Scene};
use crate::physics::{hertz, spring_dashpot};

/// Steps per contact duration the engine asks for: `dt ≤ t_c / STEPS_PER_CONTACT`
/// (docs/physics.md §2.1).
pub const STEPS_PER_CONTACT: f64 = 20.0;

/// Estimated shortest contact duration of a scene with a soft contact law.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactTime {
    /// Contact duration t_c, s.
    pub duration: f64,
    /// Approach speed the estimate assumes, m/s (Hertz only; the linear spring's duration does
    /// not depend on it).
    pub speed: f64,
}

impl ContactTime {
    /// The largest time step the rule allows, `t_c / 20`, s.
    pub fn suggested_dt(&self) -> f64 {
        self.duration / STEPS_PER_CONTACT
    }
}

impl Scene {
    /// Shortest contact duration among the scene's contacts, estimated from its lightest movable
    /// sphere and its stiffest bodies; `None` for the impulse model (whose contacts take no
    /// time) or a scene without movable spheres.
    ///
    /// * Spring–dashpot: `t_c = π / sqrt(k_n/m*)` (docs/physics.md §2.1, undamped: the shortest)
    ///   with the lightest sphere against its own kind (`m* = m/2`).
    /// * Hertz: `t_c ≈ 2.87 (m*²/(R* E*² v₀))^{1/5}` (docs/physics.md §2.2), the shortest of the
    ///   lightest sphere against its own kind, against the stiffest sphere (smallest
    ///   `(1 − ν²)/E`) and against the stiffest wall, and of the stiffest sphere against its own
    ///   kind when there are two; at the approach speed
    ///   `v₀ = 2 v_max + sqrt(2 |g| H) + sqrt(4 G M / H)`: twice the largest initial speed, plus a
    ///   fall across the scene's extent H in the uniform field, plus, with mutual gravity, the
    ///   escape speed of the movable mass M from a ball of diameter H (what a sphere gains
    ///   falling in from the edge of a self-gravitating cloud); at least 1 mm/s. Faster impacts
    ///   are shorter (`t_c ∝ v₀^{−1/5}`).
    pub fn contact_time(&self) -> Option<ContactTime> {
        let movable = || self.spheres.iter().filter(|s| !s.fixed);
        let light = movable().min_by(|a, b| a.mass.total_cmp(&b.mass))?;
        match self.sim.contact {
            ContactModel::Impulse => None,
            ContactModel::SpringDashpot => Some(ContactTime {
                duration: spring_dashpot::contact_duration(
                    self.sim.stiffness,
                    0.0,
                    0.5 * light.mass,
                ),
                speed: 0.0,
            }),
            ContactModel::Hertz => {
                let v_max = movable().map(|s| s.velocity.length()).fold(0.0, f64::max);
                let height = self
                    .bounds()
                    .map_or(0.0, |(lo, hi)| (hi - lo).max_element());
                let infall = if self.sim.g_const > 0.0 && height > 0.0 {
                    let mass: f64 = movable().map(|s| s.mass).sum();
                    (4.0 * self.sim.g_const * mass / height).sqrt()
                } else {
                    0.0
                };
                let speed =
                    (2.0 * v_max + (2.0 * self.sim.gravity.length() * height).sqrt() + infall)
                        .max(1e-3);
                let compliance = |s: &super::Sphere| s.surface.compliance();
                let stiff = self
                    .spheres
                    .iter()
                    .min_by(|a, b| compliance(a).total_cmp(&compliance(b)))?;
                let inverse_mass = |s: &super::Sphere| if s.fixed { 0.0 } else { s.mass.recip() };
                // (m*, R*, E*) of sphere `a` against a body of inverse mass `w` (kg⁻¹),
                // curvature `kappa` (m⁻¹) and compliance `c` (Pa⁻¹).
                let pair = |a: &super::Sphere, w: f64, kappa: f64, c: f64| {
                    (
                        (inverse_mass(a) + w).recip(),
                        hertz::effective_radius(a.radius.recip(), kappa),
                        hertz::effective_modulus(compliance(a), c),
                    )
                };
                let spheres = |a: &super::Sphere, b: &super::Sphere| {
                    pair(a, inverse_mass(b), b.radius.recip(), compliance(b))
                };
                let mut pairs = vec![spheres(light, light), spheres(light, stiff)];
                let n_stiff = self
                    .spheres
                    .iter()
                    .filter(|s| compliance(s) == compliance(stiff))
                    .count();
                if n_stiff > 1 && !stiff.fixed {
                    pairs.push(spheres(stiff, stiff));
                }
                // The stiffest wall, taken as flat (curvature 0): a container's concave inside
                // gives a larger R* and a longer contact.
                let wall = self
                    .planes
                    .iter()
                    .map(|p| p.surface.compliance())
                    .chain(self.containers.iter().map(|c| c.surface.compliance()))
                    .fold(f64::INFINITY, f64::min);
                if wall.is_finite() {
                    pairs.push(pair(light, 0.0, 0.0, wall));
                }
                let duration = pairs
                    .into_iter()
                    .map(|(m, r, e)| hertz::contact_duration(m, r, e, speed))
                    .fold(f64::INFINITY, f64::min);
                Some(ContactTime { duration, speed })
            }
        }
    }

    /// A warning when `dt` exceeds `t_c / 20` ([`Scene::contact_time`]), naming both and the
    /// suggested step; `None` when dt is small enough or the law is the impulse model.
    pub fn time_step_warning(&self) -> Option<String> {
        let t = self.contact_time()?;
        let dt_max = t.suggested_dt();
        (self.sim.dt > dt_max).then(|| {
            let at = if self.sim.contact == ContactModel::Hertz {
                format!(" at an approach speed of {:.3} m/s", t.speed)
            } else {
                String::new()
            };
            format!(
                "dt = {:e} s exceeds t_c/20 = {:.3e} s: the shortest {} contact lasts about \
                 {:.3e} s{at}, so contacts are resolved in fewer than 20 steps and may gain \
                 energy or pass through; use --dt {:.2e} or smaller",
                self.sim.dt, dt_max, self.sim.contact, t.duration, dt_max
            )
        })
    }
}
