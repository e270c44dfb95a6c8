#![allow(clippy::unwrap_used)]
//! Property tests of the stress solve on randomly damaged walls with random
//! vertical loads: every preconditioner's converged answer carries the
//! weight of the supported part and the loads on it into the supports
//! (global equilibrium, within the residual bound), and the answer does not
//! depend on the order the nodes are given in.

use proptest::prelude::*;
use smithereens_core::fixtures::grid_desc;
use smithereens_core::glam::Vec3;
use smithereens_core::island::find_islands;
use smithereens_core::stress::{
    Material, PointLoad, Preconditioner, StressLoads, StressMaterials, StressSettings, StressSolver,
};
use smithereens_core::{Asset, ChunkIndex};

const G: f32 = 9.81;

fn lcg(seed: &mut u64) -> f32 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*seed >> 40) as f32) / ((1u64 << 24) as f32)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    #[test]
    fn converged_bond_forces_carry_the_supported_weight_into_the_supports(
        nx in 2u32..7,
        ny in 2u32..6,
        nz in 1u32..3,
        seed in any::<u64>(),
        pc in 0usize..3,
    ) {
        let asset = Asset::new(&grid_desc(nx, ny, nz, 0.5, 2400.0, 40.0)).unwrap();
        let mut rng = seed;
        // Break a quarter of the bonds above the support row.
        let health: Vec<f32> = asset
            .bonds()
            .iter()
            .map(|b| {
                let in_support_row = asset.chunks()[b.chunk0].support;
                if !in_support_row && lcg(&mut rng) < 0.25 { 0.0 } else { 10.0 }
            })
            .collect();
        let n = asset.chunk_count() as u32;
        let loads: Vec<PointLoad> = (0..(lcg(&mut rng) * 4.0) as u32)
            .map(|_| {
                let chunk = ChunkIndex(((lcg(&mut rng) * n as f32) as u32).min(n - 1));
                let c = asset.chunks()[chunk].centroid;
                PointLoad {
                    chunk,
                    force: Vec3::new(0.0, -10_000.0 * lcg(&mut rng), 0.0),
                    point: c + Vec3::new(lcg(&mut rng) - 0.5, 0.0, lcg(&mut rng) - 0.5) * 0.5,
                }
            })
            .collect();
        let l = StressLoads {
            gravity: Vec3::new(0.0, -G, 0.0),
            point_loads: &loads,
            ..Default::default()
        };
        // What reaches the supports: free chunks of supported islands, and
        // the loads on them.
        let mut carried = vec![false; asset.chunk_count()];
        for island in find_islands(&asset, &health) {
            if island.supported {
                for c in island.nodes {
                    carried[c.0 as usize] = !asset.chunks()[c].support;
                }
            }
        }
        let mut expected = 0.0f64;
        let mut free = 0usize;
        for (k, c) in asset.chunks().iter().enumerate() {
            if carried[k] {
                expected += f64::from(c.mass * G);
                free += 1;
            }
        }
        for p in &loads {
            if carried[p.chunk.0 as usize] {
                expected -= f64::from(p.force.y);
            }
        }
        let preconditioner =
            [Preconditioner::Forest, Preconditioner::Multilevel, Preconditioner::Auto][pc];
        let settings = StressSettings {
            preconditioner,
            max_iterations: 5_000,
            ..Default::default()
        };
        let mut nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
        let mut s =
            StressSolver::new(&asset, settings, StressMaterials::uniform(Material::CONCRETE))
                .unwrap();
        let report = s.solve(&asset, &nodes, &health, &l).unwrap();
        prop_assert!(report.converged, "{:?}", report);
        // Vertical bonds out of the support row: compression is the reaction.
        let reaction: f64 = s
            .bond_stresses()
            .iter()
            .filter(|b| {
                let bond = &asset.bonds()[b.bond];
                asset.chunks()[bond.chunk0].support && bond.normal == Vec3::Y
            })
            .map(|b| -f64::from(b.normal_force))
            .sum();
        let weight = f64::from(300.0 * G);
        let tolerance = free as f64 * f64::from(report.residual) * weight + 1e-5 * expected + 1e-2;
        prop_assert!(
            (reaction - expected).abs() <= tolerance,
            "reaction {} expected {} tolerance {}", reaction, expected, tolerance
        );
        // Same bits with the nodes reversed (fresh solver, no warm start).
        let first = s.bond_stresses().to_vec();
        nodes.reverse();
        let mut t =
            StressSolver::new(&asset, settings, StressMaterials::uniform(Material::CONCRETE))
                .unwrap();
        t.solve(&asset, &nodes, &health, &l).unwrap();
        prop_assert_eq!(first, t.bond_stresses().to_vec());
    }
}
