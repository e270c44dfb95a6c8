//! Runtime body state (seed §8.1 `DamageableBodyReplicatedState`).
//!
//! Not one `is_dismembered` flag: per-bone states, per-element (region)
//! states, persistent mask values, per-element and total hit counts, the last
//! hit's position, direction and time, the victim's own states (Bleeding),
//! the four-slot runtime, the composed visibility (hidden volumes in cut
//! order) and the wound patches. This state — not gib poses — is the
//! replicated truth (seed §8.1: "先让各端得到一致的部位状态，再更新外观").
//!
//! Every change bumps [`BodyState::revision`], which the detach transaction
//! uses to notice that the body changed while a gib was being prepared.

use crate::body_model::BodyModel;
use crate::damage_graph::{BoneMask, bone_bit};
use crate::error::RuleError;
use crate::index::{BoneIndex, MaskIndex, RecipeIndex, RegionIndex};
use crate::slots::SlotRuntime;
use glam::Vec3;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Identifies a victim (character instance) across peers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct VictimId(pub u64);

/// A victim plus the generation of its pooled character: a character
/// recycled from the pool gets a new generation, and events or resource
/// callbacks carrying the old one are ignored (seed §8.4).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct VictimHandle {
    /// Stable victim id.
    pub id: VictimId,
    /// Pool generation.
    pub generation: u32,
}

/// Identifies one damage event (unique per victim).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct EventId(pub u64);

macro_rules! flags {
    ($(#[$doc:meta])* $name:ident { $($(#[$fdoc:meta])* $flag:ident = $bit:expr;)* }) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub struct $name(pub u32);
        impl $name {
            /// No flags.
            pub const EMPTY: Self = Self(0);
            $($(#[$fdoc])* pub const $flag: Self = Self($bit);)*
            /// Every defined flag.
            pub const ALL: Self = Self(0 $(| $bit)*);
            /// Whether every flag of `other` is set.
            pub fn contains(self, other: Self) -> bool { self.0 & other.0 == other.0 }
            /// Union.
            pub fn union(self, other: Self) -> Self { Self(self.0 | other.0) }
            /// Sets the flags of `other`.
            pub fn insert(&mut self, other: Self) { self.0 |= other.0; }
            /// Clears the flags of `other`.
            pub fn remove(&mut self, other: Self) { self.0 &= !other.0; }
        }
    };
}

flags!(
    /// Per-bone state bits.
    BoneState {
        /// The bone's part left the body with a gib.
        DETACHED = 1;
        /// The bone carries a deformation.
        DEFORMED = 2;
        /// A hole was opened at a virtual location on this bone.
        HOLED = 4;
    }
);

flags!(
    /// Per-element (region) state bits.
    ElementState {
        /// The region's `Break` happened (the limb hangs).
        BROKEN = 1;
        /// At least one bone of the region was cut off.
        CUT = 2;
        /// Every bone of the region is gone.
        GONE = 4;
    }
);

flags!(
    /// States of the victim itself that rules may test (§2.2).
    VictimStates {
        /// The victim is bleeding.
        BLEEDING = 1;
        /// The victim is dead.
        DEAD = 2;
    }
);

/// Where and when the last hit landed.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LastHit {
    /// Impact position (m, model space).
    pub position: Vec3,
    /// Impact direction (unit, model space).
    pub direction: Vec3,
    /// Game time of the hit (s).
    pub time: f64,
}

/// A wound patch attached to a bone, on the body or (after a detach) on a gib.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WoundPatch {
    /// The recipe whose patch this is.
    pub recipe: RecipeIndex,
    /// The bone the patch is attached to (through the recipe's helper).
    pub bone: BoneIndex,
}

/// The runtime state of one body.
///
/// # Invariants
/// `bones.len() == model.bone_count()`, `elements.len() ==
/// element_hit_counts.len() == model.region_count()`, `mask_levels.len() ==
/// model.masks().len()`, each level `< levels`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BodyState {
    pub(crate) victim: VictimHandle,
    pub(crate) bones: Vec<BoneState>,
    pub(crate) elements: Vec<ElementState>,
    pub(crate) mask_levels: Vec<u8>,
    pub(crate) element_hit_counts: Vec<u32>,
    pub(crate) hit_count: u32,
    pub(crate) last_hit: Option<LastHit>,
    pub(crate) victim_states: VictimStates,
    pub(crate) slots: SlotRuntime,
    pub(crate) hidden_volumes: Vec<RecipeIndex>,
    pub(crate) patches: Vec<WoundPatch>,
    pub(crate) applied_events: BTreeSet<EventId>,
    pub(crate) revision: u64,
}

impl BodyState {
    /// An intact body for `model`: every bone present, nothing hit.
    pub fn new(model: &BodyModel, victim: VictimHandle) -> Self {
        Self {
            victim,
            bones: vec![BoneState::EMPTY; model.bone_count()],
            elements: vec![ElementState::EMPTY; model.region_count()],
            mask_levels: vec![0; model.masks().len()],
            element_hit_counts: vec![0; model.region_count()],
            hit_count: 0,
            last_hit: None,
            victim_states: VictimStates::EMPTY,
            slots: SlotRuntime::new(),
            hidden_volumes: Vec::new(),
            patches: Vec::new(),
            applied_events: BTreeSet::new(),
            revision: 0,
        }
    }

    /// The victim this state belongs to.
    pub fn victim(&self) -> VictimHandle {
        self.victim
    }

    /// Recycles the character: a new generation, an intact body. Late events
    /// and callbacks carrying the old generation are ignored afterwards.
    pub fn recycle(&mut self, model: &BodyModel) {
        let next = VictimHandle {
            id: self.victim.id,
            generation: self.victim.generation.wrapping_add(1),
        };
        let revision = self.revision.wrapping_add(1);
        *self = Self::new(model, next);
        self.revision = revision;
    }

    /// Revision, bumped by every change.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// State of one bone (`None` out of range).
    pub fn bone_state(&self, b: BoneIndex) -> Option<BoneState> {
        self.bones.get(b.ix()).copied()
    }

    /// State of one element (region) (`None` out of range).
    pub fn element_state(&self, r: RegionIndex) -> Option<ElementState> {
        self.elements.get(r.ix()).copied()
    }

    /// Whether a bone is still on the body (false out of range).
    pub fn is_present(&self, b: BoneIndex) -> bool {
        self.bones
            .get(b.ix())
            .is_some_and(|s| !s.contains(BoneState::DETACHED))
    }

    /// The bones still on the body.
    pub fn present_mask(&self) -> BoneMask {
        let mut m = 0;
        // `take(64)`: a deserialised state not yet checked by
        // `restore_snapshot` may hold more entries than a mask has bits.
        for (i, s) in self.bones.iter().enumerate().take(64) {
            if !s.contains(BoneState::DETACHED) {
                m |= 1u64 << i;
            }
        }
        m
    }

    /// Hits taken by one element (0 out of range).
    pub fn element_hit_count(&self, r: RegionIndex) -> u32 {
        self.element_hit_counts.get(r.ix()).copied().unwrap_or(0)
    }

    /// Hits taken in total.
    pub fn hit_count(&self) -> u32 {
        self.hit_count
    }

    /// The last hit, if any.
    pub fn last_hit(&self) -> Option<LastHit> {
        self.last_hit
    }

    /// Seconds since the last hit at game time `now` (s); `None` before the first hit.
    pub fn time_since_last_hit(&self, now: f64) -> Option<f64> {
        self.last_hit.map(|h| now - h.time)
    }

    /// Victim states (Bleeding, Dead).
    pub fn victim_states(&self) -> VictimStates {
        self.victim_states
    }

    /// Sets victim states.
    pub fn insert_victim_states(&mut self, s: VictimStates) {
        self.victim_states.insert(s);
        self.bump_revision();
    }

    /// The four-slot runtime.
    pub fn slots(&self) -> &SlotRuntime {
        &self.slots
    }

    /// The four-slot runtime, mutably. Taking it bumps the revision (a
    /// pending detach plan made before is then stale).
    pub fn slots_mut(&mut self) -> &mut SlotRuntime {
        self.bump_revision();
        &mut self.slots
    }

    /// Bumps the revision, wrapping: it is only compared for equality, and a
    /// restored snapshot may carry any value (u64::MAX overflowed).
    pub(crate) fn bump_revision(&mut self) {
        self.revision = self.revision.wrapping_add(1);
    }

    /// Bumps the revision.
    pub fn touch(&mut self) {
        self.bump_revision();
    }

    /// Recipes whose hide volumes the body currently hides, in cut order.
    pub fn hidden_volumes(&self) -> &[RecipeIndex] {
        &self.hidden_volumes
    }

    /// Wound patches on the body.
    pub fn patches(&self) -> &[WoundPatch] {
        &self.patches
    }

    /// Whether an event was already applied to this body.
    pub fn is_applied(&self, e: EventId) -> bool {
        self.applied_events.contains(&e)
    }

    /// Level of a mask (`None` out of range).
    pub fn mask_level(&self, m: MaskIndex) -> Option<u8> {
        self.mask_levels.get(m.ix()).copied()
    }

    /// Value of a mask: `min + level·(max − min)/(levels − 1)` (blood mask: 12
    /// levels over 0..=51). `None` out of range.
    pub fn mask_value(&self, model: &BodyModel, m: MaskIndex) -> Option<f32> {
        let desc = model.mask(m)?;
        let level = f32::from(*self.mask_levels.get(m.ix())?);
        Some(
            desc.min_value + level * (desc.max_value - desc.min_value) / f32::from(desc.levels - 1),
        )
    }

    /// Raises a mask by `steps` levels (incremental mode), saturating at the
    /// top. Returns `false` and changes nothing for an unknown mask.
    pub fn raise_mask(&mut self, model: &BodyModel, m: MaskIndex, steps: u8) -> bool {
        let (Some(desc), Some(level)) = (model.mask(m), self.mask_levels.get_mut(m.ix())) else {
            return false;
        };
        *level = level.saturating_add(steps).min(desc.levels - 1);
        self.bump_revision();
        true
    }

    /// Records a hit on `bone`: element and total hit counts, last hit position,
    /// direction and time.
    ///
    /// # Errors
    /// [`RuleError::BoneOutOfRange`]; [`RuleError::BadHit`] for a non-finite
    /// position, time or a zero/non-finite direction. Nothing changes on error.
    pub fn record_hit(
        &mut self,
        model: &BodyModel,
        bone: BoneIndex,
        position: Vec3,
        direction: Vec3,
        time: f64,
    ) -> Result<(), RuleError> {
        let b = model.bone(bone).ok_or(RuleError::BoneOutOfRange(bone))?;
        if !position.is_finite() {
            return Err(RuleError::BadHit { field: "position" });
        }
        let direction = direction
            .try_normalize()
            .ok_or(RuleError::BadHit { field: "direction" })?;
        if !time.is_finite() {
            return Err(RuleError::BadHit { field: "time" });
        }
        if let Some(c) = self.element_hit_counts.get_mut(b.region.ix()) {
            *c = c.saturating_add(1);
        }
        self.hit_count = self.hit_count.saturating_add(1);
        self.last_hit = Some(LastHit {
            position,
            direction,
            time,
        });
        self.bump_revision();
        Ok(())
    }

    /// Marks the bones of `mask` detached and updates their elements
    /// (`CUT`, and `GONE` when no bone of the region remains).
    pub(crate) fn detach_bones(&mut self, model: &BodyModel, mask: BoneMask) {
        // `get_mut` throughout: a state used with a model it was not made for
        // must not panic (it is the caller's bug, but the data may be a snapshot).
        for (i, bone) in model.bones().iter().enumerate() {
            if mask & bone_bit(BoneIndex(i as u32)) != 0 {
                if let Some(s) = self.bones.get_mut(i) {
                    s.insert(BoneState::DETACHED);
                }
                if let Some(e) = self.elements.get_mut(bone.region.ix()) {
                    e.insert(ElementState::CUT);
                }
            }
        }
        for r in 0..self.elements.len() {
            let any_left = model.bones().iter().enumerate().any(|(i, b)| {
                b.region.ix() == r
                    && self
                        .bones
                        .get(i)
                        .is_some_and(|s| !s.contains(BoneState::DETACHED))
            });
            if !any_left {
                self.elements[r].insert(ElementState::GONE);
            }
        }
    }
}
