//! Loading the repository's real meshes.

// Helpers below build fixtures; a failure there is a broken test, not a finding.
#![allow(clippy::unwrap_used)]

use smithereens_authoring::{MeshError, load_mesh};
use std::path::Path;

fn asset(name: &str) -> std::path::PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/meshes")).join(name)
}

#[test]
fn box_gltf_welds_to_eight_vertices_with_unit_volume() {
    let mesh = load_mesh(&asset("Box.gltf")).unwrap();
    assert_eq!(mesh.positions.len(), 8);
    assert_eq!(mesh.triangles.len(), 12);
    assert!(
        (mesh.volume() - 1.0).abs() < 1e-9,
        "volume {}",
        mesh.volume()
    );
    mesh.validate().unwrap();
    let (lo, hi) = mesh.bounds();
    assert!((hi - lo - glam::DVec3::ONE).abs().max_element() < 1e-6);
}

#[test]
fn house_obj_is_open_and_rejected_with_28_boundary_edges() {
    let err = load_mesh(&asset("house.obj")).unwrap_err();
    let MeshError::NotClosed {
        open_edges,
        non_manifold_edges,
        ..
    } = err
    else {
        panic!("expected NotClosed, got {err:?}");
    };
    assert_eq!(open_edges, 28);
    assert_eq!(non_manifold_edges, 0);
    let message = err.to_string();
    assert!(message.contains("28 open"), "{message}");
    assert!(message.contains("0 non-manifold"), "{message}");
}

#[test]
fn spot_obj_is_closed_with_the_documented_volume() {
    let mesh = load_mesh(&asset("spot.obj")).unwrap();
    assert_eq!(mesh.triangles.len(), 5856);
    assert!(
        (mesh.volume() - 0.71826).abs() < 1e-4,
        "volume {}",
        mesh.volume()
    );
    // Genus 0: V − E + F = 2, with E = 3F/2 for a closed triangle mesh.
    let (v, f) = (mesh.positions.len() as i64, mesh.triangles.len() as i64);
    assert_eq!(v - 3 * f / 2 + f, 2);
}

#[test]
fn missing_file_and_unknown_extension_are_typed_errors() {
    assert!(matches!(
        load_mesh(&asset("does-not-exist.obj")),
        Err(MeshError::Io { .. })
    ));
    assert!(matches!(
        load_mesh(&asset("README.md")),
        Err(MeshError::UnsupportedFormat { .. })
    ));
    // A folder, with or without a mesh extension, is said to be no regular
    // file (it used to be "unsupported mesh format \"\"" without one).
    let folder = temp_dir("folder-input");
    let named = folder.join("named.obj");
    std::fs::create_dir_all(&named).unwrap();
    for dir in [&folder, &named] {
        match load_mesh(dir) {
            Err(MeshError::Io { source, .. }) => {
                assert_eq!(source.kind(), std::io::ErrorKind::InvalidInput, "{dir:?}");
                assert!(
                    source
                        .to_string()
                        .contains(smithereens_authoring::input_file::NOT_A_REGULAR_FILE)
                );
            }
            other => panic!("{dir:?}: {other:?}"),
        }
    }
}

#[test]
fn obj_with_a_nan_vertex_is_rejected() {
    let dir =
        std::env::temp_dir().join(format!("smithereens-authoring-nan-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("nan.obj");
    std::fs::write(
        &path,
        "v 0 0 0\nv 1 0 0\nv 0 NaN 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 3 1 4\n",
    )
    .unwrap();
    let result = load_mesh(&path);
    std::fs::remove_dir_all(&dir).ok();
    // The index is in the loader's vertex order (OBJ corners in first-use order).
    assert!(
        matches!(result, Err(MeshError::NonFiniteVertex { position, .. }) if position.y.is_nan()),
        "{result:?}"
    );
}

/// Found by a bad-input sweep: tobj divided a vertex by a fourth number
/// (`v x y z w`), so a weight of 2 silently halved the mesh and a weight of
/// 0 was a parse error. The OBJ weight belongs to rational curves and
/// surfaces; polygon vertices are x y z as written.
#[test]
fn obj_vertex_weights_do_not_scale_the_mesh() {
    let dir = std::env::temp_dir().join(format!("smithereens-authoring-w-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for w in ["2", "0", "-1", "1"] {
        let mut text = String::new();
        for i in 0..8 {
            let (x, y, z) = (i & 1, (i >> 1) & 1, (i >> 2) & 1);
            text += &format!("v {x} {y} {z} {w}\n");
        }
        for [a, b, c, d] in [
            [1, 3, 4, 2],
            [5, 6, 8, 7],
            [1, 2, 6, 5],
            [3, 7, 8, 4],
            [1, 5, 7, 3],
            [2, 4, 8, 6],
        ] {
            text += &format!("f {a} {b} {c}\nf {a} {c} {d}\n");
        }
        let path = dir.join("weighted.obj");
        std::fs::write(&path, text).unwrap();
        let mesh = load_mesh(&path).unwrap_or_else(|e| panic!("w = {w}: {e}"));
        assert!(
            (mesh.volume() - 1.0).abs() < 1e-9,
            "w = {w}: volume {}",
            mesh.volume()
        );
        let (lo, hi) = mesh.bounds();
        assert!(
            lo.abs().max_element() < 1e-9 && (hi - glam::DVec3::ONE).abs().max_element() < 1e-9
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Box.gltf's JSON with its embedded buffer split out: `(json without the
/// data URI line, buffer bytes, the URI line's text)`.
fn split_box_gltf() -> (String, Vec<u8>, String) {
    let text = std::fs::read_to_string(asset("Box.gltf")).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("\"uri\": \"data:"))
        .unwrap()
        .to_string();
    let payload = line
        .split(";base64,")
        .nth(1)
        .unwrap()
        .trim_end_matches(['"', ',', ' ']);
    let bytes = decode_base64(payload);
    assert_eq!(bytes.len(), 648);
    (text.replace(&line, ""), bytes, line)
}

fn decode_base64(text: &str) -> Vec<u8> {
    let table = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let (mut out, mut acc, mut bits) = (Vec::new(), 0u32, 0);
    for c in text.bytes().filter(|&c| c != b'=') {
        acc = (acc << 6) | table.iter().position(|&t| t == c).unwrap() as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "smithereens-authoring-{tag}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn glb_with_a_bin_chunk_loads_like_the_embedded_gltf() {
    let (json, bin, _) = split_box_gltf();
    // The uri line ended the buffer object; drop the now-trailing comma.
    let json = json.replace("\"byteLength\": 648,", "\"byteLength\": 648");
    let mut json = json.into_bytes();
    while json.len() % 4 != 0 {
        json.push(b' ');
    }
    let mut bin_padded = bin.clone();
    while bin_padded.len() % 4 != 0 {
        bin_padded.push(0);
    }
    let total = 12 + 8 + json.len() + 8 + bin_padded.len();
    let mut glb = Vec::new();
    glb.extend_from_slice(b"glTF");
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&(total as u32).to_le_bytes());
    glb.extend_from_slice(&(json.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&json);
    glb.extend_from_slice(&(bin_padded.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"BIN\0");
    glb.extend_from_slice(&bin_padded);
    let dir = temp_dir("glb");
    let path = dir.join("box.glb");
    std::fs::write(&path, glb).unwrap();
    let loaded = load_mesh(&path);
    std::fs::remove_dir_all(&dir).ok();
    let mesh = loaded.unwrap();
    let reference = load_mesh(&asset("Box.gltf")).unwrap();
    assert_eq!(mesh, reference);
}

#[test]
fn gltf_with_an_external_buffer_file_loads_and_a_missing_one_is_an_io_error() {
    let (json, bin, line) = split_box_gltf();
    let external = line.replace(line.trim(), "\"uri\": \"box%20data.bin\"");
    let json = json.replace(
        "\"byteLength\": 648,",
        &format!("\"byteLength\": 648,\n{external}"),
    );
    let dir = temp_dir("external");
    let path = dir.join("box.gltf");
    std::fs::write(&path, &json).unwrap();
    let missing = load_mesh(&path);
    std::fs::write(dir.join("box data.bin"), &bin).unwrap();
    let loaded = load_mesh(&path);
    std::fs::write(dir.join("box data.bin"), &bin[..100]).unwrap();
    let short = load_mesh(&path);
    std::fs::remove_dir_all(&dir).ok();
    assert!(matches!(missing, Err(MeshError::Io { .. })), "{missing:?}");
    assert!(
        matches!(short, Err(MeshError::GltfBuffer { buffer: 0, .. })),
        "{short:?}"
    );
    assert!((loaded.unwrap().volume() - 1.0).abs() < 1e-9);
}

/// A buffer URI must be relative to the .gltf: an absolute path (here a
/// real, readable file holding the right bytes) would let an asset read
/// any file of the machine importing it. A buffer that names a device or
/// a directory is refused before reading (`/dev/zero` reads for ever).
#[test]
fn gltf_buffers_must_be_regular_files_next_to_the_gltf() {
    let (json, bin, line) = split_box_gltf();
    let dir = temp_dir("absolute");
    let data = dir.join("box.bin");
    std::fs::write(&data, &bin).unwrap();
    let with_uri = |uri: &str| {
        let external = line.replace(line.trim(), &format!("\"uri\": \"{uri}\""));
        json.replace(
            "\"byteLength\": 648,",
            &format!("\"byteLength\": 648,\n{external}"),
        )
    };
    let path = dir.join("box.gltf");
    std::fs::write(&path, with_uri(&data.to_string_lossy())).unwrap();
    let absolute = load_mesh(&path);
    std::fs::write(&path, with_uri("box.bin")).unwrap();
    let relative = load_mesh(&path);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(&path, with_uri("sub")).unwrap();
    let directory = load_mesh(&path);
    std::fs::remove_dir_all(&dir).ok();
    match absolute {
        Err(MeshError::GltfBuffer { buffer: 0, reason }) => {
            assert!(reason.contains("absolute path"), "{reason}");
        }
        other => panic!("absolute buffer path accepted: {other:?}"),
    }
    assert!((relative.unwrap().volume() - 1.0).abs() < 1e-9);
    match directory {
        Err(MeshError::Io { source, .. }) => {
            assert_eq!(source.kind(), std::io::ErrorKind::InvalidInput);
        }
        other => panic!("a directory as buffer: {other:?}"),
    }
}

#[test]
fn garbage_files_are_parse_errors() {
    let dir = temp_dir("garbage");
    let gltf = dir.join("bad.gltf");
    std::fs::write(&gltf, b"{ not json").unwrap();
    let glb = dir.join("bad.glb");
    std::fs::write(&glb, b"glTF\x02\x00\x00\x00\xff\xff\xff\xff").unwrap();
    let obj = dir.join("bad.obj");
    std::fs::write(&obj, b"v 1 2\nf 1 2 3\n").unwrap();
    let results = [load_mesh(&gltf), load_mesh(&glb), load_mesh(&obj)];
    std::fs::remove_dir_all(&dir).ok();
    for r in results {
        assert!(matches!(r, Err(MeshError::Parse { .. })), "{r:?}");
    }
}

/// Found by `scripts/fuzz.sh` (target `gltf_import`): Box.gltf with its
/// POSITION accessor's type changed to VEC4 made the gltf crate's reader
/// assert; it is a typed parse error naming the accessor.
#[test]
fn a_position_accessor_of_the_wrong_type_is_a_parse_error_not_a_panic() {
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/fuzz_gltf_vec4_position.gltf"
    ));
    match load_mesh(path) {
        Err(MeshError::Parse { message, .. }) => {
            assert!(
                message.contains("POSITION accessor 2 is Vec4 of F32"),
                "{message}"
            );
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
}

/// Found by `scripts/fuzz.sh` (target `gltf_import`): a document whose
/// attribute names an accessor that does not exist made gltf-json index out
/// of bounds; it is a typed parse error.
#[test]
fn an_attribute_naming_a_missing_accessor_is_a_parse_error_not_a_panic() {
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/fuzz_gltf_accessor_out_of_range.glb"
    ));
    assert!(matches!(load_mesh(path), Err(MeshError::Parse { .. })));
}

/// Found by a bad-input sweep: Box.gltf plus a chain of 40 nodes, each
/// listing the next as its child twice, stands for 2⁴⁰ copies of the box
/// (a 3 KB file that ran out of memory). A node reached twice is a parse
/// error, as is a node that two parents share.
#[test]
fn a_node_reached_twice_is_a_parse_error_not_an_exponential_blow_up() {
    let text = std::fs::read_to_string(asset("Box.gltf")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let nodes = doc["nodes"].as_array_mut().unwrap();
    let first = nodes.len();
    // Root 0 → chain first .. first+40, each linking the next twice; the
    // last holds the mesh.
    nodes[0]["children"] = serde_json::json!([first]);
    for k in 0..40 {
        let next = first + k + 1;
        let children = if k == 39 {
            serde_json::json!([1])
        } else {
            serde_json::json!([next, next])
        };
        nodes.push(serde_json::json!({ "children": children }));
    }
    let dir = std::env::temp_dir().join(format!("smithereens-dag-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("dag.gltf");
    std::fs::write(&path, doc.to_string()).unwrap();
    let result = load_mesh(&path);
    // Two parents for one node (the mesh node 1 under root 0 and a new node).
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let nodes = doc["nodes"].as_array_mut().unwrap();
    let extra = nodes.len();
    nodes.push(serde_json::json!({ "children": [1] }));
    doc["scenes"][0]["nodes"] = serde_json::json!([0, extra]);
    std::fs::write(&path, doc.to_string()).unwrap();
    let shared = load_mesh(&path);
    std::fs::remove_dir_all(&dir).ok();
    for r in [result, shared] {
        match r {
            Err(MeshError::Parse { message, .. }) => {
                assert!(message.contains("reached twice"), "{message}");
            }
            other => panic!("expected a parse error, got {other:?}"),
        }
    }
}
