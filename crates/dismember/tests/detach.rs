//! Issue 15 items 5 and 6: repeated cuts, masks, patches, and the detach transaction.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use glam::{Affine3A, Quat, Vec3};
use smithereens_dismember::*;

fn victim() -> VictimHandle {
    VictimHandle {
        id: VictimId(3),
        generation: 0,
    }
}

fn request(m: &BodyModel, event: u64, bone_name: &str) -> DetachRequest {
    let root = bone(m, bone_name);
    DetachRequest {
        victim: victim(),
        event: EventId(event),
        root,
        recipe: m.bones()[root.get() as usize].cut.unwrap().recipe,
    }
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
        impact_direction: Vec3::ZERO,
        impact_speed: 0.0,
        impulse: GibImpulse::NONE,
    }
}

fn detach(m: &BodyModel, s: &mut BodyState, r: &DetachRequest, input: &DetachInput) -> GibPlan {
    match plan_detach(m, s, r, input).unwrap() {
        PlanOutcome::Planned(plan) => {
            commit_detach(m, s, &plan).unwrap();
            *plan
        }
        other => panic!("expected a plan, got {other:?}"),
    }
}

fn gib_names(m: &BodyModel, plan: &GibPlan) -> Vec<String> {
    plan.bones
        .iter()
        .map(|b| m.bones()[b.get() as usize].name.clone())
        .collect()
}

#[test]
fn hand_then_forearm_the_second_gib_has_no_hand() {
    let m = humanoid();
    let pose = m.bind_pose();
    let mut s = BodyState::new(&m, victim());
    let hand = detach(&m, &mut s, &request(&m, 1, "l_hand"), &still(&pose));
    assert_eq!(hand.parts.count_ones(), 9, "hand and eight finger bones");
    let forearm = detach(&m, &mut s, &request(&m, 2, "l_forearm"), &still(&pose));
    assert_eq!(names_of(&m, forearm.parts), vec!["l_forearm".to_string()]);
    // The gib skeleton: the forearm plus the recipe's extra physics bone, no hand.
    assert_eq!(gib_names(&m, &forearm), vec!["l_upperarm", "l_forearm"]);
    assert!(!s.is_present(bone(&m, "l_forearm")));
    assert!(s.is_present(bone(&m, "l_upperarm")));
    let arm = m.region_index("ArmLeft").unwrap();
    assert!(s.element_state(arm).unwrap().contains(ElementState::CUT));
    assert!(!s.element_state(arm).unwrap().contains(ElementState::GONE));
}

#[test]
fn masks_compose_in_bind_pose_space() {
    let m = humanoid();
    let pose = m.bind_pose();
    let mut s = BodyState::new(&m, victim());
    // Bind-pose points: inside both H and F, inside F only, inside neither (upper arm).
    let both = Vec3::new(0.75, 1.51, 0.0);
    let f_only = Vec3::new(0.5, 1.51, 0.0);
    let upper = Vec3::new(0.3, 1.51, 0.0);
    let h = m
        .recipe(m.recipe_index("left_hand_cut").unwrap())
        .unwrap()
        .hide_volume
        .unwrap();
    let f = m
        .recipe(m.recipe_index("left_forearm_cut").unwrap())
        .unwrap()
        .hide_volume
        .unwrap();
    assert!(h.contains(both) && f.contains(both));
    assert!(!h.contains(f_only) && f.contains(f_only));
    assert!(!h.contains(upper) && !f.contains(upper));

    let hand = detach(&m, &mut s, &request(&m, 1, "l_hand"), &still(&pose));
    assert_eq!(hand.visibility.visibility(both), 1.0); // hand gib shows H
    assert_eq!(body_visibility(&m, &s, both), 0.0); // body shows 1 − H
    assert_eq!(body_visibility(&m, &s, f_only), 1.0);

    let fa = detach(&m, &mut s, &request(&m, 2, "l_forearm"), &still(&pose));
    let one = |b: bool| f32::from(u8::from(b));
    for p in [both, f_only, upper] {
        let (fp, hp) = (one(f.contains(p)), one(h.contains(p)));
        assert_eq!(fa.visibility.visibility(p), fp * (1.0 - hp), "gib at {p}");
        assert_eq!(
            body_visibility(&m, &s, p),
            (1.0 - fp) * (1.0 - hp),
            "body at {p}"
        );
    }
    // Showing only F would bring the hand back on the new gib.
    assert_eq!(fa.visibility.visibility(both), 0.0);
    assert_eq!(fa.visibility.visibility(f_only), 1.0);
    assert_eq!(body_visibility(&m, &s, upper), 1.0);
}

#[test]
fn wound_patches_in_the_detached_subtree_migrate_to_the_gib() {
    let m = humanoid();
    let pose = m.bind_pose();
    let mut s = BodyState::new(&m, victim());
    let hand_cut = m.recipe_index("left_hand_cut").unwrap();
    let fa_cut = m.recipe_index("left_forearm_cut").unwrap();
    detach(&m, &mut s, &request(&m, 1, "l_hand"), &still(&pose));
    // The wrist wound sits on the body's (hidden) hand bone.
    assert_eq!(
        s.patches(),
        &[WoundPatch {
            recipe: hand_cut,
            bone: bone(&m, "l_hand")
        }]
    );
    let fa = detach(&m, &mut s, &request(&m, 2, "l_forearm"), &still(&pose));
    let gib_recipes: Vec<_> = fa.patches.iter().map(|p| p.recipe).collect();
    assert_eq!(
        gib_recipes,
        vec![hand_cut, fa_cut],
        "the wrist wound left with the forearm"
    );
    // The body keeps only the new cut's patch, on the helper's bone.
    assert_eq!(
        s.patches(),
        &[WoundPatch {
            recipe: fa_cut,
            bone: bone(&m, "l_forearm")
        }]
    );
}

#[test]
fn duplicate_event_yields_nothing_and_a_second_cut_of_a_gone_part_too() {
    let m = humanoid();
    let pose = m.bind_pose();
    let mut s = BodyState::new(&m, victim());
    let r = request(&m, 1, "l_hand");
    detach(&m, &mut s, &r, &still(&pose));
    let before = s.clone();
    assert_eq!(
        plan_detach(&m, &s, &r, &still(&pose)).unwrap(),
        PlanOutcome::Duplicate
    );
    let again = request(&m, 2, "l_hand");
    assert_eq!(
        plan_detach(&m, &s, &again, &still(&pose)).unwrap(),
        PlanOutcome::NothingPresent
    );
    assert_eq!(s, before);
}

#[test]
fn an_event_after_the_character_was_recycled_is_ignored() {
    let m = humanoid();
    let pose = m.bind_pose();
    let mut s = BodyState::new(&m, victim());
    let r = request(&m, 1, "l_hand");
    let mut pending = PendingDetaches::new();
    let out = try_detach(&m, &mut s, &mut pending, &r, &still(&pose), false).unwrap();
    assert_eq!(out, DetachOutcome::Deferred);
    s.recycle(&m);
    let before = s.clone();
    // The late resource callback for the old generation changes nothing.
    let out = try_detach(&m, &mut s, &mut pending, &r, &still(&pose), true).unwrap();
    assert_eq!(out, DetachOutcome::Nothing(PlanOutcome::Recycled));
    assert_eq!(s, before);
    assert!(pending.requests().is_empty());
    assert!(s.is_present(bone(&m, "l_hand")));
}

#[test]
fn resources_not_ready_change_nothing_and_the_request_is_retried() {
    let m = humanoid();
    let pose = m.bind_pose();
    let mut s = BodyState::new(&m, victim());
    let r = request(&m, 1, "l_forearm");
    let mut pending = PendingDetaches::new();
    let before = s.clone();
    for _ in 0..2 {
        let out = try_detach(&m, &mut s, &mut pending, &r, &still(&pose), false).unwrap();
        assert_eq!(out, DetachOutcome::Deferred);
        assert_eq!(s, before);
        assert_eq!(pending.requests(), &[r]);
    }
    let out = try_detach(&m, &mut s, &mut pending, &r, &still(&pose), true).unwrap();
    assert!(matches!(out, DetachOutcome::Committed(..)));
    assert!(pending.requests().is_empty());
    assert!(!s.is_present(bone(&m, "l_hand")));
}

#[test]
fn a_body_change_during_preparation_discards_the_plan() {
    let m = humanoid();
    let pose = m.bind_pose();
    let mut s = BodyState::new(&m, victim());
    let r = request(&m, 1, "l_forearm");
    let PlanOutcome::Planned(plan) = plan_detach(&m, &s, &r, &still(&pose)).unwrap() else {
        panic!()
    };
    s.record_hit(&m, bone(&m, "head"), Vec3::ZERO, Vec3::X, 0.5)
        .unwrap();
    let before = s.clone();
    assert!(matches!(
        commit_detach(&m, &mut s, &plan),
        Err(DetachError::StaleRevision { .. })
    ));
    assert_eq!(s, before);
    // Re-evaluated from the new state, it commits.
    detach(&m, &mut s, &r, &still(&pose));
    assert!(!s.is_present(bone(&m, "l_forearm")));
}

fn moving_pose(m: &BodyModel) -> Vec<Affine3A> {
    // Bend the left elbow 40° about z and turn the hand 25° about x.
    let bind = m.bind_pose();
    let mut local: Vec<Affine3A> = (0..m.bone_count())
        .map(|i| Affine3A::from_translation(m.bones()[i].offset))
        .collect();
    local[bone(m, "l_forearm").get() as usize] *= Affine3A::from_quat(Quat::from_rotation_z(0.7));
    local[bone(m, "l_hand").get() as usize] *= Affine3A::from_quat(Quat::from_rotation_x(0.44));
    let mut g = bind.clone();
    for &b in m.skeleton().parent_before_child() {
        let i = b.get() as usize;
        g[i] = match m.skeleton().parent(b) {
            Some(p) => g[p.get() as usize] * local[i],
            None => local[i],
        };
    }
    g
}

#[test]
fn pose_copy_keeps_world_poses_and_rebuilds_locals_parent_first() {
    let m = humanoid();
    let pose = moving_pose(&m);
    let w_s =
        Affine3A::from_rotation_translation(Quat::from_rotation_y(0.5), Vec3::new(5.0, 0.0, -2.0));
    let fa = bone(&m, "l_forearm");
    let w_d = w_s * pose[fa.get() as usize];
    let mut s = BodyState::new(&m, victim());
    let mut input = still(&pose);
    input.body_to_world = w_s;
    input.gib_to_world = w_d;
    let plan = detach(&m, &mut s, &request(&m, 1, "l_forearm"), &input);
    for (i, &b) in plan.bones.iter().enumerate() {
        let want = w_s * pose[b.get() as usize];
        let got = w_d * plan.global_poses[i];
        assert!(got.abs_diff_eq(want, 1e-4), "bone {b}: W_d·G_d ≠ W_s·G_s");
        // Local = G_d[parent]⁻¹·G_d, so parent·local rebuilds the global.
        if let Some(p) = m.skeleton().parent(b)
            && let Some(j) = plan.bones.iter().position(|&x| x == p)
        {
            assert!(
                (plan.global_poses[j] * plan.local_poses[i])
                    .abs_diff_eq(plan.global_poses[i], 1e-4)
            );
        }
    }
    // Bodies: T = W_s·G_s·L_body, and the write-back G_d = W_d⁻¹·T·L_body⁻¹ recovers the bone.
    for body in &plan.bodies {
        let b = body.bone.get() as usize;
        let l = m.bones()[b]
            .physics_body_offset
            .unwrap_or(Affine3A::IDENTITY);
        assert!(body.transform.abs_diff_eq(w_s * pose[b] * l, 1e-4));
        let i = plan.bones.iter().position(|&x| x == body.bone).unwrap();
        let back = pose_handover::bone_from_body(w_d, body.transform, l);
        assert!(back.abs_diff_eq(plan.global_poses[i], 1e-4));
    }
    assert_eq!(plan.bodies.len(), 3, "upperarm (extra), forearm, hand");
}

#[test]
fn physics_driven_gibs_inherit_the_rigid_point_velocity() {
    let m = humanoid();
    let pose = m.bind_pose();
    let mut s = BodyState::new(&m, victim());
    let mut input = still(&pose);
    let (v_c, w, x_c) = (
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(0.0, 0.0, 2.0),
        Vec3::new(0.0, 1.0, 0.0),
    );
    input.motion = Motion::Physics {
        linear: v_c,
        angular: w,
        center: x_c,
    };
    let plan = detach(&m, &mut s, &request(&m, 1, "l_forearm"), &input);
    for b in &plan.bodies {
        let x_d = Vec3::from(b.transform.translation);
        assert!((b.linear_velocity - (v_c + w.cross(x_d - x_c))).length() < 1e-5);
        assert_eq!(b.angular_velocity, w);
    }
}

#[test]
fn animation_driven_parts_take_their_own_point_velocity_not_the_roots() {
    let m = humanoid();
    let pose = m.bind_pose();
    // Last frame the left arm was 2 cm further back in x; the root did not move.
    let arm = m.damage_graph().descendants(bone(&m, "l_upperarm"));
    let prev: Vec<Affine3A> = pose
        .iter()
        .enumerate()
        .map(|(i, g)| {
            if arm & (1u64 << i) != 0 {
                Affine3A::from_translation(Vec3::new(-0.02, 0.0, 0.0)) * *g
            } else {
                *g
            }
        })
        .collect();
    let mut s = BodyState::new(&m, victim());
    let mut input = still(&pose);
    input.motion = Motion::Animation {
        previous_world: &prev,
        dt: 0.01,
    };
    let plan = detach(&m, &mut s, &request(&m, 1, "l_forearm"), &input);
    for b in &plan.bodies {
        assert!(
            (b.linear_velocity - Vec3::new(2.0, 0.0, 0.0)).length() < 1e-3,
            "{:?}",
            b.linear_velocity
        );
        assert!(b.angular_velocity.length() < 1e-3);
    }
}

#[test]
fn gib_impulse_stays_in_the_seed_ranges_and_is_deterministic() {
    let m = humanoid();
    let pose = m.bind_pose();
    let mut input = still(&pose);
    input.impulse = GibImpulse::default();
    input.impact_direction = Vec3::X;
    input.impact_speed = 1.0;
    let mut first = None;
    for event in 0..50 {
        let mut s = BodyState::new(&m, victim());
        let plan = detach(&m, &mut s, &request(&m, event, "l_hand"), &input);
        let b = plan.bodies[0];
        assert!((2.0..=3.0).contains(&b.linear_velocity.x));
        assert!((1.0..=3.0).contains(&b.linear_velocity.y));
        let a = b.angular_velocity;
        assert!(a.cmpge(Vec3::new(1.0, 2.0, 1.0)).all() && a.cmple(Vec3::splat(10.0)).all());
        if event == 7 {
            first = Some(b);
        }
    }
    let mut s = BodyState::new(&m, victim());
    let plan = detach(&m, &mut s, &request(&m, 7, "l_hand"), &input);
    assert_eq!(Some(plan.bodies[0]), first);
}

#[test]
fn bad_detach_input_is_a_typed_error_and_changes_nothing() {
    let m = humanoid();
    let pose = m.bind_pose();
    let mut s = BodyState::new(&m, victim());
    let before = s.clone();
    let r = request(&m, 1, "l_forearm");
    let mut bad = pose.clone();
    bad[3].translation.x = f32::NAN;
    let mut pending = PendingDetaches::new();
    assert!(matches!(
        try_detach(&m, &mut s, &mut pending, &r, &still(&bad), true),
        Err(DetachError::BadPose { .. })
    ));
    let mut input = still(&pose);
    input.motion = Motion::Animation {
        previous_world: &pose,
        dt: 0.0,
    };
    assert!(matches!(
        plan_detach(&m, &s, &r, &input),
        Err(DetachError::BadMotion("dt"))
    ));
    let mut input = still(&pose);
    input.gib_to_world = Affine3A::from_scale(Vec3::ZERO);
    assert!(matches!(
        plan_detach(&m, &s, &r, &input),
        Err(DetachError::BadTransform(_))
    ));
    let mut input = still(&pose);
    input.impulse.impact_velocity_multiplier = [3.0, 2.0];
    assert!(matches!(
        plan_detach(&m, &s, &r, &input),
        Err(DetachError::BadImpulse(_))
    ));
    let mut hole = r;
    hole.recipe = m.recipe_index("hole_forearm_left").unwrap();
    assert_eq!(
        plan_detach(&m, &s, &hole, &still(&pose)),
        Err(DetachError::NotDetaching)
    );
    assert_eq!(s, before);
}

#[test]
fn cutting_the_left_clavicle_leaves_the_head_on_the_body() {
    let m = humanoid();
    let pose = m.bind_pose();
    let mut s = BodyState::new(&m, victim());
    detach(&m, &mut s, &request(&m, 1, "l_clavicle"), &still(&pose));
    assert!(s.is_present(bone(&m, "head")));
    let plan = detach(&m, &mut s, &request(&m, 2, "r_clavicle"), &still(&pose));
    assert!(!s.is_present(bone(&m, "head")));
    assert!(names_of(&m, plan.parts).contains(&"jaw".to_string()));
    assert!(
        s.element_state(m.region_index("Head").unwrap())
            .unwrap()
            .contains(ElementState::GONE)
    );
}

#[test]
fn detached_skin_weights_must_sum_to_one_and_name_posable_bones() {
    let m = humanoid();
    let pose = m.bind_pose();
    let mut s = BodyState::new(&m, victim());
    let plan = detach(&m, &mut s, &request(&m, 1, "l_forearm"), &still(&pose));
    let gib: BoneMask = plan.bones.iter().fold(0, |acc, &b| acc | bone_bit(b));
    let (ua, fa, spine) = (
        bone(&m, "l_upperarm"),
        bone(&m, "l_forearm"),
        bone(&m, "spine3"),
    );
    // A cut-ring vertex still weighted 0.3 to the upper arm: fine, the gib poses it.
    let ok = SkinWeights {
        offsets: vec![0, 2, 3],
        bones: vec![ua, fa, fa],
        weights: vec![0.3, 0.7, 1.0],
    };
    assert_eq!(validate_detached_skin(&m, &ok, gib), Ok(()));
    let mut bad = ok.clone();
    bad.weights[1] = 0.6;
    assert!(matches!(
        validate_detached_skin(&m, &bad, gib),
        Err(SkinError::WeightSum { vertex: 0, .. })
    ));
    let mut bad = ok.clone();
    bad.bones[0] = spine;
    assert_eq!(
        validate_detached_skin(&m, &bad, gib),
        Err(SkinError::MissingPoseSource {
            vertex: 0,
            bone: spine
        })
    );
    let mut bad = ok.clone();
    bad.weights[2] = f32::NAN;
    assert!(matches!(
        validate_detached_skin(&m, &bad, gib),
        Err(SkinError::BadWeight { vertex: 1, .. })
    ));
    let mut bad = ok;
    bad.offsets = vec![0, 4];
    assert_eq!(
        validate_detached_skin(&m, &bad, gib),
        Err(SkinError::BadOffsets)
    );
}
