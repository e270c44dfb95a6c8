//! Motion sync, sleep and two-phase debris recycling, driven by Rapier's own
//! sleep decision: each step only the awake library bodies are visited
//! (Rapier's active set), and a body that left it since the last step has
//! fallen asleep. The core's per-instance sleep timers
//! ([`smithereens_core::Instance::advance_sleep`], O(clusters)) are not used.

use super::{DestructionSet, InstanceHandle, SetStepReport};
use crate::convert::motion_of;
use rapier3d::prelude::*;
use smithereens_core::ClusterHandle;
use smithereens_core::lifecycle::{LifecycleError, SleepState};

/// The library bodies awake at the last step, and a per-body-slot stamp of
/// the last step each was seen awake.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct AwakeTracker {
    pub(crate) awake: Vec<(RigidBodyHandle, InstanceHandle, ClusterHandle)>,
    #[serde(skip)]
    next: Vec<(RigidBodyHandle, InstanceHandle, ClusterHandle)>,
    /// Awake library bodies carrying game colliders the library has not seen.
    #[serde(skip)]
    foreign: Vec<RigidBodyHandle>,
    /// Awake library bodies whose CCD the library switches (on / off).
    #[serde(skip)]
    ccd: Vec<(RigidBodyHandle, bool)>,
    pub(crate) seen: Vec<(u32, u64)>,
    /// When each sleeping debris cluster fell asleep (step index).
    pub(crate) asleep_since: std::collections::BTreeMap<(InstanceHandle, ClusterHandle), u64>,
}

impl DestructionSet {
    /// Syncs the motion of every awake library body into its instance, and
    /// records the clusters that woke up or fell asleep since the last step.
    pub(super) fn track_sleep(&mut self, physics: &mut PhysicsWorld) {
        let step = self.step_index;
        let mut tracker = std::mem::take(&mut self.awake);
        tracker.next.clear();
        tracker.foreign.clear();
        tracker.ccd.clear();
        let ccd_speed = self.settings.ccd_speed;
        for rb in physics.islands.active_bodies() {
            let Some(owner) = self.registry.body(rb) else {
                continue;
            };
            let Some(body) = physics.bodies.get(rb).filter(|b| b.is_dynamic()) else {
                continue;
            };
            let (i, g) = rb.into_raw_parts();
            let i = i as usize;
            if tracker.seen.len() <= i {
                tracker.seen.resize(i + 1, (0, 0));
            }
            let was_awake = tracker.seen[i] == (g, step - 1);
            tracker.seen[i] = (g, step);
            tracker.next.push((rb, owner.instance, owner.cluster));
            let foreign_added = body.colliders().len() as u32 != owner.colliders;
            let motion = motion_of(body);
            if let Ok(e) = self.entry_mut(owner.instance) {
                // Bodies come from our own validated state; a non-finite pose is
                // quarantined by Rapier and is then simply not synced.
                let _ = e.instance.set_motion::<()>(owner.cluster, motion);
                if !was_awake {
                    let _ = e
                        .instance
                        .set_sleep_state(owner.cluster, SleepState::default());
                    tracker
                        .asleep_since
                        .remove(&(owner.instance, owner.cluster));
                }
            }
            if foreign_added {
                tracker.foreign.push(rb);
            }
            let speed = motion.velocity.linear.length();
            if speed > ccd_speed && !body.is_ccd_enabled() {
                tracker.ccd.push((rb, true));
            } else if owner.ccd_by_library && speed < 0.5 * ccd_speed {
                tracker.ccd.push((rb, false));
            }
        }
        for &(rb, on) in &tracker.ccd {
            if let Some(b) = physics.bodies.get_mut(rb) {
                b.enable_ccd(on);
            }
            if let Some(mut o) = self.registry.body(rb) {
                o.ccd_by_library = on;
                self.registry.insert_body(rb, o);
            }
        }
        for &rb in &tracker.foreign {
            // The game attached a collider: it must not change the library's mass.
            super::attachments::neutralize_foreign_mass(physics, &self.registry, rb);
            if let Some(mut o) = self.registry.body(rb) {
                o.colliders = physics
                    .bodies
                    .get(rb)
                    .map_or(0, |b| b.colliders().len() as u32);
                self.registry.insert_body(rb, o);
            }
        }
        for k in 0..tracker.awake.len() {
            let (rb, inst, cluster) = tracker.awake[k];
            let (i, g) = rb.into_raw_parts();
            if tracker.seen.get(i as usize) == Some(&(g, step)) {
                continue;
            }
            // Left the active set: asleep (or removed, or no longer ours).
            let Some(body) = physics.bodies.get(rb) else {
                continue;
            };
            if self.registry.body(rb).is_none_or(|o| o.cluster != cluster) {
                continue;
            }
            let motion = motion_of(body);
            if let Ok(e) = self.entry_mut(inst) {
                let _ = e.instance.set_motion::<()>(cluster, motion);
                let _ = e.instance.set_sleep_state(cluster, SleepState::Asleep);
                if self.settings.recycle.is_some() {
                    tracker.asleep_since.insert((inst, cluster), step);
                    self.sleep_queue.push_back((step, inst, cluster));
                }
            }
        }
        std::mem::swap(&mut tracker.awake, &mut tracker.next);
        self.awake = tracker;
    }

    /// First half of recycling: sleeping debris past the policy's time gets
    /// its colliders disabled (out of contacts and queries from the next step on).
    pub(super) fn withdraw_due(&mut self, physics: &mut PhysicsWorld) {
        let Some(policy) = self.settings.recycle else {
            return;
        };
        let dt = physics.integration_parameters.dt;
        while let Some(&(since, inst, cluster)) = self.sleep_queue.front() {
            if ((self.step_index - since) as f32) * dt < policy.after {
                break;
            }
            self.sleep_queue.pop_front();
            // A cluster that woke (and perhaps slept again) since has a newer entry.
            if self.awake.asleep_since.get(&(inst, cluster)) != Some(&since) {
                continue;
            }
            self.awake.asleep_since.remove(&(inst, cluster));
            let Ok(e) = self.entry_mut(inst) else {
                continue;
            };
            if e.instance
                .cluster(cluster)
                .is_none_or(|c| c.nodes.len() > policy.max_chunks as usize)
            {
                continue;
            }
            let Ok(ticket) = e.instance.begin_recycle(cluster) else {
                continue;
            };
            if let Some(body) = e
                .bodies
                .get(&cluster)
                .and_then(|&rb| physics.bodies.get(rb))
            {
                let colliders: Vec<ColliderHandle> = body.colliders().to_vec();
                for ch in colliders {
                    if let Some(c) = physics.colliders.get_mut(ch) {
                        c.set_enabled(false);
                    }
                }
            }
            e.recycling.push(ticket);
            if let Err(pos) = self.recycling.binary_search(&inst) {
                self.recycling.insert(pos, inst);
            }
        }
    }

    /// Second half of recycling: the step that just ran rebuilt the broad
    /// phase without the colliders disabled before it, so their clusters
    /// have left authoritative queries: release them and remove their bodies.
    pub(super) fn finish_recycling(
        &mut self,
        physics: &mut PhysicsWorld,
        report: &mut SetStepReport,
    ) {
        if self.recycling.is_empty() {
            return;
        }
        let instances = std::mem::take(&mut self.recycling);
        for &inst in &instances {
            let Ok(e) = self.entry_mut(inst) else {
                continue;
            };
            e.instance.mark_queries_refreshed();
            let mut done = Vec::new();
            let mut waiting = Vec::new();
            for ticket in std::mem::take(&mut e.recycling) {
                match e.instance.finish_recycle(ticket) {
                    Ok(_) => {
                        if let Some(rb) = e.bodies.remove(&ticket.cluster) {
                            done.push(rb);
                        }
                        report
                            .instances
                            .entry(inst)
                            .or_default()
                            .recycled
                            .push(ticket.cluster);
                    }
                    Err(LifecycleError::StillInQueries(_)) => waiting.push(ticket),
                    Err(_) => {}
                }
            }
            let keep = !waiting.is_empty();
            e.recycling = waiting;
            for rb in done {
                crate::backend::remove_body(physics, &mut self.registry, rb);
            }
            if keep {
                self.recycling.push(inst);
            }
        }
    }
}
