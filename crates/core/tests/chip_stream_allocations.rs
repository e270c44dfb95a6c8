#![allow(clippy::unwrap_used)]
//! Issue 12 item 3: a steady stream of small chips — each breaking one
//! corner chunk off a large block — through admission, planning and the
//! headless commit, counted by a global allocator after warm-up.
//!
//! Not zero: the commit's internal temporaries come from reused buffers
//! (`CommitScratch`: the plan's pre-batch healths, broken bonds by cluster,
//! island seeds and pieces, slot decision, peeked handles, event, split and
//! part lists, the install's cluster lists), so what is left (21–23
//! allocations, about 1 KB, per chip on every block size) is data
//! the commit hands out or keeps, one or two small blocks each:
//! - admission: the event's frozen candidate bonds (kept while pending);
//! - plan: each event's broken bonds (they become its receipt's), all broken
//!   bonds (the outcome's `broken`), the health changes (the record's), the
//!   new piece's member list (the new cluster's) and the island search's
//!   piece list;
//! - the backend's motions (`CommitBackend::commit` returns a `Vec`);
//! - the record: its created-cluster list and the new piece's node list,
//!   its receipts, the applied events (with their candidates) the outcome
//!   returns, and the receipt kept in the receipt window;
//! - the outcome: copies of the receipts and the created and shrunk lists.
//!
//! Making those zero needs caller-provided outcome and record buffers (an
//! API change), left for later.
//!
//! This file is its own test binary, so the counting allocator sees only it.

use smithereens_core::glam::Vec3;
use smithereens_core::{Asset, EventId, HeadlessBackend, Instance, Pose, RadialDamage, fixtures};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use std::alloc::System;
use std::sync::Arc;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Most allocations (allocations + reallocations) one chip may make after
/// warm-up: 21 measured, 22–23 when the receipt window or the cluster
/// table grows.
const MAX_PER_CHIP: usize = 23;

/// Chip `k` on an `n³` grid: a ball of radius 0.6 m at the centre of the
/// `k`-th chunk of the top layer (z = n − 1, far from the world bonds under
/// z = 0) in row order, always a corner of what is left of that layer,
/// breaking the face bonds of that one chunk (their centroids are 0.5 m
/// from its centre, the next ones ≥ 1.1 m).
fn chip(n: u32, k: u32) -> RadialDamage {
    let (x, y) = (k % n, k / n);
    RadialDamage {
        id: EventId(k as u64 + 1),
        point: Vec3::new(x as f32 + 0.5, y as f32 + 0.5, n as f32 - 0.5),
        radius: 0.6,
        damage: 1.0e9,
        impulse: None,
    }
}

/// Allocations and bytes of each of `chips` chips after 40 of warm-up.
fn stream(n: u32, chips: u32) -> Vec<(usize, usize)> {
    let asset = Arc::new(Asset::new(&fixtures::blast_grid_desc(n)).unwrap());
    let mut inst = Instance::new(asset, Pose::IDENTITY).unwrap();
    let mut backend = HeadlessBackend::default();
    let mut apply = |inst: &mut Instance, k: u32| {
        inst.admit(chip(n, k)).unwrap();
        let outcome = inst.commit(&mut backend).unwrap();
        // One chunk broke off; the block keeps its handle.
        assert_eq!(outcome.created.len(), 1, "chip {k}");
        assert_eq!(outcome.shrunk.len(), 1, "chip {k}");
        outcome
    };
    // Warm-up: scratch buffers, pools and the receipt window grow to size.
    for k in 0..40 {
        drop(apply(&mut inst, k));
    }
    let mut per_chip = Vec::new();
    for k in 40..40 + chips {
        let region = Region::new(GLOBAL);
        let outcome = apply(&mut inst, k);
        let during = region.change();
        drop(outcome);
        per_chip.push((
            during.allocations + during.reallocations,
            during.bytes_allocated + during.bytes_reallocated.max(0) as usize,
        ));
    }
    assert_eq!(inst.cluster_count(), (1 + 40 + chips) as usize);
    per_chip
}

#[test]
fn a_steady_stream_of_chips_allocates_a_small_bound_per_chip_whatever_the_block_size() {
    let mut maxima = Vec::new();
    for n in [10, 20] {
        let per_chip = stream(n, 30);
        let max = per_chip.iter().map(|c| c.0).max().unwrap();
        let mut bytes: Vec<usize> = per_chip.iter().map(|c| c.1).collect();
        bytes.sort_unstable();
        let median = bytes[bytes.len() / 2];
        println!("N = {n}: at most {max} allocations, median {median} bytes per chip");
        assert!(max <= MAX_PER_CHIP, "N = {n}: {per_chip:?}");
        // Small blocks, never a copy of the block's member list or health.
        // (Now and then the instance's cluster table doubles as the chips
        // pile up: amortised growth of what it holds, not per-chip cost.)
        assert!(median < 2048, "N = {n}: {per_chip:?}");
        maxima.push((max, median));
    }
    // The cost of a chip does not grow with the block (1,000 → 8,000 chunks).
    assert!(maxima[1].0 <= maxima[0].0 + 1, "{maxima:?}");
}
