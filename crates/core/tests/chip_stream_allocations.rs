#![allow(clippy::unwrap_used)]
//! Issue 12 item 3: a steady stream of small chips — each breaking one
//! corner chunk off a large block — through admission, planning and the
//! headless commit, with each outcome handed back (`Instance::recycle`),
//! counted by a global allocator after warm-up: **no allocation at all**.
//!
//! The commit's temporaries come from buffers the instance reuses
//! (`CommitScratch`); the lists it hands out or keeps come from its pools
//! (`smithereens_core::pool`): the pending event's candidates, each event's
//! broken bonds, the record's health changes, created clusters and member
//! lists, the backend's motions, the receipts (in the record, the outcome
//! and the receipt window) and the outcome's handle lists. A one-chunk
//! piece keeps its member list inline (`Members`). What still grows is
//! what holds the new clusters, the cluster table, doubling; the warm-up
//! takes it past what the measured chips need (128 entries), and fills the
//! receipt window (32 receipts here, so that each new receipt evicts one),
//! so the measured chips are the steady state.
//!
//! This file is its own test binary, so the counting allocator sees only it.

use smithereens_core::glam::Vec3;
use smithereens_core::{
    Asset, BodyAllowance, CommitStatus, EventId, HeadlessBackend, Instance, Pose, RadialDamage,
    fixtures,
};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use std::alloc::System;
use std::sync::Arc;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Chips before counting: the cluster table and the receipt window double
/// to 128 entries, past the `WARM_UP + chips` ≤ 100 clusters the test makes.
const WARM_UP: u32 = 70;

/// Receipts the instance keeps (see `stream`).
const RECEIPT_WINDOW: u32 = 32;

/// Chip `k` on an `n³` grid: a ball of radius 0.6 m at the centre of the
/// `k`-th chunk of the top layer (z = n − 1, far from the world bonds under
/// z = 0) in row order, always a corner of what is left of that layer,
/// breaking the face bonds of that one chunk (their centroids are 0.5 m
/// from its centre, the next ones ≥ 1.1 m), with an upward impulse when
/// `impulse` (its chunk found through the loose index).
fn chip(n: u32, k: u32, impulse: bool) -> RadialDamage {
    let (x, y) = (k % n, k / n);
    RadialDamage {
        // Odd ids; the pushes take the even ones between (the receipt
        // window answers ids far below the newest as expired).
        id: EventId(2 * k as u64 + 1),
        point: Vec3::new(x as f32 + 0.5, y as f32 + 0.5, n as f32 - 0.5),
        radius: 0.6,
        damage: 1.0e9,
        impulse: impulse.then_some(Vec3::new(0.0, 0.0, 10.0)),
    }
}

/// A push on the piece chip `k` broke off: no damage, an impulse at its
/// chunk's centre (the piece is loose by then, so the commit changes the
/// motion of a cluster it does not create).
fn push(n: u32, k: u32) -> RadialDamage {
    let mut event = chip(n, k, true);
    event.id = EventId(2 * k as u64 + 2);
    event.radius = 0.1;
    event.damage = 0.0;
    event
}

/// Allocations and bytes of each of `chips` chips after `WARM_UP` chips,
/// each outcome handed back when `recycle`, dropped otherwise; when
/// `throttled`, each chip is first planned and sent back by a frame with no
/// body left to create (the commit recycles that plan itself).
fn stream(
    n: u32,
    chips: u32,
    recycle: bool,
    impulse: bool,
    throttled: bool,
) -> Vec<(usize, usize)> {
    let asset = Arc::new(Asset::new(&fixtures::blast_grid_desc(n)).unwrap());
    let mut inst = Instance::new(asset, Pose::IDENTITY).unwrap();
    // A window that is full after the warm-up: each new receipt then
    // evicts one, whose lists the next chip reuses (with the default 4096
    // the window would still be filling, one kept receipt per chip).
    inst.set_receipt_window(RECEIPT_WINDOW);
    let mut backend = HeadlessBackend::default();
    let mut apply = |inst: &mut Instance, k: u32| {
        inst.admit(chip(n, k, impulse)).unwrap();
        if impulse && k > 0 {
            inst.admit(push(n, k - 1)).unwrap();
        }
        if throttled {
            let spent = BodyAllowance {
                remaining: 0,
                per_frame: 1,
            };
            let sent_back = inst.commit_within(&mut backend, spent).unwrap();
            assert!(
                matches!(sent_back.status, CommitStatus::Throttled { .. }),
                "chip {k}: {:?}",
                sent_back.status
            );
        }
        let outcome = inst.commit(&mut backend).unwrap();
        // One chunk broke off; the block keeps its handle.
        assert_eq!(outcome.created.len(), 1, "chip {k}");
        assert_eq!(outcome.shrunk.len(), 1, "chip {k}");
        outcome
    };
    // Warm-up: scratch buffers, pools and the receipt window grow to size.
    for k in 0..WARM_UP {
        let outcome = apply(&mut inst, k);
        if recycle {
            inst.recycle(outcome);
        }
    }
    let mut per_chip = Vec::new();
    for k in WARM_UP..WARM_UP + chips {
        let region = Region::new(GLOBAL);
        let outcome = apply(&mut inst, k);
        if recycle {
            inst.recycle(outcome);
        } else {
            drop(outcome);
        }
        let during = region.change();
        per_chip.push((
            during.allocations + during.reallocations,
            during.bytes_allocated + during.bytes_reallocated.max(0) as usize,
        ));
    }
    assert_eq!(inst.cluster_count(), (1 + WARM_UP + chips) as usize);
    per_chip
}

// One test function: the counting allocator is global, and tests of one
// binary run on parallel threads.
fn a_steady_stream_of_chips_allocates_nothing_when_recycled_and_only_its_outcome_when_not() {
    recycled_chips_allocate_nothing_whatever_the_block_size_with_impulses_or_not();
    without_recycling_a_chip_allocates_only_the_lists_it_hands_out();
}

/// Also with an impulse on each chip and a push on the piece the chip
/// before broke off: their admission brings the loose index up to date
/// (the last chip's piece) and asks it for the chunk nearest the point; the
/// index grows with the cluster table, and the commit's impulse lists (also
/// the motions of existing pieces an impulse changes) come from its scratch
/// and pools, so it allocates nothing either.
///
/// Also when each chip is first throttled (planned, then sent back by a
/// frame whose body allowance is spent): the throttled plan's lists, parts
/// and boxes of mass sums go back to the instance (`Instance::recycle_plan`),
/// so planning it again allocates nothing (a dropped plan cost 7–8
/// allocations per chip).
fn recycled_chips_allocate_nothing_whatever_the_block_size_with_impulses_or_not() {
    for (impulse, throttled) in [(false, false), (true, false), (false, true), (true, true)] {
        for n in [10, 20] {
            let per_chip = stream(n, 30, true, impulse, throttled);
            println!(
                "N = {n}, impulses {impulse}, throttled {throttled}: (allocations, bytes) per chip {per_chip:?}"
            );
            assert!(
                per_chip.iter().all(|&c| c == (0, 0)),
                "N = {n}, impulses {impulse}, throttled {throttled}: {per_chip:?}"
            );
        }
    }
}

fn without_recycling_a_chip_allocates_only_the_lists_it_hands_out() {
    // Dropped outcomes take their lists with them; the next chip allocates
    // them again: the outcome's (receipts, their broken bonds, broken, the
    // created and shrunk handles, applied events and their candidates) and
    // its record's (health, created clusters, the piece's member list,
    // receipts and their broken bonds): 12 blocks, 2.1 KB, measured at both
    // sizes (21–23 before the pools), whatever the block.
    for n in [10, 20] {
        let per_chip = stream(n, 30, false, false, false);
        let max = per_chip.iter().map(|c| c.0).max().unwrap();
        println!("N = {n}, not recycled: {per_chip:?}");
        assert!(max <= 14, "N = {n}: {per_chip:?}");
        assert!(
            per_chip.iter().all(|c| c.1 < 4096),
            "small blocks only: {per_chip:?}"
        );
    }
}

/// Runs without libtest's harness (`harness = false` in Cargo.toml): the
/// allocation counter is global, and the harness's main thread does its
/// own bookkeeping while a test runs on another thread (one 96-byte
/// allocation counted inside a measured section: a CI flake), so the check
/// runs on the main thread alone.
fn main() {
    a_steady_stream_of_chips_allocates_nothing_when_recycled_and_only_its_outcome_when_not();
}
