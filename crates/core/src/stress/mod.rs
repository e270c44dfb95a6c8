//! Stress over the bond graph (DESIGN §6, issue 13): per-bond compression,
//! tension, shear, bending and twist from gravity, applied loads and
//! rotation, and the bond damage they cause.
//!
//! Radial and spread damage cannot break a cantilever's root from a load at
//! its tip; this model can. It follows Blast's stress extension
//! (NvBlastExtStressSolver: iterative solve on the bond graph anchored at
//! supports, separate compression / tension / shear limits, elastic and
//! fatal limits from Blast 5.1) with a different solver: bonds are elastic
//! springs and the node equilibrium is solved by conjugate gradient with a
//! spanning-forest preconditioner ([`solver`]).
//!
//! * [`material`]: limits and damage rates ([`Material`], [`StressMaterials`]);
//! * [`section`]: bond face section moduli ([`Section`]);
//! * [`solver`]: [`StressSolver`], its [`StressSettings`], [`StressLoads`],
//!   per-bond [`BondStress`] and the [`StressReport`];
//! * [`solver::reduced`]: the multi-resolution solve of large clusters
//!   (rigid super-nodes, refined near a limit; off by default);
//! * [`damage`]: a converged solve → sorted per-bond damage for a step;
//! * [`instance_stress`]: the per-frame loop of one instance
//!   ([`InstanceStress`]): which clusters to solve, sustained loads,
//!   standing overloads and the [`crate::StressDamage`] event they make.
//!
//! Units: N, N·m, Pa, m, kg, s; damage in du. Everything is in the
//! cluster's asset frame.

pub mod damage;
pub mod instance_stress;
pub mod material;
pub mod multilevel;
pub mod section;
pub mod solver;

pub use damage::{StressBondDamage, damage_of, stress_damage};
pub use instance_stress::{
    ChunkLoad, InstanceStress, InstanceStressState, LoadKey, Overload, StressDesc, StressUpdate,
};
pub use material::{FailureMode, Material, MaterialError, StressLimit, StressMaterials};
pub use section::Section;
pub use solver::{
    BondStress, DEFAULT_EPSILON, FOREST_TRIAL, MIN_EPSILON, PointLoad, Preconditioner, Preparation,
    REDUCE_ABOVE, SolveMode, SolveProgress, SolveProgressV1, StressLoads, StressReport,
    StressSettings, StressSolver,
};

use crate::index::{BondIndex, ChunkIndex};

/// Why a stress setting, material, solve or damage request was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum StressError {
    /// `max_iterations` is zero.
    #[error("the stress solver needs at least one iteration per solve")]
    ZeroIterations,
    /// ε not finite or below [`MIN_EPSILON`].
    #[error("residual bound {0} must be finite and at least 1e-14")]
    BadEpsilon(f32),
    /// A load tolerance of [`StressDesc`] is negative or not finite.
    #[error("stress {name} = {value} must be finite and non-negative")]
    BadTolerance {
        /// The field.
        name: &'static str,
        /// Its value.
        value: f32,
    },
    /// A material or the per-bond material table is bad.
    #[error(transparent)]
    Material(#[from] MaterialError),
    /// A bond has zero area: its stress would be infinite.
    #[error("bond {0} has zero area; stress needs a positive bond area")]
    ZeroAreaBond(BondIndex),
    /// The asset is not the one the solver was built for.
    #[error("the asset differs from the one the stress solver was built for")]
    AssetMismatch,
    /// The health slice does not have one entry per bond.
    #[error("{found} health entries for an asset with {expected} bonds")]
    HealthLength {
        /// Entries given.
        found: usize,
        /// Bonds in the asset.
        expected: usize,
    },
    /// No nodes were given.
    #[error("the cluster has no nodes")]
    EmptyCluster,
    /// A node index is past the asset's chunks.
    #[error("node {0} is not a chunk of the asset")]
    NodeOutOfRange(ChunkIndex),
    /// A node is not support-level (not a node of the support graph).
    #[error("chunk {0} is not a support-level chunk")]
    NodeNotSupportLevel(ChunkIndex),
    /// A node is listed twice.
    #[error("chunk {0} is listed twice in the cluster")]
    DuplicateNode(ChunkIndex),
    /// Gravity or angular velocity (`load: None`) or a point load is NaN or infinite.
    #[error("load {load:?} is not finite")]
    NonFiniteLoad {
        /// Position in `point_loads`, `None` for gravity / angular velocity.
        load: Option<u32>,
    },
    /// A point load names a chunk that is not in the solved cluster.
    #[error("point load {load} is on chunk {chunk}, which is not in the cluster")]
    LoadOutsideCluster {
        /// Position in `point_loads`.
        load: u32,
        /// The chunk it names.
        chunk: ChunkIndex,
    },
    /// Damage was asked of a solve whose residual exceeds ε.
    #[error("the stress solve did not converge (residual {residual} > ε = {epsilon})")]
    Unconverged {
        /// The solve's residual.
        residual: f32,
        /// The bound.
        epsilon: f32,
    },
    /// Damage was asked before any successful solve.
    #[error("no stress solve to take damage from")]
    NoSolve,
    /// `dt` not positive finite.
    #[error("time step {0} s must be positive and finite")]
    BadTimeStep(f32),
    /// A bond of the solve is past the health slice.
    #[error("bond {0} is past the health slice")]
    BondOutOfRange(BondIndex),
}
