//! # smithereens-rapier
//!
//! The Rapier backend of Smithereens, living in the game's own Rapier
//! world: a [`DestructionSet`] holds any number of destructible instances
//! in a `PhysicsWorld` the game creates and steps. Every cluster of an
//! instance is one Rapier body (fixed when supported, otherwise a compound
//! of the chunks' convex hulls with explicit mass properties); contact
//! impulses become radial damage through a documented mapping
//! ([`ImpactDamage`]); damage is queued during the game's step and
//! committed at the safe point after it ([`DestructionSet::after_step`]),
//! swapping bodies in one step with inherited velocities.
//!
//! [`DestructionWorld`] is a convenience for tools and tests: one instance,
//! a ground and projectiles in a world it owns and steps.
//!
//! Units: metres, kilograms, seconds; damage in du.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod backend;
pub mod convert;
pub mod error;
pub mod impact;
pub mod recorded_run;
mod round_hull;
pub mod set;
pub mod stepping;
pub mod world;

pub use error::BackendError;
pub use impact::ImpactDamage;
pub use set::{
    Attachments, BothEvents, CONTACT_EVENT_BIT, ColliderTag, CollisionGroups, DestructionSet,
    DestructionSettings, Explosion, ExtraMass, Hold, InstanceHandle, InstanceReport,
    MAX_PROJECTILE_MASS, MAX_PROJECTILE_SPEED, ProjectileDesc, Quarantined, RecyclePolicy,
    SetAdmitError, SetSnapshotError, SetStepReport,
};
/// The engine-agnostic core (assets, instances, damage events, poses), re-exported
/// so a game needs one dependency to spawn instances.
pub use smithereens_core as core;
pub use stepping::{BacklogPolicy, FixedStepper, FramePlan, StepperSettings, TimeLedger};
pub use world::{
    DestructionWorld, HealthCheck, StepError, StepReport, WorldSettings, WorldSnapshotError,
    insert_ground, new_physics_world,
};
