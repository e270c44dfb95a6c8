//! Capabilities from body state, not from bones (seed §6.3).
//!
//! The skeleton keeps every bone after a cut (§5.1), so "the hand bone
//! exists" says nothing. A capability is a requirement on the body state: a
//! set of bones that must still be on the body and regions that must not be
//! broken. `can_attack_with_left_hand` needs the left upper arm, forearm and
//! hand present and `ArmLeft` not broken.

use crate::body_model::BodyModel;
use crate::damage_graph::{BoneMask, bone_bit};
use crate::error::BodyModelError;
use crate::index::RegionIndex;
use crate::state::{BodyState, ElementState};

/// A requirement on the body state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// Bones that must be present.
    pub bones: BoneMask,
    /// Regions that must not be broken.
    pub unbroken: Vec<RegionIndex>,
}

impl Requirement {
    /// Builds a requirement from bone and region names.
    ///
    /// # Errors
    /// [`BodyModelError::UnknownBone`], [`BodyModelError::UnknownRegion`].
    pub fn new(
        model: &BodyModel,
        bones: &[&str],
        unbroken: &[&str],
    ) -> Result<Self, BodyModelError> {
        let mut mask = 0;
        for &b in bones {
            let i = model
                .bone_index(b)
                .ok_or_else(|| BodyModelError::UnknownBone {
                    owner: "capability".into(),
                    name: b.into(),
                })?;
            mask |= bone_bit(i);
        }
        let mut regions = Vec::with_capacity(unbroken.len());
        for &r in unbroken {
            regions.push(
                model
                    .region_index(r)
                    .ok_or_else(|| BodyModelError::UnknownRegion {
                        owner: "capability".into(),
                        name: r.into(),
                    })?,
            );
        }
        Ok(Self {
            bones: mask,
            unbroken: regions,
        })
    }

    /// Whether `state` meets the requirement.
    pub fn is_met(&self, state: &BodyState) -> bool {
        state.present_mask() & self.bones == self.bones
            && self.unbroken.iter().all(|&r| {
                state
                    .element_state(r)
                    .is_some_and(|e| !e.contains(ElementState::BROKEN))
            })
    }
}

/// The humanoid's action capabilities.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// Attacks and IK that need the left hand.
    pub can_attack_with_left_hand: bool,
    /// Attacks and IK that need the right hand.
    pub can_attack_with_right_hand: bool,
    /// Walking (both legs present and unbroken).
    pub can_walk: bool,
    /// Biting (head and jaw present).
    pub can_bite: bool,
}

/// Requirements for [`Capabilities`] on a humanoid-named model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapabilityMap {
    left_hand: Requirement,
    right_hand: Requirement,
    walk: Requirement,
    bite: Requirement,
}

impl CapabilityMap {
    /// The requirements for the humanoid bone and region names of
    /// `data/humanoid.toml`.
    ///
    /// # Errors
    /// [`BodyModelError::UnknownBone`] or [`BodyModelError::UnknownRegion`] if
    /// the model lacks one of those names.
    pub fn humanoid(model: &BodyModel) -> Result<Self, BodyModelError> {
        Ok(Self {
            left_hand: Requirement::new(
                model,
                &["l_upperarm", "l_forearm", "l_hand"],
                &["ArmLeft"],
            )?,
            right_hand: Requirement::new(
                model,
                &["r_upperarm", "r_forearm", "r_hand"],
                &["ArmRight"],
            )?,
            walk: Requirement::new(
                model,
                &["l_thigh", "l_calf", "l_foot", "r_thigh", "r_calf", "r_foot"],
                &["LegLeft", "LegRight"],
            )?,
            bite: Requirement::new(model, &["head", "jaw"], &[])?,
        })
    }

    /// The capabilities `state` allows.
    pub fn evaluate(&self, state: &BodyState) -> Capabilities {
        Capabilities {
            can_attack_with_left_hand: self.left_hand.is_met(state),
            can_attack_with_right_hand: self.right_hand.is_met(state),
            can_walk: self.walk.is_met(state),
            can_bite: self.bite.is_met(state),
        }
    }
}
