//! Stage `gravity`: tiled direct-sum mutual gravity; `gravity_potential` adds the potential (override WITH_POTENTIAL).
//! Shader `shaders/gravity.wgsl`; CPU twin `src/cpu/gravity.rs`.

use super::stages::Stage;

/// Compiles `shaders/gravity.wgsl` and its entry points.
pub fn new(device: &wgpu::Device) -> Stage {
    Stage::new(
        device,
        "gravity",
        &[
            ("gravity", &[]),
            ("gravity_potential", &[("WITH_POTENTIAL", 1.0)]),
        ],
    )
}
