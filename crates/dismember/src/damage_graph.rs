//! The damage graph: which damage nodes hang on which (seed §1.3).
//!
//! `damageParents[neck] = { l_clavicle, r_clavicle }`: a node may have several
//! damage parents, so this is a directed acyclic graph, not the skeleton tree.
//! Detachment follows it: a node goes with a cut only when **all** of its
//! damage parents go (or are already gone). Cutting the left clavicle
//! therefore does not take the head while the right clavicle still holds the
//! neck.
//!
//! Storage is CSR (`offsets.len() == bone_count + 1`) for parents and for
//! children; sets of bones are 64-bit [`BoneMask`]s (one bit per bone).

use crate::error::BodyModelError;
use crate::index::BoneIndex;

/// A set of bones, bit `i` for [`BoneIndex`] `i` (models have ≤ 64 bones).
pub type BoneMask = u64;

/// The bit of one bone in a [`BoneMask`].
pub fn bone_bit(b: BoneIndex) -> BoneMask {
    1u64 << (b.get() & 63)
}

/// A validated damage graph.
///
/// # Invariants
/// Acyclic; [`DamageGraph::topological_order`] lists every node once, each
/// after all of its damage parents (ties by lower index first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DamageGraph {
    parent_offsets: Vec<u32>,
    parents: Vec<BoneIndex>,
    child_offsets: Vec<u32>,
    children: Vec<BoneIndex>,
    order: Vec<BoneIndex>,
}

impl DamageGraph {
    /// Builds the graph from each node's damage-parent list.
    ///
    /// # Errors
    /// [`BodyModelError::DamageCycle`] naming a node on a cycle.
    pub(crate) fn new(
        parent_lists: &[Vec<BoneIndex>],
        name: impl Fn(usize) -> String,
    ) -> Result<Self, BodyModelError> {
        let n = parent_lists.len();
        let mut parent_offsets = Vec::with_capacity(n + 1);
        let mut parents = Vec::new();
        parent_offsets.push(0);
        for list in parent_lists {
            parents.extend_from_slice(list);
            parent_offsets.push(parents.len() as u32);
        }
        let mut child_count = vec![0u32; n];
        for &p in &parents {
            child_count[p.ix()] += 1;
        }
        let mut child_offsets = Vec::with_capacity(n + 1);
        child_offsets.push(0u32);
        for c in &child_count {
            let last = child_offsets[child_offsets.len() - 1];
            child_offsets.push(last + c);
        }
        let mut fill = child_offsets.clone();
        let mut children = vec![BoneIndex(0); parents.len()];
        for (child, list) in parent_lists.iter().enumerate() {
            for &p in list {
                children[fill[p.ix()] as usize] = BoneIndex(child as u32);
                fill[p.ix()] += 1;
            }
        }
        // Kahn's algorithm, always taking the lowest ready index: deterministic.
        let mut indegree: Vec<u32> = parent_lists.iter().map(|l| l.len() as u32).collect();
        let mut ready: std::collections::BTreeSet<u32> = (0..n as u32)
            .filter(|&i| indegree[i as usize] == 0)
            .collect();
        let mut order = Vec::with_capacity(n);
        while let Some(b) = ready.pop_first() {
            order.push(BoneIndex(b));
            let (s, e) = (child_offsets[b as usize], child_offsets[b as usize + 1]);
            for &c in &children[s as usize..e as usize] {
                indegree[c.ix()] -= 1;
                if indegree[c.ix()] == 0 {
                    ready.insert(c.get());
                }
            }
        }
        if order.len() != n {
            let stuck = indegree.iter().position(|&d| d > 0).unwrap_or(0);
            return Err(BodyModelError::DamageCycle { bone: name(stuck) });
        }
        Ok(Self {
            parent_offsets,
            parents,
            child_offsets,
            children,
            order,
        })
    }

    /// Number of nodes (one per bone).
    pub fn node_count(&self) -> usize {
        self.parent_offsets.len() - 1
    }

    /// Damage parents of `b` (empty for a damage root or out of range).
    pub fn parents(&self, b: BoneIndex) -> &[BoneIndex] {
        match (
            self.parent_offsets.get(b.ix()),
            self.parent_offsets.get(b.ix() + 1),
        ) {
            (Some(&s), Some(&e)) => &self.parents[s as usize..e as usize],
            _ => &[],
        }
    }

    /// Damage children of `b` (empty for a leaf or out of range).
    pub fn children(&self, b: BoneIndex) -> &[BoneIndex] {
        match (
            self.child_offsets.get(b.ix()),
            self.child_offsets.get(b.ix() + 1),
        ) {
            (Some(&s), Some(&e)) => &self.children[s as usize..e as usize],
            _ => &[],
        }
    }

    /// Every node once, after all its damage parents.
    pub fn topological_order(&self) -> &[BoneIndex] {
        &self.order
    }

    /// The nodes that leave the body when `root` is cut, given the nodes still
    /// `present`: `root` itself (if present) and every present node that has
    /// at least one leaving damage parent and whose damage parents all either
    /// leave or are already gone. Empty when `root` is not present or out of
    /// range. O(V + E).
    ///
    /// With everything present, cutting `l_clavicle` leaves the neck (still
    /// held by `r_clavicle`); once `r_clavicle` is gone, cutting `l_clavicle`
    /// takes the neck and the head.
    pub fn detached_subtree(&self, root: BoneIndex, present: BoneMask) -> BoneMask {
        if root.ix() >= self.node_count() || present & bone_bit(root) == 0 {
            return 0;
        }
        let mut going = bone_bit(root);
        for &b in &self.order {
            let bit = bone_bit(b);
            if b == root || present & bit == 0 {
                continue;
            }
            let parents = self.parents(b);
            let any_going = parents.iter().any(|&p| going & bone_bit(p) != 0);
            let all_gone = parents
                .iter()
                .all(|&p| going & bone_bit(p) != 0 || present & bone_bit(p) == 0);
            if any_going && all_gone {
                going |= bit;
            }
        }
        going
    }

    /// [`DamageGraph::detached_subtree`] of an intact body: the damage
    /// descendants of `root`, including itself.
    pub fn descendants(&self, root: BoneIndex) -> BoneMask {
        let all = if self.node_count() >= 64 {
            u64::MAX
        } else {
            (1u64 << self.node_count()) - 1
        };
        self.detached_subtree(root, all)
    }
}
