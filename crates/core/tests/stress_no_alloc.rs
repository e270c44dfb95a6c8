#![allow(clippy::unwrap_used)]
//! A steady-state stress solve (same cluster, scratch already grown)
//! allocates nothing, with either preconditioner, and neither does turning
//! it into bond damage when the output has room.
//!
//! This file is its own test binary, so the counting allocator sees only it.

use smithereens_core::glam::Vec3;
use smithereens_core::stress::{
    Material, PointLoad, Preconditioner, StressLoads, StressMaterials, StressSettings, StressSolver,
};
use smithereens_core::{Asset, ChunkIndex, fixtures};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use std::alloc::System;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// The counter is global, and counts the test harness too: with two tests
/// in this binary, the harness's report of one finishing ("test … ok")
/// was counted inside the other's measured section (5 allocations, a CI
/// flake); with one, its bookkeeping of the running test was (see
/// `main`). So the cases run one after the other on the main thread.
fn steady_state_stress_allocates_nothing() {
    a_warm_stress_solve_and_its_damage_allocate_nothing();
    a_solve_sliced_over_budgeted_updates_allocates_only_at_its_first_cut();
    a_sliced_reduced_solve_allocates_only_at_its_first_cut();
}

/// The reduced solve (refinement rounds, each with more nodes than the one
/// before) sliced by a work limit: once the solver's scratch has grown to
/// the solve, a sliced solve allocates at its first cut (the progress,
/// sized then for every round) and never after, cuts between rounds and
/// between a round's steps included. Grown means three solves: a rebuilt
/// hierarchy takes turns between two sets of buffers, each grown to what
/// the system in use needs (not to the largest either has held, which
/// after refined rounds wrote megabytes in one step), so the set the
/// refined rounds did not use grows over the next two solves (after the
/// first cut, since the build is a step of its own).
fn a_sliced_reduced_solve_allocates_only_at_its_first_cut() {
    // A 4-column gap under the wall: the bonds beside it refine.
    let (asset, health) = fixtures::refining_wall().unwrap();
    let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    let weak = fixtures::refining_material();
    let settings = StressSettings {
        max_iterations: 10_000,
        reduce_above: 100,
        ..Default::default()
    };
    let mut solver = StressSolver::new(&asset, settings, StressMaterials::uniform(weak)).unwrap();
    let loads = StressLoads {
        gravity: Vec3::new(0.0, -9.81, 0.0),
        ..Default::default()
    };
    let mut calls_after_first_cut = 0;
    for pass in 0..4 {
        solver.reset_warm_start();
        let mut progress = None;
        let mut calls = 0;
        loop {
            let region = Region::new(GLOBAL);
            solver
                .solve_within(&asset, &nodes, &health, &loads, 5_000, &mut progress)
                .unwrap();
            let stats = region.change();
            calls += 1;
            if pass >= 3 && calls > 1 {
                calls_after_first_cut += 1;
                assert_eq!(
                    stats.allocations + stats.reallocations,
                    0,
                    "call {calls}: {stats:?}"
                );
            }
            if progress.is_none() {
                break;
            }
            assert!(calls < 10_000);
        }
    }
    assert!(calls_after_first_cut > 10, "{calls_after_first_cut} calls");
}

fn a_warm_stress_solve_and_its_damage_allocate_nothing() {
    let asset = Asset::new(&fixtures::grid_desc(12, 6, 2, 0.5, 2400.0, 40.0)).unwrap();
    let health = vec![10.0; asset.bond_count()];
    let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    let push = [PointLoad {
        chunk: ChunkIndex(143),
        force: Vec3::new(-3.0e5, 0.0, 0.0),
        point: Vec3::new(5.75, 2.75, 0.75),
    }];
    let loads = StressLoads {
        gravity: Vec3::new(0.0, -9.81, 0.0),
        point_loads: &push,
        ..Default::default()
    };
    for pc in [Preconditioner::Forest, Preconditioner::Multilevel] {
        let settings = StressSettings {
            preconditioner: pc,
            max_iterations: 5_000,
            ..Default::default()
        };
        let mut solver =
            StressSolver::new(&asset, settings, StressMaterials::uniform(Material::BRICK)).unwrap();
        let mut out = Vec::with_capacity(asset.bond_count());
        solver.solve(&asset, &nodes, &health, &loads).unwrap();
        solver.bond_damage(&health, 1.0 / 60.0, &mut out).unwrap();
        out.clear();
        // Cold again (the iterations run), then warm.
        solver.reset_warm_start();
        let region = Region::new(GLOBAL);
        let cold = solver.solve(&asset, &nodes, &health, &loads).unwrap();
        let warm = solver.solve(&asset, &nodes, &health, &loads).unwrap();
        solver.bond_damage(&health, 1.0 / 60.0, &mut out).unwrap();
        let stats = region.change();
        assert!(cold.converged && cold.iterations > 1, "{pc:?}: {cold:?}");
        assert!(warm.converged);
        assert!(!out.is_empty());
        assert_eq!(
            stats.allocations + stats.reallocations,
            0,
            "{pc:?}: {stats:?}"
        );
    }
}

fn a_solve_sliced_over_budgeted_updates_allocates_only_at_its_first_cut() {
    use smithereens_core::stress::{InstanceStress, LoadKey, StressDesc};
    use smithereens_core::{Instance, Pose};
    use std::sync::Arc;
    let asset = Arc::new(Asset::new(&fixtures::grid_desc(4, 8, 4, 0.5, 2400.0, 400.0)).unwrap());
    let inst = Instance::new(asset, Pose::IDENTITY).unwrap();
    let mut stress = InstanceStress::new(
        &inst,
        StressDesc::new(StressMaterials::uniform(Material::BRICK)),
    )
    .unwrap();
    stress
        .set_load(
            &inst,
            LoadKey(1, 1),
            ChunkIndex(3 + 4 * (7 + 8 * 3)),
            Vec3::new(3e4, 0.0, 1e4),
            Vec3::new(2.0, 4.0, 2.0),
        )
        .unwrap();
    let gravity = Vec3::new(0.0, -9.81, 0.0);
    // The first slice builds, grows the scratch and saves the progress.
    let mut budget = 12_000;
    let first = stress
        .update_within(&inst, gravity, 1.0 / 60.0, &mut budget)
        .unwrap();
    assert_eq!(first.unconverged, 1, "{first:?}");
    // The next slices resume it in place.
    let mut slices = 0;
    loop {
        let mut budget = 12_000;
        let region = Region::new(GLOBAL);
        let u = stress
            .update_within(&inst, gravity, 1.0 / 60.0, &mut budget)
            .unwrap();
        let stats = region.change();
        if u.unconverged == 0 {
            break;
        }
        slices += 1;
        assert_eq!(
            stats.allocations + stats.reallocations,
            0,
            "slice {slices}: {stats:?}"
        );
        assert!(slices < 50);
    }
    assert!(slices >= 1, "the solve took more than two slices");
}

/// Runs without libtest's harness (`harness = false` in Cargo.toml): the
/// allocation counter is global, and the harness's main thread does its
/// own bookkeeping while a test runs on another thread (one 96-byte
/// allocation counted inside a measured section: a CI flake), so the check
/// runs on the main thread alone.
fn main() {
    steady_state_stress_allocates_nothing();
}
