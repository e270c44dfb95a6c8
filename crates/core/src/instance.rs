//! Per-instance destruction state (DESIGN §3.2): bond health, node → cluster
//! ownership, clusters, topology version, commit sequence, pending and
//! applied events, the rigid-body slot pool. Mutated only by admission (the
//! pending table), by a successful commit ([`Instance::commit`]), by a
//! recycle commit ([`Instance::finish_recycle`]) and by applying an
//! authoritative record ([`Instance::apply_record`]); planning works on a
//! candidate copy.

use crate::asset::Asset;
use crate::budget::{
    BodySlot, Budget, BudgetDesc, BudgetError, BudgetShortfall, Representation, SlotPool,
    SlotRequest, SlotScratch, assign_slots_into,
};
use crate::cluster::{Cluster, ClusterHandle, ClusterMotion, ClusterSet, ClusterSums};
use crate::commit::{CommitError, CommitPlan, PlannedEvent, PlannedImpulse, SplitPart, SplitPlan};
use crate::damage::{DamageCandidate, DamageEvent, EventId};
use crate::error::DamageError;
use crate::hash::StateHasher;
use crate::index::{BondIndex, ChunkIndex};
use crate::island::{
    Island, IslandScratch, Remainder, SplitScratch, find_departed, find_islands_in,
};
use crate::lifecycle::{LifecycleDesc, LifecycleError, SleepState};
use crate::mass::{MassProperties, MassSums, PrincipalAxes, principal_axes};
use crate::point_tree::frame_slack;
use crate::pose::Pose;
use crate::receipts::{ReceiptLookup, ReceiptWindow};
use crate::recovery::{ClusterRecord, CommitRecord, NodeSet};
use crate::velocity::Velocity;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Identity of a placed asset. Admission is keyed by (instance, event id).
#[derive(
    Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct InstanceId(pub u64);

impl std::fmt::Display for InstanceId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "instance {}", self.0)
    }
}

/// Everything needed to place an asset, besides the asset itself.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct InstanceDesc {
    /// Identity (admission key, replication routing, journal).
    pub id: InstanceId,
    /// Asset → world transform at placement.
    pub placement: Pose,
    /// Rigid-body budget and pending-queue capacity.
    pub budget: BudgetDesc,
    /// Sleep thresholds.
    pub lifecycle: LifecycleDesc,
}

/// Why an instance could not be created.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum InstanceError {
    /// The placement is not finite or its rotation not unit length.
    #[error("placement is not a finite rigid transform")]
    BadPose,
    /// A component has degenerate mass properties.
    #[error("degenerate cluster mass properties: {0}")]
    Mass(crate::MassError),
    /// The budget descriptor is invalid.
    #[error("invalid budget")]
    Budget(#[from] BudgetError),
    /// The lifecycle thresholds are invalid.
    #[error("invalid lifecycle thresholds")]
    Lifecycle(#[from] LifecycleError),
    /// The asset's free-standing critical components need more slots than the budget has.
    #[error("initial placement exceeds the budget: {0}")]
    OverBudget(BudgetShortfall),
}

/// An admitted event waiting for the next commit, with the geometry frozen at admission.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PendingEvent {
    /// The event as admitted.
    pub event: DamageEvent,
    /// Admission order (stable processing order).
    pub admission_seq: u64,
    /// Topology version at admission.
    pub topology_version: u64,
    /// Intact bonds within the event's reach (radius R or outer radius) at
    /// admission with frozen distances, by bond index.
    pub candidates: Vec<DamageCandidate>,
    /// Chunk nearest to the impact point at admission (receives the impulse).
    pub impulse_chunk: Option<ChunkIndex>,
}

/// Proof that an event was applied, returned again for a repeated id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Receipt {
    /// The instance the event was applied to.
    pub instance: InstanceId,
    /// The event as applied.
    pub event: DamageEvent,
    /// Commit sequence number of the commit that applied it.
    pub commit_seq: u64,
    /// Topology version published by that commit.
    pub topology_version: u64,
    /// Bonds this event broke, ascending.
    pub broken: Vec<BondIndex>,
}

/// Answer to [`Instance::admit`].
#[derive(Clone, Debug, PartialEq)]
pub enum Admission {
    /// Queued (or already queued with the same parameters); applies at the next commit.
    Pending {
        /// The event id.
        event: EventId,
        /// Its admission order.
        admission_seq: u64,
    },
    /// Queued behind a commit that the budget holds back: it applies once a
    /// rigid-body slot frees and a commit succeeds.
    Deferred {
        /// The event id.
        event: EventId,
        /// Its admission order.
        admission_seq: u64,
        /// Why the queue is held.
        shortfall: BudgetShortfall,
    },
    /// Already applied: the original receipt.
    Applied(Receipt),
    /// A duplicate whose receipt has expired: its sequence number is at or
    /// below its source's horizon in the receipt window
    /// ([`crate::receipts`]). Nothing changed. Also the answer to an event
    /// that first arrives after its source's window moved past it.
    Expired {
        /// The event id.
        event: EventId,
    },
}

/// The mutable state of one placed asset.
#[derive(Clone, Debug)]
pub struct Instance {
    pub(crate) id: InstanceId,
    pub(crate) asset: Arc<Asset>,
    pub(crate) placement: Pose,
    pub(crate) health: Vec<f32>,
    pub(crate) node_cluster: Vec<ClusterHandle>,
    pub(crate) clusters: ClusterSet,
    pub(crate) slots: SlotPool,
    pub(crate) budget: Budget,
    pub(crate) lifecycle: LifecycleDesc,
    pub(crate) topology_version: u64,
    pub(crate) commit_seq: u64,
    pub(crate) next_admission: u64,
    /// Ascending by admission order.
    pub(crate) pending: Vec<PendingEvent>,
    /// Admission order of every pending event, by id: finds a pending event
    /// in O(log n) (issue 12: no scan per admission or per committed event).
    pub(crate) pending_index: BTreeMap<EventId, u64>,
    pub(crate) applied: ReceiptWindow,
    pub(crate) deferral: Option<BudgetShortfall>,
    pub(crate) query_epoch: u64,
    pub(crate) task_path_dirty: bool,
    /// True once a cluster of two or more chunks was released without its
    /// chunks going to new clusters (recycling): its intact bonds then
    /// belong to no cluster, and admission must check each bond's owner.
    pub(crate) recycled_bonds: bool,
    pub(crate) scratch: SplitScratch,
    pub(crate) spread_scratch: crate::damage::SpreadScratch,
    /// Undo log of [`Instance::plan`], kept for its capacity.
    pub(crate) undo: Vec<(BondIndex, f32)>,
    /// Temporaries of planning and installing a commit, kept for their
    /// capacity (issue 12 item 3).
    pub(crate) commit_scratch: CommitScratch,
    /// Lists a commit hands out or keeps, recycled (issue 12 item 3).
    pub(crate) pool: crate::pool::CommitPool,
}

/// Buffers a commit reuses instead of allocating them afresh (issue 12
/// item 3): the internal temporaries of [`Instance::plan`] and of
/// installing a commit. They grow to the largest commit seen and never
/// shrink; none of them outlives the call that fills it, so none is part
/// of the instance's state (snapshots, hashes and clones start them empty).
#[derive(Clone, Debug, Default)]
pub(crate) struct CommitScratch {
    /// Each changed bond's health before the batch.
    before: Vec<(BondIndex, f32)>,
    /// Broken bonds by the cluster that held them.
    by_cluster: Vec<(ClusterHandle, BondIndex)>,
    /// Ends of one cluster's broken bonds (island search seeds).
    seeds: Vec<ChunkIndex>,
    /// Pieces found by the island search.
    pieces: Vec<Island>,
    /// Installing: the body slots the installed clusters take, in order.
    installed: Vec<BodySlot>,
    /// Ids of the events a commit applied, sorted.
    done: Vec<EventId>,
    /// The slot decision's buffers.
    slots: SlotScratch,
    /// A plan's event and split lists, and split part lists, emptied by
    /// the commit that consumed the plan.
    events: Vec<PlannedEvent>,
    splits: Vec<SplitPlan>,
    part_vecs: Vec<Vec<SplitPart>>,
    /// Handles the new clusters will get.
    peeked: Vec<ClusterHandle>,
    /// Installing: a chunk of each removed cluster of two or more chunks
    /// (to tell whether its bonds went to a new cluster or to none).
    orphans: Vec<ChunkIndex>,
    /// Admission's per-bond table for ordering many candidates.
    candidate_table: CandidateTable,
    /// Planning with impulses: the owner of each chunk that broke off.
    piece_owner: Vec<(ChunkIndex, ClusterHandle)>,
    /// A plan's impulse list, emptied by the commit that consumed the plan.
    impulses: Vec<PlannedImpulse>,
    /// Recording with impulses: each part's handle, position in the
    /// record's created list, split and place in its split.
    impulse_parts: Vec<(ClusterHandle, usize, usize, usize)>,
    /// Recording with impulses: the velocity change of each impulse on an
    /// existing cluster, with its place in the plan.
    impulse_changes: Vec<(ClusterHandle, usize, crate::Velocity)>,
}

impl CommitScratch {
    /// Scratch with admission's per-bond table already sized for
    /// `bond_count` bonds (see [`SplitScratch::for_nodes`]).
    pub(crate) fn for_bonds(bond_count: usize) -> Self {
        let mut s = Self::default();
        s.candidate_table.distance.resize(bond_count, 0.0);
        s.candidate_table.marked.resize(bond_count.div_ceil(64), 0);
        s
    }
}

/// A per-bond table that orders a blast's candidates by bond in
/// O(k + B/64) (k candidates, B bonds): each candidate is written at its
/// bond and marked in a bit set, and the set words are read back in order.
/// Kept between admissions (allocated once, at the asset's bond count), and
/// only the entries used are reset, so an admission neither allocates nor
/// clears O(B) memory (it used to allocate and fill a fresh table of B
/// floats: 380 KB, fresh pages, for each radial blast on a 32³ grid).
#[derive(Clone, Debug, Default)]
pub(crate) struct CandidateTable {
    distance: Vec<f32>,
    marked: Vec<u64>,
}

impl Instance {
    /// Places `asset` in the world at `placement` (asset → world), with every
    /// bond at full strength and at rest, as [`InstanceId`] 0 with an
    /// unlimited body budget ([`BudgetDesc::default`]). The initial clusters
    /// are the connected components of the full bond graph.
    ///
    /// # Errors
    /// [`CommitError::Mass`] when a component has degenerate mass properties
    /// (cannot happen for a validated asset), [`CommitError::BadPose`] for a
    /// non-finite placement.
    pub fn new(
        asset: Arc<Asset>,
        placement: Pose,
    ) -> Result<Self, CommitError<std::convert::Infallible>> {
        let desc = InstanceDesc {
            placement,
            ..InstanceDesc::default()
        };
        Self::with_desc(asset, desc).map_err(|e| match e {
            InstanceError::Mass(m) => CommitError::Mass(m),
            _ => CommitError::BadPose,
        })
    }

    /// Places `asset` as described by `desc`. Free-standing dynamic
    /// components get body slots by the budget rule of DESIGN §3.9.
    ///
    /// # Errors
    /// [`InstanceError`]; nothing is created on error.
    ///
    /// # Example
    /// ```
    /// use smithereens_core::{fixtures, Instance, InstanceDesc, InstanceId, BudgetDesc};
    /// use std::sync::Arc;
    /// let asset = Arc::new(fixtures::chain(3, &[(0, 1), (1, 2)], &[0]).unwrap());
    /// let desc = InstanceDesc {
    ///     id: InstanceId(7),
    ///     budget: BudgetDesc { body_slots: 4, ..BudgetDesc::default() },
    ///     ..InstanceDesc::default()
    /// };
    /// let inst = Instance::with_desc(asset, desc).unwrap();
    /// assert_eq!(inst.id(), InstanceId(7));
    /// assert_eq!(inst.cluster_count(), 1);
    /// ```
    pub fn with_desc(asset: Arc<Asset>, desc: InstanceDesc) -> Result<Self, InstanceError> {
        if !desc.placement.is_valid() {
            return Err(InstanceError::BadPose);
        }
        desc.lifecycle.validate()?;
        let budget = Budget::new(&asset, desc.budget)?;
        let health: Vec<f32> = asset.bonds().iter().map(|b| b.strength).collect();
        // Only support-level chunks are simulated; the others own no cluster.
        let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
        let mut scratch = IslandScratch::default();
        let mut islands = Vec::new();
        find_islands_in(&asset, &health, &nodes, true, &mut scratch, &mut islands);
        let mut parts = Vec::with_capacity(islands.len());
        for island in islands {
            let mut part = cluster_part(&asset, island).map_err(InstanceError::Mass)?;
            part.critical = budget.is_critical(&asset, &part.nodes);
            parts.push(part);
        }
        let mut slots = SlotPool::new(budget.desc.body_slots);
        assign_representations(
            &asset,
            &budget,
            &slots,
            &[],
            parts.as_mut_slice(),
            &mut SlotScratch::default(),
        )
        .map_err(InstanceError::OverBudget)?;
        let mut created = Vec::with_capacity(parts.len());
        for part in parts {
            if let Some(s) = part.slot {
                slots.occupy(s);
            }
            let pose = desc
                .placement
                .mul(&Pose::from_translation(part.mass.center));
            created.push(Cluster {
                sums: part.sums,
                nodes: part.nodes,
                supported: part.supported,
                mass: part.mass,
                principal: part.principal,
                motion: ClusterMotion {
                    pose,
                    velocity: Velocity::default(),
                },
                representation: part.representation,
                slot: part.slot,
                sleep: SleepState::default(),
                withdrawn_at: None,
            });
        }
        let mut clusters = ClusterSet::default();
        let handles = clusters.replace(&[], created);
        let mut node_cluster = vec![ClusterHandle::PLACEHOLDER; asset.chunk_count()];
        let (node_count, bond_count) = (asset.graph().node_count(), asset.bonds().len());
        for &h in &handles {
            if let Some(c) = clusters.get(h) {
                for n in &c.nodes {
                    node_cluster[n.0 as usize] = h;
                }
            }
        }
        Ok(Self {
            id: desc.id,
            asset,
            placement: desc.placement,
            health,
            node_cluster,
            clusters,
            slots,
            budget,
            lifecycle: desc.lifecycle,
            topology_version: 0,
            commit_seq: 0,
            next_admission: 0,
            pending: Vec::new(),
            pending_index: BTreeMap::new(),
            applied: ReceiptWindow::default(),
            deferral: None,
            query_epoch: 0,
            task_path_dirty: false,
            recycled_bonds: false,
            scratch: SplitScratch::for_nodes(node_count),
            spread_scratch: crate::damage::SpreadScratch::default(),
            undo: Vec::new(),
            commit_scratch: CommitScratch::for_bonds(bond_count),
            pool: crate::pool::CommitPool::default(),
        })
    }

    /// The descriptor this instance was created with (its budget reflects the
    /// current task path). Creating a new instance from it and the same asset
    /// gives the initial state of this one.
    pub fn desc(&self) -> InstanceDesc {
        InstanceDesc {
            id: self.id,
            placement: self.placement,
            budget: self.budget.desc.clone(),
            lifecycle: self.lifecycle,
        }
    }

    /// Asset → world transform the instance was placed at (m); its fixed
    /// chunks stay there.
    pub fn placement(&self) -> Pose {
        self.placement
    }

    /// Identity of this instance.
    pub fn id(&self) -> InstanceId {
        self.id
    }
    /// The shared asset.
    pub fn asset(&self) -> &Arc<Asset> {
        &self.asset
    }
    /// The budget in force.
    pub fn budget(&self) -> &BudgetDesc {
        &self.budget.desc
    }
    /// The sleep thresholds in force.
    pub fn lifecycle(&self) -> &LifecycleDesc {
        &self.lifecycle
    }
    /// Current health of every bond, du, indexed by bond.
    pub fn health(&self) -> &[f32] {
        &self.health
    }
    /// Health of one bond, `None` when out of range.
    pub fn bond_health(&self, b: BondIndex) -> Option<f32> {
        self.health.get(b.0 as usize).copied()
    }
    /// True when the bond's health is zero.
    pub fn is_broken(&self, b: BondIndex) -> bool {
        self.bond_health(b).is_some_and(|h| h <= 0.0)
    }
    /// Number of broken bonds.
    pub fn broken_count(&self) -> usize {
        self.health.iter().filter(|&&h| h <= 0.0).count()
    }
    /// The cluster that owns `chunk`; `None` out of range or once its cluster was recycled.
    pub fn cluster_of(&self, chunk: ChunkIndex) -> Option<ClusterHandle> {
        self.node_cluster
            .get(chunk.0 as usize)
            .copied()
            .filter(|&h| h != ClusterHandle::PLACEHOLDER)
    }
    /// A cluster by handle; `None` when stale.
    pub fn cluster(&self, h: ClusterHandle) -> Option<&Cluster> {
        self.clusters.get(h)
    }
    /// All live clusters in handle order.
    pub fn clusters(&self) -> impl Iterator<Item = (ClusterHandle, &Cluster)> + '_ {
        self.clusters.iter()
    }
    /// Number of live clusters.
    pub fn cluster_count(&self) -> usize {
        self.clusters.len()
    }
    /// Body slots in use.
    pub fn slots_in_use(&self) -> u32 {
        self.slots.used()
    }
    /// Topology version: advances on every commit that changes clusters.
    pub fn topology_version(&self) -> u64 {
        self.topology_version
    }
    /// Commit sequence: advances on every commit, with or without a break.
    pub fn commit_seq(&self) -> u64 {
        self.commit_seq
    }
    /// Events admitted and not yet committed, in processing order.
    pub fn pending(&self) -> &[PendingEvent] {
        &self.pending
    }
    /// The receipt of an applied event while it is in the receipt window
    /// ([`crate::receipts`]); `None` once expired or never applied.
    pub fn receipt(&self, id: EventId) -> Option<&Receipt> {
        self.applied.get(id)
    }
    /// Every receipt in the window, by event id.
    pub fn receipts(&self) -> impl Iterator<Item = &Receipt> + '_ {
        self.applied.iter()
    }
    /// The deduplication state of applied events: receipts in a bounded
    /// window per source plus each source's horizon.
    pub fn receipt_window(&self) -> &ReceiptWindow {
        &self.applied
    }
    /// Changes how many receipts are kept per source (at least 1, default
    /// [`crate::receipts::DEFAULT_RECEIPT_WINDOW`]); a smaller window
    /// expires the lowest sequences at once. Kept in snapshots.
    pub fn set_receipt_window(&mut self, window: u32) {
        self.applied.set_window(window);
    }
    /// Why the pending queue is held back, if the last commit attempt was deferred.
    pub fn deferral(&self) -> Option<BudgetShortfall> {
        self.deferral
    }

    /// Replaces the task path: chunks whose components count as
    /// gameplay-critical at the next commit. The change travels in the next
    /// commit record.
    ///
    /// # Errors
    /// [`BudgetError::ChunkOutOfRange`]; nothing changes on error.
    pub fn set_task_path(&mut self, chunks: &[ChunkIndex]) -> Result<(), BudgetError> {
        self.budget.set_task_path(&self.asset, chunks)?;
        self.task_path_dirty = true;
        Ok(())
    }

    pub(crate) fn take_task_path_change(&mut self) -> Option<Vec<ChunkIndex>> {
        std::mem::take(&mut self.task_path_dirty).then(|| {
            self.budget
                .desc
                .task_path
                .iter()
                .map(|&c| ChunkIndex(c))
                .collect()
        })
    }

    /// Records the current physical motion of a cluster (called by the
    /// backend after each step for moving clusters). A speed above the sleep
    /// thresholds wakes the cluster.
    ///
    /// # Errors
    /// [`CommitError::StaleCluster`] for an unknown handle, [`CommitError::BadPose`]
    /// for non-finite values. Nothing changes on error.
    pub fn set_motion<E>(
        &mut self,
        h: ClusterHandle,
        motion: ClusterMotion,
    ) -> Result<(), CommitError<E>> {
        if !motion.pose.is_valid()
            || !motion.velocity.linear.is_finite()
            || !motion.velocity.angular.is_finite()
        {
            return Err(CommitError::BadPose);
        }
        let desc = self.lifecycle;
        // A pose equal bit for bit to the current one (a resting piece synced
        // again) moves nothing the loose index files.
        let same_place = self
            .clusters
            .get(h)
            .ok_or(CommitError::StaleCluster(h))?
            .motion
            .pose
            .same_bits(&motion.pose);
        let c = if same_place {
            self.clusters.get_mut_in_place(h)
        } else {
            self.clusters.get_mut(h)
        }
        .ok_or(CommitError::StaleCluster(h))?;
        c.motion = motion;
        if motion.velocity.linear.length() >= desc.sleep_linear_speed
            || motion.velocity.angular.length() >= desc.sleep_angular_speed
        {
            c.sleep = SleepState::default();
        }
        Ok(())
    }

    /// Admits a damage event (DESIGN §3.3, §3.8) — a [`crate::RadialDamage`]
    /// (renormalised budget) or a [`crate::FalloffDamage`] (per-bond
    /// falloff, explosions), or a [`DamageEvent`] — validates it, and freezes
    /// the topology version, the candidate bonds within its reach (`d < R`,
    /// or `d < r_out`) and their distances, measured from each bond centroid
    /// carried into its cluster's current world frame. Clusters outside authoritative queries
    /// (render-only debris, clusters withdrawn for recycling) are not measured.
    ///
    /// Idempotent by event id: the same id with the same parameters returns
    /// the original pending answer (or "deferred" while the budget holds the
    /// queue) or the original receipt; with different parameters it is
    /// rejected. An id whose receipt has left the receipt window is answered
    /// [`Admission::Expired`] (parameters cannot be compared any more) and
    /// changes nothing. O(log n) in the pending and applied events.
    ///
    /// # Errors
    /// Any [`DamageError`]: [`DamageError::ConflictingEvent`] for a reused id,
    /// [`DamageError::QueueFull`] when the pending queue is at capacity
    /// (back-pressure), parameter errors. A rejected event changes nothing.
    pub fn admit(&mut self, event: impl Into<DamageEvent>) -> Result<Admission, DamageError> {
        let event: DamageEvent = event.into();
        event.validate()?;
        if let Some(answer) = self.existing_answer(&event)? {
            return Ok(answer);
        }
        self.check_references(&event)?;
        self.check_capacity()?;
        if event.is_listed_or_spread() {
            // Spreads through the graph, or lists its bonds, when applied:
            // no geometry to freeze.
            let impulse_chunk = event.spread_chunk().filter(|_| event.impulse.is_some());
            return Ok(self.push_pending(PendingEvent {
                event,
                admission_seq: 0,
                topology_version: self.topology_version,
                candidates: Vec::new(),
                impulse_chunk,
            }));
        }
        let list = self.pool.candidates.take();
        if event.impulse.is_some() {
            self.clusters.catch_up_loose(&self.asset);
        }
        let mut table = std::mem::take(&mut self.commit_scratch.candidate_table);
        let (candidates, impulse_chunk) = self.measure(&event, list, &mut table);
        self.commit_scratch.candidate_table = table;
        Ok(self.push_pending(PendingEvent {
            event,
            admission_seq: 0,
            topology_version: self.topology_version,
            candidates,
            impulse_chunk,
        }))
    }

    /// [`Self::admit`] for a caller that measured against topology version
    /// `expected` (e.g. a client or an async producer): rejected when the
    /// instance has moved on.
    ///
    /// # Errors
    /// [`DamageError::StaleTopology`] when `expected` is not the current
    /// version, otherwise as [`Self::admit`]. Nothing changes on error.
    pub fn admit_at(
        &mut self,
        event: impl Into<DamageEvent>,
        expected: u64,
    ) -> Result<Admission, DamageError> {
        if expected != self.topology_version {
            return Err(DamageError::StaleTopology {
                expected,
                found: self.topology_version,
            });
        }
        self.admit(event)
    }

    /// Admits an event whose geometry was frozen elsewhere (a replayed or
    /// journaled [`PendingEvent`]): the recorded candidates and distances are
    /// used as they are, never re-measured. The admission order is this
    /// instance's.
    ///
    /// # Errors
    /// As [`Self::admit`], plus [`DamageError::BadCandidate`] for a bond or
    /// chunk out of range or a distance that is negative or not finite.
    pub fn admit_frozen(&mut self, pending: PendingEvent) -> Result<Admission, DamageError> {
        self.validate_frozen(&pending)?;
        if let Some(answer) = self.existing_answer(&pending.event)? {
            return Ok(answer);
        }
        self.check_capacity()?;
        Ok(self.push_pending(pending))
    }

    /// Puts back a journaled pending event (recovery) keeping its original
    /// admission order number: it is inserted among the pending events by
    /// that number, and later admissions are numbered after it.
    ///
    /// # Errors
    /// As [`Self::admit_frozen`], plus [`DamageError::DuplicateAdmission`]
    /// when another pending event has the same admission number.
    pub fn restore_pending(&mut self, pending: PendingEvent) -> Result<Admission, DamageError> {
        self.validate_frozen(&pending)?;
        if let Some(answer) = self.existing_answer(&pending.event)? {
            return Ok(answer);
        }
        self.check_capacity()?;
        let seq = pending.admission_seq;
        let pos = self.pending.partition_point(|p| p.admission_seq < seq);
        if self
            .pending
            .get(pos)
            .is_some_and(|p| p.admission_seq == seq)
        {
            return Err(DamageError::DuplicateAdmission(seq));
        }
        let answer = self.pending_answer(pending.event.id, seq);
        self.pending_index.insert(pending.event.id, seq);
        self.pending.insert(pos, pending);
        self.next_admission = self.next_admission.max(seq.saturating_add(1));
        Ok(answer)
    }

    /// Takes every pending event out of the queue, in admission order, and
    /// clears a budget deferral: the instance is as if they had never been
    /// admitted (their ids may be admitted again). Used to set aside events
    /// whose commit keeps failing (quarantine); put them back with
    /// [`Self::admit_frozen`], which keeps their frozen geometry.
    pub fn withdraw_pending(&mut self) -> Vec<PendingEvent> {
        self.deferral = None;
        self.pending_index.clear();
        std::mem::take(&mut self.pending)
    }

    /// Position in `pending` of the pending event `id`, O(log n).
    fn pending_position(&self, id: EventId) -> Option<usize> {
        let seq = *self.pending_index.get(&id)?;
        let pos = self
            .pending
            .binary_search_by_key(&seq, |p| p.admission_seq)
            .ok()?;
        debug_assert_eq!(self.pending[pos].event.id, id, "pending index out of sync");
        Some(pos)
    }

    /// The chunk of a spreading event and the bonds of a stress event must
    /// be the asset's.
    fn check_references(&self, event: &DamageEvent) -> Result<(), DamageError> {
        if let Some(c) = event.spread_chunk()
            && c.0 as usize >= self.asset.chunk_count()
        {
            return Err(DamageError::UnknownChunk(c.0));
        }
        if let Some(b) = event
            .stress_bonds()
            .and_then(|bonds| bonds.last())
            .filter(|b| b.bond.0 as usize >= self.health.len())
        {
            return Err(DamageError::UnknownBond(b.bond.0));
        }
        Ok(())
    }

    fn validate_frozen(&self, pending: &PendingEvent) -> Result<(), DamageError> {
        pending.event.validate()?;
        self.check_references(&pending.event)?;
        for c in &pending.candidates {
            if c.bond.0 as usize >= self.health.len()
                || !(c.distance.is_finite() && c.distance >= 0.0)
            {
                return Err(DamageError::BadCandidate(c.bond.0));
            }
        }
        if pending
            .impulse_chunk
            .is_some_and(|c| c.0 as usize >= self.asset.chunk_count())
        {
            return Err(DamageError::BadCandidate(u32::MAX));
        }
        Ok(())
    }

    /// The bonds `event` reaches (intact, in a queryable cluster, closer to
    /// its point than its reach, measured in the bond's own cluster's world
    /// frame; ascending by bond) and, for an event with an impulse, the
    /// support-level chunk nearest its point (ties to the lowest index).
    ///
    /// Each queryable cluster that can hold the answer is asked through the
    /// asset's bounding-volume hierarchies in its own frame, so the cost is
    /// O(clusters × log B + k) rather than a scan of every bond and chunk;
    /// single-chunk clusters hold no intact bond and are skipped for the
    /// bond query. Every hit is re-measured exactly as a scan would measure
    /// it, so the answer is bit-identical to a scan.
    fn measure(
        &self,
        event: &DamageEvent,
        mut candidates: Vec<DamageCandidate>,
        table: &mut CandidateTable,
    ) -> (Vec<DamageCandidate>, Option<ChunkIndex>) {
        let reach = event.reach();
        let bonds = self.asset.bonds();
        let chunks = self.asset.chunks();
        candidates.clear();
        let mut nearest: Option<(f32, u32)> = None;
        // Only clusters with bonds hold candidates: O(those), not O(every
        // loose chunk). An impulse also looks for the nearest chunk of any
        // cluster: of those with bonds while visiting them, then of the
        // one-chunk clusters through the loose index (O(the debris near the
        // point), see `ClusterSet::nearest_loose`). The order of the visit
        // does not matter: candidates are sorted by bond below, and the
        // nearest chunk is chosen by (distance, index).
        // An intact bond belongs to the cluster holding its chunks, or to
        // none once its cluster was recycled. With one cluster holding bonds
        // and none recycled, every intact bond is that cluster's: no owner
        // lookup per bond.
        let sole = self.clusters.bonded_len() == 1 && !self.recycled_bonds;
        let queryable = |cluster: &Cluster| {
            cluster.representation.is_authoritative() && cluster.withdrawn_at.is_none()
        };
        let owned =
            |h: ClusterHandle, c: ChunkIndex| self.node_cluster.get(c.0 as usize) == Some(&h);
        let mut visit = |h: ClusterHandle, cluster: &Cluster| {
            if !queryable(cluster) {
                return;
            }
            let frame = cluster.asset_to_world();
            // The event in the cluster's frame, for the hierarchies.
            let local = frame.inverse().transform_point(event.point);
            let slack = frame_slack(
                event.point.abs().max_element(),
                local.abs().max_element(),
                reach,
            );
            self.asset
                .bond_tree()
                .for_each_within(local, reach + slack, |b, centroid| {
                    if self.health[b as usize] <= 0.0
                        || !(sole || owned(h, bonds[BondIndex(b)].chunk0))
                    {
                        return;
                    }
                    let d = frame.transform_point(centroid).distance(event.point);
                    if d < reach {
                        candidates.push(DamageCandidate {
                            bond: BondIndex(b),
                            distance: d,
                        });
                    }
                });
            if event.impulse.is_some() {
                let measure = |c: u32| {
                    let chunk = ChunkIndex(c);
                    owned(h, chunk).then(|| {
                        frame
                            .transform_point(chunks[chunk].centroid)
                            .distance(event.point)
                    })
                };
                let best = if cluster.nodes.len() > 8 {
                    self.asset.chunk_tree().nearest(local, slack, measure)
                } else {
                    cluster
                        .nodes
                        .iter()
                        .filter_map(|&c| measure(c.0).map(|d| (d, c.0)))
                        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
                };
                if let Some(found) = best
                    && crate::point_tree::closer(found, nearest)
                {
                    nearest = Some(found);
                }
            }
        };
        self.clusters.iter_bonded().for_each(|(h, c)| visit(h, c));
        if event.impulse.is_some() {
            // Measured directly: a one-chunk cluster needs none of the
            // hierarchies' frame.
            nearest = self
                .clusters
                .nearest_loose(event.point, nearest, |h, cluster| {
                    let &only = cluster.nodes.first()?;
                    (queryable(cluster) && owned(h, only)).then(|| {
                        let d = cluster
                            .asset_to_world()
                            .transform_point(chunks[only].centroid)
                            .distance(event.point);
                        (d, only.0)
                    })
                });
        }
        sort_by_bond(&mut candidates, bonds.len(), table);
        (candidates, nearest.map(|(_, c)| ChunkIndex(c)))
    }

    fn existing_answer(&self, event: &DamageEvent) -> Result<Option<Admission>, DamageError> {
        let expired = match self.applied.lookup(event.id) {
            ReceiptLookup::Recent(r) => {
                return if r.event.same_parameters(event) {
                    Ok(Some(Admission::Applied(r.clone())))
                } else {
                    Err(DamageError::ConflictingEvent(event.id.0))
                };
            }
            ReceiptLookup::Expired => true,
            ReceiptLookup::Unknown => false,
        };
        if let Some(p) = self.pending_position(event.id).map(|i| &self.pending[i]) {
            return if p.event.same_parameters(event) {
                Ok(Some(self.pending_answer(event.id, p.admission_seq)))
            } else {
                Err(DamageError::ConflictingEvent(event.id.0))
            };
        }
        Ok(expired.then_some(Admission::Expired { event: event.id }))
    }

    fn check_capacity(&self) -> Result<(), DamageError> {
        let capacity = self.budget.desc.queue_capacity;
        if self.pending.len() >= capacity as usize {
            return Err(DamageError::QueueFull { capacity });
        }
        Ok(())
    }

    fn push_pending(&mut self, mut pending: PendingEvent) -> Admission {
        pending.admission_seq = self.next_admission;
        self.next_admission += 1;
        let answer = self.pending_answer(pending.event.id, pending.admission_seq);
        self.pending_index
            .insert(pending.event.id, pending.admission_seq);
        self.pending.push(pending);
        answer
    }

    fn pending_answer(&self, event: EventId, admission_seq: u64) -> Admission {
        match self.deferral {
            Some(shortfall) => Admission::Deferred {
                event,
                admission_seq,
                shortfall,
            },
            None => Admission::Pending {
                event,
                admission_seq,
            },
        }
    }

    /// Plans the next commit: applies every pending event in admission order,
    /// finds what broke off each cluster that lost a bond, computes the new
    /// clusters' mass properties and decides each new cluster's
    /// representation and body slot by the budget. The events are applied to
    /// the health in place with an undo log that is played back before this
    /// returns (no copy of every bond's health per commit, issue 12), so
    /// `self` is unchanged afterwards and published queries keep reading the
    /// current version.
    ///
    /// # Errors
    /// [`CommitError::Mass`] when a new cluster has degenerate mass
    /// properties, [`CommitError::Deferred`] when its critical components
    /// need more body slots than are free.
    pub fn plan<E>(&mut self) -> Result<CommitPlan, CommitError<E>> {
        let mut undo = std::mem::take(&mut self.undo);
        undo.clear();
        let mut scratch = std::mem::take(&mut self.commit_scratch);
        let plan = self.plan_in_place(&mut undo, &mut scratch);
        for &(b, h) in undo.iter().rev() {
            self.health[b.0 as usize] = h;
        }
        self.undo = undo;
        self.commit_scratch = scratch;
        plan
    }

    /// [`Self::plan`] on `self.health` changed in place; every change is in
    /// `undo` (bond, health before) for the caller to play back.
    fn plan_in_place<E>(
        &mut self,
        undo: &mut Vec<(BondIndex, f32)>,
        cs: &mut CommitScratch,
    ) -> Result<CommitPlan, CommitError<E>> {
        let mut events = std::mem::take(&mut cs.events);
        events.clear();
        events.reserve(self.pending.len());
        let mut all_broken = self.pool.bonds.take();
        for p in &self.pending {
            let mut broken = self.pool.bonds.take();
            let applied = p.event.apply(
                self.asset.graph(),
                &mut self.health,
                &p.candidates,
                &mut self.spread_scratch,
                &mut broken,
                undo,
            );
            broken.sort_unstable();
            all_broken.extend_from_slice(&broken);
            events.push(PlannedEvent {
                id: p.event.id,
                broken,
                damage_removed: applied.removed,
                damage_unspent: applied.unspent,
            });
        }
        all_broken.sort_unstable();
        // Each changed bond's health before the batch: its first undo entry.
        let before = &mut cs.before;
        before.clear();
        before.extend_from_slice(undo);
        before.sort_by_key(|&(b, _)| b);
        before.dedup_by_key(|&mut (b, _)| b);
        let health = &self.health;
        let mut health_changes = self.pool.health.take();
        health_changes.extend(before.iter().filter_map(|&(b, old)| {
            let new = *health.get(b.0 as usize)?;
            (new.to_bits() != old.to_bits()).then_some((b, new))
        }));
        // Broken bonds grouped by the cluster that held them: intact bonds
        // never cross clusters, so a bond's first chunk names its cluster.
        let by_cluster = &mut cs.by_cluster;
        by_cluster.clear();
        by_cluster.extend(all_broken.iter().map(|&b| {
            (
                self.node_cluster[self.asset.bonds()[b].chunk0.0 as usize],
                b,
            )
        }));
        by_cluster.sort_unstable();
        let mut splits = std::mem::take(&mut cs.splits);
        splits.clear();
        let pieces = &mut cs.pieces;
        let seeds = &mut cs.seeds;
        let mut rest = 0;
        while rest < by_cluster.len() {
            let h = by_cluster[rest].0;
            let end = rest + by_cluster[rest..].partition_point(|&(c, _)| c == h);
            seeds.clear();
            let mut world_broken = false;
            for &(_, b) in &by_cluster[rest..end] {
                let bond = &self.asset.bonds()[b];
                match bond.chunk1 {
                    Some(other) => seeds.extend([bond.chunk0, other]),
                    None => world_broken = true,
                }
            }
            rest = end;
            let Some(cluster) = self.clusters.get(h) else {
                continue;
            };
            let split = plan_split(
                &self.asset,
                &self.budget,
                HealthBatch {
                    after: &self.health,
                    before: before.as_slice(),
                },
                (h, cluster),
                seeds.as_slice(),
                world_broken,
                &mut self.scratch,
                pieces,
                &mut cs.part_vecs,
                &mut self.pool.sums,
            )
            .map_err(CommitError::Mass)?;
            splits.extend(split);
        }
        let released: Vec<BodySlot> = splits
            .iter()
            .filter_map(|s| self.clusters.get(s.old).and_then(|c| c.slot))
            .collect();
        assign_representations(
            &self.asset,
            &self.budget,
            &self.slots,
            &released,
            splits.as_mut_slice(),
            &mut cs.slots,
        )
        .map_err(CommitError::Deferred)?;
        // Every split keeps its remainder under the old handle; only the
        // pieces that broke off get new handles.
        let freed: Vec<ClusterHandle> = Vec::new();
        let part_count = splits
            .iter()
            .flat_map(|s| s.parts.iter())
            .filter(|p| !p.kept)
            .count();
        self.clusters
            .peek_allocations_into(&freed, part_count, &mut cs.peeked);
        let mut next = cs.peeked.iter().copied();
        for s in &mut splits {
            for part in s.parts.iter_mut().filter(|p| !p.kept) {
                part.handle = next.next().unwrap_or(part.handle);
            }
        }
        // Owners of the chunks that broke off, sorted: a remainder keeps its
        // handle, so its chunks' owner is already `cluster_of`. O(k log k)
        // over the departed chunks, not a scan of every part per impulse.
        let mut piece_owner = std::mem::take(&mut cs.piece_owner);
        piece_owner.clear();
        if self.pending.iter().any(|p| p.event.impulse.is_some()) {
            piece_owner.extend(
                splits
                    .iter()
                    .flat_map(|s| s.parts.iter())
                    .filter(|p| !p.kept)
                    .flat_map(|p| p.nodes.iter().map(move |&n| (n, p.handle))),
            );
            piece_owner.sort_unstable();
        }
        let new_owner = |chunk: ChunkIndex| {
            piece_owner
                .binary_search_by_key(&chunk, |&(n, _)| n)
                .ok()
                .map(|i| piece_owner[i].1)
        };
        let mut impulses = std::mem::take(&mut cs.impulses);
        impulses.clear();
        impulses.extend(self.pending.iter().filter_map(|p| {
            let (j, chunk) = (p.event.impulse?, p.impulse_chunk?);
            let target = match new_owner(chunk) {
                Some(h) => h,
                // A chunk whose cluster was recycled receives nothing.
                None => self.cluster_of(chunk).filter(|h| !freed.contains(h))?,
            };
            Some(PlannedImpulse {
                event: p.event.id,
                point: p.event.point,
                impulse: j,
                chunk,
                target,
            })
        }));
        cs.piece_owner = piece_owner;
        Ok(CommitPlan {
            base_version: self.topology_version,
            commit_seq: self.commit_seq + 1,
            events,
            health_changes,
            broken: all_broken,
            splits,
            impulses,
        })
    }

    /// Turns a planned commit whose physics side has been swapped into its
    /// record, and hands back the plan's splits, whose parts (in record
    /// order) become the new clusters: [`Self::install_parts`] moves each
    /// part straight into its cluster slot, so a split into 32,000 pieces
    /// does not copy 32,000 clusters through intermediate lists (issue 12).
    /// `motions[k]` is the motion of the k-th new cluster in plan order
    /// (splits, then parts), without impulses; impulses are added here,
    /// exactly once, to the recorded motion.
    pub(crate) fn record_from_plan(
        &mut self,
        plan: CommitPlan,
        motions: Vec<ClusterMotion>,
    ) -> (CommitRecord, Vec<SplitPlan>, Vec<PendingEvent>) {
        let topology_version = if plan.splits.is_empty() {
            self.topology_version
        } else {
            self.topology_version + 1
        };
        // A split whose remainder keeps the old handle removes nothing.
        let mut removed = self.pool.handles.take();
        removed.extend(
            plan.splits
                .iter()
                .filter(|s| !s.parts.iter().any(|p| p.kept))
                .map(|s| s.old),
        );
        // Each created cluster by handle (its position in `created`, its
        // split and place there), for the impulses only.
        let mut index = std::mem::take(&mut self.commit_scratch.impulse_parts);
        index.clear();
        let with_impulses = !plan.impulses.is_empty();
        let mut created = self.pool.clusters.take();
        created.reserve(plan.new_cluster_count());
        let mut next_motion = 0;
        for (si, s) in plan.splits.iter().enumerate() {
            for (pi, p) in s.parts.iter().enumerate() {
                if with_impulses {
                    index.push((p.handle, created.len(), si, pi));
                }
                // The remainder is written as "the rest of itself", so that
                // chipping a chunk off a big wall does not rewrite the wall's
                // member list.
                created.push(ClusterRecord {
                    handle: p.handle,
                    nodes: if p.kept {
                        NodeSet::RestOf(s.old)
                    } else {
                        NodeSet::List(p.nodes.clone())
                    },
                    supported: p.supported,
                    representation: p.representation,
                    slot: p.slot,
                    motion: motions.get(next_motion).copied().unwrap_or_default(),
                });
                next_motion += 1;
            }
        }
        // Impulses enter the recorded motion exactly once, keyed by their
        // event (which leaves the pending table with this commit). The physics
        // backend applied the same change to its bodies in `CommitBackend::commit`.
        // A cluster without hulls is held at rest by the backend (nothing to
        // collide with, see `assign_representations`) and takes no impulse.
        // Velocity changes of existing clusters, in plan order, then summed
        // per cluster in that order onto its motion (by handle, into a
        // pooled list): O(k log k) for k impulses, nothing to allocate.
        let mut changes = std::mem::take(&mut self.commit_scratch.impulse_changes);
        changes.clear();
        let mut staged = self.pool.staged.take();
        if with_impulses {
            index.sort_unstable();
            for imp in &plan.impulses {
                if let Ok(i) = index.binary_search_by_key(&imp.target, |&(h, ..)| h) {
                    let (_, k, si, pi) = index[i];
                    let (p, rc) = (&plan.splits[si].parts[pi], &mut created[k]);
                    if part_moves(&self.asset, p.supported, p.representation, &p.nodes) {
                        let dv = crate::commit::impulse_change(&p.mass, &rc.motion, imp);
                        rc.motion.velocity.linear += dv.linear;
                        rc.motion.velocity.angular += dv.angular;
                    }
                } else if let Some(c) = self
                    .clusters
                    .get(imp.target)
                    .filter(|c| moves(&self.asset, c))
                {
                    // The change depends on the pose alone, which impulses
                    // do not move.
                    let dv = crate::commit::impulse_change(&c.mass, &c.motion, imp);
                    changes.push((imp.target, changes.len(), dv));
                }
            }
        }
        changes.sort_unstable_by_key(|&(h, k, _)| (h, k));
        for &(h, _, dv) in changes.iter() {
            if staged.last().is_none_or(|&(last, _)| last != h) {
                let Some(c) = self.clusters.get(h) else {
                    continue; // checked above: every target exists
                };
                staged.push((h, c.motion));
            }
            if let Some((_, m)) = staged.last_mut() {
                m.velocity.linear += dv.linear;
                m.velocity.angular += dv.angular;
            }
        }
        self.commit_scratch.impulse_changes = changes;
        self.pool.motions.give(motions);
        let mut receipts = self.pool.receipts.take();
        receipts.reserve(plan.events.len());
        let mut applied = self.pool.pending.take();
        applied.reserve(plan.events.len());
        let mut events = plan.events;
        for e in events.drain(..) {
            let Some(p) = self.pending_position(e.id).map(|i| &mut self.pending[i]) else {
                self.pool.bonds.give(e.broken);
                continue;
            };
            // The event leaves the queue in `install_parts`, right after this
            // (nothing can fail in between): its candidates move, no copy
            // (10,000 for a radial blast at N = 32, 95,000 for split-all).
            applied.push(PendingEvent {
                event: p.event.clone(),
                admission_seq: p.admission_seq,
                topology_version: p.topology_version,
                candidates: std::mem::take(&mut p.candidates),
                impulse_chunk: p.impulse_chunk,
            });
            receipts.push(Receipt {
                instance: self.id,
                event: p.event.clone(),
                commit_seq: plan.commit_seq,
                topology_version,
                broken: e.broken,
            });
        }
        let record = CommitRecord {
            instance: self.id,
            asset: self.asset.fingerprint(),
            commit_seq: plan.commit_seq,
            base_topology_version: plan.base_version,
            topology_version,
            health: plan.health_changes,
            removed,
            created,
            motions: staged,
            receipts,
            task_path: self.take_task_path_change(),
            next_admission: self.next_admission,
        };
        // The emptied event and impulse lists serve the next plan.
        self.commit_scratch.events = events;
        self.commit_scratch.impulse_parts = index;
        self.commit_scratch.impulses = plan.impulses;
        (record, plan.splits, applied)
    }

    /// The lists of a plan that will not be committed, for the next plan:
    /// `events` (emptied), the splits with their parts (each part's mass
    /// sums box goes back to the pool, a remainder's member list to the
    /// island scratch, which lent it) and the impulse list.
    pub(crate) fn keep_plan_lists(
        &mut self,
        events: Vec<PlannedEvent>,
        mut splits: Vec<SplitPlan>,
        mut impulses: Vec<PlannedImpulse>,
    ) {
        for s in splits.drain(..) {
            let mut parts = s.parts;
            for p in parts.drain(..) {
                self.pool.give_sums(p.sums.into_box());
                if p.kept {
                    self.scratch.keep_spare_nodes(p.nodes);
                }
            }
            self.commit_scratch.part_vecs.push(parts);
        }
        impulses.clear();
        self.commit_scratch.events = events;
        self.commit_scratch.splits = splits;
        self.commit_scratch.impulses = impulses;
    }

    /// Installs this instance's own planned commit: `record` from
    /// [`Self::record_from_plan`] and the plan's `splits` it returned, whose
    /// parts become the clusters of `record.created` in order. The emptied
    /// split and part lists serve the next plan.
    pub(crate) fn install_parts(&mut self, record: &CommitRecord, mut splits: Vec<SplitPlan>) {
        let mut part_vecs = std::mem::take(&mut self.commit_scratch.part_vecs);
        // Parts are read in place (their member lists and sums taken), not
        // moved out whole: one copy of each part's fields, straight into
        // its slot.
        let clusters = splits
            .iter_mut()
            .flat_map(|s| s.parts.iter_mut())
            .zip(&record.created)
            .map(|(p, rc)| Cluster {
                sums: std::mem::replace(&mut p.sums, ClusterSums::OfChunk),
                nodes: std::mem::take(&mut p.nodes),
                supported: p.supported,
                mass: p.mass,
                principal: p.principal,
                motion: rc.motion,
                representation: p.representation,
                slot: p.slot,
                sleep: SleepState::default(),
                withdrawn_at: None,
            });
        self.install_own(record, clusters);
        part_vecs.extend(splits.drain(..).map(|mut s| {
            s.parts.clear();
            s.parts
        }));
        self.commit_scratch.part_vecs = part_vecs;
        self.commit_scratch.splits = splits;
    }

    /// Installs a validated record; `created` yields the cluster of each
    /// `record.created[k]` in order, with its mass properties; each goes
    /// straight into its slot. Cannot fail: every check happened before
    /// (own plan, or [`Self::apply_record`]'s validation).
    pub(crate) fn install_own(
        &mut self,
        record: &CommitRecord,
        created: impl IntoIterator<Item = Cluster>,
    ) {
        for &(b, h) in &record.health {
            if let Some(slot) = self.health.get_mut(b.0 as usize) {
                *slot = h;
            }
        }
        let mut cs = std::mem::take(&mut self.commit_scratch);
        cs.orphans.clear();
        for &h in &record.removed {
            if let Some(c) = self.clusters.get(h) {
                if let Some(s) = c.slot {
                    self.slots.release(s);
                }
                if let [first, _, ..] = c.nodes[..] {
                    cs.orphans.push(first);
                }
                for n in &c.nodes {
                    self.node_cluster[n.0 as usize] = ClusterHandle::PLACEHOLDER;
                }
            }
        }
        self.clusters.free(&record.removed);
        self.clusters.reserve(record.created.len());
        // Remainders keep their handle: their old slot is released before
        // any slot of this commit is taken, their chunks keep their owner.
        // A new cluster's chunks take its handle as it goes in (its slot
        // is still in cache), not in a second pass over the slots.
        let installed = &mut cs.installed;
        installed.clear();
        for (rc, c) in record.created.iter().zip(created) {
            installed.extend(c.slot);
            if rc.is_kept() {
                if let Some(s) = self.clusters.get(rc.handle).and_then(|old| old.slot) {
                    self.slots.release(s);
                }
                let old = self.clusters.replace_in_place(rc.handle, c);
                debug_assert!(old.is_some(), "a kept cluster must be live");
                if let Some(old) = old {
                    self.pool.give_sums(old.sums.into_box());
                    self.scratch.keep_spare_nodes(old.nodes);
                }
            } else {
                let h = self.clusters.insert(c);
                debug_assert_eq!(h, rc.handle, "planned handles must match allocation");
                if let Some(c) = self.clusters.get(h) {
                    for n in &c.nodes {
                        self.node_cluster[n.0 as usize] = h;
                    }
                }
            }
        }
        for &s in installed.iter() {
            let ok = self.slots.occupy(s);
            debug_assert!(ok, "planned slot {s} must be free");
        }
        // A removed cluster whose chunks no new cluster took (recycling)
        // leaves intact bonds that belong to no cluster.
        self.recycled_bonds |= cs
            .orphans
            .iter()
            .any(|n| self.node_cluster[n.0 as usize] == ClusterHandle::PLACEHOLDER);
        for &(h, m) in &record.motions {
            if let Some(c) = self.clusters.get_mut(h) {
                c.motion = m;
                c.sleep = SleepState::default();
            }
        }
        self.topology_version = record.topology_version;
        self.commit_seq = record.commit_seq;
        for r in &record.receipts {
            let copy = self.pool.copy_receipt(r);
            let pool = &mut self.pool;
            self.applied
                .insert_evicting(copy, &mut |old| pool.give_receipt(old));
        }
        if !record.receipts.is_empty() {
            // One pass over the queue against the sorted applied ids:
            // O((p + r) log r), not O(p · r) (issue 12).
            let done = &mut cs.done;
            done.clear();
            done.extend(record.receipts.iter().map(|r| r.event.id));
            done.sort_unstable();
            let pool = &mut self.pool;
            self.pending.retain_mut(|p| {
                let keep = done.binary_search(&p.event.id).is_err();
                if !keep {
                    pool.candidates.give(std::mem::take(&mut p.candidates));
                }
                keep
            });
            for id in done.iter() {
                self.pending_index.remove(id);
            }
        }
        self.commit_scratch = cs;
        if let Some(path) = &record.task_path {
            // Validated before (own budget, or apply_record's range check).
            let _ = self.budget.set_task_path(&self.asset, path);
        }
        self.next_admission = self.next_admission.max(record.next_admission);
        self.deferral = None;
    }

    /// FNV-1a hash of the simulation-relevant state: versions, every bond's
    /// health bits, node ownership and each cluster's membership, support
    /// flag, representation, body slot and pose bits. Equal states give equal
    /// hashes on every platform.
    pub fn state_hash(&self) -> u64 {
        let mut h = StateHasher::new();
        self.hash_destruction(&mut h, |h, c| {
            let p = c.motion.pose;
            for v in p
                .translation
                .to_array()
                .into_iter()
                .chain(p.rotation.to_array())
            {
                h.write_f32(v);
            }
        });
        h.finish()
    }

    /// FNV-1a hash of the replicated destruction state: everything
    /// [`Self::state_hash`] covers except motion. That is the topology
    /// version, the commit sequence, every bond's health bits, node
    /// ownership (handle index and generation) and each cluster's handle,
    /// membership count, support flag, representation and body slot.
    ///
    /// Replication ([`crate::replication`]) carries commits, not per-step
    /// poses: a replica receives a cluster's motion only when a commit
    /// creates the cluster or pushes it, while the authority's physics
    /// moves it every step. Authority and replica therefore agree on this
    /// hash at every commit sequence, never on [`Self::state_hash`] once
    /// anything has moved. Equal states give equal hashes on every platform.
    pub fn replicated_hash(&self) -> u64 {
        let mut h = StateHasher::new();
        self.hash_destruction(&mut h, |_, _| {});
        h.finish()
    }

    /// Writes the state both hashes share; `cluster_extra` adds per-cluster
    /// fields after each cluster's shared ones.
    fn hash_destruction(
        &self,
        h: &mut StateHasher,
        mut cluster_extra: impl FnMut(&mut StateHasher, &Cluster),
    ) {
        h.write_u64(self.topology_version);
        h.write_u64(self.commit_seq);
        for &x in &self.health {
            h.write_f32(x);
        }
        for c in &self.node_cluster {
            h.write_u32(c.index());
            h.write_u32(c.generation());
        }
        for (handle, c) in self.clusters.iter() {
            h.write_u32(handle.index());
            h.write_u32(c.nodes.len() as u32);
            h.write_u32(c.supported as u32);
            h.write_u32(c.representation.code());
            let slot = c
                .slot
                .map_or((u32::MAX, u32::MAX), |s| (s.index, s.generation));
            h.write_u32(slot.0);
            h.write_u32(slot.1);
            cluster_extra(h, c);
        }
    }
}

/// Decides the representation and slot of every part (DESIGN §3.9): supported
/// parts are static (proxy when one matches exactly), dynamic parts get slots
/// in the budget order, decorative overflow becomes render-only debris.
/// A dynamic part with nothing to collide with (no member chunk has a hull
/// and no proxy matches) is render-only debris without a slot, critical or
/// not: a body with no collider would fall through everything (issue 16).
fn assign_representations<P: PartsMut + ?Sized>(
    asset: &Asset,
    budget: &Budget,
    slots: &SlotPool,
    released: &[BodySlot],
    parts: &mut P,
    scratch: &mut SlotScratch,
) -> Result<(), BudgetShortfall> {
    let SlotScratch {
        requests,
        positions,
        offered,
        order,
        assigned,
    } = scratch;
    requests.clear();
    positions.clear();
    let mut k = 0;
    parts.for_each_part(|p| {
        let proxy = budget.proxy_for(&p.nodes);
        if p.supported {
            p.slot = None;
            p.representation = proxy.map_or(Representation::Body, Representation::Proxy);
        } else if proxy.is_none() && !has_hulls(asset, &p.nodes) {
            p.slot = None;
            p.representation = Representation::RenderOnlyDebris;
        } else {
            requests.push(SlotRequest {
                critical: p.critical,
                volume: p.volume,
                first_node: p.nodes.first().copied().unwrap_or(ChunkIndex(u32::MAX)),
            });
            positions.push(k);
        }
        k += 1;
    });
    if requests.is_empty() {
        return Ok(());
    }
    slots.peek_into(released, requests.len(), offered);
    assign_slots_into(requests, offered, slots.capacity(), order, assigned)?;
    // `positions` ascends: hand each requesting part its slot in one pass.
    let (mut k, mut next) = (0, 0);
    parts.for_each_part(|p| {
        if positions.get(next) == Some(&k) {
            let slot = assigned[next];
            next += 1;
            p.slot = slot;
            p.representation = match slot {
                Some(_) => budget
                    .proxy_for(&p.nodes)
                    .map_or(Representation::Body, Representation::Proxy),
                None => Representation::RenderOnlyDebris,
            };
        }
        k += 1;
    });
    Ok(())
}

/// The parts of a commit (or of a new instance), visited in order without
/// collecting references to them.
trait PartsMut {
    fn for_each_part(&mut self, f: impl FnMut(&mut SplitPart));
}

impl PartsMut for [SplitPart] {
    fn for_each_part(&mut self, f: impl FnMut(&mut SplitPart)) {
        self.iter_mut().for_each(f);
    }
}

impl PartsMut for [SplitPlan] {
    fn for_each_part(&mut self, f: impl FnMut(&mut SplitPart)) {
        self.iter_mut().flat_map(|s| s.parts.iter_mut()).for_each(f);
    }
}

/// True when any of `nodes` has a collision hull.
fn has_hulls(asset: &Asset, nodes: &[ChunkIndex]) -> bool {
    nodes
        .iter()
        .filter_map(|&n| asset.chunk(n))
        .any(|c| !c.hulls.is_empty())
}

/// True when cluster `c` is a moving body: not supported, and with
/// something to collide with (a proxy or a chunk hull).
fn moves(asset: &Asset, c: &Cluster) -> bool {
    part_moves(asset, c.supported, c.representation, &c.nodes)
}

/// [`moves`] for a cluster not yet built: its support flag, representation
/// and members.
fn part_moves(
    asset: &Asset,
    supported: bool,
    representation: Representation,
    nodes: &[ChunkIndex],
) -> bool {
    !supported && (matches!(representation, Representation::Proxy(_)) || has_hulls(asset, nodes))
}

/// Mass properties and volume of an island in asset space (chunk rotations
/// identity), summed exactly ([`MassSums::of_chunks`]). A single chunk uses
/// the asset's precomputed principal axes instead of an eigen solve.
pub(crate) fn cluster_part(asset: &Asset, island: Island) -> Result<SplitPart, crate::MassError> {
    let mut part = SplitPart::placeholder();
    fill_part(asset, island, &mut part, &mut Vec::new())?;
    Ok(part)
}

/// [`cluster_part`] written into `part` (a placeholder already in its
/// list): a split into thousands of pieces then writes each piece once
/// instead of moving ~300-byte parts between the stack and the list
/// (issue 12). A part of several chunks stores its sums in a box from
/// `spare_sums` (boxes earlier commits gave back) or a new one; a one-chunk
/// part stores none (they are its chunk's, [`Asset::chunk_sums`]). On error
/// `part` is left partly written.
#[allow(clippy::vec_box)]
fn fill_part(
    asset: &Asset,
    island: Island,
    part: &mut SplitPart,
    spare_sums: &mut Vec<Box<MassSums>>,
) -> Result<(), crate::MassError> {
    if let [only] = island.nodes[..] {
        // One chunk (most pieces a blast frees): its own properties, which
        // its sums reproduce bit for bit, without the f64 passes.
        let chunk = asset.chunk(only).ok_or(crate::MassError::Empty)?;
        let sums = asset.chunk_sums(only).ok_or(crate::MassError::Empty)?;
        part.mass = sums.one_chunk_properties();
        part.sums = ClusterSums::OfChunk;
        part.principal = *asset.chunk_principal(only).ok_or(crate::MassError::Empty)?;
        part.volume = chunk.volume;
    } else {
        let sums = MassSums::of_chunks(asset, &island.nodes)?;
        part.mass = sums.properties()?;
        part.principal = principal_of(asset, &island.nodes, &part.mass)?;
        part.volume = volume_of(asset, &island.nodes);
        part.sums = ClusterSums::stored(sums, spare_sums.pop());
    }
    part.supported = island.supported;
    part.nodes = island.nodes;
    Ok(())
}

fn volume_of(asset: &Asset, nodes: &[ChunkIndex]) -> f32 {
    nodes
        .iter()
        .filter_map(|&n| asset.chunk(n))
        .map(|c| c.volume)
        .sum()
}

fn principal_of(
    asset: &Asset,
    nodes: &[ChunkIndex],
    mass: &MassProperties,
) -> Result<PrincipalAxes, crate::MassError> {
    match nodes {
        [only] => asset
            .chunk_principal(*only)
            .copied()
            .ok_or(crate::MassError::Empty),
        _ => principal_axes(mass.inertia),
    }
}

/// The remainder of `old` after the pieces whose sums are `departing` (in
/// plan order) broke off, with `nodes` its members (ascending): mass sums by
/// subtraction ([`MassSums::subtract`]), rebuilt from the chunks when the
/// drift guard asks for it ([`MassSums::needs_resum`]) or when the
/// subtracted properties fail the principal-axes check. The planner and
/// [`Instance::apply_record`] both come here, so replicas subtract the same
/// numbers in the same order and stay bit-identical.
///
/// `critical` is false and `volume` 0: callers evaluate them (O(remainder))
/// only when the remainder is dynamic. Sums it stores go into `spare_sums`
/// when given (a box an earlier commit gave back).
pub(crate) fn remainder_part<D: std::borrow::Borrow<MassSums>>(
    asset: &Asset,
    old: &Cluster,
    departing: impl Iterator<Item = D> + Clone,
    nodes: crate::Members,
    supported: bool,
    spare_sums: Option<Box<MassSums>>,
) -> Result<SplitPart, crate::MassError> {
    // The mass and count the subtraction would end with (the same
    // operations in the same order): when the drift guard would re-sum the
    // remainder anyway, the subtraction is skipped, with the same result
    // (split-all: 32,767 subtractions for a one-chunk remainder).
    let mut sums = old.sums(asset);
    let (mut mass_after, mut count) = (sums.mass, 0u32);
    for piece in departing.clone() {
        mass_after -= piece.borrow().mass;
        count = count.saturating_add(1);
    }
    let resum_anyway = sums.resum_due(
        mass_after,
        sums.subtractions.saturating_add(count),
        nodes.len(),
    );
    if !resum_anyway {
        for piece in departing {
            sums.subtract(piece.borrow());
        }
    }
    let subtracted = (!resum_anyway && !sums.needs_resum(nodes.len()))
        .then(|| {
            let mass = sums.properties().ok()?;
            let principal = principal_of(asset, &nodes, &mass).ok()?;
            Some((mass, principal))
        })
        .flatten();
    let (mass, principal) = match subtracted {
        Some(found) => found,
        None => {
            sums = MassSums::of_chunks(asset, &nodes)?;
            let mass = sums.properties()?;
            (mass, principal_of(asset, &nodes, &mass)?)
        }
    };
    let sums = ClusterSums::new(sums, asset, &nodes, spare_sums);
    Ok(SplitPart {
        handle: ClusterHandle::PLACEHOLDER,
        kept: true,
        nodes,
        supported,
        mass,
        principal,
        sums,
        critical: false,
        volume: 0.0,
        representation: Representation::Body,
        slot: None,
    })
}

/// True when `n` acts as a support under `health`: a support chunk, or a
/// chunk with an intact bond to the world.
fn is_support(asset: &Asset, health: &[f32], n: ChunkIndex) -> bool {
    asset.chunk(n).is_some_and(|c| c.support)
        || asset
            .graph()
            .world_bonds(n)
            .iter()
            .any(|b| health.get(b.0 as usize).is_some_and(|&h| h > 0.0))
}

/// Sorts `candidates` (distinct bonds, as the hierarchy reports each bond
/// once, in its one owning cluster) by bond. From 64 candidates and a
/// 256th of the asset's `bond_count` bonds on (the grid's radial blast
/// takes a tenth, split-all all 96,000 at N = 32), they are scattered into
/// the kept per-bond `table` and read back through its bit set, O(k + B/64)
/// and faster than a comparison sort; the result is the same (issue 12).
fn sort_by_bond(
    candidates: &mut Vec<DamageCandidate>,
    bond_count: usize,
    table: &mut CandidateTable,
) {
    if candidates.len() < 64 || candidates.len() < bond_count / 256 {
        candidates.sort_unstable_by_key(|c| c.bond);
        return;
    }
    let words = bond_count.div_ceil(64);
    if table.distance.len() < bond_count {
        table.distance.resize(bond_count, 0.0);
        table.marked.resize(words, 0);
    }
    for c in candidates.iter() {
        let b = c.bond.0 as usize;
        debug_assert!(
            table.marked[b / 64] & (1 << (b % 64)) == 0,
            "bond {b} twice"
        );
        table.distance[b] = c.distance;
        table.marked[b / 64] |= 1 << (b % 64);
    }
    candidates.clear();
    for (w, word) in table.marked[..words].iter_mut().enumerate() {
        let mut bits = std::mem::take(word);
        while bits != 0 {
            let b = w * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            candidates.push(DamageCandidate {
                bond: BondIndex(b as u32),
                distance: table.distance[b],
            });
        }
    }
}

/// `nodes` (ascending) without `gone` (members of `nodes`, any order),
/// written into `out` (cleared first; a spare buffer, so a remainder's list
/// reuses the memory of the one its last commit freed).
fn without(
    nodes: &[ChunkIndex],
    gone_nodes: impl Iterator<Item = ChunkIndex>,
    gone: &mut Vec<ChunkIndex>,
    mut out: Vec<ChunkIndex>,
) -> Vec<ChunkIndex> {
    gone.clear();
    gone.extend(gone_nodes);
    gone.sort_unstable();
    out.clear();
    out.reserve(nodes.len().saturating_sub(gone.len()));
    let mut from = 0;
    for &g in gone.iter() {
        if let Ok(i) = gallop(&nodes[from..], g) {
            out.extend_from_slice(&nodes[from..from + i]);
            from += i + 1;
        }
    }
    out.extend_from_slice(&nodes[from..]);
    out
}

/// `sorted.binary_search(&x)`, probing from the front in doubling steps
/// first: O(log i) for a hit at `i`. The departed chunks of a blast sit
/// close together in the remainder's list, so each one is found a few
/// places after the previous one instead of by a search over the whole
/// remainder (issue 12).
fn gallop(sorted: &[ChunkIndex], x: ChunkIndex) -> Result<usize, usize> {
    let mut hi = 1;
    while hi < sorted.len() && sorted[hi] < x {
        hi *= 2;
    }
    let lo = hi / 2;
    let hi = (hi + 1).min(sorted.len());
    sorted[lo..hi]
        .binary_search(&x)
        .map(|i| lo + i)
        .map_err(|i| lo + i)
}

/// Bond health around a batch of events: `after` them (every bond) and
/// `before` them for the bonds they changed (ascending, unique).
#[derive(Copy, Clone)]
struct HealthBatch<'a> {
    after: &'a [f32],
    before: &'a [(BondIndex, f32)],
}

impl HealthBatch<'_> {
    /// A bond's health before the batch.
    fn before(&self, b: BondIndex) -> f32 {
        match self.before.binary_search_by_key(&b, |&(x, _)| x) {
            Ok(i) => self.before[i].1,
            Err(_) => self.after.get(b.0 as usize).copied().unwrap_or(0.0),
        }
    }

    /// [`is_support`] before the batch.
    fn was_support(&self, asset: &Asset, n: ChunkIndex) -> bool {
        asset.chunk(n).is_some_and(|c| c.support)
            || asset
                .graph()
                .world_bonds(n)
                .iter()
                .any(|&b| self.before(b) > 0.0)
    }
}

/// Plans the split of cluster `h` after its bonds broke (`health` around the
/// batch of events that broke them): what broke off
/// ([`find_departed`], O(pieces)), each piece's support and exact mass, and
/// the remainder, which keeps `h`, by subtraction. `None` when nothing broke
/// off and the support did not change.
///
/// A supported remainder stays supported unless a departing piece took a
/// support node or one of its world bonds broke; only then are its nodes
/// scanned for a remaining support (stopping at the first).
#[allow(clippy::vec_box, clippy::too_many_arguments)]
fn plan_split(
    asset: &Asset,
    budget: &Budget,
    health: HealthBatch<'_>,
    (h, cluster): (ClusterHandle, &Cluster),
    seeds: &[ChunkIndex],
    world_broken: bool,
    scratch: &mut SplitScratch,
    pieces: &mut Vec<Island>,
    part_vecs: &mut Vec<Vec<SplitPart>>,
    spare_sums: &mut Vec<Box<MassSums>>,
) -> Result<Option<SplitPlan>, crate::MassError> {
    pieces.clear();
    let candidate = health.after;
    let rest = find_departed(asset, candidate, seeds, scratch, pieces);
    let kept_piece = match rest {
        Remainder::Open => None,
        Remainder::Piece(k) => Some(k),
    };
    let departing = pieces.len() - usize::from(kept_piece.is_some());
    if departing == 0 && !(cluster.supported && world_broken) {
        return Ok(None);
    }
    // Slot 0 is the remainder's, filled once the pieces' sums are known
    // (pushing it to the front afterwards would move every piece).
    // A parts list an earlier commit emptied, if any (issue 12 item 3).
    let mut parts = part_vecs.pop().unwrap_or_default();
    parts.clear();
    parts.reserve(departing + 1);
    parts.push(SplitPart::placeholder());
    let mut lost_support = world_broken;
    let mut kept_nodes = None;
    for (k, island) in pieces.drain(..).enumerate() {
        if Some(k) == kept_piece {
            kept_nodes = Some(island.nodes);
            continue;
        }
        let supported = cluster.supported
            && island
                .nodes
                .iter()
                .any(|&n| is_support(asset, candidate, n));
        if cluster.supported && !lost_support {
            lost_support = island.nodes.iter().any(|&n| health.was_support(asset, n));
        }
        parts.push(SplitPart::placeholder());
        let last = parts.len() - 1;
        let part = &mut parts[last];
        fill_part(
            asset,
            Island {
                nodes: island.nodes,
                supported,
            },
            part,
            spare_sums,
        )?;
        part.critical = budget.is_critical(asset, &part.nodes);
    }
    // The remainder's members: the cluster's (ascending) without the
    // departed ones, copied in runs between them (a memcpy-speed pass, no
    // per-node lookup).
    let nodes = match kept_nodes {
        Some(nodes) => nodes,
        // From a `Vec`: a list longer than the inline size keeps its block.
        None => crate::Members::from_vec(without(
            &cluster.nodes,
            parts[1..].iter().flat_map(|p| p.nodes.iter().copied()),
            &mut scratch.gone,
            std::mem::take(&mut scratch.spare_nodes),
        )),
    };
    let supported = cluster.supported
        && (!lost_support || nodes.iter().any(|&n| is_support(asset, candidate, n)));
    if parts.len() == 1 && supported == cluster.supported {
        return Ok(None);
    }
    // A pooled box only for a remainder that surely stores its sums (one
    // chunk may turn out to be that chunk's own, with no box).
    let spare = if nodes.len() > 1 {
        spare_sums.pop()
    } else {
        None
    };
    let mut kept = remainder_part(
        asset,
        cluster,
        parts[1..]
            .iter()
            .map(|p| p.sums.get(asset, &p.nodes).unwrap_or(&MassSums::ZERO)),
        nodes,
        supported,
        spare,
    )?;
    kept.handle = h;
    if !supported {
        kept.critical = budget.is_critical(asset, &kept.nodes);
        kept.volume = volume_of(asset, &kept.nodes);
    }
    parts[0] = kept;
    Ok(Some(SplitPlan { old: h, parts }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::commit::HeadlessBackend;
    use crate::damage::RadialDamage;
    use glam::Vec3;

    fn wall() -> Instance {
        let desc = crate::fixtures::grid_desc(4, 3, 1, 0.5, 2000.0, 40.0);
        Instance::new(Arc::new(Asset::new(&desc).unwrap()), Pose::IDENTITY).unwrap()
    }

    #[test]
    fn one_chunk_parts_store_no_sums_and_the_others_their_exact_ones() {
        // A chain 0–1–2–3–4–5 cut between 1|2 and 4|5: pieces {0, 1},
        // {2, 3, 4} and {5}; the lone chunk's part carries no sums (its
        // chunk's are the asset's), the others box their exact sums.
        let bonds = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)];
        let asset = Arc::new(crate::fixtures::chain(6, &bonds, &[]).unwrap());
        let mut inst = Instance::new(Arc::clone(&asset), Pose::IDENTITY).unwrap();
        for (id, x) in [(1, 1.5), (2, 4.5)] {
            inst.admit(RadialDamage {
                id: EventId(id),
                point: Vec3::new(x, 0.0, 0.0),
                radius: 0.2,
                damage: 1.0e3,
                impulse: None,
            })
            .unwrap();
        }
        let plan = inst.plan::<()>().unwrap();
        let parts = &plan.splits[0].parts;
        assert_eq!(parts.len(), 3);
        let mut lone = 0;
        for p in parts {
            let exact = MassSums::of_chunks(&asset, &p.nodes).unwrap();
            match (&p.sums, p.nodes.len()) {
                (ClusterSums::OfChunk, 1) => lone += 1,
                (ClusterSums::Stored(b), n) if n > 1 && !p.kept => assert_eq!(**b, exact),
                // The remainder's come from a subtraction.
                (ClusterSums::Stored(b), n) if n > 1 => {
                    assert!((b.mass - exact.mass).abs() < 1e-9);
                    assert!((b.center() - exact.center()).length() < 1e-9);
                }
                (s, n) => panic!("{n} chunks with {s:?}"),
            }
            assert_eq!(p.sums.value(&asset, &p.nodes).mass, exact.mass);
        }
        assert_eq!(lone, 1);
        // Committed, each cluster keeps what its part carried.
        inst.commit(&mut HeadlessBackend::default()).unwrap();
        for (_, c) in inst.clusters() {
            assert_eq!(matches!(c.sums, ClusterSums::OfChunk), c.nodes.len() == 1);
        }
    }

    #[test]
    fn dense_candidate_sort_matches_the_comparison_sort() {
        // One table for every case, as admission keeps it: each use must
        // leave it clean for the next, at any bond count.
        let mut table = CandidateTable::default();
        let cases = [
            (10, 20),
            (100, 200),
            (300, 1000),
            (100, 10_000),
            (300, 1000),
            (5000, 10_000),
            (64, 64),
        ];
        for (count, bond_count) in cases {
            // Distinct bonds in a scrambled order, as a hierarchy reports them.
            let mut c: Vec<DamageCandidate> = (0..count)
                .map(|i| {
                    let b = (i * 7919 + 13) % bond_count;
                    DamageCandidate {
                        bond: BondIndex(b),
                        distance: b as f32 * 0.25,
                    }
                })
                .collect();
            let mut expected = c.clone();
            expected.sort_unstable_by_key(|c| c.bond);
            sort_by_bond(&mut c, bond_count as usize, &mut table);
            assert_eq!(c, expected, "{count} of {bond_count}");
        }
    }

    #[test]
    fn galloping_search_answers_as_binary_search_does() {
        for len in 0..40u32 {
            let sorted: Vec<ChunkIndex> = (0..len).map(|i| ChunkIndex(3 * i + 1)).collect();
            for x in 0..3 * len + 3 {
                let x = ChunkIndex(x);
                assert_eq!(gallop(&sorted, x), sorted.binary_search(&x), "{len} {x:?}");
            }
        }
    }

    #[test]
    fn replicated_hash_ignores_motion_and_changes_with_health() {
        let mut inst = wall();
        let fresh = inst.health().to_vec();
        let (replicated, full) = (inst.replicated_hash(), inst.state_hash());
        // Physics moves a cluster between commits: only the full hash sees it.
        let (h, c) = inst.clusters().next().unwrap();
        let mut motion = c.motion;
        motion.pose.translation += Vec3::new(0.0, 0.25, 0.0);
        motion.velocity.linear = Vec3::new(0.0, -1.0, 0.0);
        inst.set_motion::<()>(h, motion).unwrap();
        assert_ne!(inst.state_hash(), full);
        assert_eq!(inst.replicated_hash(), replicated);
        // One bond's health, nothing else: the replicated hash changes.
        let mut worn = inst.clone();
        worn.health[0] -= 1.0;
        assert_ne!(worn.replicated_hash(), replicated);
        // A commit that damages without breaking changes it too.
        inst.admit(RadialDamage {
            id: EventId(1),
            point: Vec3::new(1.0, 0.75, 0.25),
            radius: 0.3,
            damage: 1.0,
            impulse: None,
        })
        .unwrap();
        let out = inst.commit(&mut HeadlessBackend::default()).unwrap();
        assert!(out.broken.is_empty());
        assert_eq!(inst.commit_seq(), 1);
        assert_ne!(inst.health(), &fresh[..]);
        assert_ne!(inst.replicated_hash(), replicated);
    }

    #[test]
    fn only_moves_and_membership_changes_wait_for_the_loose_index() {
        // Shatter a small block, then an impulse builds the index.
        let mut inst = wall();
        let blast = |id: u64, impulse| RadialDamage {
            id: EventId(id),
            point: Vec3::new(1.0, 0.75, 0.25),
            radius: 5.0,
            damage: 1.0e9,
            impulse,
        };
        inst.admit(blast(1, None)).unwrap();
        inst.commit(&mut HeadlessBackend::default()).unwrap();
        let loose: Vec<ClusterHandle> = inst.clusters().map(|(h, _)| h).collect();
        assert_eq!(loose.len(), 12);
        inst.admit(blast(2, Some(Vec3::Y))).unwrap();
        inst.withdraw_pending();
        assert_eq!(inst.clusters.moved_len(), 0);
        // A resting piece synced again (same pose, new velocity) and sleep
        // states: nothing to file again.
        for &h in &loose {
            let mut motion = inst.cluster(h).unwrap().motion;
            motion.velocity.linear = Vec3::new(0.0, 0.0, 1.0e-4);
            inst.set_motion::<()>(h, motion).unwrap();
            inst.set_sleep_state(h, SleepState::Asleep).unwrap();
        }
        inst.advance_sleep(1.0).unwrap();
        assert_eq!(inst.clusters.moved_len(), 0);
        // A move waits for the next catch-up, even one that only turns a
        // zero's sign (poses are compared bit for bit).
        let mut motion = inst.cluster(loose[3]).unwrap().motion;
        motion.pose.translation = Vec3::ZERO;
        inst.set_motion::<()>(loose[3], motion).unwrap();
        assert_eq!(inst.clusters.moved_len(), 1);
        inst.admit(blast(3, Some(Vec3::Y))).unwrap();
        inst.withdraw_pending();
        motion.pose.translation.x = -0.0;
        inst.set_motion::<()>(loose[3], motion).unwrap();
        let mut motion = inst.cluster(loose[5]).unwrap().motion;
        motion.pose.translation.y += 0.5;
        inst.set_motion::<()>(loose[5], motion).unwrap();
        assert_eq!(inst.clusters.moved_len(), 2);
        inst.admit(blast(4, Some(Vec3::Y))).unwrap();
        assert_eq!(inst.clusters.moved_len(), 0);
    }

    #[test]
    fn impulses_on_existing_pieces_add_up_in_plan_order() {
        // Shatter a block of cubes with hulls (so its pieces move), then
        // three pushes in one commit: two on one piece (in the order
        // admitted), one on another, none breaking anything.
        let asset = Asset::new(&crate::fixtures::blast_grid_desc(3)).unwrap();
        let mut inst = Instance::new(Arc::new(asset), Pose::IDENTITY).unwrap();
        inst.admit(RadialDamage {
            id: EventId(1),
            point: Vec3::splat(1.5),
            radius: 10.0,
            damage: 1.0e12,
            impulse: None,
        })
        .unwrap();
        inst.commit(&mut HeadlessBackend::default()).unwrap();
        let asset = Arc::clone(&inst.asset);
        let centre = |c: usize| asset.chunks()[ChunkIndex(c as u32)].centroid;
        let pushes = [
            (7, Vec3::new(3.0, 0.5, -1.0)),
            (2, Vec3::Y),
            (7, Vec3::new(-0.25, 4.0, 0.125)),
        ];
        let mut expected: Vec<(ClusterHandle, Velocity)> = Vec::new();
        for (k, &(chunk, j)) in pushes.iter().enumerate() {
            // Off the chunk's centre, so the push turns the piece too.
            let point = centre(chunk) + Vec3::new(0.1, 0.05, 0.0);
            inst.admit(RadialDamage {
                id: EventId(2 + k as u64),
                point,
                radius: 0.01,
                damage: 0.0,
                impulse: Some(j),
            })
            .unwrap();
            let h = inst.cluster_of(ChunkIndex(chunk as u32)).unwrap();
            let c = inst.cluster(h).unwrap();
            let dv = crate::commit::impulse_change(
                &c.mass,
                &c.motion,
                &PlannedImpulse {
                    event: EventId(2 + k as u64),
                    point,
                    impulse: j,
                    chunk: ChunkIndex(chunk as u32),
                    target: h,
                },
            );
            match expected.iter_mut().find(|(e, _)| *e == h) {
                Some((_, v)) => {
                    v.linear += dv.linear;
                    v.angular += dv.angular;
                }
                None => expected.push((
                    h,
                    Velocity {
                        linear: c.motion.velocity.linear + dv.linear,
                        angular: c.motion.velocity.angular + dv.angular,
                    },
                )),
            }
        }
        inst.commit(&mut HeadlessBackend::default()).unwrap();
        assert_eq!(expected.len(), 2);
        for (h, v) in expected {
            let got = inst.cluster(h).unwrap().motion.velocity;
            assert_eq!(
                got.linear.to_array().map(f32::to_bits),
                v.linear.to_array().map(f32::to_bits)
            );
            assert_eq!(
                got.angular.to_array().map(f32::to_bits),
                v.angular.to_array().map(f32::to_bits)
            );
            assert!(v.angular.length() > 0.0);
        }
    }
}
