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
//!    gather every call is charged;
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
//!    cycle, equal shares (three on a system that smooths on its bonds,
//!    else one; a call cut after the check leaves the state in the
//!    progress, stage `Checked`, and after one or two of those steps stage
//!    `Starting`, code 13, the cycle's vectors kept in the solver or taken
//!    again, uncharged, `solver/setup_steps.rs`);
//! 4. each iteration, cut as a full solve's are: in steps, its update and
//!    its preconditioning (`solver/iteration_steps.rs`).
//!
//! A converged round that refines ends the call when the next round's
//! reduction would pass the limit. The [`SolveProgress`] keeps the round,
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
use super::{
    CgStart, DVec3, EVALUATION_PASSES, FOREST_BUILD_PASSES, HIERARCHY_BUILD_PASSES, NONE,
    STRUCTURE_PASSES, SolveMode, SolveProgress, StressError, StressLoads, StressReport,
    StressSolver,
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
        self.refined.clear();
        self.refined.resize(n, false);
        let eps = f64::from(self.settings.epsilon);
        let mut iterations = 0;
        let mut round = 0;
        // A progress of this very solve puts it back at its place; any
        // other only lends its buffers.
        let mut slot = progress.take();
        // How far the round under way came in earlier calls.
        let mut stage = RoundStage::NotStarted;
        if let Some((at, at_stage, refined)) = slot
            .as_ref()
            .and_then(|p| p.reduced_place(self.fine_nodes(), &self.bond_list, loads))
        {
            for &c in refined {
                if let Some(i) = self.local(c) {
                    self.refined[i as usize] = true;
                }
            }
            round = at - 1;
            stage = at_stage;
            if !stage.holds_state() {
                // The round starts from the warm start the cut left.
                if let Some(p) = slot.as_ref() {
                    self.kx_valid = false;
                    for (k, (u, t)) in p.resume_warm().enumerate() {
                        let c = self.fine_nodes()[k].0 as usize;
                        self.warm_u[c] = u;
                        self.warm_t[c] = t;
                    }
                }
            }
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
            if grouping != Grouping::Changes {
                if kept == Some(Kept::Broken) {
                    // A split renumbered the nodes: the adjacency is built.
                    let split = matches!(grouping, Grouping::Splits(_));
                    self.drop_broken(asset, health, !split);
                    self.forest_topology();
                }
                self.reset_vectors(self.chunk.len() + 1);
                self.fix_unreached();
                // The warm start waits for whether the call resumes (below).
                start_warm = true;
            } else {
                if first && kept.is_some() {
                    self.restore_fine();
                } else if !gathered {
                    self.gather_nodes(asset, nodes)?;
                    self.gather_bonds(asset, health);
                }
                if !charged {
                    self.passes += (1 + STRUCTURE_PASSES + FOREST_BUILD_PASSES) * fine_bonds;
                }
                self.reduce(asset, health);
                self.build_forest();
            }
            // The reduction is this call's step unless an earlier call took
            // it (and this one only found it standing, or built it again).
            stepped |= stage.built() < RoundStage::Reduced.built();
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
            if start_warm && !resume {
                self.start_warm();
            }
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
            let (it, evaluated) =
                match self.conjugate_gradient(false, &mut slot, resume, CgStart::Step) {
                    super::CgEnd::Done(it, evaluated) => (it, evaluated),
                    super::CgEnd::CutShort {
                        iterations: it,
                        known: residual,
                        stage: cut,
                    } => {
                        SolveProgress::mark_reduced(&mut slot, self, round, cut, loads);
                        if let RoundStage::Checking { .. } = cut {
                            self.hold_check(slot.as_mut());
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
            // The next round starts with its reduction, charged as a
            // gather.
            let next = (1 + STRUCTURE_PASSES + FOREST_BUILD_PASSES) * fine_bonds;
            if self.passes.saturating_add(next) > self.pass_limit {
                self.stresses.clear();
                SolveProgress::mark_reduced(
                    &mut slot,
                    self,
                    round + 1,
                    RoundStage::NotStarted,
                    loads,
                );
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
        SolveProgress::mark_reduced(slot, self, round, built, loads);
        self.hold_build(slot.as_mut());
        *progress = slot.take();
        let residual = self.rest_residual();
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

    /// Groups the fine system into super-nodes and rewrites the node
    /// arrays, bonds and adjacency for them. The fine system is the one
    /// gathered, or the one kept aside (`restore_fine`), whose bonds broken
    /// since are passed over here and by the grouping's search.
    pub(super) fn reduce(&mut self, asset: &Asset, health: &[f32]) {
        // The fine structure's bonds, adjacency, forest and hierarchy are
        // overwritten by the super-nodes': none may be reused after.
        self.key_valid = false;
        self.forest_mode = None;
        self.hierarchy_mode = None;
        // A hierarchy built in pieces continues only over the grouping it
        // began with (a rebuild's counterparts, `old_of`, are made anew
        // here, even for the same system).
        self.multilevel.drop_pending();
        self.build_trusted = false;
        // The fine system is kept aside (`restore_fine` puts it back).
        self.swap_fine();
        if !self.fine_restored {
            self.fine_ids.clear();
            self.fine_ids
                .extend(self.fine_bonds.iter().map(|lb| lb.bond.0));
            self.fine_ends.clear();
            self.fine_ends
                .extend(self.fine_bonds.iter().map(|lb| [lb.a, lb.b]));
        }
        self.fine_restored = false;
        self.kx_valid = false;
        #[cfg(test)]
        {
            self.reductions += 1;
        }
        let n = self.fine_chunk.len();
        // The grouping before, kept for the hierarchy's rebuild
        // (`regroup_hint`) when it grouped these very nodes.
        let regrouping = self.grouped_chunks == self.fine_chunk;
        self.prev_node_of.clone_from(&self.node_of);
        self.prev_member_offsets.clone_from(&self.member_offsets);
        // The groups of the intact structure (cached while the fine nodes,
        // anchors and refinement are the same), then their pieces over the
        // intact bonds: the super-nodes.
        if !(regrouping
            && self.pristine_fixed == self.fine_fixed
            && self.pristine_refined == self.refined)
        {
            self.pristine_groups(asset);
        }
        self.node_of.clear();
        self.node_of.resize(n + 1, NONE);
        let mut count = 0u32;
        for g in 0..self.pristine_offsets.len().saturating_sub(1) {
            for m in self.pristine_offsets[g]..self.pristine_offsets[g + 1] {
                let s = self.pristine_members[m as usize] as usize;
                if self.node_of[s] == NONE {
                    self.node_of[s] = count;
                    self.search_piece(s, health);
                    count += 1;
                }
            }
        }
        let nn = count as usize;
        self.node_of[n] = count;
        // Members, in ascending fine order.
        self.member_offsets.clear();
        self.member_offsets.resize(nn + 2, 0);
        for i in 0..n {
            self.member_offsets[self.node_of[i] as usize + 1] += 1;
        }
        for k in 0..=nn {
            self.member_offsets[k + 1] += self.member_offsets[k];
        }
        self.members.clear();
        self.members.resize(n, 0);
        // `dist` is the fill cursor here.
        self.dist.clear();
        self.dist.extend_from_slice(&self.member_offsets[..=nn]);
        for i in 0..n {
            let slot = &mut self.dist[self.node_of[i] as usize];
            self.members[*slot as usize] = i as u32;
            *slot += 1;
        }
        // The node arrays of the super-nodes.
        self.chunk.clear();
        self.centroid.clear();
        self.fixed.clear();
        self.node_mass.clear();
        self.inv_w2.clear();
        self.inv_wl2.clear();
        for k in 0..nn {
            let v = self.super_node_values(k);
            self.chunk.push(v.chunk);
            self.centroid.push(v.centroid);
            self.fixed.push(v.fixed);
            self.node_mass.push(v.mass);
            self.inv_w2.push(v.inv_w2);
            self.inv_wl2.push(v.inv_wl2);
        }
        self.centroid.push(DVec3::ZERO);
        self.fixed.push(true);
        self.inv_w2.push(0.0);
        self.inv_wl2.push(0.0);
        // Bonds between nodes, arms from the node centres; a bond inside a
        // super-node leaves only its limits.
        self.inner_limit.clear();
        self.inner_limit.resize(nn, [f32::INFINITY; 3]);
        self.bonds.clear();
        self.hierarchy_synced = false;
        self.split_trusted = false;
        for e in 0..self.fine_ids.len() {
            let bond = self.fine_ids[e];
            if !(health[bond as usize] > 0.0) {
                // Broken since the fine system was gathered (it was kept
                // aside, `restore_fine`).
                continue;
            }
            let [fa, fb] = self.fine_ends[e];
            let (a, b) = (self.node_of[fa as usize], self.node_of[fb as usize]);
            if a == b {
                lower_limits(
                    &mut self.inner_limit[a as usize],
                    self.materials.of(BondIndex(bond)),
                );
                continue;
            }
            let lb = self.reduced_bond(e, a, b);
            self.bonds.push(lb);
        }
        self.build_adjacency();
        self.reset_vectors(nn + 1);
        self.regroup_hint(regrouping);
        self.grouped_chunks.clone_from(&self.fine_chunk);
        self.reduced = true;
        self.system_kept = true;
        self.system_refined.clone_from(&self.refined);
    }

    /// After a grouping of the same fine nodes as the one before
    /// (`regrouping`): each super-node's old counterpart, one with the same
    /// members (`NONE` if none), and the world's, in `old_of`, which the
    /// hierarchy's build reads ([`Multilevel::rebuild`]: the rows of
    /// super-nodes that stand are copied, checked there). O(fine nodes).
    ///
    /// [`Multilevel::rebuild`]: crate::stress::multilevel::Multilevel::rebuild
    fn regroup_hint(&mut self, regrouping: bool) {
        self.old_of.clear();
        self.regrouped = false;
        let old_count = self.prev_member_offsets.len().saturating_sub(2);
        if !regrouping || old_count == 0 {
            return;
        }
        let size = |offsets: &[u32], k: usize| offsets[k + 1] - offsets[k];
        for k in 0..self.chunk.len() {
            let members = self.members_of(k);
            let o = self.prev_node_of[members[0] as usize];
            let same = (o as usize) < old_count
                && size(&self.prev_member_offsets, o as usize) == members.len() as u32
                && members.iter().all(|&m| self.prev_node_of[m as usize] == o);
            self.old_of.push(if same { o } else { NONE });
        }
        // The world.
        self.old_of.push(old_count as u32);
        self.regrouped = true;
    }

    /// The groups of the cluster's intact structure (see "Reduction"):
    /// breadth-first from each fine node not yet grouped (ascending), every
    /// free, unrefined node not yet grouped within [`REDUCE_RADIUS`] hops
    /// over the bonds between the cluster's chunks, broken or not;
    /// anchors and refined nodes alone. Kept in `pristine_of` and, per
    /// group, its members ascending (`pristine_offsets`,
    /// `pristine_members`); they depend on the fine nodes, anchors and
    /// refinement only, which are recorded with them. O(fine nodes + their
    /// bonds); `order` and `dist` are scratch.
    fn pristine_groups(&mut self, asset: &Asset) {
        let n = self.fine_chunk.len();
        // Every bond between the cluster's chunks: the fine adjacency (the
        // bonds intact when it was gathered) and, in `pristine_adj`, those
        // broken then (`broken_inside`; it may repeat some of the first,
        // which does no harm). The groups do not depend on the order the
        // search meets neighbours in: a group is every eligible node within
        // the radius of its seed over eligible nodes.
        self.pristine_adj_offsets.clear();
        self.pristine_adj_offsets.resize(n + 1, 0);
        self.pristine_adj.clear();
        for &b in &self.broken_inside {
            if let Some((i, j)) = self.bond_nodes(asset, b) {
                self.pristine_adj_offsets[i + 1] += 1;
                self.pristine_adj_offsets[j + 1] += 1;
            }
        }
        for i in 0..n {
            self.pristine_adj_offsets[i + 1] += self.pristine_adj_offsets[i];
        }
        self.pristine_adj
            .resize(self.pristine_adj_offsets[n] as usize, 0);
        if !self.pristine_adj.is_empty() {
            // `dist` is the fill cursor here.
            self.dist.clear();
            self.dist.extend_from_slice(&self.pristine_adj_offsets[..n]);
            for k in 0..self.broken_inside.len() {
                if let Some((i, j)) = self.bond_nodes(asset, self.broken_inside[k]) {
                    for (from, to) in [(i, j), (j, i)] {
                        self.pristine_adj[self.dist[from] as usize] = to as u32;
                        self.dist[from] += 1;
                    }
                }
            }
        }
        self.pristine_of.clear();
        self.pristine_of.resize(n, NONE);
        self.dist.clear();
        self.dist.resize(n + 1, 0);
        let mut groups = 0u32;
        for s in 0..n {
            if self.pristine_of[s] != NONE {
                continue;
            }
            self.pristine_of[s] = groups;
            if !(self.fine_fixed[s] || self.refined[s]) {
                self.order.clear();
                self.order.push(s as u32);
                self.dist[s] = 0;
                let mut head = 0;
                while head < self.order.len() {
                    let u = self.order[head] as usize;
                    head += 1;
                    if self.dist[u] == REDUCE_RADIUS {
                        continue;
                    }
                    let fine =
                        self.fine_adj_offsets[u] as usize..self.fine_adj_offsets[u + 1] as usize;
                    let broken = self.pristine_adj_offsets[u] as usize
                        ..self.pristine_adj_offsets[u + 1] as usize;
                    for k in fine.chain(broken.map(|k| k + self.fine_adj_nodes.len())) {
                        let v = if k < self.fine_adj_nodes.len() {
                            self.fine_adj_nodes[k] as usize
                        } else {
                            self.pristine_adj[k - self.fine_adj_nodes.len()] as usize
                        };
                        if v < n
                            && self.pristine_of[v] == NONE
                            && !self.fine_fixed[v]
                            && !self.refined[v]
                        {
                            self.pristine_of[v] = groups;
                            self.dist[v] = self.dist[u] + 1;
                            self.order.push(v as u32);
                        }
                    }
                }
            }
            groups += 1;
        }
        // Members per group, ascending.
        let groups = groups as usize;
        self.pristine_offsets.clear();
        self.pristine_offsets.resize(groups + 1, 0);
        for &g in &self.pristine_of {
            self.pristine_offsets[g as usize + 1] += 1;
        }
        for g in 0..groups {
            self.pristine_offsets[g + 1] += self.pristine_offsets[g];
        }
        self.pristine_members.clear();
        self.pristine_members.resize(n, 0);
        self.dist.clear();
        self.dist
            .extend_from_slice(&self.pristine_offsets[..groups]);
        for i in 0..n {
            let slot = &mut self.dist[self.pristine_of[i] as usize];
            self.pristine_members[*slot as usize] = i as u32;
            *slot += 1;
        }
        self.pristine_fixed.clone_from(&self.fine_fixed);
        self.pristine_refined.clone_from(&self.refined);
    }

    /// The piece of `seed`'s group joined to it by intact bonds: every fine
    /// node of the same group (`pristine_of`) reached from `seed` over
    /// intact bonds and not yet in a super-node (`node_of` is `NONE`) joins
    /// `seed`'s super-node (`node_of[seed]`). Returns the piece's size;
    /// `order` is scratch. The fine system must be kept aside (the `fine_*`
    /// arrays).
    pub(super) fn search_piece(&mut self, seed: usize, health: &[f32]) -> usize {
        let n = self.fine_chunk.len();
        let (group, node) = (self.pristine_of[seed], self.node_of[seed]);
        self.order.clear();
        self.order.push(seed as u32);
        let mut head = 0;
        while head < self.order.len() {
            let u = self.order[head] as usize;
            head += 1;
            let (lo, hi) = (
                self.fine_adj_offsets[u] as usize,
                self.fine_adj_offsets[u + 1] as usize,
            );
            for k in lo..hi {
                let v = self.fine_adj_nodes[k] as usize;
                if v < n
                    && self.node_of[v] == NONE
                    && self.pristine_of[v] == group
                    && health[self.fine_ids[self.fine_adj_bonds[k] as usize] as usize] > 0.0
                {
                    self.node_of[v] = node;
                    self.order.push(v as u32);
                }
            }
        }
        self.order.len()
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
