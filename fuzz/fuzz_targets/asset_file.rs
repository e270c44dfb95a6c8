//! The asset file reader: arbitrary bytes give an asset file or a typed
//! error, and a file that reads is validated without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smithereens_core::asset_file::AssetFile;

fuzz_target!(|data: &[u8]| {
    if let Ok(file) = AssetFile::from_bytes(data) {
        let _ = smithereens_core::Asset::new(&file.desc);
    }
});
