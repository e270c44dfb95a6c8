//! A convex Voronoi cell held as the dual triangulation of its planes, for
//! fast tests on the Voronoi diagram itself (no mesh, no caps).
//!
//! Every cell vertex is the meeting point of exactly three planes and is
//! stored as the triangle of their indices, oriented counter-clockwise seen
//! from outside the cell; two vertices are joined by a cell edge when their
//! triangles share an edge. Clipping by a plane removes the vertices
//! strictly outside it (the *conflict* triangles, which form a disc on a
//! convex cell) and joins every boundary edge of that disc to the new
//! plane, as in Lévy's `ConvexCell` (geogram; B. Lévy, "Robustness and
//! efficiency of geometric programs: the Predicate Construction Kit", CAD
//! 2016). A vertex where four or more planes meet is held as several
//! triangles at or near one point (a plane through an existing vertex
//! removes nothing), so the tests on it are made with distances to the
//! sites, not with the cell's combinatorics.

use crate::voronoi::NearestFirst;
use glam::DVec3;

/// An oriented plane `normal · x = offset` (unit normal pointing out of the
/// cell) with the index of the site that made it (`None` for the box).
#[derive(Copy, Clone, Debug)]
pub(crate) struct CellPlane {
    pub normal: DVec3,
    pub offset: f64,
    pub site: Option<u32>,
}

/// A convex cell: planes, and its vertices as triangles of plane indices
/// with their positions.
#[derive(Clone, Debug, Default)]
pub(crate) struct VoronoiCell {
    planes: Vec<CellPlane>,
    triangles: Vec<[u32; 3]>,
    points: Vec<DVec3>,
    /// Scratch: conflict flag per triangle, directed edges of the conflict
    /// triangles, boundary edges.
    conflict: Vec<bool>,
    edges: Vec<(u32, u32)>,
    boundary: Vec<(u32, u32)>,
}

/// Plane indices of the box: −x, +x, −y, +y, −z, +z.
const BOX_CORNERS: [[u32; 3]; 8] = [
    // (x plane, y plane, z plane) for each corner, ordered so the triangle
    // is counter-clockwise seen from outside (the corner's octant).
    [0, 4, 2],
    [1, 2, 4],
    [0, 3, 4],
    [1, 4, 3],
    [0, 2, 5],
    [1, 5, 2],
    [0, 5, 3],
    [1, 3, 5],
];

impl VoronoiCell {
    /// The box from `lo` to `hi` (m).
    pub fn boxed(lo: DVec3, hi: DVec3) -> Self {
        let mut cell = Self::default();
        cell.reset(lo, hi);
        cell
    }

    /// Makes this cell the box from `lo` to `hi`, keeping its buffers.
    pub fn reset(&mut self, lo: DVec3, hi: DVec3) {
        self.planes.clear();
        for axis in 0..3 {
            let mut n = DVec3::ZERO;
            n[axis] = -1.0;
            self.planes.push(CellPlane {
                normal: n,
                offset: -lo[axis],
                site: None,
            });
            n[axis] = 1.0;
            self.planes.push(CellPlane {
                normal: n,
                offset: hi[axis],
                site: None,
            });
        }
        self.triangles.clear();
        self.triangles.extend_from_slice(&BOX_CORNERS);
        self.points.clear();
        for t in BOX_CORNERS {
            let p = self.meet(t);
            self.points.push(p);
        }
    }

    /// The point where the three planes of `t` meet.
    fn meet(&self, t: [u32; 3]) -> DVec3 {
        let [a, b, c] = t.map(|i| self.planes[i as usize]);
        let (bc, ca, ab) = (
            b.normal.cross(c.normal),
            c.normal.cross(a.normal),
            a.normal.cross(b.normal),
        );
        let det = a.normal.dot(bc);
        (bc * a.offset + ca * b.offset + ab * c.offset) / det
    }

    /// Clips by `plane`: keeps the side `normal · x ≤ offset` (a vertex on
    /// the plane stays). The sign is strict, so every new vertex lies on
    /// an edge between a kept and a removed vertex: a tolerance here would
    /// let both ends of an edge lie beyond the plane and extrapolate the
    /// new vertex far outside the cell. Returns false when the plane
    /// removes nothing.
    pub fn clip(&mut self, plane: CellPlane) -> bool {
        self.conflict.clear();
        let mut any = false;
        for p in &self.points {
            let out = plane.normal.dot(*p) - plane.offset > 0.0;
            any |= out;
            self.conflict.push(out);
        }
        if !any {
            return false;
        }
        // Directed edges of conflict triangles whose twin is not one: the
        // boundary of the removed disc (the dual surface is closed, so
        // every directed edge has exactly one twin).
        self.edges.clear();
        for (k, t) in self.triangles.iter().enumerate() {
            if self.conflict[k] {
                for e in 0..3 {
                    self.edges.push((t[e], t[(e + 1) % 3]));
                }
            }
        }
        self.edges.sort_unstable();
        self.boundary.clear();
        let edges = &self.edges;
        self.boundary.extend(
            edges
                .iter()
                .filter(|&&(a, b)| edges.binary_search(&(b, a)).is_err()),
        );
        let new = self.planes.len() as u32;
        self.planes.push(plane);
        let mut w = 0;
        for k in 0..self.triangles.len() {
            if !self.conflict[k] {
                self.triangles[w] = self.triangles[k];
                self.points[w] = self.points[k];
                w += 1;
            }
        }
        self.triangles.truncate(w);
        self.points.truncate(w);
        for i in 0..self.boundary.len() {
            let (a, b) = self.boundary[i];
            let t = [a, b, new];
            let p = self.meet(t);
            self.triangles.push(t);
            self.points.push(p);
        }
        true
    }

    /// Clips the cell (already [`reset`](Self::reset) to its box) by the
    /// bisector planes of `sites[i]` and the other sites, nearest first,
    /// until the next site is farther than `2R + slack` (`R` the cell's
    /// radius about the site: beyond `2R` no bisector reaches the cell).
    /// `visit(j)` is called for every site within that reach. Stops early
    /// if the cell becomes empty ([`is_empty`](Self::is_empty)). Returns
    /// `R` when clipping stopped (before the clip that emptied the cell, if
    /// one did), m.
    pub fn clip_by_neighbours(
        &mut self,
        sites: &[DVec3],
        i: usize,
        slack: f64,
        mut visit: impl FnMut(usize),
    ) -> f64 {
        let site = sites[i];
        let mut radius = self.radius_about(site);
        for (distance_squared, j) in NearestFirst::new(sites, i) {
            if distance_squared.sqrt() > 2.0 * radius + slack {
                break;
            }
            visit(j);
            let Some(normal) = (sites[j] - site).try_normalize() else {
                continue;
            };
            let plane = CellPlane {
                normal,
                offset: normal.dot((site + sites[j]) * 0.5),
                site: Some(j as u32),
            };
            if self.clip(plane) {
                if self.is_empty() {
                    break;
                }
                radius = self.radius_about(site);
            }
        }
        radius
    }

    /// Whether every vertex was removed (the cell is empty).
    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }

    /// The vertices: positions and the planes meeting there.
    pub fn vertices(&self) -> impl Iterator<Item = (DVec3, [CellPlane; 3])> + '_ {
        self.triangles
            .iter()
            .zip(&self.points)
            .map(|(t, &p)| (p, t.map(|i| self.planes[i as usize])))
    }

    /// Largest distance from `center` to a vertex, m.
    pub fn radius_about(&self, center: DVec3) -> f64 {
        self.points
            .iter()
            .map(|p| p.distance(center))
            .fold(0.0, f64::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bisector(own: DVec3, other: DVec3, site: u32) -> CellPlane {
        let normal = (other - own).normalize();
        CellPlane {
            normal,
            offset: normal.dot((own + other) * 0.5),
            site: Some(site),
        }
    }

    #[test]
    fn a_box_has_eight_corners_on_its_planes() {
        let cell = VoronoiCell::boxed(DVec3::splat(-1.0), DVec3::new(1.0, 2.0, 3.0));
        let mut corners: Vec<DVec3> = cell.vertices().map(|(p, _)| p).collect();
        corners.sort_by(|a, b| a.to_array().partial_cmp(&b.to_array()).unwrap());
        assert_eq!(corners.len(), 8);
        assert_eq!(corners[0], DVec3::splat(-1.0));
        assert_eq!(corners[7], DVec3::new(1.0, 2.0, 3.0));
        for (p, planes) in cell.vertices() {
            for q in planes {
                assert!((q.normal.dot(p) - q.offset).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn cutting_a_corner_off_a_cube_leaves_ten_vertices() {
        let mut cell = VoronoiCell::boxed(DVec3::ZERO, DVec3::ONE);
        assert_closed(&cell);
        // The plane x + y + z = 2.5 cuts the corner (1, 1, 1) off.
        let n = DVec3::ONE.normalize();
        assert!(cell.clip(CellPlane {
            normal: n,
            offset: 2.5 / 3f64.sqrt(),
            site: Some(7)
        },));
        assert_eq!(cell.vertices().count(), 10);
        let on_cut = cell
            .vertices()
            .filter(|(_, planes)| planes.iter().any(|p| p.site == Some(7)))
            .count();
        assert_eq!(on_cut, 3);
        assert_closed(&cell);
        for (p, _) in cell.vertices() {
            assert!(p.x + p.y + p.z <= 2.5 + 1e-12);
        }
        // A plane outside the cell changes nothing.
        let far = CellPlane {
            normal: DVec3::X,
            offset: 5.0,
            site: Some(8),
        };
        assert!(!cell.clip(far));
    }

    #[test]
    fn the_cell_of_a_cubic_lattice_site_is_a_unit_cube_with_degenerate_corners() {
        // Site at the origin, its 6 face neighbours at distance 1 and the
        // 20 other lattice neighbours: every corner of the cell (±½)³ is a
        // vertex where eight sites meet, held as several triangles.
        let mut cell = VoronoiCell::boxed(DVec3::splat(-3.0), DVec3::splat(3.0));
        let mut others = Vec::new();
        for x in -1..=1 {
            for y in -1..=1 {
                for z in -1..=1 {
                    if (x, y, z) != (0, 0, 0) {
                        others.push(DVec3::new(x as f64, y as f64, z as f64));
                    }
                }
            }
        }
        // Nearest first, as the tests clip: the six face neighbours each
        // cut the cell; the others only meet the cube's edges and corners
        // (rounding may let them cut a sliver, never more).
        others.sort_by(|a, b| a.length_squared().total_cmp(&b.length_squared()));
        for (k, &other) in others.iter().enumerate() {
            let cut = cell.clip(bisector(DVec3::ZERO, other, k as u32));
            if k < 6 {
                assert!(cut, "{other:?}");
            }
        }
        for (p, _) in cell.vertices() {
            assert!(
                (p.abs() - DVec3::splat(0.5)).abs().max_element() < 1e-12,
                "{p:?}"
            );
        }
        assert!((cell.radius_about(DVec3::ZERO) - 0.75f64.sqrt()).abs() < 1e-12);
        assert_closed(&cell);
    }

    /// Every directed edge of the dual triangulation has exactly one twin,
    /// and every vertex lies on or inside every plane.
    fn assert_closed(cell: &VoronoiCell) {
        let mut edges: Vec<(u32, u32)> = cell
            .triangles
            .iter()
            .flat_map(|t| (0..3).map(move |e| (t[e], t[(e + 1) % 3])))
            .collect();
        edges.sort_unstable();
        for &(a, b) in &edges {
            assert_eq!(
                edges.iter().filter(|&&e| e == (b, a)).count(),
                1,
                "edge {a}-{b}"
            );
        }
        for (p, _) in cell.vertices() {
            for q in &cell.planes {
                assert!(q.normal.dot(p) - q.offset <= 1e-12, "{p:?}");
            }
        }
    }

    #[test]
    fn planes_just_past_a_corner_do_not_extrapolate() {
        // A plane that passes within 1e-13 of the corner (1, 1, 1) and
        // another through it exactly: no vertex leaves the box, the cell
        // stays closed, and its radius does not grow.
        let mut cell = VoronoiCell::boxed(DVec3::ZERO, DVec3::ONE);
        let n = DVec3::new(1.0, 1.0, 1.0).normalize();
        cell.clip(CellPlane {
            normal: n,
            offset: n.dot(DVec3::ONE) - 1e-13,
            site: Some(1),
        });
        cell.clip(CellPlane {
            normal: DVec3::new(1.0, 0.0, 0.0),
            offset: 1.0,
            site: Some(2),
        });
        assert_closed(&cell);
        assert!(cell.radius_about(DVec3::ZERO) <= 3f64.sqrt() + 1e-12);
    }
}
