//! Vehicles, launchers, held parts, launches and the bounded stepper in a
//! scenario file (issue 14 item 7), and their validation with field paths.

use crate::error::ScenarioFileError;
use crate::file::{finite, invalid, positive};
use serde::{Deserialize, Serialize};

fn zero3() -> [f32; 3] {
    [0.0; 3]
}
fn tyre_friction() -> f32 {
    1.0
}
fn part_friction() -> f32 {
    0.5
}
fn part_health() -> f32 {
    smithereens_rapier::DEFAULT_PART_HEALTH
}
fn weapon_health() -> f32 {
    smithereens_rapier::DEFAULT_WEAPON_HEALTH
}
fn is_zero(x: &f32) -> bool {
    *x == 0.0
}
fn colliders() -> String {
    "colliders".into()
}

/// A wheel: a cylinder on a revolute joint whose axle is the chassis' z axis.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WheelSpec {
    /// Wheel centre (the joint anchor) in the chassis frame, m.
    pub position: [f32; 3],
    /// Radius, m (> 0).
    pub radius: f32,
    /// Tyre width, m (> 0).
    pub width: f32,
    /// Mass, kg (> 0).
    pub mass: f32,
    /// Tyre friction (≥ 0, default 1).
    #[serde(default = "tyre_friction")]
    pub friction: f32,
}

/// One held part (a preloaded projectile) of a launcher.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartSpec {
    /// `"ball"` (`radius`), `"box"` (`size`), `"capsule"` or `"cylinder"`
    /// (`radius` and `length`, along the part's y axis: the capsule's
    /// segment, the cylinder's height).
    pub shape: String,
    /// Radius, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f32>,
    /// Length along the part's y axis, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<f32>,
    /// Box full extents, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<[f32; 3]>,
    /// Mass, kg (> 0, finite).
    pub mass: f32,
    /// Authored position in the chassis frame, m (within 50 m of it).
    pub position: [f32; 3],
    /// Authored rotation in the chassis frame, XYZ Euler angles, degrees.
    #[serde(default = "zero3")]
    pub rotation_deg: [f32; 3],
    /// Friction (≥ 0, default 0.5).
    #[serde(default = "part_friction")]
    pub friction: f32,
    /// Restitution (in [0, 1], default 0).
    #[serde(default)]
    pub restitution: f32,
    /// Health, du (> 0, default 100): the part's own with independent
    /// durability, its share of the weapon's otherwise.
    #[serde(default = "part_health")]
    pub health: f32,
}

/// A launcher (a weapon part) and the parts it holds, in launch order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LauncherSpec {
    /// The weapon's part index on the vehicle (recorded in ownership).
    #[serde(default)]
    pub weapon: u32,
    /// Each held part has its own durability (the seed's
    /// `projectile_independent_durability`, read too); default false.
    #[serde(default, alias = "projectile_independent_durability")]
    pub independent_durability: bool,
    /// Health of the weapon's non-projectile parts, du (default 1000).
    #[serde(default = "weapon_health")]
    pub weapon_health: f32,
    /// The held parts; `parts[i]` is projectile index `i`.
    pub parts: Vec<PartSpec>,
}

/// A vehicle: a chassis box on wheels, driven by a constant force, with
/// launchers. `like = k` copies the chassis, wheels and launchers of
/// vehicle `k` (an earlier one); the placement, `drive`, `hold` and
/// `independent_durability` may still be given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VehicleSpec {
    /// Copy an earlier vehicle's build.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub like: Option<u32>,
    /// Chassis centre, world, m.
    pub position: [f32; 3],
    /// Chassis rotation, XYZ Euler angles, degrees.
    #[serde(default = "zero3")]
    pub rotation_deg: [f32; 3],
    /// Initial velocity, m/s.
    #[serde(default = "zero3")]
    pub velocity: [f32; 3],
    /// Chassis box full extents, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<[f32; 3]>,
    /// Chassis mass without the held parts, kg.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mass: Option<f32>,
    /// Drive force, N, chassis frame, at its centre of mass on every step
    /// (default zero, or the copied vehicle's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drive: Option<[f32; 3]>,
    /// Brake torque per wheel, N·m (≥ 0; default 0: free-rolling; a parked
    /// vehicle's brakes hold its wheels up to this torque).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub brake: f32,
    /// `"colliders"` (default: holding colliders) or `"fixed-joints"`
    /// (projectiles as bodies on fixed joints, the design the seed replaced).
    #[serde(default = "colliders")]
    pub hold: String,
    /// Overrides `independent_durability` of every launcher of the vehicle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub independent_durability: Option<bool>,
    /// Wheels.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wheels: Vec<WheelSpec>,
    /// Launchers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub launchers: Vec<LauncherSpec>,
}

/// A launch from a vehicle's launcher.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchSpec {
    /// Launch time, s (rounded down to a step).
    pub time: f32,
    /// Index into `[[vehicles]]`.
    pub vehicle: u32,
    /// Index into the vehicle's launchers (default 0).
    #[serde(default)]
    pub launcher: u32,
    /// The projectile index; absent: the next one ready (neither launched
    /// nor broken). A part broken by then fails the run with a typed error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub projectile: Option<u32>,
    /// Launch impulse, N·s, in the chassis frame at launch (the recoil goes
    /// to the chassis); at most [`MAX_LAUNCH_IMPULSE`].
    pub impulse: [f32; 3],
}

/// Largest launch impulse a scenario may give, N·s (a 100 kg part at 1000 m/s).
pub const MAX_LAUNCH_IMPULSE: f32 = 1e5;

/// Most vehicles a scenario may hold.
pub const MAX_VEHICLES: usize = 256;

/// The bounded stepper (issue 14 item 5): every key has its default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubstepSpec {
    /// Largest accepted joint anchor error, m (> 0; default 0.0001).
    #[serde(default = "tolerance")]
    pub tolerance: f32,
    /// Most trial steps per frame (≥ 1; default 64).
    #[serde(default = "max_trials")]
    pub max_trials: u32,
    /// Most halvings of a frame (1..=16; default 4).
    #[serde(default = "max_depth")]
    pub max_depth: u32,
    /// Subdivided frames in a row after which the stall rule accepts
    /// first trials (≥ 1; default 8).
    #[serde(default = "stall_frames")]
    pub stall_frames: u32,
}

fn tolerance() -> f32 {
    smithereens_rapier::SubstepSettings::default().tolerance
}
fn max_trials() -> u32 {
    smithereens_rapier::SubstepSettings::default().max_trials
}
fn max_depth() -> u32 {
    smithereens_rapier::SubstepSettings::default().max_depth
}
fn stall_frames() -> u32 {
    smithereens_rapier::SubstepSettings::default().stall_frames
}

impl SubstepSpec {
    /// The stepper settings.
    pub fn settings(&self) -> smithereens_rapier::SubstepSettings {
        smithereens_rapier::SubstepSettings {
            tolerance: self.tolerance,
            max_trials: self.max_trials,
            max_depth: self.max_depth,
            stall_frames: self.stall_frames,
        }
    }

    /// Checks the ranges, naming the field (`substep.tolerance`, …).
    ///
    /// # Errors
    /// [`ScenarioFileError::Invalid`].
    pub fn validate(&self) -> Result<(), ScenarioFileError> {
        use smithereens_rapier::SubstepError as E;
        match self.settings().validate() {
            Ok(()) => Ok(()),
            Err(E::BadTolerance(t)) => Err(invalid(
                "substep.tolerance",
                format!("must be positive and finite (got {t} m)"),
            )),
            Err(E::NoTrials) => Err(invalid("substep.max_trials", "must be at least 1")),
            Err(E::BadDepth(d)) => Err(invalid(
                "substep.max_depth",
                format!("must be in 1..=16 (got {d})"),
            )),
            Err(E::NoStallFrames) => Err(invalid("substep.stall_frames", "must be at least 1")),
            Err(e) => Err(invalid("substep", e.to_string())),
        }
    }
}

impl Default for SubstepSpec {
    fn default() -> Self {
        Self {
            tolerance: tolerance(),
            max_trials: max_trials(),
            max_depth: max_depth(),
            stall_frames: stall_frames(),
        }
    }
}

impl PartSpec {
    /// The checked shape; `f` is the part's field path.
    ///
    /// # Errors
    /// [`ScenarioFileError::Invalid`] naming `….shape`, `….radius`,
    /// `….length` or `….size[i]`.
    pub fn part_shape(&self, f: &str) -> Result<smithereens_rapier::PartShape, ScenarioFileError> {
        use smithereens_rapier::PartShape;
        let field = |n: &str| format!("{f}.{n}");
        let need = |n: &str, v: Option<f32>| match v {
            Some(v) => positive(&field(n), v).map(|()| v),
            None => Err(invalid(
                field(n),
                format!("is required for a {}", self.shape),
            )),
        };
        let unused = |n: &str, given: bool| {
            if given {
                Err(invalid(
                    field(n),
                    format!("is not used by a {}", self.shape),
                ))
            } else {
                Ok(())
            }
        };
        match self.shape.as_str() {
            "ball" => {
                unused("length", self.length.is_some())?;
                unused("size", self.size.is_some())?;
                Ok(PartShape::Ball {
                    radius: need("radius", self.radius)?,
                })
            }
            "box" => {
                unused("radius", self.radius.is_some())?;
                unused("length", self.length.is_some())?;
                let size = self
                    .size
                    .ok_or_else(|| invalid(field("size"), "is required for a box"))?;
                for (i, s) in size.iter().enumerate() {
                    positive(&field(&format!("size[{i}]")), *s)?;
                }
                Ok(PartShape::Cuboid {
                    half_extents: glam::Vec3::from_array(size) * 0.5,
                })
            }
            "capsule" | "cylinder" => {
                unused("size", self.size.is_some())?;
                let radius = need("radius", self.radius)?;
                let half_height = need("length", self.length)? * 0.5;
                Ok(if self.shape == "capsule" {
                    PartShape::Capsule {
                        half_height,
                        radius,
                    }
                } else {
                    PartShape::Cylinder {
                        half_height,
                        radius,
                    }
                })
            }
            other => Err(invalid(
                field("shape"),
                format!("must be \"ball\", \"box\", \"capsule\" or \"cylinder\" (got {other:?})"),
            )),
        }
    }

    fn validate(&self, f: &str) -> Result<(), ScenarioFileError> {
        self.part_shape(f)?;
        positive(&format!("{f}.mass"), self.mass)?;
        let (lo, hi) = (
            smithereens_rapier::MIN_PART_MASS,
            smithereens_rapier::MAX_PART_MASS,
        );
        if !(lo..=hi).contains(&self.mass) {
            return Err(invalid(
                format!("{f}.mass"),
                format!("is {} kg; a held part weighs {lo} to {hi} kg", self.mass),
            ));
        }
        finite(&format!("{f}.position"), &self.position)?;
        let distance = glam::Vec3::from_array(self.position).length();
        let limit = smithereens_rapier::MAX_PART_OFFSET;
        if distance > limit {
            return Err(invalid(
                format!("{f}.position"),
                format!("is {distance} m from its vehicle (limit {limit} m)"),
            ));
        }
        finite(&format!("{f}.rotation_deg"), &self.rotation_deg)?;
        if !(self.friction.is_finite() && self.friction >= 0.0) {
            return Err(invalid(
                format!("{f}.friction"),
                format!("must be ≥ 0 and finite (got {})", self.friction),
            ));
        }
        if !(self.restitution >= 0.0 && self.restitution <= 1.0) {
            return Err(invalid(
                format!("{f}.restitution"),
                format!("must be in [0, 1] (got {})", self.restitution),
            ));
        }
        positive(&format!("{f}.health"), self.health)
    }
}

impl VehicleSpec {
    /// The hold design.
    ///
    /// # Errors
    /// [`ScenarioFileError::Invalid`] naming `vehicles[k].hold`.
    pub fn hold_design(
        &self,
        k: usize,
    ) -> Result<smithereens_rapier::recorded_run::HoldDesign, ScenarioFileError> {
        use smithereens_rapier::recorded_run::HoldDesign;
        match self.hold.as_str() {
            "colliders" => Ok(HoldDesign::Colliders),
            "fixed-joints" => Ok(HoldDesign::FixedJoints),
            other => Err(invalid(
                format!("vehicles[{k}].hold"),
                format!("must be \"colliders\" or \"fixed-joints\" (got {other:?})"),
            )),
        }
    }
}

/// The vehicle whose build (chassis, wheels, launchers) vehicle `k` uses:
/// itself, or the one its `like` names, followed to the end.
pub(crate) fn build_of(vehicles: &[VehicleSpec], k: usize) -> &VehicleSpec {
    let mut v = &vehicles[k];
    // `like` always names an earlier vehicle (validated), so this ends.
    while let Some(j) = v.like {
        match vehicles.get(j as usize) {
            Some(w) => v = w,
            None => break,
        }
    }
    v
}

/// Checks `[[vehicles]]` and `[[launches]]` of a file; `check_time` refuses
/// a launch time at or after the run's end (naming the field it is given).
pub(crate) fn validate_vehicles(
    vehicles: &[VehicleSpec],
    launches: &[LaunchSpec],
    check_time: &dyn Fn(&str, f32) -> Result<(), ScenarioFileError>,
) -> Result<(), ScenarioFileError> {
    if vehicles.len() > MAX_VEHICLES {
        return Err(invalid(
            "vehicles",
            format!("must hold at most {MAX_VEHICLES} entries"),
        ));
    }
    for (k, v) in vehicles.iter().enumerate() {
        let f = |n: &str| format!("vehicles[{k}].{n}");
        v.hold_design(k)?;
        finite(&f("position"), &v.position)?;
        finite(&f("rotation_deg"), &v.rotation_deg)?;
        finite(&f("velocity"), &v.velocity)?;
        if let Some(d) = v.drive {
            finite(&f("drive"), &d)?;
        }
        if !(v.brake.is_finite() && v.brake >= 0.0) {
            return Err(invalid(f("brake"), "must be ≥ 0 and finite"));
        }
        if let Some(j) = v.like {
            if j as usize >= k {
                return Err(invalid(
                    f("like"),
                    format!(
                        "is {j} but must name an earlier vehicle (0 to {})",
                        k as i64 - 1
                    ),
                ));
            }
            for (given, name) in [
                (v.size.is_some(), "size"),
                (v.mass.is_some(), "mass"),
                (!v.wheels.is_empty(), "wheels"),
                (!v.launchers.is_empty(), "launchers"),
            ] {
                if given {
                    return Err(invalid(
                        f(name),
                        "is copied from the vehicle `like` names; give one or the other",
                    ));
                }
            }
            continue;
        }
        let size = v
            .size
            .ok_or_else(|| invalid(f("size"), "is required (or `like`)"))?;
        for (i, s) in size.iter().enumerate() {
            positive(&f(&format!("size[{i}]")), *s)?;
        }
        let mass = v
            .mass
            .ok_or_else(|| invalid(f("mass"), "is required (or `like`)"))?;
        positive(&f("mass"), mass)?;
        if v.wheels.len() > smithereens_rapier::recorded_run::MAX_WHEELS {
            return Err(invalid(f("wheels"), "must hold at most 64 wheels"));
        }
        for (w, wheel) in v.wheels.iter().enumerate() {
            let g = |n: &str| format!("vehicles[{k}].wheels[{w}].{n}");
            finite(&g("position"), &wheel.position)?;
            if glam::Vec3::from_array(wheel.position).length() > smithereens_rapier::MAX_PART_OFFSET
            {
                return Err(invalid(g("position"), "must be within 50 m of the chassis"));
            }
            positive(&g("radius"), wheel.radius)?;
            positive(&g("width"), wheel.width)?;
            positive(&g("mass"), wheel.mass)?;
            if !(wheel.friction.is_finite() && wheel.friction >= 0.0) {
                return Err(invalid(g("friction"), "must be ≥ 0 and finite"));
            }
        }
        for (l, launcher) in v.launchers.iter().enumerate() {
            let g = format!("vehicles[{k}].launchers[{l}]");
            // Ownership is (vehicle, weapon part, projectile).
            if let Some(j) = v.launchers[..l]
                .iter()
                .position(|o| o.weapon == launcher.weapon)
            {
                return Err(invalid(
                    format!("{g}.weapon"),
                    format!(
                        "is {}, already the weapon of launchers[{j}] (each launcher needs its own weapon part index)",
                        launcher.weapon
                    ),
                ));
            }
            positive(&format!("{g}.weapon_health"), launcher.weapon_health)?;
            for (p, part) in launcher.parts.iter().enumerate() {
                part.validate(&format!("{g}.parts[{p}]"))?;
            }
        }
    }
    // Launches so far per (vehicle, launcher): one pass, O(L log L).
    let mut per_launcher = std::collections::BTreeMap::<(u32, u32), usize>::new();
    for (k, l) in launches.iter().enumerate() {
        let f = |n: &str| format!("launches[{k}].{n}");
        finite(&f("time"), &[l.time])?;
        if l.time < 0.0 {
            return Err(invalid(f("time"), "must be ≥ 0"));
        }
        check_time(&f("time"), l.time)?;
        if l.vehicle as usize >= vehicles.len() {
            return Err(invalid(
                f("vehicle"),
                format!("is {} but there are {} vehicles", l.vehicle, vehicles.len()),
            ));
        }
        let launchers = &build_of(vehicles, l.vehicle as usize).launchers;
        let launcher = launchers.get(l.launcher as usize).ok_or_else(|| {
            invalid(
                f("launcher"),
                format!(
                    "is {} but vehicle {} has {} launchers",
                    l.launcher,
                    l.vehicle,
                    launchers.len()
                ),
            )
        })?;
        if let Some(p) = l.projectile {
            let count = launcher.parts.len();
            if p as usize >= count {
                return Err(invalid(
                    f("projectile"),
                    format!("is {p} but the launcher holds {count} parts"),
                ));
            }
            if let Some(j) = launches[..k].iter().position(|e| {
                (e.vehicle, e.launcher, e.projectile) == (l.vehicle, l.launcher, Some(p))
            }) {
                return Err(invalid(
                    f("projectile"),
                    format!("{p} is already launched by launches[{j}]"),
                ));
            }
        }
        // More launches from one launcher than it holds parts cannot all
        // succeed: refused here, not 500 steps into the run.
        let count = launcher.parts.len();
        let from_it = per_launcher
            .entry((l.vehicle, l.launcher))
            .or_insert(0usize);
        *from_it += 1;
        let from_it = *from_it;
        if from_it > count {
            return Err(invalid(
                f("launcher"),
                format!(
                    "launcher {} of vehicle {} holds {count} parts, and this is launch {from_it} from it",
                    l.launcher, l.vehicle
                ),
            ));
        }
        finite(&f("impulse"), &l.impulse)?;
        let j = glam::Vec3::from_array(l.impulse).length();
        if j > MAX_LAUNCH_IMPULSE {
            return Err(invalid(
                f("impulse"),
                format!("is {j} N·s; at most {MAX_LAUNCH_IMPULSE} N·s"),
            ));
        }
    }
    Ok(())
}
