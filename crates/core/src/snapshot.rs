//! Resumable snapshots (DESIGN §3.10, destruction-system seed "权威事件与重放").
//!
//! A snapshot is taken at one physics boundary (between steps, after the
//! cluster motions were synced) and holds everything needed to *continue
//! simulating*, not just to display: asset version, instance id, commit
//! sequence, every bond's remaining health, the support set, node ownership,
//! cluster poses and velocities, plus the arena and slot generations (so
//! later handles and slots come out the same), the pending events with their
//! frozen distances and order, the receipt window (receipts and each
//! source's horizon, see [`crate::receipts`]), and the budget.
//!
//! Remaining health matters even where topology does not show it: 10 → 6
//! changes no topology, but resuming from 10 and taking 7 keeps the bond
//! where the true 6 − 7 breaks it.

use crate::asset::Asset;
use crate::budget::{BodySlot, Budget, BudgetDesc, Representation, SlotPool};
use crate::cluster::{Cluster, ClusterHandle, ClusterMotion, ClusterSet};
use crate::codec::{self, FrameError};
use crate::damage::EventSource;
use crate::index::ChunkIndex;
use crate::instance::{Instance, InstanceId, PendingEvent, Receipt, cluster_part, remainder_part};
use crate::island::{Island, SplitScratch};
use crate::lifecycle::{LifecycleDesc, SleepState};
use crate::mass::MassSums;
use crate::pose::Pose;
use crate::receipts::{DEFAULT_RECEIPT_WINDOW, ReceiptWindow};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Magic of an encoded [`Snapshot`].
pub const SNAPSHOT_MAGIC: [u8; 4] = *b"SMSN";
/// Format version of an encoded [`Snapshot`]. Version 4 (issue 12 item 4)
/// appends [`Snapshot::receipt_horizons`] and [`Snapshot::receipt_window`];
/// version 3 appended [`Snapshot::cluster_mass`]. Versions 3, 2 and 1
/// (events as bare radial events, see [`crate::codec`]) still load: their
/// receipts all go into the window (trimmed to the default window, the
/// lowest sequences expiring), and before version 3 every cluster's mass
/// sums are rebuilt from its chunks.
pub const SNAPSHOT_VERSION: u16 = 4;

/// One cluster in a snapshot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClusterSnapshot {
    /// Handle (index and generation).
    pub handle: ClusterHandle,
    /// Member chunks, ascending.
    pub nodes: Vec<ChunkIndex>,
    /// Fixed to the world.
    pub supported: bool,
    /// Physics representation.
    pub representation: Representation,
    /// Body slot.
    pub slot: Option<BodySlot>,
    /// World pose and velocity at the snapshot's physics boundary.
    pub motion: ClusterMotion,
    /// Sleep state.
    pub sleep: SleepState,
    /// Withdrawal epoch when being recycled.
    pub withdrawn_at: Option<u64>,
}

/// A resumable snapshot of one instance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Asset version ([`Asset::fingerprint`]).
    pub asset: u64,
    /// Instance identity.
    pub instance: InstanceId,
    /// Placement the instance was created with.
    pub placement: Pose,
    /// Commit sequence (commits without a break count too).
    pub commit_seq: u64,
    /// Topology version.
    pub topology_version: u64,
    /// Admission counter.
    pub next_admission: u64,
    /// Remaining health of every bond, du, indexed by bond.
    pub health: Vec<f32>,
    /// Chunks acting as supports now: support chunks whose cluster is still
    /// supported (an activated node is never a support again), ascending.
    pub support: Vec<ChunkIndex>,
    /// Owner of every chunk ([`ClusterHandle::PLACEHOLDER`] once recycled).
    pub ownership: Vec<ClusterHandle>,
    /// Live clusters in handle order.
    pub clusters: Vec<ClusterSnapshot>,
    /// Generation of every cluster-arena slot.
    pub cluster_generations: Vec<u32>,
    /// Generation of every body slot used so far.
    pub slot_generations: Vec<u32>,
    /// Pending events in processing order, with frozen distances.
    pub pending: Vec<PendingEvent>,
    /// Receipts in the receipt window, by event id.
    pub receipts: Vec<Receipt>,
    /// Budget in force (including the current task path).
    pub budget: BudgetDesc,
    /// True when the task path changed since the last commit record.
    pub task_path_dirty: bool,
    /// Sleep thresholds.
    pub lifecycle: LifecycleDesc,
    /// Query epoch.
    pub query_epoch: u64,
    /// Mass sums of every cluster, in the order of `clusters` (format
    /// version 2). A split subtracts departing pieces from these sums, so a
    /// resumed run needs the same f64 values to stay bit-identical with the
    /// live one. Empty: rebuild them from the chunks (version 1 snapshots).
    pub cluster_mass: Vec<MassSums>,
    /// Every source's receipt horizon (highest sequence whose receipt
    /// expired), ascending by source, unique (format version 4; empty
    /// before: nothing had expired).
    pub receipt_horizons: Vec<(EventSource, u64)>,
    /// Receipts kept per source (format version 4); `None`:
    /// [`DEFAULT_RECEIPT_WINDOW`] (earlier versions).
    pub receipt_window: Option<u32>,
}

/// Why a snapshot could not be read or restored. Nothing is created on error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// The bytes are not a readable snapshot.
    #[error("snapshot bytes")]
    Frame(#[from] FrameError),
    /// The snapshot was taken on another asset version.
    #[error("snapshot of asset {found:#018x}, but the asset given is {expected:#018x}")]
    AssetMismatch {
        /// The asset given.
        expected: u64,
        /// In the snapshot.
        found: u64,
    },
    /// The content is inconsistent.
    #[error("snapshot is inconsistent: {0}")]
    Invalid(String),
}

impl Snapshot {
    /// Encodes the snapshot (framed, checksummed, deterministic).
    pub fn to_bytes(&self) -> Vec<u8> {
        // Only a payload over 4 GiB could fail.
        codec::encode(SNAPSHOT_MAGIC, SNAPSHOT_VERSION, self).unwrap_or_default()
    }

    /// Decodes a snapshot (not yet checked against an asset: see [`Instance::restore`]).
    ///
    /// # Errors
    /// [`SnapshotError::Frame`] for truncated, corrupt or foreign bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, SnapshotError> {
        let (version, payload) = codec::open(SNAPSHOT_MAGIC, 1..=SNAPSHOT_VERSION, bytes)?;
        if version < SNAPSHOT_VERSION {
            // Earlier versions end before `cluster_mass` (1 and 2) or before
            // `receipt_horizons` (3): decode the missing fields as empty and
            // `None` (postcard writes both as the single byte 0).
            let missing = if version < 3 { 3 } else { 2 };
            let mut extended = Vec::with_capacity(payload.len() + missing);
            extended.extend_from_slice(payload);
            extended.extend(std::iter::repeat_n(0, missing));
            if version == codec::LEGACY_EVENT_VERSION {
                return Ok(codec::with_legacy_event_layout(|| {
                    codec::decode_payload(&extended)
                })?);
            }
            return Ok(codec::decode_payload(&extended)?);
        }
        Ok(codec::decode_payload(payload)?)
    }
}

impl Instance {
    /// Takes a resumable snapshot. Call it at a physics boundary, after the
    /// backend synced cluster motions.
    pub fn snapshot(&self) -> Snapshot {
        let clusters: Vec<ClusterSnapshot> = self
            .clusters
            .iter()
            .map(|(h, c)| ClusterSnapshot {
                handle: h,
                nodes: c.nodes.to_vec(),
                supported: c.supported,
                representation: c.representation,
                slot: c.slot,
                motion: c.motion,
                sleep: c.sleep,
                withdrawn_at: c.withdrawn_at,
            })
            .collect();
        Snapshot {
            asset: self.asset.fingerprint(),
            instance: self.id,
            placement: self.placement,
            commit_seq: self.commit_seq,
            topology_version: self.topology_version,
            next_admission: self.next_admission,
            health: self.health.clone(),
            support: support_set(&self.asset, &self.node_cluster, |h| {
                self.clusters.get(h).is_some_and(|c| c.supported)
            }),
            ownership: self.node_cluster.clone(),
            clusters,
            cluster_generations: self.clusters.generations(),
            slot_generations: self.slots.generations().to_vec(),
            pending: self.pending.clone(),
            receipts: self.applied.iter().cloned().collect(),
            budget: self.budget.desc.clone(),
            task_path_dirty: self.task_path_dirty,
            lifecycle: self.lifecycle,
            query_epoch: self.query_epoch,
            cluster_mass: self
                .clusters
                .iter()
                .map(|(_, c)| c.sums(&self.asset))
                .collect(),
            receipt_horizons: self.applied.horizons(),
            receipt_window: Some(self.applied.window()),
        }
    }

    /// Rebuilds an instance from a snapshot of `asset`. The result has the
    /// same [`Instance::state_hash`], pending events, receipts and future
    /// handle/slot allocation as the instance the snapshot was taken from.
    ///
    /// # Errors
    /// [`SnapshotError::AssetMismatch`] for a snapshot of another asset
    /// version, [`SnapshotError::Invalid`] for inconsistent content.
    pub fn restore(asset: Arc<Asset>, s: &Snapshot) -> Result<Instance, SnapshotError> {
        let bad = |m: String| Err(SnapshotError::Invalid(m));
        if s.asset != asset.fingerprint() {
            return Err(SnapshotError::AssetMismatch {
                expected: asset.fingerprint(),
                found: s.asset,
            });
        }
        if !s.placement.is_valid() {
            return bad("placement is not finite".into());
        }
        let budget = Budget::new(&asset, s.budget.clone())
            .map_err(|e| SnapshotError::Invalid(format!("budget: {e}")))?;
        s.lifecycle
            .validate()
            .map_err(|e| SnapshotError::Invalid(format!("lifecycle: {e}")))?;
        if s.health.len() != asset.bond_count() {
            return bad(format!(
                "{} health values for {} bonds",
                s.health.len(),
                asset.bond_count()
            ));
        }
        for (b, (&h, bond)) in s.health.iter().zip(asset.bonds().iter()).enumerate() {
            if !(h.is_finite() && h >= 0.0 && h <= bond.strength) {
                return bad(format!("bond {b} health {h} outside [0, strength]"));
            }
        }
        if s.ownership.len() != asset.chunk_count() {
            return bad(format!(
                "{} owners for {} chunks",
                s.ownership.len(),
                asset.chunk_count()
            ));
        }
        if !s.cluster_mass.is_empty() && s.cluster_mass.len() != s.clusters.len() {
            return bad(format!(
                "{} mass sums for {} clusters",
                s.cluster_mass.len(),
                s.clusters.len()
            ));
        }
        let mut live = Vec::with_capacity(s.clusters.len());
        let mut occupied = Vec::new();
        let mut owner_seen = vec![false; asset.chunk_count()];
        for (k, c) in s.clusters.iter().enumerate() {
            if c.nodes.is_empty() || c.nodes.windows(2).any(|w| w[0] >= w[1]) {
                return bad(format!("cluster {} nodes empty or not ascending", c.handle));
            }
            for n in &c.nodes {
                let i = n.0 as usize;
                if s.ownership.get(i) != Some(&c.handle) || owner_seen[i] {
                    return bad(format!(
                        "chunk {n} ownership disagrees with cluster {}",
                        c.handle
                    ));
                }
                owner_seen[i] = true;
            }
            match (c.slot, c.supported, c.representation) {
                (None, false, Representation::RenderOnlyDebris) => {}
                (None, true, Representation::Body | Representation::Proxy(_)) => {}
                (Some(slot), false, Representation::Body | Representation::Proxy(_)) => {
                    occupied.push(slot)
                }
                _ => {
                    return bad(format!(
                        "cluster {} representation/slot impossible",
                        c.handle
                    ));
                }
            }
            if !c.motion.pose.is_valid()
                || !c.motion.velocity.linear.is_finite()
                || !c.motion.velocity.angular.is_finite()
            {
                return bad(format!("cluster {} motion not finite", c.handle));
            }
            let part = cluster_part(
                &asset,
                Island {
                    nodes: crate::Members::from_slice(&c.nodes),
                    supported: c.supported,
                },
            )
            .map_err(|e| SnapshotError::Invalid(format!("cluster {}: {e}", c.handle)))?;
            let part = match s.cluster_mass.get(k) {
                Some(sums) => stored_mass(&asset, part, sums).ok_or_else(|| {
                    SnapshotError::Invalid(format!("cluster {} mass sums disagree", c.handle))
                })?,
                None => part,
            };
            live.push((
                c.handle,
                Cluster {
                    sums: part.sums,
                    nodes: part.nodes,
                    supported: c.supported,
                    mass: part.mass,
                    principal: part.principal,
                    motion: c.motion,
                    representation: c.representation,
                    slot: c.slot,
                    sleep: c.sleep,
                    withdrawn_at: c.withdrawn_at,
                },
            ));
        }
        if let Some(i) = s
            .ownership
            .iter()
            .zip(&owner_seen)
            .position(|(&h, &seen)| !seen && h != ClusterHandle::PLACEHOLDER)
        {
            return bad(format!(
                "chunk {i} is owned by a cluster that does not list it"
            ));
        }
        let clusters = ClusterSet::from_parts(&s.cluster_generations, live).ok_or_else(|| {
            SnapshotError::Invalid("cluster handles disagree with the arena".into())
        })?;
        let slots =
            SlotPool::from_parts(s.budget.body_slots, s.slot_generations.clone(), &occupied)
                .ok_or_else(|| {
                    SnapshotError::Invalid("body slots disagree with the pool".into())
                })?;
        let derived = support_set(&asset, &s.ownership, |h| {
            clusters.get(h).is_some_and(|c| c.supported)
        });
        if derived != s.support {
            return bad("support set disagrees with the supported clusters".into());
        }
        let mut order = None;
        for p in &s.pending {
            if p.event.validate().is_err()
                || p.candidates.iter().any(|c| {
                    c.bond.0 as usize >= asset.bond_count()
                        || !(c.distance.is_finite() && c.distance >= 0.0)
                })
                || p.impulse_chunk
                    .is_some_and(|c| c.0 as usize >= asset.chunk_count())
                || p.event
                    .spread_chunk()
                    .is_some_and(|c| c.0 as usize >= asset.chunk_count())
            {
                return bad(format!("pending event {} is invalid", p.event.id));
            }
            if order.is_some_and(|o| o >= p.admission_seq) || p.admission_seq >= s.next_admission {
                return bad("pending events out of admission order".into());
            }
            order = Some(p.admission_seq);
        }
        if s.receipt_window == Some(0) {
            return bad("receipt window of 0".into());
        }
        if s.receipt_horizons.windows(2).any(|w| w[0].0 >= w[1].0) {
            return bad("receipt horizons not strictly ascending by source".into());
        }
        let mut applied = ReceiptWindow::new(s.receipt_window.unwrap_or(DEFAULT_RECEIPT_WINDOW));
        for &(source, horizon) in &s.receipt_horizons {
            applied.expire_through(source, horizon);
        }
        // In id order, so every insert is a push at the back of its source's
        // window (a snapshot in another order would cost O(window) moves
        // per receipt; the order of the list carries no meaning).
        let mut receipts: Vec<&Receipt> = s.receipts.iter().collect();
        receipts.sort_by_key(|r| r.event.id);
        for r in receipts {
            let horizon = s
                .receipt_horizons
                .binary_search_by_key(&r.event.id.source(), |&(src, _)| src)
                .ok()
                .map(|i| s.receipt_horizons[i].1);
            if r.instance != s.instance
                || r.commit_seq > s.commit_seq
                || r.event.validate().is_err()
                || horizon.is_some_and(|h| r.event.id.sequence() <= h)
                || applied.get(r.event.id).is_some()
            {
                return bad(format!("receipt of event {} is invalid", r.event.id));
            }
            // Older snapshots kept every receipt: the lowest expire here.
            applied.insert(r.clone());
        }
        if s.pending.iter().any(|p| applied.get(p.event.id).is_some()) {
            return bad("an event is both pending and applied".into());
        }
        let pending_index: BTreeMap<_, _> = s
            .pending
            .iter()
            .map(|p| (p.event.id, p.admission_seq))
            .collect();
        if pending_index.len() != s.pending.len() {
            return bad("two pending events share an id".into());
        }
        let (node_count, bond_count) = (asset.graph().node_count(), asset.bonds().len());
        Ok(Instance {
            id: s.instance,
            asset,
            placement: s.placement,
            health: s.health.clone(),
            node_cluster: s.ownership.clone(),
            clusters,
            slots,
            budget,
            lifecycle: s.lifecycle,
            topology_version: s.topology_version,
            commit_seq: s.commit_seq,
            next_admission: s.next_admission,
            pending: s.pending.clone(),
            pending_index,
            applied,
            deferral: None,
            query_epoch: s.query_epoch,
            task_path_dirty: s.task_path_dirty,
            // Conservative: any chunk without an owner may hold intact bonds.
            recycled_bonds: s.ownership.contains(&ClusterHandle::PLACEHOLDER),
            scratch: SplitScratch::for_nodes(node_count),
            spread_scratch: crate::damage::SpreadScratch::default(),
            undo: Vec::new(),
            commit_scratch: crate::instance::CommitScratch::for_bonds(bond_count),
            pool: Default::default(),
        })
    }
}

fn support_set(
    asset: &Asset,
    ownership: &[ClusterHandle],
    supported: impl Fn(ClusterHandle) -> bool,
) -> Vec<ChunkIndex> {
    asset
        .chunks()
        .iter_enumerated()
        .filter(|(i, c)| c.support && ownership.get(i.0 as usize).is_some_and(|&h| supported(h)))
        .map(|(i, _)| i)
        .collect()
}

/// Relative tolerance between a snapshot's stored mass sums and an exact
/// re-sum of the cluster's chunks (mass and centre, scaled by the mass and
/// by the inertia's size): far above the drift the guard allows
/// (at most [`crate::mass::RESUM_EVERY_MAX`] subtractions of ≈ 2e-16 each), far below
/// any error that would matter.
const STORED_MASS_TOLERANCE: f64 = 1e-6;

/// The cluster `exact` (an exact re-sum) with the stored `sums` in force,
/// when they agree with the exact values to [`STORED_MASS_TOLERANCE`].
fn stored_mass(
    asset: &Asset,
    exact: crate::commit::SplitPart,
    sums: &MassSums,
) -> Option<crate::commit::SplitPart> {
    let reference = exact.sums.value(asset, &exact.nodes);
    let close = |a: f64, b: f64, scale: f64| (a - b).abs() <= STORED_MASS_TOLERANCE * scale;
    let size = reference
        .inertia
        .to_cols_array()
        .iter()
        .fold(0.0f64, |m, v| m.max(v.abs()));
    let length = (size / reference.mass).sqrt();
    let (c, c0) = (sums.center(), reference.center());
    let agree = close(sums.mass, reference.mass, reference.mass)
        && (0..3).all(|i| close(c[i], c0[i], length))
        && sums.mass.is_finite()
        && sums.resum_mass.is_finite()
        && sums.inertia.is_finite();
    if !agree {
        return None;
    }
    // Same derivation as a remainder with nothing subtracted.
    let holder = crate::cluster::Cluster {
        nodes: crate::Members::new(),
        supported: exact.supported,
        mass: exact.mass,
        principal: exact.principal,
        sums: crate::cluster::ClusterSums::Stored(Box::new(*sums)),
        motion: Default::default(),
        representation: exact.representation,
        slot: None,
        sleep: Default::default(),
        withdrawn_at: None,
    };
    let mut part = remainder_part(
        asset,
        &holder,
        std::iter::empty::<MassSums>(),
        exact.nodes,
        exact.supported,
        None,
    )
    .ok()?;
    part.kept = false;
    part.volume = exact.volume;
    part.critical = exact.critical;
    Some(part)
}
