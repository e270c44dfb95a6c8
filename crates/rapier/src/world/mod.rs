//! [`DestructionWorld`]: one destructible instance inside a Rapier world,
//! stepped at a fixed time step, with contact damage queued during the step
//! and committed at the safe point after it.
//!
//! Split by concern: [`settings`] (world settings and the Rapier
//! configuration), [`tag`] (what a collider stands for), `contact` (contact
//! hits → damage events), `impulses` (explosions and absorbed projectile
//! impulses, each applied once), `lifecycle` (debris sleep and recycling),
//! `snapshot` (resumable world snapshots).

use crate::backend::{ChunkShapes, RapierCommit};
use crate::convert::{from_rapier, motion_of, to_rapier};
use crate::error::BackendError;
use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_core::{
    Asset, BondIndex, ClusterHandle, CommitError, EventId, Instance, Pose, RadialDamage,
};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

mod contact;
mod impulses;
mod lifecycle;
pub mod settings;
mod snapshot;
pub mod tag;

use contact::{ContactCollector, PreStepVelocities};
use impulses::Transfer;
pub use impulses::{Explosion, ProjectileDesc};
pub use settings::{RecyclePolicy, WorldSettings, new_physics_world};
pub use snapshot::WorldSnapshotError;
pub use tag::ColliderTag;

/// Safety readings of a world after a step (see [`DestructionWorld::health_check`]).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct HealthCheck {
    /// Highest linear speed of a dynamic body, m/s.
    pub max_speed: f32,
    /// Bodies whose pose or velocity is NaN or infinite.
    pub non_finite_bodies: u32,
    /// Lowest point of any chunk collider, m (world y).
    pub lowest_chunk_y: f32,
}

/// Event ids with this bit set are reserved for damage made from contacts;
/// ids for scripted damage and explosions should leave it clear.
pub const CONTACT_EVENT_BIT: u64 = 1 << 63;

/// What happened in one [`DestructionWorld::step`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Damage events admitted from contacts this step, in id order.
    pub events: Vec<RadialDamage>,
    /// Bonds broken by this step's commit.
    pub broken: Vec<BondIndex>,
    /// Clusters removed by the commit.
    pub removed: Vec<ClusterHandle>,
    /// Clusters created by the commit.
    pub created: Vec<ClusterHandle>,
    /// Created clusters that are render-only debris (no authoritative collider).
    pub render_only: Vec<ClusterHandle>,
    /// Debris clusters recycled (released and removed) at this step.
    pub recycled: Vec<ClusterHandle>,
    /// Set when the budget held the commit back (events stay pending).
    pub deferred: Option<smithereens_core::budget::BudgetShortfall>,
    /// Wall time of the Rapier step, s.
    pub physics_seconds: f64,
    /// Wall time of damage admission, planning and commit, s.
    pub destruction_seconds: f64,
}

/// Why a step failed. The world stays consistent: a failed commit keeps the
/// old bodies and the pending events.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum StepError {
    /// The commit at the safe point failed.
    #[error("commit failed")]
    Commit(#[from] CommitError<BackendError>),
}

/// One destructible instance in a Rapier world.
pub struct DestructionWorld {
    physics: PhysicsWorld,
    instance: Instance,
    bodies: BTreeMap<ClusterHandle, RigidBodyHandle>,
    shapes: ChunkShapes,
    projectiles: Vec<RigidBodyHandle>,
    settings: WorldSettings,
    collector: ContactCollector,
    pre_step: PreStepVelocities,
    /// Projectile impulses absorbed by fixed chunks, waiting for their event's commit.
    transfers: BTreeMap<EventId, Transfer>,
    /// Every explosion admitted, with whether its impulse was applied.
    blasts: BTreeMap<EventId, (Explosion, bool)>,
    injected_prepare_failures: u32,
    /// Step at which each sleeping debris cluster fell asleep.
    asleep_since: BTreeMap<ClusterHandle, u64>,
    /// Withdrawn clusters waiting for the queries to refresh.
    recycling: Vec<smithereens_core::lifecycle::RecycleTicket>,
    step_index: u64,
    next_event: u64,
}

impl DestructionWorld {
    /// Builds the world: the ground (if any) and one body per initial cluster
    /// of `asset` placed at `placement` (asset → world).
    ///
    /// # Errors
    /// [`BackendError::BadSetting`] for bad settings, [`BackendError::DegenerateHull`]
    /// for a chunk whose hull has no volume, [`BackendError::Instance`] for a bad placement.
    pub fn new(
        asset: Arc<Asset>,
        placement: Pose,
        settings: WorldSettings,
    ) -> Result<Self, BackendError> {
        let desc = smithereens_core::instance::InstanceDesc {
            placement,
            ..Default::default()
        };
        Self::with_instance(asset, desc, settings)
    }

    /// As [`Self::new`], with a full instance description: identity, budget
    /// (body slots, pending-queue capacity, task path, proxies) and sleep thresholds.
    ///
    /// # Errors
    /// As [`Self::new`]; [`BackendError::Instance`] also for an invalid budget,
    /// [`BackendError::BadProxy`] for a proxy piece without volume.
    pub fn with_instance(
        asset: Arc<Asset>,
        desc: smithereens_core::instance::InstanceDesc,
        settings: WorldSettings,
    ) -> Result<Self, BackendError> {
        settings.validate()?;
        let shapes = ChunkShapes::build(&asset, settings.collider_border)?;
        let instance =
            Instance::with_desc(asset, desc).map_err(|e| BackendError::Instance(e.to_string()))?;
        let mut physics = new_physics_world(&settings);
        if let Some(y) = settings.ground_y {
            let ground = physics.insert_body(RigidBodyBuilder::fixed().translation(Vec3::new(
                0.0,
                y - 0.5,
                0.0,
            )));
            let collider = ColliderBuilder::cuboid(500.0, 0.5, 500.0)
                .friction(settings.friction)
                .collision_groups(InteractionGroups::new(
                    crate::backend::GROUND_GROUP,
                    Group::ALL,
                    InteractionTestMode::And,
                ))
                .user_data(ColliderTag::Ground.encode());
            physics.insert_collider(collider, Some(ground));
        }
        let mut world = Self {
            physics,
            instance,
            bodies: BTreeMap::new(),
            shapes,
            projectiles: Vec::new(),
            settings,
            collector: ContactCollector::default(),
            pre_step: PreStepVelocities::default(),
            blasts: BTreeMap::new(),
            transfers: BTreeMap::new(),
            injected_prepare_failures: 0,
            asleep_since: BTreeMap::new(),
            recycling: Vec::new(),
            step_index: 0,
            next_event: 0,
        };
        let clusters: Vec<ClusterHandle> = world.instance.clusters().map(|(h, _)| h).collect();
        for h in clusters {
            let Some(c) = world.instance.cluster(h) else {
                continue;
            };
            let spec = crate::backend::BodySpec {
                nodes: &c.nodes,
                supported: c.supported,
                mass: &c.mass,
                principal: &c.principal,
                representation: c.representation,
                proxies: &world.instance.budget().proxies,
            };
            let (body, colliders) = crate::backend::build_body(
                &world.shapes,
                world.instance.asset(),
                &spec,
                &world.settings,
            )?;
            let rb = world
                .physics
                .insert_body(body.pose(to_rapier(&c.motion.pose)));
            for col in colliders {
                world.physics.insert_collider(col, Some(rb));
            }
            crate::backend::refresh_mass(&mut world.physics, rb);
            world.bodies.insert(h, rb);
        }
        Ok(world)
    }

    /// Launches a projectile (a CCD-enabled solid sphere); returns its index.
    ///
    /// # Errors
    /// [`BackendError::BadSetting`] for a non-finite position/velocity or a
    /// non-positive radius or mass. Nothing is added on error.
    pub fn spawn_projectile(&mut self, p: ProjectileDesc) -> Result<u32, BackendError> {
        let bad = |name, value, reason| {
            Err(BackendError::BadSetting {
                name,
                value,
                reason,
            })
        };
        if !(p.radius.is_finite() && p.radius > 0.0) {
            return bad("projectile radius", p.radius, "finite and > 0");
        }
        if !(p.mass.is_finite() && p.mass > 0.0) {
            return bad("projectile mass", p.mass, "finite and > 0");
        }
        if !p.position.is_finite() || !p.velocity.is_finite() {
            return bad("projectile position/velocity", f32::NAN, "finite");
        }
        let index = self.projectiles.len() as u32;
        let body = self.physics.insert_body(
            RigidBodyBuilder::dynamic()
                .translation(p.position)
                .linvel(p.velocity)
                .ccd_enabled(true),
        );
        let volume = 4.0 / 3.0 * std::f32::consts::PI * p.radius.powi(3);
        let collider = ColliderBuilder::ball(p.radius)
            .density(p.mass / volume)
            .friction(self.settings.friction)
            .restitution(self.settings.restitution)
            .collision_groups(InteractionGroups::new(
                crate::backend::PROJECTILE_GROUP,
                Group::ALL,
                InteractionTestMode::And,
            ))
            .user_data(ColliderTag::Projectile(index).encode());
        self.physics.insert_collider(collider, Some(body));
        self.projectiles.push(body);
        Ok(index)
    }

    /// Admits an external damage event (explosion, scripted hit) for the next safe point.
    ///
    /// # Errors
    /// Any [`smithereens_core::DamageError`]; nothing changes on error.
    pub fn admit(
        &mut self,
        event: RadialDamage,
    ) -> Result<smithereens_core::Admission, smithereens_core::DamageError> {
        self.instance.admit(event)
    }

    /// Test hook: the next `n` commits fail in `prepare` (nothing changes, the
    /// events stay pending and are retried at the next step).
    #[doc(hidden)]
    pub fn inject_prepare_failures(&mut self, n: u32) {
        self.injected_prepare_failures = n;
    }

    /// Advances one fixed step: Rapier steps (contacts only enqueue), then at
    /// the safe point contact impulses become damage events, pending events
    /// are committed (bodies swapped in one step), and cluster motions are synced.
    ///
    /// # Errors
    /// [`StepError::Commit`] if the commit failed; the physics step itself has
    /// happened, the old bodies and the pending events are kept for a retry.
    pub fn step(&mut self) -> Result<StepReport, StepError> {
        let mut report = StepReport::default();
        let t0 = Instant::now();
        self.pre_step.capture(&self.physics.bodies);
        self.physics.step_with_events(&(), &self.collector);
        let t1 = Instant::now();
        report.physics_seconds = (t1 - t0).as_secs_f64();
        self.step_index += 1;
        // The step rebuilt the broad phase without the colliders disabled last
        // step: those clusters have left authoritative queries.
        self.instance.mark_queries_refreshed();
        report.recycled = self.finish_recycling();

        let mut hits = match self.collector.hits.lock() {
            Ok(mut h) => std::mem::take(&mut *h),
            Err(_) => Vec::new(),
        };
        // Callbacks arrive in solver order; sort by a total key for determinism.
        hits.sort_by_key(|h| h.key);
        for hit in hits {
            let touches_chunk =
                hit.tags.0.is_authoritative_chunk() || hit.tags.1.is_authoritative_chunk();
            let v1 = self.pre_step.point_velocity(hit.bodies.0, hit.point);
            let v2 = self.pre_step.point_velocity(hit.bodies.1, hit.point);
            let approach = (v1 - v2).dot(hit.normal).abs();
            let damage = self.settings.impact.damage(hit.impulse, approach);
            if !touches_chunk || damage <= 0.0 || !hit.point.is_finite() {
                continue;
            }
            let event = RadialDamage {
                id: EventId(CONTACT_EVENT_BIT | self.next_event),
                point: hit.point,
                radius: self.settings.impact.radius,
                damage,
                impulse: None,
            };
            self.next_event += 1;
            if self.instance.admit(event).is_ok() {
                report.events.push(event);
                if let Some(t) = self.absorbed_impulse(&hit, approach) {
                    self.transfers.insert(event.id, t);
                }
            }
        }
        let proxies = self.instance.budget().proxies.clone();
        let outcome = {
            let mut backend = RapierCommit {
                physics: &mut self.physics,
                bodies: &mut self.bodies,
                shapes: &self.shapes,
                settings: &self.settings,
                fail_prepare: &mut self.injected_prepare_failures,
                proxies: &proxies,
            };
            let result = self.instance.commit(&mut backend);
            if result.is_err() {
                // The physics step happened; keep the motions current for the retry.
                self.sync_motions();
            }
            result?
        };
        let mut pushes: BTreeMap<ClusterHandle, (Vec3, f32)> = BTreeMap::new();
        for receipt in &outcome.receipts {
            let id = receipt.event.id;
            if let Some(&(blast, false)) = self.blasts.get(&id) {
                self.apply_blast(&blast);
                self.blasts.insert(id, (blast, true));
            }
            if let Some(t) = self.transfers.remove(&id)
                && let Some(h) = self.instance.cluster_of(t.chunk)
            {
                let e = pushes.entry(h).or_insert((Vec3::ZERO, 0.0));
                e.0 += t.impulse;
                e.1 = e.1.max(t.max_speed);
            }
        }
        self.apply_transfers(&pushes);
        report.broken = outcome.broken;
        report.removed = outcome.removed;
        report.created = outcome.created;
        report.render_only = outcome.render_only;
        if let smithereens_core::commit::CommitStatus::Deferred(shortfall) = outcome.status {
            report.deferred = Some(shortfall);
        }
        self.sync_motions();
        self.advance_lifecycle();
        report.destruction_seconds = t1.elapsed().as_secs_f64();
        Ok(report)
    }

    fn sync_motions(&mut self) {
        for (&h, &rb) in &self.bodies {
            if let Some(body) = self.physics.bodies.get(rb).filter(|b| b.is_dynamic()) {
                // Bodies come from our own validated state; a non-finite pose would be
                // quarantined by Rapier and is then simply not synced.
                let _ = self.instance.set_motion::<()>(h, motion_of(body));
            }
        }
    }

    /// The destruction state.
    pub fn instance(&self) -> &Instance {
        &self.instance
    }
    /// The Rapier world (read-only).
    pub fn physics(&self) -> &PhysicsWorld {
        &self.physics
    }
    /// The Rapier world, mutable: for game code that adds its own bodies or
    /// sets velocities. Do not remove or re-parent cluster bodies or chunk
    /// colliders: the destruction state owns them.
    pub fn physics_mut(&mut self) -> &mut PhysicsWorld {
        &mut self.physics
    }
    /// Settings in force.
    pub fn settings(&self) -> &WorldSettings {
        &self.settings
    }
    /// Steps taken.
    pub fn step_index(&self) -> u64 {
        self.step_index
    }
    /// The Rapier body of each live cluster, in handle order.
    pub fn cluster_bodies(&self) -> &BTreeMap<ClusterHandle, RigidBodyHandle> {
        &self.bodies
    }
    /// Asset → world pose of a cluster's chunks, read from its Rapier body.
    pub fn cluster_asset_pose(&self, h: ClusterHandle) -> Option<Pose> {
        let c = self.instance.cluster(h)?;
        let body = self.physics.bodies.get(*self.bodies.get(&h)?)?;
        Some(from_rapier(body.position()).mul(&Pose::from_translation(-c.mass.center)))
    }
    /// World pose of each projectile, in spawn order.
    pub fn projectile_poses(&self) -> Vec<Pose> {
        self.projectiles
            .iter()
            .filter_map(|&h| self.physics.bodies.get(h))
            .map(|b| from_rapier(b.position()))
            .collect()
    }
    /// Number of dynamic cluster bodies.
    pub fn dynamic_body_count(&self) -> usize {
        self.bodies
            .values()
            .filter(|&&h| self.physics.bodies.get(h).is_some_and(|b| b.is_dynamic()))
            .count()
    }
    /// Safety readings after a step: the fastest dynamic body, bodies with a
    /// non-finite state, and the lowest chunk collider point.
    pub fn health_check(&self) -> HealthCheck {
        let mut check = HealthCheck {
            max_speed: 0.0,
            non_finite_bodies: 0,
            lowest_chunk_y: self.lowest_chunk_point().unwrap_or(0.0),
        };
        for (_, b) in self.physics.bodies.iter() {
            let finite = b.translation().is_finite()
                && b.rotation().is_finite()
                && b.linvel().is_finite()
                && b.angvel().is_finite();
            if !finite {
                check.non_finite_bodies += 1;
            } else if b.is_dynamic() {
                check.max_speed = check.max_speed.max(b.linvel().length());
            }
        }
        check
    }

    /// Lowest point of every chunk collider's world AABB (m), or `None` with no chunks.
    pub fn lowest_chunk_point(&self) -> Option<f32> {
        self.physics
            .colliders
            .iter()
            .filter(|(_, c)| matches!(ColliderTag::decode(c.user_data), ColliderTag::Chunk(_)))
            .map(|(_, c)| c.compute_aabb().mins.y)
            .reduce(f32::min)
    }
    /// FNV-1a hash of the destruction state plus every body's pose and velocity bits.
    pub fn state_hash(&self) -> u64 {
        let mut h = smithereens_core::hash::StateHasher::new();
        h.write_u64(self.instance.state_hash());
        for &rb in self.bodies.values().chain(&self.projectiles) {
            if let Some(b) = self.physics.bodies.get(rb) {
                let p = b.position();
                for v in p
                    .translation
                    .to_array()
                    .into_iter()
                    .chain(p.rotation.to_array())
                    .chain(b.linvel().to_array())
                    .chain(b.angvel().to_array())
                {
                    h.write_f32(v);
                }
            }
        }
        h.finish()
    }
}
