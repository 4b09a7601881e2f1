//! Stage `collide`. The impulse model searches the grid: earliest events, matching rounds
//! (override FINAL = false) and the final round; the earliest events and the matching rounds of
//! the large spheres run one work-group per sphere (`earliest_events_large`, `collide_large`).
//! The soft laws read the neighbour list: `collide_pairs` (one entry each) and `sum_pairs` (one
//! sphere each, with the walls).
//! Shader `shaders/collide.wgsl`; CPU twin `src/cpu/collide.rs`.

use super::stages::Stage;

/// The pipeline variants and their overridden constants.
pub const VARIANTS: [(&str, &[(&str, f64)]); 7] = [
    ("earliest_events", &[]),
    ("earliest_events_large", &[]),
    ("collide_matching", &[("FINAL", 0.0)]),
    ("collide_large", &[("FINAL", 0.0)]),
    ("collide_final", &[("FINAL", 1.0)]),
    ("collide_pairs", &[]),
    ("sum_pairs", &[]),
];

/// Compiles `shaders/collide.wgsl` and its entry points.
pub fn new(device: &wgpu::Device) -> Stage {
    Stage::new(device, "collide", &VARIANTS)
}
