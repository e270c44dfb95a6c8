#![allow(clippy::unwrap_used)]
//! Issue 13 item 6: the reduced (multi-resolution) solve of a large
//! cluster reaches the same outcome as the full solve.
//!
//! The scenes of `fixtures::multiresolution_scenes` (a 100 × 50 × 2 wall
//! of 0.5 m cubes, 10,000 chunks, solid and over a 20-column gap in its
//! support, each of concrete, which stands, and of a weak material, which
//! collapses) run the per-frame stress loop with commits until nothing
//! changes, once with every cluster solved in full (`reduce_above = 0`)
//! and once reduced above [`REDUCE_ABOVE`] free chunks. Same outcome: both
//! stand or both collapse, and at least 95 % of the bonds broken in either
//! run are broken in both.

use smithereens_core::fixtures::{MultiresolutionScene, multiresolution_scenes};
use smithereens_core::glam::Vec3;
use smithereens_core::stress::{
    InstanceStress, Material, REDUCE_ABOVE, StressDesc, StressLimit, StressMaterials,
};
use smithereens_core::*;
use std::sync::Arc;

/// Runs stress → event → commit until idle; returns (collapsed, broken
/// bonds ascending, largest residual of a solve).
fn outcome(asset: &Arc<Asset>, m: Material, reduce_above: u32) -> (bool, Vec<BondIndex>, f32) {
    let mut inst = Instance::new(asset.clone(), Pose::IDENTITY).unwrap();
    let mut desc = StressDesc::new(StressMaterials::uniform(m));
    desc.settings.reduce_above = reduce_above;
    desc.settings.max_iterations = 1000;
    let mut stress = InstanceStress::new(&inst, desc).unwrap();
    let mut broken = Vec::new();
    let mut worst = 0.0f32;
    for _ in 0..100 {
        let u = stress
            .update(&inst, Vec3::new(0.0, -9.81, 0.0), 1.0 / 60.0)
            .unwrap();
        assert_eq!(u.unconverged, 0);
        worst = worst.max(u.max_residual);
        let Some(event) = u.event else {
            if stress.is_idle() {
                break;
            }
            continue;
        };
        inst.admit(event).unwrap();
        let out = inst.commit(&mut HeadlessBackend::default()).unwrap();
        stress.observe_commit(&inst, &out);
        broken.extend(out.broken);
    }
    assert!(stress.is_idle(), "the scene settles within 100 steps");
    broken.sort_unstable();
    let collapsed = inst.clusters().any(|(_, c)| !c.supported);
    (collapsed, broken, worst)
}

fn same_outcome(scene: &MultiresolutionScene) {
    let (m, collapses) = (scene.material, scene.collapses);
    let asset = Arc::new(Asset::new(&scene.desc).unwrap());
    let (full_c, full, full_res) = outcome(&asset, m, 0);
    let (red_c, red, red_res) = outcome(&asset, m, REDUCE_ABOVE);
    assert!(full_res <= 1e-3 && red_res <= 1e-3, "{full_res} {red_res}");
    assert_eq!(full_c, collapses, "full solve");
    assert_eq!(red_c, collapses, "reduced solve");
    let common = full.iter().filter(|b| red.binary_search(b).is_ok()).count();
    let most = full.len().max(red.len());
    assert!(
        common as f64 >= 0.95 * most as f64,
        "{common} bonds broken in both of {} (full) and {} (reduced)",
        full.len(),
        red.len()
    );
    if collapses {
        assert!(common > 0);
    } else {
        assert_eq!(most, 0);
    }
}

#[test]
fn a_strong_solid_wall_stands_full_and_reduced() {
    same_outcome(&multiresolution_scenes()[0]);
}

#[test]
fn a_weak_solid_wall_collapses_with_the_same_bonds_full_and_reduced() {
    same_outcome(&multiresolution_scenes()[1]);
}

#[test]
fn a_strong_wall_over_a_gap_stands_full_and_reduced() {
    same_outcome(&multiresolution_scenes()[2]);
}

#[test]
fn a_weak_wall_over_a_gap_collapses_with_the_same_bonds_full_and_reduced() {
    same_outcome(&multiresolution_scenes()[3]);
}

#[test]
fn a_weak_bond_inside_a_super_node_is_refined_and_reported() {
    use smithereens_core::fixtures::stress_wall_desc;
    use smithereens_core::stress::{StressLoads, StressSettings, StressSolver};
    let asset = Asset::new(&stress_wall_desc(24, 12, 2)).unwrap();
    let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    let health = vec![10.0; asset.bond_count()];
    let loads = StressLoads {
        gravity: Vec3::new(0.0, -9.81, 0.0),
        ..Default::default()
    };
    let settings = |reduce_above| StressSettings {
        max_iterations: 10_000,
        reduce_above,
        ..Default::default()
    };
    let mut concrete = StressSolver::new(
        &asset,
        settings(100),
        StressMaterials::uniform(Material::CONCRETE),
    )
    .unwrap();
    concrete.solve(&asset, &nodes, &health, &loads).unwrap();
    let reported: Vec<BondIndex> = concrete.bond_stresses().iter().map(|b| b.bond).collect();
    let inner: Vec<BondIndex> = asset
        .bonds()
        .iter_enumerated()
        .filter(|(bi, b)| {
            b.normal.y.abs() > 0.9
                && b.centroid.y < 2.0
                && b.chunk1.is_some()
                && !reported.contains(bi)
        })
        .map(|(bi, _)| bi)
        .take(3)
        .collect();
    assert_eq!(inner.len(), 3, "bonds inside super-nodes in the lower rows");
    let weak = Material {
        compression: StressLimit {
            elastic: 50e3,
            fatal: 60e3,
        },
        ..Material::CONCRETE
    };
    for &bi in &inner {
        let mut ids = vec![0u16; asset.bond_count()];
        ids[bi.0 as usize] = 1;
        let materials = StressMaterials {
            materials: vec![Material::CONCRETE, weak],
            bond_material: ids,
        };
        let mut full = StressSolver::new(&asset, settings(0), materials.clone()).unwrap();
        full.solve(&asset, &nodes, &health, &loads).unwrap();
        let exact = full
            .bond_stresses()
            .iter()
            .find(|b| b.bond == bi)
            .unwrap()
            .compression;
        assert!(exact > weak.compression.fatal, "{bi:?}: {exact} Pa");
        let mut reduced = StressSolver::new(&asset, settings(100), materials).unwrap();
        let r = reduced.solve(&asset, &nodes, &health, &loads).unwrap();
        assert!(r.converged, "{r:?}");
        let got = reduced
            .bond_stresses()
            .iter()
            .find(|b| b.bond == bi)
            .unwrap_or_else(|| panic!("{bi:?} is not reported by the reduced solve"))
            .compression;
        // The same outcome: past its fatal limit in both. (Its rigid
        // neighbours make the reduced figure lower, 30 % on the first bond.)
        assert!(
            got > weak.compression.fatal,
            "{bi:?}: reduced {got} Pa, full {exact} Pa"
        );
    }
}
