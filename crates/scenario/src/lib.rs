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
//! Built-ins: `wall`, `tower`, `bridge` (the files in `scenarios/`).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod build;
mod error;
mod file;

pub use build::{BuiltScenario, build};
pub use error::ScenarioFileError;
pub use file::{AssetSource, BoxSpec, ExplosionSpec, ProjectileSpec, ScenarioFile, Supports};

/// The built-in scenarios, by name.
pub const BUILTINS: [(&str, &str); 3] = [
    ("wall", include_str!("../../../scenarios/wall.toml")),
    ("tower", include_str!("../../../scenarios/tower.toml")),
    ("bridge", include_str!("../../../scenarios/bridge.toml")),
];

/// The TOML text of a built-in scenario.
pub fn builtin(name: &str) -> Option<&'static str> {
    BUILTINS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}
