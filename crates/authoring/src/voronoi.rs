//! Voronoi fracture by half-space clipping.

use crate::assembly::finish_asset;
use crate::bonds::{RawBond, RawChunk, find_bonds};
use crate::cap::CapOrder;
use crate::clip::{Clip, ClipSettings, clip_piece};
use crate::degenerate_output::{MAX_RECARVES, failing_cells};
use crate::edge_collapse::{collapse_piece, collapse_shared};
use crate::error::FractureError;
use crate::general_position::{put_in_general_position, step_site};
use crate::hierarchy::PARENT_TAG_BASE;
use crate::mass_properties::polyhedron_mass_properties;
use crate::mesh::TriMesh;
use crate::piece::{EXTERIOR, Piece, Plane};
use crate::region_tree::{REGION_CAP, RegionTree, cell_bounds};
use crate::report::FractureReport;
use crate::settings::{FractureSettings, Progress};
use crate::sites::{SiteCounts, SiteDistribution, plan_sites};
use crate::voronoi_cell::VoronoiCell;
use glam::DVec3;
use rayon::prelude::*;
use smithereens_core::AssetFile;

/// Snapping distance of the clipper's sign rule, as a fraction of the mesh's
/// bounding-box diagonal: vertices closer than this to a cutting plane are
/// treated as lying on it, which avoids sliver triangles and near-duplicate
/// cut points. The distance is never below the f32 resolution of the
/// mesh's coordinates ([`f32::EPSILON`] × the largest |coordinate|): input
/// meshes and output chunks are f32, so a plane that passes a vertex by
/// less than that (a brick course at y = 0.6 against a step stored as
/// 0.6000000238) is on it, not 2e-8 m away leaving a slab that collapses
/// to zero thickness in the render mesh.
pub const SNAP_FRACTION: f64 = 1e-9;

/// Distance, as a fraction of the bounding-box diagonal, within which cut
/// boundary vertices are welded when a cap cannot be triangulated at first
/// (degenerate input such as zero-area triangles filling T-junctions).
pub const WELD_FRACTION: f64 = 1e-7;

/// Shortest edge of a chunk's surface, as a fraction of the mesh's
/// bounding-box diagonal (1e-5: 26 µm on the 2.6 m Spot). Cuts that pass
/// closer than this to a vertex, or cross each other this close to the
/// surface, would leave shorter edges, which a renderer, a mesh optimiser
/// or an engine's importer welding at this tolerance collapses into
/// degenerate triangles and non-manifold edges (issue 17). With
/// [`FractureSettings::collapse_short_edges`] (on by default) they are
/// collapsed after carving, keeping every cut face in its plane, each piece
/// a closed 2-manifold, and both sides of a cut in agreement (see
/// `edge_collapse/`), after sampled sites are put in general position
/// (no five nearly on one sphere, `general_position.rs`), and cells whose
/// carved pieces still fail are re-carved with their sites stepped
/// (`degenerate_output.rs`, counted in
/// [`FractureReport::recarves`](crate::FractureReport::recarves)). The
/// render meshes' edges are then at least this long after rounding to f32
/// on every fracture measured: Spot and Bob at 100 to 2,000 sites, seeds 1
/// to 40; a cell still failing after the last re-carve is reported
/// ([`FractureReport::failing_left`](crate::FractureReport::failing_left),
/// with a warning). Explicit sites are moved only where they are nearly
/// but not exactly degenerate (see `general_position.rs`).
pub const MIN_EDGE_FRACTION: f64 = 1e-5;

/// No render-mesh triangle is smaller than this fraction of the square of
/// the mesh's bounding-box diagonal (m²) after fracture: edges are at least
/// [`MIN_EDGE_FRACTION`] × the diagonal long and triangles thinner than
/// 1e-2 of that are flattened away (see `edge_collapse/`), which bounds
/// the area by 5e-13 × diagonal² in f64; the documented floor leaves room
/// for rounding the vertices to f32.
pub const MIN_AREA_FRACTION: f64 = 1e-13;

/// Pieces of a cell whose volume is at most this fraction of the mesh
/// volume are numerical dust (zero-thickness shells left by degenerate cuts)
/// and are discarded before bonding; their volume is below any test
/// tolerance.
const DUST_VOLUME_FRACTION: f64 = 1e-12;

/// Interfaces smaller than this fraction of the squared bounding-box
/// diagonal are edge or corner contacts and get no bond.
const MIN_BOND_AREA_FRACTION: f64 = 1e-8;

/// Fractures a closed mesh into Voronoi chunks.
///
/// 1. **Sites**: `settings.chunk_count` points uniform inside the mesh
///    (rejection sampling in the bounding box with a winding-number
///    containment test, `rand_pcg::Pcg64Mcg` seeded with `settings.seed`).
///    With [`FractureSettings::collapse_short_edges`], sites where five or
///    more lie nearly on one sphere are then moved by tiny seeded steps
///    until none do (general position; counted in
///    [`FractureReport::site_steps`](crate::FractureReport::site_steps)).
/// 2. **Cells**: for each site, a copy of the mesh is clipped by the bisector
///    half-space toward every other site, nearest first, and each cut is
///    capped watertight (constrained Delaunay triangulation of the cut loops,
///    holes included). Early exit: with R the largest distance from the site
///    to the current piece's vertices, sites farther than 2R cannot cut it.
///    Cap triangles remember the neighbour site whose plane made them.
/// 3. **Components**: a cell whose piece falls apart (non-convex mesh) gives
///    one chunk per edge-connected component; empty cells give none. With
///    the collapse, short edges are collapsed, and cells whose pieces are
///    still near-degenerate have their sites stepped and are carved again
///    with their neighbours (at most 4 times; counted in
///    [`FractureReport::recarves`](crate::FractureReport::recarves)).
/// 4. **Bonds** from shared caps: chunk i's caps made by the plane toward
///    chunk j's site (when a cell split into several chunks, the chunks on
///    the two sides are matched by the overlap of their coplanar, opposite
///    caps); area, area-weighted centroid, unit normal from `chunk0` to `chunk1`,
///    strength = `strength_per_area × area`; one bond per pair, `chunk0 <
///    chunk1`, sorted; interfaces below 1e-8 × diagonal² are skipped.
/// 5. **Slivers**: a piece below [`SLIVER_VOLUME_FRACTION`](crate::SLIVER_VOLUME_FRACTION)
///    (1e-9) of the mesh volume is dropped with its bonds (the volume lost is
///    negligible); a thin piece (principal moment ratio below
///    [`SLIVER_INERTIA_RATIO`](crate::SLIVER_INERTIA_RATIO)) or one whose
///    convex hull fails or is flat is merged into the neighbour with the
///    largest shared area, keeping the total volume; the merged render mesh
///    is the closed surface of the union (the caps between the two cancel,
///    so its cut faces are those of its outer boundary only).
///    [`fracture_with_report`](crate::fracture_with_report)
///    lists every such event.
/// 6. **Per chunk**: volume (m³), mass = density × volume (kg), centroid (m)
///    and inertia about it (kg·m², symmetric) from the closed surface
///    ([`MassProperties`](crate::MassProperties): Eberly 2002 / Mirtich
///    1996), one convex hull (parry3d), the support flag from
///    `settings.support`, and a render mesh (`exterior` = source surface,
///    `interior` = caps, CCW outward, asset space = the mesh's space).
///
/// Computation is in f64; output is f32. `progress` is called once per
/// cell with `done` = cells finished, `total` = `chunk_count`. The result is
/// deterministic: same mesh and settings give byte-identical
/// [`AssetFile::to_bytes`]. `AssetFile::name` is left empty for the caller
/// to fill in (e.g. the source file stem); `provenance` records the
/// settings.
///
/// # Errors
/// Settings and mesh are validated before any work:
/// [`FractureError::ZeroChunkCount`], [`FractureError::InvalidDensity`] and
/// the other settings variants, [`FractureError::Mesh`] for a `TriMesh`
/// that breaks its invariants. During the work:
/// [`FractureError::SitePlacement`], [`FractureError::Cap`] (degenerate or
/// self-intersecting cross-section), [`FractureError::Hull`],
/// [`FractureError::NoChunks`], [`FractureError::InvalidAsset`].
///
/// # Example
/// ```
/// use smithereens_authoring::{fracture_voronoi, mesh_from_triangles, FractureSettings};
/// use glam::DVec3;
/// let corner = |i: u32| DVec3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64);
/// let cube = mesh_from_triangles(
///     (0..8).map(corner).collect(),
///     vec![[0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4],
///          [2, 6, 3], [3, 6, 7], [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5]],
/// ).unwrap();
/// let settings = FractureSettings { chunk_count: 4, ..Default::default() };
/// let file = fracture_voronoi(&cube, &settings, &mut |_| {}).unwrap();
/// assert_eq!(file.desc.chunks.len(), 4);
/// let volume: f32 = file.desc.chunks.iter().map(|c| c.volume).sum();
/// assert!((volume - 1.0).abs() < 1e-5);
/// ```
pub fn fracture_voronoi(
    mesh: &TriMesh,
    settings: &FractureSettings,
    progress: &mut dyn FnMut(Progress),
) -> Result<AssetFile, FractureError> {
    settings.validate()?;
    mesh.validate()?;
    fracture_voronoi_with(mesh, settings, &SiteDistribution::Uniform, progress).map(|(f, _)| f)
}

/// [`fracture_voronoi`] with any site distribution; settings and mesh
/// already validated; also returns the sliver report.
pub(crate) fn fracture_voronoi_with(
    mesh: &TriMesh,
    settings: &FractureSettings,
    distribution: &SiteDistribution,
    progress: &mut dyn FnMut(Progress),
) -> Result<(AssetFile, FractureReport), FractureError> {
    let scale = Scale::with_settings(mesh, settings);
    let base = Piece::from_mesh(mesh);
    let cells = voronoi_raw(
        mesh,
        &base,
        settings.chunk_count,
        settings.seed,
        distribution,
        &scale,
        progress,
    )?;
    let pattern = match distribution {
        SiteDistribution::Uniform => String::new(),
        other => format!(" sites={}", other.describe(&cells.sites)),
    };
    let what = format!(
        "fracture_voronoi{pattern}: chunk_count={}",
        settings.chunk_count
    );
    finish_asset(&cells, settings, mesh, &scale, &what)
}

/// Length and volume scales of the source mesh, which fix every tolerance of
/// a fracture (also at the finer level of a hierarchy).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Scale {
    /// Bounding-box diagonal, m.
    pub diagonal: f64,
    /// Mesh volume, m³.
    pub volume: f64,
    /// Largest absolute coordinate, m.
    pub extent: f64,
    /// Whether short edges are collapsed
    /// ([`FractureSettings::collapse_short_edges`]).
    pub collapse: bool,
    /// [`FractureSettings::shared_regions`].
    pub regions: bool,
    /// [`FractureSettings::dissolve_seams`].
    pub seams: bool,
}

impl Scale {
    pub fn of(mesh: &TriMesh) -> Self {
        let (lo, hi) = mesh.bounds();
        Self {
            diagonal: (hi - lo).length(),
            volume: mesh.volume(),
            extent: lo.abs().max(hi.abs()).max_element(),
            collapse: false,
            regions: false,
            seams: false,
        }
    }

    /// The scales of `mesh` with the short-edge collapse of `settings`.
    pub fn with_settings(mesh: &TriMesh, settings: &FractureSettings) -> Self {
        Self {
            collapse: settings.collapse_short_edges,
            regions: settings.shared_regions,
            seams: settings.dissolve_seams,
            ..Self::of(mesh)
        }
    }
    /// Clipper snapping distance, m (see [`SNAP_FRACTION`]).
    pub fn eps(&self) -> f64 {
        (SNAP_FRACTION * self.diagonal).max(f64::from(f32::EPSILON) * self.extent)
    }
    /// Cap weld distance, m: [`WELD_FRACTION`] of the diagonal, at least
    /// twice the snapping distance.
    /// Whether cells are carved from shared regions with outline-ordered
    /// caps ([`FractureSettings::shared_regions`]).
    pub fn shared_regions(&self) -> bool {
        self.regions
    }

    /// How cells are cut and capped: the snapping and weld distances, and
    /// the cap order ([`CapOrder::Outline`] with shared regions,
    /// [`CapOrder::Id`] otherwise).
    pub(crate) fn clip(&self) -> ClipSettings {
        ClipSettings {
            eps: self.eps(),
            weld: self.weld(),
            order: if self.shared_regions() {
                CapOrder::Outline
            } else {
                CapOrder::Id
            },
        }
    }
    pub fn weld(&self) -> f64 {
        (WELD_FRACTION * self.diagonal).max(2.0 * self.eps())
    }
    /// Edges shorter than this (m) are collapsed: [`MIN_EDGE_FRACTION`] of
    /// the diagonal plus 4 f32 units in the last place of the largest
    /// coordinate, so the f32 render mesh keeps every edge at least
    /// [`MIN_EDGE_FRACTION`] of the diagonal long.
    pub fn min_edge(&self) -> f64 {
        MIN_EDGE_FRACTION * self.diagonal + 4.0 * f64::from(f32::EPSILON) * self.extent
    }
    /// Cap vertices of different pieces closer than this (m) are copies of
    /// one vertex: the two sides compute a cut point to rounding, or to
    /// the clipper's snapping distance (twice [`Scale::eps`]).
    pub fn copy_tolerance(&self) -> f64 {
        2.0 * self.eps()
    }
    /// Interfaces below this area (m²) get no bond.
    pub fn min_bond_area(&self) -> f64 {
        MIN_BOND_AREA_FRACTION * self.diagonal * self.diagonal
    }
    /// Pieces at or below this volume (m³) are discarded as dust.
    pub fn dust_volume(&self) -> f64 {
        DUST_VOLUME_FRACTION * self.volume
    }
}

/// Raw pieces and their interfaces, before slivers are merged.
pub(crate) struct RawFracture {
    pub raw: Vec<RawChunk>,
    pub bonds: Vec<RawBond>,
    /// What happened to explicit Voronoi sites (zero otherwise).
    pub sites: SiteCounts,
}

/// Steps 1–4 of [`fracture_voronoi`] on `base` (a closed tagged surface;
/// `mesh` is the same surface, used to place the sites): `count` sites of
/// `distribution` seeded with `seed`, cells, components, bonds. Triangles of
/// `base` keep their tags; new caps are tagged with the neighbour's site index.
pub(crate) fn voronoi_raw(
    mesh: &TriMesh,
    base: &Piece,
    count: u32,
    seed: u64,
    distribution: &SiteDistribution,
    scale: &Scale,
    progress: &mut dyn FnMut(Progress),
) -> Result<RawFracture, FractureError> {
    let plan = plan_sites(mesh, count, seed, distribution)?;
    let (mut sites, mut counts) = (plan.sites, plan.counts);
    // With the short-edge collapse, sites are put in general position
    // and re-carved where a carved piece is still near-degenerate. A
    // caller's explicit sites move only out of configurations nearly but
    // not exactly degenerate: within the clipper's snapping distance a
    // degeneracy (a lattice, a ring) carves cleanly and is kept.
    let sampled = !matches!(distribution, SiteDistribution::Explicit { .. });
    if scale.collapse {
        let exact = (!sampled).then(|| scale.eps());
        let done = put_in_general_position(mesh, &mut sites, seed, scale, exact);
        counts.steps = done.steps;
        counts.degenerate_left = done.left;
    }
    let regions = if scale.shared_regions() {
        RegionTree::build(base, &sites, &scale.clip())
    } else {
        RegionTree::whole(base)
    };
    let all: Vec<usize> = (0..sites.len()).collect();
    let mut cells = carve_cells(&regions, &sites, &all, scale, Some(progress))?;
    let step = crate::general_position::STEP_FACTOR * scale.min_edge();
    // The carve with the fewest failing cells so far: (raw, bonds, count).
    let mut best: Option<(Vec<RawChunk>, Vec<RawBond>, usize)> = None;
    let mut attempt = 0;
    loop {
        let mut raw = Vec::new();
        let mut frozen = Vec::new();
        for (cell, pieces) in cells.iter().enumerate() {
            for (piece, f) in pieces {
                raw.push(RawChunk {
                    cell: cell as u32,
                    piece: piece.clone(),
                });
                frozen.push(*f);
            }
        }
        collapse_raw(&mut raw, &frozen, scale, true, base);
        let bonds = find_bonds(&raw, &sites, scale.min_bond_area());
        let failing = if scale.collapse {
            failing_cells(&raw, &frozen, &bonds, &sites, scale)
        } else {
            Vec::new()
        };
        // A re-carve that leaves no fewer failing cells than the best so
        // far ends the loop with the best: what fails is then the mesh's
        // own (a source mesh with short edges), or a step made it worse.
        let improved = best.as_ref().is_none_or(|b| failing.len() < b.2);
        let done = failing.is_empty() || !improved || attempt == MAX_RECARVES;
        if improved {
            best = Some((raw, bonds, failing.len()));
        }
        if done {
            return Ok(keep_best(best, attempt, counts));
        }
        let round = crate::general_position::MAX_ROUNDS + 1 + attempt;
        for &m in &failing {
            step_site(&mut sites, m, seed, round, step);
        }
        counts.recarve_steps += failing.len() as u32;
        let dirty = cells_to_recarve(&cells, &sites, &failing, step);
        let Ok(fresh) = carve_cells(&regions, &sites, &dirty, scale, None) else {
            // A moved site the clipper cannot cap: the best carve stands.
            return Ok(keep_best(best, attempt, counts));
        };
        for (c, pieces) in dirty.into_iter().zip(fresh) {
            cells[c] = pieces;
        }
        attempt += 1;
    }
}

/// The raw fracture of the carve with the fewest failing cells
/// (`best`: pieces, bonds, failing count) after `recarves` re-carves.
fn keep_best(
    best: Option<(Vec<RawChunk>, Vec<RawBond>, usize)>,
    recarves: u32,
    mut counts: SiteCounts,
) -> RawFracture {
    let (raw, bonds, left) = best.unwrap_or_default();
    counts.recarves = recarves;
    counts.failing_left = left as u32;
    RawFracture {
        raw,
        bonds,
        sites: counts,
    }
}

/// The cells (ascending) whose carved pieces may change when the sites
/// `moved` (already at their new places) moved by up to `step` (m): the
/// moved cells, the cells with a cap facing a moved site, and the cells
/// a moved site now comes within `step` of cutting (some vertex of their
/// pieces nearly as close to the moved site as to their own). The others
/// keep their pieces: their geometry cannot change, since no moved site's
/// bisector reaches them.
fn cells_to_recarve(
    cells: &[Vec<(Piece, bool)>],
    sites: &[DVec3],
    moved: &[u32],
    step: f64,
) -> Vec<usize> {
    let mut dirty: Vec<usize> = moved.iter().map(|&m| m as usize).collect();
    for (c, pieces) in cells.iter().enumerate() {
        let own = sites[c];
        // The bisector with a site farther than 2R + 2·step misses the ball
        // of radius R around `own` that holds the cell's pieces.
        let radius = pieces
            .iter()
            .map(|(piece, _)| piece.radius_about(own))
            .fold(0.0, f64::max);
        let touched = pieces.iter().any(|(piece, _)| {
            piece.tags.iter().any(|t| moved.binary_search(t).is_ok())
                || moved.iter().any(|&m| {
                    let other = sites[m as usize];
                    m as usize != c
                        && own.distance(other) <= 2.0 * (radius + step)
                        && piece
                            .positions
                            .iter()
                            .any(|&p| p.distance(other) <= p.distance(own) + 2.0 * step)
                })
        });
        if touched {
            dirty.push(c);
        }
    }
    dirty.sort_unstable();
    dirty.dedup();
    dirty
}

/// Carves the cells `which` of `sites` from the mesh split into `regions`
/// and returns, for each, its pieces with whether each is frozen
/// ([`collapse_components`]), in the order of `which`. Progress is
/// reported as cells finish when `progress` is given.
fn carve_cells(
    regions: &RegionTree,
    sites: &[DVec3],
    which: &[usize],
    scale: &Scale,
    mut progress: Option<&mut dyn FnMut(Progress)>,
) -> Result<Vec<Vec<(Piece, bool)>>, FractureError> {
    let mut out = Vec::with_capacity(which.len());
    // Cells are carved in parallel (rayon's current pool), a batch at a
    // time so progress is reported on the caller's thread; results are
    // taken in site order, and the first error in site order is returned,
    // so the output does not depend on the number of threads.
    for batch in which.chunks(CELL_BATCH) {
        let pieces: Vec<Result<Vec<(Piece, bool)>, FractureError>> = batch
            .par_iter()
            .map_init(VoronoiCell::default, |scratch, &cell| {
                cell_pieces(regions, scratch, sites, cell, scale)
            })
            .collect();
        for (&cell, pieces) in batch.iter().zip(pieces) {
            out.push(pieces?);
            if let Some(progress) = progress.as_mut() {
                progress(Progress {
                    done: cell as u32 + 1,
                    total: sites.len() as u32,
                });
            }
        }
    }
    Ok(out)
}

/// Cells carved in parallel between two progress reports.
const CELL_BATCH: usize = 64;

/// The connected components of the Voronoi cell of `sites[cell]` within
/// `base`, numerical dust removed, in component order.
fn cell_pieces(
    regions: &RegionTree,
    scratch: &mut VoronoiCell,
    sites: &[DVec3],
    cell: usize,
    scale: &Scale,
) -> Result<Vec<(Piece, bool)>, FractureError> {
    let (lo, hi) = regions.bounds();
    let start = match cell_bounds(scratch, lo, hi, sites, cell) {
        Some((cell_lo, cell_hi)) => regions.start(cell_lo, cell_hi),
        None => regions.root(),
    };
    let mut piece = carve_cell(start, sites, cell, &scale.clip())?;
    if !std::ptr::eq(start, regions.root()) && piece.tags.contains(&REGION_CAP) {
        // Not expected (the margin keeps region caps out of the cell): the
        // whole mesh gives the exact answer.
        piece = carve_cell(regions.root(), sites, cell, &scale.clip())?;
    }
    Ok(collapse_components(&piece, scale))
}

/// The connected components of `piece` after the per-piece collapse pass
/// (see `edge_collapse`), numerical dust removed, in component order, each
/// with whether it is frozen: kept exactly as carved, by the shared pass as
/// well. A component below the sliver volume floor
/// ([`SLIVER_VOLUME_FRACTION`](crate::SLIVER_VOLUME_FRACTION) of the mesh)
/// is frozen: assembly drops it and reports it as a sliver with its
/// volume, instead of it vanishing here when its short edges collapse. So
/// is a sheet thinner than the shortest edge (twice its volume over its
/// area below it, or collapsing would shrink it below half its volume):
/// its thickness is made of short edges, and collapsing them would erase
/// it with its volume, so it keeps them.
pub(crate) fn collapse_components(piece: &Piece, scale: &Scale) -> Vec<(Piece, bool)> {
    let volume = |p: &Piece| polyhedron_mass_properties(&p.positions, &p.triangles, 1.0).volume;
    let sliver = crate::SLIVER_VOLUME_FRACTION * scale.volume;
    let min_edge = scale.min_edge();
    let mut out = Vec::new();
    for mut component in piece.components() {
        let v = volume(&component);
        if v <= scale.dust_volume() {
            continue;
        }
        if !scale.collapse {
            out.push((component, false));
            continue;
        }
        if v < sliver || 2.0 * v < min_edge * component.area() {
            out.push((component, true));
            continue;
        }
        let carved = component.clone();
        collapse_piece(&mut component, min_edge);
        if volume(&component) < 0.5 * v {
            out.push((carved, true));
            continue;
        }
        out.extend(
            component
                .components()
                .into_iter()
                .filter(|c| volume(c) > scale.dust_volume())
                .map(|c| (c, false)),
        );
    }
    out
}

/// The shared collapse pass over all raw pieces of a fracture of `base`
/// (see `edge_collapse/shared.rs`); `frozen` as from
/// [`collapse_components`]. `voronoi`: the pieces' `cell`s are Voronoi
/// cells, whose site indices are the cap tags, so the pass first keeps the
/// cap areas of the two sides of every cut alike (`Shared::balance`).
/// When `base` is a hierarchy parent, its vertices on its own caps stay
/// where they are: the children of the parent across hold them too.
pub(crate) fn collapse_raw(
    raw: &mut [RawChunk],
    frozen: &[bool],
    scale: &Scale,
    voronoi: bool,
    base: &Piece,
) {
    if !scale.collapse {
        return;
    }
    let mut fixed: Vec<DVec3> = base
        .triangles
        .iter()
        .zip(&base.tags)
        .filter(|&(_, &tag)| tag != EXTERIOR && tag & PARENT_TAG_BASE != 0)
        .flat_map(|(t, _)| t.map(|v| base.positions[v as usize]))
        .collect();
    fixed.sort_unstable_by(|a, b| {
        a.x.total_cmp(&b.x)
            .then(a.y.total_cmp(&b.y))
            .then(a.z.total_cmp(&b.z))
    });
    fixed.dedup();
    let cells: Vec<u32> = raw.iter().map(|c| c.cell).collect();
    let mut pieces: Vec<&mut Piece> = raw.iter_mut().map(|c| &mut c.piece).collect();
    collapse_shared(
        &mut pieces,
        frozen,
        scale.min_edge(),
        scale.copy_tolerance(),
        voronoi.then_some(&cells[..]),
        &fixed,
    );
}

/// Clips a copy of `base` (the mesh, or a region of it holding the cell)
/// to the Voronoi cell of `sites[cell]`.
pub(crate) fn carve_cell(
    base: &Piece,
    sites: &[DVec3],
    cell: usize,
    clip: &ClipSettings,
) -> Result<Piece, FractureError> {
    let site = sites[cell];
    let mut piece = base.clone();
    let mut radius = piece.radius_about(site);
    for (distance_squared, j) in NearestFirst::new(sites, cell) {
        // The bisector is at distance √d²/2 from the site; beyond R it
        // misses the ball of radius R that contains the piece.
        if distance_squared.sqrt() > 2.0 * radius {
            return Ok(piece);
        }
        let Some(plane) = Plane::bisector(site, sites[j]) else {
            continue;
        };
        let clipped =
            clip_piece(&piece, &plane, j as u32, clip).map_err(|reason| FractureError::Cap {
                cell: cell as u32,
                neighbour: j as u32,
                reason,
            })?;
        match clipped {
            Clip::Unchanged => {}
            Clip::Empty => return Ok(Piece::default()),
            Clip::Cut(p) => {
                piece = p;
                radius = piece.radius_about(site);
            }
        }
    }
    Ok(piece)
}

/// The other sites in order of distance from one site, nearest first, as
/// `(distance², index)`. Ties go by index: a total order, so sorting only
/// the next batch of nearest sites (most cells stop after a few dozen)
/// visits them in exactly the order a full sort would.
pub(crate) struct NearestFirst {
    order: Vec<(f64, usize)>,
    /// Next to hand out; `order[..end]` is sorted.
    next: usize,
    end: usize,
    batch: usize,
}

impl NearestFirst {
    pub fn new(sites: &[DVec3], cell: usize) -> Self {
        let site = sites[cell];
        let order = sites
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != cell)
            .map(|(j, s)| (s.distance_squared(site), j))
            .collect();
        Self {
            order,
            next: 0,
            end: 0,
            batch: 32,
        }
    }
}

impl Iterator for NearestFirst {
    type Item = (f64, usize);

    fn next(&mut self) -> Option<(f64, usize)> {
        if self.next == self.end {
            let nearer =
                |a: &(f64, usize), b: &(f64, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
            let rest = &mut self.order[self.end..];
            if rest.is_empty() {
                return None;
            }
            let k = self.batch.min(rest.len());
            if k < rest.len() {
                rest.select_nth_unstable_by(k - 1, nearer);
            }
            rest[..k].sort_unstable_by(nearer);
            self.end += k;
            self.batch *= 4;
        }
        self.next += 1;
        Some(self.order[self.next - 1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One triangle at `corners` with `tag`.
    fn piece(corners: [DVec3; 3], tag: u32) -> Vec<(Piece, bool)> {
        vec![(
            Piece {
                positions: corners.to_vec(),
                triangles: vec![[0, 1, 2]],
                tags: vec![tag],
            },
            false,
        )]
    }

    #[test]
    fn a_moved_site_re_carves_its_cell_its_neighbours_and_cells_it_nearly_cuts() {
        // Sites on the x axis at 0, 1, 2 and 10; site 1 moved.
        let sites = [0.0, 1.0, 2.0, 10.0].map(|x| DVec3::new(x, 0.0, 0.0));
        let at = |x: f64| {
            [
                DVec3::new(x, 0.0, 0.0),
                DVec3::new(x, 1.0, 0.0),
                DVec3::new(x, 0.0, 1.0),
            ]
        };
        let far = |x: f64| {
            vec![
                piece(at(0.5), 1),
                piece(at(1.0), 0),
                piece(at(1.5), 1),
                piece(at(x), EXTERIOR),
            ]
        };
        // Cell 3's piece at x = 6 is 5 m from site 1 and 4 m from its own:
        // no cap faces site 1 and none is near its bisector.
        assert_eq!(cells_to_recarve(&far(6.0), &sites, &[1], 1e-3), [0, 1, 2]);
        // At x = 5.5 it is as near site 1 as its own: within a step of
        // being cut.
        assert_eq!(
            cells_to_recarve(&far(5.5), &sites, &[1], 1e-3),
            [0, 1, 2, 3]
        );
        // Nothing moved, nothing re-carved.
        assert!(cells_to_recarve(&far(6.0), &sites, &[], 1e-3).is_empty());
    }
}
