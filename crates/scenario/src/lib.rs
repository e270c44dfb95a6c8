//! # smithereens-scenario
//!
//! Scenario files: a TOML description of an asset (a box or mesh to fracture,
//! or an asset file), how it is supported and placed, the ground, gravity,
//! projectiles, explosions and duration — built into a
//! [`smithereens_rapier::recorded_run::ScriptedRun`] and run.
//!
//! ```
//! let text = smithereens_scenario::builtin("wall").unwrap();
//! let file = smithereens_scenario::ScenarioFile::parse(text).unwrap();
//! assert_eq!(file.name, "wall");
//! ```
//!
//! Built-ins: `wall`, `tower`, `bridge`, `town` (the files in `scenarios/`).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod build;
mod error;
mod file;

pub use build::{BuiltScenario, DEFAULT_BODY_DENSITY, build};
pub use error::ScenarioFileError;
pub use file::{
    AssetSource, BodyKind, BodyShape, BodySpec, BoxSpec, ExplosionSpec, ImpactSpec, MAX_INSTANCES,
    MAX_STEPS, MeshSpec, ProjectileSpec, ScenarioFile, Supports,
};

/// The built-in scenarios, by name.
pub const BUILTINS: [(&str, &str); 4] = [
    ("wall", include_str!("../../../scenarios/wall.toml")),
    ("tower", include_str!("../../../scenarios/tower.toml")),
    ("bridge", include_str!("../../../scenarios/bridge.toml")),
    ("town", include_str!("../../../scenarios/town.toml")),
];

/// The TOML text of a built-in scenario.
pub fn builtin(name: &str) -> Option<&'static str> {
    BUILTINS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}
