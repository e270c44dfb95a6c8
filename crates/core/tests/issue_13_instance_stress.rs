#![allow(clippy::unwrap_used)]
//! Issue 13 items 2, 3 and 5 (core side): stress damage as an event kind of
//! its own, through admission → plan → commit; the per-frame loop of an
//! instance (solve only what changed, standing overloads wear bonds at a
//! rate independent of the step, bonds break only from converged solves);
//! idempotency, replay, state round trip and bad input.
//!
//! Cubes are 0.5 m blocks of 300 kg (2,400 kg/m³) bonded over their full
//! 0.25 m² faces; one cube weighs W = 2,943 N at 9.81 m/s².

use smithereens_core::fixtures::{cube_chunk, grid_desc};
use smithereens_core::glam::Vec3;
use smithereens_core::stress::{
    InstanceStress, LoadKey, Material, Preconditioner, StressBondDamage, StressDesc, StressError,
    StressLimit, StressMaterials, StressSettings,
};
use smithereens_core::*;
use std::sync::Arc;

const SIZE: f32 = 0.5;
const DENSITY: f32 = 2400.0;
const G: f32 = 9.81;
const W: f32 = 300.0 * G;
const GRAVITY: Vec3 = Vec3::new(0.0, -G, 0.0);

/// `k + 1` cubes standing in a column on chunk 0 (the support); bond i
/// joins chunk i and i + 1 and carries `k − i` cubes.
fn column(k: u32) -> Arc<Asset> {
    let desc = AssetDesc {
        chunks: (0..=k)
            .map(|i| cube_chunk(Vec3::Y * (i as f32 * SIZE), SIZE, DENSITY, i == 0))
            .collect(),
        bonds: (0..k)
            .map(|i| BondDesc {
                chunk0: i,
                chunk1: BondEnd::Chunk(i + 1),
                centroid: Vec3::Y * ((i as f32 + 0.5) * SIZE),
                normal: Vec3::Y,
                area: SIZE * SIZE,
                strength: 100.0,
            })
            .collect(),
        support_depth: None,
    };
    Arc::new(Asset::new(&desc).unwrap())
}

/// A material whose compression limits are `elastic` and `fatal` Pa, with
/// tension and shear out of reach.
fn compression(elastic: f32, fatal: f32, rate: f32) -> Material {
    let far = StressLimit {
        elastic: 1e12,
        fatal: 1e12,
    };
    Material {
        compression: StressLimit { elastic, fatal },
        tension: far,
        shear: far,
        damage_rate: rate,
    }
}

fn stress_of(inst: &Instance, m: Material) -> InstanceStress {
    InstanceStress::new(inst, StressDesc::new(StressMaterials::uniform(m))).unwrap()
}

/// A column of `k` cubes on its support (`column`) and its stress, every
/// bond of a material whose compression limits are `elastic` and `fatal`
/// times the column's base stress ([`base_stress`]), at 1e-3 du per Pa·s.
fn column_with_limits(k: u32, elastic: f32, fatal: f32) -> (Instance, InstanceStress) {
    let inst = Instance::new(column(k), Pose::IDENTITY).unwrap();
    let base = base_stress(k);
    let stress = stress_of(&inst, compression(elastic * base, fatal * base, 1e-3));
    (inst, stress)
}

/// Admits the update's event (if any), commits, and tells the stress.
fn commit_step(inst: &mut Instance, stress: &mut InstanceStress, dt: f32) -> (u32, Vec<BondIndex>) {
    let u = stress.update(inst, GRAVITY, dt).unwrap();
    let Some(event) = u.event else {
        return (u.solves, Vec::new());
    };
    inst.admit(event).unwrap();
    let outcome = inst.commit(&mut HeadlessBackend::default()).unwrap();
    stress.observe_commit(inst, &outcome);
    (u.solves, outcome.broken)
}

/// Base stress of a column of `k` cubes above its support: k·W / 0.25 m².
fn base_stress(k: u32) -> f32 {
    k as f32 * W / (SIZE * SIZE)
}

#[test]
fn a_weak_column_fails_under_its_own_weight_and_the_part_above_falls() {
    let k = 6;
    // Fatal at 0.45 × the base stress: bonds 0–3 carry 6, 5, 4, 3 cubes
    // (≥ 2.7 W), bonds 4–5 only 2 and 1 (elastic at 0.25 × base: 1.5 W).
    let (mut inst, mut stress) = column_with_limits(k, 0.25, 0.45);
    let u = stress.update(&inst, GRAVITY, 1.0 / 60.0).unwrap();
    assert_eq!(u.solves, 1);
    assert!(u.max_residual <= 1e-3);
    let event = u.event.unwrap();
    assert_eq!(event.id, EventId::new(EventSource::STRESS, 0));
    let fatal: Vec<u32> = event
        .bonds
        .iter()
        .filter(|b| b.fatal)
        .map(|b| b.bond.0)
        .collect();
    assert_eq!(fatal, vec![0, 1, 2, 3]);
    // All four are fatal; bond 0 takes the most (its whole 100 du as do the
    // others, so the lowest index): its centroid, 0.25 m up.
    assert_eq!(event.point, Vec3::new(0.0, 0.25, 0.0));
    inst.admit(event).unwrap();
    let outcome = inst.commit(&mut HeadlessBackend::default()).unwrap();
    assert_eq!(outcome.broken, (0..4).map(BondIndex).collect::<Vec<_>>());
    // The support stands alone; everything above is loose.
    let support = inst.cluster_of(ChunkIndex(0)).unwrap();
    assert!(inst.cluster(support).unwrap().supported);
    assert_eq!(inst.cluster(support).unwrap().nodes.len(), 1);
    for c in 1..=k {
        let h = inst.cluster_of(ChunkIndex(c)).unwrap();
        assert!(!inst.cluster(h).unwrap().supported);
    }
    stress.observe_commit(&inst, &outcome);
    let u = stress.update(&inst, GRAVITY, 1.0 / 60.0).unwrap();
    assert!(u.event.is_none());
    assert!(stress.is_idle());
}

/// The pieces a commit sets free are never solved, so they do not wait in
/// the clusters due: after the weak column breaks (bonds 0–3), the
/// support's cluster alone waits, not the four free pieces {1}, {2}, {3}
/// and {4, 5, 6} (each of which used to be queued and passed over by the
/// next update).
#[test]
fn the_pieces_a_commit_frees_do_not_wait_for_a_solve() {
    let k = 6;
    let (mut inst, mut stress) = column_with_limits(k, 0.25, 0.45);
    let u = stress.update(&inst, GRAVITY, 1.0 / 60.0).unwrap();
    inst.admit(u.event.unwrap()).unwrap();
    let outcome = inst.commit(&mut HeadlessBackend::default()).unwrap();
    assert_eq!(outcome.broken, (0..4).map(BondIndex).collect::<Vec<_>>());
    let free: std::collections::BTreeSet<ClusterHandle> = (1..=k)
        .map(|c| inst.cluster_of(ChunkIndex(c)).unwrap())
        .collect();
    assert_eq!(free.len(), 4);
    stress.observe_commit(&inst, &outcome);
    let support = inst.cluster_of(ChunkIndex(0)).unwrap();
    assert_eq!(stress.state().dirty, vec![support]);
    // The next update solves the support alone and nothing is deferred.
    let u = stress.update(&inst, GRAVITY, 1.0 / 60.0).unwrap();
    assert_eq!((u.solves, u.deferred), (1, 0));
    assert!(stress.is_idle());
}

#[test]
fn a_strong_column_stands_600_steps_with_zero_breaks_and_costs_one_solve() {
    let k = 6;
    let (mut inst, mut stress) = column_with_limits(k, 3.0, 6.0);
    let mut solves = 0;
    for _ in 0..600 {
        let (s, broken) = commit_step(&mut inst, &mut stress, 1.0 / 60.0);
        solves += s;
        assert!(broken.is_empty());
        assert!(stress.is_idle());
    }
    assert_eq!(solves, 1);
    assert_eq!(inst.broken_count(), 0);
    assert_eq!(inst.commit_seq(), 0, "no event, no commit");
}

/// Health of bond 0 of a column under a standing overload after `seconds`
/// of steps of `dt`, and the number of solves it took.
fn creep(dt: f32, seconds: f32) -> (f32, u32) {
    let k = 4;
    // Elastic at 0.8 × base: bond 0 is 0.2 × base over it (9,417.6 Pa),
    // bond 1 carries 3/4 of the base and stays elastic.
    let (mut inst, mut stress) = column_with_limits(k, 0.8, 10.0);
    let steps = (seconds / dt).round() as u32;
    let mut solves = 0;
    for _ in 0..steps {
        let (s, broken) = commit_step(&mut inst, &mut stress, dt);
        solves += s;
        assert!(broken.is_empty());
    }
    (inst.bond_health(BondIndex(0)).unwrap(), solves)
}

#[test]
fn a_standing_overload_wears_a_bond_at_its_rate_whatever_the_step_without_re_solving() {
    // 1e-3 du/(Pa·s) × 0.2 × 47,088 Pa = 9.4176 du/s: after 5 s, 47.09 du
    // of the bond's 100 du are gone.
    let overshoot = 0.2 * base_stress(4);
    let expected = 100.0 - 1e-3 * overshoot * 5.0;
    let (h60, solves60) = creep(1.0 / 60.0, 5.0);
    let (h120, solves120) = creep(1.0 / 120.0, 5.0);
    assert_eq!((solves60, solves120), (1, 1));
    assert!((h60 - expected).abs() < 0.05, "{h60} vs {expected}");
    assert!((h120 - expected).abs() < 0.05, "{h120} vs {expected}");
    assert!((h60 - h120).abs() < 0.05);
}

#[test]
fn the_bond_breaks_when_the_overload_has_worn_it_down_then_the_column_falls() {
    let k = 4;
    let (mut inst, mut stress) = column_with_limits(k, 0.8, 10.0);
    // 100 du / 9.4176 du/s = 10.62 s.
    let mut broke_at = None;
    for step in 0..(12 * 60) {
        let (_, broken) = commit_step(&mut inst, &mut stress, 1.0 / 60.0);
        if broken.contains(&BondIndex(0)) {
            broke_at = Some(step as f32 / 60.0);
            break;
        }
    }
    let t = broke_at.expect("bond 0 broke");
    assert!((t - 10.62).abs() < 0.05, "{t} s");
    let top = inst.cluster_of(ChunkIndex(k)).unwrap();
    assert!(!inst.cluster(top).unwrap().supported);
}

/// A cantilever of `k` cubes along +X from a supported cube at the origin.
fn cantilever(k: u32) -> Arc<Asset> {
    let desc = AssetDesc {
        chunks: (0..=k)
            .map(|i| cube_chunk(Vec3::X * (i as f32 * SIZE), SIZE, DENSITY, i == 0))
            .collect(),
        bonds: (0..k)
            .map(|i| BondDesc {
                chunk0: i,
                chunk1: BondEnd::Chunk(i + 1),
                centroid: Vec3::X * ((i as f32 + 0.5) * SIZE),
                normal: Vec3::X,
                area: SIZE * SIZE,
                strength: 100.0,
            })
            .collect(),
        support_depth: None,
    };
    Arc::new(Asset::new(&desc).unwrap())
}

#[test]
fn a_load_re_solves_its_cluster_only_when_it_changes_beyond_the_tolerance() {
    let inst = Instance::new(cantilever(4), Pose::IDENTITY).unwrap();
    let mut stress = stress_of(&inst, Material::CONCRETE);
    assert_eq!(stress.update(&inst, GRAVITY, 1.0 / 60.0).unwrap().solves, 1);
    assert_eq!(stress.update(&inst, GRAVITY, 1.0 / 60.0).unwrap().solves, 0);
    let key = LoadKey(1, 2);
    let tip = ChunkIndex(4);
    let point = Vec3::new(2.0, 0.25, 0.0);
    let f = Vec3::new(0.0, -10_000.0, 0.0);
    stress.set_load(&inst, key, tip, f, point).unwrap();
    assert_eq!(stress.update(&inst, GRAVITY, 1.0 / 60.0).unwrap().solves, 1);
    // 4 % and 2 cm: within the 5 % / 5 cm tolerance.
    stress
        .set_load(&inst, key, tip, f * 1.04, point + Vec3::X * 0.02)
        .unwrap();
    assert_eq!(stress.update(&inst, GRAVITY, 1.0 / 60.0).unwrap().solves, 0);
    // 10 %: re-solved.
    stress.set_load(&inst, key, tip, f * 1.1, point).unwrap();
    assert_eq!(stress.update(&inst, GRAVITY, 1.0 / 60.0).unwrap().solves, 1);
    // Gone: re-solved without it.
    stress.remove_load(key);
    assert_eq!(stress.update(&inst, GRAVITY, 1.0 / 60.0).unwrap().solves, 1);
    assert!(stress.is_idle());
    assert_eq!(stress.loads().count(), 0);
}

#[test]
fn a_load_at_the_tip_breaks_the_cantilever_root_that_gravity_alone_does_not() {
    // Root moment under gravity: W·0.5·(1+2+3+4) = 14,715 N·m for k = 4;
    // bending stress M / S with S = a³/6 = 0.0208 m³: 706 kPa.
    let k = 4;
    let mut inst = Instance::new(cantilever(k), Pose::IDENTITY).unwrap();
    let far = StressLimit {
        elastic: 1e12,
        fatal: 1e12,
    };
    let m = Material {
        compression: far,
        tension: StressLimit {
            elastic: 1.0e6,
            fatal: 1.2e6,
        },
        shear: far,
        damage_rate: 1e-5,
    };
    let mut stress = stress_of(&inst, m);
    let (_, broken) = commit_step(&mut inst, &mut stress, 1.0 / 60.0);
    assert!(broken.is_empty(), "gravity alone stays under the limit");
    // 10 kN at the tip adds 10,000 · 2.0 = 20,000 N·m at the root.
    stress
        .set_load(
            &inst,
            LoadKey(7, 7),
            ChunkIndex(k),
            Vec3::new(0.0, -10_000.0, 0.0),
            Vec3::new(2.0, 0.25, 0.0),
        )
        .unwrap();
    let (_, broken) = commit_step(&mut inst, &mut stress, 1.0 / 60.0);
    assert!(broken.contains(&BondIndex(0)), "{broken:?}");
}

#[test]
fn bonds_break_only_from_a_converged_solve() {
    // A 4 × 8 × 4 block pushed sideways at its top: a solve that needs
    // several iterations; one iteration per update.
    let asset = Arc::new(Asset::new(&grid_desc(4, 8, 4, SIZE, DENSITY, 400.0)).unwrap());
    let mut inst = Instance::new(asset, Pose::IDENTITY).unwrap();
    let base = 7.0 * W / (SIZE * SIZE);
    let mut desc = StressDesc::new(StressMaterials::uniform(compression(
        0.2 * base,
        0.4 * base,
        1e-3,
    )));
    desc.settings = StressSettings {
        max_iterations: 1,
        preconditioner: Preconditioner::Multilevel,
        epsilon: 1e-3,
        reduce_above: 0,
    };
    let mut stress = InstanceStress::new(&inst, desc).unwrap();
    let top = ChunkIndex(3 + 4 * (7 + 8 * 3));
    stress
        .set_load(
            &inst,
            LoadKey(1, 1),
            top,
            Vec3::new(3e4, 0.0, 1e4),
            Vec3::new(2.0, 4.0, 2.0),
        )
        .unwrap();
    let mut updates_without_event = 0;
    loop {
        let u = stress.update(&inst, GRAVITY, 1.0 / 60.0).unwrap();
        assert!(u.solves <= 1);
        match u.event {
            None => {
                assert_eq!(u.unconverged, 1, "{u:?}");
                assert!(u.max_residual > 1e-3);
                updates_without_event += 1;
                assert!(updates_without_event < 500, "never converged");
            }
            Some(e) => {
                assert_eq!(u.unconverged, 0);
                assert!(u.max_residual <= 1e-3);
                assert!(e.bonds.iter().any(|b| b.fatal));
                inst.admit(e).unwrap();
                inst.commit(&mut HeadlessBackend::default()).unwrap();
                break;
            }
        }
    }
    assert!(
        updates_without_event >= 1,
        "the first update cannot converge"
    );
    assert!(inst.broken_count() > 0);
}

#[test]
fn a_stress_event_is_idempotent_and_bad_lists_are_refused_without_change() {
    let mut inst = Instance::new(column(3), Pose::IDENTITY).unwrap();
    let d = |bond, damage, fatal| StressBondDamage {
        bond: BondIndex(bond),
        damage,
        fatal,
    };
    let id = EventId::new(EventSource::STRESS, 5);
    let e = StressDamage {
        id,
        point: Vec3::ZERO,
        bonds: vec![d(0, 30.0, false), d(2, 0.0, true)],
    };
    inst.admit(e.clone()).unwrap();
    // Same id, same list while pending: the pending answer.
    assert!(matches!(
        inst.admit(e.clone()).unwrap(),
        Admission::Pending { .. }
    ));
    let other = StressDamage {
        id,
        point: Vec3::ZERO,
        bonds: vec![d(0, 31.0, false)],
    };
    assert_eq!(
        inst.admit(other.clone()),
        Err(DamageError::ConflictingEvent(id.0))
    );
    inst.commit(&mut HeadlessBackend::default()).unwrap();
    assert_eq!(inst.bond_health(BondIndex(0)), Some(70.0));
    assert_eq!(inst.bond_health(BondIndex(1)), Some(100.0));
    assert_eq!(inst.bond_health(BondIndex(2)), Some(0.0));
    let Admission::Applied(receipt) = inst.admit(e).unwrap() else {
        panic!("the receipt")
    };
    assert_eq!(receipt.broken, vec![BondIndex(2)]);
    assert_eq!(inst.admit(other), Err(DamageError::ConflictingEvent(id.0)));
    let hash = inst.state_hash();
    let bad = |bonds| StressDamage {
        id: EventId::new(EventSource::STRESS, 9),
        point: Vec3::ZERO,
        bonds,
    };
    assert_eq!(
        inst.admit(bad(vec![d(1, 1.0, false), d(0, 1.0, false)])),
        Err(DamageError::BadStressList(0))
    );
    assert_eq!(
        inst.admit(bad(vec![d(1, 1.0, false), d(1, 1.0, false)])),
        Err(DamageError::BadStressList(1))
    );
    assert_eq!(
        inst.admit(bad(vec![d(3, 1.0, false)])),
        Err(DamageError::UnknownBond(3))
    );
    assert!(matches!(
        inst.admit(bad(vec![d(0, f32::NAN, false)])),
        Err(DamageError::BadDamage(_))
    ));
    assert_eq!(
        inst.admit(bad(vec![d(0, -1.0, false)])),
        Err(DamageError::BadDamage(-1.0))
    );
    assert_eq!(inst.state_hash(), hash);
    assert!(inst.pending().is_empty());
}

#[test]
fn a_run_with_stress_events_replays_bit_for_bit() {
    let k = 4;
    let (mut inst, mut stress) = column_with_limits(k, 0.6, 10.0);
    let mut rec = ReplayRecorder::new(&inst).unwrap();
    let mut backend = HeadlessBackend::default();
    for _ in 0..120 {
        let u = stress.update(&inst, GRAVITY, 1.0 / 60.0).unwrap();
        if let Some(e) = u.event {
            inst.admit(e).unwrap();
            let outcome = rec.commit(&mut inst, &mut backend).unwrap();
            stress.observe_commit(&inst, &outcome);
        }
    }
    let log = rec.finish();
    assert_eq!(log.entries.len(), 120);
    let bytes = log.to_bytes();
    let back = ReplayLog::from_bytes(&bytes).unwrap();
    let report = replay(inst.asset().clone(), &back).unwrap();
    assert_eq!(report.final_hash, inst.state_hash());
}

#[test]
fn the_state_round_trip_gives_the_same_future_events() {
    let asset = Arc::new(Asset::new(&grid_desc(3, 6, 2, SIZE, DENSITY, 400.0)).unwrap());
    let base = 5.0 * W / (SIZE * SIZE);
    let mut inst = Instance::new(asset, Pose::IDENTITY).unwrap();
    let mut stress = stress_of(&inst, compression(0.3 * base, 5.0 * base, 1e-4));
    for _ in 0..30 {
        commit_step(&mut inst, &mut stress, 1.0 / 60.0);
    }
    stress
        .set_load(
            &inst,
            LoadKey(3, 4),
            ChunkIndex(17),
            Vec3::new(0.0, -5e4, 0.0),
            Vec3::new(1.0, 3.0, 0.5),
        )
        .unwrap();
    let state = stress.state();
    let mut copy = InstanceStress::from_state(&inst, state.clone()).unwrap();
    assert_eq!(copy.state(), state);
    let mut twin = inst.clone();
    for _ in 0..60 {
        let a = stress.update(&inst, GRAVITY, 1.0 / 60.0).unwrap();
        let b = copy.update(&twin, GRAVITY, 1.0 / 60.0).unwrap();
        assert_eq!(a, b);
        if let Some(e) = a.event {
            inst.admit(e.clone()).unwrap();
            twin.admit(e).unwrap();
            let oa = inst.commit(&mut HeadlessBackend::default()).unwrap();
            let ob = twin.commit(&mut HeadlessBackend::default()).unwrap();
            stress.observe_commit(&inst, &oa);
            copy.observe_commit(&twin, &ob);
        }
    }
    assert_eq!(inst.state_hash(), twin.state_hash());
    assert!(inst.commit_seq() > 0);
}

#[test]
fn bad_stress_descriptions_and_loads_are_typed_errors() {
    let inst = Instance::new(column(2), Pose::IDENTITY).unwrap();
    let mut desc = StressDesc::new(StressMaterials::uniform(Material::BRICK));
    desc.load_tolerance = -0.1;
    assert!(matches!(
        InstanceStress::new(&inst, desc.clone()),
        Err(StressError::BadTolerance { .. })
    ));
    desc.load_tolerance = 0.05;
    desc.load_floor = f32::NAN;
    assert!(matches!(
        InstanceStress::new(&inst, desc.clone()),
        Err(StressError::BadTolerance { .. })
    ));
    desc.load_floor = 1.0;
    desc.settings.max_iterations = 0;
    assert_eq!(
        InstanceStress::new(&inst, desc.clone()).err(),
        Some(StressError::ZeroIterations)
    );
    let mut nan = Material::BRICK;
    nan.tension.fatal = f32::NAN;
    assert!(matches!(
        InstanceStress::new(&inst, StressDesc::new(StressMaterials::uniform(nan))),
        Err(StressError::Material(_))
    ));
    let mut stress = stress_of(&inst, Material::BRICK);
    assert_eq!(
        stress.set_load(&inst, LoadKey(0, 0), ChunkIndex(9), Vec3::ONE, Vec3::ZERO),
        Err(StressError::NodeOutOfRange(ChunkIndex(9)))
    );
    assert!(matches!(
        stress.set_load(&inst, LoadKey(0, 0), ChunkIndex(1), Vec3::NAN, Vec3::ZERO),
        Err(StressError::NonFiniteLoad { .. })
    ));
    assert_eq!(stress.loads().count(), 0);
    assert_eq!(
        stress.update(&inst, GRAVITY, 0.0).err(),
        Some(StressError::BadTimeStep(0.0))
    );
    assert!(matches!(
        stress.update(&inst, Vec3::NAN, 1.0 / 60.0),
        Err(StressError::NonFiniteLoad { .. })
    ));
}
