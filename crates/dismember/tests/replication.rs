//! Issue 15 item 9: the body state is the replicated truth; same events, same
//! hash on every peer and on replay; snapshots restore it.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use glam::{Affine3A, Vec3};
use smithereens_dismember::*;

const VICTIM: VictimHandle = VictimHandle {
    id: VictimId(42),
    generation: 0,
};

/// The hit inputs of event `e`: a bone from a fixed cycle, its bind origin,
/// a falling health.
fn hit_input(m: &BodyModel, e: u64) -> (Hit, HitRecord, RuleContext) {
    let cycle = [
        "l_hand",
        "head",
        "l_forearm",
        "r_forearm",
        "spine2",
        "l_calf",
        "r_hand",
        "l_upperarm",
        "neck",
        "r_thigh",
    ];
    let b = bone(m, cycle[(e as usize * 7) % cycle.len()]);
    let pose = m.bind_pose();
    let point = Vec3::from(pose[b.get() as usize].translation) + Vec3::new(0.0, 0.01, 0.0);
    let ctx = RuleContext {
        health_percent: 100.0 - (e as f32 * 2.5).min(100.0),
        preset: DamagePreset {
            limb_cut_probability: 0.6,
            break_probability: 0.5,
            deformation_probability: 0.3,
            ..DamagePreset::default()
        },
        reaction: if e % 2 == 1 {
            ReactionFlags::RAGDOLL
        } else {
            ReactionFlags::EMPTY
        },
        victim_states: VictimStates::BLEEDING,
    };
    (
        Hit {
            bone: b,
            point,
            attack_plane_normal: Vec3::Y,
        },
        HitRecord {
            bone: b,
            position: point,
            direction: Vec3::new(0.0, 0.0, -1.0),
            time: e as f64 * 0.25,
        },
        ctx,
    )
}

/// One peer deciding and applying events 0..n from the hit inputs.
fn decide_stream(m: &BodyModel, r: &RuleSet, n: u64) -> (BodyState, Vec<BodyEvent>) {
    let pose = m.bind_pose();
    let mut s = BodyState::new(m, VICTIM);
    let mut events = vec![];
    let mut cands = vec![];
    for e in 0..n {
        let (hit, rec, ctx) = hit_input(m, e);
        select_candidates(m, s.present_mask(), &pose, &hit, &mut cands).unwrap();
        let mut rng = DecisionRng::new(VICTIM.id, EventId(e));
        let d = decide(m, r, &s, &cands, &ctx, &mut rng).unwrap();
        let ev = BodyEvent::from_decision(VICTIM, EventId(e), rec, &d);
        assert_eq!(apply_event(m, &mut s, &ev).unwrap(), ApplyOutcome::Applied);
        events.push(ev);
    }
    (s, events)
}

#[test]
fn every_peer_and_a_replay_reach_the_same_state_hash() {
    let m = humanoid();
    let r = biter(&m);
    let (authority, events) = decide_stream(&m, &r, 40);
    assert!(
        events.iter().filter(|e| e.operation.is_some()).count() >= 3,
        "the stream should cut, break or wound something"
    );
    assert_ne!(authority.present_mask(), u64::MAX >> (64 - 43));
    // A second peer deciding from the same inputs decides the same.
    let (peer, peer_events) = decide_stream(&m, &r, 40);
    assert_eq!(peer_events, events);
    assert_eq!(state_hash(&peer), state_hash(&authority));
    // A peer that only applies the events, each delivered twice.
    let mut receiver = BodyState::new(&m, VICTIM);
    for ev in &events {
        apply_event(&m, &mut receiver, ev).unwrap();
        assert_eq!(
            apply_event(&m, &mut receiver, ev).unwrap(),
            ApplyOutcome::Duplicate
        );
    }
    assert_eq!(state_hash(&receiver), state_hash(&authority));
    // Replay from the start.
    let mut replay = BodyState::new(&m, VICTIM);
    for ev in &events {
        apply_event(&m, &mut replay, ev).unwrap();
    }
    assert_eq!(state_hash(&replay), state_hash(&authority));
    // A different stream gives a different hash.
    let (other, _) = decide_stream(&m, &r, 39);
    assert_ne!(state_hash(&other), state_hash(&authority));
}

#[test]
fn a_snapshot_restores_and_resumes_to_the_same_hash() {
    let m = humanoid();
    let r = biter(&m);
    let (live, events) = decide_stream(&m, &r, 40);
    let mut s = BodyState::new(&m, VICTIM);
    for ev in &events[..20] {
        apply_event(&m, &mut s, ev).unwrap();
    }
    let snapshot = s.clone();
    let mut resumed = restore_snapshot(&m, &snapshot).unwrap();
    assert_eq!(state_hash(&resumed), state_hash(&s));
    for ev in &events[20..] {
        apply_event(&m, &mut resumed, ev).unwrap();
    }
    assert_eq!(state_hash(&resumed), state_hash(&live));
    // Events already in the snapshot are duplicates after restore.
    assert_eq!(
        apply_event(&m, &mut resumed, &events[3]).unwrap(),
        ApplyOutcome::Duplicate
    );
}

#[test]
fn local_detach_commit_and_replicated_event_change_the_state_identically() {
    let m = humanoid();
    let pose = m.bind_pose();
    let fa = bone(&m, "l_forearm");
    let recipe = m.bones()[fa.get() as usize].cut.unwrap();
    let rec = HitRecord {
        bone: fa,
        position: Vec3::new(0.5, 1.51, 0.0),
        direction: Vec3::X,
        time: 1.0,
    };
    // Authority: record the hit, plan the gib, commit.
    let mut authority = BodyState::new(&m, VICTIM);
    authority
        .record_hit(&m, rec.bone, rec.position, rec.direction, rec.time)
        .unwrap();
    let req = DetachRequest {
        victim: VICTIM,
        event: EventId(9),
        root: fa,
        recipe: recipe.recipe,
    };
    let input = DetachInput {
        body_to_world: Affine3A::IDENTITY,
        gib_to_world: Affine3A::IDENTITY,
        pose: &pose,
        motion: Motion::Physics {
            linear: Vec3::ZERO,
            angular: Vec3::ZERO,
            center: Vec3::ZERO,
        },
        impact_direction: Vec3::X,
        impact_speed: 1.0,
        impulse: GibImpulse::default(),
    };
    let PlanOutcome::Planned(plan) = plan_detach(&m, &authority, &req, &input).unwrap() else {
        panic!()
    };
    commit_detach(&m, &mut authority, &plan).unwrap();
    // Peer: the event alone.
    let ev = BodyEvent {
        victim: VICTIM,
        event: EventId(9),
        hit: rec,
        operation: Some(AppliedOperation {
            bone: fa,
            input: recipe.input,
            category: recipe.category,
            recipe: recipe.recipe.get(),
        }),
        kills: false,
    };
    let mut peer = BodyState::new(&m, VICTIM);
    apply_event(&m, &mut peer, &ev).unwrap();
    assert_eq!(state_hash(&peer), state_hash(&authority));
    assert_eq!(peer.present_mask(), authority.present_mask());
}

#[test]
fn bad_events_and_snapshots_are_typed_errors_and_change_nothing() {
    let m = humanoid();
    let mut s = BodyState::new(&m, VICTIM);
    let fa = bone(&m, "l_forearm");
    let good_hit = HitRecord {
        bone: fa,
        position: Vec3::ZERO,
        direction: Vec3::X,
        time: 0.0,
    };
    let before = s.clone();
    let ev = BodyEvent {
        victim: VICTIM,
        event: EventId(1),
        hit: HitRecord {
            position: Vec3::NAN,
            ..good_hit
        },
        operation: None,
        kills: false,
    };
    assert!(matches!(
        apply_event(&m, &mut s, &ev),
        Err(ReplicationError::BadHit(_))
    ));
    // The head has no Break in the humanoid.
    let ev = BodyEvent {
        hit: good_hit,
        operation: Some(AppliedOperation {
            bone: bone(&m, "head"),
            input: OperationInput::Break,
            category: OperationCategory::Break,
            recipe: 0,
        }),
        ..ev
    };
    assert!(matches!(
        apply_event(&m, &mut s, &ev),
        Err(ReplicationError::UnknownOperation(_))
    ));
    // Another generation: ignored.
    let old = BodyEvent {
        victim: VictimHandle {
            generation: 7,
            ..VICTIM
        },
        operation: None,
        ..ev
    };
    assert_eq!(
        apply_event(&m, &mut s, &old).unwrap(),
        ApplyOutcome::Recycled
    );
    assert_eq!(s, before);
    // Snapshots that do not fit the model.
    let mut bad = s.clone();
    bad.recycle(&m);
    let other = BodyModel::from_toml_str(&HUMANOID_TOML.replace(
        "[[masks]]\nname = \"blood_mask_default\"",
        "[[masks]]\nname = \"blood\"",
    ))
    .unwrap();
    assert!(
        restore_snapshot(&other, &bad).is_ok(),
        "same shape, other names: fits"
    );
    let mut d = desc();
    d.bones.pop();
    let smaller = BodyModel::new(&d).unwrap();
    assert_eq!(
        restore_snapshot(&smaller, &s),
        Err(ReplicationError::SnapshotMismatch("bones"))
    );
}

#[test]
fn a_state_used_with_a_model_it_was_not_made_for_does_not_panic() {
    let m = humanoid();
    let r = biter(&m);
    let small = BodyModel::from_toml_str(
        r#"
name = "stub"
regions = [{ name = "Torso" }]
[[bones]]
name = "root"
region = "Torso"
[[bones]]
name = "tip"
region = "Torso"
parent = "root"
"#,
    )
    .unwrap();
    let mut s = BodyState::new(&small, VICTIM);
    let (_, events) = decide_stream(&m, &r, 40);
    for ev in &events {
        let _ = apply_event(&m, &mut s, ev);
    }
    assert!(restore_snapshot(&m, &s).is_err());
}

#[test]
fn a_receiving_peer_plans_the_same_gib_before_applying_the_event() {
    // Peers agree on the body state first and then update visuals (§8.1):
    // a receiving peer plans its own gib from the state *before* the event,
    // then applies the event; the gib's parts, bones and seeded impulse
    // equal the authority's, and the states hash equal.
    let m = humanoid();
    let pose = m.bind_pose();
    let fa = bone(&m, "l_forearm");
    let cut = m.bones()[fa.get() as usize].cut.unwrap();
    let rec = HitRecord {
        bone: fa,
        position: Vec3::new(0.5, 1.51, 0.0),
        direction: Vec3::X,
        time: 1.0,
    };
    let req = DetachRequest {
        victim: VICTIM,
        event: EventId(4),
        root: fa,
        recipe: cut.recipe,
    };
    let input = DetachInput {
        body_to_world: Affine3A::IDENTITY,
        gib_to_world: Affine3A::IDENTITY,
        pose: &pose,
        motion: Motion::Physics {
            linear: Vec3::X,
            angular: Vec3::Y,
            center: Vec3::ZERO,
        },
        impact_direction: Vec3::X,
        impact_speed: 2.0,
        impulse: GibImpulse::default(),
    };
    let mut authority = BodyState::new(&m, VICTIM);
    authority
        .record_hit(&m, rec.bone, rec.position, rec.direction, rec.time)
        .unwrap();
    let PlanOutcome::Planned(a_plan) = plan_detach(&m, &authority, &req, &input).unwrap() else {
        panic!()
    };
    commit_detach(&m, &mut authority, &a_plan).unwrap();

    let ev = BodyEvent {
        victim: VICTIM,
        event: EventId(4),
        hit: rec,
        operation: Some(AppliedOperation {
            bone: fa,
            input: cut.input,
            category: cut.category,
            recipe: cut.recipe.get(),
        }),
        kills: false,
    };
    let mut peer = BodyState::new(&m, VICTIM);
    let PlanOutcome::Planned(p_plan) = plan_detach(&m, &peer, &req, &input).unwrap() else {
        panic!()
    };
    apply_event(&m, &mut peer, &ev).unwrap();
    assert_eq!(p_plan.parts, a_plan.parts);
    assert_eq!(p_plan.bones, a_plan.bones);
    assert_eq!(
        p_plan.bodies, a_plan.bodies,
        "impulse seeded by (victim, event)"
    );
    assert_eq!(p_plan.patches, a_plan.patches);
    assert_eq!(state_hash(&peer), state_hash(&authority));
    // After the event the same request plans nothing: plan first.
    assert_eq!(
        plan_detach(&m, &peer, &req, &input).unwrap(),
        PlanOutcome::Duplicate
    );
}
