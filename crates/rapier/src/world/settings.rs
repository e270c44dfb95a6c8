//! Settings of a [`super::DestructionWorld`] and the Rapier world configuration they make.

use crate::error::BackendError;
use crate::impact::ImpactDamage;
use crate::set::{DestructionSettings, RecyclePolicy};
use glam::Vec3;
use rapier3d::prelude::*;

/// Settings of a [`DestructionWorld`](crate::DestructionWorld). All values SI; see each field.
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
    /// Colliders stay inside their hulls; thin hulls get a smaller radius.
    pub collider_border: f32,
    /// Solver substeps per step (Rapier's `num_solver_iterations`; its default is 4).
    pub solver_iterations: u32,
    /// Projected Gauss–Seidel iterations per substep (Rapier's default is 1;
    /// 2 keeps a 10-link chain's joints within 1 cm while it swings).
    pub pgs_iterations: u32,
    /// Warm-start impulse joints (Rapier's `warmstart_joints`, off in its
    /// defaults): each step starts a joint's solve from the impulses of the
    /// step before, as contacts do. A joint carrying a steady load (a
    /// vehicle's wheel under its chassis) otherwise restarts from zero
    /// impulse every step, and with stiff ground contacts under a light
    /// wheel it stays stretched along the load: in the wall-push scene
    /// (1.2 t chassis, 50 kg wheels, 8 × 2 iterations, 120/240 Hz contacts)
    /// the wheel joints' anchor error is 0.36 mm without it, 0.09 mm with it.
    /// No effect in a world without joints. Default true.
    #[serde(default = "yes")]
    pub warmstart_joints: bool,
    /// Rapier's continuous collision detection (default true: Rapier's own
    /// behaviour). Rapier 0.36 sweeps every dynamic body that moves more
    /// than half its thinnest collider's thickness in a step against the
    /// fixed colliders and moves it back to its time of impact, alone: a
    /// body on joints is clamped while its joint partners move the whole
    /// step. A vehicle's chassis holding capsules of 8 cm radius (held
    /// parts; Parry's CCD thickness of a capsule is its radius) counts as
    /// fast above 0.5 × 0.08 m per step, 2.4 m/s at 60 Hz (its 0.6 m box
    /// alone: 9 m/s), and sliding along a wall it was clamped 28–77 mm
    /// short of its wheels (wall-push scraper). `false`
    /// sets `max_ccd_substeps = 0`: no sweeping, no clamping, for a scene
    /// in which nothing can cross a fixed collider in one step.
    #[serde(default = "yes")]
    pub ccd: bool,
    /// Stiffness of contacts between dynamic bodies as a natural frequency, Hz
    /// (Rapier's default is 30 Hz, under which a 100 kg box sinks 3.4 cm into a
    /// 1 kg box beneath it; 120 Hz brings that under 1 cm).
    pub contact_frequency: f32,
    /// Penetration the solver leaves uncorrected, m (Rapier's default is 5 mm;
    /// less keeps tall stacks from visibly sinking).
    pub allowed_penetration: f32,
    /// Debris recycling: a dynamic cluster of at most `max_chunks` chunks that
    /// has slept (Rapier's sleep decision) for `after` seconds leaves
    /// authoritative queries and is then removed. `None` (the default) keeps
    /// every piece, so recorded runs show all chunks to the end.
    pub recycle: Option<RecyclePolicy>,
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
            warmstart_joints: true,
            ccd: true,
            contact_frequency: 120.0,
            allowed_penetration: 0.001,
            recycle: None,
        }
    }
}

impl WorldSettings {
    /// The [`DestructionSettings`] of the world's set: impact mapping,
    /// friction, restitution, collider border and recycling from here, the
    /// default collision groups and tag mark, and no quarantine (a failing
    /// commit is retried at every step, and [`super::DestructionWorld::step`]
    /// reports each failure).
    pub fn destruction(&self) -> DestructionSettings {
        DestructionSettings {
            impact: self.impact,
            friction: self.friction,
            restitution: self.restitution,
            collider_border: self.collider_border,
            recycle: self.recycle,
            quarantine_after: u32::MAX,
            ..DestructionSettings::default()
        }
    }

    /// How the world's render-only debris moves ([`crate::debris`]): it
    /// lands on the world's ground plane (`ground_y`, none without a
    /// ground) with the world's friction; the other values are
    /// [`crate::DebrisSettings::default`]'s.
    pub fn debris(&self) -> crate::debris::DebrisSettings {
        crate::debris::DebrisSettings {
            ground_y: self.ground_y,
            friction: self.friction,
            ..Default::default()
        }
    }

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

fn yes() -> bool {
    true
}

/// A Rapier world configured as every [`DestructionWorld`](crate::DestructionWorld) is: gravity and
/// fixed time step from `settings`, Rapier's default solver otherwise (the
/// validation scenarios in `tests/validation_scenarios.rs` run on it).
pub fn new_physics_world(settings: &WorldSettings) -> PhysicsWorld {
    let mut physics = PhysicsWorld::new();
    physics.gravity = settings.gravity;
    let p = &mut physics.integration_parameters;
    p.dt = settings.timestep;
    p.num_solver_iterations = settings.solver_iterations as usize;
    p.num_internal_pgs_iterations = settings.pgs_iterations as usize;
    p.warmstart_joints = settings.warmstart_joints;
    if !settings.ccd {
        p.max_ccd_substeps = 0;
    }
    p.contact_softness.natural_frequency = settings.contact_frequency;
    // Contacts with fixed bodies (ground, anchored walls) twice as stiff, as
    // Rapier's own defaults are (60 vs 30 Hz): a 1.2 t piece landing at
    // 7.7 m/s dented the ground 7.7 cm at 60 Hz, 4 cm at 240 Hz.
    p.static_contact_softness.natural_frequency = 2.0 * settings.contact_frequency;
    // Rapier scales these by `length_unit` (1 m here).
    p.normalized_allowed_linear_error = settings.allowed_penetration;
    if let Some(n) = std::env::var("SOLVER").ok().and_then(|v| v.parse::<usize>().ok()) {
        p.num_solver_iterations = n;
    }
    if let Some(n) = std::env::var("PGS").ok().and_then(|v| v.parse::<usize>().ok()) {
        p.num_internal_pgs_iterations = n;
    }
    if let Some(r) = std::env::var("RECYCLE").ok().and_then(|v| v.parse::<f32>().ok()) {
        if r == 0.0 { p.contact_recycling = false; } else { p.normalized_contact_recycle_distance = r; }
    }
    physics
}
