//! Backend-independent simulation driver.
use crate::{Diagnostics, Precision, Scene, Snapshot};

/// Which engine steps the scene.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// GPU when an adapter exists, else CPU (default).
    #[default]
    Auto,
    /// wgpu compute shaders.
    Gpu,
    /// CPU reference.
    Cpu,
    /// Exact event-driven solver.
    Event,
}

/// Errors while stepping.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// Placeholder.
    #[error("{0}")]
    Other(String),
}

/// Timing of a run.
#[derive(Clone, Copy, Debug, Default)]
pub struct StepStats;

/// A running simulation.
pub struct Simulation;

impl Simulation {
    /// Creates a simulation.
    pub fn new(_scene: &Scene, _backend: Backend, _precision: Precision) -> Result<Self, SimError> {
        todo!()
    }
    /// Advances `n` steps.
    pub fn step(&mut self, _n: u64) -> Result<(), SimError> {
        todo!()
    }
    /// Diagnostics now.
    pub fn diagnostics(&mut self) -> Diagnostics {
        todo!()
    }
    /// State now.
    pub fn snapshot(&mut self) -> Snapshot {
        todo!()
    }
}
