//! The scenario file schema (TOML) and its validation.

use crate::error::ScenarioFileError;
use crate::vehicle::{LaunchSpec, SubstepSpec, VehicleSpec, validate_vehicles};
use serde::{Deserialize, Serialize};
use smithereens_core::quantity::sig;

/// A box to fracture: extents in metres, centred on the origin.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoxSpec {
    /// Full extents x, y, z, m (each > 0).
    pub size: [f32; 3],
    /// Voronoi chunk count (give this or `blocks`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub chunks: u32,
    /// Blocks along x, y, z instead of Voronoi cells: the box is sliced into
    /// a regular grid of equal blocks (each count ≥ 1, at most 100,000
    /// blocks), every shared face bonded. Give this or `chunks`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<[u32; 3]>,
    /// Boxes `[x_min, y_min, z_min, x_max, y_max, z_max]` (m, in the box's
    /// own frame, centred on the origin) whose chunks are taken away after
    /// fracturing, with their bonds: a grid carved into a bridge on piers,
    /// an arch, a doorway. A chunk goes when its centroid lies inside one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub carve: Vec<[f32; 6]>,
    /// Fracture seed.
    #[serde(default = "one")]
    pub seed: u64,
    /// Density, kg/m³.
    #[serde(default = "density")]
    pub density: f64,
    /// Bond strength per m² of interface, du/m².
    #[serde(default = "strength")]
    pub strength_per_area: f64,
}

fn one() -> u64 {
    1
}
fn is_zero(v: &u32) -> bool {
    *v == 0
}
fn concrete() -> String {
    "concrete".into()
}
fn unit() -> f32 {
    1.0
}
fn density() -> f64 {
    2400.0
}
fn strength() -> f64 {
    smithereens_authoring::DEFAULT_STRENGTH_PER_AREA
}
fn yes() -> bool {
    true
}
fn zero3() -> [f32; 3] {
    [0.0; 3]
}

/// A mesh file to fracture.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshSpec {
    /// Path, relative to the scenario file.
    pub path: String,
    /// Voronoi chunk count.
    pub chunks: u32,
    /// Fracture seed.
    #[serde(default = "one")]
    pub seed: u64,
    /// Density, kg/m³.
    #[serde(default = "density")]
    pub density: f64,
    /// Bond strength per m² of interface, du/m².
    #[serde(default = "strength")]
    pub strength_per_area: f64,
}

/// Which chunks are fixed to the world.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Supports {
    /// Chunks touching the lowest plane of the asset (y).
    #[default]
    Ground,
    /// Chunks touching either end plane in x (a span resting on two piers).
    EndsX,
    /// None: the whole asset is dynamic.
    None,
    /// As authored in the asset file.
    Asset,
}

/// One destructible instance: where its asset comes from (exactly one of
/// `box`, `mesh`, `file`), its support rule and its placement. The single
/// `[asset]` table and each `[[instances]]` entry have this form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssetSource {
    /// A box to fracture.
    #[serde(rename = "box", default, skip_serializing_if = "Option::is_none")]
    pub box_: Option<BoxSpec>,
    /// A mesh to fracture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<MeshSpec>,
    /// An asset file (relative to the scenario file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Support rule.
    #[serde(default)]
    pub supports: Supports,
    /// Stand the asset on the ground (lowest point at `ground_y`, centred in x/z)
    /// before applying `translation`.
    #[serde(default = "yes")]
    pub stand_on_ground: bool,
    /// Extra translation, m.
    #[serde(default = "zero3")]
    pub translation: [f32; 3],
    /// Rotation as XYZ Euler angles, degrees.
    #[serde(default = "zero3")]
    pub rotation_deg: [f32; 3],
    /// Stress: structures that fail under their own weight and under the
    /// loads resting on them (issue 13). Absent: off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stress: Option<StressSpec>,
}

/// The stress of an instance (`[asset.stress]`, `[instances.stress]`): a
/// material preset, optionally scaled or overridden per mode, and solver
/// settings. Limits are stresses in Pa as `[elastic, fatal]`.
///
/// ```toml
/// [asset.stress]
/// material = "brick"     # concrete (default), brick, wood, glass
/// scale = 0.01           # every limit × 0.01 (games scale strengths down)
/// tension = [2e4, 4e4]   # or set a mode's [elastic, fatal] outright
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StressSpec {
    /// Preset: `concrete`, `brick`, `wood` or `glass`
    /// (`smithereens_core::stress::Material`).
    #[serde(default = "concrete")]
    pub material: String,
    /// Factor on every limit of the preset (> 0; default 1).
    #[serde(default = "unit")]
    pub scale: f32,
    /// Compression `[elastic, fatal]`, Pa (replaces the scaled preset's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compression: Option<[f32; 2]>,
    /// Tension `[elastic, fatal]`, Pa.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tension: Option<[f32; 2]>,
    /// Shear `[elastic, fatal]`, Pa.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shear: Option<[f32; 2]>,
    /// Damage per overshoot and time, du / (Pa·s) (≥ 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damage_rate: Option<f32>,
    /// Most solver iterations per step (≥ 1; default 64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_iterations: Option<u32>,
    /// Residual bound ε (> 0; default 1e-3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epsilon: Option<f32>,
}

impl StressSpec {
    /// The runtime description; `field` names the table in errors.
    ///
    /// # Errors
    /// [`ScenarioFileError::Invalid`] naming the bad key.
    pub fn desc(
        &self,
        field: &str,
    ) -> Result<smithereens_core::stress::StressDesc, ScenarioFileError> {
        use smithereens_core::stress::{Material, StressDesc, StressLimit, StressMaterials};
        let mut m = match self.material.as_str() {
            "concrete" => Material::CONCRETE,
            "brick" => Material::BRICK,
            "wood" => Material::WOOD,
            "glass" => Material::GLASS,
            other => {
                return Err(invalid(
                    format!("{field}.material"),
                    format!("unknown material {other:?} (concrete, brick, wood, glass)"),
                ));
            }
        };
        positive(&format!("{field}.scale"), self.scale)?;
        for l in [&mut m.compression, &mut m.tension, &mut m.shear] {
            l.elastic *= self.scale;
            l.fatal *= self.scale;
        }
        for (name, given, limit) in [
            ("compression", self.compression, &mut m.compression),
            ("tension", self.tension, &mut m.tension),
            ("shear", self.shear, &mut m.shear),
        ] {
            if let Some([elastic, fatal]) = given {
                if !(elastic.is_finite() && fatal.is_finite() && 0.0 <= elastic && elastic <= fatal)
                {
                    return Err(invalid(
                        format!("{field}.{name}"),
                        format!(
                            "needs 0 ≤ elastic ≤ fatal, both finite (got [{elastic}, {fatal}])"
                        ),
                    ));
                }
                *limit = StressLimit { elastic, fatal };
            }
        }
        if let Some(r) = self.damage_rate {
            if !(r.is_finite() && r >= 0.0) {
                return Err(invalid(
                    format!("{field}.damage_rate"),
                    format!("must be ≥ 0 and finite (got {r})"),
                ));
            }
            m.damage_rate = r;
        }
        m.validate()
            .map_err(|e| invalid(field.to_string(), e.to_string()))?;
        let mut desc = StressDesc::new(StressMaterials::uniform(m));
        if let Some(n) = self.max_iterations {
            if n == 0 {
                return Err(invalid(
                    format!("{field}.max_iterations"),
                    "must be at least 1",
                ));
            }
            desc.settings.max_iterations = n;
        }
        if let Some(e) = self.epsilon {
            positive(&format!("{field}.epsilon"), e)?;
            desc.settings.epsilon = e;
        }
        Ok(desc)
    }
}

/// A projectile launch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectileSpec {
    /// Launch time, s (rounded down to a step).
    pub time: f32,
    /// Start position, m.
    pub position: [f32; 3],
    /// Start velocity, m/s.
    pub velocity: [f32; 3],
    /// Radius, m.
    pub radius: f32,
    /// Mass, kg.
    pub mass: f32,
}

/// A plain (non-destructible) rigid body: a box or a ball.
///
/// `kind` and `shape` are read as text and checked by
/// [`ScenarioFile::validate`], so a bad value is reported with its field
/// path (`bodies[2].kind`), like every other bad value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodySpec {
    /// `"box"` (needs `size`) or `"ball"` (needs `radius`).
    pub shape: String,
    /// Box full extents x, y, z, m (each > 0), in the body's frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<[f32; 3]>,
    /// Ball radius, m (> 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f32>,
    /// `"dynamic"` (default), `"kinematic"` (moves at `velocity` for the
    /// whole run, pushes dynamic bodies, is never pushed; Rapier gives it no
    /// contacts with fixed bodies, so it passes through supported chunks) or
    /// `"fixed"`.
    #[serde(default = "dynamic")]
    pub kind: String,
    /// Centre, world, m.
    pub position: [f32; 3],
    /// Initial linear velocity, m/s (must be zero for a fixed body).
    #[serde(default = "zero3")]
    pub velocity: [f32; 3],
    /// Rotation as XYZ Euler angles, degrees.
    #[serde(default = "zero3")]
    pub rotation_deg: [f32; 3],
    /// Mass, kg (> 0). Give `mass` or `density`, not both; neither means
    /// a density of 1000 kg/m³.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mass: Option<f32>,
    /// Density, kg/m³ (> 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub density: Option<f32>,
}

fn dynamic() -> String {
    "dynamic".into()
}

/// The shape of a [`BodySpec`], checked.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum BodyShape {
    /// A box of these full extents, m.
    Box([f32; 3]),
    /// A ball of this radius, m.
    Ball(f32),
}

/// How a [`BodySpec`] moves, checked.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// Moved by forces and contacts.
    Dynamic,
    /// Moved by its velocity only.
    Kinematic,
    /// Never moves.
    Fixed,
}

impl BodySpec {
    /// The checked kind. `k` is the body's index, for the error's field path.
    ///
    /// # Errors
    /// [`ScenarioFileError::Invalid`] naming `bodies[k].kind`.
    pub fn body_kind(&self, k: usize) -> Result<BodyKind, ScenarioFileError> {
        match self.kind.as_str() {
            "dynamic" => Ok(BodyKind::Dynamic),
            "kinematic" => Ok(BodyKind::Kinematic),
            "fixed" => Ok(BodyKind::Fixed),
            other => Err(invalid(
                format!("bodies[{k}].kind"),
                format!("must be \"dynamic\", \"kinematic\" or \"fixed\" (got {other:?})"),
            )),
        }
    }

    /// The checked shape. `k` is the body's index, for the error's field path.
    ///
    /// # Errors
    /// [`ScenarioFileError::Invalid`] naming `bodies[k].shape`, `.size[i]`
    /// or `.radius`.
    pub fn body_shape(&self, k: usize) -> Result<BodyShape, ScenarioFileError> {
        let f = |n: &str| format!("bodies[{k}].{n}");
        match (self.shape.as_str(), self.size, self.radius) {
            ("box", Some(size), None) => {
                for (i, s) in size.iter().enumerate() {
                    collider_size(&f(&format!("size[{i}]")), *s)?;
                }
                Ok(BodyShape::Box(size))
            }
            ("ball", None, Some(r)) => {
                collider_size(&f("radius"), r)?;
                Ok(BodyShape::Ball(r))
            }
            ("box", _, Some(_)) => Err(invalid(f("radius"), "is for a ball, not a box")),
            ("box", None, _) => Err(invalid(f("size"), "is required for a box")),
            ("ball", Some(_), _) => Err(invalid(f("size"), "is for a box, not a ball")),
            ("ball", _, None) => Err(invalid(f("radius"), "is required for a ball")),
            (other, _, _) => Err(invalid(
                f("shape"),
                format!("must be \"box\" or \"ball\" (got {other:?})"),
            )),
        }
    }
}

/// An explosion.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplosionSpec {
    /// Trigger time, s.
    pub time: f32,
    /// Index of the instance it damages (0 for the single `[asset]`; the
    /// position in `[[instances]]` otherwise).
    #[serde(default)]
    pub instance: u32,
    /// Centre, m.
    pub point: [f32; 3],
    /// Outer radius of damage and impulse, m.
    pub radius: f32,
    /// Inner radius of the damage falloff, m (default 0: linear from the
    /// centre). Bonds this close take the full `damage`.
    #[serde(default)]
    pub inner_radius: f32,
    /// Damage to each bond within `inner_radius`, du, falling linearly to
    /// 0 at `radius` (per-bond falloff, not a budget shared by the bonds in
    /// range; see `smithereens_rapier::Explosion`).
    pub damage: f32,
    /// Impulse at the centre, N·s.
    #[serde(default)]
    pub impulse: f32,
}

/// Optional overrides of the contact → damage mapping.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImpactSpec {
    /// du per N·s.
    pub damage_per_impulse: Option<f32>,
    /// N·s.
    pub threshold: Option<f32>,
    /// Reach of contact damage in rings of the bond graph (≥ 1).
    pub max_rings: Option<u32>,
    /// m/s.
    pub min_approach_speed: Option<f32>,
}

/// A scenario file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Name recorded in the run.
    pub name: String,
    /// Simulated duration, s.
    pub duration: f32,
    /// Fixed step, s.
    #[serde(default = "timestep")]
    pub timestep: f32,
    /// Gravity, m/s².
    #[serde(default = "gravity")]
    pub gravity: [f32; 3],
    /// Ground height (y, m); omit the key for the default 0, set `ground = false` for none.
    #[serde(default = "ground_y")]
    pub ground_y: f32,
    /// Whether there is a ground plane.
    #[serde(default = "yes")]
    pub ground: bool,
    /// The single asset (the one-instance form). Give either this or
    /// `instances`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset: Option<AssetSource>,
    /// Destructible instances (the many-instance form), in spawn order.
    /// Instances with the same source (same box, mesh or file and seed) and
    /// support rule share one fractured asset.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub instances: Vec<AssetSource>,
    /// Plain rigid bodies, placed after the instances.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bodies: Vec<BodySpec>,
    /// Projectiles.
    #[serde(default)]
    pub projectiles: Vec<ProjectileSpec>,
    /// Explosions.
    #[serde(default)]
    pub explosions: Vec<ExplosionSpec>,
    /// Contact damage overrides.
    #[serde(default)]
    pub impact: ImpactSpec,
    /// Rapier's contact prediction distance, m, in `(0, 1]`; omit for
    /// Rapier's 0.002. Scenes of tumbling debris want a few centimetres
    /// (see `ScriptedRun::prediction_distance`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prediction_distance: Option<f32>,
    /// Re-run the step in which a projectile breaks fixed chunks against the
    /// freed pieces, so it carries on through (issue 11, item 2; see
    /// `ScriptedRun::resolve_breaks`). Default false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub resolve_breaks: bool,
    /// Solver substeps per step (1..=64; omit for the library's 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solver_iterations: Option<u32>,
    /// Gauss–Seidel iterations per substep (1..=16; omit for the library's 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pgs_iterations: Option<u32>,
    /// Warm-start joints (default true; see
    /// `smithereens_rapier::WorldSettings::warmstart_joints`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmstart_joints: Option<bool>,
    /// Rapier's continuous collision detection (default true; see
    /// `smithereens_rapier::WorldSettings::ccd`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ccd: Option<bool>,
    /// Stiffness of contacts, Hz (twice this against fixed bodies); omit
    /// for the library's 120 Hz.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact_frequency: Option<f32>,
    /// Step with the bounded stepper (issue 14 item 5); absent: plain steps.
    /// Not with `resolve_breaks`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub substep: Option<SubstepSpec>,
    /// Vehicles with launchers of held parts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vehicles: Vec<VehicleSpec>,
    /// Launches from the vehicles' launchers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub launches: Vec<LaunchSpec>,
}

/// Most fixed steps a scenario may run (10 min at 1 kHz), so no file can make
/// `simulate` or `replay` run for hours: the cap of every recorded run,
/// [`smithereens_core::record::MAX_RUN_STEPS`].
pub const MAX_STEPS: u32 = smithereens_core::record::MAX_RUN_STEPS;

/// Most instances, and most plain bodies, a scenario may hold.
pub const MAX_INSTANCES: usize = 4096;

fn timestep() -> f32 {
    1.0 / 60.0
}
fn gravity() -> [f32; 3] {
    [0.0, -9.81, 0.0]
}
fn ground_y() -> f32 {
    0.0
}

pub(crate) fn invalid(field: impl Into<String>, problem: impl Into<String>) -> ScenarioFileError {
    ScenarioFileError::Invalid {
        field: field.into(),
        problem: problem.into(),
    }
}

pub(crate) fn finite(field: &str, v: &[f32]) -> Result<(), ScenarioFileError> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(invalid(field, "must be finite"))
    }
}

/// Largest size of a collider a scenario may give (box side, ball or
/// projectile radius), m: 10 km, larger than any game body. Parry's
/// contact queries fail on sizes near 1e20 m (an index panic in its EPA,
/// found by a bad-input sweep), so the bound is checked, not left to the
/// physics.
pub const MAX_COLLIDER_SIZE: f32 = 1.0e4;

/// [`positive`] and at most [`MAX_COLLIDER_SIZE`].
pub(crate) fn collider_size(field: &str, v: f32) -> Result<(), ScenarioFileError> {
    positive(field, v)?;
    if v > MAX_COLLIDER_SIZE {
        return Err(invalid(
            field,
            format!("must be at most {MAX_COLLIDER_SIZE:e} m (got {v:e})"),
        ));
    }
    Ok(())
}

pub(crate) fn positive(field: &str, v: f32) -> Result<(), ScenarioFileError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(invalid(
            field,
            format!("must be positive and finite (got {v})"),
        ))
    }
}

/// Checks one instance source; `field` is its path (`asset`, `instances[3]`).
fn validate_source(field: &str, a: &AssetSource) -> Result<(), ScenarioFileError> {
    let sources = a.box_.is_some() as u8 + a.mesh.is_some() as u8 + a.file.is_some() as u8;
    if sources != 1 {
        return Err(invalid(field, "needs exactly one of box, mesh, file"));
    }
    let fracture = |f: String, chunks: u32, density: f64, strength: f64| {
        if chunks == 0 {
            return Err(invalid(
                format!("{f}.chunks"),
                "must be at least 1 (or give a box blocks = [nx, ny, nz])",
            ));
        }
        if !(density.is_finite() && density > 0.0) {
            return Err(invalid(
                format!("{f}.density"),
                format!("must be positive and finite (got {density})"),
            ));
        }
        if !(strength.is_finite() && strength > 0.0) {
            return Err(invalid(
                format!("{f}.strength_per_area"),
                format!("must be positive and finite (got {strength})"),
            ));
        }
        Ok(())
    };
    if let Some(b) = &a.box_ {
        for (k, s) in b.size.iter().enumerate() {
            collider_size(&format!("{field}.box.size[{k}]"), *s)?;
        }
        let chunks = match b.blocks {
            None => b.chunks,
            Some(_) if b.chunks != 0 => {
                return Err(invalid(
                    format!("{field}.box.blocks"),
                    "give chunks (Voronoi) or blocks (a grid), not both",
                ));
            }
            Some(n) => {
                if n.contains(&0) {
                    return Err(invalid(
                        format!("{field}.box.blocks"),
                        "each count must be at least 1",
                    ));
                }
                if n.iter().map(|&k| u64::from(k)).product::<u64>() > 100_000 {
                    return Err(invalid(
                        format!("{field}.box.blocks"),
                        "must make at most 100,000 blocks",
                    ));
                }
                1
            }
        };
        fracture(
            format!("{field}.box"),
            chunks,
            b.density,
            b.strength_per_area,
        )?;
        for (k, c) in b.carve.iter().enumerate() {
            let f = format!("{field}.box.carve[{k}]");
            finite(&f, c)?;
            if !(c[0] < c[3] && c[1] < c[4] && c[2] < c[5]) {
                return Err(invalid(f, "needs each minimum below its maximum"));
            }
        }
    }
    if let Some(m) = &a.mesh {
        fracture(
            format!("{field}.mesh"),
            m.chunks,
            m.density,
            m.strength_per_area,
        )?;
    }
    if a.supports == Supports::Asset && a.file.is_none() {
        return Err(invalid(
            format!("{field}.supports"),
            "\"asset\" needs an asset file",
        ));
    }
    finite(&format!("{field}.translation"), &a.translation)?;
    finite(&format!("{field}.rotation_deg"), &a.rotation_deg)?;
    if let Some(s) = &a.stress {
        s.desc(&format!("{field}.stress"))?;
    }
    Ok(())
}

impl ScenarioFile {
    /// Parses and validates TOML text.
    ///
    /// # Errors
    /// [`ScenarioFileError::Toml`] for syntax/schema errors (unknown keys are
    /// rejected), [`ScenarioFileError::Invalid`] for values out of range.
    pub fn parse(text: &str) -> Result<Self, ScenarioFileError> {
        let file: ScenarioFile =
            toml::from_str(text).map_err(|e| ScenarioFileError::Toml(e.to_string()))?;
        file.validate()?;
        Ok(file)
    }

    /// Checks every value's range.
    ///
    /// # Errors
    /// [`ScenarioFileError::Invalid`] naming the field.
    pub fn validate(&self) -> Result<(), ScenarioFileError> {
        positive("duration", self.duration)?;
        if self.duration > 3600.0 {
            return Err(invalid("duration", "must be at most 3600 s"));
        }
        positive("timestep", self.timestep)?;
        if !(1e-4..=0.1).contains(&self.timestep) {
            return Err(invalid(
                "timestep",
                format!("must be between 0.0001 s and 0.1 s (got {})", self.timestep),
            ));
        }
        if (self.duration / self.timestep) as f64 > MAX_STEPS as f64 {
            return Err(invalid(
                "duration",
                format!("needs more than {MAX_STEPS} steps at this timestep"),
            ));
        }
        finite("gravity", &self.gravity)?;
        finite("ground_y", &[self.ground_y])?;
        if self.ground_y.abs() > smithereens_rapier::set::MAX_PLACEMENT_DISTANCE {
            return Err(invalid(
                "ground_y",
                format!(
                    "must be within 1e6 m of the origin (f32 positions lose millimetres beyond; got {:e})",
                    self.ground_y
                ),
            ));
        }
        if let Some(d) = self.prediction_distance
            && !(d.is_finite() && d > 0.0 && d <= 1.0)
        {
            return Err(invalid(
                "prediction_distance",
                format!("must be finite and in (0, 1] m (got {d})"),
            ));
        }
        match (&self.asset, self.instances.is_empty()) {
            (Some(_), false) => {
                return Err(invalid(
                    "instances",
                    "cannot be given together with [asset] (use one form)",
                ));
            }
            (None, true) if self.vehicles.is_empty() => {
                return Err(invalid(
                    "asset",
                    "is missing: give an [asset] table, at least one [[instances]] or [[vehicles]]",
                ));
            }
            _ => {}
        }
        if self.instances.len() > MAX_INSTANCES {
            return Err(invalid(
                "instances",
                format!("must hold at most {MAX_INSTANCES} entries"),
            ));
        }
        for (field, a) in self.instance_sources() {
            validate_source(&field, a)?;
        }
        if self.bodies.len() > MAX_INSTANCES {
            return Err(invalid(
                "bodies",
                format!("must hold at most {MAX_INSTANCES} entries"),
            ));
        }
        for (k, b) in self.bodies.iter().enumerate() {
            let f = |n: &str| format!("bodies[{k}].{n}");
            b.body_shape(k)?;
            let kind = b.body_kind(k)?;
            finite(&f("position"), &b.position)?;
            finite(&f("velocity"), &b.velocity)?;
            finite(&f("rotation_deg"), &b.rotation_deg)?;
            if kind == BodyKind::Fixed && b.velocity != [0.0; 3] {
                return Err(invalid(f("velocity"), "must be zero for a fixed body"));
            }
            match (b.mass, b.density) {
                (Some(_), Some(_)) => {
                    return Err(invalid(f("mass"), "give mass or density, not both"));
                }
                (Some(m), None) => positive(&f("mass"), m)?,
                (None, Some(d)) => positive(&f("density"), d)?,
                (None, None) => {}
            }
        }
        let count = self.instance_sources().count();
        for (k, p) in self.projectiles.iter().enumerate() {
            let f = |n: &str| format!("projectiles[{k}].{n}");
            finite(&f("time"), &[p.time])?;
            if p.time < 0.0 {
                return Err(invalid(f("time"), "must be ≥ 0"));
            }
            self.check_before_end(&f("time"), p.time)?;
            finite(&f("position"), &p.position)?;
            finite(&f("velocity"), &p.velocity)?;
            collider_size(&f("radius"), p.radius)?;
            positive(&f("mass"), p.mass)?;
            if p.mass > smithereens_rapier::MAX_PROJECTILE_MASS {
                return Err(invalid(f("mass"), "must be ≤ 1e6 kg (1,000 t)"));
            }
            let speed = p.velocity.iter().map(|v| v * v).sum::<f32>().sqrt();
            if speed > smithereens_rapier::MAX_PROJECTILE_SPEED {
                return Err(invalid(f("velocity"), "speed must be ≤ 2000 m/s"));
            }
        }
        for (k, e) in self.explosions.iter().enumerate() {
            let f = |n: &str| format!("explosions[{k}].{n}");
            finite(&f("time"), &[e.time])?;
            if e.time < 0.0 {
                return Err(invalid(f("time"), "must be ≥ 0"));
            }
            self.check_before_end(&f("time"), e.time)?;
            finite(&f("point"), &e.point)?;
            if e.instance as usize >= count {
                return Err(invalid(
                    f("instance"),
                    format!("is {} but there are {count} instances", e.instance),
                ));
            }
            positive(&f("radius"), e.radius)?;
            if !(e.damage.is_finite() && e.damage >= 0.0) {
                return Err(invalid(f("damage"), "must be ≥ 0 and finite"));
            }
            if !(e.impulse.is_finite() && e.impulse >= 0.0) {
                return Err(invalid(f("impulse"), "must be ≥ 0 and finite"));
            }
        }
        for (field, n, max) in [
            ("solver_iterations", self.solver_iterations, 64),
            ("pgs_iterations", self.pgs_iterations, 16),
        ] {
            if let Some(n) = n.filter(|n| !(1..=max).contains(n)) {
                return Err(invalid(field, format!("must be in 1..={max} (got {n})")));
            }
        }
        if let Some(f) = self.contact_frequency {
            positive("contact_frequency", f)?;
        }
        if let Some(s) = &self.substep {
            s.validate()?;
            if self.resolve_breaks {
                return Err(invalid(
                    "substep",
                    "cannot be given with resolve_breaks = true (a run uses one or the other)",
                ));
            }
        }
        validate_vehicles(&self.vehicles, &self.launches, &|field, time| {
            self.check_before_end(field, time)
        })?;
        Ok(())
    }

    /// A launch or trigger at `time` happens before the run's last step
    /// (`floor(time / timestep) < steps()`), so it takes effect.
    fn check_before_end(&self, field: &str, time: f32) -> Result<(), ScenarioFileError> {
        if (time / self.timestep).floor() as u64 >= self.steps() as u64 {
            return Err(invalid(
                field,
                format!(
                    "{} s is at or after the end of the run ({} s, {} steps); make it earlier or the duration longer",
                    sig(time),
                    sig(self.steps() as f32 * self.timestep),
                    self.steps()
                ),
            ));
        }
        Ok(())
    }

    /// The most fixed steps a run of this file may take: `MAX_STEPS`, or
    /// fewer when the file's timestep reaches the 3600 s limit on the
    /// duration first (215,999 steps of 1/60 s: 216,000 of them come to
    /// 3600.0001 s in f32). [`Self::truncate`] accepts 1 to this many.
    pub fn max_steps(&self) -> u32 {
        let fits = |n: u32| n <= MAX_STEPS && n as f32 * self.timestep <= 3600.0;
        if !(self.timestep.is_finite() && self.timestep > 0.0) {
            return MAX_STEPS;
        }
        let mut n = ((3600.0 / self.timestep as f64).floor() as u32).min(MAX_STEPS);
        while n > 1 && !fits(n) {
            n -= 1;
        }
        while n < MAX_STEPS && fits(n + 1) {
            n += 1;
        }
        n
    }

    /// Shortens (or lengthens) the run to `steps` fixed steps, as
    /// `smithereens simulate --steps` does: the duration becomes `steps ×
    /// timestep`, and projectiles and explosions that would fall at or after
    /// the new end are removed. Returns what was removed, as
    /// `"projectiles[k] at T s"` (indices as in the file before), so the
    /// caller can say so; the file is then validated.
    ///
    /// # Errors
    /// [`ScenarioFileError::Invalid`] when the new duration is out of range.
    pub fn truncate(&mut self, steps: u32) -> Result<Vec<String>, ScenarioFileError> {
        self.duration = steps as f32 * self.timestep;
        let end = self.steps() as u64;
        let fits = |time: f32, timestep: f32| ((time / timestep).floor() as u64) < end;
        let mut removed = Vec::new();
        let timestep = self.timestep;
        let mut k = 0;
        self.projectiles.retain(|p| {
            let keep = fits(p.time, timestep);
            if !keep {
                removed.push(format!("projectiles[{k}] at {} s", sig(p.time)));
            }
            k += 1;
            keep
        });
        let mut k = 0;
        self.explosions.retain(|e| {
            let keep = fits(e.time, timestep);
            if !keep {
                removed.push(format!("explosions[{k}] at {} s", sig(e.time)));
            }
            k += 1;
            keep
        });
        let mut k = 0;
        self.launches.retain(|l| {
            let keep = fits(l.time, timestep);
            if !keep {
                removed.push(format!("launches[{k}] at {} s", sig(l.time)));
            }
            k += 1;
            keep
        });
        self.validate()?;
        Ok(removed)
    }

    /// Every instance source with its field path: the single `asset`, or
    /// `instances[k]` in order.
    pub fn instance_sources(&self) -> impl Iterator<Item = (String, &AssetSource)> + '_ {
        self.asset.iter().map(|a| ("asset".to_string(), a)).chain(
            self.instances
                .iter()
                .enumerate()
                .map(|(k, a)| (format!("instances[{k}]"), a)),
        )
    }

    /// The files the scenario reads (relative to its folder), in source
    /// order: every instance source's `mesh.path` and asset `file`.
    pub fn input_files(&self) -> Vec<&str> {
        self.instance_sources()
            .flat_map(|(_, a)| [a.mesh.as_ref().map(|m| m.path.as_str()), a.file.as_deref()])
            .flatten()
            .collect()
    }

    /// The file as TOML text (comments are not kept).
    ///
    /// # Errors
    /// [`ScenarioFileError::Toml`] if a value cannot be written (cannot happen
    /// for a validated file).
    pub fn to_toml(&self) -> Result<String, ScenarioFileError> {
        toml::to_string(self).map_err(|e| ScenarioFileError::Toml(e.to_string()))
    }

    /// Number of fixed steps: `ceil(duration / timestep)`.
    pub fn steps(&self) -> u32 {
        (self.duration / self.timestep).ceil() as u32
    }
}
