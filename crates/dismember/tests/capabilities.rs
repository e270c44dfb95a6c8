//! Issue 15 item 7: capabilities from body state, and animation event tracks.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use glam::{Affine3A, Vec3};
use smithereens_dismember::*;

fn cut(m: &BodyModel, s: &mut BodyState, event: u64, name: &str, pose: &[Affine3A]) {
    let root = bone(m, name);
    let r = DetachRequest {
        victim: s.victim(),
        event: EventId(event),
        root,
        recipe: m.bones()[root.get() as usize].cut.unwrap().recipe,
    };
    let input = DetachInput {
        body_to_world: Affine3A::IDENTITY,
        gib_to_world: Affine3A::IDENTITY,
        pose,
        motion: Motion::Physics {
            linear: Vec3::ZERO,
            angular: Vec3::ZERO,
            center: Vec3::ZERO,
        },
        impact_direction: Vec3::ZERO,
        impact_speed: 0.0,
        impulse: GibImpulse::NONE,
    };
    let PlanOutcome::Planned(p) = plan_detach(m, s, &r, &input).unwrap() else {
        panic!()
    };
    commit_detach(m, s, &p).unwrap();
}

#[test]
fn left_hand_attacks_follow_arm_and_hand_state_not_bones() {
    let m = humanoid();
    let pose = m.bind_pose();
    let caps = CapabilityMap::humanoid(&m).unwrap();
    let mut s = BodyState::new(
        &m,
        VictimHandle {
            id: VictimId(1),
            generation: 0,
        },
    );
    assert!(caps.evaluate(&s).can_attack_with_left_hand);
    cut(&m, &mut s, 1, "l_hand", &pose);
    let c = caps.evaluate(&s);
    // The skeleton still has l_hand; the body state says it is gone.
    assert!(m.bone_index("l_hand").is_some());
    assert!(!c.can_attack_with_left_hand);
    assert!(c.can_attack_with_right_hand && c.can_walk && c.can_bite);
    cut(&m, &mut s, 2, "r_foot", &pose);
    assert!(!caps.evaluate(&s).can_walk);
}

#[test]
fn arm_cutoff_track_closes_the_damage_window_even_when_a_frame_jumps_over_81() {
    let track = EventTrack::arm_cutoff();
    let mut p = ReactionPlayer::new();
    let mut out = vec![];
    p.advance(&track, 0.0, &mut out).unwrap();
    assert!(p.collision_damage_enabled, "the window opens at 0");
    p.advance(&track, 80.0, &mut out).unwrap();
    assert!(p.collision_damage_enabled);
    // One long frame from 80 to 95 crosses 81.
    p.advance(&track, 95.0, &mut out).unwrap();
    assert!(!p.collision_damage_enabled);
    assert!(!p.can_blend_out);
    p.advance(&track, 160.9, &mut out).unwrap();
    assert!(!p.can_blend_out);
    p.advance(&track, 161.0, &mut out).unwrap();
    assert!(
        p.can_blend_out,
        "blend-out at 161 (t ≤ current is inclusive)"
    );
    assert!(out.contains(&TrackEventKind::Audio("biter_body_falling".into())));
    // Every event fired exactly once: 10 events, 3 consumed as state.
    assert_eq!(out.len(), 7);
}

#[test]
fn leg_cutoff_track_has_its_own_windows() {
    let track = EventTrack::leg_cutoff();
    let times: Vec<f32> = track.events().iter().map(|e| e.time).collect();
    assert_eq!(times, vec![0.0, 63.0, 83.0, 87.0, 87.0]);
    let mut p = ReactionPlayer::new();
    let mut out = vec![];
    p.advance(&track, 63.0, &mut out).unwrap();
    assert!(
        !p.collision_damage_enabled,
        "enabled at 0, disabled at 63 in one step"
    );
    p.advance(&track, 86.0, &mut out).unwrap();
    assert!(p.can_blend_out && out.is_empty());
    p.advance(&track, 87.0, &mut out).unwrap();
    assert_eq!(
        out.len(),
        2,
        "fall sound and pelvis surface interaction at 87"
    );
    let crossed: Vec<f32> = track.crossed(63.0, 87.0).map(|e| e.time).collect();
    assert_eq!(crossed, vec![83.0, 87.0, 87.0], "previous < t ≤ current");
}

#[test]
fn bad_track_input_is_a_typed_error() {
    let bad = vec![TrackEvent {
        time: f32::NAN,
        kind: TrackEventKind::AllowBlendOut,
    }];
    assert!(matches!(
        EventTrack::new(bad),
        Err(TrackError::BadTime { .. })
    ));
    let track = EventTrack::arm_cutoff();
    let mut p = ReactionPlayer::new();
    let before = p.clone();
    assert!(p.advance(&track, f32::INFINITY, &mut vec![]).is_err());
    assert_eq!(p, before);
}

#[test]
fn a_broken_left_arm_cannot_attack_though_every_bone_is_present() {
    let m = humanoid();
    let caps = CapabilityMap::humanoid(&m).unwrap();
    let victim = VictimHandle {
        id: VictimId(2),
        generation: 0,
    };
    let mut s = BodyState::new(&m, victim);
    let fa = bone(&m, "l_forearm");
    let brk = m
        .region(m.region_index("ArmLeft").unwrap())
        .unwrap()
        .break_operation
        .unwrap();
    let ev = BodyEvent {
        victim,
        event: EventId(1),
        hit: HitRecord {
            bone: fa,
            position: Vec3::new(0.5, 1.51, 0.0),
            direction: Vec3::X,
            time: 0.0,
        },
        operation: Some(AppliedOperation {
            bone: fa,
            input: brk.input,
            category: brk.category,
            recipe: brk.recipe.get(),
        }),
        kills: false,
    };
    apply_event(&m, &mut s, &ev).unwrap();
    assert_eq!(s.present_mask(), u64::MAX >> (64 - 43));
    assert!(!caps.evaluate(&s).can_attack_with_left_hand);
    assert!(caps.evaluate(&s).can_attack_with_right_hand);
}
