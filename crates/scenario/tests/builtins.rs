//! Built-in scenarios: they parse, build from real fracture output, and run
//! 600 steps under the safe defaults without anything falling through the
//! ground, running away or turning NaN.

use smithereens_rapier::recorded_run::run;
use smithereens_scenario::{BUILTINS, ScenarioFile, ScenarioFileError, build, builtin};
use std::path::Path;

/// Bound on any body's speed under the defaults: the fastest projectile in the
/// built-ins flies at 30 m/s, blasts and falls add a few m/s.
const SPEED_BOUND: f32 = 60.0;

#[test]
fn every_builtin_runs_600_steps_within_the_safe_bounds() {
    for (name, text) in BUILTINS {
        let mut file = ScenarioFile::parse(text).unwrap();
        file.duration = 600.0 * file.timestep;
        let built = build(&file, Path::new("."), &mut |_| {}).unwrap();
        assert_eq!(built.scenario.steps, 600);
        let (record, summary) = run(&built.scenario, &mut |_, _| {}).unwrap();
        assert_eq!(summary.non_finite_steps, 0, "{name}: NaN state");
        // Contacts are soft: a 1.2 t bridge piece landing at 7.7 m/s dents the
        // ground by ~4 cm for a few steps before it is pushed out. Falling
        // through would be metres; 5 cm bounds a transient dent, and at the
        // end every chunk must be back within 2 cm.
        assert!(
            summary.lowest_chunk_y_ever > -0.05,
            "{name}: a chunk reached y = {}",
            summary.lowest_chunk_y_ever
        );
        assert!(
            summary.lowest_chunk_y > -0.02,
            "{name}: a chunk ends the run at y = {}",
            summary.lowest_chunk_y
        );
        assert!(
            summary.max_speed < SPEED_BOUND,
            "{name}: a body reached {} m/s",
            summary.max_speed
        );
        assert!(summary.bonds_broken > 0, "{name}: nothing broke");
        assert!(summary.dynamic_bodies > 0, "{name}: nothing fell");
        assert_eq!(record.frame_count, 601);
    }
}

#[test]
fn the_bridge_is_held_at_both_ends_until_the_blast_cuts_it() {
    let file = ScenarioFile::parse(builtin("bridge").unwrap()).unwrap();
    let built = build(&file, Path::new("."), &mut |_| {}).unwrap();
    let desc = &built.scenario.instances[0].asset.desc;
    let xs: Vec<f32> = desc
        .chunks
        .iter()
        .filter(|c| c.support)
        .map(|c| c.centroid.x)
        .collect();
    assert!(
        xs.iter().any(|&x| x < -4.0) && xs.iter().any(|&x| x > 4.0),
        "supports at both ends: {xs:?}"
    );
    assert!(
        xs.iter().all(|&x| x.abs() > 3.0),
        "no support in the middle of the span"
    );
    let (_, full) = run(&built.scenario, &mut |_, _| {}).unwrap();
    assert!(
        full.lowest_chunk_y_ever < 0.5,
        "pieces of the cut span reach the ground (lowest {} m)",
        full.lowest_chunk_y_ever
    );
    let mut short = built.scenario.clone();
    short.steps = 20; // the blast is at 0.5 s = step 30: nothing falls before it
    let (_, before) = run(&short, &mut |_, _| {}).unwrap();
    assert_eq!(before.dynamic_bodies, 0);
    assert_eq!(before.bonds_broken, 0);
}

#[test]
fn bad_scenario_files_get_typed_errors_naming_the_field() {
    let wall = builtin("wall").unwrap();
    let unknown = format!("{wall}\nfrobnicate = 1\n");
    assert!(matches!(
        ScenarioFile::parse(&unknown),
        Err(ScenarioFileError::Toml(_))
    ));
    let heavy = wall.replace("mass = 450.0", "mass = -450.0");
    match ScenarioFile::parse(&heavy) {
        Err(ScenarioFileError::Invalid { field, .. }) => assert_eq!(field, "projectiles[0].mass"),
        other => panic!("{other:?}"),
    }
    let nan = wall.replace("radius = 0.35", "radius = nan");
    assert!(matches!(
        ScenarioFile::parse(&nan),
        Err(ScenarioFileError::Invalid { .. })
    ));
    let two = format!("{wall}\n[asset.mesh]\npath = \"x.obj\"\nchunks = 4\n");
    assert!(matches!(
        ScenarioFile::parse(&two),
        Err(ScenarioFileError::Invalid { .. })
    ));
    assert!(matches!(
        ScenarioFile::parse("not toml ["),
        Err(ScenarioFileError::Toml(_))
    ));
    let missing = ScenarioFile::parse(
        &wall
            .replace(
                "[asset.box]",
                "[asset.mesh]\npath = \"missing.obj\"\n[asset.unused]",
            )
            .replace("size = [4.0, 2.5, 0.3]\n", ""),
    );
    assert!(missing.is_err());
}

#[test]
fn a_scenario_file_round_trips_through_toml() {
    for (_, text) in BUILTINS {
        let file = ScenarioFile::parse(text).unwrap();
        assert_eq!(ScenarioFile::parse(&file.to_toml().unwrap()).unwrap(), file);
    }
}
