//! The destruction set in a Rapier world the test owns and steps: several
//! instances, foreign colliders, despawn, failure isolation and quarantine,
//! snapshots together with the game's world, bad input.

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_core::fixtures::grid_desc;
use smithereens_core::instance::InstanceDesc;
use smithereens_core::{Asset, EventId, Pose, RadialDamage};
use smithereens_rapier::world::insert_ground;
use smithereens_rapier::{
    BackendError, ColliderTag, DestructionSet, DestructionSettings, SetAdmitError, SetStepReport,
    WorldSettings, new_physics_world,
};
use std::sync::Arc;

fn wall() -> Arc<Asset> {
    Arc::new(Asset::new(&grid_desc(6, 4, 1, 0.25, 2400.0, 1500.0)).unwrap())
}

fn game_world() -> PhysicsWorld {
    let mut physics = new_physics_world(&WorldSettings::default());
    insert_ground(&mut physics, 0.0, 0.7);
    physics
}

fn step(set: &mut DestructionSet, physics: &mut PhysicsWorld) -> SetStepReport {
    set.before_step(physics);
    physics.step_with_events(&(), set.events());
    set.after_step(physics)
}

fn ball(physics: &mut PhysicsWorld, at: Vec3, v: Vec3, mass: f32) -> RigidBodyHandle {
    let rb = physics.insert_body(
        RigidBodyBuilder::dynamic()
            .translation(at)
            .linvel(v)
            .ccd_enabled(true),
    );
    physics.insert_collider(ColliderBuilder::ball(0.2).mass(mass), Some(rb));
    rb
}

fn spawn(
    set: &mut DestructionSet,
    physics: &mut PhysicsWorld,
    asset: &Arc<Asset>,
    x: f32,
) -> smithereens_rapier::InstanceHandle {
    set.spawn(
        physics,
        asset.clone(),
        Pose::from_translation(Vec3::new(x, 0.0, 0.0)),
        InstanceDesc::default(),
    )
    .unwrap()
}

#[test]
fn a_game_ball_breaks_the_wall_it_hits_and_no_other() {
    let asset = wall();
    let mut physics = game_world();
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    let handles: Vec<_> = (0..3)
        .map(|k| spawn(&mut set, &mut physics, &asset, 4.0 * k as f32))
        .collect();
    assert_eq!(set.len(), 3);
    // A plain game body, unknown to the library, thrown at the middle wall.
    ball(
        &mut physics,
        Vec3::new(4.75, 0.6, -1.5),
        Vec3::new(0.0, 0.0, 20.0),
        200.0,
    );
    let mut broken = [0usize; 3];
    for _ in 0..60 {
        let r = step(&mut set, &mut physics);
        assert!(r.failed.is_empty() && r.rejected_contacts == 0);
        assert!(!r.pre_step_missing);
        for (k, h) in handles.iter().enumerate() {
            broken[k] += r.instance(*h).broken.len();
        }
    }
    assert_eq!((broken[0], broken[2]), (0, 0), "{broken:?}");
    assert!(broken[1] >= 3, "the hit wall lost {} bonds", broken[1]);
    for (k, h) in handles.iter().enumerate() {
        assert_eq!(set.instance(*h).unwrap().broken_count(), broken[k]);
    }
}

#[test]
fn a_foreign_collider_is_never_taken_for_a_chunk_even_with_a_forged_tag() {
    let asset = wall();
    let mut physics = game_world();
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    let h = spawn(&mut set, &mut physics, &asset, 0.0);
    // The game copies a chunk collider's user_data onto its own falling box.
    let (chunk_collider, tag) = physics
        .colliders
        .iter()
        .find_map(|(c, col)| set.collider_tag(c).map(|t| (col.user_data, t)))
        .unwrap();
    assert_eq!(
        ColliderTag::decode(chunk_collider, set.settings().tag_mark),
        Some(tag)
    );
    assert_eq!(tag.instance(), h);
    let rb =
        physics.insert_body(RigidBodyBuilder::dynamic().translation(Vec3::new(10.0, 3.0, 0.0)));
    let forged = physics.insert_collider(
        ColliderBuilder::cuboid(0.3, 0.3, 0.3)
            .user_data(chunk_collider)
            .active_events(ActiveEvents::CONTACT_FORCE_EVENTS)
            .contact_force_event_threshold(0.0),
        Some(rb),
    );
    assert_eq!(set.collider_tag(forged), None);
    assert_eq!(set.body_owner(rb), None);
    // It lands hard on the ground: contact-force events, but no damage anywhere.
    for _ in 0..90 {
        let r = step(&mut set, &mut physics);
        assert!(r.instances.is_empty(), "{:?}", r.instances);
    }
    assert_eq!(set.instance(h).unwrap().broken_count(), 0);
}

#[test]
fn despawn_removes_every_body_and_collider_and_wakes_what_rested_on_them() {
    let asset = wall();
    let mut physics = game_world();
    let (bodies0, colliders0) = (physics.bodies.len(), physics.colliders.len());
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    let h = spawn(&mut set, &mut physics, &asset, 0.0);
    let other = spawn(&mut set, &mut physics, &asset, 5.0);
    // A game box resting on top of the first wall (top at y = 1.0).
    let crate_rb =
        physics.insert_body(RigidBodyBuilder::dynamic().translation(Vec3::new(0.75, 1.2, 0.125)));
    physics.insert_collider(ColliderBuilder::cuboid(0.2, 0.2, 0.1), Some(crate_rb));
    for _ in 0..240 {
        step(&mut set, &mut physics);
    }
    assert!(
        physics.bodies[crate_rb].is_sleeping(),
        "the crate settled and slept"
    );
    let y_rest = physics.bodies[crate_rb].translation().y;
    assert!((y_rest - 1.2).abs() < 0.02, "rests on the wall at {y_rest}");
    set.despawn(&mut physics, h).unwrap();
    assert!(
        !physics.bodies[crate_rb].is_sleeping(),
        "woken by the despawn"
    );
    let per_instance = physics.bodies.len() - bodies0 - 1;
    assert_eq!(per_instance, set.cluster_bodies(other).unwrap().len());
    assert_eq!(
        physics.colliders.len() - colliders0 - 1,
        asset.chunk_count()
    );
    for _ in 0..60 {
        step(&mut set, &mut physics);
    }
    assert!(
        physics.bodies[crate_rb].translation().y < 0.3,
        "fell to the ground"
    );
    // Stale handles are typed errors that change nothing.
    assert_eq!(
        set.despawn(&mut physics, h),
        Err(BackendError::StaleInstance(h))
    );
    assert!(set.instance(h).is_err());
    assert!(matches!(
        set.admit(
            &physics,
            h,
            RadialDamage {
                id: EventId(1),
                point: Vec3::ZERO,
                radius: 1.0,
                damage: 10.0,
                impulse: None
            }
        ),
        Err(SetAdmitError::Instance(BackendError::StaleInstance(_)))
    ));
    // The slot is reused under a new generation; the old handle stays stale.
    let again = spawn(&mut set, &mut physics, &asset, 0.0);
    assert_eq!(again.index(), h.index());
    assert_ne!(again, h);
    assert!(set.instance(h).is_err());
    assert_eq!(set.len(), 2);
}

fn blow(id: u64, at: Vec3) -> RadialDamage {
    RadialDamage {
        id: EventId(id),
        point: at,
        radius: 0.3,
        damage: 1.0e5,
        impulse: None,
    }
}

#[test]
fn a_failing_commit_blocks_no_other_instance_and_is_quarantined_then_readmitted() {
    let asset = wall();
    let mut physics = game_world();
    let settings = DestructionSettings {
        quarantine_after: 3,
        ..Default::default()
    };
    let mut set = DestructionSet::new(settings).unwrap();
    let a = spawn(&mut set, &mut physics, &asset, 0.0);
    let b = spawn(&mut set, &mut physics, &asset, 4.0);
    set.inject_prepare_failures(a, 3).unwrap();
    set.admit(&physics, a, blow(1, Vec3::new(0.75, 0.9, 0.125)))
        .unwrap();
    set.admit(&physics, b, blow(1, Vec3::new(4.75, 0.9, 0.125)))
        .unwrap();
    let r = step(&mut set, &mut physics);
    assert_eq!(r.failed.len(), 1);
    assert_eq!(r.failed[0].0, a);
    assert!(
        !r.instance(b).broken.is_empty(),
        "b committed despite a's failure"
    );
    assert!(r.instance(a).broken.is_empty());
    assert_eq!(
        set.instance(a).unwrap().pending().len(),
        1,
        "a keeps its event for a retry"
    );
    let r = step(&mut set, &mut physics);
    assert_eq!(r.failed.len(), 1);
    assert!(r.quarantined.is_empty());
    let r = step(&mut set, &mut physics);
    assert_eq!(r.quarantined, vec![a]);
    assert!(set.instance(a).unwrap().pending().is_empty(), "set aside");
    let q = &set.quarantined()[0];
    assert_eq!((q.instance, q.attempts, q.events.len()), (a, 3, 1));
    assert!(q.error.contains("injected prepare failure"), "{}", q.error);
    // The world keeps stepping; nothing retries the quarantined event.
    for _ in 0..5 {
        assert!(step(&mut set, &mut physics).failed.is_empty());
    }
    assert_eq!(set.instance(a).unwrap().broken_count(), 0);
    // The game re-admits it: it commits at the next safe point.
    assert_eq!(set.readmit(a).unwrap(), 1);
    assert!(set.quarantined().is_empty());
    let r = step(&mut set, &mut physics);
    assert!(r.failed.is_empty());
    assert!(!r.instance(a).broken.is_empty());
    assert_eq!(
        set.instance(a).unwrap().broken_count(),
        set.instance(b).unwrap().broken_count(),
        "the same event on the same asset breaks the same bonds"
    );
}

#[test]
fn contacts_refused_by_a_full_queue_are_counted() {
    let asset = wall();
    let mut physics = game_world();
    let settings = DestructionSettings {
        quarantine_after: 1000,
        ..Default::default()
    };
    let mut set = DestructionSet::new(settings).unwrap();
    let mut desc = InstanceDesc::default();
    desc.budget.queue_capacity = 1;
    let h = set
        .spawn(&mut physics, asset.clone(), Pose::IDENTITY, desc)
        .unwrap();
    // One scripted event whose commit keeps failing holds the one-slot queue full.
    set.inject_prepare_failures(h, 1000).unwrap();
    set.admit(&physics, h, blow(7, Vec3::new(0.75, 0.9, 0.125)))
        .unwrap();
    ball(
        &mut physics,
        Vec3::new(0.75, 0.6, -1.0),
        Vec3::new(0.0, 0.0, 30.0),
        500.0,
    );
    let mut rejected = 0;
    for _ in 0..20 {
        let r = step(&mut set, &mut physics);
        assert_eq!(r.instance(h).events.len(), 0);
        rejected += r.rejected_contacts;
    }
    assert!(rejected >= 1, "the ball's hit was refused and counted");
    assert_eq!(set.instance(h).unwrap().pending().len(), 1);
}

#[test]
fn the_set_and_the_game_world_restore_together_bit_for_bit_mid_impact() {
    let asset = wall();
    let column = Arc::new(Asset::new(&grid_desc(1, 6, 1, 0.3, 2400.0, 800.0)).unwrap());
    let mut physics = game_world();
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    spawn(&mut set, &mut physics, &asset, 0.0);
    set.spawn(
        &mut physics,
        column.clone(),
        Pose::from_translation(Vec3::new(3.0, 0.0, 0.0)),
        InstanceDesc::default(),
    )
    .unwrap();
    spawn(&mut set, &mut physics, &asset, 6.0);
    ball(
        &mut physics,
        Vec3::new(0.75, 0.6, -1.0),
        Vec3::new(0.0, 0.0, 25.0),
        300.0,
    );
    ball(
        &mut physics,
        Vec3::new(3.15, 1.2, -1.0),
        Vec3::new(0.0, 0.0, 25.0),
        300.0,
    );
    ball(
        &mut physics,
        Vec3::new(6.75, 0.6, -4.0),
        Vec3::new(0.0, 0.0, 25.0),
        300.0,
    );
    let mut broke = 0;
    for _ in 0..4 {
        broke += step(&mut set, &mut physics)
            .instances
            .values()
            .map(|r| r.broken.len())
            .sum::<usize>();
    }
    let bytes = set.snapshot_with(&physics).unwrap();
    let (mut physics2, mut set2) =
        DestructionSet::restore_with(&bytes, &[column.clone(), asset.clone()]).unwrap();
    assert_eq!(set2.world_hash(&physics2), set.world_hash(&physics));
    let mut later = 0;
    for _ in 0..90 {
        let r1 = step(&mut set, &mut physics);
        let r2 = step(&mut set2, &mut physics2);
        assert_eq!(
            r1.instances.keys().collect::<Vec<_>>(),
            r2.instances.keys().collect::<Vec<_>>()
        );
        later += r1.instances.values().map(|r| r.broken.len()).sum::<usize>();
        assert_eq!(set.world_hash(&physics), set2.world_hash(&physics2));
    }
    assert!(
        broke + later > 0 && later > 0,
        "the snapshot was taken mid-impact ({broke} then {later})"
    );
    // Missing asset, corrupt bytes: typed errors.
    assert!(matches!(
        DestructionSet::restore_with(&bytes, std::slice::from_ref(&asset)),
        Err(smithereens_rapier::SetSnapshotError::MissingAsset(_))
    ));
    assert!(matches!(
        DestructionSet::restore_with(&bytes[..bytes.len() / 2], &[asset, column]),
        Err(smithereens_rapier::SetSnapshotError::Decode(_))
    ));
}

#[test]
fn bad_spawns_are_typed_errors_that_add_nothing() {
    let mut physics = game_world();
    let (b0, c0) = (physics.bodies.len(), physics.colliders.len());
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    let nan = Pose::from_translation(Vec3::new(f32::NAN, 0.0, 0.0));
    assert!(matches!(
        set.spawn(&mut physics, wall(), nan, InstanceDesc::default()),
        Err(BackendError::Instance(_))
    ));
    let far = Pose::from_translation(Vec3::new(1.0e30, 0.0, 0.0));
    assert!(matches!(
        set.spawn(&mut physics, wall(), far, InstanceDesc::default()),
        Err(BackendError::BadSetting { .. })
    ));
    // A chunk whose hull is flat (4 coplanar points).
    let mut desc = grid_desc(2, 1, 1, 1.0, 1.0, 10.0);
    for points in [
        vec![Vec3::ONE; 4],
        // Four coplanar points (once accepted as a flat, rounded plate).
        vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(1.0, 1.0, 0.0)],
        // Four points within 1e-20 m.
        vec![
            Vec3::ONE,
            Vec3::ONE + Vec3::X * 1e-20,
            Vec3::ONE + Vec3::Y * 1e-20,
            Vec3::ONE + Vec3::Z * 1e-20,
        ],
    ] {
        desc.chunks[1].hulls[0].points = points.clone();
        let flat = Arc::new(Asset::new(&desc).unwrap());
        assert!(
            matches!(
                set.spawn(&mut physics, flat, Pose::IDENTITY, InstanceDesc::default()),
                Err(BackendError::DegenerateHull(c)) if c == smithereens_core::ChunkIndex(1)
            ),
            "{points:?}"
        );
    }
    // Hulls that do not fit the chunk's mass properties: points shifted
    // 0.3 m on a 0.5 m cube (the centroid 0.05 m outside), and a hull of
    // half the declared volume. A 0.2 m shift (centroid still inside) passes.
    let cube = grid_desc(2, 1, 1, 0.5, 1000.0, 10.0);
    let shifted = |d: Vec3, scale: f32| {
        let mut desc = cube.clone();
        let c = desc.chunks[1].centroid;
        for p in &mut desc.chunks[1].hulls[0].points {
            *p = c + (*p - c) * scale + d;
        }
        Arc::new(Asset::new(&desc).unwrap())
    };
    for (asset, offset) in [
        (shifted(Vec3::new(0.0, 0.3, 0.0), 1.0), 0.05),
        (shifted(Vec3::ZERO, 0.5f32.cbrt()), 0.0),
    ] {
        match set.spawn(&mut physics, asset, Pose::IDENTITY, InstanceDesc::default()) {
            Err(BackendError::HullMismatch {
                chunk, offset: o, ..
            }) => {
                assert_eq!(chunk, smithereens_core::ChunkIndex(1));
                assert!((o - offset).abs() < 1e-3, "{o}");
            }
            other => panic!("{other:?}"),
        }
    }
    let h = set
        .spawn(
            &mut physics,
            shifted(Vec3::new(0.0, 0.2, 0.0), 1.0),
            Pose::IDENTITY,
            InstanceDesc::default(),
        )
        .unwrap();
    set.despawn(&mut physics, h).unwrap();
    assert_eq!((physics.bodies.len(), physics.colliders.len()), (b0, c0));
    assert!(set.is_empty());
    assert!(
        DestructionSet::new(DestructionSettings {
            quarantine_after: 0,
            ..Default::default()
        })
        .is_err()
    );
    assert!(
        DestructionSet::new(DestructionSettings {
            tag_mark: 0x1_000_000,
            ..Default::default()
        })
        .is_err()
    );
}

#[test]
fn forgetting_before_step_is_reported() {
    let mut physics = game_world();
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    spawn(&mut set, &mut physics, &wall(), 0.0);
    physics.step_with_events(&(), set.events());
    assert!(set.after_step(&mut physics).pre_step_missing);
    assert!(!step(&mut set, &mut physics).pre_step_missing);
}

#[test]
fn a_kinematic_pusher_breaks_a_fixed_wall_it_drives_into() {
    let asset = wall();
    let mut physics = game_world();
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    let h = spawn(&mut set, &mut physics, &asset, 0.0);
    // A 1 m box on velocity-based kinematic rails at 8 m/s, like a vehicle or a character.
    let pusher = physics.insert_body(
        RigidBodyBuilder::kinematic_velocity_based()
            .translation(Vec3::new(0.75, 0.5, -1.0))
            .linvel(Vec3::new(0.0, 0.0, 8.0)),
    );
    physics.insert_collider(ColliderBuilder::cuboid(0.5, 0.4, 0.5), Some(pusher));
    let (mut events, mut broken) = (0, 0);
    for _ in 0..40 {
        let r = step(&mut set, &mut physics);
        events += r.instance(h).events.len();
        broken += r.instance(h).broken.len();
    }
    assert!(
        events >= 1 && broken >= 4,
        "{events} events, {broken} bonds broken"
    );
    // Freed chunks are dynamic: the pusher shoves them on through the solver.
    let moving = set
        .cluster_bodies(h)
        .unwrap()
        .values()
        .filter(|&&rb| physics.bodies[rb].is_dynamic() && physics.bodies[rb].translation().z > 0.5)
        .count();
    assert!(moving >= 1, "pieces pushed out of the wall plane");
    // A pusher crawling below the approach-speed gate breaks nothing.
    let mut physics = game_world();
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    let h = spawn(&mut set, &mut physics, &asset, 0.0);
    let slow = physics.insert_body(
        RigidBodyBuilder::kinematic_velocity_based()
            .translation(Vec3::new(0.75, 0.5, -0.6))
            .linvel(Vec3::new(0.0, 0.0, 0.5)),
    );
    physics.insert_collider(ColliderBuilder::cuboid(0.5, 0.4, 0.5), Some(slow));
    for _ in 0..40 {
        step(&mut set, &mut physics);
    }
    assert_eq!(set.instance(h).unwrap().broken_count(), 0);
}

#[test]
fn projectiles_beyond_the_physical_limits_are_refused_and_add_nothing() {
    use smithereens_rapier::{MAX_PROJECTILE_MASS, MAX_PROJECTILE_SPEED, ProjectileDesc};
    let mut physics = game_world();
    let n = physics.bodies.len();
    let ok = ProjectileDesc {
        position: Vec3::ZERO,
        velocity: Vec3::X,
        radius: 0.3,
        mass: 450.0,
    };
    for p in [
        ProjectileDesc { mass: 1.0e9, ..ok },
        ProjectileDesc {
            mass: MAX_PROJECTILE_MASS * 1.01,
            ..ok
        },
        ProjectileDesc {
            velocity: Vec3::X * (MAX_PROJECTILE_SPEED + 1.0),
            ..ok
        },
        ProjectileDesc {
            mass: f32::NAN,
            ..ok
        },
    ] {
        assert!(matches!(
            smithereens_rapier::world::insert_projectile(&mut physics, &p, 0.7, 0.1),
            Err(BackendError::BadSetting { .. })
        ));
    }
    assert_eq!(physics.bodies.len(), n);
    assert!(smithereens_rapier::world::insert_projectile(&mut physics, &ok, 0.7, 0.1).is_ok());
}

#[test]
fn every_single_byte_corruption_of_a_save_is_a_typed_error() {
    let asset = wall();
    let mut physics = game_world();
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    spawn(&mut set, &mut physics, &asset, 0.0);
    ball(
        &mut physics,
        Vec3::new(0.75, 0.6, -1.0),
        Vec3::new(0.0, 0.0, 25.0),
        300.0,
    );
    for _ in 0..5 {
        step(&mut set, &mut physics);
    }
    let bytes = set.snapshot_with(&physics).unwrap();
    let assets = [asset.clone()];
    // One flip at every 7th byte, whole-byte inversions (a bit-flip fuzz of the
    // unsealed format restored worlds that then panicked inside Rapier).
    for k in (0..bytes.len()).step_by(7) {
        let mut bad = bytes.clone();
        bad[k] ^= 0xA5;
        assert!(
            matches!(
                DestructionSet::restore_with(&bad, &assets),
                Err(smithereens_rapier::SetSnapshotError::Decode(_))
            ),
            "byte {k} of {}",
            bytes.len()
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(
        DestructionSet::restore_with(&longer, &assets).is_err(),
        "trailing byte"
    );
    assert!(DestructionSet::restore_with(&bytes, &assets).is_ok());
}

#[test]
fn set_snapshots_of_formats_4_to_12_without_stress_preparations_reduced_solve_places_the_stress_budget_render_only_debris_the_flight_log_stress_the_body_allowance_parting_list_or_rest_probes_still_restore()
 {
    let asset = wall();
    let mut physics = game_world();
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    spawn(&mut set, &mut physics, &asset, 0.0);
    for _ in 0..3 {
        step(&mut set, &mut physics);
    }
    // Format 7 is the format byte, the settings (ending with
    // `new_bodies_per_frame`, 16: one byte), the rest of the head, the two
    // parting lists and the rest probes (all empty here: one zero byte
    // each), then the 8-byte checksum. Format 6 is the same without the
    // allowance byte; format 5 also without the probes, format 4 also
    // without the lists.
    // Format 8 appends the stress of instances, the loads' owners and the
    // load runs (empty here: one zero byte each) to format 7; format 9 the
    // fast bodies' flight log (empty here: one zero byte); format 10 the
    // render-only debris settings and the particle lists (empty here: one
    // zero byte); format 11 the stress budget at the end of the settings;
    // format 12 a reduced solve's place in each stress solve in progress,
    // format 13 the clusters each instance's stress is preparing (no
    // stress here: format 11's and 12's bytes are today's).
    let v13 = set.snapshot().unwrap();
    let today = v13[..v13.len() - 8].to_vec();
    assert_eq!(today[0], 13, "format byte");
    let mut v12 = today.clone();
    v12[0] = 12;
    let mut v11 = today.clone();
    v11[0] = 11;
    let settings = postcard::to_stdvec(set.settings()).unwrap();
    assert_eq!(&today[1..1 + settings.len()], &settings[..]);
    let budget = postcard::to_stdvec(&set.settings().stress_work_per_frame).unwrap();
    assert_eq!(&settings[settings.len() - budget.len()..], &budget[..]);
    let mut v10 = today.clone();
    v10.drain(1 + settings.len() - budget.len()..1 + settings.len());
    v10[0] = 10;
    let today = v10.clone();
    let debris = postcard::to_stdvec(set.debris_settings()).unwrap();
    let cut = debris.len() + 1;
    assert_eq!(&today[today.len() - cut..today.len() - 1], &debris[..]);
    assert_eq!(today.last(), Some(&0));
    let mut v9 = today[..today.len() - cut].to_vec();
    v9[0] = 9;
    let today = v9.clone();
    assert_eq!(&today[today.len() - 4..], &[0, 0, 0, 0]);
    let mut v8 = today[..today.len() - 1].to_vec();
    v8[0] = 8;
    let mut v7 = today[..today.len() - 4].to_vec();
    v7[0] = 7;
    let body = &v7[..];
    let settings = &settings[..settings.len() - budget.len()];
    assert_eq!(&body[1..1 + settings.len()], settings);
    assert_eq!(settings.last(), Some(&16));
    let mut v6 = body.to_vec();
    v6.remove(settings.len());
    v6[0] = 6;
    let body = &v6[..];
    assert_eq!(&body[body.len() - 3..], &[0, 0, 0]);
    let seal = |mut bytes: Vec<u8>| {
        let mut h = smithereens_core::hash::StateHasher::new();
        h.write(&bytes);
        bytes.extend_from_slice(&h.finish().to_le_bytes());
        bytes
    };
    for old in [v12, v11, v10, v9, v8, v7.clone()] {
        let restored =
            DestructionSet::restore(&seal(old), std::slice::from_ref(&asset), &physics).unwrap();
        assert_eq!(restored.state_hash(&physics), set.state_hash(&physics));
    }
    for (format, cut) in [(6u8, 0usize), (5, 1), (4, 3)] {
        let mut old = body[..body.len() - cut].to_vec();
        old[0] = format;
        let restored =
            DestructionSet::restore(&seal(old), std::slice::from_ref(&asset), &physics).unwrap();
        assert_eq!(restored.state_hash(&physics), set.state_hash(&physics));
    }
    // A format the build does not know is a typed error.
    let mut v14 = v13[..v13.len() - 8].to_vec();
    v14[0] = 14;
    assert!(matches!(
        DestructionSet::restore(&seal(v14), std::slice::from_ref(&asset), &physics),
        Err(smithereens_rapier::SetSnapshotError::Format(14))
    ));
    let mut old = body[..body.len() - 3].to_vec();
    old[0] = 4;
    let mut restored =
        DestructionSet::restore(&seal(old), std::slice::from_ref(&asset), &physics).unwrap();
    step(&mut restored, &mut physics);
}
