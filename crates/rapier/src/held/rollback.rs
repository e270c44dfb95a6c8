//! Snapshots of held parts and the rollback check (held-projectile seed,
//! 決定 › 持彈碰撞體切換: "rollback 由 immutable VehicleSpec 加上已驗證的彈藥與
//! 損毀狀態，推導每顆彈的持彈 collider 與彈剛體應有的啟用狀態，並與 Rapier
//! snapshot 比對；不一致則原子拒絕"; issue 14 item 4).
//!
//! A [`HeldState`] records, per launcher and part, the ownership
//! (parent, weapon, projectile), the handles and the status. It is stored
//! next to the game's serialized `PhysicsWorld` (Rapier keeps handles across
//! serialization). [`super::HeldParts::restore`] rebuilds held parts from
//! the *current* immutable descriptions plus a state and checks a restored
//! world against what they imply:
//! - held part: holding collider enabled on the recorded parent at the
//!   authored pose with the part's mass; part body disabled;
//! - launched part: holding collider disabled; part body enabled;
//! - broken part: both disabled.
//!
//! Any mismatch rejects the whole restore: the caller keeps its previous
//! world and held parts (nothing is written before the check passes).

use super::{HeldParts, Launcher, PartHandles, PartStatus};
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
}

/// The serializable state of [`HeldParts`] at a physics boundary:
/// ownership, handles and statuses; the descriptions are not in it (they are
/// the immutable spec the restore checks against).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeldState {
    /// Launchers in creation order.
    pub launchers: Vec<LauncherRecord>,
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
                    parts: l
                        .handles
                        .iter()
                        .zip(&l.status)
                        .map(|(h, &status)| PartRecord {
                            holding: h.holding,
                            body: h.body,
                            collider: h.collider,
                            status,
                        })
                        .collect(),
                })
                .collect(),
        }
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
        let mut launchers = Vec::with_capacity(self.launchers.len());
        for (li, (spec, rec)) in self.launchers.iter().zip(&state.launchers).enumerate() {
            let launcher = li as u32;
            if rec.weapon != spec.desc.weapon || rec.parts.len() != spec.desc.parts.len() {
                return Err(RollbackError::LauncherShape { launcher });
            }
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
            });
        }
        Ok(HeldParts { launchers })
    }
}
