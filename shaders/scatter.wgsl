// Stage `scatter`: stable counting-sort scatter and the reordering of sphere state.
// Twin of src/cpu/scatter.rs (`scatter` = the entry points `place` then `rank`; `gather`).
//
// The atomic arrival order of the counting (cell_keys.wgsl) differs from run to run. `place`
// puts every sphere in its bucket by that order; `rank` then gives each sphere the slot it has
// in a stable sort (the number of spheres of its bucket with a lower previous index), so the
// final order, and every sum that follows, is the same on every run and equal to the CPU's.

@group(0) @binding(0) var<storage, read> params: Params;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read> cell_start: array<u32>;   // table_size + 1
@group(0) @binding(3) var<storage, read> slot: array<u32>;
@group(0) @binding(4) var<storage, read_write> arrival: array<u32>; // bucket-ordered by arrival
@group(0) @binding(5) var<storage, read_write> perm: array<u32>;    // perm[new] = old

@compute @workgroup_size(WG)
fn place(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid, params.dispatch_x);
    if i >= params.n {
        return;
    }
    arrival[cell_start[keys[i]] + slot[i]] = i;
}

@compute @workgroup_size(WG)
fn rank(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid, params.dispatch_x);
    if i >= params.n {
        return;
    }
    let k = keys[i];
    let start = cell_start[k];
    var end = params.n;
    if k < params.table_size {
        end = cell_start[k + 1u];
    }
    var r = 0u;
    for (var j = start; j < end; j++) {
        r += select(0u, 1u, arrival[j] < i);
    }
    perm[start + r] = i;
}
