//! Work counters: figures of the GPU step that need no GPU to mean something.
//!
//! A step's cost on a large GPU is set by how many dispatches it records (each costs a few µs
//! of launch and drain) and by its slowest invocation: a pass with 10⁴–10⁵ lanes in flight
//! waits on the one lane with the most work. [`WorkCounts`] gives both: dispatches per step,
//! counted as the step is recorded, and the candidate pairs each invocation of the contact
//! passes visits, counted in a replay with the `collide` pipelines compiled with the override
//! `COUNT_VISITS` (so that the timed steps carry no counting).
//!
//! The visits are counted apart for the two kinds of contact pass, because a lane waits only
//! on the lanes of its own dispatch: [`ENTRY_PASS`] and [`ROW_PASS`]; and apart again for the
//! list build's walks ([`BUILD_PASS`], the neighbours pipelines with the same override), where
//! a large sphere's walk once took one work-group a rebuild on a 10⁶-sphere wall-break, several
//! milliseconds on an H200 that no contact counter showed (benches/NOTES.md).

/// Kind of contact pass with one invocation per list entry (`collide_pairs`, `impulse_pairs`);
/// `ENTRY_PASS` in collide.wgsl.
pub const ENTRY_PASS: usize = 0;

/// Kind of contact pass with one invocation per small sphere's row and a work-group per large
/// sphere's (`sum_pairs`, `earliest_from_pairs`, `sum_impulses`); `ROW_PASS` in collide.wgsl.
pub const ROW_PASS: usize = 1;

/// Kind of pass of the list build's walks, one invocation per small sphere's row and
/// `neighbours::large_chunks` work-groups per large sphere's (`list_count`, `list_fill` and
/// their large-sphere passes); a visit is a candidate tested, a large sphere's box tested, or
/// a cell or sphere of a large sphere's box walk. `BUILD_PASS` in neighbours.wgsl.
pub const BUILD_PASS: usize = 2;

/// Words of the counters buffer: 8 per kind of pass.
pub const WORDS: usize = 24;

/// The visits of one kind of contact pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct PassWork {
    /// Invocations that reported visits.
    pub invocations: u64,
    /// Candidate pairs visited.
    pub pair_visits: u64,
    /// The most candidate pairs one invocation visited.
    pub max_pair_visits: u32,
}

impl PassWork {
    /// Mean candidate pairs visited per invocation (`None` when nothing was counted).
    pub fn mean(&self) -> Option<f64> {
        (self.invocations > 0).then(|| self.pair_visits as f64 / self.invocations as f64)
    }

    /// The busiest invocation's visits over the mean (`None` when nothing was visited): how
    /// long a pass waits on its busiest lane, relative to an even share.
    pub fn max_over_mean(&self) -> Option<f64> {
        self.mean()
            .filter(|&m| m > 0.0)
            .map(|m| self.max_pair_visits as f64 / m)
    }
}

/// What the contact passes and the recording of a step did, over the steps counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct WorkCounts {
    /// Compute dispatches per step (`None` before any step was recorded).
    pub dispatches_per_step: Option<f64>,
    /// Of those, the dispatches that run work-groups, on average over the counted steps: the
    /// binning's and the list build's indirect dispatches run only in a step that rebuilds and
    /// are empty in the others.
    pub dispatches_with_work_per_step: Option<f64>,
    /// Bytes the dispatches recorded per step may move, on average over the counted steps: for
    /// each dispatch, the bound size of each buffer its entry point uses, twice when it both
    /// reads and writes it ([`super::traffic`]; an upper bound on DRAM traffic).
    pub bytes_per_step: Option<f64>,
    /// Of those, the bytes of the dispatches with work (as `dispatches_with_work_per_step`:
    /// the empty binnings and halted tails move nothing).
    pub bytes_with_work_per_step: Option<f64>,
    /// Invocations of the contact passes that reported visits (every sphere's, per pass; a
    /// large sphere's work-group counts its 256 lanes).
    pub invocations: u64,
    /// Candidate pairs visited, all passes together.
    pub pair_visits: u64,
    /// The most candidate pairs one invocation visited in one pass.
    pub max_pair_visits_per_invocation: u32,
    /// The same, by kind of pass: [`ENTRY_PASS`], [`ROW_PASS`].
    pub by_pass: [PassWork; 2],
    /// The list build's walks ([`BUILD_PASS`]), apart from the contact passes above.
    pub build: PassWork,
}

impl WorkCounts {
    /// Mean candidate pairs visited per invocation (`None` when nothing was counted).
    pub fn mean_pair_visits_per_invocation(&self) -> Option<f64> {
        (self.invocations > 0).then(|| self.pair_visits as f64 / self.invocations as f64)
    }

    /// The larger of the two kinds' [`PassWork::max_over_mean`] (`None` when nothing was
    /// visited).
    pub fn max_over_mean(&self) -> Option<f64> {
        self.by_pass
            .iter()
            .filter_map(PassWork::max_over_mean)
            .reduce(f64::max)
    }
}

/// The `WorkCounters` buffer (common.wgsl, one 8-word record per kind of pass), as read back.
pub fn from_words(
    w: &[u32; WORDS],
    dispatches_per_step: Option<f64>,
    dispatches_with_work_per_step: Option<f64>,
) -> WorkCounts {
    let wide = |lo: u32, hi: u32| (hi as u64) << 32 | lo as u64;
    let pass = |k: usize| {
        let w = &w[8 * k..8 * k + 8];
        PassWork {
            invocations: wide(w[1], w[2]),
            pair_visits: wide(w[3], w[4]),
            max_pair_visits: w[0],
        }
    };
    let by_pass = [pass(ENTRY_PASS), pass(ROW_PASS)];
    let build = pass(BUILD_PASS);
    WorkCounts {
        dispatches_per_step,
        dispatches_with_work_per_step,
        bytes_per_step: None,
        bytes_with_work_per_step: None,
        invocations: by_pass.iter().map(|p| p.invocations).sum(),
        pair_visits: by_pass.iter().map(|p| p.pair_visits).sum(),
        max_pair_visits_per_invocation: by_pass
            .iter()
            .map(|p| p.max_pair_visits)
            .max()
            .unwrap_or(0),
        by_pass,
        build,
    }
}

// The counting itself, on the backend.
impl super::GpuBackend {
    /// Counts work from now on, or stops counting: the contact passes switch to pipelines
    /// that count the candidate pairs each invocation visits (`work`), and the counters and
    /// the dispatch tally start from zero. The counting pipelines are compiled at the first
    /// call.
    pub fn set_work_counting(&mut self, on: bool) {
        if on && self.counting.is_none() {
            self.counting = Some(super::collide::CollidePipelines::new(
                &self.ctx.device,
                &self.stages.collide.module,
                true,
            ));
            self.counting_walks = Some(super::neighbours::Walks::new(
                &self.ctx.device,
                &self.stages.neighbours.module,
                true,
            ));
        }
        if !on {
            self.counting = None;
            self.counting_walks = None;
        }
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        enc.clear_buffer(&self.shared.work, 0, None);
        self.ctx.queue.submit([enc.finish()]);
        self.step_dispatches = 0;
        self.step_with_work = 0;
        self.counted_steps = 0;
        self.step_bytes = 0;
        self.step_bytes_with_work = 0;
    }

    /// The work counted since [`super::GpuBackend::set_work_counting`] (pair visits only while it is
    /// on; dispatches and bytes per step always).
    pub fn work_counts(&self) -> WorkCounts {
        let bytes = 4 * WORDS as u64;
        let words: Vec<u32> = self.read(&self.shared.work, bytes);
        let words: [u32; WORDS] = words[..WORDS].try_into().expect("counter words");
        let steps = self.counted_steps as f64;
        let per_step = (steps > 0.0).then(|| self.step_dispatches as f64 / steps);
        let with_work = (steps > 0.0).then(|| self.step_with_work as f64 / steps);
        WorkCounts {
            bytes_per_step: (steps > 0.0).then(|| self.step_bytes as f64 / steps),
            bytes_with_work_per_step: (steps > 0.0)
                .then(|| self.step_bytes_with_work as f64 / steps),
            ..from_words(&words, per_step, with_work)
        }
    }
}
