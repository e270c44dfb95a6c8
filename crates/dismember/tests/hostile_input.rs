//! Hostile input found by review: each case is a typed error, changes
//! nothing and does not panic.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use glam::{Affine3A, Vec3};
use smithereens_dismember::*;

fn victim() -> VictimHandle {
    VictimHandle {
        id: VictimId(7),
        generation: 0,
    }
}

/// Typed indices have no public constructor; out-of-range ones arrive
/// through deserialised data (events, snapshots, plans).
fn bone_ix(i: u32) -> BoneIndex {
    serde_json::from_str(&i.to_string()).unwrap()
}

fn still<'a>(pose: &'a [Affine3A]) -> DetachInput<'a> {
    DetachInput {
        body_to_world: Affine3A::IDENTITY,
        gib_to_world: Affine3A::IDENTITY,
        pose,
        motion: Motion::Physics {
            linear: Vec3::ZERO,
            angular: Vec3::ZERO,
            center: Vec3::ZERO,
        },
        impact_direction: Vec3::X,
        impact_speed: 3.0,
        impulse: GibImpulse::default(),
    }
}

fn forearm_plan(m: &BodyModel, s: &BodyState, pose: &[Affine3A]) -> GibPlan {
    let fa = bone(m, "l_forearm");
    let request = DetachRequest {
        victim: victim(),
        event: EventId(1),
        root: fa,
        recipe: m.bones()[fa.get() as usize].cut.unwrap().recipe,
    };
    match plan_detach(m, s, &request, &still(pose)).unwrap() {
        PlanOutcome::Planned(p) => *p,
        other => panic!("expected a plan, got {other:?}"),
    }
}

#[test]
fn a_plan_edited_after_planning_does_not_commit() {
    let m = humanoid();
    let pose = m.bind_pose();
    let mut s = BodyState::new(&m, victim());
    let before = s.clone();
    let plan = forearm_plan(&m, &s, &pose);

    let mut p = plan.clone();
    p.request.root = bone_ix(u32::MAX);
    assert_eq!(
        commit_detach(&m, &mut s, &p),
        Err(DetachError::BoneOutOfRange(bone_ix(u32::MAX)))
    );
    let mut p = plan.clone();
    p.parts |= bone_bit(bone(&m, "head"));
    assert_eq!(
        commit_detach(&m, &mut s, &p),
        Err(DetachError::PlanMismatch)
    );
    let mut p = plan.clone();
    p.parts = 0;
    assert_eq!(
        commit_detach(&m, &mut s, &p),
        Err(DetachError::PlanMismatch)
    );
    let mut p = plan.clone();
    p.request.recipe = m.recipe_index("hole_forearm_left").unwrap();
    assert_eq!(
        commit_detach(&m, &mut s, &p),
        Err(DetachError::NotDetaching)
    );
    assert_eq!(s, before);

    // The honest plan still commits.
    commit_detach(&m, &mut s, &plan).unwrap();
    assert!(!s.is_present(bone(&m, "l_hand")));
}

#[test]
fn huge_finite_detach_inputs_that_overflow_are_a_typed_error() {
    let m = humanoid();
    let pose = m.bind_pose();
    let s = BodyState::new(&m, victim());
    let fa = bone(&m, "l_forearm");
    let request = DetachRequest {
        victim: victim(),
        event: EventId(1),
        root: fa,
        recipe: m.bones()[fa.get() as usize].cut.unwrap().recipe,
    };
    let good = still(&pose);
    let cases = [
        DetachInput {
            impact_speed: 3.0e38,
            ..good
        },
        DetachInput {
            body_to_world: Affine3A::from_scale(Vec3::splat(1.0e30)),
            ..good
        },
        DetachInput {
            motion: Motion::Physics {
                linear: Vec3::splat(3.0e38),
                angular: Vec3::splat(3.0e38),
                center: Vec3::splat(-3.0e38),
            },
            ..good
        },
        DetachInput {
            impulse: GibImpulse {
                impact_velocity_multiplier: [3.0e38, 3.0e38],
                ..GibImpulse::default()
            },
            ..good
        },
    ];
    for input in &cases {
        assert!(matches!(
            plan_detach(&m, &s, &request, input),
            Err(DetachError::NonFiniteResult(_))
        ));
    }
}

fn chain_model(n: usize, offset: &str) -> String {
    let mut s = String::from("name = 'chain'\nregions = [{ name = 'R' }]\n");
    for i in 0..n {
        s += &format!("[[bones]]\nname = 'b{i}'\nregion = 'R'\noffset = {offset}\n");
        if i > 0 {
            s += &format!("parent = 'b{}'\n", i - 1);
        }
    }
    s
}

#[test]
fn finite_offsets_whose_bind_pose_overflows_are_rejected() {
    // 3e38 is a finite f32, two of them along a chain are not.
    let err = BodyModel::from_toml_str(&chain_model(64, "[0.0, 3.0e38, 0.0]")).unwrap_err();
    assert!(matches!(
        err,
        BodyModelError::BadValue {
            field: "offset",
            ..
        }
    ));
    // The longest legal chain with sane offsets loads.
    let m = BodyModel::from_toml_str(&chain_model(64, "[0.0, 0.1, 0.0]")).unwrap();
    assert!(m.bind_pose().iter().all(|p| p.is_finite()));
}

#[test]
fn a_mask_range_whose_span_overflows_is_rejected() {
    let text = "name = 'x'\nregions = [{ name = 'R' }]\n\
        masks = [{ name = 'blood', levels = 12, min_value = -3.0e38, max_value = 3.0e38 }]\n\
        [[bones]]\nname = 'a'\nregion = 'R'\noffset = [0.0, 0.0, 0.0]\n";
    assert!(matches!(
        BodyModel::from_toml_str(text),
        Err(BodyModelError::BadValue { .. })
    ));
}

#[test]
fn empty_names_are_rejected() {
    let text = HUMANOID_TOML.replacen("{ name = \"Head\" }", "{ name = \"\" }", 1);
    assert_eq!(
        BodyModel::from_toml_str(&text).unwrap_err(),
        BodyModelError::EmptyName {
            kind: "region",
            index: 1
        }
    );
    let text = "name = 'x'\nregions = [{ name = 'R' }]\n\
        [[bones]]\nname = '  '\nregion = 'R'\noffset = [0.0, 0.0, 0.0]\n";
    assert!(matches!(
        BodyModel::from_toml_str(text),
        Err(BodyModelError::EmptyName { kind: "bone", .. })
    ));
}

#[test]
fn ten_thousand_bones_deep_chains_and_cycles_are_typed_errors() {
    assert_eq!(
        BodyModel::from_toml_str(&chain_model(10_000, "[0.0, 0.1, 0.0]")).unwrap_err(),
        BodyModelError::TooManyBones {
            count: 10_000,
            max: MAX_BONES
        }
    );
    let cyc = "name = 'x'\nregions = [{ name = 'R' }]\n\
        [[bones]]\nname = 'a'\nregion = 'R'\noffset = [0.0, 0.0, 0.0]\ndamage_parents = ['b']\n\
        [[bones]]\nname = 'b'\nregion = 'R'\nparent = 'a'\noffset = [0.0, 0.0, 0.0]\n";
    assert!(matches!(
        BodyModel::from_toml_str(cyc),
        Err(BodyModelError::DamageCycle { .. })
    ));
    let self_parent = "name = 'x'\nregions = [{ name = 'R' }]\n\
        [[bones]]\nname = 'a'\nregion = 'R'\noffset = [0.0, 0.0, 0.0]\n\
        [[bones]]\nname = 'b'\nregion = 'R'\nparent = 'b'\noffset = [0.0, 0.0, 0.0]\n";
    assert!(matches!(
        BodyModel::from_toml_str(self_parent),
        Err(BodyModelError::SkeletonCycle { .. })
    ));
}

#[test]
fn duplicate_rules_and_bad_modifier_names_are_rejected() {
    let m = humanoid();
    // Two ArmLeft Cut gates used to be accepted silently, the later one winning.
    let two = "[[rules]]\nregion = 'ArmLeft'\noperation = 'Cut'\nmax_health_percent = 75.0\n\
        [[rules]]\nregion = 'ArmLeft'\noperation = 'Cut'\nmax_health_percent = 50.0\n";
    assert_eq!(
        RuleSet::from_toml_str(&m, two).unwrap_err(),
        RuleError::DuplicateRule {
            region: "ArmLeft".into(),
            input: OperationInput::Cut
        }
    );
    let twice = format!(
        "{BITER_RULES_TOML}\n[[modifiers]]\nname = \"ragdoll_during_bleeding_increases_limb_cut_prob\"\noperation = \"Cut\"\nadd = 0.1\n"
    );
    assert!(matches!(
        RuleSet::from_toml_str(&m, &twice),
        Err(RuleError::BadModifierName(_))
    ));
    let empty = "[[modifiers]]\nname = ''\noperation = 'Cut'\nadd = 0.1\n";
    assert!(matches!(
        RuleSet::from_toml_str(&m, empty),
        Err(RuleError::BadModifierName(_))
    ));
    // Cut and Break of one region are two rules, not a duplicate.
    assert!(
        biter(&m)
            .rule(m.region_index("ArmLeft").unwrap(), OperationInput::Break)
            .is_some()
    );
}

/// A body with some history: a cut forearm, a hit recorded, a slot published.
fn used_state(m: &BodyModel) -> BodyState {
    let pose = m.bind_pose();
    let mut s = BodyState::new(m, victim());
    let plan = forearm_plan(m, &s, &pose);
    commit_detach(m, &mut s, &plan).unwrap();
    s.record_hit(m, bone(m, "head"), Vec3::ONE, Vec3::X, 2.5)
        .unwrap();
    let cand = SlotCandidate {
        id: 3,
        mask: 0b0110,
        relation_mask: 0b0100,
        link_mask: 0,
    };
    s.slots_mut()
        .publish(2, cand, Affine3A::from_translation(Vec3::Y))
        .unwrap();
    s
}

#[test]
fn snapshot_bytes_round_trip_and_corrupt_bytes_are_decode_errors() {
    let m = humanoid();
    let s = used_state(&m);
    let bytes = snapshot_to_bytes(&s);
    let back = restore_snapshot_bytes(&m, &bytes).unwrap();
    assert_eq!(back, s);
    assert_eq!(state_hash(&back), state_hash(&s));

    for cut in 0..bytes.len() {
        assert!(
            restore_snapshot_bytes(&m, &bytes[..cut]).is_err(),
            "truncated to {cut} bytes"
        );
    }
    let mut trailing = bytes.clone();
    trailing.push(0);
    assert!(matches!(
        restore_snapshot_bytes(&m, &trailing),
        Err(ReplicationError::Decode { .. })
    ));
    let mut magic = bytes.clone();
    magic[0] ^= 0xff;
    assert!(matches!(
        restore_snapshot_bytes(&m, &magic),
        Err(ReplicationError::Decode { .. })
    ));
    let mut version = bytes.clone();
    version[4] = version[4].wrapping_add(1);
    assert!(matches!(
        restore_snapshot_bytes(&m, &version),
        Err(ReplicationError::Decode { .. })
    ));
    // An event's bytes are not a snapshot.
    let ev = BodyEvent {
        victim: victim(),
        event: EventId(9),
        hit: HitRecord {
            bone: bone(&m, "head"),
            position: Vec3::ZERO,
            direction: Vec3::X,
            time: 1.0,
        },
        operation: None,
        kills: true,
    };
    assert!(restore_snapshot_bytes(&m, &ev.to_bytes()).is_err());
    assert_eq!(BodyEvent::from_bytes(&ev.to_bytes()).unwrap(), ev);
}

#[test]
fn a_snapshot_with_undefined_state_bits_is_rejected() {
    let m = humanoid();
    let s = used_state(&m);
    // Flip an undefined bit of a bone, element or victim state in the
    // encoded form by editing the serde value.
    let mut v: serde_json::Value = serde_json::to_value(&s).unwrap();
    v["bones"][0] = serde_json::json!(1u32 << 20);
    let bad: BodyState = serde_json::from_value(v).unwrap();
    assert_eq!(
        restore_snapshot(&m, &bad),
        Err(ReplicationError::SnapshotMismatch("bones"))
    );
    let mut v: serde_json::Value = serde_json::to_value(&s).unwrap();
    v["elements"][1] = serde_json::json!(8);
    let bad: BodyState = serde_json::from_value(v).unwrap();
    assert_eq!(
        restore_snapshot(&m, &bad),
        Err(ReplicationError::SnapshotMismatch("elements"))
    );
    let mut v: serde_json::Value = serde_json::to_value(&s).unwrap();
    v["victim_states"] = serde_json::json!(u32::MAX);
    let bad: BodyState = serde_json::from_value(v).unwrap();
    assert_eq!(
        restore_snapshot(&m, &bad),
        Err(ReplicationError::SnapshotMismatch("victim_states"))
    );
}

#[test]
fn a_deserialised_state_with_too_many_bones_does_not_panic_before_restore() {
    let m = humanoid();
    let mut v: serde_json::Value = serde_json::to_value(BodyState::new(&m, victim())).unwrap();
    v["bones"] = serde_json::json!(vec![0u32; 100]);
    let big: BodyState = serde_json::from_value(v).unwrap();
    assert_eq!(big.present_mask(), u64::MAX);
    assert_eq!(
        restore_snapshot(&m, &big),
        Err(ReplicationError::SnapshotMismatch("bones"))
    );
}

#[test]
fn a_huge_part_cost_is_refused_as_over_budget_not_an_overflow() {
    let mut pm = PartsManager::new(PartsManagerParams::default()).unwrap();
    let small = PartCost {
        bodies: 1,
        constraints: 0,
        skinned_meshes: 1,
    };
    pm.try_create(small, 5.0, true, 0.0).unwrap().unwrap();
    let used = pm.used();
    let huge = PartCost {
        bodies: u32::MAX,
        constraints: u32::MAX,
        skinned_meshes: u32::MAX,
    };
    assert_eq!(
        pm.try_create(huge, 5.0, true, 0.0).unwrap(),
        Err(CreateRefusal::OverBudget)
    );
    assert_eq!(pm.used(), used);
}

#[test]
fn a_huge_indirect_plane_normal_is_rejected_not_zeroed() {
    // [3e38, 3e38, 3e38] is finite, but its length is not: normalising gave
    // the zero vector, an angle of 90° to every swing.
    let mut d = desc();
    d.indirect_candidates[0].plane_normal = [3.0e38, 3.0e38, 3.0e38];
    assert!(matches!(
        BodyModel::new(&d),
        Err(BodyModelError::BadValue {
            field: "plane_normal",
            ..
        })
    ));
}

#[test]
fn a_restored_snapshot_at_the_last_revision_keeps_working() {
    let m = humanoid();
    let mut v: serde_json::Value = serde_json::to_value(BodyState::new(&m, victim())).unwrap();
    v["revision"] = serde_json::json!(u64::MAX);
    let snap: BodyState = serde_json::from_value(v).unwrap();
    let mut s = restore_snapshot(&m, &snap).unwrap();
    // Every change bumps the revision; at u64::MAX that overflowed (a panic
    // with overflow checks).
    s.record_hit(&m, bone(&m, "head"), Vec3::ZERO, Vec3::X, 0.0)
        .unwrap();
    assert_ne!(s.revision(), u64::MAX);
    let pose = m.bind_pose();
    let plan = forearm_plan(&m, &s, &pose);
    commit_detach(&m, &mut s, &plan).unwrap();
    s.recycle(&m);
}

#[test]
fn a_surface_interaction_with_a_nan_strength_is_rejected() {
    let ev = |strength: f32| TrackEvent {
        time: 159.0,
        kind: TrackEventKind::SurfaceInteraction {
            layer: "collision_body_surface_layer".into(),
            bone: "pelvis".into(),
            strength,
        },
    };
    assert!(matches!(
        EventTrack::new(vec![ev(4.0), ev(f32::NAN)]),
        Err(TrackError::BadStrength { index: 1, .. })
    ));
    assert!(matches!(
        EventTrack::new(vec![ev(f32::INFINITY)]),
        Err(TrackError::BadStrength { index: 0, .. })
    ));
    assert!(EventTrack::new(vec![ev(4.0)]).is_ok());
}
