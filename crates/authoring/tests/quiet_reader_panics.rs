//! A panic inside a third-party reader on user data is caught, becomes a
//! typed error naming the failed check, and prints nothing: the process's
//! panic hook (standing in for the default one that prints "thread …
//! panicked at …" to stderr) is never called. Its own test binary, because
//! it watches the process-wide panic hook.

#![allow(clippy::unwrap_used)]

use smithereens_authoring::{MeshError, load_mesh};
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

static PRINTED: AtomicU32 = AtomicU32::new(0);

#[test]
fn a_gltf_reader_panic_is_a_parse_error_that_prints_nothing() {
    std::panic::set_hook(Box::new(|_| {
        PRINTED.fetch_add(1, Ordering::SeqCst);
    }));
    // Found by `scripts/fuzz.sh`: gltf-json indexes out of bounds on it.
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/fuzz_gltf_accessor_out_of_range.glb"
    ));
    match load_mesh(path) {
        Err(MeshError::Parse { message, .. }) => {
            assert!(message.contains("failed an internal check"), "{message}");
            // The check and where it failed, in the reader's crate.
            assert!(
                message.contains("(at ") && message.contains("gltf"),
                "{message}"
            );
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
    assert_eq!(
        PRINTED.load(Ordering::SeqCst),
        0,
        "the caught panic reached the hook"
    );
}
