// Walls: the wall record, its kinds, and one function per operation that dispatches on the kind
// (twin of src/cpu/collide/walls/mod.rs). Each kind's geometry is in shaders/walls/<kind>.wgsl,
// twin of src/cpu/collide/walls/<kind>.rs. Appended to collide.wgsl (pipelines::WALLS).

// Wall kinds, the record's `kind` (setup::WallKind::code).
const WALL_PLANE: u32 = 0u;
const WALL_SPHERE_INSIDE: u32 = 1u;

// A wall record (src/gpu/buffers.rs: PlaneGpu; src/cpu/collide/bodies.rs: PlaneBody). Its kind
// says what point, normal and radius mean.
struct Plane {
    point: vec3<f32>,   // m; on the plane, or the container's centre
    e: f32,
    normal: vec3<f32>,  // into the domain (planes)
    zeta: f32,
    compliance: f32,    // (1 − ν²)/E, 1/Pa
    mu: f32,            // friction coefficient
    radius: f32,        // container's inner radius, m; 0 plane
    rolling_friction: f32, // μ_r
    velocity: vec3<f32>, // m/s, of the surface, in its plane (zero for a container)
    kind: u32,          // WALL_*
}

// cpu::collide::wall_gap's result: gap s (m) and the wall's normal n into the domain.
struct Gap {
    s: f32,
    n: vec3<f32>,
}

// cpu::collide::wall_gap
fn wall_gap(x: vec3<f32>, r: f32, wall: Plane) -> Gap {
    switch wall.kind {
        case WALL_SPHERE_INSIDE: {
            return sphere_inside_gap(x, r, wall);
        }
        case WALL_PLANE, default: {
            return plane_gap(x, r, wall);
        }
    }
}

// cpu::collide::wall_curvature
fn wall_curvature(wall: Plane) -> f32 {
    switch wall.kind {
        case WALL_SPHERE_INSIDE: {
            return sphere_inside_curvature(wall);
        }
        case WALL_PLANE, default: {
            return plane_curvature(wall);
        }
    }
}

// cpu::collide::wall_event; returns -1 for None.
fn wall_event(me: Body, wall: Plane, dt: f32) -> f32 {
    if me.w == 0.0 {
        return -1.0;
    }
    switch wall.kind {
        case WALL_SPHERE_INSIDE: {
            return sphere_inside_event(me, wall, dt);
        }
        case WALL_PLANE, default: {
            return plane_event(me, wall, dt);
        }
    }
}

// cpu::collide::wall_power
fn wall_power(force: vec3<f32>, wall: Plane) -> f32 {
    if all(wall.velocity == vec3<f32>(0.0)) {
        return 0.0;
    }
    return dot3(force, wall.velocity);
}

// cpu::collide::walls::approach_event; returns -1 for None.
fn approach_event(s1: f32, vn: f32, dt: f32) -> f32 {
    if vn >= 0.0 {
        return -1.0;
    }
    let s0 = s1 - vn * dt;
    if s0 > 0.0 {
        if s1 <= 0.0 {
            return plane_contact_fraction(s0, s1);
        }
        return -1.0;
    }
    return 0.0;
}
