//! Shared fixtures for the core integration tests.

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure
#![allow(dead_code)]

use smithereens_core::fixtures::cube_chunk;
use smithereens_core::glam::{DVec3, Vec3};
use smithereens_core::*;
use std::sync::Arc;

/// Whether `x` and `y` are the same vectors bit for bit (NaN and −0 told
/// apart).
pub fn same_bits(x: &[DVec3], y: &[DVec3]) -> bool {
    x.len() == y.len()
        && x.iter()
            .zip(y)
            .all(|(p, q)| p.to_array().map(f64::to_bits) == q.to_array().map(f64::to_bits))
}

/// Where every hanger bond sits: one hit here breaks them all.
pub const HANGER_POINT: Vec3 = Vec3::new(0.0, -10.0, 0.0);

/// A supported base chunk (index 0) and hanging groups: group `g` is a column
/// of `sizes[g]` unit cubes at x = 2(g+1), chained by strong bonds placed far
/// from any hit, and joined to the base by one weak hanger bond (strength 1)
/// whose centroid is [`HANGER_POINT`] (with `spread`, decorative groups'
/// hangers move to `HANGER_POINT + (0,0,100+20·g)` so each can be hit
/// alone). Chunks of groups in `critical` carry the gameplay-critical tag.
pub fn hanging_groups(sizes: &[u32], critical: &[bool], spread: bool) -> Arc<Asset> {
    let mut desc = AssetDesc {
        chunks: vec![cube_chunk(Vec3::ZERO, 1.0, 1.0, true)],
        bonds: vec![],
        support_depth: None,
    };
    for (g, &n) in sizes.iter().enumerate() {
        let first = desc.chunks.len() as u32;
        for k in 0..n {
            let mut c = cube_chunk(
                Vec3::new(2.0 * (g as f32 + 1.0), k as f32, 0.0),
                1.0,
                1.0,
                false,
            );
            c.gameplay_critical = critical.get(g).copied().unwrap_or(false);
            desc.chunks.push(c);
            if k > 0 {
                desc.bonds.push(BondDesc {
                    chunk0: first + k - 1,
                    chunk1: BondEnd::Chunk(first + k),
                    centroid: Vec3::new(1000.0, 1000.0, 0.0),
                    normal: Vec3::Y,
                    area: 1.0,
                    strength: 1000.0,
                });
            }
        }
        let is_critical = critical.get(g).copied().unwrap_or(false);
        let at = if spread && !is_critical {
            HANGER_POINT + Vec3::new(0.0, 0.0, 100.0 + 20.0 * g as f32)
        } else {
            HANGER_POINT
        };
        desc.bonds.push(BondDesc {
            chunk0: 0,
            chunk1: BondEnd::Chunk(first),
            centroid: at,
            normal: Vec3::X,
            area: 1.0,
            strength: 1.0,
        });
    }
    Arc::new(Asset::new(&desc).unwrap())
}

/// A hit that breaks every hanger within 1 m of `at`.
pub fn hanger_hit(id: u64, at: Vec3) -> RadialDamage {
    RadialDamage {
        id: EventId(id),
        point: at,
        radius: 1.0,
        damage: 1000.0,
        impulse: None,
    }
}

/// A hit far from everything (admitted, changes nothing).
pub fn miss(id: u64) -> RadialDamage {
    RadialDamage {
        id: EventId(id),
        point: Vec3::new(-500.0, 0.0, 0.0),
        radius: 0.5,
        damage: 1.0,
        impulse: None,
    }
}

/// Chunks 0, 1, 2 at x = 0, 1, 2; bonds 0–1 (strength 10) and 1–2 (strength
/// 4) with centroids at x = 0 and 1, so an impact at the origin sees them at
/// distances 0 and 1 (DESIGN §3.3). Chunk 0 is the support.
pub fn three_chunks() -> Arc<Asset> {
    Arc::new(Asset::new(&three_chunks_desc()).unwrap())
}

/// The description behind [`three_chunks`].
pub fn three_chunks_desc() -> AssetDesc {
    AssetDesc {
        chunks: (0..3)
            .map(|k| cube_chunk(Vec3::new(k as f32, 0.0, 0.0), 1.0, 1.0, k == 0))
            .collect(),
        bonds: vec![
            BondDesc {
                chunk0: 0,
                chunk1: BondEnd::Chunk(1),
                centroid: Vec3::ZERO,
                normal: Vec3::X,
                area: 1.0,
                strength: 10.0,
            },
            BondDesc {
                chunk0: 1,
                chunk1: BondEnd::Chunk(2),
                centroid: Vec3::X,
                normal: Vec3::X,
                area: 1.0,
                strength: 4.0,
            },
        ],
        support_depth: None,
    }
}

/// The §3.3 hit: point 0, R = 2 m, D = 6 du.
pub fn hit(id: u64) -> RadialDamage {
    RadialDamage {
        id: EventId(id),
        point: Vec3::ZERO,
        radius: 2.0,
        damage: 6.0,
        impulse: None,
    }
}

/// The N×N×N grid asset of the benchmarks (0.5 m cubes, bottom layer supported).
pub fn grid(n: u32) -> Arc<Asset> {
    Arc::new(Asset::new(&fixtures::grid_desc(n, n, n, 0.5, 2000.0, 40.0)).unwrap())
}

/// A deterministic pseudo-random hit inside an `n`-grid of 0.5 m cubes.
pub fn grid_hit(id: u64, n: u32, rng: &mut u64) -> RadialDamage {
    let mut next = || {
        *rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*rng >> 40) as f32) / ((1u64 << 24) as f32)
    };
    let size = n as f32 * 0.5;
    let point = Vec3::new(next() * size, next() * size, next() * size);
    let impulse = (next() < 0.3).then(|| Vec3::new(next() - 0.5, next(), next() - 0.5) * 20.0);
    RadialDamage {
        id: EventId(id),
        point,
        radius: 0.4 + next() * 0.8,
        damage: 20.0 + next() * 120.0,
        impulse,
    }
}
