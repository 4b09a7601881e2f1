// Stage `collide`: narrow phase over the neighbour list (stage neighbours) and the walls (planes
// and spherical containers). Twin of src/cpu/collide/, functions with the Rust names:
// - soft laws: `collide_pairs` (one entry each) and `sum_pairs` (one sphere each);
// - impulses: `impulse_pairs`, `earliest_from_pairs` and `sum_impulses` (the final round; a
//   matching round's sum is folded into the other two: "A matching round, folded").
// Each pair is evaluated once, by the entry of its lower-id sphere (`a`), and written to both
// entries; every sphere adds its row in order, the pair's result with its sign: momentum
// balances without float atomics, and the sums are the CPU's.


@group(0) @binding(0) var<storage, read> params: Params;
// Positions and velocities are written only by earliest_from_pairs with PENDING, each sphere
// its own.
@group(0) @binding(1) var<storage, read_write> pos: array<vec4<f32>>;   // xyz, radius
@group(0) @binding(2) var<storage, read_write> vel: array<vec4<f32>>;   // xyz, inverse mass
@group(0) @binding(3) var<storage, read> props: array<vec4<f32>>;   // restitution, zeta, compliance, mu
@group(0) @binding(4) var<storage, read> ids: array<u32>;
// For applying a pending round (PENDING): accelerations | mass (as integrate.wgsl's),
// dissipated energy by input id (J), and the collision counter.
@group(0) @binding(5) var<storage, read> acc: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> dissipated: array<f32>;
@group(0) @binding(7) var<storage, read_write> status: Status;
@group(0) @binding(8) var<storage, read> planes: array<Plane>;
@group(0) @binding(9) var<storage, read_write> earliest: array<vec4<u32>>;  // tau bits, partner, count, entry

// The soft laws have no earliest events: with params.wall_forces they record there the force
// wall k exerted on sphere i, N, as f32 bits at i × walls + k (cpu::collide::wall_contact's
// second result), since the layout has no binding to spare (lavapipe's 32 storage buffers).
fn record_wall_force(i: u32, k: u32, force: vec3<f32>) {
    earliest[i * params.n_planes + k] = bitcast<vec4<u32>>(vec4<f32>(force, 0.0));
}
// A sphere's contact result in two bindings of 16 bytes a sphere, so that neither limits N.
@group(0) @binding(10) var<storage, read_write> contact: array<vec4<f32>>;     // dv | force, energy
@group(0) @binding(12) var<storage, read_write> contact_dx: array<vec4<f32>>;  // dx, power
@group(0) @binding(11) var<storage, read_write> contact_counts: array<vec4<u32>>; // contacts, collisions, 0, 0
// The neighbour list (stage neighbours): rows, links, each entry's
// pair result, and the friction history (16-byte dummies without).
@group(0) @binding(14) var<storage, read> list_start: array<u32>;          // n + 1
@group(0) @binding(15) var<storage, read> partner: array<u32>;             // capacity
@group(0) @binding(17) var<storage, read> link: array<u32>;                // capacity
@group(0) @binding(18) var<storage, read> row_of: array<u32>;              // capacity
// Each entry's pair result: force (N), energy (J). In gpu::neighbours::PAIR_PARTS = 4 bindings
// of list.split entries each, so that a list four times the adapter's largest binding fits
// (pair_result, set_pair_result).
@group(0) @binding(19) var<storage, read_write> pair_out: array<vec4<f32>>;
@group(0) @binding(27) var<storage, read_write> pair_out_1: array<vec4<f32>>;
@group(0) @binding(29) var<storage, read_write> pair_out_2: array<vec4<f32>>;
@group(0) @binding(30) var<storage, read_write> pair_out_3: array<vec4<f32>>;
// The rest of each entry's result: soft contact: power bits (W), flags; impulses: time left
// bits (s), flags, τ bits, push bits (m). In parts as pair_out.
@group(0) @binding(20) var<storage, read_write> pair_more: array<vec4<u32>>;
@group(0) @binding(28) var<storage, read_write> pair_more_1: array<vec4<u32>>;
@group(0) @binding(31) var<storage, read_write> pair_more_2: array<vec4<u32>>;
@group(0) @binding(32) var<storage, read_write> pair_more_3: array<vec4<u32>>;
@group(0) @binding(21) var<storage, read_write> xi: array<vec4<f32>>;      // capacity, m
@group(0) @binding(22) var<storage, read_write> wall_xi: array<vec4<f32>>; // n × walls, m
@group(0) @binding(23) var<storage, read> list: ListParams;
// Rotation (16-byte stand-ins without): each sphere's ω (rad/s) | inverse inertia, orientation,
// angular acceleration | rolling friction μ_r (integrate.wgsl's `rot`, 3 per sphere); each
// sphere's torque (N·m); each entry's friction moment n × F_t (N) | overlap (m)
// (cpu::collide::SpinPairOut), then with rolling resistance its rolling torque on the lower-id
// sphere (N·m) (cpu::collide::RollPairOut): a stride of spin_stride() vec4s. The contact
// history (xi, wall_xi) takes params.history_stride vec4s a contact: ξ | δ̇⁻, then with the
// rolling spring (ROLLING_EPSD) its torque | 0.
@group(0) @binding(24) var<storage, read> rot: array<vec4<f32>>;
@group(0) @binding(25) var<storage, read_write> torque: array<vec4<f32>>;
@group(0) @binding(26) var<storage, read_write> pair_spin: array<vec4<f32>>;

// Entry e's part of the pair results (gpu::neighbours::PAIR_PARTS) and its index there.
fn pair_slot(e: u32) -> vec2<u32> {
    let s = list.split;
    let part = select(0u, 1u, e >= s) + select(0u, 1u, e >= 2u * s) + select(0u, 1u, e >= 3u * s);
    return vec2<u32>(part, e - part * s);
}

// Entry e's pair result (pair_out) and its rest (pair_more), from whichever binding holds it.
fn pair_result(e: u32) -> vec4<f32> {
    let p = pair_slot(e);
    switch p.x {
        case 0u: { return pair_out[p.y]; }
        case 1u: { return pair_out_1[p.y]; }
        case 2u: { return pair_out_2[p.y]; }
        default: { return pair_out_3[p.y]; }
    }
}

fn pair_result_more(e: u32) -> vec4<u32> {
    let p = pair_slot(e);
    switch p.x {
        case 0u: { return pair_more[p.y]; }
        case 1u: { return pair_more_1[p.y]; }
        case 2u: { return pair_more_2[p.y]; }
        default: { return pair_more_3[p.y]; }
    }
}

fn set_pair_more(e: u32, more: vec4<u32>) {
    let p = pair_slot(e);
    switch p.x {
        case 0u: { pair_more[p.y] = more; }
        case 1u: { pair_more_1[p.y] = more; }
        case 2u: { pair_more_2[p.y] = more; }
        default: { pair_more_3[p.y] = more; }
    }
}

fn set_pair_result(e: u32, out: vec4<f32>, more: vec4<u32>) {
    let p = pair_slot(e);
    switch p.x {
        case 0u: {
            pair_out[p.y] = out;
            pair_more[p.y] = more;
        }
        case 1u: {
            pair_out_1[p.y] = out;
            pair_more_1[p.y] = more;
        }
        case 2u: {
            pair_out_2[p.y] = out;
            pair_more_2[p.y] = more;
        }
        default: {
            pair_out_3[p.y] = out;
            pair_more_3[p.y] = more;
        }
    }
}

// One invocation per list entry (collide_pairs, impulse_pairs): gpu::work::ENTRY_PASS.
const ENTRY_PASS: u32 = 0u;
// One invocation per small sphere's row, a work-group per large one's (sum_pairs,
// earliest_from_pairs, sum_impulses): gpu::work::ROW_PASS.
const ROW_PASS: u32 = 1u;
@group(0) @binding(16) var<storage, read_write> work: array<WorkCounters, 3>; // by kind of pass: shaders/work.wgsl

// impulse_pairs: false = the binary responses, true = the final round's; wall_contact: false
// = a matching round's (only the event's wall acts), true = the final round's
// (cpu::collide::Round). sum_impulses runs the final round only.
override FINAL: bool = true;
// A matching round's impulses are pending (decided, not yet applied; CpuBackend::apply_contacts
// runs between the rounds): impulse_pairs reads each body with them added, as the apply would
// leave it (with_pending), and earliest_from_pairs, the next round's, applies them
// (apply_pending) and tallies their collisions. Saves the round's sum and apply passes ("A
// matching round, folded").
override PENDING: bool = false;
const PLANE_EVENT: u32 = 0x80000000u;  // cpu::collide::PLANE_EVENT
const NO_EVENT: u32 = 0xffffffffu;     // cpu::collide::NO_EVENT
const TAU_NONE: f32 = 3.0e38;          // stands for the CPU's infinity (never a valid τ)
const PAIR_CONTACT: u32 = 1u;    // cpu::collide::PAIR_CONTACT
const PAIR_COLLISION: u32 = 2u;  // cpu::collide::PAIR_COLLISION
const PAIR_FORCE: u32 = 4u;      // cpu::collide::PAIR_FORCE
const PAIR_MATCHED: u32 = 8u;    // gpu::collide::PAIR_MATCHED
const PAIR_TALLY: u32 = 16u;     // gpu::collide::PAIR_TALLY

// cpu::collide::Body
struct Body {
    x: vec3<f32>,
    r: f32,
    v: vec3<f32>,
    w: f32,
    omega: vec3<f32>,
    e: f32,
    zeta: f32,
    compliance: f32,
    mu: f32,
    id: u32,
    inv_inertia: f32,  // (kg·m²)⁻¹, rotation only
    mu_r: f32,         // rolling friction, rolling resistance only
}

fn load_body(i: u32) -> Body {
    let p = pos[i];
    let v = vel[i];
    let m = props[i];
    var omega = vec3<f32>(0.0);
    var inv_inertia = 0.0;
    var mu_r = 0.0;
    if params.rotation != 0u {
        let w = rot[3u * i];
        omega = w.xyz;
        inv_inertia = w.w;
        if params.rolling != ROLLING_NONE {
            mu_r = rot[3u * i + 2u].w;
        }
    }
    return Body(p.xyz, p.w, v.xyz, v.w, omega, m.x, m.y, m.z, m.w, ids[i], inv_inertia, mu_r);
}

// cpu::collide::PairResponse
struct PairResponse {
    n: vec3<f32>,
    impulse: f32,
    rest: f32,
    tau: f32,
    push: f32,
    force: f32,
    friction: vec3<f32>,
    energy: f32,
    power: f32,
    kept: vec4<f32>,  // cpu::collide::ContactHistory: ξ (m) | δ̇⁻ (m/s)
    stiffness: f32,
    overlap: f32,
    contact: bool,
    collision: bool,
}

fn no_response() -> PairResponse {
    return PairResponse(vec3<f32>(0.0), 0.0, 0.0, 0.0, 0.0, 0.0, vec3<f32>(0.0), 0.0, 0.0,
                        vec4<f32>(0.0), 0.0, 0.0, false, false);
}

// cpu::collide::ContactOut, plus the sphere's earliest event of the first pass.
struct Acc {
    dv: vec3<f32>,
    dx: vec3<f32>,
    force: vec3<f32>,
    torque: vec3<f32>,
    energy: f32,
    power: f32,
    contacts: u32,
    collisions: u32,
    ev_tau: f32,
    ev_partner: u32,
    ev_count: u32,
    ev_entry: u32,  // the event's list entry (NO_EVENT for a wall or none)
}

// cpu::collide::unit_or
fn unit_or(d: vec3<f32>, fallback: vec3<f32>) -> vec3<f32> {
    let l2 = dot3(d, d);
    if l2 > 1.17549435e-38 {
        return d / sqrt(l2);
    }
    return fallback;
}

// cpu::collide::resolve_pair (impulse model; a has the lower id; k_a, k_b mass splitting)
fn resolve_pair(a: Body, b: Body, dt: f32, resting_speed: f32, k_a: f32, k_b: f32) -> PairResponse {
    var out = no_response();
    let wsum = a.w + b.w;
    if wsum == 0.0 {
        return out;
    }
    let radius_sum = a.r + b.r;
    let d1 = minimum_image(b.x - a.x, params.box_len, params.box_half);
    let dv = b.v - a.v;
    let delta = dv * dt;
    let d0 = d1 - delta;
    let fallback = vec3<f32>(1.0, 0.0, 0.0);
    var tau = 0.0;
    var n = vec3<f32>(0.0);
    let overlapping = dot3(d0, d0) <= radius_sum * radius_sum;
    if !overlapping {
        tau = contact_fraction(d0, delta, radius_sum);
        if tau < 0.0 {
            // Apart at the start, touching at the end: the root rounded past 1.
            if dot3(d1, d1) <= radius_sum * radius_sum {
                tau = 1.0;
            } else {
                return out;
            }
        }
        n = unit_or(d0 + delta * tau, fallback);
    } else {
        n = unit_or(d1, fallback);
    }
    let dist1 = sqrt(dot3(d1, d1));
    out.contact = dist1 <= radius_sum;
    out.n = n;
    out.tau = tau;
    // Overlapping at the start: the impulse acts at the end of the drift, with no travel.
    out.rest = select((1.0 - tau) * dt, 0.0, overlapping);
    let u_n = -dot3(dv, n);
    if u_n > 0.0 {
        let e = effective_restitution(pair_restitution(a.e, b.e), u_n, resting_speed);
        out.impulse = normal_impulse(u_n, e, k_a * a.w, k_b * b.w);
        out.collision = true;
    }
    let d1c = d1 + n * (out.impulse * wsum * out.rest);
    out.push = max(radius_sum - sqrt(dot3(d1c, d1c)), 0.0) * params.overlap_relaxation;
    return out;
}

// cpu::collide::NormalForce
struct Normal {
    force: f32,
    elastic: f32,
    energy: f32,
    stiffness: f32,
    impact: f32,
}

// cpu::collide::soft_normal_force
fn soft_normal_force(overlap: f32, u_n: f32, e: f32, zeta: f32, compliance_sum: f32,
                     curvature_sum: f32, inverse_mass_sum: f32, impact_old: f32) -> Normal {
    if params.model == MODEL_HERTZ {
        let k0 = hertz_stiffness(effective_modulus(compliance_sum, 0.0),
                                 effective_radius(curvature_sum, 0.0));
        // As the CPU: the stored δ̇⁻, never below the speed of the present energy.
        let now = impact_speed(u_n, k0, inverse_mass_sum, overlap);
        var impact = impact_old;
        if !(impact_old > 0.0) {
            impact = now;
        }
        let root = sqrt(overlap);
        let factor = hysteresis_factor(params.damping, e);
        return Normal(hysteresis_force(k0, overlap, u_n, factor, max(impact, now),
                                       inverse_mass_sum, params.dt),
                      k0 * overlap * root, elastic_energy(k0, overlap), 1.5 * k0 * root, impact);
    }
    let k = params.stiffness;
    let c_n = dashpot_coefficient(zeta, k, inverse_mass_sum);
    return Normal(normal_force(k, c_n, overlap, u_n), k * overlap, 0.5 * k * overlap * overlap, k,
                  0.0);
}

// cpu::collide::Soft; `kept` is cpu::collide::ContactHistory: ξ (m) | δ̇⁻ (m/s).
struct Soft {
    force: f32,
    friction: vec3<f32>,
    energy: f32,
    power: f32,
    kept: vec4<f32>,
    stiffness: f32,
}

// vec4s an entry of pair_spin takes: 1, 2 with rolling resistance
// (gpu::neighbours::pair_spin_vec4s).
fn spin_stride() -> u32 {
    return select(1u, 2u, params.rolling != ROLLING_NONE);
}

// cpu::collide::soft_contact; `kept` is cpu::collide::ContactHistory: ξ (m) | δ̇⁻ (m/s).
fn soft_contact(n: vec3<f32>, overlap: f32, dv: vec3<f32>, spin: vec3<f32>, kept: vec4<f32>,
                e: f32, zeta: f32, mu: f32, compliance_sum: f32, curvature_sum: f32,
                inverse_mass_sum: f32) -> Soft {
    let u_n = -dot3(dv, n);
    let xi_old = kept.xyz;
    let f = soft_normal_force(overlap, u_n, e, zeta, compliance_sum, curvature_sum, inverse_mass_sum,
                              kept.w);
    // cpu::collide::soft_contact's `spin`: None without rotation.
    var v_t = dv + n * u_n;
    if params.rotation != 0u {
        v_t = add_spin_slip(v_t, n, spin);
    }
    let k_t = TANGENTIAL_STIFFNESS_RATIO * f.stiffness;
    var k_t_old = k_t;
    if params.model == MODEL_HERTZ {
        k_t_old = k_t * sqrt(max(overlap - u_n * params.dt, 0.0) / overlap);
    }
    let c_t = dashpot_coefficient(zeta, k_t, inverse_mass_sum);
    let t = tangential_spring(xi_old, n, v_t, k_t, k_t_old, c_t, f.force, mu, params.dt);
    // As cpu::collide::soft_contact: the friction's whole work on the slip is dissipated.
    return Soft(f.force, t.force, f.energy, (f.force - f.elastic) * u_n - dot3(t.force, v_t),
                vec4<f32>(t.xi, f.impact), f.stiffness);
}

// cpu::collide::pair_force (soft contact; a has the lower id); `kept`: ξ (m) | δ̇⁻ (m/s).
fn pair_force(a: Body, b: Body, kept: vec4<f32>, dt: f32) -> PairResponse {
    var out = no_response();
    let wsum = a.w + b.w;
    if wsum == 0.0 {
        return out;
    }
    let radius_sum = a.r + b.r;
    let d1 = minimum_image(b.x - a.x, params.box_len, params.box_half);
    let dist2 = dot3(d1, d1);
    if dist2 > radius_sum * radius_sum {
        return out;
    }
    let n = unit_or(d1, vec3<f32>(1.0, 0.0, 0.0));
    let overlap = radius_sum - sqrt(dist2);
    let dv = b.v - a.v;
    let spin = spin_lever(contact_arm(a.r, overlap), a.omega, contact_arm(b.r, overlap), b.omega);
    let soft = soft_contact(n, overlap, dv, spin, kept, pair_restitution(a.e, b.e), max(a.zeta, b.zeta),
                            pair_friction(a.mu, b.mu), a.compliance + b.compliance,
                            1.0 / a.r + 1.0 / b.r, wsum);
    out.n = n;
    out.force = soft.force;
    out.friction = soft.friction;
    out.energy = soft.energy;
    out.power = soft.power;
    out.kept = soft.kept;
    out.stiffness = soft.stiffness;
    out.overlap = overlap;
    out.contact = true;
    let d0 = d1 - dv * dt;
    out.collision = dot3(d0, d0) > radius_sum * radius_sum;
    return out;
}

// cpu::collide::apply
fn apply(acc: ptr<function, Acc>, p: PairResponse, me: Body, other: Body, wsum: f32, me_is_a: bool) {
    let sign = select(1.0, -1.0, me_is_a);
    if p.impulse != 0.0 || p.push != 0.0 {
        let dv = p.n * (sign * p.impulse * me.w);
        (*acc).dv += dv;
        // Separate additions, in this order, on both backends (cpu::collide::apply).
        (*acc).dx += dv * p.rest;
        if p.push != 0.0 {
            // From a's side, as resolve_pair computed the push: the same bits on both sides.
            var a = me;
            var b = other;
            if !me_is_a {
                a = other;
                b = me;
            }
            let d = minimum_image(b.x - a.x, params.box_len, params.box_half)
                + p.n * (p.impulse * wsum * p.rest);
            let v = (b.v - a.v) + p.n * (p.impulse * wsum);
            let axis = unit_or(d, p.n);
            let share = sign * me.w / wsum;
            (*acc).dx += axis * (share * p.push);
            (*acc).dv += push_velocity_change(axis, sqrt(dot3(d, d)), v, p.push) * share;
        }
    }
    if p.force != 0.0 {
        (*acc).force += (p.n * p.force + p.friction) * sign;
    }
    if me_is_a {
        (*acc).energy += p.energy;
        (*acc).power += p.power;
        (*acc).contacts += select(0u, 1u, p.contact);
        (*acc).collisions += select(0u, 1u, p.collision);
    }
}

// cpu::collide::is_mutual, on the fields of the bodies it reads (inverse masses and ids), so
// that a pair the round did not move decides it without loading its bodies.
fn is_mutual(me_w: f32, me_id: u32, mine: u32, other_w: f32, other_id: u32, theirs: u32) -> bool {
    return (me_w == 0.0 || mine == other_id) && (other_w == 0.0 || theirs == me_id);
}

// cpu::collide::Event::keep_earliest; `entry`: the pair's list entry (NO_EVENT for a wall).
fn keep_earliest(acc: ptr<function, Acc>, tau: f32, partner: u32, entry: u32) {
    (*acc).ev_count += 1u;
    // Ties: planes first, then lower ids.
    if tau < (*acc).ev_tau
        || (tau == (*acc).ev_tau && (partner ^ PLANE_EVENT) < ((*acc).ev_partner ^ PLANE_EVENT)) {
        (*acc).ev_tau = tau;
        (*acc).ev_partner = partner;
        (*acc).ev_entry = entry;
    }
}

// Sorted index of the sphere this invocation handles (for its mass-splitting count).
var<private> me_index: u32;

// cpu::collide::walls::contact::approach: (s, v·n) and the normal.
struct Approach {
    s: f32,
    vn: f32,
    n: vec3<f32>,
}

fn approach(me: Body, wall: Plane) -> Approach {
    let g = wall_gap(me.x, me.r, wall);
    return Approach(g.s, dot3(me.v, g.n), g.n);
}

// The wall contact's ξ | δ̇⁻ wall_contact read before clearing it.
var<private> wall_xi_old: vec4<f32>;
// The wall contact's rolling spring wall_contact read before clearing it (ROLLING_EPSD).
var<private> wall_spring_old: vec3<f32>;

// cpu::collide::wall_contact, for wall k. Soft contact with friction history reads and
// writes the sphere's ξ against the wall, wall_xi[me_index × walls + k] (zero when apart:
// sum_pairs' `kept.unwrap_or(zero)`).
fn wall_contact(acc: ptr<function, Acc>, me: Body, wall: Plane, k: u32, is_earliest: bool, k_me: f32) {
    let soft_history = params.model != MODEL_IMPULSE && params.history != 0u;
    let hs = params.history_stride;
    let w = hs * (me_index * params.n_planes + k);
    // Zero unless a soft contact below writes the force (cpu::collide::wall_contact's second
    // result).
    if params.wall_forces != 0u {
        record_wall_force(me_index, k, vec3<f32>(0.0));
    }
    if soft_history {
        let xi_old = wall_xi[w];
        wall_xi[w] = vec4<f32>(0.0);
        wall_xi_old = xi_old;
        if hs == 2u {
            wall_spring_old = wall_xi[w + 1u].xyz;
            wall_xi[w + 1u] = vec4<f32>(0.0);
        }
    }
    if me.w == 0.0 {
        return;
    }
    let g = approach(me, wall);
    let s1 = g.s;
    let vn = g.vn;
    let n = g.n;
    if params.model == MODEL_IMPULSE {
        let event = wall_event(me, wall, params.dt);
        var act = is_earliest;
        if FINAL {
            act = event >= 0.0;
        }
        if act {
            let tau = max(event, 0.0);
            let e = effective_restitution(pair_restitution(me.e, wall.e), -vn, params.resting_speed);
            let dv = plane_velocity_change(me.v, n, e) / k_me;
            (*acc).dv += dv;
            (*acc).dx += dv * ((1.0 - tau) * params.dt);
            (*acc).collisions += 1u;
        }
        if FINAL {
            (*acc).contacts += select(0u, 1u, s1 <= 0.0);
        }
    } else {
        if s1 > 0.0 {
            return;
        }
        // The wall is the first body, the sphere the second.
        var xi_old = vec4<f32>(0.0);
        if soft_history {
            xi_old = wall_xi_old;
        }
        let arm = contact_arm(me.r, -s1);
        let spin = spin_lever(0.0, vec3<f32>(0.0), arm, me.omega);
        let soft = soft_contact(n, -s1, me.v - wall.velocity, spin, xi_old, pair_restitution(me.e, wall.e),
                                max(me.zeta, wall.zeta), pair_friction(me.mu, wall.mu),
                                me.compliance + wall.compliance,
                                1.0 / me.r + wall_curvature(wall), me.w);
        // The sphere is body a of its rolling resistance: the torque is the sphere's.
        var rolling = vec4<f32>(0.0);
        var spring = vec3<f32>(0.0);
        if params.rolling != ROLLING_NONE && soft.force != 0.0 {
            var inv_rolling = 0.0;
            if params.rolling == ROLLING_EPSD {
                inv_rolling = inverse_rolling_inertia(me.inv_inertia, me.w, me.r);
            }
            let rs = rolling_resistance(n, me.omega, vec3<f32>(0.0), wall_spring_old,
                                        pair_friction(me.mu_r, wall.rolling_friction),
                                        effective_radius(1.0 / me.r, wall_curvature(wall)),
                                        soft.force, soft.stiffness, me.inv_inertia, inv_rolling,
                                        params.dt);
            rolling = vec4<f32>(rs.torque, rs.power);
            spring = rs.spring;
        }
        let force = n * soft.force + soft.friction;
        (*acc).force += force;
        if params.wall_forces != 0u {
            record_wall_force(me_index, k, force);
        }
        if params.rotation != 0u {
            // physics::rotation::friction_moment
            (*acc).torque += friction_torque(arm, cross3(n, soft.friction));
            (*acc).torque += rolling.xyz;
        }
        (*acc).energy += soft.energy;
        (*acc).power += soft.power + rolling.w - wall_power(force, wall);
        if soft_history {
            wall_xi[w] = soft.kept;
            if hs == 2u {
                wall_xi[w + 1u] = vec4<f32>(spring, 0.0);
            }
        }
        (*acc).contacts += 1u;
        (*acc).collisions += select(0u, 1u, s1 - vn * params.dt > 0.0);
    }
}

// cpu::collide::project_onto_walls
fn project_onto_walls(acc: ptr<function, Acc>, me: Body) {
    if me.w == 0.0 {
        return;
    }
    for (var k = 0u; k < params.n_planes; k++) {
        let wall = planes[k];
        let g = wall_gap(me.x + (*acc).dx, me.r, wall);
        let n = g.n;
        let s = g.s;
        if s < 0.0 {
            (*acc).dx -= n * s;
            let v = me.v + (*acc).dv;
            let e = effective_restitution(pair_restitution(me.e, wall.e), -dot3(v, n), params.resting_speed);
            (*acc).dv += plane_velocity_change(v, n, e);
        }
    }
}

fn new_acc() -> Acc {
    return Acc(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), 0.0, 0.0, 0u, 0u,
               TAU_NONE, NO_EVENT, 0u, NO_EVENT);
}

// ---- Row passes: one invocation per small sphere, one work-group per large sphere ------------
//
// The per-sphere passes (sum_pairs, earliest_from_pairs, sum_impulses) run ⌈n_small / WG⌉
// work-groups of one small sphere per invocation, then one work-group per large sphere, whose
// row grows with its surface: its WG invocations stride over the row and their partial sums meet
// in a fixed tree (cpu::collide::sum_row), so no invocation adds more than ⌈len / WG⌉ entries
// and the sums are the CPU's, bit for bit.

// Which sphere a row pass's work-group handles: `small` (invocation lid has sphere
// first + lid) or one large sphere (`first`), or none (`first` ≥ n).
struct RowGroup {
    small: bool,
    first: u32,
}

fn row_group(wid: vec3<u32>) -> RowGroup {
    let w = wid.x + wid.y * params.row_groups_x;
    let small_groups = (params.n_small + WG - 1u) / WG;
    if w < small_groups {
        return RowGroup(true, w * WG);
    }
    return RowGroup(false, params.n_small + (w - small_groups));
}

// The entries one invocation of a row pass adds: sphere i's entries first, first + stride, …
// below end (a small sphere's whole row; a lane's share of a large sphere's), or none (`live`
// false: past the spheres).
struct RowShare {
    live: bool,
    i: u32,
    first: u32,
    end: u32,
    stride: u32,
}

fn row_share(g: RowGroup, lid: u32) -> RowShare {
    var i = g.first;
    var lane = lid;
    var stride = WG;
    var live = g.first < params.n;
    if g.small {
        i = g.first + lid;
        lane = 0u;
        stride = 1u;
        live = i < params.n_small;
    }
    if !live {
        return RowShare(false, 0u, 0u, 0u, 1u);
    }
    let end = min(list_start[i + 1u], list.capacity);
    return RowShare(true, i, list_start[i] + lane, end, stride);
}

// Whether this invocation writes its sphere's result: a small sphere's invocation, or lane 0 of
// a large sphere's work-group after reduce_row.
fn row_writes(g: RowGroup, r: RowShare, lid: u32) -> bool {
    return r.live && (g.small || lid == 0u);
}

// The partial sums of a large sphere's lanes: the first half of the tree's slots (the upper
// lanes store theirs first, then the tree runs on half the work-group).
var<workgroup> row_a: array<vec4<f32>, WG / 2u>;  // dv, energy
var<workgroup> row_b: array<vec4<f32>, WG / 2u>;  // dx, power
var<workgroup> row_f: array<vec4<f32>, WG / 2u>;  // force, ev_tau
var<workgroup> row_c: array<vec4<u32>, WG / 2u>;  // contacts, collisions, ev_partner, ev_count
var<workgroup> row_t: array<vec4<f32>, WG / 2u>;  // torque, -
var<workgroup> row_e: array<u32, WG / 2u>;        // ev_entry

fn row_stash(k: u32, a: Acc) {
    row_a[k] = vec4<f32>(a.dv, a.energy);
    row_b[k] = vec4<f32>(a.dx, a.power);
    row_f[k] = vec4<f32>(a.force, a.ev_tau);
    row_c[k] = vec4<u32>(a.contacts, a.collisions, a.ev_partner, a.ev_count);
    row_t[k] = vec4<f32>(a.torque, 0.0);
    row_e[k] = a.ev_entry;
}

fn row_unstash(k: u32) -> Acc {
    let a = row_a[k];
    let b = row_b[k];
    let f = row_f[k];
    let c = row_c[k];
    return Acc(a.xyz, b.xyz, f.xyz, row_t[k].xyz, a.w, b.w, c.x, c.y, f.w, c.z, c.w, row_e[k]);
}

// cpu::collide::ContactOut::combine, and the earlier of two events (keep_earliest's order, so
// that the choice does not depend on the tree) with their counts added.
fn combine_acc(a: Acc, b: Acc) -> Acc {
    var r = a;
    r.dv += b.dv;
    r.dx += b.dx;
    r.force += b.force;
    r.torque += b.torque;
    r.energy += b.energy;
    r.power += b.power;
    r.contacts += b.contacts;
    r.collisions += b.collisions;
    r.ev_count += b.ev_count;
    if b.ev_tau < a.ev_tau
        || (b.ev_tau == a.ev_tau && (b.ev_partner ^ PLANE_EVENT) < (a.ev_partner ^ PLANE_EVENT)) {
        r.ev_tau = b.ev_tau;
        r.ev_partner = b.ev_partner;
        r.ev_entry = b.ev_entry;
    }
    return r;
}

// cpu::collide::sum_row's tree over the work-group's partial sums: lane l takes lane l + s for
// s = WG/2, …, 1. The total is lane 0's result. Uniform control flow.
fn reduce_row(lid: u32, part: Acc) -> Acc {
    let half = WG / 2u;
    if lid >= half {
        row_stash(lid - half, part);
    }
    workgroupBarrier();
    var acc = part;
    if lid < half {
        acc = combine_acc(part, row_unstash(lid));
        row_stash(lid, acc);
    }
    workgroupBarrier();
    for (var s = half / 2u; s > 0u; s = s / 2u) {
        if lid < s {
            acc = combine_acc(row_unstash(lid), row_unstash(lid + s));
            row_stash(lid, acc);
        }
        workgroupBarrier();
    }
    return acc;
}

// ---- Soft contact from the neighbour list ---------------------------------------------------

// cpu::collide::collide_pairs, one entry each: an owned entry evaluates its pair (pair_force,
// its sphere the lower id) at the end-of-drift positions and writes the result to itself and
// to its mirror entry, so that sum_pairs reads each row in order. With friction history the
// owned entry's ξ is read and overwritten (zero when apart).
@compute @workgroup_size(WG)
fn collide_pairs(@builtin(global_invocation_id) gid: vec3<u32>) {
    let e = linear_index(gid, list.dispatch_x);
    if e >= min(list_start[params.n], list.capacity) {
        return;
    }
    let l = link[e];
    if (l & OWNED) == 0u {
        report_visits(ENTRY_PASS);
        return;
    }
    visits = 1u;
    let i = row_of[e];
    let j = partner[e];
    var force = vec4<f32>(0.0);
    var more = vec4<u32>(0u);
    var spin = vec4<f32>(0.0);
    var rolling = vec4<f32>(0.0);
    var xi_new = vec4<f32>(0.0);
    var spring_new = vec3<f32>(0.0);
    let hs = params.history_stride;
    // cpu::collide::may_touch, from the centres and radii alone: most entries are apart.
    let pi = pos[i];
    let pj = pos[j];
    let d = minimum_image(pj.xyz - pi.xyz, params.box_len, params.box_half);
    let reach = pi.w + pj.w;
    if dot3(d, d) <= 1.01 * reach * reach {
        me_index = i;
        var xi_old = vec4<f32>(0.0);
        var spring_old = vec3<f32>(0.0);
        if params.history != 0u {
            xi_old = xi[hs * e];
            if hs == 2u {
                spring_old = xi[hs * e + 1u].xyz;
            }
        }
        let a = load_body(i);
        let b = load_body(j);
        let p = pair_force(a, b, xi_old, params.dt);
        if p.contact {
            xi_new = p.kept;
        }
        var flags = select(0u, PAIR_CONTACT, p.contact) | select(0u, PAIR_COLLISION, p.collision);
        if p.force != 0.0 {
            force = vec4<f32>(p.n * p.force + p.friction, 0.0);
            flags |= PAIR_FORCE;
            // physics::rotation::friction_moment, and the overlap for the arms.
            spin = vec4<f32>(cross3(p.n, p.friction), p.overlap);
            if params.rolling != ROLLING_NONE {
                var inv_rolling = 0.0;
                if params.rolling == ROLLING_EPSD {
                    inv_rolling = inverse_rolling_inertia(a.inv_inertia, a.w, a.r)
                                  + inverse_rolling_inertia(b.inv_inertia, b.w, b.r);
                }
                let rs = rolling_resistance(p.n, a.omega, b.omega, spring_old,
                                            pair_friction(a.mu_r, b.mu_r),
                                            effective_radius(1.0 / a.r, 1.0 / b.r), p.force,
                                            p.stiffness, a.inv_inertia + b.inv_inertia,
                                            inv_rolling, params.dt);
                rolling = vec4<f32>(rs.torque, rs.power);
                if p.contact {
                    spring_new = rs.spring;
                }
            }
        }
        force.w = p.energy;
        more = vec4<u32>(bitcast<u32>(p.power + rolling.w), flags, 0u, 0u);
    }
    if params.history != 0u {
        xi[hs * e] = xi_new;
        if hs == 2u {
            xi[hs * e + 1u] = vec4<f32>(spring_new, 0.0);
        }
    }
    set_pair_result(e, force, more);
    let m = l & NO_MIRROR;
    if m != NO_MIRROR {
        set_pair_result(m, force, more);
    }
    // sum_pairs reads an entry's moment only when the pair has a force: no write without one.
    if params.rotation != 0u && (more.y & PAIR_FORCE) != 0u {
        let stride = spin_stride();
        pair_spin[stride * e] = spin;
        if m != NO_MIRROR {
            pair_spin[stride * m] = spin;
        }
        if params.rolling != 0u {
            pair_spin[stride * e + 1u] = vec4<f32>(rolling.xyz, 0.0);
            if m != NO_MIRROR {
                pair_spin[stride * m + 1u] = vec4<f32>(rolling.xyz, 0.0);
            }
        }
    }
    report_visits(ENTRY_PASS);
}

// cpu::collide::sum_pairs, one row each (row_group): its entries (the force reversed on the
// pairs it owns; their energy, power and counts), then the walls.
fn sum_pairs_entry(acc: ptr<function, Acc>, e: u32) {
    visits += 1u;
    let l = link[e];
    let owned = (l & OWNED) != 0u;
    if !owned && (l & NO_MIRROR) == NO_MIRROR {
        return;
    }
    let p = pair_result(e);
    let more = pair_result_more(e);
    if (more.y & PAIR_FORCE) != 0u {
        (*acc).force += p.xyz * select(1.0, -1.0, owned);
        if params.rotation != 0u {
            let stride = spin_stride();
            let ps = pair_spin[stride * e];
            (*acc).torque += friction_torque(contact_arm(pos[me_index].w, ps.w), ps.xyz);
            if params.rolling != 0u {
                (*acc).torque += pair_spin[stride * e + 1u].xyz * select(-1.0, 1.0, owned);
            }
        }
    }
    if owned {
        (*acc).energy += p.w;
        (*acc).power += bitcast<f32>(more.x);
        (*acc).contacts += select(0u, 1u, (more.y & PAIR_CONTACT) != 0u);
        (*acc).collisions += select(0u, 1u, (more.y & PAIR_COLLISION) != 0u);
    }
}

fn sum_pairs_finish(i: u32, row: Acc) {
    var acc = row;
    let me = load_body(i);
    for (var k = 0u; k < params.n_planes; k++) {
        wall_contact(&acc, me, planes[k], k, false, 1.0);
    }
    contact[i] = vec4<f32>(acc.force, acc.energy);
    contact_dx[i] = vec4<f32>(acc.dx, acc.power);
    contact_counts[i] = vec4<u32>(acc.contacts, acc.collisions, 0u, 0u);
    if params.rotation != 0u {
        torque[i] = vec4<f32>(acc.torque, 0.0);
    }
}

@compute @workgroup_size(WG)
fn sum_pairs(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let g = row_group(wid);
    let r = row_share(g, lid);
    me_index = r.i;
    var acc = new_acc();
    for (var e = r.first; e < r.end; e += r.stride) {
        sum_pairs_entry(&acc, e);
    }
    if r.live {
        report_visits(ROW_PASS);
    }
    if !g.small {
        acc = reduce_row(lid, acc);
    }
    if row_writes(g, r, lid) {
        sum_pairs_finish(r.i, acc);
    }
}

// ---- The impulse model from the neighbour list -----------------------------------------------

// cpu::collide::impulse_pairs, one entry each: an owned entry resolves its pair (resolve_pair,
// its sphere the lower id) and writes the response to itself and its mirror. Binary (FINAL
// false, PENDING false) every pair; the final round (FINAL) only the pairs that collide, again
// with the mass-splitting factors of the earliest events' counts (the others keep their binary
// response, which has no impulse). With PENDING (after a matching round) only the pairs with a
// sphere the round moves, as the CPU's `moved` (the others keep their response: the same
// bodies give the same bits); it also decides that round for its pair and flags both entries
// (PAIR_MATCHED), and the entry of the sphere that tallies the collision (PAIR_TALLY: the lower
// id's if it is movable, else the other's), for the next earliest_from_pairs.
@compute @workgroup_size(WG)
fn impulse_pairs(@builtin(global_invocation_id) gid: vec3<u32>) {
    let e = linear_index(gid, list.dispatch_x);
    if e >= min(list_start[params.n], list.capacity) {
        return;
    }
    let l = link[e];
    if (l & OWNED) == 0u {
        report_visits(ENTRY_PASS);
        return;
    }
    // The pair's last result: the final round's filter, the matching round's collision.
    var before = vec4<u32>(0u);
    if FINAL || PENDING {
        before = pair_result_more(e);
    }
    if FINAL && (before.y & PAIR_COLLISION) == 0u {
        report_visits(ENTRY_PASS);
        return;
    }
    visits = 1u;
    let i = row_of[e];
    let j = partner[e];
    var k_i = 1.0;
    var k_j = 1.0;
    if FINAL {
        k_i = f32(max(earliest[i].z, 1u));
        k_j = f32(max(earliest[j].z, 1u));
    }
    let m = l & NO_MIRROR;
    var matched = false;
    var now_i = false;
    var now_j = false;
    if PENDING {
        let id_i = ids[i];
        let id_j = ids[j];
        let w_i = vel[i].w;
        now_i = matched_now(i, id_i);
        now_j = matched_now(j, id_j);
        matched = (before.y & PAIR_COLLISION) != 0u
            && is_mutual(w_i, id_i, earliest[i].y, vel[j].w, id_j, earliest[j].y);
        if !moves_now(i, now_i) && !moves_now(j, now_j) {
            keep_response(e, m, before, matched, w_i);
            report_visits(ENTRY_PASS);
            return;
        }
    }
    var a = load_body(i);
    var b = load_body(j);
    if PENDING {
        a = with_pending(i, a, now_i);
        b = with_pending(j, b, now_j);
    }
    let p = resolve_pair(a, b, params.dt, params.resting_speed, k_i, k_j);
    let flags = select(0u, PAIR_CONTACT, p.contact) | select(0u, PAIR_COLLISION, p.collision)
        | select(0u, PAIR_MATCHED, matched);
    let tally = pair_tallies(matched, a.w);
    let out = vec4<f32>(p.n, p.impulse);
    let more = vec4<u32>(bitcast<u32>(p.rest), flags, bitcast<u32>(p.tau), bitcast<u32>(p.push));
    set_pair_result(e, out, more | vec4<u32>(0u, tally.x, 0u, 0u));
    if m != NO_MIRROR {
        set_pair_result(m, out, more | vec4<u32>(0u, tally.y, 0u, 0u));
    }
    report_visits(ENTRY_PASS);
}

// A pair that a matching round did not move keeps its response on both entries (owner e,
// mirror m), which impulse_pairs wrote with the same words but the tally; only the round's
// flags change: PAIR_MATCHED (a collision of zero response can match), and PAIR_TALLY on the
// entry of the sphere that counts it (impulse_pairs' rule; `w_a`: the owner's inverse mass).
// Nothing is written when the pair matched neither in this round nor in the one before.
fn keep_response(e: u32, m: u32, before: vec4<u32>, matched: bool, w_a: f32) {
    if !matched && (before.y & PAIR_MATCHED) == 0u {
        return;
    }
    let flags = (before.y & ~(PAIR_MATCHED | PAIR_TALLY)) | select(0u, PAIR_MATCHED, matched);
    let tally = pair_tallies(matched, w_a);
    set_pair_more(e, vec4<u32>(before.x, flags | tally.x, before.z, before.w));
    if m != NO_MIRROR {
        set_pair_more(m, vec4<u32>(before.x, flags | tally.y, before.z, before.w));
    }
}

// The PAIR_TALLY bits of a pair's owner entry (x) and mirror (y): the owner's when it is
// movable (inverse mass `w_a` ≠ 0), else the mirror's. Two fixed spheres never collide
// (resolve_pair), so a matched pair has a movable sphere.
fn pair_tallies(matched: bool, w_a: f32) -> vec2<u32> {
    return vec2<u32>(select(0u, PAIR_TALLY, matched && w_a != 0.0),
                     select(0u, PAIR_TALLY, matched && w_a == 0.0));
}

// ---- A matching round, folded ----------------------------------------------------------------
//
// The CPU sums a matching round in a row pass (cpu::collide::sum_impulses, Round::Matching):
// a movable sphere adds its event's response when the event is mutual (is_mutual), and nothing
// else, since no other entry of its row and no other wall acts in that round. So its sum is the
// one response of its event, which earliest_from_pairs already holds: it writes that
// candidate (round_candidate) beside the event, and whoever applies the round adds it if the
// event is mutual, which needs the partner's event: impulse_pairs (PENDING), the pass after,
// from `earliest` (matched_now); earliest_from_pairs (PENDING), the next round's, from the flag
// that impulse_pairs left on the event's entry (matched_before), since that pass rewrites
// `earliest`. The same expressions on the same inputs: the CPU's sums, bit for bit.

// Whether sphere i's event of the round earliest_from_pairs just decided is mutual: a wall, a
// fixed partner, or a partner whose event is i (is_mutual; a fixed sphere has no event). `id`:
// sphere i's input id.
fn matched_now(i: u32, id: u32) -> bool {
    let ev = earliest[i];
    if ev.y == NO_EVENT {
        return false;
    }
    if (ev.y & PLANE_EVENT) != 0u {
        return true;
    }
    let j = partner[ev.w];
    return vel[j].w == 0.0 || earliest[j].y == id;
}

// Whether sphere i moves in the round earliest_from_pairs just decided, given whether its event
// is mutual (matched_now): as CpuBackend::apply_contacts's `moved`, its candidate's dx or dv
// has a non-zero component (−0 counts as zero, as it does there).
fn moves_now(i: u32, matched: bool) -> bool {
    if !matched {
        return false;
    }
    let zero = vec3<f32>(0.0);
    return any(contact[i].xyz != zero) || any(contact_dx[i].xyz != zero);
}

// matched_now, read by the pass that rewrites `earliest`: `ev` is sphere i's event of the
// round before, and impulse_pairs flagged its entry when it was mutual. Returns the flags that
// matter: PAIR_MATCHED, and PAIR_TALLY where sphere i counts the collision (always a wall's).
fn matched_before(ev: vec4<u32>) -> u32 {
    if ev.y == NO_EVENT {
        return 0u;
    }
    if (ev.y & PLANE_EVENT) != 0u {
        return PAIR_MATCHED | PAIR_TALLY;
    }
    return pair_result_more(ev.w).y & (PAIR_MATCHED | PAIR_TALLY);
}

// Sphere i's sum of the matching round whose event `ev` earliest_from_pairs decided, if the
// event is mutual (sum_impulses, Round::Matching): its event's response (the pair's, push and
// contact dropped; or its wall's), from zero, into contact and contact_dx. A sphere without an
// event writes nothing: it is never matched, so nobody reads them.
fn round_candidate(i: u32, me: Body, ev: Acc) {
    if ev.ev_partner == NO_EVENT {
        return;
    }
    var acc = new_acc();
    if (ev.ev_partner & PLANE_EVENT) != 0u {
        let k = ev.ev_partner & ~PLANE_EVENT;
        wall_contact(&acc, me, planes[k], k, true, 1.0);
    } else {
        // An entry with a pair (earliest_entry skips the others).
        let e = ev.ev_entry;
        var p = listed_response(e);
        p.push = 0.0;
        p.contact = false;
        // Without a push, `apply` reads neither the partner nor the mass sum.
        apply(&acc, p, me, me, me.w, (link[e] & OWNED) != 0u);
    }
    contact[i] = vec4<f32>(acc.dv, acc.energy);
    contact_dx[i] = vec4<f32>(acc.dx, acc.power);
}

// Body b of sphere i as integrate.wgsl's apply_contact leaves it after the round
// earliest_from_pairs decided: x + dx, v + dv of its candidate if `matched` (matched_now), else
// + 0 (the same expressions, so the same bits).
fn with_pending(i: u32, b: Body, matched: bool) -> Body {
    var a = b;
    a.x = b.x + select(vec3<f32>(0.0), contact_dx[i].xyz, matched);
    a.v = b.v + select(vec3<f32>(0.0), contact[i].xyz, matched);
    return a;
}

// integrate.wgsl's apply_contact (CpuBackend::apply_contacts) of sphere i's pending round, whose
// event was `ev`: x += dx, v += dv, and minus a movable sphere's energy change booked as
// dissipated. Returns the round's collisions sphere i tallies (0 or 1).
fn apply_pending(i: u32, ev: vec4<u32>) -> u32 {
    let flags = matched_before(ev);
    let matched = (flags & PAIR_MATCHED) != 0u;
    let dv = select(vec3<f32>(0.0), contact[i].xyz, matched);
    let dx = select(vec3<f32>(0.0), contact_dx[i].xyz, matched);
    let p4 = pos[i];
    let v4 = vel[i];
    if v4.w != 0.0 {
        let a4 = acc[i];
        dissipated[ids[i]] -= impulse_energy_change(a4.w, v4.xyz, dv, dx, a4.xyz, params.dt);
    }
    pos[i] = vec4<f32>(p4.xyz + dx, p4.w);
    vel[i] = vec4<f32>(v4.xyz + dv, v4.w);
    return select(0u, 1u, (flags & PAIR_TALLY) != 0u);
}

// cpu::collide::PairImpulse::response
fn listed_response(e: u32) -> PairResponse {
    var p = no_response();
    let out = pair_result(e);
    let more = pair_result_more(e);
    p.n = out.xyz;
    p.impulse = out.w;
    p.rest = bitcast<f32>(more.x);
    p.tau = bitcast<f32>(more.z);
    p.push = bitcast<f32>(more.w);
    p.contact = (more.y & PAIR_CONTACT) != 0u;
    p.collision = (more.y & PAIR_COLLISION) != 0u;
    return p;
}

// cpu::collide::earliest_from_pairs, one row each (row_group): its earliest event and pending
// count from the binary responses of its row, then the walls. A fixed sphere has none. The
// event's list entry goes to earliest.w, its response to contact (round_candidate).
fn earliest_entry(acc: ptr<function, Acc>, e: u32) {
    visits += 1u;
    // An entry without a pair has no result (cpu::neighbours::NO_PAIR, which the CPU skips).
    let l = link[e];
    if (l & OWNED) == 0u && (l & NO_MIRROR) == NO_MIRROR {
        return;
    }
    let more = pair_result_more(e);
    if (more.y & PAIR_COLLISION) != 0u {
        keep_earliest(acc, bitcast<f32>(more.z), ids[partner[e]], e);
    }
}

// Returns the collisions of the pending round it applied that sphere i tallies (PENDING).
fn earliest_finish(i: u32, row: Acc) -> u32 {
    var acc = row;
    var tally = 0u;
    if PENDING {
        tally = apply_pending(i, earliest[i]);
    }
    let me = load_body(i);
    if me.w == 0.0 {
        acc = new_acc();
    } else {
        for (var k = 0u; k < params.n_planes; k++) {
            let tau = wall_event(me, planes[k], params.dt);
            if tau >= 0.0 {
                keep_earliest(&acc, tau, PLANE_EVENT | k, NO_EVENT);
            }
        }
    }
    earliest[i] = vec4<u32>(bitcast<u32>(acc.ev_tau), acc.ev_partner, acc.ev_count, acc.ev_entry);
    round_candidate(i, me, acc);
    return tally;
}

@compute @workgroup_size(WG)
fn earliest_from_pairs(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let g = row_group(wid);
    let r = row_share(g, lid);
    me_index = r.i;
    var acc = new_acc();
    if r.live && vel[r.i].w != 0.0 {
        for (var e = r.first; e < r.end; e += r.stride) {
            earliest_entry(&acc, e);
        }
    }
    if r.live {
        report_visits(ROW_PASS);
    }
    if !g.small {
        acc = reduce_row(lid, acc);
    }
    var tally = 0u;
    if row_writes(g, r, lid) {
        tally = earliest_finish(r.i, acc);
    }
    if PENDING {
        // integrate.wgsl's tally: the pending round's collisions, one atomic per work-group.
        let total = workgroup_sum_u32(tally);
        if lid == 0u && total > 0u {
            atomicAdd(&status.collisions, total);
        }
    }
}

// cpu::collide::sum_impulses of the final round, one row each (row_group): its row's responses,
// then the walls, then the projection onto the walls. (A matching round's sum is folded into
// earliest_from_pairs and impulse_pairs, above.)
fn sum_impulses_entry(acc: ptr<function, Acc>, e: u32, me: Body) {
    visits += 1u;
    let l = link[e];
    let owned = (l & OWNED) != 0u;
    if !owned && (l & NO_MIRROR) == NO_MIRROR {
        return;
    }
    let j = partner[e];
    let other = load_body(j);
    apply(acc, listed_response(e), me, other, me.w + other.w, owned);
}

fn sum_impulses_finish(i: u32, row: Acc, me: Body) {
    var acc = row;
    let k_me = f32(max(earliest[i].z, 1u));
    for (var k = 0u; k < params.n_planes; k++) {
        wall_contact(&acc, me, planes[k], k, false, k_me);
    }
    project_onto_walls(&acc, me);
    contact[i] = vec4<f32>(acc.dv, acc.energy);
    contact_dx[i] = vec4<f32>(acc.dx, acc.power);
    contact_counts[i] = vec4<u32>(acc.contacts, acc.collisions, 0u, 0u);
}

@compute @workgroup_size(WG)
fn sum_impulses(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let g = row_group(wid);
    let r = row_share(g, lid);
    me_index = r.i;
    var acc = new_acc();
    var me: Body;
    if r.live {
        me = load_body(r.i);
        for (var e = r.first; e < r.end; e += r.stride) {
            sum_impulses_entry(&acc, e, me);
        }
    }
    if r.live {
        report_visits(ROW_PASS);
    }
    if !g.small {
        acc = reduce_row(lid, acc);
    }
    if row_writes(g, r, lid) {
        sum_impulses_finish(r.i, acc, me);
    }
}
