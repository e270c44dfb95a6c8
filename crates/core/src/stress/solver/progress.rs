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
/// refined chunk and bond lists, its loads, and two vectors per
/// full-resolution node for the warm start of a cut between two rounds).
///
/// Equality compares the state and the place, not the token.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SolveProgress {
    cg: CgState,
    place: ReducedPlace,
    /// At a cut between an iteration's update and its preconditioning
    /// ([`RoundStage::Updated`]): the token under which the solver that cut
    /// keeps the update (see [`super::iteration_steps`]); 0 for none, and
    /// for every progress read back from bytes, which takes the update
    /// again.
    #[serde(skip)]
    token: u64,
}

impl PartialEq for SolveProgress {
    fn eq(&self, other: &Self) -> bool {
        self.cg == other.cg && self.place == other.place
    }
}

/// The conjugate gradient's state at the top of its loop, and what it is
/// a solve of.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct CgState {
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

impl CgState {
    /// The per-node vectors: loads, displacements, residuals, directions.
    fn vectors_mut(&mut self) -> [&mut Vec<DVec3>; 8] {
        [
            &mut self.b_u,
            &mut self.b_t,
            &mut self.x_u,
            &mut self.x_t,
            &mut self.r_u,
            &mut self.r_t,
            &mut self.p_u,
            &mut self.p_t,
        ]
    }
}

/// A reduced solve's place ([`super::reduced`]): the round under way
/// (1-based; 0 for a solve that is not reduced), how far it has come
/// (before its conjugate gradient starts, the round is built from `warm_u`,
/// `warm_t`, one entry per full-resolution node), the chunks refined so
/// far, and what the solve is of at full resolution (the nodes, and the
/// loads bit for bit; the intact bonds are the state's).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct ReducedPlace {
    round: u32,
    stage: RoundStage,
    refined: Vec<ChunkIndex>,
    fine_nodes: Vec<ChunkIndex>,
    loads_key: Vec<u32>,
    warm_u: Vec<DVec3>,
    warm_t: Vec<DVec3>,
}

/// How far a reduced round has come (see "Slices" in [`super::reduced`]);
/// [`Self::built`] orders them as a round goes through them. Stored as its
/// code (the variant's index): 0 and 1 are what format 12 of the set
/// snapshots wrote as `false` and `true` of a flag "started".
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum RoundStage {
    /// Nothing of the round built by an earlier call.
    #[default]
    NotStarted,
    /// Its conjugate gradient is under way: the state is in [`CgState`].
    Iterating,
    /// Its reduced system was built (and charged) by an earlier call.
    Reduced,
    /// Its reduced system and multilevel hierarchy were built (and
    /// charged) by earlier calls.
    Preconditioned,
    /// Its reduced system and the hierarchy's first piece (the fine
    /// level's copy and aggregates, `multilevel/build.rs`) were built.
    Started,
    /// ... and the hierarchy's second and third pieces (the fine level's
    /// inverse blocks and smoothing).
    Smoothed,
    /// ... and the hierarchy's second piece (the inverse blocks) only.
    Inverted,
    /// ... and the hierarchy's first four pieces (level 1's pattern and
    /// blocks too).
    Assembled,
    /// Its setup built and the conjugate gradient's start begun: the warm
    /// start checked (or, from rest, the loads taken), its first
    /// preconditioning not yet run; the state (`x` and `r`) is in
    /// [`CgState`].
    Checked,
    /// Its conjugate gradient under way, cut between an iteration's update
    /// and its preconditioning: the state in [`CgState`] is that
    /// iteration's start (see [`super::iteration_steps`]). A full solve's
    /// progress uses it too.
    Updated,
    /// ... and the first two of its preconditioning's six steps taken
    /// (the fine level's pre-smoothing, then its product and the
    /// restriction, `Multilevel::apply_step`; written by a cycle of three
    /// steps after the first, which was both).
    Restricted,
    /// ... and the first four (the coarse correction too; written by a
    /// cycle of three steps after the first two).
    Coarsened,
    /// Inside the hierarchy's build: `part` parts (at least one, fewer
    /// than the piece has) of its piece `piece` taken (0 to 4, in the
    /// order of `reduced::HIERARCHY_STEPS`; see Parts in
    /// `multilevel/build.rs`). A cut before a piece's first part is the
    /// stage before that piece ([`Self::Reduced`] to [`Self::Assembled`]),
    /// as when the pieces were not taken in parts.
    Building { piece: u8, part: u32 },
    /// Its start's check done, and `done` steps (1 to 5) of its first
    /// preconditioning's cycle taken (`Multilevel::apply_step`; the state,
    /// `x` and `r`, in [`CgState`] as at [`Self::Checked`]).
    Starting { done: u8 },
    /// Its setup built and its start's check (the evaluation of the warm
    /// start) under way: `part` of its parts taken (as many as the
    /// hierarchy's pieces have, see [`Self::Building`]; the progress holds
    /// the warm start, as at [`Self::Preconditioned`]).
    Checking { part: u32 },
    /// Its reduction under way: `done` of its steps taken (at least one,
    /// fewer than it has; see `solver/reduction.rs`). The progress holds
    /// the warm start, as at [`Self::NotStarted`].
    Reducing { done: u32 },
    /// Its conjugate gradient under way, cut after an iteration's update
    /// whose residual came within ε, before the check with the bond
    /// forces: the state in [`CgState`] is that iteration's start, as at
    /// [`Self::Updated`]. A full solve's progress uses it too.
    Converging,
    /// Its conjugate gradient under way, cut inside an iteration after its
    /// update and `done` steps of its preconditioning, a count no other
    /// stage names: 1 (the pre-smoothing), 3 (the coarse correction's
    /// first cycle) or 5 (the correction added); the state as at
    /// [`Self::Updated`].
    Cycling { done: u8 },
    /// Its conjugate gradient under way, cut inside an iteration after its
    /// update's product `q = K p`, before the rest of the update: the
    /// state in [`CgState`] is that iteration's start, as at
    /// [`Self::Iterating`] (the product changes nothing of it).
    Multiplied,
    /// Its conjugate gradient under way, cut inside the check of an
    /// update within ε (see [`Self::Converging`]) taken in parts of the
    /// bonds, after `part` of them (at least one, fewer than the check
    /// has; `solver/iteration_steps.rs`): the state is that iteration's
    /// start, as at [`Self::Converging`].
    Verifying { part: u32 },
    /// Its conjugate gradient under way, cut inside an iteration's
    /// product `q = K p` in double precision taken in parts of the bonds,
    /// after `part` of them (at least one, fewer than the product has;
    /// `solver/iteration_steps.rs`): the state is that iteration's start,
    /// as at [`Self::Multiplied`].
    Multiplying { part: u32 },
}

/// The stage before each piece of the hierarchy's build, in order, and
/// after the last ([`RoundStage::hierarchy_place`]).
const PIECE_STAGES: [RoundStage; 6] = [
    RoundStage::Reduced,
    RoundStage::Started,
    RoundStage::Inverted,
    RoundStage::Smoothed,
    RoundStage::Assembled,
    RoundStage::Preconditioned,
];

impl RoundStage {
    /// Whether a progress at this stage holds the conjugate gradient's
    /// state ([`CgState`]) rather than the warm start the round starts
    /// from.
    pub(super) fn holds_state(self) -> bool {
        matches!(
            self,
            Self::Iterating
                | Self::Checked
                | Self::Starting { .. }
                | Self::Updated
                | Self::Restricted
                | Self::Coarsened
                | Self::Converging
                | Self::Cycling { .. }
                | Self::Multiplied
                | Self::Verifying { .. }
                | Self::Multiplying { .. }
        )
    }

    /// At a cut inside an iteration: how many steps of its preconditioning
    /// were taken (see [`super::iteration_steps`]).
    pub(super) fn preconditioned(self) -> Option<u8> {
        match self {
            Self::Updated => Some(0),
            Self::Restricted => Some(2),
            Self::Coarsened => Some(4),
            Self::Cycling { done } => Some(done),
            _ => None,
        }
    }

    /// The stage of a cut inside an iteration after `done` steps of its
    /// preconditioning (0 to 5).
    pub(super) fn after_preconditioning(done: u8) -> Self {
        match done {
            0 => Self::Updated,
            2 => Self::Restricted,
            4 => Self::Coarsened,
            done => Self::Cycling { done },
        }
    }

    /// The stage after `part` of the `parts` parts of the hierarchy
    /// build's piece `piece` (0 to 4): the stage before the piece for none,
    /// the stage after it for all of them.
    pub(super) fn building(piece: usize, part: u32, parts: u32) -> Self {
        if part == 0 || part >= parts {
            let k = if part == 0 { piece } else { piece + 1 };
            PIECE_STAGES[k.min(PIECE_STAGES.len() - 1)]
        } else {
            Self::Building {
                piece: piece as u8,
                part,
            }
        }
    }

    /// How far the hierarchy's build has come at this stage: the pieces
    /// done (0 to 5) and the parts of the next one. (A piece past the last,
    /// only from damaged bytes, reads as the build done.)
    pub(super) fn hierarchy_place(self) -> (usize, u32) {
        match self {
            Self::Building { piece, part } if usize::from(piece) < PIECE_STAGES.len() - 1 => {
                (usize::from(piece), part)
            }
            Self::Building { .. } => (PIECE_STAGES.len() - 1, 0),
            s => (
                PIECE_STAGES
                    .iter()
                    .position(|&p| p == s)
                    .unwrap_or(if s.built() == 0 {
                        0
                    } else {
                        PIECE_STAGES.len() - 1
                    }),
                0,
            ),
        }
    }

    /// How many steps of the round's reduction earlier calls took
    /// (`solver/reduction.rs`): none before it, all (`u32::MAX`) once it
    /// is built.
    pub(super) fn reduction_done(self) -> u32 {
        match self {
            Self::Reducing { done } => done,
            s if s.built() >= Self::Reduced.built() => u32::MAX,
            _ => 0,
        }
    }

    /// The setup done before the round iterates, in order: what is left
    /// to build and charge (a stage inside a piece counts as the one
    /// before it).
    pub(super) fn built(self) -> u8 {
        match self {
            Self::Building { piece, .. } => {
                PIECE_STAGES[usize::from(piece).min(PIECE_STAGES.len() - 1)].built()
            }
            Self::NotStarted | Self::Reducing { .. } => 0,
            Self::Reduced => 1,
            Self::Started => 2,
            Self::Inverted => 3,
            Self::Smoothed => 4,
            Self::Assembled => 5,
            Self::Preconditioned | Self::Checking { .. } => 6,
            Self::Checked | Self::Starting { .. } => 7,
            Self::Iterating | Self::Multiplied | Self::Multiplying { .. } => 8,
            Self::Updated | Self::Converging | Self::Verifying { .. } => 9,
            Self::Restricted => 10,
            Self::Coarsened => 11,
            // As the stage before it.
            Self::Cycling { done } => match done {
                0 | 1 => 9,
                2 | 3 => 10,
                _ => 11,
            },
        }
    }

    /// The stage code (see the type's docs).
    fn code(self) -> u8 {
        match self {
            Self::NotStarted => 0,
            Self::Iterating => 1,
            Self::Reduced => 2,
            Self::Preconditioned => 3,
            Self::Started => 4,
            Self::Smoothed => 5,
            Self::Inverted => 6,
            Self::Assembled => 7,
            Self::Checked => 8,
            Self::Updated => 9,
            Self::Restricted => 10,
            Self::Coarsened => 11,
            Self::Building { .. } => 12,
            Self::Starting { .. } => 13,
            Self::Checking { .. } => 14,
            Self::Reducing { .. } => 15,
            Self::Converging => 16,
            Self::Cycling { .. } => 17,
            Self::Multiplied => 18,
            Self::Verifying { .. } => 19,
            Self::Multiplying { .. } => 20,
        }
    }
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
/// wrote it: the conjugate-gradient state without a reduced solve's place
/// (postcard writes a [`SolveProgress`] as that state followed by the
/// place). The reduced solve was not sliced then, so no such progress was
/// of one and the conversion loses nothing.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct SolveProgressV1(CgState);

impl From<SolveProgressV1> for SolveProgress {
    fn from(v: SolveProgressV1) -> Self {
        Self {
            cg: v.0,
            place: ReducedPlace::default(),
            token: 0,
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
        self.cg.iterations
    }

    /// Stores the state of `solver`'s conjugate gradient at a cut into
    /// `slot`, reusing the buffers of the progress already there
    /// (a solve sliced over many calls allocates only at its first cut).
    /// With `resumed`, `slot` holds the progress this call resumed
    /// ([`Self::restore`]), which [`Self::continues`] found to be of these
    /// very nodes, bonds and loads: they are not copied again, and the
    /// displacements, residuals and directions are swapped back rather than
    /// copied (the solver is left holding the buffers `restore` gave the
    /// progress, whose contents nothing reads after a cut).
    ///
    /// The place is a full solve's (round 0) at `stage`: how far the
    /// hierarchy's build at the switch from the forest has come
    /// ([`Self::switch_stage`]), or, at a cut inside an iteration, after
    /// its update and some steps of its preconditioning
    /// ([`RoundStage::Updated`], [`RoundStage::Restricted`] or
    /// [`RoundStage::Coarsened`]) or before its check
    /// ([`RoundStage::Converging`]), where the state is the iteration's
    /// start (`iterations` before it, `x` and `r` as the solver copied them
    /// aside, `p`); a reduced solve's call marks its own place after
    /// ([`Self::mark_reduced`]). A reduced call cutting in the round of the
    /// place it resumed (`StressSolver::place_kept`) keeps that place's
    /// round, refinement and keys here, for `mark_reduced` to keep.
    pub(super) fn save(
        slot: &mut Option<Self>,
        solver: &mut StressSolver,
        resumed: bool,
        iterations: u32,
        multilevel: bool,
        rz: f64,
        stage: RoundStage,
    ) {
        let start = stage.preconditioned().is_some()
            || matches!(stage, RoundStage::Converging | RoundStage::Verifying { .. });
        let Self {
            cg: p,
            place,
            token,
        } = slot.get_or_insert_with(Self::default);
        *token = 0;
        place.stage = stage;
        place.warm_u.clear();
        place.warm_t.clear();
        if solver.place_kept.is_none() {
            // Not a reduced solve's cut in the round of the place it
            // resumed (which `mark_reduced` then keeps): no place.
            place.round = 0;
            place.refined.clear();
            place.fine_nodes.clear();
            place.loads_key.clear();
        }
        p.mode = solver.forest_mode.map_or(u8::MAX, mode_code);
        if !resumed {
            p.nodes.clone_from(&solver.chunk);
            p.bonds.clone_from(&solver.bond_list);
            p.b_u.clone_from(&solver.b_u);
            p.b_t.clone_from(&solver.b_t);
        }
        p.iterations = iterations;
        p.multilevel = multilevel;
        p.rz = rz;
        // A resumed call swaps the vectors back (the progress lent the
        // solver the buffers it gets; nothing reads them after a cut). So
        // does a call that saves its own state (not an iteration's start
        // kept aside): the solver takes the progress's buffers, sized or
        // not, and sizes them before its next solve (`reset_vectors`), or
        // gets its own back when that solve resumes this progress. Copied,
        // the state first written into the progress's buffers at a new
        // size faulted their pages in: 0.6 ms of a 1.1 ms call on the
        // refined 100 × 50 × 2 wall. An iteration's start is copied (the
        // solver keeps the update that follows it).
        let swap = resumed || !start;
        let sources = if start {
            solver.kept_vectors.start_mut()
        } else {
            [
                &mut solver.x_u,
                &mut solver.x_t,
                &mut solver.r_u,
                &mut solver.r_t,
            ]
        };
        let sources = sources
            .into_iter()
            .chain([&mut solver.p_u, &mut solver.p_t]);
        let targets = [
            &mut p.x_u, &mut p.x_t, &mut p.r_u, &mut p.r_t, &mut p.p_u, &mut p.p_t,
        ];
        for (to, from) in targets.into_iter().zip(sources) {
            if swap {
                std::mem::swap(to, from);
            } else {
                to.clone_from(from);
            }
        }
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
        let same = crate::stress::multilevel::same_vectors;
        // Every vector the same length as the solver's (a progress decoded
        // from a damaged snapshot must not reach `restore`).
        let n = b_u.len();
        let p = &self.cg;
        p.mode == mode_code(mode)
            && p.nodes == nodes
            && p.bonds == bonds
            && same(&p.b_u, b_u)
            && same(&p.b_t, b_t)
            && [&p.x_u, &p.x_t, &p.r_u, &p.r_t, &p.p_u, &p.p_t]
                .iter()
                .all(|v| v.len() == n)
    }

    /// Marks a progress just saved by the conjugate gradient of a reduced
    /// solve (`stage` [`RoundStage::Iterating`], or [`RoundStage::Checked`]
    /// when it stopped between its start's check and its first
    /// preconditioning) or, with another `stage`,
    /// a cut before the round's iteration (`slot` is filled), with the
    /// reduced solve's place: `round`, how far it has come, the chunks
    /// `solver` has refined, the full-resolution nodes (the solver's fine
    /// nodes, set aside while it holds the reduced system), intact bonds
    /// and `loads` it is a solve of.
    ///
    /// Before the iteration the round starts from the solver's warm start,
    /// which another solve could change before the next call: the
    /// cluster's (one entry per full-resolution node) is kept and put back
    /// by [`Self::resume_warm`]. Every vector is sized for the
    /// full-resolution cluster at the first cut, so later rounds (more
    /// nodes as refinement adds them) do not grow them.
    ///
    /// `same_place`: for a `stage` without state, the call found this
    /// progress at this round with no state and has not changed the
    /// round's warm start, refinement or keys since; then only that stage
    /// is written (copying the rest again cost about 0.05 ms a call on the
    /// 100 × 50 × 2 wall). For a `stage` with state, the call found it at
    /// this round (with state or not) and `save` kept its place; then the
    /// stage and state are written, not the refinement and keys.
    pub(super) fn mark_reduced(
        slot: &mut Option<Self>,
        solver: &StressSolver,
        round: u32,
        stage: RoundStage,
        loads: &StressLoads<'_>,
        same_place: bool,
    ) {
        if same_place
            && !stage.holds_state()
            && let Some(p) = slot.as_mut()
            && p.place.round == round
            && !p.place.stage.holds_state()
        {
            // The place as the call found it (this round's warm start,
            // refinement and keys, no state): only the stage moves.
            p.place.stage = stage;
            return;
        }
        if same_place
            && stage.holds_state()
            && let Some(p) = slot.as_mut()
            && p.place.round == round
        {
            // Just saved (`save`, which kept the place: the call found it
            // at this round, with the same refinement and keys) with the
            // state: the stage moves, no warm start is kept.
            debug_assert!(
                p.place.fine_nodes == solver.fine_nodes()
                    && p.place.loads_key.iter().copied().eq(loads_bits(loads))
                    && p.place.refined.iter().copied().eq(solver
                        .refined
                        .iter()
                        .zip(solver.fine_nodes())
                        .filter(|(r, _)| **r)
                        .map(|(_, &c)| c)),
                "a kept place differs from the solve's"
            );
            p.place.stage = stage;
            p.place.warm_u.clear();
            p.place.warm_t.clear();
            p.cg.mode = mode_code(SolveMode::Anchored);
            // (Its bonds are the solve's: `save` copied them, or the call
            // resumed this progress, which `continues` found of them.)
            debug_assert!(
                p.cg.bonds == solver.bond_list,
                "a kept place's bonds differ"
            );
            return;
        }
        let fine_nodes = solver.fine_nodes();
        let Self { cg, place, .. } = slot.get_or_insert_with(Self::default);
        let len = fine_nodes.len() + 1;
        for v in cg
            .vectors_mut()
            .into_iter()
            .chain([&mut place.warm_u, &mut place.warm_t])
        {
            v.reserve(len.saturating_sub(v.len()));
        }
        cg.nodes.reserve(len.saturating_sub(cg.nodes.len()));
        place
            .refined
            .reserve(len.saturating_sub(place.refined.len()));
        // `save` took the mode from the forest, which a reduced system's
        // is not recorded as; before the iteration there is no
        // conjugate-gradient state for `continues` to match.
        place.warm_u.clear();
        place.warm_t.clear();
        if stage.holds_state() {
            cg.mode = mode_code(SolveMode::Anchored);
        } else {
            cg.mode = u8::MAX;
            cg.nodes.clear();
            cg.iterations = 0;
            // Nor any state: what an earlier round left here (or, once
            // `restore` has swapped them, the solver's old vectors) must
            // not reach the bytes of a snapshot.
            for v in cg.vectors_mut() {
                v.clear();
            }
            for c in fine_nodes {
                place.warm_u.push(solver.warm_u[c.0 as usize]);
                place.warm_t.push(solver.warm_t[c.0 as usize]);
            }
        }
        cg.bonds.clone_from(&solver.bond_list);
        place.round = round;
        place.stage = stage;
        place.refined.clear();
        place.refined.extend(
            solver
                .refined
                .iter()
                .zip(fine_nodes)
                .filter(|(r, _)| **r)
                .map(|(_, &c)| c),
        );
        place.fine_nodes.clear();
        place.fine_nodes.extend_from_slice(fine_nodes);
        place.loads_key.clear();
        place.loads_key.extend(loads_bits(loads));
    }

    /// The reduced solve's place when this is the progress of a reduced
    /// solve of these full-resolution nodes, intact bonds and loads:
    /// `(round, stage, refined chunks)`.
    pub(super) fn reduced_place(
        &self,
        fine_nodes: &[ChunkIndex],
        fine_bonds: &[u32],
        loads: &StressLoads<'_>,
    ) -> Option<(u32, RoundStage, &[ChunkIndex])> {
        let place = &self.place;
        // A place decoded from damaged bytes must not pass the round limit
        // or miss its warm start.
        let warm_ok = place.stage.holds_state()
            || (place.warm_u.len() == fine_nodes.len() && place.warm_t.len() == fine_nodes.len());
        ((1..=super::reduced::MAX_ROUNDS).contains(&place.round)
            && warm_ok
            && place.fine_nodes == fine_nodes
            && self.cg.bonds == fine_bonds
            && place.loads_key.iter().copied().eq(loads_bits(loads)))
        .then_some((place.round, place.stage, &place.refined))
    }

    /// The warm start of each full-resolution node kept at a cut between
    /// two rounds (see [`Self::mark_reduced`]), in node order.
    pub(super) fn resume_warm(&self) -> impl Iterator<Item = (DVec3, DVec3)> + '_ {
        let place = &self.place;
        place
            .warm_u
            .iter()
            .copied()
            .zip(place.warm_t.iter().copied())
    }

    /// Where a reduced solve stands, for a state hash: the round (0 for a
    /// full solve), how far it has come (0: nothing of the round built,
    /// 1: iterating, 2: its reduced system built, 3: its hierarchy built
    /// too, 4, 6, 5 and 7: the hierarchy's first one, two, three and four
    /// of its five pieces built, 8: the start's check done, not its first
    /// preconditioning, 9: an iteration's update taken, not its
    /// preconditioning, 10 and 11: its update and two or four of its
    /// preconditioning's six steps, 12: inside a piece of the
    /// hierarchy's build, see [`Self::building`], 13: the start's check
    /// done and one to five steps of its first preconditioning, 14: the
    /// start's check under way, 15: inside its reduction, 16: an
    /// iteration's update within ε taken, not its check, 17: its update
    /// and one, three or five of its preconditioning's six steps, 18: an
    /// iteration's product taken, not the rest of its update, 19: an
    /// update within ε taken and its check under way, 20: an iteration's
    /// product under way, in parts; see "Slices"
    /// in [`super::reduced`]), and how many chunks are refined. A full
    /// solve's progress uses 4, 6, 5, 7, 3 and 12 for the hierarchy's
    /// pieces built at its switch from the forest, 9, 10, 11, 16, 17, 18,
    /// 19 and 20 at a cut inside an iteration, else 0 (see "Work" in
    /// [`crate::stress::solver`]).
    pub fn reduced_round(&self) -> (u32, u8, usize) {
        let place = &self.place;
        (place.round, place.stage.code(), place.refined.len())
    }

    /// Inside a piece of the hierarchy's build (stage 12 of
    /// [`Self::reduced_round`]): the piece (0 to 4: the fine level's copy
    /// and aggregates, its inverse blocks, its smoothing, level 1's
    /// blocks, the rest of the levels) and how many of its parts were
    /// taken (see Parts in `stress/multilevel/build.rs`).
    pub fn building(&self) -> Option<(u8, u32)> {
        match self.place.stage {
            RoundStage::Building { piece, part } => Some((piece, part)),
            _ => None,
        }
    }

    /// What a stage with fields holds beyond its code, for a state hash:
    /// [`RoundStage::Building`]'s piece and part, [`RoundStage::Starting`]'s
    /// steps.
    pub(crate) fn stage_fields(&self) -> Option<[u32; 2]> {
        match self.place.stage {
            RoundStage::Building { piece, part } => Some([u32::from(piece), part]),
            RoundStage::Starting { done } => Some([u32::from(done), 0]),
            RoundStage::Checking { part } => Some([part, 0]),
            RoundStage::Reducing { done } => Some([done, 0]),
            RoundStage::Cycling { done } => Some([u32::from(done), 0]),
            RoundStage::Verifying { part } => Some([part, 0]),
            RoundStage::Multiplying { part } => Some([part, 0]),
            _ => None,
        }
    }

    /// Gives a progress just saved inside an iteration the `token` under
    /// which the solver keeps what the iteration made
    /// ([`super::iteration_steps`]; [`Self::save`] leaves none), or inside
    /// the hierarchy's build the one under which it keeps the build
    /// pending ([`super::setup_steps`]).
    pub(super) fn set_token(&mut self, token: u64) {
        self.token = token;
    }

    /// Of a reduced round's progress cut inside its reduction
    /// ([`RoundStage::Reducing`]): how many of its steps were taken.
    pub(super) fn reducing(&self) -> Option<u32> {
        match self.place.stage {
            RoundStage::Reducing { done } if self.place.round > 0 => Some(done),
            _ => None,
        }
    }

    /// Of a progress cut after an update within ε, before its check
    /// ([`RoundStage::Converging`]): the token under which the solver that
    /// cut may keep the update.
    pub(super) fn converging(&self) -> Option<u64> {
        (self.place.stage == RoundStage::Converging).then_some(self.token)
    }

    /// Of a progress cut inside the check of an update within ε
    /// ([`RoundStage::Verifying`]): the token under which the solver that
    /// cut may keep the update and the check's parts, and how many parts
    /// were taken.
    pub(super) fn verifying(&self) -> Option<(u64, u32)> {
        match self.place.stage {
            RoundStage::Verifying { part } => Some((self.token, part)),
            _ => None,
        }
    }

    /// Of a progress cut after an update's product, before the rest of
    /// the update ([`RoundStage::Multiplied`]): the token under which the
    /// solver that cut may keep the product.
    pub(super) fn multiplied(&self) -> Option<u64> {
        (self.place.stage == RoundStage::Multiplied).then_some(self.token)
    }

    /// Of a progress cut inside an update's product
    /// ([`RoundStage::Multiplying`]): the token under which the solver
    /// that cut may keep the parts taken, and how many were.
    pub(super) fn multiplying(&self) -> Option<(u64, u32)> {
        match self.place.stage {
            RoundStage::Multiplying { part } => Some((self.token, part)),
            _ => None,
        }
    }

    /// The token [`Self::set_token`] gave (0 for none).
    pub(super) fn token(&self) -> u64 {
        self.token
    }

    /// Of a reduced round's progress stopped between its conjugate
    /// gradient's check and the end of its first preconditioning
    /// ([`RoundStage::Checked`], [`RoundStage::Starting`]): how many steps
    /// of that preconditioning were taken.
    pub(super) fn checked(&self) -> Option<u8> {
        if self.place.round == 0 {
            return None;
        }
        match self.place.stage {
            RoundStage::Checked => Some(0),
            RoundStage::Starting { done } => Some(done),
            _ => None,
        }
    }

    /// Of a progress cut inside an iteration, after its update (full or
    /// reduced): the token under which the solver that cut may keep what
    /// the iteration made, and how many steps of its preconditioning were
    /// taken; `None` at any other stage.
    pub(super) fn updated(&self) -> Option<(u64, u8)> {
        self.place
            .stage
            .preconditioned()
            .map(|done| (self.token, done))
    }

    /// How far a full solve's switch from the forest to the multilevel
    /// hierarchy has come: the pieces of the hierarchy's build charged by
    /// earlier calls ([`RoundStage::NotStarted`], [`RoundStage::Started`],
    /// [`RoundStage::Inverted`], [`RoundStage::Smoothed`],
    /// [`RoundStage::Assembled`] or [`RoundStage::Preconditioned`] for
    /// none, one, two, three, four or all five, [`RoundStage::Building`]
    /// inside a piece; see `conjugate_gradient`).
    /// A reduced
    /// solve's progress, or a full one written before the switch was
    /// stepped, says none.
    pub(super) fn switch_stage(&self) -> RoundStage {
        match self.place.stage {
            s @ (RoundStage::Started
            | RoundStage::Inverted
            | RoundStage::Smoothed
            | RoundStage::Assembled
            | RoundStage::Preconditioned
            | RoundStage::Building { .. })
                if self.place.round == 0 =>
            {
                s
            }
            _ => RoundStage::NotStarted,
        }
    }

    /// Puts the state back into `solver` (whose structure and loads
    /// [`Self::continues`]); returns the iterations so far, the
    /// preconditioner flag and `rᵀz`.
    ///
    /// The displacements, residuals and directions are swapped in, not
    /// copied (a sliced solve of the 100 × 50 × 2 wall refined moved 1.4 MB
    /// per call here): the progress is left holding the solver's old
    /// vectors, and no longer continues any solve until the call saves it
    /// again ([`Self::save`] with `resumed`, which writes those vectors
    /// back and its mode).
    pub(super) fn restore(&mut self, solver: &mut StressSolver) -> (u32, bool, f64) {
        solver.warm_of_x = false;
        let p = &mut self.cg;
        std::mem::swap(&mut solver.x_u, &mut p.x_u);
        std::mem::swap(&mut solver.x_t, &mut p.x_t);
        std::mem::swap(&mut solver.r_u, &mut p.r_u);
        std::mem::swap(&mut solver.r_t, &mut p.r_t);
        std::mem::swap(&mut solver.p_u, &mut p.p_u);
        std::mem::swap(&mut solver.p_t, &mut p.p_t);
        p.mode = u8::MAX;
        (p.iterations, p.multilevel, p.rz)
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
            cg: CgState {
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
            },
            place: ReducedPlace::default(),
            token: 0,
        };
        let bytes = postcard::to_stdvec(&p).unwrap_or_default();
        // The place: round 0, not started, and five empty lists (refined,
        // nodes, loads, the two warm vectors): one byte each.
        let (v1, place) = bytes.split_at(bytes.len() - 7);
        assert_eq!(place, &[0; 7]);
        let old: SolveProgressV1 = postcard::from_bytes(v1).unwrap_or_default();
        assert_eq!(SolveProgress::from(old), p);
    }

    /// Format 12 of the set snapshots wrote the place's stage as a flag,
    /// "started": its bytes read as the stage it meant (false: nothing of
    /// the round built, true: iterating), and those two stages write the
    /// same bytes again.
    #[test]
    fn a_started_flag_reads_as_its_stage() {
        for (started, stage) in [
            (false, RoundStage::NotStarted),
            (true, RoundStage::Iterating),
        ] {
            let old = postcard::to_stdvec(&(3u32, started, 7u8)).unwrap_or_default();
            let new: (u32, RoundStage, u8) = postcard::from_bytes(&old).unwrap_or_default();
            assert_eq!(new, (3, stage, 7));
            assert_eq!(postcard::to_stdvec(&new).unwrap_or_default(), old);
        }
    }

    /// Every stage writes its code as one byte (so the stages format 13
    /// wrote read as before: the new ones only add codes 6 to 11), and
    /// [`RoundStage::built`] puts the hierarchy's pieces between the
    /// reduction and the start in the order they run.
    #[test]
    fn every_stage_writes_its_code_and_the_pieces_come_in_order() {
        use RoundStage::*;
        let order = [
            NotStarted,
            Reduced,
            Started,
            Inverted,
            Smoothed,
            Assembled,
            Preconditioned,
            Checked,
            Iterating,
            Updated,
            Restricted,
            Coarsened,
        ];
        for (k, stage) in order.into_iter().enumerate() {
            assert_eq!(stage.built() as usize, k, "{stage:?}");
            let bytes = postcard::to_stdvec(&stage).unwrap_or_default();
            assert_eq!(bytes, [stage.code()], "{stage:?}");
            assert_eq!(postcard::from_bytes::<RoundStage>(&bytes).ok(), Some(stage));
        }
        let codes: Vec<u8> = order.iter().map(|s| s.code()).collect();
        assert_eq!(codes, [0, 2, 4, 6, 5, 7, 3, 8, 1, 9, 10, 11]);
        assert!(postcard::from_bytes::<RoundStage>(&[15]).is_err());
        for done in 0..6 {
            let stage = RoundStage::after_preconditioning(done);
            assert_eq!(stage.preconditioned(), Some(done));
            assert!(stage.holds_state());
        }
        assert_eq!(RoundStage::after_preconditioning(2), Restricted);
        assert_eq!(RoundStage::after_preconditioning(4), Coarsened);
    }

    /// The stages with fields (codes 12 to 14, added as the others were:
    /// the bytes of every earlier stage read as before) write their code
    /// and then their fields, and place themselves among the
    /// others: inside a piece between the stages before and after it, the
    /// start's check and first preconditioning with the stages they stand
    /// between; a piece's part 0 and its last part name the stages before
    /// and after the piece, so a build in one part writes what it did.
    #[test]
    fn stages_with_fields_write_their_fields_and_fall_in_place() {
        use RoundStage::*;
        for (stage, bytes) in [
            (Building { piece: 2, part: 3 }, vec![12, 2, 3]),
            (Starting { done: 1 }, vec![13, 1]),
            (Checking { part: 200 }, vec![14, 200, 1]),
            (Reducing { done: 7 }, vec![15, 7]),
            (Converging, vec![16]),
            (Cycling { done: 3 }, vec![17, 3]),
            (Multiplied, vec![18]),
            (Verifying { part: 3 }, vec![19, 3]),
            (Multiplying { part: 5 }, vec![20, 5]),
        ] {
            assert_eq!(postcard::to_stdvec(&stage).unwrap_or_default(), bytes);
            assert_eq!(postcard::from_bytes::<RoundStage>(&bytes).ok(), Some(stage));
        }
        assert_eq!(Building { piece: 2, part: 3 }.hierarchy_place(), (2, 3));
        assert_eq!(Building { piece: 2, part: 3 }.built(), Inverted.built());
        assert_eq!(Checking { part: 1 }.built(), Preconditioned.built());
        assert_eq!(Starting { done: 2 }.built(), Checked.built());
        assert!(Starting { done: 2 }.holds_state() && !Checking { part: 1 }.holds_state());
        // Inside the reduction: nothing of the round built yet, the steps
        // taken; once it is built, all of them. Before the check: an
        // iteration's start, as after the update.
        assert_eq!(Reducing { done: 7 }.built(), NotStarted.built());
        assert_eq!(Reducing { done: 7 }.reduction_done(), 7);
        assert_eq!(NotStarted.reduction_done(), 0);
        assert_eq!(Reduced.reduction_done(), u32::MAX);
        assert_eq!(Building { piece: 0, part: 1 }.reduction_done(), u32::MAX);
        assert!(!Reducing { done: 7 }.holds_state() && Converging.holds_state());
        assert_eq!(Converging.built(), Updated.built());
        assert_eq!(Converging.preconditioned(), None);
        // After the product: the iteration's start, as iterating.
        assert_eq!(Multiplied.built(), Iterating.built());
        assert!(Multiplied.holds_state() && Multiplied.preconditioned().is_none());
        let multiplying = Multiplying { part: 4 };
        assert_eq!(multiplying.built(), Iterating.built());
        assert!(multiplying.holds_state() && multiplying.preconditioned().is_none());
        let verifying = Verifying { part: 2 };
        assert_eq!(verifying.built(), Converging.built());
        assert!(verifying.holds_state() && verifying.preconditioned().is_none());
        // Inside the cycle: as the stage before it.
        assert_eq!(Cycling { done: 1 }.built(), Updated.built());
        assert_eq!(Cycling { done: 3 }.built(), Restricted.built());
        assert_eq!(Reducing { done: 7 }.hierarchy_place(), (0, 0));
        // A damaged piece past the last reads as the build done.
        assert_eq!(Building { piece: 9, part: 1 }.hierarchy_place(), (5, 0));
        for (stage, place) in [
            (NotStarted, (0, 0)),
            (Reduced, (0, 0)),
            (Started, (1, 0)),
            (Assembled, (4, 0)),
            (Preconditioned, (5, 0)),
            (Checking { part: 2 }, (5, 0)),
            (Iterating, (5, 0)),
        ] {
            assert_eq!(stage.hierarchy_place(), place, "{stage:?}");
        }
        assert_eq!(RoundStage::building(1, 0, 4), Started);
        assert_eq!(
            RoundStage::building(1, 2, 4),
            Building { piece: 1, part: 2 }
        );
        assert_eq!(RoundStage::building(1, 4, 4), Inverted);
        assert_eq!(RoundStage::building(4, 1, 1), Preconditioned);
    }
}
