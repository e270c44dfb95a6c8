//! Validation scenarios of the rigid-body-solver seed (验证场景), run on the
//! world configuration every `DestructionWorld` uses, with numbers.

use glam::{Quat, Vec3};
use rapier3d::prelude::*;
use smithereens_core::{Asset, AssetDesc, Pose};
use smithereens_rapier::{
    DestructionWorld, FixedStepper, ProjectileDesc, StepperSettings, WorldSettings,
    new_physics_world,
};
use std::sync::Arc;

fn world() -> PhysicsWorld {
    new_physics_world(&WorldSettings::default())
}

fn ground(w: &mut PhysicsWorld) {
    let g = w.insert_body(RigidBodyBuilder::fixed().translation(Vec3::new(0.0, -0.5, 0.0)));
    w.insert_collider(
        ColliderBuilder::cuboid(50.0, 0.5, 50.0).friction(0.7),
        Some(g),
    );
}

fn boxed(w: &mut PhysicsWorld, at: Vec3, half: f32, density: f32) -> RigidBodyHandle {
    let b = w.insert_body(RigidBodyBuilder::dynamic().translation(at));
    w.insert_collider(
        ColliderBuilder::cuboid(half, half, half)
            .density(density)
            .friction(0.7),
        Some(b),
    );
    b
}

#[test]
fn a_box_on_an_incline_below_the_friction_angle_drifts_less_than_a_millimetre_in_two_seconds() {
    let mut w = world();
    // 20° slope; friction 0.7 on both surfaces holds up to atan(0.7) ≈ 35°.
    let angle = 20f32.to_radians();
    let rot = Quat::from_rotation_z(angle);
    let slope = w.insert_body(RigidBodyBuilder::fixed().rotation(rot.to_scaled_axis()));
    w.insert_collider(
        ColliderBuilder::cuboid(5.0, 0.1, 5.0).friction(0.7),
        Some(slope),
    );
    let up = rot * Vec3::Y;
    let start = up * (0.1 + 0.25);
    let b = w.insert_body(
        RigidBodyBuilder::dynamic()
            .translation(start)
            .rotation(rot.to_scaled_axis()),
    );
    w.insert_collider(
        ColliderBuilder::cuboid(0.25, 0.25, 0.25)
            .density(1000.0)
            .friction(0.7),
        Some(b),
    );
    for _ in 0..120 {
        w.step();
    }
    let drift = (w.bodies[b].translation() - start).length();
    assert!(drift < 1e-3, "drift {drift} m");
}

#[test]
fn a_stack_of_ten_boxes_stands_for_five_seconds() {
    let mut w = world();
    ground(&mut w);
    let boxes: Vec<_> = (0..10)
        .map(|k| {
            boxed(
                &mut w,
                Vec3::new(0.0, 0.25 + 0.5 * k as f32, 0.0),
                0.25,
                500.0,
            )
        })
        .collect();
    for _ in 0..300 {
        w.step();
    }
    for (k, &b) in boxes.iter().enumerate() {
        let p = w.bodies[b].translation();
        let expected = 0.25 + 0.5 * k as f32;
        assert!(
            (p.y - expected).abs() < 0.01,
            "box {k} at y {} (expected {expected})",
            p.y
        );
        assert!(
            p.x.abs() < 0.01 && p.z.abs() < 0.01,
            "box {k} slid to {p:?}"
        );
    }
}

#[test]
fn a_hundred_to_one_mass_ratio_stack_stands() {
    let mut w = world();
    ground(&mut w);
    let light = boxed(&mut w, Vec3::new(0.0, 0.25, 0.0), 0.25, 100.0);
    let heavy = boxed(&mut w, Vec3::new(0.0, 0.75, 0.0), 0.25, 10_000.0);
    assert!((w.bodies[heavy].mass() / w.bodies[light].mass() - 100.0).abs() < 1e-3);
    let mut at_one_second = 0.0;
    for k in 0..180 {
        w.step();
        if k == 59 {
            at_one_second = w.bodies[heavy].translation().y;
        }
    }
    let y = w.bodies[heavy].translation().y;
    // Contact compression under the 100:1 load stays below 1 cm, and the stack does not creep.
    assert!(
        (y - 0.75).abs() < 0.01,
        "heavy box at {:?}",
        w.bodies[heavy].translation()
    );
    assert!(
        (y - at_one_second).abs() < 5e-4,
        "the stack crept from {at_one_second} to {y}"
    );
    assert!((w.bodies[light].translation().y - 0.25).abs() < 0.01);
}

#[test]
fn a_fast_small_projectile_does_not_tunnel_through_a_thin_wall() {
    // A 2 × 2 m wall, 2 cm thick, supported (fixed), strong enough not to break.
    let mut chunk =
        smithereens_core::fixtures::cube_chunk(Vec3::new(0.0, 1.0, 0.0), 1.0, 1000.0, true);
    chunk.hulls[0].points = (0..8)
        .map(|k| {
            Vec3::new(
                if k & 1 == 0 { -1.0 } else { 1.0 },
                1.0 + if k & 2 == 0 { -1.0 } else { 1.0 },
                if k & 4 == 0 { -0.01 } else { 0.01 },
            )
        })
        .collect();
    // Its declared volume must match its hull (2 × 2 × 0.02 m).
    chunk.volume = 0.08;
    chunk.mass = 80.0;
    let asset = Arc::new(
        Asset::new(&AssetDesc {
            chunks: vec![chunk],
            bonds: vec![],
            support_depth: None,
        })
        .unwrap(),
    );
    let mut world = DestructionWorld::new(
        asset,
        Pose::IDENTITY,
        WorldSettings {
            gravity: Vec3::ZERO,
            ..WorldSettings::default()
        },
    )
    .unwrap();
    // 1 cm ball at 300 m/s moves 5 m per step: without CCD it would skip the wall.
    world
        .spawn_projectile(ProjectileDesc {
            position: Vec3::new(0.0, 1.0, -3.0),
            velocity: Vec3::new(0.0, 0.0, 300.0),
            radius: 0.01,
            mass: 0.01,
        })
        .unwrap();
    let mut deepest = f32::NEG_INFINITY;
    for _ in 0..30 {
        world.step().unwrap();
        deepest = deepest.max(world.projectile_poses()[0].translation.z);
    }
    // The centre never passes the wall's back face (z = +0.01) and the ball ends in front of it.
    assert!(
        deepest < 0.01,
        "the projectile went through: z reached {deepest}"
    );
    assert!(world.projectile_poses()[0].translation.z < 0.0);
}

#[test]
fn a_hanging_chain_of_ten_links_keeps_its_joints_within_a_centimetre() {
    let mut w = world();
    let anchor = w.insert_body(RigidBodyBuilder::fixed().translation(Vec3::new(0.0, 10.0, 0.0)));
    let mut prev = anchor;
    let mut links = Vec::new();
    for k in 0..10 {
        // Links 0.4 m long laid out horizontally so the chain swings down.
        let b = w.insert_body(RigidBodyBuilder::dynamic().translation(Vec3::new(
            0.2 + 0.4 * k as f32,
            10.0,
            0.0,
        )));
        w.insert_collider(
            ColliderBuilder::capsule_x(0.15, 0.05).density(1000.0),
            Some(b),
        );
        let joint = SphericalJointBuilder::new()
            .local_anchor1(if k == 0 {
                Vec3::ZERO
            } else {
                Vec3::new(0.2, 0.0, 0.0)
            })
            .local_anchor2(Vec3::new(-0.2, 0.0, 0.0))
            .contacts_enabled(false);
        w.insert_impulse_joint(prev, b, joint);
        links.push(b);
        prev = b;
    }
    let mut worst = 0.0f32;
    for _ in 0..180 {
        w.step();
        for k in 0..links.len() {
            let b = &w.bodies[links[k]];
            let end_a = b.position().transform_point(Vec3::new(-0.2, 0.0, 0.0));
            let prev_end = if k == 0 {
                Vec3::new(0.0, 10.0, 0.0)
            } else {
                w.bodies[links[k - 1]]
                    .position()
                    .transform_point(Vec3::new(0.2, 0.0, 0.0))
            };
            worst = worst.max(end_a.distance(prev_end));
        }
    }
    assert!(worst < 0.01, "worst joint separation {worst} m");
    // It did swing: the last link hangs well below the anchor.
    assert!(w.bodies[links[9]].translation().y < 8.0);
}

#[test]
fn pausing_does_not_change_the_simulation() {
    let desc = smithereens_core::fixtures::grid_desc(4, 3, 1, 0.5, 2000.0, 600.0);
    let asset = Arc::new(Asset::new(&desc).unwrap());
    let shot = ProjectileDesc {
        position: Vec3::new(1.0, 0.75, -2.0),
        velocity: Vec3::new(0.0, 0.0, 25.0),
        radius: 0.2,
        mass: 100.0,
    };
    let run = |frames: &[f64]| {
        let mut world =
            DestructionWorld::new(asset.clone(), Pose::IDENTITY, WorldSettings::default()).unwrap();
        world.spawn_projectile(shot).unwrap();
        let mut stepper = FixedStepper::new(StepperSettings::default()).unwrap();
        let mut hashes = Vec::new();
        for &f in frames {
            for _ in 0..stepper.advance(f).steps {
                world.step().unwrap();
                hashes.push(world.state_hash());
            }
        }
        hashes
    };
    let dt = 1.0 / 60.0;
    let steady: Vec<f64> = vec![dt; 120];
    // Same 120 steps, with a pause (zero-length frames) and uneven frames in the middle.
    let mut paused: Vec<f64> = vec![dt; 50];
    paused.extend(std::iter::repeat_n(0.0, 40));
    paused.extend([dt * 0.5, dt * 1.5, dt * 2.0]);
    paused.extend(vec![dt; 66]);
    let a = run(&steady);
    let b = run(&paused);
    assert_eq!(a.len(), 120);
    assert_eq!(a, b[..120.min(b.len())].to_vec());
}
