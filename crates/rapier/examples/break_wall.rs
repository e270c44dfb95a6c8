//! Breaks a 24 × 12 × 2 wall of 0.25 m cubes with a 450 kg ball at 24 m/s,
//! driving the world through a `FixedStepper` with uneven frame times, and
//! prints what broke. `--steps N` sets the number of frames (default 240).
//!
//! `cargo run -p smithereens-rapier --example break_wall -- --steps 60`

use glam::Vec3;
use smithereens_core::fixtures::grid_desc;
use smithereens_core::{Asset, Pose};
use smithereens_rapier::{
    DestructionWorld, FixedStepper, ProjectileDesc, StepperSettings, WorldSettings,
};
use std::sync::Arc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let frames: u32 = match args.iter().position(|a| a == "--steps") {
        Some(i) => args.get(i + 1).ok_or("--steps needs a number")?.parse()?,
        None => 240,
    };
    let asset = Arc::new(Asset::new(&grid_desc(24, 12, 2, 0.25, 2400.0, 1500.0))?);
    let settings = WorldSettings::default();
    let mut world = DestructionWorld::new(asset, Pose::IDENTITY, settings)?;
    world.spawn_projectile(ProjectileDesc {
        position: Vec3::new(3.0, 1.5, -2.0),
        velocity: Vec3::new(0.0, 0.0, 24.0),
        radius: 0.4,
        mass: 450.0,
    })?;
    let mut stepper = FixedStepper::new(StepperSettings::default())?;
    let mut broken = 0;
    for frame in 0..frames {
        // A game would pass its measured frame time; alternate 12 ms and 20 ms here.
        let plan = stepper.advance(if frame % 2 == 0 { 0.012 } else { 0.020 });
        for _ in 0..plan.steps {
            broken += world.step()?.broken.len();
        }
    }
    let ledger = stepper.ledger();
    println!(
        "{} steps ({:.2} s simulated, {:.3} s carried): {broken} bonds broken, {} bodies, {} dynamic; state hash {:016x}",
        ledger.steps,
        stepper.simulated_time(),
        stepper.backlog(),
        world.cluster_bodies().len(),
        world.dynamic_body_count(),
        world.state_hash()
    );
    Ok(())
}
