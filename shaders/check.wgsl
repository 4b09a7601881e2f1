// End of a step: stop on a non-finite sphere (CpuBackend::step's check) and count collisions.
// Appended to integrate.wgsl (one module), so that the integrate stage's fused entry points
// (`apply_contacts`, `end_of_step`) run the check and the tally in the same pass; it uses that
// file's params, pos, vel, ids, grid and rot.

@group(0) @binding(11) var<storage, read> contact_counts: array<vec4<u32>>; // contacts, collisions, 0, 0
@group(0) @binding(12) var<storage, read_write> status: Status;

// A float is NaN or ±inf when its exponent bits are all set (f32::INFINITY.to_bits()). Tested
// on the bits: a compiler that assumes finite floats may fold comparisons with NaN away.
const EXPONENT_BITS: u32 = 0x7f800000u;

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

// The first non-finite sphere of the step (sphere i < n).
fn check(i: u32) {
    var ok = finite3(pos[i].xyz) && finite3(vel[i].xyz);
    if params.rotation != 0u {
        ok = ok && finite3(rot[3u * i].xyz);
    }
    if !ok && atomicLoad(&status.first_bad_step) >= grid.step {
        atomicMin(&status.first_bad_step, grid.step);
        atomicMin(&status.bad_id, ids[i]);
    }
}
