//! The progress of a solve cut short by its work limit
//! ([`StressSolver::solve_within`]): the conjugate gradient's state at the
//! top of its loop, and what the solve was of, so the next call can tell
//! whether it continues the same solve.

use super::{SolveMode, StressSolver};
use crate::index::ChunkIndex;
use glam::DVec3;
use serde::{Deserialize, Serialize};

/// A solve's state between two slices (see [`StressSolver::solve_within`]).
/// Opaque; serialisable so that a snapshot taken between slices resumes
/// bit for bit. Size: six vectors per node of the cluster, plus its node
/// and intact bond lists.
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
}

fn mode_code(mode: SolveMode) -> u8 {
    match mode {
        SolveMode::Anchored => 0,
        SolveMode::Inertial => 1,
        SolveMode::Skipped => 2,
    }
}

impl SolveProgress {
    /// Iterations of all slices so far.
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
