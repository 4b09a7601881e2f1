// Stage `count`: spheres per bucket with u32 atomics. Twin of src/cpu/count.rs.
// The counting itself runs in cell_keys.wgsl's `cell_keys`, in the pass that computes the keys;
// `seed_cell_start` follows it. Both run only in a step that re-bins (the neighbour list's
// gate), so that a step without a rebuild leaves the last binning intact. The counts start at
// zero (a new buffer) and seed_cell_start leaves them at zero for the next binning.

@group(0) @binding(0) var<storage, read> params: Params;
@group(0) @binding(2) var<storage, read_write> counts: array<atomic<u32>>;  // table_size + 1
@group(0) @binding(4) var<storage, read_write> cell_start: array<u32>;      // table_size + 1
// The cell starts' first block sums: prefix_sum.wgsl's `reduce` of level 0, which this pass
// does instead (zeroed by cell_keys; a stand-in when the scan is one block).
@group(0) @binding(5) var<storage, read_write> scan_sums: array<atomic<u32>>;

// The counts, after cell_keys.wgsl's counting, as the input of the prefix sum that turns them
// into each bucket's first sphere (in place); each bucket emptied for the next binning, so that no pass clears
// them (the list build reads a bucket's end from the next start: neighbours.wgsl's bucket_end).
// A work-group's WG buckets lie in one block of the scan: their sum goes to its block sum with
// one atomic (integer sums: the same in any order).
@compute @workgroup_size(WG)
fn seed_cell_start(@builtin(global_invocation_id) gid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
    // This dispatch's own width (the table's slot), not params.dispatch_x (the spheres'): the
    // two differ when one dispatch is 2-D and the other not.
    let k = linear_index(gid, nwg.x * WG);
    var c = 0u;
    if k <= params.table_size {
        c = atomicExchange(&counts[k], 0u);
        cell_start[k] = c;
    }
    let s = workgroup_sum_u32(c);
    if lid == 0u && s != 0u {
        atomicAdd(&scan_sums[k / SCAN_BLOCK], s);
    }
}
