//! Settings of a [`super::DestructionSet`]: how chunk colliders are made,
//! which collision groups and `user_data` tags they carry, how contacts
//! become damage, when debris is recycled and when a failing commit is
//! quarantined.

use crate::error::BackendError;
use crate::impact::ImpactDamage;
use rapier3d::prelude::{Group, InteractionGroups, InteractionTestMode};
use serde::{Deserialize, Serialize};

/// When sleeping debris is recycled.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecyclePolicy {
    /// Seconds asleep (Rapier's sleep decision) before the cluster is withdrawn (≥ 0).
    pub after: f32,
    /// Largest cluster (in chunks) that counts as debris.
    pub max_chunks: u32,
}

/// Collision groups of the colliders the library makes, as Rapier
/// [`InteractionGroups`] (memberships, filter). Defaults:
///
/// | colliders | memberships | filter |
/// |---|---|---|
/// | authoritative chunks and proxy pieces | [`Group::GROUP_31`] | all |
/// | render-only debris | [`Group::GROUP_32`] | [`Group::GROUP_1`] |
///
/// Rapier's own default for a collider is memberships = all, filter = all,
/// so with these defaults chunks collide with every game collider and with
/// each other. Render-only debris is no Rapier body since issue 12 item 7
/// (a particle landing on [`crate::DebrisSettings::ground_y`], see
/// [`crate::debris`]); its groups apply only to the render-only bodies of a
/// snapshot of format 9 or older and to callers of
/// [`crate::backend::build_body`]: they collide only with colliders that
/// are members of group 1 and never with chunks.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CollisionGroups {
    /// Groups of authoritative chunk and proxy colliders. (Their *solver*
    /// groups are Rapier's default, except while pieces part after a re-run
    /// step: see [`super::PARTING`].)
    pub chunks: SerialGroups,
    /// Groups of render-only debris colliders.
    pub render_debris: SerialGroups,
}

/// [`InteractionGroups`] as plain bits (memberships, filter), serialisable.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SerialGroups {
    /// Group bits this collider is a member of.
    pub memberships: u32,
    /// Group bits this collider interacts with.
    pub filter: u32,
}

impl SerialGroups {
    /// The Rapier groups (both-ways test, Rapier's default mode).
    pub fn to_rapier(self) -> InteractionGroups {
        InteractionGroups::new(
            Group::from_bits_retain(self.memberships),
            Group::from_bits_retain(self.filter),
            InteractionTestMode::And,
        )
    }
}

impl Default for CollisionGroups {
    fn default() -> Self {
        Self {
            chunks: SerialGroups {
                memberships: Group::GROUP_31.bits(),
                filter: Group::ALL.bits(),
            },
            render_debris: SerialGroups {
                memberships: Group::GROUP_32.bits(),
                filter: Group::GROUP_1.bits(),
            },
        }
    }
}

/// Settings of a [`super::DestructionSet`]. All values SI.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DestructionSettings {
    /// Contact impulse → damage mapping.
    pub impact: ImpactDamage,
    /// Friction coefficient of chunk colliders.
    pub friction: f32,
    /// Restitution of chunk colliders.
    pub restitution: f32,
    /// Rounding radius of chunk colliders, m (see [`crate::backend::ChunkShapes`]); 0 for sharp hulls.
    /// Rounding only takes material off edges and corners: a collider never
    /// reaches outside its hull. Each hull uses at most
    /// [`crate::backend::MAX_BORDER_FRACTION`] of the distance from its
    /// centroid to its nearest face, so a thin chunk keeps its thickness.
    pub collider_border: f32,
    /// Collision groups of the library's colliders.
    pub groups: CollisionGroups,
    /// The 24-bit mark in the top bits of every library collider's
    /// `user_data` (see [`super::ColliderTag`]); default `0x534D54` ("SMT").
    /// Pick another if your game's own `user_data` values use those bits.
    pub tag_mark: u32,
    /// Debris recycling; `None` (the default) keeps every piece.
    pub recycle: Option<RecyclePolicy>,
    /// Largest speed change an explosion gives one body, m/s (default 30):
    /// the impulse is scaled down to it (a 6,000 N·s blast once sent a light
    /// piece to 105 m/s).
    pub max_blast_speed: f32,
    /// Largest spin change an explosion gives one body, rad/s (default 20).
    pub max_blast_spin: f32,
    /// Library bodies faster than this (m/s, default 8) get continuous
    /// collision detection, so small fast debris does not pass through thin
    /// walls; the library turns it off again below half that speed (unless
    /// the game turned it on). New pieces are checked when they are made,
    /// moving ones by the sleep sweep (see `sleep_sweep`).
    pub ccd_speed: f32,
    /// Bodies visited per step by each of the sleep sweep's two windows
    /// (≥ 1; default 128; see `crate::set::sleep`). The sweep notices
    /// which library bodies fell asleep or woke up (for debris recycling),
    /// switches CCD by `ccd_speed` and keeps game colliders attached to
    /// library bodies massless. Its cost per step is bounded by twice this
    /// number whatever the number of debris (zero when nothing is awake),
    /// and a change is noticed within ⌈awake bodies / sleep_sweep⌉ steps
    /// (the same step for up to 128 awake bodies; 40 steps, 0.67 s at
    /// 60 Hz, for 5,000).
    pub sleep_sweep: u32,
    /// Consecutive failed commits of one instance after which its pending
    /// events are set aside in quarantine (≥ 1; default 3). The other
    /// instances commit regardless.
    pub quarantine_after: u32,
    /// New Rapier bodies the set's commits may create per frame (one safe
    /// point, or both halves of a re-run step; ≥ 1; default 16), a
    /// deterministic throttle between commits (issue 12 item 7): a commit
    /// that would create more than what is left of it waits whole in its
    /// instance's pending queue for a later frame
    /// ([`smithereens_core::CommitStatus::Throttled`]); the first commit of
    /// a frame always goes through, so a single split larger than the whole
    /// allowance goes through alone. Instances take turns being first
    /// (the order rotates with the step index), so none waits forever. The
    /// default bounds a frame's body creation at about the cost of one
    /// large split (16 pieces of a few colliders each).
    pub new_bodies_per_frame: u32,
    /// Stress work the set's safe point may spend per frame, in bond passes
    /// (≥ 1; default [`DEFAULT_STRESS_WORK_PER_FRAME`]; `u64::MAX` for no
    /// bound): the deterministic frame bound of issue 13. A pass is about
    /// one stiffness product over one intact bond; each step of a solve is
    /// charged a fixed number per bond (a multilevel iteration 10, see
    /// [`smithereens_core::stress::solver`]'s "Work" and
    /// [`smithereens_core::stress::InstanceStress::update_within`]).
    /// Instances with stress on share it, taking turns being first (the
    /// order rotates with the step index, as commits do); a solve the
    /// budget cuts short resumes exactly where it stopped at the next safe
    /// point, and the clusters it did not reach wait, so a large structure
    /// that changes breaks a few frames later, with the same bond results,
    /// instead of stalling one frame. A frame overshoots the budget by at
    /// most one step of one cluster's solve (an iteration's update or its
    /// preconditioning, a piece of a hierarchy's build) and its gathering
    /// (or, for a full solve that starts, that cluster's set-up, start and
    /// first update, whatever the budget; see
    /// `smithereens_core::stress::StressSolver::solve_within`).
    pub stress_work_per_frame: u64,
}

/// Default [`DestructionSettings::stress_work_per_frame`], bond passes:
/// 50,000, about 0.5–1.5 ms of stress work on this project's 2-core
/// machine (`examples/stress_work.rs` in smithereens-core measures the time
/// per pass). A 30 × 10 × 2 block bridge collapsing under its own weight
/// then has no stress update over 1.5 ms, against 19.8 ms unbounded.
pub const DEFAULT_STRESS_WORK_PER_FRAME: u64 = 50_000;

/// Default [`DestructionSettings::tag_mark`]: "SMT".
pub const DEFAULT_TAG_MARK: u32 = 0x53_4D_54;

impl Default for DestructionSettings {
    fn default() -> Self {
        Self {
            impact: ImpactDamage::default(),
            friction: 0.7,
            restitution: 0.1,
            collider_border: 0.005,
            groups: CollisionGroups::default(),
            tag_mark: DEFAULT_TAG_MARK,
            recycle: None,
            max_blast_speed: 30.0,
            max_blast_spin: 20.0,
            ccd_speed: 8.0,
            sleep_sweep: 128,
            quarantine_after: 3,
            new_bodies_per_frame: 16,
            stress_work_per_frame: DEFAULT_STRESS_WORK_PER_FRAME,
        }
    }
}

impl DestructionSettings {
    /// Checks ranges.
    ///
    /// # Errors
    /// [`BackendError::BadSetting`] naming the first bad field.
    pub fn validate(&self) -> Result<(), BackendError> {
        let bad = |name, value, reason| {
            Err(BackendError::BadSetting {
                name,
                value,
                reason,
            })
        };
        if !(self.friction.is_finite() && self.friction >= 0.0) {
            return bad("friction", self.friction, "finite and ≥ 0");
        }
        if !(self.restitution.is_finite() && (0.0..=1.0).contains(&self.restitution)) {
            return bad("restitution", self.restitution, "in [0, 1]");
        }
        if !(self.collider_border.is_finite() && self.collider_border >= 0.0) {
            return bad("collider_border", self.collider_border, "finite and ≥ 0");
        }
        if let Some(r) = self
            .recycle
            .filter(|r| !(r.after.is_finite() && r.after >= 0.0))
        {
            return bad("recycle.after", r.after, "finite and ≥ 0");
        }
        if self.tag_mark == 0 || self.tag_mark > 0xFF_FFFF {
            return bad(
                "tag_mark",
                self.tag_mark as f32,
                "in 1..=0xFFFFFF (24 bits)",
            );
        }
        for (name, v) in [
            ("max_blast_speed", self.max_blast_speed),
            ("max_blast_spin", self.max_blast_spin),
            ("ccd_speed", self.ccd_speed),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return bad(name, v, "finite and > 0");
            }
        }
        if self.sleep_sweep == 0 {
            return bad("sleep_sweep", 0.0, "≥ 1");
        }
        if self.quarantine_after == 0 {
            return bad("quarantine_after", 0.0, "≥ 1");
        }
        if self.new_bodies_per_frame == 0 {
            return bad("new_bodies_per_frame", 0.0, "≥ 1");
        }
        if self.stress_work_per_frame == 0 {
            return bad("stress_work_per_frame", 0.0, "≥ 1");
        }
        self.impact.validate()
    }
}
