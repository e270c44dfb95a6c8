//! Round collision hulls that stay inside their sharp hulls (issue 16 item 1).
//!
//! A round convex hull is an inner polytope plus a ball of radius `r`
//! (Minkowski sum). Its faces lie where the inner polytope's faces lie,
//! pushed out by `r`. So the inner polytope must be the sharp hull with
//! every *face plane* moved inward by `r`: the intersection of the
//! half-spaces `n·x ≤ d − r`, one per hull triangle. The rounded shape then touches the sharp
//! hull's faces and never crosses them, and two chunks that share a face
//! do not overlap. (Moving the *vertices* `r` towards the centroid moved
//! a cube's faces in by only r/√3, so they ended 0.42 r outside the hull:
//! neighbouring chunks overlapped by 0.85 r and pushed apart.)
//!
//! The inner vertices come from the dual polytope: with a point `c`
//! strictly inside every shifted plane, each plane maps to the dual point
//! `n / (d − r − n·c)`. Each face of the convex hull of those points is one
//! inner vertex, where the three planes of a face triangle meet. Planes
//! whose dual points fall inside that hull bound nothing (a face smaller
//! than the radius disappears into the rounding). `c` is the hull's
//! centroid. For a convex body, the centroid lies at least a quarter of
//! the width from every face (Minkowski–Radon), and the radius is capped at
//! [`MAX_BORDER_FRACTION`] of the centroid's distance to its nearest face.
//! So `c` is always strictly inside, and the inner polytope keeps a ball of
//! half that distance: it is never empty or flat.

use glam::{DVec3, Vec3};
use rapier3d::parry::shape::ConvexPolyhedron;
use rapier3d::parry::transformation::try_convex_hull;
use rapier3d::prelude::*;
use std::collections::BTreeMap;

/// Largest rounding radius of a hull, as a fraction of the distance from the
/// hull's centroid to its nearest face (0.5). A 5 mm-thick sliver gets a
/// radius of at most 1.25 mm, and its collider is still 5 mm thick.
pub const MAX_BORDER_FRACTION: f32 = 0.5;

/// How far an inner vertex may lie outside a shifted face plane, as a
/// fraction of the hull's size (its largest centroid-to-vertex distance).
/// A vertex further out comes from a wrong dual-hull triangle and is left
/// out. Half the documented bound, which leaves the other half for f32
/// rounding of the kept vertices.
const PLANE_TOLERANCE: f64 = 0.5 * crate::backend::HULL_EXTENT_TOLERANCE as f64;

/// The round version of `sharp` (an inner polytope inflated by a radius),
/// with a border radius of at most `border` (m). The radius is cut to
/// [`MAX_BORDER_FRACTION`] × the distance from the hull's centroid to its
/// nearest face. `None` when no rounding fits: a non-positive border or
/// radius, non-finite geometry, or a dual hull or inner polytope that
/// cannot be built. The caller then keeps the sharp hull.
pub(crate) fn round_hull(sharp: &ConvexPolyhedron, border: f32) -> Option<SharedShape> {
    if !(border > 0.0) {
        return None;
    }
    let points: Vec<DVec3> = sharp.points().iter().map(|p| p.as_dvec3()).collect();
    // One plane n·x ≤ d per hull *triangle*, not per merged face: parry
    // merges nearly coplanar triangles (rough cuts, curved meshes) into one
    // face with one normal, and the half-spaces of merged faces hold more
    // than the hull (a rough chunk's collider reached 1 mm past an edge).
    // d is the support value over every point, so each half-space holds
    // the whole hull even for a sliver triangle with a noisy normal.
    let (corners, triangles) = try_convex_hull(sharp.points()).ok()?;
    let with_support = |n: DVec3| {
        let d = points
            .iter()
            .map(|p| n.dot(*p))
            .fold(f64::NEG_INFINITY, f64::max);
        d.is_finite().then_some((n, d))
    };
    let planes: Vec<(DVec3, f64)> = triangles
        .iter()
        .filter_map(|t| {
            let [a, b, c] = t.map(|i| corners.get(i as usize).map(|p| p.as_dvec3()));
            (b? - a?).cross(c? - a?).try_normalize()
        })
        .filter_map(with_support)
        .collect();
    if planes.len() < 4 {
        return None;
    }
    let c = sharp.mass_properties(1.0).local_com.as_dvec3();
    let inset = planes
        .iter()
        .map(|(n, d)| d - n.dot(c))
        .fold(f64::INFINITY, f64::min);
    if !(inset.is_finite() && inset > 0.0) {
        return None;
    }
    let r = f64::from(border).min(f64::from(MAX_BORDER_FRACTION) * inset);
    let radius = r as f32;
    if !(radius > 0.0) {
        return None;
    }
    let size = points.iter().map(|p| (*p - c).length()).fold(0.0, f64::max);
    let tolerance = PLANE_TOLERANCE * size;
    let mut inner = inner_vertices(&planes, c, r, tolerance)?;

    // Quickhull run again on the hull's vertices alone can return triangles
    // that are not all facets of the hull when many points are nearly
    // coplanar (caps carved from shared regions), and the polytope they
    // bound then reaches past it: a Spot chunk's collider stood 0.19 mm
    // (5e-4 of its size) out along one of its sharp faces. So the sharp
    // polyhedron's own face planes are checked, and when one is crossed the
    // inner polytope is built again with them too. Each holds every point,
    // so it only takes away what lay outside the hull; hulls that cross
    // none (nearly all) keep their shape bit for bit.
    let faces: Vec<(DVec3, f64)> = sharp
        .faces()
        .iter()
        .filter_map(|f| f.normal.as_dvec3().try_normalize())
        .filter_map(with_support)
        .collect();
    let crossed = faces.iter().any(|(n, d)| {
        inner
            .iter()
            .any(|x| n.dot(x.as_dvec3()) > d - r + tolerance)
    });
    if crossed {
        let all: Vec<(DVec3, f64)> = planes.iter().chain(&faces).copied().collect();
        inner = inner_vertices(&all, c, r, tolerance)?;
    }

    // Inner vertices in the order of the hull points they sit nearest to
    // (the corner each was moved in from), not the dual hull's order: the
    // order of a shape's vertices orders its faces and contact points, and
    // Rapier's solver with few iterations is sensitive to contact order (a
    // box dropped on a cube took 10 % less impulse at 240 Hz with the
    // corners enumerated differently).
    let mut keyed: Vec<(usize, Vec3)> = inner
        .iter()
        .map(|x| {
            let xd = x.as_dvec3();
            let nearest = points
                .iter()
                .enumerate()
                .map(|(i, p)| (i, (*p - xd).length_squared()))
                .fold(
                    (0, f64::INFINITY),
                    |best, (i, d)| if d < best.1 { (i, d) } else { best },
                );
            (nearest.0, *x)
        })
        .collect();
    keyed.sort_by_key(|&(i, _)| i);
    let inner: Vec<Vec3> = keyed.into_iter().map(|(_, x)| x).collect();
    SharedShape::round_convex_hull(&inner, radius)
}

/// The vertices (f32) of the polytope bounded by `planes` each moved `r`
/// inwards, `c` a point strictly inside all of them; vertices more than
/// `tolerance` outside a moved plane are left out. `None` when the dual
/// hull cannot be built or a dual point is not finite.
fn inner_vertices(planes: &[(DVec3, f64)], c: DVec3, r: f64, tolerance: f64) -> Option<Vec<Vec3>> {
    // Dual points n / (d − r − n·c); each maps back to its plane by its bits
    // (parry returns the input points unchanged). Planes giving the same
    // dual point are one plane.
    let mut dual = Vec::with_capacity(planes.len());
    let mut plane_of = BTreeMap::new();
    for (k, (n, d)) in planes.iter().enumerate() {
        let q = (*n / (d - r - n.dot(c))).as_vec3();
        if !q.is_finite() {
            return None;
        }
        if plane_of.insert(q.to_array().map(f32::to_bits), k).is_none() {
            dual.push(q);
        }
    }
    let (dual_points, triangles) = try_convex_hull(&dual).ok()?;
    let mut inner = Vec::with_capacity(triangles.len());
    for t in &triangles {
        let mut k = [0usize; 3];
        for (slot, &i) in k.iter_mut().zip(t) {
            let q = dual_points.get(i as usize)?;
            *slot = *plane_of.get(&q.to_array().map(f32::to_bits))?;
        }
        // A dual triangle whose planes share a line gives no vertex; the
        // other triangles of the same dual face give it.
        let Some(x) = meet(planes[k[0]], planes[k[1]], planes[k[2]], r) else {
            continue;
        };
        // Nearly parallel planes (rough or finely tessellated faces) give
        // nearly coincident dual points, and the f32 dual hull may join them
        // wrongly: such a triangle's planes meet outside another plane (by
        // 15 µm on a 0.4 m rough chunk). Its vertex is left out; the hull of
        // the others lies inside every shifted plane, so the shape only
        // loses a sliver there and never grows past the hull.
        if planes.iter().any(|(n, d)| n.dot(x) > d - r + tolerance) {
            continue;
        }
        inner.push(x.as_vec3());
    }
    Some(inner)
}

/// The point where three planes `n·x = d − r` meet, `None` when they do not
/// meet in one point (two are parallel, or all three share a line).
fn meet(a: (DVec3, f64), b: (DVec3, f64), c: (DVec3, f64), r: f64) -> Option<DVec3> {
    let (bc, ca, ab) = (b.0.cross(c.0), c.0.cross(a.0), a.0.cross(b.0));
    let det = a.0.dot(bc);
    if !(det.abs() > 1e-9) {
        return None;
    }
    Some(((a.1 - r) * bc + (b.1 - r) * ca + (c.1 - r) * ab) / det)
}

/// Largest distance from `shape`'s local origin to its surface along
/// `dir` (its support value), m. For tests and checks of a collider's
/// extent against the hull it came from.
#[cfg(test)]
fn support(shape: &SharedShape, dir: Vec3) -> f32 {
    use rapier3d::parry::shape::SupportMap;
    let s: &dyn SupportMap = match shape.as_round_convex_polyhedron() {
        Some(round) => round,
        None => match shape.as_convex_polyhedron() {
            Some(sharp) => sharp,
            None => return f32::NAN,
        },
    };
    s.local_support_point(dir).dot(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn radius(shape: &SharedShape) -> f32 {
        shape.as_round_convex_polyhedron().unwrap().border_radius
    }

    fn cuboid_hull(half: Vec3) -> ConvexPolyhedron {
        let corners: Vec<Vec3> = (0..8)
            .map(|i| {
                Vec3::new(
                    if i & 1 == 0 { -half.x } else { half.x },
                    if i & 2 == 0 { -half.y } else { half.y },
                    if i & 4 == 0 { -half.z } else { half.z },
                )
            })
            .collect();
        ConvexPolyhedron::from_convex_hull(&corners).unwrap()
    }

    #[test]
    fn a_rounded_box_touches_its_faces_and_does_not_cross_them() {
        let half = Vec3::new(0.25, 0.25, 0.25);
        let round = round_hull(&cuboid_hull(half), 0.005).unwrap();
        assert_eq!(radius(&round), 0.005);
        for dir in [
            Vec3::X,
            Vec3::NEG_X,
            Vec3::Y,
            Vec3::NEG_Y,
            Vec3::Z,
            Vec3::NEG_Z,
        ] {
            let extent = support(&round, dir);
            assert!((extent - 0.25).abs() < 1e-6, "{dir}: {extent}");
        }
        // The corners are rounded off: r(√3 − 1) inside the sharp corner.
        let diag = Vec3::ONE.normalize();
        let corner = support(&round, diag);
        let sharp = half.dot(diag);
        assert!((sharp - corner - 0.005 * (3f32.sqrt() - 1.0)).abs() < 1e-6);
    }

    #[test]
    fn a_thin_slab_gets_a_smaller_radius_and_keeps_its_thickness() {
        let half = Vec3::new(0.25, 0.0025, 0.25);
        let round = round_hull(&cuboid_hull(half), 0.005).unwrap();
        assert!(
            (radius(&round) - 0.00125).abs() < 1e-7,
            "{}",
            radius(&round)
        );
        let thickness = support(&round, Vec3::Y) + support(&round, Vec3::NEG_Y);
        assert!((thickness - 0.005).abs() < 1e-6, "{thickness}");
    }

    #[test]
    fn a_tetrahedron_stays_inside_its_faces() {
        let pts = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
        ];
        let sharp = ConvexPolyhedron::from_convex_hull(&pts).unwrap();
        let round = round_hull(&sharp, 0.01).unwrap();
        for f in sharp.faces() {
            let n = f.normal;
            let d = pts.iter().map(|p| n.dot(*p)).fold(f32::MIN, f32::max);
            assert!((support(&round, n) - d).abs() < 1e-5);
        }
    }

    #[test]
    fn no_border_keeps_the_sharp_hull() {
        assert!(round_hull(&cuboid_hull(Vec3::splat(0.5)), 0.0).is_none());
    }
}
