// Sphere impostors: one camera-facing quad per sphere (6 vertices, instanced), ray–sphere
// intersection per fragment, depth of the hit point written through frag_depth.
// Uniform layout: `Uniforms` in src/render/impostor.rs. Sphere data: the simulation's state
// buffers (GPU backend, slot order) or per-frame uploads (CPU backend, input order).

struct Uniforms {
    view_proj: mat4x4<f32>,
    eye: vec4<f32>,          // camera position, m
    light_dir: vec4<f32>,    // unit vector towards the light
    colour_mode: u32,        // 0 material, 1 speed, 2 initial position
    flat_shading: u32,       // 1: no lighting (tests compare exact colours)
    speed_scale: f32,        // m/s mapped to the top of the speed ramp
    marking: u32,            // 1: draw each sphere's orientation marking (scenes with rotation)
}

// Per input id: colour by material and colour by initial position (linear RGB).
struct Info {
    material: vec4<f32>,
    initial: vec4<f32>,
}

@group(0) @binding(0) var<uniform> u: Uniforms;
@group(1) @binding(0) var<storage, read> pos: array<vec4<f32>>;   // xyz m, w radius m
@group(1) @binding(1) var<storage, read> vel: array<vec4<f32>>;   // xyz m/s, w 1/mass
@group(1) @binding(2) var<storage, read> ids: array<u32>;         // input id of each slot
@group(1) @binding(3) var<storage, read> info: array<Info>;       // indexed by input id
// Rotation state, 3 vec4 a slot (integrate.wgsl's `rot`): the orientation quaternion (x, y, z, w)
// is the second; a 16-byte stand-in without rotation (marking 0).
@group(1) @binding(4) var<storage, read> rot: array<vec4<f32>>;

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) @interpolate(flat) sphere: vec4<f32>,
    @location(2) @interpolate(flat) colour: vec3<f32>,
    @location(3) @interpolate(flat) orientation: vec4<f32>,
}

// The marking: a dark great circle about the body's x axis (|n·x| < MARK_BAND) and a dark cap
// about its y axis (n·y > MARK_CAP), in the body frame, so that both spin and rolling show.
const MARK_BAND: f32 = 0.1;
const MARK_CAP: f32 = 0.92;
const MARK_SHADE: f32 = 0.3;

// v rotated by the conjugate of the unit quaternion q: world to body frame.
fn to_body(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let u = -q.xyz;
    let t = 2.0 * cross(u, v);
    return v + q.w * t + cross(u, t);
}

// Mirrors `render::colour::speed_colour`: blue → cyan → yellow → red over t in [0, 1].
fn speed_colour(t_in: f32) -> vec3<f32> {
    let t = clamp(t_in, 0.0, 1.0);
    let a = vec3<f32>(0.05, 0.15, 0.8);
    let b = vec3<f32>(0.0, 0.7, 0.8);
    let c = vec3<f32>(0.95, 0.85, 0.1);
    let d = vec3<f32>(0.9, 0.1, 0.05);
    if t < 1.0 / 3.0 {
        return mix(a, b, t * 3.0);
    } else if t < 2.0 / 3.0 {
        return mix(b, c, t * 3.0 - 1.0);
    }
    return mix(c, d, t * 3.0 - 2.0);
}

@vertex
fn vs_sphere(@builtin(vertex_index) vi: u32, @builtin(instance_index) slot: u32) -> VsOut {
    var out: VsOut;
    let p = pos[slot];
    let centre = p.xyz;
    let r = p.w;
    let to_eye = u.eye.xyz - centre;
    let d = length(to_eye);
    if d <= r * 1.0001 {
        // Camera inside the sphere: drop it (a vertex outside the clip volume).
        out.clip = vec4<f32>(0.0, 0.0, -2.0, 1.0);
        return out;
    }
    let f = to_eye / d;
    let up0 = select(vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(1.0, 0.0, 0.0), abs(f.y) > 0.99);
    let right = normalize(cross(up0, f));
    let up = cross(f, right);
    // The silhouette cone (half-angle asin(r/d)) cuts the plane through the centre in a circle
    // of radius r d / sqrt(d² − r²): the quad's half-size.
    let s = r * d / sqrt(d * d - r * r);
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    let k = corners[vi];
    let world = centre + (k.x * right + k.y * up) * s;
    out.clip = u.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    out.sphere = p;
    out.orientation = vec4<f32>(0.0, 0.0, 0.0, 1.0);
    if u.marking == 1u {
        out.orientation = rot[3u * slot + 1u];
    }
    let id = ids[slot];
    switch u.colour_mode {
        case 0u: { out.colour = info[id].material.rgb; }
        case 1u: { out.colour = speed_colour(length(vel[slot].xyz) / u.speed_scale); }
        default: { out.colour = info[id].initial.rgb; }
    }
    return out;
}

struct FsOut {
    @location(0) colour: vec4<f32>,
    @builtin(frag_depth) depth: f32,
}

@fragment
fn fs_sphere(in: VsOut) -> FsOut {
    let centre = in.sphere.xyz;
    let r = in.sphere.w;
    let ro = u.eye.xyz;
    let rd = normalize(in.world - ro);
    // Ray–sphere intersection in the form that keeps f32 precision when r ≪ |ro − centre|:
    // h = r² − |q|², q the offset of the centre from the ray.
    let oc = ro - centre;
    let b = dot(oc, rd);
    let q = oc - b * rd;
    let h = r * r - dot(q, q);
    if h < 0.0 {
        discard;
    }
    let t = -b - sqrt(h);
    let hit = ro + t * rd;
    let n = normalize(hit - centre);
    let clip = u.view_proj * vec4<f32>(hit, 1.0);
    var out: FsOut;
    out.depth = clip.z / clip.w;
    var colour = in.colour;
    if u.marking == 1u {
        let nb = to_body(in.orientation, n);
        if abs(nb.x) < MARK_BAND || nb.y > MARK_CAP {
            colour = colour * MARK_SHADE;
        }
    }
    if u.flat_shading == 1u {
        out.colour = vec4<f32>(colour, 1.0);
        return out;
    }
    let l = u.light_dir.xyz;
    let diffuse = max(dot(n, l), 0.0);
    let hv = normalize(l - rd);
    let spec = pow(max(dot(n, hv), 0.0), 48.0) * 0.25;
    let lit = colour * (0.22 + 0.78 * diffuse) + vec3<f32>(spec);
    out.colour = vec4<f32>(lit, 1.0);
    return out;
}
