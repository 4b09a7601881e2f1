//! Drawing the spheres: an orbit camera ([`camera`]; which axis is up: [`Up`]), the automatic
//! framing ([`framing`]), the instanced impostor renderer ([`impostor`]), offscreen capture to
//! PNG ([`offscreen`]), `spheresim render`'s frame series ([`frames`]) and its video output
//! through ffmpeg ([`video`]), the interactive winit viewer ([`app`]) and its heads-up overlay
//! ([`hud`]).
//!
//! The renderer draws on the device the simulation runs on: with the GPU backend its vertex
//! shader reads the simulation's storage buffers directly (no copy back to the CPU per frame);
//! with the CPU backend positions are uploaded each frame.

#[cfg(feature = "viewer")]
pub mod app;
pub mod camera;
pub mod colour;
#[cfg(feature = "cli")]
pub mod frames;
pub mod framing;
pub mod hud;
pub mod impostor;
pub mod offscreen;
pub mod video;

use crate::gpu::{GpuContext, GpuError, GpuOptions};
use crate::output::OutputError;
use crate::{Backend, Precision, Scene, SimError, Simulation};

pub use camera::{Camera, OrbitCamera, Up};
pub use colour::ColourMode;
pub use impostor::{DrawSettings, SceneRenderer};

/// Default direction from a scene's centre towards the camera with +y up: from the −x side
/// (where wall-break's projectile comes from), above and to the side, so a wall in the y–z
/// plane is seen at an angle. With another up axis it is turned by [`Up::basis`].
pub const DEFAULT_VIEW_DIRECTION: glam::Vec3 = glam::Vec3::new(-0.8, 0.45, 1.0);

/// Errors of `spheresim view` and `spheresim render`.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// No adapter or device for drawing.
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// The simulation failed to start or to step.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// An image or directory could not be written.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// A video could not be checked or written (extension, size, ffmpeg); the message names
    /// the file.
    #[error(transparent)]
    Video(#[from] video::VideoError),
    /// An option is out of range; the message names it.
    #[error("{0}")]
    Invalid(String),
    /// The window system failed (no display, window creation, surface).
    #[error("window: {0}")]
    Window(String),
}

/// Opens the simulation on `backend` with drawing on `ctx`'s device: `Gpu` simulates on that
/// device; `Cpu` on the CPU; `Auto` on the GPU unless the adapter is a software rasteriser
/// (lavapipe) that `WGPU_ADAPTER_NAME` does not name, as [`Simulation::new`] decides.
///
/// # Errors
/// [`RenderError::Invalid`] for the event backend;
/// [`RenderError::Sim`] when the GPU backend cannot take the scene.
pub fn open_simulation(
    scene: &Scene,
    backend: Backend,
    ctx: &GpuContext,
) -> Result<Simulation, RenderError> {
    let gpu = match backend {
        Backend::Gpu => true,
        Backend::Cpu => false,
        Backend::Auto => !ctx.is_software() || std::env::var_os("WGPU_ADAPTER_NAME").is_some(),
        Backend::Event => {
            return Err(RenderError::Invalid(format!(
                "{} cannot be drawn: use {}",
                crate::naming::Setting::BackendEvent,
                crate::naming::Setting::DrawableBackends
            )));
        }
    };
    Ok(if gpu {
        Simulation::on_gpu_context(scene, ctx.clone(), GpuOptions::default())?
    } else {
        Simulation::new(scene, Backend::Cpu, Precision::F32)?
    })
}

/// Backends that can draw (`spheresim view` and `render`): the event solver cannot, since it
/// keeps no GPU buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum DrawBackend {
    /// The GPU unless it is a software one, else the CPU.
    Auto,
    /// The GPU backend.
    Gpu,
    /// The CPU backend, its state uploaded for drawing.
    Cpu,
}

impl From<DrawBackend> for crate::Backend {
    fn from(b: DrawBackend) -> crate::Backend {
        match b {
            DrawBackend::Auto => crate::Backend::Auto,
            DrawBackend::Gpu => crate::Backend::Gpu,
            DrawBackend::Cpu => crate::Backend::Cpu,
        }
    }
}
