// Stage `radix_sort`: bodies in Morton order, ties by body index: an LSD radix sort of the
// 64-bit keys (two u32) with the body index as value, RADIX_BITS per pass, 64 / RADIX_BITS
// passes. Each pass is `radix_count` (a digit histogram per block of WG keys), the exclusive
// prefix sum of the histograms in digit-major order (stage prefix_sum), then `radix_scatter`,
// which ranks each key among the equal digits before it in its block. Every pass is stable, and
// the first keys are in index order, so the result is the order of src/cpu/tree/sort.rs
// (radix_sort) exactly. No pass needs forward progress between work-groups.

@group(0) @binding(0) var<storage, read> tp: TreeParams;                     // shift: the pass's first bit; blocks
@group(0) @binding(1) var<storage, read> in_hi: array<u32>;
@group(0) @binding(2) var<storage, read> in_lo: array<u32>;
@group(0) @binding(3) var<storage, read> in_value: array<u32>;
@group(0) @binding(4) var<storage, read_write> hist: array<u32>;       // RADIX × blocks, digit-major
@group(0) @binding(5) var<storage, read_write> out_hi: array<u32>;
@group(0) @binding(6) var<storage, read_write> out_lo: array<u32>;
@group(0) @binding(7) var<storage, read_write> out_value: array<u32>;

const RADIX_BITS: u32 = 4u;  // = cpu::tree::sort::RADIX_BITS
const RADIX: u32 = 16u;      // 2^RADIX_BITS

var<workgroup> bins: array<atomic<u32>, RADIX>;
// One 16-bit counter per digit, two to a u32: the block-wide scan of one-hot digits.
var<workgroup> scan_a: array<vec4<u32>, WG>;  // digits 0..7
var<workgroup> scan_b: array<vec4<u32>, WG>;  // digits 8..15

fn block_of(wid: vec3<u32>) -> u32 {
    return wid.x + wid.y * (tp.dispatch_x / WG);
}

fn digit(i: u32) -> u32 {
    let word = select(in_hi[i], in_lo[i], tp.shift < 32u);
    return (word >> (tp.shift % 32u)) & (RADIX - 1u);
}

// hist[d · blocks + b] = keys of block b with digit d.
@compute @workgroup_size(WG)
fn radix_count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = block_of(wid);
    if lid < RADIX {
        atomicStore(&bins[lid], 0u);
    }
    workgroupBarrier();
    let i = b * WG + lid;
    if i < tp.n {
        atomicAdd(&bins[digit(i)], 1u);
    }
    workgroupBarrier();
    if lid < RADIX && b < tp.blocks {
        hist[lid * tp.blocks + b] = atomicLoad(&bins[lid]);
    }
}

// The key at i goes to hist[d · blocks + b] (scanned: the keys of smaller digits, and of digit d
// in earlier blocks) plus its rank among the keys of digit d before it in the block.
@compute @workgroup_size(WG)
fn radix_scatter(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = block_of(wid);
    let i = b * WG + lid;
    let valid = i < tp.n;
    var d = 0u;
    var one_a = vec4<u32>(0u);
    var one_b = vec4<u32>(0u);
    if valid {
        d = digit(i);
        let word = (d / 2u) % 4u;
        let one = 1u << (16u * (d % 2u));
        if d < 8u {
            one_a[word] = one;
        } else {
            one_b[word] = one;
        }
    }
    scan_a[lid] = one_a;
    scan_b[lid] = one_b;
    workgroupBarrier();
    // Hillis–Steele inclusive scan; a counter reaches at most WG = 256 < 2^16.
    for (var offset = 1u; offset < WG; offset = offset * 2u) {
        var add_a = vec4<u32>(0u);
        var add_b = vec4<u32>(0u);
        if lid >= offset {
            add_a = scan_a[lid - offset];
            add_b = scan_b[lid - offset];
        }
        workgroupBarrier();
        scan_a[lid] += add_a;
        scan_b[lid] += add_b;
        workgroupBarrier();
    }
    if valid {
        let word = (d / 2u) % 4u;
        var packed = scan_a[lid][word] - one_a[word];
        if d >= 8u {
            packed = scan_b[lid][word] - one_b[word];
        }
        let rank = (packed >> (16u * (d % 2u))) & 0xffffu;
        let dest = hist[d * tp.blocks + b] + rank;
        out_hi[dest] = in_hi[i];
        out_lo[dest] = in_lo[i];
        out_value[dest] = in_value[i];
    }
}
