//! # smithereens-dismember
//!
//! The engine-agnostic heart of character dismemberment, after the
//! dismemberment seed (`dismemberment-pipeline.zh.txt`, a breakdown of a
//! shipped game's limb-cutting pipeline):
//!
//! * [`BodyModel`] — regions → bones → operations with visual recipes,
//!   virtual damage locations and indirect candidates (seed §1), loaded from
//!   a documented TOML file ([`HUMANOID_TOML`]);
//! * [`DamageGraph`] — damage parents separate from the [`Skeleton`] tree
//!   (§1.3);
//! * [`select_candidates`] and [`decide`] — helper volume → plane angle →
//!   priority, then [`RuleSet`] (health gate, lethality, multipliers,
//!   additive modifiers, presets and flags, §2) with draws seeded by
//!   (victim, event id);
//! * [`BodyState`] and [`SlotRuntime`] — per-bone and per-element states,
//!   masks, hit counts and the four-slot runtime with two 64-bit state masks
//!   (§8.1–8.3);
//! * [`plan_detach`] / [`commit_detach`] / [`try_detach`] — the detach
//!   transaction: parts collected from the current state, visibility masks
//!   composed in bind-pose space, patch migration, pose hand-over
//!   ([`pose_handover`]), velocities and gib impulse, revision check, one
//!   commit (§5.3, §7.1, §8.4, §9);
//! * [`CapabilityMap`] — capabilities from body state, not bones (§6.3), and
//!   [`EventTrack`] / [`ReactionPlayer`] — reaction clip events fired for
//!   every `previous < t ≤ current` (§6.1–6.2);
//! * [`PartsManager`] — create/keep distance hysteresis, removal interval,
//!   maximum lifetime and budgets of bodies, constraints and skinned meshes
//!   (§8.5);
//! * [`apply_event`], [`state_hash`], [`restore_snapshot`] — the body state
//!   (not gib poses) as the replicated truth: the same event stream gives the
//!   same hash on every peer and on replay, and snapshots restore it;
//! * [`validate_detached_skin`] — a detached mesh's weights sum to 1 per
//!   vertex and only name bones the gib can pose (§4.4).
//!
//! # Example: one hit on the humanoid, decided and detached
//! ```
//! use smithereens_dismember::glam::{Affine3A, Vec3};
//! use smithereens_dismember::*;
//!
//! let model = BodyModel::from_toml_str(HUMANOID_TOML)?;
//! let rules = RuleSet::from_toml_str(&model, BITER_RULES_TOML)?;
//! let victim = VictimHandle { id: VictimId(1), generation: 0 };
//! let mut state = BodyState::new(&model, victim);
//! let pose = model.bind_pose(); // the caller's current model-space bone poses
//!
//! // A swing at the left forearm near the wrist, body health 60 %.
//! let forearm = model.bone_index("l_forearm").unwrap();
//! let point = pose[forearm.get() as usize].transform_point3(Vec3::new(0.245, 0.0, 0.0));
//! let hit = Hit { bone: forearm, point, attack_plane_normal: Vec3::Y };
//! let mut candidates = Vec::new();
//! select_candidates(&model, state.present_mask(), &pose, &hit, &mut candidates)?;
//! let ctx = RuleContext {
//!     health_percent: 60.0,
//!     preset: DamagePreset { limb_cut_probability: 1.0, ..DamagePreset::default() },
//!     reaction: ReactionFlags::EMPTY,
//!     victim_states: VictimStates::EMPTY,
//! };
//! let mut rng = DecisionRng::new(victim.id, EventId(1));
//! let decision = decide(&model, &rules, &state, &candidates, &ctx, &mut rng)?;
//! let cut = decision.operation.unwrap();
//! assert!(!decision.kills); // the Biter arm cut is NonLethal
//!
//! // Plan the gib from a snapshot, then commit both sides at once.
//! let request = DetachRequest { victim, event: EventId(1), root: cut.bone, recipe: cut.operation.recipe };
//! let input = DetachInput {
//!     body_to_world: Affine3A::IDENTITY,
//!     gib_to_world: Affine3A::IDENTITY,
//!     pose: &pose,
//!     motion: Motion::Physics { linear: Vec3::ZERO, angular: Vec3::ZERO, center: Vec3::ZERO },
//!     impact_direction: Vec3::X,
//!     impact_speed: 3.0,
//!     impulse: GibImpulse::default(),
//! };
//! let PlanOutcome::Planned(gib) = plan_detach(&model, &state, &request, &input)? else { unreachable!() };
//! commit_detach(&model, &mut state, &gib)?;
//! assert!(!state.is_present(model.bone_index("l_hand").unwrap()));
//! assert_eq!(gib.bones.len(), 11); // upper arm (extra physics bone), forearm, hand, 8 fingers
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Units: metres, seconds, radians (degrees only where a text file says
//! `_deg`); health in percent of the body's maximum. No physics engine, no
//! mesh or skin format: integrations feed poses in and read plans out.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod body_model;
pub mod candidate_selection;
pub mod capabilities;
pub mod damage_graph;
pub mod decision;
pub mod detach;
pub mod error;
pub mod event_track;
pub mod index;
pub mod parts_manager;
pub mod pose_handover;
pub mod replication;
pub mod rules;
pub mod skeleton;
pub mod skin_weights;
pub mod slots;
pub mod state;

pub use body_model::{
    BodyModel, BodyModelDesc, Bone, BoneDesc, Ellipsoid, Helper, IndirectCandidate, MAX_BONES,
    Operation, OperationCategory, OperationInput, Recipe, Region, VirtualLocation,
};
pub use candidate_selection::{Candidate, Hit, Location, select_candidates};
pub use capabilities::{Capabilities, CapabilityMap, Requirement};
pub use damage_graph::{BoneMask, DamageGraph, bone_bit};
pub use decision::{ChosenOperation, Decision, DecisionRng, decide};
pub use detach::{
    DetachInput, DetachOutcome, DetachReceipt, DetachRequest, GibBody, GibImpulse, GibPlan, Motion,
    PendingDetaches, PlanOutcome, VisibilityMask, body_visibility, commit_detach, plan_detach,
    try_detach,
};
pub use error::{BodyModelError, DetachError, RuleError, SlotError};
pub use event_track::{EventTrack, ReactionPlayer, TrackError, TrackEvent, TrackEventKind};
pub use index::{
    BoneIndex, HelperIndex, IndirectCandidateIndex, MaskIndex, RecipeIndex, RegionIndex,
    VirtualLocationIndex,
};
pub use parts_manager::{
    CreateRefusal, DistanceLimits, PartCost, PartId, PartsError, PartsManager, PartsManagerParams,
};
pub use replication::{
    AppliedOperation, ApplyOutcome, BodyEvent, HitRecord, ReplicationError, WIRE_VERSION,
    apply_event, restore_snapshot, restore_snapshot_bytes, snapshot_to_bytes, state_hash,
};
pub use rules::{
    DamageFlags, DamagePreset, ReactionFlags, RuleContext, RuleSet, RuleSetDesc, Verdict,
    combine_probability,
};
pub use skeleton::Skeleton;
pub use skin_weights::{SkinError, SkinWeights, WEIGHT_SUM_TOLERANCE, validate_detached_skin};
pub use slots::{PARKED_MATRIX, RemoveOutcome, SLOT_COUNT, Slot, SlotCandidate, SlotRuntime};
pub use state::{
    BodyState, BoneState, ElementState, EventId, LastHit, VictimHandle, VictimId, VictimStates,
    WoundPatch,
};

pub use glam;

/// The documented 43-bone humanoid body model (`data/humanoid.toml`).
pub const HUMANOID_TOML: &str = include_str!("../data/humanoid.toml");

/// The Biter rule preset for the humanoid (`data/biter.rules.toml`).
pub const BITER_RULES_TOML: &str = include_str!("../data/biter.rules.toml");
