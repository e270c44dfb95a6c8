//! What a collider stands for, stored in `Collider::user_data`.

/// What a collider stands for, stored in `Collider::user_data`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ColliderTag {
    /// A chunk of the destructible instance.
    Chunk(u32),
    /// A projectile (index in spawn order).
    Projectile(u32),
    /// The ground.
    Ground,
    /// A chunk of render-only debris (no authoritative collision).
    RenderOnly(u32),
    /// A piece of an authored proxy; the value is the cluster's lowest chunk.
    Proxy(u32),
    /// Anything else.
    Other,
}

impl ColliderTag {
    const CHUNK: u128 = 1 << 64;
    const PROJECTILE: u128 = 2 << 64;
    const GROUND: u128 = 3 << 64;
    const RENDER_ONLY: u128 = 4 << 64;
    const PROXY: u128 = 5 << 64;

    /// Encodes into `user_data`.
    pub fn encode(self) -> u128 {
        match self {
            Self::Chunk(i) => Self::CHUNK | i as u128,
            Self::Projectile(i) => Self::PROJECTILE | i as u128,
            Self::Ground => Self::GROUND,
            Self::RenderOnly(i) => Self::RENDER_ONLY | i as u128,
            Self::Proxy(i) => Self::PROXY | i as u128,
            Self::Other => 0,
        }
    }

    /// The chunk an authoritative chunk or proxy collider stands for.
    pub fn authoritative_chunk(self) -> Option<u32> {
        match self {
            Self::Chunk(c) | Self::Proxy(c) => Some(c),
            _ => None,
        }
    }

    /// True for colliders with authoritative chunk collision (chunks and proxy pieces).
    pub fn is_authoritative_chunk(self) -> bool {
        self.authoritative_chunk().is_some()
    }

    /// Decodes from `user_data`.
    pub fn decode(v: u128) -> Self {
        let low = (v & 0xffff_ffff) as u32;
        match v >> 64 {
            1 => Self::Chunk(low),
            2 => Self::Projectile(low),
            3 => Self::Ground,
            4 => Self::RenderOnly(low),
            5 => Self::Proxy(low),
            _ => Self::Other,
        }
    }
}
