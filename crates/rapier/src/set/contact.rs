//! Contact hits reported during the game's step, the pre-step velocities
//! that give their approach speeds, and how the library's event handler
//! sits beside the game's own.
//!
//! Contacts are read from Rapier's contact-force events
//! ([`EventHandler::handle_contact_force_event`]): Rapier raises them only
//! for pairs in the solver whose summed force passes the collider's
//! threshold, so sleeping piles and resting debris cost nothing.
//!
//! A kinematic body touching a *fixed* chunk is never solved by Rapier (both
//! sides have infinite mass), so it raises no force. Chunk colliders enable
//! kinematic ↔ fixed pairs and collision events; when such a pair *starts*
//! touching, the hit is taken as the impulse that would bring the touched
//! chunk to the kinematic body's approach speed, `J = m_chunk · v_n` (N·s),
//! through the same [`crate::ImpactDamage`] mapping. A kinematic body
//! pressing on without a new contact does no further damage; once a chunk
//! breaks free it is dynamic and the ordinary force path takes over.
//!
//! The handler only enqueues; nothing mutates the world until
//! [`super::DestructionSet::after_step`].

use glam::Vec3;
use rapier3d::prelude::*;
use std::sync::Mutex;

/// A contact reported during a step, before it becomes damage.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct ContactHit {
    pub(crate) colliders: (ColliderHandle, ColliderHandle),
    pub(crate) bodies: (Option<RigidBodyHandle>, Option<RigidBodyHandle>),
    /// Σ contact force magnitudes × dt, N·s.
    pub(crate) impulse: f32,
    /// Σ contact impulses as a vector, acting on collider 2 (N·s).
    pub(crate) impulse_on_2: Vec3,
    /// Whether each collider's body is fixed (its share of the impulse was absorbed).
    pub(crate) fixed: (bool, bool),
    /// Whether each collider's body is dynamic.
    pub(crate) dynamic: (bool, bool),
    /// Deepest contact point, world, m (where the damage event is centred).
    pub(crate) point: Vec3,
    /// Centroid of all the pair's contact points, world, m (where the
    /// impact impulse acts: below the centre of mass for a flat landing).
    pub(crate) centroid: Vec3,
    pub(crate) normal: Vec3,
}

/// A collider pair as a total order independent of the solver's callback
/// order (raw index and generation of each handle).
pub(crate) fn pair_key(colliders: (ColliderHandle, ColliderHandle)) -> (u32, u32, u32, u32) {
    let (a, b) = (colliders.0.into_raw_parts(), colliders.1.into_raw_parts());
    (a.0, a.1, b.0, b.1)
}

impl ContactHit {
    /// The pair's [`pair_key`].
    pub(crate) fn key(&self) -> (u32, u32, u32, u32) {
        pair_key(self.colliders)
    }
}

/// A kinematic body that started touching a fixed body this step.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(super) struct KinematicHit {
    pub(super) colliders: (ColliderHandle, ColliderHandle),
    /// Which collider is on the kinematic body (0 or 1).
    pub(super) kinematic_side: usize,
    /// The kinematic body's velocity at the contact point, m/s.
    pub(super) velocity: Vec3,
    pub(super) point: Vec3,
    /// Contact normal, from collider 1 towards collider 2.
    pub(super) normal: Vec3,
}

impl KinematicHit {
    /// The pair's [`pair_key`].
    pub(super) fn key(&self) -> (u32, u32, u32, u32) {
        pair_key(self.colliders)
    }
}

/// Velocities of the awake dynamic bodies just before the step, indexed by
/// body slot. Captured by [`super::DestructionSet::before_step`] in
/// O(awake bodies); a body not captured (asleep, fixed, kinematic) is
/// measured at its current velocity.
#[derive(Default)]
pub(super) struct PreStepVelocities {
    /// Per body slot: (generation, stamp, linvel, angvel, centre of mass).
    slots: Vec<(u32, u64, Vec3, Vec3, Vec3)>,
    stamp: u64,
}

impl PreStepVelocities {
    pub(super) fn capture(&mut self, islands: &IslandManager, bodies: &RigidBodySet) {
        self.stamp += 1;
        for h in islands.active_bodies() {
            let Some(b) = bodies.get(h).filter(|b| b.is_dynamic()) else {
                continue;
            };
            let (i, g) = h.into_raw_parts();
            let i = i as usize;
            if self.slots.len() <= i {
                self.slots
                    .resize(i + 1, (0, 0, Vec3::ZERO, Vec3::ZERO, Vec3::ZERO));
            }
            self.slots[i] = (g, self.stamp, b.linvel(), b.angvel(), b.center_of_mass());
        }
    }

    /// How far `body`'s centre of mass moved over the step (m); zero for a
    /// body not captured.
    pub(super) fn displacement(
        &self,
        bodies: &RigidBodySet,
        body: Option<RigidBodyHandle>,
    ) -> Vec3 {
        let Some(h) = body else {
            return Vec3::ZERO;
        };
        let (i, g) = h.into_raw_parts();
        match (self.slots.get(i as usize), bodies.get(h)) {
            (Some(&(sg, st, _, _, c)), Some(b)) if sg == g && st == self.stamp => {
                b.center_of_mass() - c
            }
            _ => Vec3::ZERO,
        }
    }

    /// Velocity of the material point `p` of `body` before the step (m/s);
    /// the current velocity for a body not captured, zero for no body.
    pub(super) fn point_velocity(
        &self,
        bodies: &RigidBodySet,
        body: Option<RigidBodyHandle>,
        p: Vec3,
    ) -> Vec3 {
        let Some(h) = body else {
            return Vec3::ZERO;
        };
        let (i, g) = h.into_raw_parts();
        match self.slots.get(i as usize) {
            Some(&(sg, st, v, w, c)) if sg == g && st == self.stamp => v + w.cross(p - c),
            _ => bodies.get(h).map_or(Vec3::ZERO, |b| b.velocity_at_point(p)),
        }
    }
}

/// The library's contact-force event handler: pass it to
/// `PhysicsWorld::step_with_events` (or, beside your own handler, pass
/// [`BothEvents`]). Only enqueues.
#[derive(Default)]
pub struct ContactCollector {
    pub(super) hits: Mutex<Vec<ContactHit>>,
    pub(super) kinematic: Mutex<Vec<KinematicHit>>,
}

impl EventHandler for ContactCollector {
    fn handle_collision_event(
        &self,
        bodies: &RigidBodySet,
        colliders: &ColliderSet,
        event: CollisionEvent,
        pair: Option<&ContactPair>,
    ) {
        let CollisionEvent::Started(_, _, flags) = event else {
            return;
        };
        if flags.contains(CollisionEventFlags::SENSOR) {
            return;
        }
        let Some(pair) = pair else {
            return;
        };
        let (Some(c1), Some(c2)) = (colliders.get(pair.collider1), colliders.get(pair.collider2))
        else {
            return;
        };
        let body = |c: &Collider| c.parent().and_then(|h| bodies.get(h));
        let (Some(b1), Some(b2)) = (body(c1), body(c2)) else {
            return;
        };
        let (kinematic_side, kinematic) = if b1.is_kinematic() && b2.is_fixed() {
            (0, b1)
        } else if b2.is_kinematic() && b1.is_fixed() {
            (1, b2)
        } else {
            return;
        };
        let Some((manifold, contact)) = pair.find_deepest_contact() else {
            return;
        };
        let point = c1.position().transform_point(contact.local_p1);
        let hit = KinematicHit {
            colliders: (pair.collider1, pair.collider2),
            kinematic_side,
            velocity: kinematic.velocity_at_point(point),
            point,
            normal: manifold.data.normal,
        };
        if let Ok(mut hits) = self.kinematic.lock() {
            hits.push(hit);
        }
    }

    fn handle_contact_force_event(
        &self,
        dt: f32,
        bodies: &RigidBodySet,
        colliders: &ColliderSet,
        pair: &ContactPair,
        total_force_magnitude: f32,
    ) {
        let (Some(c1), Some(c2)) = (colliders.get(pair.collider1), colliders.get(pair.collider2))
        else {
            return;
        };
        let (point, normal) = match pair.find_deepest_contact() {
            Some((manifold, contact)) => (
                c1.position().transform_point(contact.local_p1),
                manifold.data.normal,
            ),
            None => (c1.position().translation, Vec3::ZERO),
        };
        let (mut sum, mut count) = (Vec3::ZERO, 0u32);
        for m in pair.manifolds() {
            for p in &m.points {
                sum += c1.position().transform_point(p.local_p1);
                count += 1;
            }
        }
        let centroid = if count > 0 { sum / count as f32 } else { point };
        let body = |c: &Collider| c.parent().and_then(|h| bodies.get(h));
        let hit = ContactHit {
            colliders: (pair.collider1, pair.collider2),
            bodies: (c1.parent(), c2.parent()),
            impulse: total_force_magnitude * dt,
            impulse_on_2: pair.total_impulse(),
            fixed: (
                body(c1).is_none_or(|b| b.is_fixed()),
                body(c2).is_none_or(|b| b.is_fixed()),
            ),
            dynamic: (
                body(c1).is_some_and(|b| b.is_dynamic()),
                body(c2).is_some_and(|b| b.is_dynamic()),
            ),
            point,
            centroid,
            normal,
        };
        if let Ok(mut hits) = self.hits.lock() {
            hits.push(hit);
        }
    }

    fn handle_soft_body_tear_event(&self, _: &SoftBodySet, _: &SoftBodyTearEvent) {}
}

/// Two event handlers as one: every Rapier event goes to `.0`, then to `.1`.
///
/// ```ignore
/// physics.step_with_events(&my_hooks, &BothEvents(&my_events, set.events()));
/// ```
///
/// Physics hooks need no combining: the library installs none, so the game's
/// `PhysicsHooks` (contact filtering, one-way platforms, contact
/// modification) keep working unchanged. A hook that removes or scales a
/// contact with a chunk changes the force Rapier reports, and so the damage.
pub struct BothEvents<'a>(pub &'a dyn EventHandler, pub &'a dyn EventHandler);

impl EventHandler for BothEvents<'_> {
    fn handle_collision_event(
        &self,
        bodies: &RigidBodySet,
        colliders: &ColliderSet,
        event: CollisionEvent,
        pair: Option<&ContactPair>,
    ) {
        self.0
            .handle_collision_event(bodies, colliders, event, pair);
        self.1
            .handle_collision_event(bodies, colliders, event, pair);
    }

    fn handle_contact_force_event(
        &self,
        dt: f32,
        bodies: &RigidBodySet,
        colliders: &ColliderSet,
        pair: &ContactPair,
        total_force_magnitude: f32,
    ) {
        self.0
            .handle_contact_force_event(dt, bodies, colliders, pair, total_force_magnitude);
        self.1
            .handle_contact_force_event(dt, bodies, colliders, pair, total_force_magnitude);
    }

    fn handle_soft_body_tear_event(&self, soft_bodies: &SoftBodySet, event: &SoftBodyTearEvent) {
        self.0.handle_soft_body_tear_event(soft_bodies, event);
        self.1.handle_soft_body_tear_event(soft_bodies, event);
    }
}
