//! Voronoi fracture of a unit cube and of the real `spot.obj`.

mod common;

use common::{asset, check_fracture, unit_cube};
use glam::DVec3;
use smithereens_authoring::{
    FractureError, FractureSettings, Progress, TriMesh, fracture_voronoi, load_mesh,
    mesh_from_triangles,
};
use std::time::Instant;

#[test]
fn unit_cube_into_8_chunks_conserves_volume_and_is_watertight_and_bonded() {
    let mesh = unit_cube();
    let settings = FractureSettings {
        chunk_count: 8,
        ..Default::default()
    };
    let mut calls = Vec::new();
    let file = fracture_voronoi(&mesh, &settings, &mut |p| calls.push(p)).unwrap();
    let s = check_fracture(&file, 1.0, 3f64.sqrt());
    // A convex mesh: every cell is one convex chunk.
    assert_eq!(s.chunks, 8);
    assert!(s.bonds >= 7);
    assert_eq!(
        calls,
        (1..=8)
            .map(|done| Progress { done, total: 8 })
            .collect::<Vec<_>>()
    );
    // Each chunk's centroid lies inside the cube.
    for c in &file.desc.chunks {
        assert!(c.centroid.min_element() > 0.0 && c.centroid.max_element() < 1.0);
    }
}

#[test]
fn spot_into_24_chunks_conserves_volume_and_is_watertight_and_bonded() {
    let mesh = load_mesh(&asset("spot.obj")).unwrap();
    let (lo, hi) = mesh.bounds();
    let settings = FractureSettings {
        chunk_count: 24,
        seed: 7,
        ..Default::default()
    };
    let start = Instant::now();
    let file = fracture_voronoi(&mesh, &settings, &mut |_| {}).unwrap();
    let elapsed = start.elapsed();
    let s = check_fracture(&file, mesh.volume(), (hi - lo).length());
    assert!(s.chunks >= 24, "{} chunks", s.chunks);
    eprintln!(
        "spot: {} chunks, {} bonds, {} supports in {elapsed:?}",
        s.chunks, s.bonds, s.supports
    );
}

#[test]
fn same_seed_gives_identical_bytes_and_another_seed_does_not() {
    let mesh = load_mesh(&asset("spot.obj")).unwrap();
    let settings = FractureSettings {
        chunk_count: 12,
        seed: 3,
        ..Default::default()
    };
    let a = fracture_voronoi(&mesh, &settings, &mut |_| {})
        .unwrap()
        .to_bytes();
    let b = fracture_voronoi(&mesh, &settings, &mut |_| {})
        .unwrap()
        .to_bytes();
    assert_eq!(a, b);
    let other = FractureSettings {
        seed: 4,
        ..settings
    };
    let c = fracture_voronoi(&mesh, &other, &mut |_| {})
        .unwrap()
        .to_bytes();
    assert_ne!(a, c);
}

#[test]
fn support_follows_the_rule() {
    let mesh = unit_cube();
    let low = FractureSettings {
        chunk_count: 8,
        ..Default::default()
    };
    let file = fracture_voronoi(&mesh, &low, &mut |_| {}).unwrap();
    for (chunk, m) in file.desc.chunks.iter().zip(&file.meshes) {
        let touches = m.positions.iter().any(|p| p.y <= 0.01);
        assert_eq!(chunk.support, touches);
    }
    let none = FractureSettings {
        support: smithereens_authoring::SupportRule::None,
        ..low
    };
    let file = fracture_voronoi(&mesh, &none, &mut |_| {}).unwrap();
    assert!(file.desc.chunks.iter().all(|c| !c.support));
    let top = FractureSettings {
        support: smithereens_authoring::SupportRule::Plane {
            point: DVec3::new(0.0, 0.0, 1.0),
            normal: DVec3::new(0.0, 0.0, -1.0),
            tolerance: 1e-3,
        },
        ..low
    };
    let file = fracture_voronoi(&mesh, &top, &mut |_| {}).unwrap();
    for (chunk, m) in file.desc.chunks.iter().zip(&file.meshes) {
        assert_eq!(chunk.support, m.positions.iter().any(|p| p.z >= 0.999));
    }
}

/// Torus around the Y axis (major radius `big`, minor `small`), lying on
/// the XZ plane: cross-sections through the hole are rings and pairs of disks.
fn torus(big: f64, small: f64, around: u32, tube: u32) -> TriMesh {
    let mut positions = Vec::new();
    for i in 0..around {
        let u = std::f64::consts::TAU * i as f64 / around as f64;
        for j in 0..tube {
            let v = std::f64::consts::TAU * j as f64 / tube as f64;
            let r = big + small * v.cos();
            positions.push(DVec3::new(r * u.cos(), small * v.sin(), r * u.sin()));
        }
    }
    let id = |i: u32, j: u32| (i % around) * tube + (j % tube);
    let mut triangles = Vec::new();
    for i in 0..around {
        for j in 0..tube {
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            triangles.push([a, c, b]);
            triangles.push([a, d, c]);
        }
    }
    mesh_from_triangles(positions, triangles).expect("a torus is closed")
}

#[test]
fn torus_cut_through_its_hole_is_capped_watertight() {
    let mesh = torus(1.0, 0.35, 48, 24);
    let (lo, hi) = mesh.bounds();
    for seed in 1..=3 {
        let settings = FractureSettings {
            chunk_count: 10,
            seed,
            ..Default::default()
        };
        let file = fracture_voronoi(&mesh, &settings, &mut |_| {}).unwrap();
        let s = check_fracture(&file, mesh.volume(), (hi - lo).length());
        assert!(s.chunks >= 10);
    }
}

#[test]
fn box_gltf_fractures_into_valid_chunks() {
    let mesh = load_mesh(&asset("Box.gltf")).unwrap();
    let (lo, hi) = mesh.bounds();
    let file = fracture_voronoi(
        &mesh,
        &FractureSettings {
            chunk_count: 6,
            ..Default::default()
        },
        &mut |_| {},
    )
    .unwrap();
    let s = check_fracture(&file, 1.0, (hi - lo).length());
    assert_eq!(s.chunks, 6);
    assert!(file.provenance.contains("chunk_count=6"));
}

#[test]
fn sites_that_cannot_be_placed_give_a_typed_error() {
    // A needle along the bounding box diagonal fills ~2e-7 of its box.
    let p = vec![
        DVec3::ZERO,
        DVec3::ONE,
        DVec3::new(1e-3, 0.0, 0.0),
        DVec3::new(0.0, 1e-3, 0.0),
    ];
    let needle = mesh_from_triangles(p, vec![[0, 2, 1], [0, 1, 3], [1, 2, 3], [2, 0, 3]]).unwrap();
    let err = fracture_voronoi(
        &needle,
        &FractureSettings {
            chunk_count: 2,
            ..Default::default()
        },
        &mut |_| {},
    )
    .unwrap_err();
    assert!(
        matches!(err, FractureError::SitePlacement { requested: 2, .. }),
        "{err:?}"
    );
}
