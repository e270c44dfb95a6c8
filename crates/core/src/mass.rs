//! Mass properties of chunk sets: total mass, centre of mass, inertia by the
//! parallel-axis theorem, principal axes, and the poses of child colliders in
//! a cluster frame (DESIGN §3.5, destruction-system seed "质量与惯性").

use crate::error::MassError;
use glam::{DMat3, DVec3, Mat3, Quat, Vec3};

/// Mass, centre of mass and inertia tensor of a rigid set of chunks.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct MassProperties {
    /// Total mass M = Σ mᵢ, kg.
    pub mass: f32,
    /// Centre of mass c = Σ mᵢ cᵢ / M, m, in the frame of the inputs.
    pub center: Vec3,
    /// Inertia about `center`, kg·m², axes of the inputs' frame.
    pub inertia: Mat3,
}

/// One member of a rigid set, in a common frame.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct MassPart {
    /// Mass, kg.
    pub mass: f32,
    /// Centre of mass cᵢ, m.
    pub center: Vec3,
    /// Inertia about `center` in the part's own axes, kg·m².
    pub inertia: Mat3,
    /// Rotation Rᵢ from the part's own axes to the common frame.
    pub rotation: Quat,
}

/// Combines parts into one rigid body:
///
/// `M = Σ mᵢ`, `c = Σ mᵢ cᵢ / M`,
/// `I = Σ ( Rᵢ Iᵢ Rᵢᵀ + mᵢ [ (rᵢ·rᵢ) 1 − rᵢ rᵢᵀ ] )`, `rᵢ = cᵢ − c`
/// (parallel-axis theorem; destruction-system seed, DESIGN §3.5).
///
/// Accumulates in `f64` in the given order, so the result depends on the order
/// only through `f64` rounding (far below the `f32` output precision).
///
/// # Errors
/// [`MassError::Empty`] for no parts, [`MassError::NonPositiveMass`] when a part's
/// mass is not positive finite.
///
/// # Example
/// Masses 1 and 3 kg at x = 0 and 2 m with own Izz 1/6 and 1/2 give c = 1.5 m and
/// Izz = 11/3 kg·m² (not 2/3):
/// ```
/// use smithereens_core::mass::{combine, MassPart};
/// use glam::{Mat3, Quat, Vec3};
/// let part = |m: f32, x: f32, izz: f32| MassPart {
///     mass: m, center: Vec3::new(x, 0.0, 0.0),
///     inertia: Mat3::from_diagonal(Vec3::new(izz, izz, izz)), rotation: Quat::IDENTITY,
/// };
/// let mp = combine(&[part(1.0, 0.0, 1.0 / 6.0), part(3.0, 2.0, 0.5)]).unwrap();
/// assert!((mp.center.x - 1.5).abs() < 1e-6);
/// assert!((mp.inertia.z_axis.z - 11.0 / 3.0).abs() < 1e-5);
/// ```
pub fn combine(parts: &[MassPart]) -> Result<MassProperties, MassError> {
    if parts.is_empty() {
        return Err(MassError::Empty);
    }
    let mut mass = 0.0f64;
    let mut moment = DVec3::ZERO;
    for p in parts {
        if !(p.mass.is_finite() && p.mass > 0.0) {
            return Err(MassError::NonPositiveMass(p.mass));
        }
        mass += p.mass as f64;
        moment += p.mass as f64 * p.center.as_dvec3();
    }
    let c = moment / mass;
    let mut inertia = DMat3::ZERO;
    for p in parts {
        let r = DMat3::from_quat(p.rotation.as_dquat());
        let own = r * p.inertia.as_dmat3() * r.transpose();
        let d = p.center.as_dvec3() - c;
        let shift = DMat3::from_diagonal(DVec3::splat(d.dot(d))) - outer(d, d);
        inertia += own + shift * p.mass as f64;
    }
    Ok(MassProperties {
        mass: mass as f32,
        center: c.as_vec3(),
        inertia: inertia.as_mat3(),
    })
}

fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

/// Rotates an inertia tensor: `R I Rᵀ` (e.g. local → world with `R = R_c`;
/// world → local is `rotate_inertia(I_world, R_c⁻¹)`, i.e. `R_cᵀ I_world R_c`).
pub fn rotate_inertia(inertia: Mat3, rotation: Quat) -> Mat3 {
    let r = Mat3::from_quat(rotation);
    r * inertia * r.transpose()
}

/// Pose of a child collider in its cluster's body frame: position
/// `R_cᵀ (cᵢ − c)` and rotation `R_cᵀ Rᵢ`, where the body frame has origin `c`
/// (the cluster's centre of mass, world) and rotation `R_c`, and the child has
/// world origin `cᵢ` and rotation `Rᵢ` (DESIGN §3.5).
pub fn child_local_pose(
    cluster_center: Vec3,
    cluster_rotation: Quat,
    child_origin: Vec3,
    child_rotation: Quat,
) -> (Vec3, Quat) {
    let inv = cluster_rotation.inverse();
    (
        inv * (child_origin - cluster_center),
        (inv * child_rotation).normalize(),
    )
}

/// Principal moments and a right-handed principal frame of a symmetric inertia
/// tensor: `I = Q Λ Qᵀ` with `Q = Mat3::from_quat(frame)` (columns are the
/// axes) and `Λ = diag(moments)`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PrincipalAxes {
    /// Principal moments Λ, kg·m², ascending.
    pub moments: Vec3,
    /// Right-handed rotation whose columns are the principal axes.
    pub frame: Quat,
}

impl PrincipalAxes {
    /// Rebuilds `Q Λ Qᵀ`.
    pub fn reconstruct(&self) -> Mat3 {
        let q = Mat3::from_quat(self.frame);
        q * Mat3::from_diagonal(self.moments) * q.transpose()
    }
}

/// Eigen-decomposes a symmetric 3×3 inertia tensor with cyclic Jacobi
/// rotations in `f64` (Golub & Van Loan §8.5), sorts moments ascending, fixes
/// the sign of each axis (largest component positive) and makes the frame
/// right-handed, so the same tensor always yields the same bits. The result is
/// checked by reconstruction: `|Q Λ Qᵀ − I|∞ ≤ 1e-4 · |I|∞`.
///
/// Repeated moments make the axes non-unique; correctness is judged by the
/// reconstruction, and the deterministic choice serves replay comparisons.
///
/// # Errors
/// [`MassError::NonFiniteInertia`] on NaN/∞, [`MassError::Degenerate`] when a
/// moment is not positive (a flat or empty piece), [`MassError::Reconstruction`]
/// when the check fails.
pub fn principal_axes(inertia: Mat3) -> Result<PrincipalAxes, MassError> {
    let cols = inertia.to_cols_array();
    if cols.iter().any(|v| !v.is_finite()) {
        return Err(MassError::NonFiniteInertia);
    }
    let a0 = inertia.as_dmat3();
    let sym = (a0 + a0.transpose()) * 0.5;
    let mut a = [[0.0f64; 3]; 3];
    for (i, row) in a.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = sym.col(j)[i];
        }
    }
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0f64]];
    for _sweep in 0..32 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        let diag = a[0][0].abs() + a[1][1].abs() + a[2][2].abs();
        if off <= 1e-15 * diag.max(f64::MIN_POSITIVE) {
            break;
        }
        for (p, q) in [(0usize, 1usize), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            // A ← Jᵀ A J
            for row in a.iter_mut() {
                let akp = row[p];
                let akq = row[q];
                row[p] = c * akp - s * akq;
                row[q] = s * akp + c * akq;
            }
            let (row_p, row_q) = (a[p], a[q]);
            for k in 0..3 {
                a[p][k] = c * row_p[k] - s * row_q[k];
                a[q][k] = s * row_p[k] + c * row_q[k];
            }
            for row in v.iter_mut() {
                let vp = row[p];
                let vq = row[q];
                row[p] = c * vp - s * vq;
                row[q] = s * vp + c * vq;
            }
        }
    }
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| a[i][i].total_cmp(&a[j][j]).then(i.cmp(&j)));
    let mut axes = [DVec3::ZERO; 3];
    let mut moments = [0.0f64; 3];
    for (slot, &k) in order.iter().enumerate() {
        let mut axis = DVec3::new(v[0][k], v[1][k], v[2][k]).normalize();
        let arr = axis.to_array();
        let mut big = 0;
        for i in 1..3 {
            if arr[i].abs() > arr[big].abs() + 1e-12 {
                big = i;
            }
        }
        if arr[big] < 0.0 {
            axis = -axis;
        }
        axes[slot] = axis;
        moments[slot] = a[k][k];
    }
    if axes[0].cross(axes[1]).dot(axes[2]) < 0.0 {
        axes[2] = -axes[2];
    }
    let moments_v = DVec3::from_array(moments).as_vec3();
    if !(moments_v.min_element() > 0.0) || !moments_v.is_finite() {
        return Err(MassError::Degenerate { moments: moments_v });
    }
    let q = DMat3::from_cols(axes[0], axes[1], axes[2]);
    let frame = glam::DQuat::from_mat3(&q).normalize().as_quat();
    let result = PrincipalAxes {
        moments: moments_v,
        frame,
    };
    let scale = cols.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    let err = (result.reconstruct() - inertia)
        .to_cols_array()
        .iter()
        .fold(0.0f32, |m, x| m.max(x.abs()));
    if err > 1e-4 * scale {
        return Err(MassError::Reconstruction { error: err, scale });
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::FRAC_PI_2;

    fn part(m: f32, x: f32, izz: f32) -> MassPart {
        MassPart {
            mass: m,
            center: Vec3::new(x, 0.0, 0.0),
            inertia: Mat3::from_diagonal(Vec3::new(izz, izz, izz)),
            rotation: Quat::IDENTITY,
        }
    }

    #[test]
    fn two_masses_on_x_give_center_one_point_five_and_izz_eleven_thirds() {
        let mp = combine(&[part(1.0, 0.0, 1.0 / 6.0), part(3.0, 2.0, 0.5)]).unwrap();
        assert_eq!(mp.mass, 4.0);
        assert!((mp.center - Vec3::new(1.5, 0.0, 0.0)).length() < 1e-6);
        assert!(
            (mp.inertia.z_axis.z - 11.0 / 3.0).abs() < 1e-5,
            "{}",
            mp.inertia.z_axis.z
        );
        // Summing own inertias alone would give 2/3: the parallel-axis term matters.
        assert!((mp.inertia.z_axis.z - 2.0 / 3.0).abs() > 1.0);
        // Along x the offsets contribute nothing.
        assert!((mp.inertia.x_axis.x - (1.0 / 6.0 + 0.5)).abs() < 1e-6);
    }

    #[test]
    fn child_offset_in_a_cluster_rotated_90_degrees_about_z_is_minus_y() {
        let rc = Quat::from_rotation_z(FRAC_PI_2);
        let (pos, rot) = child_local_pose(Vec3::ZERO, rc, Vec3::X, rc);
        assert!((pos - Vec3::new(0.0, -1.0, 0.0)).length() < 1e-6, "{pos:?}");
        assert!(rot.angle_between(Quat::IDENTITY) < 1e-6);
    }

    #[test]
    fn local_diag_123_rotated_90_degrees_about_z_is_world_diag_213() {
        let local = Mat3::from_diagonal(Vec3::new(1.0, 2.0, 3.0));
        let rc = Quat::from_rotation_z(FRAC_PI_2);
        let world = rotate_inertia(local, rc);
        let expected = Mat3::from_diagonal(Vec3::new(2.0, 1.0, 3.0));
        assert!(world.abs_diff_eq(expected, 1e-6), "{world:?}");
        // And back: I_local = R_cᵀ I_world R_c.
        assert!(rotate_inertia(world, rc.inverse()).abs_diff_eq(local, 1e-6));
    }

    #[test]
    fn principal_axes_reconstruct_a_full_tensor_with_a_right_handed_frame() {
        let r = Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 0.7);
        let tensor = rotate_inertia(Mat3::from_diagonal(Vec3::new(3.0, 1.0, 2.0)), r);
        let pa = principal_axes(tensor).unwrap();
        assert!(
            (pa.moments - Vec3::new(1.0, 2.0, 3.0)).length() < 1e-5,
            "{:?}",
            pa.moments
        );
        let q = Mat3::from_quat(pa.frame);
        assert!((q.determinant() - 1.0).abs() < 1e-5);
        assert!(pa.reconstruct().abs_diff_eq(tensor, 1e-5));
    }

    #[test]
    fn principal_axes_of_a_repeated_moment_tensor_still_reconstruct() {
        let t = Mat3::from_diagonal(Vec3::new(2.0, 2.0, 5.0));
        let pa = principal_axes(t).unwrap();
        assert!(pa.reconstruct().abs_diff_eq(t, 1e-6));
    }

    #[test]
    fn flat_piece_with_zero_moment_fails_instead_of_entering_with_zero_inertia() {
        let t = Mat3::from_diagonal(Vec3::new(0.0, 1.0, 1.0));
        assert!(matches!(
            principal_axes(t),
            Err(MassError::Degenerate { .. })
        ));
        let nan = Mat3::from_diagonal(Vec3::new(f32::NAN, 1.0, 1.0));
        assert_eq!(principal_axes(nan), Err(MassError::NonFiniteInertia));
    }

    #[test]
    fn combine_rejects_empty_and_non_positive_mass() {
        assert_eq!(combine(&[]), Err(MassError::Empty));
        assert!(matches!(
            combine(&[part(-1.0, 0.0, 1.0)]),
            Err(MassError::NonPositiveMass(_))
        ));
    }

    #[test]
    fn rotated_part_inertia_is_rotated_before_the_shift() {
        let mut p = part(2.0, 0.0, 0.0);
        p.inertia = Mat3::from_diagonal(Vec3::new(1.0, 2.0, 3.0));
        p.rotation = Quat::from_rotation_z(FRAC_PI_2);
        let mp = combine(&[p]).unwrap();
        assert!(
            mp.inertia
                .abs_diff_eq(Mat3::from_diagonal(Vec3::new(2.0, 1.0, 3.0)), 1e-6)
        );
    }
}
