//! Cost of a [`DestructionSet`] inside a game's own Rapier world: the
//! library calls per step (`before_step` + `after_step`) beside Rapier's own
//! step, and spawn / despawn of a large instance. Prints a table.
//! Run with `cargo bench -p smithereens-rapier --bench world`.
//!
//! - **town**: 100 untouched instances of a 10 × 10 × 5 grid of 0.2 m cubes
//!   (500 chunks each, all supported: one fixed body per instance), a few
//!   game bodies asleep on the ground and a few awake (balls rolling).
//! - **debris**: one instance of 5,000 unbonded, unsupported 0.2 m cubes
//!   (5,000 dynamic library bodies, as after a wall broke into single
//!   chunks), resting on the ground: measured while awake, then asleep.
//! - **spawn / despawn** of a 48 × 24 × 2 wall (2,304 chunks).
//! - **re-running stepper** (`step_resolving_breaks`, issue 11 item 2): its
//!   cost in the town scene where nothing is hit (saving the awake bodies,
//!   looking for hits), and the step in which a 450 kg ball at 24 m/s breaks
//!   a 16 × 10 wall of 0.25 m cubes, re-run, against the same hit stepped
//!   the ordinary way (its breaking step and the step after, when the freed
//!   pieces first move).

use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_core::fixtures::{cube_chunk, grid_desc};
use smithereens_core::instance::InstanceDesc;
use smithereens_core::{Asset, AssetDesc, Pose};
use smithereens_rapier::world::insert_ground;
use smithereens_rapier::{DestructionSet, DestructionSettings, WorldSettings, new_physics_world};
use std::sync::Arc;
use std::time::Instant;

/// Median and 95th percentile of `v`.
fn stats(v: &mut [f64]) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.95))
}

/// Per-step wall times (µs) of the library calls and of Rapier's step.
#[derive(Default)]
struct StepTimes {
    library: Vec<f64>,
    before: Vec<f64>,
    rapier: Vec<f64>,
}

impl StepTimes {
    fn step(&mut self, physics: &mut PhysicsWorld, set: &mut DestructionSet) {
        let t0 = Instant::now();
        set.before_step(physics);
        let t1 = Instant::now();
        physics.step_with_events(&(), set.events());
        let t2 = Instant::now();
        let report = set.after_step(physics);
        let t3 = Instant::now();
        assert!(report.failed.is_empty(), "a commit failed");
        self.library
            .push(((t1 - t0) + (t3 - t2)).as_secs_f64() * 1e6);
        self.before.push((t1 - t0).as_secs_f64() * 1e6);
        self.rapier.push((t2 - t1).as_secs_f64() * 1e6);
    }

    fn print(mut self, name: &str) {
        let (lm, lp) = stats(&mut self.library);
        let (bm, _) = stats(&mut self.before);
        let (rm, rp) = stats(&mut self.rapier);
        println!(
            "{name:<36} {:>5} {lm:>10.1} {lp:>10.1} {bm:>10.1} {rm:>10.1} {rp:>10.1} {:>8.2}",
            self.library.len(),
            100.0 * lm / rm
        );
    }
}

/// The town scene stepped with `step_resolving_breaks`: library time is the
/// whole call minus Rapier's step inside it.
fn town_resolving(steps: usize, balls: u32) {
    let mut physics = new_physics_world(&WorldSettings::default());
    insert_ground(&mut physics, 0.0, 0.8);
    let mut set = DestructionSet::new(DestructionSettings::default()).expect("settings");
    let asset = Arc::new(Asset::new(&grid_desc(10, 10, 5, 0.2, 2000.0, 1000.0)).expect("grid"));
    for k in 0..100 {
        let at = Vec3::new((k % 10) as f32 * 4.0, 0.0, (k / 10) as f32 * 4.0);
        set.spawn(
            &mut physics,
            asset.clone(),
            Pose::from_translation(at),
            InstanceDesc::default(),
        )
        .expect("spawn");
    }
    for k in 0..balls {
        let b = physics.insert_body(
            RigidBodyBuilder::dynamic()
                .translation(Vec3::new(
                    -1.0 + 0.5 * (k / 10) as f32,
                    0.2,
                    3.0 + 4.0 * (k % 10) as f32,
                ))
                .linvel(Vec3::new(0.5, 0.0, 0.0)),
        );
        physics.insert_collider(ColliderBuilder::ball(0.2), Some(b));
    }
    let mut t = StepTimes::default();
    for k in 0..steps + 10 {
        let mut rapier = 0.0;
        let t0 = Instant::now();
        let report = set.step_resolving_breaks(&mut physics, &mut |physics, events| {
            let r0 = Instant::now();
            physics.step_with_events(&(), events);
            rapier += r0.elapsed().as_secs_f64() * 1e6;
        });
        let total = t0.elapsed().as_secs_f64() * 1e6;
        assert!(report.failed.is_empty() && !report.rerun);
        if k >= 10 {
            t.library.push(total - rapier);
            t.before.push(0.0);
            t.rapier.push(rapier);
        }
    }
    let awake = awake_bodies(&physics);
    t.print(&format!("town re-running, {awake} game awake"));
}

/// Wall time (ms) of each step of a 16 × 10 wall hit by a 450 kg ball at
/// 24 m/s, stepped plainly or with `step_resolving_breaks`; with the index
/// of the first step that broke bonds.
fn wall_hit(resolve: bool) -> (Vec<f64>, usize, bool) {
    let settings = WorldSettings::default();
    let mut physics = new_physics_world(&settings);
    insert_ground(&mut physics, 0.0, settings.friction);
    let mut set = DestructionSet::new(settings.destruction()).expect("settings");
    let asset = Arc::new(Asset::new(&grid_desc(16, 10, 1, 0.25, 2400.0, 1500.0)).expect("grid"));
    set.spawn(&mut physics, asset, Pose::IDENTITY, InstanceDesc::default())
        .expect("spawn");
    let ball = smithereens_rapier::ProjectileDesc {
        position: Vec3::new(2.0, 1.2, -2.0),
        velocity: Vec3::new(0.0, 0.0, 24.0),
        radius: 0.35,
        mass: 450.0,
    };
    smithereens_rapier::world::insert_projectile(
        &mut physics,
        &ball,
        settings.friction,
        settings.restitution,
    )
    .expect("ball");
    let (mut times, mut broke, mut rerun) = (Vec::new(), usize::MAX, false);
    for k in 0..20 {
        let t0 = Instant::now();
        let report = if resolve {
            set.step_resolving_breaks(&mut physics, &mut |physics, events| {
                physics.step_with_events(&(), events);
            })
        } else {
            set.before_step(&physics);
            physics.step_with_events(&(), set.events());
            set.after_step(&mut physics)
        };
        times.push(t0.elapsed().as_secs_f64() * 1e3);
        rerun |= report.rerun;
        if broke == usize::MAX && report.instances.values().any(|r| !r.broken.is_empty()) {
            broke = k;
        }
    }
    (times, broke, rerun)
}

/// The re-run step against the ordinary breaking step (+ the step after), medians over `n` runs.
fn rerun_cost(n: usize) {
    let (mut plain, mut plain2, mut re) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..n {
        let (t, b, _) = wall_hit(false);
        plain.push(t[b]);
        plain2.push(t[b] + t[b + 1]);
        let (t, b, rerun) = wall_hit(true);
        assert!(rerun, "the hit was re-run");
        re.push(t[b]);
    }
    let (p, _) = stats(&mut plain);
    let (p2, _) = stats(&mut plain2);
    let (r, _) = stats(&mut re);
    println!(
        "wall 16×10 hit by 450 kg at 24 m/s: re-run step {r:.3} ms; ordinary breaking step {p:.3} ms ({:.1}×), with the step after {p2:.3} ms ({:.1}×)  (n = {n})",
        r / p,
        r / p2
    );
}

fn awake_bodies(physics: &PhysicsWorld) -> usize {
    physics.islands.active_bodies().count()
}

/// 100 untouched 500-chunk instances, 4 sleeping crates and `balls` rolling balls.
fn town(steps: usize, balls: u32) {
    let mut physics = new_physics_world(&WorldSettings::default());
    insert_ground(&mut physics, 0.0, 0.8);
    let mut set = DestructionSet::new(DestructionSettings::default()).expect("settings");
    let asset = Arc::new(Asset::new(&grid_desc(10, 10, 5, 0.2, 2000.0, 1000.0)).expect("grid"));
    for k in 0..100 {
        let at = Vec3::new((k % 10) as f32 * 4.0, 0.0, (k / 10) as f32 * 4.0);
        set.spawn(
            &mut physics,
            asset.clone(),
            Pose::from_translation(at),
            InstanceDesc::default(),
        )
        .expect("spawn");
    }
    for k in 0..4 {
        let b = physics.insert_body(
            RigidBodyBuilder::dynamic()
                .translation(Vec3::new(-3.0, 0.25, k as f32 * 3.0))
                .sleeping(true),
        );
        physics.insert_collider(ColliderBuilder::cuboid(0.25, 0.25, 0.25), Some(b));
    }
    for k in 0..balls {
        // Rolling slowly along the streets between the rows (no damping: they keep rolling).
        let b = physics.insert_body(
            RigidBodyBuilder::dynamic()
                .translation(Vec3::new(
                    -1.0 + 0.5 * (k / 10) as f32,
                    0.2,
                    3.0 + 4.0 * (k % 10) as f32,
                ))
                .linvel(Vec3::new(0.5, 0.0, 0.0)),
        );
        physics.insert_collider(ColliderBuilder::ball(0.2), Some(b));
    }
    let mut t = StepTimes::default();
    for _ in 0..10 {
        t.step(&mut physics, &mut set); // warm-up: tables grow
    }
    t = StepTimes::default();
    for _ in 0..steps {
        t.step(&mut physics, &mut set);
    }
    let awake = awake_bodies(&physics);
    t.print(&format!("town 100×500 chunks, {awake} game awake"));
}

/// One instance of 5,000 loose 0.2 m cubes, 0.5 m apart on the ground.
fn debris(steps: usize) {
    let mut physics = new_physics_world(&WorldSettings::default());
    insert_ground(&mut physics, 0.0, 0.8);
    let mut set = DestructionSet::new(DestructionSettings::default()).expect("settings");
    let mut desc = AssetDesc::default();
    for k in 0..5000 {
        let (x, z) = ((k % 71) as f32 * 0.5, (k / 71) as f32 * 0.5);
        desc.chunks
            .push(cube_chunk(Vec3::new(x, 0.101, z), 0.2, 1000.0, false));
    }
    let asset = Arc::new(Asset::new(&desc).expect("debris"));
    let h = set
        .spawn(&mut physics, asset, Pose::IDENTITY, InstanceDesc::default())
        .expect("spawn");
    assert_eq!(set.cluster_bodies(h).expect("live").len(), 5000);
    for _ in 0..2 {
        StepTimes::default().step(&mut physics, &mut set); // warm-up: islands built, tables grow
    }
    // Resting debris falls asleep within a second or so; wake it all again
    // (as an explosion nearby would) until `steps` fully awake steps are timed.
    let mut awake = StepTimes::default();
    let mut rounds = 0;
    while awake.library.len() < steps {
        if awake_bodies(&physics) < 5000 {
            physics.wake_up_all(true);
            rounds += 1;
            assert!(rounds < 100, "debris does not stay awake");
            StepTimes::default().step(&mut physics, &mut set); // the wake-up step itself
            continue;
        }
        awake.step(&mut physics, &mut set);
    }
    awake.print("debris 5,000 bodies, all awake");
    let mut settle = 0;
    while awake_bodies(&physics) > 0 {
        StepTimes::default().step(&mut physics, &mut set);
        settle += 1;
        assert!(settle < 2000, "debris never slept");
    }
    let mut asleep = StepTimes::default();
    for _ in 0..steps {
        asleep.step(&mut physics, &mut set);
    }
    asleep.print("debris 5,000 bodies, asleep");
    println!("  (awake steps timed over {rounds} wake-ups)");
}

/// Spawn and despawn of a 48 × 24 × 2 wall, `n` times each.
fn spawn_despawn(n: usize) {
    let mut physics = new_physics_world(&WorldSettings::default());
    insert_ground(&mut physics, 0.0, 0.8);
    let mut set = DestructionSet::new(DestructionSettings::default()).expect("settings");
    let asset = Arc::new(Asset::new(&grid_desc(48, 24, 2, 0.25, 2400.0, 1500.0)).expect("grid"));
    let (mut fresh, mut shared, mut despawn) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..n {
        let pose = Pose::from_translation(Vec3::new(0.0, 0.0, 2.0 * k as f32));
        // Shapes dropped from the cache: the chunk shapes (convex hulls) are built.
        set.purge_unused_shapes();
        let t0 = Instant::now();
        let a = set
            .spawn(&mut physics, asset.clone(), pose, InstanceDesc::default())
            .expect("spawn");
        let t1 = Instant::now();
        // The asset's shapes are cached: shared.
        let b = set
            .spawn(&mut physics, asset.clone(), pose, InstanceDesc::default())
            .expect("spawn");
        let t2 = Instant::now();
        set.despawn(&mut physics, b).expect("despawn");
        let t3 = Instant::now();
        set.despawn(&mut physics, a).expect("despawn");
        physics.step(); // let Rapier settle its removals between rounds
        fresh.push((t1 - t0).as_secs_f64() * 1e3);
        shared.push((t2 - t1).as_secs_f64() * 1e3);
        despawn.push((t3 - t2).as_secs_f64() * 1e3);
    }
    for (name, v) in [
        ("spawn, shapes built", &mut fresh),
        ("spawn, shapes shared", &mut shared),
        ("despawn", &mut despawn),
    ] {
        let (m, p) = stats(v);
        println!(
            "wall 48×24×2 (2,304 chunks) {name:<22} median {m:>8.3} ms  p95 {p:>8.3} ms  (n = {n})"
        );
    }
}

fn main() {
    // `cargo test --benches` runs bench targets with `--bench` absent; keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    let steps = if quick { 3 } else { 300 };
    println!(
        "{:<36} {:>5} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8}",
        "scene (per step; µs)",
        "steps",
        "lib med",
        "lib p95",
        "before med",
        "rapier med",
        "rapier p95",
        "lib/rap %"
    );
    town(steps, 4);
    town(steps, 200);
    town_resolving(steps, 200);
    if !quick {
        debris(steps);
    }
    spawn_despawn(if quick { 1 } else { 20 });
    rerun_cost(if quick { 1 } else { 20 });
}
