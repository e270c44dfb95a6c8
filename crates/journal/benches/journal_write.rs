//! Journal write per commit on the N×N×N grid asset (N = 10, 20, 32).
//!
//! Each iteration makes one commit on the instance (a seeded random hit;
//! not timed) and times [`Journal::append`]: the record, its receipts, the
//! pending-table update and the metadata in one redb transaction.
//! `journal/append_fsync/N` uses [`Durability::Immediate`] (fsync per
//! commit), `journal/append_nosync/N` [`Durability::None`] (CPU and page
//! cost only). Checkpoints are off while timing; the snapshot size is
//! printed separately. After each group the bench prints the median logical
//! bytes written per commit.
//!
//! Run: `cargo bench -p smithereens-journal --bench journal_write -- --warm-up-time 1 --measurement-time 2`.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use smithereens_core::glam::Vec3;
use smithereens_core::*;
use smithereens_journal::*;
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Stream {
    inst: Instance,
    seed: u64,
    next_id: u64,
    size: f32,
}

impl Stream {
    fn new(n: u32) -> Self {
        let asset = Arc::new(Asset::new(&fixtures::grid_desc(n, n, n, 0.5, 2000.0, 40.0)).unwrap());
        Self {
            inst: Instance::new(asset, Pose::IDENTITY).unwrap(),
            seed: 0x2545_f491_4f6c_dd1d,
            next_id: 0,
            size: n as f32 * 0.5,
        }
    }

    fn rand(&mut self) -> f32 {
        self.seed = self
            .seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.seed >> 40) as f32) / ((1u64 << 24) as f32)
    }

    /// One more commit (one hit); returns its record.
    fn next(&mut self) -> CommitRecord {
        self.next_id += 1;
        let point = Vec3::new(self.rand(), self.rand(), self.rand()) * self.size;
        let event = RadialDamage {
            id: EventId(self.next_id),
            point,
            radius: 0.6 + 0.4 * self.rand(),
            damage: 60.0,
            impulse: None,
        };
        self.inst.admit(event).unwrap();
        self.inst
            .commit(&mut HeadlessBackend::default())
            .unwrap()
            .record
            .unwrap()
    }
}

fn median(v: &mut [u64]) -> u64 {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}

fn bench(c: &mut Criterion) {
    let dir =
        std::env::temp_dir().join(format!("smithereens-journal-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut g = c.benchmark_group("journal");
    for n in [10u32, 20, 32] {
        for (name, durability) in [
            ("append_fsync", Durability::Immediate),
            ("append_nosync", Durability::None),
        ] {
            let path = dir.join(format!("{name}-{n}.redb"));
            let _ = std::fs::remove_file(&path);
            let mut stream = Stream::new(n);
            let options = JournalOptions {
                durability,
                checkpoint_every: 0,
                prune: false,
            };
            let mut journal = Journal::create(&path, &stream.inst, options).unwrap();
            let start_size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            let mut bytes = Vec::new();
            g.bench_with_input(BenchmarkId::new(name, n), &n, |b, _| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let record = stream.next();
                        let t = Instant::now();
                        let stats = journal.append(&record, &stream.inst).unwrap();
                        total += t.elapsed();
                        bytes.push(stats.bytes);
                    }
                    total
                })
            });
            let commits = journal.commit_seq();
            let snapshot = stream.inst.snapshot().to_bytes().len();
            drop(journal);
            let end_size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            let mean = bytes.iter().sum::<u64>() / (bytes.len() as u64).max(1);
            let max = bytes.iter().copied().max().unwrap_or(0);
            eprintln!(
                "journal/{name}/{n}: median {} B, mean {mean} B, max {max} B logical per commit over {} commits; file grew {} B ({} B/commit); snapshot {} B",
                median(&mut bytes),
                commits,
                end_size.saturating_sub(start_size),
                end_size.saturating_sub(start_size) / commits.max(1),
                snapshot
            );
            let _ = std::fs::remove_file(&path);
        }
    }
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
