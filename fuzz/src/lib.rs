//! Fixtures shared by the fuzz targets.

use smithereens_core::{Asset, Instance, Pose, fixtures};
use std::sync::{Arc, OnceLock};

/// A 3 × 3 unit-cube grid with 10 du bonds, built once.
pub fn grid_asset() -> Arc<Asset> {
    static ASSET: OnceLock<Arc<Asset>> = OnceLock::new();
    ASSET
        .get_or_init(|| {
            Arc::new(Asset::new(&fixtures::grid_desc(3, 3, 1, 1.0, 1000.0, 10.0)).unwrap())
        })
        .clone()
}

/// A fresh instance of [`grid_asset`] at the origin.
pub fn grid_instance() -> Instance {
    static BASE: OnceLock<Instance> = OnceLock::new();
    BASE.get_or_init(|| Instance::new(grid_asset(), Pose::IDENTITY).unwrap())
        .clone()
}
