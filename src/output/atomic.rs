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
/// file (not an existing directory), its parent directory exists, is a directory and is writable.
///
/// Writability is proven by creating a temporary file in the parent directory and removing it
/// again, so nothing is left behind either way. An existing file at `path` is not touched.
///
/// # Errors
/// [`OutputError::Write`] naming `path` and the reason, e.g.
/// `cannot write /nonexistent/x.csv: parent directory /nonexistent does not exist`.
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
/// (e.g. a component of it is a regular file) or is not writable.
pub fn prepare_output_dir(dir: &Path) -> Result<(), OutputError> {
    if dir.as_os_str().is_empty() {
        return Err(OutputError::dir(dir, "empty path"));
    }
    if dir.exists() && !dir.is_dir() {
        return Err(OutputError::dir(dir, "it exists and is not a directory"));
    }
    fs::create_dir_all(dir)
        .map_err(|e| OutputError::dir(dir, format!("cannot create it: {}", io_reason(&e))))?;
    let probe = temp_builder(".spheresim-probe")
        .tempfile_in(dir)
        .map_err(|e| OutputError::dir(dir, format!("not writable: {}", io_reason(&e))))?;
    probe
        .close()
        .map_err(|e| OutputError::dir(dir, format!("cannot remove probe file: {}", io_reason(&e))))
}

/// Checks that `path` can name a new or replaced file; returns the directory it lives in.
fn check_target(path: &Path) -> Result<PathBuf, OutputError> {
    if path.file_name().is_none() {
        return Err(OutputError::write(path, "the path does not name a file"));
    }
    if path.is_dir() {
        return Err(OutputError::write(path, "it is a directory"));
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
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(OutputError::write(
            path,
            format!("parent directory {} does not exist", dir.display()),
        )),
        Err(e) => Err(OutputError::write(
            path,
            format!("parent directory {}: {}", dir.display(), io_reason(&e)),
        )),
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
                "directory {} is not writable: {}",
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
        assert!(e.to_string().contains("does not name a file"), "{e}");
    }
}
