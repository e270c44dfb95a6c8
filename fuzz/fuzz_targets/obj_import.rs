//! OBJ import with repair: arbitrary bytes give a repaired mesh or a typed
//! error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let _ = smithereens_authoring::parse_obj(data, Path::new("fuzz.obj"));
});
