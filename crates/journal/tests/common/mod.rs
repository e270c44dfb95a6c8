//! Shared fixtures for the journal tests.
#![allow(dead_code, clippy::unwrap_used)]

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use smithereens_core::glam::Vec3;
use smithereens_core::*;
use smithereens_journal::{Journal, JournalError, JournalOptions, WriteStats};
use std::path::PathBuf;
use std::sync::Arc;

/// Edge of the test grid.
pub const N: u32 = 4;

/// The N³ grid of 0.5 m cubes, bottom layer supported, 10 du bonds.
pub fn asset() -> Arc<Asset> {
    Arc::new(Asset::new(&fixtures::grid_desc(N, N, N, 0.5, 2000.0, 40.0)).unwrap())
}

/// The journaled instance's descriptor.
pub fn desc() -> InstanceDesc {
    InstanceDesc {
        id: InstanceId(7),
        budget: BudgetDesc {
            body_slots: 16,
            ..BudgetDesc::default()
        },
        ..InstanceDesc::default()
    }
}

/// The event committed as commit `seq`: a function of `seq` alone.
pub fn event_for(seq: u64) -> RadialDamage {
    let mut rng = Pcg64Mcg::seed_from_u64(seq.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let size = N as f32 * 0.5;
    RadialDamage {
        id: EventId(seq),
        point: Vec3::new(
            rng.random_range(0.0..size),
            rng.random_range(0.0..size),
            rng.random_range(0.0..size),
        ),
        radius: rng.random_range(0.3..0.9),
        damage: rng.random_range(5.0..30.0),
        impulse: rng
            .random_bool(0.3)
            .then(|| Vec3::new(0.0, rng.random_range(0.0..10.0), 0.0)),
    }
}

/// Reference replay: state hash after each commit 0..=upto, one event per commit.
pub struct Reference {
    inst: Instance,
    hashes: Vec<u64>,
}

impl Reference {
    pub fn new() -> Self {
        let inst = Instance::with_desc(asset(), desc()).unwrap();
        let hashes = vec![inst.state_hash()];
        Self { inst, hashes }
    }

    /// State hash after commit `seq`.
    pub fn hash(&mut self, seq: u64) -> u64 {
        while self.hashes.len() as u64 <= seq {
            let next = self.hashes.len() as u64;
            self.inst.admit(event_for(next)).unwrap();
            self.inst.commit(&mut HeadlessBackend::default()).unwrap();
            assert_eq!(self.inst.commit_seq(), next);
            self.hashes.push(self.inst.state_hash());
        }
        self.hashes[seq as usize]
    }
}

/// A fresh directory under the system temp dir (removed by the caller).
pub fn temp_dir(tag: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!(
        "smithereens-journal-{tag}-{}-{nanos}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Admits and commits the events of commits `from..=to` (one each, see
/// [`event_for`]) and journals every commit; the write stats.
pub fn commit_all(
    journal: &mut Journal,
    inst: &mut Instance,
    from: u64,
    to: u64,
) -> Vec<WriteStats> {
    let mut stats = Vec::new();
    for seq in from..=to {
        inst.admit(event_for(seq)).unwrap();
        let out = inst.commit(&mut HeadlessBackend::default()).unwrap();
        let record = out.record.unwrap();
        stats.push(journal.append(&record, inst).unwrap());
    }
    stats
}

/// A journal of 20 commits: its file's bytes and the instance's state hash.
pub fn sample_file(dir: &std::path::Path) -> (Vec<u8>, u64) {
    let path = dir.join("sample.redb");
    let mut inst = Instance::with_desc(asset(), desc()).unwrap();
    let mut journal = Journal::create(&path, &inst, JournalOptions::default()).unwrap();
    commit_all(&mut journal, &mut inst, 1, 20);
    drop(journal);
    (std::fs::read(&path).unwrap(), inst.state_hash())
}

/// Opens, verifies and recovers a journal file; `Ok(hash)` or the first error.
pub fn try_recover(path: &std::path::Path) -> Result<u64, JournalError> {
    let journal = Journal::open(path, JournalOptions::default())?;
    journal.verify()?;
    let hash = journal.recover(asset())?.instance.state_hash();
    // Closing commits and trims the file: some damage shows only there.
    journal.close()?;
    Ok(hash)
}

/// `files` copies of `bytes`, each with 4 bits flipped at seeded places (the
/// same flips every run; some make redb's internal checks panic).
pub fn bit_flipped(bytes: &[u8], files: usize) -> impl Iterator<Item = Vec<u8>> + '_ {
    let mut seed = 0x1234_5678u64;
    (0..files).map(move |_| {
        let mut damaged = bytes.to_vec();
        for _ in 0..4 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let at = (seed >> 33) as usize % damaged.len();
            damaged[at] ^= 1 << ((seed >> 20) % 8);
        }
        damaged
    })
}
