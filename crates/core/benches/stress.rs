//! One stress solve from cold (no warm start) to the residual ε = 1e-3 of
//! an intact structure under gravity (issue 13 benchmarks, `cold/…`: the
//! solver has seen the structure before and reuses its forest and
//! multilevel hierarchy; `first/…`: a solver that never has;
//! `prepared/…`, reduced structures only: a solver that has only been
//! prepared for it with `StressSolver::prepare`), the
//! same solve warm-started from the previous frame's answer (`warm/…`),
//! a re-solve after one bond broke, warm-started from the answer
//! before (`break/…`: two damaged states in turn, so each solve also
//! mends the other's bond), bonds breaking one after another as in a game
//! (`breaks/…`: 100 in a fixed pseudo-random order, each re-solve
//! warm-started from the answer before, the mean over the sequence), and a re-solve after a 10 kN load appears on (or
//! leaves) the top chunk nearest the middle, warm-started from the answer
//! before (`load/…`). Default settings (`Preconditioner::Auto`).
//!
//! Structures (0.5 m cubes, 2,400 kg/m³, bottom layer supported):
//! * `wall/12x6` (72 nodes / 126 bonds), `wall/24x12x2` (576 / 1,368),
//!   `wall/48x24x2` (2,304 / 5,616): face bonds;
//! * `tower/4x4x8` (4×4×8 cubes on a 4×4 support layer, 144 / 728): face
//!   bonds plus the diagonals of the vertical planes (edge contacts, a
//!   quarter of a face's area);
//! * `bridge/30x10x2` (a 30×10×2 deck on seven 2×2×11 piers, 908 / 3,080):
//!   face bonds plus the deck's horizontal diagonals (the peer's bridge has
//!   908 / 3,070; its exact layout is not known here).
//!
//! * `wall/100x50x2` (10,000 nodes / 24,700 bonds, issue 13 item 6): solved
//!   in full, and (`reduced/wall`) on super-nodes with
//!   `reduce_above = REDUCE_ABOVE` (multi-resolution); ten samples each.
//!
//! The residual of every solve is asserted ≤ ε before timing.
//!
//! Run: `cargo bench -p smithereens-core --bench stress -- --warm-up-time 1 --measurement-time 3`.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use smithereens_core::fixtures::{stress_bridge_desc, stress_tower_desc, stress_wall_desc};
use smithereens_core::glam::Vec3;
use smithereens_core::stress::{
    Material, PointLoad, REDUCE_ABOVE, StressLoads, StressMaterials, StressSettings,
};
use smithereens_core::*;
use std::hint::black_box;
use std::time::{Duration, Instant};

fn wall(nx: u32, ny: u32, nz: u32) -> Asset {
    Asset::new(&stress_wall_desc(nx, ny, nz)).unwrap()
}

fn tower() -> Asset {
    Asset::new(&stress_tower_desc()).unwrap()
}

fn bridge() -> Asset {
    Asset::new(&stress_bridge_desc()).unwrap()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("stress");
    let cases = [
        ("wall", "12x6", wall(12, 6, 1)),
        ("wall", "24x12x2", wall(24, 12, 2)),
        ("wall", "48x24x2", wall(48, 24, 2)),
        ("tower", "4x4x8", tower()),
        ("bridge", "30x10x2", bridge()),
        ("wall", "100x50x2", wall(100, 50, 2)),
        ("reduced/wall", "100x50x2", wall(100, 50, 2)),
    ];
    let loads = StressLoads {
        gravity: Vec3::new(0.0, -9.81, 0.0),
        ..Default::default()
    };
    for (name, size, asset) in &cases {
        let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
        let health = vec![10.0; asset.bond_count()];
        let settings = StressSettings {
            max_iterations: 10_000,
            reduce_above: if name.starts_with("reduced") {
                REDUCE_ABOVE
            } else {
                0
            },
            ..Default::default()
        };
        g.sample_size(if nodes.len() > 5_000 { 10 } else { 100 });
        let fresh = StressSolver::new(
            asset,
            settings,
            StressMaterials::uniform(Material::CONCRETE),
        )
        .unwrap();
        let mut solver = StressSolver::new(
            asset,
            settings,
            StressMaterials::uniform(Material::CONCRETE),
        )
        .unwrap();
        let report = solver.solve(asset, &nodes, &health, &loads).unwrap();
        assert!(report.converged, "{name}/{size}: {report:?}");
        eprintln!(
            "stress/{name}/{size}: {} nodes, {} bonds, cold solve {} iterations, residual {:.2e}",
            nodes.len(),
            asset.bond_count(),
            report.iterations,
            report.residual
        );
        g.bench_with_input(
            BenchmarkId::new(format!("first/{name}"), size),
            size,
            |b, _| {
                b.iter_batched(
                    || fresh.clone(),
                    |mut s| black_box(s.solve(asset, &nodes, &health, &loads).unwrap()),
                    criterion::BatchSize::LargeInput,
                )
            },
        );
        // A solver prepared beforehand (`StressSolver::prepare`, as
        // `InstanceStress::new` does at load): its first solve finds the
        // reduced system standing. Reduced structures only.
        let mut prepared = fresh.clone();
        if prepared.prepare(asset, &nodes, &health).unwrap() {
            g.bench_with_input(
                BenchmarkId::new(format!("prepared/{name}"), size),
                size,
                |b, _| {
                    b.iter_batched(
                        || prepared.clone(),
                        |mut s| black_box(s.solve(asset, &nodes, &health, &loads).unwrap()),
                        criterion::BatchSize::LargeInput,
                    )
                },
            );
        }
        g.bench_with_input(
            BenchmarkId::new(format!("cold/{name}"), size),
            size,
            |b, _| {
                b.iter(|| {
                    solver.reset_warm_start();
                    black_box(solver.solve(asset, &nodes, &health, &loads).unwrap())
                })
            },
        );
        g.bench_with_input(
            BenchmarkId::new(format!("warm/{name}"), size),
            size,
            |b, _| b.iter(|| black_box(solver.solve(asset, &nodes, &health, &loads).unwrap())),
        );
        // A bond breaks: alternate between two damaged states (a bond a
        // third and a bond two thirds of the way through the list), each
        // solve warm-started from the other's answer.
        let mut damaged = [health.clone(), health.clone()];
        damaged[0][asset.bond_count() / 3] = 0.0;
        damaged[1][2 * asset.bond_count() / 3] = 0.0;
        let mut k = 0;
        g.bench_with_input(
            BenchmarkId::new(format!("break/{name}"), size),
            size,
            |b, _| {
                b.iter(|| {
                    k ^= 1;
                    black_box(solver.solve(asset, &nodes, &damaged[k], &loads).unwrap())
                })
            },
        );
        // Bonds break one after another, as in a game: a fixed
        // pseudo-random order of 100, each re-solve warm-started from the
        // answer before; after the 100th the structure is intact again
        // (untimed). The mean over the sequence.
        let order: Vec<usize> = (0..100)
            .map(|k| (k * 7919 + 1234) % asset.bond_count())
            .collect();
        let mut broken = health.clone();
        let mut at = order.len();
        g.bench_with_input(
            BenchmarkId::new(format!("breaks/{name}"), size),
            size,
            |b, _| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        if at == order.len() {
                            broken.copy_from_slice(&health);
                            solver.solve(asset, &nodes, &broken, &loads).unwrap();
                            at = 0;
                        }
                        broken[order[at]] = 0.0;
                        at += 1;
                        let t0 = Instant::now();
                        black_box(solver.solve(asset, &nodes, &broken, &loads).unwrap());
                        total += t0.elapsed();
                    }
                    total
                })
            },
        );
        // A load comes and goes on the intact structure: 10 kN pressing
        // down on the top chunk nearest the middle, solved warm-started
        // from the answer without it, and back.
        let mid = mid_x(asset, &nodes);
        let top = nodes
            .iter()
            .copied()
            .max_by(|a, b| {
                let key = |c: ChunkIndex| {
                    let p = asset.chunks()[c].centroid;
                    (p.y, -(p.x - mid).abs())
                };
                let (ka, kb) = (key(*a), key(*b));
                ka.0.total_cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
            })
            .unwrap();
        let push = [PointLoad {
            chunk: top,
            force: Vec3::new(0.0, -10_000.0, 0.0),
            point: asset.chunks()[top].centroid,
        }];
        let pushed = StressLoads {
            point_loads: &push,
            ..loads
        };
        solver.solve(asset, &nodes, &health, &loads).unwrap();
        let mut on = false;
        g.bench_with_input(
            BenchmarkId::new(format!("load/{name}"), size),
            size,
            |b, _| {
                b.iter(|| {
                    on = !on;
                    let l = if on { &pushed } else { &loads };
                    black_box(solver.solve(asset, &nodes, &health, l).unwrap())
                })
            },
        );
    }
    g.finish();
}

/// The middle of the structure's x extent (m).
fn mid_x(asset: &Asset, nodes: &[ChunkIndex]) -> f32 {
    let (lo, hi) = nodes.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &c| {
        let x = asset.chunks()[c].centroid.x;
        (lo.min(x), hi.max(x))
    });
    0.5 * (lo + hi)
}

criterion_group!(benches, bench);
criterion_main!(benches);
