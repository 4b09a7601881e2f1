//! Stage `integrate`: kick–drift–kick leapfrog, applying contact impulses, the force sum.
//! Shader `shaders/integrate.wgsl`; CPU twin `src/cpu/integrate.rs`.

use super::pipelines::Module;
use super::stages::module;
use super::state::{SharedBuffers, StateSet};

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
                (0, &b.params),
                (1, &s.pos),
                (2, &s.vel),
                (3, &s.acc),
                (4, &b.grid),
                (5, &b.contact),
                (6, &b.a_mutual),
                (7, &s.id),
                (8, &b.dissipated),
                (9, &s.rot),
                (10, &b.torque),
            ],
        )
    }
}
