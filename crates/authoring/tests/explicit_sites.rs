//! Issue 17, item 4: explicit Voronoi sites (`SiteDistribution::Explicit`):
//! a symmetric ring, near-coincident sites merged with a count, sampled
//! sites passed back in, and bad site lists.

#![allow(clippy::unwrap_used)]

mod common;

use common::weld::file_weld_metric;
use common::{check_fracture, unit_cube};
use glam::DVec3;
use smithereens_authoring::{
    COINCIDENT_SITE_FRACTION, FractureError, FractureReport, FractureSettings, MIN_EDGE_FRACTION,
    Pattern, SiteDistribution, TriMesh, fracture, fracture_with_report, mesh_from_triangles, sites,
};
use smithereens_core::{AssetFile, BondEnd};

/// A closed prism approximating a cylinder of `radius` (m) around the Z
/// axis from z = 0 to `height`, with `segments` sides, wound outward.
fn cylinder(radius: f64, height: f64, segments: u32) -> TriMesh {
    let mut positions = Vec::new();
    for z in [0.0, height] {
        for i in 0..segments {
            let a = std::f64::consts::TAU * i as f64 / segments as f64;
            positions.push(DVec3::new(radius * a.cos(), radius * a.sin(), z));
        }
    }
    let bottom = positions.len() as u32;
    positions.push(DVec3::new(0.0, 0.0, 0.0));
    let top = bottom + 1;
    positions.push(DVec3::new(0.0, 0.0, height));
    let mut triangles = Vec::new();
    for i in 0..segments {
        let j = (i + 1) % segments;
        let (b0, b1, t0, t1) = (i, j, segments + i, segments + j);
        triangles.push([b0, b1, t1]);
        triangles.push([b0, t1, t0]);
        triangles.push([bottom, b1, b0]);
        triangles.push([top, t0, t1]);
    }
    mesh_from_triangles(positions, triangles).unwrap()
}

fn explicit(points: Vec<DVec3>) -> Pattern {
    Pattern::Voronoi {
        sites: SiteDistribution::Explicit { points },
    }
}

/// Fractures `mesh` at the explicit sites `points` (no progress callback).
fn fracture_sites(
    mesh: &TriMesh,
    settings: &FractureSettings,
    points: Vec<DVec3>,
) -> Result<(AssetFile, FractureReport), FractureError> {
    fracture_with_report(mesh, settings, &explicit(points), &mut |_| {})
}

/// The bonded neighbours of every chunk, sorted.
fn neighbours(file: &smithereens_core::AssetFile) -> Vec<Vec<u32>> {
    let mut out = vec![Vec::new(); file.desc.chunks.len()];
    for b in &file.desc.bonds {
        let BondEnd::Chunk(c1) = b.chunk1 else {
            panic!("bond to the world")
        };
        out[b.chunk0 as usize].push(c1);
        out[c1 as usize].push(b.chunk0);
    }
    for n in &mut out {
        n.sort_unstable();
    }
    out
}

/// Ten sites on a circle of radius 0.5 m around the cylinder's axis, at
/// half its height.
fn ring_of_ten() -> Vec<DVec3> {
    (0..10)
        .map(|k| {
            let a = std::f64::consts::TAU * k as f64 / 10.0;
            DVec3::new(0.5 * a.cos(), 0.5 * a.sin(), 0.5)
        })
        .collect()
}

#[test]
fn a_ring_of_ten_sites_in_a_cylinder_gives_ten_equal_cells_bonded_to_both_ring_neighbours() {
    // 40 sides: the prism has the ring's 10-fold symmetry.
    let mesh = cylinder(1.0, 1.0, 40);
    let ring = ring_of_ten();
    let settings = FractureSettings::default();
    let (file, report) = fracture_sites(&mesh, &settings, ring).unwrap();
    let (lo, hi) = mesh.bounds();
    check_fracture(&file, mesh.volume(), (hi - lo).length());
    assert_eq!(file.desc.chunks.len(), 10);
    assert_eq!((report.merged_sites, report.sites_outside_bounds), (0, 0));
    assert!(report.warnings().is_empty());
    let expected = mesh.volume() / 10.0;
    for (k, c) in file.desc.chunks.iter().enumerate() {
        let rel = (c.volume as f64 - expected).abs() / expected;
        assert!(rel < 1e-5, "chunk {k}: volume {} vs {expected}", c.volume);
    }
    // Chunks follow site order (no slivers), so chunk k is site k's cell.
    for (k, n) in neighbours(&file).iter().enumerate() {
        let k = k as u32;
        let mut want = vec![(k + 1) % 10, (k + 9) % 10];
        want.sort_unstable();
        assert_eq!(n, &want, "chunk {k} bonds");
    }
    // All ten interfaces have the same area (height × radius).
    for b in &file.desc.bonds {
        assert!((b.area - 1.0).abs() < 1e-4, "bond area {}", b.area);
    }
}

#[test]
fn sampled_sites_passed_back_explicitly_give_the_same_chunks() {
    let mesh = unit_cube();
    let settings = FractureSettings {
        chunk_count: 16,
        seed: 3,
        ..Default::default()
    };
    let points = sites::generate(&mesh, 16, 3, &SiteDistribution::Uniform).unwrap();
    let uniform = fracture(&mesh, &settings, &Pattern::default(), &mut |_| {}).unwrap();
    let given = fracture(&mesh, &settings, &explicit(points), &mut |_| {}).unwrap();
    assert_eq!(uniform.desc, given.desc);
    assert_eq!(uniform.meshes, given.meshes);
    assert!(
        given.provenance.contains("Explicit { 16 given, 0 merged"),
        "{}",
        given.provenance
    );
}

#[test]
fn near_coincident_sites_are_merged_and_counted_never_silently() {
    let mesh = unit_cube();
    let tolerance = COINCIDENT_SITE_FRACTION * 3f64.sqrt();
    let a = DVec3::new(0.25, 0.5, 0.5);
    let b = DVec3::new(0.75, 0.5, 0.5);
    let points = vec![
        a,
        b,
        a + DVec3::new(0.3 * tolerance, 0.0, 0.0),
        b - DVec3::new(0.0, 0.5 * tolerance, 0.5 * tolerance),
        a + DVec3::new(0.0, 0.0, 0.9 * tolerance),
    ];
    let (file, report) =
        fracture_sites(&mesh, &FractureSettings::default(), points.clone()).unwrap();
    assert_eq!(report.merged_sites, 3);
    assert_eq!(file.desc.chunks.len(), 2);
    let warnings = report.warnings();
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].starts_with("3 Voronoi site(s) merged"),
        "{warnings:?}"
    );
    assert!(
        file.provenance.contains("5 given, 3 merged"),
        "{}",
        file.provenance
    );
    assert_eq!(
        sites::generate(&mesh, 0, 0, &SiteDistribution::Explicit { points }).unwrap(),
        vec![a, b]
    );

    // Just beyond the tolerance, a near-coincident pair is two sites and
    // two chunks (half the cube each).
    let pair = vec![a, a + DVec3::new(2.0 * tolerance, 0.0, 0.0)];
    let (file, report) = fracture_sites(&mesh, &FractureSettings::default(), pair).unwrap();
    assert_eq!(report.merged_sites, 0);
    assert_eq!(file.desc.chunks.len(), 2);
    check_fracture(&file, 1.0, 3f64.sqrt());
}

#[test]
fn sites_outside_the_bounds_are_kept_with_a_warning() {
    let mesh = unit_cube();
    let points = vec![
        DVec3::new(0.5, 0.5, 0.5),
        DVec3::new(1.5, 0.5, 0.5),
        DVec3::new(50.0, 50.0, 50.0),
    ];
    let (file, report) = fracture_sites(&mesh, &FractureSettings::default(), points).unwrap();
    assert_eq!(report.sites_outside_bounds, 2);
    assert_eq!(report.merged_sites, 0);
    assert_eq!(report.warnings().len(), 1);
    // The bisector at x = 1 touches the cube only on its face: one chunk.
    assert_eq!(file.desc.chunks.len(), 1);
    let v: f32 = file.desc.chunks.iter().map(|c| c.volume).sum();
    assert!((v - 1.0).abs() < 1e-5);

    // A site outside whose cell still reaches into the mesh cuts it.
    let points = vec![DVec3::new(0.5, 0.5, 0.5), DVec3::new(1.1, 0.5, 0.5)];
    let (file, report) = fracture_sites(&mesh, &FractureSettings::default(), points).unwrap();
    assert_eq!(report.sites_outside_bounds, 1);
    assert_eq!(file.desc.chunks.len(), 2);
}

#[test]
fn bad_site_lists_are_typed_errors() {
    let mesh = unit_cube();
    let run = |points: Vec<DVec3>| {
        fracture_sites(&mesh, &FractureSettings::default(), points).unwrap_err()
    };
    assert!(matches!(run(Vec::new()), FractureError::NoSites));
    assert!(matches!(
        run(vec![DVec3::splat(0.5), DVec3::new(0.2, f64::NAN, 0.2)]),
        FractureError::NonFiniteSite { index: 1, .. }
    ));
    assert!(matches!(
        run(vec![DVec3::new(f64::INFINITY, 0.0, 0.0)]),
        FractureError::NonFiniteSite { index: 0, .. }
    ));
    assert!(matches!(
        run(vec![
            DVec3::splat(0.5);
            smithereens_authoring::MAX_CHUNK_COUNT as usize + 1
        ]),
        FractureError::TooManySites { .. }
    ));
    // Finite but far: at 1e155 m the squared distances overflowed and the
    // far site's cell took the whole cube on top of the others (2 m³ of
    // chunks from a 1 m³ cube, exit 0). Beyond 1e6 × the diagonal
    // (1.7e6 m here) a site is an error; 1e3 m away it is kept, with its
    // empty cell, and the volume is right.
    assert!(matches!(
        run(vec![DVec3::splat(0.5), DVec3::new(1e155, 0.2, 0.2)]),
        FractureError::SiteTooFar { index: 1, .. }
    ));
    assert!(matches!(
        run(vec![DVec3::splat(0.5), DVec3::new(0.5, -2e6, 0.5)]),
        FractureError::SiteTooFar { index: 1, .. }
    ));
    let far = vec![
        DVec3::splat(0.5),
        DVec3::new(1e3, 0.2, 0.2),
        DVec3::splat(0.1),
    ];
    let (file, report) = fracture_sites(&mesh, &FractureSettings::default(), far).unwrap();
    let volume: f64 = file.desc.chunks.iter().map(|c| f64::from(c.volume)).sum();
    assert!((volume - 1.0).abs() < 1e-6, "{volume}");
    assert_eq!(report.sites_outside_bounds, 1);
}

#[test]
fn exactly_degenerate_explicit_sites_are_kept_as_given() {
    // The ring is as degenerate as sites get (ten on one circle, every
    // Voronoi vertex on the axis shared by all ten cells), yet with the
    // short-edge collapse on, which moves sampled sites out of such
    // configurations, a caller's sites stay where they were given (they
    // are off the sphere by far less than the clipper's snapping
    // distance): the cells keep the ring's symmetry.
    let mesh = cylinder(1.0, 1.0, 40);
    let ring = ring_of_ten();
    let settings = FractureSettings {
        collapse_short_edges: true,
        ..Default::default()
    };
    let (file, report) = fracture_sites(&mesh, &settings, ring).unwrap();
    assert_eq!((report.site_steps, report.degenerate_left), (0, 0));
    assert_eq!(file.desc.chunks.len(), 10);
    let expected = mesh.volume() / 10.0;
    for c in &file.desc.chunks {
        let rel = (c.volume as f64 - expected).abs() / expected;
        assert!(rel < 1e-4, "{} vs {expected}", c.volume);
    }
}

/// A 4 × 4 × 4 lattice of sites in the unit cube, each moved by up to
/// `jitter` (m) per axis (a fixed linear congruential sequence).
fn jittered_lattice(jitter: f64) -> Vec<DVec3> {
    let mut state = 12345u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let mut points = Vec::new();
    for x in 0..4 {
        for y in 0..4 {
            for z in 0..4 {
                let j = DVec3::new(next(), next(), next()) * jitter;
                points.push((DVec3::new(x as f64, y as f64, z as f64) + 0.5) / 4.0 + j);
            }
        }
    }
    points
}

#[test]
fn nearly_degenerate_explicit_sites_are_moved_and_exact_ones_kept() {
    // An exact lattice (eight sites on every sphere) carves cleanly, since
    // the clipper snaps what is exactly degenerate, and is kept: 64 cubes.
    let mesh = unit_cube();
    let diagonal = 3f64.sqrt();
    let settings = FractureSettings::default();
    let (file, exact) = fracture_sites(&mesh, &settings, jittered_lattice(0.0)).unwrap();
    assert_eq!((exact.site_steps, exact.recarves), (0, 0), "{exact:?}");
    assert!(!exact.explicit_sites_moved);
    assert!(exact.warnings().is_empty(), "{:?}", exact.warnings());
    for c in &file.desc.chunks {
        assert!((c.volume as f64 - 1.0 / 64.0).abs() < 1e-7, "{}", c.volume);
    }
    // Jittered by 1e-6 m, the carving used to stop with a cap error (two
    // corners of a cut outline coinciding), and by 1e-5 m it left 864
    // triangles with a short edge: now the sites move, with a warning,
    // and the chunks weld cleanly with no short edge.
    for jitter in [1e-6, 1e-7] {
        let (file, moved) = fracture_sites(&mesh, &settings, jittered_lattice(jitter)).unwrap();
        assert_eq!(file.desc.chunks.len(), 64);
        assert!(
            moved.explicit_sites_moved && moved.site_steps > 0,
            "{moved:?}"
        );
        assert!(
            moved
                .warnings()
                .iter()
                .any(|w| w.contains("explicit Voronoi sites were moved")),
            "{:?}",
            moved.warnings()
        );
        let m = file_weld_metric(&file, MIN_EDGE_FRACTION * diagonal);
        assert!(m.is_clean(), "jitter {jitter}: {m:?}");
        assert_eq!(m.triangles_with_short_edge, 0, "jitter {jitter}: {m:?}");
    }
}
