//! How many steps a halting submission records (`GpuBackend::step`): with a skin, only a
//! submission's first step bins, and a later step that must rebuild the list halts the rest
//! (docs/architecture.md, "GPU specifics"). A step too many halts the last step's tail (11
//! empty dispatches with impulses); a step too few costs a submission whose binning finds
//! nothing to do (18). So a submission is planned to end just before the next rebuild.
//!
//! The prediction reads the reach fraction: how far the spheres have gone towards the list's
//! rebuild threshold (1), the largest `moved / sweep` of `needs_rebuild`, which the drift
//! reports in the status (integrate.wgsl's `reach_fraction`). While the spheres fly free it
//! grows by about the same each step, and it is one step's growth after a rebuild's own step.

use super::STEPS_PER_SUBMIT;
use super::buffers::Status;

/// The rebuild interval planned for before any was seen, in steps.
pub const FIRST_INTERVAL: u64 = 8;

/// What sizes halting submissions: the last two intervals between rebuilds (steps), the steps
/// completed since the last rebuild (counting the rebuild's own step, and at set-up the build
/// before the first drift), the reach fraction's samples since then and its last rate (a
/// step's growth).
#[derive(Clone, Copy, Debug)]
pub struct Planner {
    intervals: [u64; 2],
    since_rebuild: u64,
    reach: Option<Reach>,
    rate: Option<f64>,
}

impl Default for Planner {
    fn default() -> Self {
        Self {
            intervals: [FIRST_INTERVAL; 2],
            since_rebuild: 1,
            reach: None,
            rate: None,
        }
    }
}

impl Planner {
    /// Steps to record into the next submission, of `left` (at most [`STEPS_PER_SUBMIT`]); a
    /// backend that is not `halting` records them all. Within an interval the reach fraction's
    /// last samples predict the rebuild; a submission expected to start with one runs
    /// [`Planner::interval`].
    pub fn plan(&self, halting: bool, left: u64) -> u64 {
        let m = if !halting {
            STEPS_PER_SUBMIT
        } else if let Some(r) = self.reach.and_then(|r| r.steps_left()) {
            if r == 0 { self.interval() } else { r }
        } else if self.since_rebuild < self.interval() {
            self.interval() - self.since_rebuild
        } else {
            self.interval()
        };
        m.clamp(1, STEPS_PER_SUBMIT).min(left)
    }

    /// What [`Planner::plan`] gives a submission that starts with a rebuild, of `left` steps: the
    /// batch `GpuBackend::step` records ahead while the GPU runs the current one. Clamped as
    /// `plan` is: unclamped, a list lasting thousands of steps recorded thousands of steps ahead,
    /// which `plan` then discarded (benches/NOTES.md, 2026-11-27).
    pub fn plan_after_rebuild(&self, halting: bool, left: u64) -> u64 {
        let m = if halting {
            self.interval()
        } else {
            STEPS_PER_SUBMIT
        };
        m.clamp(1, STEPS_PER_SUBMIT).min(left)
    }

    /// The steps a submission that starts with a rebuild is planned for: the longer of the
    /// last two intervals between rebuilds; from three on, those the reach fraction's last rate
    /// allows, if fewer. Where every step or two rebuilds (an impact), the intervals alone plan.
    pub fn interval(&self) -> u64 {
        let last = self.intervals[0].max(self.intervals[1]);
        match self.rate {
            Some(r) if r > 0.0 && last >= 3 => ((1.0 / r).floor() as u64).clamp(1, last),
            _ => last,
        }
    }

    /// Takes in the status of a submission that recorded `recorded` steps: its rebuild, the
    /// steps it completed (fewer when it halted), and the reach fraction.
    pub fn track(&mut self, recorded: u64, status: &Status) {
        let completed = status.steps as u64;
        if status.rebuilds > 0 {
            if self.since_rebuild > 0 {
                self.intervals = [self.since_rebuild, self.intervals[0]];
            }
            self.since_rebuild = completed;
            self.reach = None;
        } else {
            self.since_rebuild += completed;
        }
        if completed < recorded {
            // Halted: the next submission starts with the rebuild.
            if self.since_rebuild > 0 {
                self.intervals = [self.since_rebuild, self.intervals[0]];
            }
            self.since_rebuild = 0;
            self.reach = None;
            return;
        }
        let f = f32::from_bits(status.reach) as f64;
        if f > 0.0 && self.since_rebuild > 0 {
            self.rate = Some(f / self.since_rebuild as f64);
            // The first sample after a rebuild pairs with (0, 0).
            let first = self.reach.map_or(Some((0, 0.0)), |r| Some(r.last));
            self.reach = Some(Reach {
                first: first.filter(|&(s, _)| s < self.since_rebuild),
                last: (self.since_rebuild, f),
            });
        }
    }
}

/// Samples of the reach fraction since the last rebuild: `(steps since it, fraction)`.
#[derive(Clone, Copy, Debug)]
struct Reach {
    first: Option<(u64, f64)>,
    last: (u64, f64),
}

impl Reach {
    /// Steps that can still complete before the fraction passes 1, at the rate between the two
    /// samples.
    fn steps_left(&self) -> Option<u64> {
        let (s1, f1) = self.first?;
        let (s2, f2) = self.last;
        let rate = (f2 - f1) / (s2 - s1) as f64;
        (rate > 0.0 && f2 <= 1.0).then(|| ((1.0 - f2) / rate).floor() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(steps: u32, rebuilds: u32, reach: f32) -> Status {
        Status {
            steps,
            rebuilds,
            reach: reach.to_bits(),
            ..Status::default()
        }
    }

    /// A gas whose reach fraction grows by 0.1 a step rebuilds every 10 steps: once the planner
    /// has seen the rate, a submission that starts with a rebuild runs 10 steps, and four steps
    /// into an interval the samples plan the rest.
    #[test]
    fn a_steady_rate_plans_whole_intervals() {
        let mut p = Planner::default();
        // Set-up's build, then 9 steps, the 10th halted (since counts the build).
        p.track(10, &status(9, 0, 0.0));
        assert_eq!(p.plan(true, 100), 10);
        p.track(10, &status(10, 1, 1.0));
        assert_eq!(p.interval(), 10);
        // 4 steps at 0.095 a step: 6 more fit under 1 (0.95), the 7th would not.
        p.track(4, &status(4, 1, 0.38));
        assert_eq!(p.plan(true, 100), 6);
        assert_eq!(p.plan(true, 3), 3);
        assert_eq!(p.plan(false, 100), STEPS_PER_SUBMIT);
    }

    /// Where every step rebuilds (an impact: the fastest sphere goes most of its sweep in a
    /// step), submissions are one step long.
    #[test]
    fn an_impact_plans_single_steps() {
        let mut p = Planner::default();
        for _ in 0..3 {
            p.track(1, &status(1, 1, 0.9));
        }
        assert_eq!(p.interval(), 1);
        assert_eq!(p.plan(true, 100), 1);
    }
}
