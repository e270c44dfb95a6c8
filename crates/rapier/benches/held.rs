//! Costs of held parts and of the bounded stepper's saved state (issue 14):
//! saving the sets a step writes against a serialised world, and the
//! durability read (`after_step` + `commit_damage`) of 32 holding colliders
//! pressed into a wall. The wall-push scene's step times and trials per
//! frame (item 6) are `cargo bench -p smithereens-scenario --bench wall_push`.
//!
//! `cargo bench -p smithereens-rapier --bench held` (add `-- --frames N` for a shorter run).

#[path = "common/held_scene.rs"]
mod wall_push;

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
    save_cost();
    durability_cost(frames);
}

/// What saving the state for a retry costs on the 8-vehicle joint-design
/// world (the one `BoundedStepper` saves before every trial): cloning the
/// sets a step writes versus a postcard round trip of the whole world.
fn save_cost() {
    let (mut w, _held, _cars) = scene(Design::FixedJoints, 8);
    for _ in 0..60 {
        w.step();
    }
    let n = 200;
    let t = Instant::now();
    for _ in 0..n {
        let saved = (
            w.islands.clone(),
            w.broad_phase.clone(),
            w.narrow_phase.clone(),
            w.bodies.clone(),
            w.colliders.clone(),
            w.impulse_joints.clone(),
            w.multibody_joints.clone(),
            w.soft_bodies.clone(),
            w.ccd_solver.clone(),
        );
        std::hint::black_box(&saved);
    }
    let clone_us = t.elapsed().as_secs_f64() * 1e6 / f64::from(n);
    let t = Instant::now();
    let mut bytes = 0;
    for _ in 0..n {
        let b = postcard::to_allocvec(&w).expect("world serializes");
        bytes = b.len();
        let back: rapier3d::prelude::PhysicsWorld = postcard::from_bytes(&b).expect("and back");
        std::hint::black_box(&back);
    }
    let serde_us = t.elapsed().as_secs_f64() * 1e6 / f64::from(n);
    let t = Instant::now();
    for _ in 0..n {
        w.step();
    }
    let step_us = t.elapsed().as_secs_f64() * 1e6 / f64::from(n);
    println!(
        "save state, 8 vehicles ({} bodies): clone of the sets {clone_us:.1} µs, postcard round trip {serde_us:.1} µs ({bytes} B), one plain step {step_us:.1} µs",
        w.bodies.len()
    );
}

/// What held-part durability costs per frame on the 8-vehicle held-design
/// world driving into the wall: `after_step` (contacts of 32 holding
/// colliders through the episode model) plus `commit_damage`, over the
/// frames in which some holding collider touched something (the chassis are
/// kept awake so the drive keeps pressing), beside the plain step.
fn durability_cost(frames: u32) {
    let (mut w, mut held, cars) = scene(Design::HoldingColliders, 8);
    // The default 1 du per N·s breaks a 1.2 t vehicle's weapon (1,400 du)
    // at the first bump; at 0.01 du per N·s the parts stay and keep pressing.
    held.set_impact(smithereens_rapier::ImpactDamage {
        damage_per_impulse: 0.01,
        ..Default::default()
    })
    .expect("valid mapping");
    let holding: Vec<_> = (0..held.launcher_count())
        .flat_map(|l| (0..4).map(move |i| (l, i)))
        .filter_map(|(l, i)| held.holding_collider(smithereens_rapier::LauncherId(l), i))
        .collect();
    let mut events = Vec::new();
    let (mut read, mut step) = (Vec::new(), Vec::new());
    let mut most = 0;
    for _ in 0..frames {
        // Kept awake: the drive keeps pressing the parts into the wall.
        for car in &cars {
            w.bodies[car.chassis].wake_up(true);
        }
        let t = Instant::now();
        w.step();
        let step_us = t.elapsed().as_secs_f64() * 1e6;
        let t = Instant::now();
        held.after_step(&w);
        held.commit_damage(&mut w, &mut events);
        let us = t.elapsed().as_secs_f64() * 1e6;
        let touching: usize = holding
            .iter()
            .map(|&h| {
                w.narrow_phase
                    .contact_pairs_with(h)
                    .filter(|p| p.has_any_active_contact())
                    .count()
            })
            .sum();
        if touching > 0 {
            most = most.max(touching);
            read.push(us);
            step.push(step_us);
        }
    }
    read.sort_by(f64::total_cmp);
    step.sort_by(f64::total_cmp);
    println!(
        "held durability, 8 vehicles (32 holding colliders), {} of {frames} frames with contacts (at most {most} pairs): after_step + commit median {:.1} µs, p95 {:.1} µs, max {:.1} µs; plain step median {:.1} µs; {} damage events, the first {:.2} du",
        read.len(),
        percentile(&read, 0.5),
        percentile(&read, 0.95),
        read.last().copied().unwrap_or(0.0),
        percentile(&step, 0.5),
        events.len(),
        events.first().map_or(0.0, |e| e.damage),
    );
}
