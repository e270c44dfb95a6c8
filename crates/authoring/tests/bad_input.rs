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

/// A 1 m cube 1e7 m out gave 8 whole copies of itself as "chunks" (exit 0,
/// volume +7 relative); 1e5 m out the volumes were off by 2e-4 (bad-input
/// sweep). Within 1,000 times its size of the origin it is fractured.
#[test]
fn a_mesh_far_from_the_origin_for_its_size_is_rejected_by_fracture() {
    for offset in [1e4, 1e5, 1e7] {
        let mut mesh = unit_cube();
        for p in &mut mesh.positions {
            p.x += offset;
        }
        let settings = FractureSettings {
            chunk_count: 8,
            ..Default::default()
        };
        let err = run(&mesh, settings).unwrap_err();
        assert!(
            matches!(
                err,
                FractureError::Mesh(MeshError::FarFromOrigin { distance, size })
                    if distance == offset + 1.0 && size == 1.0
            ),
            "{offset}: {err:?}"
        );
        let source = std::error::Error::source(&err).map(ToString::to_string);
        assert!(
            source.is_some_and(|m| m.contains("move it to the origin")),
            "{err}"
        );
    }
    let mut near = unit_cube();
    for p in &mut near.positions {
        p.x += 999.0;
    }
    let settings = FractureSettings {
        chunk_count: 8,
        ..Default::default()
    };
    let file = run(&near, settings).unwrap();
    let volume: f32 = file.desc.chunks.iter().map(|c| c.volume).sum();
    assert!((volume - 1.0).abs() < 1e-4, "{volume}");
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
