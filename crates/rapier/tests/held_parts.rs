//! Held parts (issue 14 items 1–4): holding colliders, the one-step launch
//! (mass, momentum and pose conservation with real numbers), bad input,
//! rollback check and bit-for-bit resume across a launch frame.
#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use rapier3d::prelude::*;
use smithereens_rapier::{
    DetachError, HeldError, HeldPartDesc, HeldParts, HeldPose, HoldingOwner, LauncherDesc,
    LauncherId, MAX_PART_OFFSET, PartMaterial, PartShape, PartStatus, RollbackError,
};
use std::sync::Arc;

const CHASSIS_MASS: f32 = 1200.0;
const PART_MASS: f32 = 5.0;

fn part(x: f32, z: f32) -> HeldPartDesc {
    HeldPartDesc {
        shape: PartShape::Capsule {
            half_height: 0.3,
            radius: 0.08,
        },
        material: PartMaterial::default(),
        mass: PART_MASS,
        pose: Pose::from_parts(
            Vector::new(x, 0.7, z),
            Rotation::from_axis_angle(Vector::X, std::f32::consts::FRAC_PI_2),
        ),
        health: smithereens_rapier::DEFAULT_PART_HEALTH,
    }
}

fn launcher() -> Arc<LauncherDesc> {
    Arc::new(LauncherDesc {
        weapon: 3,
        parts: vec![
            part(1.2, -0.3),
            part(1.2, -0.1),
            part(1.2, 0.1),
            part(1.2, 0.3),
        ],
        independent_durability: false,
        weapon_health: smithereens_rapier::DEFAULT_WEAPON_HEALTH,
    })
}

/// A 1.2 t chassis 1 m off-axis from the origin, tilted, moving and spinning;
/// no gravity so the switch alone is measured.
fn world(gravity: bool) -> (PhysicsWorld, RigidBodyHandle, HeldParts, LauncherId) {
    let mut w = PhysicsWorld::new();
    if !gravity {
        w.gravity = Vector::ZERO;
    }
    let (chassis, _) = w.insert(
        RigidBodyBuilder::dynamic()
            .pose(Pose::from_parts(
                Vector::new(3.0, 1.5, -2.0),
                Rotation::from_axis_angle(Vector::new(0.2, 1.0, 0.1).normalize(), 0.6),
            ))
            .linvel(Vector::new(4.0, 0.5, -1.0))
            .angvel(Vector::new(0.3, 1.1, -0.4)),
        ColliderBuilder::cuboid(2.0, 0.5, 1.0).mass(CHASSIS_MASS),
    );
    let mut held = HeldParts::new();
    let id = held.add_launcher(&mut w, chassis, launcher()).unwrap();
    (w, chassis, held, id)
}

/// World inertia tensor of a body about its centre of mass, kg·m².
fn world_inertia(b: &RigidBody) -> glam::Mat3 {
    let mp = b.mass_properties().local_mprops;
    let r = glam::Mat3::from_quat(b.position().rotation);
    r * mp.reconstruct_inertia_matrix() * r.transpose()
}

/// Linear momentum and angular momentum about `about` of the enabled bodies.
fn momentum(w: &PhysicsWorld, about: Vector) -> (glam::DVec3, glam::DVec3) {
    let (mut p, mut l) = (glam::DVec3::ZERO, glam::DVec3::ZERO);
    for (_, b) in w.bodies.iter() {
        if !b.is_enabled() || !b.is_dynamic() {
            continue;
        }
        let m = b.mass() as f64;
        let v = b.linvel().as_dvec3();
        let c = (b.center_of_mass() - about).as_dvec3();
        p += m * v;
        l += c.cross(m * v) + (world_inertia(b) * b.angvel()).as_dvec3();
    }
    (p, l)
}

fn skew_term(m: f32, r: Vector) -> glam::Mat3 {
    m * (glam::Mat3::from_diagonal(Vector::splat(r.dot(r)))
        - glam::Mat3::from_cols(r * r.x, r * r.y, r * r.z))
}

#[test]
fn a_launcher_puts_holding_colliders_on_the_parent_and_disabled_bodies_aside() {
    let (w, chassis, held, id) = world(false);
    let body = &w.bodies[chassis];
    assert!(
        (body.mass() - (CHASSIS_MASS + 4.0 * PART_MASS)).abs() < 1e-3,
        "{}",
        body.mass()
    );
    assert_eq!(body.colliders().len(), 5);
    assert_eq!(w.impulse_joints.len(), 0, "no joint");
    for i in 0..4 {
        let holding = held.holding_collider(id, i).unwrap();
        assert!(w.colliders[holding].is_enabled());
        assert_eq!(w.colliders[holding].parent(), Some(chassis));
        assert!((w.colliders[holding].mass() - PART_MASS).abs() < 1e-5);
        let pb = held.part_body(id, i).unwrap();
        assert!(!w.bodies[pb].is_enabled());
        assert!((w.bodies[pb].mass() - PART_MASS).abs() < 1e-5);
        assert_eq!(
            held.owner(holding),
            Some(HoldingOwner {
                parent: chassis,
                weapon: 3,
                projectile: i
            })
        );
    }
    assert_eq!(held.ammunition(id), 4);
    assert_eq!(held.next_ready(id), Some(0));
}

#[test]
fn rapier_drops_a_disabled_colliders_mass_at_the_next_step_but_keeps_the_com_velocity() {
    // Verified, not assumed: disabling a collider removes its mass from the
    // parent at the next step without a manual recompute, and Rapier leaves the
    // linear velocity (stored at the centre of mass) untouched when the centre
    // of mass moves: the velocity field shifts unless the caller corrects it.
    let mut w = PhysicsWorld::new();
    w.gravity = Vector::ZERO;
    let (b, _) = w.insert(
        RigidBodyBuilder::dynamic().angvel(Vector::new(0.0, 2.0, 0.0)),
        ColliderBuilder::ball(0.5).mass(3.0),
    );
    let extra = w.insert_collider(
        ColliderBuilder::ball(0.5)
            .mass(1.0)
            .translation(Vector::new(4.0, 0.0, 0.0)),
        Some(b),
    );
    assert!((w.bodies[b].mass() - 4.0).abs() < 1e-6);
    assert!((w.bodies[b].center_of_mass().x - 1.0).abs() < 1e-6);
    let v_before = w.bodies[b].linvel();
    w.colliders[extra].set_enabled(false);
    assert!(
        (w.bodies[b].mass() - 4.0).abs() < 1e-6,
        "not before the step"
    );
    w.integration_parameters.dt = 1e-6;
    w.step();
    assert!(
        (w.bodies[b].mass() - 3.0).abs() < 1e-6,
        "{}",
        w.bodies[b].mass()
    );
    // The centre of mass jumped 1 m, the linear velocity did not follow the
    // rotation (ω × Δc would be 2 m/s along z).
    assert!(w.bodies[b].linvel().distance(v_before) < 1e-3);
}

#[test]
fn launch_drops_parent_mass_by_the_part_and_moves_com_and_inertia_by_parallel_axis_amounts() {
    let (mut w, chassis, mut held, id) = world(false);
    let before = &w.bodies[chassis];
    let (m0, c0, i0) = (
        before.mass(),
        before.center_of_mass(),
        world_inertia(before),
    );
    let pb = held.part_body(id, 1).unwrap();
    held.launch(&mut w, id, 1, Vector::ZERO, None).unwrap();

    let part = &w.bodies[pb];
    let (m, x, ip) = (part.mass(), part.center_of_mass(), world_inertia(part));
    let after = &w.bodies[chassis];
    let (m1, c1, i1) = (after.mass(), after.center_of_mass(), world_inertia(after));
    assert!((m0 - m1 - PART_MASS).abs() < 1e-3, "dropped {}", m0 - m1);
    assert!((m - PART_MASS).abs() < 1e-5);
    // c0 = (m1 c1 + m x) / m0.
    let c_expected = (m0 * c0 - m * x) / m1;
    assert!(c1.distance(c_expected) < 1e-5, "{c1} vs {c_expected}");
    // I0 (about c0) = I1 + m1 [(r1·r1)E − r1 r1ᵀ] + Ip + m [(r·r)E − r rᵀ].
    let i_expected = i0 - skew_term(m1, c1 - c0) - ip - skew_term(m, x - c0);
    let diff = (i1 - i_expected).to_cols_array();
    let scale = i0
        .to_cols_array()
        .iter()
        .fold(0.0f32, |a, v| a.max(v.abs()));
    assert!(
        diff.iter().all(|d| d.abs() < 2e-5 * scale),
        "{i1} vs {i_expected}"
    );
    // The part carried real inertia: a 5 kg capsule 1.2 m off-centre moves
    // the parent's inertia by more than m·r² ≈ 5·1.2² = 7 kg·m² in some entry.
    assert!((i0 - i1).to_cols_array().iter().any(|d| d.abs() > 5.0));
    assert_eq!(held.status(id, 1), Some(PartStatus::Launched));
    assert_eq!(held.ammunition(id), 3);
    assert_eq!(held.next_ready(id), Some(0));
}

#[test]
fn the_switch_conserves_momentum_and_impulse_with_recoil_changes_it_by_zero_net() {
    let (mut w, chassis, mut held, id) = world(false);
    let c = w.bodies[chassis].center_of_mass();
    let (p0, l0) = momentum(&w, c);
    // 1220 kg at (4, 0.5, −1) m/s.
    assert!((p0.x - 1220.0 * 4.0).abs() < 0.05, "{p0}");

    held.launch(&mut w, id, 0, Vector::ZERO, None).unwrap();
    let (p1, l1) = momentum(&w, c);
    assert!(
        (p1 - p0).length() < 1e-3 * p0.length(),
        "switch: {p0} → {p1}"
    );
    assert!(
        (l1 - l0).length() < 1e-4 * l0.length().max(1.0),
        "switch: {l0} → {l1}"
    );

    // 60 N·s along the launcher's barrel at a point off the part's centre.
    let j = Vector::new(60.0, 5.0, -8.0);
    let at = w.bodies[held.part_body(id, 2).unwrap()].center_of_mass();
    held.launch(&mut w, id, 2, j, Some(at + Vector::new(0.0, 0.05, 0.0)))
        .unwrap();
    let (p2, l2) = momentum(&w, c);
    assert!(
        (p2 - p0).length() < 1e-3 * p0.length(),
        "impulse: {p0} → {p2}"
    );
    assert!(
        (l2 - l0).length() < 1e-4 * l0.length().max(1.0),
        "impulse: {l0} → {l2}"
    );
    // The part did get the impulse: Δv = J / m = 12 m/s along x.
    let pb = &w.bodies[held.part_body(id, 2).unwrap()];
    let v_point = w.bodies[chassis].velocity_at_point(pb.center_of_mass());
    assert!((pb.linvel() - v_point - j / PART_MASS).length() < 0.1);
}

#[test]
fn the_part_starts_exactly_where_it_was_held_and_at_its_point_velocity() {
    let (mut w, chassis, mut held, id) = world(true);
    for _ in 0..5 {
        w.step();
    }
    let parent = &w.bodies[chassis];
    assert!(parent.translation().length() < 10.0);
    let holding = held.holding_collider(id, 3).unwrap();
    let held_pose = *parent.position() * *w.colliders[holding].position_wrt_parent().unwrap();
    let mut drawn = Vec::new();
    held.held_poses(&w, &mut drawn);
    let d3: &HeldPose = drawn.iter().find(|p| p.projectile == 3).unwrap();
    assert!(d3.pose.translation.distance(held_pose.translation) < 1e-6);

    let (v, wv, c) = (parent.linvel(), parent.angvel(), parent.center_of_mass());
    let done = held.launch(&mut w, id, 3, Vector::ZERO, None).unwrap();
    let pb = &w.bodies[held.part_body(id, 3).unwrap()];
    let own = *pb.position()
        * *w.colliders[pb.colliders()[0]]
            .position_wrt_parent()
            .unwrap();
    assert!(own.translation.distance(held_pose.translation) <= 1e-5);
    // Orientation: a point 1 m out along each axis lands within 1e-5 m.
    for axis in [Vector::X, Vector::Y, Vector::Z] {
        assert!((own.rotation * axis).distance(held_pose.rotation * axis) <= 1e-5);
    }
    assert_eq!(done.pose.translation, held_pose.translation);
    let expected_v = v + wv.cross(pb.center_of_mass() - c);
    assert!(pb.linvel().distance(expected_v) < 1e-5);
    assert!(pb.angvel().distance(wv) < 1e-6);

    // Unfired parts are drawn from the parent; the launched one no longer is.
    w.step();
    drawn.clear();
    held.held_poses(&w, &mut drawn);
    assert_eq!(
        drawn.iter().map(|p| p.projectile).collect::<Vec<_>>(),
        vec![0, 1, 2]
    );
    let parent = &w.bodies[chassis];
    for p in &drawn {
        let h = held.holding_collider(id, p.projectile).unwrap();
        // The holding collider (what the physics collides) is where the part is drawn.
        assert!(
            w.colliders[h]
                .position()
                .translation
                .distance(p.pose.translation)
                < 1e-5
        );
        let authored = launcher().parts[p.projectile as usize].pose;
        assert!(
            (*parent.position() * authored)
                .translation
                .distance(p.pose.translation)
                < 1e-6
        );
    }
}

#[test]
fn a_broken_weapon_disables_its_unfired_parts_and_their_mass_leaves_the_parent() {
    let (mut w, chassis, mut held, id) = world(false);
    held.launch(&mut w, id, 0, Vector::ZERO, None).unwrap();
    held.break_part(&mut w, id, 2).unwrap();
    assert!((w.bodies[chassis].mass() - (CHASSIS_MASS + 2.0 * PART_MASS)).abs() < 1e-3);
    assert_eq!(held.next_ready(id), Some(1));
    assert_eq!(held.break_weapon(&mut w, id).unwrap(), vec![1, 3]);
    assert!((w.bodies[chassis].mass() - CHASSIS_MASS).abs() < 1e-3);
    assert_eq!(held.ammunition(id), 0);
    assert_eq!(held.next_ready(id), None);
    assert!(!w.bodies[held.part_body(id, 3).unwrap()].is_enabled());
    assert!(
        w.bodies[held.part_body(id, 0).unwrap()].is_enabled(),
        "launched part unaffected"
    );
}

fn census(w: &PhysicsWorld) -> (usize, usize, u32) {
    let mass_bits = w
        .bodies
        .iter()
        .map(|(_, b)| b.mass().to_bits())
        .fold(0u32, |a, m| a.wrapping_mul(31).wrapping_add(m));
    (w.bodies.len(), w.colliders.len(), mass_bits)
}

#[test]
fn bad_parts_and_bad_launches_are_refused_and_change_nothing() {
    let (mut w, chassis, mut held, id) = world(false);
    let before = census(&w);
    let with = |f: &dyn Fn(&mut HeldPartDesc)| {
        let mut d = (*launcher()).clone();
        f(&mut d.parts[1]);
        Arc::new(d)
    };
    type Case = (Arc<LauncherDesc>, fn(&HeldError) -> bool);
    let cases: Vec<Case> = vec![
        (with(&|p| p.mass = 0.0), |e| {
            matches!(e, HeldError::BadMass { projectile: 1, .. })
        }),
        (with(&|p| p.mass = -2.0), |e| {
            matches!(e, HeldError::BadMass { .. })
        }),
        (with(&|p| p.mass = f32::NAN), |e| {
            matches!(e, HeldError::BadMass { .. })
        }),
        // Finite but outside what the solver moves correctly.
        (with(&|p| p.mass = 1e-30), |e| {
            matches!(e, HeldError::BadMass { projectile: 1, .. })
        }),
        (with(&|p| p.mass = 1e30), |e| {
            matches!(e, HeldError::BadMass { projectile: 1, .. })
        }),
        (with(&|p| p.pose.translation.x = f32::NAN), |e| {
            matches!(e, HeldError::BadPose { projectile: 1 })
        }),
        (with(&|p| p.pose.translation.y = f32::INFINITY), |e| {
            matches!(e, HeldError::BadPose { .. })
        }),
        (
            with(&|p| p.pose.translation = Vector::new(0.0, MAX_PART_OFFSET + 1.0, 0.0)),
            |e| matches!(e, HeldError::TooFar { projectile: 1, .. }),
        ),
        (with(&|p| p.shape = PartShape::Ball { radius: 0.0 }), |e| {
            matches!(e, HeldError::BadShape { .. })
        }),
        (with(&|p| p.material.restitution = 2.0), |e| {
            matches!(e, HeldError::BadMaterial { .. })
        }),
    ];
    for (desc, ok) in cases {
        let err = held.add_launcher(&mut w, chassis, desc).unwrap_err();
        assert!(ok(&err), "{err:?}");
        assert_eq!(census(&w), before);
        assert_eq!(held.launcher_count(), 1);
    }
    // Unknown parent: a handle from another world.
    let mut other = PhysicsWorld::new();
    for _ in 0..20 {
        other.insert_body(RigidBodyBuilder::dynamic());
    }
    let stranger = other.insert_body(RigidBodyBuilder::dynamic());
    assert!(matches!(
        held.add_launcher(&mut w, stranger, launcher()),
        Err(HeldError::UnknownParent(_))
    ));
    let fixed = w.insert_body(RigidBodyBuilder::fixed());
    let before = census(&w);
    assert!(matches!(
        held.add_launcher(&mut w, fixed, launcher()),
        Err(HeldError::ParentNotDynamic(_))
    ));
    assert_eq!(census(&w), before);
    // A second launcher on the chassis's weapon part 3: ownership
    // (parent, weapon, projectile) would be ambiguous.
    let before = census(&w);
    let err = held.add_launcher(&mut w, chassis, launcher()).unwrap_err();
    assert_eq!(
        err,
        HeldError::WeaponTaken {
            weapon: 3,
            launcher: smithereens_rapier::LauncherId(0),
        }
    );
    assert_eq!(census(&w), before);
    assert_eq!(held.launcher_count(), 1);

    // Launches.
    assert!(matches!(
        held.launch(&mut w, id, 4, Vector::ZERO, None),
        Err(HeldError::ProjectileOutOfRange {
            projectile: 4,
            count: 4
        })
    ));
    assert!(matches!(
        held.launch(&mut w, LauncherId(7), 0, Vector::ZERO, None),
        Err(HeldError::UnknownLauncher(_))
    ));
    assert!(matches!(
        held.launch(&mut w, id, 0, Vector::new(f32::NAN, 0.0, 0.0), None),
        Err(HeldError::Detach(DetachError::NonFinite))
    ));
    assert_eq!(census(&w), before);
    assert_eq!(held.status(id, 0), Some(PartStatus::Held));
    held.launch(&mut w, id, 0, Vector::ZERO, None).unwrap();
    held.break_part(&mut w, id, 1).unwrap();
    let before = census(&w);
    assert!(matches!(
        held.launch(&mut w, id, 0, Vector::ZERO, None),
        Err(HeldError::AlreadyLaunched(0))
    ));
    assert!(matches!(
        held.launch(&mut w, id, 1, Vector::ZERO, None),
        Err(HeldError::Broken(1))
    ));
    assert!(matches!(
        held.break_part(&mut w, id, 1),
        Err(HeldError::Broken(1))
    ));
    assert_eq!(census(&w), before);
}

fn bits(w: &PhysicsWorld) -> Vec<u32> {
    let mut out = Vec::new();
    for (_, b) in w.bodies.iter() {
        let p = b.position();
        out.extend(p.translation.to_array().map(f32::to_bits));
        out.extend(p.rotation.to_array().map(f32::to_bits));
        out.extend(b.linvel().to_array().map(f32::to_bits));
        out.extend(b.angvel().to_array().map(f32::to_bits));
    }
    out
}

fn grounded() -> (PhysicsWorld, HeldParts, LauncherId) {
    let (mut w, _, held, id) = world(true);
    w.insert(
        RigidBodyBuilder::fixed(),
        ColliderBuilder::cuboid(50.0, 0.1, 50.0),
    );
    (w, held, id)
}

#[test]
fn snapshot_and_restore_across_a_launch_frame_resume_bit_for_bit() {
    let (mut a, mut held_a, id) = grounded();
    for _ in 0..20 {
        a.step();
    }
    // Snapshot at the physics boundary just before the launch frame.
    let bytes = postcard::to_allocvec(&a).unwrap();
    let state = postcard::to_allocvec(&held_a.state()).unwrap();

    let fire = |w: &mut PhysicsWorld, h: &mut HeldParts| {
        h.launch(w, id, 0, Vector::new(80.0, 10.0, 0.0), None)
            .unwrap();
        for _ in 0..40 {
            w.step();
        }
        let next = h.next_ready(id).unwrap();
        h.launch(w, id, next, Vector::new(0.0, 40.0, 30.0), None)
            .unwrap();
        for _ in 0..40 {
            w.step();
        }
    };
    fire(&mut a, &mut held_a);

    let mut b: PhysicsWorld = postcard::from_bytes(&bytes).unwrap();
    let state: smithereens_rapier::HeldState = postcard::from_bytes(&state).unwrap();
    let mut held_b = held_a.restore(&state, &b).unwrap();
    assert_eq!(held_b.ammunition(id), 4);
    fire(&mut b, &mut held_b);
    assert_eq!(bits(&a), bits(&b));
    assert_eq!(held_a.state(), held_b.state());

    // And a snapshot taken after the launch (a held, a launched part) restores too.
    let bytes = postcard::to_allocvec(&a).unwrap();
    let mut c: PhysicsWorld = postcard::from_bytes(&bytes).unwrap();
    let held_c = held_a.restore(&held_a.state(), &c).unwrap();
    assert_eq!(held_c.state(), held_a.state());
    for _ in 0..30 {
        a.step();
        c.step();
    }
    assert_eq!(bits(&a), bits(&c));
}

#[test]
fn a_restore_whose_world_disagrees_with_the_ammunition_state_is_rejected() {
    let (mut w, mut held, id) = grounded();
    w.step();
    let before_launch = held.state();
    held.launch(&mut w, id, 0, Vector::new(10.0, 0.0, 0.0), None)
        .unwrap();
    let bytes = postcard::to_allocvec(&w).unwrap();
    let restored: PhysicsWorld = postcard::from_bytes(&bytes).unwrap();

    // World after the launch, ammunition state before it.
    let err = held.restore(&before_launch, &restored).unwrap_err();
    assert_eq!(
        err,
        RollbackError::EnabledMismatch {
            launcher: 0,
            projectile: 0,
            status: PartStatus::Held,
            holding_enabled: false,
            body_enabled: true,
        }
    );
    // The held parts the game has are untouched.
    assert_eq!(held.status(id, 0), Some(PartStatus::Launched));

    // A world whose holding collider was re-enabled by someone.
    let mut tampered: PhysicsWorld = postcard::from_bytes(&bytes).unwrap();
    let h = held.holding_collider(id, 0).unwrap();
    tampered.colliders[h].set_enabled(true);
    assert!(matches!(
        held.restore(&held.state(), &tampered),
        Err(RollbackError::EnabledMismatch { projectile: 0, .. })
    ));
    // A state from another spec (part count, launcher count).
    let mut short = held.state();
    short.launchers[0].parts.pop();
    assert_eq!(
        held.restore(&short, &restored).err(),
        Some(RollbackError::LauncherShape { launcher: 0 })
    );
    let mut none = held.state();
    none.launchers.clear();
    assert!(matches!(
        held.restore(&none, &restored),
        Err(RollbackError::LauncherCount {
            expected: 1,
            found: 0
        })
    ));
    // A world without the holding collider.
    let mut missing: PhysicsWorld = postcard::from_bytes(&bytes).unwrap();
    missing.remove_collider(held.holding_collider(id, 2).unwrap());
    assert!(matches!(
        held.restore(&held.state(), &missing),
        Err(RollbackError::Topology { projectile: 2, .. })
    ));
    // The consistent pair is accepted.
    assert!(held.restore(&held.state(), &restored).is_ok());
}

#[test]
fn a_part_launched_after_steps_carries_its_mass_and_its_impulse() {
    // A step taken while the part's body was disabled marks its collider
    // disabled by its parent until the next step; the switch enables it, so
    // the body has the part's mass at once and the impulse moves it (it
    // was lost before: mass 0, the launch impulse ignored; found by the
    // wall-push scenario, whose parked vehicles launch at 2 s).
    let (mut w, chassis, mut held, id) = world(false);
    for _ in 0..30 {
        w.step();
    }
    let part_mass = launcher().parts[2].mass;
    let parent = &w.bodies[chassis];
    let (v, wv, c) = (parent.linvel(), parent.angvel(), parent.center_of_mass());
    let impulse = Vector::new(40.0, 5.0, -3.0);
    held.launch(&mut w, id, 2, impulse, None).unwrap();
    let pb = &w.bodies[held.part_body(id, 2).unwrap()];
    assert!(
        (pb.mass() - part_mass).abs() <= 1e-5 * part_mass,
        "{}",
        pb.mass()
    );
    assert!(w.colliders[pb.colliders()[0]].is_enabled());
    let expected = v + wv.cross(pb.center_of_mass() - c) + impulse / part_mass;
    assert!(
        pb.linvel().distance(expected) < 1e-4,
        "{:?} vs {expected:?}",
        pb.linvel()
    );
}
