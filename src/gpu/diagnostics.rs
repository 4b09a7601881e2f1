//! Stage `diagnostics`: work-group reductions of energies and momenta; the end-of-step check and collision tally.
//! Shader `shaders/diagnostics.wgsl` and `check.wgsl`; CPU twin `src/cpu/diagnostics.rs`.

use super::pipelines::Module;
use super::stages::module;
use super::state::{SharedBuffers, StateSet};

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

impl Check {
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
                (3, &s.id),
                (4, &b.contact_counts),
                (5, &b.grid),
                (6, &b.status),
                (7, &s.rot),
            ],
        )
    }
}

impl Diagnostics {
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
                (4, &b.contact),
                (5, &b.contact_counts),
                (6, &b.partial_f),
                (7, &b.partial_u),
                (8, &b.dissipated),
            ],
        )
    }
}
