//! GPU backend: the step of docs/architecture.md in WGSL compute shaders through wgpu.
//!
//! Stages have the names of `src/cpu/` and `shaders/`: integrate → neighbours (the rebuild
//! decision) → cell_keys → count → prefix_sum → scatter (place, rank, gather) → neighbours (the
//! list's build) → collide → gravity → integrate, then `check`. The binning and the build run
//! only in a step that rebuilds the list: the GPU decides, and the host records them as
//! indirect dispatches whose work-group counts the decision sets (`neighbours::Gate`).
//! Sphere state lives on the GPU in two sets of buffers (the scatter gathers from one into the
//! other each step, or copies it when there is no rebuild); many steps are recorded per
//! submission, and data comes back only for snapshots, diagnostics, and a 32-byte status per
//! submission (collisions, rebuilds, list entries needed, non-finite states).

pub mod buffers;
pub mod cell_keys;
pub mod collide;
pub mod context;
pub mod count;
pub mod diagnostics;
pub mod gravity;
pub mod integrate;
pub mod neighbours;
pub mod pipelines;
pub mod prefix_sum;
mod profiler;
mod readback;
pub mod scatter;
pub mod stages;
mod state;
pub mod tree;
pub mod work;

use crate::scene::{ContactModel, Scene};
use crate::setup::{MATCHING_ROUNDS, PackedScene, STAGES, contact_history, table_size};
use buffers::{Params, Status};
use bytemuck::{Pod, cast_slice};
pub use context::GpuContext;
use profiler::{Profiler, stage};
use stages::Stages;
use state::{SharedBuffers, StateSet};
use wgpu::util::DeviceExt;

/// Threads per work-group of every per-sphere stage (`WG` in common.wgsl).
pub const WORKGROUP_SIZE: u32 = 256;

/// Steps recorded into one submission at most.
pub const STEPS_PER_SUBMIT: u64 = 32;

/// Steps recorded into one command buffer, not yet submitted.
struct Batch {
    commands: wgpu::CommandBuffer,
    steps: u64,
    /// Compute dispatches recorded.
    dispatches: u64,
    /// Timestamp queries to read back (profiling only).
    queries: u32,
    /// The current state set before the batch was recorded.
    parity: usize,
}

/// Errors of the GPU backend.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No adapter could be opened.
    #[error(
        "no GPU adapter found ({0}); on a machine without a GPU install Mesa's lavapipe \
         (Debian: mesa-vulkan-drivers) or use --backend cpu"
    )]
    NoAdapter(String),
    /// The device could not be created.
    #[error("cannot create the GPU device: {0}")]
    Device(String),
    /// A buffer would exceed one of the adapter's limits.
    #[error(
        "scene too large for adapter {adapter}: the {buffer} buffer needs {need} bytes for {spheres} \
         spheres, over the adapter's {limit_name} of {limit} bytes; at most {fits} spheres fit"
    )]
    TooLarge {
        /// Adapter name.
        adapter: String,
        /// Which buffer.
        buffer: &'static str,
        /// Its size, bytes.
        need: u64,
        /// Spheres in the scene.
        spheres: usize,
        /// Limit name, e.g. `max_storage_buffer_binding_size`.
        limit_name: &'static str,
        /// Limit, bytes.
        limit: u64,
        /// Spheres that would fit under it.
        fits: u64,
    },
    /// The device ran out of memory while the scene's buffers were allocated.
    #[error(
        "scene too large for adapter {adapter}: allocating about {need} bytes of buffers for \
         {spheres} spheres ran out of device memory ({detail})"
    )]
    OutOfMemory {
        /// Adapter name.
        adapter: String,
        /// Estimated bytes ([`buffers::memory_estimate`]).
        need: u64,
        /// Spheres in the scene.
        spheres: usize,
        /// wgpu's message.
        detail: String,
    },
    /// A neighbour-list build needed more entries than the list holds: the steps since are
    /// invalid.
    #[error(
        "the GPU neighbour list overflowed by step {step}: a rebuild needed {needed} entries, \
         over the {capacity} it holds (it grows between submissions when three quarters full; \
         the scene compacted faster than that); rerun from a checkpoint before that step, or \
         with --backend cpu"
    )]
    ListOverflow {
        /// Steps done when it was noticed (the end of the submission).
        step: u64,
        /// Entries the build needed.
        needed: u32,
        /// Entries the list holds.
        capacity: u32,
    },
}

/// How a GPU step ended early.
#[derive(Debug)]
pub enum StepError {
    /// A non-finite state: `(step, sphere id)` of the first.
    NonFinite(u64, u32),
    /// The device could not go on ([`GpuError::ListOverflow`]).
    Gpu(GpuError),
}

/// Options of [`GpuBackend::new`].
#[derive(Clone, Copy, Debug, Default)]
pub struct GpuOptions {
    /// Lower the work-groups per dispatch dimension below the adapter's limit (tests use this to
    /// exercise 2-D dispatches on small scenes).
    pub max_workgroups_per_dim: Option<u32>,
    /// Lower the largest buffer binding below the adapter's limit, bytes (tests use this to
    /// exercise the too-large error).
    pub max_binding_size: Option<u64>,
    /// The neighbour list's capacity at set-up, entries, in place of sixteen a sphere (tests
    /// use this to exercise the list's growth).
    pub list_capacity: Option<u32>,
}

/// Work-group counts `(x, y)` for `groups` work-groups under `max` per dimension.
pub fn dispatch_dims(groups: u32, max: u32) -> (u32, u32) {
    if groups <= max {
        (groups.max(1), 1)
    } else {
        (max, groups.div_ceil(max))
    }
}

/// Bind groups of every stage for one parity of the state sets.
struct Binds {
    integrate: wgpu::BindGroup,
    cell_keys: wgpu::BindGroup,
    gather: wgpu::BindGroup,
    collide: wgpu::BindGroup,
    gravity: wgpu::BindGroup,
    diagnostics: wgpu::BindGroup,
}

impl Binds {
    /// The bind groups of parity `c`: state set `c` is the current one, the other the one the
    /// gather writes.
    fn new(
        device: &wgpu::Device,
        stages: &Stages,
        shared: &SharedBuffers,
        state: &[StateSet; 2],
        c: usize,
        list: &neighbours::GpuList,
    ) -> Self {
        let (s, o) = (&state[c], &state[1 - c]);
        Binds {
            integrate: stages.integrate.bind(device, shared, s),
            cell_keys: stages.cell_keys.bind(device, shared, s),
            gather: stages.gather.bind(device, shared, s, o),
            collide: stages.collide.bind(device, shared, s, list),
            gravity: stages.gravity.bind(device, shared, s),
            diagnostics: stages.diagnostics.bind(device, shared, s),
        }
    }
}

/// The GPU backend in f32.
pub struct GpuBackend {
    ctx: GpuContext,
    stages: Stages,
    n: u32,
    table_size: u32,
    dims: (u32, u32),
    /// Work-groups of a row pass (`sum_pairs`, `earliest_from_pairs`, `sum_impulses`).
    row_dims: (u32, u32),
    model: ContactModel,
    history: bool,
    rotation: bool,
    /// The rolling resistance law (none without rotation).
    rolling: crate::scene::RollingModel,
    g_on: bool,
    dt: f64,
    state: [StateSet; 2],
    // The buffers the stages share besides the state sets and the list (state::SharedBuffers).
    shared: SharedBuffers,
    // The neighbour list (stage `neighbours`; the soft laws read it) and its gate.
    list: neighbours::GpuList,
    gate: neighbours::Gate,
    walls: u32,
    rebuilds: u64,
    // Whether a step decides on a rebuild (soft laws with a skin; otherwise every step rebuilds).
    decide: bool,
    max_dim: u32,
    // Work counters (`work`): the counting replay's buffer and pipelines, and the dispatches
    // recorded, in all and by `step`, with the steps they were recorded for (the counters'
    // buffer is `shared.work`).
    counting: Option<collide::CollidePipelines>,
    dispatches: std::cell::Cell<u64>,
    step_dispatches: u64,
    recorded_steps: u64,
    // Dispatches of a step that are gated by the rebuild decision (`copy_state`, which runs
    // without a rebuild, among them), and the rebuilds before the counted steps.
    gated_per_step: u64,
    rebuilds_before_count: u64,
    bind_count: wgpu::BindGroup,
    bind_scatter: wgpu::BindGroup,
    scan: Vec<prefix_sum::ScanLevel>,
    binds: [Binds; 2],
    cur: usize,
    steps_done: u64,
    collisions: u64,
    radius_input: Vec<f64>,
    mass_input: Vec<f64>,
    profiler: Option<Profiler>,
    // Mutual gravity by the Barnes–Hut tree (`gravity_solver = "tree"`), else the direct sum.
    tree: Option<tree::GpuTree>,
}

/// Copies the first `size` bytes of `src` back to the host and waits for them.
pub(crate) fn read_buffer<T: Pod>(ctx: &GpuContext, src: &wgpu::Buffer, size: u64) -> Vec<T> {
    let device = &ctx.device;
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("read-back"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut enc = device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(src, 0, &staging, 0, size);
    ctx.queue.submit([enc.finish()]);
    let slice = staging.slice(..);
    slice.map_async(wgpu::MapMode::Read, |r| r.expect("map read-back buffer"));
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("GPU device lost while waiting");
    let data = cast_slice::<u8, T>(&slice.get_mapped_range().expect("mapped range")).to_vec();
    staging.unmap();
    data
}

pub(crate) fn storage(device: &wgpu::Device, label: &str, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: size.max(16),
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

pub(crate) fn init_storage<T: Pod>(device: &wgpu::Device, label: &str, data: &[T]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: cast_slice(data),
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC,
    })
}

pub(crate) fn uniform<T: Pod>(device: &wgpu::Device, label: &str, data: &T) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytemuck::bytes_of(data),
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    })
}

impl GpuBackend {
    /// Sets up a checked scene on the adapter the environment selects (see [`GpuContext::new`]).
    ///
    /// # Errors
    /// [`GpuError::NoAdapter`], [`GpuError::Device`], or [`GpuError::TooLarge`] (checked before
    /// any sphere buffer is allocated).
    pub fn new(scene: &Scene, opts: GpuOptions) -> Result<Self, GpuError> {
        let ctx = GpuContext::new()?;
        Self::with_context(ctx, scene, opts)
    }

    /// As [`GpuBackend::new`] on an open context.
    pub fn with_context(
        ctx: GpuContext,
        scene: &Scene,
        opts: GpuOptions,
    ) -> Result<Self, GpuError> {
        let n = scene.spheres.len();
        let ts = table_size(n);
        let history = contact_history(scene);
        let rotation = scene.sim.rotation;
        let rolling = scene.rolling_model();
        // Capped by what one binding holds (neighbours::largest_entry_binding): a sparse scene
        // of a million spheres then still fits lavapipe's 128 MiB, and the list grows if it
        // must.
        let entry_limit = neighbours::max_capacity(
            buffers::binding_limit(&ctx.limits, opts.max_binding_size).0,
            history,
            rotation,
            rolling,
        );
        let capacity = opts
            .list_capacity
            .unwrap_or_else(|| {
                neighbours::initial_capacity(n as u32).min(entry_limit.min(u32::MAX as u64) as u32)
            })
            .max(1);
        let tree_on = scene.sim.gravity_solver == crate::scene::GravitySolver::Tree
            && scene.sim.g_const > 0.0
            && n > 0;
        buffers::check_fits(
            &ctx,
            n,
            ts,
            capacity,
            history,
            tree_on,
            (rotation, rolling),
            opts.max_binding_size,
        )?;
        let packed = PackedScene::new(scene);
        let p = &packed;
        let sp = &p.params;
        let device = &ctx.device;
        // Classified in f32, as the shaders compare.
        let n_large = p.large_count(|r| r as f32);
        let max_dim = opts
            .max_workgroups_per_dim
            .unwrap_or(u32::MAX)
            .min(ctx.limits.max_compute_workgroups_per_dimension);
        let n_groups = (n as u32).div_ceil(WORKGROUP_SIZE);
        let dims = dispatch_dims(n_groups, max_dim);
        // Row passes: a work-group per large sphere after the small spheres' (collide.wgsl).
        let row_dims = dispatch_dims(
            ((n - n_large) as u32).div_ceil(WORKGROUP_SIZE) + n_large as u32,
            max_dim,
        );
        let params = Params::of_scene(p, n_large, ts, dims.0 * WORKGROUP_SIZE, row_dims.0);

        // The binding limits were checked above; the device may still run out of memory as a
        // whole, which wgpu reports as an error, not a failed allocation.
        let oom_scope = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let state = StateSet::upload(device, p);
        let planes = state::wall_records(p);
        let groups = (dims.0 * dims.1) as u64;
        let shared = SharedBuffers::new(device, &params, &planes, ts, n_large, groups);
        let stages = Stages::new(device);

        // Prefix-sum levels of the cell-start table, scanned in place.
        let scan = prefix_sum::levels(
            device,
            &stages.prefix_sum,
            &shared.cell_start,
            ts + 1,
            max_dim,
        );

        let large_dims = (n_large > 0).then(|| dispatch_dims(n_large as u32, max_dim));
        let table_dims = dispatch_dims((ts + 1).div_ceil(WORKGROUP_SIZE), max_dim);
        let gate = neighbours::Gate::new(
            device,
            dims,
            table_dims,
            large_dims,
            neighbours::entry_dims(capacity, max_dim),
            &prefix_sum::level_dims(ts + 1, max_dim),
            &prefix_sum::level_dims(n as u32 + 1, max_dim),
        );
        let walls = p.walls.len() as u32;
        let list = neighbours::GpuList::new(
            device,
            &stages,
            n as u32,
            walls,
            capacity,
            history,
            (rotation, rolling),
            max_dim,
            [
                neighbours::list_inputs(&shared, &state[0], &gate),
                neighbours::list_inputs(&shared, &state[1], &gate),
            ],
        );
        let binds = [0, 1].map(|c| Binds::new(device, &stages, &shared, &state, c, &list));
        let bind_count = stages.count.bind(device, &shared);
        let bind_scatter = stages.scatter.bind(device, &shared);

        let tree = tree_on.then(|| {
            let inputs = [0, 1].map(|c| tree::TreeInputs {
                pos: &state[c].pos,
                acc: &state[c].acc,
                a_mutual: &shared.a_mutual,
            });
            tree::GpuTree::new(
                device,
                n as u32,
                scene.sim.theta as f32,
                sp.g_const as f32,
                sp.eps2 as f32,
                max_dim,
                &inputs,
            )
        });
        if let Some(e) = pollster::block_on(oom_scope.pop()) {
            return Err(GpuError::OutOfMemory {
                adapter: ctx.adapter_name(),
                need: buffers::memory_estimate(
                    n as u64,
                    ts as u64,
                    capacity as u64,
                    history,
                    tree_on,
                    rotation,
                    rolling,
                ),
                spheres: n,
                detail: e.to_string(),
            });
        }
        let mut b = Self {
            ctx,
            stages,
            n: n as u32,
            table_size: ts,
            dims,
            row_dims,
            model: sp.contact,
            history,
            rotation,
            rolling,
            g_on: sp.g_const > 0.0,
            dt: sp.dt,
            state,
            shared,
            list,
            gate,
            walls,
            rebuilds: 0,
            decide: sp.skin > 0.0,
            max_dim,
            counting: None,
            dispatches: std::cell::Cell::new(0),
            step_dispatches: 0,
            recorded_steps: 0,
            gated_per_step: 0,
            rebuilds_before_count: 0,
            bind_count,
            bind_scatter,
            scan,
            binds,
            cur: 0,
            steps_done: 0,
            collisions: 0,
            radius_input: packed.radius.clone(),
            mass_input: packed.mass.clone(),
            profiler: None,
            tree,
        };
        b.initialise()?;
        Ok(b)
    }

    /// The adapter, e.g. `llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan, Cpu)`.
    pub fn adapter_name(&self) -> String {
        self.ctx.adapter_name()
    }

    /// Work-groups per dispatch along x and y of the per-sphere stages.
    pub fn dispatch(&self) -> (u32, u32) {
        self.dims
    }

    /// Records a dispatch of `groups` work-groups and counts it.
    fn dispatch_groups(
        &self,
        pass: &mut wgpu::ComputePass,
        pipeline: &wgpu::ComputePipeline,
        bg: &wgpu::BindGroup,
        groups: (u32, u32),
    ) {
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, bg, &[]);
        pass.dispatch_workgroups(groups.0, groups.1, 1);
        self.dispatches.set(self.dispatches.get() + 1);
    }

    fn dispatch_spheres(
        &self,
        pass: &mut wgpu::ComputePass,
        pipeline: &wgpu::ComputePipeline,
        bg: &wgpu::BindGroup,
    ) {
        self.dispatch_groups(pass, pipeline, bg, self.dims);
    }

    /// Dispatches a row pass: a work-group per [`WORKGROUP_SIZE`] small spheres, then one per
    /// large sphere.
    fn dispatch_rows(
        &self,
        pass: &mut wgpu::ComputePass,
        pipeline: &wgpu::ComputePipeline,
        bg: &wgpu::BindGroup,
    ) {
        self.dispatch_groups(pass, pipeline, bg, self.row_dims);
    }

    /// The contact passes: the counting ones while work is counted.
    fn collide_passes(&self) -> &collide::CollidePipelines {
        self.counting
            .as_ref()
            .unwrap_or(&self.stages.collide.passes)
    }

    /// Begins a compute pass of stage group `stage` (an index into [`STAGES`]), with
    /// timestamp writes when profiling.
    fn pass<'e>(
        &self,
        enc: &'e mut wgpu::CommandEncoder,
        label: &'static str,
        stage: usize,
    ) -> wgpu::ComputePass<'e> {
        enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(label),
            timestamp_writes: self.profiler.as_ref().and_then(|p| p.writes(stage)),
        })
    }

    /// A dispatch gated by the list's rebuild decision: indirect, from slot `k` of the gate
    /// (`neighbours::slot`).
    fn dispatch_gated(
        &self,
        pass: &mut wgpu::ComputePass,
        pipeline: &wgpu::ComputePipeline,
        bg: &wgpu::BindGroup,
        k: usize,
    ) {
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, bg, &[]);
        pass.dispatch_workgroups_indirect(&self.gate.gated, neighbours::Gate::offset(k));
        self.dispatches.set(self.dispatches.get() + 1);
    }

    /// The first half of a step (of set-up with `init`): stage integrate (the drift; at set-up
    /// the speed only), the list's rebuild decision (`neighbours`), and, in a step that
    /// rebuilds, stages cell_keys, count, prefix_sum, scatter and the list's build. Sorts the
    /// state from set `cur` into the other set (copies it, without a rebuild), which becomes
    /// current. Mirrors the first half of `CpuBackend::step` and `contacts`.
    fn record_binning(&mut self, enc: &mut wgpu::CommandEncoder, init: bool) {
        use neighbours::slot::*;
        let c = self.cur;
        enc.clear_buffer(&self.shared.grid, 0, Some(4));
        if !init {
            // Set-up's flag (2: build, not counted) is written by `initialise`.
            enc.clear_buffer(&self.gate.rebuild, 0, Some(4));
        }
        {
            let mut pass = self.pass(enc, "integrate", stage::INTEGRATE);
            let ig = &self.stages.integrate;
            let (label, first) = if init {
                ("integrate::measure_speed", &ig.measure_speed)
            } else {
                ("integrate::kick_drift", &ig.kick_drift)
            };
            pass.push_debug_group(label);
            self.dispatch_spheres(&mut pass, first, &self.binds[c].integrate);
            pass.pop_debug_group();
        }
        {
            let mut pass = self.pass(enc, "neighbours::needs_rebuild", stage::BINNING);
            let decide = !init && self.decide;
            let d = self
                .list
                .record_decide(&mut pass, &self.stages, c, self.dims, decide);
            self.dispatches.set(self.dispatches.get() + d);
        }
        let first_gated = self.dispatches.get();
        {
            let mut pass = self.pass(enc, "cell_keys + count", stage::BINNING);
            pass.push_debug_group("cell_keys");
            let cell_keys = &self.binds[c].cell_keys;
            let ck = &self.stages.cell_keys;
            self.dispatch_gated(&mut pass, &ck.cell_keys, cell_keys, SPHERES);
            pass.pop_debug_group();
            pass.push_debug_group("count");
            let count = &self.stages.count;
            let bg = &self.bind_count;
            self.dispatch_gated(&mut pass, &count.clear_counts, bg, TABLE);
            self.dispatch_gated(&mut pass, &count.count, bg, SPHERES);
            self.dispatch_gated(&mut pass, &count.seed_cell_start, bg, TABLE);
            pass.pop_debug_group();
        }
        {
            let mut pass = self.pass(enc, "prefix_sum + scatter", stage::BINNING);
            pass.push_debug_group("prefix_sum");
            let scans = prefix_sum::record(
                &mut pass,
                &self.stages.prefix_sum,
                &self.scan,
                Some((&self.gate.gated, SCANS)),
            );
            self.dispatches.set(self.dispatches.get() + scans);
            pass.pop_debug_group();
            pass.push_debug_group("scatter");
            let scatter = &self.stages.scatter;
            let bg = &self.bind_scatter;
            self.dispatch_gated(&mut pass, &scatter.place, bg, SPHERES);
            self.dispatch_gated(&mut pass, &scatter.rank, bg, SPHERES);
            let gather = &self.stages.gather;
            let bg = &self.binds[c].gather;
            self.dispatch_gated(&mut pass, &gather.gather, bg, SPHERES);
            self.dispatch_gated(&mut pass, &gather.copy_state, bg, COPY);
            pass.pop_debug_group();
        }
        self.cur = 1 - c;
        let mut pass = self.pass(enc, "cell_keys::bin_cells + neighbours", stage::BINNING);
        pass.push_debug_group("cell_keys::bin_cells");
        self.dispatch_gated(
            &mut pass,
            &self.stages.cell_keys.bin_cells,
            &self.binds[self.cur].cell_keys,
            SPHERES,
        );
        pass.pop_debug_group();
        pass.push_debug_group("neighbours");
        let d = self
            .list
            .record_build(&mut pass, &self.stages, self.cur, &self.gate, true);
        self.dispatches.set(self.dispatches.get() + d);
        pass.pop_debug_group();
        drop(pass);
        self.gated_per_step = self.dispatches.get() - first_gated;
    }

    /// Stages collide (impulses: [`MATCHING_ROUNDS`] matching rounds and the final round,
    /// applied unless `init`; the soft laws: `collide_pairs` and `sum_pairs` from the list),
    /// gravity, and the end of the step: accelerations alone at set-up (`init`), otherwise one
    /// pass of accelerations, the second kick and the check, which also tallies (and, for
    /// impulses without a gravity pass between, applies) the last round. Mirrors
    /// `CpuBackend::contacts` and `forces`. One compute pass per stage group, so that each can
    /// be timed.
    fn record_forces(&self, enc: &mut wgpu::CommandEncoder, init: bool) {
        let b = &self.binds[self.cur];
        let impulse = self.model == ContactModel::Impulse;
        let ig = &self.stages.integrate;
        {
            let mut pass = self.pass(enc, "collide", stage::CONTACTS);
            pass.push_debug_group("collide");
            let entries = self.list.entry_dims;
            let c = self.collide_passes();
            if impulse {
                let pairs = |pass: &mut wgpu::ComputePass, pipeline: &wgpu::ComputePipeline| {
                    self.dispatch_groups(pass, pipeline, &b.collide, entries)
                };
                let spheres = |pass: &mut wgpu::ComputePass, pipeline: &wgpu::ComputePipeline| {
                    self.dispatch_rows(pass, pipeline, &b.collide)
                };
                let rounds = if init { 0 } else { MATCHING_ROUNDS };
                pairs(&mut pass, &c.impulse_pairs_binary);
                for _ in 0..rounds {
                    spheres(&mut pass, &c.earliest_from_pairs);
                    spheres(&mut pass, &c.sum_impulses_matching);
                    // The round's collisions tallied, then applied.
                    self.dispatch_spheres(&mut pass, &ig.apply_contacts, &b.integrate);
                    pairs(&mut pass, &c.impulse_pairs_binary);
                }
                if !init {
                    // Pending collisions per sphere: the final round's mass-splitting factors.
                    spheres(&mut pass, &c.earliest_from_pairs);
                }
                pairs(&mut pass, &c.impulse_pairs_final);
                spheres(&mut pass, &c.sum_impulses_final);
                if !init && self.g_on {
                    // Gravity reads the applied positions: apply before it.
                    self.dispatch_spheres(&mut pass, &ig.apply_contacts, &b.integrate);
                }
            } else {
                self.dispatch_groups(&mut pass, &c.collide_pairs, &b.collide, entries);
                self.dispatch_rows(&mut pass, &c.sum_pairs, &b.collide);
            }
            pass.pop_debug_group();
        }
        if init && self.history {
            // No time has passed: set-up starts no friction history (CpuBackend::contacts).
            enc.clear_buffer(&self.list.xi, 0, None);
            enc.clear_buffer(&self.list.wall_xi, 0, None);
        }
        if self.g_on {
            self.record_gravity(enc, 1);
        }
        let mut pass = self.pass(enc, "integrate::end_of_step", stage::FORCES);
        if init {
            pass.push_debug_group("integrate::accelerations");
            self.dispatch_spheres(&mut pass, &ig.accelerations, &b.integrate);
        } else {
            pass.push_debug_group("integrate::end_of_step");
            let variant = integrate::EndOfStep::of(impulse, self.g_on);
            self.dispatch_spheres(&mut pass, &ig.end_of_step[variant as usize], &b.integrate);
        }
        pass.pop_debug_group();
    }

    /// Stage gravity, `k` times, on the current state set: the direct sum in one pass, or the
    /// tree (built and walked each time) in one pass per evaluation.
    fn record_gravity(&self, enc: &mut wgpu::CommandEncoder, k: u32) {
        if let Some(t) = &self.tree {
            for _ in 0..k {
                let d = t.record(enc, self.cur, false, |e| {
                    self.pass(e, "gravity tree", stage::GRAVITY)
                });
                self.dispatches.set(self.dispatches.get() + d);
            }
            return;
        }
        let mut pass = self.pass(enc, "gravity", stage::GRAVITY);
        pass.push_debug_group("gravity");
        for _ in 0..k {
            self.dispatch_spheres(
                &mut pass,
                &self.stages.gravity.gravity,
                &self.binds[self.cur].gravity,
            );
        }
        pass.pop_debug_group();
    }

    /// Set-up: bins the input, builds the list, and computes the first forces. When the list
    /// needed more entries than it holds, it grows, and the build and the forces run again on
    /// the same binning.
    fn initialise(&mut self) -> Result<(), GpuError> {
        // 2: build, and do not count it as a rebuild.
        self.ctx
            .queue
            .write_buffer(&self.gate.rebuild, 0, bytemuck::bytes_of(&2u32));
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        self.record_binning(&mut enc, true);
        self.record_forces(&mut enc, true);
        self.ctx.queue.submit([enc.finish()]);
        loop {
            let status = self.take_status();
            if status.list_needed <= self.list.capacity {
                return Ok(());
            }
            self.grow_list(status.list_needed)?;
            let mut enc = self.ctx.device.create_command_encoder(&Default::default());
            // No old rows: set-up carries no friction history.
            enc.clear_buffer(&self.list.start, 0, None);
            {
                let mut pass = self.pass(&mut enc, "neighbours", stage::BINNING);
                let d =
                    self.list
                        .record_build(&mut pass, &self.stages, self.cur, &self.gate, false);
                self.dispatches.set(self.dispatches.get() + d);
            }
            self.record_forces(&mut enc, true);
            self.ctx.queue.submit([enc.finish()]);
        }
    }

    /// Reads the status counters and clears those counted since the last read.
    fn take_status(&self) -> Status {
        let size = std::mem::size_of::<Status>() as u64;
        let status: Status = self.read(&self.shared.status, size)[0];
        self.ctx
            .queue
            .write_buffer(&self.shared.status, 8, bytemuck::bytes_of(&[0u32; 4]));
        status
    }

    /// Records `m` steps into one command buffer (and the timestamp resolve when profiling).
    fn record_batch(&mut self, m: u64) -> Batch {
        let parity = self.cur;
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        let before = self.dispatches.get();
        for _ in 0..m {
            self.record_binning(&mut enc, false);
            self.record_forces(&mut enc, false);
        }
        let queries = self.profiler.as_ref().map_or(0, |p| p.pending());
        if let Some(p) = self.profiler.as_ref().filter(|_| queries > 0) {
            enc.resolve_query_set(&p.query_set, 0..queries, &p.resolve, 0);
        }
        Batch {
            commands: enc.finish(),
            steps: m,
            dispatches: self.dispatches.get() - before,
            queries,
            parity,
        }
    }

    /// Forgets a recorded batch that will not be submitted: the state set it would have left
    /// current is not.
    fn discard(&mut self, batch: Option<Batch>) {
        if let Some(b) = batch {
            self.cur = b.parity;
        }
    }

    /// Advances `k` steps in submissions of at most [`STEPS_PER_SUBMIT`]. Without profiling, the
    /// next submission is recorded while the GPU runs the current one, before the host blocks
    /// on the current one's status; it is dropped (and recorded again) when the list must grow
    /// first.
    ///
    /// # Errors
    /// [`StepError::NonFinite`] with `(step, sphere id)` of the first non-finite state;
    /// [`StepError::Gpu`] when the neighbour list overflowed or cannot grow.
    pub fn step(&mut self, k: u64) -> Result<(), StepError> {
        let mut left = k;
        let mut next: Option<Batch> = None;
        while left > 0 {
            let batch = match next.take() {
                Some(b) => b,
                None => self.record_batch(left.min(STEPS_PER_SUBMIT)),
            };
            let queries = batch.queries;
            self.ctx.queue.submit([batch.commands]);
            self.step_dispatches += batch.dispatches;
            self.recorded_steps += batch.steps;
            self.steps_done += batch.steps;
            left -= batch.steps;
            if self.profiler.is_none() && left > 0 {
                next = Some(self.record_batch(left.min(STEPS_PER_SUBMIT)));
            }
            // Blocks until the submission is done: stepping is timed to completion.
            let status = self.take_status();
            if let Some(p) = &self.profiler {
                if queries > 0 {
                    let ticks: Vec<u64> = self.read(&p.resolve, 8 * queries as u64);
                    self.profiler.as_mut().expect("profiler").accumulate(&ticks);
                }
            }
            self.collisions += status.collisions as u64;
            self.rebuilds += status.rebuilds as u64;
            if status.first_bad_step != u32::MAX {
                self.discard(next);
                return Err(StepError::NonFinite(
                    status.first_bad_step as u64,
                    status.bad_id,
                ));
            }
            let needed = status.list_needed;
            if needed > self.list.capacity {
                self.discard(next);
                return Err(StepError::Gpu(GpuError::ListOverflow {
                    step: self.steps_done,
                    needed,
                    capacity: self.list.capacity,
                }));
            }
            // Three quarters full: room for the next submission's rebuilds. The batch recorded
            // meanwhile binds the old list.
            if needed as u64 * 4 > self.list.capacity as u64 * 3 {
                self.discard(next.take());
                self.grow_list(needed).map_err(StepError::Gpu)?;
            }
        }
        Ok(())
    }

    /// Counts work from now on, or stops counting: the contact passes switch to pipelines
    /// that count the candidate pairs each invocation visits (`work`), and the counters and
    /// the dispatch tally start from zero. The counting pipelines are compiled at the first
    /// call.
    pub fn set_work_counting(&mut self, on: bool) {
        if on && self.counting.is_none() {
            self.counting = Some(collide::CollidePipelines::new(
                &self.ctx.device,
                &self.stages.collide.module,
                true,
            ));
        }
        if !on {
            self.counting = None;
        }
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        enc.clear_buffer(&self.shared.work, 0, None);
        self.ctx.queue.submit([enc.finish()]);
        self.step_dispatches = 0;
        self.recorded_steps = 0;
        self.rebuilds_before_count = self.rebuilds;
    }

    /// The work counted since [`GpuBackend::set_work_counting`] (pair visits only while it is
    /// on; dispatches per step always).
    pub fn work_counts(&self) -> work::WorkCounts {
        let bytes = 4 * work::WORDS as u64;
        let words: Vec<u32> = self.read(&self.shared.work, bytes);
        let words: [u32; work::WORDS] = words[..work::WORDS].try_into().expect("counter words");
        let steps = self.recorded_steps as f64;
        let per_step = (steps > 0.0).then(|| self.step_dispatches as f64 / steps);
        // Of the gated dispatches, all but `copy_state` run in a step that rebuilds, and
        // `copy_state` alone in one that does not.
        let rebuilt = (self.rebuilds - self.rebuilds_before_count) as f64 / steps;
        let gated = self.gated_per_step as f64;
        let with_work = per_step.map(|d| d - gated + (gated - 1.0) * rebuilt + (1.0 - rebuilt));
        work::from_words(&words, per_step, with_work)
    }

    /// Steps completed.
    pub fn steps_done(&self) -> u64 {
        self.steps_done
    }

    /// Entries the neighbour list holds now (it grows as builds need).
    pub fn list_capacity(&self) -> u32 {
        self.list.capacity
    }

    /// Turns per-stage timing by timestamp queries on or off; returns whether it is on (never
    /// without the adapter feature `TIMESTAMP_QUERY`). Costs a little: each pass writes two
    /// timestamps and every submission resolves them.
    pub fn set_profiling(&mut self, on: bool) -> bool {
        if !on || !self.ctx.timestamps {
            self.profiler = None;
        } else if self.profiler.is_none() {
            self.profiler = Some(Profiler::new(&self.ctx.device, &self.ctx.queue));
        }
        self.profiler.is_some()
    }

    /// Runs only the mutual-gravity stage `k` times on the current positions, in one submission,
    /// and waits for it to finish: a benchmark of the tiled direct sum, N(N−1) interactions per
    /// run. The state does not change (the stage recomputes the same accelerations). Returns
    /// `false`, running nothing, when the scene has no mutual gravity (G = 0).
    pub fn gravity_only(&mut self, k: u32) -> bool {
        if !self.g_on {
            return false;
        }
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        self.record_gravity(&mut enc, k);
        self.ctx.queue.submit([enc.finish()]);
        self.ctx
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("GPU device lost while waiting");
        true
    }

    /// GPU seconds per stage group since profiling was turned on, named as
    /// [`STAGES`]; empty when profiling is off.
    pub fn stage_seconds(&self) -> Vec<(&'static str, f64)> {
        match &self.profiler {
            Some(p) => STAGES.iter().copied().zip(p.totals).collect(),
            None => Vec::new(),
        }
    }

    /// Interaction counts of the last gravity-tree walk, read back from the device; `None`
    /// unless the scene sums gravity by the tree.
    pub fn walk_counts(&self) -> Option<crate::cpu::tree::WalkCounts> {
        self.tree.as_ref().map(|t| t.walk_counts(&self.ctx))
    }

    /// The device and queue the backend runs on (the viewer draws with them).
    pub fn context(&self) -> &GpuContext {
        &self.ctx
    }

    /// Which of the two state sets holds the current state (0 or 1); it flips every step.
    pub fn current_set(&self) -> usize {
        self.cur
    }

    /// Buffers of state set `set` (0 or 1): `pos` (`n` × `vec4<f32>`: xyz position m, w radius m),
    /// `vel` (`n` × `vec4<f32>`: xyz velocity m/s, w inverse mass 1/kg) and `id` (`n` × u32: input
    /// id of each slot). Slot order changes every step (the scatter sorts by cell).
    ///
    /// # Panics
    /// When `set` is not 0 or 1.
    pub fn state_buffers(&self, set: usize) -> [&wgpu::Buffer; 3] {
        let s = &self.state[set];
        [&s.pos, &s.vel, &s.id]
    }

    /// The rotation state of state set `set` (0 or 1): 3 `vec4<f32>` a slot (ω | inverse
    /// inertia, the orientation quaternion x, y, z, w, angular acceleration | μ_r); a 16-byte
    /// stand-in without rotation.
    pub fn rotation_buffer(&self, set: usize) -> &wgpu::Buffer {
        &self.state[set].rot
    }
}
