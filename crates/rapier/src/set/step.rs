//! The safe point: [`DestructionSet::before_step`] and
//! [`DestructionSet::after_step`] around the game's own Rapier step.

use super::attachments::Attachments;
use super::contact::{
    BodyState, ContactHit, QUIET_STEPS, StartedPair, WatchedPair, displacement, pair_key,
    point_velocity,
};
use super::{CONTACT_EVENT_BIT, DestructionSet, InstanceHandle};
use crate::backend::{ColliderContext, RapierCommit};
use crate::error::BackendError;
use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_core::{
    BondIndex, ChunkIndex, ClusterHandle, CommitError, CommitRecord, DamageEvent, EventId,
    PendingEvent, SpreadDamage,
};
use std::collections::BTreeMap;
use std::time::Instant;

/// What one instance did at a safe point.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InstanceReport {
    /// Damage events admitted from contacts this step, in admission order.
    pub events: Vec<DamageEvent>,
    /// Bonds broken by this step's commit.
    pub broken: Vec<BondIndex>,
    /// Clusters removed by the commit.
    pub removed: Vec<ClusterHandle>,
    /// Clusters created by the commit (pieces that broke off).
    pub created: Vec<ClusterHandle>,
    /// Clusters that lost pieces or their support and keep their handle;
    /// a remainder larger than what left keeps its body too, otherwise its
    /// body was rebuilt (issue 12; see `backend::keeps_body`).
    pub shrunk: Vec<ClusterHandle>,
    /// Created or shrunk clusters that are render-only debris: no Rapier
    /// body, a particle the set moves itself (see [`crate::debris`]).
    pub render_only: Vec<ClusterHandle>,
    /// Debris clusters recycled (released and removed) at this step.
    pub recycled: Vec<ClusterHandle>,
    /// Loose pieces that fell asleep at this step still in the hole they
    /// broke from, touching their instance's fixed chunks: wedged (see
    /// [`super::hold`]). Noticed within the sleep sweep's window.
    pub wedged: Vec<ClusterHandle>,
    /// Set when the budget held the commit back (events stay pending).
    pub deferred: Option<smithereens_core::budget::BudgetShortfall>,
    /// New bodies of a commit the frame's body allowance held back whole
    /// ([`super::DestructionSettings::new_bodies_per_frame`]; events stay
    /// pending for a later frame).
    pub throttled: Option<u32>,
    /// The recovery/replication records of the commits this step made on
    /// the instance, in commit order (consecutive commit sequences): debris
    /// recycles first, then the damage commit, and in a re-run step those
    /// of the first run before the second's. Journal them or broadcast them
    /// ([`smithereens_core::replication`]).
    pub records: Vec<CommitRecord>,
    /// What the instance's stress did at this step (only when stress is on
    /// and it had work: see [`super::load`]).
    pub stress: Option<super::load::StressStepReport>,
}

impl InstanceReport {
    fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// Pending events of one instance set aside after repeated commit failures.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Quarantined {
    /// The instance.
    pub instance: InstanceHandle,
    /// The events, in admission order, with their frozen geometry.
    pub events: Vec<PendingEvent>,
    /// The last commit error, as text (with its sources).
    pub error: String,
    /// Consecutive failed commits before quarantine.
    pub attempts: u32,
    /// Step index at which they were set aside.
    pub step: u64,
}

/// What one [`DestructionSet::after_step`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SetStepReport {
    /// Per instance with anything to report, in handle order.
    pub instances: BTreeMap<InstanceHandle, InstanceReport>,
    /// Instances whose commit failed this step (their events stay pending
    /// and are retried at the next safe point, until quarantine).
    pub failed: Vec<(InstanceHandle, CommitError<BackendError>)>,
    /// Instances whose events were quarantined this step (see
    /// [`DestructionSet::quarantined`]).
    pub quarantined: Vec<InstanceHandle>,
    /// Contact (and stress) damage events a full pending queue (or another
    /// admission error) refused: counted, never silently dropped.
    pub rejected_contacts: u32,
    /// True when [`DestructionSet::before_step`] was not called before this
    /// step: approach speeds were measured from post-step velocities.
    pub pre_step_missing: bool,
    /// Game joints and colliders moved to new pieces (old → new handles).
    pub moved: Attachments,
    /// Wall time of the safe-point work, s.
    pub destruction_seconds: f64,
    /// True when [`DestructionSet::step_resolving_breaks`] re-ran this step
    /// because a game body broke fixed chunks in it.
    pub rerun: bool,
    /// Wall time of a re-run's extra work, s: restoring the bodies, the
    /// commit of the hits, the second Rapier step and its safe point (0
    /// without a re-run).
    pub rerun_seconds: f64,
    /// Instances whose stress update failed this step (never for the
    /// instance the stress was made for; reported, not hidden).
    pub stress_errors: Vec<(InstanceHandle, BackendError)>,
}

impl InstanceReport {
    /// Appends the report of a later step of the same frame (a frame run as
    /// sub-steps, see [`crate::landing`]): lists are concatenated in step
    /// order; `deferred`, `throttled` and `stress` are the later step's
    /// where it has one (the state at the end of the frame).
    pub fn absorb(&mut self, later: InstanceReport) {
        self.events.extend(later.events);
        self.broken.extend(later.broken);
        self.removed.extend(later.removed);
        self.created.extend(later.created);
        self.shrunk.extend(later.shrunk);
        self.render_only.extend(later.render_only);
        self.recycled.extend(later.recycled);
        self.wedged.extend(later.wedged);
        self.records.extend(later.records);
        self.deferred = later.deferred.or(self.deferred.take());
        self.throttled = later.throttled.or(self.throttled);
        self.stress = later.stress.or(self.stress.take());
    }
}

impl SetStepReport {
    /// The report of one instance (empty when it had nothing to report).
    pub fn instance(&self, h: InstanceHandle) -> InstanceReport {
        self.instances.get(&h).cloned().unwrap_or_default()
    }

    /// Appends the report of a later step of the same frame (see
    /// [`InstanceReport::absorb`]): instance reports merge per instance,
    /// failures, quarantines and moved attachments are concatenated,
    /// counts and times add up, `rerun` and `pre_step_missing` are true if
    /// either step's was.
    pub fn absorb(&mut self, later: SetStepReport) {
        for (h, r) in later.instances {
            match self.instances.entry(h) {
                std::collections::btree_map::Entry::Vacant(v) => {
                    v.insert(r);
                }
                std::collections::btree_map::Entry::Occupied(mut o) => o.get_mut().absorb(r),
            }
        }
        self.failed.extend(later.failed);
        self.quarantined.extend(later.quarantined);
        self.rejected_contacts += later.rejected_contacts;
        self.pre_step_missing |= later.pre_step_missing;
        self.moved.absorb(later.moved);
        self.destruction_seconds += later.destruction_seconds;
        self.rerun |= later.rerun;
        self.rerun_seconds += later.rerun_seconds;
        self.stress_errors.extend(later.stress_errors);
    }
}

impl DestructionSet {
    /// Call just before the game's Rapier step: records the velocities of
    /// the bodies of the watched contact pairs (see [`super::contact`]),
    /// from which their approach speeds are measured
    /// ([`crate::ImpactDamage`]'s gate). Needed only when the game changes
    /// velocities between its steps (otherwise the values recorded at the
    /// last safe point stand). Cost O(watched pairs); no allocation.
    pub fn before_step(&mut self, physics: &PhysicsWorld) {
        for w in &mut self.watch {
            w.states = watched_states(&physics.bodies, &physics.colliders, w.colliders);
        }
        self.flights.refresh(physics);
        self.pre_step_taken = true;
    }

    /// The safe point, right after the game's Rapier step (which must have
    /// been given [`Self::events`]): contact hits become damage events,
    /// every instance with pending events commits (each on its own: a
    /// failure in one neither blocks nor undoes another; after
    /// [`super::DestructionSettings::quarantine_after`] consecutive failures
    /// its events are set aside in quarantine), moving clusters' motions
    /// are synced, sleep transitions recorded and debris recycled.
    pub fn after_step(&mut self, physics: &mut PhysicsWorld) -> SetStepReport {
        let t0 = Instant::now();
        let mut report = SetStepReport {
            pre_step_missing: !self.pre_step_taken,
            ..Default::default()
        };
        self.step_index += 1;
        self.finish_recycling(physics, &mut report);
        // Render-only debris moves with the Rapier step that just ran.
        self.step_debris(physics);
        let any = self
            .collector
            .any
            .swap(false, std::sync::atomic::Ordering::Acquire);
        self.admit_contacts(physics, any, &mut report);
        if any {
            self.admit_kinematic_hits(physics, &mut report);
        }
        self.update_stress(physics, &mut report);
        self.commit_all(physics, &mut report, false);
        self.update_parting(physics);
        self.flights
            .advance(physics, self.settings.impact.min_approach_speed);
        self.sweep(physics, &mut report);
        self.withdraw_due(physics);
        self.pre_step_taken = false;
        self.allowance = self.settings.new_bodies_per_frame;
        report.instances.retain(|_, r| !r.is_empty());
        report.destruction_seconds = t0.elapsed().as_secs_f64();
        report
    }

    fn admit_contacts(&mut self, physics: &PhysicsWorld, any: bool, report: &mut SetStepReport) {
        if any {
            let Ok(mut queued) = self.collector.started.lock() else {
                return;
            };
            std::mem::swap(&mut *queued, &mut self.started);
        }
        let open_speed = self.settings.impact.min_approach_speed;
        let continue_speed = open_speed * crate::impact::CONTINUE_FRACTION;
        // Pairs that started touching a chunk join the watch, with the
        // velocities the narrow phase saw (before the solver), unless they
        // are two dynamic bodies moving together (the pieces of a split).
        self.started.sort_unstable_by_key(|p| pair_key(p.colliders));
        let sorted = self.watch.len();
        for p in &self.started {
            let chunk = |c| {
                self.registry
                    .collider(c)
                    .is_some_and(|t| t.authoritative_chunk().is_some())
            };
            if !(chunk(p.colliders.0) || chunk(p.colliders.1))
                || moving_together(physics, p, continue_speed)
            {
                continue;
            }
            let key = pair_key(p.colliders);
            let w = WatchedPair {
                key,
                colliders: p.colliders,
                states: p.states,
                quiet: 0,
            };
            // Replace a pair already watched; append new ones and sort once
            // below (inserting each in place was quadratic when a shattered
            // wall's thousands of pieces touched down in one step).
            match self.watch[..sorted].binary_search_by_key(&key, |w| w.key) {
                Ok(i) => self.watch[i] = w,
                Err(_) => self.watch.push(w),
            }
        }
        if self.watch.len() > sorted {
            self.watch.sort_by_key(|w| w.key);
            self.watch.dedup_by_key(|w| w.key);
        }
        if self.watch.is_empty() && self.episodes.is_empty() {
            self.started.clear();
            return;
        }
        for k in 0..self.watch.len() {
            let w = self.watch[k];
            let hit = physics
                .narrow_phase
                .contact_pair(w.colliders.0, w.colliders.1)
                .and_then(|pair| {
                    let chunk = |c| {
                        self.registry
                            .collider(c)
                            .is_some_and(|t| t.authoritative_chunk().is_some())
                    };
                    ContactHit::from_pair(
                        &physics.bodies,
                        &physics.colliders,
                        pair,
                        (chunk(pair.collider1), chunk(pair.collider2)),
                    )
                });
            let Some(hit) = hit.filter(|h| h.point.is_finite()) else {
                self.watch[k].quiet = self.watch[k].quiet.saturating_add(1);
                continue;
            };
            // The narrow phase keeps its own collider order; match the states to it.
            let states = if hit.colliders == w.colliders {
                w.states
            } else {
                [w.states[1], w.states[0]]
            };
            let v1 = point_velocity(&physics.bodies, hit.bodies.0, states[0], hit.point);
            let v2 = point_velocity(&physics.bodies, hit.bodies.1, states[1], hit.point);
            // Approaching: the normal (collider 1 → 2) relative velocity closes the gap.
            let approach = (v1 - v2).dot(hit.normal).max(0.0);
            let spent = !self.rerun.spent.is_empty() && self.hit_is_spent(&hit);
            // A pair that started touching this step: its bodies' states
            // one step earlier, before any CCD clamp (see [`super::flight`]).
            let earlier = self
                .started
                .binary_search_by_key(&w.key, |p| pair_key(p.colliders))
                .is_ok()
                .then(|| {
                    [
                        self.flights.previous(hit.bodies.0),
                        self.flights.previous(hit.bodies.1),
                    ]
                });
            super::episode::accumulate(
                &mut self.episodes,
                &hit,
                approach,
                self.step_index,
                (open_speed, continue_speed),
                || {
                    if spent {
                        return 0.0; // admitted by this step's re-run already
                    }
                    let speed = impact_speed(physics, &hit, states, approach, earlier);
                    super::episode::impact_impulse(physics, &hit, speed)
                },
            );
            if approach >= continue_speed {
                self.watch[k].quiet = 0;
            } else {
                self.watch[k].quiet = self.watch[k].quiet.saturating_add(1);
            }
        }
        self.started.clear();
        // Forget pairs that rest or separated (unless their episode is open);
        // the others start the next step from the velocities they have now.
        let episodes = &self.episodes;
        self.watch.retain(|w| {
            w.quiet <= QUIET_STEPS
                && physics
                    .narrow_phase
                    .contact_pair(w.colliders.0, w.colliders.1)
                    .is_some()
                || episodes.contains_key(&w.key)
        });
        for w in &mut self.watch {
            w.states = watched_states(&physics.bodies, &physics.colliders, w.colliders);
        }
        let mut ended = std::mem::take(&mut self.ended);
        ended.clear();
        super::episode::take_ended(&mut self.episodes, self.step_index, &mut ended);
        for ep in &ended {
            self.admit_episode(physics, ep, report);
        }
        self.ended = ended;
    }

    /// Turns an ended contact episode into damage on each instance it
    /// touched (one event per instance) and, for a game body hitting a fixed
    /// chunk, the absorbed impulse handed to what breaks free.
    fn admit_episode(
        &mut self,
        physics: &PhysicsWorld,
        ep: &super::episode::Episode,
        report: &mut SetStepReport,
    ) {
        let hit = &ep.first;
        let damage = self.settings.impact.damage(ep.impact, ep.approach);
        if damage <= 0.0 {
            return;
        }
        let tags = (
            self.registry.collider(hit.colliders.0),
            self.registry.collider(hit.colliders.1),
        );
        let chunk = (
            tags.0
                .and_then(|t| t.authoritative_chunk().map(|c| (t.instance(), c))),
            tags.1
                .and_then(|t| t.authoritative_chunk().map(|c| (t.instance(), c))),
        );
        let sides = [
            (
                chunk.0,
                hit.fixed.0,
                tags.1.is_none() && hit.dynamic.1,
                -ep.impulse_on_2,
            ),
            (
                chunk.1,
                hit.fixed.1,
                tags.0.is_none() && hit.dynamic.0,
                ep.impulse_on_2,
            ),
        ];
        for (k, &(side, fixed, hit_by_game_body, impulse)) in sides.iter().enumerate() {
            let Some((inst, c)) = side else { continue };
            if k == 1 && chunk.0.is_some_and(|(i0, _)| i0 == inst) {
                continue; // one event per instance and episode
            }
            let Some(id) =
                self.admit_contact_event(physics, inst, ChunkIndex(c), hit.point, damage, report)
            else {
                continue;
            };
            // A game body (a thrown ball, a vehicle) hitting a fixed chunk:
            // the wall absorbed its impulse, handed to what breaks free.
            let j = impulse * self.settings.impact.impulse_transfer;
            let approach = ep.approach;
            if fixed
                && hit_by_game_body
                && j.is_finite()
                && j != Vec3::ZERO
                && approach.is_finite()
                && let Ok(entry) = self.entry_mut(inst)
            {
                entry.transfers.insert(
                    id,
                    super::impulses::Transfer {
                        chunk: smithereens_core::ChunkIndex(c),
                        impulse: j,
                        max_speed: approach,
                    },
                );
            }
        }
    }

    /// Admits one contact damage event (spreading from `chunk`, reach from the impact settings) on
    /// an instance: on success it is reported and the instance marked for
    /// the commit; a refusal (full queue, …) is counted in
    /// `rejected_contacts`. Returns the event id when admitted.
    pub(super) fn admit_contact_event(
        &mut self,
        physics: &PhysicsWorld,
        inst: InstanceHandle,
        chunk: ChunkIndex,
        point: Vec3,
        damage: f32,
        report: &mut SetStepReport,
    ) -> Option<EventId> {
        let event = SpreadDamage {
            id: EventId(CONTACT_EVENT_BIT | self.next_event),
            chunk,
            point,
            damage,
            max_rings: self.settings.impact.max_rings,
            impulse: None,
        }
        .event();
        self.next_event += 1;
        self.sync_motions(physics, inst);
        let entry = self.entry_mut(inst).ok()?;
        let id = event.id;
        match entry.instance.admit(event.clone()) {
            Ok(_) => {
                report.instances.entry(inst).or_default().events.push(event);
                self.mark_dirty(inst);
                Some(id)
            }
            Err(_) => {
                report.rejected_contacts += 1;
                None
            }
        }
    }

    /// Kinematic bodies that started touching fixed chunks (see
    /// [`super::contact`]): `J = m_chunk · v_n` through the impact mapping.
    fn admit_kinematic_hits(&mut self, physics: &PhysicsWorld, report: &mut SetStepReport) {
        {
            let Ok(mut queued) = self.collector.kinematic.lock() else {
                return;
            };
            std::mem::swap(&mut *queued, &mut self.kinematic_hits);
        }
        if self.kinematic_hits.is_empty() {
            return;
        }
        self.kinematic_hits.sort_unstable_by_key(|h| h.key());
        let mut hits = std::mem::take(&mut self.kinematic_hits);
        for hit in &hits {
            let chunk_collider = if hit.kinematic_side == 0 {
                hit.colliders.1
            } else {
                hit.colliders.0
            };
            let Some(tag) = self.registry.collider(chunk_collider) else {
                continue;
            };
            let Some(chunk) = tag.authoritative_chunk() else {
                continue;
            };
            let inst = tag.instance();
            let approach = hit.velocity.dot(hit.normal).abs();
            let Ok(entry) = self.entry(inst) else {
                continue;
            };
            let mass = entry
                .instance
                .asset()
                .chunk(smithereens_core::ChunkIndex(chunk))
                .map_or(0.0, |c| c.mass);
            let damage = self.settings.impact.damage(mass * approach, approach);
            if damage <= 0.0 || !hit.point.is_finite() {
                continue;
            }
            self.admit_contact_event(physics, inst, ChunkIndex(chunk), hit.point, damage, report);
        }
        hits.clear();
        self.kinematic_hits = hits;
    }

    /// Commits every dirty instance at this safe point; `rerun` when called
    /// from inside a re-run step (remainders then do not keep their bodies,
    /// see [`RapierCommit::keep_bodies`]).
    pub(super) fn commit_all(
        &mut self,
        physics: &mut PhysicsWorld,
        report: &mut SetStepReport,
        rerun: bool,
    ) {
        if self.dirty.is_empty() {
            return;
        }
        let mut committing = std::mem::take(&mut self.committing);
        committing.clear();
        committing.extend_from_slice(&self.dirty);
        // Instances take turns committing first (the dirty list is in handle
        // order), so one that commits every frame cannot starve another whose
        // commit needs the frame's whole body allowance
        // (`DestructionSettings::new_bodies_per_frame`).
        let n = committing.len();
        committing.rotate_left((self.step_index % n as u64) as usize);
        let mut blasted = Vec::new();
        for &h in &committing {
            // The commit hands the parent's motion on to its parts.
            self.sync_motions(physics, h);
            self.neutralize_attachments(physics, h);
            let settings = self.settings;
            let Some(entry) = self
                .slots
                .get_mut(h.index() as usize)
                .filter(|s| s.generation == h.generation())
                .and_then(|s| s.entry.as_mut())
            else {
                continue;
            };
            let proxies = entry.instance.budget().proxies.clone();
            let result = {
                let mut backend = RapierCommit {
                    physics,
                    bodies: &mut entry.bodies,
                    debris: &mut entry.debris,
                    registry: &mut self.registry,
                    shapes: &entry.shapes,
                    cx: ColliderContext {
                        settings: &settings,
                        instance: h,
                        load_threshold: entry.stress.as_ref().map(|s| s.desc().load_floor),
                    },
                    fail_prepare: &mut entry.fail_prepare,
                    keep_bodies: !rerun,
                    proxies: &proxies,
                    moved: &mut report.moved,
                    extra: &entry.extra,
                };
                entry.instance.commit_within(
                    &mut backend,
                    smithereens_core::BodyAllowance {
                        remaining: self.allowance,
                        per_frame: settings.new_bodies_per_frame,
                    },
                )
            };
            match result {
                Ok(mut outcome) => {
                    entry.failures = 0;
                    DestructionSet::observe_stress_commit(entry, &outcome);
                    // Render-only debris is no Rapier body: it takes no allowance.
                    let bodies = outcome
                        .created
                        .iter()
                        .filter(|c| !entry.debris.contains(**c))
                        .count();
                    self.allowance = self.allowance.saturating_sub(bodies as u32);
                    // A shrunk cluster kept its body (issue 12 item 5) with
                    // fewer colliders and a new centre of mass: its rest
                    // probe's radius and reference no longer describe it.
                    for c in &outcome.shrunk {
                        if let Some(&rb) = entry.bodies.get(c) {
                            self.rest.forget(rb);
                        }
                    }
                    let mut pushes: BTreeMap<ClusterHandle, (Vec3, f32)> = BTreeMap::new();
                    let mut blasts = Vec::new();
                    for receipt in &outcome.receipts {
                        let id = receipt.event.id;
                        if let Some((blast, applied)) = entry.blasts.get_mut(&id)
                            && !*applied
                        {
                            *applied = true;
                            blasts.push(*blast);
                        }
                        if let Some(t) = entry.transfers.remove(&id)
                            && let Some(c) = entry.instance.cluster_of(t.chunk)
                        {
                            let e = pushes.entry(c).or_insert((Vec3::ZERO, 0.0));
                            e.0 += t.impulse;
                            e.1 = e.1.max(t.max_speed);
                        }
                    }
                    for blast in &blasts {
                        super::impulses::apply_blast(
                            physics,
                            &entry.bodies,
                            blast,
                            settings.max_blast_speed,
                            settings.max_blast_spin,
                        );
                    }
                    super::impulses::apply_transfers(physics, &entry.bodies, &pushes);
                    // Render-only debris is pushed too (see `crate::debris`).
                    if !entry.debris.is_empty() {
                        let instance = &entry.instance;
                        let mass_of = |c| {
                            instance
                                .cluster(c)
                                .map(|cl: &smithereens_core::cluster::Cluster| {
                                    (cl.mass.mass, cl.mass.inertia)
                                })
                        };
                        for blast in &blasts {
                            entry.debris.push(
                                (blast.point, blast.radius, blast.impulse),
                                (settings.max_blast_speed, settings.max_blast_spin),
                                mass_of,
                            );
                        }
                        for (c, &(j, max_speed)) in &pushes {
                            if let Some((mass, _)) = mass_of(*c).filter(|(m, _)| *m > 0.0) {
                                let dv = j / mass;
                                let dv = if dv.length() > max_speed {
                                    dv * (max_speed / dv.length())
                                } else {
                                    dv
                                };
                                if dv.is_finite() {
                                    entry.debris.add_velocity(
                                        *c,
                                        smithereens_core::Velocity {
                                            linear: dv,
                                            angular: glam::Vec3::ZERO,
                                        },
                                    );
                                }
                            }
                        }
                    }
                    let stressed = outcome
                        .receipts
                        .iter()
                        .any(|r| r.event.stress_bonds().is_some());
                    if (stressed || !blasts.is_empty()) && !outcome.created.is_empty() {
                        blasted.push((h, outcome.created.clone()));
                    }
                    let r = report.instances.entry(h).or_default();
                    r.broken = std::mem::take(&mut outcome.broken);
                    r.removed = std::mem::take(&mut outcome.removed);
                    r.created = std::mem::take(&mut outcome.created);
                    r.shrunk = std::mem::take(&mut outcome.shrunk);
                    r.render_only = std::mem::take(&mut outcome.render_only);
                    r.records.extend(outcome.record.take());
                    if let smithereens_core::commit::CommitStatus::Deferred(s) = outcome.status {
                        r.deferred = Some(s);
                    } else if let smithereens_core::commit::CommitStatus::Throttled {
                        bodies, ..
                    } = outcome.status
                    {
                        r.throttled = Some(bodies);
                    } else if entry.instance.pending().is_empty() {
                        self.dirty.retain(|&d| d != h);
                    }
                    // What the report does not hand out (receipts, applied
                    // events) goes back to the instance's pools.
                    entry.instance.recycle(outcome);
                }
                Err(e) => {
                    entry.failures += 1;
                    if entry.failures >= settings.quarantine_after {
                        let events = entry.instance.withdraw_pending();
                        self.quarantine.push(Quarantined {
                            instance: h,
                            events,
                            error: smithereens_core::error::display_chain(&e),
                            attempts: entry.failures,
                            step: self.step_index,
                        });
                        entry.failures = 0;
                        report.quarantined.push(h);
                        self.dirty.retain(|&d| d != h);
                    }
                    report.failed.push((h, e));
                }
            }
        }
        self.committing = committing;
        // Pieces a blast freed part from the fixed chunks of their instance,
        // as a re-run's do: otherwise a Voronoi piece whose tilted faces lock
        // it between fixed neighbours stays in the hole, its bonds all broken
        // (the built-in bridge kept all 9 of its freed pieces so). Pieces
        // stress broke off part too: a lintel that failed under its own
        // weight jammed in the gap it exactly filled (wall-gravity: 12
        // blocks hung 1 cm down, for good).
        // (Pieces freed by a game body's hit in the ordinary safe point do
        // not: the body already bounced off, and parting them let pieces of
        // the town's facades sink 34 cm into the ground; the re-run stepper
        // is the way to have them part.)
        if !blasted.is_empty() {
            let mut state = std::mem::take(&mut self.rerun);
            for (h, created) in &blasted {
                self.part_from_fixed(physics, *h, created, &mut state);
            }
            self.rerun = state;
        }
    }
}

/// The speed at which a hit's surfaces met, m/s, independent of the time
/// step: the speed at separation 0 of the continuous trajectory through the
/// positions the integrator produced.
///
/// Rapier integrates symplectically in substeps of `h = dt /
/// num_solver_iterations` (`v ← v + a·h`, then `x ← x + v·h`), so under a
/// constant relative acceleration `a` (gravity, along the normal) the
/// positions lie on the parabola whose velocity at the start of the step is
/// the pre-step `approach` plus `a·h/2`. That trajectory met the surface at
/// `v² = (approach + a·h/2)² + 2·a·d`, with `d` (m) the pair's signed
/// separation when the step started: their distance now (a parry contact
/// query, negative when they overlap) plus their relative travel along the
/// normal during the step, bounded by what a step can travel. Without this
/// a drop of 0.28–0.32 m dealt up to 26 % more or less damage at 1/60 s than
/// at 1/120 s, depending on where the impact fell between steps.
///
/// For a pair that started touching this step, `earlier` holds its bodies'
/// states one step before (see [`super::flight`]), and the parabola starts
/// there when they were in free flight ([`speed_from_earlier`]): when a
/// fast body's last free step began beyond the prediction distance,
/// Rapier's CCD clamped its *pose* to the surface within that step and kept
/// its velocity, so this step's state no longer holds where the trajectory
/// crossed (drops 3 cm apart arrive bit-identical; up to +8.3 % of damage
/// at 1/60 s before). With both, drops of 0.40–0.60 m at every phase of a
/// step are within −0.9 … 0.0 % of Newton's `J = m(1+e)√(2gh)` at 1/60 and
/// 1/120 s and −1.5 … 0.0 % at 1/240 s. O(contact points of the pair),
/// once per episode.
pub(crate) fn impact_speed(
    physics: &PhysicsWorld,
    hit: &ContactHit,
    states: [Option<super::contact::BodyState>; 2],
    approach: f32,
    earlier: Option<[Option<super::contact::BodyState>; 2]>,
) -> f32 {
    if let Some(v) = earlier.and_then(|e| speed_from_earlier(physics, hit, states, e)) {
        return v;
    }
    let accel = |b: Option<RigidBodyHandle>| {
        b.and_then(|h| physics.bodies.get(h))
            .filter(|b| b.is_dynamic())
            .map_or(Vec3::ZERO, |b| physics.gravity * b.gravity_scale())
    };
    let a = (accel(hit.bodies.0) - accel(hit.bodies.1)).dot(hit.normal);
    let travel = (displacement(&physics.bodies, hit.bodies.0, states[0])
        - displacement(&physics.bodies, hit.bodies.1, states[1]))
    .dot(hit.normal);
    // Rapier 0.36 integrates in `num_solver_iterations` substeps per step.
    let p = &physics.integration_parameters;
    let h = p.dt / p.num_solver_iterations.max(1) as f32;
    let u = (approach + 0.5 * a * h).max(0.0);
    let reach = (u + a.abs() * p.dt) * p.dt;
    let separation = post_step_separation(physics, hit)
        .map_or(0.0, |d| d + travel)
        .clamp(-reach, reach);
    let v2 = u * u + 2.0 * a * separation;
    if v2.is_finite() && v2 > 0.0 {
        v2.sqrt()
    } else {
        approach
    }
}

/// The impact speed of a pair that started touching this step, m/s, from
/// its bodies' states at the start of the *previous* step (`earlier`), when
/// every dynamic side has one and moved in free flight over that step (its
/// linear velocity changed by gravity alone, within 1 mm/s + 0.01 %, and
/// its angular velocity by at most 1 mrad/s + 0.1 %); `None` otherwise.
///
/// The same parabola as [`impact_speed`], started one step earlier: the
/// separation then is the distance now plus the measured normal travel over
/// the two steps. That state is before any CCD clamp, which moves a fast
/// body's pose to the surface within the step before the contact step but
/// keeps its velocity (see [`super::flight`]), so the contact step's state
/// no longer holds where the trajectory crossed. In free flight without a
/// clamp both starts lie on the same parabola and give the same speed.
fn speed_from_earlier(
    physics: &PhysicsWorld,
    hit: &ContactHit,
    states: [Option<super::contact::BodyState>; 2],
    earlier: [Option<super::contact::BodyState>; 2],
) -> Option<f32> {
    let p = &physics.integration_parameters;
    let n = hit.normal;
    let (mut approach, mut travel, mut a, mut any) = (0.0, 0.0, 0.0, false);
    for (i, (body, sign)) in [(hit.bodies.0, 1.0), (hit.bodies.1, -1.0)]
        .into_iter()
        .enumerate()
    {
        let Some(b) = body
            .and_then(|h| physics.bodies.get(h))
            .filter(|b| b.is_dynamic())
        else {
            continue;
        };
        let (then, start) = (earlier[i]?, states[i]?);
        let g = physics.gravity * b.gravity_scale();
        let dv = start.linvel - then.linvel - g * p.dt;
        let dw = start.angvel - then.angvel;
        if dv.length() > 1e-3 + 1e-4 * then.linvel.length()
            || dw.length() > 1e-3 + 1e-3 * then.angvel.length()
        {
            return None; // something else pushed it: not free flight
        }
        let r = hit.point - b.center_of_mass();
        approach += sign * (then.linvel + then.angvel.cross(r)).dot(n);
        travel += sign * (b.center_of_mass() - then.com).dot(n);
        a += sign * g.dot(n);
        any = true;
    }
    if !any {
        return None;
    }
    let h = p.dt / p.num_solver_iterations.max(1) as f32;
    let u = approach + 0.5 * a * h;
    let span = 2.0 * p.dt;
    let reach = (u.abs() + a.abs() * span) * span;
    let separation = (post_step_separation(physics, hit)? + travel).clamp(-reach, reach);
    let v2 = u * u + 2.0 * a * separation;
    (v2.is_finite() && v2 > 0.0).then(|| v2.sqrt())
}

/// Signed distance between a hit's colliders now (after the step), m:
/// negative when they overlap; `None` when either collider is gone or they
/// are more than 1 m apart.
fn post_step_separation(physics: &PhysicsWorld, hit: &ContactHit) -> Option<f32> {
    let c1 = physics.colliders.get(hit.colliders.0)?;
    let c2 = physics.colliders.get(hit.colliders.1)?;
    rapier3d::parry::query::contact(c1.position(), c1.shape(), c2.position(), c2.shape(), 1.0)
        .ok()
        .flatten()
        .map(|c| c.dist)
}

/// Whether a pair that started touching is two dynamic bodies moving
/// together: their relative velocity anywhere in the box around both
/// colliders is below `speed` (m/s; the watch's continuing speed,
/// [`crate::impact::CONTINUE_FRACTION`] × `min_approach_speed`). Such a
/// pair starts as a resting contact, not an impact, and is not watched:
/// the pieces of one split inherit one rigid motion, so their relative
/// velocity is zero up to rounding, and with both bodies dynamic gravity
/// does not change it (unless the game gives them different gravity
/// scales or forces); only contacts with other bodies do, which the
/// watch of those contacts sees. (A pair with a fixed or kinematic side is
/// always watched: a body at rest just above the ground is falling onto
/// it.) The bound is `|Δv(m)| + |Δω|·h` at the box centre `m` with
/// half-diagonal `h`, which holds at every point of the box since the
/// relative velocity field is `Δv(m) + Δω × (p − m)`. A non-finite state
/// is never at rest. O(the two colliders' vertices), for their boxes.
fn moving_together(physics: &PhysicsWorld, pair: &StartedPair, speed: f32) -> bool {
    let [Some(s1), Some(s2)] = pair.states else {
        return false;
    };
    let (Some(c1), Some(c2)) = (
        physics.colliders.get(pair.colliders.0),
        physics.colliders.get(pair.colliders.1),
    ) else {
        return false;
    };
    let aabb = c1.compute_aabb().merged(&c2.compute_aabb());
    let (m, h) = (aabb.center(), aabb.half_extents().length());
    let at = |s: BodyState| s.linvel + s.angvel.cross(m - s.com);
    (at(s1) - at(s2)).length() + (s1.angvel - s2.angvel).length() * h < speed
}

/// The current states of the bodies of a collider pair (for the next step).
fn watched_states(
    bodies: &RigidBodySet,
    colliders: &ColliderSet,
    pair: (ColliderHandle, ColliderHandle),
) -> [Option<super::contact::BodyState>; 2] {
    let state = |c: ColliderHandle| {
        super::contact::BodyState::of(
            colliders
                .get(c)
                .and_then(|c| c.parent())
                .and_then(|h| bodies.get(h)),
        )
    };
    [state(pair.0), state(pair.1)]
}
