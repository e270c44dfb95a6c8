//! Several placed assets, addressed by [`InstanceId`]: admission is keyed by
//! (instance, event id), so the same event id may be used on two instances.

use crate::damage::DamageEvent;
use crate::error::DamageError;
use crate::instance::{Admission, Instance, InstanceId};
use crate::recovery::{CommitRecord, RecordError, RecordOutcome};
use std::collections::BTreeMap;

/// An instance with this id is already in the set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0} is already in the set")]
pub struct DuplicateInstance(pub InstanceId);

/// Instances by id, iterated in id order.
#[derive(Clone, Debug, Default)]
pub struct InstanceSet {
    instances: BTreeMap<InstanceId, Instance>,
}

impl InstanceSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an instance under its own id.
    ///
    /// # Errors
    /// [`DuplicateInstance`] when the id is taken; the set is unchanged.
    pub fn insert(&mut self, instance: Instance) -> Result<(), DuplicateInstance> {
        let id = instance.id();
        if self.instances.contains_key(&id) {
            return Err(DuplicateInstance(id));
        }
        self.instances.insert(id, instance);
        Ok(())
    }

    /// Removes and returns an instance.
    pub fn remove(&mut self, id: InstanceId) -> Option<Instance> {
        self.instances.remove(&id)
    }
    /// An instance by id.
    pub fn get(&self, id: InstanceId) -> Option<&Instance> {
        self.instances.get(&id)
    }
    /// An instance by id, mutable.
    pub fn get_mut(&mut self, id: InstanceId) -> Option<&mut Instance> {
        self.instances.get_mut(&id)
    }
    /// All instances in id order.
    pub fn iter(&self) -> impl Iterator<Item = &Instance> + '_ {
        self.instances.values()
    }
    /// Number of instances.
    pub fn len(&self) -> usize {
        self.instances.len()
    }
    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.instances.is_empty()
    }

    /// Admits `event` on instance `id` ([`Instance::admit`]).
    ///
    /// # Errors
    /// [`DamageError::UnknownInstance`] for an id not in the set; otherwise as
    /// [`Instance::admit`]. Nothing changes on error.
    pub fn admit(
        &mut self,
        id: InstanceId,
        event: impl Into<DamageEvent>,
    ) -> Result<Admission, DamageError> {
        self.instances
            .get_mut(&id)
            .ok_or(DamageError::UnknownInstance(id.0))?
            .admit(event)
    }

    /// Applies a record to the instance it names ([`Instance::apply_record`]).
    ///
    /// # Errors
    /// [`RecordError::UnknownInstance`] for an id not in the set; otherwise as
    /// [`Instance::apply_record`]. Nothing changes on error.
    pub fn apply_record(&mut self, record: &CommitRecord) -> Result<RecordOutcome, RecordError> {
        self.instances
            .get_mut(&record.instance)
            .ok_or(RecordError::UnknownInstance(record.instance))?
            .apply_record(record)
    }
}
