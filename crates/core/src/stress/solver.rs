//! The stress solve of one cluster: bond forces and moments that balance
//! gravity, point loads and (for free clusters) inertial loads.
//!
//! # Model
//! Every node (support-level chunk) has a small displacement `u` (m) and
//! rotation `θ` (rad) about its centroid; anchors (support chunks and the
//! world) do not move. Each intact bond is a linear elastic spring at its
//! centroid `p`: with `δ = (u_b + θ_b × (p − c_b)) − (u_a + θ_a × (p − c_a))`
//! the relative displacement of the two faces and `φ = θ_b − θ_a` the
//! relative rotation, the bond carries the force `f = K δ` and the moment
//! `m = K_r φ`, with
//!
//! * `K = k_n n nᵀ + k_s (E − n nᵀ)`, `k_n = A / L`, `k_s = ν_s A / L`,
//! * `K_r = k_b (E − n nᵀ) + k_t n nᵀ`, `k_b = I / L`, `k_t = ν_s 2I / L`,
//!
//! where `A` is the bond area, `I = A²/12` the second moment of its
//! equivalent square ([`Section`]), `L` the centroid distance of the two
//! chunks (twice the chunk-to-bond distance for world bonds) and
//! `ν_s = G/E =` [`SHEAR_STIFFNESS_RATIO`]. Young's modulus cancels out of
//! the forces, so it is taken as 1: only the ratios between bonds matter.
//! The node equations `K x = b` (stiffness matrix times displacements equals
//! loads) are symmetric positive definite once anchored. For a statically
//! determinate structure (a chain or any tree of bonds) the forces are those
//! of statics whatever the stiffnesses; for redundant structures the
//! stiffer path carries more.
//!
//! # Solver
//! Preconditioned conjugate gradient (Hestenes–Stiefel 1952; Shewchuk, "An
//! Introduction to the Conjugate Gradient Method Without the Agonizing
//! Pain", 1994, B3), warm-started from the cluster's last displacements,
//! with one of two preconditioners ([`Preconditioner`]):
//!
//! * the exact solve of the structure reduced to a spanning forest of its
//!   bonds (support-graph preconditioning, Vaidya 1991; Boman & Hendrickson
//!   2003): breadth-first from the anchors, each node keeps the stiffest
//!   bond to the previous ring. On that forest the solve is two O(V) sweeps
//!   (loads down to the anchors, then displacements back up), so a
//!   tree-shaped structure converges in one iteration, and so does a wall
//!   whose load follows the forest. Plates and braced frames, where the
//!   forest is far softer than the structure, take hundreds or thousands;
//! * rigid-aggregate multilevel K-cycles ([`super::multilevel`]): a setup
//!   and a few stiffness products per iteration, 5–21 iterations on any
//!   of the benchmark structures (7–21 from rest, 5–16 after a break).
//!   The cycle is not a fixed linear operator, so with it the conjugate
//!   gradient takes the flexible (Polak–Ribière) `β`.
//!
//! The default, [`Preconditioner::Auto`], tries the forest for
//! [`FOREST_TRIAL`] iterations and then switches to the multilevel one;
//! a reduced solve ([`reduced`]) starts with the multilevel one.
//!
//! # Residual
//! Once the conjugate gradient's own (recursive) residual reaches ε, the
//! solver recomputes `r = b − K x` from the bond forces it reports and
//! stops if that is within ε too; if not (the recursive residual drifts a
//! little from the true one), it iterates on from the recomputed `r`
//! (residual replacement). On an assembled system a local Gauss–Seidel
//! step takes the last few nodes to ε ([`POLISH_BELOW`]). It returns
//! `max_i max(|r_F,i| / W_i, |r_T,i| / (W_i ℓ_i))`, the largest net force
//! (and net torque over the node size) of a free node relative to its
//! weight: `W_i = m_i g₀` with [`STANDARD_GRAVITY`] `g₀` (fixed, so the
//! measure works with any gravity, including none) and `ℓ_i = ∛volume_i`.
//! A solve is *converged* when this is ≤ [`StressSettings::epsilon`]; only
//! converged solves may damage bonds ([`StressSolver::bond_damage`]).
//!
//! # Work
//! A solve counts its work in *bond passes* ([`StressReport::work`]), a
//! deterministic stand-in for time: one pass is about the cost of one
//! stiffness product over one intact bond of the cluster, and each step of
//! a solve is charged a fixed number of passes per bond, fitted to the
//! benchmark structures' timings (`examples/stress_work.rs`: 10–30 ns
//! per pass on this project's 2-core machine under load, over the walls,
//! the tower and the bridge of the stress benchmark, solved first, cold
//! and after a break):
//!
//! | step | passes per bond |
//! | --- | --- |
//! | gathering the bonds, spring list and adjacency, spanning forest (every call) | 1 + [`STRUCTURE_PASSES`] + [`FOREST_BUILD_PASSES`] |
//! | multilevel hierarchy (when a solve starts using it; at the switch from the forest and in a reduced round, in five steps of 3, 3, 3, 4 and 3) | [`HIERARCHY_BUILD_PASSES`] |
//! | first preconditioning at the switch from the forest (a step of its own) | [`MULTILEVEL_ITERATION_PASSES`] |
//! | iteration with the forest (update [`FOREST_UPDATE_PASSES`], then preconditioning) | [`FOREST_ITERATION_PASSES`] |
//! | iteration with the hierarchy (update [`MULTILEVEL_UPDATE_PASSES`], then preconditioning) | [`MULTILEVEL_ITERATION_PASSES`] |
//! | ... its product in double precision on a system of more than one part (in parts of the bonds), instead of [`MULTILEVEL_PRODUCT_PASSES`] | [`MULTILEVEL_EXACT_PRODUCT_PASSES`] |
//! | evaluation (bond results and residual) | [`EVALUATION_PASSES`] |
//! | a preparation in steps ([`StressSolver::prepare_within`], outside a solve: gather and scan 4 a node each, bonds' copies 5, adjacency 1 + 2, reduction 8) | 16, and 8 per node |
//!
//! Building is charged whether or not the solver reuses a structure it
//! built before (a resumed slice is not charged the hierarchy again), so
//! the work, and with it where a limit cuts a solve, depends only on the
//! solve's inputs and progress, never on what the solver solved last: a
//! stress restored from a snapshot is sliced exactly as the original.
//! [`StressSolver::solve_within`] stops iterating before a limit on it.
//! Where a solve switches from the forest to the hierarchy, the
//! hierarchy's build is taken in its five pieces (`multilevel/build.rs`),
//! each a step a call may end before, as a reduced round's setup is (see
//! "Slices" in [`reduced`]), and so is the first preconditioning with it
//! (charged as a [`MULTILEVEL_ITERATION_PASSES`] iteration); the progress
//! keeps how far it came. Built in one call, the switch took 14 ms on the
//! 100 × 50 × 2 wall after a break, the worst call of that solve 19–25
//! ms; in steps, 4.3–5.4 ms (`examples/stress_slices.rs`).
//!
//! Each iteration is taken in steps too: its update, then its
//! preconditioning, whose multilevel cycle is six steps on a system
//! that smooths on its bonds, each charged an equal share of the
//! iteration's passes left, in whole passes per bond
//! (`solver/iteration_steps.rs`). On the 100 × 50 × 2 wall refined, an
//! iteration took one call of 2.3–2.8 ms; its update takes about 0.3 ms
//! of it and the cycle's steps 0.12–0.20 ms each (as three steps,
//! 0.25–0.54 ms each). On a system of more than one part
//! ([`BUILD_PART_BONDS`]) the update's product `q = K p` is a step of its
//! own ([`MULTILEVEL_PRODUCT_PASSES`]; stage `Multiplied`, the progress at
//! the iteration's start, `q` kept or taken again), the rest of the
//! update another.
//! On a system of more than one part ([`BUILD_PART_BONDS`]), an update
//! whose residual comes within ε and that is a call's first step ends the
//! call before its check with the bond forces (an evaluation, the
//! solve's last step when it passes; stage `Converging`): the two took
//! 1.3–1.6 ms together there. The call that resumes takes the check in
//! parts of the bonds and may end between them (stage `Verifying`,
//! `solver/iteration_steps.rs`): in one step, with the call's own cost,
//! it took 1.0–1.4 ms.

use crate::asset::Asset;
use crate::index::{BondIndex, ChunkIndex};
use crate::stress::StressError;
use crate::stress::damage::{StressBondDamage, stress_damage};
use crate::stress::material::StressMaterials;
use crate::stress::multilevel::{HierarchyPiece, Multilevel, clear_for, same_vectors};
use crate::stress::section::Section;
use glam::{DMat3, DVec3, Vec3};
use iteration_steps::{CheckEnd, KeptIteration, KeptVectors};
use progress::RoundStage;
use setup_steps::KeptSetup;

mod iteration_steps;
mod kept;
mod prepare;
mod progress;
pub mod reduced;
mod reduction;
mod setup_steps;
mod split;
pub use prepare::Preparation;
pub use progress::{SolveProgress, SolveProgressV1};
pub use reduced::REDUCE_ABOVE;

/// How [`StressSolver::conjugate_gradient`] treats its start (not a
/// resumed slice).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum CgStart {
    /// Charged the hierarchy's build, and the first iteration runs in the
    /// same call (every solve but a reduced one).
    Whole,
    /// A reduced round's: the hierarchy was built and charged as a step of
    /// its own, and the start is one too (see "Slices" in [`reduced`]), so
    /// the call may end before the first iteration.
    Step,
}

/// How a conjugate-gradient run ended: iterations of this call, and the
/// residual when the warm start already met ε (`Done`); or cut short by
/// the work limit, its state saved to resume from (`CutShort`).
enum CgEnd {
    Done(u32, Option<f64>),
    CutShort {
        /// Iterations of this call.
        iterations: u32,
        /// The residual norm of its `r` ([`StressSolver::residual_norm`]).
        known: f64,
        /// Where it stopped: [`RoundStage::Iterating`];
        /// [`RoundStage::Checked`] for a reduced round's start
        /// (`CgStart::Step`) cut between its check and its first
        /// preconditioning (the state saved is `x` and `r`); or
        /// [`RoundStage::Updated`], [`RoundStage::Cycling`],
        /// [`RoundStage::Restricted`] or [`RoundStage::Coarsened`] inside
        /// an iteration, after its update and none to five of its
        /// preconditioning's steps, [`RoundStage::Converging`] before its
        /// check, [`RoundStage::Verifying`] inside it, or
        /// [`RoundStage::Multiplied`] after its product alone
        /// (the state saved is the iteration's start).
        stage: RoundStage,
    },
}

/// How an iteration's update ([`StressSolver::cg_step`]) ended.
enum Update {
    /// `pᵀq` is not positive or the step not finite: the iteration stops.
    Diverged,
    /// Taken with step `alpha`; `polished` when a Gauss–Seidel polish
    /// followed (the next direction restarts).
    Taken { alpha: f64, polished: bool },
    /// Taken, and its residual is within ε: the check with the bond
    /// forces comes next ([`StressSolver::cg_check`]), a step of its own.
    Check { alpha: f64, polished: bool },
}

/// The passes per bond of an iteration's update and of its
/// preconditioning, with the hierarchy or the forest.
fn iteration_shares(multilevel: bool) -> (u64, u64) {
    if multilevel {
        (
            MULTILEVEL_UPDATE_PASSES,
            MULTILEVEL_ITERATION_PASSES - MULTILEVEL_UPDATE_PASSES,
        )
    } else {
        (
            FOREST_UPDATE_PASSES,
            FOREST_ITERATION_PASSES - FOREST_UPDATE_PASSES,
        )
    }
}

/// `G/E` of the bond springs: shear and torsion stiffness over axial and
/// bending stiffness. 0.4 ≈ 1 / (2 (1 + ν)) with Poisson's ratio ν = 0.25.
pub const SHEAR_STIFFNESS_RATIO: f64 = 0.4;

/// g₀, m/s², the node weight scale of the residual.
pub const STANDARD_GRAVITY: f64 = 9.806_65;

/// The default residual bound ε (dimensionless): 1e-3 of a node's weight.
pub const DEFAULT_EPSILON: f32 = 1.0e-3;

/// The smallest residual bound ε accepted: smaller ones are below what
/// double precision reaches on these systems (the 4 × 4 × 8 tower reaches
/// 1e-14; a fuzzer's reduced 10 × 8 × 2 wall stalled at its rounding floor
/// with ε ≤ 6e-15 and, a thousand iterations on, diverged until its
/// products overflowed). A structure's floor can lie above it: the same
/// wall with weak bonds and pushed hard stalls near 1e-13 and can diverge
/// at ε = 1e-14 (1,395 iterations). Such a solve ends not converged, with
/// no bond results, and leaves its chunks at rest for the next
/// (`tests/stress_epsilon_floor.rs`). In 300 fuzzed sequences per ε on
/// that wall, 16 diverged at 1e-14, 8 at 5e-14 and none at 1e-13 or 1e-12.
pub const MIN_EPSILON: f32 = 1.0e-14;

/// Which preconditioner the conjugate gradient uses.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Preconditioner {
    /// The spanning forest only: exact on trees, one iteration for walls
    /// and columns under gravity, slow on plates and braced frames.
    Forest,
    /// Rigid-aggregate multilevel K-cycles ([`super::multilevel`]): a
    /// setup of about three stiffness products per solve, then few
    /// iterations on any structure.
    Multilevel,
    /// The forest for the first [`FOREST_TRIAL`] iterations; if that does
    /// not converge, the multilevel preconditioner from there on. A
    /// reduced solve ([`StressSettings::reduce_above`]) skips the trial:
    /// the forest of single bonds between super-nodes is far softer than
    /// the dozen bonds it stands for.
    #[default]
    Auto,
}

/// Passes per bond charged for the cluster's spring list and adjacency,
/// every call whether built or reused (see [Work](self#work)).
pub const STRUCTURE_PASSES: u64 = 2;
/// Passes per bond charged for the spanning forest, every call.
pub const FOREST_BUILD_PASSES: u64 = 2;
/// Passes per bond charged for the multilevel hierarchy, once per call
/// that starts using it (not by a resumed slice); a reduced round, and a
/// full solve at its switch from the forest, charge it over the five steps
/// that build it (see "Slices" in [`reduced`]).
pub const HIERARCHY_BUILD_PASSES: u64 = 16;
/// Passes per bond charged for one iteration with the forest.
pub const FOREST_ITERATION_PASSES: u64 = 3;
/// Passes per bond charged for one iteration with the hierarchy.
pub const MULTILEVEL_ITERATION_PASSES: u64 = 9;
/// Of [`FOREST_ITERATION_PASSES`], the passes per bond of an iteration's
/// update (its stiffness product and step), a step of its own; the rest is
/// its preconditioning, another (see [Work](self#work)).
pub const FOREST_UPDATE_PASSES: u64 = 1;
/// Of [`MULTILEVEL_ITERATION_PASSES`], the update's share (0.45–0.8 ms of
/// an iteration's 1.7–2.4 ms on the 100 × 50 × 2 wall refined); the rest
/// is shared equally by the steps of its preconditioning's cycle.
pub const MULTILEVEL_UPDATE_PASSES: u64 = 3;
/// Of [`MULTILEVEL_UPDATE_PASSES`], the product's share on a system of
/// more than one part ([`BUILD_PART_BONDS`]), where the product is a step
/// of its own and the rest of the update another (stage `Multiplied`):
/// on the 100 × 50 × 2 wall refined, 0.19 ms of the update's 0.3.
pub const MULTILEVEL_PRODUCT_PASSES: u64 = 2;
/// Passes per bond charged for an evaluation of the bond results.
pub const EVALUATION_PASSES: u64 = 2;
/// Passes per bond charged instead of [`MULTILEVEL_PRODUCT_PASSES`] for
/// an update's product in double precision (near ε, where the
/// single-precision one is too coarse: `SINGLE_PRECISION_ABOVE`) on a
/// system of more than one part, which takes it in [`BUILD_PART_BONDS`]
/// parts of the bonds, each a step (stage `Multiplying`). On the
/// 100 × 50 × 2 wall refined (8,000–9,500 nodes) it took 0.64–0.78 ms
/// in one step, against the single-precision product's 0.19, and with a
/// call's own cost passed 1 ms.
pub const MULTILEVEL_EXACT_PRODUCT_PASSES: u64 = 7;

/// Bonds per part of a piece of the hierarchy's build taken in steps
/// (see "Slices" in [`reduced`]; Parts in `multilevel/build.rs`): a
/// piece over a system of `b` bonds is taken in ⌈b / 2,048⌉ parts (so are
/// a refining round's reduction and a round's check). On the 100 × 50 × 2
/// wall refined (about 8,000 nodes and 20,000 bonds) a piece took 1.4–2.3
/// ms whole on this project's machine, so ten parts of 0.15–0.25 ms. (With
/// 4,096, five parts: side by side on the weak walls of
/// `examples/stress_updates.rs`, 2026-12-07, the median update 0.44 and
/// 0.36 ms against 0.41 and 0.32, p95 0.65–0.85 against 0.62–0.63 and
/// 0.65–0.68 against 0.65–0.66 ms, 9–16 updates over 1 ms against 7–12.)
pub const BUILD_PART_BONDS: usize = 2048;

/// A warm start whose cheaper residual (the last answer's implied one, or
/// the block product's; see `StressSolver::implied_residual`) is over this
/// many ε skips its check with the bond results: that residual differs
/// from the checked one by rounding only, so the check could not pass.
const SKIP_CHECK_ABOVE: f64 = 2.0;

/// The smallest ε at which a warm start's check may be skipped
/// ([`SKIP_CHECK_ABOVE`]). The cheaper residuals' rounding reaches about
/// 1e-12 of a node's weight (the block product's sums cancel: up to 6× the
/// bonds' own rounding on a tower); with ε near it, the kept solver (by
/// its implied residual) and a fresh one (by the block product) could
/// decide differently, and their results would differ (ε = 3.3e-13 on a
/// 4 × 60 × 2 tower, found by a fuzzer). Below it the bonds always decide.
const SKIP_CHECK_MIN_EPSILON: f64 = 1e-9;

/// Iterations [`Preconditioner::Auto`] gives the spanning forest. One:
/// where the forest is exact (columns and walls whose load follows it) the
/// first iteration converges; where it is not, later forest iterations
/// gained less than they cost (cold solves, 4 → 1: tower 4×4×8 11 → 9
/// iterations, 288 → 271 µs; bridge 30×10×2 after a break 27 → 24,
/// 5.0 → 4.5 ms; `examples/stress_work.rs`).
pub const FOREST_TRIAL: u32 = 1;

/// While the recursive residual is above this many ε, an iteration with
/// the multilevel preconditioner (smoothing on the bonds) takes its
/// stiffness product in single precision, as the smoothing does; below it,
/// in double precision, and every answer is checked with the bond forces
/// in double precision (see "Residual"). Single precision only while far
/// from ε, so its rounding (about 1e-7 of the bond forces) stays far below
/// the residuals it moves: the benchmark structures take the same
/// iterations, structures whose bond areas span 1e-8 to 1 m² (40 random
/// ones) 2 % more than with this product in double precision, and the
/// tower from rest is 5–8 % faster (`examples/stress_work.rs`).
pub const SINGLE_PRECISION_ABOVE: f64 = 10.0;

/// Once the recursive residual of a solve on an assembled system (a
/// reduced solve's super-nodes, see [`reduced`]) is within this many ε,
/// each iteration ends with a *polish*: sweeps of double-precision block
/// Gauss–Seidel steps, each at every free node whose residual is over ε,
/// in ascending order (`x += D⁻¹ r` there, `r` updated at the node and
/// its neighbours), until no node is over ε or the next sweep would take
/// more steps in all than there are nodes; the conjugate gradient then
/// restarts from the result (β = 0). The last iterations of those solves
/// mostly bring a few nodes, the lightest super-nodes (a chunk or two cut
/// off a group, or at the structure's edges), from a few ε to ε, while
/// the conjugate gradient's steps, which minimise energy rather than the
/// largest node residual, keep unsettling them; local steps do that at
/// the cost of a fraction of an iteration, and a sweep measures again
/// only the nodes it changed. On the reduced 100 × 50 × 2 wall, against
/// one step at 5 ε at the nodes over ε/2: 300 random breaks in a row
/// 807 → 418 iterations, 138 → 121 ms, and 11 → 2 breaks over 1 ms in one
/// call; from rest 23 → 18 iterations, the benchmark break 6 → 4.
/// Stepping the nodes over ε/2 took 460 iterations and 128 ms; 20 ε and
/// 30 ε took fewer iterations (386, 357) but slower worst breaks; a
/// polish before the first iteration of every warm solve halved the
/// iterations but cost more than it saved (`examples/stress_work.rs`).
/// The answer is still checked with the bond forces (see "Residual").
/// The polish is part of the iteration's charge (see "Work"): it costs at
/// most about one block product.
pub const POLISH_BELOW: f64 = 12.0;

/// Solver settings.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StressSettings {
    /// Most conjugate-gradient iterations per solve (per frame). ≥ 1.
    pub max_iterations: u32,
    /// The preconditioner (default [`Preconditioner::Auto`]).
    pub preconditioner: Preconditioner,
    /// Residual bound ε (see the [module docs](self)), dimensionless.
    /// Finite and at least [`MIN_EPSILON`]; default [`DEFAULT_EPSILON`].
    pub epsilon: f32,
    /// Anchored clusters with more free nodes than this are solved on a
    /// reduced graph of rigid super-nodes, refined where a bond nears its
    /// limit ([`reduced`]); 0 (the default) never reduces. [`REDUCE_ABOVE`]
    /// is the threshold the tests use. Off by default: on the 100×50×2
    /// wall the reduced solve is 10× faster than the full one after a
    /// break (3.5 against 35 ms) but 3× slower from rest (3.4 against 1.0 ms,
    /// where the full solve's forest is exact), and its outcomes match the
    /// full solve's where `tests/issue_13_multiresolution.rs` checks them.
    #[serde(default)]
    pub reduce_above: u32,
}

impl Default for StressSettings {
    fn default() -> Self {
        Self {
            max_iterations: 64,
            preconditioner: Preconditioner::Auto,
            epsilon: DEFAULT_EPSILON,
            reduce_above: 0,
        }
    }
}

impl StressSettings {
    /// Checks the ranges.
    ///
    /// # Errors
    /// [`StressError::ZeroIterations`], [`StressError::BadEpsilon`].
    pub fn validate(&self) -> Result<(), StressError> {
        if self.max_iterations == 0 {
            return Err(StressError::ZeroIterations);
        }
        if !(self.epsilon.is_finite() && self.epsilon >= MIN_EPSILON) {
            return Err(StressError::BadEpsilon(self.epsilon));
        }
        Ok(())
    }
}

/// A force applied to one chunk: a contact force on a supported structure
/// or a scripted load.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PointLoad {
    /// The loaded chunk; must be a member of the solved cluster.
    pub chunk: ChunkIndex,
    /// Force, N, asset axes.
    pub force: Vec3,
    /// Point of application, m, asset space (its offset from the chunk
    /// centroid adds a torque).
    pub point: Vec3,
}

/// The loads of one solve, all in the cluster's asset frame.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct StressLoads<'a> {
    /// Gravitational acceleration, m/s², asset axes (the world gravity
    /// rotated by the inverse of the cluster's asset-to-world rotation).
    /// Applies to anchored clusters.
    pub gravity: Vec3,
    /// Point loads; they apply to anchored clusters.
    pub point_loads: &'a [PointLoad],
    /// Angular velocity ω of the cluster, rad/s, asset axes. Applies to
    /// unanchored (free) clusters only: the inertial loads of a rigid body
    /// spinning freely about its centre of mass.
    pub angular_velocity: Vec3,
}

/// What a solve did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SolveMode {
    /// The cluster has anchors (supports or world bonds): gravity and point loads.
    Anchored,
    /// A free cluster spinning: inertial loads only, with its lowest node
    /// held as the reference (the loads are self-balanced, so that node's
    /// reaction is zero up to the residual).
    Inertial,
    /// A free cluster at rest (or with a single node): free fall puts no
    /// stress on the bonds; every reported force is zero.
    Skipped,
}

/// Outcome of one solve.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct StressReport {
    /// Conjugate-gradient iterations run (0 when the warm start already met ε).
    pub iterations: u32,
    /// Residual of the reported forces (see the [module docs](self)), dimensionless.
    pub residual: f32,
    /// `residual ≤ epsilon`.
    pub converged: bool,
    /// Which loads were solved.
    pub mode: SolveMode,
    /// Work of the solve, bond passes (see [Work](self#work)).
    pub work: u64,
}

/// Forces, moments and stresses of one intact bond of the solved cluster.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct BondStress {
    /// The bond.
    pub bond: BondIndex,
    /// Axial force, N: positive in tension, negative in compression.
    pub normal_force: f32,
    /// Shear force (in the face plane), N, magnitude.
    pub shear_force: f32,
    /// Bending moment (about in-face axes), N·m, magnitude.
    pub bending_moment: f32,
    /// Twisting moment (about the normal), N·m, magnitude.
    pub twisting_moment: f32,
    /// Largest compressive fibre stress `max(0, −N/A + M/S)`, Pa.
    pub compression: f32,
    /// Largest tensile fibre stress `max(0, N/A + M/S)`, Pa.
    pub tension: f32,
    /// Largest shear stress `V/A + T/W_t`, Pa.
    pub shear: f32,
}

impl BondStress {
    /// A bond that carries nothing.
    pub fn zero(bond: BondIndex) -> Self {
        Self {
            bond,
            normal_force: 0.0,
            shear_force: 0.0,
            bending_moment: 0.0,
            twisting_moment: 0.0,
            compression: 0.0,
            tension: 0.0,
            shear: 0.0,
        }
    }
}

/// One bond of the cluster in local node numbering; the world is node `n`.
#[derive(Copy, Clone, Debug)]
pub(crate) struct LocalBond {
    pub(crate) bond: BondIndex,
    pub(crate) a: u32,
    pub(crate) b: u32,
    pub(crate) normal: DVec3,
    /// `p − c_a`, `p − c_b` (zero for the world).
    pub(crate) ra: DVec3,
    pub(crate) rb: DVec3,
    pub(crate) kn: f64,
    pub(crate) ks: f64,
    pub(crate) kb: f64,
    pub(crate) kt: f64,
}

impl LocalBond {
    /// Bit for bit the same bond (ends, arms, springs, normal).
    pub(crate) fn same_bits(&self, o: &Self) -> bool {
        let v =
            |a: DVec3, b: DVec3| a.to_array().map(f64::to_bits) == b.to_array().map(f64::to_bits);
        self.bond == o.bond
            && self.a == o.a
            && self.b == o.b
            && v(self.normal, o.normal)
            && v(self.ra, o.ra)
            && v(self.rb, o.rb)
            && [self.kn, self.ks, self.kb, self.kt].map(f64::to_bits)
                == [o.kn, o.ks, o.kb, o.kt].map(f64::to_bits)
    }

    /// `K v` (translation spring).
    #[inline]
    pub(crate) fn force(&self, delta: DVec3) -> DVec3 {
        self.ks * delta + (self.kn - self.ks) * self.normal.dot(delta) * self.normal
    }
    /// `K_r v` (rotation spring).
    #[inline]
    pub(crate) fn moment(&self, phi: DVec3) -> DVec3 {
        self.kb * phi + (self.kt - self.kb) * self.normal.dot(phi) * self.normal
    }
    /// From node `v`'s side: the other node and the arms `p − c_v`, `p − c_u`.
    #[inline]
    fn seen_from(&self, v: usize) -> (usize, DVec3, DVec3) {
        if self.a as usize == v {
            (self.b as usize, self.ra, self.rb)
        } else {
            (self.a as usize, self.rb, self.ra)
        }
    }
    #[inline]
    fn force_inverse(&self, f: DVec3) -> DVec3 {
        f / self.ks + (1.0 / self.kn - 1.0 / self.ks) * self.normal.dot(f) * self.normal
    }
    #[inline]
    fn moment_inverse(&self, m: DVec3) -> DVec3 {
        m / self.kb + (1.0 / self.kt - 1.0 / self.kb) * self.normal.dot(m) * self.normal
    }
}

pub(crate) const NONE: u32 = u32::MAX;

/// `a · b` over (translation, rotation) pairs, summed in node order.
pub(crate) fn dot6(a_u: &[DVec3], a_t: &[DVec3], b_u: &[DVec3], b_t: &[DVec3]) -> f64 {
    let mut s = 0.0;
    // Cut to one length: no bound checks in the loop (a shorter vector
    // still panics, as indexing it did).
    let n = a_u.len();
    let (a_t, b_u, b_t) = (&a_t[..n], &b_u[..n], &b_t[..n]);
    for k in 0..n {
        s += a_u[k].dot(b_u[k]) + a_t[k].dot(b_t[k]);
    }
    s
}

/// `y = K x` over `bonds`, zero on `fixed` nodes (whose `x` must be zero).
pub(crate) fn stiffness_product(
    bonds: &[LocalBond],
    fixed: &[bool],
    x_u: &[DVec3],
    x_t: &[DVec3],
    y_u: &mut [DVec3],
    y_t: &mut [DVec3],
) {
    y_u.iter_mut().for_each(|v| *v = DVec3::ZERO);
    y_t.iter_mut().for_each(|v| *v = DVec3::ZERO);
    add_bond_products(bonds, x_u, x_t, y_u, y_t);
    clear_fixed(fixed, y_u, y_t);
}

/// [`stiffness_product`]'s sum over the bonds `bonds` (the sum of a
/// product taken in parts, part by part in order: bit for bit one pass).
fn add_bond_products(
    bonds: &[LocalBond],
    x_u: &[DVec3],
    x_t: &[DVec3],
    y_u: &mut [DVec3],
    y_t: &mut [DVec3],
) {
    // One length for all four: one bound check per end (as in the
    // single-precision product, `multilevel/jacobi.rs`).
    let n = x_u.len().min(x_t.len()).min(y_u.len()).min(y_t.len());
    let (x_u, x_t, y_u, y_t) = (&x_u[..n], &x_t[..n], &mut y_u[..n], &mut y_t[..n]);
    for lb in bonds {
        let (a, b) = (lb.a as usize, lb.b as usize);
        let delta = x_u[b] + x_t[b].cross(lb.rb) - x_u[a] - x_t[a].cross(lb.ra);
        let f = lb.force(delta);
        let m = lb.moment(x_t[b] - x_t[a]);
        y_u[b] += f;
        y_t[b] += lb.rb.cross(f) + m;
        y_u[a] -= f;
        y_t[a] -= lb.ra.cross(f) + m;
    }
}

/// [`stiffness_product`]'s end: zero at the fixed nodes.
fn clear_fixed(fixed: &[bool], y_u: &mut [DVec3], y_t: &mut [DVec3]) {
    for (k, &f) in fixed.iter().enumerate() {
        if f {
            y_u[k] = DVec3::ZERO;
            y_t[k] = DVec3::ZERO;
        }
    }
}

/// Springs, lever arms and section of asset bond `i` (see the module docs).
fn bond_constants(centroid: &[DVec3], i: BondIndex, bond: &crate::asset::Bond) -> LocalBond {
    let p = bond.centroid.as_dvec3();
    let ca = centroid[bond.chunk0.0 as usize];
    let (rb, length) = match bond.chunk1 {
        None => (DVec3::ZERO, 2.0 * (p - ca).length()),
        Some(c1) => {
            let cb = centroid[c1.0 as usize];
            (p - cb, (cb - ca).length())
        }
    };
    let area = f64::from(bond.area);
    let section = Section::equivalent_square(area);
    // Coincident centroids: a spring as long as a thousandth of the face.
    let length = length.max(1e-3 * area.sqrt());
    LocalBond {
        bond: i,
        a: NONE,
        b: NONE,
        normal: bond.normal.as_dvec3().normalize(),
        ra: p - ca,
        rb,
        kn: area / length,
        ks: SHEAR_STIFFNESS_RATIO * area / length,
        kb: section.second_moment / length,
        kt: SHEAR_STIFFNESS_RATIO * 2.0 * section.second_moment / length,
    }
}

/// Force and moment (N, N·m) bond `lb` carries at displacements `x`.
#[inline(always)]
pub(super) fn bond_load(lb: &LocalBond, x_u: &[DVec3], x_t: &[DVec3]) -> (DVec3, DVec3) {
    let (a, b) = (lb.a as usize, lb.b as usize);
    let delta = x_u[b] + x_t[b].cross(lb.rb) - x_u[a] - x_t[a].cross(lb.ra);
    (lb.force(delta), lb.moment(x_t[b] - x_t[a]))
}

/// The results of bond `lb` (face `s`) carrying force `f` and moment `m`.
#[inline]
fn bond_stress(lb: &LocalBond, s: &Section, f: DVec3, m: DVec3) -> BondStress {
    let n = lb.normal;
    let axial = n.dot(f);
    let shear = (f - axial * n).length();
    let twist = n.dot(m);
    let bending = (m - twist * n).length();
    let sigma_n = axial / s.area;
    let sigma_b = bending / s.bending_modulus;
    BondStress {
        bond: lb.bond,
        normal_force: axial as f32,
        shear_force: shear as f32,
        bending_moment: bending as f32,
        twisting_moment: twist.abs() as f32,
        compression: (sigma_b - sigma_n).max(0.0) as f32,
        tension: (sigma_b + sigma_n).max(0.0) as f32,
        shear: (shear / s.area + twist.abs() / s.torsion_modulus) as f32,
    }
}

/// The stress solver of one asset: validated settings and materials, the
/// warm start of every chunk, and scratch reused from solve to solve
/// (grows to the largest cluster seen, never shrinks; a steady-state solve
/// allocates nothing).
#[derive(Clone, Debug)]
pub struct StressSolver {
    settings: StressSettings,
    materials: StressMaterials,
    fingerprint: u64,
    /// Per asset chunk: centroid (m), `1/W²` and `1/(W ℓ)²` of the residual.
    chunk_centroid: Vec<DVec3>,
    chunk_inv_w2: Vec<f64>,
    chunk_inv_wl2: Vec<f64>,
    /// Per asset chunk: volume (m³), for super-nodes' sizes.
    chunk_volume: Vec<f64>,
    /// Per asset bond: springs and lever arms (ends filled per solve), and
    /// the face section (kept apart: the stiffness products do not read it).
    bond_consts: Vec<LocalBond>,
    bond_sections: Vec<Section>,
    /// Bond indices of the cluster (small clusters are gathered then sorted).
    bond_list: Vec<u32>,
    /// Warm start per asset chunk: displacement (m) and rotation (rad).
    warm_u: Vec<DVec3>,
    warm_t: Vec<DVec3>,
    /// Asset chunk → local node, valid where `stamp == current`.
    local_of: Vec<u32>,
    stamp: Vec<u32>,
    current: u32,
    // Local nodes, `n + 1` entries (the last is the world).
    chunk: Vec<ChunkIndex>,
    centroid: Vec<DVec3>,
    fixed: Vec<bool>,
    inv_w2: Vec<f64>,
    inv_wl2: Vec<f64>,
    dist: Vec<u32>,
    parent: Vec<u32>,
    /// `parent` is made for the forest `dist` and `order` hold.
    forest_parents_made: bool,
    order: Vec<u32>,
    adj_offsets: Vec<u32>,
    adj_bonds: Vec<u32>,
    /// Per adjacency entry: the node at the bond's other end.
    adj_nodes: Vec<u32>,
    bonds: Vec<LocalBond>,
    b_u: Vec<DVec3>,
    b_t: Vec<DVec3>,
    x_u: Vec<DVec3>,
    x_t: Vec<DVec3>,
    r_u: Vec<DVec3>,
    r_t: Vec<DVec3>,
    z_u: Vec<DVec3>,
    z_t: Vec<DVec3>,
    p_u: Vec<DVec3>,
    p_t: Vec<DVec3>,
    q_u: Vec<DVec3>,
    q_t: Vec<DVec3>,
    /// Some free node starts from a non-zero warm start.
    warm: bool,
    /// Per node: mass, kg (a super-node's: its members').
    node_mass: Vec<f64>,
    /// The solve runs on super-nodes ([`reduced`]); the fields below hold
    /// the fine system and the grouping.
    reduced: bool,
    fine_chunk: Vec<ChunkIndex>,
    fine_centroid: Vec<DVec3>,
    fine_fixed: Vec<bool>,
    fine_mass: Vec<f64>,
    /// The fine system's bonds and adjacency, kept aside while the reduced
    /// system's stand in `bonds` and `adj_*`.
    fine_bonds: Vec<LocalBond>,
    /// Per fine bond: its asset index and its ends, for the grouping and
    /// the reduction (which read these instead of the 120-byte bond
    /// records), made when a gathered fine system is set aside and kept
    /// while it is (`fine_restored`: the fine system in the node arrays is
    /// the one kept aside, see `restore_fine`).
    fine_ids: Vec<u32>,
    fine_ends: Vec<[u32; 2]>,
    fine_restored: bool,
    /// `K x` per node of the last evaluated answer of a reduced system
    /// (`b − r` then), less the bonds taken out since; valid while that
    /// answer is the warm start and the nodes are the same.
    kx_u: Vec<DVec3>,
    kx_t: Vec<DVec3>,
    kx_valid: bool,
    /// Reductions so far (tests tell an update in place from a reduction).
    #[cfg(test)]
    reductions: u32,
    fine_adj_offsets: Vec<u32>,
    fine_adj_bonds: Vec<u32>,
    fine_adj_nodes: Vec<u32>,
    /// Fine local node → node (the world last).
    node_of: Vec<u32>,
    /// Per fine local node: solved at full resolution.
    refined: Vec<bool>,
    /// Per super-node of a reduced solve: the lowest elastic limits
    /// (compression, tension, shear, Pa) of the bonds inside it.
    inner_limit: Vec<[f32; 3]>,
    /// Node → its fine local nodes (CSR).
    member_offsets: Vec<u32>,
    members: Vec<u32>,
    /// The reduced system in the node and bond arrays was built from the
    /// last gathered inputs (less the bonds broken since, when it was
    /// updated in place) with the refinement `system_refined` (per fine
    /// local node), and nothing has overwritten it since: a solve of the
    /// same inputs, or of the same nodes with bonds broken since
    /// ([`Self::kept_system`]), with the same refinement uses it as it
    /// stands or updated in place (see `solver/kept.rs`), bit for bit what
    /// gathering and reducing again would build.
    system_kept: bool,
    system_refined: Vec<bool>,
    /// The groups of the cluster's intact structure (`pristine_groups`):
    /// per fine node its group, per group its members (CSR, ascending), the
    /// adjacency of the bonds that were broken when the fine system was
    /// gathered (the fine adjacency has the others), and the anchors and
    /// refinement they were made with.
    pristine_of: Vec<u32>,
    pristine_offsets: Vec<u32>,
    pristine_members: Vec<u32>,
    pristine_adj_offsets: Vec<u32>,
    pristine_adj: Vec<u32>,
    pristine_fixed: Vec<bool>,
    pristine_refined: Vec<bool>,
    /// Bonds of the cluster broken since the kept system was built, and not
    /// yet taken out of it (ascending).
    newly_broken: Vec<u32>,
    /// Scratch of `drop_broken`: where those bonds stand in `bonds`.
    removed_at: Vec<u32>,
    /// The record [`Multilevel::update`] relies on: while
    /// `hierarchy_synced`, the hierarchy was made from exactly `bonds` and
    /// the bonds `hierarchy_removed` (ascending), which `drop_broken` took
    /// out since; anything else that changes `bonds` clears it.
    hierarchy_synced: bool,
    hierarchy_removed: Vec<u32>,
    /// The record [`Multilevel::rebuild`] may rely on after one split
    /// (`split_trusted`): the bonds the split remade or left out and those
    /// `drop_broken` took out, before or since (any order); every other
    /// bond is the hierarchy's with its ends renumbered through `old_of`.
    split_trusted: bool,
    split_changed: Vec<u32>,
    /// Scratch of [`Self::polish`]: the nodes a sweep steps, and those
    /// whose residual it changed (ascending).
    polish_nodes: Vec<u32>,
    polish_touched: Vec<u32>,
    /// The grouping before the last reduction (fine node → super-node,
    /// and its member offsets), the fine nodes it grouped, and per
    /// super-node its counterpart in it (see `regroup_hint`), valid for
    /// the next hierarchy build while `regrouped`.
    prev_node_of: Vec<u32>,
    prev_member_offsets: Vec<u32>,
    grouped_chunks: Vec<ChunkIndex>,
    old_of: Vec<u32>,
    regrouped: bool,
    /// The reduction under way grouped the fine nodes the one before did
    /// (`solver/reduction.rs`; `regroup_hint` reads it).
    regrouping: bool,
    /// Of the reduced solve under way in this call: the round whose place
    /// (its warm start, refinement and keys, no state) the progress holds
    /// as the call found it (a cut in that round then moves only the
    /// stage, `SolveProgress::mark_reduced`).
    place_found: Option<u32>,
    /// Of the reduced solve under way in this call: the round whose place
    /// (refinement and keys, with state or without) the progress held as
    /// the call found it; set while the call iterates in that round, so a
    /// cut there keeps the place in the progress (`SolveProgress::save`)
    /// and moves only the stage.
    place_kept: Option<u32>,
    /// Steps taken of a reduction cut short whose state the solver holds
    /// (0: none; `solver/reduction.rs`).
    reducing: u32,
    /// A preparation in steps cut short by the last call on this solver,
    /// whose steps the solver holds (`solver/prepare.rs`).
    preparing: Option<prepare::Held>,
    /// Scratch of `fine_rest_residual`: point loads by fine node (node,
    /// load index, force, moment).
    load_nodes: Vec<(u32, u32, DVec3, DVec3)>,
    /// Scratch of `split_super_node`: the group's old super-nodes (first
    /// member, size, index), its pieces' members and ends, and their node
    /// values and limits inside.
    split_old: Vec<(u32, u32, u32)>,
    split_new: Vec<u32>,
    split_ends: Vec<u32>,
    split_values: Vec<(split::SuperNode, [f32; 3])>,
    /// Super-nodes split in place so far (tests tell a split from a
    /// reduction).
    #[cfg(test)]
    splits: u32,
    /// Scratch of `grouping_stands`: the super-nodes searched again.
    regroup: Vec<u32>,
    /// The nodes the last gather was given, as given, and the bonds between
    /// them (or to the world) that were broken then, ascending.
    input_nodes: Vec<ChunkIndex>,
    broken_inside: Vec<u32>,
    multilevel: Multilevel,
    /// The cluster structure `bonds` and the adjacency were last built for
    /// (`key_valid`), and the mode the forest and the multilevel hierarchy
    /// were last built in on it (`None`: build again). A solve of the same
    /// nodes with the same intact bonds reuses them: they depend on nothing
    /// else, and are built the same way every time, so the results are bit
    /// for bit those of a rebuild. The reduced solve overwrites them with
    /// its own and leaves the key invalid (it keeps its reduced system
    /// instead: `system_kept`).
    key_nodes: Vec<ChunkIndex>,
    key_bonds: Vec<u32>,
    key_valid: bool,
    forest_mode: Option<SolveMode>,
    hierarchy_mode: Option<SolveMode>,
    stresses: Vec<BondStress>,
    report: Option<StressReport>,
    /// Bond passes of the current solve, and the limit its iterations stop
    /// before ([`Self::solve_within`]).
    passes: u64,
    pass_limit: u64,
    /// What an iteration made before a cut inside it
    /// (`iteration_steps.rs`): while kept (`kept_iteration`), as the call
    /// that may resume it found it (`kept_ready`, taken from it as each call
    /// starts, so a call that solves anything else drops it), and the
    /// vectors.
    kept_iteration: Option<KeptIteration>,
    /// The warm start holds the expansion of `x` as it is (written from it
    /// in this call, or at the cut this call took an iteration back from,
    /// `KeptIteration::warm`); anything that changes `x` clears it.
    warm_of_x: bool,
    /// The token of the progress whose saved `x` the warm start holds
    /// (expanded) as the last call's cut left both (0: none): a cut at the
    /// top of the loop, after or inside a product, or inside a round's
    /// first preconditioning, where the progress keeps the `x` just
    /// written. Taken by the next call (`warm_ready`); the resume of that
    /// progress then holds that `x` again and writes no warm start at its
    /// own cut unless `x` changes (1.07 M instructions a call on the
    /// refined 100 × 50 × 2 wall). A warm start set or reset in between
    /// clears it.
    warm_token: u64,
    warm_ready: u64,
    kept_ready: Option<KeptIteration>,
    /// The residual norm of `r` at the last call's cut ([`CgEnd::CutShort`]'s
    /// `known`), under the token it gave the progress, where the call that
    /// resumes that progress holds the same `r` before its first step:
    /// after an update's product or inside it (the iteration's start), in
    /// an iteration's preconditioning (the update's `r`, taken back or
    /// again bit for bit) and in a round's first preconditioning (the
    /// check's). Taken by the next call (`known_ready`), which then reports
    /// it at its own cut instead of a pass over the nodes (0.26 M
    /// instructions a call on the refined 100 × 50 × 2 wall) when its step
    /// left `r` as it was; a debug assertion compares it with that pass.
    known_kept: Option<(u64, f64)>,
    known_ready: Option<(u64, f64)>,
    kept_vectors: KeptVectors,
    /// Bonds per part of the hierarchy's build in steps
    /// ([`BUILD_PART_BONDS`]; tests take smaller parts).
    build_part_bonds: usize,
    /// A cut inside a round's setup (`setup_steps.rs`): kept, as the next
    /// call found it (taken as each call starts), and whether this call
    /// trusts the hierarchy's build pending to be over its system.
    kept_setup: Option<KeptSetup>,
    kept_setup_ready: Option<KeptSetup>,
    build_trusted: bool,
    /// A reduced round's start's check resumed after `check_from` of its
    /// parts, and whether this solver kept what they made (`r` in the kept
    /// vectors, the bond results in `kept_stresses`; `setup_steps.rs`).
    check_from: u32,
    check_trusted: bool,
    /// The bond results of a start's check in parts, or of a held
    /// update's failed check (`iteration_steps.rs`).
    kept_stresses: Vec<BondStress>,
    /// Updates taken again at a resume (tests tell a kept update from one
    /// taken again).
    #[cfg(test)]
    updates_again: u32,
    /// Updates held at a cut with their failed check (tests).
    #[cfg(test)]
    checks_held: u32,
    /// Products taken again at a resume after one (tests).
    #[cfg(test)]
    products_again: u32,
    /// Pending builds compared with the system (tests tell a trusted one).
    #[cfg(test)]
    builds_compared: u32,
    /// Calls that went on with a reduction the solver kept
    /// (`solver/reduction.rs`).
    #[cfg(test)]
    reductions_kept: u32,
    /// Resumes of a round's place without state that copied its warm
    /// start back from the progress (`reduced.rs`), the solver's being
    /// another's.
    #[cfg(test)]
    warm_copies: u32,
    /// Cuts that found the warm start holding `x` already and wrote none
    /// (`refresh_warm_start`).
    #[cfg(test)]
    warm_kept: u32,
    /// Resumes that took the residual norm their progress's cut kept
    /// (`known_of`), and those that found the warm start holding the `x`
    /// they restored (`warm_token`).
    #[cfg(test)]
    known_reused: u32,
    #[cfg(test)]
    warm_resumed: u32,
    /// Steps of a start's first preconditioning taken again at a resume.
    #[cfg(test)]
    starts_again: u32,
    /// Resumes inside an update's check that took its parts again (tests).
    #[cfg(test)]
    verified_again: u32,
    /// Parts of a start's check taken again at a resume.
    #[cfg(test)]
    checks_again: u32,
    /// Resumes of a start's check that kept the state its cut left
    /// instead of taking the warm start again (`start_warm_kept`).
    #[cfg(test)]
    check_states_kept: u32,
}

impl StressSolver {
    /// A solver for `asset`'s clusters.
    ///
    /// # Errors
    /// [`StressError::ZeroIterations`] / [`StressError::BadEpsilon`] for bad
    /// settings, [`StressError::Material`] for bad materials,
    /// [`StressError::ZeroAreaBond`] when a bond has no area (its stress
    /// would be infinite).
    pub fn new(
        asset: &Asset,
        settings: StressSettings,
        materials: StressMaterials,
    ) -> Result<Self, StressError> {
        settings.validate()?;
        materials.validate(asset)?;
        for (i, b) in asset.bonds().iter_enumerated() {
            if !(b.area > 0.0) {
                return Err(StressError::ZeroAreaBond(i));
            }
        }
        let n = asset.chunk_count();
        let chunk_centroid: Vec<DVec3> = asset
            .chunks()
            .iter()
            .map(|c| c.centroid.as_dvec3())
            .collect();
        let weight = |m: f32| f64::from(m) * STANDARD_GRAVITY;
        let chunk_inv_w2 = asset
            .chunks()
            .iter()
            .map(|c| weight(c.mass).powi(-2))
            .collect();
        let chunk_inv_wl2 = asset
            .chunks()
            .iter()
            .map(|c| (weight(c.mass) * f64::from(c.volume).cbrt()).powi(-2))
            .collect();
        let chunk_volume = asset.chunks().iter().map(|c| f64::from(c.volume)).collect();
        let bond_consts = asset
            .bonds()
            .iter_enumerated()
            .map(|(i, b)| bond_constants(&chunk_centroid, i, b))
            .collect();
        Ok(Self {
            settings,
            materials,
            fingerprint: asset.fingerprint(),
            chunk_centroid,
            chunk_inv_w2,
            chunk_inv_wl2,
            chunk_volume,
            bond_consts,
            bond_sections: asset
                .bonds()
                .iter()
                .map(|b| Section::equivalent_square(f64::from(b.area)))
                .collect(),
            bond_list: Vec::new(),
            warm_u: vec![DVec3::ZERO; n],
            warm_t: vec![DVec3::ZERO; n],
            local_of: vec![NONE; n],
            stamp: vec![0; n],
            current: 0,
            chunk: Vec::new(),
            centroid: Vec::new(),
            fixed: Vec::new(),
            inv_w2: Vec::new(),
            inv_wl2: Vec::new(),
            dist: Vec::new(),
            parent: Vec::new(),
            forest_parents_made: false,
            order: Vec::new(),
            adj_offsets: Vec::new(),
            adj_bonds: Vec::new(),
            adj_nodes: Vec::new(),
            bonds: Vec::new(),
            b_u: Vec::new(),
            b_t: Vec::new(),
            x_u: Vec::new(),
            x_t: Vec::new(),
            r_u: Vec::new(),
            r_t: Vec::new(),
            z_u: Vec::new(),
            z_t: Vec::new(),
            p_u: Vec::new(),
            p_t: Vec::new(),
            q_u: Vec::new(),
            q_t: Vec::new(),
            warm: false,
            node_mass: Vec::new(),
            reduced: false,
            fine_chunk: Vec::new(),
            fine_centroid: Vec::new(),
            fine_fixed: Vec::new(),
            fine_mass: Vec::new(),
            fine_bonds: Vec::new(),
            fine_ids: Vec::new(),
            fine_ends: Vec::new(),
            fine_restored: false,
            kx_u: Vec::new(),
            kx_t: Vec::new(),
            kx_valid: false,
            #[cfg(test)]
            reductions: 0,
            fine_adj_offsets: Vec::new(),
            fine_adj_bonds: Vec::new(),
            fine_adj_nodes: Vec::new(),
            node_of: Vec::new(),
            refined: Vec::new(),
            system_kept: false,
            system_refined: Vec::new(),
            pristine_of: Vec::new(),
            pristine_offsets: Vec::new(),
            pristine_members: Vec::new(),
            pristine_adj_offsets: Vec::new(),
            pristine_adj: Vec::new(),
            pristine_fixed: Vec::new(),
            pristine_refined: Vec::new(),
            newly_broken: Vec::new(),
            removed_at: Vec::new(),
            hierarchy_synced: false,
            hierarchy_removed: Vec::new(),
            split_trusted: false,
            split_changed: Vec::new(),
            polish_nodes: Vec::new(),
            polish_touched: Vec::new(),
            prev_node_of: Vec::new(),
            prev_member_offsets: Vec::new(),
            grouped_chunks: Vec::new(),
            old_of: Vec::new(),
            regrouped: false,
            regrouping: false,
            reducing: 0,
            preparing: None,
            place_found: None,
            place_kept: None,
            load_nodes: Vec::new(),
            split_old: Vec::new(),
            split_new: Vec::new(),
            split_ends: Vec::new(),
            split_values: Vec::new(),
            #[cfg(test)]
            splits: 0,
            regroup: Vec::new(),
            input_nodes: Vec::new(),
            broken_inside: Vec::new(),
            inner_limit: Vec::new(),
            member_offsets: Vec::new(),
            members: Vec::new(),
            multilevel: Multilevel::default(),
            key_nodes: Vec::new(),
            key_bonds: Vec::new(),
            key_valid: false,
            forest_mode: None,
            hierarchy_mode: None,
            stresses: Vec::new(),
            report: None,
            passes: 0,
            pass_limit: u64::MAX,
            kept_iteration: None,
            warm_of_x: false,
            warm_token: 0,
            warm_ready: 0,
            kept_ready: None,
            known_kept: None,
            known_ready: None,
            kept_vectors: KeptVectors::default(),
            build_part_bonds: BUILD_PART_BONDS,
            kept_setup: None,
            kept_setup_ready: None,
            build_trusted: false,
            check_from: 0,
            check_trusted: false,
            kept_stresses: Vec::new(),
            #[cfg(test)]
            updates_again: 0,
            #[cfg(test)]
            checks_held: 0,
            #[cfg(test)]
            products_again: 0,
            #[cfg(test)]
            builds_compared: 0,
            #[cfg(test)]
            reductions_kept: 0,
            #[cfg(test)]
            warm_copies: 0,
            #[cfg(test)]
            warm_kept: 0,
            #[cfg(test)]
            known_reused: 0,
            #[cfg(test)]
            warm_resumed: 0,
            #[cfg(test)]
            starts_again: 0,
            #[cfg(test)]
            verified_again: 0,
            #[cfg(test)]
            checks_again: 0,
            #[cfg(test)]
            check_states_kept: 0,
        })
    }

    /// Sets the bonds per part of the hierarchy's build taken in steps
    /// ([`BUILD_PART_BONDS`] by default; at least one). Results do not
    /// depend on it, only where a work limit cuts: for tests and fuzzing
    /// of the build in parts on small structures.
    #[doc(hidden)]
    pub fn set_build_part_bonds(&mut self, bonds: usize) {
        self.build_part_bonds = bonds.max(1);
        // What was kept for a call that goes on from a cut between parts
        // was made of the parts before: the next call takes them again
        // under the new split. (A product's parts kept across a new split
        // summed some bonds twice and skipped others: found by a helper's
        // breaker test.)
        self.kept_setup = None;
        self.preparing = None;
        self.kept_iteration = None;
    }

    /// The parts each piece of the hierarchy's build is
    /// taken in, in steps, over the system standing: ⌈bonds /
    /// [`BUILD_PART_BONDS`]⌉, at least one (see "Slices" in [`reduced`]).
    fn build_parts(&self) -> u32 {
        u32::try_from(self.bonds.len().div_ceil(self.build_part_bonds.max(1)))
            .unwrap_or(u32::MAX)
            .max(1)
    }

    /// The settings.
    pub fn settings(&self) -> &StressSettings {
        &self.settings
    }

    /// Changes the iteration cap and ε.
    ///
    /// # Errors
    /// As [`StressSettings::validate`]; the old settings stay on error.
    pub fn set_settings(&mut self, settings: StressSettings) -> Result<(), StressError> {
        settings.validate()?;
        self.settings = settings;
        self.system_kept = false;
        self.preparing = None;
        // An update kept under the old settings is taken again, and a
        // build pending is compared.
        self.kept_iteration = None;
        self.kept_setup = None;
        Ok(())
    }

    /// The materials.
    pub fn materials(&self) -> &StressMaterials {
        &self.materials
    }

    /// Forgets every warm start (the next solve starts from rest).
    pub fn reset_warm_start(&mut self) {
        self.kx_valid = false;
        self.forget_warm_of_x();
        // A progress cut by the last call no longer finds the warm start
        // it left here (`solver/setup_steps.rs`).
        self.kept_setup = None;
        self.warm_u.iter_mut().for_each(|v| *v = DVec3::ZERO);
        self.warm_t.iter_mut().for_each(|v| *v = DVec3::ZERO);
    }

    /// The warm start no longer holds any `x`, nor the one of an update
    /// kept for the next call (a warm start set or reset in between).
    fn forget_warm_of_x(&mut self) {
        self.warm_of_x = false;
        self.warm_token = 0;
        if let Some(k) = self.kept_iteration.as_mut() {
            k.warm = false;
        }
    }

    /// The warm start of every chunk of the asset: displacement (m) and
    /// rotation (rad) from the last solve that reached it, for a snapshot
    /// that must resume bit for bit (the next solve starts from these).
    pub fn warm_start(&self) -> (&[DVec3], &[DVec3]) {
        (&self.warm_u, &self.warm_t)
    }

    /// Puts back a warm start taken by [`Self::warm_start`].
    ///
    /// # Errors
    /// [`StressError::AssetMismatch`] unless both slices have one entry per
    /// chunk; [`StressError::NonFiniteLoad`] for a non-finite entry.
    /// Nothing changes on error.
    pub fn set_warm_start(&mut self, u: &[DVec3], t: &[DVec3]) -> Result<(), StressError> {
        if u.len() != self.warm_u.len() || t.len() != self.warm_t.len() {
            return Err(StressError::AssetMismatch);
        }
        if !u.iter().chain(t).all(|v| v.is_finite()) {
            return Err(StressError::NonFiniteLoad { load: None });
        }
        self.kx_valid = false;
        self.kept_setup = None;
        self.forget_warm_of_x();
        self.warm_u.copy_from_slice(u);
        self.warm_t.copy_from_slice(t);
        Ok(())
    }

    /// The intact bonds of the last solved cluster, ascending by bond index.
    pub fn bond_stresses(&self) -> &[BondStress] {
        &self.stresses
    }

    /// The report of the last solve, `None` before the first.
    pub fn last_report(&self) -> Option<StressReport> {
        self.report
    }

    /// Solves one cluster.
    ///
    /// * `nodes`: the cluster's chunks (support-level, distinct, any order).
    /// * `health`: one entry per bond of `asset`, du; bonds with health ≤ 0
    ///   are broken and carry nothing. Only bonds with both ends in `nodes`
    ///   (or one end in `nodes` and the other the world) take part.
    /// * `loads`: gravity and point loads (anchored clusters), angular
    ///   velocity (free clusters), asset frame.
    ///
    /// Nodes that no intact bond path joins to an anchor carry nothing (a
    /// cluster split by damage that islands have not caught up with yet).
    /// Results: [`Self::bond_stresses`], and the returned report.
    ///
    /// # Errors
    /// [`StressError::AssetMismatch`], [`StressError::HealthLength`],
    /// [`StressError::EmptyCluster`], [`StressError::NodeOutOfRange`],
    /// [`StressError::NodeNotSupportLevel`], [`StressError::DuplicateNode`],
    /// [`StressError::NonFiniteLoad`], [`StressError::LoadOutsideCluster`].
    /// On error the previous results are cleared and nothing else changes.
    ///
    /// # Example
    /// A column of two 1 kg cubes on a supported cube: the lower bond
    /// carries both, 2 · 9.81 N in compression.
    /// ```
    /// use smithereens_core::glam::Vec3;
    /// use smithereens_core::stress::{Material, StressLoads, StressMaterials, StressSettings, StressSolver};
    /// use smithereens_core::{Asset, AssetDesc, BondDesc, BondEnd, ChunkIndex, fixtures::cube_chunk};
    /// let desc = AssetDesc {
    ///     chunks: (0..3).map(|k| cube_chunk(Vec3::new(0.0, k as f32, 0.0), 1.0, 1.0, k == 0)).collect(),
    ///     bonds: (0..2).map(|k| BondDesc { chunk0: k, chunk1: BondEnd::Chunk(k + 1),
    ///         centroid: Vec3::new(0.0, k as f32 + 0.5, 0.0), normal: Vec3::Y, area: 1.0, strength: 10.0 }).collect(),
    ///     support_depth: None,
    /// };
    /// let asset = Asset::new(&desc).unwrap();
    /// let mut solver = StressSolver::new(&asset, StressSettings::default(),
    ///                                    StressMaterials::uniform(Material::CONCRETE)).unwrap();
    /// let nodes: Vec<ChunkIndex> = (0..3).map(ChunkIndex).collect();
    /// let loads = StressLoads { gravity: Vec3::new(0.0, -9.81, 0.0), ..Default::default() };
    /// let report = solver.solve(&asset, &nodes, &[10.0, 10.0], &loads).unwrap();
    /// assert!(report.converged);
    /// let lower = solver.bond_stresses()[0];
    /// assert!((lower.normal_force + 2.0 * 9.81).abs() < 1e-3); // compression
    /// assert!((lower.compression - 2.0 * 9.81).abs() < 1e-3); // Pa over 1 m²
    /// ```
    pub fn solve(
        &mut self,
        asset: &Asset,
        nodes: &[ChunkIndex],
        health: &[f32],
        loads: &StressLoads<'_>,
    ) -> Result<StressReport, StressError> {
        self.solve_within(asset, nodes, health, loads, u64::MAX, &mut None)
    }

    /// [`Self::solve`] within `work` bond passes (see [Work](self#work)),
    /// resumable: the conjugate gradient stops before an iteration's
    /// update that, with the final evaluation, would take the solve past
    /// `work`, or before its preconditioning that would (but takes one
    /// step at least, so a solve makes progress under any limit;
    /// gathering and building are not cut short). A solve cut short
    /// reports `converged: false`, the recursive residual, no bond results
    /// ([`Self::bond_stresses`] is empty), and leaves its state in
    /// `progress`; passing that back to the next solve of the same nodes,
    /// intact bonds and loads continues the iteration exactly where it
    /// stopped, so a solve sliced over several calls gives bit for bit the
    /// results of one call, and `max_iterations` counts the iterations of
    /// all its slices. A `progress` that does not match (another cluster,
    /// a bond broke, a load changed) is dropped and the solve starts from
    /// the warm start, which a cut-short solve leaves at its last iterate.
    /// `progress` is `None` after a solve that was not cut short, and
    /// untouched on error.
    ///
    /// A call that starts a full solve does its gathering, building, start
    /// and first iteration's update (with the evaluation) whatever `work`
    /// is; a call that resumes one overshoots `work` by at most its
    /// gathering and one step (a piece of the hierarchy's build at the
    /// switch from the forest, the switch's first preconditioning, an
    /// iteration's update with the evaluation, or its preconditioning).
    /// The reduced solve ([`StressSettings::reduce_above`]) takes each
    /// refinement round in steps (reduction, hierarchy, start, each
    /// iteration's update and preconditioning) and ends a call before a
    /// step that would pass `work`, after one step at least (see
    /// [Slices](reduced#slices)); a call overshoots by at most the
    /// gathering and one step.
    ///
    /// # Errors
    /// As [`Self::solve`].
    pub fn solve_within(
        &mut self,
        asset: &Asset,
        nodes: &[ChunkIndex],
        health: &[f32],
        loads: &StressLoads<'_>,
        work: u64,
        progress: &mut Option<SolveProgress>,
    ) -> Result<StressReport, StressError> {
        self.stresses.clear();
        self.report = None;
        self.passes = 0;
        self.pass_limit = work;
        self.preparing = None;
        // Only this call may take back an update kept for its progress,
        // or trust a build kept pending for it.
        self.kept_ready = self.kept_iteration.take();
        self.kept_setup_ready = self.kept_setup.take();
        self.known_ready = self.known_kept.take();
        self.warm_ready = std::mem::take(&mut self.warm_token);
        // (The warm start holds `x` again only once this call takes an
        // iteration back or writes it.)
        self.warm_of_x = false;
        self.build_trusted = false;
        self.check_from = 0;
        self.check_trusted = false;
        self.check_cluster(asset, nodes, health)?;
        if !(loads.gravity.is_finite() && loads.angular_velocity.is_finite()) {
            return Err(StressError::NonFiniteLoad { load: None });
        }
        // A reduced system standing in the solver for these nodes (see
        // `reduced`): no gather.
        let kept = if self.reduction_kept(nodes, health, progress.as_ref(), loads) {
            #[cfg(test)]
            {
                self.reductions_kept += 1;
            }
            Some(kept::Kept::Reducing)
        } else {
            self.kept_system(nodes, health)
        };
        if kept.is_none() {
            self.gather_nodes(asset, nodes)?;
        }
        for (k, l) in loads.point_loads.iter().enumerate() {
            if !(l.force.is_finite() && l.point.is_finite()) {
                return Err(StressError::NonFiniteLoad {
                    load: Some(k as u32),
                });
            }
            if self.local(l.chunk).is_none() {
                return Err(StressError::LoadOutsideCluster {
                    load: k as u32,
                    chunk: l.chunk,
                });
            }
        }
        if kept.is_some() {
            // The same cluster and settings as the last call, which solved
            // it reduced, with the same bonds intact or some broken since:
            // it is solved reduced again. Charged as a gather (see Work).
            if kept == Some(kept::Kept::Broken) {
                self.take_broken(health);
            }
            self.passes +=
                (1 + STRUCTURE_PASSES + FOREST_BUILD_PASSES) * self.bond_list.len() as u64;
            return self.solve_reduced(asset, nodes, health, loads, progress, kept);
        }
        self.gather_bonds(asset, health);
        // Charged whether or not the structure is reused (see Work).
        self.passes += (1 + STRUCTURE_PASSES + FOREST_BUILD_PASSES) * self.bonds.len() as u64;
        let anchored = self.gathered_anchored();
        let mode = if anchored {
            SolveMode::Anchored
        } else if loads.angular_velocity != Vec3::ZERO && self.chunk.len() > 1 {
            SolveMode::Inertial
        } else {
            SolveMode::Skipped
        };
        if mode == SolveMode::Skipped {
            // Not cut short: no progress (one of another solve is dropped).
            *progress = None;
            for lb in &self.bonds {
                self.stresses.push(BondStress::zero(lb.bond));
            }
            let report = StressReport {
                iterations: 0,
                residual: 0.0,
                converged: true,
                mode,
                work: self.passes,
            };
            self.report = Some(report);
            return Ok(report);
        }
        if mode == SolveMode::Inertial {
            // The lowest node is the reference; the self-balanced loads
            // leave it no reaction.
            self.fixed[0] = true;
        }
        if mode == SolveMode::Anchored && self.gathered_reduces() {
            return self.solve_reduced(asset, nodes, health, loads, progress, None);
        }
        self.reset_vectors(self.chunk.len() + 1);
        if self.forest_mode != Some(mode) {
            self.forest_topology();
            self.forest_mode = Some(mode);
        }
        self.fix_unreached();
        match mode {
            SolveMode::Anchored => self.anchored_loads(loads),
            _ => self.inertial_loads(asset, loads.angular_velocity),
        }
        let inertial = mode == SolveMode::Inertial;
        // A progress that does not continue this solve only lends its
        // buffers.
        let mut slot = progress.take();
        let resume = slot
            .as_ref()
            .is_some_and(|p| p.continues(mode, &self.chunk, &self.bond_list, &self.b_u, &self.b_t));
        if !resume {
            self.start_warm();
        }
        let (iterations, residual) =
            match self.conjugate_gradient(inertial, &mut slot, resume, CgStart::Whole) {
                CgEnd::Done(iterations, Some(residual)) => (iterations, residual),
                CgEnd::Done(iterations, None) => {
                    self.store_warm_start();
                    (iterations, self.evaluate(inertial))
                }
                CgEnd::CutShort {
                    iterations,
                    known: residual,
                    ..
                } => {
                    // No bond results: the solve is not done (a restart,
                    // other loads or a restored snapshot without it, begins
                    // from the warm start the cut left).
                    *progress = slot;
                    let report = StressReport {
                        iterations,
                        residual: residual as f32,
                        converged: false,
                        mode,
                        work: self.passes,
                    };
                    self.report = Some(report);
                    return Ok(report);
                }
            };
        self.forget_diverged(residual);
        let report = StressReport {
            iterations,
            residual: residual as f32,
            converged: residual <= f64::from(self.settings.epsilon),
            mode,
            work: self.passes,
        };
        self.report = Some(report);
        Ok(report)
    }

    /// The gathered cluster has an anchor: a support among its nodes or a
    /// bond to the world.
    fn gathered_anchored(&self) -> bool {
        let n = self.chunk.len();
        self.fixed[..n].iter().any(|&f| f) || self.adj_offsets[n] < self.adj_offsets[n + 1]
    }

    /// The gathered cluster, anchored, is solved reduced: it has more than
    /// [`StressSettings::reduce_above`] free nodes (and that is not 0).
    fn gathered_reduces(&self) -> bool {
        let reduce_above = self.settings.reduce_above as usize;
        let free = self.fixed[..self.chunk.len()]
            .iter()
            .filter(|&&f| !f)
            .count();
        reduce_above > 0 && free > reduce_above
    }

    /// The checks every call on a cluster starts with: the solver's asset,
    /// one health per bond, at least one node (the nodes themselves are
    /// checked as they are gathered).
    fn check_cluster(
        &self,
        asset: &Asset,
        nodes: &[ChunkIndex],
        health: &[f32],
    ) -> Result<(), StressError> {
        if asset.fingerprint() != self.fingerprint || asset.chunk_count() != self.warm_u.len() {
            return Err(StressError::AssetMismatch);
        }
        if health.len() != asset.bond_count() {
            return Err(StressError::HealthLength {
                found: health.len(),
                expected: asset.bond_count(),
            });
        }
        if nodes.is_empty() {
            return Err(StressError::EmptyCluster);
        }
        Ok(())
    }

    /// A solve that did not converge and whose answer is not finite in the
    /// results' single precision (it diverged past its rounding floor: an
    /// ε near [`MIN_EPSILON`] that this structure's rounding does not let
    /// it reach) reports no bond results and leaves its chunks at rest, so
    /// that the next solve starts afresh rather than from the overflowed
    /// answer, where it would end at once, again not finite.
    fn forget_diverged(&mut self, residual: f64) {
        let finite = |b: &BondStress| {
            [
                b.normal_force,
                b.shear_force,
                b.bending_moment,
                b.twisting_moment,
            ]
            .into_iter()
            .chain([b.compression, b.tension, b.shear])
            .all(f32::is_finite)
        };
        if residual <= f64::from(self.settings.epsilon)
            || ((residual as f32).is_finite() && self.stresses.iter().all(finite))
        {
            return;
        }
        self.stresses.clear();
        self.x_u.iter_mut().for_each(|v| *v = DVec3::ZERO);
        self.x_t.iter_mut().for_each(|v| *v = DVec3::ZERO);
        self.warm_of_x = false;
        self.store_warm_start();
    }

    fn local(&self, c: ChunkIndex) -> Option<u32> {
        let i = c.0 as usize;
        (self.stamp.get(i) == Some(&self.current)).then(|| self.local_of[i])
    }

    /// Local nodes in ascending chunk order, then the world.
    fn gather_nodes(&mut self, asset: &Asset, nodes: &[ChunkIndex]) -> Result<(), StressError> {
        self.system_kept = false;
        self.reducing = 0;
        self.build_trusted = false;
        self.input_nodes.clear();
        self.current = self.current.wrapping_add(1);
        if self.current == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.current = 1;
        }
        self.chunk.clear();
        for &c in nodes {
            let Some(chunk) = asset.chunk(c) else {
                return Err(StressError::NodeOutOfRange(c));
            };
            if !chunk.support_level {
                return Err(StressError::NodeNotSupportLevel(c));
            }
            if self.stamp[c.0 as usize] == self.current {
                return Err(StressError::DuplicateNode(c));
            }
            self.stamp[c.0 as usize] = self.current;
            self.chunk.push(c);
        }
        self.input_nodes.extend_from_slice(nodes);
        self.chunk.sort_unstable();
        self.reduced = false;
        self.node_mass.clear();
        self.node_mass.extend(
            self.chunk
                .iter()
                .map(|&c| f64::from(asset.chunks()[c].mass)),
        );
        self.centroid.clear();
        self.fixed.clear();
        self.inv_w2.clear();
        self.inv_wl2.clear();
        for (k, &c) in self.chunk.iter().enumerate() {
            let i = c.0 as usize;
            self.local_of[i] = k as u32;
            self.centroid.push(self.chunk_centroid[i]);
            self.fixed.push(asset.chunks()[c].support);
            self.inv_w2.push(self.chunk_inv_w2[i]);
            self.inv_wl2.push(self.chunk_inv_wl2[i]);
        }
        // The world: fixed, never measured.
        self.centroid.push(DVec3::ZERO);
        self.fixed.push(true);
        self.inv_w2.push(0.0);
        self.inv_wl2.push(0.0);
        Ok(())
    }

    /// Sizes the solver's per-node vectors at `len` entries, keeping
    /// capacity: the loads zeroed; the conjugate-gradient work vectors `z`
    /// and `q`, and the state (displacements, residuals, directions) only
    /// sized. Every step writes `z` and `q` before it reads them (the
    /// preconditioner and the product fill every entry), a call either
    /// resumes a progress, which swaps its state in, or starts from the
    /// warm start, which zeroes it first ([`Self::start_warm`]). Zeroing
    /// the state every call cost 0.06 ms of a sliced call's 0.4 ms around
    /// its step on the refined 100 × 50 × 2 wall, and `z` and `q` 0.03
    /// ms more. Debug builds fill `z` and `q` with NaN instead, so a read
    /// before a write shows in every result (the test suite passes so).
    fn reset_vectors(&mut self, len: usize) {
        self.reset_work_vectors(len);
        self.reset_state_vectors(len);
    }

    /// [`Self::reset_vectors`]'s first half: the loads `b` and the
    /// scratch `z`, `q`. (Each half is a step of a reduction in steps: the
    /// vectors grown to a larger system took up to 0.99 ms together.)
    fn reset_work_vectors(&mut self, len: usize) {
        let room = self.node_room(len);
        for v in [&mut self.b_u, &mut self.b_t] {
            clear_for(v, room);
            v.resize(len, DVec3::ZERO);
        }
        if self.reduced {
            // `K x` of a reduced answer (`finish_evaluation`), kept across
            // rounds: room for the full-resolution system too (a later
            // round's evaluation grew it, 0.46 M instructions of copying).
            for v in [&mut self.kx_u, &mut self.kx_t] {
                v.reserve(room.saturating_sub(v.len()));
            }
        }
        for v in [&mut self.z_u, &mut self.z_t, &mut self.q_u, &mut self.q_t] {
            // (Scratch: nothing in it is read before written.)
            if v.capacity() < len {
                clear_for(v, room);
            }
            v.resize(len, DVec3::ZERO);
            if cfg!(debug_assertions) {
                v.fill(DVec3::NAN);
            }
        }
    }

    /// [`Self::reset_vectors`]'s second half: the state `x`, `r`, `p`,
    /// and room for the vectors a cut keeps.
    fn reset_state_vectors(&mut self, len: usize) {
        let room = self.node_room(len);
        for v in self.state_vectors_mut() {
            v.reserve(room.saturating_sub(v.len()));
        }
        self.size_state_vectors(len);
        self.kept_vectors.reserve(room);
    }

    /// Room for the per-node vectors of a system of `len` entries: for a
    /// reduced system, as many as its full-resolution system has, so no
    /// later round (more nodes as refinement adds them) grows them. (A
    /// round's reduction that grew the kept and state vectors copied what
    /// they held: 3.2 M instructions of a 5.0 M call on the refined
    /// 100 × 50 × 2 wall.)
    fn node_room(&self, len: usize) -> usize {
        if self.reduced {
            len.max(self.fine_chunk.len() + 1)
        } else {
            len
        }
    }

    /// The state `x`, `r`, `p` sized to `len` entries (new entries zero).
    fn size_state_vectors(&mut self, len: usize) {
        for v in self.state_vectors_mut() {
            v.resize(len, DVec3::ZERO);
        }
    }

    /// The conjugate gradient's state: displacements, residuals and
    /// directions per node.
    fn state_vectors_mut(&mut self) -> [&mut Vec<DVec3>; 6] {
        [
            &mut self.x_u,
            &mut self.x_t,
            &mut self.r_u,
            &mut self.r_t,
            &mut self.p_u,
            &mut self.p_t,
        ]
    }

    /// Intact bonds inside the cluster (and to the world), ascending by
    /// bond index, and the local CSR adjacency over them.
    fn gather_bonds(&mut self, asset: &Asset, health: &[f32]) {
        if self.scan_bonds(asset, health) {
            // The same structure as last time: bonds and adjacency stand.
            return;
        }
        self.start_local_bonds();
        self.local_bonds(asset, 0..self.bond_list.len());
        self.build_adjacency();
        self.key_valid = true;
    }

    /// [`Self::gather_bonds`]'s first pass: the intact bonds inside the
    /// cluster (and to the world) in `bond_list`, the broken ones in
    /// `broken_inside`, both ascending. Returns whether the structure is
    /// the one the bonds and adjacency were built for (then they stand).
    fn scan_bonds(&mut self, asset: &Asset, health: &[f32]) -> bool {
        let n = self.chunk.len();
        self.bond_list.clear();
        self.broken_inside.clear();
        if 4 * n >= asset.chunk_count() {
            // A large share of the asset: one scan in bond order.
            for (bi, b) in asset.bonds().iter_enumerated() {
                if self.local(b.chunk0).is_some()
                    && b.chunk1.is_none_or(|c1| self.local(c1).is_some())
                {
                    if health[bi.0 as usize] > 0.0 {
                        self.bond_list.push(bi.0);
                    } else {
                        self.broken_inside.push(bi.0);
                    }
                }
            }
        } else {
            for k in 0..n {
                let c = self.chunk[k];
                for (other, bi) in asset.graph().neighbours(c) {
                    if asset.bonds()[bi].chunk0 == c && self.local(other).is_some() {
                        if health[bi.0 as usize] > 0.0 {
                            self.bond_list.push(bi.0);
                        } else {
                            self.broken_inside.push(bi.0);
                        }
                    }
                }
                for &bi in asset.graph().world_bonds(c) {
                    if health[bi.0 as usize] > 0.0 {
                        self.bond_list.push(bi.0);
                    } else {
                        self.broken_inside.push(bi.0);
                    }
                }
            }
            self.bond_list.sort_unstable();
            self.broken_inside.sort_unstable();
        }
        self.key_valid && self.key_nodes == self.chunk && self.key_bonds == self.bond_list
    }

    /// After a [`Self::scan_bonds`] that found another structure: records
    /// it as the one to build and empties the bonds, with room for every
    /// intact bond (so that [`Self::local_bonds`] in parts never grows
    /// them). The structure counts as built (`key_valid`) once its
    /// adjacency is filled: a gather between the parts builds it again.
    fn start_local_bonds(&mut self) {
        self.key_nodes.clone_from(&self.chunk);
        self.key_bonds.clone_from(&self.bond_list);
        self.key_valid = false;
        self.forest_mode = None;
        self.hierarchy_mode = None;
        clear_for(&mut self.bonds, self.bond_list.len());
        self.hierarchy_synced = false;
        self.split_trusted = false;
    }

    /// The local bonds of the intact bonds `range` of `bond_list` (after
    /// those before them): their constants with the local ends.
    fn local_bonds(&mut self, asset: &Asset, range: std::ops::Range<usize>) {
        let world = self.chunk.len() as u32;
        for &bi in &self.bond_list[range] {
            let mut lb = self.bond_consts[bi as usize];
            let b = &asset.bonds()[BondIndex(bi)];
            lb.a = self.local_of[b.chunk0.0 as usize];
            lb.b = b.chunk1.map_or(world, |c1| self.local_of[c1.0 as usize]);
            self.bonds.push(lb);
        }
    }

    /// The node CSR adjacency over `bonds` (`chunk.len() + 1` nodes).
    fn build_adjacency(&mut self) {
        self.count_adjacency();
        self.fill_adjacency();
    }

    /// [`Self::build_adjacency`]'s first pass: each node's neighbour count,
    /// summed into `adj_offsets`, and the adjacency sized.
    fn count_adjacency(&mut self) {
        let n = self.chunk.len();
        self.adj_offsets.clear();
        self.adj_offsets.resize(n + 2, 0);
        for b in &self.bonds {
            self.adj_offsets[b.a as usize + 1] += 1;
            self.adj_offsets[b.b as usize + 1] += 1;
        }
        for k in 0..=n {
            self.adj_offsets[k + 1] += self.adj_offsets[k];
        }
        self.adj_bonds.clear();
        self.adj_bonds.resize(self.adj_offsets[n + 1] as usize, 0);
        self.adj_nodes.clear();
        self.adj_nodes.resize(self.adj_offsets[n + 1] as usize, 0);
    }

    /// [`Self::build_adjacency`]'s second pass: the bonds and nodes of
    /// each node's neighbours, in bond order.
    fn fill_adjacency(&mut self) {
        let n = self.chunk.len();
        // `parent` doubles as the fill cursor here; build_forest resets it.
        self.forest_parents_made = false;
        self.parent.clear();
        self.parent.extend_from_slice(&self.adj_offsets[..=n]);
        for (k, b) in self.bonds.iter().enumerate() {
            for (end, other) in [(b.a, b.b), (b.b, b.a)] {
                let slot = &mut self.parent[end as usize];
                self.adj_bonds[*slot as usize] = k as u32;
                self.adj_nodes[*slot as usize] = other;
                *slot += 1;
            }
        }
    }

    /// Breadth-first spanning forest from the fixed nodes: `order` lists the
    /// reached nodes ring by ring, `parent[v]` is the local bond to the
    /// previous ring with the largest area (lowest bond index on ties).
    fn build_forest(&mut self) {
        self.forest_topology();
        self.forest_state();
    }

    /// The breadth-first forest of [`Self::build_forest`]: `dist`, `parent`
    /// and `order`, which depend only on the structure and the fixed nodes.
    /// The search reads the adjacency's end nodes; the parents take a pass
    /// over the bonds (`forest_parents`), which a solve that does not
    /// precondition with the forest (a reduced one, unless
    /// [`Preconditioner::Forest`]) skips: it needs only `dist` (which nodes
    /// an anchor reaches) and `order`.
    fn forest_topology(&mut self) {
        let len = self.chunk.len() + 1;
        self.dist.clear();
        self.dist.resize(len, NONE);
        self.parent.clear();
        self.parent.resize(len, NONE);
        self.order.clear();
        for v in 0..len {
            if self.fixed[v] {
                self.dist[v] = 0;
                self.order.push(v as u32);
            }
        }
        let mut head = 0;
        while head < self.order.len() {
            let u = self.order[head] as usize;
            head += 1;
            let (lo, hi) = (
                self.adj_offsets[u] as usize,
                self.adj_offsets[u + 1] as usize,
            );
            for &v in &self.adj_nodes[lo..hi] {
                if self.dist[v as usize] == NONE {
                    self.dist[v as usize] = self.dist[u] + 1;
                    self.order.push(v);
                }
            }
        }
        self.forest_parents_made = false;
        if !(self.reduced && self.settings.preconditioner != Preconditioner::Forest) {
            self.forest_parents();
        }
    }

    /// The forest's `parent`s over the search `forest_topology` made: per
    /// reached node, of the bonds from the ring before it in the order the
    /// search met them, the first with the stiffest normal spring (as the
    /// search itself would pick it). Made with the forest when it may
    /// precondition, else when a solve turns to it (a slice resumed from
    /// one that used it).
    fn forest_parents(&mut self) {
        for &u in &self.order {
            let u = u as usize;
            let (lo, hi) = (
                self.adj_offsets[u] as usize,
                self.adj_offsets[u + 1] as usize,
            );
            for k in lo..hi {
                let v = self.adj_nodes[k] as usize;
                if self.dist[v] != self.dist[u] + 1 {
                    continue;
                }
                let e = self.adj_bonds[k];
                let p = self.parent[v];
                if p == NONE || self.bonds[e as usize].kn > self.bonds[p as usize].kn {
                    self.parent[v] = e;
                }
            }
        }
        self.forest_parents_made = true;
    }

    /// The per-solve part of [`Self::build_forest`]: nodes the forest did
    /// not reach are fixed ([`Self::fix_unreached`]), and the free nodes
    /// start from the warm start ([`Self::start_warm`]).
    fn forest_state(&mut self) {
        self.fix_unreached();
        self.start_warm();
    }

    /// Fixes the nodes the forest did not reach: they stay at zero and
    /// carry nothing.
    fn fix_unreached(&mut self) {
        let len = self.chunk.len() + 1;
        for v in 0..len {
            if self.dist[v] == NONE {
                self.fixed[v] = true;
            }
        }
    }

    /// The free nodes' displacements from the warm start (a super-node:
    /// its members' mean motion, by mass), every other entry of the state
    /// (displacements, residuals, directions) zero; `warm` says whether any
    /// moves. A call that resumes a progress skips it: the progress puts
    /// back its own state ([`SolveProgress::restore`]).
    fn start_warm(&mut self) {
        self.warm_of_x = false;
        // Sized and zeroed in one pass (sized first, then zeroed, the state
        // a cut had swapped out was written twice: 0.1 ms of a call on the
        // refined 100 × 50 × 2 wall).
        let len = self.chunk.len() + 1;
        for v in self.state_vectors_mut() {
            v.clear();
            v.resize(len, DVec3::ZERO);
        }
        self.warm = false;
        for k in 0..self.chunk.len() {
            if self.fixed[k] {
                continue;
            }
            if self.reduced {
                let (mut u, mut t) = (DVec3::ZERO, DVec3::ZERO);
                for &i in self.members_of(k) {
                    let c = self.fine_chunk[i as usize].0 as usize;
                    let m = self.fine_mass[i as usize];
                    u += m * self.warm_u[c];
                    t += m * self.warm_t[c];
                }
                self.x_u[k] = u / self.node_mass[k];
                self.x_t[k] = t / self.node_mass[k];
            } else {
                let c = self.chunk[k].0 as usize;
                self.x_u[k] = self.warm_u[c];
                self.x_t[k] = self.warm_t[c];
            }
            self.warm |= self.x_u[k] != DVec3::ZERO || self.x_t[k] != DVec3::ZERO;
        }
    }

    /// [`Self::start_warm`] for a call resuming the start's check its own
    /// last call cut ([`RoundStage::Checking`], `setup_kept_for` its
    /// token): nothing since changed the warm start, the grouping or the
    /// state (the check's parts write only `r` and the bond results, which
    /// the cut set aside), so `x` and `p` are what that call's warm start
    /// made. Only `r` is sized again (what it holds is taken back or
    /// written before it is read: `check_in_parts`). On the refined
    /// 100 × 50 × 2 wall each check part paid 1.1 M instructions for the
    /// warm start taken again. A debug build takes it again and compares.
    fn start_warm_kept(&mut self) {
        #[cfg(test)]
        {
            self.check_states_kept += 1;
        }
        self.warm_of_x = false;
        let len = self.chunk.len() + 1;
        for v in [&mut self.r_u, &mut self.r_t] {
            v.resize(len, DVec3::ZERO);
        }
        #[cfg(debug_assertions)]
        {
            let kept = (
                self.x_u.clone(),
                self.x_t.clone(),
                self.p_u.clone(),
                self.p_t.clone(),
            );
            let warm = self.warm;
            self.start_warm();
            let bits = |v: &[DVec3]| {
                v.iter()
                    .flat_map(|d| d.to_array())
                    .map(f64::to_bits)
                    .collect::<Vec<_>>()
            };
            assert!(
                bits(&kept.0) == bits(&self.x_u)
                    && bits(&kept.1) == bits(&self.x_t)
                    && bits(&kept.2) == bits(&self.p_u)
                    && bits(&kept.3) == bits(&self.p_t)
                    && warm == self.warm,
                "a resumed check's state is not its warm start's"
            );
            // Nothing may read `r` before it is taken back or written.
            self.r_u.fill(DVec3::NAN);
            self.r_t.fill(DVec3::NAN);
        }
    }

    fn anchored_loads(&mut self, loads: &StressLoads<'_>) {
        let g = loads.gravity.as_dvec3();
        for k in 0..self.chunk.len() {
            self.b_u[k] = self.node_mass[k] * g;
        }
        for l in loads.point_loads {
            if let Some(k) = self.local(l.chunk) {
                let k = if self.reduced {
                    self.node_of[k as usize] as usize
                } else {
                    k as usize
                };
                let f = l.force.as_dvec3();
                self.b_u[k] += f;
                self.b_t[k] += (l.point.as_dvec3() - self.centroid[k]).cross(f);
            }
        }
    }

    /// d'Alembert loads of a rigid body spinning freely: with `c` the centre
    /// of mass, `I` the inertia about it and `ω̇ = −I⁻¹(ω × Iω)` (Euler's
    /// equations without torque), node i takes
    /// `F_i = −m_i (ω̇ × r_i + ω × (ω × r_i))` and
    /// `T_i = −(I_i ω̇ + ω × I_i ω)`, which sum to zero force and moment.
    fn inertial_loads(&mut self, asset: &Asset, omega: Vec3) {
        let w = omega.as_dvec3();
        let mut mass = 0.0;
        let mut moment = DVec3::ZERO;
        for (k, &c) in self.chunk.iter().enumerate() {
            let m = f64::from(asset.chunks()[c].mass);
            mass += m;
            moment += m * self.centroid[k];
        }
        let com = moment / mass;
        let mut inertia = DMat3::ZERO;
        for (k, &c) in self.chunk.iter().enumerate() {
            let ch = &asset.chunks()[c];
            let m = f64::from(ch.mass);
            let r = self.centroid[k] - com;
            inertia += ch.inertia.as_dmat3()
                + m * (DMat3::from_diagonal(DVec3::splat(r.length_squared()))
                    - DMat3::from_cols(r * r.x, r * r.y, r * r.z));
        }
        let alpha = -(inertia.inverse() * w.cross(inertia * w));
        for (k, &c) in self.chunk.iter().enumerate() {
            let ch = &asset.chunks()[c];
            let m = f64::from(ch.mass);
            let r = self.centroid[k] - com;
            let ii = ch.inertia.as_dmat3();
            self.b_u[k] = -m * (alpha.cross(r) + w.cross(w.cross(r)));
            self.b_t[k] = -(ii * alpha + w.cross(ii * w));
        }
    }

    /// `q = K p` over the free nodes (fixed entries of `p` are zero).
    fn apply_stiffness(&mut self, multilevel: bool) {
        if multilevel && self.multilevel.assembled() {
            self.multilevel
                .product(&self.p_u, &self.p_t, &mut self.q_u, &mut self.q_t);
            return;
        }
        stiffness_product(
            &self.bonds,
            &self.fixed,
            &self.p_u,
            &self.p_t,
            &mut self.q_u,
            &mut self.q_t,
        );
    }

    /// How many steps an iteration's preconditioning is taken in: the
    /// cycle's ([`Multilevel::apply_steps`]), or one with the forest.
    /// A reduced round's first preconditioning (`z = M⁻¹ r`, then `p = z`)
    /// in the steps of its cycle from step `from`, charged equal shares of
    /// `first` passes: before a step that would pass the limit (not the
    /// call's first step unless `stepped`), the call ends with the state
    /// (`x` and `r`, `resumed`: lent by the progress) saved at
    /// [`RoundStage::Checked`] (before step 0) or
    /// [`RoundStage::Starting`], and what the cycle holds kept for the
    /// progress (`setup_steps.rs`).
    fn first_preconditioning(
        &mut self,
        multilevel: bool,
        first: u64,
        from: u8,
        mut stepped: bool,
        slot: &mut Option<SolveProgress>,
        resumed: bool,
    ) -> Option<CgEnd> {
        let steps = self.preconditioning_steps(multilevel);
        for step in from..steps {
            let charge = reduced::part_charge(first, u32::from(step), u32::from(steps));
            if stepped && self.passes.saturating_add(charge) > self.pass_limit {
                // (A resumed start holds the `r` of the cut it resumed, and
                // the steps leave it as it is.)
                let kept = slot
                    .as_ref()
                    .filter(|_| resumed)
                    .map(SolveProgress::token)
                    .and_then(|token| self.known_of(token));
                let known = kept.unwrap_or_else(|| self.residual_norm());
                self.refresh_warm_start();
                SolveProgress::save(
                    slot,
                    self,
                    resumed,
                    0,
                    multilevel,
                    0.0,
                    RoundStage::NotStarted,
                );
                let stage = if step == 0 {
                    RoundStage::Checked
                } else {
                    self.hold_setup(slot.as_mut());
                    self.keep_known_and_warm(slot.as_mut(), known);
                    RoundStage::Starting { done: step }
                };
                return Some(CgEnd::CutShort {
                    iterations: 0,
                    known,
                    stage,
                });
            }
            self.precondition_step(multilevel, step);
            self.passes += charge;
            stepped = true;
        }
        self.p_u.copy_from_slice(&self.z_u);
        self.p_t.copy_from_slice(&self.z_t);
        None
    }

    /// A reduced round's start's check (the warm start's evaluation,
    /// [`Self::evaluate`]) in [`Self::build_parts`] parts of the bonds,
    /// each charged an equal share, from part `check_from` (set by the
    /// caller; the parts before it taken again, uncharged, unless
    /// `check_trusted`: this solver kept what they made). Before a part
    /// after the call's first that would pass the limit, the call ends at
    /// [`RoundStage::Checking`], what the parts made kept for the progress
    /// (`setup_steps.rs`) and no bond results reported. Returns the end of
    /// the solve when the check passes, `None` when the start goes on.
    fn check_in_parts(&mut self, inertial: bool, eps: f64) -> Option<CgEnd> {
        let parts = self.build_parts();
        let bonds = self.bonds.len();
        let total = EVALUATION_PASSES * bonds as u64;
        let from = std::mem::take(&mut self.check_from);
        // (A part past the last only from damaged bytes: from the start.)
        let from = if from < parts { from } else { 0 };
        let range = |part: u32| {
            let (k, n) = (part as usize, parts as usize);
            bonds * k / n..bonds * (k + 1) / n
        };
        if from > 0 && std::mem::take(&mut self.check_trusted) && self.take_kept_check() {
            // Goes on from what the parts before made.
        } else {
            #[cfg(test)]
            {
                self.checks_again += u32::from(from > 0);
            }
            self.start_evaluation();
            for part in 0..from {
                self.evaluate_bonds(range(part));
            }
        }
        for part in from..parts {
            let charge = reduced::part_charge(total, part, parts);
            if part > from && self.passes.saturating_add(charge) > self.pass_limit {
                // (The caller saves the progress, then keeps what the parts
                // made for it, `hold_check`.)
                return Some(CgEnd::CutShort {
                    iterations: 0,
                    known: self.rest_residual(),
                    stage: RoundStage::Checking { part },
                });
            }
            self.evaluate_bonds(range(part));
            self.passes += charge;
        }
        let residual = self.finish_evaluation(inertial);
        (residual <= eps).then_some(CgEnd::Done(0, Some(residual)))
    }

    fn preconditioning_steps(&self, multilevel: bool) -> u8 {
        if multilevel {
            self.multilevel.apply_steps()
        } else {
            1
        }
    }

    /// Step `step` of `z = M⁻¹ r` ([`Self::preconditioning_steps`]; the
    /// last writes `z`).
    fn precondition_step(&mut self, multilevel: bool, step: u8) {
        if multilevel {
            self.multilevel
                .apply_step(step, &self.r_u, &self.r_t, &mut self.z_u, &mut self.z_t);
        } else if step == 0 {
            self.precondition(false);
        }
    }

    /// `z = M⁻¹ r` with `M` the stiffness of the spanning forest: subtree
    /// loads flow down to the anchors, then each bond's deformation under
    /// its subtree load is integrated back up.
    fn precondition(&mut self, multilevel: bool) {
        if multilevel {
            self.multilevel
                .apply(&self.r_u, &self.r_t, &mut self.z_u, &mut self.z_t);
            return;
        }
        if !self.forest_parents_made {
            self.forest_parents();
        }
        self.z_u.copy_from_slice(&self.r_u);
        self.z_t.copy_from_slice(&self.r_t);
        // The per-node vectors cut to one length: one bound check per node
        // index (v, then u) instead of one per access.
        let n = self.z_u.len().min(self.z_t.len()).min(self.fixed.len());
        let n = n.min(self.parent.len());
        let (z_u, z_t) = (&mut self.z_u[..n], &mut self.z_t[..n]);
        let (fixed, parent, bonds) = (&self.fixed[..n], &self.parent[..n], &self.bonds);
        // Down: accumulate subtree loads (force, moment about the centroid).
        for &v in self.order.iter().rev() {
            let v = v as usize;
            if fixed[v] {
                continue;
            }
            let lb = &bonds[parent[v] as usize];
            let (u, rv, ru) = lb.seen_from(v);
            let f = z_u[v];
            // Moment of the subtree load about the bond point p.
            let m = z_t[v] - rv.cross(f);
            if !fixed[u] {
                z_u[u] += f;
                z_t[u] += m + ru.cross(f);
            }
            // Store the bond's deformation for the way up.
            z_u[v] = lb.force_inverse(f);
            z_t[v] = lb.moment_inverse(m);
        }
        // Up: parent displacement plus the bond's deformation.
        for &v in self.order.iter() {
            let v = v as usize;
            if fixed[v] {
                continue;
            }
            let lb = &bonds[parent[v] as usize];
            let (u, rv, ru) = lb.seen_from(v);
            let (uu, ut) = if fixed[u] {
                (DVec3::ZERO, DVec3::ZERO)
            } else {
                (z_u[u], z_t[u])
            };
            let theta = ut + z_t[v];
            z_u[v] = uu + ut.cross(ru) + z_u[v] - theta.cross(rv);
            z_t[v] = theta;
        }
    }

    /// Squared residual of node `k` over its weight (and size).
    #[inline]
    fn node_residual2(&self, k: usize) -> f64 {
        self.weighted2(k, &self.r_u, &self.r_t)
    }

    /// Squared force and moment `(u[k], t[k])` of node `k` over its
    /// weight (and size).
    #[inline]
    fn weighted2(&self, k: usize, u: &[DVec3], t: &[DVec3]) -> f64 {
        (u[k].length_squared() * self.inv_w2[k]).max(t[k].length_squared() * self.inv_wl2[k])
    }

    /// The largest over the free nodes of `(u, t)` over the node's weight
    /// (and size); NaN if any is.
    fn largest_weighted(&self, u: &[DVec3], t: &[DVec3]) -> f64 {
        // One pass without branches or an early return (a NaN is noted
        // and answered at the end, the maximum being exact in any order):
        // 50 instructions a node with them.
        let n = self.chunk.len();
        let (fixed, inv_w2, inv_wl2) = (&self.fixed[..n], &self.inv_w2[..n], &self.inv_wl2[..n]);
        let (u, t) = (&u[..n], &t[..n]);
        let mut worst = 0.0f64;
        let mut nan = false;
        for k in 0..n {
            let r = (u[k].length_squared() * inv_w2[k]).max(t[k].length_squared() * inv_wl2[k]);
            let r = if fixed[k] { 0.0 } else { r };
            nan |= r.is_nan();
            // (A NaN `r` never wins; `nan` answers for it.)
            worst = if r > worst { r } else { worst };
        }
        if nan { f64::NAN } else { worst.sqrt() }
    }

    /// `x += α p`, `r −= α q`, and the residual norm of the new `r`
    /// ([`Self::residual_norm`], in the same pass: a second pass over `r`
    /// cost 0.02 ms an update on the refined 100 × 50 × 2 wall).
    fn step_along(&mut self, alpha: f64) -> f64 {
        self.warm_of_x = false;
        let n = self.chunk.len();
        let Self {
            x_u,
            x_t,
            r_u,
            r_t,
            p_u,
            p_t,
            q_u,
            q_t,
            fixed,
            inv_w2,
            inv_wl2,
            ..
        } = self;
        let mut worst = 0.0f64;
        let mut nan = false;
        // Cut to one length: no bound checks in the loop.
        let len = x_u.len();
        let (x_t, r_u, r_t) = (&mut x_t[..len], &mut r_u[..len], &mut r_t[..len]);
        let (p_u, p_t, q_u, q_t) = (&p_u[..len], &p_t[..len], &q_u[..len], &q_t[..len]);
        let n = n.min(len);
        let (fixed, inv_w2, inv_wl2) = (&fixed[..n], &inv_w2[..n], &inv_wl2[..n]);
        for k in 0..len {
            x_u[k] += alpha * p_u[k];
            x_t[k] += alpha * p_t[k];
            r_u[k] -= alpha * q_u[k];
            r_t[k] -= alpha * q_t[k];
            if k < n && !fixed[k] {
                // As `weighted2`.
                let r =
                    (r_u[k].length_squared() * inv_w2[k]).max(r_t[k].length_squared() * inv_wl2[k]);
                nan |= r.is_nan();
                worst = worst.max(r);
            }
        }
        if nan { f64::NAN } else { worst.sqrt() }
    }

    /// The residual at rest (zero displacements, `r = b`): the largest
    /// over the free nodes of the loads over the node's weight (and size):
    /// under gravity alone, |g| / [`STANDARD_GRAVITY`]. What a reduced call
    /// that ends before its round's first iterate reports. Reads `b` (the
    /// loads set); O(nodes).
    pub(super) fn rest_residual(&self) -> f64 {
        self.largest_weighted(&self.b_u, &self.b_t)
    }

    /// The largest node residual over the free nodes (NaN if any is: a
    /// diverged solve must not read as converged).
    fn residual_norm(&self) -> f64 {
        self.largest_weighted(&self.r_u, &self.r_t)
    }

    /// At a cut whose progress (in `slot`, just saved) keeps the solver's
    /// `r` (its residual norm `known`) and `x` (which the warm start
    /// holds when `warm_of_x`): both noted under the progress's token
    /// (given one if it has none) for the call that resumes it
    /// (`known_kept`, `warm_token`).
    fn keep_known_and_warm(&mut self, slot: Option<&mut SolveProgress>, known: f64) {
        let Some(p) = slot else {
            return;
        };
        if p.token() == 0 {
            p.set_token(Self::next_iteration_token());
        }
        self.known_kept = Some((p.token(), known));
        self.warm_token = if self.warm_of_x { p.token() } else { 0 };
    }

    /// The residual norm the last call kept at its cut of the progress
    /// with `token` (see `known_kept`), for a resume holding that cut's
    /// `r` again; taken (one use). `None` for another progress or call.
    fn known_of(&mut self, token: u64) -> Option<f64> {
        let (kept, known) = self.known_ready.take()?;
        if token == 0 || kept != token {
            return None;
        }
        debug_assert_eq!(
            known.to_bits(),
            self.residual_norm().to_bits(),
            "the kept residual norm is not that of the resumed r"
        );
        #[cfg(test)]
        {
            self.known_reused += 1;
        }
        Some(known)
    }

    /// Runs PCG from the warm start in `x`, or from the progress in `slot`
    /// when `resume` (it is the progress of this very solve); returns how
    /// it ended. A cut saves the state into `slot`.
    ///
    /// `start`: how a start (not `resume`) is charged and cut (a reduced
    /// round's, see "Slices" in [`reduced`], or any other solve's).
    fn conjugate_gradient(
        &mut self,
        inertial: bool,
        slot: &mut Option<SolveProgress>,
        resume: bool,
        start: CgStart,
    ) -> CgEnd {
        // Until an iteration is taken back with its warm start, or one
        // is written (see `refresh_warm_start`).
        self.warm_of_x = false;
        let eps = f64::from(self.settings.epsilon);
        let mut total;
        let mut multilevel;
        let mut rz;
        // How far the hierarchy's build at the switch from the forest has
        // come (see the loop).
        let mut switch = RoundStage::NotStarted;
        // Whether this call has taken a step of the solve before its first
        // iteration (a piece of the hierarchy at the switch, a start's
        // preconditioning): it may end before the next.
        let mut stepped = false;
        // The iterations this call takes.
        let mut iterations = 0;
        // The residual of a check that failed, while `x` is still the one
        // checked (its bond results stand).
        let mut checked: Option<f64> = None;
        // The recursive residual of the current `r` once known.
        let mut worst: Option<f64> = None;
        // Resumed inside an iteration: the update's step, whether it
        // polished, and the preconditioning's steps taken.
        let mut halfway: Option<(f64, bool, u8)> = None;
        // Resumed after an update's product (`q` stands), or inside it
        // after this many of its parts (`q` their sum).
        let mut product_ready = false;
        let mut product_from = 0;
        // Resumed before an update's check or inside it: the update (α,
        // polished), the check's parts taken, and whether this solver
        // kept them (see `iteration_steps.rs`).
        let mut pending_check: Option<(f64, bool, u32, bool)> = None;
        // A reduced round's start is two steps: the check (or, from rest,
        // the loads), then the first preconditioning, charged as an
        // iteration with that preconditioner.
        let first_passes = |multilevel: bool| {
            if multilevel {
                MULTILEVEL_ITERATION_PASSES
            } else {
                FOREST_ITERATION_PASSES
            }
        };
        match slot.as_mut().filter(|_| resume) {
            Some(progress) => {
                // The state at the top of the loop, as the last call left it
                // (or, for a round's start cut after its check, `x` and `r`).
                switch = progress.switch_stage();
                if switch != RoundStage::NotStarted {
                    self.trust_build(progress.token());
                }
                let checked_only = progress.checked();
                let token = progress.token();
                let updated = progress.updated();
                let converging = progress
                    .converging()
                    .map(|token| (token, 0))
                    .or(progress.verifying());
                let multiplied = progress.multiplied();
                let multiplying = progress.multiplying();
                (total, multilevel, rz) = progress.restore(self);
                // The `x` restored is the one the warm start holds when the
                // last call's cut said so for this progress.
                if token != 0 && std::mem::take(&mut self.warm_ready) == token {
                    self.warm_of_x = true;
                    #[cfg(test)]
                    {
                        self.warm_resumed += 1;
                    }
                }
                if updated.is_none() && converging.is_none() && checked_only.is_none() {
                    // At the top of the loop, after or inside a product:
                    // the `r` of that cut (a round's start takes it at its
                    // own cut, `first_preconditioning`; inside an
                    // iteration, once the update is back).
                    worst = self.known_of(token);
                }
                if multilevel {
                    self.ensure_hierarchy(inertial);
                }
                // (Only a multilevel iteration is cut after its product;
                // any other stage reading so, from damaged bytes, iterates.)
                if let Some(token) = multiplied.filter(|_| multilevel) {
                    // Cut after an update's product: the state is the
                    // iteration's start. The product this solver kept,
                    // else taken again, uncharged (the call that cut was
                    // charged); the rest of the update is this call's step.
                    if !self.take_held_product(token, 0) {
                        #[cfg(test)]
                        {
                            self.products_again += 1;
                        }
                        self.cg_product(multilevel, &mut worst);
                    }
                    product_ready = true;
                }
                if let Some((token, part)) = multiplying.filter(|_| multilevel) {
                    // Cut inside an update's product, after `part` of its
                    // parts: the state is the iteration's start. Their sum
                    // this solver kept, else those parts taken again,
                    // uncharged; the next part is this call's step (in the
                    // loop). (A part count past the product's, only from
                    // damaged bytes: the product from its start.)
                    let parts = self.product_parts(multilevel, &mut worst);
                    if 0 < part && part < parts {
                        let summed = self.product_bonds(part, parts);
                        if !self.take_held_product(token, summed) {
                            #[cfg(test)]
                            {
                                self.products_again += 1;
                            }
                            for k in 0..part {
                                self.product_part(multilevel, &mut worst, k, parts);
                            }
                        }
                        product_from = part;
                    }
                }
                if let Some((token, done)) = updated {
                    // (A stage past this system's steps comes only from
                    // damaged bytes: its preconditioning is taken whole.)
                    let done = if done < self.preconditioning_steps(multilevel) {
                        done
                    } else {
                        0
                    };
                    // Cut inside an iteration, after its update and `done`
                    // steps of its preconditioning: the state is the
                    // iteration's start. What this solver kept of the
                    // iteration, else the update and those steps taken
                    // again, uncharged (the calls that cut were charged),
                    // bit for bit the same.
                    let update = match self.take_held_update(token, done, 0) {
                        Some((alpha, polished, held)) => {
                            checked = held;
                            (alpha, polished)
                        }
                        None => {
                            let passes = self.passes;
                            let again = self.update_again(
                                multilevel,
                                inertial,
                                rz,
                                &mut worst,
                                &mut checked,
                            );
                            let update = match again {
                                Update::Taken { alpha, polished } => (alpha, polished),
                                Update::Check { alpha, polished } => {
                                    match self.cg_check(alpha, inertial, &mut worst, &mut checked) {
                                        // Only from damaged bytes: the call
                                        // that cut took this update and
                                        // went on.
                                        Some(residual) => return CgEnd::Done(0, Some(residual)),
                                        None => (alpha, polished),
                                    }
                                }
                                Update::Diverged => return CgEnd::Done(0, checked),
                            };
                            for step in 0..done.min(self.preconditioning_steps(multilevel)) {
                                self.precondition_step(multilevel, step);
                            }
                            self.passes = passes;
                            update
                        }
                    };
                    if worst.is_none() {
                        worst = self.known_of(token);
                    }
                    halfway = Some((update.0, update.1, done));
                    // (Saturating: a count decoded from damaged bytes.)
                    total = total.saturating_add(1);
                }
                if let Some((token, verified)) = converging {
                    // Cut after an update within ε, before its check or
                    // after `verified` of its parts: the state is the
                    // iteration's start. The update (and those parts) this
                    // solver kept, else taken again, uncharged; then the
                    // check's parts left, this call's step (below, in
                    // parts: `check_update_in_parts`).
                    let (alpha, polished, check, kept) = match self
                        .take_held_update(token, 0, verified)
                    {
                        // (Held before or inside its check: none failed.)
                        Some((alpha, polished, _)) => (alpha, polished, true, true),
                        None => {
                            let passes = self.passes;
                            let again = self.update_again(
                                multilevel,
                                inertial,
                                rz,
                                &mut worst,
                                &mut checked,
                            );
                            self.passes = passes;
                            match again {
                                Update::Check { alpha, polished } => (alpha, polished, true, false),
                                // Only from damaged bytes: an update short
                                // of ε goes on unchecked.
                                Update::Taken { alpha, polished } => {
                                    (alpha, polished, false, false)
                                }
                                Update::Diverged => return CgEnd::Done(0, checked),
                            }
                        }
                    };
                    total = total.saturating_add(1);
                    if check {
                        pending_check = Some((alpha, polished, verified, kept));
                    } else {
                        halfway = Some((alpha, polished, 0));
                    }
                    stepped = true;
                }
                if let Some(done) = checked_only {
                    // The first preconditioning's steps left (those taken
                    // by earlier calls taken again, uncharged, unless this
                    // solver kept them for this progress).
                    let steps = self.preconditioning_steps(multilevel);
                    let done = if done < steps { done } else { 0 };
                    if done > 0 && !self.trust_setup(token) {
                        #[cfg(test)]
                        {
                            self.starts_again += 1;
                        }
                        for step in 0..done {
                            self.precondition_step(multilevel, step);
                        }
                    }
                    let first = first_passes(multilevel) * self.bonds.len() as u64;
                    if let Some(end) =
                        self.first_preconditioning(multilevel, first, done, false, slot, true)
                    {
                        return end;
                    }
                    rz = dot6(&self.r_u, &self.r_t, &self.z_u, &self.z_t);
                    stepped = true;
                }
            }
            None => {
                // A reduced system skips the forest trial: a forest of
                // single bonds between super-nodes that share a dozen is far
                // softer than the system (the 100×50×2 wall reduced: 8,759
                // iterations with the forest alone, 36 with the hierarchy).
                multilevel = self.settings.preconditioner == Preconditioner::Multilevel
                    || (self.reduced && self.settings.preconditioner == Preconditioner::Auto);
                let mut hierarchy = false;
                // r = b − K x: from a warm start, checked with the bond
                // results themselves (a frame whose answer still holds costs
                // one pass), unless a cheaper residual of the warm start is
                // clearly over ε (`SKIP_CHECK_ABOVE`): the one the last
                // answer implies (`implied_residual`) or, on a reduced
                // system without it, the block product's (`block_residual`).
                // Either differs from the checked one by rounding, so the
                // check could not pass, and a solve ends at the warm start
                // exactly when the checked residual is within ε, whichever
                // way it got there. The iteration then starts from the block
                // product's r on an assembled system, else from the bonds'.
                // From rest, b.
                if self.warm {
                    let cheap = multilevel && !inertial && eps >= SKIP_CHECK_MIN_EPSILON;
                    let mut skip = false;
                    if cheap {
                        if let Some(e) = self.implied_residual() {
                            skip = e > SKIP_CHECK_ABOVE * eps;
                        } else if self.reduced {
                            self.ensure_hierarchy(inertial);
                            hierarchy = true;
                            if self.multilevel.assembled() {
                                self.block_residual();
                                skip = self.residual_norm() > SKIP_CHECK_ABOVE * eps;
                            }
                        }
                        if skip && !hierarchy {
                            self.ensure_hierarchy(inertial);
                            hierarchy = true;
                        }
                        // The iteration's r needs the blocks (or the check).
                        skip &= self.multilevel.assembled();
                    }
                    if skip {
                        // Charged as the check it stands for.
                        self.passes += EVALUATION_PASSES * self.bonds.len() as u64;
                    } else if start == CgStart::Step {
                        // A reduced round's check, in parts.
                        if let Some(end) = self.check_in_parts(inertial, eps) {
                            return end;
                        }
                    } else {
                        let residual = self.evaluate(inertial);
                        if residual <= eps {
                            return CgEnd::Done(0, Some(residual));
                        }
                    }
                    if cheap {
                        if !hierarchy {
                            self.ensure_hierarchy(inertial);
                            hierarchy = true;
                        }
                        if self.multilevel.assembled() {
                            self.block_residual();
                        }
                    }
                    self.stresses.clear();
                } else {
                    self.r_u.copy_from_slice(&self.b_u);
                    self.r_t.copy_from_slice(&self.b_t);
                }
                for k in 0..self.r_u.len() {
                    if self.fixed[k] {
                        self.r_u[k] = DVec3::ZERO;
                        self.r_t[k] = DVec3::ZERO;
                    }
                }
                // Anchored and from rest, `r = b` is exact (the caller's
                // evaluation reports it); a warm start was just checked,
                // and an inertial residual also counts the reference node.
                if !self.warm && !inertial && self.residual_norm() <= eps {
                    return CgEnd::Done(0, None);
                }
                let first = first_passes(multilevel) * self.bonds.len() as u64;
                if multilevel {
                    if !hierarchy {
                        self.ensure_hierarchy(inertial);
                    }
                    if start == CgStart::Whole {
                        self.passes += HIERARCHY_BUILD_PASSES * self.bonds.len() as u64;
                    }
                }
                if start == CgStart::Step {
                    // In steps, the check being this call's step.
                    if let Some(end) =
                        self.first_preconditioning(multilevel, first, 0, true, slot, false)
                    {
                        return end;
                    }
                } else {
                    self.precondition(multilevel);
                    self.p_u.copy_from_slice(&self.z_u);
                    self.p_t.copy_from_slice(&self.z_t);
                }
                rz = dot6(&self.r_u, &self.r_t, &self.z_u, &self.z_t);
                total = 0;
            }
        }
        // A reduced round's start is a step of its own: the call may end
        // before the first iteration.
        let started = !resume && start == CgStart::Step;
        let bonds = self.bonds.len() as u64;
        // Ends the call before its next step: the state at the top of the
        // loop is saved to resume from (a restart begins from it as the
        // warm start), and a call cut short reports no bond results.
        macro_rules! cut_short {
            () => {{
                let known = worst.unwrap_or_else(|| self.residual_norm());
                self.refresh_warm_start();
                SolveProgress::save(slot, self, resume, total, multilevel, rz, switch);
                if switch != RoundStage::NotStarted {
                    self.hold_build(slot.as_mut());
                }
                // The progress keeps the `r` and `x` the resume holds again.
                self.keep_known_and_warm(slot.as_mut(), known);
                if checked.is_some() {
                    self.stresses.clear();
                }
                return CgEnd::CutShort {
                    iterations,
                    known,
                    stage: RoundStage::Iterating,
                };
            }};
        }
        // Ends the call after an update's product, before the rest of the
        // update: the progress at the iteration's start (which the product
        // left as it was; `total` iterations before it), and `q` kept for
        // the next call (see `iteration_steps.rs`).
        macro_rules! cut_multiplied {
            () => {{
                let known = worst.unwrap_or_else(|| self.residual_norm());
                self.refresh_warm_start();
                let token = Self::next_iteration_token();
                let stage = RoundStage::Multiplied;
                SolveProgress::save(slot, self, resume, total, multilevel, rz, stage);
                if let Some(p) = slot.as_mut() {
                    p.set_token(token);
                }
                self.keep_known_and_warm(slot.as_mut(), known);
                self.hold_product(token, 0);
                return CgEnd::CutShort {
                    iterations,
                    known,
                    stage,
                };
            }};
        }
        // Ends the call inside an update's product, after `part` of its
        // `parts` parts: as after the whole product, the progress at the
        // iteration's start, and the parts' sum `q` kept.
        macro_rules! cut_multiplying {
            ($part:expr, $parts:expr) => {{
                let known = worst.unwrap_or_else(|| self.residual_norm());
                self.refresh_warm_start();
                let token = Self::next_iteration_token();
                let stage = RoundStage::Multiplying { part: $part };
                SolveProgress::save(slot, self, resume, total, multilevel, rz, stage);
                if let Some(p) = slot.as_mut() {
                    p.set_token(token);
                }
                self.keep_known_and_warm(slot.as_mut(), known);
                self.hold_product(token, self.product_bonds($part, $parts));
                return CgEnd::CutShort {
                    iterations,
                    known,
                    stage,
                };
            }};
        }
        // Ends the call inside an iteration, after its update (`alpha`,
        // `polished`), at `stage`: the progress at the iteration's start
        // (copied aside before the update), and the update kept for the
        // next call, with its check when that failed (see
        // `iteration_steps.rs`).
        macro_rules! cut_inside {
            ($stage:expr, $alpha:expr, $polished:expr) => {
                cut_inside!($stage, $alpha, $polished, 0)
            };
            ($stage:expr, $alpha:expr, $polished:expr, $verified:expr) => {{
                let known = worst.unwrap_or_else(|| self.residual_norm());
                // A restart begins from the update.
                self.refresh_warm_start();
                let token = Self::next_iteration_token();
                let stage = $stage;
                SolveProgress::save(slot, self, resume, total - 1, multilevel, rz, stage);
                if let Some(p) = slot.as_mut() {
                    p.set_token(token);
                }
                // (Not inside or before the update's check: the `r` a
                // resume holds there depends on what it takes back.)
                if matches!(
                    stage,
                    RoundStage::Updated
                        | RoundStage::Cycling { .. }
                        | RoundStage::Restricted
                        | RoundStage::Coarsened
                ) {
                    self.known_kept = Some((token, known));
                }
                self.hold_update(KeptIteration {
                    token,
                    alpha: $alpha,
                    polished: $polished,
                    hierarchy: self.multilevel.changes(),
                    checked,
                    product: false,
                    product_bonds: 0,
                    verified: $verified,
                    warm: self.warm_of_x,
                });
                return CgEnd::CutShort {
                    iterations,
                    known,
                    stage,
                };
            }};
        }
        // The check of an update resumed before it or inside it, in parts
        // (one on a system of one part): the call may end between them.
        if let Some((alpha, polished, from, kept)) = pending_check.take() {
            // A call cut inside reports the update's recursive residual,
            // whether the update was kept or taken again (kept inside its
            // check, it is in `z`, `r` being the check's so far).
            worst = Some(if kept && from > 0 {
                self.largest_weighted(&self.z_u, &self.z_t)
            } else {
                self.residual_norm()
            });
            match self.check_update_in_parts(alpha, inertial, &mut worst, &mut checked, from, kept)
            {
                CheckEnd::Passed(residual) => return CgEnd::Done(0, Some(residual)),
                CheckEnd::Failed => halfway = Some((alpha, polished, 0)),
                CheckEnd::Cut(part) => {
                    cut_inside!(RoundStage::Verifying { part }, alpha, polished, part)
                }
            }
        }
        while total < self.settings.max_iterations {
            let (alpha, polished, mut done) = match halfway.take() {
                // Resumed inside an iteration.
                Some(update) => update,
                None => {
                    // (At or past the trial: a progress decoded from
                    // damaged bytes may hold more forest iterations than
                    // the trial, and must switch all the same rather than
                    // go on with the forest alone.)
                    let switching = total >= FOREST_TRIAL
                        && self.settings.preconditioner == Preconditioner::Auto;
                    // The forest is not enough: the hierarchy's build, piece
                    // by piece, each a step the call may end before (after
                    // a step at least), charged whether or not the solver
                    // still holds what an earlier call built (rebuilt
                    // uncharged, as a reduced round's; see "Slices" in
                    // [`reduced`]). Built in one call, it took 14 ms on the
                    // 100 × 50 × 2 wall after a break.
                    if switching && !multilevel {
                        let parts = self.build_parts();
                        let done = switch.hierarchy_place();
                        for (k, (piece, share)) in reduced::HIERARCHY_STEPS.into_iter().enumerate()
                        {
                            for part in 0..parts {
                                if (k, part) < done {
                                    continue;
                                }
                                let build = reduced::part_charge(share * bonds, part, parts);
                                if (iterations > 0 || started || stepped)
                                    && self.passes.saturating_add(build) > self.pass_limit
                                {
                                    cut_short!();
                                }
                                self.hierarchy_through(inertial, piece, part + 1);
                                self.passes += build;
                                stepped = true;
                                switch = RoundStage::building(k, part + 1, parts);
                            }
                        }
                    }
                    if !multilevel && switching {
                        // Restart with the hierarchy (charged above; what
                        // the solver lost of it since is built again here):
                        // its first preconditioning, a step too, charged as
                        // an iteration with it (about a V-cycle and a
                        // product).
                        let first = MULTILEVEL_ITERATION_PASSES * bonds;
                        if (iterations > 0 || started || stepped)
                            && self.passes.saturating_add(first) > self.pass_limit
                        {
                            cut_short!();
                        }
                        multilevel = true;
                        switch = RoundStage::NotStarted;
                        self.ensure_hierarchy(inertial);
                        self.precondition(true);
                        self.p_u.copy_from_slice(&self.z_u);
                        self.p_t.copy_from_slice(&self.z_t);
                        rz = dot6(&self.r_u, &self.r_t, &self.z_u, &self.z_t);
                        self.passes += first;
                        stepped = true;
                    }
                    let (update, preconditioning) = iteration_shares(multilevel);
                    // On a system of more than one part the update's
                    // product is a step of its own, the rest another
                    // (`MULTILEVEL_PRODUCT_PASSES`); the check after it is
                    // a third (below), so neither reserves room for it.
                    let apart = multilevel && self.build_parts() > 1;
                    let product = if apart { MULTILEVEL_PRODUCT_PASSES } else { 0 };
                    // Whether `q` stands for this update (taken by this
                    // call as a step of its own, or resumed after it).
                    let multiplied = std::mem::take(&mut product_ready);
                    if !multiplied && apart {
                        // Stop before the product's first part that would
                        // pass the work limit (but take one step at
                        // least): before the first, at the iteration's
                        // start; before a later one (a product in double
                        // precision, in parts), inside the product.
                        let parts = self.product_parts(multilevel, &mut worst);
                        let from = std::mem::take(&mut product_from);
                        for part in from.min(parts)..parts {
                            let charge = self.product_charge(part, parts);
                            if (iterations > 0 || started || stepped)
                                && self.passes.saturating_add(charge) > self.pass_limit
                            {
                                if part == 0 {
                                    cut_short!();
                                }
                                cut_multiplying!(part, parts);
                            }
                            self.product_part(multilevel, &mut worst, part, parts);
                            self.passes += charge;
                            stepped = true;
                        }
                        // The rest of the update: the call may end before
                        // it (the progress at the iteration's start, the
                        // product kept).
                        if self.passes.saturating_add((update - product) * bonds) > self.pass_limit
                        {
                            cut_multiplied!();
                        }
                    } else if !multiplied
                        && (iterations > 0 || started || stepped)
                        && self
                            .passes
                            .saturating_add((update + EVALUATION_PASSES) * bonds)
                            > self.pass_limit
                    {
                        // Stop before an update that, with the final
                        // evaluation, would pass the work limit (but take
                        // one step at least).
                        cut_short!();
                    }
                    // A call that may end inside the iteration keeps its
                    // start aside for its progress.
                    if self.passes.saturating_add(
                        (update - product + EVALUATION_PASSES + preconditioning) * bonds,
                    ) > self.pass_limit
                    {
                        self.keep_iteration_start();
                    }
                    self.passes += (update - product) * bonds;
                    if !(multiplied || apart) {
                        self.cg_product(multilevel, &mut worst);
                    }
                    let (alpha, polished) =
                        match self.cg_step(multilevel, inertial, rz, &mut worst, &mut checked) {
                            // Also a solve that diverged past the rounding
                            // floor (an ε it cannot reach).
                            Update::Diverged => break,
                            Update::Taken { alpha, polished } => (alpha, polished),
                            Update::Check { alpha, polished } => {
                                // On a system of more than one part
                                // (`build_parts`) the check is a step of
                                // its own: a call whose first step was the
                                // update may end before it (any other had
                                // room for both), the progress at the
                                // iteration's start and the update kept,
                                // as inside the preconditioning. (On the
                                // 100 × 50 × 2 wall refined the update and
                                // the check took 1.3–1.6 ms together.)
                                let check = EVALUATION_PASSES * bonds;
                                if self.build_parts() > 1
                                    && self.passes.saturating_add(check) > self.pass_limit
                                {
                                    iterations += 1;
                                    total += 1;
                                    cut_inside!(RoundStage::Converging, alpha, polished);
                                }
                                match self.cg_check(alpha, inertial, &mut worst, &mut checked) {
                                    Some(residual) => {
                                        return CgEnd::Done(iterations + 1, Some(residual));
                                    }
                                    None => (alpha, polished),
                                }
                            }
                        };
                    iterations += 1;
                    total += 1;
                    if !multilevel
                        && total >= FOREST_TRIAL
                        && self.settings.preconditioner == Preconditioner::Auto
                    {
                        // The next iteration restarts with the hierarchy
                        // (top of the loop): no forest step to prepare.
                        continue;
                    }
                    (alpha, polished, 0)
                }
            };
            // The iteration's preconditioning, in steps (the cycle's; one
            // with the forest), its passes shared among them. Before a step
            // that would pass the limit the call ends, the progress at the
            // iteration's start and what the iteration made kept (see
            // `solver/iteration_steps.rs`).
            let steps = self.preconditioning_steps(multilevel);
            let share = iteration_shares(multilevel).1;
            while done < steps {
                let (k, n) = (u64::from(done), u64::from(steps));
                let charge = (share * (k + 1) / n - share * k / n) * bonds;
                if (iterations > 0 || started || stepped)
                    && self.passes.saturating_add(charge) > self.pass_limit
                {
                    cut_inside!(RoundStage::after_preconditioning(done), alpha, polished);
                }
                self.precondition_step(multilevel, done);
                self.passes += charge;
                stepped = true;
                done += 1;
            }
            let rz_new = dot6(&self.r_u, &self.r_t, &self.z_u, &self.z_t);
            // The multilevel cycle is not a fixed linear operator (its
            // K-cycle weights depend on r), so its β is the flexible
            // (Polak–Ribière) one, z_new·(r_new − r_old) / rz, written with
            // r_old = r_new + α q; with the forest, the plain one.
            let beta = if polished {
                0.0
            } else if multilevel {
                -alpha * dot6(&self.z_u, &self.z_t, &self.q_u, &self.q_t) / rz
            } else {
                rz_new / rz
            };
            // A degenerate step (rz = 0) restarts from steepest descent.
            let beta = if beta.is_finite() { beta } else { 0.0 };
            rz = rz_new;
            for k in 0..self.p_u.len() {
                self.p_u[k] = self.z_u[k] + beta * self.p_u[k];
                self.p_t[k] = self.z_t[k] + beta * self.p_t[k];
            }
        }
        CgEnd::Done(iterations, checked)
    }

    /// An iteration's update, its first step (see
    /// `solver/iteration_steps.rs`), is this product `q = K p`, then
    /// [`Self::cg_step`]. The product changes nothing else of the state,
    /// so a call may end after it ([`RoundStage::Multiplied`]). `worst` is
    /// the residual norm of `r` when known.
    fn cg_product(&mut self, multilevel: bool, worst: &mut Option<f64>) {
        if !(self.far_from_epsilon(multilevel, worst)
            && self
                .multilevel
                .single_product(&self.p_u, &self.p_t, &mut self.q_u, &mut self.q_t))
        {
            self.apply_stiffness(multilevel);
        }
    }

    /// Whether an update's product may be the smoothing's single-precision
    /// one: far from ε (see `SINGLE_PRECISION_ABOVE`). The residual
    /// decides, so a resumed slice decides as one call would.
    fn far_from_epsilon(&self, multilevel: bool, worst: &mut Option<f64>) -> bool {
        let eps = f64::from(self.settings.epsilon);
        multilevel
            && *worst.get_or_insert_with(|| self.residual_norm()) > SINGLE_PRECISION_ABOVE * eps
    }

    /// How many parts an update's product on a system of more than one
    /// part is taken in: [`Self::build_parts`] when it is the
    /// double-precision product over the bonds (near ε, or without a
    /// single-precision one; not an assembled level's), else one.
    fn product_parts(&self, multilevel: bool, worst: &mut Option<f64>) -> u32 {
        let single =
            self.far_from_epsilon(multilevel, worst) && self.multilevel.has_single_product();
        if single || (multilevel && self.multilevel.assembled()) {
            1
        } else {
            self.build_parts()
        }
    }

    /// The passes charged for part `part` of an update's product in
    /// `parts` parts ([`Self::product_parts`]).
    fn product_charge(&self, part: u32, parts: u32) -> u64 {
        let bonds = self.bonds.len() as u64;
        if parts > 1 {
            reduced::part_charge(MULTILEVEL_EXACT_PRODUCT_PASSES * bonds, part, parts)
        } else {
            MULTILEVEL_PRODUCT_PASSES * bonds
        }
    }

    /// The bonds the first `part` of an update's product in `parts` parts
    /// sum over (the parts are those ranges of the bonds in order).
    fn product_bonds(&self, part: u32, parts: u32) -> usize {
        let n = self.bonds.len();
        n * part as usize / parts.max(1) as usize
    }

    /// Part `part` of an update's product in `parts` parts, after those
    /// before it ([`Self::product_parts`]; one part is
    /// [`Self::cg_product`]): the parts in order are bit for bit the whole
    /// product.
    fn product_part(&mut self, multilevel: bool, worst: &mut Option<f64>, part: u32, parts: u32) {
        if parts <= 1 {
            self.cg_product(multilevel, worst);
            return;
        }
        if part == 0 {
            self.q_u.iter_mut().for_each(|v| *v = DVec3::ZERO);
            self.q_t.iter_mut().for_each(|v| *v = DVec3::ZERO);
        }
        add_bond_products(
            &self.bonds[self.product_bonds(part, parts)..self.product_bonds(part + 1, parts)],
            &self.p_u,
            &self.p_t,
            &mut self.q_u,
            &mut self.q_t,
        );
        if part + 1 == parts {
            clear_fixed(&self.fixed, &mut self.q_u, &mut self.q_t);
        }
    }

    /// An update after its product ([`Self::cg_product`]): `α = rz / pᵀq`,
    /// `x += α p`, `r −= α q`, then near ε a polish, and within ε the
    /// check with the bond forces themselves. `checked` is the residual
    /// of a check that failed while `x` is still the one checked (its bond
    /// results stand).
    fn cg_step(
        &mut self,
        multilevel: bool,
        inertial: bool,
        rz: f64,
        worst: &mut Option<f64>,
        checked: &mut Option<f64>,
    ) -> Update {
        let eps = f64::from(self.settings.epsilon);
        let pq = dot6(&self.p_u, &self.p_t, &self.q_u, &self.q_t);
        let alpha = rz / pq;
        if !(pq > 0.0 && alpha.is_finite()) {
            // Also a solve that diverged past the rounding floor (an ε it
            // cannot reach): its products overflowed, and a step would
            // make x NaN.
            return Update::Diverged;
        }
        if checked.take().is_some() {
            self.stresses.clear();
        }
        let mut norm = self.step_along(alpha);
        // Near ε on an assembled system: a Gauss–Seidel step at the nodes
        // still over ε (see `POLISH_BELOW`), after which the conjugate
        // gradient restarts (β = 0).
        let mut polished = false;
        if multilevel
            && !inertial
            && norm > eps
            && norm <= POLISH_BELOW * eps
            && self.multilevel.assembled()
            && self.polish(eps)
        {
            polished = true;
            norm = self.residual_norm();
        }
        *worst = Some(norm);
        if norm <= eps && (!inertial || self.reference_residual() <= eps) {
            return Update::Check { alpha, polished };
        }
        Update::Taken { alpha, polished }
    }

    /// At a resume inside an iteration whose update this solver did not
    /// keep: the iteration's start set aside (as the call that cut set
    /// it), and its update taken again. The caller leaves it uncharged
    /// (the call that cut was charged for it).
    fn update_again(
        &mut self,
        multilevel: bool,
        inertial: bool,
        rz: f64,
        worst: &mut Option<f64>,
        checked: &mut Option<f64>,
    ) -> Update {
        #[cfg(test)]
        {
            self.updates_again += 1;
        }
        self.keep_iteration_start();
        self.cg_product(multilevel, worst);
        self.cg_step(multilevel, inertial, rz, worst, checked)
    }

    /// The check of an update whose residual came within ε
    /// ([`Update::Check`]), with the bond forces themselves: the residual
    /// when it is within ε too (the solve converged). Short of ε, the
    /// iteration goes on from that residual (residual replacement: the
    /// recursive one has drifted from it), and `q` takes the drift,
    /// `r_new − r_old = −α q`, so the flexible β stays exact; `z` holds
    /// the recursive `r` meanwhile (the preconditioner overwrites it
    /// next). Charged as an evaluation.
    fn cg_check(
        &mut self,
        alpha: f64,
        inertial: bool,
        worst: &mut Option<f64>,
        checked: &mut Option<f64>,
    ) -> Option<f64> {
        self.start_check();
        self.refresh_warm_start();
        let residual = self.evaluate(inertial);
        self.end_check(alpha, residual, worst, checked)
    }

    /// [`Self::cg_check`]'s start: the update's non-finite entries at
    /// rest, and its recursive `r` in `z`. (Then the update is stored as
    /// the warm start, [`Self::write_warm_start`], before the evaluation
    /// ends: in parts, by the call that takes the last part, which a
    /// warm start set between the calls does not change.)
    fn start_check(&mut self) {
        self.zero_non_finite_x();
        self.z_u.copy_from_slice(&self.r_u);
        self.z_t.copy_from_slice(&self.r_t);
    }

    /// [`Self::cg_check`]'s end, the bond forces' `residual` taken: that
    /// residual when within ε, else (`None`) the residual replacement.
    fn end_check(
        &mut self,
        alpha: f64,
        residual: f64,
        worst: &mut Option<f64>,
        checked: &mut Option<f64>,
    ) -> Option<f64> {
        let eps = f64::from(self.settings.epsilon);
        if residual <= eps {
            return Some(residual);
        }
        *checked = Some(residual);
        *worst = None;
        for k in 0..self.r_u.len() {
            if self.fixed[k] {
                self.r_u[k] = DVec3::ZERO;
                self.r_t[k] = DVec3::ZERO;
            }
            self.q_u[k] -= (self.r_u[k] - self.z_u[k]) / alpha;
            self.q_t[k] -= (self.r_t[k] - self.z_t[k]) / alpha;
        }
        None
    }

    /// The Gauss–Seidel steps of [`POLISH_BELOW`]: sweeps of one step at
    /// every free node whose residual is over ε, in ascending order, until
    /// none is, or until the next sweep would take the steps past the
    /// node count (so a polish costs at most about one block product). A
    /// sweep changes `r` only at the nodes it steps and their neighbours,
    /// so only those are measured again: every other node stays within ε.
    /// False (nothing done) unless the finest level is assembled.
    fn polish(&mut self, eps: f64) -> bool {
        self.warm_of_x = false;
        let limit = eps * eps;
        self.polish_nodes.clear();
        for k in 0..self.chunk.len() {
            if !self.fixed[k] && self.node_residual2(k) > limit {
                self.polish_nodes.push(k as u32);
            }
        }
        let mut steps = 0;
        while !self.polish_nodes.is_empty() && steps + self.polish_nodes.len() <= self.chunk.len() {
            if !self.multilevel.polish(
                &self.polish_nodes,
                &mut self.x_u,
                &mut self.x_t,
                &mut self.r_u,
                &mut self.r_t,
                &mut self.polish_touched,
            ) {
                return false;
            }
            steps += self.polish_nodes.len();
            self.polish_nodes.clear();
            for &k in &self.polish_touched {
                if !self.fixed[k as usize] && self.node_residual2(k as usize) > limit {
                    self.polish_nodes.push(k);
                }
            }
        }
        steps > 0
    }

    /// `r = b − K x` by the assembled blocks (the hierarchy standing on an
    /// assembled level 1): a few block products per node instead of every
    /// bond's forces (on the reduced 100 × 50 × 2 wall, 8,572 bonds between
    /// 360 super-nodes). Not charged: the warm start's check it follows (or
    /// stands for) is.
    fn block_residual(&mut self) {
        self.multilevel
            .product(&self.x_u, &self.x_t, &mut self.q_u, &mut self.q_t);
        for k in 0..self.r_u.len() {
            self.r_u[k] = self.b_u[k] - self.q_u[k];
            self.r_t[k] = self.b_t[k] - self.q_t[k];
        }
    }

    /// The residual the last evaluated answer implies for this solve's
    /// loads, `b − (K x)_last` over the free nodes, where `(K x)_last` was
    /// kept by that evaluation and updated for the bonds taken out of the
    /// kept system since (`drop_broken`); `None` unless it stands for
    /// this system (a reduced one, the same nodes) and its warm start.
    /// Differs from the residual checked at the warm start by rounding
    /// only (the warm start is that answer, re-derived per chunk).
    fn implied_residual(&self) -> Option<f64> {
        if !(self.reduced && self.kx_valid && self.kx_u.len() == self.b_u.len()) {
            return None;
        }
        let mut worst = 0.0f64;
        for k in 0..self.chunk.len() {
            if !self.fixed[k] {
                let (du, dt) = (self.b_u[k] - self.kx_u[k], self.b_t[k] - self.kx_t[k]);
                worst = worst.max(
                    (du.length_squared() * self.inv_w2[k])
                        .max(dt.length_squared() * self.inv_wl2[k]),
                );
            }
        }
        Some(worst.sqrt())
    }

    /// An inertial solve's reference node (node 0, held fixed) as the free
    /// nodes' recursive residuals imply it, relative to its weight: bond
    /// forces sum to zero in force and in moment, so node 0 is left with
    /// the loads' total less the other nodes' residuals, `r₀ = Σ b −
    /// Σ_{k≠0} r_k` (moments about node 0's centre).
    fn reference_residual(&self) -> f64 {
        let c0 = self.centroid[0];
        let (mut f, mut t) = (DVec3::ZERO, DVec3::ZERO);
        for k in 0..self.chunk.len() {
            let (mut du, mut dt) = (self.b_u[k], self.b_t[k]);
            if k != 0 {
                du -= self.r_u[k];
                dt -= self.r_t[k];
            }
            f += du;
            t += dt + (self.centroid[k] - c0).cross(du);
        }
        (f.length_squared() * self.inv_w2[0])
            .max(t.length_squared() * self.inv_wl2[0])
            .sqrt()
    }

    /// Builds the multilevel hierarchy unless it stands for this structure
    /// and mode (a reduced solve's: unless it was built from this very
    /// reduced system, bit for bit), finishing a build in pieces begun
    /// over it.
    fn ensure_hierarchy(&mut self, inertial: bool) {
        self.hierarchy_through(inertial, HierarchyPiece::Levels, u32::MAX);
    }

    /// Brings the multilevel hierarchy of this structure and mode through
    /// `parts` parts of `piece` of its build (`multilevel/build.rs`; all of
    /// them for `u32::MAX`): the parts a build in pieces begun over this
    /// very system has left up to there, or, when none is under way and
    /// the hierarchy does not stand, a new build (or update) through there,
    /// its pieces in [`Self::build_parts`] parts.
    fn hierarchy_through(&mut self, inertial: bool, piece: HierarchyPiece, parts: u32) {
        let whole = piece == HierarchyPiece::Levels && parts == u32::MAX;
        self.start_hierarchy(inertial, whole);
        while let Some(next) = self.multilevel.pending_piece() {
            if next >= (piece, parts) {
                break;
            }
            self.multilevel.build_part(&self.bonds, Some(&self.old_of));
        }
        if self.multilevel.pending_piece().is_none() {
            self.hierarchy_synced = true;
        }
    }

    /// The first piece of the hierarchy's build (with `whole`, all of
    /// them), unless it stands (see [`Self::ensure_hierarchy`]) or a build
    /// in pieces over this very system is under way.
    fn start_hierarchy(&mut self, inertial: bool, whole: bool) {
        let mode = if inertial {
            SolveMode::Inertial
        } else {
            SolveMode::Anchored
        };
        // (Trusted: kept for the progress this call resumes, see
        // `setup_steps.rs`.)
        #[cfg(test)]
        if !self.build_trusted && self.multilevel.pending_piece().is_some() {
            self.builds_compared += 1;
        }
        let pending = if self.build_trusted {
            self.multilevel.pending_piece().is_some()
        } else {
            self.multilevel
                .pending_on(&self.centroid, &self.fixed, &self.bonds)
                .is_some()
        };
        if pending {
            // Over this system: the call's next parts need not compare.
            self.build_trusted = true;
            return;
        }
        let stands = if self.reduced {
            // A reduced system is not keyed like the fine structure: the
            // hierarchy stands when it was built from this very system (a
            // sliced reduced solve resuming, bit for bit a rebuild's); the
            // record of `hierarchy_synced` says so of the bonds.
            if self.hierarchy_synced && self.hierarchy_removed.is_empty() {
                self.multilevel.built_on(&self.centroid, &self.fixed)
            } else {
                self.multilevel
                    .built_from(&self.centroid, &self.fixed, &self.bonds)
            }
        } else {
            self.hierarchy_mode == Some(mode)
        };
        if !stands {
            // Bonds gone from an assembled system: its rows summed again
            // (`multilevel::update`); otherwise a reduced system reuses the
            // rows of the super-nodes that stand (`multilevel::rebuild`),
            // and anything else is built.
            let updated = self.hierarchy_synced
                && self
                    .multilevel
                    .update(&self.centroid, &self.fixed, &self.hierarchy_removed);
            if !updated {
                if self.reduced {
                    if !self.regrouped {
                        // The same super-nodes (bonds broke that the update
                        // cannot take): each is its own counterpart.
                        self.old_of.clear();
                        self.old_of.extend(0..self.centroid.len() as u32);
                    }
                    let changed = if self.split_trusted {
                        self.split_changed.sort_unstable();
                        self.split_changed.dedup();
                        Some(self.split_changed.as_slice())
                    } else {
                        None
                    };
                    if whole {
                        self.multilevel.rebuild(
                            &self.centroid,
                            &self.fixed,
                            &self.bonds,
                            &self.old_of,
                            changed,
                        );
                    } else {
                        let parts = self.build_parts();
                        self.multilevel.start_rebuild(
                            &self.centroid,
                            &self.fixed,
                            &self.bonds,
                            &self.old_of,
                            changed,
                            parts,
                        );
                    }
                } else if whole {
                    self.multilevel
                        .build(&self.centroid, &self.fixed, &self.bonds);
                } else {
                    let parts = self.build_parts();
                    self.multilevel.start_build(
                        &self.centroid,
                        &self.fixed,
                        &self.bonds,
                        false,
                        parts,
                    );
                }
            }
            self.regrouped = false;
            self.hierarchy_mode = (!self.reduced).then_some(mode);
        }
        // In step with the bonds once built; a build under way is not (a
        // change of the bonds starts another), but is over this system for
        // the rest of the call (`reduce` and a gather drop that).
        self.hierarchy_synced = self.multilevel.pending_piece().is_none();
        self.build_trusted = !self.hierarchy_synced;
        self.hierarchy_removed.clear();
        self.split_trusted = false;
    }

    /// Stores `x` as the warm start of its chunks (a super-node's members
    /// move with it). A node whose `x` is not finite (a solve that diverged
    /// past its rounding floor) leaves its chunks at rest: a warm start is
    /// always finite, so the solver takes its own back
    /// ([`Self::set_warm_start`]).
    fn store_warm_start(&mut self) {
        self.zero_non_finite_x();
        self.write_warm_start();
    }

    /// The non-finite entries of `x` set to zero (their chunks at rest).
    fn zero_non_finite_x(&mut self) {
        self.warm_of_x = false;
        for k in 0..self.chunk.len() {
            if !(self.x_u[k].is_finite() && self.x_t[k].is_finite()) {
                self.x_u[k] = DVec3::ZERO;
                self.x_t[k] = DVec3::ZERO;
            }
        }
    }

    /// [`Self::store_warm_start`] without setting the non-finite entries
    /// of `x` to zero (they leave their chunks at rest all the same): at a
    /// cut, whose progress keeps `x` as it is.
    fn write_warm_start(&mut self) {
        self.kx_valid = false;
        self.warm_of_x = true;
        self.expand_warm_start::<false>();
    }

    /// Each chunk's warm start from `x` (a super-node's members move with
    /// it): stored, or with `CHECK` only compared with the one held, bit
    /// for bit (whether they all equal; a debug check of
    /// [`Self::warm_of_x`] that allocates nothing).
    fn expand_warm_start<const CHECK: bool>(&mut self) -> bool {
        // Split borrows, each slice cut to the nodes: the stores into the
        // warm start then reload no vector (through `self`, a call wrote
        // the 10,000 chunks of the refined 100 × 50 × 2 wall in 1.35 M
        // instructions, a fifth of a cut's).
        let n = self.chunk.len();
        let Self {
            chunk,
            fixed,
            x_u,
            x_t,
            centroid,
            node_of,
            fine_chunk,
            fine_centroid,
            warm_u,
            warm_t,
            reduced,
            ..
        } = self;
        let (fixed, x_u, x_t, centroid) = (&fixed[..n], &x_u[..n], &x_t[..n], &centroid[..n]);
        let at = |k: usize| {
            let (u, t) = (x_u[k], x_t[k]);
            if fixed[k] || !(u.is_finite() && t.is_finite()) {
                (DVec3::ZERO, DVec3::ZERO)
            } else {
                (u, t)
            }
        };
        let mut same = true;
        let mut put = |c: usize, u: DVec3, t: DVec3| {
            if CHECK {
                same &= same_vectors(&[warm_u[c], warm_t[c]], &[u, t]);
            } else {
                warm_u[c] = u;
                warm_t[c] = t;
            }
        };
        if *reduced {
            // In fine order (the chunks ascending), which reads and writes
            // in order: by super-node, it took 0.09 ms a cut on the refined
            // 100 × 50 × 2 wall.
            debug_assert_eq!(node_of.len(), fine_chunk.len() + 1);
            let members = node_of
                .iter()
                .zip(fine_chunk.iter())
                .zip(fine_centroid.iter());
            for ((&k, &c), &at_member) in members {
                let k = k as usize;
                if k >= n {
                    continue;
                }
                let (u, t) = at(k);
                put(c.0 as usize, u + t.cross(at_member - centroid[k]), t);
            }
        } else {
            for (k, &c) in chunk.iter().enumerate() {
                let (u, t) = at(k);
                put(c.0 as usize, u, t);
            }
        }
        same
    }

    /// [`Self::write_warm_start`] at a cut inside the iteration, unless
    /// the warm start holds `x` already ([`Self::warm_of_x`]): between an
    /// update and the next, an iteration's cuts (its product, its parts,
    /// the cycle's steps) found `x` unchanged and wrote the same warm start
    /// each time (1.1–1.3 M instructions of a cut's 6 M on the refined
    /// 100 × 50 × 2 wall).
    fn refresh_warm_start(&mut self) {
        if self.warm_of_x {
            debug_assert!(
                self.expand_warm_start::<true>(),
                "a warm start kept is not x's"
            );
            #[cfg(test)]
            {
                self.warm_kept += 1;
            }
            self.kx_valid = false;
        } else {
            self.write_warm_start();
        }
    }

    /// Writes the bond results of `x` and returns the residual of the
    /// reported forces (including the reference node's reaction in
    /// inertial mode, which should be zero); leaves `r = b − K x` (the
    /// reactions on fixed nodes).
    fn evaluate(&mut self, inertial: bool) -> f64 {
        self.passes += EVALUATION_PASSES * self.bonds.len() as u64;
        self.start_evaluation();
        self.evaluate_bonds(0..self.bonds.len());
        self.finish_evaluation(inertial)
    }

    /// [`Self::evaluate`]'s start: no bond results, `r = b`.
    fn start_evaluation(&mut self) {
        self.stresses.clear();
        // r = b − K x, accumulated from exactly the forces reported.
        self.r_u.copy_from_slice(&self.b_u);
        self.r_t.copy_from_slice(&self.b_t);
    }

    /// [`Self::evaluate`] of the bonds `bonds` (after those before them):
    /// their results, and their forces taken from `r`.
    fn evaluate_bonds(&mut self, bonds: std::ops::Range<usize>) {
        // Split borrows: the stores into `r` cannot alias the results.
        let (x_u, x_t, sections) = (&self.x_u, &self.x_t, &self.bond_sections);
        let (r_u, r_t) = (&mut self.r_u, &mut self.r_t);
        // One length for the four: one bound check per end.
        let n = x_u.len().min(x_t.len()).min(r_u.len()).min(r_t.len());
        let (x_u, x_t, r_u, r_t) = (&x_u[..n], &x_t[..n], &mut r_u[..n], &mut r_t[..n]);
        self.stresses.extend(self.bonds[bonds].iter().map(|lb| {
            let (f, m) = bond_load(lb, x_u, x_t);
            let (a, b) = (lb.a as usize, lb.b as usize);
            r_u[b] -= f;
            r_t[b] -= lb.rb.cross(f) + m;
            r_u[a] += f;
            r_t[a] += lb.ra.cross(f) + m;
            bond_stress(lb, &sections[lb.bond.0 as usize], f, m)
        }));
    }

    /// [`Self::evaluate`]'s end, every bond evaluated: `K x` kept (a
    /// reduced system) and the residual.
    fn finish_evaluation(&mut self, inertial: bool) -> f64 {
        if self.reduced {
            // K x of this answer, for the next call's `implied_residual`.
            // (One `extend` each over zipped slices: no bound checks or
            // capacity tests per node.)
            self.kx_u.clear();
            self.kx_u
                .extend(self.b_u.iter().zip(&self.r_u).map(|(&b, &r)| b - r));
            self.kx_t.clear();
            self.kx_t
                .extend(self.b_t.iter().zip(&self.r_t).map(|(&b, &r)| b - r));
            self.kx_valid = true;
        }
        let mut residual = self.residual_norm();
        if inertial {
            residual = residual.max(self.node_residual2(0).sqrt());
        }
        residual
    }

    /// Damage of the last solve over a step of `dt` seconds, appended to
    /// `out`; see [`stress_damage`].
    ///
    /// # Errors
    /// [`StressError::NoSolve`] before a successful solve, and those of
    /// [`stress_damage`].
    pub fn bond_damage(
        &self,
        health: &[f32],
        dt: f32,
        out: &mut Vec<StressBondDamage>,
    ) -> Result<(), StressError> {
        let report = self.report.ok_or(StressError::NoSolve)?;
        stress_damage(
            &report,
            self.settings.epsilon,
            &self.stresses,
            &self.materials,
            health,
            dt,
            out,
        )
    }
}
