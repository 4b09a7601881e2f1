//! Backend-independent simulation driver.

use crate::cpu::CpuBackend;
use crate::{Diagnostics, Precision, Scene, Snapshot};

/// Which engine steps the scene (`--backend`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// The GPU when an adapter exists, else the CPU (default). Without a GPU backend in this
    /// build, always the CPU.
    #[default]
    Auto,
    /// wgpu compute shaders (not in this build yet).
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
}

/// A running simulation on one backend. Create with [`Simulation::new`] from a checked scene.
pub struct Simulation {
    engine: Engine,
    backend: Backend,
    dt: f64,
    particles: usize,
    stepping: std::time::Duration,
}

impl Simulation {
    /// Sets up `scene` (which must have passed [`Scene::check`]) on `backend` in `precision`.
    ///
    /// `Backend::Auto` resolves to the CPU in this build. Errors: [`SimError::Unavailable`] for
    /// the GPU and event backends, which later issues add.
    pub fn new(scene: &Scene, backend: Backend, precision: Precision) -> Result<Self, SimError> {
        let backend = match backend {
            Backend::Auto | Backend::Cpu => Backend::Cpu,
            other => {
                return Err(SimError::Unavailable {
                    backend: other,
                    reason: "this build has only the CPU reference backend".into(),
                });
            }
        };
        let engine = match precision {
            Precision::F32 => Engine::Cpu32(Box::new(CpuBackend::new(scene))),
            Precision::F64 => Engine::Cpu64(Box::new(CpuBackend::new(scene))),
        };
        Ok(Self {
            engine,
            backend,
            dt: scene.sim.dt,
            particles: scene.spheres.len(),
            stepping: std::time::Duration::ZERO,
        })
    }

    /// The backend actually running (never `Auto`).
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The device the backend runs on, e.g. the CPU's core count.
    pub fn adapter(&self) -> String {
        format!("CPU ({} threads)", rayon::current_num_threads())
    }

    /// Number of spheres.
    pub fn particles(&self) -> usize {
        self.particles
    }

    /// Advances `n` steps. Stops at the first non-finite state with [`SimError::NonFinite`].
    pub fn step(&mut self, n: u64) -> Result<(), SimError> {
        let t0 = std::time::Instant::now();
        let dt = self.dt;
        let result = (0..n).try_for_each(|_| match &mut self.engine {
            Engine::Cpu32(b) => b.step().map_err(|id| (b.steps_done(), id)),
            Engine::Cpu64(b) => b.step().map_err(|id| (b.steps_done(), id)),
        });
        self.stepping += t0.elapsed();
        result.map_err(|(step, sphere)| SimError::NonFinite { step, sphere, dt })
    }

    /// Steps completed.
    pub fn steps_done(&self) -> u64 {
        match &self.engine {
            Engine::Cpu32(b) => b.steps_done(),
            Engine::Cpu64(b) => b.steps_done(),
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
        }
    }

    /// The current state in input order.
    pub fn snapshot(&mut self) -> Snapshot {
        match &self.engine {
            Engine::Cpu32(b) => b.snapshot(),
            Engine::Cpu64(b) => b.snapshot(),
        }
    }

    /// Seconds spent per stage so far, named (CPU backend).
    pub fn stage_seconds(&self) -> Vec<(&'static str, f64)> {
        let t = match &self.engine {
            Engine::Cpu32(b) => b.stage_seconds(),
            Engine::Cpu64(b) => b.stage_seconds(),
        };
        crate::cpu::STAGES.iter().copied().zip(t).collect()
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
}
