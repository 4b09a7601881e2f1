//! Stage `neighbours`: the Verlet neighbour list with a skin, built on the GPU from the current
//! binning: `sweeps`, `list_count`, a prefix sum of the counts, `list_fill`, `relink`.
//! Shader `shaders/neighbours.wgsl`; CPU twin `src/cpu/neighbours.rs`, whose rows, order and
//! links it reproduces exactly.
//!
//! The step does not read this list yet (the contact passes still search the grid);
//! [`super::GpuBackend::list_rows`] builds it on request, so that the twins can be compared.

use super::buffers::ListParams;
use super::prefix_sum::{self, ScanLevel};
use super::stages::{Stage, Stages};
use super::{WORKGROUP_SIZE, dispatch_dims, storage, uniform};

/// Compiles `shaders/neighbours.wgsl` and its entry points.
pub fn new(device: &wgpu::Device) -> Stage {
    Stage::new(
        device,
        "neighbours",
        &[
            ("sweeps", &[]),
            ("list_count", &[]),
            ("list_count_large", &[]),
            ("list_fill", &[]),
            ("list_fill_large", &[]),
            ("relink", &[]),
        ],
    )
}

/// The backend's buffers a build reads, for one state set.
pub struct ListInputs<'a> {
    /// The step's uniforms (`Params`).
    pub params: &'a wgpu::Buffer,
    /// Positions and radii (`n` × `vec4<f32>`, m), sorted order.
    pub pos: &'a wgpu::Buffer,
    /// Velocities and inverse masses (`n` × `vec4<f32>`, m/s and 1/kg).
    pub vel: &'a wgpu::Buffer,
    /// Input ids (`n` × u32).
    pub ids: &'a wgpu::Buffer,
    /// First sorted sphere of each bucket (`table_size + 1` × u32).
    pub cell_start: &'a wgpu::Buffer,
    /// Spheres per bucket (`table_size + 1` × u32).
    pub counts: &'a wgpu::Buffer,
    /// Each sphere's binned cell (`n` × `vec4<i32>`).
    pub cells: &'a wgpu::Buffer,
    /// Each large sphere's box of cells (2 × `vec4<i32>` each).
    pub boxes: &'a wgpu::Buffer,
}

/// The list's buffers on the GPU, for `n` spheres and at most `capacity` entries.
pub struct GpuList {
    /// Entries the list buffers hold; a build that needs more writes only these.
    pub capacity: u32,
    /// Each sphere's sweep σ, m (`n` × f32).
    pub sweep: wgpu::Buffer,
    /// First entry of each sorted sphere (`n + 1` × u32; the last is the entry count).
    pub start: wgpu::Buffer,
    /// Sorted index of each entry's partner (`capacity` × u32).
    pub partner: wgpu::Buffer,
    /// Each entry's link: owner flag and mirror entry (`capacity` × u32,
    /// `cpu::neighbours::NeighbourList::link`).
    pub link: wgpu::Buffer,
    /// Sorted index of each entry's sphere (`capacity` × u32), for the per-entry `relink`.
    pub row_of: wgpu::Buffer,
    scan: Vec<ScanLevel>,
    entry_dims: (u32, u32),
    bind: [wgpu::BindGroup; 2],
}

impl GpuList {
    /// Allocates the list for `n` spheres and `capacity` entries, bound to the inputs of both
    /// state sets; `max_dim` is the adapter's work-groups per dispatch dimension.
    pub fn new(
        device: &wgpu::Device,
        stages: &Stages,
        n: u32,
        capacity: u32,
        max_dim: u32,
        inputs: [ListInputs; 2],
    ) -> Self {
        let entries = 4 * capacity.max(1) as u64;
        let sweep = storage(device, "list sweeps", 4 * n as u64);
        let start = storage(device, "list start", 4 * (n as u64 + 1));
        let partner = storage(device, "list partners", entries);
        let link = storage(device, "list links", entries);
        let row_of = storage(device, "list rows", entries);
        let entry_dims = dispatch_dims(capacity.div_ceil(WORKGROUP_SIZE).max(1), max_dim);
        let params = uniform(
            device,
            "list params",
            &ListParams {
                capacity,
                dispatch_x: entry_dims.0 * WORKGROUP_SIZE,
                pad: [0; 2],
            },
        );
        let scan = prefix_sum::levels(device, &stages.prefix_sum, &start, n + 1, max_dim);
        let bind = inputs.map(|inp| {
            stages.neighbours.module.bind(
                device,
                &[
                    (0, inp.params),
                    (1, inp.pos),
                    (2, inp.vel),
                    (3, inp.ids),
                    (4, inp.cell_start),
                    (5, inp.counts),
                    (6, inp.cells),
                    (7, inp.boxes),
                    (8, &sweep),
                    (9, &start),
                    (10, &partner),
                    (11, &link),
                    (12, &row_of),
                    (13, &params),
                ],
            )
        });
        Self {
            capacity,
            sweep,
            start,
            partner,
            link,
            row_of,
            scan,
            entry_dims,
            bind,
        }
    }

    /// Records a build from the binning of state set `set`; `sphere_dims` are the work-groups
    /// of a per-sphere dispatch, `large_dims` those of one work-group per large sphere (`None`
    /// without large spheres).
    pub fn record(
        &self,
        enc: &mut wgpu::CommandEncoder,
        stages: &Stages,
        set: usize,
        sphere_dims: (u32, u32),
        large_dims: Option<(u32, u32)>,
    ) {
        enc.clear_buffer(&self.start, 0, None);
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("neighbours"),
            timestamp_writes: None,
        });
        let run = |pass: &mut wgpu::ComputePass, entry: &str, dims: (u32, u32)| {
            pass.push_debug_group(entry);
            pass.set_pipeline(stages.neighbours.pipeline(entry));
            pass.set_bind_group(0, &self.bind[set], &[]);
            pass.dispatch_workgroups(dims.0, dims.1, 1);
            pass.pop_debug_group();
        };
        run(&mut pass, "sweeps", sphere_dims);
        run(&mut pass, "list_count", sphere_dims);
        if let Some(dims) = large_dims {
            run(&mut pass, "list_count_large", dims);
        }
        pass.push_debug_group("prefix_sum");
        prefix_sum::record(&mut pass, &stages.prefix_sum, &self.scan);
        pass.pop_debug_group();
        run(&mut pass, "list_fill", sphere_dims);
        if let Some(dims) = large_dims {
            run(&mut pass, "list_fill_large", dims);
        }
        run(&mut pass, "relink", self.entry_dims);
    }
}
