//! Commit records: arbitrary bytes decode to a record or a typed error, and a
//! decoded record applies to a fresh instance or is refused with a typed error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smithereens_core::recovery::CommitRecord;

fuzz_target!(|data: &[u8]| {
    if let Ok(record) = CommitRecord::from_bytes(data) {
        let _ = smithereens_fuzz::grid_instance().apply_record(&record);
    }
});
