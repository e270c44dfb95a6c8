//! Resumable world snapshots: the core snapshot plus the Rapier state.

use super::DestructionWorld;
use super::contact::{ContactCollector, PreStepVelocities};
use super::impulses::{Explosion, Transfer};
use super::settings::WorldSettings;
use crate::backend::ChunkShapes;
use crate::error::BackendError;
use rapier3d::prelude::*;
use smithereens_core::{Asset, ClusterHandle, EventId, Instance};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Everything a [`DestructionWorld`] needs to continue bit for bit, taken at a
/// step boundary. The chunk shapes are rebuilt from the asset on restore.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct WorldSnapshot {
    pub(super) format: u32,
    pub(super) instance: Vec<u8>,
    pub(super) physics: PhysicsWorld,
    pub(super) bodies: BTreeMap<ClusterHandle, RigidBodyHandle>,
    pub(super) projectiles: Vec<RigidBodyHandle>,
    pub(super) settings: WorldSettings,
    pub(super) transfers: BTreeMap<EventId, Transfer>,
    pub(super) blasts: BTreeMap<EventId, (Explosion, bool)>,
    pub(super) asleep_since: BTreeMap<ClusterHandle, u64>,
    pub(super) recycling: Vec<smithereens_core::lifecycle::RecycleTicket>,
    pub(super) step_index: u64,
    pub(super) next_event: u64,
}

const WORLD_SNAPSHOT_FORMAT: u32 = 2;

/// Borrowing twin of [`WorldSnapshot`] for encoding without cloning the world.
#[derive(serde::Serialize)]
pub(super) struct WorldSnapshotRef<'a> {
    pub(super) format: u32,
    pub(super) instance: Vec<u8>,
    pub(super) physics: &'a PhysicsWorld,
    pub(super) bodies: &'a BTreeMap<ClusterHandle, RigidBodyHandle>,
    pub(super) projectiles: &'a Vec<RigidBodyHandle>,
    pub(super) settings: &'a WorldSettings,
    pub(super) transfers: &'a BTreeMap<EventId, Transfer>,
    pub(super) blasts: &'a BTreeMap<EventId, (Explosion, bool)>,
    pub(super) asleep_since: &'a BTreeMap<ClusterHandle, u64>,
    pub(super) recycling: &'a Vec<smithereens_core::lifecycle::RecycleTicket>,
    pub(super) step_index: u64,
    pub(super) next_event: u64,
}

/// Why a world snapshot could not be restored. Nothing is created on error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum WorldSnapshotError {
    /// Truncated, corrupt or foreign bytes.
    #[error("world snapshot cannot be decoded: {0}")]
    Decode(String),
    /// Another snapshot format version.
    #[error("world snapshot format {0} is not supported")]
    Format(u32),
    /// The destruction state does not fit the asset.
    #[error("destruction state")]
    Instance(#[from] smithereens_core::snapshot::SnapshotError),
    /// Settings or shapes are invalid.
    #[error("world")]
    Backend(#[from] BackendError),
    /// The physics state does not match the destruction state.
    #[error("world snapshot is inconsistent: {0}")]
    Inconsistent(String),
}

impl DestructionWorld {
    /// Serialises the whole world at the current step boundary: the
    /// destruction state (core snapshot) and the Rapier world (postcard).
    pub fn snapshot(&self) -> Vec<u8> {
        let snap = WorldSnapshotRef {
            format: WORLD_SNAPSHOT_FORMAT,
            instance: self.instance.snapshot().to_bytes(),
            physics: &self.physics,
            bodies: &self.bodies,
            projectiles: &self.projectiles,
            settings: &self.settings,
            transfers: &self.transfers,
            blasts: &self.blasts,
            asleep_since: &self.asleep_since,
            recycling: &self.recycling,
            step_index: self.step_index,
            next_event: self.next_event,
        };
        postcard::to_stdvec(&snap).unwrap_or_default()
    }

    /// Rebuilds a world from [`Self::snapshot`] bytes of the same asset. The
    /// restored world continues with the same state hashes as the original.
    ///
    /// # Errors
    /// [`WorldSnapshotError`] for bad bytes, another asset, or a physics state
    /// that does not match the destruction state.
    pub fn restore(asset: Arc<Asset>, bytes: &[u8]) -> Result<Self, WorldSnapshotError> {
        let snap: WorldSnapshot =
            postcard::from_bytes(bytes).map_err(|e| WorldSnapshotError::Decode(e.to_string()))?;
        if snap.format != WORLD_SNAPSHOT_FORMAT {
            return Err(WorldSnapshotError::Format(snap.format));
        }
        snap.settings.validate()?;
        let core = smithereens_core::snapshot::Snapshot::from_bytes(&snap.instance)?;
        let instance = Instance::restore(asset.clone(), &core)?;
        let live: Vec<ClusterHandle> = instance.clusters().map(|(h, _)| h).collect();
        let mapped: Vec<ClusterHandle> = snap.bodies.keys().copied().collect();
        for h in &mapped {
            if !live.contains(h) || !snap.physics.bodies.contains(snap.bodies[h]) {
                return Err(WorldSnapshotError::Inconsistent(format!(
                    "cluster {h} has no body"
                )));
            }
        }
        if snap
            .projectiles
            .iter()
            .any(|&p| !snap.physics.bodies.contains(p))
        {
            return Err(WorldSnapshotError::Inconsistent(
                "a projectile has no body".into(),
            ));
        }
        let shapes = ChunkShapes::build(&asset, snap.settings.collider_border)?;
        Ok(Self {
            physics: snap.physics,
            instance,
            bodies: snap.bodies,
            shapes,
            projectiles: snap.projectiles,
            settings: snap.settings,
            collector: ContactCollector::default(),
            pre_step: PreStepVelocities::default(),
            transfers: snap.transfers,
            blasts: snap.blasts,
            injected_prepare_failures: 0,
            asleep_since: snap.asleep_since,
            recycling: snap.recycling,
            step_index: snap.step_index,
            next_event: snap.next_event,
        })
    }
}
