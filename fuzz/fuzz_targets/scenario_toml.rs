//! Scenario files: arbitrary text parses to a scenario or a typed error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = smithereens_scenario::ScenarioFile::parse(text);
    }
});
