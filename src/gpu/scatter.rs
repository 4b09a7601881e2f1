//! Stage `scatter`: stable counting-sort scatter (place, rank) and the gather of all state.
//! Shader `shaders/scatter.wgsl` and `gather.wgsl`; CPU twin `src/cpu/scatter.rs`.

use super::stages::Stage;

/// Stage `scatter`: `place` and `rank` from `shaders/scatter.wgsl`.
pub fn new(device: &wgpu::Device) -> Stage {
    Stage::new(device, "scatter", &[("place", &[]), ("rank", &[])])
}

/// The gather half of the stage, `shaders/gather.wgsl`; `copy_state` is the gather with the
/// identity permutation (override `IDENTITY`), for a step that does not re-sort.
pub fn gather(device: &wgpu::Device) -> Stage {
    Stage::new(
        device,
        "gather",
        &[("gather", &[]), ("copy_state", &[("IDENTITY", 1.0)])],
    )
}
