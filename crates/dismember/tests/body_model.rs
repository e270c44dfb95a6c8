//! Issue 15 item 1: the three-layer body model and its text format.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use smithereens_dismember::*;

#[test]
fn humanoid_has_43_bones_in_six_regions_with_the_seeds_left_arm() {
    let m = humanoid();
    assert_eq!(m.bone_count(), 43);
    assert_eq!(m.region_count(), 6);
    let arm = m.region_index("ArmLeft").unwrap();
    // Region layer: Break is per region (left_arm_break).
    let brk = m.region(arm).unwrap().break_operation.unwrap();
    assert_eq!(m.recipe(brk.recipe).unwrap().name, "left_arm_break");
    assert_eq!(brk.category, OperationCategory::Break);
    // Bone layer: Cut and Deformation per bone, each with its own recipe.
    let fa = m.bone(bone(&m, "l_forearm")).unwrap();
    assert_eq!(fa.region, arm);
    assert_eq!(
        m.recipe(fa.cut.unwrap().recipe).unwrap().name,
        "left_forearm_cut"
    );
    assert_eq!(
        m.recipe(fa.deformation.unwrap().recipe).unwrap().name,
        "left_forearm_deformation"
    );
    let hand = m.bone(bone(&m, "l_hand")).unwrap();
    assert!(hand.cut.is_some() && hand.deformation.is_none());
    // The recipe names its helper and the extra physics bone (§3.1, §5.2).
    let recipe = m.recipe(fa.cut.unwrap().recipe).unwrap();
    assert_eq!(
        m.helper(recipe.helper.unwrap()).unwrap().name,
        "patch_elem_arm_left_b"
    );
    assert_eq!(
        recipe.additional_physics_bones,
        vec![bone(&m, "l_upperarm")]
    );
}

#[test]
fn virtual_location_is_a_hole_on_a_parent_bone_with_scaled_helper() {
    let m = humanoid();
    let v = m
        .virtual_location(m.virtual_location_index("hole_forearm_left").unwrap())
        .unwrap();
    assert_eq!(v.parent, bone(&m, "l_forearm"));
    assert_eq!(m.helper(v.helper).unwrap().name, "helper_forearm_left");
    assert_eq!(v.extents_scale, glam::Vec3::new(1.0, 1.5, 2.0));
    assert_eq!(v.operation.input, OperationInput::Cut);
    assert_eq!(v.operation.category, OperationCategory::Hole);
    assert!(!v.operation.category.detaches());
}

#[test]
fn waist_cut_candidate_carries_the_seeds_numbers() {
    let m = humanoid();
    let c = m
        .indirect_candidate(m.indirect_candidate_index("horizontal_cut").unwrap())
        .unwrap();
    assert_eq!(c.location, bone(&m, "pelvis"));
    assert_eq!(m.helper(c.helper).unwrap().name, "helper_waist_0");
    assert_eq!(c.extents_scale, glam::Vec3::new(3.0, 2.5, 2.5));
    assert!((c.max_plane_angle_deviation - 30f32.to_radians()).abs() < 1e-6);
    assert_eq!(c.priority, 2);
    assert!(c.damage_exclusive);
    assert_eq!(c.operation.category, OperationCategory::FullBodyCut);
    let v = m
        .indirect_candidate(m.indirect_candidate_index("vertical_cut_left").unwrap())
        .unwrap();
    assert!((v.max_plane_angle_deviation - 45f32.to_radians()).abs() < 1e-6);
}

#[test]
fn unknown_bone_is_a_typed_error() {
    let mut d = desc();
    d.bones[3].parent = Some("no_such_bone".into());
    assert!(matches!(
        BodyModel::new(&d),
        Err(BodyModelError::UnknownBone { name, .. }) if name == "no_such_bone"
    ));
}

#[test]
fn unknown_region_is_a_typed_error() {
    let mut d = desc();
    d.bones[0].region = "Tail".into();
    assert!(matches!(
        BodyModel::new(&d),
        Err(BodyModelError::UnknownRegion { name, .. }) if name == "Tail"
    ));
}

#[test]
fn missing_recipe_is_a_typed_error() {
    let mut d = desc();
    d.recipes.retain(|r| r.name != "left_forearm_cut");
    assert!(matches!(
        BodyModel::new(&d),
        Err(BodyModelError::MissingRecipe { recipe, .. }) if recipe == "left_forearm_cut"
    ));
}

#[test]
fn damage_cycle_is_a_typed_error() {
    let mut d = desc();
    // head ← neck1 ← neck; make the neck hang on the head too.
    let neck = d.bones.iter().position(|b| b.name == "neck").unwrap();
    d.bones[neck].damage_parents = Some(vec!["head".into()]);
    assert!(matches!(
        BodyModel::new(&d),
        Err(BodyModelError::DamageCycle { .. })
    ));
}

#[test]
fn skeleton_cycle_and_second_root_are_typed_errors() {
    let mut d = desc();
    d.bones[0].parent = Some("spine".into()); // pelvis ↔ spine
    assert!(matches!(
        BodyModel::new(&d),
        Err(BodyModelError::SkeletonRoots { count: 0 })
    ));
    let mut d = desc();
    d.bones[0].parent = Some("l_toe".into());
    d.bones[1].parent = None;
    d.bones[2].parent = Some("l_toe".into());
    assert!(matches!(
        BodyModel::new(&d),
        Err(BodyModelError::SkeletonCycle { .. })
    ));
}

#[test]
fn bad_numbers_and_bad_text_are_typed_errors() {
    let mut d = desc();
    d.indirect_candidates[0].helper_extents_scale = [3.0, f32::NAN, 2.5];
    assert!(matches!(
        BodyModel::new(&d),
        Err(BodyModelError::BadValue { .. })
    ));
    let mut d = desc();
    d.indirect_candidates[0].max_plane_angle_deviation_deg = 120.0;
    assert!(matches!(
        BodyModel::new(&d),
        Err(BodyModelError::BadValue { .. })
    ));
    let mut d = desc();
    d.bones[5].offset = [f32::INFINITY, 0.0, 0.0];
    assert!(matches!(
        BodyModel::new(&d),
        Err(BodyModelError::BadValue { .. })
    ));
    let mut d = desc();
    d.bones.push(d.bones[4].clone());
    assert!(matches!(
        BodyModel::new(&d),
        Err(BodyModelError::DuplicateName { .. })
    ));
    assert!(matches!(
        BodyModel::from_toml_str("name = 3"),
        Err(BodyModelError::Parse(_))
    ));
    let with_typo = HUMANOID_TOML.replace(
        "helper_extents_scale = [1.0, 1.5",
        "helper_extent_scale = [1.0, 1.5",
    );
    assert!(matches!(
        BodyModel::from_toml_str(&with_typo),
        Err(BodyModelError::Parse(_))
    ));
}

#[test]
fn bind_pose_places_the_left_hand_at_the_end_of_the_arm() {
    let m = humanoid();
    let pose = m.bind_pose();
    let hand = pose[bone(&m, "l_hand").get() as usize].translation;
    assert!((hand.x - 0.71).abs() < 1e-5 && (hand.y - 1.51).abs() < 1e-5);
}
