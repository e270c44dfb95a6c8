//! A journal written before falloff damage existed (format version 1: its
//! receipts and pending events are bare radial events), by the code of main
//! 6ee4171 (`tests/data/legacy_v1.redb`), still opens, verifies and
//! recovers; new entries are appended in version 2 beside the old ones.

#![allow(clippy::unwrap_used)]

mod common;

use smithereens_core::glam::Vec3;
use smithereens_core::*;
use smithereens_journal::{Journal, JournalOptions};
use std::sync::Arc;

/// `state_hash` of `core/tests/data/legacy_v1_expected.txt` (same run).
const EXPECTED_HASH: u64 = 9278640680975459467;

fn asset() -> Arc<Asset> {
    Arc::new(Asset::new(&fixtures::grid_desc(3, 3, 1, 1.0, 1000.0, 10.0)).unwrap())
}

#[test]
fn a_version_1_journal_recovers_and_takes_new_falloff_events() {
    let dir = common::temp_dir("legacy");
    let path = dir.join("legacy_v1.redb");
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/legacy_v1.redb"),
        &path,
    )
    .unwrap();
    let mut journal = Journal::open(&path, JournalOptions::default()).unwrap();
    journal.verify().unwrap();
    let mut inst = journal.recover(asset()).unwrap().instance;
    assert_eq!(inst.state_hash(), EXPECTED_HASH);
    assert_eq!(inst.commit_seq(), 2);
    let pending = inst.pending()[0].event.clone();
    assert_eq!(
        pending.as_radial(),
        Some(RadialDamage {
            id: EventId(3),
            point: Vec3::new(2.5, 1.5, 0.5),
            radius: 1.2,
            damage: 7.0,
            impulse: None,
        })
    );
    assert_eq!(
        inst.receipt(EventId(1)).unwrap().event.impulse,
        Some(Vec3::new(0.0, 0.0, 3.0))
    );
    // A falloff event admitted, journaled and committed after the upgrade.
    let blast = FalloffDamage {
        id: EventId(4),
        point: Vec3::new(1.5, 1.5, 0.5),
        inner_radius: 0.6,
        outer_radius: 1.1,
        damage: 20.0,
        impulse: None,
    };
    inst.admit(blast).unwrap();
    journal
        .record_admission(inst.pending().last().unwrap())
        .unwrap();
    let out = inst.commit(&mut HeadlessBackend::default()).unwrap();
    journal.append(out.record.as_ref().unwrap(), &inst).unwrap();
    drop(journal);
    let journal = Journal::open(&path, JournalOptions::default()).unwrap();
    journal.verify().unwrap();
    let again = journal.recover(asset()).unwrap().instance;
    assert_eq!(again.state_hash(), inst.state_hash());
    assert_eq!(again.receipt(EventId(4)).unwrap().event, blast.event());
    assert!(again.receipt(EventId(3)).is_some());
    std::fs::remove_dir_all(dir).unwrap();
}
