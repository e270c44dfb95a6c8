//! Loading the repository's real meshes.

use smithereens_authoring::{MeshError, load_mesh};
use std::path::Path;

fn asset(name: &str) -> std::path::PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/meshes")).join(name)
}

#[test]
fn box_gltf_welds_to_eight_vertices_with_unit_volume() {
    let mesh = load_mesh(&asset("Box.gltf")).unwrap();
    assert_eq!(mesh.positions.len(), 8);
    assert_eq!(mesh.triangles.len(), 12);
    assert!(
        (mesh.volume() - 1.0).abs() < 1e-9,
        "volume {}",
        mesh.volume()
    );
    mesh.validate().unwrap();
    let (lo, hi) = mesh.bounds();
    assert!((hi - lo - glam::DVec3::ONE).abs().max_element() < 1e-6);
}

#[test]
fn house_obj_is_open_and_rejected_with_28_boundary_edges() {
    let err = load_mesh(&asset("house.obj")).unwrap_err();
    let MeshError::NotClosed {
        open_edges,
        non_manifold_edges,
        ..
    } = err
    else {
        panic!("expected NotClosed, got {err:?}");
    };
    assert_eq!(open_edges, 28);
    assert_eq!(non_manifold_edges, 0);
    let message = err.to_string();
    assert!(message.contains("28 open"), "{message}");
    assert!(message.contains("0 non-manifold"), "{message}");
}

#[test]
fn spot_obj_is_closed_with_the_documented_volume() {
    let mesh = load_mesh(&asset("spot.obj")).unwrap();
    assert_eq!(mesh.triangles.len(), 5856);
    assert!(
        (mesh.volume() - 0.71826).abs() < 1e-4,
        "volume {}",
        mesh.volume()
    );
    // Genus 0: V − E + F = 2, with E = 3F/2 for a closed triangle mesh.
    let (v, f) = (mesh.positions.len() as i64, mesh.triangles.len() as i64);
    assert_eq!(v - 3 * f / 2 + f, 2);
}

#[test]
fn missing_file_and_unknown_extension_are_typed_errors() {
    assert!(matches!(
        load_mesh(&asset("does-not-exist.obj")),
        Err(MeshError::Io { .. })
    ));
    assert!(matches!(
        load_mesh(&asset("README.md")),
        Err(MeshError::UnsupportedFormat { .. })
    ));
}

#[test]
fn obj_with_a_nan_vertex_is_rejected() {
    let dir =
        std::env::temp_dir().join(format!("smithereens-authoring-nan-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("nan.obj");
    std::fs::write(
        &path,
        "v 0 0 0\nv 1 0 0\nv 0 NaN 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 3 1 4\n",
    )
    .unwrap();
    let result = load_mesh(&path);
    std::fs::remove_dir_all(&dir).ok();
    // The index is in the loader's vertex order (OBJ corners in first-use order).
    assert!(
        matches!(result, Err(MeshError::NonFiniteVertex { position, .. }) if position.y.is_nan()),
        "{result:?}"
    );
}
