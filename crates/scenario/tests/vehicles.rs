//! Vehicles, launchers, held parts, launches and the bounded stepper in
//! scenario files (issue 14 item 7): the schema, and the issue's bad-input
//! list as typed errors naming the field.
#![allow(clippy::unwrap_used)] // test code: a failure here is a test failure

use smithereens_rapier::HeldError;
use smithereens_rapier::recorded_run::{HoldDesign, RunError, VehicleError, run};
use smithereens_scenario::{LaunchSpec, ScenarioFile, ScenarioFileError, build, builtin};
use std::path::Path;

/// One vehicle with one launcher of two balls, a wall, the bounded stepper.
const CAR: &str = r#"
name = "car"
duration = 1.0

[substep]

[[bodies]]
shape = "box"
size = [0.5, 3.0, 10.0]
kind = "fixed"
position = [4.25, 1.5, 0.0]

[[vehicles]]
position = [0.0, 0.75, 0.0]
size = [3.6, 0.6, 1.8]
mass = 1200.0
drive = [2000.0, 0.0, 0.0]

[[vehicles.wheels]]
position = [1.2, -0.35, 1.1]
radius = 0.4
width = 0.2
mass = 50.0
[[vehicles.wheels]]
position = [-1.2, -0.35, 1.1]
radius = 0.4
width = 0.2
mass = 50.0
[[vehicles.wheels]]
position = [1.2, -0.35, -1.1]
radius = 0.4
width = 0.2
mass = 50.0
[[vehicles.wheels]]
position = [-1.2, -0.35, -1.1]
radius = 0.4
width = 0.2
mass = 50.0

[[vehicles.launchers]]
projectile_independent_durability = true
[[vehicles.launchers.parts]]
shape = "ball"
radius = 0.1
mass = 4.0
position = [1.5, 0.5, -0.2]
[[vehicles.launchers.parts]]
shape = "ball"
radius = 0.1
mass = 4.0
position = [1.5, 0.5, 0.2]

[[launches]]
time = 0.5
vehicle = 0
impulse = [80.0, 0.0, 0.0]
"#;

fn invalid(text: &str) -> (String, String) {
    match ScenarioFile::parse(text) {
        Err(ScenarioFileError::Invalid { field, problem }) => (field, problem),
        other => panic!("expected an invalid field, got {other:?}"),
    }
}

#[test]
fn a_vehicle_file_parses_builds_and_runs_its_launch() {
    let file = ScenarioFile::parse(CAR).unwrap();
    assert_eq!(file.vehicles.len(), 1);
    assert!(file.vehicles[0].launchers[0].independent_durability);
    let built = build(&file, Path::new("."), &mut |_| {}).unwrap();
    let s = &built.scenario;
    assert_eq!(s.vehicles[0].hold, HoldDesign::Colliders);
    assert_eq!(s.vehicles[0].launchers[0].parts.len(), 2);
    assert!(s.vehicles[0].launchers[0].independent_durability);
    // floor(0.5 s / (1/60 s)) in f32 is 29 (as for projectiles and explosions).
    assert_eq!(s.launches[0].step, 29);
    assert_eq!(s.launches[0].projectile, None);
    assert_eq!(
        s.substep,
        Some(smithereens_rapier::SubstepSettings::default())
    );
    let (record, summary) = run(s, &mut |_, _| {}).unwrap();
    assert_eq!(summary.launches, 1);
    // Chassis + 4 wheels + the wall as plain bodies; the 2 parts held on the chassis.
    assert_eq!(record.plain_bodies.len(), 6);
    assert_eq!(record.held_parts.len(), 2);
    let launched = &record.held_parts[0];
    assert_eq!(launched.released_frame, Some(30));
    assert_eq!(launched.poses.len() as u32, record.frame_count - 30);
    assert_eq!(record.held_parts[1].released_frame, None);
    // The round trip of the schema.
    assert_eq!(ScenarioFile::parse(&file.to_toml().unwrap()).unwrap(), file);
}

#[test]
fn bad_part_masses_are_refused_naming_the_part() {
    for mass in ["0.0", "-4.0", "nan", "inf"] {
        let text = CAR.replacen("mass = 4.0", &format!("mass = {mass}"), 2);
        let text = text.replacen(&format!("mass = {mass}"), "mass = 4.0", 1);
        let (field, problem) = invalid(&text);
        assert_eq!(field, "vehicles[0].launchers[0].parts[1].mass", "{mass}");
        assert!(problem.contains("positive and finite"), "{problem}");
    }
    // Finite but beyond what the solver moves correctly (new-user finding:
    // 1e-30 kg ignored its launch impulse, 1e30 kg hung in the air).
    for mass in ["1e-30", "0.0009", "1e30", "100001.0"] {
        let text = CAR.replacen("mass = 4.0", &format!("mass = {mass}"), 1);
        let (field, problem) = invalid(&text);
        assert_eq!(field, "vehicles[0].launchers[0].parts[0].mass", "{mass}");
        assert!(problem.contains("0.001 to 100000 kg"), "{problem}");
    }
    for mass in ["0.001", "100000.0"] {
        let text = CAR.replacen("mass = 4.0", &format!("mass = {mass}"), 1);
        assert!(ScenarioFile::parse(&text).is_ok(), "{mass}");
    }
}

#[test]
fn two_launchers_on_one_weapon_part_are_refused() {
    // Holding colliders are owned by (vehicle, weapon part, projectile): a
    // shared weapon index would make that ambiguous (new-user finding).
    let second = "\n[[vehicles.launchers]]\n[[vehicles.launchers.parts]]\nshape = \"ball\"\nradius = 0.1\nmass = 4.0\nposition = [-1.5, 0.5, 0.0]\n";
    let at = CAR.find("\n[[launches]]").unwrap();
    let text = format!("{}{second}{}", &CAR[..at], &CAR[at..]);
    let (field, problem) = invalid(&text);
    assert_eq!(field, "vehicles[0].launchers[1].weapon");
    assert!(problem.contains("launchers[0]"), "{problem}");
    let own = second.replace(
        "[[vehicles.launchers]]\n",
        "[[vehicles.launchers]]\nweapon = 1\n",
    );
    assert!(ScenarioFile::parse(&format!("{}{own}{}", &CAR[..at], &CAR[at..])).is_ok());
}

#[test]
fn a_run_built_in_code_with_two_launchers_on_one_weapon_is_refused_before_the_world_is_built() {
    // The library's own check (a run assembled without a scenario file):
    // `VehicleDesc::validate` refuses it before any body is inserted.
    let built = build(
        &ScenarioFile::parse(CAR).unwrap(),
        Path::new("."),
        &mut |_| {},
    )
    .unwrap();
    let mut scenario = built.scenario.clone();
    let again = scenario.vehicles[0].launchers[0].clone();
    scenario.vehicles[0].launchers.push(again);
    scenario.launches.clear();
    match run(&scenario, &mut |_, _| {}) {
        Err(RunError::Vehicle {
            vehicle: 0,
            source:
                VehicleError::Launcher {
                    launcher: 1,
                    source: HeldError::WeaponTaken { weapon: 0, .. },
                },
        }) => {}
        other => panic!("expected WeaponTaken, got {:?}", other.map(|r| r.1)),
    }
}

#[test]
fn more_launches_than_parts_are_refused_before_the_run() {
    // The car's launcher holds two parts; a third launch could never fire.
    let extra = "\n[[launches]]\ntime = 0.6\nvehicle = 0\nimpulse = [80.0, 0.0, 0.0]\n";
    let two = format!("{CAR}{extra}");
    assert!(ScenarioFile::parse(&two).is_ok());
    let (field, problem) = invalid(&format!("{two}{extra}"));
    assert_eq!(field, "launches[2].launcher");
    assert!(problem.contains("holds 2 parts"), "{problem}");
}

#[test]
fn a_part_far_from_its_vehicle_is_refused() {
    let text = CAR.replacen(
        "position = [1.5, 0.5, -0.2]",
        "position = [60.0, 0.5, -0.2]",
        1,
    );
    let (field, problem) = invalid(&text);
    assert_eq!(field, "vehicles[0].launchers[0].parts[0].position");
    assert!(problem.contains("limit 50 m"), "{problem}");
}

#[test]
fn launches_out_of_range_or_twice_are_refused_naming_the_launch() {
    let cases = [
        (
            "vehicle = 0\nimpulse",
            "vehicle = 3\nimpulse",
            "launches[0].vehicle",
        ),
        (
            "vehicle = 0\nimpulse",
            "vehicle = 0\nlauncher = 1\nimpulse",
            "launches[0].launcher",
        ),
        (
            "vehicle = 0\nimpulse",
            "vehicle = 0\nprojectile = 2\nimpulse",
            "launches[0].projectile",
        ),
        (
            "time = 0.5\nvehicle",
            "time = 1.5\nvehicle",
            "launches[0].time",
        ),
        (
            "impulse = [80.0, 0.0, 0.0]",
            "impulse = [1e6, 0.0, 0.0]",
            "launches[0].impulse",
        ),
    ];
    for (from, to, expected) in cases {
        let (field, problem) = invalid(&CAR.replacen(from, to, 1));
        assert_eq!(field, expected, "{problem}");
    }
    let twice = format!(
        "{}\n[[launches]]\ntime = 0.6\nvehicle = 0\nprojectile = 1\nimpulse = [80.0, 0.0, 0.0]\n",
        CAR.replacen(
            "vehicle = 0\nimpulse",
            "vehicle = 0\nprojectile = 1\nimpulse",
            1
        )
    );
    let (field, problem) = invalid(&twice);
    assert_eq!(field, "launches[1].projectile");
    assert!(
        problem.contains("already launched by launches[0]"),
        "{problem}"
    );
}

#[test]
fn bad_stepper_settings_are_refused_naming_the_key() {
    for (key, value) in [
        ("tolerance", "0.0"),
        ("tolerance", "-0.0001"),
        ("tolerance", "nan"),
        ("stall_frames", "0"),
        ("max_trials", "0"),
        ("max_depth", "17"),
    ] {
        let text = CAR.replacen("[substep]", &format!("[substep]\n{key} = {value}"), 1);
        let (field, _) = invalid(&text);
        assert_eq!(field, format!("substep.{key}"), "{value}");
    }
    let both = CAR.replacen("[substep]", "resolve_breaks = true\n[substep]", 1);
    assert_eq!(invalid(&both).0, "substep");
}

#[test]
fn other_bad_vehicle_values_name_their_field() {
    let cases = [
        ("mass = 1200.0", "mass = -1.0", "vehicles[0].mass"),
        (
            "size = [3.6, 0.6, 1.8]",
            "size = [3.6, 0.0, 1.8]",
            "vehicles[0].size[1]",
        ),
        (
            "drive = [2000.0, 0.0, 0.0]",
            "drive = [nan, 0.0, 0.0]",
            "vehicles[0].drive",
        ),
        (
            "drive = [2000.0, 0.0, 0.0]",
            "hold = \"glue\"",
            "vehicles[0].hold",
        ),
        ("drive = [2000.0, 0.0, 0.0]", "like = 0", "vehicles[0].like"),
        (
            "drive = [2000.0, 0.0, 0.0]",
            "brake = -5.0",
            "vehicles[0].brake",
        ),
        (
            "width = 0.2\nmass = 50.0",
            "width = 0.2\nmass = 0.0",
            "vehicles[0].wheels[0].mass",
        ),
        (
            "radius = 0.4",
            "radius = nan",
            "vehicles[0].wheels[0].radius",
        ),
        (
            "shape = \"ball\"",
            "shape = \"cone\"",
            "vehicles[0].launchers[0].parts[0].shape",
        ),
        (
            "radius = 0.1\nmass = 4.0",
            "radius = 0.1\nlength = 0.5\nmass = 4.0",
            "vehicles[0].launchers[0].parts[0].length",
        ),
    ];
    for (from, to, expected) in cases {
        let (field, problem) = invalid(&CAR.replacen(from, to, 1));
        assert_eq!(field, expected, "{to}: {problem}");
    }
    // A part's material names the value it got (new-user finding: a NaN
    // restitution read only "must be in [0, 1]").
    for (to, field, got) in [
        ("restitution = nan", "restitution", "got NaN"),
        ("restitution = 1.5", "restitution", "got 1.5"),
        ("friction = -1.0", "friction", "got -1"),
    ] {
        let text = CAR.replacen("mass = 4.0\n", &format!("mass = 4.0\n{to}\n"), 1);
        let (f, problem) = invalid(&text);
        assert_eq!(f, format!("vehicles[0].launchers[0].parts[0].{field}"));
        assert!(problem.contains(got), "{problem}");
    }
}

#[test]
fn launching_a_part_that_broke_is_a_typed_error_at_its_step() {
    // The built-in's scraper (vehicle 7) loses its parts to the wall in the
    // first 4 s; a launch of its part 0 at 8 s finds it broken, and a
    // launch of the next ready part finds none left.
    let mut file = ScenarioFile::parse(builtin("wall-push").unwrap()).unwrap();
    file.vehicles = vec![file.vehicles[7].clone()];
    let launch = |projectile| LaunchSpec {
        time: 8.0,
        vehicle: 0,
        launcher: 0,
        projectile,
        impulse: [50.0, 0.0, 0.0],
    };
    for (projectile, expected) in [
        (Some(0), HeldError::Broken(0)),
        (
            None,
            HeldError::NoAmmunition(smithereens_rapier::LauncherId(0)),
        ),
    ] {
        file.launches = vec![launch(projectile)];
        let built = build(&file, Path::new("."), &mut |_| {}).unwrap();
        match run(&built.scenario, &mut |_, _| {}) {
            Err(
                e @ RunError::Launch {
                    launch,
                    vehicle,
                    launcher,
                    step,
                    ..
                },
            ) => {
                assert_eq!((launch, vehicle, launcher, step), (0, 0, 0, 479));
                let source = std::error::Error::source(&e).unwrap().to_string();
                assert_eq!(source, expected.to_string());
                // The message names the launch; its cause comes once, from
                // the source chain (it used to be printed twice).
                assert_eq!(
                    e.to_string(),
                    "launches[0] (vehicle 0, launcher 0) at step 479"
                );
                let RunError::Launch { source, .. } = e else {
                    unreachable!()
                };
                assert_eq!(source, expected);
            }
            other => panic!("expected a refused launch, got {:?}", other.map(|r| r.1)),
        }
    }
}

#[test]
fn a_ground_beyond_the_placement_range_is_refused_naming_ground_y() {
    // Finite but far: the placement check downstream used to report it as
    // "placement translation = inf" without naming the field.
    for y in ["-1e30", "2e6"] {
        let (field, problem) = invalid(&format!("ground_y = {y}\n{CAR}"));
        assert_eq!(field, "ground_y", "{y}");
        assert!(problem.contains("within 1e6 m"), "{problem}");
    }
    assert!(ScenarioFile::parse(&format!("ground_y = -999999.0\n{CAR}")).is_ok());
}
