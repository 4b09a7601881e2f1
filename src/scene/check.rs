//! Scene checking (stub: being written).
use super::Scene;

/// Options of [`Scene::check`].
#[derive(Clone, Copy, Debug, Default)]
pub struct CheckOptions {
    /// Accept initial overlaps deeper than 1 % of the smaller radius.
    pub allow_overlap: bool,
}

/// Why a scene was rejected.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// Placeholder.
    #[error("{0}")]
    Other(String),
}

impl Scene {
    /// Checks every value of the scene.
    pub fn check(&self, _opts: &CheckOptions) -> Result<(), SceneError> {
        Ok(())
    }
}
