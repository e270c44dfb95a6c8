//! Impulses that enter the dynamics exactly once: explosions (keyed by event
//! id) and projectile impulses absorbed by fixed chunks, handed to the piece
//! that breaks free.

use super::DestructionWorld;
use super::contact::ContactHit;
use super::tag::ColliderTag;
use glam::Vec3;
use smithereens_core::{ClusterHandle, EventId, RadialDamage};
use std::collections::BTreeMap;

/// A projectile impulse absorbed by a fixed chunk, handed to the cluster that
/// owns the chunk after the event's commit (once, keyed by the event id).
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(super) struct Transfer {
    pub(super) chunk: smithereens_core::ChunkIndex,
    pub(super) impulse: Vec3,
    pub(super) max_speed: f32,
}

/// An explosion: radial damage plus an outward impulse, keyed by its event id.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Explosion {
    /// Idempotency key.
    pub id: EventId,
    /// Centre, world, m.
    pub point: Vec3,
    /// Radius of damage and impulse, m (> 0).
    pub radius: f32,
    /// Damage budget, du (≥ 0).
    pub damage: f32,
    /// Impulse at the centre, N·s, falling off linearly to zero at `radius`,
    /// applied at each dynamic cluster's centre of mass, directed away from `point`.
    pub impulse: f32,
}

/// A projectile to launch: a solid sphere with continuous collision detection.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ProjectileDesc {
    /// Start position, world, m.
    pub position: Vec3,
    /// Start velocity, m/s.
    pub velocity: Vec3,
    /// Radius, m (> 0).
    pub radius: f32,
    /// Mass, kg (> 0).
    pub mass: f32,
}

impl DestructionWorld {
    /// Admits an explosion: radial damage now (applied at the next safe
    /// point) and, once that commit succeeds, an outward impulse on every
    /// dynamic cluster whose centre of mass lies within `radius`. The impulse
    /// enters the dynamics exactly once per event id: a repeated id, or a
    /// commit that fails and is retried, never applies it twice.
    ///
    /// # Errors
    /// Any [`smithereens_core::DamageError`] (bad radius, damage, point or
    /// impulse, or an id reused with different parameters); nothing changes on error.
    pub fn explode(
        &mut self,
        blast: Explosion,
    ) -> Result<smithereens_core::Admission, smithereens_core::DamageError> {
        if !(blast.impulse.is_finite() && blast.impulse >= 0.0) {
            return Err(smithereens_core::DamageError::NonFiniteImpulse(
                Vec3::splat(blast.impulse),
            ));
        }
        // The core checks the damage parameters; the impulse is ours to check.
        if let Some((existing, _)) = self.blasts.get(&blast.id)
            && existing.impulse.to_bits() != blast.impulse.to_bits()
        {
            return Err(smithereens_core::DamageError::ConflictingEvent(blast.id.0));
        }
        let admission = self.instance.admit(RadialDamage {
            id: blast.id,
            point: blast.point,
            radius: blast.radius,
            damage: blast.damage,
            impulse: None,
        })?;
        self.blasts.entry(blast.id).or_insert((blast, false));
        Ok(admission)
    }

    pub(super) fn apply_blast(&mut self, blast: &Explosion) {
        for &rb in self.bodies.values() {
            let Some(body) = self.physics.bodies.get_mut(rb).filter(|b| b.is_dynamic()) else {
                continue;
            };
            let offset = body.center_of_mass() - blast.point;
            let d = offset.length();
            if d >= blast.radius {
                continue;
            }
            let dir = if d > 1e-6 { offset / d } else { Vec3::Y };
            let j = dir * blast.impulse * (1.0 - d / blast.radius);
            body.apply_impulse(j, true);
        }
    }

    /// The impulse a fixed chunk absorbed in `hit`, to hand to whatever breaks
    /// free there (DESIGN §3.6: it enters the dynamics once, at the commit).
    /// A dynamic chunk already received its impulse from the solver: `None`.
    ///
    /// Only projectile hits transfer. The projectile has already bounced off
    /// the fixed wall, so handing the wall's share to the freed piece adds
    /// momentum that was never taken from anyone; bounded by the projectile's
    /// approach speed that is a deliberate gameplay approximation. Debris
    /// hitting fixed chunks does not transfer: that feedback (fast debris frees
    /// pieces that become faster debris) grew speeds from 24 m/s to 10 km/s in
    /// five steps in the built-in wall scenario before this rule.
    /// Scaled by `impact.impulse_transfer`; applied after the commit to the
    /// cluster that then owns the touched chunk, capped at the approach speed.
    pub(super) fn absorbed_impulse(&self, hit: &ContactHit, approach: f32) -> Option<Transfer> {
        let (chunk, j) = match (hit.tags, hit.fixed) {
            ((a, ColliderTag::Projectile(_)), (true, _)) => {
                (a.authoritative_chunk()?, -hit.impulse_on_2)
            }
            ((ColliderTag::Projectile(_), b), (_, true)) => {
                (b.authoritative_chunk()?, hit.impulse_on_2)
            }
            _ => return None,
        };
        let impulse = j * self.settings.impact.impulse_transfer;
        (impulse.is_finite() && impulse != Vec3::ZERO && approach.is_finite()).then_some(Transfer {
            chunk: smithereens_core::ChunkIndex(chunk),
            impulse,
            max_speed: approach,
        })
    }

    /// Applies the summed transfers of one commit: each cluster that is now
    /// dynamic gets its impulse at the centre of mass, scaled down so its speed
    /// change does not exceed the fastest approach among its hits.
    pub(super) fn apply_transfers(&mut self, pushes: &BTreeMap<ClusterHandle, (Vec3, f32)>) {
        for (h, &(j, max_speed)) in pushes {
            let Some(&rb) = self.bodies.get(h) else {
                continue;
            };
            let Some(body) = self.physics.bodies.get_mut(rb).filter(|b| b.is_dynamic()) else {
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
}
