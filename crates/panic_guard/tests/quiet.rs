//! The guard's contract, in its own process (it watches the process-wide
//! panic hook): a hook set before the first guarded call stands in for the
//! default one that prints to stderr.

#![allow(clippy::unwrap_used)]

use smithereens_panic_guard::quietly;
use std::sync::atomic::{AtomicU32, Ordering};

static PRINTED: AtomicU32 = AtomicU32::new(0);

#[test]
fn guarded_panics_print_nothing_and_carry_their_message_others_reach_the_hook() {
    std::panic::set_hook(Box::new(|_| {
        PRINTED.fetch_add(1, Ordering::SeqCst);
    }));
    // A value passes through.
    assert_eq!(quietly(|| 41 + 1), Ok(42));
    // A panic with a formatted message, and one with a static one.
    let count = 3;
    let caught = quietly(|| -> u32 { panic!("accessor {count} out of range") }).unwrap_err();
    assert!(
        caught.message.starts_with("accessor 3 out of range (at "),
        "{caught}"
    );
    assert!(caught.message.contains("tests/quiet.rs:"), "{caught}");
    let caught = quietly(|| -> () { panic!("static") }).unwrap_err();
    assert!(caught.message.starts_with("static (at "), "{caught}");
    // Nested guards: the inner one catches, the outer sees a value.
    let nested = quietly(|| quietly(|| -> () { panic!("inner") }).is_err());
    assert_eq!(nested, Ok(true));
    assert_eq!(PRINTED.load(Ordering::SeqCst), 0);
    // Outside the guard, and on another thread, the application's hook runs.
    assert!(std::panic::catch_unwind(|| panic!("a game's own panic")).is_err());
    assert_eq!(PRINTED.load(Ordering::SeqCst), 1);
    let other = std::thread::spawn(|| {
        let _ = std::panic::catch_unwind(|| panic!("another thread"));
    });
    other.join().unwrap();
    assert_eq!(PRINTED.load(Ordering::SeqCst), 2);
}
