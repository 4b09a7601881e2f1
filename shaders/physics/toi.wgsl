// Time of impact within a step (docs/physics.md §1): twin of src/physics/toi.rs, each function
// with the Rust name. Appended to collide.wgsl by src/gpu/pipelines.rs (`PHYSICS`); uses
// common.wgsl.

// physics::toi::contact_fraction; returns -1 for None.
fn contact_fraction(d0: vec3<f32>, delta: vec3<f32>, radius_sum: f32) -> f32 {
    let c = dot3(d0, d0) - radius_sum * radius_sum;
    let b = dot3(d0, delta);
    let a = dot3(delta, delta);
    if c <= 0.0 || b >= 0.0 || a == 0.0 {
        return -1.0;
    }
    let disc = b * b - a * c;
    if disc < 0.0 {
        return -1.0;
    }
    let tau = c / (-b + sqrt(disc));
    if tau <= 1.0 {
        return tau;
    }
    return -1.0;
}

// physics::toi::plane_contact_fraction
fn plane_contact_fraction(s0: f32, s1: f32) -> f32 {
    return min(s0 / (s0 - s1), 1.0);
}
