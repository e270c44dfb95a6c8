//! Landing sub-steps: how many equal sub-steps a frame needs so that no
//! body touching something can close in on it, or swing a corner into it,
//! further than a set distance within one step.
//!
//! Rapier computes contacts once per step, before the solver. A convex
//! piece that lands on a corner gets a contact at that corner only (the
//! manifold holds the features closest along the normal); the corner's
//! impulse spins it up within the step and the rest of the piece swings
//! into the ground unseen until the next step. Measured in the `tower`
//! built-in at 1/60 s (`cargo run --release -p smithereens-scenario
//! --example landing_dents -- tower`): a one-chunk piece landing at
//! 9 rad/s spun up to 30 rad/s and dipped 13 cm into the ground for one
//! frame. Neither a larger prediction distance (5–20 cm), CCD (Rapier's
//! skips pairs already in contact), Rapier's contact recycling (off: 12 cm)
//! nor more solver iterations change it; the same scene at 1/120 s dips
//! 2.6 cm.
//!
//! [`LandingSubsteps::substeps`] looks at the awake dynamic bodies with an
//! active contact at the start of the frame and bounds how far each can
//! close in on what it touches within the frame: `(a + |ω|·r)·dt`, with `a`
//! the fastest approach along one of its contact normals (relative to the
//! partner's linear velocity; sliding and rolling give none), `ω` its spin
//! and `r` its colliders' bounding radius about the centre of mass. The
//! frame is run as `k = ⌈sweep / max_sweep⌉` sub-steps of `dt / k` (at most
//! `max_substeps`), each a whole step with its safe point. Bodies in free
//! flight do not count (speculative contacts and CCD see their approach),
//! nor do balls (their contact is exact however they turn) nor sleeping
//! bodies: a frame in which nothing lands costs O(awake bodies) and runs as
//! one step.
//!
//! # Measured (`landing_dents`, 600 steps at 1/60 s, fracture seeds 1–8 of
//! the built-ins `bridge`, `tower`, `tower-gravity`, `wall`: 32 runs)
//!
//! Deepest transient dent of any chunk's render mesh in the ground, worst
//! and median over the 32 runs, and the extra steps run (Σ (k − 1) per
//! run, mean of the four scenes' means):
//!
//! | `max_sweep` | worst | median | extra steps per 600 frames |
//! | --- | --- | --- | --- |
//! | off (one step per frame) | 49.9 cm (tower-gravity; tower 14.9) | 4.4–7.7 cm | 0 |
//! | 0.03 m | 4.7 cm | 1.5–2.5 cm | 348–558 |
//! | 0.05 m | 6.0 cm | 1.9–2.8 cm | 251–325 |
//! | **0.08 m (default)** | **4.5 cm** | **2.5–2.9 cm** | **133–175** |
//! | 0.12 m | 6.9 cm | 2.5–4.7 cm | 63–86 |
//! | 0.2 m | 12.4 cm | 4.4–5.9 cm | 13–26 |
//!
//! Every row was measured with a parting rule that is not in this
//! version (branch `parting-sink` of the repository, `PARTING_SINK`: a piece
//! parting from the fixed chunks of its instance that sinks more than 1 cm
//! into one of them on a contact carrying it from below stops parting and
//! lands on it). Without that rule, at 0.03 m, pieces parting through the
//! fixed chunks ended up to 36 cm deep in the ground; with neither, the
//! worst was 54 cm in tower-gravity and 18.6 cm in the tower, whose own
//! bound is 15 cm.
//!
//! **Off by default** ([`crate::recorded_run::ScriptedRun::landing`] is
//! `None`): with sub-steps and the parting rule on, eleven scene tests
//! change outcome (the 450 kg ball keeps 8,348 of 10,800 N·s three steps
//! after the break, the tower's top third stays up, the wall-gravity
//! lintel and three loose wall pieces stay wedged, recorded hashes move)
//! and are not yet re-measured.
//!
//! # A game's loop
//!
//! ```ignore
//! let k = landing.substeps(&physics);
//! let frame_dt = physics.integration_parameters.dt;
//! physics.integration_parameters.dt = frame_dt / k as f32;
//! for _ in 0..k {
//!     set.before_step(&physics);
//!     physics.step_with_events(&hooks, &BothEvents(&my_events, set.events()));
//!     let report = set.after_step(&mut physics);
//! }
//! physics.integration_parameters.dt = frame_dt;
//! ```
//!
//! Rapier warm-starts every contact and joint with the previous step's
//! impulse, which is proportional to the step length: on the first of `k`
//! sub-steps, scale `integration_parameters.warmstart_coefficient` by
//! `1 / k` (and restore it), as [`crate::recorded_run`] does. (Scaling it
//! up by `k` on the frame after was tried: the overshoot threw a tower
//! piece through the ground.)
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
    /// Largest distance a body in contact may close in on what it touches
    /// in one sub-step, m (> 0, finite). Default 8 cm (see the table in
    /// the module docs).
    pub max_sweep: f32,
    /// Most sub-steps in one frame (1..=16). Default 4: a piece landing at
    /// 7 m/s with 10 rad/s of spin and a 0.4 m radius closes in by 18 cm
    /// per 1/60 s frame, 4.5 cm per quarter.
    pub max_substeps: u32,
}

impl Default for LandingSubsteps {
    fn default() -> Self {
        Self {
            max_sweep: 0.08,
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
