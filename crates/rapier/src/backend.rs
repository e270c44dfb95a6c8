//! The Rapier side of a commit: bodies built ahead (prepare) and swapped in
//! one step at the safe point (commit), DESIGN §3.7 and §4.

use crate::convert::{motion_of, to_rapier};
use crate::error::BackendError;
pub use crate::round_hull::MAX_BORDER_FRACTION;
use crate::round_hull::round_hull;
use crate::set::attachments::{Attachments, BodyTraits};
use crate::set::registry::{BodyOwner, Registry};
use crate::set::{ColliderTag, DestructionSettings, ExtraMass, InstanceHandle};
use glam::{Quat, Vec3};
use rapier3d::prelude::*;
use smithereens_core::budget::{ProxyDesc, Representation};
use smithereens_core::commit::{impulse_change, part_motion};
use smithereens_core::mass::{MassProperties as CoreMass, PrincipalAxes, child_local_pose};
use smithereens_core::{
    Asset, ChunkIndex, ClusterHandle, ClusterMotion, CommitBackend, CommitPlan, Instance,
};
use std::collections::BTreeMap;

/// Smallest volume a chunk hull may enclose, as a fraction of the cube on
/// its bounding-box diagonal (a 1 m hull must enclose 1 cm³; a cube encloses
/// 0.19 of that cube): below it the hull is flat or a point.
pub const MIN_HULL_VOLUME_FRACTION: f32 = 1e-6;

/// One collision shape per chunk, built once: the chunk's hulls (points
/// relative to the chunk centroid) as a convex shape or a compound of them.
///
/// With `border > 0` each hull becomes a *round* convex hull of radius
/// `r`: its face planes move `r` metres inwards and the polytope they
/// bound is inflated by `r` again. The shape touches every face of the
/// sharp hull and never crosses one; only edges and corners are rounded
/// off (a cube's corner by r(√3 − 1)). So two chunks that share a cut face
/// touch without overlapping when they separate, and neither is pushed
/// away. (Moving the vertices towards the centroid instead left the faces
/// 0.42 r outside the hull: neighbours overlapped by 4.2 mm and flew apart
/// at 0.28 m/s, issue 16.) A thin hull gets a smaller radius, at most
/// [`MAX_BORDER_FRACTION`] of the distance from its centroid to its
/// nearest face. A 5 mm sliver is rounded by 1.25 mm and its collider is
/// 5 mm thick. A collider never reaches further outside its sharp hull
/// than float rounding, [`HULL_EXTENT_TOLERANCE`] × the hull's size. A
/// hull the rounding cannot be built for stays sharp.
///
/// Why round at all: exactly coplanar faces of sharp hulls (stacked debris,
/// neighbouring Voronoi chunks) produce unstable one-point manifolds. A
/// stack of five sharp hull cubes settling from 1 mm reached 0.58 m/s; the
/// rounded one reached 0.09 m/s (as Rapier's cuboids do).
pub struct ChunkShapes {
    shapes: Vec<Option<SharedShape>>,
}

/// How far a chunk collider may reach outside its sharp hull, as a
/// fraction of the hull's size (its largest centroid-to-vertex distance):
/// 1e-5, i.e. 0.01 mm on a 1 m chunk. Rounding never adds size; this is
/// float rounding only (tested in `tests/border.rs`).
pub const HULL_EXTENT_TOLERANCE: f32 = 1e-5;

/// How far outside its hulls a chunk's declared centroid may lie, as a
/// fraction of the cube root of the hull volume (0.01, for rounding). The
/// centroid of any piece of material lies inside the convex hull of that
/// material, so a centroid outside every hull means the hulls and the mass
/// properties describe different things (e.g. hull points shifted 0.3 m on
/// a 0.5 m cube: the body would rest with its centre of mass outside its
/// shape, under the ground).
pub const HULL_CENTROID_TOLERANCE: f32 = 0.01;

/// Largest declared volume of a chunk as a multiple of the volume its
/// (sharp, possibly overlapping) hulls enclose: the material cannot exceed
/// its convex envelopes by more than rounding.
pub const HULL_VOLUME_TOLERANCE: f32 = 1.05;

impl ChunkShapes {
    /// Builds every chunk's shape.
    ///
    /// # Errors
    /// [`BackendError::DegenerateHull`] when a hull has no volume: its sharp
    /// convex hull encloses less than [`MIN_HULL_VOLUME_FRACTION`] of the
    /// cube on its bounding-box diagonal (four coplanar points, or points
    /// within 1e-20 m, once passed here as a flat, rounded plate);
    /// [`BackendError::HullMismatch`] when a chunk's hulls do not fit its
    /// declared mass properties (its centroid lies outside every hull, or
    /// for a chunk with several hulls outside the convex hull of all their
    /// points, by more than [`HULL_CENTROID_TOLERANCE`] × ∛(hull volume), or the chunk
    /// declares more than
    /// [`HULL_VOLUME_TOLERANCE`] × the volume its hulls enclose): such a
    /// body would rest with its centre of mass outside its shape.
    pub fn build(asset: &Asset, border: f32) -> Result<Self, BackendError> {
        let mut shapes = Vec::with_capacity(asset.chunk_count());
        for (i, chunk) in asset.chunks().iter_enumerated() {
            let mut parts = Vec::new();
            let (mut hull_volume, mut centroid_gap) = (0.0f32, f32::INFINITY);
            for hull in &chunk.hulls {
                let local: Vec<Vec3> = hull.points.iter().map(|p| *p - chunk.centroid).collect();
                let sharp = SharedShape::convex_hull(&local);
                let sharp_volume = sharp
                    .as_ref()
                    .map_or(0.0, |s| s.mass_properties(1.0).mass());
                if !(sharp_volume > MIN_HULL_VOLUME_FRACTION * chunk.volume) {
                    return Err(BackendError::DegenerateHull(i));
                }
                if let Some(s) = &sharp {
                    hull_volume += sharp_volume;
                    // The centroid (local origin) must lie in the material's convex envelope.
                    centroid_gap =
                        centroid_gap.min(s.as_ref().distance_to_local_point(Vec3::ZERO, true));
                }
                let round = sharp
                    .as_ref()
                    .and_then(|s| s.as_convex_polyhedron())
                    .and_then(|s| round_hull(s, border));
                let shape = round.or(sharp);
                let shape = shape.ok_or(BackendError::DegenerateHull(i))?;
                parts.push(shape);
            }
            if hull_volume > 0.0 && chunk.hulls.len() > 1 {
                // Several hulls (a decomposed concave chunk): the centroid
                // lies in the convex envelope of all of the material, which
                // may be between the parts (a U-shaped chunk's centroid is
                // in its gap), so measure against the hull of every point.
                let all: Vec<Vec3> = chunk
                    .hulls
                    .iter()
                    .flat_map(|h| h.points.iter().map(|p| *p - chunk.centroid))
                    .collect();
                if let Some(envelope) = SharedShape::convex_hull(&all) {
                    centroid_gap = envelope.as_ref().distance_to_local_point(Vec3::ZERO, true);
                }
            }
            if hull_volume > 0.0 {
                let offset = centroid_gap;
                let limit = HULL_CENTROID_TOLERANCE * hull_volume.cbrt();
                if !(offset <= limit && chunk.volume <= HULL_VOLUME_TOLERANCE * hull_volume) {
                    return Err(BackendError::HullMismatch {
                        chunk: i,
                        offset,
                        limit,
                        hull_volume,
                        volume: chunk.volume,
                    });
                }
            }
            shapes.push(match parts.len() {
                0 => None,
                1 => parts.pop(),
                _ => Some(SharedShape::compound(
                    parts
                        .into_iter()
                        .map(|s| (rapier3d::math::Pose::IDENTITY, s))
                        .collect(),
                )),
            });
        }
        Ok(Self { shapes })
    }

    /// The shape of chunk `c` (points relative to its centroid), `None` for a chunk without hulls.
    pub fn shape(&self, c: ChunkIndex) -> Option<&SharedShape> {
        self.shapes.get(c.0 as usize).and_then(|s| s.as_ref())
    }
}

/// What a cluster's body is made of.
pub struct BodySpec<'a> {
    /// Member chunks.
    pub nodes: &'a [ChunkIndex],
    /// Fixed to the world.
    pub supported: bool,
    /// Mass properties, asset space.
    pub mass: &'a CoreMass,
    /// Principal axes of `mass.inertia`.
    pub principal: &'a PrincipalAxes,
    /// Representation chosen by the budget (DESIGN §3.9).
    pub representation: Representation,
    /// The budget's proxies (for [`Representation::Proxy`]).
    pub proxies: &'a [ProxyDesc],
    /// The game's extra masses by chunk (see [`crate::set::ExtraMass`]).
    pub extra: &'a BTreeMap<ChunkIndex, ExtraMass>,
}

impl<'a> BodySpec<'a> {
    /// The body of core cluster `c`, with the instance's proxies and the
    /// game's extra masses.
    pub fn of_cluster(
        c: &'a smithereens_core::cluster::Cluster,
        proxies: &'a [ProxyDesc],
        extra: &'a BTreeMap<ChunkIndex, ExtraMass>,
    ) -> Self {
        Self {
            nodes: &c.nodes,
            supported: c.supported,
            mass: &c.mass,
            principal: &c.principal,
            representation: c.representation,
            proxies,
            extra,
        }
    }
}

/// The rigid body of a cluster with `collider_count` colliders (not
/// inserted): fixed when supported, otherwise dynamic with the explicit mass
/// properties of DESIGN §3.5 — its origin is the centre of mass, its local
/// inertia the principal moments in the principal frame (colliders carry
/// density 0).
///
/// A cluster without colliders is fixed too, supported or not: none of its
/// chunks has a hull (render-only chunks, see [`build_body`]), so as a
/// dynamic body it would fall through everything forever.
pub fn body_builder(spec: &BodySpec<'_>, collider_count: usize) -> RigidBodyBuilder {
    if spec.supported || collider_count == 0 {
        return RigidBodyBuilder::fixed();
    }
    RigidBodyBuilder::dynamic()
        .additional_mass_properties(body_mass_properties(spec))
        .ccd_enabled(false)
}

/// Mass properties of a dynamic cluster body in its own frame (origin at the
/// cluster's centre of mass, asset axes): the cluster's (DESIGN §3.5) plus
/// the game's extra point masses on its chunks, each at its asset-space
/// centre relative to the cluster's centre of mass (parallel-axis terms by
/// parry's `MassProperties` sum).
pub fn body_mass_properties(spec: &BodySpec<'_>) -> MassProperties {
    let mut mp = MassProperties::with_principal_inertia_frame(
        Vec3::ZERO,
        spec.mass.mass,
        spec.principal.moments,
        spec.principal.frame,
    );
    for (chunk, e) in spec.extra {
        if e.mass > 0.0 && spec.nodes.binary_search(chunk).is_ok() {
            mp += MassProperties::new(e.center - spec.mass.center, e.mass, Vec3::ZERO);
        }
    }
    mp
}

/// Local pose of chunk `n`'s collider in the body of a cluster with centre of
/// mass `center` (asset space). The body frame has asset axes rotated by the
/// body's rotation, so `R_cᵀ(cᵢ − c)`, `R_cᵀRᵢ` reduce to `(cᵢ − c, 1)`,
/// computed by [`child_local_pose`].
fn chunk_local_pose(asset: &Asset, n: ChunkIndex, center: Vec3) -> rapier3d::math::Pose {
    let c = asset.chunk(n).map_or(center, |c| c.centroid);
    let (t, r) = child_local_pose(center, Quat::IDENTITY, c, Quat::IDENTITY);
    rapier3d::math::Pose::from_parts(t, r)
}

/// Whose colliders are being built and with which settings.
#[derive(Copy, Clone)]
pub struct ColliderContext<'a> {
    /// The set's settings.
    pub settings: &'a DestructionSettings,
    /// The instance the colliders belong to.
    pub instance: InstanceHandle,
    /// Contact-force threshold (N) of the chunk colliders of the
    /// instance's supported bodies when its stress is on: they raise
    /// Rapier's contact-force events, the sustained loads of
    /// [`crate::set::load`]. `None`: stress is off, no force events.
    pub load_threshold: Option<f32>,
}

/// Finishes a collider with authoritative collision (a chunk or a proxy
/// piece): the chunk groups, kinematic ↔ fixed pairs, collision events,
/// and its tag.
fn authoritative(builder: ColliderBuilder, tag: ColliderTag, s: &DestructionSettings) -> Collider {
    builder
        .collision_groups(s.groups.chunks.to_rapier())
        .active_collision_types(AUTHORITATIVE_COLLISION_TYPES)
        .active_events(AUTHORITATIVE_EVENTS)
        .user_data(tag.encode(s.tag_mark))
        .build()
}

/// Contact pairs computed for authoritative chunk colliders: Rapier's
/// defaults plus kinematic ↔ fixed, so that a kinematic body (a character
/// controller, a scripted pusher) touching a fixed chunk is seen at all
/// (Rapier never solves such a pair, so it raises no contact force; see
/// [`crate::set::contact`]).
pub const AUTHORITATIVE_COLLISION_TYPES: ActiveCollisionTypes =
    ActiveCollisionTypes::DYNAMIC_DYNAMIC
        .union(ActiveCollisionTypes::DYNAMIC_KINEMATIC)
        .union(ActiveCollisionTypes::DYNAMIC_FIXED)
        .union(ActiveCollisionTypes::KINEMATIC_FIXED);

/// Events raised by authoritative chunk colliders: collision starts only
/// (they open the watch on a pair, see [`crate::set::contact`], and give
/// kinematic hits on fixed chunks). No contact-force events: a resting
/// pile would raise one per contact per step; impulses of watched pairs
/// are read from the narrow phase instead.
pub const AUTHORITATIVE_EVENTS: ActiveEvents = ActiveEvents::COLLISION_EVENTS;

/// A collider ready to insert, with the tag the registry records for it.
pub type TaggedCollider = (Collider, ColliderTag);

fn chunk_collider(
    shape: &SharedShape,
    pose: rapier3d::math::Pose,
    n: ChunkIndex,
    render_only: bool,
    cx: &ColliderContext<'_>,
) -> TaggedCollider {
    let s = cx.settings;
    let builder = ColliderBuilder::new(shape.clone())
        .position(pose)
        .density(0.0)
        .friction(s.friction)
        .restitution(s.restitution);
    if render_only {
        let tag = ColliderTag::RenderOnly {
            instance: cx.instance,
            chunk: n.0,
        };
        let c = builder
            .collision_groups(s.groups.render_debris.to_rapier())
            .active_events(ActiveEvents::empty())
            .user_data(tag.encode(s.tag_mark))
            .build();
        (c, tag)
    } else {
        let tag = ColliderTag::Chunk {
            instance: cx.instance,
            chunk: n.0,
        };
        (authoritative(builder, tag, s), tag)
    }
}

/// The colliders of an authored proxy: its convex pieces, tagged
/// [`ColliderTag::Proxy`] with the cluster's lowest chunk.
fn proxy_colliders(
    spec: &BodySpec<'_>,
    id: smithereens_core::budget::ProxyId,
    cx: &ColliderContext<'_>,
) -> Result<Vec<TaggedCollider>, BackendError> {
    let proxy = spec
        .proxies
        .get(id.0 as usize)
        .ok_or(BackendError::BadProxy(id.0))?;
    let first = spec.nodes.first().map_or(0, |n| n.0);
    let s = cx.settings;
    let tag = ColliderTag::Proxy {
        instance: cx.instance,
        chunk: first,
    };
    proxy
        .hulls
        .iter()
        .map(|hull| {
            let local: Vec<Vec3> = hull.points.iter().map(|p| *p - spec.mass.center).collect();
            let shape = SharedShape::convex_hull(&local).ok_or(BackendError::BadProxy(id.0))?;
            let builder = ColliderBuilder::new(shape)
                .density(0.0)
                .friction(s.friction)
                .restitution(s.restitution);
            Ok((authoritative(builder, tag, s), tag))
        })
        .collect()
}

/// Builds (without inserting) the body and child colliders of a cluster.
/// The representation decides the colliders: the chunks' hulls (`Body`),
/// the authored proxy's convex pieces (`Proxy`), or the chunks' hulls in
/// the render-debris groups, raising no contact events
/// (`RenderOnlyDebris`: no authoritative collision).
///
/// The set never builds a body for render-only debris any more: it is a
/// particle outside Rapier ([`crate::debris`], issue 12 item 7), made by
/// [`RapierCommit`] and [`crate::DestructionSet::spawn`]. The
/// `RenderOnlyDebris` branch serves callers that still want such a body
/// (and describes the render-only bodies of snapshots of format 9 and
/// older, which stay bodies when restored).
///
/// Chunks without hulls (render-only chunks, `ChunkDesc::hulls` empty)
/// get no collider. A body made only of such chunks is *fixed*: with
/// nothing to land on it cannot fall anywhere sensible. (The set makes
/// such a piece a particle held at rest where it broke off; the game finds
/// it in the step report's `render_only` list and may hide it, fade it out
/// or recycle it at once.) It never becomes a dynamic body without
/// colliders (issue 16).
///
/// # Errors
/// [`BackendError::BadProxy`] when a proxy is unknown or has a degenerate piece.
pub fn build_body(
    shapes: &ChunkShapes,
    asset: &Asset,
    spec: &BodySpec<'_>,
    cx: &ColliderContext<'_>,
) -> Result<(RigidBodyBuilder, Vec<TaggedCollider>), BackendError> {
    let mut colliders = match spec.representation {
        Representation::Proxy(id) => proxy_colliders(spec, id, cx)?,
        representation => {
            let render_only = representation == Representation::RenderOnlyDebris;
            spec.nodes
                .iter()
                .filter_map(|&n| {
                    let shape = shapes.shape(n)?;
                    Some(chunk_collider(
                        shape,
                        chunk_local_pose(asset, n, spec.mass.center),
                        n,
                        render_only,
                        cx,
                    ))
                })
                .collect()
        }
    };
    if spec.supported
        && let Some(threshold) = cx.load_threshold
    {
        for (c, tag) in &mut colliders {
            if tag.authoritative_chunk().is_some() {
                watch_loads(c, threshold);
            }
        }
    }
    Ok((body_builder(spec, colliders.len()), colliders))
}

/// Makes an authoritative chunk collider of a supported body raise
/// contact-force events above `threshold` N (its sustained loads feed the
/// instance's stress, see [`crate::set::load`]).
pub fn watch_loads(c: &mut Collider, threshold: f32) {
    c.set_active_events(AUTHORITATIVE_EVENTS | ActiveEvents::CONTACT_FORCE_EVENTS);
    c.set_contact_force_event_threshold(threshold);
}

/// Inserts a built body and its colliders, records them in the registry as
/// `cluster`'s, and makes its mass properties current.
pub fn insert_body(
    physics: &mut PhysicsWorld,
    registry: &mut Registry,
    owner: (InstanceHandle, ClusterHandle),
    builder: RigidBodyBuilder,
    colliders: Vec<TaggedCollider>,
) -> RigidBodyHandle {
    let rb = physics.insert_body(builder);
    let count = colliders.len() as u32;
    for (c, tag) in colliders {
        let ch = physics.insert_collider(c, Some(rb));
        registry.insert_collider(ch, tag);
    }
    // A fixed body has no use for mass properties before the step
    // recomputes them (Rapier does, for every body whose colliders
    // changed): skipping it saved 0.41 ms on a 1,152-chunk fixed remainder.
    if physics.bodies.get(rb).is_some_and(|b| !b.is_fixed()) {
        refresh_mass(physics, rb);
    }
    registry.insert_body(
        rb,
        BodyOwner {
            instance: owner.0,
            cluster: owner.1,
            colliders: count,
            ccd_by_library: false,
        },
    );
    rb
}

/// Removes a library body with every collider attached to it (the game's
/// too: move those first, see [`Attachments`]) and forgets them.
pub fn remove_body(physics: &mut PhysicsWorld, registry: &mut Registry, rb: RigidBodyHandle) {
    if let Some(body) = physics.bodies.get(rb) {
        for &ch in body.colliders() {
            registry.remove_collider(ch);
        }
    }
    registry.remove_body(rb);
    physics.remove_body_with_colliders(rb, true);
}

/// Makes a freshly inserted body's mass properties current now rather than
/// at the next step, so queries between the swap and the step see them
/// (Rapier recomputes them at the next step anyway: O(its colliders)).
pub fn refresh_mass(physics: &mut PhysicsWorld, rb: RigidBodyHandle) {
    let PhysicsWorld {
        bodies, colliders, ..
    } = physics;
    if let Some(body) = bodies.get_mut(rb) {
        body.recompute_mass_properties_from_colliders(colliders);
    }
}

/// Bodies prepared for one commit, one per part in plan order (splits,
/// then parts).
pub struct PreparedBodies {
    parts: Vec<PreparedPart>,
}

/// What one part of a commit becomes.
enum PreparedPart {
    /// The remainder keeps its body (see [`keeps_body`]).
    Kept,
    /// A new Rapier body and its colliders.
    Body(RigidBodyBuilder, Vec<TaggedCollider>),
    /// Render-only debris: a particle outside Rapier ([`crate::debris`])
    /// with these support points.
    Debris(Vec<Vec3>),
}

/// Whether the remainder `part` of a split of the cluster whose body is
/// `old` keeps that body (issue 12 item 5): only the departing chunks'
/// colliders leave it, new bodies are built for the other pieces only, and
/// the kept body's mass properties are updated rather than rebuilt.
///
/// It does when the body is made of chunk hulls and stays so (the
/// remainder is a [`Representation::Body`] and the old body's library
/// colliders are chunk colliders, not an authored proxy's pieces or
/// render-only debris), and the remainder has more chunks than all the
/// pieces that leave together: keeping saves building the remainder's
/// colliders at the price of removing the leaving ones, and Rapier finds
/// each leaving collider in the body's collider list (O(leaving ×
/// colliders)), so when half or more of a body leaves, building the
/// remainder afresh is as cheap or cheaper. O(parts).
pub fn keeps_body(
    physics: &PhysicsWorld,
    registry: &Registry,
    old: RigidBodyHandle,
    split: &smithereens_core::commit::SplitPlan,
) -> bool {
    let Some(kept) = split.parts.first().filter(|p| p.kept) else {
        return false;
    };
    if kept.representation != Representation::Body {
        return false;
    }
    let leaving: usize = split.parts[1..].iter().map(|p| p.nodes.len()).sum();
    if kept.nodes.len() <= leaving {
        return false;
    }
    let Some(body) = physics.bodies.get(old) else {
        return false;
    };
    // Every library collider of a body has the same kind; the first one found tells.
    body.colliders()
        .iter()
        .find_map(|&c| registry.collider(c))
        .is_some_and(|t| matches!(t, ColliderTag::Chunk { .. }))
}

/// The [`CommitBackend`] over one instance of a set in the game's Rapier world.
pub struct RapierCommit<'a> {
    /// The physics world.
    pub physics: &'a mut PhysicsWorld,
    /// The instance's cluster → body map, updated by the commit.
    pub bodies: &'a mut BTreeMap<ClusterHandle, RigidBodyHandle>,
    /// The instance's render-only debris (clusters without a body), updated
    /// by the commit.
    pub debris: &'a mut crate::debris::RenderDebris,
    /// The set's ownership tables, updated by the commit.
    pub registry: &'a mut Registry,
    /// Per-chunk shapes.
    pub shapes: &'a ChunkShapes,
    /// Collider settings and owner.
    pub cx: ColliderContext<'a>,
    /// Test hook: while positive, `prepare` fails and decrements it.
    pub fail_prepare: &'a mut u32,
    /// The instance's authored proxies.
    pub proxies: &'a [ProxyDesc],
    /// Game joints and colliders moved by the commit (old → new handles).
    pub moved: &'a mut Attachments,
    /// The game's extra masses by chunk.
    pub extra: &'a BTreeMap<ChunkIndex, ExtraMass>,
    /// Whether a remainder may keep its body ([`keeps_body`]). Off inside a
    /// re-run step ([`crate::set::rerun`]): it rewinds the bodies but not
    /// the narrow phase, so a kept body's contact manifolds would carry the
    /// contacts and impulses of the discarded step. (With keeping on there,
    /// the built-in wall's 450 kg ball left a freed piece stuck in the hole
    /// and a chunk dipped 5.04 cm into the ground; that the manifolds are
    /// the cause is inferred, not shown.)
    pub keep_bodies: bool,
}

impl RapierCommit<'_> {
    /// The remainder `part` keeps body `rb`: the `leaving` colliders leave
    /// it ([`crate::detach::leave_body`]), its origin moves to the
    /// remainder's centre of mass (the colliders that stay do not move in
    /// the world), its mass properties become the remainder's, and it turns
    /// dynamic in place when it lost its support (or fixed when it gained
    /// one). Every material point keeps its velocity; the plan's impulses
    /// on the remainder are added. Returns the motion to record (without
    /// the impulses, as for new pieces). Cost: O(leaving × colliders of the
    /// body) in Rapier, O(colliders of the body) for the recentring.
    fn keep_body(
        &mut self,
        rb: RigidBodyHandle,
        part: &smithereens_core::commit::SplitPart,
        plan: &CommitPlan,
        old: (ClusterMotion, Vec3),
        leaving: &[ColliderHandle],
    ) -> ClusterMotion {
        let spec = BodySpec {
            nodes: &part.nodes,
            supported: part.supported,
            mass: &part.mass,
            principal: &part.principal,
            representation: part.representation,
            proxies: self.proxies,
            extra: self.extra,
        };
        let mut owner = self.registry.body(rb);
        // The game's colliders were taken off already: what is attached is ours.
        let attached = self
            .physics
            .bodies
            .get(rb)
            .map_or(0, |b| b.colliders().len());
        let staying = attached.saturating_sub(leaving.len()) as u32;
        // Fixed: supported, or nothing left to collide with (see `body_builder`).
        let fixed = part.supported || staying == 0;
        let mass = if fixed {
            MassProperties::default()
        } else {
            body_mass_properties(&spec)
        };
        let recentre = part.mass.center - old.1;
        let kind = if fixed {
            RigidBodyType::Fixed
        } else {
            RigidBodyType::Dynamic
        };
        // The type first: `leave_body` brings a dynamic body's mass
        // properties up to date (a fixed one's at the next step).
        if let Some(body) = self.physics.bodies.get_mut(rb) {
            body.set_body_type(kind, true);
        }
        crate::detach::leave_body(
            self.physics,
            rb,
            leaving,
            crate::detach::Leaving::Removed { mass, recentre },
        );
        for &c in leaving {
            self.registry.remove_collider(c);
        }
        let mut recorded = part_motion(old.0, old.1, part);
        if fixed {
            recorded.velocity = Default::default();
        }
        let mut motion = recorded;
        if !fixed {
            for imp in plan.impulses.iter().filter(|i| i.target == part.handle) {
                let dv = impulse_change(&part.mass, &motion, imp);
                motion.velocity.linear += dv.linear;
                motion.velocity.angular += dv.angular;
            }
        }
        let ccd_speed = self.cx.settings.ccd_speed;
        if !fixed && let Some(body) = self.physics.bodies.get_mut(rb) {
            body.set_linvel(motion.velocity.linear, true);
            body.set_angvel(motion.velocity.angular, true);
            // Fast pieces get CCD at once (see `DestructionSettings::ccd_speed`).
            if !body.is_ccd_enabled() && motion.velocity.linear.length() > ccd_speed {
                body.enable_ccd(true);
                if let Some(o) = owner.as_mut() {
                    o.ccd_by_library = true;
                }
            }
        }
        if let Some(mut o) = owner {
            o.colliders = staying;
            self.registry.insert_body(rb, o);
        }
        recorded
    }
}

impl RapierCommit<'_> {
    /// Render-only piece `part` becomes a particle ([`crate::debris`]) with
    /// the motion a body would get: the old cluster's rigid velocity field
    /// at its centre of mass, plus the plan's impulses on it. Returns the
    /// motion to record (without the impulses, as for bodies; at rest for a
    /// piece without hulls, which is held where it broke off).
    fn insert_debris(
        &mut self,
        part: &smithereens_core::commit::SplitPart,
        plan: &CommitPlan,
        old: (ClusterMotion, Vec3),
        support: Vec<Vec3>,
    ) -> ClusterMotion {
        let mut recorded = part_motion(old.0, old.1, part);
        if support.is_empty() {
            recorded.velocity = Default::default();
        }
        let mut motion = recorded;
        for imp in plan.impulses.iter().filter(|i| i.target == part.handle) {
            let dv = impulse_change(&part.mass, &motion, imp);
            motion.velocity.linear += dv.linear;
            motion.velocity.angular += dv.angular;
        }
        self.debris.insert(
            crate::debris::ParticleState {
                cluster: part.handle,
                pose: motion.pose,
                linvel: motion.velocity.linear,
                angvel: motion.velocity.angular,
                asleep: false,
            },
            support,
        );
        recorded
    }
}

impl CommitBackend for RapierCommit<'_> {
    type Prepared = PreparedBodies;
    type Error = BackendError;

    fn prepare(
        &mut self,
        asset: &Asset,
        plan: &CommitPlan,
    ) -> Result<PreparedBodies, BackendError> {
        if *self.fail_prepare > 0 {
            *self.fail_prepare -= 1;
            return Err(BackendError::Injected("prepare"));
        }
        let mut parts = Vec::with_capacity(plan.new_cluster_count());
        for split in &plan.splits {
            let keep = self.keep_bodies
                && self
                    .bodies
                    .get(&split.old)
                    .is_some_and(|&rb| keeps_body(self.physics, self.registry, rb, split));
            for (k, p) in split.parts.iter().enumerate() {
                if keep && k == 0 {
                    parts.push(PreparedPart::Kept);
                    continue;
                }
                if p.representation == Representation::RenderOnlyDebris {
                    parts.push(PreparedPart::Debris(crate::debris::support_points(
                        asset,
                        &p.nodes,
                        p.mass.center,
                    )));
                    continue;
                }
                let spec = BodySpec {
                    nodes: &p.nodes,
                    supported: p.supported,
                    mass: &p.mass,
                    principal: &p.principal,
                    representation: p.representation,
                    proxies: self.proxies,
                    extra: self.extra,
                };
                let (builder, colliders) = build_body(self.shapes, asset, &spec, &self.cx)?;
                parts.push(PreparedPart::Body(builder, colliders));
            }
        }
        Ok(PreparedBodies { parts })
    }

    fn commit(
        &mut self,
        prepared: PreparedBodies,
        plan: &CommitPlan,
        instance: &Instance,
        motions: &mut Vec<ClusterMotion>,
    ) -> Result<(), BackendError> {
        // Validate everything first: after this loop nothing can fail, so the
        // swap below is all-or-nothing.
        let mut olds = Vec::with_capacity(plan.splits.len());
        let mut at = 0;
        for split in &plan.splits {
            let keep = matches!(prepared.parts.get(at), Some(PreparedPart::Kept));
            at += split.parts.len();
            let cluster = instance
                .cluster(split.old)
                .ok_or(BackendError::MissingBody(split.old))?;
            let Some(&rb) = self.bodies.get(&split.old) else {
                // Render-only debris splitting: its particle's motion.
                let particle = self
                    .debris
                    .get(split.old)
                    .ok_or(BackendError::MissingBody(split.old))?;
                olds.push((
                    None,
                    particle.motion(),
                    cluster.mass.center,
                    BodyTraits::default(),
                    None,
                    false,
                ));
                continue;
            };
            let body = self
                .physics
                .bodies
                .get(rb)
                .ok_or(BackendError::MissingBody(split.old))?;
            // The old body's *current* motion, read at the safe point.
            let mut motion = motion_of(body);
            if !body.is_dynamic() {
                motion.velocity = Default::default();
            }
            let mut traits = BodyTraits::of(body);
            // CCD the library turned on for speed is not the game's choice.
            if self.registry.body(rb).is_some_and(|o| o.ccd_by_library) {
                traits.ccd = false;
            }
            // The colliders that leave a kept body: its chunk colliders whose
            // chunk is not the remainder's (nodes ascending). O(colliders).
            let leaving = keep.then(|| {
                let kept = &split.parts[0].nodes;
                body.colliders()
                    .iter()
                    .copied()
                    .filter(|&c| match self.registry.collider(c) {
                        Some(ColliderTag::Chunk { chunk, .. }) => {
                            kept.binary_search(&ChunkIndex(chunk)).is_err()
                        }
                        _ => false,
                    })
                    .collect::<Vec<_>>()
            });
            // A kept body that loses its support and starts to fall wakes
            // everything it touches, like a rebuilt one.
            let falls = body.is_fixed() && !split.parts[0].supported;
            olds.push((
                Some(rb),
                motion,
                cluster.mass.center,
                traits,
                leaving,
                falls,
            ));
        }
        for imp in &plan.impulses {
            let split_target = plan
                .splits
                .iter()
                .any(|s| s.parts.iter().any(|p| p.handle == imp.target));
            if !split_target
                && !self.bodies.contains_key(&imp.target)
                && !self.debris.contains(imp.target)
            {
                return Err(BackendError::MissingBody(imp.target));
            }
        }

        // Bodies touching the old ones must wake up when their support changes.
        // A kept body wakes what touched its leaving colliders only (the rest
        // of it still holds up what rests on it), unless it starts to fall.
        let mut to_wake = Vec::new();
        for (rb, .., leaving, falls) in &olds {
            if let Some(body) = rb.and_then(|rb| self.physics.bodies.get(rb)) {
                let colliders = match leaving {
                    Some(l) if !falls => &l[..],
                    _ => body.colliders(),
                };
                for &ch in colliders {
                    for pair in self.physics.narrow_phase.contact_pairs_with(ch) {
                        let other = if pair.collider1 == ch {
                            pair.collider2
                        } else {
                            pair.collider1
                        };
                        if let Some(parent) =
                            self.physics.colliders.get(other).and_then(|c| c.parent())
                        {
                            to_wake.push(parent);
                        }
                    }
                }
            }
        }

        motions.reserve(prepared.parts.len());
        let mut prepared = prepared.parts.into_iter();
        // Old bodies leave with their colliders and new ones arrive with theirs
        // in this one safe-point window; a remainder that keeps its body only
        // loses the leaving colliders (`keep_body`). (Re-parenting the old
        // chunk colliders instead saved ~0.6 ms on a 2,000-chunk split but
        // left Rapier's recycled contact manifolds pointing at the old body
        // frame: chunks sank 9 cm into the ground in the bridge scenario.
        // Keeping a body without moving its origin to the remainder's centre
        // of mass put the next split's pieces off by the centroid shift:
        // the built-in tower's pieces reached −57 cm, see `tests/kept_body.rs`.)
        for (split, (old_rb, old_motion, old_center, traits, leaving, _)) in
            plan.splits.iter().zip(olds)
        {
            // The game's joints and colliders on the old body leave it first
            // and are re-attached to the piece holding their anchor chunk
            // (the kept body is one of the candidates). Render-only debris
            // has none: its particle just goes.
            let detached = match old_rb {
                Some(rb) => {
                    let detached = crate::set::attachments::detach(self.physics, self.registry, rb);
                    if leaving.is_none() {
                        remove_body(self.physics, self.registry, rb);
                        self.bodies.remove(&split.old);
                    }
                    Some(detached)
                }
                None => {
                    self.debris.remove(split.old);
                    None
                }
            };
            let mut new_bodies = Vec::with_capacity(split.parts.len());
            for part in &split.parts {
                let Some(next) = prepared.next() else {
                    break;
                };
                let (builder, colliders) = match next {
                    PreparedPart::Body(builder, colliders) => (builder, colliders),
                    PreparedPart::Kept => {
                        // The remainder keeps its body (only ever a body's).
                        let Some(old_rb) = old_rb else { continue };
                        let leaving = leaving.as_deref().unwrap_or_default();
                        let recorded =
                            self.keep_body(old_rb, part, plan, (old_motion, old_center), leaving);
                        new_bodies.push((old_rb, &part.nodes[..], part.mass.center));
                        motions.push(recorded);
                        continue;
                    }
                    PreparedPart::Debris(support) => {
                        motions.push(self.insert_debris(
                            part,
                            plan,
                            (old_motion, old_center),
                            support,
                        ));
                        continue;
                    }
                };
                // Fixed: supported, or nothing to collide with (see `body_builder`).
                let fixed = part.supported || colliders.is_empty();
                let mut motion = part_motion(old_motion, old_center, part);
                if fixed {
                    motion.velocity = Default::default();
                } else {
                    for imp in plan.impulses.iter().filter(|i| i.target == part.handle) {
                        let dv = impulse_change(&part.mass, &motion, imp);
                        motion.velocity.linear += dv.linear;
                        motion.velocity.angular += dv.angular;
                    }
                }
                let builder = builder
                    .pose(to_rapier(&motion.pose))
                    .linvel(motion.velocity.linear)
                    .angvel(motion.velocity.angular);
                // Fast new pieces get CCD at once (see `DestructionSettings::ccd_speed`).
                let fast = !fixed
                    && !traits.ccd
                    && motion.velocity.linear.length() > self.cx.settings.ccd_speed;
                let builder = if fixed {
                    builder
                } else {
                    traits.apply(builder).ccd_enabled(traits.ccd || fast)
                };
                let rb = insert_body(
                    self.physics,
                    self.registry,
                    (self.cx.instance, part.handle),
                    builder,
                    colliders,
                );
                if fast && let Some(mut o) = self.registry.body(rb) {
                    o.ccd_by_library = true;
                    self.registry.insert_body(rb, o);
                }
                self.bodies.insert(part.handle, rb);
                new_bodies.push((rb, &part.nodes[..], part.mass.center));
                // Record the motion without the impulse: the instance adds it when publishing.
                let mut recorded = part_motion(old_motion, old_center, part);
                if fixed {
                    recorded.velocity = Default::default();
                }
                motions.push(recorded);
            }
            if let Some(detached) = detached {
                crate::set::attachments::reattach(
                    self.physics,
                    self.shapes,
                    instance.asset(),
                    (old_motion, old_center),
                    &new_bodies,
                    detached,
                    self.moved,
                );
            }
        }
        // Impulses on clusters that did not split.
        for imp in &plan.impulses {
            if plan
                .splits
                .iter()
                .any(|s| s.parts.iter().any(|p| p.handle == imp.target))
            {
                continue;
            }
            let Some(cluster) = instance.cluster(imp.target) else {
                continue;
            };
            let Some(&rb) = self.bodies.get(&imp.target) else {
                if let Some(p) = self.debris.get(imp.target) {
                    let dv = impulse_change(&cluster.mass, &p.motion(), imp);
                    self.debris.add_velocity(imp.target, dv);
                }
                continue;
            };
            if let Some(body) = self.physics.bodies.get_mut(rb).filter(|b| b.is_dynamic()) {
                let dv = impulse_change(&cluster.mass, &motion_of(body), imp);
                body.set_linvel(body.linvel() + dv.linear, true);
                body.set_angvel(body.angvel() + dv.angular, true);
            }
        }
        to_wake.sort_by_key(|h| h.into_raw_parts());
        to_wake.dedup();
        for h in to_wake {
            if self.physics.bodies.contains(h) {
                self.physics.wake_up(h, true);
            }
        }
        Ok(())
    }
}
