//! Atomic file writes and early checks of output paths.
//!
//! [`write_atomic`] writes into a temporary file `.NAME.XXXXXX.tmp` created in the target's own
//! directory (so the final rename never crosses file systems), flushes and syncs it, and renames
//! it onto the target. Readers of the target see either the old file or the complete new one,
//! never a prefix. When the writer fails, the temporary file is removed and the target is left as
//! it was. A process killed outright (SIGKILL, power loss) may leave the temporary file behind,
//! never a half-written target.
//!
//! Only a regular file or a new path is replaced that way. A symbolic link is followed and its
//! final target replaced (the link stays a link); a FIFO, a device such as `/dev/null` or
//! `/dev/full`, and the standard streams `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` are written
//! through, in place, as a shell's `>` would: these cannot be written atomically.
//!
//! New files get the usual permissions (`0o666` less the umask on Unix), not the owner-only mode
//! temporary files are normally created with.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::error::{OutputError, io_reason};

/// Size of the write buffer placed between a writer closure and the temporary file, bytes.
const BUFFER_BYTES: usize = 1 << 20;

/// Symbolic links followed before giving up, as Linux's `MAXSYMLINKS`.
const MAX_LINKS: usize = 40;

/// What writing to a path means once its symbolic links are followed.
#[derive(Debug, PartialEq)]
enum Target {
    /// A regular file or a new path (the link target when the given path was a link): written
    /// atomically, by a rename onto it.
    Replace(PathBuf),
    /// A FIFO, a device or a socket: opened and written in place.
    Through(PathBuf),
    /// A standard stream or open descriptor named as `/dev/stdout`, `/dev/fd/N`,
    /// `/proc/self/fd/N`: written to a duplicate of descriptor N, at its offset, as a shell does.
    Descriptor(i32),
}

/// Writes a file: `f` writes the whole contents into a buffered writer; where `path` leads
/// decides how they reach it.
///
/// * A regular file or a new path: the bytes go into a temporary file in the same directory,
///   which is flushed, synced to disk and then renamed onto the file, replacing it. If `f`
///   returns an error, or any step fails, the temporary file is removed and the old file keeps
///   its old contents.
/// * A symbolic link: the link is followed (to its final target, which may not exist yet) and
///   the target is written as above; the link stays a link.
/// * A FIFO or a device (`/dev/null`, `/dev/full`, a terminal): written through, in place. A
///   reader of a FIFO gets the bytes; a full device's `ENOSPC` is an error.
/// * `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N` (or a link to one): written
///   to the open descriptor N at its current offset, so a redirection `>>` appends.
///
/// `f` need not buffer: it is handed a 1 MiB [`BufWriter`]. Written-through bytes cannot be
/// taken back: a failure there may leave a prefix behind.
///
/// # Errors
/// [`OutputError::Write`] naming `path` when the parent directory is missing or not a
/// directory, `path` is a directory, the temporary file cannot be created, the target cannot be
/// opened, `f` fails, or the write, sync or rename fails, e.g.
/// `cannot write /dev/full: No space left on device (ENOSPC)`.
pub fn write_atomic(
    path: &Path,
    f: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), OutputError> {
    let file = match resolve(path)? {
        Target::Replace(real) => return replace(path, &real, f),
        Target::Through(real) => fs::OpenOptions::new()
            .write(true)
            .open(&real)
            .map_err(|e| OutputError::write_io(path, &e))?,
        Target::Descriptor(fd) => {
            if fd == 1 {
                // Whatever this process printed before goes first.
                let _ = io::stdout().flush();
            }
            duplicate(fd).map_err(|e| OutputError::write_io(path, &e))?
        }
    };
    let mut w = BufWriter::with_capacity(BUFFER_BYTES, file);
    f(&mut w).map_err(|e| OutputError::write_io(path, &e))?;
    w.flush().map_err(|e| OutputError::write_io(path, &e))
}

/// The atomic path of [`write_atomic`]: a temporary file beside `real`, renamed onto it.
/// Errors name `path`, the path the caller gave.
fn replace(
    path: &Path,
    real: &Path,
    f: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), OutputError> {
    let named = |e: OutputError| match e {
        OutputError::Write { reason, .. } if real != path => {
            OutputError::write(path, format!("{reason} (it links to {})", real.display()))
        }
        e => e,
    };
    let dir = check_target(real).map_err(named)?;
    let mut tmp = temp_file_in(real, &dir).map_err(named)?;
    {
        let mut w = BufWriter::with_capacity(BUFFER_BYTES, tmp.as_file_mut());
        f(&mut w).map_err(|e| OutputError::write_io(path, &e))?;
        w.flush().map_err(|e| OutputError::write_io(path, &e))?;
    }
    tmp.as_file()
        .sync_all()
        .map_err(|e| OutputError::write_io(path, &e))?;
    tmp.persist(real)
        .map_err(|e| OutputError::write_io(path, &e.error))?;
    sync_dir(&dir);
    Ok(())
}

/// Checks, without writing anything, that a file can be written at `path` later: `path` names a
/// file (it does not end with a path separator, `.` or `..`, and is not an existing directory),
/// its parent directory exists (it is not created), is a directory and is writable. For a
/// symbolic link these hold for its final target; a FIFO or a device must be writable by this
/// user, and a standard stream (`/dev/stdout`, `/dev/fd/N`) open.
///
/// Writability of a directory is proven by creating a temporary file in it and removing it
/// again, so nothing is left behind either way. An existing file at `path` is not touched, and a
/// FIFO is not opened (that would wait for a reader).
///
/// # Errors
/// [`OutputError::Write`] naming `path` and the reason, e.g.
/// `cannot write /nonexistent/x.csv: parent directory /nonexistent does not exist`,
/// `cannot write out/: it ends with '/', so it names a directory, not a file`,
/// `cannot write /proc/x.csv: cannot create files in directory /proc: No such file or directory`.
pub fn check_writable_file(path: &Path) -> Result<(), OutputError> {
    match resolve(path)? {
        Target::Replace(real) => {
            let dir = check_target(real.as_path())?;
            let tmp = temp_file_in(&real, &dir)?;
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
        Target::Through(real) => writable(&real).map_err(|e| OutputError::write_io(path, &e)),
        Target::Descriptor(fd) => duplicate(fd)
            .map(drop)
            .map_err(|e| OutputError::write_io(path, &e)),
    }
}

/// Follows `path`'s symbolic links and says how it is to be written. Checks the spelling
/// ([`names_a_directory`]) first.
fn resolve(path: &Path) -> Result<Target, OutputError> {
    if let Some(why) = names_a_directory(path) {
        return Err(OutputError::write(path, why));
    }
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        if let Some(fd) = descriptor_alias(&p) {
            return Ok(Target::Descriptor(fd));
        }
        let m = match fs::symlink_metadata(&p) {
            Ok(m) => m,
            // A new path, or one check_target explains.
            Err(_) => return Ok(Target::Replace(p)),
        };
        if m.file_type().is_symlink() {
            let to = fs::read_link(&p).map_err(|e| OutputError::write_io(path, &e))?;
            p = match p.parent() {
                Some(dir) if to.is_relative() => dir.join(to),
                _ => to,
            };
            continue;
        }
        return Ok(if m.is_file() || m.is_dir() {
            // A directory is refused by check_target with its reason.
            Target::Replace(p)
        } else {
            Target::Through(p)
        });
    }
    Err(OutputError::write(
        path,
        format!("more than {MAX_LINKS} levels of symbolic links"),
    ))
}

/// The descriptor a path names the way `bash` reads redirections: `/dev/stdin`, `/dev/stdout`,
/// `/dev/stderr`, `/dev/fd/N`, and Linux's `/proc/self/fd/N`.
fn descriptor_alias(p: &Path) -> Option<i32> {
    let s = p.to_str()?;
    match s {
        "/dev/stdin" => Some(0),
        "/dev/stdout" => Some(1),
        "/dev/stderr" => Some(2),
        _ => s
            .strip_prefix("/dev/fd/")
            .or_else(|| s.strip_prefix("/proc/self/fd/"))
            .and_then(|n| n.parse().ok()),
    }
}

/// A new handle on open descriptor `fd` (sharing its offset and flags).
///
/// # Errors
/// `EBADF` when `fd` is not open.
#[cfg(unix)]
fn duplicate(fd: i32) -> io::Result<fs::File> {
    use std::os::fd::BorrowedFd;
    // SAFETY: the borrow lives only for the duplication (F_DUPFD_CLOEXEC), which reads the
    // descriptor number; a closed one gives EBADF.
    let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
    Ok(fs::File::from(borrowed.try_clone_to_owned()?))
}

#[cfg(not(unix))]
fn duplicate(_fd: i32) -> io::Result<fs::File> {
    Err(io::Error::other(
        "descriptors are named this way on Unix only",
    ))
}

/// Whether this user may write `path` (access(2) with `W_OK`), without opening it.
#[cfg(unix)]
fn writable(path: &Path) -> io::Result<()> {
    nix::unistd::access(path, nix::unistd::AccessFlags::W_OK).map_err(io::Error::from)
}

#[cfg(not(unix))]
fn writable(path: &Path) -> io::Result<()> {
    fs::OpenOptions::new().write(true).open(path).map(drop)
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
    fn descriptor_aliases_name_open_descriptors() {
        for (p, fd) in [
            ("/dev/stdout", Some(1)),
            ("/dev/stderr", Some(2)),
            ("/dev/fd/7", Some(7)),
            ("/proc/self/fd/1", Some(1)),
            ("/proc/self/fd/x", None),
            ("/dev/null", None),
            ("stdout", None),
        ] {
            assert_eq!(descriptor_alias(Path::new(p)), fd, "{p}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn links_resolve_to_their_final_target() {
        let d = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            d.path().join("a"),
            d.path().join("b"),
            d.path().join("c.csv"),
        );
        std::os::unix::fs::symlink("b", &a).unwrap();
        std::os::unix::fs::symlink(&c, &b).unwrap();
        assert_eq!(resolve(&a).unwrap(), Target::Replace(c.clone()));
        fs::write(&c, "x").unwrap();
        assert_eq!(resolve(&a).unwrap(), Target::Replace(c));
        assert_eq!(
            resolve(Path::new("/dev/null")).unwrap(),
            Target::Through("/dev/null".into())
        );
        let loop_ = d.path().join("loop");
        std::os::unix::fs::symlink("loop", &loop_).unwrap();
        let e = resolve(&loop_).unwrap_err().to_string();
        assert!(e.contains("levels of symbolic links"), "{e}");
    }

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
