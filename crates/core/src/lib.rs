//! # smithereens-core
//!
//! The engine-agnostic destruction model of Smithereens: a validated
//! [`Asset`] of chunks and bonds, per-instance bond health, damage events with
//! frozen geometry (renormalised radial budgets and per-bond explosion
//! falloff, [`damage`]), support-aware island detection, cluster mass properties
//! and velocity inheritance, bond stress from gravity and loads
//! ([`stress`]), and commit planning behind a backend trait
//! ([`CommitBackend`]).
//!
//! Around the commit (DESIGN §3.7–3.10): idempotent admission keyed by
//! (instance, event id), a rigid-body budget with back-pressure
//! ([`budget`]), debris sleep and recycling with generational slots
//! ([`lifecycle`]), absolute per-commit records ([`recovery`]) shared by
//! replication ([`replication`]), resumable snapshots ([`snapshot`]) and
//! deterministic replay ([`mod@replay`]). The durable store for them is the
//! `smithereens-journal` crate.
//!
//! Units: metres, kilograms, seconds, radians; damage and health in game
//! damage units (du). Runtime math is `f32` (glam, as Rapier uses).
//!
//! This crate depends on no physics engine and no mesh format.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod asset;
pub mod asset_file;
pub mod budget;
pub mod cluster;
pub mod codec;
pub mod commit;
pub mod damage;
pub mod error;
pub mod fixtures;
pub mod hash;
pub mod index;
pub mod instance;
pub mod instance_set;
pub mod island;
pub mod lifecycle;
pub mod mass;
pub mod point_tree;
pub mod pool;
pub mod pose;
pub mod quantity;
pub mod receipts;
pub mod record;
pub mod recovery;
pub mod replay;
pub mod replication;
pub mod snapshot;
mod spatial_hash;
pub mod stress;
pub mod velocity;

pub use asset::{
    Asset, AssetDesc, Bond, BondDesc, BondEnd, Chunk, ChunkDesc, HullDesc, SupportGraph,
};
pub use asset_file::{AssetFile, AssetFileError, ChunkMesh};
pub use budget::{
    BodySlot, BudgetDesc, BudgetError, BudgetShortfall, ProxyDesc, ProxyId, Representation,
};
pub use cluster::{Cluster, ClusterHandle, ClusterMotion, Members};
pub use codec::FrameError;
pub use commit::{
    BodyAllowance, CommitBackend, CommitError, CommitOutcome, CommitPlan, CommitStatus,
    HeadlessBackend, PlannedImpulse, SplitPart, SplitPlan, impulse_change, part_motion,
};
pub use damage::{
    DamageEvent, DamageModel, EventId, EventSource, FalloffDamage, RadialDamage, SpreadDamage,
    SpreadOutcome, StressDamage,
};
pub use error::{AssetError, DamageError, MassError};
pub use glam;
pub use index::{BondIndex, ChunkIndex, IndexVec};
pub use instance::{
    Admission, Instance, InstanceDesc, InstanceError, InstanceId, PendingEvent, Receipt,
};
pub use instance_set::{DuplicateInstance, InstanceSet};
pub use lifecycle::{LifecycleDesc, LifecycleError, RecycleTicket, SleepState};
pub use pose::Pose;
pub use recovery::{
    ClusterRecord, CommitRecord, NodeSet, RecordError, RecordOutcome, RecoveryError,
    RecoveryReport, recover,
};
pub use replay::{ReplayEntry, ReplayError, ReplayLog, ReplayRecorder, ReplayReport, replay};
pub use replication::{Message, ReceiveOutcome, Replica, ReplicationError};
pub use smallvec;
pub use snapshot::{ClusterSnapshot, Snapshot, SnapshotError};
pub use stress::{StressError, StressSolver};
pub use velocity::Velocity;
