//! Support-aware island detection over intact bonds (DESIGN §3.4,
//! destruction-system seed "支撑传播").
//!
//! Two searches live here. [`find_islands_in`] enumerates every component
//! of a node set (instance creation, tests). [`find_departed`] is the one
//! commits use: after bonds break it finds only what broke off, with
//! lock-step searches from both ends of every broken bond, so its cost
//! follows the damage, not the structure (issue 12); the part it never had to
//! enumerate is the remainder and keeps the cluster's handle.
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
    /// Member nodes, ascending (inline up to four, see [`crate::Members`]).
    pub nodes: crate::Members,
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
            nodes: crate::Members::with_capacity(size as usize),
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

/// Which piece of a split cluster keeps its identity ([`find_departed`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Remainder {
    /// The searches stopped while one side was still open: that side, every
    /// node of the cluster not in a reported piece, is the remainder.
    Open,
    /// Every side closed: the reported piece at this position (in the output
    /// slice of this call) is the remainder, the largest one (lowest first
    /// node on ties).
    Piece(usize),
}

/// Scratch of [`find_departed`]: per-node marks stamped with an epoch, so a
/// call never clears O(asset) memory; the searches' stacks are linked
/// through one per-node array, so no search allocates. Grows to the largest
/// call seen, never shrinks.
#[derive(Default, Clone, Debug)]
pub struct SplitScratch {
    stamp: Vec<u32>,
    epoch: u32,
    /// Search that reached each node stamped in this epoch.
    owner: Vec<u32>,
    /// Per node: the next node down its search's stack (the stacks are
    /// linked lists threaded through this array, so a search costs no
    /// allocation of its own).
    link: Vec<u32>,
    /// Per search: the top of its stack of nodes reached but not yet
    /// expanded, `u32::MAX` when empty.
    top: Vec<u32>,
    /// Every node reached by this call, in order.
    reached_nodes: Vec<ChunkIndex>,
    /// Union-find over searches (searches that met form one group).
    parent: Vec<u32>,
    /// Per group root: member searches with a non-empty frontier.
    live: Vec<u32>,
    /// Searches with a non-empty frontier, in round-robin order.
    active: Vec<u32>,
    /// Per group root: the piece it became (its position in the output).
    piece: Vec<u32>,
    /// The nodes of the closed groups, sorted ascending.
    closed: Vec<u32>,
    /// A member list freed by the last commit (a remainder's old one),
    /// reused for the next remainder's, so chipping a big cluster does not
    /// allocate (and page in) a fresh copy of its member list every time.
    pub(crate) spare_nodes: Vec<ChunkIndex>,
    /// The departed chunks of a split, sorted (the planner's buffer).
    pub(crate) gone: Vec<ChunkIndex>,
}

impl SplitScratch {
    /// Scratch already sized for a graph of `node_count` nodes (12 bytes a
    /// node), so the first split of a new instance does not page in fresh
    /// per-node arrays inside its commit (an instance's working memory is
    /// taken when it is created, as Blast's family memory is).
    pub fn for_nodes(node_count: usize) -> Self {
        let mut s = Self::default();
        s.begin(node_count);
        s
    }

    fn begin(&mut self, node_count: usize) {
        if self.stamp.len() < node_count {
            self.stamp.resize(node_count, 0);
            self.owner.resize(node_count, 0);
            self.link.resize(node_count, u32::MAX);
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
        self.parent.clear();
        self.live.clear();
        self.active.clear();
        self.piece.clear();
        self.top.clear();
        self.reached_nodes.clear();
    }

    /// Keeps `nodes` (a member list a commit freed or a plan gave back) as
    /// the next remainder's list when its heap block is the larger: a
    /// spilled list gives its block back, no copy.
    pub(crate) fn keep_spare_nodes(&mut self, nodes: crate::Members) {
        if nodes.capacity() > self.spare_nodes.capacity() {
            self.spare_nodes = nodes.into_vec();
        }
    }

    fn reach(&mut self, n: ChunkIndex, s: u32) {
        let i = n.0 as usize;
        self.stamp[i] = self.epoch;
        self.owner[i] = s;
        self.link[i] = self.top[s as usize];
        self.top[s as usize] = n.0;
        self.reached_nodes.push(n);
    }

    fn pop(&mut self, s: u32) -> Option<ChunkIndex> {
        let t = self.top[s as usize];
        (t != u32::MAX).then(|| {
            self.top[s as usize] = self.link[t as usize];
            ChunkIndex(t)
        })
    }

    /// Number of nodes the last [`find_departed`] call reached (seeds
    /// included): its work, which tests hold to the size of the pieces.
    pub fn reached(&self) -> usize {
        self.reached_nodes.len()
    }

    fn find(&mut self, mut s: u32) -> u32 {
        while self.parent[s as usize] != s {
            let up = self.parent[self.parent[s as usize] as usize];
            self.parent[s as usize] = up;
            s = up;
        }
        s
    }

    /// After [`find_departed`]: the position (in that call's output) of the
    /// reported piece holding `n`, or `None` when `n` is in the open
    /// remainder (or was not part of the call).
    pub fn piece_of(&mut self, n: ChunkIndex) -> Option<usize> {
        let i = n.0 as usize;
        if self.stamp.get(i) != Some(&self.epoch) {
            return None;
        }
        let root = self.find(self.owner[i]);
        let p = self.piece[root as usize];
        (p != u32::MAX).then_some(p as usize)
    }
}

/// Finds what broke off a connected cluster after some of its bonds broke,
/// in time proportional to the pieces that left rather than to the cluster
/// (issue 12).
///
/// * `health`: one entry per bond of `asset`, du; a bond is intact when its
///   health is positive. Intact bonds never cross clusters, so the searches
///   stay inside the cluster.
/// * `seeds`: the endpoints of the cluster's bonds broken since its node set
///   was last computed (any order, repeats allowed). The cluster must have
///   been connected before they broke; then every component of what is left
///   holds a seed.
///
/// One search starts at each distinct seed; all advance in lock-step (one
/// node expanded per search per round, explicit stacks). Searches that meet
/// merge into one group; a group whose frontier runs dry has enumerated a
/// whole component: it is a *piece*. The searches stop as soon as at most one
/// group is still open: that group is the remainder ([`Remainder::Open`]) and
/// is never enumerated, so the work is O(seeds × size of the largest piece
/// that left) instead of O(cluster). When every group closes, the largest
/// piece is the remainder ([`Remainder::Piece`]).
///
/// Pieces are appended to `out` with nodes ascending, in order of their
/// lowest node, `supported` false (the caller decides support). Seeds out of
/// range are ignored. A cluster that was not connected (only possible from
/// hand-made records) is never split further than its seeds reveal.
///
/// # Example
/// Bonds 0–1, 1–2, 2–3; breaking 2–3 chips node 3 off without visiting 0 or 1
/// beyond the lock-step:
/// ```
/// use smithereens_core::{fixtures, ChunkIndex};
/// use smithereens_core::island::{find_departed, Remainder, SplitScratch};
/// let asset = fixtures::chain(4, &[(0, 1), (1, 2), (2, 3)], &[]).unwrap();
/// let (mut scratch, mut out) = (SplitScratch::default(), Vec::new());
/// let rest = find_departed(&asset, &[5.0, 5.0, 0.0], &[ChunkIndex(2), ChunkIndex(3)],
///                          &mut scratch, &mut out);
/// assert_eq!(rest, Remainder::Open);
/// assert_eq!(out.len(), 1);
/// assert_eq!(out[0].nodes[..], [ChunkIndex(3)]);
/// ```
pub fn find_departed(
    asset: &Asset,
    health: &[f32],
    seeds: &[ChunkIndex],
    scratch: &mut SplitScratch,
    out: &mut Vec<Island>,
) -> Remainder {
    let graph = asset.graph();
    let node_count = graph.node_count();
    scratch.begin(node_count);
    let first = out.len();
    let epoch = scratch.epoch;
    for &seed in seeds {
        let i = seed.0 as usize;
        if i >= node_count || scratch.stamp[i] == epoch {
            continue;
        }
        let s = scratch.parent.len() as u32;
        scratch.top.push(u32::MAX);
        scratch.reach(seed, s);
        scratch.parent.push(s);
        scratch.live.push(1);
        scratch.active.push(s);
    }
    let intact = |b: crate::BondIndex| health.get(b.0 as usize).is_some_and(|&h| h > 0.0);
    let mut open_groups = scratch.parent.len();
    let mut k = 0usize;
    while open_groups > 1 && !scratch.active.is_empty() {
        if k >= scratch.active.len() {
            k = 0;
        }
        let s = scratch.active[k];
        if let Some(v) = scratch.pop(s) {
            for (n, b) in graph.neighbours(v) {
                if !intact(b) {
                    continue;
                }
                let j = n.0 as usize;
                if scratch.stamp[j] != epoch {
                    scratch.reach(n, s);
                } else {
                    let (a, b) = (scratch.find(s), scratch.find(scratch.owner[j]));
                    if a != b {
                        // Two open groups met: one open group fewer.
                        let (root, child) = (a.min(b), a.max(b));
                        scratch.parent[child as usize] = root;
                        scratch.live[root as usize] += scratch.live[child as usize];
                        open_groups -= 1;
                    }
                }
            }
        }
        if scratch.top[s as usize] == u32::MAX {
            scratch.active.swap_remove(k);
            let root = scratch.find(s);
            scratch.live[root as usize] -= 1;
            if scratch.live[root as usize] == 0 {
                open_groups -= 1;
            }
        } else {
            k += 1;
        }
    }
    // Closed groups are the pieces. Their nodes, sorted once, are dealt
    // out in ascending order: a group's first node met is its lowest, so
    // the pieces come out ordered by lowest node, each with its nodes
    // ascending, with no sort per piece or of the pieces.
    let searches = scratch.parent.len();
    scratch.piece.resize(searches, u32::MAX);
    let mut closed = std::mem::take(&mut scratch.closed);
    closed.clear();
    for r in 0..scratch.reached_nodes.len() {
        let n = scratch.reached_nodes[r].0 as usize;
        let root = scratch.find(scratch.owner[n]);
        // The root itself from here on (a root is its own parent, so
        // `find` and `piece_of` still answer the same).
        scratch.owner[n] = root;
        if scratch.live[root as usize] == 0 {
            closed.push(n as u32);
        }
    }
    closed.sort_unstable();
    for &n in &closed {
        let root = scratch.owner[n as usize] as usize;
        if scratch.piece[root] == u32::MAX {
            scratch.piece[root] = (out.len() - first) as u32;
            out.push(Island {
                nodes: crate::Members::new(),
                supported: false,
            });
        }
        out[first + scratch.piece[root] as usize]
            .nodes
            .push(ChunkIndex(n));
    }
    scratch.closed = closed;
    if open_groups == 1 || out.len() == first {
        return Remainder::Open;
    }
    // Every group closed (or there were no seeds): the largest piece stays.
    let best = out[first..]
        .iter()
        .enumerate()
        .max_by(|(i, a), (j, b)| a.nodes.len().cmp(&b.nodes.len()).then(j.cmp(i)))
        .map_or(0, |(i, _)| i);
    Remainder::Piece(best)
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
                nodes: smallvec::smallvec![ChunkIndex(0), ChunkIndex(1), ChunkIndex(2)],
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
                    nodes: smallvec::smallvec![ChunkIndex(0), ChunkIndex(1)],
                    supported: true
                },
                Island {
                    nodes: smallvec::smallvec![ChunkIndex(2)],
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
    fn the_side_still_open_when_the_others_closed_is_the_remainder_even_a_lone_chunk() {
        // Which piece keeps the cluster's handle decides which body a
        // physics backend keeps, so it must not drift between builds: the
        // searches take turns in seed order and stop when one side is left
        // open. Both chunks of a broken pair are lone chunks; the first
        // seed's closes first, the second stays open.
        let asset = chain(2, &[(0, 1)], &[]);
        let (mut scratch, mut out) = (SplitScratch::default(), Vec::new());
        for (first, second) in [(0, 1), (1, 0)] {
            out.clear();
            let seeds = [ChunkIndex(first), ChunkIndex(second)];
            let rest = find_departed(&asset, &[0.0], &seeds, &mut scratch, &mut out);
            assert_eq!(rest, Remainder::Open, "seeds {seeds:?}");
            assert_eq!(out.len(), 1, "seeds {seeds:?}");
            assert_eq!(out[0].nodes[..], [ChunkIndex(first)], "seeds {seeds:?}");
        }
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
