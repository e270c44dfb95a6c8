//! Support-aware island detection over intact bonds (DESIGN §3.4,
//! destruction-system seed "支撑传播").
//!
//! Components are found with an explicit stack (no recursion), O(V + E) over
//! the nodes given. A component is *supported* when supports are allowed for
//! its parent cluster and it contains a support chunk or a node with an intact
//! bond to the world. Components are reported in order of their lowest node,
//! with nodes sorted, so ids are stable across machines.

use crate::asset::Asset;
use crate::index::ChunkIndex;

/// One connected component.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Island {
    /// Member nodes, ascending.
    pub nodes: Vec<ChunkIndex>,
    /// True when the component stays fixed to the world.
    pub supported: bool,
}

/// Scratch reused across calls; grows to the largest graph seen, never shrinks.
#[derive(Default, Clone, Debug)]
pub struct IslandScratch {
    stamp: Vec<u32>,
    current: u32,
    stack: Vec<ChunkIndex>,
    /// Island (position in this call's output) of each visited node.
    label: Vec<u32>,
    /// Member count of each island of this call.
    sizes: Vec<u32>,
}

impl IslandScratch {
    fn begin(&mut self, node_count: usize) {
        if self.stamp.len() < node_count {
            self.stamp.resize(node_count, 0);
            self.label.resize(node_count, 0);
        }
        self.sizes.clear();
        self.current = self.current.wrapping_add(1);
        if self.current == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.current = 1;
        }
    }
}

/// Splits `nodes` (the members of one cluster, any order) into components
/// over bonds whose `health` is positive, appending them to `out`.
///
/// * `health`: one entry per bond of `asset`, du.
/// * `supports_allowed`: false for a dynamic cluster (an activated node is
///   never a support again).
///
/// Intact bonds never cross clusters, so the search stays inside `nodes`.
/// Nodes out of range are ignored.
pub fn find_islands_in(
    asset: &Asset,
    health: &[f32],
    nodes: &[ChunkIndex],
    supports_allowed: bool,
    scratch: &mut IslandScratch,
    out: &mut Vec<Island>,
) {
    let graph = asset.graph();
    scratch.begin(graph.node_count());
    let first = out.len();
    let intact = |b: crate::BondIndex| health.get(b.0 as usize).is_some_and(|&h| h > 0.0);
    for &start in nodes {
        if start.0 as usize >= graph.node_count()
            || scratch.stamp[start.0 as usize] == scratch.current
        {
            continue;
        }
        let id = scratch.sizes.len() as u32;
        let mut size = 0u32;
        let mut supported = false;
        scratch.stack.clear();
        scratch.stack.push(start);
        scratch.stamp[start.0 as usize] = scratch.current;
        while let Some(v) = scratch.stack.pop() {
            scratch.label[v.0 as usize] = id;
            size += 1;
            if supports_allowed && !supported {
                let chunk_support = asset.chunk(v).is_some_and(|c| c.support);
                supported = chunk_support || graph.world_bonds(v).iter().any(|&b| intact(b));
            }
            for (n, b) in graph.neighbours(v) {
                if intact(b) && scratch.stamp[n.0 as usize] != scratch.current {
                    scratch.stamp[n.0 as usize] = scratch.current;
                    scratch.stack.push(n);
                }
            }
        }
        scratch.sizes.push(size);
        out.push(Island {
            nodes: Vec::with_capacity(size as usize),
            supported,
        });
    }
    // Distribute the members in input order: for sorted input (cluster
    // members always are) every island comes out sorted without a sort, and
    // islands, started from their lowest node, are already in order.
    let sorted = nodes.is_sorted();
    let mut previous = None;
    for &n in nodes {
        let i = n.0 as usize;
        if sorted && previous == Some(n) {
            continue; // a repeated node
        }
        previous = Some(n);
        if i < graph.node_count() && scratch.stamp[i] == scratch.current {
            out[first + scratch.label[i] as usize].nodes.push(n);
        }
    }
    if !sorted {
        for island in &mut out[first..] {
            island.nodes.sort_unstable();
            island.nodes.dedup();
        }
        out[first..].sort_by_key(|i| i.nodes[0]);
    }
}

/// Components of the whole asset (its support-level chunks) with supports
/// allowed (a fresh instance).
pub fn find_islands(asset: &Asset, health: &[f32]) -> Vec<Island> {
    let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
    let mut out = Vec::new();
    find_islands_in(
        asset,
        health,
        &nodes,
        true,
        &mut IslandScratch::default(),
        &mut out,
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    fn chain(n: u32, b: &[(u32, u32)], s: &[u32]) -> crate::Asset {
        fixtures::chain(n, b, s).unwrap()
    }

    #[test]
    fn support_belongs_to_the_component_so_nodes_one_and_two_stay_fixed() {
        let asset = chain(3, &[(0, 1), (1, 2)], &[0]);
        let islands = find_islands(&asset, &[10.0, 4.0]);
        assert_eq!(
            islands,
            vec![Island {
                nodes: vec![ChunkIndex(0), ChunkIndex(1), ChunkIndex(2)],
                supported: true
            }]
        );
    }

    #[test]
    fn breaking_one_two_drops_only_node_two() {
        let asset = chain(3, &[(0, 1), (1, 2)], &[0]);
        let islands = find_islands(&asset, &[2.0, 0.0]);
        assert_eq!(
            islands,
            vec![
                Island {
                    nodes: vec![ChunkIndex(0), ChunkIndex(1)],
                    supported: true
                },
                Island {
                    nodes: vec![ChunkIndex(2)],
                    supported: false
                },
            ]
        );
    }

    #[test]
    fn with_an_extra_bond_zero_two_breaking_one_two_drops_nothing() {
        let asset = chain(3, &[(0, 1), (1, 2), (0, 2)], &[0]);
        let islands = find_islands(&asset, &[2.0, 0.0, 5.0]);
        assert_eq!(islands.len(), 1);
        assert!(islands[0].supported);
    }

    #[test]
    fn a_dynamic_cluster_never_regains_support() {
        let asset = chain(3, &[(0, 1), (1, 2)], &[0]);
        let mut out = Vec::new();
        find_islands_in(
            &asset,
            &[1.0, 1.0],
            &[ChunkIndex(2), ChunkIndex(0), ChunkIndex(1)],
            false,
            &mut IslandScratch::default(),
            &mut out,
        );
        assert_eq!(out.len(), 1);
        assert!(!out[0].supported);
    }
}
