//! Per-step work follows activity: a 100-instance world where nothing
//! breaks (half its walls with stress on, one carrying a resting crate)
//! makes no heap allocation inside the library's per-step calls
//! (`before_step`, `after_step`) over 600 steps after warm-up, counted by a
//! global allocator, and none with the re-running stepper
//! (`step_resolving_breaks`) either. Rapier's own step belongs to the game
//! and is not counted.
//!
//! This file is its own test binary, so the counting allocator sees only it.

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_core::fixtures::{chain, grid_desc};
use smithereens_core::instance::InstanceDesc;
use smithereens_core::stress::{Material, StressDesc, StressMaterials};
use smithereens_core::{Asset, Pose};
use smithereens_rapier::world::insert_ground;
use smithereens_rapier::{
    DestructionSet, DestructionSettings, RecyclePolicy, WorldSettings, new_physics_world,
};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use std::alloc::System;
use std::sync::Arc;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn idle_steps_of_a_100_instance_world_allocate_nothing_in_the_library() {
    let mut physics = new_physics_world(&WorldSettings::default());
    insert_ground(&mut physics, 0.0, 0.7);
    let settings = DestructionSettings {
        // Recycling on, so the sleep bookkeeping runs too (nothing here is small enough to recycle).
        recycle: Some(RecyclePolicy {
            after: 2.0,
            max_chunks: 0,
        }),
        ..Default::default()
    };
    let mut set = DestructionSet::new(settings).unwrap();
    let wall = Arc::new(Asset::new(&grid_desc(5, 4, 2, 0.25, 2400.0, 1500.0)).unwrap());
    // Unsupported three-chunk rods: dynamic bodies that fall, settle and sleep.
    let rod = Arc::new(chain(3, &[(0, 1), (1, 2)], &[]).unwrap());
    for k in 0..100 {
        let at = Vec3::new((k % 10) as f32 * 3.0, 0.0, (k / 10) as f32 * 3.0);
        let (asset, at) = if k % 10 == 9 {
            (rod.clone(), at + Vec3::new(0.0, 0.6, 0.0))
        } else {
            (wall.clone(), at)
        };
        let h = set
            .spawn(
                &mut physics,
                asset,
                Pose::from_translation(at),
                InstanceDesc::default(),
            )
            .unwrap();
        // Stress on every other wall (issue 13): solved once, then idle.
        if k % 2 == 0 && k % 10 != 9 {
            let desc = StressDesc::new(StressMaterials::uniform(Material::CONCRETE));
            set.enable_stress(&mut physics, h, desc).unwrap();
        }
    }
    // A crate resting on the first (stressed) wall: a sustained load that
    // falls asleep with it.
    physics.insert(
        RigidBodyBuilder::dynamic().translation(Vec3::new(0.6, 1.0 + 0.2 + 0.001, 0.25)),
        ColliderBuilder::cuboid(0.2, 0.2, 0.2).density(500.0),
    );
    // A game ball that keeps rolling far away: awake, foreign, never touching a chunk.
    let ball = physics.insert_body(
        RigidBodyBuilder::dynamic()
            .translation(Vec3::new(-50.0, 0.5, 0.0))
            .linvel(Vec3::new(-3.0, 0.0, 0.0))
            .can_sleep(false),
    );
    physics.insert_collider(ColliderBuilder::ball(0.5), Some(ball));
    fn step(set: &mut DestructionSet, physics: &mut PhysicsWorld) -> usize {
        step_quiet(set, physics, true)
    }
    fn step_quiet(set: &mut DestructionSet, physics: &mut PhysicsWorld, quiet: bool) -> usize {
        let region = Region::new(GLOBAL);
        set.before_step(physics);
        let before = region.change().allocations;
        physics.step_with_events(&(), set.events());
        let region = Region::new(GLOBAL);
        let report = set.after_step(physics);
        let after = region.change().allocations;
        assert!(report.failed.is_empty() && report.stress_errors.is_empty());
        assert!(
            !quiet || report.instances.is_empty(),
            "{:?}",
            report.instances
        );
        drop(report);
        before + after
    }
    // Warm-up: the rods land and fall asleep, tables grow to their size.
    // The counter counts: the first step grows the pre-step and awake tables.
    // (Stress solves each stressed wall at the first step, and the crate's
    // wall again once the crate has settled: reported, not quiet.)
    assert!(step_quiet(&mut set, &mut physics, false) > 0);
    for _ in 0..300 {
        step_quiet(&mut set, &mut physics, false);
    }
    let asleep = set
        .instances()
        .flat_map(|(h, _)| {
            set.cluster_bodies(h)
                .unwrap()
                .values()
                .copied()
                .collect::<Vec<_>>()
        })
        .filter(|&rb| physics.bodies[rb].is_dynamic())
        .filter(|&rb| physics.bodies[rb].is_sleeping())
        .count();
    assert_eq!(asleep, 10, "the ten rods sleep");
    // The 32 kg crate rests on six 0.25 m chunks: six loads summing to its
    // weight within 10 % (each holds its last steady sample, not all from
    // the same step).
    let first = set.instances().next().unwrap().0;
    let stress = set.stress(first).unwrap().unwrap();
    assert_eq!(stress.loads().count(), 6);
    let total: f32 = stress.loads().map(|(_, l)| -l.force.y).sum();
    assert!((total - 32.0 * 9.81).abs() < 0.1 * 32.0 * 9.81, "{total} N");
    let allocations: usize = (0..600).map(|_| step(&mut set, &mut physics)).sum();
    assert_eq!(
        allocations, 0,
        "heap allocations inside the library over 600 idle steps"
    );
    // The same with the re-running stepper (issue 11, item 2): saving the
    // awake bodies and looking for projectile hits allocate nothing either.
    fn step_resolving(set: &mut DestructionSet, physics: &mut PhysicsWorld) -> usize {
        let mut rapier = 0;
        let region = Region::new(GLOBAL);
        let report = set.step_resolving_breaks(physics, &mut |physics, events| {
            let inner = Region::new(GLOBAL);
            physics.step_with_events(&(), events);
            rapier += inner.change().allocations;
        });
        let total = region.change().allocations;
        assert!(report.instances.is_empty() && !report.rerun);
        drop(report);
        total - rapier
    }
    for _ in 0..10 {
        step_resolving(&mut set, &mut physics);
    }
    let allocations: usize = (0..600)
        .map(|_| step_resolving(&mut set, &mut physics))
        .sum();
    assert_eq!(
        allocations, 0,
        "heap allocations inside the library over 600 idle re-running steps"
    );
    assert!(
        physics.bodies[ball].translation().x < -60.0,
        "the game ball kept moving"
    );
}

/// Runs without libtest's harness (`harness = false` in Cargo.toml): the
/// allocation counter is global, and the harness's main thread does its
/// own bookkeeping while a test runs on another thread (one 96-byte
/// allocation counted inside a measured section: a CI flake), so the check
/// runs on the main thread alone.
fn main() {
    idle_steps_of_a_100_instance_world_allocate_nothing_in_the_library();
}
