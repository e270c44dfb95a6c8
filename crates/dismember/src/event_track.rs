//! Animation event tracks of reaction clips (seed §6.1–6.2).
//!
//! An advance from `previous` to `current` fires every event with
//! `previous < t ≤ current`, so a frame that jumps over event 81 still closes
//! the collision-damage window (the seed warns against `currentFrame == 81`).
//! A track starts at `previous = −∞`, so events at 0 fire on the first
//! advance. Times are the clip's event coordinates, not render frames.

use serde::{Deserialize, Serialize};

/// What a track event does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TrackEventKind {
    /// `EnableDamageOnCollision`.
    EnableDamageOnCollision,
    /// `DisableDamageOnCollision`.
    DisableDamageOnCollision,
    /// `USER_CAN_BLEND_OUT`: the controller may leave the clip (not "delete
    /// the character" and not "switch to full ragdoll").
    AllowBlendOut,
    /// An audio event, by name.
    Audio(String),
    /// A surface interaction at a bone (`collision_body_surface_layer`, `pelvis`, 4.0).
    SurfaceInteraction {
        /// Surface layer.
        layer: String,
        /// Bone name.
        bone: String,
        /// Strength.
        strength: f32,
    },
}

/// One event at a track time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrackEvent {
    /// Track time (clip event coordinate).
    pub time: f32,
    /// What it does.
    pub kind: TrackEventKind,
}

/// Why a track was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TrackError {
    /// A non-finite or negative event time.
    #[error("event {index} has time {time}; it must be finite and ≥ 0")]
    BadTime {
        /// Event position.
        index: usize,
        /// Its time.
        time: f32,
    },
    /// A surface interaction with a non-finite or negative strength.
    #[error("event {index} has surface strength {strength}; it must be finite and ≥ 0")]
    BadStrength {
        /// Event position.
        index: usize,
        /// Its strength.
        strength: f32,
    },
    /// A non-finite advance.
    #[error("advance to {0} is not finite")]
    BadAdvance(f32),
}

/// A validated track: events sorted by time (stable for equal times).
#[derive(Clone, Debug, PartialEq)]
pub struct EventTrack {
    events: Vec<TrackEvent>,
}

impl EventTrack {
    /// Validates and sorts events.
    ///
    /// # Errors
    /// [`TrackError::BadTime`], [`TrackError::BadStrength`].
    pub fn new(mut events: Vec<TrackEvent>) -> Result<Self, TrackError> {
        for (index, e) in events.iter().enumerate() {
            if !(e.time.is_finite() && e.time >= 0.0) {
                return Err(TrackError::BadTime {
                    index,
                    time: e.time,
                });
            }
            if let TrackEventKind::SurfaceInteraction { strength, .. } = e.kind
                && !(strength.is_finite() && strength >= 0.0)
            {
                return Err(TrackError::BadStrength { index, strength });
            }
        }
        events.sort_by(|a, b| a.time.total_cmp(&b.time));
        Ok(Self { events })
    }

    /// `m_bit_death_arm_cutoff_sl` (biter.scr): damage window 0–81,
    /// blend-out at 161.
    pub fn arm_cutoff() -> Self {
        use TrackEventKind::*;
        let ev = |time: f32, kind| TrackEvent { time, kind };
        Self {
            events: vec![
                ev(0.0, EnableDamageOnCollision),
                ev(0.0, Audio("pain_scream".into())),
                ev(6.0, Audio("right_foot_step".into())),
                ev(8.0, Audio("right_foot_land".into())),
                ev(61.0, Audio("right_foot_step".into())),
                ev(81.0, DisableDamageOnCollision),
                ev(156.0, Audio("death_scream".into())),
                ev(159.0, Audio("biter_body_falling".into())),
                ev(
                    159.0,
                    SurfaceInteraction {
                        layer: "collision_body_surface_layer".into(),
                        bone: "pelvis".into(),
                        strength: 4.0,
                    },
                ),
                ev(161.0, AllowBlendOut),
            ],
        }
    }

    /// `m_bit_death_leg_cutoff_sr`: damage window 0–63, blend-out 83, fall
    /// sound and pelvis surface interaction at 87.
    pub fn leg_cutoff() -> Self {
        use TrackEventKind::*;
        let ev = |time: f32, kind| TrackEvent { time, kind };
        Self {
            events: vec![
                ev(0.0, EnableDamageOnCollision),
                ev(63.0, DisableDamageOnCollision),
                ev(83.0, AllowBlendOut),
                ev(87.0, Audio("biter_body_falling".into())),
                ev(
                    87.0,
                    SurfaceInteraction {
                        layer: "collision_body_surface_layer".into(),
                        bone: "pelvis".into(),
                        strength: 4.0,
                    },
                ),
            ],
        }
    }

    /// Events, sorted by time.
    pub fn events(&self) -> &[TrackEvent] {
        &self.events
    }

    /// Events with `previous < t ≤ current`, in time order.
    pub fn crossed(&self, previous: f32, current: f32) -> impl Iterator<Item = &TrackEvent> {
        self.events
            .iter()
            .filter(move |e| previous < e.time && e.time <= current)
    }
}

/// The reaction controller state a track drives.
#[derive(Clone, Debug, PartialEq)]
pub struct ReactionPlayer {
    time: f32,
    /// Collision damage is on.
    pub collision_damage_enabled: bool,
    /// The controller may blend out.
    pub can_blend_out: bool,
}

impl Default for ReactionPlayer {
    fn default() -> Self {
        Self {
            time: f32::NEG_INFINITY,
            collision_damage_enabled: false,
            can_blend_out: false,
        }
    }
}

impl ReactionPlayer {
    /// A player before the clip's first event.
    pub fn new() -> Self {
        Self::default()
    }

    /// Advances to `current`, applying every crossed event and appending the
    /// audio and surface events to `out` (never cleared). Going backwards
    /// fires nothing.
    ///
    /// # Errors
    /// [`TrackError::BadAdvance`] for a non-finite `current`; nothing changes.
    pub fn advance(
        &mut self,
        track: &EventTrack,
        current: f32,
        out: &mut Vec<TrackEventKind>,
    ) -> Result<(), TrackError> {
        if !current.is_finite() {
            return Err(TrackError::BadAdvance(current));
        }
        for e in track.crossed(self.time, current) {
            match &e.kind {
                TrackEventKind::EnableDamageOnCollision => self.collision_damage_enabled = true,
                TrackEventKind::DisableDamageOnCollision => self.collision_damage_enabled = false,
                TrackEventKind::AllowBlendOut => self.can_blend_out = true,
                other => out.push(other.clone()),
            }
        }
        if current > self.time {
            self.time = current;
        }
        Ok(())
    }
}
