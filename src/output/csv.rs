//! Final-state and snapshot CSV (a contract; docs/output.md).
//!
//! # Format
//!
//! ```text
//! id,x,y,z,vx,vy,vz,radius,mass
//! 0,0,-5,0,0,20,0,1,1
//! 1,0.25,1e-7,3.5,0,0,0,0.5,inf
//! ```
//!
//! * Line 1 is exactly [`CSV_HEADER`]; then one row per sphere in input order, `\n` line ends,
//!   no trailing spaces, no comment lines.
//! * `id` is the sphere's input index (0, 1, 2, …), a decimal integer.
//! * `x,y,z` centre in m, `vx,vy,vz` velocity in m/s, `radius` in m, `mass` in kg.
//! * Numbers are written with the shortest digits that parse back to the identical `f64`
//!   (round trip is exact, `-0` keeps its sign): plain decimals (Rust's `{}`) for magnitudes in
//!   [1e-5, 1e16) and zero, scientific `1.5e-7` / `2e20` (Rust's `{:e}`) otherwise.
//! * Fixed spheres have infinite mass, written `inf`. A NaN (a blown-up run) is written `NaN`.
//!   Both parse in Rust, Python (`float`), NumPy and pandas.
//!
//! Rows are formatted in parallel (rayon) in bounded batches and streamed through
//! [`write_atomic`], so millions of spheres take a fraction of a second per core and memory
//! stays bounded.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;

use glam::DVec3;
use rayon::prelude::*;

use super::atomic::write_atomic;
use super::error::OutputError;
use crate::Snapshot;

/// The header line of every state CSV (without the line end).
pub const CSV_HEADER: &str = "id,x,y,z,vx,vy,vz,radius,mass";

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
    w.write_all(CSV_HEADER.as_bytes())?;
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
    // Writing into a Vec<u8> cannot fail.
    let _ = write!(buf, "{i}");
    for x in [p.x, p.y, p.z, v.x, v.y, v.z, snap.radius[i], snap.mass[i]] {
        buf.push(b',');
        push_f64(buf, x);
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
    Ok(())
}

/// Reads a state CSV written by [`write_csv`] (or by hand, in the same format).
///
/// The first line must be exactly [`CSV_HEADER`]; every other non-blank line must hold 9 fields
/// whose `id` is its row index (0, 1, 2, …). `\r\n` line ends and spaces around fields are
/// accepted. The returned snapshot has `step = 0` and `time = 0.0`, which the CSV does not
/// record.
///
/// # Errors
/// [`OutputError::Read`] when the file cannot be opened or read, [`OutputError::Parse`] with the
/// 1-based line number for a wrong header, a wrong field count, an id out of order or a number
/// that does not parse.
pub fn read_csv(path: &Path) -> Result<Snapshot, OutputError> {
    let file = File::open(path).map_err(|e| OutputError::read_io(path, &e))?;
    let reader = BufReader::with_capacity(1 << 20, file);
    let mut snap = Snapshot::default();
    let mut lines = reader.lines().enumerate();
    match lines.next() {
        None => {
            return Err(OutputError::parse(
                path,
                1,
                "empty file, expected the header",
            ));
        }
        Some((_, line)) => {
            let line = line.map_err(|e| OutputError::read_io(path, &e))?;
            let header = line.trim_start_matches('\u{feff}').trim_end();
            if header != CSV_HEADER {
                return Err(OutputError::parse(
                    path,
                    1,
                    format!("header is {header:?}, expected {CSV_HEADER:?}"),
                ));
            }
        }
    }
    for (index, line) in lines {
        let lineno = index + 1;
        let line = line.map_err(|e| OutputError::read_io(path, &e))?;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let mut fields = [0.0f64; 8];
        let mut parts = line.split(',');
        let id = parts.next().unwrap_or_default().trim();
        let expected = snap.position.len();
        match id.parse::<usize>() {
            Ok(id) if id == expected => {}
            Ok(id) => {
                return Err(OutputError::parse(
                    path,
                    lineno,
                    format!("id {id} out of order, expected {expected}"),
                ));
            }
            Err(_) => {
                return Err(OutputError::parse(
                    path,
                    lineno,
                    format!("id {id:?} is not a non-negative integer"),
                ));
            }
        }
        let mut count = 1;
        for part in parts {
            if count <= 8 {
                let part = part.trim();
                fields[count - 1] = part.parse::<f64>().map_err(|_| {
                    OutputError::parse(
                        path,
                        lineno,
                        format!(
                            "{} {part:?} is not a number",
                            CSV_HEADER.split(',').nth(count).unwrap_or("field")
                        ),
                    )
                })?;
            }
            count += 1;
        }
        if count != 9 {
            return Err(OutputError::parse(
                path,
                lineno,
                format!("{count} fields, expected 9"),
            ));
        }
        let [x, y, z, vx, vy, vz, r, m] = fields;
        snap.position.push(DVec3::new(x, y, z));
        snap.velocity.push(DVec3::new(vx, vy, vz));
        snap.radius.push(r);
        snap.mass.push(m);
    }
    Ok(snap)
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
}
