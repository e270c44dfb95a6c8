//! Issue 11, item 3: a loose piece still in the hole it broke from is
//! reported wedged, not left as a silent dynamic body; one that left and
//! rests on the ground is supported.

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_core::asset::{BondDesc, BondEnd};
use smithereens_core::fixtures::cube_chunk;
use smithereens_core::instance::InstanceDesc;
use smithereens_core::{Asset, AssetDesc, EventId, FalloffDamage, Pose};
use smithereens_rapier::{
    DestructionSet, DestructionSettings, Hold, InstanceHandle, WorldSettings, new_physics_world,
};
use std::sync::Arc;

/// Two 1 m cubes stacked on a 4 m ground slab: the bottom one a support,
/// the top one bonded to it (10 du).
fn stack() -> (PhysicsWorld, DestructionSet, InstanceHandle) {
    let mut physics = new_physics_world(&WorldSettings::default());
    let ground =
        physics.insert_body(RigidBodyBuilder::fixed().translation(Vec3::new(0.0, -0.5, 0.0)));
    physics.insert_collider(ColliderBuilder::cuboid(4.0, 0.5, 4.0), Some(ground));
    let desc = AssetDesc {
        chunks: vec![
            cube_chunk(Vec3::new(0.0, 0.5, 0.0), 1.0, 1000.0, true),
            cube_chunk(Vec3::new(0.0, 1.5, 0.0), 1.0, 1000.0, false),
        ],
        bonds: vec![BondDesc {
            chunk0: 0,
            chunk1: BondEnd::Chunk(1),
            centroid: Vec3::new(0.0, 1.0, 0.0),
            normal: Vec3::Y,
            area: 1.0,
            strength: 10.0,
        }],
        support_depth: None,
    };
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    let h = set
        .spawn(
            &mut physics,
            Arc::new(Asset::new(&desc).unwrap()),
            Pose::IDENTITY,
            InstanceDesc::default(),
        )
        .unwrap();
    (physics, set, h)
}

/// Steps `n` times; returns every cluster reported wedged.
fn run(
    set: &mut DestructionSet,
    physics: &mut PhysicsWorld,
    h: InstanceHandle,
    n: usize,
) -> Vec<smithereens_core::ClusterHandle> {
    let mut wedged = Vec::new();
    for _ in 0..n {
        set.before_step(physics);
        physics.step_with_events(&(), set.events());
        let r = set.after_step(physics);
        wedged.extend(r.instance(h).wedged);
    }
    wedged
}

/// Breaks the bond by scripted damage (no blast, no hit: no impulse, so
/// the freed cube stays where it was, on the support below it).
fn break_bond(set: &mut DestructionSet, physics: &PhysicsWorld, h: InstanceHandle) {
    set.admit(
        physics,
        h,
        FalloffDamage {
            id: EventId(1),
            point: Vec3::new(0.0, 1.0, 0.0),
            inner_radius: 0.5,
            outer_radius: 1.0,
            damage: 100.0,
            impulse: None,
        },
    )
    .unwrap();
}

/// The dynamic cluster of `h` (the freed top cube).
fn freed(
    set: &DestructionSet,
    physics: &PhysicsWorld,
    h: InstanceHandle,
) -> (smithereens_core::ClusterHandle, RigidBodyHandle) {
    let (c, rb) = set
        .cluster_bodies(h)
        .unwrap()
        .iter()
        .find(|(_, rb)| physics.bodies[**rb].is_dynamic())
        .map(|(c, rb)| (*c, *rb))
        .unwrap();
    (c, rb)
}

#[test]
fn a_freed_piece_resting_in_its_hole_is_reported_wedged_once_asleep() {
    let (mut physics, mut set, h) = stack();
    break_bond(&mut set, &physics, h);
    // 4 s: Rapier puts a body to sleep after 2 s at rest.
    let wedged = run(&mut set, &mut physics, h, 240);
    let (c, rb) = freed(&set, &physics, h);
    assert!(
        physics.bodies[rb].is_sleeping(),
        "the freed cube came to rest"
    );
    assert_eq!(wedged, vec![c], "reported once, when it fell asleep");
    assert_eq!(set.hold(&physics, h, c), Some(Hold::Wedged));
    // It did not move: 1.5 m up, where it was placed.
    assert!((physics.bodies[rb].translation().y - 1.5).abs() < 0.01);
}

#[test]
fn a_piece_that_left_its_hole_and_rests_on_the_ground_is_supported() {
    let (mut physics, mut set, h) = stack();
    break_bond(&mut set, &physics, h);
    run(&mut set, &mut physics, h, 2);
    let (c, rb) = freed(&set, &physics, h);
    assert_eq!(
        set.hold(&physics, h, c),
        Some(Hold::Wedged),
        "still in place"
    );
    // Knocked off the support: it lands on the ground slab beside it.
    physics.bodies[rb].set_linvel(Vec3::new(4.0, 2.0, 0.0), true);
    let wedged = run(&mut set, &mut physics, h, 300);
    assert!(wedged.is_empty(), "{wedged:?}");
    let p = physics.bodies[rb].translation();
    assert!(p.x > 1.0 && p.y < 0.6, "on the ground at {p}");
    assert_eq!(set.hold(&physics, h, c), Some(Hold::Supported));
}

#[test]
fn without_gravity_nothing_is_wedged_or_supported() {
    let (mut physics, mut set, h) = stack();
    physics.gravity = Vec3::ZERO;
    break_bond(&mut set, &physics, h);
    run(&mut set, &mut physics, h, 2);
    let (c, _) = freed(&set, &physics, h);
    assert_eq!(set.hold(&physics, h, c), None);
    // A fixed cluster has no hold either.
    let fixed = *set
        .cluster_bodies(h)
        .unwrap()
        .iter()
        .find(|(_, rb)| physics.bodies[**rb].is_fixed())
        .unwrap()
        .0;
    assert_eq!(set.hold(&physics, h, fixed), None);
}
