//! A stress solver reuses a cluster's bonds, adjacency, spanning forest
//! and multilevel hierarchy while the cluster's nodes and intact bonds stay
//! the same. The results must be bit for bit those of a fresh solver, through
//! breaks, other node sets, free (inertial) clusters and reduced solves.
#![allow(clippy::unwrap_used)]

use smithereens_core::fixtures::grid_desc;
use smithereens_core::glam::Vec3;
use smithereens_core::stress::{
    BondStress, Material, StressLoads, StressMaterials, StressReport, StressSettings,
};
use smithereens_core::*;

fn wall() -> Asset {
    Asset::new(&grid_desc(8, 6, 2, 0.5, 2400.0, 40.0)).unwrap()
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
        StressMaterials::uniform(Material::CONCRETE),
    )
    .unwrap()
}

/// The highest of `nodes` (the lowest x among equals).
fn top_chunk(asset: &Asset, nodes: &[ChunkIndex]) -> ChunkIndex {
    nodes
        .iter()
        .copied()
        .max_by(|&a, &b| {
            let (ca, cb) = (asset.chunks()[a].centroid, asset.chunks()[b].centroid);
            ca.y.total_cmp(&cb.y).then(cb.x.total_cmp(&ca.x))
        })
        .unwrap()
}

struct Case {
    nodes: Vec<ChunkIndex>,
    health: Vec<f32>,
    loads: StressLoads<'static>,
}

fn solve(s: &mut StressSolver, asset: &Asset, c: &Case) -> (StressReport, Vec<BondStress>) {
    s.reset_warm_start();
    let report = s.solve(asset, &c.nodes, &c.health, &c.loads).unwrap();
    (report, s.bond_stresses().to_vec())
}

#[test]
fn reused_structure_gives_the_results_of_a_fresh_solver_bit_for_bit() {
    let asset = wall();
    let all: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    let gravity = StressLoads {
        gravity: Vec3::new(0.0, -9.81, 0.0),
        ..Default::default()
    };
    let intact = vec![10.0; asset.bond_count()];
    // A hole in the lower middle: the load goes round it, so the forest
    // is not enough and the multilevel hierarchy is built.
    let mut holed = intact.clone();
    for (bi, b) in asset.bonds().iter_enumerated() {
        let c = asset.chunks()[b.chunk0].centroid;
        if c.y < 1.0 && (1.25..2.75).contains(&c.x) {
            holed[bi.0 as usize] = 0.0;
        }
    }
    // The top two rows alone, free: spun, no support.
    let top: Vec<ChunkIndex> = all
        .iter()
        .copied()
        .filter(|&c| asset.chunks()[c].centroid.y > 2.0)
        .collect();
    let spin = StressLoads {
        angular_velocity: Vec3::new(0.0, 3.0, 1.0),
        ..Default::default()
    };
    let cases = [
        Case {
            nodes: all.clone(),
            health: intact.clone(),
            loads: gravity,
        },
        Case {
            nodes: all.clone(),
            health: holed.clone(),
            loads: gravity,
        },
        Case {
            nodes: top.clone(),
            health: intact.clone(),
            loads: spin,
        },
    ];
    let mut reused = solver(&asset, 0);
    // Each case twice in a row (the second reuses), then in another order.
    for k in [0, 0, 1, 1, 2, 2, 1, 0, 2, 1] {
        let got = solve(&mut reused, &asset, &cases[k]);
        let want = solve(&mut solver(&asset, 0), &asset, &cases[k]);
        assert_eq!(got, want, "case {k}");
        assert!(got.0.converged, "case {k}: {:?}", got.0);
    }
    // The holed case really used the hierarchy (more than the forest's
    // one iteration).
    let holed_report = solve(&mut solver(&asset, 0), &asset, &cases[1]).0;
    assert!(holed_report.iterations > 1, "{holed_report:?}");

    // A reduced solve overwrites the structure with super-nodes; the next
    // full solve of the same cluster must not reuse any of it.
    let mut mixed = solver(&asset, 0);
    let _ = solve(&mut mixed, &asset, &cases[1]);
    mixed
        .set_settings(StressSettings {
            max_iterations: 10_000,
            reduce_above: 20,
            ..Default::default()
        })
        .unwrap();
    let reduced = solve(&mut mixed, &asset, &cases[1]);
    assert_eq!(reduced, solve(&mut solver(&asset, 20), &asset, &cases[1]));
    mixed
        .set_settings(StressSettings {
            max_iterations: 10_000,
            reduce_above: 0,
            ..Default::default()
        })
        .unwrap();
    for k in [1, 1, 0] {
        let got = solve(&mut mixed, &asset, &cases[k]);
        assert_eq!(
            got,
            solve(&mut solver(&asset, 0), &asset, &cases[k]),
            "after reduced: case {k}"
        );
    }
}

/// A solve of the nodes and intact bonds the solver last reduced reuses the
/// reduced system (super-nodes, bonds, forest, hierarchy) without gathering
/// the cluster again, and a solve of the same nodes after bonds broke
/// starts from the fine system the reduction kept aside. Loads that change,
/// bonds that break (one, then more: one to a support, one the grouping goes through), a broken
/// bond given health again, another node set and the same nodes in another
/// order must all give, bit for bit, what a fresh solver gives.
#[test]
fn a_reused_reduced_system_gives_the_results_of_a_fresh_solver_bit_for_bit() {
    let asset = wall();
    let all: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    let mut reversed = all.clone();
    reversed.reverse();
    let lower: Vec<ChunkIndex> = all
        .iter()
        .copied()
        .filter(|&c| asset.chunks()[c].centroid.y < 2.0)
        .collect();
    let intact = vec![10.0; asset.bond_count()];
    let mut broken = intact.clone();
    broken[asset.bond_count() / 2] = 0.0;
    // Then more: a bond near the top, and a bond to a support.
    let mut more = broken.clone();
    more[asset.bond_count() - 3] = 0.0;
    let anchor = asset
        .bonds()
        .iter_enumerated()
        .find(|(_, b)| {
            asset.chunks()[b.chunk0].support || b.chunk1.is_some_and(|c| asset.chunks()[c].support)
        })
        .unwrap()
        .0;
    more[anchor.0 as usize] = 0.0;
    // And the first bond between free chunks, which the reduction's
    // breadth-first grouping goes through from its first seed.
    let free = |c: ChunkIndex| !asset.chunks()[c].support;
    let first = asset
        .bonds()
        .iter_enumerated()
        .filter(|(_, b)| free(b.chunk0) && b.chunk1.is_some_and(free))
        .min_by_key(|(_, b)| {
            (
                b.chunk0.min(b.chunk1.unwrap()),
                b.chunk0.max(b.chunk1.unwrap()),
            )
        })
        .unwrap()
        .0;
    more[first.0 as usize] = 0.0;
    // A bond damaged but not broken: the same structure.
    let mut worn = intact.clone();
    worn[asset.bond_count() / 3] = 0.5;
    let gravity = StressLoads {
        gravity: Vec3::new(0.0, -9.81, 0.0),
        ..Default::default()
    };
    let top = top_chunk(&asset, &all);
    let pressed_loads = [stress::PointLoad {
        chunk: top,
        force: Vec3::new(3.0e6, -1.0e6, 0.0),
        point: asset.chunks()[top].centroid,
    }];
    let pressed = StressLoads {
        gravity: Vec3::new(0.0, -9.81, 0.0),
        point_loads: Box::leak(Box::new(pressed_loads)),
        ..Default::default()
    };
    let case = |nodes: &Vec<ChunkIndex>, health: &Vec<f32>, loads| Case {
        nodes: nodes.clone(),
        health: health.clone(),
        loads,
    };
    let cases = [
        case(&all, &intact, gravity),
        case(&all, &intact, pressed),
        case(&all, &broken, gravity),
        case(&all, &worn, pressed),
        case(&reversed, &intact, gravity),
        case(&lower, &intact, gravity),
        case(&all, &more, pressed),
    ];
    let mut reused = solver(&asset, 20);
    for k in [
        0, 0, 1, 1, 0, 2, 2, 0, 3, 1, 4, 0, 5, 5, 0, 1, 2, 6, 6, 0, 6,
    ] {
        let got = solve(&mut reused, &asset, &cases[k]);
        let want = solve(&mut solver(&asset, 20), &asset, &cases[k]);
        assert_eq!(got, want, "case {k}");
        assert!(got.0.converged, "case {k}: {:?}", got.0);
    }
    // The pressed case is refined (a second round), so a reused system
    // also meets a refinement that differs from its own.
    let mut fresh = solver(&asset, 20);
    let plain = solve(&mut fresh, &asset, &cases[0]).1.len();
    let refined = solve(&mut fresh, &asset, &cases[1]).1.len();
    assert!(
        refined > plain,
        "{refined} bonds reported, {plain} unpressed"
    );
}

/// Bonds breaking one or a few at a time on a reduced wall of mixed
/// materials, with a load that comes and goes and chunks cut loose (left in
/// the node list, joined to nothing): after every break the kept solver
/// gives, bit for bit, what a fresh solver gives. The kept reduced system
/// is updated in place when the bonds broken leave its grouping as it is,
/// and reduced again otherwise; both happen here.
#[test]
fn breaking_bonds_one_after_another_gives_a_fresh_solvers_results() {
    let asset = Asset::new(&grid_desc(10, 8, 2, 0.5, 2400.0, 40.0)).unwrap();
    let all: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    // Concrete, brick and a weak concrete, by bond.
    let weak = Material {
        tension: stress::StressLimit {
            elastic: 0.2e6,
            fatal: 0.4e6,
        },
        ..Material::CONCRETE
    };
    let materials = StressMaterials {
        materials: vec![Material::CONCRETE, Material::BRICK, weak],
        bond_material: (0..asset.bond_count())
            .map(|b| (b * 7 % 3) as u16)
            .collect(),
    };
    let settings = StressSettings {
        max_iterations: 10_000,
        reduce_above: 20,
        ..Default::default()
    };
    let new = || StressSolver::new(&asset, settings, materials.clone()).unwrap();
    let top = top_chunk(&asset, &all);
    let push: &'static [stress::PointLoad] = Box::leak(Box::new([stress::PointLoad {
        chunk: top,
        force: Vec3::new(4.0e5, -2.0e5, 0.0),
        point: asset.chunks()[top].centroid,
    }]));
    let gravity = StressLoads {
        gravity: Vec3::new(0.0, -9.81, 0.0),
        ..Default::default()
    };
    let pushed = StressLoads {
        point_loads: push,
        ..gravity
    };
    let mut kept = new();
    let mut health = vec![10.0f32; asset.bond_count()];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut iterated = 0;
    for step in 0..60 {
        if step % 15 == 14 {
            // Cut a chunk loose: every bond it has.
            let c = all[next(all.len())];
            for (_, b) in asset.graph().neighbours(c) {
                health[b.0 as usize] = 0.0;
            }
        } else {
            for _ in 0..1 + step % 3 {
                health[next(asset.bond_count())] = 0.0;
            }
        }
        let loads = if step % 4 < 2 { gravity } else { pushed };
        let case = Case {
            nodes: all.clone(),
            health: health.clone(),
            loads,
        };
        let got = solve(&mut kept, &asset, &case);
        let want = solve(&mut new(), &asset, &case);
        assert_eq!(got, want, "step {step}");
        assert!(got.0.converged, "step {step}: {:?}", got.0);
        iterated += usize::from(got.0.iterations > 0);
    }
    assert!(iterated >= 10, "{iterated} solves iterated");
}

/// A call refused for bad input (a load on a chunk outside the cluster)
/// after bonds broke changes nothing: the next call with good input gives
/// a fresh solver's results.
#[test]
fn a_refused_call_after_breaks_leaves_the_kept_system_as_it_was() {
    let asset = wall();
    let all: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    let lower: Vec<ChunkIndex> = all
        .iter()
        .copied()
        .filter(|&c| asset.chunks()[c].centroid.y < 2.0)
        .collect();
    let outside = all.iter().copied().find(|c| !lower.contains(c)).unwrap();
    let intact = vec![10.0; asset.bond_count()];
    let mut broken = intact.clone();
    let inside = asset
        .bonds()
        .iter_enumerated()
        .filter(|(_, b)| lower.contains(&b.chunk0) && b.chunk1.is_some_and(|c| lower.contains(&c)))
        .nth(7)
        .unwrap()
        .0;
    broken[inside.0 as usize] = 0.0;
    let gravity = StressLoads {
        gravity: Vec3::new(0.0, -9.81, 0.0),
        ..Default::default()
    };
    let bad = [stress::PointLoad {
        chunk: outside,
        force: Vec3::new(0.0, -1.0e4, 0.0),
        point: asset.chunks()[outside].centroid,
    }];
    let mut kept = solver(&asset, 20);
    kept.solve(&asset, &lower, &intact, &gravity).unwrap();
    let refused = kept.solve(
        &asset,
        &lower,
        &broken,
        &StressLoads {
            point_loads: &bad,
            ..gravity
        },
    );
    assert!(
        matches!(refused, Err(stress::StressError::LoadOutsideCluster { .. })),
        "{refused:?}"
    );
    let case = Case {
        nodes: lower,
        health: broken,
        loads: gravity,
    };
    assert_eq!(
        solve(&mut kept, &asset, &case),
        solve(&mut solver(&asset, 20), &asset, &case)
    );
}
