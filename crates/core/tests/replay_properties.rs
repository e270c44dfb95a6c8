//! DESIGN §9 properties: replay == live, and recovery from a snapshot taken
//! at any commit plus the later records == live, for random event streams.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use proptest::prelude::*;
use smithereens_core::*;

/// Runs `events` hits on a 4³ grid with a small budget, committing after
/// every `batch` admissions, recording a replay log, the commit records and
/// a snapshot after each commit.
fn live(
    seed: u64,
    events: u64,
    batch: u64,
) -> (Instance, ReplayLog, Vec<CommitRecord>, Vec<Snapshot>) {
    let mut inst = Instance::with_desc(
        grid(4),
        InstanceDesc {
            id: InstanceId(seed),
            budget: BudgetDesc {
                body_slots: 6,
                queue_capacity: 256,
                ..BudgetDesc::default()
            },
            ..InstanceDesc::default()
        },
    )
    .unwrap();
    let mut rec = ReplayRecorder::new(&inst).unwrap();
    let mut backend = HeadlessBackend::default();
    let mut rng = seed | 1;
    let mut records = Vec::new();
    let mut snapshots = vec![inst.snapshot()];
    for id in 1..=events {
        inst.admit(grid_hit(id, 4, &mut rng)).unwrap();
        if id % batch == 0 || id == events {
            let out = rec.commit(&mut inst, &mut backend).unwrap();
            if let Some(r) = out.record {
                records.push(r);
                snapshots.push(inst.snapshot());
            }
        }
    }
    (inst, rec.finish(), records, snapshots)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn replay_reproduces_the_live_run(seed in any::<u64>(), events in 1u64..60, batch in 1u64..4) {
        let (inst, log, _, _) = live(seed, events, batch);
        let report = replay(inst.asset().clone(), &log).unwrap();
        prop_assert_eq!(report.final_hash, inst.state_hash());
    }

    #[test]
    fn snapshot_plus_later_records_recovers_the_live_run(
        seed in any::<u64>(), events in 1u64..60, at in 0usize..40
    ) {
        let (inst, _, records, snapshots) = live(seed, events, 1);
        let at = at.min(snapshots.len() - 1);
        let (back, report) = recover(inst.asset().clone(), &snapshots[at], &records).unwrap();
        prop_assert_eq!(report.missing, None);
        prop_assert_eq!(report.skipped, at as u64);
        prop_assert_eq!(back.state_hash(), inst.state_hash());
        prop_assert_eq!(back.snapshot(), inst.snapshot());
    }
}
