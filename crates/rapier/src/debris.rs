//! Render-only debris outside Rapier (issue 12 item 7).
//!
//! A piece the body budget leaves without a slot
//! ([`Representation::RenderOnlyDebris`](smithereens_core::budget::Representation))
//! is no Rapier body: it is one *particle* of its instance's
//! [`RenderDebris`], a rigid pose and velocity the library integrates
//! itself at every safe point, which the renderer and the recorder read
//! like a body's ([`crate::DestructionSet::cluster_asset_pose`]). A
//! particle starts with the motion a body would have (the parent's rigid
//! velocity field, `v + ω × (x − c)`, plus the commit's impulses on it),
//! falls under the world's gravity and lands on one horizontal ground
//! plane ([`DebrisSettings::ground_y`]); it touches nothing else (no
//! chunk, no game body, no query), so it never changes the authoritative
//! simulation.
//!
//! # The rule, per safe point (`dt` s, gravity `g` m/s²)
//! 1. A sleeping particle does nothing.
//! 2. Semi-implicit Euler: `v ← v + g·dt`, `x ← x + v·dt` (x: centre of
//!    mass, m), and the first-order quaternion update
//!    `q ← normalize(q + ½·dt·(ω, 0)·q)` (ω rad/s, world axes). It uses only
//!    `+ − × ÷ √`, which IEEE 754 rounds the same everywhere, so particles
//!    move bit-identically on every platform (no `sin`/`cos` from the
//!    platform's maths library); its error, ≈ (|ω|·dt)²/8 rad per step, is
//!    invisible on cosmetic debris (20 rad/s at 60 Hz: 0.014 rad/s drift).
//! 3. Ground (when [`DebrisSettings::ground_y`] is set): the lowest of the
//!    particle's support points (its chunks' hull vertices) is found; if it
//!    is below the plane, the particle is lifted straight up until it rests
//!    exactly on it (never below), and its velocity changes like a contact
//!    impulse: an incoming normal speed `u` faster than
//!    [`DebrisSettings::bounce_speed`] bounces back at `e·u`
//!    ([`DebrisSettings::restitution`]), a slower one stops; the normal
//!    speed change `Δ` (m/s) then takes Coulomb friction off the horizontal
//!    speed (`|v_h| ← max(0, |v_h| − μ·Δ)`, [`DebrisSettings::friction`])
//!    and off the spin as surface speed at the particle's radius `r` (its
//!    farthest support point from the centre of mass: `|ω| ← max(0, |ω| −
//!    μ·Δ / r)`). A particle resting on the plane sees `Δ = g·dt` every
//!    step, so it slides to a stop like a box with friction `μ`.
//! 4. A particle touching the ground slower than
//!    [`DebrisSettings::sleep_speed`] and spinning slower than
//!    [`DebrisSettings::sleep_spin`] falls asleep at once (velocities set
//!    to zero). Sleeping debris enters the set's recycling like sleeping
//!    bodies ([`crate::DestructionSettings::recycle`]).
//!
//! Orientation is not settled by the ground: a piece may come to rest on
//! an edge or a corner (it is drawn, not simulated). A particle whose
//! chunks have no hull (nothing to land with) is held at rest where it
//! broke off, asleep from the start (as its fixed collider-less body was
//! before, issue 16). Explosions push particles as they push bodies, at the
//! particle's hull vertex nearest the blast (not the nearest surface point:
//! a particle has vertices, not faces), with the same falloff and caps
//! (`RenderDebris::push`); so do the impulses a game body's hit hands to
//! the piece it frees. Without a ground plane a particle falls forever, as
//! a body with nothing under it would.
//!
//! # Storage and cost
//! Particles are kept sorted by cluster handle in one `Vec` per instance
//! (stable order, no hashing); each owns its support points (asset hull
//! vertices relative to the centre of mass, asset axes), built once when
//! it is made and rebuilt from the asset on restore, so snapshots store
//! only poses, velocities and sleep flags. A step is O(awake particles ×
//! their support points), zero when none is awake, and allocates nothing.

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};
use smithereens_core::{Asset, ChunkIndex, ClusterHandle, ClusterMotion, Pose, Velocity};

/// How render-only debris moves (see the module docs for the rule). SI units.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DebrisSettings {
    /// Height (world y, m) of the horizontal plane render-only debris lands
    /// on; `None`: no ground, debris falls freely. Default `Some(0.0)`.
    /// [`crate::DestructionWorld`] sets it to its own ground's height
    /// ([`crate::WorldSettings::ground_y`]).
    pub ground_y: Option<f32>,
    /// Coulomb friction coefficient against the ground (≥ 0, unitless;
    /// default 0.7, as chunk colliders).
    pub friction: f32,
    /// Restitution against the ground (in [0, 1]; default 0.1).
    pub restitution: f32,
    /// Incoming normal speed below which a particle stops instead of
    /// bouncing, m/s (≥ 0; default 1).
    pub bounce_speed: f32,
    /// Linear speed below which a particle on the ground falls asleep, m/s
    /// (≥ 0; default 0.05).
    pub sleep_speed: f32,
    /// Angular speed below which a particle on the ground falls asleep,
    /// rad/s (≥ 0; default 0.1).
    pub sleep_spin: f32,
}

impl Default for DebrisSettings {
    fn default() -> Self {
        Self {
            ground_y: Some(0.0),
            friction: 0.7,
            restitution: 0.1,
            bounce_speed: 1.0,
            sleep_speed: 0.05,
            sleep_spin: 0.1,
        }
    }
}

impl DebrisSettings {
    /// Checks ranges.
    ///
    /// # Errors
    /// [`crate::BackendError::BadSetting`] naming the first bad field.
    pub fn validate(&self) -> Result<(), crate::BackendError> {
        let bad = |name, value, reason| {
            Err(crate::BackendError::BadSetting {
                name,
                value,
                reason,
            })
        };
        if let Some(y) = self.ground_y.filter(|y| !y.is_finite()) {
            return bad("debris ground_y", y, "finite");
        }
        if !(self.restitution.is_finite() && (0.0..=1.0).contains(&self.restitution)) {
            return bad("debris restitution", self.restitution, "in [0, 1]");
        }
        for (name, v) in [
            ("debris friction", self.friction),
            ("debris bounce_speed", self.bounce_speed),
            ("debris sleep_speed", self.sleep_speed),
            ("debris sleep_spin", self.sleep_spin),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return bad(name, v, "finite and ≥ 0");
            }
        }
        Ok(())
    }
}

/// The state of one render-only piece that a snapshot keeps.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParticleState {
    /// The cluster it stands for.
    pub cluster: ClusterHandle,
    /// World pose of its body frame (origin at the centre of mass, asset
    /// axes rotated), m.
    pub pose: Pose,
    /// Linear velocity of the centre of mass, m/s.
    pub linvel: Vec3,
    /// Angular velocity, rad/s, world axes.
    pub angvel: Vec3,
    /// Resting on the ground (or held where it broke off): not integrated.
    pub asleep: bool,
}

/// One render-only piece (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct DebrisParticle {
    state: ParticleState,
    /// Hull vertices relative to the centre of mass, asset axes, m.
    support: Vec<Vec3>,
    /// Largest `|support|`, m (≥ 1 mm).
    radius: f32,
}

impl DebrisParticle {
    /// The cluster it stands for.
    pub fn cluster(&self) -> ClusterHandle {
        self.state.cluster
    }
    /// Its state (pose, velocities, sleep).
    pub fn state(&self) -> &ParticleState {
        &self.state
    }
    /// Its motion, as a body's would be reported.
    pub fn motion(&self) -> ClusterMotion {
        ClusterMotion {
            pose: self.state.pose,
            velocity: Velocity {
                linear: self.state.linvel,
                angular: self.state.angvel,
            },
        }
    }
    /// True while it rests.
    pub fn is_asleep(&self) -> bool {
        self.state.asleep
    }
    /// Lowest world y of its support points, m; `None` for a piece without hulls.
    pub fn lowest_point(&self) -> Option<f32> {
        lowest(&self.support, &self.state.pose)
    }
}

fn lowest(support: &[Vec3], pose: &Pose) -> Option<f32> {
    support
        .iter()
        .map(|&p| (pose.rotation * p).y + pose.translation.y)
        .reduce(f32::min)
}

/// The support points of a piece made of `nodes` with centre of mass
/// `center` (asset space, m): every hull vertex of its chunks relative to
/// the centre, in node order.
pub fn support_points(asset: &Asset, nodes: &[ChunkIndex], center: Vec3) -> Vec<Vec3> {
    nodes
        .iter()
        .filter_map(|&n| asset.chunk(n))
        .flat_map(|c| c.hulls.iter().flat_map(|h| h.points.iter()))
        .map(|&p| p - center)
        .collect()
}

/// The render-only debris of one instance, sorted by cluster handle (see
/// the module docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RenderDebris {
    particles: Vec<DebrisParticle>,
    /// Particles not asleep.
    awake: u32,
}

impl RenderDebris {
    /// Particles in cluster-handle order.
    pub fn particles(&self) -> &[DebrisParticle] {
        &self.particles
    }
    /// Number of particles.
    pub fn len(&self) -> usize {
        self.particles.len()
    }
    /// True with no particle.
    pub fn is_empty(&self) -> bool {
        self.particles.is_empty()
    }
    /// Particles not asleep.
    pub fn awake(&self) -> u32 {
        self.awake
    }
    /// The particle of cluster `c`. O(log n).
    pub fn get(&self, c: ClusterHandle) -> Option<&DebrisParticle> {
        self.find(c).ok().map(|i| &self.particles[i])
    }
    /// True when cluster `c` is a particle here.
    pub fn contains(&self, c: ClusterHandle) -> bool {
        self.find(c).is_ok()
    }

    fn find(&self, c: ClusterHandle) -> Result<usize, usize> {
        self.particles.binary_search_by_key(&c, |p| p.state.cluster)
    }

    /// Adds (or replaces) the particle of cluster `state.cluster` with its
    /// support points. A particle without support points (no hull) is
    /// held at rest: asleep with zero velocity.
    pub(crate) fn insert(&mut self, mut state: ParticleState, support: Vec<Vec3>) {
        if support.is_empty() {
            state.asleep = true;
            state.linvel = Vec3::ZERO;
            state.angvel = Vec3::ZERO;
        }
        let radius = support.iter().map(|p| p.length()).fold(1e-3f32, f32::max);
        let p = DebrisParticle {
            state,
            support,
            radius,
        };
        match self.find(state.cluster) {
            Ok(i) => {
                if !self.particles[i].state.asleep {
                    self.awake -= 1;
                }
                self.particles[i] = p;
            }
            Err(i) => self.particles.insert(i, p),
        }
        if !state.asleep {
            self.awake += 1;
        }
    }

    /// Removes the particle of cluster `c`; returns it.
    pub(crate) fn remove(&mut self, c: ClusterHandle) -> Option<DebrisParticle> {
        let i = self.find(c).ok()?;
        let p = self.particles.remove(i);
        if !p.state.asleep {
            self.awake -= 1;
        }
        Some(p)
    }

    /// Adds a velocity change to particle `c` (an impulse at commit) and
    /// wakes it, unless it has no hull (held at rest).
    pub(crate) fn add_velocity(&mut self, c: ClusterHandle, dv: Velocity) {
        let Ok(i) = self.find(c) else { return };
        let p = &mut self.particles[i];
        if p.support.is_empty() {
            return;
        }
        p.state.linvel += dv.linear;
        p.state.angvel += dv.angular;
        if p.state.asleep {
            p.state.asleep = false;
            self.awake += 1;
        }
    }

    /// An explosion at `point` (world, m) of `impulse` N·s at its centre
    /// falling off linearly to zero at `radius` m, on every particle with
    /// hulls within reach: applied at its hull vertex nearest `point` (`d`
    /// its distance), `J = impulse · (1 − d/R)` directed from `point` to
    /// that vertex (to the centre of mass when `d` is below 1 µm), giving
    /// `Δv = J/m`, `Δω = I⁻¹ (r × J)` (mass and inertia of the particle's
    /// cluster, `mass_of`), both scaled down together so `|Δv| ≤ max_speed`
    /// (m/s) and `|Δω| ≤ max_spin` (rad/s), as bodies are. Wakes what it
    /// pushes. O(particles × their vertices).
    pub(crate) fn push(
        &mut self,
        blast: (Vec3, f32, f32),
        caps: (f32, f32),
        mass_of: impl Fn(ClusterHandle) -> Option<(f32, glam::Mat3)>,
    ) {
        let (point, radius, impulse) = blast;
        let (max_speed, max_spin) = caps;
        for i in 0..self.particles.len() {
            let p = &self.particles[i];
            let pose = p.state.pose;
            let nearest = p
                .support
                .iter()
                .map(|&v| pose.rotation * v + pose.translation)
                .map(|w| (w.distance(point), w))
                .reduce(|a, b| if b.0 < a.0 { b } else { a });
            let Some((d, at)) = nearest.filter(|(d, _)| *d < radius) else {
                continue;
            };
            let Some((mass, inertia)) = mass_of(p.state.cluster) else {
                continue;
            };
            let dir = if d > 1e-6 {
                (at - point) / d
            } else {
                (pose.translation - point).normalize_or(Vec3::Y)
            };
            let j = dir * impulse * (1.0 - d / radius);
            let dv = smithereens_core::velocity::impulse_velocity_change(
                mass,
                inertia,
                pose.rotation,
                pose.translation,
                at,
                j,
            );
            let scale = 1.0f32
                .min(max_speed / dv.linear.length().max(f32::MIN_POSITIVE))
                .min(max_spin / dv.angular.length().max(f32::MIN_POSITIVE));
            let dv = Velocity {
                linear: dv.linear * scale,
                angular: dv.angular * scale,
            };
            if dv.linear.is_finite() && dv.angular.is_finite() {
                let c = p.state.cluster;
                self.add_velocity(c, dv);
            }
        }
    }

    /// The snapshot states, in handle order.
    pub fn states(&self) -> impl Iterator<Item = &ParticleState> + '_ {
        self.particles.iter().map(|p| &p.state)
    }

    /// Advances every awake particle by `dt` s under `gravity` (m/s²) and
    /// `settings` (the rule of the module docs); pushes the clusters that
    /// fell asleep onto `slept` (handle order). No allocation beyond
    /// `slept`'s growth.
    pub fn step(
        &mut self,
        dt: f32,
        gravity: Vec3,
        settings: &DebrisSettings,
        slept: &mut Vec<ClusterHandle>,
    ) {
        if self.awake == 0 {
            return;
        }
        for p in &mut self.particles {
            if p.state.asleep {
                continue;
            }
            if step_particle(p, dt, gravity, settings) {
                p.state.asleep = true;
                p.state.linvel = Vec3::ZERO;
                p.state.angvel = Vec3::ZERO;
                self.awake -= 1;
                slept.push(p.state.cluster);
            }
        }
    }

    /// Feeds the state into `h` (handle order: cluster, pose, velocities, sleep).
    pub(crate) fn hash_into(&self, h: &mut smithereens_core::hash::StateHasher) {
        for p in &self.particles {
            let s = &p.state;
            h.write_u32(s.cluster.index());
            h.write_u32(s.cluster.generation());
            for v in s
                .pose
                .translation
                .to_array()
                .into_iter()
                .chain(s.pose.rotation.to_array())
                .chain(s.linvel.to_array())
                .chain(s.angvel.to_array())
            {
                h.write_f32(v);
            }
            h.write_u32(s.asleep as u32);
        }
    }
}

/// One step of one awake particle; true when it falls asleep.
fn step_particle(p: &mut DebrisParticle, dt: f32, gravity: Vec3, s: &DebrisSettings) -> bool {
    let st = &mut p.state;
    st.linvel += gravity * dt;
    st.pose.translation += st.linvel * dt;
    if st.angvel != Vec3::ZERO {
        let q = st.pose.rotation;
        let w = Quat::from_xyzw(st.angvel.x, st.angvel.y, st.angvel.z, 0.0);
        st.pose.rotation = (q + (w * q) * (0.5 * dt)).normalize();
    }
    let Some(ground) = s.ground_y else {
        return false;
    };
    let Some(low) = lowest(&p.support, &st.pose) else {
        return false;
    };
    if low >= ground {
        return false;
    }
    st.pose.translation.y += ground - low;
    let incoming = (-st.linvel.y).max(0.0);
    let out = if incoming > s.bounce_speed {
        s.restitution * incoming
    } else {
        0.0
    };
    let change = incoming + out;
    st.linvel.y = st.linvel.y.max(0.0) + out;
    let slip = change * s.friction;
    let horizontal = Vec3::new(st.linvel.x, 0.0, st.linvel.z);
    let speed = horizontal.length();
    if speed > 0.0 {
        let keep = (speed - slip).max(0.0) / speed;
        st.linvel.x *= keep;
        st.linvel.z *= keep;
    }
    let spin = st.angvel.length();
    if spin > 0.0 {
        let keep = (spin - slip / p.radius).max(0.0) / spin;
        st.angvel *= keep;
    }
    st.linvel.length() < s.sleep_speed && st.angvel.length() < s.sleep_spin
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube() -> Vec<Vec3> {
        let mut v = Vec::new();
        for x in [-0.5f32, 0.5] {
            for y in [-0.5f32, 0.5] {
                for z in [-0.5f32, 0.5] {
                    v.push(Vec3::new(x, y, z));
                }
            }
        }
        v
    }

    fn falling(y: f32, linvel: Vec3) -> ParticleState {
        ParticleState {
            cluster: ClusterHandle::PLACEHOLDER,
            pose: Pose::from_translation(Vec3::new(0.0, y, 0.0)),
            linvel,
            angvel: Vec3::ZERO,
            asleep: false,
        }
    }

    #[test]
    fn a_dropped_cube_lands_on_the_plane_and_sleeps() {
        let mut d = RenderDebris::default();
        d.insert(falling(3.0, Vec3::new(2.0, 0.0, 0.0)), cube());
        let s = DebrisSettings::default();
        let mut slept = Vec::new();
        for _ in 0..600 {
            d.step(1.0 / 60.0, Vec3::new(0.0, -9.81, 0.0), &s, &mut slept);
            let low = d.particles()[0].lowest_point().unwrap();
            assert!(low >= -1e-5, "below the ground: {low}");
        }
        assert_eq!(slept.len(), 1);
        assert_eq!(d.awake(), 0);
        let low = d.particles()[0].lowest_point().unwrap();
        assert!(low.abs() < 1e-4, "{low}");
    }

    #[test]
    fn a_particle_without_hulls_is_held_at_rest() {
        let mut d = RenderDebris::default();
        d.insert(falling(3.0, Vec3::new(0.0, 5.0, 0.0)), Vec::new());
        let mut slept = Vec::new();
        d.step(
            1.0 / 60.0,
            Vec3::new(0.0, -9.81, 0.0),
            &DebrisSettings::default(),
            &mut slept,
        );
        let p = d.particles()[0].state();
        assert!(p.asleep && p.linvel == Vec3::ZERO);
        assert_eq!(p.pose.translation.y, 3.0);
    }
}
