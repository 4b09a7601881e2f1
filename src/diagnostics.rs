//! Diagnostics of a state: energies, momenta, contact and collision counts.

use glam::DVec3;

/// Whole-system diagnostics at one instant (all in f64, whatever the backend's precision).
///
/// Fixed spheres (infinite mass) are left out of energies and momenta.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Diagnostics {
    /// Step number the diagnostics belong to (0 = initial state).
    pub step: u64,
    /// Simulated time, s.
    pub time: f64,
    /// Kinetic energy Σ ½ m v², J.
    pub kinetic: f64,
    /// Rotational kinetic energy Σ ½ I ω², I = (2/5) m r², J (0 without rotation).
    pub kinetic_rotational: f64,
    /// Potential energy in the uniform field, −Σ m g·x, J.
    pub potential_uniform: f64,
    /// Mutual gravitational potential energy −G Σ_{i<j} m_i m_j / sqrt(r² + ε²), J.
    pub potential_gravity: f64,
    /// Elastic energy stored in soft contacts, J: Σ ½ k_n δ² (spring–dashpot) or
    /// Σ (2/5) k₀ δ^{5/2} (Hertz).
    pub potential_spring: f64,
    /// Energy taken out by the contacts since the start, J, so that kinetic + potential +
    /// elastic + dissipated ([`Diagnostics::energy_balance`]) stays constant (docs/physics.md
    /// §4.3):
    ///
    /// * soft contact (spring–dashpot, Hertz): the power of the normal dashpot and of friction,
    ///   `(F_n − F_el) u_n + P_friction`, times dt, every step, less the work of a plane whose
    ///   surface moves (`F·V`, docs/physics.md §2.4), so that it can fall;
    /// * impulses (CPU and GPU): every contact round books, for each movable sphere, minus
    ///   [`crate::cpu::collide::impulse_energy_change`] of the velocity and position changes the
    ///   round applies. For a binary collision of movable spheres that is exactly the kinetic
    ///   energy lost, `½ μ (1 − e²) u_n²` (μ = m_a m_b/(m_a + m_b) the reduced mass, m against
    ///   a fixed sphere or a wall; u_n the normal approach speed; e = 0 below the resting
    ///   speed); with mass splitting, pushes and wall projection it counts what the velocities
    ///   and positions really do;
    /// * impulses (event-driven solver): `K_before − K_after` of every collision, and the normal
    ///   kinetic energy removed when a sphere settles into resting contact on a plane.
    ///
    /// Not counted: Stokes drag's losses, and under mutual gravity the work of the impulse
    /// model's position corrections.
    pub dissipated: f64,
    /// Linear momentum Σ m v, kg·m/s.
    pub momentum: DVec3,
    /// Sum of the magnitudes of the spheres' momenta Σ m |v|, kg·m/s: the scale against which
    /// a change of [`Diagnostics::momentum`] is measured
    /// ([`Diagnostics::momentum_change_relative`]).
    pub momentum_magnitude_sum: f64,
    /// Angular momentum about the origin, orbital plus spin: Σ (m x × v + I ω), kg·m²/s.
    pub angular_momentum: DVec3,
    /// Pairs (sphere–sphere and sphere–plane) touching or overlapping now.
    pub contacts: u64,
    /// Collisions resolved since the start (impulses applied, or soft contacts begun).
    pub collisions: u64,
    /// Contact-steps since the start whose friction history was lost: 0, since both backends
    /// keep every contact's history on their neighbour lists (kept for the stats contract).
    pub friction_history_dropped: u64,
    /// Times since the start that the contact candidates were rebuilt from the grid: the
    /// neighbour-list rebuilds (see `cpu::neighbours`; the GPU's soft laws rebuild at the same
    /// steps, its impulse model every step); 0 for the event solver.
    pub neighbour_rebuilds: u64,
    /// Spheres removed by outflows since the start (`[[outflow]]`; 0 without).
    #[serde(default)]
    pub removed_spheres: u64,
    /// Their mass, kg.
    #[serde(default)]
    pub removed_mass: f64,
    /// The mechanical energy they took with them, J: at each outflow pass, the total energy
    /// ([`Diagnostics::total_energy`]) just before it less the total of the spheres that stay,
    /// so that their kinetic and potential energies, and the elastic energy of their contacts,
    /// stay in [`Diagnostics::energy_balance`].
    #[serde(default)]
    pub removed_energy: f64,
    /// Spheres the insertions placed since the start (`[[insert]]`; 0 without).
    #[serde(default)]
    pub inserted_spheres: u64,
    /// Their mass, kg.
    #[serde(default)]
    pub inserted_mass: f64,
    /// The mechanical energy they brought in, J: kinetic and in the uniform field, at their
    /// pass (a new sphere touches nothing).
    #[serde(default)]
    pub inserted_energy: f64,
    /// Spheres the insertions could not place (no free spot in their region).
    #[serde(default)]
    pub insertion_failures: u64,
}

/// The force the spheres exert on each of `walls` walls, N, from the force each wall exerts on
/// each sphere (`forces`, sphere by sphere in the backend's sorted order, `walls` values a
/// sphere, in the order of the scene's planes and then its containers): minus their sum over
/// the spheres, in f64 and in that order, so that two backends holding the same forces in the
/// same order report the same bits. Empty when `walls` is 0.
pub fn wall_force_sums(forces: impl Iterator<Item = DVec3>, walls: usize) -> Vec<DVec3> {
    let mut sum = vec![DVec3::ZERO; walls];
    if walls > 0 {
        for (k, f) in forces.enumerate() {
            sum[k % walls] -= f;
        }
    }
    sum
}

impl Diagnostics {
    /// Total mechanical energy: kinetic (translational and rotational) plus all potential
    /// energies, J.
    pub fn total_energy(&self) -> f64 {
        self.kinetic
            + self.kinetic_rotational
            + self.potential_uniform
            + self.potential_gravity
            + self.potential_spring
    }

    /// Mechanical energy plus the energy dissipated so far and the energy outflows took out,
    /// less the energy insertions brought in, J: constant up to the integration error when the contacts are the only losses (no
    /// drag), for every contact law.
    pub fn energy_balance(&self) -> f64 {
        self.total_energy() + self.dissipated + self.removed_energy - self.inserted_energy
    }

    /// The size of the energies in play, J: `K + |U_uniform| + |U_gravity| + U_elastic`. The
    /// scale for relative energy changes, since the total itself can be near zero (a bound
    /// orbit, where U ≈ −2K) or arbitrarily large (the uniform field's potential depends on
    /// where the origin is; here only its present size enters).
    pub fn energy_scale(&self) -> f64 {
        self.kinetic
            + self.kinetic_rotational
            + self.potential_uniform.abs()
            + self.potential_gravity.abs()
            + self.potential_spring.abs()
    }

    /// Change of [`Diagnostics::energy_balance`] (mechanical energy plus dissipated) since
    /// `initial`, relative to the larger [`Diagnostics::energy_scale`] of the two states; 0
    /// when both scales are 0. The integration error of the run for every contact law (drag
    /// aside).
    pub fn energy_balance_change_relative(&self, initial: &Diagnostics) -> f64 {
        let scale = initial.energy_scale().max(self.energy_scale());
        if scale > 0.0 {
            (self.energy_balance() - initial.energy_balance()) / scale
        } else {
            0.0
        }
    }

    /// Change of the linear momentum since `initial`, relative to the momenta present:
    /// `|P − P_initial| / max(Σ m|v| initial, Σ m|v| now)`
    /// ([`Diagnostics::momentum_magnitude_sum`]).
    ///
    /// Dividing by `|P_initial|` blows up where the total momentum is near zero (orbits about a
    /// common centre of mass, a gas at rest on average) although every collision conserves
    /// momentum to rounding; Σ m|v| is the size of the momenta that rounding acts on. The
    /// larger of the initial and final sums keeps the figure finite when the system starts or
    /// ends at rest. 0 when both sums are 0 (then every sphere is at rest and both momenta are
    /// 0). Fixed spheres are left out, as from the momentum. Only meaningful without external
    /// forces (a uniform field, walls and fixed spheres change P).
    pub fn momentum_change_relative(&self, initial: &Diagnostics) -> f64 {
        let scale = initial
            .momentum_magnitude_sum
            .max(self.momentum_magnitude_sum);
        if scale > 0.0 {
            (self.momentum - initial.momentum).length() / scale
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A circular orbit with U = −2K has total E = −K; a stationary pair (K = U = 0) has none.
    #[test]
    fn energy_change_is_relative_to_the_energies_in_play() {
        let d0 = Diagnostics {
            kinetic: 1.0,
            potential_gravity: -2.0,
            ..Default::default()
        };
        assert_eq!(d0.energy_scale(), 3.0);
        let d1 = Diagnostics {
            kinetic: 1.5,
            potential_gravity: -2.4,
            dissipated: 0.0,
            ..Default::default()
        };
        // Balance −1 → −0.9 over a scale of max(3, 3.9) = 3.9.
        let rel = d1.energy_balance_change_relative(&d0);
        assert!((rel - 0.1 / 3.9).abs() < 1e-15, "{rel}");
        // Energy moved to the ledger is no change.
        let d2 = Diagnostics {
            kinetic: 0.5,
            potential_gravity: -2.0,
            dissipated: 0.5,
            ..Default::default()
        };
        assert_eq!(d2.energy_balance_change_relative(&d0), 0.0);
        let rest = Diagnostics::default();
        assert_eq!(rest.energy_balance_change_relative(&rest), 0.0);
    }
}
