//! Stopping a run by a signal: Ctrl-C (SIGINT) and, on Unix, SIGTERM and SIGHUP.

use anyhow::{Context, Result};
use std::sync::atomic::{AtomicBool, Ordering};

/// The first signal that stopped the run (0: none), set by [`ctrl_c_flag`]'s handlers.
static STOP_SIGNAL: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// The flag [`ctrl_c_flag`] returned, for the SIGTERM and SIGHUP handler.
#[cfg(unix)]
static STOP_FLAG: std::sync::OnceLock<std::sync::Arc<AtomicBool>> = std::sync::OnceLock::new();

/// SIGINT's number, on every platform (`ctrlc` reports Ctrl-C as it).
pub(super) const SIGINT: i32 = 2;

/// The signal that stopped this process's run: SIGINT (2), SIGTERM (15) or SIGHUP (1); `None`
/// before one arrives or without [`ctrl_c_flag`].
pub fn stop_signal() -> Option<i32> {
    match STOP_SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// Installs handlers for Ctrl-C (SIGINT) and, on Unix, SIGTERM and SIGHUP, that set the
/// returned flag (for [`SimRun::execute`]) and record the signal ([`stop_signal`]). Each stops
/// the run the same way: a checkpoint, the final state and the statistics with
/// `"interrupted": true`; [`RunReport::exit_code`] then gives 128 + the signal. Batch schedulers
/// send SIGTERM some time before they kill a job; a closed terminal sends SIGHUP. A SIGTERM or
/// SIGHUP this process inherited as ignored (`nohup`) stays ignored.
///
/// # Errors
/// When a handler is already installed in this process (this is called once).
///
/// [`SimRun::execute`]: super::SimRun::execute
/// [`RunReport::exit_code`]: super::RunReport::exit_code
pub fn ctrl_c_flag() -> Result<std::sync::Arc<AtomicBool>> {
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    ctrlc::set_handler(move || {
        let _ = STOP_SIGNAL.compare_exchange(0, SIGINT, Ordering::SeqCst, Ordering::SeqCst);
        s.store(true, Ordering::SeqCst)
    })
    .context("installing the Ctrl-C handler")?;
    #[cfg(unix)]
    {
        use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, sigaction};
        STOP_FLAG
            .set(stop.clone())
            .map_err(|_| anyhow::anyhow!("the stop signal handlers are already installed"))?;
        // Async-signal-safe: the handler only stores to atomics.
        extern "C" fn on_signal(sig: std::ffi::c_int) {
            let _ = STOP_SIGNAL.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
            if let Some(f) = STOP_FLAG.get() {
                f.store(true, Ordering::SeqCst);
            }
        }
        let action = SigAction::new(
            SigHandler::Handler(on_signal),
            SaFlags::SA_RESTART,
            SigSet::empty(),
        );
        for sig in [Signal::SIGTERM, Signal::SIGHUP] {
            // SAFETY: the handler touches nothing but atomics and an initialised OnceLock.
            let old = unsafe { sigaction(sig, &action) }
                .with_context(|| format!("installing the {sig} handler"))?;
            // An ignored signal stays ignored: `nohup spheresim run ...` must outlive its
            // terminal.
            if matches!(old.handler(), SigHandler::SigIgn) {
                // SAFETY: puts back the action that was there.
                unsafe { sigaction(sig, &old) }
                    .with_context(|| format!("restoring {sig}'s ignored state"))?;
            }
        }
    }
    Ok(stop)
}
