//! Bench scenes shared by the bench targets (built from seeded generators).

#![allow(dead_code)]

use glam::Vec3;
use smithereens_core::fixtures::{cube_chunk, grid_desc};
use smithereens_core::{Asset, AssetDesc, Pose};
use smithereens_rapier::{DestructionWorld, Explosion, ProjectileDesc, WorldSettings};
use std::sync::Arc;

/// A wall of `nx × ny × nz` cubes of 0.25 m on the ground, hit at its centre
/// by a 450 kg ball at 24 m/s.
pub fn wall(nx: u32, ny: u32, nz: u32) -> DestructionWorld {
    let size = 0.25;
    let asset =
        Arc::new(Asset::new(&grid_desc(nx, ny, nz, size, 2400.0, 1500.0)).expect("valid grid"));
    let settings = WorldSettings::default();
    let mut w = DestructionWorld::new(asset, Pose::IDENTITY, settings).expect("world");
    let centre = Vec3::new(nx as f32 * size * 0.5, ny as f32 * size * 0.5, -1.5);
    w.spawn_projectile(ProjectileDesc {
        position: centre,
        velocity: Vec3::new(0.0, 0.0, 24.0),
        radius: 0.4,
        mass: 450.0,
    })
    .expect("projectile");
    w
}

/// A span of `nx × 3 × 5` cubes of 0.2 m (nx = 60: 900 chunks, 12 m long)
/// resting on its two end columns 3 m above the ground; a blast cuts its middle.
pub fn bridge(nx: u32) -> DestructionWorld {
    let (ny, nz, size) = (3, 5, 0.2);
    let mut desc = grid_desc(nx, ny, nz, size, 2400.0, 3000.0);
    for (k, c) in desc.chunks.iter_mut().enumerate() {
        let x = k as u32 % nx;
        c.support = x == 0 || x == nx - 1;
    }
    let asset = Arc::new(Asset::new(&desc).expect("valid grid"));
    let mut w = DestructionWorld::new(
        asset,
        Pose::from_translation(Vec3::new(0.0, 3.0, 0.0)),
        WorldSettings::default(),
    )
    .expect("world");
    let mid = Vec3::new(
        nx as f32 * size * 0.5,
        3.0 + ny as f32 * size * 0.5,
        nz as f32 * size * 0.5,
    );
    w.explode(Explosion {
        id: smithereens_core::EventId(1),
        point: mid,
        radius: 0.5,
        damage: 1.0e6,
        impulse: 50.0,
        inner_radius: 0.0,
    })
    .expect("blast");
    w
}

/// `n` loose cubes of 0.3 m (each its own dynamic body) in a loose grid,
/// dropping onto the ground.
pub fn debris(n: u32) -> DestructionWorld {
    let side = (n as f32).cbrt().ceil() as u32;
    let mut desc = AssetDesc::default();
    for k in 0..n {
        let (x, y, z) = (k % side, (k / side) % side, k / (side * side));
        desc.chunks.push(cube_chunk(
            Vec3::new(x as f32 * 0.4, 0.5 + y as f32 * 0.4, z as f32 * 0.4),
            0.3,
            1000.0,
            false,
        ));
    }
    let asset = Arc::new(Asset::new(&desc).expect("valid debris"));
    DestructionWorld::new(asset, Pose::IDENTITY, WorldSettings::default()).expect("world")
}

/// A floating `nx × ny × nz` grid of 0.25 m cubes (one dynamic cluster) in zero gravity.
pub fn floating_block(nx: u32, ny: u32, nz: u32) -> (DestructionWorld, Arc<Asset>) {
    let mut desc = grid_desc(nx, ny, nz, 0.25, 2400.0, 1000.0);
    desc.chunks.iter_mut().for_each(|c| c.support = false);
    let asset = Arc::new(Asset::new(&desc).expect("valid grid"));
    let settings = WorldSettings {
        gravity: Vec3::ZERO,
        ground_y: None,
        ..WorldSettings::default()
    };
    (
        DestructionWorld::new(asset.clone(), Pose::IDENTITY, settings).expect("world"),
        asset,
    )
}

/// A standing wall of `nx × ny × nz` cubes of 0.25 m on its bottom row, with
/// no projectile, and the world centre of its top corner cube (x = 0).
#[allow(dead_code)] // each bench binary uses its own scenes
pub fn standing_wall(nx: u32, ny: u32, nz: u32) -> (DestructionWorld, Vec3) {
    let size = 0.25;
    let asset =
        Arc::new(Asset::new(&grid_desc(nx, ny, nz, size, 2400.0, 1500.0)).expect("valid grid"));
    let w = DestructionWorld::new(asset, Pose::IDENTITY, WorldSettings::default()).expect("world");
    (w, Vec3::new(0.5, ny as f32 - 0.5, 0.5) * size)
}
