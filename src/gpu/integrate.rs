//! Stage `integrate`: kick–drift–kick leapfrog, applying contact impulses, the force sum, and
//! the end-of-step check with the collision tally. Shaders `shaders/integrate.wgsl` and
//! `shaders/check.wgsl` (one module); CPU twin `src/cpu/integrate.rs` and the end of
//! `CpuBackend::step`.

use super::neighbours::{Gate, GpuList};
use super::pipelines::{Module, source};
use super::stages::{module, shader};
use super::state::{SharedBuffers, StateSet};

/// The drift of `kick_drift` in `shaders/integrate.wgsl`, as written there: the statement that
/// [`super::GpuOptions::fused_drift`] replaces by a fused multiply–add.
pub const DRIFT: &str = "p = p4.xyz + v * params.dt;";

/// [`DRIFT`] without the product's rounding, as a fused multiply–add computes it: the product's
/// exact error by Veltkamp's split and Dekker's product (Dekker 1971, "A floating-point
/// technique for extending the available precision", Numer. Math. 18, mul12), added to the
/// rounded sum. Written out rather than as WGSL's `fma`, which a Vulkan driver may evaluate
/// as a product and a sum (SPIR-V's `Fma` inherits their precision), as lavapipe does.
pub const FUSED_DRIFT: &str = "let vs = 4097.0 * v;
            let vh = vs - (vs - v);
            let vl = v - vh;
            let ds = 4097.0 * params.dt;
            let dh = ds - (ds - params.dt);
            let dl = params.dt - dh;
            let prod = v * params.dt;
            let err = ((vh * dh - prod) + vh * dl + vl * dh) + vl * dl;
            p = (p4.xyz + prod) + err;";

/// The module of `shaders/integrate.wgsl` and its pipelines.
#[derive(Clone)]
pub struct Integrate {
    /// Module (layout and bind groups).
    pub module: Module,
    /// The largest small-sphere speed of the step (for the grid's cell edge).
    pub measure_speed: wgpu::ComputePipeline,
    /// First half kick and drift.
    pub kick_drift: wgpu::ComputePipeline,
    /// First half kick and drift, and the neighbour list's rebuild decision (override
    /// `DECIDE`, `needs_rebuild`).
    pub kick_drift_decide: wgpu::ComputePipeline,
    /// The same for a halting submission (`HALT`), by the step's parity (`PARITY`): a
    /// rebuild halts the rest of the submission.
    pub kick_drift_halt: [wgpu::ComputePipeline; 2],
    /// An impulse round's collisions tallied, then its `x += dx`, `v += dv` and its energy
    /// booked as dissipated.
    pub apply_contacts: wgpu::ComputePipeline,
    /// The force sum alone: each sphere's acceleration (set-up).
    pub accelerations: wgpu::ComputePipeline,
    /// The end of a step in one pass: accelerations, the second half kick and the check,
    /// indexed by [`EndOfStep`].
    pub end_of_step: [wgpu::ComputePipeline; 3],
}

/// What `end_of_step` does before the force sum (overrides `TALLY`, `APPLY`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndOfStep {
    /// Nothing: the impulse model's last round was applied before a gravity pass.
    ForcesOnly = 0,
    /// Tally the last round's collisions (soft laws).
    Tally = 1,
    /// Tally and apply the impulse model's last round (no gravity pass between).
    TallyApply = 2,
}

impl EndOfStep {
    /// The variant for the impulse model (`impulse`) with or without a gravity pass after the
    /// contacts (`gravity`).
    pub fn of(impulse: bool, gravity: bool) -> Self {
        match (impulse, gravity) {
            (false, _) => Self::Tally,
            (true, true) => Self::ForcesOnly,
            (true, false) => Self::TallyApply,
        }
    }
}

impl Integrate {
    /// Compiles the shader and its entry points; with `fused_drift`, the drift as one
    /// fused multiply–add ([`super::GpuOptions::fused_drift`]).
    ///
    /// # Panics
    /// When `fused_drift` is set and `shaders/integrate.wgsl` no longer holds [`DRIFT`].
    pub fn new(device: &wgpu::Device, fused_drift: bool) -> Self {
        let module = if fused_drift {
            let src = source(shader("integrate"));
            assert!(src.contains(DRIFT), "integrate.wgsl holds no `{DRIFT}`");
            let fused = src.replace(DRIFT, FUSED_DRIFT);
            Module::new(device, "integrate", &fused)
        } else {
            module(device, "integrate")
        };
        let p = |entry: &str| module.pipeline(device, entry, &[]);
        Self {
            measure_speed: p("measure_speed"),
            kick_drift: p("kick_drift"),
            kick_drift_decide: module.pipeline(device, "kick_drift", &[("DECIDE", 1.0)]),
            kick_drift_halt: [0.0, 1.0].map(|parity| {
                let c = [("DECIDE", 1.0), ("HALT", 1.0), ("PARITY", parity)];
                module.pipeline(device, "kick_drift", &c)
            }),
            apply_contacts: p("apply_contacts"),
            accelerations: p("accelerations"),
            end_of_step: [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0)].map(|(tally, apply)| {
                module.pipeline(device, "end_of_step", &[("TALLY", tally), ("APPLY", apply)])
            }),
            module,
        }
    }

    /// The bind group of state set `s`, with the neighbour list's positions and sweeps at its
    /// last build and the gate's words (bound again when the list grows). `head`: for the
    /// drift, which may zero the tail's running counts; otherwise for the passes dispatched
    /// from them, which bind a stand-in.
    pub(crate) fn bind(
        &self,
        device: &wgpu::Device,
        b: &SharedBuffers,
        s: &StateSet,
        (list, gate): (&GpuList, &Gate),
        head: bool,
    ) -> wgpu::BindGroup {
        let running = if head {
            &gate.running
        } else {
            &gate.running_stand_in
        };
        self.module.bind(
            device,
            &[
                ("params", &b.params),
                ("pos", &s.pos),
                ("vel", &s.vel),
                ("acc", &s.acc),
                ("grid", &b.grid),
                ("contact", &b.contact),
                ("contact_dx", &b.contact_dx),
                ("a_mutual", &b.a_mutual),
                ("ids", &s.id),
                ("dissipated", &b.dissipated),
                ("rot", &s.rot),
                ("torque", &b.torque),
                ("contact_counts", &b.contact_counts),
                ("status", &b.status),
                ("x_build", &list.x_build),
                ("sweep", &list.sweep),
                ("rebuild", &gate.rebuild),
                ("running_dims", running),
                ("image", &b.image),
            ],
        )
    }
}
