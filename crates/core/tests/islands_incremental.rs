//! Issue 12, items 1 and 2: islands in time proportional to the pieces that
//! left, the remainder keeps its handle, and mass properties by subtraction
//! stay within tolerance of an exact re-sum, over many random break
//! sequences; replicas and restored snapshots stay bit-identical.
#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use proptest::prelude::*;
use smithereens_core::fixtures::{cube_chunk, grid_desc};
use smithereens_core::glam::{Quat, Vec3};
use smithereens_core::island::{Remainder, SplitScratch, find_departed};
use smithereens_core::mass::{MassPart, MassProperties, combine};
use smithereens_core::*;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A random multigraph of `n` unit cubes on the x axis (masses 1–4 kg, so
/// centres and inertias differ per piece), bond `b`'s centroid at
/// (0, 0, 0.01·b) so that a radial hit of radius 0.004 there breaks exactly
/// bond `b`, and a sequence of batches of bonds to break.
fn arb_case() -> impl Strategy<Value = (AssetDesc, Vec<Vec<u32>>)> {
    (2u32..48)
        .prop_flat_map(|n| {
            let bonds =
                prop::collection::vec((0..n, 0..n, prop::bool::weighted(0.1)), 1..(3 * n as usize));
            let supports = prop::collection::vec(prop::bool::weighted(0.1), n as usize);
            let densities = prop::collection::vec(1u32..5, n as usize);
            let batches = prop::collection::vec(
                prop::collection::vec(any::<prop::sample::Index>(), 1..6),
                1..12,
            );
            (Just(n), bonds, supports, densities, batches)
        })
        .prop_map(|(n, bonds, supports, densities, batches)| {
            let mut desc = AssetDesc {
                chunks: (0..n)
                    .map(|k| {
                        let mut c = cube_chunk(
                            Vec3::new(k as f32, (k % 3) as f32, 0.0),
                            1.0,
                            densities[k as usize] as f32,
                            supports[k as usize],
                        );
                        c.centroid.y += 0.1 * (k % 2) as f32;
                        c
                    })
                    .collect(),
                bonds: vec![],
                support_depth: None,
            };
            for (a, b, world) in bonds {
                if a == b && !world {
                    continue;
                }
                let k = desc.bonds.len();
                desc.bonds.push(BondDesc {
                    chunk0: a,
                    chunk1: if world {
                        BondEnd::World
                    } else {
                        BondEnd::Chunk(b)
                    },
                    centroid: Vec3::new(0.0, 0.0, k as f32 * 0.01),
                    normal: Vec3::Y,
                    area: 1.0,
                    strength: 1.0,
                });
            }
            let count = desc.bonds.len();
            let batches = if count == 0 {
                vec![]
            } else {
                batches
                    .into_iter()
                    .map(|b| b.into_iter().map(|i| i.index(count) as u32).collect())
                    .collect()
            };
            (desc, batches)
        })
}

/// Components of the intact graph, each with "meets the support set".
fn union_find(asset: &Asset, health: &[f32]) -> Vec<(Vec<ChunkIndex>, bool)> {
    let n = asset.chunk_count();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for (b, bond) in asset.bonds().iter_enumerated() {
        if let (Some(c1), true) = (bond.chunk1, health[b.get() as usize] > 0.0) {
            let (ra, rb) = (
                find(&mut parent, bond.chunk0.get() as usize),
                find(&mut parent, c1.get() as usize),
            );
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    let mut groups: BTreeMap<usize, (Vec<ChunkIndex>, bool)> = BTreeMap::new();
    for v in 0..n {
        let r = find(&mut parent, v);
        let e = groups.entry(r).or_default();
        e.0.push(ChunkIndex(v as u32));
        e.1 |= asset.chunk(ChunkIndex(v as u32)).unwrap().support;
    }
    for (b, bond) in asset.bonds().iter_enumerated() {
        if bond.chunk1.is_none() && health[b.get() as usize] > 0.0 {
            let r = find(&mut parent, bond.chunk0.get() as usize);
            groups.get_mut(&r).unwrap().1 = true;
        }
    }
    groups.into_values().collect()
}

fn exact(asset: &Asset, nodes: &[ChunkIndex]) -> MassProperties {
    let parts: Vec<MassPart> = nodes
        .iter()
        .map(|&n| {
            let c = asset.chunk(n).unwrap();
            MassPart {
                mass: c.mass,
                center: c.centroid,
                inertia: c.inertia,
                rotation: Quat::IDENTITY,
            }
        })
        .collect();
    combine(&parts).unwrap()
}

/// Tolerances against an exact re-sum, relative to the cluster's mass (kg),
/// size (m) and largest inertia entry (kg·m²): a few f32 ulps of the
/// published values; subtraction itself drifts far less (f64).
const MASS_TOL: f32 = 1e-5;
const CENTER_TOL: f32 = 1e-5;
const INERTIA_TOL: f32 = 1e-4;

fn assert_close(asset: &Asset, c: &Cluster) -> Result<(), TestCaseError> {
    let e = exact(asset, &c.nodes);
    let scale = e
        .inertia
        .to_cols_array()
        .iter()
        .fold(0.0f32, |m, v| m.max(v.abs()));
    prop_assert!(
        (c.mass.mass - e.mass).abs() <= MASS_TOL * e.mass,
        "mass {} vs {}",
        c.mass.mass,
        e.mass
    );
    let extent = (scale / e.mass).sqrt().max(1.0);
    prop_assert!(
        (c.mass.center - e.center).length() <= CENTER_TOL * extent,
        "centre {} vs {}",
        c.mass.center,
        e.center
    );
    let d = (c.mass.inertia - e.inertia)
        .to_cols_array()
        .iter()
        .fold(0.0f32, |m, v| m.max(v.abs()));
    prop_assert!(
        d <= INERTIA_TOL * scale,
        "inertia off by {d} at scale {scale}"
    );
    prop_assert!(
        c.principal
            .reconstruct()
            .abs_diff_eq(c.mass.inertia, 1e-3 * scale)
    );
    Ok(())
}

fn mass_bits(inst: &Instance) -> Vec<(ClusterHandle, [u32; 13])> {
    inst.clusters()
        .map(|(h, c)| {
            let mut bits = [0u32; 13];
            bits[0] = c.mass.mass.to_bits();
            for (k, v) in c
                .mass
                .center
                .to_array()
                .into_iter()
                .chain(c.mass.inertia.to_cols_array())
                .enumerate()
            {
                bits[k + 1] = v.to_bits();
            }
            (h, bits)
        })
        .collect()
}

fn hit(id: u64, asset: &Asset, b: u32) -> RadialDamage {
    RadialDamage {
        id: EventId(id),
        point: asset.bond(BondIndex(b)).unwrap().centroid,
        radius: 0.004,
        damage: 10.0,
        impulse: None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// After every commit of a random break sequence the clusters are the
    /// components of the intact graph (support: meets the support set and was
    /// supported before), every old handle is still live on a subset of its
    /// old nodes (the remainder keeps it), masses match an exact re-sum, and
    /// a replica fed the records and an instance restored from a snapshot
    /// taken midway agree bit for bit.
    #[test]
    fn random_break_sequences_keep_islands_handles_and_masses_exact((desc, batches) in arb_case()) {
        let asset = Arc::new(Asset::new(&desc).unwrap());
        let mut inst = Instance::new(asset.clone(), Pose::IDENTITY).unwrap();
        let mut replica = inst.clone();
        let mut restored: Option<Instance> = None;
        let mut backend = HeadlessBackend::default();
        let mut id = 0;
        for (k, batch) in batches.iter().enumerate() {
            let before: BTreeMap<ClusterHandle, (Vec<ChunkIndex>, bool)> =
                inst.clusters().map(|(h, c)| (h, (c.nodes.to_vec(), c.supported))).collect();
            for &b in batch {
                id += 1;
                inst.admit(hit(id, &asset, b)).unwrap();
                if let Some(r) = restored.as_mut() {
                    r.admit(hit(id, &asset, b)).unwrap();
                }
            }
            let out = inst.commit(&mut backend).unwrap();
            if let Some(r) = restored.as_mut() {
                r.commit(&mut backend).unwrap();
            }
            let record = out.record.clone().unwrap();
            let bytes = record.to_bytes();
            replica.apply_record(&CommitRecord::from_bytes(&bytes).unwrap()).unwrap();
            // Components and support.
            let mut ours: Vec<(Vec<ChunkIndex>, bool)> =
                inst.clusters().map(|(_, c)| (c.nodes.to_vec(), c.supported)).collect();
            ours.sort();
            let mut reference: Vec<(Vec<ChunkIndex>, bool)> = union_find(&asset, inst.health())
                .into_iter()
                .map(|(nodes, meets)| {
                    let was = before.values().find(|(n, _)| n.contains(&nodes[0])).unwrap().1;
                    (nodes, meets && was)
                })
                .collect();
            reference.sort();
            prop_assert_eq!(&ours, &reference);
            // The remainder keeps the handle: no old handle went stale.
            for (h, (nodes, _)) in &before {
                let c = inst.cluster(*h);
                prop_assert!(c.is_some(), "handle {} went stale", h);
                prop_assert!(c.unwrap().nodes.iter().all(|n| nodes.contains(n)));
            }
            prop_assert_eq!(out.removed.len(), 0);
            prop_assert_eq!(out.created.len() + before.len(), inst.cluster_count());
            for (_, c) in inst.clusters() {
                assert_close(&asset, c)?;
            }
            // Replicas and restored snapshots subtract the same numbers.
            prop_assert_eq!(replica.state_hash(), inst.state_hash());
            prop_assert_eq!(mass_bits(&replica), mass_bits(&inst));
            if let Some(r) = &restored {
                prop_assert_eq!(r.state_hash(), inst.state_hash());
                prop_assert_eq!(mass_bits(r), mass_bits(&inst));
            }
            if k == batches.len() / 2 {
                let snap = Snapshot::from_bytes(&inst.snapshot().to_bytes()).unwrap();
                restored = Some(Instance::restore(asset.clone(), &snap).unwrap());
            }
        }
    }

    /// `find_departed` reports exactly the components that do not hold the
    /// remainder, for random graphs and random sets of broken bonds.
    #[test]
    fn departed_pieces_are_the_components_other_than_the_remainder((desc, batches) in arb_case()) {
        let asset = Asset::new(&desc).unwrap();
        let mut health = vec![1.0f32; asset.bond_count()];
        let mut scratch = SplitScratch::default();
        for batch in &batches {
            let before = union_find(&asset, &health);
            let mut seeds = Vec::new();
            for &b in batch {
                let bond = asset.bond(BondIndex(b)).unwrap();
                if health[b as usize] > 0.0
                    && let Some(c1) = bond.chunk1
                {
                    seeds.extend([bond.chunk0, c1]);
                }
                health[b as usize] = 0.0;
            }
            let after = union_find(&asset, &health);
            // Per old component: the new components inside it.
            for (old, _) in &before {
                let cluster_seeds: Vec<ChunkIndex> = seeds.iter().copied().filter(|s| old.contains(s)).collect();
                let mut out = Vec::new();
                let rest = find_departed(&asset, &health, &cluster_seeds, &mut scratch, &mut out);
                let mut inside: Vec<Vec<ChunkIndex>> = after
                    .iter()
                    .filter(|(n, _)| old.contains(&n[0]))
                    .map(|(n, _)| n.clone())
                    .collect();
                let mut reported: Vec<Vec<ChunkIndex>> = out.iter().map(|i| i.nodes.to_vec()).collect();
                prop_assert!(reported.windows(2).all(|w| w[0][0] < w[1][0]), "pieces by lowest node");
                // `piece_of` names the reported piece of every node in it.
                for (i, piece) in out.iter().enumerate() {
                    for &n in piece.nodes.iter() {
                        prop_assert_eq!(scratch.piece_of(n), Some(i), "node {:?}", n);
                    }
                }
                match rest {
                    Remainder::Open => {
                        // Exactly one component is missing: the remainder.
                        prop_assert_eq!(reported.len() + 1, inside.len());
                        let rest: Vec<ChunkIndex> = old
                            .iter()
                            .copied()
                            .filter(|n| reported.iter().all(|p| !p.contains(n)))
                            .collect();
                        reported.push(rest);
                    }
                    Remainder::Piece(k) => {
                        prop_assert!(k < reported.len());
                        let largest = reported.iter().map(Vec::len).max().unwrap();
                        prop_assert_eq!(reported[k].len(), largest);
                    }
                }
                reported.sort();
                inside.sort();
                prop_assert_eq!(reported, inside);
            }
        }
    }
}

/// An N³ grid of unit cubes, all bonds at 1 du.
fn grid(n: u32) -> Asset {
    Asset::new(&grid_desc(n, n, n, 1.0, 1.0, 1.0)).unwrap()
}

fn idx(n: u32, x: u32, y: u32, z: u32) -> u32 {
    x + n * (y + n * z)
}

#[test]
fn chipping_the_far_corner_of_a_20_cube_grid_reaches_a_few_nodes_not_8000() {
    let n = 20;
    let asset = grid(n);
    let corner = idx(n, n - 1, n - 1, n - 1);
    let mut health = vec![1.0f32; asset.bond_count()];
    let mut seeds = Vec::new();
    for (b, bond) in asset.bonds().iter_enumerated() {
        let c1 = bond.chunk1.unwrap();
        if bond.chunk0.get() == corner || c1.get() == corner {
            health[b.get() as usize] = 0.0;
            seeds.extend([bond.chunk0, c1]);
        }
    }
    let (mut scratch, mut out) = (SplitScratch::default(), Vec::new());
    let rest = find_departed(&asset, &health, &seeds, &mut scratch, &mut out);
    assert_eq!(rest, Remainder::Open);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].nodes.to_vec(), vec![ChunkIndex(corner)]);
    // 4 seeds; the three open ones take at most a couple of rounds to meet.
    assert!(scratch.reached() <= 40, "reached {}", scratch.reached());
}

#[test]
fn cutting_a_3_cube_corner_block_off_a_20_cube_grid_reaches_o_block_nodes() {
    let n = 20;
    let asset = grid(n);
    let inside = |c: ChunkIndex| {
        let i = c.get();
        let (x, y, z) = (i % n, (i / n) % n, i / (n * n));
        x < 3 && y < 3 && z < 3
    };
    let mut health = vec![1.0f32; asset.bond_count()];
    let mut seeds = Vec::new();
    for (b, bond) in asset.bonds().iter_enumerated() {
        let c1 = bond.chunk1.unwrap();
        if inside(bond.chunk0) != inside(c1) {
            health[b.get() as usize] = 0.0;
            seeds.extend([bond.chunk0, c1]);
        }
    }
    let (mut scratch, mut out) = (SplitScratch::default(), Vec::new());
    let rest = find_departed(&asset, &health, &seeds, &mut scratch, &mut out);
    assert_eq!(rest, Remainder::Open);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].nodes.len(), 27);
    // 27 outside seeds run while the block closes: bounded by the block's
    // size times the seeds, far below the 8,000-node grid.
    assert!(
        scratch.reached() < 8000 / 4,
        "reached {}",
        scratch.reached()
    );
}

#[test]
fn chipping_many_corners_keeps_the_handle_and_a_mass_within_tolerance() {
    // Chips every chunk of a 10 × 10 × 4 slab, one per commit, from the top
    // layer down: 300 subtractions from one cluster (the drift guard rebuilds
    // its sums when half the mass is gone).
    let n = 10;
    let asset = Arc::new(Asset::new(&grid_desc(n, n, 4, 1.0, 1.0, 1.0)).unwrap());
    let mut inst = Instance::new(asset.clone(), Pose::IDENTITY).unwrap();
    let h = inst.cluster_of(ChunkIndex(0)).unwrap();
    let mut backend = HeadlessBackend::default();
    let mut id = 0;
    for chunk in (n * n..n * n * 4).rev() {
        for (b, bond) in asset.bonds().iter_enumerated() {
            let c1 = bond.chunk1.unwrap();
            if (bond.chunk0.get() == chunk || c1.get() == chunk) && !inst.is_broken(b) {
                id += 1;
                inst.admit(RadialDamage {
                    id: EventId(id),
                    point: bond.centroid,
                    radius: 0.01,
                    damage: 10.0,
                    impulse: None,
                })
                .unwrap();
            }
        }
        let out = inst.commit(&mut backend).unwrap();
        assert_eq!(out.shrunk, vec![h], "chunk {chunk}");
        assert_eq!(out.created.len(), 1);
        let c = inst.cluster(h).unwrap();
        let e = exact(&asset, &c.nodes);
        assert!((c.mass.mass - e.mass).abs() <= MASS_TOL * e.mass);
        assert!((c.mass.center - e.center).length() <= CENTER_TOL * 10.0);
        let d = (c.mass.inertia - e.inertia)
            .to_cols_array()
            .iter()
            .fold(0.0f32, |m, v| m.max(v.abs()));
        assert!(
            d <= INERTIA_TOL
                * e.inertia
                    .to_cols_array()
                    .iter()
                    .fold(0.0f32, |m, v| m.max(v.abs()))
        );
    }
    assert_eq!(inst.cluster(h).unwrap().nodes.len(), (n * n) as usize);
    assert!(inst.cluster(h).unwrap().supported);
}

/// Re-frames `bytes` (a frame whose last `trailing` payload bytes are empty
/// sequences and `None`s) as `version` without them: the layout of the
/// format before those fields were added.
fn as_older_version(bytes: &[u8], version: u16, trailing: usize) -> Vec<u8> {
    let header = smithereens_core::codec::FRAME_HEADER_LEN;
    let payload = &bytes[header..bytes.len() - trailing];
    let mut out = bytes[..4].to_vec();
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&smithereens_core::hash::fnv1a64(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

#[test]
fn version_2_snapshots_still_load_with_mass_sums_rebuilt_from_the_chunks() {
    let asset = Arc::new(fixtures::chain(3, &[(0, 1), (1, 2)], &[0]).unwrap());
    let inst = Instance::new(asset.clone(), Pose::IDENTITY).unwrap();
    let mut snap = inst.snapshot();
    assert_eq!(snap.cluster_mass.len(), 1);
    snap.cluster_mass.clear();
    // Version 4's receipt fields, as a version 2 snapshot decodes them.
    snap.receipt_window = None;
    let v2 = as_older_version(&snap.to_bytes(), 2, 3);
    let back = Snapshot::from_bytes(&v2).unwrap();
    assert_eq!(back, snap);
    let restored = Instance::restore(asset, &back).unwrap();
    assert_eq!(restored.state_hash(), inst.state_hash());
    assert_eq!(mass_bits(&restored), mass_bits(&inst));
}

#[test]
fn a_snapshot_whose_mass_sums_disagree_with_its_chunks_is_rejected() {
    let asset = Arc::new(fixtures::chain(3, &[(0, 1), (1, 2)], &[0]).unwrap());
    let inst = Instance::new(asset.clone(), Pose::IDENTITY).unwrap();
    let mut snap = inst.snapshot();
    snap.cluster_mass[0].mass *= 2.0;
    assert!(matches!(
        Instance::restore(asset, &snap),
        Err(SnapshotError::Invalid(_))
    ));
}

#[test]
fn a_version_2_record_that_removes_the_old_cluster_still_applies() {
    // Break 1–2 of the chain 0–1–2 (node 0 supported): the new planner keeps
    // the old handle for {0, 1}; a version 2 writer removed it and created
    // {0, 1} as "the rest of" it under a fresh handle.
    let asset = Arc::new(fixtures::chain(3, &[(0, 1), (1, 2)], &[0]).unwrap());
    let mut live = Instance::new(asset.clone(), Pose::IDENTITY).unwrap();
    let replica = live.clone();
    let old = live.cluster_of(ChunkIndex(0)).unwrap();
    live.admit(RadialDamage {
        id: EventId(1),
        point: asset.bond(BondIndex(1)).unwrap().centroid,
        radius: 0.1,
        damage: 100.0,
        impulse: None,
    })
    .unwrap();
    let out = live.commit(&mut HeadlessBackend::default()).unwrap();
    assert_eq!(out.shrunk, vec![old]);
    let mut record = out.record.unwrap();
    assert!(record.created[0].is_kept(), "the remainder comes first");
    assert!(record.removed.is_empty());
    // Rewrite as version 2 (the last format before kept remainders): remove `old` and recreate its rest as a new
    // cluster; allocation then hands out the freed slot first (one
    // generation later) to the rest, and the next slot to the piece.
    let next_generation: ClusterHandle = serde_json::from_value(serde_json::json!({
        "index": old.index(),
        "generation": old.generation() + 1,
    }))
    .unwrap();
    let rest_handle = next_generation;
    record.removed = vec![old];
    record.created[0].handle = next_generation;
    assert_eq!(record.created[0].nodes, NodeSet::RestOf(old));
    assert!(!record.created[0].is_kept());
    let v2 = smithereens_core::codec::encode(*b"SMCR", 2, &record).unwrap();
    let mut replica = replica;
    let decoded = CommitRecord::from_bytes(&v2).unwrap();
    assert_eq!(
        replica.apply_record(&decoded).unwrap(),
        RecordOutcome::Applied
    );
    assert!(
        replica.cluster(old).is_none(),
        "version 2: the old handle is gone"
    );
    let rest = replica.cluster(rest_handle).unwrap();
    assert_eq!(rest.nodes.to_vec(), vec![ChunkIndex(0), ChunkIndex(1)]);
    let kept = live.cluster(old).unwrap();
    assert!((rest.mass.center - kept.mass.center).length() < 1e-6);
    assert_eq!(rest.mass.mass, kept.mass.mass);
}
