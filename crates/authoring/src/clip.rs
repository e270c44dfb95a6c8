//! Clipping a closed piece by a half-space and capping the cut.
//!
//! Sign rule: each vertex is classified once per plane by its signed
//! distance `d`, with `|d| ≤ eps` snapped to exactly 0. Vertices with
//! `d ≤ 0` are kept. An edge is cut only between a vertex with `d < 0` and one
//! with `d > 0`; the cut point is created once per undirected edge, so both
//! triangles sharing the edge use the same vertex (the cut is welded by
//! construction). A kept vertex with `d = 0` is its own cut point, which
//! avoids zero-length edges when the plane passes through a vertex.
//! After clipping, the unpaired edges of the kept triangles all lie in the
//! plane; [`triangulate_cap`] closes them.

use crate::cap::{CapOrder, triangulate_cap};
use crate::piece::{Piece, Plane};
use crate::topology::unpaired_edges_where;
use glam::DVec3;
use std::collections::HashMap;

/// How [`clip_piece`] cuts and caps.
#[derive(Copy, Clone, Debug)]
pub(crate) struct ClipSettings {
    /// Snapping distance of the sign rule, m.
    pub eps: f64,
    /// Boundary vertices closer than this (m) are merged if the first
    /// capping attempt fails.
    pub weld: f64,
    /// Insertion order of the cap's outline vertices.
    pub order: CapOrder,
}

/// Result of [`clip_piece`].
#[derive(Debug)]
pub(crate) enum Clip {
    /// No vertex is on the removed side: the piece is unchanged.
    Unchanged,
    /// Nothing of positive volume is on the kept side.
    Empty,
    /// The clipped and capped piece.
    Cut(Piece),
}

/// Keeps the part of `piece` with `plane.distance(x) ≤ 0` and caps the cut.
/// Cap triangles get the tag `cap_tag`; the other triangles keep theirs.
/// Tolerances and cap order from `settings`.
///
/// # Errors
/// The cap triangulation's message (degenerate or self-intersecting cut).
pub(crate) fn clip_piece(
    piece: &Piece,
    plane: &Plane,
    cap_tag: u32,
    settings: &ClipSettings,
) -> Result<Clip, String> {
    let (eps, weld) = (settings.eps, settings.weld);
    let d: Vec<f64> = piece
        .positions
        .iter()
        .map(|&p| {
            let x = plane.distance(p);
            if x.abs() <= eps { 0.0 } else { x }
        })
        .collect();
    if d.iter().all(|&x| x <= 0.0) {
        return Ok(Clip::Unchanged);
    }
    if !d.iter().any(|&x| x < 0.0) {
        return Ok(Clip::Empty);
    }

    let mut positions: Vec<DVec3> = Vec::with_capacity(piece.positions.len());
    let mut kept = vec![u32::MAX; piece.positions.len()];
    let mut keep = |i: u32, positions: &mut Vec<DVec3>| -> u32 {
        let slot = &mut kept[i as usize];
        if *slot == u32::MAX {
            *slot = positions.len() as u32;
            positions.push(piece.positions[i as usize]);
        }
        *slot
    };
    // Cut vertices by undirected edge; lookup only, creation order follows
    // the triangle order, so the output is deterministic.
    let mut cuts: HashMap<(u32, u32), u32> = HashMap::new();
    let mut cut = |a: u32, b: u32, positions: &mut Vec<DVec3>| -> u32 {
        let key = (a.min(b), a.max(b));
        *cuts.entry(key).or_insert_with(|| {
            // Interpolate from the lower index so the point does not depend on
            // which triangle asks first.
            let (lo, hi) = key;
            let (dl, dh) = (d[lo as usize], d[hi as usize]);
            let t = dl / (dl - dh);
            let (pl, ph) = (piece.positions[lo as usize], piece.positions[hi as usize]);
            positions.push(pl + (ph - pl) * t);
            (positions.len() - 1) as u32
        })
    };

    let flat_kept = flat_regions_kept(piece, &d, plane);
    let mut triangles = Vec::with_capacity(piece.triangles.len());
    let mut tags = Vec::with_capacity(piece.triangles.len());
    for (k, (t, &tag)) in piece.triangles.iter().zip(&piece.tags).enumerate() {
        let dt = t.map(|i| d[i as usize]);
        if dt.iter().all(|&x| x == 0.0) {
            // In the plane: part of the kept surface only if the solid it
            // bounds is on the kept side (see `flat_regions_kept`).
            if flat_kept[k] {
                triangles.push(t.map(|i| keep(i, &mut positions)));
                tags.push(tag);
            }
            continue;
        }
        if dt.iter().all(|&x| x <= 0.0) {
            triangles.push(t.map(|i| keep(i, &mut positions)));
            tags.push(tag);
            continue;
        }
        if dt.iter().all(|&x| x >= 0.0) {
            // Entirely on the removed side, or touching the plane at an edge
            // or vertex: contributes no area on the kept side.
            continue;
        }
        let mut poly = [0u32; 4];
        let mut n = 0;
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            let (da, db) = (dt[k], dt[(k + 1) % 3]);
            if da <= 0.0 {
                poly[n] = keep(a, &mut positions);
                n += 1;
            }
            if (da < 0.0 && db > 0.0) || (da > 0.0 && db < 0.0) {
                poly[n] = cut(a, b, &mut positions);
                n += 1;
            }
        }
        // A triangle with a vertex on each side yields a convex polygon of 3
        // or 4 distinct vertices; fan it.
        for k in 2..n {
            triangles.push([poly[0], poly[k - 1], poly[k]]);
            tags.push(tag);
        }
    }

    // Only edges with both ends on the plane can be unpaired (the piece was
    // closed, and every other edge keeps both of its triangles or loses
    // both): kept vertices with d = 0 and every cut vertex.
    let mut on_plane = vec![true; positions.len()];
    for (i, &slot) in kept.iter().enumerate() {
        if slot != u32::MAX {
            on_plane[slot as usize] = d[i] == 0.0;
        }
    }
    // The cap closes the unpaired edges, traversed in the opposite direction.
    let segments = cap_segments(&triangles, |v| on_plane[v as usize]);
    let cap = match triangulate_cap(&positions, &segments, plane, settings.order) {
        Ok(cap) => cap,
        Err(first) => {
            // Degenerate input (zero-area triangles filling T-junctions,
            // near-coincident cut points on different edges) can leave
            // distinct boundary vertices at (almost) the same place. Weld
            // them, collapsing the tiny edges between them, and retry.
            let (root, merged) = weld_boundary(&positions, &segments, weld);
            if merged == 0 {
                return Err(first);
            }
            let mut kept_tags = Vec::with_capacity(tags.len());
            let mut kept_triangles = Vec::with_capacity(triangles.len());
            for (t, tag) in triangles.iter().zip(&tags) {
                let t = t.map(|i| root[i as usize]);
                if t[0] != t[1] && t[1] != t[2] && t[2] != t[0] {
                    kept_triangles.push(t);
                    kept_tags.push(*tag);
                }
            }
            triangles = kept_triangles;
            tags = kept_tags;
            // Welding changed the surface: look at every edge again.
            triangulate_cap(
                &positions,
                &cap_segments(&triangles, |_| true),
                plane,
                settings.order,
            )
            .map_err(|e| {
                format!("{first}; after welding {merged} near-coincident boundary vertices: {e}")
            })?
        }
    };
    tags.extend(std::iter::repeat_n(cap_tag, cap.len()));
    triangles.extend(cap);
    let mut out = Piece {
        positions,
        triangles,
        tags,
    };
    out.compact();
    if out.triangles.is_empty() {
        return Ok(Clip::Empty);
    }
    Ok(Clip::Cut(out))
}

/// The cap's boundary: the unpaired edges of `triangles` among those whose
/// two vertices are `wanted`, reversed.
fn cap_segments(triangles: &[[u32; 3]], wanted: impl Fn(u32) -> bool) -> Vec<(u32, u32)> {
    unpaired_edges_where(triangles, wanted)
        .into_iter()
        .map(|(a, b)| (b, a))
        .collect()
}

/// Union of boundary vertices closer than `tolerance` (m): returns, for every
/// vertex, the lowest index of its cluster, and how many vertices were
/// merged into another. Deterministic: a sweep along x over the boundary
/// vertices sorted by (x, index).
fn weld_boundary(
    positions: &[DVec3],
    segments: &[(u32, u32)],
    tolerance: f64,
) -> (Vec<u32>, usize) {
    let mut root: Vec<u32> = (0..positions.len() as u32).collect();
    fn find(root: &mut [u32], mut x: u32) -> u32 {
        while root[x as usize] != x {
            root[x as usize] = root[root[x as usize] as usize];
            x = root[x as usize];
        }
        x
    }
    let mut ids: Vec<u32> = segments.iter().flat_map(|&(a, b)| [a, b]).collect();
    ids.sort_unstable();
    ids.dedup();
    ids.sort_by(|&a, &b| {
        positions[a as usize]
            .x
            .total_cmp(&positions[b as usize].x)
            .then(a.cmp(&b))
    });
    let mut merged = 0;
    for (k, &a) in ids.iter().enumerate() {
        let pa = positions[a as usize];
        for &b in &ids[k + 1..] {
            let pb = positions[b as usize];
            if pb.x - pa.x > tolerance {
                break;
            }
            if pa.distance(pb) <= tolerance {
                let (ra, rb) = (find(&mut root, a), find(&mut root, b));
                if ra != rb {
                    root[ra.max(rb) as usize] = ra.min(rb);
                    merged += 1;
                }
            }
        }
    }
    for i in 0..root.len() as u32 {
        root[i as usize] = find(&mut root, i);
    }
    (root, merged)
}

/// For every triangle of `piece`, whether it lies in the cutting plane
/// (all three snapped distances 0) *and* belongs to the kept surface.
/// Coplanar triangles are grouped into edge-connected regions; a region is
/// kept when its area-weighted normal points along the plane normal, i.e.
/// its solid lies on the kept side. A region facing the other way bounds
/// solid on the removed side: keeping it (as the plain `d ≤ 0` rule would)
/// put the same face into both halves of a plane cut and left a
/// zero-thickness double layer where the cap covers it (`stairs.obj`, whose
/// step tops lie exactly on brick course planes). Deciding per region keeps
/// zero-area fill triangles with the face they sit in.
fn flat_regions_kept(piece: &Piece, d: &[f64], plane: &Plane) -> Vec<bool> {
    let flat: Vec<bool> = piece
        .triangles
        .iter()
        .map(|t| t.iter().all(|&i| d[i as usize] == 0.0))
        .collect();
    let mut kept = vec![false; piece.triangles.len()];
    if !flat.iter().any(|&f| f) {
        return kept;
    }
    let mut root: Vec<usize> = (0..piece.triangles.len()).collect();
    fn find(root: &mut [usize], mut x: usize) -> usize {
        while root[x] != x {
            root[x] = root[root[x]];
            x = root[x];
        }
        x
    }
    // First flat triangle seen on each undirected edge; lookup only.
    let mut by_edge: HashMap<(u32, u32), usize> = HashMap::new();
    for (k, t) in piece.triangles.iter().enumerate() {
        if !flat[k] {
            continue;
        }
        for e in 0..3 {
            let (a, b) = (t[e], t[(e + 1) % 3]);
            match by_edge.entry((a.min(b), a.max(b))) {
                std::collections::hash_map::Entry::Occupied(o) => {
                    let (ra, rb) = (find(&mut root, k), find(&mut root, *o.get()));
                    root[ra.max(rb)] = ra.min(rb);
                }
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(k);
                }
            }
        }
    }
    let mut normal = vec![DVec3::ZERO; piece.triangles.len()];
    for (k, t) in piece.triangles.iter().enumerate() {
        if flat[k] {
            let p = t.map(|i| piece.positions[i as usize]);
            let r = find(&mut root, k);
            normal[r] += (p[1] - p[0]).cross(p[2] - p[0]);
        }
    }
    for k in 0..piece.triangles.len() {
        if flat[k] {
            let r = find(&mut root, k);
            kept[k] = normal[r].dot(plane.normal) > 0.0;
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXACT: ClipSettings = ClipSettings {
        eps: 1e-12,
        weld: 1e-9,
        order: CapOrder::Id,
    };
    use crate::mass_properties::polyhedron_mass_properties;
    use crate::piece::EXTERIOR;

    fn cube() -> Piece {
        let positions = (0..8)
            .map(|i| DVec3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64))
            .collect();
        let triangles = crate::mesh::BOX_TRIANGLES.to_vec();
        Piece {
            positions,
            triangles,
            tags: vec![EXTERIOR; 12],
        }
    }

    fn volume(p: &Piece) -> f64 {
        polyhedron_mass_properties(&p.positions, &p.triangles, 1.0).volume
    }

    fn cut(p: &Piece, point: DVec3, normal: DVec3) -> Piece {
        let plane = Plane {
            point,
            normal: normal.normalize(),
        };
        match clip_piece(p, &plane, 7, &EXACT).unwrap() {
            Clip::Cut(piece) => piece,
            other => panic!("expected a cut, got {other:?}"),
        }
    }

    #[test]
    fn oblique_cut_of_a_cube_is_closed_and_conserves_volume() {
        let c = cube();
        let n = DVec3::new(1.0, 0.7, 0.3);
        let a = cut(&c, DVec3::splat(0.5), n);
        let b = cut(&c, DVec3::splat(0.5), -n);
        assert_eq!(a.defect_edges(), 0);
        assert_eq!(b.defect_edges(), 0);
        assert!((volume(&a) + volume(&b) - 1.0).abs() < 1e-12);
        assert!(
            (volume(&a) - 0.5).abs() < 1e-12,
            "symmetric cut through the centre"
        );
        let (cap_a, _) = a.tagged_area(7);
        let (cap_b, _) = b.tagged_area(7);
        assert!((cap_a - cap_b).abs() < 1e-12 && cap_a > 1.0);
    }

    #[test]
    fn cut_through_vertices_and_along_a_face_diagonal_is_closed() {
        // The plane x = y contains the vertical edges (0,0,z) and (1,1,z).
        let c = cube();
        let a = cut(&c, DVec3::ZERO, DVec3::new(1.0, -1.0, 0.0));
        assert_eq!(a.defect_edges(), 0);
        assert!((volume(&a) - 0.5).abs() < 1e-12);
        assert!((a.tagged_area(7).0 - 2f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn plane_touching_a_face_leaves_the_piece_unchanged_or_empty() {
        let c = cube();
        let up = Plane {
            point: DVec3::new(0.0, 0.0, 1.0),
            normal: DVec3::Z,
        };
        assert!(matches!(
            clip_piece(&c, &up, 0, &EXACT).unwrap(),
            Clip::Unchanged
        ));
        let down = Plane {
            point: DVec3::new(0.0, 0.0, 1.0),
            normal: -DVec3::Z,
        };
        assert!(matches!(
            clip_piece(&c, &down, 0, &EXACT).unwrap(),
            Clip::Empty
        ));
    }

    #[test]
    fn later_cuts_keep_the_tags_of_earlier_caps() {
        let c = cube();
        let a = cut(&c, DVec3::splat(0.5), DVec3::X);
        let plane = Plane {
            point: DVec3::splat(0.5),
            normal: DVec3::Y,
        };
        let Clip::Cut(b) = clip_piece(&a, &plane, 9, &EXACT).unwrap() else {
            panic!()
        };
        assert_eq!(b.defect_edges(), 0);
        assert!((volume(&b) - 0.25).abs() < 1e-12);
        assert!((b.tagged_area(7).0 - 0.5).abs() < 1e-12);
        assert!((b.tagged_area(9).0 - 0.5).abs() < 1e-12);
    }

    proptest::proptest! {
        /// Any plane splits a closed piece into two closed pieces whose
        /// volumes add up and whose caps have equal area.
        #[test]
        fn both_sides_of_any_cut_are_closed_and_add_up(
            nx in -1.0f64..1.0, ny in -1.0f64..1.0, nz in -1.0f64..1.0,
            px in 0.0f64..1.0, py in 0.0f64..1.0, pz in 0.0f64..1.0,
            twice in proptest::bool::ANY,
        ) {
            let normal = DVec3::new(nx, ny, nz);
            proptest::prop_assume!(normal.length() > 1e-3);
            let normal = normal.normalize();
            // Optionally pre-cut, so the piece already has a tagged cap.
            let mut piece = cube();
            if twice {
                let pre = Plane { point: DVec3::splat(0.7), normal: DVec3::new(0.3, 1.0, -0.2).normalize() };
                if let Clip::Cut(p) = clip_piece(&piece, &pre, 3, &EXACT).unwrap() {
                    piece = p;
                }
            }
            let total = volume(&piece);
            let point = DVec3::new(px, py, pz);
            let mut sum = 0.0;
            let mut caps = Vec::new();
            for n in [normal, -normal] {
                let plane = Plane { point, normal: n };
                match clip_piece(&piece, &plane, 7, &EXACT).unwrap() {
                    Clip::Unchanged => { sum += total; caps.push(0.0); }
                    Clip::Empty => caps.push(0.0),
                    Clip::Cut(p) => {
                        proptest::prop_assert_eq!(p.defect_edges(), 0);
                        sum += volume(&p);
                        caps.push(p.tagged_area(7).0);
                    }
                }
            }
            proptest::prop_assert!((sum - total).abs() < 1e-9, "{} vs {}", sum, total);
            proptest::prop_assert!((caps[0] - caps[1]).abs() < 1e-9);
        }
    }
}
