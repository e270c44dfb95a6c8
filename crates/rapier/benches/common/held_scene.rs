//! A world of pushing vehicles for the cost measurements of `benches/held.rs`:
//! a 1.2 t chassis on four wheels held by revolute joints, a launcher of 4
//! projectiles at its front, a constant drive force pushing it into a fixed
//! wall. (The regression scene itself, with its numbers, is the built-in
//! scenario `wall_push`: `crates/scenario/tests/wall_push.rs`.)

use rapier3d::prelude::*;
use smithereens_rapier::{HeldPartDesc, HeldParts, LauncherDesc, PartMaterial, PartShape};
use std::sync::Arc;

/// How the launcher holds its projectiles.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Design {
    /// Holding colliders on the chassis, disabled part bodies (issue 14).
    HoldingColliders,
    /// Every projectile a dynamic body on a fixed joint (the old design).
    FixedJoints,
}

/// Chassis mass, kg.
pub const CHASSIS_MASS: f32 = 1200.0;
/// Drive force into the wall, N (about 0.85 g on the vehicle).
pub const DRIVE: f32 = 11_000.0;
/// The wall's near face, m (x).
pub const WALL_X: f32 = 4.0;

/// One vehicle's handles.
#[allow(dead_code)]
pub struct Vehicle {
    /// The chassis body.
    pub chassis: RigidBodyHandle,
    /// Launcher of the held design.
    pub launcher: Option<smithereens_rapier::LauncherId>,
    /// Projectile bodies of the joint design.
    pub projectiles: Vec<RigidBodyHandle>,
}

/// The launcher: 4 capsules of 6 kg in the front, reaching 0.25 m past the
/// chassis nose (they touch the wall first).
pub fn launcher() -> Arc<LauncherDesc> {
    let part = |z: f32| HeldPartDesc {
        shape: PartShape::Capsule {
            half_height: 0.35,
            radius: 0.08,
        },
        material: PartMaterial::default(),
        mass: 6.0,
        pose: Pose::from_parts(
            Vector::new(1.9, 0.55, z),
            Rotation::from_axis_angle(Vector::Z, std::f32::consts::FRAC_PI_2),
        ),
        health: smithereens_rapier::DEFAULT_PART_HEALTH,
    };
    Arc::new(LauncherDesc {
        weapon: 0,
        parts: vec![part(-0.3), part(-0.1), part(0.1), part(0.3)],
        independent_durability: false,
        weapon_health: smithereens_rapier::DEFAULT_WEAPON_HEALTH,
    })
}

/// A world with a ground, a wall and `n` vehicles side by side (4 m apart
/// along z), each 0.5 m from the wall.
pub fn scene(design: Design, n: u32) -> (PhysicsWorld, HeldParts, Vec<Vehicle>) {
    let mut w = PhysicsWorld::new();
    w.insert(
        RigidBodyBuilder::fixed(),
        ColliderBuilder::cuboid(200.0, 0.1, 200.0).translation(Vector::new(0.0, -0.1, 0.0)),
    );
    w.insert(
        RigidBodyBuilder::fixed(),
        ColliderBuilder::cuboid(0.25, 1.5, 200.0).translation(Vector::new(WALL_X + 0.25, 1.5, 0.0)),
    );
    let mut held = HeldParts::new();
    let mut vehicles = Vec::new();
    for k in 0..n {
        let z = 4.0 * k as f32;
        let origin = Vector::new(WALL_X - 2.25 - 0.5, 0.75, z);
        let (chassis, _) = w.insert(
            RigidBodyBuilder::dynamic().translation(origin),
            ColliderBuilder::cuboid(1.8, 0.3, 0.9).mass(CHASSIS_MASS),
        );
        for (dx, dz) in [(1.2, 1.0), (1.2, -1.0), (-1.2, 1.0), (-1.2, -1.0)] {
            let anchor = Vector::new(dx, -0.35, dz * 1.1);
            let (wheel, _) = w.insert(
                RigidBodyBuilder::dynamic().translation(origin + anchor),
                ColliderBuilder::cylinder(0.1, 0.4)
                    .rotation(Vector::X * std::f32::consts::FRAC_PI_2)
                    .mass(25.0)
                    .friction(1.0),
            );
            let joint = RevoluteJointBuilder::new(Vector::Z).local_anchor1(anchor);
            w.insert_impulse_joint(chassis, wheel, joint);
        }
        let desc = launcher();
        let (launcher, projectiles) = match design {
            Design::HoldingColliders => (
                Some(
                    held.add_launcher(&mut w, chassis, desc)
                        .expect("valid launcher"),
                ),
                Vec::new(),
            ),
            Design::FixedJoints => {
                let mut bodies = Vec::new();
                for part in &desc.parts {
                    let (b, _) = w.insert(
                        RigidBodyBuilder::dynamic()
                            .pose(Pose::from_translation(origin) * part.pose),
                        part.shape.collider().mass(part.mass),
                    );
                    w.insert_impulse_joint(
                        chassis,
                        b,
                        FixedJointBuilder::new().local_frame1(part.pose),
                    );
                    bodies.push(b);
                }
                (None, bodies)
            }
        };
        w.bodies[chassis].add_force(Vector::new(DRIVE, 0.0, 0.0), true);
        vehicles.push(Vehicle {
            chassis,
            launcher,
            projectiles,
        });
    }
    (w, held, vehicles)
}
