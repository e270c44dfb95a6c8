//! Admission through the asset's bounding-volume hierarchies (issue 12 item 3)
//! measures exactly what a scan of every bond and chunk measured: the same
//! candidate bonds, distances bit for bit and the same impulse chunk, also
//! when pieces have moved and turned away from the structure.

#![allow(clippy::unwrap_used)]

use smithereens_core::glam::{Quat, Vec3};
use smithereens_core::*;
use std::sync::Arc;

/// The scan admission did before issue 12: every intact bond in its own
/// queryable cluster's frame, and the nearest owned chunk (ties to the lowest).
fn scan(inst: &Instance, point: Vec3, reach: f32) -> (Vec<(BondIndex, u32)>, Option<ChunkIndex>) {
    let asset = inst.asset();
    let frame = |c: ChunkIndex| {
        inst.cluster_of(c)
            .and_then(|h| inst.cluster(h))
            .filter(|cl| cl.representation.is_authoritative() && cl.withdrawn_at.is_none())
            .map(|cl| cl.asset_to_world())
    };
    let mut bonds = Vec::new();
    for (b, bond) in asset.bonds().iter_enumerated() {
        if inst.is_broken(b) {
            continue;
        }
        let Some(f) = frame(bond.chunk0) else {
            continue;
        };
        let d = f.transform_point(bond.centroid).distance(point);
        if d < reach {
            bonds.push((b, d.to_bits()));
        }
    }
    let mut best: Option<(f32, ChunkIndex)> = None;
    for (c, chunk) in asset.chunks().iter_enumerated() {
        let Some(f) = frame(c) else { continue };
        let d = f.transform_point(chunk.centroid).distance(point);
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    (bonds, best.map(|(_, c)| c))
}

/// A small deterministic generator (no dependency needed for a test).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

#[test]
fn admission_finds_what_a_scan_finds_on_a_broken_and_scattered_structure() {
    let mut desc = fixtures::grid_desc(8, 6, 2, 0.5, 1000.0, 10.0);
    for c in desc.chunks.iter_mut().take(8) {
        c.support = true;
    }
    let asset = Arc::new(Asset::new(&desc).unwrap());
    let placement = Pose {
        rotation: Quat::from_rotation_y(0.4),
        translation: Vec3::new(100.0, 0.0, -40.0),
    };
    let mut inst = Instance::new(asset.clone(), placement).unwrap();
    // Cut the wall along y = 1 m so its upper part comes loose in one piece,
    // knock a few chunks out of that piece, then scatter and turn every
    // piece that came loose.
    let mut backend = HeadlessBackend::default();
    let cut = (0..8).map(|i| (Vec3::new(0.25 + 0.5 * i as f32, 1.0, 0.5), 0.3));
    let holes = [(Vec3::new(3.6, 2.6, 0.5), 0.45)];
    for (id, (local, radius)) in cut.chain(holes).enumerate() {
        inst.admit(RadialDamage {
            id: EventId(id as u64 + 1),
            point: placement.transform_point(local),
            radius,
            damage: 400.0,
            impulse: None,
        })
        .unwrap();
        inst.commit(&mut backend).unwrap();
    }
    let mut rng = Lcg(7);
    let moving: Vec<ClusterHandle> = inst
        .clusters()
        .filter(|(_, c)| !c.supported)
        .map(|(h, _)| h)
        .collect();
    assert!(moving.len() >= 3, "{} loose pieces", moving.len());
    for h in &moving {
        let c = inst.cluster(*h).unwrap();
        let mut motion = c.motion;
        motion.pose.translation += Vec3::new(rng.next() - 0.5, rng.next() * 2.0, rng.next() - 0.5);
        motion.pose.rotation = Quat::from_rotation_x(rng.next() * 3.0) * motion.pose.rotation;
        inst.set_motion::<()>(*h, motion).unwrap();
    }
    let multi_chunk_moving = moving
        .iter()
        .filter(|h| inst.cluster(**h).unwrap().nodes.len() > 1)
        .count();
    assert!(multi_chunk_moving >= 1);
    // Many events around the structure, radial and with impulses.
    let mut seen_bonds = 0;
    for id in 0..300u64 {
        let local = Vec3::new(
            rng.next() * 5.0 - 0.5,
            rng.next() * 4.0 - 0.5,
            rng.next() * 2.0 - 0.5,
        );
        let point = placement.transform_point(local);
        let radius = 0.05 + rng.next() * 1.5;
        let event = RadialDamage {
            id: EventId(1000 + id),
            point,
            radius,
            damage: 1.0,
            impulse: Some(Vec3::X),
        };
        let (bonds, nearest) = scan(&inst, point, event.event().reach());
        inst.admit(event).unwrap();
        let pending = inst.withdraw_pending().pop().unwrap();
        let got: Vec<(BondIndex, u32)> = pending
            .candidates
            .iter()
            .map(|c| (c.bond, c.distance.to_bits()))
            .collect();
        assert_eq!(got, bonds, "event {id} at {local}, radius {radius}");
        assert_eq!(pending.impulse_chunk, nearest, "event {id}");
        seen_bonds += bonds.len();
    }
    assert!(seen_bonds > 300, "the events reached {seen_bonds} bonds");
}

#[test]
fn planning_leaves_every_bond_health_as_it_was() {
    let asset = Arc::new(Asset::new(&fixtures::grid_desc(6, 6, 1, 1.0, 1000.0, 10.0)).unwrap());
    let mut inst = Instance::new(asset, Pose::IDENTITY).unwrap();
    inst.admit(RadialDamage {
        id: EventId(1),
        point: Vec3::new(3.0, 3.0, 0.5),
        radius: 1.6,
        damage: 60.0,
        impulse: None,
    })
    .unwrap();
    inst.admit(SpreadDamage {
        id: EventId(2),
        chunk: ChunkIndex(0),
        point: Vec3::new(0.5, 0.5, 0.5),
        damage: 35.0,
        max_rings: 4,
        impulse: None,
    })
    .unwrap();
    let before: Vec<u32> = inst.health().iter().map(|h| h.to_bits()).collect();
    let hash = inst.state_hash();
    let plan = inst.plan::<()>().unwrap();
    assert!(!plan.broken.is_empty());
    assert!(plan.health_changes.len() >= plan.broken.len());
    let after: Vec<u32> = inst.health().iter().map(|h| h.to_bits()).collect();
    assert_eq!(after, before);
    assert_eq!(inst.state_hash(), hash);
    // The plan's changes are what a commit writes.
    let out = inst.commit(&mut HeadlessBackend::default()).unwrap();
    for (b, h) in &plan.health_changes {
        assert_eq!(inst.bond_health(*b).unwrap().to_bits(), h.to_bits());
    }
    assert_eq!(out.broken, plan.broken);
}

/// Events with an impulse find the nearest chunk through the loose index
/// (issue 12 item 3): after a shatter, while the debris moves, is damaged
/// further, is recycled and goes through a snapshot, every impulse chunk is
/// the one a scan of every chunk finds, for points among the debris, beside
/// it and far away.
#[test]
fn impulse_chunks_are_the_scans_while_debris_moves_splits_and_is_recycled() {
    let asset = Arc::new(Asset::new(&fixtures::grid_desc(6, 5, 3, 0.5, 1000.0, 10.0)).unwrap());
    let mut inst = Instance::new(asset.clone(), Pose::IDENTITY).unwrap();
    let mut backend = HeadlessBackend::default();
    let mut rng = Lcg(11);
    let mut next_id = 1u64;
    let mut impulses = 0;
    let mut loose_seen = 0;
    for round in 0..40 {
        // A blast somewhere in the block, sometimes with an impulse (which
        // builds, then uses, the index), committed.
        let local = Vec3::new(rng.next() * 3.0, rng.next() * 2.5, rng.next() * 1.5);
        let blast = RadialDamage {
            id: EventId(next_id),
            point: local,
            radius: 0.3 + rng.next() * 0.6,
            damage: 1.0e6,
            impulse: (round % 3 == 0).then_some(Vec3::Y),
        };
        next_id += 1;
        let (_, nearest) = scan(&inst, blast.point, blast.event().reach());
        inst.admit(blast).unwrap();
        if blast.impulse.is_some() {
            assert_eq!(inst.pending().last().unwrap().impulse_chunk, nearest);
        }
        inst.commit(&mut backend).unwrap();
        // Move and turn a random half of the loose pieces.
        let loose: Vec<ClusterHandle> = inst
            .clusters()
            .filter(|(_, c)| !c.supported)
            .map(|(h, _)| h)
            .collect();
        loose_seen = loose_seen.max(loose.len());
        for h in &loose {
            if rng.next() < 0.5 {
                continue;
            }
            let mut motion = inst.cluster(*h).unwrap().motion;
            let step = (rng.next() - 0.5) * (1.0 + round as f32 * 0.2);
            motion.pose.translation += Vec3::new(step, rng.next() - 0.7, step * 0.3);
            motion.pose.rotation = Quat::from_rotation_z(rng.next()) * motion.pose.rotation;
            inst.set_motion::<()>(*h, motion).unwrap();
        }
        // Recycle a sleeping piece now and then.
        if round % 7 == 6 {
            inst.advance_sleep(10.0).unwrap();
            if let Some(&h) = loose.iter().find(|h| inst.cluster(**h).is_some()) {
                let ticket = inst.begin_recycle(h).unwrap();
                inst.mark_queries_refreshed();
                inst.finish_recycle(ticket).unwrap();
            }
        }
        if round % 10 == 9 {
            inst = Instance::restore(asset.clone(), &inst.snapshot()).unwrap();
        }
        // Impulses among the debris, beside it and far from everything.
        for k in 0..12 {
            let point = match k % 3 {
                0 => Vec3::new(rng.next() * 4.0, rng.next() * 3.0 - 3.0, rng.next() * 2.0),
                1 => Vec3::new(rng.next() * 20.0 - 10.0, rng.next() * 20.0 - 15.0, 5.0),
                _ => Vec3::new(300.0 * rng.next(), -900.0, 40.0),
            };
            let event = RadialDamage {
                id: EventId(next_id),
                point,
                radius: 0.01 + rng.next() * 0.2,
                damage: 0.0,
                impulse: Some(Vec3::X),
            };
            next_id += 1;
            let (_, nearest) = scan(&inst, point, event.event().reach());
            inst.admit(event).unwrap();
            let pending = inst.withdraw_pending().pop().unwrap();
            assert_eq!(
                pending.impulse_chunk, nearest,
                "round {round}, point {point}"
            );
            impulses += 1;
        }
    }
    assert!(loose_seen >= 30, "{loose_seen} loose pieces at most");
    assert_eq!(impulses, 480);
}
