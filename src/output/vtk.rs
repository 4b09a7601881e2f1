//! VTK snapshots for ParaView (and VisIt, PyVista, meshio) and the ParaView time series.
//!
//! Each sphere becomes one point carrying one `VERTEX` cell (so it renders with no filter) and
//! the point arrays `radius` (m), `mass` (kg, `inf` for fixed spheres), `id` (input index) and
//! the vectors `velocity` (m/s) and `angular_velocity` (rad/s). In ParaView, apply *Glyph* (sphere, scale array `radius`, scale
//! factor 2) or use the *Point Gaussian* representation to see spheres. All numbers are binary
//! IEEE doubles, so values (`inf` included) are exact and files stay compact for millions of
//! spheres (112 bytes per sphere in `.vtp`, 100 in legacy `.vtk`).
//!
//! Two encodings of the same data:
//!
//! * [`write_vtk`]: legacy VTK, `# vtk DataFile Version 3.0`, `BINARY` (big-endian, as the legacy
//!   format requires), `DATASET POLYDATA`, `POINTS n double`, `VERTICES n 2n` (32-bit ints),
//!   `POINT_DATA n` with `SCALARS radius double 1` (the active scalars), `VECTORS velocity
//!   double`, and `FIELD FieldData 3` holding `mass 1 n double`, `id 1 n int` and
//!   `angular_velocity 3 n double` (field arrays,
//!   because VTK's legacy readers load only the first `SCALARS` block unless told otherwise).
//!   The title line records the step and time. With no spheres the `VERTICES` section is left
//!   out (VTK cannot read an empty one). Limited to 2³⁰ − 1 spheres by the 32-bit cell array.
//! * [`write_vtp`]: VTK XML `PolyData` (`.vtp`), version 1.0, `header_type="UInt64"`, all
//!   arrays `format="appended"` in one raw little-endian `<AppendedData>` block; `id`,
//!   `connectivity` and `offsets` are `Int64`. A `FieldData` array `TimeValue` holds the time.
//!
//! ParaView's `.pvd` collection reader only opens XML files (`.vtp`, `.vtu`, …), not legacy
//! `.vtk`, so the time series written by [`SeriesWriter`] uses `.vtp`; [`write_pvd`] writes the
//! collection.
//!
//! # Series layout
//!
//! [`SeriesWriter`] fills one directory with
//!
//! * `snapshot_{step:08}.csv`: the state CSV ([`super::csv`]), e.g. `snapshot_00001000.csv`;
//! * `snapshot_{step:08}.vtp`: the same state as VTK XML PolyData;
//! * `snapshot_{step:08}.vtk`: legacy VTK, only when [`SeriesWriter::with_legacy_vtk`] asks;
//! * `series.pvd`: the ParaView collection listing every `.vtp` written so far with its time
//!   (`timestep` = simulated time in s), rewritten atomically after each snapshot's files are
//!   complete, so it never lists a missing or partial file. Open this one in ParaView.
//! * `series.vtk.series`: with legacy VTK, ParaView's JSON file-series format (ParaView ≥ 5.5)
//!   listing the `.vtk` files with their times, rewritten the same way; ParaView opens it as one
//!   time series of legacy files.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::atomic::{prepare_output_dir, write_atomic};
use super::csv::{check_lengths, fmt_f64, write_csv};
use super::error::OutputError;
use crate::Snapshot;

/// File name of the ParaView collection in a series directory.
pub const PVD_FILE_NAME: &str = "series.pvd";

/// File name of the ParaView file-series list of the legacy `.vtk` snapshots.
pub const VTK_SERIES_FILE_NAME: &str = "series.vtk.series";

/// Name of the snapshot file for `step` with extension `ext` (no dot):
/// `snapshot_{step:08}.{ext}`, e.g. `snapshot_00000100.vtp`.
pub fn snapshot_file_name(step: u64, ext: &str) -> String {
    format!("snapshot_{step:08}.{ext}")
}

/// Largest sphere count the legacy format's 32-bit `VERTICES` size field can hold.
const LEGACY_MAX_POINTS: usize = (i32::MAX / 2) as usize;

/// Writes `snap` as legacy binary VTK POLYDATA (see the [module docs](self)) to `path`,
/// atomically.
///
/// # Errors
/// [`OutputError::Write`] naming `path` when the snapshot is inconsistent, has more than
/// 2³⁰ − 1 spheres, or the file cannot be written; the target is then left untouched.
pub fn write_vtk(path: &Path, snap: &Snapshot) -> Result<(), OutputError> {
    check_lengths(path, snap)?;
    let n = snap.len();
    if n > LEGACY_MAX_POINTS {
        return Err(OutputError::write(
            path,
            format!(
                "{n} spheres exceed the legacy VTK limit of {LEGACY_MAX_POINTS}; write .vtp instead"
            ),
        ));
    }
    write_atomic(path, |w| {
        write!(
            w,
            "# vtk DataFile Version 3.0\n\
             spheresim snapshot step {} time {} s\n\
             BINARY\n\
             DATASET POLYDATA\n\
             POINTS {n} double\n",
            snap.step,
            fmt_f64(snap.time)
        )?;
        put_words(
            w,
            snap.position.iter().flat_map(|p| p.to_array()),
            f64::to_be_bytes,
        )?;
        // VTK's legacy reader fails on an empty `VERTICES 0 0` section, so it is left out
        // when there are no spheres.
        if n > 0 {
            write!(w, "\nVERTICES {n} {}\n", 2 * n)?;
            put_words(w, (0..n as i32).flat_map(|i| [1, i]), i32::to_be_bytes)?;
        }
        write!(
            w,
            "\nPOINT_DATA {n}\nSCALARS radius double 1\nLOOKUP_TABLE default\n"
        )?;
        put_words(w, snap.radius.iter().copied(), f64::to_be_bytes)?;
        write!(w, "\nVECTORS velocity double\n")?;
        put_words(
            w,
            snap.velocity.iter().flat_map(|v| v.to_array()),
            f64::to_be_bytes,
        )?;
        write!(w, "\nFIELD FieldData 3\nmass 1 {n} double\n")?;
        put_words(w, snap.mass.iter().copied(), f64::to_be_bytes)?;
        write!(w, "\nid 1 {n} int\n")?;
        // Legacy VTK's `int` is 32 bits: ids past 2³¹ − 1 would need `vtkIdType`.
        put_words(w, (0..n).map(|i| snap.id_of(i) as i32), i32::to_be_bytes)?;
        write!(w, "\nangular_velocity 3 {n} double\n")?;
        put_words(
            w,
            (0..n).flat_map(|i| snap.angular_velocity_of(i).to_array()),
            f64::to_be_bytes,
        )?;
        w.write_all(b"\n")
    })
}

/// Writes `snap` as VTK XML PolyData with raw appended data (see the [module docs](self)) to
/// `path`, atomically.
///
/// # Errors
/// [`OutputError::Write`] naming `path` when the snapshot is inconsistent or the file cannot be
/// written; the target is then left untouched.
pub fn write_vtp(path: &Path, snap: &Snapshot) -> Result<(), OutputError> {
    check_lengths(path, snap)?;
    let n = snap.len();
    let n64 = n as u64;
    // (name, type, components) in the order the blocks are appended.
    let arrays: [(&str, &str, u64); 8] = [
        ("radius", "Float64", 1),
        ("mass", "Float64", 1),
        ("id", "Int64", 1),
        ("velocity", "Float64", 3),
        ("angular_velocity", "Float64", 3),
        ("Points", "Float64", 3),
        ("connectivity", "Int64", 1),
        ("offsets", "Int64", 1),
    ];
    let mut offsets = [0u64; 8];
    let mut at = 0u64;
    for (k, &(_, _, comps)) in arrays.iter().enumerate() {
        offsets[k] = at;
        at += 8 + 8 * comps * n64;
    }
    let da = |k: usize| {
        let (name, ty, comps) = arrays[k];
        format!(
            "<DataArray type=\"{ty}\" Name=\"{name}\" NumberOfComponents=\"{comps}\" \
             format=\"appended\" offset=\"{}\"/>",
            offsets[k]
        )
    };
    write_atomic(path, |w| {
        write!(
            w,
            "<?xml version=\"1.0\"?>\n\
             <VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n\
             \x20 <!-- spheresim snapshot step {step} time {time} s -->\n\
             \x20 <PolyData>\n\
             \x20   <FieldData>\n\
             \x20     <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">{time}</DataArray>\n\
             \x20   </FieldData>\n\
             \x20   <Piece NumberOfPoints=\"{n}\" NumberOfVerts=\"{n}\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n\
             \x20     <PointData Scalars=\"radius\" Vectors=\"velocity\">\n\
             \x20       {}\n\
             \x20       {}\n\
             \x20       {}\n\
             \x20       {}\n\
             \x20       {}\n\
             \x20     </PointData>\n\
             \x20     <Points>\n\
             \x20       {}\n\
             \x20     </Points>\n\
             \x20     <Verts>\n\
             \x20       {}\n\
             \x20       {}\n\
             \x20     </Verts>\n\
             \x20   </Piece>\n\
             \x20 </PolyData>\n\
             \x20 <AppendedData encoding=\"raw\">\n   _",
            da(0),
            da(1),
            da(2),
            da(3),
            da(4),
            da(5),
            da(6),
            da(7),
            step = snap.step,
            time = vtk_time(snap.time),
        )?;
        let header = |w: &mut dyn Write, comps: u64| w.write_all(&(8 * comps * n64).to_le_bytes());
        header(w, 1)?;
        put_words(w, snap.radius.iter().copied(), f64::to_le_bytes)?;
        header(w, 1)?;
        put_words(w, snap.mass.iter().copied(), f64::to_le_bytes)?;
        header(w, 1)?;
        put_words(w, (0..n).map(|i| snap.id_of(i) as i64), i64::to_le_bytes)?;
        header(w, 3)?;
        put_words(
            w,
            snap.velocity.iter().flat_map(|v| v.to_array()),
            f64::to_le_bytes,
        )?;
        header(w, 3)?;
        put_words(
            w,
            (0..n).flat_map(|i| snap.angular_velocity_of(i).to_array()),
            f64::to_le_bytes,
        )?;
        header(w, 3)?;
        put_words(
            w,
            snap.position.iter().flat_map(|p| p.to_array()),
            f64::to_le_bytes,
        )?;
        header(w, 1)?;
        put_words(w, 0..n64 as i64, i64::to_le_bytes)?;
        header(w, 1)?;
        put_words(w, 1..=n64 as i64, i64::to_le_bytes)?;
        w.write_all(b"\n  </AppendedData>\n</VTKFile>\n")
    })
}

/// A time for VTK text: shortest round-trip digits; non-finite times (which no reader parses
/// reliably) become 0.
fn vtk_time(t: f64) -> String {
    fmt_f64(if t.is_finite() { t } else { 0.0 })
}

/// Writes the words of `values` in the byte order chosen by `bytes`, through a local buffer.
fn put_words<T, const N: usize>(
    w: &mut dyn Write,
    values: impl Iterator<Item = T>,
    bytes: fn(T) -> [u8; N],
) -> io::Result<()> {
    const CHUNK: usize = 1 << 16;
    let mut buf = Vec::with_capacity(CHUNK + N);
    for v in values {
        buf.extend_from_slice(&bytes(v));
        if buf.len() >= CHUNK {
            w.write_all(&buf)?;
            buf.clear();
        }
    }
    w.write_all(&buf)
}

/// One snapshot in a series: its step, time and the file names (relative to the series
/// directory) written for it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SeriesEntry {
    /// Step number.
    pub step: u64,
    /// Simulated time, s.
    pub time: f64,
    /// `snapshot_{step:08}.csv` when CSV was asked for.
    pub csv: Option<String>,
    /// `snapshot_{step:08}.vtp`, the file `series.pvd` lists, when VTP was asked for.
    pub vtp: Option<String>,
    /// `snapshot_{step:08}.vtk` when legacy VTK was asked for.
    pub vtk: Option<String>,
}

/// Writes the ParaView collection `path` (normally `series.pvd`) listing `entries`' `.vtp` files
/// (entries without one are left out)
/// with `timestep` = their time in s, atomically. File names are written as given (relative
/// names resolve against the `.pvd`'s directory).
///
/// ```text
/// <?xml version="1.0"?>
/// <VTKFile type="Collection" version="0.1" byte_order="LittleEndian">
///   <Collection>
///     <DataSet timestep="0.001" group="" part="0" file="snapshot_00000010.vtp"/>
///   </Collection>
/// </VTKFile>
/// ```
///
/// # Errors
/// [`OutputError::Write`] naming `path` when it cannot be written.
pub fn write_pvd(path: &Path, entries: &[SeriesEntry]) -> Result<(), OutputError> {
    write_atomic(path, |w| {
        w.write_all(
            b"<?xml version=\"1.0\"?>\n\
              <VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n\
              \x20 <Collection>\n",
        )?;
        for (e, vtp) in entries
            .iter()
            .filter_map(|e| e.vtp.as_ref().map(|v| (e, v)))
        {
            writeln!(
                w,
                "    <DataSet timestep=\"{}\" group=\"\" part=\"0\" file=\"{}\"/>",
                vtk_time(e.time),
                xml_escape(vtp)
            )?;
        }
        w.write_all(b"  </Collection>\n</VTKFile>\n")
    })
}

/// Writes ParaView's JSON file-series list (`{"file-series-version": "1.0", "files":
/// [{"name": …, "time": …}]}`) of the entries' legacy `.vtk` files, atomically. Entries without a
/// `.vtk` file are left out.
///
/// # Errors
/// [`OutputError::Write`] naming `path` when it cannot be written.
pub fn write_vtk_series(path: &Path, entries: &[SeriesEntry]) -> Result<(), OutputError> {
    let files: Vec<serde_json::Value> = entries
        .iter()
        .filter_map(|e| {
            e.vtk
                .as_ref()
                .map(|name| serde_json::json!({ "name": name, "time": e.time }))
        })
        .collect();
    let doc = serde_json::json!({ "file-series-version": "1.0", "files": files });
    write_atomic(path, |w| {
        serde_json::to_writer_pretty(&mut *w, &doc).map_err(io::Error::other)?;
        w.write_all(b"\n")
    })
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Writes a snapshot series into one directory (layout in the [module docs](self)).
///
/// ```no_run
/// # fn demo(snaps: &[spheresim::Snapshot]) -> Result<(), spheresim::output::OutputError> {
/// use spheresim::output::SeriesWriter;
/// let mut series = SeriesWriter::new("out")?; // before stepping: fails early on a bad path
/// for snap in snaps {
///     series.write(snap)?; // out/snapshot_{step:08}.csv, .vtp, then out/series.pvd
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct SeriesWriter {
    dir: PathBuf,
    entries: Vec<SeriesEntry>,
    csv: bool,
    vtp: bool,
    legacy_vtk: bool,
}

/// A snapshot file format of [`SeriesWriter`] (`spheresim run --format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum SnapshotFormat {
    /// The state CSV, `snapshot_{step:08}.csv` (the `--final` format).
    Csv,
    /// Legacy binary VTK, `snapshot_{step:08}.vtk`, listed in `series.vtk.series`.
    Vtk,
    /// VTK XML PolyData, `snapshot_{step:08}.vtp`, listed in `series.pvd`.
    Vtp,
}

impl SnapshotFormat {
    /// The formats written when none are named: CSV and VTP.
    pub const DEFAULT: [SnapshotFormat; 2] = [SnapshotFormat::Csv, SnapshotFormat::Vtp];
}

impl SeriesWriter {
    /// Prepares `dir` with [`prepare_output_dir`] (creates it, proves it writable) and returns
    /// a writer with an empty series. Files already in `dir` are left alone until overwritten;
    /// the first [`write`](Self::write) replaces any old `series.pvd`.
    ///
    /// # Errors
    /// [`OutputError::Dir`] naming `dir` when it cannot be created or written.
    pub fn new(dir: impl Into<PathBuf>) -> Result<Self, OutputError> {
        let dir = dir.into();
        prepare_output_dir(&dir)?;
        Ok(SeriesWriter {
            dir,
            entries: Vec::new(),
            csv: true,
            vtp: true,
            legacy_vtk: false,
        })
    }

    /// Writes exactly `formats` per snapshot (default: CSV and VTP, no legacy VTK).
    pub fn with_formats(mut self, formats: &[SnapshotFormat]) -> Self {
        self.csv = formats.contains(&SnapshotFormat::Csv);
        self.vtp = formats.contains(&SnapshotFormat::Vtp);
        self.legacy_vtk = formats.contains(&SnapshotFormat::Vtk);
        self
    }

    /// Also writes a legacy `snapshot_{step:08}.vtk` per snapshot, listed in
    /// `series.vtk.series` (the `.pvd` cannot list legacy files). Off by default.
    pub fn with_legacy_vtk(mut self, on: bool) -> Self {
        self.legacy_vtk = on;
        self
    }

    /// Continues a series: `entries` (e.g. a checkpoint's) are listed before the snapshots
    /// written from now on.
    pub fn with_entries(mut self, mut entries: Vec<SeriesEntry>) -> Self {
        entries.sort_by_key(|e| e.step);
        self.entries = entries;
        self
    }

    /// The series directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Path of the collection file, `DIR/series.pvd`.
    pub fn pvd_path(&self) -> PathBuf {
        self.dir.join(PVD_FILE_NAME)
    }

    /// Snapshots written so far, by step.
    pub fn entries(&self) -> &[SeriesEntry] {
        &self.entries
    }

    /// Writes `snap` in the chosen formats into the directory, then rewrites `series.pvd` (with
    /// VTP) and `series.vtk.series` (with legacy VTK) to list it. A step written again replaces its files and entry.
    ///
    /// # Errors
    /// The first failing file's [`OutputError`]; the `.pvd` then still lists only the
    /// snapshots written completely before.
    pub fn write(&mut self, snap: &Snapshot) -> Result<(), OutputError> {
        let entry = SeriesEntry {
            step: snap.step,
            time: snap.time,
            csv: self.csv.then(|| snapshot_file_name(snap.step, "csv")),
            vtp: self.vtp.then(|| snapshot_file_name(snap.step, "vtp")),
            vtk: self
                .legacy_vtk
                .then(|| snapshot_file_name(snap.step, "vtk")),
        };
        if let Some(csv) = &entry.csv {
            write_csv(&self.dir.join(csv), snap)?;
        }
        if let Some(vtp) = &entry.vtp {
            write_vtp(&self.dir.join(vtp), snap)?;
        }
        if let Some(vtk) = &entry.vtk {
            write_vtk(&self.dir.join(vtk), snap)?;
        }
        match self.entries.binary_search_by_key(&snap.step, |e| e.step) {
            Ok(i) => self.entries[i] = entry,
            Err(i) => self.entries.insert(i, entry),
        }
        if self.legacy_vtk {
            write_vtk_series(&self.dir.join(VTK_SERIES_FILE_NAME), &self.entries)?;
        }
        if self.vtp {
            write_pvd(&self.pvd_path(), &self.entries)?;
        }
        Ok(())
    }
}
