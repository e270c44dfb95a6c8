//! Replication of authoritative destruction (DESIGN §3.10, destruction-system
//! seed "权威事件与重放").
//!
//! The server broadcasts one [`Message::Commit`] per commit: instance, commit
//! sequence, topology versions, the events' ids and damage parameters
//! (receipts), the resulting broken bonds and groups, and the absolute health
//! of the modified bonds. A [`Replica`]:
//! * applies the next sequence;
//! * ignores a duplicate (its content is verified, never re-applied, so a
//!   retransmission never damages twice);
//! * on a gap buffers the message and waits; when the gap persists (or the
//!   buffer is full, or a heartbeat shows it is behind) it asks for a
//!   snapshot ([`ReceiveOutcome::RequestSnapshot`]).
//!
//! Messages are framed and checksummed; malformed bytes give a typed error
//! and change nothing.
//!
//! Replication carries the destruction state, not motion: a replica gets a
//! cluster's pose only with the commit that creates or pushes it, while the
//! authority's physics moves it every step. Compare authority and replica
//! with [`Instance::replicated_hash`] (everything
//! [`Instance::state_hash`] covers but poses), which they share at every
//! commit sequence. `smithereens-net` carries these messages over UDP.

use crate::codec::{self, FrameError};
use crate::instance::{Instance, InstanceId};
use crate::recovery::{CommitRecord, RecordError, RecordOutcome};
use crate::snapshot::{Snapshot, SnapshotError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Magic of an encoded [`Message`].
pub const MESSAGE_MAGIC: [u8; 4] = *b"SMRM";
/// Format version of an encoded [`Message`]. Version 3 carries snapshots of
/// format version 4 (receipt horizons and window, issue 12 item 4). Versions
/// 2 and 1 (events as bare radial events, see [`crate::codec`]) are still
/// read; their snapshots decode with no receipt horizons and the default
/// window (a version 2 message is taken to carry version 3 snapshot fields,
/// a version 1 message version 1 fields).
pub const MESSAGE_VERSION: u16 = 3;

/// Postcard's encoding of the [`Message::Snapshot`] variant index (the
/// first payload byte).
const SNAPSHOT_VARIANT: u8 = 1;

/// A replication message.
// Snapshots are rare (the answer to a request) and the enum is public API:
// boxing the variant is not worth the breaking change.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Message {
    /// An authoritative commit.
    Commit(CommitRecord),
    /// A resumable snapshot (answer to a request).
    Snapshot(Snapshot),
    /// The server's latest commit sequence (sent periodically, lets a replica
    /// notice that it missed the tail).
    Heartbeat {
        /// The instance.
        instance: InstanceId,
        /// Latest commit sequence on the server.
        commit_seq: u64,
    },
    /// A replica asks for a snapshot.
    SnapshotRequest {
        /// The instance.
        instance: InstanceId,
        /// The replica's commit sequence.
        have: u64,
    },
}

impl Message {
    /// The instance the message is about.
    pub fn instance(&self) -> InstanceId {
        match self {
            Self::Commit(r) => r.instance,
            Self::Snapshot(s) => s.instance,
            Self::Heartbeat { instance, .. } | Self::SnapshotRequest { instance, .. } => *instance,
        }
    }

    /// Encodes the message (framed, checksummed, deterministic).
    pub fn to_bytes(&self) -> Vec<u8> {
        // Only a payload over 4 GiB could fail.
        codec::encode(MESSAGE_MAGIC, MESSAGE_VERSION, self).unwrap_or_default()
    }

    /// Decodes a message.
    ///
    /// # Errors
    /// [`ReplicationError::Malformed`] for truncated, corrupt or foreign bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ReplicationError> {
        let malformed = ReplicationError::Malformed;
        let (found, payload) = codec::open(
            MESSAGE_MAGIC,
            codec::LEGACY_EVENT_VERSION..=MESSAGE_VERSION,
            bytes,
        )
        .map_err(malformed)?;
        // A snapshot is the last thing in its message: fields added since
        // the message was written decode as empty and `None` (one zero byte
        // each in postcard).
        let missing = match found {
            _ if payload.first() != Some(&SNAPSHOT_VARIANT) => 0,
            codec::LEGACY_EVENT_VERSION => 3,
            v if v < MESSAGE_VERSION => 2,
            _ => 0,
        };
        let extended;
        let payload = if missing > 0 {
            let mut v = Vec::with_capacity(payload.len() + missing);
            v.extend_from_slice(payload);
            v.extend(std::iter::repeat_n(0, missing));
            extended = v;
            &extended[..]
        } else {
            payload
        };
        if found == codec::LEGACY_EVENT_VERSION {
            codec::with_legacy_event_layout(|| codec::decode_payload(payload))
        } else {
            codec::decode_payload(payload)
        }
        .map_err(malformed)
    }
}

/// Why a message was refused. The replica is unchanged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplicationError {
    /// Not a decodable message.
    #[error("malformed message: {0}")]
    Malformed(FrameError),
    /// The message is about an instance this replica does not hold.
    #[error("message for unknown {found} (this replica holds {expected})")]
    UnknownInstance {
        /// Held instance.
        expected: InstanceId,
        /// In the message.
        found: InstanceId,
    },
    /// The record conflicts with the replica's state or is inconsistent.
    #[error("record")]
    Record(#[from] RecordError),
    /// The snapshot is unusable.
    #[error("snapshot")]
    Snapshot(#[from] SnapshotError),
}

/// What a replica did with a message.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReceiveOutcome {
    /// Applied the commit and any buffered successors: now at `through`.
    Applied {
        /// Commit sequence now.
        through: u64,
    },
    /// Already applied: ignored (content verified).
    Duplicate,
    /// A gap: the message is buffered; waiting for `missing.0 ..= missing.1`.
    Waiting {
        /// Commit sequence now.
        have: u64,
        /// Missing commits (inclusive).
        missing: (u64, u64),
    },
    /// The gap persisted: send a [`Message::SnapshotRequest`] with `have`.
    RequestSnapshot {
        /// Commit sequence now.
        have: u64,
    },
    /// A newer snapshot replaced the state (then buffered commits were applied).
    SnapshotInstalled {
        /// Commit sequence now.
        through: u64,
    },
    /// Nothing to do (an old snapshot, a heartbeat we are level with, a request).
    Ignored,
}

/// A receiving copy of one instance.
#[derive(Clone, Debug)]
pub struct Replica {
    instance: Instance,
    buffer: BTreeMap<u64, CommitRecord>,
    buffer_limit: usize,
    patience: u32,
    stalled: u32,
}

impl Replica {
    /// A replica starting from `instance` (built from the same asset and
    /// descriptor as the server's, or restored from a snapshot). It buffers
    /// up to `buffer_limit` out-of-order commits and asks for a snapshot after
    /// `patience` messages without progress while behind.
    pub fn new(instance: Instance, buffer_limit: usize, patience: u32) -> Self {
        Self {
            instance,
            buffer: BTreeMap::new(),
            buffer_limit,
            patience: patience.max(1),
            stalled: 0,
        }
    }

    /// The replicated state.
    pub fn instance(&self) -> &Instance {
        &self.instance
    }

    /// Number of buffered out-of-order commits.
    pub fn buffered(&self) -> usize {
        self.buffer.len()
    }

    /// Decodes and handles one message ([`Self::handle`]).
    ///
    /// # Errors
    /// [`ReplicationError`]; the replica is unchanged on error.
    pub fn receive(&mut self, bytes: &[u8]) -> Result<ReceiveOutcome, ReplicationError> {
        let msg = Message::from_bytes(bytes)?;
        self.handle(msg)
    }

    /// Handles one decoded message.
    ///
    /// # Errors
    /// [`ReplicationError::UnknownInstance`] for another instance,
    /// [`ReplicationError::Record`] for a conflicting or inconsistent commit,
    /// [`ReplicationError::Snapshot`] for an unusable snapshot. The replica is
    /// unchanged on error.
    pub fn handle(&mut self, msg: Message) -> Result<ReceiveOutcome, ReplicationError> {
        let id = self.instance.id();
        if msg.instance() != id {
            return Err(ReplicationError::UnknownInstance {
                expected: id,
                found: msg.instance(),
            });
        }
        match msg {
            Message::Commit(record) => self.on_commit(record),
            Message::Snapshot(snapshot) => self.on_snapshot(&snapshot),
            Message::Heartbeat { commit_seq, .. } => {
                if commit_seq <= self.instance.commit_seq() {
                    self.stalled = 0;
                    Ok(ReceiveOutcome::Ignored)
                } else {
                    Ok(self.stall())
                }
            }
            Message::SnapshotRequest { .. } => Ok(ReceiveOutcome::Ignored),
        }
    }

    fn on_commit(&mut self, record: CommitRecord) -> Result<ReceiveOutcome, ReplicationError> {
        let have = self.instance.commit_seq();
        if record.commit_seq > have + 1 {
            // Check what can be checked now, so garbage is not buffered.
            if record.asset != self.instance.asset().fingerprint() {
                return Err(RecordError::WrongAsset {
                    expected: self.instance.asset().fingerprint(),
                    found: record.asset,
                }
                .into());
            }
            if self.buffer.len() < self.buffer_limit || self.buffer.contains_key(&record.commit_seq)
            {
                self.buffer.insert(record.commit_seq, record);
            }
            return Ok(match self.stall() {
                ReceiveOutcome::RequestSnapshot { have } => {
                    ReceiveOutcome::RequestSnapshot { have }
                }
                _ if self.buffer.len() >= self.buffer_limit => {
                    self.stalled = 0;
                    ReceiveOutcome::RequestSnapshot { have }
                }
                _ => ReceiveOutcome::Waiting {
                    have,
                    missing: (have + 1, self.first_buffered().unwrap_or(have + 2) - 1),
                },
            });
        }
        match self.instance.apply_record(&record)? {
            RecordOutcome::Duplicate => Ok(ReceiveOutcome::Duplicate),
            RecordOutcome::Applied => {
                self.stalled = 0;
                self.drain();
                Ok(ReceiveOutcome::Applied {
                    through: self.instance.commit_seq(),
                })
            }
        }
    }

    fn on_snapshot(&mut self, s: &Snapshot) -> Result<ReceiveOutcome, ReplicationError> {
        if s.commit_seq <= self.instance.commit_seq() {
            return Ok(ReceiveOutcome::Ignored);
        }
        let restored = Instance::restore(self.instance.asset().clone(), s)?;
        self.instance = restored;
        self.stalled = 0;
        let seq = self.instance.commit_seq();
        self.buffer.retain(|&k, _| k > seq);
        self.drain();
        Ok(ReceiveOutcome::SnapshotInstalled {
            through: self.instance.commit_seq(),
        })
    }

    /// Applies buffered successors. A buffered record that fails to apply is
    /// dropped (it was only partially checked when buffered); the gap it
    /// leaves is filled by a retransmission or a snapshot.
    fn drain(&mut self) {
        while let Some(record) = self.buffer.remove(&(self.instance.commit_seq() + 1)) {
            if self.instance.apply_record(&record).is_err() {
                break;
            }
        }
        let seq = self.instance.commit_seq();
        self.buffer.retain(|&k, _| k > seq);
    }

    fn first_buffered(&self) -> Option<u64> {
        self.buffer.keys().next().copied()
    }

    fn stall(&mut self) -> ReceiveOutcome {
        self.stalled += 1;
        let have = self.instance.commit_seq();
        if self.stalled >= self.patience {
            self.stalled = 0;
            ReceiveOutcome::RequestSnapshot { have }
        } else {
            ReceiveOutcome::Waiting {
                have,
                missing: (have + 1, self.first_buffered().map_or(have + 1, |f| f - 1)),
            }
        }
    }
}
