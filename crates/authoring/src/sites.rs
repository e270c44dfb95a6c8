//! Voronoi site distributions: uniform, clustered, radial, impact-density,
//! Poisson-disk and Lloyd-relaxed; all seeded with `rand_pcg::Pcg64Mcg`.

use crate::error::FractureError;
use crate::mesh::TriMesh;
use glam::DVec3;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

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

/// How Voronoi sites are placed inside the mesh (all deterministic for a
/// seed). Every site lies inside the mesh (winding number > ½).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
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
}

fn invalid(reason: String) -> FractureError {
    FractureError::InvalidPattern { reason }
}

/// The `count` Voronoi sites (m) that [`fracture`](crate::fracture) uses
/// for `distribution` and `seed`, e.g. to check or display them.
///
/// # Errors
/// [`FractureError::InvalidPattern`] for bad distribution parameters,
/// [`FractureError::SitePlacement`] when the sites do not fit.
pub fn generate(
    mesh: &TriMesh,
    count: u32,
    seed: u64,
    distribution: &SiteDistribution,
) -> Result<Vec<DVec3>, FractureError> {
    mesh.validate()?;
    generate_sites(mesh, count, seed, distribution)
}

/// [`generate`] without validating the mesh.
pub(crate) fn generate_sites(
    mesh: &TriMesh,
    count: u32,
    seed: u64,
    distribution: &SiteDistribution,
) -> Result<Vec<DVec3>, FractureError> {
    let (lo, hi) = mesh.bounds();
    let diagonal = (hi - lo).length();
    let positive = |x: f64| x.is_finite() && x > 0.0;
    match *distribution {
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
fn sample_sites(
    mesh: &TriMesh,
    count: u32,
    separation: f64,
    mut candidate: impl FnMut() -> DVec3,
) -> Result<Vec<DVec3>, FractureError> {
    let budget = 1000 + ATTEMPTS_PER_SITE * count as u64;
    let mut sites: Vec<DVec3> = Vec::with_capacity(count as usize);
    let mut attempts = 0u64;
    while sites.len() < count as usize {
        if attempts >= budget {
            return Err(FractureError::SitePlacement {
                placed: sites.len() as u32,
                requested: count,
                attempts,
            });
        }
        attempts += 1;
        let p = candidate();
        if !p.is_finite() || !mesh.contains_point(p) {
            continue;
        }
        if sites.iter().any(|s| s.distance(p) <= separation) {
            continue;
        }
        sites.push(p);
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
