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
//! the first and keeps the rest pending, [`Multilevel::build_piece`] runs
//! the next. The pieces read nothing but the system given to the first
//! (its copy) and what the earlier pieces wrote, so a build in pieces is
//! bit for bit a build in one go whatever runs between them, as long as
//! nothing else builds, rebuilds or updates this hierarchy in between
//! (which drops the pending pieces). (Three pieces before: the inverses
//! with the smoothing, level 1 with the coarser levels; on the 100 × 50 ×
//! 2 wall the larger of those took up to 4.5 ms on this project's machine.)

use super::{COARSEST, Coarse, LocalBond, Multilevel, PARALLEL_BONDS, resize};
use glam::DVec3;

/// A piece of a build (see the [module docs](self)), in the order they
/// run.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Piece {
    /// The fine level's copy, adjacency and level 1's aggregates
    /// ([`Multilevel::start_build`]).
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
    /// The next piece to run (never [`Piece::Start`]).
    next: Piece,
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
        self.start_build(centroid, fixed, bonds, false);
        self.finish_build(None);
    }

    /// Runs a build's first piece ([`Piece::Start`]) over the fine system
    /// and keeps the rest pending (none when the fine level is solved
    /// densely). `reusing`: a rebuild set the hierarchy before aside
    /// ([`Self::rebuild`]), so an assembled level 1 may copy its rows.
    pub(crate) fn start_build(
        &mut self,
        centroid: &[DVec3],
        fixed: &[bool],
        bonds: &[LocalBond],
        reusing: bool,
    ) {
        self.changes += 1;
        self.built = false;
        self.pending = None;
        let fine = &mut self.fine;
        fine.centroid.clear();
        fine.centroid.extend_from_slice(centroid);
        fine.fixed.clear();
        fine.fixed.extend_from_slice(fixed);
        fine.bonds.clear();
        fine.bonds.extend_from_slice(bonds);
        let len = fine.len();
        resize(len, [&mut fine.e_u, &mut fine.e_t]);
        fine.prepare_adjacency();
        self.used = 0;
        self.direct = false;
        self.assembled = false;
        let free = fine.free_count();
        if free <= COARSEST {
            // One aggregate per free node: level 1 is the fine system,
            // solved densely.
            let count = fine.identity_aggregates();
            if self.coarse.is_empty() {
                self.coarse.push(Coarse::default());
            }
            self.assemble_from_bonds(count);
            self.used = 1;
            self.factor_coarsest();
            self.direct = self.dense_ok;
            if self.direct {
                self.built = true;
                return;
            }
            self.used = 0;
        }
        let fine = &mut self.fine;
        self.pairs = if free > COARSEST {
            fine.coupled_pairs(&mut self.marker)
        } else {
            0
        };
        self.assembled = free > COARSEST && fine.bonds.len() >= PARALLEL_BONDS * self.pairs;
        let aggregated = free > COARSEST;
        let (count, levels) = if aggregated {
            let count = if self.assembled {
                fine.identity_aggregates()
            } else {
                fine.aggregate()
            };
            (count, self.assembled || count * 10 <= free * 9)
        } else {
            (0, false)
        };
        self.pending = Some(Pending {
            next: if self.assembled {
                Piece::Assembly
            } else {
                Piece::Inverses
            },
            count,
            aggregated,
            levels,
            reusing,
            reused: false,
        });
    }

    /// The next piece of a build begun by [`Self::start_build`], if any
    /// (`old_of`: a rebuild's counterparts, see [`Self::rebuild`]).
    pub(crate) fn build_piece(&mut self, old_of: Option<&[u32]>) {
        let Some(pending) = self.pending else {
            return;
        };
        self.changes += 1;
        match pending.next {
            // Run by `start_build`, never pending.
            Piece::Start => {}
            Piece::Inverses => {
                self.fine.prepare_inverses();
                self.pending = Some(Pending {
                    next: Piece::Smoothing,
                    ..pending
                });
            }
            Piece::Smoothing => {
                let fine = &mut self.fine;
                fine.prepare_smoothing();
                if pending.aggregated {
                    fine.keep_inter();
                }
                self.pending = Some(Pending {
                    next: Piece::Assembly,
                    ..pending
                });
            }
            Piece::Assembly => {
                let mut reused = false;
                if pending.levels {
                    if self.coarse.is_empty() {
                        self.coarse.push(Coarse::default());
                    }
                    reused = match old_of {
                        Some(old_of) if pending.reusing && self.assembled => {
                            self.sum_reusing(pending.count, old_of);
                            true
                        }
                        _ => {
                            self.sum_from_bonds(pending.count);
                            false
                        }
                    };
                }
                self.pending = Some(Pending {
                    next: Piece::Levels,
                    reused,
                    ..pending
                });
            }
            Piece::Levels => {
                self.pending = None;
                if pending.levels {
                    if pending.reused {
                        self.finish_reusing();
                    } else {
                        self.coarse[0].finish();
                    }
                    if self.assembled {
                        self.balance_buffers();
                    }
                    self.used = 1;
                    self.build_coarser(pending.reused);
                    if self.assembled {
                        self.balance_levels();
                    }
                }
                self.factor_coarsest();
                self.built = true;
            }
        }
    }

    /// Runs the pieces a build has left.
    pub(crate) fn finish_build(&mut self, old_of: Option<&[u32]>) {
        while self.pending.is_some() {
            self.build_piece(old_of);
        }
    }

    /// Drops the pieces a build under way has left: the hierarchy is not
    /// built, and the next build starts afresh (a rebuild cannot reuse it).
    pub(crate) fn drop_pending(&mut self) {
        self.changes += 1;
        self.pending = None;
    }

    /// The next piece of the build under way, if it has pieces left.
    pub(crate) fn pending_piece(&self) -> Option<Piece> {
        self.pending.map(|p| p.next)
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
