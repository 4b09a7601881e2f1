// The impulse law (docs/physics.md §1): twin of src/physics/impulse.rs, each function with the
// Rust name. Appended to collide.wgsl by src/gpu/pipelines.rs (`PHYSICS`); uses common.wgsl.

// physics::impulse::pair_restitution
fn pair_restitution(e_a: f32, e_b: f32) -> f32 {
    return min(e_a, e_b);
}

// physics::impulse::normal_impulse
fn normal_impulse(u_n: f32, e: f32, w_a: f32, w_b: f32) -> f32 {
    return (1.0 + e) * u_n / (w_a + w_b);
}

// physics::impulse::effective_restitution
fn effective_restitution(e: f32, u_n: f32, resting_speed: f32) -> f32 {
    if u_n < resting_speed {
        return 0.0;
    }
    return e;
}

// physics::impulse::plane_velocity_change
fn plane_velocity_change(v: vec3<f32>, n: vec3<f32>, e: f32) -> vec3<f32> {
    let vn = dot3(v, n);
    if vn < 0.0 {
        return n * (-(1.0 + e) * vn);
    }
    return vec3<f32>(0.0);
}

// physics::impulse::push_velocity_change
fn push_velocity_change(axis: vec3<f32>, dist: f32, v: vec3<f32>, push: f32) -> vec3<f32> {
    let v_r = dot3(v, axis);
    let v_perp = v - axis * v_r;
    let f = dist / (dist + push);
    let gain = (1.0 - f * f) * dot3(v_perp, v_perp);
    let speed = sqrt(v_r * v_r + gain);
    let v_r_new = select(speed, -speed, v_r < 0.0);
    return axis * (v_r_new - v_r) + v_perp * (f - 1.0);
}
