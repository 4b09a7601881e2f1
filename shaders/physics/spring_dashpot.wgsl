// The linear spring–dashpot normal force (docs/physics.md §2.1): twin of
// src/physics/spring_dashpot.rs, each function with the Rust name. Appended to collide.wgsl by
// src/gpu/pipelines.rs (`PHYSICS`).

// physics::spring_dashpot::dashpot_coefficient
fn dashpot_coefficient(zeta: f32, k_n: f32, inverse_mass_sum: f32) -> f32 {
    return 2.0 * zeta * sqrt(k_n / inverse_mass_sum);
}

// physics::spring_dashpot::normal_force
fn normal_force(k_n: f32, c_n: f32, overlap: f32, u_n: f32) -> f32 {
    if overlap <= 0.0 {
        return 0.0;
    }
    return max(k_n * overlap + c_n * u_n, 0.0);
}
