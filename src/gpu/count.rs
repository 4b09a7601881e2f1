//! Stage `count`: spheres per bucket with u32 atomics.
//! Shader `shaders/count.wgsl`; CPU twin `src/cpu/count.rs`. The counting runs in
//! `cell_keys.wgsl`'s `cell_keys`, in the keys' pass: one dispatch fewer a rebuild.

use super::pipelines::Module;
use super::stages::module;
use super::state::SharedBuffers;

/// The module of `shaders/count.wgsl` and its pipelines.
#[derive(Clone)]
pub struct Count {
    /// Module (layout and bind groups).
    pub module: Module,
    /// Moves the counts into the cell starts that the prefix sum scans, leaving them zero, and
    /// sums them by the scan's blocks (its first `reduce`).
    pub seed_cell_start: wgpu::ComputePipeline,
}

impl Count {
    /// Compiles the shader and its entry points.
    pub fn new(device: &wgpu::Device) -> Self {
        let module = module(device, "count");
        let p = |entry: &str| module.pipeline(device, entry, &[]);
        Self {
            seed_cell_start: p("seed_cell_start"),
            module,
        }
    }
}

impl Count {
    /// The bind group (independent of the state set); `scan_sums`: the cell starts' first
    /// block sums (`prefix_sum::first_sums`), which `seed_cell_start` adds to.
    pub(crate) fn bind(
        &self,
        device: &wgpu::Device,
        b: &SharedBuffers,
        scan_sums: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.module.bind(
            device,
            &[
                ("params", &b.params),
                ("counts", &b.counts),
                ("cell_start", &b.cell_start),
                ("scan_sums", scan_sums),
            ],
        )
    }
}
