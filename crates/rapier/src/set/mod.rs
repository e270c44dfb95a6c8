//! [`DestructionSet`]: any number of destructible instances living in the
//! game's own Rapier world. The game creates and steps its
//! [`PhysicsWorld`]; the set adds and removes the bodies and colliders of
//! its instances, reads contacts, and commits damage at the safe point the
//! game calls:
//!
//! ```ignore
//! let mut physics = PhysicsWorld::new();            // the game's world
//! let mut set = DestructionSet::new(DestructionSettings::default())?;
//! let wall = set.spawn(&mut physics, asset.clone(), pose, InstanceDesc::default())?;
//! loop {
//!     set.before_step(&physics);                    // pre-step velocities (watched contacts)
//!     physics.step_with_events(&hooks, &BothEvents(&my_events, set.events()));
//!     let report = set.after_step(&mut physics);    // the safe point: damage, commits, sleep
//! }
//! ```
//!
//! Split by concern: [`settings`], [`tag`] (the `user_data` encoding),
//! `registry` (which handles are the library's), [`contact`] (the event
//! handler, watched pairs and pre-step velocities), `step` (after-step:
//! contacts → damage, one commit across instances, quarantine), `sleep`
//! (lazy motion sync, the sleep sweep and recycling), `impulses` (explosions and absorbed impulses), [`attachments`]
//! (game joints and colliders across splits), `snapshot`, [`rerun`] (the
//! opt-in stepper [`DestructionSet::step_resolving_breaks`] that re-runs the
//! step in which a game body broke fixed chunks, so its momentum goes into
//! the freed pieces).
//!
//! # Cost per step
//! [`DestructionSet::before_step`] is O(watched pairs: contacts with chunks
//! that started touching recently or are still approaching + fast bodies,
//! see `flight`);
//! [`DestructionSet::after_step`] is O(new contacts + watched pairs + fast
//! bodies + bodies of the instances that admit or commit events +
//! [`DestructionSettings::sleep_sweep`]). It never visits every awake body:
//! fixed, untouched instances, resting and sleeping debris cost nothing,
//! however many, and a step where nothing breaks allocates nothing after
//! warm-up.

use crate::backend::{BodySpec, ChunkShapes, ColliderContext};
use crate::error::BackendError;
use rapier3d::prelude::*;
use smithereens_core::instance::InstanceDesc;
use smithereens_core::{Asset, ClusterHandle, EventId, Instance, Pose};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

pub mod attachments;
pub mod contact;
pub(crate) mod episode;
mod flight;
pub mod hold;
mod impulses;
pub mod load;
pub(crate) mod registry;
pub mod rerun;
pub mod rest;
pub mod settings;
mod sleep;
pub(crate) mod snapshot;
pub(crate) mod step;
pub mod tag;

pub use attachments::Attachments;
pub use contact::{BothEvents, ContactCollector};
pub use hold::{Hold, LEFT_HOLE, SUPPORT_COS};
pub use impulses::{Explosion, MAX_PROJECTILE_MASS, MAX_PROJECTILE_SPEED, ProjectileDesc};
pub use load::StressStepReport;
pub use rerun::{PARTING, PARTING_DEPTH, PARTING_LIMIT, PARTING_STEPS};
pub use settings::{CollisionGroups, DestructionSettings, RecyclePolicy, SerialGroups};
pub use snapshot::SetSnapshotError;
pub use step::{InstanceReport, Quarantined, SetStepReport};
pub use tag::ColliderTag;

/// Event ids with this bit set are reserved for damage made from contacts;
/// ids for scripted damage and explosions should leave it clear.
pub const CONTACT_EVENT_BIT: u64 = 1 << 63;

/// Farthest placement from the world origin accepted by
/// [`DestructionSet::spawn`], m. f32 positions there resolve 6 cm.
pub const MAX_PLACEMENT_DISTANCE: f32 = 1.0e6;

/// A generational handle of an instance in a [`DestructionSet`]. A handle
/// of a despawned instance stays stale forever (its slot's generation moved on).
#[derive(
    Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct InstanceHandle {
    index: u32,
    generation: u32,
}

impl InstanceHandle {
    /// Slot index.
    pub fn index(self) -> u32 {
        self.index
    }
    /// Slot generation.
    pub fn generation(self) -> u32 {
        self.generation
    }
    /// From raw parts (for decoding tags; a made-up handle is simply stale).
    pub fn from_raw_parts(index: u32, generation: u32) -> Self {
        Self { index, generation }
    }
}

impl std::fmt::Display for InstanceHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "instance {}v{}", self.index, self.generation)
    }
}

/// One live instance and its Rapier-side state.
pub(crate) struct Entry {
    pub(crate) instance: Instance,
    pub(crate) shapes: Arc<ChunkShapes>,
    pub(crate) bodies: BTreeMap<ClusterHandle, RigidBodyHandle>,
    pub(crate) transfers: BTreeMap<EventId, impulses::Transfer>,
    pub(crate) blasts: BTreeMap<EventId, (Explosion, bool)>,
    pub(crate) recycling: Vec<smithereens_core::RecycleTicket>,
    /// Consecutive failed commits.
    pub(crate) failures: u32,
    /// Test hook: the next `n` commits fail in prepare.
    pub(crate) fail_prepare: u32,
    /// The game's extra masses by chunk.
    pub(crate) extra: BTreeMap<smithereens_core::ChunkIndex, ExtraMass>,
    /// Set step index at which the cluster motions were last synced from
    /// Rapier (`u64::MAX`: never); see [`DestructionSet::sync_motions`].
    pub(crate) synced_at: u64,
    /// The instance's stress, when on ([`DestructionSet::enable_stress`]).
    pub(crate) stress: Option<Box<smithereens_core::stress::InstanceStress>>,
    /// The instance's render-only debris: its clusters that have no Rapier
    /// body (see [`crate::debris`]).
    pub(crate) debris: crate::debris::RenderDebris,
}

/// Mass the game adds to a chunk (a rider, cargo, a mounted gun): a point
/// mass of `mass` kg at `center` (asset space, m). It follows the chunk
/// through every split: each body's mass properties are its cluster's plus
/// the extra masses of its chunks (see [`DestructionSet::set_extra_mass`]).
/// This is the one way to add mass to a library body: the density of game
/// colliders attached to it is set to 0.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ExtraMass {
    /// Mass, kg (finite, ≥ 0; 0 removes it).
    pub mass: f32,
    /// Where it sits, asset space, m.
    pub center: glam::Vec3,
}

#[derive(Default)]
pub(crate) struct Slot {
    pub(crate) generation: u32,
    pub(crate) entry: Option<Entry>,
}

/// Destructible instances in the game's Rapier world (see the module docs).
pub struct DestructionSet {
    pub(crate) settings: DestructionSettings,
    pub(crate) slots: Vec<Slot>,
    pub(crate) free: Vec<u32>,
    pub(crate) registry: registry::Registry,
    pub(crate) collector: ContactCollector,
    /// Collider pairs whose contacts are read at the safe point (see [`contact`]).
    pub(crate) watch: contact::Watch,
    pub(crate) pre_step_taken: bool,
    /// Instances with pending events, waiting for the next safe point.
    pub(crate) dirty: Vec<InstanceHandle>,
    /// Instances with clusters withdrawn for recycling.
    pub(crate) recycling: Vec<InstanceHandle>,
    pub(crate) sleep: sleep::SleepTracker,
    /// Rest probes of awake library bodies (see [`rest`]).
    pub(crate) rest: rest::RestTracker,
    pub(crate) quarantine: Vec<Quarantined>,
    pub(crate) step_index: u64,
    pub(crate) next_event: u64,
    /// Reused buffer for the pairs that started touching in one step.
    started: Vec<contact::StartedPair>,
    /// Open contact episodes (see [`crate::impact`]).
    pub(crate) episodes: episode::Episodes,
    /// Fast bodies' states one step back (see [`flight`]).
    pub(crate) flights: flight::FlightLog,
    /// Reused buffer for the episodes that ended in one step.
    ended: Vec<episode::Episode>,
    /// Reused buffer for the kinematic hits of one step.
    kinematic_hits: Vec<contact::KinematicHit>,
    /// Reused buffer for the instances committed in one step.
    pub(crate) committing: Vec<InstanceHandle>,
    pub(crate) sleep_queue: VecDeque<(u64, InstanceHandle, ClusterHandle)>,
    /// Chunk shapes by asset fingerprint, kept after the last instance of an
    /// asset despawns (see [`DestructionSet::purge_unused_shapes`]).
    pub(crate) shapes: BTreeMap<u64, Arc<ChunkShapes>>,
    /// Live instances.
    pub(crate) live: usize,
    /// Buffers of [`Self::step_resolving_breaks`].
    rerun: rerun::RerunState,
    /// New bodies this frame's commits may still create
    /// ([`DestructionSettings::new_bodies_per_frame`]); full again at the
    /// end of every safe point, so never part of a snapshot.
    pub(crate) allowance: u32,
    /// Instances with stress on, ascending.
    pub(crate) stressed: Vec<InstanceHandle>,
    /// Which instance each sustained load belongs to (see [`load`]).
    pub(crate) loads: BTreeMap<smithereens_core::stress::LoadKey, InstanceHandle>,
    /// First and last step of each loaded pair's run of consecutive force
    /// reports (a load counts once the run is [`load::LOAD_SETTLE_SECONDS`] long).
    pub(crate) load_streaks: BTreeMap<smithereens_core::stress::LoadKey, load::LoadStreak>,
    /// Reused buffers for the handler's load samples and stopped pairs.
    load_samples: Vec<load::LoadSample>,
    stopped_pairs: Vec<(ColliderHandle, ColliderHandle)>,
    /// How render-only debris moves (see [`crate::debris`]).
    pub(crate) debris: crate::debris::DebrisSettings,
    /// Reused buffer for the particles that fell asleep in one step.
    slept: Vec<ClusterHandle>,
}

impl DestructionSet {
    /// An empty set.
    ///
    /// # Errors
    /// [`BackendError::BadSetting`] for bad settings.
    pub fn new(settings: DestructionSettings) -> Result<Self, BackendError> {
        settings.validate()?;
        Ok(Self {
            settings,
            slots: Vec::new(),
            free: Vec::new(),
            registry: registry::Registry::default(),
            collector: ContactCollector::default(),
            watch: contact::Watch::new(),
            pre_step_taken: false,
            dirty: Vec::new(),
            recycling: Vec::new(),
            sleep: sleep::SleepTracker::default(),
            rest: rest::RestTracker::default(),
            quarantine: Vec::new(),
            step_index: 0,
            next_event: 0,
            started: Vec::new(),
            kinematic_hits: Vec::new(),
            episodes: episode::Episodes::new(),
            flights: flight::FlightLog::default(),
            ended: Vec::new(),
            committing: Vec::new(),
            sleep_queue: VecDeque::new(),
            shapes: BTreeMap::new(),
            live: 0,
            rerun: rerun::RerunState::default(),
            allowance: settings.new_bodies_per_frame,
            stressed: Vec::new(),
            loads: BTreeMap::new(),
            load_streaks: BTreeMap::new(),
            load_samples: Vec::new(),
            stopped_pairs: Vec::new(),
            debris: crate::debris::DebrisSettings::default(),
            slept: Vec::new(),
        })
    }

    /// Places an instance of `asset` at `pose` (asset → world) in `physics`:
    /// one body per initial cluster (fixed when supported). `desc` gives the
    /// identity, budget and lifecycle; its `placement` is replaced by `pose`.
    /// Instances of one asset share its chunk shapes.
    ///
    /// # Errors
    /// [`BackendError::DegenerateHull`] for a chunk whose hull has no volume,
    /// [`BackendError::Instance`] for a non-finite pose or a bad budget,
    /// [`BackendError::BadSetting`] for a pose farther than
    /// [`MAX_PLACEMENT_DISTANCE`] from the origin,
    /// [`BackendError::BadProxy`] for a proxy without volume. Nothing is
    /// added to `physics` or the set on error.
    pub fn spawn(
        &mut self,
        physics: &mut PhysicsWorld,
        asset: Arc<Asset>,
        pose: Pose,
        desc: InstanceDesc,
    ) -> Result<InstanceHandle, BackendError> {
        if pose.translation.length() > MAX_PLACEMENT_DISTANCE {
            return Err(BackendError::BadSetting {
                name: "placement translation",
                value: pose.translation.length(),
                reason: "within 1e6 m of the origin (f32 positions lose millimetres beyond)",
            });
        }
        let desc = InstanceDesc {
            placement: pose,
            ..desc
        };
        let instance = Instance::with_desc(asset.clone(), desc)
            .map_err(|e| BackendError::Instance(smithereens_core::error::display_chain(&e)))?;
        let shapes = self.shapes_for(&asset)?;
        // Build every body before inserting any, so a failure adds nothing.
        let handle = self.peek_handle();
        let cx = ColliderContext {
            settings: &self.settings,
            instance: handle,
            load_threshold: None,
        };
        let mut built = Vec::with_capacity(instance.cluster_count());
        let no_extra = BTreeMap::new();
        let mut debris = crate::debris::RenderDebris::default();
        for (h, c) in instance.clusters() {
            if c.representation == smithereens_core::budget::Representation::RenderOnlyDebris {
                debris.insert(
                    crate::debris::ParticleState {
                        cluster: h,
                        pose: c.motion.pose,
                        linvel: c.motion.velocity.linear,
                        angvel: c.motion.velocity.angular,
                        asleep: false,
                    },
                    crate::debris::support_points(instance.asset(), &c.nodes, c.mass.center),
                );
                continue;
            }
            let spec = BodySpec::of_cluster(c, &instance.budget().proxies, &no_extra);
            let (body, colliders) =
                crate::backend::build_body(&shapes, instance.asset(), &spec, &cx)?;
            built.push((
                h,
                body.pose(crate::convert::to_rapier(&c.motion.pose)),
                colliders,
            ));
        }
        let mut bodies = BTreeMap::new();
        for (h, body, colliders) in built {
            let rb = crate::backend::insert_body(
                physics,
                &mut self.registry,
                (handle, h),
                body,
                colliders,
            );
            bodies.insert(h, rb);
        }
        let entry = Entry {
            instance,
            shapes,
            bodies,
            transfers: BTreeMap::new(),
            blasts: BTreeMap::new(),
            recycling: Vec::new(),
            failures: 0,
            fail_prepare: 0,
            extra: BTreeMap::new(),
            synced_at: u64::MAX,
            stress: None,
            debris,
        };
        Ok(self.occupy(entry))
    }

    /// The chunk shapes of `asset`: built once per asset (by fingerprint)
    /// and shared by all its instances, including later ones.
    fn shapes_for(&mut self, asset: &Arc<Asset>) -> Result<Arc<ChunkShapes>, BackendError> {
        let fp = asset.fingerprint();
        if let Some(s) = self.shapes.get(&fp) {
            return Ok(s.clone());
        }
        let s = Arc::new(ChunkShapes::build(asset, self.settings.collider_border)?);
        self.shapes.insert(fp, s.clone());
        Ok(s)
    }

    /// Drops the cached chunk shapes of assets with no live instance (they
    /// are kept after the last despawn so that spawning the asset again
    /// does not rebuild its hulls). Returns how many were dropped.
    pub fn purge_unused_shapes(&mut self) -> usize {
        let before = self.shapes.len();
        self.shapes.retain(|_, s| Arc::strong_count(s) > 1);
        before - self.shapes.len()
    }

    fn peek_handle(&self) -> InstanceHandle {
        match self.free.last() {
            Some(&i) => InstanceHandle {
                index: i,
                generation: self.slots[i as usize].generation,
            },
            None => InstanceHandle {
                index: self.slots.len() as u32,
                generation: 0,
            },
        }
    }

    fn occupy(&mut self, entry: Entry) -> InstanceHandle {
        let h = self.peek_handle();
        if self.free.pop().is_none() {
            self.slots.push(Slot::default());
        }
        self.slots[h.index as usize].entry = Some(entry);
        self.live += 1;
        h
    }

    pub(crate) fn entry(&self, h: InstanceHandle) -> Result<&Entry, BackendError> {
        self.slots
            .get(h.index as usize)
            .filter(|s| s.generation == h.generation)
            .and_then(|s| s.entry.as_ref())
            .ok_or(BackendError::StaleInstance(h))
    }

    pub(crate) fn entry_mut(&mut self, h: InstanceHandle) -> Result<&mut Entry, BackendError> {
        self.slots
            .get_mut(h.index as usize)
            .filter(|s| s.generation == h.generation)
            .and_then(|s| s.entry.as_mut())
            .ok_or(BackendError::StaleInstance(h))
    }

    /// Removes an instance: every body and collider it made leaves `physics`
    /// (with any game collider or joint still attached to those bodies:
    /// Rapier removes them with the body), bodies that touched them are
    /// woken, and its pending events are dropped. The handle is stale from
    /// now on.
    ///
    /// # Errors
    /// [`BackendError::StaleInstance`] for an unknown or despawned handle;
    /// nothing changes.
    pub fn despawn(
        &mut self,
        physics: &mut PhysicsWorld,
        h: InstanceHandle,
    ) -> Result<(), BackendError> {
        self.entry(h)?;
        let slot = &mut self.slots[h.index as usize];
        let Some(entry) = slot.entry.take() else {
            return Err(BackendError::StaleInstance(h));
        };
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(h.index);
        self.live -= 1;
        let mut to_wake = Vec::new();
        for &rb in entry.bodies.values() {
            if let Some(body) = physics.bodies.get(rb) {
                for &ch in body.colliders() {
                    for pair in physics.narrow_phase.contact_pairs_with(ch) {
                        let other = if pair.collider1 == ch {
                            pair.collider2
                        } else {
                            pair.collider1
                        };
                        if let Some(p) = physics.colliders.get(other).and_then(|c| c.parent())
                            && self.registry.body(p).is_none_or(|o| o.instance != h)
                        {
                            to_wake.push(p);
                        }
                    }
                }
            }
            crate::backend::remove_body(physics, &mut self.registry, rb);
        }
        to_wake.sort_by_key(|b| b.into_raw_parts());
        to_wake.dedup();
        for b in to_wake {
            if physics.bodies.contains(b) {
                physics.wake_up(b, true);
            }
        }
        self.dirty.retain(|&d| d != h);
        self.recycling.retain(|&d| d != h);
        self.stressed.retain(|&d| d != h);
        self.loads.retain(|_, inst| *inst != h);
        Ok(())
    }

    /// Admits a damage event on an instance for the next safe point: a
    /// scripted hit ([`smithereens_core::RadialDamage`], renormalised budget) or a
    /// [`smithereens_core::FalloffDamage`] (per-bond falloff; explosions with
    /// an impulse go through [`Self::explode`]), measured against where the
    /// instance's pieces are now in `physics` (their motions are synced
    /// first, O(bodies of the instance)).
    ///
    /// # Errors
    /// [`SetAdmitError::Instance`] for a stale handle, otherwise any
    /// [`smithereens_core::DamageError`]; nothing changes on error.
    pub fn admit(
        &mut self,
        physics: &PhysicsWorld,
        h: InstanceHandle,
        event: impl Into<smithereens_core::DamageEvent>,
    ) -> Result<smithereens_core::Admission, SetAdmitError> {
        self.entry(h)?;
        self.sync_motions(physics, h);
        let e = self.entry_mut(h)?;
        let a = e.instance.admit(event)?;
        self.mark_dirty(h);
        Ok(a)
    }

    pub(crate) fn mark_dirty(&mut self, h: InstanceHandle) {
        if let Err(pos) = self.dirty.binary_search(&h) {
            self.dirty.insert(pos, h);
        }
    }

    /// The library's contact event handler, to pass to Rapier's step (see
    /// [`BothEvents`] to combine it with the game's own).
    pub fn events(&self) -> &ContactCollector {
        &self.collector
    }

    /// Settings in force.
    pub fn settings(&self) -> &DestructionSettings {
        &self.settings
    }

    /// The destruction state of an instance. Its cluster motions are synced
    /// from Rapier lazily: call [`Self::sync_instances`] first to read
    /// current poses and velocities.
    ///
    /// # Errors
    /// [`BackendError::StaleInstance`].
    pub fn instance(&self, h: InstanceHandle) -> Result<&Instance, BackendError> {
        Ok(&self.entry(h)?.instance)
    }

    /// The Rapier body of each live cluster of an instance, in handle order.
    ///
    /// # Errors
    /// [`BackendError::StaleInstance`].
    pub fn cluster_bodies(
        &self,
        h: InstanceHandle,
    ) -> Result<&BTreeMap<ClusterHandle, RigidBodyHandle>, BackendError> {
        Ok(&self.entry(h)?.bodies)
    }

    /// The render-only debris of an instance: its clusters that are no
    /// Rapier body (see [`crate::debris`]), in handle order.
    ///
    /// # Errors
    /// [`BackendError::StaleInstance`].
    pub fn render_debris(
        &self,
        h: InstanceHandle,
    ) -> Result<&crate::debris::RenderDebris, BackendError> {
        Ok(&self.entry(h)?.debris)
    }

    /// How render-only debris moves (see [`crate::debris`]).
    pub fn debris_settings(&self) -> &crate::debris::DebrisSettings {
        &self.debris
    }

    /// Replaces how render-only debris moves from the next step on (e.g.
    /// the height of the game's ground, [`crate::DebrisSettings::ground_y`]).
    ///
    /// # Errors
    /// [`BackendError::BadSetting`] for a bad value; nothing changes.
    pub fn set_debris_settings(
        &mut self,
        settings: crate::debris::DebrisSettings,
    ) -> Result<(), BackendError> {
        settings.validate()?;
        self.debris = settings;
        Ok(())
    }

    /// How cluster `c` of instance `h` is held now, if it is a dynamic
    /// piece (see [`hold`]): wedged in the hole it broke from, supported
    /// from below, or neither. `None` for a fixed or unknown cluster, or
    /// without gravity. O(the piece's chunks + contact pairs).
    pub fn hold(
        &self,
        physics: &PhysicsWorld,
        h: InstanceHandle,
        c: ClusterHandle,
    ) -> Option<Hold> {
        let e = self.entry(h).ok()?;
        let rb = *e.bodies.get(&c)?;
        let now = self.cluster_asset_pose(physics, h, c)?;
        let placed = e.instance.placement();
        let asset = e.instance.asset();
        let moved = e
            .instance
            .cluster(c)?
            .nodes
            .iter()
            .filter_map(|&k| asset.chunks().get(k))
            .map(|chunk| {
                now.transform_point(chunk.centroid)
                    .distance(placed.transform_point(chunk.centroid))
            })
            .fold(0.0f32, f32::max);
        hold::hold_of(physics, &self.registry, h, rb, moved)
    }

    /// Live instances, in handle order.
    pub fn instances(&self) -> impl Iterator<Item = (InstanceHandle, &Instance)> + '_ {
        self.slots.iter().enumerate().filter_map(|(i, s)| {
            s.entry.as_ref().map(|e| {
                (
                    InstanceHandle {
                        index: i as u32,
                        generation: s.generation,
                    },
                    &e.instance,
                )
            })
        })
    }

    /// Number of live instances.
    pub fn len(&self) -> usize {
        self.live
    }

    /// True with no live instance.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What a collider stands for, if the library made it (by handle; a
    /// game collider is `None` whatever its `user_data`).
    pub fn collider_tag(&self, h: ColliderHandle) -> Option<ColliderTag> {
        self.registry.collider(h)
    }

    /// The instance and cluster a library body stands for; `None` for a game body.
    pub fn body_owner(&self, h: RigidBodyHandle) -> Option<(InstanceHandle, ClusterHandle)> {
        self.registry.body(h).map(|o| (o.instance, o.cluster))
    }

    /// Asset → world pose of a cluster's chunks, read from its Rapier body,
    /// or from its particle for render-only debris ([`crate::debris`]).
    pub fn cluster_asset_pose(
        &self,
        physics: &PhysicsWorld,
        h: InstanceHandle,
        cluster: ClusterHandle,
    ) -> Option<Pose> {
        let e = self.entry(h).ok()?;
        let c = e.instance.cluster(cluster)?;
        let pose = match e.bodies.get(&cluster) {
            Some(&rb) => crate::convert::from_rapier(physics.bodies.get(rb)?.position()),
            None => e.debris.get(cluster)?.state().pose,
        };
        Some(pose.mul(&Pose::from_translation(-c.mass.center)))
    }

    /// Events set aside by quarantine, oldest first (see [`Self::readmit`]).
    pub fn quarantined(&self) -> &[Quarantined] {
        &self.quarantine
    }

    /// Puts the quarantined events of `h` back in its queue (with their
    /// frozen geometry) for the next safe point and clears its failure
    /// count. Returns how many were re-admitted; the rest (ids admitted
    /// again meanwhile) stay in quarantine.
    ///
    /// # Errors
    /// [`BackendError::StaleInstance`].
    pub fn readmit(&mut self, h: InstanceHandle) -> Result<usize, BackendError> {
        self.entry(h)?;
        let mut kept = Vec::new();
        let mut count = 0;
        for q in std::mem::take(&mut self.quarantine) {
            if q.instance != h {
                kept.push(q);
                continue;
            }
            let e = self.entry_mut(h)?;
            e.failures = 0;
            let mut rest = Vec::new();
            for p in q.events {
                match e.instance.admit_frozen(p.clone()) {
                    Ok(_) => count += 1,
                    Err(_) => rest.push(p),
                }
            }
            if !rest.is_empty() {
                kept.push(Quarantined { events: rest, ..q });
            }
        }
        self.quarantine = kept;
        if count > 0 {
            self.mark_dirty(h);
        }
        Ok(count)
    }

    /// Adds (or, with `mass = 0`, removes) the game's extra mass on a chunk
    /// of an instance ([`ExtraMass`]); the body holding the chunk gets its
    /// new mass properties at once. Replaces an earlier extra mass of the chunk.
    ///
    /// # Errors
    /// [`BackendError::StaleInstance`]; [`BackendError::BadSetting`] for a
    /// mass that is negative or not finite, or a non-finite centre;
    /// [`BackendError::UnknownChunk`] for a chunk the instance does not
    /// simulate. Nothing changes on error.
    pub fn set_extra_mass(
        &mut self,
        physics: &mut PhysicsWorld,
        h: InstanceHandle,
        chunk: smithereens_core::ChunkIndex,
        extra: ExtraMass,
    ) -> Result<(), BackendError> {
        if !(extra.mass.is_finite() && extra.mass >= 0.0) {
            return Err(BackendError::BadSetting {
                name: "extra mass",
                value: extra.mass,
                reason: "finite and ≥ 0 kg",
            });
        }
        if !extra.center.is_finite() {
            return Err(BackendError::BadSetting {
                name: "extra mass centre",
                value: f32::NAN,
                reason: "finite",
            });
        }
        let e = self.entry_mut(h)?;
        let cluster = e
            .instance
            .cluster_of(chunk)
            .ok_or(BackendError::UnknownChunk(chunk))?;
        if extra.mass > 0.0 {
            e.extra.insert(chunk, extra);
        } else {
            e.extra.remove(&chunk);
        }
        let (Some(c), Some(&rb)) = (e.instance.cluster(cluster), e.bodies.get(&cluster)) else {
            return Ok(());
        };
        if c.supported {
            return Ok(());
        }
        let spec = BodySpec::of_cluster(c, &e.instance.budget().proxies, &e.extra);
        let mp = crate::backend::body_mass_properties(&spec);
        if let Some(body) = physics.bodies.get_mut(rb) {
            body.set_additional_mass_properties(mp, true);
        }
        crate::backend::refresh_mass(physics, rb);
        Ok(())
    }

    /// Test hook: the next `n` commits of `h` fail in `prepare`.
    #[doc(hidden)]
    pub fn inject_prepare_failures(
        &mut self,
        h: InstanceHandle,
        n: u32,
    ) -> Result<(), BackendError> {
        self.entry_mut(h)?.fail_prepare = n;
        self.mark_dirty(h);
        Ok(())
    }

    /// Collider pairs whose contacts the library is reading (diagnostics;
    /// see [`contact`]): pairs touching a chunk that started recently or are
    /// still approaching. Resting contacts are not among them.
    pub fn watched_contacts(&self) -> usize {
        self.watch.len()
    }

    /// Steps taken (calls of [`Self::after_step`]).
    pub fn step_index(&self) -> u64 {
        self.step_index
    }

    /// FNV-1a hash of every instance's destruction state, every library
    /// body's pose and velocity bits and every render-only particle's
    /// state ([`crate::debris`]), in handle order.
    pub fn state_hash(&self, physics: &PhysicsWorld) -> u64 {
        let mut hasher = smithereens_core::hash::StateHasher::new();
        for (h, e) in self
            .slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.entry.as_ref().map(|e| (i, e)))
        {
            hasher.write_u32(h as u32);
            hasher.write_u64(e.instance.state_hash());
            if let Some(stress) = &e.stress {
                stress.hash_into(&mut hasher);
            }
            for &rb in e.bodies.values() {
                if let Some(b) = physics.bodies.get(rb) {
                    hash_body(&mut hasher, b);
                }
            }
            // Nothing for an instance without particles: hashes of runs
            // without render-only debris are those of before it existed.
            e.debris.hash_into(&mut hasher);
        }
        for (k, streak) in &self.load_streaks {
            hasher.write_u64(k.0);
            hasher.write_u64(k.1);
            hasher.write_u64(streak.first);
            hasher.write_u64(streak.last);
            hasher.write_f32(streak.reference);
        }
        hasher.finish()
    }
}

/// Writes a body's pose and velocity bits.
pub(crate) fn hash_body(h: &mut smithereens_core::hash::StateHasher, b: &RigidBody) {
    let p = b.position();
    for v in p
        .translation
        .to_array()
        .into_iter()
        .chain(p.rotation.to_array())
        .chain(b.linvel().to_array())
        .chain(b.angvel().to_array())
    {
        h.write_f32(v);
    }
}

/// Why [`DestructionSet::admit`] refused an event. Nothing changes on error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SetAdmitError {
    /// The instance handle is stale or unknown.
    #[error(transparent)]
    Instance(#[from] BackendError),
    /// The event itself was refused.
    #[error("damage event")]
    Damage(#[from] smithereens_core::DamageError),
}
