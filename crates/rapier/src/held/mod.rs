//! Held parts: projectiles preloaded in a launcher, held by their parent
//! body as colliders and switched to their own body at launch
//! (held-projectile seed, 決定 › 持彈碰撞體切換; issue 14 items 1, 2, 4).
//!
//! For every part of a [`LauncherDesc`], [`HeldParts::add_launcher`] puts two
//! things in the game's world at creation:
//! - a **holding collider** on the parent body: the part's shape, material and
//!   mass at its authored pose, so the parent carries the part's mass and
//!   the part collides as part of the parent; its ownership is recorded as
//!   [`HoldingOwner`] (parent body, weapon part index, projectile index);
//! - the part's **own body and collider** (same shape, material, mass), created
//!   disabled: it takes no part in the simulation until launch.
//!
//! There is no joint: a part held by a fixed joint is solved iteratively and
//! its anchor error can keep a bounded stepper subdividing every frame (the
//! seed's 001077 case: 26–46 trials per frame, 200–260 ms per world step).
//!
//! [`HeldParts::launch`] is [`crate::detach::detach_collider`]: the holding
//! collider leaves the parent and the part's body takes over at the same
//! world pose and point velocity, then the launch impulse and its recoil.
//! Unfired parts are drawn at the authored pose relative to the parent
//! ([`HeldParts::held_poses`]), never read from the disabled bodies.
//! Durability (`durability.rs`, issue 14 item 3): contacts on holding
//! colliders become damage through the library's impact model
//! ([`crate::ImpactDamage`]), to the weapon by default or to each part with
//! [`LauncherDesc::independent_durability`]; it commits at frame end
//! ([`HeldParts::commit_damage`]).
//! Rollback: [`HeldParts::state`] / [`HeldParts::restore`] (`rollback.rs`).
//!
//! Units: metres, kilograms, seconds, impulses in N·s, damage and health in du.

use crate::detach::{DetachError, Detached, detach_collider};
use rapier3d::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

mod durability;
mod rollback;
mod spec;

pub use durability::{DamageTarget, HeldContacts, HeldDamageEvent};
pub use rollback::{HeldState, LauncherRecord, PartRecord, RollbackError};
pub use spec::{
    DEFAULT_PART_HEALTH, DEFAULT_WEAPON_HEALTH, HeldPartDesc, LauncherDesc, MAX_PART_MASS,
    MAX_PART_OFFSET, MIN_PART_MASS, PartMaterial, PartShape,
};

/// Who holds a holding collider: recorded at creation, kept in snapshots.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HoldingOwner {
    /// The parent body the collider is attached to.
    pub parent: RigidBodyHandle,
    /// The weapon part index on the parent ([`LauncherDesc::weapon`]).
    pub weapon: u32,
    /// The projectile index in the launcher ([`LauncherDesc::parts`]).
    pub projectile: u32,
}

/// Index of a launcher in its [`HeldParts`], in creation order.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct LauncherId(pub u32);

impl std::fmt::Display for LauncherId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// "projectile N", or "weapon" for `None` (error messages).
pub(crate) fn part_name(projectile: Option<u32>) -> String {
    projectile.map_or_else(|| "weapon".to_owned(), |p| format!("projectile {p}"))
}

/// Where a held part is in its life.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PartStatus {
    /// Held: the holding collider is enabled, the part's body disabled.
    Held,
    /// Launched: the holding collider is disabled, the part's body enabled.
    Launched,
    /// Broken before launch (its own durability, or its weapon broke): both disabled.
    Broken,
}

/// Why a held-part operation was refused. Nothing was changed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum HeldError {
    /// A part's mass is NaN or outside [[`MIN_PART_MASS`], [`MAX_PART_MASS`]]
    /// (≤ 0 and infinite included).
    #[error(
        "projectile {projectile}: mass {mass} kg is outside [{MIN_PART_MASS}, {MAX_PART_MASS}] kg"
    )]
    BadMass {
        /// Projectile index.
        projectile: u32,
        /// The mass given, kg.
        mass: f32,
    },
    /// A part's shape has a non-positive or non-finite dimension.
    #[error("projectile {projectile}: shape dimensions must be positive and finite")]
    BadShape {
        /// Projectile index.
        projectile: u32,
    },
    /// A part's friction is negative or not finite, or restitution is outside [0, 1].
    #[error("projectile {projectile}: friction must be ≥ 0 and restitution in [0, 1]")]
    BadMaterial {
        /// Projectile index.
        projectile: u32,
    },
    /// A part's authored pose is not finite or its rotation is not a unit quaternion.
    #[error("projectile {projectile}: authored pose is not finite or not normalised")]
    BadPose {
        /// Projectile index.
        projectile: u32,
    },
    /// A part's authored position is farther from its parent than [`MAX_PART_OFFSET`].
    #[error(
        "projectile {projectile}: authored pose is {distance} m from its parent (limit {limit} m)"
    )]
    TooFar {
        /// Projectile index.
        projectile: u32,
        /// Distance from the parent's origin, m.
        distance: f32,
        /// The limit, m.
        limit: f32,
    },
    /// A health is ≤ 0, NaN or infinite (`projectile: None` for the weapon).
    #[error("{}: health {health} du is not positive and finite", part_name(*projectile))]
    BadHealth {
        /// Projectile index, `None` for the weapon.
        projectile: Option<u32>,
        /// The health given, du.
        health: f32,
    },
    /// A damage amount is negative, NaN or infinite.
    #[error("damage {0} du is not finite and ≥ 0")]
    BadDamage(f32),
    /// More parts than a `u32` index can name.
    #[error("too many parts in one launcher")]
    TooManyParts,
    /// The parent body is not in the world.
    #[error("parent body {0:?} is not in the world")]
    UnknownParent(RigidBodyHandle),
    /// The parent already has a launcher on this weapon part index
    /// (ownership would be ambiguous).
    #[error("weapon part {weapon} of this parent already holds launcher {launcher}")]
    WeaponTaken {
        /// The weapon part index asked for.
        weapon: u32,
        /// The launcher on it.
        launcher: LauncherId,
    },
    /// The parent body is not dynamic (a fixed or kinematic body carries no mass).
    #[error("parent body {0:?} is not dynamic")]
    ParentNotDynamic(RigidBodyHandle),
    /// No launcher with this id.
    #[error("no launcher {0}")]
    UnknownLauncher(LauncherId),
    /// The projectile index is out of range.
    #[error("projectile {projectile} is out of range (launcher holds {count})")]
    ProjectileOutOfRange {
        /// The index asked for.
        projectile: u32,
        /// Parts in the launcher.
        count: u32,
    },
    /// The part was already launched.
    #[error("projectile {0} was already launched")]
    AlreadyLaunched(u32),
    /// The part is broken.
    #[error("projectile {0} is broken")]
    Broken(u32),
    /// Every part of the launcher was launched or broke: nothing to launch.
    #[error("launcher {0} has no ammunition left")]
    NoAmmunition(LauncherId),
    /// The launch impulse or point is not finite, or the world refused the switch.
    #[error("switch refused")]
    Detach(#[from] DetachError),
}

/// Runtime handles of one held part.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct PartHandles {
    pub holding: ColliderHandle,
    pub body: RigidBodyHandle,
    pub collider: ColliderHandle,
}

#[derive(Clone, Debug)]
pub(crate) struct Launcher {
    pub desc: Arc<LauncherDesc>,
    pub parent: RigidBodyHandle,
    pub handles: Vec<PartHandles>,
    pub status: Vec<PartStatus>,
    /// Weapon health, du, in [0, `desc.weapon_max_health()`].
    pub weapon_health: f32,
    /// Weapon damage queued this frame, du (committed at frame end).
    pub weapon_pending: f32,
    /// Frame in which the weapon broke.
    pub weapon_broken: Option<u64>,
    /// Per part: own health, du (only lowered with independent durability).
    pub health: Vec<f32>,
    /// Per part: own damage queued this frame, du.
    pub pending: Vec<f32>,
    /// Per part: frame in which it broke (`Some` iff `Broken`).
    pub break_frame: Vec<Option<u64>>,
}

/// A held part's drawing pose (see [`HeldParts::held_poses`]).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct HeldPose {
    /// The launcher.
    pub launcher: LauncherId,
    /// The projectile index.
    pub projectile: u32,
    /// World pose, m: the parent's pose times the authored pose.
    pub pose: Pose,
}

/// All held parts of a world: launchers in creation order, each with its
/// immutable [`LauncherDesc`], its parent body, the handles it created and
/// each part's [`PartStatus`].
///
/// Durability state (health, queued damage, open contact episodes, frame
/// counter) is part of it and of its [`HeldState`].
#[derive(Clone, Debug, Default)]
pub struct HeldParts {
    pub(crate) launchers: Vec<Launcher>,
    /// The impulse → damage mapping for contacts on holding colliders.
    pub(crate) impact: crate::ImpactDamage,
    /// Frames committed so far ([`Self::commit_damage`] calls): the index
    /// of the frame in progress.
    pub(crate) frame: u64,
    pub(crate) contacts: HeldContacts,
    /// Scratch: episodes that ended this step.
    pub(crate) ended: Vec<crate::set::episode::Episode>,
    /// Scratch: one launcher's hits of a step, merged per weapon contact.
    pub(crate) weapon_hits: Vec<durability::WeaponHit>,
}

impl HeldParts {
    /// No launchers; contact damage with the default [`crate::ImpactDamage`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Creates a launcher on dynamic body `parent`: for every part a holding
    /// collider on `parent` and a disabled body + collider (see the module
    /// docs). The parent's mass properties include the parts at once.
    ///
    /// # Errors
    /// The [`LauncherDesc::validate`] errors, [`HeldError::UnknownParent`] or
    /// [`HeldError::ParentNotDynamic`], [`HeldError::WeaponTaken`] for a
    /// weapon part of `parent` that already holds a launcher; the world is
    /// unchanged on error.
    pub fn add_launcher(
        &mut self,
        physics: &mut PhysicsWorld,
        parent: RigidBodyHandle,
        desc: Arc<LauncherDesc>,
    ) -> Result<LauncherId, HeldError> {
        desc.validate()?;
        let p = physics
            .bodies
            .get(parent)
            .ok_or(HeldError::UnknownParent(parent))?;
        if !p.is_dynamic() {
            return Err(HeldError::ParentNotDynamic(parent));
        }
        // Ownership is (parent, weapon part, projectile): two launchers on
        // one weapon part would make it ambiguous.
        if let Some(k) =
            (self.launchers.iter()).position(|l| l.parent == parent && l.desc.weapon == desc.weapon)
        {
            return Err(HeldError::WeaponTaken {
                weapon: desc.weapon,
                launcher: LauncherId(k as u32),
            });
        }
        let id = LauncherId(self.launchers.len() as u32);
        let parent_pose = *p.position();
        let mut handles = Vec::with_capacity(desc.parts.len());
        for part in &desc.parts {
            let collider = || {
                part.shape
                    .collider()
                    .mass(part.mass)
                    .friction(part.material.friction)
                    .restitution(part.material.restitution)
            };
            let holding = physics.colliders.insert_with_parent(
                collider().position(part.pose),
                parent,
                &mut physics.bodies,
            );
            let body = physics.bodies.insert(
                RigidBodyBuilder::dynamic()
                    .pose(parent_pose * part.pose)
                    .ccd_enabled(true)
                    .enabled(false),
            );
            let own = physics
                .colliders
                .insert_with_parent(collider(), body, &mut physics.bodies);
            handles.push(PartHandles {
                holding,
                body,
                collider: own,
            });
        }
        let n = desc.parts.len();
        self.launchers.push(Launcher {
            weapon_health: desc.weapon_max_health(),
            weapon_pending: 0.0,
            weapon_broken: None,
            health: desc.parts.iter().map(|p| p.health).collect(),
            pending: vec![0.0; n],
            break_frame: vec![None; n],
            desc,
            parent,
            handles,
            status: vec![PartStatus::Held; n],
        });
        self.record_states(physics);
        Ok(id)
    }

    /// Launchers, in creation order.
    pub fn launcher_count(&self) -> u32 {
        self.launchers.len() as u32
    }

    /// The launcher's immutable description.
    pub fn desc(&self, launcher: LauncherId) -> Option<&LauncherDesc> {
        self.launchers.get(launcher.0 as usize).map(|l| &*l.desc)
    }

    /// The launcher's parent body.
    pub fn parent(&self, launcher: LauncherId) -> Option<RigidBodyHandle> {
        self.launchers.get(launcher.0 as usize).map(|l| l.parent)
    }

    /// The part's status.
    pub fn status(&self, launcher: LauncherId, projectile: u32) -> Option<PartStatus> {
        self.launcher(launcher)
            .ok()?
            .status
            .get(projectile as usize)
            .copied()
    }

    /// The holding collider of a part (on the parent body).
    pub fn holding_collider(
        &self,
        launcher: LauncherId,
        projectile: u32,
    ) -> Option<ColliderHandle> {
        let l = self.launcher(launcher).ok()?;
        l.handles.get(projectile as usize).map(|h| h.holding)
    }

    /// The part's own body (disabled until launch).
    pub fn part_body(&self, launcher: LauncherId, projectile: u32) -> Option<RigidBodyHandle> {
        let l = self.launcher(launcher).ok()?;
        l.handles.get(projectile as usize).map(|h| h.body)
    }

    /// Who holds `collider`, if it is a holding collider of these launchers
    /// (launched and broken parts keep their ownership record).
    /// O(total parts); no hashing, so no order question.
    pub fn owner(&self, collider: ColliderHandle) -> Option<HoldingOwner> {
        self.launchers.iter().find_map(|l| {
            l.handles
                .iter()
                .position(|h| h.holding == collider)
                .map(|i| HoldingOwner {
                    parent: l.parent,
                    weapon: l.desc.weapon,
                    projectile: i as u32,
                })
        })
    }

    /// The next part to launch: lowest projectile index still held
    /// (launched and broken parts are skipped).
    pub fn next_ready(&self, launcher: LauncherId) -> Option<u32> {
        let l = self.launcher(launcher).ok()?;
        l.status
            .iter()
            .position(|s| *s == PartStatus::Held)
            .map(|i| i as u32)
    }

    /// Available ammunition: parts neither launched nor broken.
    pub fn ammunition(&self, launcher: LauncherId) -> u32 {
        self.launcher(launcher).map_or(0, |l| {
            l.status.iter().filter(|s| **s == PartStatus::Held).count() as u32
        })
    }

    /// Launches part `projectile` in one step (the seed's 發射第 i 顆): its
    /// holding collider leaves the parent, its body is enabled at the same
    /// world pose with the parent's point velocity, then `impulse` (N·s,
    /// world) is applied to it and `−impulse` to the parent at
    /// `launch_point` (m, world; `None` = the part's centre of mass).
    /// See [`crate::detach`].
    ///
    /// # Errors
    /// [`HeldError::UnknownLauncher`], [`HeldError::ProjectileOutOfRange`],
    /// [`HeldError::AlreadyLaunched`], [`HeldError::Broken`], or
    /// [`HeldError::Detach`] (non-finite impulse, or the world no longer
    /// holds the handles). Nothing changes on error.
    ///
    /// Same-frame rule (seed 同幀判定): launch is decided here, when the
    /// frame's input is processed; damage commits at frame end. The part is
    /// no longer the weapon's: its queued own damage is dropped, and neither
    /// this frame's weapon damage nor a weapon break touches it.
    pub fn launch(
        &mut self,
        physics: &mut PhysicsWorld,
        launcher: LauncherId,
        projectile: u32,
        impulse: Vector,
        launch_point: Option<Vector>,
    ) -> Result<Detached, HeldError> {
        let h = self.held_part(launcher, projectile)?;
        let done = detach_collider(physics, h.holding, h.body, impulse, launch_point)?;
        self.set_status(launcher, projectile, PartStatus::Launched);
        // The recoil changed the parent's velocity: it is the next step's
        // pre-step velocity of the parent's contacts.
        self.record_states(physics);
        Ok(done)
    }

    /// Breaks a held part now: its holding collider is disabled (its mass
    /// leaves the parent, whose velocity field is kept) and its body stays
    /// disabled; its break frame is the frame in progress. The frame-end
    /// damage commit ([`Self::commit_damage`]) breaks parts this way; a game
    /// may call it for its own reasons.
    ///
    /// # Errors
    /// As [`Self::launch`] for unknown, out-of-range, launched or broken parts.
    pub fn break_part(
        &mut self,
        physics: &mut PhysicsWorld,
        launcher: LauncherId,
        projectile: u32,
    ) -> Result<(), HeldError> {
        let h = self.held_part(launcher, projectile)?;
        disable_holding(physics, h.holding);
        self.set_status(launcher, projectile, PartStatus::Broken);
        self.record_states(physics);
        Ok(())
    }

    /// The weapon part broke now (the game's own reason; contact damage
    /// breaks it in [`Self::commit_damage`]): its health is kept, it is
    /// marked broken and every unfired part is disabled (seed: weapon
    /// broken 連帶停用未發射彈藥). Returns the projectile indices broken, in order.
    ///
    /// # Errors
    /// [`HeldError::UnknownLauncher`].
    pub fn break_weapon(
        &mut self,
        physics: &mut PhysicsWorld,
        launcher: LauncherId,
    ) -> Result<Vec<u32>, HeldError> {
        let l = self.launcher(launcher)?;
        let held: Vec<u32> = (0..l.status.len() as u32)
            .filter(|&i| l.status[i as usize] == PartStatus::Held)
            .collect();
        for &i in &held {
            self.break_part(physics, launcher, i)?;
        }
        let frame = self.frame;
        if let Some(l) = self.launchers.get_mut(launcher.0 as usize) {
            l.weapon_broken.get_or_insert(frame);
            l.weapon_pending = 0.0;
        }
        Ok(held)
    }

    /// Appends the drawing pose of every held (unfired, unbroken) part to
    /// `out`, launcher by launcher in projectile order: the parent's current
    /// pose times the authored pose. Disabled bodies are never read. Parts
    /// whose parent is gone are skipped.
    pub fn held_poses(&self, physics: &PhysicsWorld, out: &mut Vec<HeldPose>) {
        for (li, l) in self.launchers.iter().enumerate() {
            let Some(parent) = physics.bodies.get(l.parent) else {
                continue;
            };
            let parent_pose = *parent.position();
            for (i, part) in l.desc.parts.iter().enumerate() {
                if l.status[i] == PartStatus::Held {
                    out.push(HeldPose {
                        launcher: LauncherId(li as u32),
                        projectile: i as u32,
                        pose: parent_pose * part.pose,
                    });
                }
            }
        }
    }

    fn launcher(&self, launcher: LauncherId) -> Result<&Launcher, HeldError> {
        self.launchers
            .get(launcher.0 as usize)
            .ok_or(HeldError::UnknownLauncher(launcher))
    }

    /// The handles of a part that is still held, or why it is not.
    fn held_part(&self, launcher: LauncherId, projectile: u32) -> Result<PartHandles, HeldError> {
        let l = self.launcher(launcher)?;
        let count = l.handles.len() as u32;
        let i = projectile as usize;
        let (Some(h), Some(s)) = (l.handles.get(i), l.status.get(i)) else {
            return Err(HeldError::ProjectileOutOfRange { projectile, count });
        };
        match s {
            PartStatus::Held => Ok(*h),
            PartStatus::Launched => Err(HeldError::AlreadyLaunched(projectile)),
            PartStatus::Broken => Err(HeldError::Broken(projectile)),
        }
    }

    /// Sets a part's status; a part that leaves `Held` drops its queued
    /// damage, a broken one records the frame in progress.
    fn set_status(&mut self, launcher: LauncherId, projectile: u32, s: PartStatus) {
        let frame = self.frame;
        let i = projectile as usize;
        let Some(l) = self.launchers.get_mut(launcher.0 as usize) else {
            return;
        };
        if let Some(slot) = l.status.get_mut(i) {
            *slot = s;
        }
        if let Some(p) = l.pending.get_mut(i) {
            *p = 0.0;
        }
        if s == PartStatus::Broken
            && let Some(b) = l.break_frame.get_mut(i)
        {
            *b = Some(frame);
        }
    }
}

/// Disables a holding collider without a receiving body: the parent loses
/// its mass at once and keeps its velocity field (see [`crate::detach`]).
pub(crate) fn disable_holding(physics: &mut PhysicsWorld, holding: ColliderHandle) {
    let Some(col) = physics.colliders.get_mut(holding) else {
        return;
    };
    col.set_enabled(false);
    let parent = col.parent();
    if let Some(p) = parent.and_then(|p| physics.bodies.get_mut(p)) {
        let (v, w, c) = (p.linvel(), p.angvel(), p.center_of_mass());
        p.recompute_mass_properties_from_colliders(&physics.colliders);
        if p.is_dynamic() {
            let c_new = p.center_of_mass();
            p.set_linvel(v + w.cross(c_new - c), true);
        }
    }
}
