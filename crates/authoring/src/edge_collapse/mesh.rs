//! A carved piece with vertex → triangle adjacency, edited in place by
//! the collapse passes. Every edit is split into a check (`link`, `fits`,
//! `flatten_plan`) and an application (`apply_collapse`, `move_vertex`,
//! `apply_flatten`), so the shared pass (`shared.rs`) can check one move
//! in every piece that holds its vertices before making it in all of them.

use super::{CollapseStats, THIN_HEIGHT_RATIO, short_edges_of, thin_triangles_of};
use crate::piece::{EXTERIOR, Piece};
use glam::DVec3;

/// Two surface triangles whose fourth point lies within this fraction of
/// the shortest edge length of the other's plane are parts of one triangle
/// of the source mesh (its cuts' points are computed on its edges, so they
/// stay in its plane to rounding), and an edge between them may be
/// flipped: 1e-6, 2.6e-11 m on Spot, far below any crease of a real mesh
/// (and below what any flip may move the surface).
const COPLANAR_FRACTION: f64 = 1e-6;

/// A forced move may tilt a cap triangle out of its plane by at most
/// about 0.5° (1 − cos = 4e-5). A consumer that measures a cut face takes
/// a triangle as part of it when its normal is within that of the face's
/// (the fracture tests allow 0.8°), and both sides of a cut make the same
/// move (`shared.rs`), so their faces still coincide.
///
/// The bound holds for the move that takes a vertex off its plane, and
/// (until [`Mesh::release_tilt`]) for a later in-plane move that narrows
/// a triangle holding such a vertex past it: without the latter, Bob at
/// 2,000 sites, seed 2 had cap triangles tilted 0.9° and 1.6°. The shared
/// pass's last rounds release it (a short edge breaks the render mesh, a
/// tilted triangle is still part of its cap): checking every move of
/// every round (tried on 2026-12-04) left a short edge stuck in Spot at
/// 500 sites, seed 6.
const MAX_TILT_COSINE: f64 = 1.0 - 4e-5;

/// A checked flattening of a thin triangle (see [`Mesh::flatten_plan`]).
#[derive(Copy, Clone, Debug)]
pub(super) struct Flatten {
    /// The apex that moves, to `foot` on edge `x`–`y`.
    pub v: u32,
    x: u32,
    y: u32,
    /// The apex across `x`–`y`.
    w: u32,
    /// The thin triangle and the one across its long edge.
    pub thin: u32,
    other: u32,
    /// The two halves of `other` after the flip.
    halves: [[u32; 3]; 2],
    /// Where `v` goes, m.
    pub foot: DVec3,
}

/// Outcome of one collapse attempt.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Attempt {
    Done,
    Blocked,
    /// A cap diagonal was flipped out of the way: try again.
    Flipped,
}

/// A piece with vertex → triangle adjacency, edited in place.
pub(super) struct Mesh {
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
    /// Vertices that must not move (see [`Mesh::new`]).
    locked: Vec<bool>,
    /// Whether a move may not tilt further a cap triangle already tilted
    /// past [`MAX_TILT_COSINE`] (see [`Mesh::tilted`]).
    guard_tilt: bool,
}

impl Mesh {
    /// The mesh of `piece`; `locked` (one flag per vertex) marks vertices
    /// that must stay where they are: other vertices may move onto them,
    /// they never move.
    pub(super) fn new(piece: &Piece, min_length: f64, locked: Vec<bool>) -> Self {
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
            planes: super::cap_planes(piece, 1e-3 * min_length),
            min_length,
            locked,
            guard_tilt: true,
        }
    }

    /// Lets moves tilt cap triangles already tilted past the bound further
    /// (the shared pass's last rounds, see `shared.rs`).
    pub(super) fn release_tilt(&mut self) {
        self.guard_tilt = false;
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

    pub(super) fn short_edges(&self, min2: f64) -> Vec<(f64, u32, u32)> {
        short_edges_of(&self.triangles, &self.positions, |k| self.alive[k], min2)
    }

    pub(super) fn thin_triangles(&self, min_length: f64) -> Vec<(f64, u32, u32, u32)> {
        thin_triangles_of(
            &self.triangles,
            &self.positions,
            |k| self.alive[k],
            min_length,
        )
    }

    /// Rounds of [`Mesh::pass`], unforced first, until nothing changes
    /// (at most [`MAX_ROUNDS`](super::MAX_ROUNDS)); `stats.kept` is what is
    /// left.
    pub(super) fn run(&mut self, min_length: f64, stats: &mut CollapseStats) {
        for _ in 0..super::MAX_ROUNDS {
            let mut changed = self.pass(min_length, false, stats);
            if !changed {
                changed = self.pass(min_length, true, stats);
            }
            if !changed {
                break;
            }
        }
        stats.kept = self.leftovers(min_length);
    }

    /// Short edges and thin triangles left.
    pub(super) fn leftovers(&self, min_length: f64) -> u32 {
        (self.short_edges(min_length * min_length).len() + self.thin_triangles(min_length).len())
            as u32
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

    /// Whether `v` lies on the source surface (a triangle around it is
    /// exterior).
    pub(super) fn on_surface(&self, v: u32) -> bool {
        self.around[v as usize]
            .iter()
            .any(|&t| self.tags[t as usize] == EXTERIOR)
    }

    /// Distinct cap tags around `v`, ascending.
    pub(super) fn planes(&self, v: u32) -> Vec<u32> {
        let mut tags: Vec<u32> = self.around[v as usize]
            .iter()
            .map(|&t| self.tags[t as usize])
            .filter(|&g| g != EXTERIOR)
            .collect();
        tags.sort_unstable();
        tags.dedup();
        tags
    }

    /// Position of vertex `v`, m.
    pub(super) fn position(&self, v: u32) -> DVec3 {
        self.positions[v as usize]
    }

    /// For each flat cap around the vertices `moved`: its fitted plane
    /// `(unit normal, offset)` and a weight, 1 / the squared height of the
    /// moved vertex over the opposite edge in its narrowest triangle of
    /// that cap (how sharply the cap tilts when the vertex leaves it).
    pub(super) fn plane_constraints(&self, moved: &[u32]) -> Vec<(DVec3, f64, f64)> {
        let mut out: Vec<(u32, DVec3, f64, f64)> = Vec::new();
        for &v in moved {
            for &t in &self.around[v as usize] {
                let tag = self.tags[t as usize];
                let Ok(k) = self.planes.binary_search_by_key(&tag, |p| p.0) else {
                    continue;
                };
                let tri = self.triangles[t as usize];
                let i = (0..3).find(|&i| tri[i] == v).unwrap_or(0);
                let (p, q, r) = (
                    self.positions[v as usize],
                    self.positions[tri[(i + 1) % 3] as usize],
                    self.positions[tri[(i + 2) % 3] as usize],
                );
                let base = q.distance(r);
                if base <= 0.0 {
                    continue;
                }
                let height = (q - p).cross(r - p).length() / base;
                let w = 1.0 / (height * height).max(self.min_length * self.min_length);
                match out.iter_mut().find(|o| o.0 == tag) {
                    Some(o) => o.3 = o.3.max(w),
                    None => out.push((tag, self.planes[k].1, self.planes[k].2, w)),
                }
            }
        }
        out.into_iter().map(|(_, n, d, w)| (n, d, w)).collect()
    }

    /// True when no live triangle uses `v` (collapsed away).
    pub(super) fn is_dead(&self, v: u32) -> bool {
        self.around[v as usize].is_empty()
    }

    /// Squared distance between vertices `a` and `b`, m².
    pub(super) fn distance2(&self, a: u32, b: u32) -> f64 {
        self.positions[a as usize].distance_squared(self.positions[b as usize])
    }

    /// True when a live triangle has the vertices `v`, `x` and `y`.
    pub(super) fn has_triangle(&self, v: u32, x: u32, y: u32) -> bool {
        self.around[v as usize].iter().any(|&t| {
            let tri = self.triangles[t as usize];
            tri.contains(&x) && tri.contains(&y)
        })
    }

    /// True when `v` must stay where it is (see [`Mesh::new`]).
    pub(super) fn locked(&self, v: u32) -> bool {
        self.locked[v as usize]
    }

    /// Vertices sharing a triangle with `v`, ascending, without `v`.
    pub(super) fn neighbours(&self, v: u32) -> Vec<u32> {
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

    /// The triangles around the vertices `moved` other than `skip`, each
    /// with its moved vertex (a triangle with two moved vertices twice).
    fn around_moved<'a>(
        &'a self,
        moved: &'a [u32],
        skip: &'a [u32],
    ) -> impl Iterator<Item = (u32, u32)> + 'a {
        moved
            .iter()
            .flat_map(|&v| self.around[v as usize].iter().map(move |&t| (t, v)))
            .filter(|(t, _)| !skip.contains(t))
    }

    /// Whether moving `moved` to `target` (the triangles `skip` collapsing
    /// away) leaves the area of each cap around them as it was, to 1e-9 of
    /// the cap area they touch: the move slides a vertex along its cap's
    /// own boundary line, so the cap's region does not change.
    pub(super) fn keeps_cap_areas(&self, moved: &[u32], target: DVec3, skip: &[u32]) -> bool {
        let (changes, touched) = self.cap_area_changes(moved, target, skip);
        changes.iter().all(|&(_, d)| d.abs() <= 1e-9 * touched)
    }

    /// What moving `moved` to `target` (the triangles `skip` collapsing
    /// away) does to the caps around them: `(tag, area after − area
    /// before)` per cap tag (m², ascending by tag), and the area (m²) of
    /// the cap triangles it touches.
    pub(super) fn cap_area_changes(
        &self,
        moved: &[u32],
        target: DVec3,
        skip: &[u32],
    ) -> (Vec<(u32, f64)>, f64) {
        let mut tris: Vec<u32> = moved
            .iter()
            .flat_map(|&v| self.around[v as usize].iter().copied())
            .filter(|&t| self.tags[t as usize] != EXTERIOR)
            .collect();
        tris.sort_unstable();
        tris.dedup();
        let mut changes: Vec<(u32, f64)> = Vec::new();
        let mut touched = 0.0;
        for t in tris {
            let p = self.triangles[t as usize].map(|v| self.positions[v as usize]);
            let before = 0.5 * (p[1] - p[0]).cross(p[2] - p[0]).length();
            let after = if skip.contains(&t) {
                0.0
            } else {
                let q = self.placed(t, moved, target);
                0.5 * (q[1] - q[0]).cross(q[2] - q[0]).length()
            };
            touched += before;
            let tag = self.tags[t as usize];
            match changes.iter_mut().find(|a| a.0 == tag) {
                Some(a) => a.1 += after - before,
                None => changes.push((tag, after - before)),
            }
        }
        changes.sort_unstable_by_key(|c| c.0);
        (changes, touched)
    }

    /// The corners of triangle `t` once the vertices `moved` are at `target`.
    fn placed(&self, t: u32, moved: &[u32], target: DVec3) -> [DVec3; 3] {
        self.triangles[t as usize].map(|v| {
            if moved.contains(&v) {
                target
            } else {
                self.positions[v as usize]
            }
        })
    }

    /// The first cap triangle around `moved` (other than `skip`), with its
    /// moved vertex, that moving `moved` to `target` tilts out of its fitted
    /// plane by more than about 0.5° ([`MAX_TILT_COSINE`]) while moving one
    /// of its vertices off that plane (by more than 1e-3 × `min_length`;
    /// only `forced` moves do), or, unless released
    /// ([`Mesh::release_tilt`]), that an unforced move tilts past the
    /// bound and further than it was.
    /// The forced pass may move a vertex off its planes only where that
    /// leaves the caps flat to well within what "coplanar" means to a
    /// consumer: bond area = cap area.
    fn tilted(
        &self,
        moved: &[u32],
        target: DVec3,
        skip: &[u32],
        forced: bool,
    ) -> Option<(u32, u32)> {
        self.around_moved(moved, skip).find(|&(t, _)| {
            let tag = self.tags[t as usize];
            let Ok(k) = self.planes.binary_search_by_key(&tag, |p| p.0) else {
                return false;
            };
            let (n, d) = (self.planes[k].1, self.planes[k].2);
            let q = self.placed(t, moved, target);
            let after = (q[1] - q[0]).cross(q[2] - q[0]).normalize_or_zero().dot(n);
            if after >= MAX_TILT_COSINE {
                return false;
            }
            // Only a real move off the plane (the fit's tolerance).
            let off = (n.dot(target) - d).abs() > 1e-3 * self.min_length;
            if forced && off {
                return true;
            }
            // Or one that tilts further a triangle holding a vertex an
            // earlier move took off the plane.
            if !self.guard_tilt || forced {
                return false;
            }
            let p = self.triangles[t as usize].map(|v| self.positions[v as usize]);
            let before = (p[1] - p[0]).cross(p[2] - p[0]).normalize_or_zero().dot(n);
            after < before
        })
    }

    /// The first triangle around `moved` (other than `skip`) that moving
    /// them to `target` turns over or flattens, with its moved vertex.
    fn turned_over(&self, moved: &[u32], target: DVec3, skip: &[u32]) -> Option<(u32, u32)> {
        self.around_moved(moved, skip).find(|&(t, _)| {
            let p = self.triangles[t as usize].map(|v| self.positions[v as usize]);
            let q = self.placed(t, moved, target);
            let before = (p[1] - p[0]).cross(p[2] - p[0]);
            let after = (q[1] - q[0]).cross(q[2] - q[0]);
            let longest2 = (q[1] - q[0])
                .length_squared()
                .max((q[2] - q[1]).length_squared())
                .max((q[0] - q[2]).length_squared());
            let flat = |n: DVec3, l2: f64| n.length_squared() <= 1e-24 * l2 * l2;
            let was2 = (p[1] - p[0])
                .length_squared()
                .max((p[2] - p[1]).length_squared())
                .max((p[0] - p[2]).length_squared());
            if flat(before, was2) {
                // Already flat (collinear): it has no orientation of
                // its own to lose. It may stay flat or open up the way
                // the surface around it faces.
                return !(flat(after, longest2) || after.dot(self.facing(t)) > 0.0);
            }
            before.dot(after) <= 0.0 || flat(after, longest2)
        })
    }

    /// The way the surface around triangle `t` faces: its cap's fitted
    /// normal, else the area-weighted normal of the triangles sharing a
    /// vertex with it.
    fn facing(&self, t: u32) -> DVec3 {
        let tag = self.tags[t as usize];
        if let Ok(k) = self.planes.binary_search_by_key(&tag, |p| p.0) {
            return self.planes[k].1;
        }
        let mut n = DVec3::ZERO;
        for &v in &self.triangles[t as usize] {
            for &o in &self.around[v as usize] {
                if o != t {
                    let p = self.triangles[o as usize].map(|i| self.positions[i as usize]);
                    n += (p[1] - p[0]).cross(p[2] - p[0]);
                }
            }
        }
        n
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
        let Some(targets) = self.targets(a, b, forced) else {
            return Attempt::Blocked;
        };
        let on_edge = match self.link(a, b) {
            Ok(on_edge) => on_edge,
            Err(attempt) => return attempt,
        };
        match targets
            .iter()
            .find(|&&t| self.fits(&[a, b], t, forced, &on_edge))
        {
            Some(&t) => {
                self.apply_collapse(a, b, t);
                Attempt::Done
            }
            None => self.clear_way(&[a, b], &targets, forced, &on_edge),
        }
    }

    /// Where the merged vertex of edge `a`–`b` may go, best first, or
    /// `None` when it may go nowhere: the midpoint when both ends lie on
    /// the same planes (or when `forced`), else the end on more planes; a
    /// locked end stays.
    pub(super) fn targets(&self, a: u32, b: u32, forced: bool) -> Option<Vec<DVec3>> {
        let (pa, pb) = (self.positions[a as usize], self.positions[b as usize]);
        let (sa, sb) = (self.planes(a), self.planes(b));
        let contains = |big: &[u32], small: &[u32]| small.iter().all(|s| big.contains(s));
        let (la, lb) = (self.locked(a), self.locked(b));
        Some(if la && lb {
            return None;
        } else if la && (forced || contains(&sa, &sb)) {
            vec![pa]
        } else if lb && (forced || contains(&sb, &sa)) {
            vec![pb]
        } else if la || lb {
            return None;
        } else if sa == sb {
            vec![(pa + pb) * 0.5, pa, pb]
        } else if forced {
            // Onto the crossing of all the planes of both ends when they
            // meet nearby (caps stay flat); else onto all but one of them,
            // or one of them (the tilt check then decides which caps may
            // bend), else the midpoint or an end.
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
            c
        } else if contains(&sb, &sa) {
            vec![pb]
        } else if contains(&sa, &sb) {
            vec![pa]
        } else {
            return None;
        })
    }

    /// The topology checks of collapsing edge `a`–`b`: `Ok` with the edge's
    /// two triangles when it may collapse. The link condition: the common
    /// neighbours are the two opposite vertices; a third one, c, closes a
    /// cycle a–b–c that the collapse would pinch; where a–c or b–c is a
    /// diagonal inside one flat cap, it is flipped away
    /// (`Err(Flipped)`: check again). And no duplicate triangle after the
    /// collapse (a tetrahedron would fold flat).
    pub(super) fn link(&mut self, a: u32, b: u32) -> Result<[u32; 2], Attempt> {
        let Some(on_edge) = self.edge_triangles(a, b) else {
            return Err(Attempt::Blocked);
        };
        let opposite = on_edge.map(|t| self.opposite(t, a, b));
        if opposite[0] == opposite[1] {
            return Err(Attempt::Blocked);
        }
        let (na, nb) = (self.neighbours(a), self.neighbours(b));
        if let Some(&c) = na
            .iter()
            .find(|v| nb.binary_search(v).is_ok() && !opposite.contains(v))
        {
            return Err(if self.flip(a, c) || self.flip(b, c) {
                Attempt::Flipped
            } else {
                Attempt::Blocked
            });
        }
        let (keep, gone) = (a.min(b), a.max(b));
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
                return Err(Attempt::Blocked);
            }
            sets.push(set);
        }
        Ok(on_edge)
    }

    /// True if moving the vertices `moved` to `target` turns over or
    /// flattens no triangle around them other than `skip`, and tilts no
    /// cap triangle past the bound (see [`Mesh::tilted`]; only `forced`
    /// moves leave a plane).
    pub(super) fn fits(&self, moved: &[u32], target: DVec3, forced: bool, skip: &[u32]) -> bool {
        self.turned_over(moved, target, skip).is_none()
            && self.tilted(moved, target, skip, forced).is_none()
    }

    /// None of `targets` fits: flips, inside a flat cap, the long edge of
    /// the triangle in the way (a cap triangle the move tilts past the bound, or a
    /// thin triangle that the move turns over), so the move may fit on the
    /// next try (`Flipped`), or `Blocked`.
    pub(super) fn clear_way(
        &mut self,
        moved: &[u32],
        targets: &[DVec3],
        forced: bool,
        skip: &[u32],
    ) -> Attempt {
        for &x in targets {
            if self.turned_over(moved, x, skip).is_none()
                && let Some((t, apex)) = self.tilted(moved, x, skip, forced)
                && self.flip_opposite(t, apex)
            {
                return Attempt::Flipped;
            }
        }
        let Some(&first) = targets.first() else {
            return Attempt::Blocked;
        };
        match self.turned_over(moved, first, skip) {
            Some((t, apex)) if self.flip_opposite(t, apex) => Attempt::Flipped,
            _ => Attempt::Blocked,
        }
    }

    /// Flips the edge of triangle `t` opposite its vertex `apex`.
    fn flip_opposite(&mut self, t: u32, apex: u32) -> bool {
        let tri = self.triangles[t as usize];
        let k = (0..3).find(|&k| tri[k] == apex).unwrap_or(0);
        self.flip(tri[(k + 1) % 3], tri[(k + 2) % 3])
    }

    /// Collapses edge `a`–`b` (checked by [`Mesh::link`]) onto `target`:
    /// the lower index stays, at `target`, locked if either end was.
    pub(super) fn apply_collapse(&mut self, a: u32, b: u32, target: DVec3) {
        let Some(on_edge) = self.edge_triangles(a, b) else {
            return;
        };
        let (keep, gone) = (a.min(b), a.max(b));
        self.positions[keep as usize] = target;
        self.locked[keep as usize] |= self.locked[gone as usize];
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
    }

    /// Splits, at `p`, the edge of a triangle tagged `tag` that passes
    /// within `reach` of `p` strictly between its ends (each end farther
    /// than `reach` from `p`): the two triangles on it become four. Returns
    /// the new vertex, or `None` when no such edge exists or a new triangle
    /// would be thin (height below [`THIN_HEIGHT_RATIO`] × the collapse
    /// length: a thin triangle on the edge would become two,
    /// each harder to remove; on Bob at 2,000 sites, seeds 2 and 3, such
    /// splits left triangles below the area floor).
    pub(super) fn split_edge_at(&mut self, tag: u32, p: DVec3, reach: f64) -> Option<u32> {
        let mut found = None;
        'search: for (t, tri) in self.triangles.iter().enumerate() {
            if !self.alive[t] || self.tags[t] != tag {
                continue;
            }
            for e in 0..3 {
                let (a, b) = (tri[e], tri[(e + 1) % 3]);
                let (pa, pb) = (self.positions[a as usize], self.positions[b as usize]);
                let ab = pb - pa;
                let s = (p - pa).dot(ab) / ab.length_squared();
                if !(s > 0.0 && s < 1.0) {
                    continue;
                }
                if (pa + ab * s).distance(p) <= reach
                    && pa.distance(p) > reach
                    && pb.distance(p) > reach
                {
                    found = Some((a, b));
                    break 'search;
                }
            }
        }
        let (a, b) = found?;
        let on_edge = self.edge_triangles(a, b)?;
        // No new triangle may be thin.
        let thin = |q: [DVec3; 3]| height_over_longest(q) < THIN_HEIGHT_RATIO * self.min_length;
        for &t in &on_edge {
            let z = self.opposite(t, a, b);
            let (pa, pb, pz) = (
                self.positions[a as usize],
                self.positions[b as usize],
                self.positions[z as usize],
            );
            if thin([pa, p, pz]) || thin([p, pb, pz]) {
                return None;
            }
        }
        let n = self.positions.len() as u32;
        self.positions.push(p);
        self.locked.push(false);
        self.around.push(Vec::new());
        for t in on_edge {
            let tri = self.triangles[t as usize];
            let k = (0..3)
                .find(|&k| {
                    let (x, y) = (tri[k], tri[(k + 1) % 3]);
                    (x == a && y == b) || (x == b && y == a)
                })
                .unwrap_or(0);
            let (x, y, z) = (tri[k], tri[(k + 1) % 3], tri[(k + 2) % 3]);
            self.triangles[t as usize] = [x, n, z];
            let nt = self.triangles.len() as u32;
            self.triangles.push([n, y, z]);
            self.tags.push(self.tags[t as usize]);
            self.alive.push(true);
            self.around[y as usize].retain(|&u| u != t);
            self.around[y as usize].push(nt);
            self.around[z as usize].push(nt);
            self.around[n as usize].push(t);
            self.around[n as usize].push(nt);
        }
        Some(n)
    }

    /// Lets vertex `v` move again (its class stopped being ambiguous).
    pub(super) fn unlock(&mut self, v: u32) {
        self.locked[v as usize] = false;
    }

    /// Keeps vertex `v` where it is from now on.
    pub(super) fn lock(&mut self, v: u32) {
        self.locked[v as usize] = true;
    }

    /// Moves vertex `v` to `target` (checked by [`Mesh::fits`]).
    pub(super) fn move_vertex(&mut self, v: u32, target: DVec3) {
        self.positions[v as usize] = target;
    }

    /// Flips edge `p`–`q` when both its triangles lie in one plane (the
    /// same cap, or two surface triangles cut from one triangle of the
    /// source mesh: [`COPLANAR_FRACTION`]) and the quadrilateral they form
    /// is convex: the surface is unchanged. Returns whether it flipped.
    fn flip(&mut self, p: u32, q: u32) -> bool {
        let Some([t1, t2]) = self.edge_triangles(p, q) else {
            return false;
        };
        let tag = self.tags[t1 as usize];
        if self.tags[t2 as usize] != tag {
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
        if tag == EXTERIOR {
            // The source surface bends at its edges: flip only inside one
            // of its (split) triangles. The flip moves the surface by the
            // tetrahedron p q r s; its height over the larger of the two
            // triangles is the smaller of the two points' distances from
            // the other triangle's plane (a sliver's own plane is noise).
            let other = (pos(p) - pos(q)).cross(pos(s) - pos(q));
            let six_volume = normal.dot(pos(s) - pos(p)).abs();
            let height = six_volume / normal.length().max(other.length());
            if !(height <= COPLANAR_FRACTION * self.min_length) {
                return false;
            }
        }
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
    /// edge `x`–`y`) by flipping `x`–`y` alone, when the triangle across it
    /// lies in the same plane ([`Mesh::flip`]: the same cap, or the same
    /// triangle of the source surface) and both triangles the flip makes are
    /// neither thin nor have an edge shorter than `min_length`: no vertex
    /// moves, so the surface, the cap's area and every other piece are
    /// unchanged. A row of nearly collinear points along a cap's rim (where
    /// a Voronoi edge or the surface crosses it) triangulated as a fan of
    /// slivers is cleared this way one sliver at a time, from the one whose
    /// neighbour across is fat; the move of [`Mesh::flatten_plan`] would
    /// have to move a rim vertex that other pieces hold.
    pub(super) fn flip_thin(&mut self, v: u32, x: u32, y: u32, min_length: f64) -> bool {
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
        if self.tags[other as usize] != self.tags[thin as usize] {
            return false;
        }
        let w = self.opposite(other, x, y);
        let pos = |u: u32| self.positions[u as usize];
        // The two triangles after the flip: (x, w, v) and (w, y, v) up to
        // orientation; each must be well shaped.
        for t in [[x, w, v], [w, y, v]] {
            let q = t.map(pos);
            let len2 = [0, 1, 2].map(|e| q[e].distance_squared(q[(e + 1) % 3]));
            if len2.iter().any(|&l| l < min_length * min_length) {
                return false;
            }
            if !(height_over_longest(q) >= THIN_HEIGHT_RATIO * min_length) {
                return false;
            }
        }
        self.flip(x, y)
    }

    /// Removes the thin triangle `(v, x, y)` (apex `v` over its longest
    /// edge `x`–`y`): [`Mesh::flatten_plan`], then [`Mesh::apply_flatten`].
    fn flatten(&mut self, v: u32, x: u32, y: u32, min_length: f64, forced: bool) -> bool {
        match self.flatten_plan(v, x, y, min_length, forced) {
            Some(plan) => {
                self.apply_flatten(&plan);
                true
            }
            None => false,
        }
    }

    /// The checks of removing the thin triangle `(v, x, y)` by flipping
    /// `x`–`y` to `v`–`w` (`w` the apex of the triangle across `x`–`y`) and
    /// moving `v` onto `x`–`y`, at the foot of its height: `None` when it
    /// may not. The edge lies on the planes of its two triangles; unless
    /// `forced`, `v` must lie on no other plane.
    pub(super) fn flatten_plan(
        &self,
        v: u32,
        x: u32,
        y: u32,
        min_length: f64,
        forced: bool,
    ) -> Option<Flatten> {
        let on_edge = self.edge_triangles(x, y)?;
        let &thin = on_edge
            .iter()
            .find(|&&t| self.triangles[t as usize].contains(&v))?;
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
            return None;
        }
        if self.locked(v) {
            return None;
        }
        let planes = self.planes(v);
        if !forced {
            let edge_planes = [self.tags[thin as usize], self.tags[other as usize]];
            if !planes.iter().all(|p| edge_planes.contains(p)) {
                return None;
            }
        }
        // Nor may `v` join a cap it is not on: the piece across that cap
        // has no vertex there, and the two sides would differ.
        let across = self.tags[other as usize];
        if across != EXTERIOR && !planes.contains(&across) {
            return None;
        }
        // The new edge v–w must not exist yet.
        if self.neighbours(v).binary_search(&w).is_ok() {
            return None;
        }
        if !self.moves_cleanly(&[v], foot, &[thin]) {
            return None;
        }
        // Nor may `other` be thin itself: its halves would be thin, and a
        // fan of slivers along a line would only turn into another one
        // (Bob at 2,000 sites, seeds 8 and 9); flattened from the fan's
        // end whose neighbour is well shaped, the fan goes one by one.
        let tri = self.triangles[other as usize];
        if self.is_thin(other) {
            return None;
        }
        // The halves of `other` (v at the foot) keep its orientation; they
        // must not be flat themselves.
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
                return None;
            }
        }
        Some(Flatten {
            v,
            x,
            y,
            w,
            thin,
            other,
            halves,
            foot,
        })
    }

    /// Whether triangle `t`'s height over its longest edge is below
    /// [`THIN_HEIGHT_RATIO`] × the collapse length.
    fn is_thin(&self, t: u32) -> bool {
        let q = self.triangles[t as usize].map(|v| self.positions[v as usize]);
        height_over_longest(q) < THIN_HEIGHT_RATIO * self.min_length
    }

    /// Makes the flattening `plan` (from [`Mesh::flatten_plan`]).
    pub(super) fn apply_flatten(&mut self, plan: &Flatten) {
        let Flatten {
            v,
            x,
            y,
            w,
            thin,
            other,
            halves,
            foot,
        } = *plan;
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
    }

    /// The live triangles back into `piece`, unused vertices dropped.
    pub(super) fn write_back(&self, piece: &mut Piece) {
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

/// Height (m) of the triangle with corners `q` over its longest edge; 0
/// when all three corners coincide.
fn height_over_longest(q: [DVec3; 3]) -> f64 {
    let longest2 = (0..3)
        .map(|e| q[e].distance_squared(q[(e + 1) % 3]))
        .fold(0.0, f64::max);
    if longest2 > 0.0 {
        (q[1] - q[0]).cross(q[2] - q[0]).length() / longest2.sqrt()
    } else {
        0.0
    }
}
