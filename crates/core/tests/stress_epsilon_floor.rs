#![allow(clippy::unwrap_used)]
//! A residual bound ε near or below what double precision can reach: a
//! solver that kept its system and a fresh one still agree bit for bit,
//! and an ε no iterate can reach is refused (a
//! fuzzer found both: `SKIP_CHECK_MIN_EPSILON` in `stress/solver.rs`, and
//! [`MIN_EPSILON`] with the conjugate gradient's stop on a step that would
//! overflow).

use smithereens_core::fixtures::{grid_desc, highest_chunk, stress_wall_desc};
use smithereens_core::glam::Vec3;
use smithereens_core::stress::{
    MIN_EPSILON, Material, PointLoad, StressError, StressLoads, StressMaterials, StressSettings,
    StressSolver,
};
use smithereens_core::{Asset, ChunkIndex};

/// ε = 3.3e-13 on a reduced 4 × 60 × 2 tower pushed at the top: the kept
/// solver's implied residual (2.5e-13) and a fresh solver's block-product
/// residual (7.1e-13) of the same warm start fell on two sides of 2 ε, so
/// one checked the bonds and stopped (0 iterations) and the other iterated
/// (18). Below `SKIP_CHECK_MIN_EPSILON` both check with the bonds.
#[test]
fn kept_and_fresh_solvers_agree_near_the_rounding_floor() {
    let asset = Asset::new(&grid_desc(4, 60, 2, 0.5, 2400.0, 40.0)).unwrap();
    let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    let health = vec![10.0f32; asset.bond_count()];
    let top = highest_chunk(&asset, &nodes).unwrap();
    let push = [PointLoad {
        chunk: top,
        force: Vec3::new(0.0, 0.0, 1.0e3),
        point: asset.chunks()[top].centroid,
    }];
    let loads = StressLoads {
        gravity: Vec3::new(0.0, -9.81, 0.0),
        point_loads: &push,
        ..Default::default()
    };
    let settings = StressSettings {
        max_iterations: 200,
        epsilon: f32::from_bits(0x2abc_662b),
        reduce_above: 8,
        ..Default::default()
    };
    let materials = StressMaterials::uniform(Material::CONCRETE);
    let mut kept = StressSolver::new(&asset, settings, materials.clone()).unwrap();
    kept.solve(&asset, &nodes, &health, &loads).unwrap();
    let mut fresh = StressSolver::new(&asset, settings, materials).unwrap();
    let (u, t) = kept.warm_start();
    fresh.set_warm_start(u, t).unwrap();
    let a = kept.solve(&asset, &nodes, &health, &loads).unwrap();
    let b = fresh.solve(&asset, &nodes, &health, &loads).unwrap();
    assert_eq!(a, b);
    let bits = |s: &StressSolver| -> Vec<u32> {
        s.bond_stresses()
            .iter()
            .flat_map(|b| [b.normal_force.to_bits(), b.tension.to_bits()])
            .collect()
    };
    assert_eq!(bits(&kept), bits(&fresh));
}

/// ε = 1e-20 on a reduced 10 × 8 × 2 wall: past the rounding floor the
/// conjugate gradient diverged until its products overflowed, x became
/// NaN, and the NaN residual read as 0 and "converged". Such an ε is now
/// refused ([`MIN_EPSILON`]); at that bound the solve ends with finite
/// results (converged or not, never NaN reported as converged) and a warm
/// start the solver takes back.
#[test]
fn an_unreachable_epsilon_is_refused_and_the_floor_ends_finite() {
    let asset = Asset::new(&grid_desc(10, 8, 2, 0.5, 2400.0, 40.0)).unwrap();
    let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    let health = vec![10.0f32; asset.bond_count()];
    let loads = StressLoads {
        gravity: Vec3::new(0.0, -9.81, 0.0),
        ..Default::default()
    };
    let materials = StressMaterials::uniform(Material::CONCRETE);
    for epsilon in [1e-20, 6e-15, f32::MIN_POSITIVE] {
        let settings = StressSettings {
            epsilon,
            ..Default::default()
        };
        assert_eq!(
            StressSolver::new(&asset, settings, materials.clone()).unwrap_err(),
            StressError::BadEpsilon(epsilon)
        );
    }
    for reduce_above in [0, 20] {
        let settings = StressSettings {
            max_iterations: 10_000,
            epsilon: MIN_EPSILON,
            reduce_above,
            ..Default::default()
        };
        let mut s = StressSolver::new(&asset, settings, materials.clone()).unwrap();
        let r = s.solve(&asset, &nodes, &health, &loads).unwrap();
        assert!(r.residual.is_finite(), "{r:?}");
        assert_eq!(r.converged, r.residual <= MIN_EPSILON, "{r:?}");
        assert!(
            s.bond_stresses()
                .iter()
                .all(|b| b.normal_force.is_finite() && b.tension.is_finite()),
            "{r:?}: bond results not finite"
        );
        let (u, t) = (s.warm_start().0.to_vec(), s.warm_start().1.to_vec());
        assert!(
            s.set_warm_start(&u, &t).is_ok(),
            "{r:?}: its own warm start refused"
        );
    }
}

/// ε = `MIN_EPSILON` on a reduced 10 × 8 × 2 wall, every third bond at a
/// twentieth of concrete's limits, pushed hard at the top: after the
/// second break the solve stalls at its rounding floor and then diverges
/// until its answer overflows (a fuzzer found it). Such a solve reports
/// no bond results (none that are not finite) and leaves the chunks at
/// rest; the same call again starts afresh instead of ending at once with
/// the overflowed answer, not finite again, as it did.
#[test]
fn a_diverged_solve_leaves_no_results_and_the_next_starts_afresh() {
    let asset = Asset::new(&stress_wall_desc(10, 8, 2)).unwrap();
    let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    let top = highest_chunk(&asset, &nodes).unwrap();
    let c = Material::CONCRETE;
    let materials = StressMaterials {
        materials: vec![c, c.with_limits_scaled(0.05)],
        bond_material: (0..asset.bond_count())
            .map(|b| u16::from(b % 3 == 0))
            .collect(),
    };
    let settings = StressSettings {
        max_iterations: 3000,
        reduce_above: 20,
        epsilon: MIN_EPSILON,
        ..Default::default()
    };
    let push = [PointLoad {
        chunk: top,
        force: Vec3::new(2.0e5, -1.0e5, 3.0e4),
        point: asset.chunks()[top].centroid,
    }];
    let loads = StressLoads {
        gravity: Vec3::new(0.0, -9.81, 0.0),
        point_loads: &push,
        ..Default::default()
    };
    let mut s = StressSolver::new(&asset, settings, materials).unwrap();
    let mut health = vec![10.0f32; asset.bond_count()];
    health[235] = 0.0;
    s.solve(&asset, &nodes, &health, &loads).unwrap();
    health[272] = 0.0;
    let diverged = s.solve(&asset, &nodes, &health, &loads).unwrap();
    assert!(!diverged.residual.is_finite(), "{diverged:?}");
    assert!(!diverged.converged);
    assert!(s.bond_stresses().is_empty());
    let (u, t) = s.warm_start();
    assert!(
        u.iter()
            .chain(t)
            .all(|v| *v == smithereens_core::glam::DVec3::ZERO)
    );
    let again = s.solve(&asset, &nodes, &health, &loads).unwrap();
    assert!(again.iterations > 0, "{again:?}");
    assert!(
        s.bond_stresses()
            .iter()
            .all(|b| b.normal_force.is_finite() && b.tension.is_finite()),
        "{again:?}"
    );
}
