//! Issue 16 item 6: the bad-input catalogue of the Rapier backend. Each case
//! feeds one entry point an input it must refuse, names the exact typed
//! error, and (when the input targets an existing set or world) checks that
//! the set's world hash, or the world's state hash, did not change.

#![allow(clippy::unwrap_used)]

use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_core::fixtures::{cube_chunk, grid_desc};
use smithereens_core::instance::InstanceDesc;
use smithereens_core::{
    Asset, AssetDesc, ChunkIndex, DamageError, EventId, FalloffDamage, Pose, RadialDamage,
};
use smithereens_rapier::world::insert_ground;
use smithereens_rapier::{
    BackendError, DestructionSet, DestructionSettings, DestructionWorld, Explosion, ExtraMass,
    InstanceHandle, MAX_PROJECTILE_MASS, MAX_PROJECTILE_SPEED, ProjectileDesc, RecyclePolicy,
    SetAdmitError, SetSnapshotError, WorldSettings, WorldSnapshotError, new_physics_world,
};
use std::sync::Arc;

struct Case {
    name: &'static str,
    run: fn() -> bool,
}

fn wall() -> Arc<Asset> {
    Arc::new(Asset::new(&grid_desc(3, 2, 1, 0.25, 2400.0, 1500.0)).unwrap())
}

fn other_asset() -> Arc<Asset> {
    Arc::new(Asset::new(&grid_desc(2, 2, 1, 0.25, 2400.0, 1500.0)).unwrap())
}

/// A game world with ground and a set holding one wall.
fn scene() -> (PhysicsWorld, DestructionSet, InstanceHandle) {
    let mut physics = new_physics_world(&WorldSettings::default());
    insert_ground(&mut physics, 0.0, 0.7);
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    let h = set
        .spawn(
            &mut physics,
            wall(),
            Pose::IDENTITY,
            InstanceDesc::default(),
        )
        .unwrap();
    (physics, set, h)
}

/// Runs `f` on a fresh scene (after admitting one good event) and checks its
/// verdict and that the set's world hash and body count did not change.
fn on_scene(f: fn(&mut PhysicsWorld, &mut DestructionSet, InstanceHandle) -> bool) -> bool {
    let (mut physics, mut set, h) = scene();
    set.admit(
        &physics,
        h,
        RadialDamage {
            id: EventId(100),
            point: Vec3::new(0.25, 0.25, 0.0),
            radius: 0.3,
            damage: 1.0,
            impulse: None,
        },
    )
    .unwrap();
    let before = set.world_hash(&physics);
    let bodies = physics.bodies.len();
    let ok = f(&mut physics, &mut set, h);
    ok && set.world_hash(&physics) == before && physics.bodies.len() == bodies
}

/// As [`on_scene`] with a despawned (stale) handle.
fn on_stale(f: fn(&mut PhysicsWorld, &mut DestructionSet, InstanceHandle) -> bool) -> bool {
    let (mut physics, mut set, h) = scene();
    set.despawn(&mut physics, h).unwrap();
    let before = set.world_hash(&physics);
    let bodies = physics.bodies.len();
    let ok = f(&mut physics, &mut set, h);
    ok && set.world_hash(&physics) == before && physics.bodies.len() == bodies
}

fn settings_refused(edit: fn(&mut DestructionSettings)) -> bool {
    let mut s = DestructionSettings::default();
    edit(&mut s);
    let r = DestructionSet::new(s);
    let ok = matches!(r, Err(BackendError::BadSetting { .. }));
    if !ok {
        eprintln!("  got {:?}", r.map(|_| ()));
    }
    ok
}

fn world_settings_refused(edit: fn(&mut WorldSettings)) -> bool {
    let mut s = WorldSettings::default();
    edit(&mut s);
    let r = DestructionWorld::new(wall(), Pose::IDENTITY, s);
    let ok = matches!(r, Err(BackendError::BadSetting { .. }));
    if !ok {
        eprintln!("  got {:?}", r.map(|_| ()));
    }
    ok
}

fn blast() -> Explosion {
    Explosion {
        id: EventId(7),
        point: Vec3::new(0.4, 0.25, 0.0),
        radius: 0.5,
        damage: 10.0,
        impulse: 5.0,
        inner_radius: 0.1,
    }
}

fn explode_refused(
    physics: &mut PhysicsWorld,
    set: &mut DestructionSet,
    h: InstanceHandle,
    b: Explosion,
    want: fn(&DamageError) -> bool,
) -> bool {
    let r = set.explode(physics, h, b);
    let ok = matches!(&r, Err(SetAdmitError::Damage(e)) if want(e));
    if !ok {
        eprintln!("  got {r:?}");
    }
    ok
}

fn projectile() -> ProjectileDesc {
    ProjectileDesc {
        position: Vec3::new(-2.0, 0.25, 0.0),
        velocity: Vec3::new(10.0, 0.0, 0.0),
        radius: 0.1,
        mass: 1.0,
    }
}

fn projectile_refused(p: ProjectileDesc) -> bool {
    let mut world =
        DestructionWorld::new(wall(), Pose::IDENTITY, WorldSettings::default()).unwrap();
    let before = world.state_hash();
    let bodies = world.physics().bodies.len();
    let r = world.spawn_projectile(p);
    let ok = matches!(r, Err(BackendError::BadSetting { .. }));
    if !ok {
        eprintln!("  got {r:?}");
    }
    ok && world.state_hash() == before
        && world.physics().bodies.len() == bodies
        && world.projectile_poses().is_empty()
}

fn world_admit_refused(event: FalloffDamage, want: fn(&DamageError) -> bool) -> bool {
    let mut world =
        DestructionWorld::new(wall(), Pose::IDENTITY, WorldSettings::default()).unwrap();
    let before = world.state_hash();
    let r = world.admit(event);
    let ok = matches!(&r, Err(e) if want(e));
    if !ok {
        eprintln!("  got {r:?}");
    }
    ok && world.state_hash() == before && world.instance().pending().is_empty()
}

fn falloff(inner: f32, outer: f32) -> FalloffDamage {
    FalloffDamage {
        id: EventId(1),
        point: Vec3::new(0.4, 0.25, 0.0),
        inner_radius: inner,
        outer_radius: outer,
        damage: 10.0,
        impulse: None,
    }
}

/// Seals `body` with the set snapshot checksum.
fn reseal(mut body: Vec<u8>) -> Vec<u8> {
    let mut h = smithereens_core::hash::StateHasher::new();
    h.write(&body);
    body.extend_from_slice(&h.finish().to_le_bytes());
    body
}

fn set_restore_refused(
    edit: fn(Vec<u8>) -> Vec<u8>,
    assets: fn() -> Vec<Arc<Asset>>,
    want: fn(&SetSnapshotError) -> bool,
) -> bool {
    let (physics, set, _) = scene();
    let bytes = edit(set.snapshot().unwrap());
    let r = DestructionSet::restore(&bytes, &assets(), &physics);
    let ok = matches!(&r, Err(e) if want(e));
    if !ok {
        eprintln!("  got {:?}", r.map(|_| ()));
    }
    ok
}

fn world_restore_refused(
    edit: fn(Vec<u8>) -> Vec<u8>,
    asset: fn() -> Arc<Asset>,
    want: fn(&WorldSnapshotError) -> bool,
) -> bool {
    let world = DestructionWorld::new(wall(), Pose::IDENTITY, WorldSettings::default()).unwrap();
    let bytes = edit(world.snapshot().unwrap());
    let r = DestructionWorld::restore(asset(), &bytes);
    let ok = matches!(&r, Err(e) if want(e));
    if !ok {
        eprintln!("  got {:?}", r.map(|_| ()));
    }
    ok
}

fn flip_last(mut b: Vec<u8>) -> Vec<u8> {
    let n = b.len();
    b[n - 1] ^= 0x5a;
    b
}

fn flip_middle(mut b: Vec<u8>) -> Vec<u8> {
    let n = b.len() / 2;
    b[n] ^= 0x5a;
    b
}

fn cut(b: Vec<u8>) -> Vec<u8> {
    b[..b.len() / 3].to_vec()
}

const CASES: &[Case] = &[
    // --- DestructionSettings -------------------------------------------------
    Case {
        name: "settings: NaN friction",
        run: || settings_refused(|s| s.friction = f32::NAN),
    },
    Case {
        name: "settings: negative friction",
        run: || settings_refused(|s| s.friction = -0.1),
    },
    Case {
        name: "settings: restitution above 1",
        run: || settings_refused(|s| s.restitution = 1.5),
    },
    Case {
        name: "settings: negative collider border",
        run: || settings_refused(|s| s.collider_border = -0.01),
    },
    Case {
        name: "settings: zero tag mark",
        run: || settings_refused(|s| s.tag_mark = 0),
    },
    Case {
        name: "settings: tag mark over 24 bits",
        run: || settings_refused(|s| s.tag_mark = 0x100_0000),
    },
    Case {
        name: "settings: zero blast speed cap",
        run: || settings_refused(|s| s.max_blast_speed = 0.0),
    },
    Case {
        name: "settings: infinite blast spin cap",
        run: || settings_refused(|s| s.max_blast_spin = f32::INFINITY),
    },
    Case {
        name: "settings: NaN CCD speed",
        run: || settings_refused(|s| s.ccd_speed = f32::NAN),
    },
    Case {
        name: "settings: zero sleep sweep",
        run: || settings_refused(|s| s.sleep_sweep = 0),
    },
    Case {
        name: "settings: zero quarantine threshold",
        run: || settings_refused(|s| s.quarantine_after = 0),
    },
    Case {
        name: "settings: zero new bodies per frame",
        run: || settings_refused(|s| s.new_bodies_per_frame = 0),
    },
    Case {
        name: "settings: zero stress work per frame",
        run: || settings_refused(|s| s.stress_work_per_frame = 0),
    },
    Case {
        name: "settings: NaN recycle delay",
        run: || {
            settings_refused(|s| {
                s.recycle = Some(RecyclePolicy {
                    after: f32::NAN,
                    max_chunks: 4,
                })
            })
        },
    },
    Case {
        name: "settings: NaN impact threshold",
        run: || settings_refused(|s| s.impact.threshold = f32::NAN),
    },
    Case {
        name: "settings: impact spread of zero rings",
        run: || settings_refused(|s| s.impact.max_rings = 0),
    },
    Case {
        name: "settings: impulse transfer above 1",
        run: || settings_refused(|s| s.impact.impulse_transfer = 2.0),
    },
    // --- WorldSettings -----------------------------------------------------
    Case {
        name: "world: zero time step",
        run: || world_settings_refused(|s| s.timestep = 0.0),
    },
    Case {
        name: "world: one-second time step",
        run: || world_settings_refused(|s| s.timestep = 1.0),
    },
    Case {
        name: "world: NaN gravity",
        run: || world_settings_refused(|s| s.gravity = Vec3::new(0.0, f32::NAN, 0.0)),
    },
    Case {
        name: "world: infinite ground height",
        run: || world_settings_refused(|s| s.ground_y = Some(f32::NEG_INFINITY)),
    },
    Case {
        name: "world: zero solver iterations",
        run: || world_settings_refused(|s| s.solver_iterations = 0),
    },
    Case {
        name: "world: too many PGS iterations",
        run: || world_settings_refused(|s| s.pgs_iterations = 99),
    },
    Case {
        name: "world: zero contact frequency",
        run: || world_settings_refused(|s| s.contact_frequency = 0.0),
    },
    Case {
        name: "world: NaN placement",
        run: || {
            let r = DestructionWorld::new(
                wall(),
                Pose::from_translation(Vec3::splat(f32::NAN)),
                WorldSettings::default(),
            );
            matches!(r, Err(BackendError::Instance(_)))
        },
    },
    // --- Spawn -------------------------------------------------------------
    Case {
        name: "spawn: NaN pose",
        run: || {
            on_scene(|physics, set, _| {
                let r = set.spawn(
                    physics,
                    wall(),
                    Pose::from_translation(Vec3::new(f32::NAN, 0.0, 0.0)),
                    InstanceDesc::default(),
                );
                matches!(r, Err(BackendError::Instance(_)))
            })
        },
    },
    Case {
        name: "spawn: pose beyond the placement limit",
        run: || {
            on_scene(|physics, set, _| {
                let r = set.spawn(
                    physics,
                    wall(),
                    Pose::from_translation(Vec3::new(1.0e7, 0.0, 0.0)),
                    InstanceDesc::default(),
                );
                matches!(r, Err(BackendError::BadSetting { .. }))
            })
        },
    },
    Case {
        name: "spawn: zero-size queue",
        run: || {
            on_scene(|physics, set, _| {
                let mut desc = InstanceDesc::default();
                desc.budget.queue_capacity = 0;
                let r = set.spawn(physics, wall(), Pose::IDENTITY, desc);
                // The reason survives into the flattened message.
                matches!(&r, Err(BackendError::Instance(m))
                    if m.contains("queue capacity must be at least 1"))
            })
        },
    },
    Case {
        name: "spawn: chunk with a flat hull",
        run: || {
            on_scene(|physics, set, _| {
                let mut c = cube_chunk(Vec3::new(5.0, 0.5, 0.0), 1.0, 1.0, true);
                for p in &mut c.hulls[0].points {
                    p.z = 0.0;
                }
                let asset = Arc::new(
                    Asset::new(&AssetDesc {
                        chunks: vec![c],
                        bonds: vec![],
                        support_depth: None,
                    })
                    .unwrap(),
                );
                let r = set.spawn(physics, asset, Pose::IDENTITY, InstanceDesc::default());
                let ok = matches!(r, Err(BackendError::DegenerateHull(_)));
                if !ok {
                    eprintln!("  got {r:?}");
                }
                ok
            })
        },
    },
    // --- Stale and unknown handles -----------------------------------------
    Case {
        name: "stale handle: admit",
        run: || {
            on_stale(|physics, set, h| {
                let r = set.admit(
                    physics,
                    h,
                    RadialDamage {
                        id: EventId(1),
                        point: Vec3::ZERO,
                        radius: 1.0,
                        damage: 1.0,
                        impulse: None,
                    },
                );
                matches!(
                    r,
                    Err(SetAdmitError::Instance(BackendError::StaleInstance(_)))
                )
            })
        },
    },
    Case {
        name: "stale handle: explode",
        run: || {
            on_stale(|physics, set, h| {
                matches!(
                    set.explode(physics, h, blast()),
                    Err(SetAdmitError::Instance(BackendError::StaleInstance(_)))
                )
            })
        },
    },
    Case {
        name: "stale handle: despawn twice",
        run: || {
            on_stale(|physics, set, h| {
                matches!(set.despawn(physics, h), Err(BackendError::StaleInstance(_)))
            })
        },
    },
    Case {
        name: "stale handle: instance and cluster bodies",
        run: || {
            on_stale(|_, set, h| {
                matches!(set.instance(h), Err(BackendError::StaleInstance(_)))
                    && matches!(set.cluster_bodies(h), Err(BackendError::StaleInstance(_)))
            })
        },
    },
    Case {
        name: "stale handle: readmit",
        run: || on_stale(|_, set, h| matches!(set.readmit(h), Err(BackendError::StaleInstance(_)))),
    },
    Case {
        name: "stale handle: extra mass",
        run: || {
            on_stale(|physics, set, h| {
                let r = set.set_extra_mass(
                    physics,
                    h,
                    ChunkIndex(0),
                    ExtraMass {
                        mass: 1.0,
                        center: Vec3::ZERO,
                    },
                );
                matches!(r, Err(BackendError::StaleInstance(_)))
            })
        },
    },
    Case {
        name: "unknown handle: index never used",
        run: || {
            on_scene(|physics, set, _| {
                let h = InstanceHandle::from_raw_parts(42, 0);
                matches!(
                    set.explode(physics, h, blast()),
                    Err(SetAdmitError::Instance(BackendError::StaleInstance(_)))
                )
            })
        },
    },
    Case {
        name: "unknown handle: live index, wrong generation",
        run: || {
            on_scene(|physics, set, h| {
                let wrong = InstanceHandle::from_raw_parts(h.index(), h.generation() + 1);
                matches!(
                    set.despawn(physics, wrong),
                    Err(BackendError::StaleInstance(_))
                )
            })
        },
    },
    // --- Admission and explosions ------------------------------------------
    Case {
        name: "set admit: NaN point",
        run: || {
            on_scene(|physics, set, h| {
                let r = set.admit(
                    physics,
                    h,
                    RadialDamage {
                        id: EventId(1),
                        point: Vec3::new(f32::NAN, 0.0, 0.0),
                        radius: 1.0,
                        damage: 1.0,
                        impulse: None,
                    },
                );
                matches!(
                    r,
                    Err(SetAdmitError::Damage(DamageError::NonFinitePoint(_)))
                )
            })
        },
    },
    Case {
        name: "set admit: negative radius",
        run: || {
            on_scene(|physics, set, h| {
                let r = set.admit(
                    physics,
                    h,
                    RadialDamage {
                        id: EventId(1),
                        point: Vec3::ZERO,
                        radius: -1.0,
                        damage: 1.0,
                        impulse: None,
                    },
                );
                matches!(r, Err(SetAdmitError::Damage(DamageError::BadRadius(_))))
            })
        },
    },
    Case {
        name: "set admit: conflicting event id",
        run: || {
            on_scene(|physics, set, h| {
                let r = set.admit(
                    physics,
                    h,
                    RadialDamage {
                        id: EventId(100),
                        point: Vec3::ZERO,
                        radius: 1.0,
                        damage: 1.0,
                        impulse: None,
                    },
                );
                matches!(
                    r,
                    Err(SetAdmitError::Damage(DamageError::ConflictingEvent(100)))
                )
            })
        },
    },
    Case {
        name: "explode: negative impulse",
        run: || {
            on_scene(|physics, set, h| {
                explode_refused(
                    physics,
                    set,
                    h,
                    Explosion {
                        impulse: -1.0,
                        ..blast()
                    },
                    |e| matches!(e, DamageError::NonFiniteImpulse(_)),
                )
            })
        },
    },
    Case {
        name: "explode: NaN impulse",
        run: || {
            on_scene(|physics, set, h| {
                explode_refused(
                    physics,
                    set,
                    h,
                    Explosion {
                        impulse: f32::NAN,
                        ..blast()
                    },
                    |e| matches!(e, DamageError::NonFiniteImpulse(_)),
                )
            })
        },
    },
    Case {
        name: "explode: inner radius beyond the radius",
        run: || {
            on_scene(|physics, set, h| {
                explode_refused(
                    physics,
                    set,
                    h,
                    Explosion {
                        inner_radius: 2.0,
                        ..blast()
                    },
                    |e| matches!(e, DamageError::BadFalloffRadii { .. }),
                )
            })
        },
    },
    Case {
        name: "explode: zero radius",
        run: || {
            on_scene(|physics, set, h| {
                explode_refused(
                    physics,
                    set,
                    h,
                    Explosion {
                        radius: 0.0,
                        inner_radius: 0.0,
                        ..blast()
                    },
                    |e| matches!(e, DamageError::BadFalloffRadii { .. }),
                )
            })
        },
    },
    Case {
        name: "explode: infinite point",
        run: || {
            on_scene(|physics, set, h| {
                explode_refused(
                    physics,
                    set,
                    h,
                    Explosion {
                        point: Vec3::new(0.0, f32::INFINITY, 0.0),
                        ..blast()
                    },
                    |e| matches!(e, DamageError::NonFinitePoint(_)),
                )
            })
        },
    },
    Case {
        name: "explode: negative damage",
        run: || {
            on_scene(|physics, set, h| {
                explode_refused(
                    physics,
                    set,
                    h,
                    Explosion {
                        damage: -3.0,
                        ..blast()
                    },
                    |e| matches!(e, DamageError::BadDamage(_)),
                )
            })
        },
    },
    Case {
        name: "explode: same id, other impulse",
        run: || {
            let (physics, mut set, h) = scene();
            set.explode(&physics, h, blast()).unwrap();
            let before = set.world_hash(&physics);
            let r = set.explode(
                &physics,
                h,
                Explosion {
                    impulse: 50.0,
                    ..blast()
                },
            );
            matches!(
                r,
                Err(SetAdmitError::Damage(DamageError::ConflictingEvent(7)))
            ) && set.world_hash(&physics) == before
        },
    },
    Case {
        name: "extra mass: negative",
        run: || {
            on_scene(|physics, set, h| {
                let r = set.set_extra_mass(
                    physics,
                    h,
                    ChunkIndex(1),
                    ExtraMass {
                        mass: -1.0,
                        center: Vec3::ZERO,
                    },
                );
                matches!(r, Err(BackendError::BadSetting { .. }))
            })
        },
    },
    Case {
        name: "extra mass: unknown chunk",
        run: || {
            on_scene(|physics, set, h| {
                let r = set.set_extra_mass(
                    physics,
                    h,
                    ChunkIndex(999),
                    ExtraMass {
                        mass: 1.0,
                        center: Vec3::ZERO,
                    },
                );
                matches!(r, Err(BackendError::UnknownChunk(_)))
            })
        },
    },
    Case {
        name: "world admit: falloff inner above outer",
        run: || {
            world_admit_refused(falloff(1.0, 0.5), |e| {
                matches!(e, DamageError::BadFalloffRadii { .. })
            })
        },
    },
    Case {
        name: "world admit: NaN damage",
        run: || {
            world_admit_refused(
                FalloffDamage {
                    damage: f32::NAN,
                    ..falloff(0.0, 0.5)
                },
                |e| matches!(e, DamageError::BadDamage(_)),
            )
        },
    },
    // --- Projectiles -------------------------------------------------------
    Case {
        name: "projectile: heavier than MAX_PROJECTILE_MASS",
        run: || {
            projectile_refused(ProjectileDesc {
                mass: MAX_PROJECTILE_MASS * 2.0,
                ..projectile()
            })
        },
    },
    Case {
        name: "projectile: faster than MAX_PROJECTILE_SPEED",
        run: || {
            projectile_refused(ProjectileDesc {
                velocity: Vec3::new(MAX_PROJECTILE_SPEED * 1.5, 0.0, 0.0),
                ..projectile()
            })
        },
    },
    Case {
        name: "projectile: zero radius",
        run: || {
            projectile_refused(ProjectileDesc {
                radius: 0.0,
                ..projectile()
            })
        },
    },
    Case {
        name: "projectile: zero mass",
        run: || {
            projectile_refused(ProjectileDesc {
                mass: 0.0,
                ..projectile()
            })
        },
    },
    Case {
        name: "projectile: NaN position",
        run: || {
            projectile_refused(ProjectileDesc {
                position: Vec3::new(f32::NAN, 0.0, 0.0),
                ..projectile()
            })
        },
    },
    Case {
        name: "projectile: infinite velocity",
        run: || {
            projectile_refused(ProjectileDesc {
                velocity: Vec3::new(0.0, 0.0, f32::INFINITY),
                ..projectile()
            })
        },
    },
    // --- Set and world snapshots -------------------------------------------
    Case {
        name: "set restore: empty bytes",
        run: || {
            set_restore_refused(
                |_| vec![],
                || vec![wall()],
                |e| matches!(e, SetSnapshotError::Decode(_)),
            )
        },
    },
    Case {
        name: "set restore: truncated",
        run: || {
            set_restore_refused(
                cut,
                || vec![wall()],
                |e| matches!(e, SetSnapshotError::Decode(_)),
            )
        },
    },
    Case {
        name: "set restore: corrupt",
        run: || {
            set_restore_refused(
                flip_middle,
                || vec![wall()],
                |e| matches!(e, SetSnapshotError::Decode(_)),
            )
        },
    },
    Case {
        name: "set restore: unknown format",
        run: || {
            set_restore_refused(
                |b| {
                    let mut body = b[..b.len() - 8].to_vec();
                    // A format far past today's (one varint byte).
                    body[0] = 99;
                    reseal(body)
                },
                || vec![wall()],
                |e| matches!(e, SetSnapshotError::Format(99)),
            )
        },
    },
    Case {
        name: "set restore: garbage with a valid checksum",
        run: || {
            set_restore_refused(
                |_| reseal(vec![0xff; 40]),
                || vec![wall()],
                |e| matches!(e, SetSnapshotError::Decode(_) | SetSnapshotError::Format(_)),
            )
        },
    },
    Case {
        name: "set restore: missing asset",
        run: || {
            set_restore_refused(
                |b| b,
                || vec![other_asset()],
                |e| matches!(e, SetSnapshotError::MissingAsset(_)),
            )
        },
    },
    Case {
        name: "set restore: no assets at all",
        run: || {
            set_restore_refused(
                |b| b,
                Vec::new,
                |e| matches!(e, SetSnapshotError::MissingAsset(_)),
            )
        },
    },
    Case {
        name: "set restore_with: corrupt",
        run: || {
            let (physics, set, _) = scene();
            let bytes = flip_last(set.snapshot_with(&physics).unwrap());
            matches!(
                DestructionSet::restore_with(&bytes, &[wall()]),
                Err(SetSnapshotError::Decode(_))
            )
        },
    },
    Case {
        name: "world restore: empty bytes",
        run: || {
            world_restore_refused(
                |_| vec![],
                wall,
                |e| matches!(e, WorldSnapshotError::Decode(_)),
            )
        },
    },
    Case {
        name: "world restore: corrupt",
        run: || {
            world_restore_refused(flip_middle, wall, |e| {
                matches!(e, WorldSnapshotError::Decode(_))
            })
        },
    },
    Case {
        name: "world restore: a set snapshot instead",
        run: || {
            let (physics, set, _) = scene();
            let bytes = set.snapshot_with(&physics).unwrap();
            let r = DestructionWorld::restore(wall(), &bytes);
            let ok = matches!(
                r,
                Err(WorldSnapshotError::Decode(_) | WorldSnapshotError::Format(_))
            );
            if !ok {
                eprintln!("  got {:?}", r.map(|_| ()));
            }
            ok
        },
    },
    Case {
        name: "world restore: another asset",
        run: || {
            world_restore_refused(
                |b| b,
                other_asset,
                |e| {
                    matches!(
                        e,
                        WorldSnapshotError::Set(SetSnapshotError::MissingAsset(_))
                    )
                },
            )
        },
    },
];

#[test]
fn every_bad_input_gives_its_typed_error_and_changes_nothing() {
    assert!(CASES.len() >= 25, "{} cases", CASES.len());
    let mut names = std::collections::BTreeSet::new();
    let mut failed = vec![];
    for case in CASES {
        assert!(names.insert(case.name), "duplicate case {}", case.name);
        eprintln!("case: {}", case.name);
        if !(case.run)() {
            failed.push(case.name);
        }
    }
    eprintln!("{} cases", CASES.len());
    assert!(failed.is_empty(), "failed: {failed:#?}");
}
