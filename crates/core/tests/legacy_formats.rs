//! Frames written before falloff damage existed (format version 1, events
//! stored as bare radial events) still load: a replay log, a snapshot, a
//! commit record and a replication message, written by the code of main
//! 6ee4171 (`tests/data/legacy_v1_*`). Their events come back as radial
//! events with the original parameters; restoring the snapshot reproduces
//! the recorded state hash, and replaying the log is refused with a typed
//! error because it was recorded under the split rule before issue 12.

#![allow(clippy::unwrap_used)]

use smithereens_core::glam::Vec3;
use smithereens_core::*;
use std::sync::Arc;

const REPLAY: &[u8] = include_bytes!("data/legacy_v1_replay.bin");
const SNAPSHOT: &[u8] = include_bytes!("data/legacy_v1_snapshot.bin");
const RECORD: &[u8] = include_bytes!("data/legacy_v1_record.bin");
const MESSAGE: &[u8] = include_bytes!("data/legacy_v1_message.bin");
/// `state_hash` in `data/legacy_v1_expected.txt`.
const EXPECTED_HASH: u64 = 9278640680975459467;

/// The asset the fixtures were written for: 3 × 3 unit cubes, 10 du bonds.
fn asset() -> Arc<Asset> {
    Arc::new(Asset::new(&fixtures::grid_desc(3, 3, 1, 1.0, 1000.0, 10.0)).unwrap())
}

/// The events the fixtures were written with.
fn event(id: u64) -> RadialDamage {
    let (x, damage, impulse) = match id {
        1 => (1.5, 25.0, Some(Vec3::new(0.0, 0.0, 3.0))),
        2 => (0.5, 40.0, None),
        _ => (2.5, 7.0, None),
    };
    RadialDamage {
        id: EventId(id),
        point: Vec3::new(x, 1.5, 0.5),
        radius: 1.2,
        damage,
        impulse,
    }
}

#[test]
fn a_version_1_replay_log_loads_and_its_replay_names_the_old_split_rule() {
    let log = ReplayLog::from_bytes(REPLAY).unwrap();
    let events: Vec<DamageEvent> = log
        .entries
        .iter()
        .flat_map(|e| match e {
            ReplayEntry::Commit { events, .. } => events.iter().map(|p| p.event.clone()).collect(),
            ReplayEntry::Recycle { .. } => vec![],
        })
        .collect();
    assert_eq!(events, vec![event(1).event(), event(2).event()]);
    // Recorded under the split rule before issue 12 (a split's remainder got
    // a new handle): its handles and hashes cannot be reproduced, and replay
    // says so instead of reporting a divergence.
    assert_eq!(log.format_version, 1);
    assert_eq!(
        replay(asset(), &log).unwrap_err(),
        ReplayError::SplitRuleChanged { format_version: 1 }
    );
    // Written again, it is a current frame that reads back with the same
    // entries.
    let again = ReplayLog::from_bytes(&log.to_bytes()).unwrap();
    assert_eq!(again.entries, log.entries);
    assert_eq!(again.format_version, replay::REPLAY_VERSION);
}

#[test]
fn a_version_1_snapshot_restores_with_its_pending_radial_event() {
    let snap = snapshot::Snapshot::from_bytes(SNAPSHOT).unwrap();
    let mut inst = Instance::restore(asset(), &snap).unwrap();
    assert_eq!(inst.state_hash(), EXPECTED_HASH);
    assert_eq!(inst.broken_count(), 3);
    assert_eq!(inst.pending().len(), 1);
    assert_eq!(inst.pending()[0].event.as_radial(), Some(event(3)));
    assert_eq!(
        inst.receipt(EventId(1)).unwrap().event,
        DamageEvent::from(event(1))
    );
    // The same id with the same radial parameters is the same event.
    assert!(matches!(
        inst.admit(event(3)).unwrap(),
        Admission::Pending { .. }
    ));
    inst.commit(&mut HeadlessBackend::default()).unwrap();
    assert!(inst.receipt(EventId(3)).is_some());
}

#[test]
fn a_version_1_commit_record_and_message_decode_to_radial_receipts() {
    let record = CommitRecord::from_bytes(RECORD).unwrap();
    assert_eq!(record.commit_seq, 1);
    assert_eq!(record.receipts.len(), 1);
    assert_eq!(record.receipts[0].event, event(1).event());
    let Message::Commit(from_message) = Message::from_bytes(MESSAGE).unwrap() else {
        panic!("the message is a commit");
    };
    assert_eq!(from_message, record);
    // A replica built from the initial state accepts it.
    let initial = Instance::with_desc(
        asset(),
        InstanceDesc {
            id: InstanceId(5),
            ..InstanceDesc::default()
        },
    )
    .unwrap();
    let mut replica = Replica::new(initial, 4, 4);
    replica.receive(MESSAGE).unwrap();
    assert_eq!(replica.instance().commit_seq(), 1);
}

#[test]
fn falloff_events_round_trip_through_every_frame() {
    let asset = asset();
    let mut inst = Instance::with_desc(
        asset.clone(),
        InstanceDesc {
            id: InstanceId(5),
            ..InstanceDesc::default()
        },
    )
    .unwrap();
    let blast = FalloffDamage {
        id: EventId(9),
        point: Vec3::new(1.5, 1.5, 0.5),
        inner_radius: 0.4,
        outer_radius: 1.3,
        damage: 12.0,
        impulse: Some(Vec3::new(0.0, 0.0, 2.0)),
    };
    inst.admit(blast).unwrap();
    let snap = inst.snapshot();
    let back = snapshot::Snapshot::from_bytes(&snap.to_bytes()).unwrap();
    assert_eq!(back, snap);
    let restored = Instance::restore(asset, &back).unwrap();
    assert_eq!(restored.pending()[0].event, blast.event());
    let out = inst.commit(&mut HeadlessBackend::default()).unwrap();
    let record = out.record.unwrap();
    assert_eq!(
        CommitRecord::from_bytes(&record.to_bytes()).unwrap(),
        record
    );
    let msg = Message::Commit(record.clone());
    assert_eq!(Message::from_bytes(&msg.to_bytes()).unwrap(), msg);
    assert_eq!(record.receipts[0].event, blast.event());
}
