//! Scripted runs: an asset placed in a world, projectiles launched at given
//! steps, a fixed number of steps, everything recorded into a
//! [`RunRecord`] plus a [`RunSummary`] of counts and timings.

use crate::error::BackendError;
use crate::set::ProjectileDesc;
use crate::world::{DestructionWorld, StepError, WorldSettings};
use smithereens_core::record::{
    RunBody, RunBond, RunBreak, RunChunk, RunEvent, RunProjectile, RunRecord, pose_to_array,
};
use smithereens_core::{Asset, AssetFile, ClusterHandle, Pose};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

/// A projectile launched at the start of a given step.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScheduledProjectile {
    /// Step index (0-based) before which it is spawned.
    pub step: u32,
    /// The projectile.
    pub projectile: ProjectileDesc,
}

/// An explosion triggered at the start of a given step.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScheduledExplosion {
    /// Step index (0-based) before which it is admitted.
    pub step: u32,
    /// The explosion.
    pub explosion: crate::set::Explosion,
}

/// A complete scripted run: one asset placed in a world, projectiles and explosions at given steps.
#[derive(Clone, Debug)]
pub struct ScriptedRun {
    /// Name recorded in the run.
    pub name: String,
    /// The fractured asset with its render meshes.
    pub asset: AssetFile,
    /// Asset → world placement.
    pub placement: Pose,
    /// World settings.
    pub settings: WorldSettings,
    /// Projectiles in launch order.
    pub projectiles: Vec<ScheduledProjectile>,
    /// Explosions in trigger order.
    pub explosions: Vec<ScheduledExplosion>,
    /// Number of fixed steps to simulate.
    pub steps: u32,
}

/// Counts and timings of a run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RunSummary {
    /// Simulated (support-level) chunks: every chunk of a flat asset.
    pub chunks: usize,
    /// Bonds in the asset.
    pub bonds: usize,
    /// Damage events admitted.
    pub events: usize,
    /// Bonds broken by the end.
    pub bonds_broken: usize,
    /// Clusters (islands) at the end.
    pub islands: usize,
    /// Dynamic cluster bodies at the end.
    pub dynamic_bodies: usize,
    /// Bodies created over the run (initial + split products).
    pub bodies_created: usize,
    /// Simulated time, s.
    pub simulated_seconds: f64,
    /// Median wall time per step, s.
    pub step_median_seconds: f64,
    /// Worst wall time per step, s.
    pub step_worst_seconds: f64,
    /// Worst destruction (damage + commit) time in one step, s.
    pub destruction_worst_seconds: f64,
    /// Lowest point of any chunk collider at the end, m (world y).
    pub lowest_chunk_y: f32,
    /// Lowest point of any chunk collider over the whole run, m (world y).
    pub lowest_chunk_y_ever: f32,
    /// Highest linear speed of any dynamic body on any step, m/s.
    pub max_speed: f32,
    /// Steps after which some body had a non-finite pose or velocity.
    pub non_finite_steps: u32,
    /// State hash after the last step.
    pub final_hash: u64,
}

/// Why a run failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The asset file is invalid.
    #[error("asset")]
    Asset(#[from] smithereens_core::AssetFileError),
    /// The world could not be built, or a projectile is invalid.
    #[error("world")]
    Backend(#[from] BackendError),
    /// A step failed.
    #[error("step")]
    Step(#[from] StepError),
    /// A scripted explosion was rejected.
    #[error("explosion")]
    Explosion(#[from] smithereens_core::DamageError),
}

struct Recorder {
    record: RunRecord,
    body_of: BTreeMap<ClusterHandle, usize>,
    /// Asset chunk index → run chunk index (`u32::MAX`: not recorded).
    run_chunk: Vec<u32>,
    frame: u32,
}

impl Recorder {
    fn capture(&mut self, world: &DestructionWorld) {
        let frame = self.frame;
        for &h in world.cluster_bodies().keys() {
            let Some(pose) = world.cluster_asset_pose(h) else {
                continue;
            };
            let idx = *self.body_of.entry(h).or_insert_with(|| {
                let c = world.instance().cluster(h);
                self.record.bodies.push(RunBody {
                    id: self.record.bodies.len() as u32,
                    chunks: c
                        .map(|c| {
                            c.nodes
                                .iter()
                                .map(|n| self.run_chunk[n.0 as usize])
                                .collect()
                        })
                        .unwrap_or_default(),
                    supported: c.is_some_and(|c| c.supported),
                    first_frame: frame,
                    poses: Vec::new(),
                });
                self.record.bodies.len() - 1
            });
            self.record.bodies[idx].poses.push(pose_to_array(&pose));
        }
        for (k, pose) in world.projectile_poses().into_iter().enumerate() {
            if let Some(p) = self.record.projectiles.get_mut(k) {
                p.poses.push(pose_to_array(&pose));
            }
        }
        self.record.frame_hashes.push(world.state_hash());
        self.frame += 1;
        self.record.frame_count = self.frame;
    }
}

/// Runs a scenario. `progress(step, total)` is called after every step.
///
/// # Errors
/// [`RunError`] for an invalid asset, bad settings or projectile, or a failed commit.
pub fn run(
    scenario: &ScriptedRun,
    progress: &mut dyn FnMut(u32, u32),
) -> Result<(RunRecord, RunSummary), RunError> {
    let asset = Arc::new(scenario.asset.validate()?);
    let mut world = DestructionWorld::new(asset.clone(), scenario.placement, scenario.settings)?;
    let mut rec = Recorder {
        record: RunRecord::new(scenario.name.clone(), scenario.settings.timestep),
        body_of: BTreeMap::new(),
        run_chunk: Vec::new(),
        frame: 0,
    };
    rec.record.ground_y = scenario.settings.ground_y;
    // A run records the simulated (support-level) chunks only; for a flat
    // asset that is every chunk, in order. `run_chunk` maps asset indices.
    let mut run_chunk = vec![u32::MAX; asset.chunk_count()];
    for (k, c) in asset.support_level_chunks().enumerate() {
        run_chunk[c.0 as usize] = k as u32;
    }
    rec.record.chunks = asset
        .chunks()
        .iter()
        .zip(&scenario.asset.meshes)
        .filter(|(c, _)| c.support_level)
        .map(|(c, m)| RunChunk {
            centroid: c.centroid,
            support: c.support,
            mesh: m.clone(),
        })
        .collect();
    rec.run_chunk = run_chunk;
    rec.record.bonds = asset
        .bonds()
        .iter()
        .map(|b| RunBond {
            chunk0: rec.run_chunk[b.chunk0.0 as usize],
            chunk1: b.chunk1.map(|c| rec.run_chunk[c.0 as usize]),
            centroid: b.centroid,
        })
        .collect();
    rec.capture(&world);

    let mut step_times = Vec::with_capacity(scenario.steps as usize);
    let mut destruction_worst = 0.0f64;
    let mut events = 0usize;
    let mut launches: Vec<&ScheduledProjectile> = scenario.projectiles.iter().collect();
    launches.sort_by_key(|p| p.step);
    let mut next_launch = 0;
    let mut max_speed = 0.0f32;
    let mut lowest_ever = f32::INFINITY;
    let mut non_finite_steps = 0u32;
    let mut blasts: Vec<&ScheduledExplosion> = scenario.explosions.iter().collect();
    blasts.sort_by_key(|e| e.step);
    let mut next_blast = 0;
    for step in 0..scenario.steps {
        while let Some(p) = launches.get(next_launch).filter(|p| p.step <= step) {
            world.spawn_projectile(p.projectile)?;
            rec.record.projectiles.push(RunProjectile {
                radius: p.projectile.radius,
                first_frame: rec.frame,
                poses: Vec::new(),
            });
            // The projectile's pose at spawn time stands for the frame before its first step.
            if let Some(last) = rec.record.projectiles.last_mut() {
                last.first_frame = rec.frame.saturating_sub(1);
                last.poses.push(pose_to_array(&Pose::from_translation(
                    p.projectile.position,
                )));
            }
            next_launch += 1;
        }
        while let Some(e) = blasts.get(next_blast).filter(|e| e.step <= step) {
            let x = e.explosion;
            world.explode(x)?;
            events += 1;
            rec.record.events.push(RunEvent {
                frame: rec.frame,
                id: x.id.0,
                point: x.point,
                radius: x.radius,
                damage: x.damage,
            });
            next_blast += 1;
        }
        let t = Instant::now();
        let report = world.step()?;
        step_times.push(t.elapsed().as_secs_f64());
        destruction_worst = destruction_worst.max(report.destruction_seconds);
        let health = world.health_check();
        max_speed = max_speed.max(health.max_speed);
        lowest_ever = lowest_ever.min(health.lowest_chunk_y);
        non_finite_steps += u32::from(health.non_finite_bodies > 0);
        for e in &report.events {
            events += 1;
            rec.record.events.push(RunEvent {
                frame: rec.frame,
                id: e.id.0,
                point: e.point,
                radius: e.radius,
                damage: e.damage,
            });
        }
        for b in &report.broken {
            rec.record.breaks.push(RunBreak {
                frame: rec.frame,
                bond: b.0,
            });
        }
        rec.capture(&world);
        progress(step + 1, scenario.steps);
    }
    let mut sorted = step_times.clone();
    sorted.sort_by(f64::total_cmp);
    let summary = RunSummary {
        chunks: rec.record.chunks.len(),
        bonds: asset.bond_count(),
        events,
        bonds_broken: world.instance().broken_count(),
        islands: world.instance().cluster_count(),
        dynamic_bodies: world.dynamic_body_count(),
        bodies_created: rec.record.bodies.len(),
        simulated_seconds: scenario.steps as f64 * scenario.settings.timestep as f64,
        step_median_seconds: sorted.get(sorted.len() / 2).copied().unwrap_or(0.0),
        step_worst_seconds: sorted.last().copied().unwrap_or(0.0),
        destruction_worst_seconds: destruction_worst,
        lowest_chunk_y: world.lowest_chunk_point().unwrap_or(0.0),
        lowest_chunk_y_ever: if lowest_ever.is_finite() {
            lowest_ever
        } else {
            0.0
        },
        max_speed,
        non_finite_steps,
        final_hash: world.state_hash(),
    };
    Ok((rec.record, summary))
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
