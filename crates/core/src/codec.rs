//! Framed binary encoding shared by snapshots, commit records, replication
//! messages and the journal.
//!
//! Layout (little-endian): `magic` (4 bytes) · `format version: u16` ·
//! `payload length: u32` · `FNV-1a 64 of payload: u64` · `payload` (postcard).
//! The same value always encodes to the same bytes. Decoding checks every
//! field and never panics on malformed input.
//!
//! **Event layout versions.** Format version 1 of every frame that carries
//! damage events (snapshots, commit records, replication messages, replay
//! logs, journal entries) stored each event as a bare
//! [`crate::RadialDamage`]; version 2 stores a [`crate::DamageEvent`]
//! (point, impulse and a [`crate::DamageModel`], radial or falloff). Files
//! and messages are written in version 2; [`decode_compat`] reads both,
//! turning version-1 events into radial events, so a journal, a save or a
//! replay log written before falloff damage existed loads unchanged.

use crate::hash::fnv1a64;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::cell::Cell;

/// Frame format version whose events are bare [`crate::RadialDamage`] values.
pub const LEGACY_EVENT_VERSION: u16 = 1;

thread_local! {
    static LEGACY_EVENTS: Cell<bool> = const { Cell::new(false) };
}

/// True while [`with_legacy_event_layout`] runs on this thread: a
/// [`crate::DamageEvent`] then deserialises from the version-1 layout (a
/// bare [`crate::RadialDamage`]). Other crates' types that changed with the
/// event layout (the Rapier crate's explosion) consult it too.
pub fn legacy_event_layout() -> bool {
    LEGACY_EVENTS.with(Cell::get)
}

/// Runs `f` (a deserialisation of data written with the version-1 event
/// layout) with [`legacy_event_layout`] set, restoring the previous value
/// afterwards, also if `f` unwinds.
pub fn with_legacy_event_layout<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            LEGACY_EVENTS.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(LEGACY_EVENTS.with(|c| c.replace(true)));
    f()
}

/// Bytes before the payload.
pub const FRAME_HEADER_LEN: usize = 4 + 2 + 4 + 8;

/// Why framed bytes could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// Fewer bytes than the header or the declared payload.
    #[error("truncated: {len} bytes, expected {expected}")]
    Truncated {
        /// Bytes present.
        len: usize,
        /// Bytes needed.
        expected: usize,
    },
    /// Another kind of data.
    #[error("bad magic {found:?}, expected {expected:?}")]
    BadMagic {
        /// Magic found.
        found: [u8; 4],
        /// Magic expected.
        expected: [u8; 4],
    },
    /// Written by another format version.
    #[error("format version {found} is not supported (this build reads {supported})")]
    Version {
        /// In the data.
        found: u16,
        /// Supported.
        supported: u16,
    },
    /// Checksum mismatch: corrupt data.
    #[error("checksum mismatch: the data is corrupt")]
    Checksum,
    /// More bytes than the declared payload.
    #[error("{0} unexpected trailing bytes")]
    TrailingBytes(usize),
    /// The payload does not decode.
    #[error("payload does not decode: {0}")]
    Decode(String),
    /// The value is too large to frame (payload over 4 GiB).
    #[error("value too large to encode")]
    TooLarge,
}

/// Encodes `value` in a frame with `magic` and `version`.
///
/// # Errors
/// [`FrameError::TooLarge`] for a payload over `u32::MAX` bytes;
/// [`FrameError::Decode`] if serde rejects the value (not for this crate's types).
pub fn encode<T: Serialize>(
    magic: [u8; 4],
    version: u16,
    value: &T,
) -> Result<Vec<u8>, FrameError> {
    let payload = postcard::to_stdvec(value).map_err(|e| FrameError::Decode(e.to_string()))?;
    let len = u32::try_from(payload.len()).map_err(|_| FrameError::TooLarge)?;
    let mut out = Vec::with_capacity(FRAME_HEADER_LEN + payload.len());
    out.extend_from_slice(&magic);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&fnv1a64(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
    Ok(out)
}

/// Decodes a frame written by [`encode`] with the same `magic` and `version`.
///
/// # Errors
/// Any [`FrameError`]; nothing is partially returned.
pub fn decode<T: DeserializeOwned>(
    magic: [u8; 4],
    version: u16,
    bytes: &[u8],
) -> Result<T, FrameError> {
    let (_, payload) = open(magic, version..=version, bytes)?;
    decode_payload(payload)
}

/// [`decode`] for a frame that carries damage events: reads `version` and
/// also [`LEGACY_EVENT_VERSION`] (whose events are bare radial events, see
/// the module docs).
///
/// # Errors
/// Any [`FrameError`]; [`FrameError::Version`] names `version` as supported.
pub fn decode_compat<T: DeserializeOwned>(
    magic: [u8; 4],
    version: u16,
    bytes: &[u8],
) -> Result<T, FrameError> {
    let (found, payload) = open(magic, LEGACY_EVENT_VERSION..=version, bytes)?;
    if found == version {
        decode_payload(payload)
    } else if found == LEGACY_EVENT_VERSION {
        with_legacy_event_layout(|| decode_payload(payload))
    } else {
        Err(FrameError::Version {
            found,
            supported: version,
        })
    }
}

/// Checks a frame's magic, version (one of `versions`), length and checksum
/// and returns its version and payload, for readers that accept several
/// format versions (see [`decode_payload`]).
///
/// # Errors
/// Any [`FrameError`] but [`FrameError::Decode`].
pub fn open(
    magic: [u8; 4],
    versions: std::ops::RangeInclusive<u16>,
    bytes: &[u8],
) -> Result<(u16, &[u8]), FrameError> {
    if bytes.len() < FRAME_HEADER_LEN {
        return Err(FrameError::Truncated {
            len: bytes.len(),
            expected: FRAME_HEADER_LEN,
        });
    }
    let mut found = [0u8; 4];
    found.copy_from_slice(&bytes[0..4]);
    if found != magic {
        return Err(FrameError::BadMagic {
            found,
            expected: magic,
        });
    }
    let v = u16::from_le_bytes([bytes[4], bytes[5]]);
    if !versions.contains(&v) {
        return Err(FrameError::Version {
            found: v,
            supported: *versions.end(),
        });
    }
    let len = u32::from_le_bytes([bytes[6], bytes[7], bytes[8], bytes[9]]) as usize;
    let mut sum = [0u8; 8];
    sum.copy_from_slice(&bytes[10..18]);
    let sum = u64::from_le_bytes(sum);
    let expected = FRAME_HEADER_LEN + len;
    if bytes.len() < expected {
        return Err(FrameError::Truncated {
            len: bytes.len(),
            expected,
        });
    }
    if bytes.len() > expected {
        return Err(FrameError::TrailingBytes(bytes.len() - expected));
    }
    let payload = &bytes[FRAME_HEADER_LEN..];
    if fnv1a64(payload) != sum {
        return Err(FrameError::Checksum);
    }
    Ok((v, payload))
}

/// Decodes a payload returned by [`open`].
///
/// # Errors
/// [`FrameError::Decode`].
pub fn decode_payload<T: DeserializeOwned>(payload: &[u8]) -> Result<T, FrameError> {
    postcard::from_bytes(payload).map_err(|e| FrameError::Decode(e.to_string()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_every_kind_of_damage() {
        let value = (7u64, vec![1.5f32, -2.0], String::from("x"));
        let bytes = encode(*b"TEST", 3, &value).unwrap();
        assert_eq!(
            decode::<(u64, Vec<f32>, String)>(*b"TEST", 3, &bytes),
            Ok(value)
        );
        for cut in 0..bytes.len() {
            assert!(decode::<(u64, Vec<f32>, String)>(*b"TEST", 3, &bytes[..cut]).is_err());
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            assert!(
                decode::<(u64, Vec<f32>, String)>(*b"TEST", 3, &b).is_err(),
                "flip at {i}"
            );
        }
        assert!(matches!(
            decode::<u64>(*b"OTHR", 3, &bytes),
            Err(FrameError::BadMagic { .. })
        ));
        assert!(matches!(
            decode::<u64>(*b"TEST", 4, &bytes),
            Err(FrameError::Version { found: 3, .. })
        ));
    }
}
