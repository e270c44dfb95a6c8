//! Cleaning messy input before it becomes a closed [`TriMesh`]: exact
//! welding, duplicate-face removal, zero-area faces, and opt-in fallbacks
//! for surfaces that stay open or non-manifold (convex hull, or closing
//! small holes).

use crate::error::MeshError;
use crate::hole::{ClosedHole, close_holes};
use crate::mesh::{TriMesh, mesh_from_triangles};
use glam::{DVec3, Vec3};
use std::collections::BTreeSet;

/// Triangles with an area below this fraction of the squared bounding-box
/// diagonal count as zero-area.
pub const ZERO_AREA_FRACTION: f64 = 1e-12;

/// What to do with a surface that is still open or non-manifold after
/// welding, duplicate removal and zero-area cleanup.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum OpenMeshFallback {
    /// Reject it with [`MeshError::NotClosed`] (counts of open and
    /// non-manifold edges, one example position). The default.
    #[default]
    Reject,
    /// Replace it by the convex hull of its vertices (parry3d). The hull
    /// is closed by construction but fills every concavity and hole: use it
    /// for props whose exact shape does not matter, never silently.
    ConvexHull,
    /// Close every hole bounded by at most `max_hole_edges` edges, then
    /// require a closed manifold as [`Reject`](Self::Reject) does.
    ///
    /// A hole is a loop of boundary edges (edges used by exactly one
    /// triangle). Each loop is filled by the triangulation of its vertices
    /// that bends least against its neighbours and then has least area
    /// (non-planar loops are fine: a loop around two missing faces of a box
    /// gets both faces back), wound so the fill uses the loop's edges
    /// in the opposite direction and the surface stays consistently
    /// oriented; if no triangulation over the loop's vertices avoids the
    /// surface's existing edges, by a fan around one added vertex at the
    /// loop's mean. Where two loops touch at a vertex they are split along
    /// the fans of triangles around it. The rest of the surface is kept as
    /// it is, so concavities survive (unlike [`ConvexHull`](Self::ConvexHull)).
    ///
    /// If a loop is larger than `max_hole_edges`, or the surface has
    /// non-manifold edges, the result is [`MeshError::NotClosed`] with the
    /// counts left after closing the holes that could be closed (so its
    /// example position lies on what is still wrong); never a partly fixed
    /// mesh. The filled holes are listed in
    /// [`RepairReport::closed_holes`].
    CloseHoles {
        /// Largest loop to close, in edges (equal to its vertex count).
        /// The CLI default is [`DEFAULT_MAX_HOLE_EDGES`].
        max_hole_edges: u32,
    },
}

/// Default `max_hole_edges` of [`OpenMeshFallback::CloseHoles`] in the CLI:
/// large enough for the open bottom of an architecture prop (the 28-edge
/// floor outline of `house.obj`), small enough to refuse a surface that is
/// mostly missing.
pub const DEFAULT_MAX_HOLE_EDGES: u32 = 64;

/// Options of [`repair_mesh`] and [`load_mesh_with`](crate::load_mesh_with).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RepairOptions {
    /// Remove every triangle whose (welded) vertex set equals an earlier
    /// triangle's, whatever its winding. Default `true`.
    pub remove_duplicate_faces: bool,
    /// Drop triangles of area below [`ZERO_AREA_FRACTION`] × diagonal², m²,
    /// when the surface stays closed without them. Zero-area triangles that
    /// fill T-junctions are needed for closure and are then kept (the cutter
    /// copes with them). Default `true`.
    pub drop_zero_area_faces: bool,
    /// Fallback for a surface that is still not closed. Default
    /// [`OpenMeshFallback::Reject`].
    pub open_fallback: OpenMeshFallback,
}

impl Default for RepairOptions {
    fn default() -> Self {
        Self {
            remove_duplicate_faces: true,
            drop_zero_area_faces: true,
            open_fallback: OpenMeshFallback::Reject,
        }
    }
}

/// What [`repair_mesh`] changed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RepairReport {
    /// Input vertices before welding.
    pub input_vertices: usize,
    /// Input triangles.
    pub input_triangles: usize,
    /// Vertices after exact welding.
    pub welded_vertices: usize,
    /// Triangles dropped because welding made two of their corners equal.
    pub collapsed_faces: usize,
    /// Triangles removed as duplicates of an earlier one.
    pub duplicate_faces_removed: usize,
    /// Zero-area triangles removed.
    pub zero_area_faces_dropped: usize,
    /// Zero-area triangles kept because the surface needs them to be closed.
    pub zero_area_faces_kept: usize,
    /// When the convex-hull fallback replaced the surface: the
    /// [`MeshError::NotClosed`] the cleaned surface had.
    pub replaced_by_convex_hull: Option<String>,
    /// Holes filled by [`OpenMeshFallback::CloseHoles`], in the order their
    /// loops were found (by smallest directed boundary edge). Empty for the
    /// other fallbacks and for closed input.
    pub closed_holes: Vec<ClosedHole>,
}

impl RepairReport {
    /// Total area of the triangles added to close holes, m².
    pub fn added_hole_area(&self) -> f64 {
        self.closed_holes.iter().map(|h| h.added_area).sum()
    }
}

impl RepairReport {
    /// One line per change, for logs and `smithereens inspect`; empty when
    /// the input was already clean.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.collapsed_faces > 0 {
            out.push(format!(
                "{} triangle(s) collapsed by welding were dropped",
                self.collapsed_faces
            ));
        }
        if self.duplicate_faces_removed > 0 {
            out.push(format!(
                "{} duplicate triangle(s) removed",
                self.duplicate_faces_removed
            ));
        }
        if self.zero_area_faces_dropped > 0 {
            out.push(format!(
                "{} zero-area triangle(s) dropped",
                self.zero_area_faces_dropped
            ));
        }
        if self.zero_area_faces_kept > 0 {
            out.push(format!(
                "{} zero-area triangle(s) kept (they close T-junctions)",
                self.zero_area_faces_kept
            ));
        }
        if let Some(reason) = &self.replaced_by_convex_hull {
            out.push(format!(
                "surface replaced by its convex hull (fallback) because: {reason}"
            ));
        }
        if !self.closed_holes.is_empty() {
            const LISTED: usize = 12;
            let mut sizes: Vec<String> = self
                .closed_holes
                .iter()
                .take(LISTED)
                .map(|h| h.edge_count.to_string())
                .collect();
            if self.closed_holes.len() > LISTED {
                sizes.push("…".to_string());
            }
            let fans = self.closed_holes.iter().filter(|h| h.added_vertex).count();
            let fans = if fans > 0 {
                format!(", {fans} of them around an added vertex")
            } else {
                String::new()
            };
            out.push(format!(
                "{} hole(s) closed with {} edge(s), adding {} m² of surface{fans}",
                self.closed_holes.len(),
                sizes.join(", "),
                smithereens_core::quantity::sig(self.added_hole_area())
            ));
        }
        out
    }
}

/// Cleans raw triangles into a closed [`TriMesh`]:
/// 1. weld vertices with bit-identical positions, drop triangles with a
///    repeated corner;
/// 2. remove duplicate faces (same vertex set as an earlier triangle) if
///    `options.remove_duplicate_faces`;
/// 3. drop zero-area triangles if `options.drop_zero_area_faces` and the
///    surface is closed without them (else keep them);
/// 4. validate as [`mesh_from_triangles`] (closed, manifold, outward).
///
/// A surface that is still open or non-manifold is rejected, replaced by
/// its convex hull with [`OpenMeshFallback::ConvexHull`], or has its holes
/// closed with [`OpenMeshFallback::CloseHoles`] (then steps 3 and 4 run
/// again on the closed surface). Deterministic: the same input gives the
/// same mesh, bit for bit.
///
/// # Errors
/// Every error of [`mesh_from_triangles`]; [`MeshError::NotClosed`] gives
/// the counts of open and non-manifold edges left after cleaning (with
/// `CloseHoles`: after closing the holes it could) and the midpoint of one
/// of them. With the hull fallback, a hull that cannot be built (flat
/// input) gives [`MeshError::ZeroVolume`].
///
/// # Example
/// ```
/// use glam::DVec3;
/// use smithereens_authoring::{BOX_TRIANGLES, OpenMeshFallback, RepairOptions, repair_mesh};
/// let corners = smithereens_authoring::box_corners(DVec3::ZERO, DVec3::ONE);
/// // A unit cube without its last two triangles (one face): a 4-edge hole.
/// let open = BOX_TRIANGLES[..10].to_vec();
/// assert!(repair_mesh(corners.clone(), open.clone(), &RepairOptions::default()).is_err());
/// let options = RepairOptions {
///     open_fallback: OpenMeshFallback::CloseHoles { max_hole_edges: 8 },
///     ..Default::default()
/// };
/// let (mesh, report) = repair_mesh(corners, open, &options).unwrap();
/// assert!((mesh.volume() - 1.0).abs() < 1e-12);
/// assert_eq!(report.closed_holes.len(), 1);
/// assert_eq!(report.closed_holes[0].edge_count, 4);
/// ```
pub fn repair_mesh(
    positions: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
    options: &RepairOptions,
) -> Result<(TriMesh, RepairReport), MeshError> {
    let mut report = RepairReport {
        input_vertices: positions.len(),
        input_triangles: triangles.len(),
        ..Default::default()
    };
    let (unique, welded_of) = crate::mesh::checked_weld(&positions, &triangles)?;
    report.welded_vertices = unique.len();
    let mut tris: Vec<[u32; 3]> = Vec::with_capacity(triangles.len());
    let mut seen: BTreeSet<[u32; 3]> = BTreeSet::new();
    for t in &triangles {
        let t = t.map(|i| welded_of[i as usize]);
        if t[0] == t[1] || t[1] == t[2] || t[2] == t[0] {
            report.collapsed_faces += 1;
            continue;
        }
        if options.remove_duplicate_faces {
            let mut key = t;
            key.sort_unstable();
            if !seen.insert(key) {
                report.duplicate_faces_removed += 1;
                continue;
            }
        }
        tris.push(t);
    }
    if tris.is_empty() {
        return Err(MeshError::Empty);
    }
    let (lo, hi) = unique
        .iter()
        .fold((unique[0], unique[0]), |(l, h), &p| (l.min(p), h.max(p)));
    let diagonal = (hi - lo).length();
    let min_area = ZERO_AREA_FRACTION * diagonal * diagonal;
    if options.drop_zero_area_faces {
        report.zero_area_faces_dropped += split_t_junctions(&unique, &mut tris, min_area);
    }
    let drop = options.drop_zero_area_faces;
    let (result, dropped, kept) = validate_cleaned(&unique, &tris, min_area, drop);
    let err = match result {
        Ok(mesh) => {
            report.zero_area_faces_dropped += dropped;
            report.zero_area_faces_kept = kept;
            return Ok((mesh, report));
        }
        Err(err @ MeshError::NotClosed { .. }) => err,
        Err(err) => return Err(err),
    };
    match options.open_fallback {
        OpenMeshFallback::Reject => Err(err),
        OpenMeshFallback::ConvexHull => {
            let mesh = convex_hull_mesh(&unique)?;
            report.replaced_by_convex_hull = Some(err.to_string());
            Ok((mesh, report))
        }
        OpenMeshFallback::CloseHoles { max_hole_edges } => {
            let mut positions = unique;
            let fill = close_holes(&mut positions, &mut tris, max_hole_edges, min_area);
            if fill.closed.is_empty() {
                return Err(err);
            }
            let (result, dropped, kept) = validate_cleaned(&positions, &tris, min_area, drop);
            let mesh = result?;
            report.zero_area_faces_dropped += dropped;
            report.zero_area_faces_kept = kept;
            report.closed_holes = fill.closed;
            Ok((mesh, report))
        }
    }
}

/// Validates cleaned triangles as [`mesh_from_triangles`], first without
/// their zero-area triangles (area ≤ `min_area`, m²) if `drop_zero_area`
/// and that leaves a valid mesh, else with them. Returns the result and how
/// many zero-area triangles were dropped and kept.
fn validate_cleaned(
    positions: &[DVec3],
    tris: &[[u32; 3]],
    min_area: f64,
    drop_zero_area: bool,
) -> (Result<TriMesh, MeshError>, usize, usize) {
    let area = |t: &[u32; 3]| {
        let [a, b, c] = t.map(|i| positions[i as usize]);
        0.5 * (b - a).cross(c - a).length()
    };
    let zero_area = tris.iter().filter(|t| area(t) <= min_area).count();
    if drop_zero_area && zero_area > 0 {
        let kept: Vec<[u32; 3]> = tris
            .iter()
            .copied()
            .filter(|t| area(t) > min_area)
            .collect();
        if !kept.is_empty()
            && let Ok(mesh) = mesh_from_triangles(positions.to_vec(), kept)
        {
            return (Ok(mesh), zero_area, 0);
        }
    }
    (
        mesh_from_triangles(positions.to_vec(), tris.to_vec()),
        0,
        zero_area,
    )
}

/// Removes zero-area triangles that fill T-junctions: for a degenerate
/// triangle `(a, b, c)` with `c` on its longest edge `ab`, the triangle
/// `(b, a, x)` across that edge is split into `(b, c, x)` and `(c, a, x)`
/// and the degenerate one dropped, which keeps every edge paired. Repeats
/// (at most 16 passes) while it makes progress. Returns how many were removed.
fn split_t_junctions(positions: &[DVec3], tris: &mut Vec<[u32; 3]>, min_area: f64) -> usize {
    let area = |t: &[u32; 3]| {
        let [a, b, c] = t.map(|i| positions[i as usize]);
        0.5 * (b - a).cross(c - a).length()
    };
    let mut removed_total = 0;
    for _ in 0..16 {
        let mut edge_owner: std::collections::BTreeMap<(u32, u32), usize> = Default::default();
        for (k, t) in tris.iter().enumerate() {
            for e in 0..3 {
                edge_owner.entry((t[e], t[(e + 1) % 3])).or_insert(k);
            }
        }
        let mut touched = vec![false; tris.len()];
        let mut removed = vec![false; tris.len()];
        let mut added = Vec::new();
        for d in 0..tris.len() {
            if touched[d] || area(&tris[d]) > min_area {
                continue;
            }
            let t = tris[d];
            // Longest edge (a, b) in the triangle's direction, c opposite.
            let length = |e: usize| {
                positions[t[e] as usize].distance_squared(positions[t[(e + 1) % 3] as usize])
            };
            let e = (0..3)
                .max_by(|&i, &j| length(i).total_cmp(&length(j)).then(j.cmp(&i)))
                .unwrap_or(0);
            let (a, b, c) = (t[e], t[(e + 1) % 3], t[(e + 2) % 3]);
            // A true T-junction: the short edges are paired on the far side.
            let paired = |e: (u32, u32)| edge_owner.get(&e).is_some_and(|&k| k != d);
            if !paired((c, b)) || !paired((a, c)) {
                continue;
            }
            let Some(&o) = edge_owner.get(&(b, a)) else {
                continue;
            };
            if o == d || touched[o] || area(&tris[o]) <= min_area {
                continue;
            }
            let ot = tris[o];
            let Some(r) = (0..3).find(|&r| ot[r] == b && ot[(r + 1) % 3] == a) else {
                continue;
            };
            let x = ot[(r + 2) % 3];
            if x == c {
                continue;
            }
            tris[o] = [b, c, x];
            added.push([c, a, x]);
            touched[o] = true;
            touched[d] = true;
            removed[d] = true;
        }
        let count = removed.iter().filter(|&&r| r).count();
        if count == 0 {
            break;
        }
        removed_total += count;
        let mut k = 0;
        tris.retain(|_| {
            k += 1;
            !removed[k - 1]
        });
        tris.extend(added);
    }
    removed_total
}

/// Closed mesh of the convex hull of `points` (m), via parry3d in f32
/// (a panic inside parry on degenerate input becomes an error).
fn convex_hull_mesh(points: &[DVec3]) -> Result<TriMesh, MeshError> {
    let pts: Vec<Vec3> = points.iter().map(|p| p.as_vec3()).collect();
    let hull = smithereens_panic_guard::quietly(|| parry3d::transformation::try_convex_hull(&pts))
        .ok()
        .and_then(Result::ok);
    let Some((vertices, triangles)) = hull else {
        return Err(MeshError::ZeroVolume { volume: 0.0 });
    };
    mesh_from_triangles(vertices.iter().map(|v| v.as_dvec3()).collect(), triangles)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube() -> (Vec<DVec3>, Vec<[u32; 3]>) {
        let corner =
            |i: u32| DVec3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64);
        (
            (0..8).map(corner).collect(),
            crate::mesh::BOX_TRIANGLES.to_vec(),
        )
    }

    #[test]
    fn doubled_face_list_is_deduplicated() {
        let (p, mut t) = cube();
        let copy = t.clone();
        t.extend(copy.iter().map(|x| [x[0], x[2], x[1]]));
        let (mesh, report) = repair_mesh(p, t, &RepairOptions::default()).unwrap();
        assert_eq!(report.duplicate_faces_removed, 12);
        assert!((mesh.volume() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn open_cube_is_rejected_or_hulled_on_request() {
        let (p, mut t) = cube();
        t.pop();
        let err = repair_mesh(p.clone(), t.clone(), &RepairOptions::default()).unwrap_err();
        assert!(matches!(err, MeshError::NotClosed { open_edges: 3, .. }));
        let options = RepairOptions {
            open_fallback: OpenMeshFallback::ConvexHull,
            ..Default::default()
        };
        let (mesh, report) = repair_mesh(p, t, &options).unwrap();
        assert!((mesh.volume() - 1.0).abs() < 1e-6);
        assert!(report.replaced_by_convex_hull.is_some());
    }

    #[test]
    fn zero_area_fin_is_dropped() {
        let (mut p, mut t) = cube();
        // A flat fin on the edge 0-1 glued back-to-back: two zero-area triangles.
        p.push(DVec3::new(0.5, 0.0, 0.0));
        t.push([0, 1, 8]);
        t.push([1, 0, 8]);
        let (mesh, report) = repair_mesh(p, t, &RepairOptions::default()).unwrap();
        assert_eq!(report.duplicate_faces_removed, 1);
        assert_eq!(report.zero_area_faces_dropped, 1);
        assert_eq!(mesh.triangles.len(), 12);
    }
}
