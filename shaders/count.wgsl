// Stage `count`: spheres per bucket with u32 atomics. Twin of src/cpu/count.rs.
// `seed_cell_start` follows it; both run only in a step that re-bins (the neighbour list's
// gate), so that a step without a rebuild leaves the last binning intact. The counts start at
// zero (a new buffer) and seed_cell_start leaves them at zero for the next binning.

@group(0) @binding(0) var<storage, read> params: Params;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> counts: array<atomic<u32>>;  // table_size + 1
@group(0) @binding(3) var<storage, read_write> slot: array<u32>;            // arrival order in the bucket
@group(0) @binding(4) var<storage, read_write> cell_start: array<u32>;      // table_size + 1

// The counts, after `count`, as the input of the prefix sum that turns them into each bucket's
// first sphere (in place); each bucket emptied for the next binning, so that no pass clears
// them (the list build reads a bucket's end from the next start: neighbours.wgsl's bucket_end).
@compute @workgroup_size(WG)
fn seed_cell_start(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = linear_index(gid, params.dispatch_x);
    if k <= params.table_size {
        cell_start[k] = atomicExchange(&counts[k], 0u);
    }
}

@compute @workgroup_size(WG)
fn count(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid, params.dispatch_x);
    if i >= params.n {
        return;
    }
    // The arrival slot is not deterministic; scatter.wgsl's `rank` turns it into a stable order.
    slot[i] = atomicAdd(&counts[keys[i]], 1u);
}
