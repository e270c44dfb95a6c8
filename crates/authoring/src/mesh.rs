//! The closed input surface: [`TriMesh`], its validating constructor
//! [`mesh_from_triangles`], and queries (volume, bounds, point containment,
//! mass properties).

use crate::error::MeshError;
use crate::mass_properties::{MassProperties, polyhedron_mass_properties};
use crate::topology::edge_uses;
use glam::DVec3;
use std::collections::HashMap;

/// A closed, consistently oriented triangle surface (asset space, metres).
///
/// # Invariants (established by [`mesh_from_triangles`] / [`TriMesh::new`])
/// * `positions` are finite and pairwise distinct (welded by exact position),
///   and every vertex is used by some triangle;
/// * every triangle has three distinct in-range indices;
/// * every undirected edge is used by exactly two triangles, in opposite
///   directions (closed 2-manifold, consistently oriented);
/// * triangles wind counter-clockwise seen from outside, so
///   [`volume`](TriMesh::volume) is positive.
///
/// The fields are public for convenience; code that builds a `TriMesh` by
/// hand can check it with [`TriMesh::validate`]. The fracture functions
/// re-validate their input and never panic on a malformed mesh.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TriMesh {
    /// Vertex positions, m.
    pub positions: Vec<DVec3>,
    /// Triangles as indices into `positions`, counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
}

/// The 12 outward (counter-clockwise seen from outside) triangles over the 8
/// corners of a box, where corner `i` takes the maximum along x when bit 0 of
/// `i` is set, along y for bit 1 and along z for bit 2.
pub const BOX_TRIANGLES: [[u32; 3]; 12] = [
    [0, 2, 1],
    [1, 2, 3],
    [4, 5, 6],
    [5, 7, 6],
    [0, 1, 4],
    [1, 5, 4],
    [2, 6, 3],
    [3, 6, 7],
    [0, 4, 2],
    [2, 4, 6],
    [1, 3, 5],
    [3, 7, 5],
];

/// An axis-aligned box from `min` to `max` (m) as a closed mesh: 8 corners
/// (see [`BOX_TRIANGLES`] for their order) and 12 triangles.
///
/// # Errors
/// As [`mesh_from_triangles`]: non-finite corners, or a box without volume.
///
/// ```
/// use glam::DVec3;
/// let cube = smithereens_authoring::box_mesh(DVec3::ZERO, DVec3::ONE).unwrap();
/// assert!((cube.volume() - 1.0).abs() < 1e-12);
/// ```
pub fn box_mesh(min: DVec3, max: DVec3) -> Result<TriMesh, MeshError> {
    mesh_from_triangles(box_corners(min, max), BOX_TRIANGLES.to_vec())
}

/// The 8 corners of the box from `min` to `max`, in [`BOX_TRIANGLES`] order.
pub fn box_corners(min: DVec3, max: DVec3) -> Vec<DVec3> {
    (0..8u32)
        .map(|i| {
            DVec3::new(
                if i & 1 == 0 { min.x } else { max.x },
                if i & 2 == 0 { min.y } else { max.y },
                if i & 4 == 0 { min.z } else { max.z },
            )
        })
        .collect()
}

/// Checks raw input — non-empty, counts that fit `u32` indices, finite
/// positions, indices in range — and welds vertices at exactly equal
/// positions (−0 and +0 together). Returns the distinct positions in
/// first-use order and the welded id of every input vertex. Shared by
/// [`mesh_from_triangles`] and [`repair_mesh`](crate::repair_mesh).
///
/// # Errors
/// [`MeshError::Empty`], [`MeshError::TooLarge`],
/// [`MeshError::NonFiniteVertex`], [`MeshError::IndexOutOfRange`].
pub(crate) fn checked_weld(
    positions: &[DVec3],
    triangles: &[[u32; 3]],
) -> Result<(Vec<DVec3>, Vec<u32>), MeshError> {
    if positions.is_empty() || triangles.is_empty() {
        return Err(MeshError::Empty);
    }
    if positions.len() > u32::MAX as usize {
        return Err(MeshError::TooLarge {
            what: "vertices",
            count: positions.len(),
            max: u32::MAX as usize,
        });
    }
    if triangles.len() > (u32::MAX / 3) as usize {
        return Err(MeshError::TooLarge {
            what: "triangles",
            count: triangles.len(),
            max: (u32::MAX / 3) as usize,
        });
    }
    if let Some((index, &position)) = positions.iter().enumerate().find(|(_, p)| !p.is_finite()) {
        return Err(MeshError::NonFiniteVertex { index, position });
    }
    for (ti, t) in triangles.iter().enumerate() {
        if let Some(&index) = t.iter().find(|&&i| i as usize >= positions.len()) {
            return Err(MeshError::IndexOutOfRange {
                triangle: ti,
                index,
                vertex_count: positions.len(),
            });
        }
    }
    // The map is only used for lookup; new indices are assigned in first-use
    // order, so the result is deterministic.
    let mut weld: HashMap<[u64; 3], u32> = HashMap::with_capacity(positions.len());
    let mut unique: Vec<DVec3> = Vec::new();
    let welded_of = positions
        .iter()
        .map(|p| {
            // Adding 0.0 turns -0.0 into +0.0 so both weld together.
            let q = *p + DVec3::ZERO;
            let key = [q.x.to_bits(), q.y.to_bits(), q.z.to_bits()];
            *weld.entry(key).or_insert_with(|| {
                unique.push(q);
                (unique.len() - 1) as u32
            })
        })
        .collect();
    Ok((unique, welded_of))
}

/// Smallest accepted mesh size (largest bounding-box side), m: 0.1 mm.
/// Below it the fracture's volume floor and welding tolerances, sized for
/// objects in metres, leave nothing.
pub const MIN_MESH_SIZE: f64 = 1e-4;

/// Largest accepted mesh size (largest bounding-box side), m: 100 km. The
/// runtime works in `f32` metres, where positions 100 km from the origin
/// still resolve to about a centimetre.
pub const MAX_MESH_SIZE: f64 = 1e5;

/// Farthest a mesh to be fractured may lie from the origin, in multiples of
/// its size (largest bounding-box side): 1,000. The cut tolerances and the
/// `f32` render meshes resolve a fraction of the size only near the
/// origin: measured on a 1 m cube (`fracture --chunks 8`), 1e3 m out the
/// chunks' volumes add up exactly, 1e5 m out they are off by 2e-4, 1e6 m by
/// 0.5 %, and 1e7 m out every chunk was a whole copy of the cube. Place the
/// mesh at the origin and the instance with a pose instead.
pub const MAX_ORIGIN_DISTANCE_RATIO: f64 = 1e3;

/// The mesh's size (largest bounding-box side), checked against
/// [`MIN_MESH_SIZE`] and [`MAX_MESH_SIZE`].
fn check_size(lo: DVec3, hi: DVec3) -> Result<f64, MeshError> {
    let size = (hi - lo).max_element();
    if (MIN_MESH_SIZE..=MAX_MESH_SIZE).contains(&size) {
        Ok(size)
    } else {
        Err(MeshError::OutOfScale { size })
    }
}

/// Builds a [`TriMesh`] from raw triangles: welds vertices with bit-identical
/// positions (`-0.0` and `0.0` count as equal), drops triangles that become
/// degenerate (a repeated vertex) and unused vertices, checks that the
/// surface is closed and manifold, and flips every triangle if the surface
/// is wound inside-out (negative volume). Exact-duplicate faces are not
/// removed: they show up as non-manifold edges.
///
/// # Errors
/// [`MeshError::Empty`], [`MeshError::NonFiniteVertex`],
/// [`MeshError::IndexOutOfRange`], [`MeshError::TooLarge`],
/// [`MeshError::NotClosed`] (with the counts of open and non-manifold edges),
/// [`MeshError::OutOfScale`] (size outside [`MIN_MESH_SIZE`] ..=
/// [`MAX_MESH_SIZE`]), [`MeshError::ZeroVolume`].
///
/// # Example
/// ```
/// use smithereens_authoring::mesh_from_triangles;
/// use glam::DVec3;
/// // A tetrahedron.
/// let p = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
/// let mesh = mesh_from_triangles(p, vec![[0, 2, 1], [0, 1, 3], [1, 2, 3], [2, 0, 3]]).unwrap();
/// assert!((mesh.volume() - 1.0 / 6.0).abs() < 1e-12);
/// ```
pub fn mesh_from_triangles(
    positions: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
) -> Result<TriMesh, MeshError> {
    let (unique, welded_of) = checked_weld(&positions, &triangles)?;
    let mut tris: Vec<[u32; 3]> = triangles
        .iter()
        .map(|t| t.map(|i| welded_of[i as usize]))
        .filter(|t| t[0] != t[1] && t[1] != t[2] && t[2] != t[0])
        .collect();
    if tris.is_empty() {
        return Err(MeshError::Empty);
    }
    // Drop unused vertices, numbering the rest in first-use order.
    let mut remap = vec![u32::MAX; unique.len()];
    let mut used = Vec::new();
    for t in &mut tris {
        for i in t.iter_mut() {
            if remap[*i as usize] == u32::MAX {
                remap[*i as usize] = used.len() as u32;
                used.push(unique[*i as usize]);
            }
            *i = remap[*i as usize];
        }
    }
    let mut mesh = TriMesh {
        positions: used,
        triangles: tris,
    };
    mesh.check_closed()?;
    let volume = mesh.volume();
    let (lo, hi) = mesh.bounds();
    let scale = check_size(lo, hi)?;
    let encloses_volume = volume.abs() > 1e-12 * scale * scale * scale;
    if !encloses_volume {
        return Err(MeshError::ZeroVolume { volume });
    }
    if volume < 0.0 {
        for t in &mut mesh.triangles {
            t.swap(1, 2);
        }
    }
    Ok(mesh)
}

impl TriMesh {
    /// Same as [`mesh_from_triangles`].
    ///
    /// # Errors
    /// See [`mesh_from_triangles`].
    pub fn new(positions: Vec<DVec3>, triangles: Vec<[u32; 3]>) -> Result<Self, MeshError> {
        mesh_from_triangles(positions, triangles)
    }

    /// Checks the invariants listed on [`TriMesh`] without modifying the mesh
    /// (no welding, no flipping), and that the mesh lies within
    /// [`MAX_ORIGIN_DISTANCE_RATIO`] times its size of the origin (the
    /// fracture entry points call this).
    ///
    /// # Errors
    /// The same variants as [`mesh_from_triangles`]; an inside-out mesh gives
    /// [`MeshError::ZeroVolume`] with the negative volume;
    /// [`MeshError::FarFromOrigin`].
    pub fn validate(&self) -> Result<(), MeshError> {
        if self.positions.is_empty() || self.triangles.is_empty() {
            return Err(MeshError::Empty);
        }
        if self.positions.len() > u32::MAX as usize {
            return Err(MeshError::TooLarge {
                what: "vertices",
                count: self.positions.len(),
                max: u32::MAX as usize,
            });
        }
        if let Some((index, &position)) = self
            .positions
            .iter()
            .enumerate()
            .find(|(_, p)| !p.is_finite())
        {
            return Err(MeshError::NonFiniteVertex { index, position });
        }
        for (ti, t) in self.triangles.iter().enumerate() {
            if let Some(&index) = t.iter().find(|&&i| i as usize >= self.positions.len()) {
                return Err(MeshError::IndexOutOfRange {
                    triangle: ti,
                    index,
                    vertex_count: self.positions.len(),
                });
            }
        }
        self.check_closed()?;
        let volume = self.volume();
        let (lo, hi) = self.bounds();
        let scale = check_size(lo, hi)?;
        let distance = lo.abs().max(hi.abs()).max_element();
        if distance > MAX_ORIGIN_DISTANCE_RATIO * scale {
            return Err(MeshError::FarFromOrigin {
                distance,
                size: scale,
            });
        }
        let encloses_volume = volume > 1e-12 * scale * scale * scale;
        if !encloses_volume {
            return Err(MeshError::ZeroVolume { volume });
        }
        Ok(())
    }

    /// Counts open and non-manifold edges; `Err(NotClosed)` if there are any.
    /// Requires in-range indices.
    fn check_closed(&self) -> Result<(), MeshError> {
        let mut open_edges = 0usize;
        let mut non_manifold_edges = 0usize;
        let mut example = None;
        let degenerate = self
            .triangles
            .iter()
            .filter(|t| t[0] == t[1] || t[1] == t[2] || t[2] == t[0])
            .count();
        for e in edge_uses(&self.triangles) {
            if e.is_manifold() {
                continue;
            }
            if e.count == 1 {
                open_edges += 1;
            } else {
                non_manifold_edges += 1;
            }
            if example.is_none() {
                example =
                    Some((self.positions[e.lo as usize] + self.positions[e.hi as usize]) * 0.5);
            }
        }
        // A triangle with a repeated vertex is a non-manifold "edge" of its own.
        non_manifold_edges += degenerate;
        if open_edges == 0 && non_manifold_edges == 0 {
            return Ok(());
        }
        Err(MeshError::NotClosed {
            open_edges,
            non_manifold_edges,
            example: example.unwrap_or(DVec3::ZERO),
        })
    }

    /// Enclosed volume, m³ (signed: positive for outward winding), by the
    /// divergence theorem over signed tetrahedra from the first vertex.
    /// Triangles with out-of-range indices are ignored.
    pub fn volume(&self) -> f64 {
        let o = self.positions.first().copied().unwrap_or(DVec3::ZERO);
        let mut six_v = 0.0;
        for t in &self.triangles {
            if let (Some(a), Some(b), Some(c)) = (
                self.positions.get(t[0] as usize),
                self.positions.get(t[1] as usize),
                self.positions.get(t[2] as usize),
            ) {
                six_v += (*a - o).dot((*b - o).cross(*c - o));
            }
        }
        six_v / 6.0
    }

    /// Axis-aligned bounds `(min, max)`, m. `(0, 0)` for a mesh without vertices.
    pub fn bounds(&self) -> (DVec3, DVec3) {
        let Some(&first) = self.positions.first() else {
            return (DVec3::ZERO, DVec3::ZERO);
        };
        self.positions
            .iter()
            .fold((first, first), |(lo, hi), &p| (lo.min(p), hi.max(p)))
    }

    /// Volume (m³), mass (kg), centroid (m) and inertia about the centroid
    /// (kg·m²) of the solid, for uniform `density` (kg/m³). See
    /// [`MassProperties`] for the formulas' source.
    pub fn mass_properties(&self, density: f64) -> MassProperties {
        polyhedron_mass_properties(&self.positions, &self.triangles, density)
    }

    /// Generalised winding number of the surface around `point`: ≈1 inside,
    /// ≈0 outside for a closed outward-wound surface (sum of the signed solid
    /// angles of the triangles over 4π; Van Oosterom & Strackee 1983 for the
    /// solid angle of a triangle). Robust near edges and vertices, unlike ray
    /// parity. Cost: one `atan2` per triangle.
    pub fn winding_number(&self, point: DVec3) -> f64 {
        let mut total = 0.0;
        for t in &self.triangles {
            let (Some(a), Some(b), Some(c)) = (
                self.positions.get(t[0] as usize),
                self.positions.get(t[1] as usize),
                self.positions.get(t[2] as usize),
            ) else {
                continue;
            };
            let (a, b, c) = (*a - point, *b - point, *c - point);
            let (la, lb, lc) = (a.length(), b.length(), c.length());
            let num = a.dot(b.cross(c));
            let den = la * lb * lc + a.dot(b) * lc + a.dot(c) * lb + b.dot(c) * la;
            total += 2.0 * num.atan2(den);
        }
        total / (4.0 * std::f64::consts::PI)
    }

    /// True when `point` (m) is inside the solid (winding number > ½).
    pub fn contains_point(&self, point: DVec3) -> bool {
        self.winding_number(point) > 0.5
    }
}

/// Cells per axis of a [`ContainmentGrid`].
const GRID_CELLS: usize = 32;

/// Answers [`TriMesh::contains_point`] for many points quickly and with the
/// same result: the bounding box is cut into [`GRID_CELLS`]³ cells; a cell
/// that no triangle's bounding box (grown by a small margin) touches holds
/// no surface, so the winding number is the same everywhere in it and in
/// every face-adjacent such cell. Those regions are labelled once (by flood
/// fill: regions reaching the box's border are outside; any other region
/// by the winding number at one cell centre, which is at least half a cell
/// from every triangle); points in cells the surface may cross fall back to
/// the exact winding number.
pub(crate) struct ContainmentGrid<'a> {
    mesh: &'a TriMesh,
    lo: DVec3,
    step: DVec3,
    /// Per cell: `Some(inside)` for surface-free cells, `None` otherwise.
    label: Vec<Option<bool>>,
}

impl<'a> ContainmentGrid<'a> {
    pub fn new(mesh: &'a TriMesh) -> Self {
        let (lo, hi) = mesh.bounds();
        let n = GRID_CELLS;
        let step = ((hi - lo) / n as f64).max(DVec3::splat(f64::MIN_POSITIVE));
        let margin =
            1e-9 * (hi - lo).length() + f64::EPSILON * lo.abs().max(hi.abs()).max_element();
        let index = |c: [usize; 3]| (c[2] * n + c[1]) * n + c[0];
        let cell_range = |a: f64, b: f64, axis: usize| -> (usize, usize) {
            let f = |x: f64| {
                ((x - lo[axis]) / step[axis])
                    .floor()
                    .clamp(0.0, (n - 1) as f64) as usize
            };
            (f(a - margin), f(b + margin))
        };
        let mut surface = vec![false; n * n * n];
        for t in &mesh.triangles {
            let p = t.map(|i| mesh.positions.get(i as usize).copied().unwrap_or(lo));
            let (tlo, thi) = (p[0].min(p[1]).min(p[2]), p[0].max(p[1]).max(p[2]));
            let (x0, x1) = cell_range(tlo.x, thi.x, 0);
            let (y0, y1) = cell_range(tlo.y, thi.y, 1);
            let (z0, z1) = cell_range(tlo.z, thi.z, 2);
            for z in z0..=z1 {
                for y in y0..=y1 {
                    for x in x0..=x1 {
                        surface[index([x, y, z])] = true;
                    }
                }
            }
        }
        // Flood fill the surface-free regions in cell order; a region is
        // outside if it reaches the grid's border, else labelled by the
        // winding number at its first cell's centre.
        let mut label: Vec<Option<bool>> = vec![None; n * n * n];
        let mut region = Vec::new();
        for start in 0..n * n * n {
            if surface[start] || label[start].is_some() {
                continue;
            }
            region.clear();
            region.push(start);
            label[start] = Some(false);
            let mut border = false;
            let mut k = 0;
            while k < region.len() {
                let c = region[k];
                k += 1;
                let (x, y, z) = (c % n, (c / n) % n, c / (n * n));
                border |= x == 0 || y == 0 || z == 0 || x == n - 1 || y == n - 1 || z == n - 1;
                let mut visit = |nx: usize, ny: usize, nz: usize| {
                    let j = index([nx, ny, nz]);
                    if !surface[j] && label[j].is_none() {
                        label[j] = Some(false);
                        region.push(j);
                    }
                };
                if x > 0 {
                    visit(x - 1, y, z);
                }
                if x + 1 < n {
                    visit(x + 1, y, z);
                }
                if y > 0 {
                    visit(x, y - 1, z);
                }
                if y + 1 < n {
                    visit(x, y + 1, z);
                }
                if z > 0 {
                    visit(x, y, z - 1);
                }
                if z + 1 < n {
                    visit(x, y, z + 1);
                }
            }
            let inside = !border && {
                let (x, y, z) = (start % n, (start / n) % n, start / (n * n));
                let centre = lo + step * DVec3::new(x as f64 + 0.5, y as f64 + 0.5, z as f64 + 0.5);
                mesh.contains_point(centre)
            };
            if inside {
                for &c in &region {
                    label[c] = Some(true);
                }
            }
        }
        Self {
            mesh,
            lo,
            step,
            label,
        }
    }

    /// Same as [`TriMesh::contains_point`].
    pub fn contains_point(&self, point: DVec3) -> bool {
        let n = GRID_CELLS;
        let c = (point - self.lo) / self.step;
        let inside_box = c.cmpge(DVec3::ZERO).all() && c.cmplt(DVec3::splat(n as f64)).all();
        if inside_box {
            let (x, y, z) = (c.x as usize, c.y as usize, c.z as usize);
            if let Some(Some(inside)) = self.label.get((z * n + y) * n + x) {
                return *inside;
            }
        }
        self.mesh.contains_point(point)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_containment_grid_agrees_with_the_winding_number() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../assets/meshes/bob_tri.obj"
        );
        let mesh = crate::load_mesh(path.as_ref()).unwrap();
        let grid = ContainmentGrid::new(&mesh);
        let (lo, hi) = mesh.bounds();
        let mut state = 12345u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut inside = 0;
        for _ in 0..3000 {
            // A little beyond the box too.
            let p = lo - 0.05 * (hi - lo) + 1.1 * (hi - lo) * DVec3::new(next(), next(), next());
            let want = mesh.contains_point(p);
            assert_eq!(grid.contains_point(p), want, "at {p}");
            inside += want as u32;
        }
        assert!(inside > 100);
    }

    /// Unit cube as 12 triangles with 24 unwelded vertices (split per face).
    fn split_cube() -> (Vec<DVec3>, Vec<[u32; 3]>) {
        let corner =
            |i: u32| DVec3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64);
        let faces: [[u32; 4]; 6] = [
            [0, 2, 3, 1],
            [4, 5, 7, 6],
            [0, 1, 5, 4],
            [2, 6, 7, 3],
            [0, 4, 6, 2],
            [1, 3, 7, 5],
        ];
        let mut p = Vec::new();
        let mut t = Vec::new();
        for f in faces {
            let base = p.len() as u32;
            p.extend(f.iter().map(|&i| corner(i)));
            t.push([base, base + 1, base + 2]);
            t.push([base, base + 2, base + 3]);
        }
        (p, t)
    }

    #[test]
    fn split_cube_welds_to_eight_vertices_and_unit_volume() {
        let (p, t) = split_cube();
        let m = mesh_from_triangles(p, t).unwrap();
        assert_eq!(m.positions.len(), 8);
        assert_eq!(m.triangles.len(), 12);
        assert!((m.volume() - 1.0).abs() < 1e-12);
        assert_eq!(m.bounds(), (DVec3::ZERO, DVec3::ONE));
        m.validate().unwrap();
    }

    #[test]
    fn inside_out_cube_is_flipped_to_positive_volume() {
        let (p, mut t) = split_cube();
        for tri in &mut t {
            tri.swap(0, 1);
        }
        let m = mesh_from_triangles(p, t).unwrap();
        assert!((m.volume() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn cube_missing_one_triangle_reports_three_open_edges() {
        let (p, mut t) = split_cube();
        t.pop();
        let err = mesh_from_triangles(p, t).unwrap_err();
        assert!(
            matches!(
                err,
                MeshError::NotClosed {
                    open_edges: 3,
                    non_manifold_edges: 0,
                    ..
                }
            ),
            "{err:?}"
        );
    }

    #[test]
    fn duplicated_face_is_non_manifold() {
        let (p, mut t) = split_cube();
        t.push(t[0]);
        let err = mesh_from_triangles(p, t).unwrap_err();
        assert!(
            matches!(
                err,
                MeshError::NotClosed {
                    open_edges: 0,
                    non_manifold_edges: 3,
                    ..
                }
            ),
            "{err:?}"
        );
    }

    #[test]
    fn nan_vertex_is_rejected_with_its_index() {
        let (mut p, t) = split_cube();
        p[5].y = f64::NAN;
        let err = mesh_from_triangles(p, t).unwrap_err();
        assert!(
            matches!(err, MeshError::NonFiniteVertex { index: 5, .. }),
            "{err:?}"
        );
    }

    #[test]
    fn out_of_range_index_and_empty_input_are_rejected() {
        let (p, mut t) = split_cube();
        t[3][1] = 99;
        assert!(matches!(
            mesh_from_triangles(p, t),
            Err(MeshError::IndexOutOfRange {
                triangle: 3,
                index: 99,
                vertex_count: 24
            })
        ));
        assert!(matches!(
            mesh_from_triangles(vec![], vec![]),
            Err(MeshError::Empty)
        ));
    }

    #[test]
    fn winding_number_separates_inside_from_outside() {
        let (p, t) = split_cube();
        let m = mesh_from_triangles(p, t).unwrap();
        assert!(m.contains_point(DVec3::splat(0.5)));
        assert!(m.contains_point(DVec3::new(0.999, 0.001, 0.5)));
        assert!(!m.contains_point(DVec3::new(1.5, 0.5, 0.5)));
        assert!(!m.contains_point(DVec3::new(-0.001, 0.5, 0.5)));
        assert!((m.winding_number(DVec3::splat(0.3)) - 1.0).abs() < 1e-9);
    }
}
