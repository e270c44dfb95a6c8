//! # smithereens-net
//!
//! Replication of authoritative destruction (DESIGN §3.10) over real UDP
//! sockets, on loopback only. The `smithereens serve` and `smithereens
//! join` commands are built on it.
//!
//! **What is replicated: destruction state, not motion.** The server sends
//! one [`smithereens_core::Message::Commit`] per commit record: bond health,
//! the clusters removed and created, their representation and slot, the
//! receipts. A receiver keeps a core [`smithereens_core::Instance`] per
//! instance (no physics engine) behind a [`smithereens_core::Replica`].
//! Cluster poses arrive only with the commits that create or push a
//! cluster; per-step poses are not sent. Authority and receivers therefore
//! agree on [`smithereens_core::Instance::replicated_hash`] at every commit
//! sequence, which is the hash checkpoints compare, and not on the full
//! `state_hash`.
//!
//! ## Layers
//! * [`fragment`]: a message is cut into datagrams of at most 1,221 bytes
//!   (1,200 of payload) with a header (message id = content hash, fragment
//!   index, fragment count) and reassembled, fragments of repeated copies of
//!   the same message combining, within bounded memory. Malformed datagrams
//!   are counted and ignored; nothing panics.
//! * [`shim`]: a seeded loss / duplication / reordering shim on every send.
//! * [`endpoint`]: a UDP socket bound on loopback with both (servers bind
//!   127.0.0.1; [`loopback_address`] refuses `[::1]`, port 0 and no port).
//!   Non-loopback addresses are refused with [`NetError::NotLoopback`]; no
//!   name is ever looked up, so no traffic leaves the machine.
//! * [`packet`]: the messages, framed and checksummed ([`Packet`]).
//! * [`server`] and [`receiver`]: the protocol.
//!
//! ## Protocol
//! 1. A receiver repeats [`Packet::Hello`] until a [`Packet::Welcome`]
//!    arrives; the server answers every hello with the same welcome bytes
//!    (the scenario as run and each instance's id and asset fingerprint).
//!    The receiver builds the instances itself, refuses a fingerprint that
//!    differs ([`NetError::AssetMismatch`]), and sends keepalives from then on.
//! 2. The server broadcasts each commit record once to every receiver, and
//!    every 50 ms a [`packet::Status`]: the latest commit sequence of every
//!    instance (the heartbeats), flagged final once the run is over.
//! 3. A replica applies the next sequence, ignores verified duplicates and
//!    buffers commits after a gap. When the gap persists (commits and
//!    statuses keep arriving without progress) it asks for a snapshot
//!    ([`smithereens_core::Message::SnapshotRequest`]); a receiver whose
//!    first status shows the server ahead (a late joiner) asks at once.
//!    Requests are repeated every 150 ms until the replica catches up.
//! 4. The server answers a request with a snapshot of the instance's current
//!    state, and sends the *same* snapshot again to requests within the next
//!    second that it still helps, so the fragments of repeated answers
//!    combine under loss. The receiver installs it, applies the commits it
//!    buffered after it, and goes on with the events.
//! 5. Once a final status arrived and every replica holds its final
//!    sequence, the receiver repeats [`Packet::Bye`] until a
//!    [`Packet::ByeAck`] (or 1 s) and stops. The server lingers until every
//!    receiver left or fell silent.
//! 6. Limits: a receiver silent for [`ServerDesc::silent_after`] (3 s) is
//!    evicted and its slot freed; a hello to a full table (256) gets
//!    [`Packet::Full`] and the join fails at once ([`NetError::ServerFull`]);
//!    a receiver that hears nothing from its server for
//!    [`ReceiverDesc::server_silence`] (5 s) gives up
//!    ([`NetError::ServerSilent`]); deadlines from huge durations mean
//!    "never" instead of overflowing.
//!
//! A server with one core instance and one receiver (a thread here; a
//! process with `smithereens join`):
//!
//! ```
//! use smithereens_core::{Asset, HeadlessBackend, Instance, Pose, RadialDamage, EventId, fixtures};
//! use smithereens_net::{ReceiverDesc, Server, ServerDesc, Welcome, join};
//! use std::sync::Arc;
//! use std::time::{Duration, Instant};
//!
//! let asset = Arc::new(Asset::new(&fixtures::grid_desc(3, 3, 1, 0.5, 1000.0, 40.0)).unwrap());
//! let mut authority = vec![Instance::new(asset.clone(), Pose::IDENTITY).unwrap()];
//! // No scenario text: this receiver gets its instances from the code below
//! // (`join` builds them from the text).
//! let welcome = Welcome::new(String::new(), String::new(), &authority);
//! let mut server = Server::bind(ServerDesc::default(), &welcome).unwrap();
//! let addr = server.local_addr().unwrap();
//! let receiver = std::thread::spawn(move || {
//!     let fresh = vec![Instance::new(asset, Pose::IDENTITY).unwrap()];
//!     let mut r = join(ReceiverDesc::new(addr)).unwrap().start(fresh).unwrap();
//!     r.run(&mut |_| {}).unwrap();
//!     r.instances().map(|i| i.replicated_hash()).collect::<Vec<_>>()
//! });
//! while server.ready_count() < 1 {
//!     server.poll_until(Instant::now() + Duration::from_millis(10), &authority).unwrap();
//! }
//! let hit = RadialDamage {
//!     id: EventId(1),
//!     point: smithereens_core::glam::Vec3::new(0.75, 0.75, 0.25),
//!     radius: 0.6,
//!     damage: 100.0,
//!     impulse: None,
//! };
//! authority[0].admit(hit).unwrap();
//! let record = authority[0].commit(&mut HeadlessBackend::default()).unwrap().record.unwrap();
//! server.broadcast_commit(&record);
//! server.finish();
//! while !server.all_done() {
//!     server.poll_until(Instant::now() + Duration::from_millis(10), &authority).unwrap();
//! }
//! assert_eq!(receiver.join().unwrap(), vec![authority[0].replicated_hash()]);
//! ```
//!
//! The transport alone:
//!
//! ```
//! use smithereens_net::{Endpoint, ShimDesc, Packet};
//! use std::time::{Duration, Instant};
//! let any = "127.0.0.1:0".parse().unwrap();
//! let mut a = Endpoint::bind(any, ShimDesc::default()).unwrap();
//! let mut b = Endpoint::bind(any, ShimDesc::default()).unwrap();
//! a.send(b.local_addr().unwrap(), &Packet::Hello.to_bytes()).unwrap();
//! let (from, bytes) = b.recv(Instant::now() + Duration::from_secs(5)).unwrap().unwrap();
//! assert_eq!(from, a.local_addr().unwrap());
//! assert_eq!(Packet::from_bytes(&bytes), Ok(Packet::Hello));
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod endpoint;
mod error;
pub mod fragment;
pub mod packet;
pub mod receiver;
pub mod server;
pub mod shim;

pub use endpoint::{Endpoint, loopback_address};

/// `now + d`, or a far-off instant (about 31 years on, in effect never) when
/// that overflows: a caller's huge [`std::time::Duration`] must not panic.
pub(crate) fn instant_after(now: std::time::Instant, d: std::time::Duration) -> std::time::Instant {
    const NEVER: std::time::Duration = std::time::Duration::from_secs(1_000_000_000);
    now.checked_add(d)
        .or_else(|| now.checked_add(NEVER))
        .unwrap_or(now)
}
pub use error::NetError;
pub use packet::{Packet, Welcome, WelcomeInstance};
pub use receiver::{Joining, Reached, Receiver, ReceiverDesc, ReceiverEvent, join};
pub use server::{Server, ServerDesc, ServerEvent, SnapshotSource};
pub use shim::{Shim, ShimCounters, ShimDesc};
