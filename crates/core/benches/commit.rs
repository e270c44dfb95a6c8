//! Commit planning and the whole headless commit on the N×N×N grid asset
//! (N = 10, 20, 32; 0.5 m cubes, bottom layer supported, 10 du bonds).
//!
//! * `commit/plan/N`: [`Instance::plan`] for one pending hit that breaks
//!   bonds (candidate copy, damage, islands of the dirty cluster, mass
//!   properties, budget). Planning does not change the instance, so the same
//!   eight instances (each with a different pending hit) are planned in turn.
//! * `commit/full/N`: plan → prepare → commit → publish with the
//!   [`HeadlessBackend`] on a clone of such an instance (clone not timed).
//!
//! Run: `cargo bench -p smithereens-core --bench commit -- --warm-up-time 1 --measurement-time 2`.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use smithereens_core::glam::Vec3;
use smithereens_core::*;
use std::hint::black_box;
use std::sync::Arc;

/// Eight instances of the N-grid, each with one pending hit that breaks bonds.
fn fixtures(n: u32) -> Vec<Instance> {
    let asset = Arc::new(Asset::new(&fixtures::grid_desc(n, n, n, 0.5, 2000.0, 40.0)).unwrap());
    let base = Instance::new(asset, Pose::IDENTITY).unwrap();
    let size = n as f32 * 0.5;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 40) as f32) / ((1u64 << 24) as f32)
    };
    let mut out = Vec::new();
    while out.len() < 8 {
        let mut inst = base.clone();
        let event = RadialDamage {
            id: EventId(out.len() as u64),
            point: Vec3::new(next() * size, next() * size, next() * size),
            radius: 0.6 + 0.4 * next(),
            damage: 60.0,
            impulse: Some(Vec3::new(0.0, 5.0, 0.0)),
        };
        inst.admit(event).unwrap();
        if !inst.plan::<()>().unwrap().broken.is_empty() {
            out.push(inst);
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("commit");
    for n in [10u32, 20, 32] {
        let mut insts = fixtures(n);
        let mut k = 0usize;
        g.bench_with_input(BenchmarkId::new("plan", n), &n, |b, _| {
            b.iter(|| {
                k = (k + 1) % insts.len();
                black_box(insts[k].plan::<()>().unwrap())
            })
        });
        let mut k = 0usize;
        g.bench_with_input(BenchmarkId::new("full", n), &n, |b, _| {
            b.iter_batched(
                || {
                    k = (k + 1) % insts.len();
                    insts[k].clone()
                },
                |mut inst| black_box(inst.commit(&mut HeadlessBackend::default()).unwrap()),
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
