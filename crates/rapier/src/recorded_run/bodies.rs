//! Plain rigid bodies of a scripted run: boxes and balls that are not
//! destructible (a kinematic pusher, a fixed block, a dynamic ball). To the
//! [`crate::DestructionSet`] they are game bodies like any other.

use crate::convert::to_rapier;
use crate::error::BackendError;
use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_core::Pose;
pub use smithereens_core::record::{RunBodyKind, RunShape};

/// How much a plain body weighs.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum PlainMass {
    /// Uniform density, kg/m³ (> 0).
    Density(f32),
    /// Total mass, kg (> 0).
    Mass(f32),
}

/// A plain body to place at the start of a run.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PlainBodyDesc {
    /// Collision shape, centred on the body's origin.
    pub shape: RunShape,
    /// Dynamic, kinematic (velocity-based: it keeps `velocity` for the whole
    /// run, pushes dynamic bodies and is never pushed) or fixed.
    pub kind: RunBodyKind,
    /// Body → world pose at the start (m, unit quaternion).
    pub pose: Pose,
    /// Initial linear velocity, m/s (must be zero for a fixed body).
    pub velocity: Vec3,
    /// Mass or density (ignored by the solver for kinematic and fixed bodies).
    pub mass: PlainMass,
}

impl PlainBodyDesc {
    /// Checks the values.
    ///
    /// # Errors
    /// [`BackendError::BadSetting`] for a shape without volume, a non-finite
    /// pose or velocity, a non-unit rotation, a non-positive mass or density,
    /// or a moving fixed body.
    pub fn validate(&self) -> Result<(), BackendError> {
        let bad = |name, value, reason| {
            Err(BackendError::BadSetting {
                name,
                value,
                reason,
            })
        };
        if !self.shape.has_volume() {
            return bad("body shape", f32::NAN, "every dimension finite and > 0");
        }
        let (name, m) = match self.mass {
            PlainMass::Density(d) => ("body density", d),
            PlainMass::Mass(m) => ("body mass", m),
        };
        if !(m.is_finite() && m > 0.0) {
            return bad(name, m, "finite and > 0");
        }
        if !self.pose.translation.is_finite() || !self.pose.rotation.is_finite() {
            return bad("body pose", f32::NAN, "finite");
        }
        if (self.pose.rotation.length() - 1.0).abs() > 1e-4 {
            return bad(
                "body rotation",
                self.pose.rotation.length(),
                "a unit quaternion",
            );
        }
        if !self.velocity.is_finite() {
            return bad("body velocity", f32::NAN, "finite");
        }
        if self.kind == RunBodyKind::Fixed && self.velocity != Vec3::ZERO {
            return bad(
                "body velocity",
                self.velocity.length(),
                "zero for a fixed body",
            );
        }
        Ok(())
    }
}

/// Inserts a plain body and its one collider (given friction and restitution).
///
/// # Errors
/// As [`PlainBodyDesc::validate`]; nothing is added on error.
pub fn insert_plain_body(
    physics: &mut PhysicsWorld,
    desc: &PlainBodyDesc,
    friction: f32,
    restitution: f32,
) -> Result<RigidBodyHandle, BackendError> {
    desc.validate()?;
    let builder = match desc.kind {
        RunBodyKind::Dynamic => RigidBodyBuilder::dynamic().linvel(desc.velocity),
        RunBodyKind::Kinematic => {
            RigidBodyBuilder::kinematic_velocity_based().linvel(desc.velocity)
        }
        RunBodyKind::Fixed => RigidBodyBuilder::fixed(),
    };
    let body = physics.insert_body(builder.pose(to_rapier(&desc.pose)));
    let collider = shape_collider(&desc.shape);
    let collider = match desc.mass {
        PlainMass::Density(d) => collider.density(d),
        PlainMass::Mass(m) => collider.mass(m),
    };
    physics.insert_collider(
        collider.friction(friction).restitution(restitution),
        Some(body),
    );
    Ok(body)
}

/// A collider builder of a recorded shape (centred on the body's origin,
/// cylinders and capsules along its y axis); no mass or material set.
pub fn shape_collider(shape: &RunShape) -> ColliderBuilder {
    match *shape {
        RunShape::Box { half_extents: h } => ColliderBuilder::cuboid(h.x, h.y, h.z),
        RunShape::Ball { radius } => ColliderBuilder::ball(radius),
        RunShape::Cylinder {
            half_height,
            radius,
        } => ColliderBuilder::cylinder(half_height, radius),
        RunShape::Capsule {
            half_height,
            radius,
        } => ColliderBuilder::capsule_y(half_height, radius),
    }
}
