//! The held-projectile seed's regression scene (001077; issue 14 item 6):
//! a 1.2 t vehicle pushing its launcher into a wall for 10 s under the
//! bounded stepper, with held colliders and, for comparison, with
//! projectiles on fixed joints.
#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

#[path = "common/wall_push.rs"]
mod wall_push;

use rapier3d::prelude::*;
use smithereens_rapier::{BoundedStepper, SubstepDiagnostics, SubstepSettings};
use wall_push::{Design, WALL_X, scene};

struct Run {
    diagnostics: SubstepDiagnostics,
    /// Largest chassis speed over the last second, m/s.
    rest_speed: f32,
    /// Deepest any collider reached past the wall face, m.
    penetration: f32,
}

fn run(design: Design, vehicles: u32, frames: u32) -> Run {
    let (mut w, _held, cars) = scene(design, vehicles);
    let mut stepper = BoundedStepper::new(SubstepSettings::default()).unwrap();
    let (mut rest_speed, mut penetration) = (0.0f32, 0.0f32);
    for f in 0..frames {
        stepper.step(&mut w);
        if f + 60 >= frames {
            for car in &cars {
                rest_speed = rest_speed.max(w.bodies[car.chassis].linvel().length());
            }
        }
        for (_, c) in w.colliders.iter() {
            let body = c.parent().and_then(|p| w.bodies.get(p));
            if c.is_enabled() && body.is_some_and(|b| b.is_dynamic() && b.is_enabled()) {
                penetration = penetration.max(c.compute_aabb().maxs.x - WALL_X);
            }
        }
    }
    Run {
        diagnostics: *stepper.diagnostics(),
        rest_speed,
        penetration,
    }
}

/// Measured (debug build, Rapier defaults: 4 solver iterations, 60 Hz):
/// with held colliders the projectiles add no joint, but the wheels'
/// revolute joints under the pushing 1.2 t chassis still drift 0.5–2 mm, so
/// at the seed's 0.1 mm tolerance about half the frames subdivide (≈ 4.9
/// trials per frame, the stall rule tripping every 8 frames) and the chassis
/// keeps ≈ 0.12 m/s of jitter: the "≤ 2 trials per frame, ≤ 1 cm/s"
/// target is NOT met by this scene (with 8 solver iterations the wheel error
/// falls to 0.1–0.7 mm). The joint-held design is worse: under the stepper
/// it jitters at ≈ 0.62 m/s and reaches 17 mm into the wall (with plain
/// steps the jammed projectiles drove the vehicle up to 28 m/s).
/// What is asserted here is what holds.
#[test]
fn a_vehicle_with_held_colliders_stays_out_of_the_wall_and_beats_the_joint_design() {
    let held = run(Design::HoldingColliders, 1, 600);
    let joints = run(Design::FixedJoints, 1, 600);
    for (name, r) in [("held colliders", &held), ("fixed joints", &joints)] {
        println!(
            "{name}: {:?}, rest speed {} m/s, penetration {} m",
            r.diagnostics, r.rest_speed, r.penetration
        );
    }
    let allowed = IntegrationParameters::default().normalized_allowed_linear_error;
    assert!(
        held.penetration <= allowed + 1e-3,
        "{} m past the wall",
        held.penetration
    );
    assert!(held.rest_speed < joints.rest_speed);
    assert!(held.penetration < joints.penetration);
    let stall = SubstepSettings::default().stall_frames;
    assert!(held.diagnostics.longest_subdivided_run <= stall);
}

#[test]
fn the_joint_held_design_never_subdivides_longer_than_the_stall_limit() {
    let r = run(Design::FixedJoints, 1, 600);
    let d = r.diagnostics;
    assert!(d.longest_subdivided_run <= SubstepSettings::default().stall_frames);
    assert!(d.max_trials_in_frame <= 64);
    assert!(d.stall_trips > 0, "{d:?}");
}
