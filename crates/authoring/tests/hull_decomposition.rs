//! Issue 17, item 3: concave chunks get several hulls. The doorway wall of
//! the issue (4 × 3 × 0.2 m, a 1 × 2 m doorway) fractured into 6 Voronoi
//! cells stays passable for a 0.4 m ball in every seed.

#![allow(clippy::unwrap_used)]

mod common;

use common::asset;
use glam::{DVec3, Vec3};
use smithereens_authoring::{
    FractureError, FractureSettings, HullDecomposition, TriMesh, fracture_voronoi, hull_volume,
    load_mesh, mesh_from_triangles,
};
use smithereens_core::AssetFile;

/// The wall: outline (−2,0), (−0.5,0), (−0.5,2), (0.5,2), (0.5,0),
/// (2,0), (2,3), (−2,3) in x, y (m), extruded over z ∈ [−0.1, 0.1].
fn doorway_wall() -> TriMesh {
    let outline = [
        (-2.0, 0.0),
        (-0.5, 0.0),
        (-0.5, 2.0),
        (0.5, 2.0),
        (0.5, 0.0),
        (2.0, 0.0),
        (2.0, 3.0),
        (-2.0, 3.0),
    ];
    let mut positions = Vec::new();
    for z in [0.1, -0.1] {
        positions.extend(outline.iter().map(|&(x, y)| DVec3::new(x, y, z)));
    }
    // Front (z = +0.1) faces +z: the outline is counter-clockwise.
    let front: [[u32; 3]; 6] = [
        [0, 1, 2],
        [0, 2, 7],
        [2, 3, 6],
        [2, 6, 7],
        [3, 4, 5],
        [3, 5, 6],
    ];
    let mut triangles: Vec<[u32; 3]> = front.to_vec();
    triangles.extend(front.iter().map(|t| [t[0] + 8, t[2] + 8, t[1] + 8]));
    for i in 0..8u32 {
        let j = (i + 1) % 8;
        triangles.push([i + 8, j + 8, j]);
        triangles.push([i + 8, j, i]);
    }
    mesh_from_triangles(positions, triangles).unwrap()
}

/// Smallest distance from the centre of a ball rolled through the doorway
/// (x = 0, resting on the floor: y = radius, z from −0.6 to 0.6 m) to any
/// chunk hull, m.
fn doorway_clearance(file: &AssetFile, radius: f32) -> f32 {
    let mut clearance = f32::INFINITY;
    for chunk in &file.desc.chunks {
        for hull in &chunk.hulls {
            let shape = parry3d::shape::SharedShape::convex_hull(&hull.points).unwrap();
            for k in 0..=120 {
                let centre = Vec3::new(0.0, radius, -0.6 + 0.01 * k as f32);
                let d = shape.as_ref().distance_to_local_point(centre, true);
                clearance = clearance.min(d);
            }
        }
    }
    clearance
}

/// Per chunk: (hull count, Σ hull volume / chunk volume).
fn hull_ratios(file: &AssetFile) -> Vec<(usize, f64)> {
    file.desc
        .chunks
        .iter()
        .map(|c| {
            let enclosed: f64 = c
                .hulls
                .iter()
                .map(|h| hull_volume(&h.points).unwrap_or(0.0))
                .sum();
            (c.hulls.len(), enclosed / c.volume as f64)
        })
        .collect()
}

fn wall_settings(seed: u64, decomposition: Option<HullDecomposition>) -> FractureSettings {
    FractureSettings {
        chunk_count: 6,
        seed,
        decomposition,
        ..Default::default()
    }
}

#[test]
fn a_ball_rolls_through_the_doorway_of_the_fractured_wall_in_every_seed() {
    let wall = doorway_wall();
    assert!((wall.volume() - 2.0).abs() < 1e-12);
    for seed in 1..=20u64 {
        let file = fracture_voronoi(
            &wall,
            &wall_settings(seed, Some(Default::default())),
            &mut |_| {},
        )
        .unwrap();
        let clearance = doorway_clearance(&file, 0.2);
        assert!(
            clearance > 0.2,
            "seed {seed}: a 0.4 m ball comes within {clearance} m of a hull centre"
        );
        for (k, (hulls, ratio)) in hull_ratios(&file).into_iter().enumerate() {
            // The parts are exact pieces of the chunk: their hulls hold all
            // of its volume, and together at most 1.2 × it.
            assert!(ratio >= 1.0 - 1e-4, "seed {seed} chunk {k}: ratio {ratio}");
            assert!(
                ratio <= 1.2 + 1e-6,
                "seed {seed} chunk {k}: {hulls} hulls enclose {ratio} × its volume"
            );
        }
        let single = fracture_voronoi(&wall, &wall_settings(seed, None), &mut |_| {}).unwrap();
        assert!(single.desc.chunks.iter().all(|c| c.hulls.len() == 1));
        // Same chunks and render meshes; only the hulls differ.
        assert_eq!(single.meshes, file.meshes);
        // Rays through the opening: one hull per chunk blocks some in
        // every seed (the observation); the decomposition never
        // blocks more, and frees the doorway of every chunk it splits.
        let (before, after) = (blocked_rays(&single), blocked_rays(&file));
        assert!(
            before > 0.0,
            "seed {seed}: single hulls leave the doorway open"
        );
        assert!(after <= before, "seed {seed}: {after} > {before}");
        let worst = hull_ratios(&single).iter().map(|r| r.1).fold(0.0, f64::max);
        if worst > 1.2 {
            assert!(after < 0.25 * before, "seed {seed}: {after} vs {before}");
        }
    }
}

#[test]
fn the_unfractured_wall_gets_three_hulls_and_an_open_doorway() {
    let wall = doorway_wall();
    // One chunk: its hull is the 4 × 3 box, 1.2 × the volume (a little
    // more, with the hull's f32 corners at z = ±0.1f32), so the default
    // 20 % threshold decomposes it, and a lower one does too.
    for threshold in [0.2, 0.1] {
        let settings = FractureSettings {
            chunk_count: 1,
            decomposition: Some(HullDecomposition {
                threshold,
                max_hulls: 8,
            }),
            ..Default::default()
        };
        let file = fracture_voronoi(&wall, &settings, &mut |_| {}).unwrap();
        assert_eq!(file.desc.chunks.len(), 1);
        assert_eq!(file.desc.chunks[0].hulls.len(), 3, "threshold {threshold}");
        assert!(doorway_clearance(&file, 0.2) > 0.2);
        assert_eq!(blocked_rays(&file), 0.0);
        let (_, ratio) = hull_ratios(&file)[0];
        assert!((ratio - 1.0).abs() < 1e-5, "ratio {ratio}");
    }
    let settings = FractureSettings {
        chunk_count: 1,
        decomposition: None,
        ..Default::default()
    };
    let file = fracture_voronoi(&wall, &settings, &mut |_| {}).unwrap();
    assert_eq!(blocked_rays(&file), 1.0);
}

#[test]
fn convex_chunks_keep_one_hull_and_decomposition_is_deterministic() {
    let spot = load_mesh(&asset("spot.obj")).unwrap();
    let settings = FractureSettings {
        chunk_count: 40,
        ..Default::default()
    };
    let a = fracture_voronoi(&spot, &settings, &mut |_| {}).unwrap();
    let b = fracture_voronoi(&spot, &settings, &mut |_| {}).unwrap();
    assert_eq!(a.to_bytes(), b.to_bytes());
    let decomposition = settings.decomposition.unwrap();
    for (k, (hulls, ratio)) in hull_ratios(&a).into_iter().enumerate() {
        assert!(
            ratio >= 1.0 - 1e-4,
            "chunk {k}: hulls miss material ({ratio})"
        );
        assert!(hulls <= decomposition.max_hulls as usize);
        if hulls > 1 {
            // Only chunks that needed it were decomposed.
            let single: f64 = hull_volume(
                &a.desc.chunks[k]
                    .hulls
                    .iter()
                    .flat_map(|h| h.points.iter().copied())
                    .collect::<Vec<_>>(),
            )
            .unwrap();
            assert!(single > 1.2 * a.desc.chunks[k].volume as f64, "chunk {k}");
        }
    }
    // A box fractures into convex chunks only: one hull each.
    let cube = common::unit_cube();
    let file = fracture_voronoi(&cube, &settings, &mut |_| {}).unwrap();
    assert!(file.desc.chunks.iter().all(|c| c.hulls.len() == 1));
}

#[test]
fn bad_decomposition_settings_are_typed_errors() {
    let wall = doorway_wall();
    for (threshold, max_hulls) in [
        (0.0, 8),
        (-0.5, 8),
        (f64::NAN, 8),
        (f64::INFINITY, 8),
        (0.2, 1),
        (0.2, 65),
    ] {
        let settings = wall_settings(
            1,
            Some(HullDecomposition {
                threshold,
                max_hulls,
            }),
        );
        let err = fracture_voronoi(&wall, &settings, &mut |_| {}).unwrap_err();
        assert!(
            matches!(err, FractureError::InvalidDecomposition { .. }),
            "{threshold} {max_hulls}: {err}"
        );
    }
}

/// Fraction of a grid of rays along z through the doorway opening
/// (x ∈ ±0.45 m, y ∈ 0.05–1.95 m, 10 × 20 rays) that hit a chunk hull.
fn blocked_rays(file: &AssetFile) -> f64 {
    let shapes: Vec<_> = file
        .desc
        .chunks
        .iter()
        .flat_map(|c| &c.hulls)
        .filter_map(|h| parry3d::shape::SharedShape::convex_hull(&h.points))
        .collect();
    let mut blocked = 0;
    for i in 0..10 {
        for j in 0..20 {
            let (x, y) = (-0.45 + 0.1 * i as f32, 0.05 + 0.1 * j as f32);
            let hit = (0..=20).any(|k| {
                let p = Vec3::new(x, y, -0.1 + 0.01 * k as f32);
                shapes.iter().any(|s| s.as_ref().contains_local_point(p))
            });
            blocked += hit as u32;
        }
    }
    blocked as f64 / 200.0
}

#[test]
#[ignore = "diagnostic"]
fn doorway_diagnostic() {
    let wall = doorway_wall();
    for seed in 1..=20u64 {
        let file = fracture_voronoi(
            &wall,
            &wall_settings(seed, Some(Default::default())),
            &mut |_| {},
        )
        .unwrap();
        let single = fracture_voronoi(&wall, &wall_settings(seed, None), &mut |_| {}).unwrap();
        let worst = hull_ratios(&single).iter().map(|r| r.1).fold(0.0, f64::max);
        eprintln!(
            "seed {seed}: single: blocked {:.3}, worst ratio {worst:.3}; decomposed: blocked {:.3}, hulls {}, clearance {:.3}",
            blocked_rays(&single),
            blocked_rays(&file),
            file.desc
                .chunks
                .iter()
                .map(|c| c.hulls.len())
                .sum::<usize>(),
            doorway_clearance(&file, 0.2)
        );
    }
}

/// The measurement behind the choice of method (run with `--ignored
/// --nocapture`): parry's V-HACD (default parameters) on the same concave
/// chunks, against the decomposition by the chunks' own concave faces.
/// Prints hull counts, Σ hull volume / chunk volume, the fraction of the
/// chunk's material (sampled) outside every hull, rays blocked in the
/// doorway, and the time.
#[test]
#[ignore = "measurement"]
fn vhacd_against_concave_face_cuts() {
    use parry3d::transformation::vhacd::{VHACD, VHACDParameters};
    let wall = doorway_wall();
    let mut cases: Vec<(String, AssetFile)> = Vec::new();
    for (chunks, seed) in [(1u32, 1u64), (6, 8), (6, 10), (6, 11)] {
        let settings = FractureSettings {
            chunk_count: chunks,
            seed,
            ..Default::default()
        };
        cases.push((
            format!("wall {chunks} chunks seed {seed}"),
            fracture_voronoi(&wall, &settings, &mut |_| {}).unwrap(),
        ));
    }
    for (name, file) in &cases {
        let start = std::time::Instant::now();
        let mut vhacd = file.clone();
        for (chunk, mesh) in vhacd.desc.chunks.iter_mut().zip(&file.meshes) {
            if chunk.hulls.len() < 2 {
                continue;
            }
            let tris: Vec<[u32; 3]> = mesh
                .exterior
                .iter()
                .chain(&mesh.interior)
                .copied()
                .collect();
            let decomposition =
                VHACD::decompose(&VHACDParameters::default(), &mesh.positions, &tris, true);
            chunk.hulls = decomposition
                .compute_exact_convex_hulls(&mesh.positions, &tris)
                .into_iter()
                .map(|(points, _)| smithereens_core::HullDesc { points })
                .collect();
        }
        let vhacd_time = start.elapsed().as_secs_f64();
        for (method, f) in [("faces", file), ("vhacd", &vhacd)] {
            let ratios = hull_ratios(f);
            let hulls: usize = ratios.iter().map(|r| r.0).sum();
            let (lo, hi) = ratios
                .iter()
                .fold((f64::MAX, 0.0f64), |(lo, hi), r| (lo.min(r.1), hi.max(r.1)));
            // Material outside every hull: points on a 0.05 m grid inside the wall.
            let shapes: Vec<_> = f
                .desc
                .chunks
                .iter()
                .flat_map(|c| &c.hulls)
                .filter_map(|h| parry3d::shape::SharedShape::convex_hull(&h.points))
                .collect();
            let (mut inside, mut missed) = (0, 0);
            for i in 0..80 {
                for j in 0..60 {
                    for k in 0..4 {
                        let p = Vec3::new(
                            -1.975 + 0.05 * i as f32,
                            0.025 + 0.05 * j as f32,
                            -0.075 + 0.05 * k as f32,
                        );
                        if wall.contains_point(p.as_dvec3()) {
                            inside += 1;
                            if !shapes.iter().any(|s| s.as_ref().contains_local_point(p)) {
                                missed += 1;
                            }
                        }
                    }
                }
            }
            eprintln!(
                "{name}: {method}: {hulls} hulls, hull/volume {lo:.3}..{hi:.3}, material outside hulls {:.2} %, doorway rays blocked {:.1} %{}",
                100.0 * missed as f64 / inside as f64,
                100.0 * blocked_rays(f),
                if method == "vhacd" {
                    format!(", V-HACD time {vhacd_time:.3} s")
                } else {
                    String::new()
                }
            );
        }
    }
}
