//! Replication messages: arbitrary bytes, as a receiver gets them from the
//! network, are applied or refused with a typed error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smithereens_core::replication::Replica;
use smithereens_core::{Asset, Instance, Pose, fixtures};
use std::sync::{Arc, OnceLock};

fn instance() -> Instance {
    static BASE: OnceLock<Instance> = OnceLock::new();
    BASE.get_or_init(|| {
        let asset = Arc::new(Asset::new(&fixtures::grid_desc(3, 3, 1, 1.0, 1000.0, 10.0)).unwrap());
        Instance::new(asset, Pose::IDENTITY).unwrap()
    })
    .clone()
}

fuzz_target!(|data: &[u8]| {
    let mut replica = Replica::new(instance(), 64, 8);
    // The input may hold several messages: split it at a separator byte.
    for message in data.split(|&b| b == 0xA5) {
        let _ = replica.receive(message);
    }
});
