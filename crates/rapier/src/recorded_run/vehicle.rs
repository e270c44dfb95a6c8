//! Vehicles of a scripted run: a chassis on wheels held by revolute joints,
//! driven by a constant force, carrying launchers of held parts (issue 14
//! items 6 and 7; the held-projectile seed's 001077 wall-push scene).
//!
//! A vehicle is built in the game's world the way the seed describes, with
//! one of two designs for its preloaded projectiles ([`HoldDesign`]):
//! - [`HoldDesign::Colliders`] (the decision): holding colliders on the
//!   chassis plus disabled part bodies ([`HeldParts::add_launcher`]), no joint;
//! - [`HoldDesign::FixedJoints`] (the design the seed warns against, kept for
//!   comparison): every projectile a dynamic body on a fixed joint to the
//!   chassis; a launch removes its joint.
//!
//! The wheels are dynamic cylinders on revolute impulse joints (axle along
//! the chassis' z axis), so the world has joints whose anchor error the
//! bounded stepper measures ([`crate::max_joint_anchor_error`]). Their error
//! under a load is Gauss–Seidel convergence: the chassis' weight reaches the
//! ground through the light wheel, and each solver sweep passes on only part
//! of it, so the joint stretches along the load by an amount that grows with
//! the chassis/wheel mass ratio and shrinks with the number of sweeps
//! (measured in `examples/wheel_joint_drift.rs` and the README).

use crate::held::{HeldError, HeldParts, LauncherDesc, LauncherId, PartShape};
use glam::{Quat, Vec3};
use rapier3d::prelude::*;
use smithereens_core::Pose;
use smithereens_core::record::RunShape;
use std::sync::Arc;

/// How a vehicle holds its launchers' projectiles.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum HoldDesign {
    /// Holding colliders on the chassis, part bodies created disabled (the
    /// seed's decision; [`HeldParts`]).
    #[default]
    Colliders,
    /// Every projectile a dynamic body on a fixed joint to the chassis (the
    /// design the seed replaced: its joints are solved iteratively and,
    /// pressed against a wall, keep the bounded stepper subdividing).
    FixedJoints,
}

/// One wheel of a [`VehicleDesc`]: a cylinder whose axle is the chassis'
/// z axis, on a revolute joint at `anchor`.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WheelDesc {
    /// Wheel centre (the joint anchor) in the chassis frame, m.
    pub anchor: Vec3,
    /// Radius, m (> 0).
    pub radius: f32,
    /// Half the tyre width, m (> 0).
    pub half_width: f32,
    /// Mass, kg (> 0): the unsprung mass of the corner.
    pub mass: f32,
    /// Tyre friction coefficient (≥ 0).
    pub friction: f32,
}

/// A vehicle: a box chassis on wheels, driven by a constant force, with
/// launchers of held parts.
#[derive(Clone, Debug, PartialEq)]
pub struct VehicleDesc {
    /// Chassis pose at the start, world (m, unit quaternion): the chassis
    /// box is centred on it.
    pub pose: Pose,
    /// Initial linear velocity of the chassis and wheels, m/s. The wheels
    /// start rolling: each spins about its axle at the rate at which its
    /// lowest point (towards world −y, the ground a vehicle is placed on)
    /// is still, `ω = ((ŷ × v) · a) / r` about the axle `a`. A vehicle placed
    /// at speed with still wheels skids until friction spins them up (the
    /// wall-push scraper's 8 m/s start did, and hopped).
    pub velocity: Vec3,
    /// Chassis box half extents, m (each > 0).
    pub half_extents: Vec3,
    /// Chassis mass without the held parts, kg (> 0).
    pub mass: f32,
    /// Wheels, at most [`MAX_WHEELS`].
    pub wheels: Vec<WheelDesc>,
    /// Drive force, N, in the chassis frame, applied at the chassis' centre
    /// of mass on every step (the seed's "馬達持續推", a motor that keeps
    /// pushing). Finite.
    pub drive: Vec3,
    /// Brake torque of each wheel, N·m (≥ 0; 0: free-rolling wheels): a
    /// velocity motor on the wheel's revolute joint holding its spin at 0
    /// with at most this torque (a parked vehicle).
    pub brake: f32,
    /// Launchers on the chassis; their part poses are in the chassis frame.
    pub launchers: Vec<Arc<LauncherDesc>>,
    /// How the launchers hold their parts.
    pub hold: HoldDesign,
}

/// Damping factor of the brake motor (Rapier's velocity-motor factor): large,
/// so the brake holds the wheel still up to its torque limit.
const BRAKE_FACTOR: f32 = 1.0e4;

/// Most wheels a vehicle may have.
pub const MAX_WHEELS: usize = 64;

/// Why a vehicle is refused. Nothing was added to the world.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum VehicleError {
    /// A chassis value is out of range.
    #[error("chassis {field}: {problem}")]
    Chassis {
        /// The field (`mass`, `half_extents`, `pose`, `velocity`, `drive`).
        field: &'static str,
        /// What is wrong.
        problem: &'static str,
    },
    /// A wheel value is out of range.
    #[error("wheel {wheel} {field}: {problem}")]
    Wheel {
        /// Wheel index.
        wheel: u32,
        /// The field.
        field: &'static str,
        /// What is wrong.
        problem: &'static str,
    },
    /// More than [`MAX_WHEELS`] wheels.
    #[error("a vehicle has at most {MAX_WHEELS} wheels")]
    TooManyWheels,
    /// A launcher's description is refused.
    #[error("launcher {launcher}")]
    Launcher {
        /// Launcher index on the vehicle.
        launcher: u32,
        /// Why.
        source: HeldError,
    },
}

impl VehicleDesc {
    /// Checks every value (launchers with [`LauncherDesc::validate`]).
    ///
    /// # Errors
    /// The first bad value as a [`VehicleError`].
    pub fn validate(&self) -> Result<(), VehicleError> {
        let chassis = |field, problem| Err(VehicleError::Chassis { field, problem });
        let positive = |x: f32| x.is_finite() && x > 0.0;
        if !positive(self.mass) {
            return chassis("mass", "must be positive and finite");
        }
        if !(self.half_extents.is_finite() && self.half_extents.cmpgt(Vec3::ZERO).all()) {
            return chassis("half_extents", "must be positive and finite");
        }
        let q = self.pose.rotation;
        if !self.pose.translation.is_finite() || !q.is_finite() || (q.length() - 1.0).abs() > 1e-4 {
            return chassis("pose", "must be finite with a unit rotation");
        }
        if !self.velocity.is_finite() {
            return chassis("velocity", "must be finite");
        }
        if !self.drive.is_finite() {
            return chassis("drive", "must be finite");
        }
        if !(self.brake.is_finite() && self.brake >= 0.0) {
            return chassis("brake", "must be finite and ≥ 0");
        }
        if self.wheels.len() > MAX_WHEELS {
            return Err(VehicleError::TooManyWheels);
        }
        for (k, w) in self.wheels.iter().enumerate() {
            let wheel = |field, problem| {
                Err(VehicleError::Wheel {
                    wheel: k as u32,
                    field,
                    problem,
                })
            };
            if !w.anchor.is_finite() || w.anchor.length() > crate::held::MAX_PART_OFFSET {
                return wheel("anchor", "must be finite and within 50 m of the chassis");
            }
            if !positive(w.radius) {
                return wheel("radius", "must be positive and finite");
            }
            if !positive(w.half_width) {
                return wheel("half_width", "must be positive and finite");
            }
            if !positive(w.mass) {
                return wheel("mass", "must be positive and finite");
            }
            if !(w.friction.is_finite() && w.friction >= 0.0) {
                return wheel("friction", "must be finite and ≥ 0");
            }
        }
        for (k, l) in self.launchers.iter().enumerate() {
            l.validate().map_err(|source| VehicleError::Launcher {
                launcher: k as u32,
                source,
            })?;
            // Ownership is (vehicle, weapon part, projectile): refused here,
            // before `insert_vehicle` adds anything (`add_launcher` would
            // refuse it only after the chassis and wheels are in the world).
            if let Some(j) = (self.launchers[..k].iter()).position(|o| o.weapon == l.weapon) {
                return Err(VehicleError::Launcher {
                    launcher: k as u32,
                    source: HeldError::WeaponTaken {
                        weapon: l.weapon,
                        launcher: crate::LauncherId(j as u32),
                    },
                });
            }
        }
        Ok(())
    }
}

/// A wheel body's rotation relative to the chassis: its cylinder's y axis
/// along the chassis' z axis (the axle).
pub(crate) fn wheel_rotation() -> Quat {
    Quat::from_rotation_x(std::f32::consts::FRAC_PI_2)
}

/// The recorded shape of a held part.
pub(crate) fn part_shape(shape: &PartShape) -> RunShape {
    match *shape {
        PartShape::Ball { radius } => RunShape::Ball { radius },
        PartShape::Cuboid { half_extents } => RunShape::Box { half_extents },
        PartShape::Capsule {
            half_height,
            radius,
        } => RunShape::Capsule {
            half_height,
            radius,
        },
        PartShape::Cylinder {
            half_height,
            radius,
        } => RunShape::Cylinder {
            half_height,
            radius,
        },
    }
}

/// One projectile of the fixed-joint design.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct JointHeldPart {
    /// The projectile's body.
    pub body: RigidBodyHandle,
    /// Its fixed joint to the chassis; `None` once launched.
    pub joint: Option<ImpulseJointHandle>,
}

/// What [`insert_vehicle`] put in the world.
#[derive(Clone, Debug, PartialEq)]
pub struct VehicleBodies {
    /// The chassis body.
    pub chassis: RigidBodyHandle,
    /// Wheel bodies, in [`VehicleDesc::wheels`] order.
    pub wheels: Vec<RigidBodyHandle>,
    /// The wheels' revolute joints, same order.
    pub wheel_joints: Vec<ImpulseJointHandle>,
    /// [`HoldDesign::Colliders`]: the launchers' ids in [`HeldParts`], in
    /// [`VehicleDesc::launchers`] order (empty in the joint design).
    pub launchers: Vec<LauncherId>,
    /// [`HoldDesign::FixedJoints`]: per launcher, its projectiles' bodies and
    /// joints in projectile order (empty in the collider design).
    pub jointed: Vec<Vec<JointHeldPart>>,
    /// The drive force, N, chassis frame.
    pub drive: Vec3,
}

/// Puts a vehicle into the world: the chassis (a box of `desc.mass` kg with
/// friction `friction`), each wheel on its revolute joint, and the
/// launchers' parts as `desc.hold` says (held parts through `held`).
///
/// # Errors
/// [`VehicleDesc::validate`]'s; nothing is added on error.
pub fn insert_vehicle(
    physics: &mut PhysicsWorld,
    held: &mut HeldParts,
    desc: &VehicleDesc,
    friction: f32,
) -> Result<VehicleBodies, VehicleError> {
    desc.validate()?;
    let pose = crate::convert::to_rapier(&desc.pose);
    let h = desc.half_extents;
    let (chassis, _) = physics.insert(
        RigidBodyBuilder::dynamic().pose(pose).linvel(desc.velocity),
        ColliderBuilder::cuboid(h.x, h.y, h.z)
            .mass(desc.mass)
            .friction(friction),
    );
    let mut wheels = Vec::with_capacity(desc.wheels.len());
    let mut wheel_joints = Vec::with_capacity(desc.wheels.len());
    for w in &desc.wheels {
        let local = rapier3d::math::Pose::from_parts(w.anchor, wheel_rotation());
        // Rolling without slip over a ground below: the lowest point still.
        let axle = pose.rotation * Vec3::Z;
        let spin = Vec3::Y.cross(desc.velocity).dot(axle) / w.radius;
        let (wheel, _) = physics.insert(
            RigidBodyBuilder::dynamic()
                .pose(pose * local)
                .linvel(desc.velocity)
                .angvel(axle * spin),
            ColliderBuilder::cylinder(w.half_width, w.radius)
                .mass(w.mass)
                .friction(w.friction),
        );
        // Axle: the chassis' z axis, which is the wheel body's y axis.
        let mut joint: GenericJoint = RevoluteJointBuilder::new(Vec3::Z)
            .local_anchor1(w.anchor)
            .build()
            .into();
        joint.set_local_axis2(Vec3::Y);
        // A wheel turns in its wheel well: it never touches its own chassis
        // (a chassis wider than its track covers its wheels, as a car body does).
        joint.set_contacts_enabled(false);
        if desc.brake > 0.0 {
            // The revolute joint's free axis is its frames' x axis (AngX).
            joint.set_motor_velocity(JointAxis::AngX, 0.0, BRAKE_FACTOR);
            joint.set_motor_max_force(JointAxis::AngX, desc.brake);
        }
        wheel_joints.push(physics.insert_impulse_joint(chassis, wheel, joint));
        wheels.push(wheel);
    }
    let mut launchers = Vec::new();
    let mut jointed = Vec::new();
    for l in &desc.launchers {
        match desc.hold {
            HoldDesign::Colliders => {
                // Validated above; the parent exists and is dynamic.
                match held.add_launcher(physics, chassis, l.clone()) {
                    Ok(id) => launchers.push(id),
                    Err(source) => {
                        return Err(VehicleError::Launcher {
                            launcher: launchers.len() as u32,
                            source,
                        });
                    }
                }
            }
            HoldDesign::FixedJoints => {
                let parts = l
                    .parts
                    .iter()
                    .map(|p| {
                        let (body, _) = physics.insert(
                            RigidBodyBuilder::dynamic()
                                .pose(pose * p.pose)
                                .linvel(desc.velocity)
                                .ccd_enabled(true),
                            p.shape
                                .collider()
                                .mass(p.mass)
                                .friction(p.material.friction)
                                .restitution(p.material.restitution),
                        );
                        let joint = physics.insert_impulse_joint(
                            chassis,
                            body,
                            FixedJointBuilder::new().local_frame1(p.pose),
                        );
                        JointHeldPart {
                            body,
                            joint: Some(joint),
                        }
                    })
                    .collect();
                jointed.push(parts);
            }
        }
    }
    let bodies = VehicleBodies {
        chassis,
        wheels,
        wheel_joints,
        launchers,
        jointed,
        drive: desc.drive,
    };
    bodies.apply_drive(physics);
    Ok(bodies)
}

impl VehicleBodies {
    /// Sets the chassis' force to the drive, turned with the chassis (call
    /// it before every frame; the bounded stepper's retries keep it).
    pub fn apply_drive(&self, physics: &mut PhysicsWorld) {
        if let Some(b) = physics.bodies.get_mut(self.chassis) {
            let f = *b.rotation() * self.drive;
            b.reset_forces(false);
            if self.drive != Vec3::ZERO {
                b.add_force(f, true);
            }
        }
    }

    /// Launches projectile `projectile` of the joint design's launcher
    /// `launcher`: its fixed joint is removed and `impulse` (N·s, world)
    /// goes to the projectile at its centre of mass, `−impulse` to the
    /// chassis at the same point.
    ///
    /// # Errors
    /// [`HeldError::ProjectileOutOfRange`] or [`HeldError::AlreadyLaunched`];
    /// [`HeldError::UnknownLauncher`] for a launcher out of range.
    pub fn launch_jointed(
        &mut self,
        physics: &mut PhysicsWorld,
        launcher: u32,
        projectile: u32,
        impulse: Vec3,
    ) -> Result<RigidBodyHandle, HeldError> {
        let parts = self
            .jointed
            .get_mut(launcher as usize)
            .ok_or(HeldError::UnknownLauncher(LauncherId(launcher)))?;
        let count = parts.len() as u32;
        let part = parts
            .get_mut(projectile as usize)
            .ok_or(HeldError::ProjectileOutOfRange { projectile, count })?;
        let joint = part
            .joint
            .take()
            .ok_or(HeldError::AlreadyLaunched(projectile))?;
        physics.remove_impulse_joint(joint);
        let body = part.body;
        let point = physics
            .bodies
            .get(body)
            .map_or(Vec3::ZERO, |b| b.center_of_mass());
        if let Some(b) = physics.bodies.get_mut(body) {
            b.apply_impulse(impulse, true);
        }
        if let Some(c) = physics.bodies.get_mut(self.chassis) {
            c.apply_impulse_at_point(-impulse, point, true);
        }
        Ok(body)
    }
}

/// The recorded shape of a wheel.
pub(crate) fn wheel_shape(w: &WheelDesc) -> RunShape {
    RunShape::Cylinder {
        half_height: w.half_width,
        radius: w.radius,
    }
}
