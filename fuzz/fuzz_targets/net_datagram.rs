//! Replication datagrams, as a `smithereens join` or `serve` socket reads
//! them: arbitrary bytes are reassembled within bounded memory, decoded as
//! packets and, when one carries a replication message, received by a
//! replica. Refused with a typed error, never a panic, never past the
//! reassembly limits.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smithereens_core::replication::Replica;
use smithereens_net::Packet;
use smithereens_net::fragment::{Reassembler, ReassemblyLimits};
use std::net::SocketAddr;

const LIMITS: ReassemblyLimits = ReassemblyLimits {
    max_partials: 4,
    max_bytes: 1 << 16,
};

fuzz_target!(|data: &[u8]| {
    let mut reassembler = Reassembler::new(LIMITS);
    let mut replica = Replica::new(smithereens_fuzz::grid_instance(), 64, 8);
    // The input is a sequence of datagrams, each after a u16 length (LE),
    // from one of two senders (the length's top bit).
    let mut rest = data;
    while rest.len() >= 2 {
        let head = u16::from_le_bytes([rest[0], rest[1]]);
        let len = usize::from(head & 0x7fff).min(rest.len() - 2);
        let (datagram, tail) = rest[2..].split_at(len);
        rest = tail;
        let from = SocketAddr::from(([127, 0, 0, 1], 9000 + (head >> 15)));
        if let Ok(Some(message)) = reassembler.push(from, datagram)
            && let Ok(Packet::Replication(inner)) = Packet::from_bytes(&message)
        {
            let _ = replica.receive(&inner);
        }
        assert!(reassembler.partial_count() <= LIMITS.max_partials);
        assert!(reassembler.partial_bytes() <= LIMITS.max_bytes);
    }
});
