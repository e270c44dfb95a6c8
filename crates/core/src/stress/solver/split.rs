//! A super-node that falls apart, split in place in the kept reduced
//! system.
//!
//! A super-node is a piece, over intact bonds, of a group of the cluster's
//! intact structure (see "Reduction" in `solver/reduced.rs`). When bonds
//! that broke since leave one super-node in several pieces, only its
//! group's super-nodes change: the group is split into its pieces again,
//! numbered from the group's first super-node as a reduction numbers them
//! (by lowest member), and every later super-node moves up by the number
//! of pieces gained. The node arrays, members, limits inside and the bonds
//! at the group's super-nodes are computed as a reduction computes them,
//! and the other bonds only change their end numbers; so the system is bit
//! for bit what reducing again builds (`kept.rs`'s test compares the whole
//! state with a fresh solver's), at the cost of the group and one pass
//! over the bonds instead of the whole cluster's grouping and bonds. The
//! hierarchy is then built again reusing the rows that stand
//! (`multilevel/rebuild.rs`), from the counterparts recorded here.

use super::{DVec3, NONE, STANDARD_GRAVITY, StressSolver};

impl StressSolver {
    /// Splits super-node `g` of the kept reduced system, which the bonds
    /// broken since left in pieces (`grouping_stands`), with its group's
    /// other super-nodes, as described in the [module docs](self). The
    /// bonds broken since stay in the bond list (`drop_broken` takes them
    /// out next).
    pub(super) fn split_super_node(&mut self, g: usize, health: &[f32]) {
        // The record for the rebuild: from a hierarchy made from these
        // bonds but those removed since, one split.
        self.split_trusted = self.hierarchy_synced;
        self.split_changed.clear();
        self.split_changed
            .extend_from_slice(&self.hierarchy_removed);
        self.hierarchy_synced = false;
        let n = self.fine_chunk.len();
        let old_count = self.chunk.len();
        let group = self.pristine_of[self.members_of(g)[0] as usize];
        let in_group = |s: &Self, k: usize| s.pristine_of[s.members_of(k)[0] as usize] == group;
        // The group's super-nodes are consecutive.
        let (mut lo, mut hi) = (g, g + 1);
        while lo > 0 && in_group(self, lo - 1) {
            lo -= 1;
        }
        while hi < old_count && in_group(self, hi) {
            hi += 1;
        }
        // The old ones by first member and size, for the counterparts.
        self.split_old.clear();
        for k in lo..hi {
            let m = self.members_of(k);
            self.split_old.push((m[0], m.len() as u32, k as u32));
        }
        // The group's pieces, numbered from `lo` by lowest member.
        let (glo, ghi) = (
            self.pristine_offsets[group as usize] as usize,
            self.pristine_offsets[group as usize + 1] as usize,
        );
        for m in glo..ghi {
            self.node_of[self.pristine_members[m] as usize] = NONE;
        }
        // `split_new` collects the pieces' members, piece after piece.
        self.split_new.clear();
        self.split_ends.clear();
        let mut next = lo as u32;
        for m in glo..ghi {
            let s = self.pristine_members[m] as usize;
            if self.node_of[s] == NONE {
                self.node_of[s] = next;
                self.search_piece(s, health);
                let start = self.split_new.len();
                self.split_new.extend(self.order.iter().copied());
                self.split_new[start..].sort_unstable();
                self.split_ends.push(self.split_new.len() as u32);
                next += 1;
            }
        }
        let pieces = next as usize - lo;
        let shift = |k: u32| -> u32 {
            if (k as usize) >= hi {
                k + pieces as u32 - (hi - lo) as u32
            } else {
                k
            }
        };
        // Later super-nodes (and the world) move up.
        for i in 0..=n {
            if i == n || self.pristine_of[i] != group {
                self.node_of[i] = shift(self.node_of[i]);
            }
        }
        // Members: the group's segment rewritten piece by piece.
        let base = self.member_offsets[lo];
        let seg = base as usize..self.member_offsets[hi] as usize;
        self.members[seg].copy_from_slice(&self.split_new);
        self.member_offsets
            .splice(lo + 1..hi + 1, self.split_ends.iter().map(|&e| base + e));
        // Node arrays and limits inside, as `reduce` computes them.
        self.split_values.clear();
        for p in 0..pieces {
            let k = lo + p;
            let values = self.super_node_values(k);
            let inner = self.inner_limit_of(k, health);
            self.split_values.push((values, inner));
        }
        let values = &self.split_values;
        self.chunk.splice(lo..hi, values.iter().map(|v| v.0.chunk));
        self.centroid
            .splice(lo..hi, values.iter().map(|v| v.0.centroid));
        self.fixed.splice(lo..hi, values.iter().map(|v| v.0.fixed));
        self.node_mass
            .splice(lo..hi, values.iter().map(|v| v.0.mass));
        self.inv_w2
            .splice(lo..hi, values.iter().map(|v| v.0.inv_w2));
        self.inv_wl2
            .splice(lo..hi, values.iter().map(|v| v.0.inv_wl2));
        self.inner_limit.splice(lo..hi, values.iter().map(|v| v.1));
        // Bonds: ends renumbered; at the group's super-nodes, made again
        // from the fine bond.
        let count = self.chunk.len() as u32;
        for e in 0..self.bonds.len() {
            let lb = self.bonds[e];
            let touches = |k: u32| (lo..hi).contains(&(k as usize));
            if !(touches(lb.a) || touches(lb.b)) {
                let lb = &mut self.bonds[e];
                lb.a = shift(lb.a);
                lb.b = shift(lb.b);
                continue;
            }
            // Every reduced bond is a fine one (`fine_ids` ascending).
            let Ok(f) = self.fine_ids.binary_search(&lb.bond.0) else {
                debug_assert!(false, "bond {} is not a fine bond", lb.bond.0);
                continue;
            };
            let [fa, fb] = self.fine_ends[f];
            let (a, b) = (self.node_of[fa as usize], self.node_of[fb as usize]);
            self.bonds[e] = self.reduced_bond(f, a, b);
            self.split_changed.push(lb.bond.0);
        }
        // Each super-node's counterpart before the split, for the
        // hierarchy's rebuild.
        self.old_of.clear();
        for k in 0..=count as usize {
            let old = if k < lo {
                k as u32
            } else if k >= lo + pieces {
                (k + (hi - lo) - pieces) as u32
            } else {
                let m = self.members_of(k);
                self.split_old
                    .iter()
                    .find(|o| o.0 == m[0] && o.1 == m.len() as u32)
                    .map_or(NONE, |o| o.2)
            };
            self.old_of.push(old);
        }
        self.regrouped = true;
        self.kx_valid = false;
        #[cfg(test)]
        {
            self.splits += 1;
        }
    }

    /// Fine bond `f` between super-nodes `a` and `b` (`b` the world when
    /// it is `chunk.len()`), its arms from their centres: the one
    /// computation `reduce` and the split use, so both give the same bits.
    pub(super) fn reduced_bond(&self, f: usize, a: u32, b: u32) -> super::LocalBond {
        let mut lb = self.fine_bonds[f];
        let p = self.fine_centroid[lb.a as usize] + lb.ra;
        lb.ra = p - self.centroid[a as usize];
        if (b as usize) != self.chunk.len() {
            lb.rb = p - self.centroid[b as usize];
        }
        lb.a = a;
        lb.b = b;
        lb
    }

    /// Super-node `k`'s node values from its members (`members_of(k)`),
    /// summed in ascending member order: the one computation `reduce` and
    /// the split use, so both give the same bits.
    pub(super) fn super_node_values(&self, k: usize) -> SuperNode {
        let members = self.members_of(k);
        if let [i] = *members {
            // One chunk: its own values, those `gather_nodes` takes (the
            // sums below from zero give them bit for bit; a refined round
            // has thousands of these, and each cube root cost about 130
            // instructions).
            let i = i as usize;
            let c = self.fine_chunk[i].0 as usize;
            let one = SuperNode {
                chunk: self.fine_chunk[i],
                centroid: self.fine_centroid[i],
                fixed: self.fine_fixed[i],
                mass: self.fine_mass[i],
                inv_w2: self.chunk_inv_w2[c],
                inv_wl2: self.chunk_inv_wl2[c],
            };
            debug_assert!(
                one.same_bits(&self.summed_values(members)),
                "a one-chunk super-node's values are not its sums'"
            );
            return one;
        }
        self.summed_values(members)
    }

    /// [`Self::super_node_values`] summed over `members` (not empty).
    fn summed_values(&self, members: &[u32]) -> SuperNode {
        let (mut mass, mut volume, mut moment) = (0.0, 0.0, DVec3::ZERO);
        for &i in members {
            let i = i as usize;
            mass += self.fine_mass[i];
            volume += self.chunk_volume[self.fine_chunk[i].0 as usize];
            moment += self.fine_mass[i] * self.fine_centroid[i];
        }
        let first = members[0] as usize;
        let w = mass * STANDARD_GRAVITY;
        SuperNode {
            chunk: self.fine_chunk[first],
            centroid: if members.len() == 1 {
                self.fine_centroid[first]
            } else {
                moment / mass
            },
            fixed: members.len() == 1 && self.fine_fixed[first],
            mass,
            inv_w2: w.powi(-2),
            inv_wl2: (w * volume.cbrt()).powi(-2),
        }
    }
}

/// A super-node's entries in the node arrays.
#[derive(Copy, Clone, Debug)]
pub(super) struct SuperNode {
    pub(super) chunk: crate::index::ChunkIndex,
    pub(super) centroid: DVec3,
    pub(super) fixed: bool,
    pub(super) mass: f64,
    pub(super) inv_w2: f64,
    pub(super) inv_wl2: f64,
}

impl SuperNode {
    /// Equal bit for bit.
    fn same_bits(&self, o: &Self) -> bool {
        let bits = |v: &Self| {
            let c = v.centroid.to_array().map(f64::to_bits);
            (
                v.chunk,
                c,
                v.fixed,
                [v.mass, v.inv_w2, v.inv_wl2].map(f64::to_bits),
            )
        };
        bits(self) == bits(o)
    }
}
