//! Velocity inheritance and once-only impulses at a split (DESIGN §3.6,
//! destruction-system seed "速度场与冲量").

use glam::{Mat3, Quat, Vec3};

/// Linear and angular velocity of a rigid body, world space.
#[derive(Copy, Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Velocity {
    /// Linear velocity of the centre of mass, m/s.
    pub linear: Vec3,
    /// Angular velocity, rad/s.
    pub angular: Vec3,
}

/// Velocity of a new cluster cut from a body moving with `parent` whose centre
/// of mass was `parent_center`: the rigid velocity field evaluated at the new
/// centre, `v = v₀ + ω × (c − c₀)`, with ω inherited unchanged.
///
/// Example: c₀ = 0, v₀ = (0,1,0), ω = (0,0,2), c = (1.5,0,0) → v = (0,4,0).
pub fn inherit_velocity(parent: Velocity, parent_center: Vec3, center: Vec3) -> Velocity {
    Velocity {
        linear: parent.linear + parent.angular.cross(center - parent_center),
        angular: parent.angular,
    }
}

/// Velocity change of a body of mass `mass` (kg), local inertia
/// `inertia_local` (kg·m², body axes) and current rotation `rotation`, centre
/// `center` (world), when the impulse `impulse` (N·s) acts at `point` (world):
/// `Δv = J/M`, `Δω = I_world⁻¹ ((p − c) × J)` with `I_world = R I_local Rᵀ`
/// rebuilt from the rotation at commit time.
///
/// Returns zero change when the inertia is singular (callers validate mass
/// properties before bodies exist, so this only guards against misuse).
pub fn impulse_velocity_change(
    mass: f32,
    inertia_local: Mat3,
    rotation: Quat,
    center: Vec3,
    point: Vec3,
    impulse: Vec3,
) -> Velocity {
    let world = crate::mass::rotate_inertia(inertia_local, rotation);
    let det = world.determinant();
    if !(mass > 0.0) || !(det.abs() > f32::MIN_POSITIVE) {
        return Velocity::default();
    }
    Velocity {
        linear: impulse / mass,
        angular: world.inverse() * (point - center).cross(impulse),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_cluster_at_one_point_five_inherits_v_y_four() {
        let v = inherit_velocity(
            Velocity {
                linear: Vec3::new(0.0, 1.0, 0.0),
                angular: Vec3::new(0.0, 0.0, 2.0),
            },
            Vec3::ZERO,
            Vec3::new(1.5, 0.0, 0.0),
        );
        assert_eq!(v.linear, Vec3::new(0.0, 4.0, 0.0));
        assert_eq!(v.angular, Vec3::new(0.0, 0.0, 2.0));
    }

    #[test]
    fn impulse_uses_the_commit_time_rotation_of_the_inertia() {
        // diag(1,2,3) body rotated 90° about Z has world inertia diag(2,1,3).
        let rot = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let dv = impulse_velocity_change(
            2.0,
            Mat3::from_diagonal(Vec3::new(1.0, 2.0, 3.0)),
            rot,
            Vec3::ZERO,
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 0.0, 4.0),
        );
        assert_eq!(dv.linear, Vec3::new(0.0, 0.0, 2.0));
        // torque arm (0,1,0) × (0,0,4) = (4,0,0); world Ixx = 2 → ωx = 2.
        assert!(
            (dv.angular - Vec3::new(2.0, 0.0, 0.0)).length() < 1e-5,
            "{:?}",
            dv.angular
        );
    }
}
