//! The error type of the output module.

use std::io;
use std::path::{Path, PathBuf};

/// An output file could not be checked, written or read.
///
/// Every message names the path and says why, for example
/// `cannot write /nonexistent/x.csv: parent directory /nonexistent does not exist`.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// A file (or a temporary file beside it) could not be written, or a path given for a file
    /// cannot take one.
    #[error("cannot write {}: {reason}", path.display())]
    Write {
        /// The file that was to be written.
        path: PathBuf,
        /// Why not.
        reason: String,
    },
    /// An output directory could not be created or is not writable.
    #[error("cannot use output directory {}: {reason}", path.display())]
    Dir {
        /// The directory.
        path: PathBuf,
        /// Why not.
        reason: String,
    },
    /// A file could not be opened or read.
    #[error("cannot read {}: {reason}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why not.
        reason: String,
    },
    /// A file was read but its contents are malformed.
    #[error("cannot read {}: line {line}: {reason}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong with the line.
        reason: String,
    },
}

impl OutputError {
    /// The path the error is about.
    pub fn path(&self) -> &Path {
        match self {
            OutputError::Write { path, .. }
            | OutputError::Dir { path, .. }
            | OutputError::Read { path, .. }
            | OutputError::Parse { path, .. } => path,
        }
    }

    pub(crate) fn write(path: &Path, reason: impl Into<String>) -> Self {
        OutputError::Write {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }

    pub(crate) fn write_io(path: &Path, err: &io::Error) -> Self {
        Self::write(path, io_reason(err))
    }

    pub(crate) fn dir(path: &Path, reason: impl Into<String>) -> Self {
        OutputError::Dir {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }

    pub(crate) fn read_io(path: &Path, err: &io::Error) -> Self {
        OutputError::Read {
            path: path.to_path_buf(),
            reason: io_reason(err),
        }
    }

    pub(crate) fn parse(path: &Path, line: usize, reason: impl Into<String>) -> Self {
        OutputError::Parse {
            path: path.to_path_buf(),
            line,
            reason: reason.into(),
        }
    }
}

/// The message of an I/O error without the "(os error N)" suffix noise kept by `Display`; a
/// full disk or device also gets its errno name, `No space left on device (ENOSPC)`.
pub(crate) fn io_reason(err: &io::Error) -> String {
    let s = err.to_string();
    let s = match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    };
    if err.kind() == io::ErrorKind::StorageFull {
        format!("{s} (ENOSPC)")
    } else {
        s
    }
}
