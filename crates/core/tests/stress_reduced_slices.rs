//! The reduced (multi-resolution) solve honours a work limit like the full
//! one: a call stops before a step that would pass the limit (a round's
//! reduction, hierarchy build, start, each iteration; see "Slices" in
//! `stress/solver/reduced.rs`); passing the progress back continues the
//! solve, and the sliced solve ends with the bond results of one unlimited
//! call, bit for bit.
//!
//! The wall is 24 × 12 × 2 cubes of 0.5 m and 300 kg (576 chunks, 1,368
//! bonds) with a 4-column gap in its two bottom rows, reduced above 100
//! free chunks. Its bottom bonds carry about 11 cubes, 11 × 2,943 N over
//! 0.25 m² = 129 kPa, so with a compression elastic limit of 150 kPa the
//! bonds beside the gap pass half their limit and refine the super-nodes
//! around them: the solve takes more than one round.
#![allow(clippy::unwrap_used)]

use smithereens_core::fixtures::{refining_material, refining_wall};
use smithereens_core::glam::Vec3;
use smithereens_core::stress::solver::{
    EVALUATION_PASSES, FOREST_BUILD_PASSES, HIERARCHY_BUILD_PASSES, MULTILEVEL_ITERATION_PASSES,
    STANDARD_GRAVITY, STRUCTURE_PASSES,
};
use smithereens_core::stress::{
    BondStress, Material, PointLoad, SolveProgress, StressLoads, StressMaterials, StressReport,
    StressSettings, StressSolver,
};
use smithereens_core::*;

struct Wall {
    asset: Asset,
    nodes: Vec<ChunkIndex>,
    health: Vec<f32>,
}

fn wall() -> Wall {
    let (asset, health) = refining_wall().unwrap();
    let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    Wall {
        asset,
        nodes,
        health,
    }
}

/// A solver reducing above 100 free chunks, every bond of `material`.
fn solver_of(asset: &Asset, material: Material) -> StressSolver {
    let settings = StressSettings {
        max_iterations: 10_000,
        reduce_above: 100,
        ..Default::default()
    };
    StressSolver::new(asset, settings, StressMaterials::uniform(material)).unwrap()
}

fn solver(asset: &Asset) -> StressSolver {
    solver_of(asset, refining_material())
}

/// The wall under gravity in one unlimited call: its report and bond results.
fn one_call(w: &Wall) -> (StressReport, Vec<BondStress>) {
    let mut one = solver(&w.asset);
    let whole = one.solve(&w.asset, &w.nodes, &w.health, &GRAVITY).unwrap();
    (whole, one.bond_stresses().to_vec())
}

const GRAVITY: StressLoads<'static> = StressLoads {
    gravity: Vec3::new(0.0, -9.81, 0.0),
    point_loads: &[],
    angular_velocity: Vec3::ZERO,
};

/// Slices the solve into calls of `work` passes; the last report, its bond
/// results, and the number of calls.
fn sliced(w: &Wall, work: u64) -> (StressReport, Vec<BondStress>, usize) {
    let mut s = solver(&w.asset);
    let mut progress: Option<SolveProgress> = None;
    let fine_bonds = w.health.iter().filter(|&&h| h > 0.0).count() as u64;
    // A call may overshoot by the gather and one step, the largest being
    // the hierarchy's build (an iteration and the evaluation are less);
    // all are charged on at most the fine bonds.
    const { assert!(HIERARCHY_BUILD_PASSES >= MULTILEVEL_ITERATION_PASSES + EVALUATION_PASSES) };
    let overshoot =
        (1 + STRUCTURE_PASSES + FOREST_BUILD_PASSES + HIERARCHY_BUILD_PASSES) * fine_bonds;
    for calls in 1..100_000 {
        let r = s
            .solve_within(&w.asset, &w.nodes, &w.health, &GRAVITY, work, &mut progress)
            .unwrap();
        assert!(
            r.work <= work.saturating_add(overshoot),
            "call {calls}: {} passes against a limit of {work}",
            r.work
        );
        if progress.is_none() {
            return (r, s.bond_stresses().to_vec(), calls);
        }
        assert!(!r.converged, "{r:?}");
        assert!(s.bond_stresses().is_empty());
    }
    panic!("the sliced solve did not finish");
}

#[test]
fn a_reduced_solve_sliced_by_a_work_limit_gives_the_results_of_one_call() {
    let w = wall();
    let (whole, expected) = one_call(&w);
    assert!(whole.converged, "{whole:?}");
    // Refined: more bonds reported than without refinement (concrete is
    // far from its limits here), whose super-nodes hide the bonds inside.
    let mut strong = solver_of(&w.asset, Material::CONCRETE);
    strong
        .solve(&w.asset, &w.nodes, &w.health, &GRAVITY)
        .unwrap();
    assert!(
        expected.len() > strong.bond_stresses().len(),
        "{} bonds reported, {} without refinement",
        expected.len(),
        strong.bond_stresses().len()
    );
    // From one pass (an iteration per call, every round boundary a cut)
    // to more than the whole solve.
    for work in [1, 5_000, 40_000, 200_000, u64::MAX] {
        let (report, stresses, calls) = sliced(&w, work);
        assert!(report.converged, "work {work}: {report:?}");
        assert_eq!(
            report.residual.to_bits(),
            whole.residual.to_bits(),
            "work {work}"
        );
        assert_eq!(stresses, expected, "work {work}");
        if work <= 40_000 {
            assert!(calls > 3, "work {work}: {calls} calls");
        }
        if work == u64::MAX {
            assert_eq!(calls, 1);
        }
    }
}

#[test]
fn a_reduced_progress_of_other_loads_or_bonds_is_not_continued() {
    let w = wall();
    let mut s = solver(&w.asset);
    let mut progress = None;
    let r = s
        .solve_within(&w.asset, &w.nodes, &w.health, &GRAVITY, 1, &mut progress)
        .unwrap();
    assert!(!r.converged && progress.is_some());
    // Another load: the progress is dropped and the solve starts from the
    // warm start the cut left; it still reaches ε.
    let push = [PointLoad {
        chunk: w.nodes[w.nodes.len() - 1],
        force: Vec3::new(5e3, 0.0, 0.0),
        point: w.asset.chunks()[w.nodes[w.nodes.len() - 1]].centroid,
    }];
    let pushed = StressLoads {
        point_loads: &push,
        ..GRAVITY
    };
    let r = s
        .solve_within(
            &w.asset,
            &w.nodes,
            &w.health,
            &pushed,
            u64::MAX,
            &mut progress,
        )
        .unwrap();
    assert!(r.converged && progress.is_none(), "{r:?}");
    // The same with a bond broken after the cut.
    let mut s = solver(&w.asset);
    s.solve_within(&w.asset, &w.nodes, &w.health, &GRAVITY, 1, &mut progress)
        .unwrap();
    assert!(progress.is_some());
    let mut broken = w.health.clone();
    let first_intact = broken.iter().position(|&h| h > 0.0).unwrap();
    broken[first_intact] = 0.0;
    let r = s
        .solve_within(
            &w.asset,
            &w.nodes,
            &broken,
            &GRAVITY,
            u64::MAX,
            &mut progress,
        )
        .unwrap();
    assert!(r.converged && progress.is_none(), "{r:?}");
    assert!(
        s.bond_stresses()
            .iter()
            .all(|b| b.bond.0 as usize != first_intact)
    );
}

/// Under the tightest limit a round is taken one step per call: the first
/// call reduces, the next five build the hierarchy piece by piece (the
/// fine level, its inverse blocks, its smoothing, level 1's blocks, the
/// rest of the levels; the second and third do nothing on this assembled
/// system but are steps all the same), the seventh starts the conjugate
/// gradient (from rest: takes the loads as the residual), the eighth runs
/// its first preconditioning, the ninth takes the first iteration's update
/// and the tenth its preconditioning (each iteration is two steps). The
/// first eight report no iteration, and the first seven, having no
/// iterate, the residual at
/// rest: under gravity alone, |g| over the standard gravity the node
/// weights are measured with (9.81 / 9.80665). The next call of a round
/// that refines reduces again. The sliced solve still ends as one call
/// does (above).
#[test]
fn a_round_is_taken_one_step_per_call_under_the_tightest_limit() {
    let w = wall();
    let mut s = solver(&w.asset);
    let mut progress: Option<SolveProgress> = None;
    let mut places = Vec::new();
    let mut reports = Vec::new();
    loop {
        let r = s
            .solve_within(&w.asset, &w.nodes, &w.health, &GRAVITY, 1, &mut progress)
            .unwrap();
        reports.push(r);
        match progress.as_ref() {
            Some(p) => places.push((p.reduced_round(), p.iterations())),
            None => break,
        }
    }
    // (round, step, refined chunks): 2 reduced, 4, 6, 5, 7 and 3 the
    // hierarchy through its first to fifth piece, 8 the start's check
    // done, 1 iterating (0 iterations yet after the start), 9 the first
    // iteration's update taken (the progress holds its start: still 0
    // iterations), 1 iterating after it.
    let steps = [2, 4, 6, 5, 7, 3, 8, 1];
    for (k, step) in steps.into_iter().enumerate() {
        assert_eq!(places[k], ((1, step, 0), 0), "call {}", k + 1);
    }
    assert_eq!(places[8], ((1, 9, 0), 0));
    assert_eq!(places[9], ((1, 1, 0), 1));
    assert_eq!(places[10], ((1, 9, 0), 1));
    let at_rest = (9.81 / STANDARD_GRAVITY) as f32;
    for r in &reports[..7] {
        assert_eq!(r.iterations, 0, "{r:?}");
        assert!((r.residual - at_rest).abs() < 1e-6, "{r:?}");
    }
    assert_eq!(reports[7].iterations, 0);
    // The update counts the iteration; its preconditioning adds none.
    assert_eq!(reports[8].iterations, 1);
    assert_eq!(reports[9].iterations, 0);
    assert!(!reports[8].converged && !reports[9].converged);
    // The second round: cut before it (0: nothing built), then one step a
    // call again, with the chunks refined by the first.
    let second = places
        .iter()
        .position(|((round, _, _), _)| *round == 2)
        .unwrap();
    let ((_, step, refined), _) = places[second];
    assert_eq!(step, 0);
    assert!(refined > 0);
    // Its refined system smooths on its bonds: the start's first
    // preconditioning is the cycle's six steps (13: one to five taken).
    let steps = [2, 4, 6, 5, 7, 3, 8, 13, 13, 13, 13, 13, 1];
    for (k, step) in steps.into_iter().enumerate() {
        assert_eq!(places[second + 1 + k].0, (2, step, refined));
    }
    assert!(reports.last().unwrap().converged);
}

/// Between two slices the solver's warm start is reset (or another solve
/// of the same chunks moves it): a cut inside a round carries its iterate
/// in the progress, and a cut between two rounds carries the warm start
/// the next round starts from, so the sliced solve still ends bit for bit
/// as one call. The same with a fresh solver per slice given only the
/// progress, sent through postcard, and with a solver that forgets its
/// reduced system after every call (`set_settings`, even to the same
/// settings) and so groups the cluster again at every step, between two
/// pieces of the hierarchy's build among them.
#[test]
fn a_sliced_reduced_solve_does_not_depend_on_the_warm_start_between_slices() {
    let w = wall();
    let (whole, expected) = one_call(&w);
    let push = [PointLoad {
        chunk: w.nodes[w.nodes.len() - 1],
        force: Vec3::new(-4e4, 0.0, 0.0),
        point: w.asset.chunks()[w.nodes[w.nodes.len() - 1]].centroid,
    }];
    let pushed = StressLoads {
        point_loads: &push,
        ..GRAVITY
    };
    for work in [1, 5_000, 40_000] {
        for meddle in 0..4 {
            let mut s = solver(&w.asset);
            let settings = *s.settings();
            let mut progress: Option<SolveProgress> = None;
            let mut calls = 0;
            let r = loop {
                let r = s
                    .solve_within(&w.asset, &w.nodes, &w.health, &GRAVITY, work, &mut progress)
                    .unwrap();
                calls += 1;
                if progress.is_none() {
                    break r;
                }
                match meddle {
                    0 => s.reset_warm_start(),
                    1 => {
                        // Another solve of the same chunks (other loads)
                        // moves their warm start.
                        let mut other = None;
                        s.solve_within(&w.asset, &w.nodes, &w.health, &pushed, 1, &mut other)
                            .unwrap();
                    }
                    2 => {
                        let bytes = postcard::to_stdvec(&progress).unwrap();
                        progress = postcard::from_bytes(&bytes).unwrap();
                        s = solver(&w.asset);
                    }
                    _ => s.set_settings(settings).unwrap(),
                }
            };
            assert!(calls > 1, "work {work}");
            assert_eq!(
                r.residual.to_bits(),
                whole.residual.to_bits(),
                "work {work}, meddling {meddle}"
            );
            assert_eq!(
                s.bond_stresses(),
                &expected[..],
                "work {work}, meddling {meddle}"
            );
        }
    }
}

/// A progress decoded from damaged bytes (here: a round past the limit,
/// a place before a round's iteration without its warm start) is not
/// continued and does not panic; the solve starts over and converges.
#[test]
fn a_damaged_reduced_progress_is_dropped() {
    let w = wall();
    let mut s = solver(&w.asset);
    let mut progress = None;
    // Cut at the first round boundary or inside the first round.
    s.solve_within(&w.asset, &w.nodes, &w.health, &GRAVITY, 1, &mut progress)
        .unwrap();
    let good = serde_json::to_value(progress.as_ref().unwrap()).unwrap();
    for (field, value) in [
        ("round", serde_json::json!(u32::MAX)),
        ("round", serde_json::json!(5)),
        ("stage", serde_json::json!("NotStarted")),
        ("stage", serde_json::json!("Reduced")),
        ("stage", serde_json::json!("Preconditioned")),
        ("stage", serde_json::json!("Started")),
        ("stage", serde_json::json!("Smoothed")),
        ("stage", serde_json::json!("Inverted")),
        ("stage", serde_json::json!("Assembled")),
        ("stage", serde_json::json!("Checked")),
    ] {
        let mut bad = good.clone();
        // The field must exist, or the edit would only add an ignored key.
        assert!(bad["place"].get(field).is_some(), "{field}");
        bad["place"][field] = value.clone();
        if field == "stage" {
            bad["place"]["warm_u"] = serde_json::json!([]);
        }
        let mut p: Option<SolveProgress> = Some(serde_json::from_value(bad).unwrap());
        let mut fresh = solver(&w.asset);
        let r = fresh
            .solve_within(&w.asset, &w.nodes, &w.health, &GRAVITY, u64::MAX, &mut p)
            .unwrap();
        assert!(r.converged && p.is_none(), "{field} = {value}: {r:?}");
    }
}

/// A reduced solve sliced while its preconditioner is the spanning forest,
/// resumed after the settings turn to the multilevel one: the progress
/// says the forest, so the solve goes on with it (a reduced solve that does
/// not precondition with the forest builds no parents for it; the resumed
/// one makes them then) and ends bit for bit as the solve that kept the
/// forest setting throughout. It once indexed a missing parent (a panic).
#[test]
fn a_reduced_slice_under_the_forest_resumes_under_another_preconditioner() {
    let w = wall();
    let loads = StressLoads {
        gravity: Vec3::new(0.0, -9.81, 0.0),
        ..Default::default()
    };
    let forest = StressSettings {
        max_iterations: 1000,
        reduce_above: 100,
        preconditioner: smithereens_core::stress::Preconditioner::Forest,
        ..Default::default()
    };
    let concrete = || StressMaterials::uniform(Material::CONCRETE);
    let run = |then: smithereens_core::stress::Preconditioner| {
        let mut s = StressSolver::new(&w.asset, forest, concrete()).unwrap();
        let mut progress = None;
        let first = s
            .solve_within(&w.asset, &w.nodes, &w.health, &loads, 20_000, &mut progress)
            .unwrap();
        assert!(progress.is_some() && !first.converged, "{first:?}");
        s.set_settings(StressSettings {
            preconditioner: then,
            ..forest
        })
        .unwrap();
        let r = s
            .solve_within(
                &w.asset,
                &w.nodes,
                &w.health,
                &loads,
                u64::MAX,
                &mut progress,
            )
            .unwrap();
        (r, s.bond_stresses().to_vec())
    };
    let (kept, kept_results) = run(smithereens_core::stress::Preconditioner::Forest);
    assert!(kept.converged, "{kept:?}");
    let (turned, turned_results) = run(smithereens_core::stress::Preconditioner::Multilevel);
    assert_eq!(turned, kept);
    assert_eq!(turned_results, kept_results);
}

/// A call that ends in `SolveMode::Skipped` (a free cluster at rest: here
/// one chunk that is not a support) is not cut short, so it leaves no
/// progress, whatever progress it was handed: a loop slicing until the
/// progress is `None` ends (it used to keep the other solve's progress
/// and report `converged`, so that loop never did).
#[test]
fn a_skipped_solve_leaves_no_progress() {
    let w = wall();
    let mut s = solver(&w.asset);
    let mut progress = None;
    let cut = s
        .solve_within(&w.asset, &w.nodes, &w.health, &GRAVITY, 1, &mut progress)
        .unwrap();
    assert!(!cut.converged && progress.is_some(), "{cut:?}");
    let free = *w
        .nodes
        .iter()
        .find(|&&c| !w.asset.chunks()[c].support)
        .unwrap();
    let r = s
        .solve_within(&w.asset, &[free], &w.health, &GRAVITY, 1, &mut progress)
        .unwrap();
    assert_eq!(r.mode, smithereens_core::stress::SolveMode::Skipped);
    assert!(r.converged);
    assert!(progress.is_none());
}
