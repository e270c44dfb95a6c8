//! DESIGN §3.10 replication: receivers apply the next version, ignore
//! duplicates and ask for a snapshot (or wait) on a gap. A simulated channel
//! drops, duplicates and reorders 30 % of all messages to 8 receivers; every
//! receiver ends with the server's state hash.

#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use smithereens_core::*;

const RECEIVERS: usize = 8;

#[derive(Default, Debug)]
struct ChannelStats {
    sent: u32,
    dropped: u32,
    duplicated: u32,
    reordered: u32,
}

/// A lossy link: 30 % of messages are perturbed, evenly split between
/// dropping, duplicating and delaying (reordering) by 1–4 ticks.
struct Link {
    in_flight: Vec<(u64, u64, Vec<u8>)>,
    order: u64,
}

impl Link {
    fn new() -> Self {
        Self {
            in_flight: Vec::new(),
            order: 0,
        }
    }

    fn send(&mut self, now: u64, bytes: Vec<u8>, rng: &mut Pcg64Mcg, stats: &mut ChannelStats) {
        stats.sent += 1;
        let mut push = |at: u64, bytes: Vec<u8>, order: &mut u64| {
            *order += 1;
            self.in_flight.push((at, *order, bytes));
        };
        if rng.random_bool(0.3) {
            match rng.random_range(0..3u8) {
                0 => stats.dropped += 1,
                1 => {
                    stats.duplicated += 1;
                    push(now + 1, bytes.clone(), &mut self.order);
                    let later = now + rng.random_range(1..=4u64);
                    push(later, bytes, &mut self.order);
                }
                _ => {
                    stats.reordered += 1;
                    let later = now + rng.random_range(2..=5u64);
                    push(later, bytes, &mut self.order);
                }
            }
        } else {
            push(now + 1, bytes, &mut self.order);
        }
    }

    /// Messages due at `now`, in arrival order.
    fn deliver(&mut self, now: u64) -> Vec<Vec<u8>> {
        self.in_flight.sort_by_key(|&(at, order, _)| (at, order));
        let split = self.in_flight.partition_point(|&(at, _, _)| at <= now);
        self.in_flight.drain(..split).map(|(_, _, b)| b).collect()
    }
}

fn server_desc() -> InstanceDesc {
    InstanceDesc {
        id: InstanceId(42),
        budget: BudgetDesc {
            body_slots: 24,
            ..BudgetDesc::default()
        },
        ..InstanceDesc::default()
    }
}

#[test]
fn eight_receivers_behind_a_lossy_reordering_channel_end_with_the_server_state_hash() {
    let n = 5;
    let asset = grid(n);
    let mut server = Instance::with_desc(asset.clone(), server_desc()).unwrap();
    let mut replicas: Vec<Replica> = (0..RECEIVERS)
        .map(|_| {
            Replica::new(
                Instance::with_desc(asset.clone(), server_desc()).unwrap(),
                16,
                6,
            )
        })
        .collect();
    let mut down: Vec<Link> = (0..RECEIVERS).map(|_| Link::new()).collect();
    let mut up: Vec<Link> = (0..RECEIVERS).map(|_| Link::new()).collect();
    let mut rng = Pcg64Mcg::seed_from_u64(0x5eed_2026);
    let mut stats = ChannelStats::default();
    let mut backend = HeadlessBackend::default();
    let mut event = 0u64;
    let mut hit_rng = 17u64;
    let (mut duplicates, mut snapshots, mut waits) = (0u32, 0u32, 0u32);
    let mut breaks = 0usize;
    let mut recycles = 0u32;

    let mut tick = 0u64;
    loop {
        tick += 1;
        let producing = tick <= 150;
        let mut outgoing: Vec<Message> = Vec::new();
        if producing {
            for _ in 0..rng.random_range(0..=2u8) {
                event += 1;
                server.admit(grid_hit(event, n, &mut hit_rng)).unwrap();
            }
            let out = server.commit(&mut backend).unwrap();
            breaks += out.broken.len();
            outgoing.extend(out.record.map(Message::Commit));
            if tick.is_multiple_of(25) {
                server.advance_sleep(5.0).unwrap();
                let victim = server
                    .clusters()
                    .find(|(_, c)| !c.supported && c.sleep == SleepState::Asleep)
                    .map(|(h, _)| h);
                if let Some(h) = victim {
                    let ticket = server.begin_recycle(h).unwrap();
                    server.mark_queries_refreshed();
                    outgoing.push(Message::Commit(server.finish_recycle(ticket).unwrap()));
                    recycles += 1;
                }
            }
        }
        if tick.is_multiple_of(4) || !producing {
            outgoing.push(Message::Heartbeat {
                instance: server.id(),
                commit_seq: server.commit_seq(),
            });
        }
        for msg in &outgoing {
            let bytes = msg.to_bytes();
            for link in &mut down {
                link.send(tick, bytes.clone(), &mut rng, &mut stats);
            }
        }
        // Snapshot requests reaching the server are answered over the same lossy link.
        for r in 0..RECEIVERS {
            for bytes in up[r].deliver(tick) {
                if let Ok(Message::SnapshotRequest { .. }) = Message::from_bytes(&bytes) {
                    let snap = Message::Snapshot(server.snapshot()).to_bytes();
                    down[r].send(tick, snap, &mut rng, &mut stats);
                }
            }
        }
        for r in 0..RECEIVERS {
            for bytes in down[r].deliver(tick) {
                match replicas[r].receive(&bytes).unwrap() {
                    ReceiveOutcome::Duplicate => duplicates += 1,
                    ReceiveOutcome::SnapshotInstalled { .. } => snapshots += 1,
                    ReceiveOutcome::Waiting { .. } => waits += 1,
                    ReceiveOutcome::RequestSnapshot { have } => {
                        let req = Message::SnapshotRequest {
                            instance: server.id(),
                            have,
                        };
                        up[r].send(tick, req.to_bytes(), &mut rng, &mut stats);
                    }
                    ReceiveOutcome::Applied { .. } | ReceiveOutcome::Ignored => {}
                }
            }
        }
        let converged = replicas
            .iter()
            .all(|rep| rep.instance().state_hash() == server.state_hash());
        if !producing && converged {
            break;
        }
        if tick >= 2000 {
            let states: Vec<(u64, u64, usize)> = replicas
                .iter()
                .map(|r| {
                    (
                        r.instance().commit_seq(),
                        r.instance().state_hash(),
                        r.buffered(),
                    )
                })
                .collect();
            panic!(
                "replicas failed to converge: server ({}, {}), replicas {states:?}",
                server.commit_seq(),
                server.state_hash()
            );
        }
    }

    // Late copies still in flight arrive after convergence: all harmless.
    for r in 0..RECEIVERS {
        for bytes in down[r].deliver(u64::MAX) {
            let out = replicas[r].receive(&bytes).unwrap();
            assert!(matches!(
                out,
                ReceiveOutcome::Duplicate | ReceiveOutcome::Ignored
            ));
        }
    }
    assert!(server.commit_seq() > 100, "{} commits", server.commit_seq());
    assert!(breaks > 50, "the run breaks bonds ({breaks})");
    assert!(recycles > 0, "and recycles debris");
    // The channel really was adverse, and every receiver mechanism was exercised.
    let perturbed = stats.dropped + stats.duplicated + stats.reordered;
    let share = perturbed as f64 / stats.sent as f64;
    assert!((0.25..0.35).contains(&share), "{stats:?}");
    assert!(stats.dropped > 100 && stats.duplicated > 100 && stats.reordered > 100);
    assert!(duplicates > 0 && snapshots > 0 && waits > 0);
    for rep in &replicas {
        assert_eq!(rep.instance().state_hash(), server.state_hash());
        assert_eq!(rep.instance().commit_seq(), server.commit_seq());
        assert_eq!(rep.instance().health(), server.health());
        assert_eq!(
            rep.instance().receipts().count(),
            server.receipts().count(),
            "every receipt arrived (through records or snapshots)"
        );
    }
}

#[test]
fn a_duplicate_is_ignored_and_never_damages_twice() {
    let mut server = Instance::new(three_chunks(), Pose::IDENTITY).unwrap();
    let mut replica = Replica::new(Instance::new(three_chunks(), Pose::IDENTITY).unwrap(), 8, 4);
    server.admit(hit(1)).unwrap();
    let r1 = server
        .commit(&mut HeadlessBackend::default())
        .unwrap()
        .record
        .unwrap();
    let bytes = Message::Commit(r1).to_bytes();
    assert_eq!(
        replica.receive(&bytes),
        Ok(ReceiveOutcome::Applied { through: 1 })
    );
    for _ in 0..3 {
        assert_eq!(replica.receive(&bytes), Ok(ReceiveOutcome::Duplicate));
    }
    assert_eq!(replica.instance().health(), &[6.0, 2.0]);
}

#[test]
fn a_gap_is_buffered_and_filled_in_order() {
    let mut server = Instance::new(three_chunks(), Pose::IDENTITY).unwrap();
    let mut replica = Replica::new(Instance::new(three_chunks(), Pose::IDENTITY).unwrap(), 8, 4);
    let mut msgs = Vec::new();
    for id in 1..=3 {
        server
            .admit(RadialDamage {
                damage: 1.0,
                ..hit(id)
            })
            .unwrap();
        let r = server
            .commit(&mut HeadlessBackend::default())
            .unwrap()
            .record
            .unwrap();
        msgs.push(Message::Commit(r).to_bytes());
    }
    assert_eq!(
        replica.receive(&msgs[2]),
        Ok(ReceiveOutcome::Waiting {
            have: 0,
            missing: (1, 2)
        })
    );
    assert_eq!(
        replica.receive(&msgs[1]),
        Ok(ReceiveOutcome::Waiting {
            have: 0,
            missing: (1, 1)
        })
    );
    assert_eq!(
        replica.receive(&msgs[0]),
        Ok(ReceiveOutcome::Applied { through: 3 })
    );
    assert_eq!(replica.instance().state_hash(), server.state_hash());
}

#[test]
fn malformed_or_foreign_messages_are_typed_errors_that_change_nothing() {
    let mut server = Instance::with_desc(
        three_chunks(),
        InstanceDesc {
            id: InstanceId(5),
            ..InstanceDesc::default()
        },
    )
    .unwrap();
    let mut replica = Replica::new(Instance::new(three_chunks(), Pose::IDENTITY).unwrap(), 8, 4);
    let before = replica.instance().state_hash();
    server.admit(hit(1)).unwrap();
    let record = server
        .commit(&mut HeadlessBackend::default())
        .unwrap()
        .record
        .unwrap();
    let bytes = Message::Commit(record.clone()).to_bytes();
    assert!(matches!(
        replica.receive(&bytes),
        Err(ReplicationError::UnknownInstance {
            found: InstanceId(5),
            ..
        })
    ));
    let mut own = record;
    own.instance = InstanceId(0);
    for r in &mut own.receipts {
        r.instance = InstanceId(0);
    }
    let good = Message::Commit(own).to_bytes();
    for cut in [0, 3, 10, good.len() - 1] {
        assert!(matches!(
            replica.receive(&good[..cut]),
            Err(ReplicationError::Malformed(_))
        ));
    }
    let mut flipped = good.clone();
    let k = flipped.len() / 2;
    flipped[k] ^= 0x80;
    assert!(matches!(
        replica.receive(&flipped),
        Err(ReplicationError::Malformed(FrameError::Checksum))
    ));
    assert!(matches!(
        replica.receive(b"definitely not a message"),
        Err(ReplicationError::Malformed(_))
    ));
    // A well-formed record with inconsistent content.
    let mut own = Message::from_bytes(&good).unwrap();
    if let Message::Commit(r) = &mut own {
        r.health.push((BondIndex(40), 1.0));
    }
    assert!(matches!(
        replica.receive(&own.to_bytes()),
        Err(ReplicationError::Record(RecordError::Invalid { .. }))
    ));
    assert_eq!(replica.instance().state_hash(), before);
    assert_eq!(
        replica.receive(&good),
        Ok(ReceiveOutcome::Applied { through: 1 })
    );
}
