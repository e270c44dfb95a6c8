//! Small generated assets for tests, examples and benchmarks.

mod stress_structures;
#[cfg(test)]
pub(crate) use stress_structures::refining_solver;
pub use stress_structures::{
    MultiresolutionScene, health_with_cut, multiresolution_scenes, refining_material,
    refining_wall, stress_bridge_desc, stress_tower_desc, stress_wall_desc,
};

use crate::asset::{Asset, AssetDesc, BondDesc, BondEnd, ChunkDesc, HullDesc};
use crate::error::AssetError;
use crate::index::ChunkIndex;
use glam::{Mat3, Vec3};

/// The chunk of `nodes` whose centroid is highest (largest y; the last of
/// equals in `nodes` order), `None` when `nodes` is empty: where the stress
/// tests push a structure.
pub fn highest_chunk(asset: &Asset, nodes: &[ChunkIndex]) -> Option<ChunkIndex> {
    nodes.iter().copied().max_by(|&a, &b| {
        asset.chunks()[a]
            .centroid
            .y
            .total_cmp(&asset.chunks()[b].centroid.y)
    })
}

/// `n` unit cubes of 1 kg along +X (chunk k centred at x = k), joined by the
/// given bonds (centred between their chunks, normal +X, area 1 m², strength
/// 10 du), with the given support chunks.
///
/// # Errors
/// Any [`AssetError`] from validation (e.g. a bond to a missing chunk).
pub fn chain(n: u32, bonds: &[(u32, u32)], supports: &[u32]) -> Result<Asset, AssetError> {
    let desc = AssetDesc {
        chunks: (0..n)
            .map(|k| {
                cube_chunk(
                    Vec3::new(k as f32, 0.0, 0.0),
                    1.0,
                    1.0,
                    supports.contains(&k),
                )
            })
            .collect(),
        bonds: bonds
            .iter()
            .map(|&(a, b)| BondDesc {
                chunk0: a,
                chunk1: BondEnd::Chunk(b),
                centroid: Vec3::new((a + b) as f32 * 0.5, 0.0, 0.0),
                normal: Vec3::X,
                area: 1.0,
                strength: 10.0,
            })
            .collect(),
        support_depth: None,
    };
    Asset::new(&desc)
}

/// A solid cube chunk of edge `size` (m) and density `density` (kg/m³)
/// centred at `center`, with its 8 corners as the collision hull.
pub fn cube_chunk(center: Vec3, size: f32, density: f32, support: bool) -> ChunkDesc {
    let h = size * 0.5;
    let volume = size * size * size;
    let mass = density * volume;
    let points = (0..8)
        .map(|k| {
            center
                + Vec3::new(
                    if k & 1 == 0 { -h } else { h },
                    if k & 2 == 0 { -h } else { h },
                    if k & 4 == 0 { -h } else { h },
                )
        })
        .collect();
    ChunkDesc {
        volume,
        mass,
        centroid: center,
        inertia: Mat3::from_diagonal(Vec3::splat(mass * size * size / 6.0)),
        hulls: vec![HullDesc { points }],
        support,
        gameplay_critical: false,
        parent: None,
        depth: 0,
    }
}

/// An `nx × ny × nz` grid of cubes of edge `size` (m), density `density`,
/// bottom layer (y index 0) resting on y = 0 and marked support, every
/// face-adjacent pair bonded with strength `strength_per_area × size²` du.
/// Chunk index = x + nx·(y + ny·z). Bonds in order of (lower chunk, axis).
pub fn grid_desc(
    nx: u32,
    ny: u32,
    nz: u32,
    size: f32,
    density: f32,
    strength_per_area: f32,
) -> AssetDesc {
    let idx = |x: u32, y: u32, z: u32| x + nx * (y + ny * z);
    let mut desc = AssetDesc::default();
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let c = Vec3::new(
                    (x as f32 + 0.5) * size,
                    (y as f32 + 0.5) * size,
                    (z as f32 + 0.5) * size,
                );
                desc.chunks.push(cube_chunk(c, size, density, y == 0));
            }
        }
    }
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let a = idx(x, y, z);
                let base = desc.chunks[a as usize].centroid;
                for (axis, ok, b) in [
                    (Vec3::X, x + 1 < nx, idx(x + 1, y, z)),
                    (Vec3::Y, y + 1 < ny, idx(x, (y + 1).min(ny - 1), z)),
                    (Vec3::Z, z + 1 < nz, idx(x, y, (z + 1).min(nz - 1))),
                ] {
                    if ok {
                        desc.bonds.push(BondDesc {
                            chunk0: a,
                            chunk1: BondEnd::Chunk(b),
                            centroid: base + axis * (size * 0.5),
                            normal: axis,
                            area: size * size,
                            strength: strength_per_area * size * size,
                        });
                    }
                }
            }
        }
    }
    desc
}

/// Issue 12's grid, the layout of NVIDIA Blast's grid benchmarks: `n³` unit
/// cubes (1 m, 1000 kg/m³) with face bonds of 10 du, no support chunk, and
/// a world bond (area 1 m², 10 du) under every chunk of the z = 0 layer
/// (chunk indices `0..n²`). Used by `benches/grid.rs` and
/// `examples/grid_profile.rs`.
pub fn blast_grid_desc(n: u32) -> AssetDesc {
    let mut desc = grid_desc(n, n, n, 1.0, 1000.0, 10.0);
    for c in &mut desc.chunks {
        c.support = false;
    }
    for k in 0..n * n {
        let c = desc.chunks[k as usize].centroid;
        desc.bonds.push(BondDesc {
            chunk0: k,
            chunk1: BondEnd::World,
            centroid: c - Vec3::Z * 0.5,
            normal: -Vec3::Z,
            area: 1.0,
            strength: 10.0,
        });
    }
    desc
}
