//! Contact hits reported during a step, and the pre-step velocities that
//! give their approach speeds. Callbacks only enqueue; nothing mutates the
//! world until the safe point.

use super::tag::ColliderTag;
use glam::Vec3;
use rapier3d::prelude::*;
use std::sync::Mutex;

/// A contact reported during a step, before it becomes damage.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(super) struct ContactHit {
    pub(super) key: (u32, u32, u32, u32),
    pub(super) tags: (ColliderTag, ColliderTag),
    pub(super) bodies: (Option<RigidBodyHandle>, Option<RigidBodyHandle>),
    pub(super) impulse: f32,
    /// Σ contact impulses as a vector, acting on collider 2 (N·s).
    pub(super) impulse_on_2: Vec3,
    /// Whether each collider's body is fixed (its share of the impulse was absorbed).
    pub(super) fixed: (bool, bool),
    pub(super) point: Vec3,
    pub(super) normal: Vec3,
}

/// Velocity of every dynamic body before a step, for approach speeds.
#[derive(Default)]
pub(super) struct PreStepVelocities {
    pub(super) map: std::collections::HashMap<RigidBodyHandle, (Vec3, Vec3, Vec3)>,
}

impl PreStepVelocities {
    pub(super) fn capture(&mut self, bodies: &RigidBodySet) {
        self.map.clear();
        for (h, b) in bodies.iter() {
            if b.is_dynamic() {
                self.map
                    .insert(h, (b.linvel(), b.angvel(), b.center_of_mass()));
            }
        }
    }

    pub(super) fn point_velocity(&self, body: Option<RigidBodyHandle>, p: Vec3) -> Vec3 {
        match body.and_then(|h| self.map.get(&h)) {
            Some(&(v, w, c)) => v + w.cross(p - c),
            None => Vec3::ZERO,
        }
    }
}

/// Collects contact-force events during a step; they only enqueue, never mutate.
#[derive(Default)]
pub(super) struct ContactCollector {
    pub(super) hits: Mutex<Vec<ContactHit>>,
}

impl EventHandler for ContactCollector {
    fn handle_collision_event(
        &self,
        _: &RigidBodySet,
        _: &ColliderSet,
        _: CollisionEvent,
        _: Option<&ContactPair>,
    ) {
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
        let (a, b) = (
            pair.collider1.into_raw_parts(),
            pair.collider2.into_raw_parts(),
        );
        let hit = ContactHit {
            key: (a.0, a.1, b.0, b.1),
            tags: (
                ColliderTag::decode(c1.user_data),
                ColliderTag::decode(c2.user_data),
            ),
            bodies: (c1.parent(), c2.parent()),
            impulse: total_force_magnitude * dt,
            impulse_on_2: pair.total_impulse(),
            fixed: (
                c1.parent()
                    .and_then(|h| bodies.get(h))
                    .is_none_or(|b| b.is_fixed()),
                c2.parent()
                    .and_then(|h| bodies.get(h))
                    .is_none_or(|b| b.is_fixed()),
            ),
            point,
            normal,
        };
        if let Ok(mut hits) = self.hits.lock() {
            hits.push(hit);
        }
    }

    fn handle_soft_body_tear_event(&self, _: &SoftBodySet, _: &SoftBodyTearEvent) {}
}
