//! The held-projectile seed's wall-push scene (issue 14 item 6, benchmarks):
//! a 1.2 t vehicle on four revolute-jointed wheels pushing its launcher of 4
//! projectiles into a wall for 600 frames (10 s at 60 Hz) under the bounded
//! stepper (tolerance 0.1 mm, 64 trials, default stall rule), with held
//! colliders and with projectiles on fixed joints, for 1 and 8 vehicles.
//! Prints world step time median / p95 / max (ms) and trials per frame.
//!
//! `cargo bench -p smithereens-rapier --bench held` (add `-- --frames N` for a shorter run).

#[path = "../tests/common/wall_push.rs"]
mod wall_push;

use smithereens_rapier::{BoundedStepper, SubstepSettings};
use std::time::Instant;
use wall_push::{Design, scene};

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let frames = args
        .iter()
        .position(|a| a == "--frames")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(600u32);
    println!(
        "design            vehicles  median ms  p95 ms  max ms  trials/frame  max trials  subdiv frames  stall trips  longest run"
    );
    for vehicles in [1u32, 8] {
        for design in [Design::HoldingColliders, Design::FixedJoints] {
            let (mut w, _held, _cars) = scene(design, vehicles);
            let mut stepper =
                BoundedStepper::new(SubstepSettings::default()).expect("defaults are valid");
            let mut times = Vec::with_capacity(frames as usize);
            for _ in 0..frames {
                let t = Instant::now();
                stepper.step(&mut w);
                times.push(t.elapsed().as_secs_f64() * 1e3);
            }
            times.sort_by(f64::total_cmp);
            let d = stepper.diagnostics();
            println!(
                "{:<17} {:>8}  {:>9.3}  {:>6.3}  {:>6.3}  {:>12.2}  {:>10}  {:>13}  {:>11}  {:>11}",
                format!("{design:?}"),
                vehicles,
                percentile(&times, 0.5),
                percentile(&times, 0.95),
                times.last().copied().unwrap_or(0.0),
                d.trials as f64 / d.frames as f64,
                d.max_trials_in_frame,
                d.subdivided_frames,
                d.stall_trips,
                d.longest_subdivided_run,
            );
        }
    }
}
