//! Stage `diagnostics`: work-group reductions of energies and momenta; the end-of-step check and collision tally.
//! Shader `shaders/diagnostics.wgsl` and `check.wgsl`; CPU twin `src/cpu/diagnostics.rs`.

use super::stages::Stage;

/// Stage `diagnostics`, `shaders/diagnostics.wgsl`.
pub fn new(device: &wgpu::Device) -> Stage {
    Stage::new(device, "diagnostics", &[("diagnostics", &[])])
}

/// The end of a step, `shaders/check.wgsl`: `tally` (collisions of a contact round) and `check`
/// (the first non-finite sphere).
pub fn check(device: &wgpu::Device) -> Stage {
    Stage::new(device, "check", &[("tally", &[]), ("check", &[])])
}
