//! Stage `gravity`: tiled direct-sum mutual gravity; `gravity_potential` adds the potential (override WITH_POTENTIAL).
//! Shader `shaders/gravity.wgsl`; CPU twin `src/cpu/gravity.rs`.

use super::pipelines::Module;
use super::stages::module;

/// The module of `shaders/gravity.wgsl` and its pipelines.
pub struct Gravity {
    /// Module (layout and bind groups).
    pub module: Module,
    /// The tiled direct sum.
    pub gravity: wgpu::ComputePipeline,
    /// The same with each body's potential energy (override `WITH_POTENTIAL`).
    pub gravity_potential: wgpu::ComputePipeline,
}

impl Gravity {
    /// Compiles the shader and its entry points.
    pub fn new(device: &wgpu::Device) -> Self {
        let module = module(device, "gravity");
        Self {
            gravity: module.pipeline(device, "gravity", &[]),
            gravity_potential: module.pipeline(device, "gravity", &[("WITH_POTENTIAL", 1.0)]),
            module,
        }
    }
}
