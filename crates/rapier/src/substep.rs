//! Bounded sub-stepping with a deterministic stall rule (held-projectile
//! seed, 決定 › bounded-step 細分停損; issue 14 item 5).
//!
//! An opt-in stepper over the game's `PhysicsWorld`. A frame is one world
//! step of `dt = integration_parameters.dt`:
//!
//! 1. save the world state, run the step (trial 1), measure the largest
//!    joint anchor error ([`max_joint_anchor_error`]);
//! 2. within `tolerance`: accept, done;
//! 3. over it: restore the saved state and run the interval as segments,
//!    starting at `dt / 2`. Each segment is saved, stepped with the segment
//!    length and measured; over tolerance, it is restored and retried at half
//!    the length, until it is within tolerance or at the minimum length
//!    (`dt / 2^max_depth`), where it is accepted as is. Accepted segments keep
//!    their length for the next one (clamped to the time left). Every step run
//!    is a trial; when only one trial of `max_trials` is left, the rest of the
//!    interval is run as one segment and accepted;
//! 4. **stall rule (world level)**: after `stall_frames` consecutive frames
//!    that needed subdivision, every frame accepts its first trial (counted in
//!    [`SubstepDiagnostics`]) without subdividing, until a frame's first trial
//!    comes in under tolerance. So no run of subdivided frames is longer than
//!    `stall_frames`.
//!
//! Every decision depends only on frame counts and trial results (the
//! measured errors), never on wall time: peers stepping the same world
//! decide the same frame the same way. The decision state
//! ([`SubstepState`]) belongs in a resumable snapshot; the diagnostics are
//! not part of any state hash.
//!
//! Saving the state clones the parts of the world a step writes (bodies,
//! colliders, joints, islands, broad and narrow phase, CCD state). Rapier's
//! `PhysicsWorld` is not `Clone`; every set in it is. The pipeline is only
//! a workspace and is kept (a restored world resumes bit for bit with it;
//! see `tests/substep.rs`).

use rapier3d::prelude::*;
use serde::{Deserialize, Serialize};

/// Settings of a [`BoundedStepper`].
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SubstepSettings {
    /// Largest accepted joint anchor error, m (> 0, finite). Default 0.1 mm,
    /// the seed's bounded-step tolerance, kept after measuring the
    /// `wall_push` built-in (`cargo bench -p smithereens-scenario --bench
    /// wall_push -- --sweep`): with holding colliders one pushing vehicle
    /// never subdivides at 0.05–0.5 mm (its wheel joints sit at 0.003 mm),
    /// eight vehicles subdivide 10 / 0 / 0 / 0 frames at 0.05 / 0.1 / 0.2 /
    /// 0.5 mm; the joint-held design needs 3.1 trials per frame (one
    /// vehicle) at 0.1 mm and still 1.4 at 0.5 mm. 0.1 mm keeps the held
    /// design at one trial per frame with a thirtyfold margin on a pushing
    /// vehicle's joints.
    pub tolerance: f32,
    /// Most trial steps in one frame (≥ 1). Default 64.
    pub max_trials: u32,
    /// Most halvings of the frame: the shortest segment is `dt / 2^max_depth`
    /// (1..=16). Default 4 (dt / 16).
    pub max_depth: u32,
    /// Consecutive subdivided frames after which the stall rule accepts
    /// first trials (≥ 1). Default 8 (133 ms at 60 Hz), from the same
    /// measurements: the held design's longest run of subdivided frames was
    /// 0 at 0.1 mm and 1 at 0.05 mm (eight vehicles, with launches and a
    /// vehicle scraping the wall; 7 at 0.05 mm before the scene's fixes), so
    /// 8 never engages in a well-formed scene; without a limit the
    /// joint-held design's runs reach 19 frames (one vehicle) and, with the
    /// world-level count the seed chose, 257 frames (eight vehicles taking
    /// turns), so the rule caps the storm after 8 frames. Lower values would
    /// cut into legitimate subdivision (impacts take 1–6 frames).
    pub stall_frames: u32,
}

impl Default for SubstepSettings {
    fn default() -> Self {
        Self {
            tolerance: 1e-4,
            max_trials: 64,
            max_depth: 4,
            stall_frames: 8,
        }
    }
}

/// A [`SubstepSettings`] value out of range. Nothing was changed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SubstepError {
    /// `tolerance` ≤ 0, NaN or infinite.
    #[error("tolerance {0} m must be positive and finite")]
    BadTolerance(f32),
    /// `max_trials` is 0.
    #[error("max_trials must be at least 1")]
    NoTrials,
    /// `max_depth` outside 1..=16.
    #[error("max_depth {0} must be in 1..=16")]
    BadDepth(u32),
    /// `stall_frames` is 0.
    #[error("stall_frames must be at least 1")]
    NoStallFrames,
}

impl SubstepSettings {
    /// Checks the ranges documented on the fields.
    ///
    /// # Errors
    /// The matching [`SubstepError`].
    pub fn validate(&self) -> Result<(), SubstepError> {
        if !(self.tolerance > 0.0) || !self.tolerance.is_finite() {
            return Err(SubstepError::BadTolerance(self.tolerance));
        }
        if self.max_trials == 0 {
            return Err(SubstepError::NoTrials);
        }
        if !(1..=16).contains(&self.max_depth) {
            return Err(SubstepError::BadDepth(self.max_depth));
        }
        if self.stall_frames == 0 {
            return Err(SubstepError::NoStallFrames);
        }
        Ok(())
    }
}

/// The decision state of a [`BoundedStepper`]: part of a resumable snapshot.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubstepState {
    /// Consecutive frames that needed subdivision, up to now.
    pub subdivided_run: u32,
    /// The stall rule is engaged: frames accept their first trial.
    pub stalled: bool,
}

/// Counters for tuning and telemetry; never part of a state hash.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubstepDiagnostics {
    /// Frames stepped.
    pub frames: u64,
    /// Trial steps run (a frame without subdivision is one).
    pub trials: u64,
    /// Frames that needed subdivision (and subdivided).
    pub subdivided_frames: u64,
    /// Times the stall rule engaged.
    pub stall_trips: u64,
    /// Frames whose first trial the stall rule accepted over tolerance.
    pub stalled_frames: u64,
    /// Frames accepted with some segment over tolerance (stalled frames,
    /// minimum-length segments, and frames that hit `max_trials`).
    pub accepted_over_tolerance: u64,
    /// Longest run of consecutive subdivided frames.
    pub longest_subdivided_run: u32,
    /// Most trials in one frame.
    pub max_trials_in_frame: u32,
}

/// What one [`BoundedStepper::step`] did.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct FrameOutcome {
    /// Trial steps run this frame (≥ 1).
    pub trials: u32,
    /// Segments accepted (1 without subdivision).
    pub segments: u32,
    /// The frame was subdivided.
    pub subdivided: bool,
    /// The stall rule accepted the first trial.
    pub stalled: bool,
    /// Largest joint anchor error of the accepted segments, m.
    pub error: f32,
    /// Some accepted segment was over tolerance.
    pub over_tolerance: bool,
    /// Largest joint anchor error of the frame's first trial (the full
    /// frame), m: what decided whether it was subdivided.
    pub first_error: f32,
    /// The joint with that error (`None` for a world without measured joints).
    pub first_worst_joint: Option<ImpulseJointHandle>,
}

/// How a frame's trial steps are run, for a game that needs its events:
/// [`FrameStep::step`] runs one Rapier step (with the game's hooks and event
/// handler); [`FrameStep::reject`] says the trial just run was rolled back
/// (drop its buffered events).
pub trait FrameStep {
    /// Runs one step of `physics` (its `integration_parameters.dt` is the segment length).
    fn step(&mut self, physics: &mut PhysicsWorld);
    /// The last step was rolled back.
    fn reject(&mut self) {}
}

/// Plain `physics.step()`, no events.
struct PlainStep;

impl FrameStep for PlainStep {
    fn step(&mut self, physics: &mut PhysicsWorld) {
        physics.step();
    }
}

/// The world state a step writes (see the module docs).
#[derive(Clone)]
struct Saved {
    islands: IslandManager,
    broad_phase: BroadPhaseBvh,
    narrow_phase: NarrowPhase,
    bodies: RigidBodySet,
    colliders: ColliderSet,
    impulse_joints: ImpulseJointSet,
    multibody_joints: MultibodyJointSet,
    soft_bodies: SoftBodySet,
    ccd_solver: CCDSolver,
}

impl Saved {
    fn of(w: &PhysicsWorld) -> Self {
        Self {
            islands: w.islands.clone(),
            broad_phase: w.broad_phase.clone(),
            narrow_phase: w.narrow_phase.clone(),
            bodies: w.bodies.clone(),
            colliders: w.colliders.clone(),
            impulse_joints: w.impulse_joints.clone(),
            multibody_joints: w.multibody_joints.clone(),
            soft_bodies: w.soft_bodies.clone(),
            ccd_solver: w.ccd_solver.clone(),
        }
    }

    fn restore(&self, w: &mut PhysicsWorld) {
        w.islands.clone_from(&self.islands);
        w.broad_phase.clone_from(&self.broad_phase);
        w.narrow_phase.clone_from(&self.narrow_phase);
        w.bodies.clone_from(&self.bodies);
        w.colliders.clone_from(&self.colliders);
        w.impulse_joints.clone_from(&self.impulse_joints);
        w.multibody_joints.clone_from(&self.multibody_joints);
        w.soft_bodies.clone_from(&self.soft_bodies);
        w.ccd_solver.clone_from(&self.ccd_solver);
    }
}

/// Largest joint anchor error of the world, m: over enabled impulse joints
/// between enabled bodies, the distance between the two joint frames'
/// origins in world space, counting only the locked linear axes (of the
/// first frame), so a prismatic joint's free axis is no error. Multibody
/// joints are reduced-coordinate (their anchors coincide by construction)
/// and are not measured. 0 for a world without joints.
pub fn max_joint_anchor_error(physics: &PhysicsWorld) -> f32 {
    worst_joint_anchor_error(physics).1
}

/// [`max_joint_anchor_error`] and the joint that has it (the first in the
/// joint set's order among equal errors; `None` with no measured joint),
/// for diagnostics: which joint made a frame subdivide.
pub fn worst_joint_anchor_error(physics: &PhysicsWorld) -> (Option<ImpulseJointHandle>, f32) {
    let mut worst = 0.0f32;
    let mut worst_joint = None;
    for (handle, j) in physics.impulse_joints.iter() {
        if !j.data.is_enabled() {
            continue;
        }
        let (Some(b1), Some(b2)) = (physics.bodies.get(j.body1()), physics.bodies.get(j.body2()))
        else {
            continue;
        };
        if !b1.is_enabled() || !b2.is_enabled() {
            continue;
        }
        let f1 = *b1.position() * j.data.local_frame1;
        let f2 = *b2.position() * j.data.local_frame2;
        let d = f1.rotation.inverse() * (f2.translation - f1.translation);
        let locked = j.data.locked_axes;
        let pick = |axis: JointAxesMask, x: f32| if locked.contains(axis) { x } else { 0.0 };
        let e = Vector::new(
            pick(JointAxesMask::LIN_X, d.x),
            pick(JointAxesMask::LIN_Y, d.y),
            pick(JointAxesMask::LIN_Z, d.z),
        )
        .length();
        // NaN counts as the worst error (it can never be accepted as within
        // tolerance) and stays the worst once found.
        if worst_joint.is_none() || (!worst.is_nan() && !(e <= worst)) {
            worst = e;
            worst_joint = Some(handle);
        }
    }
    (worst_joint, worst)
}

/// Runs one step of `physics` and rolls it back: the world's state (every
/// set a step writes, see the module docs) is bit for bit what it was, but
/// the pipeline's workspaces have grown to the world's size and the
/// allocator holds the memory a step and a saved state need.
///
/// Call it once after building a level, before the first frame. Without it
/// the world's first frame pays Rapier's first-step allocations and a cold
/// allocator: on the `wall_push` built-in with one vehicle that frame took
/// 0.35–0.71 ms against a 0.05–0.06 ms median (the only frame over 3× the
/// median); after `warm_up` it took at most 0.14 ms (`cargo bench -p
/// smithereens-scenario --bench wall_push`). It costs one step plus one
/// saved state, at load time. No events are emitted (the trial runs with
/// none) and the frame counters of a [`BoundedStepper`] are not touched.
pub fn warm_up(physics: &mut PhysicsWorld) {
    let saved = Saved::of(physics);
    physics.step();
    saved.restore(physics);
}

/// The bounded stepper (see the module docs).
pub struct BoundedStepper {
    settings: SubstepSettings,
    state: SubstepState,
    diagnostics: SubstepDiagnostics,
}

impl BoundedStepper {
    /// A stepper with validated settings.
    ///
    /// # Errors
    /// [`SubstepError`] for a setting out of range.
    pub fn new(settings: SubstepSettings) -> Result<Self, SubstepError> {
        settings.validate()?;
        Ok(Self {
            settings,
            state: SubstepState::default(),
            diagnostics: SubstepDiagnostics::default(),
        })
    }

    /// The settings.
    pub fn settings(&self) -> &SubstepSettings {
        &self.settings
    }

    /// The decision state (save it with the world).
    pub fn state(&self) -> SubstepState {
        self.state
    }

    /// Resumes from a saved decision state.
    pub fn set_state(&mut self, state: SubstepState) {
        self.state = state;
    }

    /// The counters so far.
    pub fn diagnostics(&self) -> &SubstepDiagnostics {
        &self.diagnostics
    }

    /// One frame with plain `physics.step()` trials (no events).
    pub fn step(&mut self, physics: &mut PhysicsWorld) -> FrameOutcome {
        self.step_with(physics, &mut PlainStep)
    }

    /// One frame, running trials through `runner` (see [`FrameStep`]).
    /// `physics.integration_parameters.dt` is the frame length; it is set to
    /// each segment's length while that segment runs and restored after.
    pub fn step_with(
        &mut self,
        physics: &mut PhysicsWorld,
        runner: &mut impl FrameStep,
    ) -> FrameOutcome {
        let s = self.settings;
        let dt = physics.integration_parameters.dt;
        let d = &mut self.diagnostics;
        d.frames += 1;
        let mut out = FrameOutcome {
            trials: 1,
            segments: 1,
            ..FrameOutcome::default()
        };

        if self.state.stalled {
            runner.step(physics);
            let (joint, e) = worst_joint_anchor_error(physics);
            out.error = e;
            (out.first_error, out.first_worst_joint) = (e, joint);
            if e <= s.tolerance {
                self.state = SubstepState::default();
            } else {
                out.stalled = true;
                out.over_tolerance = true;
                d.stalled_frames += 1;
                d.accepted_over_tolerance += 1;
            }
            d.trials += 1;
            d.max_trials_in_frame = d.max_trials_in_frame.max(1);
            return out;
        }

        let mut saved = Saved::of(physics);
        runner.step(physics);
        let (joint, e) = worst_joint_anchor_error(physics);
        (out.first_error, out.first_worst_joint) = (e, joint);
        if e <= s.tolerance {
            out.error = e;
            self.state.subdivided_run = 0;
            d.trials += 1;
            d.max_trials_in_frame = d.max_trials_in_frame.max(1);
            return out;
        }

        // Subdivide: restore and run the interval as segments.
        runner.reject();
        saved.restore(physics);
        out.subdivided = true;
        out.segments = 0;
        let min_len = dt / (1u32 << s.max_depth) as f32;
        let mut left = dt;
        let mut len = dt * 0.5;
        let mut trials = 1u32;
        let mut worst = 0.0f32;
        // `left` shrinks by accepted segment lengths; compare against a
        // fraction of the shortest segment to absorb rounding.
        while left > min_len * 1e-3 {
            let last_chance = trials + 1 >= s.max_trials;
            let seg = if last_chance { left } else { len.min(left) };
            saved = Saved::of(physics);
            physics.integration_parameters.dt = seg;
            runner.step(physics);
            trials += 1;
            let e = max_joint_anchor_error(physics);
            let within = e <= s.tolerance;
            if within || last_chance || seg <= min_len * 1.0001 {
                out.segments += 1;
                out.over_tolerance |= !within;
                if !(e <= worst) {
                    worst = e;
                }
                left -= seg;
            } else {
                runner.reject();
                saved.restore(physics);
                len = seg * 0.5;
            }
        }
        physics.integration_parameters.dt = dt;
        out.trials = trials;
        out.error = worst;

        d.trials += u64::from(trials);
        d.max_trials_in_frame = d.max_trials_in_frame.max(trials);
        d.subdivided_frames += 1;
        d.accepted_over_tolerance += u64::from(out.over_tolerance);
        self.state.subdivided_run += 1;
        d.longest_subdivided_run = d.longest_subdivided_run.max(self.state.subdivided_run);
        if self.state.subdivided_run >= s.stall_frames {
            self.state.stalled = true;
            d.stall_trips += 1;
        }
        out
    }
}
