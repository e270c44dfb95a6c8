//! [`DestructionWorld`]: one destructible instance inside a Rapier world,
//! stepped at a fixed time step, with contact damage queued during the step
//! and committed at the safe point after it.

use crate::backend::{ChunkShapes, RapierCommit};
use crate::convert::{from_rapier, motion_of, to_rapier};
use crate::error::BackendError;
use crate::impact::ImpactDamage;
use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_core::{
    Asset, BondIndex, ClusterHandle, CommitError, EventId, Instance, Pose, RadialDamage,
};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// A projectile impulse absorbed by a fixed chunk, handed to the cluster that
/// owns the chunk after the event's commit (once, keyed by the event id).
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Transfer {
    chunk: smithereens_core::ChunkIndex,
    impulse: Vec3,
    max_speed: f32,
}

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

/// What a collider stands for, stored in `Collider::user_data`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ColliderTag {
    /// A chunk of the destructible instance.
    Chunk(u32),
    /// A projectile (index in spawn order).
    Projectile(u32),
    /// The ground.
    Ground,
    /// A chunk of render-only debris (no authoritative collision).
    RenderOnly(u32),
    /// A piece of an authored proxy; the value is the cluster's lowest chunk.
    Proxy(u32),
    /// Anything else.
    Other,
}

impl ColliderTag {
    const CHUNK: u128 = 1 << 64;
    const PROJECTILE: u128 = 2 << 64;
    const GROUND: u128 = 3 << 64;
    const RENDER_ONLY: u128 = 4 << 64;
    const PROXY: u128 = 5 << 64;

    /// Encodes into `user_data`.
    pub fn encode(self) -> u128 {
        match self {
            Self::Chunk(i) => Self::CHUNK | i as u128,
            Self::Projectile(i) => Self::PROJECTILE | i as u128,
            Self::Ground => Self::GROUND,
            Self::RenderOnly(i) => Self::RENDER_ONLY | i as u128,
            Self::Proxy(i) => Self::PROXY | i as u128,
            Self::Other => 0,
        }
    }

    /// The chunk an authoritative chunk or proxy collider stands for.
    pub fn authoritative_chunk(self) -> Option<u32> {
        match self {
            Self::Chunk(c) | Self::Proxy(c) => Some(c),
            _ => None,
        }
    }

    /// True for colliders with authoritative chunk collision (chunks and proxy pieces).
    pub fn is_authoritative_chunk(self) -> bool {
        self.authoritative_chunk().is_some()
    }

    /// Decodes from `user_data`.
    pub fn decode(v: u128) -> Self {
        let low = (v & 0xffff_ffff) as u32;
        match v >> 64 {
            1 => Self::Chunk(low),
            2 => Self::Projectile(low),
            3 => Self::Ground,
            4 => Self::RenderOnly(low),
            5 => Self::Proxy(low),
            _ => Self::Other,
        }
    }
}

/// Settings of a [`DestructionWorld`]. All values SI; see each field.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WorldSettings {
    /// Fixed physics time step, s (default 1/60).
    pub timestep: f32,
    /// Gravity, m/s² (default (0, −9.81, 0)).
    pub gravity: Vec3,
    /// Height of an infinite-ish ground plane's top face (world y, m); `None` for no ground.
    pub ground_y: Option<f32>,
    /// Contact impulse → damage mapping.
    pub impact: ImpactDamage,
    /// Friction coefficient of chunk colliders.
    pub friction: f32,
    /// Restitution of chunk colliders.
    pub restitution: f32,
    /// Rounding radius of chunk colliders, m (see [`crate::backend::ChunkShapes`]); 0 for sharp hulls.
    pub collider_border: f32,
    /// Solver substeps per step (Rapier's `num_solver_iterations`; its default is 4).
    pub solver_iterations: u32,
    /// Projected Gauss–Seidel iterations per substep (Rapier's default is 1;
    /// 2 keeps a 10-link chain's joints within 1 cm while it swings).
    pub pgs_iterations: u32,
    /// Stiffness of contacts between dynamic bodies as a natural frequency, Hz
    /// (Rapier's default is 30 Hz, under which a 100 kg box sinks 3.4 cm into a
    /// 1 kg box beneath it; 120 Hz brings that under 1 cm).
    pub contact_frequency: f32,
    /// Penetration the solver leaves uncorrected, m (Rapier's default is 5 mm;
    /// less keeps tall stacks from visibly sinking).
    pub allowed_penetration: f32,
    /// Debris recycling: a dynamic cluster of at most `max_chunks` chunks that
    /// has slept (core lifecycle thresholds) for `after` seconds leaves
    /// authoritative queries and is then removed. `None` (the default) keeps
    /// every piece, so recorded runs show all chunks to the end.
    pub recycle: Option<RecyclePolicy>,
}

/// When sleeping debris is recycled.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RecyclePolicy {
    /// Seconds asleep before the cluster is withdrawn (≥ 0).
    pub after: f32,
    /// Largest cluster (in chunks) that counts as debris.
    pub max_chunks: u32,
}

impl Default for WorldSettings {
    fn default() -> Self {
        Self {
            timestep: 1.0 / 60.0,
            gravity: Vec3::new(0.0, -9.81, 0.0),
            ground_y: Some(0.0),
            impact: ImpactDamage::default(),
            friction: 0.7,
            restitution: 0.1,
            collider_border: 0.005,
            solver_iterations: 8,
            pgs_iterations: 2,
            contact_frequency: 120.0,
            allowed_penetration: 0.001,
            recycle: None,
        }
    }
}

impl WorldSettings {
    /// Checks ranges.
    ///
    /// # Errors
    /// [`BackendError::BadSetting`] naming the first bad field.
    pub fn validate(&self) -> Result<(), BackendError> {
        let bad = |name, value, reason| {
            Err(BackendError::BadSetting {
                name,
                value,
                reason,
            })
        };
        if !(self.timestep.is_finite() && self.timestep > 0.0 && self.timestep <= 0.1) {
            return bad("timestep", self.timestep, "in (0, 0.1] s");
        }
        if !self.gravity.is_finite() {
            return bad("gravity", f32::NAN, "finite");
        }
        if let Some(y) = self.ground_y.filter(|y| !y.is_finite()) {
            return bad("ground_y", y, "finite");
        }
        if !(self.friction.is_finite() && self.friction >= 0.0) {
            return bad("friction", self.friction, "finite and ≥ 0");
        }
        if !(self.restitution.is_finite() && (0.0..=1.0).contains(&self.restitution)) {
            return bad("restitution", self.restitution, "in [0, 1]");
        }
        if let Some(r) = self
            .recycle
            .filter(|r| !(r.after.is_finite() && r.after >= 0.0))
        {
            return bad("recycle.after", r.after, "finite and ≥ 0");
        }
        if !(self.collider_border.is_finite() && self.collider_border >= 0.0) {
            return bad("collider_border", self.collider_border, "finite and ≥ 0");
        }
        if !(1..=64).contains(&self.solver_iterations) {
            return bad(
                "solver_iterations",
                self.solver_iterations as f32,
                "in 1..=64",
            );
        }
        if !(1..=16).contains(&self.pgs_iterations) {
            return bad("pgs_iterations", self.pgs_iterations as f32, "in 1..=16");
        }
        if !(self.contact_frequency.is_finite() && self.contact_frequency > 0.0) {
            return bad(
                "contact_frequency",
                self.contact_frequency,
                "finite and > 0",
            );
        }
        if !(self.allowed_penetration.is_finite() && self.allowed_penetration > 0.0) {
            return bad(
                "allowed_penetration",
                self.allowed_penetration,
                "finite and > 0",
            );
        }
        self.impact.validate()
    }
}

/// A Rapier world configured as every [`DestructionWorld`] is: gravity and
/// fixed time step from `settings`, Rapier's default solver otherwise (the
/// validation scenarios in `tests/validation_scenarios.rs` run on it).
pub fn new_physics_world(settings: &WorldSettings) -> PhysicsWorld {
    let mut physics = PhysicsWorld::new();
    physics.gravity = settings.gravity;
    let p = &mut physics.integration_parameters;
    p.dt = settings.timestep;
    p.num_solver_iterations = settings.solver_iterations as usize;
    p.num_internal_pgs_iterations = settings.pgs_iterations as usize;
    p.contact_softness.natural_frequency = settings.contact_frequency;
    // Rapier scales these by `length_unit` (1 m here).
    p.normalized_allowed_linear_error = settings.allowed_penetration;
    physics
}

/// An explosion: radial damage plus an outward impulse, keyed by its event id.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Explosion {
    /// Idempotency key.
    pub id: EventId,
    /// Centre, world, m.
    pub point: Vec3,
    /// Radius of damage and impulse, m (> 0).
    pub radius: f32,
    /// Damage budget, du (≥ 0).
    pub damage: f32,
    /// Impulse at the centre, N·s, falling off linearly to zero at `radius`,
    /// applied at each dynamic cluster's centre of mass, directed away from `point`.
    pub impulse: f32,
}

/// A projectile to launch: a solid sphere with continuous collision detection.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ProjectileDesc {
    /// Start position, world, m.
    pub position: Vec3,
    /// Start velocity, m/s.
    pub velocity: Vec3,
    /// Radius, m (> 0).
    pub radius: f32,
    /// Mass, kg (> 0).
    pub mass: f32,
}

/// A contact reported during a step, before it becomes damage.
#[derive(Copy, Clone, Debug, PartialEq)]
struct ContactHit {
    key: (u32, u32, u32, u32),
    tags: (ColliderTag, ColliderTag),
    bodies: (Option<RigidBodyHandle>, Option<RigidBodyHandle>),
    impulse: f32,
    /// Σ contact impulses as a vector, acting on collider 2 (N·s).
    impulse_on_2: Vec3,
    /// Whether each collider's body is fixed (its share of the impulse was absorbed).
    fixed: (bool, bool),
    point: Vec3,
    normal: Vec3,
}

/// Velocity of every dynamic body before a step, for approach speeds.
#[derive(Default)]
struct PreStepVelocities {
    map: std::collections::HashMap<RigidBodyHandle, (Vec3, Vec3, Vec3)>,
}

impl PreStepVelocities {
    fn capture(&mut self, bodies: &RigidBodySet) {
        self.map.clear();
        for (h, b) in bodies.iter() {
            if b.is_dynamic() {
                self.map
                    .insert(h, (b.linvel(), b.angvel(), b.center_of_mass()));
            }
        }
    }

    fn point_velocity(&self, body: Option<RigidBodyHandle>, p: Vec3) -> Vec3 {
        match body.and_then(|h| self.map.get(&h)) {
            Some(&(v, w, c)) => v + w.cross(p - c),
            None => Vec3::ZERO,
        }
    }
}

/// Collects contact-force events during a step; they only enqueue, never mutate.
#[derive(Default)]
struct ContactCollector {
    hits: Mutex<Vec<ContactHit>>,
}

impl EventHandler for ContactCollector {
    fn handle_collision_event(
        &self,
        _: &RigidBodySet,
        _: &ColliderSet,
        _: CollisionEvent,
        _: Option<&ContactPair>,
    ) {
    }

    fn handle_contact_force_event(
        &self,
        dt: f32,
        bodies: &RigidBodySet,
        colliders: &ColliderSet,
        pair: &ContactPair,
        total_force_magnitude: f32,
    ) {
        let (Some(c1), Some(c2)) = (colliders.get(pair.collider1), colliders.get(pair.collider2))
        else {
            return;
        };
        let (point, normal) = match pair.find_deepest_contact() {
            Some((manifold, contact)) => (
                c1.position().transform_point(contact.local_p1),
                manifold.data.normal,
            ),
            None => (c1.position().translation, Vec3::ZERO),
        };
        let (a, b) = (
            pair.collider1.into_raw_parts(),
            pair.collider2.into_raw_parts(),
        );
        let hit = ContactHit {
            key: (a.0, a.1, b.0, b.1),
            tags: (
                ColliderTag::decode(c1.user_data),
                ColliderTag::decode(c2.user_data),
            ),
            bodies: (c1.parent(), c2.parent()),
            impulse: total_force_magnitude * dt,
            impulse_on_2: pair.total_impulse(),
            fixed: (
                c1.parent()
                    .and_then(|h| bodies.get(h))
                    .is_none_or(|b| b.is_fixed()),
                c2.parent()
                    .and_then(|h| bodies.get(h))
                    .is_none_or(|b| b.is_fixed()),
            ),
            point,
            normal,
        };
        if let Ok(mut hits) = self.hits.lock() {
            hits.push(hit);
        }
    }

    fn handle_soft_body_tear_event(&self, _: &SoftBodySet, _: &SoftBodyTearEvent) {}
}

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
    #[error("commit failed: {0}")]
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

/// Everything a [`DestructionWorld`] needs to continue bit for bit, taken at a
/// step boundary. The chunk shapes are rebuilt from the asset on restore.
#[derive(serde::Serialize, serde::Deserialize)]
struct WorldSnapshot {
    format: u32,
    instance: Vec<u8>,
    physics: PhysicsWorld,
    bodies: BTreeMap<ClusterHandle, RigidBodyHandle>,
    projectiles: Vec<RigidBodyHandle>,
    settings: WorldSettings,
    transfers: BTreeMap<EventId, Transfer>,
    blasts: BTreeMap<EventId, (Explosion, bool)>,
    asleep_since: BTreeMap<ClusterHandle, u64>,
    recycling: Vec<smithereens_core::lifecycle::RecycleTicket>,
    step_index: u64,
    next_event: u64,
}

const WORLD_SNAPSHOT_FORMAT: u32 = 2;

/// Borrowing twin of [`WorldSnapshot`] for encoding without cloning the world.
#[derive(serde::Serialize)]
struct WorldSnapshotRef<'a> {
    format: u32,
    instance: Vec<u8>,
    physics: &'a PhysicsWorld,
    bodies: &'a BTreeMap<ClusterHandle, RigidBodyHandle>,
    projectiles: &'a Vec<RigidBodyHandle>,
    settings: &'a WorldSettings,
    transfers: &'a BTreeMap<EventId, Transfer>,
    blasts: &'a BTreeMap<EventId, (Explosion, bool)>,
    asleep_since: &'a BTreeMap<ClusterHandle, u64>,
    recycling: &'a Vec<smithereens_core::lifecycle::RecycleTicket>,
    step_index: u64,
    next_event: u64,
}

/// Why a world snapshot could not be restored. Nothing is created on error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum WorldSnapshotError {
    /// Truncated, corrupt or foreign bytes.
    #[error("world snapshot cannot be decoded: {0}")]
    Decode(String),
    /// Another snapshot format version.
    #[error("world snapshot format {0} is not supported")]
    Format(u32),
    /// The destruction state does not fit the asset.
    #[error("destruction state: {0}")]
    Instance(#[from] smithereens_core::snapshot::SnapshotError),
    /// Settings or shapes are invalid.
    #[error("world: {0}")]
    Backend(#[from] BackendError),
    /// The physics state does not match the destruction state.
    #[error("world snapshot is inconsistent: {0}")]
    Inconsistent(String),
}

impl DestructionWorld {
    /// Serialises the whole world at the current step boundary: the
    /// destruction state (core snapshot) and the Rapier world (postcard).
    pub fn snapshot(&self) -> Vec<u8> {
        let snap = WorldSnapshotRef {
            format: WORLD_SNAPSHOT_FORMAT,
            instance: self.instance.snapshot().to_bytes(),
            physics: &self.physics,
            bodies: &self.bodies,
            projectiles: &self.projectiles,
            settings: &self.settings,
            transfers: &self.transfers,
            blasts: &self.blasts,
            asleep_since: &self.asleep_since,
            recycling: &self.recycling,
            step_index: self.step_index,
            next_event: self.next_event,
        };
        postcard::to_stdvec(&snap).unwrap_or_default()
    }

    /// Rebuilds a world from [`Self::snapshot`] bytes of the same asset. The
    /// restored world continues with the same state hashes as the original.
    ///
    /// # Errors
    /// [`WorldSnapshotError`] for bad bytes, another asset, or a physics state
    /// that does not match the destruction state.
    pub fn restore(asset: Arc<Asset>, bytes: &[u8]) -> Result<Self, WorldSnapshotError> {
        let snap: WorldSnapshot =
            postcard::from_bytes(bytes).map_err(|e| WorldSnapshotError::Decode(e.to_string()))?;
        if snap.format != WORLD_SNAPSHOT_FORMAT {
            return Err(WorldSnapshotError::Format(snap.format));
        }
        snap.settings.validate()?;
        let core = smithereens_core::snapshot::Snapshot::from_bytes(&snap.instance)?;
        let instance = Instance::restore(asset.clone(), &core)?;
        let live: Vec<ClusterHandle> = instance.clusters().map(|(h, _)| h).collect();
        let mapped: Vec<ClusterHandle> = snap.bodies.keys().copied().collect();
        for h in &mapped {
            if !live.contains(h) || !snap.physics.bodies.contains(snap.bodies[h]) {
                return Err(WorldSnapshotError::Inconsistent(format!(
                    "cluster {h} has no body"
                )));
            }
        }
        if snap
            .projectiles
            .iter()
            .any(|&p| !snap.physics.bodies.contains(p))
        {
            return Err(WorldSnapshotError::Inconsistent(
                "a projectile has no body".into(),
            ));
        }
        let shapes = ChunkShapes::build(&asset, snap.settings.collider_border)?;
        Ok(Self {
            physics: snap.physics,
            instance,
            bodies: snap.bodies,
            shapes,
            projectiles: snap.projectiles,
            settings: snap.settings,
            collector: ContactCollector::default(),
            pre_step: PreStepVelocities::default(),
            transfers: snap.transfers,
            blasts: snap.blasts,
            injected_prepare_failures: 0,
            asleep_since: snap.asleep_since,
            recycling: snap.recycling,
            step_index: snap.step_index,
            next_event: snap.next_event,
        })
    }

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

    /// Admits an explosion: radial damage now (applied at the next safe
    /// point) and, once that commit succeeds, an outward impulse on every
    /// dynamic cluster whose centre of mass lies within `radius`. The impulse
    /// enters the dynamics exactly once per event id: a repeated id, or a
    /// commit that fails and is retried, never applies it twice.
    ///
    /// # Errors
    /// Any [`smithereens_core::DamageError`] (bad radius, damage, point or
    /// impulse, or an id reused with different parameters); nothing changes on error.
    pub fn explode(
        &mut self,
        blast: Explosion,
    ) -> Result<smithereens_core::Admission, smithereens_core::DamageError> {
        if !(blast.impulse.is_finite() && blast.impulse >= 0.0) {
            return Err(smithereens_core::DamageError::NonFiniteImpulse(
                Vec3::splat(blast.impulse),
            ));
        }
        // The core checks the damage parameters; the impulse is ours to check.
        if let Some((existing, _)) = self.blasts.get(&blast.id) {
            if existing.impulse.to_bits() != blast.impulse.to_bits() {
                return Err(smithereens_core::DamageError::ConflictingEvent(blast.id.0));
            }
        }
        let admission = self.instance.admit(RadialDamage {
            id: blast.id,
            point: blast.point,
            radius: blast.radius,
            damage: blast.damage,
            impulse: None,
        })?;
        self.blasts.entry(blast.id).or_insert((blast, false));
        Ok(admission)
    }

    fn apply_blast(&mut self, blast: &Explosion) {
        for &rb in self.bodies.values() {
            let Some(body) = self.physics.bodies.get_mut(rb).filter(|b| b.is_dynamic()) else {
                continue;
            };
            let offset = body.center_of_mass() - blast.point;
            let d = offset.length();
            if d >= blast.radius {
                continue;
            }
            let dir = if d > 1e-6 { offset / d } else { Vec3::Y };
            let j = dir * blast.impulse * (1.0 - d / blast.radius);
            body.apply_impulse(j, true);
        }
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
            if let Some(t) = self.transfers.remove(&id) {
                if let Some(h) = self.instance.cluster_of(t.chunk) {
                    let e = pushes.entry(h).or_insert((Vec3::ZERO, 0.0));
                    e.0 += t.impulse;
                    e.1 = e.1.max(t.max_speed);
                }
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

    /// The impulse a fixed chunk absorbed in `hit`, to hand to whatever breaks
    /// free there (DESIGN §3.6: it enters the dynamics once, at the commit).
    /// A dynamic chunk already received its impulse from the solver: `None`.
    ///
    /// Only projectile hits transfer. The projectile has already bounced off
    /// the fixed wall, so handing the wall's share to the freed piece adds
    /// momentum that was never taken from anyone; bounded by the projectile's
    /// approach speed that is a deliberate gameplay approximation. Debris
    /// hitting fixed chunks does not transfer: that feedback (fast debris frees
    /// pieces that become faster debris) grew speeds from 24 m/s to 10 km/s in
    /// five steps in the built-in wall scenario before this rule.
    /// Scaled by `impact.impulse_transfer`; applied after the commit to the
    /// cluster that then owns the touched chunk, capped at the approach speed.
    fn absorbed_impulse(&self, hit: &ContactHit, approach: f32) -> Option<Transfer> {
        let (chunk, j) = match (hit.tags, hit.fixed) {
            ((a, ColliderTag::Projectile(_)), (true, _)) => {
                (a.authoritative_chunk()?, -hit.impulse_on_2)
            }
            ((ColliderTag::Projectile(_), b), (_, true)) => {
                (b.authoritative_chunk()?, hit.impulse_on_2)
            }
            _ => return None,
        };
        let impulse = j * self.settings.impact.impulse_transfer;
        (impulse.is_finite() && impulse != Vec3::ZERO && approach.is_finite()).then_some(Transfer {
            chunk: smithereens_core::ChunkIndex(chunk),
            impulse,
            max_speed: approach,
        })
    }

    /// Applies the summed transfers of one commit: each cluster that is now
    /// dynamic gets its impulse at the centre of mass, scaled down so its speed
    /// change does not exceed the fastest approach among its hits.
    fn apply_transfers(&mut self, pushes: &BTreeMap<ClusterHandle, (Vec3, f32)>) {
        for (h, &(j, max_speed)) in pushes {
            let Some(&rb) = self.bodies.get(h) else {
                continue;
            };
            let Some(body) = self.physics.bodies.get_mut(rb).filter(|b| b.is_dynamic()) else {
                continue;
            };
            let dv = j / body.mass();
            let dv = if dv.length() > max_speed {
                dv * (max_speed / dv.length())
            } else {
                dv
            };
            if dv.is_finite() {
                body.set_linvel(body.linvel() + dv, true);
            }
        }
    }

    /// Sleep bookkeeping and the first half of recycling: sleeping debris past
    /// the policy's time gets its colliders disabled (out of contacts and
    /// queries from the next step on).
    fn advance_lifecycle(&mut self) {
        let dt = self.settings.timestep;
        if self.instance.advance_sleep(dt).is_err() {
            return;
        }
        let Some(policy) = self.settings.recycle else {
            return;
        };
        let asleep: Vec<ClusterHandle> = self
            .instance
            .clusters()
            .filter(|(_, c)| {
                c.sleep == smithereens_core::lifecycle::SleepState::Asleep
                    && c.nodes.len() <= policy.max_chunks as usize
            })
            .map(|(h, _)| h)
            .collect();
        for h in &asleep {
            self.asleep_since.entry(*h).or_insert(self.step_index);
        }
        let awake: Vec<ClusterHandle> = self
            .asleep_since
            .keys()
            .filter(|h| !asleep.contains(h))
            .copied()
            .collect();
        for h in awake {
            self.asleep_since.remove(&h);
        }
        let due: Vec<ClusterHandle> = self
            .asleep_since
            .iter()
            .filter(|(_, since)| (self.step_index - **since) as f32 * dt >= policy.after)
            .map(|(h, _)| *h)
            .collect();
        for h in due {
            self.asleep_since.remove(&h);
            let Ok(ticket) = self.instance.begin_recycle(h) else {
                continue;
            };
            if let Some(body) = self
                .bodies
                .get(&h)
                .and_then(|&rb| self.physics.bodies.get(rb))
            {
                let colliders: Vec<ColliderHandle> = body.colliders().to_vec();
                for ch in colliders {
                    if let Some(c) = self.physics.colliders.get_mut(ch) {
                        c.set_enabled(false);
                    }
                }
            }
            self.recycling.push(ticket);
        }
    }

    /// Second half of recycling: clusters withdrawn before the last step are
    /// released in the core and their bodies removed. Returns them.
    fn finish_recycling(&mut self) -> Vec<ClusterHandle> {
        let mut done = Vec::new();
        for ticket in std::mem::take(&mut self.recycling) {
            match self.instance.finish_recycle(ticket) {
                Ok(_) => {
                    if let Some(rb) = self.bodies.remove(&ticket.cluster) {
                        self.physics.remove_body_with_colliders(rb, true);
                    }
                    done.push(ticket.cluster);
                }
                Err(smithereens_core::lifecycle::LifecycleError::StillInQueries(_)) => {
                    self.recycling.push(ticket)
                }
                Err(_) => {}
            }
        }
        done
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
