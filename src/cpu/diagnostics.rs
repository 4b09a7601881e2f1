//! Stage `diagnostics`: energies and momenta by blocked reductions (fixed summation order).
//! Twin of `shaders/diagnostics.wgsl`, where each block is one work-group reduction.

use crate::Real;
use crate::physics::gravity::pair_potential;
use glam::DVec3;
use rayon::prelude::*;

use super::CHUNK;

/// Sums over the spheres, in f64, of one state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sums {
    /// Σ ½ m v², J.
    pub kinetic: f64,
    /// −Σ m g·x, J.
    pub potential_uniform: f64,
    /// Σ m v, kg·m/s.
    pub momentum: DVec3,
    /// Σ m |v|, kg·m/s.
    pub momentum_magnitude_sum: f64,
    /// Σ m x × v, kg·m²/s.
    pub angular_momentum: DVec3,
}

impl Sums {
    fn add(self, o: Sums) -> Sums {
        Sums {
            kinetic: self.kinetic + o.kinetic,
            potential_uniform: self.potential_uniform + o.potential_uniform,
            momentum: self.momentum + o.momentum,
            momentum_magnitude_sum: self.momentum_magnitude_sum + o.momentum_magnitude_sum,
            angular_momentum: self.angular_momentum + o.angular_momentum,
        }
    }
}

/// Kinetic and uniform-field energy, linear and angular momentum and Σ m|v| of the movable spheres
/// (`inv_mass > 0`), with `mass` in kg and `gravity` in m/s². Blocks of [`CHUNK`] spheres are
/// reduced in parallel, then the block sums in order, so the result is the same every run.
pub fn diagnostics<R: Real>(
    position: &[R::V3],
    velocity: &[R::V3],
    mass: &[R],
    inv_mass: &[R],
    gravity: DVec3,
) -> Sums {
    let blocks: Vec<Sums> = position
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(c, xs)| {
            let mut s = Sums::default();
            for (k, &x) in xs.iter().enumerate() {
                let i = c * CHUNK + k;
                if inv_mass[i] == R::zero() {
                    continue;
                }
                let m = mass[i].f64();
                let (x, v) = (R::v3_f64(x), R::v3_f64(velocity[i]));
                s.kinetic += 0.5 * m * v.length_squared();
                s.potential_uniform -= m * gravity.dot(x);
                s.momentum += m * v;
                s.momentum_magnitude_sum += m * v.length();
                s.angular_momentum += m * x.cross(v);
            }
            s
        })
        .collect();
    blocks.into_iter().fold(Sums::default(), Sums::add)
}

/// Rotational kinetic energy Σ ½ I ω² (J) and spin angular momentum Σ I ω (kg·m²/s) of the
/// movable spheres, `I = (2/5) m r²`, in f64, in blocks of [`CHUNK`] then in block order.
pub fn spin_sums<R: Real>(
    spin: &[R::V3],
    radius: &[R],
    mass: &[R],
    inv_mass: &[R],
) -> (f64, DVec3) {
    use crate::physics::rotation::{moment_of_inertia, rotational_energy};
    let blocks: Vec<(f64, DVec3)> = spin
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(c, ws)| {
            let mut s = (0.0, DVec3::ZERO);
            for (k, &w) in ws.iter().enumerate() {
                let i = c * CHUNK + k;
                if inv_mass[i] == R::zero() {
                    continue;
                }
                let (m, r, w) = (mass[i].f64(), radius[i].f64(), R::v3_f64(w));
                s.0 += rotational_energy(m, r, w);
                s.1 += moment_of_inertia(m, r) * w;
            }
            s
        })
        .collect();
    blocks
        .into_iter()
        .fold((0.0, DVec3::ZERO), |a, b| (a.0 + b.0, a.1 + b.1))
}

/// Mutual gravitational potential energy `−G Σ_{i<j} m_i m_j / sqrt(r² + ε²)`, J, in f64 whatever
/// the precision. O(N²). Spheres with a non-finite mass are left out.
pub fn gravity_potential<R: Real>(position: &[R::V3], mass: &[R], g_const: f64, eps2: f64) -> f64 {
    let n = position.len();
    let rows: Vec<f64> = (0..n)
        .into_par_iter()
        .map(|i| {
            let (xi, mi) = (R::v3_f64(position[i]), mass[i].f64());
            if !mi.is_finite() {
                return 0.0;
            }
            let mut u = 0.0;
            for j in i + 1..n {
                let mj = mass[j].f64();
                if mj.is_finite() {
                    let r2 = (R::v3_f64(position[j]) - xi).length_squared();
                    u += pair_potential(r2, mi, mj, g_const, eps2);
                }
            }
            u
        })
        .collect();
    rows.iter().sum()
}
