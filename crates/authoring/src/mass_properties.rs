//! Volume, centroid and inertia tensor of a closed triangle surface.
//!
//! Source: D. Eberly, *Polyhedral Mass Properties (Revisited)*, Geometric
//! Tools, 2002 (itself a simplification of B. Mirtich, *Fast and Accurate
//! Computation of Polyhedral Mass Properties*, JGT 1(2), 1996). The divergence
//! theorem turns each volume integral ∫1, ∫x, ∫x², ∫xy, … into a sum over
//! the surface triangles of closed-form polynomials in the vertex
//! coordinates; this is exact for any closed, consistently oriented surface,
//! convex or not.

use glam::{DMat3, DVec3};

/// Mass properties of a homogeneous solid.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct MassProperties {
    /// Enclosed volume, m³ (positive for a surface wound counter-clockwise
    /// seen from outside).
    pub volume: f64,
    /// Mass = density × volume, kg.
    pub mass: f64,
    /// Centre of mass (= centroid for uniform density), m.
    pub centroid: DVec3,
    /// Inertia tensor about `centroid`, kg·m², in the mesh's axes:
    /// `Ixx = ∫ρ(y²+z²)dV`, `Ixy = −∫ρ·xy dV` (relative to the centroid), etc.
    /// Symmetric.
    pub inertia: DMat3,
}

/// Computes volume, centroid and inertia about the centroid of the solid
/// bounded by `triangles` (indices into `positions`), for uniform `density`
/// (kg/m³).
///
/// Coordinates are taken relative to the first vertex before integrating, so
/// the result does not lose precision for meshes far from the origin.
/// Triangles with an out-of-range index are ignored. If the volume is zero
/// the centroid is the reference vertex and the inertia is zero.
pub(crate) fn polyhedron_mass_properties(
    positions: &[DVec3],
    triangles: &[[u32; 3]],
    density: f64,
) -> MassProperties {
    let origin = positions.first().copied().unwrap_or(DVec3::ZERO);
    // Integrals of 1, x, y, z, x², y², z², xy, yz, zx (Eberly's `intg`).
    let mut intg = [0.0f64; 10];
    for t in triangles {
        let (Some(p0), Some(p1), Some(p2)) = (
            positions.get(t[0] as usize),
            positions.get(t[1] as usize),
            positions.get(t[2] as usize),
        ) else {
            continue;
        };
        let (p0, p1, p2) = (*p0 - origin, *p1 - origin, *p2 - origin);
        let e1 = p1 - p0;
        let e2 = p2 - p0;
        let d = e1.cross(e2);
        let sx = subexpressions(p0.x, p1.x, p2.x);
        let sy = subexpressions(p0.y, p1.y, p2.y);
        let sz = subexpressions(p0.z, p1.z, p2.z);
        intg[0] += d.x * sx.f1;
        intg[1] += d.x * sx.f2;
        intg[2] += d.y * sy.f2;
        intg[3] += d.z * sz.f2;
        intg[4] += d.x * sx.f3;
        intg[5] += d.y * sy.f3;
        intg[6] += d.z * sz.f3;
        intg[7] += d.x * (p0.y * sx.g0 + p1.y * sx.g1 + p2.y * sx.g2);
        intg[8] += d.y * (p0.z * sy.g0 + p1.z * sy.g1 + p2.z * sy.g2);
        intg[9] += d.z * (p0.x * sz.g0 + p1.x * sz.g1 + p2.x * sz.g2);
    }
    intg[0] /= 6.0;
    for v in &mut intg[1..4] {
        *v /= 24.0;
    }
    for v in &mut intg[4..7] {
        *v /= 60.0;
    }
    for v in &mut intg[7..10] {
        *v /= 120.0;
    }
    let volume = intg[0];
    if volume == 0.0 || !volume.is_finite() {
        return MassProperties {
            volume,
            mass: density * volume,
            centroid: origin,
            inertia: DMat3::ZERO,
        };
    }
    let c = DVec3::new(intg[1], intg[2], intg[3]) / volume;
    // Second moments about the centroid (per unit density).
    let xx = intg[4] - volume * c.x * c.x;
    let yy = intg[5] - volume * c.y * c.y;
    let zz = intg[6] - volume * c.z * c.z;
    let xy = intg[7] - volume * c.x * c.y;
    let yz = intg[8] - volume * c.y * c.z;
    let zx = intg[9] - volume * c.z * c.x;
    let inertia = DMat3::from_cols(
        DVec3::new(yy + zz, -xy, -zx),
        DVec3::new(-xy, xx + zz, -yz),
        DVec3::new(-zx, -yz, xx + yy),
    ) * density;
    MassProperties {
        volume,
        mass: density * volume,
        centroid: origin + c,
        inertia,
    }
}

struct Sub {
    f1: f64,
    f2: f64,
    f3: f64,
    g0: f64,
    g1: f64,
    g2: f64,
}

/// Eberly's `Subexpressions(w0, w1, w2, f1, f2, f3, g0, g1, g2)`.
fn subexpressions(w0: f64, w1: f64, w2: f64) -> Sub {
    let temp0 = w0 + w1;
    let f1 = temp0 + w2;
    let temp1 = w0 * w0;
    let temp2 = temp1 + w1 * temp0;
    let f2 = temp2 + w2 * f1;
    let f3 = w0 * temp1 + w1 * temp2 + w2 * f2;
    Sub {
        f1,
        f2,
        f3,
        g0: f2 + w0 * (f1 + w0),
        g1: f2 + w1 * (f1 + w1),
        g2: f2 + w2 * (f1 + w2),
    }
}

/// Combines solids given by their mass properties (same frame) with the
/// parallel-axis theorem: `I = Σ Iᵢ + mᵢ(|dᵢ|²·E − dᵢdᵢᵀ)`, `dᵢ = cᵢ − c`.
/// Volumes and masses add. Parts with zero mass only contribute volume.
pub(crate) fn combine(parts: &[MassProperties]) -> MassProperties {
    let volume: f64 = parts.iter().map(|p| p.volume).sum();
    let mass: f64 = parts.iter().map(|p| p.mass).sum();
    let centroid = if mass != 0.0 {
        parts.iter().map(|p| p.centroid * p.mass).sum::<DVec3>() / mass
    } else {
        parts.first().map_or(DVec3::ZERO, |p| p.centroid)
    };
    let mut inertia = DMat3::ZERO;
    for p in parts {
        let d = p.centroid - centroid;
        let shift = DMat3::from_diagonal(DVec3::splat(d.dot(d))) - outer(d, d);
        inertia += p.inertia + shift * p.mass;
    }
    MassProperties {
        volume,
        mass,
        centroid,
        inertia,
    }
}

fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DQuat;

    /// Axis-aligned box `[0,sx]×[0,sy]×[0,sz]`, CCW outward.
    pub(crate) fn box_mesh(size: DVec3) -> (Vec<DVec3>, Vec<[u32; 3]>) {
        let p = (0..8)
            .map(|i| {
                DVec3::new(
                    (i & 1) as f64 * size.x,
                    ((i >> 1) & 1) as f64 * size.y,
                    ((i >> 2) & 1) as f64 * size.z,
                )
            })
            .collect();
        let t = vec![
            [0, 2, 1],
            [1, 2, 3], // z = 0
            [4, 5, 6],
            [5, 7, 6], // z = 1
            [0, 1, 4],
            [1, 5, 4], // y = 0
            [2, 6, 3],
            [3, 6, 7], // y = 1
            [0, 4, 2],
            [2, 4, 6], // x = 0
            [1, 3, 5],
            [3, 7, 5], // x = 1
        ];
        (p, t)
    }

    fn close(a: DMat3, b: DMat3, tol: f64) -> bool {
        (a - b).to_cols_array().iter().all(|v| v.abs() <= tol)
    }

    #[test]
    fn unit_cube_with_density_one_has_volume_one_centre_half_and_inertia_one_sixth() {
        let (p, t) = box_mesh(DVec3::ONE);
        let mp = polyhedron_mass_properties(&p, &t, 1.0);
        assert!((mp.volume - 1.0).abs() < 1e-12);
        assert!((mp.mass - 1.0).abs() < 1e-12);
        assert!((mp.centroid - DVec3::splat(0.5)).length() < 1e-12);
        assert!(
            close(
                mp.inertia,
                DMat3::from_diagonal(DVec3::splat(1.0 / 6.0)),
                1e-12
            ),
            "{:?}",
            mp.inertia
        );
    }

    #[test]
    fn box_inertia_follows_the_textbook_formula_and_scales_with_density() {
        let s = DVec3::new(1.0, 2.0, 3.0);
        let (p, t) = box_mesh(s);
        let mp = polyhedron_mass_properties(&p, &t, 2.0);
        let m = 2.0 * 6.0;
        let expected = DMat3::from_diagonal(
            DVec3::new(
                s.y * s.y + s.z * s.z,
                s.x * s.x + s.z * s.z,
                s.x * s.x + s.y * s.y,
            ) * (m / 12.0),
        );
        assert!((mp.mass - m).abs() < 1e-12);
        assert!(close(mp.inertia, expected, 1e-10), "{:?}", mp.inertia);
    }

    #[test]
    fn translated_and_rotated_box_gives_the_rotated_tensor_about_its_centre() {
        let s = DVec3::new(1.0, 2.0, 3.0);
        let (p, t) = box_mesh(s);
        let base = polyhedron_mass_properties(&p, &t, 1.0);
        let rot = DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 0.7);
        let shift = DVec3::new(100.0, -50.0, 7.5);
        let moved: Vec<DVec3> = p.iter().map(|&v| rot * v + shift).collect();
        let mp = polyhedron_mass_properties(&moved, &t, 1.0);
        let r = DMat3::from_quat(rot);
        assert!((mp.volume - 6.0).abs() < 1e-9);
        assert!((mp.centroid - (rot * (s * 0.5) + shift)).length() < 1e-9);
        assert!(
            close(mp.inertia, r * base.inertia * r.transpose(), 1e-9),
            "{:?}",
            mp.inertia
        );
        assert!(close(mp.inertia, mp.inertia.transpose(), 1e-12));
    }

    #[test]
    fn combining_two_halves_equals_the_whole() {
        let (p, t) = box_mesh(DVec3::new(1.0, 1.0, 0.5));
        let lower = polyhedron_mass_properties(&p, &t, 3.0);
        let upper_p: Vec<DVec3> = p.iter().map(|v| *v + DVec3::new(0.0, 0.0, 0.5)).collect();
        let upper = polyhedron_mass_properties(&upper_p, &t, 3.0);
        let (wp, wt) = box_mesh(DVec3::ONE);
        let whole = polyhedron_mass_properties(&wp, &wt, 3.0);
        let both = combine(&[lower, upper]);
        assert!((both.volume - whole.volume).abs() < 1e-12);
        assert!((both.centroid - whole.centroid).length() < 1e-12);
        assert!(close(both.inertia, whole.inertia, 1e-12));
    }
}
