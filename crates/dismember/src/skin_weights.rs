//! Skin-weight validation for detached meshes (seed §4.4 `ValidateDetachedMesh`).
//!
//! Format-agnostic: the caller lists each vertex's influences (bone, weight)
//! from whatever mesh format it uses. A detached mesh is valid when every
//! vertex's weights sum to 1 (within [`WEIGHT_SUM_TOLERANCE`]) and every
//! non-zero influence names a bone the gib can pose (its bones, including
//! the recipe's additional physics bones). Dropping the upper-arm influence
//! and renormalising instead makes the cut shrink or jump (§4.4).
//!
//! Storage is CSR: `offsets.len() == vertex_count + 1`, influences of vertex
//! `v` at `offsets[v]..offsets[v + 1]`.

use crate::body_model::BodyModel;
use crate::damage_graph::{BoneMask, bone_bit};
use crate::index::BoneIndex;

/// Largest accepted `|Σ w − 1|` per vertex.
pub const WEIGHT_SUM_TOLERANCE: f32 = 1e-3;

/// Why skin weights were rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SkinError {
    /// `offsets` is empty, does not start at 0, decreases, or overruns the influences.
    #[error("skin offsets are malformed")]
    BadOffsets,
    /// `bones` and `weights` differ in length.
    #[error("{bones} influence bones but {weights} weights")]
    LengthMismatch {
        /// Bones given.
        bones: usize,
        /// Weights given.
        weights: usize,
    },
    /// A weight is negative or non-finite.
    #[error("vertex {vertex} has weight {weight}")]
    BadWeight {
        /// Vertex.
        vertex: u32,
        /// Weight.
        weight: f32,
    },
    /// The weights of a vertex do not sum to 1.
    #[error("vertex {vertex} weights sum to {sum}, not 1")]
    WeightSum {
        /// Vertex.
        vertex: u32,
        /// Sum.
        sum: f32,
    },
    /// An influence names a bone out of range.
    #[error("vertex {vertex} names bone {bone}, out of range")]
    BoneOutOfRange {
        /// Vertex.
        vertex: u32,
        /// Bone.
        bone: BoneIndex,
    },
    /// A non-zero influence names a bone the gib has no pose for.
    #[error("vertex {vertex} is weighted to bone {bone}, which the gib cannot pose")]
    MissingPoseSource {
        /// Vertex.
        vertex: u32,
        /// Bone.
        bone: BoneIndex,
    },
}

/// Per-vertex skin influences in CSR form.
#[derive(Clone, Debug, PartialEq)]
pub struct SkinWeights {
    /// `vertex_count + 1` offsets into `bones` / `weights`.
    pub offsets: Vec<u32>,
    /// Influence bones.
    pub bones: Vec<BoneIndex>,
    /// Influence weights, one per entry of `bones`.
    pub weights: Vec<f32>,
}

/// Validates a detached mesh's weights against the bones the gib can pose
/// (`pose_sources`, e.g. [`crate::GibPlan::bones`] as a mask).
///
/// # Errors
/// Every [`SkinError`] variant, for the first offending vertex.
pub fn validate_detached_skin(
    model: &BodyModel,
    skin: &SkinWeights,
    pose_sources: BoneMask,
) -> Result<(), SkinError> {
    if skin.bones.len() != skin.weights.len() {
        return Err(SkinError::LengthMismatch {
            bones: skin.bones.len(),
            weights: skin.weights.len(),
        });
    }
    if skin.offsets.first() != Some(&0)
        || skin.offsets.windows(2).any(|w| w[1] < w[0])
        || skin
            .offsets
            .last()
            .is_some_and(|&e| e as usize > skin.bones.len())
    {
        return Err(SkinError::BadOffsets);
    }
    for (v, w) in skin.offsets.windows(2).enumerate() {
        let vertex = v as u32;
        let mut sum = 0.0f32;
        for i in w[0] as usize..w[1] as usize {
            let (bone, weight) = (skin.bones[i], skin.weights[i]);
            if !(weight.is_finite() && weight >= 0.0) {
                return Err(SkinError::BadWeight { vertex, weight });
            }
            if model.bone(bone).is_none() {
                return Err(SkinError::BoneOutOfRange { vertex, bone });
            }
            if weight > 0.0 && pose_sources & bone_bit(bone) == 0 {
                return Err(SkinError::MissingPoseSource { vertex, bone });
            }
            sum += weight;
        }
        if (sum - 1.0).abs() > WEIGHT_SUM_TOLERANCE {
            return Err(SkinError::WeightSum { vertex, sum });
        }
    }
    Ok(())
}
