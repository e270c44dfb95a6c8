//! Typed errors, one enum per concern. Variants carry the offending index and value.

use crate::index::{BondIndex, ChunkIndex};
use glam::Vec3;

/// An error and its sources, joined by ": ", for an error kept or shown as
/// one line of text. The workspace's error types do not repeat their source
/// in their own message (a chained print would say it twice), so
/// `to_string()` alone drops the cause.
///
/// # Example
/// ```
/// use smithereens_core::error::display_chain;
/// #[derive(Debug, thiserror::Error)]
/// #[error("reading the asset")]
/// struct Outer(#[source] std::fmt::Error);
/// assert_eq!(display_chain(&Outer(std::fmt::Error)), "reading the asset: an error occurred when formatting an argument");
/// ```
pub fn display_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(inner) = source {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        source = inner.source();
    }
    s
}

/// Why an [`crate::AssetDesc`] was rejected by [`crate::Asset::new`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AssetError {
    /// The asset has no chunks.
    #[error("the asset has no chunks")]
    NoChunks,
    /// More chunks or bonds than `u32` indices can address safely.
    #[error("the asset has too many chunks or bonds")]
    TooLarge,
    /// Volume not positive finite.
    #[error("chunk {chunk} has volume {value} m³; it must be positive and finite")]
    BadVolume {
        /// Offending chunk.
        chunk: ChunkIndex,
        /// Its volume.
        value: f32,
    },
    /// Mass not positive finite.
    #[error("chunk {chunk} has mass {value} kg; it must be positive and finite")]
    BadMass {
        /// Offending chunk.
        chunk: ChunkIndex,
        /// Its mass.
        value: f32,
    },
    /// Centroid has NaN or infinity.
    #[error("chunk {0} has a non-finite centroid")]
    NonFiniteCentroid(ChunkIndex),
    /// Inertia not finite, symmetric, positive definite.
    #[error("chunk {chunk} has an invalid inertia tensor: {reason}")]
    BadInertia {
        /// Offending chunk.
        chunk: ChunkIndex,
        /// What is wrong.
        reason: String,
    },
    /// A hull point is NaN or infinite.
    #[error("chunk {chunk} hull {hull} has a non-finite point")]
    NonFiniteHull {
        /// Offending chunk.
        chunk: ChunkIndex,
        /// Hull position in the chunk's list.
        hull: u32,
    },
    /// Parent index out of range or not before the child.
    #[error("chunk {chunk} names parent {parent}, which is not an earlier chunk")]
    BadParent {
        /// Offending chunk.
        chunk: ChunkIndex,
        /// The parent it names.
        parent: u32,
    },
    /// A chunk's depth is not its parent's depth + 1 (0 for a root).
    #[error("chunk {chunk} has depth {depth}, expected {expected} from its parent")]
    BadDepth {
        /// Offending chunk.
        chunk: ChunkIndex,
        /// Depth it declares.
        depth: u32,
        /// Parent's depth + 1, or 0 for a root.
        expected: u32,
    },
    /// A parent's volume differs from the sum of its children's by more than
    /// [`HIERARCHY_VOLUME_TOLERANCE`](crate::asset::HIERARCHY_VOLUME_TOLERANCE).
    #[error("chunk {chunk} has volume {volume} m³ but its children add up to {children} m³")]
    HierarchyVolume {
        /// The parent.
        chunk: ChunkIndex,
        /// Its volume, m³.
        volume: f32,
        /// Sum of its children's volumes, m³.
        children: f32,
    },
    /// The support flag is set on a chunk that is not support-level (an
    /// ancestor or a subsupport chunk, see `AssetDesc::support_depth`).
    #[error("chunk {chunk} is marked as a support but is not a support-level chunk")]
    SupportOffLevel {
        /// Offending chunk.
        chunk: ChunkIndex,
    },
    /// A bond ends on a chunk that is not support-level.
    #[error("bond {bond} ends on chunk {chunk}, which is not a support-level chunk")]
    BondOffSupportLevel {
        /// Offending bond.
        bond: BondIndex,
        /// The chunk it names.
        chunk: ChunkIndex,
    },
    /// A bond names a chunk that does not exist.
    #[error("bond {bond} references chunk {chunk}, but the asset has {chunk_count} chunks")]
    BondChunkOutOfRange {
        /// Offending bond.
        bond: BondIndex,
        /// The chunk it names.
        chunk: u32,
        /// Number of chunks.
        chunk_count: u32,
    },
    /// A bond joins a chunk to itself.
    #[error("bond {bond} joins chunk {chunk} to itself")]
    SelfBond {
        /// Offending bond.
        bond: BondIndex,
        /// The chunk.
        chunk: ChunkIndex,
    },
    /// Two bonds join the same pair over the same face (same chunks, same
    /// oriented normal within 1e-3, centroids within 1e-4 m): a duplicate
    /// would take two shares of every radial budget. Remove one, or merge
    /// them into one bond with the summed area.
    #[error("bonds {first} and {second} both join chunk {chunk0} to {other} over the same face")]
    DuplicateBond {
        /// The earlier bond.
        first: BondIndex,
        /// The later bond.
        second: BondIndex,
        /// The lower chunk of the pair.
        chunk0: ChunkIndex,
        /// The other end: a chunk, or "the world".
        other: String,
    },
    /// Bond centroid has NaN or infinity.
    #[error("bond {0} has a non-finite centroid")]
    NonFiniteBondCentroid(BondIndex),
    /// Bond normal not unit length.
    #[error("bond {bond} has a normal of length {length}; it must be a unit vector")]
    BadBondNormal {
        /// Offending bond.
        bond: BondIndex,
        /// Its length.
        length: f32,
    },
    /// Area negative or not finite.
    #[error("bond {bond} has area {value} m²; it must be non-negative and finite")]
    BadBondArea {
        /// Offending bond.
        bond: BondIndex,
        /// Its area.
        value: f32,
    },
    /// Strength not positive finite.
    #[error("bond {bond} has strength {value} du; it must be positive and finite")]
    BadBondStrength {
        /// Offending bond.
        bond: BondIndex,
        /// Its strength.
        value: f32,
    },
}

/// Why mass properties could not be formed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MassError {
    /// No parts were given.
    #[error("no parts to combine")]
    Empty,
    /// A part's mass is not positive finite.
    #[error("part mass {0} kg is not positive and finite")]
    NonPositiveMass(f32),
    /// The tensor has NaN or infinity.
    #[error("inertia tensor is not finite")]
    NonFiniteInertia,
    /// A principal moment is not positive: a flat or empty piece.
    #[error("degenerate inertia: principal moments {moments:?}")]
    Degenerate {
        /// The moments found.
        moments: Vec3,
    },
    /// `Q Λ Qᵀ` differs from the input by more than the tolerance.
    #[error("principal decomposition reconstructs with error {error:e} (scale {scale:e})")]
    Reconstruction {
        /// Largest absolute entry error.
        error: f32,
        /// Largest absolute input entry.
        scale: f32,
    },
}

/// Why a damage event was rejected at admission. A rejected event changes nothing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum DamageError {
    /// Radius not positive finite (R = 0 is not allowed by the radial rule).
    #[error("damage radius {0} m must be positive and finite")]
    BadRadius(f32),
    /// Damage budget (radial) or per-bond damage (falloff) negative or not finite.
    #[error("damage {0} du must be non-negative and finite")]
    BadDamage(f32),
    /// Falloff radii out of range: the outer radius must be positive and
    /// finite, the inner radius finite with `0 ≤ inner ≤ outer`.
    #[error(
        "falloff radii inner {inner} m, outer {outer} m: need 0 ≤ inner ≤ outer, outer > 0, both finite"
    )]
    BadFalloffRadii {
        /// Inner radius, m.
        inner: f32,
        /// Outer radius, m.
        outer: f32,
    },
    /// A spreading event's reach is zero rings.
    #[error("a spreading event must reach at least 1 ring of the bond graph (got {0})")]
    BadReach(u32),
    /// A spreading event names a chunk the asset does not have.
    #[error("chunk {0} is not a chunk of the asset")]
    UnknownChunk(u32),
    /// A stress event's bond list is not ascending and distinct (the
    /// first out-of-order bond).
    #[error("stress damage lists bond {0} out of order or twice (need ascending, distinct bonds)")]
    BadStressList(u32),
    /// A stress event names a bond the asset does not have.
    #[error("bond {0} is not a bond of the asset")]
    UnknownBond(u32),
    /// Impact point has NaN or infinity.
    #[error("impact point {0:?} is not finite")]
    NonFinitePoint(Vec3),
    /// Impulse has NaN or infinity.
    #[error("impulse {0:?} is not finite")]
    NonFiniteImpulse(Vec3),
    /// Same event id, different parameters.
    #[error("event {0} was already admitted with different parameters")]
    ConflictingEvent(u64),
    /// A cluster pose given at admission is not finite.
    #[error("a cluster pose is not finite")]
    NonFinitePose,
    /// The pending queue is full: back-pressure, the event was not queued.
    #[error("the pending queue is full ({capacity} events); retry after the next commit")]
    QueueFull {
        /// Queue capacity.
        capacity: u32,
    },
    /// The caller measured against a topology version that is no longer current.
    #[error("stale topology version {expected}: the instance is at {found}")]
    StaleTopology {
        /// Version the caller assumed.
        expected: u64,
        /// Current version.
        found: u64,
    },
    /// A frozen candidate names a bond (or chunk) out of range or has a bad distance.
    #[error("frozen candidate {0} is out of range or has a negative or non-finite distance")]
    BadCandidate(u32),
    /// Another pending event already has this admission number.
    #[error("another pending event already has admission number {0}")]
    DuplicateAdmission(u64),
    /// No instance with this id exists.
    #[error("unknown instance {0}")]
    UnknownInstance(u64),
}
