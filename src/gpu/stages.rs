//! Compiled pipelines of every stage; each stage's own module (`src/gpu/<stage>.rs`) says which
//! entry points and constants it uses.

use super::pipelines::{DIAGNOSTICS, Module, STAGES, source};

/// One shader module and the pipelines of its entry points (named variants for overridden
/// constants).
pub struct Stage {
    /// Module (layout and bind groups).
    pub module: Module,
    pipelines: Vec<(&'static str, wgpu::ComputePipeline)>,
}

/// The WGSL of a shader file by stage name (`diagnostics` included).
fn shader(name: &str) -> &'static str {
    if name == "diagnostics" {
        return DIAGNOSTICS;
    }
    STAGES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| *s)
        .unwrap_or_else(|| panic!("no shader {name}"))
}

impl Stage {
    /// Compiles shader `name` (with common.wgsl) and one pipeline per `(variant, constants)`;
    /// a variant is the entry point's name, or the entry point of the same shader file with
    /// overridable constants set (`sum_impulses_final` is `sum_impulses` with `FINAL = true`).
    pub fn new(
        device: &wgpu::Device,
        name: &'static str,
        variants: &[(&'static str, &[(&str, f64)])],
    ) -> Self {
        let module = Module::new(device, name, &source(shader(name)));
        let pipelines = variants
            .iter()
            .map(|(variant, constants)| {
                let entry = entry_of(variant);
                (*variant, module.pipeline(device, entry, constants))
            })
            .collect();
        Self { module, pipelines }
    }

    /// The pipeline of `variant`.
    pub fn pipeline(&self, variant: &str) -> &wgpu::ComputePipeline {
        &self
            .pipelines
            .iter()
            .find(|(e, _)| *e == variant)
            .unwrap_or_else(|| panic!("stage {}: no pipeline {variant}", self.module.name))
            .1
    }
}

/// Entry point of a pipeline variant: variants with overridden constants are named
/// `<entry>_<suffix>`.
pub fn entry_of(variant: &str) -> &str {
    match variant {
        "impulse_pairs_binary" | "impulse_pairs_final" => "impulse_pairs",
        "sum_impulses_matching" | "sum_impulses_final" => "sum_impulses",
        "gravity_potential" => "gravity",
        "copy_state" => "gather",
        v => v,
    }
}

/// All stages of the step.
pub struct Stages {
    /// [`super::integrate`].
    pub integrate: Stage,
    /// [`super::cell_keys`].
    pub cell_keys: Stage,
    /// [`super::count`].
    pub count: Stage,
    /// [`super::prefix_sum`].
    pub prefix_sum: Stage,
    /// [`super::scatter`]: place, rank.
    pub scatter: Stage,
    /// [`super::scatter::gather`].
    pub gather: Stage,
    /// [`super::neighbours`].
    pub neighbours: Stage,
    /// [`super::collide`].
    pub collide: Stage,
    /// [`super::gravity`].
    pub gravity: Stage,
    /// [`super::diagnostics::check`].
    pub check: Stage,
    /// [`super::diagnostics`].
    pub diagnostics: Stage,
}

impl Stages {
    /// Compiles every stage.
    pub fn new(device: &wgpu::Device) -> Self {
        Self {
            integrate: super::integrate::new(device),
            cell_keys: super::cell_keys::new(device),
            count: super::count::new(device),
            prefix_sum: super::prefix_sum::new(device),
            scatter: super::scatter::new(device),
            gather: super::scatter::gather(device),
            neighbours: super::neighbours::new(device),
            collide: super::collide::new(device),
            gravity: super::gravity::new(device),
            check: super::diagnostics::check(device),
            diagnostics: super::diagnostics::new(device),
        }
    }
}
