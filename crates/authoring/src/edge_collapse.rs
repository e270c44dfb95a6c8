//! Collapsing short edges of a carved piece (issue 17, item 2).
//!
//! A plane that passes close to a vertex, or two cuts that cross close to
//! the surface, leave edges far shorter than anything a renderer or an
//! engine's importer keeps apart: welding the render mesh at a realistic
//! tolerance then collapses triangles and pinches edges. Each short edge is
//! collapsed here instead, with the checks that keep the piece a closed,
//! consistently oriented 2-manifold:
//!
//! * **Faces stay in their planes.** Every vertex carries the set of cap
//!   tags around it (the cut planes it lies on). A vertex may only move to
//!   a position that lies on all of its planes: onto the other end when
//!   that end's set contains its own (an exterior vertex onto a cut, a cut
//!   vertex onto the crossing of two cuts), or, for equal sets, both ends
//!   to the midpoint (on every plane both lie on). Two ends on different
//!   planes (neither set containing the other) are left alone. So every cap
//!   stays flat and in its plane, and a cap loses or gains only the thin
//!   triangle along its rim that the collapsed edge bounded.
//! * **Both sides of a cut agree.** The decision depends only on positions
//!   and on which planes a vertex lies on, which are the same in the two
//!   pieces that share a cut face; so both collapse the same rim edges the
//!   same way and their caps keep covering the same region (bond area = cap
//!   area on both sides).
//! * **Topology.** The link condition (the two ends share exactly the two
//!   opposite vertices of the edge's triangles), no duplicate triangle
//!   after the collapse, and no triangle around the moved vertices turned
//!   over or flattened.
//!
//! Edges are visited shortest first (ties by vertex index), in passes until
//! none can be collapsed, so the result is deterministic.

use crate::piece::{EXTERIOR, Piece};
use glam::DVec3;

/// What [`collapse_short_edges`] did.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct CollapseStats {
    /// Edges collapsed.
    pub collapsed: u32,
    /// Short edges left because no collapse passed the checks.
    pub kept: u32,
}

/// Collapses the edges of the closed surface `piece` shorter than
/// `min_length` (m) as described in the module docs, then drops the
/// removed triangles and unused vertices (remaining vertices keep their
/// order). Triangles keep their tags.
pub(crate) fn collapse_short_edges(piece: &mut Piece, min_length: f64) -> CollapseStats {
    let mut stats = CollapseStats::default();
    let min2 = min_length * min_length;
    let mut short = short_edges(piece, min2);
    if short.is_empty() {
        return stats;
    }
    let mut mesh = Mesh::new(piece);
    loop {
        let mut changed = false;
        for &(_, a, b) in &short {
            if mesh.try_collapse(a, b, min2) {
                stats.collapsed += 1;
                changed = true;
            }
        }
        if !changed {
            break;
        }
        mesh.write_back(piece);
        short = short_edges(piece, min2);
        if short.is_empty() {
            break;
        }
        mesh = Mesh::new(piece);
    }
    stats.kept = short.len() as u32;
    stats
}

/// Undirected edges `(length², lo, hi)` shorter than `√min2`, shortest
/// first, ties by index. On a closed oriented surface every edge is used
/// once in each direction, so taking only `lo → hi` lists it once.
fn short_edges(piece: &Piece, min2: f64) -> Vec<(f64, u32, u32)> {
    let mut out = Vec::new();
    for t in &piece.triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            if a < b {
                let d2 = piece.positions[a as usize].distance_squared(piece.positions[b as usize]);
                if d2 < min2 {
                    out.push((d2, a, b));
                }
            }
        }
    }
    out.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then((x.1, x.2).cmp(&(y.1, y.2))));
    out.dedup_by(|x, y| (x.1, x.2) == (y.1, y.2));
    out
}

/// A piece with vertex → triangle adjacency, edited in place.
struct Mesh {
    positions: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
    tags: Vec<u32>,
    alive: Vec<bool>,
    /// Triangles around each vertex (live ones only).
    around: Vec<Vec<u32>>,
}

impl Mesh {
    fn new(piece: &Piece) -> Self {
        let mut around = vec![Vec::new(); piece.positions.len()];
        for (k, t) in piece.triangles.iter().enumerate() {
            for &v in t {
                around[v as usize].push(k as u32);
            }
        }
        Self {
            positions: piece.positions.clone(),
            triangles: piece.triangles.clone(),
            tags: piece.tags.clone(),
            alive: vec![true; piece.triangles.len()],
            around,
        }
    }

    /// Distinct cap tags around `v`, ascending.
    fn planes(&self, v: u32) -> Vec<u32> {
        let mut tags: Vec<u32> = self.around[v as usize]
            .iter()
            .map(|&t| self.tags[t as usize])
            .filter(|&g| g != EXTERIOR)
            .collect();
        tags.sort_unstable();
        tags.dedup();
        tags
    }

    /// Vertices sharing a triangle with `v`, ascending, without `v`.
    fn neighbours(&self, v: u32) -> Vec<u32> {
        let mut n: Vec<u32> = self.around[v as usize]
            .iter()
            .flat_map(|&t| self.triangles[t as usize])
            .filter(|&w| w != v)
            .collect();
        n.sort_unstable();
        n.dedup();
        n
    }

    /// Collapses edge `a`–`b` if it still exists, is shorter than `√min2`
    /// and passes the checks of the module docs.
    fn try_collapse(&mut self, a: u32, b: u32, min2: f64) -> bool {
        let (pa, pb) = (self.positions[a as usize], self.positions[b as usize]);
        if pa.distance_squared(pb) >= min2 {
            return false;
        }
        // The two triangles on the edge (a closed manifold has exactly two).
        let on_edge: Vec<u32> = self.around[a as usize]
            .iter()
            .copied()
            .filter(|&t| self.triangles[t as usize].contains(&b))
            .collect();
        if on_edge.len() != 2 {
            return false;
        }
        let (sa, sb) = (self.planes(a), self.planes(b));
        let contains = |big: &[u32], small: &[u32]| small.iter().all(|s| big.contains(s));
        let (keep, gone, target) = if sa == sb {
            (a.min(b), a.max(b), (pa + pb) * 0.5)
        } else if contains(&sb, &sa) {
            (b, a, pb)
        } else if contains(&sa, &sb) {
            (a, b, pa)
        } else {
            return false;
        };
        // Link condition: the common neighbours are the two opposite vertices.
        let opposite: Vec<u32> = on_edge
            .iter()
            .map(|&t| {
                let tri = self.triangles[t as usize];
                tri.into_iter().find(|&v| v != a && v != b).unwrap_or(a)
            })
            .collect();
        if opposite[0] == opposite[1] {
            return false;
        }
        let (na, nb) = (self.neighbours(a), self.neighbours(b));
        let common = na.iter().filter(|v| nb.binary_search(v).is_ok()).count();
        if common != 2 {
            return false;
        }
        // No duplicate triangle (a tetrahedron would fold flat), and no
        // triangle turned over or flattened by the move.
        let moved = |v: u32| {
            if v == a || v == b {
                keep
            } else {
                v
            }
        };
        let place = |v: u32| {
            if v == a || v == b {
                target
            } else {
                self.positions[v as usize]
            }
        };
        let mut sets: Vec<[u32; 3]> = Vec::new();
        for &t in self.around[a as usize].iter().chain(&self.around[b as usize]) {
            if on_edge.contains(&t) {
                continue;
            }
            let tri = self.triangles[t as usize];
            let mut set = tri.map(moved);
            set.sort_unstable();
            if sets.contains(&set) {
                return false;
            }
            sets.push(set);
            let p = tri.map(|v| self.positions[v as usize]);
            let q = tri.map(place);
            let before = (p[1] - p[0]).cross(p[2] - p[0]);
            let after = (q[1] - q[0]).cross(q[2] - q[0]);
            // Turned over, or its area gone (relative to its longest edge).
            let longest2 = (q[1] - q[0])
                .length_squared()
                .max((q[2] - q[1]).length_squared())
                .max((q[0] - q[2]).length_squared());
            if before.dot(after) <= 0.0 || after.length_squared() <= 1e-24 * longest2 * longest2 {
                return false;
            }
        }

        // Apply.
        self.positions[keep as usize] = target;
        for &t in &on_edge {
            self.alive[t as usize] = false;
            for v in self.triangles[t as usize] {
                self.around[v as usize].retain(|&x| x != t);
            }
        }
        let moving = std::mem::take(&mut self.around[gone as usize]);
        for &t in &moving {
            for v in &mut self.triangles[t as usize] {
                if *v == gone {
                    *v = keep;
                }
            }
        }
        self.around[keep as usize].extend(moving);
        true
    }

    /// The live triangles back into `piece`, unused vertices dropped.
    fn write_back(&self, piece: &mut Piece) {
        piece.positions.clone_from(&self.positions);
        piece.triangles.clear();
        piece.tags.clear();
        for (k, t) in self.triangles.iter().enumerate() {
            if self.alive[k] {
                piece.triangles.push(*t);
                piece.tags.push(self.tags[k]);
            }
        }
        piece.compact();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clip::{Clip, clip_piece};
    use crate::mass_properties::polyhedron_mass_properties;
    use crate::piece::Plane;

    fn cube() -> Piece {
        Piece {
            positions: crate::mesh::box_corners(DVec3::ZERO, DVec3::ONE),
            triangles: crate::mesh::BOX_TRIANGLES.to_vec(),
            tags: vec![EXTERIOR; 12],
        }
    }

    fn shortest(p: &Piece) -> f64 {
        p.triangles
            .iter()
            .flat_map(|t| (0..3).map(move |k| (t[k], t[(k + 1) % 3])))
            .map(|(a, b)| p.positions[a as usize].distance(p.positions[b as usize]))
            .fold(f64::INFINITY, f64::min)
    }

    #[test]
    fn a_corner_cut_a_micron_deep_collapses_to_a_point_and_stays_closed() {
        let normal = DVec3::new(15.0, -5.0, -10.0).normalize();
        let plane = Plane {
            point: normal * (normal.dot(DVec3::X) - 1e-6),
            normal,
        };
        let Clip::Cut(mut piece) = clip_piece(&cube(), &plane, 3, 1e-12, 1e-9).unwrap() else {
            panic!()
        };
        assert!(shortest(&piece) < 1e-5);
        let stats = collapse_short_edges(&mut piece, 1e-5);
        assert!(stats.collapsed > 0 && stats.kept == 0, "{stats:?}");
        assert_eq!(piece.defect_edges(), 0);
        assert!(shortest(&piece) >= 1e-5);
        let volume = polyhedron_mass_properties(&piece.positions, &piece.triangles, 1.0).volume;
        assert!((volume - 1.0).abs() < 1e-9);
    }

    #[test]
    fn a_tetrahedron_is_not_folded_flat() {
        let mut piece = Piece {
            positions: vec![
                DVec3::ZERO,
                DVec3::new(1e-6, 0.0, 0.0),
                DVec3::Y,
                DVec3::Z,
            ],
            triangles: vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
            tags: vec![EXTERIOR; 4],
        };
        let before = piece.clone();
        collapse_short_edges(&mut piece, 1e-5);
        assert_eq!(piece, before);
    }
}
