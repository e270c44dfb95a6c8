//! Rigid-body budget (DESIGN §3.9, destruction-system seed "预算与生命周期").
//!
//! Every new *dynamic* component of a commit is classified as
//! gameplay-critical (a member chunk carries the asset's `gameplay_critical`
//! tag or lies on the current task path) or decorative. Slots of a fixed-size
//! pool ([`BudgetDesc::body_slots`]) are handed out in this order:
//!
//! 1. every critical component, by stable id (its lowest chunk index);
//! 2. decorative components by volume, largest first, ties by stable id.
//!
//! A decorative component left without a slot becomes
//! [`Representation::RenderOnlyDebris`]: it keeps its chunks (ownership,
//! receipts, replication all see it) but has no authoritative collider. When
//! the critical components alone need more slots than are free, the whole
//! commit is held back ([`BudgetShortfall`]); the events wait in the bounded
//! pending queue ([`BudgetDesc::queue_capacity`]) and admissions answer
//! "deferred" until a slot frees (see [`crate::lifecycle`]).
//!
//! Supported (fixed) components are static geometry and take no slot.
//! Neither do dynamic components with nothing to collide with (no member
//! chunk has a hull and no proxy matches): they are render-only debris
//! whatever their tags, held at rest by the backend (see `ChunkDesc::hulls`).
//!
//! A coarse proxy ([`ProxyDesc`]) replaces a component's per-chunk shapes only
//! when the component's node set equals the proxy's node set exactly and the
//! proxy's authored error bound is within [`BudgetDesc::proxy_error_limit`].
//! A proxy reduces shapes, never bodies: it still takes a slot.

use crate::asset::{Asset, HullDesc};
use crate::index::ChunkIndex;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Identity of an authored proxy: its position in [`BudgetDesc::proxies`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ProxyId(pub u32);

/// How a cluster is represented in the physics world. The backend honours it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Representation {
    /// One body whose colliders are the member chunks' hulls (the default).
    #[default]
    Body,
    /// One body whose colliders are the authored proxy's convex pieces.
    Proxy(ProxyId),
    /// Render-only debris: no body in authoritative collision or queries.
    /// Budget overflow (the chunks' hulls collide with static geometry
    /// only), or a dynamic component none of whose chunks has a hull (no
    /// collider at all; the backend holds it at rest).
    RenderOnlyDebris,
}

impl Representation {
    /// True when the cluster has authoritative collision (a body).
    pub fn is_authoritative(self) -> bool {
        !matches!(self, Self::RenderOnlyDebris)
    }
    pub(crate) fn code(self) -> u32 {
        match self {
            Self::Body => 0,
            Self::Proxy(p) => 1 + (p.0 & 0x7fff_ffff),
            Self::RenderOnlyDebris => u32::MAX,
        }
    }
}

/// An authored coarse collision proxy for one exact set of chunks, e.g. a
/// door frame as left post + right post + lintel (never one hull over the
/// opening).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProxyDesc {
    /// The exact node set this proxy may stand for (any order; duplicates rejected).
    pub nodes: Vec<u32>,
    /// Convex pieces, asset space (m).
    pub hulls: Vec<HullDesc>,
    /// Largest distance between the proxy surface and the true surface, m,
    /// in gameplay space (checked by the authoring tool's passage queries).
    pub error_bound: f32,
}

/// Budget configuration of one instance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BudgetDesc {
    /// Number of dynamic rigid-body slots (pooled, generational).
    pub body_slots: u32,
    /// Capacity of the pending-event queue; a full queue rejects new events.
    pub queue_capacity: u32,
    /// Chunks on the current task path: components containing one are
    /// critical even without the asset tag. Any order.
    pub task_path: Vec<u32>,
    /// Authored proxies.
    pub proxies: Vec<ProxyDesc>,
    /// Largest proxy error bound accepted at run time, m.
    pub proxy_error_limit: f32,
}

/// Default pending-queue capacity.
pub const DEFAULT_QUEUE_CAPACITY: u32 = 4096;

impl Default for BudgetDesc {
    /// Unlimited slots, a queue of [`DEFAULT_QUEUE_CAPACITY`] events, no task
    /// path, no proxies.
    fn default() -> Self {
        Self {
            body_slots: u32::MAX,
            queue_capacity: DEFAULT_QUEUE_CAPACITY,
            task_path: Vec::new(),
            proxies: Vec::new(),
            proxy_error_limit: 0.0,
        }
    }
}

/// Why a [`BudgetDesc`] was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BudgetError {
    /// The queue must hold at least one event.
    #[error("queue capacity must be at least 1")]
    ZeroQueue,
    /// A task-path or proxy node names a chunk that does not exist.
    #[error("chunk {chunk} does not exist (the asset has {chunk_count} chunks)")]
    ChunkOutOfRange {
        /// The chunk named.
        chunk: u32,
        /// Number of chunks.
        chunk_count: u32,
    },
    /// A proxy has no nodes, or repeats one.
    #[error("proxy {proxy} has an empty or repeated node set")]
    BadProxyNodes {
        /// Offending proxy.
        proxy: u32,
    },
    /// Two proxies claim the same node set.
    #[error("proxies {first} and {second} claim the same node set")]
    DuplicateProxy {
        /// First proxy.
        first: u32,
        /// Second proxy.
        second: u32,
    },
    /// A proxy has no hull or a non-finite hull point.
    #[error("proxy {proxy} has no hull or a non-finite hull point")]
    BadProxyHull {
        /// Offending proxy.
        proxy: u32,
    },
    /// Error bound or limit negative or not finite.
    #[error("proxy error bound {value} m must be non-negative and finite")]
    BadErrorBound {
        /// The value.
        value: f32,
    },
}

/// The critical components of a commit need more slots than are free: the
/// commit is held back and its events wait.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error(
    "{critical} critical components need rigid-body slots but only {available} of {capacity} are free"
)]
pub struct BudgetShortfall {
    /// Critical dynamic components the commit would create.
    pub critical: u32,
    /// Slots free for them (including the slots the commit itself frees).
    pub available: u32,
    /// Pool size.
    pub capacity: u32,
}

/// A validated budget.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Budget {
    pub(crate) desc: BudgetDesc,
    task_path: Vec<bool>,
    proxies: BTreeMap<Vec<ChunkIndex>, ProxyId>,
}

impl Budget {
    pub(crate) fn new(asset: &Asset, desc: BudgetDesc) -> Result<Self, BudgetError> {
        let n = asset.chunk_count() as u32;
        if desc.queue_capacity == 0 {
            return Err(BudgetError::ZeroQueue);
        }
        if !(desc.proxy_error_limit.is_finite() && desc.proxy_error_limit >= 0.0) {
            return Err(BudgetError::BadErrorBound {
                value: desc.proxy_error_limit,
            });
        }
        let check = |c: u32| {
            if c < n {
                Ok(ChunkIndex(c))
            } else {
                Err(BudgetError::ChunkOutOfRange {
                    chunk: c,
                    chunk_count: n,
                })
            }
        };
        let mut task_path = vec![false; n as usize];
        for &c in &desc.task_path {
            task_path[check(c)?.0 as usize] = true;
        }
        let mut proxies: BTreeMap<Vec<ChunkIndex>, ProxyId> = BTreeMap::new();
        for (k, p) in desc.proxies.iter().enumerate() {
            let id = k as u32;
            let mut nodes = p
                .nodes
                .iter()
                .map(|&c| check(c))
                .collect::<Result<Vec<_>, _>>()?;
            nodes.sort_unstable();
            let len = nodes.len();
            nodes.dedup();
            if nodes.is_empty() || nodes.len() != len {
                return Err(BudgetError::BadProxyNodes { proxy: id });
            }
            if p.hulls.is_empty()
                || p.hulls
                    .iter()
                    .any(|h| h.points.is_empty() || h.points.iter().any(|q| !q.is_finite()))
            {
                return Err(BudgetError::BadProxyHull { proxy: id });
            }
            if !(p.error_bound.is_finite() && p.error_bound >= 0.0) {
                return Err(BudgetError::BadErrorBound {
                    value: p.error_bound,
                });
            }
            if let Some(first) = proxies.get(&nodes) {
                return Err(BudgetError::DuplicateProxy {
                    first: first.0,
                    second: id,
                });
            }
            proxies.insert(nodes, ProxyId(id));
        }
        Ok(Self {
            desc,
            task_path,
            proxies,
        })
    }

    /// True when a component with these nodes is gameplay-critical.
    pub(crate) fn is_critical(&self, asset: &Asset, nodes: &[ChunkIndex]) -> bool {
        nodes.iter().any(|&n| {
            self.task_path.get(n.0 as usize).copied().unwrap_or(false)
                || asset.chunk(n).is_some_and(|c| c.gameplay_critical)
        })
    }

    /// The proxy accepted for exactly this (sorted) node set, if any.
    pub(crate) fn proxy_for(&self, nodes: &[ChunkIndex]) -> Option<ProxyId> {
        let id = *self.proxies.get(nodes)?;
        let p = self.desc.proxies.get(id.0 as usize)?;
        (p.error_bound <= self.desc.proxy_error_limit).then_some(id)
    }

    /// Replaces the task path (validated like the descriptor's).
    pub(crate) fn set_task_path(
        &mut self,
        asset: &Asset,
        chunks: &[ChunkIndex],
    ) -> Result<(), BudgetError> {
        let n = asset.chunk_count() as u32;
        if let Some(bad) = chunks.iter().find(|c| c.0 >= n) {
            return Err(BudgetError::ChunkOutOfRange {
                chunk: bad.0,
                chunk_count: n,
            });
        }
        let mut path: Vec<u32> = chunks.iter().map(|c| c.0).collect();
        path.sort_unstable();
        path.dedup();
        self.task_path.iter_mut().for_each(|f| *f = false);
        for &c in &path {
            self.task_path[c as usize] = true;
        }
        self.desc.task_path = path;
        Ok(())
    }
}

/// A pooled rigid-body slot. The generation advances each time the slot is
/// released, so work stamped with an older generation is recognisably stale.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct BodySlot {
    /// Slot index in `0..body_slots`.
    pub index: u32,
    /// Generation of this use of the slot.
    pub generation: u32,
}

impl std::fmt::Display for BodySlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "slot {}v{}", self.index, self.generation)
    }
}

/// The pool of rigid-body slots: grows lazily up to `capacity`, hands out the
/// lowest free index first, bumps a slot's generation when it is released.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SlotPool {
    capacity: u32,
    generations: Vec<u32>,
    occupied: Vec<bool>,
    free: BTreeSet<u32>,
}

impl SlotPool {
    pub(crate) fn new(capacity: u32) -> Self {
        Self {
            capacity,
            generations: Vec::new(),
            occupied: Vec::new(),
            free: BTreeSet::new(),
        }
    }

    /// Rebuilds a pool from stored generations and the occupied slots.
    /// Returns `None` when the data is inconsistent.
    pub(crate) fn from_parts(
        capacity: u32,
        generations: Vec<u32>,
        occupied: &[BodySlot],
    ) -> Option<Self> {
        if generations.len() as u64 > capacity as u64 {
            return None;
        }
        let mut occ = vec![false; generations.len()];
        for s in occupied {
            let i = s.index as usize;
            if *generations.get(i)? != s.generation || occ[i] {
                return None;
            }
            occ[i] = true;
        }
        let free = (0..generations.len() as u32)
            .filter(|&i| !occ[i as usize])
            .collect();
        Some(Self {
            capacity,
            generations,
            occupied: occ,
            free,
        })
    }

    pub(crate) fn capacity(&self) -> u32 {
        self.capacity
    }
    pub(crate) fn generations(&self) -> &[u32] {
        &self.generations
    }
    /// Slots in use.
    pub(crate) fn used(&self) -> u32 {
        (self.generations.len() - self.free.len()) as u32
    }
    /// True when `slot` is in use with exactly this generation.
    pub(crate) fn is_current(&self, slot: BodySlot) -> bool {
        self.generations.get(slot.index as usize) == Some(&slot.generation)
            && self.occupied.get(slot.index as usize) == Some(&true)
    }

    /// [`Self::peek_into`] into a new list.
    #[cfg(test)]
    pub(crate) fn peek(&self, released: &[BodySlot], count: usize) -> Vec<BodySlot> {
        let mut cand = Vec::new();
        self.peek_into(released, count, &mut cand);
        cand
    }

    /// The slots on offer for `count` requests after releasing `released`
    /// (all current): lowest index first, at most what is free (a commit
    /// then [`Self::occupy`]s those it hands out); written into `cand` (cleared first; a buffer the caller
    /// reuses).
    pub(crate) fn peek_into(&self, released: &[BodySlot], count: usize, cand: &mut Vec<BodySlot>) {
        cand.clear();
        cand.extend(self.free.iter().map(|&i| BodySlot {
            index: i,
            generation: self.generations[i as usize],
        }));
        cand.extend(released.iter().map(|s| BodySlot {
            index: s.index,
            generation: s.generation.wrapping_add(1),
        }));
        cand.sort_unstable();
        cand.truncate(count);
        let mut next = self.generations.len() as u64;
        while cand.len() < count && next < self.capacity as u64 {
            cand.push(BodySlot {
                index: next as u32,
                generation: 0,
            });
            next += 1;
        }
    }

    /// Releases a current slot (generation advances). Stale slots are ignored.
    pub(crate) fn release(&mut self, slot: BodySlot) {
        if self.is_current(slot) {
            let i = slot.index as usize;
            self.occupied[i] = false;
            self.generations[i] = self.generations[i].wrapping_add(1);
            self.free.insert(slot.index);
        }
    }

    /// True when `slot` could be occupied now: free with that generation, or
    /// a never-used index below the capacity with generation 0.
    pub(crate) fn can_occupy(&self, slot: BodySlot) -> bool {
        let i = slot.index as usize;
        if i < self.generations.len() {
            !self.occupied[i] && self.generations[i] == slot.generation
        } else {
            slot.generation == 0 && slot.index < self.capacity
        }
    }

    /// Occupies `slot`; returns false (and changes nothing) when it cannot.
    /// Never-used indices may be occupied in any order.
    pub(crate) fn occupy(&mut self, slot: BodySlot) -> bool {
        if !self.can_occupy(slot) {
            return false;
        }
        let i = slot.index as usize;
        if i < self.generations.len() {
            self.occupied[i] = true;
            self.free.remove(&slot.index);
            return true;
        }
        // A never-used index: the ones skipped below it become free, it is
        // appended in use (no trip through the free set: a blast taking
        // thousands of new slots did a set insert and remove for each).
        while self.generations.len() < i {
            self.free.insert(self.generations.len() as u32);
            self.generations.push(0);
            self.occupied.push(false);
        }
        self.generations.push(0);
        self.occupied.push(true);
        true
    }
}

/// One new dynamic component awaiting a slot decision.
#[derive(Clone, Debug)]
pub(crate) struct SlotRequest {
    pub(crate) critical: bool,
    pub(crate) volume: f32,
    pub(crate) first_node: ChunkIndex,
}

/// Orders requests as §3.9 states and returns, per request (input order), the
/// slot it gets (`None` = render-only debris). `slots` are the slots on offer
/// in hand-out order.
///
/// # Errors
/// A [`BudgetShortfall`] when the critical requests outnumber `slots`.
#[cfg(test)]
pub(crate) fn assign_slots(
    requests: &[SlotRequest],
    slots: &[BodySlot],
    capacity: u32,
) -> Result<Vec<Option<BodySlot>>, BudgetShortfall> {
    let mut scratch = SlotScratch::default();
    assign_slots_into(
        requests,
        slots,
        capacity,
        &mut scratch.order,
        &mut scratch.assigned,
    )?;
    Ok(scratch.assigned)
}

/// Buffers of one slot decision ([`assign_slots_into`]), reused across
/// commits: grown to the largest commit seen, never shrunk.
#[derive(Clone, Debug, Default)]
pub(crate) struct SlotScratch {
    pub(crate) requests: Vec<SlotRequest>,
    pub(crate) positions: Vec<usize>,
    pub(crate) offered: Vec<BodySlot>,
    pub(crate) order: Vec<usize>,
    pub(crate) assigned: Vec<Option<BodySlot>>,
}

/// Orders requests as §3.9 states and writes, per request (input order),
/// the slot it gets (`None` = render-only debris) into `out`; `slots` are
/// the slots on offer in hand-out order, `order` is scratch (both buffers
/// the caller's, cleared first).
///
/// # Errors
/// A [`BudgetShortfall`] when the critical requests outnumber `slots`.
pub(crate) fn assign_slots_into(
    requests: &[SlotRequest],
    slots: &[BodySlot],
    capacity: u32,
    order: &mut Vec<usize>,
    out: &mut Vec<Option<BodySlot>>,
) -> Result<(), BudgetShortfall> {
    let critical = requests.iter().filter(|r| r.critical).count();
    if critical > slots.len() {
        return Err(BudgetShortfall {
            critical: critical as u32,
            available: slots.len() as u32,
            capacity,
        });
    }
    order.clear();
    order.extend(0..requests.len());
    order.sort_by(|&a, &b| {
        let (ra, rb) = (&requests[a], &requests[b]);
        rb.critical
            .cmp(&ra.critical)
            .then_with(|| {
                if ra.critical {
                    std::cmp::Ordering::Equal
                } else {
                    rb.volume.total_cmp(&ra.volume)
                }
            })
            .then(ra.first_node.cmp(&rb.first_node))
    });
    out.clear();
    out.resize(requests.len(), None);
    for (k, &r) in order.iter().enumerate() {
        out[r] = slots.get(k).copied();
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn req(critical: bool, volume: f32, first: u32) -> SlotRequest {
        SlotRequest {
            critical,
            volume,
            first_node: ChunkIndex(first),
        }
    }

    fn slots(n: u32) -> Vec<BodySlot> {
        (0..n)
            .map(|index| BodySlot {
                index,
                generation: 0,
            })
            .collect()
    }

    #[test]
    fn critical_first_by_id_then_decorative_by_volume_then_id() {
        let r = [
            req(false, 1.0, 0),
            req(true, 0.1, 9),
            req(false, 5.0, 3),
            req(true, 0.1, 2),
            req(false, 5.0, 1),
        ];
        let got = assign_slots(&r, &slots(4), 4).unwrap();
        // Order: crit(2), crit(9), deco 5.0 (1), deco 5.0 (3), deco 1.0 (0).
        assert_eq!(got[3].map(|s| s.index), Some(0));
        assert_eq!(got[1].map(|s| s.index), Some(1));
        assert_eq!(got[4].map(|s| s.index), Some(2));
        assert_eq!(got[2].map(|s| s.index), Some(3));
        assert_eq!(got[0], None, "smallest decorative becomes render-only");
    }

    #[test]
    fn more_critical_than_slots_is_a_shortfall() {
        let r = [req(true, 1.0, 0), req(true, 1.0, 1), req(true, 1.0, 2)];
        assert_eq!(
            assign_slots(&r, &slots(2), 2),
            Err(BudgetShortfall {
                critical: 3,
                available: 2,
                capacity: 2
            })
        );
    }

    #[test]
    fn pool_reuses_the_lowest_index_with_a_new_generation() {
        let mut pool = SlotPool::new(3);
        let a = pool.peek(&[], 2);
        assert!(a.iter().all(|&s| pool.occupy(s)));
        pool.release(a[0]);
        assert!(!pool.is_current(a[0]));
        let b = pool.peek(&[], 2);
        assert_eq!(
            b,
            vec![
                BodySlot {
                    index: 0,
                    generation: 1
                },
                BodySlot {
                    index: 2,
                    generation: 0
                }
            ]
        );
        assert_eq!(pool.peek(&[a[1]], 5).len(), 3, "never more than capacity");
    }
}
