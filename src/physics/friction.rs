//! Coulomb friction, viscously regularised (PHYSICS.md §2.3).
//!
//! Tangential force on b (a gets the opposite), for the slip velocity `v_t` of b relative to a
//! at the contact, tangential to the normal: `F_t = −min(γ_t |v_t|, μ |F_n|) v_t/|v_t|`. This is
//! the law of P. K. Haff and B. T. Werner, "Computer simulation of the mechanical sorting of
//! grains", Powder Technol. 48 (1986) 239 (see T. Pöschel and T. Schwager, "Computational
//! Granular Dynamics", Springer 2005, §2.3): Coulomb's law `|F_t| = μ |F_n|` while sliding, and
//! a viscous law below the slip speed `μ |F_n| / γ_t`, which stands in for static friction.
//! It needs no per-contact history (no tangential spring in the Cundall–Strack manner), so
//! both backends stay stateless; the price is a slow creep, at speed `F/γ_t`, of a contact
//! loaded sideways below the Coulomb limit.
//!
//! Spheres carry no spin in this engine: the slip is the relative velocity of the centres, so
//! a sphere sliding on a floor decelerates at μg until it stops (it never starts to roll).

use crate::Real;

/// Fraction κ of the largest stable viscous coefficient used for γ_t: `γ_t = κ m*/dt`
/// ([`tangential_damping`]). With 12 contacts (close packing) a sphere's velocity update by
/// the viscous law stays below one step's slip for κ ≤ 1/6; 0.1 leaves a margin.
pub const TANGENTIAL_DAMPING_FRACTION: f64 = 0.1;

/// Pair friction coefficient: the smaller of the two bodies' μ (a frictionless surface makes
/// the contact frictionless; the same rule as the pair restitution).
#[inline(always)]
pub fn pair_friction<R: Real>(mu_a: R, mu_b: R) -> R {
    mu_a.min(mu_b)
}

/// Viscous coefficient of the regularisation, `γ_t = κ m*/dt` (N·s/m), for the inverse-mass sum
/// `w_a + w_b = 1/m*` (kg⁻¹) and step `dt` (s); κ = [`TANGENTIAL_DAMPING_FRACTION`].
#[inline(always)]
pub fn tangential_damping<R: Real>(inverse_mass_sum: R, dt: R) -> R {
    R::of(TANGENTIAL_DAMPING_FRACTION) / (inverse_mass_sum * dt)
}

/// Friction force on b, N: `−min(γ_t |v_t|, μ f_n) v_t/|v_t|` for slip velocity `v_t` (m/s, b
/// relative to a, tangential), normal force magnitude `f_n` ≥ 0 (N), friction coefficient `mu`
/// and viscous coefficient `gamma_t` (N·s/m). Zero without slip or normal force.
#[inline(always)]
pub fn friction_force<R: Real>(v_t: R::V3, f_n: R, mu: R, gamma_t: R) -> R::V3 {
    let slip = R::norm2(v_t).sqrt();
    let cap = mu * f_n;
    if slip <= R::zero() || cap <= R::zero() {
        return R::zero3();
    }
    v_t * -(gamma_t.min(cap / slip))
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    #[test]
    fn coulomb_when_sliding_viscous_below() {
        let (mu, f_n, gamma) = (0.5, 10.0, 100.0);
        // Fast slip: capped at μ f_n, opposing the slip.
        let f = friction_force::<f64>(DVec3::new(2.0, 0.0, 0.0), f_n, mu, gamma);
        assert_eq!(f, DVec3::new(-5.0, 0.0, 0.0));
        // Slow slip (below μ f_n / γ = 0.05 m/s): viscous.
        let f = friction_force::<f64>(DVec3::new(0.0, 0.01, 0.0), f_n, mu, gamma);
        assert!((f - DVec3::new(0.0, -1.0, 0.0)).length() < 1e-12, "{f}");
        assert_eq!(
            friction_force::<f64>(DVec3::ZERO, f_n, mu, gamma),
            DVec3::ZERO
        );
        assert_eq!(friction_force::<f64>(DVec3::X, 0.0, mu, gamma), DVec3::ZERO);
        assert_eq!(pair_friction(0.3, 0.5), 0.3);
    }
}
