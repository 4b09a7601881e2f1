//! Stage `count`: spheres per bucket with u32 atomics.
//! Shader `shaders/count.wgsl`; CPU twin `src/cpu/count.rs`.

use super::stages::Stage;

/// Compiles `shaders/count.wgsl` and its entry points.
pub fn new(device: &wgpu::Device) -> Stage {
    Stage::new(
        device,
        "count",
        &[
            ("clear_counts", &[]),
            ("count", &[]),
            ("seed_cell_start", &[]),
        ],
    )
}
