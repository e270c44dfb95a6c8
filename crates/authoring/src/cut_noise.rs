//! Noisy cut surfaces: a post-process on the raw chunks that replaces the
//! middle of every interface by a rough patch shared by both chunks (see
//! [`CutNoise`] for the rule).
//!
//! Per raw bond `(a, b)`, in bond order:
//! 1. the *flat cap regions*: `a`'s planar triangles tagged `tags[0]` and
//!    `b`'s tagged `tags[1]` (triangles of earlier patches excluded), in 2D
//!    coordinates of the interface plane;
//! 2. the *patch*: grid squares (spacing = √(area of the overlap of both
//!    regions' bounding rectangles) / `resolution`, but at least its longer
//!    side / (4 × `resolution`)) whose centre lies in
//!    both regions and at least `(√2/2 + ¼) × spacing` from both regions'
//!    edges, so each square lies inside both caps with a margin of ¼
//!    spacing; squares touching only at a corner are thinned out so the
//!    patch outline is a set of simple loops;
//! 3. the inner grid vertices are displaced along the interface normal;
//!    the outline vertices stay in the plane;
//! 4. each side's flat region minus the patch is re-triangulated with the
//!    cap triangulator (constrained Delaunay on the region's own edges plus
//!    the patch outline), and the patch triangles are added: `a` gets them
//!    facing along the bond normal, `b` the same triangles reversed. Both
//!    chunks are checked to be closed; otherwise the bond stays flat.
//!
//! The patch vertices are computed once and copied into both chunks, so the
//! two sides' noisy triangles are bit-identical.

use crate::bonds::{RawBond, RawChunk};
use crate::cap::{CapOrder, triangulate_cap};
use crate::piece::{Piece, Plane};
use crate::settings::CutNoise;
use crate::topology::unpaired_edges;
use glam::{DVec2, DVec3};

/// What [`roughen_interfaces`] did.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct NoiseStats {
    /// Interfaces that got a noisy patch.
    pub noisy: u32,
    /// Interfaces left flat because no grid square fits inside both caps.
    pub too_small: u32,
    /// Interfaces left flat because a side could not be re-triangulated
    /// (degenerate margin) or would not be closed afterwards.
    pub failed: u32,
    /// Rough interfaces that reach the amplitude nowhere: every displaced
    /// vertex of the patch lies closer than twice the amplitude to another
    /// face of its chunks, so the half-distance limit scaled the noise down
    /// everywhere on it.
    pub limited: u32,
}

impl NoiseStats {
    /// Provenance suffix.
    pub fn describe(&self, noise: &CutNoise) -> String {
        format!(
            "; cut noise: amplitude={:?} m frequency={:?} 1/m octaves={} resolution={}, \
             {} interfaces rough, {} left flat (too small for one grid square), \
             {} left flat (could not be re-triangulated), \
             {} of the rough interfaces limited everywhere to half the distance to another \
             face",
            noise.amplitude,
            noise.frequency,
            noise.octaves,
            noise.resolution,
            self.noisy,
            self.too_small,
            self.failed,
            self.limited,
        )
    }
}

/// Replaces the middle of every interface in `bonds` by a shared noisy patch
/// (module docs). `seed` is the fracture seed. Chunks stay closed; bonds are
/// not changed.
pub(crate) fn roughen_interfaces(
    raw: &mut [RawChunk],
    bonds: &[RawBond],
    noise: &CutNoise,
    seed: u64,
) -> NoiseStats {
    let mut stats = NoiseStats::default();
    // Per chunk, per triangle: part of a noisy patch.
    let mut noisy: Vec<Vec<bool>> = raw
        .iter()
        .map(|c| vec![false; c.piece.triangles.len()])
        .collect();
    let noise_seed = mix(seed ^ 0x6375_745f_6e6f_6973); // "cut_nois"
    for bond in bonds {
        if bond.a == bond.b || bond.a >= raw.len() || bond.b >= raw.len() {
            continue;
        }
        match roughen_bond(raw, &noisy, bond, noise, noise_seed) {
            Outcome::TooSmall => stats.too_small += 1,
            Outcome::Failed => stats.failed += 1,
            Outcome::Done(new_a, new_b, reached) => {
                let ((piece_a, flags_a), (piece_b, flags_b)) = (*new_a, *new_b);
                stats.limited += u32::from(!reached);
                raw[bond.a].piece = piece_a;
                noisy[bond.a] = flags_a;
                raw[bond.b].piece = piece_b;
                noisy[bond.b] = flags_b;
                stats.noisy += 1;
            }
        }
    }
    stats
}

type Side = Box<(Piece, Vec<bool>)>;

enum Outcome {
    TooSmall,
    Failed,
    /// Both sides, and whether some displaced vertex of the patch may move
    /// by the full amplitude (the half-distance limit did not bind there).
    Done(Side, Side, bool),
}

/// A chunk's flat cap region of one tag, in plane coordinates.
struct Region {
    triangles: Vec<[DVec2; 3]>,
    edges: Vec<(DVec2, DVec2)>,
    lo: DVec2,
    hi: DVec2,
}

impl Region {
    fn of(piece: &Piece, noisy: &[bool], tag: u32, to2: &dyn Fn(DVec3) -> DVec2) -> Self {
        let flat: Vec<[u32; 3]> = flat_triangles(piece, noisy, tag).collect();
        let p = |i: u32| to2(piece.positions[i as usize]);
        let triangles: Vec<[DVec2; 3]> = flat.iter().map(|t| t.map(p)).collect();
        let edges = unpaired_edges(&flat)
            .into_iter()
            .map(|(a, b)| (p(a), p(b)))
            .collect();
        let (lo, hi) = triangles.iter().flatten().fold(
            (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY)),
            |(lo, hi), q| (lo.min(*q), hi.max(*q)),
        );
        Self {
            triangles,
            edges,
            lo,
            hi,
        }
    }

    fn contains(&self, q: DVec2) -> bool {
        self.triangles.iter().any(|t| {
            let (d0, d1, d2) = (
                cross2(t[1] - t[0], q - t[0]),
                cross2(t[2] - t[1], q - t[1]),
                cross2(t[0] - t[2], q - t[2]),
            );
            (d0 >= 0.0 && d1 >= 0.0 && d2 >= 0.0) || (d0 <= 0.0 && d1 <= 0.0 && d2 <= 0.0)
        })
    }

    /// True when `q` is at least `sqrt(limit2)` (m) from every edge.
    fn clear_of_edges(&self, q: DVec2, limit2: f64) -> bool {
        self.edges
            .iter()
            .all(|&(a, b)| segment_distance2(q, a, b) >= limit2)
    }
}

/// Triangles of `piece` tagged `tag` that are not part of a noisy patch.
fn flat_triangles<'a>(
    piece: &'a Piece,
    noisy: &'a [bool],
    tag: u32,
) -> impl Iterator<Item = [u32; 3]> + 'a {
    piece
        .triangles
        .iter()
        .zip(&piece.tags)
        .zip(noisy)
        .filter(move |((_, g), n)| **g == tag && !**n)
        .map(|((t, _), _)| *t)
}

fn roughen_bond(
    raw: &[RawChunk],
    noisy: &[Vec<bool>],
    bond: &RawBond,
    noise: &CutNoise,
    noise_seed: u64,
) -> Outcome {
    let Some(normal) = bond.normal.try_normalize() else {
        return Outcome::Failed;
    };
    let plane = Plane {
        point: bond.centroid,
        normal,
    };
    let (u, v) = plane.basis();
    let to2 = |p: DVec3| {
        let d = p - plane.point;
        DVec2::new(d.dot(u), d.dot(v))
    };
    let (pa, pb) = (&raw[bond.a].piece, &raw[bond.b].piece);
    let (na, nb) = (&noisy[bond.a], &noisy[bond.b]);
    let [tag_a, tag_b] = bond.tags;
    let ra = Region::of(pa, na, tag_a, &to2);
    let rb = Region::of(pb, nb, tag_b, &to2);
    let (lo, hi) = (ra.lo.max(rb.lo), ra.hi.min(rb.hi));
    let extent = hi - lo;
    if !(extent.x > 0.0 && extent.y > 0.0) {
        return Outcome::TooSmall;
    }
    // Spacing: `resolution²` squares over the bounding rectangle, but at
    // most `4 × resolution` along a side (so never more than
    // `resolution²` squares).
    let most = 4 * noise.resolution as usize;
    let h = ((extent.x * extent.y).sqrt() / noise.resolution as f64)
        .max(extent.max_element() / most as f64);
    let nx = ((extent.x / h).ceil() as usize).clamp(1, most);
    let ny = ((extent.y / h).ceil() as usize).clamp(1, most);

    // 1. Squares inside both regions with a margin.
    let reach = h * (std::f64::consts::FRAC_1_SQRT_2 + 0.25);
    let reach2 = reach * reach;
    let mut inside = vec![false; nx * ny];
    for iy in 0..ny {
        for ix in 0..nx {
            let c = lo + DVec2::new(ix as f64 + 0.5, iy as f64 + 0.5) * h;
            inside[iy * nx + ix] = ra.contains(c)
                && rb.contains(c)
                && ra.clear_of_edges(c, reach2)
                && rb.clear_of_edges(c, reach2);
        }
    }
    thin_corner_contacts(&mut inside, nx, ny);
    if !inside.contains(&true) {
        return Outcome::TooSmall;
    }
    let cell = |ix: isize, iy: isize| {
        ix >= 0
            && iy >= 0
            && (ix as usize) < nx
            && (iy as usize) < ny
            && inside[iy as usize * nx + ix as usize]
    };

    // 2. Grid corners used by the patch, in scan order.
    let corners_x = nx + 1;
    let mut corner_id = vec![u32::MAX; corners_x * (ny + 1)];
    let mut corner_xy: Vec<(usize, usize)> = Vec::new();
    for jy in 0..=ny {
        for jx in 0..=nx {
            let (x, y) = (jx as isize, jy as isize);
            if cell(x - 1, y - 1) || cell(x, y - 1) || cell(x - 1, y) || cell(x, y) {
                corner_id[jy * corners_x + jx] = corner_xy.len() as u32;
                corner_xy.push((jx, jy));
            }
        }
    }
    let id = |jx: usize, jy: usize| corner_id[jy * corners_x + jx];
    // Patch triangles (counter-clockwise in (u, v): facing along `normal`)
    // and outline edges in the same winding.
    let mut patch: Vec<[u32; 3]> = Vec::new();
    let mut outline: Vec<(u32, u32)> = Vec::new();
    for iy in 0..ny {
        for ix in 0..nx {
            if !inside[iy * nx + ix] {
                continue;
            }
            let (c00, c10, c11, c01) = (
                id(ix, iy),
                id(ix + 1, iy),
                id(ix + 1, iy + 1),
                id(ix, iy + 1),
            );
            if (ix + iy) % 2 == 0 {
                patch.push([c00, c10, c11]);
                patch.push([c00, c11, c01]);
            } else {
                patch.push([c00, c10, c01]);
                patch.push([c10, c11, c01]);
            }
            let (x, y) = (ix as isize, iy as isize);
            if !cell(x, y - 1) {
                outline.push((c00, c10));
            }
            if !cell(x + 1, y) {
                outline.push((c10, c11));
            }
            if !cell(x, y + 1) {
                outline.push((c11, c01));
            }
            if !cell(x - 1, y) {
                outline.push((c01, c00));
            }
        }
    }
    let mut on_outline = vec![false; corner_xy.len()];
    for &(p, q) in &outline {
        on_outline[p as usize] = true;
        on_outline[q as usize] = true;
    }
    let outline2: Vec<(DVec2, DVec2)> = outline
        .iter()
        .map(|&(p, q)| {
            let at = |k: u32| {
                let (jx, jy) = corner_xy[k as usize];
                lo + DVec2::new(jx as f64, jy as f64) * h
            };
            (at(p), at(q))
        })
        .collect();

    // 3. Positions: the outline in the plane, inner vertices displaced.
    let corners = [lo, DVec2::new(hi.x, lo.y), hi, DVec2::new(lo.x, hi.y)]
        .map(|q| plane.point + u * q.x + v * q.y);
    let others = OtherFaces::new([(pa, tag_a), (pb, tag_b)], &corners, 2.0 * noise.amplitude);
    let ramp = 2.0 * h;
    let mut reached = false;
    let positions: Vec<DVec3> = corner_xy
        .iter()
        .zip(&on_outline)
        .map(|(&(jx, jy), &fixed)| {
            let q = lo + DVec2::new(jx as f64, jy as f64) * h;
            let x = plane.point + u * q.x + v * q.y;
            if fixed {
                return x;
            }
            let edge = outline2
                .iter()
                .map(|&(a, b)| segment_distance2(q, a, b))
                .fold(f64::INFINITY, f64::min)
                .sqrt();
            let falloff = smoothstep(edge / ramp);
            let half_way = 0.5 * others.distance(x);
            let scale = noise.amplitude.min(half_way);
            reached |= half_way >= noise.amplitude;
            let value = fractal_noise(x * noise.frequency, noise.octaves, noise_seed);
            x + normal * (falloff * scale * value)
        })
        .collect();

    // 4. Both sides.
    let Some(side_a) = apply(pa, na, tag_a, &plane, &positions, &patch, &outline, false) else {
        return Outcome::Failed;
    };
    let flipped = Plane {
        point: plane.point,
        normal: -normal,
    };
    let Some(side_b) = apply(pb, nb, tag_b, &flipped, &positions, &patch, &outline, true) else {
        return Outcome::Failed;
    };
    Outcome::Done(Box::new(side_a), Box::new(side_b), reached)
}

/// Drops squares until no two squares touch only at a corner (scan order;
/// the later square of a diagonal pair goes), so the patch outline is made
/// of simple loops.
fn thin_corner_contacts(inside: &mut [bool], nx: usize, ny: usize) {
    loop {
        let mut changed = false;
        for iy in 0..ny.saturating_sub(1) {
            for ix in 0..nx.saturating_sub(1) {
                let k = iy * nx + ix;
                let (s00, s10, s01, s11) =
                    (inside[k], inside[k + 1], inside[k + nx], inside[k + nx + 1]);
                if s00 && s11 && !s10 && !s01 {
                    inside[k + nx + 1] = false;
                    changed = true;
                } else if s10 && s01 && !s00 && !s11 {
                    inside[k + nx] = false;
                    changed = true;
                }
            }
        }
        if !changed {
            return;
        }
    }
}

/// The chunk with its flat region of `tag` replaced by the margin
/// (re-triangulated around the patch) and the patch (reversed when
/// `reverse`). `None` when the margin cannot be triangulated or the result
/// is not closed.
#[allow(clippy::too_many_arguments)]
fn apply(
    piece: &Piece,
    noisy: &[bool],
    tag: u32,
    facing: &Plane,
    patch_positions: &[DVec3],
    patch: &[[u32; 3]],
    outline: &[(u32, u32)],
    reverse: bool,
) -> Option<(Piece, Vec<bool>)> {
    let base = piece.positions.len() as u32;
    let mut positions = piece.positions.clone();
    positions.extend_from_slice(patch_positions);
    let flat: Vec<[u32; 3]> = flat_triangles(piece, noisy, tag).collect();
    // The margin's own boundary: the flat region's edges, plus the patch
    // outline traversed against the patch's winding on this side.
    let mut segments = unpaired_edges(&flat);
    for &(p, q) in outline {
        segments.push(if reverse {
            (base + p, base + q)
        } else {
            (base + q, base + p)
        });
    }
    let margin = triangulate_cap(&positions, &segments, facing, CapOrder::Id).ok()?;
    let mut triangles = Vec::with_capacity(piece.triangles.len() + margin.len() + patch.len());
    let mut tags = Vec::with_capacity(triangles.capacity());
    let mut flags = Vec::with_capacity(triangles.capacity());
    for ((t, &g), &n) in piece.triangles.iter().zip(&piece.tags).zip(noisy) {
        if g == tag && !n {
            continue;
        }
        triangles.push(*t);
        tags.push(g);
        flags.push(n);
    }
    for t in margin {
        triangles.push(t);
        tags.push(tag);
        flags.push(false);
    }
    for t in patch {
        let t = t.map(|i| base + i);
        triangles.push(if reverse { [t[0], t[2], t[1]] } else { t });
        tags.push(tag);
        flags.push(true);
    }
    if !unpaired_edges(&triangles).is_empty() {
        return None;
    }
    let mut out = Piece {
        positions,
        triangles,
        tags,
    };
    out.compact();
    Some((out, flags))
}

/// The faces of two chunks other than their caps of the interface, for
/// distance queries near the patch.
struct OtherFaces {
    triangles: Vec<[DVec3; 3]>,
}

impl OtherFaces {
    /// Faces of `sides` not tagged with the side's interface tag whose
    /// bounding box comes within `reach` (m) of the bounding box of `near`.
    fn new(sides: [(&Piece, u32); 2], near: &[DVec3], reach: f64) -> Self {
        let (lo, hi) = near.iter().fold(
            (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
            |(lo, hi), p| (lo.min(*p), hi.max(*p)),
        );
        let (lo, hi) = (lo - DVec3::splat(reach), hi + DVec3::splat(reach));
        let mut triangles = Vec::new();
        for (piece, tag) in sides {
            for (t, _) in piece
                .triangles
                .iter()
                .zip(&piece.tags)
                .filter(|(_, g)| **g != tag)
            {
                let t = t.map(|i| piece.positions[i as usize]);
                let (tlo, thi) = (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2]));
                if tlo.cmple(hi).all() && thi.cmpge(lo).all() {
                    triangles.push(t);
                }
            }
        }
        Self { triangles }
    }

    /// Distance from `x` to the nearest face, m (∞ when none is near).
    fn distance(&self, x: DVec3) -> f64 {
        self.triangles
            .iter()
            .map(|t| (closest_on_triangle(x, t) - x).length_squared())
            .fold(f64::INFINITY, f64::min)
            .sqrt()
    }
}

/// Closest point to `p` on triangle `t` (Ericson, *Real-Time Collision
/// Detection*, §5.1.5).
fn closest_on_triangle(p: DVec3, t: &[DVec3; 3]) -> DVec3 {
    let [a, b, c] = *t;
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let w = d1 / (d1 - d3);
        return a + ab * w;
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return a + ac * w;
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return b + (c - b) * w;
    }
    let denom = va + vb + vc;
    if denom.abs() < f64::MIN_POSITIVE {
        return a; // degenerate triangle
    }
    let (v, w) = (vb / denom, vc / denom);
    a + ab * v + ac * w
}

fn cross2(a: DVec2, b: DVec2) -> f64 {
    a.x * b.y - a.y * b.x
}

/// Squared distance from `q` to segment `[a, b]`, m².
fn segment_distance2(q: DVec2, a: DVec2, b: DVec2) -> f64 {
    let ab = b - a;
    let len2 = ab.length_squared();
    let t = if len2 > 0.0 {
        ((q - a).dot(ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (a + ab * t).distance_squared(q)
}

fn smoothstep(x: f64) -> f64 {
    let x = x.clamp(0.0, 1.0);
    x * x * (3.0 - 2.0 * x)
}

/// SplitMix64 finaliser.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Random value in `[−1, 1]` at a lattice point.
fn lattice(seed: u64, x: i64, y: i64, z: i64) -> f64 {
    let h = mix(mix(mix(seed ^ x as u64) ^ y as u64) ^ z as u64);
    (h >> 11) as f64 * (2.0 / (1u64 << 53) as f64) - 1.0
}

/// Value noise in `[−1, 1]`: lattice values blended with the quintic
/// `6t⁵ − 15t⁴ + 10t³` (C² across lattice cells).
fn value_noise(p: DVec3, seed: u64) -> f64 {
    let cell = p.floor();
    let f = p - cell;
    let w = f * f * f * (f * (f * 6.0 - 15.0) + 10.0);
    // Saturating casts: absurd coordinates give a valid (if meaningless) value.
    let (x, y, z) = (cell.x as i64, cell.y as i64, cell.z as i64);
    let lerp = |a: f64, b: f64, t: f64| a + (b - a) * t;
    let mut c = [0.0; 4];
    for (k, slot) in c.iter_mut().enumerate() {
        let (dy, dz) = ((k & 1) as i64, (k >> 1) as i64);
        let y = y.wrapping_add(dy);
        let z = z.wrapping_add(dz);
        *slot = lerp(
            lattice(seed, x, y, z),
            lattice(seed, x.wrapping_add(1), y, z),
            w.x,
        );
    }
    lerp(lerp(c[0], c[1], w.y), lerp(c[2], c[3], w.y), w.z)
}

/// Octaves of [`value_noise`] (frequency ×2, weight ×½ each), normalised by
/// the weight sum: in `[−1, 1]`.
fn fractal_noise(p: DVec3, octaves: u32, seed: u64) -> f64 {
    let (mut sum, mut total, mut weight, mut scale) = (0.0, 0.0, 1.0, 1.0);
    for octave in 0..octaves.max(1) {
        sum += weight * value_noise(p * scale, mix(seed.wrapping_add(octave as u64)));
        total += weight;
        weight *= 0.5;
        scale *= 2.0;
    }
    (sum / total).clamp(-1.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_is_bounded_reaches_large_values_and_depends_on_the_seed() {
        let mut largest: f64 = 0.0;
        let mut differs = false;
        for k in 0..2000 {
            let p = DVec3::new(k as f64 * 0.137, k as f64 * 0.071, -(k as f64) * 0.053);
            let n = fractal_noise(p, 3, 7);
            assert!((-1.0..=1.0).contains(&n));
            assert_eq!(n, fractal_noise(p, 3, 7), "a function of position only");
            largest = largest.max(n.abs());
            differs |= n != fractal_noise(p, 3, 8);
        }
        assert!(largest > 0.6, "largest |noise| {largest}");
        assert!(differs);
    }

    #[test]
    fn diagonal_contacts_are_thinned() {
        // 1 0
        // 0 1  (row 0 at the bottom)
        let mut inside = vec![true, false, false, true];
        thin_corner_contacts(&mut inside, 2, 2);
        assert_eq!(inside, vec![true, false, false, false]);
    }

    #[test]
    fn closest_point_on_a_triangle_matches_the_regions() {
        let t = [DVec3::ZERO, DVec3::X, DVec3::Y];
        let c = |p: DVec3| closest_on_triangle(p, &t);
        assert!((c(DVec3::new(0.2, 0.2, 1.0)) - DVec3::new(0.2, 0.2, 0.0)).length() < 1e-12);
        assert_eq!(c(DVec3::new(-1.0, -1.0, 0.0)), DVec3::ZERO);
        assert!((c(DVec3::new(1.0, 1.0, 0.0)) - DVec3::new(0.5, 0.5, 0.0)).length() < 1e-12);
        assert!((c(DVec3::new(0.5, -1.0, 0.0)) - DVec3::new(0.5, 0.0, 0.0)).length() < 1e-12);
    }
}
