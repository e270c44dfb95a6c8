//! Commit records: arbitrary bytes decode to a record or a typed error, and a
//! decoded record applies to a fresh instance or is refused with a typed error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smithereens_core::recovery::CommitRecord;
use smithereens_core::{Asset, Instance, Pose, fixtures};
use std::sync::{Arc, OnceLock};

fn instance() -> Instance {
    static BASE: OnceLock<Instance> = OnceLock::new();
    BASE.get_or_init(|| {
        let asset = Arc::new(Asset::new(&fixtures::grid_desc(3, 3, 1, 1.0, 1000.0, 10.0)).unwrap());
        Instance::new(asset, Pose::IDENTITY).unwrap()
    })
    .clone()
}

fuzz_target!(|data: &[u8]| {
    if let Ok(record) = CommitRecord::from_bytes(data) {
        let _ = instance().apply_record(&record);
    }
});
