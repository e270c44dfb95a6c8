//! The sleep sweep and two-phase debris recycling.
//!
//! Nothing here visits every awake body per step. Motions are synced into
//! the core lazily ([`DestructionSet::sync_motions`]: before an instance
//! admits or commits, and when a body falls asleep), and Rapier's own sleep
//! decision is read by a **sweep** of two round-robin windows of
//! [`super::DestructionSettings::sleep_sweep`] bodies each per step: one
//! over Rapier's active set (finds library bodies that woke up or are new)
//! and one over the library bodies known to be awake (finds those that fell
//! asleep, syncing their motion and starting the recycling clock; switches
//! CCD by speed; keeps game colliders on library bodies massless; lets
//! pieces that stayed in place sleep, see [`super::rest`]). Cost per
//! step O(min(awake bodies, 2 · sleep_sweep)), zero when nothing is awake;
//! a change is noticed within ⌈awake bodies / sleep_sweep⌉ steps. The
//! core's per-instance sleep timers
//! ([`smithereens_core::Instance::advance_sleep`], O(clusters)) are not used.

use super::{DestructionSet, InstanceHandle, SetStepReport};
use crate::convert::motion_of;
use rapier3d::prelude::*;
use smithereens_core::ClusterHandle;
use smithereens_core::lifecycle::{LifecycleError, SleepState};

/// The sleep sweep's state.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct SleepTracker {
    /// Library dynamic bodies last seen awake (deterministic order).
    pub(crate) awake: Vec<RigidBodyHandle>,
    /// Per body slot: (generation, position in `awake` or `u32::MAX`,
    /// seen asleep).
    pub(crate) seen: Vec<(u32, u32, bool)>,
    /// Next position of the window over Rapier's active set.
    pub(crate) active_cursor: u32,
    /// Next position of the window over `awake`.
    pub(crate) awake_cursor: u32,
    /// When each sleeping debris cluster was seen asleep (step index).
    pub(crate) asleep_since: std::collections::BTreeMap<(InstanceHandle, ClusterHandle), u64>,
}

impl SleepTracker {
    fn slot(&mut self, rb: RigidBodyHandle) -> &mut (u32, u32, bool) {
        let (i, g) = rb.into_raw_parts();
        let i = i as usize;
        if self.seen.len() <= i {
            self.seen.resize(i + 1, (0, u32::MAX, false));
        }
        if self.seen[i].0 != g {
            self.seen[i] = (g, u32::MAX, false);
        }
        &mut self.seen[i]
    }

    /// Sets the `awake` position recorded for `rb`, unless its slot has
    /// been taken by a newer body since.
    fn set_position(&mut self, rb: RigidBodyHandle, pos: u32) {
        let (i, g) = rb.into_raw_parts();
        if let Some(s) = self.seen.get_mut(i as usize)
            && s.0 == g
        {
            s.1 = pos;
        }
    }

    /// A tracker that knows `awake` (in this order) as awake and the
    /// asleep debris clusters with the step each was seen asleep; the
    /// windows start at the beginning (snapshots of format 2).
    pub(crate) fn from_awake(
        awake: Vec<RigidBodyHandle>,
        asleep_since: std::collections::BTreeMap<(InstanceHandle, ClusterHandle), u64>,
    ) -> Self {
        let mut t = Self {
            asleep_since,
            ..Self::default()
        };
        for rb in awake {
            if t.slot(rb).1 == u32::MAX {
                let pos = t.awake.len() as u32;
                t.awake.push(rb);
                t.slot(rb).1 = pos;
            }
        }
        t
    }

    /// Removes `awake[pos]` (swap-remove, O(1)).
    fn forget(&mut self, pos: usize) {
        let rb = self.awake.swap_remove(pos);
        self.set_position(rb, u32::MAX);
        if let Some(&moved) = self.awake.get(pos) {
            self.set_position(moved, pos as u32);
        }
    }
}

impl DestructionSet {
    /// Writes the current pose and velocity of every dynamic body of
    /// instance `h` into its core clusters. O(bodies of the instance); run
    /// before the instance admits or commits, so events are measured
    /// against where its pieces are now, at most once between two steps.
    /// No-op for a stale handle.
    pub(crate) fn sync_motions(&mut self, physics: &PhysicsWorld, h: InstanceHandle) {
        let step = self.step_index;
        let Ok(e) = self.entry_mut(h) else {
            return;
        };
        if e.synced_at == step {
            return; // nothing moved since: no Rapier step in between
        }
        e.synced_at = step;
        for (&cluster, &rb) in &e.bodies {
            if let Some(body) = physics.bodies.get(rb).filter(|b| b.is_dynamic()) {
                // Bodies come from our own validated state; a non-finite pose
                // is quarantined by Rapier and is then simply not synced.
                let _ = e.instance.set_motion::<()>(cluster, motion_of(body));
            }
        }
        for p in e.debris.particles() {
            if !p.is_asleep() {
                let _ = e.instance.set_motion::<()>(p.cluster(), p.motion());
            }
        }
    }

    /// Moves every instance's awake render-only debris by one step of
    /// `physics` (its `dt` and gravity; see [`crate::debris`]). A particle
    /// that comes to rest is recorded asleep in its instance, with its final
    /// motion, and starts the recycling clock like a sleeping body.
    /// O(instances + awake particles × their support points); no allocation
    /// after warm-up.
    pub(super) fn step_debris(&mut self, physics: &PhysicsWorld) {
        let dt = physics.integration_parameters.dt;
        let gravity = physics.gravity;
        let settings = self.debris;
        let step = self.step_index;
        let recycle = self.settings.recycle.is_some();
        let mut slept = std::mem::take(&mut self.slept);
        for i in 0..self.slots.len() {
            let generation = self.slots[i].generation;
            let Some(e) = self.slots[i].entry.as_mut() else {
                continue;
            };
            if e.debris.awake() == 0 {
                continue;
            }
            slept.clear();
            e.debris.step(dt, gravity, &settings, &mut slept);
            let inst = InstanceHandle::from_raw_parts(i as u32, generation);
            for &c in &slept {
                if let Some(p) = e.debris.get(c) {
                    let _ = e.instance.set_motion::<()>(c, p.motion());
                }
                let _ = e.instance.set_sleep_state(c, SleepState::Asleep);
                if recycle {
                    self.sleep.asleep_since.insert((inst, c), step);
                    self.sleep_queue.push_back((step, inst, c));
                }
            }
        }
        slept.clear();
        self.slept = slept;
    }

    /// Makes game colliders on instance `h`'s bodies massless (see
    /// [`super::attachments::neutralize_foreign_mass`]) before a commit, so
    /// the split conserves momentum even when the sweep has not reached
    /// the body yet. O(bodies of the instance).
    pub(crate) fn neutralize_attachments(&mut self, physics: &mut PhysicsWorld, h: InstanceHandle) {
        let Some(e) = self
            .slots
            .get(h.index() as usize)
            .filter(|s| s.generation == h.generation())
            .and_then(|s| s.entry.as_ref())
        else {
            return;
        };
        for &rb in e.bodies.values() {
            super::attachments::neutralize_foreign_mass(physics, &mut self.registry, rb);
        }
    }

    /// Brings the cluster motions of every instance up to date with
    /// `physics`. They are synced lazily (when an instance admits or
    /// commits, and when a body falls asleep), so call this before reading
    /// poses or velocities through [`Self::instance`]; live poses are also
    /// always available from Rapier through [`Self::cluster_bodies`].
    /// O(library bodies).
    pub fn sync_instances(&mut self, physics: &PhysicsWorld) {
        for i in 0..self.slots.len() {
            let h = InstanceHandle::from_raw_parts(i as u32, self.slots[i].generation);
            if self.slots[i].entry.is_some() {
                self.synced_at_reset(h);
                self.sync_motions(physics, h);
            }
        }
    }

    fn synced_at_reset(&mut self, h: InstanceHandle) {
        if let Ok(e) = self.entry_mut(h) {
            e.synced_at = u64::MAX;
        }
    }

    /// One step of the sleep sweep (see the module docs).
    pub(super) fn sweep(&mut self, physics: &mut PhysicsWorld, report: &mut SetStepReport) {
        let step = self.step_index;
        let k = self.settings.sleep_sweep as usize;
        let mut t = std::mem::take(&mut self.sleep);
        // Window 1: library bodies in Rapier's active set that woke up or are new.
        let n_active = physics.islands.num_active_bodies();
        if n_active > 0 {
            let from = t.active_cursor as usize % n_active;
            let visits = k.min(n_active);
            let min_speed = self.settings.impact.min_approach_speed;
            let mut at = from;
            for rb in physics
                .islands
                .active_bodies()
                .skip(from)
                .chain(physics.islands.active_bodies())
                .take(visits)
            {
                at = (at + 1) % n_active;
                // Any body, the game's too, may be fast (see `super::flight`).
                self.flights.track(physics, rb, min_speed);
                let Some(owner) = self.registry.body(rb) else {
                    continue;
                };
                let len = t.awake.len() as u32;
                let slot = t.slot(rb);
                if slot.1 != u32::MAX {
                    continue; // known awake
                }
                let woke = slot.2;
                slot.2 = false;
                slot.1 = len;
                t.awake.push(rb);
                if woke {
                    if let Ok(e) = self.entry_mut(owner.instance) {
                        let _ = e
                            .instance
                            .set_sleep_state(owner.cluster, SleepState::default());
                    }
                    t.asleep_since.remove(&(owner.instance, owner.cluster));
                }
            }
            t.active_cursor = at as u32;
        }
        // Window 2: known-awake bodies that fell asleep; CCD and game colliders.
        let ccd_speed = self.settings.ccd_speed;
        let mut visits = k.min(t.awake.len());
        let mut at = t.awake_cursor as usize;
        while visits > 0 && !t.awake.is_empty() {
            visits -= 1;
            if at >= t.awake.len() {
                at = 0;
            }
            let rb = t.awake[at];
            // A collider the game attached must not change the library's mass.
            let owner =
                super::attachments::neutralize_foreign_mass(physics, &mut self.registry, rb);
            let body = physics.bodies.get(rb).filter(|b| b.is_dynamic());
            let (Some(mut owner), Some(body)) = (owner, body) else {
                t.forget(at); // removed, or no longer ours
                continue;
            };
            if body.is_sleeping() {
                let motion = motion_of(body);
                if self.hold(physics, owner.instance, owner.cluster)
                    == Some(super::hold::Hold::Wedged)
                {
                    report
                        .instances
                        .entry(owner.instance)
                        .or_default()
                        .wedged
                        .push(owner.cluster);
                }
                t.forget(at);
                t.slot(rb).2 = true;
                self.rest.forget(rb);
                if let Ok(e) = self.entry_mut(owner.instance) {
                    let _ = e.instance.set_motion::<()>(owner.cluster, motion);
                    let _ = e
                        .instance
                        .set_sleep_state(owner.cluster, SleepState::Asleep);
                    if self.settings.recycle.is_some() {
                        t.asleep_since.insert((owner.instance, owner.cluster), step);
                        self.sleep_queue
                            .push_back((step, owner.instance, owner.cluster));
                    }
                }
                continue;
            }
            // Pieces that stayed put for a second may sleep whatever their
            // velocities say (see `super::rest`).
            let at_rest = self.rest.visit(physics, rb, step);
            super::rest::allow_sleep(physics, rb, at_rest);
            let Some(body) = physics.bodies.get(rb) else {
                at += 1;
                continue;
            };
            let speed = body.linvel().length();
            let ccd = if speed > ccd_speed && !body.is_ccd_enabled() {
                Some(true)
            } else if owner.ccd_by_library && speed < 0.5 * ccd_speed {
                Some(false)
            } else {
                None
            };
            if let Some(on) = ccd {
                if let Some(b) = physics.bodies.get_mut(rb) {
                    b.enable_ccd(on);
                }
                owner.ccd_by_library = on;
                self.registry.insert_body(rb, owner);
            }
            at += 1;
        }
        t.awake_cursor = at as u32;
        self.sleep = t;
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
            if self.sleep.asleep_since.get(&(inst, cluster)) != Some(&since) {
                continue;
            }
            self.sleep.asleep_since.remove(&(inst, cluster));
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
                    Ok(record) => {
                        if let Some(rb) = e.bodies.remove(&ticket.cluster) {
                            done.push(rb);
                        }
                        e.debris.remove(ticket.cluster);
                        let r = report.instances.entry(inst).or_default();
                        r.recycled.push(ticket.cluster);
                        r.records.push(record);
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
