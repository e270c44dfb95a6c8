//! Datagram framing: messages cut into fragments that fit one UDP datagram,
//! and their reassembly.
//!
//! Layout of a datagram (little-endian), [`FRAGMENT_HEADER_LEN`] bytes of
//! header, then the fragment's body:
//!
//! | bytes | field |
//! | --- | --- |
//! | 4 | magic `SMDG` |
//! | 1 | datagram format version ([`DATAGRAM_VERSION`]) |
//! | 8 | message id: FNV-1a 64 of the whole message |
//! | 4 | message length, bytes (≥ 1) |
//! | 2 | fragment index |
//! | 2 | fragment count (`⌈length / FRAGMENT_PAYLOAD⌉`, ≤ [`MAX_FRAGMENTS`]) |
//!
//! Every fragment but the last carries exactly [`FRAGMENT_PAYLOAD`] bytes
//! (1,200: a datagram of at most 1,221 bytes fits the 1,280-byte IPv6
//! minimum MTU with room for the IP and UDP headers); the last carries the
//! rest.
//!
//! The message id is the hash of the message's content, so a message sent
//! twice (a snapshot re-sent unchanged, a welcome repeated) has the same id
//! and the fragments of both copies combine: after a few retransmissions
//! under loss every fragment has arrived once, although no single copy
//! arrived whole. The hash is checked again on the reassembled bytes, so a
//! corrupted fragment costs the message, never its content.
//!
//! Reassembly memory is bounded ([`ReassemblyLimits`]): at most
//! `max_partials` incomplete messages and `max_bytes` of their buffers; the
//! least recently touched incomplete message is evicted to make room.

use smithereens_core::hash::fnv1a64;
use std::collections::BTreeMap;
use std::net::SocketAddr;

/// Magic of a datagram.
pub const DATAGRAM_MAGIC: [u8; 4] = *b"SMDG";
/// Datagram format version.
pub const DATAGRAM_VERSION: u8 = 1;
/// Bytes of a datagram before the fragment body.
pub const FRAGMENT_HEADER_LEN: usize = 4 + 1 + 8 + 4 + 2 + 2;
/// Largest fragment body, bytes.
pub const FRAGMENT_PAYLOAD: usize = 1200;
/// Largest datagram, bytes.
pub const MAX_DATAGRAM: usize = FRAGMENT_HEADER_LEN + FRAGMENT_PAYLOAD;
/// Most fragments of one message (a message is at most
/// `MAX_FRAGMENTS × FRAGMENT_PAYLOAD` = 1,228,800 bytes).
pub const MAX_FRAGMENTS: usize = 1024;
/// Largest message, bytes.
pub const MAX_MESSAGE: usize = MAX_FRAGMENTS * FRAGMENT_PAYLOAD;

/// Why a datagram was refused. Refused datagrams change nothing but the
/// counters (an inconsistent or corrupt one may cost the incomplete message
/// it belonged to, see [`Reassembler::push`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FragmentError {
    /// Shorter than the header.
    #[error("datagram of {0} bytes is shorter than the {FRAGMENT_HEADER_LEN}-byte header")]
    Truncated(usize),
    /// Not a Smithereens datagram.
    #[error("bad datagram magic {0:?}")]
    BadMagic([u8; 4]),
    /// Another datagram format version.
    #[error("datagram format version {0} (this build reads {DATAGRAM_VERSION})")]
    Version(u8),
    /// Header fields that cannot describe a fragment.
    #[error(
        "bad fragment header: message of {len} bytes, fragment {index} of {count}, body of {body} bytes"
    )]
    BadHeader {
        /// Message length.
        len: u32,
        /// Fragment index.
        index: u16,
        /// Fragment count.
        count: u16,
        /// Body bytes present.
        body: usize,
    },
    /// A fragment whose message length disagrees with earlier fragments of
    /// the same message id (the incomplete message is dropped).
    #[error("fragment disagrees with earlier fragments of message {id:#018x}")]
    Inconsistent {
        /// The message id.
        id: u64,
    },
    /// The reassembled bytes do not hash to the message id (a corrupted
    /// fragment; the message is dropped and waits for a retransmission).
    #[error("message {id:#018x} does not match its checksum")]
    Checksum {
        /// The message id.
        id: u64,
    },
    /// A message larger than the reassembly memory allows.
    #[error("message of {len} bytes exceeds the reassembly limit of {limit} bytes")]
    TooLarge {
        /// Message length.
        len: usize,
        /// [`ReassemblyLimits::max_bytes`].
        limit: usize,
    },
}

/// Cuts `message` into datagrams (see the module docs for the layout).
///
/// # Errors
/// [`FragmentError::TooLarge`] for an empty message or one over
/// [`MAX_MESSAGE`] bytes.
///
/// ```
/// use smithereens_net::fragment::{FRAGMENT_PAYLOAD, Reassembler, fragment};
/// let message: Vec<u8> = (0..3000u32).map(|i| (i % 251) as u8).collect();
/// let datagrams = fragment(&message).unwrap();
/// assert_eq!(datagrams.len(), 3000usize.div_ceil(FRAGMENT_PAYLOAD));
/// let from = "127.0.0.1:9000".parse().unwrap();
/// let mut r = Reassembler::default();
/// // Any order; the last fragment completes the message.
/// assert_eq!(r.push(from, &datagrams[2]), Ok(None));
/// assert_eq!(r.push(from, &datagrams[0]), Ok(None));
/// assert_eq!(r.push(from, &datagrams[1]), Ok(Some(message)));
/// ```
pub fn fragment(message: &[u8]) -> Result<Vec<Vec<u8>>, FragmentError> {
    if message.is_empty() || message.len() > MAX_MESSAGE {
        return Err(FragmentError::TooLarge {
            len: message.len(),
            limit: MAX_MESSAGE,
        });
    }
    let id = fnv1a64(message);
    let count = message.len().div_ceil(FRAGMENT_PAYLOAD);
    let mut out = Vec::with_capacity(count);
    for (index, body) in message.chunks(FRAGMENT_PAYLOAD).enumerate() {
        let mut d = Vec::with_capacity(FRAGMENT_HEADER_LEN + body.len());
        d.extend_from_slice(&DATAGRAM_MAGIC);
        d.push(DATAGRAM_VERSION);
        d.extend_from_slice(&id.to_le_bytes());
        d.extend_from_slice(&(message.len() as u32).to_le_bytes());
        d.extend_from_slice(&(index as u16).to_le_bytes());
        d.extend_from_slice(&(count as u16).to_le_bytes());
        d.extend_from_slice(body);
        out.push(d);
    }
    Ok(out)
}

/// A parsed, self-consistent fragment.
#[derive(Copy, Clone, Debug)]
struct Fragment<'a> {
    id: u64,
    len: usize,
    index: usize,
    count: usize,
    body: &'a [u8],
}

fn parse(datagram: &[u8]) -> Result<Fragment<'_>, FragmentError> {
    if datagram.len() < FRAGMENT_HEADER_LEN {
        return Err(FragmentError::Truncated(datagram.len()));
    }
    let (h, body) = datagram.split_at(FRAGMENT_HEADER_LEN);
    let magic = [h[0], h[1], h[2], h[3]];
    if magic != DATAGRAM_MAGIC {
        return Err(FragmentError::BadMagic(magic));
    }
    if h[4] != DATAGRAM_VERSION {
        return Err(FragmentError::Version(h[4]));
    }
    let mut id = [0u8; 8];
    id.copy_from_slice(&h[5..13]);
    let id = u64::from_le_bytes(id);
    let len = u32::from_le_bytes([h[13], h[14], h[15], h[16]]);
    let index = u16::from_le_bytes([h[17], h[18]]);
    let count = u16::from_le_bytes([h[19], h[20]]);
    let bad = FragmentError::BadHeader {
        len,
        index,
        count,
        body: body.len(),
    };
    let (n, i, c) = (len as usize, index as usize, count as usize);
    if n == 0 || n > MAX_MESSAGE || c != n.div_ceil(FRAGMENT_PAYLOAD) || i >= c {
        return Err(bad);
    }
    let expected = if i + 1 < c {
        FRAGMENT_PAYLOAD
    } else {
        n - (c - 1) * FRAGMENT_PAYLOAD
    };
    if body.len() != expected {
        return Err(bad);
    }
    Ok(Fragment {
        id,
        len: n,
        index: i,
        count: c,
        body,
    })
}

/// Bounds on the memory of a [`Reassembler`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ReassemblyLimits {
    /// Most incomplete messages kept at once.
    pub max_partials: usize,
    /// Most bytes of incomplete messages' buffers kept at once.
    pub max_bytes: usize,
}

impl Default for ReassemblyLimits {
    /// 64 incomplete messages, 8 MiB.
    fn default() -> Self {
        Self {
            max_partials: 64,
            max_bytes: 8 << 20,
        }
    }
}

/// Counts of a [`Reassembler`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ReassemblyCounters {
    /// Messages completed (a single-fragment message included).
    pub completed: u64,
    /// Fragments that repeated one already held (ignored).
    pub repeated: u64,
    /// Incomplete messages evicted to stay within the limits.
    pub evicted: u64,
    /// Datagrams refused ([`FragmentError`]).
    pub malformed: u64,
}

#[derive(Debug)]
struct Partial {
    len: usize,
    have: Vec<bool>,
    missing: usize,
    data: Vec<u8>,
    touched: u64,
}

/// Reassembles messages from fragments, keyed by (sender, message id).
#[derive(Debug, Default)]
pub struct Reassembler {
    limits: ReassemblyLimits,
    partials: BTreeMap<(SocketAddr, u64), Partial>,
    bytes: usize,
    clock: u64,
    counters: ReassemblyCounters,
}

impl Reassembler {
    /// A reassembler within `limits`.
    pub fn new(limits: ReassemblyLimits) -> Self {
        Self {
            limits,
            ..Self::default()
        }
    }

    /// Its counters.
    pub fn counters(&self) -> ReassemblyCounters {
        self.counters
    }

    /// Incomplete messages held.
    pub fn partial_count(&self) -> usize {
        self.partials.len()
    }

    /// Bytes held by incomplete messages.
    pub fn partial_bytes(&self) -> usize {
        self.bytes
    }

    /// Takes one datagram from `from`: returns the message it completes, if
    /// any. A fragment of a message that is already complete (a late copy)
    /// starts a new incomplete message, which a retransmission completes or
    /// the limits evict. O(fragment + incomplete messages).
    ///
    /// # Errors
    /// [`FragmentError`] for a datagram that is not a well-formed fragment,
    /// disagrees with earlier fragments of its message (which is then
    /// dropped), completes a message whose bytes do not match their id
    /// (dropped), or belongs to a message over the memory limit. Counted in
    /// [`ReassemblyCounters::malformed`]; nothing panics.
    pub fn push(
        &mut self,
        from: SocketAddr,
        datagram: &[u8],
    ) -> Result<Option<Vec<u8>>, FragmentError> {
        let result = self.push_inner(from, datagram);
        match &result {
            Ok(Some(_)) => self.counters.completed += 1,
            Err(_) => self.counters.malformed += 1,
            Ok(None) => {}
        }
        result
    }

    fn push_inner(
        &mut self,
        from: SocketAddr,
        datagram: &[u8],
    ) -> Result<Option<Vec<u8>>, FragmentError> {
        let f = parse(datagram)?;
        if f.count == 1 {
            return if fnv1a64(f.body) == f.id {
                Ok(Some(f.body.to_vec()))
            } else {
                Err(FragmentError::Checksum { id: f.id })
            };
        }
        let key = (from, f.id);
        if let Some(p) = self.partials.get(&key)
            && p.len != f.len
        {
            self.remove(&key);
            return Err(FragmentError::Inconsistent { id: f.id });
        }
        if !self.partials.contains_key(&key) {
            self.make_room(f.len)?;
            self.partials.insert(
                key,
                Partial {
                    len: f.len,
                    have: vec![false; f.count],
                    missing: f.count,
                    data: vec![0; f.len],
                    touched: 0,
                },
            );
            self.bytes += f.len;
        }
        self.clock += 1;
        let clock = self.clock;
        let Some(p) = self.partials.get_mut(&key) else {
            return Ok(None);
        };
        p.touched = clock;
        if p.have[f.index] {
            self.counters.repeated += 1;
            return Ok(None);
        }
        p.have[f.index] = true;
        p.missing -= 1;
        let at = f.index * FRAGMENT_PAYLOAD;
        p.data[at..at + f.body.len()].copy_from_slice(f.body);
        if p.missing > 0 {
            return Ok(None);
        }
        let Some(done) = self.remove(&key) else {
            return Ok(None);
        };
        if fnv1a64(&done.data) != f.id {
            return Err(FragmentError::Checksum { id: f.id });
        }
        Ok(Some(done.data))
    }

    fn remove(&mut self, key: &(SocketAddr, u64)) -> Option<Partial> {
        let p = self.partials.remove(key)?;
        self.bytes -= p.len;
        Some(p)
    }

    /// Evicts the least recently touched incomplete messages until one of
    /// `len` bytes fits.
    fn make_room(&mut self, len: usize) -> Result<(), FragmentError> {
        if len > self.limits.max_bytes {
            return Err(FragmentError::TooLarge {
                len,
                limit: self.limits.max_bytes,
            });
        }
        while !self.partials.is_empty()
            && (self.partials.len() >= self.limits.max_partials.max(1)
                || self.bytes + len > self.limits.max_bytes)
        {
            let oldest = self
                .partials
                .iter()
                .min_by_key(|(_, p)| p.touched)
                .map(|(k, _)| *k);
            if let Some(k) = oldest {
                self.remove(&k);
                self.counters.evicted += 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn message(len: usize, salt: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u32 * 31 + salt as u32) as u8)
            .collect()
    }

    fn addr(port: u16) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], port))
    }

    #[test]
    fn a_message_splits_into_full_fragments_and_a_remainder_and_reassembles_in_any_order() {
        let m = message(2 * FRAGMENT_PAYLOAD + 17, 1);
        let d = fragment(&m).unwrap();
        assert_eq!(d.len(), 3);
        assert_eq!(d[0].len(), MAX_DATAGRAM);
        assert_eq!(d[2].len(), FRAGMENT_HEADER_LEN + 17);
        let mut r = Reassembler::default();
        assert_eq!(r.push(addr(1), &d[1]), Ok(None));
        assert_eq!(r.push(addr(1), &d[2]), Ok(None));
        assert_eq!(r.partial_count(), 1);
        assert_eq!(r.push(addr(1), &d[0]), Ok(Some(m)));
        assert_eq!(r.partial_count(), 0);
        assert_eq!(r.partial_bytes(), 0);
        // A message of exactly one payload is one datagram.
        assert_eq!(fragment(&message(FRAGMENT_PAYLOAD, 2)).unwrap().len(), 1);
        assert!(fragment(&[]).is_err());
    }

    #[test]
    fn a_fragment_lost_in_one_copy_is_filled_by_a_retransmission_of_the_same_message() {
        let m = message(5 * FRAGMENT_PAYLOAD, 3);
        let mut r = Reassembler::default();
        // First copy: fragments 1 and 3 lost. Second copy: 0, 2 and 4 lost.
        let first = fragment(&m).unwrap();
        for k in [0, 2, 4] {
            assert_eq!(r.push(addr(7), &first[k]), Ok(None));
        }
        let second = fragment(&m).unwrap();
        assert_eq!(first, second, "a retransmission repeats the bytes");
        assert_eq!(r.push(addr(7), &second[1]), Ok(None));
        // A duplicate of a fragment held is ignored and counted.
        assert_eq!(r.push(addr(7), &second[1]), Ok(None));
        assert_eq!(r.push(addr(7), &second[3]), Ok(Some(m.clone())));
        let c = r.counters();
        assert_eq!((c.completed, c.repeated, c.malformed), (1, 1, 0));
        // The same message id from another sender is another message.
        assert_eq!(r.push(addr(8), &second[0]), Ok(None));
        assert_eq!(r.partial_count(), 1);
    }

    #[test]
    fn incomplete_messages_are_evicted_oldest_first_within_the_limits() {
        let limits = ReassemblyLimits {
            max_partials: 3,
            max_bytes: 10 * FRAGMENT_PAYLOAD,
        };
        let mut r = Reassembler::new(limits);
        let msgs: Vec<Vec<u8>> = (0..6)
            .map(|k| message(3 * FRAGMENT_PAYLOAD, k as u8))
            .collect();
        for m in &msgs {
            assert_eq!(r.push(addr(1), &fragment(m).unwrap()[0]), Ok(None));
            assert!(r.partial_count() <= 3);
            assert!(r.partial_bytes() <= limits.max_bytes);
        }
        assert_eq!(r.counters().evicted, 3);
        // The newest three remain: the last message completes, the first does not.
        let last = fragment(&msgs[5]).unwrap();
        assert_eq!(r.push(addr(1), &last[1]), Ok(None));
        assert_eq!(r.push(addr(1), &last[2]), Ok(Some(msgs[5].clone())));
        let first = fragment(&msgs[0]).unwrap();
        assert_eq!(r.push(addr(1), &first[1]), Ok(None));
        assert_eq!(r.push(addr(1), &first[2]), Ok(None));
        // Byte limit: a 9-fragment message leaves room for nothing else.
        let big = message(9 * FRAGMENT_PAYLOAD, 9);
        assert_eq!(r.push(addr(1), &fragment(&big).unwrap()[0]), Ok(None));
        assert_eq!(r.partial_count(), 1);
        assert_eq!(r.partial_bytes(), big.len());
        // One larger than the whole budget is refused outright.
        let huge = message(11 * FRAGMENT_PAYLOAD, 1);
        assert!(matches!(
            r.push(addr(1), &fragment(&huge).unwrap()[0]),
            Err(FragmentError::TooLarge { .. })
        ));
        assert_eq!(r.partial_count(), 1);
    }

    #[test]
    fn malformed_datagrams_are_typed_errors_counted_and_never_panic() {
        let m = message(2 * FRAGMENT_PAYLOAD + 5, 4);
        let d = fragment(&m).unwrap();
        let mut r = Reassembler::default();
        // Every truncation of every fragment, and every single-bit flip of
        // the first: an error or an incomplete message, never a panic and
        // never a wrong message.
        for f in &d {
            for cut in 0..f.len() {
                if let Ok(Some(out)) = r.push(addr(2), &f[..cut]) {
                    panic!("a truncated fragment completed {} bytes", out.len());
                }
            }
        }
        for bit in 0..d[0].len() * 8 {
            let mut bad = d[0].clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            let mut fresh = Reassembler::default();
            let _ = fresh.push(addr(2), &bad);
            let _ = fresh.push(addr(2), &d[1]);
            if let Ok(Some(out)) = fresh.push(addr(2), &d[2]) {
                assert_eq!(out, m, "a flipped bit produced a different message");
            }
        }
        assert!(matches!(
            r.push(addr(2), b"short"),
            Err(FragmentError::Truncated(5))
        ));
        assert!(matches!(
            r.push(addr(2), &[0u8; 40]),
            Err(FragmentError::BadMagic(_))
        ));
        // A body flipped in a fragment: the reassembled message fails its id.
        let mut r = Reassembler::default();
        let mut corrupt = d[1].clone();
        corrupt[FRAGMENT_HEADER_LEN + 3] ^= 0x40;
        assert_eq!(r.push(addr(3), &d[0]), Ok(None));
        assert_eq!(r.push(addr(3), &corrupt), Ok(None));
        assert!(matches!(
            r.push(addr(3), &d[2]),
            Err(FragmentError::Checksum { .. })
        ));
        assert_eq!(r.partial_count(), 0);
        // ...and a clean retransmission then delivers it.
        for f in &d[..2] {
            assert_eq!(r.push(addr(3), f), Ok(None));
        }
        assert_eq!(r.push(addr(3), &d[2]), Ok(Some(m)));
        assert!(r.counters().malformed >= 1);
        // A header claiming another length for a known id drops the message.
        let mut r = Reassembler::default();
        let d = fragment(&message(3 * FRAGMENT_PAYLOAD, 5)).unwrap();
        assert_eq!(r.push(addr(4), &d[0]), Ok(None));
        let mut other = d[1].clone();
        other[13..17].copy_from_slice(&((3 * FRAGMENT_PAYLOAD - 1) as u32).to_le_bytes());
        assert!(matches!(
            r.push(addr(4), &other),
            Err(FragmentError::Inconsistent { .. })
        ));
        assert_eq!(r.partial_count(), 0);
        // A body of the wrong size for its index.
        let mut short = d[1].clone();
        short.pop();
        assert!(matches!(
            r.push(addr(4), &short),
            Err(FragmentError::BadHeader { .. })
        ));
    }
}
