// The gather half of stage `scatter`: dst[new] = src[perm[new]] for every state array.
// Twin of src/cpu/scatter.rs::gather.

@group(0) @binding(0) var<storage, read> params: Params;
@group(0) @binding(1) var<storage, read> perm: array<u32>;
@group(0) @binding(2) var<storage, read> src_pos: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> src_vel: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> src_acc: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> src_props: array<vec4<f32>>;  // e, zeta, -, -
@group(0) @binding(6) var<storage, read> src_id: array<u32>;
@group(0) @binding(7) var<storage, read_write> dst_pos: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> dst_vel: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> dst_acc: array<vec4<f32>>;
@group(0) @binding(10) var<storage, read_write> dst_props: array<vec4<f32>>;
@group(0) @binding(11) var<storage, read_write> dst_id: array<u32>;
// Rotation: 3 vec4 per sphere (integrate.wgsl's `rot`); 16-byte stand-ins without.
@group(0) @binding(12) var<storage, read> src_rot: array<vec4<f32>>;
@group(0) @binding(13) var<storage, read_write> dst_rot: array<vec4<f32>>;
// The step's rebuild decision (neighbours.wgsl's gate_dispatches: 0 keep, else re-sort). A step
// without a rebuild keeps the order: a copy into the other set, so that the current set
// alternates in every step as the host expects, without a second, gated dispatch.
@group(0) @binding(14) var<storage, read> rebuild: array<u32>;

@compute @workgroup_size(WG)
fn gather(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = linear_index(gid, params.dispatch_x);
    if j >= params.n {
        return;
    }
    var i = j;
    if rebuild[0] != 0u {
        i = perm[j];
    }
    dst_pos[j] = src_pos[i];
    dst_vel[j] = src_vel[i];
    dst_acc[j] = src_acc[i];
    dst_props[j] = src_props[i];
    dst_id[j] = src_id[i];
    if params.rotation != 0u {
        for (var k = 0u; k < 3u; k++) {
            dst_rot[3u * j + k] = src_rot[3u * i + k];
        }
    }
}
