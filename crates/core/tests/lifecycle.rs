//! Debris lifecycle (DESIGN §3.9): sleep after a time below a velocity
//! threshold, recycle only after leaving authoritative queries, pooled slots
//! with generations refuse stale work.

#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use smithereens_core::glam::Vec3;
use smithereens_core::*;

/// Base + two hanging single chunks with separate hangers; both fall.
fn two_debris(slots: u32) -> (Instance, ClusterHandle, ClusterHandle) {
    let asset = hanging_groups(&[1, 1], &[false, false], true);
    let mut inst = Instance::with_desc(
        asset,
        InstanceDesc {
            budget: BudgetDesc {
                body_slots: slots,
                ..BudgetDesc::default()
            },
            lifecycle: LifecycleDesc {
                sleep_linear_speed: 0.1,
                sleep_angular_speed: 0.1,
                sleep_time: 0.5,
            },
            ..InstanceDesc::default()
        },
    )
    .unwrap();
    for (id, z) in [(1, 100.0), (2, 120.0)] {
        inst.admit(hanger_hit(id, HANGER_POINT + Vec3::new(0.0, 0.0, z)))
            .unwrap();
    }
    inst.commit(&mut HeadlessBackend::default()).unwrap();
    let d: Vec<ClusterHandle> = inst
        .clusters()
        .filter(|(_, c)| !c.supported)
        .map(|(h, _)| h)
        .collect();
    (inst, d[0], d[1])
}

fn moving(inst: &Instance, h: ClusterHandle, speed: f32) -> ClusterMotion {
    let mut m = inst.cluster(h).unwrap().motion;
    m.velocity.linear = Vec3::new(speed, 0.0, 0.0);
    m
}

#[test]
fn a_cluster_sleeps_only_after_staying_below_the_threshold_for_the_sleep_time() {
    let (mut inst, a, b) = two_debris(8);
    inst.set_motion::<()>(a, moving(&inst, a, 0.05)).unwrap();
    inst.set_motion::<()>(b, moving(&inst, b, 3.0)).unwrap();
    assert_eq!(inst.advance_sleep(0.25).unwrap(), vec![]);
    assert_eq!(
        inst.cluster(a).unwrap().sleep,
        SleepState::Awake { still_for: 0.25 }
    );
    assert_eq!(
        inst.advance_sleep(0.25).unwrap(),
        vec![a],
        "0.5 s still → asleep"
    );
    assert_eq!(inst.cluster(a).unwrap().sleep, SleepState::Asleep);
    assert_eq!(
        inst.cluster(b).unwrap().sleep,
        SleepState::Awake { still_for: 0.0 }
    );
    // A push above the threshold wakes it and restarts the timer.
    inst.set_motion::<()>(a, moving(&inst, a, 1.0)).unwrap();
    assert_eq!(
        inst.cluster(a).unwrap().sleep,
        SleepState::Awake { still_for: 0.0 }
    );
    assert_eq!(
        inst.advance_sleep(-1.0),
        Err(LifecycleError::BadThreshold(-1.0))
    );
}

#[test]
fn recycling_needs_sleep_then_a_query_refresh_and_frees_the_slot_with_a_new_generation() {
    let (mut inst, a, b) = two_debris(2);
    let slot_a = inst.cluster(a).unwrap().slot.unwrap();
    assert_eq!(inst.check_slot(slot_a), Ok(a));
    // Awake bodies with collision are not recycled.
    assert_eq!(inst.begin_recycle(a), Err(LifecycleError::Awake(a)));
    inst.advance_sleep(1.0).unwrap();
    let ticket = inst.begin_recycle(a).unwrap();
    assert!(
        !inst.is_queryable(a),
        "withdrawn from authoritative queries"
    );
    assert_eq!(
        inst.begin_recycle(a),
        Err(LifecycleError::AlreadyWithdrawn(a))
    );
    // Still possibly visible to queries until the backend refreshes them.
    let before = inst.state_hash();
    assert_eq!(
        inst.finish_recycle(ticket),
        Err(LifecycleError::StillInQueries(a))
    );
    assert_eq!(
        inst.state_hash(),
        before,
        "a refused recycle changes nothing"
    );
    // Withdrawn clusters are not measured by admission.
    let near_a = inst.cluster(a).unwrap().motion.pose.translation;
    inst.admit(RadialDamage {
        id: EventId(50),
        point: near_a,
        radius: 0.5,
        damage: 1.0,
        impulse: Some(Vec3::Y),
    })
    .unwrap();
    assert!(inst.pending()[0].candidates.is_empty());
    assert_ne!(inst.pending()[0].impulse_chunk, Some(ChunkIndex(1)));

    inst.mark_queries_refreshed();
    let seq = inst.commit_seq();
    let version = inst.topology_version();
    let record = inst.finish_recycle(ticket).unwrap();
    assert_eq!(record.commit_seq, seq + 1, "a recycle is a commit");
    assert_eq!(inst.topology_version(), version + 1);
    assert!(inst.cluster(a).is_none());
    assert_eq!(
        inst.cluster_of(ChunkIndex(1)),
        None,
        "its chunks left the simulation"
    );
    assert_eq!(inst.slots_in_use(), 1);
    // The slot generation moved on: work stamped with the old one is refused.
    assert_eq!(
        inst.check_slot(slot_a),
        Err(LifecycleError::StaleSlot(slot_a))
    );
    assert!(matches!(
        inst.finish_recycle(ticket),
        Err(LifecycleError::StaleCluster(_) | LifecycleError::StaleSlot(_))
    ));
    assert_eq!(
        inst.set_motion::<()>(a, ClusterMotion::default()),
        Err(CommitError::StaleCluster(a))
    );
    assert!(inst.cluster(b).is_some());
    // Supported clusters are never recycled.
    let base = inst.cluster_of(ChunkIndex(0)).unwrap();
    assert_eq!(
        inst.begin_recycle(base),
        Err(LifecycleError::Supported(base))
    );
}

#[test]
fn a_reused_slot_carries_a_new_generation_and_old_tickets_are_refused() {
    // One slot: the first debris takes it; recycle it; the next debris reuses index 0.
    let asset = hanging_groups(&[1, 1], &[false, false], true);
    let mut inst = Instance::with_desc(
        asset,
        InstanceDesc {
            budget: BudgetDesc {
                body_slots: 1,
                ..BudgetDesc::default()
            },
            ..InstanceDesc::default()
        },
    )
    .unwrap();
    let mut backend = HeadlessBackend::default();
    inst.admit(hanger_hit(1, HANGER_POINT + Vec3::new(0.0, 0.0, 100.0)))
        .unwrap();
    inst.commit(&mut backend).unwrap();
    let first = inst.cluster_of(ChunkIndex(1)).unwrap();
    let old_slot = inst.cluster(first).unwrap().slot.unwrap();
    assert_eq!(
        old_slot,
        BodySlot {
            index: 0,
            generation: 0
        }
    );
    inst.advance_sleep(5.0).unwrap();
    let ticket = inst.begin_recycle(first).unwrap();
    inst.mark_queries_refreshed();
    inst.finish_recycle(ticket).unwrap();
    inst.admit(hanger_hit(2, HANGER_POINT + Vec3::new(0.0, 0.0, 120.0)))
        .unwrap();
    inst.commit(&mut backend).unwrap();
    let second = inst.cluster_of(ChunkIndex(2)).unwrap();
    let new_slot = inst.cluster(second).unwrap().slot.unwrap();
    assert_eq!(
        new_slot,
        BodySlot {
            index: 0,
            generation: 1
        }
    );
    assert_eq!(inst.check_slot(new_slot), Ok(second));
    assert_eq!(
        inst.check_slot(old_slot),
        Err(LifecycleError::StaleSlot(old_slot))
    );
    // The old ticket names the old generation of cluster and slot: refused.
    assert!(inst.finish_recycle(ticket).is_err());
    assert!(inst.cluster(second).is_some());
}

#[test]
fn render_only_debris_can_be_recycled_without_sleeping_or_waiting_for_queries() {
    let (mut inst, a, b) = two_debris(1);
    let render_only = [a, b]
        .into_iter()
        .find(|&h| inst.cluster(h).unwrap().representation == Representation::RenderOnlyDebris)
        .unwrap();
    let ticket = inst.begin_recycle(render_only).unwrap();
    assert_eq!(ticket.slot, None);
    inst.finish_recycle(ticket).unwrap();
    assert!(inst.cluster(render_only).is_none());
}

/// Bond candidates a blast at the chain bonds' centroid (1000, 1000, 0), which
/// every group's chain bonds share, finds on `inst`, by bond.
fn chain_candidates(inst: &mut Instance, id: u64) -> Vec<BondIndex> {
    inst.admit(RadialDamage {
        id: EventId(id),
        point: Vec3::new(1000.0, 1000.0, 0.0),
        radius: 1.0,
        damage: 0.001,
        impulse: None,
    })
    .unwrap();
    let found = inst.pending()[0]
        .candidates
        .iter()
        .map(|c| c.bond)
        .collect();
    inst.withdraw_pending();
    found
}

#[test]
fn bonds_of_a_recycled_cluster_are_never_candidates_for_the_cluster_left() {
    // Two groups of three chained chunks; group 0 falls as one body with
    // its two chain bonds intact, then is recycled. The base with group 1
    // is then the only cluster with bonds, but group 0's intact chain bonds
    // belong to no cluster and must not be measured as the base's.
    let asset = hanging_groups(&[3, 3], &[false, false], true);
    let mut inst = Instance::new(asset.clone(), Pose::IDENTITY).unwrap();
    let all = chain_candidates(&mut inst, 1);
    assert_eq!(all.len(), 4, "both groups' chain bonds: {all:?}");
    inst.admit(hanger_hit(2, HANGER_POINT + Vec3::new(0.0, 0.0, 100.0)))
        .unwrap();
    inst.commit(&mut HeadlessBackend::default()).unwrap();
    let fallen = inst
        .clusters()
        .find(|(_, c)| !c.supported)
        .map(|(h, _)| h)
        .unwrap();
    assert_eq!(inst.cluster(fallen).unwrap().nodes.len(), 3);
    // The fallen group is at its place in the asset frame still, so both
    // clusters see their own chain bonds.
    assert_eq!(chain_candidates(&mut inst, 3), all);
    inst.advance_sleep(1.0).unwrap();
    let ticket = inst.begin_recycle(fallen).unwrap();
    inst.mark_queries_refreshed();
    inst.finish_recycle(ticket).unwrap();
    let left = chain_candidates(&mut inst, 4);
    let owners: Vec<Option<ClusterHandle>> = left
        .iter()
        .map(|&b| inst.cluster_of(asset.bonds()[b].chunk0))
        .collect();
    assert_eq!(left.len(), 2, "group 1's chain bonds only: {left:?}");
    assert!(owners.iter().all(|o| o.is_some()), "{owners:?}");
    // The same after a snapshot round trip.
    let mut restored = Instance::restore(asset.clone(), &inst.snapshot()).unwrap();
    assert_eq!(chain_candidates(&mut restored, 5), left);
}
