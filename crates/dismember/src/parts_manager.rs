//! Lifecycle of detached parts by distance, time and budget (seed §8.5).
//!
//! `parts_manager_params.scr`: in front of the camera a part may be created
//! within 25 m and is kept within 30 m; behind, 15 m and 20 m. The gap is a
//! hysteresis band: a part in front at 27 m stays, but a new cut at 27 m
//! creates none. Update interval, removal-check interval and maximum
//! lifetime are separate lifecycle settings (not the physics rate). Budgets
//! count active bodies, constraints and skinned meshes, not triangles.
//!
//! Units: metres and seconds (game time as `f64`, settings as `f32`;
//! elapsed times are compared in `f32`). Parts are kept in a `Vec` in creation order;
//! removals are reported in that order.

use serde::{Deserialize, Serialize};

/// Create and keep distances (m); `keep ≥ create`.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DistanceLimits {
    /// A part may be created within this distance.
    pub create: f32,
    /// An existing part is removed beyond this distance.
    pub keep: f32,
}

/// What one part costs against the budget.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartCost {
    /// Active rigid bodies.
    pub bodies: u32,
    /// Joints / constraints.
    pub constraints: u32,
    /// Skinned meshes.
    pub skinned_meshes: u32,
}

/// Parts-manager settings.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartsManagerParams {
    /// In front of the camera (25 / 30 m).
    pub front: DistanceLimits,
    /// Behind the camera (15 / 20 m).
    pub behind: DistanceLimits,
    /// Time between part updates (s), > 0.
    pub update_interval: f32,
    /// Time between removal checks (s), > 0.
    pub removal_check_interval: f32,
    /// Longest a part lives (s), > 0.
    pub max_lifetime: f32,
    /// Budget for all live parts together.
    pub budget: PartCost,
}

impl Default for PartsManagerParams {
    /// The seed's distances; intervals, lifetime and budget are ours
    /// (the seed names them without values).
    fn default() -> Self {
        Self {
            front: DistanceLimits {
                create: 25.0,
                keep: 30.0,
            },
            behind: DistanceLimits {
                create: 15.0,
                keep: 20.0,
            },
            update_interval: 0.1,
            removal_check_interval: 0.5,
            max_lifetime: 30.0,
            budget: PartCost {
                bodies: 64,
                constraints: 64,
                skinned_meshes: 32,
            },
        }
    }
}

/// Why a parts-manager input was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PartsError {
    /// A setting is non-finite, non-positive, or `keep < create`.
    #[error("parts-manager setting `{0}` is invalid")]
    BadParams(&'static str),
    /// A non-finite or negative distance, or a non-finite time.
    #[error("distance or time is non-finite or negative")]
    BadInput,
}

/// A live part's id, unique for the manager's lifetime.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PartId(pub u64);

#[derive(Copy, Clone, Debug, PartialEq)]
struct Part {
    id: PartId,
    cost: PartCost,
    created: f64,
}

/// Why a part was not created.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CreateRefusal {
    /// Beyond the create distance.
    TooFar,
    /// The budget would be exceeded.
    OverBudget,
}

/// Live parts, their budget use and the removal clock.
#[derive(Clone, Debug, PartialEq)]
pub struct PartsManager {
    params: PartsManagerParams,
    parts: Vec<Part>,
    used: PartCost,
    next_id: u64,
    last_removal_check: f64,
}

impl PartsManager {
    /// A manager with validated settings.
    ///
    /// # Errors
    /// [`PartsError::BadParams`].
    pub fn new(params: PartsManagerParams) -> Result<Self, PartsError> {
        for (name, l) in [("front", params.front), ("behind", params.behind)] {
            if !(l.create.is_finite()
                && l.keep.is_finite()
                && l.create >= 0.0
                && l.keep >= l.create)
            {
                return Err(PartsError::BadParams(name));
            }
        }
        for (name, v) in [
            ("update_interval", params.update_interval),
            ("removal_check_interval", params.removal_check_interval),
            ("max_lifetime", params.max_lifetime),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(PartsError::BadParams(name));
            }
        }
        Ok(Self {
            params,
            parts: Vec::new(),
            used: PartCost::default(),
            next_id: 0,
            last_removal_check: f64::NEG_INFINITY,
        })
    }

    fn limits(&self, in_front: bool) -> DistanceLimits {
        if in_front {
            self.params.front
        } else {
            self.params.behind
        }
    }

    /// Whether a part at `distance` (m) may be created: `distance ≤ create`.
    pub fn can_create(&self, distance: f32, in_front: bool) -> bool {
        distance <= self.limits(in_front).create
    }

    /// Whether an existing part at `distance` (m) should go: `distance > keep`.
    pub fn should_remove(&self, distance: f32, in_front: bool) -> bool {
        distance > self.limits(in_front).keep
    }

    /// Budget in use.
    pub fn used(&self) -> PartCost {
        self.used
    }

    /// Live parts, oldest first.
    pub fn live(&self) -> impl Iterator<Item = PartId> + '_ {
        self.parts.iter().map(|p| p.id)
    }

    /// Creates a part at game time `now` (s) if it is near enough and fits
    /// the budget.
    ///
    /// # Errors
    /// [`PartsError::BadInput`] for a negative or non-finite distance or time.
    pub fn try_create(
        &mut self,
        cost: PartCost,
        distance: f32,
        in_front: bool,
        now: f64,
    ) -> Result<Result<PartId, CreateRefusal>, PartsError> {
        if !(distance.is_finite() && distance >= 0.0 && now.is_finite()) {
            return Err(PartsError::BadInput);
        }
        if !self.can_create(distance, in_front) {
            return Ok(Err(CreateRefusal::TooFar));
        }
        let b = self.params.budget;
        let u = self.used;
        // Checked: a caller's cost of u32::MAX is over budget, not an overflow.
        let fits =
            |used: u32, more: u32, budget: u32| used.checked_add(more).is_some_and(|n| n <= budget);
        if !(fits(u.bodies, cost.bodies, b.bodies)
            && fits(u.constraints, cost.constraints, b.constraints)
            && fits(u.skinned_meshes, cost.skinned_meshes, b.skinned_meshes))
        {
            return Ok(Err(CreateRefusal::OverBudget));
        }
        let id = PartId(self.next_id);
        self.next_id += 1;
        self.used.bodies += cost.bodies;
        self.used.constraints += cost.constraints;
        self.used.skinned_meshes += cost.skinned_meshes;
        self.parts.push(Part {
            id,
            cost,
            created: now,
        });
        Ok(Ok(id))
    }

    /// Runs a removal check if `removal_check_interval` has passed since the
    /// last one: removes parts beyond their keep distance (`where_is` gives
    /// distance in m and whether the part is in front of the camera) or older
    /// than `max_lifetime`, frees their budget and appends their ids to
    /// `removed` in creation order. Returns whether a check ran.
    ///
    /// # Errors
    /// [`PartsError::BadInput`] for a non-finite `now` or a bad distance;
    /// nothing changes.
    pub fn check_removals(
        &mut self,
        now: f64,
        mut where_is: impl FnMut(PartId) -> (f32, bool),
        removed: &mut Vec<PartId>,
    ) -> Result<bool, PartsError> {
        if !now.is_finite() {
            return Err(PartsError::BadInput);
        }
        if ((now - self.last_removal_check) as f32) < self.params.removal_check_interval {
            return Ok(false);
        }
        let mut gone = Vec::new();
        for p in &self.parts {
            let (d, front) = where_is(p.id);
            if !(d.is_finite() && d >= 0.0) {
                return Err(PartsError::BadInput);
            }
            if self.should_remove(d, front) || (now - p.created) as f32 > self.params.max_lifetime {
                gone.push(p.id);
            }
        }
        self.last_removal_check = now;
        for id in gone {
            if let Some(i) = self.parts.iter().position(|p| p.id == id) {
                let p = self.parts.remove(i);
                self.used.bodies -= p.cost.bodies;
                self.used.constraints -= p.cost.constraints;
                self.used.skinned_meshes -= p.cost.skinned_meshes;
                removed.push(id);
            }
        }
        Ok(true)
    }

    /// Whether a part update is due: `update_interval` seconds since `last`.
    pub fn update_due(&self, last: f64, now: f64) -> bool {
        // Compared in f32, the unit the interval is given in (0.1 s is not 0.1f32 in f64).
        (now - last) as f32 >= self.params.update_interval
    }
}
