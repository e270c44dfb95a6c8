//! `StressSolver::prepare` builds a large cluster's reduced system ahead of
//! its first solve and changes nothing a solve reports: a prepared solver
//! and a fresh one give the same reports (iterations, residual, work) and
//! bond results, bit for bit, in one call and sliced by every work limit
//! (so where a budget cuts a solve does not depend on it), after bonds
//! break since, and after a prepare that failed.
//!
//! The wall is 24 × 12 × 2 cubes of 0.5 m (576 chunks, 1,368 bonds) with a
//! 4-column gap in its two bottom rows, reduced above 100 free chunks, of a
//! weak material whose bonds beside the gap refine (more than one round).
#![allow(clippy::unwrap_used)]

use smithereens_core::fixtures::{refining_material, refining_wall, stress_wall_desc};
use smithereens_core::glam::Vec3;
use smithereens_core::stress::{
    BondStress, Preconditioner, SolveProgress, StressError, StressLoads, StressMaterials,
    StressReport, StressSettings, StressSolver,
};
use smithereens_core::*;

const GRAVITY: StressLoads<'static> = StressLoads {
    gravity: Vec3::new(0.0, -9.81, 0.0),
    point_loads: &[],
    angular_velocity: Vec3::ZERO,
};

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

fn solver(asset: &Asset, reduce_above: u32) -> StressSolver {
    let settings = StressSettings {
        max_iterations: 10_000,
        reduce_above,
        ..Default::default()
    };
    StressSolver::new(
        asset,
        settings,
        StressMaterials::uniform(refining_material()),
    )
    .unwrap()
}

/// Every call of a solve sliced by `work`: its report and bond results.
fn calls(
    s: &mut StressSolver,
    w: &Wall,
    health: &[f32],
    work: u64,
) -> Vec<(StressReport, Vec<BondStress>)> {
    let mut progress: Option<SolveProgress> = None;
    let mut out = Vec::new();
    loop {
        let r = s
            .solve_within(&w.asset, &w.nodes, health, &GRAVITY, work, &mut progress)
            .unwrap();
        out.push((r, s.bond_stresses().to_vec()));
        if progress.is_none() {
            return out;
        }
        assert!(out.len() < 100_000);
    }
}

#[test]
fn a_prepared_solver_reports_what_a_fresh_one_does_call_for_call() {
    let w = wall();
    // A bond beside the gap and one high up break after the first solve.
    let mut broken = w.health.clone();
    for b in [0, w.asset.bond_count() / 2, w.asset.bond_count() - 3] {
        broken[b] = 0.0;
    }
    for work in [1, 5_000, 40_000, u64::MAX] {
        let mut fresh = solver(&w.asset, 100);
        let mut prepared = solver(&w.asset, 100);
        assert!(prepared.prepare(&w.asset, &w.nodes, &w.health).unwrap());
        // Preparing again costs nothing and says the same.
        assert!(prepared.prepare(&w.asset, &w.nodes, &w.health).unwrap());
        let expected = calls(&mut fresh, &w, &w.health, work);
        let got = calls(&mut prepared, &w, &w.health, work);
        let last = &expected.last().unwrap().0;
        assert!(last.converged, "work {work}: {last:?}");
        if work <= 5_000 {
            assert!(expected.len() > 3, "work {work}: {} calls", expected.len());
        }
        assert_eq!(got, expected, "work {work}");
        // Bonds break; the prepared solver prepares the damaged cluster
        // (its kept system is then a first round's again), the fresh one
        // solves on from its own state.
        let expected = calls(&mut fresh, &w, &broken, work);
        assert!(prepared.prepare(&w.asset, &w.nodes, &broken).unwrap());
        let got = calls(&mut prepared, &w, &broken, work);
        assert_eq!(got, expected, "work {work}, after the breaks");
    }
}

#[test]
fn a_prepared_solver_reports_what_a_fresh_one_does_under_each_preconditioner() {
    let w = wall();
    for preconditioner in [Preconditioner::Forest, Preconditioner::Multilevel] {
        let settings = StressSettings {
            max_iterations: 10_000,
            reduce_above: 100,
            preconditioner,
            ..Default::default()
        };
        let new = || {
            StressSolver::new(
                &w.asset,
                settings,
                StressMaterials::uniform(refining_material()),
            )
            .unwrap()
        };
        for work in [5_000, u64::MAX] {
            let (mut fresh, mut prepared) = (new(), new());
            assert!(prepared.prepare(&w.asset, &w.nodes, &w.health).unwrap());
            let expected = calls(&mut fresh, &w, &w.health, work);
            assert!(expected.last().unwrap().0.converged, "{preconditioner:?}");
            assert_eq!(
                calls(&mut prepared, &w, &w.health, work),
                expected,
                "{preconditioner:?}, work {work}"
            );
        }
    }
}

#[test]
fn prepare_keeps_nothing_for_a_cluster_solved_in_full() {
    let w = wall();
    // Not reduced: off, or the cluster is not above the threshold.
    for reduce_above in [0, 10_000] {
        let mut s = solver(&w.asset, reduce_above);
        assert!(!s.prepare(&w.asset, &w.nodes, &w.health).unwrap());
        let mut fresh = solver(&w.asset, reduce_above);
        assert_eq!(
            calls(&mut s, &w, &w.health, 5_000),
            calls(&mut fresh, &w, &w.health, 5_000)
        );
    }
    // Unanchored: the wall without its bottom layer.
    let upper: Vec<ChunkIndex> = w
        .nodes
        .iter()
        .copied()
        .filter(|&c| !w.asset.chunks()[c].support)
        .collect();
    let mut s = solver(&w.asset, 100);
    assert!(!s.prepare(&w.asset, &upper, &w.health).unwrap());
}

#[test]
fn a_failed_prepare_keeps_nothing_and_changes_nothing() {
    let w = wall();
    let mut s = solver(&w.asset, 100);
    assert!(s.prepare(&w.asset, &w.nodes, &w.health).unwrap());
    let other = Asset::new(&stress_wall_desc(12, 6, 1)).unwrap();
    assert_eq!(
        s.prepare(&other, &w.nodes, &w.health),
        Err(StressError::AssetMismatch)
    );
    assert_eq!(
        s.prepare(&w.asset, &w.nodes, &w.health[1..]),
        Err(StressError::HealthLength {
            found: w.health.len() - 1,
            expected: w.health.len()
        })
    );
    assert_eq!(
        s.prepare(&w.asset, &[], &w.health),
        Err(StressError::EmptyCluster)
    );
    let mut bad = w.nodes.clone();
    bad.push(ChunkIndex(w.asset.chunk_count() as u32 + 7));
    assert_eq!(
        s.prepare(&w.asset, &bad, &w.health),
        Err(StressError::NodeOutOfRange(ChunkIndex(
            w.asset.chunk_count() as u32 + 7
        )))
    );
    let mut twice = w.nodes.clone();
    twice.push(w.nodes[3]);
    assert_eq!(
        s.prepare(&w.asset, &twice, &w.health),
        Err(StressError::DuplicateNode(w.nodes[3]))
    );
    let mut fresh = solver(&w.asset, 100);
    assert_eq!(
        calls(&mut s, &w, &w.health, 5_000),
        calls(&mut fresh, &w, &w.health, 5_000)
    );
}

#[test]
fn is_prepared_says_whether_the_next_solve_only_iterates() {
    let w = wall();
    let mut s = solver(&w.asset, 100);
    assert!(!s.is_prepared(&w.nodes, &w.health));
    assert!(s.prepare(&w.asset, &w.nodes, &w.health).unwrap());
    assert!(s.is_prepared(&w.nodes, &w.health));
    // Other nodes, another order, other bonds, a health of the wrong
    // length: not prepared (and no panic).
    assert!(!s.is_prepared(&w.nodes[1..], &w.health));
    let reversed: Vec<ChunkIndex> = w.nodes.iter().rev().copied().collect();
    assert!(!s.is_prepared(&reversed, &w.health));
    let mut broken = w.health.clone();
    broken[w.asset.bond_count() / 2] = 0.0;
    assert!(!s.is_prepared(&w.nodes, &broken));
    assert!(!s.is_prepared(&w.nodes, &w.health[1..]));
    // A sliced solve that refines leaves a later round's system.
    calls(&mut s, &w, &w.health, u64::MAX);
    assert!(!s.is_prepared(&w.nodes, &w.health));
}

/// Two supported walls of 12 × 12 × 2 side by side, not bonded to each
/// other: an instance of two clusters, each reduced above 100.
fn twin_walls() -> Instance {
    let mut d = stress_wall_desc(24, 12, 2);
    d.bonds.retain(|b| match b.chunk1 {
        smithereens_core::BondEnd::Chunk(c1) => {
            let x = |c: u32| d.chunks[c as usize].centroid.x < 6.0;
            x(b.chunk0) == x(c1)
        }
        smithereens_core::BondEnd::World => true,
    });
    let asset = std::sync::Arc::new(Asset::new(&d).unwrap());
    Instance::new(asset, Pose::IDENTITY).unwrap()
}

#[test]
fn instance_stress_prepares_the_cluster_its_next_update_solves_first() {
    use smithereens_core::stress::{InstanceStress, StressDesc};
    let inst = twin_walls();
    let clusters: Vec<_> = inst
        .clusters()
        .map(|(h, c)| (h, c.nodes.to_vec()))
        .collect();
    assert_eq!(clusters.len(), 2);
    let mut desc = StressDesc::new(StressMaterials::uniform(refining_material()));
    desc.settings.reduce_above = 100;
    let stress = InstanceStress::new(&inst, desc).unwrap();
    // The first update starts from the lowest handle.
    assert!(stress.solver().is_prepared(&clusters[0].1, inst.health()));
    // Restored with the turn at the first cluster, the next update starts
    // at the second: that one is prepared.
    let mut state = stress.state();
    state.turn = Some(clusters[0].0);
    let restored = InstanceStress::from_state(&inst, state).unwrap();
    assert!(restored.solver().is_prepared(&clusters[1].1, inst.health()));
    assert!(!restored.solver().is_prepared(&clusters[0].1, inst.health()));
}
