//! Destruction work of one big split (admission, planning, body preparation
//! and the safe-point swap), measured from `StepReport::destruction_seconds`
//! so the Rapier step itself is excluded. Target: < 2 ms for a 2,000-chunk split.

mod scenes;

use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec3;
use smithereens_core::{EventId, RadialDamage};
use std::time::Duration;

fn big_split(c: &mut Criterion) {
    let mut g = c.benchmark_group("split");
    g.sample_size(10);
    // 20 × 10 × 10 = 2,000 chunks cut in half through the x = 2.5 m plane (100 bonds).
    g.bench_function("halve_2000", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let (mut w, asset) = scenes::floating_block(20, 10, 10);
                let bonds: Vec<_> = asset
                    .bonds()
                    .iter_enumerated()
                    .filter(|(_, bd)| (bd.centroid.x - 2.5).abs() < 1e-3)
                    .map(|(i, _)| i)
                    .collect();
                for (k, bi) in bonds.iter().enumerate() {
                    let p = asset.bonds()[*bi].centroid;
                    w.admit(RadialDamage {
                        id: EventId(k as u64),
                        point: p,
                        radius: 0.01,
                        damage: 1.0e6,
                        impulse: None,
                    })
                    .expect("admit");
                }
                let r = w.step().expect("step");
                assert_eq!(r.created.len() + r.shrunk.len(), 2);
                total += Duration::from_secs_f64(r.destruction_seconds);
            }
            total
        })
    });
    // The same block shattered into 2,000 single-chunk bodies by one event.
    g.bench_function("shatter_2000", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let (mut w, _) = scenes::floating_block(20, 10, 10);
                w.admit(RadialDamage {
                    id: EventId(1),
                    point: Vec3::new(2.5, 1.25, 1.25),
                    radius: 100.0,
                    damage: 1.0e9,
                    impulse: None,
                })
                .expect("admit");
                let r = w.step().expect("step");
                assert_eq!(r.created.len() + r.shrunk.len(), 2000);
                total += Duration::from_secs_f64(r.destruction_seconds);
            }
            total
        })
    });
    // A 48 × 24 × 2 wall of 0.25 m cubes (2,304 chunks, one fixed body)
    // loses its top corner cube: the commit (the wall keeps its body and
    // loses one collider, issue 12 item 5), then the Rapier step after it,
    // which pays for the kept body's modified colliders.
    for (name, rapier_step) in [
        ("chip_wall_2304_commit", false),
        ("chip_wall_2304_next_step", true),
    ] {
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let (mut w, corner) = scenes::standing_wall(48, 24, 2);
                    w.step().expect("warm-up step");
                    w.admit(RadialDamage {
                        id: EventId(1),
                        point: corner,
                        radius: 0.2,
                        damage: 1.0e6,
                        impulse: None,
                    })
                    .expect("admit");
                    let r = w.step().expect("step");
                    assert_eq!(r.created.len(), 1);
                    let r = if rapier_step {
                        let next = w.step().expect("step");
                        Duration::from_secs_f64(next.physics_seconds)
                    } else {
                        Duration::from_secs_f64(r.destruction_seconds)
                    };
                    total += r;
                }
                total
            })
        });
    }
    g.finish();
}

criterion_group!(benches, big_split);
criterion_main!(benches);
