//! Animated glTF export of a recorded run: one node per chunk, each with a
//! mesh of an exterior and an interior primitive, and translation + rotation
//! channels sampled from the run, so the destruction plays in Blender or any
//! glTF viewer.
//!
//! A chunk's render mesh is stored in asset space and drawn at its owning
//! body's asset → world pose ([`smithereens_core::record`]), so the node's
//! transform on a frame is exactly that body pose; vertices are written
//! unchanged.

use gltf::json;
use gltf::json::validation::{Checked, USize64};
use smithereens_core::record::{PoseArray, RunRecord};
use smithereens_core::{AssetFile, ChunkMesh};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// Settings of [`export_glb`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportOptions {
    /// Sample every `every`-th frame (≥ 1). The last frame is always sampled,
    /// so the animation always ends on the run's final state.
    pub every: u32,
}

impl Default for ExportOptions {
    fn default() -> Self {
        Self { every: 1 }
    }
}

/// Why a run could not be exported.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// `every` was 0.
    #[error("sampling interval must be at least 1 frame")]
    ZeroInterval,
    /// The run has no frames to animate.
    #[error("the run has no frames")]
    NoFrames,
    /// The run's time step is not a positive finite number.
    #[error("the run's time step {0} s is not positive and finite")]
    BadTimestep(f32),
    /// A body names a chunk the run does not have.
    #[error("body {body} names chunk {chunk}, but the run has {count} chunks")]
    ChunkIndex {
        /// Index in the run's bodies.
        body: u32,
        /// The chunk it names.
        chunk: u32,
        /// Chunks in the run.
        count: usize,
    },
    /// The run declares more frames than a run may hold.
    #[error("the run declares {0} frames; a run holds at most {max}", max = smithereens_core::record::MAX_RUN_FRAMES)]
    TooManyFrames(u32),
    /// The animation would not fit in one GLB file.
    #[error("the glTF file would hold {bytes} bytes of binary data, more than the {max} bytes a GLB file may hold{hint}", max = MAX_GLB_BIN_BYTES, hint = match every_needed { Some(n) => format!("; key every {n}th frame or more (--every {n})"), None => String::new() })]
    TooLarge {
        /// Estimated size of the binary chunk, bytes.
        bytes: u64,
        /// The smallest `every` that fits, when one does.
        every_needed: Option<u32>,
    },
    /// On some frame, a chunk belongs to no body or to more than one.
    #[error("chunk {chunk} belongs to {owners} bodies on frame {frame}; exactly one is required")]
    Ownership {
        /// The chunk.
        chunk: u32,
        /// The frame.
        frame: u32,
        /// How many bodies claim it.
        owners: u32,
    },
    /// A chunk mesh triangle names a vertex that does not exist.
    #[error("chunk {chunk}'s mesh names vertex {vertex}, but it has {count} vertices")]
    MeshIndex {
        /// The chunk.
        chunk: u32,
        /// The bad index.
        vertex: u32,
        /// Vertex count of the chunk's mesh.
        count: usize,
    },
    /// A vertex or a pose holds NaN or infinity.
    #[error("{0} holds a non-finite number")]
    NonFinite(String),
    /// A pose's rotation is not a unit quaternion.
    #[error("{what} has a rotation quaternion of length {length}; it must be a unit quaternion")]
    BadRotation {
        /// Which pose.
        what: String,
        /// Its length.
        length: f32,
    },
    /// The glTF document could not be serialised.
    #[error("writing glTF: {0}")]
    Gltf(String),
}

/// Which body owns each chunk, swept forward frame by frame.
///
/// A body owns its chunks on frames `first_frame .. first_frame +
/// poses.len()`, so ownership only changes where a body starts or ends.
/// The sweep keeps one owner per chunk and applies those changes in frame
/// order: memory grows with chunks and bodies, never with `frame_count`
/// (a file's `frame_count` alone must not decide how much is allocated).
struct OwnerSweep<'a> {
    run: &'a RunRecord,
    /// `(frame, starts, body)`, sorted; at one frame, ends come before starts.
    changes: Vec<(u32, bool, u32)>,
    /// Next entry of `changes` to apply.
    next: usize,
    /// Per chunk: the last body that took it (meaningful when `count` is 1).
    owner: Vec<u32>,
    /// Per chunk: how many bodies own it now.
    count: Vec<u32>,
    /// Chunks whose `count` is not 1.
    wrong: usize,
}

impl<'a> OwnerSweep<'a> {
    /// The sweep before frame 0 (no body applied yet). Bodies without poses
    /// own nothing and are left out.
    fn new(run: &'a RunRecord) -> Result<Self, ExportError> {
        let mut changes = Vec::with_capacity(2 * run.bodies.len());
        for (b, body) in run.bodies.iter().enumerate() {
            if let Some(&c) = body
                .chunks
                .iter()
                .find(|&&c| c as usize >= run.chunks.len())
            {
                return Err(ExportError::ChunkIndex {
                    body: b as u32,
                    chunk: c,
                    count: run.chunks.len(),
                });
            }
            if body.poses.is_empty() {
                continue;
            }
            let end = body.first_frame as u64 + body.poses.len() as u64;
            changes.push((body.first_frame, true, b as u32));
            // A body that outlives the run never ends inside it.
            if let Ok(end) = u32::try_from(end) {
                changes.push((end, false, b as u32));
            }
        }
        changes.sort_unstable();
        let n = run.chunks.len();
        Ok(Self {
            run,
            changes,
            next: 0,
            owner: vec![u32::MAX; n],
            count: vec![0; n],
            wrong: n,
        })
    }

    /// Applies every start and end up to and including `frame`.
    fn advance_to(&mut self, frame: u32) {
        while let Some(&(f, starts, b)) = self.changes.get(self.next) {
            if f > frame {
                break;
            }
            self.next += 1;
            for &c in &self.run.bodies[b as usize].chunks {
                let c = c as usize;
                let was_right = self.count[c] == 1;
                if starts {
                    self.count[c] += 1;
                    self.owner[c] = b;
                } else {
                    self.count[c] = self.count[c].saturating_sub(1);
                    if self.count[c] == 1 {
                        // The remaining owner is whichever alive body holds it.
                        self.owner[c] = self.alive_owner(c, frame).unwrap_or(u32::MAX);
                    }
                }
                match (was_right, self.count[c] == 1) {
                    (true, false) => self.wrong += 1,
                    (false, true) => self.wrong -= 1,
                    _ => {}
                }
            }
        }
    }

    /// An alive body on `frame` that holds chunk `c` (only called when the
    /// chunk has become singly owned after an overlap, which a valid run
    /// never has).
    fn alive_owner(&self, c: usize, frame: u32) -> Option<u32> {
        self.run.bodies.iter().enumerate().find_map(|(b, body)| {
            let alive = body.first_frame <= frame
                && (frame as u64) < body.first_frame as u64 + body.poses.len() as u64;
            (alive && body.chunks.contains(&(c as u32))).then_some(b as u32)
        })
    }

    /// Checks that every chunk has exactly one owner on every frame below
    /// `frame_count`, visiting only the frames where ownership changes.
    fn check(mut self) -> Result<(), ExportError> {
        let frame_count = self.run.frame_count;
        let mut frame = 0;
        loop {
            self.advance_to(frame);
            if self.wrong > 0 {
                let chunk = self.count.iter().position(|&o| o != 1).unwrap_or(0);
                return Err(ExportError::Ownership {
                    chunk: chunk as u32,
                    frame,
                    owners: self.count.get(chunk).copied().unwrap_or(0),
                });
            }
            match self.changes.get(self.next) {
                Some(&(f, _, _)) if f < frame_count => frame = f,
                _ => return Ok(()),
            }
        }
    }

    /// Chunk `chunk`'s pose on the frame last advanced to: its owner's
    /// asset → world pose. Only after [`Self::check`] passed on the same run.
    fn pose(&self, frame: u32, chunk: usize) -> PoseArray {
        let body = &self.run.bodies[self.owner[chunk] as usize];
        body.poses[(frame - body.first_frame) as usize]
    }
}

/// Most bytes of binary data (meshes and animation keys) a GLB written by
/// [`export_glb`] may hold: 2 GiB − 1. The GLB format stores lengths as
/// 32-bit numbers, and many importers (browsers among them) index buffers
/// with signed 32-bit offsets, so larger files would not open anyway.
pub const MAX_GLB_BIN_BYTES: u64 = i32::MAX as u64;

/// How many frames [`sampled_frames`] returns, without building the list:
/// `ceil((frame_count − 1) / every) + 1`, non-increasing in `every`.
fn sampled_count(frame_count: u32, every: u32) -> u64 {
    if frame_count == 0 {
        return 0;
    }
    (frame_count as u64 - 1).div_ceil(every.max(1) as u64) + 1
}

/// Refuses a run whose GLB would exceed [`MAX_GLB_BIN_BYTES`] of binary
/// data, naming the smallest `every` that fits, computed from counts alone
/// before anything is allocated.
fn check_glb_size(run: &RunRecord, every: u32) -> Result<(), ExportError> {
    let pad = |b: u64| b.div_ceil(4) * 4;
    let meshes: u64 = run
        .chunks
        .iter()
        .map(|c| {
            let m = &c.mesh;
            pad(m.positions.len() as u64 * 12)
                + pad(m.exterior.len() as u64 * 12)
                + pad(m.interior.len() as u64 * 12)
        })
        .sum();
    // Times, then per chunk a translation (12 bytes) and a rotation (16 bytes) per key.
    let per_key = 4 + run.chunks.len() as u64 * 28;
    let bytes_for = |e: u32| meshes.saturating_add(sampled_count(run.frame_count, e) * per_key);
    let bytes = bytes_for(every);
    if bytes <= MAX_GLB_BIN_BYTES {
        return Ok(());
    }
    // Keying fewer frames shrinks the animation, never the meshes; the size
    // only falls as `every` grows, so bisect for the smallest that fits.
    let (mut lo, mut hi) = (every.max(1), run.frame_count.max(1));
    let every_needed = (bytes_for(hi) <= MAX_GLB_BIN_BYTES).then(|| {
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if bytes_for(mid) <= MAX_GLB_BIN_BYTES {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        hi
    });
    Err(ExportError::TooLarge {
        bytes,
        every_needed,
    })
}

/// The frames that [`export_glb`] samples: `0, every, 2·every, …` and always
/// the last frame. Empty if the run has no frames.
pub fn sampled_frames(frame_count: u32, every: u32) -> Vec<u32> {
    if frame_count == 0 {
        return vec![];
    }
    let last = frame_count - 1;
    let mut frames: Vec<u32> = (0..frame_count).step_by(every.max(1) as usize).collect();
    if frames.last() != Some(&last) {
        frames.push(last);
    }
    frames
}

/// Little-endian binary buffer with 4-byte aligned views.
#[derive(Default)]
struct Bin {
    bytes: Vec<u8>,
    views: Vec<json::buffer::View>,
}

impl Bin {
    fn view(
        &mut self,
        data: &[u8],
        target: Option<json::buffer::Target>,
    ) -> json::Index<json::buffer::View> {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        let offset = self.bytes.len();
        self.bytes.extend_from_slice(data);
        json::Index::push(
            &mut self.views,
            json::buffer::View {
                buffer: json::Index::new(0),
                byte_length: USize64(data.len() as u64),
                byte_offset: Some(USize64(offset as u64)),
                byte_stride: None,
                name: None,
                target: target.map(Checked::Valid),
                extensions: None,
                extras: Default::default(),
            },
        )
    }
}

fn f32_bytes(values: impl IntoIterator<Item = f32>) -> Vec<u8> {
    values.into_iter().flat_map(f32::to_le_bytes).collect()
}

fn accessor(
    root: &mut json::Root,
    view: json::Index<json::buffer::View>,
    count: usize,
    component: json::accessor::ComponentType,
    type_: json::accessor::Type,
    bounds: Option<(Vec<f32>, Vec<f32>)>,
) -> json::Index<json::Accessor> {
    let (min, max) = match bounds {
        Some((lo, hi)) => (Some(json::Value::from(lo)), Some(json::Value::from(hi))),
        None => (None, None),
    };
    root.push(json::Accessor {
        buffer_view: Some(view),
        byte_offset: None,
        count: USize64(count as u64),
        component_type: Checked::Valid(json::accessor::GenericComponentType(component)),
        extensions: None,
        extras: Default::default(),
        type_: Checked::Valid(type_),
        min,
        max,
        name: None,
        normalized: false,
        sparse: None,
    })
}

/// A glTF document being built: the root with this tool as generator, the
/// binary buffer, and the two chunk materials (exterior, interior).
struct Document {
    root: json::Root,
    bin: Bin,
    exterior: json::Index<json::Material>,
    interior: json::Index<json::Material>,
}

impl Document {
    fn new() -> Self {
        let mut root = json::Root {
            asset: json::Asset {
                generator: Some(format!("smithereens {}", env!("CARGO_PKG_VERSION"))),
                ..Default::default()
            },
            ..Default::default()
        };
        let exterior = material(&mut root, "exterior", EXTERIOR_RGBA, 0.8);
        let interior = material(&mut root, "interior", INTERIOR_RGBA, 0.95);
        Self {
            root,
            bin: Bin::default(),
            exterior,
            interior,
        }
    }
}

fn material(
    root: &mut json::Root,
    name: &str,
    rgba: [f32; 4],
    roughness: f32,
) -> json::Index<json::Material> {
    let mut m = json::Material {
        name: Some(name.into()),
        ..Default::default()
    };
    m.pbr_metallic_roughness.base_color_factor = json::material::PbrBaseColorFactor(rgba);
    m.pbr_metallic_roughness.metallic_factor = json::material::StrengthFactor(0.0);
    m.pbr_metallic_roughness.roughness_factor = json::material::StrengthFactor(roughness);
    root.push(m)
}

fn check_finite(what: impl FnOnce() -> String, values: &[f32]) -> Result<(), ExportError> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(ExportError::NonFinite(what()))
    }
}

/// Writes chunk `i`'s render mesh (asset space) as a glTF mesh with an
/// exterior and an interior primitive (each only when non-empty), sharing
/// one position accessor. `None` for a mesh without vertices or triangles.
fn chunk_mesh(
    root: &mut json::Root,
    bin: &mut Bin,
    i: usize,
    m: &ChunkMesh,
    exterior: json::Index<json::Material>,
    interior: json::Index<json::Material>,
) -> Result<Option<json::Index<json::Mesh>>, ExportError> {
    use json::accessor::{ComponentType as C, Type as T};
    use json::buffer::Target;
    let count = m.positions.len();
    let mut mesh = None;
    if count > 0 {
        let flat: Vec<f32> = m.positions.iter().flat_map(|p| p.to_array()).collect();
        check_finite(|| format!("chunk {i}'s mesh"), &flat)?;
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for p in &m.positions {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        let view = bin.view(&f32_bytes(flat), Some(Target::ArrayBuffer));
        let positions = accessor(
            root,
            view,
            count,
            C::F32,
            T::Vec3,
            Some((lo.to_vec(), hi.to_vec())),
        );
        let mut primitives = vec![];
        for (tris, mat) in [(&m.exterior, exterior), (&m.interior, interior)] {
            if tris.is_empty() {
                continue;
            }
            if let Some(&vertex) = tris.iter().flatten().find(|&&v| v as usize >= count) {
                return Err(ExportError::MeshIndex {
                    chunk: i as u32,
                    vertex,
                    count,
                });
            }
            let bytes: Vec<u8> = tris
                .iter()
                .flatten()
                .flat_map(|v| v.to_le_bytes())
                .collect();
            let view = bin.view(&bytes, Some(Target::ElementArrayBuffer));
            let indices = accessor(root, view, tris.len() * 3, C::U32, T::Scalar, None);
            primitives.push(json::mesh::Primitive {
                attributes: BTreeMap::from([(
                    Checked::Valid(json::mesh::Semantic::Positions),
                    positions,
                )]),
                extensions: None,
                extras: Default::default(),
                indices: Some(indices),
                material: Some(mat),
                mode: Checked::Valid(json::mesh::Mode::Triangles),
                targets: None,
            });
        }
        if !primitives.is_empty() {
            mesh = Some(root.push(json::Mesh {
                extensions: None,
                extras: Default::default(),
                name: Some(format!("chunk {i}")),
                primitives,
                weights: None,
            }));
        }
    }
    Ok(mesh)
}

/// Ends the binary buffer and serialises `root` and `bin` as GLB bytes.
fn finish_glb(mut root: json::Root, mut bin: Bin) -> Result<Vec<u8>, ExportError> {
    while !bin.bytes.len().is_multiple_of(4) {
        bin.bytes.push(0);
    }
    root.buffer_views = std::mem::take(&mut bin.views);
    root.push(json::Buffer {
        byte_length: USize64(bin.bytes.len() as u64),
        name: None,
        uri: None,
        extensions: None,
        extras: Default::default(),
    });
    let json_bytes = root
        .to_vec()
        .map_err(|e| ExportError::Gltf(e.to_string()))?;
    let glb = gltf::binary::Glb {
        header: gltf::binary::Header {
            magic: *b"glTF",
            version: 2,
            length: 0,
        },
        json: Cow::Owned(json_bytes),
        bin: Some(Cow::Owned(bin.bytes)),
    };
    glb.to_vec().map_err(|e| ExportError::Gltf(e.to_string()))
}

/// A static GLB of a fractured asset: one node per chunk at the origin
/// (vertices in asset space, metres), named `chunk I` (`chunk I (parent P)`
/// in a hierarchy, I and P chunk indices), each with an `exterior` primitive (the source
/// surface) and an `interior` primitive (cut faces) with their own
/// materials. A hierarchy gets one scene per depth, the support depth's
/// shown by default. Opens in any glTF 2.0 viewer.
/// Deterministic: the same asset gives the same bytes.
///
/// # Errors
/// [`ExportError::MeshIndex`], [`ExportError::NonFinite`],
/// [`ExportError::Gltf`].
pub fn export_asset_glb(file: &AssetFile) -> Result<Vec<u8>, ExportError> {
    let Document {
        mut root,
        mut bin,
        exterior,
        interior,
    } = Document::new();
    // One scene per hierarchy depth (a flat asset has only depth 0), so
    // coarse and fine chunks never overlap on screen.
    let depths = file.desc.chunks.iter().map(|c| c.depth).max().unwrap_or(0) + 1;
    let mut scenes: Vec<Vec<json::Index<json::Node>>> = vec![Vec::new(); depths as usize];
    for (i, m) in file.meshes.iter().enumerate() {
        let mesh = chunk_mesh(&mut root, &mut bin, i, m, exterior, interior)?;
        let chunk = file.desc.chunks.get(i);
        let name = match chunk.and_then(|c| c.parent) {
            Some(p) => format!("chunk {i} (parent {p})"),
            None => format!("chunk {i}"),
        };
        let node = root.push(json::Node {
            mesh,
            name: Some(name),
            ..Default::default()
        });
        scenes[chunk.map_or(0, |c| c.depth) as usize].push(node);
    }
    for (depth, nodes) in scenes.into_iter().enumerate() {
        root.push(json::Scene {
            extensions: None,
            extras: Default::default(),
            name: Some(if depths == 1 {
                file.name.clone()
            } else {
                format!("{} depth {depth}", file.name)
            }),
            nodes,
        });
    }
    let shown = file
        .desc
        .support_depth
        .unwrap_or(depths - 1)
        .min(depths - 1);
    root.scene = Some(json::Index::new(shown));
    finish_glb(root, bin)
}

/// Base colour of the exterior (source surface) material, linear RGBA.
const EXTERIOR_RGBA: [f32; 4] = [0.72, 0.70, 0.66, 1.0];
/// Base colour of the interior (cut faces) material, linear RGBA.
const INTERIOR_RGBA: [f32; 4] = [0.85, 0.45, 0.20, 1.0];

/// Unit quaternion `[x, y, z, w]` from a pose, in the hemisphere of `prev` so
/// that glTF's linear (slerp) interpolation takes the short way round.
fn rotation(pose: &PoseArray, prev: Option<[f32; 4]>) -> [f32; 4] {
    let q = [pose[3], pose[4], pose[5], pose[6]];
    let len = q.iter().map(|c| c * c).sum::<f32>().sqrt();
    let mut q = if len > 0.0 {
        q.map(|c| c / len)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    };
    if let Some(p) = prev
        && p.iter().zip(&q).map(|(a, b)| a * b).sum::<f32>() < 0.0
    {
        q = q.map(|c| -c);
    }
    q
}

/// Checks what the viewer and the exporter rely on beyond the file format:
/// frames (at most [`MAX_RUN_FRAMES`](smithereens_core::record::MAX_RUN_FRAMES))
/// and a positive timestep, every chunk owned by exactly one body on every
/// frame, mesh indices in range, finite poses. Memory grows with the
/// chunks and bodies present, not with the declared frame count.
///
/// # Errors
/// The first [`ExportError`] found.
pub fn validate_run(run: &RunRecord) -> Result<(), ExportError> {
    if run.frame_count == 0 {
        return Err(ExportError::NoFrames);
    }
    if run.frame_count > smithereens_core::record::MAX_RUN_FRAMES {
        return Err(ExportError::TooManyFrames(run.frame_count));
    }
    if !(run.timestep.is_finite() && run.timestep > 0.0) {
        return Err(ExportError::BadTimestep(run.timestep));
    }
    OwnerSweep::new(run)?.check()?;
    for body in &run.bodies {
        for (k, p) in body.poses.iter().enumerate() {
            check_finite(|| format!("body {} pose {k}", body.id), p)?;
            let norm = p[3..7].iter().map(|v| v * v).sum::<f32>().sqrt();
            if (norm - 1.0).abs() > 1e-3 {
                return Err(ExportError::BadRotation {
                    what: format!("body {} pose {k}", body.id),
                    length: norm,
                });
            }
        }
    }
    Ok(())
}

/// Writes a run as binary glTF (GLB).
///
/// The document has one scene whose root nodes are the chunks (node `i` is
/// chunk `i`, named `chunk i`). Each node's mesh has up to two primitives,
/// the exterior surface (material `exterior`) and the cut faces (material
/// `interior`); an empty one is left out, as glTF forbids empty accessors. No
/// normals are written: glTF viewers then shade flat, which suits fractured
/// pieces. One animation, named after the run, carries a LINEAR translation
/// and rotation channel per chunk, keyed at `frame · timestep` seconds on the
/// frames of [`sampled_frames`]; it lasts `(frame_count − 1) · timestep` s.
/// Each node's static transform is its frame-0 pose.
///
/// # Errors
/// [`ExportError`] for an interval of 0, a run without frames, with more
/// than [`MAX_RUN_FRAMES`](smithereens_core::record::MAX_RUN_FRAMES) or with
/// a bad time step, a file larger than [`MAX_GLB_BIN_BYTES`]
/// ([`ExportError::TooLarge`] names the `every` that fits), a chunk owned by zero or several bodies on some frame, a mesh
/// index out of range, or a non-finite vertex or pose.
///
/// # Example
/// ```
/// use smithereens::export::{ExportOptions, export_glb};
/// use smithereens_core::record::{RunBody, RunChunk, RunRecord};
/// use smithereens_core::ChunkMesh;
/// use smithereens_core::glam::Vec3;
///
/// let mut run = RunRecord::new("one", 1.0 / 60.0);
/// run.frame_count = 2;
/// run.chunks.push(RunChunk {
///     centroid: Vec3::ZERO,
///     support: false,
///     mesh: ChunkMesh { positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y], exterior: vec![[0, 1, 2]], interior: vec![] },
/// });
/// run.bodies.push(RunBody { id: 0, chunks: vec![0], supported: false, first_frame: 0,
///     poses: vec![[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]] });
/// let glb = export_glb(&run, &ExportOptions::default()).unwrap();
/// assert_eq!(&glb[..4], b"glTF");
/// ```
pub fn export_glb(run: &RunRecord, options: &ExportOptions) -> Result<Vec<u8>, ExportError> {
    use json::accessor::{ComponentType as C, Type as T};
    if options.every == 0 {
        return Err(ExportError::ZeroInterval);
    }
    validate_run(run)?;
    check_glb_size(run, options.every)?;
    let mut poses = OwnerSweep::new(run)?;
    poses.advance_to(0);

    let Document {
        mut root,
        mut bin,
        exterior,
        interior,
    } = Document::new();

    // Meshes and nodes.
    let mut nodes = Vec::with_capacity(run.chunks.len());
    for (i, chunk) in run.chunks.iter().enumerate() {
        let mesh = chunk_mesh(&mut root, &mut bin, i, &chunk.mesh, exterior, interior)?;
        let p0 = poses.pose(0, i);
        nodes.push(root.push(json::Node {
            mesh,
            name: Some(format!("chunk {i}")),
            translation: Some([p0[0], p0[1], p0[2]]),
            rotation: Some(json::scene::UnitQuaternion(rotation(&p0, None))),
            ..Default::default()
        }));
    }
    root.push(json::Scene {
        extensions: None,
        extras: Default::default(),
        name: Some(run.name.clone()),
        nodes: nodes.clone(),
    });
    root.scene = Some(json::Index::new(0));

    // Animation: one shared time accessor, two channels per chunk.
    let frames = sampled_frames(run.frame_count, options.every);
    let times: Vec<f32> = frames
        .iter()
        .map(|&f| (f as f64 * run.timestep as f64) as f32)
        .collect();
    let (t0, t1) = (times[0], times[times.len() - 1]);
    let view = bin.view(&f32_bytes(times), None);
    let input = accessor(
        &mut root,
        view,
        frames.len(),
        C::F32,
        T::Scalar,
        Some((vec![t0], vec![t1])),
    );
    // One sweep over the sampled frames fills every chunk's keys.
    let n = run.chunks.len();
    let mut translations: Vec<Vec<f32>> = vec![Vec::with_capacity(frames.len() * 3); n];
    let mut rotations: Vec<Vec<f32>> = vec![Vec::with_capacity(frames.len() * 4); n];
    let mut prev: Vec<Option<[f32; 4]>> = vec![None; n];
    for &f in &frames {
        poses.advance_to(f);
        for i in 0..n {
            let p = poses.pose(f, i);
            translations[i].extend_from_slice(&p[..3]);
            let q = rotation(&p, prev[i]);
            prev[i] = Some(q);
            rotations[i].extend_from_slice(&q);
        }
    }
    let mut channels = vec![];
    let mut samplers = vec![];
    for ((&node, translations), rotations) in nodes.iter().zip(translations).zip(rotations) {
        for (data, type_, path) in [
            (
                translations,
                T::Vec3,
                json::animation::Property::Translation,
            ),
            (rotations, T::Vec4, json::animation::Property::Rotation),
        ] {
            let view = bin.view(&f32_bytes(data), None);
            let output = accessor(&mut root, view, frames.len(), C::F32, type_, None);
            let sampler = json::Index::push(
                &mut samplers,
                json::animation::Sampler {
                    extensions: None,
                    extras: Default::default(),
                    input,
                    interpolation: Checked::Valid(json::animation::Interpolation::Linear),
                    output,
                },
            );
            channels.push(json::animation::Channel {
                sampler,
                target: json::animation::Target {
                    extensions: None,
                    extras: Default::default(),
                    node,
                    path: Checked::Valid(path),
                },
                extensions: None,
                extras: Default::default(),
            });
        }
    }
    root.push(json::Animation {
        extensions: None,
        extras: Default::default(),
        channels,
        name: Some(run.name.clone()),
        samplers,
    });

    finish_glb(root, bin)
}
