//! A game that owns its Rapier world and adds destruction to it.
//!
//! The game builds the `PhysicsWorld`, a ground, a character-like capsule
//! (kinematic, position-based) walking a path through a street of
//! destructibles, crates and thrown balls, and its own event handler that
//! counts collision events. A [`DestructionSet`] holds 50 destructible
//! instances (three grid assets, shared through `Arc`). Each step:
//!
//! ```ignore
//! set.before_step(&physics);
//! physics.step_with_events(&(), &BothEvents(&game_events, set.events()));
//! let report = set.after_step(&mut physics);
//! ```
//!
//! Balls break walls through contact damage. The capsule breaks them too:
//! Rapier never solves a kinematic body against a fixed one, so the library
//! turns a kinematic body's first touch of a fixed chunk into damage
//! (`J = m_chunk · v_n`, see `smithereens_rapier::set::contact`), and the
//! capsule then shoves the freed, dynamic pieces through Rapier's solver.
//! Prints per-step timings (Rapier step vs destruction work) and what broke.
//! `--steps N` sets the number of 60 Hz steps (default 600).
//!
//! `cargo run --release -p smithereens-rapier --example game_world`

use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_core::fixtures::grid_desc;
use smithereens_core::instance::InstanceDesc;
use smithereens_core::{Asset, Pose};
use smithereens_rapier::world::insert_ground;
use smithereens_rapier::{
    BothEvents, DestructionSet, DestructionSettings, WorldSettings, new_physics_world,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Instant;

/// Lots of the street: `LOTS_X × LOTS_Z` instances, `LOT` m apart.
const LOTS_X: u32 = 10;
const LOTS_Z: u32 = 5;
const LOT: f32 = 6.0;
/// Capsule: radius and half-height of its segment (m), walking speed (m/s).
const CAPSULE_RADIUS: f32 = 0.4;
const CAPSULE_HALF_HEIGHT: f32 = 0.5;
const WALK_SPEED: f32 = 4.0;
/// Thrown balls: one every `BALL_EVERY` steps, radius (m), mass (kg), speed (m/s).
const BALL_EVERY: u64 = 25;
const BALL_RADIUS: f32 = 0.15;
const BALL_MASS: f32 = 10.0;
const BALL_SPEED: f32 = 20.0;

/// The game's own event handler: counts what Rapier reports, and how often
/// the capsule started touching something.
struct GameEvents {
    capsule: ColliderHandle,
    collisions: AtomicU32,
    capsule_touches: AtomicU32,
    contact_forces: AtomicU64,
}

impl EventHandler for GameEvents {
    fn handle_collision_event(
        &self,
        _: &RigidBodySet,
        _: &ColliderSet,
        event: CollisionEvent,
        _: Option<&ContactPair>,
    ) {
        self.collisions.fetch_add(1, Ordering::Relaxed);
        if let CollisionEvent::Started(a, b, _) = event
            && (a == self.capsule || b == self.capsule)
        {
            self.capsule_touches.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn handle_contact_force_event(
        &self,
        _: f32,
        _: &RigidBodySet,
        _: &ColliderSet,
        _: &ContactPair,
        _: f32,
    ) {
        self.contact_forces.fetch_add(1, Ordering::Relaxed);
    }

    fn handle_soft_body_tear_event(&self, _: &SoftBodySet, _: &SoftBodyTearEvent) {}
}

/// Median, 95th percentile and maximum of `v` (ms).
fn stats(v: &mut [f64]) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.95), at(1.0))
}

/// Point on the closed polyline `path` after walking `d` m from its start.
fn along(path: &[Vec3], mut d: f32) -> (Vec3, Vec3) {
    let total: f32 = path.windows(2).map(|w| w[0].distance(w[1])).sum();
    d = d.rem_euclid(total);
    for w in path.windows(2) {
        let len = w[0].distance(w[1]);
        if d <= len {
            let dir = (w[1] - w[0]) / len;
            return (w[0] + dir * d, dir);
        }
        d -= len;
    }
    (path[0], Vec3::Z)
}

fn lot_centre(i: u32, j: u32) -> Vec3 {
    Vec3::new(i as f32 * LOT, 0.0, j as f32 * LOT)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let steps: u64 = match args.iter().position(|a| a == "--steps") {
        Some(i) => args.get(i + 1).ok_or("--steps needs a number")?.parse()?,
        None => 600,
    };

    // The game's world: Rapier's pipeline, configured like the library's own
    // tools (60 Hz, gravity −9.81 m/s²).
    let mut physics = new_physics_world(&WorldSettings::default());
    insert_ground(&mut physics, 0.0, 0.8);

    // Destruction settings: the default impulse → damage mapping (1 du per
    // N·s above 20 N·s, only when the surfaces approach at ≥ 1 m/s); each
    // hit spreads through the bond graph from the touched chunk, so a
    // heavier ball opens a larger hole.
    let settings = DestructionSettings::default();
    let mut set = DestructionSet::new(settings)?;

    // Three assets, each shared by many instances (and their chunk shapes).
    // Bonds: 240 du/m² × face area, i.e. 15 du (0.25 m cubes), 9.6 du (0.2 m).
    let wall = Arc::new(Asset::new(&grid_desc(10, 6, 1, 0.25, 2000.0, 240.0))?);
    let column = Arc::new(Asset::new(&grid_desc(2, 10, 2, 0.2, 2000.0, 240.0))?);
    let low_wall = Arc::new(Asset::new(&grid_desc(16, 3, 2, 0.2, 2000.0, 240.0))?);
    let mut instances = Vec::new();
    for j in 0..LOTS_Z {
        for i in 0..LOTS_X {
            let (asset, extent) = match (i + j) % 3 {
                0 => (&wall, Vec3::new(2.5, 1.5, 0.25)),
                1 => (&column, Vec3::new(0.4, 2.0, 0.4)),
                _ => (&low_wall, Vec3::new(3.2, 0.6, 0.4)),
            };
            // Grid assets start at the origin: centre them on the lot.
            let corner = lot_centre(i, j) - Vec3::new(extent.x, 0.0, extent.z) * 0.5;
            let h = set.spawn(
                &mut physics,
                asset.clone(),
                Pose::from_translation(corner),
                InstanceDesc::default(),
            )?;
            instances.push(h);
        }
    }

    // The character: a kinematic capsule walking a loop through lots (0, *) and (2, *).
    let path = [
        Vec3::new(0.0, 0.0, -4.0),
        Vec3::new(0.0, 0.0, 28.0),
        Vec3::new(12.0, 0.0, 28.0),
        Vec3::new(12.0, 0.0, -4.0),
        Vec3::new(0.0, 0.0, -4.0),
    ];
    let lift = Vec3::Y * (CAPSULE_RADIUS + CAPSULE_HALF_HEIGHT + 0.05);
    let capsule_body = physics
        .insert_body(RigidBodyBuilder::kinematic_position_based().translation(path[0] + lift));
    let capsule = physics.insert_collider(
        ColliderBuilder::capsule_y(CAPSULE_HALF_HEIGHT, CAPSULE_RADIUS)
            .friction(0.3)
            .active_events(ActiveEvents::COLLISION_EVENTS),
        Some(capsule_body),
    );

    // Crates: some on the capsule's path (shoved aside), some stacked two high elsewhere.
    let mut crates = Vec::new();
    for j in 0..LOTS_Z {
        for (x, stacked) in [(0.0, false), (12.0, false), (30.0, true), (42.0, true)] {
            for level in 0..if stacked { 2 } else { 1 } {
                let b = physics.insert_body(RigidBodyBuilder::dynamic().translation(Vec3::new(
                    x + 0.6,
                    0.25 + 0.5 * level as f32,
                    j as f32 * LOT + 3.0,
                )));
                physics.insert_collider(
                    ColliderBuilder::cuboid(0.25, 0.25, 0.25)
                        .mass(30.0)
                        .active_events(ActiveEvents::COLLISION_EVENTS),
                    Some(b),
                );
                crates.push((b, physics.bodies[b].translation()));
            }
        }
    }

    let events = GameEvents {
        capsule,
        collisions: AtomicU32::new(0),
        capsule_touches: AtomicU32::new(0),
        contact_forces: AtomicU64::new(0),
    };
    let dt = physics.integration_parameters.dt;
    let (mut rapier_ms, mut destruction_ms) = (Vec::new(), Vec::new());
    let (mut balls, mut created, mut contact_damage) = (0u32, 0usize, 0usize);
    let started = Instant::now();
    for step in 0..steps {
        // Game logic before the step: walk the capsule, throw a ball now and then.
        let (pos, _) = along(&path, WALK_SPEED * dt * (step + 1) as f32);
        if let Some(b) = physics.bodies.get_mut(capsule_body) {
            b.set_next_kinematic_translation(pos + lift);
        }
        if step % BALL_EVERY == 10 {
            // Targets cycle over the lots off the capsule's path.
            let k = (step / BALL_EVERY) as u32;
            let (i, j) = (3 + (k * 3) % (LOTS_X - 3), k % LOTS_Z);
            let target = lot_centre(i, j) + Vec3::Y * 0.5;
            let from = target - Vec3::Z * 4.5 + Vec3::X * 0.3 * (k % 3) as f32;
            let v = (target - from).normalize() * BALL_SPEED;
            let b = physics.insert_body(
                RigidBodyBuilder::dynamic()
                    .translation(from)
                    .linvel(v)
                    .ccd_enabled(true),
            );
            physics.insert_collider(
                ColliderBuilder::ball(BALL_RADIUS)
                    .mass(BALL_MASS)
                    .restitution(0.1)
                    .active_events(ActiveEvents::COLLISION_EVENTS),
                Some(b),
            );
            balls += 1;
        }

        // The step, with the library's work around it.
        let t0 = Instant::now();
        set.before_step(&physics);
        let t1 = Instant::now();
        physics.step_with_events(&(), &BothEvents(&events, set.events()));
        let t2 = Instant::now();
        let report = set.after_step(&mut physics);
        let t3 = Instant::now();
        for r in report.instances.values() {
            created += r.created.len() + r.shrunk.len();
            contact_damage += r.events.len();
        }
        for (h, e) in &report.failed {
            eprintln!("step {step}: commit of {h} failed: {e}");
        }
        rapier_ms.push((t2 - t1).as_secs_f64() * 1e3);
        destruction_ms.push(((t1 - t0) + (t3 - t2)).as_secs_f64() * 1e3);
    }
    let wall_seconds = started.elapsed().as_secs_f64();

    let broken_instances = set
        .instances()
        .filter(|(_, i)| i.broken_count() > 0)
        .count();
    let bonds_broken: usize = set.instances().map(|(_, i)| i.broken_count()).sum();
    let (mut bodies, mut dynamic) = (0, 0);
    for &h in &instances {
        for &rb in set.cluster_bodies(h)?.values() {
            bodies += 1;
            dynamic += usize::from(physics.bodies.get(rb).is_some_and(|b| b.is_dynamic()));
        }
    }
    let moved_crates = crates
        .iter()
        .filter(|&&(b, p0)| {
            physics
                .bodies
                .get(b)
                .is_some_and(|b| b.translation().distance(p0) > 0.1)
        })
        .count();
    let (rm, rp, rx) = stats(&mut rapier_ms);
    let (dm, dp, dx) = stats(&mut destruction_ms);
    println!(
        "{steps} steps ({:.1} s simulated) in {wall_seconds:.2} s wall; {} instances, {} chunks, {} game bodies",
        steps as f32 * dt,
        set.len(),
        set.instances()
            .map(|(_, i)| i.asset().chunk_count())
            .sum::<usize>(),
        1 + crates.len() as u32 + balls,
    );
    println!("per step, ms       median    p95      max");
    println!("  rapier step   {rm:>9.3} {rp:>8.3} {rx:>8.3}");
    println!("  destruction   {dm:>9.3} {dp:>8.3} {dx:>8.3}   (before_step + after_step)");
    println!(
        "broke: {broken_instances} of {} instances have broken bonds, {bonds_broken} bonds broken, {created} clusters created",
        set.len()
    );
    println!(
        "bodies: {bodies} library bodies ({dynamic} dynamic); {} contact damage events, {} capsule touches, {balls} balls thrown",
        contact_damage,
        events.capsule_touches.load(Ordering::Relaxed),
    );
    println!(
        "game handler: {} collision events, {} contact-force events; {moved_crates} of {} crates moved > 0.1 m",
        events.collisions.load(Ordering::Relaxed),
        events.contact_forces.load(Ordering::Relaxed),
        crates.len()
    );
    println!("state hash {:016x}", set.state_hash(&physics));
    Ok(())
}
