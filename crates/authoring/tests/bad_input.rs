//! Bad input gets a typed error, never a panic.

mod common;

use common::unit_cube;
use glam::DVec3;
use smithereens_authoring::{
    FractureError, FractureSettings, MeshError, SupportRule, TriMesh, fracture_voronoi,
    mesh_from_triangles,
};

fn run(
    mesh: &TriMesh,
    settings: FractureSettings,
) -> Result<smithereens_core::AssetFile, FractureError> {
    let mut calls = 0;
    let result = fracture_voronoi(mesh, &settings, &mut |_| calls += 1);
    if result.is_err() {
        assert_eq!(calls, 0, "settings and mesh are validated before any work");
    }
    result
}

#[test]
fn nan_vertex_is_rejected_by_the_constructor() {
    let mut p = unit_cube().positions;
    p[3].x = f64::NAN;
    let err = mesh_from_triangles(p, unit_cube().triangles).unwrap_err();
    assert!(
        matches!(err, MeshError::NonFiniteVertex { index: 3, .. }),
        "{err:?}"
    );
}

#[test]
fn nan_vertex_in_a_hand_built_mesh_is_rejected_by_fracture() {
    let mut mesh = unit_cube();
    mesh.positions[0].z = f64::INFINITY;
    let err = run(&mesh, FractureSettings::default()).unwrap_err();
    assert!(
        matches!(err, FractureError::Mesh(MeshError::NonFiniteVertex { .. })),
        "{err:?}"
    );
}

#[test]
fn out_of_range_index_in_a_hand_built_mesh_is_rejected_by_fracture() {
    let mut mesh = unit_cube();
    mesh.triangles[5][2] = 1000;
    let err = run(&mesh, FractureSettings::default()).unwrap_err();
    assert!(
        matches!(
            err,
            FractureError::Mesh(MeshError::IndexOutOfRange { index: 1000, .. })
        ),
        "{err:?}"
    );
}

#[test]
fn open_hand_built_mesh_is_rejected_by_fracture() {
    let mut mesh = unit_cube();
    mesh.triangles.pop();
    let err = run(&mesh, FractureSettings::default()).unwrap_err();
    assert!(
        matches!(
            err,
            FractureError::Mesh(MeshError::NotClosed { open_edges: 3, .. })
        ),
        "{err:?}"
    );
}

#[test]
fn zero_chunk_count_is_rejected() {
    let err = run(
        &unit_cube(),
        FractureSettings {
            chunk_count: 0,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(matches!(err, FractureError::ZeroChunkCount), "{err:?}");
}

#[test]
fn negative_or_nan_density_is_rejected_with_the_value() {
    let err = run(
        &unit_cube(),
        FractureSettings {
            density: -5.0,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        matches!(err, FractureError::InvalidDensity { value } if value == -5.0),
        "{err:?}"
    );
    assert!(err.to_string().contains("-5"), "{err}");
    let err = run(
        &unit_cube(),
        FractureSettings {
            density: f64::NAN,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        matches!(err, FractureError::InvalidDensity { .. }),
        "{err:?}"
    );
}

#[test]
fn bad_strength_tolerance_and_plane_are_rejected() {
    let cube = unit_cube();
    let err = run(
        &cube,
        FractureSettings {
            strength_per_area: f64::INFINITY,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        matches!(err, FractureError::InvalidStrength { .. }),
        "{err:?}"
    );
    let support = SupportRule::LowestPlane {
        axis: smithereens_authoring::Axis::Z,
        tolerance: 0.0,
    };
    let err = run(
        &cube,
        FractureSettings {
            support,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        matches!(err, FractureError::InvalidSupportTolerance { .. }),
        "{err:?}"
    );
    let support = SupportRule::Plane {
        point: DVec3::ZERO,
        normal: DVec3::ZERO,
        tolerance: 0.1,
    };
    let err = run(
        &cube,
        FractureSettings {
            support,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        matches!(err, FractureError::InvalidSupportPlane { .. }),
        "{err:?}"
    );
}
