//! How a loose piece at rest is held: supported from below, or wedged in
//! the structure it broke from (issue 11, item 3).
//!
//! A Voronoi piece whose bonds have all broken can still be locked in its
//! hole by the tilted faces of the fixed neighbours it broke from. Physics
//! may well hold it so; what must not happen is that it stays there as a
//! silent dynamic body. When the sleep sweep sees a library piece fall
//! asleep it classifies how the piece is held, and a wedged one is
//! reported ([`super::InstanceReport::wedged`]).
//!
//! The rule (O(the piece's chunks + contact pairs)):
//! - **wedged**: it is still within [`LEFT_HOLE`] of where its instance
//!   placed it (it never left the hole it broke from: its fixed neighbours
//!   do not move) and it touches a fixed chunk of its own instance, however
//!   it is held there (tilted faces, friction, the chunk below it);
//! - **supported**: otherwise, some contact pushes it up, i.e. its normal on
//!   the piece is within 45° of straight up (against gravity): it rests on
//!   the ground, a ledge or another piece;
//! - **loose**: neither (held by game bodies, or not touching anything).

use super::InstanceHandle;
use super::registry::Registry;
use rapier3d::prelude::*;

/// Cosine of the steepest contact normal that still supports a piece from
/// below: 45° from straight up.
pub const SUPPORT_COS: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// How a library piece is held (see the module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Hold {
    /// A contact within 45° of straight up carries it.
    Supported,
    /// It never left the hole it broke from and touches the fixed chunks
    /// of its own instance.
    Wedged,
    /// Neither wedged nor carried from below.
    Loose,
}

/// Least distance, m, a piece's chunks must have moved from where the
/// instance placed them to have left the hole they broke from: 5 cm.
pub const LEFT_HOLE: f32 = 0.05;

/// How dynamic body `rb` of instance `h` is held now, given how far its
/// chunks have `moved` (m, the largest centroid displacement from the
/// instance's placement; see the module docs); `None` for a missing or
/// non-dynamic body, or without gravity.
pub(crate) fn hold_of(
    physics: &PhysicsWorld,
    registry: &Registry,
    h: InstanceHandle,
    rb: RigidBodyHandle,
    moved: f32,
) -> Option<Hold> {
    let body = physics.bodies.get(rb).filter(|b| b.is_dynamic())?;
    let up = (-physics.gravity).try_normalize()?;
    let (mut own_fixed, mut supported) = (false, false);
    for &ch in body.colliders() {
        for pair in physics.narrow_phase.contact_pairs_with(ch) {
            if !pair.has_any_active_contact() {
                continue;
            }
            // Each manifold's normal points from collider 1 to collider 2.
            let (other, sign) = if pair.collider1 == ch {
                (pair.collider2, -1.0)
            } else {
                (pair.collider1, 1.0)
            };
            supported |= pair
                .manifolds()
                .iter()
                .any(|m| !m.points.is_empty() && (m.data.normal * sign).dot(up) >= SUPPORT_COS);
            let fixed = physics
                .colliders
                .get(other)
                .and_then(|c| c.parent())
                .and_then(|p| physics.bodies.get(p))
                .is_none_or(|b| b.is_fixed());
            own_fixed |= fixed && registry.collider(other).is_some_and(|t| t.instance() == h);
        }
    }
    Some(if own_fixed && moved < LEFT_HOLE {
        Hold::Wedged
    } else if supported {
        Hold::Supported
    } else {
        Hold::Loose
    })
}
