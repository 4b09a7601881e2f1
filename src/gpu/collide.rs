//! Stage `collide`, from the neighbour list. The soft laws: `collide_pairs` (one entry each) and
//! `sum_pairs` (a row pass, with the walls). The impulse model: `impulse_pairs` (one entry
//! each; binary, or the final round's colliding pairs with mass splitting: override FINAL),
//! `earliest_from_pairs` and `sum_impulses` (row passes; the final round's sum). A matching
//! round's sum is folded into `earliest_from_pairs` and the `impulse_pairs` after it (override
//! PENDING; shaders/collide.wgsl, "A matching round, folded"), whose CPU twin is
//! `cpu::collide::sum_impulses` with `Round::Matching`. A row pass runs one invocation per
//! small sphere and a work-group per large sphere, whose lanes share its row
//! (`cpu::collide::sum_row`).
//! Shader `shaders/collide.wgsl`; CPU twin `src/cpu/collide/`.

use super::pipelines::Module;

/// Flag of an entry's pair result (beside `cpu::collide::PAIR_CONTACT`, `PAIR_COLLISION`,
/// `PAIR_FORCE`), GPU only: the matching round before was mutual for the pair (each sphere
/// the other's event, or one of them fixed), so its movable spheres took their event's
/// impulse. Written by `impulse_pairs` (`PENDING`), read by the next
/// `earliest_from_pairs`, which applies the round.
pub const PAIR_MATCHED: u32 = 8;

/// Flag of an entry's pair result, GPU only, with [`PAIR_MATCHED`]: the entry's sphere tallies
/// the pair's collision (the lower id's entry if that sphere is movable, else its mirror), so
/// that the next `earliest_from_pairs` counts each matched pair once, as the CPU's row sum
/// does.
pub const PAIR_TALLY: u32 = 16;
use super::stages::module;
use super::state::{SharedBuffers, StateSet};

/// The pipelines of the contact passes, each variant an entry point with its overridden
/// constants; with `COUNT_VISITS` on, the same passes count the pairs each invocation visits
/// (`super::work`).
#[derive(Clone)]
pub struct CollidePipelines {
    /// `impulse_pairs`, a matching round's binary collisions (`FINAL = false`).
    pub impulse_pairs_binary: wgpu::ComputePipeline,
    /// `impulse_pairs` after a matching round, whose impulses are pending (`PENDING`): decides
    /// the round for each pair (flagging [`PAIR_MATCHED`] and [`PAIR_TALLY`]) and reads each
    /// body as the apply would leave it.
    pub impulse_pairs_pending: wgpu::ComputePipeline,
    /// `impulse_pairs`, the final round's colliding pairs with mass splitting (`FINAL = true`).
    pub impulse_pairs_final: wgpu::ComputePipeline,
    /// Each sphere's earliest event from its row, and that event's response.
    pub earliest_from_pairs: wgpu::ComputePipeline,
    /// The same after a pending round (`PENDING`): first tallies and applies that round
    /// (`CpuBackend::apply_contacts`), each sphere its own.
    pub earliest_apply: wgpu::ComputePipeline,
    /// `sum_impulses` of the final round.
    pub sum_impulses_final: wgpu::ComputePipeline,
    /// The soft laws' pair forces, one entry each.
    pub collide_pairs: wgpu::ComputePipeline,
    /// The soft laws' row sums, with the walls.
    pub sum_pairs: wgpu::ComputePipeline,
}

impl CollidePipelines {
    /// The passes of `module` (`shaders/collide.wgsl`), counting visits when `count_visits`.
    pub fn new(device: &wgpu::Device, module: &Module, count_visits: bool) -> Self {
        let count = if count_visits { 1.0 } else { 0.0 };
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        let with = |entry: &str, fin: Option<bool>, pending: bool| {
            let mut constants = vec![("COUNT_VISITS", count), ("PENDING", flag(pending))];
            if let Some(f) = fin {
                constants.push(("FINAL", flag(f)));
            }
            module.pipeline(device, entry, &constants)
        };
        let p = |entry: &str, fin: Option<bool>| with(entry, fin, false);
        Self {
            impulse_pairs_binary: p("impulse_pairs", Some(false)),
            impulse_pairs_pending: with("impulse_pairs", Some(false), true),
            impulse_pairs_final: p("impulse_pairs", Some(true)),
            // A matching round's wall contact (`round_candidate`).
            earliest_from_pairs: p("earliest_from_pairs", Some(false)),
            earliest_apply: with("earliest_from_pairs", Some(false), true),
            sum_impulses_final: p("sum_impulses", Some(true)),
            collide_pairs: p("collide_pairs", None),
            sum_pairs: p("sum_pairs", None),
        }
    }
}

/// The module of `shaders/collide.wgsl` and the step's pipelines.
#[derive(Clone)]
pub struct Collide {
    /// Module (layout and bind groups).
    pub module: Module,
    /// The passes as the timed step runs them (no counting).
    pub passes: CollidePipelines,
}

impl Collide {
    /// Compiles the shader and its passes.
    pub fn new(device: &wgpu::Device) -> Self {
        let module = module(device, "collide");
        Self {
            passes: CollidePipelines::new(device, &module, false),
            module,
        }
    }
}

impl Collide {
    /// The bind group of state set `s` and the neighbour list `list`.
    pub(crate) fn bind(
        &self,
        device: &wgpu::Device,
        b: &SharedBuffers,
        s: &StateSet,
        list: &super::neighbours::GpuList,
    ) -> wgpu::BindGroup {
        self.module.bind(
            device,
            &[
                ("params", &b.params),
                ("pos", &s.pos),
                ("vel", &s.vel),
                ("props", &s.props),
                ("ids", &s.id),
                ("acc", &s.acc),
                ("dissipated", &b.dissipated),
                ("status", &b.status),
                ("planes", &b.planes),
                ("earliest", &b.earliest),
                ("contact", &b.contact),
                ("contact_dx", &b.contact_dx),
                ("contact_counts", &b.contact_counts),
                ("list_start", &list.start),
                ("partner", &list.partner),
                ("work", &b.work),
                ("link", &list.link),
                ("row_of", &list.row_of),
                ("pair_out", &list.pair_out[0]),
                ("pair_more", &list.pair_more[0]),
                ("pair_out_1", &list.pair_out[1]),
                ("pair_more_1", &list.pair_more[1]),
                ("pair_out_2", &list.pair_out[2]),
                ("pair_more_2", &list.pair_more[2]),
                ("pair_out_3", &list.pair_out[3]),
                ("pair_more_3", &list.pair_more[3]),
                ("xi", &list.xi),
                ("wall_xi", &list.wall_xi),
                ("list", &list.params),
                ("rot", &s.rot),
                ("torque", &b.torque),
                ("pair_spin", &list.pair_spin),
            ],
        )
    }
}
