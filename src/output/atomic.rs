//! Atomic file writes and early checks of output paths.
//!
//! [`write_atomic`] writes into a temporary file `.NAME.XXXXXX.tmp` created in the target's own
//! directory (so the final rename never crosses file systems), flushes and syncs it, and renames
//! it onto the target. Readers of the target see either the old file or the complete new one,
//! never a prefix. When the writer fails, the temporary file is removed and the target is left as
//! it was. A process killed outright (SIGKILL, power loss) may leave the temporary file behind,
//! never a half-written target.
//!
//! New files get the usual permissions (`0o666` less the umask on Unix), not the owner-only mode
//! temporary files are normally created with.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::error::{OutputError, io_reason};

/// Size of the write buffer placed between a writer closure and the temporary file, bytes.
const BUFFER_BYTES: usize = 1 << 20;

/// Writes a file atomically: `f` writes the whole contents into a buffered temporary file in the
/// same directory as `path`; the temporary file is flushed, synced to disk and then renamed onto
/// `path`, replacing any file there.
///
/// If `f` returns an error, or any step fails, the temporary file is removed, `path` is left
/// untouched (an old file keeps its old contents) and the error names `path`. `f` need not
/// buffer: it is handed a 1 MiB [`BufWriter`].
///
/// # Errors
/// [`OutputError::Write`] when the parent directory is missing or not a directory, `path` is a
/// directory, the temporary file cannot be created, `f` fails, or the sync or rename fails.
pub fn write_atomic(
    path: &Path,
    f: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), OutputError> {
    let dir = check_target(path)?;
    let mut tmp = temp_file_in(path, &dir)?;
    {
        let mut w = BufWriter::with_capacity(BUFFER_BYTES, tmp.as_file_mut());
        f(&mut w).map_err(|e| OutputError::write_io(path, &e))?;
        w.flush().map_err(|e| OutputError::write_io(path, &e))?;
    }
    tmp.as_file()
        .sync_all()
        .map_err(|e| OutputError::write_io(path, &e))?;
    tmp.persist(path)
        .map_err(|e| OutputError::write_io(path, &e.error))?;
    sync_dir(&dir);
    Ok(())
}

/// Checks, without writing anything, that a file can be written at `path` later: `path` names a
/// file (it does not end with a path separator, `.` or `..`, and is not an existing directory),
/// its parent directory exists (it is not created), is a directory and is writable.
///
/// Writability is proven by creating a temporary file in the parent directory and removing it
/// again, so nothing is left behind either way. An existing file at `path` is not touched.
///
/// # Errors
/// [`OutputError::Write`] naming `path` and the reason, e.g.
/// `cannot write /nonexistent/x.csv: parent directory /nonexistent does not exist`,
/// `cannot write out/: it ends with '/', so it names a directory, not a file`,
/// `cannot write /proc/x.csv: cannot create files in directory /proc: No such file or directory`.
pub fn check_writable_file(path: &Path) -> Result<(), OutputError> {
    let dir = check_target(path)?;
    let tmp = temp_file_in(path, &dir)?;
    tmp.close().map_err(|e| {
        OutputError::write(
            path,
            format!(
                "cannot remove probe file in directory {}: {}",
                dir.display(),
                io_reason(&e)
            ),
        )
    })
}

/// Creates the output directory `dir` (with its parents, like `mkdir -p`) and proves it is
/// writable by creating and removing a temporary file in it. An existing directory is fine and
/// its contents are left alone.
///
/// # Errors
/// [`OutputError::Dir`] naming `dir` when it exists but is not a directory, cannot be created
/// (e.g. a component of it is a regular file, named in the message) or is not writable, e.g.
/// `cannot use output directory plain/out: cannot create it: plain is not a directory`.
pub fn prepare_output_dir(dir: &Path) -> Result<(), OutputError> {
    if dir.as_os_str().is_empty() {
        return Err(OutputError::dir(dir, "empty path"));
    }
    if dir.exists() && !dir.is_dir() {
        return Err(OutputError::dir(dir, "it exists and is not a directory"));
    }
    fs::create_dir_all(dir).map_err(|e| {
        let why = match not_a_directory(dir) {
            Some(a) => format!("{} is not a directory", a.display()),
            None => io_reason(&e),
        };
        OutputError::dir(dir, format!("cannot create it: {why}"))
    })?;
    let probe = temp_builder(".spheresim-probe")
        .tempfile_in(dir)
        .map_err(|e| {
            OutputError::dir(dir, format!("cannot create files in it: {}", io_reason(&e)))
        })?;
    probe
        .close()
        .map_err(|e| OutputError::dir(dir, format!("cannot remove probe file: {}", io_reason(&e))))
}

/// Whether `path` as written names a directory: it is empty, ends with a path separator, or its
/// last component is `.` or `..` (which [`Path::file_name`] does not always show: it reads
/// `out/.` as `out` and `out/` as `out`). Returns the reason.
fn names_a_directory(path: &Path) -> Option<String> {
    let bytes = path.as_os_str().as_encoded_bytes();
    let is_sep = |b: u8| b.is_ascii() && std::path::is_separator(b as char);
    match bytes.last() {
        None => Some("empty path".to_string()),
        Some(&b) if is_sep(b) => Some(format!(
            "it ends with '{}', so it names a directory, not a file",
            b as char
        )),
        Some(_) => {
            let last = match bytes.iter().rposition(|&b| is_sep(b)) {
                Some(i) => &bytes[i + 1..],
                None => bytes,
            };
            (last == b"." || last == b"..").then(|| {
                format!(
                    "it ends with '{}', so it names a directory, not a file",
                    String::from_utf8_lossy(last)
                )
            })
        }
    }
}

/// The first existing ancestor of `path` (or `path` itself) that is not a directory, if any:
/// why a directory cannot be looked up or created below it.
fn not_a_directory(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .filter(|a| !a.as_os_str().is_empty())
        .find_map(|a| match fs::metadata(a) {
            Ok(m) => Some((!m.is_dir()).then(|| a.to_path_buf())),
            Err(_) => None,
        })
        .flatten()
}

/// Checks that `path` can name a new or replaced file; returns the directory it lives in.
fn check_target(path: &Path) -> Result<PathBuf, OutputError> {
    if let Some(why) = names_a_directory(path) {
        return Err(OutputError::write(path, why));
    }
    if path.file_name().is_none() {
        return Err(OutputError::write(path, "the path does not name a file"));
    }
    if path.is_dir() {
        return Err(OutputError::write(path, "it is a directory, not a file"));
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    match fs::metadata(&dir) {
        Ok(m) if m.is_dir() => Ok(dir),
        Ok(_) => Err(OutputError::write(
            path,
            format!("parent {} is not a directory", dir.display()),
        )),
        Err(e) => {
            let why = match not_a_directory(&dir) {
                // A component above the parent is a regular file (ENOTDIR).
                Some(a) => format!("{} is not a directory", a.display()),
                None if e.kind() == io::ErrorKind::NotFound => {
                    format!("parent directory {} does not exist", dir.display())
                }
                None => format!(
                    "cannot look up parent directory {}: {}",
                    dir.display(),
                    io_reason(&e)
                ),
            };
            Err(OutputError::write(path, why))
        }
    }
}

/// A temporary file `.NAME.XXXXXX.tmp` in `dir` for the target `path`.
fn temp_file_in(path: &Path, dir: &Path) -> Result<tempfile::NamedTempFile, OutputError> {
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(path.file_name().unwrap_or_default());
    prefix.push(".");
    temp_builder(&prefix).tempfile_in(dir).map_err(|e| {
        OutputError::write(
            path,
            format!(
                "cannot create files in directory {}: {}",
                dir.display(),
                io_reason(&e)
            ),
        )
    })
}

fn temp_builder<S: AsRef<std::ffi::OsStr> + ?Sized>(prefix: &S) -> tempfile::Builder<'_, 'static> {
    let mut b = tempfile::Builder::new();
    b.prefix(prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(fs::Permissions::from_mode(0o666));
    }
    b
}

/// Makes the rename durable by syncing the directory entry (best effort; Unix only).
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_file_name_uses_current_dir() {
        assert_eq!(
            check_target(Path::new("x.csv")).unwrap(),
            PathBuf::from(".")
        );
    }

    #[test]
    fn root_is_not_a_file() {
        let e = check_target(Path::new("/")).unwrap_err();
        assert!(
            e.to_string().contains("names a directory, not a file"),
            "{e}"
        );
    }

    /// Paths that end like a directory are refused by their spelling, whether or not they exist.
    #[test]
    fn paths_spelled_as_directories_are_not_files() {
        for (p, end) in [
            ("nosuchdir/", "'/'"),
            ("a/b/", "'/'"),
            ("out/.", "'.'"),
            (".", "'.'"),
            ("x/..", "'..'"),
        ] {
            let why = names_a_directory(Path::new(p)).unwrap_or_else(|| panic!("{p} accepted"));
            assert_eq!(
                why,
                format!("it ends with {end}, so it names a directory, not a file")
            );
        }
        for p in ["x.csv", "a/b.csv", "a/.hidden", "a/..b", "./x"] {
            assert_eq!(names_a_directory(Path::new(p)), None, "{p}");
        }
    }
}
