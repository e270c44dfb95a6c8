//! Invariant checks shared by the fracture tests.

#![allow(dead_code, clippy::unwrap_used)]

pub mod weld;

use glam::{DVec3, Vec3};
use smithereens_core::{AssetFile, BondEnd, ChunkMesh};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Path of a mesh in the repository's `assets/meshes`.
pub fn asset(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/meshes")).join(name)
}

/// Unit cube `[0,1]³` as a welded closed mesh.
pub fn unit_cube() -> smithereens_authoring::TriMesh {
    let corner = |i: u32| DVec3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64);
    smithereens_authoring::mesh_from_triangles(
        (0..8).map(corner).collect(),
        smithereens_authoring::BOX_TRIANGLES.to_vec(),
    )
    .unwrap()
}

/// Every undirected edge used by exactly two triangles in opposite
/// directions, after welding positions by exact f32 value and dropping
/// triangles that collapse. Returns the number of bad edges.
pub fn bad_edges(mesh: &ChunkMesh) -> usize {
    let mut ids: BTreeMap<[u32; 3], u32> = BTreeMap::new();
    let welded: Vec<u32> = mesh
        .positions
        .iter()
        .map(|p| {
            let key = [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()];
            let n = ids.len() as u32;
            *ids.entry(key).or_insert(n)
        })
        .collect();
    let mut uses: BTreeMap<(u32, u32), (u32, i32)> = BTreeMap::new();
    for t in mesh.exterior.iter().chain(&mesh.interior) {
        let t = t.map(|i| welded[i as usize]);
        if t[0] == t[1] || t[1] == t[2] || t[2] == t[0] {
            continue;
        }
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            let e = uses.entry((a.min(b), a.max(b))).or_insert((0, 0));
            e.0 += 1;
            e.1 += if a < b { 1 } else { -1 };
        }
    }
    uses.values()
        .filter(|&&(count, net)| count != 2 || net != 0)
        .count()
}

/// Signed volume of a chunk mesh, m³.
pub fn mesh_volume(mesh: &ChunkMesh) -> f64 {
    let p = |i: u32| mesh.positions[i as usize].as_dvec3();
    mesh.exterior
        .iter()
        .chain(&mesh.interior)
        .map(|t| p(t[0]).dot(p(t[1]).cross(p(t[2]))) / 6.0)
        .sum()
}

/// Area (m²) of the interior triangles of `mesh` that lie on the plane
/// through `point` facing `facing` (every vertex within `tolerance`, the
/// normal within 0.8° of `facing`) and on no other of `planes` better:
/// `planes` are the `(point, facing)` of the chunk's other cuts, and a
/// triangle near the line where two nearly parallel cuts meet (0.79°
/// apart on Bob at 500 sites, seed 6) fits both; it belongs to the one
/// its normal is closer to.
pub fn coplanar_cap_area(
    mesh: &ChunkMesh,
    point: Vec3,
    facing: Vec3,
    planes: &[(Vec3, Vec3)],
    tolerance: f64,
) -> f64 {
    let p = |i: u32| mesh.positions[i as usize].as_dvec3();
    // How far a triangle is off a plane in angle (1 − cos), if it lies on it.
    let misfit = |q: &[DVec3; 3], n: DVec3, point: Vec3, facing: Vec3| {
        let (point, facing) = (point.as_dvec3(), facing.as_dvec3());
        let on_plane = q
            .iter()
            .all(|v| (*v - point).dot(facing).abs() <= tolerance);
        let cos = n.dot(facing);
        (on_plane && cos > 1.0 - 1e-4).then_some(1.0 - cos)
    };
    mesh.interior
        .iter()
        .map(|t| {
            let q = t.map(p);
            let n = (q[1] - q[0]).cross(q[2] - q[0]);
            // Normal check too: a thin cap triangle of another plane can have
            // all its vertices near this plane (along the planes' intersection).
            if n.length() == 0.0 {
                return 0.0;
            }
            let Some(own) = misfit(&q, n.normalize(), point, facing) else {
                return 0.0;
            };
            let better_elsewhere = planes
                .iter()
                .any(|&(o, f)| misfit(&q, n.normalize(), o, f).is_some_and(|other| other < own));
            if better_elsewhere {
                0.0
            } else {
                0.5 * n.length()
            }
        })
        .sum()
}

/// Summary returned by [`check_fracture`] for further assertions.
pub struct Summary {
    pub chunks: usize,
    pub bonds: usize,
    pub supports: usize,
}

/// Checks the invariants every Voronoi fracture of a closed, connected mesh
/// must satisfy.
pub fn check_fracture(file: &AssetFile, mesh_volume_expected: f64, diagonal: f64) -> Summary {
    let desc = &file.desc;
    assert_eq!(desc.chunks.len(), file.meshes.len());
    smithereens_core::Asset::new(desc).expect("core accepts the asset");
    let decoded = AssetFile::from_bytes(&file.to_bytes()).expect("file round-trips");
    assert_eq!(&decoded, file);

    // Volume conservation.
    let total: f64 = desc.chunks.iter().map(|c| c.volume as f64).sum();
    let rel = (total - mesh_volume_expected).abs() / mesh_volume_expected;
    assert!(
        rel <= 1e-4,
        "Σ chunk volume {total} vs mesh {mesh_volume_expected} (rel {rel:e})"
    );

    for (k, (chunk, mesh)) in desc.chunks.iter().zip(&file.meshes).enumerate() {
        assert_eq!(bad_edges(mesh), 0, "chunk {k} render mesh is not closed");
        assert!(!mesh.exterior.is_empty() || !mesh.interior.is_empty());
        let v = mesh_volume(mesh);
        assert!(
            (v - chunk.volume as f64).abs() <= 1e-3 * chunk.volume as f64 + 1e-9,
            "chunk {k}: mesh volume {v} vs stored {}",
            chunk.volume
        );
        // One hull, or several for a concave chunk (issue 17): together
        // they hold at least the chunk's volume.
        assert!(
            !chunk.hulls.is_empty() && chunk.hulls.iter().all(|h| h.points.len() >= 4),
            "chunk {k} hull"
        );
        if chunk.hulls.len() > 1 {
            let enclosed: f64 = chunk
                .hulls
                .iter()
                .map(|h| smithereens_authoring::hull_volume(&h.points).unwrap())
                .sum();
            assert!(
                enclosed >= (1.0 - 1e-4) * chunk.volume as f64,
                "chunk {k}: hulls enclose {enclosed} < volume {}",
                chunk.volume
            );
        }
        assert!((chunk.mass / chunk.volume - 2400.0).abs() < 1.0 || chunk.mass > 0.0);
    }

    // Bonds: chunk0 < chunk1, unique, sorted, plane normal from 0 to 1.
    let mut previous: Option<(u32, u32)> = None;
    for (k, b) in desc.bonds.iter().enumerate() {
        let BondEnd::Chunk(c1) = b.chunk1 else {
            panic!("bond {k} goes to the world")
        };
        assert!(
            b.chunk0 < c1,
            "bond {k}: chunk0 {} !< chunk1 {c1}",
            b.chunk0
        );
        if let Some(p) = previous {
            assert!(
                p < (b.chunk0, c1),
                "bonds not sorted / duplicate pair at {k}"
            );
        }
        previous = Some((b.chunk0, c1));
        assert!((b.normal.length() - 1.0).abs() < 1e-5);
        assert!(b.area > 0.0 && b.strength > 0.0);
        let (c0, c1c) = (
            desc.chunks[b.chunk0 as usize].centroid,
            desc.chunks[c1 as usize].centroid,
        );
        assert!(
            (c1c - c0).dot(b.normal) > 0.0,
            "bond {k} normal points from chunk1 to chunk0"
        );
    }

    // Bond area = cap area of chunk1 created by chunk0's plane, and of
    // chunk0 by chunk1's. When a cell fell apart into several chunks, the
    // bonds sharing a plane and an end split that end's cap between them,
    // so the comparison is against the sum over those bonds. Relative error
    // ≤ 1e-4, plus an absolute floor for millimetre-sized interfaces: the
    // test measures caps from f32 vertices (about 6e-8 m resolution at 1 m),
    // the asset's areas come from the f64 geometry.
    let tolerance = 1e-5 * diagonal;
    let area_floor = 1e-8 * diagonal * diagonal;
    // Each chunk's cut planes (a point and the outward normal), from its bonds.
    let mut planes: Vec<Vec<(Vec3, Vec3)>> = vec![Vec::new(); desc.chunks.len()];
    for b in &desc.bonds {
        if let BondEnd::Chunk(c1) = b.chunk1 {
            planes[b.chunk0 as usize].push((b.centroid, b.normal));
            planes[c1 as usize].push((b.centroid, -b.normal));
        }
    }
    for (k, b) in desc.bonds.iter().enumerate() {
        let BondEnd::Chunk(c1) = b.chunk1 else {
            unreachable!()
        };
        let same_plane = |o: &smithereens_core::BondDesc| {
            o.normal.dot(b.normal) > 1.0 - 1e-5
                && ((o.centroid - b.centroid).dot(b.normal) as f64).abs() <= tolerance
        };
        let sum1: f64 = desc
            .bonds
            .iter()
            .filter(|o| o.chunk1 == b.chunk1 && same_plane(o))
            .map(|o| o.area as f64)
            .sum();
        let cap1 = coplanar_cap_area(
            &file.meshes[c1 as usize],
            b.centroid,
            -b.normal,
            &planes[c1 as usize],
            tolerance,
        );
        assert!(
            (sum1 - cap1).abs() <= 1e-4 * cap1 + area_floor,
            "bond {k}: area {} (Σ {sum1}) vs chunk1 cap {cap1}",
            b.area
        );
        let sum0: f64 = desc
            .bonds
            .iter()
            .filter(|o| o.chunk0 == b.chunk0 && same_plane(o))
            .map(|o| o.area as f64)
            .sum();
        let cap0 = coplanar_cap_area(
            &file.meshes[b.chunk0 as usize],
            b.centroid,
            b.normal,
            &planes[b.chunk0 as usize],
            tolerance,
        );
        assert!(
            (sum0 - cap0).abs() <= 1e-4 * cap0 + area_floor,
            "bond {k}: area {} (Σ {sum0}) vs chunk0 cap {cap0}",
            b.area
        );
    }

    // Connected bond graph.
    let n = desc.chunks.len();
    let mut adjacency = vec![Vec::new(); n];
    for b in &desc.bonds {
        let BondEnd::Chunk(c1) = b.chunk1 else {
            unreachable!()
        };
        adjacency[b.chunk0 as usize].push(c1 as usize);
        adjacency[c1 as usize].push(b.chunk0 as usize);
    }
    let mut seen = vec![false; n];
    let mut stack = vec![0usize];
    seen[0] = true;
    while let Some(x) = stack.pop() {
        for &y in &adjacency[x] {
            if !seen[y] {
                seen[y] = true;
                stack.push(y);
            }
        }
    }
    assert!(seen.iter().all(|&s| s), "bond graph is not connected");

    let supports = desc.chunks.iter().filter(|c| c.support).count();
    assert!(supports >= 1, "no support chunk");
    Summary {
        chunks: n,
        bonds: desc.bonds.len(),
        supports,
    }
}
