//! Mesh import: Wavefront OBJ (via `tobj`) and glTF 2.0 / GLB (via `gltf`),
//! into a validated closed [`TriMesh`].

use crate::error::MeshError;
use crate::mesh::TriMesh;
use crate::repair::{RepairOptions, RepairReport, repair_mesh};
use glam::{DMat4, DVec3};
use std::path::Path;

/// Loads a closed triangle mesh from `path`, in the file's own units (taken
/// as metres).
///
/// * `.obj`: every object/group is read, polygons are fan-triangulated,
///   points and lines are ignored, materials (`mtllib`) are not loaded. A
///   vertex's optional weight (`v x y z w`, meant for rational curves and
///   surfaces) is ignored: the vertex is x y z as written.
/// * `.gltf` / `.glb`: the default scene (else the first scene, else every
///   node) is traversed with node transforms applied; all primitives in
///   triangle, strip and fan modes are read (point and line primitives bound
///   no volume and are skipped). Buffers may be the GLB `BIN` chunk,
///   base64 `data:` URIs, or files next to the `.gltf`. A transform that
///   mirrors (negative determinant) has its triangles' winding reversed.
///
/// Then the triangles are cleaned with [`repair_mesh`] and the default
/// [`RepairOptions`]: vertices welded by exact position, collapsed and
/// duplicate faces removed, zero-area faces dropped where the surface stays
/// closed; the result must be closed and manifold (no fallback). Use
/// [`load_mesh_with`] for the convex-hull fallback and the repair report.
///
/// # Errors
/// [`MeshError::Io`], [`MeshError::UnsupportedFormat`], [`MeshError::Parse`],
/// [`MeshError::GltfBuffer`], and every error of [`repair_mesh`],
/// notably [`MeshError::NotClosed`] for an open or non-manifold surface.
///
/// # Example
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/meshes/Box.gltf");
/// let mesh = smithereens_authoring::load_mesh(path.as_ref()).unwrap();
/// assert_eq!(mesh.positions.len(), 8);
/// ```
pub fn load_mesh(path: &Path) -> Result<TriMesh, MeshError> {
    load_mesh_with(path, &RepairOptions::default()).map(|(mesh, _)| mesh)
}

/// Loads a mesh like [`load_mesh`] but with explicit cleanup `options`
/// (e.g. [`OpenMeshFallback::ConvexHull`](crate::OpenMeshFallback) for open
/// input), and returns what was changed.
///
/// # Errors
/// As [`load_mesh`]; [`MeshError::NotClosed`] only without a fallback.
pub fn load_mesh_with(
    path: &Path,
    options: &RepairOptions,
) -> Result<(TriMesh, RepairReport), MeshError> {
    let (positions, triangles) = read_raw(path)?;
    repair_mesh(positions, triangles, options)
}

fn read_raw(path: &Path) -> Result<RawMesh, MeshError> {
    // Something that exists but is no regular file (a folder, a device)
    // is said to be so whatever its name, before the format is looked at.
    if path.exists() {
        crate::input_file::check_input(path).map_err(|source| MeshError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    }
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match extension.as_str() {
        "obj" => read_obj(path),
        "gltf" | "glb" => read_gltf(path),
        _ => Err(MeshError::UnsupportedFormat {
            path: path.to_path_buf(),
            extension,
        }),
    }
}

fn read_file(path: &Path) -> Result<Vec<u8>, MeshError> {
    crate::input_file::read_input(path).map_err(|source| MeshError::Io {
        path: path.to_path_buf(),
        source,
    })
}

type RawMesh = (Vec<DVec3>, Vec<[u32; 3]>);

/// Parses a closed triangle mesh from OBJ text held in memory (e.g. a mesh
/// embedded with `include_bytes!`). `name` only labels errors. Same rules
/// and errors as [`load_mesh`] for a `.obj` file, minus file-system errors.
///
/// # Errors
/// [`MeshError::Parse`] and every error of [`repair_mesh`].
pub fn parse_obj(bytes: &[u8], name: &Path) -> Result<TriMesh, MeshError> {
    let (positions, triangles) = parse_obj_raw(bytes, name)?;
    repair_mesh(positions, triangles, &RepairOptions::default()).map(|(mesh, _)| mesh)
}

fn read_obj(path: &Path) -> Result<RawMesh, MeshError> {
    let bytes = read_file(path)?;
    parse_obj_raw(&bytes, path)
}

fn parse_obj_raw(bytes: &[u8], path: &Path) -> Result<RawMesh, MeshError> {
    let options = obj_options();
    let parse_error = |message: String| MeshError::Parse {
        path: path.to_path_buf(),
        format: "OBJ",
        message,
    };
    // tobj divides a vertex with a fourth number by it (`v x y z w`); the
    // OBJ specification's w is a weight for rational curves and surfaces,
    // and polygon vertices are x y z as written (as Blender reads them).
    let unweighted = without_vertex_weights(bytes);
    let bytes = unweighted.as_deref().unwrap_or(bytes);
    // Materials are irrelevant to the geometry; never touch the file system for them.
    let (models, _materials) =
        tobj::load_obj_buf(&mut &bytes[..], &options, |_| Ok(Default::default()))
            .map_err(|e| parse_error(e.to_string()))?;
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    for model in &models {
        let m = &model.mesh;
        let base = positions.len();
        if m.positions.len() % 3 != 0 || m.indices.len() % 3 != 0 {
            return Err(parse_error(format!(
                "object {:?} has a ragged position or index array",
                model.name
            )));
        }
        positions.extend(
            m.positions
                .chunks_exact(3)
                .map(|c| DVec3::new(c[0] as f64, c[1] as f64, c[2] as f64)),
        );
        for t in m.indices.chunks_exact(3) {
            let shifted =
                [t[0], t[1], t[2]].map(|i| (base as u64 + i as u64).min(u32::MAX as u64) as u32);
            triangles.push(shifted);
        }
    }
    Ok((positions, triangles))
}

/// `bytes` with the weight dropped from every geometric vertex that has one
/// (`v x y z w` → `v x y z`), or `None` when no vertex has one (the common
/// case: no copy). A vertex with colours (`v x y z r g b`) and every other
/// line are kept as they are.
fn without_vertex_weights(bytes: &[u8]) -> Option<Vec<u8>> {
    fn weighted(line: &[u8]) -> Option<usize> {
        let mut fields = line
            .split(|b| b.is_ascii_whitespace())
            .filter(|f| !f.is_empty());
        if fields.next() != Some(b"v".as_slice()) {
            return None;
        }
        // Exactly four numbers before any comment: x y z w.
        let mut numbers = fields.take_while(|f| !f.starts_with(b"#"));
        let z = numbers.nth(2)?;
        if numbers.next().is_none() || numbers.next().is_some() {
            return None;
        }
        // The end of the z field: everything after it is the weight.
        Some(z.as_ptr() as usize - line.as_ptr() as usize + z.len())
    }
    if !bytes.split(|&b| b == b'\n').any(|l| weighted(l).is_some()) {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len());
    for (k, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if k > 0 {
            out.push(b'\n');
        }
        match weighted(line) {
            Some(end) => out.extend_from_slice(&line[..end]),
            None => out.extend_from_slice(line),
        }
    }
    Some(out)
}

/// Triangulate (fan), one index per corner, skip points and lines. Set field
/// by field so this keeps compiling if another crate in the build enables
/// tobj's optional (feature-gated) fields.
#[allow(clippy::field_reassign_with_default)]
fn obj_options() -> tobj::LoadOptions {
    let mut options = tobj::LoadOptions::default();
    options.triangulate = true;
    options.single_index = true;
    options.ignore_points = true;
    options.ignore_lines = true;
    options
}

/// [`read_gltf_unguarded`], with any internal assertion of the gltf crates
/// on a malformed document (an index out of range they did not validate, a
/// type their reader asserts) turned into a parse error: user data never
/// panics the caller (found by `scripts/fuzz.sh`).
fn read_gltf(path: &Path) -> Result<RawMesh, MeshError> {
    smithereens_panic_guard::quietly(|| read_gltf_unguarded(path)).unwrap_or_else(|caught| {
        Err(MeshError::Parse {
            path: path.to_path_buf(),
            format: "glTF",
            message: format!(
                "the glTF reader failed an internal check on this file (malformed document): \
                 {caught}"
            ),
        })
    })
}

fn read_gltf_unguarded(path: &Path) -> Result<RawMesh, MeshError> {
    let bytes = read_file(path)?;
    let parse_error = |message: String| MeshError::Parse {
        path: path.to_path_buf(),
        format: "glTF",
        message,
    };
    let gltf = gltf::Gltf::from_slice(&bytes).map_err(|e| parse_error(e.to_string()))?;
    let base_dir = path.parent().unwrap_or(Path::new("."));
    let mut buffers: Vec<Vec<u8>> = Vec::new();
    for buffer in gltf.buffers() {
        let index = buffer.index();
        let data = match buffer.source() {
            gltf::buffer::Source::Bin => {
                gltf.blob.clone().ok_or_else(|| MeshError::GltfBuffer {
                    buffer: index,
                    reason: "GLB has no BIN chunk".into(),
                })?
            }
            gltf::buffer::Source::Uri(uri) => read_uri(uri, base_dir, index)?,
        };
        if data.len() < buffer.length() {
            return Err(MeshError::GltfBuffer {
                buffer: index,
                reason: format!(
                    "holds {} bytes, but the document declares {}",
                    data.len(),
                    buffer.length()
                ),
            });
        }
        buffers.push(data);
    }

    // Node traversal with an explicit stack and a depth limit, so a malformed
    // (cyclic) hierarchy cannot overflow the stack or loop forever.
    const MAX_DEPTH: usize = 256;
    let roots: Vec<gltf::Node> = match gltf.default_scene().or_else(|| gltf.scenes().next()) {
        Some(scene) => scene.nodes().collect(),
        None => gltf.nodes().collect(),
    };
    let mut stack: Vec<(gltf::Node, DMat4, usize)> = roots
        .into_iter()
        .rev()
        .map(|n| (n, DMat4::IDENTITY, 0))
        .collect();
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    // glTF node hierarchies are trees: a node reached twice (a child of two
    // nodes, or of one twice) is refused. Otherwise a chain of 40 nodes with
    // two links each to the next stands for 2⁴⁰ copies of the mesh (a 3 KB
    // file that ran out of memory; bad-input sweep).
    let mut reached = vec![false; gltf.nodes().len()];
    while let Some((node, parent, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            return Err(parse_error(format!(
                "node hierarchy deeper than {MAX_DEPTH} (cyclic?)"
            )));
        }
        match reached.get_mut(node.index()) {
            Some(seen) if !*seen => *seen = true,
            _ => {
                return Err(parse_error(format!(
                    "node {} is reached twice: glTF node hierarchies are trees (a node has at most one parent)",
                    node.index()
                )));
            }
        }
        let local = DMat4::from_cols_array_2d(&node.transform().matrix().map(|c| c.map(f64::from)));
        let world = parent * local;
        if let Some(mesh) = node.mesh() {
            let mirror = world.determinant() < 0.0;
            for primitive in mesh.primitives() {
                read_primitive(
                    &primitive,
                    &buffers,
                    world,
                    mirror,
                    &mut positions,
                    &mut triangles,
                )
                .map_err(|m| {
                    parse_error(format!(
                        "mesh {} primitive {}: {m}",
                        mesh.index(),
                        primitive.index()
                    ))
                })?;
            }
        }
        let children: Vec<gltf::Node> = node.children().collect();
        stack.extend(children.into_iter().rev().map(|c| (c, world, depth + 1)));
    }
    Ok((positions, triangles))
}

fn read_primitive(
    primitive: &gltf::Primitive,
    buffers: &[Vec<u8>],
    world: DMat4,
    mirror: bool,
    positions: &mut Vec<DVec3>,
    triangles: &mut Vec<[u32; 3]>,
) -> Result<(), String> {
    use gltf::mesh::Mode;
    let mode = primitive.mode();
    if !matches!(
        mode,
        Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
    ) {
        return Ok(());
    }
    // The gltf crate's reader asserts (panics) when an accessor's type does
    // not match what it reads: check the types first (glTF 2.0 §3.7.2.1:
    // POSITION is VEC3 of FLOAT; indices are SCALAR of an unsigned integer).
    use gltf::accessor::{DataType, Dimensions};
    let position = primitive
        .get(&gltf::Semantic::Positions)
        .ok_or("no POSITION attribute")?;
    if position.dimensions() != Dimensions::Vec3 || position.data_type() != DataType::F32 {
        return Err(format!(
            "POSITION accessor {} is {:?} of {:?}; glTF requires Vec3 of F32",
            position.index(),
            position.dimensions(),
            position.data_type()
        ));
    }
    if let Some(ix) = primitive.indices()
        && (ix.dimensions() != Dimensions::Scalar
            || !matches!(ix.data_type(), DataType::U8 | DataType::U16 | DataType::U32))
    {
        return Err(format!(
            "index accessor {} is {:?} of {:?}; glTF requires Scalar of U8, U16 or U32",
            ix.index(),
            ix.dimensions(),
            ix.data_type()
        ));
    }
    let reader = primitive.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
    // Any other internal assertion of the reader on a malformed file becomes
    // an error, never a panic that takes the caller down.
    let read = smithereens_panic_guard::quietly(|| {
        let positions: Option<Vec<[f32; 3]>> = reader.read_positions().map(Iterator::collect);
        let indices: Option<Vec<u32>> = reader.read_indices().map(|ix| ix.into_u32().collect());
        (positions, indices)
    })
    .map_err(|caught| format!("the glTF reader failed an internal check on this file: {caught}"))?;
    let local: Vec<DVec3> = read
        .0
        .ok_or("no POSITION attribute or unreadable buffer")?
        .into_iter()
        .map(|p| world.transform_point3(DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64)))
        .collect();
    let count = local.len() as u64;
    let indices: Vec<u32> = match read.1 {
        Some(ix) => ix,
        None => (0..count.min(u32::MAX as u64) as u32).collect(),
    };
    if let Some(&bad) = indices.iter().find(|&&i| i as u64 >= count) {
        return Err(format!("index {bad} out of range ({count} vertices)"));
    }
    let base = positions.len() as u64;
    let shift = |i: u32| (base + i as u64).min(u32::MAX as u64) as u32;
    let mut push = |a: u32, b: u32, c: u32| {
        let t = if mirror { [a, c, b] } else { [a, b, c] };
        triangles.push(t.map(shift));
    };
    match mode {
        Mode::Triangles => {
            for t in indices.chunks_exact(3) {
                push(t[0], t[1], t[2]);
            }
        }
        Mode::TriangleStrip => {
            for k in 2..indices.len() {
                if k % 2 == 0 {
                    push(indices[k - 2], indices[k - 1], indices[k]);
                } else {
                    push(indices[k - 1], indices[k - 2], indices[k]);
                }
            }
        }
        _ => {
            for k in 2..indices.len() {
                push(indices[0], indices[k - 1], indices[k]);
            }
        }
    }
    positions.extend(local);
    Ok(())
}

/// Reads a buffer URI: a base64 `data:` URI or a relative file path
/// (percent-decoded) next to the glTF file.
fn read_uri(uri: &str, base_dir: &Path, buffer: usize) -> Result<Vec<u8>, MeshError> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let Some((_, payload)) = rest.split_once(";base64,") else {
            return Err(MeshError::GltfBuffer {
                buffer,
                reason: "data URI is not base64".into(),
            });
        };
        return decode_base64(payload).ok_or_else(|| MeshError::GltfBuffer {
            buffer,
            reason: "invalid base64 in data URI".into(),
        });
    }
    if uri.contains("://") {
        return Err(MeshError::GltfBuffer {
            buffer,
            reason: format!("unsupported URI scheme in {uri:?}"),
        });
    }
    let decoded = percent_decode(uri).ok_or_else(|| MeshError::GltfBuffer {
        buffer,
        reason: format!("invalid percent-encoding in {uri:?}"),
    })?;
    // A buffer is a file next to the glTF (a relative reference, glTF 2.0
    // §3.9.3): an absolute path would read any file of the machine that
    // imports the asset, and breaks when the asset moves.
    if Path::new(&decoded).has_root() {
        return Err(MeshError::GltfBuffer {
            buffer,
            reason: format!(
                "buffer URI {uri:?} is an absolute path; give it relative to the .gltf"
            ),
        });
    }
    read_file(&base_dir.join(decoded))
}

/// Standard base64 (RFC 4648, `+/`, optional `=` padding; ASCII whitespace ignored).
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut acc = 0u32;
    let mut bits = 0u32;
    let mut padding = false;
    for c in text.bytes() {
        if c.is_ascii_whitespace() {
            continue;
        }
        if c == b'=' {
            padding = true;
            continue;
        }
        if padding {
            return None; // data after padding
        }
        acc = (acc << 6) | value(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let s = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(s, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertex_weights_are_dropped_and_everything_else_is_kept() {
        let strip = without_vertex_weights;
        assert_eq!(strip(b"v 1 2 3\nf 1 2 3\n"), None);
        assert_eq!(strip(b"v 1 2 3 0.5 0.5 0.5\n"), None, "colours");
        assert_eq!(strip(b"v 1 2 3 # a comment\n"), None);
        assert_eq!(strip(b"vn 1 2 3 4\n"), None);
        assert_eq!(
            strip(b"# c\nv 1 2 3 0\r\nv\t4 5 6 2 # weighted\nv 7 8 9\nf 1 2 3").unwrap(),
            b"# c\nv 1 2 3\nv\t4 5 6\nv 7 8 9\nf 1 2 3".to_vec()
        );
    }

    #[test]
    fn base64_decodes_rfc4648_vectors() {
        assert_eq!(decode_base64("").unwrap(), b"");
        assert_eq!(decode_base64("Zg==").unwrap(), b"f");
        assert_eq!(decode_base64("Zm8=").unwrap(), b"fo");
        assert_eq!(decode_base64("Zm9v").unwrap(), b"foo");
        assert_eq!(decode_base64("Zm9vYmFy").unwrap(), b"foobar");
        assert!(decode_base64("Zm9v*").is_none());
        assert!(decode_base64("Zg==Zg").is_none());
    }

    #[test]
    fn percent_decoding_handles_spaces_and_rejects_garbage() {
        assert_eq!(percent_decode("a%20b.bin").unwrap(), "a b.bin");
        assert!(percent_decode("a%2").is_none());
    }
}
