//! # smithereens-core
//!
//! The engine-agnostic destruction model of Smithereens: a validated
//! [`Asset`] of chunks and bonds, per-instance bond health, radial damage with
//! frozen geometry, support-aware island detection, cluster mass properties
//! and velocity inheritance, and commit planning behind a backend trait
//! ([`CommitBackend`]).
//!
//! Units: metres, kilograms, seconds, radians; damage and health in game
//! damage units (du). Runtime math is `f32` (glam, as Rapier uses).
//!
//! This crate depends on no physics engine and no mesh format.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod asset;
pub mod asset_file;
pub mod cluster;
pub mod commit;
pub mod damage;
pub mod error;
pub mod fixtures;
pub mod hash;
pub mod index;
pub mod instance;
pub mod island;
pub mod mass;
pub mod pose;
pub mod record;
pub mod velocity;

pub use asset::{
    Asset, AssetDesc, Bond, BondDesc, BondEnd, Chunk, ChunkDesc, HullDesc, SupportGraph,
};
pub use asset_file::{AssetFile, AssetFileError, ChunkMesh};
pub use cluster::{Cluster, ClusterHandle, ClusterMotion};
pub use commit::{
    CommitBackend, CommitError, CommitOutcome, CommitPlan, HeadlessBackend, PlannedImpulse,
    SplitPart, SplitPlan, impulse_change, part_motion,
};
pub use damage::{EventId, RadialDamage};
pub use error::{AssetError, DamageError, MassError};
pub use glam;
pub use index::{BondIndex, ChunkIndex, IndexVec};
pub use instance::{Admission, Instance, PendingEvent, Receipt};
pub use pose::Pose;
pub use velocity::Velocity;
