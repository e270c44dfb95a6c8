//! Conforming caps: both sides of every Voronoi cut get the same boundary
//! vertices before the shared pass moves any of them.
//!
//! Each cell is carved on its own, and every cut splits the source
//! surface's triangles it crosses. Where a cell's later bisector then
//! crosses those split triangles, its cap boundary gets a vertex on each
//! new edge; the cell across that cut never made the earlier cuts, so its
//! cap boundary runs straight past the same point, a T-junction. The two
//! caps cover the same region (equal areas to rounding), but a vertex held
//! by one side only cannot be moved on both: the shared pass moving it
//! would make the sides differ (bond area ≠ cap area; measured on Spot at
//! 500 sites before this step: caps of one cut differing by up to 0.4 %).
//!
//! So before the shared pass, every cap vertex of cell `c` on a cap tagged
//! `t` (the cut toward cell `t`) that no piece of cell `t` holds is
//! inserted there: the edge of the cap tagged `c` that passes within the
//! copy tolerance of it is split at exactly its position (no geometry
//! moves by more than the tolerance). The shared pass then finds it as a
//! copy like any other.

use crate::hierarchy::PARENT_TAG_BASE;
use crate::piece::{EXTERIOR, Piece};
use glam::DVec3;
use std::collections::BTreeMap;

/// Inserts into the pieces of each cell the cap vertices of the cells
/// across that they lack (see the module docs). `cells[k]` is piece `k`'s
/// cell, whose site index is the tag of the caps its cuts make in its
/// neighbours; `tolerance` (m) is the copy tolerance. Returns the number of
/// vertices inserted.
pub(crate) fn conform_caps(pieces: &mut [&mut Piece], cells: &[u32], tolerance: f64) -> u32 {
    let mut of_cell: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (k, &c) in cells.iter().enumerate() {
        of_cell.entry(c).or_default().push(k);
    }
    // (piece, edge a, edge b, point), found before any piece changes.
    let mut splits: Vec<(usize, u32, u32, DVec3)> = Vec::new();
    for k in 0..pieces.len() {
        let piece = &*pieces[k];
        let mut at: Vec<(u32, u32)> = piece
            .triangles
            .iter()
            .zip(&piece.tags)
            .filter(|&(_, &tag)| tag != EXTERIOR && tag & PARENT_TAG_BASE == 0)
            .flat_map(|(t, &tag)| t.iter().map(move |&v| (tag, v)))
            .collect();
        at.sort_unstable();
        at.dedup();
        for (tag, v) in at {
            let Some(across) = of_cell.get(&tag) else {
                continue;
            };
            let x = piece.positions[v as usize];
            if let Some((q, a, b)) = missing_in(pieces, across, cells[k], x, tolerance) {
                splits.push((q, a, b, x));
            }
        }
    }
    splits.sort_unstable_by(|p, q| {
        (p.0, p.1.min(p.2), p.1.max(p.2))
            .cmp(&(q.0, q.1.min(q.2), q.1.max(q.2)))
            .then(
                p.3.to_array()
                    .partial_cmp(&q.3.to_array())
                    .unwrap_or(std::cmp::Ordering::Equal),
            )
    });
    splits.dedup_by(|p, q| p.0 == q.0 && p.3.distance(q.3) <= tolerance);
    let mut inserted = 0;
    for (q, a, b, x) in splits {
        if split_edge_at(pieces[q], a, b, x, tolerance) {
            inserted += 1;
        }
    }
    inserted
}

/// Where the pieces `across` (one cell) lack a vertex at `x`: the piece
/// and the edge of its cap tagged `tag` that passes within `tolerance` of
/// `x` (strictly between its ends). `None` when a vertex is there, or no
/// such edge (the point is not on that cap).
fn missing_in(
    pieces: &[&mut Piece],
    across: &[usize],
    tag: u32,
    x: DVec3,
    tolerance: f64,
) -> Option<(usize, u32, u32)> {
    let mut edge = None;
    for &q in across {
        let p = &*pieces[q];
        for (t, _) in p.triangles.iter().zip(&p.tags).filter(|&(_, &g)| g == tag) {
            for e in 0..3 {
                let (a, b) = (t[e], t[(e + 1) % 3]);
                let (pa, pb) = (p.positions[a as usize], p.positions[b as usize]);
                if pa.distance(x) <= tolerance || pb.distance(x) <= tolerance {
                    return None;
                }
                if edge.is_none() {
                    let ab = pb - pa;
                    let s = (x - pa).dot(ab) / ab.length_squared();
                    if s > 0.0 && s < 1.0 && (pa + ab * s).distance(x) <= tolerance {
                        edge = Some((q, a.min(b), a.max(b)));
                    }
                }
            }
        }
    }
    edge
}

/// Splits edge `a`–`b` of `piece` at `x`: each of its two triangles
/// becomes two, keeping its tag. The edge may have been split already
/// (several points on it): the sub-edge that passes within `tolerance` of
/// `x` is split. False when no such edge is found.
fn split_edge_at(piece: &mut Piece, a: u32, b: u32, x: DVec3, tolerance: f64) -> bool {
    // The edge (or the piece of it, after earlier splits) nearest x.
    let mut found = None;
    for t in &piece.triangles {
        for e in 0..3 {
            let (u, v) = (t[e], t[(e + 1) % 3]);
            let (pu, pv) = (piece.positions[u as usize], piece.positions[v as usize]);
            let uv = pv - pu;
            let s = (x - pu).dot(uv) / uv.length_squared();
            let on_line = |p: DVec3| {
                let (pa, pb) = (piece.positions[a as usize], piece.positions[b as usize]);
                let ab = pb - pa;
                let k = (p - pa).dot(ab) / ab.length_squared();
                (-1e-12..=1.0 + 1e-12).contains(&k) && (pa + ab * k).distance(p) <= tolerance
            };
            if s > 0.0
                && s < 1.0
                && (pu + uv * s).distance(x) <= tolerance
                && on_line(pu)
                && on_line(pv)
            {
                found = Some((u.min(v), u.max(v)));
                break;
            }
        }
        if found.is_some() {
            break;
        }
    }
    let Some((u, v)) = found else {
        return false;
    };
    let p = piece.positions.len() as u32;
    piece.positions.push(x);
    let n = piece.triangles.len();
    let mut split = 0;
    for i in 0..n {
        let t = piece.triangles[i];
        for e in 0..3 {
            let (s, d, o) = (t[e], t[(e + 1) % 3], t[(e + 2) % 3]);
            if (s, d) == (u, v) || (s, d) == (v, u) {
                piece.triangles[i] = [s, p, o];
                piece.triangles.push([p, d, o]);
                let tag = piece.tags[i];
                piece.tags.push(tag);
                split += 1;
                break;
            }
        }
    }
    if split != 2 {
        eprintln!("split {split} triangles at {x:?} edge {u} {v}");
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two unit squares' worth of caps facing each other: cell 0's cap
    /// (tag 1) has a vertex in the middle of an edge that cell 1's cap
    /// (tag 0) lacks.
    #[test]
    fn a_t_junction_vertex_is_inserted_across() {
        let square = |tag: u32, with_mid: bool| {
            let mut positions = vec![
                DVec3::new(0.0, 0.0, 0.0),
                DVec3::new(1.0, 0.0, 0.0),
                DVec3::new(1.0, 1.0, 0.0),
                DVec3::new(0.0, 1.0, 0.0),
                DVec3::new(0.5, 0.5, -1.0),
            ];
            // A closed pyramid: the square is the cap, four sides exterior.
            let mut triangles = vec![
                [0, 2, 1],
                [0, 3, 2],
                [0, 1, 4],
                [1, 2, 4],
                [2, 3, 4],
                [3, 0, 4],
            ];
            let mut tags = vec![tag, tag, EXTERIOR, EXTERIOR, EXTERIOR, EXTERIOR];
            if with_mid {
                positions.push(DVec3::new(0.5, 0.0, 0.0));
                triangles = vec![
                    [0, 2, 5],
                    [5, 2, 1],
                    [0, 3, 2],
                    [0, 5, 4],
                    [5, 1, 4],
                    [1, 2, 4],
                    [2, 3, 4],
                    [3, 0, 4],
                ];
                tags = vec![
                    tag, tag, tag, EXTERIOR, EXTERIOR, EXTERIOR, EXTERIOR, EXTERIOR,
                ];
            }
            Piece {
                positions,
                triangles,
                tags,
            }
        };
        let mut a = square(1, true);
        let mut b = square(0, false);
        let mut pieces = [&mut a, &mut b];
        assert_eq!(conform_caps(&mut pieces, &[0, 1], 1e-9), 1);
        assert_eq!(b.positions.len(), 6);
        assert_eq!(b.positions[5], DVec3::new(0.5, 0.0, 0.0));
        assert_eq!(b.triangles.len(), 8);
        assert_eq!(b.defect_edges(), 0);
        let cap = |p: &Piece, tag| p.tagged_area(tag).0;
        assert!((cap(&b, 0) - 1.0).abs() < 1e-15);
        // Nothing left to insert, either way.
        let mut pieces = [&mut a, &mut b];
        assert_eq!(conform_caps(&mut pieces, &[0, 1], 1e-9), 0);
    }
}
