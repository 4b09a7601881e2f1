// Hertz contact with hysteresis damping (docs/physics.md §2.2): twin of src/physics/hertz.rs,
// each function with the Rust name. Appended to collide.wgsl by src/gpu/pipelines.rs (`PHYSICS`);
// uses common.wgsl (the `DAMPING_*` codes).

// physics::hertz::effective_modulus
fn effective_modulus(compliance_a: f32, compliance_b: f32) -> f32 {
    return 1.0 / (compliance_a + compliance_b);
}

// physics::hertz::effective_radius
fn effective_radius(curvature_a: f32, curvature_b: f32) -> f32 {
    return 1.0 / (curvature_a + curvature_b);
}

// physics::hertz::hertz_stiffness
fn hertz_stiffness(e_star: f32, r_star: f32) -> f32 {
    return (4.0 / 3.0) * e_star * sqrt(r_star);
}

// physics::hertz::impact_speed
fn impact_speed(u_n: f32, k0: f32, inverse_mass_sum: f32, overlap: f32) -> f32 {
    let d52 = overlap * overlap * sqrt(overlap);
    return sqrt(u_n * u_n + 0.8 * k0 * inverse_mass_sum * d52);
}

// physics::hertz::hysteresis_factor
fn hysteresis_factor(damping: u32, e: f32) -> f32 {
    if damping == DAMPING_HUNT_CROSSLEY {
        return 1.5 * (1.0 - e);
    }
    return 8.0 * (1.0 - e) / (5.0 * e);
}

// physics::hertz::hysteresis_force
fn hysteresis_force(k0: f32, overlap: f32, u_n: f32, factor: f32, impact: f32,
                    inverse_mass_sum: f32, dt: f32) -> f32 {
    if overlap <= 0.0 {
        return 0.0;
    }
    let elastic = k0 * overlap * sqrt(overlap);
    let c = min(factor * elastic / impact, 1.0 / (inverse_mass_sum * dt));
    return max(elastic + c * u_n, 0.0);
}

// physics::hertz::elastic_energy
fn elastic_energy(k0: f32, overlap: f32) -> f32 {
    if overlap <= 0.0 {
        return 0.0;
    }
    return 0.4 * k0 * overlap * overlap * sqrt(overlap);
}
