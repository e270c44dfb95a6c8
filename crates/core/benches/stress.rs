//! One stress solve from cold (no warm start) to the residual ε = 1e-3 of
//! an intact structure under gravity (issue 13 benchmarks, `cold/…`: the
//! solver has seen the structure before and reuses its forest and
//! multilevel hierarchy; `first/…`: a solver that never has), the
//! same solve warm-started from the previous frame's answer (`warm/…`),
//! and a re-solve after one bond broke, warm-started from the answer
//! before (`break/…`). Default settings (`Preconditioner::Auto`).
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
use smithereens_core::fixtures::{cube_chunk, grid_desc};
use smithereens_core::glam::Vec3;
use smithereens_core::stress::{
    Material, REDUCE_ABOVE, StressLoads, StressMaterials, StressSettings,
};
use smithereens_core::*;
use std::hint::black_box;

const SIZE: f32 = 0.5;
const DENSITY: f32 = 2400.0;

fn bond(desc: &mut AssetDesc, a: u32, b: u32, area: f32) {
    let ca = desc.chunks[a as usize].centroid;
    let cb = desc.chunks[b as usize].centroid;
    desc.bonds.push(BondDesc {
        chunk0: a,
        chunk1: BondEnd::Chunk(b),
        centroid: (ca + cb) * 0.5,
        normal: (cb - ca).normalize(),
        area,
        strength: 10.0,
    });
}

/// `grid_desc` plus diagonal bonds in the planes spanned by `planes`
/// (pairs of axes 0 = x, 1 = y, 2 = z).
fn grid_with_diagonals(n: [u32; 3], planes: &[(usize, usize)]) -> AssetDesc {
    let mut desc = grid_desc(n[0], n[1], n[2], SIZE, DENSITY, 40.0);
    let idx = |p: [u32; 3]| p[0] + n[0] * (p[1] + n[1] * p[2]);
    for z in 0..n[2] {
        for y in 0..n[1] {
            for x in 0..n[0] {
                let p = [x, y, z];
                for &(i, j) in planes {
                    if p[i] + 1 >= n[i] || p[j] + 1 >= n[j] {
                        continue;
                    }
                    let mut q = p;
                    q[i] += 1;
                    q[j] += 1;
                    bond(&mut desc, idx(p), idx(q), 0.25 * SIZE * SIZE);
                    let (mut r, mut s) = (p, p);
                    r[i] += 1;
                    s[j] += 1;
                    bond(&mut desc, idx(r), idx(s), 0.25 * SIZE * SIZE);
                }
            }
        }
    }
    desc
}

fn wall(nx: u32, ny: u32, nz: u32) -> Asset {
    Asset::new(&grid_desc(nx, ny, nz, SIZE, DENSITY, 40.0)).unwrap()
}

fn tower() -> Asset {
    // y is up: 4 × 9 × 4 with the bottom layer supported.
    Asset::new(&grid_with_diagonals([4, 9, 4], &[(0, 1), (2, 1)])).unwrap()
}

fn bridge() -> Asset {
    let (nx, nz) = (30u32, 10u32);
    let pier_h = 11u32;
    // The deck: 30 × 2 × 10 cubes above the piers, with horizontal diagonals.
    let mut desc = grid_with_diagonals([nx, 2, nz], &[(0, 2)]);
    for c in &mut desc.chunks {
        c.centroid.y += pier_h as f32 * SIZE;
        c.support = false;
        for h in &mut c.hulls {
            h.points
                .iter_mut()
                .for_each(|p| p.y += pier_h as f32 * SIZE);
        }
    }
    for b in &mut desc.bonds {
        b.centroid.y += pier_h as f32 * SIZE;
    }
    let deck = |x: u32, z: u32| x + nx * 2 * z;
    for k in 0..7u32 {
        let x0 = (k * (nx - 2) + 3) / 6;
        let z0 = nz / 2 - 1;
        let base = desc.chunks.len() as u32;
        let at = |x: u32, y: u32, z: u32| base + x + 2 * (y + pier_h * z);
        for z in 0..2 {
            for y in 0..pier_h {
                for x in 0..2 {
                    let c = Vec3::new((x0 + x) as f32 + 0.5, y as f32 + 0.5, (z0 + z) as f32 + 0.5)
                        * SIZE;
                    desc.chunks.push(cube_chunk(c, SIZE, DENSITY, y == 0));
                }
            }
        }
        for z in 0..2 {
            for y in 0..pier_h {
                for x in 0..2 {
                    if x == 0 {
                        bond(&mut desc, at(0, y, z), at(1, y, z), SIZE * SIZE);
                    }
                    if z == 0 {
                        bond(&mut desc, at(x, y, 0), at(x, y, 1), SIZE * SIZE);
                    }
                    if y + 1 < pier_h {
                        bond(&mut desc, at(x, y, z), at(x, y + 1, z), SIZE * SIZE);
                    } else {
                        bond(&mut desc, at(x, y, z), deck(x0 + x, z0 + z), SIZE * SIZE);
                    }
                }
            }
        }
    }
    Asset::new(&desc).unwrap()
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
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
