//! The progress of a solve cut short by its work limit
//! ([`StressSolver::solve_within`]): the conjugate gradient's state at the
//! top of its loop, and what the solve was of, so the next call can tell
//! whether it continues the same solve.

use super::{SolveMode, StressLoads, StressSolver};
use crate::index::ChunkIndex;
use glam::DVec3;
use serde::{Deserialize, Serialize};

/// A solve's state between two slices (see [`StressSolver::solve_within`]).
/// Opaque; serialisable so that a snapshot taken between slices resumes
/// bit for bit. Size: six vectors per node of the cluster, plus its node
/// and intact bond lists (a reduced solve's: six vectors per node of its
/// reduced system, sized for the full-resolution cluster, plus its node,
/// refined chunk and bond lists, and its loads; between two rounds, two
/// vectors per full-resolution node hold the warm start the next round
/// starts from).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SolveProgress {
    /// What was solved: the mode, the nodes (ascending chunks), the intact
    /// bonds (ascending) and the loads per node (force N, moment N·m).
    mode: u8,
    nodes: Vec<ChunkIndex>,
    bonds: Vec<u32>,
    b_u: Vec<DVec3>,
    b_t: Vec<DVec3>,
    /// Iterations of all slices so far, whether the multilevel
    /// preconditioner is on, and `rᵀz`.
    iterations: u32,
    multilevel: bool,
    rz: f64,
    /// Displacements, residuals and search directions per node.
    x_u: Vec<DVec3>,
    x_t: Vec<DVec3>,
    r_u: Vec<DVec3>,
    r_t: Vec<DVec3>,
    p_u: Vec<DVec3>,
    p_t: Vec<DVec3>,
    /// A reduced solve's place ([`super::reduced`]): the round under way
    /// (1-based; 0 for a solve that is not reduced), whether its conjugate
    /// gradient has started (false: cut between two rounds, the next one
    /// to be built), the chunks refined so far, and what the solve is of at
    /// full resolution (the nodes, and the loads bit for bit; the intact
    /// bonds are `bonds`).
    #[serde(default)]
    round: u32,
    #[serde(default)]
    round_started: bool,
    #[serde(default)]
    refined: Vec<ChunkIndex>,
    #[serde(default)]
    fine_nodes: Vec<ChunkIndex>,
    #[serde(default)]
    loads_key: Vec<u32>,
}

/// The loads of a solve as bits, in a fixed order (gravity, angular
/// velocity, then each point load's chunk, force and point).
fn loads_bits<'a>(loads: &StressLoads<'a>) -> impl Iterator<Item = u32> + 'a {
    let v = |v: glam::Vec3| [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()];
    v(loads.gravity)
        .into_iter()
        .chain(v(loads.angular_velocity))
        .chain(loads.point_loads.iter().flat_map(move |l| {
            std::iter::once(l.chunk.0)
                .chain(v(l.force))
                .chain(v(l.point))
        }))
}

/// [`SolveProgress`] as set snapshots of format 11 (smithereens-rapier)
/// wrote it: without a reduced solve's place. The reduced solve was not
/// sliced then, so no such progress was of one and the conversion loses
/// nothing.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct SolveProgressV1 {
    mode: u8,
    nodes: Vec<ChunkIndex>,
    bonds: Vec<u32>,
    b_u: Vec<DVec3>,
    b_t: Vec<DVec3>,
    iterations: u32,
    multilevel: bool,
    rz: f64,
    x_u: Vec<DVec3>,
    x_t: Vec<DVec3>,
    r_u: Vec<DVec3>,
    r_t: Vec<DVec3>,
    p_u: Vec<DVec3>,
    p_t: Vec<DVec3>,
}

impl From<SolveProgressV1> for SolveProgress {
    fn from(v: SolveProgressV1) -> Self {
        Self {
            mode: v.mode,
            nodes: v.nodes,
            bonds: v.bonds,
            b_u: v.b_u,
            b_t: v.b_t,
            iterations: v.iterations,
            multilevel: v.multilevel,
            rz: v.rz,
            x_u: v.x_u,
            x_t: v.x_t,
            r_u: v.r_u,
            r_t: v.r_t,
            p_u: v.p_u,
            p_t: v.p_t,
            ..Self::default()
        }
    }
}

fn mode_code(mode: SolveMode) -> u8 {
    match mode {
        SolveMode::Anchored => 0,
        SolveMode::Inertial => 1,
        SolveMode::Skipped => 2,
    }
}

impl SolveProgress {
    /// Iterations of all slices so far (of the round under way, for a
    /// reduced solve; 0 between two rounds).
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// Stores the state of `solver`'s conjugate gradient at the top of its
    /// loop into `slot`, reusing the buffers of the progress already there
    /// (a solve sliced over many calls allocates only at its first cut).
    pub(super) fn save(
        slot: &mut Option<Self>,
        solver: &StressSolver,
        iterations: u32,
        multilevel: bool,
        rz: f64,
    ) {
        let p = slot.get_or_insert_with(Self::default);
        p.mode = solver.forest_mode.map_or(u8::MAX, mode_code);
        p.nodes.clone_from(&solver.chunk);
        p.bonds.clone_from(&solver.bond_list);
        p.b_u.clone_from(&solver.b_u);
        p.b_t.clone_from(&solver.b_t);
        p.iterations = iterations;
        p.multilevel = multilevel;
        p.rz = rz;
        p.x_u.clone_from(&solver.x_u);
        p.x_t.clone_from(&solver.x_t);
        p.r_u.clone_from(&solver.r_u);
        p.r_t.clone_from(&solver.r_t);
        p.p_u.clone_from(&solver.p_u);
        p.p_t.clone_from(&solver.p_t);
    }

    /// True when this is the progress of a solve of these nodes, intact
    /// bonds and loads in `mode` (bit for bit).
    pub(super) fn continues(
        &self,
        mode: SolveMode,
        nodes: &[ChunkIndex],
        bonds: &[u32],
        b_u: &[DVec3],
        b_t: &[DVec3],
    ) -> bool {
        let same = |a: &[DVec3], b: &[DVec3]| {
            a.len() == b.len()
                && a.iter().zip(b).all(|(x, y)| {
                    x.x.to_bits() == y.x.to_bits()
                        && x.y.to_bits() == y.y.to_bits()
                        && x.z.to_bits() == y.z.to_bits()
                })
        };
        // Every vector the same length as the solver's (a progress decoded
        // from a damaged snapshot must not reach `restore`).
        let n = b_u.len();
        self.mode == mode_code(mode)
            && self.nodes == nodes
            && self.bonds == bonds
            && same(&self.b_u, b_u)
            && same(&self.b_t, b_t)
            && [
                &self.x_u, &self.x_t, &self.r_u, &self.r_t, &self.p_u, &self.p_t,
            ]
            .iter()
            .all(|v| v.len() == n)
    }

    /// Marks a progress just saved by the conjugate gradient of a reduced
    /// solve (or, with `started` false, a cut between two rounds: `slot`
    /// is filled) with the reduced solve's place: `round`, the refined
    /// chunks, and the full-resolution nodes and loads it is a solve of.
    ///
    /// Between two rounds (`started` false) the next round starts from the
    /// solver's warm start, which another solve could change before the
    /// next call: the cluster's is kept in `x_u`, `x_t` (one entry per
    /// full-resolution node, `warm`) and put back by [`Self::resume_warm`].
    /// The vectors are sized for the full-resolution cluster at once, so
    /// the rounds after the first cut (more nodes as refinement adds
    /// them) do not grow them.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn mark_reduced(
        slot: &mut Option<Self>,
        round: u32,
        started: bool,
        refined: impl Iterator<Item = ChunkIndex>,
        fine_nodes: &[ChunkIndex],
        fine_bonds: &[u32],
        loads: &StressLoads<'_>,
        warm: impl Iterator<Item = (DVec3, DVec3)>,
    ) {
        let p = slot.get_or_insert_with(Self::default);
        let len = fine_nodes.len() + 1;
        for v in [
            &mut p.b_u, &mut p.b_t, &mut p.x_u, &mut p.x_t, &mut p.r_u, &mut p.r_t, &mut p.p_u,
            &mut p.p_t,
        ] {
            v.reserve(len.saturating_sub(v.len()));
        }
        p.nodes.reserve(len.saturating_sub(p.nodes.len()));
        p.refined.reserve(len.saturating_sub(p.refined.len()));
        // `save` took the mode from the forest, which a reduced system's
        // is not recorded as.
        p.mode = mode_code(SolveMode::Anchored);
        if !started {
            // No conjugate-gradient state: nothing for `continues` to match.
            p.mode = u8::MAX;
            p.nodes.clear();
            p.bonds.clear();
            p.iterations = 0;
            p.x_u.clear();
            p.x_t.clear();
            for (u, t) in warm {
                p.x_u.push(u);
                p.x_t.push(t);
            }
        }
        p.bonds.clear();
        p.bonds.extend_from_slice(fine_bonds);
        p.round = round;
        p.round_started = started;
        p.refined.clear();
        p.refined.extend(refined);
        p.fine_nodes.clear();
        p.fine_nodes.extend_from_slice(fine_nodes);
        p.loads_key.clear();
        p.loads_key.extend(loads_bits(loads));
    }

    /// The reduced solve's place when this is the progress of a reduced
    /// solve of these full-resolution nodes, intact bonds and loads:
    /// `(round, started, refined chunks)`.
    pub(super) fn reduced_place(
        &self,
        fine_nodes: &[ChunkIndex],
        fine_bonds: &[u32],
        loads: &StressLoads<'_>,
    ) -> Option<(u32, bool, &[ChunkIndex])> {
        // A place decoded from damaged bytes must not pass the round limit
        // or miss its warm start.
        let warm_ok = self.round_started
            || (self.x_u.len() == fine_nodes.len() && self.x_t.len() == fine_nodes.len());
        ((1..=super::reduced::MAX_ROUNDS).contains(&self.round)
            && warm_ok
            && self.fine_nodes == fine_nodes
            && self.bonds == fine_bonds
            && self.loads_key.iter().copied().eq(loads_bits(loads)))
        .then_some((self.round, self.round_started, &self.refined))
    }

    /// The warm start of each full-resolution node kept at a cut between
    /// two rounds (see [`Self::mark_reduced`]), in node order.
    pub(super) fn resume_warm(&self) -> impl Iterator<Item = (DVec3, DVec3)> + '_ {
        self.x_u.iter().copied().zip(self.x_t.iter().copied())
    }

    /// Where a reduced solve stands, for a state hash: the round (0 for a
    /// full solve), whether its iteration has started, and how many chunks
    /// are refined.
    pub fn reduced_round(&self) -> (u32, bool, usize) {
        (self.round, self.round_started, self.refined.len())
    }

    /// Puts the state back into `solver` (whose structure and loads
    /// [`Self::continues`]); returns the iterations so far, the
    /// preconditioner flag and `rᵀz`.
    pub(super) fn restore(&self, solver: &mut StressSolver) -> (u32, bool, f64) {
        solver.x_u.copy_from_slice(&self.x_u);
        solver.x_t.copy_from_slice(&self.x_t);
        solver.r_u.copy_from_slice(&self.r_u);
        solver.r_t.copy_from_slice(&self.r_t);
        solver.p_u.copy_from_slice(&self.p_u);
        solver.p_t.copy_from_slice(&self.p_t);
        (self.iterations, self.multilevel, self.rz)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Format 11 of the set snapshots wrote a progress without the reduced
    /// solve's place, which postcard appends after the other fields: those
    /// bytes read as a [`SolveProgressV1`] give back the same progress.
    #[test]
    fn a_progress_without_the_reduced_place_reads_as_version_1() {
        let v = DVec3::new(1.5, -2.25, 3.0e-7);
        let p = SolveProgress {
            mode: 0,
            nodes: vec![ChunkIndex(3), ChunkIndex(9)],
            bonds: vec![4, 7, 11],
            b_u: vec![v; 3],
            b_t: vec![-v; 3],
            iterations: 17,
            multilevel: true,
            rz: 0.125,
            x_u: vec![v; 3],
            x_t: vec![2.0 * v; 3],
            r_u: vec![3.0 * v; 3],
            r_t: vec![4.0 * v; 3],
            p_u: vec![5.0 * v; 3],
            p_t: vec![6.0 * v; 3],
            ..SolveProgress::default()
        };
        let bytes = postcard::to_stdvec(&p).unwrap_or_default();
        // round 0, not started, and three empty lists: one byte each.
        let (v1, place) = bytes.split_at(bytes.len() - 5);
        assert_eq!(place, &[0, 0, 0, 0, 0]);
        let old: SolveProgressV1 = postcard::from_bytes(v1).unwrap_or_default();
        assert_eq!(SolveProgress::from(old), p);
    }
}
