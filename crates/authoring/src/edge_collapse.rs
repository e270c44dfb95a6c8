//! Collapsing short edges and flattening thin triangles of a carved piece
//! (issue 17, item 2).
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
//!   to the midpoint (on every plane both lie on). So every cap stays flat
//!   and in its plane, and a cap loses or gains only the thin triangle
//!   along its rim that the collapsed edge bounded.
//! * **Both sides of a cut agree.** The decision depends only on positions
//!   and on which planes a vertex lies on, which are the same in the two
//!   pieces that share a cut face; so both collapse the same rim edges the
//!   same way and their caps keep covering the same region (bond area = cap
//!   area on both sides). KNOWN GAP (WIP): the checks (link condition,
//!   turned-over triangles, flips) look at each piece's own triangulation,
//!   which differs between the two sides, so the two sides can still decide
//!   differently at a cap's rim: tests/stress.rs, Spot, finds two flat caps
//!   of one interface 3.1e-7 m² (1.8e-4) apart.
//! * **Topology.** The link condition (the two ends share exactly the two
//!   opposite vertices of the edge's triangles), no duplicate triangle
//!   after the collapse, and no triangle around the moved vertices turned
//!   over or flattened. Where a diagonal inside a flat cap is in the way
//!   (it closes a third common neighbour, or its thin triangle would turn
//!   over), it is flipped first, which changes no geometry.
//! * **Last resort.** Short edges between vertices on different planes (two
//!   corners of a cell a few µm apart, where five sites are nearly on one
//!   sphere) are collapsed in a second, forced pass onto the point nearest
//!   the midpoint on every plane of both ends (each cap tag's plane fitted
//!   to its flat triangles) when those planes meet within the edge length,
//!   so caps stay flat; else to the midpoint (or either end), moving a
//!   vertex off a plane by less than the edge length;
//!   a short edge still stuck in a tight cluster of tiny faces has its
//!   shortest neighbouring edge (below 4 × the length) collapsed first.
//!
//! Then triangles whose height over their longest edge is below
//! [`THIN_HEIGHT_RATIO`] × the length are removed by flipping that edge
//! towards the neighbour across it and moving the apex onto it (the apex
//! moves by less than the height; it stays on its planes when the edge
//! lies on them, else only in the forced pass).
//!
//! Tolerances (see [`MIN_EDGE_FRACTION`](crate::MIN_EDGE_FRACTION) and
//! [`MIN_AREA_FRACTION`](crate::MIN_AREA_FRACTION)): fracture calls this
//! with `min_length` = 1e-5 × the mesh's bounding-box diagonal (m) plus 4
//! f32 ulps of the largest coordinate, so after rounding to f32 no edge is
//! shorter than 1e-5 × diagonal and, with thin triangles flattened, no
//! triangle is smaller than 1e-13 × diagonal² (m²).
//!
//! Edges are visited shortest first and triangles thinnest first (ties by
//! vertex index), in rounds until nothing changes, so the result is
//! deterministic.

use crate::hierarchy::PARENT_TAG_BASE;
use crate::piece::{EXTERIOR, Piece};
use glam::DVec3;

/// What [`collapse_short_edges`] did.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct CollapseStats {
    /// Edges collapsed.
    pub collapsed: u32,
    /// Thin triangles removed by moving their apex onto the opposite edge.
    pub flattened: u32,
    /// Of those, moves that took a vertex off one of its cut planes (the
    /// last resort, see the module docs).
    pub forced: u32,
    /// Short edges and thin triangles left because no move passed the
    /// checks.
    pub kept: u32,
}

/// Rounds of passes at most; each round usually ends the work.
const MAX_ROUNDS: usize = 8;

/// Triangles whose height is below this fraction of the shortest edge
/// length are flattened: with every edge at least that long, no triangle is
/// then smaller than half of this fraction times the length squared.
pub(crate) const THIN_HEIGHT_RATIO: f64 = 1e-2;

/// Removes from the closed surface `piece` every edge shorter than
/// `min_length` (m) and every triangle with a height below it, as
/// described in the module docs, then drops the removed triangles and
/// unused vertices (remaining vertices keep their order). Triangles keep
/// their tags.
pub(crate) fn collapse_short_edges(piece: &mut Piece, min_length: f64) -> CollapseStats {
    let mut stats = CollapseStats::default();
    let min2 = min_length * min_length;
    if short_edges_of(&piece.triangles, &piece.positions, |_| true, min2).is_empty()
        && thin_triangles_of(&piece.triangles, &piece.positions, |_| true, min_length).is_empty()
    {
        return stats;
    }
    let mut mesh = Mesh::new(piece, min_length);
    for _ in 0..MAX_ROUNDS {
        let mut changed = mesh.pass(min_length, false, &mut stats);
        if !changed {
            changed = mesh.pass(min_length, true, &mut stats);
        }
        if !changed {
            break;
        }
    }
    stats.kept = (mesh.short_edges(min2).len() + mesh.thin_triangles(min_length).len()) as u32;
    mesh.write_back(piece);
    stats
}

/// Undirected edges `(length², lo, hi)` shorter than `√min2` of the
/// triangles `live`, shortest first, ties by index. On a closed oriented
/// surface every edge is used once in each direction, so taking only
/// `lo → hi` lists it once.
fn short_edges_of(
    triangles: &[[u32; 3]],
    positions: &[DVec3],
    live: impl Fn(usize) -> bool,
    min2: f64,
) -> Vec<(f64, u32, u32)> {
    let mut out = Vec::new();
    for (k, t) in triangles.iter().enumerate() {
        if !live(k) {
            continue;
        }
        for e in 0..3 {
            let (a, b) = (t[e], t[(e + 1) % 3]);
            if a < b {
                let d2 = positions[a as usize].distance_squared(positions[b as usize]);
                if d2 < min2 {
                    out.push((d2, a, b));
                }
            }
        }
    }
    out.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then((x.1, x.2).cmp(&(y.1, y.2))));
    out
}

/// Triangles `(height, apex, x, y)` of `live` whose height over their
/// longest edge `x`–`y` is below [`THIN_HEIGHT_RATIO`] × `min_length` while
/// all edges are at least `min_length` long (shorter edges are collapsed
/// instead), thinnest first, ties by vertex indices.
fn thin_triangles_of(
    triangles: &[[u32; 3]],
    positions: &[DVec3],
    live: impl Fn(usize) -> bool,
    min_length: f64,
) -> Vec<(f64, u32, u32, u32)> {
    let mut out = Vec::new();
    for (k, t) in triangles.iter().enumerate() {
        if !live(k) {
            continue;
        }
        let p = t.map(|i| positions[i as usize]);
        let len2 = [0, 1, 2].map(|e| p[e].distance_squared(p[(e + 1) % 3]));
        if len2.iter().any(|&l| l < min_length * min_length) {
            continue;
        }
        // Longest edge e = t[e]–t[e+1], apex t[e+2].
        let e = (0..3).fold(0, |m, e| if len2[e] > len2[m] { e } else { m });
        let height = (p[1] - p[0]).cross(p[2] - p[0]).length() / len2[e].sqrt();
        if height < THIN_HEIGHT_RATIO * min_length {
            out.push((height, t[(e + 2) % 3], t[e], t[(e + 1) % 3]));
        }
    }
    out.sort_unstable_by(|a, b| {
        a.0.total_cmp(&b.0)
            .then((a.1, a.2, a.3).cmp(&(b.1, b.2, b.3)))
    });
    out
}

/// The plane `(tag, unit normal, offset)` of each cap tag of `piece` whose
/// triangles all lie within `tolerance` (m) of their area-weighted plane,
/// ascending by tag.
fn cap_planes(piece: &Piece, tolerance: f64) -> Vec<(u32, DVec3, f64)> {
    let mut out = Vec::new();
    for tag in piece.cap_tags() {
        let tris = || {
            piece
                .triangles
                .iter()
                .zip(&piece.tags)
                .filter(move |(_, g)| **g == tag)
                .map(|(t, _)| t.map(|i| piece.positions[i as usize]))
        };
        let (mut normal, mut moment, mut area) = (DVec3::ZERO, DVec3::ZERO, 0.0);
        for [a, b, c] in tris() {
            let n = (b - a).cross(c - a);
            normal += n;
            let at = 0.5 * n.length();
            area += at;
            moment += (a + b + c) * (at / 3.0);
        }
        let Some(n) = normal.try_normalize() else {
            continue;
        };
        if area <= 0.0 {
            continue;
        }
        let d = n.dot(moment / area);
        if tris().all(|p| p.iter().all(|v| (n.dot(*v) - d).abs() <= tolerance)) {
            out.push((tag, n, d));
        }
    }
    out
}

/// Outcome of one collapse attempt.
enum Attempt {
    Done,
    Blocked,
    /// A cap diagonal was flipped out of the way: try again.
    Flipped,
}

/// A piece with vertex → triangle adjacency, edited in place.
struct Mesh {
    positions: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
    tags: Vec<u32>,
    alive: Vec<bool>,
    /// Triangles around each vertex (live ones only).
    around: Vec<Vec<u32>>,
    /// The plane `(tag, unit normal, offset)` of each cap tag whose
    /// triangles are flat (all vertices within `1e-3` × the collapse
    /// length of the area-weighted plane), ascending by tag.
    planes: Vec<(u32, DVec3, f64)>,
    /// The collapse length, m.
    min_length: f64,
}

impl Mesh {
    fn new(piece: &Piece, min_length: f64) -> Self {
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
            planes: cap_planes(piece, 1e-3 * min_length),
            min_length,
        }
    }

    /// The point nearest `target` on the fitted planes of the cap tags
    /// `tags`, if those planes meet within `reach` (m) of it.
    fn onto_planes(&self, tags: &[u32], target: DVec3, reach: f64) -> Option<DVec3> {
        let planes: Vec<(DVec3, f64)> = tags
            .iter()
            .map(|t| {
                let k = self.planes.binary_search_by_key(t, |p| p.0).ok()?;
                Some((self.planes[k].1, self.planes[k].2))
            })
            .collect::<Option<_>>()?;
        // Alternating projections onto the planes converge to the nearest
        // common point when the planes meet at reasonable angles.
        let mut x = target;
        for _ in 0..64 {
            let mut worst: f64 = 0.0;
            for &(n, d) in &planes {
                let r = n.dot(x) - d;
                worst = worst.max(r.abs());
                x -= n * r;
            }
            if worst <= 1e-15 * (1.0 + x.abs().max_element()) {
                break;
            }
        }
        let on_all = planes
            .iter()
            .all(|&(n, d)| (n.dot(x) - d).abs() <= 1e-12 * (1.0 + x.abs().max_element()));
        (on_all && x.distance(target) <= reach).then_some(x)
    }

    fn short_edges(&self, min2: f64) -> Vec<(f64, u32, u32)> {
        short_edges_of(&self.triangles, &self.positions, |k| self.alive[k], min2)
    }

    fn thin_triangles(&self, min_length: f64) -> Vec<(f64, u32, u32, u32)> {
        thin_triangles_of(
            &self.triangles,
            &self.positions,
            |k| self.alive[k],
            min_length,
        )
    }

    /// One pass over the short edges, then one over the thin triangles;
    /// `forced` allows moves off a cut plane. True if anything changed.
    fn pass(&mut self, min_length: f64, forced: bool, stats: &mut CollapseStats) -> bool {
        let min2 = min_length * min_length;
        let mut changed = false;
        for (_, a, b) in self.short_edges(min2) {
            if self.collapse(a, b, min2, forced) {
                stats.collapsed += 1;
                stats.forced += u32::from(forced);
                changed = true;
            } else if forced && self.collapse_nearby(a, b, min2) {
                // A tight cluster of tiny faces: one of its other small
                // edges goes first, and the next round tries again.
                stats.collapsed += 1;
                stats.forced += 1;
                changed = true;
            }
        }
        for (_, v, x, y) in self.thin_triangles(min_length) {
            if self.flatten(v, x, y, min_length, forced) {
                stats.flattened += 1;
                stats.forced += u32::from(forced);
                changed = true;
            }
        }
        changed
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

    /// True when `v` lies on a cap of the parent piece in a hierarchy's
    /// refinement: the pieces on the other side of that cap were refined
    /// separately and cannot make the same moves, so `v` stays put.
    fn locked(&self, v: u32) -> bool {
        self.around[v as usize].iter().any(|&t| {
            let tag = self.tags[t as usize];
            tag != EXTERIOR && tag & PARENT_TAG_BASE != 0
        })
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

    /// The two live triangles on edge `a`–`b`, or `None` when the edge is
    /// gone or not manifold.
    fn edge_triangles(&self, a: u32, b: u32) -> Option<[u32; 2]> {
        let mut on_edge = self.around[a as usize]
            .iter()
            .copied()
            .filter(|&t| self.triangles[t as usize].contains(&b));
        let pair = [on_edge.next()?, on_edge.next()?];
        on_edge.next().is_none().then_some(pair)
    }

    /// The vertex of triangle `t` that is neither `a` nor `b`.
    fn opposite(&self, t: u32, a: u32, b: u32) -> u32 {
        let tri = self.triangles[t as usize];
        tri.into_iter().find(|&v| v != a && v != b).unwrap_or(a)
    }

    /// False if moving the vertices `moved` to `target` turns over or
    /// flattens one of the triangles around them other than `skip`.
    fn moves_cleanly(&self, moved: &[u32], target: DVec3, skip: &[u32]) -> bool {
        self.turned_over(moved, target, skip).is_none()
    }

    /// The first cap triangle around `moved` (other than `skip`), with its
    /// moved vertex, larger than `min_length`² that moving `moved` to
    /// `target` tilts out of its fitted plane by more than about 0.25°
    /// (1 − cos above 1e-5) while moving one of its vertices off that
    /// plane (by more than 1e-3 × `min_length`). The forced pass may move a vertex off its planes only where
    /// that leaves the caps flat to well within what "coplanar" means to a
    /// consumer, or tilts only triangles below `min_length`² (1e-10 ×
    /// diagonal² in fracture): bond area = cap area.
    fn tilted(&self, moved: &[u32], target: DVec3, skip: &[u32]) -> Option<(u32, u32)> {
        let place = |v: u32| {
            if moved.contains(&v) {
                target
            } else {
                self.positions[v as usize]
            }
        };
        moved
            .iter()
            .flat_map(|&v| self.around[v as usize].iter().map(move |&t| (t, v)))
            .filter(|(t, _)| !skip.contains(t))
            .find(|&(t, _)| {
                let tag = self.tags[t as usize];
                let Ok(k) = self.planes.binary_search_by_key(&tag, |p| p.0) else {
                    return false;
                };
                let (n, d) = (self.planes[k].1, self.planes[k].2);
                let q = self.triangles[t as usize].map(place);
                let normal = (q[1] - q[0]).cross(q[2] - q[0]);
                // Only a real move off the plane (the fit's tolerance).
                let off = (n.dot(target) - d).abs() > 1e-3 * self.min_length;
                off && normal.normalize_or_zero().dot(n) < 1.0 - 1e-5
            })
    }

    /// The first triangle around `moved` (other than `skip`) that moving
    /// them to `target` turns over or flattens, with its moved vertex.
    fn turned_over(&self, moved: &[u32], target: DVec3, skip: &[u32]) -> Option<(u32, u32)> {
        let place = |v: u32| {
            if moved.contains(&v) {
                target
            } else {
                self.positions[v as usize]
            }
        };
        moved
            .iter()
            .flat_map(|&v| self.around[v as usize].iter().map(move |&t| (t, v)))
            .filter(|(t, _)| !skip.contains(t))
            .find(|&(t, _)| {
                let tri = self.triangles[t as usize];
                let p = tri.map(|v| self.positions[v as usize]);
                let q = tri.map(place);
                let before = (p[1] - p[0]).cross(p[2] - p[0]);
                let after = (q[1] - q[0]).cross(q[2] - q[0]);
                let longest2 = (q[1] - q[0])
                    .length_squared()
                    .max((q[2] - q[1]).length_squared())
                    .max((q[0] - q[2]).length_squared());
                !(before.dot(after) > 0.0 && after.length_squared() > 1e-24 * longest2 * longest2)
            })
    }

    /// Collapses edge `a`–`b` if it still exists, is shorter than `√min2`
    /// and passes the checks of the module docs (`forced`: both ends to the
    /// midpoint, or failing that to either end, whatever their planes).
    /// Flips of diagonals inside flat caps that clear the way are kept even
    /// when the collapse still fails (they change no geometry).
    fn collapse(&mut self, a: u32, b: u32, min2: f64, forced: bool) -> bool {
        let (pa, pb) = (self.positions[a as usize], self.positions[b as usize]);
        if pa.distance_squared(pb) >= min2 {
            return false;
        }
        for _ in 0..6 {
            match self.try_collapse(a, b, forced) {
                Attempt::Done => return true,
                Attempt::Blocked => return false,
                Attempt::Flipped => {}
            }
        }
        false
    }

    /// Last resort for a short edge `a`–`b` that cannot be collapsed:
    /// collapses (forced) the shortest other edge at `a` or `b` that is
    /// shorter than 4 `√min2`, if any can be.
    fn collapse_nearby(&mut self, a: u32, b: u32, min2: f64) -> bool {
        let mut near: Vec<(f64, u32, u32)> = Vec::new();
        for v in [a, b] {
            for w in self.neighbours(v) {
                if w == a || w == b {
                    continue;
                }
                let d2 = self.positions[v as usize].distance_squared(self.positions[w as usize]);
                if d2 < 16.0 * min2 {
                    near.push((d2, v, w));
                }
            }
        }
        near.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then((x.1, x.2).cmp(&(y.1, y.2))));
        near.into_iter()
            .any(|(_, v, w)| self.collapse(v, w, 16.0 * min2, true))
    }

    fn try_collapse(&mut self, a: u32, b: u32, forced: bool) -> Attempt {
        let (pa, pb) = (self.positions[a as usize], self.positions[b as usize]);
        let Some(on_edge) = self.edge_triangles(a, b) else {
            return Attempt::Blocked;
        };
        let (sa, sb) = (self.planes(a), self.planes(b));
        let contains = |big: &[u32], small: &[u32]| small.iter().all(|s| big.contains(s));
        // Where the merged vertex may go, best first: the midpoint when
        // both ends lie on the same planes (or when forced), else the end
        // on more planes.
        let (keep, gone) = (a.min(b), a.max(b));
        let (la, lb) = (self.locked(a), self.locked(b));
        let candidates: Vec<DVec3>;
        let targets: &[DVec3] = if la && lb {
            return Attempt::Blocked;
        } else if la && (forced || contains(&sa, &sb)) {
            &[pa]
        } else if lb && (forced || contains(&sb, &sa)) {
            &[pb]
        } else if la || lb {
            return Attempt::Blocked;
        } else if sa == sb {
            &[(pa + pb) * 0.5, pa, pb]
        } else if forced {
            // Onto the crossing of all the planes of both ends when they
            // meet nearby (caps stay flat); else onto all but one of them,
            // or one of them (the tilt check below then decides which caps
            // may bend), else the midpoint or an end.
            let mid = (pa + pb) * 0.5;
            let mut tags: Vec<u32> = sa.iter().chain(&sb).copied().collect();
            tags.sort_unstable();
            tags.dedup();
            let reach = 8.0 * self.min_length;
            let mut c: Vec<DVec3> = self.onto_planes(&tags, mid, reach).into_iter().collect();
            if tags.len() > 1 {
                for k in 0..tags.len() {
                    let mut rest = tags.clone();
                    rest.remove(k);
                    c.extend(self.onto_planes(&rest, mid, reach));
                }
                if tags.len() > 2 {
                    for t in &tags {
                        c.extend(self.onto_planes(std::slice::from_ref(t), mid, reach));
                    }
                }
            }
            c.extend([mid, pa, pb]);
            candidates = c;
            &candidates
        } else if contains(&sb, &sa) {
            &[pb]
        } else if contains(&sa, &sb) {
            &[pa]
        } else {
            return Attempt::Blocked;
        };
        // Link condition: the common neighbours are the two opposite
        // vertices. A third one, c, closes a cycle a–b–c that the collapse
        // would pinch; where a–c or b–c is a diagonal inside one flat cap,
        // flipping it away lifts the obstacle.
        let opposite = on_edge.map(|t| self.opposite(t, a, b));
        if opposite[0] == opposite[1] {
            return Attempt::Blocked;
        }
        let (na, nb) = (self.neighbours(a), self.neighbours(b));
        if let Some(&c) = na
            .iter()
            .find(|v| nb.binary_search(v).is_ok() && !opposite.contains(v))
        {
            return if self.flip(a, c) || self.flip(b, c) {
                Attempt::Flipped
            } else {
                Attempt::Blocked
            };
        }
        // No duplicate triangle (a tetrahedron would fold flat).
        let mut sets: Vec<[u32; 3]> = Vec::new();
        for &t in self.around[a as usize]
            .iter()
            .chain(&self.around[b as usize])
        {
            if on_edge.contains(&t) {
                continue;
            }
            let mut set = self.triangles[t as usize].map(|v| if v == gone { keep } else { v });
            set.sort_unstable();
            if sets.contains(&set) {
                return Attempt::Blocked;
            }
            sets.push(set);
        }
        // No triangle turned over. A thin one next to the edge can turn
        // over when its apex moves; flipping its long edge inside a flat
        // cap clears the way.
        let Some(target) = targets.iter().copied().find(|&t| {
            self.turned_over(&[a, b], t, &on_edge).is_none()
                && (!forced || self.tilted(&[a, b], t, &on_edge).is_none())
        }) else {
            // A long thin cap triangle that a forced move would tilt: its
            // long edge flipped inside the flat cap, the move tilts less.
            if forced {
                for &x in targets {
                    if self.turned_over(&[a, b], x, &on_edge).is_none()
                        && let Some((t, apex)) = self.tilted(&[a, b], x, &on_edge)
                    {
                        let tri = self.triangles[t as usize];
                        let k = (0..3).find(|&k| tri[k] == apex).unwrap_or(0);
                        if self.flip(tri[(k + 1) % 3], tri[(k + 2) % 3]) {
                            return Attempt::Flipped;
                        }
                    }
                }
            }
            let Some((t, apex)) = self.turned_over(&[a, b], targets[0], &on_edge) else {
                return Attempt::Blocked;
            };
            let tri = self.triangles[t as usize];
            let k = (0..3).find(|&k| tri[k] == apex).unwrap_or(0);
            return if self.flip(tri[(k + 1) % 3], tri[(k + 2) % 3]) {
                Attempt::Flipped
            } else {
                Attempt::Blocked
            };
        };

        self.positions[keep as usize] = target;
        for t in on_edge {
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
        Attempt::Done
    }

    /// Flips edge `p`–`q` when both its triangles belong to the same cap
    /// (so lie in one plane) and the quadrilateral they form is convex:
    /// the surface is unchanged. Returns whether it flipped.
    fn flip(&mut self, p: u32, q: u32) -> bool {
        let Some([t1, t2]) = self.edge_triangles(p, q) else {
            return false;
        };
        let tag = self.tags[t1 as usize];
        if tag == EXTERIOR || self.tags[t2 as usize] != tag {
            return false;
        }
        // Orient so that t1 runs p → q.
        let tri1 = self.triangles[t1 as usize];
        let forward = (0..3).any(|k| tri1[k] == p && tri1[(k + 1) % 3] == q);
        let (p, q) = if forward { (p, q) } else { (q, p) };
        let (r, s) = (self.opposite(t1, p, q), self.opposite(t2, p, q));
        if r == s || self.neighbours(r).binary_search(&s).is_ok() {
            return false;
        }
        let pos = |v: u32| self.positions[v as usize];
        let normal = (pos(q) - pos(p)).cross(pos(r) - pos(p));
        let new1 = [p, s, r];
        let new2 = [s, q, r];
        for t in [new1, new2] {
            let n = (pos(t[1]) - pos(t[0])).cross(pos(t[2]) - pos(t[0]));
            if n.dot(normal) <= 0.0 {
                return false;
            }
        }
        self.triangles[t1 as usize] = new1;
        self.triangles[t2 as usize] = new2;
        // t1 lost q and gained s; t2 lost p and gained r.
        self.around[q as usize].retain(|&t| t != t1);
        self.around[s as usize].push(t1);
        self.around[p as usize].retain(|&t| t != t2);
        self.around[r as usize].push(t2);
        true
    }

    /// Removes the thin triangle `(v, x, y)` (apex `v` over its longest
    /// edge `x`–`y`) by flipping `x`–`y` to `v`–`w` (`w` the apex of the
    /// triangle across `x`–`y`) and moving `v` onto `x`–`y`, at the foot of
    /// its height. The edge lies on the planes of its two triangles; unless
    /// `forced`, `v` must lie on no other plane.
    fn flatten(&mut self, v: u32, x: u32, y: u32, min_length: f64, forced: bool) -> bool {
        let Some(on_edge) = self.edge_triangles(x, y) else {
            return false;
        };
        let Some(&thin) = on_edge
            .iter()
            .find(|&&t| self.triangles[t as usize].contains(&v))
        else {
            return false;
        };
        let other = if on_edge[0] == thin {
            on_edge[1]
        } else {
            on_edge[0]
        };
        let w = self.opposite(other, x, y);
        let (px, py, pv) = (
            self.positions[x as usize],
            self.positions[y as usize],
            self.positions[v as usize],
        );
        let s = (pv - px).dot(py - px) / px.distance_squared(py);
        let foot = px + (py - px) * s;
        if !(s > 0.0 && s < 1.0) || pv.distance(foot) >= min_length || w == v {
            return false;
        }
        if self.locked(v) {
            return false;
        }
        if !forced {
            let edge_planes = [self.tags[thin as usize], self.tags[other as usize]];
            if !self.planes(v).iter().all(|p| edge_planes.contains(p)) {
                return false;
            }
        }
        // The new edge v–w must not exist yet.
        if self.neighbours(v).binary_search(&w).is_ok() {
            return false;
        }
        if !self.moves_cleanly(&[v], foot, &[thin]) {
            return false;
        }
        // The halves of `other` (v at the foot) keep its orientation; they
        // must not be flat themselves.
        let tri = self.triangles[other as usize];
        let halves = [
            tri.map(|u| if u == x { v } else { u }),
            tri.map(|u| if u == y { v } else { u }),
        ];
        let place = |u: u32| {
            if u == v {
                foot
            } else {
                self.positions[u as usize]
            }
        };
        for h in &halves {
            let q = h.map(place);
            if (q[1] - q[0]).cross(q[2] - q[0]).length_squared() <= 0.0 {
                return false;
            }
        }

        self.positions[v as usize] = foot;
        let tag = self.tags[other as usize];
        // `thin` becomes the half without x, `other` the half without y.
        self.triangles[thin as usize] = halves[0];
        self.tags[thin as usize] = tag;
        self.triangles[other as usize] = halves[1];
        self.around[x as usize].retain(|&t| t != thin);
        self.around[y as usize].retain(|&t| t != other);
        self.around[v as usize].push(other);
        self.around[w as usize].push(thin);
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
        assert!((volume - 1.0).abs() < 1e-6, "{volume}");
    }

    #[test]
    fn a_tetrahedron_is_not_folded_flat() {
        let mut piece = Piece {
            positions: vec![DVec3::ZERO, DVec3::new(1e-6, 0.0, 0.0), DVec3::Y, DVec3::Z],
            triangles: vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
            tags: vec![EXTERIOR; 4],
        };
        let mut before = piece.clone();
        before.compact();
        let stats = collapse_short_edges(&mut piece, 1e-5);
        assert_eq!(piece, before, "{stats:?}");
    }
}
