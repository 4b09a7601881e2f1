//! Stage `diagnostics`: work-group reductions of energies and momenta.
//! Shader `shaders/diagnostics.wgsl`; CPU twin `src/cpu/diagnostics.rs`.

use super::pipelines::Module;
use super::stages::module;
use super::state::{SharedBuffers, StateSet};

/// The module of `shaders/diagnostics.wgsl` and its pipeline.
#[derive(Clone)]
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
                ("params", &b.params),
                ("pos", &s.pos),
                ("vel", &s.vel),
                ("acc", &s.acc),
                ("contact", &b.contact),
                ("contact_counts", &b.contact_counts),
                ("partial_f", &b.partial_f),
                ("partial_u", &b.partial_u),
                ("dissipated", &b.dissipated),
            ],
        )
    }
}
