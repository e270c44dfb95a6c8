//! Closing small holes of an open surface, the
//! [`OpenMeshFallback::CloseHoles`](crate::OpenMeshFallback::CloseHoles)
//! repair: boundary loops are walked, split where they touch, and each loop
//! that is small enough is filled with triangles that use its edges in the
//! opposite direction, so the closed surface keeps one orientation.
//!
//! The fill is the triangulation over the loop's own vertices that bends
//! least (edge length × angle between neighbouring normals, including the
//! surface triangles along the loop) and then has least area: dynamic
//! programming, O(n³) (Barequet & Sharir 1995; weights as in Liepa 2003,
//! "Filling holes in meshes"). It needs no projection, so non-planar loops
//! are fine: an L-shaped loop around two missing faces gets both flat faces
//! back, where least area alone would cut the corner off through the solid;
//! for a planar simple polygon it is a proper triangulation (a fold-over
//! bends by π). Diagonals that are already edges of the
//! surface are excluded, else the filled surface would be non-manifold;
//! when that leaves no triangulation (or the loop is longer than
//! [`MAX_TRIANGULATED_LOOP`]), the loop is filled by a fan around one added
//! vertex at the mean of its vertices.

use crate::topology::edge_uses;
use glam::DVec3;
use std::collections::{BTreeMap, BTreeSet};

/// Loops with more edges than this are filled by a fan around their mean
/// vertex instead of the O(n³) least-bending triangulation.
pub const MAX_TRIANGULATED_LOOP: usize = 256;

/// One boundary loop filled by
/// [`OpenMeshFallback::CloseHoles`](crate::OpenMeshFallback::CloseHoles).
#[derive(Clone, Debug, PartialEq)]
pub struct ClosedHole {
    /// Edges of the loop (equal to its number of vertices).
    pub edge_count: u32,
    /// Total area of the triangles added to fill it, m².
    pub added_area: f64,
    /// Mean of the loop's vertices, m: where the hole was.
    pub centre: DVec3,
    /// True when the loop was filled by a fan around one added vertex at
    /// `centre` (no triangulation over its own vertices avoided the
    /// surface's existing edges, or the loop was longer than
    /// [`MAX_TRIANGULATED_LOOP`]).
    pub added_vertex: bool,
}

/// Result of [`close_holes`].
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct HoleFill {
    /// Loops that were filled, in walk order.
    pub closed: Vec<ClosedHole>,
    /// Edge counts of loops left open because they had more than
    /// `max_hole_edges` edges, in walk order.
    pub too_large: Vec<u32>,
}

/// Fills every boundary loop of `triangles` with at most `max_hole_edges`
/// edges: appends the fill triangles to `triangles` and any fan vertices to
/// `positions`. Boundary edges are the undirected edges used by exactly one
/// triangle; edges used more often are left alone (the caller's validation
/// rejects them). Loops are walked from the smallest unused directed
/// boundary edge `(a, b)`; at a vertex where loops touch, the walk continues
/// along the boundary edge of the same fan of triangles (so two sheets
/// meeting at a vertex give two loops), and a walk that still visits a
/// vertex twice is split there into simple loops. Chains that do not close
/// (only possible next to non-manifold edges) are left open. Deterministic.
///
/// `min_area` (m²): fill triangles at or below it count as degenerate and
/// are avoided where the loop allows.
///
/// Requires in-range indices.
pub(crate) fn close_holes(
    positions: &mut Vec<DVec3>,
    triangles: &mut Vec<[u32; 3]>,
    max_hole_edges: u32,
    min_area: f64,
) -> HoleFill {
    let uses = edge_uses(triangles);
    let mut edges: BTreeSet<(u32, u32)> = uses.iter().map(|e| (e.lo, e.hi)).collect();
    let boundary: BTreeSet<(u32, u32)> = uses
        .iter()
        .filter(|e| e.count == 1)
        .map(|e| {
            if e.net > 0 {
                (e.lo, e.hi)
            } else {
                (e.hi, e.lo)
            }
        })
        .collect();
    let mut edge_triangle: BTreeMap<(u32, u32), usize> = BTreeMap::new();
    for (k, t) in triangles.iter().enumerate() {
        for e in 0..3 {
            edge_triangle.entry((t[e], t[(e + 1) % 3])).or_insert(k);
        }
    }
    let mut unused = boundary.clone();
    let mut loops: Vec<Vec<u32>> = Vec::new();
    while let Some(&(start, second)) = unused.iter().next() {
        unused.remove(&(start, second));
        let mut walk = vec![start];
        let (mut prev, mut cur) = (start, second);
        loop {
            let next = match fan_next(triangles, &edge_triangle, &boundary, prev, cur) {
                Some(e) if unused.contains(&e) => Some(e),
                // The fan's boundary edge is taken: the loop ends here.
                Some(_) => None,
                // Not a manifold fan: any unused boundary edge out of `cur`.
                None => unused.range((cur, 0)..=(cur, u32::MAX)).next().copied(),
            };
            let Some(e) = next else { break };
            unused.remove(&e);
            walk.push(cur);
            (prev, cur) = e;
        }
        if cur == start {
            split_at_repeats(&walk, &mut loops);
        }
    }
    let mut fill = HoleFill::default();
    for cycle in loops {
        let n = cycle.len();
        if n < 3 {
            continue;
        }
        if n as u64 > u64::from(max_hole_edges) {
            fill.too_large.push(n as u32);
            continue;
        }
        // The fill runs against the boundary's direction.
        let polygon: Vec<u32> = cycle.iter().rev().copied().collect();
        let centre = polygon
            .iter()
            .map(|&v| positions[v as usize])
            .sum::<DVec3>()
            / n as f64;
        let area = |t: [u32; 3], positions: &[DVec3]| {
            let [a, b, c] = t.map(|i| positions[i as usize]);
            0.5 * (b - a).cross(c - a).length()
        };
        // Unit normal of the surface triangle across each polygon edge
        // i → i + 1, which runs the boundary edge i + 1 → i.
        let outside: Vec<DVec3> = (0..n)
            .map(|i| {
                let edge = (polygon[(i + 1) % n], polygon[i]);
                edge_triangle
                    .get(&edge)
                    .and_then(|&t| triangles.get(t))
                    .map_or(DVec3::ZERO, |t| {
                        let [a, b, c] = t.map(|v| positions[v as usize]);
                        (b - a).cross(c - a).normalize_or_zero()
                    })
            })
            .collect();
        let triangulated = if n <= MAX_TRIANGULATED_LOOP {
            fill_triangulation(positions, &polygon, &outside, &edges, min_area)
        } else {
            None
        };
        let added_vertex = triangulated.is_none();
        let new_triangles = triangulated.unwrap_or_else(|| {
            let c = positions.len() as u32;
            positions.push(centre);
            (0..n)
                .map(|i| [polygon[i], polygon[(i + 1) % n], c])
                .collect()
        });
        let mut added_area = 0.0;
        for t in new_triangles {
            added_area += area(t, positions);
            for e in 0..3 {
                let (a, b) = (t[e], t[(e + 1) % 3]);
                edges.insert((a.min(b), a.max(b)));
            }
            triangles.push(t);
        }
        fill.closed.push(ClosedHole {
            edge_count: n as u32,
            added_area,
            centre,
            added_vertex,
        });
    }
    fill
}

/// The boundary edge leaving `v` in the same fan of triangles as the
/// boundary edge `u → v` entering it: turn around `v` from triangle to
/// neighbouring triangle until an edge without a twin is reached. `None` if
/// the fan is not manifold (a missing or ambiguous neighbour).
fn fan_next(
    triangles: &[[u32; 3]],
    edge_triangle: &BTreeMap<(u32, u32), usize>,
    boundary: &BTreeSet<(u32, u32)>,
    u: u32,
    v: u32,
) -> Option<(u32, u32)> {
    let mut into_v = (u, v);
    for _ in 0..=triangles.len() {
        let t = triangles.get(*edge_triangle.get(&into_v)?)?;
        let k = (0..3).find(|&k| t[k] == into_v.0 && t[(k + 1) % 3] == v)?;
        let w = t[(k + 2) % 3];
        if boundary.contains(&(v, w)) {
            return Some((v, w));
        }
        into_v = (w, v);
    }
    None
}

/// Splits the closed walk `walk` (first vertex not repeated at the end) into
/// simple cycles at repeated vertices, appending them to `out`.
fn split_at_repeats(walk: &[u32], out: &mut Vec<Vec<u32>>) {
    let mut stack: Vec<u32> = Vec::with_capacity(walk.len());
    let mut position: BTreeMap<u32, usize> = BTreeMap::new();
    for &v in walk {
        if let Some(&p) = position.get(&v) {
            let cycle: Vec<u32> = stack.split_off(p + 1);
            for w in &cycle {
                position.remove(w);
            }
            let mut cycle_with_v = vec![v];
            cycle_with_v.extend(cycle);
            out.push(cycle_with_v);
        } else {
            position.insert(v, stack.len());
            stack.push(v);
        }
    }
    out.push(stack);
}

/// Cost of a (partial) fill, compared lexicographically: degenerate
/// triangles, then bending (Σ edge length × angle between the normals of
/// the two triangles at the edge, m·rad), then area (m²).
#[derive(Copy, Clone, Debug, PartialEq)]
struct FillCost {
    degenerate: u32,
    bending: f64,
    area: f64,
}

impl FillCost {
    const ZERO: Self = Self {
        degenerate: 0,
        bending: 0.0,
        area: 0.0,
    };

    /// Bending within `tolerance` (m·rad) counts as equal, so float noise
    /// between equally flat fills does not decide against a smaller area.
    fn is_better_than(&self, other: &Self, tolerance: f64) -> bool {
        if self.degenerate != other.degenerate {
            return self.degenerate < other.degenerate;
        }
        if (self.bending - other.bending).abs() > tolerance {
            return self.bending < other.bending;
        }
        self.area < other.area
    }
}

/// Angle between two unit normals (0 when either is zero), rad.
fn normal_angle(a: DVec3, b: DVec3) -> f64 {
    a.cross(b).length().atan2(a.dot(b))
}

/// Triangulation of the closed polygon `polygon` (vertex indices, no
/// repeats), wound like the polygon, that bends least and then has least
/// area (Liepa 2003: the dihedral terms use the best sub-fills'
/// triangles). `outside[i]` is the unit normal of the surface triangle
/// across the polygon edge `i → i + 1` (zero if unknown). Bending keeps
/// the fill flush with flat neighbours and rules out fold-overs; area
/// alone would cut corners through the solid on bent loops (an L-shaped
/// loop around two missing perpendicular faces). Degenerate triangles
/// (area ≤ `min_area`) are avoided first. Diagonals in `edges`
/// (undirected, `(min, max)`) are not used. `None` if no triangulation
/// avoids them.
fn fill_triangulation(
    positions: &[DVec3],
    polygon: &[u32],
    outside: &[DVec3],
    edges: &BTreeSet<(u32, u32)>,
    min_area: f64,
) -> Option<Vec<[u32; 3]>> {
    let n = polygon.len();
    let p = |i: usize| positions[polygon[i] as usize];
    let usable = |i: usize, j: usize| {
        let (a, b) = (polygon[i], polygon[j]);
        j == i + 1 || (i == 0 && j == n - 1) || !edges.contains(&(a.min(b), a.max(b)))
    };
    let perimeter: f64 = (0..n).map(|i| p(i).distance(p((i + 1) % n))).sum();
    let tolerance = 1e-9 * perimeter;
    let normal =
        |i: usize, k: usize, j: usize| (p(k) - p(i)).cross(p(j) - p(i)).normalize_or_zero();
    // cost[i * n + j]: best cost of the sub-polygon i..=j; split[i * n + j]
    // its apex k (triangle (i, k, j)).
    let mut cost: Vec<Option<FillCost>> = vec![None; n * n];
    let mut split = vec![0usize; n * n];
    for i in 0..n - 1 {
        cost[i * n + i + 1] = Some(FillCost::ZERO);
    }
    // Normal of what lies across the edge (i, j), i < j, inside the sub-polygon
    // i..=j: the outside triangle for a polygon edge, else the sub-fill's apex.
    let across = |i: usize, j: usize, split: &[usize]| {
        if j == i + 1 {
            outside[i]
        } else {
            normal(i, split[i * n + j], j)
        }
    };
    for d in 2..n {
        for i in 0..n - d {
            let j = i + d;
            if !usable(i, j) {
                continue;
            }
            let mut best: Option<FillCost> = None;
            for k in i + 1..j {
                let (Some(left), Some(right)) = (cost[i * n + k], cost[k * n + j]) else {
                    continue;
                };
                let cross = (p(k) - p(i)).cross(p(j) - p(i));
                let area = 0.5 * cross.length();
                let m = cross.normalize_or_zero();
                let mut bending = p(i).distance(p(k)) * normal_angle(m, across(i, k, &split))
                    + p(k).distance(p(j)) * normal_angle(m, across(k, j, &split));
                if i == 0 && j == n - 1 {
                    bending += p(0).distance(p(n - 1)) * normal_angle(m, outside[n - 1]);
                }
                let total = FillCost {
                    degenerate: left.degenerate + right.degenerate + u32::from(area <= min_area),
                    bending: left.bending + right.bending + bending,
                    area: left.area + right.area + area,
                };
                if best.is_none_or(|b| total.is_better_than(&b, tolerance)) {
                    best = Some(total);
                    split[i * n + j] = k;
                }
            }
            cost[i * n + j] = best;
        }
    }
    cost[n - 1]?;
    let mut out = Vec::with_capacity(n - 2);
    let mut stack = vec![(0, n - 1)];
    while let Some((i, j)) = stack.pop() {
        if j < i + 2 {
            continue;
        }
        let k = split[i * n + j];
        out.push([polygon[i], polygon[k], polygon[j]]);
        stack.push((k, j));
        stack.push((i, k));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_walk_through_one_vertex_twice_splits_into_two_loops() {
        let mut out = Vec::new();
        split_at_repeats(&[0, 1, 2, 0, 3, 4], &mut out);
        assert_eq!(out, vec![vec![0, 1, 2], vec![0, 3, 4]]);
        let mut out = Vec::new();
        split_at_repeats(&[5, 1, 2, 3, 1, 4], &mut out);
        assert_eq!(out, vec![vec![1, 2, 3], vec![5, 1, 4]]);
    }

    #[test]
    fn a_square_is_filled_by_two_triangles_of_its_area() {
        let p = [DVec3::ZERO, DVec3::X, DVec3::new(1.0, 1.0, 0.0), DVec3::Y];
        let t =
            fill_triangulation(&p, &[0, 1, 2, 3], &[DVec3::Z; 4], &BTreeSet::new(), 1e-12).unwrap();
        assert_eq!(t.len(), 2);
        let area: f64 = t
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| p[i as usize]);
                (b - a).cross(c - a).z * 0.5
            })
            .sum();
        assert!((area - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_square_whose_both_diagonals_exist_has_no_triangulation() {
        let p = [DVec3::ZERO, DVec3::X, DVec3::new(1.0, 1.0, 0.0), DVec3::Y];
        let edges = BTreeSet::from([(0, 2), (1, 3)]);
        assert!(fill_triangulation(&p, &[0, 1, 2, 3], &[DVec3::Z; 4], &edges, 1e-12).is_none());
    }
}
