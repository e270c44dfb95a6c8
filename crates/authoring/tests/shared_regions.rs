//! `FractureSettings::shared_regions` (the default): cells carved from
//! shared regions of the mesh, caps in outline order. The chunks and bonds
//! must be those of carving every cell from the whole mesh; only the
//! triangulation may differ.

mod common;

use common::asset;
use smithereens_authoring::{FractureSettings, fracture_voronoi, load_mesh};

#[test]
fn shared_regions_give_the_same_chunks_and_bonds_as_carving_from_the_whole_mesh() {
    let mesh = load_mesh(&asset("spot.obj")).unwrap();
    let base = FractureSettings {
        chunk_count: 150,
        shared_regions: false,
        ..Default::default()
    };
    let shared = FractureSettings {
        shared_regions: true,
        ..base
    };
    assert!(FractureSettings::default().shared_regions);
    let a = fracture_voronoi(&mesh, &base, &mut |_| {}).unwrap();
    let b = fracture_voronoi(&mesh, &shared, &mut |_| {}).unwrap();
    assert!(b.provenance.contains("shared_regions"), "{}", b.provenance);
    assert!(!a.provenance.contains("shared_regions"));
    let (ca, cb) = (&a.desc.chunks, &b.desc.chunks);
    assert_eq!(ca.len(), cb.len());
    assert_eq!(ca.len(), 150);
    let total: f32 = ca.iter().map(|c| c.volume).sum();
    for (k, (x, y)) in ca.iter().zip(cb).enumerate() {
        assert!(
            (x.volume - y.volume).abs() <= 1e-5 * total,
            "chunk {k}: {} vs {} m³",
            x.volume,
            y.volume
        );
        assert!((x.centroid - y.centroid).length() <= 1e-4, "chunk {k}");
        assert_eq!(x.support, y.support, "chunk {k}");
    }
    let (ba, bb) = (&a.desc.bonds, &b.desc.bonds);
    assert_eq!(ba.len(), bb.len());
    let bond_area: f32 = ba.iter().map(|b| b.area).sum();
    for (k, (x, y)) in ba.iter().zip(bb).enumerate() {
        assert_eq!((x.chunk0, x.chunk1), (y.chunk0, y.chunk1), "bond {k}");
        assert!(
            (x.area - y.area).abs() <= 1e-5 * bond_area,
            "bond {k}: {} vs {} m²",
            x.area,
            y.area
        );
    }
    // The render meshes differ (another triangulation) but stay closed:
    // the asset passed the same checks on the way out.
    assert_ne!(a.to_bytes(), b.to_bytes());
}

#[test]
fn shared_regions_are_ignored_with_the_short_edge_collapse() {
    let mesh = load_mesh(&asset("spot.obj")).unwrap();
    let base = FractureSettings {
        chunk_count: 40,
        collapse_short_edges: true,
        shared_regions: false,
        ..Default::default()
    };
    let shared = FractureSettings {
        shared_regions: true,
        ..base
    };
    let a = fracture_voronoi(&mesh, &base, &mut |_| {}).unwrap();
    let b = fracture_voronoi(&mesh, &shared, &mut |_| {}).unwrap();
    assert_eq!(a.desc, b.desc);
}
