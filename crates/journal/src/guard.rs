//! Store operations on files that may be corrupt, with redb's internal
//! consistency panics turned into [`JournalError::Corrupt`] and kept off the
//! user's stderr (issue 16 item 5).
//!
//! redb reports most corruption as errors, but a few of its internal checks
//! `panic!` on a damaged page. [`guard`] catches such a panic with
//! `catch_unwind`. Catching alone is not enough: the process's panic hook
//! runs *before* unwinding and prints "thread … panicked at …" with a
//! backtrace, which a game's player or a CLI user would read as a crash.
//!
//! So the first guarded call installs, once per process, a panic hook that
//! chains to the hook in place at that moment. While the panicking thread is
//! inside [`guard`] the hook records the message (it becomes part of the
//! typed error) and prints nothing; on every other thread, and outside the
//! guard, it calls the previous hook unchanged. A hook the application sets
//! *after* the first journal call replaces this one; guarded panics then
//! reach that hook again (still caught, still a typed error).

use crate::JournalError;
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe, PanicHookInfo};
use std::sync::Once;

thread_local! {
    /// Nesting depth of [`guard`] on this thread.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// The message of the last panic caught on this thread inside [`guard`].
    static CAUGHT: RefCell<Option<String>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

/// The panic's message and location, as the default hook would print them.
fn describe(info: &PanicHookInfo<'_>) -> String {
    let payload = info.payload();
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    match info.location() {
        Some(at) => {
            // The crate-relative tail (`redb-4.6.0/src/types.rs`), not the
            // builder's cargo home.
            let parts: Vec<&str> = at.file().split(['/', '\\']).collect();
            let tail = parts[parts.len().saturating_sub(3)..].join("/");
            format!("{message} (at {tail}:{})", at.line())
        }
        None => message,
    }
}

fn install_quiet_hook() {
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            // `try_with`: a panic during thread teardown finds no locals.
            let guarded = DEPTH.try_with(|d| d.get() > 0).unwrap_or(false);
            if guarded {
                let text = describe(info);
                let _ = CAUGHT.try_with(|c| *c.borrow_mut() = Some(text));
            } else {
                previous(info);
            }
        }));
    });
}

/// Runs a store operation on a file that may be corrupt; a panic inside it
/// becomes [`JournalError::Corrupt`] naming the failed check, and prints
/// nothing (see the module docs).
pub(crate) fn guard<T>(f: impl FnOnce() -> Result<T, JournalError>) -> Result<T, JournalError> {
    install_quiet_hook();
    DEPTH.with(|d| d.set(d.get() + 1));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    DEPTH.with(|d| d.set(d.get() - 1));
    result.unwrap_or_else(|_| {
        let check = CAUGHT
            .with(|c| c.borrow_mut().take())
            .unwrap_or_else(|| "unknown panic".to_owned());
        Err(JournalError::Corrupt(format!(
            "the store failed an internal check on this file: {check}"
        )))
    })
}
