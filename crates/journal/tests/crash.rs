//! Crash safety of the journal: a child process (this test binary, re-executed
//! with `SMITHEREENS_CRASH_CHILD` set) commits in a loop and acknowledges each
//! durable commit on stdout; the parent kills it with SIGKILL at seeded random
//! moments, then opens the journal and checks that
//! * every acknowledged commit survived (nothing acknowledged is lost),
//! * at most the one in-flight commit beyond the last acknowledgement exists,
//! * the recovered state equals a reference replay of the same commits,
//! * receipts and commits agree (no receipt without its commit, nor the reverse).
//!
//! The next child resumes from the recovered journal, so every cycle also
//! tests resuming after a crash. The suite runs 50 kills; the soaks
//! (`bash scripts/soak.sh`, not in CI) run 500 and 1,000.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use smithereens_core::*;
use smithereens_journal::*;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const CHILD_ENV: &str = "SMITHEREENS_CRASH_CHILD";

fn options() -> JournalOptions {
    JournalOptions {
        checkpoint_every: 16,
        ..JournalOptions::default()
    }
}

/// The child role: resume (or create) the journal and commit forever.
#[test]
fn crash_child_role() {
    let Some(path) = std::env::var_os(CHILD_ENV).map(PathBuf::from) else {
        return; // an ordinary test run: nothing to do
    };
    if !path.exists() {
        // Create under a temporary name and rename, so a kill during creation
        // never leaves a half-made journal at `path`.
        let tmp = path.with_extension("creating");
        let _ = std::fs::remove_file(&tmp);
        let inst = Instance::with_desc(asset(), desc()).unwrap();
        drop(Journal::create(&tmp, &inst, options()).unwrap());
        std::fs::rename(&tmp, &path).unwrap();
    }
    let mut journal = Journal::open(&path, options()).unwrap();
    let mut inst = journal.recover(asset()).unwrap().instance;
    let mut out = std::io::stdout().lock();
    loop {
        let seq = inst.commit_seq() + 1;
        inst.admit(event_for(seq)).unwrap();
        if let Some(p) = inst.pending().iter().find(|p| p.event.id == EventId(seq)) {
            journal.record_admission(p).unwrap();
        }
        let record = inst
            .commit(&mut HeadlessBackend::default())
            .unwrap()
            .record
            .unwrap();
        journal.append(&record, &inst).unwrap();
        writeln!(out, "ACK {seq} {:016x}", inst.state_hash()).unwrap();
        out.flush().unwrap();
    }
}

fn parse_ack(line: &str) -> Option<(u64, u64)> {
    // The harness prints "test crash_child_role ... " without a newline
    // before the test body runs, so the first ack may share its line.
    let at = line.find("ACK ")?;
    let mut it = line[at + 4..].split(' ');
    let seq = it.next()?.parse().ok()?;
    let hash = u64::from_str_radix(it.next()?, 16).ok()?;
    Some((seq, hash))
}

struct Tally {
    acks: u64,
    cycles_with_acks: u32,
    signalled: u32,
    in_flight_found: u32,
}

fn crash_cycles(kills: u32, seed: u64, max_delay_ms: u64) -> Tally {
    let dir = temp_dir("crash");
    let path = dir.join("crash.redb");
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut reference = Reference::new();
    let mut durable = 0u64;
    let mut tally = Tally {
        acks: 0,
        cycles_with_acks: 0,
        signalled: 0,
        in_flight_found: 0,
    };
    for _ in 0..kills {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "crash_child_role",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, received) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            for ack in BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .filter_map(|l| parse_ack(&l))
            {
                if sender.send(ack).is_err() {
                    break;
                }
            }
        });
        // Kill after a seeded number of acknowledged commits (0 = possibly
        // before the first), then a random delay that lands anywhere in the
        // next commits: the schedule counts progress, not wall-clock time,
        // so a loaded machine gets the same coverage as an idle one.
        let wait_for = rng.random_range(0..=3usize);
        let mut acks = Vec::new();
        while acks.len() < wait_for {
            match received.recv_timeout(Duration::from_secs(60)) {
                Ok(ack) => acks.push(ack),
                Err(e) => panic!("child made no progress for 60 s ({e})"),
            }
        }
        std::thread::sleep(Duration::from_micros(
            rng.random_range(0..=max_delay_ms * 1000),
        ));
        child.kill().unwrap(); // SIGKILL on Unix
        let status = child.wait().unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            if status.signal() == Some(9) {
                tally.signalled += 1;
            }
        }
        let _ = status;
        reader.join().unwrap();
        acks.extend(received.try_iter());
        for &(seq, hash) in &acks {
            assert_eq!(
                hash,
                reference.hash(seq),
                "acknowledged commit {seq} differs from the reference"
            );
        }
        let last_ack = acks.last().map_or(durable, |&(s, _)| s);
        tally.acks += acks.len() as u64;
        tally.cycles_with_acks += !acks.is_empty() as u32;
        if !path.exists() {
            assert!(acks.is_empty());
            continue;
        }
        let recovered = check_journal(&path, &mut reference);
        assert!(
            recovered >= last_ack,
            "acknowledged commit {last_ack} was lost (recovered {recovered})"
        );
        assert!(
            recovered <= last_ack + 1,
            "recovered {recovered}, but only {last_ack} (+1 in flight) was acknowledged"
        );
        tally.in_flight_found += (recovered == last_ack + 1) as u32;
        durable = recovered;
    }
    std::fs::remove_dir_all(&dir).ok();
    tally
}

/// Opens, verifies and recovers; checks against the reference; returns the commit.
fn check_journal(path: &Path, reference: &mut Reference) -> u64 {
    let journal = Journal::open(path, options()).unwrap();
    let report = journal.verify().unwrap();
    let rec = journal.recover(asset()).unwrap();
    let seq = rec.instance.commit_seq();
    assert_eq!(report.commit_seq, seq);
    // One receipt per commit, no more, no less, for the newest
    // `DEFAULT_RECEIPT_WINDOW` commits; older ones have expired (the soaks
    // in release mode commit far past the window).
    let window = u64::from(smithereens_core::receipts::DEFAULT_RECEIPT_WINDOW);
    assert_eq!(report.receipts, seq.min(window), "receipts stored");
    assert_eq!(rec.instance.state_hash(), reference.hash(seq));
    for s in 1..=seq {
        if s + window <= seq {
            assert!(matches!(
                rec.instance.receipt_window().lookup(EventId(s)),
                smithereens_core::receipts::ReceiptLookup::Expired
            ));
            continue;
        }
        let r = rec.instance.receipt(EventId(s)).unwrap();
        assert_eq!(r.commit_seq, s);
        assert!(r.event.same_parameters(&event_for(s).event()));
    }
    assert!(rec.instance.receipt(EventId(seq + 1)).is_none());
    // At most the next event is pending, with the geometry frozen at its admission.
    match rec.instance.pending() {
        [] => {}
        [p] => assert_eq!(p.event.id, EventId(seq + 1)),
        more => panic!("{} pending events", more.len()),
    }
    seq
}

#[test]
fn sigkill_at_random_moments_never_loses_an_acknowledged_commit() {
    let t = crash_cycles(50, 0xC0FF_EE00, 40);
    eprintln!(
        "{} kills, {} acknowledged commits, {} cycles with acks, {} in-flight commits found durable",
        t.signalled, t.acks, t.cycles_with_acks, t.in_flight_found
    );
    assert_eq!(t.signalled, 50, "every child was killed by SIGKILL mid-run");
    assert!(
        t.cycles_with_acks >= 10,
        "children got to commit ({} cycles)",
        t.cycles_with_acks
    );
    assert!(t.acks >= 50, "{} acknowledged commits", t.acks);
}

#[test]
#[ignore = "soak: 500 SIGKILLs, a few minutes"]
fn sigkill_soak_500_kills() {
    let t = crash_cycles(500, 0x50AC_0001, 60);
    eprintln!(
        "soak: {} kills, {} acknowledged commits, {} cycles with acks, {} in-flight commits found durable",
        t.signalled, t.acks, t.cycles_with_acks, t.in_flight_found
    );
    assert_eq!(t.signalled, 500);
}

#[test]
#[ignore = "soak: 1,000 SIGKILLs, several minutes"]
fn sigkill_soak_1000_kills() {
    let t = crash_cycles(1000, 0x50AC_0002, 60);
    eprintln!(
        "soak: {} kills, {} acknowledged commits, {} cycles with acks, {} in-flight commits found durable",
        t.signalled, t.acks, t.cycles_with_acks, t.in_flight_found
    );
    assert_eq!(t.signalled, 1000);
}
