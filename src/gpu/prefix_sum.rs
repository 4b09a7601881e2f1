//! Stage `prefix_sum`: exclusive prefix sum, reduce-then-scan level by level.
//! Shader `shaders/prefix_sum.wgsl`; CPU twin `src/cpu/prefix_sum.rs`.

use super::stages::Stage;

/// Compiles `shaders/prefix_sum.wgsl` and its entry points.
pub fn new(device: &wgpu::Device) -> Stage {
    Stage::new(
        device,
        "prefix_sum",
        &[("reduce", &[]), ("scan_blocks", &[])],
    )
}
