//! Rigid transforms (rotation then translation), world units metres.

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

/// A rigid transform `p ↦ rotation · p + translation`.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pose {
    /// Unit rotation.
    pub rotation: Quat,
    /// Translation, m.
    pub translation: Vec3,
}

impl Default for Pose {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Pose {
    /// The identity transform.
    pub const IDENTITY: Self = Self {
        rotation: Quat::IDENTITY,
        translation: Vec3::ZERO,
    };

    /// A pure translation.
    pub fn from_translation(t: Vec3) -> Self {
        Self {
            rotation: Quat::IDENTITY,
            translation: t,
        }
    }

    /// True when both poses have the same bits (not merely equal values:
    /// `-0.0` and `0.0` differ).
    pub fn same_bits(&self, other: &Pose) -> bool {
        let bits = |p: &Pose| {
            let r = p.rotation.to_array().map(f32::to_bits);
            let t = p.translation.to_array().map(f32::to_bits);
            (r, t)
        };
        bits(self) == bits(other)
    }

    /// Applies the transform to a point.
    pub fn transform_point(&self, p: Vec3) -> Vec3 {
        self.rotation * p + self.translation
    }

    /// Composition `self ∘ other` (apply `other` first).
    pub fn mul(&self, other: &Pose) -> Pose {
        Pose {
            rotation: (self.rotation * other.rotation).normalize(),
            translation: self.rotation * other.translation + self.translation,
        }
    }

    /// The inverse transform.
    pub fn inverse(&self) -> Pose {
        let r = self.rotation.inverse();
        Pose {
            rotation: r,
            translation: -(r * self.translation),
        }
    }

    /// True when every component is finite and the rotation is unit length (±1e-3).
    pub fn is_valid(&self) -> bool {
        self.translation.is_finite()
            && self.rotation.is_finite()
            && (self.rotation.length() - 1.0).abs() < 1e-3
    }
}
