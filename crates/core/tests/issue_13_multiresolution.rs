#![allow(clippy::unwrap_used)]
//! Issue 13 item 6: the reduced (multi-resolution) solve of a large
//! cluster reaches the same outcome as the full solve.
//!
//! A 100 × 50 × 2 wall of 0.5 m cubes (10,000 chunks, 2,400 kg/m³, one cube
//! weighs W = 2,943 N; the bottom row is supported) runs the per-frame
//! stress loop with commits until nothing changes, once with every
//! cluster solved in full (`reduce_above = 0`) and once reduced above
//! [`REDUCE_ABOVE`] free chunks. Scenes: the solid wall and the wall with
//! the support removed under columns 40–59 (the middle hangs on shear
//! from its neighbours), each with a strong material (concrete: stands)
//! and a weak one (compression fatal at 0.6 × the base stress 50 W /
//! 0.25 m² = 589 kPa for the solid wall, shear fatal at 60 kPa for the
//! gap: both collapse). Same outcome: both stand or both collapse, and
//! at least 95 % of the bonds broken in either run are broken in both.

use smithereens_core::fixtures::grid_desc;
use smithereens_core::glam::Vec3;
use smithereens_core::stress::{
    InstanceStress, Material, REDUCE_ABOVE, StressDesc, StressLimit, StressMaterials,
};
use smithereens_core::*;
use std::sync::Arc;

const W: f32 = 300.0 * 9.81;

fn wall(gap: Option<(u32, u32)>) -> Arc<Asset> {
    let mut d = grid_desc(100, 50, 2, 0.5, 2400.0, 40.0);
    if let Some((x0, x1)) = gap {
        for (i, c) in d.chunks.iter_mut().enumerate() {
            let x = i as u32 % 100;
            if (x0..x1).contains(&x) {
                c.support = false;
            }
        }
    }
    Arc::new(Asset::new(&d).unwrap())
}

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

fn same_outcome(gap: Option<(u32, u32)>, m: Material, collapses: bool) {
    let asset = wall(gap);
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

fn far() -> StressLimit {
    StressLimit {
        elastic: 1e12,
        fatal: 1e12,
    }
}

#[test]
fn a_strong_solid_wall_stands_full_and_reduced() {
    same_outcome(None, Material::CONCRETE, false);
}

#[test]
fn a_weak_solid_wall_collapses_with_the_same_bonds_full_and_reduced() {
    let base = 50.0 * W / 0.25;
    let m = Material {
        compression: StressLimit {
            elastic: 0.5 * base,
            fatal: 0.6 * base,
        },
        tension: far(),
        shear: far(),
        damage_rate: 1e-5,
    };
    same_outcome(None, m, true);
}

#[test]
fn a_strong_wall_over_a_gap_stands_full_and_reduced() {
    same_outcome(Some((40, 60)), Material::CONCRETE, false);
}

#[test]
fn a_weak_wall_over_a_gap_collapses_with_the_same_bonds_full_and_reduced() {
    let m = Material {
        compression: far(),
        tension: far(),
        shear: StressLimit {
            elastic: 40e3,
            fatal: 60e3,
        },
        damage_rate: 1e-5,
    };
    same_outcome(Some((40, 60)), m, true);
}
