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
    /// Energy taken out by contact damping and friction since the start, J (soft contact; 0
    /// for impulses): kinetic + potential + elastic + dissipated stays constant.
    pub dissipated: f64,
    /// Linear momentum Σ m v, kg·m/s.
    pub momentum: DVec3,
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
    /// error when the soft contacts' damping and friction are the only losses (no drag, no
    /// impulses with e < 1).
    pub fn energy_balance(&self) -> f64 {
        self.total_energy() + self.dissipated
    }
}
