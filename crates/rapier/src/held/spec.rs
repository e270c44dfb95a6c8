//! The immutable description of held parts: a launcher (weapon part) on a
//! parent body holding parts (projectiles) at authored poses
//! (held-projectile seed, 決定 › 持彈碰撞體切換: "形狀、材質與質量取自該彈的
//! canonical proxy，pose 為 authored 預載 pose").

use super::HeldError;
use rapier3d::prelude::*;
use serde::{Deserialize, Serialize};

/// Farthest a held part's authored position may be from its parent body's
/// origin, m: 50 m. A vehicle-sized parent carries its parts within a few
/// metres; anything farther is an authoring mistake (a unit error, a pose in
/// world space instead of parent space) and would also cost f32 precision
/// in the parent's frame.
pub const MAX_PART_OFFSET: f32 = 50.0;

/// Lightest held part, kg: 1 g. Rapier's f32 solver loses a much lighter
/// body's motion against the world (a 1e-30 kg part launched with 50 N·s
/// did not move sideways and sank 0.19 m in 1 s), so such a mass is an
/// authoring mistake, refused rather than simulated wrongly.
pub const MIN_PART_MASS: f32 = 1e-3;

/// Heaviest held part, kg: 100 t, far beyond any carried projectile (a
/// 1e30 kg part hung in the air after launch: gravity and contacts no
/// longer move it in f32).
pub const MAX_PART_MASS: f32 = 1e5;

/// Shape of a held part, in the part's own frame (m). The holding collider
/// and the part's own collider use the same shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum PartShape {
    /// A sphere of this radius, m.
    Ball {
        /// Radius, m (> 0).
        radius: f32,
    },
    /// A box with these half extents, m.
    Cuboid {
        /// Half extents along x, y, z, m (each > 0).
        half_extents: Vector,
    },
    /// A capsule along the part's local y axis.
    Capsule {
        /// Half the length of the segment, m (> 0).
        half_height: f32,
        /// Radius, m (> 0).
        radius: f32,
    },
    /// A cylinder along the part's local y axis.
    Cylinder {
        /// Half the height, m (> 0).
        half_height: f32,
        /// Radius, m (> 0).
        radius: f32,
    },
}

impl PartShape {
    fn is_valid(&self) -> bool {
        let ok = |x: f32| x.is_finite() && x > 0.0;
        match *self {
            PartShape::Ball { radius } => ok(radius),
            PartShape::Cuboid { half_extents: h } => ok(h.x) && ok(h.y) && ok(h.z),
            PartShape::Capsule {
                half_height,
                radius,
            }
            | PartShape::Cylinder {
                half_height,
                radius,
            } => ok(half_height) && ok(radius),
        }
    }

    /// A collider builder of this shape (no mass or material set).
    pub fn collider(&self) -> ColliderBuilder {
        match *self {
            PartShape::Ball { radius } => ColliderBuilder::ball(radius),
            PartShape::Cuboid { half_extents: h } => ColliderBuilder::cuboid(h.x, h.y, h.z),
            PartShape::Capsule {
                half_height,
                radius,
            } => ColliderBuilder::capsule_y(half_height, radius),
            PartShape::Cylinder {
                half_height,
                radius,
            } => ColliderBuilder::cylinder(half_height, radius),
        }
    }
}

/// Surface material of a held part (both of its colliders).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartMaterial {
    /// Friction coefficient (≥ 0, finite).
    pub friction: f32,
    /// Restitution coefficient (in [0, 1]).
    pub restitution: f32,
}

impl Default for PartMaterial {
    fn default() -> Self {
        Self {
            friction: 0.5,
            restitution: 0.0,
        }
    }
}

/// One held part (a preloaded projectile).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeldPartDesc {
    /// Collision shape (the part's canonical proxy).
    pub shape: PartShape,
    /// Surface material.
    pub material: PartMaterial,
    /// Mass, kg, in [[`MIN_PART_MASS`], [`MAX_PART_MASS`]] (1 g to 100 t).
    /// Both colliders carry exactly this mass
    /// (`ColliderBuilder::mass`); the density follows from the shape's volume.
    pub mass: f32,
    /// Authored pose of the part in its parent body's frame, m; its
    /// translation is at most [`MAX_PART_OFFSET`] from the parent's origin.
    pub pose: Pose,
    /// Health of the part, du (> 0, finite; default [`DEFAULT_PART_HEALTH`]).
    /// With [`LauncherDesc::independent_durability`] it is the part's own
    /// health; without, it is the part's share of its weapon's health (see
    /// [`LauncherDesc::weapon_max_health`]).
    #[serde(default = "default_part_health")]
    pub health: f32,
}

/// Default [`HeldPartDesc::health`], du: 100.
pub const DEFAULT_PART_HEALTH: f32 = 100.0;
/// Default [`LauncherDesc::weapon_health`], du: 1000.
pub const DEFAULT_WEAPON_HEALTH: f32 = 1000.0;

fn default_part_health() -> f32 {
    DEFAULT_PART_HEALTH
}

fn default_weapon_health() -> f32 {
    DEFAULT_WEAPON_HEALTH
}

/// A launcher: one weapon part of a parent body and the parts it holds, in
/// projectile index order (the launch order).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LauncherDesc {
    /// Index of the weapon part on its parent (the game's part numbering);
    /// recorded in every holding collider's ownership.
    pub weapon: u32,
    /// The held parts; `parts[i]` is projectile index `i`.
    pub parts: Vec<HeldPartDesc>,
    /// Each held part has its own durability (seed: 可選彈體獨立耐久);
    /// default false: a held part belongs to the weapon until launched. In a
    /// spec file the key is `projectile_independent_durability` (the seed's
    /// GLB root-extras name; `independent_durability` is read too), absent =
    /// false. A weapon authored as glTF/GLB carries it in its root node's
    /// extras: `smithereens_authoring::load_weapon_extras` reads and
    /// type-checks it, and the game copies it into this field (this crate
    /// reads no file format).
    #[serde(
        default,
        rename = "projectile_independent_durability",
        alias = "independent_durability"
    )]
    pub independent_durability: bool,
    /// Health of the weapon's non-projectile parts, du (> 0, finite;
    /// default [`DEFAULT_WEAPON_HEALTH`]). See [`Self::weapon_max_health`].
    #[serde(default = "default_weapon_health")]
    pub weapon_health: f32,
}

impl LauncherDesc {
    /// The weapon part's full health, du: with independent durability its
    /// non-projectile parts only ([`Self::weapon_health`]); without, the
    /// held parts are proxies of the weapon and add their
    /// [`HeldPartDesc::health`] (seed: "武器零件的耐久…只由非彈體 proxy 合成"
    /// when independent). Fixed at creation: launching a part does not lower
    /// it. Summed in f32 in projectile order.
    pub fn weapon_max_health(&self) -> f32 {
        if self.independent_durability {
            self.weapon_health
        } else {
            self.parts
                .iter()
                .fold(self.weapon_health, |sum, p| sum + p.health)
        }
    }

    /// Checks every part; the first bad one is the error.
    ///
    /// # Errors
    /// [`HeldError::BadMass`], [`HeldError::BadShape`],
    /// [`HeldError::BadMaterial`], [`HeldError::BadPose`] or
    /// [`HeldError::TooFar`] or [`HeldError::BadHealth`], naming the
    /// projectile index; [`HeldError::BadHealth`] without one for the weapon.
    pub fn validate(&self) -> Result<(), HeldError> {
        let good_health = |h: f32| h.is_finite() && h > 0.0;
        if !good_health(self.weapon_health) {
            return Err(HeldError::BadHealth {
                projectile: None,
                health: self.weapon_health,
            });
        }
        for (i, part) in self.parts.iter().enumerate() {
            let projectile = i as u32;
            if !(MIN_PART_MASS..=MAX_PART_MASS).contains(&part.mass) {
                return Err(HeldError::BadMass {
                    projectile,
                    mass: part.mass,
                });
            }
            if !part.shape.is_valid() {
                return Err(HeldError::BadShape { projectile });
            }
            let m = part.material;
            if !(m.friction >= 0.0)
                || !m.friction.is_finite()
                || !(m.restitution >= 0.0)
                || !(m.restitution <= 1.0)
            {
                return Err(HeldError::BadMaterial { projectile });
            }
            let t = part.pose.translation;
            let q = part.pose.rotation;
            if !t.is_finite() || !q.is_finite() || (q.length() - 1.0).abs() > 1e-3 {
                return Err(HeldError::BadPose { projectile });
            }
            let distance = t.length();
            if distance > MAX_PART_OFFSET {
                return Err(HeldError::TooFar {
                    projectile,
                    distance,
                    limit: MAX_PART_OFFSET,
                });
            }
            if !good_health(part.health) {
                return Err(HeldError::BadHealth {
                    projectile: Some(projectile),
                    health: part.health,
                });
            }
        }
        if !self.weapon_max_health().is_finite() {
            return Err(HeldError::BadHealth {
                projectile: None,
                health: self.weapon_max_health(),
            });
        }
        if self.parts.len() > u32::MAX as usize {
            return Err(HeldError::TooManyParts);
        }
        Ok(())
    }
}
