//! Issue 16 item 6: the bad-input catalogue. Every public entry point of the
//! core crate is fed inputs it must refuse; each case names the exact typed
//! error and, where the input targets an existing instance or replica, checks
//! that its state hash did not change.

#![allow(clippy::unwrap_used)]

use smithereens_core::fixtures::{chain, cube_chunk, grid_desc};
use smithereens_core::glam::{Mat3, Quat, Vec3};
use smithereens_core::record::{MAX_RUN_FRAMES, RUN_FORMAT, RunError, RunRecord};
use smithereens_core::*;
use std::sync::Arc;

struct Case {
    name: &'static str,
    run: fn() -> bool,
}

/// Three unit cubes along +X, 0 supported, bonds 0-1 and 1-2.
fn asset() -> Arc<Asset> {
    Arc::new(chain(3, &[(0, 1), (1, 2)], &[0]).unwrap())
}

fn instance() -> Instance {
    Instance::new(asset(), Pose::IDENTITY).unwrap()
}

fn one_chunk() -> AssetDesc {
    AssetDesc {
        chunks: vec![cube_chunk(Vec3::ZERO, 1.0, 1.0, true)],
        bonds: vec![],
        support_depth: None,
    }
}

/// Two bonded cubes, the base supported.
fn two_chunks() -> AssetDesc {
    let mut d = one_chunk();
    d.chunks
        .push(cube_chunk(Vec3::new(1.0, 0.0, 0.0), 1.0, 1.0, false));
    d.bonds.push(BondDesc {
        chunk0: 0,
        chunk1: BondEnd::Chunk(1),
        centroid: Vec3::new(0.5, 0.0, 0.0),
        normal: Vec3::X,
        area: 1.0,
        strength: 10.0,
    });
    d
}

fn radial() -> RadialDamage {
    RadialDamage {
        id: EventId(1),
        point: Vec3::new(0.5, 0.0, 0.0),
        radius: 1.0,
        damage: 1.0,
        impulse: None,
    }
}

fn falloff(inner: f32, outer: f32) -> FalloffDamage {
    FalloffDamage {
        id: EventId(1),
        point: Vec3::new(0.5, 0.0, 0.0),
        inner_radius: inner,
        outer_radius: outer,
        damage: 1.0,
        impulse: None,
    }
}

fn spread(chunk: u32, max_rings: u32) -> SpreadDamage {
    SpreadDamage {
        id: EventId(1),
        chunk: ChunkIndex(chunk),
        point: Vec3::new(1.0, 0.0, 0.0),
        damage: 1.0,
        max_rings,
        impulse: None,
    }
}

/// Admits `event` into a fresh instance (with one event already pending) and
/// checks the error and that the state hash did not move.
fn admit_refused(event: impl Into<DamageEvent>, want: fn(&DamageError) -> bool) -> bool {
    let mut inst = instance();
    inst.admit(RadialDamage {
        id: EventId(100),
        ..radial()
    })
    .unwrap();
    let before = inst.state_hash();
    let pending = inst.pending().len();
    let r = inst.admit(event);
    let ok = matches!(&r, Err(e) if want(e));
    if !ok {
        eprintln!("  got {r:?}");
    }
    ok && inst.state_hash() == before && inst.pending().len() == pending
}

fn asset_refused(desc: AssetDesc, want: fn(&AssetError) -> bool) -> bool {
    let r = Asset::new(&desc);
    let ok = matches!(&r, Err(e) if want(e));
    if !ok {
        eprintln!("  got {:?}", r.map(|_| ()));
    }
    ok
}

fn instance_refused(desc: InstanceDesc, want: fn(&InstanceError) -> bool) -> bool {
    let r = Instance::with_desc(asset(), desc);
    let ok = matches!(&r, Err(e) if want(e));
    if !ok {
        eprintln!("  got {:?}", r.map(|_| ()));
    }
    ok
}

fn snapshot_bytes() -> Vec<u8> {
    instance().snapshot().to_bytes()
}

fn record_bytes() -> Vec<u8> {
    let mut inst = instance();
    inst.admit(radial()).unwrap();
    inst.commit(&mut HeadlessBackend::default())
        .unwrap()
        .record
        .unwrap()
        .to_bytes()
}

fn asset_file_bytes() -> Vec<u8> {
    let desc = two_chunks();
    AssetFile {
        name: "two".into(),
        provenance: "test".into(),
        meshes: vec![ChunkMesh::default(); desc.chunks.len()],
        desc,
    }
    .to_bytes()
}

fn replay_bytes() -> Vec<u8> {
    let inst = instance();
    ReplayRecorder::new(&inst).unwrap().finish().to_bytes()
}

/// Flips a byte after the frame header (payload corrupt, checksum stale).
fn corrupt(mut b: Vec<u8>) -> Vec<u8> {
    let last = b.len() - 1;
    b[last] ^= 0x5a;
    b
}

/// Sets the frame's format version (bytes 4..6) to an unknown one.
fn future_version(mut b: Vec<u8>) -> Vec<u8> {
    b[4] = 0xff;
    b[5] = 0xff;
    b
}

fn run_json(edit: fn(&mut serde_json::Value)) -> Vec<u8> {
    let mut v: serde_json::Value =
        serde_json::from_slice(&RunRecord::new("bad", 1.0 / 60.0).to_json()).unwrap();
    edit(&mut v);
    serde_json::to_vec(&v).unwrap()
}

fn replica_refuses(bytes: Vec<u8>, want: fn(&ReplicationError) -> bool) -> bool {
    let mut replica = Replica::new(instance(), 8, 4);
    let before = replica.instance().state_hash();
    let r = replica.receive(&bytes);
    let ok = matches!(&r, Err(e) if want(e));
    if !ok {
        eprintln!("  got {r:?}");
    }
    ok && replica.instance().state_hash() == before && replica.buffered() == 0
}

const CASES: &[Case] = &[
    // --- Asset::new ---------------------------------------------------------
    Case {
        name: "asset: no chunks",
        run: || asset_refused(AssetDesc::default(), |e| matches!(e, AssetError::NoChunks)),
    },
    Case {
        name: "asset: NaN volume",
        run: || {
            let mut d = one_chunk();
            d.chunks[0].volume = f32::NAN;
            asset_refused(d, |e| matches!(e, AssetError::BadVolume { .. }))
        },
    },
    Case {
        name: "asset: negative volume",
        run: || {
            let mut d = one_chunk();
            d.chunks[0].volume = -1.0;
            asset_refused(d, |e| matches!(e, AssetError::BadVolume { .. }))
        },
    },
    Case {
        name: "asset: zero volume",
        run: || {
            let mut d = one_chunk();
            d.chunks[0].volume = 0.0;
            asset_refused(d, |e| matches!(e, AssetError::BadVolume { .. }))
        },
    },
    Case {
        name: "asset: zero mass",
        run: || {
            let mut d = one_chunk();
            d.chunks[0].mass = 0.0;
            asset_refused(d, |e| matches!(e, AssetError::BadMass { .. }))
        },
    },
    Case {
        name: "asset: infinite mass",
        run: || {
            let mut d = one_chunk();
            d.chunks[0].mass = f32::INFINITY;
            asset_refused(d, |e| matches!(e, AssetError::BadMass { .. }))
        },
    },
    Case {
        name: "asset: NaN centroid",
        run: || {
            let mut d = one_chunk();
            d.chunks[0].centroid = Vec3::new(f32::NAN, 0.0, 0.0);
            asset_refused(d, |e| matches!(e, AssetError::NonFiniteCentroid(_)))
        },
    },
    Case {
        name: "asset: NaN inertia",
        run: || {
            let mut d = one_chunk();
            d.chunks[0].inertia = Mat3::from_diagonal(Vec3::new(f32::NAN, 1.0, 1.0));
            asset_refused(d, |e| matches!(e, AssetError::BadInertia { .. }))
        },
    },
    Case {
        name: "asset: negative-definite inertia",
        run: || {
            let mut d = one_chunk();
            d.chunks[0].inertia = Mat3::from_diagonal(Vec3::splat(-1.0));
            asset_refused(d, |e| matches!(e, AssetError::BadInertia { .. }))
        },
    },
    Case {
        name: "asset: infinite hull point",
        run: || {
            let mut d = one_chunk();
            d.chunks[0].hulls[0].points[3].y = f32::INFINITY;
            asset_refused(d, |e| matches!(e, AssetError::NonFiniteHull { .. }))
        },
    },
    Case {
        name: "asset: parent is not an earlier chunk",
        run: || {
            let mut d = two_chunks();
            d.chunks[0].parent = Some(1);
            d.chunks[0].depth = 1;
            asset_refused(d, |e| matches!(e, AssetError::BadParent { .. }))
        },
    },
    Case {
        name: "asset: root with depth 1",
        run: || {
            let mut d = one_chunk();
            d.chunks[0].depth = 1;
            asset_refused(d, |e| matches!(e, AssetError::BadDepth { .. }))
        },
    },
    Case {
        name: "asset: bond to a missing chunk",
        run: || {
            let mut d = two_chunks();
            d.bonds[0].chunk1 = BondEnd::Chunk(7);
            asset_refused(d, |e| matches!(e, AssetError::BondChunkOutOfRange { .. }))
        },
    },
    Case {
        name: "asset: self bond",
        run: || {
            let mut d = two_chunks();
            d.bonds[0].chunk1 = BondEnd::Chunk(0);
            asset_refused(d, |e| matches!(e, AssetError::SelfBond { .. }))
        },
    },
    Case {
        name: "asset: duplicate bond",
        run: || {
            let mut d = two_chunks();
            d.bonds.push(d.bonds[0].clone());
            asset_refused(d, |e| matches!(e, AssetError::DuplicateBond { .. }))
        },
    },
    Case {
        name: "asset: NaN bond centroid",
        run: || {
            let mut d = two_chunks();
            d.bonds[0].centroid = Vec3::splat(f32::NAN);
            asset_refused(d, |e| matches!(e, AssetError::NonFiniteBondCentroid(_)))
        },
    },
    Case {
        name: "asset: zero bond normal",
        run: || {
            let mut d = two_chunks();
            d.bonds[0].normal = Vec3::ZERO;
            asset_refused(d, |e| matches!(e, AssetError::BadBondNormal { .. }))
        },
    },
    Case {
        name: "asset: non-unit bond normal",
        run: || {
            let mut d = two_chunks();
            d.bonds[0].normal = Vec3::new(2.0, 0.0, 0.0);
            asset_refused(d, |e| matches!(e, AssetError::BadBondNormal { .. }))
        },
    },
    Case {
        name: "asset: negative bond area",
        run: || {
            let mut d = two_chunks();
            d.bonds[0].area = -1.0;
            asset_refused(d, |e| matches!(e, AssetError::BadBondArea { .. }))
        },
    },
    Case {
        name: "asset: zero bond strength",
        run: || {
            let mut d = two_chunks();
            d.bonds[0].strength = 0.0;
            asset_refused(d, |e| matches!(e, AssetError::BadBondStrength { .. }))
        },
    },
    Case {
        name: "asset: infinite bond strength in a grid",
        run: || {
            let mut d = grid_desc(2, 2, 1, 1.0, 1.0, 10.0);
            d.bonds[1].strength = f32::INFINITY;
            asset_refused(d, |e| matches!(e, AssetError::BadBondStrength { .. }))
        },
    },
    // --- Instance creation -------------------------------------------------
    Case {
        name: "instance: NaN placement",
        run: || {
            instance_refused(
                InstanceDesc {
                    placement: Pose::from_translation(Vec3::new(f32::NAN, 0.0, 0.0)),
                    ..InstanceDesc::default()
                },
                |e| matches!(e, InstanceError::BadPose),
            )
        },
    },
    Case {
        name: "instance: non-unit rotation",
        run: || {
            instance_refused(
                InstanceDesc {
                    placement: Pose {
                        rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 2.0),
                        translation: Vec3::ZERO,
                    },
                    ..InstanceDesc::default()
                },
                |e| matches!(e, InstanceError::BadPose),
            )
        },
    },
    Case {
        name: "instance: zero-size queue",
        run: || {
            let mut d = InstanceDesc::default();
            d.budget.queue_capacity = 0;
            instance_refused(d, |e| {
                matches!(e, InstanceError::Budget(BudgetError::ZeroQueue))
            })
        },
    },
    Case {
        name: "instance: task path names a missing chunk",
        run: || {
            let mut d = InstanceDesc::default();
            d.budget.task_path = vec![u32::MAX];
            instance_refused(d, |e| {
                matches!(
                    e,
                    InstanceError::Budget(BudgetError::ChunkOutOfRange { .. })
                )
            })
        },
    },
    Case {
        name: "instance: NaN sleep speed",
        run: || {
            let mut d = InstanceDesc::default();
            d.lifecycle.sleep_linear_speed = f32::NAN;
            instance_refused(d, |e| {
                matches!(e, InstanceError::Lifecycle(LifecycleError::BadThreshold(_)))
            })
        },
    },
    Case {
        name: "instance: negative sleep time",
        run: || {
            let mut d = InstanceDesc::default();
            d.lifecycle.sleep_time = -1.0;
            instance_refused(d, |e| {
                matches!(e, InstanceError::Lifecycle(LifecycleError::BadThreshold(_)))
            })
        },
    },
    // --- Admission ---------------------------------------------------------
    Case {
        name: "radial: NaN point",
        run: || {
            admit_refused(
                RadialDamage {
                    point: Vec3::new(0.0, f32::NAN, 0.0),
                    ..radial()
                },
                |e| matches!(e, DamageError::NonFinitePoint(_)),
            )
        },
    },
    Case {
        name: "radial: negative radius",
        run: || {
            admit_refused(
                RadialDamage {
                    radius: -1.0,
                    ..radial()
                },
                |e| matches!(e, DamageError::BadRadius(_)),
            )
        },
    },
    Case {
        name: "radial: zero radius",
        run: || {
            admit_refused(
                RadialDamage {
                    radius: 0.0,
                    ..radial()
                },
                |e| matches!(e, DamageError::BadRadius(_)),
            )
        },
    },
    Case {
        name: "radial: infinite radius",
        run: || {
            admit_refused(
                RadialDamage {
                    radius: f32::INFINITY,
                    ..radial()
                },
                |e| matches!(e, DamageError::BadRadius(_)),
            )
        },
    },
    Case {
        name: "radial: NaN damage",
        run: || {
            admit_refused(
                RadialDamage {
                    damage: f32::NAN,
                    ..radial()
                },
                |e| matches!(e, DamageError::BadDamage(_)),
            )
        },
    },
    Case {
        name: "radial: negative damage",
        run: || {
            admit_refused(
                RadialDamage {
                    damage: -5.0,
                    ..radial()
                },
                |e| matches!(e, DamageError::BadDamage(_)),
            )
        },
    },
    Case {
        name: "radial: infinite impulse",
        run: || {
            admit_refused(
                RadialDamage {
                    impulse: Some(Vec3::new(0.0, f32::INFINITY, 0.0)),
                    ..radial()
                },
                |e| matches!(e, DamageError::NonFiniteImpulse(_)),
            )
        },
    },
    Case {
        name: "radial: same id, other parameters",
        run: || {
            admit_refused(
                RadialDamage {
                    id: EventId(100),
                    damage: 2.0,
                    ..radial()
                },
                |e| matches!(e, DamageError::ConflictingEvent(100)),
            )
        },
    },
    Case {
        name: "falloff: inner radius above outer",
        run: || {
            admit_refused(falloff(2.0, 1.0), |e| {
                matches!(e, DamageError::BadFalloffRadii { .. })
            })
        },
    },
    Case {
        name: "falloff: zero outer radius",
        run: || {
            admit_refused(falloff(0.0, 0.0), |e| {
                matches!(e, DamageError::BadFalloffRadii { .. })
            })
        },
    },
    Case {
        name: "falloff: negative inner radius",
        run: || {
            admit_refused(falloff(-1.0, 1.0), |e| {
                matches!(e, DamageError::BadFalloffRadii { .. })
            })
        },
    },
    Case {
        name: "falloff: NaN outer radius",
        run: || {
            admit_refused(falloff(0.0, f32::NAN), |e| {
                matches!(e, DamageError::BadFalloffRadii { .. })
            })
        },
    },
    Case {
        name: "falloff: infinite damage",
        run: || {
            admit_refused(
                FalloffDamage {
                    damage: f32::INFINITY,
                    ..falloff(0.0, 1.0)
                },
                |e| matches!(e, DamageError::BadDamage(_)),
            )
        },
    },
    Case {
        name: "spread: unknown chunk",
        run: || {
            admit_refused(spread(99, 2), |e| {
                matches!(e, DamageError::UnknownChunk(99))
            })
        },
    },
    Case {
        name: "spread: zero rings",
        run: || admit_refused(spread(1, 0), |e| matches!(e, DamageError::BadReach(0))),
    },
    Case {
        name: "spread: negative damage",
        run: || {
            admit_refused(
                SpreadDamage {
                    damage: -1.0,
                    ..spread(1, 2)
                },
                |e| matches!(e, DamageError::BadDamage(_)),
            )
        },
    },
    Case {
        name: "admission: queue full",
        run: || {
            let mut d = InstanceDesc::default();
            d.budget.queue_capacity = 1;
            let mut inst = Instance::with_desc(asset(), d).unwrap();
            inst.admit(radial()).unwrap();
            let before = inst.state_hash();
            let r = inst.admit(RadialDamage {
                id: EventId(2),
                ..radial()
            });
            matches!(r, Err(DamageError::QueueFull { capacity: 1 }))
                && inst.state_hash() == before
                && inst.pending().len() == 1
        },
    },
    Case {
        name: "instance set: unknown instance",
        run: || {
            let mut set = InstanceSet::new();
            set.insert(instance()).unwrap();
            let before = set.get(InstanceId(0)).unwrap().state_hash();
            let r = set.admit(InstanceId(5), radial());
            matches!(r, Err(DamageError::UnknownInstance(5)))
                && set.get(InstanceId(0)).unwrap().state_hash() == before
        },
    },
    Case {
        name: "instance set: duplicate instance id",
        run: || {
            let mut set = InstanceSet::new();
            set.insert(instance()).unwrap();
            matches!(
                set.insert(instance()),
                Err(DuplicateInstance(InstanceId(0)))
            )
        },
    },
    Case {
        name: "task path: missing chunk",
        run: || {
            let mut inst = instance();
            let before = inst.state_hash();
            let r = inst.set_task_path(&[ChunkIndex(42)]);
            matches!(r, Err(BudgetError::ChunkOutOfRange { chunk: 42, .. }))
                && inst.state_hash() == before
        },
    },
    Case {
        name: "lifecycle: NaN time step",
        run: || {
            let mut inst = instance();
            let before = inst.state_hash();
            let r = inst.advance_sleep(f32::NAN);
            matches!(r, Err(LifecycleError::BadThreshold(_))) && inst.state_hash() == before
        },
    },
    Case {
        name: "lifecycle: negative time step",
        run: || {
            let mut inst = instance();
            let before = inst.state_hash();
            let r = inst.advance_sleep(-0.5);
            matches!(r, Err(LifecycleError::BadThreshold(_))) && inst.state_hash() == before
        },
    },
    // --- Snapshots ---------------------------------------------------------
    Case {
        name: "snapshot: empty bytes",
        run: || {
            matches!(
                Snapshot::from_bytes(&[]),
                Err(SnapshotError::Frame(FrameError::Truncated { len: 0, .. }))
            )
        },
    },
    Case {
        name: "snapshot: cut short",
        run: || {
            let b = snapshot_bytes();
            matches!(
                Snapshot::from_bytes(&b[..b.len() - 3]),
                Err(SnapshotError::Frame(FrameError::Truncated { .. }))
            )
        },
    },
    Case {
        name: "snapshot: foreign bytes (a commit record)",
        run: || {
            matches!(
                Snapshot::from_bytes(&record_bytes()),
                Err(SnapshotError::Frame(FrameError::BadMagic { .. }))
            )
        },
    },
    Case {
        name: "snapshot: corrupt payload",
        run: || {
            matches!(
                Snapshot::from_bytes(&corrupt(snapshot_bytes())),
                Err(SnapshotError::Frame(FrameError::Checksum))
            )
        },
    },
    Case {
        name: "snapshot: unknown version",
        run: || {
            matches!(
                Snapshot::from_bytes(&future_version(snapshot_bytes())),
                Err(SnapshotError::Frame(FrameError::Version {
                    found: 0xffff,
                    ..
                }))
            )
        },
    },
    Case {
        name: "snapshot: trailing bytes",
        run: || {
            let mut b = snapshot_bytes();
            b.extend_from_slice(&[0, 0]);
            matches!(
                Snapshot::from_bytes(&b),
                Err(SnapshotError::Frame(FrameError::TrailingBytes(2)))
            )
        },
    },
    Case {
        name: "snapshot: restored on another asset",
        run: || {
            let s = instance().snapshot();
            let other = Arc::new(chain(4, &[(0, 1)], &[0]).unwrap());
            matches!(
                Instance::restore(other, &s),
                Err(SnapshotError::AssetMismatch { .. })
            )
        },
    },
    // --- Asset files -------------------------------------------------------
    Case {
        name: "asset file: empty",
        run: || {
            matches!(
                AssetFile::from_bytes(&[]),
                Err(AssetFileError::Truncated { len: 0, .. })
            )
        },
    },
    Case {
        name: "asset file: cut short",
        run: || {
            let b = asset_file_bytes();
            matches!(
                AssetFile::from_bytes(&b[..b.len() - 1]),
                Err(AssetFileError::Truncated { .. })
            )
        },
    },
    Case {
        name: "asset file: foreign bytes (a snapshot)",
        run: || {
            let mut b = snapshot_bytes();
            b.resize(b.len().max(64), 0);
            matches!(AssetFile::from_bytes(&b), Err(AssetFileError::BadMagic))
        },
    },
    Case {
        name: "asset file: corrupt payload",
        run: || {
            matches!(
                AssetFile::from_bytes(&corrupt(asset_file_bytes())),
                Err(AssetFileError::Checksum)
            )
        },
    },
    Case {
        name: "asset file: unknown version",
        run: || {
            let mut b = asset_file_bytes();
            b[8..12].copy_from_slice(&99u32.to_le_bytes());
            matches!(
                AssetFile::from_bytes(&b),
                Err(AssetFileError::UnsupportedVersion { found: 99, .. })
            )
        },
    },
    Case {
        name: "asset file: duplicate bond inside",
        run: || {
            let mut desc = two_chunks();
            desc.bonds.push(desc.bonds[0].clone());
            let b = AssetFile {
                name: "dup".into(),
                provenance: "test".into(),
                meshes: vec![ChunkMesh::default(); desc.chunks.len()],
                desc,
            }
            .to_bytes();
            matches!(
                AssetFile::from_bytes(&b),
                Err(AssetFileError::Invalid(AssetError::DuplicateBond { .. }))
            )
        },
    },
    Case {
        name: "asset file: mesh count differs from chunk count",
        run: || {
            let desc = two_chunks();
            let b = AssetFile {
                name: "mesh".into(),
                provenance: "test".into(),
                meshes: vec![ChunkMesh::default()],
                desc,
            }
            .to_bytes();
            matches!(
                AssetFile::from_bytes(&b),
                Err(AssetFileError::BadMesh { .. })
            )
        },
    },
    // --- Commit records ----------------------------------------------------
    Case {
        name: "record: cut short",
        run: || {
            let b = record_bytes();
            matches!(
                CommitRecord::from_bytes(&b[..10]),
                Err(FrameError::Truncated { .. })
            )
        },
    },
    Case {
        name: "record: foreign bytes (a replay log)",
        run: || {
            matches!(
                CommitRecord::from_bytes(&replay_bytes()),
                Err(FrameError::BadMagic { .. })
            )
        },
    },
    Case {
        name: "record: corrupt payload",
        run: || {
            matches!(
                CommitRecord::from_bytes(&corrupt(record_bytes())),
                Err(FrameError::Checksum)
            )
        },
    },
    Case {
        name: "record: applied to another instance",
        run: || {
            let rec = CommitRecord::from_bytes(&record_bytes()).unwrap();
            let mut other = Instance::with_desc(
                asset(),
                InstanceDesc {
                    id: InstanceId(9),
                    ..InstanceDesc::default()
                },
            )
            .unwrap();
            let before = other.state_hash();
            matches!(
                other.apply_record(&rec),
                Err(RecordError::WrongInstance { .. })
            ) && other.state_hash() == before
        },
    },
    Case {
        name: "record: a gap in the sequence",
        run: || {
            let mut server = instance();
            server.admit(radial()).unwrap();
            server.commit(&mut HeadlessBackend::default()).unwrap();
            server
                .admit(RadialDamage {
                    id: EventId(2),
                    point: Vec3::new(1.5, 0.0, 0.0),
                    ..radial()
                })
                .unwrap();
            let second = server
                .commit(&mut HeadlessBackend::default())
                .unwrap()
                .record
                .unwrap();
            let mut client = instance();
            let before = client.state_hash();
            matches!(client.apply_record(&second), Err(RecordError::Gap { .. }))
                && client.state_hash() == before
        },
    },
    Case {
        name: "record: made on another asset",
        run: || {
            let rec = CommitRecord::from_bytes(&record_bytes()).unwrap();
            let mut other =
                Instance::new(Arc::new(chain(4, &[(0, 1)], &[0]).unwrap()), Pose::IDENTITY)
                    .unwrap();
            let before = other.state_hash();
            matches!(
                other.apply_record(&rec),
                Err(RecordError::WrongAsset { .. })
            ) && other.state_hash() == before
        },
    },
    // --- Replay logs -------------------------------------------------------
    Case {
        name: "replay log: cut short",
        run: || {
            let b = replay_bytes();
            matches!(
                ReplayLog::from_bytes(&b[..b.len() - 1]),
                Err(FrameError::Truncated { .. })
            )
        },
    },
    Case {
        name: "replay log: foreign bytes (a snapshot)",
        run: || {
            matches!(
                ReplayLog::from_bytes(&snapshot_bytes()),
                Err(FrameError::BadMagic { .. })
            )
        },
    },
    Case {
        name: "replay log: unknown version",
        run: || {
            matches!(
                ReplayLog::from_bytes(&future_version(replay_bytes())),
                Err(FrameError::Version { .. })
            )
        },
    },
    Case {
        name: "replay log: replayed on another asset",
        run: || {
            let log = ReplayLog::from_bytes(&replay_bytes()).unwrap();
            let other = Arc::new(chain(4, &[(0, 1)], &[0]).unwrap());
            matches!(replay(other, &log), Err(ReplayError::AssetMismatch { .. }))
        },
    },
    // --- Replication -------------------------------------------------------
    Case {
        name: "message: garbage bytes",
        run: || {
            matches!(
                Message::from_bytes(b"not a message at all, no"),
                Err(ReplicationError::Malformed(FrameError::BadMagic { .. }))
            )
        },
    },
    Case {
        name: "replica: truncated message",
        run: || {
            let b = Message::Heartbeat {
                instance: InstanceId(0),
                commit_seq: 3,
            }
            .to_bytes();
            replica_refuses(b[..b.len() - 1].to_vec(), |e| {
                matches!(e, ReplicationError::Malformed(FrameError::Truncated { .. }))
            })
        },
    },
    Case {
        name: "replica: corrupt commit message",
        run: || {
            let rec = CommitRecord::from_bytes(&record_bytes()).unwrap();
            replica_refuses(corrupt(Message::Commit(rec).to_bytes()), |e| {
                matches!(e, ReplicationError::Malformed(FrameError::Checksum))
            })
        },
    },
    Case {
        name: "replica: message for another instance",
        run: || {
            let b = Message::Heartbeat {
                instance: InstanceId(77),
                commit_seq: 3,
            }
            .to_bytes();
            replica_refuses(b, |e| matches!(e, ReplicationError::UnknownInstance { .. }))
        },
    },
    // --- Run records -------------------------------------------------------
    Case {
        name: "run file: not JSON",
        run: || {
            matches!(
                RunRecord::from_json(b"\x00\x01garbage"),
                Err(RunError::Json(_))
            )
        },
    },
    Case {
        name: "run file: truncated JSON",
        run: || {
            let b = RunRecord::new("cut", 1.0 / 60.0).to_json();
            matches!(
                RunRecord::from_json(&b[..b.len() / 2]),
                Err(RunError::Json(_))
            )
        },
    },
    Case {
        name: "run file: foreign format",
        run: || {
            let b = run_json(|v| v["format"] = "something-else".into());
            matches!(RunRecord::from_json(&b), Err(RunError::Format(_)))
        },
    },
    Case {
        name: "run file: unknown version",
        run: || {
            let b = run_json(|v| v["version"] = 999.into());
            matches!(
                RunRecord::from_json(&b),
                Err(RunError::Version { found: 999, .. })
            )
        },
    },
    Case {
        name: "run file: frame count without frames",
        run: || {
            let b = run_json(|v| v["frame_count"] = 10.into());
            matches!(
                RunRecord::from_json(&b),
                Err(RunError::FrameCount {
                    declared: 10,
                    present: 0
                })
            )
        },
    },
    Case {
        name: "run file: huge frame count",
        run: || {
            let b = run_json(|v| v["frame_count"] = (MAX_RUN_FRAMES + 1).into());
            matches!(
                RunRecord::from_json(&b),
                Err(RunError::TooManyFrames { .. })
            )
        },
    },
];

#[test]
fn every_bad_input_gives_its_typed_error_and_changes_nothing() {
    assert!(CASES.len() >= 35, "{} cases", CASES.len());
    let mut names = std::collections::BTreeSet::new();
    let mut failed = vec![];
    for case in CASES {
        assert!(names.insert(case.name), "duplicate case {}", case.name);
        eprintln!("case: {}", case.name);
        if !(case.run)() {
            failed.push(case.name);
        }
    }
    assert!(failed.is_empty(), "failed: {failed:#?}");
    let _ = RUN_FORMAT;
}
