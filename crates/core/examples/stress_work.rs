//! Calibrates the stress solver's work units (bond passes, see
//! `smithereens_core::stress::solver`'s "Work") against time on this
//! machine: for each benchmark structure, the first solve (structure
//! built), a solve from rest on a known structure, and a re-solve after a
//! bond breaks, with their reported work and nanoseconds per pass
//! (medians of REPS runs). A frame budget in passes
//! (`DestructionSettings::stress_work_per_frame`) is about
//! `budget × ns/pass` of stress time.
//!
//! `cargo run --release -p smithereens-core --example stress_work [REPS] [reduced]`
//! (`reduced`: with `reduce_above = REDUCE_ABOVE`, which only the
//! 100×50×2 wall exceeds: its multi-resolution solve)
#![allow(clippy::unwrap_used)]

use smithereens_core::fixtures::{stress_bridge_desc, stress_tower_desc, stress_wall_desc};
use smithereens_core::glam::Vec3;
use smithereens_core::stress::{
    Material, REDUCE_ABOVE, StressLoads, StressMaterials, StressSettings, StressSolver,
};
use smithereens_core::*;
use std::time::Instant;

fn wall(nx: u32, ny: u32, nz: u32) -> Asset {
    Asset::new(&stress_wall_desc(nx, ny, nz)).expect("a valid wall")
}

fn tower() -> Asset {
    Asset::new(&stress_tower_desc()).expect("a valid tower")
}

fn bridge() -> Asset {
    Asset::new(&stress_bridge_desc()).expect("a valid bridge")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let reps: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20);
    let reduce_above = match std::env::args().nth(2).as_deref() {
        Some("reduced") => REDUCE_ABOVE,
        _ => 0,
    };
    let loads = StressLoads {
        gravity: Vec3::new(0.0, -9.81, 0.0),
        ..Default::default()
    };
    println!("| structure | bonds | phase | iterations | work, passes | time, µs | ns per pass |");
    println!("|---|---|---|---|---|---|---|");
    for (name, asset) in [
        ("wall 12×6", wall(12, 6, 1)),
        ("wall 24×12×2", wall(24, 12, 2)),
        ("wall 48×24×2", wall(48, 24, 2)),
        ("tower 4×4×8", tower()),
        ("bridge 30×10×2", bridge()),
        ("wall 100×50×2", wall(100, 50, 2)),
    ] {
        let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
        let health = vec![10.0; asset.bond_count()];
        let mut broken = health.clone();
        broken[asset.bond_count() / 3] = 0.0;
        let settings = StressSettings {
            max_iterations: 10_000,
            reduce_above,
            ..Default::default()
        };
        let fresh = StressSolver::new(
            &asset,
            settings,
            StressMaterials::uniform(Material::CONCRETE),
        )
        .unwrap();
        for phase in ["first", "cold", "break"] {
            let (mut times, mut work, mut iterations) = (Vec::new(), 0, 0);
            for _ in 0..reps {
                let mut s = fresh.clone();
                match phase {
                    "first" => {}
                    "cold" => {
                        s.solve(&asset, &nodes, &health, &loads).unwrap();
                        s.reset_warm_start();
                    }
                    _ => {
                        s.solve(&asset, &nodes, &health, &loads).unwrap();
                    }
                }
                let h = if phase == "break" { &broken } else { &health };
                let t0 = Instant::now();
                let r = s.solve(&asset, &nodes, h, &loads).unwrap();
                times.push(t0.elapsed().as_secs_f64() * 1e6);
                work = r.work;
                iterations = r.iterations;
            }
            let t = median(times);
            println!(
                "| {name} | {} | {phase} | {iterations} | {work} | {t:.1} | {:.1} |",
                asset.bond_count(),
                t * 1e3 / work as f64
            );
        }
    }
}
