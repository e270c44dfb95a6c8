//! The Rapier backend honours the budget's representations (DESIGN §3.9).

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use glam::Vec3;
use smithereens_core::budget::{BudgetDesc, ProxyDesc};
use smithereens_core::fixtures::grid_desc;
use smithereens_core::instance::InstanceDesc;
use smithereens_core::{Asset, EventId, HullDesc, RadialDamage};
use smithereens_rapier::{ColliderTag, DestructionWorld, WorldSettings};
use std::sync::Arc;

fn shatter(world: &mut DestructionWorld) {
    world
        .admit(RadialDamage {
            id: EventId(1),
            point: Vec3::new(0.5, 1.25, 0.25),
            radius: 50.0,
            damage: 1.0e9,
            impulse: None,
        })
        .unwrap();
}

fn row(critical: bool) -> Arc<Asset> {
    // Four 0.5 m cubes in a row, floating 1 m above the ground, bonded, no support.
    let mut desc = grid_desc(4, 1, 1, 0.5, 1000.0, 100.0);
    for c in &mut desc.chunks {
        c.support = false;
        c.gameplay_critical = critical;
        c.centroid.y += 1.0;
        c.hulls
            .iter_mut()
            .for_each(|h| h.points.iter_mut().for_each(|p| p.y += 1.0));
    }
    desc.bonds.iter_mut().for_each(|b| b.centroid.y += 1.0);
    Arc::new(Asset::new(&desc).unwrap())
}

fn tags(world: &DestructionWorld) -> (usize, usize) {
    let (mut chunks, mut render) = (0, 0);
    for (h, _) in world.physics().colliders.iter() {
        match world.set().collider_tag(h) {
            Some(ColliderTag::Chunk { .. }) => chunks += 1,
            Some(ColliderTag::RenderOnly { .. }) => render += 1,
            _ => {}
        }
    }
    (chunks, render)
}

#[test]
fn decorative_overflow_becomes_render_only_debris_that_only_touches_the_ground() {
    let desc = InstanceDesc {
        budget: BudgetDesc {
            body_slots: 1,
            ..BudgetDesc::default()
        },
        ..InstanceDesc::default()
    };
    let mut world =
        DestructionWorld::with_instance(row(false), desc, WorldSettings::default()).unwrap();
    shatter(&mut world);
    let report = world.step().unwrap();
    assert_eq!(report.created.len() + report.shrunk.len(), 4);
    assert_eq!(
        report.render_only.len(),
        3,
        "one slot: three decorative pieces are render-only"
    );
    // Render-only debris is no Rapier body (issue 12 item 7): one chunk
    // collider, three particles.
    assert_eq!(tags(&world), (1, 0));
    assert_eq!(world.render_debris().len(), 3);
    assert_eq!(
        world.physics().bodies.len(),
        2,
        "the ground and the one body"
    );
    for _ in 0..120 {
        world.step().unwrap();
    }
    // Render-only debris falls and rests on the ground (it collides with nothing else).
    for p in world.render_debris().particles() {
        let y = p.lowest_point().unwrap();
        assert!(
            p.is_asleep() && y.abs() < 1e-3,
            "render-only chunk at y = {y}"
        );
    }
}

#[test]
fn more_critical_components_than_slots_defer_the_commit_and_keep_the_old_body() {
    let desc = InstanceDesc {
        budget: BudgetDesc {
            body_slots: 2,
            ..BudgetDesc::default()
        },
        ..InstanceDesc::default()
    };
    let mut world =
        DestructionWorld::with_instance(row(true), desc, WorldSettings::default()).unwrap();
    let before = world.cluster_bodies().clone();
    shatter(&mut world);
    let report = world.step().unwrap();
    assert!(
        report.deferred.is_some(),
        "4 critical pieces, 2 slots: deferred"
    );
    assert!(report.created.is_empty());
    assert_eq!(world.cluster_bodies(), &before, "the old body stays");
    assert_eq!(world.instance().pending().len(), 1);
    assert_eq!(tags(&world), (4, 0));
}

#[test]
fn an_authored_proxy_replaces_the_hulls_of_its_exact_node_set() {
    // Proxy for chunks {2, 3}: one box over both.
    let proxy = ProxyDesc {
        nodes: vec![2, 3],
        hulls: vec![HullDesc {
            points: (0..8)
                .map(|k| {
                    Vec3::new(
                        if k & 1 == 0 { 1.0 } else { 2.0 },
                        if k & 2 == 0 { 1.0 } else { 1.5 },
                        if k & 4 == 0 { 0.0 } else { 0.5 },
                    )
                })
                .collect(),
        }],
        error_bound: 0.01,
    };
    let desc = InstanceDesc {
        budget: BudgetDesc {
            proxies: vec![proxy],
            proxy_error_limit: 0.05,
            ..BudgetDesc::default()
        },
        ..InstanceDesc::default()
    };
    let asset = row(false);
    let mut world =
        DestructionWorld::with_instance(asset.clone(), desc, WorldSettings::default()).unwrap();
    // Break only the bond between chunks 1 and 2 (centroid x = 1.0).
    world
        .admit(RadialDamage {
            id: EventId(1),
            point: Vec3::new(1.0, 1.25, 0.25),
            radius: 0.05,
            damage: 1.0e9,
            impulse: None,
        })
        .unwrap();
    let report = world.step().unwrap();
    assert_eq!(report.created.len() + report.shrunk.len(), 2);
    let proxied = world
        .instance()
        .cluster_of(smithereens_core::ChunkIndex(3))
        .unwrap();
    let body = world.cluster_bodies()[&proxied];
    assert_eq!(
        world.physics().bodies[body].colliders().len(),
        1,
        "the {{2, 3}} piece uses the single proxy box"
    );
    let other = world
        .instance()
        .cluster_of(smithereens_core::ChunkIndex(0))
        .unwrap();
    assert_eq!(
        world.physics().bodies[world.cluster_bodies()[&other]]
            .colliders()
            .len(),
        2
    );
}
