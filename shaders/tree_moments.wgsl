// Stage `tree_moments`: each cell's mass, centre of mass, quadrupole and box, bottom up. Every
// leaf climbs toward the root; at each internal node the first arrival stops and the second
// combines the two children, left then right, so a node's value depends only on its children.
// Twin of src/cpu/tree/moments.rs.
//
// The second arrival reads the cell its sibling's invocation wrote. WGSL has no device-scope
// fence (Karras 2012 uses CUDA's __threadfence), so cells and leaves are written and read here
// with atomic stores and loads, word by word: atomics on one address are coherent across the
// device (they bypass the non-coherent caches that plain loads may hit), so a sibling's words
// are read as written once its arrival is counted. WGSL's atomics are relaxed, which does not
// order them formally; in practice this is what GPU LBVH builds rely on. The walk reads the same
// buffers as plain `TreeCell`s and `vec4`s, in a later dispatch.

@group(0) @binding(0) var<storage, read> tp: TreeParams;
@group(0) @binding(1) var<storage, read> pos: array<vec4<f32>>;         // xyz m
@group(0) @binding(2) var<storage, read> acc: array<vec4<f32>>;         // w: gravitating mass, kg (0: none)
@group(0) @binding(3) var<storage, read> order: array<u32>;             // body at each sorted position
@group(0) @binding(4) var<storage, read> left: array<u32>;
@group(0) @binding(5) var<storage, read> right: array<u32>;
@group(0) @binding(6) var<storage, read> parent: array<u32>;
@group(0) @binding(7) var<storage, read_write> arrivals: array<atomic<u32>>;  // n − 1, zeroed by the driver
@group(0) @binding(8) var<storage, read_write> cells: array<atomic<u32>>;  // internal nodes, n − 1, CELL_WORDS each (TreeCell's bits)
@group(0) @binding(9) var<storage, read_write> leaves: array<atomic<u32>>; // per sorted position: x (m), mass (kg), 4 words

const CELL_WORDS: u32 = 20u;  // TreeCell: five vec4<f32>

fn store_cell_vec4(w: u32, v: vec4<f32>) {
    atomicStore(&cells[w], bitcast<u32>(v.x));
    atomicStore(&cells[w + 1u], bitcast<u32>(v.y));
    atomicStore(&cells[w + 2u], bitcast<u32>(v.z));
    atomicStore(&cells[w + 3u], bitcast<u32>(v.w));
}

fn load_cell_vec4(w: u32) -> vec4<f32> {
    return bitcast<vec4<f32>>(vec4<u32>(
        atomicLoad(&cells[w]),
        atomicLoad(&cells[w + 1u]),
        atomicLoad(&cells[w + 2u]),
        atomicLoad(&cells[w + 3u]),
    ));
}

fn store_cell(k: u32, c: TreeCell) {
    let w = k * CELL_WORDS;
    store_cell_vec4(w, c.com_mass);
    store_cell_vec4(w + 4u, c.quad_a);
    store_cell_vec4(w + 8u, c.quad_b);
    store_cell_vec4(w + 12u, c.lo);
    store_cell_vec4(w + 16u, c.hi);
}

fn load_cell(k: u32) -> TreeCell {
    let w = k * CELL_WORDS;
    return TreeCell(
        load_cell_vec4(w),
        load_cell_vec4(w + 4u),
        load_cell_vec4(w + 8u),
        load_cell_vec4(w + 12u),
        load_cell_vec4(w + 16u),
    );
}

fn store_leaf(s: u32, v: vec4<f32>) {
    atomicStore(&leaves[4u * s], bitcast<u32>(v.x));
    atomicStore(&leaves[4u * s + 1u], bitcast<u32>(v.y));
    atomicStore(&leaves[4u * s + 2u], bitcast<u32>(v.z));
    atomicStore(&leaves[4u * s + 3u], bitcast<u32>(v.w));
}

fn load_leaf(s: u32) -> vec4<f32> {
    return bitcast<vec4<f32>>(vec4<u32>(
        atomicLoad(&leaves[4u * s]),
        atomicLoad(&leaves[4u * s + 1u]),
        atomicLoad(&leaves[4u * s + 2u]),
        atomicLoad(&leaves[4u * s + 3u]),
    ));
}

const NO_NODE: u32 = 0xffffffffu;  // = cpu::tree::karras::NO_NODE

// moments::leaf_cell (the mass is already 0 for a body without one).
fn leaf_cell(x: vec3<f32>, m: f32) -> TreeCell {
    return TreeCell(vec4<f32>(x, m), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(x, 0.0), vec4<f32>(x, 0.0));
}

// multipole::add_point_quadrupole: q += m (3 r rᵀ − |r|² I), as [xx, yy, zz, xy, xz, yz].
fn add_point_quadrupole(q: ptr<function, array<f32, 6>>, m: f32, r: vec3<f32>) {
    let x = r.x;
    let y = r.y;
    let z = r.z;
    let r2 = x * x + y * y + z * z;
    (*q)[0] += m * (3.0 * x * x - r2);
    (*q)[1] += m * (3.0 * y * y - r2);
    (*q)[2] += m * (3.0 * z * z - r2);
    (*q)[3] += m * (3.0 * x * y);
    (*q)[4] += m * (3.0 * x * z);
    (*q)[5] += m * (3.0 * y * z);
}

// The cell of node reference k: an internal node's, or a leaf's, which is kept as its body's
// position and mass only (the rest of moments::leaf_cell is zero or the position).
fn tree_cell(k: u32) -> TreeCell {
    if k + 1u < tp.n {
        return load_cell(k);
    }
    let l = load_leaf(k + 1u - tp.n);
    return leaf_cell(l.xyz, l.w);
}

// moments::combine_cells.
fn combine_cells(a: TreeCell, b: TreeCell) -> TreeCell {
    let lo = min(a.lo.xyz, b.lo.xyz);
    let hi = max(a.hi.xyz, b.hi.xyz);
    let am = a.com_mass.w;
    let bm = b.com_mass.w;
    let mass = am + bm;
    var com = (lo + hi) * 0.5;
    if mass > 0.0 {
        com = (a.com_mass.xyz * am + b.com_mass.xyz * bm) / mass;
    }
    var q = array<f32, 6>(
        a.quad_a.x + b.quad_a.x,
        a.quad_a.y + b.quad_a.y,
        a.quad_a.z + b.quad_a.z,
        a.quad_a.w + b.quad_a.w,
        a.quad_b.x + b.quad_b.x,
        a.quad_b.y + b.quad_b.y,
    );
    add_point_quadrupole(&q, am, a.com_mass.xyz - com);
    add_point_quadrupole(&q, bm, b.com_mass.xyz - com);
    let far = max(com - lo, hi - com);
    let b_max2 = far.x * far.x + far.y * far.y + far.z * far.z;
    return TreeCell(
        vec4<f32>(com, mass),
        vec4<f32>(q[0], q[1], q[2], q[3]),
        vec4<f32>(q[4], q[5], b_max2, 0.0),
        vec4<f32>(lo, 0.0),
        vec4<f32>(hi, 0.0),
    );
}

// moments::tree_moments, for the leaf of sorted position s.
@compute @workgroup_size(WG)
fn tree_moments(@builtin(global_invocation_id) gid: vec3<u32>) {
    let s = linear_index(gid, tp.dispatch_x);
    if s >= tp.n {
        return;
    }
    let b = order[s];
    let leaf = tp.n - 1u + s;
    store_leaf(s, vec4<f32>(pos[b].xyz, acc[b].w));
    var node = NO_NODE;
    if tp.n > 1u {
        node = parent[leaf];
    }
    while node != NO_NODE {
        if atomicAdd(&arrivals[node], 1u) == 0u {
            break;
        }
        store_cell(node, combine_cells(tree_cell(left[node]), tree_cell(right[node])));
        node = parent[node];
    }
}
