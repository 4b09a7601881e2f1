//! GPU-side data: uniform and small structs (layouts match `shaders/common.wgsl`), the sphere
//! state, and the memory estimate made before anything is allocated.

use super::GpuContext;
use bytemuck::{Pod, Zeroable, cast_slice};
use wgpu::util::DeviceExt;

/// Uniform parameters of a step (`Params` in common.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct Params {
    /// Uniform field, m/s².
    pub gravity: [f32; 3],
    /// Time step, s.
    pub dt: f32,
    /// Spheres.
    pub n: u32,
    /// Small spheres (sorted first).
    pub n_small: u32,
    /// Hash buckets.
    pub table_size: u32,
    /// Planes.
    pub n_planes: u32,
    /// Largest small radius, m.
    pub small_radius_max: f32,
    /// G, m³ kg⁻¹ s⁻².
    pub g_const: f32,
    /// ε², m².
    pub eps2: f32,
    /// Stokes k_c, N·s/m².
    pub drag: f32,
    /// k_n, N/m.
    pub stiffness: f32,
    /// 0 impulse, 1 spring–dashpot, 2 Hertz ([`model_code`]).
    pub model: u32,
    /// `cpu::collide::OVERLAP_RELAXATION`.
    pub overlap_relaxation: f32,
    /// Threads along x of a per-sphere dispatch.
    pub dispatch_x: u32,
    /// Approach speed below which a contact is resting, m/s.
    pub resting_speed: f32,
    /// 1 when contact history is kept (`setup::contact_history`), else 0.
    pub history: u32,
    /// Neighbour-list skin s, m (`cpu::neighbours`): widens the cells and the large-sphere
    /// boxes as on the CPU.
    pub skin: f32,
    /// Work-groups along x of a row pass's dispatch: one per [`WORKGROUP_SIZE`](super::WORKGROUP_SIZE)
    /// small spheres, then one per large sphere (`row_group` in collide.wgsl).
    pub row_groups_x: u32,
    /// 1: spheres rotate (`SimParams::rotation`).
    pub rotation: u32,
    /// The rolling resistance law: 0 none, 1 cdt, 2 epsd ([`rolling_code`]; rotation only).
    pub rolling: u32,
    /// Damping of the Hertz law: 0 Hunt–Crossley, 1 Flores ([`damping_code`]).
    pub damping: u32,
    /// `vec4<f32>`s a contact's history takes (`neighbours::history_vec4s`).
    pub history_stride: u32,
    /// The magnitude guard's distance bound at t = 0, m ([`crate::physics::guard::Bounds`]).
    pub guard_distance: f32,
    /// The guard's speed bound at t = 0, m/s.
    pub guard_speed: f32,
    /// The guard's speed bound's growth, m/s².
    pub guard_accel: f32,
    /// Padding: WGSL places the `vec3<f32>` below at a 16-byte offset.
    pub pad0: u32,
    /// The guard's centre, m.
    pub guard_centre: [f32; 3],
    /// 1 when some axis is periodic ([`crate::physics::periodic::PeriodicBox`]), else 0.
    pub periodic: u32,
    /// The periodic box's lower corner, m (0 on an open axis).
    pub box_min: [f32; 3],
    /// Padding: WGSL places the next `vec3<f32>` at a 16-byte offset.
    pub pad1: u32,
    /// The periodic box's edges, m (0 on an open axis).
    pub box_len: [f32; 3],
    /// Padding.
    pub pad2: u32,
    /// Half the box's edges, m (the largest f32 on an open axis).
    pub box_half: [f32; 3],
    /// 1 when each wall's force on each sphere is recorded
    /// ([`crate::scene::SimParams::wall_forces`]), else 0.
    pub wall_forces: u32,
}

impl Params {
    /// The GPU's parameter block, derived from the step's parameters `sp` ([`crate::params`]):
    /// every constant rounded from f64 to f32 here, once. The GPU's counts come with it: `n`
    /// spheres of which `n_large` are large (sorted after the small ones), `n_walls` walls,
    /// `dispatch_x` threads along x of a per-sphere dispatch and `row_groups_x` work-groups along
    /// x of a row pass.
    pub(crate) fn of(
        sp: &crate::params::StepParams,
        n: usize,
        n_large: usize,
        n_walls: usize,
        dispatch_x: u32,
        row_groups_x: u32,
    ) -> Self {
        let rolling = sp.rolling;
        let pbox = crate::physics::periodic::PeriodicBox::<f32>::of(
            sp.periodic.axes,
            sp.periodic.min.to_array(),
            sp.periodic.max.to_array(),
        );
        Params {
            gravity: sp.gravity.as_vec3().to_array(),
            dt: sp.dt as f32,
            n: n as u32,
            n_small: (n - n_large) as u32,
            table_size: sp.table_size,
            n_planes: n_walls as u32,
            small_radius_max: sp.small_radius_max as f32,
            g_const: sp.g_const as f32,
            eps2: sp.eps2 as f32,
            drag: sp.drag as f32,
            stiffness: sp.stiffness as f32,
            model: model_code(sp.contact),
            overlap_relaxation: crate::setup::OVERLAP_RELAXATION as f32,
            dispatch_x,
            resting_speed: sp.resting_speed as f32,
            history: sp.history as u32,
            skin: sp.skin as f32,
            row_groups_x,
            rotation: sp.rotation as u32,
            rolling: rolling_code(rolling),
            damping: damping_code(sp.damping),
            history_stride: super::neighbours::history_vec4s(rolling) as u32,
            guard_distance: sp.guard.distance as f32,
            guard_speed: sp.guard.speed as f32,
            guard_accel: sp.guard.accel as f32,
            pad0: 0,
            guard_centre: sp.guard.centre.as_vec3().to_array(),
            periodic: pbox.any() as u32,
            box_min: pbox.min,
            pad1: 0,
            box_len: pbox.len,
            pad2: 0,
            box_half: pbox.half,
            wall_forces: sp.wall_forces as u32,
        }
    }
}

/// Grid parameters of the current step (`Grid` in common.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct Grid {
    /// Bits of the largest small-sphere speed², m²/s².
    pub speed_max_bits: u32,
    /// Cell edge, m.
    pub cell_edge: f32,
    /// 1 / cell edge, m⁻¹.
    pub inv_cell_edge: f32,
    /// Largest small-sphere speed, m/s.
    pub small_speed_max: f32,
    /// Steps begun (0 after set-up; `kick_drift` advances it).
    pub step: u32,
    /// Padding.
    pub pad: [u32; 3],
}

/// Non-finite detection, collision and dropped-history counters (`Status` in common.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct Status {
    /// First step with a non-finite sphere, u32::MAX for none.
    pub first_bad_step: u32,
    /// Its lowest input id.
    pub bad_id: u32,
    /// Collisions since the last read.
    pub collisions: u32,
    /// Contacts whose friction history did not fit, since the last read
    /// (always 0: the history lives on the neighbour list).
    pub history_dropped: u32,
    /// Neighbour-list rebuilds since the last read (set-up's not counted).
    pub rebuilds: u32,
    /// The most entries a neighbour-list build needed since the last read.
    pub list_needed: u32,
    /// Steps completed since the last read (`end_of_step`; fewer than recorded when a
    /// submission halted for a rebuild).
    pub steps: u32,
    /// Bits of the largest reach fraction since the last rebuild: how far the spheres have
    /// gone towards the rebuild threshold (1), for planning halting submissions.
    pub reach: u32,
}

impl Default for Status {
    fn default() -> Self {
        Self {
            first_bad_step: u32::MAX,
            bad_id: u32::MAX,
            collisions: 0,
            history_dropped: 0,
            rebuilds: 0,
            list_needed: 0,
            steps: 0,
            reach: 0,
        }
    }
}

/// The `model` code of a contact law in `Params` (the `MODEL_*` constants of common.wgsl).
pub fn model_code(model: crate::scene::ContactModel) -> u32 {
    match model {
        crate::scene::ContactModel::Impulse => 0,
        crate::scene::ContactModel::SpringDashpot => 1,
        crate::scene::ContactModel::Hertz => 2,
    }
}

/// The `rolling` code of a rolling resistance law in `Params` (the `ROLLING_*` constants of
/// common.wgsl).
pub fn rolling_code(rolling: crate::scene::RollingModel) -> u32 {
    match rolling {
        crate::scene::RollingModel::None => 0,
        crate::scene::RollingModel::Cdt => 1,
        crate::scene::RollingModel::Epsd => 2,
    }
}

/// The `damping` code of a Hertz damping law in `Params` (the `DAMPING_*` constants of
/// common.wgsl).
pub fn damping_code(damping: crate::scene::Damping) -> u32 {
    match damping {
        crate::scene::Damping::HuntCrossley => 0,
        crate::scene::Damping::Flores => 1,
    }
}

/// A wall record (`Plane` in shaders/walls.wgsl; mirrors `cpu::collide::PlaneBody`): its kind's
/// code (`setup::WallKind::code`) says what `point`, `normal` and `radius` mean.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct PlaneGpu {
    /// A point on the plane, or the container's centre, m.
    pub point: [f32; 3],
    /// Restitution.
    pub e: f32,
    /// Unit normal into the domain (planes).
    pub normal: [f32; 3],
    /// Damping ratio ζ.
    pub zeta: f32,
    /// Compliance `(1 − ν²)/E`, Pa⁻¹.
    pub compliance: f32,
    /// Friction coefficient μ.
    pub mu: f32,
    /// The container's inner radius, m; 0 for a plane.
    pub radius: f32,
    /// Rolling friction coefficient μ_r.
    pub rolling_friction: f32,
    /// Velocity of the wall's surface, m/s, in its plane (zero for a container).
    pub velocity: [f32; 3],
    /// The wall's kind, `setup::WallKind::code` (`WALL_*` in shaders/walls.wgsl).
    pub kind: u32,
}

/// Uniforms of the neighbour list's build (`ListParams` in neighbours.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct ListParams {
    /// Entries the list buffers hold.
    pub capacity: u32,
    /// Threads along x of a per-entry dispatch.
    pub dispatch_x: u32,
    /// Entries in each binding of a pair-result buffer (`pair_out`, `pair_out_1`, ...;
    /// `pair_more` likewise): `neighbours::pair_split`.
    pub split: u32,
    /// Work-groups per large sphere in the build (`neighbours::large_chunks`).
    pub large_chunks: u32,
}

/// Parameters of one prefix-sum level (`ScanParams` in prefix_sum.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct ScanParams {
    /// Entries at this level.
    pub len: u32,
    /// Threads along x.
    pub dispatch_x: u32,
    /// Padding to 16 bytes.
    pub pad: [u32; 2],
}

/// Bytes per sphere of each per-sphere buffer, by name: what a scene needs before allocation.
/// The hash table adds `2 × 4 × (table_size + 1)` bytes.
pub const PER_SPHERE: [(&str, u64); 14] = [
    ("binned cells", 16),
    ("position ×2", 32),
    ("velocity ×2", 32),
    ("acceleration ×2", 32),
    ("properties ×2", 32),
    ("ids ×2", 8),
    ("keys", 4),
    ("slots", 4),
    ("arrival order", 4),
    ("permutation", 4),
    ("earliest events", 16),
    ("contact results", 32),
    ("contact counts + mutual gravity", 32),
    ("dissipated energy", 4),
];

/// Largest single binding per sphere: a `vec4<f32>` (positions, velocities, each half of the
/// contact results, ...).
pub const LARGEST_BINDING_PER_SPHERE: u64 = 16;

/// Bytes per sphere that rotation adds: ω, orientation and angular acceleration (48) in each of
/// the two state sets, and the friction torque (16).
pub const ROTATION_BYTES_PER_SPHERE: u64 = 2 * 48 + 16;

/// Bytes per sphere that a scene's options add on the device: periodic images (12, by input
/// id) and, with recorded wall forces, 16 per wall beyond the 16 of the earliest-event buffer
/// that holds them (`state::SharedBuffers::earliest`).
pub fn option_bytes_per_sphere(periodic: bool, wall_forces: bool, walls: usize) -> u64 {
    12 * periodic as u64
        + if wall_forces {
            16 * walls.saturating_sub(1) as u64
        } else {
            0
        }
}

/// Estimated device memory for `n` spheres with `table_size` buckets and a neighbour list of
/// `capacity` entries, bytes; `history` adds the list's friction history, `tree` the gravity
/// tree's [`BYTES_PER_BODY`](super::tree::BYTES_PER_BODY) per sphere, `rotation`
/// [`ROTATION_BYTES_PER_SPHERE`] and the list's friction moments, `rolling` the list's rolling
/// resistance torques, `options` the bytes per sphere of [`option_bytes_per_sphere`].
// Each argument is one buffer family the estimate sizes.
#[allow(clippy::too_many_arguments)]
pub fn memory_estimate(
    n: u64,
    table_size: u64,
    capacity: u64,
    history: bool,
    tree: bool,
    rotation: bool,
    rolling: crate::scene::RollingModel,
    options: u64,
) -> u64 {
    options * n
        + PER_SPHERE.iter().map(|(_, b)| b * n).sum::<u64>()
        + 8 * (table_size + 1)
        + capacity * super::neighbours::bytes_per_entry(history, rotation, rolling)
        + if rotation { ROTATION_BYTES_PER_SPHERE * n } else { 0 }
        // Sweeps, positions at build, row starts; with history the walls' ξ is not counted.
        + 24 * n
        + if tree { super::tree::BYTES_PER_BODY * n } else { 0 }
}

/// Uniforms of the gravity tree's stages (`TreeParams` in common.wgsl); each dispatch that
/// needs its own `dispatch_x`, level or pass has its own copy.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct TreeParams {
    /// Bodies.
    pub n: u32,
    /// Entries of a `tree_bounds` level.
    pub len: u32,
    /// `radix_sort`: the pass's first key bit; `tree_bounds`: 0 at level 0, 1 above.
    pub shift: u32,
    /// `radix_sort`: blocks of `WG` keys; `compact_groups`: work-groups along x at most.
    pub blocks: u32,
    /// Threads along x of the dispatch (work-groups × `WG`).
    pub dispatch_x: u32,
    /// θ², the opening angle squared.
    pub theta2: f32,
    /// ε², m².
    pub eps2: f32,
    /// G, m³ kg⁻¹ s⁻².
    pub g_const: f32,
}

/// The most bytes one storage binding may hold on a device with `limits` (its binding limit
/// or its buffer limit, whichever is smaller, lowered to `lowered` when given), and the name
/// of the limit that sets it.
pub(crate) fn binding_limit(limits: &wgpu::Limits, lowered: Option<u64>) -> (u64, &'static str) {
    let binding = limits
        .max_storage_buffer_binding_size
        .min(lowered.unwrap_or(u64::MAX));
    if binding <= limits.max_buffer_size {
        (binding, "max_storage_buffer_binding_size")
    } else {
        (limits.max_buffer_size, "max_buffer_size")
    }
}

/// Checks before anything is allocated that `n` spheres fit the adapter's binding and buffer
/// limits (lowered to `lowered` bytes when given): the largest per-sphere binding, the list's
/// largest per-entry binding at `capacity` entries, the tree's cells, the rotation state, the
/// walls' forces (`wall_force_bytes` a sphere) and the hash table of `ts` buckets. Logs the
/// whole memory estimate, with `options` bytes a sphere ([`option_bytes_per_sphere`]).
///
/// # Errors
/// [`super::GpuError::TooLarge`], naming the buffer, the bytes it needs, the limit and how many
/// spheres would fit.
// Each argument is one buffer family the check sizes.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_fits(
    ctx: &super::GpuContext,
    n: usize,
    ts: u32,
    capacity: u32,
    history: bool,
    tree: bool,
    (rotation, rolling): (bool, crate::scene::RollingModel),
    (wall_force_bytes, options): (u64, u64),
    lowered: Option<u64>,
) -> Result<(), super::GpuError> {
    let (limit, limit_name) = binding_limit(&ctx.limits, lowered);
    // The largest per-sphere binding, and the list's largest per-entry ones
    // (`neighbours::largest_entry_binding`) at the capacity set-up starts with.
    let per_entry = super::neighbours::largest_entry_binding(history, rotation, rolling)
        * capacity as u64
        / n.max(1) as u64;
    let tree_cells = if tree { super::tree::CELL_BYTES } else { 0 };
    for (buffer, per) in [
        (
            "per-sphere state (16 bytes a sphere)",
            LARGEST_BINDING_PER_SPHERE,
        ),
        ("neighbour list", per_entry),
        ("gravity tree cells", tree_cells),
        ("rotation state", if rotation { 48 } else { 0 }),
        ("wall forces", wall_force_bytes),
    ] {
        let need = per * n as u64;
        if need > limit {
            return Err(super::GpuError::TooLarge {
                adapter: ctx.adapter_name(),
                buffer,
                need,
                spheres: n,
                limit_name,
                limit,
                fits: limit / per,
            });
        }
    }
    let table = 4 * (ts as u64 + 1);
    if table > limit {
        return Err(super::GpuError::TooLarge {
            adapter: ctx.adapter_name(),
            buffer: "hash table",
            need: table,
            spheres: n,
            limit_name,
            limit,
            fits: limit / 16,
        });
    }
    log::info!(
        "GPU memory estimate for {n} spheres: {:.1} MiB",
        memory_estimate(
            n as u64,
            ts as u64,
            capacity as u64,
            history,
            tree,
            rotation,
            rolling,
            options
        ) as f64
            / 1048576.0
    );
    Ok(())
}

/// A host-visible read-back buffer (`MAP_READ | COPY_DST`) kept between reads, so that a
/// repeated read (`GpuBackend::snapshot_into`) creates no buffer: made on first use, replaced
/// by a larger one when a read needs more.
#[derive(Default)]
pub(crate) struct Staging {
    buffer: std::cell::RefCell<Option<wgpu::Buffer>>,
    created: std::cell::Cell<u64>,
}

impl Staging {
    /// Copies the first `size` bytes of each source, one after another (each size a multiple
    /// of 4, wgpu's copy alignment), into the staging buffer, waits, and hands `decode` the
    /// mapped bytes in that order. Nothing is allocated on the host.
    pub(crate) fn read_with<R>(
        &self,
        ctx: &GpuContext,
        sources: &[(&wgpu::Buffer, u64)],
        decode: impl FnOnce(&[u8]) -> R,
    ) -> R {
        let total: u64 = sources.iter().map(|&(_, size)| size).sum();
        let mut slot = self.buffer.borrow_mut();
        if slot.as_ref().is_none_or(|b| b.size() < total) {
            *slot = Some(ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("kept read-back"),
                size: total.max(16),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
            self.created.set(self.created.get() + 1);
        }
        let staging = slot.as_ref().expect("made above");
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        let mut offset = 0;
        for &(src, size) in sources.iter().filter(|&&(_, size)| size > 0) {
            enc.copy_buffer_to_buffer(src, 0, staging, offset, size);
            offset += size;
        }
        ctx.queue.submit([enc.finish()]);
        if total == 0 {
            return decode(&[]);
        }
        let slice = staging.slice(..total);
        slice.map_async(wgpu::MapMode::Read, |r| r.expect("map read-back buffer"));
        ctx.device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("GPU device lost while waiting");
        let out = decode(&slice.get_mapped_range().expect("mapped range"));
        staging.unmap();
        out
    }

    /// Staging buffers created so far (1 after any number of reads of one size).
    pub(crate) fn created(&self) -> u64 {
        self.created.get()
    }
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

/// A storage buffer of `size` bytes (16 at least), copyable both ways.
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

/// A storage buffer holding `data`, copyable both ways.
pub(crate) fn init_storage<T: Pod>(device: &wgpu::Device, label: &str, data: &[T]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: cast_slice(data),
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC,
    })
}

/// A parameter block holding `data`, writable by the queue: bound as a read-only storage
/// buffer by the compute stages, and usable as a uniform buffer by the renderer.
///
/// The compute stages declare their parameters `var<storage, read>`, not `var<uniform>`: Mesa's
/// lavapipe 22.3 compiled a new shader variant with the uniform values inlined on about every
/// step, and kept each until the device was dropped, so a long run's resident memory grew
/// without bound (tests/gpu_memory.rs).
pub(crate) fn uniform<T: Pod>(device: &wgpu::Device, label: &str, data: &T) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytemuck::bytes_of(data),
        usage: wgpu::BufferUsages::UNIFORM
            | wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST,
    })
}
