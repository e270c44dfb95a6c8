//! Runtime behaviour a game relies on: explosions once, waking, calibrated
//! impact damage, rest without damage.

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_core::fixtures::{cube_chunk, grid_desc};
use smithereens_core::{
    Admission, Asset, AssetDesc, BondDesc, BondEnd, EventId, Pose, RadialDamage,
};
use smithereens_rapier::{DestructionWorld, Explosion, ProjectileDesc, WorldSettings};
use std::sync::Arc;

fn zero_g() -> WorldSettings {
    WorldSettings {
        gravity: Vec3::ZERO,
        ground_y: None,
        ..WorldSettings::default()
    }
}

fn floating_row(n: u32) -> Arc<Asset> {
    let mut desc = grid_desc(n, 1, 1, 0.5, 1000.0, 400.0);
    desc.chunks.iter_mut().for_each(|c| c.support = false);
    Arc::new(Asset::new(&desc).unwrap())
}

fn total_momentum(world: &DestructionWorld) -> Vec3 {
    world
        .cluster_bodies()
        .values()
        .map(|&h| {
            let b = &world.physics().bodies[h];
            b.linvel() * b.mass()
        })
        .sum()
}

fn blast() -> Explosion {
    // Centre at the first chunk's far end, 1 m reach: breaks everything near it.
    Explosion {
        id: EventId(77),
        point: Vec3::new(-0.25, 0.25, 0.25),
        radius: 1.0,
        damage: 1.0e5,
        impulse: 100.0,
        inner_radius: 0.0,
    }
}

#[test]
fn an_explosion_impulse_enters_exactly_once_even_when_repeated() {
    let mut world = DestructionWorld::new(floating_row(6), Pose::IDENTITY, zero_g()).unwrap();
    assert!(matches!(
        world.explode(blast()).unwrap(),
        Admission::Pending { .. }
    ));
    assert!(
        matches!(world.explode(blast()).unwrap(), Admission::Pending { .. }),
        "same id while pending: same answer"
    );
    world.step().unwrap();
    let p1 = total_momentum(&world);
    assert!(p1.length() > 10.0, "the blast pushed the debris: {p1:?}");
    // Same id again after it was applied: the original receipt, no new push.
    assert!(matches!(
        world.explode(blast()).unwrap(),
        Admission::Applied(_)
    ));
    for _ in 0..5 {
        world.step().unwrap();
    }
    let p2 = total_momentum(&world);
    assert!((p2 - p1).length() < 1e-3 * p1.length(), "{p1:?} → {p2:?}");
    // Different parameters under the same id are rejected.
    assert!(
        world
            .explode(Explosion {
                impulse: 5.0,
                inner_radius: 0.0,
                ..blast()
            })
            .is_err()
    );
}

#[test]
fn a_failed_commit_keeps_the_explosion_pending_and_the_retry_applies_it_once() {
    let mut clean = DestructionWorld::new(floating_row(6), Pose::IDENTITY, zero_g()).unwrap();
    clean.explode(blast()).unwrap();
    clean.step().unwrap();
    let expected = total_momentum(&clean);

    let mut world = DestructionWorld::new(floating_row(6), Pose::IDENTITY, zero_g()).unwrap();
    world.inject_prepare_failures(2);
    world.explode(blast()).unwrap();
    let before = world.state_hash();
    assert!(world.step().is_err());
    assert!(world.step().is_err());
    assert_eq!(
        world.instance().broken_count(),
        0,
        "nothing published on failure"
    );
    assert_eq!(
        world.instance().pending().len(),
        1,
        "the event stays pending"
    );
    assert_eq!(
        total_momentum(&world),
        Vec3::ZERO,
        "no impulse before the commit"
    );
    let _ = before;
    world.step().unwrap();
    let got = total_momentum(&world);
    assert!(
        (got - expected).length() < 1e-3 * expected.length(),
        "{got:?} vs {expected:?}"
    );
    assert_eq!(
        world.instance().broken_count(),
        clean.instance().broken_count()
    );
}

#[test]
fn removing_a_support_wakes_the_box_resting_on_it_and_it_falls_a_metre_in_half_a_second() {
    // Chunk 0 is a support hanging in the air; chunk 1 is cantilevered from it.
    let desc = AssetDesc {
        chunks: vec![
            cube_chunk(Vec3::new(0.0, 2.25, 0.0), 0.5, 1000.0, true),
            cube_chunk(Vec3::new(0.5, 2.25, 0.0), 0.5, 1000.0, false),
        ],
        bonds: vec![BondDesc {
            chunk0: 0,
            chunk1: BondEnd::Chunk(1),
            centroid: Vec3::new(0.25, 2.25, 0.0),
            normal: Vec3::X,
            area: 0.25,
            strength: 100.0,
        }],
        support_depth: None,
    };
    let mut world = DestructionWorld::new(
        Arc::new(Asset::new(&desc).unwrap()),
        Pose::IDENTITY,
        WorldSettings::default(),
    )
    .unwrap();
    let boxed = {
        let p = world.physics_mut();
        let b = p.insert_body(RigidBodyBuilder::dynamic().translation(Vec3::new(0.55, 2.7, 0.0)));
        p.insert_collider(
            ColliderBuilder::cuboid(0.2, 0.2, 0.2).density(500.0),
            Some(b),
        );
        b
    };
    for _ in 0..240 {
        world.step().unwrap();
    }
    assert!(
        world.physics().bodies[boxed].is_sleeping(),
        "the box should be asleep before the break"
    );
    let y0 = world.physics().bodies[boxed].translation().y;
    world
        .admit(RadialDamage {
            id: EventId(1),
            point: Vec3::new(0.25, 2.25, 0.0),
            radius: 0.1,
            damage: 1.0e6,
            impulse: None,
        })
        .unwrap();
    for _ in 0..30 {
        world.step().unwrap();
    }
    let fall = y0 - world.physics().bodies[boxed].translation().y;
    assert!(fall >= 1.0, "the box fell only {fall} m in 0.5 s");
}

/// A support chunk with one chunk bonded on top (strength 100 du); a ball hits
/// the top chunk. The radius covers only that bond, so the event's whole
/// budget lands on it.
fn hit_column(mass: f32, speed: f32) -> (bool, f32) {
    let desc = AssetDesc {
        chunks: vec![
            cube_chunk(Vec3::new(0.0, 0.25, 0.0), 0.5, 2000.0, true),
            cube_chunk(Vec3::new(0.0, 0.75, 0.0), 0.5, 2000.0, false),
        ],
        bonds: vec![BondDesc {
            chunk0: 0,
            chunk1: BondEnd::Chunk(1),
            centroid: Vec3::new(0.0, 0.5, 0.0),
            normal: Vec3::Y,
            area: 0.25,
            strength: 100.0,
        }],
        support_depth: None,
    };
    let settings = WorldSettings::default();
    let mut world = DestructionWorld::new(
        Arc::new(Asset::new(&desc).unwrap()),
        Pose::IDENTITY,
        settings,
    )
    .unwrap();
    world
        .spawn_projectile(ProjectileDesc {
            position: Vec3::new(-1.0, 0.75, 0.0),
            velocity: Vec3::new(speed, 0.0, 0.0),
            radius: 0.1,
            mass,
        })
        .unwrap();
    let mut damage = 0.0;
    for _ in 0..60 {
        damage += world
            .step()
            .unwrap()
            .events
            .iter()
            .map(|e| e.damage())
            .sum::<f32>();
    }
    (world.instance().broken_count() == 1, damage)
}

#[test]
fn impact_calibration_a_10_kg_ball_breaks_a_100_du_bond_from_about_11_m_per_s() {
    // Documented in `impact.rs`: J ≈ m·v·(1 + e) with e = 0.1 for a fixed target, so
    // D = 1 du/N·s · (J − 20 N·s) reaches 100 du at v ≈ 120 / 11 ≈ 10.9 m/s.
    let (broken_slow, d_slow) = hit_column(10.0, 8.0);
    let (broken_fast, d_fast) = hit_column(10.0, 14.0);
    assert!(!broken_slow, "8 m/s broke the bond (damage {d_slow} du)");
    assert!(
        broken_fast,
        "14 m/s did not break the bond (damage {d_fast} du)"
    );
    // The mapping is linear in the impulse above the threshold.
    let expected_slow = 10.0 * 8.0 * 1.1 - 20.0;
    assert!(
        (d_slow - expected_slow).abs() < 0.15 * expected_slow,
        "damage {d_slow} du vs ≈{expected_slow} du"
    );
}

#[test]
fn resting_for_sixty_seconds_does_no_damage() {
    // A loose stack of five unbonded cubes (each its own dynamic body) and a
    // dynamic bonded wall, all resting on the ground for 60 s.
    let mut desc = grid_desc(4, 3, 1, 0.5, 2000.0, 600.0);
    desc.chunks.iter_mut().for_each(|c| c.support = false);
    for k in 0..5 {
        desc.chunks.push(cube_chunk(
            Vec3::new(4.0, 0.25 + 0.5 * k as f32, 0.25),
            0.5,
            2000.0,
            false,
        ));
    }
    let asset = Arc::new(Asset::new(&desc).unwrap());
    let mut world = DestructionWorld::new(
        asset.clone(),
        Pose::from_translation(Vec3::new(0.0, 0.001, 0.0)),
        WorldSettings::default(),
    )
    .unwrap();
    assert_eq!(world.dynamic_body_count(), 6);
    for _ in 0..3600 {
        let r = world.step().unwrap();
        assert!(
            r.events.is_empty(),
            "resting contact produced damage at step {}: {:?}",
            world.step_index(),
            r.events
        );
    }
    assert!(
        world
            .instance()
            .health()
            .iter()
            .zip(asset.bonds().iter())
            .all(|(h, b)| *h == b.strength)
    );
}

#[test]
fn sleeping_debris_is_withdrawn_then_recycled_and_larger_pieces_stay() {
    // A row of 6 cubes resting on the ground, shattered: six single-chunk debris pieces.
    let mut desc = grid_desc(6, 1, 1, 0.5, 1000.0, 100.0);
    desc.chunks.iter_mut().for_each(|c| c.support = false);
    desc.chunks
        .push(cube_chunk(Vec3::new(5.0, 0.5, 0.25), 1.0, 1000.0, false)); // a large loose block
    let asset = Arc::new(Asset::new(&desc).unwrap());
    let settings = WorldSettings {
        recycle: Some(smithereens_rapier::RecyclePolicy {
            after: 0.5,
            max_chunks: 1,
        }),
        ..WorldSettings::default()
    };
    let mut world = DestructionWorld::new(
        asset.clone(),
        Pose::from_translation(Vec3::new(0.0, 0.001, 0.0)),
        settings,
    )
    .unwrap();
    world
        .admit(RadialDamage {
            id: EventId(1),
            point: Vec3::new(1.5, 0.25, 0.25),
            radius: 10.0,
            damage: 1.0e9,
            impulse: None,
        })
        .unwrap();
    let mut recycled = Vec::new();
    for _ in 0..300 {
        recycled.extend(world.step().unwrap().recycled);
    }
    // All six single chunks and the one-chunk block are ≤ 1 chunk: all recycled.
    assert_eq!(recycled.len(), 7, "{recycled:?}");
    assert!(world.cluster_bodies().is_empty());
    assert_eq!(
        world
            .physics()
            .colliders
            .iter()
            .filter(|(h, _)| matches!(
                world.set().collider_tag(*h),
                Some(smithereens_rapier::ColliderTag::Chunk { .. })
            ))
            .count(),
        0
    );
    for r in &recycled {
        assert!(
            world.instance().cluster(*r).is_none(),
            "released in the core too"
        );
    }
}

#[test]
fn without_a_recycle_policy_nothing_is_removed() {
    let mut desc = grid_desc(3, 1, 1, 0.5, 1000.0, 100.0);
    desc.chunks.iter_mut().for_each(|c| c.support = false);
    let mut world = DestructionWorld::new(
        Arc::new(Asset::new(&desc).unwrap()),
        Pose::from_translation(Vec3::new(0.0, 0.001, 0.0)),
        WorldSettings::default(),
    )
    .unwrap();
    world
        .admit(RadialDamage {
            id: EventId(1),
            point: Vec3::new(0.75, 0.25, 0.25),
            radius: 10.0,
            damage: 1.0e9,
            impulse: None,
        })
        .unwrap();
    for _ in 0..300 {
        assert!(world.step().unwrap().recycled.is_empty());
    }
    assert_eq!(world.cluster_bodies().len(), 3);
}
