//! A hierarchy whose finest level is assembled, updated for bonds that
//! broke: only the rows at their ends are summed again.
//!
//! Level 1 of an assembled hierarchy is the fine system in 6×6 blocks,
//! one per node and one per coupled pair, each the sum of its bonds' blocks
//! in bond order. When bonds leave a system of the same nodes, a block of
//! a row none of them touched is the same sum as before, and a touched
//! row's blocks are summed again over its remaining bonds in the same
//! order, so level 1 is bit for bit what assembling it from scratch gives
//! — provided every touched row meets its neighbours in the same order
//! (the order the coarser levels' aggregation reads, see `Coarse::met`);
//! when a row would lose a neighbour or meet them in another order, the
//! hierarchy is built from scratch instead. The levels past level 1 keep
//! their aggregates (the aggregation reads only the pattern); a row whose
//! aggregate has a touched member is summed again (`P^T A P`, in the order
//! `Multilevel::assemble_galerkin` sums it), level by level, and the
//! coarsest level is factored again. The bonds removed are named by the
//! caller, so neither the bond list nor the adjacency is compared, copied
//! or built again. On the reduced 100×50×2 wall after one break: 0.03 ms
//! (0.8 ms for a build; 0.1 ms when the update compared and copied the
//! bond list to find the bonds removed).

use super::{Coarse, Multilevel, PARALLEL_BONDS, add_bonds_to_rows, add_galerkin_row};
use crate::stress::multilevel::{Block, Block32};
use crate::stress::solver::NONE;
use glam::DVec3;

impl Multilevel {
    /// [`Multilevel::build`] over the system the hierarchy stands on without
    /// the bonds `removed` (bond indices, ascending): the rows of their ends
    /// are summed again, and the rows of the coarser levels above them, bit
    /// for bit what `build` gives. The caller vouches that the hierarchy
    /// was made from exactly the system's bonds and those removed (the
    /// solver keeps that record, see `StressSolver::hierarchy_removed`);
    /// checked here are the nodes (`centroid`, `fixed`: the same) and that
    /// every removed bond is there. So the work is that of the rows
    /// touched, a pass over the nodes and one over the bonds (the rows are
    /// summed from them), with no copy or comparison of the bond list.
    /// Returns false when that does not apply (another structure, no bond
    /// removed, a row that would lose a neighbour or meet them in another
    /// order, a finest level that would no longer be assembled), with the
    /// hierarchy as it stood; the caller then builds (or rebuilds).
    pub(crate) fn update(&mut self, centroid: &[DVec3], fixed: &[bool], removed: &[u32]) -> bool {
        self.changes += 1;
        if !(self.built && self.assembled && !self.direct && self.used >= 1) || removed.is_empty() {
            return false;
        }
        if !self.built_on(centroid, fixed) {
            return false;
        }
        let fine = &self.fine;
        // Where the removed bonds stand (the bonds are in ascending bond
        // order), and the rows at their ends.
        self.removed_at.clear();
        for &id in removed {
            match fine.bonds.binary_search_by_key(&id, |lb| lb.bond.0) {
                Ok(at) if self.removed_at.last().is_none_or(|&l| (l as usize) < at) => {
                    self.removed_at.push(at as u32);
                }
                _ => return false,
            }
        }
        let left = fine.bonds.len() - removed.len();
        if left < PARALLEL_BONDS * self.pairs {
            return false;
        }
        let lv = &self.coarse[0];
        self.touched.clear();
        self.touched.resize(lv.len(), false);
        for &at in &self.removed_at {
            let lb = &fine.bonds[at as usize];
            for end in [lb.a, lb.b] {
                let c = fine.coarse_of[end as usize];
                if c != NONE {
                    self.touched[c as usize] = true;
                }
            }
        }
        // Each touched row meets the same neighbours in the same order
        // without the removed bonds' adjacency entries (identity
        // aggregates: node i is row coarse_of[i], alone). A bond's entry
        // at node i is its other end; entries with the same end are alike,
        // so the first not yet skipped stands for it.
        for i in 0..fine.len() {
            let c = fine.coarse_of[i];
            if c == NONE || !self.touched[c as usize] {
                continue;
            }
            self.skip.clear();
            for &at in &self.removed_at {
                let lb = &fine.bonds[at as usize];
                if lb.a as usize == i {
                    self.skip.push(lb.b);
                } else if lb.b as usize == i {
                    self.skip.push(lb.a);
                }
            }
            let row = lv.neighbours(c as usize);
            let met = &lv.met[row];
            let (lo, hi) = (
                fine.adj_offsets[i] as usize,
                fine.adj_offsets[i + 1] as usize,
            );
            let mut at = 0;
            for &j in &fine.adj[lo..hi] {
                if let Some(k) = self.skip.iter().position(|&s| s == j) {
                    self.skip.swap_remove(k);
                    continue;
                }
                let cj = fine.coarse_of[j as usize];
                if cj == NONE || cj == c || met[..at].contains(&cj) {
                    continue;
                }
                if met.get(at) != Some(&cj) {
                    return false;
                }
                at += 1;
            }
            if at != met.len() {
                return false;
            }
        }
        // The bonds and the adjacency without them, as a build makes them.
        let fine = &mut self.fine;
        fine.remove_bonds(&self.removed_at);
        // Sum the touched rows again, bond by bond in order.
        let next = &mut self.coarse[0];
        for c in 0..next.len() {
            if self.touched[c] {
                next.diag[c] = Block::ZERO;
                for k in next.neighbours(c) {
                    next.off[k] = Block::ZERO;
                }
            }
        }
        add_bonds_to_rows(fine, next, &self.touched);
        next.finish_rows(&self.touched);
        // The coarser levels: the same aggregates (the aggregation reads
        // only the pattern), so only the rows of aggregates with a touched
        // member change; each is summed again as `assemble_galerkin` sums
        // it.
        for l in 0..self.used - 1 {
            let (head, tail) = self.coarse.split_at_mut(l + 1);
            let (lv, next) = (&head[l], &mut tail[0]);
            self.touched_next.clear();
            self.touched_next.resize(next.len(), false);
            for (i, &c) in lv.coarse_of.iter().enumerate() {
                if self.touched[i] {
                    self.touched_next[c as usize] = true;
                }
            }
            self.marker.clear();
            self.marker.resize(next.len(), NONE);
            for c in 0..next.len() {
                if self.touched_next[c] {
                    galerkin_row(lv, next, c, &mut self.marker);
                }
            }
            next.finish_rows(&self.touched_next);
            std::mem::swap(&mut self.touched, &mut self.touched_next);
        }
        self.factor_coarsest();
        true
    }
}

impl super::Fine {
    /// Takes the bonds at the positions `at` (ascending) out of `bonds` and
    /// the adjacency, which end as `prepare_adjacency` makes them over the
    /// bonds left: a bond's entry at each end (the other end; entries with
    /// the same end are alike) leaves its node's list, the others keep
    /// their order.
    fn remove_bonds(&mut self, at: &[u32]) {
        for &p in at.iter().rev() {
            let lb = self.bonds[p as usize];
            for (from, to) in [(lb.a, lb.b), (lb.b, lb.a)] {
                let (lo, hi) = (
                    self.adj_offsets[from as usize] as usize,
                    self.adj_offsets[from as usize + 1] as usize,
                );
                if let Some(k) = self.adj[lo..hi].iter().position(|&j| j == to) {
                    self.adj.remove(lo + k);
                    for o in &mut self.adj_offsets[from as usize + 1..] {
                        *o -= 1;
                    }
                }
            }
        }
        let mut to = at.first().map_or(self.bonds.len(), |&p| p as usize);
        for (k, &p) in at.iter().enumerate() {
            let end = at.get(k + 1).map_or(self.bonds.len(), |&e| e as usize);
            self.bonds.copy_within(p as usize + 1..end, to);
            to += end - (p as usize + 1);
        }
        self.bonds.truncate(to);
    }
}

/// Row `c` of level `next` summed again from level `lv`, as
/// `Multilevel::assemble_galerkin` sums it; `marker` is scratch (column to
/// slot).
fn galerkin_row(lv: &Coarse, next: &mut Coarse, c: usize, marker: &mut [u32]) {
    for slot in next.neighbours(c) {
        marker[next.col[slot] as usize] = slot as u32;
        next.off[slot] = Block::ZERO;
    }
    next.diag[c] = Block::ZERO;
    add_galerkin_row(lv, next, c, marker);
}

impl Coarse {
    /// `Coarse::finish` for the rows marked in `rows` (the pattern stands).
    pub(super) fn finish_rows(&mut self, rows: &[bool]) {
        for (c, _) in rows.iter().enumerate().filter(|(_, r)| **r) {
            self.inv[c] = self.diag[c].inverse();
            self.diag32[c] = Block32::of(&self.diag[c]);
            self.inv32[c] = Block32::of(&self.inv[c]);
            for k in self.neighbours(c) {
                self.off32[k] = Block32::of(&self.off[k]);
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::index::BondIndex;
    use crate::stress::multilevel::rebuild::tests::levels;
    use crate::stress::solver::LocalBond;

    /// A 9 × 6 grid of free nodes over a row of 9 fixed ones, each
    /// neighbouring pair joined by four parallel bonds with their own
    /// points, normals and springs (a reduced system's super-nodes).
    pub(in crate::stress::multilevel) fn system() -> (Vec<DVec3>, Vec<bool>, Vec<LocalBond>) {
        grid_system(9, 7)
    }

    /// [`system`] over `nx × (ny − 1)` free nodes.
    pub(in crate::stress::multilevel) fn grid_system(
        nx: usize,
        ny: usize,
    ) -> (Vec<DVec3>, Vec<bool>, Vec<LocalBond>) {
        let at = |x: usize, y: usize| y * nx + x;
        let centroid: Vec<DVec3> = (0..nx * ny)
            .map(|i| DVec3::new((i % nx) as f64, (i / nx) as f64, 0.0))
            .chain([DVec3::ZERO])
            .collect();
        let fixed: Vec<bool> = (0..nx * ny).map(|i| i < nx).chain([true]).collect();
        let mut bonds = Vec::new();
        let pair = |a: usize, b: usize, bonds: &mut Vec<LocalBond>| {
            let d = centroid[b] - centroid[a];
            for k in 0..4 {
                let kf = k as f64;
                let p = centroid[a] + 0.5 * d + DVec3::new(0.1 * kf, -0.07 * kf, 0.2 * kf - 0.3);
                bonds.push(LocalBond {
                    bond: BondIndex(bonds.len() as u32),
                    a: a as u32,
                    b: b as u32,
                    normal: (d + DVec3::new(0.0, 0.0, 0.05 * kf)).normalize(),
                    ra: p - centroid[a],
                    rb: p - centroid[b],
                    kn: 1.0 + kf + 0.01 * a as f64,
                    ks: 0.4 + 0.1 * kf,
                    kb: 0.05 * (1.0 + kf),
                    kt: 0.08,
                });
            }
        };
        for y in 0..ny {
            for x in 0..nx {
                if x + 1 < nx {
                    pair(at(x, y), at(x + 1, y), &mut bonds);
                }
                if y + 1 < ny {
                    pair(at(x, y), at(x, y + 1), &mut bonds);
                }
            }
        }
        (centroid, fixed, bonds)
    }

    /// The preconditioner and the product on a fixed vector, as bits.
    pub(in crate::stress::multilevel) fn signature(
        ml: &mut Multilevel,
        fixed: &[bool],
    ) -> Vec<u64> {
        let len = fixed.len();
        let r_u: Vec<DVec3> = (0..len)
            .map(|i| {
                if fixed[i] {
                    DVec3::ZERO
                } else {
                    DVec3::new((i as f64).sin(), 0.3, -0.01 * i as f64)
                }
            })
            .collect();
        let r_t: Vec<DVec3> = (0..len)
            .map(|i| {
                if fixed[i] {
                    DVec3::ZERO
                } else {
                    DVec3::new(0.02, 0.1 * (i as f64).cos(), 0.05)
                }
            })
            .collect();
        let (mut z_u, mut z_t) = (vec![DVec3::ZERO; len], vec![DVec3::ZERO; len]);
        let (mut q_u, mut q_t) = (vec![DVec3::ZERO; len], vec![DVec3::ZERO; len]);
        ml.apply(&r_u, &r_t, &mut z_u, &mut z_t);
        ml.product(&r_u, &r_t, &mut q_u, &mut q_t);
        z_u.iter()
            .chain(&z_t)
            .chain(&q_u)
            .chain(&q_t)
            .flat_map(|v| v.to_array().map(f64::to_bits))
            .collect()
    }

    pub(in crate::stress::multilevel) fn fresh(
        centroid: &[DVec3],
        fixed: &[bool],
        bonds: &[LocalBond],
    ) -> Vec<u64> {
        let mut ml = Multilevel::default();
        ml.build(centroid, fixed, bonds);
        signature(&mut ml, fixed)
    }

    /// The fine level's bonds and adjacency, as bits.
    fn fine(ml: &Multilevel) -> Vec<u64> {
        let f = &ml.fine;
        f.bonds
            .iter()
            .flat_map(|lb| [u64::from(lb.bond.0), u64::from(lb.a), u64::from(lb.b)])
            .chain(f.adj_offsets.iter().chain(&f.adj).map(|&x| u64::from(x)))
            .collect()
    }

    /// Updated for bonds removed, the hierarchy is bit for bit a build of
    /// the bonds left: the fine level's bonds and adjacency, every level
    /// and the preconditioner.
    #[test]
    fn an_updated_hierarchy_is_bit_for_bit_a_built_one() {
        let (centroid, fixed, mut bonds) = system();
        let mut ml = Multilevel::default();
        ml.build(&centroid, &fixed, &bonds);
        assert!(ml.assembled() && ml.used >= 2, "levels {}", ml.used);
        let check = |ml: &mut Multilevel, bonds: &[LocalBond], what: &str| {
            let mut built = Multilevel::default();
            built.build(&centroid, &fixed, bonds);
            assert_eq!(fine(ml), fine(&built), "{what}");
            assert_eq!(levels(ml), levels(&built), "{what}");
            assert_eq!(
                signature(ml, &fixed),
                fresh(&centroid, &fixed, bonds),
                "{what}"
            );
        };
        // The third of a pair's four bonds, then two more in one update
        // (one of them the first of its pair, so its rows' adjacency loses
        // an entry ahead of the others): the rows meet their neighbours as
        // before.
        let first_of_pair = bonds[8].bond.0;
        for gone in [vec![42], vec![first_of_pair, 90]] {
            bonds.retain(|lb| !gone.contains(&lb.bond.0));
            assert!(ml.update(&centroid, &fixed, &gone), "{gone:?}");
            check(&mut ml, &bonds, &format!("{gone:?}"));
        }
        // A pair's first bond (its row may meet the neighbours in another
        // order) and a pair's every bond (a neighbour fewer): whatever
        // the update says, the result is a build's.
        let first = bonds[0].bond.0;
        let (a, b) = (bonds[60].a, bonds[60].b);
        for gone in [
            vec![first],
            bonds
                .iter()
                .filter(|lb| (lb.a, lb.b) == (a, b))
                .map(|lb| lb.bond.0)
                .collect(),
        ] {
            bonds.retain(|lb| !gone.contains(&lb.bond.0));
            if !ml.update(&centroid, &fixed, &gone) {
                ml.build(&centroid, &fixed, &bonds);
            }
            check(&mut ml, &bonds, &format!("{gone:?}"));
        }
        // A whole pair gone changes the pattern: not an update, and the
        // hierarchy stands as it was.
        let (a, b) = (bonds[100].a, bonds[100].b);
        let before = bonds.clone();
        let gone: Vec<u32> = bonds
            .iter()
            .filter(|lb| (lb.a, lb.b) == (a, b))
            .map(|lb| lb.bond.0)
            .collect();
        let mut other = Multilevel::default();
        other.build(&centroid, &fixed, &before);
        assert!(!other.update(&centroid, &fixed, &gone));
        check(&mut other, &before, "refused");
        // Nor is a bond that is not there, one named twice, bonds out of
        // order, none, or other nodes.
        let last = bonds.last().unwrap().bond.0;
        for gone in [vec![last + 1], vec![42, 42], vec![90, 60], vec![]] {
            assert!(!other.update(&centroid, &fixed, &gone), "{gone:?}");
        }
        let mut moved = centroid.clone();
        moved[20].x += 0.5;
        assert!(!other.update(&moved, &fixed, &[60]));
        check(&mut other, &before, "refused");
    }
}
