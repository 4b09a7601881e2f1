//! Backend-independent simulation driver.

use crate::cpu::CpuBackend;
use crate::gpu::{GpuBackend, GpuError, GpuOptions};
use crate::{Diagnostics, Precision, Scene, Snapshot};

/// Which engine steps the scene (`--backend`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// The GPU when a hardware adapter exists, else the CPU with a notice (default). A software
    /// adapter (lavapipe) is used only when `WGPU_ADAPTER_NAME` names it.
    #[default]
    Auto,
    /// wgpu compute shaders, f32.
    Gpu,
    /// The CPU reference backend.
    Cpu,
    /// The exact event-driven solver (not in this build yet).
    Event,
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Backend::Auto => "auto",
            Backend::Gpu => "gpu",
            Backend::Cpu => "cpu",
            Backend::Event => "event",
        })
    }
}

/// Errors while setting up or stepping a simulation.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// A sphere's position or velocity became NaN or infinite.
    #[error(
        "simulation became non-finite at step {step}: sphere {sphere} has a NaN or infinite \
         position or velocity (try a smaller dt, currently {dt} s)"
    )]
    NonFinite {
        /// Step at which it was detected (1 = after the first step).
        step: u64,
        /// Input id of the sphere (lowest such id).
        sphere: u32,
        /// The time step, s.
        dt: f64,
    },
    /// The requested backend is not available in this build or on this machine.
    #[error("backend '{backend}' is not available: {reason}")]
    Unavailable {
        /// The backend asked for.
        backend: Backend,
        /// Why.
        reason: String,
    },
    /// The GPU backend failed to start (no adapter, scene too large, …).
    #[error(transparent)]
    Gpu(#[from] GpuError),
}

/// Wall-clock accounting of stepping (excluding loading and output).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct StepStats {
    /// Steps completed.
    pub steps: u64,
    /// Seconds spent stepping.
    pub wall_seconds: f64,
    /// Spheres × steps / seconds.
    pub particle_steps_per_second: f64,
}

enum Engine {
    Cpu32(Box<CpuBackend<f32>>),
    Cpu64(Box<CpuBackend<f64>>),
    Gpu(Box<GpuBackend>),
}

/// A running simulation on one backend. Create with [`Simulation::new`] from a checked scene.
pub struct Simulation {
    engine: Engine,
    backend: Backend,
    dt: f64,
    particles: usize,
    stepping: std::time::Duration,
    notice: Option<String>,
}

impl Simulation {
    /// Sets up `scene` (which must have passed [`Scene::check`]) on `backend` in `precision`.
    ///
    /// `Backend::Auto` takes the GPU when an adapter opens (and the precision is f32), else the
    /// CPU, and leaves a [`Simulation::notice`] saying so.
    ///
    /// # Errors
    /// [`SimError::Gpu`] when the GPU backend was asked for and cannot run the scene (no adapter,
    /// too large); [`SimError::Unavailable`] for the event backend and for f64 on the GPU.
    pub fn new(scene: &Scene, backend: Backend, precision: Precision) -> Result<Self, SimError> {
        Self::with_gpu_options(scene, backend, precision, GpuOptions::default())
    }

    /// As [`Simulation::new`], with options for the GPU backend.
    pub fn with_gpu_options(
        scene: &Scene,
        backend: Backend,
        precision: Precision,
        gpu: GpuOptions,
    ) -> Result<Self, SimError> {
        let mut notice = None;
        let (engine, backend) = match backend {
            Backend::Event => {
                return Err(SimError::Unavailable {
                    backend,
                    reason: "the event-driven solver is not in this build yet".into(),
                });
            }
            Backend::Gpu if precision == Precision::F64 => {
                return Err(SimError::Unavailable {
                    backend,
                    reason: "the GPU backend computes in f32; use --precision f32 or --backend cpu"
                        .into(),
                });
            }
            Backend::Gpu => (
                Engine::Gpu(Box::new(GpuBackend::new(scene, gpu)?)),
                Backend::Gpu,
            ),
            Backend::Auto if precision == Precision::F32 => {
                let cpu = |notice: &mut Option<String>, why: String| {
                    *notice = Some(why);
                    (
                        Engine::Cpu32(Box::new(CpuBackend::new(scene))),
                        Backend::Cpu,
                    )
                };
                match crate::gpu::GpuContext::new() {
                    // A software rasteriser is slower than the CPU backend on the same cores:
                    // take it only when the user names it (WGPU_ADAPTER_NAME) or asks for
                    // --backend gpu.
                    Ok(ctx)
                        if ctx.is_software() && std::env::var_os("WGPU_ADAPTER_NAME").is_none() =>
                    {
                        cpu(
                            &mut notice,
                            format!(
                                "the only GPU adapter is a software one ({}); running on the CPU \
                                 backend (--backend gpu runs on it anyway)",
                                ctx.adapter_name()
                            ),
                        )
                    }
                    Ok(ctx) => match GpuBackend::with_context(ctx, scene, gpu) {
                        Ok(g) => (Engine::Gpu(Box::new(g)), Backend::Gpu),
                        Err(e) => cpu(
                            &mut notice,
                            format!("GPU backend unavailable ({e}); running on the CPU"),
                        ),
                    },
                    Err(e) => cpu(
                        &mut notice,
                        format!("GPU backend unavailable ({e}); running on the CPU"),
                    ),
                }
            }
            Backend::Auto | Backend::Cpu => match precision {
                Precision::F32 => (
                    Engine::Cpu32(Box::new(CpuBackend::new(scene))),
                    Backend::Cpu,
                ),
                Precision::F64 => (
                    Engine::Cpu64(Box::new(CpuBackend::new(scene))),
                    Backend::Cpu,
                ),
            },
        };
        Ok(Self {
            engine,
            backend,
            dt: scene.sim.dt,
            particles: scene.spheres.len(),
            stepping: std::time::Duration::ZERO,
            notice,
        })
    }

    /// Why `Backend::Auto` did not take the GPU, if it did not.
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// The backend actually running (never `Auto`).
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The device the backend runs on, e.g. the CPU's core count.
    pub fn adapter(&self) -> String {
        match &self.engine {
            Engine::Gpu(g) => g.adapter_name(),
            _ => format!("CPU ({} threads)", rayon::current_num_threads()),
        }
    }

    /// Number of spheres.
    pub fn particles(&self) -> usize {
        self.particles
    }

    /// Advances `n` steps. Stops at the first non-finite state with [`SimError::NonFinite`].
    pub fn step(&mut self, n: u64) -> Result<(), SimError> {
        let t0 = std::time::Instant::now();
        let dt = self.dt;
        let result = match &mut self.engine {
            Engine::Cpu32(b) => {
                (0..n).try_for_each(|_| b.step().map_err(|id| (b.steps_done(), id)))
            }
            Engine::Cpu64(b) => {
                (0..n).try_for_each(|_| b.step().map_err(|id| (b.steps_done(), id)))
            }
            // Many steps per submission; returns once the GPU has finished them.
            Engine::Gpu(g) => g.step(n),
        };
        self.stepping += t0.elapsed();
        result.map_err(|(step, sphere)| SimError::NonFinite { step, sphere, dt })
    }

    /// Steps completed.
    pub fn steps_done(&self) -> u64 {
        match &self.engine {
            Engine::Cpu32(b) => b.steps_done(),
            Engine::Cpu64(b) => b.steps_done(),
            Engine::Gpu(g) => g.steps_done(),
        }
    }

    /// Simulated time, s.
    pub fn time(&self) -> f64 {
        self.steps_done() as f64 * self.dt
    }

    /// Diagnostics of the current state.
    pub fn diagnostics(&mut self) -> Diagnostics {
        match &self.engine {
            Engine::Cpu32(b) => b.diagnostics(),
            Engine::Cpu64(b) => b.diagnostics(),
            Engine::Gpu(g) => g.diagnostics(),
        }
    }

    /// The current state in input order.
    pub fn snapshot(&mut self) -> Snapshot {
        match &self.engine {
            Engine::Cpu32(b) => b.snapshot(),
            Engine::Cpu64(b) => b.snapshot(),
            Engine::Gpu(g) => g.snapshot(),
        }
    }

    /// Seconds spent per stage so far, named (CPU backend).
    pub fn stage_seconds(&self) -> Vec<(&'static str, f64)> {
        let t = match &self.engine {
            Engine::Cpu32(b) => b.stage_seconds(),
            Engine::Cpu64(b) => b.stage_seconds(),
            Engine::Gpu(_) => return Vec::new(),
        };
        crate::cpu::STAGES.iter().copied().zip(t).collect()
    }

    /// The integer outputs of the last binning (CPU f32/f64 or GPU), for exact comparisons.
    pub fn binning_state(&self) -> crate::cpu::BinningState {
        match &self.engine {
            Engine::Cpu32(b) => b.binning_state(),
            Engine::Cpu64(b) => b.binning_state(),
            Engine::Gpu(g) => g.binning_state(),
        }
    }

    /// Time spent in [`Simulation::step`] so far, and the throughput.
    pub fn step_stats(&self) -> StepStats {
        let secs = self.stepping.as_secs_f64();
        let steps = self.steps_done();
        StepStats {
            steps,
            wall_seconds: secs,
            particle_steps_per_second: if secs > 0.0 {
                self.particles as f64 * steps as f64 / secs
            } else {
                0.0
            },
        }
    }

    /// Sets up `scene` (checked) on the GPU backend on an open context, e.g. one that also
    /// presents to a window.
    ///
    /// # Errors
    /// [`SimError::Gpu`] when the scene does not fit the adapter.
    pub fn on_gpu_context(
        scene: &Scene,
        ctx: crate::gpu::GpuContext,
        gpu: GpuOptions,
    ) -> Result<Self, SimError> {
        Ok(Self {
            engine: Engine::Gpu(Box::new(GpuBackend::with_context(ctx, scene, gpu)?)),
            backend: Backend::Gpu,
            dt: scene.sim.dt,
            particles: scene.spheres.len(),
            stepping: std::time::Duration::ZERO,
            notice: None,
        })
    }

    /// The GPU backend, when that is what runs (the renderer binds its state buffers).
    pub fn gpu_backend(&self) -> Option<&GpuBackend> {
        match &self.engine {
            Engine::Gpu(g) => Some(g),
            _ => None,
        }
    }
}
