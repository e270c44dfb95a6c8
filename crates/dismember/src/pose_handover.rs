//! Pose and motion hand-over from the body to a gib (seed §5.3, §7.1).
//!
//! Notation (all 3×4 affine transforms): `W_s` the body's model-to-world,
//! `G_s` a body bone's current model-space transform, `W_d` the gib's
//! model-to-world, `G_d` the gib bone's model-space transform, `L_body` a
//! physics body's mounting relative to its bone.
//!
//! * Pose copy: `W_d·G_d = W_s·G_s ⇒ G_d = W_d⁻¹·W_s·G_s`; locals are
//!   rebuilt parent-before-child, `L = G_d[parent]⁻¹·G_d` (root: `L = G_d`).
//! * Physics bodies: `T = W_s·G_s·L_body` at creation; after the solver, the
//!   inverse write-back `G_d = W_d⁻¹·T·L_body⁻¹`.
//! * Velocities: for a physics-driven body, the rigid point velocity
//!   `v_d = v_c + ω × (x_d − x_c)`; for animation-driven parts, the point
//!   velocity from two consecutive world poses of the part (not the root's
//!   running speed).

use glam::{Affine3A, Quat, Vec3};

/// `G_d = W_d⁻¹·W_s·G_s` for one bone.
pub fn copy_bone_pose(w_s: Affine3A, w_d: Affine3A, g_s: Affine3A) -> Affine3A {
    w_d.inverse() * w_s * g_s
}

/// `T = W_s·G_s·L_body`: a physics body's initial world transform.
pub fn body_transform(w_s: Affine3A, g_s: Affine3A, l_body: Affine3A) -> Affine3A {
    w_s * g_s * l_body
}

/// `G_d = W_d⁻¹·T·L_body⁻¹`: writes a solved body back into the gib's bone.
pub fn bone_from_body(w_d: Affine3A, t: Affine3A, l_body: Affine3A) -> Affine3A {
    w_d.inverse() * t * l_body.inverse()
}

/// `v_d = v_c + ω × (x_d − x_c)` (m/s; `ω` in rad/s, positions in m).
pub fn point_velocity(v_c: Vec3, omega: Vec3, x_c: Vec3, x_d: Vec3) -> Vec3 {
    v_c + omega.cross(x_d - x_c)
}

/// Linear (m/s) and angular (rad/s) velocity of a rigidly attached point
/// frame from two consecutive world transforms `dt` seconds apart (dt > 0).
/// The linear velocity is that of the frame's origin; the angular velocity is
/// the rotation `R_now·R_prev⁻¹` as axis·angle / dt (shortest arc).
pub fn velocity_from_poses(prev: Affine3A, now: Affine3A, dt: f32) -> (Vec3, Vec3) {
    let linear = (Vec3::from(now.translation) - Vec3::from(prev.translation)) / dt;
    let (_, q_prev, _) = prev.to_scale_rotation_translation();
    let (_, q_now, _) = now.to_scale_rotation_translation();
    let mut dq: Quat = q_now * q_prev.inverse();
    if dq.w < 0.0 {
        dq = -dq;
    }
    let (axis, angle) = dq.to_axis_angle();
    (linear, axis * (angle / dt))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotating_reference_gives_point_velocity() {
        // v_c = (0, 1, 0), ω = (0, 0, 2), x_d − x_c = (1.5, 0, 0) → v_y = 1 + 3 = 4.
        let v = point_velocity(Vec3::Y, Vec3::new(0.0, 0.0, 2.0), Vec3::ZERO, Vec3::X * 1.5);
        assert!((v - Vec3::new(0.0, 4.0, 0.0)).length() < 1e-6);
    }
}
