//! `FractureSettings::shared_regions` (the default): cells carved from
//! shared regions of the mesh, caps in outline order. The chunks and bonds
//! must be those of carving every cell from the whole mesh; only the
//! triangulation may differ. With the short-edge collapse (also the
//! default) the result must weld cleanly as well.

mod common;

use common::asset;
use smithereens_authoring::{
    FractureSettings, MIN_AREA_FRACTION, MIN_EDGE_FRACTION, fracture_voronoi, load_mesh,
};

#[test]
fn shared_regions_give_the_same_chunks_and_bonds_as_carving_from_the_whole_mesh() {
    let mesh = load_mesh(&asset("spot.obj")).unwrap();
    // Carving alone: the short-edge collapse (on by default) visits edges
    // in an order that depends on the triangulation, so its moves differ.
    let base = FractureSettings {
        chunk_count: 150,
        shared_regions: false,
        collapse_short_edges: false,
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
fn shared_regions_and_the_short_edge_collapse_are_the_default_and_weld_cleanly() {
    let mesh = load_mesh(&asset("spot.obj")).unwrap();
    let (lo, hi) = mesh.bounds();
    let diagonal = (hi - lo).length();
    let settings = FractureSettings {
        chunk_count: 150,
        ..Default::default()
    };
    assert!(settings.shared_regions && settings.collapse_short_edges);
    let file = fracture_voronoi(&mesh, &settings, &mut |_| {}).unwrap();
    assert!(
        file.provenance
            .contains("collapse_short_edges shared_regions"),
        "{}",
        file.provenance
    );
    common::check_fracture(&file, mesh.volume(), diagonal);
    let m = common::weld::file_weld_metric(&file, MIN_EDGE_FRACTION * diagonal);
    assert!(m.is_clean(), "{m:?}");
    assert_eq!(m.triangles_with_short_edge, 0, "{m:?}");
    assert!(
        m.smallest_area >= MIN_AREA_FRACTION * diagonal * diagonal,
        "{m:?}"
    );
}
