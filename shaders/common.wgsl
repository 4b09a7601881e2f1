// Shared by every compute stage (prepended to each stage's source by src/gpu/pipelines.rs).
// Each function names the Rust function it mirrors; constants equal the Rust ones.

// Work-group size of every 1-D stage (src/gpu/mod.rs: WORKGROUP_SIZE).
const WG: u32 = 256u;

// Entries per block of the prefix sum (setup::SCAN_BLOCK; prefix_sum.wgsl), WG × its ITEMS. The
// passes that write a scan's input add its first block sums too (count.wgsl's seed_cell_start,
// neighbours.wgsl's list_count), from work-groups of WG entries, which SCAN_BLOCK divides.
const SCAN_BLOCK: u32 = 2048u;

// Parameters of a step (src/gpu/buffers.rs: Params; field order and padding matter). Every
// compute stage binds its parameter blocks as `var<storage, read>`, never `var<uniform>`:
// lavapipe 22.3 recompiled a variant per dispatch for inlined uniforms and kept them all
// (src/gpu/buffers.rs: uniform; tests/gpu_memory.rs checks both).
struct Params {
    gravity: vec3<f32>,      // m/s²
    dt: f32,                 // s
    n: u32,                  // spheres
    n_small: u32,            // small spheres, sorted first
    table_size: u32,         // hash buckets (power of two); the large spheres' key is table_size
    n_planes: u32,
    small_radius_max: f32,   // m
    g_const: f32,            // m³ kg⁻¹ s⁻²
    eps2: f32,               // m², softening²
    drag: f32,               // N·s/m²
    stiffness: f32,          // N/m
    model: u32,              // MODEL_* below (src/gpu/buffers.rs: model_code)
    overlap_relaxation: f32, // cpu::collide::OVERLAP_RELAXATION
    dispatch_x: u32,         // threads along x of a 2-D dispatch (work-groups × WG)
    resting_speed: f32,      // m/s, physics::impulse::resting_speed
    history: u32,            // 1: friction history kept (cpu::friction_history)
    skin: f32,               // m, neighbour-list skin s (cpu::neighbours)
    row_groups_x: u32,       // work-groups along x of a row pass (collide.wgsl: row_group)
    rotation: u32,           // 1: spheres rotate (SimParams::rotation)
    rolling: u32,            // ROLLING_* below: the rolling resistance law
    damping: u32,            // DAMPING_* below: the Hertz law's damping
    history_stride: u32,     // vec4s a contact's history takes (gpu::neighbours::history_vec4s)
    guard_distance: f32,     // m, the magnitude guard's distance bound at t = 0 (physics::guard)
    guard_speed: f32,        // m/s, its speed bound at t = 0
    guard_accel: f32,        // m/s², the speed bound's growth
    guard_centre: vec3<f32>, // m, the centre distances are measured from
    periodic: u32,           // 1: some axis is periodic (physics::periodic::PeriodicBox)
    box_min: vec3<f32>,      // m, the periodic box's lower corner (0 on an open axis)
    box_len: vec3<f32>,      // m, its edges (0 on an open axis)
    box_half: vec3<f32>,     // m, half its edges (the largest f32 on an open axis)
    wall_forces: u32,        // 1: each wall's force on each sphere is recorded (collide.wgsl)
}

// Grid parameters computed on the GPU each step (src/gpu/buffers.rs: Grid).
struct Grid {
    speed_max_bits: atomic<u32>, // bits of the largest small-sphere speed², m²/s² (≥ 0 floats order as u32)
    cell_edge: f32,              // m
    inv_cell_edge: f32,          // 1/m
    small_speed_max: f32,        // m/s
    step: u32,                   // steps begun; integrate's kick_drift advances it (0 after set-up)
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

// Mirrors cpu::cell_keys::cell_edge, with the small radius widened by half the skin (as
// CpuBackend::bin passes it): h = 2 ((r_small_max + s/2) + v_max dt), m.
fn grid_cell_edge(small_radius_max: f32, skin: f32, small_speed_max: f32, dt: f32) -> f32 {
    return 2.0 * ((small_radius_max + skin * 0.5) + small_speed_max * dt);
}

// Grid without the atomic, for read-only binding.
struct GridView {
    speed_max_bits: u32,
    cell_edge: f32,
    inv_cell_edge: f32,
    small_speed_max: f32,
    step: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

// Non-finite detection and the collision counter (src/gpu/buffers.rs: Status).
struct Status {
    first_bad_step: atomic<u32>, // first step with a NaN or infinite sphere (u32 max: none)
    bad_id: atomic<u32>,         // lowest input id of such a sphere at that step
    collisions: atomic<u32>,     // collisions since the host last read and cleared it
    history_dropped: atomic<u32>, // contacts whose friction history did not fit (always 0 now)
    rebuilds: atomic<u32>,       // neighbour-list rebuilds since the host last read and cleared it
    list_needed: atomic<u32>,    // most list entries a build needed since then
    steps: atomic<u32>,          // steps completed since then (end_of_step)
    reach: atomic<u32>,          // bits of the largest reach fraction since the last rebuild (kick_drift, HALT)
}

// Contact laws (src/gpu/buffers.rs: model_code).
// The neighbour list's own uniforms (src/gpu/buffers.rs: ListParams).
struct ListParams {
    capacity: u32,    // entries the list buffers hold
    dispatch_x: u32,  // threads along x of a per-entry dispatch
    split: u32,       // entries in the first binding of each pair-result buffer; the rest in the second
    large_chunks: u32, // work-groups per large sphere in the build (gpu::neighbours::large_chunks)
}

// The gravity tree's uniforms (src/gpu/buffers.rs: TreeParams); a stage reads what it needs.
struct TreeParams {
    n: u32,           // bodies
    len: u32,         // entries of this tree_bounds level
    shift: u32,       // radix_sort: the pass's first key bit; tree_bounds: 0 at level 0
    blocks: u32,      // radix_sort: blocks of WG keys; karras: work-groups along x at most
    dispatch_x: u32,  // threads along x of a 2-D dispatch (work-groups × WG)
    theta2: f32,      // θ², the opening angle squared
    eps2: f32,        // m², softening²
    g_const: f32,     // m³ kg⁻¹ s⁻²
}

// A cell of the gravity tree (cpu::tree::moments::Cell): 80 bytes.
struct TreeCell {
    com_mass: vec4<f32>,  // centre of mass (m), mass (kg)
    quad_a: vec4<f32>,    // quadrupole xx, yy, zz, xy (kg m²)
    quad_b: vec4<f32>,    // quadrupole xz, yz; b_max² (m²); 0
    lo: vec4<f32>,        // box corners, m
    hi: vec4<f32>,
}

const OWNED: u32 = 0x80000000u;      // cpu::neighbours::OWNED
const NO_MIRROR: u32 = 0x7fffffffu;  // cpu::neighbours::NO_MIRROR

const MODEL_IMPULSE: u32 = 0u;
const MODEL_SPRING_DASHPOT: u32 = 1u;
const MODEL_HERTZ: u32 = 2u;
const DAMPING_HUNT_CROSSLEY: u32 = 0u;  // src/gpu/buffers.rs: damping_code
const DAMPING_FLORES: u32 = 1u;
const ROLLING_NONE: u32 = 0u;  // src/gpu/buffers.rs: rolling_code
const ROLLING_CDT: u32 = 1u;
const ROLLING_EPSD: u32 = 2u;

// Linear thread index of a possibly 2-D dispatch (docs/architecture.md: 2-D dispatch when one dimension
// would exceed the adapter's limit).
fn linear_index(gid: vec3<u32>, dispatch_x: u32) -> u32 {
    return gid.x + gid.y * dispatch_x;
}

// Mirrors cpu::cell_keys::CELL_LIMIT.
const CELL_LIMIT: f32 = 1073741824.0;

// Mirrors cpu::cell_keys::cell_of (clamp, then floor).
fn cell_of(x: vec3<f32>, inv_h: f32) -> vec3<i32> {
    return vec3<i32>(floor(clamp(x * inv_h, vec3<f32>(-CELL_LIMIT), vec3<f32>(CELL_LIMIT))));
}

// Mirrors physics::periodic::minimum_image: the nearest image of the separation d (m) in the
// periodic box of edges len and half-edges half (m; the largest f32 on an open axis).
fn minimum_image(d: vec3<f32>, len: vec3<f32>, half: vec3<f32>) -> vec3<f32> {
    var c = d;
    for (var a = 0; a < 3; a++) {
        if c[a] > half[a] {
            c[a] -= len[a];
        } else if c[a] < -half[a] {
            c[a] += len[a];
        }
    }
    return c;
}

// Mirrors physics::periodic::wrap_position: x (m) wrapped into the box [lo, lo + len) on the
// axes with len > 0, the crossings added to *image.
fn wrap_position(x: vec3<f32>, image: ptr<function, vec3<i32>>, lo: vec3<f32>, len: vec3<f32>) -> vec3<f32> {
    var c = x;
    var im = *image;
    for (var a = 0; a < 3; a++) {
        if len[a] > 0.0 {
            if c[a] >= lo[a] + len[a] {
                c[a] -= len[a];
                im[a] += 1;
            } else if c[a] < lo[a] {
                c[a] += len[a];
                im[a] -= 1;
            }
        }
    }
    *image = im;
    return c;
}

// Mirrors physics::periodic::periodic_cells.
fn periodic_cells(len: f32, h: f32) -> i32 {
    return max(i32(floor(len / h)), 1);
}

// Mirrors physics::periodic::wrap_cell.
fn wrap_cell(c: i32, n: i32) -> i32 {
    if n == 0 {
        return c;
    }
    if c < 0 {
        return c + n;
    }
    if c >= n {
        return c - n;
    }
    return c;
}

// Mirrors cpu::cell_keys::GridAxes: cells along each periodic axis (0: open), from the box's
// lower corner lo (m), inv = cells / L (1/m).
struct GridAxes {
    cells: vec3<i32>,
    lo: vec3<f32>,
    inv: vec3<f32>,
}

// Mirrors cpu::cell_keys::GridAxes::of, for the box lo, len (m) and the cell edge h (m).
fn grid_axes(lo: vec3<f32>, len: vec3<f32>, h: f32) -> GridAxes {
    var g = GridAxes(vec3<i32>(0), vec3<f32>(0.0), vec3<f32>(0.0));
    for (var a = 0; a < 3; a++) {
        if len[a] > 0.0 {
            let n = periodic_cells(len[a], h);
            g.cells[a] = n;
            g.lo[a] = lo[a];
            g.inv[a] = f32(n) / len[a];
        }
    }
    return g;
}

// Mirrors cpu::cell_keys::cell_of with the periodic axes g.
fn grid_cell(x: vec3<f32>, inv_h: f32, g: GridAxes) -> vec3<i32> {
    var c = cell_of(x, inv_h);
    for (var a = 0; a < 3; a++) {
        if g.cells[a] != 0 {
            c[a] = clamp(i32(floor((x[a] - g.lo[a]) * g.inv[a])), 0, g.cells[a] - 1);
        }
    }
    return c;
}

// Mirrors cpu::cell_keys::BLOCK_BITS.
const BLOCK_BITS: u32 = 4u;

// Mirrors the spread in cpu::cell_keys::axis_part: bit b of the low BLOCK_BITS bits to
// bit 3b.
fn spread_block(v: i32) -> u32 {
    let u = u32(v) & ((1u << BLOCK_BITS) - 1u);
    return (u & 1u) | ((u & 2u) << 2u) | ((u & 4u) << 4u) | ((u & 8u) << 6u);
}

// Mirrors cpu::cell_keys::hash_cell (blocks of 16³ cells hashed with Teschner's primes, the
// cell's Morton index inside its block in the low 3 BLOCK_BITS bits).
fn hash_cell(c: vec3<i32>, table_size: u32) -> u32 {
    let block = (u32(c.x >> BLOCK_BITS) * 73856093u) ^ (u32(c.y >> BLOCK_BITS) * 19349663u)
        ^ (u32(c.z >> BLOCK_BITS) * 83492791u);
    let local = spread_block(c.x) | (spread_block(c.y) << 1u) | (spread_block(c.z) << 2u);
    return ((block << (3u * BLOCK_BITS)) | local) & (table_size - 1u);
}

// real::Real::dot, with the sum written out in its order.
fn dot3(a: vec3<f32>, b: vec3<f32>) -> f32 {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

// Real::cross (f32), written out in the same order.
fn cross3(a: vec3<f32>, b: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

// physics::rotation::contact_arm
fn contact_arm(r: f32, overlap: f32) -> f32 {
    return r - overlap * 0.5;
}

// Mirrors cpu::neighbours::LARGE_SKIN_LIMIT.
const LARGE_SKIN_LIMIT: f32 = 8.0;

// Mirrors cpu::neighbours::sphere_skin: the skin (m) of a sphere of radius r (m).
fn sphere_skin(skin: f32, r: f32, small_radius_max: f32) -> f32 {
    if r <= small_radius_max {
        return skin;
    }
    return skin * min(r / small_radius_max, LARGE_SKIN_LIMIT);
}

// Work-group reductions: a stage publishes one value per work-group to a global counter, so
// that no global address takes an atomic from every invocation (on a GPU those serialise at
// the memory controller: N of them per dispatch). The work-group's own atomics stay in its
// shared memory (a GPU reduces a warp's to one), behind one barrier. Each may be called once
// per entry point (work-group memory starts at zero in each dispatch), in uniform control flow.
var<workgroup> wg_max: atomic<u32>;
var<workgroup> wg_sum: atomic<u32>;

// The largest `value` of the work-group's invocations, returned to each. Its accumulator is
// not reset: once per entry point (as workgroup_sum_u32).
fn workgroup_max_u32(value: u32) -> u32 {
    if value != 0u {
        atomicMax(&wg_max, value);
    }
    workgroupBarrier();
    return atomicLoad(&wg_max);
}

// The sum of `value` over the work-group's invocations, returned to each.
fn workgroup_sum_u32(value: u32) -> u32 {
    if value != 0u {
        atomicAdd(&wg_sum, value);
    }
    workgroupBarrier();
    return atomicLoad(&wg_sum);
}

// Mirrors cpu::collide::impulse_energy_change: mechanical energy a contact round gives a
// movable sphere of mass m whose velocity v changes by dv and position by dx, in the field a of
// its step (its acceleration from the last force stage), J:
// m [dv·(v + dv/2 + a dt/2) − a·dx] (exact for the kick–drift–kick step in a uniform field).
fn impulse_energy_change(m: f32, v: vec3<f32>, dv: vec3<f32>, dx: vec3<f32>, a: vec3<f32>,
                         dt: f32) -> f32 {
    return m * (dot(dv, v + dv * 0.5 + a * (0.5 * dt)) - dot(a, dx));
}
