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
/// flake). So one test runs both cases, one after the other.
#[test]
fn steady_state_stress_allocates_nothing() {
    a_warm_stress_solve_and_its_damage_allocate_nothing();
    a_solve_sliced_over_budgeted_updates_allocates_only_at_its_first_cut();
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
