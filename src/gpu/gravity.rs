//! Stage `gravity`: tiled direct-sum mutual gravity; `gravity_potential` adds the potential (override WITH_POTENTIAL).
//! Shader `shaders/gravity.wgsl`; CPU twin `src/cpu/gravity.rs`.

use super::pipelines::Module;
use super::stages::module;
use super::state::{SharedBuffers, StateSet};

/// The module of `shaders/gravity.wgsl` and its pipelines.
#[derive(Clone)]
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

impl Gravity {
    /// The bind group of state set `s`.
    pub(crate) fn bind(
        &self,
        device: &wgpu::Device,
        b: &SharedBuffers,
        s: &StateSet,
    ) -> wgpu::BindGroup {
        self.module.bind(
            device,
            &[
                ("params", &b.params),
                ("pos", &s.pos),
                ("acc", &s.acc),
                ("a_mutual", &b.a_mutual),
            ],
        )
    }
}
