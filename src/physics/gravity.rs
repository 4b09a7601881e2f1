//! Newtonian gravity, Plummer-softened (docs/physics.md §3).

use crate::Real;

/// Acceleration of body i due to body j, m/s²:
/// `a = G m_j d / (|d|² + ε²)^{3/2}` with `d = x_j − x_i` (m), `m_j` in kg, `g_const` = G in
/// m³ kg⁻¹ s⁻², `eps2` = ε² in m². Zero when `|d|² + ε² = 0` (a body and itself).
/// `G` times [`softened_pull`].
#[inline(always)]
pub fn softened_acceleration<R: Real>(d: R::V3, m_j: R, g_const: R, eps2: R) -> R::V3 {
    softened_pull::<R>(d, m_j, eps2) * g_const
}

/// The pull of body j on body i without the constant G, kg m⁻²:
/// `m_j d / (|d|² + ε²)^{3/2}` (Plummer softening; `d = x_j − x_i` in m, `m_j` in kg, `eps2` =
/// ε² in m²), zero when `|d|² + ε² = 0`. A direct sum adds these and multiplies by G once, as
/// the CUDA n-body kernel does (L. Nyland, M. Harris, J. Prins, GPU Gems 3 ch. 31, eq. 3).
#[inline(always)]
pub fn softened_pull<R: Real>(d: R::V3, m_j: R, eps2: R) -> R::V3 {
    let [dx, dy, dz] = R::comps(d);
    let [x, y, z] = softened_pull_xyz::<R>(dx, dy, dz, m_j, eps2);
    R::vec(x, y, z)
}

/// [`softened_pull`] on components, for loops over many targets at once that the compiler
/// vectorises across targets (the tree's group sums): `d = (dx, dy, dz)` m, returns the pull's
/// components. A zero `|d|² + ε²` gives zero by a select rather than a branch.
#[inline(always)]
pub fn softened_pull_xyz<R: Real>(dx: R, dy: R, dz: R, m_j: R, eps2: R) -> [R; 3] {
    let r2 = dx * dx + dy * dy + dz * dz + eps2;
    let inv_r = if r2 > R::zero() {
        r2.sqrt().recip()
    } else {
        R::zero()
    };
    let f = m_j * (inv_r * inv_r * inv_r);
    [dx * f, dy * f, dz * f]
}

/// Softened pair potential energy `U = −G m_i m_j / sqrt(r² + ε²)`, J (0 when r² + ε² = 0).
#[inline(always)]
pub fn pair_potential(r2: f64, m_i: f64, m_j: f64, g_const: f64, eps2: f64) -> f64 {
    let s = r2 + eps2;
    if s == 0.0 {
        0.0
    } else {
        -g_const * m_i * m_j / s.sqrt()
    }
}

/// Speed of a circular orbit of radius `r` (m) about a mass `m` (kg): `v = sqrt(G m / r)`, m/s.
pub fn circular_speed(g_const: f64, m: f64, r: f64) -> f64 {
    (g_const * m / r).sqrt()
}

/// Period of a circular orbit of radius `r` (m) about total mass `m` (kg):
/// `T = 2π sqrt(r³ / (G m))`, s.
pub fn circular_period(g_const: f64, m: f64, r: f64) -> f64 {
    std::f64::consts::TAU * (r * r * r / (g_const * m)).sqrt()
}
