//! A defined outcome for every real mesh in `assets/meshes` (copied from the
//! team's vetted collection; see its README for sources and licences).

#![allow(clippy::unwrap_used)]

mod common;

use common::{asset, check_fracture};
use smithereens_authoring::{
    FractureSettings, MeshError, OpenMeshFallback, RepairOptions, fracture_voronoi, load_mesh,
    load_mesh_with,
};

fn hull_options() -> RepairOptions {
    RepairOptions {
        open_fallback: OpenMeshFallback::ConvexHull,
        ..Default::default()
    }
}

fn fracture_ok(mesh: &smithereens_authoring::TriMesh, chunks: u32) {
    let (lo, hi) = mesh.bounds();
    let settings = FractureSettings {
        chunk_count: chunks,
        seed: 5,
        ..Default::default()
    };
    let file = fracture_voronoi(mesh, &settings, &mut |_| {}).unwrap();
    check_fracture(&file, mesh.volume(), (hi - lo).length());
}

fn open_edges(name: &str) -> (usize, usize) {
    match load_mesh(&asset(name)) {
        Err(MeshError::NotClosed {
            open_edges,
            non_manifold_edges,
            example,
        }) => {
            assert!(example.is_finite());
            (open_edges, non_manifold_edges)
        }
        other => panic!("{name}: expected NotClosed, got {other:?}"),
    }
}

#[test]
fn clean_meshes_load_unchanged_and_fracture() {
    for (name, volume) in [
        ("spot.obj", 0.71826),
        ("bob_tri.obj", 0.68892),
        ("Box.gltf", 1.0),
    ] {
        let (mesh, report) = load_mesh_with(&asset(name), &RepairOptions::default()).unwrap();
        assert!(report.warnings().is_empty(), "{name}: {report:?}");
        assert!((mesh.volume() - volume).abs() < 1e-5, "{name}");
        fracture_ok(&mesh, 10);
    }
}

#[test]
fn stairs_duplicates_are_removed_zero_area_fill_kept_and_it_fractures() {
    let (mesh, report) = load_mesh_with(&asset("stairs.obj"), &RepairOptions::default()).unwrap();
    assert_eq!(report.input_triangles, 248);
    assert_eq!(report.duplicate_faces_removed, 124);
    // Its zero-area triangles fill T-junctions: the triangles across them
    // are split at the junction and the zero-area ones dropped.
    assert_eq!(report.zero_area_faces_kept, 0);
    assert!(report.zero_area_faces_dropped > 0, "{report:?}");
    mesh.validate().unwrap();
    assert!((mesh.volume() - 0.5608).abs() < 1e-4);
    fracture_ok(&mesh, 12);
}

#[test]
fn open_meshes_are_rejected_with_counts_and_a_position() {
    // Counts after welding and duplicate removal (as in the collection's README).
    assert_eq!(open_edges("house.obj"), (28, 0));
    assert_eq!(open_edges("wall.obj"), (36, 0));
    assert_eq!(open_edges("column.obj"), (8, 0));
    let message = load_mesh(&asset("wall.obj")).unwrap_err().to_string();
    assert!(message.contains("36 open"), "{message}");
}

#[test]
fn open_meshes_fracture_as_their_convex_hull_on_request() {
    for name in ["house.obj", "wall.obj", "column.obj"] {
        let (mesh, report) = load_mesh_with(&asset(name), &hull_options()).unwrap();
        assert!(report.replaced_by_convex_hull.is_some(), "{name}");
        assert!(report.warnings().iter().any(|w| w.contains("convex hull")));
        fracture_ok(&mesh, 8);
    }
    // wall.obj: its face list appears twice.
    let (_, report) = load_mesh_with(&asset("wall.obj"), &hull_options()).unwrap();
    assert_eq!(report.duplicate_faces_removed, 186);
}
