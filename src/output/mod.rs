//! Output files (stub: being written).
