//! Stage `collide`: earliest events, matching rounds (override FINAL = false), the final round,
//! and `clear_history` (set-up: empties the friction history the final round wrote). The
//! earliest events and the matching rounds of the large spheres run one work-group per sphere
//! (`earliest_events_large`, `collide_large`).
//! Shader `shaders/collide.wgsl`; CPU twin `src/cpu/collide.rs`.

use super::stages::Stage;

/// The pipeline variants and their overridden constants.
pub const VARIANTS: [(&str, &[(&str, f64)]); 6] = [
    ("earliest_events", &[]),
    ("earliest_events_large", &[]),
    ("collide_matching", &[("FINAL", 0.0)]),
    ("collide_large", &[("FINAL", 0.0)]),
    ("collide_final", &[("FINAL", 1.0)]),
    ("clear_history", &[]),
];

/// Compiles `shaders/collide.wgsl` and its entry points.
pub fn new(device: &wgpu::Device) -> Stage {
    Stage::new(device, "collide", &VARIANTS)
}
