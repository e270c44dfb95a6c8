//! Mass properties of closed meshes through the public API.

use glam::{DMat3, DQuat, DVec3, EulerRot};
use smithereens_authoring::{TriMesh, mesh_from_triangles};

/// Box `[0,s.x]×[0,s.y]×[0,s.z]`, transformed by `rotation` then `shift`.
fn box_mesh(s: DVec3, rotation: DQuat, shift: DVec3) -> TriMesh {
    let corner = |i: u32| {
        let local = DVec3::new(
            (i & 1) as f64 * s.x,
            ((i >> 1) & 1) as f64 * s.y,
            ((i >> 2) & 1) as f64 * s.z,
        );
        rotation * local + shift
    };
    mesh_from_triangles(
        (0..8).map(corner).collect(),
        smithereens_authoring::BOX_TRIANGLES.to_vec(),
    )
    .expect("a box is closed")
}

fn max_abs(m: DMat3) -> f64 {
    m.to_cols_array().iter().fold(0.0, |a, v| a.max(v.abs()))
}

#[test]
fn unit_cube_has_volume_one_centroid_at_its_centre_and_inertia_one_sixth() {
    let cube = box_mesh(DVec3::ONE, DQuat::IDENTITY, DVec3::ZERO);
    let mp = cube.mass_properties(1.0);
    assert!((mp.volume - 1.0).abs() < 1e-12);
    assert!((mp.mass - 1.0).abs() < 1e-12);
    assert!((mp.centroid - DVec3::splat(0.5)).length() < 1e-12);
    assert!(max_abs(mp.inertia - DMat3::from_diagonal(DVec3::splat(1.0 / 6.0))) < 1e-12);
}

#[test]
fn translated_and_rotated_box_gives_the_rotated_tensor() {
    let size = DVec3::new(0.5, 1.5, 3.0);
    let density = 2400.0;
    let rotation = DQuat::from_euler(EulerRot::ZYX, 0.4, -0.9, 2.1);
    let shift = DVec3::new(-20.0, 3.0, 45.0);
    let moved = box_mesh(size, rotation, shift).mass_properties(density);
    let mass = density * size.x * size.y * size.z;
    let local = DMat3::from_diagonal(
        DVec3::new(
            size.y * size.y + size.z * size.z,
            size.x * size.x + size.z * size.z,
            size.x * size.x + size.y * size.y,
        ) * (mass / 12.0),
    );
    let r = DMat3::from_quat(rotation);
    let expected = r * local * r.transpose();
    assert!((moved.mass - mass).abs() < 1e-9 * mass);
    assert!((moved.centroid - (rotation * (size * 0.5) + shift)).length() < 1e-9);
    assert!(
        max_abs(moved.inertia - expected) < 1e-9 * max_abs(expected),
        "{:?} vs {expected:?}",
        moved.inertia
    );
    assert!(max_abs(moved.inertia - moved.inertia.transpose()) < 1e-12 * max_abs(expected));
}
