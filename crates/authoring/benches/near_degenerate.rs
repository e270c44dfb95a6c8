//! Issue 17, item 2: the importer's view of the fractured real meshes.
//! Every chunk render mesh is welded at 1e-5 × the source mesh's diagonal
//! (what a renderer, a mesh optimiser or an engine's importer does) and the
//! collapsed triangles, boundary and non-manifold edges are counted, with
//! the edges below that length, the shortest edge and the smallest triangle
//! before the weld. Spot and Bob at 100, 500 and 2,000 uniform sites (seed
//! 1, as the fracture bench), then a unit cube cut by one oblique plane
//! (normal (15, −5, −10)) passing 1e-9 … 1e-3 m inside and outside the
//! corner (1, 0, 0). Real meshes with the short-edge collapse off and on
//! (the default). Also prints each fracture's wall time.
//!
//! Run: `cargo bench -p smithereens-authoring --bench near_degenerate`
//! (release build; `-- 500` for one site count).
#![allow(missing_docs, clippy::unwrap_used)]

#[path = "../tests/common/weld.rs"]
mod weld;

use glam::DVec3;
use smithereens_authoring::{
    BOX_TRIANGLES, CutPlane, FractureSettings, Pattern, box_corners, fracture, fracture_voronoi,
    load_mesh, mesh_from_triangles,
};
use std::path::PathBuf;
use std::time::Instant;
use weld::file_weld_metric;

fn main() {
    let counts: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let counts = if counts.is_empty() {
        vec![100, 500, 2000]
    } else {
        counts
    };
    for name in ["spot.obj", "bob_tri.obj"] {
        let path =
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/meshes")).join(name);
        let mesh = load_mesh(&path).unwrap();
        let (lo, hi) = mesh.bounds();
        let tolerance = 1e-5 * (hi - lo).length();
        for (&sites, collapse_short_edges) in counts.iter().flat_map(|s| [(s, false), (s, true)]) {
            let settings = FractureSettings {
                chunk_count: sites,
                seed: 1,
                collapse_short_edges,
                ..Default::default()
            };
            let start = Instant::now();
            let file = fracture_voronoi(&mesh, &settings, &mut |_| {}).unwrap();
            let seconds = start.elapsed().as_secs_f64();
            let m = file_weld_metric(&file, tolerance);
            println!(
                "{name} {sites} sites, collapse {collapse_short_edges}: {:.2} s, {} chunks, {} triangles, {} with an edge < {tolerance:.2e} m, \
                 shortest {:.2e} m, smallest {:.2e} m²; weld: {} collapsed, {} boundary, {} non-manifold",
                seconds,
                file.meshes.len(),
                m.triangles,
                m.triangles_with_short_edge,
                m.shortest_edge,
                m.smallest_area,
                m.collapsed,
                m.boundary,
                m.non_manifold
            );
        }
    }
    let cube =
        mesh_from_triangles(box_corners(DVec3::ZERO, DVec3::ONE), BOX_TRIANGLES.to_vec()).unwrap();
    let tolerance = 1e-5 * 3f64.sqrt();
    let normal = DVec3::new(15.0, -5.0, -10.0).normalize();
    let corner = normal.dot(DVec3::X);
    for exponent in -9..=-3 {
        for side in [-1.0, 1.0] {
            let gap = side * 10f64.powi(exponent);
            let pattern = Pattern::Planar {
                planes: vec![CutPlane {
                    point: normal * (corner - gap),
                    normal,
                }],
            };
            let settings = FractureSettings {
                collapse_short_edges: true,
                ..Default::default()
            };
            let file = fracture(&cube, &settings, &pattern, &mut |_| {}).unwrap();
            let m = file_weld_metric(&file, tolerance);
            println!(
                "cube, plane {gap:+.0e} m inside the corner: {} chunks, {} triangles, {} short, \
                 shortest {:.2e} m, smallest {:.2e} m²; weld: {} collapsed, {} boundary, {} non-manifold",
                file.meshes.len(),
                m.triangles,
                m.triangles_with_short_edge,
                m.shortest_edge,
                m.smallest_area,
                m.collapsed,
                m.boundary,
                m.non_manifold
            );
        }
    }
}
