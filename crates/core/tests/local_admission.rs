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
