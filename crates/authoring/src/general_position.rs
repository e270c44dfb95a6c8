//! Sampled Voronoi sites in general position (issue 17, item 2).
//!
//! Where five or more sites lie nearly on one sphere, the Voronoi diagram
//! has a vertex that is nearly shared by two cells' corners: a Voronoi edge
//! shorter than [`Scale::min_edge`], or (below the clipper's snapping
//! distance) cells whose carved topology there differs by rounding, one
//! holding a vertex its neighbours lack. No collapse of the carved surfaces
//! can remove such an edge without tilting a cut face or turning a triangle
//! over (see `edge_collapse/`). For sites the library samples itself, the
//! degeneracy is removed where it starts: the offending site is moved by a
//! tiny, seeded random step, as a symbolic perturbation would, and the test
//! is repeated until no near-degenerate vertex is left.
//!
//! **Test.** Each site's convex Voronoi cell ([`VoronoiCell`]) is built by
//! clipping the mesh's bounding box, grown by [`BOX_MARGIN`] of the
//! diagonal, with the bisectors of the other sites nearest first, until the
//! next site is farther than twice the cell's radius (as the carving does).
//! At every cell vertex `v` off the box, with `r` its distance to the
//! cell's site, the other sites within `r + δ` of `v` are counted,
//! δ = [`DEGENERACY_FACTOR`] × the shortest edge. A Voronoi vertex has
//! three such sites; a fourth means a fifth site nearly on the sphere.
//! Distances are 1-Lipschitz, so a Voronoi edge of length ℓ puts the site
//! that ends it within `r + 2ℓ` of the other end: every edge shorter than
//! δ / 2 (the shortest edge) is found, and some longer ones, which costs
//! only an unneeded step.
//!
//! A vertex is flagged too where two of its edges cross the mesh's
//! surface within [`CROSSING_FACTOR`] shortest edges of each other (each
//! crossing within [`CROSSING_REACH`] of the vertex, found by a ray cast
//! along the edge): carved, the two crossings would be the ends of a short
//! edge on the surface, which no collapse can remove without tilting the
//! cut faces around it. Its lowest site is moved.
//!
//! **Step.** Of the cell's own site and the four others nearest the sphere
//! ([`MAX_MEMBERS`]), the one whose step changes the degeneracy fastest is
//! moved ([`most_sensitive`]; the cells that see the vertex usually pick
//! the same one, and either choice breaks the degeneracy), by [`STEP_FACTOR`] × the shortest edge
//! (3.2e-4 of the diagonal) in a direction drawn from `Pcg64Mcg` seeded by
//! the fracture seed, the site index and the round. Rounds run until no
//! vertex is flagged, re-testing only the cells a step can change (those
//! whose sites are within twice their radius, plus two steps, of a moved
//! site's old or new place). A site moves by at most [`MAX_ROUNDS`] steps,
//! 16 × 3.2e-4 ≈ 5e-3 of the diagonal. Measured (seed 1): Spot and Bob
//! take 1 to 2 rounds (3 to 8 steps, 15 ms) at 500 sites and 4 rounds (57
//! to 69 steps, 170 to 190 ms) at 2,000; a 4 × 4 × 4 lattice (eight sites
//! on every sphere) 6 rounds and 80 steps. Flags still raised after the
//! last round are reported
//! ([`FractureReport::degenerate_left`](crate::FractureReport::degenerate_left)).
//! Cells are built in parallel and flags gathered in site order, so the
//! result does not depend on the number of threads.
//!
//! Explicit sites ([`SiteDistribution::Explicit`](crate::SiteDistribution))
//! are the caller's: a vertex is flagged for them only where some site is
//! off the sphere (or two crossings apart) by more than the clipper's
//! snapping distance. An exactly degenerate layout (a lattice, a ring)
//! carves cleanly, since the clipper snaps it, and is kept as given; a
//! nearly degenerate one (a lattice jittered by 1e-7 to 1e-4 of the
//! diagonal) does not, and is moved.

use crate::mesh::TriMesh;
use crate::voronoi::Scale;
use crate::voronoi_cell::{CellPlane, VoronoiCell};
use glam::DVec3;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;

/// Growth of the clipping box around the mesh bounds, as a fraction of the
/// diagonal: Voronoi vertices just outside the surface still count.
pub(crate) const BOX_MARGIN: f64 = 1e-3;

/// δ of the test, in shortest edges ([`Scale::min_edge`]): edges shorter
/// than half of it are found.
pub(crate) const DEGENERACY_FACTOR: f64 = 2.0;

/// Length of one step, in shortest edges.
pub(crate) const STEP_FACTOR: f64 = 32.0;

/// Mixed into the fracture seed for the steps' random directions, so they
/// are not the streams that placed the sites (`sites.rs`).
const STEP_STREAM: u64 = 0x6a09_e667_f3bc_c909;

/// Sites of one near-degenerate vertex that the choice of the site to move
/// looks at: the cell's own and the four nearest the sphere. A tight
/// cluster of sites (all within δ of each other) would otherwise put every
/// site in every set, at a cost of m · C(m − 1, 4).
pub(crate) const MAX_MEMBERS: usize = 5;

/// Two edges of a Voronoi vertex that cross the mesh's surface closer
/// than this (in shortest edges) make the vertex's lowest site step too:
/// the carving would leave those two crossings as a short edge on the
/// surface whose collapse tilts the cut faces around it (Spot at 500
/// sites, seed 8: 1.5e-5 m apart, 1.1e-4 m from the vertex, every
/// collapse tilting a cap triangle past 0.5°).
pub(crate) const CROSSING_FACTOR: f64 = 2.0;

/// How far from a Voronoi vertex (in shortest edges) its edges' surface
/// crossings are looked for.
pub(crate) const CROSSING_REACH: f64 = 100.0;

/// Rounds of test and step at most.
pub(crate) const MAX_ROUNDS: u32 = 16;

/// What [`put_in_general_position`] did.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct GeneralPosition {
    /// Steps taken (a site may take several).
    pub steps: u32,
    /// Rounds that moved a site.
    pub rounds: u32,
    /// Flags still raised after the last round (one per cell that sees a
    /// near-degenerate vertex, so a vertex counts up to four times).
    pub left: u32,
}

/// One cell's test: its radius about its site (m) and the sites to move.
struct CellTest {
    radius: f64,
    movers: Vec<u32>,
}

/// Moves `sites` until no five lie nearly on one sphere within the mesh's
/// box (see the module docs). `seed` is the fracture seed. `exact`, for a
/// caller's explicit sites: degeneracies within that distance (m; the
/// clipper's snapping distance) are left as they are; `None` for sampled
/// sites, which move out of any.
pub(crate) fn put_in_general_position(
    mesh: &TriMesh,
    sites: &mut [DVec3],
    seed: u64,
    scale: &Scale,
    exact: Option<f64>,
) -> GeneralPosition {
    let mut out = GeneralPosition::default();
    if sites.len() < 5 {
        return out;
    }
    let (lo, hi) = mesh.bounds();
    let margin = DVec3::splat(BOX_MARGIN * scale.diagonal);
    let (lo, hi) = (lo - margin, hi + margin);
    let delta = DEGENERACY_FACTOR * scale.min_edge();
    let step = STEP_FACTOR * scale.min_edge();
    let surface = Surface::of(mesh, scale.min_edge());
    let mut radius = vec![0.0; sites.len()];
    let mut dirty: Vec<usize> = (0..sites.len()).collect();
    for round in 0..=MAX_ROUNDS {
        let tests: Vec<CellTest> = dirty
            .par_iter()
            .map_init(
                || VoronoiCell::boxed(lo, hi),
                |cell, &i| test_cell(cell, (lo, hi), sites, i, delta, exact, surface.as_ref()),
            )
            .collect();
        let mut movers = Vec::new();
        let mut found = 0;
        for (&i, test) in dirty.iter().zip(tests) {
            radius[i] = test.radius;
            found += test.movers.len() as u32;
            movers.extend(test.movers);
        }
        movers.sort_unstable();
        movers.dedup();
        if movers.is_empty() {
            return out;
        }
        if round == MAX_ROUNDS {
            out.left = found;
            return out;
        }
        out.rounds += 1;
        let mut moved = Vec::with_capacity(movers.len());
        for &m in &movers {
            let from = sites[m as usize];
            step_site(sites, m, seed, round, step);
            moved.push((from, sites[m as usize]));
            out.steps += 1;
        }
        // A cell depends on the sites within twice its radius.
        dirty = (0..sites.len())
            .filter(|&i| {
                let reach = 2.0 * radius[i] + 2.0 * step;
                let reach2 = reach * reach;
                moved.iter().any(|&(from, to)| {
                    sites[i].distance_squared(from) <= reach2
                        || sites[i].distance_squared(to) <= reach2
                })
            })
            .collect();
    }
    out
}

/// Moves `sites[m]` by `step` (m) in a direction drawn from `Pcg64Mcg`
/// seeded by the fracture `seed`, the site and the `round` (distinct
/// rounds give independent directions).
pub(crate) fn step_site(sites: &mut [DVec3], m: u32, seed: u64, round: u32, step: f64) {
    let key = (u64::from(m) << 8 | u64::from(round)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut rng = Pcg64Mcg::seed_from_u64(seed ^ STEP_STREAM ^ key);
    sites[m as usize] += random_unit(&mut rng) * step;
}

/// Builds the convex cell of `sites[i]` in the box `lo`..`hi` and returns
/// its radius and, for each near-degenerate vertex off the box, the site
/// to move ([`most_sensitive`]).
fn test_cell(
    cell: &mut VoronoiCell,
    (lo, hi): (DVec3, DVec3),
    sites: &[DVec3],
    i: usize,
    delta: f64,
    exact: Option<f64>,
    surface: Option<&Surface>,
) -> CellTest {
    // Degeneracies within `exact` are left to the clipper's snapping.
    let exact = exact.unwrap_or(-1.0);
    let site = sites[i];
    cell.reset(lo, hi);
    // A member of a vertex's set can be up to 2R + δ away.
    let mut visited = Vec::new();
    let radius = cell.clip_by_neighbours(sites, i, delta, |j| visited.push(j));
    let mut movers = Vec::new();
    let mut members: Vec<(f64, usize)> = Vec::new();
    for (x, planes) in cell.vertices() {
        if planes.iter().any(|p| p.site.is_none()) {
            continue;
        }
        // Two of its edges crossing the surface nearly at one point: the
        // lowest of its four sites moves (every cell around it picks the
        // same one).
        if surface.is_some_and(|s| s.crossings_meet(x, &planes, exact)) {
            let lowest = planes
                .iter()
                .filter_map(|p| p.site)
                .fold(i, |m, j| m.min(j as usize));
            movers.push(lowest as u32);
            continue;
        }
        let r = x.distance(site);
        members.clear();
        members.extend(visited.iter().filter_map(|&j| {
            let off = x.distance(sites[j]) - r;
            (off <= delta).then_some((off.abs(), j))
        }));
        if members.len() >= 4 && members.iter().any(|m| m.0 > exact) {
            // The four nearest the sphere (ties by index), and the cell's
            // own site.
            members.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            members.truncate(MAX_MEMBERS - 1);
            let mut set = [i; MAX_MEMBERS];
            for (slot, m) in set.iter_mut().zip(&members) {
                *slot = m.1;
            }
            set.sort_unstable();
            movers.push(most_sensitive(sites, set) as u32);
        }
    }
    CellTest { radius, movers }
}

/// The source mesh's surface, for the test of Voronoi edges crossing it
/// ([`Surface::crossings_meet`]).
struct Surface {
    mesh: parry3d::shape::TriMesh,
    /// Crossings closer than this are flagged, m.
    near: f64,
    /// How far along an edge a crossing is looked for, m.
    reach: f64,
}

impl Surface {
    /// `mesh` as a parry triangle mesh (f32: 6e-8 m at 1 m, far below
    /// the distances it is used for), or `None` when parry cannot build
    /// one (then no vertex is tested against the surface).
    fn of(mesh: &TriMesh, min_edge: f64) -> Option<Self> {
        let vertices = mesh.positions.iter().map(|p| p.as_vec3()).collect();
        let indices = mesh.triangles.clone();
        smithereens_panic_guard::quietly(|| parry3d::shape::TriMesh::new(vertices, indices))
            .ok()?
            .ok()
            .map(|mesh| Self {
                mesh,
                near: CROSSING_FACTOR * min_edge,
                reach: CROSSING_REACH * min_edge,
            })
    }

    /// Whether two of the three cell edges leaving vertex `x` (where the
    /// cell's `planes` meet) cross the surface within [`Surface::near`] of
    /// each other (and, when `exact` is not negative, farther apart than
    /// `exact`), each within [`Surface::reach`] of `x`. An edge runs along
    /// two of the planes, away from the third.
    fn crossings_meet(&self, x: DVec3, planes: &[CellPlane; 3], exact: f64) -> bool {
        use parry3d::query::{PointQuery, Ray, RayCast};
        let origin = x.as_vec3();
        if self
            .mesh
            .project_local_point_with_max_dist(origin, false, self.reach as f32)
            .is_none()
        {
            return false;
        }
        let mut hits: Vec<DVec3> = Vec::with_capacity(3);
        for (a, b, c) in [(0, 1, 2), (0, 2, 1), (1, 2, 0)] {
            let d = planes[a].normal.cross(planes[b].normal);
            let d = if d.dot(planes[c].normal) > 0.0 { -d } else { d };
            let Some(d) = d.try_normalize() else {
                continue;
            };
            let ray = Ray::new(origin, d.as_vec3());
            if let Some(t) = self.mesh.cast_local_ray(&ray, self.reach as f32, false) {
                hits.push(x + d * f64::from(t));
            }
        }
        hits.iter().enumerate().any(|(k, h)| {
            hits[k + 1..].iter().any(|o| {
                let d2 = o.distance_squared(*h);
                d2 < self.near * self.near && (exact < 0.0 || d2 > exact * exact)
            })
        })
    }
}

/// The member of a near-cospherical set of five sites (indices,
/// ascending) whose step changes the set's degeneracy fastest. The
/// in-sphere determinant's gradient with respect to one site is
/// proportional to the volume of the tetrahedron of the other four, while
/// the distance test at a Voronoi vertex is that determinant over the
/// vertex's own tetrahedron: so the site whose complementary tetrahedron
/// is largest is moved. Ties go to the lowest index.
fn most_sensitive(sites: &[DVec3], members: [usize; MAX_MEMBERS]) -> usize {
    let mut best = (f64::NEG_INFINITY, members[0]);
    for (skip, &k) in members.iter().enumerate() {
        let mut others = members
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != skip)
            .map(|(_, &j)| sites[j]);
        let mut next = || others.next().unwrap_or(DVec3::ZERO);
        let (a, b, c, d) = (next(), next(), next(), next());
        let volume = (b - a).dot((c - a).cross(d - a)).abs();
        if volume > best.0 {
            best = (volume, k);
        }
    }
    best.1
}

/// A direction uniform on the unit sphere (rejection from the cube).
fn random_unit(rng: &mut Pcg64Mcg) -> DVec3 {
    loop {
        let (x, y, z): (f64, f64, f64) = (rng.random(), rng.random(), rng.random());
        let v = DVec3::new(x, y, z) * 2.0 - DVec3::ONE;
        let l = v.length_squared();
        if l > 1e-6 && l <= 1.0 {
            return v / l.sqrt();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::box_mesh;

    /// The unit cube and its scales with the collapse on.
    fn unit_cube() -> (TriMesh, Scale) {
        let mesh = box_mesh(DVec3::ZERO, DVec3::ONE).unwrap();
        let scale = Scale {
            collapse: true,
            ..Scale::of(&mesh)
        };
        (mesh, scale)
    }

    /// Sites that the test flags, over every cell.
    fn flagged(mesh: &TriMesh, sites: &[DVec3], scale: &Scale) -> usize {
        let (lo, hi) = mesh.bounds();
        let margin = DVec3::splat(BOX_MARGIN * scale.diagonal);
        let mut cell = VoronoiCell::boxed(lo, hi);
        (0..sites.len())
            .map(|i| {
                let delta = DEGENERACY_FACTOR * scale.min_edge();
                test_cell(
                    &mut cell,
                    (lo - margin, hi + margin),
                    sites,
                    i,
                    delta,
                    None,
                    None,
                )
                .movers
                .len()
            })
            .sum()
    }

    /// A 4 × 4 × 4 lattice: every inner Voronoi vertex is shared by eight
    /// sites, the worst case.
    fn lattice() -> Vec<DVec3> {
        let mut sites = Vec::new();
        for x in 0..4 {
            for y in 0..4 {
                for z in 0..4 {
                    sites.push((DVec3::new(x as f64, y as f64, z as f64) + 0.5) * 0.25);
                }
            }
        }
        sites
    }

    #[test]
    fn a_lattice_is_put_in_general_position_by_small_steps() {
        let (mesh, scale) = unit_cube();
        let before = lattice();
        assert!(flagged(&mesh, &before, &scale) > 0);
        let mut sites = before.clone();
        let done = put_in_general_position(&mesh, &mut sites, 7, &scale, None);
        assert_eq!(done.left, 0, "{done:?}");
        // Measured: 6 rounds, 80 steps.
        assert!(done.rounds <= 8, "{done:?}");
        assert!(done.steps > 0 && done.rounds <= MAX_ROUNDS, "{done:?}");
        assert_eq!(flagged(&mesh, &sites, &scale), 0);
        let step = STEP_FACTOR * scale.min_edge();
        for (a, b) in before.iter().zip(&sites) {
            assert!(a.distance(*b) <= f64::from(done.rounds) * step * (1.0 + 1e-12));
        }
        // The same seed gives the same sites, bit for bit.
        let mut again = before.clone();
        assert_eq!(
            put_in_general_position(&mesh, &mut again, 7, &scale, None),
            done
        );
        assert_eq!(again, sites);
    }

    #[test]
    fn a_cluster_tighter_than_the_tolerance_ends_with_bounded_work() {
        // 60 sites within 3.5e-5 m on a unit cube (the tolerance δ is
        // about 3.5e-5 m): every vertex sees every site. The set a choice
        // looks at is capped at five, and the rounds at 16, so this ends;
        // what could not be resolved is reported, and no site moved more
        // than 16 steps.
        let (mesh, scale) = unit_cube();
        let mut rng = Pcg64Mcg::seed_from_u64(11);
        let before: Vec<DVec3> = (0..60)
            .map(|_| {
                let (x, y, z): (f64, f64, f64) = (rng.random(), rng.random(), rng.random());
                DVec3::splat(0.5) + (DVec3::new(x, y, z) - 0.5) * 3.5e-5
            })
            .collect();
        let mut sites = before.clone();
        let done = put_in_general_position(&mesh, &mut sites, 7, &scale, None);
        assert!(done.rounds <= MAX_ROUNDS, "{done:?}");
        assert!(done.steps > 0, "{done:?}");
        let step = STEP_FACTOR * scale.min_edge();
        for (a, b) in before.iter().zip(&sites) {
            assert!(a.distance(*b) <= f64::from(MAX_ROUNDS) * step * (1.0 + 1e-12));
        }
        assert_eq!(
            done.left as usize,
            flagged(&mesh, &sites, &scale),
            "{done:?}"
        );
    }

    #[test]
    fn sites_in_general_position_are_not_moved() {
        let (mesh, scale) = unit_cube();
        // Random sites (seeded): no five of them nearly on one sphere.
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let before: Vec<DVec3> = (0..64)
            .map(|_| {
                let (x, y, z): (f64, f64, f64) = (rng.random(), rng.random(), rng.random());
                DVec3::new(x, y, z)
            })
            .collect();
        assert_eq!(flagged(&mesh, &before, &scale), 0);
        let mut sites = before.clone();
        let done = put_in_general_position(&mesh, &mut sites, 7, &scale, None);
        assert_eq!(done, GeneralPosition::default());
        assert_eq!(sites, before);
    }

    /// The planes of a cell vertex whose edges leave it along `d`.
    fn vertex_planes(x: DVec3, d: [DVec3; 3]) -> [CellPlane; 3] {
        [(1, 2, 0), (0, 2, 1), (0, 1, 2)].map(|(a, b, c)| {
            let n = d[a].cross(d[b]).normalize();
            let normal = if n.dot(d[c]) > 0.0 { -n } else { n };
            CellPlane {
                normal,
                offset: normal.dot(x),
                site: Some(c as u32),
            }
        })
    }

    #[test]
    fn edges_crossing_the_surface_close_together_are_found() {
        let (mesh, _) = unit_cube();
        let surface = Surface::of(&mesh, 1e-5).unwrap();
        let d = [
            DVec3::new(0.5, 0.0, 1.0).normalize(),
            DVec3::new(-0.5, 0.0, 1.0).normalize(),
            DVec3::new(0.0, 1.0, -1.0).normalize(),
        ];
        // 1e-5 m under the top face: the two upward edges cross it 1e-5 m
        // apart, under the 2e-5 m of the test.
        let x = DVec3::new(0.5, 0.5, 1.0 - 1e-5);
        assert!(surface.crossings_meet(x, &vertex_planes(x, d), -1.0));
        // 1e-4 m under it: 1e-4 m apart.
        let x = DVec3::new(0.5, 0.5, 1.0 - 1e-4);
        assert!(!surface.crossings_meet(x, &vertex_planes(x, d), -1.0));
        // Deep inside: nothing within reach.
        let x = DVec3::splat(0.5);
        assert!(!surface.crossings_meet(x, &vertex_planes(x, d), -1.0));
    }

    #[test]
    fn the_most_sensitive_site_is_the_one_off_the_flat_four() {
        // Four sites nearly on one plane and a fifth well off it: a step
        // of the fifth changes the in-sphere determinant by the volume of
        // the flat tetrahedron of the four, nearly nothing; a step of one
        // of the four, by a tetrahedron that includes the fifth.
        let sites = [
            DVec3::new(1.0, 0.0, 0.0),
            DVec3::new(0.0, 1.0, 1e-4),
            DVec3::new(-1.0, 0.0, 0.0),
            DVec3::new(0.0, -1.0, 0.0),
            DVec3::new(0.0, 0.0, 1.0),
        ];
        let chosen = most_sensitive(&sites, [0, 1, 2, 3, 4]);
        assert_ne!(chosen, 4);
    }
}
