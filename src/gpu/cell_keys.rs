//! Stage `cell_keys`: grid parameters, hashed cell keys, binned cells and large-sphere boxes.
//! Shader `shaders/cell_keys.wgsl`; CPU twin `src/cpu/cell_keys.rs`.

use super::stages::Stage;

/// Compiles `shaders/cell_keys.wgsl` and its entry points.
pub fn new(device: &wgpu::Device) -> Stage {
    Stage::new(
        device,
        "cell_keys",
        &[("grid_params", &[]), ("cell_keys", &[]), ("bin_cells", &[])],
    )
}
