//! Resumable world snapshots: the set's snapshot plus the Rapier world, the
//! projectiles and the settings.

use super::DestructionWorld;
use super::settings::WorldSettings;
use crate::error::BackendError;
use crate::set::{DestructionSet, InstanceHandle, SetSnapshotError};
use rapier3d::prelude::*;
use smithereens_core::Asset;
use std::sync::Arc;

/// Format 5: contact damage settings with a reach in rings
/// (`ImpactDamage::max_rings`) instead of a radius. Earlier formats are a
/// typed [`WorldSnapshotError`] format error.
const WORLD_SNAPSHOT_FORMAT: u32 = 5;

#[derive(serde::Serialize, serde::Deserialize)]
struct WorldSnapshot {
    format: u32,
    set: Vec<u8>,
    physics: PhysicsWorld,
    handle: InstanceHandle,
    projectiles: Vec<RigidBodyHandle>,
    settings: WorldSettings,
}

/// Borrowing twin of [`WorldSnapshot`] for encoding without cloning the world.
#[derive(serde::Serialize)]
struct WorldSnapshotRef<'a> {
    format: u32,
    set: Vec<u8>,
    physics: &'a PhysicsWorld,
    handle: InstanceHandle,
    projectiles: &'a Vec<RigidBodyHandle>,
    settings: &'a WorldSettings,
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
    /// The destruction state does not fit the asset or the physics state.
    #[error("destruction set")]
    Set(#[from] SetSnapshotError),
    /// Settings are invalid.
    #[error("world")]
    Backend(#[from] BackendError),
    /// The physics state does not match the destruction state.
    #[error("world snapshot is inconsistent: {0}")]
    Inconsistent(String),
}

impl DestructionWorld {
    /// Serialises the whole world at the current step boundary: the
    /// destruction set and the Rapier world (postcard).
    ///
    /// # Errors
    /// [`WorldSnapshotError::Set`] with [`SetSnapshotError::Encode`] if
    /// serialisation fails.
    pub fn snapshot(&self) -> Result<Vec<u8>, WorldSnapshotError> {
        let snap = WorldSnapshotRef {
            format: WORLD_SNAPSHOT_FORMAT,
            set: self.set.snapshot()?,
            physics: &self.physics,
            handle: self.handle,
            projectiles: &self.projectiles,
            settings: &self.settings,
        };
        postcard::to_stdvec(&snap)
            .map(crate::set::snapshot::seal)
            .map_err(|e| WorldSnapshotError::Set(SetSnapshotError::Encode(e.to_string())))
    }

    /// Rebuilds a world from [`Self::snapshot`] bytes of the same asset. The
    /// restored world continues with the same state hashes as the original.
    ///
    /// # Errors
    /// [`WorldSnapshotError`] for bad bytes, another asset, or a physics state
    /// that does not match the destruction state.
    pub fn restore(asset: Arc<Asset>, bytes: &[u8]) -> Result<Self, WorldSnapshotError> {
        let body = crate::set::snapshot::unseal(bytes).map_err(|e| match e {
            SetSnapshotError::Decode(m) => WorldSnapshotError::Decode(m),
            other => WorldSnapshotError::Set(other),
        })?;
        let snap: WorldSnapshot =
            crate::set::snapshot::decode_exact(body).map_err(|e| match e {
                SetSnapshotError::Decode(m) => WorldSnapshotError::Decode(m),
                other => WorldSnapshotError::Set(other),
            })?;
        if snap.format != WORLD_SNAPSHOT_FORMAT {
            return Err(WorldSnapshotError::Format(snap.format));
        }
        snap.settings.validate()?;
        let set = DestructionSet::restore(&snap.set, &[asset], &snap.physics)?;
        if set.instance(snap.handle).is_err() {
            return Err(WorldSnapshotError::Inconsistent(
                "the world's instance is missing".into(),
            ));
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
        Ok(Self {
            physics: snap.physics,
            set,
            handle: snap.handle,
            projectiles: snap.projectiles,
            resolve_breaks: false,
            settings: snap.settings,
        })
    }
}
