//! Issue 15 item 4: the four-slot runtime exactly as the seed gives it (§8.2–8.3).
#![allow(clippy::unwrap_used)]

use glam::{Affine3A, Vec3};
use proptest::prelude::*;
use smithereens_dismember::*;

fn cand(id: u32, mask: u64, relation: u64, link: u64) -> SlotCandidate {
    SlotCandidate {
        id,
        mask,
        relation_mask: relation,
        link_mask: link,
    }
}

fn m(x: f32) -> Affine3A {
    Affine3A::from_translation(Vec3::new(x, 0.0, 0.0))
}

#[test]
fn candidate_fully_covered_by_mask_a_is_rejected_partial_overlap_is_not() {
    let mut rt = SlotRuntime::new();
    rt.publish(0, cand(1, 0b0011, 0, 0), m(1.0)).unwrap();
    assert_eq!(rt.state_mask_a(), 0b0011);
    assert_eq!(rt.find_candidate_slot(&cand(2, 0b0010, 0, 0)), None);
    assert_eq!(
        rt.find_candidate_slot(&cand(3, 0b0110, 0, 0)),
        Some(Slot::new(1).unwrap())
    );
}

#[test]
fn mask_b_rejects_the_same_way() {
    let mut rt = SlotRuntime::new();
    rt.insert_state_b(0b0011);
    assert_eq!(rt.find_candidate_slot(&cand(2, 0b0010, 0, 0)), None);
    assert_eq!(
        rt.find_candidate_slot(&cand(3, 0b0110, 0, 0)),
        Some(Slot::new(0).unwrap())
    );
}

#[test]
fn slot_zero_when_nothing_is_occupied() {
    let rt = SlotRuntime::new();
    assert_eq!(
        rt.find_candidate_slot(&cand(1, 0b1, 0, 0)),
        Some(Slot::new(0).unwrap())
    );
}

#[test]
fn occupied_bitmap_0101_means_two_entries_not_five() {
    let mut rt = SlotRuntime::new();
    rt.publish(0, cand(1, 1 << 0, 0, 0), m(1.0)).unwrap();
    rt.publish(2, cand(2, 1 << 1, 0, 0), m(2.0)).unwrap();
    assert_eq!(rt.occupied_bitmap(), 0b0101);
    assert_eq!(rt.occupied_count(), 2);
    // The first empty slot is 1, not "slot 5" or "full".
    assert_eq!(
        rt.find_candidate_slot(&cand(3, 1 << 2, 0, 0)),
        Some(Slot::new(1).unwrap())
    );
}

#[test]
fn first_slot_empty_or_related_wins_in_order() {
    let mut rt = SlotRuntime::new();
    for i in 0..4 {
        rt.publish(i, cand(i, 1 << i, 0, 0), m(i as f32)).unwrap();
    }
    // Full table, unrelated candidate: no slot.
    assert_eq!(rt.find_candidate_slot(&cand(9, 1 << 9, 0, 0)), None);
    // Related to slots 1 and 3: the first one, slot 1.
    assert_eq!(
        rt.find_candidate_slot(&cand(9, 1 << 9, 0b1010, 0)),
        Some(Slot::new(1).unwrap())
    );
    // Slot 0 empty, slot 2 related: slot 0 comes first (no related-first pass).
    let mut rt = SlotRuntime::new();
    rt.publish(1, cand(1, 1 << 1, 0, 0), m(1.0)).unwrap();
    rt.publish(2, cand(2, 1 << 2, 0, 0), m(2.0)).unwrap();
    assert_eq!(
        rt.find_candidate_slot(&cand(9, 1 << 9, 1 << 2, 0)),
        Some(Slot::new(0).unwrap())
    );
}

#[test]
fn publish_writes_the_matrix_to_attribute_3_slot_plus_1() {
    let mut rt = SlotRuntime::new();
    for (slot, attr) in [(0u32, 1u32), (1, 4), (2, 7), (3, 10)] {
        rt.publish(slot, cand(slot, 1 << slot, 0, 0), m(slot as f32 + 0.5))
            .unwrap();
        assert_eq!(rt.mesh_attribute(attr), Some(m(slot as f32 + 0.5)));
    }
    assert_eq!(rt.mesh_attribute(2), None);
    assert_eq!(rt.mesh_attribute(13), None);
}

#[test]
fn remove_resets_to_identity_at_minus_1024_and_clears_bitmap_and_slot() {
    let mut rt = SlotRuntime::new();
    let c = cand(1, 0b0100, 0, 0);
    let s = rt.publish(2, c, m(3.0)).unwrap();
    assert_eq!(
        rt.remove(&c),
        RemoveOutcome::Removed {
            cleared_slots: 0b0100
        }
    );
    assert_eq!(rt.matrix(s), PARKED_MATRIX);
    assert_eq!(
        PARKED_MATRIX.translation,
        Vec3::new(0.0, -1024.0, 0.0).into()
    );
    assert_eq!(PARKED_MATRIX.matrix3, glam::Mat3A::IDENTITY);
    assert_eq!(rt.occupied_bitmap(), 0);
    assert_eq!(rt.slot(s), None);
    assert_eq!(rt.state_mask_a(), 0);
}

#[test]
fn remove_checks_permanent_then_link_then_presence() {
    // Both mask B covering and a link hit: B is checked first.
    let mut rt = SlotRuntime::new();
    let c = cand(1, 0b01, 0, 0b10);
    rt.publish(0, c, m(1.0)).unwrap();
    rt.publish(1, cand(2, 0b10, 0, 0), m(2.0)).unwrap();
    rt.insert_state_b(0b01);
    let before = rt.clone();
    assert_eq!(rt.remove(&c), RemoveOutcome::Permanent);
    assert_eq!(rt, before);
    // Without B: the link mask (not the relation mask) blocks it.
    let mut rt = SlotRuntime::new();
    let c = cand(1, 0b01, 0b10, 0b10);
    rt.publish(0, c, m(1.0)).unwrap();
    rt.publish(1, cand(2, 0b10, 0, 0), m(2.0)).unwrap();
    let before = rt.clone();
    assert_eq!(rt.remove(&c), RemoveOutcome::Linked);
    assert_eq!(rt, before);
    // The relation mask alone does not block removal.
    let c2 = cand(3, 0b100, 0b10, 0);
    rt.publish(2, c2, m(3.0)).unwrap();
    assert!(matches!(rt.remove(&c2), RemoveOutcome::Removed { .. }));
    // Bits not all set: nothing to remove.
    let before = rt.clone();
    assert_eq!(rt.remove(&cand(4, 0b1000, 0, 0)), RemoveOutcome::NotSet);
    assert_eq!(rt, before);
}

#[test]
fn slot_index_4_and_nan_matrix_are_typed_errors_and_change_nothing() {
    let mut rt = SlotRuntime::new();
    let before = rt.clone();
    assert_eq!(
        rt.publish(4, cand(1, 1, 0, 0), m(1.0)),
        Err(SlotError::OutOfRange(4))
    );
    assert_eq!(
        rt.publish(0, cand(1, 1, 0, 0), m(f32::NAN)),
        Err(SlotError::NonFiniteMatrix)
    );
    assert_eq!(rt, before);
}

// ------------------------------------------------------------ property test

/// A literal transcription of the seed's pseudo-code (§8.2–8.3), kept apart
/// from the crate's implementation on purpose.
#[derive(Clone, Debug, Default)]
struct Reference {
    a: u64,
    b: u64,
    occupied: u32,
    slots: [Option<SlotCandidate>; 4],
    attrs: [Option<Affine3A>; 11],
}

impl Reference {
    fn find(&self, c: &SlotCandidate) -> Option<u32> {
        let mask = c.mask;
        if (self.b & mask) == mask {
            return None;
        }
        if (self.a & mask) == mask {
            return None;
        }
        if self.occupied == 0 {
            return Some(0);
        }
        for i in 0..4 {
            match &self.slots[i] {
                None => return Some(i as u32),
                Some(e) if (e.mask & c.relation_mask) != 0 => return Some(i as u32),
                _ => {}
            }
        }
        None
    }
    fn publish(&mut self, c: SlotCandidate, slot: u32, mtx: Affine3A) {
        self.slots[slot as usize] = Some(c);
        self.occupied |= 1u32 << slot;
        self.attrs[(3 * slot + 1) as usize] = Some(mtx);
        self.a |= c.mask;
    }
    fn reset(&mut self, slot: u32) {
        if slot >= 4 {
            return;
        }
        self.attrs[(3 * slot + 1) as usize] =
            Some(Affine3A::from_translation(Vec3::new(0.0, -1024.0, 0.0)));
    }
    fn remove(&mut self, c: &SlotCandidate) {
        let mask = c.mask;
        if (self.b & mask) == mask {
            return;
        }
        if (self.a & c.link_mask) != 0 {
            return;
        }
        if (self.a & mask) != mask {
            return;
        }
        self.a &= !mask;
        if self.occupied != 0 {
            for i in 0..4u32 {
                if self.slots[i as usize] == Some(*c) {
                    self.reset(i);
                    self.occupied &= !(1u32 << i);
                    self.slots[i as usize] = None;
                }
            }
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    FindAndPublish(usize, f32),
    PublishAt(u32, usize, f32),
    Remove(usize),
    SetB(u64),
}

fn small_mask() -> impl Strategy<Value = u64> {
    // Few bits so candidates overlap, relate and cover each other often.
    0u64..16
}

proptest! {
    #[test]
    fn slot_runtime_follows_the_seed_and_keeps_state_occupancy_and_matrix_together(
        pool in prop::collection::vec((small_mask(), small_mask(), small_mask()), 1..6),
        ops in prop::collection::vec(
            prop_oneof![
                (0usize..6, -5.0f32..5.0).prop_map(|(c, x)| Op::FindAndPublish(c, x)),
                (0u32..6, 0usize..6, -5.0f32..5.0).prop_map(|(s, c, x)| Op::PublishAt(s, c, x)),
                (0usize..6).prop_map(Op::Remove),
                small_mask().prop_map(Op::SetB),
            ],
            0..40,
        ),
    ) {
        let pool: Vec<SlotCandidate> = pool
            .iter()
            .enumerate()
            .map(|(i, &(mask, rel, link))| cand(i as u32, mask.max(1), rel, link))
            .collect();
        let mut rt = SlotRuntime::new();
        let mut rf = Reference::default();
        for op in ops {
            match op {
                Op::FindAndPublish(c, x) => {
                    let c = pool[c % pool.len()];
                    let got = rt.find_candidate_slot(&c).map(Slot::get);
                    prop_assert_eq!(got, rf.find(&c));
                    if let Some(s) = got {
                        let (a0, occ0) = (rt.state_mask_a(), rt.occupied_bitmap());
                        rt.publish(s, c, m(x)).unwrap();
                        rf.publish(c, s, m(x));
                        // Publish changes all three together.
                        prop_assert_eq!(rt.state_mask_a(), a0 | c.mask);
                        prop_assert_eq!(rt.occupied_bitmap(), occ0 | (1 << s));
                        prop_assert_eq!(rt.mesh_attribute(3 * s + 1), Some(m(x)));
                    }
                }
                Op::PublishAt(s, c, x) => {
                    let c = pool[c % pool.len()];
                    let before = rt.clone();
                    match rt.publish(s, c, m(x)) {
                        Ok(_) => rf.publish(c, s, m(x)),
                        Err(e) => {
                            prop_assert_eq!(e, SlotError::OutOfRange(s));
                            prop_assert_eq!(&rt, &before);
                        }
                    }
                }
                Op::Remove(c) => {
                    let c = pool[c % pool.len()];
                    let before = rt.clone();
                    let out = rt.remove(&c);
                    rf.remove(&c);
                    if let RemoveOutcome::Removed { cleared_slots } = out {
                        prop_assert_eq!(rt.state_mask_a(), before.state_mask_a() & !c.mask);
                        for i in 0..4u32 {
                            let s = Slot::new(i).unwrap();
                            if cleared_slots & (1 << i) != 0 {
                                prop_assert_eq!(rt.slot(s), None);
                                prop_assert_eq!(rt.matrix(s), PARKED_MATRIX);
                                prop_assert_eq!(rt.occupied_bitmap() & (1 << i), 0);
                            } else {
                                prop_assert_eq!(rt.slot(s), before.slot(s));
                                prop_assert_eq!(rt.matrix(s), before.matrix(s));
                            }
                        }
                    } else {
                        prop_assert_eq!(&rt, &before);
                    }
                }
                Op::SetB(b) => {
                    rt.insert_state_b(b);
                    rf.b |= b;
                }
            }
            // The whole state equals the reference after every step.
            prop_assert_eq!(rt.state_mask_a(), rf.a);
            prop_assert_eq!(rt.state_mask_b(), rf.b);
            prop_assert_eq!(u32::from(rt.occupied_bitmap()), rf.occupied);
            for i in 0..4u32 {
                let s = Slot::new(i).unwrap();
                prop_assert_eq!(rt.slot(s).copied(), rf.slots[i as usize]);
                let want = rf.attrs[(3 * i + 1) as usize].unwrap_or(PARKED_MATRIX);
                prop_assert_eq!(rt.mesh_attribute(3 * i + 1), Some(want));
                // Occupied ⇔ holds a candidate.
                prop_assert_eq!(rt.occupied_bitmap() & (1 << i) != 0, rt.slot(s).is_some());
            }
        }
    }
}
