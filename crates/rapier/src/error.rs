//! Errors of the Rapier backend.

use smithereens_core::{ChunkIndex, ClusterHandle};

/// Why the Rapier backend could not build or change the world.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BackendError {
    /// A chunk's hull points do not span a volume (fewer than 4 non-coplanar points).
    #[error("chunk {0} has no usable convex hull (needs 4+ non-coplanar points)")]
    DegenerateHull(ChunkIndex),
    /// A chunk's hulls do not fit its declared mass properties: its
    /// centroid lies `offset` m outside every hull (more than `limit` m, see
    /// `backend::HULL_CENTROID_TOLERANCE`), or they enclose less volume
    /// than the chunk declares.
    #[error(
        "chunk {chunk}'s hulls do not match its mass properties: its centroid is {offset:.3} m outside its hulls (limit {limit:.3} m), hull volume {hull_volume:.4} m³ for a declared {volume:.4} m³"
    )]
    HullMismatch {
        /// The chunk.
        chunk: ChunkIndex,
        /// Distance from the declared centroid to the nearest hull, m.
        offset: f32,
        /// Largest distance accepted, m.
        limit: f32,
        /// Volume enclosed by the chunk's (sharp) hulls, m³.
        hull_volume: f32,
        /// The chunk's declared volume, m³.
        volume: f32,
    },
    /// A cluster has no body in the world (stale or foreign handle).
    #[error("cluster {0} has no body in this world")]
    MissingBody(ClusterHandle),
    /// Setting out of range.
    #[error("invalid setting {name} = {value}: {reason}")]
    BadSetting {
        /// Setting name.
        name: &'static str,
        /// Its value.
        value: f32,
        /// The allowed range.
        reason: &'static str,
    },
    /// An authored proxy is unknown or has a piece without volume.
    #[error("proxy {0} is unknown or has a degenerate convex piece")]
    BadProxy(u32),
    /// A failure injected by a test hook.
    #[error("injected {0} failure")]
    Injected(&'static str),
    /// The chunk is out of range or not simulated by the instance.
    #[error("chunk {0} is not simulated by this instance")]
    UnknownChunk(ChunkIndex),
    /// The instance handle names no live instance (unknown or despawned).
    #[error("{0} does not exist (stale or unknown handle)")]
    StaleInstance(crate::set::InstanceHandle),
    /// The instance could not be created.
    #[error("instance: {0}")]
    Instance(String),
    /// Stress settings, materials or a solve were refused (the core's
    /// [`smithereens_core::StressError`], as text).
    #[error("stress: {0}")]
    Stress(String),
}
