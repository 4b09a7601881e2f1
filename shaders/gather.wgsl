// The gather half of stage `scatter`: dst[new] = src[perm[new]] for every state array.
// Twin of src/cpu/scatter.rs::gather.

@group(0) @binding(0) var<uniform> params: Params;
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
// Friction history rows (HISTORY_SLOTS per sphere), when params.history is 1: the rows the
// contact stage wrote last step, into this step's sorted order (cpu::scatter::gather_rows).
@group(0) @binding(12) var<storage, read> src_history: array<vec4<u32>>;
@group(0) @binding(13) var<storage, read_write> dst_history: array<vec4<u32>>;

const HISTORY_SLOTS: u32 = 16u;  // setup::HISTORY_SLOTS (tests/shader_constants.rs)

@compute @workgroup_size(256)
fn gather(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = linear_index(gid, params.dispatch_x);
    if j >= params.n {
        return;
    }
    let i = perm[j];
    dst_pos[j] = src_pos[i];
    dst_vel[j] = src_vel[i];
    dst_acc[j] = src_acc[i];
    dst_props[j] = src_props[i];
    dst_id[j] = src_id[i];
    if params.history != 0u {
        for (var s = 0u; s < HISTORY_SLOTS; s++) {
            dst_history[j * HISTORY_SLOTS + s] = src_history[i * HISTORY_SLOTS + s];
        }
    }
}
