//! Typed indices into immutable asset data and a vector that only accepts them.
//!
//! Indices are dense `u32`s (half the footprint of `usize`, the same on every
//! platform). A [`ChunkIndex`] cannot be passed where a [`BondIndex`] is
//! expected; [`IndexVec`] makes `chunks[i]` accept only the right kind.

use serde::{Deserialize, Serialize};
use std::marker::PhantomData;

/// A dense index type usable as the key of an [`IndexVec`].
pub trait Idx: Copy + Ord {
    /// Builds the index from a position. Positions come from `IndexVec`
    /// iteration and asset validation, which bound them by `u32::MAX`.
    fn from_usize(i: usize) -> Self;
    /// The position this index refers to.
    fn index(self) -> usize;
}

macro_rules! typed_index {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[repr(transparent)]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The raw `u32` value.
            #[inline]
            pub const fn get(self) -> u32 {
                self.0
            }
        }

        impl Idx for $name {
            #[inline]
            fn from_usize(i: usize) -> Self {
                debug_assert!(i <= u32::MAX as usize);
                Self(i as u32)
            }
            #[inline]
            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

typed_index!(
    /// Index of a chunk in [`crate::Asset::chunks`]. Chunks are also the nodes
    /// of the support graph. Valid for the lifetime of its asset.
    ChunkIndex
);
typed_index!(
    /// Index of a bond in [`crate::Asset::bonds`]. Valid for the lifetime of its asset.
    BondIndex
);

/// A `Vec<T>` indexed by a typed index `I`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct IndexVec<I, T> {
    raw: Vec<T>,
    #[serde(skip)]
    _marker: PhantomData<fn(I)>,
}

impl<I, T> Default for IndexVec<I, T> {
    fn default() -> Self {
        Self {
            raw: Vec::new(),
            _marker: PhantomData,
        }
    }
}

impl<I: Idx, T> IndexVec<I, T> {
    /// Wraps a plain vector; position `k` becomes index `I::from_usize(k)`.
    pub fn from_vec(raw: Vec<T>) -> Self {
        Self {
            raw,
            _marker: PhantomData,
        }
    }
    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.raw.len()
    }
    /// True when there are no entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }
    /// Entry at `i`, or `None` when out of range.
    #[inline]
    pub fn get(&self, i: I) -> Option<&T> {
        self.raw.get(i.index())
    }
    /// Mutable entry at `i`, or `None` when out of range.
    #[inline]
    pub fn get_mut(&mut self, i: I) -> Option<&mut T> {
        self.raw.get_mut(i.index())
    }
    /// Iterates `(index, &value)` in index order.
    pub fn iter_enumerated(&self) -> impl Iterator<Item = (I, &T)> + '_ {
        self.raw
            .iter()
            .enumerate()
            .map(|(k, v)| (I::from_usize(k), v))
    }
    /// All valid indices in order.
    pub fn indices(&self) -> impl Iterator<Item = I> + use<I, T> {
        (0..self.raw.len()).map(I::from_usize)
    }
    /// Iterates values in index order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.raw.iter()
    }
    /// The underlying slice.
    pub fn as_slice(&self) -> &[T] {
        &self.raw
    }
    /// The underlying mutable slice.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.raw
    }
    /// Appends and returns the new entry's index.
    pub fn push(&mut self, v: T) -> I {
        let i = I::from_usize(self.raw.len());
        self.raw.push(v);
        i
    }
}

impl<I: Idx, T> std::ops::Index<I> for IndexVec<I, T> {
    type Output = T;
    #[inline]
    fn index(&self, i: I) -> &T {
        &self.raw[i.index()]
    }
}

impl<I: Idx, T> std::ops::IndexMut<I> for IndexVec<I, T> {
    #[inline]
    fn index_mut(&mut self, i: I) -> &mut T {
        &mut self.raw[i.index()]
    }
}
