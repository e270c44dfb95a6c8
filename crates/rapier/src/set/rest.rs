//! Rest detection by displacement: library pieces that stay in place come
//! to sleep even when their velocities never settle (issue 11, item 3).
//!
//! Rapier puts an island to sleep when every body's per-step displacement
//! stays under `0.05 m/s · dt` (twice that, by its halving) and its spin
//! under π/2 rad/s for half a second. Resting Voronoi debris does not
//! always get there. Measured on the demo's 49 chunks dropped one by one
//! onto the ground, 17 still moved more than 1 cm after 5 s (11 with
//! Rapier's default solver settings, 4 with sharp instead of round hulls;
//! angular damping of 5 s⁻¹ still left 14). In a 10 s demo run, 19 of 45
//! pieces moved more than 1 cm after 6 s, one creeping 6 cm a second.
//! Their contact manifolds (parry's polygonal-feature clipping of round
//! hulls) hold the face that was the support face when they were built;
//! a piece on an edge between two faces rocks onto the one not in the
//! manifold, sinks into the ground there and is pushed back out, every
//! swing; one piece sat in a two-step cycle between two poses 1 mm apart
//! at 0.8 rad/s. Rapier's per-step test never sees that as rest.
//!
//! Much of that rocking had one cause, found later: parry 0.31.1 built
//! the contact feature of a face of more than four vertices from its first
//! four, a sliver of a Voronoi cap, and a piece lying on it was held up at
//! one side. The workspace patches parry (vendor/README.md): on the demo
//! (Spot fractured with shared regions) without this rule, the pieces
//! moving more than 1 cm in the last second went from 9 of 45 to 1 of 45
//! (1.6 cm). The rule stays for what is left and for games built against
//! the unpatched crate.
//!
//! The rule, after Jolt Physics' sleep test (points of the body over a time
//! window rather than velocities): while the sleep sweep visits an awake
//! library body it keeps a reference pose; once every point within the
//! body's bounding radius `L` of its centre of mass has stayed within
//! [`REST_RADIUS`] of where it was in that pose for [`REST_TIME`], the body
//! is *at rest* and its Rapier sleep threshold is raised to
//! [`REST_SLEEP_THRESHOLD`], so Rapier's own test (and its island-level
//! decision: a piece touching an awake game body stays awake with it) puts
//! it to sleep half a second later. A point's displacement between poses
//! `(c₀, q₀)` and `(c, q)` is bounded by `|c − c₀| + L · 2 sin(θ/2)`, θ the
//! angle of `q q₀⁻¹`; when the bound exceeds [`REST_RADIUS`] the reference
//! moves to the current pose and the threshold goes back to Rapier's
//! default. A piece that travels farther than 20 cm in a second (sliding,
//! rolling, falling, carried) is never affected. Cost: O(1) per visit,
//! plus the body's colliders once when it is first seen (its radius).

use rapier3d::prelude::*;

/// Farthest any point of a piece may move during [`REST_TIME`], m, and
/// still count as at rest: 20 cm (the demo's rocking pieces swing up to
/// 11 cm; a bound of 10 cm left 4 of them moving in the last second).
pub const REST_RADIUS: f32 = 0.20;

/// How long a piece must stay within [`REST_RADIUS`] to be at rest, s: 1 s.
pub const REST_TIME: f32 = 1.0;

/// Rapier's sleep threshold (`normalized_linear_threshold`, m/s per
/// `length_unit`) of a body at rest by this rule: 0.8 m/s, Bullet's
/// default linear sleeping threshold (Rapier's own default is 0.05). A body
/// that jitters in place then passes Rapier's test, and its island sleeps
/// through Rapier's usual path.
pub const REST_SLEEP_THRESHOLD: f32 = 0.8;

/// Sets `rb`'s sleep threshold: [`REST_SLEEP_THRESHOLD`] while it is at
/// rest by this rule, Rapier's default otherwise (a body that moves again
/// gets the default back at its next visit). Touches the body only when
/// the threshold changes.
pub(crate) fn allow_sleep(physics: &mut PhysicsWorld, rb: RigidBodyHandle, at_rest: bool) {
    let want = if at_rest {
        REST_SLEEP_THRESHOLD
    } else {
        RigidBodyActivation::default_normalized_linear_threshold()
    };
    if let Some(b) = physics.bodies.get_mut(rb)
        && b.activation().normalized_linear_threshold != want
    {
        b.activation_mut().normalized_linear_threshold = want;
    }
}

/// What the rule remembers of one body.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct RestProbe {
    /// Handle generation of the body this probe belongs to.
    generation: u32,
    /// Bounding radius about the centre of mass, m.
    radius: f32,
    /// Reference centre of mass (world, m).
    center: glam::Vec3,
    /// Reference rotation.
    rotation: glam::Quat,
    /// Step index at which the reference was taken.
    since: u64,
}

/// Rest probes by body slot (deterministic: indexed by handle, no hashing).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct RestTracker {
    probes: Vec<Option<RestProbe>>,
}

impl RestTracker {
    /// Visits awake dynamic body `rb` at step `step`: updates its probe and
    /// answers whether it has been at rest for [`REST_TIME`] (the caller
    /// then lets Rapier put it to sleep, see [`allow_sleep`]).
    pub(crate) fn visit(&mut self, physics: &PhysicsWorld, rb: RigidBodyHandle, step: u64) -> bool {
        let Some(body) = physics.bodies.get(rb) else {
            return false;
        };
        let (index, generation) = rb.into_raw_parts();
        let index = index as usize;
        if self.probes.len() <= index {
            self.probes.resize(index + 1, None);
        }
        let center = body.center_of_mass();
        let rotation = *body.rotation();
        let probe = match &mut self.probes[index] {
            Some(p) if p.generation == generation => p,
            slot => {
                *slot = Some(RestProbe {
                    generation,
                    radius: bounding_radius(physics, body, center),
                    center,
                    rotation,
                    since: step,
                });
                return false;
            }
        };
        let turn = (rotation * probe.rotation.inverse()).normalize();
        // 2 sin(θ/2) = 2 |vector part| of the unit quaternion.
        let chord = 2.0 * turn.xyz().length().min(1.0);
        let moved = (center - probe.center).length() + probe.radius * chord;
        if !(moved <= REST_RADIUS) {
            probe.center = center;
            probe.rotation = rotation;
            probe.since = step;
            return false;
        }
        // A probe from a snapshot never starts after the current step unless
        // its bytes are corrupt: saturate rather than panic.
        step.saturating_sub(probe.since) as f32 * physics.integration_parameters.dt >= REST_TIME
    }

    /// Forgets the probe of `rb` (it fell asleep or left the set).
    pub(crate) fn forget(&mut self, rb: RigidBodyHandle) {
        let (index, generation) = rb.into_raw_parts();
        if let Some(slot) = self.probes.get_mut(index as usize)
            && slot.is_some_and(|p| p.generation == generation)
        {
            *slot = None;
        }
    }
}

/// Largest distance from `center` to a corner of the world bounding box of
/// any of the body's enabled colliders, m (an upper bound of its radius).
fn bounding_radius(physics: &PhysicsWorld, body: &RigidBody, center: glam::Vec3) -> f32 {
    let mut radius = 0.0f32;
    for &ch in body.colliders() {
        let Some(c) = physics.colliders.get(ch).filter(|c| c.is_enabled()) else {
            continue;
        };
        let aabb = c.compute_aabb();
        let far = (aabb.mins - center).abs().max((aabb.maxs - center).abs());
        radius = radius.max(far.length());
    }
    radius
}
