// Stage `diagnostics`: energies and momenta by work-group reductions (no float atomics); the
// host adds the per-work-group partials in f64, in order. Twin of src/cpu/diagnostics.rs.

@group(0) @binding(0) var<storage, read> params: Params;
@group(0) @binding(1) var<storage, read> pos: array<vec4<f32>>;            // xyz, radius
@group(0) @binding(2) var<storage, read> vel: array<vec4<f32>>;            // xyz, inverse mass
@group(0) @binding(3) var<storage, read> acc: array<vec4<f32>>;            // w: mass
@group(0) @binding(4) var<storage, read> contact: array<vec4<f32>>;        // .w: spring energy
@group(0) @binding(5) var<storage, read> contact_counts: array<vec4<u32>>; // contacts, collisions, ...
@group(0) @binding(6) var<storage, read_write> partial_f: array<vec4<f32>>; // 3 per work-group
@group(0) @binding(7) var<storage, read_write> partial_u: array<vec2<u32>>; // 1 per work-group
@group(0) @binding(8) var<storage, read> dissipated: array<f32>;           // J, by input id

// kinetic, uniform-field potential, spring energy, dissipated; momentum xyz, Σ m|v|; angular
// momentum xyz
var<workgroup> sh_a: array<vec4<f32>, WG>;   // kinetic, potential, elastic, dissipated
var<workgroup> sh_p: array<vec4<f32>, WG>;   // momentum, Σ m|v|
var<workgroup> sh_l: array<vec4<f32>, WG>;   // angular momentum
var<workgroup> sh_c: array<vec2<u32>, WG>;   // contacts, collisions

@compute @workgroup_size(WG)
fn diagnostics(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let i = linear_index(gid, params.dispatch_x);
    var ea = vec4<f32>(0.0);
    var p = vec4<f32>(0.0);
    var l = vec4<f32>(0.0);
    var c = vec2<u32>(0u);
    if i < params.n {
        let v4 = vel[i];
        let x = pos[i].xyz;
        ea.z = contact[i].w;
        ea.w = dissipated[i];
        c = contact_counts[i].xy;
        if v4.w != 0.0 {
            let m = acc[i].w;
            let v = v4.xyz;
            ea.x = 0.5 * m * dot(v, v);
            ea.y = -m * dot(params.gravity, x);
            p = vec4<f32>(m * v, m * length(v));
            l = vec4<f32>(m * cross(x, v), 0.0);
        }
    }
    sh_a[lid] = ea;
    sh_p[lid] = p;
    sh_l[lid] = l;
    sh_c[lid] = c;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if lid < s {
            sh_a[lid] += sh_a[lid + s];
            sh_p[lid] += sh_p[lid + s];
            sh_l[lid] += sh_l[lid + s];
            sh_c[lid] += sh_c[lid + s];
        }
        workgroupBarrier();
    }
    if lid == 0u {
        let g = wid.x + wid.y * (params.dispatch_x / WG);
        partial_f[3u * g] = sh_a[0];
        partial_f[3u * g + 1u] = sh_p[0];
        partial_f[3u * g + 2u] = sh_l[0];
        partial_u[g] = sh_c[0];
    }
}
