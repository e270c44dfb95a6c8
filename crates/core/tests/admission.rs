//! DESIGN §3.8 admission keyed by (instance, event id).

#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use smithereens_core::glam::Vec3;
use smithereens_core::*;

fn instance(id: u64) -> Instance {
    Instance::with_desc(
        three_chunks(),
        InstanceDesc {
            id: InstanceId(id),
            ..InstanceDesc::default()
        },
    )
    .unwrap()
}

#[test]
fn the_same_event_id_on_two_instances_is_two_events() {
    let mut set = InstanceSet::new();
    set.insert(instance(1)).unwrap();
    set.insert(instance(2)).unwrap();
    assert_eq!(
        set.insert(instance(2)),
        Err(DuplicateInstance(InstanceId(2)))
    );
    let other = RadialDamage {
        damage: 3.0,
        ..hit(7)
    };
    assert!(matches!(
        set.admit(InstanceId(1), hit(7)).unwrap(),
        Admission::Pending { .. }
    ));
    assert!(matches!(
        set.admit(InstanceId(2), other).unwrap(),
        Admission::Pending { .. }
    ));
    assert_eq!(
        set.admit(InstanceId(1), other),
        Err(DamageError::ConflictingEvent(7))
    );
    assert_eq!(
        set.admit(InstanceId(9), hit(7)),
        Err(DamageError::UnknownInstance(9))
    );
    let mut stray = instance(9);
    stray.admit(hit(1)).unwrap();
    let record = stray
        .commit(&mut HeadlessBackend::default())
        .unwrap()
        .record
        .unwrap();
    assert_eq!(
        set.apply_record(&record),
        Err(RecordError::UnknownInstance(InstanceId(9)))
    );
    for id in [1, 2] {
        set.get_mut(InstanceId(id))
            .unwrap()
            .commit(&mut HeadlessBackend::default())
            .unwrap();
    }
    assert_eq!(set.get(InstanceId(1)).unwrap().health(), &[6.0, 2.0]);
    assert_eq!(set.get(InstanceId(2)).unwrap().health(), &[8.0, 3.0]);
    let receipt = set.get(InstanceId(2)).unwrap().receipt(EventId(7)).unwrap();
    assert_eq!(receipt.instance, InstanceId(2));
}

#[test]
fn same_id_and_parameters_while_pending_returns_the_same_pending_answer() {
    let mut inst = instance(1);
    inst.admit(hit(3)).unwrap();
    let first = inst.admit(hit(4)).unwrap();
    assert_eq!(
        first,
        Admission::Pending {
            event: EventId(4),
            admission_seq: 1
        }
    );
    assert_eq!(inst.admit(hit(4)).unwrap(), first);
    assert_eq!(inst.admit(hit(4)).unwrap(), first);
    assert_eq!(inst.pending().len(), 2, "no second copy of the damage");
}

#[test]
fn an_applied_id_returns_the_original_receipt_and_version_forever() {
    let mut inst = instance(1);
    let mut backend = HeadlessBackend::default();
    inst.admit(hit(1)).unwrap();
    inst.commit(&mut backend).unwrap();
    inst.admit(hit(2)).unwrap();
    inst.commit(&mut backend).unwrap();
    let original = inst.receipt(EventId(2)).unwrap().clone();
    assert_eq!(original.commit_seq, 2);
    assert_eq!(original.topology_version, 1);
    assert_eq!(original.broken, vec![BondIndex(1)]);
    // Later commits do not change what a repeated id gets back.
    for id in 3..6 {
        inst.admit(RadialDamage {
            point: Vec3::new(50.0, 0.0, 0.0),
            ..hit(id)
        })
        .unwrap();
        inst.commit(&mut backend).unwrap();
    }
    assert_eq!(inst.admit(hit(2)).unwrap(), Admission::Applied(original));
    assert_eq!(inst.health(), &[2.0, 0.0]);
}

#[test]
fn same_id_with_different_parameters_is_rejected_pending_or_applied() {
    let mut inst = instance(1);
    inst.admit(hit(1)).unwrap();
    let before = inst.state_hash();
    let moved = RadialDamage {
        point: Vec3::new(0.0, 1e-6, 0.0),
        ..hit(1)
    };
    assert_eq!(inst.admit(moved), Err(DamageError::ConflictingEvent(1)));
    inst.commit(&mut HeadlessBackend::default()).unwrap();
    let with_impulse = RadialDamage {
        impulse: Some(Vec3::X),
        ..hit(1)
    };
    assert_eq!(
        inst.admit(with_impulse),
        Err(DamageError::ConflictingEvent(1))
    );
    assert_ne!(inst.state_hash(), before);
    assert!(inst.pending().is_empty());
}

#[test]
fn admission_against_a_stale_topology_version_is_rejected_and_changes_nothing() {
    let mut inst = instance(1);
    let mut backend = HeadlessBackend::default();
    for id in [1, 2] {
        inst.admit(hit(id)).unwrap();
        inst.commit(&mut backend).unwrap();
    }
    assert_eq!(inst.topology_version(), 1);
    let before = inst.state_hash();
    assert_eq!(
        inst.admit_at(hit(3), 0),
        Err(DamageError::StaleTopology {
            expected: 0,
            found: 1
        })
    );
    assert!(inst.pending().is_empty());
    assert_eq!(inst.state_hash(), before);
    assert!(inst.admit_at(hit(3), 1).is_ok());
}

#[test]
fn frozen_admission_validates_its_candidates() {
    let mut inst = instance(1);
    inst.admit(hit(1)).unwrap();
    let mut p = inst.pending()[0].clone();
    let mut other = instance(2);
    assert!(matches!(
        other.admit_frozen(p.clone()).unwrap(),
        Admission::Pending { .. }
    ));
    assert_eq!(other.pending()[0].candidates, p.candidates);
    p.event.id = EventId(2);
    p.candidates[0].bond = BondIndex(99);
    assert_eq!(
        other.admit_frozen(p.clone()),
        Err(DamageError::BadCandidate(99))
    );
    p.candidates[0].bond = BondIndex(0);
    p.candidates[0].distance = f32::NAN;
    assert_eq!(other.admit_frozen(p), Err(DamageError::BadCandidate(0)));
    assert_eq!(other.pending().len(), 1);
}
