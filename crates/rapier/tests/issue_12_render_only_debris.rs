//! Issue 12 item 7: the body budget caps what Rapier simulates. With
//! `body_slots = 64`, ten blasts within one second shatter a 150-chunk wall
//! into single chunks: 64 of them are Rapier bodies, the other 86 are
//! render-only debris, which is no Rapier body but a particle the set moves
//! itself (`smithereens_rapier::debris`): it falls under gravity, lands on
//! the ground plane (never below it) and sleeps; its poses are reported;
//! the run is deterministic and a snapshot taken while particles are in
//! flight resumes bit for bit.

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use glam::Vec3;
use smithereens_core::budget::BudgetDesc;
use smithereens_core::fixtures::grid_desc;
use smithereens_core::instance::InstanceDesc;
use smithereens_core::record::pose_from_array;
use smithereens_core::{Asset, AssetFile, ChunkMesh, ClusterHandle, EventId, Pose};
use smithereens_rapier::recorded_run::{ScheduledExplosion, ScriptedRun};
use smithereens_rapier::{ColliderTag, DestructionWorld, Explosion, WorldSettings};
use std::collections::BTreeSet;
use std::sync::Arc;

const SLOTS: u32 = 64;
const SIZE: f32 = 0.25;

/// A free-standing 10 × 15 × 1 wall of 0.25 m cubes (150 chunks) resting on
/// the ground at y = 0, no support chunk: one dynamic body.
fn wall_desc() -> smithereens_core::AssetDesc {
    let mut desc = grid_desc(10, 15, 1, SIZE, 2400.0, 1500.0);
    desc.chunks.iter_mut().for_each(|c| c.support = false);
    desc
}

fn wall() -> Arc<Asset> {
    Arc::new(Asset::new(&wall_desc()).unwrap())
}

fn world() -> DestructionWorld {
    let desc = InstanceDesc {
        budget: BudgetDesc {
            body_slots: SLOTS,
            ..BudgetDesc::default()
        },
        ..InstanceDesc::default()
    };
    DestructionWorld::with_instance(wall(), desc, WorldSettings::default()).unwrap()
}

/// Blast `k` (0..10) is admitted at step `6k` (ten within one second at
/// 60 Hz), top blocks first: each shatters a 5 × 3 block of the wall.
fn blast(k: u32) -> Explosion {
    let (bx, by) = (k % 2, 4 - k / 2);
    Explosion {
        id: EventId(k as u64),
        point: Vec3::new(
            (bx as f32 * 5.0 + 2.5) * SIZE,
            (by as f32 * 3.0 + 1.5) * SIZE,
            0.5 * SIZE,
        ),
        radius: 0.9,
        damage: 1.0e9,
        impulse: 20.0,
        inner_radius: 0.85,
    }
}

/// Steps `from..to` of the scripted run; returns each step's state hash.
fn run(
    world: &mut DestructionWorld,
    from: u32,
    to: u32,
    mut each: impl FnMut(&DestructionWorld, &smithereens_rapier::StepReport),
) -> Vec<u64> {
    let mut hashes = Vec::new();
    for step in from..to {
        if step % 6 == 0 && step / 6 < 10 {
            world.explode(blast(step / 6)).unwrap();
        }
        let report = world.step().unwrap();
        each(world, &report);
        hashes.push(world.state_hash());
    }
    hashes
}

fn render_only_colliders(world: &DestructionWorld) -> usize {
    world
        .physics()
        .colliders
        .iter()
        .filter(|(h, _)| {
            matches!(
                world.set().collider_tag(*h),
                Some(ColliderTag::RenderOnly { .. })
            )
        })
        .count()
}

#[test]
fn render_only_debris_is_no_rapier_body_and_falls_to_rest_on_the_ground() {
    let mut world = world();
    assert_eq!(world.physics().bodies.len(), 2, "ground + the wall");
    let mut reported: BTreeSet<ClusterHandle> = BTreeSet::new();
    let mut max_bodies = 0;
    let mut lowest = f32::INFINITY;
    let mut start_y = std::collections::BTreeMap::new();
    let mut sideways = 0.0f32;
    run(&mut world, 0, 600, |w, r| {
        reported.extend(r.render_only.iter().copied());
        max_bodies = max_bodies.max(w.physics().bodies.len());
        for p in w.render_debris().particles() {
            lowest = lowest.min(p.lowest_point().unwrap());
            let v = p.state().linvel;
            sideways = sideways.max(v.x.hypot(v.z));
            start_y
                .entry(p.cluster())
                .or_insert(p.state().pose.translation.y);
            // Not a Rapier body, and its pose is reported like a body's.
            assert!(!w.cluster_bodies().contains_key(&p.cluster()));
            let c = w.instance().cluster(p.cluster()).unwrap();
            let expected = p.state().pose.mul(&Pose::from_translation(-c.mass.center));
            assert_eq!(w.cluster_asset_pose(p.cluster()), Some(expected));
        }
    });
    let debris = world.render_debris();
    // Every chunk broke off: 64 bodies (the budget), 86 particles.
    assert_eq!(world.instance().cluster_count(), 150);
    assert_eq!(world.cluster_bodies().len(), SLOTS as usize);
    assert_eq!(world.dynamic_body_count(), SLOTS as usize);
    assert_eq!(debris.len(), 150 - SLOTS as usize);
    // Rapier holds the ground and the 64 budgeted bodies, never more.
    assert_eq!(world.physics().bodies.len(), 1 + SLOTS as usize);
    assert_eq!(max_bodies, 1 + SLOTS as usize);
    assert_eq!(render_only_colliders(&world), 0);
    // The step reports listed exactly the particles as render-only.
    let particles: BTreeSet<ClusterHandle> =
        debris.particles().iter().map(|p| p.cluster()).collect();
    assert_eq!(reported, particles);
    // Never below the ground; all at rest on it at the end.
    assert!(
        lowest >= -1e-4,
        "a particle went {lowest} m below the ground"
    );
    for p in debris.particles() {
        let low = p.lowest_point().unwrap();
        assert!(p.is_asleep(), "{:?} still moving", p.state());
        assert!(low.abs() < 1e-3, "{:?} rests at {low} m", p.cluster());
    }
    // The ones made high up fell.
    let fell = debris
        .particles()
        .iter()
        .filter(|p| start_y[&p.cluster()] > 1.5)
        .inspect(|p| assert!(p.state().pose.translation.y < 0.5, "{:?}", p.state()))
        .count();
    assert!(fell > 20, "only {fell} particles started above 1.5 m");
    // The blasts pushed them as they push bodies (20 N·s at the centre).
    assert!(sideways > 0.5, "fastest sideways particle: {sideways} m/s");
    println!(
        "bodies: {} (max {max_bodies}), particles: {}, fell: {fell}, lowest: {lowest} m, sideways: {sideways} m/s",
        world.physics().bodies.len(),
        debris.len()
    );
}

#[test]
fn a_run_with_render_only_debris_is_deterministic() {
    let a = run(&mut world(), 0, 240, |_, _| {});
    let b = run(&mut world(), 0, 240, |_, _| {});
    assert_eq!(a, b);
}

#[test]
fn a_snapshot_with_particles_in_flight_resumes_bit_for_bit() {
    let mut world = world();
    run(&mut world, 0, 40, |_, _| {});
    let flying = world
        .render_debris()
        .particles()
        .iter()
        .filter(|p| !p.is_asleep())
        .count();
    assert!(
        flying > 10,
        "only {flying} particles in flight at the snapshot"
    );
    let bytes = world.snapshot().unwrap();
    let mut restored = DestructionWorld::restore(wall(), &bytes).unwrap();
    assert_eq!(restored.state_hash(), world.state_hash());
    assert_eq!(restored.render_debris(), world.render_debris());
    let a = run(&mut world, 40, 300, |_, _| {});
    let b = run(&mut restored, 40, 300, |_, _| {});
    assert_eq!(a, b);
    assert_eq!(restored.render_debris().len(), 150 - SLOTS as usize);
}

#[test]
fn a_recorded_run_draws_render_only_debris_where_its_particles_are() {
    let file = AssetFile {
        name: "wall".into(),
        desc: wall_desc(),
        meshes: vec![ChunkMesh::default(); 150],
        ..Default::default()
    };
    let mut scripted = ScriptedRun::single(
        "render-only debris",
        file,
        Pose::IDENTITY,
        WorldSettings::default(),
        300,
    );
    scripted.instances[0].desc.budget.body_slots = SLOTS;
    scripted.explosions = (0..10)
        .map(|k| ScheduledExplosion {
            step: 6 * k,
            instance: 0,
            explosion: blast(k),
        })
        .collect();
    let (record, _) = smithereens_rapier::recorded_run::run(&scripted, &mut |_, _| {}).unwrap();
    // The record hashes as the world does, particles included.
    let mut world = world();
    let mut hashes = vec![world.state_hash()];
    hashes.extend(run(&mut world, 0, 300, |_, _| {}));
    assert_eq!(record.frame_hashes, hashes);
    // Every chunk is drawn on the last frame, the render-only ones too, at
    // the pose of the particle that holds it, on or above the ground.
    let last = record.frame_count - 1;
    let mut drawn = vec![false; record.chunks.len()];
    let debris = world.render_debris();
    for b in record
        .bodies
        .iter()
        .filter(|b| b.first_frame + b.poses.len() as u32 == last + 1)
    {
        let pose = pose_from_array(b.poses.last().unwrap());
        for &c in &b.chunks {
            assert!(!drawn[c as usize], "chunk {c} drawn twice");
            drawn[c as usize] = true;
            let centre = pose.transform_point(record.chunks[c as usize].centroid);
            // (Rapier bodies may dent the soft ground contacts by millimetres.)
            assert!(
                centre.y >= 0.5 * SIZE - 0.02,
                "chunk {c} drawn at y = {}",
                centre.y
            );
            let cluster = world
                .instance()
                .cluster_of(smithereens_core::ChunkIndex(c))
                .unwrap();
            if debris.contains(cluster) {
                assert_eq!(Some(pose), world.cluster_asset_pose(cluster));
            }
        }
    }
    assert!(drawn.iter().all(|&d| d), "every chunk is drawn");
}

#[test]
fn resting_particles_are_recycled_like_sleeping_bodies() {
    let desc = InstanceDesc {
        budget: BudgetDesc {
            body_slots: SLOTS,
            ..BudgetDesc::default()
        },
        ..InstanceDesc::default()
    };
    let settings = WorldSettings {
        recycle: Some(smithereens_rapier::RecyclePolicy {
            after: 0.5,
            max_chunks: 1,
        }),
        ..WorldSettings::default()
    };
    let mut world = DestructionWorld::with_instance(wall(), desc, settings).unwrap();
    let mut recycled = BTreeSet::new();
    let mut particles = BTreeSet::new();
    run(&mut world, 0, 900, |w, r| {
        recycled.extend(r.recycled.iter().copied());
        particles.extend(w.render_debris().particles().iter().map(|p| p.cluster()));
    });
    assert_eq!(particles.len(), 150 - SLOTS as usize);
    // Every particle came to rest and was recycled: gone from the instance
    // and from the set's store, reported once.
    assert!(
        particles.is_subset(&recycled),
        "{:?}",
        particles.difference(&recycled).count()
    );
    assert!(world.render_debris().is_empty());
    for c in &particles {
        assert!(world.instance().cluster(*c).is_none());
    }
}
