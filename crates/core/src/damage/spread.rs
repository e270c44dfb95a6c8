//! Impact damage that starts at the touched chunk and spreads through the
//! bond graph ring by ring (issue 11, item 1).
//!
//! The rings are breadth-first levels of the intact graph around the touched
//! chunk `c₀`: level 0 is `{c₀}`; ring `k` holds every intact bond incident
//! to a level-`k` chunk that no earlier ring holds (bonds to the world
//! included); level `k + 1` is the chunks those bonds reach for the first
//! time. The budget `D` (du) is spent ring by ring:
//!
//! - ring `k` receives what is left, `Rₖ` (`R₀ = D`);
//! - inside the ring the budget is **water-filled** over the bonds' remaining
//!   health `h₁ ≤ h₂ ≤ … ≤ hₙ` (ties by bond index): the weakest bond breaks
//!   first when its equal share `R/(n − i)` covers it, taking exactly `hᵢ`;
//!   once a share no longer covers the next bond, every bond left takes that
//!   share and nothing is left over;
//! - only when the whole ring broke does the remainder `Rₖ − Σ hᵢ` pass on
//!   to ring `k + 1`, up to `max_rings` rings (the reach);
//! - what no ring could take (reach exhausted, or no intact bond left) is
//!   **unspent** and reported, never silently dropped: `removed + unspent = D`
//!   up to rounding.
//!
//! A crack front, in short: damage goes to the weakest bonds first, and
//! reaches further only through a ring it severed completely. The number of
//! bonds broken never decreases as `D` grows (each ring's share and each
//! ring's remainder are non-decreasing in what it receives), so a harder hit
//! always breaks at least as much — the property a fixed-radius rule lacks
//! (with a fixed 0.35 m radius, 450 kg and 1e12 kg balls broke the same
//! 26–27 bonds of the built-in wall). Unlike the radial and falloff rules it
//! needs no positions: it reads the graph and the health at the moment it is
//! applied, so events applied earlier in the same commit shape it.

use crate::asset::SupportGraph;
use crate::index::{BondIndex, ChunkIndex};

/// What one spreading event did.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct SpreadOutcome {
    /// Damage removed from bond health, du.
    pub removed: f32,
    /// Budget no ring could take (reach exhausted or no intact bond left), du.
    pub unspent: f32,
    /// Rings that received damage (0 when the touched chunk had no intact bond).
    pub rings: u32,
}

/// Reused buffers of [`apply_spread`]: epoch stamps per chunk and per bond
/// and the current level and ring. Grows to the asset once; a later event
/// allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct SpreadScratch {
    epoch: u32,
    chunk_stamp: Vec<u32>,
    bond_stamp: Vec<u32>,
    level: Vec<ChunkIndex>,
    next: Vec<ChunkIndex>,
    ring: Vec<(f32, BondIndex)>,
}

impl SpreadScratch {
    fn begin(&mut self, chunks: usize, bonds: usize) {
        if self.chunk_stamp.len() < chunks {
            self.chunk_stamp.resize(chunks, 0);
        }
        if self.bond_stamp.len() < bonds {
            self.bond_stamp.resize(bonds, 0);
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.chunk_stamp.fill(0);
            self.bond_stamp.fill(0);
            self.epoch = 1;
        }
        self.level.clear();
        self.next.clear();
        self.ring.clear();
    }
}

/// Applies a spreading event of budget `damage` (du) from chunk `start` over
/// at most `max_rings` rings of the intact graph (see the module docs).
/// `health` has one entry per bond (du). Newly broken bonds are appended to
/// `broken`, and every bond whose health changes is appended to `undo` with
/// its health before the change (an undo log), both in the order damage
/// reached them. A `start` outside the graph, a zero budget or
/// `max_rings == 0` changes nothing (the whole budget is unspent).
///
/// Cost: O(bonds and chunks of the rings reached), independent of the size
/// of the structure.
#[allow(clippy::too_many_arguments)] // one rule, its inputs and its three outputs
pub fn apply_spread(
    graph: &SupportGraph,
    health: &mut [f32],
    start: ChunkIndex,
    damage: f32,
    max_rings: u32,
    scratch: &mut SpreadScratch,
    broken: &mut Vec<BondIndex>,
    undo: &mut Vec<(BondIndex, f32)>,
) -> SpreadOutcome {
    let mut out = SpreadOutcome {
        unspent: damage.max(0.0),
        ..SpreadOutcome::default()
    };
    if start.0 as usize >= graph.node_count() || !(damage > 0.0) || max_rings == 0 {
        return out;
    }
    scratch.begin(graph.node_count(), health.len());
    let epoch = scratch.epoch;
    scratch.chunk_stamp[start.0 as usize] = epoch;
    scratch.level.push(start);
    let mut left = damage;
    let intact = |health: &[f32], b: BondIndex| health.get(b.0 as usize).is_some_and(|&h| h > 0.0);
    while out.rings < max_rings && left > 0.0 && !scratch.level.is_empty() {
        // Gather ring k and level k + 1.
        scratch.ring.clear();
        scratch.next.clear();
        for &c in &scratch.level {
            for &b in graph.world_bonds(c) {
                if intact(health, b) && scratch.bond_stamp[b.0 as usize] != epoch {
                    scratch.bond_stamp[b.0 as usize] = epoch;
                    scratch.ring.push((health[b.0 as usize], b));
                }
            }
            for (n, b) in graph.neighbours(c) {
                if !intact(health, b) || scratch.bond_stamp[b.0 as usize] == epoch {
                    continue;
                }
                scratch.bond_stamp[b.0 as usize] = epoch;
                scratch.ring.push((health[b.0 as usize], b));
                if scratch.chunk_stamp[n.0 as usize] != epoch {
                    scratch.chunk_stamp[n.0 as usize] = epoch;
                    scratch.next.push(n);
                }
            }
        }
        if scratch.ring.is_empty() {
            break;
        }
        out.rings += 1;
        // Water-fill: weakest first, ties by bond index.
        scratch
            .ring
            .sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let n = scratch.ring.len();
        for i in 0..n {
            let (h, b) = scratch.ring[i];
            let share = left / (n - i) as f32;
            undo.push((b, h));
            if h <= share {
                health[b.0 as usize] = 0.0;
                broken.push(b);
                out.removed += h;
                left = (left - h).max(0.0);
                continue;
            }
            // The rest of the ring takes this share each and the budget is spent.
            for (j, &(h, b)) in scratch.ring[i..].iter().enumerate() {
                if j > 0 {
                    undo.push((b, h));
                }
                let after = (h - share).max(0.0);
                health[b.0 as usize] = after;
                out.removed += h - after;
            }
            left = 0.0;
            break;
        }
        std::mem::swap(&mut scratch.level, &mut scratch.next);
    }
    out.unspent = left;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asset::Asset;
    use crate::fixtures::{chain, grid_desc};

    fn run(
        asset: &Asset,
        health: &mut [f32],
        start: u32,
        damage: f32,
        rings: u32,
    ) -> (SpreadOutcome, Vec<BondIndex>) {
        let (mut broken, mut undo) = (Vec::new(), Vec::new());
        let out = apply_spread(
            asset.graph(),
            health,
            ChunkIndex(start),
            damage,
            rings,
            &mut SpreadScratch::default(),
            &mut broken,
            &mut undo,
        );
        (out, broken)
    }

    #[test]
    fn the_remainder_of_a_severed_ring_passes_to_the_next() {
        // Chain 0–1–2–3–4, 10 du bonds, hit at the end chunk 0 with 25 du:
        // ring 0 = bond 0–1 breaks (10), ring 1 = 1–2 breaks (10), ring 2 = 2–3 takes 5.
        let a = chain(5, &[(0, 1), (1, 2), (2, 3), (3, 4)], &[]).unwrap();
        let mut h = vec![10.0; 4];
        let (out, broken) = run(&a, &mut h, 0, 25.0, 16);
        assert_eq!(h, [0.0, 0.0, 5.0, 10.0]);
        assert_eq!(broken, [BondIndex(0), BondIndex(1)]);
        assert_eq!((out.removed, out.unspent, out.rings), (25.0, 0.0, 3));
    }

    #[test]
    fn a_ring_is_water_filled_weakest_first() {
        // Star: chunk 0 bonded to 1, 2, 3 with 2, 4 and 10 du left; 9 du:
        // share 3 breaks the 2 du bond, then 7/2 = 3.5 each is left on the others.
        let a = chain(4, &[(0, 1), (0, 2), (0, 3)], &[]).unwrap();
        let mut h = vec![2.0, 4.0, 10.0];
        let (out, broken) = run(&a, &mut h, 0, 9.0, 16);
        assert_eq!(h, [0.0, 0.5, 6.5]);
        assert_eq!(broken, [BondIndex(0)]);
        assert_eq!((out.removed, out.unspent), (9.0, 0.0));
    }

    #[test]
    fn what_lies_beyond_the_reach_is_reported_unspent() {
        let a = chain(3, &[(0, 1), (1, 2)], &[]).unwrap();
        let mut h = vec![10.0; 2];
        let (out, _) = run(&a, &mut h, 0, 100.0, 1);
        assert_eq!(h, [0.0, 10.0]);
        assert_eq!((out.removed, out.unspent, out.rings), (10.0, 90.0, 1));
        // Past the last intact bond the rest is unspent too.
        let mut h = vec![10.0; 2];
        let (out, _) = run(&a, &mut h, 0, 100.0, 16);
        assert_eq!((out.removed, out.unspent, out.rings), (20.0, 80.0, 2));
        // A chunk outside the graph, zero damage, zero reach: nothing.
        let mut h = vec![10.0; 2];
        for (start, d, r) in [(7, 5.0, 4), (0, 0.0, 4), (0, 5.0, 0)] {
            let (out, broken) = run(&a, &mut h, start, d, r);
            assert_eq!((out.removed, out.unspent, broken.len()), (0.0, d, 0));
        }
        assert_eq!(h, [10.0; 2]);
    }

    #[test]
    fn a_harder_hit_never_breaks_fewer_bonds() {
        // 12 × 8 × 1 wall of 0.25 m cubes with uneven health; budgets doubling.
        let a = Asset::new(&grid_desc(12, 8, 1, 0.25, 2400.0, 1500.0)).unwrap();
        let mut seed = 0x9E37_79B9u32;
        let base: Vec<f32> = (0..a.bond_count())
            .map(|_| {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                50.0 + (seed >> 8) as f32 / (1u32 << 24) as f32 * 100.0
            })
            .collect();
        let total: f32 = base.iter().sum();
        let mut last = 0;
        let mut d = 10.0;
        while d < 4.0 * total {
            let mut h = base.clone();
            let (out, broken) = run(&a, &mut h, 12 * 4 + 6, d, 64);
            assert!(
                broken.len() >= last,
                "{d} du broke {} < {last}",
                broken.len()
            );
            assert!((out.removed + out.unspent - d).abs() <= 1e-3 * d);
            last = broken.len();
            d *= 1.5;
        }
        assert_eq!(last, a.bond_count(), "the largest budget breaks every bond");
    }
}
