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
/// neighbours; `tolerance` (m) is the copy tolerance; a point closer than
/// `near` (m) to a vertex of the cap across is not inserted (the collapse
/// joins the two; splitting there would leave an edge too short for the
/// f32 render mesh). Returns the number of vertices inserted.
pub(crate) fn conform_caps(
    pieces: &mut [&mut Piece],
    cells: &[u32],
    tolerance: f64,
    near: f64,
) -> u32 {
    let mut of_cell: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (k, &c) in cells.iter().enumerate() {
        of_cell.entry(c).or_default().push(k);
    }
    // (piece, edge low, edge high, parameter along low → high, point),
    // found before any piece changes.
    let mut splits: Vec<(usize, u32, u32, f64, DVec3)> = Vec::new();
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
            if let Some((q, a, b, s)) = missing_in(pieces, across, cells[k], x, tolerance, near) {
                splits.push((q, a, b, s, x));
            }
        }
    }
    splits.sort_unstable_by(|p, q| {
        (p.0, p.1, p.2)
            .cmp(&(q.0, q.1, q.2))
            .then(p.3.total_cmp(&q.3))
    });
    splits.dedup_by(|p, q| (p.0, p.1, p.2) == (q.0, q.1, q.2) && p.4.distance(q.4) <= near);
    let mut inserted = 0;
    let mut start = 0;
    while start < splits.len() {
        let q = splits[start].0;
        let end = start + splits[start..].partition_point(|s| s.0 == q);
        let piece = &mut *pieces[q];
        let mut around: Vec<Vec<u32>> = vec![Vec::new(); piece.positions.len()];
        for (t, tri) in piece.triangles.iter().enumerate() {
            for &v in tri {
                around[v as usize].push(t as u32);
            }
        }
        // Points on one edge go in order from its low end: each splits
        // what is left of the edge, from the last point to the high end.
        let mut from = u32::MAX;
        let mut edge = (u32::MAX, u32::MAX);
        for &(_, a, b, _, x) in &splits[start..end] {
            if (a, b) != edge {
                edge = (a, b);
                from = a;
            }
            if let Some(p) = split_edge(piece, &mut around, from, b, x) {
                from = p;
                inserted += 1;
            }
        }
        start = end;
    }
    inserted
}

/// Where the pieces `across` (one cell) lack a vertex at `x`: the piece,
/// the edge (low, high) of its cap tagged `tag` that passes within
/// `tolerance` of `x` strictly between its ends, and the parameter of `x`
/// along it. `None` when a vertex of that cap is within `near` of `x`, or
/// no such edge exists (the point is not on that cap).
fn missing_in(
    pieces: &[&mut Piece],
    across: &[usize],
    tag: u32,
    x: DVec3,
    tolerance: f64,
    near: f64,
) -> Option<(usize, u32, u32, f64)> {
    let mut edge = None;
    for &q in across {
        let p = &*pieces[q];
        for (t, _) in p.triangles.iter().zip(&p.tags).filter(|&(_, &g)| g == tag) {
            for e in 0..3 {
                let (a, b) = (t[e].min(t[(e + 1) % 3]), t[e].max(t[(e + 1) % 3]));
                let (pa, pb) = (p.positions[a as usize], p.positions[b as usize]);
                if pa.distance(x) <= near || pb.distance(x) <= near {
                    return None;
                }
                if edge.is_none() {
                    let ab = pb - pa;
                    let s = (x - pa).dot(ab) / ab.length_squared();
                    if s > 0.0 && s < 1.0 && (pa + ab * s).distance(x) <= tolerance {
                        edge = Some((q, a, b, s));
                    }
                }
            }
        }
    }
    edge
}

/// Splits edge `u`–`v` of `piece` at the new vertex `x`: each of its two
/// triangles becomes two, keeping its tag; `around` (triangles per
/// vertex) is kept up to date. Returns the new vertex, or `None` when the
/// edge is not one (an earlier split took it).
fn split_edge(
    piece: &mut Piece,
    around: &mut Vec<Vec<u32>>,
    u: u32,
    v: u32,
    x: DVec3,
) -> Option<u32> {
    let on_edge: Vec<u32> = around[u as usize]
        .iter()
        .copied()
        .filter(|&t| piece.triangles[t as usize].contains(&v))
        .collect();
    if on_edge.len() != 2 {
        return None;
    }
    let p = piece.positions.len() as u32;
    piece.positions.push(x);
    around.push(Vec::new());
    for t in on_edge {
        let tri = piece.triangles[t as usize];
        let e = (0..3).find(|&e| {
            let (s, d) = (tri[e], tri[(e + 1) % 3]);
            (s, d) == (u, v) || (s, d) == (v, u)
        })?;
        let (s, d, o) = (tri[e], tri[(e + 1) % 3], tri[(e + 2) % 3]);
        let new = piece.triangles.len() as u32;
        piece.triangles[t as usize] = [s, p, o];
        piece.triangles.push([p, d, o]);
        let tag = piece.tags[t as usize];
        piece.tags.push(tag);
        // t lost d and gained p; the new triangle holds p, d and o.
        around[d as usize].retain(|&w| w != t);
        around[d as usize].push(new);
        around[o as usize].push(new);
        around[p as usize].extend([t, new]);
    }
    Some(p)
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
        assert_eq!(conform_caps(&mut pieces, &[0, 1], 1e-9, 1e-6), 1);
        assert_eq!(b.positions.len(), 6);
        assert_eq!(b.positions[5], DVec3::new(0.5, 0.0, 0.0));
        assert_eq!(b.triangles.len(), 8);
        assert_eq!(b.defect_edges(), 0);
        let cap = |p: &Piece, tag| p.tagged_area(tag).0;
        assert!((cap(&b, 0) - 1.0).abs() < 1e-15);
        // Nothing left to insert, either way.
        let mut pieces = [&mut a, &mut b];
        assert_eq!(conform_caps(&mut pieces, &[0, 1], 1e-9, 1e-6), 0);
    }
}
