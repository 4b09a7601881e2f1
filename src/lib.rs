//! # spheresim
//!
//! A many-body sphere engine: spheres binned into a hashed uniform grid, sphere–sphere and
//! sphere–plane contacts with a restitution coefficient (impulse or spring–dashpot), uniform
//! gravity, mutual Newtonian attraction, Stokes drag, and kick–drift–kick leapfrog integration.
//!
//! The CPU reference backend ([`cpu`]) runs the step stage by stage, one module per stage, with
//! the names the GPU shaders use. Laws live once, in [`physics`]. SI units throughout.
//!
//! Cargo features (all on by default): `gpu` (the GPU backend, [`gpu`], and the renderer,
//! `render`; wgpu, naga), `cli` (the `spheresim` binary and the modules behind its
//! subcommands: `run`, `bench`, `validate`, `render::frames`; clap, indicatif, ctrlc; it brings
//! `gpu`) and `viewer` (the interactive window, `render::app`; winit). A library user can build
//! without `cli` and `viewer` (`default-features = false, features = ["gpu"]`), or without all
//! three (`default-features = false`): the CPU and event backends only, where
//! [`Backend::Gpu`] is refused with [`SimError::Unavailable`] and [`Backend::Auto`] runs on the
//! CPU (docs/architecture.md, "Public API").
//!
//! ```no_run
//! use spheresim::{scene::builtin, Backend, Precision, Simulation};
//! let scene = builtin::build("bounce", None).unwrap();
//! let mut sim = Simulation::new(&scene, Backend::Cpu, Precision::F32).unwrap();
//! sim.step(100).unwrap();
//! println!("{:?}", sim.diagnostics());
//! ```

/// `eprintln!` for messages beside the results (progress, notices, warnings, the run's
/// header): a standard error that was closed (`spheresim run … 2>&1 | head`) drops the line
/// instead of panicking, so the run goes on and writes its files.
#[macro_export]
macro_rules! note {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

#[cfg(feature = "cli")]
pub mod bench;
pub mod checkpoint;
pub mod cpu;
pub mod diagnostics;
pub mod engine;
pub mod event;
#[cfg(feature = "gpu")]
pub mod gpu;
/// Built without the `gpu` feature: only the GPU backend's options remain (plain data), so that
/// [`Simulation::with_gpu_options`] and [`Simulation::resume`] keep their signatures.
#[cfg(not(feature = "gpu"))]
pub mod gpu {
    mod options;
    pub use options::GpuOptions;
}
pub mod history;
pub mod naming;
pub mod output;
pub mod params;
pub mod physics;
pub mod real;
pub mod recipe;
pub mod removal;
#[cfg(feature = "gpu")]
pub mod render;
pub mod repose;
#[cfg(feature = "cli")]
pub mod run;
pub mod scene;
pub mod setup;
pub mod sim;
pub mod state;
#[cfg(feature = "cli")]
pub mod validate;

pub use diagnostics::Diagnostics;
pub use real::{Precision, Real};
pub use scene::{Scene, SceneError};
pub use sim::{Backend, SimError, Simulation, StepStats};
pub use state::Snapshot;
