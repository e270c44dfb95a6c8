//! Snapshots of held parts and the rollback check (held-projectile seed,
//! 決定 › 持彈碰撞體切換: "rollback 由 immutable VehicleSpec 加上已驗證的彈藥與
//! 損毀狀態，推導每顆彈的持彈 collider 與彈剛體應有的啟用狀態，並與 Rapier
//! snapshot 比對；不一致則原子拒絕"; issue 14 item 4).
//!
//! A [`HeldState`] records, per launcher and part, the ownership
//! (parent, weapon, projectile), the handles, the status and the damage
//! state (health, damage queued in the frame, break frames), plus the frame
//! counter and the open contact episodes. It is stored
//! next to the game's serialized `PhysicsWorld` (Rapier keeps handles across
//! serialization). [`super::HeldParts::restore`] rebuilds held parts from
//! the *current* immutable descriptions plus a state. It first validates
//! the damage state against the spec (healths finite and within their full
//! health, queued damage finite and ≥ 0, a part broken iff it has a break
//! frame, no held part on a broken weapon, with independent durability no
//! held part at health 0, without it no part with damage of its own), then
//! checks the restored world against the statuses it implies:
//! - held part: holding collider enabled on the recorded parent at the
//!   authored pose with the part's mass; part body disabled;
//! - launched part: holding collider disabled; part body enabled;
//! - broken part: both disabled.
//!
//! Any mismatch rejects the whole restore: the caller keeps its previous
//! world and held parts (nothing is written before the check passes).

use super::{HeldContacts, HeldParts, Launcher, PartHandles, PartStatus};
use rapier3d::prelude::*;
use serde::{Deserialize, Serialize};

/// Relative tolerance on a holding collider's mass against its description:
/// Rapier stores the mass as an inverse (one rounding each way).
const MASS_REL_TOLERANCE: f32 = 1e-5;

/// One part in a [`HeldState`].
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartRecord {
    /// Holding collider on the parent.
    pub holding: ColliderHandle,
    /// The part's own body.
    pub body: RigidBodyHandle,
    /// The part's own collider.
    pub collider: ColliderHandle,
    /// Its status at the snapshot.
    pub status: PartStatus,
    /// Its own health, du.
    pub health: f32,
    /// Its own damage queued in the frame, du.
    pub pending: f32,
    /// The frame in which it broke (`Some` iff `status` is `Broken`).
    pub break_frame: Option<u64>,
}

/// One launcher in a [`HeldState`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LauncherRecord {
    /// The parent body.
    pub parent: RigidBodyHandle,
    /// The weapon part index (checked against the description).
    pub weapon: u32,
    /// Parts in projectile order.
    pub parts: Vec<PartRecord>,
    /// The weapon's health, du.
    pub weapon_health: f32,
    /// The weapon's damage queued in the frame, du.
    pub weapon_pending: f32,
    /// The frame in which the weapon broke.
    pub weapon_broken: Option<u64>,
}

/// The serializable state of [`HeldParts`] at a physics boundary:
/// ownership, handles and statuses; the descriptions are not in it (they are
/// the immutable spec the restore checks against).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeldState {
    /// Launchers in creation order.
    pub launchers: Vec<LauncherRecord>,
    /// The frame in progress (frames committed so far).
    pub frame: u64,
    /// Open contact episodes and recorded velocities.
    pub contacts: HeldContacts,
}

/// Why a restore was rejected. Nothing was changed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RollbackError {
    /// The state has a different number of launchers than the spec.
    #[error("state has {found} launchers, the spec {expected}")]
    LauncherCount {
        /// Launchers in the spec.
        expected: u32,
        /// Launchers in the state.
        found: u32,
    },
    /// A launcher's weapon index or part count differs from its description.
    #[error("launcher {launcher}: weapon or part count differs from the spec")]
    LauncherShape {
        /// Launcher index.
        launcher: u32,
    },
    /// A part's handles are missing from the world or attached elsewhere.
    #[error("launcher {launcher} projectile {projectile}: {what}")]
    Topology {
        /// Launcher index.
        launcher: u32,
        /// Projectile index.
        projectile: u32,
        /// What is wrong.
        what: &'static str,
    },
    /// The damage state is impossible for the spec (see the module docs).
    #[error(
        "launcher {launcher} {}: damage state rejected: {what}",
        super::part_name(*projectile)
    )]
    DamageState {
        /// Launcher index.
        launcher: u32,
        /// Projectile index, `None` for the weapon or the launcher.
        projectile: Option<u32>,
        /// What is wrong.
        what: &'static str,
    },
    /// The contact bookkeeping has a non-finite number or an episode from the future.
    #[error("contact state rejected")]
    Contacts,
    /// A part's enabled flags in the world differ from what its status implies.
    #[error(
        "launcher {launcher} projectile {projectile} is {status:?}: holding collider enabled = {holding_enabled}, body enabled = {body_enabled}"
    )]
    EnabledMismatch {
        /// Launcher index.
        launcher: u32,
        /// Projectile index.
        projectile: u32,
        /// The recorded status.
        status: PartStatus,
        /// Holding collider enabled in the world.
        holding_enabled: bool,
        /// Part body enabled in the world.
        body_enabled: bool,
    },
}

impl HeldParts {
    /// The serializable state (see the module docs).
    pub fn state(&self) -> HeldState {
        HeldState {
            launchers: self
                .launchers
                .iter()
                .map(|l| LauncherRecord {
                    parent: l.parent,
                    weapon: l.desc.weapon,
                    parts: (0..l.handles.len())
                        .map(|i| PartRecord {
                            holding: l.handles[i].holding,
                            body: l.handles[i].body,
                            collider: l.handles[i].collider,
                            status: l.status[i],
                            health: l.health[i],
                            pending: l.pending[i],
                            break_frame: l.break_frame[i],
                        })
                        .collect(),
                    weapon_health: l.weapon_health,
                    weapon_pending: l.weapon_pending,
                    weapon_broken: l.weapon_broken,
                })
                .collect(),
            frame: self.frame,
            contacts: self.contacts.clone(),
        }
    }

    /// FNV-1a 64 over the bit patterns of the runtime state (seed: SavedState
    /// 每顆預載彈保存 broken／breakFrame；runtime hash 納入): the frame, each
    /// launcher's weapon health, queued damage and break frame, each part's
    /// status, health, queued damage and break frame, and the open contact
    /// episodes. Handles and descriptions are not in it.
    pub fn state_hash(&self) -> u64 {
        let mut h = smithereens_core::hash::StateHasher::new();
        let frame = |h: &mut smithereens_core::hash::StateHasher, f: Option<u64>| {
            h.write_u64(f.map_or(u64::MAX, |f| f))
        };
        h.write_u64(self.frame);
        for l in &self.launchers {
            h.write_f32(l.weapon_health);
            h.write_f32(l.weapon_pending);
            frame(&mut h, l.weapon_broken);
            for i in 0..l.status.len() {
                h.write_u32(l.status[i] as u32);
                h.write_f32(l.health[i]);
                h.write_f32(l.pending[i]);
                frame(&mut h, l.break_frame[i]);
            }
        }
        h.write_u64(self.contacts.step);
        for e in self.contacts.episodes.values() {
            let (a, b, c, d) = e.first.key();
            for k in [a, b, c, d] {
                h.write_u32(k);
            }
            for x in [e.impulse, e.approach, e.impact] {
                h.write_f32(x);
            }
            h.write_u64(e.last_step);
        }
        h.finish()
    }

    /// Held parts rebuilt from these launchers' immutable descriptions plus
    /// `state`, after checking the restored world `physics` against them
    /// (see the module docs). `self` and `physics` are only read.
    ///
    /// # Errors
    /// [`RollbackError`] on the first mismatch, in launcher then projectile order.
    pub fn restore(
        &self,
        state: &HeldState,
        physics: &PhysicsWorld,
    ) -> Result<HeldParts, RollbackError> {
        if state.launchers.len() != self.launchers.len() {
            return Err(RollbackError::LauncherCount {
                expected: self.launchers.len() as u32,
                found: state.launchers.len() as u32,
            });
        }
        if !state.contacts.is_valid() {
            return Err(RollbackError::Contacts);
        }
        let mut launchers = Vec::with_capacity(self.launchers.len());
        for (li, (spec, rec)) in self.launchers.iter().zip(&state.launchers).enumerate() {
            let launcher = li as u32;
            if rec.weapon != spec.desc.weapon || rec.parts.len() != spec.desc.parts.len() {
                return Err(RollbackError::LauncherShape { launcher });
            }
            check_damage_state(launcher, &spec.desc, rec, state.frame)?;
            for (pi, (part, r)) in spec.desc.parts.iter().zip(&rec.parts).enumerate() {
                let projectile = pi as u32;
                let topo = |what| RollbackError::Topology {
                    launcher,
                    projectile,
                    what,
                };
                let holding = physics
                    .colliders
                    .get(r.holding)
                    .ok_or(topo("holding collider missing"))?;
                if holding.parent() != Some(rec.parent) || physics.bodies.get(rec.parent).is_none()
                {
                    return Err(topo("holding collider not on the recorded parent"));
                }
                if holding.position_wrt_parent() != Some(&part.pose) {
                    return Err(topo("holding collider not at the authored pose"));
                }
                let m = holding.mass();
                if !((m - part.mass).abs() <= MASS_REL_TOLERANCE * part.mass) {
                    return Err(topo("holding collider mass differs from the spec"));
                }
                let body = physics
                    .bodies
                    .get(r.body)
                    .ok_or(topo("part body missing"))?;
                let own = physics
                    .colliders
                    .get(r.collider)
                    .ok_or(topo("part collider missing"))?;
                if own.parent() != Some(r.body) || !body.is_dynamic() {
                    return Err(topo("part collider not on its dynamic body"));
                }
                let (he, be) = (holding.is_enabled(), body.is_enabled());
                let expected = match r.status {
                    PartStatus::Held => (true, false),
                    PartStatus::Launched => (false, true),
                    PartStatus::Broken => (false, false),
                };
                if (he, be) != expected {
                    return Err(RollbackError::EnabledMismatch {
                        launcher,
                        projectile,
                        status: r.status,
                        holding_enabled: he,
                        body_enabled: be,
                    });
                }
            }
            launchers.push(Launcher {
                desc: spec.desc.clone(),
                parent: rec.parent,
                handles: rec
                    .parts
                    .iter()
                    .map(|r| PartHandles {
                        holding: r.holding,
                        body: r.body,
                        collider: r.collider,
                    })
                    .collect(),
                status: rec.parts.iter().map(|r| r.status).collect(),
                weapon_health: rec.weapon_health,
                weapon_pending: rec.weapon_pending,
                weapon_broken: rec.weapon_broken,
                health: rec.parts.iter().map(|r| r.health).collect(),
                pending: rec.parts.iter().map(|r| r.pending).collect(),
                break_frame: rec.parts.iter().map(|r| r.break_frame).collect(),
            });
        }
        Ok(HeldParts {
            launchers,
            impact: self.impact,
            frame: state.frame,
            contacts: state.contacts.clone(),
            ended: Vec::new(),
            weapon_hits: Vec::new(),
        })
    }
}

/// The damage-state rules of the module docs, launcher `launcher` against
/// its description; the first broken rule is the error.
fn check_damage_state(
    launcher: u32,
    desc: &super::LauncherDesc,
    rec: &LauncherRecord,
    frame: u64,
) -> Result<(), RollbackError> {
    let err = |projectile, what| {
        Err(RollbackError::DamageState {
            launcher,
            projectile,
            what,
        })
    };
    let within = |h: f32, full: f32| h.is_finite() && (0.0..=full).contains(&h);
    let queued = |d: f32| d.is_finite() && d >= 0.0;
    if !within(rec.weapon_health, desc.weapon_max_health()) {
        return err(None, "weapon health not in [0, full health]");
    }
    if !queued(rec.weapon_pending) {
        return err(None, "weapon damage queued is not finite and ≥ 0");
    }
    if rec.weapon_health <= 0.0 && rec.weapon_broken.is_none() {
        return err(None, "weapon at health 0 is not broken");
    }
    if rec.weapon_broken.is_some_and(|f| f > frame) {
        return err(None, "weapon broke in a later frame");
    }
    for (i, (part, r)) in desc.parts.iter().zip(&rec.parts).enumerate() {
        let p = Some(i as u32);
        if !within(r.health, part.health) {
            return err(p, "part health not in [0, full health]");
        }
        if !queued(r.pending) {
            return err(p, "part damage queued is not finite and ≥ 0");
        }
        if r.status != PartStatus::Held && r.pending != 0.0 {
            return err(p, "damage queued on a part that is no longer held");
        }
        if !desc.independent_durability
            && (r.health.to_bits() != part.health.to_bits() || r.pending != 0.0)
        {
            return err(
                p,
                "part has damage of its own without independent durability",
            );
        }
        if (r.status == PartStatus::Broken) != r.break_frame.is_some() {
            return err(p, "part broken without a break frame, or the reverse");
        }
        if r.break_frame.is_some_and(|f| f > frame) {
            return err(p, "part broke in a later frame");
        }
        if r.status == PartStatus::Held && rec.weapon_broken.is_some() {
            return err(p, "held part on a broken weapon");
        }
        if r.status == PartStatus::Held && desc.independent_durability && r.health <= 0.0 {
            return err(p, "held part at health 0");
        }
    }
    Ok(())
}
