//! Chunks without hulls (render-only chunks) never make a dynamic body
//! without colliders (issue 16 item 3). A piece made only of them is
//! render-only debris, takes no body slot or impulse, and stays at rest
//! where it broke off: a sleeping particle outside Rapier (issue 12 item 7;
//! before it, a fixed Rapier body without colliders).

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use glam::Vec3;
use smithereens_core::asset::{AssetDesc, BondDesc, BondEnd};
use smithereens_core::budget::{BudgetDesc, Representation};
use smithereens_core::fixtures::cube_chunk;
use smithereens_core::instance::InstanceDesc;
use smithereens_core::{Asset, ChunkIndex, EventId, RadialDamage};
use smithereens_rapier::{DestructionWorld, WorldSettings};
use std::sync::Arc;

/// Three 1 kg unit cubes in a row (chunk k centred at x = k), bonds 0–1 and
/// 1–2, chunk 0 supported; `hulls[k]` says whether chunk k has its hull.
fn row(hulls: [bool; 3], critical: bool) -> Arc<Asset> {
    let chunks = (0..3)
        .map(|k| {
            let mut c = cube_chunk(Vec3::new(k as f32, 0.0, 0.0), 1.0, 1.0, k == 0);
            if !hulls[k] {
                c.hulls.clear();
            }
            c.gameplay_critical = critical;
            c
        })
        .collect();
    let bonds = [(0, 1), (1, 2)]
        .into_iter()
        .map(|(a, b)| BondDesc {
            chunk0: a,
            chunk1: BondEnd::Chunk(b),
            centroid: Vec3::new((a + b) as f32 * 0.5, 0.0, 0.0),
            normal: Vec3::X,
            area: 1.0,
            strength: 10.0,
        })
        .collect();
    let desc = AssetDesc {
        chunks,
        bonds,
        support_depth: None,
    };
    Arc::new(Asset::new(&desc).unwrap())
}

fn world(asset: Arc<Asset>, body_slots: u32) -> DestructionWorld {
    let desc = InstanceDesc {
        budget: BudgetDesc {
            body_slots,
            ..BudgetDesc::default()
        },
        ..InstanceDesc::default()
    };
    let settings = WorldSettings {
        ground_y: Some(-0.5),
        ..WorldSettings::default()
    };
    DestructionWorld::with_instance(asset, desc, settings).unwrap()
}

/// Breaks bond 0–1 only; the impulse (N·s) goes to the piece holding chunk 1.
fn break_first_bond(world: &mut DestructionWorld, impulse: Option<Vec3>) {
    world
        .admit(RadialDamage {
            id: EventId(1),
            point: Vec3::new(0.6, 0.0, 0.0),
            radius: 0.2,
            damage: 1.0e3,
            impulse,
        })
        .unwrap();
}

/// No library body is dynamic without a collider.
fn assert_no_dynamic_body_without_colliders(world: &DestructionWorld) {
    for (&h, &rb) in world.cluster_bodies() {
        let body = &world.physics().bodies[rb];
        assert!(
            !body.is_dynamic() || !body.colliders().is_empty(),
            "cluster {h:?} is a dynamic body with no collider"
        );
    }
}

#[test]
fn a_piece_without_hulls_that_breaks_off_stays_where_it_broke_as_render_only_debris() {
    let mut world = world(row([true, false, false], false), 8);
    // A 10 N·s push aimed at the 2 kg piece: a body would leave at 5 m/s.
    break_first_bond(&mut world, Some(Vec3::new(10.0, 0.0, 0.0)));
    let report = world.step().unwrap();
    assert_eq!(report.broken.len(), 1);
    let piece = world.instance().cluster_of(ChunkIndex(1)).unwrap();
    assert_eq!(report.render_only, vec![piece]);
    let cluster = world.instance().cluster(piece).unwrap();
    assert_eq!(cluster.nodes[..], [ChunkIndex(1), ChunkIndex(2)]);
    assert!(!cluster.supported);
    assert_eq!(cluster.representation, Representation::RenderOnlyDebris);
    assert_eq!(cluster.slot, None);
    assert_eq!(cluster.motion.velocity.linear, Vec3::ZERO);
    // No Rapier body at all: a particle held at rest.
    assert!(!world.cluster_bodies().contains_key(&piece));
    let particle = world.render_debris().get(piece).unwrap();
    assert!(particle.is_asleep());
    assert_eq!(particle.lowest_point(), None);
    assert_eq!(world.dynamic_body_count(), 0);
    assert_no_dynamic_body_without_colliders(&world);

    // Before the fix this piece fell forever: 2 kg, no collider, 17.7 m in 2 s.
    let start = world.cluster_asset_pose(piece).unwrap();
    for _ in 0..120 {
        world.step().unwrap();
    }
    let end = world.cluster_asset_pose(piece).unwrap();
    assert_eq!(start.translation, end.translation);
    assert_eq!(start.rotation, end.rotation);
    let cluster = world.instance().cluster(piece).unwrap();
    assert_eq!(cluster.motion.velocity.linear, Vec3::ZERO);
    assert_eq!(cluster.motion.velocity.angular, Vec3::ZERO);
}

#[test]
fn a_critical_piece_without_hulls_takes_no_body_slot() {
    // No slot at all: a critical piece with a hull would hold the commit back.
    let mut world = world(row([true, false, false], true), 0);
    break_first_bond(&mut world, None);
    let report = world.step().unwrap();
    assert_eq!(report.deferred, None);
    assert_eq!(report.broken.len(), 1);
    let piece = world.instance().cluster_of(ChunkIndex(1)).unwrap();
    assert_eq!(report.render_only, vec![piece]);
    assert_eq!(world.instance().cluster(piece).unwrap().slot, None);
    assert_no_dynamic_body_without_colliders(&world);
}

#[test]
fn a_piece_with_one_hull_chunk_is_a_dynamic_body_that_lands_on_the_ground() {
    let mut world = world(row([true, true, false], false), 8);
    break_first_bond(&mut world, None);
    let report = world.step().unwrap();
    assert!(report.render_only.is_empty());
    let piece = world.instance().cluster_of(ChunkIndex(1)).unwrap();
    let cluster = world.instance().cluster(piece).unwrap();
    assert_eq!(cluster.representation, Representation::Body);
    assert!(cluster.slot.is_some());
    let rb = world.cluster_bodies()[&piece];
    assert!(world.physics().bodies[rb].is_dynamic());
    assert_eq!(world.physics().bodies[rb].colliders().len(), 1);
    for _ in 0..180 {
        world.step().unwrap();
    }
    // Chunk 1's cube lands on the ground at y = −0.5 (its centre at 0 ± 1 cm).
    let pose = world.cluster_asset_pose(piece).unwrap();
    let centre = pose.transform_point(Vec3::new(1.0, 0.0, 0.0));
    assert!(centre.y.abs() < 0.01, "chunk 1 centre at y = {}", centre.y);
}

#[test]
fn an_unsupported_chunk_without_hulls_spawns_as_render_only_debris_at_rest() {
    // A supported cube and, 1 m above it, a loose cube with no hull.
    let mut lone = cube_chunk(Vec3::new(0.0, 1.0, 0.0), 1.0, 1.0, false);
    lone.hulls.clear();
    let desc = AssetDesc {
        chunks: vec![cube_chunk(Vec3::ZERO, 1.0, 1.0, true), lone],
        bonds: vec![],
        support_depth: None,
    };
    let mut world = world(Arc::new(Asset::new(&desc).unwrap()), 8);
    let piece = world.instance().cluster_of(ChunkIndex(1)).unwrap();
    let cluster = world.instance().cluster(piece).unwrap();
    assert_eq!(cluster.representation, Representation::RenderOnlyDebris);
    assert_eq!(cluster.slot, None);
    assert!(!world.cluster_bodies().contains_key(&piece));
    assert!(world.render_debris().get(piece).unwrap().is_asleep());
    assert_no_dynamic_body_without_colliders(&world);
    for _ in 0..60 {
        world.step().unwrap();
    }
    let pose = world.cluster_asset_pose(piece).unwrap();
    assert_eq!(
        pose.transform_point(Vec3::new(0.0, 1.0, 0.0)),
        Vec3::new(0.0, 1.0, 0.0)
    );
}
