//! An iteration of the conjugate gradient in steps: its *update*
//! (`q = K p`, the step `α = rᵀz / pᵀq`, `x += α p`, `r −= α q`, the
//! convergence check), then its *preconditioning* (`z = M⁻¹ r`, `β`,
//! `p = z + β p`), whose multilevel cycle is itself six steps on a
//! system that smooths on its bonds (`Multilevel::apply_step`), else one.
//! On the 100 × 50 × 2 wall refined (about 8,000 nodes) the update takes
//! about 0.3 ms and the cycle's steps 0.12–0.35 ms each here (as three
//! steps, 0.25–0.54 ms each), so a call ends before any of them that would
//! take it past its limit ([`RoundStage::Updated`],
//! [`RoundStage::Cycling`], [`RoundStage::Restricted`],
//! [`RoundStage::Coarsened`]). On a system of more than one part the
//! update itself is two steps, its product `q = K p` (about 0.19 ms there)
//! and the rest; a cut between them ([`RoundStage::Multiplied`]) saves the
//! iteration's start, which the product leaves as it was, and keeps `q`
//! the same way ([`StressSolver::hold_product`]). Near ε that product is
//! in double precision (0.64–0.78 ms there, against 0.19 in single
//! precision): it is then taken in parts of the bonds, each a step charged
//! its share of [`super::MULTILEVEL_EXACT_PRODUCT_PASSES`] a bond, and a
//! call may end between them ([`RoundStage::Multiplying`]); the solver
//! keeps the parts' sum the same way, or the next call takes those parts
//! again, uncharged.
//!
//! The progress saved at such a cut holds the iteration's *start* (`x`,
//! `r` and `p` before the update, which the solver copies aside first), so
//! it needs nothing the progress did not hold before. The solver keeps
//! what the iteration made (the new `x` and `r`, `q`, `α`, whether the
//! update polished, and the cycle's own vectors) under a token that it
//! also gives the progress (not serialised). A call that resumes that very
//! progress from this solver, with nothing solved in between and, for a
//! cut inside the cycle, the hierarchy unchanged since
//! (`Multilevel::changes`: preparing another cluster rebuilds it), takes
//! them back; any other (another cluster solved in between, a new solver,
//! a progress from a snapshot) takes the update and the cycle's steps
//! again from the start, uncharged, which gives bit for bit the same (they
//! are a function of the start, the system and the settings, and a
//! hierarchy rebuilt is the same bit for bit; [`StressSolver::set_settings`]
//! drops what is kept). Either way the call goes on with the next step.
//!
//! The check of an update within ε with the bond forces (one evaluation,
//! 0.7 ms on the refined wall's 24,000 bonds) is a step of its own on a
//! system of more than one part ([`RoundStage::Converging`]); the call
//! that takes it takes it in parts of the bonds
//! ([`StressSolver::check_update_in_parts`]), and may end between them
//! ([`RoundStage::Verifying`]): the progress holds the iteration's start,
//! and the solver keeps the update with the parts' `r`, `z` (the update's
//! recursive `r`) and bond results, or the next call takes the update and
//! those parts again, uncharged. (In one step, with the call's own cost
//! and the next round's place, a round's end took 1.0–1.4 ms.)

#[cfg(doc)]
use super::progress::RoundStage;
use super::reduced::part_charge;
use super::{DVec3, EVALUATION_PASSES, StressSolver};
use std::sync::atomic::{AtomicU64, Ordering};

/// The next token, unique in the process: a progress cut by one solver
/// and resumed on another never takes back what the other kept for
/// another progress (each solver counting its own tokens from 1 did:
/// found by a fuzzer moving a progress between two solvers).
static NEXT_TOKEN: AtomicU64 = AtomicU64::new(1);

/// What an iteration cut inside made (besides the vectors), kept by the
/// solver between the call that cut and the call that resumes.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(super) struct KeptIteration {
    /// The token given to the progress saved at the cut (never 0).
    pub(super) token: u64,
    /// The step taken along `p`.
    pub(super) alpha: f64,
    /// The update ended with a Gauss–Seidel polish (the preconditioning
    /// restarts the directions, `β = 0`).
    pub(super) polished: bool,
    /// The hierarchy's changes at the cut ([`Multilevel::changes`]): a cut
    /// between the preconditioning's steps goes on from the cycle's vectors
    /// only while it stands.
    ///
    /// [`Multilevel::changes`]: crate::stress::multilevel::Multilevel::changes
    pub(super) hierarchy: u64,
    /// The residual of the update's check with the bond forces, when it
    /// failed (the check's bond results are kept too, in
    /// `kept_stresses`): the call that resumes goes on as the call that
    /// checked would have, its results standing until the next update.
    pub(super) checked: Option<f64>,
    /// Only the update's product was taken (`q` kept,
    /// [`StressSolver::hold_product`];
    /// `alpha` and `polished` mean nothing).
    pub(super) product: bool,
    /// Of a product cut inside ([`RoundStage::Multiplying`]): the bonds
    /// its parts taken sum over, from the first (`q` is their sum so far);
    /// 0 for the whole product.
    pub(super) product_bonds: usize,
    /// Parts of the update's check taken ([`RoundStage::Verifying`]; 0:
    /// none): the kept `r` is the check's so far, `z` the update's `r`,
    /// and `kept_stresses` the parts' bond results.
    pub(super) verified: u32,
    /// The warm start holds `x` as held here (written from it at this
    /// cut or one before in this iteration, with nothing written since):
    /// the call that takes it back writes none at its own cut unless `x`
    /// changes (see `StressSolver::refresh_warm_start`).
    pub(super) warm: bool,
}

/// How the check of an update in parts ended
/// ([`StressSolver::check_update_in_parts`]).
pub(super) enum CheckEnd {
    /// Within ε: the solve converged with this residual.
    Passed(f64),
    /// Short of ε: the iteration goes on from the checked residual.
    Failed,
    /// The call ends before this part (the parts before it taken).
    Cut(u32),
}

/// The solver's vectors of an iteration cut inside: the start's `x` and
/// `r` copied aside before the update, then (at a cut) the update's `x`,
/// `r` and `q` kept while the working vectors serve other solves.
#[derive(Clone, Debug, Default)]
pub(super) struct KeptVectors {
    x_u: Vec<DVec3>,
    x_t: Vec<DVec3>,
    r_u: Vec<DVec3>,
    r_t: Vec<DVec3>,
    q_u: Vec<DVec3>,
    q_t: Vec<DVec3>,
    /// The update's `r` during its check in parts.
    z_u: Vec<DVec3>,
    z_t: Vec<DVec3>,
}

impl KeptVectors {
    /// Room for `len` entries in each (they take turns with the solver's
    /// working vectors, so a steady stream of sliced solves allocates
    /// nothing after the first).
    pub(super) fn reserve(&mut self, len: usize) {
        for v in [
            &mut self.x_u,
            &mut self.x_t,
            &mut self.r_u,
            &mut self.r_t,
            &mut self.q_u,
            &mut self.q_t,
            &mut self.z_u,
            &mut self.z_t,
        ] {
            v.reserve(len.saturating_sub(v.len()));
        }
    }

    /// The lengths of the kept `r`.
    pub(super) fn r_lens(&self) -> (usize, usize) {
        (self.r_u.len(), self.r_t.len())
    }

    /// Swaps the kept `r` with `r_u`, `r_t` (a start's check in parts
    /// keeps its partial `r` there, `setup_steps.rs`).
    pub(super) fn swap_r(&mut self, r_u: &mut Vec<DVec3>, r_t: &mut Vec<DVec3>) {
        std::mem::swap(&mut self.r_u, r_u);
        std::mem::swap(&mut self.r_t, r_t);
    }

    /// The iteration's start as copied aside: `x_u, x_t, r_u, r_t`.
    pub(super) fn start_mut(&mut self) -> [&mut Vec<DVec3>; 4] {
        [&mut self.x_u, &mut self.x_t, &mut self.r_u, &mut self.r_t]
    }
}

impl StressSolver {
    /// Copies `x` and `r` aside before an update the call may end after.
    pub(super) fn keep_iteration_start(&mut self) {
        let h = &mut self.kept_vectors;
        h.x_u.clone_from(&self.x_u);
        h.x_t.clone_from(&self.x_t);
        h.r_u.clone_from(&self.r_u);
        h.r_t.clone_from(&self.r_t);
    }

    /// At a cut inside an iteration (the progress already saved from the
    /// start copied aside): keeps the update's `x`, `r` and `q` by swapping
    /// them with the copies, so the working vectors hold the start (the
    /// state the progress has) and the kept ones the update. An update
    /// whose check with the bond forces failed keeps the check's residual
    /// and bond results too: the call that resumes has them standing as
    /// one call would (without them, the next call evaluated again,
    /// charged, where one call did not: found by a fuzzer; until
    /// 2026-12-07 such an update was not kept, and each call of the rest
    /// of its iteration took it and its check again: up to 1.9 ms a call
    /// on the refined 100 × 50 × 2 wall).
    pub(super) fn hold_update(&mut self, kept: KeptIteration) {
        self.swap_kept_vectors();
        if kept.verified > 0 {
            self.swap_kept_z();
        }
        if kept.checked.is_some() || kept.verified > 0 {
            std::mem::swap(&mut self.stresses, &mut self.kept_stresses);
            #[cfg(test)]
            {
                self.checks_held += u32::from(kept.checked.is_some());
            }
        }
        // A call cut short reports no bond results.
        self.stresses.clear();
        self.kept_iteration = Some(kept);
    }

    /// Swaps the working `z` with the kept one.
    fn swap_kept_z(&mut self) {
        let h = &mut self.kept_vectors;
        std::mem::swap(&mut self.z_u, &mut h.z_u);
        std::mem::swap(&mut self.z_t, &mut h.z_t);
    }

    /// Swaps the working `x`, `r` and `q` with the kept ones.
    fn swap_kept_vectors(&mut self) {
        self.warm_of_x = false;
        let h = &mut self.kept_vectors;
        std::mem::swap(&mut self.x_u, &mut h.x_u);
        std::mem::swap(&mut self.x_t, &mut h.x_t);
        std::mem::swap(&mut self.r_u, &mut h.r_u);
        std::mem::swap(&mut self.r_t, &mut h.r_t);
        std::mem::swap(&mut self.q_u, &mut h.q_u);
        std::mem::swap(&mut self.q_t, &mut h.q_t);
    }

    /// At a resume of the progress with `token` from the iteration's
    /// start (put back by `SolveProgress::restore`), cut after `done`
    /// steps of the preconditioning: takes back the update kept at its
    /// cut, if this solver kept it for that progress and has solved
    /// nothing since (nor, when `done` > 0, changed its hierarchy, whose
    /// cycle holds those steps' vectors); returns `(α, polished, the
    /// residual of its failed check)` (that check's bond results put back
    /// in the solver's), or `None` when the update (and those steps) must
    /// be taken again. The iteration's start goes aside, as
    /// [`Self::keep_iteration_start`] puts it. `verified`: cut inside the
    /// update's check after that many of its parts (the kept `r`, `z` and
    /// bond results are theirs), else 0.
    pub(super) fn take_held_update(
        &mut self,
        token: u64,
        done: u8,
        verified: u32,
    ) -> Option<(f64, bool, Option<f64>)> {
        let changes = self.multilevel.changes();
        let kept = self.kept_ready.take().filter(|h| {
            token != 0
                && h.token == token
                && !h.product
                && h.verified == verified
                && (done == 0 || h.hierarchy == changes)
        })?;
        let h = &self.kept_vectors;
        let n = self.x_u.len();
        let z: &[&Vec<DVec3>] = if verified > 0 { &[&h.z_u, &h.z_t] } else { &[] };
        if [&h.x_u, &h.x_t, &h.r_u, &h.r_t, &h.q_u, &h.q_t]
            .iter()
            .chain(z)
            .any(|v| v.len() != n)
        {
            return None;
        }
        let bonds = if verified > 0 {
            self.check_part_range(verified).start
        } else {
            self.bonds.len()
        };
        if (kept.checked.is_some() || verified > 0) && self.kept_stresses.len() != bonds {
            return None;
        }
        self.swap_kept_vectors();
        if verified > 0 {
            self.swap_kept_z();
        }
        if kept.checked.is_some() || verified > 0 {
            std::mem::swap(&mut self.stresses, &mut self.kept_stresses);
        }
        // `x` is the update held, which the warm start holds if it did.
        self.warm_of_x = kept.warm;
        Some((kept.alpha, kept.polished, kept.checked))
    }

    /// At a cut after an update's product (the progress saved from the
    /// iteration's start, which the product left as it was), or inside it
    /// once its parts have summed over the first `bonds` bonds (0: after
    /// the whole product): keeps `q` under `token` by swapping it with the
    /// kept one.
    pub(super) fn hold_product(&mut self, token: u64, bonds: usize) {
        let h = &mut self.kept_vectors;
        std::mem::swap(&mut self.q_u, &mut h.q_u);
        std::mem::swap(&mut self.q_t, &mut h.q_t);
        self.stresses.clear();
        self.kept_iteration = Some(KeptIteration {
            token,
            alpha: f64::NAN,
            polished: false,
            hierarchy: self.multilevel.changes(),
            checked: None,
            product: true,
            product_bonds: bonds,
            verified: 0,
            warm: self.warm_of_x,
        });
    }

    /// At a resume of the progress with `token` cut after an update's
    /// product (`bonds` 0) or inside it once its parts have summed over the
    /// first `bonds` bonds: takes `q` back if this solver kept it for that
    /// progress, over those very bonds, and has solved nothing since
    /// (true), else leaves the product (those parts) to be taken again
    /// (false; bit for bit the same: it is a function of `p`, the system
    /// and the settings, whatever the parts).
    pub(super) fn take_held_product(&mut self, token: u64, bonds: usize) -> bool {
        let n = self.x_u.len();
        let h = &mut self.kept_vectors;
        let kept = self
            .kept_ready
            .take()
            .filter(|k| token != 0 && k.token == token && k.product && k.product_bonds == bonds);
        let Some(kept) = kept.filter(|_| h.q_u.len() == n && h.q_t.len() == n) else {
            return false;
        };
        std::mem::swap(&mut self.q_u, &mut h.q_u);
        std::mem::swap(&mut self.q_t, &mut h.q_t);
        // `x` is the iteration's start put back, which the warm start
        // holds if it did at the cut.
        self.warm_of_x = kept.warm;
        true
    }

    /// The bonds of part `part` of an update's check in parts (of
    /// [`Self::build_parts`]).
    fn check_part_range(&self, part: u32) -> std::ops::Range<usize> {
        let (k, n, bonds) = (part as usize, self.build_parts() as usize, self.bonds.len());
        bonds * k / n..bonds * (k + 1) / n
    }

    /// The check of an update within ε ([`Self::cg_check`]: `α` =
    /// `alpha`) in [`Self::build_parts`] parts of the bonds, each charged
    /// an equal share of the evaluation, from part `from` (the parts
    /// before it taken by the calls that cut: taken again here, uncharged,
    /// unless `kept`, this solver kept what they made,
    /// [`Self::take_held_update`]). Before a part after this call's first
    /// that would pass the work limit, ends at that part (the caller saves
    /// the progress and holds the update with the parts,
    /// [`Self::hold_update`]). Bit for bit [`Self::cg_check`]: the parts
    /// evaluate the bonds in the same order.
    pub(super) fn check_update_in_parts(
        &mut self,
        alpha: f64,
        inertial: bool,
        worst: &mut Option<f64>,
        checked: &mut Option<f64>,
        from: u32,
        kept: bool,
    ) -> CheckEnd {
        let parts = self.build_parts();
        // (A part past the last only from damaged bytes: from the start.)
        let from = if from < parts { from } else { 0 };
        if !(from > 0 && kept) {
            #[cfg(test)]
            {
                self.verified_again += u32::from(from > 0);
            }
            self.start_check();
            self.start_evaluation();
            for part in 0..from {
                self.evaluate_bonds(self.check_part_range(part));
            }
        }
        let total = EVALUATION_PASSES * self.bonds.len() as u64;
        for part in from..parts {
            let charge = part_charge(total, part, parts);
            if part > from && self.passes.saturating_add(charge) > self.pass_limit {
                return CheckEnd::Cut(part);
            }
            self.evaluate_bonds(self.check_part_range(part));
            self.passes += charge;
        }
        self.refresh_warm_start();
        let residual = self.finish_evaluation(inertial);
        match self.end_check(alpha, residual, worst, checked) {
            Some(residual) => CheckEnd::Passed(residual),
            None => CheckEnd::Failed,
        }
    }

    /// A new token for a cut inside an iteration, unique in the process
    /// (never 0). Which token a cut gets changes no result: a call that
    /// resumes takes back what was kept, or takes it again, bit for bit
    /// the same.
    pub(super) fn next_iteration_token() -> u64 {
        NEXT_TOKEN.fetch_add(1, Ordering::Relaxed).max(1)
    }
}

#[cfg(test)]
mod tests {
    use crate::ChunkIndex;
    use crate::fixtures::{refining_solver, refining_wall};
    use crate::stress::{SolveProgress, StressLoads, StressReport, StressSettings};
    use glam::Vec3;

    /// An update's product in double precision taken in parts (each part
    /// a step, stage `Multiplying`) is bit for bit the product in one
    /// pass, in any number of parts, from 2 to one a bond; and it is
    /// taken in parts exactly when it is the double-precision product
    /// over the bonds of a system of more than one part.
    #[test]
    fn a_product_in_parts_is_the_product_in_one_pass() {
        use super::super::{
            MULTILEVEL_EXACT_PRODUCT_PASSES, MULTILEVEL_PRODUCT_PASSES, stiffness_product,
        };
        use glam::DVec3;
        let (asset, health) = refining_wall().unwrap_or_else(|e| panic!("{e}"));
        let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
        let loads = StressLoads {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            ..Default::default()
        };
        let mut s = refining_solver(&asset, StressSettings::default());
        let r = s
            .solve(&asset, &nodes, &health, &loads)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(r.converged, "{r:?}");
        let n = s.p_u.len();
        let bonds = s.bonds.len();
        assert!(n > 100 && bonds > 300, "{n} nodes, {bonds} bonds");
        // Directions with every bit pattern class: mixed signs and scales.
        for k in 0..n {
            let f = k as f64;
            s.p_u[k] = DVec3::new((f * 0.37).sin(), 1e-3 * (f * 1.3).cos(), -f * 1e-4);
            s.p_t[k] = DVec3::new(1e-2 * (f * 0.7).cos(), (f * 0.11).sin(), 3.0);
        }
        let (mut want_u, mut want_t) = (vec![DVec3::NAN; n], vec![DVec3::NAN; n]);
        stiffness_product(&s.bonds, &s.fixed, &s.p_u, &s.p_t, &mut want_u, &mut want_t);
        let bits = |v: &[DVec3]| -> Vec<[u64; 3]> {
            v.iter().map(|x| x.to_array().map(f64::to_bits)).collect()
        };
        for parts in [2, 3, 7, 64, bonds as u32] {
            s.q_u.fill(DVec3::NAN);
            s.q_t.fill(DVec3::NAN);
            let mut worst = Some(0.0);
            for part in 0..parts {
                s.product_part(false, &mut worst, part, parts);
            }
            assert!(bits(&s.q_u) == bits(&want_u), "{parts} parts: q_u");
            assert!(bits(&s.q_t) == bits(&want_t), "{parts} parts: q_t");
            // Their charges add up to the product's.
            let charged: u64 = (0..parts).map(|p| s.product_charge(p, parts)).sum();
            assert_eq!(charged, MULTILEVEL_EXACT_PRODUCT_PASSES * bonds as u64);
        }
        // Which products go in parts: near ε (and with the forest, which
        // has no single-precision product) the double-precision one, over
        // this system's parts; far from ε with the hierarchy built, the
        // single-precision one, whole.
        s.build_part_bonds = 64;
        let eps = f64::from(s.settings.epsilon);
        assert_eq!(s.product_parts(false, &mut Some(1e9)), s.build_parts());
        assert!(s.build_parts() > 1);
        assert_eq!(s.product_parts(true, &mut Some(0.0)), s.build_parts());
        assert!(s.multilevel.has_single_product());
        assert_eq!(s.product_parts(true, &mut Some(eps * 1e3)), 1);
        assert_eq!(
            s.product_charge(0, 1),
            MULTILEVEL_PRODUCT_PASSES * bonds as u64
        );
    }

    /// A solve cut inside an update's product in parts, its part size
    /// changed (`set_build_part_bonds`) before the next call: that call
    /// takes the parts before again under the new split, and the solve
    /// ends with the results of one unlimited call, bit for bit, full and
    /// reduced, whatever the new size. (Kept across the change, the parts'
    /// sum was taken back and the product went on from the same part
    /// index under the new split, summing some bonds twice and skipping
    /// others: residual 6.4214144e-4 for 6.424531e-4, found by a helper's
    /// breaker test.) A product held over some bonds is not taken back
    /// for others.
    #[test]
    fn a_new_part_size_inside_a_product_changes_no_result() {
        let (asset, health) = refining_wall().unwrap_or_else(|e| panic!("{e}"));
        let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
        let loads = StressLoads {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            ..Default::default()
        };
        for reduce_above in [0, 100] {
            let settings = StressSettings {
                reduce_above,
                ..Default::default()
            };
            let mut whole = refining_solver(&asset, settings);
            let one = whole
                .solve(&asset, &nodes, &health, &loads)
                .unwrap_or_else(|e| panic!("{e}"));
            let want = (
                one.residual.to_bits(),
                format!("{:?}", whole.bond_stresses()),
            );
            for new_size in [7, 200, 5_000] {
                let mut s = refining_solver(&asset, settings);
                s.set_build_part_bonds(64);
                let mut progress: Option<SolveProgress> = None;
                let mut cut_inside = 0;
                let mut last = None;
                for _ in 0..50_000 {
                    let r = s
                        .solve_within(&asset, &nodes, &health, &loads, 1, &mut progress)
                        .unwrap_or_else(|e| panic!("{e}"));
                    last = Some(r.residual.to_bits());
                    match progress.as_ref().map(|p| p.reduced_round().1) {
                        None => break,
                        // Inside a product: the new size at the first
                        // cut, back to 64 at the next.
                        Some(20) if cut_inside < 2 => {
                            cut_inside += 1;
                            s.set_build_part_bonds(if cut_inside == 1 { new_size } else { 64 });
                        }
                        _ => {}
                    }
                }
                assert!(progress.is_none(), "{reduce_above}, {new_size}: unfinished");
                assert!(cut_inside >= 1, "{reduce_above}, {new_size}: no cut inside");
                assert_eq!(last, Some(want.0), "{reduce_above}, {new_size}");
                assert!(
                    format!("{:?}", s.bond_stresses()) == want.1,
                    "{reduce_above}, {new_size}: the bond results differ"
                );
            }
        }
        // Held over the first 100 bonds: taken back for those only.
        let mut s = refining_solver(&asset, StressSettings::default());
        s.solve(&asset, &nodes, &health, &loads)
            .unwrap_or_else(|e| panic!("{e}"));
        for (held, asked, taken) in [(100, 100, true), (100, 101, false), (100, 0, false)] {
            s.hold_product(9, held);
            s.kept_ready = s.kept_iteration.take();
            assert_eq!(s.take_held_product(9, asked), taken, "{held} {asked}");
        }
    }

    /// What happens between two calls of a sliced solve.
    #[derive(Copy, Clone, Debug, PartialEq)]
    enum Between {
        Nothing,
        /// Another cluster (the bottom row) is solved.
        OtherCluster,
        /// The same settings are set again (an update kept is dropped).
        Settings,
        /// The progress goes through postcard (its token is not kept).
        Bytes,
        /// The bottom half of the wall is prepared (its hierarchy built,
        /// when it is solved reduced), the solver's token kept.
        Prepare,
        /// The bottom half's solve is begun under the tightest limit and
        /// left after a few calls (its hierarchy's build pending, over its
        /// own system).
        OtherSliced,
        /// The solver's warm starts are forgotten, then put back as they
        /// were (a reduced round resumed without state starts from the
        /// progress's own warm start).
        WarmStart,
    }

    struct Run {
        reports: Vec<StressReport>,
        bonds: String,
        /// Calls that ended between an update and its preconditioning.
        updated_cuts: usize,
        updates_again: u32,
        /// Calls that ended inside a piece of the hierarchy's build, after
        /// some of its parts: (piece, parts taken).
        building: Vec<(u8, u32)>,
        /// Pending builds the solver compared with its system.
        builds_compared: u32,
        /// Calls that ended inside a round's first preconditioning, and
        /// the resumes that took its steps again.
        starting_cuts: usize,
        starts_again: u32,
        /// Calls that ended inside a round's start's check, and the
        /// resumes that took its parts again.
        checking_cuts: usize,
        checks_again: u32,
        /// Resumes of a check that kept the state its cut left.
        check_states_kept: u32,
        /// Calls that ended inside a round's reduction: the steps taken;
        /// and the calls that went on with the reduction kept.
        reducing: Vec<u32>,
        reductions_kept: u32,
        /// Resumes that copied a round's warm start back from the progress.
        warm_copies: u32,
        /// Cuts that wrote no warm start, it holding `x` already.
        warm_kept: u32,
        /// Resumes that took their cut's residual norm, and that found the
        /// warm start holding the `x` they restored.
        known_reused: u32,
        warm_resumed: u32,
        /// Calls that ended between an update within ε and its check.
        converging_cuts: usize,
        /// Calls that ended after an update's product, and inside one;
        /// products (or their parts) taken again at a resume.
        multiplied_cuts: usize,
        multiplying_cuts: usize,
        products_again: u32,
        /// Calls that ended inside an update's check; resumes that took
        /// its parts again.
        verifying_cuts: usize,
        verified_again: u32,
    }

    fn run(reduce_above: u32, between: Between) -> Run {
        run_in_parts(reduce_above, between, super::super::BUILD_PART_BONDS)
    }

    /// [`run`] with the hierarchy's pieces taken in parts of `part_bonds`
    /// bonds.
    fn run_in_parts(reduce_above: u32, between: Between, part_bonds: usize) -> Run {
        let (asset, health) = refining_wall().unwrap_or_else(|e| panic!("{e}"));
        let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
        let row: Vec<ChunkIndex> = nodes.iter().copied().take(24).collect();
        let lower: Vec<ChunkIndex> = nodes.iter().copied().take(nodes.len() / 2).collect();
        let loads = StressLoads {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            ..Default::default()
        };
        let settings = StressSettings {
            reduce_above,
            ..Default::default()
        };
        let mut s = refining_solver(&asset, settings);
        s.build_part_bonds = part_bonds;
        let mut progress: Option<SolveProgress> = None;
        let mut reports = Vec::new();
        let mut updated_cuts = 0;
        let mut building = Vec::new();
        let mut starting_cuts = 0;
        let mut checking_cuts = 0;
        let mut reducing = Vec::new();
        let mut converging_cuts = 0;
        let mut multiplied_cuts = 0;
        let mut multiplying_cuts = 0;
        let mut verifying_cuts = 0;
        for _ in 0..10_000 {
            let r = s
                .solve_within(&asset, &nodes, &health, &loads, 1, &mut progress)
                .unwrap_or_else(|e| panic!("{e}"));
            reports.push(r);
            // A call cut short reports no bond results, whatever the
            // solver kept (found by a helper's fuzzer at stage 14).
            assert!(
                progress.is_none() || s.bond_stresses().is_empty(),
                "{between:?}: bond results after a cut at {:?}",
                progress.as_ref().map(SolveProgress::reduced_round)
            );
            let Some(p) = progress.as_ref() else {
                return Run {
                    reports,
                    bonds: format!("{:?}", s.bond_stresses()),
                    updated_cuts,
                    updates_again: s.updates_again,
                    building,
                    builds_compared: s.builds_compared,
                    starting_cuts,
                    starts_again: s.starts_again,
                    checking_cuts,
                    checks_again: s.checks_again,
                    check_states_kept: s.check_states_kept,
                    reducing,
                    reductions_kept: s.reductions_kept,
                    warm_copies: s.warm_copies,
                    warm_kept: s.warm_kept,
                    known_reused: s.known_reused,
                    warm_resumed: s.warm_resumed,
                    converging_cuts,
                    multiplied_cuts,
                    multiplying_cuts,
                    products_again: s.products_again,
                    verifying_cuts,
                    verified_again: s.verified_again,
                };
            };
            updated_cuts += usize::from(p.updated().is_some());
            building.extend(p.building());
            starting_cuts += usize::from(p.reduced_round().1 == 13);
            checking_cuts += usize::from(p.reduced_round().1 == 14);
            converging_cuts += usize::from(p.reduced_round().1 == 16);
            multiplied_cuts += usize::from(p.reduced_round().1 == 18);
            multiplying_cuts += usize::from(p.reduced_round().1 == 20);
            verifying_cuts += usize::from(p.reduced_round().1 == 19);
            if p.reduced_round().1 == 15 {
                reducing.extend(p.stage_fields().map(|f| f[0]));
            }
            match between {
                Between::Nothing => {}
                Between::OtherCluster => {
                    s.solve(&asset, &row, &health, &loads)
                        .unwrap_or_else(|e| panic!("{e}"));
                }
                Between::Settings => s.set_settings(settings).unwrap_or_else(|e| panic!("{e}")),
                Between::Prepare => {
                    s.prepare(&asset, &lower, &health)
                        .unwrap_or_else(|e| panic!("{e}"));
                }
                Between::Bytes => {
                    let bytes = postcard::to_stdvec(&progress).unwrap_or_default();
                    progress = postcard::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"));
                }
                Between::WarmStart => {
                    let (u, t) = s.warm_start();
                    let (u, t) = (u.to_vec(), t.to_vec());
                    s.reset_warm_start();
                    s.set_warm_start(&u, &t).unwrap_or_else(|e| panic!("{e}"));
                    s.reset_warm_start();
                }
                Between::OtherSliced => {
                    let mut other = None;
                    for _ in 0..4 {
                        s.solve_within(&asset, &lower, &health, &loads, 1, &mut other)
                            .unwrap_or_else(|e| panic!("{e}"));
                    }
                }
            }
        }
        panic!("the sliced solve did not finish");
    }

    /// Under the tightest limit every iteration ends a call after its
    /// update (and, at full resolution, after each of its
    /// preconditioning's first two steps). Undisturbed, each next call
    /// takes back what the solver kept; after another cluster's solve, new
    /// settings or a progress read back from bytes, it takes the update
    /// (and those steps) again; after another cluster is prepared, it
    /// takes them again where the hierarchy changed. Every call reports the
    /// same either way, and the solve ends with the bond results of one
    /// unlimited call, bit for bit. Full and reduced.
    #[test]
    fn a_kept_update_and_one_taken_again_give_the_same_calls() {
        for reduce_above in [0, 100] {
            let calm = run(reduce_above, Between::Nothing);
            assert!(
                calm.updated_cuts > 5,
                "{reduce_above}: {}",
                calm.updated_cuts
            );
            assert_eq!(calm.updates_again, 0, "{reduce_above}");
            let (asset, health) = refining_wall().unwrap_or_else(|e| panic!("{e}"));
            let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
            let mut whole = refining_solver(
                &asset,
                StressSettings {
                    reduce_above,
                    ..Default::default()
                },
            );
            let one = whole
                .solve(
                    &asset,
                    &nodes,
                    &health,
                    &StressLoads {
                        gravity: Vec3::new(0.0, -9.81, 0.0),
                        ..Default::default()
                    },
                )
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(one.converged);
            assert!(
                calm.bonds == format!("{:?}", whole.bond_stresses()),
                "{reduce_above}: the sliced solve's bond results differ"
            );
            let last = calm.reports.last().map(|r| r.residual.to_bits());
            assert_eq!(last, Some(one.residual.to_bits()));
            let prepared = run(reduce_above, Between::Prepare);
            assert_eq!(
                format!("{:?}", prepared.reports),
                format!("{:?}", calm.reports)
            );
            assert!(prepared.bonds == calm.bonds, "{reduce_above}: prepared");
            // Preparing changes the hierarchy at some cuts (those inside
            // the preconditioning then take the iteration again), not all.
            let again = prepared.updates_again as usize;
            assert!(
                0 < again && again < prepared.updated_cuts,
                "{reduce_above}: {again} of {}",
                prepared.updated_cuts
            );
            // A reduced round's first preconditioning in steps: kept
            // undisturbed, taken again after anything else.
            assert_eq!(calm.starts_again, 0, "{reduce_above}");
            assert_eq!(calm.starting_cuts > 0, reduce_above > 0);
            for between in [Between::OtherCluster, Between::Settings, Between::Bytes] {
                let other = run(reduce_above, between);
                assert_eq!(
                    other.starts_again as usize, calm.starting_cuts,
                    "{reduce_above}, {between:?}"
                );
                assert_eq!(
                    format!("{:?}", other.reports),
                    format!("{:?}", calm.reports),
                    "{reduce_above}, {between:?}"
                );
                assert!(
                    other.bonds == calm.bonds,
                    "{reduce_above}, {between:?}: the bond results differ"
                );
                assert_eq!(
                    other.updates_again as usize, calm.updated_cuts,
                    "{reduce_above}, {between:?}"
                );
            }
        }
    }

    /// The hierarchy's pieces taken in parts (here of 64 bonds, so the
    /// reduced wall's pieces take several; Parts in
    /// `multilevel/build.rs`), and a refining round's reduction in steps
    /// (`solver/reduction.rs`; 27 on the wall refined): under the tightest
    /// limit a call ends inside pieces, after each of their parts, and
    /// inside the reduction after each of its steps, and whatever happens
    /// between two calls (another cluster solved or prepared, whose builds
    /// drop the one under way, which the next call then takes again
    /// uncharged through the parts taken; the progress through bytes)
    /// every call reports the same, and the solve ends with the bond
    /// results of one unlimited call, bit for bit. Full (its switch from
    /// the forest) and reduced.
    /// An update whose check failed, held at a cut with its check (the
    /// cases the fuzzer found, `tests/stress_iteration_steps.rs`): the
    /// calls that resume the same progress on the same solver take it
    /// back, none takes an update again, and every call and the bond
    /// results are those of a run whose solver is told its settings
    /// between calls (which drops what it kept).
    #[test]
    fn an_update_held_with_its_failed_check_is_taken_back() {
        let (asset, health) = refining_wall().unwrap_or_else(|e| panic!("{e}"));
        let nodes: Vec<ChunkIndex> = asset.support_level_chunks().collect();
        let loads = StressLoads {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            ..Default::default()
        };
        let mut held = 0;
        for (reduce_above, max_iterations) in [(0, 24), (100, 27)] {
            let settings = StressSettings {
                max_iterations,
                epsilon: 1e-6,
                reduce_above,
                ..Default::default()
            };
            let run = |meddle: bool| {
                let mut s = refining_solver(&asset, settings);
                let mut p: Option<SolveProgress> = None;
                let mut reports = Vec::new();
                loop {
                    let r = s
                        .solve_within(&asset, &nodes, &health, &loads, 1, &mut p)
                        .unwrap_or_else(|e| panic!("{e}"));
                    reports.push(r);
                    if p.is_none() {
                        return (reports, format!("{:?}", s.bond_stresses()), s);
                    }
                    assert!(s.bond_stresses().is_empty(), "bond results after a cut");
                    if meddle {
                        s.set_settings(settings).unwrap_or_else(|e| panic!("{e}"));
                    }
                }
            };
            let (calm, calm_bonds, calm_solver) = run(false);
            let (again, again_bonds, _) = run(true);
            assert_eq!(format!("{calm:?}"), format!("{again:?}"), "{reduce_above}");
            assert!(calm_bonds == again_bonds, "{reduce_above}");
            assert_eq!(calm_solver.updates_again, 0, "{reduce_above}");
            held += calm_solver.checks_held;
        }
        assert!(held > 0, "no update was held with a failed check");
    }

    #[test]
    fn a_build_in_parts_gives_the_calls_of_one_in_any_weather() {
        for reduce_above in [0, 100] {
            let whole = run(reduce_above, Between::Nothing);
            let calm = run_in_parts(reduce_above, Between::Nothing, 64);
            assert!(whole.building.is_empty(), "{reduce_above}");
            // Every piece is cut inside, each part in turn.
            for piece in 0..5 {
                let parts: Vec<u32> = calm
                    .building
                    .iter()
                    .filter(|b| b.0 == piece)
                    .map(|b| b.1)
                    .collect();
                assert!(
                    parts.len() >= 2 && parts.windows(2).any(|w| w[1] == w[0] + 1),
                    "{reduce_above}: piece {piece}: {parts:?}"
                );
            }
            assert!(calm.reports.len() > whole.reports.len() + 8);
            // On a system of several parts, an update within ε that is a
            // call's first step ends the call before its check.
            assert!(whole.converging_cuts == 0 && calm.converging_cuts > 0);
            // Every refining round's reduction is cut after each of its
            // steps but the last (its 21 parts of 64 bonds and the other
            // phases: 1 to 28, every time), and each next call goes on
            // with what the solver kept; the first round's is one step,
            // and one unlimited call takes none.
            assert!(whole.reducing.is_empty());
            if reduce_above == 0 {
                assert!(calm.reducing.is_empty());
            } else {
                let last = 20 + super::super::reduction::REDUCTION_PHASES;
                let rounds = calm.reducing.len() / last as usize;
                assert!(rounds >= 2, "{:?}", calm.reducing);
                let steps: Vec<u32> = (0..rounds).flat_map(|_| 1..=last).collect();
                assert_eq!(calm.reducing, steps);
                assert_eq!(calm.reductions_kept as usize, calm.reducing.len());
            }
            assert!(calm.bonds == whole.bonds, "{reduce_above}: in parts");
            // Undisturbed, each call that goes on with the build trusts it
            // (`setup_steps.rs`); a progress from bytes compares. A reduced
            // round's check, in parts too, goes on from what its parts
            // made, or takes them again.
            assert_eq!(calm.builds_compared, 0, "{reduce_above}");
            // Nor does one copy the round's warm start back: the solver
            // still holds it (the place's, written at the cut).
            assert_eq!(calm.warm_copies, 0, "{reduce_above}");
            // Inside an iteration, the cuts after its update (its cycle's
            // steps, the next product) write no warm start again; from
            // bytes, every cut writes it.
            assert!(calm.warm_kept > 0, "{reduce_above}");
            // A resume holds the `r` and `x` of the cut it resumes at the
            // loop's top, after or inside a product, inside an iteration's
            // or a round's first preconditioning: it takes their residual
            // norm and warm start from that cut (the reports below are
            // those of a progress from bytes, which takes neither).
            assert!(calm.known_reused > 0, "{reduce_above}");
            assert!(calm.warm_resumed > 0, "{reduce_above}");
            assert_eq!(calm.checks_again, 0, "{reduce_above}");
            assert_eq!(calm.checking_cuts > 0, reduce_above > 0, "{reduce_above}");
            // Each resume of a check keeps the state its cut left (`x`
            // from the warm start); from bytes, none does.
            assert_eq!(calm.check_states_kept as usize, calm.checking_cuts);
            // Each update's product a step of its own (near ε, in double
            // precision, in parts: a call ends inside it too), kept by the
            // calls that go on.
            assert!(calm.multiplied_cuts > 0, "{reduce_above}");
            assert!(calm.multiplying_cuts > 0, "{reduce_above}");
            assert_eq!(calm.products_again, 0, "{reduce_above}");
            // The check of an update within ε, resumed, in parts too (one
            // a call), kept by the calls that go on.
            assert!(calm.verifying_cuts > 0, "{reduce_above}");
            assert_eq!(calm.verified_again, 0, "{reduce_above}");
            assert_eq!(
                calm.reports.last().map(|r| r.residual.to_bits()),
                whole.reports.last().map(|r| r.residual.to_bits())
            );
            for between in [
                Between::OtherCluster,
                Between::Prepare,
                Between::Bytes,
                Between::Settings,
                Between::OtherSliced,
                Between::WarmStart,
            ] {
                let other = run_in_parts(reduce_above, between, 64);
                if between == Between::Bytes {
                    assert!(other.builds_compared > 5, "{reduce_above}");
                    assert_eq!(other.checks_again as usize, calm.checking_cuts);
                    assert_eq!(
                        other.products_again as usize,
                        calm.multiplied_cuts + calm.multiplying_cuts
                    );
                    assert_eq!(other.verified_again as usize, calm.verifying_cuts);
                    assert_eq!(other.warm_kept, 0, "{reduce_above}");
                    assert_eq!(other.check_states_kept, 0, "{reduce_above}");
                    assert_eq!(other.known_reused, 0, "{reduce_above}");
                    assert_eq!(other.warm_resumed, 0, "{reduce_above}");
                    // From bytes, every resume of a place without state
                    // copies its warm start: one a cut inside a reduction
                    // at least.
                    assert!(
                        other.warm_copies as usize >= calm.reducing.len(),
                        "{reduce_above}"
                    );
                }
                assert_eq!(
                    format!("{:?}", other.reports),
                    format!("{:?}", calm.reports),
                    "{reduce_above}, {between:?}"
                );
                assert_eq!(other.building, calm.building, "{reduce_above}, {between:?}");
                assert_eq!(other.reducing, calm.reducing, "{reduce_above}, {between:?}");
                // Anything between two calls takes the steps again.
                assert_eq!(other.reductions_kept, 0, "{reduce_above}, {between:?}");
                assert!(
                    other.bonds == calm.bonds,
                    "{reduce_above}, {between:?}: the bond results differ"
                );
            }
        }
    }
}
