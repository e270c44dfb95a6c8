//! The reduction (see "Reduction" in [`super::reduced`]): the cluster's
//! fine system grouped into super-nodes, their node arrays, bonds and
//! adjacency, and the forest over them, in steps a work limit may cut
//! between (see "Slices" there).
//!
//! A refining round's reduction of a large system is taken in
//! [`REDUCTION_PHASES`] + ⌈intact bonds / [`super::BUILD_PART_BONDS`]⌉
//! steps: the grouping's start (the fine system set aside, the groups of
//! the intact structure), the super-nodes (the pieces of the groups and
//! their members), their node arrays, the bonds between them in parts of
//! the fine bonds, the adjacency's counts, its fill, the work vectors,
//! the state vectors with the rest (the hint for the hierarchy's
//! rebuild), and the forest. On the 100 × 50 × 2 wall refined
//! (about 7,000 of its 10,000 chunks, 24,700 bonds) the reduction took
//! 2.3–3.9 ms in one step: the grouping 0.6 ms, the node arrays 0.5, the
//! bonds 1.2, the adjacency 0.5, the rest 0.7 and the forest 0.3. A
//! first round (nothing refined; its reduced system usually stands from
//! the solve before, `solver/kept.rs`) and a system of at most one part
//! are one step.
//!
//! The steps share the reduction's charge by weight ([`STEP_WEIGHTS`],
//! about their times), so a call cut by a work limit holds about as much
//! time whichever steps it takes. (Equal shares, as before, let one call
//! take the adjacency and the vectors together, 1.1 ms with the call's
//! own cost, where 13 parts of the bonds took 0.05 ms each.)
//!
//! What the steps made stays in the solver between the call that cut and
//! the call that resumes; that call goes on from it when it is the next
//! call on this solver and resumes that very progress (the token of
//! `solver/setup_steps.rs`; the same nodes, intact bonds and loads, so
//! the progress's place is this solve's), and
//! otherwise gathers and takes the steps before again, uncharged, with
//! the same results: every step is a function of the fine system, the
//! refinement and the bonds intact.

use super::reduced::{REDUCE_RADIUS, lower_limits};
use super::{DVec3, NONE, StressLoads, StressSolver};
use crate::asset::Asset;
use crate::index::BondIndex;
use crate::stress::multilevel::clear_for;

/// The steps of a reduction in steps besides the parts of its bonds: the
/// grouping's start, the super-nodes, their node arrays, the adjacency's
/// counts and fill, the work vectors, the state vectors with the rest,
/// and the forest.
pub(super) const REDUCTION_PHASES: u32 = 8;

/// The weight of each step of a reduction in steps in its charge, in the
/// order of the steps (the fourth, a part of the bonds, for each part):
/// about its time in tens of microseconds on the refined 100 × 50 × 2 wall
/// (medians of 10 reductions of 7,000–9,800 nodes and 13 parts each,
/// `examples/stress_updates.rs`, 2026-12-07; the vectors took up to 0.99
/// ms in one step when they grew).
const STEP_WEIGHTS: [u64; 9] = [14, 17, 28, 5, 30, 25, 20, 20, 20];

/// The sum of the weights ([`STEP_WEIGHTS`]) of steps 0 to `step` − 1 of
/// a reduction with `parts` parts of its bonds.
fn weight_before(step: u32, parts: u32) -> u64 {
    let w = |k: usize| STEP_WEIGHTS[k];
    let (step, parts) = (u64::from(step), u64::from(parts));
    if step <= 3 {
        STEP_WEIGHTS[..step as usize].iter().sum()
    } else if step <= 3 + parts {
        w(0) + w(1) + w(2) + w(3) * (step - 3)
    } else {
        let after = (step - 3 - parts).min(5) as usize;
        w(0) + w(1) + w(2) + w(3) * parts + STEP_WEIGHTS[4..4 + after].iter().sum::<u64>()
    }
}

/// The charge of step `step` of a reduction of `steps` steps charged
/// `total`: its share by weight ([`STEP_WEIGHTS`]); the shares add up to
/// `total`. One step is charged `total`.
pub(super) fn step_charge(total: u64, step: u32, steps: u32) -> u64 {
    if steps <= 1 {
        return total;
    }
    let parts = steps - REDUCTION_PHASES;
    let all = u128::from(weight_before(steps, parts).max(1));
    let upto = |s: u32| (u128::from(total) * u128::from(weight_before(s, parts)) / all) as u64;
    upto(step + 1) - upto(step)
}

impl StressSolver {
    /// How many steps the reduction of round `round` takes (see the
    /// module docs): one for a first round or a system of at most one part
    /// of [`super::BUILD_PART_BONDS`] intact bonds, else
    /// [`REDUCTION_PHASES`] and one per part of the bonds. Depends on the
    /// round and the intact bonds (`bond_list`) only, so a call that finds
    /// the reduced system standing takes as many.
    pub(super) fn reduction_steps(&self, round: u32) -> u32 {
        if round <= 1 {
            1
        } else {
            self.stepped_reduction_steps()
        }
    }

    /// How many steps a reduction in steps takes: one for a system of at
    /// most one part of [`super::BUILD_PART_BONDS`] intact bonds
    /// (`bond_list`), else [`REDUCTION_PHASES`] and one per part.
    pub(super) fn stepped_reduction_steps(&self) -> u32 {
        let parts = self.bond_list.len().div_ceil(self.build_part_bonds.max(1));
        if parts <= 1 {
            1
        } else {
            u32::try_from(parts)
                .unwrap_or(u32::MAX)
                .saturating_add(REDUCTION_PHASES)
        }
    }

    /// Takes step `step` of the `steps` of a reduction (see the module
    /// docs), after steps 0 to `step` − 1; the last leaves the reduced
    /// system built with its forest. One step (`steps` = 1) is the whole
    /// reduction.
    pub(super) fn reduce_step(&mut self, asset: &Asset, health: &[f32], step: u32, steps: u32) {
        if steps <= 1 {
            self.reduce(asset, health);
            self.build_forest();
            return;
        }
        let parts = steps - REDUCTION_PHASES;
        match step {
            0 => self.reduce_start(asset),
            1 => self.reduce_pieces(health),
            2 => self.reduce_nodes(),
            s if s < 3 + parts => {
                let (part, len) = ((s - 3) as usize, self.fine_ids.len());
                let parts = parts as usize;
                self.reduce_bonds(health, len * part / parts..len * (part + 1) / parts);
            }
            s if s == 3 + parts => self.count_adjacency(),
            s if s == 4 + parts => self.fill_adjacency(),
            s if s == 5 + parts => self.reset_work_vectors(self.chunk.len() + 1),
            s if s == 6 + parts => self.reduce_finish(),
            _ => {
                self.build_forest();
                self.system_kept = true;
            }
        }
    }

    /// Groups the fine system into super-nodes and rewrites the node
    /// arrays, bonds and adjacency for them (the steps of a reduction but
    /// the forest, in one go). The fine system is the one gathered, or the
    /// one kept aside (`restore_fine`), whose bonds broken since are
    /// passed over here and by the grouping's search.
    pub(super) fn reduce(&mut self, asset: &Asset, health: &[f32]) {
        self.reduce_start(asset);
        self.reduce_pieces(health);
        self.reduce_nodes();
        self.reduce_bonds(health, 0..self.fine_ids.len());
        self.build_adjacency();
        self.reset_work_vectors(self.chunk.len() + 1);
        self.reduce_finish();
        self.system_kept = true;
    }

    /// The reduction's first step: the fine system set aside, and the
    /// groups of its intact structure.
    fn reduce_start(&mut self, asset: &Asset) {
        // The fine structure's bonds, adjacency, forest and hierarchy are
        // overwritten by the super-nodes': none may be reused after.
        self.key_valid = false;
        self.forest_mode = None;
        self.hierarchy_mode = None;
        // A hierarchy built in pieces continues only over the grouping it
        // began with (a rebuild's counterparts, `old_of`, are made anew
        // here, even for the same system).
        self.multilevel.drop_pending();
        self.build_trusted = false;
        // The fine system is kept aside (`restore_fine` puts it back).
        self.swap_fine();
        self.reduced = true;
        self.system_kept = false;
        if !self.fine_restored {
            self.fine_ids.clear();
            self.fine_ids
                .extend(self.fine_bonds.iter().map(|lb| lb.bond.0));
            self.fine_ends.clear();
            self.fine_ends
                .extend(self.fine_bonds.iter().map(|lb| [lb.a, lb.b]));
        }
        self.fine_restored = false;
        self.kx_valid = false;
        #[cfg(test)]
        {
            self.reductions += 1;
        }
        // The grouping before, kept for the hierarchy's rebuild
        // (`regroup_hint`) when it grouped these very nodes.
        self.regrouping = self.grouped_chunks == self.fine_chunk;
        self.prev_node_of.clone_from(&self.node_of);
        self.prev_member_offsets.clone_from(&self.member_offsets);
        // Until the reduction is done, the grouping standing is no longer
        // the one the hierarchy was built over: a reduction that starts
        // again after this one was cut and dropped must not take it for
        // the grouping before.
        self.grouped_chunks.clear();
        // The groups of the intact structure (cached while the fine nodes,
        // anchors and refinement are the same).
        if !(self.regrouping
            && self.pristine_fixed == self.fine_fixed
            && self.pristine_refined == self.refined)
        {
            self.pristine_groups(asset);
        }
    }

    /// The super-nodes: the groups' pieces over the intact bonds, and
    /// their members.
    fn reduce_pieces(&mut self, health: &[f32]) {
        let n = self.fine_chunk.len();
        self.node_of.clear();
        self.node_of.resize(n + 1, NONE);
        let mut count = 0u32;
        for g in 0..self.pristine_offsets.len().saturating_sub(1) {
            for m in self.pristine_offsets[g]..self.pristine_offsets[g + 1] {
                let s = self.pristine_members[m as usize] as usize;
                if self.node_of[s] == NONE {
                    self.node_of[s] = count;
                    self.search_piece(s, health);
                    count += 1;
                }
            }
        }
        let nn = count as usize;
        self.node_of[n] = count;
        // Members, in ascending fine order.
        self.member_offsets.clear();
        self.member_offsets.resize(nn + 2, 0);
        for i in 0..n {
            self.member_offsets[self.node_of[i] as usize + 1] += 1;
        }
        for k in 0..=nn {
            self.member_offsets[k + 1] += self.member_offsets[k];
        }
        self.members.clear();
        self.members.resize(n, 0);
        // `dist` is the fill cursor here.
        self.dist.clear();
        self.dist.extend_from_slice(&self.member_offsets[..=nn]);
        for i in 0..n {
            let slot = &mut self.dist[self.node_of[i] as usize];
            self.members[*slot as usize] = i as u32;
            *slot += 1;
        }
    }

    /// The super-nodes' node arrays, and the bonds' start.
    fn reduce_nodes(&mut self) {
        let nn = self.member_offsets.len() - 2;
        self.chunk.clear();
        self.centroid.clear();
        self.fixed.clear();
        self.node_mass.clear();
        self.inv_w2.clear();
        self.inv_wl2.clear();
        for k in 0..nn {
            let v = self.super_node_values(k);
            self.chunk.push(v.chunk);
            self.centroid.push(v.centroid);
            self.fixed.push(v.fixed);
            self.node_mass.push(v.mass);
            self.inv_w2.push(v.inv_w2);
            self.inv_wl2.push(v.inv_wl2);
        }
        self.centroid.push(DVec3::ZERO);
        self.fixed.push(true);
        self.inv_w2.push(0.0);
        self.inv_wl2.push(0.0);
        self.inner_limit.clear();
        self.inner_limit.resize(nn, [f32::INFINITY; 3]);
        // Room for every fine bond: the bonds' parts never grow it.
        clear_for(&mut self.bonds, self.fine_ids.len());
        self.hierarchy_synced = false;
        self.split_trusted = false;
    }

    /// The bonds between super-nodes of fine bonds `range` (in order),
    /// arms from the node centres; a bond inside a super-node leaves only
    /// its limits.
    fn reduce_bonds(&mut self, health: &[f32], range: std::ops::Range<usize>) {
        for e in range {
            let bond = self.fine_ids[e];
            if !(health[bond as usize] > 0.0) {
                // Broken since the fine system was gathered (it was kept
                // aside, `restore_fine`).
                continue;
            }
            let [fa, fb] = self.fine_ends[e];
            let (a, b) = (self.node_of[fa as usize], self.node_of[fb as usize]);
            if a == b {
                lower_limits(
                    &mut self.inner_limit[a as usize],
                    self.materials.of(BondIndex(bond)),
                );
                continue;
            }
            let lb = self.reduced_bond(e, a, b);
            self.bonds.push(lb);
        }
    }

    /// The reduction's end after the adjacency and the work vectors: the
    /// state vectors, the hint for the hierarchy's rebuild, and the record
    /// of what the system is made from. The system counts as kept
    /// ([`Self::kept_system`]) once its forest is made too.
    fn reduce_finish(&mut self) {
        self.reset_state_vectors(self.chunk.len() + 1);
        self.regroup_hint(self.regrouping);
        self.grouped_chunks.clone_from(&self.fine_chunk);
        self.system_refined.clone_from(&self.refined);
    }

    /// The residual at rest (see [`Self::rest_residual`]) of the
    /// full-resolution system under `loads`: what a call that ends inside
    /// a reduction (no system of the round standing) reports. Reads the
    /// fine system kept aside; O(fine nodes + point loads).
    pub(super) fn fine_rest_residual(&mut self, asset: &Asset, loads: &StressLoads<'_>) -> f64 {
        let g = loads.gravity.as_dvec3();
        // The point loads by fine node, in load order (an unstable sort
        // on both keys: no buffer).
        self.load_nodes.clear();
        for (i, l) in loads.point_loads.iter().enumerate() {
            if let Some(k) = self.local(l.chunk) {
                let c = l.chunk.0 as usize;
                let f = l.force.as_dvec3();
                let t = (l.point.as_dvec3() - self.chunk_centroid[c]).cross(f);
                self.load_nodes.push((k, i as u32, f, t));
            }
        }
        self.load_nodes.sort_unstable_by_key(|l| (l.0, l.1));
        let mut worst = 0.0f64;
        let mut at = 0;
        for (k, &c) in self.fine_chunk.iter().enumerate() {
            let (mut u, mut t) = (self.fine_mass[k] * g, DVec3::ZERO);
            while at < self.load_nodes.len() && self.load_nodes[at].0 as usize == k {
                u += self.load_nodes[at].2;
                t += self.load_nodes[at].3;
                at += 1;
            }
            if asset.chunks()[c].support {
                continue;
            }
            let i = c.0 as usize;
            let r = (u.length_squared() * self.chunk_inv_w2[i])
                .max(t.length_squared() * self.chunk_inv_wl2[i]);
            if r.is_nan() {
                return f64::NAN;
            }
            worst = worst.max(r);
        }
        worst.sqrt()
    }

    /// After a grouping of the same fine nodes as the one before
    /// (`regrouping`): each super-node's old counterpart, one with the same
    /// members (`NONE` if none), and the world's, in `old_of`, which the
    /// hierarchy's build reads ([`Multilevel::rebuild`]: the rows of
    /// super-nodes that stand are copied, checked there). O(fine nodes).
    ///
    /// [`Multilevel::rebuild`]: crate::stress::multilevel::Multilevel::rebuild
    fn regroup_hint(&mut self, regrouping: bool) {
        self.old_of.clear();
        self.regrouped = false;
        let old_count = self.prev_member_offsets.len().saturating_sub(2);
        if !regrouping || old_count == 0 {
            return;
        }
        let size = |offsets: &[u32], k: usize| offsets[k + 1] - offsets[k];
        for k in 0..self.chunk.len() {
            let members = self.members_of(k);
            let o = self.prev_node_of[members[0] as usize];
            let same = (o as usize) < old_count
                && size(&self.prev_member_offsets, o as usize) == members.len() as u32
                && members.iter().all(|&m| self.prev_node_of[m as usize] == o);
            self.old_of.push(if same { o } else { NONE });
        }
        // The world.
        self.old_of.push(old_count as u32);
        self.regrouped = true;
    }

    /// The groups of the cluster's intact structure (see "Reduction"):
    /// breadth-first from each fine node not yet grouped (ascending), every
    /// free, unrefined node not yet grouped within [`REDUCE_RADIUS`] hops
    /// over the bonds between the cluster's chunks, broken or not;
    /// anchors and refined nodes alone. Kept in `pristine_of` and, per
    /// group, its members ascending (`pristine_offsets`,
    /// `pristine_members`); they depend on the fine nodes, anchors and
    /// refinement only, which are recorded with them. O(fine nodes + their
    /// bonds); `order` and `dist` are scratch.
    fn pristine_groups(&mut self, asset: &Asset) {
        let n = self.fine_chunk.len();
        // Every bond between the cluster's chunks: the fine adjacency (the
        // bonds intact when it was gathered) and, in `pristine_adj`, those
        // broken then (`broken_inside`; it may repeat some of the first,
        // which does no harm). The groups do not depend on the order the
        // search meets neighbours in: a group is every eligible node within
        // the radius of its seed over eligible nodes.
        self.pristine_adj_offsets.clear();
        self.pristine_adj_offsets.resize(n + 1, 0);
        self.pristine_adj.clear();
        for &b in &self.broken_inside {
            if let Some((i, j)) = self.bond_nodes(asset, b) {
                self.pristine_adj_offsets[i + 1] += 1;
                self.pristine_adj_offsets[j + 1] += 1;
            }
        }
        for i in 0..n {
            self.pristine_adj_offsets[i + 1] += self.pristine_adj_offsets[i];
        }
        self.pristine_adj
            .resize(self.pristine_adj_offsets[n] as usize, 0);
        if !self.pristine_adj.is_empty() {
            // `dist` is the fill cursor here.
            self.dist.clear();
            self.dist.extend_from_slice(&self.pristine_adj_offsets[..n]);
            for k in 0..self.broken_inside.len() {
                if let Some((i, j)) = self.bond_nodes(asset, self.broken_inside[k]) {
                    for (from, to) in [(i, j), (j, i)] {
                        self.pristine_adj[self.dist[from] as usize] = to as u32;
                        self.dist[from] += 1;
                    }
                }
            }
        }
        self.pristine_of.clear();
        self.pristine_of.resize(n, NONE);
        self.dist.clear();
        self.dist.resize(n + 1, 0);
        let mut groups = 0u32;
        for s in 0..n {
            if self.pristine_of[s] != NONE {
                continue;
            }
            self.pristine_of[s] = groups;
            if !(self.fine_fixed[s] || self.refined[s]) {
                self.order.clear();
                self.order.push(s as u32);
                self.dist[s] = 0;
                let mut head = 0;
                while head < self.order.len() {
                    let u = self.order[head] as usize;
                    head += 1;
                    if self.dist[u] == REDUCE_RADIUS {
                        continue;
                    }
                    let fine =
                        self.fine_adj_offsets[u] as usize..self.fine_adj_offsets[u + 1] as usize;
                    let broken = self.pristine_adj_offsets[u] as usize
                        ..self.pristine_adj_offsets[u + 1] as usize;
                    for k in fine.chain(broken.map(|k| k + self.fine_adj_nodes.len())) {
                        let v = if k < self.fine_adj_nodes.len() {
                            self.fine_adj_nodes[k] as usize
                        } else {
                            self.pristine_adj[k - self.fine_adj_nodes.len()] as usize
                        };
                        if v < n
                            && self.pristine_of[v] == NONE
                            && !self.fine_fixed[v]
                            && !self.refined[v]
                        {
                            self.pristine_of[v] = groups;
                            self.dist[v] = self.dist[u] + 1;
                            self.order.push(v as u32);
                        }
                    }
                }
            }
            groups += 1;
        }
        // Members per group, ascending.
        let groups = groups as usize;
        self.pristine_offsets.clear();
        self.pristine_offsets.resize(groups + 1, 0);
        for &g in &self.pristine_of {
            self.pristine_offsets[g as usize + 1] += 1;
        }
        for g in 0..groups {
            self.pristine_offsets[g + 1] += self.pristine_offsets[g];
        }
        self.pristine_members.clear();
        self.pristine_members.resize(n, 0);
        self.dist.clear();
        self.dist
            .extend_from_slice(&self.pristine_offsets[..groups]);
        for i in 0..n {
            let slot = &mut self.dist[self.pristine_of[i] as usize];
            self.pristine_members[*slot as usize] = i as u32;
            *slot += 1;
        }
        self.pristine_fixed.clone_from(&self.fine_fixed);
        self.pristine_refined.clone_from(&self.refined);
    }

    /// The piece of `seed`'s group joined to it by intact bonds: every fine
    /// node of the same group (`pristine_of`) reached from `seed` over
    /// intact bonds and not yet in a super-node (`node_of` is `NONE`) joins
    /// `seed`'s super-node (`node_of[seed]`). Returns the piece's size;
    /// `order` is scratch. The fine system must be kept aside (the `fine_*`
    /// arrays).
    pub(super) fn search_piece(&mut self, seed: usize, health: &[f32]) -> usize {
        let n = self.fine_chunk.len();
        let (group, node) = (self.pristine_of[seed], self.node_of[seed]);
        self.order.clear();
        self.order.push(seed as u32);
        let mut head = 0;
        while head < self.order.len() {
            let u = self.order[head] as usize;
            head += 1;
            let (lo, hi) = (
                self.fine_adj_offsets[u] as usize,
                self.fine_adj_offsets[u + 1] as usize,
            );
            for k in lo..hi {
                let v = self.fine_adj_nodes[k] as usize;
                if v < n
                    && self.node_of[v] == NONE
                    && self.pristine_of[v] == group
                    && health[self.fine_ids[self.fine_adj_bonds[k] as usize] as usize] > 0.0
                {
                    self.node_of[v] = node;
                    self.order.push(v as u32);
                }
            }
        }
        self.order.len()
    }
}

#[cfg(test)]
mod tests {
    use super::{REDUCTION_PHASES, STEP_WEIGHTS, step_charge};
    use crate::fixtures::{refining_solver, refining_wall};
    use crate::stress::{SolveProgress, StressLoads, StressSettings, StressSolver};
    use crate::{Asset, ChunkIndex};
    use glam::Vec3;

    /// A sliced reduced solve of the refining wall (64-bond parts, one
    /// step a call) cut inside its first refining round's reduction after
    /// `done` steps: the solver, the progress and the cluster.
    fn cut_inside_reduction(done: u32) -> (StressSolver, SolveProgress, Asset, Vec<f32>) {
        let (asset, health) = refining_wall().unwrap_or_else(|e| panic!("{e}"));
        let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
        let settings = StressSettings {
            reduce_above: 100,
            ..Default::default()
        };
        let mut s = refining_solver(&asset, settings);
        s.set_build_part_bonds(64);
        let loads = StressLoads {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            ..Default::default()
        };
        let mut progress = None;
        for _ in 0..10_000 {
            let report = s
                .solve_within(&asset, &nodes, &health, &loads, 1, &mut progress)
                .unwrap_or_else(|e| panic!("{e}"));
            let Some(p) = progress.as_ref() else {
                panic!("the solve ended before step {done} of a reduction");
            };
            if p.reduced_round().1 == 15 {
                // No round converged in this call (one step a call): the
                // full-resolution system's residual at rest, under gravity
                // alone |g| / g₀ at every free chunk.
                let rest = 9.81 / crate::stress::solver::STANDARD_GRAVITY;
                assert!(
                    (f64::from(report.residual) - rest).abs() < 1e-6 * rest,
                    "{report:?}"
                );
            }
            if p.reduced_round().1 == 15 && p.stage_fields() == Some([done, 0]) {
                return (s, progress.unwrap_or_default(), asset, health);
            }
        }
        panic!("no cut after step {done} of a reduction");
    }

    /// The steps' charges add up to the reduction's, whatever the count
    /// of bond parts, and go by [`STEP_WEIGHTS`]: the adjacency's counts
    /// are charged their weight's multiple of a part of the bonds (six
    /// today, within rounding), the forest as much as
    /// each half of the vectors.
    #[test]
    fn step_charges_share_the_reduction_by_weight() {
        for total in [0, 1, 7, 1_000, 123_457, u64::MAX / 1024] {
            assert_eq!(step_charge(total, 0, 1), total);
            for parts in [1, 2, 13, 400] {
                let steps = parts + REDUCTION_PHASES;
                let sum: u64 = (0..steps).map(|s| step_charge(total, s, steps)).sum();
                assert_eq!(sum, total, "{total} {parts}");
            }
        }
        let (parts, total) = (13, 1_000_000);
        let steps = parts + REDUCTION_PHASES;
        let w = STEP_WEIGHTS;
        let all = w.iter().sum::<u64>() + w[3] * u64::from(parts - 1);
        let charge = |s| step_charge(total, s, steps);
        let share =
            |before: u64, weight: u64| total * (before + weight) / all - total * before / all;
        let bonds_before = w[0] + w[1] + w[2];
        assert_eq!(charge(0), share(0, w[0]));
        assert_eq!(charge(3), share(bonds_before, w[3]));
        let counts_before = bonds_before + w[3] * u64::from(parts);
        assert_eq!(charge(3 + parts), share(counts_before, w[4]));
        let ratio = w[4] / w[3];
        assert!(charge(3 + parts).abs_diff(ratio * charge(2 + parts)) <= ratio);
        let forest = charge(steps - 1);
        assert_eq!(forest, share(all - w[8], w[8]));
        assert!(forest.abs_diff(charge(5 + parts)) <= 1 && forest.abs_diff(charge(6 + parts)) <= 1);
    }

    /// A progress cut inside a reduction, passed back on the same solver
    /// (the token matches) with other loads, is not this solve's: the
    /// solve starts afresh from the solver's warm start and gives what the
    /// solver gives without the progress, bit for bit. (The kept reduction
    /// was taken for it, since its keys were not checked before the loads:
    /// wrong residuals after one or two steps, an index out of bounds
    /// after three or more; found by a helper's fuzzer.)
    #[test]
    fn a_kept_reduction_serves_only_its_own_progress() {
        for done in [1, 2, 3, 20, 26, 28] {
            let (mut s, progress, asset, health) = cut_inside_reduction(done);
            let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
            let heavier = StressLoads {
                gravity: Vec3::new(0.0, -9.81 * 1.25, 0.0),
                ..Default::default()
            };
            // The same solver without the progress: from its warm start.
            let mut fresh = s.clone();
            let want = fresh
                .solve(&asset, &nodes, &health, &heavier)
                .unwrap_or_else(|e| panic!("{e}"));
            let mut p = Some(progress.clone());
            let got = s
                .solve_within(&asset, &nodes, &health, &heavier, u64::MAX, &mut p)
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(p.is_none(), "{done}");
            assert_eq!(got.residual.to_bits(), want.residual.to_bits(), "{done}");
            assert!(
                format!("{:?}", s.bond_stresses()) == format!("{:?}", fresh.bond_stresses()),
                "{done}: the bond results differ"
            );
        }
    }
}
