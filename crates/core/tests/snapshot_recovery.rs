//! DESIGN §3.10 snapshots and recovery: resumable snapshots with every
//! listed field, recovery = snapshot + contiguous records (stop on a gap,
//! verify-and-skip repeats), pending events restored with frozen distances,
//! and the seed's worked case 10 → 6.

#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use smithereens_core::fixtures::cube_chunk;
use smithereens_core::glam::Vec3;
use smithereens_core::*;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Chunk 0 (support) and chunk 1 joined by one bond of strength 10 at the origin.
fn one_bond() -> Arc<Asset> {
    let desc = AssetDesc {
        chunks: vec![
            cube_chunk(Vec3::ZERO, 1.0, 1.0, true),
            cube_chunk(Vec3::X, 1.0, 1.0, false),
        ],
        bonds: vec![BondDesc {
            chunk0: 0,
            chunk1: BondEnd::Chunk(1),
            centroid: Vec3::new(0.5, 0.0, 0.0),
            normal: Vec3::X,
            area: 1.0,
            strength: 10.0,
        }],
        support_depth: None,
    };
    Arc::new(Asset::new(&desc).unwrap())
}

fn damage(id: u64, d: f32) -> RadialDamage {
    RadialDamage {
        id: EventId(id),
        point: Vec3::new(0.5, 0.0, 0.0),
        radius: 1.0,
        damage: d,
        impulse: None,
    }
}

#[test]
fn the_snapshot_carries_health_6_so_resuming_and_taking_7_breaks_the_bond() {
    let asset = one_bond();
    let mut inst = Instance::new(asset.clone(), Pose::IDENTITY).unwrap();
    inst.admit(damage(1, 4.0)).unwrap();
    let out = inst.commit(&mut HeadlessBackend::default()).unwrap();
    // 10 → 6 changes no topology, but the commit sequence advances.
    assert!(out.broken.is_empty());
    assert_eq!(inst.topology_version(), 0);
    assert_eq!(inst.commit_seq(), 1);
    assert_eq!(inst.cluster_count(), 1);

    let snap = inst.snapshot();
    assert_eq!(
        snap.health,
        vec![6.0],
        "the snapshot carries the remaining 6"
    );
    assert_eq!(snap.commit_seq, 1);
    assert_eq!(snap.asset, asset.fingerprint());
    assert_eq!(snap.support, vec![ChunkIndex(0)]);
    let bytes = snap.to_bytes();
    let back = Snapshot::from_bytes(&bytes).unwrap();
    assert_eq!(back, snap);

    // Correct resume: 6 − 7 breaks it and chunk 1 falls.
    let mut right = Instance::restore(asset.clone(), &back).unwrap();
    assert_eq!(right.state_hash(), inst.state_hash());
    right.admit(damage(2, 7.0)).unwrap();
    let out = right.commit(&mut HeadlessBackend::default()).unwrap();
    assert_eq!(right.health(), &[0.0]);
    assert_eq!(out.broken, vec![BondIndex(0)]);
    assert_eq!(right.cluster_count(), 2);

    // A resume from a topology-only view (health back at 10) keeps the bond.
    let mut wrong_snap = back.clone();
    wrong_snap.health = vec![10.0];
    let mut wrong = Instance::restore(asset, &wrong_snap).unwrap();
    wrong.admit(damage(2, 7.0)).unwrap();
    wrong.commit(&mut HeadlessBackend::default()).unwrap();
    assert_eq!(wrong.health(), &[3.0]);
    assert_eq!(wrong.cluster_count(), 1);
}

/// A live run on a 4³ grid with a budget: records, and the hash after each commit.
fn live_run(commits: u64) -> (Instance, Vec<CommitRecord>, BTreeMap<u64, u64>) {
    let mut inst = Instance::with_desc(
        grid(4),
        InstanceDesc {
            id: InstanceId(3),
            budget: BudgetDesc {
                body_slots: 12,
                ..BudgetDesc::default()
            },
            ..InstanceDesc::default()
        },
    )
    .unwrap();
    let mut backend = HeadlessBackend::default();
    let mut rng = 5u64;
    let mut records = Vec::new();
    let mut hashes = BTreeMap::from([(0, inst.state_hash())]);
    let mut id = 0;
    while inst.commit_seq() < commits {
        id += 1;
        inst.admit(grid_hit(id, 4, &mut rng)).unwrap();
        if id % 3 == 0 {
            continue; // batch two events into the next commit
        }
        let out = inst.commit(&mut backend).unwrap();
        if let Some(r) = out.record {
            records.push(r);
            hashes.insert(inst.commit_seq(), inst.state_hash());
        }
        // Recycle sleeping debris now and then (a commit of its own).
        if id % 7 == 0 {
            inst.advance_sleep(10.0).unwrap();
            let victim = inst
                .clusters()
                .find(|(_, c)| !c.supported && c.sleep == SleepState::Asleep)
                .map(|(h, _)| h);
            if let Some(h) = victim {
                let ticket = inst.begin_recycle(h).unwrap();
                inst.mark_queries_refreshed();
                records.push(inst.finish_recycle(ticket).unwrap());
                hashes.insert(inst.commit_seq(), inst.state_hash());
            }
        }
    }
    (inst, records, hashes)
}

#[test]
fn a_restored_snapshot_has_the_same_hash_pending_events_and_future() {
    let (mut inst, _, _) = live_run(12);
    // Leave events pending at the snapshot.
    let mut rng = 99u64;
    inst.admit(grid_hit(1000, 4, &mut rng)).unwrap();
    inst.admit(grid_hit(1001, 4, &mut rng)).unwrap();
    let snap = inst.snapshot();
    let mut copy = Instance::restore(
        inst.asset().clone(),
        &Snapshot::from_bytes(&snap.to_bytes()).unwrap(),
    )
    .unwrap();
    assert_eq!(copy.state_hash(), inst.state_hash());
    assert_eq!(
        copy.pending(),
        inst.pending(),
        "frozen distances and order survive"
    );
    assert_eq!(copy.receipts().count(), inst.receipts().count());
    assert_eq!(copy.snapshot(), snap);
    // Both continue identically (handles and slots included).
    let mut b1 = HeadlessBackend::default();
    let mut b2 = HeadlessBackend::default();
    for id in 2000..2030 {
        let e = grid_hit(id, 4, &mut rng);
        inst.admit(e).unwrap();
        copy.admit(e).unwrap();
        let o1 = inst.commit(&mut b1).unwrap();
        let o2 = copy.commit(&mut b2).unwrap();
        assert_eq!(o1, o2);
        assert_eq!(inst.state_hash(), copy.state_hash());
    }
}

#[test]
fn recovery_is_snapshot_plus_contiguous_records_stopping_at_a_gap_and_skipping_repeats() {
    let (live, records, hashes) = live_run(14);
    let asset = live.asset().clone();
    assert!(
        records.iter().any(|r| !r.created.is_empty()),
        "the run splits clusters"
    );
    assert!(
        records.iter().any(|r| r.receipts.is_empty()),
        "and recycles debris"
    );
    assert!(
        records.iter().any(|r| !r.motions.is_empty()
            || r.created
                .iter()
                .any(|c| c.motion.velocity.linear != Vec3::ZERO)),
        "and applies impulses"
    );
    // Snapshot at commit 4 of an identical run.
    let (at4, _, _) = live_run(4);
    let snap = at4.snapshot();
    assert_eq!(snap.commit_seq, 4);
    assert_eq!(at4.state_hash(), hashes[&4]);

    // Everything, with repeats of 3 and 4 first: full recovery.
    let (inst, report) = recover(asset.clone(), &snap, &records).unwrap();
    assert_eq!(report.skipped, 4, "commits 1..=4 were verified and skipped");
    assert_eq!(report.applied, records.len() as u64 - 4);
    assert_eq!(report.missing, None);
    assert_eq!(inst.state_hash(), live.state_hash());

    // Commit 8 missing: stop after 7 and ask for 8.
    let holed: Vec<CommitRecord> = records
        .iter()
        .filter(|r| r.commit_seq != 8)
        .cloned()
        .collect();
    let (inst, report) = recover(asset.clone(), &snap, &holed).unwrap();
    assert_eq!(report.missing, Some((8, 8)));
    assert_eq!(inst.commit_seq(), 7);
    assert_eq!(inst.state_hash(), hashes[&7]);

    // Resending a record does not apply it twice.
    let mut twice = records.clone();
    twice.insert(6, records[5].clone());
    let (inst, report) = recover(asset, &snap, &twice).unwrap();
    assert_eq!(inst.state_hash(), live.state_hash());
    assert_eq!(report.skipped, 5);
}

#[test]
fn a_repeated_sequence_with_other_content_is_a_conflict() {
    let (_, records, _) = live_run(6);
    let (at4, _, _) = live_run(4);
    let snap = at4.snapshot();
    let mut tampered = records.clone();
    let r3 = tampered
        .iter_mut()
        .find(|r| r.commit_seq == 3 && !r.receipts.is_empty());
    let Some(r3) = r3 else {
        panic!("commit 3 has receipts in this run");
    };
    let DamageModel::Radial { damage, .. } = &mut r3.receipts[0].event.model else {
        panic!("the run admits radial events");
    };
    *damage += 1.0;
    let err = recover(at4.asset().clone(), &snap, &tampered).unwrap_err();
    assert_eq!(
        err,
        RecoveryError::Record {
            commit_seq: 3,
            error: RecordError::Conflict(3)
        }
    );
}

#[test]
fn bad_records_and_snapshots_are_typed_errors_that_change_nothing() {
    let (_, records, _) = live_run(6);
    let (mut at2, _, _) = live_run(2);
    let before = at2.state_hash();
    let next = records.iter().find(|r| r.commit_seq == 3).unwrap().clone();

    let mut other = next.clone();
    other.instance = InstanceId(77);
    assert!(matches!(
        at2.apply_record(&other),
        Err(RecordError::WrongInstance { .. })
    ));
    let mut ahead = next.clone();
    ahead.commit_seq = 5;
    assert_eq!(
        at2.apply_record(&ahead),
        Err(RecordError::Gap {
            expected: 3,
            found: 5
        })
    );
    let mut stale = next.clone();
    stale.base_topology_version += 7;
    assert!(matches!(
        at2.apply_record(&stale),
        Err(RecordError::StaleTopology { .. })
    ));
    let mut bad_bond = next.clone();
    bad_bond.health.push((BondIndex(1_000_000), 1.0));
    assert!(matches!(
        at2.apply_record(&bad_bond),
        Err(RecordError::Invalid { .. })
    ));
    let mut bad_value = next.clone();
    bad_value.health = vec![(BondIndex(0), f32::NAN)];
    assert!(matches!(
        at2.apply_record(&bad_value),
        Err(RecordError::Invalid { .. })
    ));
    // A "rest of" that names a cluster the record does not remove.
    if let Some(c) = next.created.first() {
        let mut rest = next.clone();
        rest.created[0] = ClusterRecord {
            nodes: NodeSet::RestOf(ClusterHandle::PLACEHOLDER),
            ..c.clone()
        };
        assert!(matches!(
            at2.apply_record(&rest),
            Err(RecordError::Invalid { .. })
        ));
    }
    assert_eq!(at2.state_hash(), before);
    assert_eq!(at2.apply_record(&next), Ok(RecordOutcome::Applied));
    assert_eq!(at2.apply_record(&next), Ok(RecordOutcome::Duplicate));

    // Records and snapshots survive the byte round trip; damaged bytes do not decode.
    let bytes = next.to_bytes();
    assert_eq!(CommitRecord::from_bytes(&bytes).unwrap(), next);
    assert!(CommitRecord::from_bytes(&bytes[..bytes.len() - 1]).is_err());
    let snap = at2.snapshot().to_bytes();
    for cut in [0, 5, 17, snap.len() / 2, snap.len() - 1] {
        assert!(matches!(
            Snapshot::from_bytes(&snap[..cut]),
            Err(SnapshotError::Frame(_))
        ));
    }
    let mut flipped = snap.clone();
    let k = flipped.len() - 3;
    flipped[k] ^= 1;
    assert!(matches!(
        Snapshot::from_bytes(&flipped),
        Err(SnapshotError::Frame(FrameError::Checksum))
    ));

    // A snapshot of another asset version, or inconsistent content.
    let s = at2.snapshot();
    assert!(matches!(
        Instance::restore(grid(3), &s),
        Err(SnapshotError::AssetMismatch { .. })
    ));
    let mut short = s.clone();
    short.health.pop();
    assert!(matches!(
        Instance::restore(at2.asset().clone(), &short),
        Err(SnapshotError::Invalid(_))
    ));
    let mut bad_owner = s.clone();
    bad_owner.ownership[0] = ClusterHandle::PLACEHOLDER;
    assert!(matches!(
        Instance::restore(at2.asset().clone(), &bad_owner),
        Err(SnapshotError::Invalid(_))
    ));
    let mut too_healthy = s;
    too_healthy.health[0] = 1e9;
    assert!(matches!(
        Instance::restore(at2.asset().clone(), &too_healthy),
        Err(SnapshotError::Invalid(_))
    ));
}
