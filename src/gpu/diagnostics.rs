//! Stage `diagnostics`: work-group reductions of energies and momenta.
//! Shader `shaders/diagnostics.wgsl`; CPU twin `src/cpu/diagnostics.rs`.

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
