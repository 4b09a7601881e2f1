//! TOML scene files (stub: being written).
use super::{Scene, SceneError};
use std::path::Path;

impl Scene {
    /// Parses a scene from TOML text; `name` is used in summaries.
    pub fn from_toml_str(_text: &str, _name: &str) -> Result<Scene, SceneError> {
        todo!()
    }
    /// Loads a scene file.
    pub fn load(_path: &Path) -> Result<Scene, SceneError> {
        todo!()
    }
}
