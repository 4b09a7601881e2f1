//! CPU reference backend.
