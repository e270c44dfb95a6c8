//! Fracture parameters and their validation.

use crate::error::FractureError;
use glam::DVec3;
use serde::{Deserialize, Serialize};

/// Largest accepted [`FractureSettings::chunk_count`].
pub const MAX_CHUNK_COUNT: u32 = 100_000;

/// Default [`FractureSettings::strength_per_area`], du/m²: a 10 cm × 10 cm
/// interface (0.01 m²) starts with 10 du of health, so a radial hit with a
/// damage budget of a few tens of du breaks a handful of bonds of a
/// metre-sized object.
pub const DEFAULT_STRENGTH_PER_AREA: f64 = 1000.0;

/// Default [`SupportRule::LowestPlane`] tolerance, m.
pub const DEFAULT_SUPPORT_TOLERANCE: f64 = 0.01;

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
    /// Material density, kg/m³. Positive and finite.
    pub density: f64,
    /// Initial bond health per interface area, du/m² (bond strength =
    /// `strength_per_area × area`). Positive and finite.
    pub strength_per_area: f64,
    /// Which chunks are fixed to the world.
    pub support: SupportRule,
    /// Whether chunks are bonded to each other (default
    /// [`BondRule::Detect`]).
    #[serde(default)]
    pub bonds: BondRule,
}

impl Default for FractureSettings {
    /// 32 chunks, seed 1, density 2400 kg/m³ (concrete), strength
    /// [`DEFAULT_STRENGTH_PER_AREA`], support = chunks within
    /// [`DEFAULT_SUPPORT_TOLERANCE`] of the lowest Y plane, bonds detected.
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
            bonds: BondRule::Detect,
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
    /// [`FractureError::InvalidSupportPlane`].
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
        if !positive_finite(self.density) {
            return Err(FractureError::InvalidDensity {
                value: self.density,
            });
        }
        if !positive_finite(self.strength_per_area) {
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
