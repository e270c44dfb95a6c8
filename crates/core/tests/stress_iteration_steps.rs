//! An iteration of a sliced solve is taken in steps (its update, then its
//! preconditioning's; `stress/solver/iteration_steps.rs`), and a call cut
//! inside one leaves the iteration's start in the progress while the
//! solver keeps what the iteration made. These are the cases a fresh-eyes
//! fuzzer found where keeping it changed a call: a progress moved between
//! solvers, an update whose check with the bond forces failed, and a
//! progress decoded from damaged bytes at the iteration limit.
//!
//! The structure is the 24 × 12 × 2 wall with a gap of
//! `tests/stress_switch_slices.rs` (576 chunks), at full resolution and
//! reduced, under the tightest limit (one step a call).
#![allow(clippy::unwrap_used)]

use smithereens_core::fixtures::{refining_material, refining_wall};
use smithereens_core::glam::Vec3;
use smithereens_core::stress::{
    SolveProgress, StressLoads, StressMaterials, StressReport, StressSettings, StressSolver,
};
use smithereens_core::*;

const GRAVITY: StressLoads<'static> = StressLoads {
    gravity: Vec3::new(0.0, -9.81, 0.0),
    point_loads: &[],
    angular_velocity: Vec3::ZERO,
};

fn solver(asset: &Asset, settings: StressSettings) -> StressSolver {
    StressSolver::new(
        asset,
        settings,
        StressMaterials::uniform(refining_material()),
    )
    .unwrap()
}

/// Calls under the tightest limit until the progress is cut right after
/// an iteration's update (stage 9).
fn to_update(
    s: &mut StressSolver,
    asset: &Asset,
    nodes: &[ChunkIndex],
    health: &[f32],
    p: &mut Option<SolveProgress>,
) {
    loop {
        s.solve_within(asset, nodes, health, &GRAVITY, 1, p)
            .unwrap();
        let stage = p.as_ref().map(|p| p.reduced_round().1);
        assert!(stage.is_some(), "the solve ended before an update's cut");
        if stage == Some(9) {
            return;
        }
    }
}

/// A solver of the refining wall with `reduce_above` (a generous
/// iteration cap), and its progress cut right after an update.
fn cut_after_update(
    asset: &Asset,
    nodes: &[ChunkIndex],
    health: &[f32],
    reduce_above: u32,
) -> (StressSettings, StressSolver, Option<SolveProgress>) {
    let settings = StressSettings {
        max_iterations: 10_000,
        reduce_above,
        ..Default::default()
    };
    let mut s = solver(asset, settings);
    let mut p = None;
    to_update(&mut s, asset, nodes, health, &mut p);
    (settings, s, p)
}

/// The reports of the calls that finish a progress under the tightest
/// limit, and the bond results.
fn finish(
    s: &mut StressSolver,
    asset: &Asset,
    nodes: &[ChunkIndex],
    health: &[f32],
    p: &mut Option<SolveProgress>,
) -> (Vec<StressReport>, String) {
    let mut reports = Vec::new();
    while p.is_some() {
        reports.push(
            s.solve_within(asset, nodes, health, &GRAVITY, 1, p)
                .unwrap(),
        );
        assert!(reports.len() < 10_000);
    }
    (reports, format!("{:?}", s.bond_stresses()))
}

/// A progress cut after an update by solver A, then resumed on solver B
/// after B itself cut the same cluster after an update, continues as the
/// same progress read back from bytes does on a new solver. Tokens
/// counted per solver gave both cuts token 1, and B handed the progress
/// the update it kept for its own, a later iteration (first call's
/// residual 3.14 instead of 10.79 at full resolution).
#[test]
fn a_progress_moved_to_another_solver_takes_nothing_that_solver_kept() {
    let (asset, health) = refining_wall().unwrap();
    let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    for reduce_above in [0, 100] {
        let (settings, a, mut p) = cut_after_update(&asset, &nodes, &health, reduce_above);
        let kept = p.clone();
        let (u, t) = {
            let (u, t) = a.warm_start();
            (u.to_vec(), t.to_vec())
        };
        let expected = {
            let mut c = solver(&asset, settings);
            c.set_warm_start(&u, &t).unwrap();
            let bytes = postcard::to_stdvec(&kept).unwrap();
            let mut q: Option<SolveProgress> = postcard::from_bytes(&bytes).unwrap();
            finish(&mut c, &asset, &nodes, &health, &mut q)
        };
        let mut b = solver(&asset, settings);
        b.set_warm_start(&u, &t).unwrap();
        b.solve_within(&asset, &nodes, &health, &GRAVITY, 1, &mut p)
            .unwrap();
        to_update(&mut b, &asset, &nodes, &health, &mut p);
        let mut q = kept;
        let got = finish(&mut b, &asset, &nodes, &health, &mut q);
        assert_eq!(
            format!("{:?}", got.0),
            format!("{:?}", expected.0),
            "{reduce_above}: the calls differ"
        );
        assert!(
            got.1 == expected.1,
            "{reduce_above}: the bond results differ"
        );
    }
}

/// When an iteration's update fails its check with the bond forces (the
/// recursive residual within ε, the forces' not) and the call ends after
/// it, the next call on the same solver takes the update back with the
/// check's residual and bond results, and on a solver told its settings
/// again takes both again: either way they stand as in one call, and when
/// the iteration limit ends the solve there, no call evaluates again.
/// (Kept without its check, the last call charged an evaluation, 2 passes
/// per bond, that the call taking it again did not: found by a fuzzer.)
/// Every call is the same either way, and the solve ends as one call does.
#[test]
fn an_update_whose_check_failed_is_kept_with_its_check() {
    let (asset, health) = refining_wall().unwrap();
    let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    // Where the fuzzer found it, and around.
    let cases = [(0, 24), (0, 23), (0, 25), (100, 27), (100, 26), (100, 28)];
    for (reduce_above, max_iterations) in cases {
        let settings = StressSettings {
            max_iterations,
            epsilon: 1e-6,
            reduce_above,
            ..Default::default()
        };
        let run = |meddle: bool| {
            let mut s = solver(&asset, settings);
            let mut p = None;
            let mut reports = Vec::new();
            loop {
                reports.push(
                    s.solve_within(&asset, &nodes, &health, &GRAVITY, 1, &mut p)
                        .unwrap(),
                );
                if p.is_none() {
                    return (reports, format!("{:?}", s.bond_stresses()));
                }
                if meddle {
                    s.set_settings(settings).unwrap();
                }
            }
        };
        let (kept, kept_bonds) = run(false);
        let (again, again_bonds) = run(true);
        assert_eq!(
            format!("{kept:?}"),
            format!("{again:?}"),
            "{reduce_above}, {max_iterations}: the calls differ"
        );
        assert!(kept_bonds == again_bonds);
        let mut whole = solver(&asset, settings);
        let one = whole.solve(&asset, &nodes, &health, &GRAVITY).unwrap();
        let last = kept.last().unwrap();
        assert_eq!(last.residual.to_bits(), one.residual.to_bits());
        assert_eq!(
            kept.iter().map(|r| r.iterations).sum::<u32>(),
            one.iterations
        );
        assert!(kept_bonds == format!("{:?}", whole.bond_stresses()));
    }
}

/// A progress read back from damaged bytes, cut after an update, whose
/// iteration count is the largest there is: the call that resumes it
/// counts the update without overflowing (a panic in a build with
/// overflow checks; in release it wrapped to 0 and allowed another
/// `max_iterations`), finds the limit reached and ends the solve.
#[test]
fn a_damaged_progress_at_the_largest_count_ends_at_the_limit() {
    let (asset, health) = refining_wall().unwrap();
    let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    for reduce_above in [0, 100] {
        let (settings, _, p) = cut_after_update(&asset, &nodes, &health, reduce_above);
        let mut v = serde_json::to_value(&p).unwrap();
        v["cg"]["iterations"] = serde_json::json!(u32::MAX);
        let mut q: Option<SolveProgress> = serde_json::from_value(v).unwrap();
        let mut b = solver(&asset, settings);
        let r = b
            .solve_within(&asset, &nodes, &health, &GRAVITY, u64::MAX, &mut q)
            .unwrap();
        assert!(q.is_none(), "{reduce_above}: {r:?}");
        assert_eq!(r.iterations, 0, "{reduce_above}: {r:?}");
    }
}

/// A progress read back from damaged bytes that says two steps of the
/// preconditioning were taken (stage 11) on a system whose cycle is one
/// step (the reduced wall's, assembled) takes the preconditioning whole:
/// it goes on as the undamaged progress cut right after the update does,
/// instead of iterating on with no preconditioning (a zero `z`).
#[test]
fn a_damaged_stage_past_the_cycle_takes_the_preconditioning_whole() {
    let (asset, health) = refining_wall().unwrap();
    let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    let (settings, a, p) = cut_after_update(&asset, &nodes, &health, 100);
    let (u, t) = {
        let (u, t) = a.warm_start();
        (u.to_vec(), t.to_vec())
    };
    let go_on = |p: Option<SolveProgress>| {
        let mut s = solver(&asset, settings);
        s.set_warm_start(&u, &t).unwrap();
        let mut p = p;
        let r = s
            .solve_within(&asset, &nodes, &health, &GRAVITY, u64::MAX, &mut p)
            .unwrap();
        assert!(p.is_none() && r.converged, "{r:?}");
        (r, format!("{:?}", s.bond_stresses()))
    };
    // Both through the same JSON (which may round an f64: then both
    // restart alike), one with its stage edited.
    let v = serde_json::to_value(&p).unwrap();
    assert_eq!(v["place"]["stage"], "Updated");
    let undamaged: Option<SolveProgress> = serde_json::from_value(v.clone()).unwrap();
    let mut v = v;
    v["place"]["stage"] = serde_json::json!("Coarsened");
    let damaged: Option<SolveProgress> = serde_json::from_value(v).unwrap();
    assert_eq!(damaged.as_ref().map(|p| p.reduced_round().1), Some(11));
    let (want, want_bonds) = go_on(undamaged);
    let (got, got_bonds) = go_on(damaged);
    assert_eq!(got, want);
    assert!(got_bonds == want_bonds);
}
