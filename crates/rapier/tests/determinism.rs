//! Determinism: identical hash sequences for the same scenario run twice in
//! one process, in two processes, and when restored from a mid-impact snapshot.

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use glam::Vec3;
use smithereens_core::fixtures::grid_desc;
use smithereens_core::{Asset, Pose};
use smithereens_rapier::{DestructionWorld, ProjectileDesc, WorldSettings, WorldSnapshotError};
use std::sync::Arc;

fn asset() -> Arc<Asset> {
    Arc::new(Asset::new(&grid_desc(8, 5, 2, 0.4, 2000.0, 500.0)).unwrap())
}

fn world() -> DestructionWorld {
    let settings = WorldSettings::default();
    let mut w = DestructionWorld::new(asset(), Pose::IDENTITY, settings).unwrap();
    w.spawn_projectile(ProjectileDesc {
        position: Vec3::new(1.6, 1.0, -2.0),
        velocity: Vec3::new(0.0, 0.0, 24.0),
        radius: 0.3,
        mass: 450.0,
    })
    .unwrap();
    w
}

fn hashes(w: &mut DestructionWorld, steps: usize) -> Vec<u64> {
    (0..steps)
        .map(|_| {
            w.step().unwrap();
            w.state_hash()
        })
        .collect()
}

const STEPS: usize = 180;

#[test]
fn the_same_run_twice_in_one_process_gives_identical_hashes() {
    let a = hashes(&mut world(), STEPS);
    let b = hashes(&mut world(), STEPS);
    assert_eq!(a, b);
    // The run is not trivial: the impact broke bonds and the hashes changed.
    let mut w = world();
    hashes(&mut w, STEPS);
    assert!(w.instance().broken_count() > 0);
    assert!(a.windows(2).filter(|p| p[0] != p[1]).count() > 100);
}

/// Child role: print the hash sequence and exit (see the next test).
#[test]
fn child_prints_hashes() {
    if std::env::var_os("SMITHEREENS_DETERMINISM_CHILD").is_none() {
        return;
    }
    for h in hashes(&mut world(), STEPS) {
        println!("HASH {h:016x}");
    }
}

#[test]
fn a_second_process_computes_the_same_hashes() {
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            "child_prints_hashes",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env("SMITHEREENS_DETERMINISM_CHILD", "1")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    // The test harness may print its own text on the same line as the first hash.
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let theirs: Vec<u64> = tokens
        .windows(2)
        .filter(|w| w[0] == "HASH")
        .map(|w| u64::from_str_radix(w[1], 16).unwrap())
        .collect();
    assert_eq!(theirs.len(), STEPS, "child output: {text}");
    assert_eq!(theirs, hashes(&mut world(), STEPS));
}

#[test]
fn a_run_restored_from_a_mid_impact_snapshot_continues_with_the_same_hashes() {
    let mut w = world();
    // Step until the impact has freed debris, then two more steps: debris is in flight.
    let mut n = 0;
    while w.dynamic_body_count() == 0 {
        w.step().unwrap();
        n += 1;
        assert!(n < 120, "no debris");
    }
    hashes(&mut w, 2);
    let bytes = w.snapshot().unwrap();
    let at_snapshot = w.state_hash();
    let original = hashes(&mut w, 120);
    let mut restored = DestructionWorld::restore(asset(), &bytes).unwrap();
    assert_eq!(restored.state_hash(), at_snapshot);
    assert_eq!(hashes(&mut restored, 120), original);
}

#[test]
fn corrupt_or_foreign_world_snapshots_are_rejected() {
    let mut w = world();
    hashes(&mut w, 10);
    let bytes = w.snapshot().unwrap();
    assert!(matches!(
        DestructionWorld::restore(asset(), &bytes[..bytes.len() / 3]),
        Err(WorldSnapshotError::Decode(_))
    ));
    assert!(DestructionWorld::restore(asset(), b"garbage").is_err());
    let other = Arc::new(Asset::new(&grid_desc(3, 3, 1, 0.4, 2000.0, 500.0)).unwrap());
    assert!(matches!(
        DestructionWorld::restore(other, &bytes),
        Err(WorldSnapshotError::Set(
            smithereens_rapier::SetSnapshotError::MissingAsset(_)
        ))
    ));
}
