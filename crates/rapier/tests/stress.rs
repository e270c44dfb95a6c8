//! Stress in the game's own Rapier world (issue 13, item 5): structures
//! under gravity and under the sustained contact loads of bodies resting on
//! them, through the same admission and commit as contact damage.
//!
//! Cubes are 0.5 m blocks of 300 kg (2,400 kg/m³) bonded over their full
//! 0.25 m² faces (W = 2,943 N at 9.81 m/s²).

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_core::fixtures::cube_chunk;
use smithereens_core::instance::InstanceDesc;
use smithereens_core::stress::{Material, StressDesc, StressLimit, StressMaterials};
use smithereens_core::{Asset, AssetDesc, BondDesc, BondEnd, ChunkIndex, EventSource, Pose};
use smithereens_rapier::{DestructionSet, DestructionSettings, InstanceHandle};
use std::sync::Arc;

const SIZE: f32 = 0.5;
const DENSITY: f32 = 2400.0;

/// `n` cubes along +X from x = 0 at height `y`; `supports` are fixed.
fn beam(n: u32, y: f32, supports: &[u32]) -> Arc<Asset> {
    let desc = AssetDesc {
        chunks: (0..n)
            .map(|i| {
                cube_chunk(
                    Vec3::new(i as f32 * SIZE, y, 0.0),
                    SIZE,
                    DENSITY,
                    supports.contains(&i),
                )
            })
            .collect(),
        bonds: (0..n - 1)
            .map(|i| BondDesc {
                chunk0: i,
                chunk1: BondEnd::Chunk(i + 1),
                centroid: Vec3::new((i as f32 + 0.5) * SIZE, y, 0.0),
                normal: Vec3::X,
                area: SIZE * SIZE,
                strength: 100.0,
            })
            .collect(),
        support_depth: None,
    };
    Arc::new(Asset::new(&desc).unwrap())
}

/// Bending is tension on one face: limits in tension only (Pa).
fn tension(elastic: f32, fatal: f32) -> StressDesc {
    let far = StressLimit {
        elastic: 1e12,
        fatal: 1e12,
    };
    StressDesc::new(StressMaterials::uniform(Material {
        compression: far,
        tension: StressLimit { elastic, fatal },
        shear: far,
        damage_rate: 1e-5,
    }))
}

fn world() -> PhysicsWorld {
    let mut physics = PhysicsWorld::new();
    physics.insert(
        RigidBodyBuilder::fixed(),
        ColliderBuilder::cuboid(50.0, 0.1, 50.0).translation(Vector::new(0.0, -0.1, 0.0)),
    );
    physics
}

struct Scene {
    physics: PhysicsWorld,
    set: DestructionSet,
    h: InstanceHandle,
    broken: usize,
    stress_events: usize,
    solves: u32,
}

fn scene(asset: Arc<Asset>, desc: Option<StressDesc>) -> Scene {
    let mut physics = world();
    let mut set = DestructionSet::new(DestructionSettings::default()).unwrap();
    let h = set
        .spawn(&mut physics, asset, Pose::IDENTITY, InstanceDesc::default())
        .unwrap();
    if let Some(desc) = desc {
        set.enable_stress(&mut physics, h, desc).unwrap();
    }
    Scene::new(physics, set, h)
}

impl Scene {
    /// A scene of `h` in `set`, counters at zero.
    fn new(physics: PhysicsWorld, set: DestructionSet, h: InstanceHandle) -> Self {
        Scene {
            physics,
            set,
            h,
            broken: 0,
            stress_events: 0,
            solves: 0,
        }
    }

    /// The world and set of a `snapshot_with`, counters at zero.
    fn restored(bytes: &[u8], asset: Arc<Asset>, h: InstanceHandle) -> Self {
        let (physics, set) = DestructionSet::restore_with(bytes, &[asset]).unwrap();
        Scene::new(physics, set, h)
    }

    fn step(&mut self) {
        self.set.before_step(&self.physics);
        self.physics.step_with_events(&(), self.set.events());
        let report = self.set.after_step(&mut self.physics);
        assert!(report.failed.is_empty() && report.stress_errors.is_empty());
        let r = report.instance(self.h);
        self.broken += r.broken.len();
        self.stress_events += r
            .events
            .iter()
            .filter(|e| e.id.source() == EventSource::STRESS)
            .count();
        self.solves += r.stress.map_or(0, |s| s.solves);
        if let Some(s) = r.stress {
            assert!(s.max_residual.is_finite());
        }
    }

    /// World height of a chunk's centroid now.
    fn height(&mut self, chunk: u32) -> f32 {
        self.set.sync_instances(&self.physics);
        let inst = self.set.instance(self.h).unwrap();
        let c = inst.cluster_of(ChunkIndex(chunk)).unwrap();
        let frame = inst.cluster(c).unwrap().asset_to_world();
        frame
            .transform_point(inst.asset().chunks()[ChunkIndex(chunk)].centroid)
            .y
    }
}

#[test]
fn a_weak_cantilever_breaks_at_its_root_under_its_own_weight_and_its_arm_falls() {
    // Root moment of 6 arm cubes: W · 0.5 m · (1 + … + 6) = 30,902 N·m;
    // bending stress M / S, S = a³/6 = 0.0208 m³: 1.48 MPa.
    let mut s = scene(beam(7, 2.0, &[0]), Some(tension(0.5e6, 1.0e6)));
    for _ in 0..90 {
        s.step();
    }
    assert!(s.stress_events >= 1);
    assert!(s.broken >= 1);
    let inst = s.set.instance(s.h).unwrap();
    assert!(
        inst.is_broken(smithereens_core::BondIndex(0)),
        "the root broke"
    );
    assert!(s.height(6) < 1.0, "the tip fell from 2 m: {}", s.height(6));
}

#[test]
fn a_strong_cantilever_stands_600_steps_with_one_solve_and_zero_breaks() {
    let mut s = scene(beam(7, 2.0, &[0]), Some(tension(5.0e6, 10.0e6)));
    for _ in 0..600 {
        s.step();
    }
    assert_eq!(s.broken, 0);
    assert_eq!(s.stress_events, 0);
    assert_eq!(s.solves, 1, "idle after the first solve");
    assert!(s.set.stress(s.h).unwrap().unwrap().is_idle());
    assert!((s.height(6) - 2.0).abs() < 1e-4);
}

#[test]
fn without_stress_the_weak_cantilever_never_breaks() {
    let mut s = scene(beam(7, 2.0, &[0]), None);
    for _ in 0..90 {
        s.step();
    }
    assert_eq!(s.broken, 0);
    assert!(s.set.stress(s.h).unwrap().is_none());
}

/// A 10-cube deck 2 m up, fixed at both ends, with a 10 t box set down on
/// its middle (resting 1 mm above it, at rest: no impact).
fn deck_with_box(desc: StressDesc) -> Scene {
    let mut s = scene(beam(10, 2.0, &[0, 9]), Some(desc));
    for _ in 0..5 {
        s.step();
    }
    s.physics.insert(
        RigidBodyBuilder::dynamic().translation(Vector::new(2.25, 2.25 + 0.25 + 0.001, 0.0)),
        ColliderBuilder::cuboid(0.5, 0.25, 0.5).mass(10_000.0),
    );
    s
}

#[test]
fn a_box_resting_on_a_weak_deck_breaks_it_and_a_strong_deck_holds_it() {
    // Self weight alone: 8 free cubes on a 4.5 m fixed-fixed span, end
    // moment ≈ wL²/12 ≈ 10 kN·m ≈ 0.48 MPa; the 98 kN box adds ≈ FL/8 ≈
    // 55 kN·m ≈ 2.6 MPa. Weak: fatal 1.5 MPa; strong: elastic 6 MPa.
    let mut weak = deck_with_box(tension(1.0e6, 1.5e6));
    assert_eq!(weak.broken, 0, "self weight alone is under the limit");
    for _ in 0..120 {
        weak.step();
    }
    assert!(weak.broken >= 1, "the box broke the weak deck");
    assert!(weak.stress_events >= 1);
    assert!(weak.height(4) < 1.5, "the middle fell: {}", weak.height(4));

    let mut strong = deck_with_box(tension(6.0e6, 12.0e6));
    for _ in 0..600 {
        strong.step();
    }
    assert_eq!(strong.broken, 0);
    assert!((strong.height(4) - 2.0).abs() < 0.01);
    let stress = strong.set.stress(strong.h).unwrap().unwrap();
    // The 1 m box spans chunks 4 and 5: one sustained load on each, their
    // sum its weight, 98.1 kN.
    let chunks: Vec<u32> = stress.loads().map(|(_, l)| l.chunk.0).collect();
    assert_eq!(chunks.len(), 2, "{chunks:?}");
    assert!(chunks.contains(&4) && chunks.contains(&5));
    let total: Vec3 = stress.loads().map(|(_, l)| l.force).sum();
    assert!((total.y + 98_100.0).abs() < 0.05 * 98_100.0, "{total:?}");
    assert!(total.x.abs() < 100.0 && total.z.abs() < 100.0);
    assert!(
        stress.is_idle(),
        "the resting box costs nothing once solved"
    );
}

#[test]
fn a_load_ends_when_the_body_leaves() {
    let mut s = deck_with_box(tension(6.0e6, 12.0e6));
    for _ in 0..60 {
        s.step();
    }
    assert_eq!(s.set.stress(s.h).unwrap().unwrap().loads().count(), 2);
    // Remove the box: its pair stops, the load ends, the deck is re-solved.
    let boxes: Vec<RigidBodyHandle> = s
        .physics
        .bodies
        .iter()
        .filter(|(h, b)| b.is_dynamic() && s.set.body_owner(*h).is_none())
        .map(|(h, _)| h)
        .collect();
    assert_eq!(boxes.len(), 1);
    s.physics.remove_body_with_colliders(boxes[0], true);
    let solves = s.solves;
    for _ in 0..3 {
        s.step();
    }
    assert_eq!(s.set.stress(s.h).unwrap().unwrap().loads().count(), 0);
    assert_eq!(s.solves, solves + 1);
}

#[test]
fn bad_stress_settings_are_typed_errors_that_change_nothing() {
    let mut s = scene(beam(3, 1.0, &[0]), None);
    let mut desc = tension(1.0, 2.0);
    desc.settings.max_iterations = 0;
    assert!(matches!(
        s.set.enable_stress(&mut s.physics, s.h, desc),
        Err(smithereens_rapier::BackendError::Stress(_))
    ));
    let mut nan = tension(1.0, 2.0);
    nan.materials.materials[0].tension.fatal = f32::NAN;
    assert!(s.set.enable_stress(&mut s.physics, s.h, nan).is_err());
    assert!(s.set.stress(s.h).unwrap().is_none());
    let stale = smithereens_rapier::InstanceHandle::from_raw_parts(9, 9);
    assert!(matches!(
        s.set
            .enable_stress(&mut s.physics, stale, tension(1.0, 2.0)),
        Err(smithereens_rapier::BackendError::StaleInstance(_))
    ));
}

#[test]
fn a_snapshot_taken_while_stress_wears_a_bond_resumes_bit_for_bit() {
    // Root at 1.48 MPa against an elastic limit of 1.2 MPa: 0.28 MPa of
    // overshoot at 1e-5 du/(Pa·s) wears bond 0's 100 du away in ≈ 36 s; a
    // 10 t box set on the arm after the snapshot is taken adds a load.
    let mut s = scene(beam(7, 2.0, &[0]), Some(tension(1.2e6, 1.0e7)));
    for _ in 0..30 {
        s.step();
    }
    assert!(s.stress_events >= 29, "stress wears the root every step");
    let bytes = s.set.snapshot_with(&s.physics).unwrap();
    let asset = s.set.instance(s.h).unwrap().asset().clone();
    let mut twin = Scene::restored(&bytes, asset, s.h);
    assert_eq!(
        twin.set.world_hash(&twin.physics),
        s.set.world_hash(&s.physics)
    );
    let before = s.stress_events;
    for k in 0..90 {
        if k == 10 {
            for w in [&mut s, &mut twin] {
                w.physics.insert(
                    RigidBodyBuilder::dynamic().translation(Vector::new(2.5, 2.501, 0.0)),
                    ColliderBuilder::cuboid(0.2, 0.25, 0.2).mass(500.0),
                );
            }
        }
        s.step();
        twin.step();
        assert_eq!(
            s.set.world_hash(&s.physics),
            twin.set.world_hash(&twin.physics),
            "step {k}"
        );
    }
    assert_eq!(s.stress_events - before, twin.stress_events);
    assert_eq!(twin.stress_events, 90);
    assert!(s.set.stress(s.h).unwrap().unwrap().loads().count() >= 1);
    let h0 = s.set.instance(s.h).unwrap().health()[0];
    assert!(h0 < 100.0 && h0 == twin.set.instance(twin.h).unwrap().health()[0]);
}

/// The stress benchmark's tower (4 × 4 × 8 cubes on a support layer, 728
/// bonds, 9 iterations from rest) in a set whose frame budget is
/// `budget` bond passes, too weak in compression for its own weight (its
/// lowest bonds carry 8 cubes, 94 kPa; fatal at 20 kPa).
fn budgeted_tower(budget: u64) -> Scene {
    let asset = Arc::new(Asset::new(&smithereens_core::fixtures::stress_tower_desc()).unwrap());
    let mut physics = world();
    let mut set = DestructionSet::new(DestructionSettings {
        stress_work_per_frame: budget,
        ..DestructionSettings::default()
    })
    .unwrap();
    let h = set
        .spawn(&mut physics, asset, Pose::IDENTITY, InstanceDesc::default())
        .unwrap();
    let far = StressLimit {
        elastic: 1e12,
        fatal: 1e12,
    };
    let desc = StressDesc::new(StressMaterials::uniform(Material {
        compression: StressLimit {
            elastic: 1e4,
            fatal: 2e4,
        },
        tension: far,
        shear: far,
        damage_rate: 1e-5,
    }));
    set.enable_stress(&mut physics, h, desc).unwrap();
    Scene {
        physics,
        set,
        h,
        broken: 0,
        stress_events: 0,
        solves: 0,
    }
}

#[test]
fn a_frame_budget_spreads_a_solve_over_steps_and_a_snapshot_between_slices_resumes_bit_for_bit() {
    use smithereens_core::stress::solver::{HIERARCHY_BUILD_PASSES, MULTILEVEL_ITERATION_PASSES};
    // Unbounded: the first step's solve converges and breaks the foot.
    let mut whole = budgeted_tower(u64::MAX);
    whole.set.before_step(&whole.physics);
    whole.physics.step_with_events(&(), whole.set.events());
    let report = whole.set.after_step(&mut whole.physics);
    let first = report.instance(whole.h);
    assert!(!first.broken.is_empty(), "the weak tower fails at once");
    let first_work = first.stress.unwrap().work;
    assert!(first_work > 40_000, "{first_work} passes");

    // A budget of 15,000 passes: the same solve takes several steps, each
    // within the budget (or past it by the hierarchy's build and one
    // iteration), and no bond breaks before it converges.
    let budget = 15_000;
    let bonds = 728;
    let mut s = budgeted_tower(budget);
    let mut steps = 0;
    while s.broken == 0 {
        s.set.before_step(&s.physics);
        s.physics.step_with_events(&(), s.set.events());
        let report = s.set.after_step(&mut s.physics);
        let r = report.instance(s.h);
        s.broken += r.broken.len();
        let st = r.stress.unwrap();
        assert!(
            st.work <= budget + (HIERARCHY_BUILD_PASSES + MULTILEVEL_ITERATION_PASSES) * bonds,
            "step {steps}: {st:?}"
        );
        steps += 1;
        if s.broken == 0 {
            assert_eq!(st.unconverged, 1, "step {steps}: {st:?}");
        }
        if steps == 2 {
            break;
        }
    }
    assert_eq!(s.broken, 0, "two slices do not finish the solve");
    // Between slices: the solve in progress goes into the snapshot, and the
    // restored set (whose solver has built nothing) slices the rest the same.
    let bytes = s.set.snapshot_with(&s.physics).unwrap();
    let asset = s.set.instance(s.h).unwrap().asset().clone();
    let mut twin = Scene::restored(&bytes, asset, s.h);
    for k in 0..60 {
        s.step();
        twin.step();
        assert_eq!(
            s.set.world_hash(&s.physics),
            twin.set.world_hash(&twin.physics),
            "step {k} after the restore"
        );
    }
    assert!(s.broken > 0, "the weak tower still fails");
    assert_eq!(s.broken, twin.broken);
}
