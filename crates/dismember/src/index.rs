//! Typed dense indices into a validated [`crate::BodyModel`].
//!
//! Every index is a `u32` wrapper valid for the lifetime of the model it came
//! from; a bone index cannot be passed where a region index is expected.

use serde::{Deserialize, Serialize};

macro_rules! typed_index {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(
            Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
        )]
        #[repr(transparent)]
        pub struct $name(pub(crate) u32);

        impl $name {
            /// The raw position in the model's table.
            pub fn get(self) -> u32 {
                self.0
            }

            /// The position as a `usize`, for indexing dense per-item tables.
            pub(crate) fn ix(self) -> usize {
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
    /// A bone of the body model (an animation bone that is also a damage node).
    BoneIndex
);
typed_index!(
    /// A body region (element): Head, Torso, ArmLeft, …
    RegionIndex
);
typed_index!(
    /// A visual recipe (what to hide, which patches, which gib).
    RecipeIndex
);
typed_index!(
    /// A helper volume attached to a bone.
    HelperIndex
);
typed_index!(
    /// A virtual damage location (a wound place without an animation bone).
    VirtualLocationIndex
);
typed_index!(
    /// An indirect candidate (e.g. the waist cut) selected by helper volume and plane angle.
    IndirectCandidateIndex
);
typed_index!(
    /// A persistent appearance mask (e.g. the blood mask).
    MaskIndex
);
