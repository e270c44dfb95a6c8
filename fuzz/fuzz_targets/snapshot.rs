//! Snapshots: arbitrary bytes decode to a snapshot or a typed error, and a
//! decoded snapshot restores onto a small asset or gives a typed error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smithereens_core::snapshot::Snapshot;
use smithereens_core::{Asset, Instance, fixtures};
use std::sync::{Arc, OnceLock};

fn asset() -> Arc<Asset> {
    static ASSET: OnceLock<Arc<Asset>> = OnceLock::new();
    ASSET
        .get_or_init(|| Arc::new(Asset::new(&fixtures::grid_desc(3, 3, 1, 1.0, 1000.0, 10.0)).unwrap()))
        .clone()
}

fuzz_target!(|data: &[u8]| {
    if let Ok(snap) = Snapshot::from_bytes(data) {
        let _ = Instance::restore(asset(), &snap);
    }
});
