//! Recycled lists of a commit (issue 12 item 3: a steady stream of small
//! commits allocates nothing after warm-up).
//!
//! A commit hands out lists: the outcome's receipts, broken bonds and
//! cluster handles, the record's health changes and created clusters (whose
//! member lists are inline up to four chunks, [`crate::Members`]), the
//! applied events and their frozen candidates, and it
//! keeps others (a pending event's candidates, a receipt in the receipt
//! window). Every list it fills comes from a `ListPool`; the lists come back
//! when the instance is done with them (a pending event applied, a receipt
//! leaving the window) and when the caller hands an outcome back with
//! [`crate::Instance::recycle`]. Recycling is optional: a dropped outcome is
//! correct, it only costs the allocations the next commit makes again.
//!
//! Pools are bounded ([`MAX_POOLED_LISTS`] lists of at most
//! [`MAX_POOLED_CAPACITY`] elements each), so one huge commit does not keep
//! its memory. They hold no state: clones, snapshots and hashes ignore them.

use crate::cluster::{ClusterHandle, ClusterMotion};
use crate::commit::CommitOutcome;
use crate::damage::DamageCandidate;
use crate::index::BondIndex;
use crate::instance::{PendingEvent, Receipt};
use crate::recovery::{ClusterRecord, CommitRecord};

/// Most lists one pool keeps.
pub const MAX_POOLED_LISTS: usize = 32;

/// Largest list (in elements of capacity) a pool keeps; larger ones are
/// freed when they come back.
pub const MAX_POOLED_CAPACITY: usize = 4096;

/// Emptied lists of one element type, the roomiest reused first.
#[derive(Debug)]
pub(crate) struct ListPool<T> {
    lists: Vec<Vec<T>>,
}

impl<T> Default for ListPool<T> {
    fn default() -> Self {
        Self { lists: Vec::new() }
    }
}

/// A clone starts empty: pooled lists are capacity, not state.
impl<T> Clone for ListPool<T> {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl<T> ListPool<T> {
    /// An empty list: the pooled one with the most capacity (so a list of
    /// a few elements fits whichever it gets), else a new one (which does
    /// not allocate until it is filled).
    pub(crate) fn take(&mut self) -> Vec<T> {
        let best = (0..self.lists.len()).max_by_key(|&i| (self.lists[i].capacity(), i));
        best.map_or_else(Vec::new, |i| self.lists.swap_remove(i))
    }

    /// Takes `list` back (emptied), unless the pool is full or the list is
    /// too large to keep or never allocated.
    pub(crate) fn give(&mut self, mut list: Vec<T>) {
        let capacity = list.capacity();
        if capacity == 0 || capacity > MAX_POOLED_CAPACITY || self.lists.len() >= MAX_POOLED_LISTS {
            return;
        }
        list.clear();
        self.lists.push(list);
    }

    /// A pooled copy of `items` (an empty copy takes no pooled list: it
    /// needs no room).
    pub(crate) fn copy(&mut self, items: &[T]) -> Vec<T>
    where
        T: Clone,
    {
        if items.is_empty() {
            return Vec::new();
        }
        let mut list = self.take();
        list.extend_from_slice(items);
        list
    }
}

/// The pools of one instance's commits.
#[derive(Clone, Debug, Default)]
pub(crate) struct CommitPool {
    pub(crate) bonds: ListPool<BondIndex>,
    pub(crate) health: ListPool<(BondIndex, f32)>,
    pub(crate) handles: ListPool<ClusterHandle>,
    pub(crate) clusters: ListPool<ClusterRecord>,
    pub(crate) motions: ListPool<ClusterMotion>,
    pub(crate) staged: ListPool<(ClusterHandle, ClusterMotion)>,
    pub(crate) receipts: ListPool<Receipt>,
    pub(crate) pending: ListPool<PendingEvent>,
    pub(crate) candidates: ListPool<DamageCandidate>,
    /// Boxes of stored cluster mass sums ([`crate::cluster::ClusterSums`]):
    /// a remainder's box comes back when the commit replaces it.
    #[allow(clippy::vec_box)]
    pub(crate) sums: Vec<Box<crate::mass::MassSums>>,
}

impl CommitPool {
    /// Takes back a box of mass sums (at most [`MAX_POOLED_LISTS`] kept).
    pub(crate) fn give_sums(&mut self, b: Option<Box<crate::mass::MassSums>>) {
        if let Some(b) = b
            && self.sums.len() < MAX_POOLED_LISTS
        {
            self.sums.push(b);
        }
    }

    /// A copy of `r` whose broken-bond list comes from the pool.
    pub(crate) fn copy_receipt(&mut self, r: &Receipt) -> Receipt {
        Receipt {
            instance: r.instance,
            event: r.event.clone(),
            commit_seq: r.commit_seq,
            topology_version: r.topology_version,
            broken: self.bonds.copy(&r.broken),
        }
    }

    /// Pooled copies of `receipts`.
    pub(crate) fn copy_receipts(&mut self, receipts: &[Receipt]) -> Vec<Receipt> {
        let mut list = self.receipts.take();
        list.reserve(receipts.len());
        for r in receipts {
            let copy = self.copy_receipt(r);
            list.push(copy);
        }
        list
    }

    /// Takes a receipt's lists back.
    pub(crate) fn give_receipt(&mut self, r: Receipt) {
        self.bonds.give(r.broken);
    }

    fn give_receipts(&mut self, mut list: Vec<Receipt>) {
        for r in list.drain(..) {
            self.give_receipt(r);
        }
        self.receipts.give(list);
    }

    /// Takes a pending (or applied) event's lists back.
    pub(crate) fn give_pending(&mut self, p: PendingEvent) {
        self.candidates.give(p.candidates);
    }

    /// Takes every list of `record` back.
    pub(crate) fn give_record(&mut self, record: CommitRecord) {
        let CommitRecord {
            health,
            removed,
            mut created,
            motions,
            receipts,
            ..
        } = record;
        self.health.give(health);
        self.handles.give(removed);
        created.clear();
        self.clusters.give(created);
        self.staged.give(motions);
        self.give_receipts(receipts);
    }

    /// Takes every list of `outcome` back.
    pub(crate) fn give_outcome(&mut self, outcome: CommitOutcome) {
        let CommitOutcome {
            receipts,
            broken,
            removed,
            created,
            shrunk,
            render_only,
            record,
            mut applied,
            ..
        } = outcome;
        self.give_receipts(receipts);
        self.bonds.give(broken);
        for list in [removed, created, shrunk, render_only] {
            self.handles.give(list);
        }
        if let Some(record) = record {
            self.give_record(record);
        }
        for p in applied.drain(..) {
            self.give_pending(p);
        }
        self.pending.give(applied);
    }
}
