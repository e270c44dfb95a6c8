//! The versioned asset file: an [`AssetDesc`] plus one render mesh per chunk.
//!
//! Layout (little-endian):
//! `magic "SMTHASST"` (8 bytes) · `format version: u32` · `payload length: u64` ·
//! `FNV-1a 64 of payload: u64` · `payload` (postcard encoding of [`AssetFile`]).
//! The same [`AssetFile`] always encodes to the same bytes.

use crate::asset::{Asset, AssetDesc};
use crate::error::AssetError;
use crate::hash::fnv1a64;
use glam::Vec3;
use serde::{Deserialize, Serialize};

/// Magic bytes at the start of every asset file.
pub const ASSET_MAGIC: [u8; 8] = *b"SMTHASST";
/// The format version this build writes and reads.
pub const ASSET_FORMAT_VERSION: u32 = 2;
const HEADER_LEN: usize = 8 + 4 + 8 + 8;

/// Triangle mesh of one chunk for rendering, asset space (m). Triangles wind
/// counter-clockwise seen from outside. `exterior` triangles come from the
/// source surface; `interior` triangles are cut faces (caps).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChunkMesh {
    /// Vertex positions.
    pub positions: Vec<Vec3>,
    /// Triangles of the original surface (indices into `positions`).
    pub exterior: Vec<[u32; 3]>,
    /// Triangles of cut faces (indices into `positions`).
    pub interior: Vec<[u32; 3]>,
}

/// Everything stored in an asset file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AssetFile {
    /// Human-readable name (e.g. the source mesh's file stem).
    pub name: String,
    /// Where the asset came from (tool, pattern, seed, source); free text.
    pub provenance: String,
    /// The destruction asset.
    pub desc: AssetDesc,
    /// One render mesh per chunk, same order as `desc.chunks`.
    pub meshes: Vec<ChunkMesh>,
}

/// Why an asset file could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AssetFileError {
    /// Shorter than its header or its declared payload.
    #[error("asset file is truncated: {len} bytes, expected at least {expected}")]
    Truncated {
        /// Bytes present.
        len: usize,
        /// Bytes needed.
        expected: usize,
    },
    /// Does not start with [`ASSET_MAGIC`].
    #[error("not a Smithereens asset file (bad magic)")]
    BadMagic,
    /// Written by another format version.
    #[error("asset format version {found} is not supported (this build reads {supported})")]
    UnsupportedVersion {
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        supported: u32,
    },
    /// Payload checksum mismatch: the file is corrupt.
    #[error("asset file checksum mismatch: the file is corrupt")]
    Checksum,
    /// Payload could not be decoded.
    #[error("asset payload could not be decoded: {0}")]
    Decode(String),
    /// Trailing bytes after the payload.
    #[error("asset file has {0} unexpected trailing bytes")]
    TrailingBytes(usize),
    /// The decoded asset failed validation.
    #[error("invalid asset")]
    Invalid(#[from] AssetError),
    /// Mesh count differs from chunk count, or a triangle index is out of range.
    #[error("render mesh {chunk}: {reason}")]
    BadMesh {
        /// Chunk whose mesh is wrong.
        chunk: usize,
        /// What is wrong.
        reason: String,
    },
}

impl AssetFile {
    /// Encodes to the versioned byte layout.
    pub fn to_bytes(&self) -> Vec<u8> {
        // postcard only fails on writer errors, and a Vec writer has none.
        let payload = postcard::to_stdvec(self).unwrap_or_default();
        let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
        out.extend_from_slice(&ASSET_MAGIC);
        out.extend_from_slice(&ASSET_FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&fnv1a64(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        out
    }

    /// Decodes and validates (header, checksum, asset invariants, mesh indices).
    ///
    /// # Errors
    /// Any [`AssetFileError`]; nothing is partially returned.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, AssetFileError> {
        if bytes.len() < HEADER_LEN {
            return Err(AssetFileError::Truncated {
                len: bytes.len(),
                expected: HEADER_LEN,
            });
        }
        if bytes[..8] != ASSET_MAGIC {
            return Err(AssetFileError::BadMagic);
        }
        let word = |r: std::ops::Range<usize>| -> [u8; 8] {
            let mut w = [0u8; 8];
            w[..r.len()].copy_from_slice(&bytes[r]);
            w
        };
        let version = u32::from_le_bytes(word(8..12)[..4].try_into().unwrap_or([0; 4]));
        if version != ASSET_FORMAT_VERSION {
            return Err(AssetFileError::UnsupportedVersion {
                found: version,
                supported: ASSET_FORMAT_VERSION,
            });
        }
        let len = u64::from_le_bytes(word(12..20));
        let sum = u64::from_le_bytes(word(20..28));
        let expected = (HEADER_LEN as u64).saturating_add(len);
        if (bytes.len() as u64) < expected {
            return Err(AssetFileError::Truncated {
                len: bytes.len(),
                expected: expected.min(usize::MAX as u64) as usize,
            });
        }
        if (bytes.len() as u64) > expected {
            return Err(AssetFileError::TrailingBytes(
                bytes.len() - expected as usize,
            ));
        }
        let payload = &bytes[HEADER_LEN..];
        if fnv1a64(payload) != sum {
            return Err(AssetFileError::Checksum);
        }
        let file: AssetFile =
            postcard::from_bytes(payload).map_err(|e| AssetFileError::Decode(e.to_string()))?;
        file.validate()?;
        Ok(file)
    }

    /// Validates the asset and the meshes; returns the runtime [`Asset`].
    ///
    /// # Errors
    /// [`AssetFileError::Invalid`] or [`AssetFileError::BadMesh`].
    pub fn validate(&self) -> Result<Asset, AssetFileError> {
        let asset = Asset::new(&self.desc)?;
        if self.meshes.len() != self.desc.chunks.len() {
            return Err(AssetFileError::BadMesh {
                chunk: self.meshes.len().min(self.desc.chunks.len()),
                reason: format!(
                    "{} meshes for {} chunks",
                    self.meshes.len(),
                    self.desc.chunks.len()
                ),
            });
        }
        for (k, m) in self.meshes.iter().enumerate() {
            let n = m.positions.len() as u64;
            if m.positions.iter().any(|p| !p.is_finite()) {
                return Err(AssetFileError::BadMesh {
                    chunk: k,
                    reason: "non-finite vertex".into(),
                });
            }
            if m.exterior
                .iter()
                .chain(&m.interior)
                .flatten()
                .any(|&i| i as u64 >= n)
            {
                return Err(AssetFileError::BadMesh {
                    chunk: k,
                    reason: format!("triangle index out of range ({n} vertices)"),
                });
            }
        }
        Ok(asset)
    }
}
