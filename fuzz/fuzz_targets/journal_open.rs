//! The journal opened on arbitrary bytes: a typed error, or a journal whose
//! verification and recovery give a typed answer; never a panic that escapes.
//!
//! The store (redb) may panic on a damaged file inside the journal's guard,
//! which turns it into `JournalError::Corrupt`; libFuzzer's panic hook would
//! count that caught panic as a crash, so this target installs a hook that
//! only prints. A panic that escapes the library still unwinds out of the
//! target and is a crash.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smithereens_journal::{Journal, JournalOptions};
use std::sync::Once;

fuzz_target!(|data: &[u8]| {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| std::panic::set_hook(Box::new(|_| {})));
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
