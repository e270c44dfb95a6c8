//! FNV-1a, 64-bit: a small, portable hash for checksums and state hashes.
//! Not cryptographic; used to detect corruption and divergence.

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a 64 of `bytes`.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h = StateHasher::new();
    h.write(bytes);
    h.finish()
}

/// Incremental FNV-1a 64 over the bit patterns of simulation values.
#[derive(Copy, Clone, Debug)]
pub struct StateHasher(u64);

impl Default for StateHasher {
    fn default() -> Self {
        Self::new()
    }
}

impl StateHasher {
    /// A hasher at the FNV offset basis.
    pub const fn new() -> Self {
        Self(OFFSET)
    }
    /// Feeds raw bytes.
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(PRIME);
        }
    }
    /// Feeds a `u32`.
    pub fn write_u32(&mut self, v: u32) {
        self.write(&v.to_le_bytes());
    }
    /// Feeds a `u64`.
    pub fn write_u64(&mut self, v: u64) {
        self.write(&v.to_le_bytes());
    }
    /// Feeds the bit pattern of an `f32` (so −0.0 ≠ 0.0 and NaN payloads count).
    pub fn write_f32(&mut self, v: f32) {
        self.write_u32(v.to_bits());
    }
    /// The hash so far.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn fnv1a64_matches_published_vectors() {
        // Test vectors from the FNV reference (draft-eastlake-fnv).
        assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x85944171f73967e8);
    }
}
