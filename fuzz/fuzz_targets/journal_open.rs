//! The journal opened on arbitrary bytes: a typed error, or a journal whose
//! verification and recovery give a typed answer; never a panic that escapes.
//!
//! The store (redb) may panic on a damaged file inside the journal's guard,
//! which turns it into `JournalError::Corrupt` and keeps it from the panic
//! hook (`smithereens_journal`'s `guard` module), so libFuzzer's own hook
//! only ever sees a panic that escapes the library: a crash.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smithereens_journal::{Journal, JournalOptions};

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("smithereens-fuzz-journal-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("journal.redb");
    let _ = std::fs::remove_file(&path);
    if std::fs::write(&path, data).is_err() {
        return;
    }
    if let Ok(journal) = Journal::open(&path, JournalOptions::default()) {
        let _ = journal.verify();
        let _ = journal.recover(smithereens_fuzz::grid_asset());
    }
});
