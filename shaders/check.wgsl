// End of a step: stop on a non-finite sphere (CpuBackend::step's check) and count collisions.
// Appended to integrate.wgsl (one module), so that the integrate stage's fused entry points
// (`apply_contacts`, `end_of_step`) run the check and the tally in the same pass; it uses that
// file's params, pos, vel, ids, grid and rot.

@group(0) @binding(11) var<storage, read> contact_counts: array<vec4<u32>>; // contacts, collisions, 0, 0
@group(0) @binding(12) var<storage, read_write> status: Status;

// A float is NaN or ±inf when its exponent bits are all set (f32::INFINITY.to_bits()). Tested
// on the bits: a compiler that assumes finite floats may fold comparisons with NaN away.
const EXPONENT_BITS: u32 = 0x7f800000u;

// physics::guard::MAX_BOUND: the ceiling of the guard's bounds, m/s or m.
const MAX_BOUND: f32 = 1e30;

fn finite3(v: vec3<f32>) -> bool {
    let e = bitcast<vec3<u32>>(v) & vec3<u32>(EXPONENT_BITS);
    return all(e != vec3<u32>(EXPONENT_BITS));
}

// After each contact round: adds the round's collisions (sphere i's; none past the end) to the
// counter the host reads, one atomic per work-group. Every lane of the work-group calls it.
fn tally(i: u32, lid: u32) {
    var c = 0u;
    if i < params.n {
        c = contact_counts[i].y;
    }
    let total = workgroup_sum_u32(c);
    if lid == 0u && total > 0u {
        atomicAdd(&status.collisions, total);
    }
}

// physics::guard::guard_bounds: the speed and distance bounds (m/s, m) at the end of step
// `step`, in the same operations and order.
fn guard_bounds(step: u32) -> vec2<f32> {
    let t = f32(step) * params.dt;
    let v = min(params.guard_speed + params.guard_accel * t, MAX_BOUND);
    let d = min(params.guard_distance + (params.guard_speed + 0.5 * params.guard_accel * t) * t, MAX_BOUND);
    return vec2<f32>(v, d);
}

// physics::guard::within_bounds: |v| <= speed and |x - centre| <= distance; false for NaN.
fn within_bounds(x: vec3<f32>, v: vec3<f32>, centre: vec3<f32>, speed: f32, distance: f32) -> bool {
    let d = x - centre;
    return sqrt(dot(v, v)) <= speed && sqrt(dot(d, d)) <= distance;
}

// The first sphere of the step that is non-finite or outside the magnitude guard's bounds
// (sphere i < n).
fn check(i: u32) {
    let bounds = guard_bounds(grid.step);
    var ok = finite3(pos[i].xyz) && finite3(vel[i].xyz)
        && within_bounds(pos[i].xyz, vel[i].xyz, params.guard_centre, bounds.x, bounds.y);
    if params.rotation != 0u {
        ok = ok && finite3(rot[3u * i].xyz);
    }
    if !ok && atomicLoad(&status.first_bad_step) >= grid.step {
        atomicMin(&status.first_bad_step, grid.step);
        atomicMin(&status.bad_id, ids[i]);
    }
}
