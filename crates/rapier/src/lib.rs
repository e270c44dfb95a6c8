//! # smithereens-rapier
//!
//! The Rapier backend of Smithereens: every cluster of a destructible
//! instance is one Rapier body (fixed when supported, otherwise a compound of
//! the chunks' convex hulls with explicit mass properties); contact impulses
//! become radial damage through a documented mapping ([`ImpactDamage`]);
//! damage is queued during the physics step and committed at the safe point
//! after it, swapping bodies in one step with inherited velocities.
//!
//! Units: metres, kilograms, seconds; damage in du.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod backend;
pub mod convert;
pub mod error;
pub mod impact;
pub mod scenario;
pub mod stepping;
pub mod world;

pub use error::BackendError;
pub use impact::ImpactDamage;
pub use stepping::{BacklogPolicy, FixedStepper, FramePlan, StepperSettings, TimeLedger};
pub use world::{
    ColliderTag, DestructionWorld, Explosion, HealthCheck, ProjectileDesc, RecyclePolicy,
    StepError, StepReport, WorldSettings, WorldSnapshotError, new_physics_world,
};
