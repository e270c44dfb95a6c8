//! Snapshots: arbitrary bytes decode to a snapshot or a typed error, and a
//! decoded snapshot restores onto a small asset or gives a typed error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smithereens_core::Instance;
use smithereens_core::snapshot::Snapshot;

fuzz_target!(|data: &[u8]| {
    if let Ok(snap) = Snapshot::from_bytes(data) {
        let _ = Instance::restore(smithereens_fuzz::grid_asset(), &snap);
    }
});
