//! DESIGN §3.10 replay: re-running a recorded event log from the initial
//! health reproduces every commit's state hash bit for bit.

#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use smithereens_core::glam::{Quat, Vec3};
use smithereens_core::*;

/// A stand-in for the physics world: dynamic clusters fall and spin.
fn integrate(inst: &mut Instance, dt: f32) {
    let moving: Vec<(ClusterHandle, ClusterMotion)> = inst
        .clusters()
        .filter(|(_, c)| !c.supported)
        .map(|(h, c)| (h, c.motion))
        .collect();
    for (h, mut m) in moving {
        m.velocity.linear.y -= 9.81 * dt;
        m.pose.translation += m.velocity.linear * dt;
        m.pose.rotation =
            (Quat::from_scaled_axis(m.velocity.angular * dt) * m.pose.rotation).normalize();
        inst.set_motion::<()>(h, m).unwrap();
    }
}

fn record_run() -> (Instance, ReplayLog) {
    let n = 5;
    let mut inst = Instance::with_desc(
        grid(n),
        InstanceDesc {
            id: InstanceId(11),
            budget: BudgetDesc {
                body_slots: 10,
                queue_capacity: 64,
                ..BudgetDesc::default()
            },
            ..InstanceDesc::default()
        },
    )
    .unwrap();
    let mut rec = ReplayRecorder::new(&inst).unwrap();
    let mut backend = HeadlessBackend::default();
    let mut rng = 23u64;
    let mut id = 0;
    for step in 0..120u32 {
        integrate(&mut inst, 1.0 / 60.0);
        if step % 2 == 0 {
            id += 1;
            inst.admit(grid_hit(id, n, &mut rng)).unwrap();
        }
        if step == 40 {
            inst.set_task_path(&[ChunkIndex(60), ChunkIndex(61)])
                .unwrap();
        }
        if step % 3 == 0 {
            rec.commit(&mut inst, &mut backend).unwrap();
        }
        if step % 30 == 29 {
            // Recycle whatever render-only debris exists (no sleep needed).
            let victim = inst
                .clusters()
                .find(|(_, c)| c.representation == Representation::RenderOnlyDebris)
                .map(|(h, _)| h);
            if let Some(h) = victim {
                let ticket = inst.begin_recycle(h).unwrap();
                rec.finish_recycle(&mut inst, ticket).unwrap();
            }
        }
    }
    (inst, rec.finish())
}

#[test]
fn replaying_a_recorded_log_reproduces_every_commit_hash_bit_for_bit() {
    let (live, log) = record_run();
    let commits = log
        .entries
        .iter()
        .filter(|e| matches!(e, ReplayEntry::Commit { .. }))
        .count();
    let recycles = log.entries.len() - commits;
    assert!(commits > 30, "{commits} commits");
    assert!(recycles > 0, "the log has recycle commits");
    assert!(
        live.broken_count() > 20,
        "the run broke {} bonds",
        live.broken_count()
    );
    assert!(
        live.clusters()
            .any(|(_, c)| c.representation == Representation::RenderOnlyDebris)
            || recycles > 0
    );
    let bytes = log.to_bytes();
    let decoded = ReplayLog::from_bytes(&bytes).unwrap();
    assert_eq!(decoded, log);
    let report = replay(live.asset().clone(), &decoded).unwrap();
    assert_eq!(report.commits, log.entries.len() as u64);
    assert_eq!(report.final_hash, live.state_hash());
    // Twice, to be sure nothing depends on process state.
    assert_eq!(replay(live.asset().clone(), &decoded).unwrap(), report);
}

#[test]
fn a_tampered_log_diverges_at_the_tampered_commit() {
    let (live, mut log) = record_run();
    let target = log.entries.iter_mut().find_map(|e| match e {
        ReplayEntry::Commit {
            commit_seq, events, ..
        } if *commit_seq >= 10 && events.iter().any(|p| !p.candidates.is_empty()) => {
            Some((commit_seq, events))
        }
        _ => None,
    });
    let Some((seq, events)) = target else {
        panic!("no damaging commit after 10");
    };
    let seq = *seq;
    let p = events
        .iter_mut()
        .find(|p| !p.candidates.is_empty())
        .unwrap();
    let DamageModel::Radial { damage, .. } = &mut p.event.model else {
        panic!("the recorded run admits radial events");
    };
    *damage = damage.next_up();
    match replay(live.asset().clone(), &log) {
        Err(ReplayError::HashMismatch { commit_seq, .. }) => assert_eq!(commit_seq, seq),
        other => panic!("expected a hash mismatch at {seq}, got {other:?}"),
    }
}

#[test]
fn a_log_for_another_asset_or_a_damaged_log_is_refused() {
    let (live, log) = record_run();
    assert!(matches!(
        replay(grid(4), &log),
        Err(ReplayError::AssetMismatch { .. })
    ));
    let bytes = log.to_bytes();
    assert!(ReplayLog::from_bytes(&bytes[..bytes.len() / 3]).is_err());
    let mut flipped = bytes.clone();
    let k = bytes.len() - 10;
    flipped[k] ^= 4;
    assert!(ReplayLog::from_bytes(&flipped).is_err());
    assert!(matches!(
        ReplayRecorder::new(&live),
        Err(ReplayError::NotInitial(_))
    ));
    let _ = Vec3::ZERO;
}
