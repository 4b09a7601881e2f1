//! Stage `integrate`: kick–drift–kick leapfrog, applying contact impulses, the force sum.
//! Shader `shaders/integrate.wgsl`; CPU twin `src/cpu/integrate.rs`.

use super::stages::Stage;

/// Compiles `shaders/integrate.wgsl` and its entry points.
pub fn new(device: &wgpu::Device) -> Stage {
    Stage::new(
        device,
        "integrate",
        &[
            ("measure_speed", &[]),
            ("kick_drift", &[]),
            ("apply_contacts", &[]),
            ("accelerations", &[]),
            ("kick", &[]),
        ],
    )
}
