//! Backend-free physical laws as small pure functions (docs/physics.md).
//!
//! Each law lives here once. The CPU stages call these functions; the WGSL copies, in
//! `shaders/physics/<module>.wgsl` (and a few in the stage files), name the function they mirror. Functions generic over [`Real`](crate::Real) run in the
//! backend's precision; set-up helpers work in `f64`.

pub mod drag;
pub mod friction;
pub mod gravity;
pub mod guard;
pub mod hertz;
pub mod impulse;
pub mod multipole;
pub mod periodic;
pub mod rotation;
pub mod spring_dashpot;
pub mod toi;

/// Newton's gravitational constant G, m³ kg⁻¹ s⁻² (CODATA 2018: 6.674 30 × 10⁻¹¹).
pub const GRAVITATIONAL_CONSTANT: f64 = 6.6743e-11;
