//! Recorded runs with several instances and plain bodies: chunks and bonds
//! are flattened with global indices, shared assets are validated once,
//! plain bodies move as their kind says, explosions reach the instance they
//! name, a one-instance run hashes exactly as a `DestructionWorld` does,
//! and bad bodies or explosion targets are typed errors.

use smithereens_core::fixtures::grid_desc;
use smithereens_core::glam::{Quat, Vec3};
use smithereens_core::record::{RunRecord, pose_from_array};
use smithereens_core::{AssetFile, ChunkMesh, EventId, Pose};
use smithereens_rapier::recorded_run::{
    PlainBodyDesc, PlainMass, RunBodyKind, RunError, RunInstance, RunShape, ScheduledExplosion,
    ScheduledProjectile, ScriptedRun, run,
};
use smithereens_rapier::{
    BackendError, DestructionWorld, Explosion, ProjectileDesc, WorldSettings,
};
use std::sync::Arc;

/// An `nx × ny × 1` grid of 0.5 m cubes (bottom row supported when `supported`),
/// one render-mesh placeholder per chunk.
fn grid(nx: u32, ny: u32, supported: bool) -> Arc<AssetFile> {
    grid_of_strength(nx, ny, supported, 400.0)
}

/// As [`grid`], with bonds of `strength_per_area` du/m².
fn grid_of_strength(nx: u32, ny: u32, supported: bool, strength_per_area: f32) -> Arc<AssetFile> {
    let mut desc = grid_desc(nx, ny, 1, 0.5, 1000.0, strength_per_area);
    if !supported {
        for c in &mut desc.chunks {
            c.support = false;
        }
    }
    let meshes = vec![ChunkMesh::default(); desc.chunks.len()];
    Arc::new(AssetFile {
        name: "grid".into(),
        desc,
        meshes,
        ..Default::default()
    })
}

fn at(x: f32, z: f32) -> Pose {
    Pose::from_translation(Vec3::new(x, 0.0, z))
}

fn pusher(velocity: Vec3, position: Vec3) -> PlainBodyDesc {
    PlainBodyDesc {
        shape: RunShape::Box {
            half_extents: Vec3::new(0.5, 0.5, 1.0),
        },
        kind: RunBodyKind::Kinematic,
        pose: Pose::from_translation(position),
        velocity,
        mass: PlainMass::Density(1000.0),
    }
}

/// Lowest world y of every chunk cube (0.5 m) on the last frame.
fn cube_bottoms(record: &RunRecord, frame: u32) -> Vec<f32> {
    let mut out = vec![f32::NAN; record.chunks.len()];
    for b in &record.bodies {
        let Some(p) = b
            .poses
            .get(frame.wrapping_sub(b.first_frame) as usize)
            .filter(|_| frame >= b.first_frame)
        else {
            continue;
        };
        let pose = pose_from_array(p);
        for &c in &b.chunks {
            out[c as usize] = pose.transform_point(record.chunks[c as usize].centroid).y - 0.25;
        }
    }
    out
}

#[test]
fn three_instances_flatten_into_one_record_with_global_chunk_and_bond_indices() {
    let a = grid(3, 2, true); // 6 chunks, 7 bonds
    let b = grid(2, 2, true); // 4 chunks, 4 bonds
    let mut s = ScriptedRun::new("three", WorldSettings::default(), 20);
    s.instances.push(RunInstance::new(a.clone(), at(-3.0, 0.0)));
    s.instances.push(RunInstance::new(b.clone(), at(0.0, 0.0)));
    s.instances.push(RunInstance::new(a.clone(), at(3.0, 0.0)));
    let (record, summary) = run(&s, &mut |_, _| {}).unwrap();
    assert_eq!(summary.instances, 3);
    assert_eq!(
        summary.assets, 2,
        "the two instances of `a` share one asset"
    );
    assert_eq!(summary.chunks, 16);
    assert_eq!(record.chunks.len(), 16);
    assert_eq!(summary.bonds, 18);
    assert_eq!(record.bonds.len(), 18);
    // Instance 1's bonds name chunks 6..10, instance 2's chunks 10..16.
    for bond in &record.bonds[7..11] {
        assert!((6..10).contains(&bond.chunk0), "{bond:?}");
        assert!(bond.chunk1.is_some_and(|c| (6..10).contains(&c)));
    }
    for bond in &record.bonds[11..] {
        assert!((10..16).contains(&bond.chunk0), "{bond:?}");
    }
    // Every chunk has exactly one body on every frame; the third instance
    // sits 3 m to the right of the first, chunk for chunk.
    assert_eq!(RunRecord::from_json(&record.to_json()).unwrap(), record);
    let body_of = |c: u32| {
        record
            .bodies
            .iter()
            .find(|b| b.chunks.contains(&c))
            .unwrap()
    };
    let p0 = pose_from_array(&body_of(0).poses[0]);
    let p2 = pose_from_array(&body_of(10).poses[0]);
    let d = p2.transform_point(record.chunks[10].centroid)
        - p0.transform_point(record.chunks[0].centroid);
    assert!((d - Vec3::new(6.0, 0.0, 0.0)).length() < 1e-5, "{d}");
    assert_eq!(
        record.bodies.len(),
        3,
        "one fixed body per supported instance"
    );
    assert!(
        record
            .bodies
            .iter()
            .all(|b| b.supported && b.poses.len() == 21)
    );
    assert_eq!(summary.bonds_broken, 0);
    assert_eq!(summary.instances_broken, 0);
    assert!(summary.lowest_chunk_y_ever > -0.01);
}

#[test]
fn a_kinematic_pusher_keeps_its_velocity_and_breaks_a_free_standing_grid() {
    // One contact episode is one event; it spreads through the grid's bond
    // graph from the touched chunk, so the first hit can split the grid.
    let settings = WorldSettings::default();
    let mut s = ScriptedRun::new("push", settings, 90);
    // Bonds of 10 du (40 du/m² × 0.25 m²).
    s.instances.push(RunInstance::new(
        grid_of_strength(2, 4, false, 40.0),
        at(0.0, 0.0),
    ));
    s.bodies
        .push(pusher(Vec3::new(6.0, 0.0, 0.0), Vec3::new(-2.0, 0.6, 0.25)));
    s.bodies.push(PlainBodyDesc {
        shape: RunShape::Ball { radius: 0.3 },
        kind: RunBodyKind::Fixed,
        pose: Pose::from_translation(Vec3::new(0.0, 0.3, -4.0)),
        velocity: Vec3::ZERO,
        mass: PlainMass::Mass(50.0),
    });
    let (record, summary) = run(&s, &mut |_, _| {}).unwrap();
    assert_eq!(record.plain_bodies.len(), 2);
    let push = &record.plain_bodies[0];
    assert_eq!(push.kind, RunBodyKind::Kinematic);
    assert_eq!(push.poses.len(), 91);
    // 90 steps of 1/60 s at 6 m/s: 9 m.
    let end = push.poses[90];
    assert!((end[0] - 7.0).abs() < 1e-3, "pusher ends at x = {}", end[0]);
    assert_eq!(end[1], 0.6);
    let ball = &record.plain_bodies[1];
    assert!(
        ball.poses.iter().all(|p| *p == ball.poses[0]),
        "a fixed body never moves"
    );
    assert!(
        summary.bonds_broken > 0,
        "the pusher broke no bond: {summary:?} {:?}",
        record.events
    );
    assert_eq!(summary.instances_broken, 1);
    assert!(summary.dynamic_bodies >= 2, "{summary:?}");
    assert_eq!(summary.non_finite_steps, 0);
    // Pieces were pushed along +x.
    let moved = cube_bottoms(&record, 90);
    assert!(moved.iter().all(|y| y.is_finite()));
    let xs: Vec<f32> = record
        .bodies
        .iter()
        .filter(|b| b.first_frame + b.poses.len() as u32 == 91)
        .map(|b| pose_from_array(b.poses.last().unwrap()).translation.x)
        .collect();
    assert!(xs.iter().any(|&x| x > 1.5), "nothing was pushed: {xs:?}");
}

#[test]
fn an_explosion_damages_only_the_instance_it_names() {
    let a = grid(3, 3, true);
    let mut s = ScriptedRun::new("blast", WorldSettings::default(), 10);
    // The blast's radius covers both grids: only the named target breaks.
    s.instances.push(RunInstance::new(a.clone(), at(0.0, 0.0)));
    s.instances.push(RunInstance::new(a.clone(), at(0.0, 2.0)));
    s.explosions.push(ScheduledExplosion {
        step: 2,
        instance: 1,
        explosion: Explosion {
            id: EventId(0),
            point: Vec3::new(0.75, 0.75, 2.25),
            radius: 3.0,
            damage: 1e5,
            impulse: 0.0,
            inner_radius: 0.0,
        },
    });
    let (record, summary) = run(&s, &mut |_, _| {}).unwrap();
    assert_eq!(summary.instances_broken, 1);
    // Instance 1's bonds are 12..24.
    assert!(!record.breaks.is_empty());
    assert!(
        record.breaks.iter().all(|b| (12..24).contains(&b.bond)),
        "{:?}",
        record.breaks
    );
    // The blast first (admitted before step 2, so recorded on the frame
    // that step makes: 3); contacts of the pieces it freed follow.
    assert_eq!(record.events[0].frame, 3);
    assert_eq!(record.events[0].id, 0);

    s.explosions[0].instance = 2;
    assert_eq!(
        run(&s, &mut |_, _| {}).unwrap_err(),
        RunError::ExplosionTarget {
            explosion: 0,
            instance: 2,
            count: 2
        }
    );
}

#[test]
fn a_one_instance_run_hashes_every_frame_as_a_destruction_world_does() {
    let a = grid(4, 4, true);
    let placement = at(0.0, 0.0);
    let settings = WorldSettings::default();
    let projectile = ProjectileDesc {
        position: Vec3::new(1.0, 1.25, -2.0),
        velocity: Vec3::new(0.0, 0.0, 25.0),
        radius: 0.2,
        mass: 200.0,
    };
    let mut s = ScriptedRun::single("one", (*a).clone(), placement, settings, 60);
    s.projectiles.push(ScheduledProjectile {
        step: 5,
        projectile,
    });
    let (record, summary) = run(&s, &mut |_, _| {}).unwrap();
    assert!(summary.bonds_broken > 0);

    let asset = Arc::new(a.validate().unwrap());
    let mut world = DestructionWorld::new(asset, placement, settings).unwrap();
    let mut hashes = vec![world.state_hash()];
    for step in 0..60 {
        if step == 5 {
            world.spawn_projectile(projectile).unwrap();
        }
        world.step().unwrap();
        hashes.push(world.state_hash());
    }
    assert_eq!(record.frame_hashes, hashes);
    assert_eq!(summary.final_hash, world.state_hash());
}

#[test]
fn bad_plain_bodies_are_typed_errors_before_anything_runs() {
    let base = pusher(Vec3::X, Vec3::new(0.0, 1.0, 0.0));
    let bad = [
        PlainBodyDesc {
            shape: RunShape::Box {
                half_extents: Vec3::new(0.5, -0.5, 0.5),
            },
            ..base
        },
        PlainBodyDesc {
            shape: RunShape::Ball { radius: f32::NAN },
            ..base
        },
        PlainBodyDesc {
            mass: PlainMass::Mass(0.0),
            ..base
        },
        PlainBodyDesc {
            kind: RunBodyKind::Fixed,
            ..base
        },
        PlainBodyDesc {
            pose: Pose {
                rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 2.0),
                translation: Vec3::ZERO,
            },
            ..base
        },
        PlainBodyDesc {
            velocity: Vec3::new(f32::INFINITY, 0.0, 0.0),
            ..base
        },
    ];
    for body in bad {
        let mut s = ScriptedRun::new("bad", WorldSettings::default(), 5);
        s.bodies.push(body);
        match run(&s, &mut |_, _| {}) {
            Err(RunError::Backend(BackendError::BadSetting { .. })) => {}
            other => panic!("{body:?}: {other:?}"),
        }
    }
}

/// Issue 16: a projectile or explosion scheduled at or after the last step
/// would never happen; it used to be dropped silently.
#[test]
fn launches_and_blasts_after_the_end_of_the_run_are_typed_errors() {
    let projectile = ProjectileDesc {
        position: Vec3::new(1.0, 1.25, -2.0),
        velocity: Vec3::new(0.0, 0.0, 25.0),
        radius: 0.2,
        mass: 200.0,
    };
    let mut s = ScriptedRun::single(
        "late",
        (*grid(2, 2, true)).clone(),
        at(0.0, 0.0),
        WorldSettings::default(),
        10,
    );
    s.projectiles.push(ScheduledProjectile {
        step: 9,
        projectile,
    });
    assert!(run(&s, &mut |_, _| {}).is_ok(), "step 9 of 10 is the last");
    s.projectiles.push(ScheduledProjectile {
        step: 10,
        projectile,
    });
    assert_eq!(
        run(&s, &mut |_, _| {}).unwrap_err(),
        RunError::ProjectileAfterEnd {
            projectile: 1,
            step: 10,
            steps: 10
        }
    );
    s.projectiles.pop();
    s.explosions.push(ScheduledExplosion {
        step: 12,
        instance: 0,
        explosion: Explosion {
            id: EventId(0),
            point: Vec3::ZERO,
            radius: 1.0,
            damage: 1.0,
            impulse: 0.0,
            inner_radius: 0.0,
        },
    });
    assert_eq!(
        run(&s, &mut |_, _| {}).unwrap_err(),
        RunError::ExplosionAfterEnd {
            explosion: 0,
            step: 12,
            steps: 10
        }
    );
}

/// Issue 16: a step count above the documented cap is refused before
/// anything is allocated (4e9 steps used to abort on a 32 GB allocation).
#[test]
fn a_run_longer_than_the_cap_is_refused_before_it_starts() {
    let steps = smithereens_core::record::MAX_RUN_STEPS + 1;
    let mut progressed = false;
    let s = ScriptedRun::new("long", WorldSettings::default(), steps);
    assert_eq!(
        run(&s, &mut |_, _| progressed = true).unwrap_err(),
        RunError::TooManySteps { steps }
    );
    assert!(!progressed);
    let s = ScriptedRun::new("longer", WorldSettings::default(), 4_000_000_000);
    assert_eq!(
        run(&s, &mut |_, _| {}).unwrap_err(),
        RunError::TooManySteps {
            steps: 4_000_000_000
        }
    );
}

/// A run's contact prediction distance must be finite and in (0, 1] m: a
/// bad one is a typed error before anything runs; a good one reaches the
/// Rapier world (a run with it differs from one without).
#[test]
fn a_bad_prediction_distance_is_a_typed_error_and_a_good_one_is_used() {
    // A free grid dropped 0.2 m: it touches down within the 40 steps.
    let mut s = ScriptedRun::new("predict", WorldSettings::default(), 40);
    s.instances.push(RunInstance::new(
        grid(3, 3, false),
        Pose::from_translation(Vec3::new(0.0, 0.2, 0.0)),
    ));
    for bad in [f32::NAN, 0.0, -0.01, 1.5, f32::INFINITY] {
        s.prediction_distance = Some(bad);
        assert!(
            matches!(
                run(&s, &mut |_, _| {}),
                Err(RunError::Backend(BackendError::BadSetting {
                    name: "prediction_distance",
                    ..
                }))
            ),
            "{bad}"
        );
    }
    s.prediction_distance = None;
    let plain = run(&s, &mut |_, _| {}).unwrap();
    s.prediction_distance = Some(0.05);
    let predicted = run(&s, &mut |_, _| {}).unwrap();
    assert_ne!(plain.0.frame_hashes, predicted.0.frame_hashes);
}
