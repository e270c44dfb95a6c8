//! Recorded runs: what happened in a simulation, frame by frame, in a JSON
//! file that the viewer, the glTF exporter and tests read.
//!
//! A body's pose is stored as its *asset → world* transform, so a chunk's
//! asset-space render mesh is drawn at `pose · vertex` while it belongs to
//! that body. A chunk belongs to exactly one body on every frame.

use crate::asset_file::ChunkMesh;
use crate::pose::Pose;
use glam::Vec3;
use serde::{Deserialize, Serialize};

/// Value of [`RunRecord::format`].
pub const RUN_FORMAT: &str = "smithereens-run";
/// The run format version this build writes and reads.
pub const RUN_FORMAT_VERSION: u32 = 1;

/// Most fixed steps a recorded run may hold (10 min at 1 kHz, 2 h 47 min at
/// 60 Hz): a run of `n` steps has `n + 1` frames. Runs are simulated and
/// recorded whole in memory, and every reader allocates per frame, so both
/// the simulation (`smithereens demo`, `simulate`) and the run-file reader
/// refuse anything longer before allocating.
pub const MAX_RUN_STEPS: u32 = 600_000;

/// Most frames a run file may declare: [`MAX_RUN_STEPS`] + 1.
pub const MAX_RUN_FRAMES: u32 = MAX_RUN_STEPS + 1;

/// A pose as `[tx, ty, tz, qx, qy, qz, qw]` (m, unit quaternion).
pub type PoseArray = [f32; 7];

/// Converts a pose to its array form.
pub fn pose_to_array(p: &Pose) -> PoseArray {
    let t = p.translation;
    let q = p.rotation;
    [t.x, t.y, t.z, q.x, q.y, q.z, q.w]
}

/// Converts an array back to a pose.
pub fn pose_from_array(a: &PoseArray) -> Pose {
    Pose {
        translation: Vec3::new(a[0], a[1], a[2]),
        rotation: glam::Quat::from_xyzw(a[3], a[4], a[5], a[6]),
    }
}

/// A chunk as the viewer needs it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunChunk {
    /// Centre of mass, asset space, m.
    pub centroid: Vec3,
    /// Support chunk.
    pub support: bool,
    /// Render mesh, asset space.
    pub mesh: ChunkMesh,
}

/// A bond as the viewer needs it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunBond {
    /// First chunk.
    pub chunk0: u32,
    /// Second chunk, or `None` for a bond to the world.
    pub chunk1: Option<u32>,
    /// Interface centre, asset space, m.
    pub centroid: Vec3,
}

/// One body's life: its chunks and its pose on each frame it existed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunBody {
    /// Stable id (order of creation).
    pub id: u32,
    /// Member chunks, ascending.
    pub chunks: Vec<u32>,
    /// Fixed to the world.
    pub supported: bool,
    /// First frame on which the body exists.
    pub first_frame: u32,
    /// Asset → world pose on frames `first_frame .. first_frame + poses.len()`.
    pub poses: Vec<PoseArray>,
}

/// A projectile's trajectory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunProjectile {
    /// Sphere radius, m.
    pub radius: f32,
    /// First frame on which it exists.
    pub first_frame: u32,
    /// World pose per frame from `first_frame`.
    pub poses: Vec<PoseArray>,
}

/// The shape of a plain (non-destructible) body, in its own frame.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RunShape {
    /// A box centred on the body's origin.
    Box {
        /// Half extents along the body's x, y, z axes, m.
        half_extents: Vec3,
    },
    /// A sphere centred on the body's origin.
    Ball {
        /// Radius, m.
        radius: f32,
    },
    /// A cylinder centred on the body's origin, along the body's y axis
    /// (a vehicle's wheel).
    Cylinder {
        /// Half the height, m.
        half_height: f32,
        /// Radius, m.
        radius: f32,
    },
    /// A capsule centred on the body's origin: a segment along the body's
    /// y axis swept by a sphere (a held part, a projectile).
    Capsule {
        /// Half the length of the segment, m.
        half_height: f32,
        /// Radius, m.
        radius: f32,
    },
}

impl RunShape {
    /// Whether every dimension is finite and positive.
    pub fn has_volume(&self) -> bool {
        let ok = |x: f32| x.is_finite() && x > 0.0;
        match *self {
            RunShape::Box { half_extents } => {
                half_extents.is_finite() && half_extents.cmpgt(Vec3::ZERO).all()
            }
            RunShape::Ball { radius } => ok(radius),
            RunShape::Cylinder {
                half_height,
                radius,
            }
            | RunShape::Capsule {
                half_height,
                radius,
            } => ok(half_height) && ok(radius),
        }
    }
}

/// How a plain body moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunBodyKind {
    /// Moved by forces and contacts.
    Dynamic,
    /// Moved by its velocity only; pushes dynamic bodies, never pushed.
    Kinematic,
    /// Never moves.
    Fixed,
}

/// A plain rigid body (not destructible: a pusher, a ball, a block) and its
/// world pose on each frame it existed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunPlainBody {
    /// Collision shape, body frame.
    pub shape: RunShape,
    /// How it moves.
    pub kind: RunBodyKind,
    /// First frame on which it exists.
    pub first_frame: u32,
    /// World pose per frame from `first_frame` (the body's origin is the shape's centre).
    pub poses: Vec<PoseArray>,
}

/// A held part (a projectile preloaded in a launcher, issue 14): drawn at
/// its authored pose on its parent while it is held, then, once launched,
/// at its own recorded world pose; a part broken before launch is not
/// drawn from its release frame on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunHeldPart {
    /// Collision shape, in the part's frame.
    pub shape: RunShape,
    /// The parent: an index into [`RunRecord::plain_bodies`] (a vehicle's chassis).
    pub parent: u32,
    /// Authored pose of the part in its parent's frame (m, unit quaternion).
    pub local: PoseArray,
    /// Index of the launcher in the run, in creation order.
    pub launcher: u32,
    /// Projectile index in the launcher (its launch order).
    pub projectile: u32,
    /// First frame on which the part is no longer held (launched, or broken
    /// before launch); `None`: held to the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub released_frame: Option<u32>,
    /// The part broke before it was launched (it is not drawn from
    /// `released_frame` on).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub broken: bool,
    /// World pose of the launched part on frames `released_frame ..
    /// released_frame + poses.len()` (empty while held and for a broken part).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub poses: Vec<PoseArray>,
}

/// A bond's stress utilisation from a frame on: the largest of `σ / fatal`
/// over compression, tension and shear of its last converged solve
/// (dimensionless; 1 breaks it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunBondStress {
    /// Frame from which it holds.
    pub frame: u32,
    /// Run bond index.
    pub bond: u32,
    /// Utilisation, ≥ 0.
    pub utilisation: f32,
}

/// A damage event as admitted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunEvent {
    /// Frame of admission.
    pub frame: u32,
    /// Event id.
    pub id: u64,
    /// Impact point, world, m.
    pub point: Vec3,
    /// Radius, m: R of a radial event, the outer radius of an explosion; 0
    /// for a contact impact, which spreads through the bond graph from the
    /// touched chunk instead of over a radius.
    pub radius: f32,
    /// du: the budget of a radial event or contact impact, the damage per
    /// bond within the inner radius of an explosion.
    pub damage: f32,
    /// Inner radius of an explosion's falloff, m; absent for radial events
    /// (and in runs recorded before explosions used falloff damage).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inner_radius: Option<f32>,
}

/// A bond that broke.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunBreak {
    /// Frame of the commit that broke it.
    pub frame: u32,
    /// The bond.
    pub bond: u32,
}

/// A whole recorded run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Always [`RUN_FORMAT`].
    pub format: String,
    /// Always [`RUN_FORMAT_VERSION`] for files this build writes.
    pub version: u32,
    /// Scenario name.
    pub name: String,
    /// Fixed time step, s.
    pub timestep: f32,
    /// Number of recorded frames (frame 0 is the initial state); at most
    /// [`MAX_RUN_FRAMES`], and equal to `frame_hashes.len()`.
    pub frame_count: u32,
    /// Ground plane height (world y, m), if any.
    pub ground_y: Option<f32>,
    /// Chunks, by chunk index.
    pub chunks: Vec<RunChunk>,
    /// Bonds, by bond index.
    pub bonds: Vec<RunBond>,
    /// Bodies in creation order.
    pub bodies: Vec<RunBody>,
    /// Projectiles.
    pub projectiles: Vec<RunProjectile>,
    /// Plain (non-destructible) bodies other than projectiles, in creation
    /// order. Absent in runs written before multi-instance runs (read as empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plain_bodies: Vec<RunPlainBody>,
    /// Held parts (preloaded projectiles on vehicles), in launcher then
    /// projectile order. Absent in runs without vehicles (read as empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held_parts: Vec<RunHeldPart>,
    /// Damage events in admission order.
    pub events: Vec<RunEvent>,
    /// Broken bonds in commit order.
    pub breaks: Vec<RunBreak>,
    /// Stress utilisation of bonds (issue 13): an entry each time a solve
    /// moved a bond's value by more than 0.01, so a bond's utilisation on a
    /// frame is that of its last entry at or before it (0 before any).
    /// Empty for runs without stress.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bond_stress: Vec<RunBondStress>,
    /// State hash after each frame (determinism checks).
    pub frame_hashes: Vec<u64>,
    /// The scenario that produced the run, as TOML text, so `replay --verify`
    /// can re-simulate it (absent for runs not made from a scenario file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// Folder against which the scenario's relative paths resolve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario_dir: Option<String>,
    /// The build that recorded the run (e.g. `smithereens 0.1.0 (8fc5ed0a1b2c)`),
    /// so a replay that diverges can say whether the engine changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
}

/// Why a run file could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// Not JSON, truncated JSON, or missing fields.
    #[error("run file is not valid JSON for this format: {0}")]
    Json(String),
    /// Another kind of file.
    #[error("not a Smithereens run file (format {0:?})")]
    Format(String),
    /// Another version.
    #[error("run format version {found} is not supported (this build reads {supported})")]
    Version {
        /// In the file.
        found: u32,
        /// Supported.
        supported: u32,
    },
    /// The declared `frame_count` disagrees with the frames the file holds
    /// (one state hash per frame).
    #[error(
        "run file declares {declared} frames but holds {present} (one state hash per frame); it was cut short or edited"
    )]
    FrameCount {
        /// `frame_count` in the file.
        declared: u32,
        /// Frames present: the length of `frame_hashes`.
        present: usize,
    },
    /// More frames than any run may hold.
    #[error("run file declares {declared} frames; a run holds at most {max} ({steps} steps)", max = MAX_RUN_FRAMES, steps = MAX_RUN_STEPS)]
    TooManyFrames {
        /// `frame_count` in the file.
        declared: u32,
    },
    /// Inconsistent content.
    #[error("run file is inconsistent: {0}")]
    Inconsistent(String),
}

impl RunRecord {
    /// An empty record for a scenario.
    pub fn new(name: impl Into<String>, timestep: f32) -> Self {
        Self {
            format: RUN_FORMAT.into(),
            version: RUN_FORMAT_VERSION,
            name: name.into(),
            timestep,
            frame_count: 0,
            ground_y: None,
            chunks: vec![],
            bonds: vec![],
            bodies: vec![],
            projectiles: vec![],
            plain_bodies: vec![],
            held_parts: vec![],
            events: vec![],
            breaks: vec![],
            bond_stress: vec![],
            frame_hashes: vec![],
            scenario: None,
            scenario_dir: None,
            engine: None,
        }
    }

    /// Serialises to JSON bytes.
    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// Parses and checks a run file.
    ///
    /// Every count and frame number in the file is checked against the data
    /// the file actually holds (`frame_count` against `frame_hashes`, poses,
    /// events and breaks against `frame_count`) and against
    /// [`MAX_RUN_FRAMES`], so a reader can size per-frame tables from
    /// `frame_count` without allocating for frames that are not there.
    ///
    /// # Errors
    /// [`RunError`] for non-JSON, a foreign format, another version,
    /// [`RunError::TooManyFrames`], [`RunError::FrameCount`], or
    /// indices/frames out of range.
    pub fn from_json(bytes: &[u8]) -> Result<Self, RunError> {
        #[derive(Deserialize)]
        struct Header {
            format: String,
            version: u32,
        }
        let header: Header =
            serde_json::from_slice(bytes).map_err(|e| RunError::Json(e.to_string()))?;
        if header.format != RUN_FORMAT {
            return Err(RunError::Format(header.format));
        }
        if header.version != RUN_FORMAT_VERSION {
            return Err(RunError::Version {
                found: header.version,
                supported: RUN_FORMAT_VERSION,
            });
        }
        let run: RunRecord =
            serde_json::from_slice(bytes).map_err(|e| RunError::Json(e.to_string()))?;
        run.check()?;
        Ok(run)
    }

    fn check(&self) -> Result<(), RunError> {
        if self.frame_count > MAX_RUN_FRAMES {
            return Err(RunError::TooManyFrames {
                declared: self.frame_count,
            });
        }
        if self.frame_hashes.len() != self.frame_count as usize {
            return Err(RunError::FrameCount {
                declared: self.frame_count,
                present: self.frame_hashes.len(),
            });
        }
        let n = self.chunks.len() as u32;
        let bad = |s: String| Err(RunError::Inconsistent(s));
        let past_end = |first: u32, len: usize| first as u64 + len as u64 > self.frame_count as u64;
        for (k, b) in self.bonds.iter().enumerate() {
            if b.chunk0 >= n || b.chunk1.is_some_and(|c| c >= n) {
                return bad(format!("bond {k} names a chunk out of range"));
            }
        }
        for b in &self.bodies {
            if b.chunks.iter().any(|&c| c >= n) {
                return bad(format!("body {} names a chunk out of range", b.id));
            }
            if past_end(b.first_frame, b.poses.len()) {
                return bad(format!("body {} has poses past the last frame", b.id));
            }
        }
        for (k, p) in self.plain_bodies.iter().enumerate() {
            if past_end(p.first_frame, p.poses.len()) {
                return bad(format!("plain body {k} has poses past the last frame"));
            }
            if !p.shape.has_volume() {
                return bad(format!("plain body {k} has a shape without volume"));
            }
        }
        for (k, h) in self.held_parts.iter().enumerate() {
            if !h.shape.has_volume() {
                return bad(format!("held part {k} has a shape without volume"));
            }
            if h.parent as usize >= self.plain_bodies.len() {
                return bad(format!("held part {k} names a parent out of range"));
            }
            if !h.local.iter().all(|x| x.is_finite()) {
                return bad(format!("held part {k} has a non-finite pose"));
            }
            match h.released_frame {
                Some(f) if f >= self.frame_count => {
                    return bad(format!("held part {k} is released past the last frame"));
                }
                Some(f) if past_end(f, h.poses.len()) => {
                    return bad(format!("held part {k} has poses past the last frame"));
                }
                None if h.broken || !h.poses.is_empty() => {
                    return bad(format!(
                        "held part {k} is broken or has poses but was never released"
                    ));
                }
                _ => {}
            }
            if h.broken && !h.poses.is_empty() {
                return bad(format!("held part {k} is broken but has flying poses"));
            }
        }
        for (k, p) in self.projectiles.iter().enumerate() {
            if past_end(p.first_frame, p.poses.len()) {
                return bad(format!("projectile {k} has poses past the last frame"));
            }
        }
        if let Some(e) = self.events.iter().find(|e| e.frame >= self.frame_count) {
            return bad(format!(
                "damage event {} is on frame {}, past the last frame",
                e.id, e.frame
            ));
        }
        if let Some(br) = self
            .breaks
            .iter()
            .find(|br| br.bond as usize >= self.bonds.len())
        {
            return bad(format!("break of bond {} out of range", br.bond));
        }
        if let Some(br) = self.breaks.iter().find(|br| br.frame >= self.frame_count) {
            return bad(format!(
                "break of bond {} is on frame {}, past the last frame",
                br.bond, br.frame
            ));
        }
        if let Some(s) = self.bond_stress.iter().find(|s| {
            s.bond as usize >= self.bonds.len()
                || s.frame >= self.frame_count
                || !(s.utilisation.is_finite() && s.utilisation >= 0.0)
        }) {
            return bad(format!(
                "stress of bond {} on frame {} is out of range",
                s.bond, s.frame
            ));
        }
        Ok(())
    }
}
