//! Commit records and recovery (DESIGN §3.10, destruction-system seed
//! "权威事件与重放").
//!
//! Every commit produces a [`CommitRecord`]: the *absolute* health of the
//! bonds it modified, the groups it removed and created (with their
//! representation, body slot and motion at the commit boundary), the motions
//! it changed by impulses, and the receipts of the events it applied. Absolute
//! values make re-application harmless: a retransmitted record never damages
//! twice.
//!
//! The same record serves three readers through one code path,
//! [`Instance::apply_record`]:
//! * replicas ([`crate::replication`]) apply the next version, skip
//!   duplicates, and report gaps;
//! * recovery ([`recover`]) = snapshot + contiguous records, stopping at a
//!   gap and verifying-and-skipping repeated sequences;
//! * the durable journal (`smithereens-journal`) stores one record per commit.

use crate::asset::Asset;
use crate::budget::{BodySlot, Representation};
use crate::cluster::{Cluster, ClusterHandle, ClusterMotion};
use crate::codec::{self, FrameError};
use crate::index::{BondIndex, ChunkIndex};
use crate::instance::{Instance, InstanceId, Receipt, cluster_part, remainder_part};
use crate::island::Island;
use crate::lifecycle::SleepState;
use crate::receipts::ReceiptLookup;
use crate::snapshot::{Snapshot, SnapshotError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::sync::Arc;

/// Magic of an encoded [`CommitRecord`].
pub const RECORD_MAGIC: [u8; 4] = *b"SMCR";
/// Format version of an encoded [`CommitRecord`]. Version 3 (issue 12) adds
/// kept clusters ([`NodeSet::RestOf`] naming the record's own handle) with
/// the layout of version 2; version 2 and version 1 records (events as bare
/// radial events, see [`crate::codec`]) still decode and apply.
pub const RECORD_VERSION: u16 = 3;

/// The members of a created cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum NodeSet {
    /// These chunks, ascending (inline up to four, see [`crate::Members`]:
    /// most pieces a blast frees are one chunk, and their record entry
    /// needs no heap list of its own; encoded as a sequence, as a `Vec`).
    List(crate::Members),
    /// Every chunk of cluster `0` that no other created cluster of the same
    /// record lists, so that chipping a chunk off a big wall does not rewrite
    /// the wall's member list. When the created cluster's handle is `0`
    /// itself, the cluster is *kept*: the remainder of a split, which keeps
    /// its handle and is not in `removed` (format version 2; its mass sums
    /// are the old ones minus the pieces listed from it, in record order).
    /// Otherwise `0` must be removed by the same record (version 1 records).
    RestOf(ClusterHandle),
}

/// A cluster created by a commit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClusterRecord {
    /// Its handle.
    pub handle: ClusterHandle,
    /// Member chunks.
    pub nodes: NodeSet,
    /// Fixed to the world.
    pub supported: bool,
    /// How the physics world represents it.
    pub representation: Representation,
    /// Its body slot.
    pub slot: Option<BodySlot>,
    /// Its motion right after the commit (impulses included).
    pub motion: ClusterMotion,
}

impl ClusterRecord {
    /// True for the remainder of a split, which keeps its handle
    /// (`nodes` is [`NodeSet::RestOf`] its own handle).
    pub fn is_kept(&self) -> bool {
        matches!(self.nodes, NodeSet::RestOf(h) if h == self.handle)
    }
}

/// What one commit changed, in absolute terms.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CommitRecord {
    /// The instance.
    pub instance: InstanceId,
    /// Fingerprint of the asset ([`Asset::fingerprint`]).
    pub asset: u64,
    /// Sequence number of this commit (the previous one + 1).
    pub commit_seq: u64,
    /// Topology version before the commit.
    pub base_topology_version: u64,
    /// Topology version after the commit (base + 1 when clusters changed, else base).
    pub topology_version: u64,
    /// New absolute health of every modified bond, du, ascending by bond.
    pub health: Vec<(BondIndex, f32)>,
    /// Clusters removed (split, or recycled).
    pub removed: Vec<ClusterHandle>,
    /// Clusters created, in allocation order.
    pub created: Vec<ClusterRecord>,
    /// New motion of surviving clusters changed by an impulse, by handle.
    pub motions: Vec<(ClusterHandle, ClusterMotion)>,
    /// Receipts of the events applied, in processing order.
    pub receipts: Vec<Receipt>,
    /// The new task path, when it changed since the previous commit.
    pub task_path: Option<Vec<ChunkIndex>>,
    /// The admission counter at commit time (restores admission order after recovery).
    pub next_admission: u64,
}

impl CommitRecord {
    /// Encodes the record (framed, checksummed, deterministic).
    pub fn to_bytes(&self) -> Vec<u8> {
        // Only a payload over 4 GiB could fail; a record is far smaller.
        codec::encode(RECORD_MAGIC, RECORD_VERSION, self).unwrap_or_default()
    }

    /// Decodes a record.
    ///
    /// # Errors
    /// [`FrameError`] for truncated, corrupt, foreign or undecodable bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, FrameError> {
        let (version, payload) = codec::open(RECORD_MAGIC, 1..=RECORD_VERSION, bytes)?;
        if version == codec::LEGACY_EVENT_VERSION {
            return codec::with_legacy_event_layout(|| codec::decode_payload(payload));
        }
        codec::decode_payload(payload)
    }

    /// Bonds broken by this commit, ascending.
    pub fn broken(&self) -> Vec<BondIndex> {
        let mut out: Vec<BondIndex> = self
            .receipts
            .iter()
            .flat_map(|r| r.broken.iter().copied())
            .collect();
        out.sort_unstable();
        out
    }
}

/// Why a record could not be applied. The instance is unchanged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// No instance with this id exists here.
    #[error("unknown {0}")]
    UnknownInstance(InstanceId),
    /// The record belongs to another instance.
    #[error("record for {found}, this is {expected}")]
    WrongInstance {
        /// This instance.
        expected: InstanceId,
        /// In the record.
        found: InstanceId,
    },
    /// The record was made on another asset version.
    #[error("record made on asset {found:#018x}, this instance uses {expected:#018x}")]
    WrongAsset {
        /// This asset's fingerprint.
        expected: u64,
        /// In the record.
        found: u64,
    },
    /// One or more commits are missing before this one.
    #[error("gap: the next commit is {expected}, the record is commit {found}")]
    Gap {
        /// Next sequence this instance can apply.
        expected: u64,
        /// The record's sequence.
        found: u64,
    },
    /// The record was made on another topology version.
    #[error("stale topology: record based on version {found}, instance at {expected}")]
    StaleTopology {
        /// This instance's version.
        expected: u64,
        /// The record's base version.
        found: u64,
    },
    /// A repeated sequence whose content differs from what was applied.
    #[error("commit {0} was already applied with different content")]
    Conflict(u64),
    /// The content is inconsistent with this instance (bad index, value, handle or slot).
    #[error("commit {commit_seq} is inconsistent: {reason}")]
    Invalid {
        /// The record's sequence.
        commit_seq: u64,
        /// What is wrong.
        reason: String,
    },
    /// A created cluster has degenerate mass properties.
    #[error("degenerate cluster mass properties: {0}")]
    Mass(crate::MassError),
}

/// What [`Instance::apply_record`] did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RecordOutcome {
    /// The record was the next commit and is now applied.
    Applied,
    /// The record was already applied (and its content verified): skipped.
    Duplicate,
}

impl Instance {
    /// Applies an authoritative commit record: the next sequence is applied,
    /// an already-applied sequence is verified against the receipts still in
    /// the receipt window (and, for the latest commit, the health values) and
    /// skipped.
    ///
    /// # Errors
    /// [`RecordError::Gap`] when commits are missing before it,
    /// [`RecordError::Conflict`] for a repeated sequence with other content,
    /// others for foreign or inconsistent records. Nothing changes on error.
    pub fn apply_record(&mut self, r: &CommitRecord) -> Result<RecordOutcome, RecordError> {
        if r.instance != self.id {
            return Err(RecordError::WrongInstance {
                expected: self.id,
                found: r.instance,
            });
        }
        if r.asset != self.asset.fingerprint() {
            return Err(RecordError::WrongAsset {
                expected: self.asset.fingerprint(),
                found: r.asset,
            });
        }
        if r.commit_seq <= self.commit_seq {
            return self.verify_duplicate(r).map(|()| RecordOutcome::Duplicate);
        }
        if r.commit_seq != self.commit_seq + 1 {
            return Err(RecordError::Gap {
                expected: self.commit_seq + 1,
                found: r.commit_seq,
            });
        }
        let created = self.validate_record(r)?;
        self.install_own(r, created);
        Ok(RecordOutcome::Applied)
    }

    fn verify_duplicate(&self, r: &CommitRecord) -> Result<(), RecordError> {
        let conflict = RecordError::Conflict(r.commit_seq);
        for receipt in &r.receipts {
            match self.applied.lookup(receipt.event.id) {
                ReceiptLookup::Recent(mine)
                    if mine.commit_seq == receipt.commit_seq
                        && mine.commit_seq == r.commit_seq
                        && mine.event.same_parameters(&receipt.event)
                        && mine.broken == receipt.broken => {}
                // Its receipt left the window: known applied by its number,
                // no content left to compare.
                ReceiptLookup::Expired => {}
                _ => return Err(conflict),
            }
        }
        if r.commit_seq == self.commit_seq {
            let health_ok = r.health.iter().all(|&(b, h)| {
                self.health
                    .get(b.0 as usize)
                    .is_some_and(|&x| x.to_bits() == h.to_bits())
            });
            if !health_ok || r.topology_version != self.topology_version {
                return Err(conflict);
            }
        }
        Ok(())
    }

    /// Members of live cluster `h` not in `claimed`, ascending.
    fn rest_of(&self, h: ClusterHandle, claimed: &BTreeSet<ChunkIndex>) -> Vec<ChunkIndex> {
        self.clusters
            .get(h)
            .map(|old| {
                old.nodes
                    .iter()
                    .copied()
                    .filter(|n| !claimed.contains(n))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn cluster_from(&self, c: &ClusterRecord, part: crate::commit::SplitPart) -> Cluster {
        Cluster {
            sums: part.sums,
            nodes: part.nodes,
            supported: c.supported,
            mass: part.mass,
            principal: part.principal,
            motion: c.motion,
            representation: c.representation,
            slot: c.slot,
            sleep: SleepState::default(),
            withdrawn_at: None,
        }
    }

    /// Checks a next-sequence record against this instance and builds its
    /// clusters. Reads only.
    fn validate_record(&self, r: &CommitRecord) -> Result<Vec<Cluster>, RecordError> {
        let invalid = |reason: String| RecordError::Invalid {
            commit_seq: r.commit_seq,
            reason,
        };
        if r.base_topology_version != self.topology_version {
            return Err(RecordError::StaleTopology {
                expected: self.topology_version,
                found: r.base_topology_version,
            });
        }
        let changes_topology = !r.removed.is_empty() || !r.created.is_empty();
        let expected_version = self.topology_version + changes_topology as u64;
        if r.topology_version != expected_version {
            return Err(invalid(format!(
                "topology version {} after the commit, expected {expected_version}",
                r.topology_version
            )));
        }
        let mut last: Option<BondIndex> = None;
        for &(b, h) in &r.health {
            let Some(bond) = self.asset.bond(b) else {
                return Err(invalid(format!("bond {b} out of range")));
            };
            if last.is_some_and(|l| l >= b) {
                return Err(invalid("health entries not strictly ascending".into()));
            }
            last = Some(b);
            if !(h.is_finite() && h >= 0.0 && h <= bond.strength) {
                return Err(invalid(format!(
                    "bond {b} health {h} outside [0, strength]"
                )));
            }
        }
        // Removed clusters: live, distinct; their nodes may be regrouped.
        // Membership tests below go through ordered sets: O(log n) per
        // chunk, not a scan of the record's clusters (issue 12).
        let mut released = Vec::new();
        let mut removed: BTreeSet<ClusterHandle> = BTreeSet::new();
        for &h in &r.removed {
            let Some(c) = self.clusters.get(h) else {
                return Err(invalid(format!("removed cluster {h} does not exist")));
            };
            if !removed.insert(h) {
                return Err(invalid(format!("cluster {h} removed twice")));
            }
            released.extend(c.slot);
        }
        // Kept clusters (a remainder written as the rest of itself): live,
        // not removed, kept once; their old slot is released.
        let mut kept: BTreeSet<ClusterHandle> = BTreeSet::new();
        for c in r.created.iter().filter(|c| c.is_kept()) {
            let Some(old) = self.clusters.get(c.handle) else {
                return Err(invalid(format!("kept cluster {} does not exist", c.handle)));
            };
            if removed.contains(&c.handle) || !kept.insert(c.handle) {
                return Err(invalid(format!(
                    "cluster {} is kept twice or also removed",
                    c.handle
                )));
            }
            released.extend(old.slot);
        }
        let expected_handles = self
            .clusters
            .peek_allocations(&r.removed, r.created.len() - kept.len());
        let mut pool = self.slots.clone();
        for s in &released {
            pool.release(*s);
        }
        // Listed chunks: ascending per cluster, owned by a removed or kept
        // cluster, used once; a piece cut from a kept cluster comes from it
        // alone (its sums are subtracted from that cluster's).
        let mut claimed: BTreeSet<ChunkIndex> = BTreeSet::new();
        let mut rests: BTreeSet<ClusterHandle> = BTreeSet::new();
        let mut sources: Vec<Option<ClusterHandle>> = Vec::with_capacity(r.created.len());
        for c in &r.created {
            match &c.nodes {
                NodeSet::List(nodes) => {
                    if nodes.is_empty() || nodes.windows(2).any(|w| w[0] >= w[1]) {
                        return Err(invalid(format!(
                            "cluster {} nodes empty or not ascending",
                            c.handle
                        )));
                    }
                    let source = self.node_cluster.get(nodes[0].0 as usize).copied();
                    for &n in nodes {
                        let owner = self.node_cluster.get(n.0 as usize).copied();
                        let free = owner.is_some_and(|o| removed.contains(&o) || kept.contains(&o));
                        if !free || !claimed.insert(n) {
                            return Err(invalid(format!(
                                "chunk {n} is not free to join cluster {}",
                                c.handle
                            )));
                        }
                        let from_kept =
                            |o: Option<ClusterHandle>| o.is_some_and(|o| kept.contains(&o));
                        if owner != source && (from_kept(owner) || from_kept(source)) {
                            return Err(invalid(format!(
                                "cluster {} mixes chunks of a kept cluster with others",
                                c.handle
                            )));
                        }
                    }
                    sources.push(source.filter(|o| kept.contains(o)));
                }
                NodeSet::RestOf(_) if c.is_kept() => sources.push(None),
                NodeSet::RestOf(h) => {
                    if !removed.contains(h) || !rests.insert(*h) {
                        return Err(invalid(format!(
                            "cluster {} is the rest of {h}, which is not removed once",
                            c.handle
                        )));
                    }
                    sources.push(None);
                }
            }
        }
        let mut wanted = expected_handles.iter();
        let mut built: Vec<Option<Cluster>> = Vec::with_capacity(r.created.len());
        for c in &r.created {
            if !c.is_kept() {
                let want = wanted.next();
                if want != Some(&c.handle) {
                    return Err(invalid(format!(
                        "created cluster {} where {} is allocated",
                        c.handle,
                        want.map_or_else(|| "nothing".to_string(), |w| w.to_string())
                    )));
                }
            }
            match (c.slot, c.supported, c.representation) {
                (None, _, Representation::RenderOnlyDebris) if !c.supported => {}
                (None, true, Representation::Body | Representation::Proxy(_)) => {}
                (Some(s), false, Representation::Body | Representation::Proxy(_)) => {
                    if !pool.occupy(s) {
                        return Err(invalid(format!("{s} is not free")));
                    }
                }
                _ => {
                    return Err(invalid(format!(
                        "cluster {} has an impossible representation/slot",
                        c.handle
                    )));
                }
            }
            if let Representation::Proxy(p) = c.representation
                && p.0 as usize >= self.budget.desc.proxies.len()
            {
                return Err(invalid(format!("proxy {} does not exist", p.0)));
            }
            if !c.motion.pose.is_valid()
                || !c.motion.velocity.linear.is_finite()
                || !c.motion.velocity.angular.is_finite()
            {
                return Err(invalid(format!("cluster {} motion not finite", c.handle)));
            }
            if c.is_kept() {
                built.push(None);
                continue;
            }
            let nodes: Vec<ChunkIndex> = match &c.nodes {
                NodeSet::List(nodes) => nodes.to_vec(),
                NodeSet::RestOf(h) => self.rest_of(*h, &claimed),
            };
            if nodes.is_empty() {
                return Err(invalid(format!("cluster {} has no chunks", c.handle)));
            }
            let part = cluster_part(
                &self.asset,
                Island {
                    nodes: crate::Members::from_vec(nodes),
                    supported: c.supported,
                },
            )
            .map_err(RecordError::Mass)?;
            built.push(Some(self.cluster_from(c, part)));
        }
        // Remainders: the pieces cut from them subtracted in record order,
        // exactly as the planner did.
        let mut created = Vec::with_capacity(r.created.len());
        for (k, c) in r.created.iter().enumerate() {
            if let Some(cluster) = built[k].take() {
                created.push(cluster);
                continue;
            }
            let Some(old) = self.clusters.get(c.handle) else {
                return Err(invalid(format!("kept cluster {} does not exist", c.handle)));
            };
            let nodes = self.rest_of(c.handle, &claimed);
            if nodes.is_empty() {
                return Err(invalid(format!("cluster {} has no chunks", c.handle)));
            }
            let departing = r
                .created
                .iter()
                .enumerate()
                .filter(|&(j, _)| sources[j] == Some(c.handle))
                .filter_map(|(j, _)| created.get(j).or(built[j].as_ref()))
                .map(|p: &Cluster| p.sums(&self.asset));
            let part = remainder_part(
                &self.asset,
                old,
                departing,
                crate::Members::from_vec(nodes),
                c.supported,
                None,
            )
            .map_err(RecordError::Mass)?;
            created.push(self.cluster_from(c, part));
        }
        if created.len() != r.created.len() {
            return Err(invalid("more clusters than handles".into()));
        }
        for &(h, m) in &r.motions {
            if self.clusters.get(h).is_none() || removed.contains(&h) {
                return Err(invalid(format!("motion for missing cluster {h}")));
            }
            if !m.pose.is_valid()
                || !m.velocity.linear.is_finite()
                || !m.velocity.angular.is_finite()
            {
                return Err(invalid(format!("cluster {h} motion not finite")));
            }
        }
        let mut ids = BTreeSet::new();
        for rc in &r.receipts {
            if rc.instance != self.id
                || rc.commit_seq != r.commit_seq
                || rc.topology_version != r.topology_version
            {
                return Err(invalid(format!(
                    "receipt of event {} names another commit",
                    rc.event.id
                )));
            }
            if rc.event.validate().is_err() {
                return Err(invalid(format!(
                    "event {} has invalid parameters",
                    rc.event.id
                )));
            }
            // Only a receipt still in the window can be told to conflict;
            // an expired id trusts the authority (whose window may be wider).
            if self.applied.get(rc.event.id).is_some() || !ids.insert(rc.event.id) {
                return Err(RecordError::Conflict(r.commit_seq));
            }
            if rc.broken.iter().any(|b| b.0 as usize >= self.health.len()) {
                return Err(invalid(format!(
                    "event {} broke a bond out of range",
                    rc.event.id
                )));
            }
        }
        if let Some(path) = &r.task_path
            && path
                .iter()
                .any(|c| c.0 as usize >= self.asset.chunk_count())
        {
            return Err(invalid("task path names a chunk out of range".into()));
        }
        Ok(created)
    }
}

/// The result of a recovery.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct RecoveryReport {
    /// Records applied.
    pub applied: u64,
    /// Repeated records verified and skipped.
    pub skipped: u64,
    /// The first missing commits, when recovery stopped at a gap: ask for
    /// commits `missing.0 ..= missing.1`.
    pub missing: Option<(u64, u64)>,
}

/// Why a recovery failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RecoveryError {
    /// The snapshot is unusable.
    #[error("snapshot")]
    Snapshot(#[from] SnapshotError),
    /// A record conflicts with the state or is inconsistent.
    #[error("record {commit_seq}: {error}")]
    Record {
        /// The record's sequence.
        commit_seq: u64,
        /// Why.
        error: RecordError,
    },
}

/// Recovery = snapshot + contiguous records: restores `snapshot`, then
/// applies `records` in the given order. A record already covered is
/// verified and skipped; at the first gap recovery stops and reports the
/// missing range (the state is the last contiguous one). Pending events come
/// back from the snapshot with their frozen distances and order.
///
/// # Errors
/// [`RecoveryError`] for an unusable snapshot or a conflicting/inconsistent record.
pub fn recover<'a>(
    asset: Arc<Asset>,
    snapshot: &Snapshot,
    records: impl IntoIterator<Item = &'a CommitRecord>,
) -> Result<(Instance, RecoveryReport), RecoveryError> {
    let mut inst = Instance::restore(asset, snapshot)?;
    let mut report = RecoveryReport::default();
    for r in records {
        match inst.apply_record(r) {
            Ok(RecordOutcome::Applied) => report.applied += 1,
            Ok(RecordOutcome::Duplicate) => report.skipped += 1,
            Err(RecordError::Gap { expected, found }) => {
                report.missing = Some((expected, found - 1));
                break;
            }
            Err(error) => {
                return Err(RecoveryError::Record {
                    commit_seq: r.commit_seq,
                    error,
                });
            }
        }
    }
    Ok((inst, report))
}
