//! The progress of a run on standard error: a bar on a terminal, otherwise a line now and then.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Default seconds between progress lines when no bar is shown (`--progress-every`).
pub const PROGRESS_LOG_SECONDS: u64 = 10;

/// Progress of a run: a bar with simulated time, steps/s and the ETA on a terminal; otherwise
/// (`--quiet`, or a batch job's log) a line every `--progress-every` seconds; nothing when both
/// are off.
pub(super) struct Progress {
    bar: Option<ProgressBar>,
    log_every: Option<Duration>,
    last_log: Instant,
    start: Instant,
    first: u64,
    total: u64,
    dt: f64,
}

impl Progress {
    pub(super) fn new(
        bar: bool,
        lines_every: Option<u64>,
        first: u64,
        total: u64,
        dt: f64,
    ) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let bar = (bar && terminal).then(|| {
            let b = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} steps  {msg}",
                )
                .expect("valid template"),
            );
            b.set_position(first);
            b
        });
        Progress {
            log_every: if bar.is_none() {
                lines_every.filter(|&s| s > 0).map(Duration::from_secs)
            } else {
                None
            },
            bar,
            last_log: Instant::now(),
            start: Instant::now(),
            first,
            total,
            dt,
        }
    }

    /// Steps per second of this session, and the seconds left at that rate.
    fn rate_eta(&self, done: u64) -> (f64, f64) {
        let rate = (done - self.first) as f64 / self.start.elapsed().as_secs_f64().max(1e-9);
        let eta = self.total.saturating_sub(done) as f64 / rate.max(1e-9);
        (rate, eta)
    }

    pub(super) fn set(&mut self, done: u64) {
        let (rate, eta) = self.rate_eta(done);
        let t = done as f64 * self.dt;
        if let Some(b) = &self.bar {
            b.set_position(done);
            b.set_message(format!(
                "t = {} s  {}  eta {}",
                fmt_sig(t),
                fmt_rate(rate),
                fmt_duration(eta)
            ));
        } else if let Some(every) = self.log_every
            && self.last_log.elapsed() >= every
        {
            self.last_log = Instant::now();
            crate::note!(
                "progress: step {done}/{} ({:.1} %), t = {} s of {} s, {}, elapsed {}, eta {}",
                self.total,
                100.0 * done as f64 / self.total.max(1) as f64,
                fmt_sig(t),
                fmt_sig(self.total as f64 * self.dt),
                fmt_rate(rate),
                fmt_duration(self.start.elapsed().as_secs_f64()),
                fmt_duration(eta)
            );
        }
    }

    pub(super) fn abandon(&self) {
        if let Some(b) = &self.bar {
            b.abandon();
        }
    }

    pub(super) fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// `x` with 4 significant digits (`0.01234`, `12.35`, `1.235e5`).
fn fmt_sig(x: f64) -> String {
    if x == 0.0 || (1e-3..1e5).contains(&x.abs()) {
        let digits = if x == 0.0 {
            0
        } else {
            (3 - x.abs().log10().floor() as i32).max(0) as usize
        };
        format!("{x:.digits$}")
    } else {
        format!("{x:.3e}")
    }
}

/// Steps per second, readable at any rate.
fn fmt_rate(rate: f64) -> String {
    if rate >= 100.0 {
        format!("{rate:.0} steps/s")
    } else {
        format!("{rate:.2} steps/s")
    }
}

/// Seconds as `45 s`, `12 min 5 s` or `3 h 20 min`.
fn fmt_duration(secs: f64) -> String {
    if !secs.is_finite() {
        return "unknown".into();
    }
    let s = secs.round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}
