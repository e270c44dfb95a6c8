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
//! Held parts ([`held`], held-projectile seed 決定 › 持彈碰撞體切換, issue 14):
//! a launcher's preloaded projectiles are colliders on their parent body
//! plus pre-created disabled bodies; [`HeldParts::launch`] switches one in a
//! single step through [`detach_collider`], the collider-leaves-a-body
//! operation (mass, momentum and pose conserved); [`HeldParts::restore`]
//! rejects a rollback whose world disagrees with the spec and the recorded
//! ammunition and damage state. Contacts on holding colliders damage the
//! weapon, or each part with independent durability, through the same
//! impact model, committed at frame end ([`HeldParts::commit_damage`]). [`BoundedStepper`] ([`substep`], seed 決定 › bounded-step
//! 細分停損) subdivides a frame while joint anchor errors exceed a tolerance,
//! bounded by a trial cap and a deterministic world-level stall rule.
//!
//! Units: metres, kilograms, seconds; impulses in N·s; damage in du.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod backend;
pub mod convert;
pub mod debris;
pub mod detach;
pub mod error;
pub mod held;
pub mod impact;
pub mod landing;
pub mod recorded_run;
mod round_hull;
pub mod set;
pub mod stepping;
pub mod substep;
pub mod world;

pub use debris::{DebrisParticle, DebrisSettings, ParticleState, RenderDebris};
pub use detach::{DetachError, Detached, detach_collider};
pub use error::BackendError;
pub use held::{
    DEFAULT_PART_HEALTH, DEFAULT_WEAPON_HEALTH, DamageTarget, HeldContacts, HeldDamageEvent,
    HeldError, HeldPartDesc, HeldParts, HeldPose, HeldState, HoldingOwner, LauncherDesc,
    LauncherId, MAX_PART_MASS, MAX_PART_OFFSET, MIN_PART_MASS, PartMaterial, PartShape, PartStatus,
    RollbackError,
};
pub use impact::ImpactDamage;
pub use landing::{LandingSubsteps, LandingSubstepsError};
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
pub use substep::{
    BoundedStepper, FrameOutcome, FrameStep, SubstepDiagnostics, SubstepError, SubstepSettings,
    SubstepState, max_joint_anchor_error, warm_up, worst_joint_anchor_error,
};
pub use world::{
    DestructionWorld, HealthCheck, StepError, StepReport, WorldSettings, WorldSnapshotError,
    insert_ground, new_physics_world,
};
