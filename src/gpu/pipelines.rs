//! Shader modules, their bind group layouts and compute pipelines.
//!
//! WGSL has no includes: every stage's source is `shaders/common.wgsl` followed by the stage file.
//! Each module gets one bind group layout, derived from its declared bindings by naga reflection
//! (uniform or storage, read-only or read-write), shared by all its entry points.

use std::collections::BTreeMap;

/// `shaders/common.wgsl`.
pub const COMMON: &str = include_str!("../../shaders/common.wgsl");

/// Every stage file, by name (the names of `src/cpu/` and `src/gpu/` modules).
/// `integrate` is `integrate.wgsl` followed by `check.wgsl`, whose check and collision tally run
/// inside the integrate stage's fused passes.
pub const STAGES: [(&str, &str); 15] = [
    (
        "integrate",
        concat!(
            include_str!("../../shaders/integrate.wgsl"),
            "\n",
            include_str!("../../shaders/check.wgsl")
        ),
    ),
    ("cell_keys", include_str!("../../shaders/cell_keys.wgsl")),
    ("count", include_str!("../../shaders/count.wgsl")),
    ("prefix_sum", include_str!("../../shaders/prefix_sum.wgsl")),
    ("scatter", include_str!("../../shaders/scatter.wgsl")),
    ("gather", include_str!("../../shaders/gather.wgsl")),
    ("neighbours", include_str!("../../shaders/neighbours.wgsl")),
    ("collide", include_str!("../../shaders/collide.wgsl")),
    ("gravity", include_str!("../../shaders/gravity.wgsl")),
    (
        "tree_bounds",
        include_str!("../../shaders/tree_bounds.wgsl"),
    ),
    ("morton", include_str!("../../shaders/morton.wgsl")),
    ("radix_sort", include_str!("../../shaders/radix_sort.wgsl")),
    ("karras", include_str!("../../shaders/karras.wgsl")),
    (
        "tree_moments",
        include_str!("../../shaders/tree_moments.wgsl"),
    ),
    ("tree_walk", include_str!("../../shaders/tree_walk.wgsl")),
];

/// `shaders/diagnostics.wgsl` (kept apart: STAGES is the step).
pub const DIAGNOSTICS: &str = include_str!("../../shaders/diagnostics.wgsl");

/// The complete source of a stage: common declarations, then the stage.
pub fn source(stage: &str) -> String {
    format!("{COMMON}\n{stage}")
}

/// Parses and validates WGSL with naga; the error names the stage and the problem.
pub fn validate(name: &str, src: &str) -> Result<naga::Module, String> {
    let module = naga::front::wgsl::parse_str(src)
        .map_err(|e| format!("shader {name}: {}", e.emit_to_string(src)))?;
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| format!("shader {name}: {}", e.emit_to_string(src)))?;
    Ok(module)
}

/// A compiled shader module with its bind group layout.
pub struct Module {
    /// Name, for labels and errors.
    pub name: &'static str,
    module: wgpu::ShaderModule,
    layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
    /// Binding numbers the module declares (group 0).
    pub bindings: Vec<u32>,
}

impl Module {
    /// Compiles `src` (complete source) and derives its layout.
    ///
    /// # Panics
    /// When the shipped WGSL is invalid: the `shaders_validate` test catches that first.
    pub fn new(device: &wgpu::Device, name: &'static str, src: &str) -> Self {
        let parsed = validate(name, src).unwrap_or_else(|e| panic!("{e}"));
        let mut entries = BTreeMap::new();
        for (_, var) in parsed.global_variables.iter() {
            let Some(binding) = &var.binding else {
                continue;
            };
            assert_eq!(binding.group, 0, "shader {name}: only group 0 is used");
            let ty = match var.space {
                naga::AddressSpace::Uniform => wgpu::BufferBindingType::Uniform,
                naga::AddressSpace::Storage { access } => wgpu::BufferBindingType::Storage {
                    read_only: !access.contains(naga::StorageAccess::STORE),
                },
                _ => continue,
            };
            entries.insert(
                binding.binding,
                wgpu::BindGroupLayoutEntry {
                    binding: binding.binding,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            );
        }
        let layout_entries: Vec<_> = entries.values().cloned().collect();
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(name),
            entries: &layout_entries,
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(name),
            bind_group_layouts: &[Some(&layout)],
            ..Default::default()
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(name),
            source: wgpu::ShaderSource::Wgsl(src.into()),
        });
        Self {
            name,
            module,
            layout,
            pipeline_layout,
            bindings: entries.keys().copied().collect(),
        }
    }

    /// The compute pipeline of entry point `entry`, with pipeline-overridable constants.
    pub fn pipeline(
        &self,
        device: &wgpu::Device,
        entry: &str,
        constants: &[(&str, f64)],
    ) -> wgpu::ComputePipeline {
        let label = format!("{}::{entry}", self.name);
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(&label),
            layout: Some(&self.pipeline_layout),
            module: &self.module,
            entry_point: Some(entry),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants,
                ..Default::default()
            },
            cache: None,
        })
    }

    /// A bind group giving every declared binding its buffer.
    ///
    /// # Panics
    /// When a declared binding has no buffer (a driver bug, caught by the GPU tests).
    pub fn bind(&self, device: &wgpu::Device, buffers: &[(u32, &wgpu::Buffer)]) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry> = self
            .bindings
            .iter()
            .map(|b| {
                let buf = buffers
                    .iter()
                    .find(|(n, _)| n == b)
                    .unwrap_or_else(|| panic!("shader {}: no buffer for binding {b}", self.name))
                    .1;
                wgpu::BindGroupEntry {
                    binding: *b,
                    resource: buf.as_entire_binding(),
                }
            })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(self.name),
            layout: &self.layout,
            entries: &entries,
        })
    }
}
