//! The receiving side: joins a server, keeps one core [`Replica`] per
//! instance (no physics engine), asks for snapshots when it falls behind,
//! and leaves once it holds the server's final state.

use crate::endpoint::Endpoint;
use crate::error::NetError;
use crate::instant_after;
use crate::packet::{Packet, Welcome};
use crate::shim::{ShimCounters, ShimDesc};
use smithereens_core::Instance;
use smithereens_core::instance::InstanceId;
use smithereens_core::replication::{Message, ReceiveOutcome, Replica};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// Settings of a receiver.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ReceiverDesc {
    /// The server (a loopback address, see [`crate::loopback_address`]).
    pub server: SocketAddr,
    /// Shim applied to everything the receiver sends.
    pub shim: ShimDesc,
    /// Give up (with [`NetError::Timeout`]) when the final state is not
    /// reached this long after starting to join.
    pub timeout: Duration,
    /// Interval of repeated hellos while joining, and of byes while leaving.
    pub retry_interval: Duration,
    /// A snapshot request that brought nothing is repeated after this long.
    pub request_interval: Duration,
    /// Interval of keepalives.
    pub keepalive_interval: Duration,
    /// Out-of-order commits buffered per instance ([`Replica::new`]).
    pub buffer_limit: usize,
    /// Messages without progress, while behind, before a snapshot is
    /// requested ([`Replica::new`]); the server's statuses count.
    pub patience: u32,
    /// How long to wait for the server to acknowledge the bye.
    pub bye_wait: Duration,
    /// After the welcome, give up (with [`NetError::ServerSilent`]) when
    /// nothing at all came from the server for this long (it sends a status
    /// every 50 ms by default, so this only fires when it is gone).
    pub server_silence: Duration,
    /// While joining, give up (with [`NetError::Refused`]) after this many
    /// hellos the system reported refused (nothing listens on the port).
    pub refusals: u64,
}

impl ReceiverDesc {
    /// Defaults for a receiver of `server`: a perfect link, 60 s timeout,
    /// hellos every 100 ms, requests repeated after 150 ms, keepalives every
    /// 200 ms, 4,096 buffered commits, patience 6, 1 s for the bye, 5 s of
    /// server silence, 30 refused hellos (3 s of them).
    pub fn new(server: SocketAddr) -> Self {
        Self {
            server,
            shim: ShimDesc::default(),
            timeout: Duration::from_secs(60),
            retry_interval: Duration::from_millis(100),
            request_interval: Duration::from_millis(150),
            keepalive_interval: Duration::from_millis(200),
            buffer_limit: 4096,
            patience: 6,
            bye_wait: Duration::from_secs(1),
            server_silence: Duration::from_secs(5),
            refusals: 30,
        }
    }
}

/// How a replica reached a state.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reached {
    /// By commit records (the last one applied is the state's sequence).
    Commit,
    /// By a snapshot (and any buffered commits after it).
    Snapshot,
}

/// Something a receiver did that its operator may want to print.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReceiverEvent {
    /// A replica reached a new state.
    Applied {
        /// The instance.
        instance: InstanceId,
        /// Its commit sequence now.
        commit_seq: u64,
        /// Its [`Instance::replicated_hash`] now.
        hash: u64,
        /// How.
        by: Reached,
    },
    /// A snapshot was requested.
    Requested {
        /// The instance.
        instance: InstanceId,
        /// The replica's sequence.
        have: u64,
    },
}

/// Counts of a receiver.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceiverCounters {
    /// Commit records applied (each message that advanced a replica).
    pub applied: u64,
    /// Snapshots installed.
    pub snapshots: u64,
    /// Duplicate commits ignored.
    pub duplicates: u64,
    /// Commits that arrived after a gap (buffered).
    pub gaps: u64,
    /// Snapshot requests sent (repeats included).
    pub requests: u64,
    /// Statuses heard.
    pub statuses: u64,
    /// Packets that did not decode or that a replica refused.
    pub refused: u64,
}

/// A receiver that has its welcome but no replicas yet.
#[derive(Debug)]
pub struct Joining {
    endpoint: Endpoint,
    desc: ReceiverDesc,
    welcome: Welcome,
    started: Instant,
    early: Vec<Vec<u8>>,
}

/// Most replication messages kept while the replicas are being built.
const EARLY_LIMIT: usize = 4096;

/// Says hello to the server until its welcome arrives.
///
/// # Errors
/// [`NetError::NotLoopback`] for a server off loopback,
/// [`NetError::BadAddress`] for port 0, [`NetError::Bind`],
/// [`NetError::Shim`], [`NetError::ServerFull`] when the server refuses the
/// hello, [`NetError::Refused`] after [`ReceiverDesc::refusals`] hellos the
/// system refused (nothing listens there), [`NetError::Timeout`] when no
/// welcome arrives within `desc.timeout`.
pub fn join(desc: ReceiverDesc) -> Result<Joining, NetError> {
    if !desc.server.ip().is_loopback() {
        return Err(NetError::NotLoopback(desc.server));
    }
    if desc.server.port() == 0 {
        return Err(NetError::BadAddress {
            address: desc.server.to_string(),
            reason: "port 0 names no server",
        });
    }
    let started = Instant::now();
    let mut endpoint = Endpoint::bind(Endpoint::any_port_like(desc.server), desc.shim)?;
    // Connected, so that "nothing listens there" reports reach us.
    endpoint.connect(desc.server)?;
    let hello = Packet::Hello.to_bytes();
    let deadline = instant_after(started, desc.timeout);
    let mut early = Vec::new();
    loop {
        let now = Instant::now();
        let refused = endpoint.counters().receive_errors;
        if now >= deadline {
            let hint = if refused > 0 {
                format!(
                    "; {refused} hellos were refused: is a server listening on {}?",
                    desc.server
                )
            } else {
                String::new()
            };
            return Err(NetError::Timeout {
                seconds: desc.timeout.as_secs_f64(),
                what: format!("waiting for a welcome from {}{hint}", desc.server),
            });
        }
        if desc.refusals > 0 && refused >= desc.refusals {
            return Err(NetError::Refused {
                server: desc.server,
                refused,
            });
        }
        let _ = endpoint.send(desc.server, &hello);
        let until = instant_after(now, desc.retry_interval).min(deadline);
        while let Some((from, bytes)) = endpoint.recv(until)? {
            if from != desc.server {
                continue;
            }
            match Packet::from_bytes(&bytes) {
                Ok(Packet::Full { max }) => {
                    return Err(NetError::ServerFull {
                        server: desc.server,
                        max,
                    });
                }
                Ok(Packet::Welcome(welcome)) => {
                    return Ok(Joining {
                        endpoint,
                        desc,
                        welcome,
                        started,
                        early,
                    });
                }
                Ok(Packet::Replication(m)) if early.len() < EARLY_LIMIT => early.push(m),
                _ => {}
            }
        }
    }
}

impl Joining {
    /// The server's welcome: what to build.
    pub fn welcome(&self) -> &Welcome {
        &self.welcome
    }

    /// The receiver's own address.
    ///
    /// # Errors
    /// [`NetError::Io`].
    pub fn local_addr(&self) -> Result<SocketAddr, NetError> {
        self.endpoint.local_addr()
    }

    /// Starts replicating into `instances`, fresh instances built from the
    /// welcome's scenario, in its order.
    ///
    /// # Errors
    /// [`NetError::InstanceCount`], [`NetError::InstanceId`] or
    /// [`NetError::AssetMismatch`] when they are not the server's.
    pub fn start(self, instances: Vec<Instance>) -> Result<Receiver, NetError> {
        let expected = &self.welcome.instances;
        if instances.len() != expected.len() {
            return Err(NetError::InstanceCount {
                expected: expected.len(),
                found: instances.len(),
            });
        }
        for (position, (mine, theirs)) in instances.iter().zip(expected).enumerate() {
            if mine.id() != theirs.id {
                return Err(NetError::InstanceId {
                    position,
                    expected: theirs.id,
                    found: mine.id(),
                });
            }
            let found = mine.asset().fingerprint();
            if found != theirs.asset {
                return Err(NetError::AssetMismatch {
                    instance: theirs.id,
                    expected: theirs.asset,
                    found,
                });
            }
        }
        let desc = self.desc;
        let replicas = instances
            .into_iter()
            .map(|i| {
                let id = i.id();
                let slot = Slot {
                    replica: Replica::new(i, desc.buffer_limit, desc.patience),
                    server: None,
                    asked: None,
                };
                (id, slot)
            })
            .collect();
        Ok(Receiver {
            endpoint: self.endpoint,
            desc,
            started: self.started,
            replicas,
            finished: false,
            heard_status: false,
            last_heard: Instant::now(),
            last_status: None,
            early: self.early,
            next_keepalive: Instant::now(),
            counters: ReceiverCounters::default(),
        })
    }
}

#[derive(Debug)]
struct Slot {
    replica: Replica,
    /// The server's latest sequence, once a status said it.
    server: Option<u64>,
    /// When a snapshot was last requested, while one is wanted.
    asked: Option<Instant>,
}

/// A joined receiver with its replicas.
#[derive(Debug)]
pub struct Receiver {
    endpoint: Endpoint,
    desc: ReceiverDesc,
    started: Instant,
    replicas: BTreeMap<InstanceId, Slot>,
    finished: bool,
    heard_status: bool,
    /// When anything last came from the server.
    last_heard: Instant,
    /// The last status: its tick and whether the run was over.
    last_status: Option<(u64, bool)>,
    early: Vec<Vec<u8>>,
    next_keepalive: Instant,
    counters: ReceiverCounters,
}

/// How a receiver ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ReceiverReport {
    /// Its counters.
    pub counters: ReceiverCounters,
    /// Its shim's counters.
    pub shim: ShimCounters,
    /// Datagrams it refused (malformed fragments).
    pub malformed: u64,
    /// The server acknowledged the bye.
    pub bye_acknowledged: bool,
}

impl Receiver {
    /// The replicated instances.
    pub fn instances(&self) -> impl Iterator<Item = &Instance> {
        self.replicas.values().map(|s| s.replica.instance())
    }

    /// Replicates until every replica holds the server's final sequence,
    /// then says bye. `on_event` sees every state reached and every request.
    ///
    /// # Errors
    /// [`NetError::Timeout`] (naming the replicas' and the server's
    /// sequences) when that does not happen within [`ReceiverDesc::timeout`]
    /// of joining; [`NetError::ServerSilent`] when nothing came from the
    /// server for [`ReceiverDesc::server_silence`]; [`NetError::Io`] when
    /// the socket fails.
    pub fn run(
        &mut self,
        on_event: &mut dyn FnMut(ReceiverEvent),
    ) -> Result<ReceiverReport, NetError> {
        let deadline = instant_after(self.started, self.desc.timeout);
        for m in std::mem::take(&mut self.early) {
            self.on_replication(&m, on_event);
        }
        self.last_heard = Instant::now();
        while !self.is_done() {
            let now = Instant::now();
            if now >= deadline {
                return Err(NetError::Timeout {
                    seconds: self.desc.timeout.as_secs_f64(),
                    what: self.progress(),
                });
            }
            let silent = now.duration_since(self.last_heard);
            if silent >= self.desc.server_silence {
                let status = match self.last_status {
                    Some((tick, over)) => format!(
                        "status {tick}, run {}",
                        if over { "over" } else { "not over" }
                    ),
                    None => "its welcome, no status".to_string(),
                };
                return Err(NetError::ServerSilent {
                    server: self.desc.server,
                    seconds: silent.as_secs_f64(),
                    last_heard: format!("{status}; {}", self.replica_states()),
                });
            }
            if now >= self.next_keepalive {
                self.send(&Packet::Keepalive.to_bytes());
                self.next_keepalive = instant_after(now, self.desc.keepalive_interval);
            }
            self.repeat_requests(now, on_event);
            let until = instant_after(now, Duration::from_millis(10)).min(deadline);
            if let Some((from, bytes)) = self.endpoint.recv(until)? {
                if from == self.desc.server {
                    self.last_heard = Instant::now();
                    self.on_packet(&bytes, on_event);
                } else {
                    self.counters.refused += 1;
                }
            }
        }
        let acknowledged = self.leave()?;
        self.endpoint.release_held();
        Ok(ReceiverReport {
            counters: self.counters,
            shim: self.endpoint.shim_counters(),
            malformed: self.endpoint.reassembly_counters().malformed,
            bye_acknowledged: acknowledged,
        })
    }

    /// Every replica at the final sequence the server announced.
    fn is_done(&self) -> bool {
        self.finished
            && self
                .replicas
                .values()
                .all(|s| s.server == Some(s.replica.instance().commit_seq()))
    }

    /// The replicas not level with the server's last status:
    /// `INSTANCE at HAVE, server said SEQ` (`?` before any status).
    fn replica_states(&self) -> String {
        let off: Vec<String> = self
            .replicas
            .iter()
            .filter(|(_, s)| s.server != Some(s.replica.instance().commit_seq()))
            .map(|(id, s)| {
                let server = s.server.map_or("?".to_string(), |x| x.to_string());
                format!(
                    "{} at {}, server said {server}",
                    id.0,
                    s.replica.instance().commit_seq()
                )
            })
            .collect();
        if off.is_empty() {
            "every replica level with the last status".to_string()
        } else {
            format!(
                "instances not level with the last status: {}",
                off.join("; ")
            )
        }
    }

    fn progress(&self) -> String {
        format!(
            "before reaching the server's final state (run {}; {})",
            if self.finished { "over" } else { "not over" },
            self.replica_states()
        )
    }

    /// Says bye until the server acknowledges it (at most
    /// [`ReceiverDesc::bye_wait`]); true when it did.
    fn leave(&mut self) -> Result<bool, NetError> {
        let bye = Packet::Bye.to_bytes();
        let end = instant_after(Instant::now(), self.desc.bye_wait);
        loop {
            let now = Instant::now();
            if now >= end {
                return Ok(false);
            }
            self.send(&bye);
            let until = instant_after(now, self.desc.retry_interval / 2).min(end);
            while let Some((from, bytes)) = self.endpoint.recv(until)? {
                if from == self.desc.server && Packet::from_bytes(&bytes) == Ok(Packet::ByeAck) {
                    return Ok(true);
                }
            }
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        let server = self.desc.server;
        // Packets are far below the largest message; an error cannot happen.
        let _ = self.endpoint.send(server, bytes);
    }

    fn on_packet(&mut self, bytes: &[u8], on_event: &mut dyn FnMut(ReceiverEvent)) {
        match Packet::from_bytes(bytes) {
            Ok(Packet::Replication(m)) => self.on_replication(&m, on_event),
            Ok(Packet::Status(status)) => {
                self.counters.statuses += 1;
                self.last_status = Some((status.tick, status.finished));
                let first = !self.heard_status;
                self.heard_status = true;
                for (id, seq) in status.instances {
                    let Some(slot) = self.replicas.get_mut(&id) else {
                        self.counters.refused += 1;
                        continue;
                    };
                    slot.server = Some(slot.server.map_or(seq, |s| s.max(seq)));
                    let have = slot.replica.instance().commit_seq();
                    // A late joiner asks for every instance that moved on
                    // without it at once: snapshot, then events.
                    if first && seq > have {
                        self.request(id, on_event);
                        continue;
                    }
                    let outcome = slot.replica.handle(Message::Heartbeat {
                        instance: id,
                        commit_seq: seq,
                    });
                    self.on_outcome(id, outcome, on_event);
                }
                self.finished |= status.finished;
            }
            Ok(Packet::Welcome(_) | Packet::ByeAck | Packet::Full { .. }) => {}
            Ok(_) | Err(_) => self.counters.refused += 1,
        }
    }

    fn on_replication(&mut self, bytes: &[u8], on_event: &mut dyn FnMut(ReceiverEvent)) {
        let Ok(message) = Message::from_bytes(bytes) else {
            self.counters.refused += 1;
            return;
        };
        let id = message.instance();
        let Some(slot) = self.replicas.get_mut(&id) else {
            self.counters.refused += 1;
            return;
        };
        let outcome = slot.replica.handle(message);
        self.on_outcome(id, outcome, on_event);
    }

    fn on_outcome(
        &mut self,
        id: InstanceId,
        outcome: Result<ReceiveOutcome, smithereens_core::ReplicationError>,
        on_event: &mut dyn FnMut(ReceiverEvent),
    ) {
        let Some(slot) = self.replicas.get_mut(&id) else {
            return;
        };
        let reached = match outcome {
            Ok(ReceiveOutcome::Applied { .. }) => {
                self.counters.applied += 1;
                Reached::Commit
            }
            Ok(ReceiveOutcome::SnapshotInstalled { .. }) => {
                self.counters.snapshots += 1;
                Reached::Snapshot
            }
            Ok(ReceiveOutcome::Duplicate) => {
                self.counters.duplicates += 1;
                return;
            }
            Ok(ReceiveOutcome::Waiting { .. }) => {
                self.counters.gaps += 1;
                return;
            }
            Ok(ReceiveOutcome::RequestSnapshot { .. }) => {
                self.request(id, on_event);
                return;
            }
            Ok(ReceiveOutcome::Ignored) => return,
            Err(_) => {
                self.counters.refused += 1;
                return;
            }
        };
        let inst = slot.replica.instance();
        let commit_seq = inst.commit_seq();
        // Caught up with what the server last said: no snapshot needed.
        if reached == Reached::Snapshot || slot.server.is_some_and(|s| commit_seq >= s) {
            slot.asked = None;
        }
        on_event(ReceiverEvent::Applied {
            instance: id,
            commit_seq,
            hash: inst.replicated_hash(),
            by: reached,
        });
    }

    /// Asks for a snapshot of `id` now, unless one was asked for less than
    /// [`ReceiverDesc::request_interval`] ago.
    fn request(&mut self, id: InstanceId, on_event: &mut dyn FnMut(ReceiverEvent)) {
        let now = Instant::now();
        let Some(slot) = self.replicas.get_mut(&id) else {
            return;
        };
        if slot
            .asked
            .is_some_and(|t| now.duration_since(t) < self.desc.request_interval)
        {
            return;
        }
        slot.asked = Some(now);
        let have = slot.replica.instance().commit_seq();
        let bytes = Packet::Replication(Message::SnapshotRequest { instance: id, have }.to_bytes())
            .to_bytes();
        self.send(&bytes);
        self.counters.requests += 1;
        on_event(ReceiverEvent::Requested { instance: id, have });
    }

    /// Repeats the snapshot requests that brought nothing yet.
    fn repeat_requests(&mut self, now: Instant, on_event: &mut dyn FnMut(ReceiverEvent)) {
        let due: Vec<InstanceId> = self
            .replicas
            .iter()
            .filter(|(_, s)| {
                s.asked
                    .is_some_and(|t| now.duration_since(t) >= self.desc.request_interval)
                    && s.server
                        .is_none_or(|server| s.replica.instance().commit_seq() < server)
            })
            .map(|(id, _)| *id)
            .collect();
        for id in due {
            self.request(id, on_event);
        }
    }
}
