//! Preparing a large cluster's reduced system ahead of its first solve
//! (issue 13 item 6: ≤ 1 ms per update on the 100 × 50 × 2 wall).
//!
//! A new solver's first reduced solve gathers the cluster, groups it into
//! super-nodes and builds the multilevel hierarchy before it iterates:
//! 2–5 ms on the 10,000-chunk wall. A work budget takes that setup in
//! steps (see "Slices" in `solver/reduced.rs`), but a step is charged
//! whether or not the solver holds what it builds, since where a budget
//! cuts a solve must depend on its inputs and progress only, not on what
//! the solver happens to hold (a solver restored from a snapshot holds
//! nothing, and must cut where the original did); so the steps still take
//! their time, about 1 ms each there. [`StressSolver::prepare`] does that
//! setup outside a solve, at a time of the caller's choosing (loading a
//! level, restoring a snapshot: `InstanceStress::new` prepares the first
//! cluster it will solve). The next solve of the same nodes and intact
//! bonds then finds the reduced system standing (`solver/kept.rs`), and
//! its setup steps cost next to nothing. A kept system gives the results a
//! fresh one would, bit for bit, so preparing changes no report, bond
//! result or cut (`tests/stress_prepare.rs`).
//!
//! [`StressSolver::prepare_within`] takes the same setup (but the
//! hierarchy, which a solve builds in parts) in steps under a work limit,
//! for a caller that spreads it over frames: `InstanceStress` prepares a
//! large cluster that a commit created or shrank so, before its first
//! solve (`tests/stress_preparing.rs`). Its steps and their charges depend
//! on the cluster only, so they fall in the same frames on a solver that
//! holds nothing, and it needs no progress of its own: the step count is
//! the caller's.

use super::reduction::step_charge;
use super::{Asset, ChunkIndex, Preconditioner, StressError, StressSolver};
use crate::stress::solver::kept::Kept;

/// Passes per node charged for each of a preparation's first two steps,
/// the nodes' gather and the bonds' scan. The charges of
/// [`StressSolver::prepare_within`] go by time, at the rate of the
/// iteration's (a multilevel product, two passes a bond, took 0.19 ms on
/// the refined 100 × 50 × 2 wall's 20,000 bonds: about 5 ns a pass): on
/// the wall's 9,136 nodes left standing by a collapse, the gather took
/// 0.21 ms and the scan 0.21 (`examples/stress_updates.rs`, 2026-12-07).
const PREPARE_NODE_PASSES: u64 = 4;
/// Passes per intact bond charged for their local copies (0.52 ms for
/// 22,300 bonds there).
const PREPARE_BOND_PASSES: u64 = 5;
/// Passes per intact bond charged for the adjacency's counts (the fill
/// is charged twice as much: 0.36 ms for both there).
const PREPARE_ADJACENCY_PASSES: u64 = 1;
/// Passes per intact bond charged for the reduction, shared by its steps
/// by weight (`solver/reduction.rs`; 0.94 ms in one step there).
const PREPARE_REDUCTION_PASSES: u64 = 8;

/// What [`StressSolver::prepare_within`] did.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Preparation {
    /// Steps of the preparation taken so far, by this call and the ones
    /// before it: pass it to the next call.
    pub done: u32,
    /// Every step is taken: the next solve of the same nodes and intact
    /// bonds finds the reduced system standing (or the cluster is not
    /// solved reduced, and nothing more is to prepare).
    pub finished: bool,
    /// Work charged by this call, bond passes (see
    /// [Work](super#work)): a function of the nodes, the intact bonds and
    /// the steps, whatever the solver holds.
    pub work: u64,
}

/// A preparation in steps cut short that the solver holds: its steps
/// taken, whether the gathered structure was the one built before (its
/// bonds and adjacency stood), and whether the cluster is solved reduced.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Held {
    done: u32,
    stood: bool,
    reduces: bool,
}

/// The steps of a preparation of a cluster of `nodes` nodes and `bonds`
/// intact bonds in parts of `part` bonds (see
/// [`StressSolver::prepare_within`]).
#[derive(Copy, Clone, Debug)]
struct Plan {
    nodes: u64,
    bonds: usize,
    part: usize,
    /// Parts of the bonds' local copies.
    parts: u32,
    /// Steps of the reduction.
    reduction: u32,
    reduces: bool,
}

impl Plan {
    /// Steps in all: the gather and the scan; then, when the cluster is
    /// solved reduced, the local copies' parts, the adjacency's counts and
    /// fill, and the reduction's steps.
    fn steps(&self) -> u32 {
        if self.reduces {
            4 + self.parts + self.reduction
        } else {
            2
        }
    }

    /// The bonds of local-copy part `k`.
    fn part_range(&self, k: u32) -> std::ops::Range<usize> {
        let k = k as usize;
        (k * self.part).min(self.bonds)..((k + 1) * self.part).min(self.bonds)
    }

    /// The charge of step `s`.
    fn charge(&self, s: u32) -> u64 {
        let bonds = self.bonds as u64;
        match s {
            0 | 1 => PREPARE_NODE_PASSES * self.nodes,
            s if s < 2 + self.parts => PREPARE_BOND_PASSES * self.part_range(s - 2).len() as u64,
            s if s == 2 + self.parts => PREPARE_ADJACENCY_PASSES * bonds,
            s if s == 3 + self.parts => 2 * PREPARE_ADJACENCY_PASSES * bonds,
            s => step_charge(
                PREPARE_REDUCTION_PASSES * bonds,
                s - 4 - self.parts,
                self.reduction,
            ),
        }
    }
}

impl StressSolver {
    /// Gathers `nodes` (one cluster's support-level chunks, as for
    /// [`Self::solve`], in the order the solve will pass them: a solve
    /// finds the system standing only for the same nodes in the same
    /// order) under `health` and, when the cluster would be
    /// solved reduced (anchored, with more than
    /// [`super::StressSettings::reduce_above`] free chunks), groups it into
    /// super-nodes and builds their multilevel hierarchy, as the first
    /// round of its solve would, and keeps them for the next solve of the
    /// same nodes and intact bonds. Returns whether such a system now
    /// stands (false: the cluster is solved in full, or unanchored, and
    /// nothing is kept; [`Self::is_prepared`] asks without preparing).
    /// Changes no result: a kept system gives a fresh one's results bit for
    /// bit, so a prepared solver reports, cuts and results as an unprepared
    /// one would (the setup steps a work limit cuts are charged whether or
    /// not the solver holds what they build), only sooner. Costs what a
    /// first round's setup costs (1.5–1.6 ms
    /// on the 100 × 50 × 2 wall with the solver's memory touched, 2–5 ms in
    /// a fresh process, page faults included); nothing when the system
    /// already stands.
    ///
    /// # Errors
    /// As [`Self::solve`] for the asset, `health` and `nodes`.
    /// [`StressError::AssetMismatch`], [`StressError::HealthLength`] and
    /// [`StressError::EmptyCluster`] change nothing (a system kept before
    /// still stands); a bad node ([`StressError::NodeOutOfRange`],
    /// [`StressError::NodeNotSupportLevel`], [`StressError::DuplicateNode`])
    /// is found while gathering and drops any system kept before (the next
    /// solve gathers afresh, with the same results).
    pub fn prepare(
        &mut self,
        asset: &Asset,
        nodes: &[ChunkIndex],
        health: &[f32],
    ) -> Result<bool, StressError> {
        self.preparing = None;
        self.check_cluster(asset, nodes, health)?;
        if self.is_prepared(nodes, health) {
            return Ok(true);
        }
        self.gather_nodes(asset, nodes)?;
        self.gather_bonds(asset, health);
        if !(self.gathered_anchored() && self.gathered_reduces()) {
            return Ok(false);
        }
        // The first round of `solve_reduced`: nothing refined yet.
        self.refined.clear();
        self.refined.resize(self.chunk.len(), false);
        self.reduce(asset, health);
        self.build_forest();
        // A reduced solve preconditions with the hierarchy unless told to
        // use the forest alone (see `conjugate_gradient`).
        if self.settings.preconditioner != Preconditioner::Forest {
            self.ensure_hierarchy(false);
        }
        Ok(true)
    }

    /// [`Self::prepare`] in steps under a work limit, for a caller that
    /// prepares a cluster over several frames (`InstanceStress` does, for
    /// a large cluster a commit created or shrank): takes the steps of the
    /// preparation from `done` (0 to begin; then the [`Preparation::done`]
    /// of the call before) on, and ends before a step that would take its
    /// work past `work` bond passes, after one step at least (so every call
    /// makes progress). The steps: the nodes' gather; the intact bonds'
    /// scan; and, when the cluster is solved reduced, the bonds' local
    /// copies in parts of [`super::BUILD_PART_BONDS`], the adjacency's
    /// counts, its fill, and the reduction's steps (`solver/reduction.rs`)
    /// with the spanning forest. The multilevel hierarchy is left to the
    /// solve, which builds it in parts (see [Slices](super::reduced#slices)).
    ///
    /// The step count and each step's charge depend on the nodes, the
    /// intact bonds and `done` only, never on what the solver holds, so a
    /// caller's frames go the same way on a solver restored from a
    /// snapshot. The solver keeps what a call cut short built for the next
    /// call on it with the same nodes and intact bonds; any other call in
    /// between (a solve, another cluster's preparation) drops it, and the
    /// next call takes the steps before `done` again, uncharged. Steps over
    /// a system that already stands (prepared, or left by a solve whose
    /// last round refined nothing) are taken as steps all the same,
    /// charged, with nothing to build. A `done` past the step count (a
    /// bond broke since, so there are fewer) finishes at once. Like
    /// [`Self::prepare`], it changes no result: a solve after it reports,
    /// cuts and results as without it.
    ///
    /// Charges go by time at the iteration's rate (about 5 ns a bond pass
    /// on this project's machine): 4 passes a node for each of the gather
    /// and the scan, 5 a bond for the local copies, 1 and 2 a bond for the
    /// adjacency's counts and fill, and 8 a bond for the reduction, shared
    /// by its steps' weights. On the 100 × 50 × 2 wall left with 9,136
    /// nodes and 22,300 intact bonds by a collapse that is 430,000 passes
    /// in 34 steps: ten updates of 50,000 passes, 0.08–0.57 ms each
    /// (`examples/stress_updates.rs`).
    ///
    /// # Errors
    /// As [`Self::prepare`]. An error drops what the solver held of the
    /// preparation (the next call takes the steps before `done` again).
    pub fn prepare_within(
        &mut self,
        asset: &Asset,
        nodes: &[ChunkIndex],
        health: &[f32],
        work: u64,
        done: u32,
    ) -> Result<Preparation, StressError> {
        let held = self.preparing.take();
        self.check_cluster(asset, nodes, health)?;
        // What the solver holds: this preparation's first `done` steps
        // (its last call on the solver cut it there), or the system
        // prepared, or neither.
        let holds = held.filter(|h| {
            h.done == done
                && if done >= 2 {
                    self.same_nodes(nodes, health) && self.bonds_intact(health)
                } else {
                    nodes == self.input_nodes.as_slice()
                }
        });
        let stands = holds.is_none() && self.is_prepared(nodes, health);
        // Kept state of a solve cut short is for the system that stood
        // then (this call may change it): taken again by that solve.
        self.kept_iteration = None;
        self.kept_setup = None;
        let part = self.build_part_bonds.max(1);
        let mut plan = None;
        let mut stood = holds.is_some_and(|h| h.stood);
        if let Some(h) = holds.filter(|h| h.done >= 2) {
            plan = Some(self.plan(nodes.len(), part, h.reduces));
        } else if stands {
            plan = Some(self.plan(nodes.len(), part, true));
        }
        let mut passes = 0u64;
        let mut stepped = false;
        let mut s = 0u32;
        loop {
            let steps = plan.map_or(2, |p| p.steps());
            if s >= steps {
                return Ok(Preparation {
                    done: steps,
                    finished: true,
                    work: passes,
                });
            }
            // Steps 0 and 1 are charged by the nodes alone, known before
            // the plan.
            let charge = plan.map_or(PREPARE_NODE_PASSES * nodes.len() as u64, |p| p.charge(s));
            let taken = s >= done;
            if taken && stepped && passes.saturating_add(charge) > work {
                let reduces = plan.is_some_and(|p| p.reduces);
                if !stands {
                    self.preparing = Some(Held {
                        done: s,
                        stood,
                        reduces,
                    });
                }
                return Ok(Preparation {
                    done: s,
                    finished: false,
                    work: passes,
                });
            }
            if taken {
                passes = passes.saturating_add(charge);
                stepped = true;
            }
            // Steps before `done` are taken again unless the solver holds
            // them (then `done` is the held count).
            let build = !stands && (taken || holds.is_none());
            if build {
                self.prepare_step(asset, nodes, health, s, plan.as_ref(), &mut stood)?;
            }
            if s == 1 && plan.is_none() {
                let reduces = self.gathered_reduces() && self.scanned_anchored(asset);
                plan = Some(self.plan(nodes.len(), part, reduces));
                if reduces && !stood {
                    self.start_local_bonds();
                }
            }
            s += 1;
        }
    }

    /// The plan of a preparation of `nodes` nodes over the intact bonds
    /// scanned (`bond_list`).
    fn plan(&self, nodes: usize, part: usize, reduces: bool) -> Plan {
        let bonds = self.bond_list.len();
        Plan {
            nodes: nodes as u64,
            bonds,
            part,
            parts: u32::try_from(bonds.div_ceil(part)).unwrap_or(u32::MAX),
            reduction: self.stepped_reduction_steps(),
            reduces,
        }
    }

    /// Takes step `s` of a preparation (see [`Self::prepare_within`]).
    fn prepare_step(
        &mut self,
        asset: &Asset,
        nodes: &[ChunkIndex],
        health: &[f32],
        s: u32,
        plan: Option<&Plan>,
        stood: &mut bool,
    ) -> Result<(), StressError> {
        match (s, plan) {
            (0, _) => self.gather_nodes(asset, nodes)?,
            (1, _) => {
                *stood = self.scan_bonds(asset, health);
                // The first round of `solve_reduced`: nothing refined yet.
                self.refined.clear();
                self.refined.resize(self.chunk.len(), false);
            }
            (s, Some(p)) if s < 2 + p.parts => {
                if !*stood {
                    self.local_bonds(asset, p.part_range(s - 2));
                }
            }
            (s, Some(p)) if s == 2 + p.parts => {
                if !*stood {
                    self.count_adjacency();
                }
            }
            (s, Some(p)) if s == 3 + p.parts => {
                if !*stood {
                    self.fill_adjacency();
                    self.key_valid = true;
                }
            }
            (s, Some(p)) => self.reduce_step(asset, health, s - 4 - p.parts, p.reduction),
            (_, None) => {}
        }
        Ok(())
    }

    /// The gathered cluster has an anchor (as
    /// [`Self::gathered_anchored`], from the scanned bonds, before the
    /// adjacency is built): a support among its nodes or an intact bond to
    /// the world.
    fn scanned_anchored(&self, asset: &Asset) -> bool {
        self.fixed[..self.chunk.len()].iter().any(|&f| f)
            || self
                .bond_list
                .iter()
                .any(|&b| asset.bonds()[crate::index::BondIndex(b)].chunk1.is_none())
    }

    /// Whether the solver holds a first round's reduced system of exactly
    /// these nodes (the same, in the same order) with the same bonds intact
    /// under `health` (one entry per asset bond; any other length: false),
    /// so that the next solve of them only iterates: what
    /// [`Self::prepare`] leaves (and a solve whose last round refined
    /// nothing). Changes nothing; O(nodes + bonds of the cluster).
    pub fn is_prepared(&self, nodes: &[ChunkIndex], health: &[f32]) -> bool {
        health.len() == self.bond_consts.len()
            && self.kept_system(nodes, health) == Some(Kept::Same)
            && !self.system_refined.iter().any(|&r| r)
    }
}

#[cfg(test)]
mod tests {
    use crate::fixtures::stress_wall_desc;
    use crate::stress::{
        Material, Preparation, StressLoads, StressMaterials, StressSettings, StressSolver,
    };
    use crate::{Asset, ChunkIndex};
    use glam::Vec3;

    /// The first solve after `prepare` finds the reduced system standing
    /// and does not group the cluster again; without it, the solve does.
    #[test]
    fn a_prepared_first_solve_does_not_reduce_again() {
        let (asset, nodes, health, loads, mut prepared) = wall();
        let mut fresh = prepared.clone();
        assert_eq!(prepared.prepare(&asset, &nodes, &health), Ok(true));
        assert_eq!(prepared.reductions, 1);
        let r = prepared
            .solve(&asset, &nodes, &health, &loads)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(r.converged, "{r:?}");
        assert_eq!(
            prepared.reductions, 1,
            "the solve grouped the cluster again"
        );
        fresh
            .solve(&asset, &nodes, &health, &loads)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(fresh.reductions, 1);
        assert_eq!(fresh.bond_stresses(), prepared.bond_stresses());
    }

    /// The 24 × 12 × 2 wall (576 chunks, 1,368 bonds) with a few bonds
    /// broken, its nodes, gravity, and a solver that reduces above 100
    /// free chunks and copies bonds in parts of 64.
    fn wall() -> (
        Asset,
        Vec<ChunkIndex>,
        Vec<f32>,
        StressLoads<'static>,
        StressSolver,
    ) {
        let asset = Asset::new(&stress_wall_desc(24, 12, 2)).unwrap_or_else(|e| panic!("{e}"));
        let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
        let mut health = vec![10.0; asset.bond_count()];
        for b in [7, 300, 301, 900] {
            health[b] = 0.0;
        }
        let loads = StressLoads {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            ..Default::default()
        };
        let settings = StressSettings {
            reduce_above: 100,
            ..Default::default()
        };
        let mut s = StressSolver::new(
            &asset,
            settings,
            StressMaterials::uniform(Material::CONCRETE),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        s.set_build_part_bonds(64);
        (asset, nodes, health, loads, s)
    }

    /// Prepares `nodes` in calls of `work` passes, `meddle` run on the
    /// solver between calls: each call's [`Preparation`].
    fn prepare_in_steps(
        s: &mut StressSolver,
        asset: &Asset,
        nodes: &[ChunkIndex],
        health: &[f32],
        work: u64,
        mut meddle: impl FnMut(&mut StressSolver, usize),
    ) -> Vec<Preparation> {
        let mut calls = Vec::new();
        let mut done = 0;
        for call in 0..1000 {
            let p = s
                .prepare_within(asset, nodes, health, work, done)
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(p.done > done || p.finished, "{call}: {p:?} after {done}");
            done = p.done;
            calls.push(p);
            if p.finished {
                return calls;
            }
            meddle(s, call);
        }
        panic!("the preparation never finished");
    }

    /// A preparation in steps (one a call) takes the gather, the scan, the
    /// 22 parts of 64 of the 1,364 intact bonds' copies (1,368 less the 4
    /// broken), the adjacency's counts and fill, and the reduction's 8 + 22
    /// steps, charged what its plan
    /// says, and leaves the system [`StressSolver::prepare`] leaves: the
    /// solve after it does not reduce again and gives a fresh solver's
    /// results bit for bit.
    #[test]
    fn a_preparation_in_steps_leaves_the_prepared_system() {
        let (asset, nodes, health, loads, mut s) = wall();
        let calls = prepare_in_steps(&mut s, &asset, &nodes, &health, 1, |_, _| {});
        let intact = health.iter().filter(|&&h| h > 0.0).count();
        assert_eq!(intact, asset.bond_count() - 4);
        assert_eq!(intact, 1_364);
        let parts = intact.div_ceil(64) as u32;
        assert_eq!(parts, 22);
        let b = intact as u64;
        let steps = 4 + parts + 8 + parts;
        assert_eq!(calls.len() as u32, steps);
        let last = calls[calls.len() - 1];
        assert_eq!(last.done, steps);
        let n = nodes.len() as u64;
        assert_eq!(calls[0].work, 4 * n);
        assert_eq!(calls[1].work, 4 * n);
        assert_eq!(calls[2].work, 5 * 64);
        // The last part holds what the 21 before it leave.
        assert_eq!(calls[2 + parts as usize - 1].work, 5 * (b - 64 * 21));
        assert_eq!(calls[2 + parts as usize].work, b);
        assert_eq!(calls[3 + parts as usize].work, 2 * b);
        let reduction: u64 = calls[4 + parts as usize..].iter().map(|p| p.work).sum();
        assert_eq!(reduction, 8 * b);
        assert!(s.is_prepared(&nodes, &health));
        assert_eq!(s.reductions, 1);
        let r = s
            .solve(&asset, &nodes, &health, &loads)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(r.converged, "{r:?}");
        assert_eq!(s.reductions, 1, "the solve grouped the cluster again");
        let (.., mut fresh) = wall();
        let want = fresh
            .solve(&asset, &nodes, &health, &loads)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.residual.to_bits(), want.residual.to_bits());
        assert_eq!(fresh.bond_stresses(), s.bond_stresses());
        // Prepared: the steps are taken all the same, with nothing to build.
        let again = prepare_in_steps(&mut s, &asset, &nodes, &health, 1, |_, _| {});
        assert_eq!(again, calls);
        assert_eq!(s.reductions, 1);
    }

    /// Where the calls of a preparation end and what they are charged do
    /// not depend on what the solver holds: the same calls on a solver
    /// that loses its steps between them (a solve of another cluster, or
    /// a fresh solver) as on one that keeps them, and the same system at
    /// the end.
    #[test]
    fn a_preparation_cuts_where_it_would_whatever_the_solver_holds() {
        let (asset, nodes, health, loads, mut kept) = wall();
        for work in [1, 900, 3_000, 20_000] {
            let want = prepare_in_steps(&mut kept, &asset, &nodes, &health, work, |_, _| {});
            let (.., mut other) = wall();
            let lower: Vec<ChunkIndex> = nodes[..40].to_vec();
            let got = prepare_in_steps(&mut other, &asset, &nodes, &health, work, |s, call| {
                if call % 2 == 0 {
                    s.solve(&asset, &lower, &health, &loads)
                        .unwrap_or_else(|e| panic!("{e}"));
                } else {
                    *s = wall().4;
                }
            });
            assert_eq!(got, want, "{work}");
            assert!(other.is_prepared(&nodes, &health), "{work}");
            // A solve of the same nodes between the calls (the structure
            // half built): the solve gathers it afresh.
            let (.., mut fresh) = wall();
            let f = fresh
                .solve(&asset, &nodes, &health, &loads)
                .unwrap_or_else(|e| panic!("{e}"));
            let (.., mut solved) = wall();
            let mut checked = 0;
            let got = prepare_in_steps(&mut solved, &asset, &nodes, &health, work, |s, _| {
                let mut probe = s.clone();
                let r = probe
                    .solve(&asset, &nodes, &health, &loads)
                    .unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(r.residual.to_bits(), f.residual.to_bits());
                assert_eq!(probe.bond_stresses(), fresh.bond_stresses());
                checked += 1;
            });
            assert_eq!(got, want, "{work}");
            assert!(checked > 0 || want.len() == 1);
        }
    }

    /// A cluster solved in full (no reduction: `reduce_above` 0, or too
    /// few free chunks) is prepared in two steps, the gather and the
    /// scan, and its solve after them gives a fresh solver's results.
    #[test]
    fn a_full_cluster_is_prepared_in_two_steps() {
        let (asset, nodes, health, loads, mut s) = wall();
        let full = StressSettings {
            reduce_above: 0,
            ..*s.settings()
        };
        s.set_settings(full).unwrap_or_else(|e| panic!("{e}"));
        let calls = prepare_in_steps(&mut s, &asset, &nodes, &health, 1, |_, _| {});
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[1].done, 2);
        assert!(!s.is_prepared(&nodes, &health));
        let r = s
            .solve(&asset, &nodes, &health, &loads)
            .unwrap_or_else(|e| panic!("{e}"));
        let (.., mut fresh) = wall();
        fresh.set_settings(full).unwrap_or_else(|e| panic!("{e}"));
        let f = fresh
            .solve(&asset, &nodes, &health, &loads)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(r.converged);
        assert_eq!(r.residual.to_bits(), f.residual.to_bits());
        assert_eq!(s.bond_stresses(), fresh.bond_stresses());
    }

    /// Bad input is a typed error; what the solver held is dropped, and
    /// the next call takes the steps before again, to the same end. A
    /// bond broken between the calls leaves fewer steps; a `done` past
    /// them finishes.
    #[test]
    fn a_preparation_after_bad_input_or_a_broken_bond() {
        let (asset, nodes, mut health, _, mut s) = wall();
        let first = s
            .prepare_within(&asset, &nodes, &health, 1, 0)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((first.done, first.finished), (1, false));
        let mut bad = nodes.clone();
        bad.push(ChunkIndex(1_000_000));
        assert_eq!(
            s.prepare_within(&asset, &bad, &health, 1, 1),
            Err(crate::stress::StressError::NodeOutOfRange(ChunkIndex(
                1_000_000
            )))
        );
        assert_eq!(
            s.prepare_within(&asset, &nodes, &health[1..], 1, 1),
            Err(crate::stress::StressError::HealthLength {
                found: health.len() - 1,
                expected: health.len()
            })
        );
        // From step 1 on a fresh solver (which holds nothing): the steps
        // and charges of a preparation from 0 after its first call.
        let (.., mut clean) = wall();
        let want = prepare_in_steps(&mut clean, &asset, &nodes, &health, 2_000, |_, _| {});
        let mut fresh = wall().4;
        let mut done = 1;
        let mut got = Vec::new();
        let from_one = loop {
            let p = fresh
                .prepare_within(&asset, &nodes, &health, 2_000, done)
                .unwrap_or_else(|e| panic!("{e}"));
            done = p.done;
            got.push(p);
            if p.finished {
                break p;
            }
        };
        let mut rest = clean.clone();
        let again = rest
            .prepare_within(&asset, &nodes, &health, 2_000, 1)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got[0], again);
        assert_eq!(from_one.done, want[want.len() - 1].done);
        assert!(fresh.is_prepared(&nodes, &health));
        let _ = s
            .prepare_within(&asset, &nodes, &health, 1, 1)
            .unwrap_or_else(|e| panic!("{e}"));
        // One bond part fewer: the plan has two steps fewer.
        for b in health.iter_mut().take(200) {
            *b = 0.0;
        }
        let end = s
            .prepare_within(&asset, &nodes, &health, u64::MAX, from_one.done)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(end.finished, "{end:?}");
        assert!(end.done < from_one.done, "{end:?}");
        assert_eq!(end.work, 0);
        assert!(s.is_prepared(&nodes, &health));
    }
}
