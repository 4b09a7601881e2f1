// Stage `integrate`: kick–drift–kick leapfrog. Twin of src/cpu/integrate.rs. check.wgsl
// (the end-of-step check and the collision tally) is appended to this file.

@group(0) @binding(0) var<storage, read> params: Params;
@group(0) @binding(1) var<storage, read_write> pos: array<vec4<f32>>;   // xyz m, w radius m
@group(0) @binding(2) var<storage, read_write> vel: array<vec4<f32>>;   // xyz m/s, w inverse mass 1/kg
@group(0) @binding(3) var<storage, read_write> acc: array<vec4<f32>>;   // xyz m/s², w mass kg
@group(0) @binding(4) var<storage, read_write> grid: Grid;
@group(0) @binding(5) var<storage, read> contact: array<vec4<f32>>;     // dv | force, energy
@group(0) @binding(30) var<storage, read> contact_dx: array<vec4<f32>>; // dx, power
@group(0) @binding(6) var<storage, read> a_mutual: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read> ids: array<u32>;
@group(0) @binding(8) var<storage, read_write> dissipated: array<f32>;  // J, by input id
// Rotation (16-byte stand-ins without): 3 per sphere: ω (rad/s) | inverse inertia
// ((kg·m²)⁻¹); orientation quaternion x, y, z, w; angular acceleration (rad/s²) | 0.
@group(0) @binding(9) var<storage, read_write> rot: array<vec4<f32>>;
@group(0) @binding(10) var<storage, read> torque: array<vec4<f32>>;  // N·m, per sphere
// The neighbour list at its last build (neighbours.wgsl: positions, sweeps) and the gate's
// words, for the rebuild decision kick_drift takes (DECIDE): word 0 the rebuild flag (0 keep,
// 1 rebuild); with HALT, words 1 and 2 the halt words of a submission's even and odd steps.
@group(0) @binding(13) var<storage, read> x_build: array<vec4<f32>>;
@group(0) @binding(14) var<storage, read> sweep: array<f32>;
@group(0) @binding(15) var<storage, read_write> rebuild: array<atomic<u32>, 4>;
// The step tail's indirect arguments (neighbours.wgsl's running_dims), which a halting
// kick_drift zeroes; a 16-byte stand-in in the bind group of the tail's own dispatches.
@group(0) @binding(16) var<storage, read_write> running_dims: array<atomic<u32>>;
// Periodic images by input id, 3 per sphere (a 16-byte stand-in without periodic axes): box
// lengths crossed per axis (physics::periodic::wrap_position).
@group(0) @binding(31) var<storage, read_write> image: array<i32>;

// physics::rotation::drift_orientation
fn drift_orientation(q: vec4<f32>, omega: vec3<f32>, dt: f32) -> vec4<f32> {
    let h = dt * 0.5;
    let nx = q.x + h * (q.w * omega.x + omega.y * q.z - omega.z * q.y);
    let ny = q.y + h * (q.w * omega.y + omega.z * q.x - omega.x * q.z);
    let nz = q.z + h * (q.w * omega.z + omega.x * q.y - omega.y * q.x);
    let nw = q.w - h * (omega.x * q.x + omega.y * q.y + omega.z * q.z);
    let norm = sqrt(nx * nx + ny * ny + nz * nz + nw * nw);
    return vec4<f32>(nx / norm, ny / norm, nz / norm, nw / norm);
}

// Publishes the work-group's largest small-sphere speed² (bits; 0 for none: a speed² ≥ 0 orders
// as its u32 bits) to the grid, one atomic per work-group.
fn publish_speed(lid: u32, speed2_bits: u32) {
    let m = workgroup_max_u32(speed2_bits);
    if lid == 0u && m != 0u {
        atomicMax(&grid.speed_max_bits, m);
    }
}

// cpu::neighbours::needs_rebuild for sphere i after its drift, at p with velocity v (positions
// and sweeps in the order of the last build, which no step has re-sorted since).
fn needs_rebuild(i: u32, p: vec3<f32>, v: vec3<f32>) -> bool {
    // A sphere wrapped through a periodic face has moved by its minimum image.
    let d = minimum_image(p - x_build[i].xyz, params.box_len, params.box_half);
    let s = sweep[i];
    var moved = dot3(d, d) > s * s;
    if params.model == MODEL_IMPULSE {
        // The step's own travel counts too.
        moved = sqrt(dot3(d, d)) + sqrt(dot3(v, v)) * params.dt > s;
    }
    return moved;
}

// How far sphere i has gone towards needs_rebuild's threshold, as a fraction of its sweep (1:
// the threshold). Only plans the host's submissions (GpuBackend::plan), so it need not match
// the CPU bit for bit.
fn reach_fraction(i: u32, p: vec3<f32>, v: vec3<f32>) -> f32 {
    let d = minimum_image(p - x_build[i].xyz, params.box_len, params.box_half);
    var moved = sqrt(dot3(d, d));
    if params.model == MODEL_IMPULSE {
        moved += sqrt(dot3(v, v)) * params.dt;
    }
    return moved / sweep[i];
}

var<workgroup> wg_reach: atomic<u32>;

// Whether kick_drift also takes the neighbour list's rebuild decision (a scene with a skin;
// without one, or at set-up, gate_dispatches rebuilds on its own).
override DECIDE: bool = false;

// With DECIDE, whether a rebuild halts the submission (src/gpu/mod.rs, "halting
// submissions"): only a submission's first step bins, so a later step whose drift calls for a
// rebuild zeroes the tail's work-group counts and raises its halt word (1 + PARITY, the
// step's parity within the submission's sequence), and every later step sees its
// predecessor's halt word and passes it on. The next submission's first step then skips its
// drift (it is done) and bins.
override HALT: bool = false;
override PARITY: u32 = 0u;

var<workgroup> halted: u32;

// Mirrors cpu::integrate::kick_drift: v += a dt/2, x += v dt (wrapped into the periodic box,
// the crossings counted in the sphere's image); records the largest small-sphere
// speed² for the grid; with DECIDE raises the rebuild flag when the sphere has moved past its
// sweep (one flag write per work-group). Advances the grid's step count.
@compute @workgroup_size(WG)
fn kick_drift(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let i = linear_index(gid, params.dispatch_x);
    if HALT {
        // The halt word of the step before this one (the other parity): the same for every
        // invocation, as no invocation of this pass writes it.
        if lid == 0u {
            halted = atomicLoad(&rebuild[2u - PARITY]);
        }
        if workgroupUniformLoad(&halted) != 0u {
            if i == 0u {
                atomicStore(&rebuild[1u + PARITY], 1u);
            }
            return;
        }
    }
    if i == 0u {
        grid.step += 1u;
    }
    // No early return: the whole work-group meets in publish_speed.
    var speed2 = 0u;
    var moved = false;
    var reach = 0u;
    if i < params.n {
        let v4 = vel[i];
        let p4 = pos[i];
        var p = p4.xyz;
        var v = v4.xyz;
        if v4.w != 0.0 {
            v = v4.xyz + acc[i].xyz * (params.dt * 0.5);
            p = p4.xyz + v * params.dt;
            if params.periodic != 0u {
                let k = 3u * ids[i];
                var im = vec3<i32>(image[k], image[k + 1u], image[k + 2u]);
                p = wrap_position(p, &im, params.box_min, params.box_len);
                image[k] = im.x;
                image[k + 1u] = im.y;
                image[k + 2u] = im.z;
            }
            vel[i] = vec4<f32>(v, v4.w);
            pos[i] = vec4<f32>(p, p4.w);
            if p4.w <= params.small_radius_max {
                speed2 = bitcast<u32>(v.x * v.x + v.y * v.y + v.z * v.z);
            }
        }
        // cpu::integrate::kick_drift_rotation (every sphere: a fixed one's α is zero).
        if params.rotation != 0u {
            let w4 = rot[3u * i];
            let w = w4.xyz + rot[3u * i + 2u].xyz * (params.dt * 0.5);
            rot[3u * i] = vec4<f32>(w, w4.w);
            rot[3u * i + 1u] = drift_orientation(rot[3u * i + 1u], w, params.dt);
        }
        if DECIDE {
            moved = needs_rebuild(i, p, v);
        }
        if HALT {
            // ≥ 0: its bits order as u32.
            reach = bitcast<u32>(reach_fraction(i, p, v));
        }
    }
    publish_speed(lid, speed2);
    if HALT {
        // The submission's planning figure (GpuBackend::plan), one atomic per work-group.
        if reach != 0u {
            atomicMax(&wg_reach, reach);
        }
        workgroupBarrier();
        let r = atomicLoad(&wg_reach);
        if lid == 0u && r != 0u {
            atomicMax(&status.reach, r);
        }
    }
    if DECIDE {
        // The sum, not the max: publish_speed used the work-group's max accumulator.
        let any = workgroup_sum_u32(u32(moved));
        if lid == 0u && any != 0u {
            if HALT {
                atomicStore(&rebuild[1u + PARITY], 1u);
                for (var k = 0u; k < arrayLength(&running_dims); k += 4u) {
                    atomicStore(&running_dims[k], 0u);
                }
            } else {
                atomicStore(&rebuild[0], 1u);
            }
        }
    }
}

// Records the largest small-sphere speed² without moving anything (set-up: the CPU computes the
// same maximum in CpuBackend::new).
@compute @workgroup_size(WG)
fn measure_speed(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let i = linear_index(gid, params.dispatch_x);
    var speed2 = 0u;
    if i < params.n {
        let v4 = vel[i];
        if pos[i].w <= params.small_radius_max {
            speed2 = bitcast<u32>(v4.x * v4.x + v4.y * v4.y + v4.z * v4.z);
        }
    }
    publish_speed(lid, speed2);
}

// Mirrors cpu::integrate::kick: v += a dt/2 (sphere i < n). Soft contact: also adds the power
// the sphere's contacts dissipated this step, times dt, to its dissipated energy
// (CpuBackend::step sums the same powers into one f64).
fn kick_sphere(i: u32) {
    if params.model != MODEL_IMPULSE {
        // Before the fixed-sphere return: a fixed sphere may own a pair (lower id).
        let id = ids[i];
        dissipated[id] += contact_dx[i].w * params.dt;
    }
    // cpu::integrate::kick_rotation
    if params.rotation != 0u {
        let w4 = rot[3u * i];
        rot[3u * i] = vec4<f32>(w4.xyz + rot[3u * i + 2u].xyz * (params.dt * 0.5), w4.w);
    }
    let v4 = vel[i];
    if v4.w == 0.0 {
        return;
    }
    vel[i] = vec4<f32>(v4.xyz + acc[i].xyz * (params.dt * 0.5), v4.w);
}

// Mirrors the impulse-model update of CpuBackend::apply_contacts (sphere i < n): x += dx,
// v += dv from the contact stage, and minus the energy change of a movable sphere booked as
// dissipated (CPU: the same values summed into one f64). collide.wgsl's apply_pending is the
// same update inside earliest_from_pairs.
fn apply_contact(i: u32) {
    let dv = contact[i].xyz;
    let dx = contact_dx[i].xyz;
    let p4 = pos[i];
    let v4 = vel[i];
    if v4.w != 0.0 {
        let id = ids[i];
        let a4 = acc[i];
        dissipated[id] -= impulse_energy_change(a4.w, v4.xyz, dv, dx, a4.xyz, params.dt);
    }
    pos[i] = vec4<f32>(p4.xyz + dx, p4.w);
    vel[i] = vec4<f32>(v4.xyz + dv, v4.w);
}

// Mirrors cpu::integrate::accelerations (sphere i < n): g + w (contact force + Stokes drag) +
// mutual gravity. The contact force is used by the soft contact laws only (it is zero for
// impulses).
fn acceleration(i: u32) {
    // cpu::integrate::angular_accelerations: torque × inverse inertia (0 for fixed spheres);
    // w keeps the rolling friction μ_r.
    if params.rotation != 0u {
        rot[3u * i + 2u] = vec4<f32>(torque[i].xyz * rot[3u * i].w, rot[3u * i + 2u].w);
    }
    let v4 = vel[i];
    let a4 = acc[i];
    let w = v4.w;
    if w == 0.0 {
        acc[i] = vec4<f32>(0.0, 0.0, 0.0, a4.w);
        return;
    }
    // physics::drag::stokes_drag
    var f = v4.xyz * (-params.drag * pos[i].w);
    if params.model != MODEL_IMPULSE {
        f += contact[i].xyz;
    }
    var a = params.gravity + f * w;
    if params.g_const > 0.0 {
        a += a_mutual[i].xyz;
    }
    acc[i] = vec4<f32>(a, a4.w);
}

// An impulse round's end, one sphere each: its collisions tallied (check.wgsl), then
// apply_contact.
@compute @workgroup_size(WG)
fn apply_contacts(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let i = linear_index(gid, params.dispatch_x);
    tally(i, lid);
    if i < params.n {
        apply_contact(i);
    }
}

// The force sum alone (set-up, which has no kick), one sphere each.
@compute @workgroup_size(WG)
fn accelerations(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid, params.dispatch_x);
    if i < params.n {
        acceleration(i);
    }
}

// Whether end_of_step first tallies the last round's collisions (TALLY) and applies an impulse
// round (APPLY): true when no gravity pass, which reads the applied positions, lies between.
override TALLY: bool = false;
override APPLY: bool = false;

// The end of a step in one pass, one sphere each, in CpuBackend::step's order: [tally,
// apply_contact,] acceleration, the second half kick, and the check. Each stage touches only
// its own sphere, so fusing them changes no bit. Counts the step as completed and clears the
// speed maximum for the next drift.
@compute @workgroup_size(WG)
fn end_of_step(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let i = linear_index(gid, params.dispatch_x);
    if TALLY {
        tally(i, lid);
    }
    if i == 0u {
        atomicAdd(&status.steps, 1u);
        atomicStore(&grid.speed_max_bits, 0u);
    }
    if i >= params.n {
        return;
    }
    if APPLY {
        apply_contact(i);
    }
    acceleration(i);
    kick_sphere(i);
    check(i);
}
