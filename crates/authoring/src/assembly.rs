//! From raw cell pieces to the asset: sliver merging, mass properties,
//! hulls, support flags, render meshes and final bonds.

use crate::bonds::{RawBond, RawChunk};
use crate::cut_noise::roughen_interfaces;
use crate::decompose::decompose;
use crate::error::FractureError;
use crate::mass_properties::{MassProperties, combine, polyhedron_mass_properties};
use crate::mesh::TriMesh;
use crate::piece::{EXTERIOR, Piece, Plane};
use crate::report::{FractureReport, SliverAction, SliverEvent, SliverReason};
use crate::settings::{BondRule, FractureSettings, HullDecomposition};
use crate::support::Ground;
use crate::union::{Interface, union_surface};
use crate::voronoi::{RawFracture, Scale};
use glam::{DVec3, Vec3};
use rayon::prelude::*;
use smithereens_core::{
    AssetDesc, AssetFile, BondDesc, BondEnd, ChunkDesc, ChunkIndex, ChunkMesh, HullDesc,
};
use std::collections::HashMap;

/// A piece whose volume is below this fraction of the mesh volume is a
/// sliver and is dropped with its bonds (see
/// [`fracture_voronoi`](crate::fracture_voronoi)); the volume lost is at most
/// this fraction of the mesh per dropped piece.
pub const SLIVER_VOLUME_FRACTION: f64 = 1e-9;

/// A chunk whose smallest principal moment of inertia is below this fraction
/// of its largest is a needle-like sliver and is merged into a neighbour.
/// (For a rod of radius r and length L the ratio is about 6r²/L², so
/// 1e-4 flags rods thinner than about L/250.)
pub const SLIVER_INERTIA_RATIO: f64 = 1e-4;

/// Inputs of `assemble` besides the pieces and bonds.
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
    /// Weld distance (m) for joining merged pieces' surfaces (see
    /// `union.rs`).
    pub weld: f64,
    /// Group of every raw piece (a hierarchy's parent), or empty: a sliver
    /// is merged into a neighbour of its own group when it has one.
    pub groups: Vec<u32>,
    /// Clipper snapping distance (m), for the hull decomposition's cuts.
    pub eps: f64,
    /// Several hulls for concave chunks, or one hull each.
    pub decomposition: Option<HullDecomposition>,
}

/// The common end of every pattern: roughens the interfaces when
/// `settings.cut_noise` is active (see [`CutNoise`](crate::CutNoise); bonds
/// keep their planar area, centroid and normal, while mass properties, hulls
/// and render meshes come from the rough pieces), assembles chunks and
/// bonds, writes the provenance line (`what` names the entry point and
/// pattern; settings, source mesh, sliver counts and the cut-noise summary
/// follow), removes the bonds for [`BondRule::Off`] (after sliver merging,
/// which still uses the interfaces), checks the asset against the core and
/// reports the slivers.
///
/// # Errors
/// Any assembly error, or [`FractureError`] from core validation.
pub(crate) fn finish_asset(
    cells: &RawFracture,
    settings: &FractureSettings,
    mesh: &TriMesh,
    scale: &Scale,
    what: &str,
) -> Result<(AssetFile, FractureReport), FractureError> {
    let (raw, raw_bonds) = (&cells.raw[..], &cells.bonds[..]);
    let mesh_volume = scale.volume;
    let params = AssemblyParams {
        density: settings.density,
        strength_per_area: settings.strength_per_area,
        ground: Ground::resolve(&settings.support, mesh.bounds().0),
        mesh_volume,
        min_bond_area: scale.min_bond_area(),
        weld: scale.weld(),
        groups: Vec::new(),
        eps: scale.eps(),
        decomposition: settings.decomposition,
    };
    let roughened: Vec<RawChunk>;
    let (raw, noise_note, noise_stats) = match settings.cut_noise.filter(|n| n.is_active()) {
        Some(noise) => {
            let mut owned = raw.to_vec();
            let stats = roughen_interfaces(&mut owned, raw_bonds, &noise, settings.seed);
            roughened = owned;
            (&roughened[..], stats.describe(&noise), stats)
        }
        None => (raw, String::new(), Default::default()),
    };
    let assembled = assemble_mapped(raw, raw_bonds, &params)?;
    let (mut desc, meshes, slivers, events, unjoined) = (
        assembled.desc,
        assembled.meshes,
        assembled.slivers,
        assembled.events,
        assembled.unjoined,
    );
    if settings.bonds == BondRule::Off {
        desc.bonds.clear();
    }
    let provenance =
        provenance_line(settings, mesh, mesh_volume, what) + &slivers.describe() + &noise_note;
    let file = AssetFile {
        name: String::new(),
        provenance,
        desc,
        meshes,
    };
    smithereens_core::Asset::new(&file.desc)?;
    let chunk_volume: f64 = file.desc.chunks.iter().map(|c| c.volume as f64).sum();
    let report = FractureReport {
        raw_pieces: raw.len() as u32,
        chunks: file.desc.chunks.len() as u32,
        slivers: events,
        unjoined,
        merged: slivers.merged,
        dropped: slivers.dropped,
        dropped_volume: slivers.dropped_volume,
        mesh_volume,
        chunk_volume,
        volume_error: chunk_volume - mesh_volume,
        merged_sites: cells.sites.merged,
        sites_outside_bounds: cells.sites.outside_bounds,
        site_steps: cells.sites.steps,
        degenerate_left: cells.sites.degenerate_left,
        recarves: cells.sites.recarves,
        failing_left: cells.sites.failing_left,
        recarve_steps: cells.sites.recarve_steps,
        explicit_sites_moved: cells.sites.given > 0
            && cells.sites.steps + cells.sites.recarve_steps > 0,
        rough_interfaces: noise_stats.noisy,
        limited_rough_interfaces: noise_stats.limited,
    };
    Ok((file, report))
}

/// The provenance line: tool version, `what` (entry point and pattern),
/// settings (the bond rule and the hull decomposition only when they are
/// not the default), and the source mesh ending in its volume (which
/// `smithereens inspect` reads back as the last "volume").
pub(crate) fn provenance_line(
    settings: &FractureSettings,
    mesh: &TriMesh,
    mesh_volume: f64,
    what: &str,
) -> String {
    let bonds = match settings.bonds {
        BondRule::Detect => "",
        BondRule::Off => " bonds=Off",
    };
    // Like the bond rule, only when not the default.
    let hulls = match settings.decomposition {
        Some(d) if d == HullDecomposition::default() => String::new(),
        Some(d) => format!(
            " decomposition=threshold {:?}, at most {} hulls",
            d.threshold, d.max_hulls
        ),
        None => " decomposition=off".to_string(),
    };
    let collapse = match (settings.collapse_short_edges, settings.shared_regions) {
        (true, true) => " collapse_short_edges shared_regions",
        (true, false) => " collapse_short_edges",
        (false, true) => " shared_regions",
        (false, false) => "",
    };
    let seams = if settings.dissolve_seams {
        " dissolve_seams"
    } else {
        ""
    };
    format!(
        "smithereens-authoring {} {what} seed={} density={:?} kg/m3 \
         strength_per_area={:?} du/m2 support={:?}{bonds}{hulls}{collapse}{seams}; source mesh: {} vertices, {} triangles, volume {:?} m3",
        env!("CARGO_PKG_VERSION"),
        settings.seed,
        settings.density,
        settings.strength_per_area,
        settings.support,
        mesh.positions.len(),
        mesh.triangles.len(),
        mesh_volume,
    )
}

#[cfg(test)]
pub(crate) fn assemble(
    raw: &[RawChunk],
    raw_bonds: &[RawBond],
    params: &AssemblyParams,
) -> Result<(AssetDesc, Vec<ChunkMesh>), FractureError> {
    assemble_counted(raw, raw_bonds, params).map(|(d, m, _, _)| (d, m))
}

/// What sliver handling did in `assemble_counted`.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub(crate) struct SliverStats {
    /// Degenerate pieces merged into a neighbour.
    pub merged: u32,
    /// Pieces dropped (below the volume floor, or degenerate with no neighbour).
    pub dropped: u32,
    /// Total volume of the dropped pieces, m³.
    pub dropped_volume: f64,
}

impl SliverStats {
    /// Provenance suffix (deliberately without the word "volume", which
    /// `smithereens inspect` looks for).
    pub fn describe(&self) -> String {
        format!(
            "; slivers: {} merged into a neighbour, {} dropped ({:e} m3 dropped)",
            self.merged, self.dropped, self.dropped_volume
        )
    }
}

/// A sliver event whose merge target is resolved to a final chunk once the
/// groups are settled.
struct PendingSliver {
    event: SliverEvent,
    merged: bool,
}

/// Builds the asset description and one render mesh per chunk.
///
/// Degenerate pieces are handled in chunk order, one at a time:
/// * a piece with volume below [`SLIVER_VOLUME_FRACTION`] of the mesh is
///   dropped (rejected) with its bonds: too small to matter;
/// * a piece that is thin (principal moment ratio below
///   [`SLIVER_INERTIA_RATIO`]) or whose convex hull cannot be built or is
///   flat is merged into the neighbour with the largest shared bond area
///   (ties: lower index). The merged chunk is the union of both: volumes add,
///   inertia by the parallel-axis theorem, hull of the union, and its render
///   mesh is the closed surface of the union (the caps along their former
///   interface cancel, see `union.rs`), so the total volume is kept. With no
///   bonded neighbour the piece is dropped.
///
/// Also counts merged and dropped slivers and lists them in the order they
/// were handled.
#[allow(clippy::type_complexity)]
#[cfg(test)]
pub(crate) fn assemble_counted(
    raw: &[RawChunk],
    raw_bonds: &[RawBond],
    params: &AssemblyParams,
) -> Result<(AssetDesc, Vec<ChunkMesh>, SliverStats, Vec<SliverEvent>), FractureError> {
    assemble_mapped(raw, raw_bonds, params).map(|a| (a.desc, a.meshes, a.slivers, a.events))
}

/// The result of [`assemble_mapped`].
pub(crate) struct Assembled {
    pub desc: AssetDesc,
    pub meshes: Vec<ChunkMesh>,
    pub slivers: SliverStats,
    /// Every sliver merged or dropped, in the order they were handled.
    pub events: Vec<SliverEvent>,
    /// Final chunk of every raw piece, `usize::MAX` for a dropped one.
    pub chunk_of_raw: Vec<usize>,
    /// Merged chunks whose members' surfaces could not be joined, with the
    /// reason (see [`chunk_mesh`]).
    pub unjoined: Vec<(ChunkIndex, String)>,
}

/// `assemble_counted`, also returning which chunk each raw piece ended in.
pub(crate) fn assemble_mapped(
    raw: &[RawChunk],
    raw_bonds: &[RawBond],
    params: &AssemblyParams,
) -> Result<Assembled, FractureError> {
    let mut stats = SliverStats::default();
    let mut pending: Vec<PendingSliver> = Vec::new();
    let n = raw.len();
    let unit_props: Vec<MassProperties> = raw
        .iter()
        .map(|c| polyhedron_mass_properties(&c.piece.positions, &c.piece.triangles, 1.0))
        .collect();
    let mut root: Vec<usize> = (0..n).collect();
    let mut alive = vec![true; n];
    // Hull per group root, `None` = not computed since the group last changed.
    let mut hulls: Vec<Option<Result<Hull, String>>> = vec![None; n];
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
            let event = |reason: SliverReason| SliverEvent {
                piece: *g as u32,
                cell: raw[*g].cell,
                pieces: members.len() as u32,
                volume: props.volume,
                centroid: props.centroid,
                reason,
                action: SliverAction::Dropped,
            };
            if props.volume < min_volume {
                alive[*g] = false;
                stats.dropped += 1;
                stats.dropped_volume += props.volume;
                pending.push(PendingSliver {
                    event: event(SliverReason::BelowVolumeFloor),
                    merged: false,
                });
                continue 'merge;
            }
            let reason = if !inertia_is_sound(&props, params.density) {
                SliverReason::ThinInertia {
                    ratio: inertia_ratio(&props, params.density),
                }
            } else {
                match hulls[*g].get_or_insert_with(|| hull_points(raw, members)) {
                    Ok(_) => continue,
                    Err(reason) => SliverReason::Hull {
                        reason: reason.clone(),
                    },
                }
            };
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
            // Own group first (a hierarchy keeps slivers in their parent),
            // then the largest shared area, then the lower index.
            let foreign = |r: usize| {
                !params.groups.is_empty() && params.groups.get(r) != params.groups.get(*g)
            };
            shared.sort_by(|x, y| {
                foreign(x.0)
                    .cmp(&foreign(y.0))
                    .then(y.1.total_cmp(&x.1))
                    .then(x.0.cmp(&y.0))
            });
            match shared.first() {
                Some(&(other, _)) => {
                    let (keep, gone) = (other.min(*g), other.max(*g));
                    root[gone] = keep;
                    hulls[keep] = None;
                    stats.merged += 1;
                    pending.push(PendingSliver {
                        event: event(reason),
                        merged: true,
                    });
                }
                None => {
                    alive[*g] = false;
                    stats.dropped += 1;
                    stats.dropped_volume += props.volume;
                    pending.push(PendingSliver {
                        event: event(reason),
                        merged: false,
                    });
                }
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
    let mut unjoined = Vec::new();
    // Per chunk (independent, so in parallel; collected in chunk order):
    // hulls, support flag, render mesh.
    let cached: Vec<Option<Result<Hull, String>>> =
        groups.iter().map(|(g, _)| hulls[*g].take()).collect();
    let built: Vec<_> = groups
        .par_iter()
        .zip(cached)
        .map(|((_, members), cached)| {
            let hull = cached.unwrap_or_else(|| hull_points(raw, members));
            let hulls = hull.map(|hull| chunk_hulls(raw, members, hull, params));
            let support = params.ground.is_some_and(|ground| {
                ground.touches(
                    members
                        .iter()
                        .flat_map(|&m| raw[m].piece.positions.iter().copied()),
                )
            });
            let (mesh, unjoinable) = chunk_mesh(raw, raw_bonds, members, params.weld);
            (hulls, support, mesh, unjoinable)
        })
        .collect();
    for (index, ((_, members), (hulls, support, mesh, unjoinable))) in
        groups.iter().zip(built).enumerate()
    {
        for &m in members {
            chunk_of_raw[m] = index;
        }
        let unit = combine(&members.iter().map(|&m| unit_props[m]).collect::<Vec<_>>());
        let hulls = hulls.map_err(|reason| FractureError::Hull {
            chunk: index as u32,
            reason,
        })?;
        chunks.push(ChunkDesc {
            volume: unit.volume as f32,
            mass: (unit.mass * params.density) as f32,
            centroid: unit.centroid.as_vec3(),
            inertia: (unit.inertia * params.density).as_mat3(),
            hulls,
            support,
            gameplay_critical: false,
            parent: None,
            depth: 0,
        });
        meshes.push(mesh);
        if let Some(reason) = unjoinable {
            unjoined.push((ChunkIndex(index as u32), reason));
        }
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
    let events = pending
        .into_iter()
        .map(|p| {
            let mut event = p.event;
            if p.merged {
                let piece = event.piece as usize;
                let r = find(&mut root, piece);
                event.action = match chunk_of_raw[piece] {
                    c if alive[r] && c != usize::MAX => SliverAction::Merged {
                        chunk: ChunkIndex(c as u32),
                    },
                    _ => SliverAction::MergedIntoDropped,
                };
            }
            event
        })
        .collect();
    Ok(Assembled {
        desc: AssetDesc {
            chunks,
            bonds,
            support_depth: None,
        },
        meshes,
        slivers: stats,
        events,
        chunk_of_raw,
        unjoined,
    })
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

/// Smallest / largest principal moment of the inertia as stored (f32), or 0
/// when the principal axes cannot be computed or the largest is not positive.
fn inertia_ratio(unit: &MassProperties, density: f64) -> f64 {
    let inertia = (unit.inertia * density).as_mat3();
    match smithereens_core::mass::principal_axes(inertia) {
        Ok(axes) if axes.moments.max_element() > 0.0 => {
            (axes.moments.min_element() as f64 / axes.moments.max_element() as f64).max(0.0)
        }
        _ => 0.0,
    }
}

/// Vertices (f32, m) of the convex hull of the members' vertices
/// (`parry3d::transformation::try_convex_hull`). Fails when the hull cannot
/// be built or encloses no volume.
fn hull_points(raw: &[RawChunk], members: &[usize]) -> Result<Hull, String> {
    hull_of_points(
        &mut members
            .iter()
            .flat_map(|&m| raw[m].piece.positions.iter().copied()),
    )
}

/// The hulls of a chunk whose single hull is `hull`: that hull alone, or
/// with [`FractureSettings::decomposition`] on and a concave chunk, the
/// hulls of its convex parts (see `decompose.rs`).
fn chunk_hulls(
    raw: &[RawChunk],
    members: &[usize],
    hull: Hull,
    params: &AssemblyParams,
) -> Vec<HullDesc> {
    let parts = params.decomposition.and_then(|d| {
        let pieces: Vec<&Piece> = members.iter().map(|&m| &raw[m].piece).collect();
        decompose(
            &pieces,
            hull.volume,
            d.threshold,
            d.max_hulls as usize,
            params.eps,
            params.weld,
        )
    });
    match parts {
        Some(parts) => parts
            .into_iter()
            .map(|points| HullDesc { points })
            .collect(),
        None => vec![HullDesc {
            points: hull.points,
        }],
    }
}

/// A convex hull: its vertices (f32, as stored) and the volume it
/// encloses (m³).
#[derive(Clone)]
pub(crate) struct Hull {
    pub points: Vec<Vec3>,
    pub volume: f64,
}

/// The convex hull of `points`, or why it failed or is flat.
pub(crate) fn hull_of_points(points: &mut dyn Iterator<Item = DVec3>) -> Result<Hull, String> {
    // Exact f32 duplicates (distinct f64 points that round together) upset
    // quickhull; remove them in a deterministic (sorted) order.
    let mut keyed: Vec<([u32; 3], Vec3)> = points
        .map(|p| {
            let v = p.as_vec3() + Vec3::ZERO;
            ([v.x.to_bits(), v.y.to_bits(), v.z.to_bits()], v)
        })
        .collect();
    keyed.sort_unstable_by_key(|k| k.0);
    keyed.dedup_by_key(|k| k.0);
    let points: Vec<Vec3> = keyed.into_iter().map(|k| k.1).collect();
    let (vertices, triangles) = match guarded_hull(&points) {
        Ok(hull) => hull,
        Err(first) => {
            // Quickhull can still trip over near-coincident or near-coplanar
            // points. Retry once with the points snapped to a grid of 1e-6 of
            // the chunk's extent: the hull moves by at most that much.
            let (lo, hi) = points
                .iter()
                .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| {
                    (lo.min(*p), hi.max(*p))
                });
            let step = ((hi - lo).max_element() * 1e-6).max(f32::MIN_POSITIVE);
            let mut snapped: Vec<Vec3> = points
                .iter()
                .map(|p| lo + ((*p - lo) / step).round() * step)
                .collect();
            snapped.sort_unstable_by(|a, b| {
                a.to_array()
                    .partial_cmp(&b.to_array())
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            snapped.dedup();
            guarded_hull(&snapped).map_err(|e| format!("{first}; after snapping: {e}"))?
        }
    };
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
    Ok(Hull {
        points: vertices,
        volume,
    })
}

/// `parry3d::transformation::try_convex_hull`, with a panic inside parry
/// (it has internal asserts on degenerate input) turned into an error, so
/// bad geometry can never crash the caller.
fn guarded_hull(points: &[Vec3]) -> Result<(Vec<Vec3>, Vec<[u32; 3]>), String> {
    smithereens_panic_guard::quietly(|| parry3d::transformation::try_convex_hull(points))
        .map_err(|caught| format!("convex hull builder panicked: {caught}"))?
        .map_err(|e| e.to_string())
}

/// Edges shorter than this many f32 units in the last place (of the
/// piece's largest coordinate) are collapsed in its render mesh: f32 cannot
/// keep their ends apart reliably, and two ends that round to distinct but
/// adjacent values leave a pinched, non-manifold edge (seen on
/// `stairs.obj`, whose zero-area T-junction fill puts cut vertices 1e-8 m
/// apart). Longer edges are kept: collapsing a sub-micron edge of a long
/// thin triangle moves its area from a cap to a neighbouring face, which
/// broke "bond area = cap area" on Spot at a 1e-6 relative threshold.
pub const SHORT_EDGE_ULPS: f64 = 2.0;

/// For every vertex of `piece`, the lowest-index vertex it is joined to by
/// a chain of edges shorter than [`SHORT_EDGE_ULPS`] f32 units in the last
/// place (itself when none).
fn short_edge_representatives(piece: &Piece) -> Vec<u32> {
    let extent = piece
        .positions
        .iter()
        .fold(0.0f64, |m, p| m.max(p.abs().max_element()));
    let tolerance = SHORT_EDGE_ULPS * f64::from(f32::EPSILON) * extent;
    let mut root: Vec<u32> = (0..piece.positions.len() as u32).collect();
    fn find(root: &mut [u32], mut x: u32) -> u32 {
        while root[x as usize] != x {
            root[x as usize] = root[root[x as usize] as usize];
            x = root[x as usize];
        }
        x
    }
    for t in &piece.triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            let short =
                piece.positions[a as usize].distance(piece.positions[b as usize]) < tolerance;
            if short {
                let (ra, rb) = (find(&mut root, a), find(&mut root, b));
                root[ra.max(rb) as usize] = ra.min(rb);
            }
        }
    }
    (0..root.len() as u32).map(|v| find(&mut root, v)).collect()
}

/// The render mesh of a chunk made of raw pieces `members` (ascending).
/// One piece gives its own surface; several give the closed surface of
/// their union ([`union_surface`], with the `raw_bonds` between members as
/// the interfaces that cancel). Should the union fail (rims that do not
/// meet), the members' own closed surfaces are kept side by side, which
/// still encloses the right volume, and the reason is returned (it goes to
/// [`FractureReport::unjoined`]). Then [`add_piece`] in f32.
fn chunk_mesh(
    raw: &[RawChunk],
    raw_bonds: &[RawBond],
    members: &[usize],
    weld: f64,
) -> (ChunkMesh, Option<String>) {
    let mut mesh = ChunkMesh::default();
    if members.len() > 1 {
        let slot = |k: usize| members.binary_search(&k).ok();
        let interfaces: Vec<Interface> = raw_bonds
            .iter()
            .filter_map(|b| {
                Some(Interface {
                    a: slot(b.a)?,
                    b: slot(b.b)?,
                    tags: b.tags,
                    plane: Plane {
                        point: b.centroid,
                        normal: b.normal,
                    },
                })
            })
            .collect();
        let pieces: Vec<&Piece> = members.iter().map(|&m| &raw[m].piece).collect();
        match union_surface(&pieces, &interfaces, weld) {
            Ok(union) => {
                add_piece(&mut mesh, &union);
                return (mesh, None);
            }
            Err(reason) => {
                for piece in pieces {
                    add_piece(&mut mesh, piece);
                }
                return (mesh, Some(reason));
            }
        }
    }
    for &m in members {
        add_piece(&mut mesh, &raw[m].piece);
    }
    (mesh, None)
}

/// Appends `piece` to `mesh` in f32, with edges shorter than
/// [`SHORT_EDGE_ULPS`] f32 units in the last place collapsed, welded by
/// exact f32 position. Triangles that collapse under f32 rounding are
/// dropped (an edge collapse, which keeps the surface closed), and so are
/// pairs of triangles on the same three vertices with opposite winding
/// (zero-volume fins that rounding can create next to degenerate input
/// triangles; removing both keeps every edge balanced).
fn add_piece(mesh: &mut ChunkMesh, piece: &Piece) {
    let representative = short_edge_representatives(piece);
    // Lookup only; indices are assigned in vertex order.
    let mut weld: HashMap<[u32; 3], u32> = HashMap::with_capacity(piece.positions.len());
    let ids: Vec<u32> = representative
        .iter()
        .map(|&r| {
            let v = piece.positions[r as usize].as_vec3() + Vec3::ZERO;
            *weld
                .entry([v.x.to_bits(), v.y.to_bits(), v.z.to_bits()])
                .or_insert_with(|| {
                    mesh.positions.push(v);
                    (mesh.positions.len() - 1) as u32
                })
        })
        .collect();
    let tris: Vec<([u32; 3], u32)> = piece
        .triangles
        .iter()
        .zip(&piece.tags)
        .map(|(t, &tag)| (t.map(|i| ids[i as usize]), tag))
        .filter(|(t, _)| t[0] != t[1] && t[1] != t[2] && t[2] != t[0])
        .collect();
    let fins = fin_triangles(&tris);
    for (k, (t, tag)) in tris.into_iter().enumerate() {
        if fins.binary_search(&k).is_ok() {
            continue;
        }
        if tag == EXTERIOR {
            mesh.exterior.push(t);
        } else {
            mesh.interior.push(t);
        }
    }
}

/// Indices (sorted) of triangles that pair up with another triangle on the
/// same vertex set and opposite winding; pairs are formed in index order.
fn fin_triangles(tris: &[([u32; 3], u32)]) -> Vec<usize> {
    // (sorted vertices, winding parity, triangle index)
    let mut keyed: Vec<([u32; 3], bool, usize)> = tris
        .iter()
        .enumerate()
        .map(|(k, (t, _))| {
            let mut s = *t;
            s.sort_unstable();
            // A cyclic rotation of the sorted triple has the same winding.
            let even = *t == s || *t == [s[1], s[2], s[0]] || *t == [s[2], s[0], s[1]];
            (s, even, k)
        })
        .collect();
    keyed.sort_unstable();
    let mut out = Vec::new();
    let mut start = 0;
    while start < keyed.len() {
        let end = start
            + keyed[start..]
                .iter()
                .take_while(|e| e.0 == keyed[start].0)
                .count();
        let group = &keyed[start..end];
        let odd: Vec<usize> = group.iter().filter(|e| !e.1).map(|e| e.2).collect();
        let even: Vec<usize> = group.iter().filter(|e| e.1).map(|e| e.2).collect();
        for (a, b) in odd.iter().zip(&even) {
            out.push(*a);
            out.push(*b);
        }
        start = end;
    }
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::piece::Piece;

    /// Closed box `[lo, hi]` as a raw chunk of `cell`, all faces exterior.
    fn box_chunk(lo: DVec3, hi: DVec3, cell: u32) -> RawChunk {
        let positions = crate::mesh::box_corners(lo, hi);
        let triangles = crate::mesh::BOX_TRIANGLES.to_vec();
        RawChunk {
            cell,
            piece: Piece {
                positions,
                triangles,
                tags: vec![EXTERIOR; 12],
            },
        }
    }

    fn params(mesh_volume: f64) -> AssemblyParams {
        AssemblyParams {
            density: 1000.0,
            strength_per_area: 10.0,
            ground: None,
            mesh_volume,
            min_bond_area: 1e-12,
            weld: 1e-9,
            groups: Vec::new(),
            eps: 1e-10,
            decomposition: None,
        }
    }

    fn bond(a: usize, b: usize, area: f64, x: f64) -> RawBond {
        RawBond {
            a,
            b,
            tags: [0, 0],
            area,
            centroid: DVec3::new(x, 0.5, 0.5),
            normal: DVec3::X,
        }
    }

    #[test]
    fn two_boxes_give_two_chunks_and_one_bond_with_scaled_mass_and_strength() {
        let raw = [
            box_chunk(DVec3::ZERO, DVec3::ONE, 0),
            box_chunk(DVec3::X, DVec3::new(2.0, 1.0, 1.0), 1),
        ];
        let (desc, meshes) = assemble(&raw, &[bond(0, 1, 1.0, 1.0)], &params(2.0)).unwrap();
        assert_eq!(desc.chunks.len(), 2);
        assert_eq!(meshes.len(), 2);
        assert!((desc.chunks[1].mass - 1000.0).abs() < 1e-3);
        assert!((desc.chunks[1].inertia.x_axis.x - 1000.0 / 6.0).abs() < 1e-2);
        assert_eq!(desc.bonds.len(), 1);
        assert_eq!(desc.bonds[0].strength, 10.0);
        assert_eq!(meshes[0].exterior.len(), 12);
        assert!(meshes[0].interior.is_empty());
        assert_eq!(desc.chunks[0].hulls[0].points.len(), 8);
    }

    #[test]
    fn needle_sliver_is_merged_into_the_neighbour_with_the_largest_interface() {
        let needle_lo = DVec3::new(1.0, 0.0, 0.0);
        let needle_hi = DVec3::new(1.001, 1.0, 0.001);
        let raw = [
            box_chunk(DVec3::ZERO, DVec3::ONE, 0),
            box_chunk(needle_lo, needle_hi, 1),
            box_chunk(DVec3::new(1.001, 0.0, 0.0), DVec3::new(2.0, 1.0, 1.0), 2),
        ];
        // The needle touches chunk 0 over 1e-3 m² and chunk 2 over 2e-3 m²:
        // chunk 2 gets it.
        let bonds = [
            bond(0, 1, 1e-3, 1.0),
            bond(0, 2, 0.5, 1.0),
            bond(1, 2, 2e-3, 1.001),
        ];
        let total = 1.0 + 1e-6 + 0.999;
        let (desc, meshes) = assemble(&raw, &bonds, &params(total)).unwrap();
        assert_eq!(desc.chunks.len(), 2);
        let volume: f64 = desc.chunks.iter().map(|c| c.volume as f64).sum();
        assert!((volume - total).abs() < 1e-6);
        assert!(
            (desc.chunks[1].volume as f64 - (0.999 + 1e-6)).abs() < 1e-6,
            "merged into chunk 2"
        );
        // These boxes carry no cap tags, so no faces cancel (see
        // `union.rs` for boxes that do): both surfaces stay.
        assert_eq!(meshes[1].exterior.len(), 24);
        // Bonds 0–1 and 0–2 collapse into one with the summed area.
        assert_eq!(desc.bonds.len(), 1);
        assert!((desc.bonds[0].area as f64 - (0.5 + 1e-3)).abs() < 1e-6);
        smithereens_core::Asset::new(&desc).unwrap();
    }

    #[test]
    fn tiny_sliver_is_dropped_with_its_bonds() {
        let raw = [
            box_chunk(DVec3::ZERO, DVec3::ONE, 0),
            box_chunk(DVec3::X, DVec3::new(1.0001, 0.0001, 0.0001), 1),
        ];
        let (desc, _) = assemble(&raw, &[bond(0, 1, 1e-8, 1.0)], &params(1.0)).unwrap();
        assert_eq!(desc.chunks.len(), 1);
        assert!(desc.bonds.is_empty());
    }

    #[test]
    fn fins_are_found_in_pairs_of_opposite_winding() {
        let tris = [
            ([0, 1, 2], 0),
            ([1, 0, 2], 0),
            ([2, 0, 1], 0),
            ([3, 4, 5], 0),
        ];
        assert_eq!(fin_triangles(&tris), vec![0, 1]);
    }
}
