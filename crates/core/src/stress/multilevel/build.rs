//! Building the hierarchy, whole or in pieces.
//!
//! A build has five pieces, always run in this order and each a pass over
//! the system it builds:
//!
//! 1. [`Piece::Start`]: the fine level's copy of the system and its
//!    adjacency, whether level 1 is that system assembled (or the whole
//!    preconditioner, solved densely: the build ends here), and the
//!    aggregates of level 1;
//! 2. [`Piece::Inverses`]: the fine level's inverse diagonal blocks, for
//!    its block-Jacobi smoothing;
//! 3. [`Piece::Smoothing`]: that smoothing (its single-precision copies
//!    and the bonds between aggregates; this piece and the one before do
//!    nothing when the fine level is assembled, whose level 1 smooths on
//!    its own blocks);
//! 4. [`Piece::Assembly`]: level 1's pattern and blocks (summed from the
//!    bonds, or copying the rows that stand in a rebuild);
//! 5. [`Piece::Levels`]: level 1's inverse and single-precision blocks,
//!    the coarser levels and the coarsest level's dense factor.
//!
//! [`Multilevel::build`] runs them in one go. A solve runs them as steps of
//! their own under a work limit (`solver/reduced.rs`, "Slices", and the
//! full solve's switch from the forest): [`Multilevel::start_build`] runs
//! the first and keeps the rest pending, [`Multilevel::build_part`] runs
//! the next part of the next. The pieces read nothing but the system given
//! to the first (its copy) and what the earlier pieces wrote, so a build
//! in pieces is bit for bit a build in one go whatever runs between them,
//! as long as nothing else builds, rebuilds or updates this hierarchy in
//! between (which drops the pending pieces). (Three pieces before: the
//! inverses with the smoothing, level 1 with the coarser levels; on the
//! 100 × 50 × 2 wall the larger of those took up to 4.5 ms on this
//! project's machine.)
//!
//! # Parts
//! Each piece is a sequence of passes (phases): the first copies the
//! nodes ([`Multilevel::start_build`], the first part always) and the
//! bonds, makes the adjacency, counts the coupled pairs and aggregates
//! (on the refined 100 × 50 × 2 wall the copy took 0.84 ms of its 1.3;
//! [`Multilevel::build_part`] takes the later phases from the system's
//! bonds it is given, those the build began over); the
//! inverses sum the bonds' blocks, then invert the nodes'; the smoothing
//! copies the bonds, the inverses and the bonds between aggregates; the
//! assembly makes level 1's rows, then sums the bonds; the levels finish
//! level 1's rows and blocks, then assemble level 2 from it row by row,
//! then build the coarser levels past it. A build begun
//! with `parts` > 1 takes each such piece in that many parts: the items of
//! its phases (a bond, a node, a row, or a phase's start as one item) are
//! dealt out evenly by their weight (about their time, [`START_WEIGHTS`]
//! and the others) over the parts in order ([`in_part`]), so the parts
//! together run every item once, in the order one pass does, and the
//! build is bit for bit the same (`tests::a_build_in_parts_is_a_build_in_one_go`).
//! A phase's start (zeroing or sizing arrays over the nodes) runs whole
//! in the part its first item falls in, and counts as many items as the
//! arrays it sizes have entries, so that part takes fewer others.
//! The levels past level 2 are one item (on the refined 100 × 50 × 2
//! wall, 8,000 nodes, the levels past 1 took 1.1–1.4 ms of the piece's
//! 2.1–2.5, most of it level 2), and so is a level 1 reused by a rebuild
//! with the levels past it. On that wall a piece took 1.4–2.3 ms in one
//! part.

use super::rebuild::BALANCE_PARTS;
use super::{COARSEST, Coarse, LocalBond, Multilevel, NONE, PARALLEL_BONDS, clear_for, resize};
use glam::DVec3;

/// The weight of an item of each phase of the pieces, in the order of
/// their phases (see Parts): about its time in nanoseconds on the refined
/// 100 × 50 × 2 wall (`examples/stress_updates.rs`, measured 2026-12-07),
/// so that the parts take about equal times. Dealt out by count alone, the
/// part that copied the bonds (44 ns a bond against 2–9 for the rest of
/// the first piece) or summed the inverse blocks took 1.1–2.2 ms where
/// the others took 0.3–0.6. A phase's start (one item counted as the
/// entries it sizes) weighs its own cost per entry.
const START_WEIGHTS: [usize; 11] = [44, 1, 8, 7, 9, 1, 8, 1, 5, 2, 66];
/// See [`START_WEIGHTS`]: the inverses' start, bonds summed, nodes
/// inverted.
const INVERSES_WEIGHTS: [usize; 3] = [79, 36, 79];
/// See [`START_WEIGHTS`]: the smoothing's start, bonds, inverses, bonds
/// between aggregates.
const SMOOTHING_WEIGHTS: [usize; 4] = [29, 36, 98, 9];
/// See [`START_WEIGHTS`]: level 1's pattern start, rows, sums' start,
/// bonds summed.
const ASSEMBLY_WEIGHTS: [usize; 4] = [7, 149, 773, 63];
/// See [`START_WEIGHTS`]: level 1's finish, its blocks, its slots, its
/// pattern, the buffers' balance (`balance_buffers`, in
/// [`BALANCE_PARTS`] parts dealt out over its rows), level 2's start and
/// rows, its finish, the levels past it. (The pattern and the balance
/// were one item, 1022 ns a row, split here as 22 for the pattern, which
/// took 0.00–0.02 ms for 360–1,250 rows, and the rest for the balance;
/// grown, the balance took up to 2.2 ms in one part.)
const LEVELS_WEIGHTS: [usize; 9] = [1, 332, 111, 22, 1000, 112, 421, 70, 141_760];

/// A piece of a build (see the [module docs](self)), in the order they
/// run.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Piece {
    /// The fine level's copy, adjacency and level 1's aggregates
    /// ([`Multilevel::start_build`] and its parts).
    Start,
    /// The fine level's inverse diagonal blocks.
    Inverses,
    /// The fine level's smoothing.
    Smoothing,
    /// Level 1's pattern and blocks.
    Assembly,
    /// The rest of level 1, the coarser levels and the dense factor.
    Levels,
}

/// What a build begun by [`Multilevel::start_build`] has left.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Pending {
    /// The next piece to run (never [`Piece::Start`]), how many of its
    /// parts have run, and how many each piece is taken in (see Parts).
    next: Piece,
    part: u32,
    parts: u32,
    /// Level 1's aggregates.
    count: usize,
    /// Whether the fine level was aggregated (it is larger than the
    /// coarsest level), and whether there is a level 1 to assemble (false:
    /// the coarsening stalled at the fine level, or it is too small to
    /// coarsen).
    aggregated: bool,
    levels: bool,
    /// A rebuild that set the hierarchy before aside: an assembled level 1
    /// copies its rows that stand.
    reusing: bool,
    /// Level 1 was assembled copying rows ([`Piece::Assembly`] done so):
    /// its finish and the coarser levels reuse too.
    reused: bool,
}

impl Multilevel {
    /// Builds the hierarchy over the fine system (`n + 1` nodes, the last
    /// the world), all pieces in one go.
    pub(crate) fn build(&mut self, centroid: &[DVec3], fixed: &[bool], bonds: &[LocalBond]) {
        self.start_build(centroid, fixed, bonds, false, 1);
        self.finish_build(bonds, None);
    }

    /// Begins a build over the fine system: its first piece's first part
    /// ([`Piece::Start`]: the copy of the nodes) and, with one part a
    /// piece or a fine level small enough to be solved densely, the whole
    /// piece (the direct solve then ends the build); the rest is kept
    /// pending. `reusing`: a rebuild set the hierarchy before aside
    /// ([`Self::rebuild`]), so an assembled level 1 may copy its rows.
    /// Every piece is taken in `parts` parts (at least one; see Parts).
    pub(crate) fn start_build(
        &mut self,
        centroid: &[DVec3],
        fixed: &[bool],
        bonds: &[LocalBond],
        reusing: bool,
        parts: u32,
    ) {
        self.changes += 1;
        self.built = false;
        let fine = &mut self.fine;
        fine.centroid.clear();
        fine.centroid.extend_from_slice(centroid);
        fine.fixed.clear();
        fine.fixed.extend_from_slice(fixed);
        clear_for(&mut fine.bonds, bonds.len());
        let len = fine.len();
        resize(len, [&mut fine.e_u, &mut fine.e_t]);
        self.used = 0;
        self.direct = false;
        self.assembled = false;
        self.pairs = 0;
        self.made = 0;
        self.second = None;
        self.free = fine.free_count();
        let small = self.free <= COARSEST;
        let parts = if small { 1 } else { parts.max(1) };
        self.pending = Some(Pending {
            next: Piece::Start,
            part: 1,
            parts,
            count: 0,
            aggregated: false,
            levels: false,
            reusing,
            reused: false,
        });
        if parts > 1 {
            return;
        }
        self.build_part(bonds, None);
        if small {
            // One aggregate per free node: level 1 is the fine system,
            // solved densely.
            let count = self.fine.identity_aggregates();
            if self.coarse.is_empty() {
                self.coarse.push(Coarse::default());
            }
            self.assemble_from_bonds(count);
            self.used = 1;
            self.factor_coarsest();
            self.direct = self.dense_ok;
            if self.direct {
                self.built = true;
                self.pending = None;
                return;
            }
            self.used = 0;
        }
    }

    /// The first piece's passes after the copy of the nodes (see Parts):
    /// the bonds copied from `bonds`, the adjacency, the coupled pairs
    /// (whether level 1 is the fine level assembled) and level 1's
    /// aggregates; at its last item, what the later pieces build.
    fn start_part(&mut self, part: u32, parts: u32, bonds: &[LocalBond], pending: &mut Pending) {
        let (n, b) = (self.fine.len(), bonds.len());
        let (free, large) = (self.free, self.free > COARSEST);
        let lens = [b, n, b, n, b, n, n, n, n, n, 1];
        in_part(part, parts, lens, START_WEIGHTS, |phase, range| {
            let first = range.start == 0;
            let fine = &mut self.fine;
            match phase {
                0 => fine.bonds.extend_from_slice(&bonds[range]),
                1 if first => fine.start_adjacency(),
                2 => fine.count_adjacency(range),
                3 if first => fine.sum_adjacency(),
                4 => fine.fill_adjacency(range),
                5 if first && large => {
                    self.marker.clear();
                    self.marker.resize(n, NONE);
                }
                6 if large => fine.count_pairs(range, &mut self.marker, &mut self.pairs),
                7 if first => {
                    self.assembled = large && b >= PARALLEL_BONDS * self.pairs;
                    if self.assembled {
                        self.made = fine.identity_aggregates() as u32;
                    } else if large {
                        fine.start_aggregates();
                    }
                }
                8 | 9 if large && !self.assembled => {
                    fine.aggregate_part(range, phase == 9, &mut self.made);
                }
                10 => {
                    let count = self.made as usize;
                    pending.aggregated = large;
                    pending.count = if large { count } else { 0 };
                    pending.levels = large && (self.assembled || count * 10 <= free * 9);
                }
                _ => {}
            }
        });
    }

    /// The next part of the next piece of a build begun by
    /// [`Self::start_build`], if any (`old_of`: a rebuild's counterparts,
    /// see [`Self::rebuild`]).
    /// `bonds` are the system's the build was begun over (the first piece
    /// copies them in parts).
    pub(crate) fn build_part(&mut self, bonds: &[LocalBond], old_of: Option<&[u32]>) {
        let Some(mut pending) = self.pending else {
            return;
        };
        self.changes += 1;
        let (part, parts) = (pending.part, pending.parts);
        let b = self.fine.bonds.len();
        let n = self.fine.len();
        match pending.next {
            // Its first part (the nodes' copy) ran in `start_build`; one
            // part a piece, the rest ran there too.
            Piece::Start => {
                let (k, m) = if parts > 1 {
                    (part - 1, parts - 1)
                } else {
                    (0, 1)
                };
                self.start_part(k, m, bonds, &mut pending);
            }
            Piece::Inverses => {
                let fine = &mut self.fine;
                in_part(
                    part,
                    parts,
                    [n, b, n],
                    INVERSES_WEIGHTS,
                    |phase, range| match phase {
                        0 => fine.clear_inverses_of(range),
                        1 => fine.sum_inverses(range),
                        _ => fine.invert(range),
                    },
                );
            }
            Piece::Smoothing => {
                let fine = &mut self.fine;
                let inter = if pending.aggregated { b } else { 0 };
                let lens = [n, b, n, inter];
                in_part(
                    part,
                    parts,
                    lens,
                    SMOOTHING_WEIGHTS,
                    |phase, range| match phase {
                        0 if range.start == 0 => fine.jacobi.start_build(n, b),
                        0 => {}
                        1 => fine.jacobi.add_bonds(&fine.bonds[range]),
                        2 => fine.jacobi.add_inverses(&fine.inv[range]),
                        _ => fine.add_inter(range),
                    },
                );
            }
            Piece::Assembly if pending.levels => {
                if self.coarse.is_empty() {
                    self.coarse.push(Coarse::default());
                }
                let count = pending.count;
                if part == 0 {
                    pending.reused = pending.reusing && self.assembled && old_of.is_some();
                }
                if pending.reused {
                    if let (0, Some(old_of)) = (part, old_of) {
                        self.sum_reusing(count, old_of);
                    }
                } else {
                    in_part(
                        part,
                        parts,
                        [n, count, count, b],
                        ASSEMBLY_WEIGHTS,
                        |phase, range| match phase {
                            0 if range.start == 0 => self.start_pattern(count),
                            1 => self.pattern_rows(range),
                            2 => self.start_sums_of(range),
                            0 => {}
                            _ => self.sum_bonds(range),
                        },
                    );
                }
            }
            Piece::Assembly => {}
            Piece::Levels => {
                // Level 1 summed from the bonds is finished, and level 2
                // assembled from it, in parts (up to `rows` of its rows);
                // a reused level 1 and the levels past 2 at the end.
                let plain = pending.levels && !pending.reused;
                let (rows, slots) = if plain {
                    (self.coarse[0].len(), self.coarse[0].off.len())
                } else {
                    (0, 0)
                };
                let balanced = if plain && self.assembled { rows } else { 0 };
                let lens = [rows, rows, slots, rows, balanced, rows, rows, rows, 1];
                in_part(part, parts, lens, LEVELS_WEIGHTS, |phase, range| {
                    let first = range.start == 0;
                    match phase {
                        0 if first => self.coarse[0].start_finish(),
                        1 => self.coarse[0].finish_blocks(range),
                        2 => self.coarse[0].finish_off(range),
                        3 if first => {
                            self.coarse[0].finish_pattern();
                            self.used = 1;
                        }
                        4 => {
                            // Balance part `k` at row `k · balanced / parts`.
                            for k in 0..BALANCE_PARTS {
                                if range.contains(&(k * balanced / BALANCE_PARTS)) {
                                    self.balance_buffers_part(k);
                                }
                            }
                        }
                        5 if first => {
                            self.second = self.next_level();
                            if let Some(count) = self.second {
                                self.start_galerkin(0, count);
                            }
                        }
                        6 => {
                            if let Some(count) = self.second {
                                let end = range.end.min(count);
                                self.galerkin_rows(0, range.start.min(end)..end);
                            }
                        }
                        7 if first && self.second.is_some() => {
                            self.coarse[1].finish();
                            self.used = 2;
                        }
                        8 => self.finish_levels(pending),
                        _ => {}
                    }
                });
            }
        }
        pending.part += 1;
        if pending.part < pending.parts {
            self.pending = Some(pending);
            return;
        }
        pending.part = 0;
        self.pending = match pending.next {
            Piece::Start => Some(Pending {
                next: if self.assembled {
                    Piece::Assembly
                } else {
                    Piece::Inverses
                },
                ..pending
            }),
            Piece::Inverses => Some(Pending {
                next: Piece::Smoothing,
                ..pending
            }),
            Piece::Smoothing => Some(Pending {
                next: Piece::Assembly,
                ..pending
            }),
            Piece::Assembly => Some(Pending {
                next: Piece::Levels,
                ..pending
            }),
            Piece::Levels => None,
        };
    }

    /// The levels piece's last item: level 1's row split (or, reused, its
    /// rows summed finished), the coarser levels and the dense factor;
    /// the hierarchy is built.
    fn finish_levels(&mut self, pending: Pending) {
        if pending.levels {
            if pending.reused {
                self.finish_reusing();
                if self.assembled {
                    self.balance_buffers();
                }
                self.used = 1;
                self.build_coarser(true);
            } else if self.second.is_some() {
                // Levels 1 and 2 made in the earlier phases.
                self.build_coarser(false);
            }
            if self.assembled {
                self.balance_levels();
            }
        }
        self.factor_coarsest();
        self.built = true;
    }

    /// Runs the pieces a build has left.
    pub(crate) fn finish_build(&mut self, bonds: &[LocalBond], old_of: Option<&[u32]>) {
        while self.pending.is_some() {
            self.build_part(bonds, old_of);
        }
    }

    /// Drops the pieces a build under way has left: the hierarchy is not
    /// built, and the next build starts afresh (a rebuild cannot reuse it).
    pub(crate) fn drop_pending(&mut self) {
        self.changes += 1;
        self.pending = None;
    }

    /// The next piece of the build under way and how many of its parts
    /// have run, if it has pieces left.
    pub(crate) fn pending_piece(&self) -> Option<(Piece, u32)> {
        self.pending.map(|p| (p.next, p.part))
    }

    /// The next piece of a build begun over exactly this fine system (bit
    /// for bit), if it has pieces left.
    pub(crate) fn pending_on(
        &self,
        centroid: &[DVec3],
        fixed: &[bool],
        bonds: &[LocalBond],
    ) -> Option<Piece> {
        let pending = self.pending?;
        self.fine_is(centroid, fixed, bonds).then_some(pending.next)
    }
}

/// Runs part `part` of `parts` of a piece made of phases of `lens` items
/// each, in order (see Parts): the piece's items, each phase's weighing
/// its `weights` entry (at least 1), are dealt out evenly by weight over
/// the parts, an item to the part its start falls in, and `run(phase,
/// range)` takes each phase's share of this part's items (a range of that
/// phase's items; empty shares are not run). Over `part` = 0 to
/// `parts` − 1 every item runs once, in order, whatever the weights.
fn in_part<const K: usize>(
    part: u32,
    parts: u32,
    lens: [usize; K],
    weights: [usize; K],
    mut run: impl FnMut(usize, std::ops::Range<usize>),
) {
    let total: usize = lens.iter().zip(weights).map(|(&l, w)| l * w.max(1)).sum();
    let (part, parts) = (part as usize, parts.max(1) as usize);
    let (from, to) = (total * part / parts, total * (part + 1) / parts);
    let mut at = 0;
    for (phase, (len, w)) in lens.into_iter().zip(weights).enumerate() {
        let w = w.max(1);
        // The first item of the phase that starts at or after `x`.
        let first = |x: usize| x.saturating_sub(at).div_ceil(w).min(len);
        let (lo, hi) = (first(from), first(to));
        if lo < hi {
            run(phase, lo..hi);
        }
        at += len * w;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stress::multilevel::rebuild::tests::levels;
    use crate::stress::multilevel::update::tests::grid_system;

    /// One application of the hierarchy to a fixed residual, as bits: it
    /// reads every level, the fine level's inverse blocks and smoothing
    /// included.
    fn applied(ml: &mut Multilevel, len: usize) -> Vec<u64> {
        let r_u: Vec<DVec3> = (0..len)
            .map(|i| DVec3::new(1.0 + i as f64 * 0.01, -0.5, 0.25 * (i % 7) as f64))
            .collect();
        let r_t: Vec<DVec3> = (0..len)
            .map(|i| DVec3::new(0.1, 0.02 * (i % 5) as f64, -0.3))
            .collect();
        let (mut z_u, mut z_t) = (vec![DVec3::ZERO; len], vec![DVec3::ZERO; len]);
        ml.apply(&r_u, &r_t, &mut z_u, &mut z_t);
        z_u.iter()
            .chain(&z_t)
            .flat_map(|v| v.to_array().map(f64::to_bits))
            .collect()
    }

    /// A build whose pieces are taken in any number of parts (each part a
    /// call of `build_part`) is bit for bit a build in one go: the same
    /// levels and the
    /// same preconditioner, on a system of single bonds (the fine level
    /// smoothed on its bonds: every piece has work) and one of parallel
    /// bonds (assembled: the inverses and smoothing have none), and each
    /// part changes the hierarchy's count of changes. The parts take the
    /// pieces' items in order, so a part count past the items leaves some
    /// parts empty, which is allowed.
    #[test]
    fn a_build_in_parts_is_a_build_in_one_go() {
        let (centroid, fixed, parallel) = grid_system(30, 24);
        let single: Vec<LocalBond> = parallel.iter().step_by(4).copied().collect();
        for (name, bonds) in [("single", single), ("parallel", parallel)] {
            let len = centroid.len();
            let mut whole = Multilevel::default();
            whole.build(&centroid, &fixed, &bonds);
            let expected = (levels(&whole), applied(&mut whole, len));
            // Levels 1 and 2 in parts, and one past them.
            assert!(expected.0[0][0] >= 3, "{name}: {} levels", expected.0[0][0]);
            for parts in [1, 2, 3, 5, 8, 40, 100_000] {
                let mut ml = Multilevel::default();
                ml.start_build(&centroid, &fixed, &bonds, false, parts);
                let mut calls = 0;
                let mut seen = Vec::new();
                while let Some(place) = ml.pending_piece() {
                    seen.push(place);
                    let changes = ml.changes();
                    ml.build_part(&bonds, None);
                    assert!(ml.changes() > changes);
                    calls += 1;
                    assert!(calls <= 5 * parts as usize, "{name}, {parts} parts");
                }
                assert!(ml.built, "{name}, {parts} parts");
                // Every piece is taken in `parts` parts, in order, the
                // first's first by `start_build`.
                let pieces = if name == "single" { 5 } else { 3 };
                assert_eq!(calls, pieces * parts as usize - 1, "{name}, {parts} parts");
                assert!(seen.windows(2).all(|w| w[0] < w[1]), "{name}: {seen:?}");
                assert_eq!(
                    (levels(&ml), applied(&mut ml, len)),
                    expected,
                    "{name}, {parts} parts"
                );
            }
            assert_eq!(whole.assembled, name == "parallel");
        }
    }

    /// [`in_part`] runs every item of every phase once, in order, over the
    /// parts, each part about an equal share by weight: with equal weights
    /// an equal count (give or take one), with others within one item's
    /// weight of an equal share (a zero weight counts as one).
    #[test]
    fn parts_deal_out_every_item_once_in_order() {
        let lens = [1, 17, 0, 5, 1, 30];
        for weights in [[1; 6], [3, 1, 7, 40, 200, 2], [0, 5, 1, 1, 1, 9]] {
            let w = weights.map(|w: usize| w.max(1));
            let total: usize = lens.iter().zip(w).map(|(l, w)| l * w).sum();
            let heaviest = *w.iter().max().unwrap_or(&1);
            for parts in 1..12u32 {
                let mut seen = Vec::new();
                for part in 0..parts {
                    let mut count = 0;
                    let mut weight = 0;
                    in_part(part, parts, lens, weights, |phase, range| {
                        assert!(!range.is_empty());
                        count += range.len();
                        weight += range.len() * w[phase];
                        seen.extend(range.map(|i| (phase, i)));
                    });
                    let share = total / parts as usize;
                    if weights == [1; 6] {
                        assert!(count == share || count == share + 1, "{parts}: {count}");
                    }
                    assert!(
                        weight + heaviest > share && weight < share + 1 + heaviest,
                        "{weights:?}, {parts}: {weight} against {share}"
                    );
                }
                let all: Vec<(usize, usize)> = lens
                    .iter()
                    .enumerate()
                    .flat_map(|(phase, &len)| (0..len).map(move |i| (phase, i)))
                    .collect();
                assert_eq!(seen, all, "{weights:?}, {parts} parts");
            }
        }
    }
}
