//! Diagnostics of a state: energies, momenta, contact and collision counts.

use glam::DVec3;

/// Whole-system diagnostics at one instant (all in f64, whatever the backend's precision).
///
/// Fixed spheres (infinite mass) are left out of energies and momenta.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Diagnostics {
    /// Step number the diagnostics belong to (0 = initial state).
    pub step: u64,
    /// Simulated time, s.
    pub time: f64,
    /// Kinetic energy Σ ½ m v², J.
    pub kinetic: f64,
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
    ///   `(F_n − F_el) u_n + P_friction`, times dt, every step;
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
    /// Angular momentum about the origin Σ m x × v, kg·m²/s.
    pub angular_momentum: DVec3,
    /// Pairs (sphere–sphere and sphere–plane) touching or overlapping now.
    pub contacts: u64,
    /// Collisions resolved since the start (impulses applied, or soft contacts begun).
    pub collisions: u64,
    /// Contact-steps since the start whose friction history did not fit in the owning sphere's
    /// `cpu::collide::HISTORY_SLOTS` slots (each such contact restarts its tangential spring
    /// with ξ = 0 the next step, which weakens static friction). 0 without friction; more than
    /// 0 only where one sphere owns more than 16 contacts (small spheres crowding a large one).
    pub friction_history_dropped: u64,
}

impl Diagnostics {
    /// Total mechanical energy: kinetic plus all potential energies, J.
    pub fn total_energy(&self) -> f64 {
        self.kinetic + self.potential_uniform + self.potential_gravity + self.potential_spring
    }

    /// Mechanical energy plus the energy dissipated so far, J: constant up to the integration
    /// error when the contacts are the only losses (no drag), for every contact law.
    pub fn energy_balance(&self) -> f64 {
        self.total_energy() + self.dissipated
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
