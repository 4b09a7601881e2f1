//! The `spheresim run` driver as library calls: load a scene with the command-line overrides,
//! step it with snapshots and a progress bar, and summarise the run.
//!
//! ```no_run
//! use spheresim::run::{RunOptions, SceneOptions, SimRun};
//! use std::sync::atomic::AtomicBool;
//! let scene = SceneOptions::new("bounce").steps(500).load()?;
//! let run = SimRun::new(&scene, RunOptions::default())?;
//! let report = run.execute(&AtomicBool::new(false))?;
//! print!("{report}");
//! # Ok::<(), anyhow::Error>(())
//! ```

mod execute;
mod options;
mod progress;
mod report;
mod signal;

pub use execute::{ENERGY_DRIFT_LIMIT, SimRun};
pub use options::{RunOptions, SceneOptions};
pub use progress::PROGRESS_LOG_SECONDS;
pub use report::{ENERGY_DRIFT_WARNING, MOMENTUM_DRIFT_WARNING, RunReport};
pub use signal::{ctrl_c_flag, stop_signal};
