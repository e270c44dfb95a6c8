//! The one place where core types meet Rapier types. Both use glam 0.33, so
//! vectors and quaternions pass through unchanged; only pose structs differ.

use rapier3d::math::Pose as RapierPose;
use smithereens_core::{ClusterMotion, Pose, Velocity};

/// Core pose → Rapier pose.
pub fn to_rapier(p: &Pose) -> RapierPose {
    RapierPose::from_parts(p.translation, p.rotation)
}

/// Rapier pose → core pose.
pub fn from_rapier(p: &RapierPose) -> Pose {
    Pose {
        rotation: p.rotation,
        translation: p.translation,
    }
}

/// Motion of a Rapier body whose origin is its centre of mass.
pub fn motion_of(body: &rapier3d::prelude::RigidBody) -> ClusterMotion {
    ClusterMotion {
        pose: from_rapier(body.position()),
        velocity: Velocity {
            linear: body.linvel(),
            angular: body.angvel(),
        },
    }
}
