//! Per-step work follows activity: resting contacts are not watched, cluster
//! motions are synced lazily yet events are measured where the pieces are
//! now, and the sleep sweep notices every body that falls asleep even when
//! it visits one body per step.

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_core::fixtures::{cube_chunk, grid_desc};
use smithereens_core::instance::InstanceDesc;
use smithereens_core::{Asset, AssetDesc, EventId, Pose, RadialDamage};
use smithereens_rapier::set::RecyclePolicy;
use smithereens_rapier::world::insert_ground;
use smithereens_rapier::{
    DestructionSet, DestructionSettings, InstanceHandle, SetStepReport, WorldSettings,
    new_physics_world,
};
use std::sync::Arc;

fn step(set: &mut DestructionSet, physics: &mut PhysicsWorld) -> SetStepReport {
    set.before_step(physics);
    physics.step_with_events(&(), set.events());
    let r = set.after_step(physics);
    assert!(r.failed.is_empty());
    r
}

/// `n` loose 0.2 m cubes (unbonded, unsupported) in a row, resting on the ground.
fn debris(n: u32) -> Arc<Asset> {
    let mut desc = AssetDesc::default();
    for k in 0..n {
        desc.chunks.push(cube_chunk(
            Vec3::new(k as f32 * 0.5, 0.1, 0.0),
            0.2,
            1000.0,
            false,
        ));
    }
    Arc::new(Asset::new(&desc).unwrap())
}

fn world() -> PhysicsWorld {
    let mut physics = new_physics_world(&WorldSettings::default());
    insert_ground(&mut physics, 0.0, 0.8);
    physics
}

/// An unsupported `nx × 1 × nz` slab of bonded 0.5 m cubes spawned at
/// height `y` m (its asset origin) above the ground, in a fresh world and set.
fn dropped_slab(nx: u32, nz: u32, y: f32) -> (PhysicsWorld, DestructionSet, InstanceHandle) {
    let mut desc = grid_desc(nx, 1, nz, 0.5, 1000.0, 100.0);
    for c in &mut desc.chunks {
        c.support = false;
    }
    let asset = Arc::new(Asset::new(&desc).unwrap());
    let mut physics = world();
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    let h = set
        .spawn(
            &mut physics,
            asset,
            Pose::from_translation(Vec3::new(0.0, y, 0.0)),
            InstanceDesc::default(),
        )
        .unwrap();
    (physics, set, h)
}

#[test]
fn resting_contacts_are_not_watched_even_while_awake() {
    let mut physics = world();
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    set.spawn(
        &mut physics,
        debris(50),
        Pose::from_translation(Vec3::new(0.0, 0.002, 0.0)),
        InstanceDesc::default(),
    )
    .unwrap();
    // The cubes touch down: each new contact with the ground is watched.
    let mut most = 0;
    for _ in 0..5 {
        step(&mut set, &mut physics);
        most = most.max(set.watched_contacts());
    }
    assert!(most >= 50, "every landing is watched ({most})");
    for _ in 0..20 {
        step(&mut set, &mut physics);
    }
    assert_eq!(set.watched_contacts(), 0, "resting contacts are forgotten");
    // Keep them awake: still nothing to watch, whatever the number of contacts.
    for _ in 0..30 {
        let awake: Vec<_> = physics.bodies.iter().map(|(h, _)| h).collect();
        for h in awake {
            physics.wake_up(h, true);
        }
        step(&mut set, &mut physics);
        assert_eq!(set.watched_contacts(), 0);
    }
    assert!(physics.islands.num_active_bodies() >= 50);
}

#[test]
fn an_event_is_measured_where_a_falling_piece_is_now() {
    // Two bonded, unsupported cubes dropped from 3 m: after 0.5 s they have
    // fallen 1.2 m; a small blast where they are now must break their bond.
    let (mut physics, mut set, h) = dropped_slab(2, 1, 3.0);
    for _ in 0..30 {
        step(&mut set, &mut physics);
    }
    let (&cluster, &rb) = set.cluster_bodies(h).unwrap().iter().next().unwrap();
    let com = physics.bodies[rb].center_of_mass();
    assert!(com.y < 2.1, "the pair fell ({com})");
    set.admit(
        &physics,
        h,
        RadialDamage {
            id: EventId(1),
            point: com,
            radius: 0.3,
            damage: 1000.0,
            impulse: None,
        },
    )
    .unwrap();
    let r = step(&mut set, &mut physics);
    assert_eq!(
        r.instance(h).broken.len(),
        1,
        "the bond broke where the pair is"
    );
    // The pair split in two: one half keeps the cluster's handle (issue 12),
    // the other is a new cluster.
    assert_eq!(r.instance(h).shrunk, vec![cluster]);
    assert_eq!(r.instance(h).created.len(), 1);
    assert!(r.instance(h).removed.is_empty());
}

/// A falling 4 × 1 × 4 slab of bonded 0.5 m cubes is split into its 16
/// cubes by a blast with no impulse, in mid-air and spinning. The cubes
/// inherit one rigid motion, so their contacts with each other (face and
/// edge neighbours: 42 pairs) start with no relative velocity: they are
/// resting contacts from their first step and are not watched. Before this
/// rule all 42 were read for four steps (on a bridge deck broken into 347
/// pieces: 4,140 pairs, 2–4 ms a step). Their landing on the ground, later,
/// is watched.
#[test]
fn the_pieces_of_a_split_are_not_watched_against_each_other() {
    let (mut physics, mut set, h) = dropped_slab(4, 4, 6.0);
    let rb = *set.cluster_bodies(h).unwrap().values().next().unwrap();
    physics.bodies[rb].set_angvel(Vec3::new(0.3, 1.0, -0.2), true);
    for _ in 0..10 {
        step(&mut set, &mut physics);
    }
    let com = physics.bodies[rb].center_of_mass();
    set.admit(
        &physics,
        h,
        RadialDamage {
            id: EventId(1),
            point: com,
            radius: 5.0,
            damage: 1.0e9,
            impulse: None,
        },
    )
    .unwrap();
    let r = step(&mut set, &mut physics);
    assert_eq!(r.instance(h).broken.len(), 24, "every bond broke");
    assert_eq!(set.cluster_bodies(h).unwrap().len(), 16);
    for _ in 0..5 {
        step(&mut set, &mut physics);
        assert_eq!(set.watched_contacts(), 0, "no neighbour pair is watched");
    }
    // The cubes still fall and land, and landing is watched.
    let mut most = 0;
    for _ in 0..120 {
        step(&mut set, &mut physics);
        most = most.max(set.watched_contacts());
    }
    assert!(most >= 4, "the landings are watched ({most})");
}

#[test]
fn sync_instances_brings_core_motions_up_to_date() {
    let mut physics = world();
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    let h = set
        .spawn(
            &mut physics,
            debris(1),
            Pose::from_translation(Vec3::new(0.0, 2.0, 0.0)),
            InstanceDesc::default(),
        )
        .unwrap();
    for _ in 0..20 {
        step(&mut set, &mut physics);
    }
    let (&cluster, &rb) = set.cluster_bodies(h).unwrap().iter().next().unwrap();
    let live = physics.bodies[rb].translation();
    set.sync_instances(&physics);
    let core = set.instance(h).unwrap().cluster(cluster).unwrap().motion;
    assert_eq!(core.pose.translation, live);
    assert_eq!(core.velocity.linear, physics.bodies[rb].linvel());
}

#[test]
fn a_one_body_sweep_still_recycles_every_sleeping_piece() {
    let mut physics = world();
    let mut set = DestructionSet::new(DestructionSettings {
        sleep_sweep: 1,
        recycle: Some(RecyclePolicy {
            after: 0.5,
            max_chunks: 4,
        }),
        ..Default::default()
    })
    .unwrap();
    let h = set
        .spawn(
            &mut physics,
            debris(12),
            Pose::from_translation(Vec3::new(0.0, 0.3, 0.0)),
            InstanceDesc::default(),
        )
        .unwrap();
    let mut recycled = 0;
    let mut steps = 0;
    while recycled < 12 {
        recycled += step(&mut set, &mut physics).instance(h).recycled.len();
        steps += 1;
        assert!(steps < 1200, "only {recycled} of 12 recycled after 20 s");
    }
    assert!(set.cluster_bodies(h).unwrap().is_empty());
}

/// The rest rule (`smithereens_rapier::set::rest`) lets a piece that stays
/// within 20 cm for a second sleep; a piece riding a slow kinematic
/// platform (0.1 m/s, so 10 cm a second) must still ride it: Rapier wakes
/// what a moving kinematic body touches. After 5 s the cube has moved with
/// the platform, not stayed behind asleep in mid-air.
#[test]
fn a_piece_riding_a_slow_kinematic_platform_keeps_riding_it() {
    let mut physics = new_physics_world(&WorldSettings::default());
    let platform = physics.insert_body(
        RigidBodyBuilder::kinematic_velocity_based()
            .translation(Vec3::new(0.0, 0.5, 0.0))
            .linvel(Vec3::new(0.1, 0.0, 0.0)),
    );
    physics.insert_collider(
        ColliderBuilder::cuboid(3.0, 0.1, 3.0).friction(1.0),
        Some(platform),
    );
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    let h = set
        .spawn(
            &mut physics,
            debris(1),
            Pose::from_translation(Vec3::new(0.0, 0.601, 0.0)),
            InstanceDesc::default(),
        )
        .unwrap();
    let rb = *set.cluster_bodies(h).unwrap().values().next().unwrap();
    let mut raised = 0;
    for _ in 0..300 {
        step(&mut set, &mut physics);
        raised += (physics.bodies[rb].activation().normalized_linear_threshold
            == smithereens_rapier::set::rest::REST_SLEEP_THRESHOLD) as u32;
    }
    // The rule did take it for resting (10 cm a second) and raised its
    // sleep threshold; riding on is Rapier's doing (it wakes what a moving
    // kinematic body touches).
    assert!(raised > 0, "the rest rule never engaged");
    let cube = physics.bodies[rb].translation();
    let under = physics.bodies[platform].translation();
    assert!(
        (under.x - 0.5).abs() < 0.01,
        "the platform moved {} m",
        under.x
    );
    assert!(
        (cube.x - under.x).abs() < 0.02 && (cube.y - 0.7).abs() < 0.01,
        "the cube is at {cube:?}, the platform at {under:?}"
    );
}
