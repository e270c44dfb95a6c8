//! `smithereens fracture --refine`: a two-level asset, its GLB scenes, and
//! a scenario that simulates it.

#![allow(clippy::unwrap_used)]

use smithereens_core::AssetFile;
use std::path::PathBuf;
use std::process::Command;

fn mesh(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/meshes")).join(name)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("smithereens-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn refine_writes_a_two_level_asset_whose_glb_shows_the_simulated_level() {
    let dir = temp_dir("hierarchy");
    let asset = dir.join("box.smasset");
    let glb = dir.join("box.glb");
    let out = Command::new(env!("CARGO_BIN_EXE_smithereens"))
        .arg("fracture")
        .arg(mesh("Box.gltf"))
        .args(["--chunks", "4", "--refine", "3", "-o"])
        .arg(&asset)
        .arg("--gltf")
        .arg(&glb)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = AssetFile::from_bytes(&std::fs::read(&asset).unwrap()).unwrap();
    assert_eq!(file.desc.support_depth, Some(1));
    let parents = file.desc.chunks.iter().filter(|c| c.depth == 0).count();
    let children = file.desc.chunks.len() - parents;
    assert_eq!(parents, 4);
    assert!(children >= 10, "{children} children");

    let inspect = Command::new(env!("CARGO_BIN_EXE_smithereens"))
        .arg("inspect")
        .arg(&asset)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&inspect.stdout);
    assert!(
        text.contains(&format!(
            "2 levels (4 + {children} chunks), support depth 1"
        )),
        "{text}"
    );
    assert!(text.contains("Warnings: none"), "{text}");
    // Volume over the simulated level only (the parents are the same matter).
    let volume_row = text.lines().find(|l| l.contains("total volume")).unwrap();
    assert!(volume_row.contains(" 1 m³"), "{volume_row}");

    let doc = gltf::Gltf::from_slice(&std::fs::read(&glb).unwrap()).unwrap();
    assert_eq!(doc.scenes().count(), 2);
    let shown = doc.default_scene().unwrap();
    assert_eq!(shown.index(), 1, "the support depth's scene is the default");
    assert_eq!(shown.nodes().count(), children);
    assert!(
        shown
            .nodes()
            .all(|n| n.name().unwrap().contains("(parent ")),
        "children name their parent"
    );

    // A scenario can load the hierarchical asset; the run records the
    // simulated (depth-1) chunks only.
    let scenario = dir.join("drop.toml");
    std::fs::write(
        &scenario,
        "name = \"drop\"\nduration = 0.5\n[asset]\nfile = \"box.smasset\"\nsupports = \"ground\"\n",
    )
    .unwrap();
    let run = dir.join("drop.run.json");
    let out = Command::new(env!("CARGO_BIN_EXE_smithereens"))
        .arg("simulate")
        .arg(&scenario)
        .arg("-o")
        .arg(&run)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let record =
        smithereens_core::record::RunRecord::from_json(&std::fs::read(&run).unwrap()).unwrap();
    assert_eq!(record.chunks.len(), children);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn support_depth_without_refine_is_refused() {
    let dir = temp_dir("hierarchy-bad");
    let out = Command::new(env!("CARGO_BIN_EXE_smithereens"))
        .arg("fracture")
        .arg(mesh("Box.gltf"))
        .args(["--support-depth", "0", "-o"])
        .arg(dir.join("x.smasset"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--refine"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!dir.join("x.smasset").exists());
    std::fs::remove_dir_all(&dir).ok();
}
