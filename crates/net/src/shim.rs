//! A seeded loss / duplication / reordering shim, applied to datagrams on
//! send, so a loopback link behaves like a bad network.
//!
//! For every datagram handed to [`Shim::push`], in order, the shim draws from
//! a PCG generator seeded with [`ShimDesc::seed`]:
//! 1. with probability `loss` the datagram is dropped;
//! 2. otherwise, with probability `duplicate`, it is sent twice;
//! 3. each copy, with probability `reorder`, is held back until
//!    `1..=max_hold` further datagrams have been sent (uniform), or
//!    `hold` has passed ([`Shim::release_due`]), whichever comes first: it
//!    then arrives after datagrams sent later.
//!
//! The decisions depend only on the seed and the order of the datagrams
//! (the same sends give the same drops, copies and holds); only the
//! time-based release of a held datagram depends on the clock.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// How a [`Shim`] perturbs datagrams. All probabilities in `[0, 1]`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ShimDesc {
    /// Probability that a datagram is dropped.
    pub loss: f64,
    /// Probability that a datagram that is not dropped is sent twice.
    pub duplicate: f64,
    /// Probability that each copy is held back (reordered).
    pub reorder: f64,
    /// A held copy is released after at most this many later datagrams (≥ 1).
    pub max_hold: u32,
    /// ... or after this long.
    pub hold: Duration,
    /// Seed of the decisions.
    pub seed: u64,
}

impl Default for ShimDesc {
    /// A perfect link (nothing dropped, duplicated or held); holds, when
    /// enabled, last up to 4 datagrams or 5 ms.
    fn default() -> Self {
        Self {
            loss: 0.0,
            duplicate: 0.0,
            reorder: 0.0,
            max_hold: 4,
            hold: Duration::from_millis(5),
            seed: 0,
        }
    }
}

/// Why a [`ShimDesc`] was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ShimError {
    /// A probability outside `[0, 1]` or not a number.
    #[error("{name} = {value} is not a probability in [0, 1]")]
    Probability {
        /// `loss`, `duplicate` or `reorder`.
        name: &'static str,
        /// The value given.
        value: f64,
    },
    /// `max_hold` is 0.
    #[error("max_hold must be at least 1")]
    MaxHold,
}

impl ShimDesc {
    /// Checks the probabilities and the hold.
    ///
    /// # Errors
    /// [`ShimError`].
    pub fn validate(&self) -> Result<(), ShimError> {
        for (name, value) in [
            ("loss", self.loss),
            ("duplicate", self.duplicate),
            ("reorder", self.reorder),
        ] {
            if !(0.0..=1.0).contains(&value) {
                return Err(ShimError::Probability { name, value });
            }
        }
        if self.max_hold == 0 {
            return Err(ShimError::MaxHold);
        }
        Ok(())
    }
}

/// What a [`Shim`] did.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ShimCounters {
    /// Datagrams handed to the shim.
    pub offered: u64,
    /// Datagrams put on the wire (copies included).
    pub delivered: u64,
    /// Datagrams dropped.
    pub dropped: u64,
    /// Datagrams sent twice.
    pub duplicated: u64,
    /// Copies held back.
    pub reordered: u64,
}

impl std::fmt::Display for ShimCounters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "sent={} delivered={} dropped={} duplicated={} reordered={}",
            self.offered, self.delivered, self.dropped, self.duplicated, self.reordered
        )
    }
}

#[derive(Debug)]
struct Held {
    to: SocketAddr,
    datagram: Vec<u8>,
    /// Released when this many more datagrams have been sent.
    after: u32,
    deadline: Instant,
}

/// The shim: decides the fate of each datagram, holds reordered ones.
#[derive(Debug)]
pub struct Shim {
    desc: ShimDesc,
    rng: Pcg64Mcg,
    held: Vec<Held>,
    counters: ShimCounters,
}

impl Shim {
    /// A shim for `desc`.
    ///
    /// # Errors
    /// [`ShimError`] for an invalid `desc`.
    ///
    /// ```
    /// use smithereens_net::shim::{Shim, ShimDesc};
    /// use std::time::Instant;
    /// let desc = ShimDesc { loss: 0.3, seed: 7, ..ShimDesc::default() };
    /// let mut shim = Shim::new(desc).unwrap();
    /// let to = "127.0.0.1:9000".parse().unwrap();
    /// let mut wire = Vec::new();
    /// for k in 0..1000u32 {
    ///     shim.push(to, k.to_le_bytes().to_vec(), Instant::now(), &mut wire);
    /// }
    /// let c = shim.counters();
    /// assert_eq!(c.offered, 1000);
    /// assert_eq!(c.delivered + c.dropped, 1000);
    /// assert!((250..350).contains(&c.dropped));
    /// ```
    pub fn new(desc: ShimDesc) -> Result<Self, ShimError> {
        desc.validate()?;
        Ok(Self {
            desc,
            rng: Pcg64Mcg::seed_from_u64(desc.seed),
            held: Vec::new(),
            counters: ShimCounters::default(),
        })
    }

    /// A shim that passes everything through unchanged.
    pub fn perfect() -> Self {
        Self {
            desc: ShimDesc::default(),
            rng: Pcg64Mcg::seed_from_u64(0),
            held: Vec::new(),
            counters: ShimCounters::default(),
        }
    }

    /// Its settings.
    pub fn desc(&self) -> &ShimDesc {
        &self.desc
    }

    /// Its counters.
    pub fn counters(&self) -> ShimCounters {
        self.counters
    }

    /// Datagrams currently held back.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// Offers one datagram for `to` at time `now`; appends what goes on the
    /// wire now to `out` (this datagram's copies not held back, then held
    /// datagrams whose turn came).
    pub fn push(
        &mut self,
        to: SocketAddr,
        datagram: Vec<u8>,
        now: Instant,
        out: &mut Vec<(SocketAddr, Vec<u8>)>,
    ) {
        self.counters.offered += 1;
        let d = self.desc;
        if d.loss > 0.0 && self.rng.random_bool(d.loss) {
            self.counters.dropped += 1;
            return;
        }
        let copies = if d.duplicate > 0.0 && self.rng.random_bool(d.duplicate) {
            self.counters.duplicated += 1;
            2
        } else {
            1
        };
        let mut sent = 0u32;
        let mut last = Some(datagram);
        for k in 0..copies {
            let copy = if k + 1 == copies {
                last.take().unwrap_or_default()
            } else {
                last.clone().unwrap_or_default()
            };
            if d.reorder > 0.0 && self.rng.random_bool(d.reorder) {
                self.counters.reordered += 1;
                let after = self.rng.random_range(1..=d.max_hold);
                self.held.push(Held {
                    to,
                    datagram: copy,
                    after,
                    deadline: crate::instant_after(now, d.hold),
                });
            } else {
                out.push((to, copy));
                sent += 1;
            }
        }
        self.counters.delivered += u64::from(sent);
        self.count_down(sent, now, out);
    }

    /// Releases held datagrams whose time has come (call it while idle).
    pub fn release_due(&mut self, now: Instant, out: &mut Vec<(SocketAddr, Vec<u8>)>) {
        self.count_down(0, now, out);
    }

    /// Releases every held datagram (at shutdown).
    pub fn release_all(&mut self, out: &mut Vec<(SocketAddr, Vec<u8>)>) {
        for h in self.held.drain(..) {
            self.counters.delivered += 1;
            out.push((h.to, h.datagram));
        }
    }

    fn count_down(&mut self, sent: u32, now: Instant, out: &mut Vec<(SocketAddr, Vec<u8>)>) {
        if self.held.is_empty() {
            return;
        }
        let mut k = 0;
        while k < self.held.len() {
            let h = &mut self.held[k];
            h.after = h.after.saturating_sub(sent);
            if h.after == 0 || now >= h.deadline {
                let h = self.held.remove(k);
                self.counters.delivered += 1;
                out.push((h.to, h.datagram));
            } else {
                k += 1;
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn run(desc: ShimDesc, n: u32) -> (Vec<u32>, ShimCounters) {
        let mut shim = Shim::new(desc).unwrap();
        let to = SocketAddr::from(([127, 0, 0, 1], 9));
        let now = Instant::now();
        let mut wire = Vec::new();
        for k in 0..n {
            shim.push(to, k.to_le_bytes().to_vec(), now, &mut wire);
        }
        shim.release_all(&mut wire);
        let order = wire
            .iter()
            .map(|(_, d)| u32::from_le_bytes([d[0], d[1], d[2], d[3]]))
            .collect();
        (order, shim.counters())
    }

    fn adverse(seed: u64) -> ShimDesc {
        ShimDesc {
            loss: 0.3,
            duplicate: 0.1,
            reorder: 0.1,
            max_hold: 4,
            hold: Duration::from_secs(60),
            seed,
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_fate_to_every_datagram() {
        let (a, ca) = run(adverse(11), 5000);
        let (b, cb) = run(adverse(11), 5000);
        assert_eq!(a, b);
        assert_eq!(ca, cb);
        let (c, _) = run(adverse(12), 5000);
        assert_ne!(a, c, "another seed, other fates");
    }

    #[test]
    fn counts_match_the_probabilities_and_what_reached_the_wire() {
        let n = 20_000u32;
        let (wire, c) = run(adverse(5), n);
        assert_eq!(c.offered, n as u64);
        assert_eq!(c.delivered, wire.len() as u64);
        assert_eq!(c.delivered, c.offered - c.dropped + c.duplicated);
        let share = |x: u64, of: u64| x as f64 / of as f64;
        assert!((0.28..0.32).contains(&share(c.dropped, c.offered)), "{c:?}");
        let kept = c.offered - c.dropped;
        assert!((0.09..0.11).contains(&share(c.duplicated, kept)), "{c:?}");
        assert!(
            (0.09..0.11).contains(&share(c.reordered, c.delivered)),
            "{c:?}"
        );
        // Every datagram arrives at most twice; every duplicate arrives twice.
        let mut seen = vec![0u8; n as usize];
        for &k in &wire {
            seen[k as usize] += 1;
        }
        assert!(seen.iter().all(|&s| s <= 2));
        assert_eq!(
            seen.iter().filter(|&&s| s == 2).count() as u64,
            c.duplicated
        );
        assert_eq!(seen.iter().filter(|&&s| s == 0).count() as u64, c.dropped);
        // Reordering is real: some datagram arrives after a later one.
        let inversions = wire.windows(2).filter(|w| w[0] > w[1]).count();
        assert!(inversions > 0);
    }

    #[test]
    fn a_held_datagram_comes_out_after_its_count_or_its_deadline() {
        let desc = ShimDesc {
            reorder: 1.0,
            max_hold: 1,
            hold: Duration::from_millis(5),
            ..ShimDesc::default()
        };
        let mut shim = Shim::new(desc).unwrap();
        let to = SocketAddr::from(([127, 0, 0, 1], 9));
        let t0 = Instant::now();
        let mut wire = Vec::new();
        shim.push(to, vec![1], t0, &mut wire);
        assert!(wire.is_empty());
        assert_eq!(shim.held(), 1);
        shim.release_due(t0 + Duration::from_millis(1), &mut wire);
        assert!(wire.is_empty());
        shim.release_due(t0 + Duration::from_millis(5), &mut wire);
        assert_eq!(wire, vec![(to, vec![1])]);
        // Counted release: with everything held, nothing counts down (no
        // datagram was sent), so only the deadline frees them.
        let desc = ShimDesc {
            reorder: 0.5,
            max_hold: 2,
            hold: Duration::from_secs(60),
            seed: 3,
            ..ShimDesc::default()
        };
        let mut shim = Shim::new(desc).unwrap();
        let mut wire = Vec::new();
        for k in 0..200u8 {
            shim.push(to, vec![k], t0, &mut wire);
            assert!(shim.held() <= 200);
        }
        shim.release_all(&mut wire);
        assert_eq!(wire.len(), 200);
        assert_eq!(shim.held(), 0);
    }

    #[test]
    fn probabilities_outside_zero_to_one_are_refused() {
        for bad in [-0.1, 1.5, f64::NAN] {
            let desc = ShimDesc {
                loss: bad,
                ..ShimDesc::default()
            };
            assert!(matches!(
                Shim::new(desc),
                Err(ShimError::Probability { name: "loss", .. })
            ));
        }
        let desc = ShimDesc {
            max_hold: 0,
            ..ShimDesc::default()
        };
        assert!(matches!(Shim::new(desc), Err(ShimError::MaxHold)));
    }
}
