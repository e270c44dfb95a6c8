#![allow(clippy::unwrap_used)]
//! Issue 13 item 6: a large cluster that a commit created or shrank is
//! prepared in steps before its first solve (`InstanceStress` calls
//! `StressSolver::prepare_within` within each update's budget), so the
//! gather and grouping of thousands of chunks are spread over frames
//! instead of landing in one (1.5–2.3 ms on the 100 × 50 × 2 wall). The
//! steps and their charges depend on the cluster alone, so a state taken
//! in the middle resumes bit for bit, and the solve after them gives the
//! results it gives unprepared, a few updates later.
//!
//! The wall is 24 × 12 × 2 cubes of 0.5 m (576 chunks, 1,368 bonds) of
//! concrete, solved reduced above 100 free chunks; a top corner cube is
//! knocked off (its bonds broken by a stress event), which shrinks it.

use smithereens_core::fixtures::stress_wall_desc;
use smithereens_core::glam::Vec3;
use smithereens_core::stress::{
    InstanceStress, Material, StressBondDamage, StressDesc, StressMaterials, StressUpdate,
};
use smithereens_core::*;
use std::sync::Arc;

const GRAVITY: Vec3 = Vec3::new(0.0, -9.81, 0.0);
const DT: f32 = 1.0 / 60.0;

/// The wall standing under its stress (updates run until idle), with
/// reduced solves above 100 free chunks.
fn standing_wall() -> (Instance, InstanceStress) {
    let asset = Arc::new(Asset::new(&stress_wall_desc(24, 12, 2)).unwrap());
    let inst = Instance::new(asset, Pose::IDENTITY).unwrap();
    let mut desc = StressDesc::new(StressMaterials::uniform(Material::CONCRETE));
    desc.settings.reduce_above = 100;
    let mut stress = InstanceStress::new(&inst, desc).unwrap();
    for _ in 0..100 {
        let u = stress.update(&inst, GRAVITY, DT).unwrap();
        assert!(u.event.is_none(), "concrete stands: {u:?}");
        if stress.is_idle() {
            return (inst, stress);
        }
    }
    panic!("the wall's stress never went idle");
}

/// Breaks every bond of the highest, then farthest, cube (a top corner)
/// and commits: the wall's cluster shrinks by that cube.
fn knock_off_a_corner(inst: &mut Instance, stress: &mut InstanceStress) -> ClusterHandle {
    let asset = inst.asset().clone();
    let corner = (0..asset.chunk_count() as u32)
        .map(ChunkIndex)
        .max_by(|&a, &b| {
            let (ca, cb) = (asset.chunks()[a].centroid, asset.chunks()[b].centroid);
            (ca.y, ca.x, ca.z).partial_cmp(&(cb.y, cb.x, cb.z)).unwrap()
        })
        .unwrap();
    let mut bonds: Vec<BondIndex> = asset.graph().neighbours(corner).map(|(_, b)| b).collect();
    bonds.sort_unstable();
    let event = smithereens_core::damage::StressDamage {
        id: EventId::new(EventSource(77), 1),
        point: asset.chunks()[corner].centroid,
        bonds: bonds
            .iter()
            .map(|&bond| StressBondDamage {
                bond,
                damage: 1e9,
                fatal: true,
            })
            .collect(),
    };
    inst.admit(event.event()).unwrap();
    let out = inst.commit(&mut HeadlessBackend::default()).unwrap();
    assert_eq!(out.broken.len(), 3, "a top corner cube has three bonds");
    stress.observe_commit(inst, &out);
    let wall = inst.cluster_of(ChunkIndex(0)).unwrap();
    assert_eq!(inst.cluster(wall).unwrap().nodes.len(), 575);
    wall
}

/// Updates within `budget` passes each until the stress is idle: each
/// update's report.
fn run(inst: &Instance, stress: &mut InstanceStress, budget: u64) -> Vec<StressUpdate> {
    let mut out = Vec::new();
    while !stress.is_idle() {
        let mut left = budget;
        out.push(stress.update_within(inst, GRAVITY, DT, &mut left).unwrap());
        assert!(out.len() < 10_000, "never idle");
    }
    out
}

#[test]
fn a_shrunk_large_cluster_is_prepared_in_steps_before_its_solve() {
    let (mut inst, mut stress) = standing_wall();
    let wall = knock_off_a_corner(&mut inst, &mut stress);
    assert_eq!(stress.state().preparing, vec![(wall, 0)]);
    // 1,000 passes an update: less than one step's charge (the gather: 4
    // passes a node, 2,300), so one step an update: the gather, the scan,
    // the bonds' copies (one part of at most 2,048), the adjacency's
    // counts and fill, the reduction (one step).
    let updates = run(&inst, &mut stress, 1_000);
    let preparing = updates.iter().take_while(|u| u.preparing == 1).count();
    assert_eq!(preparing, 6, "{updates:?}");
    assert!(
        updates[..preparing]
            .iter()
            .all(|u| u.solves == 0 && u.work > 0),
        "{updates:?}"
    );
    assert_eq!(updates[0].work, 4 * 575);
    assert!(updates[preparing..].iter().all(|u| u.preparing == 0));
    assert!(updates[preparing].solves == 1, "{:?}", updates[preparing]);
    assert!(stress.state().preparing.is_empty());
}

#[test]
fn a_state_taken_while_preparing_resumes_bit_for_bit() {
    let (mut inst, mut stress) = standing_wall();
    let wall = knock_off_a_corner(&mut inst, &mut stress);
    for _ in 0..3 {
        let mut left = 1_000;
        let u = stress.update_within(&inst, GRAVITY, DT, &mut left).unwrap();
        assert_eq!(u.preparing, 1);
    }
    let state = stress.state();
    assert_eq!(state.preparing, vec![(wall, 3)]);
    let copy = InstanceStress::from_state(&inst, state.clone()).unwrap();
    assert_eq!(copy.state(), state);
    let (mut ha, mut hb) = (
        smithereens_core::hash::StateHasher::new(),
        smithereens_core::hash::StateHasher::new(),
    );
    stress.hash_into(&mut ha);
    copy.hash_into(&mut hb);
    assert_eq!(ha.finish(), hb.finish());
    // The copy's solver holds none of the steps (it prepared the whole
    // system on restoring instead): the same updates all the same.
    for budget in [1_000, 5_000, 40_000] {
        let (mut a, mut b) = (stress.clone(), copy.clone());
        assert_eq!(
            run(&inst, &mut a, budget),
            run(&inst, &mut b, budget),
            "{budget}"
        );
        assert_eq!(a.state(), b.state());
        assert_eq!(a.utilisation(), b.utilisation());
    }
    // Without the preparation (a state from before it existed), the
    // solve starts at once; its results are those of the prepared one.
    let mut unprepared = InstanceStress::from_state(
        &inst,
        smithereens_core::stress::InstanceStressState {
            preparing: Vec::new(),
            ..state
        },
    )
    .unwrap();
    let direct = run(&inst, &mut unprepared, 1_000);
    let prepared = run(&inst, &mut stress, 1_000);
    assert_eq!(direct.iter().map(|u| u.preparing).sum::<u32>(), 0);
    assert_eq!(prepared.iter().map(|u| u.preparing).sum::<u32>(), 3);
    let tail = &prepared[3..];
    assert_eq!(tail.len(), direct.len());
    for (p, d) in tail.iter().zip(&direct) {
        assert_eq!(p, d);
    }
    assert_eq!(stress.utilisation(), unprepared.utilisation());
}

#[test]
fn a_bond_broken_while_preparing_starts_the_preparation_again() {
    let (mut inst, mut stress) = standing_wall();
    let wall = knock_off_a_corner(&mut inst, &mut stress);
    for _ in 0..4 {
        let mut left = 1_000;
        stress.update_within(&inst, GRAVITY, DT, &mut left).unwrap();
    }
    assert_eq!(stress.state().preparing, vec![(wall, 4)]);
    // A bond inside the wall (between two cubes of the bottom row).
    let asset = inst.asset().clone();
    let bond = asset
        .bonds()
        .iter_enumerated()
        .find(|(_, b)| b.chunk1.is_some() && asset.chunks()[b.chunk0].support)
        .map(|(i, _)| i)
        .unwrap();
    let event = smithereens_core::damage::StressDamage {
        id: EventId::new(EventSource(77), 2),
        point: Vec3::ZERO,
        bonds: vec![StressBondDamage {
            bond,
            damage: 1e9,
            fatal: true,
        }],
    };
    inst.admit(event.event()).unwrap();
    let out = inst.commit(&mut HeadlessBackend::default()).unwrap();
    assert_eq!(out.broken, vec![bond]);
    stress.observe_commit(&inst, &out);
    assert_eq!(stress.state().preparing, vec![(wall, 0)]);
    let updates = run(&inst, &mut stress, 1_000);
    assert_eq!(updates.iter().take_while(|u| u.preparing == 1).count(), 6);
}

#[test]
fn an_unlimited_update_prepares_and_solves_at_once() {
    let (mut inst, mut stress) = standing_wall();
    knock_off_a_corner(&mut inst, &mut stress);
    let u = stress.update(&inst, GRAVITY, DT).unwrap();
    assert_eq!((u.preparing, u.solves, u.unconverged), (1, 1, 0), "{u:?}");
    assert!(stress.state().preparing.is_empty());
    assert!(stress.is_idle());
}
