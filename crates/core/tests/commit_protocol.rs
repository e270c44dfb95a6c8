//! DESIGN §3.7 commit protocol: candidate planning leaves the published
//! version alone; the safe point re-checks the base version and rebuilds
//! poses and velocities from the old cluster's current motion; failures at
//! prepare or commit change nothing and keep the event for a retry that
//! applies it exactly once.

#![allow(clippy::unwrap_used, clippy::let_unit_value)]

mod common;

use common::*;
use smithereens_core::glam::{Quat, Vec3};
use smithereens_core::*;
use std::sync::Arc;

/// Wraps the headless backend, counting calls and checking that the
/// instance still shows the old version while the backend swaps.
#[derive(Default)]
struct Watching {
    inner: HeadlessBackend,
    prepares: u32,
    commits: u32,
}

impl CommitBackend for Watching {
    type Prepared = ();
    type Error = <HeadlessBackend as CommitBackend>::Error;

    fn prepare(&mut self, asset: &Asset, plan: &CommitPlan) -> Result<(), Self::Error> {
        self.prepares += 1;
        self.inner.prepare(asset, plan)
    }

    fn commit(
        &mut self,
        prepared: (),
        plan: &CommitPlan,
        instance: &Instance,
        motions: &mut Vec<ClusterMotion>,
    ) -> Result<(), Self::Error> {
        self.commits += 1;
        // Queries still read the published version during the swap.
        assert_eq!(instance.topology_version(), plan.base_version);
        assert_eq!(instance.commit_seq() + 1, plan.commit_seq);
        for &(b, _) in &plan.health_changes {
            assert_eq!(
                instance.bond_health(b),
                instance
                    .asset()
                    .bond(b)
                    .map(|_| instance.health()[b.0 as usize])
            );
        }
        self.inner.commit(prepared, plan, instance, motions)
    }
}

#[test]
fn planning_works_on_a_candidate_and_queries_read_the_old_version_until_commit() {
    let mut inst = Instance::new(three_chunks(), Pose::IDENTITY).unwrap();
    inst.admit(hit(1)).unwrap();
    inst.admit(hit(2)).unwrap();
    let before = inst.state_hash();
    let mut backend = Watching::default();
    let plan = inst.plan::<()>().unwrap();
    assert_eq!(
        plan.health_changes,
        vec![(BondIndex(0), 2.0), (BondIndex(1), 0.0)]
    );
    assert_eq!(plan.new_cluster_count(), 2);
    assert_eq!(inst.state_hash(), before, "planning changes nothing");
    assert_eq!(inst.health(), &[10.0, 4.0]);
    assert_eq!(inst.cluster_count(), 1);
    let prepared = backend.prepare(inst.asset(), &plan).unwrap();
    assert_eq!(inst.state_hash(), before, "preparing changes nothing");
    let out = inst.commit_prepared(&mut backend, plan, prepared).unwrap();
    assert_eq!(out.status, CommitStatus::Committed);
    assert_eq!(inst.health(), &[2.0, 0.0]);
    assert_eq!(inst.cluster_count(), 2);
    assert_eq!(backend.commits, 1);
}

#[test]
fn the_safe_point_rebuilds_poses_and_velocities_from_the_old_clusters_current_motion() {
    // A free-floating chain 0–1–2 (no support): one dynamic cluster, centre x = 1.
    let asset = Arc::new(fixtures::chain(3, &[(0, 1), (1, 2)], &[]).unwrap());
    let mut inst = Instance::new(asset, Pose::IDENTITY).unwrap();
    let h = inst.clusters().next().map(|(h, _)| h).unwrap();
    inst.admit(RadialDamage {
        id: EventId(1),
        point: Vec3::new(1.5, 0.0, 0.0),
        radius: 0.4,
        damage: 20.0,
        impulse: None,
    })
    .unwrap();
    let mut backend = HeadlessBackend::default();
    let plan = inst.plan::<()>().unwrap();
    let prepared = backend.prepare(inst.asset(), &plan).unwrap();
    // While the bodies were being prepared the old cluster kept moving: it
    // turned 90° about Z, travelled to x = 10 and spins at 1 rad/s about Z.
    let moved = ClusterMotion {
        pose: Pose {
            rotation: Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
            translation: Vec3::new(10.0, 0.0, 0.0),
        },
        velocity: Velocity {
            linear: Vec3::ZERO,
            angular: Vec3::new(0.0, 0.0, 1.0),
        },
    };
    inst.set_motion::<()>(h, moved).unwrap();
    inst.commit_prepared(&mut backend, plan, prepared).unwrap();
    let piece = inst
        .cluster(inst.cluster_of(ChunkIndex(2)).unwrap())
        .unwrap();
    // Chunk 2 sits 1 m from the old centre along asset +X, now world +Y.
    let c = piece.motion.pose.translation;
    assert!((c - Vec3::new(10.0, 1.0, 0.0)).length() < 1e-5, "{c:?}");
    assert!(piece.motion.pose.rotation.dot(moved.pose.rotation).abs() > 1.0 - 1e-6);
    // v = v₀ + ω × (c − c₀) = (0,0,1) × (0,1,0) = (−1,0,0); ω inherited.
    let v = piece.motion.velocity;
    assert!(
        (v.linear - Vec3::new(-1.0, 0.0, 0.0)).length() < 1e-5,
        "{v:?}"
    );
    assert_eq!(v.angular, moved.velocity.angular);
}

#[test]
fn a_stale_plan_is_refused_at_the_safe_point_before_the_backend_swaps() {
    let mut inst = Instance::new(three_chunks(), Pose::IDENTITY).unwrap();
    let mut backend = Watching::default();
    // A plan made, then another commit (no break) lands first: same topology,
    // newer commit sequence, so the plan's absolute healths are out of date.
    inst.admit(hit(1)).unwrap();
    let stale = inst.plan::<()>().unwrap();
    inst.commit(&mut HeadlessBackend::default()).unwrap();
    let before = inst.state_hash();
    assert_eq!(
        inst.commit_prepared(&mut backend, stale, ()),
        Err(CommitError::StalePlan {
            expected: 1,
            found: 2
        })
    );
    // A plan made before a commit that broke a bond: stale topology.
    inst.admit(hit(2)).unwrap();
    let stale = inst.plan::<()>().unwrap();
    inst.commit(&mut HeadlessBackend::default()).unwrap();
    assert_eq!(inst.topology_version(), 1);
    let before_second = inst.state_hash();
    assert_eq!(
        inst.commit_prepared(&mut backend, stale, ()),
        Err(CommitError::StaleTopology {
            expected: 0,
            found: 1
        })
    );
    assert_eq!(backend.commits, 0, "the backend never swapped a stale plan");
    assert_eq!(inst.state_hash(), before_second);
    assert_ne!(before, before_second);
}

#[test]
fn damage_arriving_during_preparation_waits_for_the_next_batch() {
    let mut inst = Instance::new(three_chunks(), Pose::IDENTITY).unwrap();
    let mut backend = HeadlessBackend::default();
    inst.admit(hit(1)).unwrap();
    let plan = inst.plan::<()>().unwrap();
    let prepared = backend.prepare(inst.asset(), &plan).unwrap();
    inst.admit(hit(2)).unwrap();
    let out = inst.commit_prepared(&mut backend, plan, prepared).unwrap();
    assert_eq!(out.receipts.len(), 1);
    assert_eq!(inst.health(), &[6.0, 2.0]);
    assert_eq!(inst.pending().len(), 1);
    assert_eq!(inst.pending()[0].event.id, EventId(2));
    let out = inst.commit(&mut backend).unwrap();
    assert_eq!(out.receipts[0].event.id, EventId(2));
    assert_eq!(inst.health(), &[2.0, 0.0]);
}

#[test]
fn failure_at_prepare_or_commit_keeps_the_old_state_and_the_pending_event_and_the_retry_applies_once()
 {
    let mut inst = Instance::new(three_chunks(), Pose::IDENTITY).unwrap();
    inst.admit(hit(1)).unwrap();
    inst.commit(&mut HeadlessBackend::default()).unwrap();
    inst.admit(hit(2)).unwrap();
    let pending = inst.pending().to_vec();
    let before = inst.state_hash();
    let mut backend = HeadlessBackend {
        fail_prepare: 1,
        fail_commit: 1,
        commits: 0,
    };
    assert!(matches!(
        inst.commit(&mut backend),
        Err(CommitError::Prepare(_))
    ));
    assert_eq!(inst.state_hash(), before, "old representation intact");
    assert_eq!(
        inst.pending(),
        &pending[..],
        "same id, parameters, frozen distances"
    );
    assert!(inst.receipt(EventId(2)).is_none(), "nothing published");
    assert!(matches!(
        inst.commit(&mut backend),
        Err(CommitError::Commit(_))
    ));
    assert_eq!(inst.state_hash(), before);
    assert_eq!(inst.pending(), &pending[..]);
    assert!(inst.receipt(EventId(2)).is_none());
    // Re-admitting while pending does not queue a second copy.
    assert!(matches!(
        inst.admit(hit(2)).unwrap(),
        Admission::Pending {
            admission_seq: 1,
            ..
        }
    ));
    assert_eq!(inst.pending().len(), 1);
    let out = inst.commit(&mut backend).unwrap();
    assert_eq!(out.status, CommitStatus::Committed);
    assert_eq!(inst.health(), &[2.0, 0.0], "applied once: no double damage");
    assert_eq!(backend.commits, 1);
    assert_eq!(out.record.as_ref().map(|r| r.commit_seq), Some(2));
}

#[test]
fn a_commit_with_nothing_pending_is_idle() {
    let mut inst = Instance::new(three_chunks(), Pose::IDENTITY).unwrap();
    let out = inst.commit(&mut HeadlessBackend::default()).unwrap();
    assert_eq!(out.status, CommitStatus::Idle);
    assert_eq!(out.record, None);
    assert_eq!(inst.commit_seq(), 0);
}

#[test]
fn a_commit_over_the_frames_body_allowance_waits_whole_and_changes_nothing() {
    let mut inst = Instance::new(three_chunks(), Pose::IDENTITY).unwrap();
    inst.admit(hit(1)).unwrap();
    inst.admit(hit(2)).unwrap();
    // Chunk 2 breaks off: one new body (the remainder keeps its handle).
    assert_eq!(inst.plan::<()>().unwrap().new_body_count(), 1);
    let before = inst.state_hash();
    let mut backend = Watching::default();
    let spent = BodyAllowance {
        remaining: 0,
        per_frame: 4,
    };
    let out = inst.commit_within(&mut backend, spent).unwrap();
    assert_eq!(
        out.status,
        CommitStatus::Throttled {
            bodies: 1,
            remaining: 0
        }
    );
    assert!(out.created.is_empty() && out.receipts.is_empty());
    assert_eq!(inst.state_hash(), before, "nothing changed");
    assert_eq!(inst.pending().len(), 2, "both events wait");
    assert_eq!((backend.prepares, backend.commits), (0, 0));
    // A later frame with room commits both events at once.
    let room = BodyAllowance {
        remaining: 1,
        per_frame: 4,
    };
    let out = inst.commit_within(&mut backend, room).unwrap();
    assert_eq!(out.status, CommitStatus::Committed);
    assert_eq!(out.created.len(), 1);
    assert_eq!(inst.health(), &[2.0, 0.0]);
    assert!(inst.pending().is_empty());
}
