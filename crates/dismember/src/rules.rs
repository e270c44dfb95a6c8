//! Damage rules: may this operation happen, and with what probability
//! (seed §2).
//!
//! * **Health gate** (§2.1): `75.0` in the Biter preset is a maximum body
//!   health percent, not a probability: arm `Cut`/`Break` are allowed at
//!   ≤ 75 %, head `Cut` at ≤ 50 %.
//! * **Lethality** (§2.1): a [`RegionRule`] marked `non_lethal` does not by
//!   itself kill; the weapon's damage may still kill in the same hit, so an
//!   attack can kill and cut at once.
//! * **`ProbabilityMul(op, k)`** per region (head cut × 0.5) and **additive
//!   modifiers** (`ragdoll_during_bleeding_increases_limb_cut_prob`: `+0.1`
//!   when the damage carries the Ragdoll reaction flag and the victim is
//!   Bleeding, §2.2).
//! * **Presets** (§2.3): the base probabilities come from the damage preset
//!   ([`DamagePreset`], default 0); `finisher_limb_cut` is cut probability 1.0
//!   with enforced + unconstrained + kill; `wall_hit_ragdoll` is enforced,
//!   cut 1.0, break 0.6.
//!
//! # Evaluation order (fixed)
//! `p = clamp₀¹((p_base + Σ add) · Π mul)`: additive modifiers first, then the
//! region multiplier, then the clamp. The seed leaves the order open ("先加再乘"
//! vs "先乘再加" feel different, §2.2); this crate fixes add-then-multiply so
//! a region multiplier scales the modifiers too (below the clamp, a head cut
//! stays half as likely as the same cut without the multiplier). Base 0.5,
//! `+0.1`, `×0.5` gives 0.30; the other order would give 0.35.
//!
//! # Flags
//! * **enforced**: the operation happens if the location has it (its recipe
//!   exists) even when the rules reject it (no rule for it, or the health
//!   gate); the probability draw still applies (wall-hit break 0.6).
//! * **unconstrained**: the health gate is skipped; a missing rule still rejects.
//! * **kill**: the hit kills.

use crate::body_model::{BodyModel, OperationInput};
use crate::error::RuleError;
use crate::index::RegionIndex;
use crate::state::VictimStates;
use serde::{Deserialize, Serialize};

/// Reaction flags a damage carries (§2.2).
#[derive(
    Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct ReactionFlags(pub u32);

impl ReactionFlags {
    /// No reaction flags.
    pub const EMPTY: Self = Self(0);
    /// The damage makes the victim ragdoll.
    pub const RAGDOLL: Self = Self(1);
    /// Whether every flag of `other` is set.
    pub fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }
    /// Union.
    pub fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }
}

/// Body-damage flags of a damage preset.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DamageFlags {
    /// `BodyDamageEnforced`: rule rejection is overridden if the resource exists.
    pub enforced: bool,
    /// `BodyDamageUnconstrained`: the health gate is skipped.
    pub unconstrained: bool,
    /// `Kill`: the hit kills.
    pub kill: bool,
}

/// A damage preset: base probabilities, flags and reaction (§2.3).
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DamagePreset {
    /// Base probability of a `Cut` (limb cut, hole), in `[0, 1]`; default 0.
    pub limb_cut_probability: f32,
    /// Base probability of a `Break`, in `[0, 1]`; default 0.
    pub break_probability: f32,
    /// Base probability of a `Deformation`, in `[0, 1]`; default 0.
    pub deformation_probability: f32,
    /// Flags.
    pub flags: DamageFlags,
    /// Reaction flags the damage carries.
    pub reaction: ReactionFlags,
}

impl DamagePreset {
    /// `finisher_limb_cut` (`sync_action_damage_presets.scr`): cut probability
    /// 1.0, enforced + unconstrained + kill.
    pub fn finisher_limb_cut() -> Self {
        Self {
            limb_cut_probability: 1.0,
            flags: DamageFlags {
                enforced: true,
                unconstrained: true,
                kill: true,
            },
            ..Self::default()
        }
    }

    /// `wall_hit_ragdoll` (`ai_damage_presets.scr`): enforced, cut 1.0,
    /// break 0.6, Ragdoll reaction.
    pub fn wall_hit_ragdoll() -> Self {
        Self {
            limb_cut_probability: 1.0,
            break_probability: 0.6,
            flags: DamageFlags {
                enforced: true,
                ..DamageFlags::default()
            },
            reaction: ReactionFlags::RAGDOLL,
            ..Self::default()
        }
    }

    /// The base probability for an operation input.
    pub fn base_probability(&self, input: OperationInput) -> f32 {
        match input {
            OperationInput::Cut => self.limb_cut_probability,
            OperationInput::Break => self.break_probability,
            OperationInput::Deformation => self.deformation_probability,
        }
    }

    /// Checks every probability is in `[0, 1]`.
    ///
    /// # Errors
    /// [`RuleError::Probability`] naming the field.
    pub fn validate(&self) -> Result<(), RuleError> {
        for (field, value) in [
            ("limb_cut_probability", self.limb_cut_probability),
            ("break_probability", self.break_probability),
            ("deformation_probability", self.deformation_probability),
        ] {
            check_probability(field, value)?;
        }
        Ok(())
    }
}

fn check_probability(field: &'static str, value: f32) -> Result<(), RuleError> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(RuleError::Probability { field, value })
    }
}

/// Checks a body health percent is in `[0, 100]`.
///
/// # Errors
/// [`RuleError::Health`] otherwise (NaN included).
pub fn check_health(health_percent: f32) -> Result<(), RuleError> {
    if (0.0..=100.0).contains(&health_percent) {
        Ok(())
    } else {
        Err(RuleError::Health {
            value: health_percent,
        })
    }
}

/// A named reaction flag in rule text.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReactionFlagName {
    /// [`ReactionFlags::RAGDOLL`].
    Ragdoll,
}

/// A named victim state in rule text.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum VictimStateName {
    /// [`VictimStates::BLEEDING`].
    Bleeding,
    /// [`VictimStates::DEAD`].
    Dead,
}

/// One region rule in text form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionRuleDesc {
    /// Region name.
    pub region: String,
    /// Operation input the rule governs.
    pub operation: OperationInput,
    /// Largest body health percent at which the operation is allowed, `[0, 100]`.
    pub max_health_percent: f32,
    /// `NonLethal`: the operation does not by itself kill (default true).
    #[serde(default = "yes")]
    pub non_lethal: bool,
    /// `ProbabilityMul(op, k)`: finite, ≥ 0 (default 1).
    #[serde(default = "one")]
    pub probability_mul: f32,
}

fn yes() -> bool {
    true
}

fn one() -> f32 {
    1.0
}

/// One additive modifier in text form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModifierDesc {
    /// Name (`ragdoll_during_bleeding_increases_limb_cut_prob`).
    pub name: String,
    /// Operation input whose probability it changes.
    pub operation: OperationInput,
    /// Reaction flags the damage must carry.
    #[serde(default)]
    pub requires_reaction: Vec<ReactionFlagName>,
    /// States the victim must be in.
    #[serde(default)]
    pub requires_victim_state: Vec<VictimStateName>,
    /// Added probability, in `[-1, 1]` (`0.1`).
    pub add: f32,
}

/// A rule set in text form (a body preset such as Biter, §2.1).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSetDesc {
    /// Region rules.
    #[serde(default)]
    pub rules: Vec<RegionRuleDesc>,
    /// Additive modifiers.
    #[serde(default)]
    pub modifiers: Vec<ModifierDesc>,
}

/// A validated region rule.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RegionRule {
    /// Largest body health percent allowing the operation.
    pub max_health_percent: f32,
    /// The operation does not by itself kill.
    pub non_lethal: bool,
    /// Probability multiplier.
    pub probability_mul: f32,
}

/// A validated additive modifier.
#[derive(Clone, Debug, PartialEq)]
pub struct Modifier {
    /// Name.
    pub name: String,
    /// Operation input affected.
    pub operation: OperationInput,
    /// Required reaction flags.
    pub requires_reaction: ReactionFlags,
    /// Required victim states.
    pub requires_victim_state: VictimStates,
    /// Added probability.
    pub add: f32,
}

/// What the rules say about one operation at one region.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Allowed with this probability (already clamped to `[0, 1]`).
    Allowed {
        /// Probability of the draw.
        probability: f32,
        /// The operation itself kills (its rule is not `NonLethal`).
        lethal: bool,
        /// Allowed only because the preset is enforced.
        enforced_override: bool,
    },
    /// No rule governs the operation at this region.
    NoRule,
    /// The health gate rejected it: `health_percent > max_health_percent`.
    HealthGate {
        /// Body health percent at evaluation.
        health_percent: f32,
        /// The rule's maximum.
        max_health_percent: f32,
    },
}

/// The inputs the rules read for one hit.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RuleContext {
    /// Body health percent at evaluation, `[0, 100]` (after the hit's own damage).
    pub health_percent: f32,
    /// The damage preset.
    pub preset: DamagePreset,
    /// Reaction flags of this damage (united with the preset's).
    pub reaction: ReactionFlags,
    /// Victim states (Bleeding).
    pub victim_states: VictimStates,
}

impl RuleContext {
    /// Validates health and preset.
    ///
    /// # Errors
    /// [`RuleError::Health`], [`RuleError::Probability`].
    pub fn validate(&self) -> Result<(), RuleError> {
        check_health(self.health_percent)?;
        self.preset.validate()
    }
}

/// A validated rule set: at most one rule per (region, operation input),
/// stored densely (`regions × 3`), plus additive modifiers in file order.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleSet {
    rules: Vec<Option<RegionRule>>,
    modifiers: Vec<Modifier>,
}

fn input_slot(input: OperationInput) -> usize {
    match input {
        OperationInput::Cut => 0,
        OperationInput::Deformation => 1,
        OperationInput::Break => 2,
    }
}

impl RuleSet {
    /// Parses and validates TOML rules against `model`.
    ///
    /// # Errors
    /// [`RuleError::Parse`], then every error of [`RuleSet::new`].
    pub fn from_toml_str(model: &BodyModel, text: &str) -> Result<Self, RuleError> {
        let desc: RuleSetDesc =
            toml::from_str(text).map_err(|e| RuleError::Parse(e.to_string()))?;
        Self::new(model, &desc)
    }

    /// Validates rules against `model`: at most one rule per (region, input),
    /// modifier names non-empty and unique.
    ///
    /// # Errors
    /// [`RuleError::UnknownRegion`], [`RuleError::DuplicateRule`],
    /// [`RuleError::BadModifierName`], [`RuleError::Health`] for a
    /// `max_health_percent` outside `[0, 100]`, [`RuleError::Multiplier`],
    /// [`RuleError::Additive`].
    pub fn new(model: &BodyModel, desc: &RuleSetDesc) -> Result<Self, RuleError> {
        let mut rules = vec![None; model.region_count() * 3];
        for r in &desc.rules {
            let region = model
                .region_index(&r.region)
                .ok_or_else(|| RuleError::UnknownRegion(r.region.clone()))?;
            check_health(r.max_health_percent)?;
            if !(r.probability_mul.is_finite() && r.probability_mul >= 0.0) {
                return Err(RuleError::Multiplier {
                    value: r.probability_mul,
                });
            }
            let slot = &mut rules[region.ix() * 3 + input_slot(r.operation)];
            if slot.is_some() {
                return Err(RuleError::DuplicateRule {
                    region: r.region.clone(),
                    input: r.operation,
                });
            }
            *slot = Some(RegionRule {
                max_health_percent: r.max_health_percent,
                non_lethal: r.non_lethal,
                probability_mul: r.probability_mul,
            });
        }
        let mut modifiers = Vec::with_capacity(desc.modifiers.len());
        for (i, m) in desc.modifiers.iter().enumerate() {
            if m.name.trim().is_empty() || desc.modifiers[..i].iter().any(|o| o.name == m.name) {
                return Err(RuleError::BadModifierName(m.name.clone()));
            }
            if !(-1.0..=1.0).contains(&m.add) {
                return Err(RuleError::Additive { value: m.add });
            }
            let mut reaction = ReactionFlags::EMPTY;
            for f in &m.requires_reaction {
                reaction = reaction.union(match f {
                    ReactionFlagName::Ragdoll => ReactionFlags::RAGDOLL,
                });
            }
            let mut states = VictimStates::EMPTY;
            for s in &m.requires_victim_state {
                states.insert(match s {
                    VictimStateName::Bleeding => VictimStates::BLEEDING,
                    VictimStateName::Dead => VictimStates::DEAD,
                });
            }
            modifiers.push(Modifier {
                name: m.name.clone(),
                operation: m.operation,
                requires_reaction: reaction,
                requires_victim_state: states,
                add: m.add,
            });
        }
        Ok(Self { rules, modifiers })
    }

    /// The rule for (region, input), if any.
    pub fn rule(&self, region: RegionIndex, input: OperationInput) -> Option<&RegionRule> {
        self.rules
            .get(region.ix() * 3 + input_slot(input))
            .and_then(|r| r.as_ref())
    }

    /// The additive modifiers, in file order.
    pub fn modifiers(&self) -> &[Modifier] {
        &self.modifiers
    }

    /// Sum of the additive modifiers that apply to `input` under `ctx`.
    pub fn additive(&self, input: OperationInput, ctx: &RuleContext) -> f32 {
        let reaction = ctx.reaction.union(ctx.preset.reaction);
        let mut sum = 0.0;
        for m in &self.modifiers {
            if m.operation == input
                && reaction.contains(m.requires_reaction)
                && ctx.victim_states.contains(m.requires_victim_state)
            {
                sum += m.add;
            }
        }
        sum
    }

    /// The rules' verdict on `input` at `region` (see the module docs for the
    /// flags and the evaluation order). Assumes a validated `ctx`.
    ///
    /// # Errors
    /// [`RuleError::RegionOutOfRange`].
    pub fn verdict(
        &self,
        region: RegionIndex,
        input: OperationInput,
        ctx: &RuleContext,
    ) -> Result<Verdict, RuleError> {
        if region.ix() * 3 >= self.rules.len() {
            return Err(RuleError::RegionOutOfRange(region));
        }
        let rule = self.rule(region, input);
        let flags = ctx.preset.flags;
        let rejected = match rule {
            None => Some(Verdict::NoRule),
            Some(r) if !flags.unconstrained && ctx.health_percent > r.max_health_percent => {
                Some(Verdict::HealthGate {
                    health_percent: ctx.health_percent,
                    max_health_percent: r.max_health_percent,
                })
            }
            Some(_) => None,
        };
        if let Some(v) = rejected
            && !flags.enforced
        {
            return Ok(v);
        }
        let mul = rule.map_or(1.0, |r| r.probability_mul);
        let probability = combine_probability(
            ctx.preset.base_probability(input),
            self.additive(input, ctx),
            mul,
        );
        Ok(Verdict::Allowed {
            probability,
            lethal: rule.is_some_and(|r| !r.non_lethal),
            enforced_override: rejected.is_some(),
        })
    }
}

/// The fixed evaluation order: `clamp₀¹((base + add) · mul)`.
pub fn combine_probability(base: f32, add: f32, mul: f32) -> f32 {
    ((base + add) * mul).clamp(0.0, 1.0)
}
