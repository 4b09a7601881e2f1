// Stage `prefix_sum`: exclusive prefix sum, reduce-then-scan over blocks of SCAN_BLOCK entries.
// Twin of src/cpu/prefix_sum.rs. WGSL gives no forward-progress guarantee between work-groups,
// so there is no single-pass decoupled look-back: the driver runs `reduce` level by level up to
// one block of block sums, then `scan_blocks` back down. The top block is not scanned by a
// dispatch of its own: each work-group of the level below sums the (at most SCAN_BLOCK) raw
// block sums before its own (`SUM_OFFSET`), no more work than its own block's. The grid's and
// the list's scans skip the first `reduce`: the pass that writes their input adds its block
// sums as it goes (count.wgsl's seed_cell_start, neighbours.wgsl's list_count).

struct ScanParams {
    len: u32,        // entries at this level
    dispatch_x: u32, // threads along x (work-groups × WG)
    pad0: u32,       // to src/gpu/buffers.rs ScanParams's 16 bytes
    pad1: u32,
}

@group(0) @binding(0) var<storage, read> sp: ScanParams;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;        // this level, scanned in place
@group(0) @binding(2) var<storage, read_write> block_sums: array<u32>;  // the level above

const ITEMS: u32 = 8u;            // entries per thread; SCAN_BLOCK (common.wgsl) = WG × ITEMS

// scan_blocks: `block_sums` holds each block's own sum, not yet scanned (the level just below
// the top, at most SCAN_BLOCK blocks), so a work-group sums those before its block; else it
// holds the scanned sums of the level above.
override SUM_OFFSET: bool = false;

var<workgroup> shared_sums: array<u32, WG>;

// Exclusive scan of shared_sums[0..WG] in place (Hillis–Steele on the work-group), returning
// the total.
fn workgroup_exclusive_scan(lid: u32, value: u32) -> u32 {
    shared_sums[lid] = value;
    workgroupBarrier();
    var offset = 1u;
    loop {
        if offset >= WG {
            break;
        }
        var add = 0u;
        if lid >= offset {
            add = shared_sums[lid - offset];
        }
        workgroupBarrier();
        shared_sums[lid] += add;
        workgroupBarrier();
        offset = offset * 2u;
    }
    let inclusive = shared_sums[lid];
    let total = shared_sums[WG - 1u];
    workgroupBarrier();
    shared_sums[lid] = inclusive - value;
    workgroupBarrier();
    return total;
}

fn block_index(wid: vec3<u32>) -> u32 {
    return wid.x + wid.y * (sp.dispatch_x / WG);
}

// block_sums[b] = Σ data[b·SCAN_BLOCK ..][..SCAN_BLOCK].
@compute @workgroup_size(WG)
fn reduce(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = block_index(wid);
    let base = b * SCAN_BLOCK + lid * ITEMS;
    var s = 0u;
    for (var k = 0u; k < ITEMS; k++) {
        if base + k < sp.len {
            s += data[base + k];
        }
    }
    let total = workgroup_exclusive_scan(lid, s);
    // A 2-D dispatch (over 65 535 blocks) has spare work-groups past the last block: an
    // out-of-bounds store may land on a real entry, so none stores.
    if lid == 0u && b * SCAN_BLOCK < sp.len {
        block_sums[b] = total;
    }
}

// Exclusive scan of each block of `data` in place, adding the sum of the blocks before it to
// every entry: block_sums[b], or with SUM_OFFSET the sum of block_sums[0..b].
@compute @workgroup_size(WG)
fn scan_blocks(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = block_index(wid);
    var offset = 0u;
    if SUM_OFFSET {
        var before = 0u;
        for (var k = 0u; k < ITEMS; k++) {
            let j = lid * ITEMS + k;
            if j < b {
                before += block_sums[j];
            }
        }
        offset = workgroup_exclusive_scan(lid, before);
    } else {
        offset = block_sums[b];
    }
    let base = b * SCAN_BLOCK + lid * ITEMS;
    var v: array<u32, ITEMS>;
    var s = 0u;
    for (var k = 0u; k < ITEMS; k++) {
        v[k] = 0u;
        if base + k < sp.len {
            v[k] = data[base + k];
        }
        s += v[k];
    }
    workgroup_exclusive_scan(lid, s);
    var acc = shared_sums[lid] + offset;
    for (var k = 0u; k < ITEMS; k++) {
        if base + k < sp.len {
            data[base + k] = acc;
        }
        acc += v[k];
    }
}
