//! A closed, tagged triangle surface being carved into a chunk, and the
//! cutting planes it is carved with.

use crate::topology::edge_uses;
use glam::DVec3;

/// Face tag of a triangle that comes from the source surface.
pub(crate) const EXTERIOR: u32 = u32::MAX;

/// A closed surface (f64, metres) with one tag per triangle: [`EXTERIOR`]
/// or the index of the Voronoi site whose bisector plane created the cap
/// the triangle belongs to.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Piece {
    pub positions: Vec<DVec3>,
    pub triangles: Vec<[u32; 3]>,
    pub tags: Vec<u32>,
}

/// An oriented plane through `point` with unit `normal`. The signed distance
/// `normal · (x − point)` is positive on the side that a cut removes.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct Plane {
    pub point: DVec3,
    pub normal: DVec3,
}

impl Plane {
    /// The bisector plane between sites `own` and `other`, oriented so that
    /// the half-space closer to `own` has negative distance. `None` when the
    /// sites coincide.
    pub fn bisector(own: DVec3, other: DVec3) -> Option<Self> {
        let normal = (other - own).try_normalize()?;
        Some(Self {
            point: (own + other) * 0.5,
            normal,
        })
    }

    /// Signed distance of `x`, m.
    pub fn distance(&self, x: DVec3) -> f64 {
        self.normal.dot(x - self.point)
    }

    /// An orthonormal in-plane basis `(u, v)` with `u × v = normal`, so a
    /// polygon that is counter-clockwise in `(u, v)` faces along `normal`.
    pub fn basis(&self) -> (DVec3, DVec3) {
        let u = self.normal.any_orthonormal_vector();
        (u, self.normal.cross(u))
    }
}

impl Piece {
    /// The whole surface of `mesh`, every triangle tagged [`EXTERIOR`].
    pub fn from_mesh(mesh: &crate::mesh::TriMesh) -> Self {
        Self {
            positions: mesh.positions.clone(),
            triangles: mesh.triangles.clone(),
            tags: vec![EXTERIOR; mesh.triangles.len()],
        }
    }

    /// The distinct cap tags (every tag but [`EXTERIOR`]), ascending.
    pub fn cap_tags(&self) -> Vec<u32> {
        let mut tags: Vec<u32> = self
            .tags
            .iter()
            .copied()
            .filter(|&t| t != EXTERIOR)
            .collect();
        tags.sort_unstable();
        tags.dedup();
        tags
    }

    /// Drops vertices no triangle uses, renumbering the rest in order.
    pub fn compact(&mut self) {
        let mut remap = vec![u32::MAX; self.positions.len()];
        let mut positions = Vec::new();
        for t in &mut self.triangles {
            for i in t.iter_mut() {
                let slot = &mut remap[*i as usize];
                if *slot == u32::MAX {
                    *slot = positions.len() as u32;
                    positions.push(self.positions[*i as usize]);
                }
                *i = *slot;
            }
        }
        self.positions = positions;
    }

    /// Splits into edge-connected components (triangles sharing an edge are
    /// connected), each compacted. Components come in the order of their
    /// lowest triangle index; triangles keep their relative order.
    pub fn components(&self) -> Vec<Piece> {
        let n = self.triangles.len();
        let mut parent: Vec<u32> = (0..n as u32).collect();
        fn find(parent: &mut [u32], mut x: u32) -> u32 {
            while parent[x as usize] != x {
                let next = parent[parent[x as usize] as usize];
                parent[x as usize] = next;
                x = next;
            }
            x
        }
        // Triangles of each undirected edge, grouped by sorting.
        let mut keyed: Vec<(u32, u32, u32)> = Vec::with_capacity(n * 3);
        for (ti, t) in self.triangles.iter().enumerate() {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                keyed.push((a.min(b), a.max(b), ti as u32));
            }
        }
        keyed.sort_unstable();
        for w in keyed.windows(2) {
            if w[0].0 == w[1].0 && w[0].1 == w[1].1 {
                let (ra, rb) = (find(&mut parent, w[0].2), find(&mut parent, w[1].2));
                // Union towards the smaller index so roots are lowest triangles.
                if ra < rb {
                    parent[rb as usize] = ra;
                } else if rb < ra {
                    parent[ra as usize] = rb;
                }
            }
        }
        let mut slot_of_root = vec![u32::MAX; n];
        let mut out: Vec<Piece> = Vec::new();
        for ti in 0..n {
            let root = find(&mut parent, ti as u32) as usize;
            if slot_of_root[root] == u32::MAX {
                slot_of_root[root] = out.len() as u32;
                out.push(Piece {
                    positions: self.positions.clone(),
                    ..Default::default()
                });
            }
            let piece = &mut out[slot_of_root[root] as usize];
            piece.triangles.push(self.triangles[ti]);
            piece.tags.push(self.tags[ti]);
        }
        if out.len() == 1 {
            // Common case: no copy of the vertex array beyond the one above.
            out[0].compact();
            return out;
        }
        for p in &mut out {
            p.compact();
        }
        out
    }

    /// Number of undirected edges that are not used exactly twice with
    /// opposite orientation (0 for a closed, consistently oriented surface).
    pub fn defect_edges(&self) -> usize {
        edge_uses(&self.triangles)
            .iter()
            .filter(|e| !e.is_manifold())
            .count()
    }

    /// Largest distance from `center` to a vertex, m.
    pub fn radius_about(&self, center: DVec3) -> f64 {
        self.positions
            .iter()
            .map(|p| p.distance(center))
            .fold(0.0, f64::max)
    }

    /// Total surface area, m².
    pub fn area(&self) -> f64 {
        self.triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| self.positions[i as usize]);
                0.5 * (b - a).cross(c - a).length()
            })
            .sum()
    }

    /// Total area (m²) and area-weighted centroid of the triangles tagged `tag`.
    pub fn tagged_area(&self, tag: u32) -> (f64, DVec3) {
        let mut area = 0.0;
        let mut moment = DVec3::ZERO;
        for (t, _) in self
            .triangles
            .iter()
            .zip(&self.tags)
            .filter(|(_, g)| **g == tag)
        {
            let [a, b, c] = t.map(|i| self.positions[i as usize]);
            let at = 0.5 * (b - a).cross(c - a).length();
            area += at;
            moment += (a + b + c) * (at / 3.0);
        }
        (
            area,
            if area > 0.0 {
                moment / area
            } else {
                DVec3::ZERO
            },
        )
    }
}
