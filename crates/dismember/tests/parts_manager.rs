//! Issue 15 item 8: create/keep hysteresis, intervals, lifetime, budgets (§8.5).
#![allow(clippy::unwrap_used)]

use smithereens_dismember::*;

fn cost() -> PartCost {
    PartCost {
        bodies: 3,
        constraints: 2,
        skinned_meshes: 1,
    }
}

#[test]
fn distances_have_hysteresis_in_front_and_behind() {
    let pm = PartsManager::new(PartsManagerParams::default()).unwrap();
    // In front: create ≤ 25, keep ≤ 30. At 27 m a live part stays, a new one is not created.
    assert!(pm.can_create(25.0, true) && !pm.can_create(27.0, true));
    assert!(!pm.should_remove(27.0, true) && !pm.should_remove(30.0, true));
    assert!(pm.should_remove(30.1, true));
    // Behind: 15 / 20.
    assert!(pm.can_create(15.0, false) && !pm.can_create(16.0, false));
    assert!(!pm.should_remove(20.0, false) && pm.should_remove(20.5, false));
}

#[test]
fn removal_runs_on_its_own_interval_and_honours_lifetime_and_keep_distance() {
    let mut pm = PartsManager::new(PartsManagerParams::default()).unwrap();
    let a = pm.try_create(cost(), 10.0, true, 0.0).unwrap().unwrap();
    let b = pm.try_create(cost(), 24.0, true, 0.0).unwrap().unwrap();
    assert_eq!(
        pm.try_create(cost(), 27.0, true, 0.0).unwrap(),
        Err(CreateRefusal::TooFar)
    );
    let mut removed = vec![];
    // b drifts to 27 m: inside the keep band.
    let at = |id: PartId| if id == b { (27.0, true) } else { (10.0, true) };
    assert!(pm.check_removals(1.0, at, &mut removed).unwrap());
    assert!(removed.is_empty());
    // Too soon for another check (interval 0.5 s), even though b is now 31 m away.
    let far = |id: PartId| if id == b { (31.0, true) } else { (10.0, true) };
    assert!(!pm.check_removals(1.2, far, &mut removed).unwrap());
    assert!(pm.check_removals(1.5, far, &mut removed).unwrap());
    assert_eq!(removed, vec![b]);
    // a outlives max_lifetime (30 s).
    assert!(
        pm.check_removals(30.5, |_| (1.0, true), &mut removed)
            .unwrap()
    );
    assert_eq!(removed, vec![b, a]);
    assert_eq!(pm.used(), PartCost::default());
    assert!(pm.update_due(0.0, 0.1) && !pm.update_due(0.0, 0.05));
}

#[test]
fn budgets_count_bodies_constraints_and_skinned_meshes() {
    let params = PartsManagerParams {
        budget: PartCost {
            bodies: 100,
            constraints: 100,
            skinned_meshes: 2,
        },
        ..PartsManagerParams::default()
    };
    let mut pm = PartsManager::new(params).unwrap();
    assert!(pm.try_create(cost(), 1.0, true, 0.0).unwrap().is_ok());
    assert!(pm.try_create(cost(), 1.0, true, 0.0).unwrap().is_ok());
    assert_eq!(
        pm.try_create(cost(), 1.0, true, 0.0).unwrap(),
        Err(CreateRefusal::OverBudget)
    );
    assert_eq!(pm.used().bodies, 6);
    assert_eq!(pm.live().count(), 2);
}

#[test]
fn bad_parts_input_is_a_typed_error() {
    let mut p = PartsManagerParams::default();
    p.front.keep = 20.0;
    assert_eq!(PartsManager::new(p), Err(PartsError::BadParams("front")));
    let p = PartsManagerParams {
        max_lifetime: f32::NAN,
        ..PartsManagerParams::default()
    };
    assert!(PartsManager::new(p).is_err());
    let mut pm = PartsManager::new(PartsManagerParams::default()).unwrap();
    assert_eq!(
        pm.try_create(cost(), f32::NAN, true, 0.0),
        Err(PartsError::BadInput)
    );
    let _ = pm.try_create(cost(), 1.0, true, 0.0).unwrap();
    let before = pm.clone();
    assert_eq!(
        pm.check_removals(5.0, |_| (f32::NAN, true), &mut vec![]),
        Err(PartsError::BadInput)
    );
    assert_eq!(pm, before);
}
