//! Radial damage: the exact distribution rule of DESIGN §3.3
//! (destruction-system seed, "径向伤害分配").
//!
//! For the intact bonds within radius `R` of the impact point, with frozen
//! distances `dᵢ` and budget `D`:
//!
//! `wᵢ = max(0, 1 − dᵢ/R)`, `Δhᵢ = D · wᵢ / Σⱼ wⱼ`, `hᵢ ← max(0, hᵢ − Δhᵢ)`.
//!
//! Only intact bonds inside `R` count in the denominator; with a zero
//! denominator the event changes nothing. Damage beyond a bond's remaining
//! health is dissipated, never re-spread, so `Σ applied ≤ D`.

use crate::error::DamageError;
use crate::index::BondIndex;
use glam::Vec3;
use serde::{Deserialize, Serialize};

/// Caller-chosen identity of a damage event, unique per asset instance.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EventId(pub u64);

impl std::fmt::Display for EventId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A radial damage event (and optional explosion impulse), world space.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RadialDamage {
    /// Idempotency key: the same id is applied at most once.
    pub id: EventId,
    /// Impact point, m, world space.
    pub point: Vec3,
    /// Radius R, m. Positive and finite.
    pub radius: f32,
    /// Damage budget D, du. Non-negative and finite.
    pub damage: f32,
    /// Optional impulse J, N·s, applied once at `point` to the cluster that
    /// holds the chunk nearest to `point` after the commit.
    pub impulse: Option<Vec3>,
}

impl RadialDamage {
    /// Checks the parameter ranges of §3.3.
    ///
    /// # Errors
    /// [`DamageError::BadRadius`], [`DamageError::BadDamage`],
    /// [`DamageError::NonFinitePoint`], [`DamageError::NonFiniteImpulse`].
    pub fn validate(&self) -> Result<(), DamageError> {
        if !(self.radius.is_finite() && self.radius > 0.0) {
            return Err(DamageError::BadRadius(self.radius));
        }
        if !(self.damage.is_finite() && self.damage >= 0.0) {
            return Err(DamageError::BadDamage(self.damage));
        }
        if !self.point.is_finite() {
            return Err(DamageError::NonFinitePoint(self.point));
        }
        if let Some(j) = self.impulse
            && !j.is_finite()
        {
            return Err(DamageError::NonFiniteImpulse(j));
        }
        Ok(())
    }

    /// True when both events carry bit-identical parameters (the id aside).
    pub fn same_parameters(&self, other: &Self) -> bool {
        let bits = |e: &Self| {
            let j = e.impulse.map(|j| j.to_array().map(f32::to_bits));
            (
                e.point.to_array().map(f32::to_bits),
                e.radius.to_bits(),
                e.damage.to_bits(),
                j,
            )
        };
        bits(self) == bits(other)
    }
}

/// A bond inside the radius at admission, with its frozen distance (m).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DamageCandidate {
    /// The bond.
    pub bond: BondIndex,
    /// Distance from the bond centroid (world, at admission) to the impact point, m.
    pub distance: f32,
}

/// Applies one radial event to `health` (one entry per bond, du).
///
/// `candidates` are visited in the given order (admission sorts them by bond
/// index, which fixes the float summation order). Bonds already at zero are
/// skipped and the remaining weights renormalised. Newly broken bonds are
/// appended to `broken`. Returns the damage actually removed from health
/// (≤ `damage`; the rest is dissipated).
///
/// Out-of-range bond indices are ignored (admission never produces them).
pub fn apply_radial(
    health: &mut [f32],
    candidates: &[DamageCandidate],
    radius: f32,
    damage: f32,
    broken: &mut Vec<BondIndex>,
) -> f32 {
    let weight = |c: &DamageCandidate| (1.0 - c.distance / radius).max(0.0);
    let mut total = 0.0f32;
    for c in candidates {
        if health.get(c.bond.0 as usize).is_some_and(|&h| h > 0.0) {
            total += weight(c);
        }
    }
    if !(total > 0.0) {
        return 0.0;
    }
    let mut removed = 0.0f32;
    for c in candidates {
        let Some(h) = health.get_mut(c.bond.0 as usize) else {
            continue;
        };
        if *h <= 0.0 {
            continue;
        }
        let w = weight(c);
        if w == 0.0 {
            continue;
        }
        let delta = damage * w / total;
        let after = (*h - delta).max(0.0);
        removed += *h - after;
        *h = after;
        if after == 0.0 {
            broken.push(c.bond);
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cands() -> Vec<DamageCandidate> {
        vec![
            DamageCandidate {
                bond: BondIndex(0),
                distance: 0.0,
            },
            DamageCandidate {
                bond: BondIndex(1),
                distance: 1.0,
            },
        ]
    }

    #[test]
    fn worked_example_strengths_10_and_4_become_6_and_2_then_2_and_0() {
        let mut h = [10.0f32, 4.0];
        let mut broken = Vec::new();
        let removed = apply_radial(&mut h, &cands(), 2.0, 6.0, &mut broken);
        assert_eq!(h, [6.0, 2.0]);
        assert_eq!(removed, 6.0);
        assert!(broken.is_empty());
        let removed = apply_radial(&mut h, &cands(), 2.0, 6.0, &mut broken);
        assert_eq!(h, [2.0, 0.0]);
        assert_eq!(broken, vec![BondIndex(1)]);
        // The 2 du that exceeded bond 1's remaining 2 du were dissipated, not re-spread.
        assert_eq!(removed, 6.0);
    }

    #[test]
    fn broken_bonds_leave_the_set_and_weights_renormalise() {
        let mut h = [10.0f32, 0.0];
        let mut broken = Vec::new();
        apply_radial(&mut h, &cands(), 2.0, 6.0, &mut broken);
        // Only bond 0 remains: it takes the whole budget.
        assert_eq!(h, [4.0, 0.0]);
        assert!(broken.is_empty());
    }

    #[test]
    fn overflow_beyond_zero_is_dissipated() {
        let mut h = [1.0f32, 100.0];
        let mut broken = Vec::new();
        let removed = apply_radial(&mut h, &cands(), 2.0, 6.0, &mut broken);
        // Bond 0 would take 4 but has 1; bond 1 takes exactly its share 2.
        assert_eq!(h, [0.0, 98.0]);
        assert_eq!(removed, 3.0);
        assert_eq!(broken, vec![BondIndex(0)]);
    }

    #[test]
    fn zero_denominator_changes_nothing() {
        let mut h = [10.0f32, 4.0];
        let far = [DamageCandidate {
            bond: BondIndex(0),
            distance: 2.0,
        }];
        let mut broken = Vec::new();
        assert_eq!(apply_radial(&mut h, &far, 2.0, 6.0, &mut broken), 0.0);
        assert_eq!(h, [10.0, 4.0]);
    }

    #[test]
    fn validation_rejects_zero_negative_and_non_finite_parameters() {
        let ok = RadialDamage {
            id: EventId(1),
            point: Vec3::ZERO,
            radius: 2.0,
            damage: 6.0,
            impulse: None,
        };
        assert!(ok.validate().is_ok());
        assert_eq!(
            RadialDamage { radius: 0.0, ..ok }.validate(),
            Err(DamageError::BadRadius(0.0))
        );
        assert_eq!(
            RadialDamage { radius: -1.0, ..ok }.validate(),
            Err(DamageError::BadRadius(-1.0))
        );
        assert!(matches!(
            RadialDamage {
                radius: f32::NAN,
                ..ok
            }
            .validate(),
            Err(DamageError::BadRadius(_))
        ));
        assert_eq!(
            RadialDamage { damage: -1.0, ..ok }.validate(),
            Err(DamageError::BadDamage(-1.0))
        );
        assert!(matches!(
            RadialDamage {
                damage: f32::INFINITY,
                ..ok
            }
            .validate(),
            Err(DamageError::BadDamage(_))
        ));
        assert!(matches!(
            RadialDamage {
                point: Vec3::NAN,
                ..ok
            }
            .validate(),
            Err(DamageError::NonFinitePoint(_))
        ));
        assert!(matches!(
            RadialDamage {
                impulse: Some(Vec3::new(f32::NAN, 0.0, 0.0)),
                ..ok
            }
            .validate(),
            Err(DamageError::NonFiniteImpulse(_))
        ));
        // D = 0 is allowed (a pure impulse event).
        assert!(RadialDamage { damage: 0.0, ..ok }.validate().is_ok());
    }
}
