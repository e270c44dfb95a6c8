//! The importer's view of a chunk render mesh (issue 17, item 2): weld
//! vertices closer than a tolerance, as a renderer, a mesh optimiser or a
//! game engine's importer does, and count what breaks.

#![allow(dead_code)]

use smithereens_core::{AssetFile, ChunkMesh};
use std::collections::BTreeMap;

/// What welding one or more chunk meshes at a tolerance left, and the
/// smallest features before the weld.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WeldMetric {
    /// Triangles in all meshes.
    pub triangles: usize,
    /// Triangles with at least one edge shorter than the tolerance.
    pub triangles_with_short_edge: usize,
    /// Shortest edge, m.
    pub shortest_edge: f64,
    /// Smallest triangle area, m².
    pub smallest_area: f64,
    /// Triangles with two corners welded into one vertex.
    pub collapsed: usize,
    /// Edges used by one triangle after the weld.
    pub boundary: usize,
    /// Edges used by more than two triangles, or by two in the same
    /// direction, after the weld.
    pub non_manifold: usize,
}

impl WeldMetric {
    /// No collapsed triangle, no boundary and no non-manifold edge.
    pub fn is_clean(&self) -> bool {
        self.collapsed == 0 && self.boundary == 0 && self.non_manifold == 0
    }

    fn add(&mut self, other: &WeldMetric) {
        self.triangles += other.triangles;
        self.triangles_with_short_edge += other.triangles_with_short_edge;
        self.shortest_edge = self.shortest_edge.min(other.shortest_edge);
        self.smallest_area = self.smallest_area.min(other.smallest_area);
        self.collapsed += other.collapsed;
        self.boundary += other.boundary;
        self.non_manifold += other.non_manifold;
    }
}

/// [`weld_metric`] of every chunk mesh of `file`, summed (shortest edge and
/// smallest area: the minimum over chunks).
pub fn file_weld_metric(file: &AssetFile, tolerance: f64) -> WeldMetric {
    let mut total = WeldMetric {
        shortest_edge: f64::INFINITY,
        smallest_area: f64::INFINITY,
        ..WeldMetric::default()
    };
    for mesh in &file.meshes {
        total.add(&weld_metric(mesh, tolerance));
    }
    total
}

/// Welds the vertices of `mesh` that are within `tolerance` (m) of each
/// other (transitively: union of all pairs closer than that, as "merge by
/// distance" does) and counts collapsed triangles, boundary and
/// non-manifold edges of what is left; edge lengths and areas are measured
/// before the weld.
pub fn weld_metric(mesh: &ChunkMesh, tolerance: f64) -> WeldMetric {
    let p = |i: u32| mesh.positions[i as usize].as_dvec3();
    let triangles: Vec<[u32; 3]> = mesh
        .exterior
        .iter()
        .chain(&mesh.interior)
        .copied()
        .collect();
    let mut metric = WeldMetric {
        triangles: triangles.len(),
        shortest_edge: f64::INFINITY,
        smallest_area: f64::INFINITY,
        ..WeldMetric::default()
    };
    for t in &triangles {
        let q = t.map(p);
        let mut short = false;
        for k in 0..3 {
            let length = q[k].distance(q[(k + 1) % 3]);
            metric.shortest_edge = metric.shortest_edge.min(length);
            short |= length < tolerance;
        }
        metric.triangles_with_short_edge += usize::from(short);
        let area = 0.5 * (q[1] - q[0]).cross(q[2] - q[0]).length();
        metric.smallest_area = metric.smallest_area.min(area);
    }

    // Union of vertices within `tolerance`: a sweep along x.
    let n = mesh.positions.len();
    let mut root: Vec<u32> = (0..n as u32).collect();
    fn find(root: &mut [u32], mut x: u32) -> u32 {
        while root[x as usize] != x {
            root[x as usize] = root[root[x as usize] as usize];
            x = root[x as usize];
        }
        x
    }
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by(|&a, &b| p(a).x.total_cmp(&p(b).x).then(a.cmp(&b)));
    for (k, &a) in order.iter().enumerate() {
        for &b in &order[k + 1..] {
            if p(b).x - p(a).x > tolerance {
                break;
            }
            if p(a).distance(p(b)) <= tolerance {
                let (ra, rb) = (find(&mut root, a), find(&mut root, b));
                root[ra.max(rb) as usize] = ra.min(rb);
            }
        }
    }
    let mut uses: BTreeMap<(u32, u32), (u32, i32)> = BTreeMap::new();
    for t in &triangles {
        let t = t.map(|i| find(&mut root, i));
        if t[0] == t[1] || t[1] == t[2] || t[2] == t[0] {
            metric.collapsed += 1;
            continue;
        }
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            let e = uses.entry((a.min(b), a.max(b))).or_insert((0, 0));
            e.0 += 1;
            e.1 += if a < b { 1 } else { -1 };
        }
    }
    for &(count, net) in uses.values() {
        if count == 1 {
            metric.boundary += 1;
        } else if count != 2 || net != 0 {
            metric.non_manifold += 1;
        }
    }
    metric
}
