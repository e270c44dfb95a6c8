//! Scripted runs: any number of destructible instances and plain bodies
//! on one ground in a Rapier world the run owns, projectiles launched and
//! explosions triggered at given steps, a fixed number of steps, everything
//! recorded into one [`RunRecord`] plus a [`RunSummary`] of counts and
//! timings.
//!
//! The run steps a [`DestructionSet`] beside its [`PhysicsWorld`](rapier3d::prelude::PhysicsWorld) exactly
//! as a game does (`before_step`, Rapier step with the set's events,
//! `after_step`). The ground is inserted first, then the instances in
//! order, then the plain bodies. Instances whose [`RunInstance::asset`] is
//! the same `Arc` are validated once and share one [`Asset`] (and so one
//! set of collider shapes): fracture once, place many.
//!
//! ```
//! use smithereens_core::{AssetFile, Pose};
//! use smithereens_rapier::recorded_run::{RunInstance, ScriptedRun, run};
//! use smithereens_rapier::WorldSettings;
//! use std::sync::Arc;
//!
//! // A 2 × 2 × 1 grid of 0.5 m cubes resting on y = 0, bottom row supported.
//! let desc = smithereens_core::fixtures::grid_desc(2, 2, 1, 0.5, 1000.0, 1000.0);
//! let meshes = vec![smithereens_core::ChunkMesh::default(); desc.chunks.len()];
//! let file = Arc::new(AssetFile { name: "grid".into(), desc, meshes, ..Default::default() });
//! let mut scripted = ScriptedRun::new("two grids", WorldSettings::default(), 30);
//! for x in [0.0, 3.0] {
//!     scripted.instances.push(RunInstance::new(
//!         file.clone(),
//!         Pose::from_translation(smithereens_core::glam::Vec3::new(x, 0.0, 0.0)),
//!     ));
//! }
//! let (record, summary) = run(&scripted, &mut |_, _| {}).unwrap();
//! assert_eq!(summary.instances, 2);
//! assert_eq!(summary.assets, 1);
//! assert_eq!(record.frame_count, 31);
//! ```

use crate::error::BackendError;
use crate::held::{HeldDamageEvent, HeldError, HeldParts, PartStatus};
use crate::landing::LandingSubsteps;
use crate::set::{DestructionSet, InstanceHandle, ProjectileDesc, SetAdmitError, SetStepReport};
use crate::substep::{
    BoundedStepper, FrameOutcome, FrameStep, SubstepDiagnostics, SubstepError, SubstepSettings,
};
use crate::world::{
    StepError, WorldSettings, health_check, insert_ground, insert_projectile, lowest_chunk_point,
    new_physics_world,
};
use glam::Vec3;
use smithereens_core::instance::InstanceDesc;
use smithereens_core::record::{
    RunBondStress, RunBreak, RunEvent, RunPlainBody, RunProjectile, RunRecord, pose_to_array,
};
use smithereens_core::{Asset, AssetFile, Pose};
use std::sync::Arc;
use std::time::Instant;

mod bodies;
mod recorder;
mod vehicle;

pub use bodies::{
    PlainBodyDesc, PlainMass, RunBodyKind, RunShape, insert_plain_body, shape_collider,
};
use recorder::Recorder;
pub use vehicle::{
    HoldDesign, JointHeldPart, MAX_WHEELS, VehicleBodies, VehicleDesc, VehicleError, WheelDesc,
    insert_vehicle,
};

/// A projectile launched at the start of a given step.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScheduledProjectile {
    /// Step index (0-based) before which it is spawned.
    pub step: u32,
    /// The projectile.
    pub projectile: ProjectileDesc,
}

/// An explosion triggered at the start of a given step on one instance.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScheduledExplosion {
    /// Step index (0-based) before which it is admitted.
    pub step: u32,
    /// Index into [`ScriptedRun::instances`] of the instance it damages.
    #[serde(default)]
    pub instance: u32,
    /// The explosion.
    pub explosion: crate::set::Explosion,
}

/// A launch from a vehicle's launcher at the start of a given step.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScheduledLaunch {
    /// Step index (0-based) before which the part is launched.
    pub step: u32,
    /// Index into [`ScriptedRun::vehicles`].
    pub vehicle: u32,
    /// Index into that vehicle's [`VehicleDesc::launchers`].
    pub launcher: u32,
    /// The projectile index; `None`: the next one ready (lowest index
    /// neither launched nor broken, [`crate::HeldParts::next_ready`]).
    pub projectile: Option<u32>,
    /// Launch impulse, N·s, in the chassis frame at the moment of launch
    /// (its recoil goes to the chassis).
    pub impulse: Vec3,
}

/// One destructible instance of a run.
#[derive(Clone, Debug)]
pub struct RunInstance {
    /// The fractured asset with its render meshes (one per chunk). Give
    /// several instances the same `Arc` to share one validated asset.
    pub asset: Arc<AssetFile>,
    /// Asset → world placement.
    pub placement: Pose,
    /// Identity, budget and lifecycle; its `placement` is replaced by
    /// [`Self::placement`].
    pub desc: InstanceDesc,
    /// Stress on this instance ([`DestructionSet::enable_stress`]); `None`: off.
    pub stress: Option<smithereens_core::stress::StressDesc>,
}

impl RunInstance {
    /// An instance with the default [`InstanceDesc`].
    pub fn new(asset: Arc<AssetFile>, placement: Pose) -> Self {
        Self {
            asset,
            placement,
            desc: InstanceDesc::default(),
            stress: None,
        }
    }
}

/// A complete scripted run: instances and plain bodies placed on one ground,
/// projectiles and explosions at given steps.
#[derive(Clone, Debug)]
pub struct ScriptedRun {
    /// Name recorded in the run.
    pub name: String,
    /// Destructible instances, in spawn order.
    pub instances: Vec<RunInstance>,
    /// Plain (non-destructible) bodies, inserted after the instances.
    pub bodies: Vec<PlainBodyDesc>,
    /// World settings (the ground plane is `settings.ground_y`).
    pub settings: WorldSettings,
    /// Projectiles in launch order.
    pub projectiles: Vec<ScheduledProjectile>,
    /// Explosions in trigger order.
    pub explosions: Vec<ScheduledExplosion>,
    /// Number of fixed steps to simulate.
    pub steps: u32,
    /// Rapier's contact prediction distance for this run, m
    /// (`integration_parameters.normalized_prediction_distance` at length
    /// unit 1); `None` keeps [`new_physics_world`]'s, Rapier's 0.002. A scene
    /// of tumbling debris wants more: a piece's corner moves `ω·r·Δt` per
    /// step (12 rad/s at 0.4 m and 1/120 s: 4 cm), and with 2 mm of
    /// prediction the contact is only made after the corner is inside the
    /// ground. Finite, in `(0, 1]` m.
    pub prediction_distance: Option<f32>,
    /// Step with [`DestructionSet::step_resolving_breaks`]: the step in
    /// which a projectile breaks fixed chunks is re-run against the freed
    /// pieces (issue 11, item 2). Off by default.
    pub resolve_breaks: bool,
    /// Vehicles (chassis, wheels on revolute joints, launchers of held
    /// parts), inserted after the plain bodies.
    pub vehicles: Vec<VehicleDesc>,
    /// Launches from the vehicles' launchers, in any order (run in step
    /// order, then in this order).
    pub launches: Vec<ScheduledLaunch>,
    /// Step every frame with a [`BoundedStepper`] of these settings (issue
    /// 14 item 5); `None`: one plain step per frame. Not with
    /// [`Self::resolve_breaks`].
    pub substep: Option<SubstepSettings>,
    /// Run a frame in which a body lands as sub-steps ([`crate::landing`]);
    /// `None` (the default, for now: see the module docs of
    /// [`crate::landing`]): one step per frame whatever lands. Not with
    /// [`Self::substep`].
    pub landing: Option<LandingSubsteps>,
}

impl ScriptedRun {
    /// A run with nothing in it yet.
    pub fn new(name: impl Into<String>, settings: WorldSettings, steps: u32) -> Self {
        Self {
            name: name.into(),
            instances: Vec::new(),
            bodies: Vec::new(),
            settings,
            projectiles: Vec::new(),
            explosions: Vec::new(),
            steps,
            prediction_distance: None,
            resolve_breaks: false,
            vehicles: Vec::new(),
            launches: Vec::new(),
            substep: None,
            landing: None,
        }
    }

    /// A run of one instance of `asset` at `placement` (the one-asset form
    /// the demo uses).
    pub fn single(
        name: impl Into<String>,
        asset: AssetFile,
        placement: Pose,
        settings: WorldSettings,
        steps: u32,
    ) -> Self {
        let mut run = Self::new(name, settings, steps);
        run.instances
            .push(RunInstance::new(Arc::new(asset), placement));
        run
    }
}

/// Counts and timings of a run, summed over all instances.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RunSummary {
    /// Destructible instances.
    pub instances: usize,
    /// Distinct assets the instances share (fracture once, place many).
    pub assets: usize,
    /// Instances with at least one broken bond at the end.
    pub instances_broken: usize,
    /// Simulated (support-level) chunks of all instances.
    pub chunks: usize,
    /// Bonds of all instances.
    pub bonds: usize,
    /// Damage events admitted.
    pub events: usize,
    /// Bonds broken by the end.
    pub bonds_broken: usize,
    /// Clusters (islands) at the end.
    pub islands: usize,
    /// Dynamic cluster bodies at the end.
    pub dynamic_bodies: usize,
    /// Cluster bodies created over the run (initial + split products).
    pub bodies_created: usize,
    /// Simulated time, s.
    pub simulated_seconds: f64,
    /// Median wall time per step, s.
    pub step_median_seconds: f64,
    /// Worst wall time per step, s.
    pub step_worst_seconds: f64,
    /// Worst destruction (damage + commit) time in one step, s.
    pub destruction_worst_seconds: f64,
    /// Lowest point of any chunk collider (its bounding box) on the last
    /// frame, m (world y).
    pub lowest_chunk_y: f32,
    /// Lowest point of any chunk collider (its bounding box) over every
    /// recorded frame, the first included, m (world y).
    pub lowest_chunk_y_ever: f32,
    /// Highest linear speed of any dynamic body on any step, m/s.
    pub max_speed: f32,
    /// Steps after which some body had a non-finite pose or velocity.
    pub non_finite_steps: u32,
    /// State hash after the last step.
    pub final_hash: u64,
    /// Distinct loose pieces reported wedged when they fell asleep
    /// ([`crate::InstanceReport::wedged`]).
    pub wedged: usize,
    /// Vehicles in the run.
    pub vehicles: usize,
    /// Parts launched from the vehicles' launchers.
    pub launches: usize,
    /// Held parts that broke before they were launched (their own
    /// durability, or their weapon broke).
    pub held_parts_broken: usize,
    /// The bounded stepper's counters, when the run used one.
    pub substep: Option<SubstepDiagnostics>,
    /// Extra steps run by landing sub-steps ([`ScriptedRun::landing`]):
    /// Σ over frames of (sub-steps − 1).
    pub landing_substeps: u64,
    /// Loose pieces on the last frame that moved less than
    /// [`STUCK_DISTANCE`] from where they broke free and are not supported
    /// from below ([`crate::set::Hold`]): pieces left hanging where they were.
    pub stuck: usize,
}

/// Least distance, m, a loose piece must move from where it broke free not
/// to count as [`RunSummary::stuck`] (unless supported from below): 5 cm.
pub const STUCK_DISTANCE: f32 = 0.05;

/// Why a run failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The asset file is invalid.
    #[error("asset")]
    Asset(#[from] smithereens_core::AssetFileError),
    /// The world could not be built, or a projectile or plain body is invalid.
    #[error("world")]
    Backend(#[from] BackendError),
    /// A step failed.
    #[error("step")]
    Step(#[from] StepError),
    /// A scripted explosion was rejected.
    #[error("explosion")]
    Explosion(#[from] smithereens_core::DamageError),
    /// The run asks for more steps than a recorded run may hold.
    #[error("{steps} steps asked for; a recorded run holds at most {max} steps", max = smithereens_core::record::MAX_RUN_STEPS)]
    TooManySteps {
        /// [`ScriptedRun::steps`].
        steps: u32,
    },
    /// A projectile is launched at or after the run's last step, so it would never fly.
    #[error("projectile {projectile} is launched before step {step}, but the run has only {steps} steps (0 to {last}); launch it earlier or run longer", last = steps.saturating_sub(1))]
    ProjectileAfterEnd {
        /// Index in [`ScriptedRun::projectiles`].
        projectile: usize,
        /// Its launch step.
        step: u32,
        /// [`ScriptedRun::steps`].
        steps: u32,
    },
    /// An explosion is triggered at or after the run's last step, so it would never happen.
    #[error("explosion {explosion} is triggered before step {step}, but the run has only {steps} steps (0 to {last}); trigger it earlier or run longer", last = steps.saturating_sub(1))]
    ExplosionAfterEnd {
        /// Index in [`ScriptedRun::explosions`].
        explosion: usize,
        /// Its trigger step.
        step: u32,
        /// [`ScriptedRun::steps`].
        steps: u32,
    },
    /// A vehicle is refused.
    #[error("vehicle {vehicle}")]
    Vehicle {
        /// Index in [`ScriptedRun::vehicles`].
        vehicle: usize,
        /// Why.
        source: VehicleError,
    },
    /// The bounded stepper's settings are refused.
    #[error("bounded stepper")]
    Substep(#[from] SubstepError),
    /// The bounded stepper and `resolve_breaks` were both asked for.
    #[error("a run steps with the bounded stepper or re-runs breaking steps, not both")]
    SubstepWithResolveBreaks,
    /// The landing sub-step settings are refused.
    #[error("landing sub-steps")]
    Landing(#[from] crate::landing::LandingSubstepsError),
    /// Landing sub-steps and the bounded stepper were both asked for: each
    /// splits the frame by its own rule, and the stepper's per-frame
    /// outcome and stall count would then count sub-steps, not frames.
    #[error("a run splits frames with the bounded stepper or with landing sub-steps, not both")]
    LandingWithSubstep,
    /// A launch is at or after the run's last step.
    #[error("launch {launch} is before step {step}, but the run has only {steps} steps")]
    LaunchAfterEnd {
        /// Index in [`ScriptedRun::launches`].
        launch: usize,
        /// Its step.
        step: u32,
        /// [`ScriptedRun::steps`].
        steps: u32,
    },
    /// A launch names a vehicle or launcher the run does not have, a
    /// projectile index out of range, or a projectile an earlier launch
    /// already names.
    #[error("launches[{launch}] (vehicle {vehicle}, launcher {launcher})")]
    LaunchTarget {
        /// Index in [`ScriptedRun::launches`].
        launch: usize,
        /// Its vehicle (index in [`ScriptedRun::vehicles`]).
        vehicle: u32,
        /// Its launcher (index in that vehicle's launchers).
        launcher: u32,
        /// Why ([`HeldError::UnknownLauncher`] also for a missing vehicle).
        source: HeldError,
    },
    /// A launch was refused when its step came (the part had broken, or
    /// nothing was left to launch).
    #[error("launches[{launch}] (vehicle {vehicle}, launcher {launcher}) at step {step}")]
    Launch {
        /// Index in [`ScriptedRun::launches`].
        launch: usize,
        /// Its vehicle (index in [`ScriptedRun::vehicles`]).
        vehicle: u32,
        /// Its launcher (index in that vehicle's launchers).
        launcher: u32,
        /// Its step.
        step: u32,
        /// Why.
        source: HeldError,
    },
    /// A scripted explosion names an instance the run does not have.
    #[error("explosion {explosion} names instance {instance}, but the run has {count} instances")]
    ExplosionTarget {
        /// Index in [`ScriptedRun::explosions`].
        explosion: usize,
        /// The instance index it names.
        instance: u32,
        /// Instances in the run.
        count: usize,
    },
}

/// What [`run_observed`] shows its observer after each step.
pub struct RunStep<'a> {
    /// Steps done so far (1 after the first step).
    pub step: u32,
    /// Steps the run takes in all.
    pub steps: u32,
    /// The set, after the step's safe point.
    pub set: &'a DestructionSet,
    /// The step's report. The run has read it already: the observer may
    /// take what it needs out of it (e.g. [`crate::InstanceReport::records`]).
    pub report: &'a mut SetStepReport,
    /// The instances' handles in [`ScriptedRun::instances`] order.
    pub instances: &'a [InstanceHandle],
    /// The run's world, after the step's safe points.
    pub physics: &'a rapier3d::prelude::PhysicsWorld,
    /// The run's held parts.
    pub held: &'a HeldParts,
    /// The vehicles' bodies, in [`ScriptedRun::vehicles`] order.
    pub vehicles: &'a [VehicleBodies],
    /// The held parts' damage events committed at the end of this step.
    pub held_events: &'a [HeldDamageEvent],
    /// What the bounded stepper did this frame (`None` without one).
    pub frame: Option<FrameOutcome>,
    /// Wall time of the step, s: the world's step (all its trials under the
    /// bounded stepper) and the safe points of the set and the held parts,
    /// without the recording. For benchmarks only; nothing depends on it.
    pub step_seconds: f64,
}

/// Trial steps of the bounded stepper in a scripted run: a Rapier step with
/// the set's events; a rolled-back trial's events are dropped.
struct SetTrials<'a> {
    set: &'a DestructionSet,
    mark: (usize, usize),
}

impl FrameStep for SetTrials<'_> {
    fn step(&mut self, physics: &mut rapier3d::prelude::PhysicsWorld) {
        self.mark = self.set.events().mark();
        physics.step_with_events(&(), self.set.events());
    }
    fn reject(&mut self) {
        self.set.events().truncate(self.mark);
    }
}

/// Checks the vehicles, the stepper and landing settings and the launches of `scenario`
/// before anything is simulated: each launch's vehicle, launcher and
/// projectile index must exist, and no projectile may be named twice.
fn check_vehicles(scenario: &ScriptedRun) -> Result<Option<BoundedStepper>, RunError> {
    for (k, v) in scenario.vehicles.iter().enumerate() {
        v.validate()
            .map_err(|source| RunError::Vehicle { vehicle: k, source })?;
    }
    let stepper = scenario.substep.map(BoundedStepper::new).transpose()?;
    if stepper.is_some() && scenario.resolve_breaks {
        return Err(RunError::SubstepWithResolveBreaks);
    }
    if let Some(landing) = scenario.landing {
        landing.validate()?;
        if stepper.is_some() {
            return Err(RunError::LandingWithSubstep);
        }
    }
    let steps = scenario.steps;
    // Launches so far per (vehicle, launcher), and the projectiles named so
    // far: one pass, O(L log L).
    let mut per_launcher = std::collections::BTreeMap::<(u32, u32), usize>::new();
    let mut named = std::collections::BTreeSet::<(u32, u32, u32)>::new();
    for (k, l) in scenario.launches.iter().enumerate() {
        if l.step >= steps {
            return Err(RunError::LaunchAfterEnd {
                launch: k,
                step: l.step,
                steps,
            });
        }
        let target = |source| RunError::LaunchTarget {
            launch: k,
            vehicle: l.vehicle,
            launcher: l.launcher,
            source,
        };
        let desc = scenario
            .vehicles
            .get(l.vehicle as usize)
            .and_then(|v| v.launchers.get(l.launcher as usize))
            .ok_or(target(HeldError::UnknownLauncher(crate::LauncherId(
                l.launcher,
            ))))?;
        let count = desc.parts.len() as u32;
        if let Some(p) = l.projectile {
            if p >= count {
                return Err(target(HeldError::ProjectileOutOfRange {
                    projectile: p,
                    count,
                }));
            }
            if !named.insert((l.vehicle, l.launcher, p)) {
                return Err(target(HeldError::AlreadyLaunched(p)));
            }
        }
        // More launches from one launcher than it holds parts can never all
        // succeed: refused here, not at the step that runs dry.
        let launches_so_far = per_launcher.entry((l.vehicle, l.launcher)).or_insert(0);
        *launches_so_far += 1;
        if *launches_so_far > count as usize {
            return Err(target(HeldError::NoAmmunition(crate::LauncherId(
                l.launcher,
            ))));
        }
        if !l.impulse.is_finite() {
            return Err(target(HeldError::Detach(crate::DetachError::NonFinite)));
        }
    }
    Ok(stepper)
}

impl RunStep<'_> {
    /// Takes the step's commit records of instance `h` out of the report
    /// (in commit order; empty when it committed nothing). O(1).
    pub fn take_records(&mut self, h: InstanceHandle) -> Vec<smithereens_core::CommitRecord> {
        self.report
            .instances
            .get_mut(&h)
            .map(|r| std::mem::take(&mut r.records))
            .unwrap_or_default()
    }
}

/// Runs a scripted run. `progress(step, total)` is called after every step.
///
/// # Errors
/// As [`run_observed`].
pub fn run(
    scenario: &ScriptedRun,
    progress: &mut dyn FnMut(u32, u32),
) -> Result<(RunRecord, RunSummary), RunError> {
    run_observed(scenario, progress, &mut |_| {})
}

/// [`run`], showing `observe` every step's report and the set right after
/// the step was recorded (before `progress`). The observer runs between
/// steps: it may take its time (a server paces the run and talks to the
/// network there) and takes what it wants from the report.
///
/// # Errors
/// [`RunError`] for an invalid asset, bad settings, projectile or plain
/// body, more than [`smithereens_core::record::MAX_RUN_STEPS`] steps, a
/// projectile or explosion scheduled at or after the last step, an
/// explosion naming a missing instance, or a failed commit. Everything
/// but a failed commit is found before anything is simulated.
pub fn run_observed(
    scenario: &ScriptedRun,
    progress: &mut dyn FnMut(u32, u32),
    observe: &mut dyn FnMut(RunStep<'_>),
) -> Result<(RunRecord, RunSummary), RunError> {
    let settings = &scenario.settings;
    settings.validate()?;
    let steps = scenario.steps;
    if steps > smithereens_core::record::MAX_RUN_STEPS {
        return Err(RunError::TooManySteps { steps });
    }
    if let Some((k, p)) = (scenario.projectiles.iter().enumerate()).find(|(_, p)| p.step >= steps) {
        return Err(RunError::ProjectileAfterEnd {
            projectile: k,
            step: p.step,
            steps,
        });
    }
    if let Some((k, e)) = (scenario.explosions.iter().enumerate()).find(|(_, e)| e.step >= steps) {
        return Err(RunError::ExplosionAfterEnd {
            explosion: k,
            step: e.step,
            steps,
        });
    }
    for (k, e) in scenario.explosions.iter().enumerate() {
        if e.instance as usize >= scenario.instances.len() {
            return Err(RunError::ExplosionTarget {
                explosion: k,
                instance: e.instance,
                count: scenario.instances.len(),
            });
        }
    }
    for b in &scenario.bodies {
        b.validate()?;
    }
    let mut stepper = check_vehicles(scenario)?;
    let mut physics = new_physics_world(settings);
    if let Some(d) = scenario.prediction_distance {
        if !(d.is_finite() && d > 0.0 && d <= 1.0) {
            return Err(BackendError::BadSetting {
                name: "prediction_distance",
                value: d,
                reason: "finite, in (0, 1] m",
            }
            .into());
        }
        physics
            .integration_parameters
            .normalized_prediction_distance = d;
    }
    let mut set = DestructionSet::new(settings.destruction())?;
    // Render-only debris lands on the run's ground.
    set.set_debris_settings(settings.debris())?;
    let mut record = RunRecord::new(scenario.name.clone(), settings.timestep);
    record.ground_y = settings.ground_y;
    let mut rec = Recorder::new(record);
    // The ground first: inserted after the chunks, it let bridge chunks sink 18 cm.
    if let Some(y) = settings.ground_y {
        insert_ground(&mut physics, y, settings.friction);
    }
    // Validate each distinct asset file once; instances of it share the Arc<Asset>.
    let mut assets: Vec<(&Arc<AssetFile>, Arc<Asset>)> = Vec::new();
    let mut handles: Vec<InstanceHandle> = Vec::with_capacity(scenario.instances.len());
    for inst in &scenario.instances {
        let asset = match assets.iter().find(|(f, _)| Arc::ptr_eq(f, &inst.asset)) {
            Some((_, a)) => a.clone(),
            None => {
                let a = Arc::new(inst.asset.validate()?);
                assets.push((&inst.asset, a.clone()));
                a
            }
        };
        let h = set.spawn(
            &mut physics,
            asset.clone(),
            inst.placement,
            inst.desc.clone(),
        )?;
        if let Some(desc) = &inst.stress {
            set.enable_stress(&mut physics, h, desc.clone())?;
        }
        rec.add_instance(h, &asset, &inst.asset);
        handles.push(h);
    }
    for b in &scenario.bodies {
        let rb = insert_plain_body(&mut physics, b, settings.friction, settings.restitution)?;
        rec.add_plain(
            rb,
            RunPlainBody {
                shape: b.shape,
                kind: b.kind,
                first_frame: 0,
                poses: Vec::new(),
            },
        );
    }
    let mut held = HeldParts::with_impact(settings.impact)?;
    let mut vehicles = Vec::with_capacity(scenario.vehicles.len());
    for (k, v) in scenario.vehicles.iter().enumerate() {
        let bodies = insert_vehicle(&mut physics, &mut held, v, settings.friction)
            .map_err(|source| RunError::Vehicle { vehicle: k, source })?;
        rec.add_vehicle(v, &bodies, &held);
        vehicles.push(bodies);
    }
    rec.capture(&set, &physics, &held);
    // Load time: the first frame must not pay Rapier's first-step
    // allocations (the state is unchanged, see `warm_up`).
    crate::substep::warm_up(&mut physics);

    let mut vehicle_launches: Vec<(usize, &ScheduledLaunch)> =
        scenario.launches.iter().enumerate().collect();
    vehicle_launches.sort_by_key(|(k, l)| (l.step, *k));
    let mut next_vehicle_launch = 0;
    let mut held_events = Vec::new();
    let mut launched = 0usize;

    let mut step_times = Vec::with_capacity(scenario.steps as usize);
    let mut destruction_worst = 0.0f64;
    let mut events = 0usize;
    let mut launches: Vec<&ScheduledProjectile> = scenario.projectiles.iter().collect();
    launches.sort_by_key(|p| p.step);
    let mut next_launch = 0;
    let mut max_speed = 0.0f32;
    let mut wedged = std::collections::BTreeSet::new();
    // Frame 0 counts too: every recorded frame is in the minimum.
    let mut lowest_ever = lowest_chunk_point(&physics, &set).unwrap_or(f32::INFINITY);
    let mut non_finite_steps = 0u32;
    let mut landing_substeps = 0u64;
    let mut last_step_dt = physics.integration_parameters.dt;
    let mut blasts: Vec<&ScheduledExplosion> = scenario.explosions.iter().collect();
    blasts.sort_by_key(|e| e.step);
    let mut next_blast = 0;
    for step in 0..scenario.steps {
        while let Some(p) = launches.get(next_launch).filter(|p| p.step <= step) {
            let rb = insert_projectile(
                &mut physics,
                &p.projectile,
                settings.friction,
                settings.restitution,
            )?;
            rec.projectiles.push(rb);
            // The projectile's pose at spawn time stands for the frame before its first step.
            rec.record.projectiles.push(RunProjectile {
                radius: p.projectile.radius,
                first_frame: rec.frame.saturating_sub(1),
                poses: vec![pose_to_array(&Pose::from_translation(
                    p.projectile.position,
                ))],
            });
            next_launch += 1;
        }
        while let Some(e) = blasts.get(next_blast).filter(|e| e.step <= step) {
            let x = e.explosion;
            set.explode(&physics, handles[e.instance as usize], x)
                .map_err(|err| match err {
                    SetAdmitError::Damage(d) => RunError::Explosion(d),
                    SetAdmitError::Instance(b) => RunError::Backend(b),
                })?;
            events += 1;
            rec.record.events.push(RunEvent {
                frame: rec.frame,
                id: x.id.0,
                point: x.point,
                radius: x.radius,
                damage: x.damage,
                inner_radius: Some(x.inner_radius),
            });
            next_blast += 1;
        }
        while let Some(&(k, l)) = vehicle_launches
            .get(next_vehicle_launch)
            .filter(|(_, l)| l.step <= step)
        {
            launch(&mut physics, &mut held, &mut vehicles, l).map_err(|source| {
                RunError::Launch {
                    launch: k,
                    vehicle: l.vehicle,
                    launcher: l.launcher,
                    step,
                    source,
                }
            })?;
            launched += 1;
            next_vehicle_launch += 1;
        }
        for v in &vehicles {
            v.apply_drive(&mut physics);
        }
        let t = Instant::now();
        let mut frame = None;
        let substeps = scenario.landing.map_or(1, |l| l.substeps(&physics));
        landing_substeps += u64::from(substeps - 1);
        let frame_dt = physics.integration_parameters.dt;
        let warmstart = physics.integration_parameters.warmstart_coefficient;
        let step_dt = frame_dt / substeps as f32;
        physics.integration_parameters.dt = step_dt;
        // The first sub-step's report is the frame's; later ones merge in.
        let mut report: Option<SetStepReport> = None;
        held_events.clear();
        for sub in 0..substeps {
            // Rapier warm-starts each contact and joint with the impulse of
            // the step before, which scales with the step length: on a
            // shorter step it is scaled down (scaling it up on the longer
            // step after overshot: see `crate::landing`). A failed commit
            // in a sub-step is reported after the frame's last sub-step.
            physics.integration_parameters.warmstart_coefficient = if sub == 0 {
                warmstart * (step_dt / last_step_dt).min(1.0)
            } else {
                warmstart
            };
            let sub = if let Some(stepper) = stepper.as_mut() {
                set.before_step(&physics);
                let mut trials = SetTrials {
                    set: &set,
                    mark: (0, 0),
                };
                frame = Some(stepper.step_with(&mut physics, &mut trials));
                set.after_step(&mut physics)
            } else if scenario.resolve_breaks {
                set.step_resolving_breaks(&mut physics, &mut |physics, events| {
                    physics.step_with_events(&(), events);
                })
            } else {
                set.before_step(&physics);
                physics.step_with_events(&(), set.events());
                set.after_step(&mut physics)
            };
            match report.as_mut() {
                Some(r) => r.absorb(sub),
                None => report = Some(sub),
            }
            if held.launcher_count() > 0 {
                held.after_step(&physics);
                held.commit_damage(&mut physics, &mut held_events);
            }
        }
        physics.integration_parameters.dt = frame_dt;
        physics.integration_parameters.warmstart_coefficient = warmstart;
        last_step_dt = step_dt;
        let mut report = report.unwrap_or_default();
        let step_seconds = t.elapsed().as_secs_f64();
        step_times.push(step_seconds);
        if let Some((_, e)) = report.failed.pop() {
            return Err(StepError::Commit(e).into());
        }
        destruction_worst = destruction_worst.max(report.destruction_seconds);
        let health = health_check(&physics, &set);
        max_speed = max_speed.max(health.max_speed);
        lowest_ever = lowest_ever.min(health.lowest_chunk_y);
        non_finite_steps += u32::from(health.non_finite_bodies > 0);
        // Report entries come in handle order; record them in spawn order.
        let mut reports: Vec<(usize, &crate::InstanceReport)> = report
            .instances
            .iter()
            .filter_map(|(h, r)| rec.index_of.get(h).map(|&k| (k, r)))
            .collect();
        reports.sort_by_key(|&(k, _)| k);
        for (k, r) in reports {
            let h = rec.instances[k].handle;
            wedged.extend(r.wedged.iter().map(|&c| (h, c)));
            for e in &r.events {
                events += 1;
                rec.record.events.push(RunEvent {
                    frame: rec.frame,
                    id: e.id.0,
                    point: e.point,
                    radius: e.reach(),
                    damage: e.damage(),
                    inner_radius: None,
                });
            }
            let offset = rec.instances[k].bond_offset;
            for b in &r.broken {
                rec.record.breaks.push(RunBreak {
                    frame: rec.frame,
                    bond: offset + b.0,
                });
            }
            if r.stress.is_some_and(|s| s.solves > 0)
                && let Ok(Some(stress)) = set.stress(h)
            {
                for &(b, u) in stress.utilisation_changes() {
                    rec.record.bond_stress.push(RunBondStress {
                        frame: rec.frame,
                        bond: offset + b.0,
                        utilisation: u,
                    });
                }
            }
        }
        rec.capture(&set, &physics, &held);
        observe(RunStep {
            step: step + 1,
            steps: scenario.steps,
            set: &set,
            report: &mut report,
            instances: &handles,
            physics: &physics,
            held: &held,
            vehicles: &vehicles,
            held_events: &held_events,
            frame,
            step_seconds,
        });
        progress(step + 1, scenario.steps);
    }
    let mut sorted = step_times.clone();
    sorted.sort_by(f64::total_cmp);
    let mut summary = RunSummary {
        instances: handles.len(),
        assets: assets.len(),
        instances_broken: 0,
        chunks: rec.record.chunks.len(),
        bonds: rec.record.bonds.len(),
        events,
        bonds_broken: 0,
        islands: 0,
        dynamic_bodies: 0,
        bodies_created: rec.record.bodies.len(),
        simulated_seconds: scenario.steps as f64 * settings.timestep as f64,
        step_median_seconds: sorted.get(sorted.len() / 2).copied().unwrap_or(0.0),
        step_worst_seconds: sorted.last().copied().unwrap_or(0.0),
        destruction_worst_seconds: destruction_worst,
        lowest_chunk_y: lowest_chunk_point(&physics, &set).unwrap_or(0.0),
        lowest_chunk_y_ever: if lowest_ever.is_finite() {
            lowest_ever
        } else {
            0.0
        },
        max_speed,
        non_finite_steps,
        final_hash: rec.state_hash(&set, &physics, &held),
        vehicles: vehicles.len(),
        launches: launched,
        held_parts_broken: (0..held.launcher_count())
            .map(|l| {
                let id = crate::LauncherId(l);
                let n = held.desc(id).map_or(0, |d| d.parts.len() as u32);
                (0..n)
                    .filter(|&i| held.status(id, i) == Some(PartStatus::Broken))
                    .count()
            })
            .sum(),
        substep: stepper.map(|s| *s.diagnostics()),
        landing_substeps,
        wedged: wedged.len(),
        stuck: rec.stuck(&set, &physics),
    };
    for &h in &handles {
        if let (Ok(i), Ok(bodies)) = (set.instance(h), set.cluster_bodies(h)) {
            summary.bonds_broken += i.broken_count();
            summary.instances_broken += usize::from(i.broken_count() > 0);
            summary.islands += i.cluster_count();
            summary.dynamic_bodies += bodies
                .values()
                .filter(|&&rb| physics.bodies.get(rb).is_some_and(|b| b.is_dynamic()))
                .count();
        }
    }
    Ok((rec.record, summary))
}

/// Runs one scheduled launch: the next ready part (or the one named) of
/// the vehicle's launcher leaves with the impulse turned from the chassis
/// frame into the world.
fn launch(
    physics: &mut rapier3d::prelude::PhysicsWorld,
    held: &mut HeldParts,
    vehicles: &mut [VehicleBodies],
    l: &ScheduledLaunch,
) -> Result<(), HeldError> {
    let unknown = HeldError::UnknownLauncher(crate::LauncherId(l.launcher));
    let v = vehicles
        .get_mut(l.vehicle as usize)
        .ok_or(unknown.clone())?;
    let rotation = physics
        .bodies
        .get(v.chassis)
        .map_or(glam::Quat::IDENTITY, |b| *b.rotation());
    let impulse = rotation * l.impulse;
    if let Some(&id) = v.launchers.get(l.launcher as usize) {
        let projectile = match l.projectile {
            Some(p) => p,
            None => held.next_ready(id).ok_or(HeldError::NoAmmunition(id))?,
        };
        held.launch(physics, id, projectile, impulse, None)?;
        return Ok(());
    }
    let parts = v.jointed.get(l.launcher as usize).ok_or(unknown)?;
    let projectile = match l.projectile {
        Some(p) => p,
        None => parts
            .iter()
            .position(|p| p.joint.is_some())
            .ok_or(HeldError::NoAmmunition(crate::LauncherId(l.launcher)))? as u32,
    };
    v.launch_jointed(physics, l.launcher, projectile, impulse)?;
    Ok(())
}

/// Placement that stands an asset on the plane y = `ground_y`: its lowest
/// chunk-hull point touches the plane, centred over the origin in x and z.
pub fn stand_on_ground(asset: &Asset, ground_y: f32) -> Pose {
    let mut lo = glam::Vec3::splat(f32::INFINITY);
    let mut hi = glam::Vec3::splat(f32::NEG_INFINITY);
    for c in asset.chunks().iter() {
        for p in c.hulls.iter().flat_map(|h| &h.points) {
            lo = lo.min(*p);
            hi = hi.max(*p);
        }
    }
    if !lo.is_finite() || !hi.is_finite() {
        return Pose::IDENTITY;
    }
    let centre = (lo + hi) * 0.5;
    Pose::from_translation(glam::Vec3::new(-centre.x, ground_y - lo.y, -centre.z))
}
