//! Impulses that enter the dynamics exactly once: explosions (keyed by event
//! id) and impulses absorbed by fixed chunks, handed to the piece that
//! breaks free.

use super::{DestructionSet, InstanceHandle, SetAdmitError};
use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_core::{ClusterHandle, EventId, FalloffDamage};
use std::collections::BTreeMap;

/// An impulse absorbed by a fixed chunk, handed to the cluster that owns the
/// chunk after the event's commit (once, keyed by the event id).
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Transfer {
    pub(crate) chunk: smithereens_core::ChunkIndex,
    pub(crate) impulse: Vec3,
    pub(crate) max_speed: f32,
}

/// An explosion: per-bond falloff damage plus an outward impulse, keyed by
/// its event id.
///
/// Damage follows [`smithereens_core::FalloffDamage`]: each intact bond at
/// distance `d` (m) from `point` takes `damage · f(d)` du, with `f = 1` for
/// `d ≤ inner_radius`, falling linearly to `0` at `radius` (NVIDIA Blast's
/// falloff damage, `NvBlastExtFalloffGraphShader`). Unlike the renormalised
/// radial event (a budget shared out over the bonds in range), a blast does
/// not weaken when the fracture is finer (issue 11, item 4).
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize)]
pub struct Explosion {
    /// Idempotency key.
    pub id: EventId,
    /// Centre, world, m.
    pub point: Vec3,
    /// Outer radius of damage and impulse, m (> 0): bonds and bodies this
    /// far or farther take nothing.
    pub radius: f32,
    /// Damage to each bond within `inner_radius`, du (≥ 0); less beyond it,
    /// none from `radius` on.
    pub damage: f32,
    /// Impulse at the centre, N·s, falling off linearly to zero at `radius`,
    /// applied to each dynamic cluster at its point nearest the centre,
    /// directed away from `point` (linear and angular; capped, see
    /// [`super::DestructionSettings::max_blast_speed`]).
    pub impulse: f32,
    /// Inner radius of the damage falloff, m (`0 ≤ inner_radius ≤ radius`):
    /// bonds this close take the full `damage`. Absent in files written
    /// before falloff damage: read as 0 (linear from the centre).
    #[serde(default)]
    pub inner_radius: f32,
}

impl Explosion {
    /// The damage event this explosion admits on an instance (no impulse:
    /// the set applies the blast impulse itself, see [`DestructionSet::explode`]).
    pub fn damage_event(&self) -> FalloffDamage {
        FalloffDamage {
            id: self.id,
            point: self.point,
            inner_radius: self.inner_radius,
            outer_radius: self.radius,
            damage: self.damage,
            impulse: None,
        }
    }
}

/// The serde shape of [`Explosion`].
#[derive(serde::Deserialize)]
#[serde(rename = "Explosion")]
struct ExplosionRepr {
    id: EventId,
    point: Vec3,
    radius: f32,
    damage: f32,
    impulse: f32,
    #[serde(default)]
    inner_radius: f32,
}

/// An explosion as set snapshots of format 2 stored it (no inner radius;
/// its damage was a radial budget, already frozen in the instance's
/// pending event).
#[derive(serde::Deserialize)]
#[serde(rename = "Explosion")]
struct LegacyExplosion {
    id: EventId,
    point: Vec3,
    radius: f32,
    damage: f32,
    impulse: f32,
}

impl<'de> serde::Deserialize<'de> for Explosion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if smithereens_core::codec::legacy_event_layout() {
            let e = LegacyExplosion::deserialize(d)?;
            return Ok(Self {
                id: e.id,
                point: e.point,
                radius: e.radius,
                damage: e.damage,
                impulse: e.impulse,
                inner_radius: 0.0,
            });
        }
        let e = ExplosionRepr::deserialize(d)?;
        Ok(Self {
            id: e.id,
            point: e.point,
            radius: e.radius,
            damage: e.damage,
            impulse: e.impulse,
            inner_radius: e.inner_radius,
        })
    }
}

/// Heaviest projectile accepted, kg (1,000 t). Rapier's solver loses
/// contacts between bodies whose masses differ by many orders of magnitude
/// (a 1e25 kg ball passed through a wall with no contact at all).
pub const MAX_PROJECTILE_MASS: f32 = 1.0e6;
/// Fastest projectile accepted, m/s (above a tank round's muzzle velocity).
pub const MAX_PROJECTILE_SPEED: f32 = 2000.0;

/// A projectile to launch: a solid sphere with continuous collision detection.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ProjectileDesc {
    /// Start position, world, m.
    pub position: Vec3,
    /// Start velocity, m/s (speed ≤ [`MAX_PROJECTILE_SPEED`]).
    pub velocity: Vec3,
    /// Radius, m (> 0).
    pub radius: f32,
    /// Mass, kg (> 0, ≤ [`MAX_PROJECTILE_MASS`]).
    pub mass: f32,
}

impl DestructionSet {
    /// Admits an explosion on an instance: falloff damage now (see
    /// [`Explosion`]; applied at the next safe point) and, once that commit succeeds, an outward impulse on
    /// every dynamic cluster of the instance with a point within `radius`. The impulse enters the dynamics exactly once per event id: a
    /// repeated id, or a commit that fails and is retried, never applies it twice.
    ///
    /// # Errors
    /// [`SetAdmitError`]: a stale handle, or any damage error (bad radii
    /// — [`smithereens_core::DamageError::BadFalloffRadii`] —, damage, point
    /// or impulse, or an id reused with different parameters); nothing
    /// changes on error.
    pub fn explode(
        &mut self,
        physics: &PhysicsWorld,
        h: InstanceHandle,
        blast: Explosion,
    ) -> Result<smithereens_core::Admission, SetAdmitError> {
        if !(blast.impulse.is_finite() && blast.impulse >= 0.0) {
            return Err(smithereens_core::DamageError::NonFiniteImpulse(Vec3::splat(
                blast.impulse,
            ))
            .into());
        }
        self.entry(h)?;
        self.sync_motions(physics, h);
        let e = self.entry_mut(h)?;
        // The core checks the damage parameters; the impulse is ours to check.
        if let Some((existing, _)) = e.blasts.get(&blast.id)
            && existing.impulse.to_bits() != blast.impulse.to_bits()
        {
            return Err(smithereens_core::DamageError::ConflictingEvent(blast.id.0).into());
        }
        let admission = e.instance.admit(blast.damage_event())?;
        e.blasts.entry(blast.id).or_insert((blast, false));
        self.mark_dirty(h);
        Ok(admission)
    }
}

/// Applies an explosion's impulse to every dynamic body of an instance
/// within its radius, at the body's point nearest the blast centre `c`
/// (over its colliders; `d` its distance): `J = impulse · (1 − d/R)` along
/// the direction from `c` to that point (from `c` to the centre of mass when
/// `c` is inside the body). Applied at the point, it gives `Δv = J/m` and
/// `Δω = I⁻¹ (r × J)`; both are then scaled down together so that
/// `|Δv| ≤ max_speed` (m/s) and `|Δω| ≤ max_spin` (rad/s).
pub(super) fn apply_blast(
    physics: &mut PhysicsWorld,
    bodies: &BTreeMap<ClusterHandle, RigidBodyHandle>,
    blast: &Explosion,
    max_speed: f32,
    max_spin: f32,
) {
    for &rb in bodies.values() {
        let Some(body) = physics.bodies.get(rb).filter(|b| b.is_dynamic()) else {
            continue;
        };
        let mut nearest: Option<(f32, Vec3)> = None;
        for &ch in body.colliders() {
            let Some(c) = physics.colliders.get(ch) else {
                continue;
            };
            let p = c
                .shape()
                .project_point(c.position(), blast.point, true)
                .point;
            let d = p.distance(blast.point);
            if nearest.is_none_or(|(best, _)| d < best) {
                nearest = Some((d, p));
            }
        }
        let Some((d, point)) = nearest else {
            continue;
        };
        if d >= blast.radius {
            continue;
        }
        let dir = if d > 1e-6 {
            (point - blast.point) / d
        } else {
            (body.center_of_mass() - blast.point).normalize_or(Vec3::Y)
        };
        let j = dir * blast.impulse * (1.0 - d / blast.radius);
        let Some(body) = physics.bodies.get_mut(rb) else {
            continue;
        };
        let (v0, w0) = (body.linvel(), body.angvel());
        body.apply_impulse_at_point(j, point, true);
        let (dv, dw) = (body.linvel() - v0, body.angvel() - w0);
        let scale = 1.0f32
            .min(max_speed / dv.length().max(f32::MIN_POSITIVE))
            .min(max_spin / dw.length().max(f32::MIN_POSITIVE));
        if scale < 1.0 && scale.is_finite() {
            body.set_linvel(v0 + dv * scale, true);
            body.set_angvel(w0 + dw * scale, true);
        }
    }
}

/// Applies the summed transfers of one commit: each cluster that is now
/// dynamic gets its impulse at the centre of mass, scaled down so its speed
/// change does not exceed the fastest approach among its hits.
///
/// Only hits by game bodies transfer (a thrown ball, a vehicle, the
/// convenience world's projectiles): the body has already bounced off the
/// fixed wall, so handing the wall's share to the freed piece adds momentum
/// that was never taken from anyone; bounded by the approach speed that is a
/// deliberate gameplay approximation. Debris hitting fixed chunks does not
/// transfer: that feedback (fast debris frees pieces that become faster
/// debris) grew speeds from 24 m/s to 10 km/s in five steps in the built-in
/// wall scenario before this rule.
pub(super) fn apply_transfers(
    physics: &mut PhysicsWorld,
    bodies: &BTreeMap<ClusterHandle, RigidBodyHandle>,
    pushes: &BTreeMap<ClusterHandle, (Vec3, f32)>,
) {
    for (h, &(j, max_speed)) in pushes {
        let Some(&rb) = bodies.get(h) else {
            continue;
        };
        let Some(body) = physics.bodies.get_mut(rb).filter(|b| b.is_dynamic()) else {
            continue;
        };
        let dv = j / body.mass();
        let dv = if dv.length() > max_speed {
            dv * (max_speed / dv.length())
        } else {
            dv
        };
        if dv.is_finite() {
            body.set_linvel(body.linvel() + dv, true);
        }
    }
}
