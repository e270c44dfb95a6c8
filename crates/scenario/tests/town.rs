//! The built-in `town`: 37 destructible instances on one ground, a kinematic
//! pusher, balls and a blast. The pusher alone breaks at least 10 of the
//! instances in its path; nothing falls through the ground or turns NaN; and
//! two runs give the same hash on every frame.

use smithereens_rapier::recorded_run::{RunBodyKind, run};
use smithereens_scenario::{ScenarioFile, build, builtin};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// Instances standing free in the pusher's path (the first entries of the file).
const ROW: usize = 15;

fn town() -> smithereens_scenario::BuiltScenario {
    let file =
        ScenarioFile::parse(builtin("town").expect("town is a built-in")).expect("town parses");
    build(&file, Path::new("."), &mut |_| {}).expect("town builds")
}

#[test]
fn the_town_holds_37_instances_of_5_shared_assets_and_a_kinematic_pusher() {
    let built = town();
    let s = &built.scenario;
    assert_eq!(s.instances.len(), 37);
    let mut distinct: Vec<&Arc<smithereens_core::AssetFile>> = Vec::new();
    for i in &s.instances {
        if !distinct.iter().any(|d| Arc::ptr_eq(d, &i.asset)) {
            distinct.push(&i.asset);
        }
    }
    assert_eq!(distinct.len(), 5, "fracture once, place many");
    for d in &distinct {
        let n = d.desc.chunks.len();
        assert!((8..=40).contains(&n), "an asset has {n} chunks");
    }
    assert_eq!(s.bodies.len(), 1);
    assert_eq!(s.bodies[0].kind, RunBodyKind::Kinematic);
    assert_eq!(s.bodies[0].velocity.x, 8.0);
    // Every instance stands on the ground: its lowest hull point at y = 0.
    for (k, i) in s.instances.iter().enumerate() {
        let lowest = i
            .asset
            .desc
            .chunks
            .iter()
            .flat_map(|c| c.hulls.iter().flat_map(|h| &h.points))
            .map(|p| i.placement.transform_point(*p).y)
            .fold(f32::INFINITY, f32::min);
        assert!(lowest.abs() < 1e-4, "instance {k} lowest point at {lowest}");
    }
}

#[test]
fn the_pusher_alone_breaks_at_least_10_instances_and_nothing_sinks() {
    let mut s = town().scenario;
    s.projectiles.clear();
    s.explosions.clear();
    let t = Instant::now();
    let (record, summary) = run(&s, &mut |_, _| {}).unwrap();
    let seconds = t.elapsed().as_secs_f64();
    // Broken instances in the row, from the record: which instance each bond is in.
    let mut bond_instance = Vec::new();
    for (k, i) in s.instances.iter().enumerate() {
        bond_instance.extend(std::iter::repeat_n(k, i.asset.desc.bonds.len()));
    }
    assert_eq!(bond_instance.len(), record.bonds.len());
    let mut broken = vec![false; s.instances.len()];
    for b in &record.breaks {
        broken[bond_instance[b.bond as usize]] = true;
    }
    let row_broken = broken[..ROW].iter().filter(|&&b| b).count();
    eprintln!(
        "town, pusher only: {} instances, {} chunks, {} broken ({} in the row), {} bonds broken, lowest {} m, max speed {} m/s, {:.2} s",
        summary.instances,
        summary.chunks,
        summary.instances_broken,
        row_broken,
        summary.bonds_broken,
        summary.lowest_chunk_y_ever,
        summary.max_speed,
        seconds
    );
    assert_eq!(
        summary.instances_broken,
        broken.iter().filter(|&&b| b).count()
    );
    assert!(row_broken >= 10, "the pusher broke {row_broken} instances");
    assert_eq!(summary.non_finite_steps, 0);
    assert!(
        summary.lowest_chunk_y_ever >= -0.05,
        "a chunk reached y = {}",
        summary.lowest_chunk_y_ever
    );
    // The pusher kept its speed and went down the street: ~4 s at 8 m/s.
    let pusher = &record.plain_bodies[0];
    assert_eq!(pusher.poses.len(), record.frame_count as usize);
    let end = pusher.poses.last().unwrap();
    let expected = -10.0 + 8.0 * s.steps as f32 * s.settings.timestep;
    assert!(
        (end[0] - expected).abs() < 0.01,
        "pusher at x = {}, not {expected}",
        end[0]
    );
    assert!(end[0] > 21.9, "the pusher went through the whole row");
}

#[test]
fn the_whole_town_runs_the_same_twice_and_breaks_more_than_the_pusher_alone() {
    let s = town().scenario;
    let t = Instant::now();
    let (a, sa) = run(&s, &mut |_, _| {}).unwrap();
    let seconds = t.elapsed().as_secs_f64();
    let (b, sb) = run(&s, &mut |_, _| {}).unwrap();
    eprintln!(
        "town: {} instances, {} assets, {} chunks, {} bonds, {} instances broken, {} bonds broken, {} bodies at the end ({} dynamic), lowest {} m, max speed {} m/s, step median {:.1} ms worst {:.1} ms, {:.2} s",
        sa.instances,
        sa.assets,
        sa.chunks,
        sa.bonds,
        sa.instances_broken,
        sa.bonds_broken,
        sa.islands,
        sa.dynamic_bodies,
        sa.lowest_chunk_y_ever,
        sa.max_speed,
        sa.step_median_seconds * 1e3,
        sa.step_worst_seconds * 1e3,
        seconds
    );
    assert_eq!(a.frame_hashes, b.frame_hashes);
    assert_eq!(sa.final_hash, sb.final_hash);
    assert_eq!(a.frame_count, s.steps + 1);
    assert_eq!(sa.instances, 37);
    assert_eq!(sa.assets, 5);
    assert!(
        sa.instances_broken >= 12,
        "{} instances broken",
        sa.instances_broken
    );
    assert_eq!(sa.non_finite_steps, 0);
    assert!(
        sa.lowest_chunk_y_ever >= -0.05,
        "lowest {}",
        sa.lowest_chunk_y_ever
    );
    // The record reads back, and every chunk has exactly one body each frame.
    let back = smithereens_core::record::RunRecord::from_json(&a.to_json()).unwrap();
    assert_eq!(back, a);
    assert_eq!(a.chunks.len(), sa.chunks);
}
