// Stage `tree_bounds`: the box of all bodies, by a min/max reduction in levels of WG entries
// (the driver runs levels until one pair is left). Twin of src/cpu/tree/bounds.rs; min and max
// are exact and order-free, so the box is the CPU's bit for bit.

@group(0) @binding(0) var<storage, read> tp: TreeParams;
@group(0) @binding(1) var<storage, read> src: array<vec4<f32>>;           // level 0: positions (xyz); else (lo, hi) pairs
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<f32>>;     // (lo, hi) per work-group

var<workgroup> shared_lo: array<vec3<f32>, WG>;
var<workgroup> shared_hi: array<vec3<f32>, WG>;

// tp.len entries at this level; tp.shift = 0 at level 0 (src holds positions), 1 above.
@compute @workgroup_size(WG)
fn tree_bounds(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * (tp.dispatch_x / WG);
    let i = g * WG + lid;
    // Padding threads repeat entry 0, which leaves min and max unchanged.
    let k = select(0u, i, i < tp.len);
    var lo: vec3<f32>;
    var hi: vec3<f32>;
    if tp.shift == 0u {
        lo = src[k].xyz;
        hi = lo;
    } else {
        lo = src[2u * k].xyz;
        hi = src[2u * k + 1u].xyz;
    }
    shared_lo[lid] = lo;
    shared_hi[lid] = hi;
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
        if lid < stride {
            shared_lo[lid] = min(shared_lo[lid], shared_lo[lid + stride]);
            shared_hi[lid] = max(shared_hi[lid], shared_hi[lid + stride]);
        }
        workgroupBarrier();
    }
    if lid == 0u && g * WG < tp.len {
        dst[2u * g] = vec4<f32>(shared_lo[0], 0.0);
        dst[2u * g + 1u] = vec4<f32>(shared_hi[0], 0.0);
    }
}
