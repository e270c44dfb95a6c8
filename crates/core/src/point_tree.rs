//! A bounding-volume hierarchy over points: an asset's bond centroids and
//! support-level chunk centroids, in asset space, so that admission finds the
//! bonds a radial event reaches in O(log B + k) instead of measuring every
//! bond (issue 12 item 3).
//!
//! Built once per asset, top down: each node's axis-aligned box bounds its
//! points; a node with more than [`LEAF_SIZE`] points is split at the median
//! of its box's longest axis (ties broken by item id, so the tree depends on
//! the input alone). Nodes are stored depth first: a node's first child
//! follows it, the second is at `second`. Queries walk the tree with a fixed
//! stack and allocate nothing.
//!
//! The tree answers in asset space. Callers that measure in world space (a
//! cluster's frame) query with a radius enlarged by a small slack (see
//! [`frame_slack`]) and re-measure each hit exactly as a full scan would, so
//! the result is bit-identical to the scan.

use glam::Vec3;

/// Most points in a leaf.
pub const LEAF_SIZE: usize = 8;

/// Depth bound of the traversal stack: median splits halve the points, so a
/// tree over `u32` items is at most 33 levels deep.
const STACK: usize = 64;

#[derive(Clone, Debug, PartialEq)]
struct Node {
    min: Vec3,
    max: Vec3,
    /// First point (index into `points`).
    start: u32,
    /// Number of points under this node.
    count: u32,
    /// Index of the second child; 0 for a leaf.
    second: u32,
}

/// A static bounding-volume hierarchy over `(id, point)` items.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PointTree {
    nodes: Vec<Node>,
    points: Vec<Vec3>,
    ids: Vec<u32>,
}

impl PointTree {
    /// Builds the tree over `items`. Non-finite points are left out (assets
    /// reject them at validation).
    pub fn build(items: impl IntoIterator<Item = (u32, Vec3)>) -> Self {
        let mut items: Vec<(u32, Vec3)> =
            items.into_iter().filter(|(_, p)| p.is_finite()).collect();
        let mut tree = Self {
            nodes: Vec::with_capacity(2 * items.len() / LEAF_SIZE + 1),
            points: Vec::with_capacity(items.len()),
            ids: Vec::with_capacity(items.len()),
        };
        if !items.is_empty() {
            let n = items.len();
            tree.split(&mut items, 0, n);
        }
        for (id, p) in items {
            tree.ids.push(id);
            tree.points.push(p);
        }
        tree
    }

    /// Appends the node over `items[start..end]` and its subtree.
    fn split(&mut self, items: &mut [(u32, Vec3)], start: usize, end: usize) {
        let slice = &mut items[start..end];
        let (min, max) = slice.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), &(_, p)| (lo.min(p), hi.max(p)),
        );
        let me = self.nodes.len();
        self.nodes.push(Node {
            min,
            max,
            start: start as u32,
            count: slice.len() as u32,
            second: 0,
        });
        if slice.len() <= LEAF_SIZE {
            return;
        }
        let extent = max - min;
        let axis = if extent.x >= extent.y && extent.x >= extent.z {
            0
        } else if extent.y >= extent.z {
            1
        } else {
            2
        };
        let mid = slice.len() / 2;
        slice.select_nth_unstable_by(mid, |a, b| {
            a.1[axis].total_cmp(&b.1[axis]).then(a.0.cmp(&b.0))
        });
        self.split(items, start, start + mid);
        self.nodes[me].second = self.nodes.len() as u32;
        self.split(items, start + mid, end);
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// True when the tree holds no point.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// Calls `f(id, point)` for every point within `radius` of `centre`
    /// (distance ≤ `radius`), in tree order, with the point as built (so a
    /// caller need not look it up again). Nothing is called for a NaN centre
    /// or radius.
    pub fn for_each_within(&self, centre: Vec3, radius: f32, mut f: impl FnMut(u32, Vec3)) {
        if self.nodes.is_empty() || !(radius >= 0.0) || !centre.is_finite() {
            return;
        }
        let r2 = radius * radius;
        let mut stack = [0u32; STACK];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let i = stack[top];
            let node = &self.nodes[i as usize];
            if box_distance_squared(node, centre) > r2 {
                continue;
            }
            if node.second == 0 {
                let range = node.start as usize..(node.start + node.count) as usize;
                for (p, &id) in self.points[range.clone()].iter().zip(&self.ids[range]) {
                    if p.distance_squared(centre) <= r2 {
                        f(id, *p);
                    }
                }
            } else if top + 2 <= STACK {
                // The first child follows its parent (depth-first order).
                stack[top] = node.second;
                stack[top + 1] = i + 1;
                top += 2;
            }
        }
    }

    /// The item nearest `centre` by the caller's measure: `measure(id)` is the
    /// item's exact distance (or `None` to skip it), which may differ from the
    /// asset-space distance by at most `slack` (see [`frame_slack`]). Ties go
    /// to the lowest id, as in a scan by ascending id. Returns
    /// `(distance, id)`.
    pub fn nearest(
        &self,
        centre: Vec3,
        slack: f32,
        mut measure: impl FnMut(u32) -> Option<f32>,
    ) -> Option<(f32, u32)> {
        if self.nodes.is_empty() || !centre.is_finite() {
            return None;
        }
        let mut best: Option<(f32, u32)> = None;
        let mut stack = [0u32; STACK];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let i = stack[top];
            let node = &self.nodes[i as usize];
            if let Some((d, _)) = best {
                let bound = d + 2.0 * slack;
                if box_distance_squared(node, centre) > bound * bound {
                    continue;
                }
            }
            if node.second == 0 {
                let range = node.start as usize..(node.start + node.count) as usize;
                for &id in &self.ids[range] {
                    if let Some(d) = measure(id)
                        && closer((d, id), best)
                    {
                        best = Some((d, id));
                    }
                }
            } else if top + 2 <= STACK {
                // Visit the nearer child first (pushed last).
                let (a, b) = (i + 1, node.second);
                let (da, db) = (
                    box_distance_squared(&self.nodes[a as usize], centre),
                    box_distance_squared(&self.nodes[b as usize], centre),
                );
                let (near, far) = if da <= db { (a, b) } else { (b, a) };
                stack[top] = far;
                stack[top + 1] = near;
                top += 2;
            }
        }
        best
    }
}

fn box_distance_squared(node: &Node, p: Vec3) -> f32 {
    let d = (node.min - p).max(p - node.max).max(Vec3::ZERO);
    d.length_squared()
}

/// True when `found` (distance, id) is nearer than `best`: a smaller
/// distance, or the same distance and a lower id (the one tie rule of every
/// nearest-item search, so that each answers as a full scan would).
pub(crate) fn closer(found: (f32, u32), best: Option<(f32, u32)>) -> bool {
    let (d, id) = found;
    best.is_none_or(|(bd, bi)| d < bd || (d == bd && id < bi))
}

/// Slack, m, between distances measured in asset space and the same
/// distances measured after a rigid transform to world space in `f32`:
/// a few ulps of the largest coordinate involved. Queries enlarge their
/// radius by it and re-measure every hit, so no item is missed.
pub fn frame_slack(world_point: f32, asset_point: f32, radius: f32) -> f32 {
    let scale = 1.0 + world_point.abs() + asset_point.abs() + radius.abs();
    scale * 64.0 * f32::EPSILON
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cloud(n: u32) -> Vec<(u32, Vec3)> {
        // A deterministic scatter (no RNG needed).
        (0..n)
            .map(|i| {
                let f = i as f32;
                (
                    i,
                    Vec3::new(
                        (f * 0.618_034).fract() * 10.0,
                        (f * 0.414_213_5).fract() * 7.0,
                        (f * 0.732_050_8).fract() * 3.0,
                    ),
                )
            })
            .collect()
    }

    #[test]
    fn a_sphere_query_finds_exactly_the_points_a_scan_finds() {
        let items = cloud(1000);
        let tree = PointTree::build(items.clone());
        assert_eq!(tree.len(), 1000);
        for (c, r) in [
            (Vec3::new(5.0, 3.5, 1.5), 1.3),
            (Vec3::new(0.0, 0.0, 0.0), 2.0),
            (Vec3::new(20.0, 0.0, 0.0), 3.0),
            (Vec3::new(4.0, 4.0, 1.0), 0.0),
            (Vec3::new(5.0, 3.5, 1.5), 100.0),
        ] {
            let mut found = Vec::new();
            tree.for_each_within(c, r, |id, p| {
                assert_eq!(p, items[id as usize].1, "the point passed is the item's");
                found.push(id);
            });
            found.sort_unstable();
            let scan: Vec<u32> = items
                .iter()
                .filter(|(_, p)| p.distance_squared(c) <= r * r)
                .map(|&(i, _)| i)
                .collect();
            assert_eq!(found, scan, "centre {c} radius {r}");
        }
    }

    #[test]
    fn the_nearest_point_matches_a_scan_with_ties_to_the_lowest_id() {
        let mut items = cloud(500);
        // Two points at the same place: the lower id wins.
        items.push((900, Vec3::new(1.0, 1.0, 1.0)));
        items.push((700, Vec3::new(1.0, 1.0, 1.0)));
        let tree = PointTree::build(items.clone());
        for c in [
            Vec3::new(1.0, 1.0, 1.0),
            Vec3::new(9.0, -3.0, 2.0),
            Vec3::new(5.5, 2.2, 0.1),
        ] {
            let (d, id) = tree
                .nearest(c, 0.0, |id| {
                    let p = items.iter().find(|(i, _)| *i == id).map(|(_, p)| *p)?;
                    Some(p.distance(c))
                })
                .unwrap();
            let scan = items
                .iter()
                .map(|&(i, p)| (p.distance(c), i))
                .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
                .unwrap();
            assert_eq!((d, id), scan, "centre {c}");
        }
    }

    #[test]
    fn a_filtered_nearest_query_skips_what_the_measure_refuses() {
        let items = cloud(200);
        let tree = PointTree::build(items.clone());
        let c = Vec3::new(3.0, 3.0, 1.0);
        let even = tree
            .nearest(c, 0.0, |id| {
                (id % 2 == 0).then(|| items[id as usize].1.distance(c))
            })
            .unwrap();
        assert_eq!(even.1 % 2, 0);
        let scan = items
            .iter()
            .filter(|(i, _)| i % 2 == 0)
            .map(|&(i, p)| (p.distance(c), i))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
            .unwrap();
        assert_eq!(even, scan);
        assert_eq!(tree.nearest(c, 0.0, |_| None), None);
    }

    #[test]
    fn empty_trees_and_bad_queries_find_nothing() {
        let empty = PointTree::build(Vec::new());
        assert!(empty.is_empty());
        empty.for_each_within(Vec3::ZERO, 1.0, |_, _| panic!("empty"));
        assert_eq!(empty.nearest(Vec3::ZERO, 0.0, |_| Some(0.0)), None);
        let tree = PointTree::build(cloud(50));
        tree.for_each_within(Vec3::NAN, 1.0, |_, _| panic!("NaN centre"));
        tree.for_each_within(Vec3::ZERO, f32::NAN, |_, _| panic!("NaN radius"));
        tree.for_each_within(Vec3::ZERO, -1.0, |_, _| panic!("negative radius"));
        let with_nan = PointTree::build([(0, Vec3::NAN), (1, Vec3::ONE)]);
        assert_eq!(with_nan.len(), 1);
    }
}
