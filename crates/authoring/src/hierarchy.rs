//! Two-level fracture: every chunk of a first pattern is fractured again by
//! a second, and the asset records parent, children and depth with a chosen
//! support depth (DESIGN §5; Blast's chunk hierarchy, APEX's chunk depth).

use crate::assembly::{Assembled, AssemblyParams, SliverStats, assemble_mapped, provenance_line};
use crate::bonds::{RawBond, RawChunk, cap_overlap, push_bond};
use crate::cut_noise::roughen_interfaces;
use crate::error::FractureError;
use crate::mass_properties::{MassProperties, combine, polyhedron_mass_properties};
use crate::mesh::TriMesh;
use crate::pattern::{Pattern, raw_cells};
use crate::piece::{EXTERIOR, Piece, Plane};
use crate::report::HierarchyReport;
use crate::settings::{BondRule, FractureSettings, MAX_CHUNK_COUNT, Progress};
use crate::sites::SiteCounts;
use crate::support::Ground;
use crate::voronoi::{RawFracture, Scale};
use glam::DVec3;
use smithereens_core::{AssetDesc, AssetFile, BondEnd, ChunkDesc, ChunkMesh};

/// First-level cap tags are offset by this inside second-level pieces, so
/// they stay distinct per cut plane but never collide with the finer
/// pattern's own tags (site or plane indices, far below it), whose bond
/// finders therefore ignore them.
pub(crate) const PARENT_TAG_BASE: u32 = 1 << 31;

/// The second level of a [`fracture_hierarchy`].
#[derive(Clone, Debug, PartialEq)]
pub struct Refinement {
    /// Pattern applied inside every first-level chunk, in the chunk's own
    /// bounds (a slice grid or brick courses are laid over each chunk).
    pub pattern: Pattern,
    /// Voronoi sites per first-level chunk, ≥ 1 (plane patterns ignore it).
    pub chunk_count: u32,
    /// Which level the runtime simulates (`AssetDesc::support_depth`): 0 =
    /// the first-level chunks, whose children are then subsupport chunks;
    /// 1 = the second-level chunks, whose parents are then kept for
    /// level-of-detail rendering and tools.
    pub support_depth: u32,
}

impl Default for Refinement {
    /// 8 uniform Voronoi sites per chunk, support depth 1.
    fn default() -> Self {
        Self {
            pattern: Pattern::default(),
            chunk_count: 8,
            support_depth: 1,
        }
    }
}

/// Fractures `mesh` by `pattern` (level 0, `settings.chunk_count` sites for
/// Voronoi), then every level-0 piece by `refinement.pattern` (level 1),
/// and returns one asset holding both levels.
///
/// * **Order and links**: the level-0 chunks come first (depth 0, no
///   parent), then the level-1 chunks (depth 1, `parent` = the level-0
///   chunk they were cut from), each level in the order of
///   [`fracture`](crate::fracture). `AssetDesc::support_depth` =
///   `refinement.support_depth`.
/// * **Exact cover**: each level-0 chunk's volume, mass, centroid and
///   inertia are those of its children combined (parallel-axis theorem), so
///   a parent equals the sum of its children by construction. Its hull and
///   render mesh are its own closed surface.
/// * **Bonds** only on the simulated level. At depth 1 they are the bonds
///   found inside each parent, plus bonds between children of neighbouring
///   parents: the children's caps on the parents' shared cut plane, matched
///   by overlap area (coplanar, opposite; edge or corner contact gives no
///   bond), with area, centroid and normal like every other bond.
/// * **Supports** (`settings.support`) are flagged on the simulated level
///   only. [`BondRule::Off`] removes the bonds at the end, as for
///   [`fracture`](crate::fracture).
/// * **Slivers** at level 1 merge into a sibling when one touches them,
///   else into any neighbour. A level-0 piece that cannot be refined (too
///   small for its sites, or not a valid closed mesh on its own) keeps one
///   child equal to itself; the provenance counts them.
/// * **Cut noise** (`settings.cut_noise`) roughens the simulated level's
///   interfaces: at support depth 1 the children's (also across parents),
///   while the parents keep flat surfaces as a level-of-detail stand-in
///   (their mass properties are still the rough children's); at support
///   depth 0 the parents', before they are refined, so the children cut
///   from them still cover them exactly.
/// * Seeds: level 0 uses `settings.seed`; piece `k` of level 0 uses a
///   seed derived from `settings.seed` and `k`. Deterministic: same input,
///   same bytes.
///
/// `progress` counts level-0 cells, then level-0 pieces refined.
///
/// # Errors
/// Everything [`fracture`](crate::fracture) returns, plus
/// [`FractureError::InvalidPattern`] for a support depth above 1, a zero
/// `refinement.chunk_count`, or more than [`MAX_CHUNK_COUNT`] level-1 sites
/// in total.
pub fn fracture_hierarchy(
    mesh: &TriMesh,
    settings: &FractureSettings,
    pattern: &Pattern,
    refinement: &Refinement,
    progress: &mut dyn FnMut(Progress),
) -> Result<AssetFile, FractureError> {
    fracture_hierarchy_with_report(mesh, settings, pattern, refinement, progress).map(|(f, _)| f)
}

/// [`fracture_hierarchy`], also returning what happened on the way: the
/// level-0 pieces that could not be refined and the near-degenerate cells
/// left on either level ([`HierarchyReport::warnings`]).
///
/// # Errors
/// As [`fracture_hierarchy`].
pub fn fracture_hierarchy_with_report(
    mesh: &TriMesh,
    settings: &FractureSettings,
    pattern: &Pattern,
    refinement: &Refinement,
    progress: &mut dyn FnMut(Progress),
) -> Result<(AssetFile, HierarchyReport), FractureError> {
    settings.validate()?;
    mesh.validate()?;
    let invalid = |reason: String| FractureError::InvalidPattern { reason };
    if refinement.support_depth > 1 {
        return Err(invalid(format!(
            "support depth {} (a two-level hierarchy has depths 0 and 1)",
            refinement.support_depth
        )));
    }
    if refinement.chunk_count == 0 {
        return Err(invalid("refinement chunk count 0 (needs ≥ 1)".into()));
    }
    let total_sites = u64::from(settings.chunk_count) * u64::from(refinement.chunk_count);
    if matches!(refinement.pattern, Pattern::Voronoi { .. }) && total_sites > MAX_CHUNK_COUNT as u64
    {
        return Err(invalid(format!(
            "{} × {} = {total_sites} second-level sites (at most {MAX_CHUNK_COUNT})",
            settings.chunk_count, refinement.chunk_count
        )));
    }
    let scale = Scale::with_settings(mesh, settings);
    let (lo, _) = mesh.bounds();
    let ground = Ground::resolve(&settings.support, lo);
    let base = Piece::from_mesh(mesh);
    let mut coarse = raw_cells(
        mesh,
        &base,
        settings.chunk_count,
        settings.seed,
        pattern,
        &scale,
        progress,
    )?;
    let noise = settings.cut_noise.filter(|n| n.is_active());
    let mut noise_note = String::new();
    if let (Some(noise), 0) = (&noise, refinement.support_depth) {
        // The simulated level is rough; the children are cut from the rough
        // pieces, so they still cover their parents exactly.
        noise_note = roughen_interfaces(&mut coarse.raw, &coarse.bonds, noise, settings.seed)
            .describe(noise);
    }
    let params = |ground: Option<Ground>, groups: Vec<u32>| AssemblyParams {
        density: settings.density,
        strength_per_area: settings.strength_per_area,
        ground,
        mesh_volume: scale.volume,
        min_bond_area: scale.min_bond_area(),
        weld: scale.weld(),
        groups,
        eps: scale.eps(),
        decomposition: settings.decomposition,
    };
    let level0 = assemble_mapped(
        &coarse.raw,
        &coarse.bonds,
        &params(ground.filter(|_| refinement.support_depth == 0), Vec::new()),
    )?;

    // Level 1: every surviving level-0 piece, cut again.
    let live: Vec<usize> = (0..coarse.raw.len())
        .filter(|&k| level0.chunk_of_raw[k] != usize::MAX)
        .collect();
    let Refined {
        mut fine,
        bonds: mut fine_bonds,
        parent_raw,
        unrefined,
        first_failure,
        recarves: fine_recarves,
        failing_left: fine_failing,
    } = refine(
        &coarse.raw,
        &live,
        refinement,
        settings.seed,
        &scale,
        progress,
    );
    fine_bonds.extend(bonds_across_parents(
        &fine,
        &parent_raw,
        &coarse.bonds,
        &scale,
    ));
    fine_bonds.sort_by_key(|b| (b.a, b.b));
    if let (Some(noise), 1) = (&noise, refinement.support_depth) {
        // The children's interfaces are rough (also across parents); the
        // parents keep their flat surfaces as a level-of-detail stand-in,
        // with the rough children's mass properties.
        noise_note =
            roughen_interfaces(&mut fine, &fine_bonds, noise, piece_seed(settings.seed, 0))
                .describe(noise);
    }

    let groups: Vec<u32> = parent_raw
        .iter()
        .map(|&k| level0.chunk_of_raw[k] as u32)
        .collect();
    let level1 = assemble_mapped(
        &fine,
        &fine_bonds,
        &params(ground.filter(|_| refinement.support_depth == 1), groups),
    )?;
    let mut desc = compose(&level0, &fine, &parent_raw, &level1, settings, refinement)?;
    if settings.bonds == BondRule::Off {
        desc.0.bonds.clear();
    }
    let what = format!(
        "fracture_hierarchy: level 0 pattern={} chunk_count={}; level 1 pattern={} \
         chunk_count={} per chunk; support_depth={}; {unrefined} level-0 pieces not refined{}",
        pattern.describe(&coarse.sites),
        settings.chunk_count,
        refinement.pattern.describe(&SiteCounts::default()),
        refinement.chunk_count,
        refinement.support_depth,
        if first_failure.is_empty() {
            String::new()
        } else {
            format!(" (first: {first_failure})")
        },
    );
    let (s0, s1) = (level0.slivers, level1.slivers);
    let slivers = SliverStats {
        merged: s0.merged + s1.merged,
        dropped: s0.dropped + s1.dropped,
        dropped_volume: s0.dropped_volume + s1.dropped_volume,
    }
    .describe()
        + &format!(
            " (level 0: {} merged, {} dropped; level 1: {} merged, {} dropped)",
            s0.merged, s0.dropped, s1.merged, s1.dropped
        );
    let file = AssetFile {
        name: String::new(),
        provenance: provenance_line(settings, mesh, scale.volume, &what) + &slivers + &noise_note,
        meshes: desc.1,
        desc: desc.0,
    };
    smithereens_core::Asset::new(&file.desc)?;
    let report = HierarchyReport {
        unrefined,
        first_failure,
        recarves: coarse.sites.recarves + fine_recarves,
        failing_left: coarse.sites.failing_left + fine_failing,
    };
    Ok((file, report))
}

/// The level-1 pieces of [`fracture_hierarchy`], before assembly.
struct Refined {
    fine: Vec<RawChunk>,
    /// Bonds between siblings (each piece's own pattern).
    bonds: Vec<RawBond>,
    /// Level-0 raw piece of every level-1 piece.
    parent_raw: Vec<usize>,
    /// Level-0 pieces kept whole because they could not be refined.
    unrefined: u32,
    /// The first of those failures, for the provenance (empty if none).
    first_failure: String,
    /// Re-carves over all refinements.
    recarves: u32,
    /// Cells still failing the check of carved pieces, over all refinements.
    failing_left: u32,
}

/// Cuts each level-0 piece in `live` by `refinement.pattern`, keeping its
/// caps tagged per plane ([`PARENT_TAG_BASE`] | level-0 tag). A piece that
/// cannot be refined (not a valid mesh on its own, no room for its sites, a
/// degenerate cut) stays whole as its own single child.
fn refine(
    coarse: &[RawChunk],
    live: &[usize],
    refinement: &Refinement,
    seed: u64,
    scale: &Scale,
    progress: &mut dyn FnMut(Progress),
) -> Refined {
    let mut out = Refined {
        fine: Vec::new(),
        bonds: Vec::new(),
        parent_raw: Vec::new(),
        unrefined: 0,
        first_failure: String::new(),
        recarves: 0,
        failing_left: 0,
    };
    let mut next_cell = 0u32;
    for (done, &k) in live.iter().enumerate() {
        let mut piece = coarse[k].piece.clone();
        for t in &mut piece.tags {
            if *t != EXTERIOR {
                *t |= PARENT_TAG_BASE;
            }
        }
        let cells = TriMesh::new(piece.positions.clone(), piece.triangles.clone())
            .map_err(FractureError::from)
            .and_then(|m| {
                raw_cells(
                    &m,
                    &piece,
                    refinement.chunk_count,
                    piece_seed(seed, k),
                    &refinement.pattern,
                    scale,
                    &mut |_| {},
                )
            })
            .and_then(|cells| {
                if cells.raw.is_empty() {
                    Err(FractureError::NoChunks)
                } else {
                    Ok(cells)
                }
            });
        let cells = cells.unwrap_or_else(|e| {
            out.unrefined += 1;
            if out.first_failure.is_empty() {
                out.first_failure =
                    format!("piece {k}: {}", smithereens_core::error::display_chain(&e));
            }
            RawFracture {
                raw: vec![RawChunk {
                    cell: 0,
                    piece: piece.clone(),
                }],
                bonds: Vec::new(),
                sites: SiteCounts::default(),
            }
        });
        out.recarves += cells.sites.recarves;
        out.failing_left += cells.sites.failing_left;
        let offset = out.fine.len();
        let max_cell = cells.raw.iter().map(|c| c.cell).max().unwrap_or(0);
        for mut c in cells.raw {
            c.cell += next_cell;
            out.fine.push(c);
            out.parent_raw.push(k);
        }
        next_cell += max_cell + 1;
        out.bonds.extend(cells.bonds.into_iter().map(|b| RawBond {
            a: b.a + offset,
            b: b.b + offset,
            ..b
        }));
        progress(Progress {
            done: done as u32 + 1,
            total: live.len() as u32,
        });
    }
    out
}

/// Seed of level-0 piece `k`'s refinement (SplitMix64 of seed and `k`).
fn piece_seed(seed: u64, k: usize) -> u64 {
    let mut z = seed ^ (k as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Bonds between level-1 pieces of different level-0 parents: for every
/// level-0 interface, the children's caps inherited from it (tagged
/// [`PARENT_TAG_BASE`] | the level-0 tag of each side), matched by overlap
/// in its plane.
fn bonds_across_parents(
    fine: &[RawChunk],
    parent_raw: &[usize],
    coarse_bonds: &[RawBond],
    scale: &Scale,
) -> Vec<RawBond> {
    let mut out = Vec::new();
    let pad = 1e-6 * scale.diagonal;
    // Level-1 pieces of every level-0 piece, ascending.
    let parents = parent_raw.iter().copied().max().map_or(0, |m| m + 1);
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); parents];
    for (c, &p) in parent_raw.iter().enumerate() {
        children[p].push(c);
    }
    let none: Vec<usize> = Vec::new();
    for bond in coarse_bonds {
        let plane = Plane {
            point: bond.centroid,
            normal: bond.normal,
        };
        let tags = bond.tags.map(|t| PARENT_TAG_BASE | t);
        // Children of one side with caps of that side's tag, and the bounds
        // of those caps.
        let side = |parent: usize, tag: u32| -> Vec<(usize, DVec3, DVec3)> {
            children
                .get(parent)
                .unwrap_or(&none)
                .iter()
                .filter_map(|&c| {
                    let piece = &fine[c].piece;
                    let mut lo = DVec3::splat(f64::INFINITY);
                    let mut hi = DVec3::splat(f64::NEG_INFINITY);
                    for (t, _) in piece
                        .triangles
                        .iter()
                        .zip(&piece.tags)
                        .filter(|(_, g)| **g == tag)
                    {
                        for &i in t {
                            lo = lo.min(piece.positions[i as usize]);
                            hi = hi.max(piece.positions[i as usize]);
                        }
                    }
                    (lo.x <= hi.x).then_some((c, lo, hi))
                })
                .collect()
        };
        let (below, above) = (side(bond.a, tags[0]), side(bond.b, tags[1]));
        for &(a, alo, ahi) in &below {
            for &(b, blo, bhi) in &above {
                if alo.cmpgt(bhi + pad).any() || blo.cmpgt(ahi + pad).any() {
                    continue;
                }
                let (area, centroid) =
                    cap_overlap(&fine[a].piece, tags[0], &fine[b].piece, tags[1], &plane);
                push_bond(
                    &mut out,
                    a,
                    b,
                    tags,
                    area,
                    centroid,
                    plane.normal,
                    scale.min_bond_area(),
                );
            }
        }
    }
    out
}

/// Both levels in one description: level-0 chunks with at least one child
/// (mass properties = their children combined), then level-1 chunks with
/// their parent links; bonds of the simulated level only.
fn compose(
    level0: &Assembled,
    fine: &[RawChunk],
    parent_raw: &[usize],
    level1: &Assembled,
    settings: &FractureSettings,
    refinement: &Refinement,
) -> Result<(AssetDesc, Vec<ChunkMesh>), FractureError> {
    let n0 = level0.desc.chunks.len();
    let n1 = level1.desc.chunks.len();
    // Parent (level-0 chunk) of every level-1 chunk: that of its lowest raw
    // member, which is the member the others merged into.
    let mut parent_of = vec![usize::MAX; n1];
    let mut unit: Vec<Vec<MassProperties>> = vec![Vec::new(); n1];
    for (r, &chunk) in level1.chunk_of_raw.iter().enumerate() {
        if chunk == usize::MAX {
            continue;
        }
        if parent_of[chunk] == usize::MAX {
            parent_of[chunk] = level0.chunk_of_raw[parent_raw[r]];
        }
        unit[chunk].push(polyhedron_mass_properties(
            &fine[r].piece.positions,
            &fine[r].piece.triangles,
            1.0,
        ));
    }
    // Level-0 chunks keep their place only when they have children.
    let mut children: Vec<Vec<MassProperties>> = vec![Vec::new(); n0];
    for (chunk, &p) in parent_of.iter().enumerate() {
        if let Some(list) = children.get_mut(p) {
            list.extend(unit[chunk].iter().copied());
        }
    }
    let mut new_index = vec![u32::MAX; n0];
    let mut chunks: Vec<ChunkDesc> = Vec::with_capacity(n0 + n1);
    let mut meshes: Vec<ChunkMesh> = Vec::with_capacity(n0 + n1);
    for (k, list) in children.iter().enumerate() {
        if list.is_empty() {
            continue;
        }
        new_index[k] = chunks.len() as u32;
        let whole = combine(list);
        let mut c = level0.desc.chunks[k].clone();
        c.volume = whole.volume as f32;
        c.mass = (whole.mass * settings.density) as f32;
        c.centroid = whole.centroid.as_vec3();
        c.inertia = (whole.inertia * settings.density).as_mat3();
        chunks.push(c);
        meshes.push(level0.meshes[k].clone());
    }
    let first_fine = chunks.len() as u32;
    for (chunk, c) in level1.desc.chunks.iter().enumerate() {
        let parent = new_index.get(parent_of[chunk]).copied().unwrap_or(u32::MAX);
        if parent == u32::MAX {
            return Err(FractureError::InvalidPattern {
                reason: format!("level-1 chunk {chunk} lost its parent"),
            });
        }
        let mut c = c.clone();
        c.parent = Some(parent);
        c.depth = 1;
        chunks.push(c);
        meshes.push(level1.meshes[chunk].clone());
    }
    let bonds = if refinement.support_depth == 0 {
        level0
            .desc
            .bonds
            .iter()
            .filter_map(|b| {
                let a = new_index[b.chunk0 as usize];
                let other = match b.chunk1 {
                    BondEnd::Chunk(o) => new_index[o as usize],
                    BondEnd::World => return None,
                };
                (a != u32::MAX && other != u32::MAX).then(|| {
                    let mut b = b.clone();
                    b.chunk0 = a;
                    b.chunk1 = BondEnd::Chunk(other);
                    b
                })
            })
            .collect()
    } else {
        level1
            .desc
            .bonds
            .iter()
            .map(|b| {
                let mut b = b.clone();
                b.chunk0 += first_fine;
                if let BondEnd::Chunk(o) = &mut b.chunk1 {
                    *o += first_fine;
                }
                b
            })
            .collect()
    };
    Ok((
        AssetDesc {
            chunks,
            bonds,
            support_depth: Some(refinement.support_depth),
        },
        meshes,
    ))
}
