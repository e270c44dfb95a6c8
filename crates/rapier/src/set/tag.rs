//! What a library collider stands for, written to `Collider::user_data`.
//!
//! Layout of the 128 bits (most significant first):
//!
//! | bits | field |
//! |---|---|
//! | 127–104 | mark ([`super::DestructionSettings::tag_mark`], 24 bits) |
//! | 103–96 | kind: 1 chunk, 2 render-only debris, 3 proxy piece |
//! | 95–64 | instance generation |
//! | 63–32 | instance index |
//! | 31–0 | chunk index (for a proxy piece: the cluster's lowest chunk) |
//!
//! The tag is for game code and debugging. The library itself never trusts
//! `user_data`: it recognises its colliders by handle (see
//! [`super::DestructionSet::collider_tag`]), so a game collider whose
//! `user_data` happens to carry the mark is still foreign.

use super::InstanceHandle;

/// What a library collider stands for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ColliderTag {
    /// An authoritative chunk collider.
    Chunk {
        /// Its instance.
        instance: InstanceHandle,
        /// The chunk.
        chunk: u32,
    },
    /// A chunk of render-only debris (no authoritative collision). Only
    /// render-only bodies restored from a snapshot of format 9 or older
    /// have such colliders: today render-only debris is a particle outside
    /// Rapier ([`crate::debris`]).
    RenderOnly {
        /// Its instance.
        instance: InstanceHandle,
        /// The chunk.
        chunk: u32,
    },
    /// A piece of an authored proxy; `chunk` is the cluster's lowest chunk.
    Proxy {
        /// Its instance.
        instance: InstanceHandle,
        /// The cluster's lowest chunk.
        chunk: u32,
    },
}

impl ColliderTag {
    /// The instance this collider belongs to.
    pub fn instance(self) -> InstanceHandle {
        match self {
            Self::Chunk { instance, .. }
            | Self::RenderOnly { instance, .. }
            | Self::Proxy { instance, .. } => instance,
        }
    }

    /// The chunk an authoritative chunk or proxy collider stands for.
    pub fn authoritative_chunk(self) -> Option<u32> {
        match self {
            Self::Chunk { chunk, .. } | Self::Proxy { chunk, .. } => Some(chunk),
            Self::RenderOnly { .. } => None,
        }
    }

    /// Encodes into `user_data` under `mark` (24 bits).
    pub fn encode(self, mark: u32) -> u128 {
        let (kind, instance, chunk) = match self {
            Self::Chunk { instance, chunk } => (1u128, instance, chunk),
            Self::RenderOnly { instance, chunk } => (2, instance, chunk),
            Self::Proxy { instance, chunk } => (3, instance, chunk),
        };
        ((mark as u128 & 0xFF_FFFF) << 104)
            | (kind << 96)
            | ((instance.generation() as u128) << 64)
            | ((instance.index() as u128) << 32)
            | chunk as u128
    }

    /// Decodes `user_data` written by [`Self::encode`] under `mark`; `None`
    /// for any value without the mark or with an unknown kind. A decoded
    /// value is only a claim: see the module docs.
    pub fn decode(v: u128, mark: u32) -> Option<Self> {
        if (v >> 104) as u32 != mark & 0xFF_FFFF {
            return None;
        }
        let instance = InstanceHandle::from_raw_parts((v >> 32) as u32, (v >> 64) as u32);
        let chunk = v as u32;
        match (v >> 96) as u8 {
            1 => Some(Self::Chunk { instance, chunk }),
            2 => Some(Self::RenderOnly { instance, chunk }),
            3 => Some(Self::Proxy { instance, chunk }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip_and_foreign_values_decode_to_none() {
        let i = InstanceHandle::from_raw_parts(7, 3);
        for t in [
            ColliderTag::Chunk {
                instance: i,
                chunk: 42,
            },
            ColliderTag::RenderOnly {
                instance: i,
                chunk: u32::MAX,
            },
            ColliderTag::Proxy {
                instance: i,
                chunk: 0,
            },
        ] {
            assert_eq!(
                ColliderTag::decode(t.encode(0x53_4D_54), 0x53_4D_54),
                Some(t)
            );
            assert_eq!(ColliderTag::decode(t.encode(0x53_4D_54), 0x12_3456), None);
        }
        for v in [0u128, 1, u64::MAX as u128, 1 << 64, u128::MAX] {
            assert_eq!(ColliderTag::decode(v, 0x53_4D_54), None);
        }
    }
}
