//! Issue 17, item 2: no near-degenerate render mesh after fracture. Every
//! chunk mesh welded at [`MIN_EDGE_FRACTION`] × the source mesh's diagonal
//! (as an importer or mesh optimiser does) must have no boundary edge, no
//! non-manifold edge and no collapsed triangle; before the weld no edge is
//! shorter than that tolerance and no triangle smaller than
//! [`MIN_AREA_FRACTION`] × the diagonal². Held in full: Spot and Bob at 100
//! sites (with the full fracture invariants, bond area = cap area
//! included), and a unit cube cut by one oblique plane passing within 1e-9
//! … 1e-4 m of a corner or of an edge, for several normals.
//!
//! NOT YET held in full (the issue stays open): at 500 and 2,000 sites a
//! few short edges are left. Most came from five or more sites nearly on
//! one sphere; sampled sites are now put in general position first
//! (`general_position.rs`), which took Spot at 2,000 sites from 66 to 2
//! triangles with a short edge. What is left are cut vertices near the
//! corner of a cell whose collapse would turn a triangle over or tilt a
//! cap by more than 0.5°. The tests assert the measured bounds, no boundary
//! edge, and at 500 sites the full fracture invariants (bond area = cap
//! area on both sides): Spot 500, 4 of 180,756 triangles with a short edge
//! (8,494 of 189,042 with the collapse off; 10 before general position);
//! Bob 500, 2 of 262,726 (6 before); Spot 2,000, 2 and 1 non-manifold edge
//! (66 and 4 before); Bob 2,000, 20 (58 before). 2,000 sites is too slow
//! for the debug test suite: that test is ignored there and run in release
//! by `scripts/near_degenerate_release.sh`.

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
    let mesh = load_mesh(&asset(name)).unwrap();
    let (lo, hi) = mesh.bounds();
    let diagonal = (hi - lo).length();
    let settings = FractureSettings {
        chunk_count,
        seed: 1,
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

/// The measured state where the must-hold is not met yet: at most
/// `short` triangles with a short edge (each collapses in the weld), at
/// most `pinched` non-manifold edges, no boundary edge, no triangle below
/// the area floor.
fn assert_at_most(m: &WeldMetric, diagonal: f64, what: &str, short: usize, pinched: usize) {
    assert_eq!(m.boundary, 0, "{what}: {m:?}");
    assert!(m.non_manifold <= pinched, "{what}: {m:?}");
    assert!(m.triangles_with_short_edge <= short, "{what}: {m:?}");
    assert!(m.collapsed <= short, "{what}: {m:?}");
    assert!(
        m.smallest_area >= MIN_AREA_FRACTION * diagonal * diagonal,
        "{what}: {m:?}"
    );
}

#[test]
fn spot_and_bob_at_100_sites_weld_cleanly() {
    for name in ["spot.obj", "bob_tri.obj"] {
        let (m, diagonal) = real_mesh(name, 100, true);
        assert_clean(&m, diagonal, &format!("{name} 100 sites"));
    }
}

#[test]
fn spot_and_bob_at_500_sites_keep_at_most_the_measured_short_edges() {
    let (m, diagonal) = real_mesh("spot.obj", 500, true);
    assert_at_most(&m, diagonal, "spot 500", 4, 0);
    let (m, diagonal) = real_mesh("bob_tri.obj", 500, true);
    assert_at_most(&m, diagonal, "bob 500", 2, 0);
}

#[test]
#[ignore = "slow in debug: run in release by scripts/near_degenerate_release.sh"]
fn spot_and_bob_at_2000_sites_keep_at_most_the_measured_short_edges() {
    let (m, diagonal) = real_mesh("spot.obj", 2000, false);
    assert_at_most(&m, diagonal, "spot 2000", 2, 1);
    let (m, diagonal) = real_mesh("bob_tri.obj", 2000, false);
    assert_at_most(&m, diagonal, "bob 2000", 20, 0);
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
