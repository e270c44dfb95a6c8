//! A bond given twice (same pair, same face) is a typed validation error
//! naming both bonds and the pair (issue 12, item 6): it would otherwise take
//! two shares of every radial budget.

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use glam::Vec3;
use smithereens_core::asset::{AssetDesc, BondDesc, BondEnd};
use smithereens_core::fixtures::{cube_chunk, grid_desc};
use smithereens_core::{Asset, AssetError, BondIndex, ChunkIndex};

fn two_cubes(bonds: Vec<BondDesc>) -> AssetDesc {
    AssetDesc {
        chunks: vec![
            cube_chunk(Vec3::ZERO, 1.0, 1.0, true),
            cube_chunk(Vec3::X, 1.0, 1.0, false),
        ],
        bonds,
        support_depth: None,
    }
}

fn face(chunk0: u32, chunk1: BondEnd, normal: Vec3, centroid: Vec3) -> BondDesc {
    BondDesc {
        chunk0,
        chunk1,
        centroid,
        normal,
        area: 1.0,
        strength: 10.0,
    }
}

#[test]
fn the_same_face_twice_is_rejected_in_either_order() {
    let a = face(0, BondEnd::Chunk(1), Vec3::X, Vec3::new(0.5, 0.0, 0.0));
    // Written again from the other side: chunk 1 → 0, normal −x.
    let b = face(1, BondEnd::Chunk(0), -Vec3::X, Vec3::new(0.5, 0.0, 0.0));
    for bonds in [vec![a.clone(), a.clone()], vec![a.clone(), b]] {
        match Asset::new(&two_cubes(bonds)) {
            Err(AssetError::DuplicateBond {
                first,
                second,
                chunk0,
                other,
            }) => {
                assert_eq!(
                    (first, second, chunk0),
                    (BondIndex(0), BondIndex(1), ChunkIndex(0))
                );
                assert_eq!(other, "chunk 1");
            }
            other => panic!("expected a duplicate-bond error, got {other:?}"),
        }
    }
    // Twice to the world.
    let w = face(0, BondEnd::World, -Vec3::Y, Vec3::new(0.0, -0.5, 0.0));
    let err = Asset::new(&two_cubes(vec![a.clone(), w.clone(), w])).unwrap_err();
    assert!(err.to_string().contains("the world"), "{err}");
}

#[test]
fn two_different_faces_of_one_pair_are_kept() {
    // Non-convex chunks may touch over two faces: different normals, or the
    // same plane at two places.
    let a = face(0, BondEnd::Chunk(1), Vec3::X, Vec3::new(0.5, 0.0, 0.0));
    let other_plane = face(0, BondEnd::Chunk(1), Vec3::Y, Vec3::new(0.5, 0.5, 0.0));
    let same_plane_elsewhere = face(0, BondEnd::Chunk(1), Vec3::X, Vec3::new(0.5, 0.4, 0.0));
    let asset = Asset::new(&two_cubes(vec![a, other_plane, same_plane_elsewhere])).unwrap();
    assert_eq!(asset.bond_count(), 3);
    // And every generated grid passes.
    assert!(Asset::new(&grid_desc(6, 5, 4, 0.25, 2400.0, 1500.0)).is_ok());
}
