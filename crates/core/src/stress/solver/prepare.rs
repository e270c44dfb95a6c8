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

use super::{Asset, ChunkIndex, Preconditioner, StressError, StressSolver};
use crate::stress::solver::kept::Kept;

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
    use crate::stress::{Material, StressLoads, StressMaterials, StressSettings, StressSolver};
    use crate::{Asset, ChunkIndex};
    use glam::Vec3;

    /// The first solve after `prepare` finds the reduced system standing
    /// and does not group the cluster again; without it, the solve does.
    #[test]
    fn a_prepared_first_solve_does_not_reduce_again() {
        let asset = Asset::new(&stress_wall_desc(24, 12, 2)).unwrap_or_else(|e| panic!("{e}"));
        let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
        let health = vec![10.0; asset.bond_count()];
        let loads = StressLoads {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            ..Default::default()
        };
        let settings = StressSettings {
            reduce_above: 100,
            ..Default::default()
        };
        let new = || {
            StressSolver::new(
                &asset,
                settings,
                StressMaterials::uniform(Material::CONCRETE),
            )
            .unwrap_or_else(|e| panic!("{e}"))
        };
        let mut prepared = new();
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
        let mut fresh = new();
        fresh
            .solve(&asset, &nodes, &health, &loads)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(fresh.reductions, 1);
        assert_eq!(fresh.bond_stresses(), prepared.bond_stresses());
    }
}
