//! Issue 11, item 1: damage grows with the hit. The built-in wall (4 m ×
//! 2.5 m × 0.3 m, 120 Voronoi chunks, 1,500 du/m²) hit at 24 m/s by balls
//! of 45 kg, 450 kg, 4.5 t and 45 t breaks strictly more bonds at each step
//! up (or all of them); a 1 kg ball at 5 m/s breaks none. With the former
//! fixed 0.35 m contact radius, 450 kg and 1e12 kg broke the same 26–27.

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use smithereens_rapier::recorded_run::run;
use smithereens_scenario::{ScenarioFile, build, builtin};
use std::path::Path;

/// Bonds broken by the wall's ball with `mass` kg at `speed` m/s (the
/// first 0.5 s: the hit and its first debris contacts).
fn broken(mass: f32, speed: f32) -> (usize, usize) {
    let mut file = ScenarioFile::parse(builtin("wall").unwrap()).unwrap();
    file.duration = 0.5;
    file.projectiles[0].mass = mass;
    file.projectiles[0].velocity = [0.0, 0.0, speed];
    let built = build(&file, Path::new("."), &mut |_| {}).unwrap();
    let (_, summary) = run(&built.scenario, &mut |_, _| {}).unwrap();
    (summary.bonds_broken, summary.bonds)
}

#[test]
fn heavier_balls_break_strictly_more_of_the_built_in_wall() {
    let counts: Vec<(usize, usize)> = [45.0, 450.0, 4500.0, 45_000.0]
        .iter()
        .map(|&m| broken(m, 24.0))
        .collect();
    eprintln!("wall at 24 m/s, 45 kg … 45 t: {counts:?}");
    for w in counts.windows(2) {
        assert!(
            w[1].0 > w[0].0 || w[1].0 == w[1].1,
            "bonds broken (of all) {counts:?}"
        );
    }
    assert!(counts[0].0 > 0, "{counts:?}");
    assert_eq!(broken(1.0, 5.0).0, 0);
}
