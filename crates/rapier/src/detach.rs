//! A collider leaves a body: the one switch behind a launched held part
//! (held-projectile seed, 決定 › 持彈碰撞體切換; issue 14 item 2) and behind a
//! chunk that leaves a compound body (issue 12 item 5, "the largest piece
//! keeps its body").
//!
//! Before the switch, collider `H` is attached to body `P` (the parent) and
//! body `B` — pre-created, disabled, carrying its own collider with the same
//! shape and mass as `H` — waits. [`detach_collider`] does, between two
//! steps and in this order:
//!
//! 1. reads `P`'s pose, linear velocity `v` (at its centre of mass `c`) and
//!    angular velocity `ω`, and `H`'s world pose `X = P · H_local`;
//! 2. disables `H` and recomputes `P`'s mass properties from its enabled
//!    colliders at once (Rapier would do it at the next step, but the recoil
//!    below needs the new ones): `P` loses exactly `H`'s mass, its centre of
//!    mass moves to `c'` and its inertia changes by the parallel-axis amounts;
//! 3. keeps every material point of `P` at the velocity it had: Rapier stores
//!    the linear velocity *at the centre of mass* and does not touch it when
//!    the centre of mass moves, so `P`'s linear velocity becomes
//!    `v + ω × (c' − c)`;
//! 4. enables `B` at the pose that puts its collider exactly where `H` was
//!    (`B = X · B_collider_local⁻¹`) with linear velocity `v + ω × (x − c)` at
//!    its centre of mass `x` and angular velocity `ω`;
//! 5. applies the launch impulse `J` (N·s, world) to `B` at the launch point
//!    and `−J` (recoil) to `P` at the same point.
//!
//! Steps 2–4 move no mass and change no point's velocity, so linear momentum
//! and angular momentum about the combined centre of mass of `P` + `B` are
//! unchanged by the switch; step 5 adds equal and opposite impulses at one
//! point, a zero net change of both (checked with numbers in
//! `tests/held_parts.rs`).

use rapier3d::prelude::*;

/// Why a collider could not leave its body. Nothing was changed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum DetachError {
    /// The leaving collider is not in the world.
    #[error("collider {0:?} is not in the world")]
    UnknownCollider(ColliderHandle),
    /// The leaving collider has no parent body, or its parent is not in the world.
    #[error("collider {0:?} is not attached to a body of this world")]
    NoParent(ColliderHandle),
    /// The leaving collider is already disabled (it left before).
    #[error("collider {0:?} is disabled: it already left its body")]
    AlreadyDetached(ColliderHandle),
    /// The receiving body is not in the world, or has no collider.
    #[error("body {0:?} is not in the world or has no collider")]
    UnknownBody(RigidBodyHandle),
    /// The receiving body is already enabled (it already took part in the simulation).
    #[error("body {0:?} is already enabled")]
    BodyEnabled(RigidBodyHandle),
    /// The receiving body is the leaving collider's own parent.
    #[error("body {0:?} is the collider's own parent")]
    SameBody(RigidBodyHandle),
    /// The impulse or the launch point is NaN or infinite.
    #[error("launch impulse or point is not finite")]
    NonFinite,
}

/// What a collider leaving a body changed, for reports and tests.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Detached {
    /// The parent body the collider left.
    pub parent: RigidBodyHandle,
    /// The body that now carries the piece.
    pub body: RigidBodyHandle,
    /// World pose of the leaving collider at the switch, m (the receiving
    /// body's collider is placed exactly there).
    pub pose: Pose,
    /// Point where the impulse and the recoil were applied, m (world).
    pub launch_point: Vector,
    /// Launch impulse applied to the body, N·s (world); `−impulse` went to the parent.
    pub impulse: Vector,
}

/// Moves collider `leaving` off its parent body onto the pre-created,
/// disabled body `body` in one step, then applies `impulse` (N·s, world) to
/// `body` and `−impulse` to the parent, both at `launch_point` (m, world;
/// `None` = the body's centre of mass). See the module docs for the order
/// and the conservation it keeps. Call it between steps (at the safe point).
///
/// # Errors
/// [`DetachError`] for an unknown/parentless/already-disabled collider, an
/// unknown/empty/already-enabled body, the parent as receiving body, or a
/// non-finite impulse or point. The world is unchanged on error.
pub fn detach_collider(
    physics: &mut PhysicsWorld,
    leaving: ColliderHandle,
    body: RigidBodyHandle,
    impulse: Vector,
    launch_point: Option<Vector>,
) -> Result<Detached, DetachError> {
    // Validate everything before the first write.
    if !impulse.is_finite() || launch_point.is_some_and(|p| !p.is_finite()) {
        return Err(DetachError::NonFinite);
    }
    let col = physics
        .colliders
        .get(leaving)
        .ok_or(DetachError::UnknownCollider(leaving))?;
    if !col.is_enabled() {
        return Err(DetachError::AlreadyDetached(leaving));
    }
    let parent = col.parent().ok_or(DetachError::NoParent(leaving))?;
    let local = *col
        .position_wrt_parent()
        .ok_or(DetachError::NoParent(leaving))?;
    if parent == body {
        return Err(DetachError::SameBody(body));
    }
    let p = physics
        .bodies
        .get(parent)
        .ok_or(DetachError::NoParent(leaving))?;
    let b = physics
        .bodies
        .get(body)
        .ok_or(DetachError::UnknownBody(body))?;
    if b.is_enabled() {
        return Err(DetachError::BodyEnabled(body));
    }
    let b_local = b
        .colliders()
        .first()
        .and_then(|&h| physics.colliders.get(h))
        .and_then(|c| c.position_wrt_parent().copied())
        .ok_or(DetachError::UnknownBody(body))?;

    // 1. The parent's motion and the leaving collider's world pose.
    let parent_pose = *p.position();
    let (v, w, c) = (p.linvel(), p.angvel(), p.center_of_mass());
    let pose = parent_pose * local;

    // 2–3. Disable the collider; new mass properties at once; same velocity field.
    if let Some(col) = physics.colliders.get_mut(leaving) {
        col.set_enabled(false);
    }
    if let Some(p) = physics.bodies.get_mut(parent) {
        p.recompute_mass_properties_from_colliders(&physics.colliders);
        if p.is_dynamic() {
            let c_new = p.center_of_mass();
            p.set_linvel(v + w.cross(c_new - c), true);
        }
    }

    // 4. Enable the body where the collider was, at the parent's point velocity.
    let body_pose = pose * b_local.inverse();
    let x = if let Some(b) = physics.bodies.get_mut(body) {
        b.set_enabled(true);
        b.set_position(body_pose, true);
        b.recompute_mass_properties_from_colliders(&physics.colliders);
        let x = b.center_of_mass();
        b.set_linvel(v + w.cross(x - c), true);
        b.set_angvel(w, true);
        x
    } else {
        body_pose.translation
    };

    // 5. Launch impulse and recoil at one point.
    let point = launch_point.unwrap_or(x);
    if let Some(b) = physics.bodies.get_mut(body) {
        b.apply_impulse_at_point(impulse, point, true);
    }
    if let Some(p) = physics.bodies.get_mut(parent) {
        p.apply_impulse_at_point(-impulse, point, true);
    }
    Ok(Detached {
        parent,
        body,
        pose,
        launch_point: point,
        impulse,
    })
}
