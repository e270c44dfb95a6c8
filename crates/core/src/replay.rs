//! Deterministic replay (DESIGN §3.10): re-running a recorded event log from
//! the asset's initial health reproduces every commit's state hash bit for
//! bit.
//!
//! The log keeps, per commit, the events *with the distances frozen at
//! admission* and their order (never re-measured against later poses), the
//! cluster motions synced from physics since the previous commit (they decide
//! where new clusters start), and the task-path change; plus recycle commits.
//! Damage arithmetic is `f32` in a fixed order (`apply_radial` visits
//! candidates by bond index), so the same inputs give the same bits.

use crate::asset::Asset;
use crate::cluster::{ClusterHandle, ClusterMotion};
use crate::codec::{self, FrameError};
use crate::commit::{CommitBackend, CommitError, CommitOutcome, CommitStatus, HeadlessBackend};
use crate::error::DamageError;
use crate::index::ChunkIndex;
use crate::instance::{Instance, InstanceDesc, InstanceError, PendingEvent};
use crate::lifecycle::{LifecycleError, RecycleTicket};
use crate::recovery::CommitRecord;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Magic of an encoded [`ReplayLog`].
pub const REPLAY_MAGIC: [u8; 4] = *b"SMRL";
/// Format version of an encoded [`ReplayLog`]. Version 3 (issue 12) is the
/// first written under the split rule that keeps a split cluster's remainder
/// under its handle. Versions 2 and 1 (events as bare radial events, see
/// [`crate::codec`]) still decode, but [`replay`] refuses them with
/// [`ReplayError::SplitRuleChanged`]: their motions name handles that the
/// older rule allocated, and their state hashes cover those handles.
pub const REPLAY_VERSION: u16 = 3;

/// First [`ReplayLog`] format version written under the current split rule.
pub const REPLAY_SPLIT_RULE_VERSION: u16 = 3;

fn current_replay_version() -> u16 {
    REPLAY_VERSION
}

/// One recorded commit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ReplayEntry {
    /// A damage commit.
    Commit {
        /// Its sequence number.
        commit_seq: u64,
        /// Cluster motions synced since the previous commit (changed ones only).
        motions: Vec<(ClusterHandle, ClusterMotion)>,
        /// The task path set before this commit, if it changed.
        task_path: Option<Vec<ChunkIndex>>,
        /// Events applied, in processing order, with frozen distances.
        events: Vec<PendingEvent>,
        /// State hash after the commit.
        state_hash: u64,
    },
    /// A recycle commit.
    Recycle {
        /// Its sequence number.
        commit_seq: u64,
        /// The cluster released.
        cluster: ClusterHandle,
        /// Cluster motions synced since the previous commit (changed ones only).
        motions: Vec<(ClusterHandle, ClusterMotion)>,
        /// The task path set before this commit, if it changed.
        task_path: Option<Vec<ChunkIndex>>,
        /// State hash after the commit.
        state_hash: u64,
    },
}

/// A recorded run of one instance, from its initial state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayLog {
    /// Asset version.
    pub asset: u64,
    /// How the instance was created.
    pub desc: InstanceDesc,
    /// State hash of the initial instance.
    pub initial_hash: u64,
    /// Commits in order.
    pub entries: Vec<ReplayEntry>,
    /// Format version the log was decoded from ([`REPLAY_VERSION`] for a
    /// log recorded by this build); not part of the encoding.
    #[serde(skip, default = "current_replay_version")]
    pub format_version: u16,
}

impl ReplayLog {
    /// Encodes the log (framed, checksummed, deterministic).
    pub fn to_bytes(&self) -> Vec<u8> {
        // Only a payload over 4 GiB could fail.
        codec::encode(REPLAY_MAGIC, REPLAY_VERSION, self).unwrap_or_default()
    }

    /// Decodes a log.
    ///
    /// # Errors
    /// [`FrameError`] for truncated, corrupt or foreign bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, FrameError> {
        let (version, payload) = codec::open(REPLAY_MAGIC, 1..=REPLAY_VERSION, bytes)?;
        let mut log: Self = if version == codec::LEGACY_EVENT_VERSION {
            codec::with_legacy_event_layout(|| codec::decode_payload(payload))?
        } else {
            codec::decode_payload(payload)?
        };
        log.format_version = version;
        Ok(log)
    }
}

/// Why a replay failed or diverged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// The recorder must start from an instance's initial state.
    #[error("recording must start from the initial state (instance is at commit {0})")]
    NotInitial(u64),
    /// The log was recorded on another asset version.
    #[error("log recorded on asset {found:#018x}, replaying on {expected:#018x}")]
    AssetMismatch {
        /// Asset given.
        expected: u64,
        /// In the log.
        found: u64,
    },
    /// The instance descriptor is invalid.
    #[error("instance")]
    Instance(#[from] InstanceError),
    /// A recorded event was refused.
    #[error("commit {commit_seq}: event refused: {error}")]
    Event {
        /// The commit.
        commit_seq: u64,
        /// Why.
        error: DamageError,
    },
    /// A recorded step could not be repeated (stale handle, failed commit, wrong sequence).
    #[error("commit {commit_seq}: {reason}")]
    Invalid {
        /// The commit.
        commit_seq: u64,
        /// What went wrong.
        reason: String,
    },
    /// The log was written before the current split rule (format version
    /// below [`REPLAY_SPLIT_RULE_VERSION`]): its cluster handles and state
    /// hashes cannot be reproduced. Its events still decode.
    #[error(
        "replay log format {format_version} was recorded under the split rule before \
         format {REPLAY_SPLIT_RULE_VERSION} (a split cluster's remainder got a new handle); \
         this build cannot reproduce its handles and state hashes"
    )]
    SplitRuleChanged {
        /// The log's format version.
        format_version: u16,
    },
    /// The replayed state differs from the recorded one.
    #[error("commit {commit_seq}: state hash {found:#018x}, recorded {expected:#018x}")]
    HashMismatch {
        /// The commit (0 = initial state).
        commit_seq: u64,
        /// Recorded hash.
        expected: u64,
        /// Replayed hash.
        found: u64,
    },
}

/// Records a [`ReplayLog`] while the game runs: route commits and recycles
/// through it.
#[derive(Clone, Debug)]
pub struct ReplayRecorder {
    log: ReplayLog,
    known: BTreeMap<ClusterHandle, ClusterMotion>,
}

impl ReplayRecorder {
    /// Starts recording `instance`, which must be in its initial state.
    ///
    /// # Errors
    /// [`ReplayError::NotInitial`] when it has committed already.
    pub fn new(instance: &Instance) -> Result<Self, ReplayError> {
        if instance.commit_seq() != 0 {
            return Err(ReplayError::NotInitial(instance.commit_seq()));
        }
        Ok(Self {
            log: ReplayLog {
                asset: instance.asset().fingerprint(),
                desc: instance.desc(),
                initial_hash: instance.state_hash(),
                entries: Vec::new(),
                format_version: REPLAY_VERSION,
            },
            known: motions_of(instance),
        })
    }

    /// [`Instance::commit`], recording the commit when it happens.
    ///
    /// # Errors
    /// As [`Instance::commit`]; nothing is recorded on error.
    pub fn commit<B: CommitBackend>(
        &mut self,
        instance: &mut Instance,
        backend: &mut B,
    ) -> Result<CommitOutcome, CommitError<B::Error>> {
        let motions = self.changed_motions(instance);
        let outcome = instance.commit(backend)?;
        if outcome.status == CommitStatus::Committed {
            self.log.entries.push(ReplayEntry::Commit {
                commit_seq: instance.commit_seq(),
                motions,
                task_path: outcome.record.as_ref().and_then(|r| r.task_path.clone()),
                events: outcome.applied.clone(),
                state_hash: instance.state_hash(),
            });
            self.known = motions_of(instance);
        }
        Ok(outcome)
    }

    /// [`Instance::finish_recycle`], recording the recycle commit.
    ///
    /// # Errors
    /// As [`Instance::finish_recycle`]; nothing is recorded on error.
    pub fn finish_recycle(
        &mut self,
        instance: &mut Instance,
        ticket: RecycleTicket,
    ) -> Result<CommitRecord, LifecycleError> {
        let motions = self.changed_motions(instance);
        let record = instance.finish_recycle(ticket)?;
        self.log.entries.push(ReplayEntry::Recycle {
            commit_seq: record.commit_seq,
            cluster: ticket.cluster,
            motions,
            task_path: record.task_path.clone(),
            state_hash: instance.state_hash(),
        });
        self.known = motions_of(instance);
        Ok(record)
    }

    fn changed_motions(&self, instance: &Instance) -> Vec<(ClusterHandle, ClusterMotion)> {
        instance
            .clusters()
            .filter(|(h, c)| !same_motion(self.known.get(h), &c.motion))
            .map(|(h, c)| (h, c.motion))
            .collect()
    }

    /// The log so far.
    pub fn log(&self) -> &ReplayLog {
        &self.log
    }

    /// Ends recording.
    pub fn finish(self) -> ReplayLog {
        self.log
    }
}

fn motions_of(instance: &Instance) -> BTreeMap<ClusterHandle, ClusterMotion> {
    instance.clusters().map(|(h, c)| (h, c.motion)).collect()
}

fn same_motion(a: Option<&ClusterMotion>, b: &ClusterMotion) -> bool {
    let bits = |m: &ClusterMotion| {
        let mut v = [0u32; 13];
        let p = m.pose;
        for (k, x) in p
            .translation
            .to_array()
            .into_iter()
            .chain(p.rotation.to_array())
            .chain(m.velocity.linear.to_array())
            .chain(m.velocity.angular.to_array())
            .enumerate()
        {
            v[k] = x.to_bits();
        }
        v
    };
    a.is_some_and(|a| bits(a) == bits(b))
}

/// What a successful replay checked.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ReplayReport {
    /// Commits replayed (each hash matched).
    pub commits: u64,
    /// Final state hash.
    pub final_hash: u64,
}

/// Replays `log` on `asset` from the initial health with a
/// [`HeadlessBackend`], checking the state hash after every commit.
///
/// # Errors
/// [`ReplayError::HashMismatch`] at the first divergence, others for a log
/// that cannot be replayed on this asset.
pub fn replay(asset: Arc<Asset>, log: &ReplayLog) -> Result<ReplayReport, ReplayError> {
    replay_instance(asset, log).map(|(report, _)| report)
}

/// [`replay`], also returning the final instance.
///
/// # Errors
/// As [`replay`].
pub fn replay_instance(
    asset: Arc<Asset>,
    log: &ReplayLog,
) -> Result<(ReplayReport, Instance), ReplayError> {
    if log.format_version < REPLAY_SPLIT_RULE_VERSION {
        return Err(ReplayError::SplitRuleChanged {
            format_version: log.format_version,
        });
    }
    if log.asset != asset.fingerprint() {
        return Err(ReplayError::AssetMismatch {
            expected: asset.fingerprint(),
            found: log.asset,
        });
    }
    let mut inst = Instance::with_desc(asset, log.desc.clone())?;
    check(0, log.initial_hash, inst.state_hash())?;
    let mut backend = HeadlessBackend::default();
    for entry in &log.entries {
        match entry {
            ReplayEntry::Commit {
                commit_seq,
                motions,
                task_path,
                events,
                state_hash,
            } => {
                let seq = *commit_seq;
                let invalid = |reason: String| ReplayError::Invalid {
                    commit_seq: seq,
                    reason,
                };
                for &(h, m) in motions {
                    inst.set_motion::<std::convert::Infallible>(h, m)
                        .map_err(|e| invalid(format!("motion of {h}: {e}")))?;
                }
                if let Some(path) = task_path {
                    inst.set_task_path(path)
                        .map_err(|e| invalid(format!("task path: {e}")))?;
                }
                for p in events {
                    inst.admit_frozen(p.clone())
                        .map_err(|error| ReplayError::Event {
                            commit_seq: seq,
                            error,
                        })?;
                }
                let out = inst
                    .commit(&mut backend)
                    .map_err(|e| invalid(format!("commit failed: {e}")))?;
                if out.status != CommitStatus::Committed || inst.commit_seq() != seq {
                    return Err(invalid(format!(
                        "commit ended as {:?} at sequence {}",
                        out.status,
                        inst.commit_seq()
                    )));
                }
                check(seq, *state_hash, inst.state_hash())?;
            }
            ReplayEntry::Recycle {
                commit_seq,
                cluster,
                motions,
                task_path,
                state_hash,
            } => {
                for &(h, m) in motions {
                    inst.set_motion::<std::convert::Infallible>(h, m)
                        .map_err(|e| ReplayError::Invalid {
                            commit_seq: *commit_seq,
                            reason: format!("motion of {h}: {e}"),
                        })?;
                }
                if let Some(path) = task_path {
                    inst.set_task_path(path).map_err(|e| ReplayError::Invalid {
                        commit_seq: *commit_seq,
                        reason: format!("task path: {e}"),
                    })?;
                }
                let record = inst
                    .recycle_now(*cluster)
                    .map_err(|e| ReplayError::Invalid {
                        commit_seq: *commit_seq,
                        reason: e.to_string(),
                    })?;
                if record.commit_seq != *commit_seq {
                    return Err(ReplayError::Invalid {
                        commit_seq: *commit_seq,
                        reason: format!("recycle became commit {}", record.commit_seq),
                    });
                }
                check(*commit_seq, *state_hash, inst.state_hash())?;
            }
        }
    }
    Ok((
        ReplayReport {
            commits: log.entries.len() as u64,
            final_hash: inst.state_hash(),
        },
        inst,
    ))
}

fn check(commit_seq: u64, expected: u64, found: u64) -> Result<(), ReplayError> {
    if expected == found {
        Ok(())
    } else {
        Err(ReplayError::HashMismatch {
            commit_seq,
            expected,
            found,
        })
    }
}
