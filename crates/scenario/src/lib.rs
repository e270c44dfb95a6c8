//! # smithereens-scenario
//!
//! Scenario files: a TOML description of one asset or any number of
//! destructible instances (each a box or mesh to fracture, or an asset file,
//! with its support rule and placement), plain rigid bodies, the ground,
//! gravity, projectiles, explosions and duration — built into a
//! [`smithereens_rapier::recorded_run::ScriptedRun`] and run.
//!
//! # Schema
//! Top level: `name`, `duration` (s), `timestep` (s, default 1/60),
//! `gravity` (m/s²), `ground` (bool), `ground_y` (m), `prediction_distance`
//! (m), `resolve_breaks` (bool: re-run the step in which a projectile breaks
//! fixed chunks, so it carries on through). Then either one
//! `[asset]` table or one or more `[[instances]]` (never both, never
//! neither); each has the form of [`AssetSource`]: `supports` (`ground`,
//! `ends-x`, `none`, `asset`), `stand_on_ground`, `translation` (m),
//! `rotation_deg`, and exactly one of `[….box]` ([`BoxSpec`]),
//! `[….mesh]` ([`MeshSpec`]) or `file`. Instances with the same source and
//! support rule share one fractured asset (fracture once, place many).
//! `[[bodies]]` ([`BodySpec`]) are plain boxes (`shape = "box"`, `size`) or
//! balls (`shape = "ball"`, `radius`), `kind` `dynamic`/`kinematic`/`fixed`,
//! with `position`, `velocity`, `rotation_deg` and `mass` or `density`.
//! `[[projectiles]]` ([`ProjectileSpec`]), `[[explosions]]`
//! ([`ExplosionSpec`], `instance` names the instance index) and `[impact]`
//! ([`ImpactSpec`]) as before. `[[vehicles]]` ([`VehicleSpec`]: a chassis
//! box on `[[vehicles.wheels]]` with `[[vehicles.launchers]]` of
//! `[[vehicles.launchers.parts]]`, held as colliders or, for comparison, on
//! fixed joints; `like = k` copies vehicle `k`'s build), `[[launches]]`
//! ([`LaunchSpec`]) and `[substep]` ([`SubstepSpec`], the bounded stepper)
//! describe held parts (issue 14); a file with vehicles needs no asset.
//! Unknown keys are rejected
//! ([`ScenarioFileError::Toml`]); a bad value is
//! [`ScenarioFileError::Invalid`] naming its field path
//! (`instances[3].box.size[1]`, `bodies[0].kind`).
//!
//! ```
//! let text = r#"
//! name = "two"
//! duration = 0.1
//! [[instances]]
//! translation = [-1.0, 0.0, 0.0]
//! [instances.box]
//! size = [0.5, 0.5, 0.5]
//! chunks = 4
//! [[instances]]
//! translation = [1.0, 0.0, 0.0]
//! [instances.box]
//! size = [0.5, 0.5, 0.5]
//! chunks = 4
//! [[bodies]]
//! shape = "ball"
//! radius = 0.2
//! kind = "kinematic"
//! position = [0.0, 1.0, -3.0]
//! velocity = [0.0, 0.0, 5.0]
//! "#;
//! let file = smithereens_scenario::ScenarioFile::parse(text).unwrap();
//! let built = smithereens_scenario::build(&file, std::path::Path::new("."), &mut |_| {}).unwrap();
//! let s = &built.scenario;
//! assert_eq!(s.instances.len(), 2);
//! assert!(std::sync::Arc::ptr_eq(&s.instances[0].asset, &s.instances[1].asset));
//! ```
//!
//! ```
//! let text = smithereens_scenario::builtin("wall").unwrap();
//! let file = smithereens_scenario::ScenarioFile::parse(text).unwrap();
//! assert_eq!(file.name, "wall");
//! ```
//!
//! Built-ins: `wall`, `tower`, `bridge`, `town`, `wall-push` (vehicles
//! and held parts), and the stress scenes `wall-gravity`, `tower-gravity`,
//! `bridge-truck`, `bridge-pier` (the files in `scenarios/`).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod build;
mod error;
mod file;
mod vehicle;

pub use build::{BuiltScenario, DEFAULT_BODY_DENSITY, build};
pub use error::ScenarioFileError;
pub use file::{
    AssetSource, BodyKind, BodyShape, BodySpec, BoxSpec, ExplosionSpec, ImpactSpec, MAX_INSTANCES,
    MAX_STEPS, MeshSpec, ProjectileSpec, ScenarioFile, Supports,
};
pub use vehicle::{
    LaunchSpec, LauncherSpec, MAX_LAUNCH_IMPULSE, MAX_VEHICLES, PartSpec, SubstepSpec, VehicleSpec,
    WheelSpec,
};

/// The built-in scenarios, by name.
pub const BUILTINS: [(&str, &str); 9] = [
    ("wall", include_str!("../../../scenarios/wall.toml")),
    ("tower", include_str!("../../../scenarios/tower.toml")),
    ("bridge", include_str!("../../../scenarios/bridge.toml")),
    ("town", include_str!("../../../scenarios/town.toml")),
    (
        "wall-gravity",
        include_str!("../../../scenarios/wall-gravity.toml"),
    ),
    (
        "tower-gravity",
        include_str!("../../../scenarios/tower-gravity.toml"),
    ),
    (
        "bridge-truck",
        include_str!("../../../scenarios/bridge-truck.toml"),
    ),
    (
        "bridge-pier",
        include_str!("../../../scenarios/bridge-pier.toml"),
    ),
    (
        "wall-push",
        include_str!("../../../scenarios/wall-push.toml"),
    ),
];

/// The TOML text of a built-in scenario.
pub fn builtin(name: &str) -> Option<&'static str> {
    BUILTINS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}
