//! The detach transaction (seed §8.4, §9): repeated cuts, visibility masks,
//! wound-patch migration, pose and motion hand-over, revision check, commit.
//!
//! The seed's order, kept here:
//! 1. resources not ready → nothing changes, the request stays pending
//!    ([`PendingDetaches`]) and is retried;
//! 2. snapshot the state's revision, present parts, pose and motion
//!    (the caller's inputs are read once, before anything is written);
//! 3. collect the parts still present in the cut's damage subtree from the
//!    *current* state (hand first, then forearm: the second gib has no hand);
//! 4. prepare the hidden gib ([`GibPlan`]): its bones, visibility and patches;
//! 5. copy the pose `G_d = W_d⁻¹·W_s·G_s`, locals parent-before-child;
//! 6. body transforms `T = W_s·G_s·L_body`;
//! 7. velocities (rigid point velocity or from consecutive world poses) plus
//!    the gib impulse;
//! 8. at commit, if the body's revision changed meanwhile, the plan is
//!    discarded ([`DetachError::StaleRevision`]) and the caller re-evaluates;
//! 9. otherwise both sides change at once ([`commit_detach`]).
//!
//! A duplicate event yields nothing ([`PlanOutcome::Duplicate`]); an event
//! for a recycled character is ignored ([`PlanOutcome::Recycled`]).
//!
//! # Visibility
//! Masks compose in bind-pose space. With `H` the hand's hide volume and `F`
//! the forearm's (1 inside, 0 outside): after the hand cut the body shows
//! `1 − H` and the hand gib `H`; after the forearm cut the new gib shows
//! `F·(1 − H)` and the body `(1 − F)·(1 − H)`.

use crate::body_model::{BodyModel, Ellipsoid};
use crate::damage_graph::{BoneMask, bone_bit};
use crate::decision::DecisionRng;
use crate::error::DetachError;
use crate::index::{BoneIndex, RecipeIndex};
use crate::pose_handover::{body_transform, copy_bone_pose, point_velocity, velocity_from_poses};
use crate::state::{BodyState, EventId, VictimHandle, WoundPatch};
use glam::{Affine3A, Vec3};

/// What to detach: a victim, an event, the cut's damage root and its recipe.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DetachRequest {
    /// The victim and its generation when the event was decided.
    pub victim: VictimHandle,
    /// The event.
    pub event: EventId,
    /// The damage root of the cut (the bone the cut acts on).
    pub root: BoneIndex,
    /// The cut's visual recipe.
    pub recipe: RecipeIndex,
}

/// How the body was moving at the snapshot.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Motion<'a> {
    /// A physics-driven body: linear velocity `v_c` (m/s) of the point `x_c`
    /// (m, world) and angular velocity `ω` (rad/s, world).
    Physics {
        /// `v_c`.
        linear: Vec3,
        /// `ω`.
        angular: Vec3,
        /// `x_c`.
        center: Vec3,
    },
    /// An animation-driven body: every bone's world transform (`W_s·G_s`) one
    /// frame earlier, `dt` seconds before the snapshot (one entry per bone).
    Animation {
        /// Previous world transforms, one per bone.
        previous_world: &'a [Affine3A],
        /// Time between the two frames (s), positive.
        dt: f32,
    },
}

/// The designer's gib impulse (`DefaultGibPhysicsImpulse`, seed §7.1). The
/// seed gives only ranges ("这是参数，不是完整求解公式"); the formula is
/// this crate's: with `k`, `u` and `a` drawn uniformly from the ranges,
/// `Δv = k·s·d + u·ŷ` (d the unit impact direction, s the impact speed in m/s,
/// ŷ world up) and `Δω = a` (rad/s per world axis).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct GibImpulse {
    /// Multiplier of the impact velocity (`[2, 3]`), unitless.
    pub impact_velocity_multiplier: [f32; 2],
    /// Extra upward velocity (`[1, 3]` m/s).
    pub additional_vertical_velocity: [f32; 2],
    /// Lower bound of the angular kick per axis (`(1, 2, 1)` rad/s).
    pub angular_min: Vec3,
    /// Upper bound of the angular kick per axis (`(10, 10, 10)` rad/s).
    pub angular_max: Vec3,
}

impl Default for GibImpulse {
    /// The seed's `DefaultGibPhysicsImpulse` ranges.
    fn default() -> Self {
        Self {
            impact_velocity_multiplier: [2.0, 3.0],
            additional_vertical_velocity: [1.0, 3.0],
            angular_min: Vec3::new(1.0, 2.0, 1.0),
            angular_max: Vec3::new(10.0, 10.0, 10.0),
        }
    }
}

impl GibImpulse {
    /// No impulse at all.
    pub const NONE: Self = Self {
        impact_velocity_multiplier: [0.0, 0.0],
        additional_vertical_velocity: [0.0, 0.0],
        angular_min: Vec3::ZERO,
        angular_max: Vec3::ZERO,
    };

    fn validate(&self) -> Result<(), DetachError> {
        let ok = |r: [f32; 2]| r[0].is_finite() && r[1].is_finite() && 0.0 <= r[0] && r[0] <= r[1];
        if !ok(self.impact_velocity_multiplier) {
            return Err(DetachError::BadImpulse("impact_velocity_multiplier"));
        }
        if !ok(self.additional_vertical_velocity) {
            return Err(DetachError::BadImpulse("additional_vertical_velocity"));
        }
        if !(self.angular_min.is_finite()
            && self.angular_max.is_finite()
            && self.angular_min.cmple(self.angular_max).all())
        {
            return Err(DetachError::BadImpulse("angular"));
        }
        Ok(())
    }
}

/// The snapshot inputs of one detach.
#[derive(Copy, Clone, Debug)]
pub struct DetachInput<'a> {
    /// `W_s`: the body's model-to-world at the snapshot.
    pub body_to_world: Affine3A,
    /// `W_d`: the gib's model-to-world (often `W_s`).
    pub gib_to_world: Affine3A,
    /// `G_s`: every bone's model-space transform at the same instant (one per bone).
    pub pose: &'a [Affine3A],
    /// The body's motion.
    pub motion: Motion<'a>,
    /// Unit impact direction (world); zero for none.
    pub impact_direction: Vec3,
    /// Impact speed (m/s), ≥ 0.
    pub impact_speed: f32,
    /// The gib impulse ranges.
    pub impulse: GibImpulse,
}

/// One physics body of a gib.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct GibBody {
    /// The bone it drives.
    pub bone: BoneIndex,
    /// `T = W_s·G_s·L_body` (world).
    pub transform: Affine3A,
    /// Initial linear velocity (m/s, world), impulse included.
    pub linear_velocity: Vec3,
    /// Initial angular velocity (rad/s, world), impulse included.
    pub angular_velocity: Vec3,
}

/// What a gib shows: its cut's hide volume, minus every volume the body had
/// already hidden (all in bind-pose space).
#[derive(Clone, Debug, PartialEq)]
pub struct VisibilityMask {
    /// Volume shown (`None`: show everything not hidden).
    pub show: Option<Ellipsoid>,
    /// Volumes hidden.
    pub hidden: Vec<Ellipsoid>,
}

impl VisibilityMask {
    /// `show(p) · Π (1 − hidden_i(p))`, each factor 0 or 1.
    pub fn visibility(&self, p: Vec3) -> f32 {
        let shown = self
            .show
            .map_or(1.0, |e| f32::from(u8::from(e.contains(p))));
        self.hidden.iter().fold(shown, |acc, h| {
            acc * (1.0 - f32::from(u8::from(h.contains(p))))
        })
    }
}

/// The body's visibility: `Π (1 − hidden_i(p))` over its hidden volumes.
pub fn body_visibility(model: &BodyModel, state: &BodyState, p: Vec3) -> f32 {
    VisibilityMask {
        show: None,
        hidden: hidden_volumes(model, state),
    }
    .visibility(p)
}

fn hidden_volumes(model: &BodyModel, state: &BodyState) -> Vec<Ellipsoid> {
    state
        .hidden_volumes()
        .iter()
        .filter_map(|&r| model.recipe(r).and_then(|r| r.hide_volume))
        .collect()
}

/// A prepared, still hidden gib; nothing is committed yet.
#[derive(Clone, Debug, PartialEq)]
pub struct GibPlan {
    /// The request.
    pub request: DetachRequest,
    /// Body revision at the snapshot.
    pub base_revision: u64,
    /// Parts leaving the body (present parts of the cut's damage subtree).
    pub parts: BoneMask,
    /// The gib's bones (the parts plus the recipe's additional physics
    /// bones), parent-before-child in the skeleton.
    pub bones: Vec<BoneIndex>,
    /// `G_d` per entry of `bones`.
    pub global_poses: Vec<Affine3A>,
    /// Local transforms per entry of `bones` (gib root: `G_d`).
    pub local_poses: Vec<Affine3A>,
    /// Physics bodies: parts with a `physics_body_offset`, plus the
    /// additional physics bones.
    pub bodies: Vec<GibBody>,
    /// What the gib shows.
    pub visibility: VisibilityMask,
    /// Patches the gib carries: those migrating from the body, then the cut's own.
    pub patches: Vec<WoundPatch>,
}

/// The result of planning.
#[derive(Clone, Debug, PartialEq)]
pub enum PlanOutcome {
    /// A gib is ready to commit.
    Planned(Box<GibPlan>),
    /// The event was already applied: nothing again.
    Duplicate,
    /// The cut's subtree has no part left on the body: nothing.
    NothingPresent,
    /// The request is for an older generation of the character: ignored.
    Recycled,
}

fn check_poses(model: &BodyModel, which: &'static str, p: &[Affine3A]) -> Result<(), DetachError> {
    if p.len() != model.bone_count() || !p.iter().all(|m| m.is_finite()) {
        return Err(DetachError::BadPose {
            which,
            expected: model.bone_count(),
            found: p.len(),
        });
    }
    Ok(())
}

fn check_transform(name: &'static str, m: Affine3A) -> Result<(), DetachError> {
    let det = m.matrix3.determinant();
    if !m.is_finite() || det.abs() < 1e-12 {
        return Err(DetachError::BadTransform(name));
    }
    Ok(())
}

pub(crate) fn patch_bone(model: &BodyModel, recipe: RecipeIndex, root: BoneIndex) -> BoneIndex {
    model
        .recipe(recipe)
        .and_then(|r| r.helper)
        .and_then(|h| model.helper(h))
        .map_or(root, |h| h.bone)
}

/// Whether `recipe` is `root`'s cut or a detaching candidate's recipe at `root`.
fn is_detaching_recipe(model: &BodyModel, root: BoneIndex, recipe: RecipeIndex) -> bool {
    model
        .bone(root)
        .is_some_and(|b| b.cut.is_some_and(|c| c.recipe == recipe))
        || model.indirect_candidates().iter().any(|c| {
            c.location == root && c.operation.recipe == recipe && c.operation.category.detaches()
        })
}

/// Plans a detach from the current state (steps 2–7 of the module docs).
/// Reads `state`, never writes it.
///
/// # Errors
/// [`DetachError::BoneOutOfRange`], [`DetachError::NotDetaching`] if the
/// recipe is not the root's cut or a detaching candidate's recipe,
/// [`DetachError::BadPose`], [`DetachError::BadTransform`],
/// [`DetachError::BadMotion`], [`DetachError::BadImpulse`],
/// [`DetachError::NonFiniteResult`] when finite but huge inputs overflow.
pub fn plan_detach(
    model: &BodyModel,
    state: &BodyState,
    request: &DetachRequest,
    input: &DetachInput<'_>,
) -> Result<PlanOutcome, DetachError> {
    if request.victim != state.victim() {
        return Ok(PlanOutcome::Recycled);
    }
    if state.is_applied(request.event) {
        return Ok(PlanOutcome::Duplicate);
    }
    model
        .bone(request.root)
        .ok_or(DetachError::BoneOutOfRange(request.root))?;
    if !is_detaching_recipe(model, request.root, request.recipe) {
        return Err(DetachError::NotDetaching);
    }
    check_poses(model, "pose", input.pose)?;
    check_transform("body_to_world", input.body_to_world)?;
    check_transform("gib_to_world", input.gib_to_world)?;
    match input.motion {
        Motion::Physics {
            linear,
            angular,
            center,
        } => {
            if !(linear.is_finite() && angular.is_finite() && center.is_finite()) {
                return Err(DetachError::BadMotion("physics"));
            }
        }
        Motion::Animation { previous_world, dt } => {
            check_poses(model, "previous_world", previous_world)?;
            if !(dt.is_finite() && dt > 0.0) {
                return Err(DetachError::BadMotion("dt"));
            }
        }
    }
    if !(input.impact_direction.is_finite() && input.impact_speed.is_finite())
        || input.impact_speed < 0.0
    {
        return Err(DetachError::BadMotion("impact"));
    }
    input.impulse.validate()?;

    // Step 2-3: snapshot and collect from the current state.
    let base_revision = state.revision();
    let parts = model
        .damage_graph()
        .detached_subtree(request.root, state.present_mask());
    if parts == 0 {
        return Ok(PlanOutcome::NothingPresent);
    }
    let recipe = model
        .recipe(request.recipe)
        .ok_or(DetachError::NotDetaching)?;
    let mut gib_mask = parts;
    for &b in &recipe.additional_physics_bones {
        gib_mask |= bone_bit(b);
    }

    // Step 4-5: the gib skeleton and its pose.
    let bones: Vec<BoneIndex> = model
        .skeleton()
        .parent_before_child()
        .iter()
        .copied()
        .filter(|&b| gib_mask & bone_bit(b) != 0)
        .collect();
    let global_poses: Vec<Affine3A> = bones
        .iter()
        .map(|&b| copy_bone_pose(input.body_to_world, input.gib_to_world, input.pose[b.ix()]))
        .collect();
    let mut local_poses = Vec::with_capacity(bones.len());
    for (i, &b) in bones.iter().enumerate() {
        // The nearest skeleton ancestor inside the gib is its gib parent.
        let mut parent = model.skeleton().parent(b);
        while let Some(p) = parent {
            if gib_mask & bone_bit(p) != 0 {
                break;
            }
            parent = model.skeleton().parent(p);
        }
        let local = match parent.and_then(|p| bones.iter().position(|&x| x == p)) {
            Some(j) => global_poses[j].inverse() * global_poses[i],
            None => global_poses[i],
        };
        local_poses.push(local);
    }

    // Step 6-7: bodies, velocities, impulse.
    let mut rng = DecisionRng::with_stream(request.victim.id, request.event, 1);
    let k = rng.range(
        input.impulse.impact_velocity_multiplier[0],
        input.impulse.impact_velocity_multiplier[1],
    );
    let up = rng.range(
        input.impulse.additional_vertical_velocity[0],
        input.impulse.additional_vertical_velocity[1],
    );
    let kick = Vec3::new(
        rng.range(input.impulse.angular_min.x, input.impulse.angular_max.x),
        rng.range(input.impulse.angular_min.y, input.impulse.angular_max.y),
        rng.range(input.impulse.angular_min.z, input.impulse.angular_max.z),
    );
    let dv = input.impact_direction.normalize_or_zero() * (k * input.impact_speed) + Vec3::Y * up;
    let mut bodies = Vec::new();
    for &b in &bones {
        let extra = recipe.additional_physics_bones.contains(&b);
        let l_body = match model.bones()[b.ix()].physics_body_offset {
            Some(l) => l,
            None if extra => Affine3A::IDENTITY,
            None => continue,
        };
        let t = body_transform(input.body_to_world, input.pose[b.ix()], l_body);
        let x_d = Vec3::from(t.translation);
        let (v, w) = match input.motion {
            Motion::Physics {
                linear,
                angular,
                center,
            } => (point_velocity(linear, angular, center, x_d), angular),
            Motion::Animation { previous_world, dt } => {
                velocity_from_poses(previous_world[b.ix()] * l_body, t, dt)
            }
        };
        bodies.push(GibBody {
            bone: b,
            transform: t,
            linear_velocity: v + dv,
            angular_velocity: w + kick,
        });
    }

    // Finite but huge inputs (a 1e30 scale, a 3e38 speed) can overflow.
    if !global_poses
        .iter()
        .chain(&local_poses)
        .all(|g| g.is_finite())
    {
        return Err(DetachError::NonFiniteResult("poses"));
    }
    if !bodies.iter().all(|b| {
        b.transform.is_finite() && b.linear_velocity.is_finite() && b.angular_velocity.is_finite()
    }) {
        return Err(DetachError::NonFiniteResult("bodies"));
    }

    // Visibility and patches.
    let visibility = VisibilityMask {
        show: recipe.hide_volume,
        hidden: hidden_volumes(model, state),
    };
    let subtree = model.damage_graph().descendants(request.root) | parts;
    let mut patches: Vec<WoundPatch> = state
        .patches()
        .iter()
        .copied()
        .filter(|p| subtree & bone_bit(p.bone) != 0)
        .collect();
    if recipe.gib_patch.is_some() {
        patches.push(WoundPatch {
            recipe: request.recipe,
            bone: patch_bone(model, request.recipe, request.root),
        });
    }

    Ok(PlanOutcome::Planned(Box::new(GibPlan {
        request: *request,
        base_revision,
        parts,
        bones,
        global_poses,
        local_poses,
        bodies,
        visibility,
        patches,
    })))
}

/// What a commit changed on the body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DetachReceipt {
    /// Parts that left.
    pub parts: BoneMask,
    /// Revision after the commit.
    pub revision: u64,
}

/// Commits a plan: parts detached, elements updated, the cut's hide volume
/// added, migrated patches removed and the cut's body patch added, the event
/// marked applied, the revision bumped — all at once.
///
/// # Errors
/// [`DetachError::WrongVictim`] for a plan of another victim or generation,
/// [`DetachError::StaleRevision`] if the body changed since the plan (discard
/// it and re-evaluate), [`DetachError::BoneOutOfRange`],
/// [`DetachError::NotDetaching`] or [`DetachError::PlanMismatch`] for a plan
/// that is not what this body's cut takes now (edited, or made for another
/// model). Nothing changes on error.
pub fn commit_detach(
    model: &BodyModel,
    state: &mut BodyState,
    plan: &GibPlan,
) -> Result<DetachReceipt, DetachError> {
    if plan.request.victim != state.victim() {
        return Err(DetachError::WrongVictim);
    }
    if plan.base_revision != state.revision() {
        return Err(DetachError::StaleRevision {
            planned: plan.base_revision,
            current: state.revision(),
        });
    }
    // The plan is plain data: check it is what this body's cut takes now
    // (an edited plan, or one made for another model, must not commit).
    model
        .bone(plan.request.root)
        .ok_or(DetachError::BoneOutOfRange(plan.request.root))?;
    if !is_detaching_recipe(model, plan.request.root, plan.request.recipe) {
        return Err(DetachError::NotDetaching);
    }
    if state.is_applied(plan.request.event)
        || plan.parts == 0
        || plan.parts
            != model
                .damage_graph()
                .detached_subtree(plan.request.root, state.present_mask())
    {
        return Err(DetachError::PlanMismatch);
    }
    apply_detach_state(
        model,
        state,
        plan.request.root,
        plan.request.recipe,
        plan.parts,
    );
    state.applied_events.insert(plan.request.event);
    state.bump_revision();
    Ok(DetachReceipt {
        parts: plan.parts,
        revision: state.revision,
    })
}

/// The body side of a detach: `parts` leave, the recipe's hide volume is
/// added, patches of the cut's damage subtree leave with the gib and the
/// cut's body patch is added. Shared by [`commit_detach`] and replicated
/// events so both paths change the state identically. `recipe` must be valid.
pub(crate) fn apply_detach_state(
    model: &BodyModel,
    state: &mut BodyState,
    root: BoneIndex,
    recipe_ix: RecipeIndex,
    parts: BoneMask,
) {
    let Some(recipe) = model.recipe(recipe_ix) else {
        return;
    };
    state.detach_bones(model, parts);
    if recipe.hide_volume.is_some() {
        state.hidden_volumes.push(recipe_ix);
    }
    let subtree = model.damage_graph().descendants(root) | parts;
    state.patches.retain(|p| subtree & bone_bit(p.bone) == 0);
    if recipe.body_patch.is_some() {
        state.patches.push(WoundPatch {
            recipe: recipe_ix,
            bone: patch_bone(model, recipe_ix, root),
        });
    }
}

/// Detach requests waiting for their resources, in arrival order (a `Vec`,
/// so retries are deterministic); one entry per (victim, event).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PendingDetaches {
    queue: Vec<DetachRequest>,
}

/// The result of [`try_detach`].
#[derive(Clone, Debug, PartialEq)]
pub enum DetachOutcome {
    /// Committed; the plan is the gib to reveal and activate.
    Committed(Box<GibPlan>, DetachReceipt),
    /// Resources not ready: nothing changed, the request is pending.
    Deferred,
    /// Nothing to do (duplicate, nothing present, recycled); the request is
    /// no longer pending.
    Nothing(PlanOutcome),
}

impl PendingDetaches {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }
    /// Requests waiting, oldest first.
    pub fn requests(&self) -> &[DetachRequest] {
        &self.queue
    }
    fn keep(&mut self, r: DetachRequest) {
        if !self
            .queue
            .iter()
            .any(|q| q.victim == r.victim && q.event == r.event)
        {
            self.queue.push(r);
        }
    }
    fn forget(&mut self, r: &DetachRequest) {
        self.queue
            .retain(|q| !(q.victim == r.victim && q.event == r.event));
    }
    /// Drops every request of a victim generation other than `current`
    /// (after a recycle, late callbacks must not bring old gibs back).
    pub fn drop_stale(&mut self, current: VictimHandle) {
        self.queue
            .retain(|q| q.victim.id != current.id || q.victim == current);
    }
}

/// The whole transaction for one request: if `resources_ready` is false,
/// nothing changes and the request is kept in `pending` for a retry;
/// otherwise plan and commit at once and forget the request.
///
/// # Errors
/// Every error of [`plan_detach`] and [`commit_detach`]; on error the body is
/// unchanged and the request stays pending.
pub fn try_detach(
    model: &BodyModel,
    state: &mut BodyState,
    pending: &mut PendingDetaches,
    request: &DetachRequest,
    input: &DetachInput<'_>,
    resources_ready: bool,
) -> Result<DetachOutcome, DetachError> {
    if !resources_ready {
        if request.victim == state.victim() && !state.is_applied(request.event) {
            pending.keep(*request);
            return Ok(DetachOutcome::Deferred);
        }
        pending.forget(request);
        return Ok(DetachOutcome::Nothing(
            if request.victim != state.victim() {
                PlanOutcome::Recycled
            } else {
                PlanOutcome::Duplicate
            },
        ));
    }
    let outcome = match plan_detach(model, state, request, input) {
        Ok(o) => o,
        Err(e) => {
            pending.keep(*request);
            return Err(e);
        }
    };
    match outcome {
        PlanOutcome::Planned(plan) => match commit_detach(model, state, &plan) {
            Ok(receipt) => {
                pending.forget(request);
                Ok(DetachOutcome::Committed(plan, receipt))
            }
            Err(e) => {
                pending.keep(*request);
                Err(e)
            }
        },
        other => {
            pending.forget(request);
            Ok(DetachOutcome::Nothing(other))
        }
    }
}
