//! Host-side copy of the sphere state, in input order.

use glam::DVec3;

/// The state of every sphere at one instant, in input order (index = sphere id), widened to f64.
///
/// This is what a backend hands back for snapshots and the final state; the CSV columns
/// `id,x,y,z,vx,vy,vz,radius,mass` are read from it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    /// Step number (0 = initial state).
    pub step: u64,
    /// Simulated time, s.
    pub time: f64,
    /// Centres, m.
    pub position: Vec<DVec3>,
    /// Velocities, m/s.
    pub velocity: Vec<DVec3>,
    /// Radii, m.
    pub radius: Vec<f64>,
    /// Masses, kg (`inf` for fixed spheres that give no mass).
    pub mass: Vec<f64>,
}

impl Snapshot {
    /// Number of spheres.
    pub fn len(&self) -> usize {
        self.position.len()
    }

    /// True when there are no spheres.
    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }
}
