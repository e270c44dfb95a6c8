//! The scenario file schema (TOML) and its validation.

use crate::error::ScenarioFileError;
use serde::{Deserialize, Serialize};

/// A box to fracture: extents in metres, centred on the origin.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoxSpec {
    /// Full extents x, y, z, m (each > 0).
    pub size: [f32; 3],
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

fn one() -> u64 {
    1
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

/// Where the asset comes from.
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

/// An explosion.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplosionSpec {
    /// Trigger time, s.
    pub time: f32,
    /// Centre, m.
    pub point: [f32; 3],
    /// Radius, m.
    pub radius: f32,
    /// Damage budget, du.
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
    /// m.
    pub radius: Option<f32>,
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
    /// The asset.
    pub asset: AssetSource,
    /// Projectiles.
    #[serde(default)]
    pub projectiles: Vec<ProjectileSpec>,
    /// Explosions.
    #[serde(default)]
    pub explosions: Vec<ExplosionSpec>,
    /// Contact damage overrides.
    #[serde(default)]
    pub impact: ImpactSpec,
}

/// Most fixed steps a scenario may run (10 min at 1 kHz), so no file can make
/// `simulate` or `replay` run for hours.
pub const MAX_STEPS: u32 = 600_000;

fn timestep() -> f32 {
    1.0 / 60.0
}
fn gravity() -> [f32; 3] {
    [0.0, -9.81, 0.0]
}
fn ground_y() -> f32 {
    0.0
}

fn invalid(field: impl Into<String>, problem: impl Into<String>) -> ScenarioFileError {
    ScenarioFileError::Invalid {
        field: field.into(),
        problem: problem.into(),
    }
}

fn finite(field: &str, v: &[f32]) -> Result<(), ScenarioFileError> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(invalid(field, "must be finite"))
    }
}

fn positive(field: &str, v: f32) -> Result<(), ScenarioFileError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(invalid(
            field,
            format!("must be positive and finite (got {v})"),
        ))
    }
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
        let a = &self.asset;
        let sources = a.box_.is_some() as u8 + a.mesh.is_some() as u8 + a.file.is_some() as u8;
        if sources != 1 {
            return Err(invalid("asset", "needs exactly one of box, mesh, file"));
        }
        if let Some(b) = &a.box_ {
            for (k, s) in b.size.iter().enumerate() {
                positive(&format!("asset.box.size[{k}]"), *s)?;
            }
        }
        if a.supports == Supports::Asset && a.file.is_none() {
            return Err(invalid("asset.supports", "\"asset\" needs an asset file"));
        }
        finite("asset.translation", &a.translation)?;
        finite("asset.rotation_deg", &a.rotation_deg)?;
        for (k, p) in self.projectiles.iter().enumerate() {
            let f = |n: &str| format!("projectiles[{k}].{n}");
            finite(&f("time"), &[p.time])?;
            if p.time < 0.0 {
                return Err(invalid(f("time"), "must be ≥ 0"));
            }
            finite(&f("position"), &p.position)?;
            finite(&f("velocity"), &p.velocity)?;
            positive(&f("radius"), p.radius)?;
            positive(&f("mass"), p.mass)?;
        }
        for (k, e) in self.explosions.iter().enumerate() {
            let f = |n: &str| format!("explosions[{k}].{n}");
            finite(&f("time"), &[e.time])?;
            if e.time < 0.0 {
                return Err(invalid(f("time"), "must be ≥ 0"));
            }
            finite(&f("point"), &e.point)?;
            positive(&f("radius"), e.radius)?;
            if !(e.damage.is_finite() && e.damage >= 0.0) {
                return Err(invalid(f("damage"), "must be ≥ 0 and finite"));
            }
            if !(e.impulse.is_finite() && e.impulse >= 0.0) {
                return Err(invalid(f("impulse"), "must be ≥ 0 and finite"));
            }
        }
        Ok(())
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
