//! Shared fixtures of the net tests: a core authority of two instances.
#![allow(dead_code, clippy::unwrap_used)]

use smithereens_core::instance::{InstanceDesc, InstanceId};
use smithereens_core::{Asset, BudgetDesc, Instance};
use smithereens_net::Welcome;
use std::sync::Arc;

/// Two instances (ids 0 and 1) of `asset`, 24 body slots each.
pub fn instances(asset: &Arc<Asset>) -> Vec<Instance> {
    (0..2)
        .map(|k| {
            let desc = InstanceDesc {
                id: InstanceId(k),
                budget: BudgetDesc {
                    body_slots: 24,
                    ..BudgetDesc::default()
                },
                ..InstanceDesc::default()
            };
            Instance::with_desc(asset.clone(), desc).unwrap()
        })
        .collect()
}

/// The welcome of `instances` with no scenario text (receivers get their
/// instances from the test, not from a scenario).
pub fn welcome_of(instances: &[Instance]) -> Welcome {
    Welcome::new(String::new(), String::new(), instances)
}
