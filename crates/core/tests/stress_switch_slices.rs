//! A full solve's switch from the spanning-forest preconditioner to the
//! multilevel hierarchy (after `FOREST_TRIAL` iterations) is taken in steps
//! under a work limit, as a reduced round's setup is: the hierarchy's build
//! in its five pieces, each a step a call may end before, then the
//! first preconditioning with it, a step too. Built in one call it took
//! 14 ms on the 100 × 50 × 2 wall after a break
//! (`examples/stress_slices.rs`). Each
//! piece is charged whether or not the solver still holds what an earlier
//! call built, so the calls are the same when the solver solves another
//! cluster between them (which drops a build under way), and the sliced
//! solve ends with the bond results of one unlimited call, bit for bit.
//!
//! The structure is the 24 × 12 × 2 wall with a gap of
//! `tests/stress_reduced_slices.rs` (576 chunks, 1,368 bonds), solved at
//! full resolution.
#![allow(clippy::unwrap_used)]

use smithereens_core::fixtures::{refining_material, refining_wall};
use smithereens_core::glam::Vec3;
use smithereens_core::stress::solver::{
    HIERARCHY_BUILD_PASSES, MULTILEVEL_ITERATION_PASSES, MULTILEVEL_UPDATE_PASSES,
};
use smithereens_core::stress::{
    BondStress, SolveProgress, StressLoads, StressMaterials, StressReport, StressSettings,
    StressSolver,
};
use smithereens_core::*;

const GRAVITY: StressLoads<'static> = StressLoads {
    gravity: Vec3::new(0.0, -9.81, 0.0),
    point_loads: &[],
    angular_velocity: Vec3::ZERO,
};

fn solver(asset: &Asset) -> StressSolver {
    let settings = StressSettings {
        max_iterations: 10_000,
        reduce_above: 0,
        ..Default::default()
    };
    StressSolver::new(
        asset,
        settings,
        StressMaterials::uniform(refining_material()),
    )
    .unwrap()
}

/// One call's report and the progress's place after it (round, stage code,
/// refined chunks; `None` once done).
type Call = (StressReport, Option<(u32, u8, usize)>);

/// What happens between two calls of a sliced solve.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Meddle {
    None,
    /// The solver solves another cluster (the wall's bottom row) in one
    /// call.
    OtherCluster,
    /// The next call is on a new solver, given the warm start and the
    /// progress sent through postcard (as a restored snapshot would be):
    /// it holds nothing of the build, and the progress keeps its stage.
    NewSolver,
}

/// The wall's solve in calls of `work` passes, meddled with between any
/// two. The calls, the bond results of the last.
fn sliced(work: u64, meddle: Meddle) -> (Vec<Call>, Vec<BondStress>) {
    let (asset, health) = refining_wall().unwrap();
    let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    let row: Vec<ChunkIndex> = nodes
        .iter()
        .copied()
        .filter(|&c| asset.chunks()[c].centroid.y < 0.5)
        .collect();
    assert!(!row.is_empty() && row.len() < nodes.len());
    let mut s = solver(&asset);
    let mut progress: Option<SolveProgress> = None;
    let mut calls = Vec::new();
    for _ in 0..10_000 {
        let r = s
            .solve_within(&asset, &nodes, &health, &GRAVITY, work, &mut progress)
            .unwrap();
        calls.push((r, progress.as_ref().map(SolveProgress::reduced_round)));
        if progress.is_none() {
            return (calls, s.bond_stresses().to_vec());
        }
        assert!(s.bond_stresses().is_empty(), "a cut reports no bonds");
        match meddle {
            Meddle::None => {}
            Meddle::OtherCluster => {
                s.solve(&asset, &row, &health, &GRAVITY).unwrap();
            }
            Meddle::NewSolver => {
                let (u, t) = s.warm_start();
                let (u, t) = (u.to_vec(), t.to_vec());
                s = solver(&asset);
                s.set_warm_start(&u, &t).unwrap();
                let bytes = postcard::to_stdvec(&progress).unwrap();
                progress = postcard::from_bytes(&bytes).unwrap();
            }
        }
    }
    panic!("the sliced solve did not finish");
}

fn one_call() -> (StressReport, Vec<BondStress>) {
    let (asset, health) = refining_wall().unwrap();
    let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    let mut s = solver(&asset);
    let r = s.solve(&asset, &nodes, &health, &GRAVITY).unwrap();
    (r, s.bond_stresses().to_vec())
}

#[test]
fn the_switch_to_the_hierarchy_is_taken_one_piece_per_call_under_the_tightest_limit() {
    let (whole, bonds) = one_call();
    assert!(whole.converged && whole.iterations > 2, "{whole:?}");
    let (calls, sliced_bonds) = sliced(1, Meddle::None);
    // The forest's iteration; the hierarchy's five pieces (stages
    // Started 4, Inverted 6, Smoothed 5, Assembled 7, Preconditioned 3 in
    // the progress, round 0: a full solve's); the first preconditioning
    // with it (the switch done: stage 0 again); then each iteration with
    // it in seven calls: its update (stage 9: the progress holds the
    // iteration's start; the iteration counted) and its preconditioning's
    // six steps (17, 10, 17, 11 and 17 after the first one to five).
    let stages: Vec<Option<u8>> = calls.iter().take(15).map(|c| c.1.map(|p| p.1)).collect();
    let expected = [0, 4, 6, 5, 7, 3, 0, 9, 17, 10, 17, 11, 17, 0, 9].map(Some);
    assert_eq!(stages, expected, "{calls:#?}");
    let iterations: Vec<u32> = calls.iter().take(15).map(|c| c.0.iterations).collect();
    assert_eq!(iterations, [1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1]);
    assert!(
        calls
            .iter()
            .all(|c| c.1.is_none_or(|p| p.0 == 0 && p.2 == 0))
    );
    // The pieces are charged 3, 3, 3, 4 and 3 sixteenths of the build,
    // each call also its gather.
    let (_, health) = refining_wall().unwrap();
    let bonds_in = health.iter().filter(|&&h| h > 0.0).count() as u64;
    let work: Vec<u64> = calls.iter().take(14).map(|c| c.0.work).collect();
    assert_eq!([work[2], work[3], work[5]], [work[1]; 3], "{calls:#?}");
    assert_eq!(work[4] - work[1], HIERARCHY_BUILD_PASSES / 16 * bonds_in);
    // The switch's first preconditioning is charged as an iteration.
    assert_eq!(
        work[6] - work[1],
        (MULTILEVEL_ITERATION_PASSES - HIERARCHY_BUILD_PASSES * 3 / 16) * bonds_in
    );
    // An iteration's update and the six steps of its preconditioning
    // share its charge (the steps in shares of whole passes per bond:
    // 1 each of the 6).
    assert_eq!(
        work[7] + HIERARCHY_BUILD_PASSES * 3 / 16 * bonds_in,
        work[1] + MULTILEVEL_UPDATE_PASSES * bonds_in
    );
    let share = MULTILEVEL_ITERATION_PASSES - MULTILEVEL_UPDATE_PASSES;
    for k in 0..6 {
        let step = (share * (k + 1) / 6 - share * k / 6) * bonds_in;
        assert_eq!(
            work[8 + k as usize] + MULTILEVEL_UPDATE_PASSES * bonds_in,
            work[7] + step,
            "step {k}"
        );
    }
    let last = calls.last().unwrap().0;
    assert!(last.converged);
    assert_eq!(last.residual.to_bits(), whole.residual.to_bits());
    let total: u32 = calls.iter().map(|c| c.0.iterations).sum();
    assert_eq!(total, whole.iterations);
    assert_eq!(format!("{sliced_bonds:?}"), format!("{bonds:?}"));
}

#[test]
fn another_cluster_or_a_new_solver_between_the_pieces_changes_no_call() {
    let (whole, bonds) = one_call();
    for (work, meddle) in [1, 3_000, 20_000]
        .into_iter()
        .flat_map(|w| [(w, Meddle::OtherCluster), (w, Meddle::NewSolver)])
    {
        let (calm, calm_bonds) = sliced(work, Meddle::None);
        let (meddled, meddled_bonds) = sliced(work, meddle);
        assert!(calm.len() > 4, "work {work}: {} calls", calm.len());
        assert_eq!(
            format!("{calm:?}"),
            format!("{meddled:?}"),
            "work {work}, {meddle:?}: the calls differ"
        );
        assert_eq!(format!("{calm_bonds:?}"), format!("{bonds:?}"));
        assert_eq!(format!("{meddled_bonds:?}"), format!("{bonds:?}"));
        let total: u32 = calm.iter().map(|c| c.0.iterations).sum();
        assert_eq!(total, whole.iterations, "work {work}");
    }
}

/// A progress decoded from damaged bytes that holds more forest iterations
/// than the trial (`FOREST_TRIAL`, 1) still switches to the hierarchy: the
/// solve converges. (It went on with the forest alone before, which on
/// this wall diverged to a residual of 1e13–1e15 over 9,993 iterations;
/// found by a fuzzer editing `cg.iterations` in serde_json.)
#[test]
fn a_progress_past_the_forest_trial_still_switches() {
    let (asset, health) = refining_wall().unwrap();
    let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    for calls in 1..=4 {
        let mut s = solver(&asset);
        let mut progress: Option<SolveProgress> = None;
        for _ in 0..calls {
            s.solve_within(&asset, &nodes, &health, &GRAVITY, 1, &mut progress)
                .unwrap();
        }
        let mut bytes = serde_json::to_value(progress.as_ref().unwrap()).unwrap();
        assert_eq!(bytes["cg"]["multilevel"], serde_json::json!(false));
        bytes["cg"]["iterations"] = serde_json::json!(7);
        let mut damaged: Option<SolveProgress> = Some(serde_json::from_value(bytes).unwrap());
        let r = s
            .solve_within(&asset, &nodes, &health, &GRAVITY, u64::MAX, &mut damaged)
            .unwrap();
        assert!(
            r.converged && damaged.is_none(),
            "after {calls} calls: {r:?}"
        );
        assert!(r.iterations < 200, "after {calls} calls: {r:?}");
    }
}
