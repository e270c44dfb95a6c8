//! A reduced round's setup taken in steps (the hierarchy's build in
//! pieces and parts, `multilevel/build.rs`; the start's check in parts and
//! its first preconditioning in the cycle's steps): what the solver keeps
//! between the call that cut inside the setup and the call that resumes
//! it, so that call goes on from it instead of taking it again.
//!
//! The call that cuts gives its progress a token (not serialised; see
//! `iteration_steps.rs`) and keeps it with the hierarchy's count of
//! changes (`Multilevel::changes`: every build, part, rebuild and update
//! bumps it). The next call on this solver, resuming that very progress
//! (so the same nodes, intact bonds and loads, hence the same system,
//! which it derives again without touching the hierarchy, or else drops
//! the pending build), with the count unchanged, trusts what was kept:
//! - a build pending, without comparing the system with the hierarchy's
//!   copy of it bit for bit (every node centre and bond spring: 0.33–0.41
//!   ms of each such call on the 100 × 50 × 2 wall refined, about 20,000
//!   bonds);
//! - the vectors the cycle holds after the first preconditioning's steps
//!   taken;
//! - the check's partial `r` and bond results (set aside at the cut, so
//!   the cut call reports none).
//!
//! Any other call (a progress from bytes, another solver, another cluster
//! solved or prepared in between, new settings) compares the build, and
//! takes the cycle's steps and the check's parts again from the start,
//! uncharged, bit for bit the same.

use super::{SolveProgress, StressSolver};

/// A cut inside a round's setup, kept between the call that cut and the
/// next.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct KeptSetup {
    /// The token given to the progress saved at the cut (never 0).
    token: u64,
    /// The hierarchy's changes at the cut.
    hierarchy: u64,
}

impl StressSolver {
    /// At a cut that leaves the hierarchy's build pending (`progress` just
    /// saved): keeps it for the progress ([`Self::hold_setup`]).
    pub(super) fn hold_build(&mut self, progress: Option<&mut SolveProgress>) {
        if self.multilevel.pending_piece().is_some() {
            self.hold_setup(progress);
        }
    }

    /// At a cut inside a round's setup (`progress` just saved): gives the
    /// progress a new token and keeps it, with the hierarchy's count of
    /// changes, so the next call can go on from what the solver holds
    /// ([`Self::trust_setup`]).
    pub(super) fn hold_setup(&mut self, progress: Option<&mut SolveProgress>) {
        let Some(progress) = progress else {
            return;
        };
        let token = Self::next_iteration_token();
        progress.set_token(token);
        self.kept_setup = Some(KeptSetup {
            token,
            hierarchy: self.multilevel.changes(),
        });
    }

    /// At a resume of the progress with `token` inside a round's setup:
    /// whether this solver kept what it holds for that progress, with
    /// nothing solved and the hierarchy unchanged since; otherwise the
    /// caller takes it again, uncharged, bit for bit the same.
    pub(super) fn trust_setup(&mut self, token: u64) -> bool {
        let changes = self.multilevel.changes();
        self.kept_setup_ready
            .take()
            .is_some_and(|k| token != 0 && k.token == token && k.hierarchy == changes)
    }

    /// Whether the last call on this solver cut the progress with `token`
    /// inside a round's setup and nothing touched the solver since (no
    /// solve, no new settings or warm start): the warm start it holds is
    /// still the one the progress saved. Takes nothing.
    pub(super) fn setup_kept_for(&self, token: u64) -> bool {
        token != 0 && self.kept_setup_ready.is_some_and(|k| k.token == token)
    }

    /// At a cut inside a reduced round's start's check (its evaluation
    /// taken in parts, `progress` just saved): sets what the parts made
    /// aside (`r` into the kept vectors, the bond results, so none are
    /// reported) and keeps it for the progress under a new token. What the
    /// kept buffers held before (parts of an earlier check, a held
    /// update's failed check never taken back) is dropped: left in the
    /// bond results, a helper's fuzzer found it reported by
    /// `bond_stresses` after such a cut.
    pub(super) fn hold_check(&mut self, progress: Option<&mut SolveProgress>) {
        self.swap_kept_check();
        self.stresses.clear();
        self.hold_setup(progress);
    }

    /// At a resume of that check, trusted ([`Self::trust_setup`]): puts
    /// back what the parts before made; false (nothing changed) when the
    /// kept vectors do not fit the system.
    pub(super) fn take_kept_check(&mut self) -> bool {
        let n = self.r_u.len();
        let fits =
            self.kept_vectors.r_lens() == (n, n) && self.kept_stresses.len() <= self.bonds.len();
        if fits {
            self.swap_kept_check();
        }
        fits
    }

    /// Swaps `r` and the bond results with the kept ones.
    fn swap_kept_check(&mut self) {
        self.kept_vectors.swap_r(&mut self.r_u, &mut self.r_t);
        std::mem::swap(&mut self.stresses, &mut self.kept_stresses);
    }

    /// At a resume inside the hierarchy's build of the progress with
    /// `token`: whether the build pending is the one this solver kept for
    /// it, untouched since (see the module docs); the pieces' parts then
    /// go on without comparing the system (`start_hierarchy`).
    pub(super) fn trust_build(&mut self, token: u64) {
        self.build_trusted = self.trust_setup(token);
    }
}
