//! A stress solve of the 100 × 50 × 2 wall (10,000 chunks, 24,700 bonds,
//! concrete) sliced by a per-frame work budget, as
//! `InstanceStress::update_within` slices it: from rest and after one bond
//! breaks, in full and reduced (`REDUCE_ABOVE`), and reduced from rest on
//! a solver prepared beforehand (`StressSolver::prepare`, as
//! `InstanceStress::new` does at load; its time is printed after the
//! table). Prints the calls, the total and the median and worst call, in
//! milliseconds.
//! `cargo run --release -p smithereens-core --example stress_slices -- 50000`
//! (the argument is the budget in bond passes; default 50,000, the
//! `DestructionSettings::stress_work_per_frame` default).
#![allow(missing_docs, clippy::unwrap_used)]

use smithereens_core::fixtures::stress_wall_desc;
use smithereens_core::glam::Vec3;
use smithereens_core::stress::{
    Material, REDUCE_ABOVE, StressLoads, StressMaterials, StressSettings, StressSolver,
};
use smithereens_core::*;
use std::time::Instant;

fn main() {
    let budget: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(50_000);
    let asset = Asset::new(&stress_wall_desc(100, 50, 2)).unwrap();
    let loads = StressLoads {
        gravity: Vec3::new(0.0, -9.81, 0.0),
        ..Default::default()
    };
    let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    let health = vec![10.0; asset.bond_count()];
    let mut broken = health.clone();
    broken[asset.bond_count() / 3] = 0.0;
    println!("| solve | phase | calls | total, ms | median call, ms | worst call, ms | residual |");
    println!("|---|---|---|---|---|---|---|");
    let mut prepare_ms = 0.0;
    for (name, reduce_above) in [
        ("full", 0),
        ("reduced", REDUCE_ABOVE),
        ("prepared", REDUCE_ABOVE),
    ] {
        for phase in ["rest", "break"] {
            if name == "prepared" && phase == "break" {
                continue;
            }
            let settings = StressSettings {
                reduce_above,
                ..Default::default()
            };
            let mut s = StressSolver::new(
                &asset,
                settings,
                StressMaterials::uniform(Material::CONCRETE),
            )
            .unwrap();
            if name == "prepared" {
                let t0 = Instant::now();
                assert!(s.prepare(&asset, &nodes, &health).unwrap());
                prepare_ms = t0.elapsed().as_secs_f64() * 1e3;
            }
            let h = if phase == "break" {
                s.solve(&asset, &nodes, &health, &loads).unwrap();
                &broken
            } else {
                &health
            };
            let mut progress = None;
            let mut times = Vec::new();
            let report = loop {
                let t0 = Instant::now();
                let r = s
                    .solve_within(&asset, &nodes, h, &loads, budget, &mut progress)
                    .unwrap();
                times.push(t0.elapsed().as_secs_f64() * 1e3);
                if progress.is_none() {
                    break r;
                }
            };
            let total: f64 = times.iter().sum();
            let calls = times.len();
            times.sort_by(f64::total_cmp);
            println!(
                "| {name} | {phase} | {calls} | {total:.2} | {:.3} | {:.3} | {:.2e} |",
                times[calls / 2],
                times[calls - 1],
                report.residual
            );
        }
    }
    println!();
    println!("prepare (before the prepared solve): {prepare_ms:.2} ms");
}
