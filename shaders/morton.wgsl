// Stage `morton`: a 63-bit Morton code per body over the bounding cube, kept as two u32 (WGSL
// has no 64-bit integer), written as the radix sort's first keys with the body index as value.
// Twin of src/cpu/tree/morton.rs (morton_codes, morton_scale, spread_bits).

@group(0) @binding(0) var<storage, read> tp: TreeParams;
@group(0) @binding(1) var<storage, read> pos: array<vec4<f32>>;         // xyz m
@group(0) @binding(2) var<storage, read> bounds: array<vec4<f32>>;      // [0] lo, [1] hi (tree_bounds' last level)
@group(0) @binding(3) var<storage, read_write> key_hi: array<u32>;      // code bits 32..62
@group(0) @binding(4) var<storage, read_write> key_lo: array<u32>;      // code bits 0..31
@group(0) @binding(5) var<storage, read_write> value: array<u32>;       // body index

const MORTON_BITS: u32 = 21u;       // = cpu::tree::morton::MORTON_BITS
const MORTON_CELLS: u32 = 2097152u; // = cpu::tree::morton::MORTON_CELLS

// morton::morton_scale: 2^(20 − e) for 2^e ≤ side < 2^(e+1), exponent clamped to [−126, 126];
// 0 for a point. A power of two, built from its bits, so no division is rounded.
fn morton_scale(lo: vec3<f32>, hi: vec3<f32>) -> f32 {
    let d = hi - lo;
    let side = max(max(d.x, d.y), d.z);
    if !(side > 0.0) {
        return 0.0;
    }
    let e = i32((bitcast<u32>(side) >> 23u) & 0xffu) - 127;
    let k = clamp(20 - e, -126, 126);
    return bitcast<f32>(u32(k + 127) << 23u);
}

// morton::morton_cell: floor, clamped to [0, MORTON_CELLS − 1].
fn morton_cell(v: f32) -> u32 {
    return u32(floor(min(max(v, 0.0), f32(MORTON_CELLS - 1u))));
}

@compute @workgroup_size(WG)
fn morton_codes(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid, tp.dispatch_x);
    if i >= tp.n {
        return;
    }
    let lo = bounds[0].xyz;
    let scale = morton_scale(lo, bounds[1].xyz);
    let c = (pos[i].xyz - lo) * scale;
    let cell = vec3<u32>(morton_cell(c.x), morton_cell(c.y), morton_cell(c.z));
    // morton::spread_bits, bit by bit: bit k of x goes to 3k + 2, of y to 3k + 1, of z to 3k.
    var hi = 0u;
    var lo_bits = 0u;
    for (var k = 0u; k < MORTON_BITS; k++) {
        let bits = array<u32, 3>((cell.z >> k) & 1u, (cell.y >> k) & 1u, (cell.x >> k) & 1u);
        for (var a = 0u; a < 3u; a++) {
            let p = 3u * k + a;
            if p < 32u {
                lo_bits |= bits[a] << p;
            } else {
                hi |= bits[a] << (p - 32u);
            }
        }
    }
    key_hi[i] = hi;
    key_lo[i] = lo_bits;
    value[i] = i;
}
