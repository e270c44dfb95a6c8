//! Contacts with chunks, the pre-step velocities that give their approach
//! speeds, and how the library's event handler sits beside the game's own.
//!
//! **Which contacts are read.** A pair of colliders, at least one of them
//! a library chunk, is *watched* from the step it starts touching (Rapier's
//! `CollisionEvent::Started`, raised by the narrow phase before the solver,
//! when the bodies still have their pre-step velocities, which the handler
//! records) for as long as it keeps approaching, and then for
//! `QUIET_STEPS` more steps. At the safe point the library reads each
//! watched pair's contact impulses from the narrow phase. Pairs that have
//! been resting against each other for longer (debris on the ground, a
//! pile) are not watched and cost nothing, however many, and neither are
//! two dynamic bodies that start touching while moving together (the
//! pieces of one split, which inherit one rigid motion: 4,140 such pairs
//! after a bridge deck broke into 347 pieces cost 2–4 ms a step for four
//! steps, and none opened an episode); chunk colliders
//! raise no contact-force events. The one case this leaves out, a pair that
//! has rested in contact for several steps and is then driven into itself
//! at the opening speed without ever separating, is not an impact Rapier
//! resolves as one either (its solver keeps the pair at rest).
//!
//! **Pre-step velocities.** For a pair that started this step they are the
//! ones recorded by the handler. For a pair watched from an earlier step
//! they are the velocities at the end of the last step, refreshed by
//! [`super::DestructionSet::before_step`] (O(watched pairs)) if the game
//! changed velocities between its steps. A pair that started this step
//! also gets its fast bodies' states one step earlier (`super::flight`),
//! from which its impact speed is measured when Rapier's CCD clamped the
//! step before the contact.
//!
//! A kinematic body touching a *fixed* chunk is never solved by Rapier (both
//! sides have infinite mass), so it gives no impulse. Chunk colliders enable
//! kinematic ↔ fixed pairs and collision events; when such a pair *starts*
//! touching, the hit is taken as the impulse that would bring the touched
//! chunk to the kinematic body's approach speed, `J = m_chunk · v_n` (N·s),
//! through the same [`crate::ImpactDamage`] mapping. A kinematic body
//! pressing on without a new contact does no further damage; once a chunk
//! breaks free it is dynamic and the ordinary path takes over.
//!
//! The handler only enqueues; nothing mutates the world until
//! [`super::DestructionSet::after_step`].

use glam::Vec3;
use rapier3d::prelude::*;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// Steps a watched pair stays watched after it last approached.
pub(crate) const QUIET_STEPS: u8 = 3;

/// A dynamic body's motion at the start of a step.
#[derive(Copy, Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct BodyState {
    /// Linear velocity of the centre of mass, m/s.
    pub(crate) linvel: Vec3,
    /// Angular velocity, rad/s.
    pub(crate) angvel: Vec3,
    /// Centre of mass, world, m.
    pub(crate) com: Vec3,
}

impl BodyState {
    /// The state of `body` now; `None` unless it is dynamic (a fixed or
    /// kinematic body is measured at its current velocity).
    pub(crate) fn of(body: Option<&RigidBody>) -> Option<Self> {
        body.filter(|b| b.is_dynamic()).map(|b| Self {
            linvel: b.linvel(),
            angvel: b.angvel(),
            com: b.center_of_mass(),
        })
    }
}

/// A collider pair that started touching during the step, with its bodies'
/// states as the narrow phase saw them (before the solver).
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct StartedPair {
    pub(crate) colliders: (ColliderHandle, ColliderHandle),
    pub(crate) states: [Option<BodyState>; 2],
}

/// A watched pair (see the module docs).
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct WatchedPair {
    pub(crate) key: (u32, u32, u32, u32),
    pub(crate) colliders: (ColliderHandle, ColliderHandle),
    /// Each side's body state at the start of the current step.
    pub(crate) states: [Option<BodyState>; 2],
    /// Consecutive steps without an approaching impulse.
    pub(crate) quiet: u8,
}

/// Watched pairs, sorted by key (binary search, deterministic order).
pub(crate) type Watch = Vec<WatchedPair>;

/// Velocity of material point `p` of a body at the start of the step
/// (m/s): from its recorded state, else its current velocity; zero for no body.
pub(crate) fn point_velocity(
    bodies: &RigidBodySet,
    body: Option<RigidBodyHandle>,
    state: Option<BodyState>,
    p: Vec3,
) -> Vec3 {
    match state {
        Some(s) => s.linvel + s.angvel.cross(p - s.com),
        None => body
            .and_then(|h| bodies.get(h))
            .map_or(Vec3::ZERO, |b| b.velocity_at_point(p)),
    }
}

/// How far a body's centre of mass moved over the step (m); zero without a state.
pub(crate) fn displacement(
    bodies: &RigidBodySet,
    body: Option<RigidBodyHandle>,
    state: Option<BodyState>,
) -> Vec3 {
    match (state, body.and_then(|h| bodies.get(h))) {
        (Some(s), Some(b)) => b.center_of_mass() - s.com,
        _ => Vec3::ZERO,
    }
}

impl ContactHit {
    /// The hit of `pair` this step, read from the narrow phase after the
    /// step; `None` when the pair exchanged no impulse. The contact point
    /// is the material point on the chunk side (collider 1 unless only
    /// collider 2 is `chunk`), at its pose after the step.
    pub(crate) fn from_pair(
        bodies: &RigidBodySet,
        colliders: &ColliderSet,
        pair: &ContactPair,
        chunk: (bool, bool),
    ) -> Option<Self> {
        let impulse = pair.total_impulse_magnitude();
        if !(impulse > 0.0) {
            return None;
        }
        let (c1, c2) = (
            colliders.get(pair.collider1)?,
            colliders.get(pair.collider2)?,
        );
        let second = chunk.1 && !chunk.0;
        let world = |p1: Vec3, p2: Vec3| {
            if second {
                c2.position().transform_point(p2)
            } else {
                c1.position().transform_point(p1)
            }
        };
        let (point, normal) = match pair.find_deepest_contact() {
            Some((manifold, contact)) => (
                world(contact.local_p1, contact.local_p2),
                manifold.data.normal,
            ),
            None => (c1.position().translation, Vec3::ZERO),
        };
        let (mut sum, mut count) = (Vec3::ZERO, 0u32);
        for m in pair.manifolds() {
            for p in &m.points {
                sum += world(p.local_p1, p.local_p2);
                count += 1;
            }
        }
        let centroid = if count > 0 { sum / count as f32 } else { point };
        let body = |c: &Collider| c.parent().and_then(|h| bodies.get(h));
        Some(Self {
            colliders: (pair.collider1, pair.collider2),
            bodies: (c1.parent(), c2.parent()),
            impulse,
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
        })
    }
}

/// The library's event handler: pass it to
/// `PhysicsWorld::step_with_events` (or, beside your own handler, pass
/// [`BothEvents`]). It reads collision-start events, the contact forces on
/// supported chunks of instances whose stress is on, and (only while some
/// instance has stress on) collision stops; it only enqueues
/// (O(contacts that started or stopped this step + loaded pairs awake)).
#[derive(Default)]
pub struct ContactCollector {
    pub(super) started: Mutex<Vec<StartedPair>>,
    pub(super) kinematic: Mutex<Vec<KinematicHit>>,
    /// Contact forces on chunks of supported bodies of instances with
    /// stress on (see [`super::load`]).
    pub(super) loads: Mutex<Vec<super::load::LoadSample>>,
    /// Pairs that stopped touching, kept only while some instance has
    /// stress on (`track_stops`): they end sustained loads.
    pub(super) stopped: Mutex<Vec<(ColliderHandle, ColliderHandle)>>,
    pub(super) track_stops: AtomicBool,
    /// Set when anything was enqueued since the last safe point (lets a
    /// quiet step skip both locks).
    pub(super) any: AtomicBool,
}

impl ContactCollector {
    /// How much is queued now: (started pairs, kinematic hits). A step whose
    /// trial is rolled back is undone with [`Self::truncate`] to this mark.
    pub(crate) fn mark(&self) -> (usize, usize) {
        let started = self.started.lock().map_or(0, |v| v.len());
        let kinematic = self.kinematic.lock().map_or(0, |v| v.len());
        (started, kinematic)
    }

    /// Drops what was queued after `mark` (a rolled-back trial step's events).
    pub(crate) fn truncate(&self, mark: (usize, usize)) {
        if let Ok(mut v) = self.started.lock() {
            v.truncate(mark.0);
        }
        if let Ok(mut v) = self.kinematic.lock() {
            v.truncate(mark.1);
        }
    }
}

impl EventHandler for ContactCollector {
    fn handle_collision_event(
        &self,
        bodies: &RigidBodySet,
        colliders: &ColliderSet,
        event: CollisionEvent,
        pair: Option<&ContactPair>,
    ) {
        let flags = match event {
            CollisionEvent::Started(_, _, flags) => flags,
            CollisionEvent::Stopped(c1, c2, _) => {
                if self.track_stops.load(Ordering::Relaxed) {
                    self.any.store(true, Ordering::Release);
                    if let Ok(mut stopped) = self.stopped.lock() {
                        stopped.push((c1, c2));
                    }
                }
                return;
            }
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
        self.any.store(true, Ordering::Release);
        if let Ok(mut started) = self.started.lock() {
            started.push(StartedPair {
                colliders: (pair.collider1, pair.collider2),
                states: [BodyState::of(body(c1)), BodyState::of(body(c2))],
            });
        }
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
        _total_force_magnitude: f32,
    ) {
        // Raised only by chunks of supported bodies with stress on (and by
        // the game's own colliders, which the sample ignores).
        if let Some(sample) = super::load::LoadSample::of(dt, bodies, colliders, pair) {
            self.any.store(true, Ordering::Release);
            if let Ok(mut loads) = self.loads.lock() {
                loads.push(sample);
            }
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
