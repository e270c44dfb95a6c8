//! Momentum goes where the bonds broke (issue 11, item 2): the step in
//! which a game body broke a fixed chunk is re-run against the freed pieces.
//!
//! With the ordinary safe point ([`DestructionSet::after_step`]) the solver
//! has already resolved the hit against the intact, fixed wall before the
//! commit frees anything: a 450 kg ball at 24 m/s stops within one step and
//! bounces back out of the hole it made. [`DestructionSet::step_resolving_breaks`]
//! is the opt-in stepper that fixes this:
//!
//! 1. Before the step it saves the pose and velocity of every awake body
//!    (Rapier's active set: the only bodies a step moves), O(awake bodies),
//!    no allocation after warm-up.
//! 2. It runs the game's step (a closure: the set never owns the pipeline).
//! 3. It looks for *projectile hits*: a collider pair of a dynamic game body
//!    and an authoritative chunk of a fixed body that exchanged impulse this
//!    step while approaching at `min_approach_speed` or faster, with no
//!    contact episode already open. O(pairs that started + watched pairs).
//! 4. None (every step but a hit's): the ordinary safe point, nothing else.
//! 5. Otherwise every saved body goes back to its pre-step pose and
//!    velocity, each hit's damage is admitted at once (its impact impulse,
//!    `m_eff · (1 + e) · v_n`, is known when the contact opens — the same
//!    budget the episode would have spent when it ended), the commit frees
//!    the pieces (fixed before, so the pre-step pose is the pose they have),
//!    and the step runs **once more** from the restored state. Then the
//!    ordinary safe point runs over the second step's contacts; it may admit
//!    new damage but never runs a third step. The touched chunks' hits are
//!    spent: the second step's contact of the same game body with the same
//!    chunk (freed or not) opens an episode without damage, so nothing is
//!    counted twice, and no absorbed impulse is handed on
//!    ([`crate::ImpactDamage::impulse_transfer`] is for the ordinary path:
//!    here the solver itself moves the pieces).
//! 6. The pieces freed by a re-run *part* from the fixed rest of their
//!    instance ([`PARTING_STEPS`], [`PARTING`]).
//!
//! # Measured (built-in wall, 450 kg ball at 24 m/s, `tests/momentum.rs` of `smithereens-scenario`)
//!
//! Momentum along the ball (ball + dynamic pieces), the step before contact
//! → 3 steps after the break; ball velocity after the break:
//!
//! | stepping | momentum, N·s | ball, m/s | fastest piece | lowest chunk |
//! | --- | --- | --- | --- | --- |
//! | ordinary (`after_step`) | 10,800 → −1,063 | −2.4 (bounces) | 24.0 m/s | 0.000 m |
//! | re-run, pieces solved against the fixed wall | 10,800 → −1,993 | −2.7 | 7.5 m/s | |
//! | re-run, parting for the re-run step only | 10,800 → 4,266 | 12.1, then −1.3 | 14.9 m/s | |
//! | re-run, parting 12 steps, then solved wherever they are | 10,800 → 10,800 | 11.0 | 14.9 m/s | −0.155 m |
//! | **re-run + parting (12 steps and until out)** | **10,800 → 10,800** | **11.0, ends 5.2 m past** | **13.6 m/s** | **−0.028 m** |
//!
//! (The first row and the last at 0.1 m contact prediction, the others at
//! Rapier's 2 mm; with 2 mm or 5 cm, in the last, a piece the ball set
//! spinning at 18 rad/s dips a corner 5.8 cm into the
//! ground for one step on landing.) Restoring only the projectile's
//! velocity after the commit (no re-run) was not pursued: the solver has
//! already spent the impulse on the fixed wall, so whatever is handed to the
//! pieces is invented momentum (today's `impulse_transfer`). Other masses
//! with re-run + parting: 4.5 t goes through at 16 m/s (momentum within
//! 0.4 %); 45 kg still bounces off the ~100 kg pieces it frees (and, hitting
//! them, breaks 66 bonds instead of 33).
//!
//! Cost (release, `benches/world.rs`): the re-run step of a 16 × 10 wall hit
//! 1.6 ms against 0.31 ms for the ordinary breaking step (1.9 ms with the
//! step after it, when the ordinary run's freed pieces first move); with
//! nothing hit, 2.5 µs of library time per step instead of 1.5 µs with 200
//! awake game bodies (the copy of the awake set).
//!
//! Limits: a body asleep before the step that the first run woke keeps its
//! first-run state (it was at rest; it moves at most one step's worth).
//! The game's own event handler sees the events of both runs (the report
//! says when a step was re-run: [`super::SetStepReport::rerun`]). A game
//! body hitting a *second* fixed chunk within the re-run step itself is
//! resolved the ordinary way (one re-run per step). A hit whose damage
//! frees nothing still costs its re-run (whether a commit frees pieces is
//! known only after it, and it must see the pre-step motions). Set
//! snapshots keep the parting list (format 5; one of format 4 or older is
//! restored by finding parting pieces by their solver groups, parting only
//! while still inside, and does not resume bit for bit within a piece's
//! first [`PARTING_STEPS`]). Pieces freed by a blast part too (see
//! `commit_all`). Parting pieces pass through the fixed chunks of
//! their instance, visibly, for up to 0.2 s (longer while inside); the
//! 4.5 t ball's debris dipped 9 cm into the ground once (−0.025 m ordinary).

use super::contact::{BodyState, ContactHit, pair_key, point_velocity};
use super::{DestructionSet, InstanceReport, SetStepReport};
use crate::set::ContactCollector;
use glam::Vec3;
use rapier3d::math::Pose;
use rapier3d::prelude::*;
use smithereens_core::ChunkIndex;
use std::time::Instant;

/// The pre-step state of one awake body.
#[derive(Copy, Clone, Debug)]
pub(crate) struct SavedBody {
    handle: RigidBodyHandle,
    pose: Pose,
    next: Pose,
    linvel: Vec3,
    angvel: Vec3,
}

/// A game body's hit on a fixed chunk, found after the first run.
#[derive(Copy, Clone, Debug)]
pub(crate) struct ProjectileHit {
    key: (u32, u32, u32, u32),
    body: RigidBodyHandle,
    instance: super::InstanceHandle,
    chunk: u32,
    point: Vec3,
    damage: f32,
}

/// Reused buffers of [`DestructionSet::step_resolving_breaks`].
#[derive(Default)]
pub(crate) struct RerunState {
    saved: Vec<SavedBody>,
    hits: Vec<ProjectileHit>,
    /// (game body, instance, chunk) hits already admitted this step.
    pub(crate) spent: Vec<(RigidBodyHandle, super::InstanceHandle, u32)>,
    /// Freed pieces parting from the fixed part of their instance.
    pub(crate) parting: Vec<Parting>,
    /// Fixed chunk colliders that let parting pieces through.
    pub(crate) parted_from: Vec<ColliderHandle>,
    /// Whether parting pieces were looked for in the world's colliders
    /// (once per set: a set restored from a snapshot of format 4 or older
    /// finds them there, see [`PARTING`]).
    pub(crate) scanned: bool,
    /// Scratch of `end_parting`: what each parting body's contacts say this
    /// step (sorted by body), and the bodies that part on and that stop.
    contacts: Vec<((u32, u32), BodyContact)>,
    on: Vec<RigidBodyHandle>,
    off: Vec<RigidBodyHandle>,
}

/// What [`DestructionSet::end_parting`] learnt of one parting body this
/// step: in contact with a fixed chunk it parted from, deepest overlap (m).
#[derive(Copy, Clone, Default)]
struct BodyContact {
    inside: Option<bool>,
    depth: Option<f32>,
}

/// A piece a projectile freed, passing through the fixed part of its
/// instance while it moves on along the hit (see [`PARTING_STEPS`]).
#[derive(Copy, Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Parting {
    /// One chunk of the piece (every chunk of a parting piece has an
    /// entry, so the parts of a piece that splits go on parting).
    instance: super::InstanceHandle,
    chunk: smithereens_core::ChunkIndex,
    /// Set step index from which it parts only while still inside.
    until: u64,
}

/// Most steps a freed piece parts from the fixed rest of its instance: it is
/// not solved against the instance's fixed chunks while it moves on along
/// the hit at `min_approach_speed` or faster, for at most this many steps
/// (0.2 s at 60 Hz; a piece at 2 m/s clears a 0.3 m wall in 0.15 s).
///
/// Why: Voronoi pieces have tilted faces, so a freed plug is wedged in the
/// hole by the fixed wall around it. Solved against it in the built-in
/// wall, the 450 kg ball pushed the 2 t of freed pieces into the fixed
/// neighbours and bounced back at −3.9 m/s; with parting it goes on at
/// 11 m/s and the momentum of ball + freed pieces is kept.
pub const PARTING_STEPS: u64 = 12;

/// Steps after [`PARTING_STEPS`] a piece still touching the fixed part of
/// its instance goes on parting until it comes out (2 s at 60 Hz). After
/// that it goes on parting only while it is more than [`PARTING_DEPTH`]
/// inside a fixed chunk, and is solved against the fixed part once it is
/// not.
pub const PARTING_LIMIT: u64 = 120;

/// Deepest overlap with the fixed chunks it parted from at which a piece
/// past [`PARTING_LIMIT`] is solved against them again, m (1 cm). A piece
/// still deeper inside goes on parting until the overlap is shallower.
///
/// Why: solving a piece lying 5–10 cm inside a fixed stump pushed it out
/// at up to 6 m/s in one step, and the pieces around it with it: in
/// `tower-gravity` six pieces resting against the stump jumped at 3–6 m/s
/// when their 2 s ran out, and drove a neighbour 19.7 cm into the ground,
/// where it stayed. A piece touching the fixed part, or a few millimetres
/// into it, is pushed out gently by the solver as any contact is.
pub const PARTING_DEPTH: f32 = 0.01;

impl DestructionSet {
    /// Steps the game's world with `step` and runs the safe point, re-running
    /// the step once when a game body broke fixed chunks in it, so that the
    /// solver resolves the hit against the freed pieces (see the module docs
    /// of `set::rerun`). Use it instead of the `before_step` / game step /
    /// [`Self::after_step`] sequence:
    ///
    /// ```ignore
    /// let report = set.step_resolving_breaks(&mut physics, &mut |physics, events| {
    ///     physics.step_with_events(&my_hooks, &BothEvents(&my_events, events));
    /// });
    /// ```
    ///
    /// `step` must run exactly one Rapier step with the given event handler
    /// (combined with the game's own, if any). It is called twice on a
    /// re-run step ([`SetStepReport::rerun`]); the first run's outcome is
    /// discarded except for the hits found in it. Deterministic: the same
    /// world and inputs give the same bits. Cost when nothing is hit: one
    /// copy of the awake bodies' poses and velocities and a look at the
    /// started and watched contact pairs; allocates nothing after warm-up.
    pub fn step_resolving_breaks(
        &mut self,
        physics: &mut PhysicsWorld,
        step: &mut dyn FnMut(&mut PhysicsWorld, &ContactCollector),
    ) -> SetStepReport {
        let mut state = std::mem::take(&mut self.rerun);
        save_awake(physics, &mut state.saved);
        self.before_step(physics);
        step(physics, &self.collector);
        self.find_projectile_hits(physics, &mut state.hits);
        if state.hits.is_empty() {
            self.rerun = state;
            return self.after_step(physics);
        }
        let t0 = Instant::now();
        restore(physics, &state.saved);
        // Motions must be read again from the restored bodies.
        for slot in &mut self.slots {
            if let Some(e) = slot.entry.as_mut() {
                e.synced_at = u64::MAX;
            }
        }
        let mut first = SetStepReport::default();
        state.spent.clear();
        for hit in &state.hits {
            state.spent.push((hit.body, hit.instance, hit.chunk));
            self.admit_contact_event(
                physics,
                hit.instance,
                ChunkIndex(hit.chunk),
                hit.point,
                hit.damage,
                &mut first,
            );
        }
        self.commit_all(physics, &mut first, true);
        self.start_parting(physics, &first, &mut state);
        self.rerun = state;
        self.before_step(physics);
        step(physics, &self.collector);
        let mut report = self.after_step(physics);
        self.rerun.spent.clear();
        merge(&mut report, first);
        report.rerun = true;
        report.rerun_seconds = t0.elapsed().as_secs_f64();
        report
    }

    /// The projectile hits of the step just run (see the module docs), in
    /// collider-pair order. Reads the started queue without taking it.
    fn find_projectile_hits(&self, physics: &PhysicsWorld, hits: &mut Vec<ProjectileHit>) {
        hits.clear();
        let open_speed = self.settings.impact.min_approach_speed;
        let mut consider = |colliders: (ColliderHandle, ColliderHandle),
                            states: [Option<BodyState>; 2]| {
            if self.episodes.contains_key(&pair_key(colliders)) {
                return;
            }
            let tags = (
                self.registry.collider(colliders.0),
                self.registry.collider(colliders.1),
            );
            // Exactly one side is the game's.
            if tags.0.is_some() == tags.1.is_some() {
                return;
            }
            let Some(pair) = physics.narrow_phase.contact_pair(colliders.0, colliders.1) else {
                return;
            };
            let chunk_side = (
                tags.0.is_some_and(|t| t.authoritative_chunk().is_some()),
                tags.1.is_some_and(|t| t.authoritative_chunk().is_some()),
            );
            let Some(hit) =
                ContactHit::from_pair(&physics.bodies, &physics.colliders, pair, chunk_side)
                    .filter(|h| h.point.is_finite())
            else {
                return;
            };
            let states = if hit.colliders == colliders {
                states
            } else {
                [states[1], states[0]]
            };
            let (tag, body) = match (
                self.registry.collider(hit.colliders.0),
                self.registry.collider(hit.colliders.1),
            ) {
                (Some(t), None) if hit.fixed.0 && hit.dynamic.1 => (t, hit.bodies.1),
                (None, Some(t)) if hit.fixed.1 && hit.dynamic.0 => (t, hit.bodies.0),
                _ => return,
            };
            let (Some(chunk), Some(body)) = (tag.authoritative_chunk(), body) else {
                return;
            };
            let v1 = point_velocity(&physics.bodies, hit.bodies.0, states[0], hit.point);
            let v2 = point_velocity(&physics.bodies, hit.bodies.1, states[1], hit.point);
            let approach = (v1 - v2).dot(hit.normal).max(0.0);
            if !(approach >= open_speed && hit.impulse.is_finite() && hit.impulse_on_2.is_finite())
            {
                return;
            }
            let speed = super::step::impact_speed(physics, &hit, states, approach, None);
            let impact = super::episode::impact_impulse(physics, &hit, speed);
            let damage = self.settings.impact.damage(impact, approach);
            if damage > 0.0 && impact.is_finite() {
                hits.push(ProjectileHit {
                    key: hit.key(),
                    body,
                    instance: tag.instance(),
                    chunk,
                    point: hit.point,
                    damage,
                });
            }
        };
        if let Ok(started) = self.collector.started.lock() {
            for p in started.iter() {
                consider(p.colliders, p.states);
            }
        }
        for w in &self.watch {
            consider(w.colliders, w.states);
        }
        hits.sort_unstable_by_key(|h| h.key);
        hits.dedup_by_key(|h| h.key);
    }

    /// Whether `hit` is a game body's contact with a chunk whose hit this
    /// step's re-run already admitted (either collider order).
    pub(crate) fn hit_is_spent(&self, hit: &ContactHit) -> bool {
        let side = |chunk: ColliderHandle, body: Option<RigidBodyHandle>| {
            let Some(tag) = self.registry.collider(chunk) else {
                return false;
            };
            let (Some(c), Some(b)) = (tag.authoritative_chunk(), body) else {
                return false;
            };
            self.rerun.spent.contains(&(b, tag.instance(), c))
        };
        side(hit.colliders.0, hit.bodies.1) || side(hit.colliders.1, hit.bodies.0)
    }
}

/// Solver-group bit of parting pieces (see [`PARTING_STEPS`]); the library
/// sets no other solver groups.
pub const PARTING: Group = Group::GROUP_32;

impl DestructionSet {
    /// The dynamic pieces the re-run's commit created start parting from
    /// the fixed chunks of their instance (see [`PARTING_STEPS`]).
    fn start_parting(
        &self,
        physics: &mut PhysicsWorld,
        first: &SetStepReport,
        state: &mut RerunState,
    ) {
        for (&h, r) in &first.instances {
            if !r.created.is_empty() && state.hits.iter().any(|hit| hit.instance == h) {
                self.part_from_fixed(physics, h, &r.created, state);
            }
        }
    }

    /// The dynamic pieces among `created` (clusters of instance `h` a
    /// commit just made) start parting from the fixed chunks of `h` (see
    /// [`PARTING_STEPS`]): their colliders get the [`PARTING`] solver group,
    /// which the instance's fixed chunk colliders stop solving against.
    /// (Parting from the bonded neighbours only was tried: Voronoi pieces
    /// also touch fixed chunks they share no bond with, at edges and
    /// corners, and the tower's top then stayed locked in place.)
    /// O(clusters of `h` + colliders of its fixed bodies).
    pub(crate) fn part_from_fixed(
        &self,
        physics: &mut PhysicsWorld,
        h: super::InstanceHandle,
        created: &[smithereens_core::ClusterHandle],
        state: &mut RerunState,
    ) {
        let until = self.step_index + PARTING_STEPS;
        let Ok(e) = self.entry(h) else { return };
        let mut created = created.to_vec();
        created.sort_unstable();
        for (c, &rb) in &e.bodies {
            let Some(body) = physics.bodies.get(rb) else {
                continue;
            };
            if body.is_dynamic() && created.binary_search(c).is_ok() {
                if let Some(cluster) = e.instance.cluster(*c) {
                    state
                        .parting
                        .extend(cluster.nodes.iter().map(|&chunk| Parting {
                            instance: h,
                            chunk,
                            until,
                        }));
                }
                set_body_groups(physics, rb, parting_groups());
            } else if body.is_fixed() {
                let before = state.parted_from.len();
                state.parted_from.extend_from_slice(body.colliders());
                for k in before..state.parted_from.len() {
                    if let Some(col) = physics.colliders.get_mut(state.parted_from[k]) {
                        col.set_solver_groups(InteractionGroups::new(
                            Group::ALL,
                            Group::ALL.difference(PARTING),
                            InteractionTestMode::And,
                        ));
                    }
                }
            }
        }
        state
            .parted_from
            .sort_unstable_by_key(|c| c.into_raw_parts());
        state.parted_from.dedup();
    }

    /// Keeps the parting pieces parting (the parts of one that split too)
    /// until [`PARTING_STEPS`] have passed and they are out of the fixed
    /// chunks they parted from (for [`PARTING_LIMIT`] steps more; after
    /// that, until they are at most [`PARTING_DEPTH`] inside), or sooner
    /// once they are out of their hole (moved more than twice their size);
    /// once none is parting, the fixed chunks are restored too.
    /// O(chunks of parting pieces + their bodies' contacts).
    fn end_parting(&self, physics: &mut PhysicsWorld, state: &mut RerunState) {
        if state.parting.is_empty() && state.parted_from.is_empty() {
            return;
        }
        let now = self.step_index;
        let parted_from = &state.parted_from;
        // Bodies whose pieces part on, and bodies with a piece that stopped.
        let (on, off) = (&mut state.on, &mut state.off);
        on.clear();
        off.clear();
        // Whether a body is inside the fixed chunks it parted from, and how
        // deep, asked once per body and step (every chunk of a piece has an
        // entry; asked per entry, a 500-chunk piece walked its 500
        // colliders' contacts 500 times a step). Reused buffers: a piece
        // that stays inside parts on for as long, allocating nothing.
        let contacts = &mut state.contacts;
        contacts.clear();
        state.parting.retain(|p| {
            let Ok(e) = self.entry(p.instance) else {
                return false;
            };
            let Some((cluster, rb)) = e
                .instance
                .cluster_of(p.chunk)
                .and_then(|c| e.bodies.get(&c).map(|&rb| (c, rb)))
            else {
                return false;
            };
            let Some(body) = physics.bodies.get(rb).filter(|b| b.is_dynamic()) else {
                return false;
            };
            // Its contact pairs with the fixed chunks it parted from.
            let narrow_phase = &physics.narrow_phase;
            let parted_pairs = || {
                body.colliders().iter().flat_map(move |&ch| {
                    narrow_phase.contact_pairs_with(ch).filter(move |pair| {
                        let other = if pair.collider1 == ch {
                            pair.collider2
                        } else {
                            pair.collider1
                        };
                        parted_from
                            .binary_search_by_key(&other.into_raw_parts(), |c| c.into_raw_parts())
                            .is_ok()
                    })
                })
            };
            let inside = || parted_pairs().any(|pair| pair.has_any_active_contact());
            // Deepest overlap with a fixed chunk it parted from, m.
            let depth = || {
                parted_pairs()
                    .flat_map(|pair| pair.manifolds())
                    .flat_map(|m| &m.points)
                    .fold(0.0f32, |deepest, pt| deepest.max(-pt.dist))
            };
            // Out of its hole: the chunk moved more than twice its size from
            // where the instance placed it (its fixed neighbours never
            // move). From there on it is solved against the fixed part
            // again, so a piece that falls onto the structure's base lands
            // on it instead of sinking through it into the ground (the
            // tower's debris reached y = −0.70 m so).
            let left = self
                .cluster_asset_pose(physics, p.instance, cluster)
                .zip(e.instance.asset().chunks().get(p.chunk))
                .is_some_and(|(pose, chunk)| {
                    let placed = e.instance.placement();
                    pose.transform_point(chunk.centroid)
                        .distance(placed.transform_point(chunk.centroid))
                        > 2.0 * chunk.volume.cbrt()
                });
            let key = rb.into_raw_parts();
            let at = match contacts.binary_search_by_key(&key, |(k, _)| *k) {
                Ok(i) => i,
                Err(i) => {
                    contacts.insert(i, (key, BodyContact::default()));
                    i
                }
            };
            let known = &mut contacts[at].1;
            let keep = !left
                && (now < p.until
                    || (now < p.until + PARTING_LIMIT && *known.inside.get_or_insert_with(inside))
                    || (now >= p.until + PARTING_LIMIT
                        && *known.depth.get_or_insert_with(depth) > PARTING_DEPTH));
            if keep {
                on.push(rb)
            } else {
                off.push(rb)
            }
            keep
        });
        on.sort_unstable_by_key(|rb| rb.into_raw_parts());
        on.dedup();
        off.sort_unstable_by_key(|rb| rb.into_raw_parts());
        off.dedup();
        for &rb in off.iter() {
            if on
                .binary_search_by_key(&rb.into_raw_parts(), |h| h.into_raw_parts())
                .is_err()
            {
                set_body_groups(physics, rb, InteractionGroups::all());
            }
        }
        for &rb in on.iter() {
            set_body_groups(physics, rb, parting_groups());
        }
        if state.parting.is_empty() {
            for ch in state.parted_from.drain(..) {
                if let Some(col) = physics.colliders.get_mut(ch) {
                    col.set_solver_groups(InteractionGroups::all());
                }
            }
        }
    }
}

impl DestructionSet {
    /// At every safe point ([`Self::after_step`], whichever stepper): parting
    /// pieces that are done part no more, and the parts of a parting piece
    /// that split go on parting. Nothing to do (the usual case): O(1).
    pub(crate) fn update_parting(&mut self, physics: &mut PhysicsWorld) {
        if self.rerun.scanned && self.rerun.parting.is_empty() && self.rerun.parted_from.is_empty()
        {
            return;
        }
        let mut state = std::mem::take(&mut self.rerun);
        if !state.scanned {
            self.find_parting(physics, &mut state);
        }
        self.end_parting(physics, &mut state);
        self.rerun = state;
    }

    /// Finds parting pieces and the fixed chunks they part from by their
    /// solver groups, for a set restored from a snapshot (which does not
    /// keep the parting list): they part on while they are inside, as after
    /// [`PARTING_STEPS`]. A snapshot taken within a piece's first
    /// [`PARTING_STEPS`] steps therefore resumes with shorter parting, not
    /// bit for bit. O(library colliders), once per set.
    fn find_parting(&self, physics: &PhysicsWorld, state: &mut RerunState) {
        state.scanned = true;
        for (i, slot) in self.slots.iter().enumerate() {
            let Some(e) = slot.entry.as_ref() else {
                continue;
            };
            let h = super::InstanceHandle::from_raw_parts(i as u32, slot.generation);
            for (c, &rb) in &e.bodies {
                let Some(body) = physics.bodies.get(rb) else {
                    continue;
                };
                for &ch in body.colliders() {
                    let Some(g) = physics.colliders.get(ch).map(|c| c.solver_groups()) else {
                        continue;
                    };
                    if body.is_dynamic() && g == parting_groups() {
                        if let Some(cluster) = e.instance.cluster(*c) {
                            state
                                .parting
                                .extend(cluster.nodes.iter().map(|&chunk| Parting {
                                    instance: h,
                                    chunk,
                                    until: self.step_index,
                                }));
                        }
                        break;
                    }
                    if body.is_fixed() && !g.filter.contains(PARTING) {
                        state.parted_from.push(ch);
                    }
                }
            }
        }
        state
            .parted_from
            .sort_unstable_by_key(|c| c.into_raw_parts());
        state.parted_from.dedup();
    }
}

/// Solver groups of a parting piece's colliders.
fn parting_groups() -> InteractionGroups {
    InteractionGroups::new(PARTING, Group::ALL, InteractionTestMode::And)
}

/// Sets the solver groups of every collider of a body (where they differ).
fn set_body_groups(physics: &mut PhysicsWorld, rb: RigidBodyHandle, groups: InteractionGroups) {
    let PhysicsWorld {
        bodies, colliders, ..
    } = physics;
    let Some(body) = bodies.get(rb) else { return };
    for &ch in body.colliders() {
        if let Some(col) = colliders.get_mut(ch)
            && col.solver_groups() != groups
        {
            col.set_solver_groups(groups);
        }
    }
}

/// Saves the pose and velocity of every awake body in `saved` (cleared first).
fn save_awake(physics: &PhysicsWorld, saved: &mut Vec<SavedBody>) {
    saved.clear();
    for h in physics.islands.active_bodies() {
        if let Some(b) = physics.bodies.get(h) {
            saved.push(SavedBody {
                handle: h,
                pose: *b.position(),
                next: *b.next_position(),
                linvel: b.linvel(),
                angvel: b.angvel(),
            });
        }
    }
}

/// Puts every saved body that still exists back to its saved state, awake.
fn restore(physics: &mut PhysicsWorld, saved: &[SavedBody]) {
    for s in saved {
        let Some(b) = physics.bodies.get_mut(s.handle) else {
            continue;
        };
        b.set_position(s.pose, false);
        if b.body_type() == RigidBodyType::KinematicPositionBased {
            b.set_next_kinematic_position(s.next);
        } else {
            b.set_linvel(s.linvel, false);
            b.set_angvel(s.angvel, false);
        }
        if b.is_sleeping() {
            b.wake_up(true);
        }
    }
}

/// Adds what the first half of a re-run step did (its admissions and commit)
/// to the report of the second, first things first. Every field is named
/// (no `..`), so a field added to the reports cannot be forgotten here (the
/// first half's `shrunk` once was).
fn merge(report: &mut SetStepReport, first: SetStepReport) {
    let SetStepReport {
        instances,
        failed,
        quarantined,
        rejected_contacts,
        pre_step_missing,
        moved,
        destruction_seconds,
        rerun: _,
        rerun_seconds: _,
        stress_errors,
    } = first;
    for (h, r) in instances {
        let InstanceReport {
            events,
            broken,
            removed,
            created,
            shrunk,
            render_only,
            recycled,
            wedged,
            deferred,
            throttled,
            records,
            stress,
        } = r;
        let into = report.instances.entry(h).or_default();
        prepend(&mut into.events, events);
        prepend(&mut into.broken, broken);
        prepend(&mut into.removed, removed);
        prepend(&mut into.created, created);
        prepend(&mut into.shrunk, shrunk);
        prepend(&mut into.render_only, render_only);
        prepend(&mut into.recycled, recycled);
        prepend(&mut into.wedged, wedged);
        prepend(&mut into.records, records);
        if into.deferred.is_none() {
            into.deferred = deferred;
        }
        if into.throttled.is_none() {
            into.throttled = throttled;
        }
        if into.stress.is_none() {
            into.stress = stress;
        }
    }
    prepend(&mut report.stress_errors, stress_errors);
    prepend(&mut report.failed, failed);
    prepend(&mut report.quarantined, quarantined);
    prepend(&mut report.moved.joints, moved.joints);
    prepend(&mut report.moved.colliders, moved.colliders);
    report.rejected_contacts += rejected_contacts;
    report.pre_step_missing |= pre_step_missing;
    report.destruction_seconds += destruction_seconds;
}

/// `into = first ++ into`.
fn prepend<T>(into: &mut Vec<T>, mut first: Vec<T>) {
    first.append(into);
    *into = first;
}
