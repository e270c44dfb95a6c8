//! Issue 15 item 2: the damage graph is not the skeleton.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;

#[test]
fn neck_has_two_damage_parents_and_one_skeleton_parent() {
    let m = humanoid();
    let neck = bone(&m, "neck");
    assert_eq!(
        m.damage_graph().parents(neck),
        &[bone(&m, "l_clavicle"), bone(&m, "r_clavicle")]
    );
    assert_eq!(m.skeleton().parent(neck), Some(bone(&m, "spine3")));
    // The skeleton stays a tree: every bone but the root has exactly one parent.
    let order = m.skeleton().parent_before_child();
    assert_eq!(order.len(), 43);
    let roots = order
        .iter()
        .filter(|&&b| m.skeleton().parent(b).is_none())
        .count();
    assert_eq!(roots, 1);
    assert_eq!(m.skeleton().root(), bone(&m, "pelvis"));
    // Both relations are over the same bone names.
    assert_eq!(m.damage_graph().children(bone(&m, "l_clavicle")).len(), 2);
}

#[test]
fn cutting_the_left_clavicle_does_not_take_the_head() {
    let m = humanoid();
    let g = m.damage_graph();
    let cut = g.descendants(bone(&m, "l_clavicle"));
    let names = names_of(&m, cut);
    assert!(names.contains(&"l_hand".to_string()));
    assert!(names.contains(&"l_pinky1".to_string()));
    for n in ["neck", "neck1", "head", "jaw", "r_clavicle"] {
        assert!(
            !names.contains(&n.to_string()),
            "{n} went with the clavicle"
        );
    }
    assert_eq!(names.len(), 12);
}

#[test]
fn the_neck_goes_once_both_clavicles_are_gone() {
    let m = humanoid();
    let g = m.damage_graph();
    let all = u64::MAX >> (64 - 43);
    let present = all & !g.descendants(bone(&m, "r_clavicle"));
    let cut = g.detached_subtree(bone(&m, "l_clavicle"), present);
    let names = names_of(&m, cut);
    for n in ["neck", "neck1", "head", "jaw", "l_hand"] {
        assert!(names.contains(&n.to_string()), "{n} stayed");
    }
    assert_eq!(names.len(), 12 + 4);
}

#[test]
fn descendants_follow_the_damage_graph_not_the_skeleton() {
    let m = humanoid();
    // Skeleton: pelvis is the root, everything is below it. Damage graph: the
    // waist cut at pelvis takes the pelvis and the legs, not the upper body.
    let cut = m.damage_graph().descendants(bone(&m, "pelvis"));
    let names = names_of(&m, cut);
    assert_eq!(names.len(), 1 + 5 + 5);
    assert!(!names.contains(&"spine".to_string()));
    assert!(
        m.skeleton()
            .is_ancestor_or_self(bone(&m, "pelvis"), bone(&m, "head"))
    );
}

#[test]
fn a_cut_of_an_absent_bone_takes_nothing() {
    let m = humanoid();
    let g = m.damage_graph();
    let all = u64::MAX >> (64 - 43);
    let present = all & !g.descendants(bone(&m, "l_hand"));
    assert_eq!(g.detached_subtree(bone(&m, "l_hand"), present), 0);
    let second = g.detached_subtree(bone(&m, "l_forearm"), present);
    assert_eq!(names_of(&m, second), vec!["l_forearm".to_string()]);
}
