//! Stage `cell_keys`: hashed cell keys. Shader `shaders/cell_keys.wgsl`; CPU twin
//! `src/cpu/cell_keys.rs`. The step's cell edge is set by `neighbours.wgsl`'s `gate_dispatches`
//! when it decides on a rebuild (`grid_cell_edge`); the binned cells and the large spheres'
//! boxes by the list build's `sweeps`.

use super::pipelines::Module;
use super::stages::module;
use super::state::{SharedBuffers, StateSet};

/// The module of `shaders/cell_keys.wgsl` and its pipelines.
#[derive(Clone)]
pub struct CellKeys {
    /// Module (layout and bind groups).
    pub module: Module,
    /// Each sphere's hashed cell key, counted into its bucket (stage `count`'s counting).
    pub cell_keys: wgpu::ComputePipeline,
}

impl CellKeys {
    /// Compiles the shader and its entry points.
    pub fn new(device: &wgpu::Device) -> Self {
        let module = module(device, "cell_keys");
        let p = |entry: &str| module.pipeline(device, entry, &[]);
        Self {
            cell_keys: p("cell_keys"),
            module,
        }
    }
}

impl CellKeys {
    /// The bind group of state set `s`; `scan_sums`: the cell starts' first block sums
    /// (`prefix_sum::first_sums`), which `cell_keys` zeroes.
    pub(crate) fn bind(
        &self,
        device: &wgpu::Device,
        b: &SharedBuffers,
        s: &StateSet,
        scan_sums: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.module.bind(
            device,
            &[
                ("params", &b.params),
                ("pos", &s.pos),
                ("grid", &b.grid),
                ("keys", &b.keys),
                ("counts", &b.counts),
                ("slot", &b.slot),
                ("scan_sums", scan_sums),
            ],
        )
    }
}
