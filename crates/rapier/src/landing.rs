//! Landing sub-steps: how many equal sub-steps a frame needs so that no
//! body touching something sweeps further than a set distance in one step.
//!
//! Rapier computes contacts once per step, before the solver. A convex
//! piece that lands on a corner gets a contact at that corner only (the
//! manifold holds the features closest along the normal); the corner's
//! impulse spins it up within the step, and the rest of the piece swings
//! into the ground unseen until the next step. Measured in the `tower`
//! built-in at 1/60 s (`cargo run --release -p smithereens-scenario
//! --example landing_dents -- tower`): a one-chunk piece landing at
//! 9 rad/s spun up to 30 rad/s and dipped 13.3 cm into the ground for one
//! frame; neither a larger prediction distance (5–20 cm) nor CCD (which
//! skips pairs already in contact) changes it. The same scene stepped at
//! 1/120 s dips 2.6 cm at most.
//!
//! [`LandingSubsteps::substeps`] looks at the awake dynamic bodies that
//! have an active contact at the start of the frame: a point of such a body
//! moves at most `(|v| + |ω|·r)·dt` in the step (`r` its colliders'
//! bounding radius about the centre of mass, m), an upper bound on how far
//! any feature can swing into what it touches. The frame is run as
//! `k = ⌈sweep / max_sweep⌉` sub-steps of `dt / k` (at most
//! `max_substeps`), each a whole step with its safe point. Bodies in free
//! flight do not count (speculative contacts and CCD handle their
//! approach), nor does anything asleep: a frame where nothing lands costs
//! O(awake bodies) and runs as one step.
//!
//! The decision depends only on the world's state, so replays and peers
//! stepping the same world decide alike. Impact damage is step-length
//! independent to within 1.5 % (see [`crate::impact`]).

use glam::Vec3;
use rapier3d::prelude::*;
use serde::{Deserialize, Serialize};

/// How a frame is split when a body lands (see the module docs).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LandingSubsteps {
    /// Largest distance a point of a body in contact may sweep in one
    /// sub-step, m (> 0, finite). Default 3 cm.
    pub max_sweep: f32,
    /// Most sub-steps in one frame (1..=16). Default 4: a piece landing at
    /// 7 m/s with 10 rad/s of spin and a 0.3 m radius sweeps 17 cm per
    /// 1/60 s frame, 4.3 cm per quarter.
    pub max_substeps: u32,
}

impl Default for LandingSubsteps {
    fn default() -> Self {
        Self {
            max_sweep: 0.03,
            max_substeps: 4,
        }
    }
}

/// A [`LandingSubsteps`] value out of range. Nothing was changed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LandingSubstepsError {
    /// `max_sweep` ≤ 0, NaN or infinite.
    #[error("max_sweep {0} m must be positive and finite")]
    BadSweep(f32),
    /// `max_substeps` outside 1..=16.
    #[error("max_substeps {0} must be in 1..=16")]
    BadSubsteps(u32),
}

impl LandingSubsteps {
    /// Checks the ranges documented on the fields.
    ///
    /// # Errors
    /// The matching [`LandingSubstepsError`].
    pub fn validate(&self) -> Result<(), LandingSubstepsError> {
        if !(self.max_sweep > 0.0) || !self.max_sweep.is_finite() {
            return Err(LandingSubstepsError::BadSweep(self.max_sweep));
        }
        if !(1..=16).contains(&self.max_substeps) {
            return Err(LandingSubstepsError::BadSubsteps(self.max_substeps));
        }
        Ok(())
    }

    /// Sub-steps the next frame of `physics` needs, `1..=max_substeps`,
    /// for a frame of `physics.integration_parameters.dt` seconds.
    pub fn substeps(&self, physics: &PhysicsWorld) -> u32 {
        let dt = physics.integration_parameters.dt;
        let mut worst = 0.0f32;
        for h in physics.islands.active_bodies() {
            let Some(body) = physics.bodies.get(h) else {
                continue;
            };
            if !body.is_dynamic() {
                continue;
            }
            let (v, w) = (body.linvel().length(), body.angvel().length());
            // Cheap bound first: a body that cannot sweep max_sweep even
            // with a 10 m radius needs no look at its contacts.
            if (v + w * 10.0) * dt <= self.max_sweep.max(worst) {
                continue;
            }
            // A ball's contact is exact whatever it turns: no feature of it
            // can swing in unseen.
            let polyhedral = body.colliders().iter().any(|&c| {
                physics
                    .colliders
                    .get(c)
                    .is_some_and(|c| c.shape().as_ball().is_none())
            });
            if !polyhedral {
                continue;
            }
            // The fastest approach along an active contact's normal (the
            // partner's linear velocity subtracted): how fast the body
            // closes in on what it touches. Sliding and rolling add nothing.
            let mut approach: Option<f32> = None;
            for &c in body.colliders() {
                for pair in physics.narrow_phase.contact_pairs_with(c) {
                    if !pair.has_any_active_contact() {
                        continue;
                    }
                    // Each manifold's normal points from collider 1 to 2.
                    let (other, sign) = if pair.collider1 == c {
                        (pair.collider2, 1.0)
                    } else {
                        (pair.collider1, -1.0)
                    };
                    let other_v = physics
                        .colliders
                        .get(other)
                        .and_then(|o| o.parent())
                        .and_then(|b| physics.bodies.get(b))
                        .map_or(Vec3::ZERO, |b| b.linvel());
                    let relative = body.linvel() - other_v;
                    for m in pair.manifolds() {
                        if m.points.is_empty() {
                            continue;
                        }
                        let closing = relative.dot(m.data.normal * sign).max(0.0);
                        approach = Some(approach.map_or(closing, |a: f32| a.max(closing)));
                    }
                }
            }
            let Some(approach) = approach else {
                continue;
            };
            let com = body.center_of_mass();
            let radius = body
                .colliders()
                .iter()
                .filter_map(|&c| physics.colliders.get(c))
                .map(|c| {
                    let sphere = c.shape().compute_local_bounding_sphere();
                    (c.position() * sphere.center()).distance(com) + sphere.radius()
                })
                .fold(0.0f32, f32::max);
            worst = worst.max((approach + w * radius) * dt);
        }
        if !(worst > self.max_sweep) {
            return 1;
        }
        ((worst / self.max_sweep).ceil() as u32).clamp(1, self.max_substeps)
    }
}
