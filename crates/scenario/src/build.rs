//! Scenario file → runnable [`ScriptedRun`].

use crate::error::ScenarioFileError;
use crate::file::{AssetSource, BodyKind, BodyShape, BodySpec, ScenarioFile, Supports};
use glam::{DVec3, EulerRot, Quat, Vec3};
use smithereens_authoring::{
    BondRule, FractureSettings, Pattern, Progress, SliceSettings, SupportRule, fracture,
    fracture_voronoi, load_mesh, mesh_from_triangles,
};
use smithereens_core::instance::InstanceId;
use smithereens_core::{AssetFile, BondEnd, EventId, Pose};
use smithereens_rapier::recorded_run::{
    PlainBodyDesc, PlainMass, RunBodyKind, RunInstance, RunShape, ScheduledExplosion,
    ScheduledLaunch, ScheduledProjectile, ScriptedRun, VehicleDesc, WheelDesc, stand_on_ground,
};
use smithereens_rapier::{
    Explosion, HeldPartDesc, LauncherDesc, PartMaterial, ProjectileDesc, WorldSettings,
};
use std::path::Path;
use std::sync::Arc;

/// A scenario ready to run, with the assets it fractured or loaded.
#[derive(Clone, Debug)]
pub struct BuiltScenario {
    /// The runtime scenario.
    pub scenario: ScriptedRun,
}

/// Distance within which a chunk counts as touching a support plane, m.
const SUPPORT_TOLERANCE: f32 = 0.01;

/// One distinct asset of a scenario: its source, support rule and result.
struct Fractured<'a> {
    source: &'a AssetSource,
    file: Arc<AssetFile>,
    asset: smithereens_core::Asset,
}

/// Builds the assets (fracturing a box or mesh, or reading an asset file
/// relative to `base_dir`), applies each instance's support rule and
/// placement, places the plain bodies, and schedules projectiles and
/// explosions at `floor(time / timestep)`. Instances with the same source
/// (same box, mesh or file, same seed and fracture settings) and support
/// rule share one fractured asset (one `Arc<AssetFile>`): fracture once,
/// place many. Instance `k` gets id `k`; explosion `k` gets event id `k`
/// (contact damage uses ids with the top bit set, so the two never collide).
///
/// # Errors
/// Any [`ScenarioFileError`].
pub fn build(
    file: &ScenarioFile,
    base_dir: &Path,
    progress: &mut dyn FnMut(Progress),
) -> Result<BuiltScenario, ScenarioFileError> {
    file.validate()?;
    let mut fractured: Vec<Fractured<'_>> = Vec::new();
    let mut instances = Vec::new();
    for (k, (field, a)) in file.instance_sources().enumerate() {
        let shared = fractured.iter().position(|f| same_asset(f.source, a));
        let index = match shared {
            Some(i) => i,
            None => {
                let mut asset = load_asset(a, base_dir, progress)?;
                asset.name = file.name.clone();
                apply_supports(&mut asset, a.supports);
                let validated = asset.validate()?;
                fractured.push(Fractured {
                    source: a,
                    file: Arc::new(asset),
                    asset: validated,
                });
                fractured.len() - 1
            }
        };
        let f = &fractured[index];
        let base = if a.stand_on_ground {
            stand_on_ground(&f.asset, file.ground_y)
        } else {
            Pose::IDENTITY
        };
        let user = Pose {
            rotation: rotation(a.rotation_deg),
            translation: Vec3::from_array(a.translation),
        };
        let mut instance = RunInstance::new(f.file.clone(), user.mul(&base));
        instance.desc.id = InstanceId(k as u64);
        instance.stress = match &a.stress {
            Some(s) => Some(s.desc(&format!("{field}.stress"))?),
            None => None,
        };
        instances.push(instance);
    }

    let ground_y = file.ground.then_some(file.ground_y);
    let mut settings = WorldSettings {
        timestep: file.timestep,
        gravity: Vec3::from_array(file.gravity),
        ground_y,
        ..WorldSettings::default()
    };
    settings.solver_iterations = file.solver_iterations.unwrap_or(settings.solver_iterations);
    settings.pgs_iterations = file.pgs_iterations.unwrap_or(settings.pgs_iterations);
    settings.warmstart_joints = file.warmstart_joints.unwrap_or(settings.warmstart_joints);
    settings.ccd = file.ccd.unwrap_or(settings.ccd);
    settings.contact_frequency = file.contact_frequency.unwrap_or(settings.contact_frequency);
    let i = &file.impact;
    settings.impact.damage_per_impulse = i
        .damage_per_impulse
        .unwrap_or(settings.impact.damage_per_impulse);
    settings.impact.threshold = i.threshold.unwrap_or(settings.impact.threshold);
    settings.impact.max_rings = i.max_rings.unwrap_or(settings.impact.max_rings);
    settings.impact.min_approach_speed = i
        .min_approach_speed
        .unwrap_or(settings.impact.min_approach_speed);
    settings
        .validate()
        .map_err(|e| ScenarioFileError::Invalid {
            field: "impact".into(),
            problem: e.to_string(),
        })?;

    let bodies = file
        .bodies
        .iter()
        .enumerate()
        .map(|(k, b)| plain_body(k, b))
        .collect::<Result<Vec<_>, _>>()?;
    let step_of = |t: f32| (t / file.timestep).floor() as u32;
    let projectiles = file
        .projectiles
        .iter()
        .map(|p| ScheduledProjectile {
            step: step_of(p.time),
            projectile: ProjectileDesc {
                position: Vec3::from_array(p.position),
                velocity: Vec3::from_array(p.velocity),
                radius: p.radius,
                mass: p.mass,
            },
        })
        .collect();
    let explosions = file
        .explosions
        .iter()
        .enumerate()
        .map(|(k, e)| ScheduledExplosion {
            step: step_of(e.time),
            instance: e.instance,
            explosion: Explosion {
                id: EventId(k as u64),
                point: Vec3::from_array(e.point),
                radius: e.radius,
                damage: e.damage,
                impulse: e.impulse,
                inner_radius: e.inner_radius,
            },
        })
        .collect();
    let mut scenario = ScriptedRun::new(file.name.clone(), settings, file.steps());
    scenario.instances = instances;
    scenario.bodies = bodies;
    scenario.projectiles = projectiles;
    scenario.explosions = explosions;
    scenario.prediction_distance = file.prediction_distance;
    scenario.resolve_breaks = file.resolve_breaks;
    scenario.vehicles = (0..file.vehicles.len())
        .map(|k| vehicle(file, k))
        .collect::<Result<_, _>>()?;
    scenario.launches = file
        .launches
        .iter()
        .map(|l| ScheduledLaunch {
            step: step_of(l.time),
            vehicle: l.vehicle,
            launcher: l.launcher,
            projectile: l.projectile,
            impulse: Vec3::from_array(l.impulse),
        })
        .collect();
    scenario.substep = file.substep.as_ref().map(|s| s.settings());
    Ok(BuiltScenario { scenario })
}

/// Vehicle `k` of a validated file, its `like` resolved.
fn vehicle(file: &ScenarioFile, k: usize) -> Result<VehicleDesc, ScenarioFileError> {
    let v = &file.vehicles[k];
    let b = crate::vehicle::build_of(&file.vehicles, k);
    let missing = |n: &str| ScenarioFileError::Invalid {
        field: format!("vehicles[{k}].{n}"),
        problem: "is required".into(),
    };
    let size = b.size.ok_or_else(|| missing("size"))?;
    let launchers = b
        .launchers
        .iter()
        .enumerate()
        .map(|(l, spec)| {
            let parts = spec
                .parts
                .iter()
                .enumerate()
                .map(|(p, part)| {
                    let shape =
                        part.part_shape(&format!("vehicles[{k}].launchers[{l}].parts[{p}]"))?;
                    Ok(HeldPartDesc {
                        shape,
                        material: PartMaterial {
                            friction: part.friction,
                            restitution: part.restitution,
                        },
                        mass: part.mass,
                        pose: smithereens_rapier::convert::to_rapier(&Pose {
                            rotation: rotation(part.rotation_deg),
                            translation: Vec3::from_array(part.position),
                        }),
                        health: part.health,
                    })
                })
                .collect::<Result<Vec<_>, ScenarioFileError>>()?;
            Ok(Arc::new(LauncherDesc {
                weapon: spec.weapon,
                parts,
                independent_durability: v
                    .independent_durability
                    .unwrap_or(spec.independent_durability),
                weapon_health: spec.weapon_health,
            }))
        })
        .collect::<Result<Vec<_>, ScenarioFileError>>()?;
    Ok(VehicleDesc {
        pose: Pose {
            rotation: rotation(v.rotation_deg),
            translation: Vec3::from_array(v.position),
        },
        velocity: Vec3::from_array(v.velocity),
        half_extents: Vec3::from_array(size) * 0.5,
        mass: b.mass.ok_or_else(|| missing("mass"))?,
        wheels: b
            .wheels
            .iter()
            .map(|w| WheelDesc {
                anchor: Vec3::from_array(w.position),
                radius: w.radius,
                half_width: w.width * 0.5,
                mass: w.mass,
                friction: w.friction,
            })
            .collect(),
        drive: Vec3::from_array(v.drive.or(b.drive).unwrap_or([0.0; 3])),
        brake: v.brake,
        launchers,
        hold: v.hold_design(k)?,
    })
}

/// Whether two instance sources make the same asset (placement aside).
fn same_asset(a: &AssetSource, b: &AssetSource) -> bool {
    a.box_ == b.box_ && a.mesh == b.mesh && a.file == b.file && a.supports == b.supports
}

/// Fractures the box or mesh of `a`, or reads its asset file.
fn load_asset(
    a: &AssetSource,
    base_dir: &Path,
    progress: &mut dyn FnMut(Progress),
) -> Result<AssetFile, ScenarioFileError> {
    let voronoi = |chunks, seed, density, strength_per_area| FractureSettings {
        chunk_count: chunks,
        seed,
        density,
        strength_per_area,
        support: SupportRule::None,
        cut_noise: None,
        bonds: BondRule::Detect,
        // A scenario file's assets are a recipe that recordings and
        // `replay --verify` depend on: they keep the carving they were made
        // with (every cell from the whole mesh) now that the library's
        // default carves from shared regions. Same chunks and bonds either
        // way; the interior triangulation, and with it the last bits of
        // each chunk's mass properties, differ.
        shared_regions: false,
        // Likewise the seam vertices of block grids stay (issue 17's seam
        // dissolve came later).
        dissolve_seams: false,
        // And the carved vertices and sampled sites: the short-edge
        // collapse (issue 17 item 2) became the default later still.
        collapse_short_edges: false,
        ..FractureSettings::default()
    };
    if let Some(b) = &a.box_ {
        let mesh = box_mesh(b.size)?;
        // A grid's chunk count is its block count (the slice pattern ignores it).
        let chunks = b.blocks.map_or(b.chunks, |n| n.iter().product());
        let settings = voronoi(chunks, b.seed, b.density, b.strength_per_area);
        let mut file = match b.blocks {
            Some(counts) => {
                let pattern = Pattern::Slice(SliceSettings {
                    counts,
                    ..SliceSettings::default()
                });
                fracture(&mesh, &settings, &pattern, progress)?
            }
            None => fracture_voronoi(&mesh, &settings, progress)?,
        };
        carve(&mut file, &b.carve)?;
        Ok(file)
    } else if let Some(m) = &a.mesh {
        let path = base_dir.join(&m.path);
        regular_file(&path)?;
        let mesh = load_mesh(&path)?;
        let settings = voronoi(m.chunks, m.seed, m.density, m.strength_per_area);
        Ok(fracture_voronoi(&mesh, &settings, progress)?)
    } else if let Some(f) = &a.file {
        let path = base_dir.join(f);
        regular_file(&path)?;
        let bytes = std::fs::read(&path).map_err(|source| ScenarioFileError::Io {
            path: path.clone(),
            source,
        })?;
        Ok(AssetFile::from_bytes(&bytes)?)
    } else {
        Err(ScenarioFileError::Invalid {
            field: "asset".into(),
            problem: "needs exactly one of box, mesh, file".into(),
        })
    }
}

/// Refuses a path that is not a regular file (after symlinks; see
/// [`smithereens_authoring::input_file`]).
///
/// # Errors
/// [`ScenarioFileError::Io`] with the metadata error, or
/// [`std::io::ErrorKind::InvalidInput`] for anything but a regular file.
fn regular_file(path: &std::path::Path) -> Result<(), ScenarioFileError> {
    smithereens_authoring::check_input(path).map_err(|source| ScenarioFileError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Takes away the chunks whose centroid lies inside any of `boxes`
/// (`[min xyz, max xyz]`, m, asset frame), with their render meshes and
/// bonds; the rest keep their order. O(chunks × boxes + bonds).
///
/// # Errors
/// [`ScenarioFileError::Invalid`] when nothing is left, or for a fractured
/// hierarchy (carving needs one level).
fn carve(file: &mut AssetFile, boxes: &[[f32; 6]]) -> Result<(), ScenarioFileError> {
    if boxes.is_empty() {
        return Ok(());
    }
    let inside = |p: Vec3| {
        boxes.iter().any(|b| {
            (b[0]..=b[3]).contains(&p.x)
                && (b[1]..=b[4]).contains(&p.y)
                && (b[2]..=b[5]).contains(&p.z)
        })
    };
    if file.desc.chunks.iter().any(|c| c.parent.is_some()) {
        return Err(ScenarioFileError::Invalid {
            field: "box.carve".into(),
            problem: "cannot carve a fracture hierarchy".into(),
        });
    }
    let mut new_index = Vec::with_capacity(file.desc.chunks.len());
    let mut kept = 0u32;
    for c in &file.desc.chunks {
        if inside(c.centroid) {
            new_index.push(None);
        } else {
            new_index.push(Some(kept));
            kept += 1;
        }
    }
    if kept == 0 {
        return Err(ScenarioFileError::Invalid {
            field: "box.carve".into(),
            problem: "takes away every chunk".into(),
        });
    }
    let mut k = 0;
    file.desc.chunks.retain(|_| {
        k += 1;
        new_index[k - 1].is_some()
    });
    let mut k = 0;
    file.meshes.retain(|_| {
        k += 1;
        new_index.get(k - 1).is_some_and(Option::is_some)
    });
    let map = |c: u32| new_index.get(c as usize).copied().flatten();
    file.desc.bonds.retain_mut(|b| {
        let Some(c0) = map(b.chunk0) else {
            return false;
        };
        b.chunk0 = c0;
        match b.chunk1 {
            BondEnd::Chunk(c1) => match map(c1) {
                Some(c1) => {
                    b.chunk1 = BondEnd::Chunk(c1);
                    true
                }
                None => false,
            },
            BondEnd::World => true,
        }
    });
    file.provenance
        .push_str(&format!("; carved by {} boxes", boxes.len()));
    Ok(())
}

/// XYZ Euler angles in degrees as a rotation.
fn rotation(deg: [f32; 3]) -> Quat {
    let [rx, ry, rz] = deg.map(f32::to_radians);
    Quat::from_euler(EulerRot::XYZ, rx, ry, rz)
}

/// A checked plain body (`k` is its index, for error paths).
fn plain_body(k: usize, b: &BodySpec) -> Result<PlainBodyDesc, ScenarioFileError> {
    let shape = match b.body_shape(k)? {
        BodyShape::Box(size) => RunShape::Box {
            half_extents: Vec3::from_array(size) * 0.5,
        },
        BodyShape::Ball(radius) => RunShape::Ball { radius },
    };
    let kind = match b.body_kind(k)? {
        BodyKind::Dynamic => RunBodyKind::Dynamic,
        BodyKind::Kinematic => RunBodyKind::Kinematic,
        BodyKind::Fixed => RunBodyKind::Fixed,
    };
    let mass = match (b.mass, b.density) {
        (Some(m), _) => PlainMass::Mass(m),
        (None, Some(d)) => PlainMass::Density(d),
        (None, None) => PlainMass::Density(DEFAULT_BODY_DENSITY),
    };
    Ok(PlainBodyDesc {
        shape,
        kind,
        pose: Pose {
            rotation: rotation(b.rotation_deg),
            translation: Vec3::from_array(b.position),
        },
        velocity: Vec3::from_array(b.velocity),
        mass,
    })
}

/// Density of a plain body that gives neither mass nor density, kg/m³ (water).
pub const DEFAULT_BODY_DENSITY: f32 = 1000.0;

/// A closed box mesh centred on the origin with the given full extents.
fn box_mesh(size: [f32; 3]) -> Result<smithereens_authoring::TriMesh, ScenarioFileError> {
    let h = DVec3::new(size[0] as f64, size[1] as f64, size[2] as f64) * 0.5;
    let positions: Vec<DVec3> = (0..8)
        .map(|k| {
            DVec3::new(
                if k & 1 == 0 { -h.x } else { h.x },
                if k & 2 == 0 { -h.y } else { h.y },
                if k & 4 == 0 { -h.z } else { h.z },
            )
        })
        .collect();
    // Faces wound counter-clockwise seen from outside.
    let triangles = vec![
        [0, 2, 3],
        [0, 3, 1], // -z
        [4, 5, 7],
        [4, 7, 6], // +z
        [0, 1, 5],
        [0, 5, 4], // -y
        [2, 6, 7],
        [2, 7, 3], // +y
        [0, 4, 6],
        [0, 6, 2], // -x
        [1, 3, 7],
        [1, 7, 5], // +x
    ];
    Ok(mesh_from_triangles(positions, triangles)?)
}

fn apply_supports(asset: &mut AssetFile, rule: Supports) {
    if rule == Supports::Asset {
        return;
    }
    let points = |c: &smithereens_core::ChunkDesc| {
        c.hulls
            .iter()
            .flat_map(|h| h.points.clone())
            .collect::<Vec<Vec3>>()
    };
    let all: Vec<Vec3> = asset.desc.chunks.iter().flat_map(points).collect();
    let lo = all
        .iter()
        .fold(Vec3::splat(f32::INFINITY), |m, p| m.min(*p));
    let hi = all
        .iter()
        .fold(Vec3::splat(f32::NEG_INFINITY), |m, p| m.max(*p));
    // Only support-level chunks may be supports (a hierarchy's ancestors and
    // subsupport chunks are not simulated).
    let level = asset.desc.support_level_mask();
    for (c, level) in asset.desc.chunks.iter_mut().zip(level) {
        let pts = points(c);
        c.support = level
            && match rule {
                Supports::Ground => pts.iter().any(|p| p.y - lo.y <= SUPPORT_TOLERANCE),
                Supports::EndsX => pts
                    .iter()
                    .any(|p| p.x - lo.x <= SUPPORT_TOLERANCE || hi.x - p.x <= SUPPORT_TOLERANCE),
                Supports::None | Supports::Asset => false,
            };
    }
}
