//! Stress in the game's world (issue 13, item 5): the sustained loads on
//! supported structures and the per-step stress of every instance that has
//! it on ([`smithereens_core::stress::InstanceStress`]).
//!
//! **Opt-in per instance**: [`DestructionSet::enable_stress`] gives an
//! instance materials and solver settings. From then on:
//!
//! * every supported cluster is solved under the world's gravity when it
//!   first appears and again whenever it loses a bond or chunks, or a load
//!   on it changes past the tolerance ([`StressDesc`]); a weak structure
//!   fails under its own weight, a strong one costs one solve and then
//!   nothing;
//! * the chunk colliders of its supported (fixed) bodies raise Rapier's
//!   contact-force events above [`StressDesc::load_floor`] N. A dynamic body
//!   resting or pressing on them (a box on a bridge deck, a heap of debris,
//!   a vehicle) is a sustained load: the total normal contact impulse of the
//!   pair over the step, divided by the step, at the impulse-weighted
//!   centroid of its contact points. Rapier raises these only for awake
//!   pairs, so a sleeping heap costs nothing and keeps its last load; the
//!   load ends when the pair stops touching. Friction is not counted.
//! * **Never both for the same contact**: while a pair is an open impact
//!   episode or still approaching (the contact watch of [`super::contact`]),
//!   its force is an impact, dealt with as impact damage, and not taken as a
//!   load; once it has pressed for [`LOAD_SETTLE_SECONDS`] on consecutive
//!   steps, it is (transient contacts never become loads).
//! * each step's standing overloads become one [`smithereens_core::StressDamage`]
//!   event per instance, admitted and committed at the same safe point as
//!   contact damage (step reports list it with the other events).
//!
//! Kinematic bodies pressing on a fixed structure give no load (Rapier does
//! not solve kinematic ↔ fixed pairs). Free (dynamic) clusters are not
//! solved: their inertial loads are left out. Cost per step: O(instances
//! with stress on) to see which have work, plus the solves of clusters that
//! changed, plus O(awake loaded pairs + overloaded bonds).

use super::contact::pair_key;
use super::{DestructionSet, InstanceHandle, SetStepReport};
use crate::error::BackendError;
use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_core::stress::{InstanceStress, LoadKey, StressDesc};
use smithereens_core::{ChunkIndex, DamageEvent};
use std::sync::atomic::Ordering;

/// How long a pair must press on a supported chunk, on consecutive steps
/// and steadily (within [`LOAD_STEADINESS`] of the force it started the run
/// with), before its force counts as a sustained load: 0.1 s. Shorter or
/// changing contacts are transients (pieces a blast throws against the
/// wall, a bounce, the decaying force of a landing) and are left to impact
/// damage; a truck set down on a deck counts from 0.1 s after it settles.
pub const LOAD_SETTLE_SECONDS: f32 = 0.1;

/// Largest sustained load a body can put on a structure, in its own
/// weights: 10. A steady contact force beyond it is not a resting load but
/// the solver pushing overlapping bodies apart (a piece stuck inside the
/// fixed chunk it broke from pressed 12 MN, 4,000 times its weight, on the
/// built-in wall-gravity's side) and is not taken. Piles heavier than ten
/// times their bottom piece are under-counted.
pub const LOAD_WEIGHT_FACTOR: f32 = 10.0;

/// Largest relative change of a pair's contact force within a steady run
/// (see [`LOAD_SETTLE_SECONDS`]): 25 %.
pub const LOAD_STEADINESS: f32 = 0.25;

/// A loaded pair's current run of consecutive, steady force reports.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct LoadStreak {
    /// First and last step of the run.
    pub(crate) first: u64,
    pub(crate) last: u64,
    /// Force magnitude at the run's first step, N.
    pub(crate) reference: f32,
}

/// A contact force on a chunk of a supported body, from Rapier's
/// contact-force event.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct LoadSample {
    /// The chunk collider and the other collider.
    pub(crate) colliders: (ColliderHandle, ColliderHandle),
    /// Force on the chunk, N, world.
    pub(crate) force: Vec3,
    /// Impulse-weighted centroid of the contact points, m, world.
    pub(crate) point: Vec3,
    /// Mass of the other collider's body, kg (0 unless dynamic).
    pub(crate) other_mass: f32,
}

impl LoadSample {
    /// The load on the force-event collider of `pair` (the one on a fixed
    /// body raising contact-force events); `None` when neither is such a
    /// collider or the pair exchanged no impulse.
    pub(crate) fn of(
        dt: f32,
        bodies: &RigidBodySet,
        colliders: &ColliderSet,
        pair: &ContactPair,
    ) -> Option<Self> {
        let c1 = colliders.get(pair.collider1)?;
        let c2 = colliders.get(pair.collider2)?;
        let loaded = |c: &Collider| {
            c.active_events()
                .contains(ActiveEvents::CONTACT_FORCE_EVENTS)
                && c.parent()
                    .and_then(|h| bodies.get(h))
                    .is_some_and(|b| b.is_fixed())
        };
        let first = if loaded(c1) {
            true
        } else if loaded(c2) {
            false
        } else {
            return None;
        };
        if !(dt > 0.0) {
            return None;
        }
        // Rapier's total impulse pushes collider 2 along the normal (from
        // collider 1 towards 2), collider 1 the other way.
        let on_2 = pair.total_impulse() / dt;
        let (chunk, other, force) = if first {
            (c1, pair.collider2, -on_2)
        } else {
            (c2, pair.collider1, on_2)
        };
        let (mut sum, mut weight, mut plain, mut count) = (Vec3::ZERO, 0.0f32, Vec3::ZERO, 0u32);
        for m in pair.manifolds() {
            for p in &m.points {
                let local = if first { p.local_p1 } else { p.local_p2 };
                let world = chunk.position().transform_point(local);
                let w = p.data.impulse.abs();
                sum += world * w;
                weight += w;
                plain += world;
                count += 1;
            }
        }
        let point = if weight > 0.0 {
            sum / weight
        } else if count > 0 {
            plain / count as f32
        } else {
            chunk.position().translation
        };
        let chunk_handle = if first {
            pair.collider1
        } else {
            pair.collider2
        };
        let other_mass = colliders
            .get(other)
            .and_then(|c| c.parent())
            .and_then(|h| bodies.get(h))
            .filter(|b| b.is_dynamic())
            .map_or(0.0, |b| b.mass());
        (force.is_finite() && point.is_finite() && force != Vec3::ZERO).then_some(Self {
            colliders: (chunk_handle, other),
            force,
            point,
            other_mass,
        })
    }

    /// The key of the load this sample sets: (chunk collider, other collider).
    fn key(&self) -> LoadKey {
        load_key(self.colliders)
    }
}

/// The [`LoadKey`] of a (chunk collider, other collider) pair.
fn load_key(colliders: (ColliderHandle, ColliderHandle)) -> LoadKey {
    let raw = |c: ColliderHandle| {
        let (i, g) = c.into_raw_parts();
        (u64::from(i) << 32) | u64::from(g)
    };
    LoadKey(raw(colliders.0), raw(colliders.1))
}

/// What stress did on one instance at a safe point (in its step report).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct StressStepReport {
    /// Clusters solved.
    pub solves: u32,
    /// Conjugate-gradient iterations over those solves.
    pub iterations: u32,
    /// Largest residual of this step's solves (dimensionless; ε by
    /// default 1e-3).
    pub max_residual: f32,
    /// Clusters whose solve has not converged yet.
    pub unconverged: u32,
    /// Clusters left for a later step because the frame's stress budget
    /// ([`crate::DestructionSettings::stress_work_per_frame`]) ran out.
    pub deferred: u32,
    /// Work of the instance's solves this step, bond passes.
    pub work: u64,
    /// Bonds over their elastic limit.
    pub overloaded: u32,
    /// Sustained loads on the instance after the step.
    pub loads: u32,
    /// Wall time of the instance's stress update (solves and the event), s.
    pub seconds: f64,
}

impl DestructionSet {
    /// Turns stress on for instance `h` with `desc` (materials, solver
    /// settings, load tolerances): its supported clusters are solved at the
    /// next safe point under the world's gravity, and the chunk colliders of
    /// its supported bodies start reporting sustained contact loads (see the
    /// [module docs](self)). Calling it again replaces the description and
    /// starts over (every supported cluster is solved again, loads are
    /// collected afresh).
    ///
    /// # Errors
    /// [`BackendError::StaleInstance`]; [`BackendError::Stress`] for bad
    /// settings or materials that do not fit the asset (a zero-area bond, a
    /// per-bond material table of the wrong length, a NaN limit). Nothing
    /// changes on error.
    pub fn enable_stress(
        &mut self,
        physics: &mut PhysicsWorld,
        h: InstanceHandle,
        desc: StressDesc,
    ) -> Result<(), BackendError> {
        let entry = self.entry(h)?;
        let stress = InstanceStress::new(&entry.instance, desc.clone())
            .map_err(|e| BackendError::Stress(smithereens_core::error::display_chain(&e)))?;
        let threshold = desc.load_floor;
        let mut flag = Vec::new();
        for (c, &rb) in &entry.bodies {
            if !entry.instance.cluster(*c).is_some_and(|c| c.supported) {
                continue;
            }
            let Some(body) = physics.bodies.get(rb) else {
                continue;
            };
            flag.extend(body.colliders().iter().copied().filter(|&ch| {
                self.registry
                    .collider(ch)
                    .is_some_and(|t| t.authoritative_chunk().is_some())
            }));
        }
        for ch in flag {
            if let Some(c) = physics.colliders.get_mut(ch) {
                crate::backend::watch_loads(c, threshold);
            }
        }
        self.entry_mut(h)?.stress = Some(Box::new(stress));
        self.loads.retain(|_, inst| *inst != h);
        if let Err(pos) = self.stressed.binary_search(&h) {
            self.stressed.insert(pos, h);
        }
        self.collector.track_stops.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// The stress of instance `h`, if it is on.
    ///
    /// # Errors
    /// [`BackendError::StaleInstance`].
    pub fn stress(&self, h: InstanceHandle) -> Result<Option<&InstanceStress>, BackendError> {
        Ok(self.entry(h)?.stress.as_deref())
    }

    /// The safe point's stress work: new and ended sustained loads, then
    /// each instance with stress on and something to do is updated within
    /// what is left of the frame's stress budget
    /// ([`crate::DestructionSettings::stress_work_per_frame`]; instances take
    /// turns being first, rotating with the step index) and its event
    /// admitted for this safe point's commit.
    pub(super) fn update_stress(&mut self, physics: &PhysicsWorld, report: &mut SetStepReport) {
        if self.stressed.is_empty() {
            return;
        }
        let gravity = physics.gravity;
        let dt = physics.integration_parameters.dt;
        self.take_loads(dt, gravity.length());
        let mut budget = self.settings.stress_work_per_frame;
        let n = self.stressed.len();
        let first = (self.step_index % n as u64) as usize;
        for k in 0..n {
            let h = self.stressed[(first + k) % n];
            let Ok(entry) = self.entry_mut(h) else {
                continue;
            };
            let Some(stress) = entry.stress.as_mut() else {
                continue;
            };
            if stress.is_idle() {
                continue;
            }
            let t0 = std::time::Instant::now();
            let update = match stress.update_within(&entry.instance, gravity, dt, &mut budget) {
                Ok(u) => u,
                Err(e) => {
                    report.stress_errors.push((
                        h,
                        BackendError::Stress(smithereens_core::error::display_chain(&e)),
                    ));
                    continue;
                }
            };
            let loads = stress.loads().count() as u32;
            let admitted = update.event.map(|event| {
                let event: DamageEvent = event.into();
                entry.instance.admit(event.clone()).map(|_| event)
            });
            let r = report.instances.entry(h).or_default();
            r.stress = Some(StressStepReport {
                solves: update.solves,
                iterations: update.iterations,
                max_residual: update.max_residual,
                unconverged: update.unconverged,
                deferred: update.deferred,
                work: update.work,
                overloaded: update.overloaded,
                loads,
                seconds: t0.elapsed().as_secs_f64(),
            });
            match admitted {
                Some(Ok(event)) => {
                    r.events.push(event);
                    self.mark_dirty(h);
                }
                Some(Err(_)) => report.rejected_contacts += 1,
                None => {}
            }
        }
    }

    /// Moves the handler's load samples and stopped pairs into the
    /// instances' stress. `dt` is the step, s; `gravity` its magnitude, m/s².
    fn take_loads(&mut self, dt: f32, gravity: f32) {
        let mut samples = std::mem::take(&mut self.load_samples);
        let mut stopped = std::mem::take(&mut self.stopped_pairs);
        if let Ok(mut q) = self.collector.loads.lock() {
            std::mem::swap(&mut *q, &mut samples);
        }
        if let Ok(mut q) = self.collector.stopped.lock() {
            std::mem::swap(&mut *q, &mut stopped);
        }
        // The handler's order follows the solver's (deterministic); a stable
        // sort keeps a pair's later sample after its earlier one (a re-run
        // step reports both runs), so the later wins.
        samples.sort_by_key(|s| pair_key(s.colliders));
        stopped.sort_by_key(|&p| pair_key(p));
        for &(a, b) in &stopped {
            for key in [load_key((a, b)), load_key((b, a))] {
                self.load_streaks.remove(&key);
                if let Some(h) = self.loads.remove(&key)
                    && let Ok(entry) = self.entry_mut(h)
                    && let Some(stress) = entry.stress.as_mut()
                {
                    stress.remove_load(key);
                }
            }
        }
        for s in &samples {
            let Some(tag) = self.registry.collider(s.colliders.0) else {
                continue;
            };
            let Some(chunk) = tag.authoritative_chunk() else {
                continue;
            };
            // An impact in progress is impact damage, not a load.
            let key = pair_key(s.colliders);
            let rev = pair_key((s.colliders.1, s.colliders.0));
            let impact = [key, rev].iter().any(|k| {
                self.episodes.contains_key(k)
                    || self
                        .watch
                        .binary_search_by_key(k, |w| w.key)
                        .is_ok_and(|i| self.watch[i].quiet == 0)
            });
            if impact {
                continue;
            }
            if !(s.force.length() <= LOAD_WEIGHT_FACTOR * s.other_mass * gravity) {
                continue; // not a resting load (see LOAD_WEIGHT_FACTOR)
            }
            let h = tag.instance();
            let key = s.key();
            // Sustained: reported on consecutive steps, steady within
            // LOAD_STEADINESS, for LOAD_SETTLE_SECONDS.
            let step = self.step_index;
            let magnitude = s.force.length();
            let fresh = LoadStreak {
                first: step,
                last: step,
                reference: magnitude,
            };
            let streak = self.load_streaks.entry(key).or_insert(fresh);
            if streak.last + 1 < step
                || (magnitude - streak.reference).abs() > LOAD_STEADINESS * streak.reference
            {
                *streak = fresh;
            }
            streak.last = step;
            if ((step - streak.first + 1) as f32) * dt < LOAD_SETTLE_SECONDS {
                continue;
            }
            let Ok(entry) = self.entry_mut(h) else {
                continue;
            };
            let Some(stress) = entry.stress.as_mut() else {
                continue;
            };
            if stress
                .set_load(&entry.instance, key, ChunkIndex(chunk), s.force, s.point)
                .is_ok()
            {
                self.loads.insert(key, h);
            }
        }
        samples.clear();
        stopped.clear();
        self.load_samples = samples;
        self.stopped_pairs = stopped;
    }

    /// Tells an instance's stress about its commit (clusters that changed
    /// are solved again next step).
    pub(super) fn observe_stress_commit(
        entry: &mut super::Entry,
        outcome: &smithereens_core::commit::CommitOutcome,
    ) {
        if let Some(stress) = entry.stress.as_mut() {
            stress.observe_commit(&entry.instance, outcome);
        }
    }
}
