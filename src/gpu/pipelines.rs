//! Shader modules, their bind group layouts and compute pipelines.
//!
//! WGSL has no includes: every stage's source is `shaders/common.wgsl` followed by the stage file,
//! and for `collide` the physics files of `shaders/physics/` ([`PHYSICS`]) and the walls'
//! ([`WALLS`]) after it.
//! Each module gets one bind group layout, derived from its declared bindings by naga reflection
//! (uniform or storage, read-only or read-write), shared by all its entry points. Buffers are
//! bound by the WGSL variable's name ([`Module::bind`]); binding numbers appear only in WGSL.

/// `shaders/common.wgsl`.
pub const COMMON: &str = include_str!("../../shaders/common.wgsl");

/// The WGSL twins of `src/physics/` (`shaders/physics/<module>.wgsl`, one per Rust module), as one
/// text; a macro so that `concat!` can append it to the stages that call them (WGSL declarations
/// may come in any order).
macro_rules! physics_wgsl {
    () => {
        concat!(
            include_str!("../../shaders/physics/impulse.wgsl"),
            "\n",
            include_str!("../../shaders/physics/toi.wgsl"),
            "\n",
            include_str!("../../shaders/physics/spring_dashpot.wgsl"),
            "\n",
            include_str!("../../shaders/physics/hertz.wgsl"),
            "\n",
            include_str!("../../shaders/physics/friction.wgsl"),
            "\n",
            include_str!("../../shaders/physics/rotation.wgsl")
        )
    };
}

/// `shaders/physics/*.wgsl`, as appended to `collide.wgsl` in [`STAGES`].
pub const PHYSICS: &str = physics_wgsl!();

/// The walls' WGSL (twin of `src/cpu/collide/walls/`): `shaders/walls.wgsl` (the record, the
/// kind codes and the per-operation dispatch), then one `shaders/walls/<kind>.wgsl` per wall
/// kind; a macro for `concat!`, as [`PHYSICS`].
macro_rules! walls_wgsl {
    () => {
        concat!(
            include_str!("../../shaders/walls.wgsl"),
            "\n",
            include_str!("../../shaders/walls/plane.wgsl"),
            "\n",
            include_str!("../../shaders/walls/sphere_inside.wgsl")
        )
    };
}

/// `shaders/walls.wgsl` and `shaders/walls/*.wgsl`, as appended to `collide.wgsl` in [`STAGES`].
pub const WALLS: &str = walls_wgsl!();

/// Every stage file, by name (the names of `src/cpu/` and `src/gpu/` modules).
/// `integrate` is `integrate.wgsl` followed by `check.wgsl`, whose check and collision tally run
/// inside the integrate stage's fused passes; `collide` is `collide.wgsl` followed by
/// `work.wgsl` (the work counters, which `neighbours` appends too), [`PHYSICS`] and [`WALLS`].
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
    (
        "neighbours",
        concat!(
            include_str!("../../shaders/neighbours.wgsl"),
            "\n",
            include_str!("../../shaders/work.wgsl")
        ),
    ),
    (
        "collide",
        concat!(
            include_str!("../../shaders/collide.wgsl"),
            "\n",
            include_str!("../../shaders/work.wgsl"),
            "\n",
            physics_wgsl!(),
            "\n",
            walls_wgsl!()
        ),
    ),
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
    analyse(name, src).map(|(module, _)| module)
}

/// [`validate`], keeping naga's analysis (which globals each entry point uses).
///
/// # Errors
/// As [`validate`].
pub fn analyse(name: &str, src: &str) -> Result<(naga::Module, naga::valid::ModuleInfo), String> {
    let module = naga::front::wgsl::parse_str(src)
        .map_err(|e| format!("shader {name}: {}", e.emit_to_string(src)))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| format!("shader {name}: {}", e.emit_to_string(src)))?;
    Ok((module, info))
}

/// One buffer a shader declares in group 0, found by naga reflection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The WGSL variable's name: the name a stage's `bind` gives its buffer.
    pub name: String,
    /// `@binding(N)`, as written in the shader (never written in Rust).
    pub binding: u32,
    /// Uniform or storage, read-only or read-write, from the declaration.
    pub ty: wgpu::BufferBindingType,
}

/// The group-0 buffers of `module`, by binding number; `shader` names it in panics.
///
/// # Panics
/// When a variable is bound in another group or has no name (the shipped shaders use group 0
/// only; the renderer's `impostor.wgsl` is not built through here).
pub fn reflect(shader: &str, module: &naga::Module) -> Vec<Binding> {
    let mut out: Vec<Binding> = module
        .global_variables
        .iter()
        .filter_map(|(_, var)| {
            let binding = var.binding.as_ref()?;
            assert_eq!(binding.group, 0, "shader {shader}: only group 0 is used");
            let ty = match var.space {
                naga::AddressSpace::Uniform => wgpu::BufferBindingType::Uniform,
                naga::AddressSpace::Storage { access } => wgpu::BufferBindingType::Storage {
                    read_only: !access.contains(naga::StorageAccess::STORE),
                },
                _ => return None,
            };
            let name = var.name.clone().unwrap_or_else(|| {
                panic!("shader {shader}: binding {} has no name", binding.binding)
            });
            Some(Binding {
                name,
                binding: binding.binding,
                ty,
            })
        })
        .collect();
    out.sort_by_key(|b| b.binding);
    out
}

/// Matches the buffer names a stage offers to the variables `shader` declares: for each of
/// `declared`, in order, the index of its buffer in `offered`.
///
/// # Errors
/// The slice must name every declared variable exactly once and nothing else: a message naming
/// the shader and each variable left without a buffer (with the names offered), each name the
/// shader does not declare (with the shader's variables) and each name offered twice.
pub fn match_names(
    shader: &str,
    declared: &[Binding],
    offered: &[&str],
) -> Result<Vec<usize>, String> {
    let mut problems = Vec::new();
    for (i, name) in offered.iter().enumerate() {
        if offered[..i].contains(name) {
            problems.push(format!("`{name}` is offered twice"));
        } else if !declared.iter().any(|d| d.name == *name) {
            let vars: Vec<&str> = declared.iter().map(|d| d.name.as_str()).collect();
            problems.push(format!(
                "`{name}` is offered but not declared (its variables: {})",
                vars.join(", ")
            ));
        }
    }
    let mut index = Vec::with_capacity(declared.len());
    for d in declared {
        match offered.iter().position(|o| *o == d.name) {
            Some(i) => index.push(i),
            None => problems.push(format!(
                "variable `{}` has no buffer (offered: {})",
                d.name,
                offered.join(", ")
            )),
        }
    }
    if problems.is_empty() {
        Ok(index)
    } else {
        Err(format!("shader {shader}: {}", problems.join("; ")))
    }
}

/// A compiled shader module with its bind group layout.
#[derive(Clone)]
pub struct Module {
    /// Name, for labels and errors.
    pub name: &'static str,
    module: wgpu::ShaderModule,
    layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
    /// The buffers the module declares (group 0), by binding number.
    pub bindings: Vec<Binding>,
    /// The buffers each entry point uses, by entry point name (`traffic::entry_uses`).
    uses: std::collections::HashMap<String, Vec<super::traffic::Use>>,
}

impl Module {
    /// Compiles `src` (complete source) and derives its layout.
    ///
    /// # Panics
    /// When the shipped WGSL is invalid: the `shaders_validate` test catches that first.
    pub fn new(device: &wgpu::Device, name: &'static str, src: &str) -> Self {
        let (parsed, info) = analyse(name, src).unwrap_or_else(|e| panic!("{e}"));
        let bindings = reflect(name, &parsed);
        let uses = super::traffic::entry_uses(&parsed, &info);
        let layout_entries: Vec<_> = bindings
            .iter()
            .map(|b| wgpu::BindGroupLayoutEntry {
                binding: b.binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: b.ty,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
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
            bindings,
            uses,
        }
    }

    /// The compute pipeline of entry point `entry`, with pipeline-overridable constants;
    /// registered with the buffers the entry point uses (`traffic`).
    pub fn pipeline(
        &self,
        device: &wgpu::Device,
        entry: &str,
        constants: &[(&str, f64)],
    ) -> wgpu::ComputePipeline {
        let label = format!("{}::{entry}", self.name);
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(&label),
            layout: Some(&self.pipeline_layout),
            module: &self.module,
            entry_point: Some(entry),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants,
                ..Default::default()
            },
            cache: None,
        });
        let uses = self.uses.get(entry).cloned().unwrap_or_default();
        super::traffic::register_pipeline(&pipeline, uses);
        pipeline
    }

    /// A bind group giving each declared variable the buffer offered under its WGSL name.
    /// Binding numbers stay in the shader: a buffer may carry a different number in each.
    /// The slice is exact for this module; there is no form that ignores extra names, so no
    /// slice is shared between modules. Registered with each buffer's size (`traffic`).
    ///
    /// # Panics
    /// When the names do not match the declarations ([`match_names`]): a program error, at
    /// set-up, naming the shader and the variables.
    pub fn bind(
        &self,
        device: &wgpu::Device,
        buffers: &[(&str, &wgpu::Buffer)],
    ) -> wgpu::BindGroup {
        let names: Vec<&str> = buffers.iter().map(|(n, _)| *n).collect();
        let index =
            match_names(self.name, &self.bindings, &names).unwrap_or_else(|e| panic!("{e}"));
        let entries: Vec<wgpu::BindGroupEntry> = self
            .bindings
            .iter()
            .zip(&index)
            .map(|(b, &i)| wgpu::BindGroupEntry {
                binding: b.binding,
                resource: buffers[i].1.as_entire_binding(),
            })
            .collect();
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(self.name),
            layout: &self.layout,
            entries: &entries,
        });
        let sizes = self
            .bindings
            .iter()
            .zip(&index)
            .map(|(b, &i)| (b.binding, buffers[i].1.size()))
            .collect();
        super::traffic::register_group(&group, sizes);
        group
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHADER: &str = "
        @group(0) @binding(0) var<uniform> params: vec4<f32>;
        @group(0) @binding(3) var<storage, read> pos: array<vec4<f32>>;
        @group(0) @binding(1) var<storage, read_write> vel: array<vec4<f32>>;
        @compute @workgroup_size(1) fn main() { vel[0] = pos[0] + params; }
    ";

    fn declared() -> Vec<Binding> {
        reflect("test", &validate("test", SHADER).unwrap())
    }

    #[test]
    fn reflection_reads_names_numbers_and_access() {
        let d = declared();
        let got: Vec<(&str, u32)> = d.iter().map(|b| (b.name.as_str(), b.binding)).collect();
        assert_eq!(got, [("params", 0), ("vel", 1), ("pos", 3)]);
        assert_eq!(d[0].ty, wgpu::BufferBindingType::Uniform);
        assert_eq!(
            d[1].ty,
            wgpu::BufferBindingType::Storage { read_only: false }
        );
        assert_eq!(
            d[2].ty,
            wgpu::BufferBindingType::Storage { read_only: true }
        );
    }

    #[test]
    fn names_match_in_any_order() {
        let index = match_names("test", &declared(), &["pos", "vel", "params"]).unwrap();
        assert_eq!(index, [2, 1, 0]);
    }

    #[test]
    fn a_missing_name_is_refused_with_both_names() {
        let e = match_names("test", &declared(), &["params", "pos"]).unwrap_err();
        assert!(e.starts_with("shader test:"), "{e}");
        assert!(e.contains("variable `vel` has no buffer"), "{e}");
        assert!(e.contains("offered: params, pos"), "{e}");
    }

    #[test]
    fn a_wrong_name_is_refused_with_both_names() {
        let e = match_names("test", &declared(), &["params", "pos", "velocity"]).unwrap_err();
        assert!(e.starts_with("shader test:"), "{e}");
        assert!(e.contains("`velocity` is offered but not declared"), "{e}");
        assert!(e.contains("its variables: params, vel, pos"), "{e}");
        assert!(e.contains("variable `vel` has no buffer"), "{e}");
    }

    #[test]
    fn a_name_offered_twice_is_refused() {
        let e = match_names("test", &declared(), &["params", "pos", "vel", "pos"]).unwrap_err();
        assert!(e.contains("`pos` is offered twice"), "{e}");
    }

    #[test]
    fn shipped_stages_declare_named_group_zero_buffers() {
        for (name, stage) in STAGES.iter().chain([&("diagnostics", DIAGNOSTICS)]) {
            let d = reflect(name, &validate(name, &source(stage)).unwrap());
            assert!(!d.is_empty(), "shader {name} declares no buffers");
        }
    }
}
