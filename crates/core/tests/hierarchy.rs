//! Fracture hierarchies: parent/child/depth, the support depth, and a
//! runtime that simulates only the support-level chunks.

use smithereens_core::commit::HeadlessBackend;
use smithereens_core::fixtures::cube_chunk;
use smithereens_core::glam::Vec3;
use smithereens_core::*;
use std::sync::Arc;

mod common;

/// Two 2 × 1 × 1 m parents (x ∈ [0, 2] and [2, 4], 1000 kg/m³), each split
/// into two unit cubes. Chunks: 0, 1 = parents (depth 0); 2, 3 = children
/// of 0; 4, 5 = children of 1. The leftmost child is a support.
fn two_level(support_depth: Option<u32>) -> AssetDesc {
    let parent = |x: f32| {
        let mut c = cube_chunk(Vec3::new(x, 0.5, 0.5), 1.0, 1000.0, false);
        c.volume = 2.0;
        c.mass = 2000.0;
        // A 2 × 1 × 1 box: I = m/12 · (b² + c², a² + c², a² + b²).
        c.inertia =
            smithereens_core::glam::Mat3::from_diagonal(Vec3::new(2.0, 5.0, 5.0) * (2000.0 / 12.0));
        c
    };
    let child = |x: f32, parent: u32| {
        let mut c = cube_chunk(Vec3::new(x, 0.5, 0.5), 1.0, 1000.0, x < 1.0);
        c.parent = Some(parent);
        c.depth = 1;
        c
    };
    let bond = |a: u32, b: u32, x: f32| BondDesc {
        chunk0: a,
        chunk1: BondEnd::Chunk(b),
        centroid: Vec3::new(x, 0.5, 0.5),
        normal: Vec3::X,
        area: 1.0,
        strength: 10.0,
    };
    let mut desc = AssetDesc {
        chunks: vec![
            parent(1.0),
            parent(3.0),
            child(0.5, 0),
            child(1.5, 0),
            child(2.5, 1),
            child(3.5, 1),
        ],
        bonds: vec![bond(2, 3, 1.0), bond(3, 4, 2.0), bond(4, 5, 3.0)],
        support_depth,
    };
    if support_depth == Some(0) {
        // The parents are the simulated level: one bond between them, and
        // the support flag moves up to the left parent.
        desc.bonds = vec![bond(0, 1, 2.0)];
        for c in &mut desc.chunks {
            c.support = false;
        }
        desc.chunks[0].support = true;
    }
    desc
}

#[test]
fn support_depth_picks_the_simulated_level_and_the_rest_owns_no_cluster() {
    for support_depth in [None, Some(1)] {
        let asset = Arc::new(Asset::new(&two_level(support_depth)).unwrap());
        let level: Vec<u32> = asset.support_level_chunks().map(|c| c.0).collect();
        assert_eq!(level, [2, 3, 4, 5], "support depth {support_depth:?}");
        assert_eq!(asset.chunks()[ChunkIndex(0)].child_count, 2);
        assert_eq!(asset.chunks()[ChunkIndex(2)].child_count, 0);
        // The children's 4 m³ of 1000 kg/m³, not 8 t counting parents too.
        assert_eq!(asset.total_mass(), 4000.0);
        let inst = Instance::new(asset.clone(), Pose::IDENTITY).unwrap();
        assert_eq!(inst.cluster_count(), 1);
        let (_, cluster) = inst.clusters().next().unwrap();
        assert_eq!(cluster.nodes.to_vec(), [2, 3, 4, 5].map(ChunkIndex));
        assert!(cluster.supported);
        assert_eq!(inst.cluster_of(ChunkIndex(0)), None);
        assert_eq!(inst.cluster_of(ChunkIndex(1)), None);
        assert!(inst.cluster_of(ChunkIndex(4)).is_some());
    }

    let asset = Arc::new(Asset::new(&two_level(Some(0))).unwrap());
    let level: Vec<u32> = asset.support_level_chunks().map(|c| c.0).collect();
    assert_eq!(level, [0, 1]);
    assert_eq!(asset.total_mass(), 4000.0);
    let inst = Instance::new(asset, Pose::IDENTITY).unwrap();
    let (_, cluster) = inst.clusters().next().unwrap();
    assert_eq!(cluster.nodes.to_vec(), [0, 1].map(ChunkIndex));
    assert_eq!(inst.cluster_of(ChunkIndex(3)), None, "subsupport chunk");
}

#[test]
fn breaking_between_the_parents_splits_the_children_by_parent() {
    let asset = Arc::new(Asset::new(&two_level(Some(1))).unwrap());
    let mut inst = Instance::new(asset, Pose::IDENTITY).unwrap();
    // 20 du at the 3–4 bond (x = 2) with a tiny radius: only that bond is in
    // range, so it takes all of it and breaks.
    inst.admit(RadialDamage {
        id: EventId(1),
        point: Vec3::new(2.0, 0.5, 0.5),
        radius: 0.1,
        damage: 20.0,
        impulse: None,
    })
    .unwrap();
    let out = inst.commit(&mut HeadlessBackend::default()).unwrap();
    assert_eq!(out.broken, vec![BondIndex(1)]);
    let mut clusters: Vec<(Vec<ChunkIndex>, bool, f32)> = inst
        .clusters()
        .map(|(_, c)| (c.nodes.to_vec(), c.supported, c.mass.mass))
        .collect();
    // Which side keeps the old handle is the island search's choice.
    clusters.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        clusters,
        vec![
            (vec![ChunkIndex(2), ChunkIndex(3)], true, 2000.0),
            (vec![ChunkIndex(4), ChunkIndex(5)], false, 2000.0),
        ]
    );
    // Snapshots keep "no owner" for the ancestors and restore exactly.
    let snap = inst.snapshot();
    let back = Instance::restore(inst.asset().clone(), &snap).unwrap();
    assert_eq!(back.state_hash(), inst.state_hash());
    assert_eq!(back.cluster_of(ChunkIndex(0)), None);
}

#[test]
fn a_malformed_hierarchy_gets_a_typed_error() {
    let mut desc = two_level(Some(1));
    desc.chunks[3].depth = 2;
    assert!(matches!(
        Asset::new(&desc),
        Err(AssetError::BadDepth {
            chunk: ChunkIndex(3),
            depth: 2,
            expected: 1
        })
    ));

    let mut desc = two_level(Some(1));
    desc.chunks[0].depth = 1;
    assert!(matches!(
        Asset::new(&desc),
        Err(AssetError::BadDepth {
            chunk: ChunkIndex(0),
            expected: 0,
            ..
        })
    ));

    // A child that is 10 % too big: the parent no longer equals its children.
    let mut desc = two_level(Some(1));
    desc.chunks[5].volume = 1.1;
    match Asset::new(&desc) {
        Err(AssetError::HierarchyVolume {
            chunk,
            volume,
            children,
        }) => {
            assert_eq!(chunk, ChunkIndex(1));
            assert_eq!(volume, 2.0);
            assert!((children - 2.1).abs() < 1e-6);
        }
        other => panic!("expected HierarchyVolume, got {other:?}"),
    }

    // The support flag on an ancestor.
    let mut desc = two_level(Some(1));
    desc.chunks[0].support = true;
    assert!(matches!(
        Asset::new(&desc),
        Err(AssetError::SupportOffLevel {
            chunk: ChunkIndex(0)
        })
    ));

    // With support depth 0 the children are subsupport: no bonds on them.
    let mut desc = two_level(Some(0));
    desc.bonds.push(BondDesc {
        chunk0: 2,
        chunk1: BondEnd::Chunk(3),
        centroid: Vec3::new(1.0, 0.5, 0.5),
        normal: Vec3::X,
        area: 1.0,
        strength: 10.0,
    });
    assert!(matches!(
        Asset::new(&desc),
        Err(AssetError::BondOffSupportLevel {
            bond: BondIndex(1),
            chunk: ChunkIndex(2)
        })
    ));

    // A world bond on an ancestor.
    let mut desc = two_level(Some(1));
    desc.bonds.push(BondDesc {
        chunk0: 1,
        chunk1: BondEnd::World,
        centroid: Vec3::ZERO,
        normal: Vec3::Y,
        area: 1.0,
        strength: 10.0,
    });
    assert!(matches!(
        Asset::new(&desc),
        Err(AssetError::BondOffSupportLevel {
            chunk: ChunkIndex(1),
            ..
        })
    ));
}

#[test]
fn the_support_level_mask_matches_the_validated_asset_and_is_an_exact_cover() {
    for support_depth in [None, Some(0), Some(1), Some(7)] {
        let desc = two_level(support_depth);
        let asset = Asset::new(&desc).unwrap();
        let mask = desc.support_level_mask();
        let validated: Vec<bool> = asset.chunks().iter().map(|c| c.support_level).collect();
        assert_eq!(mask, validated, "{support_depth:?}");
        // Every leaf's root path holds exactly one support-level chunk.
        for leaf in asset
            .chunks()
            .indices()
            .filter(|&i| asset.chunks()[i].child_count == 0)
        {
            let mut on_path = 0;
            let mut at = Some(leaf);
            while let Some(i) = at {
                on_path += mask[i.0 as usize] as u32;
                at = asset.chunks()[i].parent;
            }
            assert_eq!(
                on_path, 1,
                "leaf {leaf} with support depth {support_depth:?}"
            );
        }
    }
}

#[test]
fn a_flat_asset_keeps_its_fingerprint_and_is_all_support_level() {
    let flat = common::three_chunks_desc();
    let asset = Asset::new(&flat).unwrap();
    assert!(asset.chunks().iter().all(|c| c.support_level));
    // Value printed by the build before hierarchies existed: runs and
    // journals recorded then still name the same asset.
    let chain = fixtures::chain(3, &[(0, 1), (1, 2)], &[0]).unwrap();
    assert_eq!(chain.fingerprint(), 0x6a19d3570ca44e9c);
    // Support depth None and a depth that every root already reaches select
    // the same chunks, but only the implicit one keeps the historic hash.
    let mut explicit = flat.clone();
    explicit.support_depth = Some(0);
    let explicit = Asset::new(&explicit).unwrap();
    assert_eq!(
        explicit.support_level_chunks().count(),
        asset.support_level_chunks().count()
    );
    assert_ne!(explicit.fingerprint(), asset.fingerprint());
}
