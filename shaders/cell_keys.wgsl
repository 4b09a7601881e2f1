// Stage `cell_keys`: hashed uniform grid. Twin of src/cpu/cell_keys.rs.

@group(0) @binding(0) var<storage, read> params: Params;
@group(0) @binding(1) var<storage, read> pos: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> grid: Grid;
@group(0) @binding(3) var<storage, read_write> keys: array<u32>;
@group(0) @binding(4) var<storage, read> vel: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> cells: array<vec4<i32>>;      // binned cell
@group(0) @binding(6) var<storage, read_write> boxes: array<vec4<i32>>;      // 2 per large sphere

// The grid's cell edge was set by neighbours.wgsl's gate_dispatches (grid_cell_edge), which
// runs just before in a step that rebuilds.

// Mirrors cpu::cell_keys::cell_keys.
@compute @workgroup_size(WG)
fn cell_keys(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid, params.dispatch_x);
    if i >= params.n {
        return;
    }
    let p = pos[i];
    if p.w > params.small_radius_max {
        keys[i] = params.table_size;
    } else {
        let axes = grid_axes(params.box_min, params.box_len, grid.cell_edge);
        keys[i] = hash_cell(grid_cell(p.xyz, grid.inv_cell_edge, axes), params.table_size);
    }
}

// After the scatter: every sphere's cell at binning time, and each large sphere's box
// (CpuBackend::bin's cells, cpu::collide::large_box). Every contact round uses these.
@compute @workgroup_size(WG)
fn bin_cells(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid, params.dispatch_x);
    if i >= params.n {
        return;
    }
    let p = pos[i];
    let axes = grid_axes(params.box_min, params.box_len, grid.cell_edge);
    cells[i] = vec4<i32>(grid_cell(p.xyz, grid.inv_cell_edge, axes), 0);
    if i >= params.n_small {
        let v = vel[i].xyz;
        let skins = params.skin + sphere_skin(params.skin, p.w, params.small_radius_max);
        let reach = p.w + params.small_radius_max
            + (sqrt(v.x * v.x + v.y * v.y + v.z * v.z) + grid.small_speed_max) * params.dt
            + skins * 0.5;
        // Unwrapped cells: a periodic scene has no large sphere (Scene::check).
        let k = 2u * (i - params.n_small);
        boxes[k] = vec4<i32>(cell_of(p.xyz - vec3<f32>(reach), grid.inv_cell_edge), 0);
        boxes[k + 1u] = vec4<i32>(cell_of(p.xyz + vec3<f32>(reach), grid.inv_cell_edge), 0);
    }
}
