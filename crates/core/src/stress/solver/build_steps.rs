//! The hierarchy's build taken in steps (its pieces and their parts,
//! `multilevel/build.rs`): what the solver keeps between the call that
//! cut inside the build and the call that resumes it.
//!
//! A call that goes on with a build in pieces must know that the build
//! pending in the solver's hierarchy is over the system it stands on. It
//! used to compare the hierarchy's copy of the system with the solver's,
//! bit for bit (every node centre and bond spring: 0.33–0.41 ms of each
//! such call on the 100 × 50 × 2 wall refined, about 20,000 bonds). Now
//! the call that cuts gives its progress a token (not serialised; see
//! `iteration_steps.rs`) and keeps it with the hierarchy's count of changes
//! (`Multilevel::changes`: every build, part, rebuild and update bumps
//! it). The next call on this solver, resuming that very progress (so the
//! same nodes, intact bonds and loads, hence the same system, which it
//! derives again without touching the hierarchy, or else drops the
//! pending build), with the count unchanged, trusts the pending build
//! without the comparison. Any other call compares as before: a
//! progress from bytes, another solver, another cluster solved or
//! prepared in between, new settings.

use super::SolveProgress;
use super::StressSolver;

/// A cut inside the hierarchy's build, kept between the call that cut and
/// the next.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct KeptBuild {
    /// The token given to the progress saved at the cut (never 0).
    token: u64,
    /// The hierarchy's changes at the cut.
    hierarchy: u64,
}

impl StressSolver {
    /// At a cut that leaves the hierarchy's build pending (`progress` just
    /// saved): gives the progress a new token and keeps it.
    pub(super) fn hold_build(&mut self, progress: Option<&mut SolveProgress>) {
        let Some(progress) = progress else {
            return;
        };
        if self.multilevel.pending_piece().is_none() {
            return;
        }
        let token = Self::next_iteration_token();
        progress.set_token(token);
        self.kept_build = Some(KeptBuild {
            token,
            hierarchy: self.multilevel.changes(),
        });
    }

    /// At a cut inside a reduced round's first preconditioning, after some
    /// steps of its cycle (`progress` just saved): gives the progress a new
    /// token and keeps it, with the hierarchy's count of changes, so the
    /// next call can go on from what the cycle holds ([`Self::trust_cycle`]).
    pub(super) fn hold_cycle(&mut self, progress: Option<&mut SolveProgress>) {
        let Some(progress) = progress else {
            return;
        };
        let token = Self::next_iteration_token();
        progress.set_token(token);
        self.kept_build = Some(KeptBuild {
            token,
            hierarchy: self.multilevel.changes(),
        });
    }

    /// At a resume of the progress with `token` inside a reduced round's
    /// first preconditioning: whether the hierarchy's cycle holds the
    /// steps taken before, this solver having kept them for it with
    /// nothing solved and the hierarchy unchanged since; otherwise the
    /// caller takes them again, uncharged, bit for bit the same.
    pub(super) fn trust_cycle(&mut self, token: u64) -> bool {
        let changes = self.multilevel.changes();
        self.kept_build_ready
            .take()
            .is_some_and(|k| token != 0 && k.token == token && k.hierarchy == changes)
    }

    /// At a cut inside a reduced round's start's check (its evaluation
    /// taken in parts, `progress` just saved): sets what the parts made
    /// aside (`r` into the kept vectors, the bond results, so none are
    /// reported) and keeps it for the progress under a new token.
    pub(super) fn hold_check(&mut self, progress: Option<&mut SolveProgress>) {
        self.swap_kept_check();
        self.hold_cycle(progress);
    }

    /// At a resume of that check, trusted ([`Self::trust_cycle`]): puts
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
        let changes = self.multilevel.changes();
        self.build_trusted = self
            .kept_build_ready
            .take()
            .is_some_and(|k| token != 0 && k.token == token && k.hierarchy == changes);
    }
}
