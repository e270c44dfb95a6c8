//! The authoritative side: greets receivers, broadcasts commit records,
//! sends status heartbeats and answers snapshot requests. It does not step
//! anything itself: the caller runs the simulation and calls
//! [`Server::broadcast_commit`] for each record and [`Server::poll_until`]
//! between steps.

use crate::endpoint::Endpoint;
use crate::error::NetError;
use crate::instant_after;
use crate::packet::{Packet, Status, Welcome};
use crate::shim::{ShimCounters, ShimDesc};
use smithereens_core::instance::InstanceId;
use smithereens_core::recovery::CommitRecord;
use smithereens_core::replication::Message;
use smithereens_core::snapshot::Snapshot;
use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

/// Where a server's snapshots come from: the current state of an instance.
pub trait SnapshotSource {
    /// A snapshot of instance `id` now, or `None` when it has no such instance.
    fn snapshot(&self, id: InstanceId) -> Option<Snapshot>;
}

impl SnapshotSource for Vec<Snapshot> {
    fn snapshot(&self, id: InstanceId) -> Option<Snapshot> {
        self.iter().find(|s| s.instance == id).cloned()
    }
}

impl SnapshotSource for Vec<smithereens_core::Instance> {
    fn snapshot(&self, id: InstanceId) -> Option<Snapshot> {
        self.iter().find(|i| i.id() == id).map(|i| i.snapshot())
    }
}

/// Settings of a [`Server`].
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ServerDesc {
    /// UDP port on 127.0.0.1 (0 picks a free one).
    pub port: u16,
    /// Shim applied to everything the server sends.
    pub shim: ShimDesc,
    /// Interval of the status heartbeats.
    pub status_interval: Duration,
    /// A snapshot answered within this long before is sent again unchanged
    /// (if it is still ahead of the asker), so the fragments of repeated
    /// answers combine under loss, however fast the state moves on.
    pub snapshot_reuse: Duration,
    /// A receiver silent this long (no hello, keepalive, request or bye;
    /// a live one sends a keepalive every 200 ms) is evicted: it gets no
    /// more statuses or commits, its slot is free again, and it no longer
    /// holds up [`Server::all_done`]. A receiver that left is evicted after
    /// this long too (its byes are acknowledged until then). An evicted
    /// receiver that speaks again is taken back if there is room.
    pub silent_after: Duration,
    /// Most receivers served; a hello from one more is answered with
    /// [`Packet::Full`] (and counted as refused), so the server's memory
    /// stays bounded and the joiner fails at once with
    /// [`NetError::ServerFull`].
    pub max_receivers: usize,
}

impl Default for ServerDesc {
    /// Port 0, a perfect link, statuses every 50 ms, snapshots reused for
    /// 1 s, receivers silent for 3 s count as gone, at most 256 receivers.
    fn default() -> Self {
        Self {
            port: 0,
            shim: ShimDesc::default(),
            status_interval: Duration::from_millis(50),
            snapshot_reuse: Duration::from_secs(1),
            silent_after: Duration::from_secs(3),
            max_receivers: 256,
        }
    }
}

/// Something a server did that its operator may want to print.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ServerEvent {
    /// A new receiver said hello.
    Joined(SocketAddr),
    /// A receiver said it reached the final state.
    Left(SocketAddr),
    /// A snapshot went to a receiver.
    SnapshotSent {
        /// The receiver.
        to: SocketAddr,
        /// The instance.
        instance: InstanceId,
        /// Its commit sequence.
        commit_seq: u64,
        /// A reused answer (same bytes as an earlier one).
        reused: bool,
    },
}

/// Counts of a [`Server`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerCounters {
    /// Welcomes sent (one per hello).
    pub welcomes: u64,
    /// Commit messages sent (one per record and receiver).
    pub commits: u64,
    /// Statuses sent.
    pub statuses: u64,
    /// Snapshot requests heard.
    pub requests: u64,
    /// Snapshots sent (reused ones included).
    pub snapshots: u64,
    /// Snapshots sent again unchanged.
    pub snapshots_reused: u64,
    /// Packets that did not decode, or came from a stranger, or made no
    /// sense; hellos answered with [`Packet::Full`] included.
    pub refused: u64,
    /// Receivers evicted after [`ServerDesc::silent_after`] of silence
    /// (those that left included).
    pub evicted: u64,
}

#[derive(Clone, Debug)]
struct Peer {
    heard: Instant,
    ready: bool,
    done: bool,
}

#[derive(Clone, Debug)]
struct Cached {
    bytes: Vec<u8>,
    commit_seq: u64,
    at: Instant,
}

/// An authoritative replication server on 127.0.0.1.
#[derive(Debug)]
pub struct Server {
    endpoint: Endpoint,
    desc: ServerDesc,
    welcome: Vec<u8>,
    peers: BTreeMap<SocketAddr, Peer>,
    latest: Vec<(InstanceId, u64)>,
    finished: bool,
    cache: BTreeMap<InstanceId, Cached>,
    next_status: Instant,
    tick: u64,
    counters: ServerCounters,
    events: Vec<ServerEvent>,
    /// Receivers ever taken in (evicted ones included).
    joined: u64,
}

impl Server {
    /// Binds 127.0.0.1:`desc.port` and serves `welcome`.
    ///
    /// # Errors
    /// [`NetError::Bind`], [`NetError::Shim`].
    pub fn bind(desc: ServerDesc, welcome: &Welcome) -> Result<Self, NetError> {
        let endpoint = Endpoint::bind(
            SocketAddr::from((Ipv4Addr::LOCALHOST, desc.port)),
            desc.shim,
        )?;
        Ok(Self {
            endpoint,
            desc,
            welcome: Packet::Welcome(welcome.clone()).to_bytes(),
            peers: BTreeMap::new(),
            latest: welcome.instances.iter().map(|i| (i.id, 0)).collect(),
            finished: false,
            cache: BTreeMap::new(),
            next_status: Instant::now(),
            tick: 0,
            counters: ServerCounters::default(),
            events: Vec::new(),
            joined: 0,
        })
    }

    /// The bound address.
    ///
    /// # Errors
    /// [`NetError::Io`].
    pub fn local_addr(&self) -> Result<SocketAddr, NetError> {
        self.endpoint.local_addr()
    }

    /// Its counters.
    pub fn counters(&self) -> ServerCounters {
        self.counters
    }

    /// Its shim's counters.
    pub fn shim_counters(&self) -> ShimCounters {
        self.endpoint.shim_counters()
    }

    /// Datagrams it refused (malformed fragments).
    pub fn malformed_datagrams(&self) -> u64 {
        self.endpoint.reassembly_counters().malformed
    }

    /// Takes the events since the last call.
    pub fn take_events(&mut self) -> Vec<ServerEvent> {
        std::mem::take(&mut self.events)
    }

    /// Receivers in the table now: they said hello and were not evicted.
    pub fn receiver_count(&self) -> usize {
        self.peers.len()
    }

    /// Receivers ever taken in, evicted ones included.
    pub fn joined_count(&self) -> u64 {
        self.joined
    }

    /// Receivers that have built their replicas and are listening.
    pub fn ready_count(&self) -> usize {
        self.peers.values().filter(|p| p.ready).count()
    }

    /// True once some receiver was taken in and every receiver either left
    /// (with the final state) or has been silent for
    /// [`ServerDesc::silent_after`] (it was killed, or lost its way; it is
    /// evicted). With no receiver ever, false: a caller that lingers keeps
    /// serving late joiners.
    pub fn all_done(&self) -> bool {
        let now = Instant::now();
        self.joined > 0
            && self
                .peers
                .values()
                .all(|p| p.done || now.duration_since(p.heard) >= self.desc.silent_after)
    }

    /// Removes the receivers silent for [`ServerDesc::silent_after`].
    fn evict_silent(&mut self, now: Instant) {
        let silent_after = self.desc.silent_after;
        let before = self.peers.len();
        self.peers
            .retain(|_, p| now.duration_since(p.heard) < silent_after);
        self.counters.evicted += (before - self.peers.len()) as u64;
    }

    /// Sends `record` to every receiver and makes its sequence the
    /// instance's latest. A record of an instance the welcome did not name
    /// is not sent.
    pub fn broadcast_commit(&mut self, record: &CommitRecord) {
        let Some(latest) = self
            .latest
            .iter_mut()
            .find(|(id, _)| *id == record.instance)
        else {
            return;
        };
        latest.1 = latest.1.max(record.commit_seq);
        let bytes = Packet::Replication(Message::Commit(record.clone()).to_bytes()).to_bytes();
        let to: Vec<SocketAddr> = self.peers.keys().copied().collect();
        for addr in to {
            self.send(addr, &bytes);
            self.counters.commits += 1;
        }
    }

    /// Marks the run as over: statuses from now on say the latest
    /// sequences are final, and one goes out at once.
    pub fn finish(&mut self) {
        self.finished = true;
        self.next_status = Instant::now();
    }

    /// Serves until `until`: answers hellos, snapshot requests and byes,
    /// and sends statuses on time. `source` gives the snapshots.
    ///
    /// # Errors
    /// [`NetError::Io`] when the socket fails.
    pub fn poll_until(
        &mut self,
        until: Instant,
        source: &dyn SnapshotSource,
    ) -> Result<(), NetError> {
        loop {
            let now = Instant::now();
            if now >= self.next_status {
                self.evict_silent(now);
                self.send_status();
                self.next_status = instant_after(now, self.desc.status_interval);
            }
            if now >= until {
                return Ok(());
            }
            let wait = until.min(self.next_status);
            if let Some((from, bytes)) = self.endpoint.recv(wait)? {
                self.handle(from, &bytes, source);
            }
        }
    }

    fn send(&mut self, to: SocketAddr, bytes: &[u8]) {
        // Packets are far below the largest message; an error cannot happen.
        let _ = self.endpoint.send(to, bytes);
    }

    fn send_status(&mut self) {
        self.tick += 1;
        let bytes = Packet::Status(Status {
            tick: self.tick,
            finished: self.finished,
            instances: self.latest.clone(),
        })
        .to_bytes();
        let to: Vec<SocketAddr> = self.peers.keys().copied().collect();
        for addr in to {
            self.send(addr, &bytes);
            self.counters.statuses += 1;
        }
    }

    fn handle(&mut self, from: SocketAddr, bytes: &[u8], source: &dyn SnapshotSource) {
        let Ok(packet) = Packet::from_bytes(bytes) else {
            self.counters.refused += 1;
            return;
        };
        let now = Instant::now();
        // A hello, or an evicted receiver speaking again, takes a slot.
        let admits = matches!(
            packet,
            Packet::Hello | Packet::Keepalive | Packet::Replication(_)
        );
        if admits && !self.peers.contains_key(&from) {
            // Make room first if some slot is due to be freed anyway.
            if self.peers.len() >= self.desc.max_receivers {
                self.evict_silent(now);
            }
            let full = self.peers.len() >= self.desc.max_receivers;
            match self.peers.entry(from) {
                Entry::Vacant(_) if full => {
                    self.counters.refused += 1;
                    if let Packet::Hello = packet {
                        let max = u32::try_from(self.desc.max_receivers).unwrap_or(u32::MAX);
                        self.send(from, &Packet::Full { max }.to_bytes());
                    }
                    return;
                }
                Entry::Vacant(e) => {
                    e.insert(Peer {
                        heard: now,
                        ready: false,
                        done: false,
                    });
                    self.joined += 1;
                    self.events.push(ServerEvent::Joined(from));
                }
                Entry::Occupied(_) => {}
            }
        }
        if let Packet::Hello = packet {
            let welcome = std::mem::take(&mut self.welcome);
            self.send(from, &welcome);
            self.welcome = welcome;
            self.counters.welcomes += 1;
        }
        let Some(peer) = self.peers.get_mut(&from) else {
            if let Packet::Bye = packet {
                // An evicted receiver leaving: acknowledge, take no slot.
                self.send(from, &Packet::ByeAck.to_bytes());
            } else {
                self.counters.refused += 1;
            }
            return;
        };
        peer.heard = now;
        match packet {
            Packet::Hello => {}
            Packet::Keepalive => peer.ready = true,
            Packet::Bye => {
                peer.ready = true;
                if !peer.done {
                    peer.done = true;
                    self.events.push(ServerEvent::Left(from));
                }
                self.send(from, &Packet::ByeAck.to_bytes());
            }
            Packet::Replication(inner) => match Message::from_bytes(&inner) {
                Ok(Message::SnapshotRequest { instance, have }) => {
                    peer.ready = true;
                    self.counters.requests += 1;
                    self.answer(from, instance, have, source, now);
                }
                _ => self.counters.refused += 1,
            },
            Packet::Welcome(_) | Packet::Status(_) | Packet::ByeAck | Packet::Full { .. } => {
                self.counters.refused += 1
            }
        }
    }

    fn answer(
        &mut self,
        to: SocketAddr,
        instance: InstanceId,
        have: u64,
        source: &dyn SnapshotSource,
        now: Instant,
    ) {
        let reuse = self.cache.get(&instance).is_some_and(|c| {
            c.commit_seq > have && now.duration_since(c.at) < self.desc.snapshot_reuse
        });
        if !reuse {
            let Some(snapshot) = source.snapshot(instance) else {
                self.counters.refused += 1;
                return;
            };
            if snapshot.commit_seq <= have {
                // The asker is level (its request crossed the commits).
                return;
            }
            let commit_seq = snapshot.commit_seq;
            let bytes = Packet::Replication(Message::Snapshot(snapshot).to_bytes()).to_bytes();
            self.cache.insert(
                instance,
                Cached {
                    bytes,
                    commit_seq,
                    at: now,
                },
            );
        }
        let Some(cached) = self.cache.get(&instance) else {
            return;
        };
        let (bytes, commit_seq) = (cached.bytes.clone(), cached.commit_seq);
        self.send(to, &bytes);
        self.counters.snapshots += 1;
        self.counters.snapshots_reused += u64::from(reuse);
        self.events.push(ServerEvent::SnapshotSent {
            to,
            instance,
            commit_seq,
            reused: reuse,
        });
    }
}
