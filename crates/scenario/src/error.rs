//! Errors of scenario files.

use std::path::PathBuf;

/// Why a scenario file could not be read or built. Nothing is run on error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScenarioFileError {
    /// The file could not be read.
    #[error("cannot read {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Not valid TOML for the scenario schema.
    #[error("invalid scenario TOML: {0}")]
    Toml(String),
    /// A value is out of range.
    #[error("invalid scenario: {field} {problem}")]
    Invalid {
        /// Field path, e.g. `projectiles[0].mass`.
        field: String,
        /// What is wrong.
        problem: String,
    },
    /// The asset mesh could not be loaded.
    #[error("asset mesh")]
    Mesh(#[from] smithereens_authoring::MeshError),
    /// Fracture failed.
    #[error("fracture")]
    Fracture(#[from] smithereens_authoring::FractureError),
    /// An asset file is invalid.
    #[error("asset file")]
    AssetFile(#[from] smithereens_core::AssetFileError),
}
