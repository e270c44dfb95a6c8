//! The weapon GLB's root extras (held-projectile seed, 可選彈體獨立耐久:
//! "武器 GLB root extras 新增布林欄位 projectile_independent_durability，
//! 缺省為 false … admission 驗證型別"; issue 14 item 3).
//!
//! A weapon is authored as a glTF/GLB file. Its *root* is the root node of
//! the file's scene (the default scene, else the first; a file without
//! scenes has no root). The root node's `extras` object may carry
//! `"projectile_independent_durability": true | false`; a missing key, a
//! missing `extras` or a file without a root node means `false`, the seed's
//! default. Any other JSON type under the key is a typed error (the seed's
//! admission check), as is a scene with several root nodes that disagree.
//! The game copies the value into
//! `smithereens_rapier::LauncherDesc::independent_durability`.
//!
//! ```
//! use smithereens_authoring::weapon_extras;
//! let gltf = br#"{"asset": {"version": "2.0"}, "scene": 0,
//!   "scenes": [{"nodes": [0]}],
//!   "nodes": [{"name": "launcher", "extras": {"projectile_independent_durability": true}}]}"#;
//! assert!(weapon_extras(gltf)?.projectile_independent_durability);
//! # Ok::<(), smithereens_authoring::WeaponExtrasError>(())
//! ```

use std::path::Path;

/// The extras key of the seed.
pub const INDEPENDENT_DURABILITY_KEY: &str = "projectile_independent_durability";

/// What a weapon file's root extras say about its held parts.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct WeaponExtras {
    /// Each held projectile has durability of its own (default `false`).
    pub projectile_independent_durability: bool,
}

/// Why a weapon file's root extras could not be read. Nothing is returned
/// on error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WeaponExtrasError {
    /// The file could not be read.
    #[error("cannot read weapon file {path}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The bytes are not a glTF document (JSON or GLB).
    #[error("not a glTF/GLB document: {0}")]
    Parse(String),
    /// The key holds something other than a boolean.
    #[error(
        "root node {node}: extras key \"{key}\" must be true or false, found {found}",
        key = INDEPENDENT_DURABILITY_KEY
    )]
    NotBoolean {
        /// Index of the root node.
        node: usize,
        /// The JSON found, shortened to 40 characters.
        found: String,
    },
    /// The root node's extras are not a JSON object.
    #[error("root node {node}: extras must be a JSON object, found {found}")]
    NotObject {
        /// Index of the root node.
        node: usize,
        /// The JSON found, shortened to 40 characters.
        found: String,
    },
    /// Several root nodes give different values.
    #[error(
        "the scene's root nodes disagree on \"{key}\" (node {first} says {value}, node {other} the opposite)",
        key = INDEPENDENT_DURABILITY_KEY
    )]
    Conflict {
        /// The first root node that gave a value.
        first: usize,
        /// What it gave.
        value: bool,
        /// A root node that gave the other value.
        other: usize,
    },
}

/// JSON text shortened for a message.
fn shorten(text: &str) -> String {
    const MAX: usize = 40;
    match text.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// Reads the root extras of a weapon glTF (JSON) or GLB document. O(root
/// nodes + their extras' size); reads no buffers.
///
/// # Errors
/// [`WeaponExtrasError::Parse`] for bytes that are not glTF,
/// [`WeaponExtrasError::NotObject`] / [`WeaponExtrasError::NotBoolean`] for
/// mistyped extras, [`WeaponExtrasError::Conflict`] for root nodes that
/// disagree.
pub fn weapon_extras(bytes: &[u8]) -> Result<WeaponExtras, WeaponExtrasError> {
    // The glTF reader has panicked on malformed documents before (see
    // `import.rs`): a panic on user data becomes a parse error.
    let parsed = smithereens_panic_guard::quietly(|| gltf::Gltf::from_slice(bytes))
        .map_err(|caught| {
            WeaponExtrasError::Parse(format!(
                "the glTF reader failed an internal check: {caught}"
            ))
        })?
        .map_err(|e| WeaponExtrasError::Parse(e.to_string()))?;
    let Some(scene) = parsed.default_scene().or_else(|| parsed.scenes().next()) else {
        return Ok(WeaponExtras::default());
    };
    let mut found: Option<(usize, bool)> = None;
    for node in scene.nodes() {
        let Some(raw) = node.extras() else { continue };
        let value: serde_json::Value =
            serde_json::from_str(raw.get()).map_err(|e| WeaponExtrasError::Parse(e.to_string()))?;
        let object = value
            .as_object()
            .ok_or_else(|| WeaponExtrasError::NotObject {
                node: node.index(),
                found: shorten(raw.get()),
            })?;
        let Some(entry) = object.get(INDEPENDENT_DURABILITY_KEY) else {
            continue;
        };
        let flag = entry
            .as_bool()
            .ok_or_else(|| WeaponExtrasError::NotBoolean {
                node: node.index(),
                found: shorten(&entry.to_string()),
            })?;
        match found {
            None => found = Some((node.index(), flag)),
            Some((first, value)) if value != flag => {
                return Err(WeaponExtrasError::Conflict {
                    first,
                    value,
                    other: node.index(),
                });
            }
            Some(_) => {}
        }
    }
    Ok(WeaponExtras {
        projectile_independent_durability: found.is_some_and(|(_, flag)| flag),
    })
}

/// [`weapon_extras`] of a file.
///
/// # Errors
/// [`WeaponExtrasError::Io`] when the file cannot be read, else as
/// [`weapon_extras`].
pub fn load_weapon_extras(path: &Path) -> Result<WeaponExtras, WeaponExtrasError> {
    let bytes = crate::input_file::read_input(path).map_err(|source| WeaponExtrasError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    weapon_extras(&bytes)
}
