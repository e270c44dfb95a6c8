//! Per-instance destruction state (DESIGN §3.2): bond health, node → cluster
//! ownership, clusters, topology version, commit sequence, pending and
//! applied events. Mutated only by [`Instance::admit`] (pending table) and by
//! a successful commit ([`Instance::commit`]); everything in between works on
//! a candidate copy.

use crate::asset::Asset;
use crate::cluster::{Cluster, ClusterHandle, ClusterMotion, ClusterSet};
use crate::commit::{CommitError, CommitPlan, PlannedEvent, PlannedImpulse, SplitPart, SplitPlan};
use crate::damage::{DamageCandidate, EventId, RadialDamage, apply_radial};
use crate::error::DamageError;
use crate::hash::StateHasher;
use crate::index::{BondIndex, ChunkIndex};
use crate::island::{Island, IslandScratch, find_islands_in};
use crate::mass::{MassPart, combine, principal_axes};
use crate::pose::Pose;
use crate::velocity::Velocity;
use glam::Quat;
use std::collections::BTreeMap;
use std::sync::Arc;

/// An admitted event waiting for the next commit, with the geometry frozen at admission.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingEvent {
    /// The event as admitted.
    pub event: RadialDamage,
    /// Admission order (stable processing order).
    pub admission_seq: u64,
    /// Topology version at admission.
    pub topology_version: u64,
    /// Intact bonds within the radius at admission with frozen distances, by bond index.
    pub candidates: Vec<DamageCandidate>,
    /// Chunk nearest to the impact point at admission (receives the impulse).
    pub impulse_chunk: Option<ChunkIndex>,
}

/// Proof that an event was applied, returned again for a repeated id.
#[derive(Clone, Debug, PartialEq)]
pub struct Receipt {
    /// The event as applied.
    pub event: RadialDamage,
    /// Commit sequence number of the commit that applied it.
    pub commit_seq: u64,
    /// Topology version published by that commit.
    pub topology_version: u64,
    /// Bonds this event broke, ascending.
    pub broken: Vec<BondIndex>,
}

/// Answer to [`Instance::admit`].
#[derive(Clone, Debug, PartialEq)]
pub enum Admission {
    /// Queued (or already queued with the same parameters); applies at the next commit.
    Pending {
        /// The event id.
        event: EventId,
        /// Its admission order.
        admission_seq: u64,
    },
    /// Already applied: the original receipt.
    Applied(Receipt),
}

/// The mutable state of one placed asset.
#[derive(Clone, Debug)]
pub struct Instance {
    asset: Arc<Asset>,
    health: Vec<f32>,
    node_cluster: Vec<ClusterHandle>,
    clusters: ClusterSet,
    topology_version: u64,
    commit_seq: u64,
    next_admission: u64,
    pending: Vec<PendingEvent>,
    applied: BTreeMap<EventId, Receipt>,
    scratch: IslandScratch,
}

impl Instance {
    /// Places `asset` in the world at `placement` (asset → world), with every
    /// bond at full strength and at rest. The initial clusters are the
    /// connected components of the full bond graph.
    ///
    /// # Errors
    /// [`CommitError::Mass`] when a component has degenerate mass properties
    /// (cannot happen for a validated asset), [`CommitError::BadPose`] for a
    /// non-finite placement.
    pub fn new(
        asset: Arc<Asset>,
        placement: Pose,
    ) -> Result<Self, CommitError<std::convert::Infallible>> {
        if !placement.is_valid() {
            return Err(CommitError::BadPose);
        }
        let health: Vec<f32> = asset.bonds().iter().map(|b| b.strength).collect();
        let nodes: Vec<ChunkIndex> = asset.chunks().indices().collect();
        let mut scratch = IslandScratch::default();
        let mut islands = Vec::new();
        find_islands_in(&asset, &health, &nodes, true, &mut scratch, &mut islands);
        let mut created = Vec::with_capacity(islands.len());
        for island in islands {
            let part = cluster_part(&asset, island).map_err(CommitError::Mass)?;
            let pose = placement.mul(&Pose::from_translation(part.mass.center));
            created.push(Cluster {
                nodes: part.nodes,
                supported: part.supported,
                mass: part.mass,
                principal: part.principal,
                motion: ClusterMotion {
                    pose,
                    velocity: Velocity::default(),
                },
            });
        }
        let mut clusters = ClusterSet::default();
        let handles = clusters.replace(&[], created);
        let mut node_cluster = vec![handles[0]; asset.chunk_count()];
        for &h in &handles {
            if let Some(c) = clusters.get(h) {
                for n in &c.nodes {
                    node_cluster[n.0 as usize] = h;
                }
            }
        }
        Ok(Self {
            asset,
            health,
            node_cluster,
            clusters,
            topology_version: 0,
            commit_seq: 0,
            next_admission: 0,
            pending: Vec::new(),
            applied: BTreeMap::new(),
            scratch,
        })
    }

    /// The shared asset.
    pub fn asset(&self) -> &Arc<Asset> {
        &self.asset
    }
    /// Current health of every bond, du, indexed by bond.
    pub fn health(&self) -> &[f32] {
        &self.health
    }
    /// Health of one bond, `None` when out of range.
    pub fn bond_health(&self, b: BondIndex) -> Option<f32> {
        self.health.get(b.0 as usize).copied()
    }
    /// True when the bond's health is zero.
    pub fn is_broken(&self, b: BondIndex) -> bool {
        self.bond_health(b).is_some_and(|h| h <= 0.0)
    }
    /// Number of broken bonds.
    pub fn broken_count(&self) -> usize {
        self.health.iter().filter(|&&h| h <= 0.0).count()
    }
    /// The cluster that owns `chunk`.
    pub fn cluster_of(&self, chunk: ChunkIndex) -> Option<ClusterHandle> {
        self.node_cluster.get(chunk.0 as usize).copied()
    }
    /// A cluster by handle; `None` when stale.
    pub fn cluster(&self, h: ClusterHandle) -> Option<&Cluster> {
        self.clusters.get(h)
    }
    /// All live clusters in handle order.
    pub fn clusters(&self) -> impl Iterator<Item = (ClusterHandle, &Cluster)> + '_ {
        self.clusters.iter()
    }
    /// Number of live clusters.
    pub fn cluster_count(&self) -> usize {
        self.clusters.len()
    }
    /// Topology version: advances on every commit that changes clusters.
    pub fn topology_version(&self) -> u64 {
        self.topology_version
    }
    /// Commit sequence: advances on every commit, with or without a break.
    pub fn commit_seq(&self) -> u64 {
        self.commit_seq
    }
    /// Events admitted and not yet committed, in processing order.
    pub fn pending(&self) -> &[PendingEvent] {
        &self.pending
    }
    /// The receipt of an applied event.
    pub fn receipt(&self, id: EventId) -> Option<&Receipt> {
        self.applied.get(&id)
    }

    /// Records the current physical motion of a cluster (called by the
    /// backend after each step for moving clusters).
    ///
    /// # Errors
    /// [`CommitError::StaleCluster`] for an unknown handle, [`CommitError::BadPose`]
    /// for non-finite values. Nothing changes on error.
    pub fn set_motion<E>(
        &mut self,
        h: ClusterHandle,
        motion: ClusterMotion,
    ) -> Result<(), CommitError<E>> {
        if !motion.pose.is_valid()
            || !motion.velocity.linear.is_finite()
            || !motion.velocity.angular.is_finite()
        {
            return Err(CommitError::BadPose);
        }
        let c = self
            .clusters
            .get_mut(h)
            .ok_or(CommitError::StaleCluster(h))?;
        c.motion = motion;
        Ok(())
    }

    /// Admits a radial damage event (DESIGN §3.3, §3.8): validates it, and
    /// freezes the topology version, the candidate bonds within the radius
    /// and their distances, measured from each bond centroid carried into its
    /// cluster's current world frame.
    ///
    /// Idempotent by event id: the same id with the same parameters returns
    /// the original pending answer or receipt; with different parameters it is
    /// rejected.
    ///
    /// # Errors
    /// Any [`DamageError`]; a rejected event changes nothing.
    pub fn admit(&mut self, event: RadialDamage) -> Result<Admission, DamageError> {
        event.validate()?;
        if let Some(r) = self.applied.get(&event.id) {
            return if r.event.same_parameters(&event) {
                Ok(Admission::Applied(r.clone()))
            } else {
                Err(DamageError::ConflictingEvent(event.id.0))
            };
        }
        if let Some(p) = self.pending.iter().find(|p| p.event.id == event.id) {
            return if p.event.same_parameters(&event) {
                Ok(Admission::Pending {
                    event: event.id,
                    admission_seq: p.admission_seq,
                })
            } else {
                Err(DamageError::ConflictingEvent(event.id.0))
            };
        }
        let frames: BTreeMap<ClusterHandle, Pose> = self
            .clusters
            .iter()
            .map(|(h, c)| (h, c.asset_to_world()))
            .collect();
        let mut candidates = Vec::new();
        for (b, bond) in self.asset.bonds().iter_enumerated() {
            if self.health[b.0 as usize] <= 0.0 {
                continue;
            }
            let Some(frame) = frames.get(&self.node_cluster[bond.chunk0.0 as usize]) else {
                continue;
            };
            let d = frame.transform_point(bond.centroid).distance(event.point);
            if d < event.radius {
                candidates.push(DamageCandidate {
                    bond: b,
                    distance: d,
                });
            }
        }
        let impulse_chunk = event.impulse.and_then(|_| {
            let mut best: Option<(f32, ChunkIndex)> = None;
            for (c, chunk) in self.asset.chunks().iter_enumerated() {
                let Some(frame) = frames.get(&self.node_cluster[c.0 as usize]) else {
                    continue;
                };
                let d = frame.transform_point(chunk.centroid).distance(event.point);
                if best.is_none_or(|(bd, _)| d < bd) {
                    best = Some((d, c));
                }
            }
            best.map(|(_, c)| c)
        });
        let admission_seq = self.next_admission;
        self.next_admission += 1;
        self.pending.push(PendingEvent {
            event,
            admission_seq,
            topology_version: self.topology_version,
            candidates,
            impulse_chunk,
        });
        Ok(Admission::Pending {
            event: event.id,
            admission_seq,
        })
    }

    /// Plans the next commit on a candidate copy: applies every pending event
    /// in admission order, finds the islands of each cluster that lost a bond,
    /// and computes the new clusters' mass properties. `self` is not changed,
    /// so published queries keep reading the current version.
    ///
    /// # Errors
    /// [`CommitError::Mass`] when a new cluster has degenerate mass properties.
    pub fn plan<E>(&mut self) -> Result<CommitPlan, CommitError<E>> {
        let mut candidate = self.health.clone();
        let mut events = Vec::with_capacity(self.pending.len());
        let mut all_broken = Vec::new();
        for p in &self.pending {
            let mut broken = Vec::new();
            let removed = apply_radial(
                &mut candidate,
                &p.candidates,
                p.event.radius,
                p.event.damage,
                &mut broken,
            );
            broken.sort_unstable();
            all_broken.extend_from_slice(&broken);
            events.push(PlannedEvent {
                id: p.event.id,
                broken,
                damage_removed: removed,
            });
        }
        all_broken.sort_unstable();
        let health_changes: Vec<(BondIndex, f32)> = candidate
            .iter()
            .zip(&self.health)
            .enumerate()
            .filter(|(_, (new, old))| new.to_bits() != old.to_bits())
            .map(|(i, (new, _))| (BondIndex(i as u32), *new))
            .collect();
        let mut dirty: Vec<ClusterHandle> = all_broken
            .iter()
            .map(|&b| self.node_cluster[self.asset.bonds()[b].chunk0.0 as usize])
            .collect();
        dirty.sort_unstable();
        dirty.dedup();
        let mut splits = Vec::new();
        let mut islands: Vec<Island> = Vec::new();
        for h in dirty {
            let Some(cluster) = self.clusters.get(h) else {
                continue;
            };
            islands.clear();
            find_islands_in(
                &self.asset,
                &candidate,
                &cluster.nodes,
                cluster.supported,
                &mut self.scratch,
                &mut islands,
            );
            if islands.len() == 1 && islands[0].supported == cluster.supported {
                continue;
            }
            let mut parts = Vec::with_capacity(islands.len());
            for island in islands.drain(..) {
                parts.push(cluster_part(&self.asset, island).map_err(CommitError::Mass)?);
            }
            splits.push(SplitPlan { old: h, parts });
        }
        let freed: Vec<ClusterHandle> = splits.iter().map(|s| s.old).collect();
        let part_count = splits.iter().map(|s| s.parts.len()).sum();
        let handles = self.clusters.peek_allocations(&freed, part_count);
        let mut next = handles.into_iter();
        let mut new_owner: BTreeMap<ChunkIndex, ClusterHandle> = BTreeMap::new();
        for s in &mut splits {
            for part in &mut s.parts {
                part.handle = next.next().unwrap_or(part.handle);
                for &n in &part.nodes {
                    new_owner.insert(n, part.handle);
                }
            }
        }
        let impulses = self
            .pending
            .iter()
            .filter_map(|p| {
                let (j, chunk) = (p.event.impulse?, p.impulse_chunk?);
                let target = new_owner
                    .get(&chunk)
                    .copied()
                    .unwrap_or(self.node_cluster[chunk.0 as usize]);
                Some(PlannedImpulse {
                    event: p.event.id,
                    point: p.event.point,
                    impulse: j,
                    chunk,
                    target,
                })
            })
            .collect();
        Ok(CommitPlan {
            base_version: self.topology_version,
            commit_seq: self.commit_seq + 1,
            events,
            health_changes,
            broken: all_broken,
            splits,
            impulses,
        })
    }

    /// Installs a planned commit whose physics side has already been swapped.
    /// `motions[k]` is the motion of the k-th new cluster in plan order
    /// (splits, then parts).
    pub(crate) fn apply<E>(
        &mut self,
        plan: CommitPlan,
        motions: Vec<ClusterMotion>,
    ) -> Result<Vec<Receipt>, CommitError<E>> {
        if plan.base_version != self.topology_version {
            return Err(CommitError::StaleTopology {
                expected: plan.base_version,
                found: self.topology_version,
            });
        }
        for &(b, h) in &plan.health_changes {
            if let Some(slot) = self.health.get_mut(b.0 as usize) {
                *slot = h;
            }
        }
        let freed: Vec<ClusterHandle> = plan.splits.iter().map(|s| s.old).collect();
        let mut created = Vec::new();
        let mut expected = Vec::new();
        let mut motions = motions.into_iter();
        for s in plan.splits {
            for p in s.parts {
                expected.push(p.handle);
                let motion = motions.next().unwrap_or_default();
                created.push(Cluster {
                    nodes: p.nodes,
                    supported: p.supported,
                    mass: p.mass,
                    principal: p.principal,
                    motion,
                });
            }
        }
        let handles = self.clusters.replace(&freed, created);
        debug_assert_eq!(handles, expected, "planned handles must match allocation");
        for h in handles {
            if let Some(c) = self.clusters.get(h) {
                for n in &c.nodes {
                    self.node_cluster[n.0 as usize] = h;
                }
            }
        }
        if !freed.is_empty() {
            self.topology_version += 1;
        }
        // Impulses enter the recorded motion exactly once, keyed by their event
        // (which leaves the pending table below). The physics backend applied the
        // same change to its bodies in `CommitBackend::commit`.
        for imp in &plan.impulses {
            if let Some(c) = self.clusters.get_mut(imp.target).filter(|c| !c.supported) {
                let dv = crate::commit::impulse_change(&c.mass, &c.motion, imp);
                c.motion.velocity.linear += dv.linear;
                c.motion.velocity.angular += dv.angular;
            }
        }
        self.commit_seq = plan.commit_seq;
        let mut receipts = Vec::with_capacity(plan.events.len());
        for e in plan.events {
            let Some(pos) = self.pending.iter().position(|p| p.event.id == e.id) else {
                continue;
            };
            let pending = self.pending.remove(pos);
            let receipt = Receipt {
                event: pending.event,
                commit_seq: self.commit_seq,
                topology_version: self.topology_version,
                broken: e.broken,
            };
            self.applied.insert(e.id, receipt.clone());
            receipts.push(receipt);
        }
        Ok(receipts)
    }

    /// FNV-1a hash of the simulation-relevant state: versions, every bond's
    /// health bits, node ownership and each cluster's membership, support
    /// flag and pose bits. Equal states give equal hashes on every platform.
    pub fn state_hash(&self) -> u64 {
        let mut h = StateHasher::new();
        h.write_u64(self.topology_version);
        h.write_u64(self.commit_seq);
        for &x in &self.health {
            h.write_f32(x);
        }
        for c in &self.node_cluster {
            h.write_u32(c.index());
            h.write_u32(c.generation());
        }
        for (handle, c) in self.clusters.iter() {
            h.write_u32(handle.index());
            h.write_u32(c.nodes.len() as u32);
            h.write_u32(c.supported as u32);
            let p = c.motion.pose;
            for v in p
                .translation
                .to_array()
                .into_iter()
                .chain(p.rotation.to_array())
            {
                h.write_f32(v);
            }
        }
        h.finish()
    }
}

/// Mass properties of an island in asset space (chunk rotations identity).
pub(crate) fn cluster_part(asset: &Asset, island: Island) -> Result<SplitPart, crate::MassError> {
    let parts: Vec<MassPart> = island
        .nodes
        .iter()
        .filter_map(|&n| asset.chunk(n))
        .map(|c| MassPart {
            mass: c.mass,
            center: c.centroid,
            inertia: c.inertia,
            rotation: Quat::IDENTITY,
        })
        .collect();
    let mass = combine(&parts)?;
    let principal = principal_axes(mass.inertia)?;
    Ok(SplitPart {
        handle: ClusterHandle::PLACEHOLDER,
        nodes: island.nodes,
        supported: island.supported,
        mass,
        principal,
    })
}
