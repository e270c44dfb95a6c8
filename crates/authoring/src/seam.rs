//! Seams: the straight lines where two flat regions of a carved piece meet
//! (two caps, or a cap and a flat face of the source surface), and the
//! vertices on them that carry no shape.
//!
//! A planar pattern (slices, bricks, planes) cuts a piece by one plane
//! after another. Cut `k` crosses the triangles of every earlier cap, and of
//! the flat faces of the source surface, and leaves a vertex wherever it
//! crosses one of their edges; each clip fans the part of a cut triangle it
//! keeps, so the flat faces of what remains gather long fan triangles that
//! every later cut crosses again. The vertices pile up on the seams
//! (where two planes of the piece meet), collinear between the seam's two
//! real ends: a unit cube sliced into 100 slabs had about 8k vertices on
//! slab k and 4n² triangles in all (80,000 where 1,200 do), and a
//! 48 × 24 × 2 slice of a box took 8.4 s with 353 interior triangles per
//! block (bad-input sweep, 2026-12-03).
//!
//! [`dissolve_seam_vertices`] collapses every such vertex onto a neighbour
//! along its seam after each cut. A vertex is on a seam when the triangles
//! around it carry exactly two tags and each tag's triangles there are flat
//! (every vertex of theirs within `flat` of the plane of the largest), in
//! two planes that are not parallel. Tags are checked by geometry, not
//! trusted: a cap lies in its cutting plane, but source-surface triangles
//! share one tag however curved, and a refined piece carries the coarse
//! level's cap tags beside its own cuts' (the same numbers). The vertex is
//! then off any corner of three planes, and its two seam neighbours are the ends of the edges
//! where a triangle of one plane meets one of the other. Moving it onto one
//! of them along the (straight) seam keeps every triangle around it in its
//! plane, so the piece's shape, volume and cap areas stay what they were
//! (up to rounding and `flat`).
//!
//! A collapse is made only when it keeps the surface a closed 2-manifold
//! (the link condition: the two vertices share exactly the two neighbours
//! across the collapsed edge) and turns no triangle over or nearly flat (its
//! doubled area keeps the same direction and at least
//! [`MIN_AREA_RATIO`] of what it was). Vertices are visited in index order
//! and a collapse locks its one-ring for the rest of the pass; passes repeat
//! until one collapses nothing, so the result depends only on the piece.

use crate::piece::Piece;

/// Smallest fraction of its doubled area a triangle may keep when a seam
/// vertex moves (larger changes are refused, not made): 1e-3. A move along
/// a straight seam shrinks the triangles fanned from the moving vertex on
/// one side; those that would turn into slivers keep the vertex.
pub(crate) const MIN_AREA_RATIO: f64 = 1e-3;

/// Smallest sine of the angle between the two planes of a seam: two groups
/// of triangles closer to parallel are one flat region, whose vertices stay.
const MIN_SEAM_SINE: f64 = 1e-6;

/// Most passes over the piece (each collapses at least one vertex or is the
/// last): a run of `m` collinear vertices needs about `log₃ m` passes, so
/// 32 is never reached in practice; it bounds the work on hostile input.
const MAX_PASSES: usize = 32;

/// Collapses the vertices of `piece` that sit in the middle of a seam (see
/// the module docs). Returns how many were removed. The piece stays closed
/// and manifold if it was; unused vertices are dropped (`Piece::compact`).
pub(crate) fn dissolve_seam_vertices(piece: &mut Piece, flat: f64) -> usize {
    let mut removed = 0;
    let mut dead = vec![false; piece.triangles.len()];
    let mut state = Pass {
        flat,
        ..Pass::default()
    };
    for _ in 0..MAX_PASSES {
        let n = state.run(piece, &mut dead);
        removed += n;
        if n == 0 {
            break;
        }
    }
    if removed > 0 {
        let mut k = 0;
        piece.triangles.retain(|_| {
            k += 1;
            !dead[k - 1]
        });
        let mut k = 0;
        piece.tags.retain(|_| {
            k += 1;
            !dead[k - 1]
        });
        piece.compact();
    }
    removed
}

/// Buffers of one pass, reused across passes.
#[derive(Default)]
struct Pass {
    /// Source-surface triangles around a vertex are one plane when all
    /// their vertices lie within this distance (m) of it.
    flat: f64,
    /// Incident live triangles of each vertex: `incident[start[v]..start[v + 1]]`.
    start: Vec<u32>,
    incident: Vec<u32>,
    locked: Vec<bool>,
    ring: Vec<u32>,
}

impl Pass {
    /// One pass in vertex order; returns the number of collapses.
    fn run(&mut self, piece: &mut Piece, dead: &mut [bool]) -> usize {
        let nv = piece.positions.len();
        self.start.clear();
        self.start.resize(nv + 1, 0);
        for (t, tri) in piece.triangles.iter().enumerate() {
            if !dead[t] {
                for &v in tri {
                    self.start[v as usize + 1] += 1;
                }
            }
        }
        for v in 0..nv {
            self.start[v + 1] += self.start[v];
        }
        self.incident.clear();
        self.incident.resize(self.start[nv] as usize, 0);
        let mut fill: Vec<u32> = self.start[..nv].to_vec();
        for (t, tri) in piece.triangles.iter().enumerate() {
            if !dead[t] {
                for &v in tri {
                    self.incident[fill[v as usize] as usize] = t as u32;
                    fill[v as usize] += 1;
                }
            }
        }
        self.locked.clear();
        self.locked.resize(nv, false);
        let mut collapses = 0;
        for v in 0..nv as u32 {
            if self.locked[v as usize] {
                continue;
            }
            if let Some(u) = self.seam_target(piece, v) {
                self.collapse(piece, dead, v, u);
                collapses += 1;
            }
        }
        collapses
    }

    fn around(&self, v: u32) -> &[u32] {
        &self.incident[self.start[v as usize] as usize..self.start[v as usize + 1] as usize]
    }

    /// The seam neighbour `v` can collapse onto, nearer first, if any.
    fn seam_target(&mut self, piece: &Piece, v: u32) -> Option<u32> {
        let around = self.around(v);
        if around.len() < 4 {
            return None;
        }
        let first = piece.tags[around[0] as usize];
        let mut second = None;
        for &t in around {
            let tag = piece.tags[t as usize];
            if tag != first {
                match second {
                    None => second = Some(tag),
                    Some(s) if s != tag => return None,
                    Some(_) => {}
                }
            }
        }
        let second = second?;
        // Both groups flat, and not one plane (tags are checked by geometry,
        // not trusted: a refined piece carries the coarse level's cap tags
        // beside its own cuts' tags, which can be the same numbers).
        let n1 = self.flat_normal(piece, v, first)?;
        let n2 = self.flat_normal(piece, v, second)?;
        if n1.cross(n2).length() < MIN_SEAM_SINE {
            return None;
        }
        // Seam neighbours: ends of edges (v, x) with triangles of both tags.
        let mut ends = [u32::MAX; 2];
        let mut count = 0;
        for &t in around {
            if piece.tags[t as usize] != first {
                continue;
            }
            let tri = piece.triangles[t as usize];
            for &x in &tri {
                if x == v {
                    continue;
                }
                let other_tag = around.iter().any(|&s| {
                    piece.tags[s as usize] == second && piece.triangles[s as usize].contains(&x)
                });
                if other_tag && !ends[..count].contains(&x) {
                    if count == 2 {
                        return None;
                    }
                    ends[count] = x;
                    count += 1;
                }
            }
        }
        if count != 2 {
            return None;
        }
        let p = piece.positions[v as usize];
        let d = |x: u32| piece.positions[x as usize].distance_squared(p);
        let (near, far) = if d(ends[1]) < d(ends[0]) {
            (ends[1], ends[0])
        } else {
            (ends[0], ends[1])
        };
        [near, far]
            .into_iter()
            .find(|&u| !self.locked[u as usize] && self.can_collapse(piece, v, u))
    }

    /// The unit normal of the triangles tagged `tag` around `v` when they
    /// are flat: every vertex of theirs within [`Pass::flat`] of the plane
    /// of the largest.
    fn flat_normal(&self, piece: &Piece, v: u32, tag: u32) -> Option<glam::DVec3> {
        let around = self.around(v);
        let group = || {
            around
                .iter()
                .filter(move |&&t| piece.tags[t as usize] == tag)
                .map(|&t| piece.triangles[t as usize])
        };
        let normal = |tri: [u32; 3]| {
            let [a, b, c] = tri.map(|i| piece.positions[i as usize]);
            (b - a).cross(c - a)
        };
        let largest = group().max_by(|&x, &y| {
            normal(x)
                .length_squared()
                .total_cmp(&normal(y).length_squared())
        })?;
        let n = normal(largest).try_normalize()?;
        let o = piece.positions[v as usize];
        group()
            .all(|tri| {
                tri.iter()
                    .all(|&i| n.dot(piece.positions[i as usize] - o).abs() <= self.flat)
            })
            .then_some(n)
    }

    /// Link condition and no flipped or flattened triangle for `v → u`.
    fn can_collapse(&mut self, piece: &Piece, v: u32, u: u32) -> bool {
        let mut on_edge = 0;
        let mut ring = std::mem::take(&mut self.ring);
        ring.clear();
        let (s, e) = (
            self.start[v as usize] as usize,
            self.start[v as usize + 1] as usize,
        );
        for &t in &self.incident[s..e] {
            let tri = piece.triangles[t as usize];
            if tri.contains(&u) {
                on_edge += 1;
                continue;
            }
            let [a, b, c] = tri.map(|i| piece.positions[i as usize]);
            let before = (b - a).cross(c - a);
            let moved = tri.map(|i| {
                if i == v {
                    piece.positions[u as usize]
                } else {
                    piece.positions[i as usize]
                }
            });
            let after = (moved[1] - moved[0]).cross(moved[2] - moved[0]);
            let b2 = before.length_squared();
            if !(after.dot(before) > 0.0) || after.length_squared() < MIN_AREA_RATIO.powi(2) * b2 {
                self.ring = ring;
                return false;
            }
            ring.extend(tri.iter().copied().filter(|&x| x != v));
        }
        if on_edge != 2 {
            self.ring = ring;
            return false;
        }
        // Vertices adjacent to both v and u other than the two across the
        // edge would pinch the surface.
        let across: Vec<u32> = self
            .around(v)
            .iter()
            .filter(|&&t| piece.triangles[t as usize].contains(&u))
            .flat_map(|&t| piece.triangles[t as usize])
            .filter(|&x| x != v && x != u)
            .collect();
        let pinched = self.around(u).iter().any(|&t| {
            piece.triangles[t as usize]
                .iter()
                .any(|&x| x != u && x != v && !across.contains(&x) && ring.contains(&x))
        });
        self.ring = ring;
        !pinched
    }

    /// Moves `v` onto `u`: the two triangles on edge `(v, u)` die, the others
    /// around `v` take `u`; `v`, `u` and their one-rings are locked.
    fn collapse(&mut self, piece: &mut Piece, dead: &mut [bool], v: u32, u: u32) {
        let (s, e) = (
            self.start[v as usize] as usize,
            self.start[v as usize + 1] as usize,
        );
        for k in s..e {
            let t = self.incident[k] as usize;
            let tri = &mut piece.triangles[t];
            if tri.contains(&u) {
                dead[t] = true;
            } else {
                for i in tri.iter_mut() {
                    if *i == v {
                        *i = u;
                    }
                }
            }
            for &x in &piece.triangles[t] {
                self.locked[x as usize] = true;
            }
        }
        self.locked[v as usize] = true;
        self.locked[u as usize] = true;
        let (s, e) = (
            self.start[u as usize] as usize,
            self.start[u as usize + 1] as usize,
        );
        for k in s..e {
            for &x in &piece.triangles[self.incident[k] as usize] {
                self.locked[x as usize] = true;
            }
        }
    }
}
