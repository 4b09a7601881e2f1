//! Set-up of the GPU backend: the checks against the adapter's limits, the
//! allocation of every buffer and bind group, and the first binning, list build and forces.

use super::buffers::{self, Params};
use super::stages::Stages;
use super::state::{self, SharedBuffers, StateSet};
use super::{GpuBackend, GpuContext, GpuError, GpuOptions, WORKGROUP_SIZE};
use super::{neighbours, prefix_sum, tree};
use crate::scene::Scene;
use crate::setup::PackedScene;

/// Work-group counts `(x, y)` for `groups` work-groups under `max` per dimension.
pub fn dispatch_dims(groups: u32, max: u32) -> (u32, u32) {
    if groups <= max {
        (groups.max(1), 1)
    } else {
        (max, groups.div_ceil(max))
    }
}

/// Bind groups of every stage for one parity of the state sets.
pub(super) struct Binds {
    pub(super) integrate: wgpu::BindGroup,
    /// The drift's (`Integrate::bind` with `head`).
    pub(super) integrate_head: wgpu::BindGroup,
    pub(super) cell_keys: wgpu::BindGroup,
    pub(super) gather: wgpu::BindGroup,
    pub(super) collide: wgpu::BindGroup,
    pub(super) gravity: wgpu::BindGroup,
    pub(super) diagnostics: wgpu::BindGroup,
}

impl Binds {
    /// The bind groups of parity `c`: state set `c` is the current one, the other the one the
    /// gather writes.
    pub(super) fn new(
        device: &wgpu::Device,
        stages: &Stages,
        shared: &SharedBuffers,
        state: &[StateSet; 2],
        c: usize,
        (list, gate): (&neighbours::GpuList, &neighbours::Gate),
        scan_sums: &wgpu::Buffer,
    ) -> Self {
        let (s, o) = (&state[c], &state[1 - c]);
        Binds {
            integrate: stages
                .integrate
                .bind(device, shared, s, (list, gate), false),
            integrate_head: stages.integrate.bind(device, shared, s, (list, gate), true),
            cell_keys: stages.cell_keys.bind(device, shared, s, scan_sums),
            gather: stages.gather.bind(device, shared, s, o, &gate.rebuild),
            collide: stages.collide.bind(device, shared, s, list),
            gravity: stages.gravity.bind(device, shared, s),
            diagnostics: stages.diagnostics.bind(device, shared, s),
        }
    }
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
        // Packed first: the buffers' sizes depend on the step's parameters (`crate::params`).
        let packed = PackedScene::new(scene);
        // Room for more spheres than the scene's (`GpuOptions::sphere_capacity`): the buffers
        // are sized for `cap`, the dispatches for the `n` present (`set_count`).
        let cap = if packed.params.gravity_tree() || packed.large_count(|r| r as f32) > 0 {
            n
        } else {
            opts.sphere_capacity.unwrap_or(n).max(n)
        };
        let packed = packed.with_room(cap);
        let p = &packed;
        let sp = &p.params;
        let (ts, history) = (sp.table_size, sp.history);
        let (rotation, rolling) = (sp.rotation, sp.rolling);
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
        check_normal(p)?;
        let tree_on = sp.gravity_tree() && n > 0;
        let options =
            buffers::option_bytes_per_sphere(sp.periodic.any(), sp.wall_forces, p.walls.len());
        buffers::check_fits(
            &ctx,
            cap,
            ts,
            capacity,
            history,
            tree_on,
            (rotation, rolling),
            (
                if sp.wall_forces {
                    16 * p.walls.len() as u64
                } else {
                    0
                },
                options,
            ),
            opts.max_binding_size,
        )?;
        let device = &ctx.device;
        // Classified in f32, as the shaders compare.
        let n_large = p.large_count(|r| r as f32);
        let max_dim = opts
            .max_workgroups_per_dim
            .unwrap_or(u32::MAX)
            .min(ctx.limits.max_compute_workgroups_per_dimension);
        let n_groups = (cap as u32).div_ceil(WORKGROUP_SIZE);
        let dims = dispatch_dims(n_groups, max_dim);
        // Row passes: a work-group per large sphere after the small spheres' (collide.wgsl).
        let row_dims = dispatch_dims(
            ((cap - n_large) as u32).div_ceil(WORKGROUP_SIZE) + n_large as u32,
            max_dim,
        );
        let params = Params::of(
            sp,
            n,
            n_large,
            p.walls.len(),
            dims.0 * WORKGROUP_SIZE,
            row_dims.0,
        );

        // The binding limits were checked above; the device may still run out of memory as a
        // whole, which wgpu reports as an error, not a failed allocation.
        let oom_scope = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let state = StateSet::upload(device, p);
        let planes = state::wall_records(p);
        let groups = (dims.0 * dims.1) as u64;
        let large_chunks = neighbours::large_chunks(
            (n - n_large) as u32,
            n_large as u32,
            opts.large_run.unwrap_or(neighbours::LARGE_RUN),
        );
        let shared = SharedBuffers::new(
            device,
            (&params, cap as u64),
            &planes,
            &p.image,
            ts,
            (n_large, large_chunks),
            groups,
        );
        let stages = ctx.stages(opts.fused_drift);

        // Prefix-sum levels of the cell-start table, scanned in place.
        let scan = prefix_sum::levels(
            device,
            &stages.prefix_sum,
            &shared.cell_start,
            ts + 1,
            max_dim,
        );

        let large_dims =
            (n_large > 0).then(|| dispatch_dims(n_large as u32 * large_chunks, max_dim));
        let table_dims = dispatch_dims((ts + 1).div_ceil(WORKGROUP_SIZE), max_dim);
        let gate = neighbours::Gate::new(
            device,
            dims,
            table_dims,
            large_dims,
            (neighbours::entry_dims(capacity, max_dim), row_dims),
            &prefix_sum::level_dims(ts + 1, max_dim),
            &prefix_sum::level_dims(cap as u32 + 1, max_dim),
        );
        let walls = p.walls.len() as u32;
        let list = neighbours::GpuList::new(
            device,
            &stages,
            cap as u32,
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
        // The cell starts' first block sums: cell_keys zeroes them, seed_cell_start adds them.
        let scan_sums = prefix_sum::first_sums(&scan);
        let binds = [0, 1].map(|c| {
            Binds::new(
                device,
                &stages,
                &shared,
                &state,
                c,
                (&list, &gate),
                scan_sums,
            )
        });
        let bind_count = stages.count.bind(device, &shared, scan_sums);
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
                sp.theta as f32,
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
                    cap as u64,
                    ts as u64,
                    capacity as u64,
                    history,
                    tree_on,
                    rotation,
                    rolling,
                    options,
                ),
                spheres: n,
                detail: e.to_string(),
            });
        }
        let mut b = Self {
            ctx,
            stages,
            n: n as u32,
            params: *sp,
            dims,
            state,
            shared,
            list,
            gate,
            walls,
            rebuilds: 0,
            halting: sp.skin > 0.0 && tree.is_none(),
            parity: 0,
            planner: super::plan::Planner::default(),
            max_dim,
            binding_lowered: opts.max_binding_size,
            counting: None,
            counting_walks: None,
            dispatches: std::cell::Cell::new(0),
            gated: std::cell::Cell::new(0),
            step_dispatches: 0,
            step_with_work: 0,
            counted_steps: 0,
            snapshot_staging: super::buffers::Staging::default(),
            diagnostics_staging: super::buffers::Staging::default(),
            status_staging: super::buffers::Staging::default(),
            one_off_reads: std::cell::Cell::new(0),
            gated_bytes: 0,
            step_bytes: 0,
            step_bytes_with_work: 0,
            bind_count,
            bind_scatter,
            scan,
            binds,
            cur: 0,
            steps_done: 0,
            steps_recorded: 0,
            collisions: 0,
            radius_input: packed.radius[..n].to_vec(),
            mass_input: packed.mass[..n].to_vec(),
            profiler: None,
            tree,
            recipe: Vec::new(),
        };
        b.recipe = crate::recipe::step(b.recipe_config(), false);
        if cap > n {
            // The dispatches for the spheres present, not the room.
            b.set_count(n as u32);
        }
        b.initialise(opts.list_capacity.is_none())?;
        Ok(b)
    }

    /// Set-up: bins the input, builds the list, and computes the first forces. When the list
    /// needed more entries than it holds, it grows, and the build and the forces run again on
    /// the same binning. With the default capacity (`sized`), a build that fills more than half
    /// of it also grows it, to twice the build's need.
    fn initialise(&mut self, sized: bool) -> Result<(), GpuError> {
        // 2: build, and do not count it as a rebuild.
        self.ctx
            .queue
            .write_buffer(&self.gate.rebuild, 0, bytemuck::bytes_of(&2u32));
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        self.record_step(&mut enc, true, true, true);
        self.record_step(&mut enc, true, true, false);
        self.ctx.queue.submit([enc.finish()]);
        loop {
            let status = self.take_status();
            let needed = status.list_needed;
            if needed <= self.list.capacity {
                // The default capacity makes room for the first submission's rebuilds: twice
                // set-up's build, as a growth between submissions gives. A list that fills
                // within a submission is an error, and spheres closing in (an impact) fill it
                // fast. A capacity the options give is kept, to exercise the growth.
                if sized && needed as u64 * 2 > self.list.capacity as u64 {
                    self.grow_list(needed)?;
                }
                return Ok(());
            }
            self.grow_list(status.list_needed)?;
            let mut enc = self.ctx.device.create_command_encoder(&Default::default());
            // No old rows: set-up carries no friction history.
            enc.clear_buffer(&self.list.start, 0, None);
            let d = self.record_build(&mut enc, false);
            self.dispatches.set(self.dispatches.get() + d);
            self.record_step(&mut enc, true, true, false);
            self.ctx.queue.submit([enc.finish()]);
        }
    }
}

/// Refuses a movable sphere whose inverse mass, or with rotation inverse moment of inertia,
/// would be an f32 subnormal on the GPU ([`GpuError::Subnormal`]): nothing else tells a run whose
/// heavy spheres a hardware driver silently fixed in place.
fn check_normal(p: &PackedScene) -> Result<(), GpuError> {
    let subnormal = |x: f64| x != 0.0 && (x as f32).abs() < f32::MIN_POSITIVE;
    for (i, &inv_mass) in p.inv_mass.iter().enumerate() {
        let mut bad = subnormal(inv_mass).then_some(("inverse mass (1/kg)", inv_mass));
        if bad.is_none() && p.params.rotation {
            let k = crate::physics::rotation::inverse_inertia(inv_mass, p.radius[i]);
            bad = subnormal(k).then_some(("inverse moment of inertia (1/(kg m²))", k));
        }
        if let Some((quantity, value)) = bad {
            return Err(GpuError::Subnormal {
                sphere: i as u32,
                quantity,
                value,
            });
        }
    }
    Ok(())
}
