//! GPU backend: the step of docs/architecture.md in WGSL compute shaders through wgpu.
//!
//! Stages have the names of `src/cpu/` and `shaders/`: integrate → neighbours (the rebuild
//! decision) → cell_keys → count → prefix_sum → scatter (place, rank, gather) → neighbours (the
//! list's build) → collide → gravity → integrate, then `check`. The binning and the build run
//! only in a step that rebuilds the list: the GPU decides, and the host records them as
//! indirect dispatches whose work-group counts the decision sets (`neighbours::Gate`).
//! Sphere state lives on the GPU in two sets of buffers (the scatter gathers from one into the
//! other each step, or copies it when there is no rebuild); many steps are recorded per
//! submission, and data comes back only for snapshots, diagnostics, and a 32-byte status per
//! submission (collisions, rebuilds, list entries needed, non-finite states).
//!
//! This file records the step's recipe (`crate::recipe`, the order both backends follow):
//! [`GpuBackend::step`] submits batches, `record_batch` records steps, each the recipe's passes
//! by `record_pass` (after a halting submission's first step, only those of every step). The
//! rest lives
//! beside it: set-up and options in `setup.rs`, errors in `error.rs`, buffer layouts and
//! allocation in `buffers.rs`, the state sets and shared buffers in `state.rs`, what is read
//! back in `readback.rs`, the options in `options.rs` (plain data, kept without the `gpu`
//! feature), the work counters in `work.rs`, how long a halting submission is in
//! `plan.rs`, and each stage's pipelines and bind groups in its own file.

pub mod buffers;
pub mod cell_keys;
pub mod collide;
pub mod context;
pub mod count;
pub mod diagnostics;
mod error;
pub mod gravity;
pub mod integrate;
pub mod neighbours;
mod options;
pub mod pipelines;
pub mod plan;
pub mod prefix_sum;
mod profiler;
mod readback;
mod record;
mod removal;
pub mod scatter;
mod setup;
pub mod stages;
mod state;
mod swap;
pub mod traffic;
pub mod tree;
pub mod work;

use crate::recipe::{self, Gate, Kind, Pairs, Pass};
use crate::scene::ContactModel;
use crate::setup::MATCHING_ROUNDS;
pub(crate) use buffers::{init_storage, read_buffer, storage, uniform};
pub use context::GpuContext;
pub use error::{GpuError, StepError};
pub use options::GpuOptions;
use profiler::{Profiler, stage};
pub use readback::SIZED_FOR;
use setup::Binds;
pub use setup::dispatch_dims;
use stages::Stages;
use state::{SharedBuffers, StateSet};

/// Threads per work-group of every per-sphere stage (`WG` in common.wgsl).
pub const WORKGROUP_SIZE: u32 = 256;

/// Steps recorded into one submission at most.
pub const STEPS_PER_SUBMIT: u64 = 32;

/// Steps recorded into one command buffer, not yet submitted.
struct Batch {
    commands: wgpu::CommandBuffer,
    steps: u64,
    /// Compute dispatches recorded.
    dispatches: u64,
    /// Of those, the ones gated by the rebuild decision.
    gated: u64,
    /// Bytes the dispatches may move (`traffic`), and of those the gated dispatches'.
    bytes: u64,
    gated_bytes: u64,
    /// The binnings recorded (one per step, or one per halting submission).
    binnings: u64,
    /// Dispatches of one step's tail (contacts, gravity, end of step).
    tail: u64,
    /// Bytes of one step's tail (`traffic`).
    tail_bytes: u64,
    /// Timestamp queries to read back (profiling only).
    queries: u32,
    /// The current state set before the batch was recorded.
    parity: usize,
    /// The step parity of a halting submission before the batch was recorded.
    step_parity: usize,
}

/// The GPU backend in f32.
pub struct GpuBackend {
    ctx: GpuContext,
    stages: Stages,
    n: u32,
    /// The step's parameters ([`crate::params`]); the shaders' block (`buffers::Params`) is
    /// derived from it at set-up.
    params: crate::params::StepParams,
    dims: (u32, u32),
    state: [StateSet; 2],
    // The buffers the stages share besides the state sets and the list (state::SharedBuffers).
    shared: SharedBuffers,
    // The neighbour list (stage `neighbours`; the soft laws read it) and its gate.
    list: neighbours::GpuList,
    gate: neighbours::Gate,
    walls: u32,
    rebuilds: u64,
    // Halting submissions (a skin and no tree): only a submission's first step bins; a later
    // step that must rebuild halts the rest. With the parity of the next step recorded, and
    // what sizes the submissions (`plan`).
    halting: bool,
    parity: usize,
    planner: plan::Planner,
    max_dim: u32,
    // The binding limit the options lowered (`GpuOptions::max_binding_size`), for the list's
    // growth and restore as for set-up.
    binding_lowered: Option<u64>,
    // Work counters (`work`): the counting replay's buffer and pipelines; the dispatches
    // recorded, and of those the ones gated by the rebuild decision, in all; by `step`, the
    // dispatches submitted and those that ran work-groups, over the steps completed (the
    // counters' buffer is `shared.work`).
    counting: Option<collide::CollidePipelines>,
    /// The list build's walks that count visits, while work is counted.
    counting_walks: Option<neighbours::Walks>,
    dispatches: std::cell::Cell<u64>,
    gated: std::cell::Cell<u64>,
    step_dispatches: u64,
    step_with_work: u64,
    counted_steps: u64,
    // The read-back buffers `snapshot_into` (and `wall_forces`), `diagnostics` and each
    // submission's status read reuse; and the read-back buffers made for one read (`read`),
    // counted.
    snapshot_staging: buffers::Staging,
    diagnostics_staging: buffers::Staging,
    status_staging: buffers::Staging,
    one_off_reads: std::cell::Cell<u64>,
    // The same for the bytes the dispatches may move (`traffic`): those of the gated
    // dispatches recorded, in all; by `step`, submitted and with work.
    gated_bytes: u64,
    step_bytes: u64,
    step_bytes_with_work: u64,
    bind_count: wgpu::BindGroup,
    bind_scatter: wgpu::BindGroup,
    scan: Vec<prefix_sum::ScanLevel>,
    binds: [Binds; 2],
    cur: usize,
    steps_done: u64,
    /// Steps recorded into command buffers, those of discarded batches included.
    steps_recorded: u64,
    collisions: u64,
    radius_input: Vec<f64>,
    mass_input: Vec<f64>,
    profiler: Option<Profiler>,
    // Mutual gravity by the Barnes–Hut tree (`gravity_solver = "tree"`), else the direct sum.
    tree: Option<tree::GpuTree>,
    /// The passes of a step ([`crate::recipe::step`]), built once at set-up.
    recipe: Vec<Pass>,
}

impl GpuBackend {
    /// What decides this scene's recipe.
    fn recipe_config(&self) -> recipe::Config {
        recipe::Config {
            impulse: self.params.contact == ContactModel::Impulse,
            gravity: self.params.mutual_gravity(),
            rounds: MATCHING_ROUNDS,
        }
    }

    /// Records the passes of one step of the recipe ([`crate::recipe::step`]; set-up's with
    /// `init`), the head's (the drift, the binning, the list's build: [`Pass::head`]) or the
    /// tail's, each by [`GpuBackend::record_pass`]. `binning`: this step bins; a halting
    /// submission's later steps record only the passes of every step ([`Gate::Always`]).
    fn record_step(
        &mut self,
        enc: &mut wgpu::CommandEncoder,
        init: bool,
        binning: bool,
        head: bool,
    ) {
        let passes = if init {
            recipe::step(self.recipe_config(), true)
        } else {
            std::mem::take(&mut self.recipe)
        };
        for pass in &passes {
            if pass.head() == head && (binning || pass.gate == Gate::Always) {
                self.record_pass(enc, pass, init, binning);
            }
        }
        if !init {
            self.recipe = passes;
        }
    }

    /// Records one pass of the recipe as its dispatches, each in a compute pass of its stage
    /// group (timed when profiling) under the pass's debug label. Mirrors
    /// `CpuBackend::run_pass`.
    fn record_pass(&mut self, enc: &mut wgpu::CommandEncoder, p: &Pass, init: bool, binning: bool) {
        use neighbours::slot::{ENTRIES, ROWS, SPHERES};
        match p.kind {
            Kind::MeasureSpeed | Kind::KickDrift => {
                if binning && !init {
                    // Set-up's flag (2: build, not counted) is written by `initialise`.
                    enc.clear_buffer(&self.gate.rebuild, 0, Some(4));
                }
                self.record_drift(enc, init);
            }
            Kind::Binning => self.record_binning(enc),
            Kind::BuildList => {
                let gated_from = traffic::recorded();
                let d = self.record_build(enc, true);
                self.dispatches.set(self.dispatches.get() + d);
                self.gated.set(self.gated.get() + d);
                self.gated_bytes += traffic::recorded() - gated_from;
            }
            Kind::Gravity => self.record_gravity(enc, 1),
            _ => {
                let b = &self.binds[self.cur];
                let ig = &self.stages.integrate;
                let c = self.collide_passes();
                let (pipeline, bg, k, stage) = match p.kind {
                    Kind::ImpulsePairs(Pairs::Binary) => (
                        &c.impulse_pairs_binary,
                        &b.collide,
                        ENTRIES,
                        stage::CONTACTS,
                    ),
                    Kind::ImpulsePairs(Pairs::Pending) => (
                        &c.impulse_pairs_pending,
                        &b.collide,
                        ENTRIES,
                        stage::CONTACTS,
                    ),
                    Kind::ImpulsePairs(Pairs::Final) => {
                        (&c.impulse_pairs_final, &b.collide, ENTRIES, stage::CONTACTS)
                    }
                    // After a matching round, first applies its pending impulses.
                    Kind::EarliestEvents { after_round } => {
                        let pipeline = if after_round {
                            &c.earliest_apply
                        } else {
                            &c.earliest_from_pairs
                        };
                        (pipeline, &b.collide, ROWS, stage::CONTACTS)
                    }
                    Kind::SumImpulses => (&c.sum_impulses_final, &b.collide, ROWS, stage::CONTACTS),
                    // Gravity reads the applied positions: applied before it.
                    Kind::ApplyContacts => {
                        (&ig.apply_contacts, &b.integrate, SPHERES, stage::CONTACTS)
                    }
                    Kind::CollidePairs => (&c.collide_pairs, &b.collide, ENTRIES, stage::CONTACTS),
                    Kind::SumPairs => (&c.sum_pairs, &b.collide, ROWS, stage::CONTACTS),
                    Kind::Accelerations => {
                        (&ig.accelerations, &b.integrate, SPHERES, stage::FORCES)
                    }
                    // Accelerations, the second kick and the check, which also tallies (and,
                    // for impulses without a gravity pass between, applies) the last round.
                    Kind::EndOfStep => {
                        let variant = integrate::EndOfStep::of(
                            self.params.contact == ContactModel::Impulse,
                            self.params.mutual_gravity(),
                        );
                        let pipeline = &ig.end_of_step[variant as usize];
                        (pipeline, &b.integrate, SPHERES, stage::FORCES)
                    }
                    Kind::MeasureSpeed
                    | Kind::KickDrift
                    | Kind::Binning
                    | Kind::BuildList
                    | Kind::Gravity => unreachable!("recorded above"),
                };
                let mut pass = self.pass(enc, p.name, stage);
                pass.push_debug_group(p.name);
                self.dispatch_tail(&mut pass, pipeline, bg, k);
                pass.pop_debug_group();
                drop(pass);
                if init && p.kind == Kind::SumPairs && self.params.history {
                    // No time has passed: set-up starts no friction history (CpuBackend's
                    // `SumPairs`).
                    enc.clear_buffer(&self.list.xi, 0, None);
                    enc.clear_buffer(&self.list.wall_xi, 0, None);
                }
            }
        }
    }

    /// The recipe's `Binning`: the list's rebuild decision turned into work-group counts
    /// (`neighbours::gate_dispatches`), then, gated by it, stages cell_keys (which counts the
    /// buckets too), count's seeding of the cell starts, prefix_sum and scatter; the gather
    /// sorts the state from set `cur` into the other set (copies it, without a rebuild), which
    /// becomes current. The sorted state's cells are the build's (`neighbours::sweeps`).
    /// Mirrors `CpuBackend::bin`.
    fn record_binning(&mut self, enc: &mut wgpu::CommandEncoder) {
        use neighbours::slot::*;
        let c = self.cur;
        {
            let mut pass = self.pass(enc, "neighbours::gate_dispatches", stage::BINNING);
            let d = self.list.record_decide(&mut pass, &self.stages, c);
            self.dispatches.set(self.dispatches.get() + d);
        }
        let gated_from = traffic::recorded();
        {
            let mut pass = self.pass(enc, "cell_keys + count", stage::BINNING);
            pass.push_debug_group("cell_keys");
            let cell_keys = &self.binds[c].cell_keys;
            let ck = &self.stages.cell_keys;
            self.dispatch_gated(&mut pass, &ck.cell_keys, cell_keys, SPHERES);
            pass.pop_debug_group();
            pass.push_debug_group("count");
            let bg = &self.bind_count;
            self.dispatch_gated(&mut pass, &self.stages.count.seed_cell_start, bg, TABLE);
            pass.pop_debug_group();
        }
        {
            let mut pass = self.pass(enc, "prefix_sum + scatter", stage::BINNING);
            pass.push_debug_group("prefix_sum");
            let scans = prefix_sum::record(
                &mut pass,
                &self.stages.prefix_sum,
                &self.scan,
                Some((&self.gate.gated, SCANS)),
                true,
            );
            self.dispatches.set(self.dispatches.get() + scans);
            self.gated.set(self.gated.get() + scans);
            pass.pop_debug_group();
            pass.push_debug_group("scatter");
            let scatter = &self.stages.scatter;
            let bg = &self.bind_scatter;
            self.dispatch_gated(&mut pass, &scatter.place, bg, SPHERES);
            self.dispatch_gated(&mut pass, &scatter.rank, bg, SPHERES);
            pass.pop_debug_group();
        }
        self.gated_bytes += traffic::recorded() - gated_from;
        {
            // A re-sort with a rebuild, else a copy into the other set.
            let mut pass = self.pass(enc, "gather", stage::BINNING);
            pass.push_debug_group("gather");
            let bg = &self.binds[c].gather;
            self.dispatch_spheres(&mut pass, &self.stages.gather.gather, bg);
            pass.pop_debug_group();
        }
        self.cur = 1 - c;
    }

    /// Stage integrate's first half kick and drift on the current set (at set-up, `init`, the
    /// speed only), with the list's rebuild decision when the scene has a skin; in a halting
    /// submission, the variant of the step's parity, which halts the rest of the submission
    /// when the list must be rebuilt.
    fn record_drift(&mut self, enc: &mut wgpu::CommandEncoder, init: bool) {
        let ig = &self.stages.integrate;
        let (label, pipeline) = if init {
            ("integrate::measure_speed", &ig.measure_speed)
        } else if self.halting {
            let p = self.parity;
            self.parity = 1 - p;
            ("integrate::kick_drift", &ig.kick_drift_halt[p])
        } else if self.params.skin > 0.0 {
            // With a skin, kick_drift makes the list's rebuild decision (neighbours'
            // needs_rebuild); without one every step rebuilds.
            ("integrate::kick_drift", &ig.kick_drift_decide)
        } else {
            ("integrate::kick_drift", &ig.kick_drift)
        };
        let mut pass = self.pass(enc, "integrate", stage::INTEGRATE);
        pass.push_debug_group(label);
        self.dispatch_spheres(&mut pass, pipeline, &self.binds[self.cur].integrate_head);
        pass.pop_debug_group();
    }

    /// Stage gravity, `k` times, on the current state set: the direct sum in one pass, or the
    /// tree (built and walked each time) in one pass per evaluation.
    fn record_gravity(&self, enc: &mut wgpu::CommandEncoder, k: u32) {
        if let Some(t) = &self.tree {
            for _ in 0..k {
                let d = t.record(enc, self.cur, false, |e| {
                    self.pass(e, "gravity tree", stage::GRAVITY)
                });
                self.dispatches.set(self.dispatches.get() + d);
            }
            return;
        }
        let mut pass = self.pass(enc, "gravity", stage::GRAVITY);
        pass.push_debug_group("gravity");
        for _ in 0..k {
            self.dispatch_tail(
                &mut pass,
                &self.stages.gravity.gravity,
                &self.binds[self.cur].gravity,
                neighbours::slot::SPHERES,
            );
        }
        pass.pop_debug_group();
    }

    /// Records `m` steps into one command buffer (and the timestamp resolve when profiling):
    /// each with its binning, or in a halting submission only the first.
    fn record_batch(&mut self, m: u64) -> Batch {
        let (parity, step_parity) = (self.cur, self.parity);
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        let (before, gated_before) = (self.dispatches.get(), self.gated.get());
        let (bytes_before, gated_bytes_before) = (traffic::recorded(), self.gated_bytes);
        let (mut tail, mut tail_bytes) = (0, 0);
        self.steps_recorded += m;
        for j in 0..m {
            let binning = !(self.halting && j > 0);
            self.record_step(&mut enc, false, binning, true);
            let (d, b) = (self.dispatches.get(), traffic::recorded());
            self.record_step(&mut enc, false, binning, false);
            tail = self.dispatches.get() - d;
            tail_bytes = traffic::recorded() - b;
        }
        let queries = self.profiler.as_ref().map_or(0, |p| p.pending());
        if let Some(p) = self.profiler.as_ref().filter(|_| queries > 0) {
            enc.resolve_query_set(&p.query_set, 0..queries, &p.resolve, 0);
        }
        Batch {
            commands: enc.finish(),
            steps: m,
            dispatches: self.dispatches.get() - before,
            gated: self.gated.get() - gated_before,
            bytes: traffic::recorded() - bytes_before,
            gated_bytes: self.gated_bytes - gated_bytes_before,
            binnings: if self.halting { 1 } else { m },
            tail,
            tail_bytes,
            queries,
            parity,
            step_parity,
        }
    }

    /// Forgets a recorded batch that will not be submitted: the state set and step parity it
    /// would have left are not.
    fn discard(&mut self, batch: Option<Batch>) {
        if let Some(b) = batch {
            self.cur = b.parity;
            self.parity = b.step_parity;
        }
    }

    /// Advances `k` steps in submissions of at most [`STEPS_PER_SUBMIT`]. Without profiling, the
    /// next submission is recorded while the GPU runs the current one, before the host blocks
    /// on the current one's status; it is dropped (and recorded again) when the list must grow
    /// first, or when the current one halted.
    ///
    /// Halting submissions (a scene with a skin, without the tree): a submission bins only in
    /// its first step. A later step whose drift calls for a rebuild raises a halt word and
    /// zeroes the work-group counts of the rest of the submission (integrate.wgsl,
    /// `kick_drift` with `HALT`), and the next submission bins and finishes that step. The
    /// status says how many steps completed.
    ///
    /// # Errors
    /// [`StepError::NonFinite`] with `(step, sphere id)` of the first non-finite state;
    /// [`StepError::Gpu`] when the neighbour list overflowed or cannot grow.
    pub fn step(&mut self, k: u64) -> Result<(), StepError> {
        let mut left = k;
        let mut next: Option<Batch> = None;
        while left > 0 {
            let batch = match next.take() {
                Some(b) => b,
                None => self.record_batch(self.planner.plan(self.halting, left)),
            };
            self.ctx.queue.submit([batch.commands]);
            if self.profiler.is_none() && left > batch.steps {
                // On the guess that this one completes and the next starts with a rebuild.
                let m = self
                    .planner
                    .plan_after_rebuild(self.halting, left - batch.steps);
                next = Some(self.record_batch(m));
            }
            // Blocks until the submission is done: stepping is timed to completion.
            let status = self.take_status();
            if let Some(p) = &self.profiler {
                if batch.queries > 0 {
                    let ticks: Vec<u64> = self.read(&p.resolve, 8 * batch.queries as u64);
                    self.profiler.as_mut().expect("profiler").accumulate(&ticks);
                }
            }
            let completed = (status.steps as u64).min(batch.steps);
            if completed == 0 {
                self.discard(next);
                return Err(StepError::Gpu(GpuError::Stalled {
                    step: self.steps_done,
                    recorded: batch.steps,
                }));
            }
            let rebuilds = status.rebuilds as u64;
            self.steps_done += completed;
            left -= completed;
            self.collisions += status.collisions as u64;
            self.rebuilds += rebuilds;
            // Dispatches with work: all but the empty binnings and the halted tails.
            self.step_dispatches += batch.dispatches;
            self.counted_steps += completed;
            let empty = batch.gated / batch.binnings * batch.binnings.saturating_sub(rebuilds)
                + (batch.steps - completed) * batch.tail;
            self.step_with_work += batch.dispatches - empty;
            let idle_bytes = batch.gated_bytes / batch.binnings
                * batch.binnings.saturating_sub(rebuilds)
                + (batch.steps - completed) * batch.tail_bytes;
            self.step_bytes += batch.bytes;
            self.step_bytes_with_work += batch.bytes - idle_bytes;
            if self.halting {
                self.planner.track(batch.steps, &status);
            }
            if status.first_bad_step != u32::MAX {
                self.discard(next);
                return Err(StepError::NonFinite(
                    status.first_bad_step as u64,
                    status.bad_id,
                ));
            }
            let needed = status.list_needed;
            if needed > self.list.capacity {
                self.discard(next);
                return Err(StepError::Gpu(GpuError::ListOverflow {
                    step: self.steps_done,
                    needed,
                    capacity: self.list.capacity,
                }));
            }
            if next
                .as_ref()
                .is_some_and(|b| b.steps != self.planner.plan(self.halting, left))
            {
                // Planned anew from what this submission reported.
                self.discard(next.take());
            }
            // Three quarters full: room for the next submission's rebuilds. The batch recorded
            // meanwhile binds the old list.
            if needed as u64 * 4 > self.list.capacity as u64 * 3 {
                self.discard(next.take());
                self.grow_list(needed).map_err(StepError::Gpu)?;
            }
        }
        Ok(())
    }
}

/// The GPU backend behind [`Simulation`](crate::Simulation): the renderer reaches it through
/// [`Engine::gpu`](crate::engine::Engine::gpu).
impl crate::engine::Engine for GpuBackend {
    fn step(&mut self, n: u64) -> Result<(), crate::engine::Halt> {
        // Many steps per submission; returns once the GPU has finished them.
        GpuBackend::step(self, n).map_err(|e| match e {
            StepError::NonFinite(step, sphere) => crate::engine::Halt::Guard { step, sphere },
            StepError::Gpu(e) => crate::engine::Halt::Failed(e.into()),
        })
    }

    fn steps_done(&self) -> u64 {
        GpuBackend::steps_done(self)
    }

    fn diagnostics(&self) -> crate::Diagnostics {
        GpuBackend::diagnostics(self)
    }

    fn snapshot(&self) -> crate::Snapshot {
        GpuBackend::snapshot(self)
    }

    fn wall_forces(&self) -> Vec<glam::DVec3> {
        GpuBackend::wall_forces(self)
    }

    fn snapshot_into(&self, out: &mut crate::Snapshot) {
        GpuBackend::snapshot_into(self, out)
    }

    fn precision(&self) -> crate::Precision {
        crate::Precision::F32
    }

    fn adapter(&self) -> String {
        self.adapter_name()
    }

    fn save_state(&self) -> Result<crate::checkpoint::EngineState, crate::SimError> {
        Ok(crate::checkpoint::EngineState::Gpu(GpuBackend::save_state(
            self,
        )))
    }

    fn restore_state(&mut self, state: &crate::checkpoint::EngineState) -> Result<(), String> {
        match state {
            crate::checkpoint::EngineState::Gpu(s) => GpuBackend::restore_state(self, s),
            crate::checkpoint::EngineState::Cpu(_) => {
                Err("the state is the CPU backend's, not the GPU backend's".into())
            }
        }
    }

    fn contact_memory(&self) -> Option<crate::history::ContactMemory> {
        GpuBackend::contact_memory(self)
    }

    fn restore_contact_memory(
        &mut self,
        memory: &crate::history::ContactMemory,
    ) -> Result<(), String> {
        GpuBackend::restore_contact_memory(self, memory)
    }

    fn exchange_spheres(
        &mut self,
        leaving: &[bool],
        added: &crate::setup::PackedScene,
    ) -> Result<bool, String> {
        GpuBackend::exchange_spheres(self, leaving, added)
    }

    fn set_orientations(&mut self, orientation: &[glam::DQuat]) -> Result<(), String> {
        GpuBackend::set_orientations(self, orientation)
    }

    fn stage_seconds(&self) -> Vec<(&'static str, f64)> {
        GpuBackend::stage_seconds(self)
    }

    fn pass_seconds(&self) -> Vec<(&'static str, f64)> {
        GpuBackend::pass_seconds(self)
    }

    fn set_profiling(&mut self, on: bool) -> bool {
        GpuBackend::set_profiling(self, on)
    }

    fn binning_state(&self) -> crate::setup::BinningState {
        GpuBackend::binning_state(self)
    }

    fn list_rows(&self) -> crate::setup::ListRows {
        GpuBackend::list_rows(self)
    }

    fn walk_counts(&self) -> Option<crate::cpu::tree::WalkCounts> {
        GpuBackend::walk_counts(self)
    }

    fn step_params(&self) -> &crate::params::StepParams {
        &self.params
    }

    fn set_work_counting(&mut self, on: bool) -> bool {
        GpuBackend::set_work_counting(self, on);
        true
    }

    fn work_counts(&self) -> Option<work::WorkCounts> {
        Some(GpuBackend::work_counts(self))
    }

    fn gpu(&self) -> Option<&GpuBackend> {
        Some(self)
    }
}
