//! Issue 12 item 4: receipts in a bounded window per event source
//! (DESIGN §3.8). Idempotency must not cost memory for ever.

#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use smithereens_core::glam::Vec3;
use smithereens_core::receipts::{DEFAULT_RECEIPT_WINDOW, ReceiptLookup};
use smithereens_core::*;

/// Event `seq` of `source`: a hit at the origin with zero budget, so it is
/// admitted and committed but breaks nothing (a steady stream that does not
/// wear the fixture down).
fn tap(source: u16, seq: u64) -> RadialDamage {
    RadialDamage {
        id: EventId::new(EventSource(source), seq),
        point: Vec3::ZERO,
        radius: 2.0,
        damage: 0.0,
        impulse: None,
    }
}

/// The §3.3 hit (breaks nothing on its own: 10 → 6, 4 → 2) as event `seq`
/// of `source`.
fn hit_from(source: u16, seq: u64) -> RadialDamage {
    RadialDamage {
        id: EventId::new(EventSource(source), seq),
        ..hit(0)
    }
}

fn commit(inst: &mut Instance) -> CommitOutcome {
    inst.commit(&mut HeadlessBackend::default()).unwrap()
}

/// Receipts held plus one horizon per source: the whole dedup state.
fn dedup_size(inst: &Instance) -> usize {
    let w = inst.receipt_window();
    w.len() + w.source_count()
}

#[test]
fn event_ids_split_into_source_and_sequence_and_contact_ids_are_the_contact_source() {
    let id = EventId::new(EventSource(2), 123_456);
    assert_eq!(id.0, (2 << 48) | 123_456);
    assert_eq!(id.source(), EventSource(2));
    assert_eq!(id.sequence(), 123_456);
    // Plain ids are the server's.
    assert_eq!(EventId(42).source(), EventSource::SERVER);
    assert_eq!(EventId(42).sequence(), 42);
    // smithereens-rapier numbers contact damage `1 << 63 | counter`.
    let contact = EventId((1 << 63) | 17);
    assert_eq!(contact.source(), EventSource::CONTACTS);
    assert_eq!(contact.sequence(), 17);
    // A sequence too wide for 48 bits loses its high bits, not the source.
    assert_eq!(
        EventId::new(EventSource(1), (1 << 48) | 5),
        EventId::new(EventSource(1), 5)
    );
}

#[test]
fn dedup_state_stays_bounded_over_a_one_hour_match() {
    // 60 events per second from 3 sources (20 each), one commit per 60 Hz
    // step, for one simulated hour: 216 000 events.
    let mut inst = Instance::new(three_chunks(), Pose::IDENTITY).unwrap();
    let steps_per_minute = 60 * 60;
    let mut sizes = Vec::new();
    let mut snapshot_bytes = Vec::new();
    let mut next = [0u64; 3];
    for step in 0..60 * steps_per_minute {
        let source = (step % 3) as u16;
        next[source as usize] += 1;
        let answer = inst.admit(tap(source, next[source as usize])).unwrap();
        assert!(matches!(answer, Admission::Pending { .. }));
        let out = commit(&mut inst);
        assert_eq!(out.receipts.len(), 1);
        let minute = (step + 1) / steps_per_minute;
        if (step + 1) % steps_per_minute == 0 && (minute == 10 || minute == 60) {
            sizes.push(dedup_size(&inst));
            snapshot_bytes.push(inst.snapshot().to_bytes().len());
        }
    }
    println!("dedup entries at 10 and 60 min: {sizes:?}, snapshot bytes: {snapshot_bytes:?}");
    assert_eq!(inst.commit_seq(), 216_000);
    assert_eq!(next, [72_000; 3]);
    // Saturated: a full window per source plus three horizons.
    let full = 3 * DEFAULT_RECEIPT_WINDOW as usize + 3;
    assert_eq!(sizes, vec![full, full]);
    let (at10, at60) = (snapshot_bytes[0] as f64, snapshot_bytes[1] as f64);
    assert!(
        (at60 - at10).abs() <= 0.1 * at10,
        "snapshot {at10} B at 10 min, {at60} B at 60 min"
    );
    // The horizon is the highest expired sequence of each source.
    assert_eq!(
        inst.receipt_window().horizons(),
        (0..3)
            .map(|s| (EventSource(s), 72_000 - DEFAULT_RECEIPT_WINDOW as u64))
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_duplicate_inside_the_window_returns_the_original_receipt() {
    let mut inst = Instance::new(three_chunks(), Pose::IDENTITY).unwrap();
    inst.set_receipt_window(4);
    inst.admit(hit_from(1, 1)).unwrap();
    let original = commit(&mut inst).receipts[0].clone();
    for seq in 2..=4 {
        inst.admit(tap(1, seq)).unwrap();
        commit(&mut inst);
    }
    // Four receipts, the window's size: sequence 1 is still in it.
    let hash = inst.state_hash();
    assert_eq!(
        inst.admit(hit_from(1, 1)).unwrap(),
        Admission::Applied(original.clone())
    );
    assert_eq!(original.commit_seq, 1);
    assert_eq!(inst.receipt(original.event.id), Some(&original));
    assert_eq!(inst.health(), &[6.0, 2.0]);
    assert_eq!(inst.state_hash(), hash);
    assert!(inst.pending().is_empty());
    // Other parameters under the same id are still a conflict.
    assert_eq!(
        inst.admit(tap(1, 1)),
        Err(DamageError::ConflictingEvent(
            EventId::new(EventSource(1), 1).0
        ))
    );
}

#[test]
fn a_duplicate_older_than_the_window_is_answered_expired_and_changes_nothing() {
    let mut inst = Instance::new(three_chunks(), Pose::IDENTITY).unwrap();
    inst.set_receipt_window(4);
    inst.admit(hit_from(1, 1)).unwrap();
    commit(&mut inst);
    for seq in 2..=5 {
        inst.admit(tap(1, seq)).unwrap();
        commit(&mut inst);
    }
    // Sequence 1 left the window: not by a stored receipt but by its number.
    let old = EventId::new(EventSource(1), 1);
    assert_eq!(inst.receipt(old), None);
    assert_eq!(inst.receipt_window().lookup(old), ReceiptLookup::Expired);
    assert_eq!(inst.receipt_window().len(), 4);
    let (hash, snap, seq) = (inst.state_hash(), inst.snapshot(), inst.commit_seq());
    // The duplicate does not damage again (a second hit would break 4 → 2 → 0).
    assert_eq!(
        inst.admit(hit_from(1, 1)).unwrap(),
        Admission::Expired { event: old }
    );
    // Parameters can no longer be compared: any payload is "expired".
    assert_eq!(
        inst.admit(tap(1, 1)).unwrap(),
        Admission::Expired { event: old }
    );
    assert!(inst.pending().is_empty());
    assert_eq!(commit(&mut inst).status, CommitStatus::Idle);
    assert_eq!(inst.state_hash(), hash);
    assert_eq!(inst.snapshot(), snap);
    assert_eq!(inst.commit_seq(), seq);
    assert_eq!(inst.health(), &[6.0, 2.0]);
    // Another source's sequence 1 is a different event.
    assert!(matches!(
        inst.admit(tap(2, 1)).unwrap(),
        Admission::Pending { .. }
    ));
}

#[test]
fn out_of_order_arrival_within_the_window_is_accepted_once() {
    let mut inst = Instance::new(three_chunks(), Pose::IDENTITY).unwrap();
    inst.set_receipt_window(8);
    for seq in [5, 3, 4] {
        assert!(matches!(
            inst.admit(tap(1, seq)).unwrap(),
            Admission::Pending { .. }
        ));
    }
    // Late, but still inside the window: a new event, applied once.
    commit(&mut inst);
    assert!(matches!(
        inst.admit(hit_from(1, 2)).unwrap(),
        Admission::Pending { .. }
    ));
    // Pending twice is the same pending answer, not a second event.
    assert!(matches!(
        inst.admit(hit_from(1, 2)).unwrap(),
        Admission::Pending {
            admission_seq: 3,
            ..
        }
    ));
    assert_eq!(inst.pending().len(), 1);
    let receipt = commit(&mut inst).receipts[0].clone();
    assert_eq!(inst.health(), &[6.0, 2.0]);
    assert_eq!(
        inst.admit(hit_from(1, 2)).unwrap(),
        Admission::Applied(receipt)
    );
    assert_eq!(
        inst.receipts()
            .map(|r| r.event.id.sequence())
            .collect::<Vec<_>>(),
        [2, 3, 4, 5]
    );
    assert_eq!(inst.health(), &[6.0, 2.0]);
    assert_eq!(inst.receipt_window().horizons(), []);
}

#[test]
fn snapshots_carry_the_window_and_the_horizons() {
    let mut inst = Instance::new(three_chunks(), Pose::IDENTITY).unwrap();
    inst.set_receipt_window(3);
    for seq in 1..=10 {
        inst.admit(tap(4, seq)).unwrap();
        commit(&mut inst);
    }
    let snap = inst.snapshot();
    assert_eq!(snap.receipt_window, Some(3));
    assert_eq!(snap.receipt_horizons, vec![(EventSource(4), 7)]);
    assert_eq!(snap.receipts.len(), 3);
    let back = Snapshot::from_bytes(&snap.to_bytes()).unwrap();
    let mut restored = Instance::restore(three_chunks(), &back).unwrap();
    assert_eq!(restored.state_hash(), inst.state_hash());
    assert_eq!(restored.receipt_window(), inst.receipt_window());
    assert_eq!(
        restored.admit(tap(4, 7)).unwrap(),
        Admission::Expired {
            event: EventId::new(EventSource(4), 7)
        }
    );
    assert!(matches!(
        restored.admit(tap(4, 8)).unwrap(),
        Admission::Applied(_)
    ));
    // A receipt at or below its source's horizon is inconsistent.
    let mut bad = snap.clone();
    bad.receipt_horizons = vec![(EventSource(4), 8)];
    assert!(matches!(
        Instance::restore(three_chunks(), &bad),
        Err(SnapshotError::Invalid(_))
    ));
}

#[test]
fn a_version_3_snapshot_puts_every_receipt_into_the_window_trimmed_to_it() {
    let mut inst = Instance::new(three_chunks(), Pose::IDENTITY).unwrap();
    // More receipts than the default window, as an unbounded table held them.
    inst.set_receipt_window(DEFAULT_RECEIPT_WINDOW + 10);
    for seq in 1..=u64::from(DEFAULT_RECEIPT_WINDOW) + 10 {
        inst.admit(tap(0, seq)).unwrap();
        commit(&mut inst);
    }
    let mut snap = inst.snapshot();
    assert_eq!(snap.receipts.len(), DEFAULT_RECEIPT_WINDOW as usize + 10);
    snap.receipt_window = None;
    // Version 4 without its last two fields (two zero bytes) is version 3.
    let bytes = snap.to_bytes();
    let header = codec::FRAME_HEADER_LEN;
    let payload = &bytes[header..bytes.len() - 2];
    let mut v3 = bytes[..4].to_vec();
    v3.extend_from_slice(&3u16.to_le_bytes());
    v3.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    v3.extend_from_slice(&hash::fnv1a64(payload).to_le_bytes());
    v3.extend_from_slice(payload);
    let back = Snapshot::from_bytes(&v3).unwrap();
    assert_eq!(back, snap);
    let restored = Instance::restore(three_chunks(), &back).unwrap();
    assert_eq!(restored.state_hash(), inst.state_hash());
    assert_eq!(restored.receipt_window().window(), DEFAULT_RECEIPT_WINDOW);
    assert_eq!(
        restored.receipt_window().len(),
        DEFAULT_RECEIPT_WINDOW as usize
    );
    assert_eq!(
        restored.receipt_window().horizons(),
        vec![(EventSource::SERVER, 10)]
    );
    assert_eq!(
        restored.receipt_window().lookup(EventId(10)),
        ReceiptLookup::Expired
    );
    assert!(restored.receipt(EventId(11)).is_some());
}

#[test]
fn a_replica_skips_a_repeated_record_whose_receipts_expired() {
    let mut server = Instance::new(three_chunks(), Pose::IDENTITY).unwrap();
    let mut replica = Instance::new(three_chunks(), Pose::IDENTITY).unwrap();
    server.set_receipt_window(2);
    replica.set_receipt_window(2);
    let mut records = Vec::new();
    for seq in 1..=5 {
        server.admit(tap(1, seq)).unwrap();
        records.push(commit(&mut server).record.unwrap());
        assert_eq!(
            replica.apply_record(records.last().unwrap()),
            Ok(RecordOutcome::Applied)
        );
    }
    assert_eq!(replica.state_hash(), server.state_hash());
    assert_eq!(replica.receipt_window(), server.receipt_window());
    // Record 1's receipt expired: known applied by its number.
    assert_eq!(
        replica.apply_record(&records[0]),
        Ok(RecordOutcome::Duplicate)
    );
    // Record 5's receipt is in the window and still verified.
    let mut forged = records[4].clone();
    forged.receipts[0].broken.push(BondIndex(0));
    assert_eq!(replica.apply_record(&forged), Err(RecordError::Conflict(5)));
}

#[test]
fn the_pending_index_follows_withdrawal_restoration_and_commit() {
    let mut inst = Instance::new(three_chunks(), Pose::IDENTITY).unwrap();
    for seq in 1..=3 {
        inst.admit(tap(1, seq)).unwrap();
    }
    let withdrawn = inst.withdraw_pending();
    assert_eq!(withdrawn.len(), 3);
    // Withdrawn ids are unknown again: other parameters are no conflict.
    assert!(matches!(
        inst.admit(hit_from(1, 2)).unwrap(),
        Admission::Pending {
            admission_seq: 3,
            ..
        }
    ));
    assert_eq!(inst.withdraw_pending().len(), 1);
    // Restored out of order, each found again by its id.
    for p in [&withdrawn[2], &withdrawn[0]] {
        inst.restore_pending(p.clone()).unwrap();
    }
    assert_eq!(
        inst.admit(tap(1, 1)).unwrap(),
        Admission::Pending {
            event: EventId::new(EventSource(1), 1),
            admission_seq: 0
        }
    );
    assert_eq!(
        inst.admit(hit_from(1, 3)),
        Err(DamageError::ConflictingEvent(
            EventId::new(EventSource(1), 3).0
        ))
    );
    let out = commit(&mut inst);
    assert_eq!(out.receipts.len(), 2);
    assert!(inst.pending().is_empty());
    assert!(matches!(
        inst.admit(tap(1, 3)).unwrap(),
        Admission::Applied(_)
    ));
    // Sequence 2 was withdrawn, never applied: a new event.
    assert!(matches!(
        inst.admit(tap(1, 2)).unwrap(),
        Admission::Pending { .. }
    ));
}

#[test]
fn a_version_2_snapshot_message_decodes_without_receipt_horizons() {
    let mut inst = Instance::new(three_chunks(), Pose::IDENTITY).unwrap();
    inst.admit(tap(1, 1)).unwrap();
    commit(&mut inst);
    let mut snap = inst.snapshot();
    snap.receipt_window = None;
    let bytes = replication::Message::Snapshot(snap.clone()).to_bytes();
    // Version 3 without the snapshot's last two fields is version 2.
    let header = codec::FRAME_HEADER_LEN;
    let payload = &bytes[header..bytes.len() - 2];
    let mut v2 = bytes[..4].to_vec();
    v2.extend_from_slice(&2u16.to_le_bytes());
    v2.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    v2.extend_from_slice(&hash::fnv1a64(payload).to_le_bytes());
    v2.extend_from_slice(payload);
    assert_eq!(
        replication::Message::from_bytes(&v2).unwrap(),
        replication::Message::Snapshot(snap)
    );
}
