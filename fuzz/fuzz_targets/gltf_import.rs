//! glTF / GLB import with repair: arbitrary bytes in a `.glb` file give a
//! mesh or a typed error. (Read through a file, as users load meshes.)
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("smithereens-fuzz-gltf-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("input.glb");
    if std::fs::write(&path, data).is_ok() {
        let _ = smithereens_authoring::load_mesh(&path);
    }
});
