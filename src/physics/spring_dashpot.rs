//! Linear spring–dashpot normal contact with exact restitution (docs/physics.md §2.1).
//!
//! Force on b along n (a on the opposite side): `F_n = max(0, k_n δ + c_n u_n)` while `δ > 0`,
//! with `c_n = 2 ζ sqrt(k_n m*)`. The `max(0, …)` clamp (LIGGGHTS' limitForce) stops the dashpot
//! pulling at separation, so the contact ends when the force reaches zero, before `δ = 0`.
//!
//! **Damping from restitution.** docs/physics.md gives `ζ = −ln e / sqrt(π² + ln² e)`, which is exact
//! for the *unclamped* model. With the clamp the effective restitution is higher (0.55 instead of
//! 0.50 at e = 0.5). We therefore invert the restitution of the clamped model, in closed form from
//! T. Schwager & T. Pöschel, "Coefficient of restitution and linear–dashpot model revisited",
//! Granular Matter 9 (2007) 465, eqs. (12)–(14); the overdamped branch (ζ > 1) follows the same
//! derivation (contact ends where the acceleration vanishes). Tests check both against direct
//! integration.

/// Restitution below which the spring–dashpot model is clamped: e → 0 needs ζ → ∞, whose
/// dashpot no explicit step can integrate. At e = 0.01, ζ ≈ 3.9.
pub const MIN_RESTITUTION: f64 = 0.01;

/// Restitution of the clamped linear spring–dashpot as a function of the damping ratio ζ ≥ 0
/// (Schwager & Pöschel 2007). With `ω₀ = sqrt(k/m*)`, `β = ζ ω₀`:
/// * `β < ω₀/√2`: `e = exp(−β/ω (π − atan(2βω / (ω² − β²))))`, `ω = sqrt(ω₀² − β²)`;
/// * `ω₀/√2 ≤ β < ω₀`: `e = exp(−β/ω atan(2βω / (β² − ω²)))`;
/// * `β = ω₀`: `e = e⁻²`;
/// * `β > ω₀`: `e = exp(−β/Ω ln((β + Ω)/(β − Ω)))`, `Ω = sqrt(β² − ω₀²)`.
///
/// Dimensionless: depends on ζ alone.
pub fn restitution_of_damping(zeta: f64) -> f64 {
    let b = zeta;
    if b <= 0.0 {
        return 1.0;
    }
    if b < 1.0 {
        let w = (1.0 - b * b).sqrt();
        let angle = if b < std::f64::consts::FRAC_1_SQRT_2 {
            std::f64::consts::PI - (2.0 * b * w / (w * w - b * b)).atan()
        } else {
            (2.0 * b * w / (b * b - w * w)).atan()
        };
        (-b / w * angle).exp()
    } else if b == 1.0 {
        (-2.0f64).exp()
    } else {
        let om = (b * b - 1.0).sqrt();
        (-b / om * ((b + om) / (b - om)).ln()).exp()
    }
}

/// Damping ratio ζ that gives restitution `e` with the clamped law (inverse of
/// [`restitution_of_damping`], by bisection to 1e-12). `e` in [0, 1]; values below
/// [`MIN_RESTITUTION`] are raised to it.
pub fn damping_ratio(e: f64) -> f64 {
    let e = e.clamp(MIN_RESTITUTION, 1.0);
    if e >= 1.0 {
        return 0.0;
    }
    // restitution_of_damping decreases monotonically in ζ.
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while restitution_of_damping(hi) > e {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if restitution_of_damping(mid) > e {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-12 {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// The ζ of docs/physics.md §2.1, `−ln e / sqrt(π² + ln² e)`: exact for the unclamped model only.
/// Kept for comparison and for the contact-duration estimate.
pub fn damping_ratio_unclamped(e: f64) -> f64 {
    if e <= 0.0 {
        return 1.0;
    }
    let l = e.ln();
    -l / (std::f64::consts::PI * std::f64::consts::PI + l * l).sqrt()
}

/// Dashpot coefficient `c_n = 2 ζ sqrt(k_n m*)`, N·s/m, for stiffness `k_n` (N/m) and reduced
/// mass `m*` (kg). Written with the inverse-mass sum `w = 1/m*` so a fixed partner (w = 0) works.
#[inline(always)]
pub fn dashpot_coefficient<R: crate::Real>(zeta: R, k_n: R, inverse_mass_sum: R) -> R {
    R::of(2.0) * zeta * (k_n / inverse_mass_sum).sqrt()
}

/// Normal contact force magnitude `max(0, k_n δ + c_n u_n)`, N, for overlap `δ` (m) and normal
/// approach speed `u_n = −δ̇` (m/s). Zero when `δ ≤ 0`.
#[inline(always)]
pub fn normal_force<R: crate::Real>(k_n: R, c_n: R, overlap: R, u_n: R) -> R {
    if overlap <= R::zero() {
        return R::zero();
    }
    (k_n * overlap + c_n * u_n).max(R::zero())
}

/// Duration of a spring–dashpot contact with the unclamped law,
/// `t_c = π / sqrt(k_n/m* − (c_n / 2m*)²)`, s (docs/physics.md §2.1); `inf` when overdamped.
/// Choose `dt ≤ t_c / 20`.
pub fn contact_duration(k_n: f64, c_n: f64, m_star: f64) -> f64 {
    let w2 = k_n / m_star - (c_n / (2.0 * m_star)).powi(2);
    if w2 <= 0.0 {
        f64::INFINITY
    } else {
        std::f64::consts::PI / w2.sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Direct integration of the clamped law in dimensionless form (ω₀ = 1, v₀ = 1).
    fn integrate(zeta: f64) -> f64 {
        let dt = (1.0f64).min(1.0 / zeta.max(1e-9)) / 20000.0;
        let (mut d, mut u) = (0.0f64, 1.0f64);
        loop {
            let f = (d + 2.0 * zeta * u).max(0.0);
            u -= f * dt;
            d += u * dt;
            if d < 0.0 {
                return -u;
            }
        }
    }

    #[test]
    fn closed_form_matches_integration_on_every_branch() {
        for zeta in [0.05, 0.3, 0.70, 0.75, 0.95, 1.3, 3.0] {
            let (closed, num) = (restitution_of_damping(zeta), integrate(zeta));
            assert!(
                (closed - num).abs() < 2e-3 * num.max(0.05),
                "ζ = {zeta}: closed {closed}, integrated {num}"
            );
        }
    }

    #[test]
    fn damping_ratio_inverts_restitution() {
        for e in [0.01, 0.1, 0.5, 0.9, 0.999] {
            let z = damping_ratio(e);
            assert!((restitution_of_damping(z) - e).abs() < 1e-9, "e = {e}");
        }
        assert_eq!(damping_ratio(1.0), 0.0);
    }

    #[test]
    fn clamp_raises_restitution_of_the_unclamped_damping() {
        // The reason for the inversion: docs/physics.md's ζ gives 0.550 instead of 0.5 with the clamp.
        let e = restitution_of_damping(damping_ratio_unclamped(0.5));
        assert!((e - 0.5503).abs() < 1e-3, "{e}");
    }
}
