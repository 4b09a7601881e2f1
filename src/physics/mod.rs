//! Backend-free physical laws.
