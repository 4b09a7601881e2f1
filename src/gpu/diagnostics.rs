//! Stage `diagnostics`: work-group reductions of energies and momenta; the end-of-step check and collision tally.
//! Shader `shaders/diagnostics.wgsl` and `check.wgsl`; CPU twin `src/cpu/diagnostics.rs`.

use super::pipelines::Module;
use super::stages::module;

/// The module of `shaders/diagnostics.wgsl` and its pipeline.
pub struct Diagnostics {
    /// Module (layout and bind groups).
    pub module: Module,
    /// Work-group partial sums of energies, momenta and contacts.
    pub diagnostics: wgpu::ComputePipeline,
}

impl Diagnostics {
    /// Compiles the shader and its entry point.
    pub fn new(device: &wgpu::Device) -> Self {
        let module = module(device, "diagnostics");
        Self {
            diagnostics: module.pipeline(device, "diagnostics", &[]),
            module,
        }
    }
}

/// The end of a step, `shaders/check.wgsl`.
pub struct Check {
    /// Module (layout and bind groups).
    pub module: Module,
    /// Collisions of a contact round, counted per work-group.
    pub tally: wgpu::ComputePipeline,
    /// The first non-finite sphere of the step.
    pub check: wgpu::ComputePipeline,
}

impl Check {
    /// Compiles the shader and its entry points.
    pub fn new(device: &wgpu::Device) -> Self {
        let module = module(device, "check");
        Self {
            tally: module.pipeline(device, "tally", &[]),
            check: module.pipeline(device, "check", &[]),
            module,
        }
    }
}
