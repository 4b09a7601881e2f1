// Stage `cell_keys`: hashed uniform grid. Twin of src/cpu/cell_keys.rs.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> pos: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> grid: Grid;
@group(0) @binding(3) var<storage, read_write> keys: array<u32>;

// One thread: mirrors cpu::cell_keys::cell_edge from the speed² that kick_drift recorded.
@compute @workgroup_size(1)
fn grid_params() {
    let vmax = sqrt(bitcast<f32>(atomicLoad(&grid.speed_max_bits)));
    let h = 2.0 * (params.small_radius_max + vmax * params.dt);
    grid.small_speed_max = vmax;
    grid.cell_edge = h;
    grid.inv_cell_edge = 1.0 / h;
    grid.step += 1u;
}

// Mirrors cpu::cell_keys::cell_keys.
@compute @workgroup_size(256)
fn cell_keys(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid, params.dispatch_x);
    if i >= params.n {
        return;
    }
    let p = pos[i];
    if p.w > params.small_radius_max {
        keys[i] = params.table_size;
    } else {
        keys[i] = hash_cell(cell_of(p.xyz, grid.inv_cell_edge), params.table_size);
    }
}
