//! Instance-level behaviour: the worked numbers of DESIGN §3.3–3.6 through
//! admission → plan → commit, idempotency, failure and bad input.

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use smithereens_core::commit::HeadlessBackend;
use smithereens_core::fixtures::cube_chunk;
use smithereens_core::glam::{Quat, Vec3};
use smithereens_core::*;
use std::sync::Arc;

mod common;

/// The §3.3 chain from `common` (chunks at x = 0, 1, 2; bonds 10 and 4 du at
/// distances 0 and 1 from the origin; chunk 0 supports), optionally with an
/// extra 0–2 bond of 5 du far from the impact.
fn three_chunks(extra_bond_0_2: bool) -> Arc<Asset> {
    let mut desc = common::three_chunks_desc();
    if !extra_bond_0_2 {
        return Arc::new(Asset::new(&desc).unwrap());
    }
    desc.bonds.push(BondDesc {
        chunk0: 0,
        chunk1: BondEnd::Chunk(2),
        centroid: Vec3::new(0.0, 5.0, 0.0),
        normal: Vec3::X,
        area: 1.0,
        strength: 5.0,
    });
    Arc::new(Asset::new(&desc).unwrap())
}

use common::hit;

#[test]
fn two_identical_hits_leave_6_and_2_then_2_and_0_and_drop_only_chunk_two() {
    let mut inst = Instance::new(three_chunks(false), Pose::IDENTITY).unwrap();
    let mut backend = HeadlessBackend::default();
    inst.admit(hit(1)).unwrap();
    let out = inst.commit(&mut backend).unwrap();
    assert_eq!(inst.health(), &[6.0, 2.0]);
    assert!(out.broken.is_empty());
    assert_eq!(inst.cluster_count(), 1);
    assert_eq!(
        inst.topology_version(),
        0,
        "a commit without a break changes no topology"
    );
    assert_eq!(inst.commit_seq(), 1, "but it advances the commit sequence");

    inst.admit(hit(2)).unwrap();
    let out = inst.commit(&mut backend).unwrap();
    assert_eq!(inst.health(), &[2.0, 0.0]);
    assert_eq!(out.broken, vec![BondIndex(1)]);
    assert_eq!(out.receipts[0].broken, vec![BondIndex(1)]);
    assert_eq!(inst.topology_version(), 1);
    let clusters: Vec<(Vec<ChunkIndex>, bool)> = inst
        .clusters()
        .map(|(_, c)| (c.nodes.to_vec(), c.supported))
        .collect();
    assert_eq!(
        clusters,
        vec![
            (vec![ChunkIndex(0), ChunkIndex(1)], true),
            (vec![ChunkIndex(2)], false)
        ]
    );
}

#[test]
fn with_an_extra_bond_zero_two_the_same_hits_drop_nothing() {
    let mut inst = Instance::new(three_chunks(true), Pose::IDENTITY).unwrap();
    let mut backend = HeadlessBackend::default();
    for id in [1, 2] {
        inst.admit(hit(id)).unwrap();
        inst.commit(&mut backend).unwrap();
    }
    assert!(inst.is_broken(BondIndex(1)));
    assert_eq!(inst.cluster_count(), 1);
    assert!(inst.clusters().all(|(_, c)| c.supported));
}

#[test]
fn a_batch_of_two_events_in_one_commit_gives_the_same_result_as_two_commits() {
    let mut inst = Instance::new(three_chunks(false), Pose::IDENTITY).unwrap();
    inst.admit(hit(1)).unwrap();
    inst.admit(hit(2)).unwrap();
    let out = inst.commit(&mut HeadlessBackend::default()).unwrap();
    assert_eq!(inst.health(), &[2.0, 0.0]);
    assert_eq!(out.receipts.len(), 2);
    assert!(out.receipts[0].broken.is_empty());
    assert_eq!(out.receipts[1].broken, vec![BondIndex(1)]);
}

#[test]
fn repeated_event_id_is_not_applied_twice_and_conflicting_parameters_are_rejected() {
    let mut inst = Instance::new(three_chunks(false), Pose::IDENTITY).unwrap();
    let mut backend = HeadlessBackend::default();
    let first = inst.admit(hit(7)).unwrap();
    assert_eq!(
        inst.admit(hit(7)).unwrap(),
        first,
        "same id + same parameters while pending: same answer"
    );
    assert_eq!(inst.pending().len(), 1);
    inst.commit(&mut backend).unwrap();
    let receipt = match inst.admit(hit(7)).unwrap() {
        Admission::Applied(r) => r,
        other => panic!("expected the original receipt, got {other:?}"),
    };
    assert_eq!(receipt.commit_seq, 1);
    assert!(inst.pending().is_empty());
    inst.commit(&mut backend).unwrap();
    assert_eq!(
        inst.health(),
        &[6.0, 2.0],
        "a retransmitted event must not damage again"
    );
    let conflicting = RadialDamage {
        damage: 5.0,
        ..hit(7)
    };
    assert_eq!(
        inst.admit(conflicting),
        Err(DamageError::ConflictingEvent(7))
    );
}

#[test]
fn failed_prepare_or_commit_changes_nothing_and_the_retry_applies_once() {
    let mut inst = Instance::new(three_chunks(false), Pose::IDENTITY).unwrap();
    inst.admit(hit(1)).unwrap();
    inst.commit(&mut HeadlessBackend::default()).unwrap();
    inst.admit(hit(2)).unwrap();
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
    assert_eq!(inst.state_hash(), before);
    assert!(matches!(
        inst.commit(&mut backend),
        Err(CommitError::Commit(_))
    ));
    assert_eq!(inst.state_hash(), before);
    assert_eq!(
        inst.pending().len(),
        1,
        "the event stays pending with its id"
    );
    assert_eq!(inst.pending()[0].event.id, EventId(2));
    inst.commit(&mut backend).unwrap();
    assert_eq!(inst.health(), &[2.0, 0.0]);
    assert_eq!(backend.commits, 1);
}

#[test]
fn admission_freezes_distances_so_a_cluster_moving_later_does_not_retarget_the_hit() {
    let mut inst = Instance::new(three_chunks(false), Pose::IDENTITY).unwrap();
    inst.admit(hit(1)).unwrap();
    let frozen = inst.pending()[0].candidates.clone();
    // The whole asset moves 10 m away before the commit.
    let (h, c) = inst.clusters().next().map(|(h, c)| (h, c.motion)).unwrap();
    let moved = ClusterMotion {
        pose: Pose {
            translation: c.pose.translation + Vec3::new(10.0, 0.0, 0.0),
            ..c.pose
        },
        ..c
    };
    inst.set_motion::<()>(h, moved).unwrap();
    assert_eq!(inst.pending()[0].candidates, frozen);
    inst.commit(&mut HeadlessBackend::default()).unwrap();
    assert_eq!(inst.health(), &[6.0, 2.0]);
}

#[test]
fn distances_are_measured_in_each_clusters_current_world_frame() {
    // Rotate the placement 90° about Z: bond 1–2's centroid (1,0,0) is now at (0,1,0).
    let placement = Pose {
        rotation: Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
        translation: Vec3::ZERO,
    };
    let mut inst = Instance::new(three_chunks(false), placement).unwrap();
    inst.admit(RadialDamage {
        point: Vec3::new(0.0, 1.0, 0.0),
        radius: 0.5,
        ..hit(1)
    })
    .unwrap();
    let c = &inst.pending()[0].candidates;
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].bond, BondIndex(1));
    assert!(c[0].distance < 1e-6);
}

#[test]
fn split_inherits_the_rigid_velocity_field_and_the_impulse_enters_once() {
    let mut inst = Instance::new(three_chunks(false), Pose::IDENTITY).unwrap();
    // Make the whole asset a spinning dynamic body by breaking nothing yet: set motion directly.
    let (h, m) = inst.clusters().next().map(|(h, c)| (h, c.motion)).unwrap();
    let c0 = m.pose.translation; // centre of mass x = 1
    assert!((c0 - Vec3::new(1.0, 0.0, 0.0)).length() < 1e-6);
    let spin = Velocity {
        linear: Vec3::new(0.0, 1.0, 0.0),
        angular: Vec3::new(0.0, 0.0, 2.0),
    };
    inst.set_motion::<()>(
        h,
        ClusterMotion {
            pose: m.pose,
            velocity: spin,
        },
    )
    .unwrap();
    for id in [1, 2] {
        inst.admit(hit(id)).unwrap();
    }
    inst.commit(&mut HeadlessBackend::default()).unwrap();
    let dynamic = inst
        .clusters()
        .map(|(_, c)| c)
        .find(|c| !c.supported)
        .unwrap();
    // Chunk 2 at x = 2 is 1 m from c₀: v_y = 1 + 2 × 1 = 3.
    assert!((dynamic.motion.velocity.linear - Vec3::new(0.0, 3.0, 0.0)).length() < 1e-6);
    assert_eq!(dynamic.motion.velocity.angular, spin.angular);

    // An explosion impulse on chunk 2: Δv = J / M exactly once.
    let boom = RadialDamage {
        id: EventId(3),
        point: Vec3::new(2.0, 0.0, 0.0),
        radius: 0.1,
        damage: 0.0,
        impulse: Some(Vec3::new(0.0, 0.0, 5.0)),
    };
    inst.admit(boom).unwrap();
    inst.commit(&mut HeadlessBackend::default()).unwrap();
    inst.admit(boom).unwrap();
    inst.commit(&mut HeadlessBackend::default()).unwrap();
    let dynamic = inst
        .clusters()
        .map(|(_, c)| c)
        .find(|c| !c.supported)
        .unwrap();
    assert!(
        (dynamic.motion.velocity.linear.z - 5.0).abs() < 1e-6,
        "{:?}",
        dynamic.motion.velocity
    );
}

#[test]
fn bad_damage_input_is_rejected_and_changes_nothing() {
    let mut inst = Instance::new(three_chunks(false), Pose::IDENTITY).unwrap();
    let before = inst.state_hash();
    assert_eq!(
        inst.admit(RadialDamage {
            radius: -1.0,
            ..hit(1)
        }),
        Err(DamageError::BadRadius(-1.0))
    );
    assert!(matches!(
        inst.admit(RadialDamage {
            point: Vec3::new(f32::NAN, 0.0, 0.0),
            ..hit(1)
        }),
        Err(DamageError::NonFinitePoint(_))
    ));
    assert!(matches!(
        inst.admit(RadialDamage {
            damage: -2.0,
            ..hit(1)
        }),
        Err(DamageError::BadDamage(_))
    ));
    assert!(inst.pending().is_empty());
    assert_eq!(inst.state_hash(), before);
    // The rejected ids are not consumed: a valid event with id 1 is admitted.
    assert!(inst.admit(hit(1)).is_ok());
}

#[test]
fn bad_asset_input_gets_typed_errors() {
    let chunk = || cube_chunk(Vec3::ZERO, 1.0, 1.0, false);
    let bond = |c1: u32| BondDesc {
        chunk0: 0,
        chunk1: BondEnd::Chunk(c1),
        centroid: Vec3::ZERO,
        normal: Vec3::X,
        area: 1.0,
        strength: 1.0,
    };
    let mut nan = AssetDesc {
        chunks: vec![chunk(), chunk()],
        bonds: vec![bond(1)],
        support_depth: None,
    };
    nan.chunks[1].centroid.x = f32::NAN;
    assert_eq!(
        Asset::new(&nan),
        Err(AssetError::NonFiniteCentroid(ChunkIndex(1)))
    );
    let missing = AssetDesc {
        chunks: vec![chunk(), chunk()],
        bonds: vec![bond(5)],
        support_depth: None,
    };
    assert_eq!(
        Asset::new(&missing),
        Err(AssetError::BondChunkOutOfRange {
            bond: BondIndex(0),
            chunk: 5,
            chunk_count: 2
        })
    );
    let mut neg = AssetDesc {
        chunks: vec![chunk(), chunk()],
        bonds: vec![bond(1)],
        support_depth: None,
    };
    neg.chunks[0].mass = -1.0;
    assert!(matches!(Asset::new(&neg), Err(AssetError::BadMass { .. })));
    let mut weak = AssetDesc {
        chunks: vec![chunk(), chunk()],
        bonds: vec![bond(1)],
        support_depth: None,
    };
    weak.bonds[0].strength = 0.0;
    assert!(matches!(
        Asset::new(&weak),
        Err(AssetError::BadBondStrength { .. })
    ));
    let mut flat = AssetDesc {
        chunks: vec![chunk()],
        bonds: vec![],
        support_depth: None,
    };
    flat.chunks[0].inertia.x_axis.x = 0.0;
    flat.chunks[0].inertia.y_axis.y = 0.0;
    assert!(matches!(
        Asset::new(&flat),
        Err(AssetError::BadInertia { .. })
    ));
    assert_eq!(Asset::new(&AssetDesc::default()), Err(AssetError::NoChunks));
}

#[test]
fn world_bond_supports_its_component_until_it_breaks() {
    let desc = AssetDesc {
        chunks: vec![
            cube_chunk(Vec3::ZERO, 1.0, 1.0, false),
            cube_chunk(Vec3::X, 1.0, 1.0, false),
        ],
        bonds: vec![
            BondDesc {
                chunk0: 0,
                chunk1: BondEnd::Chunk(1),
                centroid: Vec3::new(0.5, 0.0, 0.0),
                normal: Vec3::X,
                area: 1.0,
                strength: 100.0,
            },
            BondDesc {
                chunk0: 0,
                chunk1: BondEnd::World,
                centroid: Vec3::new(0.0, -0.5, 0.0),
                normal: Vec3::NEG_Y,
                area: 1.0,
                strength: 1.0,
            },
        ],
        support_depth: None,
    };
    let mut inst = Instance::new(Arc::new(Asset::new(&desc).unwrap()), Pose::IDENTITY).unwrap();
    assert!(inst.clusters().all(|(_, c)| c.supported));
    inst.admit(RadialDamage {
        id: EventId(1),
        point: Vec3::new(0.0, -0.5, 0.0),
        radius: 0.2,
        damage: 5.0,
        impulse: None,
    })
    .unwrap();
    let out = inst.commit(&mut HeadlessBackend::default()).unwrap();
    assert_eq!(out.broken, vec![BondIndex(1)]);
    let clusters: Vec<_> = inst
        .clusters()
        .map(|(_, c)| (c.nodes.len(), c.supported))
        .collect();
    assert_eq!(clusters, vec![(2, false)]);
}

#[test]
fn asset_file_round_trips_and_rejects_corruption() {
    let desc = smithereens_core::fixtures::grid_desc(2, 2, 1, 0.5, 2000.0, 100.0);
    let file = AssetFile {
        name: "grid".into(),
        provenance: "test".into(),
        meshes: vec![ChunkMesh::default(); desc.chunks.len()],
        desc,
    };
    let bytes = file.to_bytes();
    assert_eq!(AssetFile::from_bytes(&bytes).unwrap(), file);
    assert_eq!(file.to_bytes(), bytes, "encoding is deterministic");
    let mut flipped = bytes.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x40;
    assert_eq!(
        AssetFile::from_bytes(&flipped),
        Err(AssetFileError::Checksum)
    );
    assert!(matches!(
        AssetFile::from_bytes(&bytes[..bytes.len() / 2]),
        Err(AssetFileError::Truncated { .. })
    ));
    assert_eq!(
        AssetFile::from_bytes(b"not an asset file at all....."),
        Err(AssetFileError::BadMagic)
    );
    let mut future = bytes.clone();
    future[8] = 99;
    assert!(matches!(
        AssetFile::from_bytes(&future),
        Err(AssetFileError::UnsupportedVersion { found: 99, .. })
    ));
}
