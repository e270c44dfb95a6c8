//! What the game attached to a library body, carried across a split.
//!
//! When a cluster splits, its Rapier body is replaced by one body per piece.
//! The rule (issue "destruction inside the game's own Rapier world", item 8):
//!
//! - **Impulse joints** move to the piece that holds their anchor chunk: the
//!   anchor (the joint's local frame on the old body) is carried to asset
//!   space and the chunk whose hull is nearest to it (distance 0 inside a
//!   hull) is chosen; the local frame is re-expressed in the new body's
//!   frame, so the anchor's world position is unchanged (to f32 rounding).
//!   A joint whose anchor lies outside every hull goes with the nearest one.
//! - **Game colliders** (sensors included) follow the chunk nearest to
//!   their origin, keeping their world pose. Their density is set to 0: the
//!   body's mass properties are the library's (set through additional mass
//!   properties); a game collider never adds mass.
//! - **Body settings** the game set on the old body carry over to every new
//!   dynamic piece: locked axes, linear and angular damping, gravity scale,
//!   dominance group, CCD (on if the game turned it on; the library's debris
//!   rule is off), soft-CCD prediction and the body's `user_data`. Supported
//!   (fixed) pieces take none of them.
//!
//! Moved joints and colliders get new handles; [`Attachments`] lists the
//! old → new map and the step report carries it. Multibody joints are not
//! carried (Rapier removes them with the old body).

use super::registry::Registry;
use crate::backend::ChunkShapes;
use glam::Vec3;
use rapier3d::math::Pose as RapierPose;
use rapier3d::prelude::*;
use smithereens_core::{Asset, ChunkIndex, ClusterMotion};

/// Game joints and colliders moved to new bodies by commits: old → new handles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Attachments {
    /// Impulse joints, in the order they were moved.
    pub joints: Vec<(ImpulseJointHandle, ImpulseJointHandle)>,
    /// Game colliders, in the order they were moved.
    pub colliders: Vec<(ColliderHandle, ColliderHandle)>,
}

impl Attachments {
    /// True when nothing moved.
    pub fn is_empty(&self) -> bool {
        self.joints.is_empty() && self.colliders.is_empty()
    }
    /// Appends what a later step moved.
    pub fn absorb(&mut self, later: Attachments) {
        self.joints.extend(later.joints);
        self.colliders.extend(later.colliders);
    }
    /// Forgets everything (keeps the capacity).
    pub fn clear(&mut self) {
        self.joints.clear();
        self.colliders.clear();
    }
}

/// Body settings the game may have changed on a library body.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct BodyTraits {
    locked_axes: LockedAxes,
    linear_damping: f32,
    angular_damping: f32,
    gravity_scale: f32,
    dominance_group: i8,
    pub(crate) ccd: bool,
    soft_ccd: f32,
    user_data: u128,
}

impl Default for BodyTraits {
    /// Rapier's defaults for a dynamic body.
    fn default() -> Self {
        Self::of(&RigidBodyBuilder::dynamic().build())
    }
}

impl BodyTraits {
    /// Reads them from a body.
    pub fn of(body: &RigidBody) -> Self {
        Self {
            locked_axes: body.locked_axes(),
            linear_damping: body.linear_damping(),
            angular_damping: body.angular_damping(),
            gravity_scale: body.gravity_scale(),
            dominance_group: body.dominance_group(),
            ccd: body.is_ccd_enabled(),
            soft_ccd: body.soft_ccd_prediction(),
            user_data: body.user_data,
        }
    }

    /// Applies them to a new piece's builder.
    pub fn apply(&self, b: RigidBodyBuilder) -> RigidBodyBuilder {
        b.locked_axes(self.locked_axes)
            .linear_damping(self.linear_damping)
            .angular_damping(self.angular_damping)
            .gravity_scale(self.gravity_scale)
            .dominance_group(self.dominance_group)
            .ccd_enabled(self.ccd)
            .soft_ccd_prediction(self.soft_ccd)
            .user_data(self.user_data)
    }
}

/// A game joint taken off an old body.
pub struct DetachedJoint {
    handle: ImpulseJointHandle,
    /// The other body (`None` when both ends were on the old body).
    other: Option<RigidBodyHandle>,
    /// Whether the old body was the joint's first body.
    old_is_first: bool,
    data: GenericJoint,
}

/// What [`detach`] took off an old body.
#[derive(Default)]
pub struct Detached {
    old_pose: RapierPose,
    joints: Vec<DetachedJoint>,
    colliders: Vec<(ColliderHandle, Collider, RapierPose)>,
}

/// Takes the game's impulse joints and colliders off a library body about to
/// be replaced. Cost: the body's joints and colliders.
pub fn detach(physics: &mut PhysicsWorld, registry: &Registry, old: RigidBodyHandle) -> Detached {
    let Some(body) = physics.bodies.get(old) else {
        return Detached::default();
    };
    let old_pose = *body.position();
    let foreign: Vec<ColliderHandle> = body
        .colliders()
        .iter()
        .copied()
        .filter(|&c| registry.collider(c).is_none())
        .collect();
    let joints: Vec<DetachedJoint> = physics
        .impulse_joints
        .attached_joints(old)
        .map(|(b1, b2, handle, j)| DetachedJoint {
            handle,
            other: if b1 == old && b2 == old {
                None
            } else if b1 == old {
                Some(b2)
            } else {
                Some(b1)
            },
            old_is_first: b1 == old,
            data: j.data,
        })
        .collect();
    for j in &joints {
        physics.impulse_joints.remove(j.handle, true);
    }
    let mut colliders = Vec::with_capacity(foreign.len());
    for h in foreign {
        let Some(world) = physics.colliders.get(h).map(|c| *c.position()) else {
            continue;
        };
        if let Some(c) = physics.remove_collider(h) {
            colliders.push((h, c, world));
        }
    }
    Detached {
        old_pose,
        joints,
        colliders,
    }
}

/// The new body (index into `new_bodies`) whose chunk hull is nearest to
/// the world point `p`. `asset_to_world` is the old body's asset → world map.
fn nearest_piece(
    shapes: &ChunkShapes,
    asset: &Asset,
    asset_to_world: smithereens_core::Pose,
    new_bodies: &[(RigidBodyHandle, &[ChunkIndex], Vec3)],
    p: Vec3,
) -> Option<usize> {
    let q = asset_to_world.inverse().transform_point(p);
    let mut best: Option<(f32, usize)> = None;
    for (k, (_, nodes, _)) in new_bodies.iter().enumerate() {
        for &n in *nodes {
            let Some(chunk) = asset.chunk(n) else {
                continue;
            };
            let local = q - chunk.centroid;
            let d = match shapes.shape(n) {
                Some(s) => s.distance_to_local_point(local, true),
                None => local.length(),
            };
            if best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, k));
            }
        }
    }
    best.map(|(_, k)| k)
}

/// Re-attaches what [`detach`] took to the new pieces of a split and records
/// the handle map in `moved`. `old` is the old body's motion and asset-space
/// centre of mass; `new_bodies` the inserted pieces (body, chunks, centre).
pub fn reattach(
    physics: &mut PhysicsWorld,
    shapes: &ChunkShapes,
    asset: &Asset,
    old: (ClusterMotion, Vec3),
    new_bodies: &[(RigidBodyHandle, &[ChunkIndex], Vec3)],
    detached: Detached,
    moved: &mut Attachments,
) {
    if detached.joints.is_empty() && detached.colliders.is_empty() {
        return;
    }
    let asset_to_world = old
        .0
        .pose
        .mul(&smithereens_core::Pose::from_translation(-old.1));
    let old_pose = detached.old_pose;
    let pose_of =
        |physics: &PhysicsWorld, rb: RigidBodyHandle| physics.bodies.get(rb).map(|b| *b.position());
    let mut touched = Vec::new();
    for j in detached.joints {
        let local = if j.old_is_first {
            j.data.local_frame1
        } else {
            j.data.local_frame2
        };
        let anchor = old_pose * local;
        let Some(k) = nearest_piece(
            shapes,
            asset,
            asset_to_world,
            new_bodies,
            anchor.translation,
        ) else {
            continue;
        };
        let rb = new_bodies[k].0;
        let Some(new_pose) = pose_of(physics, rb) else {
            continue;
        };
        let mut data = j.data;
        let relocal = new_pose.inverse() * anchor;
        let other = match j.other {
            Some(o) if physics.bodies.contains(o) => o,
            Some(_) => continue,
            None => rb,
        };
        let (b1, b2) = if j.old_is_first {
            data.local_frame1 = relocal;
            (rb, other)
        } else {
            data.local_frame2 = relocal;
            (other, rb)
        };
        let h = physics.impulse_joints.insert(b1, b2, data, true);
        moved.joints.push((j.handle, h));
    }
    for (old_h, mut c, world) in detached.colliders {
        let Some(k) = nearest_piece(shapes, asset, asset_to_world, new_bodies, world.translation)
        else {
            continue;
        };
        let rb = new_bodies[k].0;
        let Some(new_pose) = pose_of(physics, rb) else {
            continue;
        };
        c.set_position_wrt_parent(new_pose.inverse() * world);
        c.set_density(0.0);
        let h = physics.insert_collider(c, Some(rb));
        moved.colliders.push((old_h, h));
        touched.push(rb);
    }
    for rb in touched {
        crate::backend::refresh_mass(physics, rb);
    }
}

/// When the game attached colliders to library body `rb` since the
/// library last counted them, sets their density to 0 (so Rapier's mass
/// stays the library's), refreshes the body's mass and records the new
/// count. Called by the sleep sweep and before a commit. Returns the body's
/// owner record as it is now (`None` for a body that is not the library's).
pub fn neutralize_foreign_mass(
    physics: &mut PhysicsWorld,
    registry: &mut Registry,
    rb: RigidBodyHandle,
) -> Option<super::registry::BodyOwner> {
    let mut owner = registry.body(rb)?;
    let body = physics.bodies.get(rb)?;
    let count = body.colliders().len() as u32;
    if count == owner.colliders {
        return Some(owner);
    }
    owner.colliders = count;
    registry.insert_body(rb, owner);
    let mut changed = false;
    for &ch in body.colliders() {
        if registry.collider(ch).is_some() {
            continue;
        }
        if let Some(c) = physics.colliders.get_mut(ch)
            && c.density() != 0.0
        {
            c.set_density(0.0);
            changed = true;
        }
    }
    if changed {
        crate::backend::refresh_mass(physics, rb);
    }
    Some(owner)
}
