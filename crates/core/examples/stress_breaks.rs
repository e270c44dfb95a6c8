//! Bonds of the 100 × 50 × 2 wall (10,000 chunks, 24,700 bonds, concrete,
//! reduced: `REDUCE_ABOVE`) breaking one after another, each followed by
//! one stress solve in one call (no work limit): the per-update cost the
//! multi-resolution target of issue 13 is about (≤ 1 ms). Bond
//! `(k · 7919 + 1234) mod B` breaks at step `k`; each run starts from a
//! fresh solver solved from rest, and each break's time is the best of the
//! runs (the sequence is deterministic: every run solves the same systems,
//! and the hash of the bond results must agree). Prints the median, p90 and
//! worst break, the breaks over 1 ms, the total, the iterations and the
//! hash. With `--each`, every break's time and iterations.
//! `cargo run --release -p smithereens-core --example stress_breaks -- 300 5`
//! (breaks, runs; defaults 300 and 3).
#![allow(missing_docs, clippy::unwrap_used)]

use smithereens_core::fixtures::stress_wall_desc;
use smithereens_core::glam::Vec3;
use smithereens_core::stress::{
    Material, REDUCE_ABOVE, StressLoads, StressMaterials, StressSettings, StressSolver,
};
use smithereens_core::*;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let each = args.iter().any(|a| a == "--each");
    let mut numbers = args.iter().filter_map(|a| a.parse::<usize>().ok());
    let breaks = numbers.next().unwrap_or(300);
    let runs = numbers.next().unwrap_or(3).max(1);
    let asset = Asset::new(&stress_wall_desc(100, 50, 2)).unwrap();
    let loads = StressLoads {
        gravity: Vec3::new(0.0, -9.81, 0.0),
        ..Default::default()
    };
    let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    let settings = StressSettings {
        max_iterations: 10_000,
        reduce_above: REDUCE_ABOVE,
        ..Default::default()
    };
    let bonds = asset.bond_count();
    let mut best = vec![f64::INFINITY; breaks];
    let mut iterations = vec![0; breaks];
    let mut hashes = Vec::new();
    for _ in 0..runs {
        let mut health = vec![10.0; bonds];
        let mut solver = StressSolver::new(
            &asset,
            settings,
            StressMaterials::uniform(Material::CONCRETE),
        )
        .unwrap();
        solver.solve(&asset, &nodes, &health, &loads).unwrap();
        let mut hash = 0u64;
        for k in 0..breaks {
            health[(k * 7919 + 1234) % bonds] = 0.0;
            let start = Instant::now();
            let report = solver.solve(&asset, &nodes, &health, &loads).unwrap();
            let us = start.elapsed().as_secs_f64() * 1e6;
            assert!(report.converged, "break {k}: {report:?}");
            best[k] = best[k].min(us);
            iterations[k] = report.iterations;
            for s in solver.bond_stresses() {
                hash = hash
                    .wrapping_mul(31)
                    .wrapping_add(u64::from(s.tension.to_bits()));
            }
        }
        hashes.push(hash);
    }
    assert!(hashes.windows(2).all(|w| w[0] == w[1]), "runs disagree");
    if each {
        for (k, (us, it)) in best.iter().zip(&iterations).enumerate() {
            println!("break {k}: {us:.0} µs, {it} iterations");
        }
    }
    let mut sorted = best.clone();
    sorted.sort_by(f64::total_cmp);
    let over = sorted.iter().filter(|&&t| t > 1000.0).count();
    println!(
        "{breaks} breaks, best of {runs} runs each: median {:.0} µs, p90 {:.0} µs, worst {:.0} µs, \
         {over} over 1 ms, total {:.1} ms, {} iterations, hash {:016x}",
        sorted[breaks / 2],
        sorted[breaks * 9 / 10],
        sorted[breaks - 1],
        best.iter().sum::<f64>() / 1e3,
        iterations.iter().sum::<u32>(),
        hashes[0]
    );
}
