//! Per-stage GPU times from timestamp queries (`spheresim bench`).
//!
//! Each compute pass of the step is one stage group with the CPU backend's stage names
//! ([`crate::cpu::STAGES`]); when profiling is on, every pass writes a timestamp at its beginning
//! and end, and the differences are summed per stage after each submission. Timestamps need the
//! adapter feature `TIMESTAMP_QUERY`; without it profiling stays off and only whole steps are
//! timed.

use std::cell::RefCell;
use std::collections::BTreeMap;

/// Timestamp pairs one submission can hold: 32 steps × 9 passes = 288 pairs fit with room.
const MAX_PAIRS: u32 = 1024;

/// Stage indices into [`crate::cpu::STAGES`].
pub(crate) mod stage {
    pub const INTEGRATE: usize = 0;
    pub const BINNING: usize = 1;
    pub const CONTACTS: usize = 2;
    pub const GRAVITY: usize = 3;
    /// Also the check: the GPU runs it in the force sum's pass (`integrate::end_of_step`).
    pub const FORCES: usize = 4;
}

/// The query set, its resolve buffer, and the stage of each recorded pair.
pub(crate) struct Profiler {
    pub(crate) query_set: wgpu::QuerySet,
    pub(crate) resolve: wgpu::Buffer,
    /// Stage index and compute-pass label of each begin/end pair recorded since the last
    /// [`Profiler::accumulate`].
    pairs: RefCell<Vec<(usize, &'static str)>>,
    /// Nanoseconds per timestamp tick ([`wgpu::Queue::get_timestamp_period`]).
    period_ns: f64,
    /// Seconds per stage so far.
    pub(crate) totals: [f64; 6],
    /// Seconds per compute-pass label so far: the stages split into their passes
    /// (`bench`'s `pass_ms_per_step`).
    pub(crate) by_pass: BTreeMap<&'static str, f64>,
}

impl Profiler {
    pub(crate) fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Self {
        Self {
            query_set: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("stage timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: 2 * MAX_PAIRS,
            }),
            resolve: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("stage timestamps resolved"),
                size: 16 * MAX_PAIRS as u64,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            pairs: RefCell::new(Vec::new()),
            period_ns: queue.get_timestamp_period() as f64,
            totals: [0.0; 6],
            by_pass: BTreeMap::new(),
        }
    }

    /// Timestamp writes for the next pass of `stage`, labelled `label`, or `None` once the set is
    /// full.
    pub(crate) fn writes(
        &self,
        stage: usize,
        label: &'static str,
    ) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        let mut pairs = self.pairs.borrow_mut();
        let k = pairs.len() as u32;
        if k >= MAX_PAIRS {
            return None;
        }
        pairs.push((stage, label));
        Some(wgpu::ComputePassTimestampWrites {
            query_set: &self.query_set,
            beginning_of_pass_write_index: Some(2 * k),
            end_of_pass_write_index: Some(2 * k + 1),
        })
    }

    /// Queries recorded since the last accumulation (to resolve), 0 if none.
    pub(crate) fn pending(&self) -> u32 {
        2 * self.pairs.borrow().len() as u32
    }

    /// Adds the resolved ticks of the pending pairs to the totals.
    pub(crate) fn accumulate(&mut self, ticks: &[u64]) {
        let pairs = std::mem::take(&mut *self.pairs.borrow_mut());
        for (k, &(s, label)) in pairs.iter().enumerate() {
            let (t0, t1) = (ticks[2 * k], ticks[2 * k + 1]);
            // A begin after its end means the driver's clock wrapped or reset; drop the pair.
            if t1 >= t0 {
                let secs = (t1 - t0) as f64 * self.period_ns * 1e-9;
                self.totals[s] += secs;
                *self.by_pass.entry(label).or_insert(0.0) += secs;
            }
        }
    }
}
