//! Issue 11, item 1 (core part): impact damage that starts at the touched
//! chunk and spreads through the bond graph, so a harder hit breaks more.
//!
//! The wall is the built-in one's size, 4 m × 2.5 m × 0.3 m, as a 16 × 10
//! grid of 0.25 m cubes standing on supported bottom cubes, bonds of
//! 1,500 du/m² × 0.0625 m² = 93.75 du (294 bonds, 27,562.5 du in all). The
//! budgets are what the contact mapping gives balls of 45 kg, 450 kg, 4.5 t
//! and 45 t at 24 m/s (`(1 + e)·m·v − 20 N·s` with e = 0.1 and 1 du per
//! N·s): 1,168, 11,860, 118,780 and 1,187,980 du. With a fixed 0.35 m
//! radius every one of them broke the same few bonds.

#![allow(clippy::unwrap_used)]

use smithereens_core::glam::Vec3;
use smithereens_core::*;
use std::sync::Arc;

fn wall() -> Arc<Asset> {
    Arc::new(Asset::new(&fixtures::grid_desc(16, 10, 1, 0.25, 2400.0, 1500.0)).unwrap())
}

/// The chunk the ball touches: the middle of the wall, 1.2 m up.
const TOUCHED: ChunkIndex = ChunkIndex(8 + 16 * 4);

fn impact(id: u64, damage: f32) -> SpreadDamage {
    SpreadDamage {
        id: EventId(id),
        chunk: TOUCHED,
        point: Vec3::new(2.0, 1.2, 0.0),
        damage,
        max_rings: 64,
        impulse: None,
    }
}

fn broken_by(damage: f32) -> (usize, f32) {
    let mut inst = Instance::new(wall(), Pose::IDENTITY).unwrap();
    inst.admit(impact(1, damage)).unwrap();
    let plan = inst.plan::<()>().unwrap();
    let unspent = plan.events[0].damage_unspent;
    inst.commit(&mut HeadlessBackend::default()).unwrap();
    (inst.broken_count(), unspent)
}

#[test]
fn heavier_balls_break_strictly_more_bonds_and_a_light_tap_none() {
    let ball = |m: f32| 1.1 * m * 24.0 - 20.0;
    let counts: Vec<(usize, f32)> = [45.0, 450.0, 4500.0, 45_000.0]
        .iter()
        .map(|&m| broken_by(ball(m)))
        .collect();
    let total = wall().bond_count();
    for w in counts.windows(2) {
        assert!(
            w[1].0 > w[0].0 || w[1].0 == total,
            "broken bonds {counts:?} of {total}"
        );
    }
    // 45 kg: the touched chunk's 4 bonds (375 du) and part of the next ring.
    assert!(counts[0].0 >= 4, "{counts:?}");
    // 450 kg opens a hole: rings 0–3 around the touched chunk (4 + 12 + 20
    // + 28 bonds, 6,000 du of the 11,860) are severed, freeing 25 of the
    // 160 chunks (16 %).
    assert!(counts[1].0 >= 64, "{counts:?}");
    // 4.5 t and 45 t break everything and report what was left unspent,
    // nothing silently dissipated: 118,780 − 27,562.5 du.
    assert_eq!(counts[2].0, total);
    assert!(
        (counts[2].1 - (ball(4500.0) - 27_562.5)).abs() < 1.0,
        "{counts:?}"
    );
    // A 1 kg ball at 5 m/s is below the 20 N·s threshold: no event at all;
    // even a 5 du budget breaks nothing here.
    assert_eq!(broken_by(5.0).0, 0);
}

#[test]
fn a_spreading_event_breaks_only_what_its_budget_pays_for() {
    // Exactly the touched chunk's four bonds: it comes loose, nothing else.
    let (broken, unspent) = broken_by(4.0 * 93.75);
    assert_eq!((broken, unspent), (4, 0.0));
}

#[test]
fn bad_spreading_events_are_typed_errors_that_change_nothing() {
    let mut inst = Instance::new(wall(), Pose::IDENTITY).unwrap();
    let before = inst.state_hash();
    let unknown = SpreadDamage {
        chunk: ChunkIndex(160),
        ..impact(1, 100.0)
    };
    assert_eq!(inst.admit(unknown), Err(DamageError::UnknownChunk(160)));
    let unreached = SpreadDamage {
        max_rings: 0,
        ..impact(1, 100.0)
    };
    assert_eq!(inst.admit(unreached), Err(DamageError::BadReach(0)));
    for bad in [f32::NAN, -1.0, f32::INFINITY] {
        assert!(matches!(
            inst.admit(impact(1, bad)),
            Err(DamageError::BadDamage(_))
        ));
    }
    assert_eq!(inst.state_hash(), before);
    assert!(inst.pending().is_empty());
}

#[test]
fn a_pending_spreading_event_survives_a_snapshot_and_applies_the_same() {
    let mut a = Instance::new(wall(), Pose::IDENTITY).unwrap();
    a.admit(impact(7, 3000.0)).unwrap();
    let snap = smithereens_core::snapshot::Snapshot::from_bytes(&a.snapshot().to_bytes()).unwrap();
    let mut b = Instance::restore(wall(), &snap).unwrap();
    a.commit(&mut HeadlessBackend::default()).unwrap();
    b.commit(&mut HeadlessBackend::default()).unwrap();
    assert!(a.broken_count() > 4);
    assert_eq!(a.state_hash(), b.state_hash());
    // The same id again is answered from the receipt, not applied twice.
    assert!(matches!(
        a.admit(impact(7, 3000.0)),
        Ok(Admission::Applied(_))
    ));
    assert!(matches!(
        a.admit(impact(7, 3001.0)),
        Err(DamageError::ConflictingEvent(7))
    ));
}
