//! From a converged stress solve to bond damage over one time step.
//!
//! For each bond and failure mode (compression, tension, shear) the stress
//! σ is compared with the bond material's limits ([`Material`]):
//!
//! * `σ ≤ elastic`: nothing;
//! * `elastic < σ < fatal`: `damage_rate · (σ − elastic) · dt` du, taking
//!   the worst mode (the modes share the same fibres, so overshoots are not
//!   added); capped at the bond's remaining health;
//! * `σ ≥ fatal` (and above elastic) in any mode: the bond breaks; its
//!   damage is its whole remaining health and `fatal` is set.
//!
//! Because the damage is a rate times `dt`, the health left after a given
//! time under a given load is the same at any step size.
//!
//! # Becoming an event
//! The list is deterministic (ascending bond index, one entry per damaged
//! bond) so that it can be carried as is. The instance integration (not in
//! this module) wraps one solve's list into a `StressDamage` damage event
//! whose id is derived from (instance, solve step): admission records it
//! like any other event, and its application writes `h ← max(0, h − d)`
//! per entry (`h ← 0` when `fatal`) through the same batch → islands →
//! commit path as radial and spread damage (DESIGN §3.3–3.8, §6). A bond
//! already broken by an earlier event of the batch is skipped.

use crate::index::BondIndex;
use crate::stress::StressError;
use crate::stress::material::{Material, StressMaterials};
use crate::stress::solver::{BondStress, StressReport};

/// Damage one bond takes from stress over one step (an entry of a
/// [`crate::StressDamage`] event).
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StressBondDamage {
    /// The bond.
    pub bond: BondIndex,
    /// Damage, du (≥ 0, finite; at most the bond's health when made by
    /// [`stress_damage`]).
    pub damage: f32,
    /// A stress reached the fatal limit: the bond breaks now.
    pub fatal: bool,
}

/// The damage of one bond under `s` for `dt` seconds (du, fatal), before
/// the health cap.
pub fn damage_of(material: &Material, s: &BondStress, dt: f32) -> (f32, bool) {
    let mut overshoot = 0.0f32;
    let mut fatal = false;
    for (limit, sigma) in [
        (material.compression, s.compression),
        (material.tension, s.tension),
        (material.shear, s.shear),
    ] {
        overshoot = overshoot.max(limit.overshoot(sigma));
        fatal |= sigma > limit.elastic && sigma >= limit.fatal;
    }
    (material.damage_rate * overshoot * dt, fatal)
}

/// Appends to `out` the damage of every bond of `stresses` over a step of
/// `dt` seconds (never clears `out`), ascending by bond index as `stresses`
/// is.
///
/// * `report`: the solve that produced `stresses`; it must have
///   `residual ≤ epsilon`, so that bonds break only from converged solves.
/// * `health`: one entry per bond of the asset, du.
///
/// # Errors
/// [`StressError::BadTimeStep`] unless `dt` is positive and finite,
/// [`StressError::Unconverged`] when the residual exceeds `epsilon`,
/// [`StressError::BondOutOfRange`] for a bond past `health`. Nothing is
/// appended on error.
pub fn stress_damage(
    report: &StressReport,
    epsilon: f32,
    stresses: &[BondStress],
    materials: &StressMaterials,
    health: &[f32],
    dt: f32,
    out: &mut Vec<StressBondDamage>,
) -> Result<(), StressError> {
    if !(dt.is_finite() && dt > 0.0) {
        return Err(StressError::BadTimeStep(dt));
    }
    if !(report.residual <= epsilon) {
        return Err(StressError::Unconverged {
            residual: report.residual,
            epsilon,
        });
    }
    if let Some(s) = stresses.iter().find(|s| s.bond.0 as usize >= health.len()) {
        return Err(StressError::BondOutOfRange(s.bond));
    }
    debug_assert!(stresses.windows(2).all(|w| w[0].bond < w[1].bond));
    for s in stresses {
        let h = health[s.bond.0 as usize];
        if !(h > 0.0) {
            continue;
        }
        let (d, fatal) = damage_of(materials.of(s.bond), s, dt);
        let damage = if fatal { h } else { d.min(h) };
        if damage > 0.0 || fatal {
            out.push(StressBondDamage {
                bond: s.bond,
                damage,
                fatal,
            });
        }
    }
    Ok(())
}
