//! Replication, replay and snapshots of the body state (seed §8.1, §8.4).
//!
//! The replicated truth is the body state, not gib poses: "先让各端得到一致的
//! 部位状态，再更新外观" — peers first agree on which parts exist, then each
//! updates its own visuals. The authority decides a hit ([`crate::decide`],
//! seeded by (victim, event id)) and sends a [`BodyEvent`]: the hit record and
//! the operation that happened. Every peer applies the same events with
//! [`apply_event`]; a duplicate id changes nothing, an event for another
//! generation of the victim is ignored. [`state_hash`] (FNV-1a over every
//! replicated field, in a fixed order) is equal on every peer and on replay.
//! A snapshot is a [`BodyState`] value (serde); [`restore_snapshot`]
//! validates it against the model before it replaces anything.
//! [`snapshot_to_bytes`] / [`restore_snapshot_bytes`] and
//! [`BodyEvent::to_bytes`] / [`BodyEvent::from_bytes`] are a versioned byte
//! form (magic, version, postcard) whose decoders turn any bytes into a
//! value or a typed error.
//!
//! The body side of a detaching cut is the same function the local detach
//! commit uses, so a peer that only applies events ends in the same state as
//! the authority that planned and committed the gib.
//!
//! # Order on each side
//! * The authority that shows the gib: [`BodyState::record_hit`],
//!   [`crate::plan_detach`], [`crate::commit_detach`] (and
//!   [`BodyState::insert_victim_states`] with `DEAD` if the hit kills), then
//!   sends the [`BodyEvent`]. It does not also [`apply_event`] its own event.
//! * A receiving peer that shows a gib plans it from the state **before**
//!   the event ([`crate::plan_detach`] with the event's id: the impulse draws
//!   are seeded by (victim, event), so the gib matches the authority's), then
//!   applies the event with [`apply_event`] instead of committing the plan.
//!   After the event is applied the same request plans
//!   [`crate::PlanOutcome::Duplicate`].

use crate::body_model::{BodyModel, Operation, OperationCategory, OperationInput};
use crate::decision::Decision;
use crate::detach::{apply_detach_state, patch_bone};
use crate::index::BoneIndex;
use crate::state::{
    BodyState, BoneState, ElementState, EventId, VictimHandle, VictimStates, WoundPatch,
};
use glam::Vec3;
use serde::{Deserialize, Serialize};

/// Where and when a hit landed, as replicated.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HitRecord {
    /// Struck bone.
    pub bone: BoneIndex,
    /// Impact position (m, model space).
    pub position: Vec3,
    /// Impact direction (model space; normalised on apply).
    pub direction: Vec3,
    /// Game time (s).
    pub time: f64,
}

/// The operation that happened, as replicated.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AppliedOperation {
    /// The bone acted on (cut root, hole parent, broken bone).
    pub bone: BoneIndex,
    /// Input.
    pub input: OperationInput,
    /// Category.
    pub category: OperationCategory,
    /// Recipe index.
    pub recipe: u32,
}

/// One authoritative body event.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BodyEvent {
    /// Victim and generation.
    pub victim: VictimHandle,
    /// Event id.
    pub event: EventId,
    /// The hit.
    pub hit: HitRecord,
    /// The operation, if one happened.
    pub operation: Option<AppliedOperation>,
    /// The hit killed.
    pub kills: bool,
}

impl BodyEvent {
    /// Encodes the event: magic `SDBE`, [`WIRE_VERSION`] (u16 LE), postcard.
    pub fn to_bytes(&self) -> Vec<u8> {
        encode(EVENT_MAGIC, self)
    }

    /// Decodes an event from [`BodyEvent::to_bytes`]. The event's indices are
    /// checked against the model when it is applied ([`apply_event`]).
    ///
    /// # Errors
    /// [`ReplicationError::Decode`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ReplicationError> {
        decode("event", EVENT_MAGIC, bytes)
    }

    /// The event for a decided hit.
    pub fn from_decision(
        victim: VictimHandle,
        event: EventId,
        hit: HitRecord,
        d: &Decision,
    ) -> Self {
        Self {
            victim,
            event,
            hit,
            operation: d.operation.map(|c| AppliedOperation {
                bone: c.bone,
                input: c.operation.input,
                category: c.operation.category,
                recipe: c.operation.recipe.get(),
            }),
            kills: d.kills,
        }
    }
}

/// Why an event or snapshot was rejected. Nothing changes on error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplicationError {
    /// The hit record is bad (bone out of range, non-finite values, zero direction).
    #[error("bad hit record: {0}")]
    BadHit(crate::error::RuleError),
    /// The operation is not one the model has at that bone.
    #[error("bone {0} has no such operation")]
    UnknownOperation(BoneIndex),
    /// A snapshot does not fit the model.
    #[error("snapshot does not fit the model: `{0}`")]
    SnapshotMismatch(&'static str),
    /// Bytes are not an encoded snapshot or event of this version (wrong
    /// magic or version, truncated, trailing bytes, malformed payload).
    #[error("cannot decode {what}: {reason}")]
    Decode {
        /// What was being decoded (`snapshot`, `event`).
        what: &'static str,
        /// Why.
        reason: String,
    },
}

/// Version of the byte encodings of [`snapshot_to_bytes`] and
/// [`BodyEvent::to_bytes`].
pub const WIRE_VERSION: u16 = 1;
const SNAPSHOT_MAGIC: [u8; 4] = *b"SDBS";
const EVENT_MAGIC: [u8; 4] = *b"SDBE";

fn encode<T: Serialize>(magic: [u8; 4], value: &T) -> Vec<u8> {
    let mut out = magic.to_vec();
    out.extend_from_slice(&WIRE_VERSION.to_le_bytes());
    // Serialising plain data into a Vec cannot fail.
    match postcard::to_extend(value, out) {
        Ok(v) => v,
        Err(_) => unreachable!("postcard into a Vec does not fail"),
    }
}

fn decode<T: serde::de::DeserializeOwned>(
    what: &'static str,
    magic: [u8; 4],
    bytes: &[u8],
) -> Result<T, ReplicationError> {
    let err = |reason: String| ReplicationError::Decode { what, reason };
    let Some((head, payload)) = bytes.split_at_checked(6) else {
        return Err(err(format!(
            "{} bytes, shorter than the header",
            bytes.len()
        )));
    };
    if head[..4] != magic {
        return Err(err("wrong magic".into()));
    }
    let version = u16::from_le_bytes([head[4], head[5]]);
    if version != WIRE_VERSION {
        return Err(err(format!("version {version}, expected {WIRE_VERSION}")));
    }
    let (value, rest) = postcard::take_from_bytes(payload).map_err(|e| err(e.to_string()))?;
    if !rest.is_empty() {
        return Err(err(format!("{} trailing bytes", rest.len())));
    }
    Ok(value)
}

/// Encodes a snapshot of `state`: magic `SDBS`, [`WIRE_VERSION`] (u16 LE),
/// then the state in postcard. Read it back with [`restore_snapshot_bytes`].
pub fn snapshot_to_bytes(state: &BodyState) -> Vec<u8> {
    encode(SNAPSHOT_MAGIC, state)
}

/// Decodes bytes from [`snapshot_to_bytes`] and validates the snapshot
/// against `model` ([`restore_snapshot`]).
///
/// # Errors
/// [`ReplicationError::Decode`] for bytes that are not a snapshot of this
/// version, then every error of [`restore_snapshot`].
pub fn restore_snapshot_bytes(
    model: &BodyModel,
    bytes: &[u8],
) -> Result<BodyState, ReplicationError> {
    let state: BodyState = decode("snapshot", SNAPSHOT_MAGIC, bytes)?;
    restore_snapshot(model, &state)
}

/// What [`apply_event`] did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ApplyOutcome {
    /// The event changed the state.
    Applied,
    /// Already applied: nothing changed.
    Duplicate,
    /// For another generation of the victim: ignored.
    Recycled,
}

fn resolve(model: &BodyModel, op: &AppliedOperation) -> Option<Operation> {
    let bone = model.bone(op.bone)?;
    let same = |o: &Operation| {
        o.input == op.input && o.category == op.category && o.recipe.get() == op.recipe
    };
    let candidates = [
        bone.cut,
        bone.deformation,
        model.region(bone.region).and_then(|r| r.break_operation),
    ];
    if let Some(o) = candidates.into_iter().flatten().find(|o| same(o)) {
        return Some(o);
    }
    if let Some(c) = model
        .indirect_candidates()
        .iter()
        .find(|c| c.location == op.bone && same(&c.operation))
    {
        return Some(c.operation);
    }
    model
        .virtual_locations()
        .iter()
        .find(|v| v.parent == op.bone && same(&v.operation))
        .map(|v| v.operation)
}

/// Applies an authoritative event: records the hit, applies the operation
/// (a detaching cut takes the parts still present in its damage subtree, with
/// the same body-side changes as [`crate::commit_detach`]; a hole marks the
/// bone and adds its patch; a break marks the region; a deformation the
/// bone), marks the victim dead if the hit killed, and marks the event applied.
///
/// # Errors
/// [`ReplicationError::BadHit`], [`ReplicationError::UnknownOperation`];
/// nothing changes on error.
pub fn apply_event(
    model: &BodyModel,
    state: &mut BodyState,
    ev: &BodyEvent,
) -> Result<ApplyOutcome, ReplicationError> {
    if ev.victim != state.victim() {
        return Ok(ApplyOutcome::Recycled);
    }
    if state.is_applied(ev.event) {
        return Ok(ApplyOutcome::Duplicate);
    }
    let op = match &ev.operation {
        Some(o) => Some((
            o.bone,
            resolve(model, o).ok_or(ReplicationError::UnknownOperation(o.bone))?,
        )),
        None => None,
    };
    // record_hit validates everything before it writes.
    state
        .record_hit(
            model,
            ev.hit.bone,
            ev.hit.position,
            ev.hit.direction,
            ev.hit.time,
        )
        .map_err(ReplicationError::BadHit)?;
    if let Some((bone, op)) = op {
        let region = model.bones()[bone.ix()].region;
        match op.category {
            OperationCategory::Cut | OperationCategory::FullBodyCut => {
                let parts = model
                    .damage_graph()
                    .detached_subtree(bone, state.present_mask());
                if parts != 0 {
                    apply_detach_state(model, state, bone, op.recipe, parts);
                }
            }
            OperationCategory::Hole => {
                if state.is_present(bone) {
                    if let Some(b) = state.bones.get_mut(bone.ix()) {
                        b.insert(BoneState::HOLED);
                    }
                    state.patches.push(WoundPatch {
                        recipe: op.recipe,
                        bone: patch_bone(model, op.recipe, bone),
                    });
                }
            }
            OperationCategory::Break => {
                if let Some(e) = state.elements.get_mut(region.ix()) {
                    e.insert(ElementState::BROKEN);
                }
            }
            OperationCategory::Deformation => {
                if let Some(b) = state.bones.get_mut(bone.ix()) {
                    b.insert(BoneState::DEFORMED);
                }
            }
        }
    }
    if ev.kills {
        state.victim_states.insert(VictimStates::DEAD);
    }
    state.applied_events.insert(ev.event);
    state.bump_revision();
    Ok(ApplyOutcome::Applied)
}

struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
    fn u64(&mut self, v: u64) {
        for b in v.to_le_bytes() {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn f32(&mut self, v: f32) {
        self.u64(u64::from(v.to_bits()));
    }
}

/// FNV-1a 64 over every replicated field in a fixed order: victim, bone
/// states, element states, mask levels, hit counts, last hit (bit patterns),
/// victim states, slot masks, occupancy, slot candidates and matrices, hidden
/// volumes, patches, applied event ids (ascending). The local revision is
/// not included.
pub fn state_hash(state: &BodyState) -> u64 {
    let mut h = Fnv::new();
    h.u64(state.victim.id.0);
    h.u64(u64::from(state.victim.generation));
    for s in &state.bones {
        h.u64(u64::from(s.0));
    }
    for s in &state.elements {
        h.u64(u64::from(s.0));
    }
    for &l in &state.mask_levels {
        h.u64(u64::from(l));
    }
    for &c in &state.element_hit_counts {
        h.u64(u64::from(c));
    }
    h.u64(u64::from(state.hit_count));
    match state.last_hit {
        Some(l) => {
            h.u64(1);
            for v in [l.position, l.direction] {
                for x in v.to_array() {
                    h.f32(x);
                }
            }
            h.u64(l.time.to_bits());
        }
        None => h.u64(0),
    }
    h.u64(u64::from(state.victim_states.0));
    let slots = &state.slots;
    h.u64(slots.state_mask_a());
    h.u64(slots.state_mask_b());
    h.u64(u64::from(slots.occupied_bitmap()));
    for i in 0..crate::slots::SLOT_COUNT as u32 {
        let Ok(s) = crate::slots::Slot::new(i) else {
            continue;
        };
        match slots.slot(s) {
            Some(c) => {
                h.u64(1);
                h.u64(u64::from(c.id));
                h.u64(c.mask);
                h.u64(c.relation_mask);
                h.u64(c.link_mask);
            }
            None => h.u64(0),
        }
        for x in slots.matrix(s).to_cols_array() {
            h.f32(x);
        }
    }
    h.u64(state.hidden_volumes.len() as u64);
    for r in &state.hidden_volumes {
        h.u64(u64::from(r.get()));
    }
    h.u64(state.patches.len() as u64);
    for p in &state.patches {
        h.u64(u64::from(p.recipe.get()));
        h.u64(u64::from(p.bone.get()));
    }
    h.u64(state.applied_events.len() as u64);
    for e in &state.applied_events {
        h.u64(e.0);
    }
    h.0
}

/// Validates a snapshot against `model` and returns it as the new state.
///
/// # Errors
/// [`ReplicationError::SnapshotMismatch`] naming the first field whose
/// length or indices do not fit the model, a state with undefined flag
/// bits, or a non-finite last hit or slot matrix.
pub fn restore_snapshot(
    model: &BodyModel,
    snapshot: &BodyState,
) -> Result<BodyState, ReplicationError> {
    let bad = ReplicationError::SnapshotMismatch;
    if snapshot.bones.len() != model.bone_count() {
        return Err(bad("bones"));
    }
    if snapshot.elements.len() != model.region_count()
        || snapshot.element_hit_counts.len() != model.region_count()
    {
        return Err(bad("elements"));
    }
    if snapshot.mask_levels.len() != model.masks().len()
        || snapshot
            .mask_levels
            .iter()
            .zip(model.masks())
            .any(|(&l, m)| l >= m.levels)
    {
        return Err(bad("mask_levels"));
    }
    if snapshot.bones.iter().any(|b| b.0 & !BoneState::ALL.0 != 0) {
        return Err(bad("bones"));
    }
    if snapshot
        .elements
        .iter()
        .any(|e| e.0 & !ElementState::ALL.0 != 0)
    {
        return Err(bad("elements"));
    }
    if snapshot.victim_states.0 & !VictimStates::ALL.0 != 0 {
        return Err(bad("victim_states"));
    }
    if let Some(l) = snapshot.last_hit
        && !(l.position.is_finite() && l.direction.is_finite() && l.time.is_finite())
    {
        return Err(bad("last_hit"));
    }
    if snapshot
        .hidden_volumes
        .iter()
        .any(|r| model.recipe(*r).is_none())
    {
        return Err(bad("hidden_volumes"));
    }
    if snapshot
        .patches
        .iter()
        .any(|p| model.recipe(p.recipe).is_none() || model.bone(p.bone).is_none())
    {
        return Err(bad("patches"));
    }
    for i in 0..crate::slots::SLOT_COUNT as u32 {
        if let Ok(s) = crate::slots::Slot::new(i) {
            let occupied = snapshot.slots.occupied_bitmap() & (1 << i) != 0;
            if !snapshot.slots.matrix(s).is_finite() || occupied != snapshot.slots.slot(s).is_some()
            {
                return Err(bad("slots"));
            }
        }
    }
    if snapshot.slots.occupied_bitmap() >> crate::slots::SLOT_COUNT != 0 {
        return Err(bad("slots"));
    }
    Ok(snapshot.clone())
}
