//! Commit cost on an N×N×N grid of unit cubes (1 m, 1000 kg/m³) with face
//! bonds (10 du each) and a world bond under every chunk of the z = 0 layer,
//! for N = 10, 20, 32, 40 (issue 12 scenarios; Blast reference numbers are in
//! the issue).
//!
//! Scenarios (one pending event each, built outside the timed section):
//! * `radial`: a ball at the grid centre with R = N·∛(0.3 / 4π) (10 % of the
//!   volume), budget large enough to break every bond inside it;
//! * `split_all`: a ball covering the whole grid that breaks every bond;
//! * `chip_origin` / `chip_far`: a ball of radius 1.6 m at chunk 0 (on the
//!   supported layer) and at the far corner chunk N³ − 1;
//! * `after_shatter/admit`: the admission alone of a far-corner chip on an
//!   instance that split-all already shattered into N³ loose chunks (it
//!   visits only clusters that still hold bonds: none), and
//!   `after_shatter/admit_impulse` the same with an impulse (which finds
//!   the nearest chunk through the loose index, built by the first
//!   admission, outside the timing); `after_shatter/admit_impulse_all_moved`
//!   the same after every piece moved (the index catches up over all N³).
//!
//! Measured per scenario:
//! * `<scenario>/plan/N`: admit + damage + islands + mass properties + budget
//!   ([`Instance::admit`] then [`Instance::plan`]; planning does not change
//!   the instance, so the event is withdrawn again outside the timing);
//! * `<scenario>/commit/N`: admit + full headless commit
//!   ([`Instance::admit`] then [`Instance::commit`] with [`HeadlessBackend`])
//!   on a fresh clone (neither the clone nor dropping it afterwards is timed).
//!
//! Run: `cargo bench -p smithereens-core --bench grid -- --warm-up-time 1 --measurement-time 3`.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use smithereens_core::glam::Vec3;
use smithereens_core::*;
use std::hint::black_box;
use std::sync::Arc;

fn grid_asset(n: u32) -> Arc<Asset> {
    Arc::new(Asset::new(&fixtures::blast_grid_desc(n)).unwrap())
}

fn scenarios(n: u32) -> Vec<(&'static str, RadialDamage)> {
    let nf = n as f32;
    let centre = Vec3::splat(nf * 0.5);
    let event = |point: Vec3, radius: f32| RadialDamage {
        id: EventId(1),
        point,
        radius,
        damage: 1.0e12,
        impulse: None,
    };
    vec![
        (
            "radial",
            event(centre, nf * (0.3 / (4.0 * std::f32::consts::PI)).cbrt()),
        ),
        ("split_all", event(centre, nf * 2.0)),
        ("chip_origin", event(Vec3::splat(0.5), 1.6)),
        ("chip_far", event(Vec3::splat(nf - 0.5), 1.6)),
    ]
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("grid");
    g.sample_size(20);
    for n in [10u32, 20, 32, 40] {
        let base = Instance::new(grid_asset(n), Pose::IDENTITY).unwrap();
        for (name, event) in scenarios(n) {
            let mut inst = base.clone();
            g.bench_with_input(BenchmarkId::new(format!("{name}/plan"), n), &n, |b, _| {
                b.iter(|| {
                    inst.admit(event).unwrap();
                    let plan = black_box(inst.plan::<()>().unwrap());
                    inst.withdraw_pending();
                    plan
                })
            });
            g.bench_with_input(BenchmarkId::new(format!("{name}/commit"), n), &n, |b, _| {
                b.iter_batched(
                    || base.clone(),
                    |mut inst| {
                        inst.admit(event).unwrap();
                        let outcome = inst.commit(&mut HeadlessBackend::default()).unwrap();
                        // Returned, so criterion drops the instance outside
                        // the timed section (dropping a 64,000-chunk
                        // instance is not part of a commit).
                        (inst, black_box(outcome))
                    },
                    BatchSize::LargeInput,
                )
            });
        }
        // Admission after a shatter: the split-all blast left N³ loose
        // chunks; a small blast at the far corner (nothing left to break)
        // visits only the clusters that still hold bonds, not every piece.
        let mut shattered = base.clone();
        shattered.admit(scenarios(n)[1].1).unwrap();
        shattered.commit(&mut HeadlessBackend::default()).unwrap();
        // With an impulse, the chunk nearest its point is looked for through
        // the loose index (O(debris near the point) once it has caught up).
        let mut id = 100u64;
        // A small blast at the far corner (nothing left to break there).
        let corner = |id: u64, impulse: Option<Vec3>| RadialDamage {
            id: EventId(id),
            point: Vec3::splat(n as f32 - 0.5),
            radius: 1.6,
            damage: 1.0e12,
            impulse,
        };
        for (name, impulse) in [
            ("after_shatter/admit", None),
            ("after_shatter/admit_impulse", Some(Vec3::Y)),
        ] {
            g.bench_with_input(BenchmarkId::new(name, n), &n, |b, _| {
                b.iter(|| {
                    id += 1;
                    let answer = black_box(shattered.admit(corner(id, impulse)).unwrap());
                    shattered.withdraw_pending();
                    answer
                })
            });
        }
        // Its worst case: every piece moved since the last impulse (moved
        // outside the timing), so the index catches up over all N³.
        let handles: Vec<ClusterHandle> = shattered.clusters().map(|(h, _)| h).collect();
        g.bench_with_input(
            BenchmarkId::new("after_shatter/admit_impulse_all_moved", n),
            &n,
            |b, _| {
                b.iter_custom(|iters| {
                    let mut total = std::time::Duration::ZERO;
                    for _ in 0..iters {
                        for &h in &handles {
                            let mut motion = shattered.cluster(h).unwrap().motion;
                            motion.pose.translation.y -= 0.37;
                            shattered.set_motion::<()>(h, motion).unwrap();
                        }
                        id += 1;
                        let event = corner(id, Some(Vec3::Y));
                        let start = std::time::Instant::now();
                        black_box(shattered.admit(event).unwrap());
                        total += start.elapsed();
                        shattered.withdraw_pending();
                    }
                    total
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
