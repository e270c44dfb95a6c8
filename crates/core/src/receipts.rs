//! Receipts of applied events in a bounded window per source (DESIGN §3.8,
//! issue 12 item 4): idempotency without a table that grows for ever.
//!
//! An [`EventId`] is a source and that source's sequence number. Per source
//! the window keeps the receipts of the `window` highest sequence numbers
//! applied (a sliding window, as IPsec's anti-replay window) and one number,
//! the *horizon*: the highest sequence whose receipt has left the window.
//! An id of that source at or below the horizon that is not in the window is
//! answered "duplicate, receipt expired" ([`ReceiptLookup::Expired`]): it is
//! recognised by its number, not by a stored receipt.
//!
//! The consequence a sender must live with: an event that first arrives
//! after `window` later events of its source were applied is refused as
//! expired, since it cannot be told apart from a duplicate. Sources number
//! their events increasingly; gaps and reordering inside the window are fine.
//!
//! Memory: at most `window` receipts per source that ever sent an event,
//! plus one horizon per source; it does not grow with the length of a match.
//! Lookups are O(log n); inserting the next sequence of a source and
//! expiring its lowest are O(1) (a deque per source); a receipt that
//! arrives out of order is inserted in place, O(window).

use crate::damage::{EventId, EventSource};
use crate::instance::Receipt;
use std::collections::{BTreeMap, VecDeque};

/// Receipts kept per source by default: 4096, about 68 s of one source
/// sending 60 events per second, far beyond any retransmission delay.
pub const DEFAULT_RECEIPT_WINDOW: u32 = 4096;

/// What the window knows about an event id.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ReceiptLookup<'a> {
    /// Applied, receipt in the window.
    Recent(&'a Receipt),
    /// At or below its source's horizon and not in the window: applied (or
    /// too late to apply) with its receipt gone.
    Expired,
    /// Never applied (as far as the window can tell).
    Unknown,
}

/// The receipts of one source.
#[derive(Clone, Debug, Default, PartialEq)]
struct SourceReceipts {
    /// Highest sequence whose receipt left the window; `None` while none has.
    horizon: Option<u64>,
    /// The receipts in the window, ascending by sequence number; at most
    /// `window` of them, all above `horizon`. A deque, not a map: receipts
    /// arrive (almost always) in sequence order, so an insert is a push at
    /// the back and an expiry a pop at the front, and once the window is full
    /// neither allocates (a B-tree allocated a node every few inserts, issue
    /// 12 item 3). Out-of-order receipts are inserted in place.
    recent: VecDeque<(u64, Receipt)>,
}

/// Receipts of applied events, a bounded window per [`EventSource`].
///
/// # Invariants
/// Per source: at most [`Self::window`] receipts, every one with a
/// sequence above the source's horizon.
///
/// # Example
/// ```
/// use smithereens_core::receipts::{ReceiptLookup, ReceiptWindow};
/// use smithereens_core::{EventId, EventSource, InstanceId, RadialDamage, Receipt};
/// use smithereens_core::glam::Vec3;
/// let receipt = |seq| Receipt {
///     instance: InstanceId(0),
///     event: RadialDamage { id: EventId::new(EventSource(1), seq), point: Vec3::ZERO,
///                           radius: 1.0, damage: 0.0, impulse: None }.into(),
///     commit_seq: seq,
///     topology_version: 0,
///     broken: vec![],
/// };
/// let mut window = ReceiptWindow::new(2);
/// for seq in [1, 3, 2] {
///     window.insert(receipt(seq));
/// }
/// // Sequence 1 left the window: recognised by its number.
/// assert_eq!(window.len(), 2);
/// assert_eq!(window.lookup(EventId::new(EventSource(1), 1)), ReceiptLookup::Expired);
/// assert!(window.get(EventId::new(EventSource(1), 2)).is_some());
/// assert_eq!(window.lookup(EventId::new(EventSource(1), 4)), ReceiptLookup::Unknown);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ReceiptWindow {
    window: u32,
    sources: BTreeMap<EventSource, SourceReceipts>,
}

impl Default for ReceiptWindow {
    fn default() -> Self {
        Self::new(DEFAULT_RECEIPT_WINDOW)
    }
}

impl ReceiptWindow {
    /// An empty window keeping `window` receipts per source (at least 1).
    pub fn new(window: u32) -> Self {
        Self {
            window: window.max(1),
            sources: BTreeMap::new(),
        }
    }

    /// Receipts kept per source.
    pub fn window(&self) -> u32 {
        self.window
    }

    /// Changes the number of receipts kept per source (at least 1); a
    /// smaller window expires the lowest sequences at once.
    pub fn set_window(&mut self, window: u32) {
        self.window = window.max(1);
        let keep = self.window as usize;
        for s in self.sources.values_mut() {
            s.trim(keep, &mut drop);
        }
    }

    /// What the window knows about `id`.
    pub fn lookup(&self, id: EventId) -> ReceiptLookup<'_> {
        let Some(s) = self.sources.get(&id.source()) else {
            return ReceiptLookup::Unknown;
        };
        match s.get(id.sequence()) {
            Some(r) => ReceiptLookup::Recent(r),
            None if s.horizon.is_some_and(|h| id.sequence() <= h) => ReceiptLookup::Expired,
            None => ReceiptLookup::Unknown,
        }
    }

    /// The receipt of `id` when it is in the window.
    pub fn get(&self, id: EventId) -> Option<&Receipt> {
        self.sources
            .get(&id.source())
            .and_then(|s| s.get(id.sequence()))
    }

    /// Records the receipt of an applied event (replacing one with the same
    /// id), then expires its source's lowest sequences beyond the window. A
    /// receipt at or below its source's horizon expires at once.
    pub fn insert(&mut self, receipt: Receipt) {
        self.insert_evicting(receipt, &mut drop);
    }

    /// [`Self::insert`], handing every receipt that leaves the window (or
    /// is replaced, or expires at once) to `evicted`, so its lists can be
    /// reused.
    pub(crate) fn insert_evicting(&mut self, receipt: Receipt, evicted: &mut dyn FnMut(Receipt)) {
        let id = receipt.event.id;
        let s = self.sources.entry(id.source()).or_default();
        if s.horizon.is_some_and(|h| id.sequence() <= h) {
            evicted(receipt);
            return;
        }
        let seq = id.sequence();
        match s.recent.back() {
            Some(&(last, _)) if last >= seq => {
                match s.recent.binary_search_by_key(&seq, |&(q, _)| q) {
                    Ok(i) => evicted(std::mem::replace(&mut s.recent[i].1, receipt)),
                    Err(i) => s.recent.insert(i, (seq, receipt)),
                }
            }
            _ => s.recent.push_back((seq, receipt)),
        }
        s.trim(self.window as usize, evicted);
    }

    /// Receipts in the window, ascending by event id.
    pub fn iter(&self) -> impl Iterator<Item = &Receipt> + '_ {
        self.sources
            .values()
            .flat_map(|s| s.recent.iter().map(|(_, r)| r))
    }

    /// Number of receipts in the window (all sources).
    pub fn len(&self) -> usize {
        self.sources.values().map(|s| s.recent.len()).sum()
    }

    /// True when no receipt is in the window.
    pub fn is_empty(&self) -> bool {
        self.sources.values().all(|s| s.recent.is_empty())
    }

    /// Number of sources seen (each holds a horizon).
    pub fn source_count(&self) -> usize {
        self.sources.len()
    }

    /// Every source's horizon (highest expired sequence), ascending by
    /// source; sources none of whose receipts expired are left out.
    pub fn horizons(&self) -> Vec<(EventSource, u64)> {
        self.sources
            .iter()
            .filter_map(|(&src, s)| Some((src, s.horizon?)))
            .collect()
    }

    /// Sets the horizon of `source` (restoring a snapshot): receipts at or
    /// below it leave the window. Never lowers a horizon.
    pub(crate) fn expire_through(&mut self, source: EventSource, horizon: u64) {
        let s = self.sources.entry(source).or_default();
        s.horizon = Some(s.horizon.map_or(horizon, |h| h.max(horizon)));
        let cut = s.recent.partition_point(|&(q, _)| q <= horizon);
        s.recent.drain(..cut);
    }
}

impl SourceReceipts {
    /// The receipt with sequence `seq`, if in the window.
    fn get(&self, seq: u64) -> Option<&Receipt> {
        let i = self.recent.binary_search_by_key(&seq, |&(q, _)| q).ok()?;
        Some(&self.recent[i].1)
    }

    /// Expires the lowest sequences until at most `keep` receipts remain.
    fn trim(&mut self, keep: usize, evicted: &mut dyn FnMut(Receipt)) {
        while self.recent.len() > keep {
            if let Some((seq, old)) = self.recent.pop_front() {
                self.horizon = Some(self.horizon.map_or(seq, |h| h.max(seq)));
                evicted(old);
            }
        }
    }
}
