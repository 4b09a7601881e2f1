// End of a step: stop on a non-finite sphere (CpuBackend::step's check) and count collisions.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> pos: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> vel: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> ids: array<u32>;
@group(0) @binding(4) var<storage, read> contact_counts: array<vec4<u32>>; // contacts, collisions, 0, 0
@group(0) @binding(5) var<storage, read> grid: GridView;
@group(0) @binding(6) var<storage, read_write> status: Status;
@group(0) @binding(7) var<storage, read> rot: array<vec4<f32>>;  // integrate.wgsl's; ω first

// A float is NaN or ±inf when its exponent bits are all set (f32::INFINITY.to_bits()). Tested
// on the bits: a compiler that assumes finite floats may fold comparisons with NaN away.
const EXPONENT_BITS: u32 = 0x7f800000u;

fn finite3(v: vec3<f32>) -> bool {
    let e = bitcast<vec3<u32>>(v) & vec3<u32>(EXPONENT_BITS);
    return all(e != vec3<u32>(EXPONENT_BITS));
}

// After each contact round: adds the round's collisions to the counter the host reads, one
// atomic per work-group.
@compute @workgroup_size(WG)
fn tally(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let i = linear_index(gid, params.dispatch_x);
    var c = 0u;
    if i < params.n {
        c = contact_counts[i].y;
    }
    let total = workgroup_sum_u32(c);
    if lid == 0u && total > 0u {
        atomicAdd(&status.collisions, total);
    }
}

@compute @workgroup_size(WG)
fn check(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid, params.dispatch_x);
    if i >= params.n {
        return;
    }
    var ok = finite3(pos[i].xyz) && finite3(vel[i].xyz);
    if params.rotation != 0u {
        ok = ok && finite3(rot[3u * i].xyz);
    }
    if !ok && atomicLoad(&status.first_bad_step) >= grid.step {
        atomicMin(&status.first_bad_step, grid.step);
        atomicMin(&status.bad_id, ids[i]);
    }
}
