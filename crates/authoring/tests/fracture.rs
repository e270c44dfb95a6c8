//! Voronoi fracture of a unit cube and of the real `spot.obj`.

mod common;

use common::{asset, check_fracture, unit_cube};
use glam::DVec3;
use smithereens_authoring::{FractureSettings, Progress, fracture_voronoi, load_mesh};
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
