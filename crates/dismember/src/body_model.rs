//! The body model: regions → bones → operations, each naming a visual recipe
//! (seed §1.1–1.4).
//!
//! Three layers, as `damageable_body_models.scr` has them:
//! * **regions** (body elements: `Head`, `Torso`, `ArmLeft`, …) carry the
//!   whole-limb [`OperationInput::Break`] (`left_arm_break`);
//! * **bones** carry per-bone [`OperationInput::Cut`] and
//!   [`OperationInput::Deformation`] (`left_forearm_cut`,
//!   `left_forearm_deformation`) and name their *skeleton* parent and their
//!   *damage* parents separately (§1.3, see [`crate::DamageGraph`]);
//! * **virtual damage locations** (§1.2) are wound places without animation
//!   bones: a parent bone, a helper and a helper extents scale
//!   (`[1.0, 1.5, 2.0]`), whose operation has input `Cut` and category
//!   [`OperationCategory::Hole`];
//! * **indirect candidates** (§1.4) such as the waist cut carry a helper, an
//!   extents scale (`[3.0, 2.5, 2.5]`), a maximum attack-plane deviation (30°),
//!   a priority and damage-exclusivity.
//!
//! The model is written as a [`BodyModelDesc`] (TOML, see
//! `data/humanoid.toml` in this crate for a documented 43-bone humanoid) and
//! validated once by [`BodyModel::new`]; after that every reference is a typed
//! index.
//!
//! Units: metres for offsets, centres and extents; degrees only in the text
//! file's `max_plane_angle_deviation_deg`, radians at runtime.

use crate::damage_graph::DamageGraph;
use crate::error::BodyModelError;
use crate::index::{
    BoneIndex, HelperIndex, IndirectCandidateIndex, MaskIndex, RecipeIndex, RegionIndex,
    VirtualLocationIndex,
};
use crate::skeleton::Skeleton;
use glam::{Affine3A, Vec3};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Most bones a body model may have: one bit per bone in 64-bit state masks.
pub const MAX_BONES: usize = 64;

/// What an operation does to the body (the `input` of an operation).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum OperationInput {
    /// Severs the bone's damage subtree into a gib (or opens a hole, by category).
    Cut,
    /// Dents or deforms the bone's surface; nothing detaches.
    Deformation,
    /// Breaks the whole region (the arm hangs, partial ragdoll); nothing detaches.
    Break,
}

/// The visual category of an operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum OperationCategory {
    /// A limb cut producing a gib.
    Cut,
    /// A surface deformation.
    Deformation,
    /// A region break (bones stay attached).
    Break,
    /// A wound hole at a virtual location; nothing detaches.
    Hole,
    /// A cut through the whole body (waist, vertical chest cut); produces a gib.
    FullBodyCut,
}

impl OperationCategory {
    /// Whether this category detaches the location's damage subtree.
    pub fn detaches(self) -> bool {
        matches!(self, Self::Cut | Self::FullBodyCut)
    }
}

/// A validated operation: input, category and the recipe it renders with.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Operation {
    /// What the operation does.
    pub input: OperationInput,
    /// How it looks.
    pub category: OperationCategory,
    /// The visual recipe it names.
    pub recipe: RecipeIndex,
}

// ---------------------------------------------------------------- text form

/// The text form of a body model (TOML). Every name is resolved and checked
/// by [`BodyModel::new`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyModelDesc {
    /// Model name (e.g. `humanoid`).
    pub name: String,
    /// Regions, in the order their [`RegionIndex`] takes.
    pub regions: Vec<RegionDesc>,
    /// Bones, in the order their [`BoneIndex`] takes. At most [`MAX_BONES`].
    pub bones: Vec<BoneDesc>,
    /// Helper volumes.
    #[serde(default)]
    pub helpers: Vec<HelperDesc>,
    /// Virtual damage locations (§1.2).
    #[serde(default)]
    pub virtual_locations: Vec<VirtualLocationDesc>,
    /// Indirect candidates (§1.4).
    #[serde(default)]
    pub indirect_candidates: Vec<IndirectCandidateDesc>,
    /// Visual recipes named by operations.
    #[serde(default)]
    pub recipes: Vec<RecipeDesc>,
    /// Persistent appearance masks (§7.3 `blood_mask_default`).
    #[serde(default)]
    pub masks: Vec<MaskDesc>,
}

/// A region in text form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionDesc {
    /// Region name, unique among regions.
    pub name: String,
    /// Recipe of the region's `Break` operation, if it can break.
    #[serde(default)]
    pub break_recipe: Option<String>,
}

/// A bone in text form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoneDesc {
    /// Bone name, unique among bones.
    pub name: String,
    /// Region the bone belongs to.
    pub region: String,
    /// Skeleton (animation) parent; `None` for the skeleton root.
    #[serde(default)]
    pub parent: Option<String>,
    /// Damage parents (§1.3). Absent means "the skeleton parent" (none for the
    /// root); `[]` makes the bone a damage root.
    #[serde(default)]
    pub damage_parents: Option<Vec<String>>,
    /// Bind-pose translation relative to the skeleton parent (m).
    #[serde(default)]
    pub offset: [f32; 3],
    /// Recipe of the bone's `Cut` operation.
    #[serde(default)]
    pub cut: Option<String>,
    /// Recipe of the bone's `Deformation` operation.
    #[serde(default)]
    pub deformation: Option<String>,
    /// Mounting translation of the bone's physics body relative to the bone
    /// (`L_body`, m, seed §5.3); absent means the bone has no physics body.
    #[serde(default)]
    pub physics_body_offset: Option<[f32; 3]>,
}

/// A helper volume in text form: an axis-aligned box in its bone's frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HelperDesc {
    /// Helper name, unique among helpers.
    pub name: String,
    /// Bone the helper moves with.
    pub bone: String,
    /// Centre in the bone's frame (m).
    #[serde(default)]
    pub center: [f32; 3],
    /// Half extents along the bone's local axes (m), each positive.
    pub half_extents: [f32; 3],
}

/// A virtual damage location in text form (§1.2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VirtualLocationDesc {
    /// Location name, unique among virtual locations.
    pub name: String,
    /// Parent bone.
    pub parent: String,
    /// Helper giving its volume.
    pub helper: String,
    /// Per-axis scale of the helper's half extents, each positive (`[1.0, 1.5, 2.0]`).
    pub helper_extents_scale: [f32; 3],
    /// Recipe of its `Hole` operation (input `Cut`, category `Hole`).
    pub visual: String,
    /// Selection priority; higher wins (default 0).
    #[serde(default)]
    pub priority: i32,
}

/// An operation in text form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperationDesc {
    /// What it does.
    pub input: OperationInput,
    /// Recipe name.
    pub visual: String,
    /// How it looks.
    pub category: OperationCategory,
}

/// An indirect candidate in text form (§1.4, `horizontalCutCandidate`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndirectCandidateDesc {
    /// Candidate name, unique among indirect candidates.
    pub name: String,
    /// Bone whose damage subtree the operation acts on (`pelvis`).
    pub location: String,
    /// Helper giving its volume.
    pub helper: String,
    /// Per-axis scale of the helper's half extents, each positive (`[3.0, 2.5, 2.5]`).
    pub helper_extents_scale: [f32; 3],
    /// Largest allowed angle between the attack plane and the candidate's cut
    /// plane, degrees in `[0, 90]` (30 for the waist, 45 for the vertical chest cut).
    pub max_plane_angle_deviation_deg: f32,
    /// Normal of the candidate's cut plane in the helper bone's frame; non-zero.
    pub plane_normal: [f32; 3],
    /// Selection priority; higher wins (`indirectPriority: 2`).
    #[serde(default)]
    pub priority: i32,
    /// When selected, suppresses every other candidate of the same hit.
    #[serde(default)]
    pub damage_exclusive: bool,
    /// The operation.
    pub operation: OperationDesc,
}

/// An ellipsoid in bind-pose model space (seed §3.2 `HideEllipsoid`).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EllipsoidDesc {
    /// Centre (m, bind-pose model space).
    pub center: [f32; 3],
    /// Half axes along the model axes (m), each positive.
    pub half_axes: [f32; 3],
}

/// A visual recipe in text form (§3.1 `LeftForearmCut`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecipeDesc {
    /// Recipe name, unique among recipes.
    pub name: String,
    /// Helper placing the wound (`patch_elem_arm_left_b`).
    #[serde(default)]
    pub helper: Option<String>,
    /// Volume hidden on the body and shown on the gib.
    #[serde(default)]
    pub hide_volume: Option<EllipsoidDesc>,
    /// Patch capping the body side.
    #[serde(default)]
    pub body_patch: Option<String>,
    /// Patch capping the gib side.
    #[serde(default)]
    pub gib_patch: Option<String>,
    /// Extra bones the gib's physics needs beyond the detached parts
    /// (`PhysicsAdditionalBone("l_upperarm")`, §5.2).
    #[serde(default)]
    pub additional_physics_bones: Vec<String>,
}

/// A persistent appearance mask in text form (§7.3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaskDesc {
    /// Mask name, unique among masks.
    pub name: String,
    /// Number of levels, at least 2 (`12`).
    pub levels: u8,
    /// Value at level 0 (`0`).
    pub min_value: f32,
    /// Value at the top level (`51`), greater than `min_value`.
    pub max_value: f32,
}

// ------------------------------------------------------------ validated form

/// A validated region.
#[derive(Clone, Debug, PartialEq)]
pub struct Region {
    /// Name.
    pub name: String,
    /// The whole-region `Break`, if any.
    pub break_operation: Option<Operation>,
}

/// A validated bone.
#[derive(Clone, Debug, PartialEq)]
pub struct Bone {
    /// Name.
    pub name: String,
    /// Region.
    pub region: RegionIndex,
    /// Bind-pose translation relative to the skeleton parent (m).
    pub offset: Vec3,
    /// The per-bone `Cut`.
    pub cut: Option<Operation>,
    /// The per-bone `Deformation`.
    pub deformation: Option<Operation>,
    /// `L_body`: physics body mounting relative to the bone, if it has a body.
    pub physics_body_offset: Option<Affine3A>,
}

/// A validated helper volume.
#[derive(Clone, Debug, PartialEq)]
pub struct Helper {
    /// Name.
    pub name: String,
    /// Bone it moves with.
    pub bone: BoneIndex,
    /// Centre in the bone frame (m).
    pub center: Vec3,
    /// Half extents (m), positive.
    pub half_extents: Vec3,
}

/// A validated virtual damage location.
#[derive(Clone, Debug, PartialEq)]
pub struct VirtualLocation {
    /// Name.
    pub name: String,
    /// Parent bone.
    pub parent: BoneIndex,
    /// Helper.
    pub helper: HelperIndex,
    /// Extents scale, positive.
    pub extents_scale: Vec3,
    /// The `Hole` operation (input `Cut`, category `Hole`).
    pub operation: Operation,
    /// Selection priority; higher wins.
    pub priority: i32,
}

/// A validated indirect candidate.
#[derive(Clone, Debug, PartialEq)]
pub struct IndirectCandidate {
    /// Name.
    pub name: String,
    /// Bone the operation acts on.
    pub location: BoneIndex,
    /// Helper.
    pub helper: HelperIndex,
    /// Extents scale, positive.
    pub extents_scale: Vec3,
    /// Maximum attack-plane deviation (rad, in `[0, π/2]`).
    pub max_plane_angle_deviation: f32,
    /// Unit cut-plane normal in the helper bone's frame.
    pub plane_normal: Vec3,
    /// Selection priority; higher wins.
    pub priority: i32,
    /// Suppresses every other candidate of the same hit when selected.
    pub damage_exclusive: bool,
    /// The operation.
    pub operation: Operation,
}

/// An ellipsoid in bind-pose model space.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Ellipsoid {
    /// Centre (m).
    pub center: Vec3,
    /// Half axes (m), positive.
    pub half_axes: Vec3,
}

impl Ellipsoid {
    /// Whether `p` is inside: `|q|² < 1` with `q = (p − c) / half_axes`
    /// (seed §3.2 `ShouldHideSurface`, axis-aligned in bind-pose model space).
    pub fn contains(&self, p: Vec3) -> bool {
        let q = (p - self.center) / self.half_axes;
        q.length_squared() < 1.0
    }
}

/// A validated visual recipe.
#[derive(Clone, Debug, PartialEq)]
pub struct Recipe {
    /// Name.
    pub name: String,
    /// Wound helper.
    pub helper: Option<HelperIndex>,
    /// Hidden on the body / shown on the gib.
    pub hide_volume: Option<Ellipsoid>,
    /// Body-side patch name.
    pub body_patch: Option<String>,
    /// Gib-side patch name.
    pub gib_patch: Option<String>,
    /// Extra physics bones of the gib.
    pub additional_physics_bones: Vec<BoneIndex>,
}

/// A validated persistent mask.
#[derive(Clone, Debug, PartialEq)]
pub struct Mask {
    /// Name.
    pub name: String,
    /// Number of levels (≥ 2).
    pub levels: u8,
    /// Value at level 0.
    pub min_value: f32,
    /// Value at level `levels − 1`.
    pub max_value: f32,
}

/// A validated, immutable body model.
///
/// # Invariants
/// * at most [`MAX_BONES`] bones; names unique per kind;
/// * the skeleton is a tree (one root, no cycles), the damage graph is acyclic;
/// * every operation names an existing recipe; every offset, extent and angle
///   is finite (extents and scales positive).
#[derive(Clone, Debug)]
pub struct BodyModel {
    name: String,
    regions: Vec<Region>,
    bones: Vec<Bone>,
    helpers: Vec<Helper>,
    virtual_locations: Vec<VirtualLocation>,
    indirect_candidates: Vec<IndirectCandidate>,
    recipes: Vec<Recipe>,
    masks: Vec<Mask>,
    skeleton: Skeleton,
    damage_graph: DamageGraph,
    bone_by_name: BTreeMap<String, BoneIndex>,
    region_by_name: BTreeMap<String, RegionIndex>,
    recipe_by_name: BTreeMap<String, RecipeIndex>,
}

fn finite3(v: [f32; 3]) -> bool {
    v.iter().all(|x| x.is_finite())
}

fn positive3(v: [f32; 3]) -> bool {
    v.iter().all(|&x| x.is_finite() && x > 0.0)
}

fn names<'a, I: IntoIterator<Item = &'a str>>(
    kind: &'static str,
    it: I,
) -> Result<BTreeMap<String, u32>, BodyModelError> {
    let mut map = BTreeMap::new();
    for (i, name) in it.into_iter().enumerate() {
        if name.trim().is_empty() {
            return Err(BodyModelError::EmptyName { kind, index: i });
        }
        if map.insert(name.to_owned(), i as u32).is_some() {
            return Err(BodyModelError::DuplicateName {
                kind,
                name: name.to_owned(),
            });
        }
    }
    Ok(map)
}

impl BodyModel {
    /// Parses and validates a TOML body model.
    ///
    /// # Errors
    /// [`BodyModelError::Parse`] on malformed TOML or unknown keys, then every
    /// error of [`BodyModel::new`].
    ///
    /// # Example
    /// ```
    /// let model = smithereens_dismember::BodyModel::from_toml_str(
    ///     smithereens_dismember::HUMANOID_TOML,
    /// )
    /// .unwrap();
    /// assert_eq!(model.bone_count(), 43);
    /// ```
    pub fn from_toml_str(text: &str) -> Result<Self, BodyModelError> {
        let desc: BodyModelDesc =
            toml::from_str(text).map_err(|e| BodyModelError::Parse(e.to_string()))?;
        Self::new(&desc)
    }

    /// Validates a description into a model.
    ///
    /// # Errors
    /// [`BodyModelError::Empty`], [`BodyModelError::TooManyBones`],
    /// [`BodyModelError::EmptyName`], [`BodyModelError::DuplicateName`], [`BodyModelError::UnknownBone`],
    /// [`BodyModelError::UnknownRegion`], [`BodyModelError::UnknownHelper`],
    /// [`BodyModelError::MissingRecipe`], [`BodyModelError::SkeletonRoots`],
    /// [`BodyModelError::SkeletonCycle`], [`BodyModelError::DamageCycle`],
    /// [`BodyModelError::BadValue`] (non-finite or non-positive numbers,
    /// offsets whose bind pose overflows, a mask range whose span overflows),
    /// [`BodyModelError::BadOperation`] (an operation whose input and category
    /// disagree).
    pub fn new(desc: &BodyModelDesc) -> Result<Self, BodyModelError> {
        if desc.bones.is_empty() || desc.regions.is_empty() {
            return Err(BodyModelError::Empty);
        }
        if desc.bones.len() > MAX_BONES {
            return Err(BodyModelError::TooManyBones {
                count: desc.bones.len(),
                max: MAX_BONES,
            });
        }
        let region_names = names("region", desc.regions.iter().map(|r| r.name.as_str()))?;
        let bone_names = names("bone", desc.bones.iter().map(|b| b.name.as_str()))?;
        let helper_names = names("helper", desc.helpers.iter().map(|h| h.name.as_str()))?;
        let recipe_names = names("recipe", desc.recipes.iter().map(|r| r.name.as_str()))?;
        names(
            "virtual location",
            desc.virtual_locations.iter().map(|v| v.name.as_str()),
        )?;
        names(
            "indirect candidate",
            desc.indirect_candidates.iter().map(|c| c.name.as_str()),
        )?;
        names("mask", desc.masks.iter().map(|m| m.name.as_str()))?;

        let bone = |owner: &str, name: &str| {
            bone_names
                .get(name)
                .map(|&i| BoneIndex(i))
                .ok_or_else(|| BodyModelError::UnknownBone {
                    owner: owner.to_owned(),
                    name: name.to_owned(),
                })
        };
        let helper = |owner: &str, name: &str| {
            helper_names
                .get(name)
                .map(|&i| HelperIndex(i))
                .ok_or_else(|| BodyModelError::UnknownHelper {
                    owner: owner.to_owned(),
                    name: name.to_owned(),
                })
        };
        let operation = |owner: &str,
                         input: OperationInput,
                         category: OperationCategory,
                         recipe: &str|
         -> Result<Operation, BodyModelError> {
            let ok = matches!(
                (input, category),
                (
                    OperationInput::Cut,
                    OperationCategory::Cut
                        | OperationCategory::Hole
                        | OperationCategory::FullBodyCut
                ) | (OperationInput::Deformation, OperationCategory::Deformation)
                    | (OperationInput::Break, OperationCategory::Break)
            );
            if !ok {
                return Err(BodyModelError::BadOperation {
                    owner: owner.to_owned(),
                    input,
                    category,
                });
            }
            let recipe = recipe_names
                .get(recipe)
                .map(|&i| RecipeIndex(i))
                .ok_or_else(|| BodyModelError::MissingRecipe {
                    owner: owner.to_owned(),
                    recipe: recipe.to_owned(),
                })?;
            Ok(Operation {
                input,
                category,
                recipe,
            })
        };
        let bad = |owner: &str, field: &'static str| BodyModelError::BadValue {
            owner: owner.to_owned(),
            field,
        };

        let mut regions = Vec::with_capacity(desc.regions.len());
        for r in &desc.regions {
            let break_operation = match &r.break_recipe {
                Some(name) => Some(operation(
                    &r.name,
                    OperationInput::Break,
                    OperationCategory::Break,
                    name,
                )?),
                None => None,
            };
            regions.push(Region {
                name: r.name.clone(),
                break_operation,
            });
        }

        let mut bones = Vec::with_capacity(desc.bones.len());
        let mut skeleton_parents = Vec::with_capacity(desc.bones.len());
        let mut damage_parents: Vec<Vec<BoneIndex>> = Vec::with_capacity(desc.bones.len());
        for b in &desc.bones {
            let region = region_names
                .get(&b.region)
                .map(|&i| RegionIndex(i))
                .ok_or_else(|| BodyModelError::UnknownRegion {
                    owner: b.name.clone(),
                    name: b.region.clone(),
                })?;
            let parent = match &b.parent {
                Some(p) => Some(bone(&b.name, p)?),
                None => None,
            };
            let dparents = match &b.damage_parents {
                Some(list) => {
                    let mut v = Vec::with_capacity(list.len());
                    for p in list {
                        let p = bone(&b.name, p)?;
                        if !v.contains(&p) {
                            v.push(p);
                        }
                    }
                    v
                }
                None => parent.into_iter().collect(),
            };
            if !finite3(b.offset) {
                return Err(bad(&b.name, "offset"));
            }
            let physics_body_offset = match b.physics_body_offset {
                Some(o) if finite3(o) => Some(Affine3A::from_translation(Vec3::from(o))),
                Some(_) => return Err(bad(&b.name, "physics_body_offset")),
                None => None,
            };
            let cut = match &b.cut {
                Some(r) => Some(operation(
                    &b.name,
                    OperationInput::Cut,
                    OperationCategory::Cut,
                    r,
                )?),
                None => None,
            };
            let deformation = match &b.deformation {
                Some(r) => Some(operation(
                    &b.name,
                    OperationInput::Deformation,
                    OperationCategory::Deformation,
                    r,
                )?),
                None => None,
            };
            skeleton_parents.push(parent);
            damage_parents.push(dparents);
            bones.push(Bone {
                name: b.name.clone(),
                region,
                offset: Vec3::from(b.offset),
                cut,
                deformation,
                physics_body_offset,
            });
        }
        let skeleton = Skeleton::new(&skeleton_parents, |i| desc.bones[i].name.clone())?;
        let damage_graph = DamageGraph::new(&damage_parents, |i| desc.bones[i].name.clone())?;

        let mut helpers = Vec::with_capacity(desc.helpers.len());
        for h in &desc.helpers {
            if !finite3(h.center) {
                return Err(bad(&h.name, "center"));
            }
            if !positive3(h.half_extents) {
                return Err(bad(&h.name, "half_extents"));
            }
            helpers.push(Helper {
                name: h.name.clone(),
                bone: bone(&h.name, &h.bone)?,
                center: Vec3::from(h.center),
                half_extents: Vec3::from(h.half_extents),
            });
        }

        let mut virtual_locations = Vec::with_capacity(desc.virtual_locations.len());
        for v in &desc.virtual_locations {
            if !positive3(v.helper_extents_scale) {
                return Err(bad(&v.name, "helper_extents_scale"));
            }
            virtual_locations.push(VirtualLocation {
                name: v.name.clone(),
                parent: bone(&v.name, &v.parent)?,
                helper: helper(&v.name, &v.helper)?,
                extents_scale: Vec3::from(v.helper_extents_scale),
                operation: operation(
                    &v.name,
                    OperationInput::Cut,
                    OperationCategory::Hole,
                    &v.visual,
                )?,
                priority: v.priority,
            });
        }

        let mut indirect_candidates = Vec::with_capacity(desc.indirect_candidates.len());
        for c in &desc.indirect_candidates {
            if !positive3(c.helper_extents_scale) {
                return Err(bad(&c.name, "helper_extents_scale"));
            }
            let dev = c.max_plane_angle_deviation_deg;
            if !(0.0..=90.0).contains(&dev) {
                return Err(bad(&c.name, "max_plane_angle_deviation_deg"));
            }
            // try_normalize: a finite normal whose length overflows is
            // rejected, not turned into the zero vector.
            let n = Vec3::from(c.plane_normal);
            let Some(unit) = n.try_normalize().filter(|_| n.length_squared() > 1e-12) else {
                return Err(bad(&c.name, "plane_normal"));
            };
            indirect_candidates.push(IndirectCandidate {
                name: c.name.clone(),
                location: bone(&c.name, &c.location)?,
                helper: helper(&c.name, &c.helper)?,
                extents_scale: Vec3::from(c.helper_extents_scale),
                max_plane_angle_deviation: dev.to_radians(),
                plane_normal: unit,
                priority: c.priority,
                damage_exclusive: c.damage_exclusive,
                operation: operation(
                    &c.name,
                    c.operation.input,
                    c.operation.category,
                    &c.operation.visual,
                )?,
            });
        }

        let mut recipes = Vec::with_capacity(desc.recipes.len());
        for r in &desc.recipes {
            let hide_volume = match r.hide_volume {
                Some(e) => {
                    if !finite3(e.center) || !positive3(e.half_axes) {
                        return Err(bad(&r.name, "hide_volume"));
                    }
                    Some(Ellipsoid {
                        center: Vec3::from(e.center),
                        half_axes: Vec3::from(e.half_axes),
                    })
                }
                None => None,
            };
            let helper_ix = match &r.helper {
                Some(h) => Some(helper(&r.name, h)?),
                None => None,
            };
            let mut extra = Vec::with_capacity(r.additional_physics_bones.len());
            for b in &r.additional_physics_bones {
                extra.push(bone(&r.name, b)?);
            }
            recipes.push(Recipe {
                name: r.name.clone(),
                helper: helper_ix,
                hide_volume,
                body_patch: r.body_patch.clone(),
                gib_patch: r.gib_patch.clone(),
                additional_physics_bones: extra,
            });
        }

        let mut masks = Vec::with_capacity(desc.masks.len());
        for m in &desc.masks {
            if m.levels < 2 {
                return Err(bad(&m.name, "levels"));
            }
            if !(m.min_value.is_finite()
                && m.max_value.is_finite()
                && m.max_value > m.min_value
                && (m.max_value - m.min_value).is_finite())
            {
                return Err(bad(&m.name, "max_value"));
            }
            masks.push(Mask {
                name: m.name.clone(),
                levels: m.levels,
                min_value: m.min_value,
                max_value: m.max_value,
            });
        }

        let model = Self {
            name: desc.name.clone(),
            regions,
            bones,
            helpers,
            virtual_locations,
            indirect_candidates,
            recipes,
            masks,
            skeleton,
            damage_graph,
            bone_by_name: bone_names
                .into_iter()
                .map(|(k, v)| (k, BoneIndex(v)))
                .collect(),
            region_by_name: region_names
                .into_iter()
                .map(|(k, v)| (k, RegionIndex(v)))
                .collect(),
            recipe_by_name: recipe_names
                .into_iter()
                .map(|(k, v)| (k, RecipeIndex(v)))
                .collect(),
        };
        // Each offset is finite, but a chain of huge ones can sum to infinity.
        let bind = model.bind_pose();
        if let Some(&b) = model
            .skeleton
            .parent_before_child()
            .iter()
            .find(|b| !bind[b.ix()].is_finite())
        {
            return Err(bad(&desc.bones[b.ix()].name, "offset"));
        }
        Ok(model)
    }

    /// Model name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Number of bones (≤ [`MAX_BONES`]).
    pub fn bone_count(&self) -> usize {
        self.bones.len()
    }
    /// Number of regions.
    pub fn region_count(&self) -> usize {
        self.regions.len()
    }
    /// All bones, indexed by [`BoneIndex`].
    pub fn bones(&self) -> &[Bone] {
        &self.bones
    }
    /// All regions, indexed by [`RegionIndex`].
    pub fn regions(&self) -> &[Region] {
        &self.regions
    }
    /// All helpers, indexed by [`HelperIndex`].
    pub fn helpers(&self) -> &[Helper] {
        &self.helpers
    }
    /// All virtual locations, indexed by [`VirtualLocationIndex`].
    pub fn virtual_locations(&self) -> &[VirtualLocation] {
        &self.virtual_locations
    }
    /// All indirect candidates, indexed by [`IndirectCandidateIndex`].
    pub fn indirect_candidates(&self) -> &[IndirectCandidate] {
        &self.indirect_candidates
    }
    /// All recipes, indexed by [`RecipeIndex`].
    pub fn recipes(&self) -> &[Recipe] {
        &self.recipes
    }
    /// All masks, indexed by [`MaskIndex`].
    pub fn masks(&self) -> &[Mask] {
        &self.masks
    }
    /// One bone, or `None` out of range.
    pub fn bone(&self, b: BoneIndex) -> Option<&Bone> {
        self.bones.get(b.ix())
    }
    /// One region, or `None` out of range.
    pub fn region(&self, r: RegionIndex) -> Option<&Region> {
        self.regions.get(r.ix())
    }
    /// One recipe, or `None` out of range.
    pub fn recipe(&self, r: RecipeIndex) -> Option<&Recipe> {
        self.recipes.get(r.ix())
    }
    /// One helper, or `None` out of range.
    pub fn helper(&self, h: HelperIndex) -> Option<&Helper> {
        self.helpers.get(h.ix())
    }
    /// One virtual location, or `None` out of range.
    pub fn virtual_location(&self, v: VirtualLocationIndex) -> Option<&VirtualLocation> {
        self.virtual_locations.get(v.ix())
    }
    /// One indirect candidate, or `None` out of range.
    pub fn indirect_candidate(&self, c: IndirectCandidateIndex) -> Option<&IndirectCandidate> {
        self.indirect_candidates.get(c.ix())
    }
    /// One mask, or `None` out of range.
    pub fn mask(&self, m: MaskIndex) -> Option<&Mask> {
        self.masks.get(m.ix())
    }
    /// Bone by name.
    pub fn bone_index(&self, name: &str) -> Option<BoneIndex> {
        self.bone_by_name.get(name).copied()
    }
    /// Region by name.
    pub fn region_index(&self, name: &str) -> Option<RegionIndex> {
        self.region_by_name.get(name).copied()
    }
    /// Recipe by name.
    pub fn recipe_index(&self, name: &str) -> Option<RecipeIndex> {
        self.recipe_by_name.get(name).copied()
    }
    /// Mask by name.
    pub fn mask_index(&self, name: &str) -> Option<MaskIndex> {
        self.masks
            .iter()
            .position(|m| m.name == name)
            .map(|i| MaskIndex(i as u32))
    }
    /// Virtual location by name.
    pub fn virtual_location_index(&self, name: &str) -> Option<VirtualLocationIndex> {
        self.virtual_locations
            .iter()
            .position(|v| v.name == name)
            .map(|i| VirtualLocationIndex(i as u32))
    }
    /// Indirect candidate by name.
    pub fn indirect_candidate_index(&self, name: &str) -> Option<IndirectCandidateIndex> {
        self.indirect_candidates
            .iter()
            .position(|c| c.name == name)
            .map(|i| IndirectCandidateIndex(i as u32))
    }
    /// The animation skeleton (a tree).
    pub fn skeleton(&self) -> &Skeleton {
        &self.skeleton
    }
    /// The damage graph (a DAG, separate from the skeleton).
    pub fn damage_graph(&self) -> &DamageGraph {
        &self.damage_graph
    }

    /// Bind pose: each bone's model-space transform, the skeleton parent's
    /// bind transform times the bone's `offset` translation. One entry per bone.
    pub fn bind_pose(&self) -> Vec<Affine3A> {
        let mut out = vec![Affine3A::IDENTITY; self.bones.len()];
        for &b in self.skeleton.parent_before_child() {
            let local = Affine3A::from_translation(self.bones[b.ix()].offset);
            out[b.ix()] = match self.skeleton.parent(b) {
                Some(p) => out[p.ix()] * local,
                None => local,
            };
        }
        out
    }
}
