//! Stage `scatter`: stable counting-sort scatter (place, rank) and the gather of all state.
//! Shader `shaders/scatter.wgsl` and `gather.wgsl`; CPU twin `src/cpu/scatter.rs`.

use super::pipelines::Module;
use super::stages::module;

/// The module of `shaders/scatter.wgsl` and its pipelines.
pub struct Scatter {
    /// Module (layout and bind groups).
    pub module: Module,
    /// Each sphere's place: its bucket's start plus its slot.
    pub place: wgpu::ComputePipeline,
    /// The stable rank within a bucket, by input order.
    pub rank: wgpu::ComputePipeline,
}

impl Scatter {
    /// Compiles the shader and its entry points.
    pub fn new(device: &wgpu::Device) -> Self {
        let module = module(device, "scatter");
        let p = |entry: &str| module.pipeline(device, entry, &[]);
        Self {
            place: p("place"),
            rank: p("rank"),
            module,
        }
    }
}

/// The gather half of the stage, `shaders/gather.wgsl`.
pub struct Gather {
    /// Module (layout and bind groups).
    pub module: Module,
    /// Every state buffer gathered into the other state set in the new order.
    pub gather: wgpu::ComputePipeline,
    /// The gather with the identity permutation (override `IDENTITY`), for a step that does not
    /// re-sort.
    pub copy_state: wgpu::ComputePipeline,
}

impl Gather {
    /// Compiles the shader and its entry points.
    pub fn new(device: &wgpu::Device) -> Self {
        let module = module(device, "gather");
        Self {
            gather: module.pipeline(device, "gather", &[]),
            copy_state: module.pipeline(device, "gather", &[("IDENTITY", 1.0)]),
            module,
        }
    }
}
