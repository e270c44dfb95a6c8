//! Replication messages: arbitrary bytes, as a receiver gets them from the
//! network, are applied or refused with a typed error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smithereens_core::replication::Replica;

fuzz_target!(|data: &[u8]| {
    let mut replica = Replica::new(smithereens_fuzz::grid_instance(), 64, 8);
    // The input may hold several messages: split it at a separator byte.
    for message in data.split(|&b| b == 0xA5) {
        let _ = replica.receive(message);
    }
});
