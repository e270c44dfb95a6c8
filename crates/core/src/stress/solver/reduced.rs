//! Multi-resolution solve of large clusters (issue 13 item 6): the cluster
//! is solved on a reduced graph of rigid super-nodes, and the super-nodes
//! next to a bond that nears its limit are split back into their chunks
//! and solved again.
//!
//! # Reduction
//! The chunks are first grouped on the cluster's intact structure: every
//! bond of the asset between two of its chunks counts, broken or not.
//! Breadth-first from each free chunk not yet grouped (ascending chunk
//! order), a group takes every free, ungrouped, unrefined chunk within
//! [`REDUCE_RADIUS`] bond hops (on the 100 × 50 × 2 wall: 360 groups, most
//! of 24–33 chunks); anchors and refined chunks stay alone. A super-node is
//! a piece of a group joined by intact bonds: each group's chunks joined to
//! its lowest chunk, then to its lowest chunk not yet taken, and so on
//! (super-nodes numbered group by group, in that order). So the grouping
//! depends on which bonds are intact only through the pieces: a broken
//! bond between two super-nodes leaves it as it is, and one inside a
//! super-node changes it only when the super-node falls apart
//! (`solver/kept.rs`). (Grouping by a search over the intact bonds alone,
//! as before, changed it whenever a bond that search had gone through
//! broke: 43 of 300 random breaks on the 100 × 50 × 2 wall, each reducing
//! and building again; grouped this way, 300 breaks in a row take 807
//! iterations instead of 1,005, and 21 instead of 48 of them cost over
//! 1 ms.) A super-node moves rigidly: its centre is the mass centre
//! of its members, its load their weight (which has no moment about that
//! centre) plus the point loads on them with their moments, and its bonds
//! are those of its members to other nodes, with arms measured from its
//! centre. Bonds inside a super-node drop out; the many bonds between two
//! super-nodes stay (their stresses are reported), but the iteration runs
//! on their sum, one 6×6 block per pair of super-nodes (the multilevel
//! preconditioner's assembled level), and goes straight to the hierarchy
//! (a forest of single bonds between super-nodes is far softer than the
//! dozen it stands for). This is the Galerkin projection of the chunk
//! system on rigid motions of the groups (the coarse space of
//! [`super::super::multilevel`]), so the reduced solve's bond forces are
//! exact for a structure whose groups do not deform, and in general they
//! balance every super-node: the weight of what a bond carries is right.
//!
//! # Refinement
//! After a converged reduced solve, every super-node at an end of a bond
//! whose stress reaches [`REFINE_AT`] × its elastic limit in any mode (the
//! bond's own limit, or the lowest of the bonds inside that super-node if
//! lower: a weak bond hidden inside is looked at before the bonds around it
//! near their own limits) is split into its chunks, and the cluster is solved again (warm-started
//! from the reduced answer), for at most [`MAX_ROUNDS`] solves. The last
//! solve's bonds are the reported ones: the bonds between nodes (the
//! refined regions at full resolution, the rest between super-nodes); bonds
//! inside a super-node are not reported (no stress computed: they are far
//! from a limit by the bonds around them). Its residual is over the nodes
//! of that solve: a super-node's net force over its weight.
//!
//! # Slices
//! Under a work limit ([`StressSolver::solve_within`]) a round is taken in
//! steps, and a call ends before a step that would take it past the limit
//! (after one step at least, so a solve advances under any limit):
//!
//! 1. the reduction (grouping, super-node bonds, forest), charged as the
//!    gather every call is charged (covered by the call's own gather when
//!    the round starts the call); a refining round's reduction of a
//!    system of more than one part of [`super::BUILD_PART_BONDS`] bonds in
//!    steps (`solver/reduction.rs`), equal shares of that charge (a cut
//!    inside it: stage `Reducing`, code 15, what the steps made kept in
//!    the solver or taken again, uncharged; a call that finds the reduced
//!    system standing takes the steps left all the same, doing nothing);
//! 2. the multilevel hierarchy's build, in five pieces
//!    (`multilevel/build.rs`: the fine level's copy and aggregates, its
//!    inverse blocks, its smoothing, level 1's blocks, the rest of the
//!    levels), charged 3, 3, 3, 4 and 3 of the 16
//!    [`HIERARCHY_BUILD_PASSES`] per bond of the reduced system (none
//!    under the forest preconditioner; see `HIERARCHY_STEPS`); each piece
//!    in ⌈bonds / [`super::BUILD_PART_BONDS`]⌉ steps, its
//!    parts (Parts in `multilevel/build.rs`), charged equal shares of the
//!    piece's passes (a cut inside a piece: stage 12,
//!    [`SolveProgress::building`]);
//! 3. the conjugate gradient's start: the warm start's check (an
//!    evaluation, [`EVALUATION_PASSES`] per bond, in as many parts of the
//!    bonds as the hierarchy's pieces, equal shares; a cut inside it:
//!    stage `Checking`, code 14, `r` and the bond results so far kept in
//!    the solver or taken again, uncharged), then the first
//!    preconditioning, charged as an iteration
//!    ([`super::MULTILEVEL_ITERATION_PASSES`] per bond) in the steps of its
//!    cycle, equal shares (six on a system that smooths on its bonds,
//!    else one; a call cut after the check leaves the state in the
//!    progress, stage `Checked`, and after one to five of those steps stage
//!    `Starting`, code 13, the cycle's vectors kept in the solver or taken
//!    again, uncharged, `solver/setup_steps.rs`);
//! 4. each iteration, cut as a full solve's are: in steps, its update and
//!    its preconditioning (`solver/iteration_steps.rs`).
//!
//! A converged round that refines ends the call when the next round's
//! reduction's first step would pass the limit. The [`SolveProgress`] keeps the round,
//! how far it came, the refined chunks and the iteration state, keyed by
//! the full-resolution nodes, intact bonds and loads (bit for bit); the
//! next call with the same ones continues at the next step, rebuilding
//! without charge what an earlier call built and the solver no longer
//! holds (another cluster solved since, a restored snapshot), so where a
//! limit cuts depends on the inputs and the progress only, and the sliced
//! solve ends with the results of one call, bit for bit
//! (`tests/stress_reduced_slices.rs`). A call that ends before its round
//! has an iterate reports the residual at rest of the round's system
//! (under gravity alone, |g| / [`super::STANDARD_GRAVITY`]).
//!
//! On the 100 × 50 × 2 wall failing under its own weight, a refinement
//! round's setup (reduction 1–2.5 ms, hierarchy 3–9 ms, start 1–2.5 ms)
//! took one call of 10–16 ms before it was taken in steps.
//!
//! # Reuse
//! The reduced system stays in the solver after a call and serves the
//! next call of the same cluster when it can (`solver/kept.rs`).

use super::kept::{Grouping, Kept};
use super::progress::RoundStage;
use super::reduction::step_charge;
use super::{
    CgStart, EVALUATION_PASSES, FOREST_BUILD_PASSES, HIERARCHY_BUILD_PASSES, STRUCTURE_PASSES,
    SolveMode, SolveProgress, StressError, StressLoads, StressReport, StressSolver,
};
use crate::asset::Asset;
use crate::index::{BondIndex, ChunkIndex};
use crate::stress::Material;
use crate::stress::multilevel::HierarchyPiece;

/// A [`super::StressSettings::reduce_above`] for large structures: clusters
/// with more than 4,096 free chunks are solved reduced (the benchmark
/// walls up to 48×24×2 = 2,304 chunks stay full). Not the default (0).
pub const REDUCE_ABOVE: u32 = 4096;

/// Bond hops a super-node reaches from its seed chunk. Four: on the
/// 100 × 50 × 2 wall, 2 hops left 1,586 super-nodes of 6 chunks on average
/// (the greedy search fragments small balls) joined by 14,197 bonds, and a
/// solve from rest took 53 iterations and 24 ms; 4 hops leave 360 joined
/// by 8,572 and take 39 iterations and 10 ms, with the same outcomes in
/// `tests/issue_13_multiresolution.rs` (as with 3, 5, 6 and 8 hops: 14,
/// 9.4, 7.2 and 6.3 ms). Larger super-nodes hide more bonds whose stress
/// is never computed, so the gain past 4 was not taken.
pub const REDUCE_RADIUS: u32 = 4;

/// A bond at this fraction of its elastic limit (in any mode) refines the
/// super-nodes at its ends.
pub const REFINE_AT: f32 = 0.5;

/// Most solves (reduced, then refined) per [`StressSolver::solve`].
pub const MAX_ROUNDS: u32 = 4;

/// The hierarchy's build as steps of a round (see Slices): each piece
/// (`multilevel/build.rs`) and its share of [`HIERARCHY_BUILD_PASSES`] per
/// bond (3, 3, 3, 4 and 3 of its 16, roughly as the pieces' times went on
/// the 100 × 50 × 2 wall). Every piece is taken in parts
/// ([`StressSolver::build_parts`]), each a step charged an equal share of
/// the piece's; a call cut before a piece's part leaves the stage
/// [`RoundStage::building`] names. A full solve's switch from the forest
/// takes the same steps (`conjugate_gradient`).
pub(super) const HIERARCHY_STEPS: [(HierarchyPiece, u64); 5] = [
    (HierarchyPiece::Start, HIERARCHY_BUILD_PASSES * 3 / 16),
    (HierarchyPiece::Inverses, HIERARCHY_BUILD_PASSES * 3 / 16),
    (HierarchyPiece::Smoothing, HIERARCHY_BUILD_PASSES * 3 / 16),
    (HierarchyPiece::Assembly, HIERARCHY_BUILD_PASSES / 4),
    (HierarchyPiece::Levels, HIERARCHY_BUILD_PASSES * 3 / 16),
];

// The steps charge the whole build between them.
const _: () = {
    let mut sum = 0;
    let mut k = 0;
    while k < HIERARCHY_STEPS.len() {
        sum += HIERARCHY_STEPS[k].1;
        k += 1;
    }
    assert!(sum == HIERARCHY_BUILD_PASSES);
};

impl StressSolver {
    /// The cluster's full-resolution nodes, ascending.
    pub(super) fn fine_nodes(&self) -> &[ChunkIndex] {
        if self.reduced {
            &self.fine_chunk
        } else {
            &self.chunk
        }
    }

    pub(super) fn members_of(&self, k: usize) -> &[u32] {
        &self.members[self.member_offsets[k] as usize..self.member_offsets[k + 1] as usize]
    }

    /// The reduced solve of an anchored cluster whose fine system is
    /// gathered (see the [module docs](self)), within the solver's pass
    /// limit: a round is taken in steps, and the call ends before a step
    /// that would pass the limit (see [Slices](self#slices)); `progress`
    /// then holds the place (round, step, refined chunks, iteration state)
    /// and the next call of the same nodes, intact bonds and loads
    /// continues from it, bit for bit as one call would have.
    ///
    /// With `kept`, the reduced system standing in the solver was built
    /// from these nodes ([`StressSolver::kept_system`]): the first round
    /// uses it when its refinement is this round's and, with bonds broken
    /// since, when they leave its grouping as it is (taking them out);
    /// otherwise it reduces the fine system kept aside again.
    pub(super) fn solve_reduced(
        &mut self,
        asset: &Asset,
        nodes: &[ChunkIndex],
        health: &[f32],
        loads: &StressLoads<'_>,
        progress: &mut Option<SolveProgress>,
        kept: Option<Kept>,
    ) -> Result<StressReport, StressError> {
        let n = self.fine_nodes().len();
        // The last call on this solver cut this very progress (a token it
        // kept for it, nothing solved since): the refinement it left is
        // the place's, and is not marked again (9,452 chunks looked up,
        // 0.3 M instructions a call on the refined 100 × 50 × 2 wall).
        let cut_here = progress.as_ref().is_some_and(|p| {
            let token = p.token();
            self.kept_ready
                .is_some_and(|k| token != 0 && k.token == token)
                || self.setup_kept_for(token)
        });
        let refined_kept = cut_here && self.refined.len() == n;
        let eps = f64::from(self.settings.epsilon);
        let mut iterations = 0;
        let mut round = 0;
        // A progress of this very solve puts it back at its place; any
        // other only lends its buffers.
        let mut slot = progress.take();
        // How far the round under way came in earlier calls.
        let mut stage = RoundStage::NotStarted;
        self.place_found = None;
        self.place_kept = None;
        // The round whose place the progress holds as found (any stage).
        let mut found_round = None;
        if let Some((at, at_stage, refined)) = slot
            .as_ref()
            .and_then(|p| p.reduced_place(self.fine_nodes(), &self.bond_list, loads))
        {
            if refined_kept {
                debug_assert!(
                    self.refined.iter().filter(|&&r| r).count() == refined.len()
                        && refined
                            .iter()
                            .all(|&c| { self.local(c).is_some_and(|i| self.refined[i as usize]) }),
                    "the refinement kept is not the place's"
                );
            } else {
                self.refined.clear();
                self.refined.resize(n, false);
                for &c in refined {
                    if let Some(i) = self.local(c) {
                        self.refined[i as usize] = true;
                    }
                }
            }
            round = at - 1;
            stage = at_stage;
            found_round = Some(at);
            if !stage.holds_state() {
                self.place_found = Some(at);
                // The round starts from the warm start the cut left (which
                // the solver still holds when the last call on it made
                // that cut, `setup_steps.rs`).
                if let Some(p) = slot.as_ref() {
                    self.kx_valid = false;
                    // (A reduction kept for this call, `reduction_kept`,
                    // trusted the same token, and took it.)
                    let kept_warm = kept == Some(Kept::Reducing) || self.setup_kept_for(p.token());
                    let warm = if kept_warm {
                        0
                    } else {
                        #[cfg(test)]
                        {
                            self.warm_copies += 1;
                        }
                        usize::MAX
                    };
                    for (k, (u, t)) in p.resume_warm().take(warm).enumerate() {
                        let c = self.fine_nodes()[k].0 as usize;
                        self.warm_u[c] = u;
                        self.warm_t[c] = t;
                    }
                }
            }
        }
        if found_round.is_none() {
            // No place: nothing refined.
            self.refined.clear();
            self.refined.resize(n, false);
        }
        let fine_bonds = self.bond_list.len() as u64;
        // A reduced solve preconditions with the hierarchy unless told to
        // use the forest alone (see `conjugate_gradient`).
        let multilevel = self.settings.preconditioner != super::Preconditioner::Forest;
        // The fine system stands in the node and bond arrays (else the
        // reduced system of `kept` does), and the call has been charged for
        // this round's gather.
        let mut gathered = kept.is_none();
        let mut charged = true;
        let mut first = true;
        // Whether this call has taken a step of the solve (see Slices):
        // before its first, a call does not end.
        let mut stepped = false;
        // The residual of the last round this call converged, once known.
        let mut known: Option<f64> = None;
        loop {
            let mut start_warm = false;
            let grouping = match kept {
                Some(Kept::Same) if first && self.refined == self.system_refined => {
                    Grouping::Stands
                }
                Some(Kept::Broken) if first && self.refined == self.system_refined => {
                    self.grouping_stands(asset, health)
                }
                _ => Grouping::Changes,
            };
            if let Grouping::Splits(g) = grouping {
                self.split_super_node(g as usize, health);
            }
            // The reduction's steps (one but for a refining round of a
            // large system, `solver/reduction.rs`), charged as a gather
            // between them (nothing more when the call's gather covers
            // it), and how many an earlier call took.
            let steps = self.reduction_steps(round + 1);
            let reduction = (1 + STRUCTURE_PASSES + FOREST_BUILD_PASSES) * fine_bonds;
            let share = |s: u32| {
                if charged {
                    0
                } else {
                    step_charge(reduction, s, steps)
                }
            };
            let done = stage.reduction_done();
            // The step of the reduction the call ends before, if it does.
            let mut cut = None;
            if grouping != Grouping::Changes {
                if kept == Some(Kept::Broken) {
                    // A split renumbered the nodes: the adjacency is built.
                    let split = matches!(grouping, Grouping::Splits(_));
                    self.drop_broken(asset, health, !split);
                    self.forest_topology();
                }
                // The state (`x`, `r`, `p`) is sized once the call is to
                // start the iteration (below): a call that resumes takes the
                // progress's. (Sized here, the buffers the solver got back
                // at the last cut, `SolveProgress::save`, grew to the
                // round's size and were swapped out unread: 0.5 ms of the
                // first call resuming round 2 on the refined 100 × 50 × 2
                // wall.)
                self.reset_work_vectors(self.chunk.len() + 1);
                self.kept_vectors
                    .reserve(self.node_room(self.chunk.len() + 1));
                self.fix_unreached();
                // The warm start waits for whether the call resumes (below).
                start_warm = true;
                // The reduction stands: its steps left are taken as steps
                // all the same, so the call ends where one that reduced
                // would (the first, unless an earlier call took the whole
                // reduction, is this call's step).
                if stage.built() < RoundStage::Reduced.built() {
                    for s in done..steps {
                        if stepped && self.passes.saturating_add(share(s)) > self.pass_limit {
                            cut = Some(s);
                            break;
                        }
                        self.passes += share(s);
                        stepped = true;
                    }
                }
            } else {
                // Steps taken by an earlier call are taken again, uncharged,
                // unless this solver kept them for this call.
                let mut from = 0;
                if first && kept == Some(Kept::Reducing) && done == self.reducing {
                    from = self.reducing;
                } else if first && kept == Some(Kept::Reducing) {
                    // (Not this progress's reduction after all; `solve_within`
                    // checks the place.) The fine system is gathered again.
                    self.gather_nodes(asset, nodes)?;
                    self.gather_bonds(asset, health);
                } else if first && kept.is_some() {
                    self.restore_fine();
                } else if !gathered {
                    self.gather_nodes(asset, nodes)?;
                    self.gather_bonds(asset, health);
                }
                self.reducing = 0;
                for s in from..steps {
                    let taken = s >= done;
                    if taken && stepped && self.passes.saturating_add(share(s)) > self.pass_limit {
                        // What the steps made stays for the next call.
                        self.reducing = s;
                        cut = Some(s);
                        break;
                    }
                    self.reduce_step(asset, health, s, steps);
                    if taken {
                        self.passes += share(s);
                        stepped = true;
                    }
                }
            }
            if let Some(s) = cut {
                return Ok(self.cut_reducing(
                    asset,
                    &mut slot,
                    progress,
                    round + 1,
                    s,
                    iterations,
                    known,
                    loads,
                ));
            }
            gathered = false;
            charged = false;
            first = false;
            round += 1;
            self.anchored_loads(loads);
            let resume = stage.holds_state()
                && slot.as_ref().is_some_and(|p| {
                    p.continues(
                        SolveMode::Anchored,
                        &self.chunk,
                        &self.bond_list,
                        &self.b_u,
                        &self.b_t,
                    )
                });
            if !resume {
                let bonds = self.bonds.len() as u64;
                // The hierarchy's build, part by part of each piece: each
                // brings it through one more, after what an earlier call
                // built and the solver lost, uncharged.
                let parts = self.build_parts();
                let done = stage.hierarchy_place();
                if done != (0, 0) && done.0 < HIERARCHY_STEPS.len() {
                    self.trust_build(slot.as_ref().map_or(0, SolveProgress::token));
                }
                for (k, (piece, share)) in HIERARCHY_STEPS.into_iter().enumerate() {
                    for part in 0..parts {
                        if !multilevel || (k, part) < done {
                            continue;
                        }
                        let build = part_charge(share * bonds, part, parts);
                        if stepped && self.passes.saturating_add(build) > self.pass_limit {
                            let built = RoundStage::building(k, part, parts);
                            return Ok(self.cut_before_iterating(
                                &mut slot, progress, round, built, iterations, loads,
                            ));
                        }
                        self.hierarchy_through(false, piece, part + 1);
                        self.passes += build;
                        stepped = true;
                    }
                }
                // The start's first step: the warm start's check (an
                // evaluation; the first preconditioning is a step of its
                // own, `conjugate_gradient`).
                let start = part_charge(EVALUATION_PASSES * bonds, 0, parts);
                if stepped && self.passes.saturating_add(start) > self.pass_limit {
                    let built = if multilevel {
                        RoundStage::Preconditioned
                    } else {
                        RoundStage::Reduced
                    };
                    return Ok(self.cut_before_iterating(
                        &mut slot, progress, round, built, iterations, loads,
                    ));
                }
            }
            // The warm start, once the call is to start the iteration (a
            // call that ends inside the hierarchy's build has no use for
            // it).
            if start_warm && !resume {
                let token = slot.as_ref().map_or(0, SolveProgress::token);
                if matches!(stage, RoundStage::Checking { .. })
                    && self.setup_kept_for(token)
                    && self.x_u.len() == self.chunk.len() + 1
                {
                    self.start_warm_kept();
                } else {
                    self.start_warm();
                }
            }
            // A check cut in parts goes on after them (`check_in_parts`).
            (self.check_from, self.check_trusted) = match stage {
                RoundStage::Checking { part } if !resume => {
                    let token = slot.as_ref().map_or(0, SolveProgress::token);
                    (part, self.trust_setup(token))
                }
                _ => (0, false),
            };
            // A later round in this call starts from nothing.
            stage = RoundStage::NotStarted;
            // A cut in the round the progress's place is of keeps that
            // place: only its stage moves (copying the fine nodes, bonds
            // and loads' key again cost 0.06-0.09 ms a cut on the refined
            // 100 × 50 × 2 wall).
            self.place_kept = found_round.filter(|&r| r == round);
            let cg_end = self.conjugate_gradient(false, &mut slot, resume, CgStart::Step);
            let kept_place = self.place_kept.take().is_some();
            let (it, evaluated) = match cg_end {
                super::CgEnd::Done(it, evaluated) => (it, evaluated),
                super::CgEnd::CutShort {
                    iterations: it,
                    known: residual,
                    stage: cut,
                } => {
                    // A cut without state (inside the start's check)
                    // leaves the place as the call found it (nothing
                    // here writes the warm start before one with state).
                    let same_place = if cut.holds_state() {
                        kept_place
                    } else {
                        self.place_found == Some(round)
                    };
                    SolveProgress::mark_reduced(&mut slot, self, round, cut, loads, same_place);
                    if let RoundStage::Checking { .. } = cut {
                        self.hold_check(slot.as_mut());
                    } else if !cut.holds_state() {
                        self.hold_setup(slot.as_mut());
                    }
                    *progress = slot;
                    return Ok(self.cut_report(iterations + it, residual));
                }
            };
            iterations += it;
            let residual = match evaluated {
                Some(residual) => residual,
                None => {
                    self.store_warm_start();
                    self.evaluate(false)
                }
            };
            if !(residual <= eps) || round >= MAX_ROUNDS || !self.refine() {
                self.forget_diverged(residual);
                let report = StressReport {
                    iterations,
                    residual: residual as f32,
                    converged: residual <= eps,
                    mode: SolveMode::Anchored,
                    work: self.passes,
                };
                self.report = Some(report);
                return Ok(report);
            }
            // The next round starts with its reduction's first step, its
            // share of a gather.
            known = Some(residual);
            let steps = self.reduction_steps(round + 1);
            let next = step_charge(
                (1 + STRUCTURE_PASSES + FOREST_BUILD_PASSES) * fine_bonds,
                0,
                steps,
            );
            if self.passes.saturating_add(next) > self.pass_limit {
                self.stresses.clear();
                SolveProgress::mark_reduced(
                    &mut slot,
                    self,
                    round + 1,
                    RoundStage::NotStarted,
                    loads,
                    false,
                );
                // The warm start just stored is the place's.
                self.hold_setup(slot.as_mut());
                *progress = slot;
                return Ok(self.cut_report(iterations, residual));
            }
        }
    }

    /// Ends a call before round `round`'s iteration, with its setup built
    /// up to `built` (see Slices): the place goes into `progress` (the
    /// warm start the round starts from with it), and the report has the
    /// iterations of this call and the residual at rest of the round's
    /// system (no iterate of the round is measured yet; under gravity
    /// alone, |g| / [`super::STANDARD_GRAVITY`]).
    fn cut_before_iterating(
        &mut self,
        slot: &mut Option<SolveProgress>,
        progress: &mut Option<SolveProgress>,
        round: u32,
        built: RoundStage,
        iterations: u32,
        loads: &StressLoads<'_>,
    ) -> StressReport {
        self.stresses.clear();
        let same_place = self.place_found == Some(round);
        SolveProgress::mark_reduced(slot, self, round, built, loads, same_place);
        // Kept whether or not a build is pending: the next call on this
        // solver resuming this progress finds the warm start the place
        // holds still in the solver, and copies nothing back (0.12–0.17 ms
        // on the refined 100 × 50 × 2 wall).
        self.hold_setup(slot.as_mut());
        *progress = slot.take();
        let residual = self.rest_residual();
        self.cut_report(iterations, residual)
    }

    /// Ends a call inside round `round`'s reduction, before its step
    /// `done` (see `solver/reduction.rs`): the place goes into `progress`
    /// (with the warm start the round starts from), the solver keeps what
    /// the steps made for it under the progress's token, and the report
    /// has the iterations of this call and the residual of the round it
    /// converged (`known`), else the residual at rest of the
    /// full-resolution system (no system of the round stands).
    #[allow(clippy::too_many_arguments)]
    fn cut_reducing(
        &mut self,
        asset: &Asset,
        slot: &mut Option<SolveProgress>,
        progress: &mut Option<SolveProgress>,
        round: u32,
        done: u32,
        iterations: u32,
        known: Option<f64>,
        loads: &StressLoads<'_>,
    ) -> StressReport {
        let same_place = self.place_found == Some(round);
        self.stresses.clear();
        let stage = if done == 0 {
            RoundStage::NotStarted
        } else {
            RoundStage::Reducing { done }
        };
        SolveProgress::mark_reduced(slot, self, round, stage, loads, same_place);
        // (What the steps made is taken back only when some were,
        // `reduction_kept`; the warm start in any case, as above.)
        self.hold_setup(slot.as_mut());
        *progress = slot.take();
        let residual = match known {
            Some(residual) => residual,
            None => self.fine_rest_residual(asset, loads),
        };
        self.cut_report(iterations, residual)
    }

    /// The report of a call that ends before the solve is done.
    fn cut_report(&mut self, iterations: u32, residual: f64) -> StressReport {
        let report = StressReport {
            iterations,
            residual: residual as f32,
            converged: false,
            mode: SolveMode::Anchored,
            work: self.passes,
        };
        self.report = Some(report);
        report
    }

    /// The fine system's arrays and the node arrays trade places: `reduce`
    /// sets the fine system aside, `restore_fine` puts it back.
    pub(super) fn swap_fine(&mut self) {
        std::mem::swap(&mut self.fine_chunk, &mut self.chunk);
        std::mem::swap(&mut self.fine_centroid, &mut self.centroid);
        std::mem::swap(&mut self.fine_fixed, &mut self.fixed);
        std::mem::swap(&mut self.fine_mass, &mut self.node_mass);
        std::mem::swap(&mut self.fine_bonds, &mut self.bonds);
        self.hierarchy_synced = false;
        self.split_trusted = false;
        std::mem::swap(&mut self.fine_adj_offsets, &mut self.adj_offsets);
        std::mem::swap(&mut self.fine_adj_bonds, &mut self.adj_bonds);
        std::mem::swap(&mut self.fine_adj_nodes, &mut self.adj_nodes);
    }

    /// The fine nodes at the ends of bond `b` (asset index), when both are
    /// in the fine system (not the world).
    pub(super) fn bond_nodes(&self, asset: &Asset, b: u32) -> Option<(usize, usize)> {
        let bond = &asset.bonds()[BondIndex(b)];
        let n = self.fine_chunk.len() as u32;
        let i = self.local(bond.chunk0).filter(|&i| i < n)?;
        let j = self.local(bond.chunk1?).filter(|&j| j < n)?;
        Some((i as usize, j as usize))
    }

    /// The lowest elastic limits (compression, tension, shear) of the
    /// intact bonds inside super-node `k`, as `reduce` finds them (∞ with
    /// none).
    pub(super) fn inner_limit_of(&self, k: usize, health: &[f32]) -> [f32; 3] {
        let n = self.fine_chunk.len();
        let mut inner = [f32::INFINITY; 3];
        for &m in self.members_of(k) {
            let m = m as usize;
            for a in self.fine_adj_offsets[m] as usize..self.fine_adj_offsets[m + 1] as usize {
                let v = self.fine_adj_nodes[a] as usize;
                let bond = self.fine_ids[self.fine_adj_bonds[a] as usize];
                if v < n && self.node_of[v] == k as u32 && health[bond as usize] > 0.0 {
                    lower_limits(&mut inner, self.materials.of(BondIndex(bond)));
                }
            }
        }
        inner
    }

    /// Marks for refinement the super-nodes at the ends of bonds at
    /// [`REFINE_AT`] of an elastic limit: the bond's own, or the lowest of
    /// the bonds inside that super-node (a weaker bond hidden inside a
    /// super-node carries about what the bonds around it carry, so it is
    /// looked at before the bonds around it near their own limit); true
    /// when there are any.
    fn refine(&mut self) -> bool {
        let mut any = false;
        // Node by node over its bonds (the adjacency and the results, not
        // the bond records): the same marks as bond by bond.
        for end in 0..self.chunk.len() {
            let (lo, hi) = (
                self.member_offsets[end] as usize,
                self.member_offsets[end + 1] as usize,
            );
            if hi - lo <= 1 {
                continue;
            }
            let inner = self.inner_limit[end];
            let bonds = self.adj_offsets[end] as usize..self.adj_offsets[end + 1] as usize;
            let reaches = self.adj_bonds[bonds].iter().any(|&e| {
                let st = &self.stresses[e as usize];
                let m = self.materials.of(st.bond);
                let own = [m.compression.elastic, m.tension.elastic, m.shear.elastic];
                let limit = [0, 1, 2].map(|k| own[k].min(inner[k]));
                let sigma = [st.compression, st.tension, st.shear];
                // A stress under half the threshold's share of its limit
                // cannot reach the threshold whatever the division's
                // rounding: most bonds are decided without dividing.
                let may =
                    (0..3).any(|k| limit[k] > 0.0 && !(sigma[k] < 0.5 * REFINE_AT * limit[k]));
                let ratio = |k: usize| {
                    if limit[k] > 0.0 {
                        sigma[k] / limit[k]
                    } else {
                        0.0
                    }
                };
                may && ratio(0).max(ratio(1)).max(ratio(2)) >= REFINE_AT
            });
            if reaches {
                for &i in &self.members[lo..hi] {
                    self.refined[i as usize] = true;
                }
                any = true;
            }
        }
        any
    }
}

/// Lowers `inner` (compression, tension, shear) to `m`'s elastic limits
/// where they are lower: a super-node's limits inside, one bond at a time.
pub(super) fn lower_limits(inner: &mut [f32; 3], m: &Material) {
    inner[0] = inner[0].min(m.compression.elastic);
    inner[1] = inner[1].min(m.tension.elastic);
    inner[2] = inner[2].min(m.shear.elastic);
}

/// The charge of part `part` of `parts` of a step charged `total`: equal
/// shares, which add up to `total`.
pub(super) fn part_charge(total: u64, part: u32, parts: u32) -> u64 {
    let (k, n) = (u64::from(part), u64::from(parts.max(1)));
    total * (k + 1) / n - total * k / n
}
