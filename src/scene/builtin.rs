//! Built-in scenes (stub: being written).
use super::{Scene, SceneError};

/// Builds the named built-in scene with about `particles` spheres.
pub fn build(_name: &str, _particles: Option<usize>) -> Result<Scene, SceneError> {
    todo!()
}
