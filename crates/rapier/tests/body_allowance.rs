//! The frame's body-creation allowance (issue 12 item 7,
//! `DestructionSettings::new_bodies_per_frame`): commits that would create
//! more new bodies than what is left of it wait whole for a later frame; the
//! first commit of a frame always goes through; instances take turns.

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_core::fixtures::grid_desc;
use smithereens_core::instance::InstanceDesc;
use smithereens_core::{Asset, EventId, Pose};
use smithereens_rapier::{
    DestructionSet, DestructionSettings, Explosion, InstanceHandle, SetStepReport, WorldSettings,
    new_physics_world,
};
use std::sync::Arc;

fn step(set: &mut DestructionSet, physics: &mut PhysicsWorld) -> SetStepReport {
    set.before_step(physics);
    physics.step_with_events(&(), set.events());
    set.after_step(physics)
}

/// `n` floating 3 × 2 × 1 slabs of 0.5 m cubes (6 chunks each), 3 m apart,
/// weightless, and a blast at each slab's centre that breaks every bond:
/// each commit makes 5 new bodies (the 6th chunk keeps the slab's).
fn slabs(
    n: u32,
    settings: DestructionSettings,
) -> (DestructionSet, PhysicsWorld, Vec<InstanceHandle>) {
    let mut physics = new_physics_world(&WorldSettings::default());
    physics.gravity = Vec3::ZERO;
    let mut set = DestructionSet::new(settings).unwrap();
    let mut desc = grid_desc(3, 2, 1, 0.5, 1000.0, 100.0);
    desc.chunks.iter_mut().for_each(|c| c.support = false);
    let asset = Arc::new(Asset::new(&desc).unwrap());
    let handles: Vec<InstanceHandle> = (0..n)
        .map(|k| {
            let at = Pose::from_translation(Vec3::new(k as f32 * 3.0, 0.0, 0.0));
            set.spawn(&mut physics, asset.clone(), at, InstanceDesc::default())
                .unwrap()
        })
        .collect();
    for (k, &h) in handles.iter().enumerate() {
        set.explode(
            &physics,
            h,
            Explosion {
                id: EventId(k as u64),
                point: Vec3::new(k as f32 * 3.0 + 0.75, 0.5, 0.25),
                radius: 3.0,
                damage: 1.0e6,
                impulse: 0.0,
                inner_radius: 0.0,
            },
        )
        .unwrap();
    }
    (set, physics, handles)
}

#[test]
fn ten_blasts_in_one_frame_create_at_most_the_allowance_per_frame() {
    // 10 slabs × 5 new bodies = 50 bodies; 16 per frame = 3 commits (15 bodies).
    let settings = DestructionSettings {
        new_bodies_per_frame: 16,
        ..Default::default()
    };
    let (mut set, mut physics, handles) = slabs(10, settings);
    let mut per_frame = Vec::new();
    let mut committed_at = vec![None; handles.len()];
    for frame in 0..10 {
        let r = step(&mut set, &mut physics);
        let mut created = 0;
        for (k, h) in handles.iter().enumerate() {
            let ir = r.instance(*h);
            if !ir.created.is_empty() {
                assert_eq!(ir.created.len(), 5, "a commit is atomic");
                assert!(committed_at[k].is_none());
                committed_at[k] = Some(frame);
                created += ir.created.len();
            } else if committed_at[k].is_none() {
                // Waiting: reported, events kept.
                assert_eq!(ir.throttled, Some(5), "slab {k} at frame {frame}");
                assert_eq!(set.instance(*h).unwrap().pending().len(), 1);
                assert_eq!(set.instance(*h).unwrap().broken_count(), 0);
            }
        }
        per_frame.push(created);
    }
    assert_eq!(per_frame, [15, 15, 15, 5, 0, 0, 0, 0, 0, 0]);
    assert!(committed_at.iter().all(Option::is_some));
    // Every piece is a body of its own at the end.
    for h in &handles {
        assert_eq!(set.cluster_bodies(*h).unwrap().len(), 6);
    }
}

#[test]
fn a_commit_larger_than_the_whole_allowance_goes_through_alone() {
    // 3 new bodies allowed per frame; each commit makes 5.
    let settings = DestructionSettings {
        new_bodies_per_frame: 3,
        ..Default::default()
    };
    let (mut set, mut physics, handles) = slabs(3, settings);
    let mut order = Vec::new();
    for _ in 0..3 {
        let r = step(&mut set, &mut physics);
        let done: Vec<usize> = (0..handles.len())
            .filter(|&k| !r.instance(handles[k]).created.is_empty())
            .collect();
        assert_eq!(done.len(), 1, "one commit per frame: {done:?}");
        order.push(done[0]);
    }
    order.sort_unstable();
    assert_eq!(order, [0, 1, 2], "each slab had its turn");
}

#[test]
fn an_instance_that_commits_every_frame_does_not_starve_another() {
    // One new body per frame. Instance A (a 40-cube bar, the lower handle,
    // so first in handle order) loses its end cube every frame: 1 body each
    // time. Instance B (a slab) needs 5 at once, so it can only go first in
    // a frame; the commit order rotates with the step index, so it does.
    let settings = DestructionSettings {
        new_bodies_per_frame: 1,
        ..Default::default()
    };
    let mut physics = new_physics_world(&WorldSettings::default());
    physics.gravity = Vec3::ZERO;
    let mut set = DestructionSet::new(settings).unwrap();
    let mut desc = grid_desc(40, 1, 1, 0.5, 1000.0, 100.0);
    desc.chunks.iter_mut().for_each(|c| c.support = false);
    let bar = Arc::new(Asset::new(&desc).unwrap());
    let at = Pose::from_translation(Vec3::new(0.0, 5.0, 0.0));
    let a = set
        .spawn(&mut physics, bar, at, InstanceDesc::default())
        .unwrap();
    let mut desc = grid_desc(3, 2, 1, 0.5, 1000.0, 100.0);
    desc.chunks.iter_mut().for_each(|c| c.support = false);
    let slab = Arc::new(Asset::new(&desc).unwrap());
    let b = set
        .spawn(&mut physics, slab, Pose::IDENTITY, InstanceDesc::default())
        .unwrap();
    assert!(a < b);
    set.explode(
        &physics,
        b,
        Explosion {
            id: EventId(1),
            point: Vec3::new(0.75, 0.5, 0.25),
            radius: 3.0,
            damage: 1.0e6,
            impulse: 0.0,
            inner_radius: 0.0,
        },
    )
    .unwrap();
    let mut b_done = None;
    let mut a_bodies = Vec::new();
    for frame in 0..6u32 {
        // The bond between the bar's last two remaining cubes (x = 20 − 0.5 k m).
        let x = 20.0 - 0.5 * (frame + 1) as f32;
        set.explode(
            &physics,
            a,
            Explosion {
                id: EventId(100 + u64::from(frame)),
                point: Vec3::new(x, 5.25, 0.25),
                radius: 0.1,
                damage: 1.0e6,
                impulse: 0.0,
                inner_radius: 0.0,
            },
        )
        .unwrap();
        let r = step(&mut set, &mut physics);
        let (ra, rb) = (r.instance(a), r.instance(b));
        assert!(ra.created.len() + rb.created.len() <= 5);
        if !rb.created.is_empty() {
            assert!(b_done.is_none());
            b_done = Some(frame);
            // B went alone: A waited.
            assert!(ra.created.is_empty(), "frame {frame}");
        }
        a_bodies.push(set.cluster_bodies(a).unwrap().len());
    }
    let b_done = b_done.expect("the slab committed");
    assert!(b_done <= 2, "the slab waited until frame {b_done}");
    // A committed in every other frame, catching up one event per commit.
    assert!(a_bodies.last().copied().unwrap() >= 5, "{a_bodies:?}");
}

#[test]
fn a_zero_allowance_is_a_typed_error() {
    let settings = DestructionSettings {
        new_bodies_per_frame: 0,
        ..Default::default()
    };
    assert!(matches!(
        DestructionSet::new(settings),
        Err(smithereens_rapier::BackendError::BadSetting {
            name: "new_bodies_per_frame",
            ..
        })
    ));
}
