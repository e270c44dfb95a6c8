//! Mass properties of chunk sets: total mass, centre of mass, inertia by the
//! parallel-axis theorem, principal axes, and the poses of child colliders in
//! a cluster frame (DESIGN §3.5, destruction-system seed "质量与惯性").

use crate::asset::Asset;
use crate::error::MassError;
use crate::index::ChunkIndex;
use glam::{DMat3, DVec3, Mat3, Quat, Vec3};
use serde::{Deserialize, Serialize};

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

/// Drift guard of [`MassSums::subtract`]: once a cluster's mass falls below
/// this fraction of its mass at the last exact sum, its sums are rebuilt from
/// its chunks. Each rebuild then costs O(remaining chunks) ≤ O(chunks removed
/// since the last rebuild) for chunks of comparable mass, so rebuilding stays
/// amortised O(departed pieces).
pub const RESUM_FRACTION: f64 = 0.5;

/// Drift guard of [`MassSums::subtract`]: after `max(RESUM_EVERY, n)`
/// subtractions since the last exact sum, for a remainder of `n` chunks, the
/// sums are rebuilt from the chunks, whatever the mass (capped at
/// [`RESUM_EVERY_MAX`]). With the fraction guard, the sums being subtracted
/// are at most `1 / RESUM_FRACTION` times the remainder's own, so each
/// subtraction adds a relative error of a few f64 ulps (≈ 2e-16) to the
/// remainder's mass, first moment and inertia: `max(1024, n)` of them stay
/// of the order of the rounding of the exact `n`-term sum itself, and below
/// 1e-9 up to the cap, far under the f32 precision (6e-8) the properties are
/// published in. Scaling the count with `n` keeps the re-sum amortised
/// O(1) per subtraction: a blast that frees 3,000 single chunks from a
/// 30,000-chunk block subtracts them without re-summing the block.
pub const RESUM_EVERY: u32 = 1024;

/// The largest subtraction count the drift guard allows ([`RESUM_EVERY`]):
/// 2²⁰ subtractions of ≈ 2e-16 each stay below 1e-9.
pub const RESUM_EVERY_MAX: u32 = 1 << 20;

/// Running mass sums of a rigid set of chunks about a fixed reference point,
/// in `f64`, so that departing pieces can be *subtracted* (issue 12): a
/// cluster that loses a corner chip costs O(chip), not O(cluster).
///
/// * `mass`: M = Σ mᵢ, kg;
/// * `moment`: S = Σ mᵢ (cᵢ − p), kg·m, with `reference` p (m, asset space);
/// * `inertia`: J = Σ ( Iᵢ + mᵢ [ (rᵢ·rᵢ) 1 − rᵢ rᵢᵀ ] ), rᵢ = cᵢ − p, the
///   inertia about p, kg·m² (parallel-axis theorem, DESIGN §3.5).
///
/// The centre of mass is c = p + S/M and the inertia about it
/// I = J − M [ (d·d) 1 − d dᵀ ] with d = S/M (the parallel-axis theorem
/// used backwards). An exact sum ([`Self::of_chunks`]) puts p at the centre
/// of mass, so J stays of the order of the cluster's own inertia and the
/// subtraction loses no digits to a far-away origin.
///
/// Subtraction is exact arithmetic up to f64 rounding; the drift guard
/// ([`RESUM_FRACTION`], [`RESUM_EVERY`], [`Self::needs_resum`]) bounds the
/// accumulated rounding, and the sums are part of the cluster's state
/// (snapshots carry them), so a replayed or restored run subtracts the same
/// numbers in the same order and stays bit-identical.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MassSums {
    /// M, kg.
    pub mass: f64,
    /// Reference point p, m, asset space.
    pub reference: DVec3,
    /// S = Σ mᵢ (cᵢ − p), kg·m.
    pub moment: DVec3,
    /// J, inertia about p, kg·m², asset axes.
    pub inertia: DMat3,
    /// M at the last exact sum, kg (drift guard).
    pub resum_mass: f64,
    /// Subtractions since the last exact sum (drift guard).
    pub subtractions: u32,
}

impl MassSums {
    /// No mass (a placeholder, never a cluster's).
    pub const ZERO: Self = Self {
        mass: 0.0,
        reference: DVec3::ZERO,
        moment: DVec3::ZERO,
        inertia: DMat3::ZERO,
        resum_mass: 0.0,
        subtractions: 0,
    };

    /// Exact sums over `nodes` (chunks of `asset`, any order; unknown
    /// indices are skipped), accumulated in the given order with p at the
    /// centre of mass. A single chunk gives exactly its own properties.
    ///
    /// # Errors
    /// [`MassError::Empty`] when no node names a chunk.
    pub fn of_chunks(asset: &Asset, nodes: &[ChunkIndex]) -> Result<Self, MassError> {
        Self::of_each(nodes.iter().filter_map(|&n| asset.chunk(n)))
    }

    /// The sums of one chunk: what [`Self::of_chunks`] gives for it (p at
    /// its centroid, S = 0, J its inertia), by the same code, so bit for
    /// bit, signs of zeros included, without looking the chunk up.
    ///
    /// # Errors
    /// [`MassError::Empty`] when the chunk's mass is not positive (as
    /// [`Self::of_chunks`]).
    pub fn of_chunk(chunk: &crate::Chunk) -> Result<Self, MassError> {
        Self::of_each(std::iter::once(chunk))
    }

    /// [`Self::of_chunks`] over the chunks themselves, in order.
    fn of_each<'a>(
        chunks: impl Iterator<Item = &'a crate::Chunk> + Clone,
    ) -> Result<Self, MassError> {
        let mut mass = 0.0f64;
        let mut first = DVec3::ZERO;
        for c in chunks.clone() {
            mass += c.mass as f64;
            first += c.mass as f64 * c.centroid.as_dvec3();
        }
        if !(mass > 0.0) {
            return Err(MassError::Empty);
        }
        // p is the centre of mass, so S = 0 (taken as exactly zero rather
        // than re-summed rounding noise): the properties then equal
        // [`combine`]'s bit for bit.
        let reference = first / mass;
        let mut inertia = DMat3::ZERO;
        for c in chunks {
            let r = c.centroid.as_dvec3() - reference;
            inertia += c.inertia.as_dmat3() + parallel_axis(r) * c.mass as f64;
        }
        Ok(Self {
            mass,
            reference,
            moment: DVec3::ZERO,
            inertia,
            resum_mass: mass,
            subtractions: 0,
        })
    }

    /// [`Self::properties`] of sums from [`Self::of_chunk`], bit for bit,
    /// without the arithmetic that is exact there (S = 0, p the centroid
    /// with no negative zero, M positive): 2,848 one-chunk pieces of a blast
    /// spent 70 µs in it.
    pub(crate) fn one_chunk_properties(&self) -> MassProperties {
        MassProperties {
            mass: self.mass as f32,
            center: self.reference.as_vec3(),
            inertia: self.inertia.as_mat3(),
        }
    }

    /// Centre of mass c = p + S/M, m.
    pub fn center(&self) -> DVec3 {
        self.reference + self.moment / self.mass
    }

    /// Removes `piece` (sums of chunks that belong to `self`): M ← M − Mₚ,
    /// S ← S − Mₚ (cₚ − p), J ← J − ( Iₚ + Mₚ [ (r·r) 1 − r rᵀ ] ) with
    /// r = cₚ − p and Iₚ the piece's inertia about its own centre (the
    /// parallel-axis theorem both ways: off the piece's reference, onto
    /// ours). Counts one subtraction for the drift guard.
    pub fn subtract(&mut self, piece: &MassSums) {
        let d = piece.moment / piece.mass;
        let own = piece.inertia - parallel_axis(d) * piece.mass;
        let r = piece.center() - self.reference;
        self.mass -= piece.mass;
        self.moment -= r * piece.mass;
        self.inertia -= own + parallel_axis(r) * piece.mass;
        self.subtractions = self.subtractions.saturating_add(1);
    }

    /// True when the sums of a set of `members` chunks should be rebuilt
    /// from the chunks: the mass fell below [`RESUM_FRACTION`] of the mass at
    /// the last exact sum, at least `max(`[`RESUM_EVERY`]`, members)`
    /// subtractions (at most [`RESUM_EVERY_MAX`]) happened since, or a value
    /// is not finite.
    pub fn needs_resum(&self, members: usize) -> bool {
        self.resum_due(self.mass, self.subtractions, members)
            || !(self.moment.is_finite() && self.inertia.is_finite() && self.reference.is_finite())
    }

    /// The mass and count parts of [`Self::needs_resum`] for sums that
    /// would have mass `mass` after `subtractions` subtractions since the
    /// last exact sum: lets a caller know before subtracting that the
    /// result would be re-summed anyway.
    pub(crate) fn resum_due(&self, mass: f64, subtractions: u32, members: usize) -> bool {
        let every = u32::try_from(members)
            .unwrap_or(u32::MAX)
            .clamp(RESUM_EVERY, RESUM_EVERY_MAX);
        !(mass > RESUM_FRACTION * self.resum_mass) || subtractions >= every
    }

    /// Mass properties (f32) about the centre of mass.
    ///
    /// # Errors
    /// [`MassError::NonPositiveMass`] when M is not positive finite.
    pub fn properties(&self) -> Result<MassProperties, MassError> {
        if !(self.mass.is_finite() && self.mass > 0.0) {
            return Err(MassError::NonPositiveMass(self.mass as f32));
        }
        let d = self.moment / self.mass;
        let inertia = self.inertia - parallel_axis(d) * self.mass;
        Ok(MassProperties {
            mass: self.mass as f32,
            center: (self.reference + d).as_vec3(),
            inertia: inertia.as_mat3(),
        })
    }
}

/// `(r·r) 1 − r rᵀ`: the parallel-axis term per unit mass.
fn parallel_axis(r: DVec3) -> DMat3 {
    DMat3::from_diagonal(DVec3::splat(r.dot(r))) - outer(r, r)
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

    fn bits(s: &MassSums) -> Vec<u64> {
        let mut v = vec![
            s.mass.to_bits(),
            s.resum_mass.to_bits(),
            s.subtractions as u64,
        ];
        v.extend(s.reference.to_array().map(f64::to_bits));
        v.extend(s.moment.to_array().map(f64::to_bits));
        v.extend(s.inertia.to_cols_array().map(f64::to_bits));
        v
    }

    #[test]
    fn one_chunks_sums_equal_the_general_sums_bit_for_bit_even_for_negative_zeros() {
        let mut desc = crate::fixtures::grid_desc(3, 2, 2, 0.7, 1300.0, 40.0);
        // Negative zeros and awkward values in centroids and inertias.
        desc.chunks[0].centroid = Vec3::new(-0.0, 0.1, -0.0);
        desc.chunks[0].inertia =
            Mat3::from_cols_array(&[2.0, -0.0, -0.0, -0.0, 2.0, -0.0, -0.0, -0.0, 2.0]);
        desc.chunks[1].centroid = Vec3::new(1.0 / 3.0, -7.25e-3, 1e5);
        desc.chunks[1].mass = 0.1;
        let asset = crate::Asset::new(&desc).unwrap();
        for (i, c) in asset.chunks().iter_enumerated() {
            let one = MassSums::of_chunk(c).unwrap();
            let general = MassSums::of_chunks(&asset, &[i]).unwrap();
            assert_eq!(bits(&one), bits(&general), "chunk {i:?}");
            // What one-chunk pieces read instead of storing their own.
            assert_eq!(
                bits(asset.chunk_sums(i).unwrap()),
                bits(&one),
                "chunk {i:?}"
            );
            let (a, b) = (one.properties().unwrap(), general.properties().unwrap());
            assert_eq!(a, one.one_chunk_properties());
            let c = one.one_chunk_properties();
            assert_eq!(
                (
                    c.center.to_array().map(f32::to_bits),
                    c.inertia.to_cols_array().map(f32::to_bits)
                ),
                (
                    a.center.to_array().map(f32::to_bits),
                    a.inertia.to_cols_array().map(f32::to_bits)
                ),
            );
            assert_eq!(
                (
                    a.mass.to_bits(),
                    a.center.to_array().map(f32::to_bits),
                    a.inertia.to_cols_array().map(f32::to_bits)
                ),
                (
                    b.mass.to_bits(),
                    b.center.to_array().map(f32::to_bits),
                    b.inertia.to_cols_array().map(f32::to_bits)
                ),
            );
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

    fn cubes(n: u32) -> crate::Asset {
        crate::fixtures::chain(n, &[], &[]).unwrap()
    }

    fn nodes(ks: &[u32]) -> Vec<ChunkIndex> {
        ks.iter().map(|&k| ChunkIndex(k)).collect()
    }

    #[test]
    fn exact_sums_equal_combine_bit_for_bit() {
        let asset = cubes(5);
        let set = nodes(&[0, 2, 3]);
        let parts: Vec<MassPart> = set
            .iter()
            .map(|&n| {
                let c = asset.chunk(n).unwrap();
                MassPart {
                    mass: c.mass,
                    center: c.centroid,
                    inertia: c.inertia,
                    rotation: Quat::IDENTITY,
                }
            })
            .collect();
        let sums = MassSums::of_chunks(&asset, &set).unwrap();
        assert_eq!(sums.properties().unwrap(), combine(&parts).unwrap());
    }

    #[test]
    fn subtracting_a_piece_leaves_the_rest_with_parallel_axis_terms_both_ways() {
        // Unit cubes (1 kg, own Izz 1/6) at x = 0..4; removing {0, 1} from
        // all five leaves {2, 3, 4}: c = 3, Izz = 3·(1/6) + 1 + 0 + 1 = 2.5.
        let asset = cubes(5);
        let mut all = MassSums::of_chunks(&asset, &nodes(&[0, 1, 2, 3, 4])).unwrap();
        let piece = MassSums::of_chunks(&asset, &nodes(&[0, 1])).unwrap();
        all.subtract(&piece);
        let mp = all.properties().unwrap();
        let exact = MassSums::of_chunks(&asset, &nodes(&[2, 3, 4]))
            .unwrap()
            .properties()
            .unwrap();
        assert_eq!(mp.mass, 3.0);
        assert!((mp.center - Vec3::new(3.0, 0.0, 0.0)).length() < 1e-6);
        assert!(
            (mp.inertia.z_axis.z - 2.5).abs() < 1e-6,
            "{}",
            mp.inertia.z_axis.z
        );
        assert!(mp.inertia.abs_diff_eq(exact.inertia, 1e-6));
        assert_eq!(all.subtractions, 1);
        assert!(!all.needs_resum(3), "3/5 of the mass is left");
        all.subtract(&MassSums::of_chunks(&asset, &nodes(&[2])).unwrap());
        assert!(
            all.needs_resum(2),
            "2/5 < RESUM_FRACTION of the mass is left"
        );
    }

    #[test]
    fn many_subtractions_stay_within_1e_12_of_an_exact_sum_in_f64() {
        // 200 cubes on x, chipped one by one from the far end: the running
        // sums agree with an exact sum of what is left to ~1e-12 (relative).
        let n = 200u32;
        let asset = cubes(n);
        let mut sums = MassSums::of_chunks(&asset, &nodes(&(0..n).collect::<Vec<_>>())).unwrap();
        for k in (n / 2 + 1..n).rev() {
            sums.subtract(&MassSums::of_chunks(&asset, &nodes(&[k])).unwrap());
            let rest: Vec<u32> = (0..k).collect();
            let exact = MassSums::of_chunks(&asset, &nodes(&rest)).unwrap();
            assert!((sums.mass - exact.mass).abs() <= 1e-12 * exact.mass);
            assert!((sums.center() - exact.center()).length() <= 1e-12 * k as f64);
            let (mp, ep) = (sums.properties().unwrap(), exact.properties().unwrap());
            assert!(
                mp.inertia
                    .abs_diff_eq(ep.inertia, 1e-6 * ep.inertia.z_axis.z)
            );
        }
    }

    #[test]
    fn the_drift_guard_scales_with_the_members_and_stays_within_1e_9() {
        // A 4,096-cube row losing 2,047 single cubes from its far end keeps
        // more than half its mass: with 4,096 members the guard allows the
        // 2,047 subtractions (the re-sum stays amortised O(1) each), a
        // 100-chunk set is re-summed after RESUM_EVERY = 1,024, and the
        // subtracted sums still agree with an exact sum to 1e-9.
        let n = 4096u32;
        let asset = cubes(n);
        let mut sums = MassSums::of_chunks(&asset, &nodes(&(0..n).collect::<Vec<_>>())).unwrap();
        for k in (n / 2 + 1..n).rev() {
            sums.subtract(&MassSums::of_chunks(&asset, &nodes(&[k])).unwrap());
        }
        assert_eq!(sums.subtractions, 2047);
        assert!(!sums.needs_resum(2049));
        assert!(sums.needs_resum(100), "1,024 subtractions for a small set");
        assert!(sums.needs_resum(2047), "as many subtractions as members");
        let exact = MassSums::of_chunks(&asset, &nodes(&(0..=n / 2).collect::<Vec<_>>())).unwrap();
        let (mp, ep) = (sums.properties().unwrap(), exact.properties().unwrap());
        assert!((sums.mass - exact.mass).abs() <= 1e-9 * exact.mass);
        assert!((sums.center() - exact.center()).length() <= 1e-9 * n as f64);
        let scale = ep.inertia.z_axis.z.abs();
        assert!(mp.inertia.abs_diff_eq(ep.inertia, 1e-6 * scale));
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
