//! Output files: final-state and snapshot CSV, VTK snapshots with a ParaView time series, an
//! energy log and the run statistics JSON. Every file is written atomically.
//!
//! # Files and formats
//!
//! | writer | file | format |
//! |---|---|---|
//! | [`write_csv`] | any `*.csv` (`--final`) | text, header `id,x,y,z,vx,vy,vz,radius,mass`, SI units, one row per sphere in input order ([`csv`]) |
//! | [`write_vtk`] | any `*.vtk` | legacy VTK 3.0 `POLYDATA`, binary big-endian, doubles ([`vtk`]) |
//! | [`write_vtp`] | any `*.vtp` | VTK XML `PolyData`, raw appended little-endian data ([`vtk`]) |
//! | [`SeriesWriter`] | `DIR/snapshot_{step:08}.csv`, `DIR/snapshot_{step:08}.vtp`, `DIR/series.pvd` | one CSV and one VTP per snapshot plus a ParaView collection listing them with their times ([`vtk`]) |
//! | [`write_energy_log`] | any `*.csv` | text, one row of [`Diagnostics`](crate::Diagnostics) per sample ([`energy`]) |
//! | [`write_stats_json`] | any `*.json` (`--stats-json`) | pretty JSON object [`RunStats`] ([`stats`]) |
//!
//! # Atomicity and early failure
//!
//! Every writer goes through [`write_atomic`]: the bytes go to a temporary file in the target's
//! directory, which is flushed, synced and renamed onto the target only when complete. A failed
//! write, a crash or Ctrl-C therefore never leaves a half-written file at the target path (after
//! a hard kill a stray `.NAME.XXXXXX.tmp` may remain beside it). A symbolic link is followed to
//! its target; FIFOs, devices and `/dev/stdout` are written through in place. Call [`check_writable_file`] for
//! single files and [`prepare_output_dir`] (or [`SeriesWriter::new`]) for snapshot directories
//! *before* stepping, so that a bad path fails at once with nothing written.
//!
//! All errors are [`OutputError`]s whose messages name the path and the reason.

pub mod atomic;
pub mod csv;
pub mod energy;
mod error;
pub mod stats;
pub mod vtk;

pub use atomic::{check_writable_file, prepare_output_dir, write_atomic};
pub use csv::{CSV_HEADER, read_csv, write_csv};
pub use energy::{
    ENERGY_LOG_HEADER, write_energy_log, write_energy_log_open, write_energy_log_with_walls,
};
pub use error::OutputError;
pub(crate) use error::io_reason;
pub use stats::{RunStats, write_stats_json};
pub use vtk::{
    PVD_FILE_NAME, SeriesEntry, SeriesWriter, SnapshotFormat, VTK_SERIES_FILE_NAME,
    snapshot_file_name, write_pvd, write_vtk, write_vtk_series, write_vtp,
};
