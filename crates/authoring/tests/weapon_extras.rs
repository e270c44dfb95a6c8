//! The weapon GLB's root extras `projectile_independent_durability`
//! (held-projectile seed, 可選彈體獨立耐久; issue 14 item 3): a boolean,
//! default false, type-checked.
#![allow(clippy::unwrap_used)]

use smithereens_authoring::{WeaponExtrasError, load_weapon_extras, weapon_extras};

/// A glTF document whose scene has the root nodes `roots` (indices into
/// `nodes`, given as JSON objects).
fn gltf(nodes: &[&str], roots: &[usize]) -> Vec<u8> {
    let roots: Vec<String> = roots.iter().map(|r| r.to_string()).collect();
    format!(
        r#"{{"asset": {{"version": "2.0"}}, "scene": 0, "scenes": [{{"nodes": [{}]}}], "nodes": [{}]}}"#,
        roots.join(", "),
        nodes.join(", ")
    )
    .into_bytes()
}

/// The same document as a binary GLB (JSON chunk only).
fn glb(json: &[u8]) -> Vec<u8> {
    let mut chunk = json.to_vec();
    while !chunk.len().is_multiple_of(4) {
        chunk.push(b' ');
    }
    let total = 12 + 8 + chunk.len();
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&chunk);
    out
}

fn flag(bytes: &[u8]) -> bool {
    weapon_extras(bytes)
        .unwrap()
        .projectile_independent_durability
}

#[test]
fn the_root_nodes_boolean_is_read_and_false_is_the_default() {
    let on = r#"{"extras": {"projectile_independent_durability": true, "heat": 3}}"#;
    let off = r#"{"extras": {"projectile_independent_durability": false}}"#;
    assert!(flag(&gltf(&[on], &[0])));
    assert!(flag(&glb(&gltf(&[on], &[0]))), "GLB as JSON");
    assert!(!flag(&gltf(&[off], &[0])));
    // Missing key, missing extras, no scene at all: the seed's default.
    assert!(!flag(&gltf(&[r#"{"extras": {"heat": 3}}"#], &[0])));
    assert!(!flag(&gltf(&[r#"{"name": "launcher"}"#], &[0])));
    assert!(!flag(br#"{"asset": {"version": "2.0"}}"#));
    // Only the root counts: a child node's extras are not the weapon's.
    let parent = r#"{"children": [1]}"#;
    assert!(!flag(&gltf(&[parent, on], &[0])));
    // Several roots that agree (or stay silent) are fine.
    assert!(flag(&gltf(&[on, r#"{"name": "stock"}"#, on], &[0, 1, 2])));
}

#[test]
fn mistyped_or_conflicting_extras_are_typed_errors() {
    for (extras, found) in [
        (r#"{"projectile_independent_durability": "yes"}"#, "\"yes\""),
        (r#"{"projectile_independent_durability": 1}"#, "1"),
        (r#"{"projectile_independent_durability": null}"#, "null"),
    ] {
        let node = format!(r#"{{"extras": {extras}}}"#);
        match weapon_extras(&gltf(&[&node], &[0])) {
            Err(e @ WeaponExtrasError::NotBoolean { node: 0, .. }) => {
                assert!(
                    e.to_string()
                        .ends_with(&format!("must be true or false, found {found}")),
                    "{e}"
                );
            }
            other => panic!("{extras}: {other:?}"),
        }
    }
    assert!(matches!(
        weapon_extras(&gltf(&[r#"{"extras": [true]}"#], &[0])),
        Err(WeaponExtrasError::NotObject { node: 0, .. })
    ));
    let on = r#"{"extras": {"projectile_independent_durability": true}}"#;
    let off = r#"{"extras": {"projectile_independent_durability": false}}"#;
    assert!(matches!(
        weapon_extras(&gltf(&[on, off], &[0, 1])),
        Err(WeaponExtrasError::Conflict {
            first: 0,
            value: true,
            other: 1
        })
    ));
    for garbage in [&b""[..], b"glTF\x02\0\0\0", b"{not json", b"\xff\xfe\x00"] {
        assert!(
            matches!(weapon_extras(garbage), Err(WeaponExtrasError::Parse(_))),
            "{garbage:?}"
        );
    }
    let missing = std::env::temp_dir().join("smithereens-no-such-weapon.glb");
    assert!(matches!(
        load_weapon_extras(&missing),
        Err(WeaponExtrasError::Io { .. })
    ));
}
