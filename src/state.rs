//! Host-side copy of the sphere state, in input order.

use glam::{DQuat, DVec3};

/// The state of every sphere at one instant, in input order (index = sphere id), widened to f64.
///
/// This is what a backend hands back for snapshots and the final state; the CSV columns
/// `id,x,y,z,vx,vy,vz,radius,mass,wx,wy,wz` are read from it.
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
    /// Angular velocities ω, rad/s (empty: all zero, as a backend without rotation gives).
    pub angular_velocity: Vec<DVec3>,
    /// Orientations, unit quaternions turned by ω from the identity at step 0 (empty: all the
    /// identity).
    pub orientation: Vec<DQuat>,
    /// Periodic images: box lengths each sphere has crossed per axis, so that its unwrapped
    /// centre is `position + image × (max − min)` (empty: no periodic axis).
    pub image: Vec<[i32; 3]>,
    /// Each sphere's id (empty: sphere `i` has id `i`). Outflows remove spheres; those that
    /// stay keep the id they started with, so an id names one sphere for the whole run.
    pub id: Vec<u64>,
}

impl Snapshot {
    /// Makes this snapshot one of `n` spheres at `step` and `time` with these radii and masses,
    /// keeping its allocations: positions and velocities are zeroed, angular velocities and
    /// orientations zeroed (identity) when `rotation`, else emptied. For the backends'
    /// `snapshot_into`, which then write the state in place.
    pub(crate) fn reset(
        &mut self,
        step: u64,
        time: f64,
        radius: &[f64],
        mass: &[f64],
        rotation: bool,
    ) {
        let n = radius.len();
        self.step = step;
        self.time = time;
        fn fill<T: Copy>(v: &mut Vec<T>, n: usize, x: T) {
            v.clear();
            v.resize(n, x);
        }
        fill(&mut self.position, n, DVec3::ZERO);
        fill(&mut self.velocity, n, DVec3::ZERO);
        self.radius.clear();
        self.radius.extend_from_slice(radius);
        self.mass.clear();
        self.mass.extend_from_slice(mass);
        self.image.clear();
        self.id.clear();
        if rotation {
            fill(&mut self.angular_velocity, n, DVec3::ZERO);
            fill(&mut self.orientation, n, DQuat::IDENTITY);
        } else {
            self.angular_velocity.clear();
            self.orientation.clear();
        }
    }

    /// The id of sphere `i` (its index unless outflows removed spheres before it).
    pub fn id_of(&self, i: usize) -> u64 {
        self.id.get(i).copied().unwrap_or(i as u64)
    }

    /// Number of spheres.
    pub fn len(&self) -> usize {
        self.position.len()
    }

    /// True when there are no spheres.
    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }

    /// Angular velocity of sphere `i`, rad/s (zero when the snapshot holds none).
    pub fn angular_velocity_of(&self, i: usize) -> DVec3 {
        self.angular_velocity.get(i).copied().unwrap_or(DVec3::ZERO)
    }

    /// Largest distance between matching centres (m) and largest difference between matching
    /// velocities (m/s) of two snapshots of the same spheres; spheres beyond the shorter
    /// snapshot are not compared.
    pub fn max_difference(&self, other: &Snapshot) -> (f64, f64) {
        fn largest(a: &[DVec3], b: &[DVec3]) -> f64 {
            a.iter()
                .zip(b)
                .map(|(p, q)| (*p - *q).length())
                .fold(0.0, f64::max)
        }
        (
            largest(&self.position, &other.position),
            largest(&self.velocity, &other.velocity),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_difference_takes_the_largest_distance_per_quantity() {
        let a = Snapshot {
            position: vec![DVec3::ZERO, DVec3::new(1.0, 0.0, 0.0)],
            velocity: vec![DVec3::ZERO, DVec3::ZERO],
            ..Default::default()
        };
        let mut b = a.clone();
        b.position[0] = DVec3::new(0.0, 3.0, 4.0);
        b.position[1] = DVec3::new(1.0, 1.0, 0.0);
        b.velocity[1] = DVec3::new(0.0, 0.0, -2.0);
        assert_eq!(a.max_difference(&b), (5.0, 2.0));
        assert_eq!(b.max_difference(&a), (5.0, 2.0));
        assert_eq!(a.max_difference(&a), (0.0, 0.0));
    }
}
