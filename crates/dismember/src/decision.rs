//! Deciding one hit: candidates → rules → seeded draws (seed §1.5, §2).
//!
//! For each selected candidate in rank order, its operations are tried in a
//! fixed order — indirect candidate: its operation; virtual location: its
//! `Hole`; struck bone: `Cut`, then the region's `Break`, then
//! `Deformation`. An operation is skipped if the body state already makes it
//! moot (bone gone, region already broken, bone already deformed); otherwise
//! the rules give a [`Verdict`]; an allowed operation draws one uniform
//! number `u ∈ [0, 1)` and happens if `u < p`. The first that happens is the
//! hit's body operation; at most one per hit.
//!
//! Draws come from a [`DecisionRng`] seeded by (victim, event id), so every
//! peer and every replay decides the same.

use crate::body_model::{BodyModel, Operation, OperationCategory, OperationInput};
use crate::candidate_selection::{Candidate, Location};
use crate::error::RuleError;
use crate::index::{BoneIndex, RegionIndex};
use crate::rules::{RuleContext, RuleSet, Verdict};
use crate::state::{BodyState, BoneState, ElementState, EventId, VictimId};
use rand_pcg::Pcg64Mcg;
use rand_pcg::rand_core::Rng;

/// The portable generator of one hit's draws: PCG-64 (MCG 128/XSL-RR) seeded
/// from (victim, event id) through SplitMix64.
#[derive(Clone, Debug)]
pub struct DecisionRng(Pcg64Mcg);

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl DecisionRng {
    /// The generator for `event` against `victim`.
    pub fn new(victim: VictimId, event: EventId) -> Self {
        let hi = splitmix64(victim.0);
        let lo = splitmix64(event.0 ^ 0xD1B5_4A32_D192_ED03);
        Self(Pcg64Mcg::new((u128::from(hi) << 64) | u128::from(lo)))
    }

    /// An independent stream for the same (victim, event): stream 0 is the
    /// decision itself ([`DecisionRng::new`]), stream 1 the gib impulse.
    pub fn with_stream(victim: VictimId, event: EventId, stream: u64) -> Self {
        let hi = splitmix64(victim.0 ^ stream.wrapping_mul(0xA076_1D64_78BD_642F));
        let lo = splitmix64(event.0 ^ 0xD1B5_4A32_D192_ED03);
        Self(Pcg64Mcg::new((u128::from(hi) << 64) | u128::from(lo)))
    }

    /// A uniform `f32` in `[0, 1)` from the top 24 bits of one draw.
    pub fn uniform(&mut self) -> f32 {
        (self.0.next_u32() >> 8) as f32 * (1.0 / 16_777_216.0)
    }

    /// A uniform `f32` in `[lo, hi]` (`lo` when `hi ≤ lo`).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        let u = self.uniform();
        if hi > lo { lo + (hi - lo) * u } else { lo }
    }
}

/// The operation a hit chose.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ChosenOperation {
    /// Where.
    pub location: Location,
    /// The bone acted on: the struck bone, the indirect candidate's location
    /// bone, or the virtual location's parent.
    pub bone: BoneIndex,
    /// The bone's region.
    pub region: RegionIndex,
    /// The operation.
    pub operation: Operation,
    /// Probability it was drawn with.
    pub probability: f32,
    /// Happened only because the preset is enforced.
    pub enforced_override: bool,
}

/// The decision for one hit.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Decision {
    /// The body operation, if any.
    pub operation: Option<ChosenOperation>,
    /// The hit kills: health reached 0, the preset has `kill`, or the chosen
    /// operation's rule is lethal. Independent of `operation`: a hit can kill
    /// and cut at once.
    pub kills: bool,
}

fn moot(model: &BodyModel, state: &BodyState, bone: BoneIndex, op: &Operation) -> bool {
    let Some(b) = model.bone(bone) else {
        return true;
    };
    let Some(bs) = state.bone_state(bone) else {
        return true;
    };
    if bs.contains(BoneState::DETACHED) {
        return true;
    }
    match op.category {
        OperationCategory::Break => state
            .element_state(b.region)
            .is_none_or(|e| e.contains(ElementState::BROKEN)),
        OperationCategory::Deformation => bs.contains(BoneState::DEFORMED),
        _ => false,
    }
}

/// Decides one hit from its ranked candidates (see the module docs).
///
/// # Errors
/// [`RuleError::Health`] or [`RuleError::Probability`] for a bad context,
/// [`RuleError::BoneOutOfRange`] or [`RuleError::CandidateOutOfRange`] for a
/// candidate not in the model, [`RuleError::RegionOutOfRange`]. Nothing is
/// changed (the state is read-only here).
pub fn decide(
    model: &BodyModel,
    rules: &RuleSet,
    state: &BodyState,
    candidates: &[Candidate],
    ctx: &RuleContext,
    rng: &mut DecisionRng,
) -> Result<Decision, RuleError> {
    ctx.validate()?;
    let mut chosen = None;
    'outer: for c in candidates {
        let mut ops: [Option<Operation>; 3] = [None; 3];
        let bone = match c.location {
            Location::Indirect(i) => {
                let ic = model
                    .indirect_candidate(i)
                    .ok_or(RuleError::CandidateOutOfRange(c.location))?;
                ops[0] = Some(ic.operation);
                ic.location
            }
            Location::Virtual(v) => {
                let vl = model
                    .virtual_location(v)
                    .ok_or(RuleError::CandidateOutOfRange(c.location))?;
                ops[0] = Some(vl.operation);
                vl.parent
            }
            Location::Bone(b) => {
                let bone = model.bone(b).ok_or(RuleError::BoneOutOfRange(b))?;
                ops[0] = bone.cut;
                ops[1] = model.region(bone.region).and_then(|r| r.break_operation);
                ops[2] = bone.deformation;
                b
            }
        };
        let region = model
            .bone(bone)
            .ok_or(RuleError::BoneOutOfRange(bone))?
            .region;
        for op in ops.iter().flatten() {
            if moot(model, state, bone, op) {
                continue;
            }
            if let Verdict::Allowed {
                probability,
                lethal,
                enforced_override,
            } = rules.verdict(region, op.input, ctx)?
                && rng.uniform() < probability
            {
                chosen = Some((
                    ChosenOperation {
                        location: c.location,
                        bone,
                        region,
                        operation: *op,
                        probability,
                        enforced_override,
                    },
                    lethal,
                ));
                break 'outer;
            }
        }
    }
    let kills = ctx.health_percent <= 0.0
        || ctx.preset.flags.kill
        || chosen.is_some_and(|(_, lethal)| lethal);
    Ok(Decision {
        operation: chosen.map(|(c, _)| c),
        kills,
    })
}

/// Whether an input is a detaching cut (a `Cut` whose category detaches).
pub fn is_detaching(op: &Operation) -> bool {
    op.input == OperationInput::Cut && op.category.detaches()
}
