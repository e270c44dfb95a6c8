//! Voronoi site distributions.

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
        // `random::<f64>()` is uniform in [0, 1) and never panics, unlike an
        // empty `random_range`.
        let (x, y, z): (f64, f64, f64) = (rng.random(), rng.random(), rng.random());
        let p = lo + extent * DVec3::new(x, y, z);
        if !mesh.contains_point(p) {
            continue;
        }
        if sites.iter().any(|s| s.distance(p) <= min_separation) {
            continue;
        }
        sites.push(p);
    }
    Ok(sites)
}
