//! Coulomb friction with a tangential spring (docs/physics.md §2.3), in the manner of P. A. Cundall
//! and O. D. L. Strack, "A discrete numerical model for granular assemblies", Géotechnique 29
//! (1979) 47.
//!
//! Each contact keeps the tangential displacement ξ of b relative to a since it began (the
//! contact history, kept on the neighbour list's entry of the pair). Every step ξ is projected onto
//! the current tangent plane and advanced by the slip `v_t dt`; the trial force on b,
//! `F_t = −k_t ξ − c_t v_t`, is capped at Coulomb's `μ |F_n|`, and when it is, ξ is shortened
//! to match the capped force (the spring slides). A spring, unlike a purely viscous law, holds
//! a contact loaded sideways below the Coulomb limit at rest: a wall of spheres stands on a
//! floor instead of creeping.
//!
//! Choices, documented in docs/physics.md §2.3:
//! * `k_t = (2/7) k_n'`, with `k_n'` the normal contact stiffness (`k_n`, or `(3/2) k₀ δ^{1/2}`
//!   for Hertz): the ratio that gives tangential and normal oscillations the same period for a
//!   solid sphere (Schäfer, Dippel and Wolf, J. Phys. I France 6 (1996) 5);
//! * `c_t = 2 ζ sqrt(k_t m*)`, ζ the damping ratio of the pair's restitution
//!   (`physics::spring_dashpot::damping_ratio`), so e = 1 has no tangential damping;
//! * pair friction coefficient: the smaller of the two bodies' μ.
//!
//! Without rotation (the default) the slip is the relative velocity of the centres, so a sphere
//! sliding on a floor decelerates at μg until it stops; with it the slip is the contact point's
//! and the sphere starts to roll (`physics::rotation`, docs/physics.md §2.6).

use crate::Real;

/// `k_t / k_n'`: the tangential spring's stiffness as a fraction of the normal contact stiffness
/// (Schäfer, Dippel and Wolf 1996).
pub const TANGENTIAL_STIFFNESS_RATIO: f64 = 2.0 / 7.0;

/// Pair friction coefficient: the smaller of the two bodies' μ (a frictionless surface makes
/// the contact frictionless; the same rule as the pair restitution).
#[inline(always)]
pub fn pair_friction<R: Real>(mu_a: R, mu_b: R) -> R {
    mu_a.min(mu_b)
}

/// One step of the tangential spring of a contact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tangential<V, R> {
    /// Friction force on b, N.
    pub force: V,
    /// Tangential displacement ξ to keep for the next step, m.
    pub xi: V,
    /// Elastic energy of the tangential spring `½ k_t |ξ|²`, J.
    pub energy: R,
    /// Power the friction takes out of kinetic plus spring energy this step, W (≥ 0 up to
    /// rounding: dashpot and sliding losses).
    pub power: R,
}

/// Advances the tangential spring of a contact by one step `dt` (s) and returns its force.
///
/// * `xi_old` — ξ kept from the last step (m; zero for a new contact);
/// * `n` — unit contact normal (a to b); `v_t` — slip velocity of b relative to a, tangential
///   to `n` (m/s);
/// * `k_t` — tangential stiffness (N/m) now, `k_t_old` — at the last step (it follows the
///   normal stiffness, which changes with the overlap for Hertz), `c_t` — tangential dashpot
///   (N·s/m);
/// * `f_n` — normal force magnitude (N, ≥ 0), `mu` — friction coefficient.
///
/// Without friction (`μ f_n = 0`) the force and ξ are zero.
///
/// The power is `−F_t·v_t − (½ k_t |ξ|² − ½ k_t,old |ξ_old|²)/dt`: the dashpot's and the
/// sliding's losses, less the energy a stiffening spring gains at fixed ξ (the variable
/// stiffness is not conservative). The energy ledger does not use `energy` and `power`: it books
/// the friction's whole work on the slip, `−F_t·v_t`, since a spring that holds energy when its
/// contact opens never returns it (see `cpu::collide::soft_contact`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn tangential_spring<R: Real>(
    xi_old: R::V3,
    n: R::V3,
    v_t: R::V3,
    k_t: R,
    k_t_old: R,
    c_t: R,
    f_n: R,
    mu: R,
    dt: R,
) -> Tangential<R::V3, R> {
    let cap = mu * f_n;
    if cap <= R::zero() || k_t <= R::zero() {
        return Tangential {
            force: R::zero3(),
            xi: R::zero3(),
            energy: R::zero(),
            power: R::zero(),
        };
    }
    // The contact may have turned since the last step: keep ξ in the tangent plane.
    let xi_tangent = xi_old - n * R::dot(xi_old, n);
    let energy_old = R::of(0.5) * k_t_old * R::norm2(xi_tangent);
    let mut xi = xi_tangent + v_t * dt;
    let mut force = -(xi * k_t) - v_t * c_t;
    let f2 = R::norm2(force);
    if f2 > cap * cap {
        force = force * (cap / f2.sqrt());
        xi = -(force + v_t * c_t) / k_t;
    }
    let energy = R::of(0.5) * k_t * R::norm2(xi);
    // Work of the force on the slip, less what the spring stored.
    let power = -R::dot(force, v_t) - (energy - energy_old) / dt;
    Tangential {
        force,
        xi,
        energy,
        power,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    #[test]
    fn sticks_below_the_coulomb_limit_and_slides_above() {
        let (n, k, dt) = (DVec3::Y, 1000.0, 1e-3);
        // Stuck: ξ grows by the slip, the spring pulls back.
        let s = tangential_spring::<f64>(DVec3::ZERO, n, DVec3::X * 0.01, k, k, 0.0, 10.0, 0.5, dt);
        assert_eq!(s.xi, DVec3::X * 1e-5);
        assert!(
            (s.force - DVec3::X * -0.01).length() < 1e-15,
            "{:?}",
            s.force
        );
        // A pure spring stores energy; the ledger books the force at the end of the step, so
        // it shows a first-order loss of ½ k |v_t|² dt, no more.
        let first_order = 0.5 * k * 0.01 * 0.01 * dt;
        assert!(
            (s.power - first_order).abs() < 1e-15,
            "{} vs {first_order}",
            s.power
        );
        // Sliding: capped at μ f_n = 5 N, opposing the slip; ξ shortened to match.
        let s = tangential_spring::<f64>(DVec3::X * 1.0, n, DVec3::X, k, k, 0.0, 10.0, 0.5, dt);
        assert!(
            (s.force - DVec3::X * -5.0).length() < 1e-12,
            "{:?}",
            s.force
        );
        assert!((s.xi - DVec3::X * 5e-3).length() < 1e-15);
        assert!(s.power > 0.0);
        // ξ out of the tangent plane is projected back onto it.
        let s = tangential_spring::<f64>(DVec3::Y, n, DVec3::ZERO, k, k, 0.0, 10.0, 0.5, dt);
        // A stiffening spring at rest gains energy; the power says so (negative loss).
        let s2 = tangential_spring::<f64>(
            DVec3::X * 1e-3,
            n,
            DVec3::ZERO,
            2.0 * k,
            k,
            0.0,
            10.0,
            0.5,
            dt,
        );
        assert!(
            (s2.power + 0.5 * k * 1e-6 / dt).abs() < 1e-9,
            "{}",
            s2.power
        );
        assert_eq!(s.xi, DVec3::ZERO);
        // No friction, no force, no memory.
        let s = tangential_spring::<f64>(DVec3::X, n, DVec3::X, k, k, 1.0, 10.0, 0.0, dt);
        assert_eq!((s.force, s.xi), (DVec3::ZERO, DVec3::ZERO));
        assert_eq!(pair_friction(0.3, 0.5), 0.3);
    }
}
