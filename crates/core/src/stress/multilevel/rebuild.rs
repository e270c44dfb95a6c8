//! A hierarchy built again for a system whose nodes changed in part,
//! reusing the level-1 rows that stand.
//!
//! When a reduced solve's super-nodes change (one falls apart and is split
//! in place, the fine system is grouped again, or a refinement round
//! splits super-nodes into chunks), most keep their members, so most rows
//! of the assembled level 1 are what they were, under other row numbers;
//! and when bonds broke that [`Multilevel::update`] cannot take (a row
//! would meet its neighbours in another order), every super-node is its
//! own counterpart. A row is
//! the sum of its bonds' blocks in bond order, with arms from the centres
//! of its node and of the node at each bond's other end; so a new row whose
//! node has an old counterpart (the caller's hint) with the same centre and
//! fixedness, and whose bonds are the old row's, bond for bond (the same
//! springs, arms and normal, the other end the counterpart of the old
//! one), is the old row, block for block: it is copied, with its inverse
//! and single-precision blocks, and only the other rows are summed from
//! their bonds. Every condition is checked here, so a wrong or stale hint
//! costs time, never bits. One: the bond lists are compared only when the
//! caller keeps no record of the bonds that changed; a super-node's split
//! keeps one (the bonds it remade and those taken out since the hierarchy
//! was made), and then only the rows at those bonds' ends are marked (on
//! the reduced 100 × 50 × 2 wall, 0.05 ms less per split). The levels past level 1 are aggregated as
//! [`Multilevel::build`] does (their aggregates follow the new numbering);
//! a row of theirs whose aggregate has the same members (rows that stood,
//! in the same order) and centre as an old one, and whose own and whose
//! members' neighbours lie in the counterparts of the old aggregates, slot
//! for slot, is the old row too and is copied
//! ([`Multilevel::assemble_galerkin_reusing`]); the others are summed
//! (`Pᵀ A P`). So the hierarchy is bit for bit a build's, level by level
//! (`a_rebuilt_hierarchy_is_bit_for_bit_a_built_one`,
//! `a_split_copies_most_of_the_coarser_levels`). On the reduced
//! 100 × 50 × 2 wall, level 1 takes 0.41 ms of a 0.57 ms build, and about
//! 0.14 ms rebuilt; the coarser levels (about 60 rows) about 0.1 ms
//! built, and 0.03–0.06 ms rebuilt when a super-node falls apart (most of
//! their rows are copied; the greedy aggregation sometimes forms the
//! aggregates past the split differently, and then fewer).

use super::{
    Block, Block32, Coarse, Multilevel, add_bonds_to_rows, add_galerkin_row, galerkin_pattern,
};
use crate::stress::solver::{LocalBond, NONE};
use glam::DVec3;

/// The system a hierarchy was built from, kept aside while it is built
/// again for the next one ([`Multilevel::rebuild`]).
#[derive(Clone, Debug, Default)]
pub(super) struct Previous {
    centroid: Vec<DVec3>,
    fixed: Vec<bool>,
    bonds: Vec<LocalBond>,
    /// Node → level-1 row (`NONE` for fixed nodes).
    coarse_of: Vec<u32>,
    level: Coarse,
    /// The caller's record of the bonds that changed, if it gave one.
    trusted: bool,
    changed: Vec<u32>,
    /// The coarser levels (2, 3, …) and the count of levels in use.
    levels: Vec<Coarse>,
    used: usize,
    /// Scratch: per new node, it stands as its old counterpart (centre and
    /// fixedness); per old node, its new counterpart; per new level-1 row,
    /// the old row it copies (`NONE`: summed again).
    same: Vec<bool>,
    new_of: Vec<u32>,
    row_old: Vec<u32>,
    /// The same for the rows of a coarser level (`row_old_up`, and the
    /// level above's being made), and per aggregate of the level above its
    /// old counterpart (same members in the same order, same centre).
    row_old_up: Vec<u32>,
    row_old_next: Vec<u32>,
    aggregate_old: Vec<u32>,
    /// Rows of the coarser levels copied by the last rebuild.
    pub(super) copied_above: usize,
}

/// Bit for bit the same bond apart from its end numbers.
#[inline]
fn same_bond(a: &LocalBond, b: &LocalBond) -> bool {
    let v = |x: DVec3, y: DVec3| {
        x.x.to_bits() == y.x.to_bits()
            && x.y.to_bits() == y.y.to_bits()
            && x.z.to_bits() == y.z.to_bits()
    };
    a.bond == b.bond
        && v(a.ra, b.ra)
        && v(a.rb, b.rb)
        && v(a.normal, b.normal)
        && a.kn.to_bits() == b.kn.to_bits()
        && a.ks.to_bits() == b.ks.to_bits()
        && a.kb.to_bits() == b.kb.to_bits()
        && a.kt.to_bits() == b.kt.to_bits()
}

fn same_point(a: DVec3, b: DVec3) -> bool {
    a.to_array().map(f64::to_bits) == b.to_array().map(f64::to_bits)
}

impl Multilevel {
    /// [`Multilevel::build`] over `centroid`, `fixed` and `bonds`, reusing
    /// the level-1 rows of the hierarchy standing (see the
    /// [module docs](self)). `old_of` gives each node (`n + 1`, the last
    /// the world) the node of the system the hierarchy was built from that
    /// it may stand for, or `NONE`. The bonds of both systems must be in
    /// ascending bond order (a reduced system's are); otherwise, or
    /// without an assembled hierarchy standing, this is a build.
    ///
    /// With `changed` (bond indices, ascending), the caller vouches that
    /// both systems' bonds are in ascending order and that every bond not
    /// named there is in both, the same but for its ends, which `old_of`
    /// maps (the record a super-node's split keeps, see
    /// `StressSolver::split_changed`): the rows at the named bonds' ends and
    /// around the nodes that do not stand are summed again, without
    /// comparing the bond lists.
    pub(crate) fn rebuild(
        &mut self,
        centroid: &[DVec3],
        fixed: &[bool],
        bonds: &[LocalBond],
        old_of: &[u32],
        changed: Option<&[u32]>,
    ) {
        self.start_rebuild(centroid, fixed, bonds, old_of, changed, 1);
        self.finish_build(bonds, Some(old_of));
    }

    /// [`Self::rebuild`]'s first piece ([`super::build`]): sets the
    /// hierarchy standing aside when it can serve, and starts the build;
    /// the pieces left take the same `old_of`, each in `parts` parts (see
    /// Parts in [`super::build`]).
    pub(crate) fn start_rebuild(
        &mut self,
        centroid: &[DVec3],
        fixed: &[bool],
        bonds: &[LocalBond],
        old_of: &[u32],
        changed: Option<&[u32]>,
        parts: u32,
    ) {
        self.changes += 1;
        let usable = self.built
            && self.assembled
            && !self.direct
            && self.used >= 1
            && old_of.len() == centroid.len()
            && (changed.is_some() || (ascending(bonds) && ascending(&self.fine.bonds)));
        if !usable {
            self.start_build(centroid, fixed, bonds, false, parts);
            return;
        }
        let prev = &mut self.prev;
        std::mem::swap(&mut self.fine.centroid, &mut prev.centroid);
        std::mem::swap(&mut self.fine.fixed, &mut prev.fixed);
        std::mem::swap(&mut self.fine.bonds, &mut prev.bonds);
        std::mem::swap(&mut self.fine.coarse_of, &mut prev.coarse_of);
        std::mem::swap(&mut self.coarse[0], &mut prev.level);
        prev.changed.clear();
        prev.trusted = changed.is_some();
        prev.changed.extend_from_slice(changed.unwrap_or_default());
        prev.used = self.used;
        for l in 1..self.used {
            if prev.levels.len() < l {
                prev.levels.push(Coarse::default());
            }
            std::mem::swap(&mut self.coarse[l], &mut prev.levels[l - 1]);
        }
        prev.copied_above = 0;
        self.start_build(centroid, fixed, bonds, true, parts);
    }

    /// Grows the buffers [`Self::rebuild`] sets aside to the capacity of
    /// those in use, and those in use to theirs: the two sets take turns,
    /// so with both as large as either has been, a steady state allocates
    /// nothing whichever turn a system falls on, nor does the first
    /// rebuild after a build. Run after every build of an assembled level,
    /// whole or in its [`BALANCE_PARTS`] parts in order
    /// ([`Self::balance_buffers_part`]).
    pub(super) fn balance_buffers(&mut self) {
        for part in 0..BALANCE_PARTS {
            self.balance_buffers_part(part);
        }
    }

    /// Part `part` of [`Self::balance_buffers`]: the fine level's node
    /// arrays; its bonds; level 1's buffers but its off-diagonal blocks;
    /// those blocks. (In one go, grown, it took up to 2.2 ms on the
    /// 100 × 50 × 2 wall, 1.4 of it the bonds.)
    pub(super) fn balance_buffers_part(&mut self, part: usize) {
        let (fine, prev) = (&mut self.fine, &mut self.prev);
        match part {
            0 => {
                reserve_pair(&mut prev.centroid, &mut fine.centroid);
                reserve_pair(&mut prev.fixed, &mut fine.fixed);
                reserve_pair(&mut prev.coarse_of, &mut fine.coarse_of);
                let nodes = fine.centroid.capacity();
                prev.same
                    .reserve_exact(nodes.saturating_sub(prev.same.len()));
                prev.new_of
                    .reserve_exact(nodes.saturating_sub(prev.new_of.len()));
            }
            1 => grow_pair_spent(&mut prev.bonds, &mut fine.bonds),
            2 => {
                if let Some(level) = self.coarse.first_mut() {
                    prev.level.reserve_pair_but_off(level);
                    let rows = level.diag.capacity();
                    prev.row_old
                        .reserve(rows.saturating_sub(prev.row_old.len()));
                }
            }
            _ => {
                if let Some(level) = self.coarse.first_mut() {
                    prev.level.grow_pair_off_spent(level);
                }
            }
        }
    }

    /// [`Self::balance_buffers`] for the coarser levels, once built: each
    /// against the level a rebuild sets aside in its place.
    pub(super) fn balance_levels(&mut self) {
        let prev = &mut self.prev;
        for l in 1..self.used {
            if prev.levels.len() < l {
                prev.levels.push(Coarse::default());
            }
            prev.levels[l - 1].reserve_pair(&mut self.coarse[l]);
            let rows = self.coarse[l].diag.capacity();
            for v in [
                &mut prev.row_old_up,
                &mut prev.row_old_next,
                &mut prev.aggregate_old,
            ] {
                v.reserve(rows.saturating_sub(v.len()));
            }
        }
    }

    /// Level `l + 1` (`count` aggregates of level `l`'s rows) as
    /// [`Self::assemble_galerkin`] makes it, copying each row that stands
    /// from the level it replaces: a row whose aggregate has an old
    /// counterpart (the same members, rows of level `l` that stood, in the
    /// same order, and the same centre), whose neighbours are the
    /// counterparts' slot for slot, and whose members' neighbours lie in
    /// aggregates that are the counterparts of the old ones, slot for slot,
    /// is summed from the same blocks with the same arms in the same
    /// order: it is the old row, block for block. False (nothing done)
    /// when the hierarchy set aside has no such level.
    pub(super) fn assemble_galerkin_reusing(&mut self, l: usize, count: usize) -> bool {
        let prev = &mut self.prev;
        if l + 1 >= prev.used {
            return false;
        }
        let (head, tail) = self.coarse.split_at_mut(l + 1);
        let (lv, next) = (&head[l], &mut tail[0]);
        let (old_lv, old_next) = if l == 0 {
            (&prev.level, &prev.levels[0])
        } else {
            (&prev.levels[l - 1], &prev.levels[l])
        };
        let lower: &[u32] = if l == 0 {
            &prev.row_old
        } else {
            &prev.row_old_up
        };
        next.set_members(&lv.coarse_of, &lv.centroid, count);
        // Each aggregate's counterpart: the old aggregate of its first
        // member that stood, if it has the same centre (and no other
        // aggregate claims it).
        let aggregate_old = &mut prev.aggregate_old;
        aggregate_old.clear();
        let claimed = &mut prev.row_old_next;
        claimed.clear();
        claimed.resize(old_next.len(), NONE);
        for c in 0..count {
            let members =
                &next.members[next.member_offsets[c] as usize..next.member_offsets[c + 1] as usize];
            let co = members
                .iter()
                .map(|&i| lower[i as usize])
                .find(|&o| o != NONE)
                .map_or(NONE, |o| old_lv.coarse_of[o as usize]);
            let co = if co != NONE && same_point(next.centroid[c], old_next.centroid[co as usize]) {
                if claimed[co as usize] == NONE {
                    claimed[co as usize] = c as u32;
                    co
                } else {
                    // Two for one: neither.
                    let other = claimed[co as usize] as usize;
                    aggregate_old[other] = NONE;
                    NONE
                }
            } else {
                NONE
            };
            aggregate_old.push(co);
        }
        // The pattern, as `assemble_galerkin` makes it.
        let marker = &mut self.marker;
        galerkin_pattern(lv, next, marker);
        // The rows that stand: the same members, rows that stood, in the
        // same order; their neighbours' aggregates and the row's own
        // neighbours the counterparts of the old ones, slot for slot.
        let up = &mut prev.row_old_next;
        up.clear();
        for c in 0..count {
            let co = aggregate_old[c];
            let stands = co != NONE
                && {
                    let members = &next.members
                        [next.member_offsets[c] as usize..next.member_offsets[c + 1] as usize];
                    let (lo, hi) = (
                        old_next.member_offsets[co as usize] as usize,
                        old_next.member_offsets[co as usize + 1] as usize,
                    );
                    hi - lo == members.len()
                        && members
                            .iter()
                            .zip(&old_next.members[lo..hi])
                            .all(|(&i, &o)| lower[i as usize] == o)
                }
                && {
                    let (range, old_range) = (next.neighbours(c), old_next.neighbours(co as usize));
                    range.len() == old_range.len()
                        && next.col[range]
                            .iter()
                            .zip(&old_next.col[old_range])
                            .all(|(&cj, &oj)| aggregate_old[cj as usize] == oj)
                        && next.members
                            [next.member_offsets[c] as usize..next.member_offsets[c + 1] as usize]
                            .iter()
                            .all(|&i| {
                                let o = lower[i as usize] as usize;
                                let (range, old_range) =
                                    (lv.neighbours(i as usize), old_lv.neighbours(o));
                                range.len() == old_range.len()
                                    && lv.col[range].iter().zip(&old_lv.col[old_range]).all(
                                        |(&j, &oj)| {
                                            aggregate_old[lv.coarse_of[j as usize] as usize]
                                                == old_lv.coarse_of[oj as usize]
                                        },
                                    )
                            })
                };
            up.push(if stands { co } else { NONE });
        }
        // The blocks in row order: copied, or zero then summed.
        prev.copied_above += next.copy_rows(old_next, up);
        self.touched.clear();
        self.touched.extend(up.iter().map(|&co| co == NONE));
        for c in (0..count).filter(|&c| self.touched[c]) {
            for slot in next.neighbours(c) {
                marker[next.col[slot] as usize] = slot as u32;
            }
            add_galerkin_row(lv, next, c, marker);
        }
        next.finish_rows(&self.touched);
        next.finish_pattern();
        std::mem::swap(&mut prev.row_old_up, &mut prev.row_old_next);
        true
    }

    /// Level 1 of an assembled system (identity aggregates, `count` rows),
    /// copying the rows that stand from the previous level 1 (see the
    /// [module docs](self)), but for the inverse and single-precision
    /// blocks of the rows summed and the row split
    /// ([`Self::finish_reusing`], a later piece of the build).
    pub(super) fn sum_reusing(&mut self, count: usize, old_of: &[u32]) {
        self.assemble_pattern(count);
        let (fine, prev, next) = (&self.fine, &mut self.prev, &mut self.coarse[0]);
        let old_len = prev.centroid.len();
        // Nodes standing as their counterparts, one to one.
        prev.same.clear();
        prev.new_of.clear();
        prev.new_of.resize(old_len, NONE);
        // (`old_of` has one entry per node, checked by `rebuild`.)
        for (i, &o) in old_of.iter().enumerate() {
            let o = o as usize;
            let same = o < old_len
                && prev.fixed[o] == fine.fixed[i]
                && same_point(prev.centroid[o], fine.centroid[i]);
            prev.same.push(same);
            if same {
                if prev.new_of[o] == NONE {
                    prev.new_of[o] = i as u32;
                } else {
                    // Two nodes for one: neither stands.
                    prev.same[i] = false;
                    prev.same[prev.new_of[o] as usize] = false;
                }
            }
        }
        self.touched.clear();
        self.touched.resize(count, false);
        let touched = &mut self.touched;
        let mut mark = |node: u32| {
            if node != NONE {
                let c = fine.coarse_of[node as usize];
                if c != NONE {
                    touched[c as usize] = true;
                }
            }
        };
        for i in 0..fine.len() {
            if !prev.same[i] {
                mark(i as u32);
            }
        }
        // A node's counterpart, if it stands.
        let new_of = |o: u32| {
            let i = prev.new_of[o as usize];
            if i != NONE && prev.same[i as usize] {
                i
            } else {
                NONE
            }
        };
        if prev.trusted {
            // The caller's record (see `rebuild`): the rows at the ends of
            // the bonds it names, in either system. Every other bond is the
            // same block between the counterparts of its old ends, so a row
            // it reaches changes only where its node does not stand (marked
            // above) or its neighbours change (a node turned fixed leaves
            // the pattern), which the slot-for-slot check below finds.
            for &id in &prev.changed {
                if let Ok(e) = fine.bonds.binary_search_by_key(&id, |lb| lb.bond.0) {
                    mark(fine.bonds[e].a);
                    mark(fine.bonds[e].b);
                }
                if let Ok(e) = prev.bonds.binary_search_by_key(&id, |lb| lb.bond.0) {
                    mark(new_of(prev.bonds[e].a));
                    mark(new_of(prev.bonds[e].b));
                }
            }
        }
        // The bonds that differ mark the rows at their ends (both systems
        // in ascending bond order).
        let (nb, ob) = if prev.trusted {
            (&fine.bonds[..0], &prev.bonds[..0])
        } else {
            (&fine.bonds[..], &prev.bonds[..])
        };
        let (mut i, mut j) = (0, 0);
        loop {
            let order = match (nb.get(i), ob.get(j)) {
                (Some(n), Some(o)) => n.bond.0.cmp(&o.bond.0),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => break,
            };
            match order {
                std::cmp::Ordering::Equal => {
                    let (n, o) = (&nb[i], &ob[j]);
                    let stands = prev.same[n.a as usize]
                        && prev.same[n.b as usize]
                        && old_of[n.a as usize] == o.a
                        && old_of[n.b as usize] == o.b
                        && same_bond(n, o);
                    if !stands {
                        mark(n.a);
                        mark(n.b);
                        mark(new_of(o.a));
                        mark(new_of(o.b));
                    }
                    i += 1;
                    j += 1;
                }
                std::cmp::Ordering::Less => {
                    mark(nb[i].a);
                    mark(nb[i].b);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    mark(new_of(ob[j].a));
                    mark(new_of(ob[j].b));
                    j += 1;
                }
            }
        }
        // A row that stands meets the same neighbours, slot for slot.
        let old_level = &prev.level;
        let row_of_old = |o: u32| prev.coarse_of.get(o as usize).copied().unwrap_or(NONE);
        prev.row_old.clear();
        prev.row_old.resize(count, NONE);
        for c in 0..count {
            if self.touched[c] {
                continue;
            }
            let node = next.members[next.member_offsets[c] as usize];
            let co = row_of_old(old_of[node as usize]);
            if co == NONE {
                self.touched[c] = true;
                continue;
            }
            let (range, old_range) = (next.neighbours(c), old_level.neighbours(co as usize));
            let stands = range.len() == old_range.len()
                && next.col[range]
                    .iter()
                    .zip(&old_level.col[old_range])
                    .all(|(&cj, &oj)| {
                        let j = next.members[next.member_offsets[cj as usize] as usize];
                        row_of_old(old_of[j as usize]) == oj
                    });
            if stands {
                prev.row_old[c] = co;
            } else {
                self.touched[c] = true;
            }
        }
        // The blocks in row order, each written once: the rows that stand
        // copied (with their inverse and single-precision blocks), the
        // others zero, then summed from their bonds in bond order as
        // `assemble_from_bonds` does.
        next.copy_rows(old_level, &prev.row_old);
        add_bonds_to_rows(fine, next, &self.touched);
    }

    /// The rest of level 1 after [`Self::sum_reusing`]: the inverse and
    /// single-precision blocks of the rows it summed, and the row split.
    pub(super) fn finish_reusing(&mut self) {
        let next = &mut self.coarse[0];
        next.finish_rows(&self.touched);
        next.finish_pattern();
    }
}

impl Coarse {
    /// The blocks of a level whose pattern is made, in row order: row `c`
    /// copied from row `row_old[c]` of `old`, with its inverse and
    /// single-precision blocks, or zero where that is `NONE` (to be
    /// summed). Returns the count of rows copied.
    fn copy_rows(&mut self, old: &Coarse, row_old: &[u32]) -> usize {
        let zero32 = Block32::of(&Block::ZERO);
        self.diag.clear();
        self.inv.clear();
        self.diag32.clear();
        self.inv32.clear();
        self.off.clear();
        self.off32.clear();
        let mut copied = 0;
        for (c, &co) in row_old.iter().enumerate() {
            if co == NONE {
                let len = self.neighbours(c).len();
                self.diag.push(Block::ZERO);
                self.inv.push(Block::ZERO);
                self.diag32.push(zero32);
                self.inv32.push(zero32);
                self.off.resize(self.off.len() + len, Block::ZERO);
                self.off32.resize(self.off32.len() + len, zero32);
            } else {
                let (co, old_range) = (co as usize, old.neighbours(co as usize));
                self.diag.push(old.diag[co]);
                self.inv.push(old.inv[co]);
                self.diag32.push(old.diag32[co]);
                self.inv32.push(old.inv32[co]);
                self.off.extend_from_slice(&old.off[old_range.clone()]);
                self.off32.extend_from_slice(&old.off32[old_range]);
                copied += 1;
            }
        }
        copied
    }
}

/// Grows both buffers of a pair that take turns to the same capacity: the
/// larger's, up to twice the larger one's contents (and 64 more), or, when
/// that leaves less than a sixteenth of those contents spare, room for
/// them and a quarter more (exactly that: balanced again, they stay as
/// they are), so a steady state allocates nothing whichever turn a system
/// falls on. The new memory is written once, so its pages are faulted in
/// by the build that grew it rather than by the first rebuild, and a split
/// that adds a super-node or two does not reallocate (1 ms each on the
/// reduced 100 × 50 × 2 wall). (With a quarter taken from the contents at
/// every call instead, a structure gaining one super-node at a time grew
/// both buffers by one at every split: 20–60 µs each. Without the cap,
/// the first rebuild after refined rounds grew the other set to the
/// refined system's capacity, megabytes written in one step: 6.2 ms on the
/// 100 × 50 × 2 wall failing over its gap.)
fn reserve_pair<T: Copy>(a: &mut Vec<T>, b: &mut Vec<T>) {
    let target = pair_target(a, b);
    let fill = a.first().or(b.first()).copied();
    for v in [a, b] {
        if v.capacity() < target {
            v.reserve_exact(target - v.len());
            if let Some(fill) = fill {
                let len = v.len();
                v.resize(v.capacity(), fill);
                v.truncate(len);
            }
        }
    }
}

/// [`reserve_pair`] for the largest buffers (a level's bonds and
/// off-diagonal blocks), where `spent` holds the contents of the system a
/// rebuild replaced, not needed once the build is done (the next rebuild
/// writes it from the start), and `live` those of the system standing:
/// the capacities grow by the same rule, but a grown `spent` is allocated
/// afresh, left empty, and neither is written. Moved and written, the
/// bonds' pair took 1.3–1.6 ms in one part after the 100 × 50 × 2 wall
/// fell apart (a megabyte copied, another written); fresh, the pages
/// fault in part by part as the next rebuild writes them.
fn grow_pair_spent<T: Copy>(spent: &mut Vec<T>, live: &mut Vec<T>) {
    let target = pair_target(spent, live);
    if spent.capacity() < target {
        *spent = Vec::with_capacity(target);
    }
    if live.capacity() < target {
        live.reserve_exact(target - live.len());
    }
}

/// The capacity [`reserve_pair`] gives both buffers of a pair (see there).
#[allow(clippy::ptr_arg)] // capacities, which slices do not have
fn pair_target<T>(a: &Vec<T>, b: &Vec<T>) -> usize {
    let most = a.len().max(b.len());
    let capacity = a.capacity().max(b.capacity());
    if capacity >= most + most / 16 {
        capacity.min(2 * most + 64)
    } else {
        most + most / 4
    }
}

/// The parts [`Multilevel::balance_buffers`] is taken in.
pub(super) const BALANCE_PARTS: usize = 4;

impl Coarse {
    /// [`reserve_pair`] for every buffer of two levels that take turns.
    fn reserve_pair(&mut self, other: &mut Coarse) {
        self.reserve_pair_but_off(other);
        self.reserve_pair_off(other);
    }

    /// [`Self::reserve_pair`] of the off-diagonal blocks (double and
    /// single precision), the largest buffers of a level.
    fn reserve_pair_off(&mut self, other: &mut Coarse) {
        reserve_pair(&mut self.off, &mut other.off);
        reserve_pair(&mut self.off32, &mut other.off32);
    }

    /// [`grow_pair_spent`] of the off-diagonal blocks, `self` the level set
    /// aside after a build.
    fn grow_pair_off_spent(&mut self, other: &mut Coarse) {
        grow_pair_spent(&mut self.off, &mut other.off);
        grow_pair_spent(&mut self.off32, &mut other.off32);
    }

    /// [`Self::reserve_pair`] of every other buffer.
    fn reserve_pair_but_off(&mut self, other: &mut Coarse) {
        let Coarse {
            centroid,
            diag,
            inv,
            row,
            col,
            off: _,
            met,
            upper,
            coarse_of,
            member_offsets,
            members,
            diag32,
            inv32,
            off32: _,
            r_u,
            r_t,
            z_u,
            z_t,
            t_u,
            t_t,
            w_u,
            w_t,
            v_u,
            v_t,
            s_u,
            s_t,
        } = self;
        reserve_pair(centroid, &mut other.centroid);
        reserve_pair(diag, &mut other.diag);
        reserve_pair(inv, &mut other.inv);
        reserve_pair(row, &mut other.row);
        reserve_pair(col, &mut other.col);
        reserve_pair(met, &mut other.met);
        reserve_pair(upper, &mut other.upper);
        reserve_pair(coarse_of, &mut other.coarse_of);
        reserve_pair(member_offsets, &mut other.member_offsets);
        reserve_pair(members, &mut other.members);
        reserve_pair(diag32, &mut other.diag32);
        reserve_pair(inv32, &mut other.inv32);
        for (v, o) in [
            (r_u, &mut other.r_u),
            (r_t, &mut other.r_t),
            (z_u, &mut other.z_u),
            (z_t, &mut other.z_t),
            (t_u, &mut other.t_u),
            (t_t, &mut other.t_t),
            (w_u, &mut other.w_u),
            (w_t, &mut other.w_t),
            (v_u, &mut other.v_u),
            (v_t, &mut other.v_t),
            (s_u, &mut other.s_u),
            (s_t, &mut other.s_t),
        ] {
            reserve_pair(v, o);
        }
    }
}

fn ascending(bonds: &[LocalBond]) -> bool {
    bonds.windows(2).all(|w| w[0].bond.0 < w[1].bond.0)
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::update::tests::{fresh, grid_system, signature, system};
    use super::*;
    use crate::index::BondIndex;

    /// `system()` grouped again: node `at` is split in two (the new node
    /// `at + 1`, numbered next, takes half its bonds and a new pair of
    /// bonds joins the halves), so every later node moves up by one; node
    /// `moved` gets another centre (its bonds' arms follow); past both,
    /// one bond leaves and another's springs change. Returns the new
    /// system and the true `old_of`.
    fn regrouped(at: usize, moved: usize) -> (Vec<DVec3>, Vec<bool>, Vec<LocalBond>, Vec<u32>) {
        regrouped_from(system(), at, moved, true)
    }

    /// [`regrouped`] of a given system, with the far changes or without.
    fn regrouped_from(
        (centroid, fixed, bonds): (Vec<DVec3>, Vec<bool>, Vec<LocalBond>),
        at: usize,
        moved: usize,
        far_changes: bool,
    ) -> (Vec<DVec3>, Vec<bool>, Vec<LocalBond>, Vec<u32>) {
        let n = centroid.len() - 1;
        let new_index = |i: u32| if i as usize > at { i + 1 } else { i };
        let mut c2: Vec<DVec3> = Vec::new();
        let mut f2 = Vec::new();
        let mut old_of = Vec::new();
        for i in 0..=n {
            c2.push(centroid[i]);
            f2.push(fixed[i]);
            old_of.push(if i == at || i == moved {
                NONE
            } else {
                i as u32
            });
            if i == at {
                c2.push(centroid[i] + DVec3::new(0.25, 0.0, 0.0));
                f2.push(false);
                old_of.push(NONE);
            }
        }
        let shift = DVec3::new(0.0, 0.01, 0.0);
        c2[new_index(moved as u32) as usize] += shift;
        let mut b2 = Vec::new();
        let mut half = false;
        for lb in &bonds {
            let mut nb = *lb;
            nb.a = new_index(lb.a);
            nb.b = new_index(lb.b);
            for (end, arm) in [(lb.a, &mut nb.ra), (lb.b, &mut nb.rb)] {
                if end as usize == moved {
                    *arm -= shift;
                }
            }
            if lb.a as usize == at || lb.b as usize == at {
                // Every other bond of the split node goes to its new half.
                half = !half;
                if half {
                    let p = c2[nb.a as usize] + nb.ra;
                    if lb.a as usize == at {
                        nb.a = at as u32 + 1;
                        nb.ra = p - c2[at + 1];
                    } else {
                        nb.b = at as u32 + 1;
                        nb.rb = p - c2[at + 1];
                    }
                }
            }
            b2.push(nb);
        }
        // Far from both: one bond of a pair leaves (the pair stays
        // coupled) and another's springs change, neither end moving.
        if far_changes {
            let far = |lb: &LocalBond| lb.a as usize > moved + 2 && lb.b as usize > moved + 2;
            let gone = b2.iter().position(far).unwrap_or(0);
            b2.remove(gone);
            let stiffer = b2.len() - 20;
            b2[stiffer].kn *= 1.5;
        }
        let last = bonds.len() as u32;
        for k in 0..4u32 {
            let p = c2[at] + DVec3::new(0.125, 0.01 * f64::from(k), 0.0);
            b2.push(LocalBond {
                bond: BondIndex(last + k),
                a: at as u32,
                b: at as u32 + 1,
                normal: DVec3::X,
                ra: p - c2[at],
                rb: p - c2[at + 1],
                kn: 2.0,
                ks: 0.5,
                kb: 0.1,
                kt: 0.08,
            });
        }
        (c2, f2, b2, old_of)
    }

    /// Every level in use, array by array, as bits.
    pub(in crate::stress::multilevel) fn levels(ml: &Multilevel) -> Vec<Vec<u64>> {
        let blocks = |v: &[Block]| -> Vec<u64> {
            v.iter()
                .flat_map(|b| b.c.iter().flatten().map(|x| x.to_bits()))
                .collect()
        };
        let blocks32 = |v: &[Block32]| -> Vec<u64> {
            v.iter()
                .flat_map(|b| b.0.iter().flat_map(|m| m.to_cols_array()))
                .map(|x| u64::from(x.to_bits()))
                .collect()
        };
        let ints = |v: &[u32]| -> Vec<u64> { v.iter().map(|&x| u64::from(x)).collect() };
        let mut out = vec![vec![ml.used as u64]];
        for lv in &ml.coarse[..ml.used] {
            out.push(
                lv.centroid
                    .iter()
                    .flat_map(|v| v.to_array().map(f64::to_bits))
                    .collect(),
            );
            out.extend([
                blocks(&lv.diag),
                blocks(&lv.inv),
                blocks(&lv.off),
                blocks32(&lv.diag32),
                blocks32(&lv.inv32),
                blocks32(&lv.off32),
            ]);
            for v in [
                &lv.row,
                &lv.col,
                &lv.met,
                &lv.upper,
                &lv.member_offsets,
                &lv.members,
            ] {
                out.push(ints(v));
            }
            // The coarsest level's aggregation is not made.
            if !std::ptr::eq(lv, &ml.coarse[ml.used - 1]) {
                out.push(ints(&lv.coarse_of));
            }
        }
        out
    }

    /// The counterparts the other way round: per node of the first system
    /// (`len`), the node of the second whose counterpart it is, or `NONE`.
    fn counterparts_back(old_of: &[u32], len: usize) -> Vec<u32> {
        (0..len)
            .map(|i| {
                old_of
                    .iter()
                    .position(|&o| o == i as u32)
                    .map_or(NONE, |p| p as u32)
            })
            .collect()
    }

    /// A system with nodes `x` and `y` numbered the other way round: the
    /// centres, the bonds, and the counterparts.
    fn renumbered(
        centroid: &[DVec3],
        bonds: &[LocalBond],
        x: usize,
        y: usize,
    ) -> (Vec<DVec3>, Vec<LocalBond>, Vec<u32>) {
        let swap = |i: u32| match i as usize {
            i if i == x => y as u32,
            i if i == y => x as u32,
            _ => i,
        };
        let mut c3 = centroid.to_vec();
        c3.swap(x, y);
        let swapped = bonds
            .iter()
            .map(|lb| LocalBond {
                a: swap(lb.a),
                b: swap(lb.b),
                ..*lb
            })
            .collect();
        (c3, swapped, (0..centroid.len() as u32).map(swap).collect())
    }

    /// The record a split keeps (see `Multilevel::rebuild`): every bond
    /// not in both systems the same but for its ends, which `old_of` maps.
    fn record(old: &[LocalBond], new: &[LocalBond], old_of: &[u32]) -> Vec<u32> {
        let mut ids: Vec<u32> = Vec::new();
        for n in new {
            let stands = old.iter().any(|o| {
                o.bond == n.bond
                    && same_bond(n, o)
                    && old_of[n.a as usize] == o.a
                    && old_of[n.b as usize] == o.b
            });
            if !stands {
                ids.push(n.bond.0);
            }
        }
        for o in old {
            if !new.iter().any(|n| n.bond == o.bond) {
                ids.push(o.bond.0);
            }
        }
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// A hierarchy built again over a system grouped again, with the true
    /// counterparts, with wrong ones and with none, is bit for bit a build
    /// of the new system, level by level; with the true ones most of level
    /// 1 and of level 2 is copied.
    #[test]
    fn a_rebuilt_hierarchy_is_bit_for_bit_a_built_one() {
        let (centroid, fixed, bonds) = system();
        let (c2, f2, b2, old_of) = regrouped(30, 44);
        let expected = fresh(&c2, &f2, &b2);
        let shifted: Vec<u32> = old_of.iter().map(|&o| o.wrapping_add(1)).collect();
        let reversed: Vec<u32> = (0..old_of.len() as u32).rev().collect();
        let identity: Vec<u32> = (0..old_of.len() as u32).collect();
        for (name, hint) in [
            ("true", &old_of),
            ("shifted", &shifted),
            ("reversed", &reversed),
            ("identity", &identity),
        ] {
            let mut ml = Multilevel::default();
            ml.build(&centroid, &fixed, &bonds);
            assert!(ml.assembled() && ml.used >= 2, "levels {}", ml.used);
            ml.rebuild(&c2, &f2, &b2, hint, None);
            let copied = ml.prev.row_old.iter().filter(|&&o| o != NONE).count();
            let mut built = Multilevel::default();
            built.build(&c2, &f2, &b2);
            assert_eq!(levels(&ml), levels(&built), "{name} hint");
            assert_eq!(signature(&mut ml, &f2), expected, "{name} hint");
            // In parts (see Parts in `multilevel/build.rs`): the same rows
            // copied, the same hierarchy.
            for parts in [2, 3, 7] {
                let mut in_parts = Multilevel::default();
                in_parts.build(&centroid, &fixed, &bonds);
                in_parts.start_rebuild(&c2, &f2, &b2, hint, None, parts);
                while in_parts.pending_piece().is_some() {
                    in_parts.build_part(&b2, Some(hint));
                }
                assert_eq!(levels(&in_parts), levels(&built), "{name}, {parts} parts");
                assert_eq!(
                    in_parts.prev.row_old, ml.prev.row_old,
                    "{name}, {parts} parts"
                );
                assert_eq!(
                    signature(&mut in_parts, &f2),
                    expected,
                    "{name}, {parts} parts"
                );
            }
            if name == "true" {
                // With the record of what changed instead of comparing the
                // bonds: the same hierarchy, as many rows copied.
                let changed = record(&bonds, &b2, &old_of);
                let mut trusted = Multilevel::default();
                trusted.build(&centroid, &fixed, &bonds);
                trusted.rebuild(&c2, &f2, &b2, hint, Some(&changed));
                assert_eq!(levels(&trusted), levels(&built), "record");
                let by_record = trusted.prev.row_old.iter().filter(|&&o| o != NONE).count();
                assert_eq!(by_record, copied, "rows copied by the record");
                // 54 free nodes, 55 after the split; the split halves, the
                // moved node and their neighbours are summed again; on
                // level 2 the aggregates around them.
                assert!((40..=48).contains(&copied), "{copied} rows copied");
                let above = ml.prev.copied_above;
                assert!(
                    (1..built.coarse[1].len()).contains(&above),
                    "{above} copied above"
                );
            }
            // Rebuilt again onto the first system (the counterparts of
            // the nodes that stand, the other way round).
            let back = counterparts_back(&old_of, centroid.len());
            ml.rebuild(&centroid, &fixed, &bonds, &back, None);
            assert_eq!(
                signature(&mut ml, &fixed),
                fresh(&centroid, &fixed, &bonds),
                "{name} hint, back"
            );
        }
        // Two nodes in a row numbered the other way round: the rows
        // between and around them meet their neighbours in another order.
        let (c3, swapped, hint) = renumbered(&centroid, &bonds, 19, 21);
        let mut ml = Multilevel::default();
        ml.build(&centroid, &fixed, &bonds);
        ml.rebuild(&c3, &fixed, &swapped, &hint, None);
        assert_eq!(
            signature(&mut ml, &fixed),
            fresh(&c3, &fixed, &swapped),
            "swapped"
        );
        // Bonds out of order: a build, which copies no row (`row_old`,
        // emptied here, stays empty; a rebuild would fill it).
        let mut ml = Multilevel::default();
        ml.build(&centroid, &fixed, &bonds);
        ml.prev.row_old.clear();
        let mut unordered = b2.clone();
        unordered.swap(3, 4);
        ml.rebuild(&c2, &f2, &unordered, &old_of, None);
        assert!(
            ml.prev.row_old.is_empty(),
            "rows copied from unordered bonds"
        );
        assert_eq!(signature(&mut ml, &f2), fresh(&c2, &f2, &unordered));
    }

    /// On a larger system split in one place, most rows of the coarser
    /// levels are copied too, and the hierarchy is still a build's, level
    /// by level; rebuilt back onto the first system, likewise.
    #[test]
    fn a_split_copies_most_of_the_coarser_levels() {
        let first = grid_system(24, 13);
        let (centroid, fixed, bonds) = first.clone();
        let (c2, f2, b2, old_of) = regrouped_from(first, 150, 151, false);
        let mut ml = Multilevel::default();
        ml.build(&centroid, &fixed, &bonds);
        assert!(ml.used >= 3, "levels {}", ml.used);
        ml.rebuild(&c2, &f2, &b2, &old_of, None);
        let mut built = Multilevel::default();
        built.build(&c2, &f2, &b2);
        assert_eq!(levels(&ml), levels(&built));
        assert_eq!(signature(&mut ml, &f2), fresh(&c2, &f2, &b2));
        let above: usize = (1..built.used).map(|l| built.coarse[l].len()).sum();
        let copied = ml.prev.copied_above;
        assert!(
            2 * copied > above,
            "{copied} of {above} rows copied above level 1"
        );
        let back = counterparts_back(&old_of, centroid.len());
        ml.rebuild(&centroid, &fixed, &bonds, &back, None);
        let mut built = Multilevel::default();
        built.build(&centroid, &fixed, &bonds);
        assert_eq!(levels(&ml), levels(&built), "back");
        assert!(
            2 * ml.prev.copied_above > above,
            "back: {}",
            ml.prev.copied_above
        );
        // Nodes numbered another way round, far apart: the aggregates of
        // the coarser levels follow the new numbers, so some rows meet
        // their neighbours in another order.
        for (x, y) in [(40usize, 200usize), (60, 61), (100, 130)] {
            let (c3, swapped, hint) = renumbered(&centroid, &bonds, x, y);
            let mut ml = Multilevel::default();
            ml.build(&centroid, &fixed, &bonds);
            ml.rebuild(&c3, &fixed, &swapped, &hint, None);
            let mut built = Multilevel::default();
            built.build(&c3, &fixed, &swapped);
            assert_eq!(levels(&ml), levels(&built), "swapped {x}, {y}");
            assert!(ml.prev.copied_above > 0, "swapped {x}, {y}");
        }
    }

    /// With the caller's record of the bonds that changed, each kind of
    /// change is found: a node turned fixed (no bond named: its
    /// neighbours' rows lose it), a bond added between two nodes that
    /// stand (only the new system has it), one removed (only the old),
    /// one stiffer; a row the record or the checks missed would be copied
    /// where a build sums it otherwise.
    #[test]
    fn a_record_of_changed_bonds_finds_every_row_that_changes() {
        let (centroid, fixed, bonds) = grid_system(16, 10);
        let identity: Vec<u32> = (0..centroid.len() as u32).collect();
        let mut turned = fixed.clone();
        turned[70] = true;
        let mut added = bonds.clone();
        let next = bonds.len() as u32;
        added.push(LocalBond {
            bond: BondIndex(next),
            ..bonds[300]
        });
        let mut removed = bonds.clone();
        let gone = removed.remove(200).bond.0;
        let mut stiffer = bonds.clone();
        stiffer[100].kn *= 1.5;
        let stiffened = stiffer[100].bond.0;
        for (name, f2, b2, changed) in [
            ("turned fixed", &turned, &bonds, vec![]),
            ("added", &fixed, &added, vec![next]),
            ("removed", &fixed, &removed, vec![gone]),
            ("stiffer", &fixed, &stiffer, vec![stiffened]),
        ] {
            let mut ml = Multilevel::default();
            ml.build(&centroid, &fixed, &bonds);
            ml.rebuild(&centroid, f2, b2, &identity, Some(&changed));
            let mut built = Multilevel::default();
            built.build(&centroid, f2, b2);
            assert_eq!(levels(&ml), levels(&built), "{name}");
            let copied = ml.prev.row_old.iter().filter(|&&o| o != NONE).count();
            assert!(
                copied + 8 >= built.coarse[0].len(),
                "{name}: {copied} copied"
            );
        }
    }

    /// Two buffers balanced against each other grow to the larger, not
    /// past it, however often (with `Vec::reserve`, which may take twice
    /// what is asked, they once doubled each other at every turn: 90 GB
    /// asked for in a 100-seed soak).
    #[test]
    fn balanced_buffers_grow_to_the_larger_only() {
        let mut a: Vec<u32> = Vec::with_capacity(10);
        a.extend(0..10);
        let mut b: Vec<u32> = Vec::with_capacity(40);
        b.extend(0..3);
        for turn in 0..20 {
            reserve_pair(&mut a, &mut b);
            if turn == 10 {
                // A split: one more.
                a.push(10);
            }
        }
        assert_eq!((a.capacity(), b.capacity()), (40, 40));
    }

    /// After a rebuild onto a larger system, the balance allocates the
    /// buffers set aside afresh (the replaced system's bonds and blocks
    /// are not needed once the build is done) and leaves them empty; the
    /// next rebuild, which builds into them and copies rows from the
    /// system standing, gives a fresh build's hierarchy bit for bit.
    #[test]
    fn a_rebuild_into_buffers_the_balance_emptied_is_a_build() {
        let (c0, f0, b0) = grid_system(6, 4);
        let big = grid_system(24, 13);
        let (c1, f1, b1) = big.clone();
        let (c2, f2, b2, old_of) = regrouped_from(big, 150, 151, false);
        let mut ml = Multilevel::default();
        ml.build(&c0, &f0, &b0);
        let none = vec![NONE; c1.len()];
        ml.rebuild(&c1, &f1, &b1, &none, None);
        assert!(ml.assembled() && ml.used >= 2, "levels {}", ml.used);
        assert!(ml.prev.bonds.is_empty(), "{}", ml.prev.bonds.len());
        assert!(ml.prev.bonds.capacity() >= b1.len());
        assert!(ml.prev.level.off.is_empty() && ml.prev.level.off32.is_empty());
        assert!(ml.prev.level.off.capacity() >= ml.coarse[0].off.len());
        ml.rebuild(&c2, &f2, &b2, &old_of, None);
        assert!(ml.prev.row_old.iter().any(|&o| o != NONE), "no row copied");
        let mut built = Multilevel::default();
        built.build(&c2, &f2, &b2);
        assert_eq!(levels(&ml), levels(&built));
        assert_eq!(signature(&mut ml, &f2), fresh(&c2, &f2, &b2));
    }

    /// Buffers that take turns holding a system that gains one element at
    /// a time (a super-node split off at every break) grow now and then,
    /// by a quarter, not at every turn (they once grew by one each turn:
    /// 20–60 µs per split on the reduced 100 × 50 × 2 wall).
    #[test]
    fn buffers_gaining_one_at_a_time_grow_by_a_quarter() {
        let (mut a, mut b): (Vec<u64>, Vec<u64>) = (vec![7; 400], Vec::new());
        reserve_pair(&mut a, &mut b);
        let mut grown = 0;
        for len in 401..=1000 {
            // The turn's system goes into the buffer set aside.
            std::mem::swap(&mut a, &mut b);
            let capacity = a.capacity();
            a.clear();
            a.resize(len, 7);
            reserve_pair(&mut a, &mut b);
            grown += usize::from(a.capacity() != capacity);
            assert_eq!(a.capacity(), b.capacity());
            assert!(a.capacity() >= len + len / 16, "{len}: {}", a.capacity());
        }
        assert!((2..=8).contains(&grown), "grew {grown} times");
    }
}
