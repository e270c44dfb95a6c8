//! Contact episodes: a collider pair's impact summed over the steps it
//! lasts, so that contact damage does not depend on the time step (see
//! [`crate::impact`] for the rule and its numbers).

use super::contact::ContactHit;
use glam::Vec3;
use std::collections::BTreeMap;

/// One open impact of a collider pair.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Episode {
    /// The first step's hit (colliders, bodies, point, fixed/dynamic flags).
    pub(crate) first: ContactHit,
    /// Σ contact impulse magnitudes over the episode, N·s.
    pub(crate) impulse: f32,
    /// Σ contact impulse vectors on collider 2 over the episode, N·s.
    pub(crate) impulse_on_2: Vec3,
    /// Fastest pre-step approach speed seen, m/s.
    pub(crate) approach: f32,
    /// The impact impulse, N·s: `m_eff · (1 + e) · v_n` at the opening step
    /// (see [`impact_impulse`]).
    pub(crate) impact: f32,
    /// Last step (set step index) that added impulse.
    pub(crate) last_step: u64,
}

/// Open episodes by collider pair, in key order.
pub(crate) type Episodes = BTreeMap<(u32, u32, u32, u32), Episode>;

/// Adds one step's hit to `episodes`: continues the pair's open episode when
/// it still approached (`approach ≥ continue_speed`), opens one when it
/// approached at `open_speed` or faster; otherwise nothing.
pub(crate) fn accumulate(
    episodes: &mut Episodes,
    hit: &ContactHit,
    approach: f32,
    step: u64,
    speeds: (f32, f32),
    impact: impl FnOnce() -> f32,
) {
    let (open_speed, continue_speed) = speeds;
    let key = hit.key();
    if let Some(ep) = episodes.get_mut(&key) {
        if ep.last_step + 1 == step && approach >= continue_speed {
            ep.impulse += hit.impulse;
            ep.impulse_on_2 += hit.impulse_on_2;
            ep.approach = ep.approach.max(approach);
            ep.last_step = step;
        }
        return;
    }
    if approach >= open_speed && hit.impulse.is_finite() && hit.impulse_on_2.is_finite() {
        let impact = impact();
        if !impact.is_finite() {
            return;
        }
        episodes.insert(
            key,
            Episode {
                first: *hit,
                impulse: hit.impulse,
                impulse_on_2: hit.impulse_on_2,
                approach,
                impact,
                last_step: step,
            },
        );
    }
}

/// The impulse of an instantaneous collision at the contact centroid along the unit
/// normal `n` (collider 1 → 2) between two bodies approaching at `v_n` m/s
/// (Newton's restitution law, e.g. Mirtich & Canny 1995):
///
/// `J = (1 + e) · v_n / (1/m₁ + 1/m₂ + (r₁×n)·I₁⁻¹(r₁×n) + (r₂×n)·I₂⁻¹(r₂×n))`
///
/// with `rᵢ` from each body's centre of mass to the point; a fixed or
/// kinematic body contributes no term (infinite mass). `e` is the pair's
/// restitution under Rapier's combine rule. Independent of the time step
/// and the solver iterations by construction.
pub(crate) fn impact_impulse(
    physics: &rapier3d::prelude::PhysicsWorld,
    hit: &ContactHit,
    v_n: f32,
) -> f32 {
    use rapier3d::prelude::CoefficientCombineRule;
    let n = hit.normal;
    let mut inv = 0.0;
    for body in [hit.bodies.0, hit.bodies.1] {
        let Some(b) = body
            .and_then(|h| physics.bodies.get(h))
            .filter(|b| b.is_dynamic())
        else {
            continue;
        };
        let mp = b.mass_properties();
        let r = hit.centroid - b.center_of_mass();
        let c = r.cross(n);
        inv += (mp.effective_inv_mass * n).dot(n) + c.dot(mp.effective_world_inv_inertia * c);
    }
    if inv <= 0.0 {
        return 0.0;
    }
    let (c1, c2) = (
        physics.colliders.get(hit.colliders.0),
        physics.colliders.get(hit.colliders.1),
    );
    let e = match (c1, c2) {
        (Some(a), Some(b)) => CoefficientCombineRule::combine(
            a.restitution(),
            b.restitution(),
            a.restitution_combine_rule(),
            b.restitution_combine_rule(),
        ),
        _ => 0.0,
    };
    (1.0 + e.clamp(0.0, 1.0)) * v_n / inv
}

/// Moves the episodes that gained nothing at `step` (they ended) to `ended`,
/// in key order. Cost O(open episodes).
pub(crate) fn take_ended(episodes: &mut Episodes, step: u64, ended: &mut Vec<Episode>) {
    if episodes.values().all(|e| e.last_step == step) {
        return;
    }
    episodes.retain(|_, e| {
        if e.last_step < step {
            ended.push(*e);
            false
        } else {
            true
        }
    });
}
