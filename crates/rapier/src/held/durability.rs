//! Durability of held parts (held-projectile seed, 預載彈耐久語意 and
//! 可選彈體獨立耐久; issue 14 item 3).
//!
//! **Contacts.** After every step of the world the game calls
//! [`HeldParts::after_step`]: it reads, from Rapier's narrow phase, the
//! contact pairs of every enabled holding collider and runs them through
//! the library's contact-episode model, the same functions as
//! [`crate::DestructionSet`] (see [`crate::impact`]): an episode opens when
//! the pair exchanged impulse after approaching at
//! [`crate::ImpactDamage::min_approach_speed`] or faster, and when it ends
//! its impact impulse `J = m_eff·(1 + e)·v_n` (N·s) becomes
//! `D = damage_per_impulse · (J − threshold)` du
//! ([`crate::ImpactDamage::damage`]). There is no second formula.
//!
//! Approach speeds need the bodies' velocities *before* the step; held
//! parts record them at the end of [`HeldParts::after_step`], at a launch or
//! a break, and in [`HeldParts::before_step`] (call it when the game
//! changed velocities between steps). A dynamic body that was not near a
//! holding collider at the last record (a fast projectile from afar) is
//! measured at its current velocity with the contact's own impulse taken
//! back out (exact when it touched nothing else in the step).
//!
//! **Own projectiles.** A contact between a holding collider and a part
//! launched from any launcher on the same parent (the vehicle's own
//! projectile, leaving the barrel or falling back) deals no damage; the game
//! applies its own rule to such a hit with [`HeldParts::damage_weapon`].
//!
//! **Where damage goes.** Default: a held part has no durability of its own;
//! a contact on its holding collider damages the weapon part that holds it.
//! With [`super::LauncherDesc::independent_durability`], it damages that
//! part only, and the weapon's health is that of its non-projectile parts
//! ([`super::LauncherDesc::weapon_max_health`]). The game queues its own
//! damage (heat, fatigue, hits on the weapon's other colliders) with
//! [`HeldParts::damage_weapon`] and [`HeldParts::damage_part`].
//!
//! **Frame-end commit** ([`HeldParts::commit_damage`], once per frame after
//! the frame's steps): launcher by launcher, each held part's queued damage
//! (independent durability) lowers its health; at 0 the part breaks: its
//! holding collider is disabled, its body stays disabled and its mass leaves
//! the parent. Then the weapon's queued damage lowers the weapon's health;
//! at 0 the weapon breaks and every unfired part is disabled (both modes).
//! Launch order skips broken parts; ammunition counts parts neither launched
//! nor broken ([`HeldParts::next_ready`], [`HeldParts::ammunition`]).
//!
//! **Same frame** (seed 同幀判定): a launch is decided when the frame's input
//! is processed, damage commits at frame end; a part launched earlier in the
//! frame is no longer the weapon's and no damage of that frame reaches it.
//!
//! **Reports.** The commit appends [`HeldDamageEvent`]s in launcher, then
//! part, then weapon order; every event about a held part is flagged
//! [`HeldDamageEvent::ammunition`] (seed 歸因: ammunition breaking is a
//! damage event but no kill, destruction count or statistic).

use super::{HeldError, HeldParts, LauncherId, PartStatus, disable_holding};
use crate::set::contact::{BodyState, ContactHit, pair_key, point_velocity};
use crate::set::episode::{Episodes, accumulate, impact_impulse, take_ended};
use rapier3d::prelude::*;
use serde::{Deserialize, Serialize};

/// One holding collider's hit of a step, for merging a weapon's contacts:
/// (merged pair key, merged colliders, the hit, approach speed, pre-step states).
pub(crate) type WeaponHit = (
    (u32, u32, u32, u32),
    (ColliderHandle, ColliderHandle),
    ContactHit,
    f32,
    [Option<BodyState>; 2],
);

/// What a [`HeldDamageEvent`] is about.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DamageTarget {
    /// The weapon part of the launcher.
    Weapon,
    /// A held part (projectile index).
    Projectile(u32),
}

/// One result of a frame-end damage commit.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeldDamageEvent {
    /// The launcher.
    pub launcher: LauncherId,
    /// The weapon or one of its held parts.
    pub target: DamageTarget,
    /// Damage committed this frame, du (0 for a part disabled because its
    /// weapon broke).
    pub damage: f32,
    /// Health after the commit, du.
    pub health: f32,
    /// The target broke in this commit.
    pub broken: bool,
    /// The target is ammunition (a held part): statistics leave it out.
    pub ammunition: bool,
    /// The frame committed.
    pub frame: u64,
}

/// Contact bookkeeping of held parts between steps: open contact episodes
/// and the bodies' velocities recorded for the next step. Part of
/// [`super::HeldState`]; opaque (checked on restore).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HeldContacts {
    /// Steps seen ([`HeldParts::after_step`] calls).
    pub(crate) step: u64,
    /// Open episodes of pairs with a holding collider, by pair key.
    pub(crate) episodes: Episodes,
    /// Velocities at the last record, sorted by body handle.
    pub(crate) states: Vec<(RigidBodyHandle, BodyState)>,
}

impl HeldContacts {
    /// Contact episodes still open (their damage is not queued yet).
    pub fn open_episodes(&self) -> usize {
        self.episodes.len()
    }

    /// Whether every number is finite and every episode is in the past.
    pub(crate) fn is_valid(&self) -> bool {
        let ok = |x: f32| x.is_finite() && x >= 0.0;
        self.episodes.values().all(|e| {
            ok(e.impulse)
                && ok(e.approach)
                && ok(e.impact)
                && e.impulse_on_2.is_finite()
                && e.last_step <= self.step
        }) && self
            .states
            .iter()
            .all(|(_, s)| s.linvel.is_finite() && s.angvel.is_finite() && s.com.is_finite())
            && self.states.windows(2).all(|w| key(w[0].0) < key(w[1].0))
    }
}

/// The pre-step state of a dynamic body that was not recorded (it came
/// from farther than a holding collider's contact pairs reach within one
/// step, a fast projectile): its state now with this contact's impulse
/// (`impulse` on it, N·s, at the contacts' centroid) taken back out,
/// `v − J/m` and `ω − I⁻¹ (r × J)`. Exact for a body that touched nothing
/// else in the step; without it the approach would be read from the
/// velocity *after* the bounce, and the hit would deal nothing.
fn unwound(
    physics: &PhysicsWorld,
    body: Option<RigidBodyHandle>,
    hit: &ContactHit,
    impulse: glam::Vec3,
) -> Option<BodyState> {
    let b = physics.bodies.get(body?).filter(|b| b.is_dynamic())?;
    let now = BodyState::of(Some(b))?;
    let m = b.mass_properties();
    let torque = (hit.centroid - now.com).cross(impulse);
    Some(BodyState {
        linvel: now.linvel - impulse * m.effective_inv_mass,
        angvel: now.angvel - m.effective_world_inv_inertia * torque,
        com: now.com,
    })
}

/// Whether `body` is a part launched by a launcher on `parent` (the
/// parent's own projectile). O(parts on the world's launchers).
fn launched_from(
    launchers: &[super::Launcher],
    parent: RigidBodyHandle,
    body: RigidBodyHandle,
) -> bool {
    launchers.iter().filter(|l| l.parent == parent).any(|l| {
        l.handles
            .iter()
            .zip(&l.status)
            .any(|(h, s)| *s == PartStatus::Launched && h.body == body)
    })
}

fn key(h: RigidBodyHandle) -> (u32, u32) {
    h.into_raw_parts()
}

fn state_of(
    states: &[(RigidBodyHandle, BodyState)],
    body: Option<RigidBodyHandle>,
) -> Option<BodyState> {
    let b = body?;
    states
        .binary_search_by_key(&key(b), |(h, _)| key(*h))
        .ok()
        .map(|i| states[i].1)
}

impl HeldParts {
    /// No launchers; contact damage with `impact`.
    ///
    /// # Errors
    /// [`crate::BackendError::BadSetting`] from [`crate::ImpactDamage::validate`].
    pub fn with_impact(impact: crate::ImpactDamage) -> Result<Self, crate::BackendError> {
        impact.validate()?;
        Ok(Self {
            impact,
            ..Self::default()
        })
    }

    /// Replaces the impulse → damage mapping (a configuration, not part of
    /// [`super::HeldState`]); open episodes keep their measured impulses.
    ///
    /// # Errors
    /// [`crate::BackendError::BadSetting`]; nothing changes on error.
    pub fn set_impact(&mut self, impact: crate::ImpactDamage) -> Result<(), crate::BackendError> {
        impact.validate()?;
        self.impact = impact;
        Ok(())
    }

    /// The impulse → damage mapping of contacts on holding colliders.
    pub fn impact(&self) -> &crate::ImpactDamage {
        &self.impact
    }

    /// Contact bookkeeping (open episodes, recorded velocities).
    pub fn contacts(&self) -> &HeldContacts {
        &self.contacts
    }

    /// The frame in progress: frames committed so far.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// The weapon's health, du.
    pub fn weapon_health(&self, launcher: LauncherId) -> Option<f32> {
        self.launcher(launcher).ok().map(|l| l.weapon_health)
    }

    /// The frame in which the weapon broke, if it did.
    pub fn weapon_broken(&self, launcher: LauncherId) -> Option<u64> {
        self.launcher(launcher).ok().and_then(|l| l.weapon_broken)
    }

    /// A part's own health, du (stays full without independent durability).
    pub fn part_health(&self, launcher: LauncherId, projectile: u32) -> Option<f32> {
        let l = self.launcher(launcher).ok()?;
        l.health.get(projectile as usize).copied()
    }

    /// The frame in which a part broke, if it did.
    pub fn break_frame(&self, launcher: LauncherId, projectile: u32) -> Option<u64> {
        let l = self.launcher(launcher).ok()?;
        l.break_frame.get(projectile as usize).copied().flatten()
    }

    /// Damage queued for the weapon and for each part this frame, du.
    pub fn pending_damage(&self, launcher: LauncherId) -> Option<(f32, &[f32])> {
        let l = self.launcher(launcher).ok()?;
        Some((l.weapon_pending, &l.pending))
    }

    /// Queues `damage` du on the weapon (the game's own sources: heat,
    /// fatigue, hits on its non-projectile colliders); it commits at frame
    /// end. Dropped if the weapon is already broken.
    ///
    /// # Errors
    /// [`HeldError::BadDamage`] if `damage` is negative or not finite,
    /// [`HeldError::UnknownLauncher`]. Nothing changes on error.
    pub fn damage_weapon(&mut self, launcher: LauncherId, damage: f32) -> Result<(), HeldError> {
        check_damage(damage)?;
        self.launcher(launcher)?;
        let l = &mut self.launchers[launcher.0 as usize];
        if l.weapon_broken.is_none() {
            l.weapon_pending += damage;
        }
        Ok(())
    }

    /// Queues `damage` du on a held part; it commits at frame end. Without
    /// independent durability the part has none of its own and the damage
    /// goes to its weapon.
    ///
    /// # Errors
    /// [`HeldError::BadDamage`], or as [`Self::launch`] for an unknown,
    /// out-of-range, launched or broken part. Nothing changes on error.
    pub fn damage_part(
        &mut self,
        launcher: LauncherId,
        projectile: u32,
        damage: f32,
    ) -> Result<(), HeldError> {
        check_damage(damage)?;
        self.held_part(launcher, projectile)?;
        self.queue(launcher.0 as usize, projectile as usize, damage);
        Ok(())
    }

    /// Queues contact damage on whatever a holding collider's part counts for.
    fn queue(&mut self, li: usize, pi: usize, damage: f32) {
        let Some(l) = self.launchers.get_mut(li) else {
            return;
        };
        if l.desc.independent_durability {
            if l.status.get(pi) == Some(&PartStatus::Held) {
                l.pending[pi] += damage;
            }
        } else if l.weapon_broken.is_none() {
            l.weapon_pending += damage;
        }
    }

    /// Records the velocities of the launchers' parents and of the dynamic
    /// bodies near their holding colliders, as the pre-step velocities of
    /// the next step (see the module docs). Call it just before a step when
    /// the game changed velocities since the last [`Self::after_step`].
    /// O(held parts × their narrow-phase pairs); no allocation once warm.
    pub fn before_step(&mut self, physics: &PhysicsWorld) {
        self.record_states(physics);
    }

    pub(crate) fn record_states(&mut self, physics: &PhysicsWorld) {
        let states = &mut self.contacts.states;
        states.clear();
        let mut push = |h: Option<RigidBodyHandle>| {
            if let Some(h) = h
                && let Some(s) = BodyState::of(physics.bodies.get(h))
            {
                states.push((h, s));
            }
        };
        for l in &self.launchers {
            push(Some(l.parent));
            for (h, s) in l.handles.iter().zip(&l.status) {
                if *s != PartStatus::Held {
                    continue;
                }
                for pair in physics.narrow_phase.contact_pairs_with(h.holding) {
                    let other = if pair.collider1 == h.holding {
                        pair.collider2
                    } else {
                        pair.collider1
                    };
                    push(physics.colliders.get(other).and_then(|c| c.parent()));
                }
            }
        }
        states.sort_unstable_by_key(|(h, _)| key(*h));
        states.dedup_by_key(|(h, _)| key(*h));
    }

    /// Reads the contacts of every enabled holding collider after a step of
    /// the world and queues the damage of the contact episodes that ended
    /// (see the module docs). Call it after every step (with
    /// [`crate::BoundedStepper`], once per frame: it sees the last
    /// segment's contacts). Cost O(held parts × their narrow-phase pairs);
    /// allocates only when an episode opens.
    ///
    /// ```
    /// use rapier3d::prelude::*;
    /// use smithereens_rapier::{HeldPartDesc, HeldParts, LauncherDesc, PartMaterial, PartShape};
    /// use std::sync::Arc;
    ///
    /// let mut physics = PhysicsWorld::new();
    /// let (parent, _) = physics.insert(
    ///     RigidBodyBuilder::dynamic(),
    ///     ColliderBuilder::cuboid(1.0, 0.5, 1.0).mass(100.0),
    /// );
    /// let part = HeldPartDesc {
    ///     shape: PartShape::Ball { radius: 0.1 },
    ///     material: PartMaterial::default(),
    ///     mass: 2.0,
    ///     pose: Pose::from_translation(Vector::new(1.2, 0.0, 0.0)),
    ///     health: 50.0,
    /// };
    /// let desc = LauncherDesc {
    ///     weapon: 0,
    ///     parts: vec![part],
    ///     independent_durability: true,
    ///     weapon_health: 400.0,
    /// };
    /// let mut held = HeldParts::new();
    /// let launcher = held.add_launcher(&mut physics, parent, Arc::new(desc))?;
    /// let mut events = Vec::new();
    /// // The game's frame: input (launches), the step, then the safe points.
    /// physics.step();
    /// held.after_step(&physics);
    /// held.commit_damage(&mut physics, &mut events);
    /// assert_eq!(held.ammunition(launcher), 1);
    /// # Ok::<(), smithereens_rapier::HeldError>(())
    /// ```
    pub fn after_step(&mut self, physics: &PhysicsWorld) {
        self.contacts.step += 1;
        let step = self.contacts.step;
        let open_speed = self.impact.min_approach_speed;
        let speeds = (open_speed, open_speed * crate::impact::CONTINUE_FRACTION);
        let episodes = &mut self.contacts.episodes;
        let states = &self.contacts.states;
        let mut merged = std::mem::take(&mut self.weapon_hits);
        for l in &self.launchers {
            // Without independent durability the weapon is one rigid part:
            // its holding colliders touching one collider in one step are one
            // contact of the weapon (keyed by the first part's holding
            // collider), else four parts meeting a wall dealt the weapon four
            // impacts, each with the whole parent's effective mass.
            let weapon_key = (!l.desc.independent_durability)
                .then(|| l.handles.first().map(|h| h.holding))
                .flatten();
            merged.clear();
            for (h, s) in l.handles.iter().zip(&l.status) {
                if *s != PartStatus::Held {
                    continue;
                }
                for pair in physics.narrow_phase.contact_pairs_with(h.holding) {
                    // The contact point is taken on the holding collider's side.
                    let side = (pair.collider1 == h.holding, pair.collider2 == h.holding);
                    let Some(hit) =
                        ContactHit::from_pair(&physics.bodies, &physics.colliders, pair, side)
                    else {
                        continue;
                    };
                    if !hit.point.is_finite() {
                        continue;
                    }
                    // The vehicle's own projectiles never damage its weapons.
                    let other = if side.0 { hit.bodies.1 } else { hit.bodies.0 };
                    if other.is_some_and(|b| launched_from(&self.launchers, l.parent, b)) {
                        continue;
                    }
                    let pre = [
                        state_of(states, hit.bodies.0)
                            .or_else(|| unwound(physics, hit.bodies.0, &hit, -hit.impulse_on_2)),
                        state_of(states, hit.bodies.1)
                            .or_else(|| unwound(physics, hit.bodies.1, &hit, hit.impulse_on_2)),
                    ];
                    let v1 = point_velocity(&physics.bodies, hit.bodies.0, pre[0], hit.point);
                    let v2 = point_velocity(&physics.bodies, hit.bodies.1, pre[1], hit.point);
                    let approach = (v1 - v2).dot(hit.normal).max(0.0);
                    match weapon_key {
                        Some(w) => {
                            let mut key = hit.colliders;
                            if side.0 {
                                key.0 = w;
                            } else {
                                key.1 = w;
                            }
                            merged.push((pair_key(key), key, hit, approach, pre));
                        }
                        None => accumulate(episodes, &hit, approach, step, speeds, || {
                            let speed =
                                crate::set::step::impact_speed(physics, &hit, pre, approach, None);
                            impact_impulse(physics, &hit, speed)
                        }),
                    }
                }
            }
            // One contact per weapon and other collider: the hit with the
            // largest impulse stands for the group (its point and normal give
            // the impact), carrying the group's summed impulses and fastest
            // approach. Sorted by key, then impulse: deterministic.
            merged.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.2.impulse.total_cmp(&b.2.impulse)));
            let mut k = 0;
            while k < merged.len() {
                let mut end = k + 1;
                while end < merged.len() && merged[end].0 == merged[k].0 {
                    end += 1;
                }
                let group = &merged[k..end];
                let (_, key, best, _, pre) = group[group.len() - 1];
                let approach = group.iter().map(|g| g.3).fold(0.0f32, f32::max);
                let mut keyed = best;
                keyed.colliders = key;
                keyed.impulse = group.iter().map(|g| g.2.impulse).sum();
                keyed.impulse_on_2 = group.iter().map(|g| g.2.impulse_on_2).sum();
                accumulate(episodes, &keyed, approach, step, speeds, || {
                    let speed = crate::set::step::impact_speed(physics, &best, pre, approach, None);
                    impact_impulse(physics, &best, speed)
                });
                k = end;
            }
        }
        self.weapon_hits = merged;
        let mut ended = std::mem::take(&mut self.ended);
        ended.clear();
        take_ended(&mut self.contacts.episodes, step, &mut ended);
        for ep in &ended {
            let damage = self.impact.damage(ep.impact, ep.approach);
            if !(damage > 0.0) {
                continue;
            }
            for c in [ep.first.colliders.0, ep.first.colliders.1] {
                if let Some((li, pi)) = self.locate(c) {
                    self.queue(li, pi, damage);
                }
            }
        }
        self.ended = ended;
        self.record_states(physics);
    }

    /// Launcher and projectile index of a holding collider.
    fn locate(&self, collider: ColliderHandle) -> Option<(usize, usize)> {
        self.launchers.iter().enumerate().find_map(|(li, l)| {
            l.handles
                .iter()
                .position(|h| h.holding == collider)
                .map(|pi| (li, pi))
        })
    }

    /// The frame-end damage commit (see the module docs): queued damage
    /// lowers health, parts and weapons at 0 break in this call (holding
    /// colliders disabled, their mass leaves the parent), events are
    /// **appended** to `out`, then the frame counter advances. Allocates
    /// only if `out` must grow.
    pub fn commit_damage(&mut self, physics: &mut PhysicsWorld, out: &mut Vec<HeldDamageEvent>) {
        let frame = self.frame;
        let mut changed = false;
        for li in 0..self.launchers.len() {
            let launcher = LauncherId(li as u32);
            let l = &mut self.launchers[li];
            for pi in 0..l.status.len() {
                let damage = std::mem::take(&mut l.pending[pi]);
                if !(damage > 0.0) || l.status[pi] != PartStatus::Held {
                    continue;
                }
                let health = (l.health[pi] - damage).max(0.0);
                l.health[pi] = health;
                let broken = health <= 0.0;
                if broken {
                    disable_holding(physics, l.handles[pi].holding);
                    l.status[pi] = PartStatus::Broken;
                    l.break_frame[pi] = Some(frame);
                    changed = true;
                }
                out.push(HeldDamageEvent {
                    launcher,
                    target: DamageTarget::Projectile(pi as u32),
                    damage,
                    health,
                    broken,
                    ammunition: true,
                    frame,
                });
            }
            let damage = std::mem::take(&mut l.weapon_pending);
            if !(damage > 0.0) || l.weapon_broken.is_some() {
                continue;
            }
            l.weapon_health = (l.weapon_health - damage).max(0.0);
            let broken = l.weapon_health <= 0.0;
            out.push(HeldDamageEvent {
                launcher,
                target: DamageTarget::Weapon,
                damage,
                health: l.weapon_health,
                broken,
                ammunition: false,
                frame,
            });
            if !broken {
                continue;
            }
            l.weapon_broken = Some(frame);
            changed = true;
            for pi in 0..l.status.len() {
                if l.status[pi] != PartStatus::Held {
                    continue;
                }
                disable_holding(physics, l.handles[pi].holding);
                l.status[pi] = PartStatus::Broken;
                l.break_frame[pi] = Some(frame);
                out.push(HeldDamageEvent {
                    launcher,
                    target: DamageTarget::Projectile(pi as u32),
                    damage: 0.0,
                    health: l.health[pi],
                    broken: true,
                    ammunition: true,
                    frame,
                });
            }
        }
        self.frame += 1;
        if changed {
            self.record_states(physics);
        }
    }
}

fn check_damage(damage: f32) -> Result<(), HeldError> {
    if damage.is_finite() && damage >= 0.0 {
        Ok(())
    } else {
        Err(HeldError::BadDamage(damage))
    }
}
