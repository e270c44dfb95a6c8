//! `fracture_with_report` (sliver events, volume balance) and
//! `BondRule::Off` (an asset of loose pieces).

#![allow(clippy::unwrap_used)]

mod common;

use common::{asset, unit_cube};
use glam::DVec3;
use smithereens_authoring::{
    BondRule, CutPlane, FractureSettings, Pattern, SliverAction, SliverReason, fracture,
    fracture_voronoi, fracture_with_report, load_mesh,
};

/// Two planes near the `x = 1` and `z = 1` faces of the unit cube leave a
/// 1 mm × 2 mm × 1 m rod in the corner (principal moment ratio ≈ 5e-6).
fn corner_rod_cuts() -> Pattern {
    Pattern::Planar {
        planes: vec![
            CutPlane {
                point: DVec3::new(1.0 - 1e-3, 0.0, 0.0),
                normal: DVec3::X,
            },
            CutPlane {
                point: DVec3::new(0.0, 0.0, 1.0 - 2e-3),
                normal: DVec3::Z,
            },
        ],
    }
}

#[test]
fn thin_corner_rod_is_reported_as_merged_into_the_neighbour_with_the_larger_interface() {
    let mesh = unit_cube();
    let settings = FractureSettings::default();
    let (file, report) =
        fracture_with_report(&mesh, &settings, &corner_rod_cuts(), &mut |_| {}).unwrap();
    assert_eq!(report.raw_pieces, 4);
    assert_eq!(report.chunks, 3);
    assert_eq!(file.desc.chunks.len(), 3);
    assert_eq!((report.merged, report.dropped), (1, 0));
    assert_eq!(report.dropped_volume, 0.0);
    assert_eq!(report.slivers.len(), 1);
    let rod = &report.slivers[0];
    assert!((rod.volume - 2e-6).abs() < 1e-12, "{rod:?}");
    assert!(
        (rod.centroid - DVec3::new(1.0 - 5e-4, 0.5, 1.0 - 1e-3)).length() < 1e-9,
        "{rod:?}"
    );
    assert_eq!(rod.pieces, 1);
    assert!(
        matches!(rod.reason, SliverReason::ThinInertia { ratio } if ratio > 0.0 && ratio < 1e-4),
        "{rod:?}"
    );
    // The rod shares 2e-3 m² with the x < 1 − 1e-3 slab above z = 1 − 2e-3 and
    // 1e-3 m² with the x slab below it: it joins the first, 2 mm × 1 m × 1 m.
    let SliverAction::Merged { chunk } = rod.action else {
        panic!("{rod:?}");
    };
    let merged = &file.desc.chunks[chunk.get() as usize];
    assert!((merged.volume as f64 - 2e-3).abs() < 1e-8, "{merged:?}");
    // Nothing is lost: Σ chunks = mesh.
    assert_eq!(report.mesh_volume, 1.0);
    assert!(report.volume_error.abs() < 1e-6, "{report:?}");
    let sum: f64 = file.desc.chunks.iter().map(|c| c.volume as f64).sum();
    assert_eq!(sum, report.chunk_volume);
    // The provenance counts the same.
    assert!(
        file.provenance
            .contains("slivers: 1 merged into a neighbour, 0 dropped"),
        "{}",
        file.provenance
    );
    // And `fracture` gives the same asset.
    let plain = fracture(&mesh, &settings, &corner_rod_cuts(), &mut |_| {}).unwrap();
    assert_eq!(plain.to_bytes(), file.to_bytes());
}

#[test]
fn sliver_below_the_volume_floor_is_reported_as_dropped_with_its_volume() {
    // A 1e-4 m × 1 m × 5e-6 m rod: 5e-10 m³, below 1e-9 of the cube.
    let mesh = unit_cube();
    let pattern = Pattern::Planar {
        planes: vec![
            CutPlane {
                point: DVec3::new(1.0 - 1e-4, 0.0, 0.0),
                normal: DVec3::X,
            },
            CutPlane {
                point: DVec3::new(0.0, 0.0, 1.0 - 5e-6),
                normal: DVec3::Z,
            },
        ],
    };
    let (file, report) =
        fracture_with_report(&mesh, &FractureSettings::default(), &pattern, &mut |_| {}).unwrap();
    let dropped: Vec<_> = report
        .slivers
        .iter()
        .filter(|e| e.action == SliverAction::Dropped)
        .collect();
    assert_eq!(dropped.len(), 1, "{report:?}");
    assert_eq!(dropped[0].reason, SliverReason::BelowVolumeFloor);
    assert!((dropped[0].volume - 5e-10).abs() < 1e-14, "{report:?}");
    assert_eq!(report.dropped, 1);
    assert_eq!(report.dropped_volume, dropped[0].volume);
    assert_eq!(report.chunks as usize, file.desc.chunks.len());
    assert!((report.volume_error + 5e-10).abs() < 1e-6, "{report:?}");
}

#[test]
fn clean_voronoi_fracture_reports_no_slivers_and_a_tiny_volume_error() {
    let mesh = unit_cube();
    let settings = FractureSettings {
        chunk_count: 8,
        ..Default::default()
    };
    let (file, report) =
        fracture_with_report(&mesh, &settings, &Pattern::default(), &mut |_| {}).unwrap();
    assert!(report.slivers.is_empty(), "{report:?}");
    assert_eq!((report.raw_pieces, report.chunks), (8, 8));
    assert!(report.relative_volume_error().abs() < 1e-6);
    let plain = fracture_voronoi(&mesh, &settings, &mut |_| {}).unwrap();
    assert_eq!(plain.to_bytes(), file.to_bytes());
}

#[test]
fn bonds_off_gives_the_same_chunks_and_meshes_without_any_bond() {
    let mesh = load_mesh(&asset("spot.obj")).unwrap();
    let detect = FractureSettings {
        chunk_count: 24,
        seed: 7,
        ..Default::default()
    };
    assert_eq!(detect.bonds, BondRule::Detect);
    let off = FractureSettings {
        bonds: BondRule::Off,
        ..detect
    };
    let with = fracture_voronoi(&mesh, &detect, &mut |_| {}).unwrap();
    let without = fracture_voronoi(&mesh, &off, &mut |_| {}).unwrap();
    assert!(!with.desc.bonds.is_empty());
    assert!(without.desc.bonds.is_empty());
    assert_eq!(with.desc.chunks, without.desc.chunks);
    assert_eq!(with.meshes, without.meshes);
    assert!(without.desc.chunks.iter().any(|c| c.support));
    // Recorded in the provenance; the default does not mention it, so
    // default assets keep the bytes they had before the setting existed.
    assert!(
        without.provenance.contains("bonds=Off"),
        "{}",
        without.provenance
    );
    assert!(!with.provenance.contains("bonds="), "{}", with.provenance);
    // Every chunk is its own island at runtime.
    let asset = smithereens_core::Asset::new(&without.desc).unwrap();
    let health: Vec<f32> = Vec::new();
    let islands = smithereens_core::island::find_islands(&asset, &health);
    assert_eq!(islands.len(), without.desc.chunks.len());
    // Also for a plane-cut pattern.
    let (sliced, report) = fracture_with_report(&mesh, &off, &slices_2x2x2(), &mut |_| {}).unwrap();
    assert!(sliced.desc.bonds.is_empty());
    assert_eq!(report.chunks as usize, sliced.desc.chunks.len());
}

fn slices_2x2x2() -> Pattern {
    Pattern::Slice(smithereens_authoring::SliceSettings {
        counts: [2, 2, 2],
        ..Default::default()
    })
}

#[test]
fn settings_without_a_bonds_field_deserialize_to_detect() {
    let json = serde_json::to_value(FractureSettings::default()).unwrap();
    let mut object = json.as_object().unwrap().clone();
    assert_eq!(object.remove("bonds").unwrap(), "Detect");
    let back: FractureSettings = serde_json::from_value(object.into()).unwrap();
    assert_eq!(back, FractureSettings::default());
}
