//! Fixed time stepping with an accumulator and an explicit time ledger
//! (rigid-body-solver seed: 固定时间步与累加器).
//!
//! A game calls [`FixedStepper::advance`] once per rendered frame with the
//! frame's wall-clock duration; it answers how many fixed steps to run now and
//! the interpolation factor for rendering between the last two states. No
//! logical time is lost silently: every second is either simulated, carried
//! as backlog, or dropped *and counted* in the [`TimeLedger`].

use serde::{Deserialize, Serialize};

/// What to do with time beyond `max_steps_per_frame` in one frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BacklogPolicy {
    /// Keep the excess in the accumulator and simulate it in later frames
    /// (simulation time catches up with wall time; nothing is dropped).
    CarryBacklog,
    /// Discard the excess (simulation runs slower than wall time under load);
    /// the discarded time and steps are counted in the ledger.
    DropExcess,
}

/// Settings of a [`FixedStepper`].
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepperSettings {
    /// Fixed step, s (> 0).
    pub timestep: f64,
    /// Most steps run in one frame (≥ 1), bounding the cost of a slow frame.
    pub max_steps_per_frame: u32,
    /// Longest frame duration accepted, s; longer frames (a debugger pause, a
    /// window drag) are clamped and the clamped time is counted as dropped.
    pub max_frame_time: f64,
    /// Policy for time beyond `max_steps_per_frame`.
    pub policy: BacklogPolicy,
}

impl Default for StepperSettings {
    fn default() -> Self {
        Self {
            timestep: 1.0 / 60.0,
            max_steps_per_frame: 4,
            max_frame_time: 0.25,
            policy: BacklogPolicy::CarryBacklog,
        }
    }
}

/// Where the wall-clock time went, cumulative since creation, s and counts.
///
/// Invariant (checked by tests): `received = simulated + dropped + accumulator`
/// up to floating-point rounding, where `simulated = steps × timestep`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeLedger {
    /// Frame time handed to `advance`, s (after rejecting invalid values).
    pub received: f64,
    /// Steps run.
    pub steps: u64,
    /// Time dropped by the frame-time clamp or [`BacklogPolicy::DropExcess`], s.
    pub dropped: f64,
    /// Whole steps' worth of time dropped.
    pub dropped_steps: u64,
    /// Frames that hit `max_steps_per_frame`.
    pub saturated_frames: u64,
    /// Frames whose duration was negative, NaN or infinite (ignored, counted).
    pub invalid_frames: u64,
}

/// The result of one [`FixedStepper::advance`].
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FramePlan {
    /// Fixed steps to run now.
    pub steps: u32,
    /// Interpolation factor in [0, 1): render at `previous + alpha × (current − previous)`.
    pub alpha: f64,
    /// Time still waiting in the accumulator, s.
    pub backlog: f64,
}

/// Fixed-step accumulator with a bounded number of steps per frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FixedStepper {
    settings: StepperSettings,
    accumulator: f64,
    ledger: TimeLedger,
}

/// A stepper setting out of range.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid stepper setting {name} = {value}: must be {expected}")]
pub struct StepperError {
    /// Setting name.
    pub name: &'static str,
    /// Its value.
    pub value: f64,
    /// The allowed range.
    pub expected: &'static str,
}

impl FixedStepper {
    /// A stepper with an empty accumulator.
    ///
    /// # Errors
    /// [`StepperError`] for a non-positive or non-finite timestep or frame
    /// cap, or zero steps per frame.
    pub fn new(settings: StepperSettings) -> Result<Self, StepperError> {
        if !(settings.timestep.is_finite() && settings.timestep > 0.0) {
            return Err(StepperError {
                name: "timestep",
                value: settings.timestep,
                expected: "finite and > 0",
            });
        }
        if settings.max_steps_per_frame == 0 {
            return Err(StepperError {
                name: "max_steps_per_frame",
                value: 0.0,
                expected: "≥ 1",
            });
        }
        if !(settings.max_frame_time.is_finite() && settings.max_frame_time > 0.0) {
            return Err(StepperError {
                name: "max_frame_time",
                value: settings.max_frame_time,
                expected: "finite and > 0",
            });
        }
        Ok(Self {
            settings,
            accumulator: 0.0,
            ledger: TimeLedger::default(),
        })
    }

    /// Accounts for a frame of `frame_time` seconds and plans its steps. The
    /// caller must run exactly `plan.steps` fixed steps.
    pub fn advance(&mut self, frame_time: f64) -> FramePlan {
        if !(frame_time.is_finite() && frame_time >= 0.0) {
            self.ledger.invalid_frames += 1;
            return self.plan(0);
        }
        self.ledger.received += frame_time;
        let clamped = frame_time.min(self.settings.max_frame_time);
        self.ledger.dropped += frame_time - clamped;
        self.accumulator += clamped;
        let dt = self.settings.timestep;
        // A tiny epsilon keeps 3 × (1/60) from leaving 2.99999 steps behind.
        let eps = dt * 1e-9;
        let available = ((self.accumulator + eps) / dt).floor() as u64;
        let max = self.settings.max_steps_per_frame as u64;
        let steps = available.min(max);
        self.accumulator = (self.accumulator - steps as f64 * dt).max(0.0);
        if available > max {
            self.ledger.saturated_frames += 1;
            if self.settings.policy == BacklogPolicy::DropExcess {
                let excess_steps = available - max;
                let excess = (excess_steps as f64 * dt).min(self.accumulator);
                self.accumulator -= excess;
                self.ledger.dropped += excess;
                self.ledger.dropped_steps += excess_steps;
            }
        }
        self.ledger.steps += steps;
        self.plan(steps as u32)
    }

    fn plan(&self, steps: u32) -> FramePlan {
        let alpha = (self.accumulator / self.settings.timestep).clamp(0.0, 1.0 - f64::EPSILON);
        FramePlan {
            steps,
            alpha,
            backlog: self.accumulator,
        }
    }

    /// The ledger so far.
    pub fn ledger(&self) -> &TimeLedger {
        &self.ledger
    }
    /// Time waiting in the accumulator, s.
    pub fn backlog(&self) -> f64 {
        self.accumulator
    }
    /// The settings.
    pub fn settings(&self) -> &StepperSettings {
        &self.settings
    }
    /// Simulated time so far, s.
    pub fn simulated_time(&self) -> f64 {
        self.ledger.steps as f64 * self.settings.timestep
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stepper(policy: BacklogPolicy) -> FixedStepper {
        FixedStepper::new(StepperSettings {
            timestep: 0.01,
            max_steps_per_frame: 3,
            max_frame_time: 1.0,
            policy,
        })
        .unwrap()
    }

    fn balanced(s: &FixedStepper) -> bool {
        let l = s.ledger();
        (l.received - (s.simulated_time() + l.dropped + s.backlog())).abs() < 1e-9
    }

    #[test]
    fn frames_of_one_and_a_half_steps_alternate_one_and_two_steps_with_alpha() {
        let mut s = stepper(BacklogPolicy::CarryBacklog);
        let a = s.advance(0.015);
        assert_eq!(a.steps, 1);
        assert!((a.alpha - 0.5).abs() < 1e-9);
        let b = s.advance(0.015);
        assert_eq!(b.steps, 2);
        assert!(b.alpha.abs() < 1e-6);
        assert!(balanced(&s));
    }

    #[test]
    fn carry_backlog_simulates_every_second_eventually() {
        let mut s = stepper(BacklogPolicy::CarryBacklog);
        let first = s.advance(0.1); // 10 steps available, 3 allowed
        assert_eq!(first.steps, 3);
        assert!((first.backlog - 0.07).abs() < 1e-9);
        let mut total = first.steps;
        for _ in 0..5 {
            total += s.advance(0.0).steps;
        }
        assert_eq!(total, 10);
        assert_eq!(s.ledger().dropped, 0.0);
        // 10, then 7, then 4 steps were available: three frames hit the cap.
        assert_eq!(s.ledger().saturated_frames, 3);
        assert!(balanced(&s));
    }

    #[test]
    fn drop_excess_counts_what_it_drops() {
        let mut s = stepper(BacklogPolicy::DropExcess);
        let p = s.advance(0.105);
        assert_eq!(p.steps, 3);
        assert_eq!(s.ledger().dropped_steps, 7);
        assert!((s.ledger().dropped - 0.07).abs() < 1e-9, "{:?}", s.ledger());
        assert!((s.backlog() - 0.005).abs() < 1e-9);
        assert!(balanced(&s));
    }

    #[test]
    fn a_long_pause_is_clamped_and_counted_and_bad_frame_times_are_ignored() {
        let mut s = FixedStepper::new(StepperSettings {
            max_frame_time: 0.05,
            ..StepperSettings::default()
        })
        .unwrap();
        s.advance(5.0);
        assert!((s.ledger().dropped - 4.95).abs() < 1e-9);
        assert_eq!(s.advance(f64::NAN).steps, 0);
        assert_eq!(s.advance(-1.0).steps, 0);
        assert_eq!(s.ledger().invalid_frames, 2);
        assert!(balanced(&s));
    }

    #[test]
    fn invalid_settings_are_rejected() {
        assert!(
            FixedStepper::new(StepperSettings {
                timestep: 0.0,
                ..Default::default()
            })
            .is_err()
        );
        assert!(
            FixedStepper::new(StepperSettings {
                max_steps_per_frame: 0,
                ..Default::default()
            })
            .is_err()
        );
        assert!(
            FixedStepper::new(StepperSettings {
                max_frame_time: f64::NAN,
                ..Default::default()
            })
            .is_err()
        );
    }
}
