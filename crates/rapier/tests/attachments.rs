//! What the game attaches to a destructible survives a split: joints move to
//! the piece holding their anchor, game colliders follow their chunk and
//! never add mass, body settings carry over (issue 10, item 8).

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_core::asset::{AssetDesc, BondDesc, BondEnd};
use smithereens_core::fixtures::{chain, cube_chunk};
use smithereens_core::instance::InstanceDesc;
use smithereens_core::{Asset, EventId, Pose, RadialDamage};
use smithereens_rapier::{
    DestructionSet, DestructionSettings, InstanceHandle, SetStepReport, WorldSettings,
    new_physics_world,
};
use std::sync::Arc;

fn step(set: &mut DestructionSet, physics: &mut PhysicsWorld) -> SetStepReport {
    set.before_step(physics);
    physics.step_with_events(&(), set.events());
    set.after_step(physics)
}

/// Three 1 kg unit cubes stacked at y = −1, −2, −3, bonded (strength 10 du), no support.
fn column() -> Arc<Asset> {
    let chunks = (0..3)
        .map(|k| cube_chunk(Vec3::new(0.0, -1.0 - k as f32, 0.0), 1.0, 1.0, false))
        .collect();
    let bond = |a: u32, y: f32| BondDesc {
        chunk0: a,
        chunk1: BondEnd::Chunk(a + 1),
        centroid: Vec3::new(0.0, y, 0.0),
        normal: -Vec3::Y,
        area: 1.0,
        strength: 10.0,
    };
    Arc::new(
        Asset::new(&AssetDesc {
            chunks,
            bonds: vec![bond(0, -1.5), bond(1, -2.5)],
            support_depth: None,
        })
        .unwrap(),
    )
}

fn cut(id: u64, at: Vec3) -> RadialDamage {
    RadialDamage {
        id: EventId(id),
        point: at,
        radius: 0.1,
        damage: 100.0,
        impulse: None,
    }
}

fn only_body(set: &DestructionSet, h: InstanceHandle) -> RigidBodyHandle {
    let bodies = set.cluster_bodies(h).unwrap();
    assert_eq!(bodies.len(), 1);
    *bodies.values().next().unwrap()
}

fn body_of_chunk(set: &DestructionSet, h: InstanceHandle, chunk: u32) -> RigidBodyHandle {
    let c = set
        .instance(h)
        .unwrap()
        .cluster_of(smithereens_core::ChunkIndex(chunk))
        .unwrap();
    set.cluster_bodies(h).unwrap()[&c]
}

fn anchor_error(physics: &PhysicsWorld, j: ImpulseJointHandle) -> f32 {
    let joint = &physics.impulse_joints.get(j).unwrap();
    let a = physics.bodies[joint.body1()].position() * joint.data.local_frame1;
    let b = physics.bodies[joint.body2()].position() * joint.data.local_frame2;
    (a.translation - b.translation).length()
}

#[test]
fn a_joint_moves_to_the_piece_holding_its_anchor_chunk() {
    let mut physics = new_physics_world(&WorldSettings::default());
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    let h = set
        .spawn(
            &mut physics,
            column(),
            Pose::IDENTITY,
            InstanceDesc::default(),
        )
        .unwrap();
    let hook =
        physics.insert_body(RigidBodyBuilder::fixed().translation(Vec3::new(0.0, -0.5, 0.0)));
    let rb = only_body(&set, h);
    // The cluster body's origin is the centre of mass (0, −2, 0): the anchor (0, −0.5, 0) is at +1.5 y.
    assert!((physics.bodies[rb].translation() - Vec3::new(0.0, -2.0, 0.0)).length() < 1e-5);
    let joint = physics.insert_impulse_joint(
        hook,
        rb,
        SphericalJointBuilder::new()
            .local_anchor1(Vec3::ZERO)
            .local_anchor2(Vec3::new(0.0, 1.5, 0.0)),
    );
    for _ in 0..10 {
        step(&mut set, &mut physics);
    }
    set.admit(&physics, h, cut(1, Vec3::new(0.0, -2.5, 0.0)))
        .unwrap();
    let r = step(&mut set, &mut physics);
    assert_eq!(r.instance(h).broken.len(), 1);
    assert_eq!(
        physics.impulse_joints.len(),
        1,
        "the joint survived the split"
    );
    assert_eq!(r.moved.joints.len(), 1);
    let (old, new) = r.moved.joints[0];
    assert_eq!(old, joint);
    assert!(physics.impulse_joints.get(old).is_none() || old == new);
    let top = body_of_chunk(&set, h, 0);
    let moved = physics.impulse_joints.get(new).unwrap();
    assert_eq!((moved.body1(), moved.body2()), (hook, top));
    assert!(
        anchor_error(&physics, new) <= 1e-4,
        "{}",
        anchor_error(&physics, new)
    );
    for _ in 0..30 {
        step(&mut set, &mut physics);
    }
    // 0.5 s later the top two chunks still hang from the hook; the bottom one fell.
    assert!(
        anchor_error(&physics, new) < 5e-3,
        "{}",
        anchor_error(&physics, new)
    );
    let y_top = physics.bodies[top].translation().y;
    assert!(
        (y_top + 1.5).abs() < 0.05,
        "top piece centre at y = {y_top}"
    );
    let bottom = body_of_chunk(&set, h, 2);
    assert!(physics.bodies[bottom].translation().y < -3.9);
}

#[test]
fn body_settings_made_by_the_game_carry_over_to_every_piece() {
    let mut physics = new_physics_world(&WorldSettings::default());
    physics.gravity = Vec3::ZERO;
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    let asset = Arc::new(chain(3, &[(0, 1), (1, 2)], &[]).unwrap());
    let h = set
        .spawn(&mut physics, asset, Pose::IDENTITY, InstanceDesc::default())
        .unwrap();
    let rb = only_body(&set, h);
    {
        let b = &mut physics.bodies[rb];
        b.lock_rotations(true, true);
        b.set_linear_damping(0.25);
        b.set_gravity_scale(0.5, true);
        b.set_dominance_group(3);
        b.enable_ccd(true);
        b.user_data = 77;
    }
    set.admit(&physics, h, cut(1, Vec3::new(1.5, 0.0, 0.0)))
        .unwrap();
    let r = step(&mut set, &mut physics);
    assert_eq!(r.instance(h).created.len() + r.instance(h).shrunk.len(), 2);
    for &p in set.cluster_bodies(h).unwrap().values() {
        let b = &physics.bodies[p];
        assert_eq!(b.locked_axes(), LockedAxes::ROTATION_LOCKED);
        assert_eq!(b.linear_damping(), 0.25);
        assert_eq!(b.gravity_scale(), 0.5);
        assert_eq!(b.dominance_group(), 3);
        assert!(b.is_ccd_enabled());
        assert_eq!(b.user_data, 77);
    }
    // An off-centre push does not spin a rotation-locked piece.
    let p = body_of_chunk(&set, h, 0);
    physics.bodies[p].apply_impulse_at_point(
        Vec3::new(0.0, 0.0, 1.0),
        Vec3::new(0.0, 0.5, 0.0),
        true,
    );
    step(&mut set, &mut physics);
    assert_eq!(physics.bodies[p].angvel(), Vec3::ZERO);
    // Chunks 0 and 1: 2 kg, 1 N·s → 0.5 m/s, less one step of damping.
    let vz = physics.bodies[p].linvel().z;
    assert!((vz - 0.5).abs() < 0.01, "{vz}");
}

/// Two 1 kg unit cubes bonded along x (centres x = 0 and 1), no support,
/// in a world without gravity.
fn weightless_pair() -> (PhysicsWorld, DestructionSet, InstanceHandle) {
    let mut physics = new_physics_world(&WorldSettings::default());
    physics.gravity = Vec3::ZERO;
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    let asset = Arc::new(chain(2, &[(0, 1)], &[]).unwrap());
    let h = set
        .spawn(&mut physics, asset, Pose::IDENTITY, InstanceDesc::default())
        .unwrap();
    (physics, set, h)
}

/// Σ m·v over an instance's bodies, kg·m/s (Rapier's masses).
fn momentum(physics: &PhysicsWorld, set: &DestructionSet, h: InstanceHandle) -> Vec3 {
    set.cluster_bodies(h)
        .unwrap()
        .values()
        .map(|&b| physics.bodies[b].mass() * physics.bodies[b].linvel())
        .sum()
}

#[test]
fn a_game_sensor_follows_its_chunk_and_never_adds_mass() {
    let (mut physics, mut set, h) = weightless_pair();
    let rb = only_body(&set, h);
    physics.bodies[rb].set_linvel(Vec3::new(1.0, 0.0, 0.0), true);
    // A sensor ball (r = 0.5, density 1: 0.52 kg) on chunk 1, whose centre is at x = 1.
    let body_x = physics.bodies[rb].translation().x;
    let sensor = physics.insert_collider(
        ColliderBuilder::ball(0.5)
            .sensor(true)
            .density(1.0)
            .translation(Vec3::new(1.0 - body_x, 0.0, 0.0)),
        Some(rb),
    );
    step(&mut set, &mut physics);
    let b = &physics.bodies[rb];
    assert!((b.mass() - 2.0).abs() < 1e-5, "Rapier mass {} kg", b.mass());
    let before = momentum(&physics, &set, h);
    assert!((before.x - 2.0).abs() < 1e-4);
    let x_sensor = physics.colliders[sensor].position().translation;
    set.admit(
        &physics,
        h,
        cut(
            1,
            Vec3::new(0.5 + physics.bodies[rb].translation().x - body_x, 0.0, 0.0),
        ),
    )
    .unwrap();
    let r = step(&mut set, &mut physics);
    assert_eq!(
        r.instance(h).created.len() + r.instance(h).shrunk.len(),
        2,
        "{r:?}"
    );
    let after = momentum(&physics, &set, h);
    assert!((after - before).length() < 1e-4, "{before} → {after}");
    assert_eq!(r.moved.colliders.len(), 1);
    let (old, new) = r.moved.colliders[0];
    assert_eq!(old, sensor);
    let c = &physics.colliders[new];
    assert!(c.is_sensor());
    assert_eq!(c.parent(), Some(body_of_chunk(&set, h, 1)));
    // Same world pose, one step of motion later.
    let moved_by = c.position().translation - x_sensor;
    assert!(
        (moved_by - Vec3::new(1.0 / 60.0, 0.0, 0.0)).length() < 1e-3,
        "{moved_by}"
    );
    for &p in set.cluster_bodies(h).unwrap().values() {
        assert!((physics.bodies[p].mass() - 1.0).abs() < 1e-5);
    }
}

#[test]
fn the_games_extra_mass_follows_its_chunk_through_a_split() {
    use smithereens_rapier::{BackendError, ExtraMass};
    let (mut physics, mut set, h) = weightless_pair();
    // 0.5 kg of cargo on chunk 1 (centred at x = 1).
    let cargo = ExtraMass {
        mass: 0.5,
        center: Vec3::new(1.0, 0.0, 0.0),
    };
    set.set_extra_mass(&mut physics, h, smithereens_core::ChunkIndex(1), cargo)
        .unwrap();
    let rb = only_body(&set, h);
    let b = &physics.bodies[rb];
    assert!((b.mass() - 2.5).abs() < 1e-5, "{} kg", b.mass());
    // Centre of mass (0·1 + 1·1 + 1·0.5) / 2.5 = 0.6 m.
    assert!(
        (b.center_of_mass() - Vec3::new(0.6, 0.0, 0.0)).length() < 1e-5,
        "{}",
        b.center_of_mass()
    );
    physics.bodies[rb].set_linvel(Vec3::new(1.0, 0.0, 0.0), true);
    step(&mut set, &mut physics);
    set.admit(
        &physics,
        h,
        cut(
            1,
            Vec3::new(0.5 + physics.bodies[rb].translation().x - 0.5, 0.0, 0.0),
        ),
    )
    .unwrap();
    let r = step(&mut set, &mut physics);
    assert_eq!(r.instance(h).created.len() + r.instance(h).shrunk.len(), 2);
    let m0 = physics.bodies[body_of_chunk(&set, h, 0)].mass();
    let m1 = physics.bodies[body_of_chunk(&set, h, 1)].mass();
    assert!(
        (m0 - 1.0).abs() < 1e-5 && (m1 - 1.5).abs() < 1e-5,
        "{m0} kg, {m1} kg"
    );
    let p = momentum(&physics, &set, h);
    assert!(
        (p - Vec3::new(2.5, 0.0, 0.0)).length() < 1e-4,
        "momentum {p}"
    );
    // Bad input changes nothing.
    let bad = ExtraMass {
        mass: f32::NAN,
        ..cargo
    };
    assert!(matches!(
        set.set_extra_mass(&mut physics, h, smithereens_core::ChunkIndex(1), bad),
        Err(BackendError::BadSetting { .. })
    ));
    assert!(matches!(
        set.set_extra_mass(&mut physics, h, smithereens_core::ChunkIndex(99), cargo),
        Err(BackendError::UnknownChunk(_))
    ));
    assert!((physics.bodies[body_of_chunk(&set, h, 1)].mass() - 1.5).abs() < 1e-5);
    // Removing it.
    let none = ExtraMass { mass: 0.0, ..cargo };
    set.set_extra_mass(&mut physics, h, smithereens_core::ChunkIndex(1), none)
        .unwrap();
    assert!((physics.bodies[body_of_chunk(&set, h, 1)].mass() - 1.0).abs() < 1e-5);
}
