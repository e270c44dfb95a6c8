//! From raw cell pieces to the asset: sliver merging, mass properties,
//! hulls, support flags, render meshes and final bonds.

use crate::bonds::{RawBond, RawChunk};
use crate::error::FractureError;
use crate::mass_properties::{MassProperties, combine, polyhedron_mass_properties};
use crate::piece::EXTERIOR;
use crate::support::Ground;
use glam::{DVec3, Vec3};
use smithereens_core::{AssetDesc, BondDesc, BondEnd, ChunkDesc, ChunkMesh, HullDesc};
use std::collections::HashMap;

/// A chunk whose volume is below this fraction of the mesh volume is a
/// sliver and is merged into a neighbour (see [`assemble`]).
pub const SLIVER_VOLUME_FRACTION: f64 = 1e-6;

/// A chunk whose smallest principal moment of inertia is below this fraction
/// of its largest is a needle-like sliver and is merged into a neighbour.
/// (For a rod of radius r and length L the ratio is about 6r²/L², so
/// 1e-4 flags rods thinner than about L/250.)
pub const SLIVER_INERTIA_RATIO: f64 = 1e-4;

/// Inputs of [`assemble`] besides the pieces and bonds.
pub(crate) struct AssemblyParams {
    /// kg/m³.
    pub density: f64,
    /// du/m².
    pub strength_per_area: f64,
    pub ground: Option<Ground>,
    /// m³.
    pub mesh_volume: f64,
    /// Bonds with a smaller area (m²) are dropped.
    pub min_bond_area: f64,
}

/// Builds the asset description and one render mesh per chunk.
///
/// Slivers (volume below [`SLIVER_VOLUME_FRACTION`] of the mesh, principal
/// moment ratio below [`SLIVER_INERTIA_RATIO`], or a convex hull that cannot
/// be built or has no volume) are merged, one at a time in chunk order, into
/// the neighbour with the largest shared bond area (ties: lower index); the
/// merged chunk is the union of both (volumes add, inertia by the
/// parallel-axis theorem, hull of the union, both closed surfaces in its
/// render mesh), so total volume is kept. A sliver with no bonded neighbour
/// is dropped; its volume is lost (only possible for a degenerate piece
/// that touches no other chunk).
pub(crate) fn assemble(
    raw: &[RawChunk],
    raw_bonds: &[RawBond],
    params: &AssemblyParams,
) -> Result<(AssetDesc, Vec<ChunkMesh>), FractureError> {
    let n = raw.len();
    let unit_props: Vec<MassProperties> = raw
        .iter()
        .map(|c| polyhedron_mass_properties(&c.piece.positions, &c.piece.triangles, 1.0))
        .collect();
    let mut root: Vec<usize> = (0..n).collect();
    let mut alive = vec![true; n];
    // Hull per group root, `None` = not computed since the group last changed.
    let mut hulls: Vec<Option<Result<Vec<Vec3>, String>>> = vec![None; n];
    fn find(root: &mut [usize], mut x: usize) -> usize {
        while root[x] != x {
            root[x] = root[root[x]];
            x = root[x];
        }
        x
    }
    let min_volume = SLIVER_VOLUME_FRACTION * params.mesh_volume;
    'merge: loop {
        let groups = groups_of(&mut root, &alive, find);
        for (g, members) in &groups {
            let props = combine(&members.iter().map(|&m| unit_props[m]).collect::<Vec<_>>());
            let mut degenerate =
                props.volume < min_volume || !inertia_is_sound(&props, params.density);
            if !degenerate {
                let hull = hulls[*g].get_or_insert_with(|| hull_points(raw, members));
                degenerate = hull.is_err();
            }
            if !degenerate {
                continue;
            }
            // Shared area with every other live group, summed per group.
            let mut shared: Vec<(usize, f64)> = Vec::new();
            for b in raw_bonds {
                let (ra, rb) = (find(&mut root, b.a), find(&mut root, b.b));
                let other = if ra == *g && rb != *g {
                    rb
                } else if rb == *g && ra != *g {
                    ra
                } else {
                    continue;
                };
                if !alive[other] {
                    continue;
                }
                match shared.iter_mut().find(|(r, _)| *r == other) {
                    Some(entry) => entry.1 += b.area,
                    None => shared.push((other, b.area)),
                }
            }
            shared.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
            match shared.first() {
                Some(&(other, _)) => {
                    let (keep, gone) = (other.min(*g), other.max(*g));
                    root[gone] = keep;
                    hulls[keep] = None;
                }
                None => alive[*g] = false,
            }
            continue 'merge;
        }
        break;
    }

    let groups = groups_of(&mut root, &alive, find);
    if groups.is_empty() {
        return Err(FractureError::NoChunks);
    }
    let mut chunk_of_raw = vec![usize::MAX; n];
    let mut chunks = Vec::with_capacity(groups.len());
    let mut meshes = Vec::with_capacity(groups.len());
    for (index, (g, members)) in groups.iter().enumerate() {
        for &m in members {
            chunk_of_raw[m] = index;
        }
        let unit = combine(&members.iter().map(|&m| unit_props[m]).collect::<Vec<_>>());
        let points = match hulls[*g].take() {
            Some(h) => h,
            None => hull_points(raw, members),
        }
        .map_err(|reason| FractureError::Hull {
            chunk: index as u32,
            reason,
        })?;
        let support = params.ground.is_some_and(|ground| {
            ground.touches(
                members
                    .iter()
                    .flat_map(|&m| raw[m].piece.positions.iter().copied()),
            )
        });
        chunks.push(ChunkDesc {
            volume: unit.volume as f32,
            mass: (unit.mass * params.density) as f32,
            centroid: unit.centroid.as_vec3(),
            inertia: (unit.inertia * params.density).as_mat3(),
            hulls: vec![HullDesc { points }],
            support,
            gameplay_critical: false,
            parent: None,
            depth: 0,
        });
        meshes.push(chunk_mesh(raw, members));
    }

    // Final bonds: raw bonds summed per chunk pair.
    struct Acc {
        area: f64,
        centroid: DVec3,
        normal: DVec3,
    }
    let mut pairs: Vec<((usize, usize), Acc)> = Vec::new();
    for b in raw_bonds {
        let (ca, cb) = (chunk_of_raw[b.a], chunk_of_raw[b.b]);
        if ca == usize::MAX || cb == usize::MAX || ca == cb {
            continue;
        }
        let (key, normal) = if ca < cb {
            ((ca, cb), b.normal)
        } else {
            ((cb, ca), -b.normal)
        };
        let acc = Acc {
            area: b.area,
            centroid: b.centroid * b.area,
            normal: normal * b.area,
        };
        match pairs.binary_search_by(|p| p.0.cmp(&key)) {
            Ok(k) => {
                let e = &mut pairs[k].1;
                e.area += acc.area;
                e.centroid += acc.centroid;
                e.normal += acc.normal;
            }
            Err(k) => pairs.insert(k, (key, acc)),
        }
    }
    let mut bonds = Vec::with_capacity(pairs.len());
    for ((a, b), acc) in pairs {
        let Some(normal) = acc.normal.try_normalize() else {
            continue;
        };
        let large_enough = acc.area > params.min_bond_area;
        if !large_enough {
            continue;
        }
        bonds.push(BondDesc {
            chunk0: a as u32,
            chunk1: BondEnd::Chunk(b as u32),
            centroid: (acc.centroid / acc.area).as_vec3(),
            normal: normal.as_vec3(),
            area: acc.area as f32,
            strength: (params.strength_per_area * acc.area) as f32,
        });
    }
    Ok((AssetDesc { chunks, bonds }, meshes))
}

/// Live groups as `(root, members)`, ordered by root (= lowest member, since
/// merges always keep the lower index as root); members ascending.
fn groups_of(
    root: &mut [usize],
    alive: &[bool],
    find: fn(&mut [usize], usize) -> usize,
) -> Vec<(usize, Vec<usize>)> {
    let mut out: Vec<(usize, Vec<usize>)> = Vec::new();
    for k in 0..root.len() {
        let r = find(root, k);
        if !alive[r] {
            continue;
        }
        match out.binary_search_by(|g| g.0.cmp(&r)) {
            Ok(i) => out[i].1.push(k),
            Err(i) => out.insert(i, (r, vec![k])),
        }
    }
    out
}

/// True when the inertia, as stored (f32, kg·m²), has positive principal
/// moments whose ratio is at least [`SLIVER_INERTIA_RATIO`].
fn inertia_is_sound(unit: &MassProperties, density: f64) -> bool {
    let inertia = (unit.inertia * density).as_mat3();
    match smithereens_core::mass::principal_axes(inertia) {
        Ok(axes) => {
            let m = axes.moments;
            m.min_element() > 0.0
                && (m.min_element() as f64) >= SLIVER_INERTIA_RATIO * m.max_element() as f64
        }
        Err(_) => false,
    }
}

/// Vertices (f32, m) of the convex hull of the members' vertices
/// (`parry3d::transformation::try_convex_hull`). Fails when the hull cannot
/// be built or encloses no volume.
fn hull_points(raw: &[RawChunk], members: &[usize]) -> Result<Vec<Vec3>, String> {
    let points: Vec<Vec3> = members
        .iter()
        .flat_map(|&m| raw[m].piece.positions.iter().map(|p| p.as_vec3()))
        .collect();
    let (vertices, triangles) =
        parry3d::transformation::try_convex_hull(&points).map_err(|e| e.to_string())?;
    let positions: Vec<DVec3> = vertices.iter().map(|v| v.as_dvec3()).collect();
    let volume = polyhedron_mass_properties(&positions, &triangles, 1.0).volume;
    let solid = volume.abs() > 0.0;
    if vertices.len() < 4 || !solid {
        return Err(format!(
            "hull of {} points is flat ({} vertices, volume {volume})",
            points.len(),
            vertices.len()
        ));
    }
    Ok(vertices)
}

/// The render mesh: the members' surfaces in f32, welded by exact f32
/// position; triangles that collapse under f32 rounding are dropped (an edge
/// collapse, which keeps the surface closed).
fn chunk_mesh(raw: &[RawChunk], members: &[usize]) -> ChunkMesh {
    let mut mesh = ChunkMesh::default();
    for &m in members {
        let piece = &raw[m].piece;
        // Lookup only; indices are assigned in vertex order.
        let mut weld: HashMap<[u32; 3], u32> = HashMap::with_capacity(piece.positions.len());
        let ids: Vec<u32> = piece
            .positions
            .iter()
            .map(|p| {
                let v = p.as_vec3() + Vec3::ZERO;
                *weld
                    .entry([v.x.to_bits(), v.y.to_bits(), v.z.to_bits()])
                    .or_insert_with(|| {
                        mesh.positions.push(v);
                        (mesh.positions.len() - 1) as u32
                    })
            })
            .collect();
        for (t, &tag) in piece.triangles.iter().zip(&piece.tags) {
            let t = t.map(|i| ids[i as usize]);
            if t[0] == t[1] || t[1] == t[2] || t[2] == t[0] {
                continue;
            }
            if tag == EXTERIOR {
                mesh.exterior.push(t);
            } else {
                mesh.interior.push(t);
            }
        }
    }
    mesh
}
