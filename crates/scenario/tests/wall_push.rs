//! The held-projectile seed's regression scene (001077) as the built-in
//! `wall_push` (issue 14 item 6): vehicles pushing the projectiles preloaded
//! in their launchers into a wall for 10 s under the bounded stepper
//! (tolerance 0.1 mm, 64 trials, stall rule after 8 subdivided frames), with
//! holding colliders and, for comparison, with every projectile a body on
//! a fixed joint. The same file is `smithereens simulate wall-push` and the
//! `wall_push` bench.
#![allow(clippy::unwrap_used)] // test code: a failure here is a test failure

use rapier3d::prelude::*;
use smithereens_rapier::SubstepDiagnostics;
use smithereens_rapier::recorded_run::{RunSummary, run_observed};
use smithereens_scenario::{ScenarioFile, build, builtin};
use std::path::Path;

/// x of the wall's face in the built-in, m.
const WALL_X: f32 = 4.0;
/// The pushing vehicles of the built-in (0–3), the parked launchers (4–6)
/// and the scraper (7).
const PUSHERS: std::ops::Range<usize> = 0..4;
const SCRAPER: usize = 7;

struct Measured {
    diagnostics: SubstepDiagnostics,
    summary: RunSummary,
    /// Largest chassis speed over the last second, per vehicle, m/s.
    rest_speed: Vec<f32>,
    /// Deepest contact of a vehicle's bodies (chassis with its holding
    /// colliders, wheels) with the wall over the run, per vehicle, m.
    penetration: Vec<f32>,
    /// Largest wheel-joint anchor error over the second half, per vehicle, m.
    wheel_error: Vec<f32>,
    /// Largest |vertical| / |horizontal| component of that error (chassis frame), m.
    wheel_error_axes: (f32, f32),
    /// Held parts reported broken (all flagged as ammunition).
    broken_events: usize,
    /// Launched held parts that reached the wall (centre within 0.5 m of its face; a
    /// part lying along x is 0.43 m from centre to tip).
    launched_at_wall: usize,
    /// Subdivided frames: (frame, trials, first trial's error m, vehicle whose
    /// wheel joint had it).
    subdivided: Vec<(u32, u32, f32, Option<usize>)>,
}

/// The built-in with `vehicles` of its vehicles (and their launches) in the
/// given design (`"colliders"` or `"fixed-joints"`).
fn scene(vehicles: usize, hold: &str) -> ScenarioFile {
    let mut file = ScenarioFile::parse(builtin("wall-push").unwrap()).unwrap();
    file.vehicles.truncate(vehicles);
    file.launches.retain(|l| (l.vehicle as usize) < vehicles);
    for v in &mut file.vehicles {
        v.hold = hold.into();
    }
    file
}

fn run(file: &ScenarioFile) -> Measured {
    let built = build(file, Path::new("."), &mut |_| {}).unwrap();
    let n = built.scenario.vehicles.len();
    let (mut rest_speed, mut penetration, mut wheel_error) =
        (vec![0.0f32; n], vec![0.0f32; n], vec![0.0f32; n]);
    let mut axes = (0.0f32, 0.0f32);
    let mut broken_events = 0;
    let mut at_wall = std::collections::BTreeSet::new();
    let mut subdivided = Vec::new();
    let (_, summary) = run_observed(&built.scenario, &mut |_, _| {}, &mut |step| {
        let w = step.physics;
        if let Some(f) = step.frame.filter(|f| f.subdivided) {
            let vehicle = f.first_worst_joint.and_then(|j| {
                step.vehicles
                    .iter()
                    .position(|v| v.wheel_joints.contains(&j))
            });
            subdivided.push((step.step, f.trials, f.first_error, vehicle));
        }
        let owner = |b: RigidBodyHandle| {
            step.vehicles
                .iter()
                .position(|v| v.chassis == b || v.wheels.contains(&b))
        };
        let wall = |c: &Collider| {
            c.parent()
                .and_then(|p| w.bodies.get(p))
                .is_some_and(|b| b.is_fixed())
                && c.compute_aabb().mins.x > WALL_X - 0.01
        };
        for pair in w.narrow_phase.contact_pairs() {
            let (Some(c1), Some(c2)) = (
                w.colliders.get(pair.collider1),
                w.colliders.get(pair.collider2),
            ) else {
                continue;
            };
            let other = if wall(c1) {
                c2
            } else if wall(c2) {
                c1
            } else {
                continue;
            };
            let depth = pair
                .manifolds()
                .iter()
                .flat_map(|m| m.points.iter())
                .map(|p| -p.dist)
                .fold(0.0f32, f32::max);
            if let Some(k) = other.parent().and_then(owner) {
                penetration[k] = penetration[k].max(depth);
            }
        }
        if step.step * 2 > step.steps {
            for (k, v) in step.vehicles.iter().enumerate() {
                for &j in &v.wheel_joints {
                    let j = w.impulse_joints.get(j).unwrap();
                    let b1 = *w.bodies[j.body1()].position();
                    let f1 = b1 * j.data.local_frame1;
                    let f2 = *w.bodies[j.body2()].position() * j.data.local_frame2;
                    let d = b1.rotation.inverse() * (f2.translation - f1.translation);
                    wheel_error[k] = wheel_error[k].max(d.length());
                    axes.0 = axes.0.max(d.y.abs());
                    axes.1 = axes.1.max(d.x.abs().max(d.z.abs()));
                }
            }
        }
        if step.step + 60 > step.steps {
            for (k, v) in step.vehicles.iter().enumerate() {
                rest_speed[k] = rest_speed[k].max(w.bodies[v.chassis].linvel().length());
            }
        }
        for (l, id) in
            (0..step.held.launcher_count()).map(|l| (l, smithereens_rapier::LauncherId(l)))
        {
            for i in 0..4 {
                let launched =
                    step.held.status(id, i) == Some(smithereens_rapier::PartStatus::Launched);
                let body = step.held.part_body(id, i).and_then(|b| w.bodies.get(b));
                if launched && body.is_some_and(|b| b.translation().x >= WALL_X - 0.5) {
                    at_wall.insert((l, i));
                }
            }
        }
        for e in step.held_events {
            if e.broken {
                assert!(e.ammunition, "a held part's event is flagged ammunition");
                broken_events += 1;
            }
        }
    })
    .unwrap();
    Measured {
        diagnostics: summary.substep.unwrap(),
        summary,
        rest_speed,
        penetration,
        wheel_error,
        wheel_error_axes: axes,
        broken_events,
        launched_at_wall: at_wall.len(),
        subdivided,
    }
}

fn trials_per_frame(d: &SubstepDiagnostics) -> f64 {
    d.trials as f64 / d.frames as f64
}

fn print(name: &str, m: &Measured) {
    println!(
        "{name}: {:.2} trials/frame, {:?}\n  rest speed {:?} m/s\n  penetration {:?} m\n  wheel error {:?} m (vertical {:.2e}, horizontal {:.2e})\n  subdivided (frame, trials, first error m, vehicle) {:?}",
        trials_per_frame(&m.diagnostics),
        m.diagnostics,
        m.rest_speed,
        m.penetration,
        m.wheel_error,
        m.wheel_error_axes.0,
        m.wheel_error_axes.1,
        m.subdivided
    );
}

/// Penetration the issue allows: the world's allowed penetration + 1 mm.
fn allowed_penetration() -> f32 {
    smithereens_rapier::WorldSettings::default().allowed_penetration + 1e-3
}

fn stall_frames() -> u32 {
    smithereens_rapier::SubstepSettings::default().stall_frames
}

#[test]
fn a_vehicle_pushing_its_held_parts_into_the_wall_needs_no_subdivision_and_rests() {
    let held = run(&scene(1, "colliders"));
    print("1 vehicle, holding colliders", &held);
    let d = held.diagnostics;
    assert_eq!(d.frames, 600);
    assert!(trials_per_frame(&d) <= 2.0, "{d:?}");
    // Measured: 600 trials in 600 frames, no frame subdivided.
    assert!(d.subdivided_frames <= 6, "{d:?}");
    assert!(
        held.rest_speed[0] <= 0.01,
        "jitter at rest: {} m/s",
        held.rest_speed[0]
    );
    assert!(
        held.penetration[0] <= allowed_penetration(),
        "{} m into the wall",
        held.penetration[0]
    );
    // The wheel joints stay within the stepper's 0.1 mm (measured: 0.003 mm).
    assert!(held.wheel_error[0] <= 1e-4, "{:?}", held.wheel_error);
}

#[test]
fn the_joint_held_design_keeps_subdividing_and_the_stall_rule_bounds_every_run() {
    let held = run(&scene(1, "colliders"));
    let joints = run(&scene(1, "fixed-joints"));
    print("1 vehicle, fixed joints", &joints);
    let d = joints.diagnostics;
    // The seed's warning, reproduced: the jointed projectiles pressed into
    // the wall keep the frame over tolerance (measured: 362 of 600 frames
    // subdivided, 3.13 trials per frame, the chassis jittering at 0.34 m/s).
    assert!(d.subdivided_frames >= 100, "{d:?}");
    assert!(trials_per_frame(&d) >= 2.0 * trials_per_frame(&held.diagnostics));
    assert!(joints.rest_speed[0] > 10.0 * held.rest_speed[0].max(1e-3));
    // The stall rule: never more than stall_frames subdivided frames in a row.
    assert!(d.stall_trips > 0, "{d:?}");
    assert!(d.longest_subdivided_run <= stall_frames(), "{d:?}");
    assert!(d.max_trials_in_frame <= 64);
}

#[test]
fn eight_vehicles_push_launch_and_scrape_within_the_targets() {
    let m = run(&scene(8, "colliders"));
    print("8 vehicles, holding colliders", &m);
    let d = m.diagnostics;
    assert!(trials_per_frame(&d) <= 2.0, "{d:?}");
    assert!(d.longest_subdivided_run <= stall_frames(), "{d:?}");
    for k in PUSHERS {
        assert!(m.rest_speed[k] <= 0.01, "vehicle {k}: {:?}", m.rest_speed);
        assert!(
            m.penetration[k] <= allowed_penetration(),
            "vehicle {k}: {:?}",
            m.penetration
        );
    }
    // Six launches from the parked vehicles, each part reaching the wall.
    assert_eq!(m.summary.launches, 6);
    assert_eq!(m.launched_at_wall, 6);
    // The scraper (independent durability) loses all 4 of its parts to the
    // wall; each break is a damage event flagged as ammunition.
    assert_eq!(m.summary.held_parts_broken, 4, "{:?}", m.summary);
    assert_eq!(m.broken_events, 4);
    assert!(m.penetration[SCRAPER] <= allowed_penetration());
    // No frame subdivides (measured: 600 trials in 600 frames). Before the
    // scene's fixes 15 frames did, with up to 20 trials: the scraper's
    // chassis clamped by Rapier's CCD (3 frames, first trials 28–77 mm off),
    // its outboard front wheel rubbing the wall (9 frames, 0.13–0.96 mm) and
    // the parked vehicles settling at 8 × 4 sweeps (3 frames, 0.100–0.110 mm).
    assert!(d.subdivided_frames <= 1, "{:?}", m.subdivided);
    assert!(d.max_trials_in_frame <= 3, "{d:?}");
    assert!(d.trials <= d.frames + 2, "{d:?}");
    for &(frame, trials, error, _) in &m.subdivided {
        assert!(
            error < 2e-4,
            "frame {frame}: {error} m over {trials} trials"
        );
    }
}

#[test]
fn with_rapiers_ccd_the_scrapers_chassis_is_clamped_short_of_its_wheels() {
    // Why the scene turns CCD off: Rapier 0.36 sweeps every fast dynamic
    // body (moving more than half its thinnest collider's thickness per
    // step; the chassis' 8 cm capsules make that 2.4 m/s) against fixed
    // colliders and moves it back to its time of impact alone. Sliding
    // along the wall at 4–8 m/s, the scraper's chassis is clamped while its
    // wheels move the whole step: the first trial's wheel joints are off by
    // centimetres (measured: 7 frames, 7–61 mm), and only halved steps (under
    // the speed at which it counts as fast) come in under tolerance.
    let mut file = scene(8, "colliders");
    file.ccd = Some(true);
    let m = run(&file);
    print("8 vehicles, holding colliders, Rapier's CCD", &m);
    let clamped: Vec<_> = m
        .subdivided
        .iter()
        .filter(|s| s.3 == Some(SCRAPER) && s.2 > 0.01)
        .collect();
    assert!(!clamped.is_empty(), "{:?}", m.subdivided);
    assert!(m.diagnostics.subdivided_frames > 4, "{:?}", m.diagnostics);
}

#[test]
fn eight_vehicles_built_the_old_way_subdivide_more_and_never_longer_than_the_stall_limit() {
    let held = run(&scene(8, "colliders"));
    let joints = run(&scene(8, "fixed-joints"));
    print("8 vehicles, fixed joints", &joints);
    let d = joints.diagnostics;
    assert!(
        d.subdivided_frames > 2 * held.diagnostics.subdivided_frames,
        "{d:?}"
    );
    assert!(d.longest_subdivided_run <= stall_frames(), "{d:?}");
    assert!(d.stall_trips > 0);
}

#[test]
fn with_light_wheels_and_rapiers_default_solver_the_wheel_joints_drift_along_the_load() {
    // The cause of the drift the last session measured: the chassis' weight
    // reaches the ground through the light wheel, and each Gauss–Seidel
    // sweep passes on only part of it. With 25 kg wheels (48:1), Rapier's 4
    // substeps of 1 sweep and no joint warm start the wheel joints stretch
    // by millimetres, and almost entirely along the vertical load.
    let mut file = scene(1, "colliders");
    file.solver_iterations = Some(4);
    file.pgs_iterations = Some(1);
    file.warmstart_joints = Some(false);
    for w in &mut file.vehicles[0].wheels {
        w.mass = 25.0;
    }
    let light = run(&file);
    print("25 kg wheels, 4 × 1 sweeps", &light);
    let (vertical, horizontal) = light.wheel_error_axes;
    assert!(light.wheel_error[0] > 1e-3, "{:?}", light.wheel_error);
    assert!(vertical > 3.0 * horizontal, "{vertical} vs {horizontal}");
    assert!(light.diagnostics.subdivided_frames > 100);
    // Without the drive the error is the same order: the wall push is not its cause.
    let mut idle = file.clone();
    idle.vehicles[0].drive = Some([0.0; 3]);
    let idle = run(&idle);
    assert!(idle.wheel_error[0] > 0.5 * light.wheel_error[0].min(2e-3));
}
