//! Stage `neighbours`: the Verlet neighbour list with a skin on the GPU, which the soft contact
//! laws read (`collide_pairs`, `sum_pairs`). Shader `shaders/neighbours.wgsl`; CPU twin
//! `src/cpu/neighbours.rs`, whose rebuild decisions, rows, order, links and carried friction
//! history it reproduces exactly.
//!
//! Every step `needs_rebuild` (inside `kick_drift`) raises a flag on the GPU and
//! `gate_dispatches` turns it into the work-group counts of the binning's and the build's
//! dispatches ([`Gate`]), which the host records as indirect dispatches: a step without a
//! rebuild costs those passes nothing, and the host never waits for the decision.

use super::buffers::ListParams;
use super::pipelines::Module;
use super::prefix_sum::{self, ScanLevel};
use super::stages::{Stages, module};
use super::{WORKGROUP_SIZE, dispatch_dims, storage, uniform};
use crate::scene::RollingModel;

/// The module of `shaders/neighbours.wgsl` and its pipelines.
#[derive(Clone)]
pub struct Neighbours {
    /// Module (layout and bind groups).
    pub module: Module,
    /// Turns the flag into the gated dispatches' work-group counts (one invocation).
    pub gate_dispatches: wgpu::ComputePipeline,
    /// Keeps the old list's entries for the carry of per-contact state.
    pub keep_old_entries: wgpu::ComputePipeline,
    /// Keeps the old list's row starts.
    pub keep_old_rows: wgpu::ComputePipeline,
    /// Each sphere's bounding sweep with the skin.
    pub sweeps: wgpu::ComputePipeline,
    /// The rows' walks, as the timed steps run them (no counting).
    pub walks: Walks,
    /// Each entry's mirror in its partner's row.
    pub relink: wgpu::ComputePipeline,
    /// Friction history carried from the old list's entries.
    pub carry_entries: wgpu::ComputePipeline,
    /// Friction history of the wall contacts carried.
    pub carry_walls: wgpu::ComputePipeline,
}

impl Neighbours {
    /// Compiles the shader and its entry points.
    pub fn new(device: &wgpu::Device) -> Self {
        let module = module(device, "neighbours");
        let p = |entry: &str| module.pipeline(device, entry, &[]);
        Self {
            gate_dispatches: p("gate_dispatches"),
            keep_old_entries: p("keep_old_entries"),
            keep_old_rows: p("keep_old_rows"),
            sweeps: p("sweeps"),
            walks: Walks::new(device, &module, false),
            relink: p("relink"),
            carry_entries: p("carry_entries"),
            carry_walls: p("carry_walls"),
            module,
        }
    }
}

/// The build's passes that walk the candidates of each row; with `COUNT_VISITS` on, the same
/// passes count the visits of each invocation (`gpu::work::BUILD_PASS`).
#[derive(Clone)]
pub struct Walks {
    /// Entries per small sphere's row.
    pub list_count: wgpu::ComputePipeline,
    /// Entries per large sphere's row, [`large_chunks`] work-groups each.
    pub list_count_large: wgpu::ComputePipeline,
    /// The small spheres' rows, in the CPU's order.
    pub list_fill: wgpu::ComputePipeline,
    /// The large spheres' rows, [`large_chunks`] work-groups each.
    pub list_fill_large: wgpu::ComputePipeline,
}

impl Walks {
    /// The walks of `module` (`shaders/neighbours.wgsl`), counting visits when `count_visits`.
    pub fn new(device: &wgpu::Device, module: &Module, count_visits: bool) -> Self {
        let constants = [("COUNT_VISITS", if count_visits { 1.0 } else { 0.0 })];
        let p = |entry: &str| module.pipeline(device, entry, &constants);
        Self {
            list_count: p("list_count"),
            list_count_large: p("list_count_large"),
            list_fill: p("list_fill"),
            list_fill_large: p("list_fill_large"),
        }
    }
}

/// Walk items (cells of its box, or small spheres) one lane of a large sphere's build takes at
/// most, by default ([`large_chunks`]).
pub const LARGE_RUN: u32 = 32;

/// Work-groups of `list_count_large` and `list_fill_large` in all, at most: a scene of many
/// large spheres has small boxes.
pub const LARGE_GROUPS_MAX: u32 = 1 << 16;

/// Work-groups per large sphere in the list's build: enough that no lane walks more than `run`
/// items, since a large sphere's walk (its box's cells, or every small sphere when the box has
/// more cells than there are small spheres) grows with its size and with N up to `n_small`;
/// at least 1, and at most [`LARGE_GROUPS_MAX`] over the `n_large` spheres.
pub fn large_chunks(n_small: u32, n_large: u32, run: u32) -> u32 {
    let lanes = WORKGROUP_SIZE.saturating_mul(run.max(1));
    let cap = (LARGE_GROUPS_MAX / n_large.max(1)).max(1);
    n_small.div_ceil(lanes).clamp(1, cap)
}

/// Slots of the [`Gate`]: each gated dispatch's work-group counts.
pub mod slot {
    /// A per-sphere dispatch.
    pub const SPHERES: usize = 0;
    /// A per-bucket dispatch (`table_size + 1` entries).
    pub const TABLE: usize = 1;
    /// [`super::large_chunks`] work-groups per large sphere (none without them).
    pub const LARGE: usize = 2;
    /// A per-entry dispatch of the list (its capacity).
    pub const ENTRIES: usize = 3;
    /// A row pass: a work-group per [`super::super::WORKGROUP_SIZE`] small spheres, then one
    /// per large sphere (the step's tail only, from [`super::Gate::running`]).
    pub const ROWS: usize = 4;
    /// The first level of the cell-start prefix sum; the list's levels follow the grid's.
    pub const SCANS: usize = 5;
}

/// The indirect work-group counts of the dispatches that run only in a step that re-bins and
/// rebuilds the list, and of the step's tail (contacts, gravity, end of step), which a halted
/// submission skips.
pub struct Gate {
    /// The rebuild flag and the halt words, 4 × u32: word 0 the flag (0 keep, 1 rebuild, 2
    /// set-up's build), cleared at each binning; words 1 and 2 the halt words of a submission's
    /// even and odd steps (`HALT` in integrate.wgsl).
    pub rebuild: wgpu::Buffer,
    /// Each slot's work-group counts with a rebuild (`vec4<u32>`: x, y, 1, 0), host-written.
    pub full: wgpu::Buffer,
    /// Each slot's indirect dispatch arguments (4 × u32 a slot), written by `gate_dispatches`.
    pub gated: wgpu::Buffer,
    /// The tail's indirect dispatch arguments, laid out as [`Gate::gated`]: `gate_dispatches`
    /// sets every slot to its full counts, and a halting step's `kick_drift` zeroes them, so
    /// that the rest of the submission dispatches no work-group.
    pub running: wgpu::Buffer,
    /// Binds in [`Gate::running`]'s place where the tail's dispatches read it as indirect
    /// arguments (a buffer may not be both in one dispatch).
    pub running_stand_in: wgpu::Buffer,
    slots: Vec<[u32; 4]>,
    /// First slot of the list's prefix-sum levels.
    pub list_scans: usize,
}

impl Gate {
    /// The gate of a step with `sphere_dims`, `table_dims`, `large_dims`, `entry_dims` work-groups
    /// per dispatch, and the prefix-sum levels of the cell starts and of the list's rows.
    pub fn new(
        device: &wgpu::Device,
        sphere_dims: (u32, u32),
        table_dims: (u32, u32),
        large_dims: Option<(u32, u32)>,
        (entry_dims, row_dims): ((u32, u32), (u32, u32)),
        grid_scans: &[(u32, u32)],
        list_scans: &[(u32, u32)],
    ) -> Self {
        let d = |(x, y): (u32, u32)| [x, y, 1, 0];
        let mut slots = vec![
            d(sphere_dims),
            d(table_dims),
            large_dims.map_or([0; 4], d),
            d(entry_dims),
            d(row_dims),
        ];
        slots.extend(grid_scans.iter().map(|&g| d(g)));
        let list_first = slots.len();
        slots.extend(list_scans.iter().map(|&g| d(g)));
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::INDIRECT
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let args = |label| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: 16 * slots.len() as u64,
                usage,
                mapped_at_creation: false,
            })
        };
        Self {
            rebuild: storage(device, "rebuild flag", 16),
            full: super::init_storage(device, "full dispatches", &slots),
            gated: args("gated dispatches"),
            running: args("running dispatches"),
            running_stand_in: storage(device, "running dispatches (stand-in)", 16),
            slots,
            list_scans: list_first,
        }
    }

    /// Byte offset of slot `k`'s indirect arguments in [`Gate::gated`].
    pub fn offset(k: usize) -> u64 {
        16 * k as u64
    }

    /// Sets slot `k`'s work-group counts (the list's entries after it grew), in the full
    /// counts and in the tail's running ones (set-up's second build runs no gate).
    pub fn set(&mut self, queue: &wgpu::Queue, k: usize, dims: (u32, u32)) {
        self.slots[k] = [dims.0, dims.1, 1, self.slots[k][3]];
        for buffer in [&self.full, &self.running] {
            queue.write_buffer(
                buffer,
                16 * k as u64,
                bytemuck::cast_slice(&[self.slots[k]]),
            );
        }
    }

    /// Slot `k`'s work-group counts with a rebuild (for a build recorded directly).
    pub fn dims(&self, k: usize) -> (u32, u32) {
        (self.slots[k][0], self.slots[k][1])
    }
}

/// The backend's buffers the list reads or writes, for one state set.
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
    /// Each sphere's binned cell (`n` × `vec4<i32>`).
    pub cells: &'a wgpu::Buffer,
    /// Each large sphere's box of cells (2 × `vec4<i32>` each).
    pub boxes: &'a wgpu::Buffer,
    /// The grid (`GridView`): its step count advances in `gate_dispatches`.
    pub grid: &'a wgpu::Buffer,
    /// The status counters (rebuilds, entries needed).
    pub status: &'a wgpu::Buffer,
    /// The binning's permutation (`n` × u32: old sorted index of each new one).
    pub perm: &'a wgpu::Buffer,
    /// The large spheres' build counts (`SharedBuffers::large_counts`).
    pub large_counts: &'a wgpu::Buffer,
    /// The work counters (`SharedBuffers::work`).
    pub work: &'a wgpu::Buffer,
    /// Work-groups per large sphere in the build ([`large_chunks`]).
    pub large_chunks: u32,
    /// The gate's buffers.
    pub gate: &'a Gate,
}

/// Which part of a build [`GpuList::record_build`] records. A removal inside the binning
/// (`GpuBackend::remove_spheres`) keeps the old rows while the sphere count is the old one,
/// and builds after it is lowered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildPhase {
    /// The whole build: the old rows kept (with contact history), then the build.
    Whole,
    /// Only the keeping of the old rows (with contact history; nothing without).
    KeepOld,
    /// The build without keeping the old rows: they were kept before.
    AfterKeep,
}

/// The list's buffers on the GPU, for `n` spheres and at most `capacity` entries.
pub struct GpuList {
    /// Entries the list buffers hold; a build that needs more writes only these.
    pub capacity: u32,
    /// Each sphere's sweep σ at the last build, m (`n` × f32).
    pub sweep: wgpu::Buffer,
    /// Each sphere's position and radius at the last build, m (`n` × `vec4<f32>`).
    pub x_build: wgpu::Buffer,
    /// First entry of each sorted sphere (`n + 1` × u32; the last is the entry count).
    pub start: wgpu::Buffer,
    /// Sorted index of each entry's partner (`capacity` × u32).
    pub partner: wgpu::Buffer,
    /// Each entry's link: owner flag and mirror entry (`capacity` × u32,
    /// `cpu::neighbours::NeighbourList::link`).
    pub link: wgpu::Buffer,
    /// Sorted index of each entry's sphere (`capacity` × u32).
    pub row_of: wgpu::Buffer,
    /// Each entry's pair result (`vec4<f32>`): soft contact, the force on the higher-id
    /// sphere (N) and the energy (J) (`cpu::collide::PairOut`); impulses, the normal and the
    /// impulse (N·s) (`cpu::collide::PairImpulse`), in [`PAIR_PARTS`] bindings of
    /// [`pair_split`] entries each (`pair_out`, `pair_out_1`, ...), so that no binding holds
    /// more than 4 bytes an entry of it.
    pub pair_out: [wgpu::Buffer; PAIR_PARTS as usize],
    /// The rest of each entry's result (`vec4<u32>`, in parts as `pair_out`): soft contact, the
    /// power (W, f32 bits) and flags; impulses, the time left (s), flags, τ and push (m), as
    /// f32 bits.
    pub pair_more: [wgpu::Buffer; PAIR_PARTS as usize],
    /// Each entry's friction moment `n × F_t` (N) and overlap (m) (`vec4<f32>`; rotation only:
    /// `cpu::collide::SpinPairOut`), then with rolling resistance the rolling torque on the
    /// lower-id sphere (N·m, `vec4<f32>`, `cpu::collide::RollPairOut`): [`pair_spin_vec4s`] an
    /// entry.
    pub pair_spin: wgpu::Buffer,
    /// Input id of each entry's partner (`capacity` × u32; friction history only).
    pub partner_id: wgpu::Buffer,
    /// Tangential displacement ξ of each entry, m (`capacity` × `vec4<f32>`; friction only).
    pub xi: wgpu::Buffer,
    /// ξ of each sphere against each wall, m (`n × walls` × `vec4<f32>`; friction only).
    pub wall_xi: wgpu::Buffer,
    // The old rows' starts, partner ids, ξ and wall ξ during a build (bound only).
    _old: [wgpu::Buffer; 4],
    /// Per-entry dispatch of the capacity.
    pub entry_dims: (u32, u32),
    /// The list's uniforms (`ListParams`).
    pub params: wgpu::Buffer,
    history: bool,
    scan: Vec<ScanLevel>,
    bind: [wgpu::BindGroup; 2],
    bind_decide: [wgpu::BindGroup; 2],
}

/// Bytes per entry of the list's buffers, with and without friction history and rotation:
/// partner, link, row, pair result (16 + 16); with history the partner id and ξ, and their old
/// copies; with rotation the friction moment and overlap, and with rolling resistance the
/// rolling torque ([`pair_spin_vec4s`] × 16).
pub fn bytes_per_entry(history: bool, rotation: bool, rolling: RollingModel) -> u64 {
    let kept = 16 * history_vec4s(rolling);
    44 + if history { 2 * (4 + kept) } else { 0 }
        + 16 * pair_spin_vec4s(rotation, rolling != RollingModel::None)
}

/// `vec4<f32>`s a contact's history takes in [`GpuList::xi`] and [`GpuList::wall_xi`]
/// ([`crate::history::vec4s_a_contact`]).
pub fn history_vec4s(rolling: RollingModel) -> u64 {
    crate::history::vec4s_a_contact(rolling) as u64
}

/// `vec4<f32>`s an entry of [`GpuList::pair_spin`] holds: 0 without rotation, 1 with (friction
/// moment and overlap), 2 with rolling resistance (and the rolling torque); collide.wgsl's
/// stride is `1 + params.rolling`.
pub fn pair_spin_vec4s(rotation: bool, rolling: bool) -> u64 {
    if rotation { 1 + rolling as u64 } else { 0 }
}

/// Bytes an entry takes in the list's largest per-entry binding: 8 (the pair results, 16
/// bytes an entry in two bindings, [`pair_split`]), 16 with friction history (ξ) or rotation
/// (friction moments), 32 with rolling resistance (and rolling torques, or the rolling spring).
pub fn largest_entry_binding(history: bool, rotation: bool, rolling: RollingModel) -> u64 {
    let xi = if history {
        16 * history_vec4s(rolling)
    } else {
        0
    };
    let spin = 16 * pair_spin_vec4s(rotation, rolling != RollingModel::None);
    (16 / PAIR_PARTS as u64).max(4).max(xi).max(spin)
}

/// Bindings each pair-result buffer is split into (`pair_out`, `pair_out_1`, ... in
/// collide.wgsl): 16 bytes an entry, 4 a binding, as the list's own `u32` arrays.
pub const PAIR_PARTS: u32 = 4;

/// The most entries a list may hold under a binding limit of `limit` bytes
/// ([`largest_entry_binding`]; a multiple of [`PAIR_PARTS`], so that each part of the pair
/// results fits too).
pub fn max_capacity(limit: u64, history: bool, rotation: bool, rolling: RollingModel) -> u64 {
    (limit / largest_entry_binding(history, rotation, rolling)) & !(PAIR_PARTS as u64 - 1)
}

/// Entries of a list of `capacity` in each binding of a pair-result buffer: a
/// [`PAIR_PARTS`]th, rounded up (`ListParams::split`).
pub fn pair_split(capacity: u32) -> u32 {
    capacity.div_ceil(PAIR_PARTS).max(1)
}

/// The list's capacity in entries for `n` spheres before set-up's first build: six a sphere.
/// Set-up then gives the list twice what that build needed whenever the build fills more than
/// half of it (a dense pack's rows need about twelve a sphere), and the list grows between
/// submissions when three quarters full (`GpuBackend::step`). Six, not sixteen as before, so
/// that a gas holds little list it never uses (docs/performance.md, "Memory").
pub fn initial_capacity(n: u32) -> u32 {
    6 * n + 1024
}

/// Work-groups of a per-entry dispatch over `capacity` entries.
pub fn entry_dims(capacity: u32, max_dim: u32) -> (u32, u32) {
    dispatch_dims(capacity.div_ceil(WORKGROUP_SIZE).max(1), max_dim)
}

impl GpuList {
    /// Allocates the list for `n` spheres, `walls` walls and `capacity` entries (the friction
    /// history's buffers only with `history`), bound to the inputs of both state sets;
    /// `max_dim` is the adapter's work-groups per dispatch dimension.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        device: &wgpu::Device,
        stages: &Stages,
        n: u32,
        walls: u32,
        capacity: u32,
        history: bool,
        (rotation, rolling_model): (bool, RollingModel),
        max_dim: u32,
        inputs: [ListInputs; 2],
    ) -> Self {
        let entries = capacity.max(1) as u64;
        let nn = n as u64;
        let sweep = storage(device, "list sweeps", 4 * nn);
        let x_build = storage(device, "list positions at build", 16 * nn);
        let start = storage(device, "list start", 4 * (nn + 1));
        let partner = storage(device, "list partners", 4 * entries);
        let link = storage(device, "list links", 4 * entries);
        let row_of = storage(device, "list rows", 4 * entries);
        let split = pair_split(capacity);
        // Part k holds entries [k split, (k + 1) split); the last may hold fewer.
        let part = |k: u64| (entries.min((k + 1) * split as u64)).saturating_sub(k * split as u64);
        let parts = |label: &str| {
            std::array::from_fn(|k| {
                let label = format!("{label}, part {k}");
                storage(device, &label, 16 * part(k as u64).max(1))
            })
        };
        let pair_out = parts("list pair forces");
        let pair_more = parts("list pair results");
        let pair_spin = storage(
            device,
            "list pair moments",
            16 * (entries * pair_spin_vec4s(rotation, rolling_model != RollingModel::None)).max(1),
        );
        let (h_entries, h_spheres, h_walls) = if history {
            (entries, nn + 1, nn * walls.max(1) as u64)
        } else {
            (1, 1, 1)
        };
        let partner_id = storage(device, "list partner ids", 4 * h_entries);
        let kept = 16 * history_vec4s(rolling_model);
        let xi = storage(device, "list xi", kept * h_entries);
        let wall_xi = storage(device, "list wall xi", kept * h_walls);
        let old_start = storage(device, "list old start", 4 * h_spheres);
        let old_partner_id = storage(device, "list old partner ids", 4 * h_entries);
        let old_xi = storage(device, "list old xi", kept * h_entries);
        let old_wall_xi = storage(device, "list old wall xi", kept * h_walls);
        let entry_dims = entry_dims(capacity, max_dim);
        let params = uniform(
            device,
            "list params",
            &ListParams {
                capacity,
                dispatch_x: entry_dims.0 * WORKGROUP_SIZE,
                split,
                large_chunks: inputs[0].large_chunks,
            },
        );
        let scan = prefix_sum::levels(device, &stages.prefix_sum, &start, n + 1, max_dim);
        // The build's dispatches read their counts from the gate's buffer as indirect
        // arguments, which may not also be bound for writing: they bind a stand-in.
        let stand_in = storage(device, "gated dispatches (stand-in)", 16);
        let bind_with = |inp: &ListInputs, gated: &wgpu::Buffer| {
            stages.neighbours.module.bind(
                device,
                &[
                    ("params", inp.params),
                    ("pos", inp.pos),
                    ("vel", inp.vel),
                    ("ids", inp.ids),
                    ("cell_start", inp.cell_start),
                    ("cells", inp.cells),
                    ("boxes", inp.boxes),
                    ("sweep", &sweep),
                    ("list_start", &start),
                    ("list_sums", prefix_sum::first_sums(&scan)),
                    ("partner", &partner),
                    ("link", &link),
                    ("row_of", &row_of),
                    ("list", &params),
                    ("x_build", &x_build),
                    ("rebuild", &inp.gate.rebuild),
                    ("full_dims", &inp.gate.full),
                    ("gated_dims", gated),
                    ("grid", inp.grid),
                    ("status", inp.status),
                    ("perm", inp.perm),
                    ("partner_id", &partner_id),
                    ("xi", &xi),
                    ("wall_xi", &wall_xi),
                    ("old_start", &old_start),
                    ("old_partner_id", &old_partner_id),
                    ("old_xi", &old_xi),
                    ("old_wall_xi", &old_wall_xi),
                    ("running_dims", &inp.gate.running),
                    ("large_counts", inp.large_counts),
                    ("work", inp.work),
                ],
            )
        };
        let bind = [
            bind_with(&inputs[0], &stand_in),
            bind_with(&inputs[1], &stand_in),
        ];
        let bind_decide = [
            bind_with(&inputs[0], &inputs[0].gate.gated),
            bind_with(&inputs[1], &inputs[1].gate.gated),
        ];
        Self {
            capacity,
            sweep,
            x_build,
            start,
            partner,
            link,
            row_of,
            pair_out,
            pair_more,
            pair_spin,
            partner_id,
            xi,
            wall_xi,
            _old: [old_start, old_partner_id, old_xi, old_wall_xi],
            entry_dims,
            params,
            history,
            scan,
            bind,
            bind_decide,
        }
    }

    /// The buffers that carry the list from step to step, by label (what a checkpoint saves
    /// and a larger list copies).
    pub fn persistent(&self) -> Vec<(&'static str, &wgpu::Buffer)> {
        vec![
            ("list sweeps", &self.sweep),
            ("list positions at build", &self.x_build),
            ("list start", &self.start),
            ("list partners", &self.partner),
            ("list links", &self.link),
            ("list rows", &self.row_of),
            ("list partner ids", &self.partner_id),
            ("list xi", &self.xi),
            ("list wall xi", &self.wall_xi),
        ]
    }

    /// Records a copy of `old`'s contents (a smaller list of the same scene) into this list.
    pub fn copy_from(&self, enc: &mut wgpu::CommandEncoder, old: &GpuList) {
        for ((_, to), (_, from)) in self.persistent().into_iter().zip(old.persistent()) {
            enc.copy_buffer_to_buffer(from, 0, to, 0, from.size().min(to.size()));
        }
    }

    /// Records `gate_dispatches` on state set `set`, after the drift (whose `kick_drift` took
    /// the rebuild decision in a scene with a skin). Returns the dispatches recorded.
    pub fn record_decide(&self, pass: &mut wgpu::ComputePass, stages: &Stages, set: usize) -> u64 {
        pass.push_debug_group("neighbours::gate_dispatches");
        pass.set_bind_group(0, &self.bind_decide[set], &[]);
        pass.set_pipeline(&stages.neighbours.gate_dispatches);
        pass.dispatch_workgroups(1, 1, 1);
        super::traffic::tally(&stages.neighbours.gate_dispatches, &self.bind_decide[set]);
        pass.pop_debug_group();
        1
    }

    /// Records a build from the binning of state set `set`: gated by `gate` (indirect
    /// dispatches), or (`gated` false) unconditionally with `gate`'s counts. `begin` opens a
    /// compute pass of the given label: one pass `neighbours` for the whole build, or with
    /// `split` (profiling) one pass per entry point, so that each is timed apart. Returns the
    /// dispatches recorded.
    #[allow(clippy::too_many_arguments)]
    pub fn record_build(
        &self,
        begin: &mut dyn FnMut(&'static str) -> wgpu::ComputePass<'static>,
        split: bool,
        stages: &Stages,
        walks: &Walks,
        set: usize,
        gate: &Gate,
        gated: bool,
        phase: BuildPhase,
    ) -> u64 {
        use slot::*;
        let nb = &stages.neighbours;
        let large = gate.dims(LARGE) != (0, 0);
        // The build in order: an entry point with its dispatch slot, or the rows' prefix sum.
        let mut order: Vec<Option<(&'static str, &wgpu::ComputePipeline, usize)>> = Vec::new();
        if self.history && phase != BuildPhase::AfterKeep {
            order.push(Some((
                "neighbours::keep_old_entries",
                &nb.keep_old_entries,
                ENTRIES,
            )));
            order.push(Some((
                "neighbours::keep_old_rows",
                &nb.keep_old_rows,
                SPHERES,
            )));
        }
        if phase != BuildPhase::KeepOld {
            self.push_build(&mut order, nb, walks, large);
        }
        self.record_order(begin, split, stages, set, gate, gated, order)
    }

    /// The build's entry points after the old rows are kept, in order (`None`: the rows'
    /// prefix sum).
    fn push_build<'a>(
        &self,
        order: &mut Vec<Option<(&'static str, &'a wgpu::ComputePipeline, usize)>>,
        nb: &'a Neighbours,
        walks: &'a Walks,
        large: bool,
    ) {
        use slot::*;
        order.push(Some(("neighbours::sweeps", &nb.sweeps, SPHERES)));
        // The large spheres' work-groups first: list_count sums their counts into their rows.
        if large {
            order.push(Some((
                "neighbours::list_count_large",
                &walks.list_count_large,
                LARGE,
            )));
        }
        order.push(Some(("neighbours::list_count", &walks.list_count, SPHERES)));
        order.push(None);
        order.push(Some(("neighbours::list_fill", &walks.list_fill, SPHERES)));
        if large {
            order.push(Some((
                "neighbours::list_fill_large",
                &walks.list_fill_large,
                LARGE,
            )));
        }
        order.push(Some(("neighbours::relink", &nb.relink, ENTRIES)));
        if self.history {
            order.push(Some((
                "neighbours::carry_entries",
                &nb.carry_entries,
                ENTRIES,
            )));
            order.push(Some(("neighbours::carry_walls", &nb.carry_walls, SPHERES)));
        }
    }

    /// Records `order` (see [`GpuList::record_build`]); returns the dispatches recorded.
    #[allow(clippy::too_many_arguments)]
    fn record_order(
        &self,
        begin: &mut dyn FnMut(&'static str) -> wgpu::ComputePass<'static>,
        split: bool,
        stages: &Stages,
        set: usize,
        gate: &Gate,
        gated: bool,
        order: Vec<Option<(&'static str, &wgpu::ComputePipeline, usize)>>,
    ) -> u64 {
        use slot::*;
        let mut dispatches = 0;
        let mut current: Option<wgpu::ComputePass<'static>> = None;
        for step in order {
            let label = step.map_or("neighbours::prefix_sum", |(label, ..)| label);
            if split || current.is_none() {
                // The open pass ends before the next begins on the same encoder.
                drop(current.take());
                current = Some(begin(if split { label } else { "neighbours" }));
            }
            let pass = current.as_mut().expect("a pass is open");
            let Some((label, pipeline, k)) = step else {
                pass.push_debug_group("prefix_sum");
                let scans = gated.then_some((&gate.gated, gate.list_scans));
                // list_count summed the first block sums.
                let s = &stages.prefix_sum;
                dispatches += prefix_sum::record(pass, s, &self.scan, scans, true);
                pass.pop_debug_group();
                continue;
            };
            pass.push_debug_group(label);
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &self.bind[set], &[]);
            if gated {
                pass.dispatch_workgroups_indirect(&gate.gated, Gate::offset(k));
            } else {
                let (x, y) = if k == ENTRIES {
                    self.entry_dims
                } else {
                    gate.dims(k)
                };
                pass.dispatch_workgroups(x, y, 1);
            }
            super::traffic::tally(pipeline, &self.bind[set]);
            pass.pop_debug_group();
            dispatches += 1;
        }
        dispatches
    }
}

impl GpuList {
    /// Copies the contacts' history (ξ of the entries and the walls) into the old rows'
    /// buffers, which no pass reads after a build's carry: [`GpuList::restore_history`] puts it
    /// back (a removal's set-up evaluation, `GpuBackend::remove_spheres`). Nothing without
    /// history.
    pub(super) fn save_history(&self, enc: &mut wgpu::CommandEncoder) {
        if self.history {
            let [_, _, old_xi, old_wall_xi] = &self._old;
            enc.copy_buffer_to_buffer(&self.xi, 0, old_xi, 0, Some(self.xi.size()));
            enc.copy_buffer_to_buffer(&self.wall_xi, 0, old_wall_xi, 0, Some(self.wall_xi.size()));
        }
    }

    /// Puts back what [`GpuList::save_history`] copied.
    pub(super) fn restore_history(&self, enc: &mut wgpu::CommandEncoder) {
        if self.history {
            let [_, _, old_xi, old_wall_xi] = &self._old;
            enc.copy_buffer_to_buffer(old_xi, 0, &self.xi, 0, Some(self.xi.size()));
            enc.copy_buffer_to_buffer(old_wall_xi, 0, &self.wall_xi, 0, Some(self.wall_xi.size()));
        }
    }
}

/// The neighbour list's inputs for state set `s`.
pub(super) fn list_inputs<'a>(
    b: &'a super::state::SharedBuffers,
    s: &'a super::state::StateSet,
    gate: &'a Gate,
) -> ListInputs<'a> {
    ListInputs {
        params: &b.params,
        pos: &s.pos,
        vel: &s.vel,
        ids: &s.id,
        cell_start: &b.cell_start,
        cells: &b.cells,
        boxes: &b.boxes,
        grid: &b.grid,
        status: &b.status,
        perm: &b.perm,
        large_counts: &b.large_counts,
        work: &b.work,
        large_chunks: b.large_chunks,
        gate,
    }
}

// The list's growth, on the backend: a rebuild that needs more entries than the list holds
// replaces it by a larger one with the same contents.
impl super::GpuBackend {
    /// Replaces the list by one with room for `needed` entries and more (twice, and 1024, as far
    /// as the binding limit, lowered by `GpuOptions::max_binding_size`, allows), with the same
    /// contents, and binds it; keeps the list when that is no more than it holds.
    ///
    /// # Errors
    /// [`super::GpuError::TooLarge`] when a per-entry buffer would exceed the adapter's binding
    /// limit.
    pub(super) fn grow_list(&mut self, needed: u32) -> Result<(), super::GpuError> {
        let (limit, limit_name) =
            super::buffers::binding_limit(&self.ctx.limits, self.binding_lowered);
        let entry_bytes = largest_entry_binding(
            self.params.history,
            self.params.rotation,
            self.params.rolling,
        );
        let most = max_capacity(
            limit,
            self.params.history,
            self.params.rotation,
            self.params.rolling,
        );
        let capacity = (2 * needed as u64 + 1024).min(most);
        if capacity < needed as u64 || capacity >= crate::cpu::neighbours::NO_MIRROR as u64 {
            return Err(super::GpuError::TooLarge {
                adapter: self.adapter_name(),
                buffer: "neighbour list",
                need: entry_bytes * needed as u64,
                spheres: self.n as usize,
                limit_name,
                limit,
                fits: most * self.n as u64 / needed.max(1) as u64,
            });
        }
        let capacity = capacity as u32;
        if capacity <= self.list.capacity {
            // Room asked beyond the need, and the limit allows no more than the list has.
            return Ok(());
        }
        log::info!(
            "the GPU neighbour list grows from {} to {capacity} entries",
            self.list.capacity
        );
        self.resize_list(capacity);
        Ok(())
    }

    /// Replaces the list by one of `capacity` entries with the same contents, and binds it.
    pub(super) fn resize_list(&mut self, capacity: u32) {
        let device = &self.ctx.device;
        let list = GpuList::new(
            device,
            &self.stages,
            // Per-sphere arrays for the room kept, not only the spheres present.
            (self.state[0].pos.size() / 16) as u32,
            self.walls,
            capacity,
            self.params.history,
            (self.params.rotation, self.params.rolling),
            self.max_dim,
            [
                list_inputs(&self.shared, &self.state[0], &self.gate),
                list_inputs(&self.shared, &self.state[1], &self.gate),
            ],
        );
        let mut enc = device.create_command_encoder(&Default::default());
        list.copy_from(&mut enc, &self.list);
        self.ctx.queue.submit([enc.finish()]);
        self.gate
            .set(&self.ctx.queue, slot::ENTRIES, list.entry_dims);
        for c in 0..2 {
            self.binds[c].collide =
                self.stages
                    .collide
                    .bind(device, &self.shared, &self.state[c], &list);
            for head in [false, true] {
                let bg = self.stages.integrate.bind(
                    device,
                    &self.shared,
                    &self.state[c],
                    (&list, &self.gate),
                    head,
                );
                if head {
                    self.binds[c].integrate_head = bg;
                } else {
                    self.binds[c].integrate = bg;
                }
            }
        }
        self.list = list;
    }
}
