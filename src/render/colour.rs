//! Sphere colours (linear RGB in [0, 1]): by material, by speed, by initial position.

use crate::Scene;

/// Clear colour of every image, linear RGB (a dark blue-grey).
pub const BACKGROUND: [f64; 3] = [0.012, 0.014, 0.02];

/// What the spheres are coloured by (the viewer's C key cycles through them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ColourMode {
    /// By material: steel grey-blue, wood brown, others from a palette (default).
    #[default]
    Material,
    /// By speed: blue (still) → cyan → yellow → red (at the speed scale and above).
    Speed,
    /// By initial position: hue along the scene's thinnest axis, so a wall's layers differ.
    Initial,
}

impl ColourMode {
    /// The next mode in the cycle material → speed → initial position → material.
    pub fn next(self) -> Self {
        match self {
            ColourMode::Material => ColourMode::Speed,
            ColourMode::Speed => ColourMode::Initial,
            ColourMode::Initial => ColourMode::Material,
        }
    }

    /// Index the shader switches on (`colour_mode` in `shaders/impostor.wgsl`).
    pub fn shader_index(self) -> u32 {
        match self {
            ColourMode::Material => 0,
            ColourMode::Speed => 1,
            ColourMode::Initial => 2,
        }
    }

    /// Name shown in the heads-up line.
    pub fn label(self) -> &'static str {
        match self {
            ColourMode::Material => "material",
            ColourMode::Speed => "speed",
            ColourMode::Initial => "initial position",
        }
    }
}

const PALETTE: [[f32; 3]; 6] = [
    [0.10, 0.35, 0.80],
    [0.80, 0.20, 0.15],
    [0.20, 0.65, 0.25],
    [0.85, 0.65, 0.10],
    [0.55, 0.25, 0.70],
    [0.10, 0.65, 0.65],
];

/// Colour of a sphere of material `material` (index into `scene.materials`, `None` for none):
/// named steel and wood get their own colours, others the palette in order, no material a
/// light grey.
pub fn material_colour(scene: &Scene, material: Option<usize>) -> [f32; 3] {
    let Some(k) = material else {
        return [0.6, 0.6, 0.6];
    };
    match scene.materials.get(k).map(|m| m.name.as_str()) {
        Some("steel") => [0.45, 0.5, 0.6],
        Some("wood") => [0.55, 0.3, 0.1],
        _ => PALETTE[k % PALETTE.len()],
    }
}

/// Speed ramp over `t` = speed / scale clamped to [0, 1]: blue → cyan → yellow → red.
/// `speed_colour` in `shaders/impostor.wgsl` is the copy the GPU runs.
pub fn speed_colour(t: f32) -> [f32; 3] {
    let t = t.clamp(0.0, 1.0);
    let stops = [
        [0.05, 0.15, 0.8],
        [0.0, 0.7, 0.8],
        [0.95, 0.85, 0.1],
        [0.9, 0.1, 0.05],
    ];
    let (i, f) = if t < 1.0 / 3.0 {
        (0, t * 3.0)
    } else if t < 2.0 / 3.0 {
        (1, t * 3.0 - 1.0)
    } else {
        (2, t * 3.0 - 2.0)
    };
    let (a, b) = (stops[i], stops[i + 1]);
    [0, 1, 2].map(|c| a[c] + (b[c] - a[c]) * f)
}

/// Fully saturated colour of hue `h` in [0, 1) (red → yellow → green → cyan → blue → magenta).
fn hue(h: f32) -> [f32; 3] {
    let h = h.rem_euclid(1.0) * 6.0;
    let x = 1.0 - ((h % 2.0) - 1.0).abs();
    match h as u32 {
        0 => [1.0, x, 0.0],
        1 => [x, 1.0, 0.0],
        2 => [0.0, 1.0, x],
        3 => [0.0, x, 1.0],
        4 => [x, 0.0, 1.0],
        _ => [1.0, 0.0, x],
    }
}

/// Colours by initial position, one per sphere in input order. The bulk is the spheres no
/// larger than twice the median radius (a wall without its projectile); the hue runs over
/// the bulk's thinnest axis (a wall's layers get distinct hues, red at the front to violet at
/// the back) and the brightness along its longest, so neighbours in a layer stay apart.
/// Spheres outside the bulk's box are light grey.
pub fn initial_position_colours(scene: &Scene) -> Vec<[f32; 3]> {
    let frame = PositionColours::of(&scene.spheres);
    scene
        .spheres
        .iter()
        .map(|s| frame.colour(s.position, s.radius))
        .collect()
}

/// The frame of [`initial_position_colours`], kept so that spheres inserted later get their
/// colour from where they enter in the same frame.
#[derive(Clone, Debug)]
pub struct PositionColours {
    lo: glam::DVec3,
    hi: glam::DVec3,
    /// Spheres larger than this (twice the median radius) are not bulk, m.
    bulk_r: f64,
    thin: usize,
    long: usize,
}

/// Light grey: a sphere outside the bulk.
const NOT_BULK: [f32; 3] = [0.85, 0.85, 0.85];

impl PositionColours {
    /// The frame of `spheres`' bulk; without spheres every colour is light grey.
    pub fn of(spheres: &[crate::scene::Sphere]) -> Self {
        let n = spheres.len();
        let (mut lo, mut hi) = (
            glam::DVec3::splat(f64::INFINITY),
            glam::DVec3::splat(f64::NEG_INFINITY),
        );
        if n == 0 {
            return Self {
                lo,
                hi,
                bulk_r: f64::NEG_INFINITY,
                thin: 0,
                long: 0,
            };
        }
        let mut radii: Vec<f64> = spheres.iter().map(|s| s.radius).collect();
        radii.sort_by(f64::total_cmp);
        let bulk_r = 2.0 * radii[n / 2];
        for s in spheres.iter().filter(|s| s.radius <= bulk_r) {
            lo = lo.min(s.position);
            hi = hi.max(s.position);
        }
        let ext = (hi - lo).to_array();
        let mut axes = [0usize, 1, 2];
        axes.sort_by(|&a, &b| ext[a].total_cmp(&ext[b]));
        // A single layer has no thickness: use the next axis for the hue.
        let thin = axes.into_iter().find(|&a| ext[a] > 1e-12).unwrap_or(0);
        Self {
            lo,
            hi,
            bulk_r,
            thin,
            long: axes[2],
        }
    }

    /// The colour of a sphere of `radius` at `position` (linear RGB in [0, 1]).
    pub fn colour(&self, position: glam::DVec3, radius: f64) -> [f32; 3] {
        let (lo, hi) = (self.lo, self.hi);
        let ext = (hi - lo).to_array();
        let eps = 1e-9 * (hi - lo).length().max(1e-12);
        if radius > self.bulk_r
            || !(lo.is_finite() && hi.is_finite())
            || position.cmplt(lo - eps).any()
            || position.cmpgt(hi + eps).any()
        {
            return NOT_BULK;
        }
        let norm = |a: usize| -> f64 {
            if ext[a] > 1e-12 {
                (position.to_array()[a] - lo.to_array()[a]) / ext[a]
            } else {
                0.5
            }
        };
        let c = hue(0.8 * norm(self.thin) as f32);
        let v = 0.55 + 0.45 * norm(self.long) as f32;
        c.map(|x| x * v)
    }
}

/// 8-bit sRGB encoding of a linear value in [0, 1] (IEC 61966-2-1), as an `*UnormSrgb` render
/// target stores it.
pub fn linear_to_srgb8(x: f64) -> u8 {
    let x = x.clamp(0.0, 1.0);
    let s = if x <= 0.003_130_8 {
        12.92 * x
    } else {
        1.055 * x.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0).round() as u8
}
