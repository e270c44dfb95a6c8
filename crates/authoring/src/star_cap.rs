//! Triangulating a star-shaped cap without a general triangulator.
//!
//! Most caps of a Voronoi fracture are one loop around a convex region:
//! every cut of a cell after the ones through the mesh surface crosses only
//! earlier caps, and the cut of a convex solid by a plane is convex. Its
//! loop has runs of nearly collinear vertices (where the plane crossed the
//! diagonals of an earlier cap), which rounding leaves a hair to either
//! side of the line, so exact convexity fails; what holds exactly is that
//! the loop is *star-shaped* around the mean of its vertices. Spot at 500
//! sites: 5,218 of 6,000 caps are such loops (111 are exactly convex).
//!
//! Such a loop is triangulated by splitting off one triangle at a time: on
//! the closing edge `ab` of a sub-polygon, the apex `c` is the vertex
//! strictly to the left of `ab` with the smallest circumcircle on that side
//! (circles through `a` and `b` are totally ordered on one side, so one scan
//! with the in-circle predicate finds it). For a convex loop this is its
//! Delaunay triangulation (Lee & Schachter 1980). For a star-shaped loop
//! that is accepted (below), every apex chosen was visible from its edge
//! (with a hidden one the triangles could not all be counter-clockwise,
//! by the argument below, so some sub-polygon would have had no apex and
//! the loop would have been declined), so each
//! is the smallest circle among the visible vertices: the constrained
//! Delaunay triangulation that spade gives, up to cocircular ties
//! (`cap.rs` test `star_shaped_caps_get_spades_triangles`; on Spot at 500
//! sites 4,000 caps were compared, all alike). Only the order of the
//! triangles differs. Cost O(n²) for n vertices, capped at
//! [`MAX_VERTICES`]; no allocation beyond the output and a small stack.
//!
//! **Why the result is a valid triangulation.** Every triangle made is
//! strictly counter-clockwise (exact `orient2d`), and the triangles' free
//! edges are exactly the loop (each split keeps both sides' chains). A
//! piecewise-linear map of a disc whose triangles all keep their
//! orientation covers each point as many times as the boundary winds
//! around it; the loop winds once around its inside and zero times
//! outside, so every inside point is covered once and nothing outside is.
//! Where no vertex is strictly left of a sub-polygon's closing edge the
//! loop is declined and the caller falls back to the general constrained
//! Delaunay triangulation (spade).
//!
//! Predicates are Shewchuk's exact `orient2d` and `incircle` (crate
//! `robust`, already in the build through spade). Where four or more
//! vertices are cocircular the first in loop order wins: deterministic,
//! but not spade's tie-break.

use robust::{Coord, incircle, orient2d};

/// The vertex loop of `segments` (directed edges `(a, b)`, the region on
/// their left), starting at the first segment's `a`, when the segments form
/// exactly one closed loop in which every vertex occurs once.
pub(crate) fn single_loop(segments: &[(u32, u32)]) -> Option<Vec<u32>> {
    let n = segments.len();
    if n < 3 {
        return None;
    }
    let mut scratch = segments.to_vec();
    scratch.sort_unstable();
    if scratch.windows(2).any(|w| w[0].0 == w[1].0) {
        return None;
    }
    let mut out = Vec::with_capacity(n);
    let start = segments[0].0;
    let mut at = start;
    for _ in 0..n {
        out.push(at);
        let k = scratch.binary_search_by_key(&at, |e| e.0).ok()?;
        at = scratch[k].1;
        if at == start {
            break;
        }
    }
    (at == start && out.len() == n).then_some(out)
}

/// Loops with more vertices are left to the general triangulator: the
/// scan is O(n²), spade's insertion O(n log n).
pub(crate) const MAX_VERTICES: usize = 256;

/// Triangles of the loop `points` (m, in the cap plane), as index triples
/// into `points`, each strictly counter-clockwise; `None` when the loop has
/// fewer than 3 or more than [`MAX_VERTICES`] vertices, is not star-shaped
/// around the mean of its vertices winding once counter-clockwise, or a
/// sub-polygon has no apex strictly left of its closing edge (module docs).
pub(crate) fn triangulate_star_shaped(points: &[[f64; 2]]) -> Option<Vec<[u32; 3]>> {
    let n = points.len();
    if !(3..=MAX_VERTICES).contains(&n) {
        return None;
    }
    let c = |i: usize| Coord {
        x: points[i][0],
        y: points[i][1],
    };
    // Star-shaped around the mean of the vertices, winding once: every edge
    // turns strictly counter-clockwise around it, and exactly one edge
    // crosses the ray from it along +x (upward, since it turns ccw).
    let o = {
        let (sx, sy) = points
            .iter()
            .fold((0.0, 0.0), |(x, y), p| (x + p[0], y + p[1]));
        Coord {
            x: sx / n as f64,
            y: sy / n as f64,
        }
    };
    let mut crossings = 0;
    for i in 0..n {
        let (p, q) = (c(i), c((i + 1) % n));
        // `!(x > 0)`: a NaN coordinate declines the loop too.
        if !(orient2d(o, p, q) > 0.0) {
            return None;
        }
        if p.y < o.y && o.y <= q.y {
            crossings += 1;
        }
    }
    if crossings != 1 {
        return None;
    }
    let mut out = Vec::with_capacity(n - 2);
    // Sub-polygons (i, j): vertices i..=j with the edge j → i closing them;
    // the polygon's own closing edge is n−1 → 0.
    let mut stack = vec![(0usize, n - 1)];
    while let Some((i, j)) = stack.pop() {
        let (a, b) = (c(j), c(i));
        let mut best = None;
        for k in i + 1..j {
            if !(orient2d(a, b, c(k)) > 0.0) {
                continue;
            }
            best = match best {
                Some(m) if !(incircle(a, b, c(m), c(k)) > 0.0) => Some(m),
                _ => Some(k),
            };
        }
        let k = best?;
        out.push([j as u32, i as u32, k as u32]);
        if k > i + 1 {
            stack.push((i, k));
        }
        if j > k + 1 {
            stack.push((k, j));
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(p: &[[f64; 2]], tris: &[[u32; 3]]) -> f64 {
        tris.iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| p[i as usize]);
                0.5 * ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))
            })
            .sum()
    }

    #[test]
    fn a_regular_hexagon_is_filled_with_four_ccw_triangles() {
        let p: Vec<[f64; 2]> = (0..6)
            .map(|k| {
                let t = f64::from(k) * std::f64::consts::PI / 3.0;
                [t.cos(), t.sin()]
            })
            .collect();
        let tris = triangulate_star_shaped(&p).unwrap();
        assert_eq!(tris.len(), 4);
        let expected = 1.5 * 3f64.sqrt();
        assert!((area(&p, &tris) - expected).abs() < 1e-12);
        assert!(tris.iter().all(|t| area(&p, &[*t]) > 0.0));
    }

    #[test]
    fn collinear_vertices_on_an_edge_are_used_without_flat_triangles() {
        // A unit square with two extra vertices on its bottom edge.
        let p = [
            [0.0, 0.0],
            [0.3, 0.0],
            [0.6, 0.0],
            [1.0, 0.0],
            [1.0, 1.0],
            [0.0, 1.0],
        ];
        let tris = triangulate_star_shaped(&p).unwrap();
        assert_eq!(tris.len(), 4);
        assert!((area(&p, &tris) - 1.0).abs() < 1e-12);
        assert!(tris.iter().all(|t| area(&p, &[*t]) > 1e-3));
    }

    #[test]
    fn the_triangles_are_delaunay() {
        // A long thin convex polygon: the fan from vertex 0 is not
        // Delaunay, the scan's choice is (no vertex inside any circumcircle).
        let p = [
            [0.0, 0.0],
            [4.0, -0.5],
            [8.0, 0.0],
            [8.5, 1.0],
            [4.0, 1.5],
            [-0.5, 1.0],
        ];
        let tris = triangulate_star_shaped(&p).unwrap();
        for t in &tris {
            let [a, b, c] = t.map(|i| {
                let q = p[i as usize];
                Coord { x: q[0], y: q[1] }
            });
            for (k, q) in p.iter().enumerate() {
                if t.contains(&(k as u32)) {
                    continue;
                }
                assert!(
                    incircle(a, b, c, Coord { x: q[0], y: q[1] }) <= 0.0,
                    "{t:?} holds {k}"
                );
            }
        }
    }

    #[test]
    fn non_convex_clockwise_twice_wound_and_coincident_loops_are_declined() {
        let concave = [[0.0, 0.0], [2.0, 0.0], [1.0, 0.5], [2.0, 2.0], [0.0, 2.0]];
        assert!(triangulate_star_shaped(&concave).is_none());
        let clockwise = [[0.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0]];
        assert!(triangulate_star_shaped(&clockwise).is_none());
        // A pentagram: every turn is left, but it winds twice.
        let star: Vec<[f64; 2]> = (0..5)
            .map(|k| {
                let t = f64::from(k * 2) * std::f64::consts::TAU / 5.0;
                [t.cos(), t.sin()]
            })
            .collect();
        assert!(triangulate_star_shaped(&star).is_none());
        let coincident = [[0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        assert!(triangulate_star_shaped(&coincident).is_none());
        let flat = [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]];
        assert!(triangulate_star_shaped(&flat).is_none());
        let nan = [
            [0.0, 0.0],
            [1.0, 0.0],
            [f64::NAN, 0.5],
            [1.0, 1.0],
            [0.0, 1.0],
        ];
        assert!(triangulate_star_shaped(&nan).is_none());
    }

    #[test]
    fn single_loop_walks_one_cycle_and_declines_two() {
        let one = [(7, 3), (3, 9), (9, 7)];
        assert_eq!(single_loop(&one), Some(vec![7, 3, 9]));
        let two = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)];
        assert_eq!(single_loop(&two), None);
        // Two loops touching at vertex 0.
        let touching = [(0, 1), (1, 2), (2, 0), (0, 3), (3, 4), (4, 0)];
        assert_eq!(single_loop(&touching), None);
        let open = [(0, 1), (1, 2), (2, 3)];
        assert_eq!(single_loop(&open), None);
    }

    #[test]
    fn a_hair_reflex_vertex_among_collinear_ones_is_accepted_and_kept() {
        // The bottom edge of a unit square carries cut points that rounding
        // put 1e-17 m to either side of the line, as on a real cap.
        let p = [
            [0.0, 0.0],
            [0.25, 1e-17],
            [0.5, -1e-17],
            [0.75, 1e-17],
            [1.0, 0.0],
            [1.0, 1.0],
            [0.0, 1.0],
        ];
        let tris = triangulate_star_shaped(&p).unwrap();
        assert_eq!(tris.len(), 5);
        assert!((area(&p, &tris) - 1.0).abs() < 1e-12);
        assert!(tris.iter().all(|t| counter_clockwise(&p, t)));
    }

    /// Whether triangle `t` of `p` is strictly counter-clockwise (exact).
    fn counter_clockwise(p: &[[f64; 2]], t: &[u32; 3]) -> bool {
        let [a, b, c] = t.map(|i| {
            let q = p[i as usize];
            Coord { x: q[0], y: q[1] }
        });
        orient2d(a, b, c) > 0.0
    }

    /// Whether the free edges of `tris` are exactly the loop's edges
    /// `i → i + 1` (both as sorted directed pairs).
    fn free_edges_are_the_loop(n: usize, tris: &[[u32; 3]]) -> bool {
        let mut free = crate::topology::unpaired_edges(tris);
        free.sort_unstable();
        let mut expected: Vec<(u32, u32)> =
            (0..n).map(|i| (i as u32, ((i + 1) % n) as u32)).collect();
        expected.sort_unstable();
        free == expected
    }

    proptest::proptest! {
        /// Random loops around the origin with radii in [0.3, 1.5]: when
        /// accepted, n − 2 strictly ccw triangles whose free edges are the
        /// loop and whose areas add up to the loop's; a convex loop (all
        /// radii 1) is always accepted.
        #[test]
        fn accepted_loops_are_triangulated_exactly(
            mut angles in proptest::collection::vec(0.0f64..std::f64::consts::TAU, 3..40),
            radii in proptest::collection::vec(0.3f64..1.5, 40),
            round in proptest::bool::ANY,
        ) {
            angles.sort_by(f64::total_cmp);
            angles.dedup_by(|a, b| (*a - *b).abs() < 1e-3);
            proptest::prop_assume!(angles.len() >= 3 && angles[angles.len() - 1] - angles[0] < std::f64::consts::TAU - 1e-3);
            let p: Vec<[f64; 2]> = angles
                .iter()
                .zip(&radii)
                .map(|(&t, &r)| {
                    let r = if round { 1.0 } else { r };
                    [r * t.cos(), r * t.sin()]
                })
                .collect();
            let shoelace: f64 = (0..p.len())
                .map(|i| {
                    let (a, b) = (p[i], p[(i + 1) % p.len()]);
                    0.5 * (a[0] * b[1] - a[1] * b[0])
                })
                .sum();
            match triangulate_star_shaped(&p) {
                Some(tris) => {
                    proptest::prop_assert_eq!(tris.len(), p.len() - 2);
                    proptest::prop_assert!(free_edges_are_the_loop(p.len(), &tris));
                    proptest::prop_assert!((area(&p, &tris) - shoelace).abs() < 1e-12);
                    for t in &tris {
                        proptest::prop_assert!(counter_clockwise(&p, t));
                    }
                }
                None => proptest::prop_assert!(!round, "a convex loop was declined"),
            }
        }
    }
}
