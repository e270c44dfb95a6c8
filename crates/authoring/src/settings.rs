//! Fracture parameters and their validation.

use crate::error::FractureError;
use glam::DVec3;
use serde::{Deserialize, Serialize};

/// Largest accepted [`FractureSettings::density`], kg/m³: far above any
/// material (osmium is 22,590), and low enough that masses and inertia
/// tensors of kilometre-sized assets still fit `f32`.
pub const MAX_DENSITY: f64 = 1e6;

/// Smallest accepted [`FractureSettings::density`], kg/m³: far below any
/// material (silica aerogel is about 1, air 1.2). Below it chunk masses of
/// small meshes underflow `f32` and the fracture used to end in a
/// misleading "no chunks" error (`--density 1e-45`).
pub const MIN_DENSITY: f64 = 1e-3;

/// Smallest accepted [`FractureSettings::strength_per_area`], du/m²:
/// below it a small bond's strength underflows `f32` to 0 and the asset
/// was rejected as invalid (`--strength-per-area 1e-50`).
pub const MIN_STRENGTH_PER_AREA: f64 = 1e-9;

/// Largest accepted [`FractureSettings::chunk_count`].
pub const MAX_CHUNK_COUNT: u32 = 100_000;

/// Default [`FractureSettings::strength_per_area`], du/m²: a 10 cm × 10 cm
/// interface (0.01 m²) starts with 10 du of health, so a radial hit with a
/// damage budget of a few tens of du breaks a handful of bonds of a
/// metre-sized object.
pub const DEFAULT_STRENGTH_PER_AREA: f64 = 1000.0;

/// Default [`SupportRule::LowestPlane`] tolerance, m.
pub const DEFAULT_SUPPORT_TOLERANCE: f64 = 0.01;

/// Largest accepted [`CutNoise::octaves`].
pub const MAX_NOISE_OCTAVES: u32 = 8;

/// Largest accepted [`CutNoise::resolution`]: at most `2 × 64² = 8192`
/// noisy triangles per interface.
pub const MAX_NOISE_RESOLUTION: u32 = 64;

/// Rough (noisy) interior cut surfaces, opt-in through
/// [`FractureSettings::cut_noise`]; works with every
/// [`Pattern`](crate::Pattern).
///
/// Each interface between two chunks gets a *patch*: a square grid laid in
/// the interface plane (spacing `√(area of the interface's bounding
/// rectangle) / resolution`, at least its longer side / (4 × resolution)),
/// kept only where a grid square lies
/// inside both chunks' caps at least ¼ spacing away from both caps' edges
/// (this also covers interfaces where a cell fell apart into several chunks
/// and plane-cut caps that several chunks share). The patch's inner grid vertices move along the interface normal
/// by `falloff × scale × noise(x)`, where
/// * `noise(x) ∈ [−1, 1]` is seeded 3D value noise (quintic interpolation
///   of random lattice values) with `octaves` octaves (frequency doubling,
///   weight halving per octave, normalised by the weight sum), evaluated at
///   the vertex's planar position `x` (m) times `frequency` (1/m); the seed
///   is derived from [`FractureSettings::seed`];
/// * `falloff = smoothstep(distance to the patch edge / (2 × spacing))`, so
///   the patch edge stays in the plane and the surface is continuous;
/// * `scale = min(amplitude, ½ × distance from the vertex to every other
///   face of both chunks)`: a vertex moves at most half way to any other
///   face, so it stays inside the two chunks (for the triangles between
///   vertices this holds whenever the grid spacing is small against the
///   distance to other faces, which the margin above ensures near the
///   patch edge).
///
/// Both chunks get exactly the same patch triangles (same f64 positions,
/// opposite winding); the rest of each cap (the flat margin around the
/// patch) is re-triangulated on each side, so every chunk stays closed and
/// the two sides still tile the same region without gaps or overlaps: the
/// total volume is kept. Bond area, centroid and normal stay those of the
/// planar interface. Interfaces too small for one grid square stay flat
/// and are counted in the asset's provenance.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CutNoise {
    /// Largest displacement of the cut surface from its plane, m. Finite and
    /// ≥ 0; 0 turns the noise off (same bytes as `cut_noise: None`).
    pub amplitude: f64,
    /// Base frequency of the noise, 1/m (features about `1/frequency` m
    /// apart). Positive and finite.
    pub frequency: f64,
    /// Number of noise octaves, 1..=[`MAX_NOISE_OCTAVES`].
    pub octaves: u32,
    /// Grid squares along the side of a square with the area of each
    /// interface's bounding rectangle, 2..=[`MAX_NOISE_RESOLUTION`]; bounds
    /// the triangle count (at most `2 × resolution²` noisy triangles per
    /// interface).
    pub resolution: u32,
}

impl Default for CutNoise {
    /// 1 cm amplitude, 4 /m, 3 octaves, resolution 12 (at most 288 rough
    /// triangles per interface: Spot in 32 chunks gets about 40,000).
    fn default() -> Self {
        Self {
            amplitude: 0.01,
            frequency: 4.0,
            octaves: 3,
            resolution: 12,
        }
    }
}

impl CutNoise {
    /// Checks every parameter.
    ///
    /// # Errors
    /// [`FractureError::InvalidCutNoise`] naming the parameter and value.
    pub fn validate(&self) -> Result<(), FractureError> {
        let bad = |parameter: &'static str, value: f64, expected: &'static str| {
            Err(FractureError::InvalidCutNoise {
                parameter,
                value,
                expected,
            })
        };
        if !(self.amplitude.is_finite() && self.amplitude >= 0.0) {
            return bad("amplitude", self.amplitude, "finite and ≥ 0 m");
        }
        if !positive_finite(self.frequency) {
            return bad("frequency", self.frequency, "positive and finite, 1/m");
        }
        if !(1..=MAX_NOISE_OCTAVES).contains(&self.octaves) {
            return bad("octaves", self.octaves as f64, "1 to 8");
        }
        if !(2..=MAX_NOISE_RESOLUTION).contains(&self.resolution) {
            return bad("resolution", self.resolution as f64, "2 to 64");
        }
        Ok(())
    }

    /// True when the noise changes anything (`amplitude > 0`).
    pub fn is_active(&self) -> bool {
        self.amplitude > 0.0
    }
}

/// Default [`HullDecomposition::threshold`]: a chunk whose convex hull
/// encloses more than 1.2 × its volume gets several hulls.
pub const DEFAULT_DECOMPOSITION_THRESHOLD: f64 = 0.2;

/// Largest accepted [`HullDecomposition::max_hulls`].
pub const MAX_HULLS_PER_CHUNK: u32 = 64;

/// Several convex hulls for concave chunks, through
/// [`FractureSettings::decomposition`] (on by default).
///
/// A chunk whose single convex hull encloses more than
/// `(1 + threshold) ×` its volume is cut along the planes of its own
/// concave faces (faces with chunk vertices in front of their plane) into
/// parts, each with its own hull, until the hulls together enclose at most
/// `(1 + threshold) ×` the volume, `max_hulls` is reached or no cut helps.
/// The parts are exact pieces of the chunk, so the hulls cover all of its
/// material and never reach into a concavity beyond a part's own hull
/// (a doorway in a wall stays open). Deterministic. Mass properties and
/// render meshes are unchanged; only `ChunkDesc::hulls` differs.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HullDecomposition {
    /// Largest accepted excess of hull volume over chunk volume, as a
    /// fraction of the chunk volume (unitless). Positive and finite.
    pub threshold: f64,
    /// Most hulls per chunk, 2..=[`MAX_HULLS_PER_CHUNK`].
    pub max_hulls: u32,
}

impl Default for HullDecomposition {
    /// Threshold [`DEFAULT_DECOMPOSITION_THRESHOLD`] (20 %), at most 8 hulls.
    fn default() -> Self {
        Self {
            threshold: DEFAULT_DECOMPOSITION_THRESHOLD,
            max_hulls: 8,
        }
    }
}

impl HullDecomposition {
    /// Checks both parameters.
    ///
    /// # Errors
    /// [`FractureError::InvalidDecomposition`] naming the parameter and value.
    pub fn validate(&self) -> Result<(), FractureError> {
        if !positive_finite(self.threshold) {
            return Err(FractureError::InvalidDecomposition {
                parameter: "threshold",
                value: self.threshold,
                expected: "positive and finite (a fraction of the chunk volume)",
            });
        }
        if !(2..=MAX_HULLS_PER_CHUNK).contains(&self.max_hulls) {
            return Err(FractureError::InvalidDecomposition {
                parameter: "max_hulls",
                value: self.max_hulls as f64,
                expected: "2 to 64",
            });
        }
        Ok(())
    }
}

/// A coordinate axis.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Axis {
    /// The X axis.
    X,
    /// The Y axis (up in glTF and most game engines).
    Y,
    /// The Z axis.
    Z,
}

impl Axis {
    /// Component index: 0, 1 or 2.
    pub fn index(self) -> usize {
        match self {
            Axis::X => 0,
            Axis::Y => 1,
            Axis::Z => 2,
        }
    }
}

/// Which chunks are fixed to the world (`ChunkDesc::support`).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SupportRule {
    /// Chunks with a vertex within `tolerance` (m) of the mesh's lowest
    /// bounding-box plane along `axis` (i.e. `p[axis] ≤ min[axis] + tolerance`).
    LowestPlane {
        /// Axis along which "lowest" is measured.
        axis: Axis,
        /// Distance above the lowest plane still counted as touching, m. Positive.
        tolerance: f64,
    },
    /// Chunks with a vertex whose signed distance to the plane through
    /// `point` with normal `normal` (pointing away from the ground; any
    /// non-zero length) is at most `tolerance` (m). Chunks reaching below
    /// the plane count as touching it.
    Plane {
        /// A point on the plane, m.
        point: DVec3,
        /// Plane normal, pointing out of the ground.
        normal: DVec3,
        /// Distance above the plane still counted as touching, m. Positive.
        tolerance: f64,
    },
    /// No chunk is a support: the whole object is dynamic.
    None,
}

/// Whether the asset gets chunk–chunk bonds (`AssetDesc::bonds`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum BondRule {
    /// Bonds from shared cut faces (area m², strength
    /// `strength_per_area × area` du), as described in
    /// [`fracture_voronoi`](crate::fracture_voronoi).
    #[default]
    Detect,
    /// No bonds at all: every chunk is its own island at runtime (a pile of
    /// loose pieces). Interfaces are still found, only to pick the
    /// neighbour a sliver merges into, so chunks and volumes are identical
    /// to [`BondRule::Detect`]; support flags are unchanged.
    Off,
}

/// Parameters of [`fracture_voronoi`](crate::fracture_voronoi).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FractureSettings {
    /// Number of Voronoi sites, ≥ 1. The number of chunks may differ: a
    /// cell of a non-convex mesh can fall apart into several chunks, and
    /// degenerate slivers are merged into a neighbour.
    pub chunk_count: u32,
    /// Seed of the site distribution (`rand_pcg::Pcg64Mcg`). Same mesh,
    /// settings and seed give a byte-identical asset.
    pub seed: u64,
    /// Material density, kg/m³. [`MIN_DENSITY`] to [`MAX_DENSITY`].
    pub density: f64,
    /// Initial bond health per interface area, du/m² (bond strength =
    /// `strength_per_area × area`). Finite, at least
    /// [`MIN_STRENGTH_PER_AREA`].
    pub strength_per_area: f64,
    /// Which chunks are fixed to the world.
    pub support: SupportRule,
    /// Rough interior cut surfaces; `None` (default) keeps every cap planar.
    #[serde(default)]
    pub cut_noise: Option<CutNoise>,
    /// Whether chunks are bonded to each other (default
    /// [`BondRule::Detect`]).
    #[serde(default)]
    pub bonds: BondRule,
    /// Several hulls for concave chunks; `None` gives every chunk one
    /// convex hull. Default: on, [`HullDecomposition::default`].
    #[serde(default)]
    pub decomposition: Option<HullDecomposition>,
    /// Collapse render-mesh edges shorter than
    /// [`MIN_EDGE_FRACTION`](crate::MIN_EDGE_FRACTION) × the mesh's
    /// bounding-box diagonal after carving, keeping both sides of every cut
    /// in agreement, after putting sampled Voronoi sites in general
    /// position (README, "No near-degenerate render meshes"). On by
    /// default: it moves cut vertices by up to 1e-5 and sampled sites by up
    /// to 5e-3 of the mesh's diagonal, and costs about 0.15 s on Spot at 500
    /// sites. Over some seeds a bond whose area differs from one side's cap
    /// by up to 0.4 % is still left (issue 17, item 2, open). Settings files written before it became the default lack
    /// the field and read it as off, so they keep giving the assets they
    /// gave (as do scenario files' recipes).
    #[serde(default)]
    pub collapse_short_edges: bool,
    /// Carve each Voronoi cell from the smallest region of a shared k-d
    /// split of the mesh that holds it, and triangulate its caps in outline
    /// order (README, "Shared regions"): 17 % less CPU at 500 sites on
    /// Spot, about 28 % at 2,000; the same chunk volumes, caps and bonds,
    /// another interior triangulation (and, with
    /// [`collapse_short_edges`](Self::collapse_short_edges), other moves:
    /// the collapse visits edges in an order that depends on it). On by default
    /// (it was opt-in while one piece of the demo's debris on these meshes
    /// rocked 4 cm in the last second; the cause was parry's contact
    /// feature of many-sided faces, fixed in `vendor/README.md`). Settings
    /// files written before that lack the field and read it as off, so they
    /// keep giving the assets they gave.
    #[serde(default)]
    pub shared_regions: bool,
    /// After each cut of a planar pattern (slices, bricks, planes), collapse
    /// the vertices that lie in the middle of a seam between two flat
    /// regions (README, "Seam vertices"): the same chunks, caps and bonds,
    /// far fewer triangles (a 48 × 24 × 2 slice of a box: 12 instead of 363
    /// render triangles per block). On by default; settings files written
    /// before it lack the field and read it as off.
    #[serde(default)]
    pub dissolve_seams: bool,
}

impl Default for FractureSettings {
    /// 32 chunks, seed 1, density 2400 kg/m³ (concrete), strength
    /// [`DEFAULT_STRENGTH_PER_AREA`], support = chunks within
    /// [`DEFAULT_SUPPORT_TOLERANCE`] of the lowest Y plane, bonds detected,
    /// concave chunks decomposed ([`HullDecomposition::default`]), cells
    /// carved from shared regions, seam vertices of planar patterns
    /// dissolved, short edges collapsed.
    fn default() -> Self {
        Self {
            chunk_count: 32,
            seed: 1,
            density: 2400.0,
            strength_per_area: DEFAULT_STRENGTH_PER_AREA,
            support: SupportRule::LowestPlane {
                axis: Axis::Y,
                tolerance: DEFAULT_SUPPORT_TOLERANCE,
            },
            cut_noise: None,
            bonds: BondRule::Detect,
            decomposition: Some(HullDecomposition::default()),
            collapse_short_edges: true,
            shared_regions: true,
            dissolve_seams: true,
        }
    }
}

impl FractureSettings {
    /// Checks every parameter.
    ///
    /// # Errors
    /// [`FractureError::ZeroChunkCount`], [`FractureError::TooManyChunks`],
    /// [`FractureError::InvalidDensity`], [`FractureError::InvalidStrength`],
    /// [`FractureError::InvalidSupportTolerance`],
    /// [`FractureError::InvalidSupportPlane`], [`FractureError::InvalidCutNoise`],
    /// [`FractureError::InvalidDecomposition`].
    pub fn validate(&self) -> Result<(), FractureError> {
        if self.chunk_count == 0 {
            return Err(FractureError::ZeroChunkCount);
        }
        if self.chunk_count > MAX_CHUNK_COUNT {
            return Err(FractureError::TooManyChunks {
                requested: self.chunk_count,
                max: MAX_CHUNK_COUNT,
            });
        }
        if !(self.density >= MIN_DENSITY && self.density <= MAX_DENSITY) {
            return Err(FractureError::InvalidDensity {
                value: self.density,
            });
        }
        if !(self.strength_per_area >= MIN_STRENGTH_PER_AREA && self.strength_per_area.is_finite())
        {
            return Err(FractureError::InvalidStrength {
                value: self.strength_per_area,
            });
        }
        match self.support {
            SupportRule::LowestPlane { tolerance, .. } => {
                if !positive_finite(tolerance) {
                    return Err(FractureError::InvalidSupportTolerance { value: tolerance });
                }
            }
            SupportRule::Plane {
                point,
                normal,
                tolerance,
            } => {
                if !positive_finite(tolerance) {
                    return Err(FractureError::InvalidSupportTolerance { value: tolerance });
                }
                let length = normal.length();
                if !point.is_finite() || !positive_finite(length) || length < 1e-12 {
                    return Err(FractureError::InvalidSupportPlane { point, normal });
                }
            }
            SupportRule::None => {}
        }
        if let Some(noise) = &self.cut_noise {
            noise.validate()?;
        }
        if let Some(decomposition) = &self.decomposition {
            decomposition.validate()?;
        }
        Ok(())
    }
}

fn positive_finite(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

/// Progress of a long computation: `done` of `total` steps finished.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Steps finished.
    pub done: u32,
    /// Steps in total.
    pub total: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_settings_are_valid() {
        FractureSettings::default().validate().unwrap();
    }

    #[test]
    fn bad_values_are_rejected_with_the_offending_value() {
        let ok = FractureSettings::default();
        let check = |s: FractureSettings| s.validate().unwrap_err();
        assert!(matches!(
            check(FractureSettings {
                chunk_count: 0,
                ..ok
            }),
            FractureError::ZeroChunkCount
        ));
        assert!(matches!(
            check(FractureSettings {
                chunk_count: MAX_CHUNK_COUNT + 1,
                ..ok
            }),
            FractureError::TooManyChunks { .. }
        ));
        assert!(matches!(
            check(FractureSettings { density: -1.0, ..ok }),
            FractureError::InvalidDensity { value } if value == -1.0
        ));
        assert!(matches!(
            check(FractureSettings {
                density: 1e308,
                ..ok
            }),
            FractureError::InvalidDensity { value } if value == 1e308
        ));
        assert!(matches!(
            check(FractureSettings {
                density: f64::NAN,
                ..ok
            }),
            FractureError::InvalidDensity { .. }
        ));
        assert!(matches!(
            check(FractureSettings {
                strength_per_area: 0.0,
                ..ok
            }),
            FractureError::InvalidStrength { .. }
        ));
        // Positive but so small that f32 masses and strengths underflow.
        assert!(matches!(
            check(FractureSettings {
                density: 1e-45,
                ..ok
            }),
            FractureError::InvalidDensity { .. }
        ));
        assert!(matches!(
            check(FractureSettings {
                strength_per_area: 1e-50,
                ..ok
            }),
            FractureError::InvalidStrength { .. }
        ));
        assert!(
            FractureSettings {
                density: MIN_DENSITY,
                strength_per_area: MIN_STRENGTH_PER_AREA,
                ..ok
            }
            .validate()
            .is_ok()
        );
        assert!(matches!(
            check(FractureSettings {
                support: SupportRule::LowestPlane {
                    axis: Axis::Y,
                    tolerance: -0.1
                },
                ..ok
            }),
            FractureError::InvalidSupportTolerance { .. }
        ));
        assert!(matches!(
            check(FractureSettings {
                support: SupportRule::Plane {
                    point: DVec3::ZERO,
                    normal: DVec3::ZERO,
                    tolerance: 0.1
                },
                ..ok
            }),
            FractureError::InvalidSupportPlane { .. }
        ));
        assert!(matches!(
            check(FractureSettings {
                support: SupportRule::Plane {
                    point: DVec3::NAN,
                    normal: DVec3::Y,
                    tolerance: 0.1
                },
                ..ok
            }),
            FractureError::InvalidSupportPlane { .. }
        ));
    }
}
