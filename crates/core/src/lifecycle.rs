//! Debris lifecycle (DESIGN §3.9, destruction-system seed "预算与生命周期"):
//! sleep after a time below a velocity threshold, recycle only after the
//! cluster has left authoritative queries, pooled slots with generations.
//!
//! Recycling is two-phase so that a body is never released while a query can
//! still see it:
//! 1. [`Instance::begin_recycle`] withdraws a sleeping dynamic cluster (or
//!    render-only debris) from authoritative queries: admission no longer
//!    measures it or targets it. The backend disables its colliders.
//! 2. After the backend has refreshed its query structures (it calls
//!    [`Instance::mark_queries_refreshed`], typically after the next physics
//!    step), [`Instance::finish_recycle`] releases the cluster and its body
//!    slot. This is a commit: it advances the commit sequence and the topology
//!    version and returns a [`CommitRecord`] for the journal and replicas.
//!
//! Work that names a cluster or slot carries its generation; a stale
//! generation is refused with a typed error.
//!
//! Time here is the simulation's fixed step (s), never the wall clock.

use crate::budget::{BodySlot, Representation};
use crate::cluster::ClusterHandle;
use crate::instance::Instance;
use crate::recovery::CommitRecord;
use serde::{Deserialize, Serialize};

/// Sleep thresholds.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LifecycleDesc {
    /// Linear speed below which a cluster counts as still, m/s. Finite, ≥ 0.
    pub sleep_linear_speed: f32,
    /// Angular speed below which a cluster counts as still, rad/s. Finite, ≥ 0.
    pub sleep_angular_speed: f32,
    /// Time a cluster must stay still before it sleeps, s. Finite, ≥ 0.
    pub sleep_time: f32,
}

impl Default for LifecycleDesc {
    /// 0.05 m/s, 0.05 rad/s, 1 s.
    fn default() -> Self {
        Self {
            sleep_linear_speed: 0.05,
            sleep_angular_speed: 0.05,
            sleep_time: 1.0,
        }
    }
}

impl LifecycleDesc {
    /// Checks that every threshold is finite and non-negative.
    ///
    /// # Errors
    /// [`LifecycleError::BadThreshold`].
    pub fn validate(&self) -> Result<(), LifecycleError> {
        for v in [
            self.sleep_linear_speed,
            self.sleep_angular_speed,
            self.sleep_time,
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(LifecycleError::BadThreshold(v));
            }
        }
        Ok(())
    }
}

/// Sleep state of a dynamic cluster.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SleepState {
    /// Moving, or still for `still_for` seconds so far.
    Awake {
        /// Time spent below both thresholds, s.
        still_for: f32,
    },
    /// Still for at least the sleep time.
    Asleep,
}

impl Default for SleepState {
    fn default() -> Self {
        Self::Awake { still_for: 0.0 }
    }
}

/// Proof that a cluster was withdrawn from authoritative queries, needed to
/// release it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecycleTicket {
    /// The withdrawn cluster (with its generation).
    pub cluster: ClusterHandle,
    /// Its body slot (with its generation), `None` for render-only debris.
    pub slot: Option<BodySlot>,
    /// Query epoch at withdrawal; the release needs a later epoch.
    pub epoch: u64,
}

/// Why a lifecycle operation was refused. Nothing changes on error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LifecycleError {
    /// The handle names no live cluster (stale generation or unknown).
    #[error("cluster {0} does not exist (stale handle)")]
    StaleCluster(ClusterHandle),
    /// The slot was released and reused since the work was issued.
    #[error("{0} is stale: the slot was released since")]
    StaleSlot(BodySlot),
    /// Only dynamic clusters are recycled.
    #[error("cluster {0} is supported (static) and cannot be recycled")]
    Supported(ClusterHandle),
    /// A body with collision is recycled only once asleep.
    #[error("cluster {0} is awake")]
    Awake(ClusterHandle),
    /// The cluster is already withdrawn.
    #[error("cluster {0} is already being recycled")]
    AlreadyWithdrawn(ClusterHandle),
    /// The ticket does not match a withdrawal of this cluster.
    #[error("cluster {0} was not withdrawn with this ticket")]
    NotWithdrawn(ClusterHandle),
    /// The backend has not refreshed its queries since the withdrawal.
    #[error("cluster {0} may still be visible to authoritative queries")]
    StillInQueries(ClusterHandle),
    /// A threshold or time step is negative or not finite.
    #[error("lifecycle value {0} must be non-negative and finite")]
    BadThreshold(f32),
}

impl Instance {
    /// Advances every awake dynamic cluster's stillness timer by `dt` seconds
    /// using its last synced velocity, and puts to sleep those still for at
    /// least [`LifecycleDesc::sleep_time`]. Returns the clusters that fell
    /// asleep in this call, in handle order.
    ///
    /// # Errors
    /// [`LifecycleError::BadThreshold`] when `dt` is negative or not finite.
    pub fn advance_sleep(&mut self, dt: f32) -> Result<Vec<ClusterHandle>, LifecycleError> {
        if !(dt.is_finite() && dt >= 0.0) {
            return Err(LifecycleError::BadThreshold(dt));
        }
        let desc = self.lifecycle;
        let mut fell = Vec::new();
        for (h, c) in self.clusters.iter_mut_in_place() {
            if c.supported {
                continue;
            }
            let v = c.motion.velocity;
            let still = v.linear.length() < desc.sleep_linear_speed
                && v.angular.length() < desc.sleep_angular_speed;
            c.sleep = match (c.sleep, still) {
                (_, false) => SleepState::default(),
                (SleepState::Asleep, true) => SleepState::Asleep,
                (SleepState::Awake { still_for }, true) => {
                    let t = still_for + dt;
                    if t >= desc.sleep_time {
                        fell.push(h);
                        SleepState::Asleep
                    } else {
                        SleepState::Awake { still_for: t }
                    }
                }
            };
        }
        Ok(fell)
    }

    /// Sets a dynamic cluster's sleep state from the physics engine's own
    /// sleep decision (a backend whose engine already tracks sleeping calls
    /// this for the clusters whose engine state changed, instead of
    /// [`Self::advance_sleep`] over every cluster each step). Supported
    /// clusters never sleep: the call is a no-op for them.
    ///
    /// # Errors
    /// [`LifecycleError::StaleCluster`] for an unknown handle; nothing changes.
    pub fn set_sleep_state(
        &mut self,
        h: ClusterHandle,
        state: SleepState,
    ) -> Result<(), LifecycleError> {
        let c = self
            .clusters
            .get_mut_in_place(h)
            .ok_or(LifecycleError::StaleCluster(h))?;
        if !c.supported {
            c.sleep = state;
        }
        Ok(())
    }

    /// The cluster currently holding `slot`.
    ///
    /// # Errors
    /// [`LifecycleError::StaleSlot`] when the slot was released (and perhaps
    /// reused under a newer generation) since `slot` was issued.
    pub fn check_slot(&self, slot: BodySlot) -> Result<ClusterHandle, LifecycleError> {
        if !self.slots.is_current(slot) {
            return Err(LifecycleError::StaleSlot(slot));
        }
        self.clusters
            .iter()
            .find(|(_, c)| c.slot == Some(slot))
            .map(|(h, _)| h)
            .ok_or(LifecycleError::StaleSlot(slot))
    }

    /// Withdraws a dynamic cluster from authoritative queries, first step of
    /// recycling. A cluster with collision must be asleep; render-only debris
    /// may be withdrawn at any time.
    ///
    /// # Errors
    /// [`LifecycleError::StaleCluster`], [`LifecycleError::Supported`],
    /// [`LifecycleError::Awake`], [`LifecycleError::AlreadyWithdrawn`].
    pub fn begin_recycle(&mut self, h: ClusterHandle) -> Result<RecycleTicket, LifecycleError> {
        let epoch = self.query_epoch;
        let c = self
            .clusters
            .get_mut(h)
            .ok_or(LifecycleError::StaleCluster(h))?;
        if c.supported {
            return Err(LifecycleError::Supported(h));
        }
        if c.withdrawn_at.is_some() {
            return Err(LifecycleError::AlreadyWithdrawn(h));
        }
        if c.representation.is_authoritative() && c.sleep != SleepState::Asleep {
            return Err(LifecycleError::Awake(h));
        }
        c.withdrawn_at = Some(epoch);
        Ok(RecycleTicket {
            cluster: h,
            slot: c.slot,
            epoch,
        })
    }

    /// Called by the backend once its authoritative query structures no longer
    /// contain the colliders it disabled (e.g. after the next physics step).
    pub fn mark_queries_refreshed(&mut self) {
        self.query_epoch += 1;
    }

    /// Query epoch: advanced by [`Self::mark_queries_refreshed`].
    pub fn query_epoch(&self) -> u64 {
        self.query_epoch
    }

    /// Releases a withdrawn cluster and its body slot: its chunks leave the
    /// simulation. A commit of its own: advances the commit sequence and the
    /// topology version; returns its record (journal it, replicate it).
    ///
    /// # Errors
    /// [`LifecycleError::StaleCluster`] / [`LifecycleError::StaleSlot`] for a
    /// ticket whose cluster or slot generation is no longer current,
    /// [`LifecycleError::NotWithdrawn`] for a ticket of another withdrawal,
    /// [`LifecycleError::StillInQueries`] before the queries were refreshed.
    pub fn finish_recycle(
        &mut self,
        ticket: RecycleTicket,
    ) -> Result<CommitRecord, LifecycleError> {
        let c = self
            .clusters
            .get(ticket.cluster)
            .ok_or(LifecycleError::StaleCluster(ticket.cluster))?;
        if let Some(slot) = ticket.slot
            && (!self.slots.is_current(slot) || c.slot != Some(slot))
        {
            return Err(LifecycleError::StaleSlot(slot));
        }
        if c.withdrawn_at != Some(ticket.epoch) || c.slot != ticket.slot {
            return Err(LifecycleError::NotWithdrawn(ticket.cluster));
        }
        if c.representation.is_authoritative() && self.query_epoch <= ticket.epoch {
            return Err(LifecycleError::StillInQueries(ticket.cluster));
        }
        Ok(self.release_cluster(ticket.cluster))
    }

    /// Releases a dynamic cluster as a commit, without the sleep and query
    /// checks (replay: the recorded run made them).
    pub(crate) fn recycle_now(&mut self, h: ClusterHandle) -> Result<CommitRecord, LifecycleError> {
        let c = self
            .clusters
            .get(h)
            .ok_or(LifecycleError::StaleCluster(h))?;
        if c.supported {
            return Err(LifecycleError::Supported(h));
        }
        Ok(self.release_cluster(h))
    }

    fn release_cluster(&mut self, h: ClusterHandle) -> CommitRecord {
        let record = CommitRecord {
            instance: self.id,
            asset: self.asset.fingerprint(),
            commit_seq: self.commit_seq + 1,
            base_topology_version: self.topology_version,
            topology_version: self.topology_version + 1,
            health: Vec::new(),
            removed: vec![h],
            created: Vec::new(),
            motions: Vec::new(),
            receipts: Vec::new(),
            task_path: self.take_task_path_change(),
            next_admission: self.next_admission,
        };
        self.install_own(&record, Vec::new());
        record
    }

    /// True when the cluster takes part in authoritative collision and
    /// queries: it exists, is not render-only debris and is not withdrawn.
    pub fn is_queryable(&self, h: ClusterHandle) -> bool {
        self.clusters.get(h).is_some_and(|c| {
            c.representation != Representation::RenderOnlyDebris && c.withdrawn_at.is_none()
        })
    }
}
