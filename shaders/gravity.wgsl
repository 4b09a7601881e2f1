// Stage `gravity`: mutual attraction by softened direct sum, tiled through work-group memory
// (L. Nyland, M. Harris, J. Prins, "Fast N-Body Simulation with CUDA", GPU Gems 3 ch. 31).
// Twin of src/cpu/gravity.rs: j runs over tiles of TILE bodies in ascending order, so the terms
// are added in the CPU's order.

@group(0) @binding(0) var<storage, read> params: Params;
@group(0) @binding(1) var<storage, read> pos: array<vec4<f32>>;       // xyz
@group(0) @binding(2) var<storage, read> acc: array<vec4<f32>>;       // w: gravitating mass (0 if none)
@group(0) @binding(3) var<storage, read_write> a_mutual: array<vec4<f32>>;  // xyz m/s², w potential J

// With the potential energy per body, ½ Σ_j U_ij (diagnostics only).
override WITH_POTENTIAL: bool = false;

const TILE: u32 = 256u;  // = WG = cpu::gravity::TILE
var<workgroup> tile: array<vec4<f32>, TILE>;

// physics::gravity::softened_pull: m_j d / (|d|² + ε²)^{3/2}, zero when |d|² + ε² = 0 (a body
// and itself, or a padding body at the same point). A select, not a branch: every invocation
// of a warp runs the same instructions.
fn softened_pull(d: vec3<f32>, m_j: f32, eps2: f32) -> vec3<f32> {
    let r2 = d.x * d.x + d.y * d.y + d.z * d.z + eps2;
    let inv_r = select(0.0, 1.0 / sqrt(r2), r2 > 0.0);
    return d * (m_j * (inv_r * inv_r * inv_r));
}

@compute @workgroup_size(WG)
fn gravity(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    // No early return: every thread helps load the tiles (barriers need uniform control flow).
    let i = linear_index(gid, params.dispatch_x);
    let in_range = i < params.n;
    var xi = vec3<f32>(0.0);
    var mi = 0.0;
    if in_range {
        xi = pos[i].xyz;
        mi = acc[i].w;
    }
    var a = vec3<f32>(0.0);
    var u = 0.0;
    let n_tiles = (params.n + TILE - 1u) / TILE;
    for (var t = 0u; t < n_tiles; t++) {
        let j_load = t * TILE + lid;
        if j_load < params.n {
            tile[lid] = vec4<f32>(pos[j_load].xyz, acc[j_load].w);
        } else {
            tile[lid] = vec4<f32>(0.0);
        }
        workgroupBarrier();
        if WITH_POTENTIAL {
            let count = min(TILE, params.n - t * TILE);
            for (var k = 0u; k < count; k++) {
                let j = t * TILE + k;
                let b = tile[k];
                if j != i && b.w != 0.0 {
                    let d = b.xyz - xi;
                    a += softened_pull(d, b.w, params.eps2);
                    // physics::gravity::pair_potential, half per body
                    let s = d.x * d.x + d.y * d.y + d.z * d.z + params.eps2;
                    if s > 0.0 {
                        u -= 0.5 * params.g_const * mi * b.w / sqrt(s);
                    }
                }
            }
        } else {
            // No per-pair branch: the body itself, the massless bodies and the tile's padding
            // (mass 0) add exactly zero. Unrolled by four; the terms are still added in j order.
            for (var k = 0u; k < TILE; k += 4u) {
                a += softened_pull(tile[k].xyz - xi, tile[k].w, params.eps2);
                a += softened_pull(tile[k + 1u].xyz - xi, tile[k + 1u].w, params.eps2);
                a += softened_pull(tile[k + 2u].xyz - xi, tile[k + 2u].w, params.eps2);
                a += softened_pull(tile[k + 3u].xyz - xi, tile[k + 3u].w, params.eps2);
            }
        }
        workgroupBarrier();
    }
    if in_range {
        a_mutual[i] = vec4<f32>(a * params.g_const, u);
    }
}
