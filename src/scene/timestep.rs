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
    /// The bodies of that contact.
    pub pair: ContactPair,
}

/// The two bodies of the shortest contact [`Scene::contact_time`] found, by sphere id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContactPair {
    /// Two spheres (the same id twice: the sphere against another of its own kind).
    Spheres(usize, usize),
    /// A sphere against the stiffest wall of a material, taken as flat.
    Wall(usize),
}

impl ContactTime {
    /// The largest time step the rule allows, `t_c / 20`, s.
    pub fn suggested_dt(&self) -> f64 {
        self.duration / STEPS_PER_CONTACT
    }
}

impl Scene {
    /// Shortest contact duration among the scene's contacts, and the bodies of that contact;
    /// `None` for the impulse model (whose contacts take no time) or a scene without movable
    /// spheres.
    ///
    /// * Spring–dashpot: `t_c = π / sqrt(k_n/m*)` (docs/physics.md §2.1, undamped: the shortest)
    ///   with the lightest sphere against its own kind (`m* = m/2`).
    /// * Hertz: `t_c ≈ 2.87 (m*²/(R* E*² v₀))^{1/5}` (docs/physics.md §2.2), the shortest over
    ///   every material pair that can meet, sphere–sphere and sphere–wall: each material's
    ///   lightest, its smallest-`m²/R` and its largest spheres against each other's and
    ///   against every wall material (`shortest_hertz_contact`); at the approach speed
    ///   `v₀ = 2 v_max + sqrt(2 |g| H) + sqrt(4 G M / H)`: twice the largest initial speed, plus a
    ///   fall across the scene's extent H in the uniform field, plus, with mutual gravity, the
    ///   escape speed of the movable mass M from a ball of diameter H (what a sphere gains
    ///   falling in from the edge of a self-gravitating cloud); at least 1 mm/s. Faster impacts
    ///   are shorter (`t_c ∝ v₀^{−1/5}`).
    pub fn contact_time(&self) -> Option<ContactTime> {
        let movable = || self.spheres.iter().filter(|s| !s.fixed);
        let (light_id, light) = self
            .spheres
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.fixed)
            .min_by(|a, b| a.1.mass.total_cmp(&b.1.mass))?;
        match self.sim.contact {
            ContactModel::Impulse => None,
            ContactModel::SpringDashpot => Some(ContactTime {
                duration: spring_dashpot::contact_duration(
                    self.sim.stiffness,
                    0.0,
                    0.5 * light.mass,
                ),
                speed: 0.0,
                pair: ContactPair::Spheres(light_id, light_id),
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
                let (duration, pair) = self.shortest_hertz_contact(speed)?;
                Some(ContactTime {
                    duration,
                    speed,
                    pair,
                })
            }
        }
    }

    /// The shortest Hertz contact duration at approach speed `speed` (m/s) over every pair of
    /// bodies that can meet, and that pair: spheres are grouped by elastic constants (their
    /// material), and each group sends its lightest movable sphere, its movable sphere of
    /// smallest `m²/R` (the shortest contact against a flat wall, `t_c ∝ (m²/R)^{1/5}`), its
    /// largest sphere and its largest fixed sphere. Every two of these meet (one of them
    /// movable; a group's own pair when it has two spheres), and every movable one meets every
    /// wall material, taken as flat (a container's concave inside gives a longer contact).
    fn shortest_hertz_contact(&self, speed: f64) -> Option<(f64, ContactPair)> {
        use std::collections::BTreeMap;
        let compliance = |s: &super::Sphere| s.surface.compliance();
        // Group key: the compliance's bits (what the law sees of a material).
        let mut groups: BTreeMap<u64, (usize, [Option<usize>; 4])> = BTreeMap::new();
        let better = |slot: &mut Option<usize>, i: usize, key: &dyn Fn(usize) -> f64| {
            if slot.is_none_or(|j| key(i) < key(j)) {
                *slot = Some(i);
            }
        };
        let sp = &self.spheres;
        for (i, s) in sp.iter().enumerate() {
            let (count, reps) = groups.entry(compliance(s).to_bits()).or_default();
            *count += 1;
            if s.fixed {
                better(&mut reps[3], i, &|k| -sp[k].radius);
            } else {
                better(&mut reps[0], i, &|k| sp[k].mass);
                better(&mut reps[1], i, &|k| sp[k].mass * sp[k].mass / sp[k].radius);
                better(&mut reps[2], i, &|k| -sp[k].radius);
            }
        }
        // (sphere, its group has two spheres or more)
        let mut reps: Vec<(usize, bool)> = Vec::new();
        for (count, r) in groups.values() {
            for i in r.iter().flatten() {
                if !reps.iter().any(|&(j, _)| j == *i) {
                    reps.push((*i, *count > 1));
                }
            }
        }
        let walls: Vec<f64> = self
            .planes
            .iter()
            .map(|p| p.surface.compliance())
            .chain(self.containers.iter().map(|c| c.surface.compliance()))
            .collect();
        let duration = |w: f64, kappa: f64, c: f64, a: &super::Sphere| {
            hertz::contact_duration(
                (a.inverse_mass() + w).recip(),
                hertz::effective_radius(a.radius.recip(), kappa),
                hertz::effective_modulus(compliance(a), c),
                speed,
            )
        };
        let mut best: Option<(f64, ContactPair)> = None;
        let mut consider = |t: f64, pair: ContactPair| {
            if best.is_none_or(|(b, _)| t < b) {
                best = Some((t, pair));
            }
        };
        for (k, &(i, crowded)) in reps.iter().enumerate() {
            for &(j, _) in &reps[k..] {
                if (sp[i].fixed && sp[j].fixed) || (i == j && !crowded) {
                    continue;
                }
                // `duration` takes the movable body first.
                let (a, b) = if sp[i].fixed {
                    (&sp[j], &sp[i])
                } else {
                    (&sp[i], &sp[j])
                };
                let t = duration(b.inverse_mass(), b.radius.recip(), compliance(b), a);
                consider(t, ContactPair::Spheres(i, j));
            }
            if !sp[i].fixed {
                for &c in &walls {
                    consider(duration(0.0, 0.0, c, &sp[i]), ContactPair::Wall(i));
                }
            }
        }
        best
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
                "dt = {:e} s exceeds t_c/20 = {:.3e} s: the shortest {} contact, {}, lasts \
                 about {:.3e} s{at}, so contacts are resolved in fewer than 20 steps and may \
                 gain energy or pass through; use {} {:.2e} or smaller",
                self.sim.dt,
                dt_max,
                self.sim.contact,
                self.describe_pair(t.pair),
                t.duration,
                crate::naming::Setting::DtValue,
                dt_max
            )
        })
    }

    /// "sphere 3 (steel, r = 0.01 m) against a wall" and the like, for messages.
    fn describe_pair(&self, pair: ContactPair) -> String {
        let sphere = |i: usize| {
            let s = &self.spheres[i];
            let material = s
                .material
                .and_then(|m| self.materials.get(m))
                .map_or("the default material".to_string(), |m| m.name.clone());
            format!("sphere {i} ({material}, r = {} m)", s.radius)
        };
        match pair {
            ContactPair::Spheres(i, j) if i == j => {
                format!("{} against another of its kind", sphere(i))
            }
            ContactPair::Spheres(i, j) => format!("{} against {}", sphere(i), sphere(j)),
            ContactPair::Wall(i) => format!("{} against a wall", sphere(i)),
        }
    }
}
