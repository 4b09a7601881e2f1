//! Cell moments and their pull, for the Barnes–Hut tree (docs/gravity-tree.md).
//!
//! A cell of the tree stands for its bodies by their mass M, centre of mass c and traceless
//! quadrupole `Q = Σ m (3 r rᵀ − |r|² I)` about c (kg m², r = x − c, m). Seen from a point at
//! separation `d = c − x` the expansion to quadrupole order is (L. Hernquist, "Performance
//! characteristics of tree codes", ApJS 64, 715, 1987, §2; any text on the Cartesian multipole
//! expansion gives the same terms)
//!
//! `Φ = −G (M / r + ½ dᵀQd / r⁵)`, `a = G (M d / r³ − Q d / r⁵ + (5/2) (dᵀQd) d / r⁷)`,
//!
//! where the tree replaces `r²` by the Plummer-softened `|d|² + ε²`, so that the monopole term is
//! the direct sum's [`softened_pull`](crate::physics::gravity::softened_pull) exactly. The
//! softened quadrupole is an approximation, of order ε² relative to the quadrupole term itself.

use crate::Real;

/// Traceless symmetric quadrupole, kg m², as `[xx, yy, zz, xy, xz, yz]`.
pub type Quadrupole<R> = [R; 6];

/// `Q d` for the quadrupole `q` ([`Quadrupole`]) and a vector `d`.
#[inline(always)]
pub fn quadrupole_times<R: Real>(q: &Quadrupole<R>, d: R::V3) -> R::V3 {
    let [x, y, z] = R::comps(d);
    R::vec(
        q[0] * x + q[3] * y + q[4] * z,
        q[3] * x + q[1] * y + q[5] * z,
        q[4] * x + q[5] * y + q[2] * z,
    )
}

/// Adds the quadrupole of a mass `m` (kg) at offset `r` (m) from the centre, `m (3 r rᵀ − |r|² I)`,
/// to `q`: the parallel-axis shift that combines two children's moments into their parent's.
#[inline(always)]
pub fn add_point_quadrupole<R: Real>(q: &mut Quadrupole<R>, m: R, r: R::V3) {
    let [x, y, z] = R::comps(r);
    let r2 = R::dot(r, r);
    let three = R::of(3.0);
    q[0] += m * (three * x * x - r2);
    q[1] += m * (three * y * y - r2);
    q[2] += m * (three * z * z - r2);
    q[3] += m * (three * x * y);
    q[4] += m * (three * x * z);
    q[5] += m * (three * y * z);
}

/// The pull of a cell without the constant G, m⁻² kg (multiply by G for m/s²):
/// `M d / s³ − Q d / s⁵ + (5/2) (dᵀQd) d / s⁷`, with `s² = |d|² + ε²` (module docs), `d` = centre
/// of mass − target (m), `m` = M (kg), `q` = Q (kg m²), `eps2` = ε² (m²). Zero when `s² = 0`.
#[inline(always)]
pub fn multipole_pull<R: Real>(d: R::V3, m: R, q: &Quadrupole<R>, eps2: R) -> R::V3 {
    let [dx, dy, dz] = R::comps(d);
    let [x, y, z] = multipole_pull_xyz::<R>(dx, dy, dz, m, q, eps2);
    R::vec(x, y, z)
}

/// [`multipole_pull`] on components, for loops that run over many targets at once (the
/// compiler vectorises across targets): `d = (dx, dy, dz)`, `q` as [`Quadrupole`], returns the
/// pull's components. The same operations in the same order as [`multipole_pull`]; a zero
/// `s²` gives zero by a select rather than a branch.
#[inline(always)]
pub fn multipole_pull_xyz<R: Real>(
    dx: R,
    dy: R,
    dz: R,
    m: R,
    q: &Quadrupole<R>,
    eps2: R,
) -> [R; 3] {
    let s2 = dx * dx + dy * dy + dz * dz + eps2;
    let inv_s = if s2 > R::zero() {
        s2.sqrt().recip()
    } else {
        R::zero()
    };
    let inv_s2 = inv_s * inv_s;
    let inv_s3 = inv_s * inv_s2;
    let inv_s5 = inv_s3 * inv_s2;
    let qx = q[0] * dx + q[3] * dy + q[4] * dz;
    let qy = q[3] * dx + q[1] * dy + q[5] * dz;
    let qz = q[4] * dx + q[5] * dy + q[2] * dz;
    let dqd = dx * qx + dy * qy + dz * qz;
    let mono = m * inv_s3;
    let quad = R::of(2.5) * dqd * inv_s5 * inv_s2;
    [
        dx * mono - qx * inv_s5 + dx * quad,
        dy * mono - qy * inv_s5 + dy * quad,
        dz * mono - qz * inv_s5 + dz * quad,
    ]
}

/// The potential of a cell without the constant G, kg m⁻¹ (multiply by G for J/kg):
/// `−(M / s + ½ dᵀQd / s⁵)` (module docs). Zero when `s² = 0`.
#[inline(always)]
pub fn multipole_potential<R: Real>(d: R::V3, m: R, q: &Quadrupole<R>, eps2: R) -> R {
    let s2 = R::dot(d, d) + eps2;
    if s2 <= R::zero() {
        return R::zero();
    }
    let inv_s = s2.sqrt().recip();
    let inv_s2 = inv_s * inv_s;
    let dqd = R::dot(d, quadrupole_times::<R>(q, d));
    -(m * inv_s + R::of(0.5) * dqd * inv_s * inv_s2 * inv_s2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    /// Two equal masses at ±a on z, seen from far up the z axis: the pull toward the centre is
    /// `2m/R² (1 + 3a²/R² + O(a⁴/R⁴))`; the expansion must give the a² term exactly.
    #[test]
    fn the_quadrupole_term_of_a_pair_matches_its_series() {
        let (m, a, big_r) = (2.0_f64, 0.1, 10.0);
        let mut q = [0.0; 6];
        add_point_quadrupole::<f64>(&mut q, m, DVec3::new(0.0, 0.0, a));
        add_point_quadrupole::<f64>(&mut q, m, DVec3::new(0.0, 0.0, -a));
        let pull = multipole_pull::<f64>(DVec3::new(0.0, 0.0, -big_r), 2.0 * m, &q, 0.0);
        let exact = m / (big_r - a).powi(2) + m / (big_r + a).powi(2);
        let series = 2.0 * m / big_r.powi(2) * (1.0 + 3.0 * a * a / (big_r * big_r));
        assert!(
            (-pull.z - series).abs() < 1e-15 * series,
            "{} {series}",
            -pull.z
        );
        // The next term is O(a⁴/R⁴) = 1e-8 relative.
        assert!((-pull.z - exact).abs() < 1e-7 * exact);
        assert!(pull.x.abs() + pull.y.abs() == 0.0);
        let phi = multipole_potential::<f64>(DVec3::new(0.0, 0.0, -big_r), 2.0 * m, &q, 0.0);
        let phi_exact = -(m / (big_r - a) + m / (big_r + a));
        assert!((phi - phi_exact).abs() < 1e-7 * phi_exact.abs());
    }
}
