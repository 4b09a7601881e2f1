// Stage `tree_walk`: one work-group of GROUP invocations per walk group (bodies adjacent in
// Morton order, cpu::tree::karras::tree_groups). Every invocation walks the tree depth first
// without a stack (`left` opens a cell, `escape` skips it) and makes the same decisions, which
// depend only on the group's box: the walk is uniform across the work-group, so the cells it
// reads are broadcast. Each invocation adds its own body's pulls: cells used whole (quadrupole)
// in one sum, leaves (softened pull) in another, added at the end. Twin of
// src/cpu/tree/walk.rs (tree_walk then sum_group; sum_list for the potential).

@group(0) @binding(0) var<storage, read> tp: TreeParams;
@group(0) @binding(1) var<storage, read> pos: array<vec4<f32>>;          // xyz m
@group(0) @binding(2) var<storage, read> order: array<u32>;              // body at each sorted position
@group(0) @binding(3) var<storage, read> left: array<u32>;
@group(0) @binding(4) var<storage, read> first: array<u32>;
@group(0) @binding(5) var<storage, read> last: array<u32>;
@group(0) @binding(6) var<storage, read> escape: array<u32>;
@group(0) @binding(7) var<storage, read> cells: array<TreeCell>;           // internal nodes, n − 1
@group(0) @binding(8) var<storage, read> groups: array<u32>;
@group(0) @binding(9) var<storage, read> group_dispatch: array<u32>;     // x, y, 1, groups
@group(0) @binding(10) var<storage, read_write> a_mutual: array<vec4<f32>>;  // xyz m/s², w potential J
@group(0) @binding(11) var<storage, read> acc: array<vec4<f32>>;         // w: gravitating mass, kg
@group(0) @binding(13) var<storage, read> leaves: array<vec4<f32>>;        // per sorted position: x (m), mass (kg)
@group(0) @binding(12) var<storage, read_write> group_work: array<u32>;   // per group: its list's length (interactions per body)

// With each body's potential energy ½ G m Φ, leaving out its own leaf (diagnostics only).
override WITH_POTENTIAL: bool = false;

const NO_NODE: u32 = 0xffffffffu;  // = cpu::tree::karras::NO_NODE
const GROUP: u32 = 32u;            // = cpu::tree::walk::GROUP

// walk::box_distance2: squared distance from the box [lo, hi] to the point c.
fn box_distance2(lo: vec3<f32>, hi: vec3<f32>, c: vec3<f32>) -> f32 {
    let d = max(max(lo - c, c - hi), vec3<f32>(0.0));
    return d.x * d.x + d.y * d.y + d.z * d.z;
}

// walk::overlap.
fn overlap(a_lo: vec3<f32>, a_hi: vec3<f32>, b_lo: vec3<f32>, b_hi: vec3<f32>) -> bool {
    return all(a_lo <= b_hi) && all(b_lo <= a_hi);
}

// physics::gravity::softened_pull_xyz.
fn softened_pull(d: vec3<f32>, m: f32, eps2: f32) -> vec3<f32> {
    let r2 = d.x * d.x + d.y * d.y + d.z * d.z + eps2;
    let inv_r = select(0.0, 1.0 / sqrt(r2), r2 > 0.0);
    let f = m * (inv_r * inv_r * inv_r);
    return d * f;
}

// physics::multipole::multipole_pull_xyz: the monopole and traceless-quadrupole pull of a cell
// (L. Hernquist, ApJS 64, 715, 1987, eq. 2.4, softened).
fn multipole_pull(d: vec3<f32>, c: TreeCell, eps2: f32) -> vec3<f32> {
    let s2 = d.x * d.x + d.y * d.y + d.z * d.z + eps2;
    let inv_s = select(0.0, 1.0 / sqrt(s2), s2 > 0.0);
    let inv_s2 = inv_s * inv_s;
    let inv_s3 = inv_s * inv_s2;
    let inv_s5 = inv_s3 * inv_s2;
    let q = array<f32, 6>(c.quad_a.x, c.quad_a.y, c.quad_a.z, c.quad_a.w, c.quad_b.x, c.quad_b.y);
    let qx = q[0] * d.x + q[3] * d.y + q[4] * d.z;
    let qy = q[3] * d.x + q[1] * d.y + q[5] * d.z;
    let qz = q[4] * d.x + q[5] * d.y + q[2] * d.z;
    let dqd = d.x * qx + d.y * qy + d.z * qz;
    let mono = c.com_mass.w * inv_s3;
    let quad = 2.5 * dqd * inv_s5 * inv_s2;
    return vec3<f32>(
        d.x * mono - qx * inv_s5 + d.x * quad,
        d.y * mono - qy * inv_s5 + d.y * quad,
        d.z * mono - qz * inv_s5 + d.z * quad,
    );
}

// physics::multipole::multipole_potential (kg/m; times G gives J/kg).
fn multipole_potential(d: vec3<f32>, c: TreeCell, eps2: f32) -> f32 {
    let s2 = d.x * d.x + d.y * d.y + d.z * d.z + eps2;
    if s2 <= 0.0 {
        return 0.0;
    }
    let inv_s = 1.0 / sqrt(s2);
    let inv_s2 = inv_s * inv_s;
    let q = array<f32, 6>(c.quad_a.x, c.quad_a.y, c.quad_a.z, c.quad_a.w, c.quad_b.x, c.quad_b.y);
    let qd = vec3<f32>(
        q[0] * d.x + q[3] * d.y + q[4] * d.z,
        q[3] * d.x + q[1] * d.y + q[5] * d.z,
        q[4] * d.x + q[5] * d.y + q[2] * d.z,
    );
    let dqd = d.x * qd.x + d.y * qd.y + d.z * qd.z;
    return -(c.com_mass.w * inv_s + 0.5 * dqd * inv_s * inv_s2 * inv_s2);
}

// multipole_potential of a leaf, whose quadrupole is zero: −m / s.
fn point_potential(d: vec3<f32>, m: f32, eps2: f32) -> f32 {
    let s2 = d.x * d.x + d.y * d.y + d.z * d.z + eps2;
    if s2 <= 0.0 {
        return 0.0;
    }
    return -(m * (1.0 / sqrt(s2)));
}

@compute @workgroup_size(GROUP)
fn tree_walk(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lane: u32) {
    let g = wid.x + wid.y * group_dispatch[0];
    if g >= group_dispatch[3] {
        return;
    }
    let group_node = groups[g];
    let first_leaf = tp.n - 1u;
    var start = group_node - first_leaf;
    var end = start;
    if group_node < first_leaf {
        start = first[group_node];
        end = last[group_node];
    }
    let s = min(start + lane, end);
    let valid = start + lane <= end;
    let x = pos[order[s]].xyz;
    let own_leaf = first_leaf + s;
    // A group of one body is a leaf: its box is its point.
    var lo = x;
    var hi = x;
    if group_node < first_leaf {
        lo = cells[group_node].lo.xyz;
        hi = cells[group_node].hi.xyz;
    }
    var far = vec3<f32>(0.0);
    var near = vec3<f32>(0.0);
    var far_u = 0.0;
    var near_u = 0.0;
    var node = 0u;
    var used = 0u;
    while node != NO_NODE {
        if node >= first_leaf {
            // A leaf: one body, its softened pull (a body and itself add exactly zero).
            let l = leaves[node - first_leaf];
            let d = l.xyz - x;
            near += softened_pull(d, l.w, tp.eps2);
            if WITH_POTENTIAL && node != own_leaf {
                near_u += point_potential(d, l.w, tp.eps2);
            }
            node = escape[node];
            used += 1u;
            continue;
        }
        let c = cells[node];
        let d = c.com_mass.xyz - x;
        if box_distance2(lo, hi, c.com_mass.xyz) * tp.theta2 > c.quad_b.z
            && !overlap(lo, hi, c.lo.xyz, c.hi.xyz) {
            far += multipole_pull(d, c, tp.eps2);
            if WITH_POTENTIAL {
                far_u += multipole_potential(d, c, tp.eps2);
            }
            node = escape[node];
            used += 1u;
        } else {
            node = left[node];
        }
    }
    if lane == 0u {
        group_work[g] = used;
    }
    if valid {
        let b = order[s];
        var u = 0.0;
        if WITH_POTENTIAL {
            u = 0.5 * tp.g_const * acc[b].w * (far_u + near_u);
        }
        a_mutual[b] = vec4<f32>((far + near) * tp.g_const, u);
    }
}
