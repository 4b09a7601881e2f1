// Stage `cell_keys`: hashed uniform grid. Twin of src/cpu/cell_keys.rs. The binned cells of the
// sorted state are written by the list build's first pass (neighbours.wgsl's `sweeps`).

@group(0) @binding(0) var<storage, read> params: Params;
@group(0) @binding(1) var<storage, read> pos: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> grid: Grid;
@group(0) @binding(3) var<storage, read_write> keys: array<u32>;
// Stage `count`'s buckets, folded in (one dispatch fewer a rebuild): count.wgsl's header.
@group(0) @binding(4) var<storage, read_write> counts: array<atomic<u32>>;  // table_size + 1
@group(0) @binding(5) var<storage, read_write> slot: array<u32>;            // arrival order in the bucket
// The cell starts' first block sums, which count.wgsl's seed_cell_start adds to: zeroed here.
@group(0) @binding(6) var<storage, read_write> scan_sums: array<u32>;

// The grid's cell edge was set by neighbours.wgsl's gate_dispatches (grid_cell_edge), which
// runs just before in a step that rebuilds.

// Zeroes scan_sums, each invocation of the dispatch every (invocations)th entry: the table keeps
// its set-up size when spheres leave (removal), so its blocks can outnumber the spheres'
// invocations.
fn zero_strided(gid: vec3<u32>, nwg: vec3<u32>) {
    let width = nwg.x * WG;
    for (var j = gid.x + gid.y * width; j < arrayLength(&scan_sums); j += width * nwg.y) {
        scan_sums[j] = 0u;
    }
}

// Mirrors cpu::cell_keys::cell_keys, then cpu::count::count (stage `count`'s counting, in the
// same pass).
@compute @workgroup_size(WG)
fn cell_keys(@builtin(global_invocation_id) gid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, params.dispatch_x);
    zero_strided(gid, nwg);
    if i >= params.n {
        return;
    }
    let p = pos[i];
    var key = params.table_size;
    if !(p.w > params.small_radius_max) {
        let axes = grid_axes(params.box_min, params.box_len, grid.cell_edge);
        key = hash_cell(grid_cell(p.xyz, grid.inv_cell_edge, axes), params.table_size);
    }
    keys[i] = key;
    // The arrival slot is not deterministic; scatter.wgsl's `rank` turns it into a stable order.
    slot[i] = atomicAdd(&counts[key], 1u);
}
