//! The protocol over real sockets with a core authority (no physics): two
//! instances, three receivers, every side behind a shim that drops 30 %,
//! duplicates 10 % and reorders 10 % of its datagrams; garbage datagrams and
//! a receiver built on another asset.

#![allow(clippy::unwrap_used)]

mod common;

use common::{instances, welcome_of};
use smithereens_core::fixtures::grid_desc;
use smithereens_core::instance::InstanceId;
use smithereens_core::{Asset, EventId, HeadlessBackend, RadialDamage};
use smithereens_net::{NetError, ReceiverDesc, ReceiverEvent, Server, ServerDesc, ShimDesc, join};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn adverse(seed: u64) -> ShimDesc {
    ShimDesc {
        loss: 0.3,
        duplicate: 0.1,
        reorder: 0.1,
        seed,
        ..ShimDesc::default()
    }
}

fn grid(n: u32) -> Arc<Asset> {
    Arc::new(Asset::new(&grid_desc(n, n, n, 0.5, 2000.0, 40.0)).unwrap())
}

/// A deterministic hit inside an `n`-grid of 0.5 m cubes.
fn hit(id: u64, n: u32, rng: &mut u64) -> RadialDamage {
    let mut next = || {
        *rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*rng >> 40) as f32) / ((1u64 << 24) as f32)
    };
    let size = n as f32 * 0.5;
    let point = smithereens_core::glam::Vec3::new(next() * size, next() * size, next() * size);
    RadialDamage {
        id: EventId(id),
        point,
        radius: 0.4 + next() * 0.8,
        damage: 20.0 + next() * 120.0,
        impulse: None,
    }
}

type ReceiverResult = (Vec<ReceiverEvent>, Vec<(u64, u64)>);

#[test]
fn three_core_receivers_behind_an_adverse_shim_end_with_the_authoritys_replicated_state() {
    let n = 4;
    let asset = grid(n);
    let mut authority = instances(&asset);
    let mut server = Server::bind(
        ServerDesc {
            shim: adverse(1),
            ..ServerDesc::default()
        },
        &welcome_of(&authority),
    )
    .unwrap();
    let addr = server.local_addr().unwrap();
    let receivers: Vec<std::thread::JoinHandle<ReceiverResult>> = (0..3)
        .map(|k| {
            let asset = asset.clone();
            std::thread::spawn(move || {
                let desc = ReceiverDesc {
                    shim: adverse(10 + k),
                    timeout: Duration::from_secs(60),
                    ..ReceiverDesc::new(addr)
                };
                let mut r = join(desc).unwrap().start(instances(&asset)).unwrap();
                let mut events = Vec::new();
                r.run(&mut |e| events.push(e)).unwrap();
                let last = r
                    .instances()
                    .map(|i| (i.commit_seq(), i.replicated_hash()))
                    .collect();
                (events, last)
            })
        })
        .collect();
    let wait = Instant::now() + Duration::from_secs(30);
    while server.ready_count() < 3 {
        assert!(Instant::now() < wait, "receivers did not join");
        server
            .poll_until(Instant::now() + Duration::from_millis(10), &authority)
            .unwrap();
    }
    // The authority: 120 ticks of 0-2 hits on one of its instances each.
    let mut hashes: BTreeMap<(InstanceId, u64), u64> = BTreeMap::new();
    let (mut rng, mut event) = (99u64, 0u64);
    for tick in 0..120u64 {
        let inst = &mut authority[(tick % 2) as usize];
        for _ in 0..(tick % 3) {
            event += 1;
            inst.admit(hit(event, n, &mut rng)).unwrap();
        }
        let out = inst.commit(&mut HeadlessBackend::default()).unwrap();
        if let Some(record) = out.record {
            hashes.insert((inst.id(), inst.commit_seq()), inst.replicated_hash());
            server.broadcast_commit(&record);
        }
        server
            .poll_until(Instant::now() + Duration::from_millis(4), &authority)
            .unwrap();
    }
    server.finish();
    let linger = Instant::now() + Duration::from_secs(30);
    while !server.all_done() && Instant::now() < linger {
        server
            .poll_until(Instant::now() + Duration::from_millis(10), &authority)
            .unwrap();
    }
    let finals: Vec<(u64, u64)> = authority
        .iter()
        .map(|i| (i.commit_seq(), i.replicated_hash()))
        .collect();
    assert!(finals.iter().all(|&(seq, _)| seq > 20), "{finals:?}");
    let mut snapshots = 0;
    for r in receivers {
        let (events, last) = r.join().unwrap();
        assert_eq!(last, finals);
        for e in events {
            if let ReceiverEvent::Applied {
                instance,
                commit_seq,
                hash,
                by,
            } = e
            {
                assert_eq!(hashes.get(&(instance, commit_seq)), Some(&hash));
                snapshots += usize::from(by == smithereens_net::Reached::Snapshot);
            }
        }
    }
    assert!(snapshots > 0, "gaps were filled by snapshots");
    let shim = server.shim_counters();
    assert!(shim.dropped > 0 && shim.duplicated > 0 && shim.reordered > 0);
    assert!(server.counters().snapshots > 0);
}

#[test]
fn garbage_is_counted_and_a_receiver_built_on_another_asset_is_refused() {
    let authority = instances(&grid(3));
    let mut server = Server::bind(ServerDesc::default(), &welcome_of(&authority)).unwrap();
    let addr = server.local_addr().unwrap();
    let other = grid(2);
    let receiver = std::thread::spawn(move || {
        let raw = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        for garbage in [&b"hello?"[..], &[0u8; 64], b"SMDG\x01 truncated"] {
            raw.send_to(garbage, addr).unwrap();
        }
        let joining = join(ReceiverDesc::new(addr)).unwrap();
        assert_eq!(joining.welcome().instances.len(), 2);
        joining.start(instances(&other)).map(|_| ())
    });
    let end = Instant::now() + Duration::from_secs(10);
    while !receiver.is_finished() && Instant::now() < end {
        server
            .poll_until(Instant::now() + Duration::from_millis(10), &authority)
            .unwrap();
    }
    let result = receiver.join().unwrap();
    assert!(
        matches!(
            result,
            Err(NetError::AssetMismatch {
                instance: InstanceId(0),
                ..
            })
        ),
        "{result:?}"
    );
    assert_eq!(server.malformed_datagrams(), 3);
    assert_eq!(server.receiver_count(), 1);
}
