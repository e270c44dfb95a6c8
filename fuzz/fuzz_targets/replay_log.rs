//! Replay logs: arbitrary bytes decode to a log or a typed error, and a
//! decoded log replays on a small asset or stops with a typed error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smithereens_core::{ReplayLog, replay};

fuzz_target!(|data: &[u8]| {
    if let Ok(log) = ReplayLog::from_bytes(data) {
        let _ = replay(smithereens_fuzz::grid_asset(), &log);
    }
});
