//! [`Recorder`]: flattens every instance of a run into one [`RunRecord`].
//!
//! Instances are recorded in spawn order. Each one's support-level chunks
//! are appended to `record.chunks` (so run chunk indices are global across
//! instances) and its bonds to `record.bonds` with those global chunk
//! indices; a cluster body is recorded with its instance's asset → world
//! pose, so each chunk's asset-space mesh is drawn at `pose · vertex` as
//! for a one-instance run.

use crate::convert::from_rapier;
use crate::held::{HeldParts, LauncherId, PartStatus};
use crate::set::{DestructionSet, InstanceHandle, hash_body};
use rapier3d::prelude::*;
use smithereens_core::record::{
    RunBody, RunBodyKind, RunBond, RunChunk, RunHeldPart, RunPlainBody, RunRecord, pose_to_array,
};
use smithereens_core::{Asset, AssetFile, ClusterHandle};
use std::collections::BTreeMap;

/// One recorded instance.
pub(super) struct RecordedInstance {
    /// Its handle in the run's set.
    pub(super) handle: InstanceHandle,
    /// Asset chunk index → run chunk index (`u32::MAX`: not recorded).
    pub(super) run_chunk: Vec<u32>,
    /// Index in `record.bonds` of the instance's bond 0.
    pub(super) bond_offset: u32,
}

/// Records a run frame by frame.
pub(super) struct Recorder {
    pub(super) record: RunRecord,
    /// Instances in spawn order.
    pub(super) instances: Vec<RecordedInstance>,
    /// Handle → index in `instances`.
    pub(super) index_of: BTreeMap<InstanceHandle, usize>,
    /// (instance, cluster, member count, supported) → index in
    /// `record.bodies`. A cluster that loses pieces keeps its handle
    /// (issue 12) but becomes another recorded body, since a recorded body's
    /// chunk list is fixed.
    body_of: BTreeMap<(InstanceHandle, ClusterHandle, usize, bool), usize>,
    /// Projectile bodies, in launch order (`record.projectiles` order).
    pub(super) projectiles: Vec<RigidBodyHandle>,
    /// Plain bodies (`record.plain_bodies` order).
    pub(super) plain: Vec<RigidBodyHandle>,
    /// Held parts (`record.held_parts` order): launcher, projectile, own body.
    pub(super) held: Vec<(LauncherId, u32, RigidBodyHandle)>,
    /// Frames captured so far.
    pub(super) frame: u32,
}

impl Recorder {
    pub(super) fn new(record: RunRecord) -> Self {
        Self {
            record,
            instances: Vec::new(),
            index_of: BTreeMap::new(),
            body_of: BTreeMap::new(),
            projectiles: Vec::new(),
            plain: Vec::new(),
            held: Vec::new(),
            frame: 0,
        }
    }

    /// Appends a spawned instance's support-level chunks and its bonds.
    pub(super) fn add_instance(&mut self, handle: InstanceHandle, asset: &Asset, file: &AssetFile) {
        let offset = self.record.chunks.len() as u32;
        let mut run_chunk = vec![u32::MAX; asset.chunk_count()];
        for (k, c) in asset.support_level_chunks().enumerate() {
            run_chunk[c.0 as usize] = offset + k as u32;
        }
        self.record.chunks.extend(
            asset
                .chunks()
                .iter()
                .zip(&file.meshes)
                .filter(|(c, _)| c.support_level)
                .map(|(c, m)| RunChunk {
                    centroid: c.centroid,
                    support: c.support,
                    mesh: m.clone(),
                }),
        );
        let bond_offset = self.record.bonds.len() as u32;
        self.record
            .bonds
            .extend(asset.bonds().iter().map(|b| RunBond {
                chunk0: run_chunk[b.chunk0.0 as usize],
                chunk1: b.chunk1.map(|c| run_chunk[c.0 as usize]),
                centroid: b.centroid,
            }));
        self.index_of.insert(handle, self.instances.len());
        self.instances.push(RecordedInstance {
            handle,
            run_chunk,
            bond_offset,
        });
    }

    /// Adds a plain body that exists from the current frame on.
    pub(super) fn add_plain(&mut self, body: RigidBodyHandle, mut record: RunPlainBody) {
        record.first_frame = self.frame;
        self.record.plain_bodies.push(record);
        self.plain.push(body);
    }

    /// Adds a vehicle that exists from the current frame on: its chassis and
    /// wheels (and the projectiles of the fixed-joint design) as plain
    /// bodies, its held parts at their authored poses on the chassis.
    pub(super) fn add_vehicle(
        &mut self,
        desc: &super::VehicleDesc,
        bodies: &super::VehicleBodies,
        held: &HeldParts,
    ) {
        let chassis = self.record.plain_bodies.len() as u32;
        let plain = |shape| RunPlainBody {
            shape,
            kind: RunBodyKind::Dynamic,
            first_frame: 0,
            poses: Vec::new(),
        };
        self.add_plain(
            bodies.chassis,
            plain(smithereens_core::record::RunShape::Box {
                half_extents: desc.half_extents,
            }),
        );
        for (w, &b) in desc.wheels.iter().zip(&bodies.wheels) {
            self.add_plain(b, plain(super::vehicle::wheel_shape(w)));
        }
        for (l, parts) in desc.launchers.iter().zip(&bodies.jointed) {
            for (p, j) in l.parts.iter().zip(parts) {
                self.add_plain(j.body, plain(super::vehicle::part_shape(&p.shape)));
            }
        }
        for &id in &bodies.launchers {
            let Some(l) = held.desc(id) else { continue };
            for (i, p) in l.parts.iter().enumerate() {
                let Some(body) = held.part_body(id, i as u32) else {
                    continue;
                };
                self.record.held_parts.push(RunHeldPart {
                    shape: super::vehicle::part_shape(&p.shape),
                    parent: chassis,
                    local: pose_to_array(&from_rapier(&p.pose)),
                    launcher: id.0,
                    projectile: i as u32,
                    released_frame: None,
                    broken: false,
                    poses: Vec::new(),
                });
                self.held.push((id, i as u32, body));
            }
        }
    }

    /// Records the current state as the next frame: every cluster body's
    /// asset → world pose, every projectile's and plain body's pose, and
    /// the state hash.
    pub(super) fn capture(
        &mut self,
        set: &DestructionSet,
        physics: &PhysicsWorld,
        held: &HeldParts,
    ) {
        let frame = self.frame;
        for inst in &self.instances {
            let h = inst.handle;
            let Ok(instance) = set.instance(h) else {
                continue;
            };
            // Every cluster, render-only debris (no Rapier body) included.
            for (c, _) in instance.clusters() {
                let Some(pose) = set.cluster_asset_pose(physics, h, c) else {
                    continue;
                };
                let cluster = instance.cluster(c);
                let version = (
                    h,
                    c,
                    cluster.map_or(0, |cl| cl.nodes.len()),
                    cluster.is_some_and(|cl| cl.supported),
                );
                let idx = *self.body_of.entry(version).or_insert_with(|| {
                    self.record.bodies.push(RunBody {
                        id: self.record.bodies.len() as u32,
                        chunks: cluster
                            .map(|cl| {
                                cl.nodes
                                    .iter()
                                    .map(|n| inst.run_chunk[n.0 as usize])
                                    .collect()
                            })
                            .unwrap_or_default(),
                        supported: cluster.is_some_and(|cl| cl.supported),
                        first_frame: frame,
                        poses: Vec::new(),
                    });
                    self.record.bodies.len() - 1
                });
                self.record.bodies[idx].poses.push(pose_to_array(&pose));
            }
        }
        for (k, &rb) in self.projectiles.iter().enumerate() {
            if let (Some(b), Some(p)) = (physics.bodies.get(rb), self.record.projectiles.get_mut(k))
            {
                p.poses.push(pose_to_array(&from_rapier(b.position())));
            }
        }
        for (k, &rb) in self.plain.iter().enumerate() {
            if let (Some(b), Some(p)) =
                (physics.bodies.get(rb), self.record.plain_bodies.get_mut(k))
            {
                p.poses.push(pose_to_array(&from_rapier(b.position())));
            }
        }
        // A held part is drawn on its parent until it is launched (then at
        // its own body's pose) or broken (then not at all).
        for (k, &(id, i, body)) in self.held.iter().enumerate() {
            let Some(part) = self.record.held_parts.get_mut(k) else {
                continue;
            };
            match held.status(id, i) {
                Some(PartStatus::Launched) => {
                    part.released_frame.get_or_insert(frame);
                    if let Some(b) = physics.bodies.get(body) {
                        part.poses.push(pose_to_array(&from_rapier(b.position())));
                    }
                }
                Some(PartStatus::Broken) if part.released_frame.is_none() => {
                    part.released_frame = Some(frame);
                    part.broken = true;
                }
                _ => {}
            }
        }
        self.record
            .frame_hashes
            .push(self.state_hash(set, physics, held));
        self.frame += 1;
        self.record.frame_count = self.frame;
    }

    /// FNV-1a hash of the set's state, then every projectile's and plain
    /// body's pose and velocity bits, in creation order, then (in a run with
    /// held parts) [`HeldParts::state_hash`] and every launched part's body.
    /// For a run without plain bodies and held parts this is exactly
    /// [`crate::DestructionWorld::state_hash`].
    pub(super) fn state_hash(
        &self,
        set: &DestructionSet,
        physics: &PhysicsWorld,
        held: &HeldParts,
    ) -> u64 {
        let mut h = smithereens_core::hash::StateHasher::new();
        h.write_u64(set.state_hash(physics));
        for &rb in self.projectiles.iter().chain(&self.plain) {
            if let Some(b) = physics.bodies.get(rb) {
                hash_body(&mut h, b);
            }
        }
        if !self.held.is_empty() {
            h.write_u64(held.state_hash());
            for &(_, _, rb) in &self.held {
                if let Some(b) = physics.bodies.get(rb).filter(|b| b.is_enabled()) {
                    hash_body(&mut h, b);
                }
            }
        }
        h.finish()
    }

    /// Loose pieces alive on the last frame captured that moved less than
    /// [`super::STUCK_DISTANCE`] (any chunk centroid) since their first frame and are
    /// not supported from below ([`crate::set::Hold`]).
    pub(super) fn stuck(&self, set: &DestructionSet, physics: &PhysicsWorld) -> usize {
        let mut stuck = 0;
        for (&(h, c, _, supported), &i) in &self.body_of {
            let body = &self.record.bodies[i];
            if supported || body.first_frame + body.poses.len() as u32 != self.frame {
                continue;
            }
            // Render-only debris is drawn, not held: never stuck.
            if set.render_debris(h).is_ok_and(|d| d.contains(c)) {
                continue;
            }
            let (Some(first), Some(last)) = (body.poses.first(), body.poses.last()) else {
                continue;
            };
            let (a, b) = (
                smithereens_core::record::pose_from_array(first),
                smithereens_core::record::pose_from_array(last),
            );
            let moved = body
                .chunks
                .iter()
                .map(|&k| {
                    let p = self.record.chunks[k as usize].centroid;
                    a.transform_point(p).distance(b.transform_point(p))
                })
                .fold(0.0f32, f32::max);
            if moved < super::STUCK_DISTANCE
                && set.hold(physics, h, c) != Some(crate::set::Hold::Supported)
            {
                stuck += 1;
            }
        }
        stuck
    }
}
