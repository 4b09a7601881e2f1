// Planes as translucent quads (alpha-blended, depth-tested, no depth write), drawn after the
// spheres. Uniform layout: `Uniforms` in src/render/impostor.rs.

struct Uniforms {
    view_proj: mat4x4<f32>,
    eye: vec4<f32>,
    light_dir: vec4<f32>,
    colour_mode: u32,
    flat_shading: u32,
    speed_scale: f32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> u: Uniforms;

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) colour: vec4<f32>,
}

@vertex
fn vs_plane(@location(0) position: vec3<f32>, @location(1) colour: vec4<f32>) -> VsOut {
    var out: VsOut;
    out.clip = u.view_proj * vec4<f32>(position, 1.0);
    out.colour = colour;
    return out;
}

@fragment
fn fs_plane(in: VsOut) -> @location(0) vec4<f32> {
    return in.colour;
}
