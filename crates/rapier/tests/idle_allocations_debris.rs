//! Render-only debris in flight costs no allocation (issue 12 item 7): after
//! a blast turns the top of a wall into particles (no body slot left), the
//! library's per-step calls (`before_step`, `after_step`) make no heap
//! allocation while they fall, land and once they sleep, counted by a
//! global allocator. Rapier's own step belongs to the game and is not
//! counted.
//!
//! This file is its own test binary, so the counting allocator sees only it.

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_core::budget::BudgetDesc;
use smithereens_core::fixtures::grid_desc;
use smithereens_core::instance::InstanceDesc;
use smithereens_core::{Asset, EventId, Pose};
use smithereens_rapier::world::insert_ground;
use smithereens_rapier::{
    DestructionSet, DestructionSettings, Explosion, InstanceHandle, WorldSettings,
    new_physics_world,
};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use std::alloc::System;
use std::sync::Arc;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Library allocations of one step (before_step + after_step).
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

fn awake(set: &DestructionSet, h: InstanceHandle) -> u32 {
    set.render_debris(h).unwrap().awake()
}

fn render_only_debris_in_flight_allocates_nothing_in_the_library() {
    let mut physics = new_physics_world(&WorldSettings::default());
    insert_ground(&mut physics, 0.0, 0.7);
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    // A 6 × 8 × 2 wall of 0.25 m cubes, bottom row supported, no body slot:
    // everything that breaks off is render-only debris.
    let wall = Arc::new(Asset::new(&grid_desc(6, 8, 2, 0.25, 2400.0, 1500.0)).unwrap());
    let desc = InstanceDesc {
        budget: BudgetDesc {
            body_slots: 0,
            ..BudgetDesc::default()
        },
        ..InstanceDesc::default()
    };
    let h = set.spawn(&mut physics, wall, Pose::IDENTITY, desc).unwrap();
    set.explode(
        &physics,
        h,
        Explosion {
            id: EventId(1),
            point: Vec3::new(0.75, 1.75, 0.25),
            radius: 1.0,
            damage: 1.0e9,
            impulse: 0.0,
            inner_radius: 0.9,
        },
    )
    .unwrap();
    step(&mut set, &mut physics); // the commit: allocates, not counted
    let debris = set.render_debris(h).unwrap().len();
    assert!(debris >= 20, "only {debris} particles");
    assert_eq!(
        physics.bodies.len(),
        2,
        "the ground and the wall's fixed remainder only"
    );
    // Warm-up step, then the particles fall (≈ 0.5 s from 2 m).
    step(&mut set, &mut physics);
    let (mut flight, mut steps, mut landing) = (0, 0, 0);
    for _ in 0..600 {
        if awake(&set, h) == 0 {
            break;
        }
        let n = step(&mut set, &mut physics);
        if awake(&set, h) as usize == debris {
            flight += n;
            steps += 1;
        } else {
            // Steps in which particles fell asleep: the set's reused buffer
            // of sleepers may grow.
            landing += n;
        }
    }
    assert!(steps >= 10, "in flight for only {steps} steps");
    assert_eq!(flight, 0, "allocations over {steps} steps of flight");
    assert_eq!(awake(&set, h), 0, "every particle came to rest");
    assert!(landing <= 1, "{landing} allocations while landing");
    let idle: usize = (0..300).map(|_| step(&mut set, &mut physics)).sum();
    assert_eq!(
        idle, 0,
        "allocations over 300 idle steps with resting debris"
    );
}

/// Runs without libtest's harness (`harness = false` in Cargo.toml): the
/// allocation counter is global, and the harness's main thread does its
/// own bookkeeping while a test runs on another thread (one 96-byte
/// allocation counted inside a measured section: a CI flake), so the check
/// runs on the main thread alone.
fn main() {
    render_only_debris_in_flight_allocates_nothing_in_the_library();
}
