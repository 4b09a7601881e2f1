//! Stage `karras_tree`: the binary radix tree over the sorted codes, every internal node built
//! independently (T. Karras, "Maximizing parallelism in the construction of BVHs, octrees, and
//! k-d trees", HPG 2012, §4 and Fig. 4).
//!
//! Node references: internal node k (0 ≤ k < n − 1) is `k`; the leaf of sorted body i is
//! `n − 1 + i`. The root is reference 0 in both cases (for n = 1 it is the only leaf).

/// "No node": the parent of the root, and the escape of the last subtree.
pub const NO_NODE: u32 = u32::MAX;

/// Length of the common prefix of the keys at sorted positions i and j, with the positions'
/// own bits appended to equal codes so that identical codes still split (Karras §4, "duplicate
/// keys"); −1 when j is outside `[0, n)`.
#[inline(always)]
fn delta(codes: &[u64], i: i64, j: i64) -> i32 {
    if j < 0 || j >= codes.len() as i64 {
        return -1;
    }
    let (a, b) = (codes[i as usize], codes[j as usize]);
    if a == b {
        64 + ((i as u32) ^ (j as u32)).leading_zeros() as i32
    } else {
        (a ^ b).leading_zeros() as i32
    }
}

/// Builds the internal nodes of the tree over `sorted_codes` (n ≥ 2): for internal node k,
/// `left[k]` and `right[k]` (node references, module docs), `first[k]` and `last[k]` (the first
/// and last sorted positions it covers) and `parent` of both children. `split_right[γ]` receives the right child of the
/// node that splits between positions γ and γ + 1 ([`escapes`] reads it). Slices of internal
/// nodes have n − 1 entries; `parent` has 2n − 1 and its root entry is set to [`NO_NODE`].
pub fn karras_tree(
    sorted_codes: &[u64],
    left: &mut [u32],
    right: &mut [u32],
    first: &mut [u32],
    last: &mut [u32],
    split_right: &mut [u32],
    parent: &mut [u32],
) {
    let n = sorted_codes.len();
    debug_assert!(n >= 2);
    let leaf = |i: i64| (n - 1) as u32 + i as u32;
    parent[0] = NO_NODE;
    for k in 0..n - 1 {
        let i = k as i64;
        let c = sorted_codes;
        // Direction of the range: toward the neighbour with the longer common prefix.
        let d: i64 = if delta(c, i, i + 1) - delta(c, i, i - 1) >= 0 {
            1
        } else {
            -1
        };
        let delta_min = delta(c, i, i - d);
        let mut l_max: i64 = 2;
        while delta(c, i, i + l_max * d) > delta_min {
            l_max *= 2;
        }
        let mut l: i64 = 0;
        let mut t = l_max / 2;
        while t >= 1 {
            if delta(c, i, i + (l + t) * d) > delta_min {
                l += t;
            }
            t /= 2;
        }
        let j = i + l * d;
        let delta_node = delta(c, i, j);
        // Binary search for the split: the last position that shares more than delta_node bits.
        let mut s: i64 = 0;
        let mut t = l;
        loop {
            t = (t + 1) / 2;
            if delta(c, i, i + (s + t) * d) > delta_node {
                s += t;
            }
            if t <= 1 {
                break;
            }
        }
        let gamma = i + s * d + d.min(0);
        let (first_pos, end) = (i.min(j), i.max(j));
        let l_ref = if first_pos == gamma {
            leaf(gamma)
        } else {
            gamma as u32
        };
        let r_ref = if end == gamma + 1 {
            leaf(gamma + 1)
        } else {
            (gamma + 1) as u32
        };
        left[k] = l_ref;
        right[k] = r_ref;
        first[k] = first_pos as u32;
        last[k] = end as u32;
        split_right[gamma as usize] = r_ref;
        parent[l_ref as usize] = k as u32;
        parent[r_ref as usize] = k as u32;
    }
}

/// `escape[node]`: the node a depth-first walk visits after skipping `node`'s subtree, or
/// [`NO_NODE`]. A subtree ending at sorted position l is followed by the right child of the
/// split between l and l + 1 (module docs of [`karras_tree`]), so no stack is needed.
/// `escape` has 2n − 1 entries; `last` and `split_right` are [`karras_tree`]'s.
pub fn escapes(last: &[u32], split_right: &[u32], escape: &mut [u32]) {
    let n = escape.len().div_ceil(2);
    let after = |l: usize| {
        if l + 1 >= n { NO_NODE } else { split_right[l] }
    };
    for (k, e) in escape.iter_mut().enumerate() {
        let l = if k + 1 < n {
            last[k] as usize
        } else {
            k + 1 - n
        };
        *e = after(l);
    }
}

/// The walk groups: the nodes that cover at most `group` bodies and whose parent covers more
/// (or the root, when it covers at most `group`), in depth-first order, which is Morton order
/// of their bodies. A group's bodies are the sorted positions of its node, so they lie in its
/// Morton cell; `groups` is cleared first. `first` and `last` are [`karras_tree`]'s; a leaf
/// covers its own position.
pub fn tree_groups(
    first: &[u32],
    last: &[u32],
    left: &[u32],
    escape: &[u32],
    group: usize,
    groups: &mut Vec<u32>,
) {
    groups.clear();
    let n = escape.len().div_ceil(2);
    if n == 0 {
        return;
    }
    let mut node = 0u32;
    while node != NO_NODE {
        let k = node as usize;
        let size = if k + 1 < n {
            (last[k] - first[k]) as usize + 1
        } else {
            1
        };
        if size <= group {
            groups.push(node);
            node = escape[k];
        } else {
            node = left[k];
        }
    }
}
