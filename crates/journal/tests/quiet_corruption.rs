//! Issue 16 item 5: redb's panic message on a corrupt file must not reach
//! the user's stderr. Its own test binary (one process), because it watches
//! the process-wide panic hook: a hook set before the first journal call
//! stands in for the default one that prints to stderr, and must not be
//! called for the panics the journal catches.

#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use smithereens_journal::*;
use std::sync::atomic::{AtomicU32, Ordering};

static PRINTED: AtomicU32 = AtomicU32::new(0);

#[test]
fn a_panic_the_journal_catches_on_a_corrupt_file_prints_nothing_and_names_the_check() {
    // Stands in for the default hook (which would print the message).
    std::panic::set_hook(Box::new(|_| {
        PRINTED.fetch_add(1, Ordering::SeqCst);
    }));
    let dir = temp_dir("quiet");
    let (bytes, _) = sample_file(&dir);
    // The seeded bit flips of the corruption test in `journal.rs`, some of
    // which make redb's internal checks panic.
    let damaged_path = dir.join("flipped.redb");
    let mut caught = Vec::new();
    for damaged in bit_flipped(&bytes, 60) {
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
