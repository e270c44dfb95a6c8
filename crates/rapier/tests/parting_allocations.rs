//! A freed piece that stays deep inside the fixed part it came from goes on
//! parting for as long as it is there (see `tests/parting.rs`); those steps
//! make no heap allocation inside the library's per-step calls
//! (`before_step`, `after_step`), counted by a global allocator. Rapier's
//! own step belongs to the game and is not counted.
//!
//! This file is its own test binary, so the counting allocator sees only it.

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_core::fixtures::grid_desc;
use smithereens_core::instance::InstanceDesc;
use smithereens_core::{Asset, ChunkIndex, EventId, Pose};
use smithereens_rapier::set::{PARTING_DEPTH, PARTING_LIMIT, PARTING_STEPS};
use smithereens_rapier::world::insert_ground;
use smithereens_rapier::{
    DestructionSet, DestructionSettings, Explosion, WorldSettings, new_physics_world,
};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use std::alloc::System;
use std::sync::Arc;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// One step; returns the allocations made inside the library's calls.
fn step(set: &mut DestructionSet, physics: &mut PhysicsWorld) -> usize {
    let region = Region::new(GLOBAL);
    set.before_step(physics);
    let before = region.change().allocations;
    physics.step_with_events(&(), set.events());
    let region = Region::new(GLOBAL);
    let report = set.after_step(physics);
    let after = region.change().allocations;
    assert!(report.failed.is_empty());
    drop(report);
    before + after
}

fn a_piece_parting_on_inside_the_fixed_part_allocates_nothing_per_step() {
    let mut physics = new_physics_world(&WorldSettings::default());
    insert_ground(&mut physics, 0.0, 0.7);
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    // A 2 × 2 grid of 1 m cubes, bottom row fixed; a blast frees the
    // top-right cube (chunk 3), which is then set 5 cm into the fixed
    // bottom-right cube (chunk 1), at rest on the ground.
    let asset = Arc::new(Asset::new(&grid_desc(2, 2, 1, 1.0, 1000.0, 10.0)).unwrap());
    let h = set
        .spawn(&mut physics, asset, Pose::IDENTITY, InstanceDesc::default())
        .unwrap();
    step(&mut set, &mut physics);
    set.explode(
        &physics,
        h,
        Explosion {
            id: EventId(1),
            point: Vec3::new(1.5, 1.5, 0.5),
            radius: 0.6,
            damage: 1.0e6,
            impulse: 0.0,
            inner_radius: 0.6,
        },
    )
    .unwrap();
    step(&mut set, &mut physics);
    let freed = set.instance(h).unwrap().cluster_of(ChunkIndex(3)).unwrap();
    let rb = set.cluster_bodies(h).unwrap()[&freed];
    let depth = 0.05;
    assert!(depth > PARTING_DEPTH);
    let placed = Vec3::new(2.5 - depth, 0.5, 0.5);
    let body = &mut physics.bodies[rb];
    body.set_position(
        rapier3d::math::Pose::from_parts(placed, glam::Quat::IDENTITY),
        true,
    );
    body.set_linvel(Vec3::ZERO, true);
    body.set_angvel(Vec3::ZERO, true);
    // Past the parting limit, so it parts on only because it is inside.
    for _ in 0..(PARTING_STEPS + PARTING_LIMIT + 30) {
        step(&mut set, &mut physics);
    }
    let allocations: usize = (0..120).map(|_| step(&mut set, &mut physics)).sum();
    // Still inside and still parting: solved against the fixed cube it
    // would have been pushed out (`tests/parting.rs`).
    let at = physics.bodies[rb].translation();
    assert!((at.x - placed.x).abs() < 0.01, "moved to x = {}", at.x);
    assert_eq!(allocations, 0, "allocations in 120 parting steps");
}

/// Runs without libtest's harness (`harness = false` in Cargo.toml): the
/// allocation counter is global, and the harness's main thread does its
/// own bookkeeping while a test runs on another thread (one 96-byte
/// allocation counted inside a measured section: a CI flake), so the check
/// runs on the main thread alone.
fn main() {
    a_piece_parting_on_inside_the_fixed_part_allocates_nothing_per_step();
}
