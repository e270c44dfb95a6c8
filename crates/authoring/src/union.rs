//! The surface of a merged chunk: the union of raw pieces that touch along
//! cut faces (issue 16, item 2).
//!
//! A sliver merged into a neighbour touches it along an interface: the
//! sliver's caps facing the neighbour and the neighbour's caps facing the
//! sliver cover (parts of) the same region of one plane, wound oppositely.
//! The union's boundary keeps neither. Both sets of caps are removed; the
//! rims they leave open are welded (within the weld distance) and their
//! T-junctions split, so rims that coincide pair up and the walls on either
//! side join; whatever part of a removed cap the other side did not cover
//! (the two caps' symmetric difference) is capped again with the
//! constrained Delaunay capper. The result is one closed, consistently
//! wound surface whose cut faces are exactly those of its outer boundary.

use crate::cap::triangulate_signed_cap;
use crate::piece::{Piece, Plane};
use crate::topology::{edge_uses, unpaired_edges};
use glam::DVec3;

/// An interface between two of the pieces being joined: `pieces[a]`'s
/// triangles tagged `tags[0]` face `pieces[b]`'s tagged `tags[1]` across
/// `plane`, whose normal points from `a` to `b`.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Interface {
    pub a: usize,
    pub b: usize,
    pub tags: [u32; 2],
    pub plane: Plane,
}

/// Passes of T-junction splitting before giving up; each pass splits at
/// most one rim edge per triangle, and rims of cut faces rarely need more
/// than two.
const SPLIT_PASSES: usize = 16;

/// The closed surface of the union of `pieces`, which touch along
/// `interfaces` (see the module docs). `weld` (m) is the distance within
/// which rim vertices are the same point and a vertex lies on a rim edge.
/// Triangles keep their tags; new caps take the tag of their side of the
/// interface (`tags[0]` where `a`'s cap is left uncovered, `tags[1]` where
/// `b`'s is). Deterministic: no hashing, ties broken by index.
///
/// # Errors
/// A message when the result would not be a closed, consistently oriented
/// surface (rims that do not meet within `weld` outside the interface
/// planes, a cap the triangulator rejects); the caller then keeps the
/// pieces' own surfaces.
pub(crate) fn union_surface(
    pieces: &[&Piece],
    interfaces: &[Interface],
    weld: f64,
) -> Result<Piece, String> {
    let mut out = Piece::default();
    let mut owner: Vec<usize> = Vec::new();
    for (k, piece) in pieces.iter().enumerate() {
        let base = out.positions.len() as u32;
        out.positions.extend_from_slice(&piece.positions);
        out.triangles
            .extend(piece.triangles.iter().map(|t| t.map(|i| i + base)));
        out.tags.extend_from_slice(&piece.tags);
        owner.extend(std::iter::repeat_n(k, piece.triangles.len()));
    }
    let facing = |k: usize| {
        interfaces.iter().any(|f| {
            (owner[k] == f.a && out.tags[k] == f.tags[0])
                || (owner[k] == f.b && out.tags[k] == f.tags[1])
        })
    };
    let keep: Vec<bool> = (0..out.triangles.len()).map(|k| !facing(k)).collect();
    let mut k = 0;
    out.triangles.retain(|_| {
        k += 1;
        keep[k - 1]
    });
    let mut k = 0;
    out.tags.retain(|_| {
        k += 1;
        keep[k - 1]
    });

    weld_rims(&mut out, weld);
    split_rim_t_junctions(&mut out, weld)?;

    // What the two sides did not both cover: cap it again, per plane.
    let mut open = unpaired_edges(&out.triangles);
    for f in interfaces {
        if open.is_empty() {
            break;
        }
        let near = |i: u32| f.plane.distance(out.positions[i as usize]).abs() <= weld;
        let mut here: Vec<(u32, u32)> = Vec::new();
        open.retain(|&(x, y)| {
            let on_plane = near(x) && near(y);
            if on_plane {
                here.push((x, y));
            }
            !on_plane
        });
        if here.is_empty() {
            continue;
        }
        // The capper wants the region on the left of each segment.
        let segments: Vec<(u32, u32)> = here.iter().map(|&(x, y)| (y, x)).collect();
        let cap = triangulate_signed_cap(&out.positions, &segments, &f.plane)?;
        for t in cap {
            let [p, q, r] = t.map(|i| out.positions[i as usize]);
            let along = (q - p).cross(r - p).dot(f.plane.normal) >= 0.0;
            out.triangles.push(t);
            out.tags.push(if along { f.tags[0] } else { f.tags[1] });
        }
    }
    if !open.is_empty() {
        return Err(format!(
            "{} rim edges of the merged pieces lie off their interfaces",
            open.len()
        ));
    }
    let defects = edge_uses(&out.triangles)
        .iter()
        .filter(|e| !e.is_manifold())
        .count();
    if defects > 0 {
        return Err(format!(
            "the union has {defects} edges not used exactly twice"
        ));
    }
    out.compact();
    Ok(out)
}

/// Welds the vertices of open edges that lie within `weld` (m) of each
/// other onto the lowest index among them, and drops triangles that
/// collapse. Candidates are found by a sweep along x (sorted, so the
/// result does not depend on anything but the input).
fn weld_rims(piece: &mut Piece, weld: f64) {
    let mut rim: Vec<u32> = unpaired_edges(&piece.triangles)
        .into_iter()
        .flat_map(|(a, b)| [a, b])
        .collect();
    rim.sort_unstable();
    rim.dedup();
    let p = &piece.positions;
    rim.sort_by(|&a, &b| p[a as usize].x.total_cmp(&p[b as usize].x).then(a.cmp(&b)));
    let mut root: Vec<u32> = (0..p.len() as u32).collect();
    fn find(root: &mut [u32], mut x: u32) -> u32 {
        while root[x as usize] != x {
            root[x as usize] = root[root[x as usize] as usize];
            x = root[x as usize];
        }
        x
    }
    for (k, &a) in rim.iter().enumerate() {
        for &b in &rim[k + 1..] {
            if p[b as usize].x - p[a as usize].x > weld {
                break;
            }
            if p[a as usize].distance(p[b as usize]) <= weld {
                let (ra, rb) = (find(&mut root, a), find(&mut root, b));
                root[ra.max(rb) as usize] = ra.min(rb);
            }
        }
    }
    let mut keep = Vec::with_capacity(piece.triangles.len());
    for t in &mut piece.triangles {
        *t = t.map(|i| find(&mut root, i));
        keep.push(t[0] != t[1] && t[1] != t[2] && t[2] != t[0]);
    }
    let mut k = 0;
    piece.triangles.retain(|_| {
        k += 1;
        keep[k - 1]
    });
    let mut k = 0;
    piece.tags.retain(|_| {
        k += 1;
        keep[k - 1]
    });
}

/// Splits every open edge that has another open edge's vertex on it
/// (within `weld`, m, strictly between its ends) into a fan through the
/// opposite corner of its triangle, so that the two rims share vertices and
/// coinciding parts pair up.
///
/// # Errors
/// When splitting has not settled after [`SPLIT_PASSES`] passes.
fn split_rim_t_junctions(piece: &mut Piece, weld: f64) -> Result<(), String> {
    for _ in 0..SPLIT_PASSES {
        let open = unpaired_edges(&piece.triangles);
        let mut rim: Vec<u32> = open.iter().flat_map(|&(a, b)| [a, b]).collect();
        rim.sort_unstable();
        rim.dedup();
        let p = &piece.positions;
        rim.sort_by(|&a, &b| p[a as usize].x.total_cmp(&p[b as usize].x).then(a.cmp(&b)));
        // (directed edge, triangle, corner of the edge's start)
        let mut owners: Vec<((u32, u32), usize, usize)> = Vec::new();
        for (k, t) in piece.triangles.iter().enumerate() {
            for c in 0..3 {
                owners.push(((t[c], t[(c + 1) % 3]), k, c));
            }
        }
        owners.sort_unstable();
        let mut touched = vec![false; piece.triangles.len()];
        let mut replaced: Vec<(usize, Vec<[u32; 3]>)> = Vec::new();
        for &(a, b) in &open {
            let (pa, pb) = (p[a as usize], p[b as usize]);
            let (lo, hi) = (pa.x.min(pb.x) - weld, pa.x.max(pb.x) + weld);
            let start = rim.partition_point(|&v| p[v as usize].x < lo);
            let mut on: Vec<(f64, u32)> = Vec::new();
            for &v in &rim[start..] {
                let pv = p[v as usize];
                if pv.x > hi {
                    break;
                }
                if v == a || v == b {
                    continue;
                }
                if let Some(t) = inside_segment(pa, pb, pv, weld) {
                    on.push((t, v));
                }
            }
            if on.is_empty() {
                continue;
            }
            let at = owners.partition_point(|o| o.0 < (a, b));
            let Some(&(_, tri, corner)) = owners.get(at).filter(|o| o.0 == (a, b)) else {
                continue;
            };
            if touched[tri] {
                continue;
            }
            touched[tri] = true;
            on.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
            let c = piece.triangles[tri][(corner + 2) % 3];
            let mut chain = vec![a];
            chain.extend(on.iter().map(|&(_, v)| v));
            chain.push(b);
            let fan = chain.windows(2).map(|w| [w[0], w[1], c]).collect();
            replaced.push((tri, fan));
        }
        if replaced.is_empty() {
            return Ok(());
        }
        replaced.sort_by_key(|r| r.0);
        let (mut triangles, mut tags) = (Vec::new(), Vec::new());
        let mut next = replaced.iter().peekable();
        for (k, (t, &g)) in piece.triangles.iter().zip(&piece.tags).enumerate() {
            match next.peek() {
                Some((r, fan)) if *r == k => {
                    triangles.extend_from_slice(fan);
                    tags.extend(std::iter::repeat_n(g, fan.len()));
                    next.next();
                }
                _ => {
                    triangles.push(*t);
                    tags.push(g);
                }
            }
        }
        piece.triangles = triangles;
        piece.tags = tags;
    }
    Err(format!(
        "rim T-junctions not settled after {SPLIT_PASSES} passes"
    ))
}

/// Parameter `t` in (0, 1) of `v`'s projection onto segment `a`–`b` when
/// `v` lies within `weld` (m) of the segment and more than `weld` from both
/// ends; `None` otherwise.
fn inside_segment(a: DVec3, b: DVec3, v: DVec3, weld: f64) -> Option<f64> {
    let ab = b - a;
    let length2 = ab.length_squared();
    if length2 <= 0.0 {
        return None;
    }
    let t = (v - a).dot(ab) / length2;
    let foot = a + ab * t;
    let inside = v.distance(a) > weld && v.distance(b) > weld && (0.0..=1.0).contains(&t);
    (inside && v.distance(foot) <= weld).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::piece::EXTERIOR;

    /// Closed box `[lo, hi]`; its −x face tagged `low`, its +x face
    /// tagged `high`, the rest exterior.
    fn slab(lo: DVec3, hi: DVec3, low: u32, high: u32) -> Piece {
        let positions = crate::mesh::box_corners(lo, hi);
        let triangles = crate::mesh::BOX_TRIANGLES.to_vec();
        let tags = triangles
            .iter()
            .map(|t: &[u32; 3]| {
                let xs = t.map(|i| positions[i as usize].x);
                if xs.iter().all(|&x| x == lo.x) {
                    low
                } else if xs.iter().all(|&x| x == hi.x) {
                    high
                } else {
                    EXTERIOR
                }
            })
            .collect();
        Piece {
            positions,
            triangles,
            tags,
        }
    }

    fn cap_area(piece: &Piece) -> f64 {
        piece
            .cap_tags()
            .iter()
            .map(|&t| piece.tagged_area(t).0)
            .sum()
    }

    #[test]
    fn two_boxes_sharing_a_whole_face_join_into_one_closed_box() {
        let a = slab(DVec3::ZERO, DVec3::new(0.3, 1.0, 1.0), EXTERIOR, 0);
        let b = slab(DVec3::new(0.3, 0.0, 0.0), DVec3::new(0.31, 1.0, 1.0), 0, 1);
        let plane = Plane {
            point: DVec3::new(0.3, 0.5, 0.5),
            normal: DVec3::X,
        };
        let f = Interface {
            a: 0,
            b: 1,
            tags: [0, 0],
            plane,
        };
        let u = union_surface(&[&a, &b], &[f], 1e-9).unwrap();
        assert_eq!(u.defect_edges(), 0);
        assert!(
            (cap_area(&u) - 1.0).abs() < 1e-12,
            "only the +x face is a cap"
        );
        assert_eq!(u.cap_tags(), vec![1]);
    }

    #[test]
    fn a_small_box_on_a_large_face_leaves_the_uncovered_rim_capped() {
        // A 1 m cube with its +x face a cap, and a 0.2 m box on part of it.
        let a = slab(DVec3::ZERO, DVec3::ONE, EXTERIOR, 0);
        let b = slab(
            DVec3::new(1.0, 0.4, 0.4),
            DVec3::new(1.2, 0.6, 0.6),
            0,
            EXTERIOR,
        );
        let plane = Plane {
            point: DVec3::new(1.0, 0.5, 0.5),
            normal: DVec3::X,
        };
        let f = Interface {
            a: 0,
            b: 1,
            tags: [0, 0],
            plane,
        };
        let u = union_surface(&[&a, &b], &[f], 1e-9).unwrap();
        assert_eq!(u.defect_edges(), 0);
        // The cube's face minus the box's footprint stays a cap.
        assert!((cap_area(&u) - (1.0 - 0.04)).abs() < 1e-12);
        let volume =
            crate::mass_properties::polyhedron_mass_properties(&u.positions, &u.triangles, 1.0)
                .volume;
        assert!((volume - (1.0 + 0.008)).abs() < 1e-12);
    }
}
