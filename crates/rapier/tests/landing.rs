//! Landing sub-steps (`smithereens_rapier::landing`): the sub-step count of
//! a frame from the bodies in contact, with the numbers worked by hand.

#![allow(clippy::unwrap_used)]

use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_rapier::{
    LandingSubsteps, LandingSubstepsError, WorldSettings, insert_ground, new_physics_world,
};

/// A world with the ground at y = 0 and one body of `shape` resting on it
/// (centre at `height`), stepped once so its ground contact exists.
fn resting(shape: ColliderBuilder, height: f32) -> (PhysicsWorld, RigidBodyHandle) {
    let mut physics = new_physics_world(&WorldSettings::default());
    insert_ground(&mut physics, 0.0, 0.7);
    let body =
        physics.insert_body(RigidBodyBuilder::dynamic().translation(Vec3::new(0.0, height, 0.0)));
    physics.insert_collider(shape, Some(body));
    physics.step();
    (physics, body)
}

fn with_velocity(physics: &mut PhysicsWorld, body: RigidBodyHandle, v: Vec3, w: Vec3) {
    let b = physics.bodies.get_mut(body).unwrap();
    b.set_linvel(v, true);
    b.set_angvel(w, true);
}

/// A 0.5 m cube: bounding radius about its centre √3 · 0.25 = 0.433 m.
fn cube() -> ColliderBuilder {
    ColliderBuilder::cuboid(0.25, 0.25, 0.25)
}

#[test]
fn a_body_at_rest_or_sliding_on_the_ground_needs_one_step() {
    let landing = LandingSubsteps::default();
    let (mut physics, body) = resting(cube(), 0.25);
    assert_eq!(landing.substeps(&physics), 1);
    // Sliding at 5 m/s: 8.3 cm per frame along the ground, none toward it.
    with_velocity(&mut physics, body, Vec3::new(5.0, 0.0, 0.0), Vec3::ZERO);
    assert_eq!(landing.substeps(&physics), 1);
}

#[test]
fn a_spinning_cube_on_the_ground_is_sub_stepped_by_its_corner_sweep() {
    let landing = LandingSubsteps::default();
    let (mut physics, body) = resting(cube(), 0.25);
    // 20 rad/s × 0.433 m / 60 = 14.4 cm per frame: ⌈14.4 / 8⌉ = 2.
    with_velocity(&mut physics, body, Vec3::ZERO, Vec3::new(0.0, 0.0, 20.0));
    assert_eq!(landing.substeps(&physics), 2);
    // 10 rad/s: 7.2 cm, within one step's 8 cm.
    with_velocity(&mut physics, body, Vec3::ZERO, Vec3::new(0.0, 0.0, 10.0));
    assert_eq!(landing.substeps(&physics), 1);
    // Falling onto it at 3 m/s as well: (3 + 10 × 0.433) / 60 = 12.2 cm → 2.
    with_velocity(
        &mut physics,
        body,
        Vec3::new(0.0, -3.0, 0.0),
        Vec3::new(0.0, 0.0, 10.0),
    );
    assert_eq!(landing.substeps(&physics), 2);
    // 200 rad/s: 1.44 m per frame, clamped to max_substeps.
    with_velocity(&mut physics, body, Vec3::ZERO, Vec3::new(0.0, 0.0, 200.0));
    assert_eq!(landing.substeps(&physics), 4);
    let two = LandingSubsteps {
        max_substeps: 2,
        ..landing
    };
    assert_eq!(two.substeps(&physics), 2);
}

#[test]
fn free_flight_and_balls_need_one_step() {
    let landing = LandingSubsteps::default();
    // 10 m above the ground: no contact, however fast it spins and falls.
    let (mut physics, body) = resting(cube(), 10.0);
    with_velocity(
        &mut physics,
        body,
        Vec3::new(0.0, -20.0, 0.0),
        Vec3::new(30.0, 0.0, 0.0),
    );
    assert_eq!(landing.substeps(&physics), 1);
    // A ball rolling at 50 rad/s on the ground: its contact is exact.
    let (mut physics, body) = resting(ColliderBuilder::ball(0.4), 0.4);
    with_velocity(
        &mut physics,
        body,
        Vec3::new(20.0, 0.0, 0.0),
        Vec3::new(0.0, 0.0, -50.0),
    );
    assert_eq!(landing.substeps(&physics), 1);
}

#[test]
fn out_of_range_settings_are_refused() {
    assert_eq!(LandingSubsteps::default().validate(), Ok(()));
    for bad in [0.0, -0.01, f32::NAN, f32::INFINITY] {
        let l = LandingSubsteps {
            max_sweep: bad,
            ..Default::default()
        };
        assert!(matches!(
            l.validate(),
            Err(LandingSubstepsError::BadSweep(_))
        ));
    }
    for bad in [0, 17] {
        let l = LandingSubsteps {
            max_substeps: bad,
            ..Default::default()
        };
        assert_eq!(l.validate(), Err(LandingSubstepsError::BadSubsteps(bad)));
    }
}

#[test]
fn a_run_with_bad_landing_settings_is_refused_before_anything_runs() {
    use smithereens_rapier::recorded_run::{RunError, ScriptedRun, run};
    let mut scenario = ScriptedRun::new("bad landing", WorldSettings::default(), 10);
    scenario.landing = Some(LandingSubsteps {
        max_sweep: f32::NAN,
        ..Default::default()
    });
    assert!(matches!(
        run(&scenario, &mut |_, _| {}),
        Err(RunError::Landing(LandingSubstepsError::BadSweep(_)))
    ));
}

#[test]
fn landing_and_the_bounded_stepper_together_are_refused() {
    use smithereens_rapier::SubstepSettings;
    use smithereens_rapier::recorded_run::{RunError, ScriptedRun, run};
    let mut scenario = ScriptedRun::new("both", WorldSettings::default(), 10);
    scenario.landing = Some(LandingSubsteps::default());
    scenario.substep = Some(SubstepSettings::default());
    assert!(matches!(
        run(&scenario, &mut |_, _| {}),
        Err(RunError::LandingWithSubstep)
    ));
}

/// Two sub-steps' reports of one frame: lists concatenate in step order,
/// an instance only the later step saw is taken whole, the later step's
/// budget state wins, counts and times add up.
#[test]
fn sub_step_reports_merge_in_step_order() {
    use smithereens_core::BondIndex;
    use smithereens_core::budget::BudgetShortfall;
    use smithereens_rapier::{InstanceHandle, InstanceReport, SetStepReport};
    let (a, b) = (
        InstanceHandle::from_raw_parts(0, 0),
        InstanceHandle::from_raw_parts(1, 0),
    );
    let shortfall = BudgetShortfall {
        critical: 3,
        available: 1,
        capacity: 8,
    };
    let mut first = SetStepReport::default();
    first.instances.insert(
        a,
        InstanceReport {
            broken: vec![BondIndex(4), BondIndex(9)],
            deferred: Some(shortfall),
            ..Default::default()
        },
    );
    first.rejected_contacts = 2;
    first.destruction_seconds = 0.25;
    let mut later = SetStepReport::default();
    later.instances.insert(
        a,
        InstanceReport {
            broken: vec![BondIndex(1)],
            throttled: Some(5),
            ..Default::default()
        },
    );
    later.instances.insert(
        b,
        InstanceReport {
            broken: vec![BondIndex(7)],
            ..Default::default()
        },
    );
    later.rejected_contacts = 3;
    later.destruction_seconds = 0.5;
    later.rerun = true;
    first.absorb(later);
    let ra = &first.instances[&a];
    assert_eq!(ra.broken, vec![BondIndex(4), BondIndex(9), BondIndex(1)]);
    // The later step reported no shortfall: the first step's stays.
    assert_eq!(ra.deferred, Some(shortfall));
    assert_eq!(ra.throttled, Some(5));
    assert_eq!(first.instances[&b].broken, vec![BondIndex(7)]);
    assert_eq!(first.rejected_contacts, 5);
    assert_eq!(first.destruction_seconds, 0.75);
    assert!(first.rerun && !first.pre_step_missing);
}
