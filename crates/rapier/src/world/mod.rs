//! [`DestructionWorld`]: a convenience for tools, tests and the CLI — one
//! destructible instance, a ground plane and projectiles in a Rapier world
//! it owns and steps. It is a thin shell over a [`DestructionSet`] (the one
//! commit path); games that own their Rapier world use the set directly.
//!
//! Split by concern: [`settings`] (world settings and the Rapier
//! configuration), `snapshot` (resumable world snapshots).

use crate::convert::from_rapier;
use crate::error::BackendError;
use crate::set::{
    ColliderTag, DestructionSet, Explosion, InstanceHandle, ProjectileDesc, SetAdmitError,
};
use rapier3d::prelude::*;
use smithereens_core::{Asset, BondIndex, ClusterHandle, CommitError, Instance, Pose};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

pub mod settings;
mod snapshot;

pub use settings::{WorldSettings, new_physics_world};
pub use snapshot::WorldSnapshotError;

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

/// What happened in one [`DestructionWorld::step`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Damage events admitted from contacts this step, in id order.
    pub events: Vec<smithereens_core::DamageEvent>,
    /// Bonds broken by this step's commit.
    pub broken: Vec<BondIndex>,
    /// Clusters removed by the commit.
    pub removed: Vec<ClusterHandle>,
    /// Clusters created by the commit (pieces that broke off).
    pub created: Vec<ClusterHandle>,
    /// Clusters that lost pieces or their support and keep their handle;
    /// a remainder larger than what left keeps its body too, otherwise its
    /// body was rebuilt (issue 12; see `backend::keeps_body`).
    pub shrunk: Vec<ClusterHandle>,
    /// Created or shrunk clusters that are render-only debris: no Rapier
    /// body, a particle the set moves itself (see [`crate::debris`]).
    pub render_only: Vec<ClusterHandle>,
    /// Debris clusters recycled (released and removed) at this step.
    pub recycled: Vec<ClusterHandle>,
    /// Set when the budget held the commit back (events stay pending).
    pub deferred: Option<smithereens_core::budget::BudgetShortfall>,
    /// Wall time of the Rapier step, s.
    pub physics_seconds: f64,
    /// Wall time of damage admission, planning and commit, s.
    pub destruction_seconds: f64,
    /// True when the step was re-run against pieces a projectile freed
    /// (see [`DestructionWorld::set_resolve_breaks`]).
    pub rerun: bool,
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

/// One destructible instance, a ground and projectiles in a Rapier world
/// this value owns and steps (see the module docs).
pub struct DestructionWorld {
    physics: PhysicsWorld,
    set: DestructionSet,
    handle: InstanceHandle,
    projectiles: Vec<RigidBodyHandle>,
    settings: WorldSettings,
    /// Step with [`DestructionSet::step_resolving_breaks`].
    resolve_breaks: bool,
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
        let mut physics = new_physics_world(&settings);
        let mut set = DestructionSet::new(settings.destruction())?;
        // Render-only debris lands on the world's own ground.
        set.set_debris_settings(settings.debris())?;
        let ground = settings
            .ground_y
            .map(|y| insert_ground(&mut physics, y, settings.friction));
        let handle = match set.spawn(&mut physics, asset, desc.placement, desc) {
            Ok(h) => h,
            Err(e) => {
                if let Some(g) = ground {
                    physics.remove_body_with_colliders(g, false);
                }
                return Err(e);
            }
        };
        Ok(Self {
            physics,
            set,
            handle,
            projectiles: Vec::new(),
            settings,
            resolve_breaks: false,
        })
    }

    /// Launches a projectile (a CCD-enabled solid sphere, a plain game
    /// body to the set); returns its index.
    ///
    /// # Errors
    /// [`BackendError::BadSetting`] for a non-finite position/velocity or a
    /// non-positive radius or mass. Nothing is added on error.
    pub fn spawn_projectile(&mut self, p: ProjectileDesc) -> Result<u32, BackendError> {
        let index = self.projectiles.len() as u32;
        let body = insert_projectile(
            &mut self.physics,
            &p,
            self.settings.friction,
            self.settings.restitution,
        )?;
        self.projectiles.push(body);
        Ok(index)
    }

    /// Admits an external damage event (a [`RadialDamage`](smithereens_core::RadialDamage) scripted hit or
    /// a [`smithereens_core::FalloffDamage`]) for the next safe point.
    ///
    /// # Errors
    /// Any [`smithereens_core::DamageError`]; nothing changes on error.
    pub fn admit(
        &mut self,
        event: impl Into<smithereens_core::DamageEvent>,
    ) -> Result<smithereens_core::Admission, smithereens_core::DamageError> {
        self.set
            .admit(&self.physics, self.handle, event)
            .map_err(damage_error)
    }

    /// Admits an explosion (see [`DestructionSet::explode`]).
    ///
    /// # Errors
    /// Any [`smithereens_core::DamageError`]; nothing changes on error.
    pub fn explode(
        &mut self,
        blast: Explosion,
    ) -> Result<smithereens_core::Admission, smithereens_core::DamageError> {
        self.set
            .explode(&self.physics, self.handle, blast)
            .map_err(damage_error)
    }

    /// Test hook: the next `n` commits fail in `prepare` (nothing changes, the
    /// events stay pending and are retried at the next step).
    #[doc(hidden)]
    pub fn inject_prepare_failures(&mut self, n: u32) {
        let _ = self.set.inject_prepare_failures(self.handle, n);
    }

    /// Advances one fixed step: Rapier steps (contacts only enqueue), then at
    /// the safe point contact impulses become damage events, pending events
    /// are committed (bodies swapped in one step), and cluster motions are synced.
    ///
    /// # Errors
    /// [`StepError::Commit`] if the commit failed; the physics step itself has
    /// happened, the old bodies and the pending events are kept for a retry.
    pub fn step(&mut self) -> Result<StepReport, StepError> {
        let t0 = Instant::now();
        let (mut set_report, physics_seconds) = if self.resolve_breaks {
            let r = self
                .set
                .step_resolving_breaks(&mut self.physics, &mut |physics, events| {
                    physics.step_with_events(&(), events);
                });
            // Both Rapier steps of a re-run count as physics.
            let physics_seconds = (t0.elapsed().as_secs_f64() - r.destruction_seconds).max(0.0);
            (r, physics_seconds)
        } else {
            self.set.before_step(&self.physics);
            self.physics.step_with_events(&(), self.set.events());
            let physics_seconds = t0.elapsed().as_secs_f64();
            (self.set.after_step(&mut self.physics), physics_seconds)
        };
        if let Some((_, e)) = set_report.failed.pop() {
            return Err(StepError::Commit(e));
        }
        let r = set_report
            .instances
            .remove(&self.handle)
            .unwrap_or_default();
        Ok(StepReport {
            events: r.events,
            broken: r.broken,
            removed: r.removed,
            created: r.created,
            shrunk: r.shrunk,
            render_only: r.render_only,
            recycled: r.recycled,
            deferred: r.deferred,
            physics_seconds,
            destruction_seconds: set_report.destruction_seconds,
            rerun: set_report.rerun,
        })
    }

    /// Opt in (or out) of re-running the step in which a projectile breaks
    /// fixed chunks, so that it is resolved against the freed pieces and
    /// the projectile carries on through (issue 11, item 2; see
    /// [`DestructionSet::step_resolving_breaks`]). Off by default; not kept
    /// in snapshots.
    pub fn set_resolve_breaks(&mut self, on: bool) {
        self.resolve_breaks = on;
    }

    /// The destruction state.
    pub fn instance(&self) -> &Instance {
        // The world's one instance lives as long as the world.
        match self.set.instance(self.handle) {
            Ok(i) => i,
            Err(_) => unreachable!("the world's instance is never despawned"),
        }
    }
    /// The destruction set holding the world's one instance.
    pub fn set(&self) -> &DestructionSet {
        &self.set
    }
    /// The handle of the world's instance in [`Self::set`].
    pub fn handle(&self) -> InstanceHandle {
        self.handle
    }
    /// The Rapier world (read-only).
    pub fn physics(&self) -> &PhysicsWorld {
        &self.physics
    }
    /// The Rapier world, mutable: for game code that adds its own bodies or
    /// sets velocities. Do not remove cluster bodies or chunk colliders: the
    /// destruction state owns them.
    pub fn physics_mut(&mut self) -> &mut PhysicsWorld {
        &mut self.physics
    }
    /// Settings in force.
    pub fn settings(&self) -> &WorldSettings {
        &self.settings
    }
    /// Steps taken.
    pub fn step_index(&self) -> u64 {
        self.set.step_index()
    }
    /// The Rapier body of each live cluster, in handle order.
    pub fn cluster_bodies(&self) -> &BTreeMap<ClusterHandle, RigidBodyHandle> {
        match self.set.cluster_bodies(self.handle) {
            Ok(b) => b,
            Err(_) => unreachable!("the world's instance is never despawned"),
        }
    }
    /// The render-only debris: clusters that are no Rapier body but
    /// particles the set moves itself (see [`crate::debris`]), in handle order.
    pub fn render_debris(&self) -> &crate::debris::RenderDebris {
        match self.set.render_debris(self.handle) {
            Ok(d) => d,
            Err(_) => unreachable!("the world's instance is never despawned"),
        }
    }
    /// Asset → world pose of a cluster's chunks, read from its Rapier body
    /// (or its particle, for render-only debris).
    pub fn cluster_asset_pose(&self, h: ClusterHandle) -> Option<Pose> {
        self.set.cluster_asset_pose(&self.physics, self.handle, h)
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
        self.cluster_bodies()
            .values()
            .filter(|&&h| self.physics.bodies.get(h).is_some_and(|b| b.is_dynamic()))
            .count()
    }
    /// Safety readings after a step: the fastest dynamic body, bodies with a
    /// non-finite state, and the lowest chunk collider point.
    pub fn health_check(&self) -> HealthCheck {
        health_check(&self.physics, &self.set)
    }

    /// Lowest point of every chunk collider's world AABB (m), or `None` with no chunks.
    pub fn lowest_chunk_point(&self) -> Option<f32> {
        lowest_chunk_point(&self.physics, &self.set)
    }
    /// FNV-1a hash of the destruction state plus every library body's and
    /// projectile's pose and velocity bits.
    pub fn state_hash(&self) -> u64 {
        let mut h = smithereens_core::hash::StateHasher::new();
        h.write_u64(self.set.state_hash(&self.physics));
        for &rb in &self.projectiles {
            if let Some(b) = self.physics.bodies.get(rb) {
                crate::set::hash_body(&mut h, b);
            }
        }
        h.finish()
    }
}

/// Inserts a fixed 1000 m × 1000 m ground slab whose top face is at y = `y`.
pub fn insert_ground(physics: &mut PhysicsWorld, y: f32, friction: f32) -> RigidBodyHandle {
    let ground = physics.insert_body(RigidBodyBuilder::fixed().translation(glam::Vec3::new(
        0.0,
        y - 0.5,
        0.0,
    )));
    physics.insert_collider(
        ColliderBuilder::cuboid(500.0, 0.5, 500.0).friction(friction),
        Some(ground),
    );
    ground
}

/// Inserts a projectile: a dynamic, CCD-enabled solid sphere of `p.mass`
/// kg and `p.radius` m at `p.position` moving at `p.velocity`, with the
/// given friction and restitution. To a [`DestructionSet`] it is a plain
/// game body.
///
/// # Errors
/// [`BackendError::BadSetting`] for a non-finite position/velocity, a
/// non-positive radius or mass, a mass above
/// [`crate::set::MAX_PROJECTILE_MASS`] or a speed above
/// [`crate::set::MAX_PROJECTILE_SPEED`]. Nothing is added on error.
pub fn insert_projectile(
    physics: &mut PhysicsWorld,
    p: &ProjectileDesc,
    friction: f32,
    restitution: f32,
) -> Result<RigidBodyHandle, BackendError> {
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
    if p.mass > crate::set::MAX_PROJECTILE_MASS {
        return bad("projectile mass", p.mass, "≤ 1e6 kg (MAX_PROJECTILE_MASS)");
    }
    if p.velocity.length() > crate::set::MAX_PROJECTILE_SPEED {
        return bad(
            "projectile speed",
            p.velocity.length(),
            "≤ 2000 m/s (MAX_PROJECTILE_SPEED)",
        );
    }
    let body = physics.insert_body(
        RigidBodyBuilder::dynamic()
            .translation(p.position)
            .linvel(p.velocity)
            .ccd_enabled(true),
    );
    let volume = 4.0 / 3.0 * std::f32::consts::PI * p.radius.powi(3);
    let collider = ColliderBuilder::ball(p.radius)
        .density(p.mass / volume)
        .friction(friction)
        .restitution(restitution);
    physics.insert_collider(collider, Some(body));
    Ok(body)
}

/// Safety readings of a world: the fastest dynamic body, bodies with a
/// non-finite state, and the lowest chunk collider point of `set`. O(bodies).
pub fn health_check(physics: &PhysicsWorld, set: &DestructionSet) -> HealthCheck {
    let mut check = HealthCheck {
        max_speed: 0.0,
        non_finite_bodies: 0,
        lowest_chunk_y: lowest_chunk_point(physics, set).unwrap_or(0.0),
    };
    for (_, b) in physics.bodies.iter() {
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

/// Lowest point of every authoritative chunk collider of `set` (world AABB,
/// m), or `None` with no chunks. O(colliders).
pub fn lowest_chunk_point(physics: &PhysicsWorld, set: &DestructionSet) -> Option<f32> {
    physics
        .colliders
        .iter()
        .filter(|(h, _)| matches!(set.collider_tag(*h), Some(ColliderTag::Chunk { .. })))
        .map(|(_, c)| match c.shape().as_compound() {
            // A compound's AABB is its local box rotated, which can reach far
            // below its parts (a decomposed concave chunk): take the parts'.
            Some(compound) => compound
                .shapes()
                .iter()
                .map(|(pose, part)| part.compute_aabb(&(*c.position() * *pose)).mins.y)
                .fold(f32::INFINITY, f32::min),
            None => c.compute_aabb().mins.y,
        })
        .reduce(f32::min)
}

fn damage_error(e: SetAdmitError) -> smithereens_core::DamageError {
    match e {
        SetAdmitError::Damage(d) => d,
        // The world's one instance is never despawned.
        SetAdmitError::Instance(_) => smithereens_core::DamageError::UnknownInstance(0),
    }
}
