//! Which damage locations a hit selects (seed §1.4–1.5).
//!
//! A hit names the bone whose collider it struck, a model-space impact point
//! and the attack plane (the normal of the swing plane, an input). Candidates:
//! * every **indirect candidate** whose scaled helper volume contains the point
//!   and whose cut plane is within its maximum deviation of the attack plane;
//! * every **virtual location** whose scaled helper volume contains the point;
//! * the struck **bone** itself (its `Cut`, its region's `Break`, its
//!   `Deformation`).
//!
//! Selection runs helper volume → plane angle → priority: candidates are
//! ranked by priority (higher first), ties by kind (indirect, virtual, bone)
//! then index. If any selected candidate is damage-exclusive, the
//! highest-ranked exclusive one suppresses every other candidate of the hit.
//! Candidates on bones no longer present are skipped.
//!
//! The helper volume is the helper's box (`center ± half_extents`, bone
//! frame) with the half extents multiplied per axis by the candidate's
//! extents scale. The plane angle between unit normals `a` and `c` is
//! `acos(|a·c|)` (planes are unsigned), compared in radians.

use crate::body_model::BodyModel;
use crate::damage_graph::{BoneMask, bone_bit};
use crate::error::RuleError;
use crate::index::{BoneIndex, HelperIndex, IndirectCandidateIndex, VirtualLocationIndex};
use glam::{Affine3A, Vec3};

/// A hit as the body model sees it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Hit {
    /// The bone whose collider was struck.
    pub bone: BoneIndex,
    /// Impact point (m, model space).
    pub point: Vec3,
    /// Normal of the swing plane (model space; normalised here, must be non-zero).
    pub attack_plane_normal: Vec3,
}

/// A damage location a hit can act on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Location {
    /// An indirect candidate (waist cut, vertical chest cut).
    Indirect(IndirectCandidateIndex),
    /// A virtual damage location (a hole).
    Virtual(VirtualLocationIndex),
    /// The struck bone.
    Bone(BoneIndex),
}

/// One selected candidate.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The location.
    pub location: Location,
    /// Its priority.
    pub priority: i32,
    /// Whether it suppresses the others.
    pub damage_exclusive: bool,
}

fn kind_rank(l: Location) -> (u8, u32) {
    match l {
        Location::Indirect(i) => (0, i.get()),
        Location::Virtual(v) => (1, v.get()),
        Location::Bone(b) => (2, b.get()),
    }
}

/// Checks a pose has one finite transform per bone.
///
/// # Errors
/// [`RuleError::BadPose`].
pub fn check_pose(model: &BodyModel, pose: &[Affine3A]) -> Result<(), RuleError> {
    if pose.len() != model.bone_count() || !pose.iter().all(|m| m.is_finite()) {
        return Err(RuleError::BadPose {
            expected: model.bone_count(),
            found: pose.len(),
        });
    }
    Ok(())
}

fn in_helper(
    model: &BodyModel,
    pose: &[Affine3A],
    helper: HelperIndex,
    scale: Vec3,
    point: Vec3,
) -> bool {
    let Some(h) = model.helper(helper) else {
        return false;
    };
    let local = pose[h.bone.ix()].inverse().transform_point3(point) - h.center;
    let ext = h.half_extents * scale;
    local.abs().cmple(ext).all()
}

/// The angle (rad) between the attack plane and a plane with normal `n`.
pub fn plane_angle(attack_normal: Vec3, n: Vec3) -> f32 {
    attack_normal.dot(n).abs().clamp(0.0, 1.0).acos()
}

/// Selects the candidates of `hit` into `out` (cleared first), ranked as the
/// module docs describe. `pose` holds each bone's current model-space
/// transform (one per bone); `present` the bones still on the body.
///
/// # Errors
/// [`RuleError::BoneOutOfRange`], [`RuleError::BadHit`] (non-finite point,
/// zero or non-finite plane normal), [`RuleError::BadPose`]; `out` is left
/// empty on error.
pub fn select_candidates(
    model: &BodyModel,
    present: BoneMask,
    pose: &[Affine3A],
    hit: &Hit,
    out: &mut Vec<Candidate>,
) -> Result<(), RuleError> {
    out.clear();
    if model.bone(hit.bone).is_none() {
        return Err(RuleError::BoneOutOfRange(hit.bone));
    }
    if !hit.point.is_finite() {
        return Err(RuleError::BadHit { field: "point" });
    }
    let attack = hit
        .attack_plane_normal
        .try_normalize()
        .ok_or(RuleError::BadHit {
            field: "attack_plane_normal",
        })?;
    check_pose(model, pose)?;

    for (i, c) in model.indirect_candidates().iter().enumerate() {
        if present & bone_bit(c.location) == 0 {
            continue;
        }
        if !in_helper(model, pose, c.helper, c.extents_scale, hit.point) {
            continue;
        }
        let Some(h) = model.helper(c.helper) else {
            continue;
        };
        let n = pose[h.bone.ix()]
            .transform_vector3(c.plane_normal)
            .normalize_or_zero();
        // 1e-5 rad of slack so a swing exactly at the limit passes despite rounding.
        if plane_angle(attack, n) > c.max_plane_angle_deviation + 1e-5 {
            continue;
        }
        out.push(Candidate {
            location: Location::Indirect(IndirectCandidateIndex(i as u32)),
            priority: c.priority,
            damage_exclusive: c.damage_exclusive,
        });
    }
    for (i, v) in model.virtual_locations().iter().enumerate() {
        if present & bone_bit(v.parent) == 0 {
            continue;
        }
        if in_helper(model, pose, v.helper, v.extents_scale, hit.point) {
            out.push(Candidate {
                location: Location::Virtual(VirtualLocationIndex(i as u32)),
                priority: v.priority,
                damage_exclusive: false,
            });
        }
    }
    if present & bone_bit(hit.bone) != 0 {
        out.push(Candidate {
            location: Location::Bone(hit.bone),
            priority: 0,
            damage_exclusive: false,
        });
    }
    out.sort_unstable_by_key(|c| (std::cmp::Reverse(c.priority), kind_rank(c.location)));
    if let Some(i) = out.iter().position(|c| c.damage_exclusive) {
        let keep = out[i];
        out.clear();
        out.push(keep);
    }
    Ok(())
}
