//! A spatial hash grid of moving points with ids: the world positions of an
//! instance's one-chunk clusters, so that an event with an impulse finds the
//! chunk nearest its point in time that follows the debris near the point,
//! not the number of pieces in the world (issue 12 item 3: after a
//! 32,768-piece shatter every impulse measured all 32,768).
//!
//! Space is cut into cubes of edge `cell` metres; cube `c` holds the points
//! `p` with `floor(p / cell) = c` (per axis, in `f64`). Occupied cubes are
//! found through an open-addressing table and never iterated: what a query
//! answers does not depend on hashing or on the order of insertion. [`SpatialHash::nearest`] visits the cubes in rings of growing
//! Chebyshev distance around the query's cube and stops once the distance
//! from the query point to the outside of the rings visited (less a slack
//! for rounding, see [`ring_bound`]) exceeds the best distance found; a ring
//! with more cubes than are occupied is replaced by a visit of every id. Every candidate is measured by the caller exactly as a full scan
//! measures it, and the best is kept by (distance, key), so the answer is
//! the scan's, bit for bit.

use crate::point_tree::closer;
use glam::Vec3;

/// Cube index, per axis.
type Cell = [i32; 3];

/// Cube indices beyond this magnitude are clamped to it; a query whose own
/// cube is clamped visits every occupied cube instead of rings.
const CELL_LIMIT: f64 = (1 << 30) as f64;

/// No id (end of a cube's list, or a vacant bucket).
const NONE: u32 = u32::MAX;

/// A bucket of the open-addressing table: an occupied cube and the first id
/// of its list, or vacant (`head == NONE`).
#[derive(Clone, Copy, Debug)]
struct Bucket {
    cell: Cell,
    head: u32,
}

/// Where an id is: its cube and its neighbours in that cube's list.
#[derive(Clone, Copy, Debug)]
struct Entry {
    cell: Option<Cell>,
    next: u32,
    prev: u32,
}

/// Ids of points, grouped by the cube that holds them: an open-addressing
/// table (linear probing, at most half full) from occupied cube to a
/// doubly linked list of its ids threaded through `at`. Once both have
/// grown to the ids in use ([`Self::reserve`]), moving points allocates
/// nothing.
#[derive(Clone, Debug)]
pub(crate) struct SpatialHash {
    /// Edge of a cube, m (> 0).
    cell: f64,
    /// A power of two in length (or empty).
    table: Vec<Bucket>,
    /// Occupied buckets.
    cubes: usize,
    /// Per id.
    at: Vec<Entry>,
}

impl SpatialHash {
    /// An empty grid of cubes with edge `cell` m (a non-finite or
    /// non-positive edge is taken as 1 m).
    pub(crate) fn new(cell: f32) -> Self {
        let cell = f64::from(cell);
        Self {
            cell: if cell.is_finite() && cell > 0.0 {
                cell
            } else {
                1.0
            },
            table: Vec::new(),
            cubes: 0,
            at: Vec::new(),
        }
    }

    /// Makes room for ids below `ids` in as many cubes without growing again.
    pub(crate) fn reserve(&mut self, ids: usize) {
        if self.at.len() < ids {
            self.at.resize(
                ids,
                Entry {
                    cell: None,
                    next: NONE,
                    prev: NONE,
                },
            );
        }
        if self.table.len() < 2 * ids {
            self.rehash((2 * ids).next_power_of_two());
        }
    }

    /// Number of ids holding a point.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.at.iter().filter(|e| e.cell.is_some()).count()
    }

    /// Moves `id` to `point`, or removes it (`None`). O(1) expected.
    pub(crate) fn set(&mut self, id: u32, point: Option<Vec3>) {
        let want = point.map(|p| self.cell_of(p));
        let i = id as usize;
        if self.at.len() <= i {
            if want.is_none() {
                return;
            }
            self.reserve((i + 1).max(2 * self.at.len()));
        }
        if self.at[i].cell == want {
            return;
        }
        if self.at[i].cell.is_some() {
            self.unlink(id);
        }
        if let Some(cell) = want {
            self.link(id, cell);
        }
    }

    fn unlink(&mut self, id: u32) {
        let Entry { cell, next, prev } = self.at[id as usize];
        let Some(cell) = cell else { return };
        if next != NONE {
            self.at[next as usize].prev = prev;
        }
        if prev != NONE {
            self.at[prev as usize].next = next;
        } else if let Some(b) = self.find(cell) {
            self.table[b].head = next;
            if next == NONE {
                self.vacate(b);
            }
        }
        self.at[id as usize] = Entry {
            cell: None,
            next: NONE,
            prev: NONE,
        };
    }

    fn link(&mut self, id: u32, cell: Cell) {
        let b = match self.find(cell) {
            Some(b) => b,
            None => {
                if 2 * (self.cubes + 1) > self.table.len() {
                    self.rehash((2 * self.table.len()).max(16));
                }
                let mut b = self.home(cell);
                while self.table[b].head != NONE {
                    b = (b + 1) & (self.table.len() - 1);
                }
                self.table[b] = Bucket { cell, head: NONE };
                self.cubes += 1;
                b
            }
        };
        let head = self.table[b].head;
        if head != NONE {
            self.at[head as usize].prev = id;
        }
        self.at[id as usize] = Entry {
            cell: Some(cell),
            next: head,
            prev: NONE,
        };
        self.table[b].head = id;
    }

    /// The bucket of `cell`, if occupied.
    fn find(&self, cell: Cell) -> Option<usize> {
        if self.table.is_empty() {
            return None;
        }
        let mask = self.table.len() - 1;
        let mut b = self.home(cell);
        loop {
            let bucket = self.table[b];
            if bucket.head == NONE {
                return None;
            }
            if bucket.cell == cell {
                return Some(b);
            }
            b = (b + 1) & mask;
        }
    }

    /// Empties bucket `b`, shifting later buckets of its probe run back
    /// (deletion without tombstones).
    fn vacate(&mut self, mut b: usize) {
        let mask = self.table.len() - 1;
        self.table[b].head = NONE;
        self.cubes -= 1;
        let mut j = b;
        loop {
            j = (j + 1) & mask;
            if self.table[j].head == NONE {
                return;
            }
            let home = self.home(self.table[j].cell);
            // Move j back to b unless its home lies cyclically in (b, j].
            let stays = if b <= j {
                b < home && home <= j
            } else {
                b < home || home <= j
            };
            if !stays {
                self.table[b] = self.table[j];
                self.table[j].head = NONE;
                b = j;
            }
        }
    }

    fn rehash(&mut self, size: usize) {
        let old = std::mem::replace(
            &mut self.table,
            vec![
                Bucket {
                    cell: [0; 3],
                    head: NONE,
                };
                size
            ],
        );
        for bucket in old.into_iter().filter(|b| b.head != NONE) {
            let mut b = self.home(bucket.cell);
            while self.table[b].head != NONE {
                b = (b + 1) & (size - 1);
            }
            self.table[b] = bucket;
        }
    }

    /// The first bucket `cell` probes (a fixed mix of its indices, the same
    /// on every machine).
    fn home(&self, cell: Cell) -> usize {
        let mut h = 0x9E37_79B9_7F4A_7C15u64;
        for c in cell {
            h = (h ^ u64::from(c as u32)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            h ^= h >> 31;
        }
        (h as usize) & (self.table.len() - 1)
    }

    /// Calls `f` on the ids in `cell`.
    fn for_each_in(&self, cell: Cell, mut f: impl FnMut(u32)) {
        if let Some(b) = self.find(cell) {
            let mut id = self.table[b].head;
            while id != NONE {
                f(id);
                id = self.at[id as usize].next;
            }
        }
    }

    /// The best of `best` and every id's measure, where `measure(id)` gives
    /// the distance, m, from `point` to the id's point (and a key breaking
    /// ties, lower first) or `None` to skip the id. Each id is measured at
    /// most once per ring visit; ids whose cube cannot hold a point closer
    /// than the best so far are not measured.
    ///
    /// The distances must be those from `point` to the positions the ids
    /// were last [`Self::set`] at (up to `f32` rounding of that distance);
    /// otherwise the search may stop too early.
    pub(crate) fn nearest(
        &self,
        point: Vec3,
        mut best: Option<(f32, u32)>,
        mut measure: impl FnMut(u32) -> Option<(f32, u32)>,
    ) -> Option<(f32, u32)> {
        let mut visit = |id: u32, best: &mut Option<(f32, u32)>| {
            if let Some(found) = measure(id)
                && closer(found, *best)
            {
                *best = Some(found);
            }
        };
        if self.cubes == 0 {
            return best;
        }
        let centre = self.cell_of(point);
        let clamped = centre.iter().any(|&c| f64::from(c).abs() >= CELL_LIMIT);
        let mut r: i32 = 0;
        loop {
            let side = 2 * i64::from(r) + 1;
            if clamped || side * side * side > self.cubes as i64 {
                // Rings would visit more cubes than are occupied: every id.
                for (id, e) in self.at.iter().enumerate() {
                    if e.cell.is_some() {
                        visit(id as u32, &mut best);
                    }
                }
                return best;
            }
            for_each_ring_cell(centre, r, |c| {
                self.for_each_in(c, |id| visit(id, &mut best))
            });
            if let Some((d, _)) = best
                && ring_bound(point, centre, r, self.cell) > f64::from(d)
            {
                return best;
            }
            r += 1;
        }
    }

    fn cell_of(&self, p: Vec3) -> Cell {
        let axis = |x: f32| {
            (f64::from(x) / self.cell)
                .floor()
                .clamp(-CELL_LIMIT, CELL_LIMIT) as i32
        };
        [axis(p.x), axis(p.y), axis(p.z)]
    }
}

/// Calls `f` on every cube at Chebyshev distance exactly `r` from `centre`.
fn for_each_ring_cell(centre: Cell, r: i32, mut f: impl FnMut(Cell)) {
    let [x, y, z] = centre;
    if r == 0 {
        f(centre);
        return;
    }
    for dx in -r..=r {
        for dy in -r..=r {
            if dx.abs() == r || dy.abs() == r {
                for dz in -r..=r {
                    f([x + dx, y + dy, z + dz]);
                }
            } else {
                f([x + dx, y + dy, z - r]);
                f([x + dx, y + dy, z + r]);
            }
        }
    }
}

/// A lower bound, m, on the distance from `point` (in cube `centre`) to any
/// point whose cube is at Chebyshev distance more than `r` from `centre`:
/// the distance from `point` to the faces of the block of cubes within `r`,
/// less a slack for rounding, so that a point outside the block is farther
/// than the bound also as the caller measures it:
/// * the caller's `f32` distance is within a few ulps (relative, about
///   2e-7) of the exact distance between the same two `f32` points: 1e-6 of
///   the bound;
/// * a point is filed under `floor(p / cell)` computed in `f64` from its
///   exact `f32` coordinates, which can only err next to a cube face, by
///   about 1e-16 of the coordinates; the faces here are computed in `f64`
///   the same way: 1e-12 of the coordinates and block size.
///
/// The slack does not grow with the distance from the origin beyond the
/// `f64` term (an instance 10⁷ m out searches as one at the origin does).
fn ring_bound(point: Vec3, centre: Cell, r: i32, cell: f64) -> f64 {
    let mut bound = f64::INFINITY;
    let mut scale = cell * (f64::from(r) + 1.0);
    for a in 0..3 {
        let p = f64::from(point[a]);
        let c = f64::from(centre[a]);
        let low = p - (c - f64::from(r)) * cell;
        let high = (c + f64::from(r) + 1.0) * cell - p;
        bound = bound.min(low).min(high);
        scale += p.abs();
    }
    bound * (1.0 - 1e-6) - 1e-12 * scale
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A deterministic scatter (no RNG needed).
    fn scatter(n: u32, extent: f32, offset: Vec3) -> Vec<Vec3> {
        (0..n)
            .map(|i| {
                let f = i as f32;
                offset
                    + Vec3::new(
                        (f * 0.618_034).fract(),
                        (f * 0.414_213_5).fract(),
                        (f * 0.732_050_8).fract(),
                    ) * extent
            })
            .collect()
    }

    fn brute(points: &[Option<Vec3>], q: Vec3) -> Option<(f32, u32)> {
        points
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.map(|p| (p.distance(q), i as u32)))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
    }

    /// Every id with a point is in its cube's list, once, and the lists
    /// hold nothing else.
    fn check_lists(grid: &SpatialHash) {
        let mut listed = 0;
        for (id, e) in grid.at.iter().enumerate() {
            if let Some(cell) = e.cell {
                let mut found = 0;
                grid.for_each_in(cell, |x| found += usize::from(x == id as u32));
                assert_eq!(found, 1, "id {id} in cube {cell:?}");
            }
        }
        for b in grid.table.iter().filter(|b| b.head != NONE) {
            grid.for_each_in(b.cell, |x| {
                assert_eq!(grid.at[x as usize].cell, Some(b.cell));
                listed += 1;
            });
        }
        assert_eq!(listed, grid.len());
        assert_eq!(
            grid.table.iter().filter(|b| b.head != NONE).count(),
            grid.cubes
        );
    }

    fn grid_nearest(grid: &SpatialHash, points: &[Option<Vec3>], q: Vec3) -> Option<(f32, u32)> {
        grid.nearest(q, None, |id| {
            points[id as usize].map(|p| (p.distance(q), id))
        })
    }

    #[test]
    fn nearest_equals_a_full_scan_through_moves_and_removals() {
        for (cell, extent) in [(0.5, 10.0), (2.0, 10.0), (0.05, 3.0), (7.0, 1.0)] {
            let mut grid = SpatialHash::new(cell);
            let mut points: Vec<Option<Vec3>> = scatter(400, extent, Vec3::new(-3.0, 1.0, -0.5))
                .into_iter()
                .map(Some)
                .collect();
            for (i, p) in points.iter().enumerate() {
                grid.set(i as u32, *p);
            }
            let queries = scatter(60, extent * 1.6, Vec3::splat(-extent * 0.3 - 3.0));
            for round in 0..5u32 {
                for q in &queries {
                    assert_eq!(
                        grid_nearest(&grid, &points, *q),
                        brute(&points, *q),
                        "cell {cell}, round {round}, query {q}"
                    );
                }
                // Move a third, remove a tenth, bring back what was removed.
                for (i, point) in points.iter_mut().enumerate() {
                    let k = (i as u32).wrapping_mul(2_654_435_761).wrapping_add(round) % 30;
                    let p = match (k, *point) {
                        (0..=2, _) => None,
                        (_, None) => Some(Vec3::splat(i as f32 * 0.01)),
                        (3..=12, Some(p)) => Some(p + Vec3::new(0.7, -1.3, 0.2) * (k as f32 * 0.1)),
                        (_, p) => p,
                    };
                    *point = p;
                    grid.set(i as u32, p);
                }
                assert_eq!(grid.len(), points.iter().flatten().count());
                check_lists(&grid);
            }
        }
    }

    #[test]
    fn ties_go_to_the_lower_key_and_the_given_best_counts() {
        let mut grid = SpatialHash::new(1.0);
        // Two points at the same distance from the origin, in other cubes.
        grid.set(7, Some(Vec3::new(2.5, 0.0, 0.0)));
        grid.set(3, Some(Vec3::new(-2.5, 0.0, 0.0)));
        let pts = |id: u32| match id {
            7 => Some(Vec3::new(2.5, 0.0, 0.0)),
            _ => Some(Vec3::new(-2.5, 0.0, 0.0)),
        };
        let measure = |id: u32| pts(id).map(|p| (p.length(), id));
        assert_eq!(grid.nearest(Vec3::ZERO, None, measure), Some((2.5, 3)));
        // A closer answer from elsewhere stands; an equal one with a lower key too.
        assert_eq!(
            grid.nearest(Vec3::ZERO, Some((1.0, 99)), measure),
            Some((1.0, 99))
        );
        assert_eq!(
            grid.nearest(Vec3::ZERO, Some((2.5, 1)), measure),
            Some((2.5, 1))
        );
        // Skipped ids are not answers.
        assert_eq!(grid.nearest(Vec3::ZERO, None, |_| None), None);
    }

    #[test]
    fn points_on_cube_faces_and_far_away_are_found() {
        let mut grid = SpatialHash::new(0.25);
        let points = [
            Some(Vec3::new(0.25, 0.5, 0.75)),
            Some(Vec3::new(-0.25, -0.0, 1.0e7)),
            Some(Vec3::new(3.0e9, 0.0, 0.0)),
            Some(Vec3::new(0.5, 0.5, 0.5)),
        ];
        for (i, p) in points.iter().enumerate() {
            grid.set(i as u32, *p);
        }
        for q in [
            Vec3::new(0.25, 0.5, 0.75),
            Vec3::new(0.2499999, 0.5, 0.5),
            Vec3::new(0.0, 0.0, 9.0e6),
            Vec3::new(2.9e9, 1.0, 0.0),
            Vec3::new(-1.0e30, 0.0, 0.0),
            Vec3::new(1.0e3, -1.0e3, 2.0),
        ] {
            assert_eq!(grid_nearest(&grid, &points, q), brute(&points, q), "{q}");
        }
    }

    #[test]
    fn far_from_the_origin_a_query_measures_only_the_points_near_it() {
        // A 20 m lattice of points 0.5 m apart, 10⁶ m out (f32 spacing
        // there: 1/16 m), in 1 m cubes: a query next to a point stops after
        // the rings around its own cube (at most 27 cubes of 8 points).
        let offset = Vec3::new(1.0e6, -1.0e6, 1.0e6);
        let mut grid = SpatialHash::new(1.0);
        let mut points = Vec::new();
        for i in 0..40 * 40 * 40u32 {
            let p = offset
                + Vec3::new((i % 40) as f32, ((i / 40) % 40) as f32, (i / 1600) as f32) * 0.5;
            grid.set(i, Some(p));
            points.push(Some(p));
        }
        for q in [
            Vec3::new(10.1, 10.2, 10.3),
            Vec3::new(3.0, 17.75, 0.5),
            Vec3::splat(19.4),
        ] {
            let q = offset + q;
            let mut measured = 0;
            let got = grid.nearest(q, None, |id| {
                measured += 1;
                points[id as usize].map(|p| (p.distance(q), id))
            });
            assert_eq!(got, brute(&points, q), "{q}");
            assert!(measured <= 27 * 8, "{measured} points measured for {q}");
        }
    }

    #[test]
    fn an_empty_grid_and_removed_ids_answer_nothing() {
        let mut grid = SpatialHash::new(1.0);
        assert_eq!(grid.nearest(Vec3::ZERO, None, |_| Some((0.0, 0))), None);
        grid.set(4, Some(Vec3::ONE));
        grid.set(4, None);
        grid.set(9, None);
        assert_eq!(grid.len(), 0);
        assert_eq!(grid.nearest(Vec3::ZERO, None, |_| Some((0.0, 0))), None);
    }
}
