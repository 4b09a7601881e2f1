//! Final-state and snapshot CSV (a contract; docs/output.md).
//!
//! # Format
//!
//! ```text
//! id,x,y,z,vx,vy,vz,radius,mass,wx,wy,wz
//! 0,0,-5,0,0,20,0,1,1,0,0,0
//! 1,0.25,1e-7,3.5,0,0,0,0.5,inf,0,0,0
//! ```
//!
//! * Line 1 is exactly [`CSV_HEADER`]; then one row per sphere in input order, `\n` line ends,
//!   no trailing spaces, no comment lines.
//! * `id` is the sphere's input index (0, 1, 2, …), a decimal integer.
//! * `x,y,z` centre in m, `vx,vy,vz` velocity in m/s, `radius` in m, `mass` in kg,
//!   `wx,wy,wz` angular velocity in rad/s (zero unless the scene has `rotation = true`; the
//!   last three columns were added after the first nine and readers need only those).
//! * A scene with periodic boundaries adds `ix,iy,iz` (docs/open-systems.md): the box lengths
//!   each sphere has crossed per axis, integers, so that its unwrapped centre is
//!   `x + ix (max − min)` along x; [`CSV_HEADER_PERIODIC`] is then line 1.
//! * Numbers are written with the shortest digits that parse back to the identical `f64`
//!   (round trip is exact, `-0` keeps its sign): plain decimals (Rust's `{}`) for magnitudes in
//!   [1e-5, 1e16) and zero, scientific `1.5e-7` / `2e20` (Rust's `{:e}`) otherwise.
//! * Fixed spheres have infinite mass, written `inf`. A NaN (a blown-up run) is written `NaN`.
//!   Both parse in Rust, Python (`float`), NumPy and pandas.
//!
//! Rows are formatted in parallel (rayon) in bounded batches and streamed through
//! [`write_atomic`], so millions of spheres take a fraction of a second per core and memory
//! stays bounded.
//!
//! # Reading
//!
//! [`read_csv`] reads the format back, and also files that add columns after the nine (a later
//! version's, or another program's): the header's first nine names must be the ones above, in
//! order, and the further columns are ignored. [`read_csv_checked`] also checks that the rows
//! are a valid initial state; it is what a scene's `[[particles_file]]` uses
//! (docs/scene-files.md). Both read a few MiB at a time and parse the rows of each batch in
//! parallel: a million rows (150 MB with full-precision numbers) take well under a second of
//! CPU time.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;

use glam::DVec3;
use rayon::prelude::*;

use super::atomic::write_atomic;
use super::error::OutputError;
use crate::Snapshot;

/// The header line of every state CSV (without the line end).
pub const CSV_HEADER: &str = "id,x,y,z,vx,vy,vz,radius,mass,wx,wy,wz";

/// The header of a state CSV with periodic images ([`CSV_HEADER`] and `ix,iy,iz`).
pub const CSV_HEADER_PERIODIC: &str = "id,x,y,z,vx,vy,vz,radius,mass,wx,wy,wz,ix,iy,iz";

/// Rows formatted per parallel task.
const ROWS_PER_CHUNK: usize = 8192;
/// Tasks per batch; a batch is formatted in parallel, then written, bounding memory to about
/// `ROWS_PER_CHUNK * CHUNKS_PER_BATCH * 100` bytes.
const CHUNKS_PER_BATCH: usize = 64;

/// Writes `snap` as CSV (see the [module docs](self) for the format) to `path`, atomically.
///
/// `snap.step` and `snap.time` are not part of the format.
///
/// # Errors
/// [`OutputError::Write`] naming `path` when the snapshot's arrays differ in length or the file
/// cannot be written (see [`write_atomic`]); the target is then left untouched.
pub fn write_csv(path: &Path, snap: &Snapshot) -> Result<(), OutputError> {
    check_lengths(path, snap)?;
    write_atomic(path, |w| write_csv_to(w, snap))
}

/// Writes the CSV text of `snap` (header and rows) to any writer. Lengths must already agree.
pub(crate) fn write_csv_to(w: &mut dyn Write, snap: &Snapshot) -> io::Result<()> {
    let header = if snap.image.is_empty() {
        CSV_HEADER
    } else {
        CSV_HEADER_PERIODIC
    };
    w.write_all(header.as_bytes())?;
    w.write_all(b"\n")?;
    let n = snap.len();
    let batch_rows = ROWS_PER_CHUNK * CHUNKS_PER_BATCH;
    let mut start = 0;
    while start < n {
        let end = (start + batch_rows).min(n);
        let chunks: Vec<Vec<u8>> = (start..end)
            .into_par_iter()
            .step_by(ROWS_PER_CHUNK)
            .map(|c0| {
                let c1 = (c0 + ROWS_PER_CHUNK).min(end);
                let mut buf = Vec::with_capacity((c1 - c0) * 112);
                for i in c0..c1 {
                    push_row(&mut buf, snap, i);
                }
                buf
            })
            .collect();
        for c in &chunks {
            w.write_all(c)?;
        }
        start = end;
    }
    Ok(())
}

fn push_row(buf: &mut Vec<u8>, snap: &Snapshot, i: usize) {
    let p = snap.position[i];
    let v = snap.velocity[i];
    let w = snap.angular_velocity_of(i);
    // Writing into a Vec<u8> cannot fail.
    let _ = write!(buf, "{}", snap.id_of(i));
    let row = [
        p.x,
        p.y,
        p.z,
        v.x,
        v.y,
        v.z,
        snap.radius[i],
        snap.mass[i],
        w.x,
        w.y,
        w.z,
    ];
    for x in row {
        buf.push(b',');
        push_f64(buf, x);
    }
    if let Some(image) = snap.image.get(i) {
        let _ = write!(buf, ",{},{},{}", image[0], image[1], image[2]);
    }
    buf.push(b'\n');
}

/// Appends `x` with the shortest round-trip digits: `{}` for zero, non-finite values and
/// magnitudes in [1e-5, 1e16), `{:e}` otherwise (so 1e-300 does not take 300 characters).
pub(crate) fn push_f64(buf: &mut Vec<u8>, x: f64) {
    let a = x.abs();
    let _ = if a == 0.0 || !x.is_finite() || (1e-5..1e16).contains(&a) {
        write!(buf, "{x}")
    } else {
        write!(buf, "{x:e}")
    };
}

/// Formats `x` like the CSV does (shortest round-trip digits).
pub(crate) fn fmt_f64(x: f64) -> String {
    let mut b = Vec::with_capacity(24);
    push_f64(&mut b, x);
    String::from_utf8(b).expect("number formatting is ASCII")
}

/// Checks that all per-sphere arrays of `snap` have the same length.
pub(crate) fn check_lengths(path: &Path, snap: &Snapshot) -> Result<(), OutputError> {
    let n = snap.position.len();
    if snap.velocity.len() != n || snap.radius.len() != n || snap.mass.len() != n {
        return Err(OutputError::write(
            path,
            format!(
                "inconsistent snapshot: {} positions, {} velocities, {} radii, {} masses",
                n,
                snap.velocity.len(),
                snap.radius.len(),
                snap.mass.len()
            ),
        ));
    }
    let w = snap.angular_velocity.len();
    if w != 0 && w != n {
        return Err(OutputError::write(
            path,
            format!("inconsistent snapshot: {n} positions, {w} angular velocities"),
        ));
    }
    let k = snap.image.len();
    if k != 0 && k != n {
        return Err(OutputError::write(
            path,
            format!("inconsistent snapshot: {n} positions, {k} periodic images"),
        ));
    }
    Ok(())
}

/// Bytes read from the file per batch; each batch is parsed in parallel (rayon), so memory
/// beyond the snapshot itself stays bounded by about twice this.
const READ_BATCH: usize = 8 << 20;
/// Smallest piece of a batch one parallel task parses.
const MIN_PIECE: usize = 64 << 10;

/// Longest line, in bytes, [`read_csv`] accepts: a state CSV's rows are a few hundred bytes, and
/// without a cap a file with no line end (`/dev/zero`, a binary file) would be read without end.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Most characters of the input an error message quotes (about; escapes and the quotes add a
/// few): a bad field of a huge line is named, not copied.
pub const EXCERPT_CHARS: usize = 60;

/// `s` quoted (Rust's escapes) for an error message, cut after [`EXCERPT_CHARS`] characters
/// with `…` and the full length in bytes: `"0,1,2…"… (2000000 bytes)`.
pub(crate) fn excerpt(s: &str) -> String {
    let mut out = String::from("\"");
    let mut shown = 0;
    for c in s.chars() {
        if shown >= EXCERPT_CHARS {
            return format!("{out}…\" ({} bytes)", s.len());
        }
        for e in c.escape_debug() {
            out.push(e);
            shown += 1;
        }
    }
    out.push('"');
    out
}

/// `s` cut after [`EXCERPT_CHARS`] characters, with `…`, for quoting in a message that puts
/// its own quotes around it.
pub(crate) fn shorten(s: &str) -> String {
    match s.char_indices().nth(EXCERPT_CHARS) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// The error for a line longer than [`MAX_LINE_BYTES`].
fn too_long(path: &Path, line: usize) -> OutputError {
    OutputError::parse(
        path,
        line,
        format!(
            "line longer than {MAX_LINE_BYTES} bytes (1 MiB), the most a line may hold; \
             a state CSV has one short line per sphere"
        ),
    )
}

/// The names of the nine required columns, in order.
const COLUMNS: [&str; 9] = ["id", "x", "y", "z", "vx", "vy", "vz", "radius", "mass"];

/// Reads a state CSV written by [`write_csv`] (or by hand, or by another program, in the same
/// format).
///
/// The header's first nine names must be exactly those of [`CSV_HEADER`], in that order; more
/// columns may follow and are ignored, as are their fields, except `wx,wy,wz` right after the
/// nine (the angular velocity) and `ix,iy,iz` right after those (the periodic images, integers),
/// which are read into [`Snapshot::angular_velocity`] and [`Snapshot::image`].
/// Every other non-blank line must hold as many fields as the header names, and its `id` must be
/// above the row before's (0, 1, 2, … in a closed run's files; with gaps once outflows removed
/// spheres): ids other than the row indices are read into [`Snapshot::id`]. `\r\n` line ends, a UTF-8 byte-order mark and spaces around
/// fields are accepted. Values are not checked: `NaN` (a blown-up run) and any radius or mass
/// read back as written; see [`read_csv_checked`] for an initial state. The returned snapshot
/// has `step = 0` and `time = 0.0`, which the CSV does not record.
///
/// Large files are read in batches of a few MiB whose rows are parsed in parallel.
///
/// # Errors
/// [`OutputError::Read`] when the file cannot be opened or read, [`OutputError::Parse`] with the
/// 1-based line number of the first problem in the file for a line longer than
/// [`MAX_LINE_BYTES`] (so that a file without line ends is refused after 1 MiB), a wrong header, a wrong field count,
/// an id out of order or a number that does not parse (naming the column, e.g.
/// `vx "abc" is not a number`).
pub fn read_csv(path: &Path) -> Result<Snapshot, OutputError> {
    read(path, false)
}

/// As [`read_csv`], and also checks that every row is a valid initial state, as a scene's
/// `[[particles_file]]` needs: position (`x,y,z`, m) and velocity (`vx,vy,vz`, m/s) finite,
/// `radius` (m) positive and finite, `mass` (kg) positive; `inf` (a fixed sphere, as
/// [`write_csv`] writes it) is allowed.
///
/// # Errors
/// As [`read_csv`], and [`OutputError::Parse`] with the line number, the column and the value
/// for the first row that breaks one of these rules, e.g.
/// `line 57: radius must be positive and finite, got 0`.
pub fn read_csv_checked(path: &Path) -> Result<Snapshot, OutputError> {
    read(path, true)
}

/// What a parallel task found in its piece of a batch: the rows up to its first problem (in
/// columns), the id and line of its first row, that problem, and the number of lines in the
/// piece. Lines are relative to the piece, from 0. The rows' ids are checked to follow the
/// first row's; that the first row's follows the previous piece's is checked when merging.
#[derive(Default)]
struct Piece {
    ids: Vec<u64>,
    position: Vec<DVec3>,
    velocity: Vec<DVec3>,
    angular_velocity: Vec<DVec3>,
    image: Vec<[i32; 3]>,
    radius: Vec<f64>,
    mass: Vec<f64>,
    first: Option<(usize, usize)>,
    error: Option<(usize, PieceError)>,
    lines: usize,
}

/// A piece's first problem.
enum PieceError {
    /// The line is malformed or breaks a rule; the reason.
    Line(String),
    /// The row's `id` is not above the id of the row before it, `before`.
    Id { id: usize, before: usize },
}

/// The reason of a row whose `id` does not increase.
fn out_of_order(id: usize, before: usize) -> String {
    format!("id {id} out of order: ids must increase, and the row before has id {before}")
}

fn read(path: &Path, checked: bool) -> Result<Snapshot, OutputError> {
    let mut file = File::open(path).map_err(|e| OutputError::read_io(path, &e))?;
    let file_len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut snap = Snapshot::default();
    // Columns of the header, once read, and whether they include `wx,wy,wz` and `ix,iy,iz`.
    let mut columns: Option<usize> = None;
    let mut spin = false;
    let mut image = false;
    // Lines consumed so far (the header is line 1).
    let mut lines_done = 0usize;
    let mut reserved = false;
    let mut buf: Vec<u8> = Vec::new();
    let mut eof = false;
    while !eof {
        let want = READ_BATCH.saturating_sub(buf.len()).max(MIN_PIECE);
        let n = (&mut file)
            .take(want as u64)
            .read_to_end(&mut buf)
            .map_err(|e| OutputError::read_io(path, &e))?;
        eof = n == 0;
        // Parse up to the last complete line; keep the rest for the next batch.
        let end = if eof {
            buf.len()
        } else {
            match buf.iter().rposition(|&b| b == b'\n') {
                Some(i) => i + 1,
                // The unfinished line is all of `buf`: it starts at line `lines_done + 1`.
                None if buf.len() > MAX_LINE_BYTES => return Err(too_long(path, lines_done + 1)),
                None => continue,
            }
        };
        let mut batch = &buf[..end];
        if columns.is_none() {
            if batch.is_empty() {
                return Err(OutputError::parse(
                    path,
                    1,
                    "empty file, expected the header",
                ));
            }
            let (line, rest) = match batch.iter().position(|&b| b == b'\n') {
                Some(i) => (&batch[..i], &batch[i + 1..]),
                None => (batch, &[][..]),
            };
            if line.len() > MAX_LINE_BYTES {
                return Err(too_long(path, 1));
            }
            columns = Some(header_columns(line).map_err(|r| OutputError::parse(path, 1, r))?);
            spin = header_has_spin(line);
            image = spin && header_has_image(line);
            lines_done = 1;
            batch = rest;
        }
        let ncols = columns.unwrap_or(COLUMNS.len());
        for piece in parse_batch(batch, ncols, (spin, image), checked) {
            if let (Some((id, line)), Some(&before)) = (piece.first, snap.id.last()) {
                if id as u64 <= before {
                    return Err(OutputError::parse(
                        path,
                        lines_done + line + 1,
                        out_of_order(id, before as usize),
                    ));
                }
            }
            snap.id.extend_from_slice(&piece.ids);
            snap.position.extend_from_slice(&piece.position);
            snap.velocity.extend_from_slice(&piece.velocity);
            snap.angular_velocity
                .extend_from_slice(&piece.angular_velocity);
            snap.image.extend_from_slice(&piece.image);
            snap.radius.extend_from_slice(&piece.radius);
            snap.mass.extend_from_slice(&piece.mass);
            if let Some((line, error)) = piece.error {
                let reason = match error {
                    PieceError::Line(reason) => reason,
                    PieceError::Id { id, before } => out_of_order(id, before),
                };
                return Err(OutputError::parse(path, lines_done + line + 1, reason));
            }
            lines_done += piece.lines;
        }
        // After the first batch, reserve for the whole file at the rows per byte seen so far.
        if !reserved && !eof && end > 0 {
            reserved = true;
            let estimate = (snap.len() as u128 * u128::from(file_len) / end as u128) as usize;
            let extra = (estimate + estimate / 32).saturating_sub(snap.len());
            snap.position.reserve(extra);
            snap.velocity.reserve(extra);
            snap.radius.reserve(extra);
            snap.mass.reserve(extra);
        }
        buf.drain(..end);
    }
    // Ids 0, 1, 2, … (every file of a closed run) are the rows' indices: `Snapshot::id` empty.
    if snap.id.iter().enumerate().all(|(i, &id)| id == i as u64) {
        snap.id = Vec::new();
    }
    Ok(snap)
}

/// The number of columns the header names; the reason when its first nine are not those of
/// [`CSV_HEADER`].
fn header_columns(line: &[u8]) -> Result<usize, String> {
    let line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
    let text = String::from_utf8_lossy(line);
    let header = text.trim_end();
    let names: Vec<&str> = header.split(',').map(str::trim).collect();
    if names.len() < COLUMNS.len() || names[..COLUMNS.len()] != COLUMNS {
        return Err(format!(
            "header is {}, expected {:?} (further columns may follow)",
            excerpt(header),
            COLUMNS.join(",")
        ));
    }
    if let Some(k) = names.iter().position(|n| n.is_empty()) {
        return Err(format!("header column {} has no name", k + 1));
    }
    Ok(names.len())
}

/// Whether the header's columns 10 to 12 are `wx,wy,wz` (the angular velocity, read back).
fn header_has_spin(line: &[u8]) -> bool {
    let text = String::from_utf8_lossy(line);
    let names: Vec<&str> = text.trim_end().split(',').map(str::trim).collect();
    names.get(COLUMNS.len()..COLUMNS.len() + 3) == Some(&SPIN_COLUMNS[..])
}

/// The optional angular-velocity columns after the nine, read when the header names them.
const SPIN_COLUMNS: [&str; 3] = ["wx", "wy", "wz"];

/// Whether the header's columns 13 to 15 are `ix,iy,iz` (the periodic images, read back).
fn header_has_image(line: &[u8]) -> bool {
    let text = String::from_utf8_lossy(line);
    let names: Vec<&str> = text.trim_end().split(',').map(str::trim).collect();
    names.get(COLUMNS.len() + 3..COLUMNS.len() + 6) == Some(&IMAGE_COLUMNS[..])
}

/// The periodic images' columns after `wx,wy,wz` (docs/open-systems.md), read when the header
/// names them.
const IMAGE_COLUMNS: [&str; 3] = ["ix", "iy", "iz"];

/// Parses the complete lines of `batch` in parallel pieces, in order.
fn parse_batch(batch: &[u8], ncols: usize, extra: (bool, bool), checked: bool) -> Vec<Piece> {
    if batch.is_empty() {
        return Vec::new();
    }
    let tasks = rayon::current_num_threads().max(1) * 4;
    let size = (batch.len() / tasks).max(MIN_PIECE);
    let mut bounds = vec![0];
    let mut start = 0;
    while start < batch.len() {
        let mut end = (start + size).min(batch.len());
        if end < batch.len() {
            end = match batch[end - 1..].iter().position(|&b| b == b'\n') {
                Some(i) => end + i,
                None => batch.len(),
            };
        }
        bounds.push(end);
        start = end;
    }
    bounds
        .par_windows(2)
        .map(|w| parse_piece(&batch[w[0]..w[1]], ncols, extra, checked))
        .collect()
}

/// Parses one piece of whole lines, stopping at its first problem.
fn parse_piece(piece: &[u8], ncols: usize, extra: (bool, bool), checked: bool) -> Piece {
    // Text up to the first invalid UTF-8 byte; its line is then the piece's last.
    let (text, invalid) = match std::str::from_utf8(piece) {
        Ok(text) => (text, false),
        Err(e) => {
            let valid = &piece[..e.valid_up_to()];
            let cut = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            // The prefix up to a line end is valid UTF-8.
            (std::str::from_utf8(&piece[..cut]).unwrap_or_default(), true)
        }
    };
    let rows = text.len() / 64 + 1;
    let mut out = Piece {
        position: Vec::with_capacity(rows),
        velocity: Vec::with_capacity(rows),
        radius: Vec::with_capacity(rows),
        mass: Vec::with_capacity(rows),
        ..Piece::default()
    };
    for (index, line) in text.lines().enumerate() {
        out.lines = index + 1;
        if line.len() > MAX_LINE_BYTES {
            out.error = Some((
                index,
                PieceError::Line(format!(
                    "line of {} bytes, longer than {MAX_LINE_BYTES} bytes (1 MiB), the most a line \
                 may hold; a state CSV has one short line per sphere",
                    line.len()
                )),
            ));
            return out;
        }
        let row = match parse_row(line, ncols, extra, checked) {
            Ok(Some(row)) => row,
            Ok(None) => continue,
            Err(reason) => {
                out.error = Some((index, PieceError::Line(reason)));
                return out;
            }
        };
        let (id, [x, y, z, vx, vy, vz, r, m], w, image) = row;
        match (out.first, out.ids.last()) {
            (None, _) => out.first = Some((id, index)),
            (Some(_), Some(&before)) if id as u64 <= before => {
                let before = before as usize;
                out.error = Some((index, PieceError::Id { id, before }));
                return out;
            }
            _ => {}
        }
        out.ids.push(id as u64);
        out.position.push(DVec3::new(x, y, z));
        out.velocity.push(DVec3::new(vx, vy, vz));
        out.radius.push(r);
        out.mass.push(m);
        if let Some(w) = w {
            out.angular_velocity.push(w);
        }
        if let Some(image) = image {
            out.image.push(image);
        }
    }
    if invalid {
        let reason = "line is not valid UTF-8 text".to_string();
        out.error = Some((out.lines, PieceError::Line(reason)));
    }
    out
}

/// A data line's id, eight numbers, with `extra.0` its angular velocity (`wx,wy,wz`) and with
/// `extra.1` its periodic images (`ix,iy,iz`, integers); `None` for a blank line; the reason
/// when it is malformed (or, when `checked`, when its values are not a valid initial state).
type Row = (usize, [f64; 8], Option<DVec3>, Option<[i32; 3]>);
fn parse_row(
    line: &str,
    ncols: usize,
    (spin, image): (bool, bool),
    checked: bool,
) -> Result<Option<Row>, String> {
    let line = line.trim();
    if line.is_empty() {
        return Ok(None);
    }
    let wrong_count = |line: &str| {
        let count = line.split(',').count();
        (count != ncols).then(|| format!("{count} fields, expected {ncols}"))
    };
    let mut parts = line.split(',');
    let id = parts.next().unwrap_or_default().trim();
    let Ok(id) = id.parse::<usize>() else {
        return Err(wrong_count(line)
            .unwrap_or_else(|| format!("id {} is not a non-negative integer", excerpt(id))));
    };
    let values: [f64; 8] = fields(&mut parts, &COLUMNS[1..], "a number", |_, _| Ok(()))
        .map_err(|(e, _)| wrong_count(line).unwrap_or(e))?;
    let not_counted = |e: String, parsed: bool| {
        if parsed {
            e
        } else {
            wrong_count(line).unwrap_or(e)
        }
    };
    let w = if spin {
        let finite = |name: &str, v: f64| {
            if !checked || v.is_finite() {
                Ok(())
            } else {
                Err(format!("{name} must be finite, got {}", fmt_f64(v)))
            }
        };
        let c: [f64; 3] = fields(&mut parts, &SPIN_COLUMNS, "a number", finite)
            .map_err(|(e, parsed)| not_counted(e, parsed))?;
        Some(DVec3::from_array(c))
    } else {
        None
    };
    let images = if image {
        let c: [i32; 3] = fields(&mut parts, &IMAGE_COLUMNS, "an integer", |_, _| Ok(()))
            .map_err(|(e, parsed)| not_counted(e, parsed))?;
        Some(c)
    } else {
        None
    };
    // The ignored columns: only their count matters.
    if parts.count() + 9 + 3 * spin as usize + 3 * image as usize != ncols {
        return Err(wrong_count(line).unwrap_or_default());
    }
    if checked {
        check_row(&values)?;
    }
    Ok(Some((id, values, w, images)))
}

/// The next `N` fields of `parts` as `T`, named `names`: the reason for the first that does not
/// parse as `kind` ("a number", "an integer"; `false` beside it: the field count may be the
/// cause) or that `check` refuses (`true`: it parsed).
fn fields<T: std::str::FromStr + Copy + Default, const N: usize>(
    parts: &mut std::str::Split<'_, char>,
    names: &[&str],
    kind: &str,
    check: impl Fn(&str, T) -> Result<(), String>,
) -> Result<[T; N], (String, bool)> {
    let mut out = [T::default(); N];
    for (k, value) in out.iter_mut().enumerate() {
        let part = parts.next().map(str::trim).unwrap_or_default();
        *value = part.parse::<T>().map_err(|_| {
            (
                format!("{} {} is not {kind}", names[k], excerpt(part)),
                false,
            )
        })?;
        check(names[k], *value).map_err(|e| (e, true))?;
    }
    Ok(out)
}

/// The rules of [`read_csv_checked`]; the reason for the first value that breaks one.
fn check_row(values: &[f64; 8]) -> Result<(), String> {
    for (k, &v) in values[..6].iter().enumerate() {
        if !v.is_finite() {
            return Err(format!(
                "{} must be finite, got {}",
                COLUMNS[k + 1],
                fmt_f64(v)
            ));
        }
    }
    let (r, m) = (values[6], values[7]);
    if !(r.is_finite() && r > 0.0) {
        return Err(format!(
            "radius must be positive and finite, got {}",
            fmt_f64(r)
        ));
    }
    // `inf` is a fixed sphere.
    if m.is_nan() || m <= 0.0 {
        return Err(format!(
            "mass must be positive (or inf for a fixed sphere), got {}",
            fmt_f64(m)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_format_round_trips_and_is_short() {
        let cases = [
            (0.0, "0"),
            (-0.0, "-0"),
            (1.0, "1"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (1e-5, "0.00001"),
            (1e-7, "1e-7"),
            (1.5e-300, "1.5e-300"),
            (1e16, "1e16"),
            (9999999999999998.0, "9999999999999998"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "NaN"),
        ];
        for (x, s) in cases {
            assert_eq!(fmt_f64(x), s);
        }
        for x in [
            0.1 + 0.2,
            std::f64::consts::PI,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            f64::EPSILON,
            1.0 / 3.0,
            -123456.789e-9,
        ] {
            let back: f64 = fmt_f64(x).parse().unwrap();
            assert_eq!(back.to_bits(), x.to_bits(), "{x}");
        }
    }

    fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn parse_line(path: &Path, checked: bool) -> (usize, String) {
        match read(path, checked) {
            Err(OutputError::Parse { line, reason, .. }) => (line, reason),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn extra_header_columns_and_fields_are_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "w.csv",
            "\u{feff}id,x,y,z,vx,vy,vz,radius,mass,wx,note\n0,1,2,3,4,5,6,7,8,9,hello\n",
        );
        let s = read_csv(&path).unwrap();
        assert_eq!(s.position, vec![DVec3::new(1.0, 2.0, 3.0)]);
        assert_eq!(s.velocity, vec![DVec3::new(4.0, 5.0, 6.0)]);
        assert_eq!((s.radius[0], s.mass[0]), (7.0, 8.0));
        // As many fields as the header names, no fewer.
        let path = write(
            dir.path(),
            "short.csv",
            "id,x,y,z,vx,vy,vz,radius,mass,wx\n0,1,2,3,4,5,6,7,8\n",
        );
        assert_eq!(
            parse_line(&path, false),
            (2, "9 fields, expected 10".to_string())
        );
        // Named columns only.
        let path = write(dir.path(), "empty.csv", "id,x,y,z,vx,vy,vz,radius,mass,\n");
        assert_eq!(
            parse_line(&path, false),
            (1, "header column 10 has no name".to_string())
        );
    }

    #[test]
    fn unchecked_reading_keeps_any_value_checked_reading_names_the_first_bad_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "nan.csv",
            "id,x,y,z,vx,vy,vz,radius,mass\n0,0,0,0,0,0,0,1,1\n1,NaN,0,0,0,0,0,-1,0\n",
        );
        let s = read_csv(&path).unwrap();
        assert!(s.position[1].x.is_nan() && s.radius[1] == -1.0);
        assert_eq!(
            parse_line(&path, true),
            (3, "x must be finite, got NaN".to_string())
        );
        assert_eq!(
            check_row(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, f64::INFINITY]),
            Ok(())
        );
        assert!(check_row(&[0.0; 8]).unwrap_err().starts_with("radius"));
        assert!(
            check_row(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, -0.0])
                .unwrap_err()
                .starts_with("mass must be positive")
        );
    }

    /// Many batches and many parallel pieces: every row back in order, and the first problem
    /// of the file reported at its own line, whichever piece or batch it falls in.
    #[test]
    fn large_files_read_back_in_order_with_exact_line_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let n = 2 * READ_BATCH / 60;
        let snap = Snapshot {
            step: 0,
            time: 0.0,
            position: (0..n)
                .map(|i| DVec3::new(i as f64 / 3.0, -(i as f64), 1e-9 * i as f64))
                .collect(),
            velocity: (0..n).map(|i| DVec3::splat(i as f64 * 0.1)).collect(),
            radius: vec![0.5; n],
            mass: (0..n).map(|i| 1.0 + i as f64).collect(),
            ..Default::default()
        };
        let path = dir.path().join("big.csv");
        write_csv(&path, &snap).unwrap();
        let len = std::fs::metadata(&path).unwrap().len() as usize;
        assert!(len > 2 * READ_BATCH, "{len} bytes: too few batches");
        let back = read_csv_checked(&path).unwrap();
        assert_eq!(back.position, snap.position);
        assert_eq!(back.velocity, snap.velocity);
        assert_eq!(back.mass, snap.mass);

        // Blank lines shift line numbers away from ids; two bad rows, the first one wins.
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let (first_bad, second_bad) = (n - n / 3, n - 10);
        lines[1 + second_bad] = format!("{second_bad},1,2,3,4,5,6,7");
        lines[1 + first_bad] = format!("{first_bad},1,2,3,4,oops,6,7,8,0,0,0");
        for k in [n / 2, 5000, 3] {
            lines.insert(1 + k, String::new());
        }
        let path = write(dir.path(), "bad.csv", &(lines.join("\n") + "\n"));
        assert_eq!(
            parse_line(&path, false),
            (first_bad + 2 + 3, "vy \"oops\" is not a number".to_string())
        );
    }

    /// An id out of order is found whether it is the first row of a parallel piece (checked when
    /// the pieces are merged) or a later one (checked within the piece); invalid UTF-8 is an
    /// error of its line.
    #[test]
    fn ids_out_of_order_are_found_at_and_after_piece_boundaries() {
        let dir = tempfile::tempdir().unwrap();
        let n = 40_000;
        let body: Vec<String> = (0..n)
            .map(|i| format!("{i},{},0.5,-2.25,0,0,1e-3,0.01,1", i as f64 * 0.1))
            .collect();
        let text = body.join("\n") + "\n";
        let pieces = parse_batch(text.as_bytes(), 9, (false, false), true);
        assert!(pieces.len() > 2, "{} pieces", pieces.len());
        let at_boundary = pieces[0].position.len() + pieces[1].position.len();
        for row in [at_boundary, at_boundary + 1] {
            assert_eq!((row - 1).to_string().len(), row.to_string().len());
            let mut lines = body.clone();
            lines[row] = lines[row].replacen(&format!("{row},"), &format!("{},", row - 1), 1);
            let path = write(
                dir.path(),
                "ids.csv",
                &format!("{}\n{}\n", COLUMNS.join(","), lines.join("\n")),
            );
            assert_eq!(
                parse_line(&path, true),
                (
                    row + 2,
                    format!(
                        "id {} out of order: ids must increase, and the row before has id {}",
                        row - 1,
                        row - 1
                    )
                )
            );
        }
        // Ids with gaps (an open system's survivors), across piece boundaries, are read.
        let gaps: Vec<String> = (0..n)
            .map(|i| format!("{},{},0.5,-2.25,0,0,1e-3,0.01,1", 3 * i + 7, i as f64 * 0.1))
            .collect();
        let path = write(
            dir.path(),
            "gaps.csv",
            &format!("{}\n{}\n", COLUMNS.join(","), gaps.join("\n")),
        );
        let snap = read_csv(&path).unwrap();
        assert_eq!(
            snap.id,
            (0..n as u64).map(|i| 3 * i + 7).collect::<Vec<_>>()
        );
        assert_eq!(snap.len(), n);
        let header = COLUMNS.join(",");
        let mut bytes = format!("{header}\n0,1,2,3,4,5,6,7,8\n1,1,2,3,4,5,6,7,8,").into_bytes();
        bytes.extend_from_slice(b"\xff\n");
        let path = dir.path().join("latin1.csv");
        std::fs::write(&path, bytes).unwrap();
        assert_eq!(
            parse_line(&path, false),
            (3, "line is not valid UTF-8 text".to_string())
        );
    }
}
