//! # smithereens-core
//!
//! The engine-agnostic destruction model of Smithereens: a validated
//! [`Asset`] of chunks and bonds, per-instance bond health, radial damage with
//! frozen geometry, support-aware island detection, cluster mass properties
//! and velocity inheritance, and commit planning behind a backend trait.
//!
//! Units: metres, kilograms, seconds, radians; damage and health in game
//! damage units (du). Runtime math is `f32` (glam, as Rapier uses).
//!
//! This crate depends on no physics engine and no mesh format.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod asset;
pub mod asset_file;
pub mod error;
pub mod hash;
pub mod index;
pub mod mass;

pub use asset::{Asset, AssetDesc, Bond, BondDesc, BondEnd, Chunk, ChunkDesc, HullDesc, SupportGraph};
pub use asset_file::{AssetFile, AssetFileError, ChunkMesh};
pub use error::{AssetError, DamageError, MassError};
pub use index::{BondIndex, ChunkIndex, IndexVec};
pub use glam;
