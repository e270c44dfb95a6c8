//! `OpenMeshFallback::CloseHoles`: boundary loops of open surfaces filled
//! so the surface is closed and consistently oriented, or rejected with the
//! counts of what is still open.

#![allow(clippy::unwrap_used)]

use glam::DVec3;
use smithereens_authoring::{
    BOX_TRIANGLES, MeshError, OpenMeshFallback, RepairOptions, box_corners, repair_mesh,
};

fn close_holes(max_hole_edges: u32) -> RepairOptions {
    RepairOptions {
        open_fallback: OpenMeshFallback::CloseHoles { max_hole_edges },
        ..Default::default()
    }
}

fn unit_cube() -> Vec<DVec3> {
    box_corners(DVec3::ZERO, DVec3::ONE)
}

/// `BOX_TRIANGLES` without the triangles at the given indices.
fn cube_without(removed: &[usize]) -> Vec<[u32; 3]> {
    BOX_TRIANGLES
        .iter()
        .enumerate()
        .filter(|(k, _)| !removed.contains(k))
        .map(|(_, t)| *t)
        .collect()
}

// Faces of BOX_TRIANGLES as pairs of triangle indices.
const FACE_X0: [usize; 2] = [8, 9];
const FACE_X1: [usize; 2] = [10, 11];

#[test]
fn cube_missing_one_face_is_closed_to_unit_volume() {
    let (mesh, report) = repair_mesh(unit_cube(), cube_without(&FACE_X1), &close_holes(4)).unwrap();
    mesh.validate().unwrap(); // closed, every edge used twice in opposite directions
    assert!((mesh.volume() - 1.0).abs() < 1e-9, "{}", mesh.volume());
    assert_eq!(mesh.triangles.len(), 12);
    assert_eq!(mesh.positions.len(), 8);
    assert_eq!(report.closed_holes.len(), 1);
    let hole = &report.closed_holes[0];
    assert_eq!(hole.edge_count, 4);
    assert!(!hole.added_vertex);
    assert!((hole.added_area - 1.0).abs() < 1e-12);
    assert_eq!(hole.centre, DVec3::new(1.0, 0.5, 0.5));
    let warnings = report.warnings();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("1 hole(s) closed") && w.contains("4 edge(s)")),
        "{warnings:?}"
    );
}

#[test]
fn cube_missing_two_opposite_faces_is_closed_by_two_loops() {
    let mut removed = FACE_X0.to_vec();
    removed.extend(FACE_X1);
    let (mesh, report) = repair_mesh(unit_cube(), cube_without(&removed), &close_holes(4)).unwrap();
    mesh.validate().unwrap();
    assert!((mesh.volume() - 1.0).abs() < 1e-9, "{}", mesh.volume());
    let sizes: Vec<u32> = report.closed_holes.iter().map(|h| h.edge_count).collect();
    assert_eq!(sizes, [4, 4]);
    assert!((report.added_hole_area() - 2.0).abs() < 1e-12);
}

#[test]
fn cube_missing_two_adjacent_faces_gets_both_faces_back() {
    // One bent 6-edge loop around the x = 1 and z = 0 faces. The least-area
    // fill would cut the corner off (a √2 m² diagonal plane, volume ½);
    // the least-bending fill restores both flat faces.
    let mut removed = vec![0, 1];
    removed.extend(FACE_X1);
    let (mesh, report) = repair_mesh(unit_cube(), cube_without(&removed), &close_holes(6)).unwrap();
    mesh.validate().unwrap();
    assert!((mesh.volume() - 1.0).abs() < 1e-9, "{}", mesh.volume());
    assert_eq!(report.closed_holes.len(), 1);
    assert_eq!(report.closed_holes[0].edge_count, 6);
    assert!((report.added_hole_area() - 2.0).abs() < 1e-12);
}

#[test]
fn loops_touching_at_a_vertex_are_closed_separately() {
    // Triangle 0 ([0, 2, 1], on z = 0) and the x = 1 face share corner 1:
    // the boundary passes corner 1 twice and splits there into a 3-edge and a
    // 4-edge loop.
    let mut removed = vec![0];
    removed.extend(FACE_X1);
    let (mesh, report) = repair_mesh(unit_cube(), cube_without(&removed), &close_holes(4)).unwrap();
    mesh.validate().unwrap();
    assert!((mesh.volume() - 1.0).abs() < 1e-9, "{}", mesh.volume());
    let mut sizes: Vec<u32> = report.closed_holes.iter().map(|h| h.edge_count).collect();
    sizes.sort_unstable();
    assert_eq!(sizes, [3, 4]);
}

#[test]
fn hole_larger_than_the_limit_is_left_and_the_mesh_rejected_with_counts() {
    // A 3-edge hole (half of x = 0) and a 4-edge hole (x = 1) with a limit
    // of 3: the small one is closed, the large one is reported.
    let mut removed = vec![FACE_X0[0]];
    removed.extend(FACE_X1);
    let err = repair_mesh(unit_cube(), cube_without(&removed), &close_holes(3)).unwrap_err();
    match err {
        MeshError::NotClosed {
            open_edges,
            non_manifold_edges,
            example,
        } => {
            assert_eq!((open_edges, non_manifold_edges), (4, 0));
            assert_eq!(example.x, 1.0, "the example lies on the open x = 1 face");
        }
        other => panic!("expected NotClosed, got {other:?}"),
    }
    // Reject reports both holes: 3 + 4 open edges.
    let err = repair_mesh(
        unit_cube(),
        cube_without(&removed),
        &RepairOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, MeshError::NotClosed { open_edges: 7, .. }));
}

#[test]
fn non_manifold_edge_is_rejected_even_when_the_holes_close() {
    // An open cube plus a fin on edge 0-1, which is then used three times.
    let mut positions = unit_cube();
    positions.push(DVec3::new(0.5, -1.0, -1.0));
    let mut triangles = cube_without(&FACE_X1);
    triangles.push([0, 1, 8]);
    let err = repair_mesh(positions, triangles, &close_holes(64)).unwrap_err();
    assert!(
        matches!(
            err,
            MeshError::NotClosed {
                open_edges: 2,
                non_manifold_edges: 1,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn closing_the_same_holes_twice_gives_the_same_bytes() {
    let mut removed = vec![0];
    removed.extend(FACE_X1);
    let run = || {
        let (mesh, report) =
            repair_mesh(unit_cube(), cube_without(&removed), &close_holes(8)).unwrap();
        let bits: Vec<u64> = mesh
            .positions
            .iter()
            .flat_map(|p| p.to_array().map(f64::to_bits))
            .collect();
        (bits, mesh.triangles, report)
    };
    assert_eq!(run(), run());
}
