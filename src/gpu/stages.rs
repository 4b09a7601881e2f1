//! The compute pipelines of every stage, by the stage names of `src/cpu/` and `shaders/`.

use super::pipelines::{DIAGNOSTICS, Module, STAGES, source};

/// One stage's module and its entry points' pipelines.
pub struct Stage {
    /// Module (layout and bind groups).
    pub module: Module,
    pipelines: Vec<(&'static str, wgpu::ComputePipeline)>,
}

impl Stage {
    fn new(
        device: &wgpu::Device,
        name: &'static str,
        src: &str,
        entries: &[(&'static str, &[(&str, f64)])],
    ) -> Self {
        let module = Module::new(device, name, &source(src));
        let pipelines = entries
            .iter()
            .map(|(e, c)| (*e, module.pipeline(device, e, c)))
            .collect();
        Self { module, pipelines }
    }

    /// The pipeline of entry point `entry` (a variant name for overridden constants).
    pub fn pipeline(&self, entry: &str) -> &wgpu::ComputePipeline {
        &self
            .pipelines
            .iter()
            .find(|(e, _)| *e == entry)
            .unwrap_or_else(|| panic!("stage {}: no entry point {entry}", self.module.name))
            .1
    }
}

fn src(name: &str) -> &'static str {
    STAGES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| *s)
        .unwrap_or_else(|| panic!("no shader {name}"))
}

/// All stages of the step.
pub struct Stages {
    /// `integrate.wgsl`: measure_speed, kick_drift, apply_contacts, accelerations, kick.
    pub integrate: Stage,
    /// `cell_keys.wgsl`: grid_params, cell_keys.
    pub cell_keys: Stage,
    /// `count.wgsl`.
    pub count: Stage,
    /// `prefix_sum.wgsl`: reduce, scan_blocks.
    pub prefix_sum: Stage,
    /// `scatter.wgsl`: place, rank.
    pub scatter: Stage,
    /// `gather.wgsl`.
    pub gather: Stage,
    /// `collide.wgsl`: earliest_events, collide_matching and collide_final (override FINAL).
    pub collide: Stage,
    /// `gravity.wgsl`: gravity, and `gravity_potential` (WITH_POTENTIAL).
    pub gravity: Stage,
    /// `check.wgsl`.
    pub check: Stage,
    /// `diagnostics.wgsl`.
    pub diagnostics: Stage,
}

impl Stages {
    /// Compiles every stage.
    pub fn new(device: &wgpu::Device) -> Self {
        let none: &[(&str, f64)] = &[];
        let with_potential: &[(&str, f64)] = &[("WITH_POTENTIAL", 1.0)];
        // A gravity module with the potential needs its own pipeline; entry names label them.
        let gravity = {
            let module = Module::new(device, "gravity", &source(src("gravity")));
            let plain = module.pipeline(device, "gravity", none);
            let potential = module.pipeline(device, "gravity", with_potential);
            Stage {
                module,
                pipelines: vec![("gravity", plain), ("gravity_potential", potential)],
            }
        };
        Self {
            integrate: Stage::new(
                device,
                "integrate",
                src("integrate"),
                &[
                    ("measure_speed", none),
                    ("kick_drift", none),
                    ("apply_contacts", none),
                    ("accelerations", none),
                    ("kick", none),
                ],
            ),
            cell_keys: Stage::new(
                device,
                "cell_keys",
                src("cell_keys"),
                &[
                    ("grid_params", none),
                    ("cell_keys", none),
                    ("bin_cells", none),
                ],
            ),
            count: Stage::new(device, "count", src("count"), &[("count", none)]),
            prefix_sum: Stage::new(
                device,
                "prefix_sum",
                src("prefix_sum"),
                &[("reduce", none), ("scan_blocks", none)],
            ),
            scatter: Stage::new(
                device,
                "scatter",
                src("scatter"),
                &[("place", none), ("rank", none)],
            ),
            gather: Stage::new(device, "gather", src("gather"), &[("gather", none)]),
            collide: {
                let module = Module::new(device, "collide", &source(src("collide")));
                let earliest = module.pipeline(device, "earliest_events", none);
                let matching = module.pipeline(device, "collide", &[("FINAL", 0.0)]);
                let last = module.pipeline(device, "collide", &[("FINAL", 1.0)]);
                Stage {
                    module,
                    pipelines: vec![
                        ("earliest_events", earliest),
                        ("collide_matching", matching),
                        ("collide_final", last),
                    ],
                }
            },
            gravity,
            check: Stage::new(
                device,
                "check",
                src("check"),
                &[("tally", none), ("check", none)],
            ),
            diagnostics: Stage::new(device, "diagnostics", DIAGNOSTICS, &[("diagnostics", none)]),
        }
    }
}
