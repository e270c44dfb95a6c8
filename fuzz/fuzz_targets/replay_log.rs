//! Replay logs: arbitrary bytes decode to a log or a typed error, and a
//! decoded log replays on a small asset or stops with a typed error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smithereens_core::{Asset, ReplayLog, fixtures, replay};
use std::sync::{Arc, OnceLock};

fn asset() -> Arc<Asset> {
    static ASSET: OnceLock<Arc<Asset>> = OnceLock::new();
    ASSET
        .get_or_init(|| Arc::new(Asset::new(&fixtures::grid_desc(3, 3, 1, 1.0, 1000.0, 10.0)).unwrap()))
        .clone()
}

fuzz_target!(|data: &[u8]| {
    if let Ok(log) = ReplayLog::from_bytes(data) {
        let _ = replay(asset(), &log);
    }
});
