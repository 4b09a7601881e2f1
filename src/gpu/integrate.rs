//! Stage `integrate`: kick–drift–kick leapfrog, applying contact impulses, the force sum.
//! Shader `shaders/integrate.wgsl`; CPU twin `src/cpu/integrate.rs`.

use super::pipelines::Module;
use super::stages::module;

/// The module of `shaders/integrate.wgsl` and its pipelines.
pub struct Integrate {
    /// Module (layout and bind groups).
    pub module: Module,
    /// The largest small-sphere speed of the step (for the grid's cell edge).
    pub measure_speed: wgpu::ComputePipeline,
    /// First half kick and drift.
    pub kick_drift: wgpu::ComputePipeline,
    /// `x += dx`, `v += dv` of an impulse round, and its energy booked as dissipated.
    pub apply_contacts: wgpu::ComputePipeline,
    /// The force sum: each sphere's acceleration.
    pub accelerations: wgpu::ComputePipeline,
    /// Second half kick.
    pub kick: wgpu::ComputePipeline,
}

impl Integrate {
    /// Compiles the shader and its entry points.
    pub fn new(device: &wgpu::Device) -> Self {
        let module = module(device, "integrate");
        let p = |entry: &str| module.pipeline(device, entry, &[]);
        Self {
            measure_speed: p("measure_speed"),
            kick_drift: p("kick_drift"),
            apply_contacts: p("apply_contacts"),
            accelerations: p("accelerations"),
            kick: p("kick"),
            module,
        }
    }
}
