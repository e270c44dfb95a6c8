//! Which chunks are fixed to the world.

use crate::settings::SupportRule;
use glam::DVec3;

/// A [`SupportRule`] resolved against a mesh: a ground plane (unit normal
/// pointing out of the ground) and a tolerance, or nothing.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct Ground {
    point: DVec3,
    normal: DVec3,
    tolerance: f64,
}

impl Ground {
    /// Resolves `rule` for a mesh with bounds `(lo, hi)`. `None` for
    /// [`SupportRule::None`] or an (unvalidated) zero normal.
    pub fn resolve(rule: &SupportRule, lo: DVec3) -> Option<Self> {
        match *rule {
            SupportRule::LowestPlane { axis, tolerance } => {
                let mut normal = DVec3::ZERO;
                normal[axis.index()] = 1.0;
                Some(Self {
                    point: lo,
                    normal,
                    tolerance,
                })
            }
            SupportRule::Plane {
                point,
                normal,
                tolerance,
            } => Some(Self {
                point,
                normal: normal.try_normalize()?,
                tolerance,
            }),
            SupportRule::None => None,
        }
    }

    /// True when some vertex is at most `tolerance` (m) above the plane
    /// (vertices below it count too).
    pub fn touches(&self, vertices: impl IntoIterator<Item = DVec3>) -> bool {
        vertices
            .into_iter()
            .any(|p| self.normal.dot(p - self.point) <= self.tolerance)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Axis;

    #[test]
    fn lowest_plane_uses_the_bounding_box_minimum_along_the_axis() {
        let g = Ground::resolve(
            &SupportRule::LowestPlane {
                axis: Axis::Y,
                tolerance: 0.01,
            },
            DVec3::new(5.0, -2.0, 7.0),
        )
        .unwrap();
        assert!(g.touches([DVec3::new(100.0, -1.995, -3.0)]));
        assert!(!g.touches([DVec3::new(0.0, -1.98, 0.0), DVec3::new(0.0, 3.0, 0.0)]));
    }

    #[test]
    fn explicit_plane_counts_vertices_below_it() {
        let rule = SupportRule::Plane {
            point: DVec3::new(0.0, 0.0, 1.0),
            normal: DVec3::new(0.0, 0.0, 2.0),
            tolerance: 0.1,
        };
        let g = Ground::resolve(&rule, DVec3::ZERO).unwrap();
        assert!(g.touches([DVec3::new(0.0, 0.0, 0.5)]));
        assert!(g.touches([DVec3::new(0.0, 0.0, 1.05)]));
        assert!(!g.touches([DVec3::new(0.0, 0.0, 1.2)]));
        assert!(Ground::resolve(&SupportRule::None, DVec3::ZERO).is_none());
    }
}
