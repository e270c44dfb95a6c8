pub use bvh_insert::BvhLeafUpdateStatus;
pub use bvh_traverse::{BvhLeafCost, TraversalAction};
pub use bvh_tree::{Bvh, BvhBuildStrategy, BvhNode, BvhNodeIndex, BvhNodeWide, BvhWorkspace};

use bvh_optimize::BvhOptimizationHeapEntry;

mod bvh_binned_build;
mod bvh_insert;
mod bvh_optimize;
mod bvh_ploc_build;
mod bvh_queries;
mod bvh_refit;
mod bvh_traverse;
mod bvh_traverse_bvtt;
mod bvh_tree;
mod bvh_validation;

#[cfg(test)]
mod bvh_tests;
