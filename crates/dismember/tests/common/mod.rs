//! Shared fixtures: the documented humanoid and the Biter rules.
#![allow(dead_code)]

use smithereens_dismember::*;

pub fn humanoid() -> BodyModel {
    BodyModel::from_toml_str(HUMANOID_TOML).unwrap()
}

pub fn biter(model: &BodyModel) -> RuleSet {
    RuleSet::from_toml_str(model, BITER_RULES_TOML).unwrap()
}

pub fn bone(model: &BodyModel, name: &str) -> BoneIndex {
    model.bone_index(name).unwrap()
}

pub fn mask_of(model: &BodyModel, names: &[&str]) -> BoneMask {
    names.iter().fold(0, |m, n| m | bone_bit(bone(model, n)))
}

pub fn names_of(model: &BodyModel, mask: BoneMask) -> Vec<String> {
    (0..model.bone_count() as u32)
        .filter(|i| mask & (1u64 << i) != 0)
        .map(|i| model.bones()[i as usize].name.clone())
        .collect()
}

pub fn desc() -> BodyModelDesc {
    toml::from_str(HUMANOID_TOML).unwrap()
}
