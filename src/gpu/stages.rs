//! The compiled stages of the step: each stage's own module (`src/gpu/<stage>.rs`) holds its
//! shader module and its pipelines as typed fields, so no pipeline is looked up by name.

use super::pipelines::{DIAGNOSTICS, Module, STAGES, source};

/// The WGSL of a shader file by stage name (`diagnostics` included).
pub fn shader(name: &str) -> &'static str {
    if name == "diagnostics" {
        return DIAGNOSTICS;
    }
    STAGES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| *s)
        .unwrap_or_else(|| panic!("no shader {name}"))
}

/// Compiles the shader file of stage `name`, with `shaders/common.wgsl` before it.
///
/// # Panics
/// When no shader has that name, or the shipped WGSL is invalid (the `shaders_validate` test
/// catches that first).
pub fn module(device: &wgpu::Device, name: &'static str) -> Module {
    Module::new(device, name, &source(shader(name)))
}

/// All stages of the step.
#[derive(Clone)]
pub struct Stages {
    /// [`super::integrate`].
    pub integrate: super::integrate::Integrate,
    /// [`super::cell_keys`].
    pub cell_keys: super::cell_keys::CellKeys,
    /// [`super::count`].
    pub count: super::count::Count,
    /// [`super::prefix_sum`].
    pub prefix_sum: super::prefix_sum::PrefixSum,
    /// [`super::scatter`]: place, rank.
    pub scatter: super::scatter::Scatter,
    /// [`super::scatter::Gather`].
    pub gather: super::scatter::Gather,
    /// [`super::neighbours`].
    pub neighbours: super::neighbours::Neighbours,
    /// [`super::collide`].
    pub collide: super::collide::Collide,
    /// [`super::gravity`].
    pub gravity: super::gravity::Gravity,
    /// [`super::diagnostics`].
    pub diagnostics: super::diagnostics::Diagnostics,
}

impl Stages {
    /// Compiles every stage; `fused_drift` as [`super::GpuOptions::fused_drift`].
    pub fn new(device: &wgpu::Device, fused_drift: bool) -> Self {
        Self {
            integrate: super::integrate::Integrate::new(device, fused_drift),
            cell_keys: super::cell_keys::CellKeys::new(device),
            count: super::count::Count::new(device),
            prefix_sum: super::prefix_sum::PrefixSum::new(device),
            scatter: super::scatter::Scatter::new(device),
            gather: super::scatter::Gather::new(device),
            neighbours: super::neighbours::Neighbours::new(device),
            collide: super::collide::Collide::new(device),
            gravity: super::gravity::Gravity::new(device),
            diagnostics: super::diagnostics::Diagnostics::new(device),
        }
    }
}
