//! The recorded-run reader (JSON): arbitrary bytes give a run or a typed error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smithereens_core::record::RunRecord;

fuzz_target!(|data: &[u8]| {
    let _ = RunRecord::from_json(data);
});
