//! Every pattern on every clean real mesh: volume conservation, closed
//! chunks, bond symmetry and area, connected bond graph, determinism.

#![allow(clippy::unwrap_used)]

mod common;

use common::{asset, check_fracture, unit_cube};
use glam::DVec3;
use smithereens_authoring::{
    Axis, BrickSettings, CutPlane, FractureError, FractureSettings, Pattern, SiteDistribution,
    SliceSettings, TriMesh, fracture, load_mesh,
};

fn clean_meshes() -> Vec<(&'static str, TriMesh)> {
    ["spot.obj", "bob_tri.obj", "Box.gltf", "stairs.obj"]
        .into_iter()
        .map(|n| (n, load_mesh(&asset(n)).unwrap()))
        .collect()
}

/// The patterns, scaled to the mesh's bounds.
fn patterns(mesh: &TriMesh) -> Vec<Pattern> {
    let (lo, hi) = mesh.bounds();
    let extent = hi - lo;
    let centre = (lo + hi) * 0.5;
    let size = extent.max_element();
    vec![
        Pattern::Voronoi {
            sites: SiteDistribution::Uniform,
        },
        Pattern::Voronoi {
            sites: SiteDistribution::Clustered {
                clusters: 3,
                spread: 0.1 * size,
            },
        },
        Pattern::Voronoi {
            sites: SiteDistribution::Radial {
                center: centre,
                radius: size,
            },
        },
        Pattern::Voronoi {
            sites: SiteDistribution::ImpactDensity {
                center: centre,
                radius: size,
                gamma: 2.0,
            },
        },
        Pattern::Voronoi {
            sites: SiteDistribution::PoissonDisk {
                min_distance: 0.05 * size,
            },
        },
        Pattern::Voronoi {
            sites: SiteDistribution::Lloyd { iterations: 2 },
        },
        Pattern::Slice(SliceSettings {
            counts: [3, 2, 2],
            angle_jitter: 0.2,
            offset_jitter: 0.3,
        }),
        Pattern::Brick(BrickSettings {
            course_height: extent.y / 3.5,
            brick_length: extent.x / 2.5,
            joint_offset: 0.5,
            up: Axis::Y,
            along: Axis::X,
        }),
        Pattern::Planar {
            planes: vec![
                CutPlane {
                    point: centre,
                    normal: DVec3::new(1.0, 0.3, 0.1),
                },
                CutPlane {
                    point: centre + extent * 0.1,
                    normal: DVec3::new(-0.2, 1.0, 0.4),
                },
                CutPlane {
                    point: centre - extent * 0.2,
                    normal: DVec3::new(0.1, -0.3, 1.0),
                },
            ],
        },
    ]
}

#[test]
fn every_pattern_on_every_clean_mesh_keeps_the_invariants() {
    for (name, mesh) in clean_meshes() {
        let (lo, hi) = mesh.bounds();
        for pattern in patterns(&mesh) {
            let settings = FractureSettings {
                chunk_count: 12,
                seed: 12,
                ..Default::default()
            };
            let file = fracture(&mesh, &settings, &pattern, &mut |_| {})
                .unwrap_or_else(|e| panic!("{name} {pattern:?}: {e}"));
            let s = check_fracture(&file, mesh.volume(), (hi - lo).length());
            assert!(s.chunks >= 2, "{name} {pattern:?}: {} chunks", s.chunks);
            let again = fracture(&mesh, &settings, &pattern, &mut |_| {}).unwrap();
            assert_eq!(file.to_bytes(), again.to_bytes(), "{name} {pattern:?}");
        }
    }
}

#[test]
fn uniform_pattern_is_fracture_voronoi() {
    let mesh = unit_cube();
    let settings = FractureSettings {
        chunk_count: 6,
        ..Default::default()
    };
    let a = fracture(&mesh, &settings, &Pattern::default(), &mut |_| {}).unwrap();
    let b = smithereens_authoring::fracture_voronoi(&mesh, &settings, &mut |_| {}).unwrap();
    assert_eq!(a.to_bytes(), b.to_bytes());
}

#[test]
fn axis_aligned_slices_of_a_cube_are_a_grid() {
    let mesh = unit_cube();
    let pattern = Pattern::Slice(SliceSettings {
        counts: [2, 3, 4],
        ..Default::default()
    });
    let mut calls = 0;
    let file = fracture(&mesh, &FractureSettings::default(), &pattern, &mut |_| {
        calls += 1
    })
    .unwrap();
    assert_eq!(calls, 1 + 2 + 3);
    let s = check_fracture(&file, 1.0, 3f64.sqrt());
    assert_eq!(s.chunks, 24);
    // Face neighbours only: 1·3·4 + 2·2·4 + 2·3·3 = 12 + 16 + 18 (no edge or corner bonds).
    assert_eq!(s.bonds, 46);
    for c in &file.desc.chunks {
        assert!((c.volume - 1.0 / 24.0).abs() < 1e-6);
    }
}

#[test]
fn brick_courses_are_staggered() {
    let mesh = unit_cube();
    let pattern = Pattern::Brick(BrickSettings {
        course_height: 0.25,
        brick_length: 0.5,
        joint_offset: 0.5,
        up: Axis::Y,
        along: Axis::X,
    });
    let file = fracture(&mesh, &FractureSettings::default(), &pattern, &mut |_| {}).unwrap();
    let s = check_fracture(&file, 1.0, 3f64.sqrt());
    // Even courses: 2 bricks; odd courses: ½ + 1 + ½.
    assert_eq!(s.chunks, 2 + 3 + 2 + 3);
    let halves = file
        .desc
        .chunks
        .iter()
        .filter(|c| (c.volume - 0.0625).abs() < 1e-6)
        .count();
    assert_eq!(halves, 4);
}

#[test]
fn bad_pattern_parameters_are_typed_errors() {
    let mesh = unit_cube();
    let s = FractureSettings::default();
    let bad = [
        Pattern::Planar { planes: vec![] },
        Pattern::Planar {
            planes: vec![CutPlane {
                point: DVec3::ZERO,
                normal: DVec3::ZERO,
            }],
        },
        Pattern::Slice(SliceSettings {
            counts: [0, 1, 1],
            ..Default::default()
        }),
        Pattern::Brick(BrickSettings {
            course_height: -1.0,
            ..Default::default()
        }),
        Pattern::Brick(BrickSettings {
            up: Axis::X,
            along: Axis::X,
            ..Default::default()
        }),
        Pattern::Voronoi {
            sites: SiteDistribution::PoissonDisk { min_distance: 0.0 },
        },
        Pattern::Voronoi {
            sites: SiteDistribution::ImpactDensity {
                center: DVec3::NAN,
                radius: 1.0,
                gamma: 2.0,
            },
        },
        // Sizes that would exhaust memory are refused before any work:
        // 4e9 slabs (planes over the limit), 50³ cells (over 100,000).
        Pattern::Slice(SliceSettings {
            counts: [4_000_000_000, 1, 1],
            ..Default::default()
        }),
        Pattern::Slice(SliceSettings {
            counts: [50, 50, 50],
            ..Default::default()
        }),
        // More clusters than sites (32 by default).
        Pattern::Voronoi {
            sites: SiteDistribution::Clustered {
                clusters: 1_000_000,
                spread: 0.1,
            },
        },
        Pattern::Planar {
            planes: vec![
                CutPlane {
                    point: DVec3::splat(0.5),
                    normal: DVec3::X,
                };
                5000
            ],
        },
        // Placements that cannot succeed are refused at once, not after
        // every attempt: a sphere that misses the mesh, a radius too small
        // for distinct sites, a Poisson spacing larger than the mesh.
        Pattern::Voronoi {
            sites: SiteDistribution::Radial {
                center: DVec3::splat(100.0),
                radius: 1.0,
            },
        },
        Pattern::Voronoi {
            sites: SiteDistribution::ImpactDensity {
                center: DVec3::splat(0.5),
                radius: 1e-12,
                gamma: 2.0,
            },
        },
        Pattern::Voronoi {
            sites: SiteDistribution::PoissonDisk { min_distance: 10.0 },
        },
    ];
    for p in bad {
        let err = fracture(&mesh, &s, &p, &mut |_| {}).unwrap_err();
        assert!(
            matches!(err, FractureError::InvalidPattern { .. }),
            "{p:?}: {err:?}"
        );
    }
}

/// Regression: Voronoi (seed 11, 12 chunks) on `stairs.obj`, whose
/// zero-area T-junction fill puts cut vertices 1e-8 m apart, left one render
/// mesh with a pinched edge (four triangles on an edge whose ends rounded to
/// adjacent f32 values). Render meshes now collapse edges shorter than
/// `SHORT_EDGE_ULPS` f32 units in the last place; every seed from 1 to 40 must give
/// closed, manifold chunks.
#[test]
fn stairs_voronoi_is_closed_for_every_seed() {
    let mesh = load_mesh(&asset("stairs.obj")).unwrap();
    let (lo, hi) = mesh.bounds();
    for seed in 1..=40 {
        let settings = FractureSettings {
            chunk_count: 12,
            seed,
            ..Default::default()
        };
        let file = fracture(&mesh, &settings, &Pattern::default(), &mut |_| {}).unwrap();
        check_fracture(&file, mesh.volume(), (hi - lo).length());
    }
}

/// Regression: cutting planes that contain faces of the mesh. The treads
/// of `stairs.obj` lie at multiples of 0.15 m (stored as f32, e.g.
/// 0.6000000238), so brick courses of 0.1, 0.12, 0.15 and 0.2 m and slices
/// of 0.15 m pass through them. Keeping coplanar faces on both sides of a
/// cut failed the cap ("a boundary vertex lies on boundary edge"), and a
/// plane 2e-8 m from a tread left a slab that collapsed in f32.
#[test]
fn planes_through_stair_treads_keep_every_chunk_closed() {
    let mesh = load_mesh(&asset("stairs.obj")).unwrap();
    let (lo, hi) = mesh.bounds();
    let mut patterns: Vec<Pattern> = [0.1, 0.12, 0.15, 0.2]
        .into_iter()
        .map(|course_height| {
            Pattern::Brick(BrickSettings {
                course_height,
                brick_length: 0.3,
                ..BrickSettings::default()
            })
        })
        .collect();
    patterns.push(Pattern::Slice(SliceSettings {
        counts: [2, 6, 2],
        angle_jitter: 0.0,
        offset_jitter: 0.0,
    }));
    for pattern in patterns {
        let file = fracture(&mesh, &FractureSettings::default(), &pattern, &mut |_| {})
            .unwrap_or_else(|e| panic!("{pattern:?}: {e}"));
        check_fracture(&file, mesh.volume(), (hi - lo).length());
    }
}

fn cov(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    var.sqrt() / mean
}

#[test]
fn lloyd_relaxation_evens_out_cell_volumes() {
    let mesh = unit_cube();
    let covs: Vec<f64> = (0..=5)
        .map(|iterations| {
            let settings = FractureSettings {
                chunk_count: 40,
                seed: 2,
                ..Default::default()
            };
            let pattern = Pattern::Voronoi {
                sites: SiteDistribution::Lloyd { iterations },
            };
            let file = fracture(&mesh, &settings, &pattern, &mut |_| {}).unwrap();
            check_fracture(&file, 1.0, 3f64.sqrt());
            let volumes: Vec<f64> = file.desc.chunks.iter().map(|c| c.volume as f64).collect();
            cov(&volumes)
        })
        .collect();
    eprintln!("Lloyd CoV by iteration: {covs:?}");
    assert!(covs[5] < 0.6 * covs[0], "{covs:?}");
    for w in covs.windows(2) {
        // Sampled centroids add noise; allow a small rise per step.
        assert!(w[1] < w[0] * 1.05, "{covs:?}");
    }
}

#[test]
fn poisson_disk_sites_keep_their_minimum_spacing() {
    let mesh = unit_cube();
    let r = 0.2;
    let sites = smithereens_authoring::sites::generate(
        &mesh,
        30,
        9,
        &SiteDistribution::PoissonDisk { min_distance: r },
    )
    .unwrap();
    assert_eq!(sites.len(), 30);
    for (i, a) in sites.iter().enumerate() {
        assert!(mesh.contains_point(*a));
        for b in &sites[i + 1..] {
            assert!(a.distance(*b) >= r, "{a} {b}");
        }
    }
    // Too many for the spacing: a typed error, no endless loop.
    let err = smithereens_authoring::sites::generate(
        &mesh,
        2000,
        9,
        &SiteDistribution::PoissonDisk { min_distance: r },
    )
    .unwrap_err();
    assert!(matches!(err, FractureError::SitePlacement { .. }));
}

/// Seam vertices (`seam.rs`): a unit cube sliced into 100 slabs keeps 12
/// triangles per slab (8 on its four sides, 2 on each face), where the
/// vertices that every cut left on the flat faces piled up without the
/// dissolve (about 4n² triangles in all, and a brick wall of 1 mm courses
/// ran for minutes; bad-input sweep). Chunks, bonds and areas are the same
/// either way.
#[test]
fn slicing_a_cube_into_many_slabs_keeps_each_slab_a_box_of_12_triangles() {
    let cube = unit_cube();
    let pattern = Pattern::Slice(SliceSettings {
        counts: [1, 100, 1],
        ..Default::default()
    });
    let run = |dissolve_seams| {
        let settings = FractureSettings {
            dissolve_seams,
            ..Default::default()
        };
        fracture(&cube, &settings, &pattern, &mut |_| {}).unwrap()
    };
    let (on, off) = (run(true), run(false));
    let triangles = |f: &smithereens_core::AssetFile| -> usize {
        f.meshes
            .iter()
            .map(|m| m.exterior.len() + m.interior.len())
            .sum()
    };
    assert_eq!(on.meshes.len(), 100);
    assert!(
        on.meshes
            .iter()
            .all(|m| m.exterior.len() + m.interior.len() == 12)
    );
    assert!(triangles(&off) > 20 * triangles(&on), "{}", triangles(&off));
    check_fracture(&on, 1.0, 3f64.sqrt());
    assert_eq!(on.desc.bonds.len(), off.desc.bonds.len());
    for (a, b) in on.desc.bonds.iter().zip(&off.desc.bonds) {
        assert_eq!((a.chunk0, a.chunk1), (b.chunk0, b.chunk1));
        assert!((a.area - b.area).abs() <= 1e-6, "{} vs {}", a.area, b.area);
    }
    for (a, b) in on.desc.chunks.iter().zip(&off.desc.chunks) {
        assert!((a.volume - b.volume).abs() <= 1e-6 * b.volume);
    }
}
