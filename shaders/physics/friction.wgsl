// Coulomb friction with a tangential spring (docs/physics.md §2.3): twin of
// src/physics/friction.rs, each function with the Rust name. Appended to collide.wgsl by
// src/gpu/pipelines.rs (`PHYSICS`); uses common.wgsl.

const TANGENTIAL_STIFFNESS_RATIO: f32 = 0.2857142857;  // physics::friction::TANGENTIAL_STIFFNESS_RATIO (2/7)

// physics::friction::pair_friction
fn pair_friction(mu_a: f32, mu_b: f32) -> f32 {
    return min(mu_a, mu_b);
}

// physics::friction::Tangential
struct Tangential {
    force: vec3<f32>,
    xi: vec3<f32>,
    energy: f32,
    power: f32,
}

// physics::friction::tangential_spring
fn tangential_spring(xi_old: vec3<f32>, n: vec3<f32>, v_t: vec3<f32>, k_t: f32, k_t_old: f32,
                     c_t: f32, f_n: f32, mu: f32, dt: f32) -> Tangential {
    let cap = mu * f_n;
    if cap <= 0.0 || k_t <= 0.0 {
        return Tangential(vec3<f32>(0.0), vec3<f32>(0.0), 0.0, 0.0);
    }
    let xi_tangent = xi_old - n * dot3(xi_old, n);
    let energy_old = 0.5 * k_t_old * dot3(xi_tangent, xi_tangent);
    var xi = xi_tangent + v_t * dt;
    var force = -(xi * k_t) - v_t * c_t;
    let f2 = dot3(force, force);
    if f2 > cap * cap {
        force = force * (cap / sqrt(f2));
        xi = -(force + v_t * c_t) / k_t;
    }
    let energy = 0.5 * k_t * dot3(xi, xi);
    let power = -dot3(force, v_t) - (energy - energy_old) / dt;
    return Tangential(force, xi, energy, power);
}
