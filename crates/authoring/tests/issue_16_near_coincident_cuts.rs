//! Issue 16, item 2: near-coincident cuts once left a 1e-6 m slab that was
//! merged as a sliver into its neighbour, whose render mesh then held both
//! closed surfaces (21 edges not used exactly twice, 3.0 m² of cut faces
//! instead of 1.0, a 7e-13 m² triangle). Every chunk must be a closed,
//! consistently oriented 2-manifold whose cut faces are those of its outer
//! boundary only, with no triangle below the zero-area threshold
//! [`ZERO_AREA_FRACTION`] × diagonal² (3e-12 m² for the unit cube).

#![allow(clippy::unwrap_used)]

mod common;

use common::{bad_edges, mesh_volume, unit_cube};
use glam::DVec3;
use smithereens_authoring::{
    COINCIDENT_CUT_FRACTION, CutPlane, FractureReport, FractureSettings, Pattern, SliverAction,
    ZERO_AREA_FRACTION, fracture_with_report,
};
use smithereens_core::{AssetFile, ChunkMesh};

/// Planes `x = 0.3` and `x = 0.3 + gap`, both with normal +x.
fn two_cuts(gap: f64) -> Pattern {
    Pattern::Planar {
        planes: vec![
            CutPlane {
                point: DVec3::new(0.3, 0.0, 0.0),
                normal: DVec3::X,
            },
            CutPlane {
                point: DVec3::new(0.3 + gap, 0.0, 0.0),
                normal: DVec3::X,
            },
        ],
    }
}

/// The unit cube cut by `pattern`; every merged chunk's surface joined.
fn cut_cube(pattern: &Pattern) -> (AssetFile, FractureReport) {
    let (file, report) = fracture_with_report(
        &unit_cube(),
        &FractureSettings::default(),
        pattern,
        &mut |_| {},
    )
    .unwrap();
    assert!(report.unjoined.is_empty(), "{report:?}");
    (file, report)
}

fn triangle_areas<'a>(
    mesh: &'a ChunkMesh,
    triangles: &'a [[u32; 3]],
) -> impl Iterator<Item = f64> + 'a {
    let p = |i: u32| mesh.positions[i as usize].as_dvec3();
    triangles
        .iter()
        .map(move |t| 0.5 * (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0])).length())
}

/// Area of the cut (interior) faces, m².
fn interior_area(mesh: &ChunkMesh) -> f64 {
    triangle_areas(mesh, &mesh.interior).sum()
}

/// Checks what every chunk of a unit-cube fracture must satisfy and
/// returns each chunk's cut-face area (m²).
fn check_closed_chunks(file: &AssetFile) -> Vec<f64> {
    let min_area = ZERO_AREA_FRACTION * 3.0; // diagonal² of the unit cube
    for (k, (chunk, mesh)) in file.desc.chunks.iter().zip(&file.meshes).enumerate() {
        assert_eq!(bad_edges(mesh), 0, "chunk {k} is not a closed 2-manifold");
        let smallest = triangle_areas(mesh, &mesh.exterior)
            .chain(triangle_areas(mesh, &mesh.interior))
            .fold(f64::INFINITY, f64::min);
        assert!(
            smallest >= min_area,
            "chunk {k}: a {smallest:e} m² triangle"
        );
        let enclosed = mesh_volume(mesh);
        let volume = chunk.volume as f64;
        assert!(
            (enclosed - volume).abs() <= 1e-6,
            "chunk {k}: the mesh encloses {enclosed} m³, the chunk declares {volume} m³"
        );
    }
    let total: f64 = file.desc.chunks.iter().map(|c| c.volume as f64).sum();
    assert!((total - 1.0).abs() <= 1e-6, "Σ chunk volume {total} m³");
    file.meshes.iter().map(interior_area).collect()
}

#[test]
fn cuts_1e_6_to_1e_4_m_apart_are_one_cut_giving_two_closed_chunks_with_1_m2_cut_faces() {
    for gap in [1e-6, 1e-5, 1e-4] {
        let (file, report) = cut_cube(&two_cuts(gap));
        assert_eq!(file.desc.chunks.len(), 2, "gap {gap}");
        assert!(report.slivers.is_empty(), "gap {gap}: {report:?}");
        let areas = check_closed_chunks(&file);
        for (k, area) in areas.iter().enumerate() {
            assert!((area - 1.0).abs() <= 1e-6, "gap {gap}: chunk {k} {area} m²");
        }
        // The one cut seen from both sides.
        assert!((areas.iter().sum::<f64>() - 2.0).abs() <= 2e-6);
        let volumes: Vec<f32> = file.desc.chunks.iter().map(|c| c.volume).collect();
        assert!((volumes[0] - 0.3).abs() < 1e-6 && (volumes[1] - 0.7).abs() < 1e-6);
    }
}

#[test]
fn cuts_1e_2_m_apart_give_three_closed_chunks_and_a_slab_with_two_cut_faces() {
    let (file, report) = cut_cube(&two_cuts(1e-2));
    assert_eq!(file.desc.chunks.len(), 3);
    assert!(report.slivers.is_empty(), "{report:?}");
    let areas = check_closed_chunks(&file);
    let want = [1.0, 2.0, 1.0];
    for (k, (area, want)) in areas.iter().zip(want).enumerate() {
        assert!((area - want).abs() <= 1e-6, "chunk {k}: {area} m²");
    }
    assert!((file.desc.chunks[1].volume - 0.01).abs() < 1e-7);
}

#[test]
fn near_coincident_planes_with_flipped_or_slightly_tilted_normals_are_the_same_cut() {
    // The same plane seen from the other side, 5e-5 m away, and one tilted
    // by 1e-5 rad: all within 1e-4 × √3 m of x = 0.3 over the cube.
    let pattern = Pattern::Planar {
        planes: vec![
            CutPlane {
                point: DVec3::new(0.3, 0.0, 0.0),
                normal: DVec3::X,
            },
            CutPlane {
                point: DVec3::new(0.30005, 0.0, 0.0),
                normal: -DVec3::X,
            },
            CutPlane {
                point: DVec3::new(0.3, 0.5, 0.5),
                normal: DVec3::new(1.0, 1e-5, 0.0),
            },
        ],
    };
    assert!(5e-5 < COINCIDENT_CUT_FRACTION * 3f64.sqrt());
    let (file, _) = cut_cube(&pattern);
    assert_eq!(file.desc.chunks.len(), 2);
    let areas = check_closed_chunks(&file);
    assert!(areas.iter().all(|a| (a - 1.0).abs() <= 1e-6), "{areas:?}");
}

#[test]
fn a_slab_too_thin_for_its_own_hull_merges_into_a_closed_chunk_with_only_its_outer_cut_face() {
    // 3e-4 m is above the coincidence tolerance (1.7e-4 m here) but its f32
    // hull is flat: the slab is a sliver and is merged.
    let gap = 3e-4;
    assert!(gap > COINCIDENT_CUT_FRACTION * 3f64.sqrt());
    let (file, report) = cut_cube(&two_cuts(gap));
    assert_eq!((report.raw_pieces, report.chunks), (3, 2), "{report:?}");
    assert_eq!(report.merged, 1);
    let SliverAction::Merged { chunk } = report.slivers[0].action else {
        panic!("{report:?}");
    };
    let areas = check_closed_chunks(&file);
    for (k, area) in areas.iter().enumerate() {
        assert!((area - 1.0).abs() <= 1e-6, "chunk {k}: {area} m²");
    }
    // The merged chunk's one cut face lies on the far plane of the slab.
    let merged = &file.meshes[chunk.get() as usize];
    assert!(
        merged
            .interior
            .iter()
            .flatten()
            .all(|&i| (merged.positions[i as usize].x as f64 - (0.3 + gap)).abs() < 1e-6),
        "a cut face off x = {}",
        0.3 + gap
    );
    // Deterministic: the same bytes again.
    assert_eq!(cut_cube(&two_cuts(gap)).0.to_bytes(), file.to_bytes());
}

#[test]
fn a_thin_corner_rod_merges_into_a_closed_slab_whose_only_cut_face_is_its_base() {
    // Planes x = 1 − 1e-3 and z = 1 − 2e-3 leave a 1 mm × 2 mm × 1 m rod in
    // a corner, merged (thin inertia) into the 2 mm slab on top.
    let pattern = Pattern::Planar {
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
    };
    let (file, report) = cut_cube(&pattern);
    assert_eq!((report.raw_pieces, report.chunks, report.merged), (4, 3, 1));
    let SliverAction::Merged { chunk } = report.slivers[0].action else {
        panic!("{report:?}");
    };
    let areas = check_closed_chunks(&file);
    let slab = chunk.get() as usize;
    assert!((areas[slab] - 1.0).abs() <= 1e-6, "{areas:?}");
    let mesh = &file.meshes[slab];
    assert!(
        mesh.interior
            .iter()
            .flatten()
            .all(|&i| (mesh.positions[i as usize].z as f64 - (1.0 - 2e-3)).abs() < 1e-6),
        "the slab's cut faces must all be its base"
    );
}

#[test]
fn near_coincident_and_crossing_cut_sweeps_give_closed_chunks_whose_cut_faces_are_their_bonds() {
    // A second plane `gap` from x = 0.3 and tilted about z (crossing the
    // first inside the cube when tilted), and a third plane across both:
    // thin slabs, thin wedges, and slivers merged across a crossing cut.
    let mut merged = 0;
    for gap in [5e-5, 1.5e-4, 2e-4, 4e-4, 8e-4, 2e-3] {
        for tilt in [0.0f64, 1e-3, 0.3] {
            let pattern = Pattern::Planar {
                planes: vec![
                    CutPlane {
                        point: DVec3::new(0.3, 0.0, 0.0),
                        normal: DVec3::X,
                    },
                    CutPlane {
                        point: DVec3::new(0.3 + gap, 0.5, 0.5),
                        normal: DVec3::new(tilt.cos(), tilt.sin(), 0.0),
                    },
                    CutPlane {
                        point: DVec3::new(0.0, 0.0, 0.6),
                        normal: DVec3::Z,
                    },
                ],
            };
            let (file, report) = cut_cube(&pattern);
            assert_eq!(report.dropped, 0, "gap {gap} tilt {tilt}: {report:?}");
            merged += report.merged;
            let areas = check_closed_chunks(&file);
            // Nothing dropped: a chunk's cut faces are exactly its
            // interfaces with the other chunks.
            let mut bonded = vec![0.0f64; areas.len()];
            for b in &file.desc.bonds {
                let smithereens_core::BondEnd::Chunk(c1) = b.chunk1 else {
                    unreachable!()
                };
                bonded[b.chunk0 as usize] += b.area as f64;
                bonded[c1 as usize] += b.area as f64;
            }
            for (k, (area, bond)) in areas.iter().zip(&bonded).enumerate() {
                assert!(
                    (area - bond).abs() <= 1e-5,
                    "gap {gap} tilt {tilt}: chunk {k} has {area} m² of cut faces, {bond} m² of bonds \
                     ({} merged)",
                    report.merged
                );
            }
        }
    }
    // Seven slivers merge in this sweep (slabs 1.5e-4 to 4e-4 m thick).
    assert!(merged >= 4, "the sweep merges slivers ({merged})");
}
