//! The reduced system kept from one call of a cluster to the next.
//!
//! The reduced system (super-nodes, their bonds and adjacency, forest and
//! multilevel hierarchy) stays in the solver after a call. The next call
//! checks, without gathering, that it is given the same nodes in the same
//! order, that every bond intact then is intact now and every bond broken
//! then is still broken (O(nodes + bonds of the cluster), a comparison and
//! a pass over the health of those bonds); when it is, and its first round
//! has the refinement the kept system was built with, that round solves on
//! the kept system as it stands. Another cluster solved in between, other
//! nodes, a bond mended and new settings mean a gather and a reduction as
//! usual; bonds broken since are the case below. The kept system is what
//! gathering and reducing again would build, so results are bit for bit
//! those of a fresh solver (`tests/stress_reuse.rs`,
//! `tests/stress_reuse_random.rs`). A resumed slice and a load that changes on an
//! unchanged structure (a vehicle crossing a bridge) skip the gathering,
//! reduction and hierarchy build; the work charged stays that of a gather,
//! so where a limit cuts a solve does not depend on what the solver kept.
//!
//! When bonds have only broken since (the same nodes, none mended) and none
//! of them splits a super-node (a piece of a group of the intact structure,
//! see "Reduction" in `solver/reduced.rs`), the grouping stands:
//! the broken bonds between super-nodes leave the bond list in order, a
//! super-node that lost a bond inside takes the lowest limits of those
//! left, and the adjacency, forest and hierarchy follow (an assembled
//! hierarchy is updated, `multilevel/update.rs`). Bit for bit what
//! reducing again builds (`tests/stress_reuse.rs` against a fresh solver;
//! the state itself in this file's test). Otherwise the call starts from
//! the fine system the reduction kept aside (nodes, bonds, adjacency),
//! whose broken bonds the grouping and the reduction pass over, instead of
//! gathering the cluster from the asset, and reduces it again; the
//! hierarchy is then built reusing the rows of the super-nodes whose
//! members did not change (`multilevel/rebuild.rs`). A cluster anchored by
//! bonds to the world alone is gathered again (their loss may leave it
//! unanchored).

use super::progress::RoundStage;
use super::{SolveProgress, StressLoads, StressSolver, bond_load};
use crate::asset::Asset;
use crate::index::ChunkIndex;

/// How the reduced system standing in the solver relates to a call's
/// inputs (see [`StressSolver::kept_system`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Kept {
    /// The same nodes in the same order, the same bonds intact.
    Same,
    /// The same nodes in the same order; bonds have broken since (listed
    /// in `newly_broken`, already taken out of `bond_list`), none mended.
    Broken,
    /// No reduced system stands, but a reduction cut short for the
    /// progress the call resumes, over the same nodes and intact bonds
    /// (`solver/reduction.rs`): the call goes on with it.
    Reducing,
}

/// What the bonds broken since do to the kept system's grouping (see
/// [`StressSolver::grouping_stands`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Grouping {
    /// It stands.
    Stands,
    /// One super-node, this one, falls apart; the others stand
    /// (`solver/split.rs`).
    Splits(u32),
    /// Group again.
    Changes,
}

impl StressSolver {
    /// Whether the reduced system standing in the solver was built from
    /// these nodes (the same, in the same order) with the same bonds intact
    /// ([`Kept::Same`]) or with some broken since, none mended
    /// ([`Kept::Broken`]; then [`Self::take_broken`] before solving). Costs
    /// O(nodes + bonds of the cluster), without gathering, and changes
    /// nothing. A cluster anchored by bonds to the world alone is gathered
    /// again when bonds break (their loss may leave it unanchored).
    pub(super) fn kept_system(&self, nodes: &[ChunkIndex], health: &[f32]) -> Option<Kept> {
        if !(self.system_kept && self.same_nodes(nodes, health)) {
            return None;
        }
        if self.bonds_intact(health) {
            return Some(Kept::Same);
        }
        let n = self.fine_chunk.len();
        self.fine_fixed[..n]
            .iter()
            .any(|&f| f)
            .then_some(Kept::Broken)
    }

    /// Whether the solver holds a reduction cut short (`reducing` steps
    /// taken) for `progress`, cut by the last call on this solver (the
    /// token of `solver/setup_steps.rs`, the hierarchy untouched since),
    /// over these very nodes with the same bonds intact, and the progress
    /// resumes there under `loads` (its place is this solve's): then the
    /// call goes on with it ([`Kept::Reducing`]) and takes the trust (no
    /// later piece of this call relies on it). Changes nothing otherwise.
    pub(super) fn reduction_kept(
        &mut self,
        nodes: &[ChunkIndex],
        health: &[f32],
        progress: Option<&SolveProgress>,
        loads: &StressLoads<'_>,
    ) -> bool {
        let Some(p) = progress else {
            return false;
        };
        let kept = self.reducing > 0
            && p.reducing() == Some(self.reducing)
            && self.same_nodes(nodes, health)
            && self.bonds_intact(health)
            && p.reduced_place(self.fine_nodes(), &self.bond_list, loads)
                .is_some_and(|(_, stage, _)| {
                    stage
                        == RoundStage::Reducing {
                            done: self.reducing,
                        }
                });
        kept && self.trust_setup(p.token())
    }

    /// The gathered nodes are `nodes` (the same, in the same order), and
    /// the bonds broken among them when they were gathered are still
    /// broken (none mended).
    pub(super) fn same_nodes(&self, nodes: &[ChunkIndex], health: &[f32]) -> bool {
        nodes == self.input_nodes.as_slice()
            && self
                .broken_inside
                .iter()
                .all(|&b| !(health[b as usize] > 0.0))
    }

    /// Every bond gathered intact is still intact.
    pub(super) fn bonds_intact(&self, health: &[f32]) -> bool {
        // (No early exit: a kept system's bonds are intact almost always,
        // and the branch per bond cost more than the loads. Each index is
        // within `health`, which the call checked against the asset; held
        // to its last entry all the same, the loads need no bound check:
        // 11 instructions a bond instead of 14.)
        let Some(last) = health.len().checked_sub(1) else {
            return self.bond_list.is_empty();
        };
        self.bond_list.iter().fold(true, |intact, &b| {
            intact & (health[(b as usize).min(last)] > 0.0)
        })
    }

    /// For [`Kept::Broken`]: moves the bonds broken since from `bond_list`
    /// to `newly_broken` and `broken_inside`, as a gather would sort them.
    pub(super) fn take_broken(&mut self, health: &[f32]) {
        self.newly_broken.clear();
        let mut kept = 0;
        for e in 0..self.bond_list.len() {
            let b = self.bond_list[e];
            if health[b as usize] > 0.0 {
                self.bond_list[kept] = b;
                kept += 1;
            } else {
                self.newly_broken.push(b);
                self.broken_inside.push(b);
            }
        }
        self.bond_list.truncate(kept);
        self.broken_inside.sort_unstable();
    }

    /// Puts back the fine system the reduction kept aside (nodes, bonds,
    /// adjacency) for [`Self::reduce`] to group again. The bonds broken
    /// since stay in it: the grouping's search and the reduction pass over
    /// broken bonds as a gather would have left them out (the remaining
    /// bonds keep their order), so nothing is copied or rebuilt here. Only
    /// `reduce` may follow.
    pub(super) fn restore_fine(&mut self) {
        self.reducing = 0;
        self.swap_fine();
        self.reduced = false;
        self.system_kept = false;
        self.newly_broken.clear();
        self.fine_restored = true;
        self.kx_valid = false;
    }

    /// Whether the bonds broken since leave the kept system's grouping as
    /// it is, that is whether grouping the fine system again would give the
    /// same super-nodes. The groups of the intact structure do not depend
    /// on which bonds are intact, and a super-node is a piece of one joined
    /// by intact bonds (see "Reduction" in `solver/reduced.rs`); so a bond
    /// between two super-nodes changes nothing, and a bond inside one
    /// changes the grouping only when that super-node falls apart: it is
    /// searched again from its first member over its members' intact
    /// bonds, and the grouping stands when the search reaches them all.
    /// When it does not for exactly one super-node, that one splits (its
    /// members not reached are left out of `node_of`); for more, the
    /// grouping changes. O(members of the super-nodes that lost a bond
    /// inside); `order` is scratch, and `node_of` is left as it was when
    /// the grouping stands.
    pub(super) fn grouping_stands(&mut self, asset: &Asset, health: &[f32]) -> Grouping {
        self.regroup.clear();
        for &b in &self.newly_broken {
            let Some((i, j)) = self.bond_nodes(asset, b) else {
                continue;
            };
            if self.node_of[i] == self.node_of[j] {
                self.regroup.push(self.node_of[i]);
            }
        }
        self.regroup.sort_unstable();
        self.regroup.dedup();
        let mut grouping = Grouping::Stands;
        for r in 0..self.regroup.len() {
            let g = self.regroup[r] as usize;
            let members = self.member_offsets[g] as usize..self.member_offsets[g + 1] as usize;
            for m in members.clone() {
                self.node_of[self.members[m] as usize] = super::NONE;
            }
            let first = self.members[members.start] as usize;
            self.node_of[first] = g as u32;
            let reached = self.search_piece(first, health);
            if reached != members.len() {
                // The members left out stay out (`NONE`): no other
                // super-node's search can reach them (no intact bond joins
                // two super-nodes of a group), and the split or the
                // reduction that follows numbers them.
                if grouping != Grouping::Stands {
                    return Grouping::Changes;
                }
                grouping = Grouping::Splits(g as u32);
            }
        }
        grouping
    }

    /// Takes the bonds broken since out of the kept reduced system whose
    /// grouping they leave as it is: bonds between super-nodes drop out of
    /// the bond list (in order), a super-node that lost a bond inside
    /// takes the lowest limits of those left; then the adjacency, and the
    /// fixed flags as a reduction leaves them (the caller builds the
    /// forest). Bit for bit what reducing the fine system again builds.
    pub(super) fn drop_broken(&mut self, asset: &Asset, health: &[f32], adjacency_stands: bool) {
        for k in 0..self.newly_broken.len() {
            let Some((i, j)) = self.bond_nodes(asset, self.newly_broken[k]) else {
                continue;
            };
            let g = self.node_of[i] as usize;
            if g == self.node_of[j] as usize {
                self.inner_limit[g] = self.inner_limit_of(g, health);
            }
        }
        // The last answer's K x without the bonds between super-nodes that
        // leave (`implied_residual`), before they do: the same sums as the
        // evaluation's, taken back.
        if self.kx_valid && self.kx_u.len() == self.x_u.len() {
            for &b in &self.newly_broken {
                let Ok(e) = self.bonds.binary_search_by_key(&b, |lb| lb.bond.0) else {
                    continue;
                };
                let lb = &self.bonds[e];
                let (f, m) = bond_load(lb, &self.x_u, &self.x_t);
                let (a, b) = (lb.a as usize, lb.b as usize);
                self.kx_u[b] -= f;
                self.kx_t[b] -= lb.rb.cross(f) + m;
                self.kx_u[a] += f;
                self.kx_t[a] += lb.ra.cross(f) + m;
            }
        }
        self.removed_at.clear();
        for &b in &self.newly_broken {
            if let Ok(e) = self.bonds.binary_search_by_key(&b, |lb| lb.bond.0) {
                self.removed_at.push(e as u32);
            }
        }
        self.newly_broken.clear();
        if self.hierarchy_synced {
            for &at in &self.removed_at {
                self.hierarchy_removed.push(self.bonds[at as usize].bond.0);
            }
            self.hierarchy_removed.sort_unstable();
        }
        if self.split_trusted {
            for &at in &self.removed_at {
                self.split_changed.push(self.bonds[at as usize].bond.0);
            }
        }
        self.remove_bonds(adjacency_stands);
        // The forest marked the nodes it did not reach as fixed; a new
        // forest starts from the anchors alone, as after a reduction.
        for k in 0..self.chunk.len() {
            let m = self.members_of(k);
            self.fixed[k] = m.len() == 1 && self.fine_fixed[m[0] as usize];
        }
    }
}

impl StressSolver {
    /// Takes the bonds at the positions `removed_at` (ascending) out of
    /// `bonds`, moving only those past the first removed, and out of the
    /// adjacency: if it `stands` (it is the one of `bonds` as they were),
    /// in one pass over it rather than two over the bonds, ending as
    /// `build_adjacency` would build it (each node's entries keep their
    /// bond order, and a bond's index drops by the bonds removed before
    /// it); otherwise it is built.
    fn remove_bonds(&mut self, stands: bool) {
        let removed = &self.removed_at;
        if let Some(&first) = removed.first() {
            let mut to = first as usize;
            for (k, &at) in removed.iter().enumerate() {
                let end = removed.get(k + 1).map_or(self.bonds.len(), |&e| e as usize);
                let from = at as usize + 1;
                self.bonds.copy_within(from..end, to);
                to += end - from;
            }
            self.bonds.truncate(to);
        }
        if !stands {
            self.build_adjacency();
            return;
        }
        let removed = &self.removed_at;
        if removed.is_empty() {
            return;
        }
        let mut to = 0;
        let mut lo = 0;
        for v in 1..self.adj_offsets.len() {
            let hi = self.adj_offsets[v] as usize;
            for e in lo..hi {
                let k = self.adj_bonds[e];
                if let Err(before) = removed.binary_search(&k) {
                    self.adj_bonds[to] = k - before as u32;
                    self.adj_nodes[to] = self.adj_nodes[e];
                    to += 1;
                }
            }
            lo = hi;
            self.adj_offsets[v] = to as u32;
        }
        self.adj_bonds.truncate(to);
        self.adj_nodes.truncate(to);
    }
}

#[cfg(test)]
mod tests {
    use crate::fixtures::grid_desc;
    use crate::stress::{Material, StressLoads, StressMaterials, StressSettings, StressSolver};
    use crate::{Asset, ChunkIndex};
    use glam::Vec3;

    /// The reduced system a solver holds after its last call, as bits.
    fn system(s: &StressSolver) -> Vec<u64> {
        let mut out: Vec<u64> = Vec::new();
        let mut list = |tag: u64, v: &mut dyn Iterator<Item = u64>| {
            out.push(tag);
            out.extend(v);
        };
        list(1, &mut s.chunk.iter().map(|c| u64::from(c.0)));
        list(
            2,
            &mut s
                .centroid
                .iter()
                .flat_map(|v| v.to_array().map(f64::to_bits)),
        );
        list(3, &mut s.fixed.iter().map(|&f| u64::from(f)));
        list(4, &mut s.node_mass.iter().map(|m| m.to_bits()));
        list(
            5,
            &mut s.inv_w2.iter().chain(&s.inv_wl2).map(|m| m.to_bits()),
        );
        list(
            6,
            &mut s.bonds.iter().flat_map(|b| {
                [u64::from(b.bond.0), u64::from(b.a), u64::from(b.b)]
                    .into_iter()
                    .chain(
                        [b.normal, b.ra, b.rb]
                            .into_iter()
                            .flat_map(|v| v.to_array().map(f64::to_bits)),
                    )
                    .chain([b.kn, b.ks, b.kb, b.kt].map(f64::to_bits))
            }),
        );
        list(
            7,
            &mut s
                .inner_limit
                .iter()
                .flat_map(|l| l.map(|x| u64::from(x.to_bits()))),
        );
        for (tag, v) in [
            (8, &s.node_of),
            (9, &s.member_offsets),
            (10, &s.members),
            (12, &s.adj_offsets),
            (13, &s.adj_bonds),
            (14, &s.adj_nodes),
            (15, &s.dist),
            (16, &s.parent),
            (17, &s.order),
            (18, &s.bond_list),
            (19, &s.broken_inside),
        ] {
            list(tag, &mut v.iter().map(|&x| u64::from(x)));
        }
        out
    }

    /// Weak bonds break one by one on a reduced wall under gravity, and a
    /// chunk is cut loose: after each, the solver that kept its reduced system holds, bit for bit,
    /// the system a fresh solver reduces (groups, limits inside them, bonds,
    /// adjacency, forest), whether it updated the kept one in place or
    /// reduced again.
    #[test]
    fn a_kept_system_after_breaks_is_the_system_reduced_afresh() {
        let asset = Asset::new(&grid_desc(10, 8, 2, 0.5, 2400.0, 40.0)).unwrap();
        let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
        let c = Material::CONCRETE;
        let weak = c.with_limits_scaled(0.2);
        let weak_bonds: Vec<usize> = (0..asset.bond_count()).filter(|b| b % 37 == 5).collect();
        let materials = StressMaterials {
            materials: vec![c, weak],
            bond_material: (0..asset.bond_count())
                .map(|b| u16::from(weak_bonds.contains(&b)))
                .collect(),
        };
        let settings = StressSettings {
            max_iterations: 10_000,
            reduce_above: 20,
            ..Default::default()
        };
        let new = || StressSolver::new(&asset, settings, materials.clone()).unwrap();
        let loads = StressLoads {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            ..Default::default()
        };
        let mut health = vec![10.0f32; asset.bond_count()];
        let mut kept = new();
        kept.solve(&asset, &nodes, &health, &loads).unwrap();
        let (mut in_place, mut split, mut again) = (0, 0, 0);
        // Halfway, the last chunk (a top corner) is cut loose: left in the
        // node list, joined to nothing, a super-node of its own split off
        // its old one, which the forest does not reach. Then two more
        // chunks in two other super-nodes in one call: both fall apart,
        // and the fine system is grouped again.
        let half = weak_bonds.len() / 2;
        let cut = |chunks: &[ChunkIndex], health: &mut Vec<f32>| {
            for &chunk in chunks {
                for (_, c) in asset.graph().neighbours(chunk) {
                    health[c.0 as usize] = 0.0;
                }
            }
        };
        for (k, &b) in weak_bonds.iter().enumerate() {
            health[b] = 0.0;
            if k == half {
                cut(&[nodes[nodes.len() - 1]], &mut health);
            }
            if k == half + 2 {
                cut(&[nodes[nodes.len() - 10], nodes[45]], &mut health);
            }
            let (reductions, splits) = (kept.reductions, kept.splits);
            let report = kept.solve(&asset, &nodes, &health, &loads).unwrap();
            let mut fresh = new();
            fresh.solve(&asset, &nodes, &health, &loads).unwrap();
            assert!(report.converged, "bond {b}");
            assert!(!kept.system_refined.contains(&true), "bond {b}: refined");
            assert_eq!(system(&kept), system(&fresh), "bond {b}");
            if kept.reductions != reductions {
                again += 1;
            } else if kept.splits != splits {
                split += 1;
            } else {
                in_place += 1;
            }
        }
        assert!(
            in_place >= 3 && split >= 1 && again >= 1,
            "{in_place} in place, {split} split, {again} reduced again"
        );
    }

    /// After a bond between super-nodes breaks, the residual the last
    /// answer implies (its `K x` less the bond's forces) is the residual
    /// the warm start is checked with, up to rounding: the check that
    /// `implied_residual` lets a solve skip is one that would fail.
    #[test]
    fn the_implied_residual_after_a_break_is_the_checked_one() {
        let asset = Asset::new(&grid_desc(10, 8, 2, 0.5, 2400.0, 40.0)).unwrap();
        let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
        let settings = StressSettings {
            max_iterations: 10_000,
            reduce_above: 20,
            ..Default::default()
        };
        let loads = StressLoads {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            ..Default::default()
        };
        let mut health = vec![10.0f32; asset.bond_count()];
        let mut s = StressSolver::new(
            &asset,
            settings,
            StressMaterials::uniform(Material::CONCRETE),
        )
        .unwrap();
        s.solve(&asset, &nodes, &health, &loads).unwrap();
        // The most loaded bond between two free super-nodes (the grouping
        // stands).
        let free = |k: u32| (k as usize) < s.chunk.len() && !s.fixed[k as usize];
        let bond = s
            .stresses
            .iter()
            .zip(&s.bonds)
            .filter(|(_, lb)| free(lb.a) && free(lb.b))
            .max_by(|a, b| a.0.normal_force.abs().total_cmp(&b.0.normal_force.abs()))
            .unwrap()
            .0
            .bond;
        health[bond.0 as usize] = 0.0;
        // The steps of `solve_reduced` up to the warm start's check.
        assert_eq!(s.kept_system(&nodes, &health), Some(super::Kept::Broken));
        s.take_broken(&health);
        assert_eq!(s.grouping_stands(&asset, &health), super::Grouping::Stands);
        s.drop_broken(&asset, &health, true);
        s.forest_topology();
        s.reset_vectors(s.chunk.len() + 1);
        s.forest_state();
        s.anchored_loads(&loads);
        let implied = s.implied_residual().unwrap();
        let (kx_u, kx_t) = (s.kx_u.clone(), s.kx_t.clone());
        let checked = s.evaluate(false);
        let eps = f64::from(s.settings.epsilon);
        assert!(checked > 10.0 * eps, "the break matters: {checked}");
        assert!(
            (implied - checked).abs() <= 1e-9 * checked,
            "implied {implied}, checked {checked}"
        );
        // Node by node, force and moment.
        for k in (0..s.chunk.len()).filter(|&k| !s.fixed[k]) {
            let (w, wl) = (s.inv_w2[k].sqrt().recip(), s.inv_wl2[k].sqrt().recip());
            let du = (s.b_u[k] - kx_u[k] - s.r_u[k]).length();
            let dt = (s.b_t[k] - kx_t[k] - s.r_t[k]).length();
            assert!(
                du <= 1e-9 * w && dt <= 1e-9 * wl,
                "node {k}: {du} N, {dt} N m"
            );
        }
    }
}
