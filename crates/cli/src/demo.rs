//! The built-in demo: fracture a real mesh shipped with the tool (Spot, by
//! Keenan Crane, CC0), stand it on the ground, fire projectiles at it,
//! simulate at a fixed step, and record the run.

use smithereens_authoring::{
    FractureSettings, OpenMeshFallback, Progress, RepairOptions, RepairReport, TriMesh,
    import::parse_obj, load_mesh_with,
};
use smithereens_core::record::RunRecord;
use smithereens_core::{AssetFile, glam::Vec3};
use smithereens_rapier::recorded_run::{
    RunSummary, ScheduledProjectile, ScriptedRun, run, stand_on_ground,
};
use smithereens_rapier::{ProjectileDesc, WorldSettings};
use std::path::{Path, PathBuf};

/// The built-in mesh: `assets/meshes/spot.obj` (CC0, Keenan Crane), embedded.
pub const SPOT_OBJ: &[u8] = include_bytes!("../../../assets/meshes/spot.obj");

/// Options of the demo; `Default` is what `smithereens demo` runs.
#[derive(Clone, Debug, PartialEq)]
pub struct DemoOptions {
    /// A mesh to use instead of the built-in one.
    pub mesh: Option<PathBuf>,
    /// Voronoi chunk count.
    pub chunks: u32,
    /// Fracture seed.
    pub seed: u64,
    /// Fixed steps to simulate (at 60 Hz).
    pub steps: u32,
    /// Projectile mass, kg.
    pub projectile_mass: f32,
    /// Projectile speed, m/s.
    pub projectile_speed: f32,
    /// What to do with a `mesh` that is still open after cleanup.
    pub open_fallback: OpenMeshFallback,
}

impl Default for DemoOptions {
    fn default() -> Self {
        Self {
            mesh: None,
            chunks: 48,
            seed: 7,
            steps: 240,
            projectile_mass: 150.0,
            projectile_speed: 30.0,
            open_fallback: OpenMeshFallback::Reject,
        }
    }
}

/// What the demo produced.
#[derive(Clone, Debug)]
pub struct DemoOutput {
    /// The fractured asset.
    pub asset: AssetFile,
    /// The recorded run.
    pub record: RunRecord,
    /// What loading `mesh` repaired (`None` for the built-in Spot).
    pub repair: Option<RepairReport>,
    /// Counts and timings.
    pub summary: RunSummary,
}

/// Errors of the demo.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// The mesh could not be loaded.
    #[error("mesh")]
    Mesh(#[from] smithereens_authoring::MeshError),
    /// Fracture failed.
    #[error("fracture")]
    Fracture(#[from] smithereens_authoring::FractureError),
    /// Simulation failed.
    #[error("simulation")]
    Scenario(#[from] smithereens_rapier::recorded_run::RunError),
}

/// Loads the demo mesh: `path` (repaired, with `open_fallback` for a mesh
/// that stays open), or the embedded Spot.
///
/// # Errors
/// [`DemoError::Mesh`].
pub fn demo_mesh(
    path: Option<&Path>,
    open_fallback: OpenMeshFallback,
) -> Result<(TriMesh, Option<RepairReport>), DemoError> {
    Ok(match path {
        Some(p) => {
            let options = RepairOptions {
                open_fallback,
                ..RepairOptions::default()
            };
            let (mesh, report) = load_mesh_with(p, &options)?;
            (mesh, Some(report))
        }
        None => (parse_obj(SPOT_OBJ, Path::new("spot.obj"))?, None),
    })
}

/// Builds the demo scenario from a fractured asset: stood on y = 0, three
/// projectiles fired along +X at the upper half, 1 s apart (those that
/// fall within `options.steps`).
pub fn demo_scenario(asset: AssetFile, options: &DemoOptions) -> Result<ScriptedRun, DemoError> {
    let validated = asset
        .validate()
        .map_err(smithereens_rapier::recorded_run::RunError::from)?;
    let placement = stand_on_ground(&validated, 0.0);
    let (lo, hi) = world_bounds(&validated, &placement);
    let size = hi - lo;
    let targets = [(0.55, 0.5), (0.7, 0.25), (0.45, 0.75)];
    let projectiles = targets
        .iter()
        .enumerate()
        // A shortened demo fires only the shots that fall inside it (a
        // projectile after the end is an error for `run`).
        .filter(|&(k, _)| (k as u32 * 60) < options.steps)
        .map(|(k, &(fy, fz))| ScheduledProjectile {
            step: k as u32 * 60,
            projectile: ProjectileDesc {
                position: Vec3::new(lo.x - 1.0, lo.y + fy * size.y, lo.z + fz * size.z),
                velocity: Vec3::new(options.projectile_speed, 0.0, 0.0),
                radius: 0.2,
                mass: options.projectile_mass,
            },
        })
        .collect();
    let settings = WorldSettings::default();
    let mut scenario = ScriptedRun::single(
        asset.name.clone(),
        asset,
        placement,
        settings,
        options.steps,
    );
    scenario.projectiles = projectiles;
    // Tumbling debris: contacts predicted 5 cm ahead, as in the town
    // scenario (see `ScriptedRun::prediction_distance`).
    scenario.prediction_distance = Some(0.05);
    // The breaking step is re-run against the freed pieces, so the balls
    // carry on through them and what they free leaves the statue (issue
    // 11, items 2 and 3).
    scenario.resolve_breaks = true;
    Ok(scenario)
}

fn world_bounds(
    asset: &smithereens_core::Asset,
    placement: &smithereens_core::Pose,
) -> (Vec3, Vec3) {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for p in asset
        .chunks()
        .iter()
        .flat_map(|c| c.hulls.iter().flat_map(|h| &h.points))
    {
        let w = placement.transform_point(*p);
        lo = lo.min(w);
        hi = hi.max(w);
    }
    (lo, hi)
}

/// Runs the whole demo. `on_fracture` and `on_step` report progress.
///
/// # Errors
/// [`DemoError`] from loading, fracture or simulation;
/// [`DemoError::Scenario`] with
/// [`RunError::TooManySteps`](smithereens_rapier::recorded_run::RunError::TooManySteps)
/// before any work when `steps` exceeds
/// [`MAX_RUN_STEPS`](smithereens_core::record::MAX_RUN_STEPS).
pub fn run_demo(
    options: &DemoOptions,
    on_fracture: &mut dyn FnMut(Progress),
    on_step: &mut dyn FnMut(u32, u32),
) -> Result<DemoOutput, DemoError> {
    // The cap `run` enforces, checked before the fracture's minutes of work.
    if options.steps > smithereens_core::record::MAX_RUN_STEPS {
        return Err(smithereens_rapier::recorded_run::RunError::TooManySteps {
            steps: options.steps,
        }
        .into());
    }
    let (mesh, repair) = demo_mesh(options.mesh.as_deref(), options.open_fallback)?;
    let settings = FractureSettings {
        chunk_count: options.chunks,
        seed: options.seed,
        ..FractureSettings::default()
    };
    let mut asset = smithereens_authoring::fracture_voronoi(&mesh, &settings, on_fracture)?;
    if asset.name.is_empty() {
        asset.name = options
            .mesh
            .as_ref()
            .and_then(|p| p.file_stem())
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "spot".into());
    }
    let scenario = demo_scenario(asset.clone(), options)?;
    let (mut record, summary) = run(&scenario, on_step)?;
    record.engine = Some(crate::ENGINE.into());
    Ok(DemoOutput {
        asset,
        record,
        repair,
        summary,
    })
}
