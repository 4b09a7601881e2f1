//! Stage `collide`, from the neighbour list. The soft laws: `collide_pairs` (one entry each) and
//! `sum_pairs` (a row pass, with the walls). The impulse model: `impulse_pairs` (one entry
//! each; binary, or the final round's colliding pairs with mass splitting: override FINAL),
//! `earliest_from_pairs` and `sum_impulses` (row passes; a matching round or the final one:
//! override FINAL). A row pass runs one invocation per small sphere and a work-group per large
//! sphere, whose lanes share its row (`cpu::collide::sum_row`).
//! Shader `shaders/collide.wgsl`; CPU twin `src/cpu/collide.rs`.

use super::stages::Stage;

/// The pipeline variants and their overridden constants.
pub const VARIANTS: [(&str, &[(&str, f64)]); 7] = [
    ("impulse_pairs_binary", &[("FINAL", 0.0)]),
    ("impulse_pairs_final", &[("FINAL", 1.0)]),
    ("earliest_from_pairs", &[]),
    ("sum_impulses_matching", &[("FINAL", 0.0)]),
    ("sum_impulses_final", &[("FINAL", 1.0)]),
    ("collide_pairs", &[]),
    ("sum_pairs", &[]),
];

/// Compiles `shaders/collide.wgsl` and its entry points.
pub fn new(device: &wgpu::Device) -> Stage {
    Stage::new(device, "collide", &VARIANTS)
}
