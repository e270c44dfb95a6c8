//! Freed pieces part from the fixed chunks of their instance (not solved
//! against them) while they move out; a piece still inside when
//! `PARTING_LIMIT` runs out goes on parting while it is more than
//! `PARTING_DEPTH` inside, and a shallower one is pushed out gently.
//!
//! Before `PARTING_DEPTH`, a piece still inside at the limit was solved
//! against the fixed part at once, wherever it was: in `tower-gravity`
//! pieces lying 5–10 cm into the stump jumped at 3–6 m/s and drove a
//! neighbour 19.7 cm into the ground.

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use glam::Vec3;
use smithereens_core::fixtures::grid_desc;
use smithereens_core::{Asset, ChunkIndex, EventId, Pose};
use smithereens_rapier::set::{PARTING_DEPTH, PARTING_LIMIT, PARTING_STEPS};
use smithereens_rapier::{DestructionWorld, Explosion, WorldSettings};
use std::sync::Arc;

/// A 2 × 2 grid of 1 m cubes (bottom row fixed) whose top-right cube (chunk
/// 3) a blast has freed; the freed cube is then set on the ground beside
/// the grid, `depth` m into the fixed bottom-right cube (chunk 1), at rest.
/// Returns the world and the freed cube's body.
fn freed_cube_inside(depth: f32) -> (DestructionWorld, rapier3d::prelude::RigidBodyHandle) {
    let asset = Arc::new(Asset::new(&grid_desc(2, 2, 1, 1.0, 1000.0, 10.0)).unwrap());
    let mut world = DestructionWorld::new(asset, Pose::IDENTITY, WorldSettings::default()).unwrap();
    world.step().unwrap();
    // A blast (pieces a blast frees part; a plain radial damage event's
    // do not).
    world
        .explode(Explosion {
            id: EventId(1),
            point: Vec3::new(1.5, 1.5, 0.5),
            radius: 0.6,
            damage: 1.0e6,
            impulse: 0.0,
            inner_radius: 0.6,
        })
        .unwrap();
    world.step().unwrap();
    let freed = world.instance().cluster_of(ChunkIndex(3)).unwrap();
    assert!(!world.instance().cluster(freed).unwrap().supported);
    assert_eq!(world.instance().cluster(freed).unwrap().nodes.len(), 1);
    let rb = world.cluster_bodies()[&freed];
    let body = &mut world.physics_mut().bodies[rb];
    body.set_position(
        rapier3d::math::Pose::from_parts(Vec3::new(2.5 - depth, 0.5, 0.5), glam::Quat::IDENTITY),
        true,
    );
    body.set_linvel(Vec3::ZERO, true);
    body.set_angvel(Vec3::ZERO, true);
    (world, rb)
}

/// Steps past the parting limit; returns the largest speed the body
/// reached after its first 30 steps (it settles onto the ground in those)
/// and its final x (m).
fn run_past_the_limit(
    world: &mut DestructionWorld,
    rb: rapier3d::prelude::RigidBodyHandle,
) -> (f32, f32) {
    let mut fastest = 0.0f32;
    for step in 0..(PARTING_STEPS + PARTING_LIMIT + 60) {
        world.step().unwrap();
        if step >= 30 {
            fastest = fastest.max(world.physics().bodies[rb].linvel().length());
        }
    }
    (fastest, world.physics().bodies[rb].translation().x)
}

#[test]
fn a_piece_deep_inside_the_fixed_part_goes_on_parting_past_the_limit() {
    let depth = 0.05;
    assert!(depth > PARTING_DEPTH);
    let (mut world, rb) = freed_cube_inside(depth);
    let (fastest, x) = run_past_the_limit(&mut world, rb);
    // Solved against the fixed cube 5 cm inside it, it was shot out.
    assert!(fastest < 0.1, "reached {fastest} m/s");
    assert!((x - (2.5 - depth)).abs() < 0.01, "moved to x = {x}");
}

#[test]
fn a_piece_shallowly_inside_is_pushed_out_gently_after_the_limit() {
    let depth = 0.005;
    assert!(depth < PARTING_DEPTH);
    let (mut world, rb) = freed_cube_inside(depth);
    let (fastest, x) = run_past_the_limit(&mut world, rb);
    assert!(fastest < 1.0, "reached {fastest} m/s");
    // Out of the fixed cube again, up to the solver's allowed penetration.
    assert!(x > 2.5 - 0.002, "still {} m inside", 2.5 - x);
}
