//! Third-party code run on user data (a store's consistency checks, a glTF
//! reader, a convex-hull builder, a triangulator) sometimes `panic!`s on
//! input it should have refused. [`quietly`] turns such a panic into a
//! [`CaughtPanic`] value the caller maps to its own typed error, and keeps
//! it off the user's stderr.
//!
//! Catching alone is not enough: the process's panic hook runs *before*
//! unwinding and prints "thread … panicked at …", which a game's player or
//! a CLI user reads as a crash even though the caller recovers. So the
//! first guarded call installs, once per process, a panic hook that chains
//! to the hook in place at that moment. While the panicking thread is
//! inside [`quietly`] the hook records the message and location and prints
//! nothing; on every other thread, and outside the guard, it calls the
//! previous hook unchanged. A hook the application sets *after* the first
//! guarded call replaces this one; guarded panics then reach that hook
//! (still caught, still a value).
//!
//! ```
//! let caught = smithereens_panic_guard::quietly(|| -> u32 { panic!("bad page") });
//! assert!(caught.unwrap_err().message.starts_with("bad page"));
//! assert_eq!(smithereens_panic_guard::quietly(|| 7), Ok(7));
//! ```

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe, PanicHookInfo};
use std::sync::Once;

thread_local! {
    /// Nesting depth of [`quietly`] on this thread.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// The message of the last panic caught on this thread inside [`quietly`].
    static CAUGHT: RefCell<Option<String>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

/// A panic caught by [`quietly`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaughtPanic {
    /// The panic's message and where it was raised, e.g.
    /// `"assertion failed: x (at redb-4.6.0/src/types.rs:12)"`: the last
    /// three components of the source path (the crate and file, not the
    /// builder's cargo home).
    pub message: String,
}

impl std::fmt::Display for CaughtPanic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CaughtPanic {}

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

/// Runs `f`; a panic inside it is caught, printed nowhere, and returned as
/// a [`CaughtPanic`] (see the [crate docs](crate)). Whatever `f` borrowed
/// mutably may be left half-updated by the panic: callers use `quietly` on
/// code whose partial results they drop.
///
/// # Errors
/// [`CaughtPanic`] when `f` panicked.
pub fn quietly<T>(f: impl FnOnce() -> T) -> Result<T, CaughtPanic> {
    install_quiet_hook();
    DEPTH.with(|d| d.set(d.get() + 1));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    DEPTH.with(|d| d.set(d.get() - 1));
    result.map_err(|_| CaughtPanic {
        message: CAUGHT
            .with(|c| c.borrow_mut().take())
            .unwrap_or_else(|| "unknown panic".to_owned()),
    })
}
