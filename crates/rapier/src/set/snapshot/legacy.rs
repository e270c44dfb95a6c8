//! Set snapshots written by earlier versions, still read:
//! - format 12: today's layout with instance stress that prepares no
//!   cluster in steps (none was ever prepared so then: a restored set
//!   solves those clusters at once);
//! - format 11: today's layout with stress solves in progress as
//!   [`smithereens_core::stress::SolveProgressV1`] (no reduced solve's
//!   place: none was ever cut short);
//! - format 10: today's layout with settings that have no
//!   `stress_work_per_frame` (it starts at its default), and instance
//!   stress without solves in progress (none was ever cut short);
//! - formats 7 to 9 also have those settings and that stress;
//! - format 9: today's layout without render-only debris (default debris
//!   settings; its render-only clusters stay the Rapier bodies they were);
//! - format 8: today's layout without the fast bodies' flight log (a
//!   restored set lists fast bodies afresh; a hit within two steps of the
//!   restore is measured from its contact step);
//! - format 7: format 8's layout without stress and sustained loads;
//! - format 6: today's layout with settings that have no
//!   `new_bodies_per_frame` (it starts at its default, 16);
//! - format 5: format 6's layout without the rest probes (a restored set
//!   starts every awake body's rest window afresh);
//! - format 4: today's layout without the parting pieces (a restored set
//!   finds them by their solver groups, as before);
//! - format 3: format 4's layout with version-1 damage events (radial only,
//!   explosions without an inner radius) and contact damage settings with a
//!   radius instead of a reach in rings;
//! - format 2: also without the contact watch and the sleep sweep (its
//!   settings have no `sleep_sweep`; its tracker listed awake bodies with
//!   their owners).
//!
//! Each is decoded into today's [`SetSnapshot`]; what the old format did not
//! have starts empty (no watched pairs) or at its default (`sleep_sweep`
//! 128, `max_rings` 16), and the sleep sweep rediscovers any body it does
//! not list. Contact events admitted before the snapshot keep their radial
//! model; new ones spread.

use super::{SetSnapshot, SetSnapshotError, SnapshotHead, decode_exact};
use crate::impact::{DEFAULT_IMPACT_RINGS, ImpactDamage};
use crate::set::settings::{CollisionGroups, RecyclePolicy};
use crate::set::sleep::SleepTracker;
use crate::set::{DestructionSettings, InstanceHandle, Quarantined};
use rapier3d::prelude::RigidBodyHandle;
use smithereens_core::ClusterHandle;
use smithereens_core::codec::with_legacy_event_layout;
use smithereens_core::stress::SolveProgressV1;
use std::collections::BTreeMap;

/// Decodes a set snapshot of format 2 to 12 or today's (checksum already
/// removed); `format` is the first field, a one-byte postcard varint.
///
/// # Errors
/// [`SetSnapshotError::Decode`] for bytes that do not decode as their
/// format; [`SetSnapshotError::Format`] for any other format.
pub(super) fn decode(body: &[u8]) -> Result<SetSnapshot, SetSnapshotError> {
    let mut snap = match body.first() {
        Some(2) => SetSnapshot::from_head(
            with_legacy_event_layout(|| decode_exact::<SetSnapshotV2>(body))?.upgrade(),
        ),
        Some(3) => SetSnapshot::from_head(
            with_legacy_event_layout(|| decode_exact::<SnapshotHead<SettingsV3>>(body))?.upgrade(),
        ),
        Some(4) => SetSnapshot::from_head(
            decode_exact::<SnapshotHead<SettingsV6>>(body)?.with_settings(SettingsV6::upgrade),
        ),
        Some(5) => {
            let (head, parting, parted_from) = decode_exact::<(
                SnapshotHead<SettingsV6>,
                Vec<crate::set::rerun::Parting>,
                Vec<rapier3d::prelude::ColliderHandle>,
            )>(body)?;
            SetSnapshot {
                parting,
                parted_from,
                ..SetSnapshot::from_head(head.with_settings(SettingsV6::upgrade))
            }
        }
        Some(6) => {
            let (head, parting, parted_from, rest) = decode_exact::<(
                SnapshotHead<SettingsV6>,
                Vec<crate::set::rerun::Parting>,
                Vec<rapier3d::prelude::ColliderHandle>,
                crate::set::rest::RestTracker,
            )>(body)?;
            let mut snap = SetSnapshot::from_head(head.with_settings(SettingsV6::upgrade));
            (snap.parting, snap.parted_from, snap.rest) = (parting, parted_from, rest);
            snap
        }
        Some(7) => {
            let (head, parting, parted_from, rest) = decode_exact::<(
                SnapshotHead<SettingsV10>,
                Vec<crate::set::rerun::Parting>,
                Vec<rapier3d::prelude::ColliderHandle>,
                crate::set::rest::RestTracker,
            )>(body)?;
            let mut snap = SetSnapshot::from_head(head.with_settings(SettingsV10::upgrade));
            (snap.parting, snap.parted_from, snap.rest) = (parting, parted_from, rest);
            snap
        }
        Some(8) => {
            let (head, parting, parted_from, rest, stress, loads, load_streaks) =
                decode_exact::<(
                    SnapshotHead<SettingsV10>,
                    Vec<crate::set::rerun::Parting>,
                    Vec<rapier3d::prelude::ColliderHandle>,
                    crate::set::rest::RestTracker,
                    Vec<(u32, StressStateV10)>,
                    Vec<(
                        smithereens_core::stress::LoadKey,
                        crate::set::InstanceHandle,
                    )>,
                    Vec<(
                        smithereens_core::stress::LoadKey,
                        crate::set::load::LoadStreak,
                    )>,
                )>(body)?;
            SetSnapshot {
                parting,
                parted_from,
                rest,
                stress: upgrade_each(stress, StressStateV10::upgrade),
                loads,
                load_streaks,
                ..SetSnapshot::from_head(head.with_settings(SettingsV10::upgrade))
            }
        }
        Some(9) => {
            let (head, parting, parted_from, rest, stress, loads, load_streaks, flights) =
                decode_exact::<(
                    SnapshotHead<SettingsV10>,
                    Vec<crate::set::rerun::Parting>,
                    Vec<rapier3d::prelude::ColliderHandle>,
                    crate::set::rest::RestTracker,
                    Vec<(u32, StressStateV10)>,
                    Vec<(
                        smithereens_core::stress::LoadKey,
                        crate::set::InstanceHandle,
                    )>,
                    Vec<(
                        smithereens_core::stress::LoadKey,
                        crate::set::load::LoadStreak,
                    )>,
                    crate::set::flight::FlightLog,
                )>(body)?;
            SetSnapshot {
                parting,
                parted_from,
                rest,
                stress: upgrade_each(stress, StressStateV10::upgrade),
                loads,
                load_streaks,
                flights,
                ..SetSnapshot::from_head(head.with_settings(SettingsV10::upgrade))
            }
        }
        Some(10) => decode_exact::<SetSnapshot<SettingsV10, StressStateV10>>(body)?
            .upgrade_with(SettingsV10::upgrade, StressStateV10::upgrade),
        Some(11) => decode_exact::<SetSnapshot<DestructionSettings, StressStateV11>>(body)?
            .upgrade_with(|s| s, StressStateV11::upgrade),
        Some(12) => decode_exact::<SetSnapshot<DestructionSettings, StressStateV12>>(body)?
            .upgrade_with(|s| s, StressStateV12::upgrade),
        _ => decode_exact(body)?,
    };
    match snap.head.format {
        2..=12 => snap.head.format = super::SET_SNAPSHOT_FORMAT,
        f if f == super::SET_SNAPSHOT_FORMAT => {}
        f => return Err(SetSnapshotError::Format(f)),
    }
    Ok(snap)
}

/// [`DestructionSettings`] of formats 3 to 10, which end before
/// `stress_work_per_frame` (it starts at its default). `I` is the contact
/// damage layout: today's for formats 4 to 10, [`ImpactDamageV3`] for
/// format 3 ([`SettingsV3`]). `N` is `new_bodies_per_frame`: `()` (no
/// bytes in postcard; it starts at its default) for formats 3 to 6, `u32`
/// for formats 7 to 10 ([`SettingsV10`]).
#[derive(serde::Deserialize)]
struct SettingsV6<I = ImpactDamage, N = ()> {
    impact: I,
    friction: f32,
    restitution: f32,
    collider_border: f32,
    groups: CollisionGroups,
    tag_mark: u32,
    recycle: Option<RecyclePolicy>,
    max_blast_speed: f32,
    max_blast_spin: f32,
    ccd_speed: f32,
    sleep_sweep: u32,
    quarantine_after: u32,
    new_bodies_per_frame: N,
}

/// [`DestructionSettings`] of format 3: the old contact damage settings.
type SettingsV3 = SettingsV6<ImpactDamageV3>;

/// [`DestructionSettings`] of formats 7 to 10.
type SettingsV10 = SettingsV6<ImpactDamage, u32>;

/// A `new_bodies_per_frame` as a format has it.
trait BodiesPerFrame {
    fn or_default(self) -> u32;
}

impl BodiesPerFrame for () {
    fn or_default(self) -> u32 {
        DestructionSettings::default().new_bodies_per_frame
    }
}

impl BodiesPerFrame for u32 {
    fn or_default(self) -> u32 {
        self
    }
}

impl<I: Into<ImpactDamage>, N: BodiesPerFrame> SettingsV6<I, N> {
    fn upgrade(self) -> DestructionSettings {
        DestructionSettings {
            impact: self.impact.into(),
            friction: self.friction,
            restitution: self.restitution,
            collider_border: self.collider_border,
            groups: self.groups,
            tag_mark: self.tag_mark,
            recycle: self.recycle,
            max_blast_speed: self.max_blast_speed,
            max_blast_spin: self.max_blast_spin,
            ccd_speed: self.ccd_speed,
            sleep_sweep: self.sleep_sweep,
            quarantine_after: self.quarantine_after,
            new_bodies_per_frame: self.new_bodies_per_frame.or_default(),
            stress_work_per_frame: DestructionSettings::default().stress_work_per_frame,
        }
    }
}

impl<S> SnapshotHead<S> {
    /// The same head with its settings converted by `f`.
    fn with_settings<T>(self, f: impl FnOnce(S) -> T) -> SnapshotHead<T> {
        SnapshotHead {
            format: self.format,
            settings: f(self.settings),
            slots: self.slots,
            free: self.free,
            registry: self.registry,
            dirty: self.dirty,
            recycling: self.recycling,
            sleep: self.sleep,
            quarantine: self.quarantine,
            step_index: self.step_index,
            next_event: self.next_event,
            sleep_queue: self.sleep_queue,
            episodes: self.episodes,
            watch: self.watch,
        }
    }
}

/// [`ImpactDamage`] of formats 2 and 3: a radius (m) instead of `max_rings`.
#[derive(serde::Deserialize)]
struct ImpactDamageV3 {
    damage_per_impulse: f32,
    threshold: f32,
    #[allow(dead_code)] // read to stay in step with the bytes; contacts spread now
    radius: f32,
    min_approach_speed: f32,
    impulse_transfer: f32,
}

impl From<ImpactDamageV3> for ImpactDamage {
    fn from(v3: ImpactDamageV3) -> Self {
        ImpactDamage {
            damage_per_impulse: v3.damage_per_impulse,
            threshold: v3.threshold,
            max_rings: DEFAULT_IMPACT_RINGS,
            min_approach_speed: v3.min_approach_speed,
            impulse_transfer: v3.impulse_transfer,
        }
    }
}

impl SnapshotHead<SettingsV3> {
    fn upgrade(self) -> SnapshotHead {
        self.with_settings(SettingsV3::upgrade)
    }
}

/// [`DestructionSettings`] of format 2: no `sleep_sweep`.
#[derive(serde::Deserialize)]
struct SettingsV2 {
    impact: ImpactDamageV3,
    friction: f32,
    restitution: f32,
    collider_border: f32,
    groups: CollisionGroups,
    tag_mark: u32,
    recycle: Option<RecyclePolicy>,
    max_blast_speed: f32,
    max_blast_spin: f32,
    ccd_speed: f32,
    quarantine_after: u32,
}

/// The sleep bookkeeping of format 2: bodies last seen awake with their
/// owners, and per body slot (generation, step last seen).
#[derive(serde::Deserialize)]
struct AwakeTrackerV2 {
    awake: Vec<(RigidBodyHandle, InstanceHandle, ClusterHandle)>,
    #[allow(dead_code)] // read to stay in step with the bytes; rebuilt from `awake`
    seen: Vec<(u32, u64)>,
    asleep_since: BTreeMap<(InstanceHandle, ClusterHandle), u64>,
}

#[derive(serde::Deserialize)]
struct SetSnapshotV2 {
    format: u32,
    settings: SettingsV2,
    slots: Vec<(u32, Option<super::EntrySnapshot>)>,
    free: Vec<u32>,
    registry: crate::set::registry::Registry,
    dirty: Vec<InstanceHandle>,
    recycling: Vec<InstanceHandle>,
    awake: AwakeTrackerV2,
    quarantine: Vec<Quarantined>,
    step_index: u64,
    next_event: u64,
    sleep_queue: Vec<(u64, InstanceHandle, ClusterHandle)>,
    episodes: Vec<((u32, u32, u32, u32), crate::set::episode::Episode)>,
}

impl SetSnapshotV2 {
    fn upgrade(self) -> SnapshotHead {
        let s = self.settings;
        // Format 2 is format 3's settings without the sleep sweep.
        let settings = SettingsV3 {
            impact: s.impact,
            friction: s.friction,
            restitution: s.restitution,
            collider_border: s.collider_border,
            groups: s.groups,
            tag_mark: s.tag_mark,
            recycle: s.recycle,
            max_blast_speed: s.max_blast_speed,
            max_blast_spin: s.max_blast_spin,
            ccd_speed: s.ccd_speed,
            sleep_sweep: DestructionSettings::default().sleep_sweep,
            quarantine_after: s.quarantine_after,
            new_bodies_per_frame: (),
        }
        .upgrade();
        let awake: Vec<RigidBodyHandle> = self.awake.awake.iter().map(|a| a.0).collect();
        let sleep = SleepTracker::from_awake(awake, self.awake.asleep_since);
        SnapshotHead {
            format: self.format,
            settings,
            slots: self.slots,
            free: self.free,
            registry: self.registry,
            dirty: self.dirty,
            recycling: self.recycling,
            sleep,
            quarantine: self.quarantine,
            step_index: self.step_index,
            next_event: self.next_event,
            sleep_queue: self.sleep_queue,
            episodes: self.episodes,
            watch: Vec::new(),
        }
    }
}

impl<S, T> SetSnapshot<S, T> {
    /// Today's snapshot from one of today's layout with older settings
    /// (`settings`) and stress (`stress`, per instance).
    fn upgrade_with(
        self,
        settings: impl FnOnce(S) -> DestructionSettings,
        stress: impl FnMut(T) -> smithereens_core::stress::InstanceStressState,
    ) -> SetSnapshot {
        SetSnapshot {
            head: self.head.with_settings(settings),
            parting: self.parting,
            parted_from: self.parted_from,
            rest: self.rest,
            stress: upgrade_each(self.stress, stress),
            loads: self.loads,
            load_streaks: self.load_streaks,
            flights: self.flights,
            debris_settings: self.debris_settings,
            debris: self.debris,
        }
    }
}

/// Each instance's stress (by slot) converted by `f`.
fn upgrade_each<T>(
    v: Vec<(u32, T)>,
    mut f: impl FnMut(T) -> smithereens_core::stress::InstanceStressState,
) -> Vec<(u32, smithereens_core::stress::InstanceStressState)> {
    v.into_iter().map(|(slot, s)| (slot, f(s))).collect()
}

/// [`smithereens_core::stress::InstanceStressState`] of format 12: that of
/// formats 8 to 10 followed by the solves in progress and the turn, without
/// the clusters being prepared; postcard writes the nested `base` as its
/// fields, so these are format 12's bytes.
#[derive(serde::Deserialize)]
struct StressStateV12 {
    base: StressStateV10,
    progress: Vec<(ClusterHandle, smithereens_core::stress::SolveProgress)>,
    turn: Option<ClusterHandle>,
}

impl StressStateV12 {
    fn upgrade(self) -> smithereens_core::stress::InstanceStressState {
        smithereens_core::stress::InstanceStressState {
            progress: self.progress,
            turn: self.turn,
            ..self.base.upgrade()
        }
    }
}

/// [`smithereens_core::stress::InstanceStressState`] of format 11: that of
/// formats 8 to 10 followed by the solves in progress (as
/// [`SolveProgressV1`]) and the turn; postcard writes the nested `base` as
/// its fields, so these are format 11's bytes.
#[derive(serde::Deserialize)]
struct StressStateV11 {
    base: StressStateV10,
    progress: Vec<(ClusterHandle, SolveProgressV1)>,
    turn: Option<ClusterHandle>,
}

impl StressStateV11 {
    fn upgrade(self) -> smithereens_core::stress::InstanceStressState {
        smithereens_core::stress::InstanceStressState {
            progress: self
                .progress
                .into_iter()
                .map(|(c, p)| (c, p.into()))
                .collect(),
            turn: self.turn,
            ..self.base.upgrade()
        }
    }
}

/// [`smithereens_core::stress::InstanceStressState`] of formats 8 to 10:
/// no solves in progress (no budget cut one short then).
#[derive(serde::Deserialize)]
struct StressStateV10 {
    desc: smithereens_core::stress::StressDesc,
    dirty: Vec<ClusterHandle>,
    overloads: Vec<(ClusterHandle, Vec<smithereens_core::stress::Overload>)>,
    loads: Vec<(
        smithereens_core::stress::LoadKey,
        smithereens_core::stress::ChunkLoad,
    )>,
    changed: Vec<smithereens_core::ChunkIndex>,
    sequence: u64,
    warm: Vec<(smithereens_core::glam::DVec3, smithereens_core::glam::DVec3)>,
}

impl StressStateV10 {
    fn upgrade(self) -> smithereens_core::stress::InstanceStressState {
        smithereens_core::stress::InstanceStressState {
            desc: self.desc,
            dirty: self.dirty,
            overloads: self.overloads,
            loads: self.loads,
            changed: self.changed,
            sequence: self.sequence,
            warm: self.warm,
            progress: Vec::new(),
            turn: None,
            preparing: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smithereens_core::stress::{
        InstanceStress, LoadKey, Material, StressDesc, StressMaterials,
    };
    use smithereens_core::{Asset, ChunkIndex, Instance, Pose, fixtures};
    use std::sync::Arc;

    /// Format 11 wrote an instance's stress state field by field, as
    /// today's layout without a reduced solve's place: with no solve in
    /// progress its bytes are today's, and the nested `StressStateV11`
    /// reads them back to the same state.
    #[test]
    fn a_format_11_stress_state_reads_back_the_same() {
        let asset = Arc::new(
            Asset::new(&fixtures::grid_desc(3, 4, 2, 0.5, 2400.0, 40.0)).expect("a valid grid"),
        );
        let inst = Instance::new(asset, Pose::IDENTITY).expect("an instance");
        let mut stress = InstanceStress::new(
            &inst,
            StressDesc::new(StressMaterials::uniform(Material::BRICK)),
        )
        .expect("stress");
        stress
            .set_load(
                &inst,
                LoadKey(7, 9),
                ChunkIndex(5),
                smithereens_core::glam::Vec3::new(1e3, -2e3, 0.0),
                smithereens_core::glam::Vec3::new(0.5, 1.0, 0.25),
            )
            .expect("a load");
        stress
            .update(
                &inst,
                smithereens_core::glam::Vec3::new(0.0, -9.81, 0.0),
                1.0 / 60.0,
            )
            .expect("an update");
        let state = stress.state();
        assert!(state.progress.is_empty());
        assert!(!state.loads.is_empty() && state.warm.iter().any(|(u, _)| u.y != 0.0));
        let bytes = postcard::to_stdvec(&state).expect("encodes");
        // Today's layout ends with the (empty) preparing list: one byte.
        assert_eq!(bytes.last(), Some(&0));
        let old: StressStateV11 =
            postcard::from_bytes(&bytes[..bytes.len() - 1]).expect("decodes as format 11");
        assert_eq!(old.upgrade(), state);
        let old: StressStateV12 =
            postcard::from_bytes(&bytes[..bytes.len() - 1]).expect("decodes as format 12");
        assert_eq!(old.upgrade(), state);
    }
}
