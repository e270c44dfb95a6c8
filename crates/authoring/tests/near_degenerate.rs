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
//! Over seeds 2 to 7 at 500 and 2,000 sites
//! (`other_seeds_weld_cleanly_and_hold_in_full_where_measured`, release
//! only), with the default settings (shared regions and the collapse,
//! both on): every weld is clean, with no edge or triangle below the
//! floors, and 23 of these 24 fractures hold the fracture invariants too.
//! The other one fails bond = cap:
//! - Spot 2,000, seed 3: cell 1918 has a second, tiny piece (6.8e-10 m³,
//!   below `SLIVER_VOLUME_FRACTION`), which is dropped. The faces of
//!   chunks 509 and 1704 against it have nothing across, so those caps
//!   exceed their bonds by 3.3e-6 and 2.4e-6 m² (5.8e-4 and 1.4e-3
//!   relative). It fails the same way with the collapse off:
//!   `check_fracture` does not know dropped slivers.
//!
//! On other seeds (8 to 15, measured after the tuning on 2 to 7,
//! `seeds_8_to_15_hold_where_measured`) 25 of 32 hold in full; all 7
//! others are at 2,000 sites: 5 keep 2 to 4 triangles with a short edge,
//! 1 a triangle below the area floor, 1 a bond off its cap (see that
//! test). Spot 500 seed 8 and Bob 500 seed 14 joined when sites whose
//! Voronoi vertex has two edges crossing the surface within two lengths
//! of each other are moved like near-cospherical ones
//! (`general_position.rs`).
//! So the collapse does not yet hold for every seed.
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
    CutPlane, FractureSettings, MIN_AREA_FRACTION, MIN_EDGE_FRACTION, Pattern, fracture,
    fracture_voronoi, load_mesh,
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
fn real_mesh(name: &str, chunk_count: u32, invariants: bool) -> (WeldMetric, f64) {
    real_mesh_seeded(name, chunk_count, 1, invariants)
}

fn real_mesh_seeded(
    name: &str,
    chunk_count: u32,
    seed: u64,
    invariants: bool,
) -> (WeldMetric, f64) {
    let mesh = load_mesh(&asset(name)).unwrap();
    let (lo, hi) = mesh.bounds();
    let diagonal = (hi - lo).length();
    let settings = FractureSettings {
        chunk_count,
        seed,
        collapse_short_edges: true,
        ..Default::default()
    };
    let file = fracture_voronoi(&mesh, &settings, &mut |_| {}).unwrap();
    if invariants {
        check_fracture(&file, mesh.volume(), diagonal);
    }
    (
        file_weld_metric(&file, MIN_EDGE_FRACTION * diagonal),
        diagonal,
    )
}

#[test]
fn spot_and_bob_at_100_sites_weld_cleanly() {
    for name in ["spot.obj", "bob_tri.obj"] {
        let (m, diagonal) = real_mesh(name, 100, true);
        assert_clean(&m, diagonal, &format!("{name} 100 sites"));
    }
}

#[test]
fn spot_and_bob_at_500_sites_weld_cleanly() {
    for name in ["spot.obj", "bob_tri.obj"] {
        let (m, diagonal) = real_mesh(name, 500, true);
        assert_clean(&m, diagonal, &format!("{name} 500 sites"));
    }
}

#[test]
#[ignore = "slow in debug: run in release by scripts/near_degenerate_release.sh"]
fn spot_and_bob_at_2000_sites_weld_cleanly() {
    for name in ["spot.obj", "bob_tri.obj"] {
        let (m, diagonal) = real_mesh(name, 2000, true);
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

/// Seeds 2 to 7 at 500 and 2,000 sites that fail bond = cap (measured,
/// see the module docs); the other 23 hold in full: the fracture
/// invariants (bond area = cap area included) and a clean weld with no
/// edge or triangle below the floors.
const BOND_CAP_GAPS: [(&str, u32, u64); 1] = [("spot.obj", 2000, 3)];

/// Seeds 2 to 7 at 500 and 2,000 sites: every weld clean with no edge or
/// triangle below the floors, and the fracture invariants (bond area = cap
/// area included) except for [`BOND_CAP_GAPS`].
#[test]
#[ignore = "slow in debug: run in release by scripts/near_degenerate_release.sh"]
fn other_seeds_weld_cleanly_and_hold_in_full_where_measured() {
    for seed in 2..8 {
        for (name, sites) in OTHER_CASES {
            let full = !BOND_CAP_GAPS.contains(&(name, sites, seed));
            let what = format!("{name} {sites} sites, seed {seed}");
            let (m, diagonal) = real_mesh_seeded(name, sites, seed, full);
            assert_clean(&m, diagonal, &what);
        }
    }
}

/// Seeds 8 to 15, measured after the collapse was tuned on seeds 2 to 7
/// (8 to 11 were also looked at while tuning; 12 to 15 were not), as a
/// check beyond them: 25 of these 32 hold in full. These 7 do not (known
/// gaps, module docs), all at 2,000 sites: 2 to 4 triangles with a short
/// edge (Spot seeds 10, 14 and 15, Bob seeds 14 and 15), one triangle
/// below the area floor (Bob seed 9), a bond 1.7e-2 off one side's cap
/// on a 1.5e-5 m² interface (Spot seed 8).
const FRESH_GAPS: [(&str, u32, u64); 7] = [
    ("spot.obj", 2000, 8),
    ("spot.obj", 2000, 10),
    ("spot.obj", 2000, 14),
    ("spot.obj", 2000, 15),
    ("bob_tri.obj", 2000, 9),
    ("bob_tri.obj", 2000, 14),
    ("bob_tri.obj", 2000, 15),
];

/// Seeds 8 to 15 in full except [`FRESH_GAPS`]; of those, Spot 2,000 seed
/// 8 welds cleanly with nothing below the floors (its one bond off its cap
/// aside), and Bob 2,000 seed 9 welds cleanly with no short edge (its one
/// triangle below the area floor aside).
#[test]
#[ignore = "slow in debug: run in release by scripts/near_degenerate_release.sh"]
fn seeds_8_to_15_hold_where_measured() {
    for seed in 8..16 {
        for (name, sites) in OTHER_CASES {
            if FRESH_GAPS.contains(&(name, sites, seed)) {
                continue;
            }
            let (m, diagonal) = real_mesh_seeded(name, sites, seed, true);
            assert_clean(&m, diagonal, &format!("{name} {sites} sites, seed {seed}"));
        }
    }
    let (m, diagonal) = real_mesh_seeded("spot.obj", 2000, 8, false);
    assert_clean(&m, diagonal, "spot.obj 2000 sites, seed 8");
    let (m, _) = real_mesh_seeded("bob_tri.obj", 2000, 9, false);
    assert!(m.is_clean(), "bob_tri.obj 2000 sites, seed 9: {m:?}");
    assert_eq!(m.triangles_with_short_edge, 0);
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
