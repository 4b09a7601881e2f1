// Stage `karras_tree`: the binary radix tree over the sorted codes, one invocation per internal
// node (T. Karras, "Maximizing parallelism in the construction of BVHs, octrees, and k-d trees",
// HPG 2012, §4); then `escapes`, the stackless walk's links, and the walk groups
// (`tree_groups`, compacted by a prefix sum). Twin of src/cpu/tree/karras.rs, integer for
// integer. Node references: internal node k is k; the leaf of sorted position i is n − 1 + i.

@group(0) @binding(0) var<storage, read> tp: TreeParams;
@group(0) @binding(1) var<storage, read> code_hi: array<u32>;      // sorted codes, bits 32..62
@group(0) @binding(2) var<storage, read> code_lo: array<u32>;      // bits 0..31
@group(0) @binding(3) var<storage, read_write> left: array<u32>;   // n − 1
@group(0) @binding(4) var<storage, read_write> right: array<u32>;  // n − 1
@group(0) @binding(5) var<storage, read_write> first: array<u32>;  // n − 1
@group(0) @binding(6) var<storage, read_write> last: array<u32>;   // n − 1
@group(0) @binding(7) var<storage, read_write> split_right: array<u32>;  // n − 1
@group(0) @binding(8) var<storage, read_write> parent: array<u32>;  // 2n − 1
@group(0) @binding(9) var<storage, read_write> escape: array<u32>;  // 2n − 1
@group(0) @binding(10) var<storage, read_write> group_index: array<u32>;  // n + 1: 1 at a group's first position, then scanned
@group(0) @binding(11) var<storage, read_write> group_at: array<u32>;     // n: the group starting at each position, or NO_NODE
@group(0) @binding(12) var<storage, read_write> groups: array<u32>;       // the groups in Morton order
@group(0) @binding(13) var<storage, read_write> group_dispatch: array<u32>;  // indirect (x, y, 1) of the walk, x first

const NO_NODE: u32 = 0xffffffffu;  // = cpu::tree::karras::NO_NODE
const GROUP: u32 = 32u;            // = cpu::tree::walk::GROUP

// karras::delta: common-prefix length of the codes at sorted positions i and j, the positions'
// bits appended to equal codes; −1 outside [0, n).
fn delta(i: i32, j: i32) -> i32 {
    if j < 0 || j >= i32(tp.n) {
        return -1;
    }
    let ah = code_hi[i];
    let al = code_lo[i];
    let bh = code_hi[j];
    let bl = code_lo[j];
    if ah == bh && al == bl {
        return 64 + i32(countLeadingZeros(u32(i) ^ u32(j)));
    }
    if ah != bh {
        return i32(countLeadingZeros(ah ^ bh));
    }
    return 32 + i32(countLeadingZeros(al ^ bl));
}

// karras::karras_tree, for internal node k (the root's parent is set by k = 0, also for n = 1).
@compute @workgroup_size(WG)
fn karras_tree(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = linear_index(gid, tp.dispatch_x);
    if k == 0u {
        parent[0] = NO_NODE;
    }
    if k + 1u >= tp.n {
        return;
    }
    let i = i32(k);
    let leaf0 = tp.n - 1u;
    var d = -1;
    if delta(i, i + 1) - delta(i, i - 1) >= 0 {
        d = 1;
    }
    let delta_min = delta(i, i - d);
    var l_max = 2;
    while delta(i, i + l_max * d) > delta_min {
        l_max *= 2;
    }
    var l = 0;
    for (var t = l_max / 2; t >= 1; t /= 2) {
        if delta(i, i + (l + t) * d) > delta_min {
            l += t;
        }
    }
    let j = i + l * d;
    let delta_node = delta(i, j);
    var s = 0;
    var t = l;
    loop {
        t = (t + 1) / 2;
        if delta(i, i + (s + t) * d) > delta_node {
            s += t;
        }
        if t <= 1 {
            break;
        }
    }
    let gamma = i + s * d + min(d, 0);
    let first_pos = min(i, j);
    let end = max(i, j);
    var l_ref = u32(gamma);
    if first_pos == gamma {
        l_ref = leaf0 + u32(gamma);
    }
    var r_ref = u32(gamma + 1);
    if end == gamma + 1 {
        r_ref = leaf0 + u32(gamma + 1);
    }
    left[k] = l_ref;
    right[k] = r_ref;
    first[k] = u32(first_pos);
    last[k] = u32(end);
    split_right[gamma] = r_ref;
    parent[l_ref] = k;
    parent[r_ref] = k;
}

// karras::escapes, for node reference k (2n − 1).
@compute @workgroup_size(WG)
fn escapes(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = linear_index(gid, tp.dispatch_x);
    if k >= 2u * tp.n - 1u {
        return;
    }
    var l = k + 1u - tp.n;
    if k + 1u < tp.n {
        l = last[k];
    }
    var e = NO_NODE;
    if l + 1u < tp.n {
        e = split_right[l];
    }
    escape[k] = e;
}

// Bodies a node covers.
fn node_size(k: u32) -> u32 {
    if k + 1u < tp.n {
        return last[k] - first[k] + 1u;
    }
    return 1u;
}

// karras::tree_groups, in parallel: from the leaf at sorted position s, climb while the parent
// covers at most GROUP bodies (at most GROUP − 1 steps); the node reached is s's group, which
// starts at s when its first position is s. Marks group_index[s] (0 or 1, scanned next into the
// group's index) and group_at[s]. Invocation n writes group_index[n] = 0, so that the scan's
// last entry is the group count.
@compute @workgroup_size(WG)
fn tree_groups(@builtin(global_invocation_id) gid: vec3<u32>) {
    let s = linear_index(gid, tp.dispatch_x);
    if s > tp.n {
        return;
    }
    if s == tp.n {
        group_index[s] = 0u;
        return;
    }
    var node = tp.n - 1u + s;
    loop {
        if node == 0u {
            break;
        }
        let up = parent[node];
        if node_size(up) > GROUP {
            break;
        }
        node = up;
    }
    var start = s;
    if node + 1u < tp.n {
        start = first[node];
    }
    let is_first = start == s;
    group_index[s] = select(0u, 1u, is_first);
    group_at[s] = select(NO_NODE, node, is_first);
}

// The groups compacted in Morton order, and the walk's indirect dispatch: one work-group per
// group, x at most tp.blocks (the adapter's limit per dimension).
@compute @workgroup_size(WG)
fn compact_groups(@builtin(global_invocation_id) gid: vec3<u32>) {
    let s = linear_index(gid, tp.dispatch_x);
    if s >= tp.n {
        return;
    }
    if group_at[s] != NO_NODE {
        groups[group_index[s]] = group_at[s];
    }
    if s == 0u {
        let total = group_index[tp.n];
        let x = min(total, tp.blocks);
        group_dispatch[0] = x;
        group_dispatch[1] = (total + x - 1u) / x;
        group_dispatch[2] = 1u;
        group_dispatch[3] = total;
    }
}
