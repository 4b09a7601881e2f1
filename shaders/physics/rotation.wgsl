// Rotation at a contact: spin slip, friction torque, rolling resistance (docs/physics.md §2.6,
// §2.7): twin of src/physics/rotation.rs, each function with the Rust name. Appended to
// collide.wgsl by src/gpu/pipelines.rs (`PHYSICS`); uses common.wgsl and the stage's `params`
// (`rolling`). `contact_arm` is in common.wgsl and `drift_orientation` in integrate.wgsl.

const ROLLING_DAMPING_RATIO: f32 = 0.3;  // physics::rotation::ROLLING_DAMPING_RATIO

// physics::rotation::spin_lever
fn spin_lever(arm_a: f32, omega_a: vec3<f32>, arm_b: f32, omega_b: vec3<f32>) -> vec3<f32> {
    return omega_a * arm_a + omega_b * arm_b;
}

// physics::rotation::add_spin_slip: v + n × s, each component a chain from the left.
fn add_spin_slip(v: vec3<f32>, n: vec3<f32>, s: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(v.x + n.y * s.z - n.z * s.y,
                     v.y + n.z * s.x - n.x * s.z,
                     v.z + n.x * s.y - n.y * s.x);
}

// physics::rotation::friction_torque
fn friction_torque(arm: f32, moment: vec3<f32>) -> vec3<f32> {
    return -(moment * arm);
}

// physics::rotation::rolling_spring's result.
struct RollingSpring {
    torque: vec3<f32>,
    spring: vec3<f32>,
    power: f32,
}

// physics::rotation::rolling_spring
fn rolling_spring(n: vec3<f32>, omega_a: vec3<f32>, omega_b: vec3<f32>, spring_old: vec3<f32>,
                  mu_r: f32, r_star: f32, normal_force: f32, normal_stiffness: f32,
                  inv_rolling_inertia: f32, dt: f32) -> RollingSpring {
    let relative = omega_a - omega_b;
    let roll = relative - n * dot3(n, relative);
    let k_r = 2.25 * normal_stiffness * mu_r * mu_r * r_star * r_star;
    let limit = mu_r * r_star * normal_force;
    let held = spring_old - n * dot3(n, spring_old);
    var spring = held - roll * (k_r * dt);
    let size2 = dot3(spring, spring);
    var torque = spring;
    if size2 > limit * limit {
        spring = spring * (limit / sqrt(size2));
        torque = spring;
    } else {
        let c_r = (2.0 * ROLLING_DAMPING_RATIO) * sqrt(k_r / inv_rolling_inertia);
        torque = spring - roll * c_r;
    }
    return RollingSpring(torque, spring, -dot3(torque, roll));
}

// physics::rotation::rolling_resistance (never called with ROLLING_NONE).
fn rolling_resistance(n: vec3<f32>, omega_a: vec3<f32>, omega_b: vec3<f32>, spring_old: vec3<f32>,
                      mu_r: f32, r_star: f32, normal_force: f32, normal_stiffness: f32,
                      inv_inertia_sum: f32, inv_rolling_inertia: f32, dt: f32) -> RollingSpring {
    if params.rolling == ROLLING_EPSD {
        return rolling_spring(n, omega_a, omega_b, spring_old, mu_r, r_star, normal_force,
                              normal_stiffness, inv_rolling_inertia, dt);
    }
    let t = rolling_torque(n, omega_a, omega_b, mu_r, r_star, normal_force, inv_inertia_sum, dt);
    return RollingSpring(t.xyz, vec3<f32>(0.0), t.w);
}

// physics::rotation::inverse_rolling_inertia
fn inverse_rolling_inertia(inv_inertia: f32, w: f32, r: f32) -> f32 {
    if w == 0.0 {
        return 0.0;
    }
    return 1.0 / (1.0 / inv_inertia + r * r / w);
}

// physics::rotation::rolling_torque: the torque on body a (N·m) | the power taken out (W).
fn rolling_torque(n: vec3<f32>, omega_a: vec3<f32>, omega_b: vec3<f32>, mu_r: f32, r_star: f32,
                  normal_force: f32, inv_inertia_sum: f32, dt: f32) -> vec4<f32> {
    let relative = omega_a - omega_b;
    let roll = relative - n * dot3(n, relative);
    let speed = sqrt(dot3(roll, roll));
    if speed == 0.0 {
        return vec4<f32>(0.0);
    }
    let limit = speed / (inv_inertia_sum * dt);
    let moment = min(mu_r * r_star * normal_force, limit);
    return vec4<f32>(roll * -(moment / speed), moment * speed);
}
