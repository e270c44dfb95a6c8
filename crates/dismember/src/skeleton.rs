//! The animation skeleton: a tree with one parent per bone (seed §1.3, §5.1).
//!
//! The skeleton decides how transforms compose; it is *not* the damage graph
//! ([`crate::DamageGraph`]), and detaching a limb never removes bones from it
//! (§5.1: keeping bone indices keeps existing animations working).

use crate::error::BodyModelError;
use crate::index::BoneIndex;

/// A validated skeleton tree over a model's bones.
///
/// # Invariants
/// Exactly one root; every other bone has one parent; no cycles;
/// [`Skeleton::parent_before_child`] lists every bone once, parents first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skeleton {
    parents: Vec<Option<BoneIndex>>,
    order: Vec<BoneIndex>,
}

impl Skeleton {
    /// Validates one optional parent per bone.
    ///
    /// # Errors
    /// [`BodyModelError::SkeletonRoots`] unless exactly one bone has no parent,
    /// [`BodyModelError::SkeletonCycle`] naming a bone on a parent cycle.
    pub(crate) fn new(
        parents: &[Option<BoneIndex>],
        name: impl Fn(usize) -> String,
    ) -> Result<Self, BodyModelError> {
        let n = parents.len();
        let roots = parents.iter().filter(|p| p.is_none()).count();
        if roots != 1 {
            return Err(BodyModelError::SkeletonRoots { count: roots });
        }
        // Depth-first from each bone up to a placed ancestor; a walk longer
        // than n is a cycle.
        let mut placed = vec![false; n];
        let mut order = Vec::with_capacity(n);
        let mut chain = Vec::with_capacity(n);
        for start in 0..n {
            chain.clear();
            let mut b = start;
            while !placed[b] {
                if chain.len() > n || chain.contains(&b) {
                    return Err(BodyModelError::SkeletonCycle { bone: name(b) });
                }
                chain.push(b);
                match parents[b] {
                    Some(p) => b = p.ix(),
                    None => break,
                }
            }
            for &c in chain.iter().rev() {
                if !placed[c] {
                    placed[c] = true;
                    order.push(BoneIndex(c as u32));
                }
            }
        }
        Ok(Self {
            parents: parents.to_vec(),
            order,
        })
    }

    /// The skeleton parent of `bone`; `None` for the root or an index out of range.
    pub fn parent(&self, bone: BoneIndex) -> Option<BoneIndex> {
        self.parents.get(bone.ix()).copied().flatten()
    }

    /// The root bone.
    pub fn root(&self) -> BoneIndex {
        // Validated: exactly one bone has no parent, and it comes first in the order.
        self.order[0]
    }

    /// Every bone once, each after its parent.
    pub fn parent_before_child(&self) -> &[BoneIndex] {
        &self.order
    }

    /// Whether `ancestor` is `bone` or one of its skeleton ancestors.
    pub fn is_ancestor_or_self(&self, ancestor: BoneIndex, bone: BoneIndex) -> bool {
        let mut b = Some(bone);
        while let Some(x) = b {
            if x == ancestor {
                return true;
            }
            b = self.parent(x);
        }
        false
    }
}
