//! The stress of one instance over time (issue 13, items 2, 3 and 5): which
//! supported clusters need a solve, the sustained loads on them, their
//! standing overloads, and the [`StressDamage`] event each step's overloads
//! make.
//!
//! This is the per-frame loop of Blast's stress extension
//! (`NvBlastExtStressSolver`: add forces and gravity → update → overstressed
//! bonds → fracture commands, theory-and-industry seed §3.3) with two
//! differences that make idle structures free:
//!
//! * **A cluster is solved only when it changed**: when it first appears,
//!   when one of its bonds broke or it lost chunks (a commit), or when a
//!   load on it changed by more than the tolerance ([`StressDesc`]). A solve
//!   that does not reach ε within `max_iterations` is continued at the next
//!   update from its warm start, and until it converges its cluster takes no
//!   stress damage (bonds break only from converged solves).
//! * **Overloads stand without re-solving**: a converged solve leaves, per
//!   cluster, the bonds whose stress exceeds their elastic limit with their
//!   damage rate (du/s, [`super::damage_of`]) or a fatal flag. Each update
//!   turns them into damage for its `dt` (`rate · dt`, the whole remaining
//!   health when fatal), so a standing overload wears a bond down at a rate
//!   independent of the step without a solve per step. Health does not
//!   change a bond's stiffness, so the solve stays valid until a bond breaks.
//!
//! Only anchored (supported) clusters are solved here: their loads are
//! gravity and the point loads given with [`InstanceStress::set_load`]
//! (sustained contacts, scripted loads). Free clusters carry no gravity
//! stress (free fall stresses nothing); the inertial loads of a spinning
//! free cluster are available from [`StressSolver::solve`] but not tracked
//! per step here.
//!
//! A large cluster that a commit created or shrank is prepared in steps
//! over the next updates before it is solved (its gather and grouping into
//! super-nodes, [`StressSolver::prepare_within`]), so that the set-up of a
//! reduced solve of thousands of chunks is spread over frames too.
//!
//! Cost per update: the solves of the clusters that changed, plus
//! O(overloaded bonds) for the event; O(1) for an instance where nothing
//! changed and nothing is overloaded. No allocation in steady state once
//! the buffers have grown. [`InstanceStress::update_within`] bounds the
//! solves' work by a budget in bond passes, so a frame where a large
//! structure changes costs at most that budget (plus one iteration or one
//! set-up step of one cluster): a solve cut short resumes exactly where it
//! stopped at the next update, and the bonds break a few frames later, with
//! the same results, instead of in one long frame.

use crate::cluster::ClusterHandle;
use crate::commit::CommitOutcome;
use crate::damage::{EventId, EventSource, StressDamage};
use crate::index::{BondIndex, ChunkIndex};
use crate::instance::Instance;
use crate::stress::StressError;
use crate::stress::damage::{StressBondDamage, damage_of};
use crate::stress::material::{Material, StressMaterials};
use crate::stress::solver::{
    BondStress, PointLoad, SolveMode, SolveProgress, StressLoads, StressSettings, StressSolver,
};
use glam::{DVec3, Vec3};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Smallest change of a bond's utilisation reported by
/// [`InstanceStress::utilisation_changes`]: 0.01.
pub const UTILISATION_STEP: f32 = 0.01;

/// How an instance's stress is solved and what counts as a changed load.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StressDesc {
    /// Solver settings (iterations per update, ε, preconditioner).
    pub settings: StressSettings,
    /// Bond materials (limits and damage rates).
    pub materials: StressMaterials,
    /// A load re-solves its cluster when its force changes by more than
    /// `load_tolerance · |F|` (dimensionless, ≥ 0; default 0.05) or by more
    /// than `load_floor`, whichever is larger, or when its point moves by
    /// more than `load_move` (m).
    pub load_tolerance: f32,
    /// Smallest force change that re-solves, N (≥ 0; default 10 N).
    pub load_floor: f32,
    /// Smallest move of a load's point that re-solves, m (≥ 0; default 0.05 m).
    pub load_move: f32,
}

impl StressDesc {
    /// Default settings and tolerances for `materials`.
    pub fn new(materials: StressMaterials) -> Self {
        Self {
            settings: StressSettings::default(),
            materials,
            load_tolerance: 0.05,
            load_floor: 10.0,
            load_move: 0.05,
        }
    }

    /// Checks the settings and tolerances (materials are checked against
    /// the asset by [`InstanceStress::new`]).
    ///
    /// # Errors
    /// [`StressError::ZeroIterations`], [`StressError::BadEpsilon`],
    /// [`StressError::BadTolerance`].
    pub fn validate(&self) -> Result<(), StressError> {
        self.settings.validate()?;
        for (name, v) in [
            ("load_tolerance", self.load_tolerance),
            ("load_floor", self.load_floor),
            ("load_move", self.load_move),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(StressError::BadTolerance { name, value: v });
            }
        }
        Ok(())
    }
}

/// Who applies a load: any caller-chosen key, stable across steps (the
/// Rapier integration uses the contact's collider pair).
#[derive(
    Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
pub struct LoadKey(pub u64, pub u64);

/// A sustained load on one chunk, world frame.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChunkLoad {
    /// The loaded chunk (support-level).
    pub chunk: ChunkIndex,
    /// Force on the chunk, N, world axes.
    pub force: Vec3,
    /// Point of application, m, world.
    pub point: Vec3,
    /// Force and point when its cluster was last solved with it (`None`:
    /// not part of a solve yet).
    solved: Option<(Vec3, Vec3)>,
}

/// A bond over its elastic limit in a converged solve.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Overload {
    /// The bond.
    pub bond: BondIndex,
    /// Damage rate, du/s (`damage_rate · overshoot`).
    pub rate: f32,
    /// The stress reached the fatal limit: the bond breaks.
    pub fatal: bool,
}

/// What one [`InstanceStress::update`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StressUpdate {
    /// Clusters solved (an unconverged solve continued counts again).
    pub solves: u32,
    /// Conjugate-gradient iterations over those solves.
    pub iterations: u32,
    /// Largest residual among this update's solves (dimensionless).
    pub max_residual: f32,
    /// Clusters whose solve has not converged yet (solved again next update).
    pub unconverged: u32,
    /// Clusters left for a later update because the work budget of
    /// [`InstanceStress::update_within`] ran out before their turn.
    pub deferred: u32,
    /// Clusters whose preparation took steps in this update instead of a
    /// solve (see [`InstanceStress::update_within`]).
    pub preparing: u32,
    /// Work of this update's solves, bond passes
    /// ([`super::solver`]'s [Work](super::solver#work)).
    pub work: u64,
    /// Bonds over their elastic limit in all tracked clusters.
    pub overloaded: u32,
    /// The damage event of this update, if any bond took damage.
    pub event: Option<StressDamage>,
}

/// The serialisable state of an [`InstanceStress`] (see
/// [`InstanceStress::state`]): everything that decides its future results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstanceStressState {
    /// The description.
    pub desc: StressDesc,
    /// Clusters waiting for a solve, ascending.
    pub dirty: Vec<ClusterHandle>,
    /// Standing overloads per cluster.
    pub overloads: Vec<(ClusterHandle, Vec<Overload>)>,
    /// Loads by key.
    pub loads: Vec<(LoadKey, ChunkLoad)>,
    /// Chunks whose loads changed or left since the last update.
    pub changed: Vec<ChunkIndex>,
    /// Next stress event sequence number.
    pub sequence: u64,
    /// The solver's warm start per chunk: displacement (m), rotation (rad).
    pub warm: Vec<(DVec3, DVec3)>,
    /// Solves cut short by a work budget, by cluster, ascending.
    pub progress: Vec<(ClusterHandle, SolveProgress)>,
    /// The cluster after which the next update starts serving (the last
    /// one served when a budget ran out), if any.
    pub turn: Option<ClusterHandle>,
    /// Large clusters a commit created or shrank whose reduced system is
    /// being prepared in steps before their first solve, with the steps
    /// taken ([`StressSolver::prepare_within`]), ascending.
    pub preparing: Vec<(ClusterHandle, u32)>,
}

/// One pass over a solved cluster's bond results `stresses` (ascending by
/// bond): each bond's utilisation (its largest stress over the fatal
/// limit, 0 for a mode whose fatal limit is 0) into `utilisation`, with the
/// bonds whose value moved by more than [`UTILISATION_STEP`] appended to
/// `changes`, and, unless the solve was `skipped`, each overloaded bond
/// (over an elastic limit, with a damage rate or fatal: [`damage_of`] for
/// one second) into `overloads`. Generic over `material_of` so that a
/// single material's limits are loop invariants. O(bonds of the cluster),
/// no allocation beyond the lists' growth.
fn bond_pass<'m>(
    stresses: &[BondStress],
    skipped: bool,
    material_of: impl Fn(BondIndex) -> &'m Material,
    utilisation: &mut [f32],
    changes: &mut Vec<(BondIndex, f32)>,
    overloads: &mut Vec<Overload>,
) {
    let ratio = |sigma: f32, fatal: f32| if fatal > 0.0 { sigma / fatal } else { 0.0 };
    // (A solve's stresses are finite and ≥ +0, so a plain comparison gives
    // `f32::max`'s result without its NaN handling.)
    let larger = |a: f32, b: f32| if b > a { b } else { a };
    for st in stresses {
        let m = material_of(st.bond);
        let u = larger(
            larger(
                ratio(st.compression, m.compression.fatal),
                ratio(st.tension, m.tension.fatal),
            ),
            ratio(st.shear, m.shear.fatal),
        );
        let Some(old) = utilisation.get_mut(st.bond.0 as usize) else {
            continue;
        };
        if (u - *old).abs() > UTILISATION_STEP {
            *old = u;
            changes.push((st.bond, u));
        }
        // (At or under every elastic limit, a bond has no overload:
        // `damage_of` gives no rate and no fatal; most bonds are.)
        let over = (st.compression > m.compression.elastic)
            | (st.tension > m.tension.elastic)
            | (st.shear > m.shear.elastic);
        if over && !skipped {
            let (rate, fatal) = damage_of(m, st, 1.0);
            if rate > 0.0 || fatal {
                overloads.push(Overload {
                    bond: st.bond,
                    rate,
                    fatal,
                });
            }
        }
    }
}

/// Removes and returns the solve in progress of `cluster` from `list`
/// (ascending by cluster), if any.
fn take_progress(
    list: &mut Vec<(ClusterHandle, SolveProgress)>,
    cluster: ClusterHandle,
) -> Option<SolveProgress> {
    let at = list.binary_search_by_key(&cluster, |(c, _)| *c).ok()?;
    Some(list.remove(at).1)
}

/// The stress of one instance (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct InstanceStress {
    desc: StressDesc,
    solver: StressSolver,
    dirty: BTreeSet<ClusterHandle>,
    /// Solves cut short by a work budget, resumed at the cluster's next
    /// solve ([`StressSolver::solve_within`]), ascending by cluster (a few
    /// at most: a list, so that slicing allocates nothing).
    progress: Vec<(ClusterHandle, SolveProgress)>,
    overloads: BTreeMap<ClusterHandle, Vec<Overload>>,
    loads: BTreeMap<LoadKey, ChunkLoad>,
    changed: Vec<ChunkIndex>,
    sequence: u64,
    /// The cluster after which the next update starts serving: the last
    /// one served when a budget ran out (`None`: from the lowest handle).
    turn: Option<ClusterHandle>,
    /// Large clusters a commit created or shrank, prepared in steps before
    /// their first solve, with the steps taken, ascending (a few at most).
    preparing: Vec<(ClusterHandle, u32)>,
    /// Per asset bond: utilisation of its last converged solve (see
    /// [`Self::utilisation`]), 0 before any.
    utilisation: Vec<f32>,
    /// Bonds whose utilisation changed by more than
    /// [`UTILISATION_STEP`] in the last update, with the new value.
    utilisation_changes: Vec<(BondIndex, f32)>,
    // Scratch, kept for its capacity.
    point_loads: Vec<PointLoad>,
    still_dirty: Vec<ClusterHandle>,
    solved_keys: Vec<LoadKey>,
    damage: Vec<StressBondDamage>,
    /// An overload list's storage, kept from a cluster whose last solve
    /// found none, for the next solve's list.
    spare_overloads: Vec<Overload>,
}

impl InstanceStress {
    /// The stress of `instance`, with every supported cluster due for a
    /// solve at the first [`Self::update`] (a weak structure fails under its
    /// own weight from the first step). The first of them to be solved
    /// (the lowest handle) is prepared here ([`Self::prepare_next`]).
    ///
    /// # Errors
    /// As [`StressDesc::validate`] and [`StressSolver::new`] (bad materials
    /// for the asset, a zero-area bond), and as [`StressSolver::prepare`]
    /// for the first cluster.
    pub fn new(instance: &Instance, desc: StressDesc) -> Result<Self, StressError> {
        let mut s = Self::unprepared(instance, desc)?;
        s.prepare_next(instance)?;
        Ok(s)
    }

    /// Prepares ([`StressSolver::prepare`]) the cluster the next update
    /// will solve first (the first due after the last update's turn, as
    /// [`Self::update_within`] picks them), unless a solve of it is under
    /// way past its first refinement round (a prepared first round would
    /// not serve it): when it is solved reduced, its super-nodes and
    /// hierarchy are built now rather than in that update (1.5–1.6 ms on
    /// the 100 × 50 × 2 wall, 2–5 ms in a fresh process, page faults
    /// included). [`Self::new`] and [`Self::from_state`] call it: loading
    /// and restoring are where that cost belongs. It changes no result.
    ///
    /// # Errors
    /// As [`StressSolver::prepare`].
    pub fn prepare_next(&mut self, instance: &Instance) -> Result<(), StressError> {
        use std::ops::Bound::{Excluded, Unbounded};
        let after = self
            .turn
            .map(|t| self.dirty.range((Excluded(t), Unbounded)).copied());
        let next = after
            .into_iter()
            .flatten()
            .chain(self.dirty.iter().copied())
            .find(|&h| instance.cluster(h).is_some_and(|c| c.supported));
        let Some(h) = next else {
            return Ok(());
        };
        let refining = self
            .progress
            .binary_search_by_key(&h, |(c, _)| *c)
            .is_ok_and(|at| self.progress[at].1.reduced_round().2 > 0);
        if let (Some(cluster), false) = (instance.cluster(h), refining) {
            self.solver
                .prepare(instance.asset(), &cluster.nodes, instance.health())?;
        }
        Ok(())
    }

    /// [`Self::new`] without the prepare.
    fn unprepared(instance: &Instance, desc: StressDesc) -> Result<Self, StressError> {
        desc.validate()?;
        let solver = StressSolver::new(instance.asset(), desc.settings, desc.materials.clone())?;
        let dirty = instance
            .clusters()
            .filter(|(_, c)| c.supported)
            .map(|(h, _)| h)
            .collect();
        Ok(Self {
            desc,
            solver,
            dirty,
            progress: Vec::new(),
            overloads: BTreeMap::new(),
            loads: BTreeMap::new(),
            changed: Vec::new(),
            sequence: 0,
            turn: None,
            preparing: Vec::new(),
            utilisation: vec![0.0; instance.asset().bond_count()],
            // Room for every bond: an update never grows it.
            utilisation_changes: Vec::with_capacity(instance.asset().bond_count()),
            point_loads: Vec::new(),
            still_dirty: Vec::new(),
            solved_keys: Vec::new(),
            spare_overloads: Vec::new(),
            damage: Vec::new(),
        })
    }

    /// The description.
    pub fn desc(&self) -> &StressDesc {
        &self.desc
    }

    /// The solver (its last solve's bond stresses, for display).
    pub fn solver(&self) -> &StressSolver {
        &self.solver
    }

    /// True when the next update has nothing to do: no cluster to solve and
    /// no standing overload.
    pub fn is_idle(&self) -> bool {
        self.dirty.is_empty() && self.overloads.is_empty() && self.changed.is_empty()
    }

    /// The standing overloads of `cluster` (empty when none).
    pub fn overloads(&self, cluster: ClusterHandle) -> &[Overload] {
        self.overloads.get(&cluster).map_or(&[], Vec::as_slice)
    }

    /// How close each bond is to breaking, from the last converged solve of
    /// its cluster: the largest of `σ / fatal` over compression, tension
    /// and shear (dimensionless; ≥ 1 breaks). One entry per asset bond; 0
    /// for bonds never solved (free clusters, before the first update).
    pub fn utilisation(&self) -> &[f32] {
        &self.utilisation
    }

    /// The bonds whose [`Self::utilisation`] moved by more than
    /// [`UTILISATION_STEP`] in the last [`Self::update`], with the new value,
    /// ascending by bond (for recording runs: what changed, not every bond
    /// every step).
    pub fn utilisation_changes(&self) -> &[(BondIndex, f32)] {
        &self.utilisation_changes
    }

    /// The sustained loads, by key.
    pub fn loads(&self) -> impl Iterator<Item = (LoadKey, &ChunkLoad)> + '_ {
        self.loads.iter().map(|(k, l)| (*k, l))
    }

    /// Sets (or replaces) the sustained load `key` on `chunk`: `force` (N)
    /// at `point` (m), world frame. Its cluster is re-solved at the next
    /// update when the load is new or differs from the one it was last
    /// solved with by more than the tolerances of [`StressDesc`].
    ///
    /// # Errors
    /// [`StressError::NonFiniteLoad`] for a non-finite force or point,
    /// [`StressError::NodeOutOfRange`] for a chunk the asset does not have.
    /// Nothing changes on error.
    pub fn set_load(
        &mut self,
        instance: &Instance,
        key: LoadKey,
        chunk: ChunkIndex,
        force: Vec3,
        point: Vec3,
    ) -> Result<(), StressError> {
        if !(force.is_finite() && point.is_finite()) {
            return Err(StressError::NonFiniteLoad { load: None });
        }
        if chunk.0 as usize >= instance.asset().chunk_count() {
            return Err(StressError::NodeOutOfRange(chunk));
        }
        let desc = &self.desc;
        let differs = |old: (Vec3, Vec3)| {
            let df = (force - old.0).length();
            df > (desc.load_tolerance * old.0.length()).max(desc.load_floor)
                || (point - old.1).length() > desc.load_move
        };
        let load = self.loads.entry(key).or_insert(ChunkLoad {
            chunk,
            force,
            point,
            solved: None,
        });
        let moved_chunk = load.chunk != chunk;
        if moved_chunk {
            self.changed.push(load.chunk);
            load.solved = None;
        }
        load.chunk = chunk;
        load.force = force;
        load.point = point;
        if load.solved.is_none_or(differs) {
            self.changed.push(chunk);
        }
        Ok(())
    }

    /// Removes the load `key` (its cluster is re-solved if the load was part
    /// of its last solve). Unknown keys are ignored.
    pub fn remove_load(&mut self, key: LoadKey) {
        if let Some(l) = self.loads.remove(&key)
            && l.solved.is_some()
        {
            self.changed.push(l.chunk);
        }
    }

    /// Removes and returns the solve in progress of `cluster`, if any.
    fn take_progress(&mut self, cluster: ClusterHandle) -> Option<SolveProgress> {
        take_progress(&mut self.progress, cluster)
    }

    /// Drops `cluster`'s standing overloads, keeping the list's storage
    /// for the next solve's when it is the larger.
    fn forget_overloads(&mut self, cluster: ClusterHandle) {
        if let Some(list) = self.overloads.remove(&cluster)
            && list.capacity() > self.spare_overloads.capacity()
        {
            self.spare_overloads = list;
        }
    }

    /// Marks `cluster` for a solve at the next update.
    pub fn mark(&mut self, cluster: ClusterHandle) {
        self.dirty.insert(cluster);
    }

    /// Takes in a commit of `instance`: supported clusters that lost a
    /// bond, lost chunks or were created are solved again (free ones are
    /// not solved and leave the clusters due); removed clusters are
    /// forgotten. A supported cluster the commit created or shrank with
    /// more than [`StressSettings::reduce_above`] chunks (when that is
    /// not 0) is prepared in steps before its solve (see
    /// [`Self::update_within`]); one that lost a bond while being prepared
    /// starts its preparation again. O(broken bonds + clusters named by the
    /// outcome).
    pub fn observe_commit(&mut self, instance: &Instance, outcome: &CommitOutcome) {
        for h in &outcome.removed {
            self.forget_overloads(*h);
            self.dirty.remove(h);
            self.take_progress(*h);
            self.set_preparing(*h, false);
        }
        let reduce_above = self.desc.settings.reduce_above as usize;
        // Only supported clusters wait for a solve: a free one is never
        // solved (`update_within` would only pass over it, which cost a
        // B-tree removal and search each for the 1,675 pieces a wall's
        // collapse set free in one commit).
        let supported = |h: ClusterHandle| instance.cluster(h).is_some_and(|c| c.supported);
        for &h in outcome.created.iter().chain(&outcome.shrunk) {
            self.forget_overloads(h);
            self.take_progress(h);
            let large = instance
                .cluster(h)
                .is_some_and(|c| c.supported && reduce_above > 0 && c.nodes.len() > reduce_above);
            self.set_preparing(h, large);
            if supported(h) {
                self.dirty.insert(h);
            } else {
                self.dirty.remove(&h);
            }
        }
        let bonds = instance.asset().bonds();
        for &b in &outcome.broken {
            if let Some(h) = instance.cluster_of(bonds[b].chunk0) {
                self.forget_overloads(h);
                if supported(h) {
                    self.dirty.insert(h);
                } else {
                    self.dirty.remove(&h);
                }
                self.take_progress(h);
                if let Ok(at) = self.preparing.binary_search_by_key(&h, |(c, _)| *c) {
                    self.preparing[at].1 = 0;
                }
            }
        }
    }

    /// Puts `cluster` in the preparing list from its first step (`on`),
    /// or takes it out.
    fn set_preparing(&mut self, cluster: ClusterHandle, on: bool) {
        match (
            self.preparing.binary_search_by_key(&cluster, |(c, _)| *c),
            on,
        ) {
            (Ok(at), true) => self.preparing[at].1 = 0,
            (Ok(at), false) => {
                self.preparing.remove(at);
            }
            (Err(at), true) => self.preparing.insert(at, (cluster, 0)),
            (Err(_), false) => {}
        }
    }

    /// One frame of stress for `instance`: solves the clusters that changed
    /// under `gravity` (m/s², world) and their loads, and turns the standing
    /// overloads into the damage of a step of `dt` seconds. The event, if
    /// any, has the next id of [`EventSource::STRESS`]; admit it on the
    /// instance ([`Instance::admit`]) for the next commit.
    ///
    /// # Errors
    /// [`StressError::BadTimeStep`], [`StressError::NonFiniteLoad`] for a
    /// non-finite gravity, and solver errors (which cannot happen for the
    /// instance the stress was made for). Nothing changes on error except
    /// warm starts.
    pub fn update(
        &mut self,
        instance: &Instance,
        gravity: Vec3,
        dt: f32,
    ) -> Result<StressUpdate, StressError> {
        let mut unlimited = u64::MAX;
        self.update_within(instance, gravity, dt, &mut unlimited)
    }

    /// [`Self::update`] within a work budget: `budget` bond passes (see
    /// [Work](super::solver#work)), decreased by the work done. Clusters are
    /// solved in handle order, starting after the last one served when the
    /// previous budget ran out (so a cluster whose solve keeps restarting,
    /// under loads that change every frame, cannot keep the others
    /// waiting), each within what is left of the budget
    /// ([`StressSolver::solve_within`]). A solve the budget cuts short is
    /// unconverged (its cluster takes no new stress damage yet) and is
    /// resumed exactly where it stopped at the cluster's next solve, unless
    /// the cluster or its loads changed in between; so a solve spread over
    /// several updates ends with bit for bit the bonds results of one
    /// unbudgeted update, only later. Once the budget is spent the
    /// remaining clusters wait for a later update
    /// ([`StressUpdate::deferred`]). The first solve of an update always
    /// runs at least one iteration (a reduced one: one step), so every
    /// update with a budget makes progress, and an update overshoots the
    /// budget by at most one step of one cluster's solve (an iteration's
    /// update with the evaluation, or its preconditioning; a piece of the
    /// hierarchy's build) plus its gathering, or, for a full solve that
    /// starts, its set-up, start and first update (see
    /// [`StressSolver::solve_within`] and "Slices" in
    /// [`crate::stress::solver::reduced`]). Standing overloads
    /// still damage their bonds every update. A budget of 0 solves nothing.
    ///
    /// A cluster a commit created or shrank with more than
    /// [`StressSettings::reduce_above`] chunks (see
    /// [`Self::observe_commit`]) is first prepared in steps, within the
    /// budget like a solve ([`StressSolver::prepare_within`]: its gather,
    /// the bonds' copies, adjacency and grouping into super-nodes), and
    /// solved once the last step is taken, in the same update if budget is
    /// left ([`StressUpdate::preparing`] counts the updates it took steps
    /// in; an unlimited [`Self::update`] prepares and solves at once).
    /// Taken in one call, that set-up cost 1.5–2.3 ms on the 100 × 50 × 2
    /// wall after a collapse; in steps it takes about ten updates of the
    /// default budget, and the solve after it gives the results it gives
    /// without them.
    ///
    /// # Errors
    /// As [`Self::update`].
    pub fn update_within(
        &mut self,
        instance: &Instance,
        gravity: Vec3,
        dt: f32,
        budget: &mut u64,
    ) -> Result<StressUpdate, StressError> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(StressError::BadTimeStep(dt));
        }
        if !gravity.is_finite() {
            return Err(StressError::NonFiniteLoad { load: None });
        }
        let mut out = StressUpdate::default();
        self.utilisation_changes.clear();
        let changed = std::mem::take(&mut self.changed);
        for &c in &changed {
            if let Some(h) = instance.cluster_of(c) {
                self.forget_overloads(h);
                self.dirty.insert(h);
            }
        }
        // (Its storage back, emptied.)
        self.changed = changed;
        self.changed.clear();
        self.still_dirty.clear();
        // Clusters after the turn first, then from the lowest handle, so
        // that one whose solve keeps restarting cannot starve the others.
        let mut cursor = self.turn.take();
        loop {
            if *budget == 0 {
                out.deferred = self.dirty.len() as u32;
                self.turn = cursor;
                break;
            }
            let after = cursor.and_then(|c| {
                use std::ops::Bound::{Excluded, Unbounded};
                self.dirty.range((Excluded(c), Unbounded)).next().copied()
            });
            let Some(h) = after.or_else(|| self.dirty.first().copied()) else {
                break;
            };
            self.dirty.remove(&h);
            cursor = Some(h);
            let Some(cluster) = instance.cluster(h) else {
                self.forget_overloads(h);
                self.take_progress(h);
                self.set_preparing(h, false);
                continue;
            };
            if !cluster.supported {
                self.forget_overloads(h);
                self.take_progress(h);
                self.set_preparing(h, false);
                continue;
            }
            if let Ok(at) = self.preparing.binary_search_by_key(&h, |(c, _)| *c) {
                // Its reduced system is prepared in steps first: the
                // gather and grouping of a cluster of thousands of chunks
                // took 1.5–2.3 ms in one call (see `prepare_within`).
                let p = self.solver.prepare_within(
                    instance.asset(),
                    &cluster.nodes,
                    instance.health(),
                    *budget,
                    self.preparing[at].1,
                )?;
                *budget = budget.saturating_sub(p.work);
                out.work += p.work;
                out.preparing += 1;
                if p.finished {
                    self.preparing.remove(at);
                } else {
                    self.preparing[at].1 = p.done;
                }
                if !p.finished || *budget == 0 {
                    self.still_dirty.push(h);
                    continue;
                }
                // Prepared with budget left: its solve starts now.
            }
            let frame = cluster.asset_to_world();
            let to_asset = frame.inverse();
            self.point_loads.clear();
            self.solved_keys.clear();
            for (k, l) in &self.loads {
                if instance.cluster_of(l.chunk) == Some(h) {
                    self.point_loads.push(PointLoad {
                        chunk: l.chunk,
                        force: to_asset.rotation * l.force,
                        point: to_asset.transform_point(l.point),
                    });
                    self.solved_keys.push(*k);
                }
            }
            let loads = StressLoads {
                gravity: to_asset.rotation * gravity,
                point_loads: &self.point_loads,
                angular_velocity: Vec3::ZERO,
            };
            let mut progress = take_progress(&mut self.progress, h);
            let report = self.solver.solve_within(
                instance.asset(),
                &cluster.nodes,
                instance.health(),
                &loads,
                *budget,
                &mut progress,
            )?;
            if let Some(p) = progress {
                let at = self.progress.partition_point(|(c, _)| *c < h);
                self.progress.insert(at, (h, p));
            }
            *budget = budget.saturating_sub(report.work);
            out.work += report.work;
            out.solves += 1;
            out.iterations += report.iterations;
            out.max_residual = out.max_residual.max(report.residual);
            if !report.converged {
                out.unconverged += 1;
                self.forget_overloads(h);
                self.still_dirty.push(h);
                continue;
            }
            for k in &self.solved_keys {
                if let Some(l) = self.loads.get_mut(k) {
                    l.solved = Some((l.force, l.point));
                }
            }
            // One pass over the bonds: each bond's utilisation and, unless
            // the solve was skipped, its overload, into the cluster's list
            // (its storage kept from the last solve, or the spare's).
            let mut list = self
                .overloads
                .remove(&h)
                .unwrap_or_else(|| std::mem::take(&mut self.spare_overloads));
            list.clear();
            let stresses = self.solver.bond_stresses();
            let skipped = report.mode == SolveMode::Skipped;
            let (utilisation, changes) = (&mut self.utilisation, &mut self.utilisation_changes);
            let materials = self.solver.materials();
            match materials.materials.as_slice() {
                // One material (the common case).
                [m] => bond_pass(stresses, skipped, |_| m, utilisation, changes, &mut list),
                _ => bond_pass(
                    stresses,
                    skipped,
                    |b| materials.of(b),
                    utilisation,
                    changes,
                    &mut list,
                ),
            }
            if list.is_empty() {
                self.spare_overloads = list;
            } else {
                self.overloads.insert(h, list);
            }
        }
        self.dirty.extend(self.still_dirty.drain(..));
        self.utilisation_changes.sort_unstable_by_key(|&(b, _)| b);
        self.damage.clear();
        let health = instance.health();
        for list in self.overloads.values() {
            out.overloaded += list.len() as u32;
            for o in list {
                let h = health.get(o.bond.0 as usize).copied().unwrap_or(0.0);
                if !(h > 0.0) {
                    continue;
                }
                let damage = if o.fatal { h } else { (o.rate * dt).min(h) };
                if damage > 0.0 || o.fatal {
                    self.damage.push(StressBondDamage {
                        bond: o.bond,
                        damage,
                        fatal: o.fatal,
                    });
                }
            }
        }
        if !self.damage.is_empty() {
            self.damage.sort_unstable_by_key(|d| d.bond);
            self.damage.dedup_by_key(|d| d.bond);
            // The worst bond: fatal first, then the most damage, then the
            // lowest index.
            let worst = self
                .damage
                .iter()
                .max_by(|a, b| {
                    (a.fatal, a.damage)
                        .partial_cmp(&(b.fatal, b.damage))
                        .unwrap_or(std::cmp::Ordering::Equal)
                        .then(b.bond.cmp(&a.bond))
                })
                .map(|d| d.bond);
            let point = worst
                .and_then(|b| {
                    let bond = instance.asset().bonds().get(b)?;
                    let c = instance.cluster(instance.cluster_of(bond.chunk0)?)?;
                    Some(c.asset_to_world().transform_point(bond.centroid))
                })
                .unwrap_or(Vec3::ZERO);
            out.event = Some(StressDamage {
                id: EventId::new(EventSource::STRESS, self.sequence),
                point,
                bonds: self.damage.clone(),
            });
            self.sequence += 1;
        }
        Ok(out)
    }

    /// Writes what decides this stress's future events into `h` (its
    /// sequence, the clusters due for a solve, the standing overloads and
    /// the loads, in their stable orders; not the solver's warm start),
    /// O(dirty + overloads + loads). For state hashes of the worlds that
    /// carry it.
    pub fn hash_into(&self, h: &mut crate::hash::StateHasher) {
        h.write_u64(self.sequence);
        if let Some(c) = self.turn {
            h.write_u32(c.index());
            h.write_u32(c.generation());
        }
        h.write_u64(self.dirty.len() as u64);
        for c in &self.dirty {
            h.write_u32(c.index());
            h.write_u32(c.generation());
        }
        for (c, list) in &self.overloads {
            h.write_u32(c.index());
            h.write_u32(c.generation());
            for o in list {
                h.write_u32(o.bond.0);
                h.write_f32(o.rate);
                h.write_u32(u32::from(o.fatal));
            }
        }
        for (k, l) in &self.loads {
            h.write_u64(k.0);
            h.write_u64(k.1);
            h.write_u32(l.chunk.0);
            for v in l.force.to_array().into_iter().chain(l.point.to_array()) {
                h.write_f32(v);
            }
        }
        h.write_u64(self.changed.len() as u64);
        for (c, p) in &self.progress {
            h.write_u32(c.index());
            h.write_u32(c.generation());
            h.write_u32(p.iterations());
            let (round, stage, refined) = p.reduced_round();
            if round > 0 {
                // A reduced solve's place (full solves hash as before).
                h.write_u32(round);
                h.write_u32(u32::from(stage));
                h.write_u64(refined as u64);
                if let Some(fields) = p.stage_fields() {
                    h.write_u32(fields[0]);
                    h.write_u32(fields[1]);
                }
            }
        }
        // Preparations in steps (none: the hash is as before them).
        for (c, done) in &self.preparing {
            h.write_u32(c.index());
            h.write_u32(c.generation());
            h.write_u32(*done);
        }
    }

    /// The state that decides future results, for a snapshot.
    pub fn state(&self) -> InstanceStressState {
        let (u, t) = self.solver.warm_start();
        InstanceStressState {
            desc: self.desc.clone(),
            dirty: self.dirty.iter().copied().collect(),
            overloads: self
                .overloads
                .iter()
                .map(|(h, l)| (*h, l.clone()))
                .collect(),
            loads: self.loads.iter().map(|(k, l)| (*k, *l)).collect(),
            changed: self.changed.clone(),
            sequence: self.sequence,
            turn: self.turn,
            warm: u.iter().copied().zip(t.iter().copied()).collect(),
            progress: self.progress.clone(),
            preparing: self.preparing.clone(),
        }
    }

    /// Rebuilds the stress of `instance` from a [`Self::state`], and
    /// prepares the cluster its next update solves first
    /// ([`Self::prepare_next`]).
    ///
    /// # Errors
    /// As [`Self::new`], plus [`StressError::AssetMismatch`] when the warm
    /// start does not have one entry per chunk of the instance's asset.
    pub fn from_state(
        instance: &Instance,
        state: InstanceStressState,
    ) -> Result<Self, StressError> {
        let mut s = Self::unprepared(instance, state.desc)?;
        let (u, t): (Vec<DVec3>, Vec<DVec3>) = state.warm.into_iter().unzip();
        s.solver.set_warm_start(&u, &t)?;
        s.dirty = state.dirty.into_iter().collect();
        s.overloads = state.overloads.into_iter().collect();
        s.loads = state.loads.into_iter().collect();
        s.changed = state.changed;
        s.sequence = state.sequence;
        s.turn = state.turn;
        s.progress = state.progress;
        s.progress.sort_by_key(|(c, _)| *c);
        s.progress.dedup_by_key(|(c, _)| *c);
        s.preparing = state.preparing;
        s.preparing.sort_by_key(|(c, _)| *c);
        s.preparing.dedup_by_key(|(c, _)| *c);
        s.prepare_next(instance)?;
        Ok(s)
    }
}
