//! glTF / GLB import with repair: arbitrary bytes in a `.glb` file give a
//! mesh or a typed error. (Read through a file, as users load meshes.)
//!
//! The importer turns an internal assertion of the gltf crate's reader into
//! a parse error (`catch_unwind`); libFuzzer's panic hook would count that
//! caught panic as a crash, so this target installs a hook that prints
//! nothing. A panic that escapes the importer still unwinds out of the
//! target and is a crash.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::Once;

fuzz_target!(|data: &[u8]| {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| std::panic::set_hook(Box::new(|_| {})));
    let dir = std::env::temp_dir().join(format!("smithereens-fuzz-gltf-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("input.glb");
    if std::fs::write(&path, data).is_ok() {
        let _ = smithereens_authoring::load_mesh(&path);
    }
});
