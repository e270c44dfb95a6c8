//! Damage events and the three rules that turn one into per-bond damage.
//!
//! **Radial (renormalised budget)**: the exact distribution rule of DESIGN
//! §3.3 (destruction-system seed, "径向伤害分配"). For the intact bonds
//! within radius `R` of the impact point, with frozen distances `dᵢ` and
//! budget `D`:
//!
//! `wᵢ = max(0, 1 − dᵢ/R)`, `Δhᵢ = D · wᵢ / Σⱼ wⱼ`, `hᵢ ← max(0, hᵢ − Δhᵢ)`.
//!
//! Only intact bonds inside `R` count in the denominator; with a zero
//! denominator the event changes nothing. Damage beyond a bond's remaining
//! health is dissipated, never re-spread, so `Σ applied ≤ D`. The total is
//! the point of this rule (scripted damage, contact impacts): it is shared
//! out, so the more bonds in range the less each one takes.
//!
//! **Falloff (per bond)**: for explosions (issue 11, item 4). Each intact
//! bond at frozen distance `dᵢ` takes, independently of every other bond,
//!
//! `Δhᵢ = damage · f(dᵢ)`, `hᵢ ← max(0, hᵢ − Δhᵢ)`, with
//! `f(d) = 1` for `d ≤ r_in`, `(r_out − d)/(r_out − r_in)` for
//! `r_in < d < r_out`, `0` for `d ≥ r_out`.
//!
//! This is the linear falloff profile of NVIDIA Blast's radial damage
//! shaders (`NvBlastExtFalloffGraphShader` with `NvBlastExtRadialDamageDesc
//! { damage, position, minRadius, maxRadius }`; the profile is
//! `falloffProfile` in `sdk/extensions/shaders/source/NvBlastExtDamageShaders.cpp`):
//! every bond gets `damage × profile(distance)`, so refining the fracture
//! does not weaken the blast. The damage is **not** scaled by bond area: a
//! bond's health is its strength, the du it takes to break it, and the
//! asset decides how that strength relates to the interface area (the
//! authoring tool writes `strength_per_area × area`). A bond breaks when
//! `damage · f(d) ≥ h`, i.e. its fate depends on its distance and its
//! strength only.
//!
//! **Spread (through the bond graph)**: for impacts (issue 11, item 1). The
//! budget starts at the touched chunk and is spent ring by ring over the
//! intact graph, weakest bonds first, passing on only through a ring it
//! severed; what no ring within the reach could take is reported unspent.
//! See [`spread`].
//!
//! **Stress (listed per bond)**: the damage a converged stress solve
//! assigns to overloaded bonds over one step (issue 13, item 2; DESIGN §6).
//! The event carries its list `(bond, damage du, fatal)` as computed by the
//! solver ([`crate::stress`]); applying it writes `h ← max(0, h − d)` per
//! entry, or `h ← 0` for a fatal one, skipping bonds already broken. See
//! [`StressDamage`].

use crate::error::DamageError;
use crate::index::{BondIndex, ChunkIndex};
use glam::Vec3;
use serde::{Deserialize, Serialize};

pub mod spread;

pub use crate::stress::StressBondDamage;
pub use spread::{SpreadOutcome, SpreadScratch, apply_spread};

/// Caller-chosen identity of a damage event, unique per asset instance.
///
/// # Layout
/// The 64 bits are a [`EventSource`] (the upper 16 bits: who sent the
/// event) and that source's sequence number (the lower 48 bits,
/// [`EventId::SEQUENCE_BITS`]). Admission deduplicates per source with a
/// bounded window over the sequence numbers (see [`crate::receipts`]), so
/// each source should number its events increasingly; gaps and reordering
/// within the window are fine. `EventId(n)` for `n < 2⁴⁸` is sequence `n`
/// of [`EventSource::SERVER`], which is how ids written before the layout
/// existed read.
///
/// ```
/// use smithereens_core::{EventId, EventSource};
/// let id = EventId::new(EventSource(3), 41);
/// assert_eq!(id, EventId((3 << 48) | 41));
/// assert_eq!((id.source(), id.sequence()), (EventSource(3), 41));
/// assert_eq!(EventId(7).source(), EventSource::SERVER);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EventId(pub u64);

impl EventId {
    /// Bits of the per-source sequence number (the low bits of the id).
    pub const SEQUENCE_BITS: u32 = 48;
    /// Largest sequence number: `2⁴⁸ − 1`.
    pub const MAX_SEQUENCE: u64 = (1 << Self::SEQUENCE_BITS) - 1;

    /// The id of sequence number `sequence` of `source`; bits of `sequence`
    /// above [`Self::MAX_SEQUENCE`] are dropped.
    pub const fn new(source: EventSource, sequence: u64) -> Self {
        Self(((source.0 as u64) << Self::SEQUENCE_BITS) | (sequence & Self::MAX_SEQUENCE))
    }
    /// Who sent the event (the upper 16 bits).
    pub const fn source(self) -> EventSource {
        EventSource((self.0 >> Self::SEQUENCE_BITS) as u16)
    }
    /// The sender's sequence number (the lower 48 bits).
    pub const fn sequence(self) -> u64 {
        self.0 & Self::MAX_SEQUENCE
    }
}

/// The sender of damage events, the upper 16 bits of an [`EventId`]: the
/// authoritative server, a peer (one source per peer, numbered by the
/// game), or the contact system. Each source numbers its own events; the
/// receipt window ([`crate::receipts`]) is kept per source.
#[derive(
    Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct EventSource(pub u16);

impl EventSource {
    /// The authoritative server or the local game (scripted damage,
    /// explosions): source 0, so plain `EventId(n)` ids belong to it.
    pub const SERVER: Self = Self(0);
    /// Damage made from contacts by the physics integration: source
    /// `0x8000`, the ids `smithereens-rapier` makes as
    /// `CONTACT_EVENT_BIT | counter` (bit 63 set, counter below 2⁴⁸).
    pub const CONTACTS: Self = Self(0x8000);
    /// Stress damage ([`StressDamage`]): source `0x8001`, numbered per
    /// instance by the solve that produced it
    /// ([`crate::stress::InstanceStress`]).
    pub const STRESS: Self = Self(0x8001);
}

impl std::fmt::Display for EventSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "source {}", self.0)
    }
}

impl std::fmt::Display for EventId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A radial damage event (and optional explosion impulse), world space.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RadialDamage {
    /// Idempotency key: the same id is applied at most once.
    pub id: EventId,
    /// Impact point, m, world space.
    pub point: Vec3,
    /// Radius R, m. Positive and finite.
    pub radius: f32,
    /// Damage budget D, du. Non-negative and finite.
    pub damage: f32,
    /// Optional impulse J, N·s, applied once at `point` to the cluster that
    /// holds the chunk nearest to `point` after the commit.
    pub impulse: Option<Vec3>,
}

impl RadialDamage {
    /// Checks the parameter ranges of §3.3.
    ///
    /// # Errors
    /// [`DamageError::BadRadius`], [`DamageError::BadDamage`],
    /// [`DamageError::NonFinitePoint`], [`DamageError::NonFiniteImpulse`].
    pub fn validate(&self) -> Result<(), DamageError> {
        self.event().validate()
    }

    /// True when both events carry bit-identical parameters (the id aside).
    pub fn same_parameters(&self, other: &Self) -> bool {
        self.event().same_parameters(&other.event())
    }

    /// This event as the [`DamageEvent`] admission takes.
    pub fn event(&self) -> DamageEvent {
        DamageEvent::from(*self)
    }
}

impl From<RadialDamage> for DamageEvent {
    fn from(e: RadialDamage) -> Self {
        Self {
            id: e.id,
            point: e.point,
            model: DamageModel::Radial {
                radius: e.radius,
                damage: e.damage,
            },
            impulse: e.impulse,
        }
    }
}

/// An explosion's damage: per-bond linear falloff (see the module docs),
/// world space.
///
/// ```
/// use smithereens_core::{DamageEvent, EventId, FalloffDamage};
/// use smithereens_core::glam::Vec3;
/// let blast = FalloffDamage {
///     id: EventId(1),
///     point: Vec3::ZERO,
///     inner_radius: 1.0,
///     outer_radius: 2.0,
///     damage: 300.0,
///     impulse: None,
/// };
/// assert!(blast.validate().is_ok());
/// // A bond 1.5 m away takes half of the damage.
/// assert_eq!(blast.damage * smithereens_core::damage::falloff(1.5, 1.0, 2.0), 150.0);
/// let event: DamageEvent = blast.into();
/// assert_eq!(event.reach(), 2.0);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FalloffDamage {
    /// Idempotency key: the same id is applied at most once.
    pub id: EventId,
    /// Centre, m, world space.
    pub point: Vec3,
    /// Inner radius `r_in`, m: bonds at this distance or closer take the
    /// full `damage`. Finite, `0 ≤ r_in ≤ r_out`.
    pub inner_radius: f32,
    /// Outer radius `r_out`, m: bonds at this distance or farther take
    /// nothing. Positive and finite.
    pub outer_radius: f32,
    /// Damage applied to each bond within `inner_radius`, du (not a budget:
    /// every bond in range takes its own share `damage · f(d)`). Non-negative
    /// and finite.
    pub damage: f32,
    /// Optional impulse J, N·s, applied once at `point` to the cluster that
    /// holds the chunk nearest to `point` after the commit.
    pub impulse: Option<Vec3>,
}

impl FalloffDamage {
    /// Checks the parameter ranges.
    ///
    /// # Errors
    /// [`DamageError::BadFalloffRadii`], [`DamageError::BadDamage`],
    /// [`DamageError::NonFinitePoint`], [`DamageError::NonFiniteImpulse`].
    pub fn validate(&self) -> Result<(), DamageError> {
        self.event().validate()
    }

    /// This event as the [`DamageEvent`] admission takes.
    pub fn event(&self) -> DamageEvent {
        DamageEvent::from(*self)
    }
}

impl From<FalloffDamage> for DamageEvent {
    fn from(e: FalloffDamage) -> Self {
        Self {
            id: e.id,
            point: e.point,
            model: DamageModel::Falloff {
                inner_radius: e.inner_radius,
                outer_radius: e.outer_radius,
                damage: e.damage,
            },
            impulse: e.impulse,
        }
    }
}

/// An impact whose damage starts at the chunk it touched and spreads
/// through the bond graph ([`spread`]): its extent grows with `damage`, not
/// with any world-space radius.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpreadDamage {
    /// Idempotency key: the same id is applied at most once.
    pub id: EventId,
    /// The touched chunk (a support-level chunk of the instance's asset).
    pub chunk: ChunkIndex,
    /// Contact point, m, world space (where `impulse` is applied).
    pub point: Vec3,
    /// Budget D, du. Non-negative and finite.
    pub damage: f32,
    /// Reach: most rings of the graph the budget may cross (≥ 1; what is
    /// left past them is reported unspent).
    pub max_rings: u32,
    /// Optional impulse J, N·s, applied once at `point` to the cluster that
    /// holds `chunk` after the commit.
    pub impulse: Option<Vec3>,
}

impl SpreadDamage {
    /// This event as the [`DamageEvent`] admission takes.
    pub fn event(&self) -> DamageEvent {
        DamageEvent::from(*self)
    }
}

impl From<SpreadDamage> for DamageEvent {
    fn from(e: SpreadDamage) -> Self {
        Self {
            id: e.id,
            point: e.point,
            model: DamageModel::Spread {
                chunk: e.chunk,
                damage: e.damage,
                max_rings: e.max_rings,
            },
            impulse: e.impulse,
        }
    }
}

/// The damage one stress solve (or one step of a standing overload)
/// assigns to the bonds of one instance: a list, not a rule, because the
/// solve that produced it ran outside admission
/// ([`crate::stress::InstanceStress`]). Its id is deterministic per solve
/// (source [`EventSource::STRESS`], the instance's stress sequence), so it is
/// admitted, deduplicated, journaled, replicated and replayed like any other
/// event; applying it writes each entry's damage into bond health (`fatal`:
/// the bond breaks), skipping bonds an earlier event of the batch broke.
///
/// ```
/// use smithereens_core::{BondIndex, DamageEvent, EventId, EventSource, StressDamage};
/// use smithereens_core::stress::StressBondDamage;
/// let e = StressDamage {
///     id: EventId::new(EventSource::STRESS, 1),
///     point: smithereens_core::glam::Vec3::ZERO,
///     bonds: vec![
///         StressBondDamage { bond: BondIndex(2), damage: 0.5, fatal: false },
///         StressBondDamage { bond: BondIndex(7), damage: 9.0, fatal: true },
///     ],
/// };
/// assert!(e.validate().is_ok());
/// let event: DamageEvent = e.into();
/// assert_eq!(event.damage(), 9.5);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StressDamage {
    /// Idempotency key: the same id is applied at most once.
    pub id: EventId,
    /// Where the worst-hit bond is, m, world (for display and reports; not
    /// used by the damage).
    pub point: Vec3,
    /// The damaged bonds, ascending and distinct by bond index.
    pub bonds: Vec<StressBondDamage>,
}

impl StressDamage {
    /// Checks the list: ascending distinct bonds, damage finite and ≥ 0.
    ///
    /// # Errors
    /// [`DamageError::BadStressList`], [`DamageError::BadDamage`].
    pub fn validate(&self) -> Result<(), DamageError> {
        self.clone().event().validate()
    }

    /// This event as the [`DamageEvent`] admission takes.
    pub fn event(self) -> DamageEvent {
        DamageEvent::from(self)
    }
}

impl From<StressDamage> for DamageEvent {
    fn from(e: StressDamage) -> Self {
        Self {
            id: e.id,
            point: e.point,
            model: DamageModel::Stress { bonds: e.bonds },
            impulse: None,
        }
    }
}

/// How an event's damage reaches the bonds around its point.
///
/// Not `Copy`: a [`DamageModel::Stress`] event carries its per-bond list.
/// New models are appended, so the binary frames of older ones keep their
/// variant numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum DamageModel {
    /// DESIGN §3.3: budget `damage` (du) shared out over the intact bonds
    /// within `radius` (m) by the renormalised weights `1 − d/R`.
    Radial {
        /// R, m. Positive and finite.
        radius: f32,
        /// Budget D, du. Non-negative and finite.
        damage: f32,
    },
    /// Per-bond linear falloff: each bond takes `damage · f(d)` (du), see
    /// [`falloff`]. Used by explosions.
    Falloff {
        /// r_in, m. Finite, `0 ≤ r_in ≤ r_out`.
        inner_radius: f32,
        /// r_out, m. Positive and finite.
        outer_radius: f32,
        /// Damage at `d ≤ r_in`, du per bond. Non-negative and finite.
        damage: f32,
    },
    /// Budget `damage` (du) spent ring by ring through the intact bond
    /// graph from `chunk`, over at most `max_rings` rings ([`spread`]).
    /// Used by contact impacts.
    Spread {
        /// The touched chunk.
        chunk: ChunkIndex,
        /// Budget D, du. Non-negative and finite.
        damage: f32,
        /// Most rings crossed, ≥ 1.
        max_rings: u32,
    },
    /// Per-bond damage listed by a converged stress solve
    /// ([`StressDamage`]): ascending, distinct bonds, each `damage` finite
    /// and ≥ 0 du, `fatal` breaking the bond outright.
    Stress {
        /// The damaged bonds, ascending by bond index.
        bonds: Vec<StressBondDamage>,
    },
}

/// A damage event as admitted, queued, applied, recorded and replicated:
/// identity, point and impulse, plus the rule ([`DamageModel`]) that turns
/// it into per-bond damage. Build one from a [`RadialDamage`] or a
/// [`FalloffDamage`] (`.into()`).
///
/// Binary formats (postcard frames) written before this type existed hold
/// a bare [`RadialDamage`] where an event is; [`crate::codec`] decodes
/// those frames (format version 1) into [`DamageModel::Radial`] events.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DamageEvent {
    /// Idempotency key: the same id is applied at most once.
    pub id: EventId,
    /// Impact point or blast centre, m, world space.
    pub point: Vec3,
    /// The distribution rule and its parameters.
    pub model: DamageModel,
    /// Optional impulse J, N·s, applied once at `point` to the cluster that
    /// holds the chunk nearest to `point` after the commit.
    pub impulse: Option<Vec3>,
}

/// The serde shape of [`DamageEvent`] (derived), read unless a legacy frame is being decoded.
#[derive(Deserialize)]
#[serde(rename = "DamageEvent")]
struct DamageEventRepr {
    id: EventId,
    point: Vec3,
    model: DamageModel,
    impulse: Option<Vec3>,
}

impl<'de> Deserialize<'de> for DamageEvent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if crate::codec::legacy_event_layout() {
            return RadialDamage::deserialize(d).map(Self::from);
        }
        let r = DamageEventRepr::deserialize(d)?;
        Ok(Self {
            id: r.id,
            point: r.point,
            model: r.model,
            impulse: r.impulse,
        })
    }
}

impl DamageEvent {
    /// Checks the parameter ranges of the event's model.
    ///
    /// # Errors
    /// [`DamageError::BadRadius`] (radial), [`DamageError::BadFalloffRadii`]
    /// (falloff), [`DamageError::BadDamage`], [`DamageError::NonFinitePoint`],
    /// [`DamageError::NonFiniteImpulse`].
    pub fn validate(&self) -> Result<(), DamageError> {
        let damage = match self.model {
            DamageModel::Radial { radius, damage } => {
                if !(radius.is_finite() && radius > 0.0) {
                    return Err(DamageError::BadRadius(radius));
                }
                damage
            }
            DamageModel::Falloff {
                inner_radius,
                outer_radius,
                damage,
            } => {
                if !(outer_radius.is_finite()
                    && outer_radius > 0.0
                    && inner_radius.is_finite()
                    && inner_radius >= 0.0
                    && inner_radius <= outer_radius)
                {
                    return Err(DamageError::BadFalloffRadii {
                        inner: inner_radius,
                        outer: outer_radius,
                    });
                }
                damage
            }
            DamageModel::Spread {
                damage, max_rings, ..
            } => {
                if max_rings == 0 {
                    return Err(DamageError::BadReach(max_rings));
                }
                damage
            }
            DamageModel::Stress { ref bonds } => {
                if let Some(w) = bonds.windows(2).find(|w| w[0].bond >= w[1].bond) {
                    return Err(DamageError::BadStressList(w[1].bond.0));
                }
                match bonds
                    .iter()
                    .find(|b| !(b.damage.is_finite() && b.damage >= 0.0))
                {
                    Some(b) => b.damage,
                    None => 0.0,
                }
            }
        };
        if !(damage.is_finite() && damage >= 0.0) {
            return Err(DamageError::BadDamage(damage));
        }
        if !self.point.is_finite() {
            return Err(DamageError::NonFinitePoint(self.point));
        }
        if let Some(j) = self.impulse
            && !j.is_finite()
        {
            return Err(DamageError::NonFiniteImpulse(j));
        }
        Ok(())
    }

    /// Distance (m) beyond which a bond takes nothing: `R` (radial) or
    /// `r_out` (falloff); 0 for a spreading or a stress event, which have no
    /// world-space extent (a spread's reach is counted in rings of the
    /// graph, a stress event lists its bonds).
    pub fn reach(&self) -> f32 {
        match self.model {
            DamageModel::Radial { radius, .. } => radius,
            DamageModel::Falloff { outer_radius, .. } => outer_radius,
            DamageModel::Spread { .. } | DamageModel::Stress { .. } => 0.0,
        }
    }

    /// True for an event that measures no geometry at admission (spread,
    /// stress): it is applied to the graph and health at commit time.
    pub fn is_listed_or_spread(&self) -> bool {
        matches!(
            self.model,
            DamageModel::Spread { .. } | DamageModel::Stress { .. }
        )
    }

    /// The bonds of a stress event.
    pub fn stress_bonds(&self) -> Option<&[StressBondDamage]> {
        match &self.model {
            DamageModel::Stress { bonds } => Some(bonds),
            _ => None,
        }
    }

    /// The touched chunk of a spreading event.
    pub fn spread_chunk(&self) -> Option<ChunkIndex> {
        match self.model {
            DamageModel::Spread { chunk, .. } => Some(chunk),
            _ => None,
        }
    }

    /// The event's damage parameter, du: the budget D (radial, spread),
    /// the per-bond damage inside the inner radius (falloff), or the sum of
    /// the listed damages (stress; a fatal entry counts its listed damage).
    pub fn damage(&self) -> f32 {
        match &self.model {
            DamageModel::Radial { damage, .. }
            | DamageModel::Falloff { damage, .. }
            | DamageModel::Spread { damage, .. } => *damage,
            DamageModel::Stress { bonds } => bonds.iter().map(|b| b.damage).sum(),
        }
    }

    /// The radial event this is, if it uses the radial model.
    pub fn as_radial(&self) -> Option<RadialDamage> {
        match self.model {
            DamageModel::Radial { radius, damage } => Some(RadialDamage {
                id: self.id,
                point: self.point,
                radius,
                damage,
                impulse: self.impulse,
            }),
            DamageModel::Falloff { .. }
            | DamageModel::Spread { .. }
            | DamageModel::Stress { .. } => None,
        }
    }

    /// True when both events carry bit-identical parameters (the id aside),
    /// model included.
    pub fn same_parameters(&self, other: &Self) -> bool {
        match (&self.model, &other.model) {
            (DamageModel::Stress { bonds: a }, DamageModel::Stress { bonds: b }) => {
                let key = |s: &StressBondDamage| (s.bond, s.damage.to_bits(), s.fatal);
                return a.len() == b.len() && a.iter().map(key).eq(b.iter().map(key));
            }
            (DamageModel::Stress { .. }, _) | (_, DamageModel::Stress { .. }) => return false,
            _ => {}
        }
        let bits = |e: &Self| {
            let j = e.impulse.map(|j| j.to_array().map(f32::to_bits));
            let model = match e.model {
                DamageModel::Radial { radius, damage } => {
                    (0u8, [0, radius.to_bits(), damage.to_bits()])
                }
                DamageModel::Falloff {
                    inner_radius,
                    outer_radius,
                    damage,
                } => (
                    1u8,
                    [
                        inner_radius.to_bits(),
                        outer_radius.to_bits(),
                        damage.to_bits(),
                    ],
                ),
                DamageModel::Spread {
                    chunk,
                    damage,
                    max_rings,
                } => (2u8, [chunk.0, damage.to_bits(), max_rings]),
                DamageModel::Stress { .. } => (3u8, [0; 3]),
            };
            (e.point.to_array().map(f32::to_bits), model, j)
        };
        bits(self) == bits(other)
    }

    /// Applies this event to `health` with the event's model: over its
    /// frozen `candidates` ([`apply_radial`], [`apply_falloff`]) or through
    /// `graph` from its touched chunk ([`apply_spread`]). Every bond it may
    /// change is appended to `undo` with its health before this event, before
    /// it changes (an undo log: restoring the entries in reverse order puts
    /// `health` back as it was). Returns the damage removed from
    /// health and, for a budget (radial, spread), the part of it that was
    /// not (radial: dissipated on bonds it broke; spread: beyond the reach),
    /// both du.
    pub fn apply(
        &self,
        graph: &crate::asset::SupportGraph,
        health: &mut [f32],
        candidates: &[DamageCandidate],
        scratch: &mut SpreadScratch,
        broken: &mut Vec<BondIndex>,
        undo: &mut Vec<(BondIndex, f32)>,
    ) -> Applied {
        if let DamageModel::Spread {
            chunk,
            damage,
            max_rings,
        } = self.model
        {
            let out = apply_spread(
                graph, health, chunk, damage, max_rings, scratch, broken, undo,
            );
            return Applied {
                removed: out.removed,
                unspent: out.unspent,
            };
        }
        if let DamageModel::Stress { bonds } = &self.model {
            return Applied {
                removed: apply_stress(health, bonds, broken, undo),
                unspent: 0.0,
            };
        }
        undo.extend(
            candidates
                .iter()
                .filter_map(|c| Some((c.bond, *health.get(c.bond.0 as usize)?))),
        );
        let removed = match self.model {
            DamageModel::Radial { radius, damage } => {
                apply_radial(health, candidates, radius, damage, broken)
            }
            DamageModel::Falloff {
                inner_radius,
                outer_radius,
                damage,
            } => apply_falloff(
                health,
                candidates,
                inner_radius,
                outer_radius,
                damage,
                broken,
            ),
            DamageModel::Spread { .. } | DamageModel::Stress { .. } => 0.0,
        };
        let unspent = match self.model {
            DamageModel::Radial { damage, .. } => (damage - removed).max(0.0),
            _ => 0.0,
        };
        Applied { removed, unspent }
    }
}

/// What applying one event did ([`DamageEvent::apply`]), du.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Applied {
    /// Damage removed from bond health.
    pub removed: f32,
    /// Budget not removed: for a radial event the overflow on the bonds it
    /// broke (dissipated by that rule), for a spreading event what lay
    /// beyond its reach; 0 for falloff, which has no budget.
    pub unspent: f32,
}

/// Applies a stress event's list to `health` (one entry per bond, du): each
/// listed bond still intact takes its damage (`h ← max(0, h − d)`), or
/// breaks when `fatal` (`h ← 0`). Each changed bond is logged in `undo`
/// before it changes; newly broken bonds are appended to `broken` in list
/// order. Returns the damage removed from health, du. Out-of-range bonds
/// are ignored (admission refuses them).
pub fn apply_stress(
    health: &mut [f32],
    bonds: &[StressBondDamage],
    broken: &mut Vec<BondIndex>,
    undo: &mut Vec<(BondIndex, f32)>,
) -> f32 {
    let mut removed = 0.0f32;
    for s in bonds {
        let Some(h) = health.get_mut(s.bond.0 as usize) else {
            continue;
        };
        if *h <= 0.0 || !(s.fatal || s.damage > 0.0) {
            continue;
        }
        undo.push((s.bond, *h));
        let after = if s.fatal {
            0.0
        } else {
            (*h - s.damage).max(0.0)
        };
        removed += *h - after;
        *h = after;
        if after == 0.0 {
            broken.push(s.bond);
        }
    }
    removed
}

/// A bond inside the radius at admission, with its frozen distance (m).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DamageCandidate {
    /// The bond.
    pub bond: BondIndex,
    /// Distance from the bond centroid (world, at admission) to the impact point, m.
    pub distance: f32,
}

/// Applies one radial event to `health` (one entry per bond, du).
///
/// `candidates` are visited in the given order (admission sorts them by bond
/// index, which fixes the float summation order). Bonds already at zero are
/// skipped and the remaining weights renormalised. Newly broken bonds are
/// appended to `broken`. Returns the damage actually removed from health
/// (≤ `damage`; the rest is dissipated).
///
/// Out-of-range bond indices are ignored (admission never produces them).
pub fn apply_radial(
    health: &mut [f32],
    candidates: &[DamageCandidate],
    radius: f32,
    damage: f32,
    broken: &mut Vec<BondIndex>,
) -> f32 {
    let weight = |c: &DamageCandidate| (1.0 - c.distance / radius).max(0.0);
    let mut total = 0.0f32;
    for c in candidates {
        if health.get(c.bond.0 as usize).is_some_and(|&h| h > 0.0) {
            total += weight(c);
        }
    }
    if !(total > 0.0) {
        return 0.0;
    }
    let mut removed = 0.0f32;
    for c in candidates {
        let Some(h) = health.get_mut(c.bond.0 as usize) else {
            continue;
        };
        if *h <= 0.0 {
            continue;
        }
        let w = weight(c);
        if w == 0.0 {
            continue;
        }
        let delta = damage * w / total;
        let after = (*h - delta).max(0.0);
        removed += *h - after;
        *h = after;
        if after == 0.0 {
            broken.push(c.bond);
        }
    }
    removed
}

/// The falloff profile `f(d)` for inner radius `inner` and outer radius
/// `outer` (m): 1 for `d ≤ inner`, `(outer − d)/(outer − inner)` between,
/// 0 for `d ≥ outer` (Blast's `falloffProfile`). With `inner == outer` it is
/// a step: 1 up to the radius, 0 beyond. Always in `[0, 1]` and
/// non-increasing in `d` for valid radii; NaN `d` gives 0.
pub fn falloff(d: f32, inner: f32, outer: f32) -> f32 {
    if d <= inner {
        1.0
    } else if d < outer {
        ((outer - d) / (outer - inner)).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Applies one falloff event to `health` (one entry per bond, du): each
/// candidate bond still intact takes `damage · falloff(d, inner, outer)`,
/// whatever the other candidates are. Newly broken bonds are appended to
/// `broken` in candidate order. Returns the damage actually removed from
/// health (each bond's share beyond its remaining health is dissipated).
///
/// Out-of-range bond indices are ignored (admission never produces them).
pub fn apply_falloff(
    health: &mut [f32],
    candidates: &[DamageCandidate],
    inner: f32,
    outer: f32,
    damage: f32,
    broken: &mut Vec<BondIndex>,
) -> f32 {
    let mut removed = 0.0f32;
    for c in candidates {
        let Some(h) = health.get_mut(c.bond.0 as usize) else {
            continue;
        };
        if *h <= 0.0 {
            continue;
        }
        let delta = damage * falloff(c.distance, inner, outer);
        if !(delta > 0.0) {
            continue;
        }
        let after = (*h - delta).max(0.0);
        removed += *h - after;
        *h = after;
        if after == 0.0 {
            broken.push(c.bond);
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cands() -> Vec<DamageCandidate> {
        vec![
            DamageCandidate {
                bond: BondIndex(0),
                distance: 0.0,
            },
            DamageCandidate {
                bond: BondIndex(1),
                distance: 1.0,
            },
        ]
    }

    #[test]
    fn worked_example_strengths_10_and_4_become_6_and_2_then_2_and_0() {
        let mut h = [10.0f32, 4.0];
        let mut broken = Vec::new();
        let removed = apply_radial(&mut h, &cands(), 2.0, 6.0, &mut broken);
        assert_eq!(h, [6.0, 2.0]);
        assert_eq!(removed, 6.0);
        assert!(broken.is_empty());
        let removed = apply_radial(&mut h, &cands(), 2.0, 6.0, &mut broken);
        assert_eq!(h, [2.0, 0.0]);
        assert_eq!(broken, vec![BondIndex(1)]);
        // The 2 du that exceeded bond 1's remaining 2 du were dissipated, not re-spread.
        assert_eq!(removed, 6.0);
    }

    #[test]
    fn broken_bonds_leave_the_set_and_weights_renormalise() {
        let mut h = [10.0f32, 0.0];
        let mut broken = Vec::new();
        apply_radial(&mut h, &cands(), 2.0, 6.0, &mut broken);
        // Only bond 0 remains: it takes the whole budget.
        assert_eq!(h, [4.0, 0.0]);
        assert!(broken.is_empty());
    }

    #[test]
    fn overflow_beyond_zero_is_dissipated() {
        let mut h = [1.0f32, 100.0];
        let mut broken = Vec::new();
        let removed = apply_radial(&mut h, &cands(), 2.0, 6.0, &mut broken);
        // Bond 0 would take 4 but has 1; bond 1 takes exactly its share 2.
        assert_eq!(h, [0.0, 98.0]);
        assert_eq!(removed, 3.0);
        assert_eq!(broken, vec![BondIndex(0)]);
    }

    #[test]
    fn zero_denominator_changes_nothing() {
        let mut h = [10.0f32, 4.0];
        let far = [DamageCandidate {
            bond: BondIndex(0),
            distance: 2.0,
        }];
        let mut broken = Vec::new();
        assert_eq!(apply_radial(&mut h, &far, 2.0, 6.0, &mut broken), 0.0);
        assert_eq!(h, [10.0, 4.0]);
    }

    #[test]
    fn validation_rejects_zero_negative_and_non_finite_parameters() {
        let ok = RadialDamage {
            id: EventId(1),
            point: Vec3::ZERO,
            radius: 2.0,
            damage: 6.0,
            impulse: None,
        };
        assert!(ok.validate().is_ok());
        assert_eq!(
            RadialDamage { radius: 0.0, ..ok }.validate(),
            Err(DamageError::BadRadius(0.0))
        );
        assert_eq!(
            RadialDamage { radius: -1.0, ..ok }.validate(),
            Err(DamageError::BadRadius(-1.0))
        );
        assert!(matches!(
            RadialDamage {
                radius: f32::NAN,
                ..ok
            }
            .validate(),
            Err(DamageError::BadRadius(_))
        ));
        assert_eq!(
            RadialDamage { damage: -1.0, ..ok }.validate(),
            Err(DamageError::BadDamage(-1.0))
        );
        assert!(matches!(
            RadialDamage {
                damage: f32::INFINITY,
                ..ok
            }
            .validate(),
            Err(DamageError::BadDamage(_))
        ));
        assert!(matches!(
            RadialDamage {
                point: Vec3::NAN,
                ..ok
            }
            .validate(),
            Err(DamageError::NonFinitePoint(_))
        ));
        assert!(matches!(
            RadialDamage {
                impulse: Some(Vec3::new(f32::NAN, 0.0, 0.0)),
                ..ok
            }
            .validate(),
            Err(DamageError::NonFiniteImpulse(_))
        ));
        // D = 0 is allowed (a pure impulse event).
        assert!(RadialDamage { damage: 0.0, ..ok }.validate().is_ok());
    }

    fn blast() -> FalloffDamage {
        FalloffDamage {
            id: EventId(1),
            point: Vec3::ZERO,
            inner_radius: 1.0,
            outer_radius: 2.0,
            damage: 300.0,
            impulse: None,
        }
    }

    #[test]
    fn falloff_is_one_inside_linear_between_and_zero_beyond() {
        assert_eq!(falloff(0.0, 1.0, 2.0), 1.0);
        assert_eq!(falloff(1.0, 1.0, 2.0), 1.0);
        assert_eq!(falloff(1.5, 1.0, 2.0), 0.5);
        assert_eq!(falloff(1.75, 1.0, 2.0), 0.25);
        assert_eq!(falloff(2.0, 1.0, 2.0), 0.0);
        assert_eq!(falloff(9.0, 1.0, 2.0), 0.0);
        // inner == outer is a step; inner == 0 is linear from the centre.
        assert_eq!(falloff(1.0, 1.0, 1.0), 1.0);
        assert_eq!(falloff(1.0001, 1.0, 1.0), 0.0);
        assert_eq!(falloff(0.5, 0.0, 2.0), 0.75);
        assert_eq!(falloff(f32::NAN, 1.0, 2.0), 0.0);
    }

    #[test]
    fn each_bond_takes_its_own_falloff_share_and_overflow_is_dissipated() {
        let c = |b, d| DamageCandidate {
            bond: BondIndex(b),
            distance: d,
        };
        let mut h = [100.0f32, 250.0, 100.0, 100.0, 0.0];
        let mut broken = Vec::new();
        let cands = [c(0, 0.5), c(1, 0.9), c(2, 1.5), c(3, 2.5), c(4, 0.0)];
        let removed = apply_falloff(&mut h, &cands, 1.0, 2.0, 300.0, &mut broken);
        // 300 to bonds 0 and 1, 150 to bond 2, nothing beyond 2 m or to a broken bond.
        assert_eq!(h, [0.0, 0.0, 0.0, 100.0, 0.0]);
        assert_eq!(broken, vec![BondIndex(0), BondIndex(1), BondIndex(2)]);
        assert_eq!(removed, 450.0);
        // Alone, bond 2 takes the same 150 du: no sharing.
        let mut alone = [200.0f32];
        apply_falloff(&mut alone, &[c(0, 1.5)], 1.0, 2.0, 300.0, &mut broken);
        assert_eq!(alone, [50.0]);
    }

    #[test]
    fn falloff_validation_rejects_inverted_negative_and_non_finite_radii() {
        let ok = blast();
        assert!(ok.validate().is_ok());
        assert!(
            FalloffDamage {
                inner_radius: 0.0,
                ..ok
            }
            .validate()
            .is_ok()
        );
        assert!(
            FalloffDamage {
                inner_radius: 2.0,
                ..ok
            }
            .validate()
            .is_ok()
        );
        for (inner, outer) in [
            (3.0, 2.0),
            (-0.5, 2.0),
            (0.0, 0.0),
            (f32::NAN, 2.0),
            (1.0, f32::NAN),
            (1.0, f32::INFINITY),
            (0.0, -1.0),
        ] {
            assert!(
                matches!(
                    FalloffDamage {
                        inner_radius: inner,
                        outer_radius: outer,
                        ..ok
                    }
                    .validate(),
                    Err(DamageError::BadFalloffRadii { .. })
                ),
                "inner {inner}, outer {outer}"
            );
        }
        assert_eq!(
            FalloffDamage { damage: -1.0, ..ok }.validate(),
            Err(DamageError::BadDamage(-1.0))
        );
        assert!(matches!(
            FalloffDamage {
                point: Vec3::new(0.0, f32::NAN, 0.0),
                ..ok
            }
            .validate(),
            Err(DamageError::NonFinitePoint(_))
        ));
        assert!(matches!(
            FalloffDamage {
                impulse: Some(Vec3::INFINITY),
                ..ok
            }
            .validate(),
            Err(DamageError::NonFiniteImpulse(_))
        ));
    }

    #[test]
    fn a_radial_and_a_falloff_event_never_have_the_same_parameters() {
        let f = blast().event();
        let r = RadialDamage {
            id: EventId(1),
            point: Vec3::ZERO,
            radius: 2.0,
            damage: 300.0,
            impulse: None,
        }
        .event();
        assert!(!f.same_parameters(&r));
        assert!(f.same_parameters(&blast().event()));
        assert_eq!(f.reach(), 2.0);
        assert_eq!(r.as_radial().map(|e| e.radius), Some(2.0));
        assert_eq!(f.as_radial(), None);
    }
}
