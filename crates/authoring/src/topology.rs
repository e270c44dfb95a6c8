//! Edge bookkeeping shared by mesh validation, clipping and capping.
//!
//! Everything here sorts edge lists instead of hashing them, so results come
//! out in a deterministic order (ascending vertex indices).

/// Per undirected edge `(lo, hi)` (with `lo < hi`): how many triangles use it
/// in total and the net orientation (`+1` per use as `lo → hi`, `−1` per use
/// as `hi → lo`). Sorted by `(lo, hi)`. Degenerate edges (`a == a`) are skipped.
pub(crate) fn edge_uses(triangles: &[[u32; 3]]) -> Vec<EdgeUse> {
    edge_uses_where(triangles, |_| true)
}

/// [`edge_uses`] restricted to the edges whose two vertices both satisfy
/// `wanted` (the others are skipped, as if absent).
fn edge_uses_where(triangles: &[[u32; 3]], wanted: impl Fn(u32) -> bool) -> Vec<EdgeUse> {
    let mut keys: Vec<(u32, u32, i32)> = Vec::new();
    for t in triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            if !(wanted(a) && wanted(b)) {
                continue;
            }
            if a < b {
                keys.push((a, b, 1));
            } else if b < a {
                keys.push((b, a, -1));
            }
        }
    }
    keys.sort_unstable();
    let mut out: Vec<EdgeUse> = Vec::new();
    for (lo, hi, dir) in keys {
        match out.last_mut() {
            Some(e) if e.lo == lo && e.hi == hi => {
                e.count += 1;
                e.net += dir;
            }
            _ => out.push(EdgeUse {
                lo,
                hi,
                count: 1,
                net: dir,
            }),
        }
    }
    out
}

/// Use count of one undirected edge; see [`edge_uses`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct EdgeUse {
    /// Smaller vertex index.
    pub lo: u32,
    /// Larger vertex index.
    pub hi: u32,
    /// Triangles using the edge.
    pub count: u32,
    /// Uses as `lo → hi` minus uses as `hi → lo`.
    pub net: i32,
}

impl EdgeUse {
    /// True for an edge of a closed, consistently oriented manifold surface.
    pub fn is_manifold(&self) -> bool {
        self.count == 2 && self.net == 0
    }
}

/// Directed edges left unpaired by `triangles`: for every undirected edge
/// whose uses in one direction outnumber the other, the surplus direction,
/// repeated by the surplus. For a surface with boundary these are its
/// boundary edges, oriented as the triangles traverse them. Ordered by the
/// undirected key `(min, max)`.
pub(crate) fn unpaired_edges(triangles: &[[u32; 3]]) -> Vec<(u32, u32)> {
    unpaired_edges_where(triangles, |_| true)
}

/// [`unpaired_edges`] among the edges whose two vertices both satisfy
/// `wanted`. When every unpaired edge of `triangles` is known to join two
/// such vertices (after a plane cut of a closed surface: both ends on the
/// plane), the result equals [`unpaired_edges`] but only those edges are
/// sorted, not the whole surface's.
pub(crate) fn unpaired_edges_where(
    triangles: &[[u32; 3]],
    wanted: impl Fn(u32) -> bool,
) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for e in edge_uses_where(triangles, wanted) {
        let (dir, n) = if e.net > 0 {
            ((e.lo, e.hi), e.net)
        } else {
            ((e.hi, e.lo), -e.net)
        };
        for _ in 0..n {
            out.push(dir);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_tetrahedron_has_no_unpaired_edges() {
        let tets = [[0, 2, 1], [0, 1, 3], [1, 2, 3], [2, 0, 3]];
        assert!(unpaired_edges(&tets).is_empty());
        assert!(edge_uses(&tets).iter().all(EdgeUse::is_manifold));
    }

    #[test]
    fn a_single_triangle_has_its_three_edges_unpaired_in_its_winding() {
        assert_eq!(unpaired_edges(&[[0, 1, 2]]), vec![(0, 1), (2, 0), (1, 2)]);
        assert_eq!(unpaired_edges(&[[2, 1, 0]]), vec![(1, 0), (0, 2), (2, 1)]);
    }
}
