//! # smithereens-authoring
//!
//! Offline fracture of real meshes into Smithereens assets.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod error;
pub mod import;
pub mod mass_properties;
pub mod mesh;
mod topology;

pub use error::{FractureError, MeshError};
pub use import::load_mesh;
pub use mass_properties::MassProperties;
pub use mesh::{TriMesh, mesh_from_triangles};
