//! Issue 16 item 5: redb's panic message on a corrupt file must not reach
//! the user's stderr. Its own test binary (one process), because it watches
//! the process-wide panic hook: a hook set before the first journal call
//! stands in for the default one that prints to stderr, and must not be
//! called for the panics the journal catches.

#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use smithereens_core::*;
use smithereens_journal::*;
use std::sync::atomic::{AtomicU32, Ordering};

static PRINTED: AtomicU32 = AtomicU32::new(0);

fn try_recover(path: &std::path::Path) -> Result<u64, JournalError> {
    let journal = Journal::open(path, JournalOptions::default())?;
    journal.verify()?;
    Ok(journal.recover(asset())?.instance.state_hash())
}

#[test]
fn a_panic_the_journal_catches_on_a_corrupt_file_prints_nothing_and_names_the_check() {
    // Stands in for the default hook (which would print the message).
    std::panic::set_hook(Box::new(|_| {
        PRINTED.fetch_add(1, Ordering::SeqCst);
    }));
    let dir = temp_dir("quiet");
    let path = dir.join("sample.redb");
    let mut inst = Instance::with_desc(asset(), desc()).unwrap();
    let mut journal = Journal::create(&path, &inst, JournalOptions::default()).unwrap();
    for seq in 1..=20 {
        inst.admit(event_for(seq)).unwrap();
        let record = inst
            .commit(&mut HeadlessBackend::default())
            .unwrap()
            .record
            .unwrap();
        journal.append(&record, &inst).unwrap();
    }
    drop(journal);
    let bytes = std::fs::read(&path).unwrap();

    // The same seeded bit flips as the corruption test in `journal.rs`,
    // which make redb's internal checks panic on some files.
    let damaged_path = dir.join("flipped.redb");
    let mut seed = 0x1234_5678u64;
    let mut caught = Vec::new();
    for _ in 0..60 {
        let mut damaged = bytes.clone();
        for _ in 0..4 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let at = (seed >> 33) as usize % damaged.len();
            damaged[at] ^= 1 << ((seed >> 20) % 8);
        }
        std::fs::write(&damaged_path, &damaged).unwrap();
        if let Err(JournalError::Corrupt(message)) = try_recover(&damaged_path)
            && message.starts_with("the store failed an internal check")
        {
            caught.push(message);
        }
    }
    assert!(
        !caught.is_empty(),
        "no flip made the store panic: the test no longer exercises the guard"
    );
    assert_eq!(
        PRINTED.load(Ordering::SeqCst),
        0,
        "{} caught panics reached the panic hook (and so stderr)",
        caught.len()
    );
    // The typed error carries the failed check, with its location in redb.
    assert!(caught.iter().all(|m| m.contains("(at ")), "{caught:?}");
    eprintln!("{} caught store panics, first: {}", caught.len(), caught[0]);

    // Outside the guard the application's hook still runs.
    let outside = std::panic::catch_unwind(|| panic!("a game's own panic"));
    assert!(outside.is_err());
    assert_eq!(PRINTED.load(Ordering::SeqCst), 1);
    std::fs::remove_dir_all(dir).ok();
}
