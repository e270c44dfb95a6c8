//! Issue 15 item 4: runtime body state beyond one `is_dismembered` flag (§8.1).
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use glam::Vec3;
use smithereens_dismember::*;

fn victim() -> VictimHandle {
    VictimHandle {
        id: VictimId(1),
        generation: 0,
    }
}

#[test]
fn hits_count_per_element_and_in_total_and_remember_the_last_hit() {
    let m = humanoid();
    let mut s = BodyState::new(&m, victim());
    let fa = bone(&m, "l_forearm");
    let head = bone(&m, "head");
    s.record_hit(
        &m,
        fa,
        Vec3::new(0.5, 1.5, 0.0),
        Vec3::new(0.0, 0.0, -2.0),
        1.0,
    )
    .unwrap();
    s.record_hit(&m, fa, Vec3::new(0.6, 1.5, 0.0), Vec3::X, 2.0)
        .unwrap();
    s.record_hit(&m, head, Vec3::new(0.0, 1.7, 0.0), Vec3::Y, 2.5)
        .unwrap();
    assert_eq!(s.element_hit_count(m.region_index("ArmLeft").unwrap()), 2);
    assert_eq!(s.element_hit_count(m.region_index("Head").unwrap()), 1);
    assert_eq!(s.hit_count(), 3);
    let last = s.last_hit().unwrap();
    assert_eq!(last.position, Vec3::new(0.0, 1.7, 0.0));
    assert_eq!(last.direction, Vec3::Y);
    assert_eq!(s.time_since_last_hit(3.0), Some(0.5));
}

#[test]
fn bad_hit_records_are_typed_errors_and_change_nothing() {
    let m = humanoid();
    let mut s = BodyState::new(&m, victim());
    let before = s.clone();
    let fa = bone(&m, "l_forearm");
    assert!(s.record_hit(&m, fa, Vec3::NAN, Vec3::X, 0.0).is_err());
    assert!(s.record_hit(&m, fa, Vec3::ZERO, Vec3::ZERO, 0.0).is_err());
    assert!(s.record_hit(&m, fa, Vec3::ZERO, Vec3::X, f64::NAN).is_err());
    assert_eq!(s, before);
}

#[test]
fn blood_mask_has_12_levels_from_0_to_51() {
    let m = humanoid();
    let mut s = BodyState::new(&m, victim());
    let mask = m.mask_index("blood_mask_default").unwrap();
    assert_eq!(s.mask_value(&m, mask), Some(0.0));
    assert!(s.raise_mask(&m, mask, 1));
    assert!((s.mask_value(&m, mask).unwrap() - 51.0 / 11.0).abs() < 1e-5);
    s.raise_mask(&m, mask, 200);
    assert_eq!(s.mask_level(mask), Some(11));
    assert_eq!(s.mask_value(&m, mask), Some(51.0));
}

#[test]
fn a_fresh_body_is_intact_with_states_per_bone_and_element() {
    let m = humanoid();
    let s = BodyState::new(&m, victim());
    assert_eq!(s.present_mask(), u64::MAX >> (64 - 43));
    for i in 0..6u32 {
        let r = m.region_index(&m.regions()[i as usize].name).unwrap();
        assert_eq!(s.element_state(r), Some(ElementState::EMPTY));
    }
    assert_eq!(s.bone_state(bone(&m, "l_hand")), Some(BoneState::EMPTY));
    assert_eq!(s.slots().occupied_bitmap(), 0);
}
