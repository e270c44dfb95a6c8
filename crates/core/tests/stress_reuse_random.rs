//! Random sequences against a fresh solver: a long-lived stress solver keeps
//! its reduced system between calls (`stress/solver/kept.rs`) and must give,
//! bit for bit, what a solver made fresh for each call gives (same warm
//! start, same progress): bonds breaking with health 0, −1, −0 or NaN and
//! mending, chunks cut loose, loads changing, the node list shuffled or a
//! chunk taken out and put back, new settings, another cluster solved in
//! between, warm starts reset, the solver cloned, work limits that slice
//! the solve, and calls refused for bad input after a break. Four assets:
//! supports only, bonds to the world only, both, and faces split into four
//! bonds each. Each step compares the report, every bond result, the warm
//! start and the progress.
//!
//! Written from a review's fuzzer (the refused call after a break was the
//! defect it found). `STRESS_REUSE_SEEDS=200 cargo test --release -p
//! smithereens-core --test stress_reuse_random` for a longer soak.
#![allow(clippy::unwrap_used)]

use smithereens_core::fixtures::{grid_desc, highest_chunk};
use smithereens_core::glam::{DVec3, Vec3};
use smithereens_core::stress::{
    BondStress, MIN_EPSILON, Material, PointLoad, SolveProgress, StressLoads, StressMaterials,
    StressReport, StressSettings, StressSolver,
};
use smithereens_core::*;

mod common;
use common::same_bits;

struct Rng(u64);

impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// A 10 × 8 × 2 wall; variant 1: anchored by bonds to the world alone,
/// 2: supports and bonds to the world, 3: every face split into four bonds;
/// 4: a 24 × 12 × 2 wall, whose reduced system is large enough to be
/// assembled (the 10 × 8 × 2 one is solved densely), so the skipped
/// warm-start checks, failed updates and rebuilt hierarchies are met.
fn asset(variant: u32) -> Asset {
    let mut desc = if variant == 4 {
        grid_desc(24, 12, 2, 0.5, 2400.0, 40.0)
    } else {
        grid_desc(10, 8, 2, 0.5, 2400.0, 40.0)
    };
    if variant == 1 || variant == 2 {
        for k in 0..desc.chunks.len() {
            let c = desc.chunks[k].centroid;
            if c.y < 0.5 {
                if variant == 1 {
                    desc.chunks[k].support = false;
                }
                desc.bonds.push(BondDesc {
                    chunk0: k as u32,
                    chunk1: BondEnd::World,
                    centroid: c - Vec3::Y * 0.25,
                    normal: -Vec3::Y,
                    area: 0.25,
                    strength: 10.0,
                });
            }
        }
    }
    if variant == 3 {
        for b in std::mem::take(&mut desc.bonds) {
            let n = b.normal;
            let t1 = if n.x.abs() > 0.5 { Vec3::Y } else { Vec3::X };
            let t2 = n.cross(t1);
            for (i, j) in [(-1.0f32, -1.0f32), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
                let mut c = b.clone();
                c.centroid = b.centroid + (t1 * i + t2 * j) * 0.1;
                c.area = b.area / 4.0;
                c.strength = b.strength / 4.0;
                desc.bonds.push(c);
            }
        }
    }
    Asset::new(&desc).unwrap()
}

/// Everything a call leaves that a caller can see.
type Seen = (
    Result<StressReport, String>,
    Vec<BondStress>,
    Vec<DVec3>,
    Vec<DVec3>,
    Option<SolveProgress>,
);

fn run(
    s: &mut StressSolver,
    asset: &Asset,
    nodes: &[ChunkIndex],
    health: &[f32],
    loads: &StressLoads<'_>,
    work: u64,
    progress: &mut Option<SolveProgress>,
) -> Seen {
    let r = s
        .solve_within(asset, nodes, health, loads, work, progress)
        .map_err(|e| format!("{e:?}"));
    let (u, t) = s.warm_start();
    (
        r,
        s.bond_stresses().to_vec(),
        u.to_vec(),
        t.to_vec(),
        progress.clone(),
    )
}

/// Bit for bit (the `Debug` text of floats tells NaN and −0 apart).
fn same(a: &Seen, b: &Seen) -> bool {
    format!("{:?}", a.0) == format!("{:?}", b.0)
        && format!("{:?}", a.1) == format!("{:?}", b.1)
        && same_bits(&a.2, &b.2)
        && same_bits(&a.3, &b.3)
        && a.4 == b.4
}

fn random_run(seed: u64, variant: u32, steps: usize) -> Result<(), String> {
    let asset = asset(variant);
    let all: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    let c = Material::CONCRETE;
    let materials = StressMaterials {
        materials: vec![c, Material::BRICK, c.with_limits_scaled(0.05)],
        bond_material: (0..asset.bond_count())
            .map(|b| (b * 7 % 3) as u16)
            .collect(),
    };
    let mut rng = Rng(seed);
    let mut settings = StressSettings {
        max_iterations: 10_000,
        reduce_above: 20,
        ..Default::default()
    };
    let mut kept = StressSolver::new(&asset, settings, materials.clone()).unwrap();
    let mut health = vec![10.0f32; asset.bond_count()];
    let mut nodes = all.clone();
    let top = highest_chunk(&asset, &all).unwrap();
    let push = [PointLoad {
        chunk: top,
        force: Vec3::new(4.0e5, -2.0e5, 0.0),
        point: asset.chunks()[top].centroid,
    }];
    let small = [PointLoad {
        chunk: top,
        force: Vec3::new(1.0e3, 0.0, 0.0),
        point: asset.chunks()[top].centroid + Vec3::Z * 0.1,
    }];
    let gravity = StressLoads {
        gravity: Vec3::new(0.0, -9.81, 0.0),
        ..Default::default()
    };
    let mut loads = gravity;
    let mut removed: Vec<ChunkIndex> = Vec::new();
    let mut progress: Option<SolveProgress> = None;
    let mut work = u64::MAX;
    for step in 0..steps {
        let mut what = String::new();
        match rng.next(14) {
            0..=2 => {
                for _ in 0..1 + rng.next(3) {
                    let b = rng.next(asset.bond_count());
                    health[b] = [0.0, -1.0, f32::NAN, -0.0][rng.next(4)];
                    what += &format!("break {b} ({}) ", health[b]);
                }
            }
            3 => {
                let broken: Vec<usize> =
                    (0..health.len()).filter(|&b| !(health[b] > 0.0)).collect();
                if !broken.is_empty() {
                    let b = broken[rng.next(broken.len())];
                    health[b] = [10.0, 0.5, f32::INFINITY][rng.next(3)];
                    what += &format!("mend {b} ({}) ", health[b]);
                }
            }
            4 => {
                loads = match rng.next(3) {
                    0 => gravity,
                    1 => StressLoads {
                        point_loads: &push,
                        ..gravity
                    },
                    _ => StressLoads {
                        point_loads: &small,
                        ..gravity
                    },
                };
                what += "loads ";
            }
            5 => {
                for i in (1..nodes.len()).rev() {
                    let j = rng.next(i + 1);
                    nodes.swap(i, j);
                }
                what += "shuffle ";
            }
            6 => {
                if removed.is_empty() || rng.next(2) == 0 {
                    let k = rng.next(nodes.len());
                    if nodes[k] != top {
                        removed.push(nodes.remove(k));
                        what += "take a chunk out ";
                    }
                } else {
                    let chunk = removed.pop().unwrap();
                    let k = rng.next(nodes.len() + 1);
                    nodes.insert(k, chunk);
                    what += "put a chunk back ";
                }
            }
            7 => {
                if rng.next(2) == 0 {
                    settings.epsilon =
                        (settings.epsilon * [0.5f32, 2.0, 1.0][rng.next(3)]).max(MIN_EPSILON);
                }
                settings.reduce_above = [20, 20, 30, 0][rng.next(4)];
                kept.set_settings(settings).unwrap();
                what += "settings ";
            }
            8 => {
                // Another cluster in between.
                let lower: Vec<ChunkIndex> = nodes
                    .iter()
                    .copied()
                    .filter(|&c| asset.chunks()[c].centroid.y < 2.0)
                    .collect();
                let mut fresh = StressSolver::new(&asset, settings, materials.clone()).unwrap();
                let (u, t) = kept.warm_start();
                fresh.set_warm_start(u, t).unwrap();
                let got = run(
                    &mut kept,
                    &asset,
                    &lower,
                    &health,
                    &gravity,
                    u64::MAX,
                    &mut None,
                );
                let want = run(
                    &mut fresh,
                    &asset,
                    &lower,
                    &health,
                    &gravity,
                    u64::MAX,
                    &mut None,
                );
                if !same(&got, &want) {
                    return Err(format!(
                        "seed {seed} variant {variant} step {step}: another cluster"
                    ));
                }
                what += "another cluster ";
            }
            9 => {
                kept.reset_warm_start();
                what += "reset the warm start ";
            }
            10 => {
                kept = kept.clone();
                what += "clone ";
            }
            11 => {
                work = [u64::MAX, 2_000, 5_000, 20_000][rng.next(4)];
                what += &format!("work {work} ");
            }
            12 => {
                let chunk = all[rng.next(all.len())];
                for (_, b) in asset.graph().neighbours(chunk) {
                    health[b.0 as usize] = 0.0;
                }
                for &b in asset.graph().world_bonds(chunk) {
                    health[b.0 as usize] = 0.0;
                }
                what += "cut a chunk loose ";
            }
            _ => {
                // A refused call after a break.
                let b = rng.next(asset.bond_count());
                health[b] = 0.0;
                let bad = [PointLoad {
                    chunk: top,
                    force: Vec3::new(f32::NAN, 0.0, 0.0),
                    point: Vec3::ZERO,
                }];
                let refused = kept.solve(
                    &asset,
                    &nodes,
                    &health,
                    &StressLoads {
                        point_loads: &bad,
                        ..loads
                    },
                );
                if refused.is_ok() {
                    return Err(format!(
                        "seed {seed} variant {variant} step {step}: NaN load accepted"
                    ));
                }
                what += "refused call ";
            }
        }
        let mut fresh = StressSolver::new(&asset, settings, materials.clone()).unwrap();
        let (u, t) = kept.warm_start();
        fresh.set_warm_start(u, t).unwrap();
        let mut fresh_progress = progress.clone();
        let got = run(
            &mut kept,
            &asset,
            &nodes,
            &health,
            &loads,
            work,
            &mut progress,
        );
        let want = run(
            &mut fresh,
            &asset,
            &nodes,
            &health,
            &loads,
            work,
            &mut fresh_progress,
        );
        if !same(&got, &want) {
            return Err(format!(
                "seed {seed} variant {variant} step {step} ({what}): {:?} ({} bonds), a fresh solver {:?} ({} bonds)",
                got.0,
                got.1.len(),
                want.0,
                want.1.len()
            ));
        }
    }
    Ok(())
}

#[test]
fn random_sequences_give_a_fresh_solvers_results_bit_for_bit() {
    let seeds: u64 = std::env::var("STRESS_REUSE_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let mut failures = Vec::new();
    for variant in 0..5 {
        for s in 0..seeds {
            if let Err(e) = random_run(0x9E37_79B9_7F4A_7C15 ^ (s * 7919 + 1), variant, 60) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
