//! Clusters: the rigid groups of chunks that exist at runtime, each one body
//! in the physics world, addressed by generational handles.

use crate::asset::Asset;
use crate::budget::{BodySlot, Representation};
use crate::index::ChunkIndex;
use crate::lifecycle::SleepState;
use crate::mass::{MassProperties, MassSums, PrincipalAxes};
use crate::pose::Pose;
use crate::spatial_hash::SpatialHash;
use crate::velocity::Velocity;
use serde::{Deserialize, Serialize};

/// The member chunks of a cluster, island or split part, ascending. Up to
/// [`Members::inline_size`] (4) chunks are stored inline, so a piece of a
/// few chunks (most of what a blast or a chip frees) needs no heap block of
/// its own (issue 12 item 3); larger lists spill to the heap like a `Vec`.
/// It dereferences to `[ChunkIndex]`; `to_vec()` gives a `Vec`.
pub type Members = smallvec::SmallVec<[ChunkIndex; 4]>;

/// Generational handle of a runtime cluster. Goes stale when the cluster
/// splits; lookups then return `None`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ClusterHandle {
    index: u32,
    generation: u32,
}

impl ClusterHandle {
    /// A handle that never names a live cluster (placeholder before
    /// allocation, and the owner of chunks that were recycled).
    pub const PLACEHOLDER: Self = Self {
        index: u32::MAX,
        generation: u32::MAX,
    };

    /// Slot index.
    pub fn index(self) -> u32 {
        self.index
    }
    /// Slot generation.
    pub fn generation(self) -> u32 {
        self.generation
    }
}

impl std::fmt::Display for ClusterHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}v{}", self.index, self.generation)
    }
}

/// Where a cluster is and how it moves: the world pose of its body frame
/// (origin at the centre of mass) and its velocity.
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterMotion {
    /// World pose of the body frame, whose origin is the cluster's centre of mass.
    pub pose: Pose,
    /// World velocity (linear of the centre of mass, angular).
    pub velocity: Velocity,
}

/// A runtime cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct Cluster {
    /// Member chunks, ascending.
    pub nodes: Members,
    /// Fixed to the world.
    pub supported: bool,
    /// Mass properties in asset space (centre and inertia about it, asset axes).
    pub mass: MassProperties,
    /// Principal moments and frame of `mass.inertia` (asset axes).
    pub principal: PrincipalAxes,
    /// The f64 sums `mass` is derived from; a split subtracts the departing
    /// pieces from them instead of re-summing the remainder (issue 12).
    /// Read them with [`Cluster::sums`].
    pub(crate) sums: ClusterSums,
    /// Current motion, as last synced from the physics world.
    pub motion: ClusterMotion,
    /// How the physics world represents it (budget, DESIGN §3.9).
    pub representation: Representation,
    /// Its rigid-body slot; `None` for supported clusters and render-only debris.
    pub slot: Option<BodySlot>,
    /// Sleep state (dynamic clusters only).
    pub sleep: SleepState,
    /// Query epoch at which it was withdrawn from authoritative queries for
    /// recycling, `None` while queryable.
    pub withdrawn_at: Option<u64>,
}

/// Where a cluster keeps its f64 mass sums ([`MassSums`], 144 bytes). A
/// one-chunk cluster whose sums are exactly its chunk's own
/// ([`MassSums::of_chunk`]) does not store them: most clusters a blast makes
/// are one chunk, and a cluster slot without them is 37 % smaller (issue
/// 12: a shatter into 32,768 pieces writes 4.7 MB less).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ClusterSums {
    /// The one member chunk's own sums.
    OfChunk,
    /// Stored (boxed, so a slot holds only a pointer).
    Stored(Box<MassSums>),
}

impl ClusterSums {
    /// How to keep `sums` for a cluster of `nodes` (chunks of `asset`):
    /// [`Self::OfChunk`] when they are exactly the one chunk's, else stored,
    /// in `spare` when given (a box an earlier cluster gave back).
    pub(crate) fn new(
        sums: MassSums,
        asset: &Asset,
        nodes: &[ChunkIndex],
        spare: Option<Box<MassSums>>,
    ) -> Self {
        if let [only] = nodes
            && asset.chunk_sums(*only).is_some_and(|own| *own == sums)
        {
            return Self::OfChunk;
        }
        Self::stored(sums, spare)
    }

    /// Stored sums, in `spare` when given.
    pub(crate) fn stored(sums: MassSums, spare: Option<Box<MassSums>>) -> Self {
        match spare {
            Some(mut b) => {
                *b = sums;
                Self::Stored(b)
            }
            None => Self::Stored(Box::new(sums)),
        }
    }

    /// The sums of a cluster (or part) of `nodes`: the stored ones, or the
    /// one chunk's ([`Asset::chunk_sums`]; [`MassSums::ZERO`] if that chunk
    /// is missing, which [`Self::new`] never lets happen).
    pub(crate) fn value(&self, asset: &Asset, nodes: &[ChunkIndex]) -> MassSums {
        *self.get(asset, nodes).unwrap_or(&MassSums::ZERO)
    }

    /// [`Self::value`] by reference.
    pub(crate) fn get<'a>(
        &'a self,
        asset: &'a Asset,
        nodes: &[ChunkIndex],
    ) -> Option<&'a MassSums> {
        match self {
            Self::Stored(b) => Some(b),
            Self::OfChunk => nodes.first().and_then(|&n| asset.chunk_sums(n)),
        }
    }

    /// Its box, for reuse.
    pub(crate) fn into_box(self) -> Option<Box<MassSums>> {
        match self {
            Self::OfChunk => None,
            Self::Stored(b) => Some(b),
        }
    }
}

impl Cluster {
    /// The f64 mass sums of this cluster of `asset`'s chunks.
    pub(crate) fn sums(&self, asset: &Asset) -> MassSums {
        self.sums.value(asset, &self.nodes)
    }

    /// The transform from asset space to world space for this cluster's chunks:
    /// `pose ∘ translate(−c_asset)`.
    pub fn asset_to_world(&self) -> Pose {
        self.motion
            .pose
            .mul(&Pose::from_translation(-self.mass.center))
    }
}

/// Cube edge, m, of the loose index of `asset`'s instances: twice the mean
/// spacing of its chunk centroids (the edge of their bounding box's volume
/// shared out per chunk), so a cube holds a few loose chunks at rest; 1 m
/// for an asset whose centroids span no volume.
pub(crate) fn loose_cell_size(asset: &Asset) -> f32 {
    let chunks = asset.chunks();
    let (lo, hi) = chunks.iter().fold(
        (
            glam::Vec3::splat(f32::INFINITY),
            glam::Vec3::splat(f32::NEG_INFINITY),
        ),
        |(lo, hi), c| (lo.min(c.centroid), hi.max(c.centroid)),
    );
    let size = (hi - lo).max(glam::Vec3::splat(0.0));
    let count = chunks.len().max(1) as f32;
    // A flat asset (one layer) spreads its chunks over an area.
    let spacing = match size.to_array().iter().filter(|&&e| e > 0.0).count() {
        3 => (size.x * size.y * size.z / count).cbrt(),
        2 => {
            let [a, b] = {
                let mut e = size.to_array();
                e.sort_by(f32::total_cmp);
                [e[1], e[2]]
            };
            (a * b / count).sqrt()
        }
        1 => size.max_element() / count,
        _ => 0.5,
    };
    if spacing.is_finite() && spacing > 0.0 {
        2.0 * spacing
    } else {
        1.0
    }
}

#[derive(Clone, Debug)]
struct Slot {
    generation: u32,
    /// Position of this slot in [`ClusterSet::bonded`], `u32::MAX` when its
    /// cluster has fewer than two members (or the slot is free).
    bonded_at: u32,
    /// Listed in [`ClusterSet::moved`].
    moved: bool,
    cluster: Option<Cluster>,
}

/// Arena of clusters with generations; a freed slot's generation is bumped,
/// and allocation takes the lowest free slot, so handles are deterministic.
///
/// It also keeps the slots of the clusters with two or more members (the
/// only ones with intact bonds), so damage admission visits those instead
/// of every loose chunk a blast left behind (issue 12: a tiny event after a
/// 32,768-piece shatter walked all 32,768 clusters), and a spatial hash of
/// the one-chunk clusters' world positions for events with an impulse
/// (the loose index, `catch_up_loose` and `nearest_loose`).
#[derive(Clone, Debug, Default)]
pub struct ClusterSet {
    slots: Vec<Slot>,
    free: std::collections::BTreeSet<u32>,
    /// Slot indices of the live clusters with at least two members, in no
    /// particular order (kept by swap-remove; callers must not depend on it).
    bonded: Vec<u32>,
    /// The one-chunk clusters' chunk centroids in world space, by slot, as
    /// of the last [`Self::catch_up_loose`]; `None` until the first one
    /// (an instance that never sees an impulse never builds it).
    loose: Option<SpatialHash>,
    /// Slots whose cluster may have moved, changed or gone since the last
    /// catch-up, once each (only kept while `loose` exists).
    moved: Vec<u32>,
    /// Catching up: the new position of each moved slot's chunk.
    moved_points: Vec<Option<glam::Vec3>>,
}

impl ClusterSet {
    /// The cluster, or `None` for a stale or unknown handle.
    pub fn get(&self, h: ClusterHandle) -> Option<&Cluster> {
        self.slots
            .get(h.index as usize)
            .filter(|s| s.generation == h.generation)
            .and_then(|s| s.cluster.as_ref())
    }

    /// The cluster, mutable; it counts as moved for the loose index.
    pub(crate) fn get_mut(&mut self, h: ClusterHandle) -> Option<&mut Cluster> {
        let slot = self
            .slots
            .get_mut(h.index as usize)
            .filter(|s| s.generation == h.generation && s.cluster.is_some())?;
        if self.loose.is_some() && !slot.moved {
            slot.moved = true;
            self.moved.push(h.index);
        }
        slot.cluster.as_mut()
    }

    /// The cluster, mutable, for changes that move no chunk and change no
    /// membership (velocity, sleep state): the loose index is not told, so
    /// a resting piece synced every step costs no catch-up (use
    /// [`Self::get_mut`] for anything else).
    pub(crate) fn get_mut_in_place(&mut self, h: ClusterHandle) -> Option<&mut Cluster> {
        self.slots
            .get_mut(h.index as usize)
            .filter(|s| s.generation == h.generation)
            .and_then(|s| s.cluster.as_mut())
    }

    /// Slots waiting for the next catch-up of the loose index.
    #[cfg(test)]
    pub(crate) fn moved_len(&self) -> usize {
        self.moved.len()
    }

    /// Lists slot `i` for the next catch-up of the loose index.
    fn mark_moved(&mut self, i: u32) {
        if self.loose.is_some()
            && let Some(slot) = self.slots.get_mut(i as usize)
            && !slot.moved
        {
            slot.moved = true;
            self.moved.push(i);
        }
    }

    /// Brings the loose index up to date before an event with an impulse
    /// (issue 12 item 3): O(clusters) the first time, then O(slots changed
    /// since the last call). So that an impulse never costs much more than
    /// measuring every cluster, catching up over more than a quarter of the
    /// slots is spread out: a sixteenth of them per call, while
    /// [`Self::nearest_loose`] measures every cluster until the index has
    /// caught up (32,768 debris that all moved: about 0.6 ms a call against
    /// 0.5 ms for the measuring alone). The cube edge is twice the asset's
    /// mean chunk spacing ([`loose_cell_size`]).
    pub(crate) fn catch_up_loose(&mut self, asset: &Asset) {
        let chunks = asset.chunks();
        // The chunk's centroid in world space, as admission measures it.
        let position = |slot: &Slot| {
            let c = slot.cluster.as_ref()?;
            match c.nodes[..] {
                [only] => chunks
                    .get(only)
                    .map(|chunk| c.asset_to_world().transform_point(chunk.centroid)),
                _ => None,
            }
        };
        let Some(loose) = &mut self.loose else {
            let mut loose = SpatialHash::new(loose_cell_size(asset));
            loose.reserve(self.slots.capacity());
            for (i, slot) in self.slots.iter().enumerate() {
                loose.set(i as u32, position(slot));
            }
            self.loose = Some(loose);
            self.moved.reserve(self.slots.capacity());
            self.moved_points.reserve(self.slots.capacity());
            return;
        };
        // Sized with the cluster table, so it grows only when that does.
        loose.reserve(self.slots.capacity());
        // Two passes, reading the slots in one and filing the points in the
        // other, measured 4-5x faster than both in one loop (32,768 moved
        // debris: 1.1-1.4 against 6 ms). The profile of the one loop put the
        // time on vector multiplies of the pose arithmetic, the signature of
        // denormal operands in unused SIMD lanes (see README, Performance).
        let due = if self.moved.len() * 4 <= self.slots.len() {
            self.moved.len()
        } else {
            (self.slots.len() / 16).max(1)
        };
        let from = self.moved.len() - due;
        let points = &mut self.moved_points;
        points.clear();
        points.extend(
            self.moved[from..]
                .iter()
                .map(|&i| self.slots.get(i as usize).and_then(&position)),
        );
        for (i, point) in self.moved.drain(from..).zip(points.drain(..)) {
            if let Some(slot) = self.slots.get_mut(i as usize) {
                slot.moved = false;
            }
            loose.set(i, point);
        }
    }

    /// The nearest of `best` and the chunks of the live one-chunk clusters,
    /// where `measure(h, cluster)` gives the distance, m, from `point` to the
    /// cluster's chunk centroid in world space and the chunk index breaking
    /// ties, or `None` to skip it. Through the loose index when it has
    /// caught up ([`Self::catch_up_loose`]) since the clusters last changed;
    /// otherwise every one-chunk cluster is measured. See
    /// [`SpatialHash::nearest`].
    pub(crate) fn nearest_loose(
        &self,
        point: glam::Vec3,
        best: Option<(f32, u32)>,
        mut measure: impl FnMut(ClusterHandle, &Cluster) -> Option<(f32, u32)>,
    ) -> Option<(f32, u32)> {
        let mut of_slot = |i: u32| {
            let slot = self.slots.get(i as usize)?;
            let c = slot.cluster.as_ref().filter(|c| c.nodes.len() == 1)?;
            measure(
                ClusterHandle {
                    index: i,
                    generation: slot.generation,
                },
                c,
            )
        };
        match &self.loose {
            Some(loose) if self.moved.is_empty() => loose.nearest(point, best, of_slot),
            _ => {
                let mut best = best;
                for i in 0..self.slots.len() as u32 {
                    if let Some(found) = of_slot(i)
                        && crate::point_tree::closer(found, best)
                    {
                        best = Some(found);
                    }
                }
                best
            }
        }
    }

    /// The live clusters with two or more members (those that can hold an
    /// intact bond), in no particular order: O(their number), not O(all).
    pub(crate) fn iter_bonded(&self) -> impl Iterator<Item = (ClusterHandle, &Cluster)> + '_ {
        self.bonded.iter().filter_map(|&i| {
            let s = &self.slots[i as usize];
            s.cluster.as_ref().map(|c| {
                (
                    ClusterHandle {
                        index: i,
                        generation: s.generation,
                    },
                    c,
                )
            })
        })
    }

    /// Number of live clusters with two or more members.
    pub(crate) fn bonded_len(&self) -> usize {
        self.bonded.len()
    }

    /// Adds or removes slot `i` from the bonded list after its cluster changed.
    fn index_bonded(&mut self, i: u32) {
        let slot = &self.slots[i as usize];
        let want = slot.cluster.as_ref().is_some_and(|c| c.nodes.len() >= 2);
        let at = slot.bonded_at;
        if want && at == u32::MAX {
            self.slots[i as usize].bonded_at = self.bonded.len() as u32;
            self.bonded.push(i);
        } else if !want && at != u32::MAX {
            self.bonded.swap_remove(at as usize);
            if let Some(&moved) = self.bonded.get(at as usize) {
                self.slots[moved as usize].bonded_at = at;
            }
            self.slots[i as usize].bonded_at = u32::MAX;
        }
    }

    /// Live clusters in slot order, mutable, for changes that move no
    /// cluster and change no membership (sleep states): the loose index is
    /// not told (use [`Self::get_mut`] for anything else).
    pub(crate) fn iter_mut_in_place(
        &mut self,
    ) -> impl Iterator<Item = (ClusterHandle, &mut Cluster)> + '_ {
        self.slots.iter_mut().enumerate().filter_map(|(i, s)| {
            let generation = s.generation;
            s.cluster.as_mut().map(|c| {
                (
                    ClusterHandle {
                        index: i as u32,
                        generation,
                    },
                    c,
                )
            })
        })
    }

    /// The generation of every slot (for a live slot, its cluster's; for a
    /// free slot, the one its next cluster will get).
    pub(crate) fn generations(&self) -> Vec<u32> {
        self.slots.iter().map(|s| s.generation).collect()
    }

    /// Rebuilds an arena from slot generations and live clusters. `None` when
    /// a handle is out of range, has the wrong generation or repeats.
    pub(crate) fn from_parts(
        generations: &[u32],
        live: Vec<(ClusterHandle, Cluster)>,
    ) -> Option<Self> {
        let mut slots: Vec<Slot> = generations
            .iter()
            .map(|&generation| Slot {
                generation,
                bonded_at: u32::MAX,
                moved: false,
                cluster: None,
            })
            .collect();
        for (h, c) in live {
            let slot = slots.get_mut(h.index as usize)?;
            if slot.generation != h.generation || slot.cluster.is_some() {
                return None;
            }
            slot.cluster = Some(c);
        }
        let free = slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.cluster.is_none())
            .map(|(i, _)| i as u32)
            .collect();
        let mut set = Self {
            slots,
            free,
            bonded: Vec::new(),
            loose: None,
            moved: Vec::new(),
            moved_points: Vec::new(),
        };
        for i in 0..set.slots.len() as u32 {
            set.index_bonded(i);
        }
        Some(set)
    }

    /// Live clusters in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (ClusterHandle, &Cluster)> + '_ {
        self.slots.iter().enumerate().filter_map(|(i, s)| {
            s.cluster.as_ref().map(|c| {
                (
                    ClusterHandle {
                        index: i as u32,
                        generation: s.generation,
                    },
                    c,
                )
            })
        })
    }

    /// Number of live clusters.
    pub fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// True when no cluster is alive.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The handles that [`Self::replace`] will assign to `count` new clusters
    /// after freeing `freed` (all live): lowest free slot first.
    pub(crate) fn peek_allocations(
        &self,
        freed: &[ClusterHandle],
        count: usize,
    ) -> Vec<ClusterHandle> {
        let mut out = Vec::new();
        self.peek_allocations_into(freed, count, &mut out);
        out
    }

    /// [`Self::peek_allocations`] into `out` (cleared first; a buffer the
    /// caller reuses). Handles order as (index, generation), so sorting
    /// them is sorting those pairs.
    pub(crate) fn peek_allocations_into(
        &self,
        freed: &[ClusterHandle],
        count: usize,
        out: &mut Vec<ClusterHandle>,
    ) {
        out.clear();
        out.extend(self.free.iter().map(|&index| ClusterHandle {
            index,
            generation: self.slots[index as usize].generation,
        }));
        out.extend(freed.iter().map(|h| ClusterHandle {
            index: h.index,
            generation: h.generation.wrapping_add(1),
        }));
        out.sort_unstable();
        out.truncate(count);
        let mut next = self.slots.len() as u32;
        while out.len() < count {
            out.push(ClusterHandle {
                index: next,
                generation: 0,
            });
            next += 1;
        }
    }

    /// Replaces the live cluster at `h` (same handle, same generation): a
    /// cluster that lost pieces keeps its identity. Returns the cluster it
    /// replaced; `None` (and `cluster` dropped) for a stale handle.
    pub(crate) fn replace_in_place(
        &mut self,
        h: ClusterHandle,
        cluster: Cluster,
    ) -> Option<Cluster> {
        let old = self.get_mut(h).map(|c| std::mem::replace(c, cluster))?;
        self.index_bonded(h.index);
        Some(old)
    }

    /// Frees the live clusters `freed` (their generations are bumped and
    /// their slots become free); stale handles are skipped.
    pub(crate) fn free(&mut self, freed: &[ClusterHandle]) {
        for h in freed {
            if let Some(slot) = self.slots.get_mut(h.index as usize)
                && slot.generation == h.generation
                && slot.cluster.take().is_some()
            {
                slot.generation = slot.generation.wrapping_add(1);
                self.free.insert(h.index);
                self.index_bonded(h.index);
                self.mark_moved(h.index);
            }
        }
    }

    /// Makes room for `count` more clusters without growing again.
    pub(crate) fn reserve(&mut self, count: usize) {
        let grow = count.saturating_sub(self.free.len());
        self.slots.reserve(grow);
        if self.loose.is_some() {
            self.moved
                .reserve(self.slots.len() + grow - self.moved.len());
        }
    }

    /// Inserts `c` at the lowest free slot (or a new one) and returns its
    /// handle: the next handle [`Self::peek_allocations`] reports.
    pub(crate) fn insert(&mut self, c: Cluster) -> ClusterHandle {
        let index = match self.free.pop_first() {
            Some(i) => i,
            None => {
                self.slots.push(Slot {
                    generation: 0,
                    bonded_at: u32::MAX,
                    moved: false,
                    cluster: None,
                });
                (self.slots.len() - 1) as u32
            }
        };
        let slot = &mut self.slots[index as usize];
        slot.cluster = Some(c);
        let generation = slot.generation;
        self.index_bonded(index);
        self.mark_moved(index);
        ClusterHandle { index, generation }
    }

    /// Frees `freed` then inserts `created` (in order, at the handles
    /// [`Self::peek_allocations`] reported). Returns the new handles.
    pub(crate) fn replace(
        &mut self,
        freed: &[ClusterHandle],
        created: Vec<Cluster>,
    ) -> Vec<ClusterHandle> {
        let mut handles = Vec::with_capacity(created.len());
        self.replace_into(freed, created, &mut handles);
        handles
    }

    /// [`Self::replace`], appending the new handles to `handles` (a buffer
    /// the caller reuses: no allocation once it has room).
    pub(crate) fn replace_into(
        &mut self,
        freed: &[ClusterHandle],
        created: impl IntoIterator<Item = Cluster, IntoIter: ExactSizeIterator>,
        handles: &mut Vec<ClusterHandle>,
    ) {
        let created = created.into_iter();
        self.free(freed);
        handles.reserve(created.len());
        self.reserve(created.len());
        for c in created {
            handles.push(self.insert(c));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mass::{MassProperties, PrincipalAxes};
    use glam::{Mat3, Quat, Vec3};

    fn dummy() -> Cluster {
        Cluster {
            nodes: Members::new(),
            supported: false,
            mass: MassProperties {
                mass: 1.0,
                center: Vec3::ZERO,
                inertia: Mat3::IDENTITY,
            },
            principal: PrincipalAxes {
                moments: Vec3::ONE,
                frame: Quat::IDENTITY,
            },
            sums: ClusterSums::Stored(Box::new(MassSums {
                mass: 1.0,
                reference: glam::DVec3::ZERO,
                moment: glam::DVec3::ZERO,
                inertia: glam::DMat3::IDENTITY,
                resum_mass: 1.0,
                subtractions: 0,
            })),
            motion: ClusterMotion::default(),
            representation: Representation::Body,
            slot: None,
            sleep: SleepState::default(),
            withdrawn_at: None,
        }
    }

    fn with_members(count: u32) -> Cluster {
        let mut c = dummy();
        c.nodes = (0..count).map(crate::ChunkIndex).collect();
        c
    }

    fn bonded_sorted(set: &ClusterSet) -> Vec<ClusterHandle> {
        let mut v: Vec<ClusterHandle> = set.iter_bonded().map(|(h, _)| h).collect();
        v.sort_unstable();
        v
    }

    fn bonded_by_scan(set: &ClusterSet) -> Vec<ClusterHandle> {
        set.iter()
            .filter(|(_, c)| c.nodes.len() >= 2)
            .map(|(h, _)| h)
            .collect()
    }

    #[test]
    fn the_bonded_list_is_every_live_cluster_with_two_or_more_members() {
        // A deterministic mix of inserts, frees and in-place shrinks.
        let mut set = ClusterSet::default();
        let mut live: Vec<ClusterHandle> = Vec::new();
        let mut x = 12345u64;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as u32
        };
        for step in 0..2000 {
            match next() % 3 {
                0 => live.push(set.insert(with_members(next() % 4))),
                1 if !live.is_empty() => {
                    let h = live.swap_remove(next() as usize % live.len());
                    set.free(&[h]);
                }
                _ if !live.is_empty() => {
                    let h = live[next() as usize % live.len()];
                    assert!(set.replace_in_place(h, with_members(next() % 3)).is_some());
                }
                _ => {}
            }
            assert_eq!(bonded_sorted(&set), bonded_by_scan(&set), "step {step}");
        }
        assert!(!bonded_by_scan(&set).is_empty());
        // Rebuilt from its parts (snapshots), the list is the same.
        let parts: Vec<(ClusterHandle, Cluster)> =
            set.iter().map(|(h, c)| (h, c.clone())).collect();
        let rebuilt = ClusterSet::from_parts(&set.generations(), parts).unwrap();
        assert_eq!(bonded_sorted(&rebuilt), bonded_by_scan(&set));
    }

    #[test]
    fn peeked_handles_equal_the_assigned_ones_and_stale_handles_miss() {
        let mut set = ClusterSet::default();
        let first = set.replace(&[], vec![dummy(), dummy(), dummy()]);
        let freed = [first[1], first[0]];
        let peek = set.peek_allocations(&freed, 3);
        let got = set.replace(&freed, vec![dummy(), dummy(), dummy()]);
        assert_eq!(peek, got);
        assert_eq!(
            got[0],
            ClusterHandle {
                index: 0,
                generation: 1
            }
        );
        assert_eq!(
            got[2],
            ClusterHandle {
                index: 3,
                generation: 0
            }
        );
        assert!(set.get(first[0]).is_none());
        assert!(set.get(first[2]).is_some());
        assert_eq!(set.len(), 4);
    }
}
