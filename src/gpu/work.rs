//! Work counters: figures of the GPU step that need no GPU to mean something.
//!
//! A step's cost on a large GPU is set by how many dispatches it records (each costs a few µs
//! of launch and drain) and by its slowest invocation: a pass with 10⁴–10⁵ lanes in flight
//! waits on the one lane with the most work. [`WorkCounts`] gives both: dispatches per step,
//! counted as the step is recorded, and the candidate pairs each invocation of the contact
//! passes visits, counted in a replay with the `collide` pipelines compiled with the override
//! `COUNT_VISITS` (so that the timed steps carry no counting).

/// What the contact passes and the recording of a step did, over the steps counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct WorkCounts {
    /// Compute dispatches per step (`None` before any step was recorded).
    pub dispatches_per_step: Option<f64>,
    /// Invocations of the contact passes that reported visits (every sphere's, per pass; a
    /// large sphere's work-group counts its 256 lanes).
    pub invocations: u64,
    /// Candidate pairs visited, all passes together.
    pub pair_visits: u64,
    /// The most candidate pairs one invocation visited in one pass.
    pub max_pair_visits_per_invocation: u32,
}

impl WorkCounts {
    /// Mean candidate pairs visited per invocation (`None` when nothing was counted).
    pub fn mean_pair_visits_per_invocation(&self) -> Option<f64> {
        (self.invocations > 0).then(|| self.pair_visits as f64 / self.invocations as f64)
    }
}

/// Words of the `WorkCounters` buffer (collide.wgsl), as read back.
pub fn from_words(w: &[u32; 8], dispatches_per_step: Option<f64>) -> WorkCounts {
    let wide = |lo: u32, hi: u32| (hi as u64) << 32 | lo as u64;
    WorkCounts {
        dispatches_per_step,
        invocations: wide(w[1], w[2]),
        pair_visits: wide(w[3], w[4]),
        max_pair_visits_per_invocation: w[0],
    }
}
