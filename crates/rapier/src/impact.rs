//! Contact impulses → spreading damage events: the one documented mapping.
//!
//! A **contact episode** is a collider pair's impact: it opens on the first
//! step the pair reports a contact impulse while its surfaces approached
//! each other at `min_approach_speed` (m/s) or faster just before the step
//! (normal component of the relative velocity of the contact point, from
//! the bodies' pre-step velocities), and it goes on over the following
//! consecutive steps while the pair still reports impulse and still
//! approached at the start of the step (≥ [`CONTINUE_FRACTION`] ×
//! `min_approach_speed`). Its impulse `J` (N·s) is the sum of the pair's
//! contact impulses over those steps, read from Rapier's narrow phase after
//! each step (see [`crate::set::contact`]). When the episode ends (the first step without an
//! approaching impulse), it becomes one damage event:
//!
//! `D = damage_per_impulse · (J − threshold)` du, a
//! [`smithereens_core::SpreadDamage`] that starts at the touched chunk and
//! spreads ring by ring through the bond graph (at most `max_rings` rings),
//! so a harder hit breaks more: the budgets of 45 kg, 450 kg, 4.5 t and 45 t
//! balls at 24 m/s break 4, 99, 294 and 294 of the 294 bonds of a 16 × 10
//! wall of 0.25 m cubes, where the former fixed 0.35 m radius broke the
//! same few bonds for all of them.
//!
//! The episode's impulse is Newton's `J = m_eff·(1 + e)·v` at the speed `v`
//! at which the integrator's trajectory met the surface, whatever the time
//! step or solver iterations: a 10 kg box dropped 0.40–0.60 m onto a fixed
//! chunk (every phase of a step) deals Newton's damage within −0.9 … 0.0 %
//! at 1/60 s and 1/120 s with 1 or 4 substeps and −1.5 … 0.0 % at 1/240 s,
//! so the threshold and the damage do not change with the step
//! (`tests/contact_episodes.rs`). A fast body whose pose Rapier's CCD
//! clamped to the surface in the step before the contact (keeping its
//! velocity) is measured from its state one step earlier (the set's flight
//! log of fast bodies).
//!
//! The approach-speed gate is what keeps resting contact free: a load at rest
//! (a chunk on the ground, a chunk under a stack of any height) has an
//! approach speed of ~0 whatever its weight, so it never opens an episode.
//! The impulse threshold filters light taps.
//!
//! When the touched chunk belongs to a *fixed* (supported) body, the solver
//! absorbed its impulse; the event then carries `impulse_transfer ×` that
//! impulse, capped so the touched chunk alone would not exceed the approach
//! speed, and the commit hands it once to the cluster that breaks free there. With the defaults a
//! 20 kg ball at 30 m/s (600 N·s of momentum) delivers several hundred du.

use serde::{Deserialize, Serialize};

/// An episode goes on while the pair approached at the start of the step at
/// this fraction of `min_approach_speed` or faster.
pub const CONTINUE_FRACTION: f32 = 0.1;

/// Default [`ImpactDamage::max_rings`]: 16 rings of the bond graph (a
/// 0.25 m fracture reaches about 4 m from the touched chunk).
pub const DEFAULT_IMPACT_RINGS: u32 = 16;

/// Parameters of the impulse → damage mapping.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImpactDamage {
    /// du per N·s of impulse above the threshold.
    pub damage_per_impulse: f32,
    /// N·s per contact episode below which a contact causes no damage.
    pub threshold: f32,
    /// Reach of the resulting spreading event: most rings of the bond graph
    /// its budget may cross (≥ 1; default 16). What is left past them is
    /// reported unspent ([`smithereens_core::commit::PlannedEvent`]).
    pub max_rings: u32,
    /// Minimum approach speed of the contact point, m/s, for any damage.
    pub min_approach_speed: f32,
    /// Fraction (0–1) of the impulse a *fixed* chunk absorbed that is handed to
    /// the pieces breaking free at the hit (see `DestructionWorld::step`).
    pub impulse_transfer: f32,
}

impl Default for ImpactDamage {
    fn default() -> Self {
        Self {
            damage_per_impulse: 1.0,
            threshold: 20.0,
            max_rings: DEFAULT_IMPACT_RINGS,
            min_approach_speed: 1.0,
            impulse_transfer: 1.0,
        }
    }
}

impl ImpactDamage {
    /// Damage budget (du) for a contact that delivered `impulse` (N·s) after
    /// approaching at `approach_speed` (m/s); zero at or below either threshold.
    pub fn damage(&self, impulse: f32, approach_speed: f32) -> f32 {
        if !(impulse.is_finite() && approach_speed.is_finite())
            || approach_speed < self.min_approach_speed
        {
            return 0.0;
        }
        (self.damage_per_impulse * (impulse - self.threshold)).max(0.0)
    }

    /// Checks the ranges: all finite, `damage_per_impulse ≥ 0`, `threshold ≥ 0`, `max_rings ≥ 1`.
    ///
    /// # Errors
    /// [`crate::BackendError::BadSetting`] naming the first bad field.
    pub fn validate(&self) -> Result<(), crate::BackendError> {
        let bad = |name, value, reason| {
            Err(crate::BackendError::BadSetting {
                name,
                value,
                reason,
            })
        };
        if !(self.damage_per_impulse.is_finite() && self.damage_per_impulse >= 0.0) {
            return bad(
                "damage_per_impulse",
                self.damage_per_impulse,
                "finite and ≥ 0",
            );
        }
        if !(self.threshold.is_finite() && self.threshold >= 0.0) {
            return bad("threshold", self.threshold, "finite and ≥ 0");
        }
        if self.max_rings == 0 {
            return bad("max_rings", 0.0, "≥ 1");
        }
        if !(self.impulse_transfer.is_finite() && (0.0..=1.0).contains(&self.impulse_transfer)) {
            return bad("impulse_transfer", self.impulse_transfer, "in [0, 1]");
        }
        if !(self.min_approach_speed.is_finite() && self.min_approach_speed >= 0.0) {
            return bad(
                "min_approach_speed",
                self.min_approach_speed,
                "finite and ≥ 0",
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damage_is_linear_above_the_threshold_and_zero_below() {
        let m = ImpactDamage {
            damage_per_impulse: 2.0,
            threshold: 10.0,
            max_rings: 4,
            min_approach_speed: 1.0,
            impulse_transfer: 1.0,
        };
        assert_eq!(m.damage(5.0, 3.0), 0.0);
        assert_eq!(m.damage(10.0, 3.0), 0.0);
        assert_eq!(m.damage(15.0, 3.0), 10.0);
        assert_eq!(m.damage(f32::NAN, 3.0), 0.0);
    }

    #[test]
    fn a_heavy_load_at_rest_does_no_damage_however_large_its_impulse() {
        // A 3 t wall resting at 60 Hz: J = m g Δt = 490.5 N·s, approach speed ~0.
        let j = 3000.0 * 9.81 / 60.0;
        assert_eq!(ImpactDamage::default().damage(j, 0.01), 0.0);
        // The same impulse from an impact at 5 m/s does damage.
        assert!(ImpactDamage::default().damage(j, 5.0) > 400.0);
    }

    #[test]
    fn bad_settings_are_rejected() {
        assert!(
            ImpactDamage {
                max_rings: 0,
                ..Default::default()
            }
            .validate()
            .is_err()
        );
        assert!(
            ImpactDamage {
                threshold: f32::NAN,
                ..Default::default()
            }
            .validate()
            .is_err()
        );
        assert!(
            ImpactDamage {
                damage_per_impulse: -1.0,
                ..Default::default()
            }
            .validate()
            .is_err()
        );
        assert!(ImpactDamage::default().validate().is_ok());
    }
}
