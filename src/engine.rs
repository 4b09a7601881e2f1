//! The one interface every stepping backend offers ([`Engine`]), which
//! [`Simulation`](crate::Simulation) drives without knowing which backend it holds.
//!
//! Implemented by [`CpuBackend<f32>`](crate::cpu::CpuBackend),
//! [`CpuBackend<f64>`](crate::cpu::CpuBackend), `GpuBackend` (with the `gpu` feature) and
//! [`EventBackend`](crate::event::EventBackend), each next to its backend. The trait is named
//! `Engine`, not `Backend`: [`crate::Backend`] is the public enum of `--backend` choices, and a
//! running engine's checkpoint is already [`EngineState`].
//!
//! Counts and times here are the engine's own, from its start: [`Simulation`](crate::Simulation)
//! adds the [`Offsets`](crate::checkpoint::Offsets) of a converted checkpoint.

use crate::checkpoint::EngineState;
use crate::cpu::tree::WalkCounts;
#[cfg(feature = "gpu")]
use crate::gpu::GpuBackend;
#[cfg(feature = "gpu")]
use crate::gpu::work::WorkCounts;
use crate::history::ContactMemory;
use crate::setup::{BinningState, ListRows};
use crate::{Diagnostics, Precision, SimError, Snapshot};

/// Why [`Engine::step`] stopped before doing all its steps.
#[derive(Debug)]
pub enum Halt {
    /// The state check tripped: sphere `sphere` (input id, the lowest such) has a non-finite
    /// position, velocity or spin, or passed the magnitude guard
    /// ([`crate::physics::guard`]) at the engine's step `step` (1 = its first step).
    Guard {
        /// The engine's step at which it was detected (1 = after its first step).
        step: u64,
        /// Input id of the sphere.
        sphere: u32,
    },
    /// The backend failed: `SimError::Gpu` (list overflow, stall) or [`SimError::Event`]
    /// (an inelastic collapse).
    Failed(SimError),
}

/// A backend that steps a scene: what [`Simulation`](crate::Simulation) needs of it.
///
/// `Send`, so that a `Simulation` stays `Send` (it was never `Sync`: the GPU backend keeps
/// counters in `Cell`s).
pub trait Engine: Send {
    /// Advances `n` steps of the scene's `dt`; returns once they are done (on the GPU: once the
    /// device has finished them).
    ///
    /// # Errors
    /// [`Halt::Guard`] at the first step whose state fails the check (the state is then that
    /// step's or, on the GPU, up to a submission later); [`Halt::Failed`] when the backend
    /// cannot go on.
    fn step(&mut self, n: u64) -> Result<(), Halt>;

    /// Steps this engine has completed since it was set up or restored (a restored state's
    /// count included).
    fn steps_done(&self) -> u64;

    /// Diagnostics of the current state (SI units; see [`Diagnostics`]), with the engine's own
    /// step, time and counters.
    fn diagnostics(&self) -> Diagnostics;

    /// The force the spheres exerted on each wall (planes, then containers) in the last step,
    /// N; empty unless the scene records wall forces
    /// ([`crate::scene::SimParams::wall_forces`]).
    fn wall_forces(&self) -> Vec<glam::DVec3> {
        Vec::new()
    }

    /// The current state in input order, widened to f64 (m, m/s, rad/s).
    fn snapshot(&self) -> Snapshot;

    /// [`Engine::snapshot`] written into `out`, reusing its allocations.
    fn snapshot_into(&self, out: &mut Snapshot);

    /// The precision the engine computes in.
    fn precision(&self) -> Precision;

    /// The device it runs on, in words (the GPU adapter's name, the CPU's threads).
    fn adapter(&self) -> String;

    /// Everything a later step reads, for a checkpoint.
    ///
    /// # Errors
    /// [`SimError::Unavailable`] where the engine writes no checkpoints (the event solver).
    fn save_state(&self) -> Result<EngineState, SimError>;

    /// Continues from `state`, saved by an engine of this kind and precision on the same
    /// scene: the next step is bit-identical to the one the saving engine would have taken
    /// (on the GPU: on the same adapter).
    ///
    /// # Errors
    /// A message when the state is of another backend or precision or does not fit the scene;
    /// the engine is then unchanged.
    fn restore_state(&mut self, state: &EngineState) -> Result<(), String>;

    /// Seconds spent per stage so far, named as [`crate::setup::STAGES`]: wall-clock on the
    /// CPU, GPU time once [`Engine::set_profiling`] turned it on; empty where there are none.
    fn stage_seconds(&self) -> Vec<(&'static str, f64)>;

    /// GPU time per compute pass, by its label (the stages split finer), once
    /// [`Engine::set_profiling`] turned timing on; empty where passes are not timed apart.
    fn pass_seconds(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }

    /// The contacts' history by sphere id ([`crate::history`]), read back from the engine;
    /// `None` where it keeps none (no friction or Hertz history, or the event solver).
    fn contact_memory(&self) -> Option<ContactMemory> {
        None
    }

    /// Gives the contacts of an engine just set up the history `memory` (ids: the spheres'
    /// indices in this engine's scene), and evaluates set-up's forces again with it, so that
    /// the first step starts as the engine that saved it would have gone on. Nothing to do
    /// where the engine keeps no history.
    ///
    /// # Errors
    /// A message when `memory` holds another number of walls or more spheres than the engine;
    /// the engine is then unchanged.
    fn restore_contact_memory(&mut self, _memory: &ContactMemory) -> Result<(), String> {
        Ok(())
    }

    /// Takes out the spheres with `leaving[k]` (`k`: the index in [`Engine::snapshot`]'s
    /// order) and puts in the spheres of `added` (packed from a scene of them, after those
    /// that stay in that order) inside the engine's own binning, on its buffers, and evaluates
    /// the forces ([`crate::removal`]): the contacts of the spheres that stay keep their
    /// history, and the engine's dissipated energy restarts at zero (the caller books it).
    /// `Ok(false)` where the engine cannot, unchanged: the caller sets one up again.
    ///
    /// # Errors
    /// A message when `leaving` does not hold one flag a sphere, or when the engine failed
    /// midway (its state is then lost).
    fn exchange_spheres(
        &mut self,
        _leaving: &[bool],
        _added: &crate::setup::PackedScene,
    ) -> Result<bool, String> {
        Ok(false)
    }

    /// Sets the orientation of each sphere of an engine just set up (which starts them all at
    /// the identity): `orientation[k]`, a unit quaternion, for the sphere of index `k` in this
    /// engine's scene. Nothing to do without rotation.
    ///
    /// # Errors
    /// A message when `orientation` does not hold one quaternion a sphere; the engine is then
    /// unchanged.
    fn set_orientations(&mut self, _orientation: &[glam::DQuat]) -> Result<(), String> {
        Ok(())
    }

    /// Turns per-stage timing on or off; returns whether per-stage times are available.
    fn set_profiling(&mut self, on: bool) -> bool;

    /// The integer outputs of the last binning, for exact comparisons; empty without a grid.
    fn binning_state(&self) -> BinningState;

    /// The neighbour list as last built, in sorted order; empty without one.
    fn list_rows(&self) -> ListRows;

    /// Interaction counts of the last gravity-tree walk; `None` where the engine has no tree
    /// (a CPU engine without tree gravity may return zero walks).
    fn walk_counts(&self) -> Option<WalkCounts>;

    /// The step's parameters the engine was set up with ([`crate::params`]): `dt`, the guard's
    /// bounds and the rest, in f64.
    fn step_params(&self) -> &crate::params::StepParams;

    /// Counts work from now on (`on`), or stops counting, and restarts the counts; returns
    /// whether this engine counts work. Only the GPU does (`gpu::work`).
    fn set_work_counting(&mut self, _on: bool) -> bool {
        false
    }

    /// Dispatches and pair visits since [`Engine::set_work_counting`]; `None` where the engine
    /// does not count work.
    #[cfg(feature = "gpu")]
    fn work_counts(&self) -> Option<WorkCounts> {
        None
    }

    /// The GPU backend itself, where this engine is one: the renderer binds its state buffers.
    #[cfg(feature = "gpu")]
    fn gpu(&self) -> Option<&GpuBackend> {
        None
    }
}

/// The CPU's threads, as [`Engine::adapter`] names them.
pub(crate) fn cpu_threads() -> String {
    match rayon::current_num_threads() {
        1 => "CPU (1 thread)".to_string(),
        t => format!("CPU ({t} threads)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::CpuBackend;
    use crate::scene::builtin;

    /// A CPU engine of `scene` in precision `R`, as `Simulation` holds one.
    fn cpu<R: crate::Real>(scene: &crate::Scene) -> Box<dyn Engine> {
        Box::new(CpuBackend::<R>::new(scene))
    }

    #[test]
    fn cpu_engines_continue_bit_for_bit_from_a_state_restored_through_the_trait() {
        let scene = builtin::build("box-gas", Some(64)).unwrap();
        for make in [cpu::<f32>, cpu::<f64>] {
            let mut first = make(&scene);
            first.step(15).unwrap();
            let state = first.save_state().unwrap();
            let mut second = make(&scene);
            second.restore_state(&state).unwrap();
            assert_eq!(second.steps_done(), 15);
            first.step(15).unwrap();
            second.step(15).unwrap();
            assert_eq!(first.steps_done(), 30);
            assert_eq!(first.snapshot(), second.snapshot());
            assert_eq!(first.diagnostics(), second.diagnostics());
        }
    }

    #[test]
    fn an_engine_refuses_a_state_of_another_precision_and_stays_as_it_was() {
        let scene = builtin::build("box-gas", Some(64)).unwrap();
        let mut narrow = cpu::<f32>(&scene);
        narrow.step(5).unwrap();
        let mut wide = cpu::<f64>(&scene);
        wide.step(3).unwrap();
        let before = wide.snapshot();
        assert!(wide.restore_state(&narrow.save_state().unwrap()).is_err());
        assert_eq!(wide.steps_done(), 3);
        assert_eq!(wide.snapshot(), before);
        assert_eq!(
            (narrow.precision(), wide.precision()),
            (Precision::F32, Precision::F64)
        );
    }

    #[test]
    fn the_event_engine_writes_no_checkpoint_and_has_no_stages() {
        let scene = builtin::build("two-spheres", None).unwrap();
        let mut ev: Box<dyn Engine> = Box::new(crate::event::EventBackend::new(&scene).unwrap());
        ev.step(2).unwrap();
        assert_eq!(ev.steps_done(), 2);
        assert!(matches!(
            ev.save_state(),
            Err(SimError::Unavailable {
                backend: crate::Backend::Event,
                ..
            })
        ));
        assert!(!ev.set_profiling(true));
        assert!(ev.stage_seconds().is_empty());
        #[cfg(feature = "gpu")]
        assert!(ev.gpu().is_none() && ev.work_counts().is_none());
    }
}
