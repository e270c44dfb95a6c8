//! Bonds from shared cut faces.
//!
//! Every cap triangle remembers the site whose bisector plane created it, so
//! the interface between cells `i` and `j` is the set of `i`'s caps tagged
//! `j` (facing `j`) and, from the other side, `j`'s caps tagged `i`. For
//! Voronoi cells of a closed mesh both sets cover the same region of the
//! bisector plane. When a cell fell apart into several chunks, the chunks
//! on the two sides are matched by geometry: the bond area is the overlap of
//! their (coplanar, opposite) caps.

use crate::piece::{Piece, Plane};
use glam::{DVec2, DVec3};

/// One closed piece of a Voronoi cell, before slivers are merged.
#[derive(Clone, Debug)]
pub(crate) struct RawChunk {
    /// Site index of the cell it came from.
    pub cell: u32,
    /// Its closed, tagged surface.
    pub piece: Piece,
}

/// An interface between raw chunks `a < b`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct RawBond {
    pub a: usize,
    pub b: usize,
    /// Tags of the caps that form the interface: `a`'s caps tagged
    /// `tags[0]` face `b`'s caps tagged `tags[1]`.
    pub tags: [u32; 2],
    /// Interface area, m².
    pub area: f64,
    /// Area-weighted centre of the interface, m.
    pub centroid: DVec3,
    /// Unit normal of the interface plane, from `a` towards `b`.
    pub normal: DVec3,
}

/// Finds the interfaces between raw chunks. `chunks` must be ordered by
/// cell; `sites` are the Voronoi sites (m). Interfaces with area below
/// `min_area` (m²) — edge or corner contact, rounding noise — are skipped.
/// Output sorted by `(a, b)`, one entry per pair.
pub(crate) fn find_bonds(chunks: &[RawChunk], sites: &[DVec3], min_area: f64) -> Vec<RawBond> {
    // (cell, neighbour tag, chunk) for every chunk and each cap tag it carries.
    let mut faces: Vec<(u32, u32, usize)> = Vec::new();
    for (k, c) in chunks.iter().enumerate() {
        faces.extend(c.piece.cap_tags().into_iter().map(|t| (c.cell, t, k)));
    }
    faces.sort_unstable();
    let range = |cell: u32, tag: u32| {
        let lo = faces.partition_point(|f| (f.0, f.1) < (cell, tag));
        let hi = faces.partition_point(|f| (f.0, f.1) <= (cell, tag));
        &faces[lo..hi]
    };
    let mut bonds = Vec::new();
    let mut start = 0;
    while start < faces.len() {
        let (i, j) = (faces[start].0, faces[start].1);
        let side_i = range(i, j);
        start += side_i.len();
        if i >= j {
            continue; // each pair once, from the lower cell
        }
        let side_j = range(j, i);
        let (Some(&si), Some(&sj)) = (sites.get(i as usize), sites.get(j as usize)) else {
            continue;
        };
        let Some(plane) = Plane::bisector(si, sj) else {
            continue;
        };
        // One chunk on each side: the whole cap region is shared. Otherwise
        // the chunks are matched by the overlap of their caps.
        let whole = side_i.len() == 1 && side_j.len() == 1;
        for &(_, _, a) in side_i {
            for &(_, _, b) in side_j {
                let (area, centroid) = if whole {
                    chunks[a].piece.tagged_area(j)
                } else {
                    cap_overlap(&chunks[a].piece, j, &chunks[b].piece, i, &plane)
                };
                push_bond(
                    &mut bonds,
                    a,
                    b,
                    [j, i],
                    area,
                    centroid,
                    plane.normal,
                    min_area,
                );
            }
        }
    }
    bonds.sort_by_key(|x| (x.a, x.b));
    bonds
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn push_bond(
    out: &mut Vec<RawBond>,
    a: usize,
    b: usize,
    tags: [u32; 2],
    area: f64,
    centroid: DVec3,
    normal: DVec3,
    min_area: f64,
) {
    // NaN-safe: a NaN area is not above the threshold.
    if area > min_area && centroid.is_finite() {
        let (a, b, tags, normal) = if a < b {
            (a, b, tags, normal)
        } else {
            (b, a, [tags[1], tags[0]], -normal)
        };
        out.push(RawBond {
            a,
            b,
            tags,
            area,
            centroid,
            normal,
        });
    }
}

/// A piece's caps of one tag projected into a plane's basis (m): each
/// triangle counter-clockwise, with its bounding box, and the bounding box
/// of them all. Built once per cap and matched against many
/// ([`projected_overlap`]).
#[derive(Clone, Debug)]
pub(crate) struct ProjectedCap {
    triangles: Vec<[DVec2; 3]>,
    bounds: Vec<(DVec2, DVec2)>,
    lo: DVec2,
    hi: DVec2,
}

impl ProjectedCap {
    /// `piece`'s triangles tagged `tag`, projected into `plane`.
    pub(crate) fn of(piece: &Piece, tag: u32, plane: &Plane) -> Self {
        let (u, v) = plane.basis();
        let triangles: Vec<[DVec2; 3]> = piece
            .triangles
            .iter()
            .zip(&piece.tags)
            .filter(|(_, g)| **g == tag)
            .map(|(t, _)| {
                let mut tri = t.map(|i| {
                    let d = piece.positions[i as usize] - plane.point;
                    DVec2::new(d.dot(u), d.dot(v))
                });
                if cross2(tri[1] - tri[0], tri[2] - tri[0]) < 0.0 {
                    tri.swap(1, 2);
                }
                tri
            })
            .collect();
        let bounds: Vec<(DVec2, DVec2)> = triangles
            .iter()
            .map(|t| (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2])))
            .collect();
        let (lo, hi) = bounds.iter().fold(
            (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY)),
            |(lo, hi), b| (lo.min(b.0), hi.max(b.1)),
        );
        Self {
            triangles,
            bounds,
            lo,
            hi,
        }
    }
}

/// Whether boxes `(alo, ahi)` and `(blo, bhi)` overlap (touching counts).
fn boxes_meet(alo: DVec2, ahi: DVec2, blo: DVec2, bhi: DVec2) -> bool {
    !(alo.x > bhi.x || blo.x > ahi.x || alo.y > bhi.y || blo.y > ahi.y)
}

/// Area (m²) and centroid (m) of the overlap between `p`'s caps tagged
/// `tag_p` and `q`'s caps tagged `tag_q`, both lying in `plane` (`p`'s facing
/// along its normal, `q`'s against it). Each set tiles its region without
/// overlap, so the overlap is the sum of pairwise triangle intersections.
pub(crate) fn cap_overlap(
    p: &Piece,
    tag_p: u32,
    q: &Piece,
    tag_q: u32,
    plane: &Plane,
) -> (f64, DVec3) {
    projected_overlap(
        &ProjectedCap::of(p, tag_p, plane),
        &ProjectedCap::of(q, tag_q, plane),
        plane,
    )
}

/// [`cap_overlap`] of two caps already projected into `plane`. Pairs of
/// triangles whose bounding boxes do not meet add nothing and are skipped;
/// the others are summed in the order of `p`'s triangles, then `q`'s.
pub(crate) fn projected_overlap(p: &ProjectedCap, q: &ProjectedCap, plane: &Plane) -> (f64, DVec3) {
    let mut area = 0.0;
    let mut moment = DVec2::ZERO;
    if boxes_meet(p.lo, p.hi, q.lo, q.hi) {
        for (a, &(alo, ahi)) in p.triangles.iter().zip(&p.bounds) {
            if !boxes_meet(alo, ahi, q.lo, q.hi) {
                continue;
            }
            for (b, &(blo, bhi)) in q.triangles.iter().zip(&q.bounds) {
                if !boxes_meet(alo, ahi, blo, bhi) {
                    continue;
                }
                let poly = clip_convex(a, b);
                let (ar, c) = polygon_area_centroid(poly.as_slice());
                area += ar;
                moment += c * ar;
            }
        }
    }
    if area <= 0.0 {
        return (0.0, plane.point);
    }
    let c = moment / area;
    let (u, v) = plane.basis();
    (area, plane.point + u * c.x + v * c.y)
}

fn cross2(a: DVec2, b: DVec2) -> f64 {
    a.x * b.y - a.y * b.x
}

/// A convex polygon of at most [`Polygon::MAX`] vertices, on the stack.
#[derive(Copy, Clone, Debug)]
struct Polygon {
    points: [DVec2; Polygon::MAX],
    len: usize,
}

impl Polygon {
    /// Each half-plane step emits at most two points per input edge, so a
    /// triangle clipped by three half-planes has at most 3 · 2³ vertices
    /// (exactly convex input gains at most one per step, 6 in all; the bound
    /// also covers signs that rounding makes inconsistent), and no point is
    /// ever dropped.
    const MAX: usize = 24;

    fn as_slice(&self) -> &[DVec2] {
        &self.points[..self.len]
    }

    fn push(&mut self, p: DVec2) {
        // Never more than `MAX` (above); checked rather than indexed anyway.
        if let Some(slot) = self.points.get_mut(self.len) {
            *slot = p;
            self.len += 1;
        }
    }
}

/// Sutherland–Hodgman: triangle `subject` clipped by the counter-clockwise
/// triangle `clip`.
fn clip_convex(subject: &[DVec2; 3], clip: &[DVec2; 3]) -> Polygon {
    let mut poly = Polygon {
        points: [DVec2::ZERO; Polygon::MAX],
        len: 3,
    };
    poly.points[..3].copy_from_slice(subject);
    for k in 0..3 {
        if poly.len == 0 {
            break;
        }
        let (e0, e1) = (clip[k], clip[(k + 1) % 3]);
        let side = |p: DVec2| cross2(e1 - e0, p - e0);
        let input = poly;
        poly.len = 0;
        let input = input.as_slice();
        for m in 0..input.len() {
            let (cur, nxt) = (input[m], input[(m + 1) % input.len()]);
            let (sc, sn) = (side(cur), side(nxt));
            if sc >= 0.0 {
                poly.push(cur);
            }
            if (sc >= 0.0) != (sn >= 0.0) {
                let t = sc / (sc - sn);
                poly.push(cur + (nxt - cur) * t);
            }
        }
    }
    poly
}

fn polygon_area_centroid(poly: &[DVec2]) -> (f64, DVec2) {
    if poly.len() < 3 {
        return (0.0, DVec2::ZERO);
    }
    let o = poly[0];
    let mut area = 0.0;
    let mut moment = DVec2::ZERO;
    for k in 1..poly.len() - 1 {
        let (a, b) = (poly[k] - o, poly[k + 1] - o);
        let at = 0.5 * cross2(a, b);
        area += at;
        moment += (a + b) * (at / 3.0);
    }
    if area <= 0.0 {
        return (0.0, o);
    }
    (area, o + moment / area)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_unit_triangles_clip_to_the_expected_area() {
        let a = [
            DVec2::new(0.0, 0.0),
            DVec2::new(1.0, 0.0),
            DVec2::new(0.0, 1.0),
        ];
        let b = [
            DVec2::new(1.0, 1.0),
            DVec2::new(0.0, 1.0),
            DVec2::new(1.0, 0.0),
        ];
        let (area, _) = polygon_area_centroid(clip_convex(&a, &b).as_slice());
        assert!(area.abs() < 1e-12, "they only share the diagonal");
        let c = [
            DVec2::new(0.0, 0.0),
            DVec2::new(2.0, 0.0),
            DVec2::new(0.0, 2.0),
        ];
        let (area, centroid) = polygon_area_centroid(clip_convex(&a, &c).as_slice());
        assert!((area - 0.5).abs() < 1e-12);
        assert!((centroid - DVec2::splat(1.0 / 3.0)).length() < 1e-12);
    }
}
