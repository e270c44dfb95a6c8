//! The four-slot runtime of `DamageableBodyRuntime` (seed §8.2–8.3).
//!
//! Two 64-bit state masks (`state_mask_a` for current states, `state_mask_b`
//! checked the same way, e.g. for permanent states) and four active slots,
//! each publishing a 3×4 matrix to the skinned mesh at attribute index
//! `3·slot + 1` (1, 4, 7, 10). The capacity belongs to this matrix channel,
//! not to the number of wounds or gibs in the game.
//!
//! The functions follow the seed's pseudo-code line by line:
//! [`SlotRuntime::find_candidate_slot`] is `FindCandidateSlot`,
//! [`SlotRuntime::publish`] is `PublishSlot`, [`SlotRuntime::remove`] is
//! `RemoveCandidateSlots` with `ResetSlotMatrix`. The invariant they keep
//! together: a slot is occupied ⇔ its bitmap bit is set ⇔ it holds a
//! candidate, and an empty slot's matrix is the parked matrix
//! ([`PARKED_MATRIX`]).

use crate::error::SlotError;
use glam::Affine3A;
use serde::{Deserialize, Serialize};

/// Number of slots.
pub const SLOT_COUNT: usize = 4;

/// The matrix a removed slot is reset to: identity rotation, translation
/// (0, −1024, 0) m (seed §8.3 `ResetSlotMatrix`).
pub const PARKED_MATRIX: Affine3A = Affine3A {
    matrix3: glam::Mat3A::IDENTITY,
    translation: glam::Vec3A::new(0.0, -1024.0, 0.0),
};

/// A slot number in `0..4`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Slot(u8);

impl Slot {
    /// Checks `index < 4`.
    ///
    /// # Errors
    /// [`SlotError::OutOfRange`] for `index ≥ 4`.
    pub fn new(index: u32) -> Result<Self, SlotError> {
        if (index as usize) < SLOT_COUNT {
            Ok(Self(index as u8))
        } else {
            Err(SlotError::OutOfRange(index))
        }
    }

    /// The slot number, `0..4`.
    pub fn get(self) -> u32 {
        u32::from(self.0)
    }

    /// The mesh attribute this slot writes: `3·slot + 1` (1, 4, 7, 10).
    pub fn attribute_index(self) -> u32 {
        3 * u32::from(self.0) + 1
    }
}

/// A candidate for a slot: its state bits, the relation mask used to choose a
/// slot and the link mask used on removal (two separate masks, seed §8.3).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SlotCandidate {
    /// Caller's identifier (e.g. a recipe index); candidates compare by all fields.
    pub id: u32,
    /// State bits this candidate sets.
    pub mask: u64,
    /// Slot choice: an occupied slot whose candidate's `mask` meets this may be reused.
    pub relation_mask: u64,
    /// Removal: refused while state mask A meets this.
    pub link_mask: u64,
}

/// Why [`SlotRuntime::remove`] did or did not remove a candidate; the checks
/// run in this order (seed §8.3).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RemoveOutcome {
    /// `state_mask_b` covers all the candidate's bits: nothing changes.
    Permanent,
    /// `state_mask_a` meets the candidate's link mask: nothing changes.
    Linked,
    /// `state_mask_a` does not cover all the candidate's bits: nothing changes.
    NotSet,
    /// Bits cleared from mask A; every slot holding the candidate was reset
    /// (listed by number, bit `i` for slot `i`).
    Removed {
        /// Bitmap of the slots that were cleared.
        cleared_slots: u8,
    },
}

/// The slot runtime: two state masks, an occupancy bitmap, four slots and the
/// four published matrices.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlotRuntime {
    state_mask_a: u64,
    state_mask_b: u64,
    occupied: u8,
    slots: [Option<SlotCandidate>; SLOT_COUNT],
    matrices: [Affine3A; SLOT_COUNT],
}

impl Default for SlotRuntime {
    fn default() -> Self {
        Self {
            state_mask_a: 0,
            state_mask_b: 0,
            occupied: 0,
            slots: [None; SLOT_COUNT],
            matrices: [PARKED_MATRIX; SLOT_COUNT],
        }
    }
}

impl SlotRuntime {
    /// An empty runtime: masks 0, no slot occupied, every matrix parked.
    pub fn new() -> Self {
        Self::default()
    }

    /// State mask A (current states).
    pub fn state_mask_a(&self) -> u64 {
        self.state_mask_a
    }

    /// State mask B (checked like A, e.g. permanent states).
    pub fn state_mask_b(&self) -> u64 {
        self.state_mask_b
    }

    /// Sets bits in state mask B. Nothing else changes.
    pub fn insert_state_b(&mut self, bits: u64) {
        self.state_mask_b |= bits;
    }

    /// The occupancy bitmap: bit `i` set ⇔ slot `i` occupied. `0b0101` means
    /// slots 0 and 2 (two entries, though the value is 5).
    pub fn occupied_bitmap(&self) -> u8 {
        self.occupied
    }

    /// Number of occupied slots (the bitmap's popcount, not its value).
    pub fn occupied_count(&self) -> u32 {
        self.occupied.count_ones()
    }

    /// The candidate in `slot`.
    pub fn slot(&self, slot: Slot) -> Option<&SlotCandidate> {
        self.slots[slot.0 as usize].as_ref()
    }

    /// The matrix published in `slot` ([`PARKED_MATRIX`] when empty).
    pub fn matrix(&self, slot: Slot) -> Affine3A {
        self.matrices[slot.0 as usize]
    }

    /// The matrix at mesh attribute `index` (1, 4, 7 or 10); `None` for any
    /// other index.
    pub fn mesh_attribute(&self, index: u32) -> Option<Affine3A> {
        if index % 3 != 1 {
            return None;
        }
        Slot::new(index / 3).ok().map(|s| self.matrix(s))
    }

    /// `FindCandidateSlot` (seed §8.2), in the seed's order:
    /// 1. `None` if mask B already covers **all** the candidate's bits;
    /// 2. `None` if mask A already covers all of them (state 0011, candidate
    ///    0010 → rejected; candidate 0110 only overlaps → not rejected here);
    /// 3. slot 0 if no slot is occupied;
    /// 4. else the **first** slot that is empty or whose candidate's mask meets
    ///    `candidate.relation_mask` (no second pass preferring related slots);
    /// 5. `None` if all four are occupied by unrelated candidates.
    pub fn find_candidate_slot(&self, candidate: &SlotCandidate) -> Option<Slot> {
        let mask = candidate.mask;
        if self.state_mask_b & mask == mask {
            return None;
        }
        if self.state_mask_a & mask == mask {
            return None;
        }
        if self.occupied == 0 {
            return Some(Slot(0));
        }
        for (i, existing) in self.slots.iter().enumerate() {
            match existing {
                None => return Some(Slot(i as u8)),
                Some(e) if e.mask & candidate.relation_mask != 0 => return Some(Slot(i as u8)),
                Some(_) => {}
            }
        }
        None
    }

    /// `PublishSlot` (seed §8.3): stores `candidate` in `slot` (replacing any
    /// related occupant, as the seed does), sets the slot's bitmap bit,
    /// publishes `matrix` (the 3×4 matrix at attribute `3·slot + 1`) and sets
    /// the candidate's bits in state mask A — all four together.
    ///
    /// # Errors
    /// [`SlotError::OutOfRange`] for `slot ≥ 4`, [`SlotError::NonFiniteMatrix`];
    /// nothing changes on error.
    pub fn publish(
        &mut self,
        slot: u32,
        candidate: SlotCandidate,
        matrix: Affine3A,
    ) -> Result<Slot, SlotError> {
        let slot = Slot::new(slot)?;
        if !matrix.is_finite() {
            return Err(SlotError::NonFiniteMatrix);
        }
        let i = slot.0 as usize;
        self.slots[i] = Some(candidate);
        self.occupied |= 1 << i;
        self.matrices[i] = matrix;
        self.state_mask_a |= candidate.mask;
        Ok(slot)
    }

    /// `RemoveCandidateSlots` (seed §8.3). The three checks run in the seed's
    /// order — mask B covers the candidate's bits; mask A meets its **link**
    /// mask; mask A does not cover its bits — and each leaves everything
    /// unchanged. Otherwise the bits leave mask A and every slot holding an
    /// equal candidate is reset: matrix to [`PARKED_MATRIX`], bitmap bit and
    /// slot cleared.
    pub fn remove(&mut self, candidate: &SlotCandidate) -> RemoveOutcome {
        let mask = candidate.mask;
        if self.state_mask_b & mask == mask {
            return RemoveOutcome::Permanent;
        }
        if self.state_mask_a & candidate.link_mask != 0 {
            return RemoveOutcome::Linked;
        }
        if self.state_mask_a & mask != mask {
            return RemoveOutcome::NotSet;
        }
        self.state_mask_a &= !mask;
        let mut cleared = 0u8;
        if self.occupied != 0 {
            for i in 0..SLOT_COUNT {
                if self.slots[i].as_ref() == Some(candidate) {
                    self.matrices[i] = PARKED_MATRIX;
                    self.occupied &= !(1 << i);
                    self.slots[i] = None;
                    cleared |= 1 << i;
                }
            }
        }
        RemoveOutcome::Removed {
            cleared_slots: cleared,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn attribute_indices_are_one_four_seven_ten() {
        let idx: Vec<u32> = (0..4)
            .map(|i| Slot::new(i).unwrap().attribute_index())
            .collect();
        assert_eq!(idx, [1, 4, 7, 10]);
        assert_eq!(Slot::new(4), Err(SlotError::OutOfRange(4)));
    }
}
