//! Commit planning and the seam between the core and a physics backend
//! (DESIGN §3.7, destruction-system seed "物理提交与失败恢复").
//!
//! A commit runs in three phases:
//! 1. [`Instance::plan`] applies pending damage on a candidate copy, finds
//!    islands and computes the new clusters' mass properties (asset space).
//!    The published state is untouched.
//! 2. [`CommitBackend::prepare`] builds the new bodies off to the side (shapes,
//!    mass properties). It may fail: then nothing changes and the events stay
//!    pending with their ids and frozen parameters.
//! 3. At the physics safe point, [`CommitBackend::commit`] swaps old bodies for
//!    new ones as one step, rebuilding world poses and velocities from the old
//!    bodies' *current* motion; only then does the instance publish the new
//!    version and mark the events applied.

use crate::asset::Asset;
use crate::budget::{BodySlot, BudgetShortfall, Representation};
use crate::cluster::{ClusterHandle, ClusterMotion};
use crate::damage::EventId;
use crate::index::{BondIndex, ChunkIndex};
use crate::instance::{Instance, PendingEvent, Receipt};
use crate::mass::{MassProperties, PrincipalAxes};
use crate::recovery::CommitRecord;
use glam::Vec3;

/// One event's outcome inside a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedEvent {
    /// The event.
    pub id: EventId,
    /// Bonds it broke, ascending.
    pub broken: Vec<BondIndex>,
    /// Damage actually removed from health, du (≤ the event's budget).
    pub damage_removed: f32,
    /// Budget not removed, du: past a spreading event's reach, or a radial
    /// event's overflow on the bonds it broke; 0 for falloff (see
    /// [`crate::damage::Applied`]).
    pub damage_unspent: f32,
}

/// A cluster produced by a split: a piece that broke off, or the remainder
/// that keeps the old cluster's handle.
#[derive(Clone, Debug, PartialEq)]
pub struct SplitPart {
    /// The handle it will have once committed (the old cluster's for the
    /// remainder).
    pub handle: ClusterHandle,
    /// True for the remainder: the old cluster, shrunk, keeps its handle
    /// ([`SplitPlan::old`]). A backend may rebuild its body or keep it.
    pub kept: bool,
    /// Member chunks, ascending.
    pub nodes: crate::Members,
    /// Fixed to the world.
    pub supported: bool,
    /// Mass properties in asset space.
    pub mass: MassProperties,
    /// Principal moments and frame of `mass.inertia` (asset axes).
    pub principal: PrincipalAxes,
    /// The f64 sums `mass` derives from ([`crate::mass::MassSums`]), as
    /// its cluster will keep them: the one member chunk's own (stored by
    /// the asset), or boxed. A blast's thousands of one-chunk parts then
    /// carry no 144-byte copy of their chunk's sums through plan, record
    /// and install (issue 12).
    pub(crate) sums: crate::cluster::ClusterSums,
    /// Gameplay-critical (asset tag or task path), DESIGN §3.9. Only
    /// evaluated for dynamic parts (it orders body slots); false when supported.
    pub critical: bool,
    /// Total volume of its chunks, m³ (decorative slot order). Only
    /// evaluated for dynamic parts; 0 when supported.
    pub volume: f32,
    /// How the backend must represent it: a body of chunk hulls, a body of
    /// the authored proxy's pieces, or render-only debris with no
    /// authoritative collider.
    pub representation: Representation,
    /// Its body slot (dynamic `Body`/`Proxy` parts); `None` when supported or render-only.
    pub slot: Option<BodySlot>,
}

impl SplitPart {
    /// A part with no members and zero mass, standing in for one not yet
    /// computed (it never leaves the planner).
    pub(crate) fn placeholder() -> Self {
        Self {
            handle: ClusterHandle::PLACEHOLDER,
            kept: false,
            nodes: crate::Members::new(),
            supported: false,
            mass: MassProperties {
                mass: 0.0,
                center: Vec3::ZERO,
                inertia: glam::Mat3::ZERO,
            },
            principal: PrincipalAxes {
                moments: Vec3::ZERO,
                frame: glam::Quat::IDENTITY,
            },
            sums: crate::cluster::ClusterSums::OfChunk,
            critical: false,
            volume: 0.0,
            representation: Representation::Body,
            slot: None,
        }
    }
}

/// A cluster that lost bonds and split (or lost its support).
///
/// The remainder, the part the island search did not have to enumerate (the
/// side still open when the others closed, else the largest piece, see
/// [`crate::island::find_departed`]), keeps the old handle: it is
/// `parts[0]`, with `kept` set. With supports, the remainder is chosen the
/// same way: it is supported when it still holds a support node, whichever
/// side the supports ended up on. The other parts are new clusters, ordered
/// by lowest node.
#[derive(Clone, Debug, PartialEq)]
pub struct SplitPlan {
    /// The cluster that split; it lives on as `parts[0]`, shrunk.
    pub old: ClusterHandle,
    /// The remainder first, then the pieces that broke off by lowest node.
    pub parts: Vec<SplitPart>,
}

/// An explosion impulse to apply exactly once, at commit.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedImpulse {
    /// The event it belongs to (its once-only key).
    pub event: EventId,
    /// Application point, m, world (as admitted).
    pub point: Vec3,
    /// Impulse, N·s, world.
    pub impulse: Vec3,
    /// The chunk nearest the point at admission.
    pub chunk: ChunkIndex,
    /// The cluster holding that chunk after the commit.
    pub target: ClusterHandle,
}

/// Everything a commit will change, computed without changing anything.
#[derive(Clone, Debug, PartialEq)]
pub struct CommitPlan {
    /// Topology version the plan was computed against.
    pub base_version: u64,
    /// Sequence number this commit will have.
    pub commit_seq: u64,
    /// Events in processing order.
    pub events: Vec<PlannedEvent>,
    /// New absolute health of every modified bond, by bond index.
    pub health_changes: Vec<(BondIndex, f32)>,
    /// All bonds broken by this commit, ascending.
    pub broken: Vec<BondIndex>,
    /// Clusters that split (or lost their support), by old handle.
    pub splits: Vec<SplitPlan>,
    /// Impulses to apply once, in event order.
    pub impulses: Vec<PlannedImpulse>,
}

impl CommitPlan {
    /// Number of parts, remainders included (one motion each from
    /// [`CommitBackend::commit`]).
    pub fn new_cluster_count(&self) -> usize {
        self.splits.iter().map(|s| s.parts.len()).sum()
    }
}

/// Why a commit did not happen. In every case the instance is unchanged and
/// the pending events are kept.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CommitError<E> {
    /// The backend could not prepare the new bodies.
    #[error("backend failed to prepare the commit: {0}")]
    Prepare(E),
    /// The backend could not swap bodies at the safe point (and restored the old ones).
    #[error("backend failed to commit: {0}")]
    Commit(E),
    /// The topology changed since the plan was made.
    #[error("stale plan: planned against topology version {expected}, instance is at {found}")]
    StaleTopology {
        /// Version in the plan.
        expected: u64,
        /// Version now.
        found: u64,
    },
    /// A handle names no live cluster.
    #[error("cluster {0} does not exist (stale handle)")]
    StaleCluster(ClusterHandle),
    /// A pose or velocity is not finite.
    #[error("pose or velocity is not finite")]
    BadPose,
    /// A new cluster has degenerate mass properties.
    #[error("degenerate cluster mass properties: {0}")]
    Mass(crate::MassError),
    /// The budget holds the commit back: the events stay pending
    /// ([`Instance::commit`] reports this as [`CommitStatus::Deferred`]).
    #[error("commit deferred: {0}")]
    Deferred(BudgetShortfall),
    /// Another commit happened since the plan was made.
    #[error("stale plan: planned as commit {expected}, the next commit is {found}")]
    StalePlan {
        /// Commit sequence in the plan.
        expected: u64,
        /// Next commit sequence now.
        found: u64,
    },
}

/// The physics side of a commit. Implemented by `smithereens-rapier`, and by
/// test backends that inject failures.
pub trait CommitBackend {
    /// Bodies and shapes built ahead of the swap.
    type Prepared;
    /// Backend error.
    type Error: std::error::Error;

    /// Builds the new bodies for `plan` without touching the live world.
    ///
    /// # Errors
    /// Any backend failure; the commit is then abandoned with nothing changed.
    fn prepare(&mut self, asset: &Asset, plan: &CommitPlan) -> Result<Self::Prepared, Self::Error>;

    /// At the safe point between physics steps, swaps every split cluster's
    /// body for its parts' bodies in one step and applies the plan's impulses.
    /// The remainder part carries the old handle (`kept`): the backend may
    /// rebuild its body like any other part's, or keep and reshape it.
    /// Reads the old bodies' current motion and pushes the motion of every
    /// new cluster onto `motions`, in plan order (splits, then parts). The
    /// list arrives empty, from the instance's pool of recycled lists, so a
    /// commit does not allocate it (issue 12 item 3).
    ///
    /// # Errors
    /// Any backend failure; the backend must then leave the world as before
    /// (what it pushed onto `motions` is discarded).
    fn commit(
        &mut self,
        prepared: Self::Prepared,
        plan: &CommitPlan,
        instance: &Instance,
        motions: &mut Vec<ClusterMotion>,
    ) -> Result<(), Self::Error>;
}

/// What [`Instance::commit`] did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CommitStatus {
    /// Nothing was pending.
    Idle,
    /// The pending events were applied and published.
    Committed,
    /// The budget held the commit back; the events stay pending in order and
    /// later admissions answer [`crate::Admission::Deferred`] until a commit succeeds.
    Deferred(BudgetShortfall),
    /// The frame's body-creation allowance held the commit back whole
    /// ([`Instance::commit_within`]): the events stay pending in order (and
    /// admissions go on) until a later frame has room for it.
    Throttled {
        /// New bodies the commit would create.
        bodies: u32,
        /// What was left of the frame's allowance.
        remaining: u32,
    },
}

/// How many new bodies a frame may still create, for
/// [`Instance::commit_within`]: a deterministic throttle between commits
/// (issue 12 item 7). A commit counts one new body per piece that breaks
/// off (a remainder keeps or replaces its body), except render-only debris,
/// which a physics backend keeps outside its engine.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BodyAllowance {
    /// New bodies the frame may still create.
    pub remaining: u32,
    /// The whole allowance of a frame (≥ 1).
    pub per_frame: u32,
}

impl CommitPlan {
    /// New bodies this plan creates: one per piece that breaks off (the
    /// remainder of each split keeps its handle and keeps or replaces its
    /// body) and is not [`Representation::RenderOnlyDebris`] (no body: the
    /// Rapier backend moves it as a particle). O(parts).
    pub fn new_body_count(&self) -> u32 {
        self.splits
            .iter()
            .map(|s| {
                s.parts
                    .iter()
                    .filter(|p| !p.kept && p.representation != Representation::RenderOnlyDebris)
                    .count() as u32
            })
            .sum()
    }
}

/// Result of [`Instance::commit`]. Hand it back with [`Instance::recycle`]
/// when done, so the next commits reuse its lists instead of allocating.
#[derive(Clone, Debug, PartialEq)]
pub struct CommitOutcome {
    /// Receipts of the applied events, in processing order.
    pub receipts: Vec<Receipt>,
    /// Bonds broken, ascending.
    pub broken: Vec<BondIndex>,
    /// Clusters removed.
    pub removed: Vec<ClusterHandle>,
    /// Clusters created, in plan order (pieces that broke off).
    pub created: Vec<ClusterHandle>,
    /// Clusters that lost pieces (or their support) and keep their handle,
    /// in plan order. A physics backend rebuilt or reshaped their bodies.
    pub shrunk: Vec<ClusterHandle>,
    /// Created clusters that are render-only debris (no authoritative collider).
    pub render_only: Vec<ClusterHandle>,
    /// Committed, deferred, or idle.
    pub status: CommitStatus,
    /// The recovery/replication record of this commit (`None` unless committed).
    pub record: Option<CommitRecord>,
    /// The events applied, with their frozen distances (for replay logs).
    pub applied: Vec<PendingEvent>,
}

impl CommitOutcome {
    fn empty(status: CommitStatus) -> Self {
        Self {
            receipts: vec![],
            broken: vec![],
            removed: vec![],
            created: vec![],
            shrunk: vec![],
            render_only: vec![],
            status,
            record: None,
            applied: vec![],
        }
    }
}

impl Instance {
    /// Runs plan → prepare → commit → publish for all pending events. Call it
    /// at the physics safe point (after a step, never inside a callback).
    /// With nothing pending it returns [`CommitStatus::Idle`]; when the budget
    /// holds the commit back it returns [`CommitStatus::Deferred`] and keeps
    /// the events.
    ///
    /// # Errors
    /// See [`CommitError`]; on error the instance is unchanged and the events stay pending.
    pub fn commit<B: CommitBackend>(
        &mut self,
        backend: &mut B,
    ) -> Result<CommitOutcome, CommitError<B::Error>> {
        self.commit_within(
            backend,
            BodyAllowance {
                remaining: u32::MAX,
                per_frame: u32::MAX,
            },
        )
    }

    /// As [`Self::commit`], under a frame's body-creation allowance: a
    /// commit whose plan creates more new bodies
    /// ([`CommitPlan::new_body_count`]) than `allowance.remaining` is held
    /// back whole ([`CommitStatus::Throttled`], events kept, nothing
    /// changed) — unless the frame has created nothing yet
    /// (`remaining == per_frame`): a single commit larger than the whole
    /// allowance then goes through alone, so no commit waits forever.
    /// Commits stay atomic; the caller subtracts the created clusters that
    /// are not render-only debris from its allowance.
    ///
    /// # Errors
    /// As [`Self::commit`].
    pub fn commit_within<B: CommitBackend>(
        &mut self,
        backend: &mut B,
        allowance: BodyAllowance,
    ) -> Result<CommitOutcome, CommitError<B::Error>> {
        if self.pending().is_empty() {
            return Ok(CommitOutcome::empty(CommitStatus::Idle));
        }
        let plan = match self.plan() {
            Ok(plan) => plan,
            Err(CommitError::Deferred(shortfall)) => {
                self.deferral = Some(shortfall);
                return Ok(CommitOutcome::empty(CommitStatus::Deferred(shortfall)));
            }
            Err(e) => return Err(e),
        };
        let bodies = plan.new_body_count();
        if bodies > allowance.remaining && allowance.remaining < allowance.per_frame {
            self.recycle_plan(plan);
            return Ok(CommitOutcome::empty(CommitStatus::Throttled {
                bodies,
                remaining: allowance.remaining,
            }));
        }
        let prepared = backend
            .prepare(self.asset(), &plan)
            .map_err(CommitError::Prepare)?;
        self.commit_prepared(backend, plan, prepared)
    }

    /// Hands `outcome` back once the caller is done with it (journaled its
    /// record, sent its receipts): its lists go to the instance's pools and
    /// later commits fill them instead of allocating, so a steady stream of
    /// small commits allocates nothing after warm-up (issue 12 item 3; see
    /// [`crate::pool`]). Optional: dropping an outcome is always correct.
    /// The state is untouched (hashes, snapshots and replays do not see it).
    ///
    /// # Example
    /// ```
    /// use smithereens_core::{fixtures, EventId, HeadlessBackend, Instance, Pose, RadialDamage};
    /// use smithereens_core::glam::Vec3;
    /// use std::sync::Arc;
    /// let asset = Arc::new(fixtures::chain(3, &[(0, 1), (1, 2)], &[0]).unwrap());
    /// let mut inst = Instance::new(asset, Pose::IDENTITY).unwrap();
    /// inst.admit(RadialDamage { id: EventId(1), point: Vec3::new(1.5, 0.0, 0.0),
    ///                           radius: 0.2, damage: 1e9, impulse: None }).unwrap();
    /// let outcome = inst.commit(&mut HeadlessBackend::default()).unwrap();
    /// assert_eq!(outcome.broken.len(), 1);
    /// let after = inst.state_hash();
    /// inst.recycle(outcome);
    /// assert_eq!(inst.state_hash(), after);
    /// ```
    pub fn recycle(&mut self, outcome: CommitOutcome) {
        self.pool.give_outcome(outcome);
    }

    /// As [`Self::recycle`], for a commit record the caller kept on its own
    /// (e.g. after writing it to a journal).
    pub fn recycle_record(&mut self, record: CommitRecord) {
        self.pool.give_record(record);
    }

    /// Hands back a plan that will not be committed (one planned and then
    /// dropped, or one the body throttle sent back, which
    /// [`Self::commit_within`] recycles itself): its lists, its parts'
    /// member lists and its boxes of mass sums go to the instance's pools
    /// and scratch, so planning again allocates nothing. Optional: dropping
    /// a plan is always correct. The state is untouched.
    pub fn recycle_plan(&mut self, plan: CommitPlan) {
        let CommitPlan {
            mut events,
            health_changes,
            broken,
            splits,
            impulses,
            ..
        } = plan;
        for e in events.drain(..) {
            self.pool.bonds.give(e.broken);
        }
        self.pool.bonds.give(broken);
        self.pool.health.give(health_changes);
        self.keep_plan_lists(events, splits, impulses);
    }

    /// The safe-point half of a commit whose plan and preparation were made
    /// earlier (possibly asynchronously, while queries kept reading the
    /// published version): re-checks that the plan's base topology version
    /// and commit sequence are still current, then lets the backend swap
    /// bodies in one step (rebuilding poses and velocities from the old
    /// clusters' *current* motion), then publishes the version and marks the
    /// events applied. Events admitted after the plan stay pending for the
    /// next batch.
    ///
    /// # Errors
    /// [`CommitError::StaleTopology`] / [`CommitError::StalePlan`] when the
    /// instance moved on (the backend is not called), [`CommitError::Commit`]
    /// when the backend fails (it must leave the old bodies in place). The
    /// instance is unchanged on error.
    pub fn commit_prepared<B: CommitBackend>(
        &mut self,
        backend: &mut B,
        plan: CommitPlan,
        prepared: B::Prepared,
    ) -> Result<CommitOutcome, CommitError<B::Error>> {
        if plan.base_version != self.topology_version() {
            return Err(CommitError::StaleTopology {
                expected: plan.base_version,
                found: self.topology_version(),
            });
        }
        if plan.commit_seq != self.commit_seq() + 1 {
            return Err(CommitError::StalePlan {
                expected: plan.commit_seq,
                found: self.commit_seq() + 1,
            });
        }
        if let Some(h) = plan
            .splits
            .iter()
            .map(|s| s.old)
            .find(|&h| self.cluster(h).is_none())
        {
            return Err(CommitError::StaleCluster(h));
        }
        let mut motions = self.pool.motions.take();
        if let Err(e) = backend.commit(prepared, &plan, self, &mut motions) {
            self.pool.motions.give(motions);
            return Err(CommitError::Commit(e));
        }
        // The record does not keep the plan's broken list: moved, not copied.
        let mut plan = plan;
        let broken = std::mem::take(&mut plan.broken);
        let (record, splits, applied) = self.record_from_plan(plan, motions);
        self.install_parts(&record, splits);
        let pool = &mut self.pool;
        // Lists from the pool in the order the outcome always took them.
        let receipts = pool.copy_receipts(&record.receipts);
        let removed = pool.handles.copy(&record.removed);
        // One pass over the created records for the three handle lists.
        let (mut created, mut shrunk, mut render_only) = (
            pool.handles.take(),
            pool.handles.take(),
            pool.handles.take(),
        );
        for c in &record.created {
            if c.is_kept() {
                shrunk.push(c.handle);
            } else {
                created.push(c.handle);
            }
            if c.representation == Representation::RenderOnlyDebris {
                render_only.push(c.handle);
            }
        }
        Ok(CommitOutcome {
            receipts,
            broken,
            removed,
            created,
            shrunk,
            render_only,
            status: CommitStatus::Committed,
            record: Some(record),
            applied,
        })
    }
}

/// World motion of a new cluster cut from a body whose current motion is
/// `old` and whose centre of mass in asset space is `old_center`: the body
/// frame keeps the old rotation `R_c`, its origin moves to the part's centre
/// `c = A(c_part)` (with `A` the old asset → world transform), and the
/// velocity follows the rigid field `v = v₀ + ω × (c − c₀)` (DESIGN §3.6).
/// Supported parts are fixed: zero velocity.
pub fn part_motion(old: ClusterMotion, old_center: Vec3, part: &SplitPart) -> ClusterMotion {
    let asset_to_world = old.pose.mul(&crate::Pose::from_translation(-old_center));
    let center = asset_to_world.transform_point(part.mass.center);
    let pose = crate::Pose {
        rotation: old.pose.rotation,
        translation: center,
    };
    let velocity = if part.supported {
        crate::Velocity::default()
    } else {
        crate::velocity::inherit_velocity(old.velocity, old.pose.translation, center)
    };
    ClusterMotion { pose, velocity }
}

/// Velocity change that `imp` gives a body with asset-space mass properties
/// `mass` (inertia about the centre of mass, asset axes) and current motion
/// `motion`, per [`crate::velocity::impulse_velocity_change`]: bodies keep
/// asset axes rotated by their rotation `R_c`, so `I_world = R_c I R_cᵀ` is
/// rebuilt from the commit-time rotation.
pub fn impulse_change(
    mass: &MassProperties,
    motion: &ClusterMotion,
    imp: &PlannedImpulse,
) -> crate::Velocity {
    crate::velocity::impulse_velocity_change(
        mass.mass,
        mass.inertia,
        motion.pose.rotation,
        motion.pose.translation,
        imp.point,
        imp.impulse,
    )
}

/// A backend with no physics world: new clusters get [`part_motion`] from
/// the old cluster's last synced motion; the instance itself adds planned
/// impulses to the recorded motion when it publishes.
/// Serves headless servers, replay, and tests (it can inject failures).
#[derive(Clone, Debug, Default)]
pub struct HeadlessBackend {
    /// Fail the next `prepare` calls while positive (decremented per call).
    pub fail_prepare: u32,
    /// Fail the next `commit` calls while positive (decremented per call).
    pub fail_commit: u32,
    /// Number of successful commits.
    pub commits: u32,
}

/// Failure injected by [`HeadlessBackend`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("injected {0} failure")]
pub struct InjectedFailure(pub &'static str);

impl CommitBackend for HeadlessBackend {
    type Prepared = ();
    type Error = InjectedFailure;

    fn prepare(&mut self, _asset: &Asset, _plan: &CommitPlan) -> Result<(), InjectedFailure> {
        if self.fail_prepare > 0 {
            self.fail_prepare -= 1;
            return Err(InjectedFailure("prepare"));
        }
        Ok(())
    }

    fn commit(
        &mut self,
        _prepared: (),
        plan: &CommitPlan,
        instance: &Instance,
        motions: &mut Vec<ClusterMotion>,
    ) -> Result<(), InjectedFailure> {
        if self.fail_commit > 0 {
            self.fail_commit -= 1;
            return Err(InjectedFailure("commit"));
        }
        motions.reserve(plan.new_cluster_count());
        for s in &plan.splits {
            let Some(old) = instance.cluster(s.old) else {
                return Err(InjectedFailure("stale cluster"));
            };
            for p in &s.parts {
                motions.push(part_motion(old.motion, old.mass.center, p));
            }
        }
        self.commits += 1;
        Ok(())
    }
}
