//! Fracture patterns besides uniform Voronoi: Voronoi with other site
//! distributions, and the plane-cut patterns (slice, brick, planar) whose
//! cells are also convex (intersections of half-spaces), cut with the same
//! clipper and capper.

use crate::assembly::finish_asset;
use crate::bonds::{ProjectedCap, RawBond, RawChunk, projected_overlap, push_bond};
use crate::clip::{Clip, clip_piece};
use crate::error::FractureError;
use crate::mesh::TriMesh;
use crate::piece::{Piece, Plane};
use crate::report::FractureReport;
use crate::seam::dissolve_seam_vertices;
use crate::settings::{Axis, FractureSettings, MAX_CHUNK_COUNT, Progress};
use crate::sites::{SiteCounts, SiteDistribution};
use crate::voronoi::{
    RawFracture, Scale, collapse_components, collapse_raw, fracture_voronoi_with, voronoi_raw,
};
use glam::DVec3;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use smithereens_core::AssetFile;

/// Largest number of cutting planes a plane-cut pattern may use.
pub const MAX_CUT_PLANES: usize = 4096;

/// Two cutting planes of a planar or slice pattern are the same cut when
/// their signed distance functions differ by at most this fraction of the
/// mesh's bounding-box diagonal everywhere in its bounding box (checked at
/// the eight corners, where the difference of two affine functions is
/// largest); the later plane is skipped. Closer cuts would leave a slab
/// thinner than about 1e-4 of the mesh, which cannot be a chunk of its own
/// (its f32 convex hull comes out flat) and would only be merged back as a
/// sliver (issue 16, item 2).
pub const COINCIDENT_CUT_FRACTION: f64 = 1e-4;

/// A fracture pattern for [`fracture`].
#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    /// Voronoi cells of `FractureSettings::chunk_count` sites drawn from
    /// `sites` (uniform gives exactly [`fracture_voronoi`](crate::fracture_voronoi)).
    Voronoi {
        /// How the sites are distributed.
        sites: SiteDistribution,
    },
    /// Slices along the three axes (a jittered grid).
    Slice(SliceSettings),
    /// Courses of bricks with staggered joints.
    Brick(BrickSettings),
    /// Arbitrary planes, each cutting the whole mesh. A plane within
    /// [`COINCIDENT_CUT_FRACTION`] of the diagonal of an earlier one (over
    /// the mesh's bounding box) is the same cut and is skipped.
    Planar {
        /// The cutting planes.
        planes: Vec<CutPlane>,
    },
}

impl Pattern {
    /// Short text for the asset provenance: the `Debug` form, with explicit
    /// Voronoi sites summarised by `counts` instead of listed.
    pub(crate) fn describe(&self, counts: &SiteCounts) -> String {
        match self {
            Pattern::Voronoi { sites } => {
                format!("Voronoi {{ sites: {} }}", sites.describe(counts))
            }
            other => format!("{other:?}"),
        }
    }
}

impl Default for Pattern {
    fn default() -> Self {
        Pattern::Voronoi {
            sites: SiteDistribution::Uniform,
        }
    }
}

/// A plane through `point` (m) with normal `normal` (any non-zero length).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CutPlane {
    /// A point on the plane, m.
    pub point: DVec3,
    /// The plane normal; non-zero and finite.
    pub normal: DVec3,
}

/// Parameters of [`Pattern::Slice`].
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SliceSettings {
    /// Number of slabs along X, Y and Z (≥ 1 each; `n` slabs need `n − 1`
    /// planes, evenly spaced across the bounding box).
    pub counts: [u32; 3],
    /// Largest tilt of each plane's normal away from its axis, radians
    /// (uniform in `[0, angle_jitter]` about a random perpendicular axis).
    /// 0 gives axis-aligned slices. At most π/4.
    pub angle_jitter: f64,
    /// Largest shift of each plane along its axis, as a fraction of the
    /// slab spacing (uniform in `±offset_jitter / 2`). In `[0, 1)`.
    pub offset_jitter: f64,
}

impl Default for SliceSettings {
    /// 3 × 3 × 3 slabs, no jitter.
    fn default() -> Self {
        Self {
            counts: [3, 3, 3],
            angle_jitter: 0.0,
            offset_jitter: 0.0,
        }
    }
}

/// Parameters of [`Pattern::Brick`]: horizontal courses of height
/// `course_height` stacked along `up`, each split by vertical joints every
/// `brick_length` along `along`, every other course shifted by
/// `joint_offset × brick_length` (0.5 = half-brick bond). Bricks run
/// through the whole depth (the third axis).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct BrickSettings {
    /// Course height, m. Positive.
    pub course_height: f64,
    /// Brick length, m. Positive.
    pub brick_length: f64,
    /// Shift of odd courses' joints, as a fraction of `brick_length`, in `[0, 1)`.
    pub joint_offset: f64,
    /// Axis the courses stack along.
    pub up: Axis,
    /// Axis the bricks run along; must differ from `up`.
    pub along: Axis,
}

impl Default for BrickSettings {
    /// 0.25 m courses of 0.5 m bricks, half-brick offset, Y up, along X.
    fn default() -> Self {
        Self {
            course_height: 0.25,
            brick_length: 0.5,
            joint_offset: 0.5,
            up: Axis::Y,
            along: Axis::X,
        }
    }
}

/// Fractures a closed mesh with any [`Pattern`].
///
/// Voronoi patterns behave as [`fracture_voronoi`](crate::fracture_voronoi)
/// with other site distributions. Plane-cut patterns (slice, brick, planar)
/// cut the mesh by each plane in turn (a binary space partition: every
/// piece a plane crosses is split in two and both halves are capped
/// watertight); `settings.chunk_count` is ignored. A slice or planar plane
/// within [`COINCIDENT_CUT_FRACTION`] of the bounding-box diagonal of an
/// earlier plane (everywhere in the box) is the same cut and is skipped;
/// [`FractureError::Cap`] still names planes by their index in the
/// pattern. Each cell then gives one
/// chunk per connected component. Bonds come from the caps a plane made on
/// its two sides: the bond between a chunk below and one above is the
/// overlap of their coplanar, opposite caps (area m², centroid m, unit
/// normal from the lower to the higher chunk index); pieces touching only
/// along an edge or a corner get none (area below 1e-8 × diagonal²).
/// Slivers, mass properties, hulls and support are as in
/// `fracture_voronoi`. Deterministic: same inputs, same bytes.
/// `progress` counts planes (or cells for Voronoi).
///
/// # Errors
/// As [`fracture_voronoi`](crate::fracture_voronoi), plus
/// [`FractureError::InvalidPattern`] for bad pattern parameters (checked
/// before any work) and [`FractureError::Cap`] where `cell` is the piece
/// and `neighbour` the plane index.
pub fn fracture(
    mesh: &TriMesh,
    settings: &FractureSettings,
    pattern: &Pattern,
    progress: &mut dyn FnMut(Progress),
) -> Result<AssetFile, FractureError> {
    fracture_with_report(mesh, settings, pattern, progress).map(|(file, _)| file)
}

/// [`fracture`], also returning a [`FractureReport`]: every sliver that was
/// merged into a neighbour or dropped (raw piece, cell, volume m³, centroid
/// m, reason, final chunk or dropped), the totals, and the volume balance
/// `Σ chunk volume − mesh volume` (m³). The asset is the same as
/// [`fracture`]'s, byte for byte; the report is deterministic too.
///
/// # Errors
/// As [`fracture`].
///
/// # Example
/// ```
/// use smithereens_authoring::{box_mesh, fracture_with_report, FractureSettings, Pattern};
/// let mesh = box_mesh(glam::DVec3::ZERO, glam::DVec3::ONE).unwrap();
/// let settings = FractureSettings { chunk_count: 8, ..Default::default() };
/// let (file, report) =
///     fracture_with_report(&mesh, &settings, &Pattern::default(), &mut |_| {}).unwrap();
/// assert_eq!(report.chunks as usize, file.desc.chunks.len());
/// assert!(report.relative_volume_error().abs() < 1e-5);
/// ```
pub fn fracture_with_report(
    mesh: &TriMesh,
    settings: &FractureSettings,
    pattern: &Pattern,
    progress: &mut dyn FnMut(Progress),
) -> Result<(AssetFile, FractureReport), FractureError> {
    settings.validate()?;
    mesh.validate()?;
    match pattern {
        Pattern::Voronoi { sites } => fracture_voronoi_with(mesh, settings, sites, progress),
        _ => {
            let cuts = plan_cuts(mesh, settings.seed, pattern)?;
            fracture_planes(mesh, settings, &cuts, pattern, progress)
        }
    }
}

/// Raw pieces and interfaces of `pattern` applied to `base` (the closed
/// tagged surface of `mesh`, which places sites and cuts); `count` is the
/// Voronoi site count. Tolerances come from `scale`. Used by [`fracture`]'s
/// patterns and by each level of a hierarchy.
pub(crate) fn raw_cells(
    mesh: &TriMesh,
    base: &Piece,
    count: u32,
    seed: u64,
    pattern: &Pattern,
    scale: &Scale,
    progress: &mut dyn FnMut(Progress),
) -> Result<RawFracture, FractureError> {
    match pattern {
        Pattern::Voronoi { sites } => voronoi_raw(mesh, base, count, seed, sites, scale, progress),
        _ => {
            let cuts = plan_cuts(mesh, seed, pattern)?;
            planes_raw(base, &cuts, pattern, scale, progress)
        }
    }
}

fn invalid(reason: impl Into<String>) -> FractureError {
    FractureError::InvalidPattern {
        reason: reason.into(),
    }
}

/// One cut of the partition: a plane, and (for brick joints) the course
/// whose pieces it applies to.
struct Cut {
    plane: Plane,
    course: Option<u32>,
    /// Position in the pattern's own plane list (before coincident cuts
    /// were dropped), for error messages.
    source: u32,
}

/// Number of course planes at the start of the cut list (brick only).
fn plan_cuts(mesh: &TriMesh, seed: u64, pattern: &Pattern) -> Result<Vec<Cut>, FractureError> {
    let (lo, hi) = mesh.bounds();
    let extent = hi - lo;
    let mut cuts = Vec::new();
    match pattern {
        Pattern::Voronoi { .. } => {}
        Pattern::Planar { planes } => {
            if planes.is_empty() {
                return Err(invalid("planar pattern needs at least one plane"));
            }
            if planes.len() > MAX_CUT_PLANES {
                return Err(invalid(format!(
                    "{} cutting planes (at most {MAX_CUT_PLANES})",
                    planes.len()
                )));
            }
            for (k, p) in planes.iter().enumerate() {
                let normal = p.normal.try_normalize().filter(|_| p.point.is_finite());
                let Some(normal) = normal else {
                    return Err(invalid(format!(
                        "plane {k}: point {} normal {} (need a finite point and a non-zero normal)",
                        p.point, p.normal
                    )));
                };
                cuts.push(Cut {
                    plane: Plane {
                        point: p.point,
                        normal,
                    },
                    course: None,
                    source: 0,
                });
            }
        }
        Pattern::Slice(s) => {
            if s.counts.contains(&0) {
                return Err(invalid(format!("slice counts {:?} must be ≥ 1", s.counts)));
            }
            // Checked before any plane is made: huge counts must fail at once.
            let planes: u64 = s.counts.iter().map(|&n| u64::from(n) - 1).sum();
            let cells: u64 = s.counts.iter().map(|&n| u64::from(n)).product();
            if planes > MAX_CUT_PLANES as u64 || cells > u64::from(MAX_CHUNK_COUNT) {
                return Err(invalid(format!(
                    "slice counts {:?} make {planes} planes and {cells} cells \
                     (at most {MAX_CUT_PLANES} planes and {MAX_CHUNK_COUNT} cells)",
                    s.counts
                )));
            }
            if !(0.0..=std::f64::consts::FRAC_PI_4).contains(&s.angle_jitter) {
                return Err(invalid(format!(
                    "slice angle_jitter {} rad must be in [0, π/4]",
                    s.angle_jitter
                )));
            }
            if !(0.0..1.0).contains(&s.offset_jitter) {
                return Err(invalid(format!(
                    "slice offset_jitter {} must be in [0, 1)",
                    s.offset_jitter
                )));
            }
            let mut rng = Pcg64Mcg::seed_from_u64(seed);
            for axis in 0..3 {
                let n = s.counts[axis];
                let spacing = extent[axis] / n as f64;
                let unit = DVec3::AXES[axis];
                for k in 1..n {
                    let (a, b, c): (f64, f64, f64) = (rng.random(), rng.random(), rng.random());
                    let shift = (a - 0.5) * s.offset_jitter * spacing;
                    let mut point = lo + extent * 0.5;
                    point[axis] = lo[axis] + spacing * k as f64 + shift;
                    let tilt = b * s.angle_jitter;
                    let (u, v) = (
                        unit.any_orthonormal_vector(),
                        unit.cross(unit.any_orthonormal_vector()),
                    );
                    let phi = c * std::f64::consts::TAU;
                    let around = u * phi.cos() + v * phi.sin();
                    let normal = unit * tilt.cos() + around * tilt.sin();
                    cuts.push(Cut {
                        plane: Plane { point, normal },
                        course: None,
                        source: 0,
                    });
                }
            }
        }
        Pattern::Brick(b) => {
            let positive = |x: f64| x.is_finite() && x > 0.0;
            if !positive(b.course_height) || !positive(b.brick_length) {
                return Err(invalid(format!(
                    "brick course_height {} m and brick_length {} m must be positive",
                    b.course_height, b.brick_length
                )));
            }
            if !(0.0..1.0).contains(&b.joint_offset) {
                return Err(invalid(format!(
                    "brick joint_offset {} must be in [0, 1)",
                    b.joint_offset
                )));
            }
            if b.up == b.along {
                return Err(invalid("brick axes `up` and `along` must differ"));
            }
            let (up, along) = (b.up.index(), b.along.index());
            let courses = (extent[up] / b.course_height).ceil();
            let bricks = (extent[along] / b.brick_length).ceil() + 1.0;
            if courses * (bricks + 1.0) > MAX_CUT_PLANES as f64 {
                return Err(invalid(format!(
                    "brick pattern needs about {} planes (at most {MAX_CUT_PLANES})",
                    courses * (bricks + 1.0)
                )));
            }
            let (courses, bricks) = (courses as u32, bricks as u32);
            let centre = lo + extent * 0.5;
            for k in 1..courses {
                let mut point = centre;
                point[up] = lo[up] + b.course_height * k as f64;
                cuts.push(Cut {
                    plane: Plane {
                        point,
                        normal: DVec3::AXES[up],
                    },
                    course: None,
                    source: 0,
                });
            }
            for course in 0..courses {
                let shift = if course % 2 == 1 { b.joint_offset } else { 0.0 };
                for m in 0..=bricks {
                    let x = lo[along] + b.brick_length * (m as f64 + shift);
                    if x <= lo[along] || x >= hi[along] {
                        continue;
                    }
                    let mut point = centre;
                    point[along] = x;
                    cuts.push(Cut {
                        plane: Plane {
                            point,
                            normal: DVec3::AXES[along],
                        },
                        course: Some(course),
                        source: 0,
                    });
                }
            }
        }
    }
    for (k, cut) in cuts.iter_mut().enumerate() {
        cut.source = k as u32;
    }
    if !matches!(pattern, Pattern::Brick(_)) {
        // Brick planes are the course planes and per-course joints, spaced a
        // brick apart by construction; their order carries the course count.
        drop_coincident_cuts(&mut cuts, lo, hi);
    }
    if cuts.len() > MAX_CUT_PLANES {
        return Err(invalid(format!(
            "{} cutting planes (at most {MAX_CUT_PLANES})",
            cuts.len()
        )));
    }
    Ok(cuts)
}

/// Removes every cut that coincides with an earlier one within
/// [`COINCIDENT_CUT_FRACTION`] of the diagonal of the box `[lo, hi]` (m):
/// `max |n₁·(x − p₁) ∓ n₂·(x − p₂)|` over the box corners, with the sign
/// that makes the normals agree. Keeps the first of each set, in order.
fn drop_coincident_cuts(cuts: &mut Vec<Cut>, lo: DVec3, hi: DVec3) {
    let tolerance = COINCIDENT_CUT_FRACTION * (hi - lo).length();
    let corners = crate::mesh::box_corners(lo, hi);
    let mut kept: Vec<Cut> = Vec::with_capacity(cuts.len());
    for cut in cuts.drain(..) {
        let same = kept.iter().any(|k| {
            let sign = k.plane.normal.dot(cut.plane.normal).signum();
            k.course == cut.course
                && corners.iter().all(|&c| {
                    (cut.plane.distance(c) - sign * k.plane.distance(c)).abs() <= tolerance
                })
        });
        if !same {
            kept.push(cut);
        }
    }
    *cuts = kept;
}

/// A piece of the partition and the side of every plane it was tested
/// against (`true` = positive side).
struct Part {
    piece: Piece,
    sides: Vec<(u32, bool)>,
    /// How many of `sides` are course planes with the part on their
    /// positive side (its course, for a brick pattern's joint cuts); kept
    /// as sides are added, so a joint cut does not rescan them (that was
    /// cubic in the course count: 1 mm courses of a unit cube ran for
    /// minutes).
    courses: u32,
}

fn fracture_planes(
    mesh: &TriMesh,
    settings: &FractureSettings,
    cuts: &[Cut],
    pattern: &Pattern,
    progress: &mut dyn FnMut(Progress),
) -> Result<(AssetFile, FractureReport), FractureError> {
    let scale = Scale::with_settings(mesh, settings);
    let base = Piece::from_mesh(mesh);
    let cells = planes_raw(&base, cuts, pattern, &scale, progress)?;
    let what = format!("fracture: pattern={pattern:?}");
    finish_asset(&cells, settings, mesh, &scale, &what)
}

/// Raw pieces of a plane-cut pattern on `base` (its triangles keep their
/// tags; caps are tagged with the plane index) and their interfaces.
fn planes_raw(
    base: &Piece,
    cuts: &[Cut],
    pattern: &Pattern,
    scale: &Scale,
    progress: &mut dyn FnMut(Progress),
) -> Result<RawFracture, FractureError> {
    let clip = scale.clip();
    let brick = matches!(pattern, Pattern::Brick(_));
    let is_course = |tag: u32| brick && cuts[tag as usize].course.is_none();
    let mut parts = vec![Part {
        piece: base.clone(),
        sides: Vec::new(),
        courses: 0,
    }];
    for (tag, cut) in cuts.iter().enumerate() {
        let tag = tag as u32;
        let flipped = Plane {
            point: cut.plane.point,
            normal: -cut.plane.normal,
        };
        let mut next = Vec::with_capacity(parts.len() + 1);
        for (index, mut part) in parts.into_iter().enumerate() {
            if let Some(course) = cut.course
                && part.courses != course
            {
                next.push(part);
                continue;
            }
            let cap_error = |reason: String| FractureError::Cap {
                cell: index as u32,
                neighbour: cut.source,
                reason,
            };
            match clip_piece(&part.piece, &cut.plane, tag, &clip).map_err(cap_error)? {
                Clip::Unchanged => {
                    part.sides.push((tag, false));
                    next.push(part);
                }
                Clip::Empty => {
                    part.sides.push((tag, true));
                    part.courses += u32::from(is_course(tag));
                    next.push(part);
                }
                Clip::Cut(mut below) => {
                    let mut above =
                        match clip_piece(&part.piece, &flipped, tag, &clip).map_err(cap_error)? {
                            Clip::Cut(p) => Some(p),
                            _ => None,
                        };
                    if scale.seams {
                        dissolve_seam_vertices(&mut below, clip.eps);
                        if let Some(above) = above.as_mut() {
                            dissolve_seam_vertices(above, clip.eps);
                        }
                    }
                    let mut sides = part.sides.clone();
                    sides.push((tag, false));
                    next.push(Part {
                        piece: below,
                        sides,
                        courses: part.courses,
                    });
                    if let Some(above) = above {
                        part.sides.push((tag, true));
                        next.push(Part {
                            piece: above,
                            sides: part.sides,
                            courses: part.courses + u32::from(is_course(tag)),
                        });
                    }
                }
            }
        }
        parts = next;
        if parts.len() > MAX_CHUNK_COUNT as usize {
            // Planes in general position make O(n³) cells: stop early.
            return Err(FractureError::InvalidPattern {
                reason: format!(
                    "the first {} planes already make {} cells (at most {MAX_CHUNK_COUNT})",
                    tag + 1,
                    parts.len()
                ),
            });
        }
        progress(Progress {
            done: tag + 1,
            total: cuts.len() as u32,
        });
    }

    let mut raw = Vec::new();
    let mut raw_sides = Vec::new();
    let mut frozen = Vec::new();
    for (cell, part) in parts.iter().enumerate() {
        for (component, f) in collapse_components(&part.piece, scale) {
            raw.push(RawChunk {
                cell: cell as u32,
                piece: component,
            });
            raw_sides.push(&part.sides);
            frozen.push(f);
        }
    }
    collapse_raw(&mut raw, &frozen, scale, false, base);
    let planes: Vec<Plane> = cuts.iter().map(|c| c.plane).collect();
    let bonds = plane_bonds(&raw, &raw_sides, &planes, scale.min_bond_area());
    Ok(RawFracture {
        raw,
        bonds,
        sites: SiteCounts::default(),
    })
}

/// Bonds across each cutting plane: every chunk below the plane with caps
/// from it against every chunk above with caps from it, by cap overlap
/// (bounding boxes of the caps checked first). Sorted by `(a, b)`, one per
/// pair (a pair can share only one plane: two convex cells are separated by
/// at most one plane of the partition).
fn plane_bonds(
    raw: &[RawChunk],
    sides: &[&Vec<(u32, bool)>],
    planes: &[Plane],
    min_area: f64,
) -> Vec<RawBond> {
    // (plane, positive side, chunk, cap bounds) for every chunk and cap tag.
    let mut faces: Vec<(u32, bool, usize, DVec3, DVec3)> = Vec::new();
    for (k, chunk) in raw.iter().enumerate() {
        for tag in chunk.piece.cap_tags() {
            let Some(&(_, positive)) = sides[k].iter().find(|(t, _)| *t == tag) else {
                continue;
            };
            let mut lo = DVec3::splat(f64::INFINITY);
            let mut hi = DVec3::splat(f64::NEG_INFINITY);
            for (t, _) in chunk
                .piece
                .triangles
                .iter()
                .zip(&chunk.piece.tags)
                .filter(|(_, g)| **g == tag)
            {
                for &i in t {
                    let p = chunk.piece.positions[i as usize];
                    lo = lo.min(p);
                    hi = hi.max(p);
                }
            }
            faces.push((tag, positive, k, lo, hi));
        }
    }
    faces.sort_by_key(|f| (f.0, f.1, f.2));
    let slack = 1e-9;
    let mut bonds = Vec::new();
    let mut start = 0;
    while start < faces.len() {
        let tag = faces[start].0;
        let end = start + faces[start..].partition_point(|f| f.0 == tag);
        let group = &faces[start..end];
        let split = group.partition_point(|f| !f.1);
        let (below, above) = group.split_at(split);
        let plane = &planes[tag as usize];
        // Each cap projected once, not once per neighbour it is matched with.
        let project = |faces: &[(u32, bool, usize, DVec3, DVec3)]| -> Vec<ProjectedCap> {
            faces
                .iter()
                .map(|f| ProjectedCap::of(&raw[f.2].piece, tag, plane))
                .collect()
        };
        let (below_caps, above_caps) = (project(below), project(above));
        for (&(_, _, a, alo, ahi), a_cap) in below.iter().zip(&below_caps) {
            for (&(_, _, b, blo, bhi), b_cap) in above.iter().zip(&above_caps) {
                let pad = (ahi - alo).max(bhi - blo).max_element() * slack + slack;
                if alo.cmpgt(bhi + pad).any() || blo.cmpgt(ahi + pad).any() {
                    continue;
                }
                let (area, centroid) = projected_overlap(a_cap, b_cap, plane);
                push_bond(
                    &mut bonds,
                    a,
                    b,
                    [tag, tag],
                    area,
                    centroid,
                    plane.normal,
                    min_area,
                );
            }
        }
        start = end;
    }
    bonds.sort_by_key(|x| (x.a, x.b));
    // Merge duplicates defensively (same pair across two coincident planes).
    let mut merged: Vec<RawBond> = Vec::with_capacity(bonds.len());
    for b in bonds {
        match merged.last_mut() {
            Some(m) if (m.a, m.b) == (b.a, b.b) => {
                let total = m.area + b.area;
                m.centroid = (m.centroid * m.area + b.centroid * b.area) / total;
                if b.area > m.area {
                    m.normal = b.normal;
                }
                m.area = total;
            }
            _ => merged.push(b),
        }
    }
    merged
}
