//! Stage `scatter`: stable counting-sort scatter (place, rank) and the gather of all state.
//! Shader `shaders/scatter.wgsl` and `gather.wgsl`; CPU twin `src/cpu/scatter.rs`.

use super::pipelines::Module;
use super::stages::module;
use super::state::{SharedBuffers, StateSet};

/// The module of `shaders/scatter.wgsl` and its pipelines.
#[derive(Clone)]
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
#[derive(Clone)]
pub struct Gather {
    /// Module (layout and bind groups).
    pub module: Module,
    /// Every state buffer gathered into the other state set in the new order, or, in a step
    /// that does not rebuild, copied in the same order.
    pub gather: wgpu::ComputePipeline,
}

impl Gather {
    /// Compiles the shader and its entry points.
    pub fn new(device: &wgpu::Device) -> Self {
        let module = module(device, "gather");
        Self {
            gather: module.pipeline(device, "gather", &[]),
            module,
        }
    }
}

impl Gather {
    /// The bind group that gathers state set `s` into `o` in the binning's order, or copies it
    /// when the flag `rebuild` (`neighbours::Gate::rebuild`) is 0.
    pub(crate) fn bind(
        &self,
        device: &wgpu::Device,
        b: &SharedBuffers,
        s: &StateSet,
        o: &StateSet,
        rebuild: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.module.bind(
            device,
            &[
                ("params", &b.params),
                ("perm", &b.perm),
                ("src_pos", &s.pos),
                ("src_vel", &s.vel),
                ("src_acc", &s.acc),
                ("src_props", &s.props),
                ("src_id", &s.id),
                ("dst_pos", &o.pos),
                ("dst_vel", &o.vel),
                ("dst_acc", &o.acc),
                ("dst_props", &o.props),
                ("dst_id", &o.id),
                ("src_rot", &s.rot),
                ("dst_rot", &o.rot),
                ("rebuild", rebuild),
            ],
        )
    }
}

impl Scatter {
    /// The bind group (independent of the state set).
    pub(crate) fn bind(&self, device: &wgpu::Device, b: &SharedBuffers) -> wgpu::BindGroup {
        self.module.bind(
            device,
            &[
                ("params", &b.params),
                ("keys", &b.keys),
                ("cell_start", &b.cell_start),
                ("slot", &b.slot),
                ("arrival", &b.arrival),
                ("perm", &b.perm),
            ],
        )
    }
}
