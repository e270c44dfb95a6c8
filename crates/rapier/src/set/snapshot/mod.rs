//! Snapshots of a [`DestructionSet`]: every instance's destruction state and
//! the set's Rapier-side bookkeeping. The game owns its Rapier world; the
//! `*_with` helpers serialise both together, and restoring both resumes bit
//! for bit (same [`DestructionSet::state_hash`] on every later step).

mod legacy;

use super::impulses::{Explosion, Transfer};
use super::registry::Registry;
use super::sleep::SleepTracker;
use super::{DestructionSet, DestructionSettings, Entry, InstanceHandle, Quarantined, Slot};
use crate::backend::ChunkShapes;
use crate::error::BackendError;
use rapier3d::prelude::*;
use smithereens_core::{Asset, ClusterHandle, EventId, Instance};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

/// Format 13: instance stress with the large clusters being prepared in
/// steps before their first solve (format 12 was today's layout without
/// them: a restored set solves such clusters at once). Format 12: stress solves in progress that are reduced solves keep
/// their round and refined chunks (format 11 was today's layout with
/// [`smithereens_core::stress::SolveProgressV1`]). Format 11: settings
/// with `stress_work_per_frame` (format 10 was today's layout without it). Format 10: render-only debris outside Rapier (its settings and every
/// instance's particles; format 9 was today's layout without them: a
/// restored set keeps the default debris settings and the render-only
/// clusters of such a snapshot stay the Rapier bodies they were). Format 9: the fast bodies' states one step back (format 8 was today's
/// layout without them: a restored set lists fast bodies afresh); format 8: the stress of instances that have it on, and which instance
/// each sustained load belongs to (format 7 was today's layout without
/// them); format 7: settings with `new_bodies_per_frame` (format 6 was
/// format 7's layout without it); format 6 added the rest probes of awake library
/// bodies (format 5 was format 6's layout without them; format 4 also without the pieces parting from
/// their instance's fixed chunks, with falloff explosions, spreading
/// contact damage (`max_rings`) and the contact watch; format 3 the
/// contact watch with version-1 events and a contact damage radius, format
/// 2 also without the watch; all still read, see [`legacy`]).
const SET_SNAPSHOT_FORMAT: u32 = 13;

/// Appends an FNV-1a 64 checksum of `bytes` (little-endian): a flipped or
/// truncated byte anywhere is then a typed error, never a Rapier world in an
/// impossible state (a bit-flip fuzz of an unsealed save restored 15 worlds
/// that then panicked inside Rapier's solver).
pub(crate) fn seal(mut bytes: Vec<u8>) -> Vec<u8> {
    let mut h = smithereens_core::hash::StateHasher::new();
    h.write(&bytes);
    bytes.extend_from_slice(&h.finish().to_le_bytes());
    bytes
}

/// Checks and strips the checksum [`seal`] appended.
pub(crate) fn unseal(bytes: &[u8]) -> Result<&[u8], SetSnapshotError> {
    let Some(split) = bytes.len().checked_sub(8) else {
        return Err(SetSnapshotError::Decode("shorter than its checksum".into()));
    };
    let (body, sum) = bytes.split_at(split);
    let mut h = smithereens_core::hash::StateHasher::new();
    h.write(body);
    if h.finish().to_le_bytes() != sum {
        return Err(SetSnapshotError::Decode(
            "checksum mismatch (corrupt or truncated)".into(),
        ));
    }
    Ok(body)
}

/// Decodes exactly one value: trailing bytes are an error.
pub(crate) fn decode_exact<'a, T: serde::Deserialize<'a>>(
    bytes: &'a [u8],
) -> Result<T, SetSnapshotError> {
    let (value, rest) =
        postcard::take_from_bytes(bytes).map_err(|e| SetSnapshotError::Decode(e.to_string()))?;
    if !rest.is_empty() {
        return Err(SetSnapshotError::Decode(format!(
            "{} trailing bytes",
            rest.len()
        )));
    }
    Ok(value)
}

#[derive(serde::Serialize, serde::Deserialize)]
struct EntrySnapshot {
    asset: u64,
    instance: Vec<u8>,
    bodies: BTreeMap<ClusterHandle, RigidBodyHandle>,
    transfers: BTreeMap<EventId, Transfer>,
    blasts: BTreeMap<EventId, (Explosion, bool)>,
    recycling: Vec<smithereens_core::RecycleTicket>,
    failures: u32,
    extra: BTreeMap<smithereens_core::ChunkIndex, super::ExtraMass>,
}

/// The fields every snapshot since format 3 begins with, in this order
/// (format 4 is exactly this, with today's settings; format 3 has its own
/// settings layout `S`). Later formats append their fields after it, so
/// postcard writes `SetSnapshot` byte for byte as these fields followed by
/// the appended ones, and [`legacy`] decodes each older format as this head
/// plus what that format had of the tail.
#[derive(serde::Serialize, serde::Deserialize)]
struct SnapshotHead<S = DestructionSettings> {
    format: u32,
    settings: S,
    slots: Vec<(u32, Option<EntrySnapshot>)>,
    free: Vec<u32>,
    registry: Registry,
    dirty: Vec<InstanceHandle>,
    recycling: Vec<InstanceHandle>,
    sleep: SleepTracker,
    quarantine: Vec<Quarantined>,
    step_index: u64,
    next_event: u64,
    sleep_queue: Vec<(u64, InstanceHandle, ClusterHandle)>,
    episodes: Vec<((u32, u32, u32, u32), super::episode::Episode)>,
    watch: super::contact::Watch,
}

/// A set snapshot; `S` and `T` are the settings and instance stress
/// layouts (today's, or an older format's for [`legacy`]).
#[derive(serde::Serialize, serde::Deserialize)]
struct SetSnapshot<S = DestructionSettings, T = smithereens_core::stress::InstanceStressState> {
    head: SnapshotHead<S>,
    /// Pieces parting from their instance's fixed chunks (format 5).
    parting: Vec<super::rerun::Parting>,
    /// Fixed chunk colliders letting them through (format 5).
    parted_from: Vec<ColliderHandle>,
    /// Rest probes of awake library bodies (format 6).
    rest: super::rest::RestTracker,
    /// The stress of each instance that has it on, by slot (format 8).
    stress: Vec<(u32, T)>,
    /// The instance of each sustained load (format 8).
    loads: Vec<(smithereens_core::stress::LoadKey, InstanceHandle)>,
    /// Runs of consecutive force reports of loaded pairs (format 8).
    load_streaks: Vec<(smithereens_core::stress::LoadKey, super::load::LoadStreak)>,
    /// Fast bodies' states one step back (format 9).
    flights: super::flight::FlightLog,
    /// How render-only debris moves (format 10).
    debris_settings: crate::debris::DebrisSettings,
    /// Each instance's render-only particles, by slot, in handle order (format 10).
    debris: Vec<(u32, Vec<crate::debris::ParticleState>)>,
}

/// The instance in slot `slot` of a set being restored, or an
/// inconsistency naming `what` the snapshot kept for that empty slot.
fn occupied<'a>(
    slots: &'a mut [crate::set::Slot],
    slot: u32,
    what: &str,
) -> Result<&'a mut crate::set::Entry, SetSnapshotError> {
    slots
        .get_mut(slot as usize)
        .and_then(|s| s.entry.as_mut())
        .ok_or_else(|| SetSnapshotError::Inconsistent(format!("{what} for empty slot {slot}")))
}

impl SetSnapshot {
    /// A snapshot of a format that ended at `head`: no parting pieces and
    /// no rest probes (a restored set finds parting pieces by their solver
    /// groups and starts every rest window afresh).
    fn from_head(head: SnapshotHead) -> Self {
        Self {
            head,
            parting: Vec::new(),
            parted_from: Vec::new(),
            rest: super::rest::RestTracker::default(),
            stress: Vec::new(),
            loads: Vec::new(),
            load_streaks: Vec::new(),
            flights: super::flight::FlightLog::default(),
            debris_settings: crate::debris::DebrisSettings::default(),
            debris: Vec::new(),
        }
    }
}

/// Why a snapshot could not be restored. Nothing is created on error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SetSnapshotError {
    /// The state could not be encoded.
    #[error("snapshot cannot be encoded: {0}")]
    Encode(String),
    /// Truncated, corrupt or foreign bytes.
    #[error("snapshot cannot be decoded: {0}")]
    Decode(String),
    /// Another snapshot format version.
    #[error("snapshot format {0} is not supported")]
    Format(u32),
    /// No asset with this fingerprint was given.
    #[error("no asset with fingerprint {0:016x} was given")]
    MissingAsset(u64),
    /// An instance's destruction state does not fit its asset.
    #[error("destruction state")]
    Instance(#[from] smithereens_core::snapshot::SnapshotError),
    /// Settings or shapes are invalid.
    #[error("set")]
    Backend(#[from] BackendError),
    /// The physics state does not match the destruction state.
    #[error("snapshot is inconsistent: {0}")]
    Inconsistent(String),
}

impl DestructionSet {
    /// Serialises the set at a step boundary (after [`Self::after_step`]).
    /// The game's Rapier world is not included: see [`Self::snapshot_with`].
    ///
    /// # Errors
    /// [`SetSnapshotError::Encode`] if serialisation fails.
    pub fn snapshot(&self) -> Result<Vec<u8>, SetSnapshotError> {
        let slots = self
            .slots
            .iter()
            .map(|s| {
                (
                    s.generation,
                    s.entry.as_ref().map(|e| EntrySnapshot {
                        asset: e.instance.asset().fingerprint(),
                        instance: e.instance.snapshot().to_bytes(),
                        bodies: e.bodies.clone(),
                        transfers: e.transfers.clone(),
                        blasts: e.blasts.clone(),
                        recycling: e.recycling.clone(),
                        failures: e.failures,
                        extra: e.extra.clone(),
                    }),
                )
            })
            .collect();
        let snap = SetSnapshot {
            head: SnapshotHead {
                format: SET_SNAPSHOT_FORMAT,
                settings: self.settings,
                slots,
                free: self.free.clone(),
                registry: self.registry.clone(),
                dirty: self.dirty.clone(),
                recycling: self.recycling.clone(),
                sleep: self.sleep.clone(),
                quarantine: self.quarantine.clone(),
                step_index: self.step_index,
                next_event: self.next_event,
                sleep_queue: self.sleep_queue.iter().copied().collect(),
                episodes: self.episodes.iter().map(|(k, e)| (*k, *e)).collect(),
                watch: self.watch.clone(),
            },
            parting: self.rerun.parting.clone(),
            parted_from: self.rerun.parted_from.clone(),
            rest: self.rest.clone(),
            stress: self
                .slots
                .iter()
                .enumerate()
                .filter_map(|(i, s)| {
                    let stress = s.entry.as_ref()?.stress.as_ref()?;
                    Some((i as u32, stress.state()))
                })
                .collect(),
            loads: self.loads.iter().map(|(k, h)| (*k, *h)).collect(),
            load_streaks: self.load_streaks.iter().map(|(k, s)| (*k, *s)).collect(),
            flights: self.flights.clone(),
            debris_settings: self.debris,
            debris: self
                .slots
                .iter()
                .enumerate()
                .filter_map(|(i, s)| {
                    let d = &s.entry.as_ref()?.debris;
                    (!d.is_empty()).then(|| (i as u32, d.states().copied().collect()))
                })
                .collect(),
        };
        postcard::to_stdvec(&snap)
            .map(seal)
            .map_err(|e| SetSnapshotError::Encode(e.to_string()))
    }

    /// Rebuilds a set from [`Self::snapshot`] bytes, checked against the
    /// game's restored Rapier world. `assets` must hold every asset the
    /// snapshot's instances use (matched by fingerprint; extra ones are ignored).
    ///
    /// # Errors
    /// [`SetSnapshotError`] for bad bytes, a missing asset, or bodies that
    /// `physics` does not have.
    pub fn restore(
        bytes: &[u8],
        assets: &[Arc<Asset>],
        physics: &PhysicsWorld,
    ) -> Result<Self, SetSnapshotError> {
        let SetSnapshot {
            head: snap,
            parting,
            parted_from,
            rest,
            stress,
            loads,
            load_streaks,
            flights,
            debris_settings,
            debris,
        } = legacy::decode(unseal(bytes)?)?;
        snap.settings.validate()?;
        debris_settings.validate()?;
        let mut set = Self::new(snap.settings)?;
        let mut shapes: BTreeMap<u64, Arc<ChunkShapes>> = BTreeMap::new();
        for (generation, entry) in snap.slots {
            let entry = match entry {
                None => None,
                Some(e) => {
                    let asset = assets
                        .iter()
                        .find(|a| a.fingerprint() == e.asset)
                        .ok_or(SetSnapshotError::MissingAsset(e.asset))?;
                    let core = smithereens_core::snapshot::Snapshot::from_bytes(&e.instance)?;
                    let instance = Instance::restore(asset.clone(), &core)?;
                    for (h, &rb) in &e.bodies {
                        if instance.cluster(*h).is_none() || !physics.bodies.contains(rb) {
                            return Err(SetSnapshotError::Inconsistent(format!(
                                "cluster {h} has no body"
                            )));
                        }
                    }
                    let s = match shapes.get(&e.asset) {
                        Some(s) => s.clone(),
                        None => {
                            let s =
                                Arc::new(ChunkShapes::build(asset, snap.settings.collider_border)?);
                            shapes.insert(e.asset, s.clone());
                            s
                        }
                    };
                    Some(Entry {
                        instance,
                        shapes: s,
                        bodies: e.bodies,
                        transfers: e.transfers,
                        blasts: e.blasts,
                        recycling: e.recycling,
                        failures: e.failures,
                        fail_prepare: 0,
                        extra: e.extra,
                        synced_at: u64::MAX,
                        stress: None,
                        debris: Default::default(),
                    })
                }
            };
            set.slots.push(Slot { generation, entry });
        }
        set.free = snap.free;
        set.registry = snap.registry;
        set.dirty = snap.dirty;
        set.recycling = snap.recycling;
        set.sleep = snap.sleep;
        set.quarantine = snap.quarantine;
        set.step_index = snap.step_index;
        set.next_event = snap.next_event;
        set.sleep_queue = snap.sleep_queue.into_iter().collect::<VecDeque<_>>();
        set.live = set.slots.iter().filter(|s| s.entry.is_some()).count();
        set.episodes = snap.episodes.into_iter().collect();
        set.watch = snap.watch;
        // A snapshot of format 4 or older did not keep the parting list:
        // the set then finds parting pieces by their solver groups.
        set.rerun.scanned = !(parting.is_empty() && parted_from.is_empty());
        set.rerun.parting = parting;
        set.rerun.parted_from = parted_from;
        set.rest = rest;
        set.shapes = shapes;
        for (slot, state) in stress {
            let generation = set.slots.get(slot as usize).map_or(0, |s| s.generation);
            let entry = occupied(&mut set.slots, slot, "stress")?;
            let s = smithereens_core::stress::InstanceStress::from_state(&entry.instance, state)
                .map_err(|e| {
                    SetSnapshotError::Inconsistent(format!(
                        "stress: {}",
                        smithereens_core::error::display_chain(&e)
                    ))
                })?;
            entry.stress = Some(Box::new(s));
            set.stressed
                .push(InstanceHandle::from_raw_parts(slot, generation));
        }
        for (_, h) in &loads {
            if set.entry(*h).ok().and_then(|e| e.stress.as_ref()).is_none() {
                return Err(SetSnapshotError::Inconsistent(format!(
                    "a load of {h}, which has no stress"
                )));
            }
        }
        set.debris = debris_settings;
        for (slot, states) in debris {
            let entry = occupied(&mut set.slots, slot, "render-only debris")?;
            for state in states {
                let c = state.cluster;
                let cluster = entry.instance.cluster(c).filter(|_| {
                    !entry.bodies.contains_key(&c)
                        && !entry.debris.contains(c)
                        && state.pose.is_valid()
                        && state.linvel.is_finite()
                        && state.angvel.is_finite()
                });
                let Some(cluster) = cluster else {
                    return Err(SetSnapshotError::Inconsistent(format!(
                        "render-only particle of cluster {c} is unknown, repeated, has a body or is not finite"
                    )));
                };
                let support = crate::debris::support_points(
                    entry.instance.asset(),
                    &cluster.nodes,
                    cluster.mass.center,
                );
                entry.debris.insert(state, support);
            }
        }
        set.loads = loads.into_iter().collect();
        set.load_streaks = load_streaks.into_iter().collect();
        flights.validate().map_err(SetSnapshotError::Inconsistent)?;
        set.flights = flights;
        set.collector.track_stops.store(
            !set.stressed.is_empty(),
            std::sync::atomic::Ordering::Relaxed,
        );
        Ok(set)
    }

    /// Serialises the game's Rapier world and the set together (the game
    /// owns both; this only writes them side by side, postcard-encoded).
    ///
    /// # Errors
    /// [`SetSnapshotError::Encode`] if serialisation fails.
    pub fn snapshot_with(&self, physics: &PhysicsWorld) -> Result<Vec<u8>, SetSnapshotError> {
        postcard::to_stdvec(&(self.snapshot()?, physics))
            .map(seal)
            .map_err(|e| SetSnapshotError::Encode(e.to_string()))
    }

    /// Restores what [`Self::snapshot_with`] wrote: the game's Rapier world
    /// and the set. Stepping both on resumes bit for bit.
    ///
    /// # Errors
    /// As [`Self::restore`].
    pub fn restore_with(
        bytes: &[u8],
        assets: &[Arc<Asset>],
    ) -> Result<(PhysicsWorld, Self), SetSnapshotError> {
        let (set, physics): (Vec<u8>, PhysicsWorld) = decode_exact(unseal(bytes)?)?;
        let set = Self::restore(&set, assets, &physics)?;
        Ok((physics, set))
    }

    /// Hash of the set ([`Self::state_hash`]) and of every body in the
    /// game's world (pose and velocity bits, in handle order): equal after a
    /// bit-exact restore.
    pub fn world_hash(&self, physics: &PhysicsWorld) -> u64 {
        let mut h = smithereens_core::hash::StateHasher::new();
        h.write_u64(self.state_hash(physics));
        let mut bodies: Vec<(RigidBodyHandle, &RigidBody)> = physics.bodies.iter().collect();
        bodies.sort_by_key(|(rb, _)| rb.into_raw_parts());
        for (_, b) in bodies {
            super::hash_body(&mut h, b);
        }
        h.finish()
    }
}
