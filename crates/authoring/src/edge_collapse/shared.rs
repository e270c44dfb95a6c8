//! The shared pass: the short edges and thin triangles whose removal moves
//! a vertex that several pieces hold. A vertex on a cut lies on the
//! surfaces of the pieces on both sides of it, one on a cell edge on three
//! or more; moving it in one piece only would leave the two sides of a cut
//! covering different regions (bond area ≠ cap area) and the render meshes
//! of neighbouring chunks apart. So each move is decided once: checked in
//! every piece that holds a moved vertex (link condition, no triangle
//! turned over, flattened or, in the forced pass, tilted out of its cap)
//! and made in all of them at the same position, or in none.
//!
//! The copies of a vertex in different pieces are found by position: cap
//! vertices of different pieces within `tolerance` (m) of each other are
//! one vertex (the cut points are computed once per side, so they agree to
//! rounding, or to the clipper's snapping distance). A class that holds two
//! vertices of one piece joined by an edge has that edge collapsed in that
//! piece first ([`Shared::merge_doubles`]); any other class with two
//! vertices of one piece is ambiguous and stays put, as do vertices of
//! frozen pieces (kept as carved) and a hierarchy parent's own vertices on
//! its caps (the children of the parent across, refined separately, hold
//! them too); the other vertices on a parent's caps move only where the
//! parent's caps keep their areas ([`collapse_shared`]).
//!
//! Both sides of a Voronoi cut are carved separately, so one side's cap
//! rim has vertices the other lacks (where its earlier cuts split the
//! surface triangles the rim crosses: T-junctions). Moving such a vertex,
//! or a shared corner next to one, changes that side's cap alone. So in a
//! Voronoi fracture every move is first checked for the cap area it adds
//! or removes on each side of each cut ([`Shared::balance`]): the running
//! difference per cut stays within [`CAP_IMBALANCE`] of its cap area.
//! Where that leaves a short edge or a thin triangle, each of its vertices,
//! their neighbours, and the neighbours of their copies in the other
//! pieces, that one side of a cut holds and the other does not, is
//! inserted into the other side's rim edge it lies on
//! ([`Shared::conform_leftovers`]), and the balanced rounds run again.
//! What remains is removed in further rounds without the check (a broken
//! render mesh is worse than a bond a little off its cap). Inserting every
//! missing vertex across before the pass (conforming caps, tried on an
//! unlanded branch) tripled the short edges and left 150 to 450 triangles
//! with a short edge per fracture; inserting only where a leftover needs
//! it does not.
//!
//! Order: edges shortest first and triangles thinnest first, ties by the
//! classes' indices (assigned in piece order, then vertex order), in rounds
//! until nothing changes, so the result does not depend on threads.

use super::mesh::{Attempt, Mesh};
use super::{CollapseStats, MAX_ROUNDS};
use crate::hierarchy::PARENT_TAG_BASE;
use crate::piece::{EXTERIOR, Piece};
use glam::DVec3;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// Rounds of [`Shared::dissolve_near_stuck`] at most, each followed by the
/// usual collapse rounds. One clears every stuck edge on Spot and Bob at
/// seed 1 (100 to 2,000 sites); the second is a margin.
const DISSOLVE_ROUNDS: usize = 2;

/// The largest difference the shared pass may make between the cap
/// areas of the two sides of a Voronoi cut, relative to the smaller
/// (see [`Shared::balance`]): half of what the fracture tests allow
/// between a bond's area and each side's measured cap (1e-4). Before the
/// rounds without the balance, Spot and Bob at 500 sites (seeds 2 to 7)
/// kept a short edge in 5 of 12 fractures at 1e-5, in 2 at 5e-5.
const CAP_IMBALANCE: f64 = 5e-5;

/// How far (in collapse lengths) off the other side's rim edge a vertex
/// that one side of a cut holds may lie and still be inserted into it
/// ([`Shared::conform`]). Moves made earlier bend one side's rim where
/// the other side's stays straight: on Bob at 2,000 sites, seed 6, a
/// T-junction vertex lay 1.1e-6 m (0.042 collapse lengths) off the rim
/// edge across, out of the copy tolerance's reach, and a forced collapse
/// next to it then cut a corner of 5.2e-7 m² from one side only. Measured
/// over 40 fractures (Spot and Bob, 500 and 2,000 sites, seeds 2 to 11):
/// 0.05 and 0 both leave 6 failing a check, 0.1 leaves 7.
const CONFORM_REACH: f64 = 0.05;

/// How far (in shortest edges) a vertex in the middle of a Voronoi edge may
/// be moved along it by [`Shared::dissolve_near_stuck`]: 1e-2 of the mesh's
/// diagonal. The move keeps every cap's area, so the distance changes no
/// shape; the blocking vertex found on Spot at 500 sites was 170 shortest
/// edges from the Voronoi vertex it joins.
const DISSOLVE_REACH: f64 = 1000.0;

/// Removes what [`collapse_piece`](super::collapse_piece) left in `pieces`
/// (see the module docs). `frozen[k]` keeps piece `k` exactly as it is
/// (and every vertex it shares); `min_length` as for the per-piece pass
/// (m); `tolerance` (m) is the distance within which cap vertices of
/// different pieces are one vertex (0: pieces share nothing).
///
/// `cells`, for a Voronoi fracture, gives each piece's cell (its site
/// index, which is also the tag of the caps that cell's bisectors make in
/// its neighbours): moves are then first made only where they keep the
/// two sides of every cut alike ([`Shared::balance`]); what that leaves is
/// removed in further rounds without it.
///
/// `fixed` (sorted by x, then y, then z), for the refinement of a
/// hierarchy parent: the parent's vertices on its own caps (tagged
/// [`PARENT_TAG_BASE`] | the parent across), which the children of the
/// parent across hold too. Those stay where they are (a vertex on a parent
/// cap within `tolerance` of one); the other vertices on parent caps (where
/// the children's cuts cross them) move only where every parent cap keeps
/// its area (summed over the children), so the parent's surface does not
/// change.
pub(crate) fn collapse_shared(
    pieces: &mut [&mut Piece],
    frozen: &[bool],
    min_length: f64,
    tolerance: f64,
    cells: Option<&[u32]>,
    fixed: &[DVec3],
) -> CollapseStats {
    let mut stats = CollapseStats::default();
    let busy: Vec<bool> = pieces
        .par_iter()
        .enumerate()
        .map(|(k, p)| !frozen.get(k).copied().unwrap_or(false) && super::needs_work(p, min_length))
        .collect();
    if !busy.contains(&true) {
        return stats;
    }
    let mut shared = Shared::new(pieces, frozen, min_length, tolerance, fixed);
    if let Some(cells) = cells {
        shared.set_cells(cells);
    }
    shared.build(&busy);
    shared.active = busy;
    shared.merge_doubles();
    shared.rounds(&mut stats);
    // What the balance kept may be held by one side of a cut only (a
    // T-junction): give the other side that vertex and try again.
    if shared.balanced && shared.leftovers() > 0 && shared.conform_leftovers() {
        shared.rounds(&mut stats);
    }
    // What the balance kept is removed anyway: a short edge or a thin
    // triangle breaks the render mesh, a cap a little off its bond's area
    // only shifts that bond's strength.
    if shared.balanced && shared.leftovers() > 0 {
        shared.balanced = false;
        // Nor need a move keep tilted cap triangles within the bound.
        for m in shared.meshes.iter_mut().flatten() {
            m.release_tilt();
        }
        shared.rounds(&mut stats);
    }
    stats.kept = shared
        .meshes
        .iter()
        .zip(&shared.active)
        .filter_map(|(m, &a)| m.as_ref().filter(|_| a))
        .map(|m| m.leftovers(min_length))
        .sum();
    for (k, mesh) in shared.meshes.iter().enumerate() {
        if let Some(mesh) = mesh {
            mesh.write_back(&mut *shared.pieces[k]);
        }
    }
    stats
}

/// The point nearest `mid` that minimises Σ w (n · x − d)² over the
/// plane `constraints` `(unit normal, offset, weight)`, if it lies within
/// 4 `min_length` (m) of `mid`.
fn least_bending_point(
    constraints: &[(DVec3, f64, f64)],
    mid: DVec3,
    min_length: f64,
) -> Option<DVec3> {
    let top = constraints.iter().map(|c| c.2).fold(0.0, f64::max);
    if !(top > 0.0 && top.is_finite()) {
        return None;
    }
    // A weak pull towards `mid` keeps the system solvable along the
    // directions no plane constrains.
    let pull = 1e-9 * top;
    let mut m = glam::DMat3::from_diagonal(DVec3::splat(pull));
    let mut rhs = mid * pull;
    for &(n, d, w) in constraints {
        let w = w.max(0.0);
        m += glam::DMat3::from_cols(n * n.x, n * n.y, n * n.z) * w;
        rhs += n * (d * w);
    }
    if m.determinant().abs() <= f64::MIN_POSITIVE {
        return None;
    }
    let x = m.inverse() * rhs;
    (x.is_finite() && x.distance(mid) <= 4.0 * min_length).then_some(x)
}

/// The copies of one vertex: `(piece, vertex)` pairs, ascending.
type Copies = Vec<(u32, u32)>;

struct Shared<'a, 'p> {
    pieces: &'a mut [&'p mut Piece],
    frozen_pieces: Vec<bool>,
    /// Meshes of the pieces touched so far.
    meshes: Vec<Option<Mesh>>,
    /// First class id of each piece's vertices (one id per vertex at the
    /// start), then the total.
    offsets: Vec<u32>,
    /// Union-find over the ids; a root is its class's lowest id.
    parent: Vec<u32>,
    /// The copies of every class with more than one, by root.
    classes: BTreeMap<u32, Copies>,
    /// Per root: the class must not move.
    frozen: Vec<bool>,
    /// Roots of classes holding two vertices of one piece (see
    /// [`Shared::merge_doubles`]), before they are frozen.
    doubles: Vec<u32>,
    /// Vertices added by [`Shared::conform_leftovers`], by id beyond the
    /// start's (id − total), and their ids.
    extra: Vec<(u32, u32)>,
    extra_id: BTreeMap<(u32, u32), u32>,
    /// Pieces that had work left at their last look or changed since:
    /// the only ones a pass looks at, so the passes cost what is left.
    active: Vec<bool>,
    min_length: f64,
    /// For a Voronoi fracture, each piece's cell (see [`collapse_shared`]).
    cells: Option<Vec<u32>>,
    /// The pieces of each cell, ascending.
    by_cell: BTreeMap<u32, Vec<u32>>,
    /// The copy tolerance, m.
    tolerance: f64,
    /// Per Voronoi cut `(cell, tag)`: that cell's cap area at the start, m².
    cap_areas: BTreeMap<(u32, u32), f64>,
    /// Per Voronoi cut `(lower cell, higher cell)`: the cap area the lower
    /// cell's side gained minus what the higher cell's side gained so far,
    /// m² (see [`Shared::balance`]).
    imbalance: BTreeMap<(u32, u32), f64>,
    /// Whether moves must keep the two sides of every cut alike (see
    /// [`Shared::balance`]); cleared for the last rounds.
    balanced: bool,
}

impl<'a, 'p> Shared<'a, 'p> {
    fn new(
        pieces: &'a mut [&'p mut Piece],
        frozen_pieces: &[bool],
        min_length: f64,
        tolerance: f64,
        fixed: &[DVec3],
    ) -> Self {
        // A parent's own vertex: within `tolerance` of one of `fixed`.
        let is_fixed = |p: DVec3| {
            let lo = fixed.partition_point(|f| f.x < p.x - tolerance);
            fixed[lo..]
                .iter()
                .take_while(|f| f.x <= p.x + tolerance)
                .any(|f| f.distance_squared(p) <= tolerance * tolerance)
        };
        let mut offsets = Vec::with_capacity(pieces.len() + 1);
        let mut total = 0u32;
        for p in pieces.iter() {
            offsets.push(total);
            total += p.positions.len() as u32;
        }
        offsets.push(total);
        let frozen_pieces: Vec<bool> = (0..pieces.len())
            .map(|k| frozen_pieces.get(k).copied().unwrap_or(false))
            .collect();
        let mut frozen = vec![false; total as usize];
        // Cap vertices: the only ones another piece can hold.
        let mut entries: Vec<(u32, u32)> = Vec::new();
        for (k, p) in pieces.iter().enumerate() {
            let mut on_cap = vec![false; p.positions.len()];
            for (t, &tag) in p.triangles.iter().zip(&p.tags) {
                if tag == EXTERIOR {
                    continue;
                }
                for &v in t {
                    on_cap[v as usize] = true;
                    if (tag & PARENT_TAG_BASE != 0 && is_fixed(p.positions[v as usize]))
                        || frozen_pieces[k]
                    {
                        frozen[(offsets[k] + v) as usize] = true;
                    }
                }
            }
            if frozen_pieces[k] {
                for v in 0..p.positions.len() as u32 {
                    frozen[(offsets[k] + v) as usize] = true;
                }
            }
            entries.extend(
                (0..p.positions.len() as u32)
                    .filter(|&v| on_cap[v as usize])
                    .map(|v| (k as u32, v)),
            );
        }
        let mut shared = Self {
            pieces,
            frozen_pieces,
            meshes: Vec::new(),
            offsets,
            parent: (0..total).collect(),
            classes: BTreeMap::new(),
            frozen,
            doubles: Vec::new(),
            extra: Vec::new(),
            extra_id: BTreeMap::new(),
            active: Vec::new(),
            min_length,
            cells: None,
            by_cell: BTreeMap::new(),
            tolerance,
            cap_areas: BTreeMap::new(),
            imbalance: BTreeMap::new(),
            balanced: false,
        };
        shared.meshes.resize_with(shared.pieces.len(), || None);
        if tolerance > 0.0 {
            shared.match_copies(&entries, tolerance);
        }
        shared
    }

    /// Joins each cap vertex with the nearest cap vertex within
    /// `tolerance` of every other piece, where each is the other's nearest:
    /// two distinct vertices of one piece a few nanometres apart stay
    /// apart, each with its own copies. A sweep along x over the vertices
    /// sorted by x (ties by piece and index).
    fn match_copies(&mut self, entries: &[(u32, u32)], tolerance: f64) {
        let position = |(k, v): (u32, u32)| self.pieces[k as usize].positions[v as usize];
        let mut order: Vec<(f64, u32)> = entries
            .iter()
            .enumerate()
            .map(|(e, &entry)| (position(entry).x, e as u32))
            .collect();
        order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        // Per entry: (piece, distance², entry) of the nearest entry of
        // every other piece within reach.
        let mut nearest: Vec<Vec<(u32, f64, u32)>> = vec![Vec::new(); entries.len()];
        let offer = |list: &mut Vec<(u32, f64, u32)>, piece: u32, d2: f64, o: u32| match list
            .iter_mut()
            .find(|b| b.0 == piece)
        {
            Some(b) if (d2, o) < (b.1, b.2) => *b = (piece, d2, o),
            Some(_) => {}
            None => list.push((piece, d2, o)),
        };
        for (i, &(x, e)) in order.iter().enumerate() {
            let (pe, xe) = (entries[e as usize], position(entries[e as usize]));
            for &(x2, o) in &order[i + 1..] {
                if x2 - x > tolerance {
                    break;
                }
                let po = entries[o as usize];
                if po.0 == pe.0 {
                    continue;
                }
                let d2 = xe.distance_squared(position(po));
                if d2 <= tolerance * tolerance {
                    offer(&mut nearest[e as usize], po.0, d2, o);
                    offer(&mut nearest[o as usize], pe.0, d2, e);
                }
            }
        }
        let mut joins: Vec<(u32, u32)> = Vec::new();
        for (e, list) in nearest.iter().enumerate() {
            let piece = entries[e].0;
            for &(_, _, o) in list {
                if e < o as usize
                    && nearest[o as usize]
                        .iter()
                        .any(|b| b.0 == piece && b.2 == e as u32)
                {
                    joins.push((self.id(entries[e]), self.id(entries[o as usize])));
                }
            }
        }
        for (a, b) in joins {
            self.union(a, b);
        }
        // Classes with two vertices of one piece are ambiguous: merged
        // where those two are the ends of one edge, else they stay.
        let roots: Vec<u32> = self.classes.keys().copied().collect();
        for r in roots {
            let copies = &self.classes[&r];
            if copies.windows(2).any(|w| w[0].0 == w[1].0) {
                self.doubles.push(r);
            }
        }
    }

    /// Where the balanced rounds left a short edge or a thin triangle: each
    /// of its vertices (and the neighbours of every copy of them, see
    /// [`Shared::conform`]) on a Voronoi cut that the piece across does not
    /// hold (a T-junction of independent carving) is inserted there,
    /// splitting the rim edge it lies on, and joins the vertex's class;
    /// then a move changes both sides of the cut alike. True if any vertex
    /// was inserted.
    fn conform_leftovers(&mut self) -> bool {
        let min_length = self.min_length;
        let mut wanted: Vec<(u32, u32)> = Vec::new();
        for k in 0..self.meshes.len() {
            if self.frozen_pieces[k] || !self.active[k] {
                continue;
            }
            let Some(m) = &self.meshes[k] else {
                continue;
            };
            let k = k as u32;
            for (_, a, b) in m.short_edges(min_length * min_length) {
                wanted.extend([(k, a), (k, b)]);
            }
            for (_, v, x, y) in m.thin_triangles(min_length) {
                wanted.extend([(k, v), (k, x), (k, y)]);
            }
        }
        self.conform(wanted)
    }

    /// Inserts across every Voronoi cut the vertices `wanted`, their
    /// neighbours, and the neighbours of their copies in the other pieces,
    /// wherever the piece across lacks them (see
    /// [`Shared::conform_leftovers`]). The copies' neighbours matter: a
    /// vertex both sides hold, moved, still changes one side alone where
    /// that side has a T-junction next to it and the other does not
    /// (Spot at 2,000 sites, seed 4, and Bob at 2,000, seed 3, kept a
    /// bond a few 1e-4 off its cap without them). True if any vertex was
    /// inserted.
    fn conform(&mut self, mut wanted: Vec<(u32, u32)>) -> bool {
        let Some(cells) = self.cells.clone() else {
            return false;
        };
        let reach = self.tolerance.max(CONFORM_REACH * self.min_length);
        let mut near: Vec<(u32, u32)> = Vec::new();
        for &(k, v) in &wanted {
            if let Some(m) = &self.meshes[k as usize] {
                near.extend(m.neighbours(v).into_iter().map(|x| (k, x)));
            }
        }
        wanted.extend(near);
        // The copies of those vertices in the other pieces, and their
        // neighbours there: a T-junction next to a copy changes that
        // piece's cap alone when the copy moves.
        let mut more: Vec<(u32, u32)> = Vec::new();
        for &(k, v) in &wanted {
            let r = self.root(k, v);
            for (q, w) in self.copies(r) {
                if q == k {
                    continue;
                }
                let Some(m) = &self.meshes[q as usize] else {
                    continue;
                };
                if m.is_dead(w) {
                    continue;
                }
                more.push((q, w));
                more.extend(m.neighbours(w).into_iter().map(|x| (q, x)));
            }
        }
        wanted.extend(more);
        wanted.sort_unstable();
        wanted.dedup();
        let mut any = false;
        for (k, u) in wanted {
            let (dead, locked, p, tags) = {
                let m = self.mesh(k);
                (m.is_dead(u), m.locked(u), m.position(u), m.planes(u))
            };
            if dead || locked {
                continue;
            }
            for tag in tags {
                if tag & PARENT_TAG_BASE != 0 {
                    continue;
                }
                let Some(across) = self.by_cell.get(&tag).cloned() else {
                    continue;
                };
                for q in across {
                    let r = self.root(k, u);
                    if self.frozen_pieces[q as usize] || self.copies(r).iter().any(|c| c.0 == q) {
                        continue;
                    }
                    self.ensure(q as usize);
                    if let Some(n) = self.mesh_mut(q).split_edge_at(cells[k as usize], p, reach) {
                        let id = self.add_id(q, n);
                        let own = self.id((k, u));
                        self.union(own, id);
                        any = true;
                    }
                }
            }
        }
        any
    }

    /// A class holding two vertices of one piece joined by an edge (the
    /// piece has a vertex a few hundred nanometres from another, where the
    /// pieces around hold one): that edge is collapsed in that piece, onto
    /// the position of the other pieces' copy, if the collapse turns no
    /// triangle over, so the class is one vertex in every piece and may
    /// move like any other. The move is below the copy tolerance, so no cap
    /// changes measurably. Any other ambiguous class stays put (frozen).
    /// Spot at 2,000 sites, seed 7 had its only short edge left so.
    fn merge_doubles(&mut self) {
        for r in std::mem::take(&mut self.doubles) {
            let mut copies = self.copies(r);
            let mut ok = !self.frozen[r as usize];
            let mut i = 0;
            while ok && i + 1 < copies.len() {
                let ((k, a), (k2, b)) = (copies[i], copies[i + 1]);
                if k != k2 {
                    i += 1;
                    continue;
                }
                // Where the other pieces hold this vertex (or stay).
                let Some(&(q, w)) = copies.iter().find(|c| c.0 != k) else {
                    ok = false;
                    break;
                };
                self.ensure(q as usize);
                self.ensure(k as usize);
                let target = self.mesh(q).position(w);
                let merged = match self.mesh_mut(k).link(a, b) {
                    Ok(on_edge) => {
                        let fits = self.mesh(k).fits(&[a, b], target, false, &on_edge);
                        if fits {
                            let m = self.mesh_mut(k);
                            m.apply_collapse(a, b, target);
                            m.unlock(a.min(b));
                        }
                        fits
                    }
                    Err(_) => false,
                };
                if !merged {
                    ok = false;
                    break;
                }
                copies.remove(i + 1);
                copies[i] = (k, a.min(b));
            }
            // The pairs merged so far are one vertex now, whatever follows.
            self.classes.insert(r, copies);
            if !ok {
                // Stays put, in the meshes already built as in those to come.
                self.frozen[r as usize] = true;
                for (q, v) in self.copies(r) {
                    if let Some(m) = self.meshes[q as usize].as_mut() {
                        m.lock(v);
                    }
                }
            }
        }
    }

    /// The class id of vertex `v` of piece `k` (at the start, or added).
    fn id(&self, (k, v): (u32, u32)) -> u32 {
        let (lo, hi) = (self.offsets[k as usize], self.offsets[k as usize + 1]);
        if lo + v < hi {
            lo + v
        } else {
            self.extra_id.get(&(k, v)).copied().unwrap_or(u32::MAX)
        }
    }

    /// A new id for vertex `v` added to piece `k`.
    fn add_id(&mut self, k: u32, v: u32) -> u32 {
        let total = *self.offsets.last().unwrap_or(&0);
        let id = total + self.extra.len() as u32;
        self.extra.push((k, v));
        self.extra_id.insert((k, v), id);
        self.parent.push(id);
        self.frozen.push(false);
        id
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let next = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = next;
            x = next;
        }
        x
    }

    /// The `(piece, vertex)` of id `x` at the start.
    fn vertex_of(&self, x: u32) -> (u32, u32) {
        let total = *self.offsets.last().unwrap_or(&0);
        if x >= total {
            return self.extra[(x - total) as usize];
        }
        let k = self.offsets.partition_point(|&o| o <= x) - 1;
        (k as u32, x - self.offsets[k])
    }

    /// The live copies of the class of root `r`.
    fn copies(&self, r: u32) -> Copies {
        match self.classes.get(&r) {
            Some(c) => c.clone(),
            None => vec![self.vertex_of(r)],
        }
    }

    /// Joins the classes of `a` and `b` (matching at the start).
    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return;
        }
        let (lo, hi) = (ra.min(rb), ra.max(rb));
        let mut copies = self.copies(lo);
        copies.extend(self.copies(hi));
        copies.sort_unstable();
        copies.dedup();
        self.classes.remove(&hi);
        self.classes.insert(lo, copies);
        self.parent[hi as usize] = lo;
        self.frozen[lo as usize] |= self.frozen[hi as usize];
    }

    /// Joins the classes of roots `ra` and `rb` after a collapse whose
    /// surviving copies are `copies`.
    fn merge(&mut self, ra: u32, rb: u32, copies: Copies) {
        let (lo, hi) = (ra.min(rb), ra.max(rb));
        self.classes.remove(&hi);
        self.parent[hi as usize] = lo;
        self.frozen[lo as usize] |= self.frozen[hi as usize];
        if copies.len() > 1 {
            self.classes.insert(lo, copies);
        } else {
            self.classes.remove(&lo);
            // A single survivor whose id is not the root: remember it.
            if let Some(&only) = copies.first()
                && self.vertex_of(lo) != only
            {
                self.classes.insert(lo, copies);
            }
        }
    }

    /// The root of vertex `v` of piece `k`.
    fn root(&mut self, k: u32, v: u32) -> u32 {
        let id = self.id((k, v));
        self.find(id)
    }

    /// Builds the meshes of the pieces `wanted` (in parallel).
    fn build(&mut self, wanted: &[bool]) {
        let todo: Vec<usize> = (0..self.pieces.len())
            .filter(|&k| wanted[k] && self.meshes[k].is_none())
            .collect();
        let locks: Vec<(usize, Vec<bool>)> = todo.into_iter().map(|k| (k, self.locks(k))).collect();
        let min_length = self.min_length;
        let pieces = &*self.pieces;
        let built: Vec<(usize, Mesh)> = locks
            .into_par_iter()
            .map(|(k, locked)| (k, Mesh::new(&*pieces[k], min_length, locked)))
            .collect();
        for (k, mesh) in built {
            self.meshes[k] = Some(mesh);
        }
    }

    /// The lock of every vertex of piece `k`: its class is frozen.
    fn locks(&mut self, k: usize) -> Vec<bool> {
        let n = self.pieces[k].positions.len() as u32;
        (0..n)
            .map(|v| {
                let r = self.root(k as u32, v);
                self.frozen[r as usize]
            })
            .collect()
    }

    /// Builds the mesh of piece `k` if it is not built yet.
    fn ensure(&mut self, k: usize) {
        if self.meshes[k].is_some() {
            return;
        }
        let locked = self.locks(k);
        self.meshes[k] = Some(Mesh::new(&*self.pieces[k], self.min_length, locked));
    }

    fn mesh(&self, k: u32) -> &Mesh {
        self.meshes[k as usize]
            .as_ref()
            .expect("the mesh is built before use")
    }

    /// Piece `k`'s mesh, to change: the piece is looked at again in the
    /// next pass (a flip made to clear the way for a move can leave a thin
    /// triangle behind, in a piece that had nothing left to do).
    fn mesh_mut(&mut self, k: u32) -> &mut Mesh {
        if let Some(active) = self.active.get_mut(k as usize) {
            *active = true;
        }
        self.meshes[k as usize]
            .as_mut()
            .expect("the mesh is built before use")
    }

    /// Last resort for short edges and thin triangles still left after the
    /// rounds. A vertex on exactly two cut planes and off the source
    /// surface lies in the middle of a Voronoi edge (carving or earlier
    /// collapses left it there) and carries no shape; next to a stuck edge
    /// or thin triangle it blocks its removal by making a triangle flat or
    /// turned over. Each such vertex at an end of a stuck edge, a corner of
    /// a stuck thin triangle, or next to one, is collapsed along
    /// its Voronoi edge onto its nearest neighbour on both planes within
    /// [`DISSOLVE_REACH`] shortest edges, in every piece that holds it
    /// (the same checks as any collapse, and in every piece each cap
    /// around the move keeps its area: a vertex that is a corner of a cap
    /// in some piece stays).
    /// True if anything changed.
    fn dissolve_near_stuck(&mut self, stats: &mut CollapseStats) -> bool {
        let min2 = self.min_length * self.min_length;
        let reach = DISSOLVE_REACH * self.min_length;
        let mut stuck: Vec<(u32, u32, u32)> = Vec::new();
        for k in 0..self.meshes.len() {
            if self.frozen_pieces[k] {
                continue;
            }
            if let Some(mesh) = &self.meshes[k] {
                stuck.extend(
                    mesh.short_edges(min2)
                        .into_iter()
                        .map(|(_, a, b)| (k as u32, a, b)),
                );
                // A stuck thin triangle: its apex with each end of its
                // long edge (Bob at 2,000 sites, seed 9: a vertex in the
                // middle of a Voronoi edge on a cap's rim, 1e-15 m off it).
                for (_, v, x, y) in mesh.thin_triangles(self.min_length) {
                    stuck.extend([(k as u32, v, x), (k as u32, v, y)]);
                }
            }
        }
        let mut changed = false;
        for (k, a, b) in stuck {
            let m = self.mesh(k);
            if m.is_dead(a) || m.is_dead(b) {
                continue;
            }
            let mut candidates: Vec<u32> = vec![a, b];
            candidates.extend(m.neighbours(a));
            candidates.extend(m.neighbours(b));
            candidates.sort_unstable();
            candidates.dedup();
            for v in candidates {
                let m = self.mesh(k);
                if m.is_dead(v) || m.on_surface(v) {
                    continue;
                }
                let planes = m.planes(v);
                if planes.len() != 2 {
                    continue;
                }
                let mut onto: Vec<(f64, u32)> = m
                    .neighbours(v)
                    .into_iter()
                    .filter(|&w| {
                        let pw = m.planes(w);
                        planes.iter().all(|p| pw.contains(p))
                    })
                    .map(|w| (m.distance2(v, w), w))
                    .filter(|&(d2, _)| d2 < reach * reach)
                    .collect();
                onto.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
                for (_, w) in onto {
                    if self.collapse(k, v, w, reach * reach, false, true) {
                        stats.collapsed += 1;
                        changed = true;
                        break;
                    }
                }
            }
        }
        changed
    }

    /// One pass over the short edges, then one over the thin triangles, of
    /// every touched piece; `forced` allows moves off a cut plane. True if
    /// anything changed.
    fn pass(&mut self, forced: bool, stats: &mut CollapseStats) -> bool {
        let min_length = self.min_length;
        let min2 = min_length * min_length;
        let mut changed = false;
        // (length², root a, root b, piece, a, b), each class pair once.
        let mut found: Vec<(f64, u32, u32, u32)> = Vec::new();
        // Pieces with nothing to do: inactive after this pass unless a move
        // touches them.
        let mut idle: Vec<usize> = Vec::new();
        for k in 0..self.meshes.len() {
            if self.frozen_pieces[k] || !self.active[k] {
                continue;
            }
            let Some(mesh) = &self.meshes[k] else {
                continue;
            };
            let before = found.len();
            found.extend(
                mesh.short_edges(min2)
                    .into_iter()
                    .map(|(d2, a, b)| (d2, k as u32, a, b)),
            );
            if found.len() == before {
                idle.push(k);
                self.active[k] = false;
            }
        }
        let mut edges: Vec<(f64, u32, u32, u32, u32, u32)> = Vec::with_capacity(found.len());
        for (d2, k, a, b) in found {
            let (ra, rb) = (self.root(k, a), self.root(k, b));
            edges.push((d2, ra.min(rb), ra.max(rb), k, a, b));
        }
        edges.sort_unstable_by(|x, y| {
            x.0.total_cmp(&y.0)
                .then((x.1, x.2, x.3, x.4, x.5).cmp(&(y.1, y.2, y.3, y.4, y.5)))
        });
        let mut seen = BTreeSet::new();
        for (_, ra, rb, k, a, b) in edges {
            if !seen.insert((ra, rb)) {
                continue;
            }
            if self.collapse(k, a, b, min2, forced, false) {
                stats.collapsed += 1;
                stats.forced += u32::from(forced);
                changed = true;
            } else if forced && self.collapse_nearby(k, a, b, min2) {
                stats.collapsed += 1;
                stats.forced += 1;
                changed = true;
            }
        }
        let mut thin: Vec<(f64, u32, u32, u32, u32)> = Vec::new();
        for k in 0..self.meshes.len() {
            let was_idle = idle.binary_search(&k).is_ok();
            if self.frozen_pieces[k] || !(self.active[k] || was_idle) {
                continue;
            }
            if let Some(mesh) = &self.meshes[k] {
                let before = thin.len();
                thin.extend(
                    mesh.thin_triangles(min_length)
                        .into_iter()
                        .map(|(h, v, x, y)| (h, k as u32, v, x, y)),
                );
                if thin.len() > before {
                    self.active[k] = true;
                }
            }
        }
        thin.sort_unstable_by(|a, b| {
            a.0.total_cmp(&b.0)
                .then((a.1, a.2, a.3, a.4).cmp(&(b.1, b.2, b.3, b.4)))
        });
        for (_, k, v, x, y) in thin {
            // A flip inside a flat cap moves nothing: try it first.
            if self.mesh(k).has_triangle(v, x, y) && self.mesh_mut(k).flip_thin(v, x, y, min_length)
            {
                stats.flipped += 1;
                changed = true;
            } else if self.flatten(k, v, x, y, forced) {
                stats.flattened += 1;
                stats.forced += u32::from(forced);
                changed = true;
            }
        }
        changed
    }

    /// Collapses the short edge `a`–`b` of piece `k` in every piece that
    /// holds `a` or `b`, or in none (see the module docs); with
    /// `keep_areas`, only where every cap around the move keeps its area
    /// ([`Mesh::keeps_cap_areas`]).
    fn collapse(
        &mut self,
        k: u32,
        a: u32,
        b: u32,
        min2: f64,
        forced: bool,
        keep_areas: bool,
    ) -> bool {
        self.ensure(k as usize);
        {
            let m = self.mesh(k);
            if m.is_dead(a) || m.is_dead(b) || m.distance2(a, b) >= min2 {
                return false;
            }
        }
        let (ra, rb) = (self.root(k, a), self.root(k, b));
        if ra == rb {
            return false;
        }
        // (piece, copy of a, copy of b), ascending by piece.
        let mut involved: Vec<(u32, Option<u32>, Option<u32>)> = Vec::new();
        for (q, v) in self.copies(ra) {
            involved.push((q, Some(v), None));
        }
        for (q, v) in self.copies(rb) {
            match involved.iter_mut().find(|i| i.0 == q) {
                Some(i) => i.2 = Some(v),
                None => involved.push((q, None, Some(v))),
            }
        }
        involved.sort_unstable();
        for &(q, _, _) in &involved {
            self.ensure(q as usize);
        }
        let Some(mut targets) = self.mesh(k).targets(a, b, forced) else {
            return false;
        };
        let moved =
            |x: Option<u32>, y: Option<u32>| -> Vec<u32> { x.into_iter().chain(y).collect() };
        if forced && !self.mesh(k).locked(a) && !self.mesh(k).locked(b) {
            // Where no plane set is shared, the point that bends the caps
            // of every piece least: nearest, in the least-squares sense, to
            // the planes of all of them, each weighted by how sharply its
            // cap would tilt (1 / height² of its narrowest triangle at the
            // moved vertices).
            let mid = (self.mesh(k).position(a) + self.mesh(k).position(b)) * 0.5;
            let mut constraints = Vec::new();
            for &(q, x, y) in &involved {
                constraints.extend(self.mesh(q).plane_constraints(&moved(x, y)));
            }
            for power in [1.0, 0.5, 1.5, 2.0] {
                let c: Vec<(DVec3, f64, f64)> = constraints
                    .iter()
                    .map(|&(n, d, w)| (n, d, w.powf(power)))
                    .collect();
                if let Some(t) = least_bending_point(&c, mid, self.min_length) {
                    targets.push(t);
                }
            }
        }
        for _ in 0..6 {
            let mut skips: Vec<Vec<u32>> = Vec::with_capacity(involved.len());
            let mut again = false;
            for &(q, x, y) in &involved {
                if let (Some(x), Some(y)) = (x, y) {
                    match self.mesh_mut(q).link(x, y) {
                        Ok(on_edge) => skips.push(on_edge.to_vec()),
                        Err(Attempt::Blocked) => return false,
                        Err(_) => {
                            again = true;
                            break;
                        }
                    }
                } else {
                    skips.push(Vec::new());
                }
            }
            if again {
                continue;
            }
            let fits = |t: DVec3| {
                involved.iter().zip(&skips).all(|(&(q, x, y), skip)| {
                    let m = self.mesh(q);
                    m.fits(&moved(x, y), t, forced, skip)
                        && (!keep_areas || m.keeps_cap_areas(&moved(x, y), t, skip))
                })
            };
            let balance = |t: DVec3| {
                let moves: Vec<(u32, Vec<u32>, &[u32])> = involved
                    .iter()
                    .zip(&skips)
                    .map(|(&(q, x, y), skip)| (q, moved(x, y), skip.as_slice()))
                    .collect();
                self.balance(&moves, t)
            };
            if let Some((t, balance)) = targets.iter().find_map(|&t| {
                if fits(t) {
                    balance(t).map(|b| (t, b))
                } else {
                    None
                }
            }) {
                self.imbalance.extend(balance);
                let mut survivors: Copies = Vec::with_capacity(involved.len());
                for &(q, x, y) in &involved {
                    self.active[q as usize] = true;
                    let m = self.mesh_mut(q);
                    match (x, y) {
                        (Some(x), Some(y)) => {
                            m.apply_collapse(x, y, t);
                            survivors.push((q, x.min(y)));
                        }
                        (Some(v), None) | (None, Some(v)) => {
                            m.move_vertex(v, t);
                            survivors.push((q, v));
                        }
                        (None, None) => {}
                    }
                }
                self.merge(ra, rb, survivors);
                return true;
            }
            for (&(q, x, y), skip) in involved.iter().zip(&skips) {
                if self
                    .mesh_mut(q)
                    .clear_way(&moved(x, y), &targets, forced, skip)
                    == Attempt::Flipped
                {
                    again = true;
                    break;
                }
            }
            if !again {
                return false;
            }
        }
        false
    }

    /// The collapse rounds, with [`Shared::dissolve_near_stuck`] between.
    fn rounds(&mut self, stats: &mut CollapseStats) {
        for dissolve in 0..=DISSOLVE_ROUNDS {
            if dissolve > 0 && !self.dissolve_near_stuck(stats) {
                break;
            }
            for _ in 0..MAX_ROUNDS {
                let mut changed = self.pass(false, stats);
                if !changed {
                    changed = self.pass(true, stats);
                }
                if !changed {
                    break;
                }
            }
        }
    }

    /// Short edges and thin triangles left in the pieces not frozen.
    fn leftovers(&self) -> u32 {
        self.meshes
            .iter()
            .zip(&self.frozen_pieces)
            .filter_map(|(m, &f)| m.as_ref().filter(|_| !f))
            .map(|m| m.leftovers(self.min_length))
            .sum()
    }

    /// Records each piece's Voronoi cell (see [`collapse_shared`]) and the
    /// cap area of every cut on each side.
    fn set_cells(&mut self, cells: &[u32]) {
        for (k, piece) in self.pieces.iter().enumerate() {
            for (t, &tag) in piece.triangles.iter().zip(&piece.tags) {
                if tag == EXTERIOR || tag & PARENT_TAG_BASE != 0 {
                    continue;
                }
                let p = t.map(|v| piece.positions[v as usize]);
                let area = 0.5 * (p[1] - p[0]).cross(p[2] - p[0]).length();
                *self.cap_areas.entry((cells[k], tag)).or_default() += area;
            }
        }
        for (q, &c) in cells.iter().enumerate() {
            self.by_cell.entry(c).or_default().push(q as u32);
        }
        self.cells = Some(cells.to_vec());
        self.balanced = true;
    }

    /// Whether a move keeps the two sides of every Voronoi cut covering
    /// the same area, so that bond area = cap area keeps holding on both
    /// sides: `moves` are `(piece, its moved vertices, its triangles
    /// collapsing away)` of one move to `target` (m). A cut's sides change
    /// alike when every piece on both sides holding a moved vertex makes
    /// the move; a vertex only one side has (where independent carving
    /// left a T-junction) changes that side alone unless it slides along
    /// its cap's rim. So per cut, the running difference of the two
    /// sides' area changes ([`Shared::imbalance`]) may reach at most
    /// [`CAP_IMBALANCE`] of the smaller side's cap area plus the square of
    /// the collapse length (about 1e-10 × the diagonal², a hundredth of
    /// the smallest interface that gets a bond), with 1e-6 of the
    /// cap area the move touches and the copy tolerance times the collapse
    /// length (copies agree to the tolerance, not exactly). Returns the
    /// cuts' new running differences, or `None` when the move may not be
    /// made. Also, in every round and every pattern, the move may change
    /// no hierarchy parent's cap area (summed over the pieces: see
    /// [`collapse_shared`]); outside a Voronoi fracture that is the only
    /// check.
    fn balance(
        &self,
        moves: &[(u32, Vec<u32>, &[u32])],
        target: DVec3,
    ) -> Option<Vec<((u32, u32), f64)>> {
        // ((cell, tag), area change), ascending; per parent cap tag, the
        // change summed over the pieces.
        let mut change: Vec<((u32, u32), f64)> = Vec::new();
        let mut parent_change: Vec<(u32, f64)> = Vec::new();
        let mut touched = 0.0;
        for (q, moved, skip) in moves {
            let (changes, area) = self.mesh(*q).cap_area_changes(moved, target, skip);
            touched += area;
            for (tag, d) in changes {
                if tag & PARENT_TAG_BASE != 0 {
                    match parent_change.iter_mut().find(|c| c.0 == tag) {
                        Some(c) => c.1 += d,
                        None => parent_change.push((tag, d)),
                    }
                    continue;
                }
                let Some(cells) = &self.cells else {
                    continue;
                };
                let key = (cells[*q as usize], tag);
                match change.binary_search_by_key(&key, |c| c.0) {
                    Ok(i) => change[i].1 += d,
                    Err(i) => change.insert(i, (key, d)),
                }
            }
        }
        let rounding = 1e-6 * touched + self.tolerance * self.min_length;
        // A parent's cap faces the children of the parent across, which
        // this pass does not change: it keeps its area, in every round.
        if parent_change.iter().any(|c| c.1.abs() > rounding) {
            return None;
        }
        let mut out = Vec::new();
        for &((c, t), d) in &change {
            let across = change
                .binary_search_by_key(&(t, c), |c| c.0)
                .map_or(0.0, |i| change[i].1);
            let difference = d - across;
            if c > t && change.binary_search_by_key(&(t, c), |c| c.0).is_ok() {
                continue; // the pair is handled from its lower cell
            }
            let (key, signed) = if c < t {
                ((c, t), difference)
            } else {
                ((t, c), -difference)
            };
            if difference.abs() <= rounding {
                continue;
            }
            let total = self.imbalance.get(&key).copied().unwrap_or(0.0) + signed;
            let side = |k: (u32, u32)| self.cap_areas.get(&k).copied().unwrap_or(0.0);
            let budget =
                CAP_IMBALANCE * side((c, t)).min(side((t, c))) + self.min_length * self.min_length;
            if self.balanced && total.abs() > budget {
                return None;
            }
            out.push((key, total));
        }
        Some(out)
    }

    /// Last resort for a short edge `a`–`b` of piece `k` that cannot be
    /// collapsed: collapses (forced) the shortest other edge at `a` or `b`
    /// shorter than 4 `√min2`, if any can be.
    fn collapse_nearby(&mut self, k: u32, a: u32, b: u32, min2: f64) -> bool {
        let mut near: Vec<(f64, u32, u32)> = Vec::new();
        {
            let m = self.mesh(k);
            for v in [a, b] {
                for w in m.neighbours(v) {
                    if w == a || w == b {
                        continue;
                    }
                    let d2 = m.distance2(v, w);
                    if d2 < 16.0 * min2 {
                        near.push((d2, v, w));
                    }
                }
            }
        }
        near.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then((x.1, x.2).cmp(&(y.1, y.2))));
        near.into_iter()
            .any(|(_, v, w)| self.collapse(k, v, w, 16.0 * min2, true, false))
    }

    /// Flattens the thin triangle `(v, x, y)` of piece `k` (apex `v` over
    /// its long edge `x`–`y`), moving `v` to the same point in every piece
    /// that holds it: where that piece has the same thin triangle, it is
    /// flattened there too.
    fn flatten(&mut self, k: u32, v: u32, x: u32, y: u32, forced: bool) -> bool {
        let min_length = self.min_length;
        let Some(plan) = self.mesh(k).flatten_plan(v, x, y, min_length, forced) else {
            return false;
        };
        let foot = plan.foot;
        let (rv, rx, ry) = (self.root(k, v), self.root(k, x), self.root(k, y));
        let (cx, cy) = (self.copies(rx), self.copies(ry));
        let copy_in = |c: &Copies, q: u32| c.iter().find(|c| c.0 == q).map(|c| c.1);
        let mut plans = Vec::new();
        for (q, vq) in self.copies(rv) {
            self.ensure(q as usize);
            let m = self.mesh(q);
            let plan_q = if q == k {
                Some(plan)
            } else if let (Some(xq), Some(yq)) = (copy_in(&cx, q), copy_in(&cy, q))
                && m.has_triangle(vq, xq, yq)
            {
                match m.flatten_plan(vq, xq, yq, min_length, forced) {
                    Some(p) => Some(p),
                    None => return false,
                }
            } else {
                None
            };
            if plan_q.is_none() && !m.fits(&[vq], foot, forced, &[]) {
                return false;
            }
            plans.push((q, vq, plan_q));
        }
        let moves: Vec<(u32, Vec<u32>, Vec<u32>)> = plans
            .iter()
            .map(|(q, vq, plan_q)| (*q, vec![*vq], plan_q.iter().map(|p| p.thin).collect()))
            .collect();
        let moves: Vec<(u32, Vec<u32>, &[u32])> = moves
            .iter()
            .map(|(q, v, skip)| (*q, v.clone(), skip.as_slice()))
            .collect();
        let Some(balance) = self.balance(&moves, foot) else {
            return false;
        };
        self.imbalance.extend(balance);
        for (q, vq, plan_q) in plans {
            self.active[q as usize] = true;
            let m = self.mesh_mut(q);
            match plan_q {
                Some(mut p) => {
                    p.foot = foot;
                    m.apply_flatten(&p);
                }
                None => m.move_vertex(vq, foot),
            }
        }
        true
    }
}
