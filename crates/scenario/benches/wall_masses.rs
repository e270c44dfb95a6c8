//! Issue 11's benchmark: the built-in wall (120 Voronoi chunks, 439 bonds)
//! hit at 24 m/s by balls of 45 kg, 450 kg, 4.5 t and 45 t, each run as
//! the built-in runs it (re-run stepper on) and with plain steps. Per mass:
//! bonds broken, pieces freed, the worst destruction step and the worst
//! whole step (Rapier included), ms, and the ball's speed along its path
//! 1 s after launch (it starts 2 m in front of the wall).
//!
//! `cargo bench -p smithereens-scenario --bench wall_masses` (release). The
//! timings are wall-clock on whatever machine runs it; read them against
//! each other (the re-run against the plain step), not as absolutes.

use smithereens_rapier::recorded_run::run;
use smithereens_scenario::{ScenarioFile, build, builtin};
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "| ball | stepper | bonds broken | pieces freed | worst destruction step, ms | worst step, ms | ball speed at 1 s, m/s |"
    );
    println!("|---|---|---|---|---|---|---|");
    for mass in [45.0f32, 450.0, 4_500.0, 45_000.0] {
        for resolve in [true, false] {
            let mut file = ScenarioFile::parse(builtin("wall").ok_or("no built-in wall")?)?;
            file.duration = 1.0;
            file.resolve_breaks = resolve;
            file.projectiles[0].mass = mass;
            let built = build(&file, Path::new("."), &mut |_| {})?;
            let (record, summary) = run(&built.scenario, &mut |_, _| {})?;
            // The ball's velocity along z from its last two recorded poses.
            let speed = match record.projectiles.first().map(|p| p.poses.as_slice()) {
                Some([.., a, b]) => (b[2] - a[2]) / record.timestep,
                _ => f32::NAN,
            };
            println!(
                "| {} kg | {} | {} of {} | {} | {:.2} | {:.2} | {:.1} |",
                mass,
                if resolve { "re-run" } else { "plain" },
                summary.bonds_broken,
                summary.bonds,
                summary.dynamic_bodies,
                summary.destruction_worst_seconds * 1e3,
                summary.step_worst_seconds * 1e3,
                speed
            );
        }
    }
    Ok(())
}
