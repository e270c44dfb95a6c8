//! Issue 17, item 2: no near-degenerate render mesh after fracture. Every
//! chunk mesh welded at [`MIN_EDGE_FRACTION`] × the source mesh's diagonal
//! (as an importer or mesh optimiser does) must have no boundary edge, no
//! non-manifold edge and no collapsed triangle; before the weld no edge is
//! shorter than that tolerance and no triangle smaller than
//! [`MIN_AREA_FRACTION`] × the diagonal².
//!
//! Held in full, with the fracture invariants (bond area = cap area
//! included): Spot and Bob at 100, 500 and 2,000 sites for seed 1, and a
//! unit cube cut by one oblique plane passing within 1e-9 … 1e-4 m of a
//! corner or of an edge, for several normals. Two steps made the 500 and
//! 2,000 site cases so: sampled sites are put in general position before
//! carving (`general_position.rs`: no five nearly on one sphere), and
//! vertices left in the middle of a Voronoi edge next to a stuck short edge
//! are dissolved along it (`edge_collapse/shared.rs`). Spot at 2,000 sites
//! went from 66 triangles with a short edge and 4 non-manifold edges to
//! none; with the collapse off it has 49,256.
//!
//! Over seeds 2 to 15 at 500 and 2,000 sites (`seeds_2_to_15_hold_in_full`,
//! release only), with the default settings, all 56 fractures hold in
//! full. 13 of them do so because the fracture checks its carved pieces
//! and re-carves the cells that fail (`degenerate_output.rs`): a short
//! edge or thin triangle the collapse could not remove, a cap tilted off
//! its plane, a cut whose two sides differ, a dropped sliver with a bond.
//! The failing cells' sites take one general-position step and those
//! cells and their neighbours are carved again; one re-carve sufficed in
//! every case. Before it, 48 of the 56 held in full; the others were:
//! - Spot 2,000, seed 3: cell 1918 had a second, tiny piece (6.8e-10 m³,
//!   below `SLIVER_VOLUME_FRACTION`), which was dropped; the faces of
//!   chunks 509 and 1704 against it had nothing across, so their caps
//!   exceeded their bonds by 5.8e-4 and 1.4e-3 relative;
//! - 2 to 4 triangles with a short edge (Spot 2,000 seeds 10, 14, 15, Bob
//!   2,000 seeds 14, 15): a source-mesh vertex 2e-5 m from a rim point
//!   whose move would turn a surface triangle over, two cells computing
//!   one surface point 1.3e-7 m apart, two mid-Voronoi-edge points 2e-5 m
//!   apart;
//! - a triangle below the area floor (Bob 2,000 seed 9) and a bond 1.7e-2
//!   off its cap on a 1.5e-5 m² interface (Spot 2,000 seed 8).
//!
//! With the collapse off, 13 of the 24 fail bond = cap, by 1.2e-4 to
//! 4e-3: the test measures caps from f32 vertices, and sliver triangles
//! tilt past what it counts as in the plane.
//!
//! How the other seeds got there. Bob 2,000 seed 6 joined the held ones
//! when a vertex one side of a cut holds may be inserted into the other
//! side's rim edge up to 0.05 collapse lengths off it, not only within
//! the copy tolerance (`CONFORM_REACH` in `edge_collapse/shared.rs`: a
//! forced collapse had cut a 5.2e-7 m² corner from one side only). Bob
//! 2,000 seed 2 joined the held ones
//! when an in-plane move could no longer tilt a cap triangle past 0.5°
//! before the last rounds (`MAX_TILT_COSINE` in `edge_collapse/mesh.rs`:
//! two triangles had been tilted 0.9° and 1.6°); Spot 2,000 seed 4 and
//! Bob 2,000 seed 3 when the vertices inserted across a cut near a
//! leftover came also from the neighbours of its vertices' copies in
//! other pieces (`Shared::conform`, 2026-12-04); Spot 2,000 seeds 2 and 7
//! when a vertex that only one side of a cut held next to a leftover
//! short edge or thin triangle was first inserted into the other side's
//! rim (`Shared::conform_leftovers`, 2026-12-04). The last short edge (Spot 2,000,
//! seed 7) went when a piece holding two vertices 1.6e-7 m apart where its
//! neighbours hold one had them merged instead of frozen
//! (`Shared::merge_doubles`, 2026-12-04). Flipping edges inside one
//! triangle of the source surface as well as inside caps (`Mesh::flip`,
//! 2026-12-04) had taken the short edges left from four fractures to one: an edge from a
//! surface vertex to a rim vertex could not collapse because a surface
//! triangle around it would turn over, and only cap edges could be
//! flipped out of the way. Carving every cell from the whole mesh instead
//! (as the collapse did until 2026-12-04, before the surface flips) gave
//! 17 in full, 3 short edges, 1 below the area floor (a cap that is a
//! strip about 1e-6 m wide along a Voronoi edge), 5 failing bond = cap:
//! the same kinds of defect on other seeds, since the collapse's order
//! follows the triangulation. Until slivers inside a flat cap were
//! flipped away (`Mesh::flip_thin`, 2026-12-04), 10 kept a triangle below the area
//! floor and 9 held in full: rows of nearly collinear rim points fanned
//! into slivers, whose flattening would have moved a rim vertex that
//! other pieces hold. A bond = cap failure of Bob 500, seed 6 was the
//! test's: it counted into one cap the triangles of a neighbouring cut
//! 0.79° away that lie along the two cuts' common edge; a triangle is now
//! counted for the cut of the chunk whose plane it fits best
//! (`common::coplanar_cap_area`). Before the shared pass kept the two sides of each cut
//! alike (`edge_collapse/shared.rs`, `Shared::balance`): weld clean in 22,
//! 12 below the area floor, 15 failing bond = cap. Those failures were real
//! geometry, not the test's cap measurement: the projected area of every
//! interior triangle within the plane tolerance, whatever its tilt, differs
//! from the bond by as much. The cause was T-junctions: each cell is
//! carved on its own, so one side's cap rim has vertices (where its earlier
//! cuts split the surface triangles the rim crosses) that the other lacks,
//! and moving such a vertex, or a shared corner next to one, changed one
//! side only. 2,000 sites is too slow for the debug test suite: those
//! tests are ignored there and run in release by
//! `scripts/near_degenerate_release.sh`.

#![allow(clippy::unwrap_used)]

mod common;

use common::weld::{WeldMetric, file_weld_metric};
use common::{asset, check_fracture, unit_cube};
use glam::DVec3;
use smithereens_authoring::{
    CutPlane, FractureReport, FractureSettings, MIN_AREA_FRACTION, MIN_EDGE_FRACTION, Pattern,
    fracture, fracture_with_report, load_mesh,
};

/// Default settings with the short-edge collapse on.
fn collapsing() -> FractureSettings {
    FractureSettings {
        collapse_short_edges: true,
        ..Default::default()
    }
}

fn assert_clean(m: &WeldMetric, diagonal: f64, what: &str) {
    let tolerance = MIN_EDGE_FRACTION * diagonal;
    assert!(m.is_clean(), "{what}: {m:?}");
    assert_eq!(m.triangles_with_short_edge, 0, "{what}: {m:?}");
    assert!(m.shortest_edge >= tolerance, "{what}: {m:?}");
    assert!(
        m.smallest_area >= MIN_AREA_FRACTION * diagonal * diagonal,
        "{what}: {m:?}"
    );
}

/// Fractures `name` into `chunk_count` chunks (seed 1), checks the
/// fracture invariants and returns the weld metric and the diagonal.
fn real_mesh(name: &str, chunk_count: u32) -> (WeldMetric, f64) {
    let (m, diagonal, _) = real_mesh_reported(name, chunk_count, 1);
    (m, diagonal)
}

/// Fractures `name` into `chunk_count` chunks with `seed` (default
/// settings), checks the fracture invariants and returns the weld metric,
/// the diagonal and the fracture report.
fn real_mesh_reported(
    name: &str,
    chunk_count: u32,
    seed: u64,
) -> (WeldMetric, f64, FractureReport) {
    let mesh = load_mesh(&asset(name)).unwrap();
    let (lo, hi) = mesh.bounds();
    let diagonal = (hi - lo).length();
    let settings = FractureSettings {
        chunk_count,
        seed,
        ..Default::default()
    };
    let pattern = Pattern::Voronoi {
        sites: Default::default(),
    };
    let (file, report) = fracture_with_report(&mesh, &settings, &pattern, &mut |_| {}).unwrap();
    check_fracture(&file, mesh.volume(), diagonal);
    (
        file_weld_metric(&file, MIN_EDGE_FRACTION * diagonal),
        diagonal,
        report,
    )
}

#[test]
fn spot_and_bob_at_100_sites_weld_cleanly() {
    for name in ["spot.obj", "bob_tri.obj"] {
        let (m, diagonal) = real_mesh(name, 100);
        assert_clean(&m, diagonal, &format!("{name} 100 sites"));
    }
}

#[test]
fn spot_and_bob_at_500_sites_weld_cleanly() {
    for name in ["spot.obj", "bob_tri.obj"] {
        let (m, diagonal) = real_mesh(name, 500);
        assert_clean(&m, diagonal, &format!("{name} 500 sites"));
    }
}

/// Spot at 300 sites, seed 11: one cell fails the check of its carved
/// pieces (`degenerate_output.rs`) and is re-carved with its neighbours
/// once; the result holds in full. Over seeds 1 to 20 at 200 sites no
/// fracture of Spot or Bob needs a re-carve, and at 300 sites two do
/// (Spot seeds 11 and 15).
#[test]
fn a_failing_cell_is_re_carved_and_the_fracture_holds_in_full() {
    let (m, diagonal, report) = real_mesh_reported("spot.obj", 300, 11);
    assert_eq!((report.recarves, report.failing_left), (1, 0), "{report:?}");
    assert_clean(&m, diagonal, "spot.obj 300 sites, seed 11");
}

#[test]
#[ignore = "slow in debug: run in release by scripts/near_degenerate_release.sh"]
fn spot_and_bob_at_2000_sites_weld_cleanly() {
    for name in ["spot.obj", "bob_tri.obj"] {
        let (m, diagonal) = real_mesh(name, 2000);
        assert_clean(&m, diagonal, &format!("{name} 2000 sites"));
    }
}

/// The meshes and site counts of the other-seed checks.
const OTHER_CASES: [(&str, u32); 4] = [
    ("spot.obj", 500),
    ("spot.obj", 2000),
    ("bob_tri.obj", 500),
    ("bob_tri.obj", 2000),
];

/// Seeds 2 to 15 at 500 and 2,000 sites (56 fractures) hold in full: the
/// fracture invariants (bond area = cap area included) and a clean weld
/// with no edge or triangle below the floors. Measured: 13 of them need
/// one re-carve (`FractureReport::recarves`), none more; before the
/// re-carve existed 48 held in full. Spot 2,000 seed 3 is the dropped
/// sliver of the module docs: after its re-carve nothing is dropped.
#[test]
#[ignore = "slow in debug: run in release by scripts/near_degenerate_release.sh"]
fn seeds_2_to_15_hold_in_full() {
    let mut recarved = Vec::new();
    for seed in 2..16 {
        for (name, sites) in OTHER_CASES {
            let what = format!("{name} {sites} sites, seed {seed}");
            let (m, diagonal, report) = real_mesh_reported(name, sites, seed);
            assert_clean(&m, diagonal, &what);
            assert_eq!(report.failing_left, 0, "{what}: {report:?}");
            if report.recarves > 0 {
                recarved.push((name, sites, seed));
            }
            if (name, sites, seed) == ("spot.obj", 2000, 3) {
                assert_eq!(report.dropped, 0, "{what}: {report:?}");
            }
        }
    }
    assert!(
        recarved.contains(&("spot.obj", 2000, 3)),
        "the dropped sliver's cell was re-carved: {recarved:?}"
    );
    println!("re-carved: {recarved:?}");
}

#[test]
fn oblique_cuts_near_a_corner_or_an_edge_weld_cleanly() {
    let cube = unit_cube();
    let diagonal = 3f64.sqrt();
    let normals = [
        DVec3::new(15.0, -5.0, -10.0),
        DVec3::new(1.0, -1.0, -1.0),
        DVec3::new(3.0, 1.0, -2.0),
        DVec3::new(1.0, 2.0, 0.5),
        DVec3::new(-7.0, 3.0, 11.0),
    ];
    // A corner, a point on an edge, a point near a corner along an edge.
    let anchors = [
        DVec3::new(1.0, 0.0, 0.0),
        DVec3::new(1.0, 0.5, 0.0),
        DVec3::new(0.0, 1.0, 0.3),
        DVec3::new(1.0, 1.0, 1.0 - 3e-6),
    ];
    let mut cases = 0;
    for normal in normals {
        let normal = normal.normalize();
        for anchor in anchors {
            for gap in [-1e-4, -1e-5, -1e-6, -1e-9, 1e-9, 1e-6, 4e-6, 1e-5, 1e-4] {
                let offset = normal.dot(anchor) - gap;
                let pattern = Pattern::Planar {
                    planes: vec![CutPlane {
                        point: normal * offset,
                        normal,
                    }],
                };
                let what = format!("normal {normal:?}, anchor {anchor:?}, gap {gap:e}");
                let file = fracture(&cube, &collapsing(), &pattern, &mut |_| {})
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let m = file_weld_metric(&file, MIN_EDGE_FRACTION * diagonal);
                assert_clean(&m, diagonal, &what);
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 5 * 4 * 9);
    // The exact case: normal (15, −5, −10), offset 0.801782726.
    let normal = DVec3::new(15.0, -5.0, -10.0).normalize();
    let pattern = Pattern::Planar {
        planes: vec![CutPlane {
            point: normal * 0.801782726,
            normal,
        }],
    };
    let file = fracture(&cube, &collapsing(), &pattern, &mut |_| {}).unwrap();
    assert_clean(
        &file_weld_metric(&file, MIN_EDGE_FRACTION * diagonal),
        diagonal,
        "issue case",
    );
}
