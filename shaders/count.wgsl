// Stage `count`: spheres per bucket with u32 atomics. Twin of src/cpu/count.rs.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> counts: array<atomic<u32>>;  // table_size + 1
@group(0) @binding(3) var<storage, read_write> slot: array<u32>;            // arrival order in the bucket

@compute @workgroup_size(256)
fn count(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid, params.dispatch_x);
    if i >= params.n {
        return;
    }
    // The arrival slot is not deterministic; scatter.wgsl's `rank` turns it into a stable order.
    slot[i] = atomicAdd(&counts[keys[i]], 1u);
}
