//! Output files: refusing to overwrite an input, and writing atomically so
//! that a failed command never leaves a half-written or stale-looking file.

use std::path::{Path, PathBuf};

/// `path` made absolute and resolved as far as it exists: the parent folder
/// is canonicalised (it must exist for a write to succeed) and the file name
/// appended, so a file that does not exist yet still compares correctly.
fn resolved(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match (std::fs::canonicalize(parent), path.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => path.to_path_buf(),
    }
}

/// True when `a` and `b` name the same file (after resolving `.`/`..`,
/// symbolic links and relative paths).
pub fn same_file(a: &Path, b: &Path) -> bool {
    resolved(a) == resolved(b)
}

/// The first pair of `paths` (labelled) that name the same file, as
/// `(first label, second label, path)`.
pub fn first_clash<'a>(paths: &[(&'a str, &'a Path)]) -> Option<(&'a str, &'a str, &'a Path)> {
    for (i, (la, a)) in paths.iter().enumerate() {
        for (lb, b) in &paths[i + 1..] {
            if same_file(a, b) {
                return Some((la, lb, a));
            }
        }
    }
    None
}

/// Writes `bytes` to `path` through a temporary file in the same folder and
/// a rename, so `path` holds either its old content or all of `bytes`.
///
/// # Errors
/// The I/O error of the write or the rename (the temporary file is removed).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let result = std::fs::write(&temp, bytes).and_then(|()| std::fs::rename(&temp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn relative_and_dotted_paths_to_one_file_are_the_same() {
        let dir = std::env::temp_dir().join(format!("smithereens-files-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        let a = dir.join("x.obj");
        std::fs::write(&a, b"v").unwrap();
        assert!(same_file(&a, &dir.join("sub/../x.obj")));
        // A file that does not exist yet, named two ways.
        assert!(same_file(&dir.join("new.glb"), &dir.join("sub/../new.glb")));
        assert!(!same_file(&a, &dir.join("new.glb")));
        let y = dir.join("y");
        let clash = first_clash(&[("input", &a), ("asset", &y), ("glb", &a)]);
        assert_eq!(clash.map(|c| (c.0, c.1)), Some(("input", "glb")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_atomic_write_into_a_missing_folder_fails_and_leaves_nothing() {
        let dir = std::env::temp_dir().join(format!("smithereens-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("a.bin");
        write_atomic(&target, b"first").unwrap();
        write_atomic(&target, b"second").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"second");
        assert!(write_atomic(&dir.join("missing/b.bin"), b"x").is_err());
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            names,
            vec![std::ffi::OsString::from("a.bin")],
            "no temporary file left"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Why a site file could not be read (see [`parse_sites`]).
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct SiteFileError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// Voronoi sites from text: one point `x y z` (m) per line, the numbers
/// separated by spaces, tabs or commas; blank lines and lines starting with
/// `#` are skipped. Values are parsed as given (`nan` and `inf` included:
/// the library rejects them with the site's index).
///
/// # Errors
/// [`SiteFileError`] naming the first line that is not three numbers.
pub fn parse_sites(text: &str) -> Result<Vec<glam::DVec3>, SiteFileError> {
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|f| !f.is_empty())
            .collect();
        let numbers: Result<Vec<f64>, _> = fields.iter().map(|f| f.parse::<f64>()).collect();
        match numbers.as_deref() {
            Ok([x, y, z]) => out.push(glam::DVec3::new(*x, *y, *z)),
            _ => {
                return Err(SiteFileError {
                    line: k + 1,
                    reason: format!("expected three numbers \"x y z\", got {line:?}"),
                });
            }
        }
    }
    Ok(out)
}
