//! The held-projectile seed's wall-push scene (issue 14 item 6, benchmarks),
//! the built-in `wall-push`: world step time median / p95 / max (ms) and
//! trials per frame over 600 frames (10 s at 60 Hz) under the bounded
//! stepper (tolerance 0.1 mm, 64 trials, stall rule after 8 subdivided
//! frames), for its first vehicle alone and for all eight, with holding
//! colliders and with every projectile a body on a fixed joint. A frame's
//! time is the world's step (every trial) plus the set's and the held
//! parts' safe points, without the recording; each frame's time is its
//! minimum over three identical (deterministic) runs. The world is warmed
//! up at load (`smithereens_rapier::warm_up`) as a game would after
//! building a level.
//!
//! `cargo bench -p smithereens-scenario --bench wall_push` (`-- --sweep`:
//! trials and outcomes at other tolerances and stall limits instead).

use smithereens_rapier::recorded_run::run_observed;
use smithereens_scenario::{ScenarioFile, build, builtin};
use std::path::Path;

/// Identical runs per design; see `main`.
const REPS: usize = 3;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

struct Row {
    median: f64,
    p95: f64,
    max: f64,
    over_3x: usize,
}

/// The scene (first `vehicles` vehicles, design `hold`).
fn scene(vehicles: usize, hold: &str) -> Result<ScenarioFile, Box<dyn std::error::Error>> {
    let mut file = ScenarioFile::parse(builtin("wall-push").ok_or("no wall-push")?)?;
    file.vehicles.truncate(vehicles);
    file.launches.retain(|l| (l.vehicle as usize) < vehicles);
    for v in &mut file.vehicles {
        v.hold = hold.into();
    }
    Ok(file)
}

/// `--sweep`: trials and outcomes for other tolerances and stall limits
/// (what the defaults were chosen from; trial counts are deterministic).
fn sweep() -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "design        vehicles  tolerance mm  stall_frames  trials/frame  subdivided  stalled  longest  max trials  rest m/s (vehicle 0)  wheel err mm"
    );
    for (vehicles, hold) in [
        (1, "colliders"),
        (8, "colliders"),
        (1, "fixed-joints"),
        (8, "fixed-joints"),
    ] {
        for tolerance in [5e-5f32, 1e-4, 2e-4, 5e-4] {
            for stall in [2u32, 4, 8, 16, 1000] {
                if tolerance != 1e-4 && stall != 8 {
                    continue;
                }
                let mut file = scene(vehicles, hold)?;
                let sub = file.substep.get_or_insert_with(Default::default);
                sub.tolerance = tolerance;
                sub.stall_frames = stall;
                let built = build(&file, Path::new("."), &mut |_| {})?;
                let (mut rest, mut err) = (0.0f32, 0.0f32);
                let (_, summary) = run_observed(&built.scenario, &mut |_, _| {}, &mut |step| {
                    let w = step.physics;
                    let v = &step.vehicles[0];
                    if step.step + 60 > step.steps {
                        rest = rest.max(w.bodies[v.chassis].linvel().length());
                    }
                    if step.step * 2 > step.steps {
                        err = err.max(smithereens_rapier::max_joint_anchor_error(w));
                    }
                })?;
                let d = summary.substep.ok_or("stepper")?;
                println!(
                    "{hold:<13} {vehicles:>8}  {:>12.2}  {stall:>12}  {:>12.2}  {:>10}  {:>7}  {:>7}  {:>10}  {rest:>20.4}  {:>12.3}",
                    tolerance * 1e3,
                    d.trials as f64 / d.frames as f64,
                    d.subdivided_frames,
                    d.stalled_frames,
                    d.longest_subdivided_run,
                    d.max_trials_in_frame,
                    err * 1e3,
                );
            }
        }
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "--sweep") {
        return sweep();
    }
    println!(
        "design        vehicles  median ms  p95 ms  max ms  >3x median  trials/frame  max trials  subdivided  stall trips  longest run"
    );
    for vehicles in [1usize, 8] {
        let mut p95 = Vec::new();
        for hold in ["colliders", "fixed-joints"] {
            let file = scene(vehicles, hold)?;
            let built = build(&file, Path::new("."), &mut |_| {})?;
            // Each frame's time is its minimum over REPS identical runs: the
            // runs are deterministic (same trials, same work per frame), so
            // the minimum removes the shared machine's preemption noise.
            let mut frames: Vec<(f64, u32, u32)> = Vec::with_capacity(600);
            let mut summary = None;
            for rep in 0..REPS {
                let mut k = 0;
                let (_, s) = run_observed(&built.scenario, &mut |_, _| {}, &mut |step| {
                    let trials = step.frame.map_or(1, |f| f.trials);
                    let ms = step.step_seconds * 1e3;
                    if rep == 0 {
                        frames.push((ms, trials, step.step));
                    } else if let Some(f) = frames.get_mut(k) {
                        assert_eq!((f.1, f.2), (trials, step.step), "runs are deterministic");
                        f.0 = f.0.min(ms);
                    }
                    k += 1;
                })?;
                summary = Some(s);
            }
            let summary = summary.ok_or("REPS >= 1")?;
            let mut times: Vec<f64> = frames.iter().map(|f| f.0).collect();
            times.sort_by(f64::total_cmp);
            let median = percentile(&times, 0.5);
            let row = Row {
                median,
                p95: percentile(&times, 0.95),
                max: times.last().copied().unwrap_or(0.0),
                over_3x: times.iter().filter(|&&t| t > 3.0 * median).count(),
            };
            let d = summary
                .substep
                .ok_or("the scene uses the bounded stepper")?;
            println!(
                "{hold:<13} {vehicles:>8}  {:>9.3}  {:>6.3}  {:>6.3}  {:>10}  {:>12.2}  {:>10}  {:>10}  {:>11}  {:>11}",
                row.median,
                row.p95,
                row.max,
                row.over_3x,
                d.trials as f64 / d.frames as f64,
                d.max_trials_in_frame,
                d.subdivided_frames,
                d.stall_trips,
                d.longest_subdivided_run,
            );
            p95.push(row.p95);
            if std::env::var_os("WALL_PUSH_SLOW").is_some() {
                let slow: Vec<_> = frames.iter().filter(|f| f.0 > 3.0 * median).collect();
                println!("    frames over 3x median (ms, trials, frame): {slow:?}");
            }
        }
        println!(
            "  {vehicles} vehicle(s): held p95 / joint p95 = 1 / {:.1}",
            p95[1] / p95[0]
        );
    }
    Ok(())
}
