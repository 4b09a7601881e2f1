//! Materials and the built-in presets.
//!
//! Restitution coefficients are Nikulin's drop-test values after Savelyev (docs/physics.md §6), except
//! rubber, which that table lacks. Elastic constants and densities are engineering-table values;
//! the source of each is given on the preset. Friction coefficients are kinetic, like-on-like
//! values from R. A. Serway and J. W. Jewett, "Physics for Scientists and Engineers", Table 5.1
//! (steel, glass, wood; rubber on concrete); ivory's is assumed.

/// A material (`[[material]]` table). Spheres that name a material take its restitution, and its
/// density when they give no mass.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Material {
    /// Name spheres refer to it by.
    pub name: String,
    /// Restitution coefficient against a hard surface, in [0, 1].
    pub restitution: f64,
    /// Density, kg/m³ (> 0).
    pub density: f64,
    /// Young's modulus E, Pa (> 0), used by the Hertz law.
    pub youngs_modulus: f64,
    /// Poisson ratio ν, in (−1, 0.5].
    pub poisson_ratio: f64,
    /// Coulomb (kinetic) friction coefficient μ ≥ 0, used by the soft contact laws.
    pub friction: f64,
    /// Rolling friction coefficient μ_r ≥ 0 (dimensionless): the rolling resistance torque is at
    /// most `μ_r R* F_n` (docs/physics.md §2.7). The presets have 0; a table gives it.
    #[serde(default)]
    pub rolling_friction: f64,
}

impl Material {
    fn preset(name: &str, restitution: f64, density: f64, e: f64, nu: f64, mu: f64) -> Self {
        Self {
            name: name.to_string(),
            restitution,
            density,
            youngs_modulus: e,
            poisson_ratio: nu,
            friction: mu,
            rolling_friction: 0.0,
        }
    }

    /// Steel: e = 5/9 (Nikulin after Savelyev); ρ = 7850 kg/m³, E = 200 GPa, ν = 0.30 (structural
    /// carbon steel, e.g. Eurocode 3 EN 1993-1-1 §3.2.6); μ = 0.57 (Serway, steel on steel).
    pub fn steel() -> Self {
        Self::preset("steel", 5.0 / 9.0, 7850.0, 200e9, 0.30, 0.57)
    }

    /// Soda-lime glass: e = 15/16 (Nikulin after Savelyev); ρ = 2500 kg/m³, E = 70 GPa, ν = 0.22
    /// (EN 572-1 basic soda-lime silicate glass); μ = 0.4 (Serway, glass on glass).
    pub fn glass() -> Self {
        Self::preset("glass", 15.0 / 16.0, 2500.0, 70e9, 0.22, 0.4)
    }

    /// Wood (northern red oak, 12 % moisture): e = 1/2 (Nikulin after Savelyev); ρ = 700 kg/m³,
    /// E = 12.5 GPa along the grain, ν_LR = 0.35 (USDA Wood Handbook FPL-GTR-190, Tables 5-1, 5-3a);
    /// μ = 0.2 (Serway, wood on wood).
    pub fn wood() -> Self {
        Self::preset("wood", 0.5, 700.0, 12.5e9, 0.35, 0.2)
    }

    /// Ivory: e = 8/9 (Nikulin after Savelyev); ρ = 1850 kg/m³, E = 10 GPa (dentine, J. D. Currey,
    /// "Bones: Structure and Mechanics", 2002); ν = 0.30 and μ = 0.3 assumed.
    pub fn ivory() -> Self {
        Self::preset("ivory", 8.0 / 9.0, 1850.0, 10e9, 0.30, 0.3)
    }

    /// Natural rubber: ρ = 1100 kg/m³, E = 10 MPa, ν = 0.49 (vulcanised natural rubber, typical
    /// handbook values); e = 0.8 is an assumed value for a solid rubber ball, not from docs/physics.md;
    /// μ = 0.8 (Serway, rubber on concrete).
    pub fn rubber() -> Self {
        Self::preset("rubber", 0.8, 1100.0, 10e6, 0.49, 0.8)
    }

    /// All presets, usable by name in scene files without a `[[material]]` table.
    pub fn presets() -> Vec<Material> {
        vec![
            Self::steel(),
            Self::glass(),
            Self::wood(),
            Self::ivory(),
            Self::rubber(),
        ]
    }
}

/// Volume of a sphere of radius `r` (m), `(4/3) π r³`, m³: with a material's density, the mass
/// of a sphere that gives none.
pub fn sphere_volume(r: f64) -> f64 {
    4.0 / 3.0 * std::f64::consts::PI * r * r * r
}
