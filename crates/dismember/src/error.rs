//! Typed errors, one enum per concern. Variants carry the offending name,
//! index or value. Every fallible entry point leaves its inputs unchanged when
//! it returns an error.

use crate::body_model::{OperationCategory, OperationInput};
use crate::index::{BoneIndex, RegionIndex};

/// Why a body model was rejected by [`crate::BodyModel::new`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BodyModelError {
    /// The text is not valid TOML for a [`crate::BodyModelDesc`].
    #[error("body model text does not parse: {0}")]
    Parse(String),
    /// No bones or no regions.
    #[error("a body model needs at least one region and one bone")]
    Empty,
    /// More bones than 64-bit masks can hold.
    #[error("{count} bones; at most {max} are supported")]
    TooManyBones {
        /// Bones in the description.
        count: usize,
        /// Limit ([`crate::MAX_BONES`]).
        max: usize,
    },
    /// An item's name is empty or only whitespace.
    #[error("{kind} {index} has an empty name")]
    EmptyName {
        /// Kind of item (bone, region, …).
        kind: &'static str,
        /// Its position in the file's list of that kind.
        index: usize,
    },
    /// Two items of one kind share a name.
    #[error("duplicate {kind} name `{name}`")]
    DuplicateName {
        /// Kind of item (bone, region, …).
        kind: &'static str,
        /// The repeated name.
        name: String,
    },
    /// A reference to a bone that does not exist.
    #[error("`{owner}` names unknown bone `{name}`")]
    UnknownBone {
        /// Item holding the reference.
        owner: String,
        /// The unknown name.
        name: String,
    },
    /// A reference to a region that does not exist.
    #[error("`{owner}` names unknown region `{name}`")]
    UnknownRegion {
        /// Item holding the reference.
        owner: String,
        /// The unknown name.
        name: String,
    },
    /// A reference to a helper that does not exist.
    #[error("`{owner}` names unknown helper `{name}`")]
    UnknownHelper {
        /// Item holding the reference.
        owner: String,
        /// The unknown name.
        name: String,
    },
    /// An operation names a recipe that does not exist.
    #[error("`{owner}` names missing recipe `{recipe}`")]
    MissingRecipe {
        /// Item holding the operation.
        owner: String,
        /// The missing recipe name.
        recipe: String,
    },
    /// The skeleton does not have exactly one root.
    #[error("the skeleton has {count} roots; exactly one is required")]
    SkeletonRoots {
        /// Bones without a skeleton parent.
        count: usize,
    },
    /// The skeleton parents form a cycle.
    #[error("skeleton parent cycle through bone `{bone}`")]
    SkeletonCycle {
        /// A bone on the cycle.
        bone: String,
    },
    /// The damage parents form a cycle.
    #[error("damage graph cycle through bone `{bone}`")]
    DamageCycle {
        /// A bone on (or behind) the cycle.
        bone: String,
    },
    /// A number is non-finite or out of its documented range.
    #[error("`{owner}` has a bad `{field}` (non-finite or out of range)")]
    BadValue {
        /// Item holding the value.
        owner: String,
        /// Field name.
        field: &'static str,
    },
    /// An operation's input and category disagree (e.g. input `Break`, category `Hole`).
    #[error("`{owner}` has operation input {input:?} with category {category:?}")]
    BadOperation {
        /// Item holding the operation.
        owner: String,
        /// Input.
        input: OperationInput,
        /// Category.
        category: OperationCategory,
    },
}

/// Why a rule set, preset or hit context was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RuleError {
    /// The text is not valid TOML for a [`crate::RuleSetDesc`].
    #[error("rule text does not parse: {0}")]
    Parse(String),
    /// A probability outside `[0, 1]` or NaN.
    #[error("probability `{field}` = {value} is outside [0, 1]")]
    Probability {
        /// Which probability.
        field: &'static str,
        /// The value.
        value: f32,
    },
    /// A multiplier that is negative or non-finite.
    #[error("probability multiplier {value} must be finite and ≥ 0")]
    Multiplier {
        /// The value.
        value: f32,
    },
    /// An additive modifier outside `[-1, 1]` or NaN.
    #[error("additive modifier {value} is outside [-1, 1]")]
    Additive {
        /// The value.
        value: f32,
    },
    /// Health percent outside `[0, 100]` or NaN.
    #[error("health {value} % is outside [0, 100]")]
    Health {
        /// The value.
        value: f32,
    },
    /// A rule names a region the model does not have.
    #[error("rule names unknown region `{0}`")]
    UnknownRegion(String),
    /// Two rules govern the same (region, operation input).
    #[error("two rules for {input:?} at region `{region}`")]
    DuplicateRule {
        /// Region name.
        region: String,
        /// Operation input.
        input: OperationInput,
    },
    /// A modifier name is empty or repeated.
    #[error("modifier name `{0}` is empty or repeated")]
    BadModifierName(String),
    /// A region index out of range.
    #[error("region {0} is out of range")]
    RegionOutOfRange(RegionIndex),
    /// A bone index out of range.
    #[error("bone {0} is out of range")]
    BoneOutOfRange(BoneIndex),
    /// A candidate names a virtual location or indirect candidate the model lacks.
    #[error("candidate {0:?} is not in the model")]
    CandidateOutOfRange(crate::candidate_selection::Location),
    /// A non-finite hit point or plane normal, or a zero plane normal.
    #[error("hit `{field}` is non-finite or zero")]
    BadHit {
        /// Which field.
        field: &'static str,
    },
    /// The body-bone poses do not have one finite entry per bone.
    #[error("pose has {found} bones, the model {expected}, or a pose is non-finite")]
    BadPose {
        /// Bones in the model.
        expected: usize,
        /// Entries given.
        found: usize,
    },
}

/// Why a slot operation was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SlotError {
    /// Slot index ≥ 4.
    #[error("slot {0} is out of range; there are 4 slots")]
    OutOfRange(u32),
    /// A matrix with a non-finite entry.
    #[error("slot matrix has a non-finite entry")]
    NonFiniteMatrix,
}

/// Why a detach could not be planned or committed. Nothing changes on error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum DetachError {
    /// A bone index out of range.
    #[error("bone {0} is out of range")]
    BoneOutOfRange(BoneIndex),
    /// The operation does not detach (a hole, break or deformation).
    #[error("the operation does not detach anything")]
    NotDetaching,
    /// Poses do not have one finite entry per bone.
    #[error("pose `{which}` has {found} entries for {expected} bones, or a non-finite entry")]
    BadPose {
        /// Which pose input.
        which: &'static str,
        /// Bones in the model.
        expected: usize,
        /// Entries given.
        found: usize,
    },
    /// A model-to-world transform is non-finite or not invertible.
    #[error("transform `{0}` is non-finite or singular")]
    BadTransform(&'static str),
    /// Motion input is non-finite, or the animation time step is not positive.
    #[error("motion input `{0}` is non-finite or the time step is not positive")]
    BadMotion(&'static str),
    /// Gib impulse ranges are non-finite, negative or reversed.
    #[error("gib impulse parameter `{0}` is non-finite, negative or reversed")]
    BadImpulse(&'static str),
    /// The body changed since the plan was made: discard the plan and re-evaluate.
    #[error("body revision is {current}, the plan was made at {planned}")]
    StaleRevision {
        /// Revision the plan was made at.
        planned: u64,
        /// Current revision.
        current: u64,
    },
    /// The plan belongs to another victim or another generation of it.
    #[error("the plan belongs to another victim or generation")]
    WrongVictim,
    /// The plan does not fit the body: its parts are not what its root's cut
    /// takes from the current state, or its event was already applied (a
    /// plan edited or made for another model).
    #[error("the plan's parts do not match what its cut takes from this body")]
    PlanMismatch,
    /// Planning produced a non-finite transform or velocity (finite but huge
    /// inputs overflowed).
    #[error("plan output `{0}` is not finite (inputs too large)")]
    NonFiniteResult(&'static str),
}
