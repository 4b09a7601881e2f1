//! Hertz elastic contact with hysteresis damping (docs/physics.md §2.2).
//!
//! Normal force on b along n (a on the opposite side), while the overlap δ > 0:
//! `F_n = max(0, k₀ δ^{3/2} [1 + f(e) δ̇/δ̇⁻])` with `k₀ = (4/3) E* sqrt(R*)`,
//! `1/E* = (1 − ν_a²)/E_a + (1 − ν_b²)/E_b`, `1/R* = 1/r_a + 1/r_b`, and δ̇⁻ the approach speed
//! when the contact began, stored per contact. The factor f(e) ([`hysteresis_factor`]) is
//! K. H. Hunt and F. R. E. Crossley's `(3/2)(1 − e)` (J. Appl. Mech. 42 (1975) 440; the form
//! of the "colliding ellipses" seed of docs/physics.md) or P. Flores, M. Machado, M. T. Silva
//! and J. M. Martins's `8(1 − e)/(5e)` (Multibody Syst. Dyn. 25 (2011) 357). Hertz's elastic
//! part after K. L. Johnson, "Contact Mechanics" (1985), §4.2 and §11.
//!
//! **Guard.** A contact that began slowly (a sphere set down on a floor, a wall built touching)
//! stores a small δ̇⁻, and `c = f F_el/δ̇⁻` would make a dashpot that clamps the force to zero
//! whenever the contact opens by a hair, so that friction lets go (a standing wall slumped).
//! The law therefore uses `max(δ̇⁻, impact_speed(now))`: never below the speed whose kinetic
//! energy is the contact's present relative kinetic plus elastic energy. In a binary impact that
//! energy only falls, so the stored δ̇⁻ wins and the law is the source's (the tests below match
//! its RK4 integral); a contact loaded by others gets the bounded damping of that energy. The
//! dashpot coefficient is also capped at `m*/dt`, the one that stops the normal relative velocity
//! in one step without reversing it ([`hysteresis_force`]), for Flores' factor at e → 0.

use crate::Real;
use crate::scene::Damping;

/// Effective modulus `E* = 1 / (c_a + c_b)`, Pa, from the two bodies' compliances
/// `c = (1 − ν²)/E` (Pa⁻¹, see `scene::Surface::compliance`).
#[inline(always)]
pub fn effective_modulus<R: Real>(compliance_a: R, compliance_b: R) -> R {
    (compliance_a + compliance_b).recip()
}

/// Effective radius `R* = 1 / (κ_a + κ_b)`, m, from the two surfaces' curvatures κ = 1/r (m⁻¹):
/// a sphere of radius r has `1/r`, a plane `0`, the inside of a spherical container of radius
/// R_W `−1/R_W` (docs/physics.md §2.2: "use r_b = −R_W").
#[inline(always)]
pub fn effective_radius<R: Real>(curvature_a: R, curvature_b: R) -> R {
    (curvature_a + curvature_b).recip()
}

/// Hertz stiffness `k₀ = (4/3) E* sqrt(R*)`, N/m^{3/2}, for `E*` in Pa and `R*` in m.
#[inline(always)]
pub fn hertz_stiffness<R: Real>(e_star: R, r_star: R) -> R {
    R::of(4.0 / 3.0) * e_star * r_star.sqrt()
}

/// Estimated normal approach speed when the contact began, δ̇⁻ (m/s), from the overlap `δ` (m),
/// the approach speed now `u_n = δ̇` (m/s), `k₀` (N/m^{3/2}) and the inverse-mass sum
/// `w_a + w_b = 1/m*` (kg⁻¹): `sqrt(u_n² + (4/5) k₀ (w_a + w_b) δ^{5/2})`, the energy balance of
/// the undamped contact. Evaluated at a contact's first step (δ ≪ δ_max), where it is the
/// approach speed to within the work of one step's elastic force; stored from then on.
#[inline(always)]
pub fn impact_speed<R: Real>(u_n: R, k0: R, inverse_mass_sum: R, overlap: R) -> R {
    let d52 = overlap * overlap * overlap.sqrt();
    (u_n * u_n + R::of(0.8) * k0 * inverse_mass_sum * d52).sqrt()
}

/// The hysteresis damping factor f(e) of the law `damping` for the restitution `e`:
/// `(3/2)(1 − e)` (Hunt–Crossley 1975) or `8(1 − e)/(5e)` (Flores et al. 2011, eq. 30; infinite
/// at e = 0, where [`hysteresis_force`]'s cap takes over).
#[inline(always)]
pub fn hysteresis_factor<R: Real>(damping: Damping, e: R) -> R {
    match damping {
        Damping::HuntCrossley => R::of(1.5) * (R::one() - e),
        Damping::Flores => R::of(8.0) * (R::one() - e) / (R::of(5.0) * e),
    }
}

/// Hertz force with hysteresis damping on b along n, N: `max(0, F_el + c u_n)` with
/// `F_el = k₀ δ^{3/2}` and the dashpot coefficient `c = min(f F_el / δ̇⁻, m*/dt)` (N·s/m), for
/// `k₀` in N/m^{3/2}, overlap `δ` (m), approach speed `u_n = δ̇` (m/s, > 0 approaching), the
/// factor `f` ([`hysteresis_factor`]), the stored approach speed `impact` = δ̇⁻ (m/s, > 0), the
/// inverse-mass sum `1/m*` (kg⁻¹) and the step `dt` (s). Zero when `δ ≤ 0`; the clamp at 0
/// stops the dashpot pulling at separation; the cap is the module's guard.
#[inline(always)]
pub fn hysteresis_force<R: Real>(
    k0: R,
    overlap: R,
    u_n: R,
    factor: R,
    impact: R,
    inverse_mass_sum: R,
    dt: R,
) -> R {
    if overlap <= R::zero() {
        return R::zero();
    }
    let elastic = k0 * overlap * overlap.sqrt();
    let c = (factor * elastic / impact).min((inverse_mass_sum * dt).recip());
    (elastic + c * u_n).max(R::zero())
}

/// Exit restitution of a Hertz impact under the law `F = k₀ δ^{3/2} [1 + f δ̇/δ̇⁻]` with δ̇⁻ the
/// approach speed, integrated by classical RK4: the law has no scale of its own, so in the units
/// `δ_s = (m* v₀² / k₀)^{2/5}`, `t_s = δ_s / v₀` it reads `x'' = −x^{3/2} (1 + f x')`,
/// `x(0) = 0`, `x'(0) = 1`, and the exit speed `−x'` at `x = 0` is the restitution (the
/// reference of the `hertz-restitution` validate case; step 1e-4, separation interpolated).
pub fn law_restitution(factor: f64) -> f64 {
    let accel = |x: f64, v: f64| {
        if x <= 0.0 {
            0.0
        } else {
            -(x * x.sqrt() * (1.0 + factor * v)).max(0.0)
        }
    };
    let h = 1e-4;
    let (mut x, mut v) = (0.0f64, 1.0f64);
    for _ in 0..10_000_000 {
        let (k1x, k1v) = (v, accel(x, v));
        let (k2x, k2v) = (
            v + 0.5 * h * k1v,
            accel(x + 0.5 * h * k1x, v + 0.5 * h * k1v),
        );
        let (k3x, k3v) = (
            v + 0.5 * h * k2v,
            accel(x + 0.5 * h * k2x, v + 0.5 * h * k2v),
        );
        let (k4x, k4v) = (v + h * k3v, accel(x + h * k3x, v + h * k3v));
        let (x1, v1) = (
            x + h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x),
            v + h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v),
        );
        if x1 <= 0.0 && v1 < 0.0 {
            // Linear in the last step: the speed where x crosses 0.
            return -(v + (v1 - v) * x / (x - x1));
        }
        (x, v) = (x1, v1);
    }
    f64::NAN
}

/// Elastic energy stored in a Hertz contact, `(2/5) k₀ δ^{5/2}`, J (0 when δ ≤ 0).
#[inline(always)]
pub fn elastic_energy<R: Real>(k0: R, overlap: R) -> R {
    if overlap <= R::zero() {
        return R::zero();
    }
    R::of(0.4) * k0 * overlap * overlap * overlap.sqrt()
}

/// Duration of an elastic Hertz impact at approach speed `v0` (m/s),
/// `t_c ≈ 2.87 (m*² / (R* E*² v₀))^{1/5}`, s (Johnson, "Contact Mechanics" §11.1; docs/physics.md
/// §2.2), for reduced mass `m*` (kg), `R*` (m), `E*` (Pa).
pub fn contact_duration(m_star: f64, r_star: f64, e_star: f64, v0: f64) -> f64 {
    2.87 * (m_star * m_star / (r_star * e_star * e_star * v0)).powf(0.2)
}

/// Largest overlap of an elastic Hertz impact at approach speed `v0` (m/s),
/// `δ_max = (15 m* v₀² / (16 E* sqrt(R*)))^{2/5}`, m (Johnson §11.1: the kinetic energy
/// `½ m* v₀²` all stored as `(2/5) k₀ δ^{5/2}`).
pub fn max_overlap(m_star: f64, r_star: f64, e_star: f64, v0: f64) -> f64 {
    (15.0 * m_star * v0 * v0 / (16.0 * e_star * r_star.sqrt())).powf(0.4)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Integrates a head-on Hertz impact of a sphere on a fixed plane (dimensioned), with the
    /// law as the engine evaluates it (δ̇⁻ from the first step, then stored, with the guard), by
    /// velocity Verlet with a fine step; returns (contact duration, restitution, largest
    /// overlap). Matching the RK4 integral of the plain law shows the guard idle in an impact.
    fn impact(damping: Damping, e: f64, v0: f64) -> (f64, f64, f64) {
        let (m, r, e_mod): (f64, f64, f64) = (0.01, 0.01, 1e8);
        let k0 = hertz_stiffness(e_mod, r);
        let w = 1.0 / m;
        let t_est = contact_duration(m, r, e_mod, v0);
        let dt = t_est / 200_000.0;
        let factor = hysteresis_factor(damping, e);
        let (mut d, mut u, mut t, mut dmax) = (0.0f64, v0, 0.0f64, 0.0f64);
        let mut stored = 0.0;
        let mut force = |d: f64, u: f64| {
            if d <= 0.0 {
                return 0.0;
            }
            let now = impact_speed(u, k0, w, d);
            if stored == 0.0 {
                stored = now;
            }
            hysteresis_force(k0, d, u, factor, stored.max(now), w, dt)
        };
        let mut f = force(d, u);
        loop {
            u -= 0.5 * f * w * dt;
            d += u * dt;
            f = force(d, u);
            u -= 0.5 * f * w * dt;
            t += dt;
            dmax = dmax.max(d);
            if d <= 0.0 {
                return (t, -u / v0, dmax);
            }
        }
    }

    #[test]
    fn elastic_impact_matches_hertz_duration_and_overlap() {
        let (m, r, e_mod, v0) = (0.01, 0.01, 1e8, 0.5);
        for damping in [Damping::HuntCrossley, Damping::Flores] {
            let (t, e_eff, dmax) = impact(damping, 1.0, v0);
            let t_ref = contact_duration(m, r, e_mod, v0);
            let d_ref = max_overlap(m, r, e_mod, v0);
            assert!((t / t_ref - 1.0).abs() < 2e-3, "t {t}, Hertz {t_ref}");
            assert!((dmax / d_ref - 1.0).abs() < 1e-4, "δ {dmax}, Hertz {d_ref}");
            assert!((e_eff - 1.0).abs() < 1e-6, "{e_eff}");
        }
    }

    #[test]
    fn the_stored_law_has_no_speed_scale_and_matches_its_rk4_integral() {
        for damping in [Damping::HuntCrossley, Damping::Flores] {
            for e in [0.3, 0.5, 0.8, 0.95] {
                let (_, slow, _) = impact(damping, e, 0.1);
                let (_, fast, _) = impact(damping, e, 2.0);
                assert!(
                    (slow - fast).abs() < 1e-5,
                    "{damping:?} e {e}: {slow} vs {fast}"
                );
                let exact = law_restitution(hysteresis_factor(damping, e));
                assert!(
                    (slow - exact).abs() < 1e-4,
                    "{damping:?} e {e}: {slow} vs RK4 {exact}"
                );
            }
        }
        // The source's own figure: e = 0.8 under Hunt–Crossley leaves at 0.833.
        let hc = law_restitution(hysteresis_factor(Damping::HuntCrossley, 0.8));
        assert!((hc - 0.833).abs() < 5e-4, "{hc}");
        assert!((law_restitution(0.0) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn the_cap_bounds_the_dashpot_of_a_slow_contact() {
        // A contact that began at 1 µm/s: uncapped, c dt / m* would be far above 1.
        let (k0, w, dt) = (1e6f64, 100.0, 1e-5);
        let f = hysteresis_force(k0, 1e-4, 0.01, 1.5, 1e-6, w, dt);
        let elastic = k0 * 1e-4 * 1e-2;
        assert!((f - (elastic + 0.01 / (w * dt))).abs() < 1e-9, "{f}");
        assert_eq!(hysteresis_force(k0, 0.0, 1.0, 1.5, 1.0, w, dt), 0.0);
        assert_eq!(hysteresis_force(k0, 1e-4, -1e3, 1.5, 1.0, w, dt), 0.0);
    }

    #[test]
    fn effective_radius_of_plane_and_container() {
        assert_eq!(effective_radius(1.0 / 0.01f64, 0.0), 0.01);
        let inside = effective_radius(1.0 / 0.01f64, -1.0 / 0.1);
        assert!((inside - 0.01 * 0.1 / 0.09).abs() < 1e-15, "{inside}");
        assert!((effective_modulus(1.0 / 2e9f64, 1.0 / 2e9) - 1e9).abs() < 1e-3);
    }
}
