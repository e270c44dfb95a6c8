//! Which Rapier bodies and colliders the library made, looked up by handle
//! in O(1): dense tables indexed by the handle's slot index, checked against
//! the handle's generation. Anything not in them is the game's (foreign).

use super::InstanceHandle;
use super::tag::ColliderTag;
use rapier3d::prelude::{ColliderHandle, RigidBodyHandle};
use smithereens_core::ClusterHandle;

/// The owner of a library body.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BodyOwner {
    /// Instance.
    pub instance: InstanceHandle,
    /// Cluster of that instance.
    pub cluster: ClusterHandle,
    /// Colliders the library attached to the body.
    pub colliders: u32,
    /// The library turned CCD on for speed (and may turn it off again).
    pub ccd_by_library: bool,
}

/// Body and collider ownership tables.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Registry {
    bodies: Vec<Option<(u32, BodyOwner)>>,
    colliders: Vec<Option<(u32, ColliderTag)>>,
}

fn slot<T>(v: &mut Vec<Option<T>>, index: u32) -> &mut Option<T> {
    let i = index as usize;
    if v.len() <= i {
        v.resize_with(i + 1, || None);
    }
    &mut v[i]
}

impl Registry {
    /// Records a library body.
    pub fn insert_body(&mut self, h: RigidBodyHandle, owner: BodyOwner) {
        let (i, g) = h.into_raw_parts();
        *slot(&mut self.bodies, i) = Some((g, owner));
    }
    /// Forgets a body.
    pub fn remove_body(&mut self, h: RigidBodyHandle) {
        let (i, g) = h.into_raw_parts();
        if let Some(s) = self.bodies.get_mut(i as usize)
            && s.is_some_and(|(sg, _)| sg == g)
        {
            *s = None;
        }
    }
    /// The owner of a library body; `None` for a game body.
    pub fn body(&self, h: RigidBodyHandle) -> Option<BodyOwner> {
        let (i, g) = h.into_raw_parts();
        match self.bodies.get(i as usize) {
            Some(Some((sg, o))) if *sg == g => Some(*o),
            _ => None,
        }
    }
    /// Records a library collider.
    pub fn insert_collider(&mut self, h: ColliderHandle, tag: ColliderTag) {
        let (i, g) = h.into_raw_parts();
        *slot(&mut self.colliders, i) = Some((g, tag));
    }
    /// Forgets a collider.
    pub fn remove_collider(&mut self, h: ColliderHandle) {
        let (i, g) = h.into_raw_parts();
        if let Some(s) = self.colliders.get_mut(i as usize)
            && s.is_some_and(|(sg, _)| sg == g)
        {
            *s = None;
        }
    }
    /// What a library collider stands for; `None` for a game collider.
    pub fn collider(&self, h: ColliderHandle) -> Option<ColliderTag> {
        let (i, g) = h.into_raw_parts();
        match self.colliders.get(i as usize) {
            Some(Some((sg, t))) if *sg == g => Some(*t),
            _ => None,
        }
    }
}
