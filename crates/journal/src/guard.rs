//! Store operations on files that may be corrupt, with redb's internal
//! consistency panics turned into [`JournalError::Corrupt`] and kept off the
//! user's stderr (issue 16 item 5).
//!
//! redb reports most corruption as errors, but a few of its internal checks
//! `panic!` on a damaged page. [`guard`] runs the operation under
//! [`smithereens_panic_guard::quietly`], which catches such a panic, keeps
//! the process's panic hook from printing it ("thread … panicked at …",
//! which a game's player or a CLI user would read as a crash) and hands
//! back its message, which becomes part of the typed error. Panics on other
//! threads and outside the guard reach the application's hook unchanged.

use crate::JournalError;

/// Runs a store operation on a file that may be corrupt; a panic inside it
/// becomes [`JournalError::Corrupt`] naming the failed check, and prints
/// nothing (see the module docs).
pub(crate) fn guard<T>(f: impl FnOnce() -> Result<T, JournalError>) -> Result<T, JournalError> {
    smithereens_panic_guard::quietly(f).unwrap_or_else(|caught| {
        Err(JournalError::Corrupt(format!(
            "the store failed an internal check on this file: {caught}"
        )))
    })
}
