//! Voronoi fracture time of the real meshes `spot.obj` (5,856 triangles)
//! and `bob_tri.obj` (10,688 triangles, genus 1) into 100, 500 and 2,000
//! sites (uniform, seed 1), with 1 and 2 threads (cells are carved in
//! parallel with rayon; the asset is the same for any thread count).
//! Throughput is reported in chunks produced per second. Benchmark ids are
//! `fracture_voronoi/<mesh>/<threads>t/<sites>`.
//!
//! Peak memory: after each size the bench prints the process's peak
//! resident set (`VmHWM` from `/proc/self/status`, Linux only). It is the
//! peak so far, so with sizes run in increasing order it bounds that size.
//! Hull counts: once per size it prints the number of hulls with the
//! default decomposition of concave chunks and without it (one hull per
//! chunk), and the time of each.
//!
//! Also: a two-level hierarchy of Spot (20 coarse sites × 25 per chunk,
//! support depth 1), Spot into 100 chunks with rough cuts (1 cm,
//! resolution 12), and Spot into 500 and 2,000 chunks with
//! `shared_regions`, to price those options against the plain cut.
//!
//! Run: `cargo bench -p smithereens-authoring --bench fracture`.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use smithereens_authoring::{
    CutNoise, FractureSettings, Pattern, Refinement, fracture_hierarchy, fracture_voronoi,
    load_mesh,
};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

fn bench(c: &mut Criterion) {
    for name in ["spot.obj", "bob_tri.obj"] {
        let path =
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/meshes")).join(name);
        let mesh = load_mesh(&path).unwrap();
        let mut group = c.benchmark_group(format!("fracture_voronoi/{name}"));
        group.sample_size(10);
        for sites in [100u32, 500, 2000] {
            let settings = FractureSettings {
                chunk_count: sites,
                seed: 1,
                ..Default::default()
            };
            let single = FractureSettings {
                decomposition: None,
                ..settings
            };
            for threads in [1usize, 2] {
                let pool = pool(threads);
                let once = |s: &FractureSettings| {
                    let start = Instant::now();
                    let file = pool.install(|| fracture_voronoi(&mesh, s, &mut |_| {}).unwrap());
                    (file, start.elapsed().as_secs_f64())
                };
                let (file, time) = once(&settings);
                let chunks = file.desc.chunks.len();
                let hulls: usize = file.desc.chunks.iter().map(|c| c.hulls.len()).sum();
                let several = file
                    .desc
                    .chunks
                    .iter()
                    .filter(|c| c.hulls.len() > 1)
                    .count();
                let (plain, plain_time) = once(&single);
                let plain_hulls: usize = plain.desc.chunks.iter().map(|c| c.hulls.len()).sum();
                eprintln!(
                    "{name} {sites} sites, {threads} thread(s): {chunks} chunks in {time:.3} s = {:.0} chunks/s (one run); \
                     hulls {hulls} ({several} chunks with several) with decomposition, \
                     {plain_hulls} without ({plain_time:.3} s); peak RSS {} KiB",
                    chunks as f64 / time,
                    peak_rss_kib().unwrap_or(0)
                );
                group.throughput(Throughput::Elements(chunks as u64));
                group.bench_with_input(
                    BenchmarkId::new(format!("{threads}t"), sites),
                    &settings,
                    |b, s| {
                        b.iter(|| {
                            black_box(
                                pool.install(|| fracture_voronoi(&mesh, s, &mut |_| {}).unwrap()),
                            )
                        })
                    },
                );
            }
        }
        group.finish();
    }
}

fn options(c: &mut Criterion) {
    let path = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/meshes/spot.obj"
    ));
    let mesh = load_mesh(&path).unwrap();
    let mut group = c.benchmark_group("fracture_options/spot.obj");
    group.sample_size(10);
    let coarse = FractureSettings {
        chunk_count: 20,
        seed: 1,
        ..Default::default()
    };
    let refinement = Refinement {
        pattern: Pattern::default(),
        chunk_count: 25,
        support_depth: 1,
    };
    let chunks = fracture_hierarchy(
        &mesh,
        &coarse,
        &Pattern::default(),
        &refinement,
        &mut |_| {},
    )
    .unwrap()
    .desc
    .chunks
    .len();
    group.throughput(Throughput::Elements(chunks as u64));
    group.bench_function("hierarchy 20x25", |b| {
        b.iter(|| {
            black_box(
                fracture_hierarchy(
                    &mesh,
                    &coarse,
                    &Pattern::default(),
                    &refinement,
                    &mut |_| {},
                )
                .unwrap(),
            )
        })
    });
    let rough = FractureSettings {
        chunk_count: 100,
        seed: 1,
        cut_noise: Some(CutNoise::default()),
        ..Default::default()
    };
    group.throughput(Throughput::Elements(100));
    group.bench_function("rough cuts 100", |b| {
        b.iter(|| black_box(fracture_voronoi(&mesh, &rough, &mut |_| {}).unwrap()))
    });
    for sites in [500, 2_000] {
        let shared = FractureSettings {
            chunk_count: sites,
            seed: 1,
            shared_regions: true,
            ..Default::default()
        };
        group.throughput(Throughput::Elements(u64::from(sites)));
        group.bench_function(format!("shared regions {sites}"), |b| {
            b.iter(|| black_box(fracture_voronoi(&mesh, &shared, &mut |_| {}).unwrap()))
        });
    }
    group.finish();
}

criterion_group!(benches, bench, options);
criterion_main!(benches);
