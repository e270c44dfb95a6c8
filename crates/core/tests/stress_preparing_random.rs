//! Random preparations in steps against a fresh solver
//! (`StressSolver::prepare_within`, `crates/core/src/stress/solver/prepare.rs`).
//!
//! Each seed draws a wall (`stress_wall_desc(nx, ny, nz)`, nx 6..20, ny
//! 4..12, nz 1..=2; on half the seeds with eight sub-support children under
//! its last cube, which take no part but give a chunk that is not
//! support-level), a fraction of its bonds broken (health 0, −0, −1 or NaN;
//! the intact ones 10, or on half the seeds 10, 0.5 or ∞), nodes (every
//! support-level chunk, the largest cluster or a random one, in ascending,
//! reversed or shuffled order; a few more bonds are broken after the
//! clusters are found, so the nodes may be disconnected, and a cluster may
//! be unanchored), settings (`reduce_above` in {0, 10, 50, 100},
//! `max_iterations` 64 or 200, any preconditioner), `set_build_part_bonds`
//! in {8, 16, 64, 2048}, materials (concrete, weak concrete that makes the
//! reduced solve refine, or mixed), gravity and maybe a point load. Its
//! preparation is then run three times, each with a work limit drawn for
//! each call: 1 (one step a call), small, or any of 1, small, large and
//! `u64::MAX`. It checks:
//!
//! 1. The plan. A preparation on a fresh solver, one step a call (limit 1),
//!    gives each step's charge; the steps are two (the gather and the
//!    scan, 4 passes a node each) unless the cluster is solved reduced
//!    (`reduce_above` > 0, anchored, more free nodes than it), and then
//!    4 + parts + reduction steps, the copies charged 5 a bond of their
//!    part, the adjacency's counts and fill 1 and 2 a bond, the reduction 8
//!    a bond in all. Under the seed's limits every call takes a step at
//!    least, charges the sum of its steps' charges, stays within its limit
//!    unless it took one step, and stops only before a step that would
//!    pass it.
//! 2. Independence from the solver's state: the calls of the same
//!    preparation on a solver meddled with between calls give the same
//!    `Preparation`s as on the fresh one. Meddles: solves (whole or cut
//!    short) and preparations (`prepare`, `prepare_within`) of other
//!    clusters, of the same nodes in another order or under another
//!    health, and of the same nodes from another `done` (whose result must
//!    be a fresh solver's for the same call); the solver replaced by a
//!    fresh one, its own clone or the clone of another solver that was
//!    meddled with too; the same settings or part size set again, or
//!    others for a while (a preparation or solve of the nodes under them);
//!    the warm start reset or replaced; bad input; a NaN load.
//! 3. Solves in the middle: a solve of the same nodes (sliced by random
//!    work limits, on the solver itself or on a clone) gives, bit for bit,
//!    the reports, bond results, warm start and progress of a fresh solver
//!    with the same warm start, part size and settings. The slices that
//!    end inside an update's product taken in parts (stage 20 of
//!    `SolveProgress::reduced_round`, `Multiplying`: near ε, on a system
//!    of more than one part) are counted, and over the default seeds
//!    there must be some.
//! 4. Bad input (a chunk past the asset, a node listed twice, a chunk that
//!    is not support-level, a health slice of the wrong length, no nodes,
//!    another asset)
//!    to `prepare_within`, `prepare`, `solve` or `solve_within` is the
//!    typed error, never a panic, and the preparation goes on as before.
//! 5. The end: once finished, `is_prepared` says whether the cluster is
//!    solved reduced (and agrees with `prepare` on a fresh solver), a
//!    preparation again from 0 or from its end gives the same calls, and
//!    the solve after it (sliced, maybe resuming a progress cut in the
//!    middle) gives a fresh solver's results bit for bit.
//!
//! A panic inside the library is caught and reported with its seed.
//! `STRESS_PREPARING_SEEDS=2000 cargo test --release -p smithereens-core
//! --test stress_preparing_random -- --nocapture` for a longer soak (300 by
//! default); `STRESS_PREPARING_SEED=<seed>` runs one seed and prints its
//! case and meddles.
#![allow(clippy::unwrap_used)]

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use smithereens_core::fixtures::{cube_chunk, stress_wall_desc};
use smithereens_core::glam::{DVec3, Vec3};
use smithereens_core::stress::{
    BondStress, Material, PointLoad, Preconditioner, Preparation, SolveProgress, StressError,
    StressLoads, StressMaterials, StressReport, StressSettings, StressSolver,
};
use smithereens_core::*;

mod common;
use common::same_bits;
use std::fmt::Write as _;

/// The seeded generator (`rand_pcg`), with the draws this test makes.
struct Rng(Pcg64Mcg);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(Pcg64Mcg::seed_from_u64(seed))
    }

    /// Uniform in `0..n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        self.0.random_range(0..n)
    }

    /// Uniform in `lo..hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        self.0.random_range(lo..hi)
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }

    /// True one time in `n`.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn shuffle<T>(&mut self, xs: &mut [T]) {
        xs.shuffle(&mut self.0);
    }

    /// A work limit: 1, small, large or unlimited.
    fn work(&mut self) -> u64 {
        match self.below(10) {
            0..=2 => 1,
            3..=5 => self.range(2, 3_000) as u64,
            6..=8 => self.range(3_000, 60_000) as u64,
            _ => u64::MAX,
        }
    }
}

/// One seed's inputs.
struct Case {
    asset: Asset,
    health: Vec<f32>,
    nodes: Vec<ChunkIndex>,
    settings: StressSettings,
    materials: StressMaterials,
    part: usize,
    point: Vec<PointLoad>,
    /// Every support-level chunk, ascending.
    all: Vec<ChunkIndex>,
    /// The clusters under the health before the late breaks.
    clusters: Vec<Vec<ChunkIndex>>,
    /// A chunk that is not support-level, if the asset has one.
    sub: Option<ChunkIndex>,
    /// What was drawn, for the report.
    text: String,
}

impl Case {
    fn loads(&self) -> StressLoads<'_> {
        StressLoads {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            point_loads: &self.point,
            ..Default::default()
        }
    }

    fn solver(&self) -> StressSolver {
        let mut s = StressSolver::new(&self.asset, self.settings, self.materials.clone()).unwrap();
        s.set_build_part_bonds(self.part);
        s
    }

    /// A fresh solver with `s`'s warm start.
    fn fresh_like(&self, s: &StressSolver) -> StressSolver {
        let mut f = self.solver();
        let (u, t) = s.warm_start();
        f.set_warm_start(u, t).unwrap();
        f
    }

    /// The intact bonds with both ends among `nodes` (the wall has no
    /// bonds to the world).
    fn intact_bonds(&self) -> usize {
        let mut inside = vec![false; self.asset.chunk_count()];
        for c in &self.nodes {
            inside[c.0 as usize] = true;
        }
        self.asset
            .bonds()
            .iter()
            .zip(&self.health)
            .filter(|(b, h)| {
                **h > 0.0
                    && inside[b.chunk0.0 as usize]
                    && b.chunk1.is_some_and(|c| inside[c.0 as usize])
            })
            .count()
    }

    /// Whether the cluster is solved reduced: `reduce_above` > 0, a support
    /// among the nodes, more free nodes than `reduce_above`.
    fn reduces(&self) -> bool {
        let chunks = self.asset.chunks();
        let free = self.nodes.iter().filter(|&&c| !chunks[c].support).count();
        let anchored = self.nodes.iter().any(|&c| chunks[c].support);
        self.settings.reduce_above > 0 && anchored && free > self.settings.reduce_above as usize
    }
}

/// Draws seed `seed`'s case.
fn case(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let (nx, ny, nz) = (rng.range(6, 20), rng.range(4, 12), rng.range(1, 3));
    let mut desc = stress_wall_desc(nx as u32, ny as u32, nz as u32);
    let augmented = rng.one_in(2);
    let mut sub = None;
    if augmented {
        // Eight half cubes under the last (top) cube: not support-level.
        let last = desc.chunks.len() - 1;
        let parent = desc.chunks[last].clone();
        let size = parent.volume.cbrt();
        let density = parent.mass / parent.volume;
        for k in 0..8 {
            let offset = Vec3::new(
                if k & 1 == 0 { -0.25 } else { 0.25 },
                if k & 2 == 0 { -0.25 } else { 0.25 },
                if k & 4 == 0 { -0.25 } else { 0.25 },
            ) * size;
            let mut c = cube_chunk(parent.centroid + offset, size * 0.5, density, false);
            c.parent = Some(last as u32);
            c.depth = 1;
            desc.chunks.push(c);
        }
        desc.support_depth = Some(0);
        sub = Some(ChunkIndex((last + 1 + rng.below(8)) as u32));
    }
    let asset = Asset::new(&desc).unwrap();
    let all: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    let fraction = rng.pick(&[0.0, 0.0, 0.01, 0.05, 0.15, 0.3, 0.5]);
    let mut health = vec![10.0f32; asset.bond_count()];
    let broken_value = |rng: &mut Rng| [0.0, 0.0, 0.0, -0.0, -1.0, f32::NAN][rng.below(6)];
    let varied = rng.one_in(2);
    for h in health.iter_mut() {
        if rng.0.random_bool(fraction) {
            *h = broken_value(&mut rng);
        } else if varied {
            *h = [10.0, 0.5, f32::INFINITY][rng.below(3)];
        }
    }
    // The clusters under this health (union-find over the intact bonds).
    let mut root: Vec<usize> = (0..asset.chunk_count()).collect();
    fn find(root: &mut [usize], mut x: usize) -> usize {
        while root[x] != x {
            root[x] = root[root[x]];
            x = root[x];
        }
        x
    }
    for (b, h) in asset.bonds().iter().zip(&health) {
        if let (true, Some(c1)) = (*h > 0.0, b.chunk1) {
            let (a, c) = (
                find(&mut root, b.chunk0.0 as usize),
                find(&mut root, c1.0 as usize),
            );
            root[a] = c;
        }
    }
    let mut by_root: std::collections::BTreeMap<usize, Vec<ChunkIndex>> = Default::default();
    for &c in &all {
        let r = find(&mut root, c.0 as usize);
        by_root.entry(r).or_default().push(c);
    }
    let clusters: Vec<Vec<ChunkIndex>> = by_root.into_values().collect();
    // A few bonds broken after: a cluster may be split.
    let late = if rng.one_in(2) { rng.below(4) } else { 0 };
    for _ in 0..late {
        let b = rng.below(health.len());
        health[b] = broken_value(&mut rng);
    }
    let (mut nodes, which) = match rng.below(3) {
        0 => (all.clone(), "all support-level chunks".to_string()),
        1 => {
            let big = clusters.iter().max_by_key(|c| c.len()).unwrap();
            (big.clone(), "the largest cluster".to_string())
        }
        _ => {
            let k = rng.below(clusters.len());
            (clusters[k].clone(), format!("cluster {k}"))
        }
    };
    let order = match rng.below(3) {
        0 => "ascending",
        1 => {
            nodes.reverse();
            "reversed"
        }
        _ => {
            rng.shuffle(&mut nodes);
            "shuffled"
        }
    };
    let settings = StressSettings {
        reduce_above: rng.pick(&[0, 10, 50, 100]),
        max_iterations: rng.pick(&[64, 64, 200]),
        preconditioner: rng.pick(&[
            Preconditioner::Auto,
            Preconditioner::Auto,
            Preconditioner::Multilevel,
            Preconditioner::Forest,
        ]),
        ..Default::default()
    };
    let part = rng.pick(&[8, 16, 64, 2048]);
    // Weak bonds make the reduced solve refine.
    let concrete = Material::CONCRETE;
    let (materials, material) = match rng.below(3) {
        0 => (StressMaterials::uniform(concrete), "concrete"),
        1 => (
            StressMaterials::uniform(concrete.with_limits_scaled(0.02)),
            "weak concrete",
        ),
        _ => (
            StressMaterials {
                materials: vec![concrete, Material::BRICK, concrete.with_limits_scaled(0.05)],
                bond_material: (0..asset.bond_count())
                    .map(|b| (b * 7 % 3) as u16)
                    .collect(),
            },
            "mixed",
        ),
    };
    let force = rng.pick(&[2.0e4, 2.0e5]);
    let point = if rng.one_in(2) {
        let chunk = rng.pick(&nodes);
        vec![PointLoad {
            chunk,
            force: Vec3::new(1.0, -0.5, 0.15) * force,
            point: asset.chunks()[chunk].centroid + Vec3::Z * 0.1,
        }]
    } else {
        Vec::new()
    };
    let broken = health.iter().filter(|h| !(**h > 0.0)).count();
    let text = format!(
        "wall {nx}×{ny}×{nz}{}, {broken} of {} bonds broken ({late} after the clusters), \
         nodes: {which} ({} nodes, {order}), reduce_above {}, max_iterations {}, \
         {:?}, build_part_bonds {part}, {material}, {} point load(s) of {force} N",
        if augmented {
            " with sub-support children"
        } else {
            ""
        },
        health.len(),
        nodes.len(),
        settings.reduce_above,
        settings.max_iterations,
        settings.preconditioner,
        point.len(),
    );
    Case {
        asset,
        health,
        nodes,
        settings,
        materials,
        part,
        point,
        all,
        clusters,
        sub,
        text,
    }
}

/// Everything a solve call leaves that a caller can see.
type Seen = (
    Result<StressReport, StressError>,
    Vec<BondStress>,
    Vec<DVec3>,
    Vec<DVec3>,
    Option<SolveProgress>,
);

/// Bit for bit (the `Debug` text of floats tells NaN and −0 apart).
fn same(a: &Seen, b: &Seen) -> bool {
    let residual =
        |r: &Result<StressReport, StressError>| r.as_ref().ok().map(|r| r.residual.to_bits());
    format!("{:?}", a.0) == format!("{:?}", b.0)
        && residual(&a.0) == residual(&b.0)
        && format!("{:?}", a.1) == format!("{:?}", b.1)
        && same_bits(&a.2, &b.2)
        && same_bits(&a.3, &b.3)
        && a.4 == b.4
}

fn call(
    s: &mut StressSolver,
    c: &Case,
    health: &[f32],
    work: u64,
    progress: &mut Option<SolveProgress>,
) -> Seen {
    let r = s.solve_within(&c.asset, &c.nodes, health, &c.loads(), work, progress);
    let (u, t) = s.warm_start();
    (
        r,
        s.bond_stresses().to_vec(),
        u.to_vec(),
        t.to_vec(),
        progress.clone(),
    )
}

/// Solves the case's nodes on `s` and on a fresh solver with its warm
/// start, in the same slices (random work limits, from `progress`), until
/// a slice is not cut short; every slice must match. Returns `s`'s
/// progress at the end (`None`) or, when `stop_early`, after a random
/// number of slices. Counts the slices in `stats`.
fn solve_against_fresh(
    s: &mut StressSolver,
    c: &Case,
    health: &[f32],
    mut progress: Option<SolveProgress>,
    rng: &mut Rng,
    stop_early: bool,
    stats: &mut Stats,
) -> Result<Option<SolveProgress>, String> {
    let mut fresh = c.fresh_like(s);
    let mut fresh_progress = progress.clone();
    let stop = if stop_early {
        1 + rng.below(3)
    } else {
        usize::MAX
    };
    for slice in 0..100_000 {
        let work = match rng.below(4) {
            0 => 500,
            1 => rng.range(1, 50_000) as u64,
            2 => rng.range(50_000, 2_000_000) as u64,
            _ => u64::MAX,
        };
        let got = call(s, c, health, work, &mut progress);
        let want = call(&mut fresh, c, health, work, &mut fresh_progress);
        stats.slices += 1;
        if progress
            .as_ref()
            .is_some_and(|p| p.reduced_round().1 == MULTIPLYING)
        {
            stats.multiplying_cuts += 1;
        }
        if !same(&got, &want) {
            return Err(format!(
                "slice {slice} (work {work}) of a solve: {:?} ({} bonds, progress {}), \
                 a fresh solver {:?} ({} bonds, progress {})",
                got.0,
                got.1.len(),
                got.4.is_some(),
                want.0,
                want.1.len(),
                want.4.is_some()
            ));
        }
        if progress.is_none() || slice + 1 >= stop {
            return Ok(progress);
        }
    }
    Err("a sliced solve never ended".into())
}

/// Each call's work limit, drawn once per run and call index: one step a
/// call (profile 0), small limits (1), or any (2: 1, small, large or
/// unlimited).
struct Limits {
    rng: Rng,
    profile: usize,
    limits: Vec<u64>,
}

impl Limits {
    fn get(&mut self, call: usize) -> u64 {
        while self.limits.len() <= call {
            let w = match self.profile {
                0 => 1,
                1 => self.rng.range(1, 4_000) as u64,
                _ => self.rng.work(),
            };
            self.limits.push(w);
        }
        self.limits[call]
    }
}

/// The case's preparation from `done` on a solver that keeps its state
/// between calls, with `limit(k)` for call k.
fn prepare_all(
    s: &mut StressSolver,
    c: &Case,
    mut done: u32,
    mut limit: impl FnMut(usize) -> u64,
) -> Result<Vec<Preparation>, String> {
    let mut out = Vec::new();
    for k in 0..100_000 {
        let p = s
            .prepare_within(&c.asset, &c.nodes, &c.health, limit(k), done)
            .map_err(|e| format!("call {k}: {e:?}"))?;
        done = p.done;
        out.push(p);
        if p.finished {
            return Ok(out);
        }
    }
    Err("the preparation never finished".into())
}

/// Checks the plan (item 1 of the module docs): returns the steps'
/// charges.
fn plan(c: &Case) -> Result<Vec<u64>, String> {
    let one = prepare_all(&mut c.solver(), c, 0, |_| 1)?;
    let steps = one.last().unwrap().done;
    for (k, p) in one.iter().enumerate() {
        if p.done != k as u32 + 1 || p.finished != (p.done == steps) {
            return Err(format!("limit 1: call {k} gave {p:?} ({steps} steps)"));
        }
    }
    let charges: Vec<u64> = one.iter().map(|p| p.work).collect();
    let n = c.nodes.len() as u64;
    let bonds = c.intact_bonds();
    let b = bonds as u64;
    let reduces = c.reduces();
    let parts = bonds.div_ceil(c.part) as u32;
    let reduction = if parts <= 1 { 1 } else { parts + 8 };
    let want_steps = if reduces { 4 + parts + reduction } else { 2 };
    if steps != want_steps {
        return Err(format!(
            "{steps} steps, the plan says {want_steps} (reduces {reduces}, {bonds} intact bonds)"
        ));
    }
    let mut model = vec![4 * n, 4 * n];
    if reduces {
        for k in 0..parts as usize {
            let len = (bonds.min((k + 1) * c.part) - (k * c.part).min(bonds)) as u64;
            model.push(5 * len);
        }
        model.push(b);
        model.push(2 * b);
    }
    if charges[..model.len()] != model[..] {
        return Err(format!(
            "charges {charges:?}, the plan says {model:?} then the reduction"
        ));
    }
    let total: u64 = charges[model.len()..].iter().sum();
    if reduces && total != 8 * b {
        return Err(format!("the reduction charged {total}, not 8 × {b}"));
    }
    let mut p = c.solver();
    let prepared = p.prepare(&c.asset, &c.nodes, &c.health);
    if prepared != Ok(reduces) {
        return Err(format!("prepare on a fresh solver gave {prepared:?}"));
    }
    Ok(charges)
}

/// The calls of the preparation on a fresh solver under `limits`, checked
/// against the steps' `charges` (item 1 of the module docs).
fn reference(c: &Case, charges: &[u64], limits: &mut Limits) -> Result<Vec<Preparation>, String> {
    let steps = charges.len() as u32;
    let reduces = c.reduces();
    let mut fresh = c.solver();
    let calls = prepare_all(&mut fresh, c, 0, |k| limits.get(k))?;
    let mut done = 0u32;
    for (k, p) in calls.iter().enumerate() {
        let limit = limits.get(k);
        let taken: u64 = charges[done as usize..p.done as usize].iter().sum();
        let ok = p.done > done
            && p.done <= steps
            && p.finished == (p.done == steps)
            && p.work == taken
            && (p.work <= limit || p.done == done + 1)
            && (p.finished || p.work.saturating_add(charges[p.done as usize]) > limit);
        if !ok {
            return Err(format!(
                "call {k} (limit {limit}, from {done}) gave {p:?}; charges {charges:?}"
            ));
        }
        done = p.done;
    }
    if fresh.is_prepared(&c.nodes, &c.health) != reduces {
        return Err(format!(
            "is_prepared after the reference preparation is {}, the cluster reduces: {reduces}",
            !reduces
        ));
    }
    Ok(calls)
}

/// A bad call: what to call it with and the error it must give.
struct Bad {
    /// Another asset, if that is what is bad.
    asset: Option<Asset>,
    nodes: Vec<ChunkIndex>,
    health: Vec<f32>,
    error: StressError,
    what: String,
}

fn bad_input(c: &Case, rng: &mut Rng) -> Bad {
    let mut nodes = c.nodes.clone();
    let mut health = c.health.clone();
    let at = rng.below(nodes.len() + 1);
    let kind = rng.below(6);
    let mut asset = None;
    let (error, what) = match kind {
        0 | 2 if kind == 0 || c.sub.is_none() => {
            let chunk = if rng.one_in(3) {
                ChunkIndex(u32::MAX)
            } else {
                ChunkIndex((c.asset.chunk_count() + rng.below(3)) as u32)
            };
            nodes.insert(at, chunk);
            (
                StressError::NodeOutOfRange(chunk),
                format!("unknown chunk {chunk:?} at {at}"),
            )
        }
        1 => {
            let chunk = rng.pick(&c.nodes);
            nodes.insert(at, chunk);
            (
                StressError::DuplicateNode(chunk),
                format!("{chunk:?} twice (at {at})"),
            )
        }
        2 => {
            let chunk = c.sub.unwrap();
            nodes.insert(at, chunk);
            (
                StressError::NodeNotSupportLevel(chunk),
                format!("sub-support {chunk:?} at {at}"),
            )
        }
        3 => {
            match rng.below(3) {
                0 => {
                    health.pop();
                }
                1 => health.push(10.0),
                _ => health.clear(),
            }
            (
                StressError::HealthLength {
                    found: health.len(),
                    expected: c.health.len(),
                },
                format!("{} health entries", health.len()),
            )
        }
        4 => {
            nodes.clear();
            (StressError::EmptyCluster, "no nodes".to_string())
        }
        _ => {
            asset = Some(Asset::new(&stress_wall_desc(3, 2, 1)).unwrap());
            (StressError::AssetMismatch, "another asset".to_string())
        }
    };
    Bad {
        asset,
        nodes,
        health,
        error,
        what,
    }
}

/// Another node list: another cluster, every chunk, a prefix of every
/// chunk (disconnected, maybe unanchored), or the case's nodes reordered
/// or less one.
fn other_nodes(c: &Case, rng: &mut Rng) -> (Vec<ChunkIndex>, &'static str) {
    match rng.below(5) {
        0 => (c.clusters[rng.below(c.clusters.len())].clone(), "a cluster"),
        1 => (c.all.clone(), "every chunk"),
        2 => {
            let k = 1 + rng.below(c.all.len());
            (c.all[..k].to_vec(), "a prefix of every chunk")
        }
        3 => {
            let mut n = c.nodes.clone();
            rng.shuffle(&mut n);
            (n, "the nodes shuffled")
        }
        _ => {
            let mut n = c.nodes.clone();
            if n.len() > 1 {
                n.remove(rng.below(n.len()));
            }
            (n, "the nodes less one")
        }
    }
}

/// The case's health with one bond more broken or one mended.
fn other_health(c: &Case, rng: &mut Rng) -> Vec<f32> {
    let mut h = c.health.clone();
    let b = rng.below(h.len());
    h[b] = match (h[b] > 0.0, rng.below(2)) {
        (true, 0) => 0.0,
        // Intact still: the same bonds intact.
        (true, _) => 0.25,
        (false, _) => 10.0,
    };
    h
}

/// Something done to another solver (kept so its clone can replace the
/// solver under test): a solve or preparation of other nodes, or part of
/// this preparation with its own limits.
fn meddle_other(o: &mut StressSolver, c: &Case, rng: &mut Rng) {
    let (nodes, _) = other_nodes(c, rng);
    match rng.below(4) {
        0 => {
            let _ = o.solve(&c.asset, &nodes, &c.health, &c.loads());
        }
        1 => {
            let _ = o.prepare(&c.asset, &nodes, &c.health);
        }
        2 => {
            let _ = o.prepare_within(&c.asset, &nodes, &c.health, rng.work(), 0);
        }
        _ => {
            let mut done = 0;
            for _ in 0..1 + rng.below(4) {
                let p = o
                    .prepare_within(&c.asset, &c.nodes, &c.health, rng.work(), done)
                    .unwrap();
                done = p.done;
                if p.finished {
                    break;
                }
            }
        }
    }
}

/// Counts over the run.
#[derive(Default)]
struct Stats {
    seeds: u64,
    calls: u64,
    meddles: u64,
    solves: u64,
    reducing: u64,
    /// Slices of the checked solves, and those that ended inside an
    /// update's product in parts (stage [`MULTIPLYING`]).
    slices: u64,
    multiplying_cuts: u64,
}

/// The stage code of a cut inside an update's product taken in parts
/// (`SolveProgress::reduced_round`; `Multiplying`).
const MULTIPLYING: u8 = 20;

/// The seeds run by default.
const DEFAULT_SEEDS: u64 = 300;

/// Runs seed `seed`: the plan, then a meddled preparation under each
/// profile of limits; `log` gets the case and the meddles.
fn random_run(seed: u64, stats: &mut Stats, log: &mut String) -> Result<(), String> {
    let c = case(seed);
    let _ = writeln!(log, "{}", c.text);
    let charges = plan(&c)?;
    let _ = writeln!(log, "{} steps, charged {charges:?}", charges.len());
    if c.reduces() {
        stats.reducing += 1;
    }
    let mut rng = Rng::new(seed ^ 0x5DEE_CE66_D1CE_5EED);
    for profile in 0..3 {
        let mut limits = Limits {
            rng: Rng::new(seed ^ 0xA076_1D64_78BD_642F ^ profile as u64),
            profile,
            limits: Vec::new(),
        };
        let want = reference(&c, &charges, &mut limits)?;
        let _ = writeln!(log, "profile {profile}: reference calls {want:?}");
        meddled_run(&c, &want, &mut limits, &mut rng, stats, log)
            .map_err(|e| format!("profile {profile}: {e}"))?;
    }
    Ok(())
}

/// The preparation of the case under `limits` on a solver meddled with
/// between calls (items 2–5 of the module docs): its calls must be `want`.
fn meddled_run(
    c: &Case,
    want: &[Preparation],
    limits: &mut Limits,
    rng: &mut Rng,
    stats: &mut Stats,
    log: &mut String,
) -> Result<(), String> {
    let steps = want.last().unwrap().done;
    let meddle_odds = rng.pick(&[2, 3, 5, 9]);
    let mut s = c.solver();
    let mut other = c.solver();
    let mut done = 0u32;
    let mut pending: Option<SolveProgress> = None;
    let mut k = 0usize;
    loop {
        // Meddles before call k.
        while rng.one_in(meddle_odds) {
            stats.meddles += 1;
            let m = rng.below(18);
            let _ = write!(log, "  before call {k}: ");
            match m {
                0 => {
                    let (nodes, what) = other_nodes(c, rng);
                    let work = rng.work();
                    let _ =
                        s.solve_within(&c.asset, &nodes, &c.health, &c.loads(), work, &mut None);
                    let _ = writeln!(log, "solve {what} within {work}");
                }
                1 => {
                    let (nodes, what) = other_nodes(c, rng);
                    let r = s.prepare(&c.asset, &nodes, &c.health);
                    let _ = writeln!(log, "prepare {what}: {r:?}");
                }
                2 => {
                    let (nodes, what) = other_nodes(c, rng);
                    let (work, from) = (rng.work(), rng.below(6) as u32);
                    let r = s.prepare_within(&c.asset, &nodes, &c.health, work, from);
                    let _ = writeln!(log, "prepare_within {what} ({work}, {from}): {r:?}");
                }
                3 => {
                    s = c.solver();
                    let _ = writeln!(log, "a fresh solver");
                }
                4 => {
                    meddle_other(&mut other, c, rng);
                    s = other.clone();
                    let _ = writeln!(log, "the clone of another solver");
                }
                5 => {
                    s = s.clone();
                    let _ = writeln!(log, "its own clone");
                }
                6 => {
                    // Item 3: a solve on a clone.
                    stats.solves += 1;
                    let mut probe = s.clone();
                    let _ = writeln!(log, "a solve of the nodes on a clone");
                    solve_against_fresh(&mut probe, c, &c.health, None, rng, false, stats)
                        .map_err(|e| format!("call {k}: a solve on a clone: {e}"))?;
                }
                7 => {
                    // Item 3: a solve on the solver, maybe cut short (its
                    // progress kept for the solve at the end).
                    stats.solves += 1;
                    let early = rng.one_in(2);
                    let _ = writeln!(log, "a solve of the nodes on the solver (cut: {early})");
                    let from = pending.take();
                    pending = solve_against_fresh(&mut s, c, &c.health, from, rng, early, stats)
                        .map_err(|e| format!("call {k}: a solve on the solver: {e}"))?;
                }
                8 => {
                    if rng.one_in(2) {
                        s.set_settings(c.settings).unwrap();
                        let _ = writeln!(log, "the same settings");
                    } else {
                        s.set_build_part_bonds(c.part);
                        let _ = writeln!(log, "the same part size");
                    }
                }
                9 => {
                    if rng.one_in(2) {
                        s.reset_warm_start();
                        let _ = writeln!(log, "reset the warm start");
                    } else {
                        let (mut u, mut t) = (s.warm_start().0.to_vec(), s.warm_start().1.to_vec());
                        for v in u.iter_mut().chain(t.iter_mut()) {
                            *v = DVec3::new(1e-6, -2e-6, 5e-7) * rng.below(3) as f64;
                        }
                        s.set_warm_start(&u, &t).unwrap();
                        let _ = writeln!(log, "another warm start");
                    }
                }
                17 => {
                    // Other settings or part size for a while, then the
                    // case's again.
                    let other = StressSettings {
                        reduce_above: rng.pick(&[0, 5, 10, 50, 100]),
                        preconditioner: rng.pick(&[
                            Preconditioner::Auto,
                            Preconditioner::Multilevel,
                            Preconditioner::Forest,
                        ]),
                        ..c.settings
                    };
                    let part = rng.pick(&[1, 8, 16, 64, 2048]);
                    let changed = if rng.one_in(2) {
                        s.set_settings(other).unwrap();
                        format!(
                            "reduce_above {}, {:?}",
                            other.reduce_above, other.preconditioner
                        )
                    } else {
                        s.set_build_part_bonds(part);
                        format!("part {part}")
                    };
                    let what = match rng.below(3) {
                        0 => {
                            let _ = s.prepare(&c.asset, &c.nodes, &c.health);
                            "prepare"
                        }
                        1 => {
                            let (work, from) = (rng.work(), done);
                            let _ = s.prepare_within(&c.asset, &c.nodes, &c.health, work, from);
                            "prepare_within"
                        }
                        _ => {
                            let _ = s.solve(&c.asset, &c.nodes, &c.health, &c.loads());
                            "solve"
                        }
                    };
                    s.set_settings(c.settings).unwrap();
                    s.set_build_part_bonds(c.part);
                    let _ = writeln!(log, "{what} the nodes under {changed}");
                }
                10 | 11 => {
                    // Item 4.
                    let bad = bad_input(c, rng);
                    let api = rng.below(4);
                    let (work, from) = (rng.work(), rng.below(done as usize + 2) as u32);
                    let a = bad.asset.as_ref().unwrap_or(&c.asset);
                    let got = match api {
                        0 => s
                            .prepare_within(a, &bad.nodes, &bad.health, work, from)
                            .map(|_| ()),
                        1 => s.prepare(a, &bad.nodes, &bad.health).map(|_| ()),
                        2 => s
                            .solve(a, &bad.nodes, &bad.health, &StressLoads::default())
                            .map(|_| ()),
                        _ => s
                            .solve_within(
                                a,
                                &bad.nodes,
                                &bad.health,
                                &StressLoads::default(),
                                work,
                                &mut None,
                            )
                            .map(|_| ()),
                    };
                    let name = ["prepare_within", "prepare", "solve", "solve_within"][api];
                    let _ = writeln!(log, "bad input to {name}: {}", bad.what);
                    if got != Err(bad.error.clone()) {
                        return Err(format!(
                            "call {k}: bad input to {name} ({}) gave {got:?}, not {:?}",
                            bad.what, bad.error
                        ));
                    }
                }
                12 => {
                    // The same nodes from another `done`: a fresh solver's
                    // answer to the same call.
                    let from = rng.below(steps as usize + 3) as u32;
                    let work = rng.work();
                    let got = s.prepare_within(&c.asset, &c.nodes, &c.health, work, from);
                    let fresh = c
                        .solver()
                        .prepare_within(&c.asset, &c.nodes, &c.health, work, from);
                    let _ = writeln!(log, "prepare_within the nodes ({work}, {from}): {got:?}");
                    if got != fresh {
                        return Err(format!(
                            "call {k}: prepare_within from {from} within {work} gave {got:?}, \
                             a fresh solver {fresh:?}"
                        ));
                    }
                }
                13 => {
                    let h = other_health(c, rng);
                    let (work, from) = (rng.work(), rng.below(done as usize + 2) as u32);
                    let r = s.prepare_within(&c.asset, &c.nodes, &h, work, from);
                    let _ = writeln!(
                        log,
                        "prepare_within the nodes under another health ({work}, {from}): {r:?}"
                    );
                }
                14 => {
                    let r = s.prepare(&c.asset, &c.nodes, &c.health);
                    let _ = writeln!(log, "prepare the nodes: {r:?}");
                    if r != Ok(c.reduces()) {
                        return Err(format!("call {k}: prepare of the nodes gave {r:?}"));
                    }
                }
                15 => {
                    let h = other_health(c, rng);
                    let work = rng.work();
                    let _ = s.solve_within(&c.asset, &c.nodes, &h, &c.loads(), work, &mut None);
                    let _ = writeln!(log, "solve the nodes under another health within {work}");
                }
                _ => {
                    let bad = [PointLoad {
                        chunk: c.nodes[0],
                        force: Vec3::new(f32::NAN, 0.0, 0.0),
                        point: Vec3::ZERO,
                    }];
                    let r = s.solve(
                        &c.asset,
                        &c.nodes,
                        &c.health,
                        &StressLoads {
                            point_loads: &bad,
                            ..c.loads()
                        },
                    );
                    let _ = writeln!(log, "solve the nodes with a NaN load: {r:?}");
                    if r != Err(StressError::NonFiniteLoad { load: Some(0) }) {
                        return Err(format!("call {k}: a NaN load gave {r:?}"));
                    }
                }
            }
        }
        let limit = limits.get(k);
        let p = s
            .prepare_within(&c.asset, &c.nodes, &c.health, limit, done)
            .map_err(|e| format!("call {k} (limit {limit}, from {done}): {e:?}"))?;
        stats.calls += 1;
        let _ = writeln!(log, "call {k} (limit {limit}, from {done}): {p:?}");
        if want.get(k) != Some(&p) {
            return Err(format!(
                "call {k} (limit {limit}, from {done}) gave {p:?}, a fresh solver without \
                 meddles {:?}",
                want.get(k)
            ));
        }
        done = p.done;
        k += 1;
        if p.finished {
            break;
        }
    }
    // Item 5.
    if s.is_prepared(&c.nodes, &c.health) != c.reduces() {
        return Err(format!(
            "finished: is_prepared {}, the cluster reduces: {}",
            !c.reduces(),
            c.reduces()
        ));
    }
    if rng.one_in(3) {
        s = s.clone();
        let _ = writeln!(log, "end: its own clone");
    }
    if rng.one_in(3) {
        let again = prepare_all(&mut s, c, 0, |k| limits.get(k))?;
        let _ = writeln!(log, "end: the preparation again");
        if again != want {
            return Err(format!("the preparation again gave {again:?}"));
        }
    }
    if rng.one_in(3) {
        let end = s
            .prepare_within(&c.asset, &c.nodes, &c.health, rng.work(), steps)
            .unwrap();
        let _ = writeln!(log, "end: from the end: {end:?}");
        if end
            != (Preparation {
                done: steps,
                finished: true,
                work: 0,
            })
        {
            return Err(format!("a preparation from its end gave {end:?}"));
        }
    }
    if s.is_prepared(&c.nodes, &c.health) != c.reduces() {
        return Err(format!(
            "after the end's calls: is_prepared {}, the cluster reduces: {}",
            !c.reduces(),
            c.reduces()
        ));
    }
    stats.solves += 1;
    let from = if rng.one_in(2) { pending.take() } else { None };
    let _ = writeln!(log, "end: the solve (progress: {})", from.is_some());
    solve_against_fresh(&mut s, c, &c.health, from, rng, false, stats)
        .map_err(|e| format!("the solve after the preparation: {e}"))?;
    Ok(())
}

#[test]
fn random_preparations_go_as_on_a_fresh_solver() {
    let one: Option<u64> = std::env::var("STRESS_PREPARING_SEED")
        .ok()
        .and_then(|s| s.parse().ok());
    let seeds: u64 = std::env::var("STRESS_PREPARING_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_SEEDS);
    let list: Vec<u64> = match one {
        Some(seed) => vec![seed],
        None => (0..seeds).collect(),
    };
    let mut stats = Stats::default();
    let started = std::time::Instant::now();
    let mut failures = Vec::new();
    for seed in list {
        let mut log = String::new();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut st = Stats::default();
            let r = random_run(seed, &mut st, &mut log);
            (r, st)
        }));
        let error = match outcome {
            Ok((Ok(()), st)) => {
                stats.calls += st.calls;
                stats.meddles += st.meddles;
                stats.solves += st.solves;
                stats.reducing += st.reducing;
                stats.slices += st.slices;
                stats.multiplying_cuts += st.multiplying_cuts;
                None
            }
            Ok((Err(e), _)) => Some(e),
            Err(panic) => Some(format!(
                "panicked: {}",
                panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            )),
        };
        stats.seeds += 1;
        if one.is_some() {
            eprintln!("{log}");
        }
        if let Some(e) = error {
            let head = log.lines().next().unwrap_or_default().to_string();
            failures.push(format!(
                "seed {seed} ({head}): {e}\n  rerun: STRESS_PREPARING_SEED={seed} cargo test \
                 --release -p smithereens-core --test stress_preparing_random -- --nocapture"
            ));
        }
    }
    eprintln!(
        "{} seeds ({} reduced) in {:.1?}: {} preparation calls, {} meddles, {} checked solves \
         in {} slices, {} cut inside an update's product (stage {MULTIPLYING})",
        stats.seeds,
        stats.reducing,
        started.elapsed(),
        stats.calls,
        stats.meddles,
        stats.solves,
        stats.slices,
        stats.multiplying_cuts
    );
    assert!(
        failures.is_empty(),
        "{} failing seeds, the first: {}",
        failures.len(),
        failures[0]
    );
    // The default seeds (and any longer run, which includes them) cut
    // some solves inside an update's product in parts.
    if one.is_none() && seeds >= DEFAULT_SEEDS {
        assert!(
            stats.multiplying_cuts > 0,
            "no slice of {} ended inside an update's product (stage {MULTIPLYING})",
            stats.slices
        );
    }
}
