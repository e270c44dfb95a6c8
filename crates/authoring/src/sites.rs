//! Voronoi site distributions: uniform, clustered, radial, impact-density,
//! Poisson-disk and Lloyd-relaxed; all seeded with `rand_pcg::Pcg64Mcg`.

use crate::error::FractureError;
use crate::mesh::{ContainmentGrid, TriMesh};
use crate::settings::MAX_CHUNK_COUNT;
use glam::DVec3;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;

/// Random points tried per requested site before giving up (plus a fixed
/// allowance), so a mesh filling 1 % of its bounding box still succeeds.
const ATTEMPTS_PER_SITE: u64 = 2000;

/// `count` sites uniformly distributed inside `mesh`: points drawn uniformly
/// in the bounding box from `Pcg64Mcg::seed_from_u64(seed)` (x, y, z in that
/// order) and kept when the mesh contains them (winding number > ½) and
/// they are farther than `min_separation` (m) from every earlier site.
///
/// # Errors
/// [`FractureError::SitePlacement`] when the attempt budget runs out.
pub(crate) fn uniform_sites_in_mesh(
    mesh: &TriMesh,
    count: u32,
    seed: u64,
    min_separation: f64,
) -> Result<Vec<DVec3>, FractureError> {
    let (lo, hi) = mesh.bounds();
    let extent = hi - lo;
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    sample_sites(mesh, count, min_separation, || {
        // `random::<f64>()` is uniform in [0, 1) and never panics, unlike an
        // empty `random_range`.
        let (x, y, z): (f64, f64, f64) = (rng.random(), rng.random(), rng.random());
        lo + extent * DVec3::new(x, y, z)
    })
}

/// How Voronoi sites are placed (all deterministic for a seed). Every
/// sampled site lies inside the mesh (winding number > ½); explicit sites
/// are taken as given. With
/// [`FractureSettings::collapse_short_edges`](crate::FractureSettings::collapse_short_edges),
/// a fracture then moves sampled sites where five or more lie nearly on one
/// sphere, each by at most 16 steps of about 3.2e-4 × the mesh's diagonal
/// ([`FractureReport::site_steps`](crate::FractureReport::site_steps)), so a
/// site near the surface may end just outside it, and Poisson-disk and
/// clustered spacings hold to within that; [`generate`] returns the sites
/// before any step.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum SiteDistribution {
    /// Uniform in the solid.
    #[default]
    Uniform,
    /// `clusters` centres uniform in the solid; every site is a centre
    /// plus an isotropic Gaussian offset of standard deviation `spread`
    /// (m), centres taken in turn. Gives groups of small chunks.
    Clustered {
        /// Number of cluster centres, ≥ 1.
        clusters: u32,
        /// Standard deviation of the offset, m. Positive.
        spread: f64,
    },
    /// Around `center` (m) with distance `r = radius · u` (u uniform in
    /// [0, 1)) and a uniform direction: density falls off as 1/r², chunks
    /// grow outward from the centre. Same as `ImpactDensity` with γ = 1.
    Radial {
        /// Centre, m.
        center: DVec3,
        /// Largest distance, m. Positive.
        radius: f64,
    },
    /// Impact-density sites `r = radius · u^gamma` around `center`:
    /// γ > 1 concentrates fine chunks at the impact point.
    ImpactDensity {
        /// Impact point, m.
        center: DVec3,
        /// Largest distance, m. Positive.
        radius: f64,
        /// Exponent γ, positive (1 = radial, 2–4 = strongly focused).
        gamma: f64,
    },
    /// Uniform dart throwing with a minimum distance: every pair of sites
    /// is farther apart than `min_distance` (m). Fails with
    /// [`FractureError::SitePlacement`] when that many sites do not fit.
    PoissonDisk {
        /// Minimum site spacing, m. Positive.
        min_distance: f64,
    },
    /// Uniform sites moved `iterations` times to the centroid of their
    /// Voronoi cell within the mesh (Lloyd relaxation; centroids estimated
    /// from 32 fixed seeded sample points per site, at most 200,000), which
    /// evens out cell volumes. A centroid outside a non-convex mesh keeps
    /// the old site.
    Lloyd {
        /// Relaxation steps, at most 100.
        iterations: u32,
    },
    /// Sites given by the caller (an artist's layout, another tool's
    /// output), m, in the mesh's space; `FractureSettings::chunk_count` and
    /// the seed are ignored. Sites are used in list order (site `k` is
    /// cell `k` of the [`FractureReport`](crate::FractureReport)'s
    /// events). A site within [`COINCIDENT_SITE_FRACTION`] × the mesh's
    /// bounding-box diagonal of an earlier kept site is merged into it
    /// (dropped), and [`FractureReport::merged_sites`](crate::FractureReport::merged_sites)
    /// counts it; sites outside the mesh's bounding box are kept (their
    /// cells may still reach into the mesh) and counted in
    /// [`FractureReport::sites_outside_bounds`](crate::FractureReport::sites_outside_bounds).
    /// Both counts also appear in the asset's provenance. A site farther
    /// than [`MAX_SITE_DISTANCE_FRACTION`] × the diagonal from the box is
    /// an error ([`FractureError::SiteTooFar`]). With
    /// [`FractureSettings::collapse_short_edges`](crate::FractureSettings::collapse_short_edges)
    /// (the default), sites nearly but not exactly degenerate (five nearly
    /// on one sphere, off it by more than the clipper's snapping distance,
    /// as in a jittered lattice) are moved by tiny steps, and
    /// [`FractureReport::explicit_sites_moved`](crate::FractureReport::explicit_sites_moved)
    /// is set with a warning; exactly degenerate layouts (a lattice, a
    /// symmetric ring) are kept as given.
    Explicit {
        /// The sites, m. 1 to [`MAX_CHUNK_COUNT`],
        /// all finite.
        points: Vec<DVec3>,
    },
}

/// Two explicit sites closer than this fraction of the mesh's bounding-box
/// diagonal are one site: the later one is merged into (replaced by) the
/// earlier. Their bisector would otherwise be computed from a difference
/// of nearly equal coordinates, and the cells it separates meet other
/// cells' faces in edges shorter than the output's smallest feature
/// (1e-5 × the diagonal is also the weld tolerance a game importer
/// typically applies).
pub const COINCIDENT_SITE_FRACTION: f64 = 1e-5;

/// Explicit sites farther than this fraction of the mesh's bounding-box
/// diagonal from the box are rejected
/// ([`FractureError::SiteTooFar`]): such a site's cell reaches the mesh
/// only when nothing else does, and the squared distances the carving
/// compares would first lose the mesh's scale, then (from about 1e154 m)
/// overflow f64 and give one cell the whole mesh on top of the others.
pub const MAX_SITE_DISTANCE_FRACTION: f64 = 1e6;

/// What was done to the sites: merges and bounds of explicit sites, steps
/// of sampled ones.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SiteCounts {
    /// Sites given.
    pub given: u32,
    /// Sites merged into an earlier one (dropped).
    pub merged: u32,
    /// Sites outside the mesh's bounding box (kept).
    pub outside_bounds: u32,
    /// Steps taken to put sites in general position.
    pub steps: u32,
    /// Near-degenerate flags left when the steps gave up.
    pub degenerate_left: u32,
    /// Times the cells were carved again after the check of carved pieces
    /// (`degenerate_output.rs`).
    pub recarves: u32,
    /// Cells that still failed that check after the last carve.
    pub failing_left: u32,
    /// Sites stepped by the re-carves (a site may count once per re-carve).
    pub recarve_steps: u32,
}

/// Sites actually used for a fracture, and what was done to the given ones.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SitePlan {
    /// The sites, m, one Voronoi cell each.
    pub sites: Vec<DVec3>,
    /// Merge and bounds counts of explicit sites.
    pub counts: SiteCounts,
}

/// Checks explicit sites and merges near-coincident ones (see
/// [`SiteDistribution::Explicit`]): a site is dropped when an earlier kept
/// site lies within `tolerance` (m). Kept sites stay in list order. Uses a
/// uniform grid of cell size `tolerance` for the neighbour lookup (hash map
/// used for lookup only, never iterated), so it is linear in the number of
/// sites.
///
/// # Errors
/// [`FractureError::NoSites`], [`FractureError::TooManySites`],
/// [`FractureError::NonFiniteSite`], [`FractureError::SiteTooFar`].
pub(crate) fn plan_explicit_sites(
    points: &[DVec3],
    lo: DVec3,
    hi: DVec3,
    tolerance: f64,
) -> Result<SitePlan, FractureError> {
    if points.is_empty() {
        return Err(FractureError::NoSites);
    }
    if points.len() > MAX_CHUNK_COUNT as usize {
        return Err(FractureError::TooManySites {
            count: points.len(),
            max: MAX_CHUNK_COUNT,
        });
    }
    if let Some((index, &position)) = points.iter().enumerate().find(|(_, p)| !p.is_finite()) {
        return Err(FractureError::NonFiniteSite { index, position });
    }
    let max = MAX_SITE_DISTANCE_FRACTION * (hi - lo).length();
    for (index, &p) in points.iter().enumerate() {
        // Distance from the box, scaled so that squaring cannot overflow.
        let off = (lo - p).max(p - hi).max(DVec3::ZERO);
        let largest = off.max_element();
        let distance = if largest > 0.0 {
            largest * (off / largest).length()
        } else {
            0.0
        };
        if !(distance <= max) {
            return Err(FractureError::SiteTooFar {
                index,
                distance,
                max,
            });
        }
    }
    let cell_of = |p: DVec3| {
        // Saturating float-to-int casts: a site far outside only shares a
        // (clamped) cell with other far sites, and distances decide.
        let c = ((p - lo) / tolerance).floor();
        [c.x as i64, c.y as i64, c.z as i64]
    };
    let mut grid: std::collections::HashMap<[i64; 3], Vec<u32>> = std::collections::HashMap::new();
    let mut plan = SitePlan::default();
    plan.counts.given = points.len() as u32;
    for &p in points {
        let outside = p.cmplt(lo).any() || p.cmpgt(hi).any();
        if outside {
            plan.counts.outside_bounds += 1;
        }
        let c = cell_of(p);
        let mut near = false;
        'search: for dx in -1i64..=1 {
            for dy in -1i64..=1 {
                for dz in -1i64..=1 {
                    let key = [
                        c[0].saturating_add(dx),
                        c[1].saturating_add(dy),
                        c[2].saturating_add(dz),
                    ];
                    if let Some(list) = grid.get(&key)
                        && list
                            .iter()
                            .any(|&k| plan.sites[k as usize].distance(p) < tolerance)
                    {
                        near = true;
                        break 'search;
                    }
                }
            }
        }
        if near {
            plan.counts.merged += 1;
            continue;
        }
        grid.entry(c).or_default().push(plan.sites.len() as u32);
        plan.sites.push(p);
    }
    Ok(plan)
}

impl SiteDistribution {
    /// Short text for the asset provenance: the `Debug` form, except that
    /// explicit sites are summarised by `counts` (or, when they were not
    /// planned, all zero, by their number) instead of listed.
    pub(crate) fn describe(&self, counts: &SiteCounts) -> String {
        match self {
            SiteDistribution::Explicit { points } if counts.given == 0 => {
                format!("Explicit {{ {} points }}", points.len())
            }
            SiteDistribution::Explicit { .. } => format!(
                "Explicit {{ {} given, {} merged (closer than {COINCIDENT_SITE_FRACTION:e} × diagonal), \
                 {} outside the bounding box }}",
                counts.given, counts.merged, counts.outside_bounds
            ),
            other => format!("{other:?}"),
        }
    }
}

fn invalid(reason: String) -> FractureError {
    FractureError::InvalidPattern { reason }
}

/// The Voronoi sites (m) that [`fracture`](crate::fracture) uses for
/// `distribution` and `seed` (`count` of them, or for
/// [`SiteDistribution::Explicit`] the given ones after merging
/// near-coincident sites), e.g. to check or display them.
///
/// # Errors
/// [`FractureError::InvalidPattern`] for bad distribution parameters,
/// [`FractureError::SitePlacement`] when the sites do not fit, and for
/// explicit sites [`FractureError::NoSites`],
/// [`FractureError::TooManySites`], [`FractureError::NonFiniteSite`].
pub fn generate(
    mesh: &TriMesh,
    count: u32,
    seed: u64,
    distribution: &SiteDistribution,
) -> Result<Vec<DVec3>, FractureError> {
    mesh.validate()?;
    plan_sites(mesh, count, seed, distribution).map(|plan| plan.sites)
}

/// [`generate`] without validating the mesh, with the merge counts.
pub(crate) fn plan_sites(
    mesh: &TriMesh,
    count: u32,
    seed: u64,
    distribution: &SiteDistribution,
) -> Result<SitePlan, FractureError> {
    if let SiteDistribution::Explicit { points } = distribution {
        let (lo, hi) = mesh.bounds();
        let tolerance = COINCIDENT_SITE_FRACTION * (hi - lo).length();
        return plan_explicit_sites(points, lo, hi, tolerance);
    }
    Ok(SitePlan {
        sites: generate_sites(mesh, count, seed, distribution)?,
        ..SitePlan::default()
    })
}

/// Sampled sites of `distribution` (every variant but `Explicit`).
fn generate_sites(
    mesh: &TriMesh,
    count: u32,
    seed: u64,
    distribution: &SiteDistribution,
) -> Result<Vec<DVec3>, FractureError> {
    let (lo, hi) = mesh.bounds();
    let diagonal = (hi - lo).length();
    let positive = |x: f64| x.is_finite() && x > 0.0;
    match *distribution {
        SiteDistribution::Explicit { ref points } => {
            let tolerance = COINCIDENT_SITE_FRACTION * diagonal;
            plan_explicit_sites(points, lo, hi, tolerance).map(|plan| plan.sites)
        }
        SiteDistribution::Uniform => uniform_sites_in_mesh(mesh, count, seed, 1e-6 * diagonal),
        SiteDistribution::PoissonDisk { min_distance } => {
            if !positive(min_distance) {
                return Err(invalid(format!(
                    "Poisson-disk min_distance {min_distance} m must be positive"
                )));
            }
            if count > 1 && min_distance >= diagonal {
                return Err(invalid(format!(
                    "Poisson-disk min_distance {min_distance:?} m is at least the mesh's \
                     bounding-box diagonal ({diagonal:?} m): {count} sites cannot fit"
                )));
            }
            uniform_sites_in_mesh(mesh, count, seed, min_distance)
        }
        SiteDistribution::Clustered { clusters, spread } => {
            if clusters == 0 || clusters > count || !positive(spread) {
                return Err(invalid(format!(
                    "clustered sites need 1 ≤ clusters ≤ the site count ({count}) and a positive spread, got {clusters} and {spread} m"
                )));
            }
            let centres = uniform_sites_in_mesh(mesh, clusters, seed, 1e-6 * diagonal)?;
            let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x9e37_79b9_7f4a_7c15);
            let mut k = 0usize;
            sample_sites(mesh, count, 1e-6 * diagonal, || {
                let (a, b, c, d): (f64, f64, f64, f64) =
                    (rng.random(), rng.random(), rng.random(), rng.random());
                let centre = centres[k % centres.len()];
                k += 1;
                centre + gaussian_pair(a, b, c, d) * spread
            })
        }
        SiteDistribution::Radial { center, radius } => {
            around(mesh, count, seed, diagonal, center, radius, 1.0)
        }
        SiteDistribution::ImpactDensity {
            center,
            radius,
            gamma,
        } => around(mesh, count, seed, diagonal, center, radius, gamma),
        SiteDistribution::Lloyd { iterations } => {
            if iterations > 100 {
                return Err(invalid(format!("Lloyd iterations {iterations} exceed 100")));
            }
            let mut sites = uniform_sites_in_mesh(mesh, count, seed, 1e-6 * diagonal)?;
            if iterations == 0 {
                return Ok(sites);
            }
            let samples = (32 * count as u64).min(200_000) as u32;
            let points = uniform_sites_in_mesh(mesh, samples, seed ^ 0x5bd1_e995, 0.0)?;
            for _ in 0..iterations {
                lloyd_step(mesh, &mut sites, &points, 1e-6 * diagonal);
            }
            Ok(sites)
        }
    }
}

/// Three standard normal values (Box–Muller) from four uniforms in [0, 1).
fn gaussian_pair(a: f64, b: f64, c: f64, d: f64) -> DVec3 {
    let tau = std::f64::consts::TAU;
    let r1 = (-2.0 * (1.0 - a).ln()).sqrt();
    let r2 = (-2.0 * (1.0 - c).ln()).sqrt();
    DVec3::new(
        r1 * (tau * b).cos(),
        r1 * (tau * b).sin(),
        r2 * (tau * d).cos(),
    )
}

/// Sites `center + radius · u^gamma · direction`, direction uniform on the
/// sphere, kept when inside the mesh.
fn around(
    mesh: &TriMesh,
    count: u32,
    seed: u64,
    diagonal: f64,
    center: DVec3,
    radius: f64,
    gamma: f64,
) -> Result<Vec<DVec3>, FractureError> {
    let ok = |x: f64| x.is_finite() && x > 0.0;
    if !center.is_finite() || !ok(radius) || !ok(gamma) {
        return Err(invalid(format!(
            "radial sites need a finite centre and positive radius and gamma, got {center}, {radius} m, {gamma}"
        )));
    }
    if count > 1 && radius <= 1e-6 * diagonal {
        return Err(invalid(format!(
            "radius {radius:?} m leaves no room for {count} distinct sites \
             (sites closer than {:?} m count as one)",
            1e-6 * diagonal
        )));
    }
    // A sphere that misses the mesh's bounding box can never yield a site:
    // say so now instead of after every placement attempt.
    let (lo, hi) = mesh.bounds();
    let gap = center.clamp(lo, hi).distance(center);
    if gap >= radius {
        return Err(invalid(format!(
            "the sphere of radius {radius:?} m around {center} misses the mesh \
             (its bounding box [{lo}, {hi}] is {gap:?} m away)"
        )));
    }
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    sample_sites(mesh, count, 1e-6 * diagonal, || {
        let (u, z, phi): (f64, f64, f64) = (rng.random(), rng.random(), rng.random());
        let z = 2.0 * z - 1.0;
        let ring = (1.0 - z * z).max(0.0).sqrt();
        let phi = std::f64::consts::TAU * phi;
        let direction = DVec3::new(ring * phi.cos(), ring * phi.sin(), z);
        center + direction * (radius * u.powf(gamma))
    })
}

/// Draws candidates until `count` lie inside the mesh and are more than
/// `separation` (m) from earlier sites; fails when the attempt budget
/// (1000 + [`ATTEMPTS_PER_SITE`] per site) runs out.
///
/// Candidates are drawn in order from `candidate` and accepted in that
/// order, exactly as one at a time; only the containment tests (the
/// costly part: a winding number over every triangle, skipped for points
/// in surface-free cells of a [`ContainmentGrid`]) run in parallel, a
/// batch of candidates at a time. The batch is sized from the acceptance
/// rate so far; candidates drawn past the last one needed are discarded
/// (the generator is private to this call), so the sites do not depend on
/// the batch size or the number of threads.
fn sample_sites(
    mesh: &TriMesh,
    count: u32,
    separation: f64,
    mut candidate: impl FnMut() -> DVec3,
) -> Result<Vec<DVec3>, FractureError> {
    let budget = 1000 + ATTEMPTS_PER_SITE * count as u64;
    let grid = ContainmentGrid::new(mesh);
    let mut sites: Vec<DVec3> = Vec::with_capacity(count as usize);
    let mut attempts = 0u64;
    let mut inside_seen = 0u64;
    while sites.len() < count as usize {
        let needed = (count as usize - sites.len()) as u64;
        // Expected candidates for the sites still needed (+10 %), at least
        // 16, at most 65,536 and never past the budget.
        let rate = (inside_seen + 1) as f64 / (attempts + 1) as f64;
        let batch = ((needed as f64 / rate * 1.1) as u64 + 16)
            .min(65_536)
            .min(budget.saturating_sub(attempts).max(1));
        let points: Vec<DVec3> = (0..batch).map(|_| candidate()).collect();
        let inside: Vec<bool> = points
            .par_iter()
            .map(|p| p.is_finite() && grid.contains_point(*p))
            .collect();
        for (p, inside) in points.into_iter().zip(inside) {
            if sites.len() == count as usize {
                break;
            }
            if attempts >= budget {
                return Err(FractureError::SitePlacement {
                    placed: sites.len() as u32,
                    requested: count,
                    attempts,
                });
            }
            attempts += 1;
            if !inside {
                continue;
            }
            inside_seen += 1;
            if sites.iter().any(|s| s.distance(p) <= separation) {
                continue;
            }
            sites.push(p);
        }
    }
    Ok(sites)
}

/// One Lloyd step: each site moves to the mean of the sample points
/// nearest to it (ties: lower index), if that mean is inside the mesh and
/// not within `separation` of an already moved site.
fn lloyd_step(mesh: &TriMesh, sites: &mut [DVec3], points: &[DVec3], separation: f64) {
    let mut sum = vec![DVec3::ZERO; sites.len()];
    let mut n = vec![0u32; sites.len()];
    for p in points {
        let mut best = 0usize;
        let mut best_d = f64::INFINITY;
        for (k, s) in sites.iter().enumerate() {
            let d = s.distance_squared(*p);
            if d < best_d {
                best_d = d;
                best = k;
            }
        }
        sum[best] += *p;
        n[best] += 1;
    }
    for k in 0..sites.len() {
        if n[k] == 0 {
            continue;
        }
        let c = sum[k] / n[k] as f64;
        let clear = sites
            .iter()
            .enumerate()
            .all(|(j, s)| j == k || s.distance(c) > separation);
        if clear && mesh.contains_point(c) {
            sites[k] = c;
        }
    }
}
