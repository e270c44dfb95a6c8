//! `serve` and `join`: replication of a scenario's destruction over UDP on
//! loopback ([`smithereens_net`], DESIGN §3.10).
//!
//! `serve` runs the scenario authoritatively (Rapier, paced in real time),
//! broadcasts every commit record and answers snapshot requests; `join`
//! keeps a core replica of every instance (no Rapier) and exits once it
//! holds the server's final state. Replication carries the destruction
//! state (bond health, clusters, their representation and slots), not the
//! per-step poses: the lines both print compare
//! [`Instance::replicated_hash`], which leaves motion out.
//!
//! Both print one line per thing that happened, flushed at once, for tools
//! to read:
//!
//! | who | line |
//! | --- | --- |
//! | serve | `listening ADDR scenario=NAME instances=N steps=S` |
//! | serve | `joined ADDR`, `left ADDR`, `snapshot INSTANCE SEQ to ADDR [reused]` |
//! | serve | `checkpoint INSTANCE SEQ HASH` per commit record, `final INSTANCE SEQ HASH` after the run |
//! | join | `joined SERVER as ADDR instances=N` |
//! | join | `applied INSTANCE SEQ HASH commit\|snapshot` per state reached, `requested INSTANCE HAVE` |
//! | join | `done instances=N` |
//! | both | `shim sent=… delivered=… dropped=… duplicated=… reordered=…` at the end |
//! | serve | `served …` / join: `received …` counters at the end |
//!
//! `serve` ends once every receiver that joined has left or fallen silent
//! for 3 s (evicted: killed, or lost), or after `--linger-s`; with no
//! receiver at all it lingers the whole time for late joiners. `join`
//! gives up after `--timeout-s`, or 5 s after the server fell silent.
//!
//! HASH is the 16-digit hex [`Instance::replicated_hash`]. A checkpoint's
//! hash comes from a core mirror of each instance that applies the same
//! records the receivers get; after every step the server checks that the
//! mirror's hash equals the Rapier-driven instance's and stops with
//! [`ServeError::RecordMismatch`] if not (so the records provably carry
//! the whole destruction state).

use crate::simulate::ScenarioSource;
use smithereens_core::instance::{InstanceDesc, InstanceId};
use smithereens_core::snapshot::Snapshot;
use smithereens_core::{Asset, AssetFile, Instance, RecordOutcome};
use smithereens_net::{
    NetError, ReceiverDesc, ReceiverEvent, Server, ServerDesc, ServerEvent, ShimCounters, ShimDesc,
    SnapshotSource, Welcome,
};
use smithereens_rapier::recorded_run::{RunError, ScriptedRun, run_observed};
use smithereens_rapier::{DestructionSet, InstanceHandle};
use smithereens_scenario::{ScenarioFile, ScenarioFileError, build};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Why `serve` failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The scenario could not be read or built.
    #[error(transparent)]
    Scenario(#[from] ScenarioFileError),
    /// An instance could not be built.
    #[error(transparent)]
    Instance(#[from] InstanceBuildError),
    /// The simulation failed.
    #[error("simulation")]
    Run(#[from] RunError),
    /// The network side failed.
    #[error(transparent)]
    Net(#[from] NetError),
    /// `--steps` is 0 or more than a run may hold.
    #[error("--steps {steps} is out of range: a run takes 1 to {max} steps", max = smithereens_scenario::MAX_STEPS)]
    Steps {
        /// The override given.
        steps: u32,
    },
    /// The commit records do not reproduce the authoritative destruction
    /// state (a bug: a replica could not follow).
    #[error("{instance} after step {step}: {reason}")]
    RecordMismatch {
        /// The instance.
        instance: InstanceId,
        /// The step.
        step: u32,
        /// What differs.
        reason: String,
    },
}

/// Why `join` failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JoinError {
    /// The network side failed (bad address, timeout, mismatched asset, …).
    #[error(transparent)]
    Net(#[from] NetError),
    /// The server's scenario could not be built here.
    #[error("building the server's scenario")]
    Scenario(#[from] ScenarioFileError),
    /// An instance could not be built.
    #[error(transparent)]
    Instance(#[from] InstanceBuildError),
}

/// Why the core instances of a scenario could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstanceBuildError {
    /// An asset file is invalid.
    #[error("instance {index}: asset")]
    Asset {
        /// Position in the scenario.
        index: usize,
        /// Why.
        #[source]
        source: smithereens_core::AssetFileError,
    },
    /// The instance description is invalid.
    #[error("instance {index}")]
    Instance {
        /// Position in the scenario.
        index: usize,
        /// Why.
        #[source]
        source: smithereens_core::instance::InstanceError,
    },
}

/// Core instances (no Rapier) of every instance of `run`, in order, exactly
/// as [`DestructionSet::spawn`] creates them: same asset (instances that
/// share an asset file share one validated [`Asset`]), id, placement,
/// budget and lifecycle.
///
/// # Errors
/// [`InstanceBuildError`].
pub fn core_instances(run: &ScriptedRun) -> Result<Vec<Instance>, InstanceBuildError> {
    let mut assets: Vec<(&Arc<AssetFile>, Arc<Asset>)> = Vec::new();
    let mut out = Vec::with_capacity(run.instances.len());
    for (index, inst) in run.instances.iter().enumerate() {
        let asset = match assets.iter().find(|(f, _)| Arc::ptr_eq(f, &inst.asset)) {
            Some((_, a)) => a.clone(),
            None => {
                let a = Arc::new(
                    inst.asset
                        .validate()
                        .map_err(|source| InstanceBuildError::Asset { index, source })?,
                );
                assets.push((&inst.asset, a.clone()));
                a
            }
        };
        let desc = InstanceDesc {
            placement: inst.placement,
            ..inst.desc.clone()
        };
        out.push(
            Instance::with_desc(asset, desc)
                .map_err(|source| InstanceBuildError::Instance { index, source })?,
        );
    }
    Ok(out)
}

/// Options of `serve`.
#[derive(Clone, Debug, PartialEq)]
pub struct ServeOptions {
    /// Port on 127.0.0.1 (0 picks a free one).
    pub port: u16,
    /// Shim on everything the server sends.
    pub shim: ShimDesc,
    /// Override of the scenario's duration, in fixed steps.
    pub steps: Option<u32>,
    /// Wall time per step (the pace of the run).
    pub step_time: Duration,
    /// Longest stay after the last step, serving late receivers.
    pub linger: Duration,
    /// Receivers to wait for (ready to replicate) before the first step.
    pub wait_for: usize,
    /// Longest wait for them.
    pub wait: Duration,
}

/// What `serve` did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ServeReport {
    /// Commit records broadcast.
    pub records: u64,
    /// The server's counters.
    pub counters: smithereens_net::server::ServerCounters,
    /// Its shim's counters.
    pub shim: ShimCounters,
}

/// `now + d`, or a far-off instant (in effect never) when that overflows:
/// a huge flag value must not panic.
fn instant_after(now: Instant, d: Duration) -> Instant {
    now.checked_add(d)
        .or_else(|| now.checked_add(Duration::from_secs(1_000_000_000)))
        .unwrap_or(now)
}

/// Prints a line and flushes it. Printing must not fail: a reader that
/// went away must not stop the server.
macro_rules! say {
    ($out:expr, $($arg:tt)*) => {{
        let _ = writeln!($out, $($arg)*);
        let _ = $out.flush();
    }};
}

/// The set's current instances, as the snapshot source during the run.
struct SetSource<'a> {
    set: &'a DestructionSet,
    handles: &'a [InstanceHandle],
}

impl SnapshotSource for SetSource<'_> {
    fn snapshot(&self, id: InstanceId) -> Option<Snapshot> {
        self.handles
            .iter()
            .filter_map(|&h| self.set.instance(h).ok())
            .find(|i| i.id() == id)
            .map(|i| i.snapshot())
    }
}

fn print_events(server: &mut Server, out: &mut dyn Write) {
    for e in server.take_events() {
        match e {
            ServerEvent::Joined(a) => say!(out, "joined {a}"),
            ServerEvent::Left(a) => say!(out, "left {a}"),
            ServerEvent::SnapshotSent {
                to,
                instance,
                commit_seq,
                reused,
            } => say!(
                out,
                "snapshot {} {commit_seq} to {to}{}",
                instance.0,
                if reused { " reused" } else { "" }
            ),
        }
    }
}

/// Runs `source` authoritatively and serves its replication on
/// 127.0.0.1 (see the module docs for what it prints to `out`).
///
/// # Errors
/// [`ServeError`]: a bad scenario or `--steps`, a failed bind, receivers
/// that did not come in time, a failed run, or records that do not
/// reproduce the authoritative state.
pub fn serve(
    source: &ScenarioSource,
    options: &ServeOptions,
    out: &mut dyn Write,
) -> Result<ServeReport, ServeError> {
    if let Some(n) = options
        .steps
        .filter(|&n| n == 0 || n > smithereens_scenario::MAX_STEPS)
    {
        return Err(ServeError::Steps { steps: n });
    }
    let mut file = ScenarioFile::parse(&source.text)?;
    let text = match options.steps {
        Some(n) => {
            for removed in file.truncate(n)? {
                eprintln!("note: --steps {n} ends the run before {removed}; it is left out");
            }
            file.to_toml()?
        }
        None => source.text.clone(),
    };
    // Built from the text the receivers get, exactly as they build it.
    let file = ScenarioFile::parse(&text)?;
    let dir = std::fs::canonicalize(&source.dir).unwrap_or_else(|_| source.dir.clone());
    let built = build(&file, &dir, &mut |_| {})?;
    let scenario = built.scenario;
    let mut mirrors = core_instances(&scenario)?;
    let welcome = Welcome::new(text, dir.to_string_lossy().into_owned(), &mirrors);
    let mut server = Server::bind(
        ServerDesc {
            port: options.port,
            shim: options.shim,
            ..ServerDesc::default()
        },
        &welcome,
    )?;
    say!(
        out,
        "listening {} scenario={} instances={} steps={}",
        server.local_addr()?,
        file.name,
        mirrors.len(),
        scenario.steps
    );
    // Receivers first, so that they see every commit.
    let wait_end = instant_after(Instant::now(), options.wait);
    while server.ready_count() < options.wait_for {
        if Instant::now() >= wait_end {
            return Err(NetError::Timeout {
                seconds: options.wait.as_secs_f64(),
                what: format!(
                    "waiting for {} receiver{} ({} ready)",
                    options.wait_for,
                    if options.wait_for == 1 { "" } else { "s" },
                    server.ready_count()
                ),
            }
            .into());
        }
        server.poll_until(Instant::now() + Duration::from_millis(20), &mirrors)?;
        print_events(&mut server, out);
    }

    let start = Instant::now();
    let mut records = 0u64;
    let mut failure: Option<ServeError> = None;
    let mut finals: Vec<Snapshot> = Vec::new();
    run_observed(&scenario, &mut |_, _| {}, &mut |mut step| {
        if failure.is_some() {
            return;
        }
        for (k, &h) in step.instances.iter().enumerate() {
            let (Some(mirror), Ok(authority)) = (mirrors.get_mut(k), step.set.instance(h)) else {
                continue;
            };
            let taken = step.take_records(h);
            for r in &taken {
                let refused = match mirror.apply_record(r) {
                    Ok(RecordOutcome::Applied) => None,
                    Ok(RecordOutcome::Duplicate) => {
                        Some(format!("commit {} was reported twice", r.commit_seq))
                    }
                    Err(e) => Some(format!("commit {}: {e}", r.commit_seq)),
                };
                if let Some(reason) = refused {
                    failure.get_or_insert(ServeError::RecordMismatch {
                        instance: authority.id(),
                        step: step.step,
                        reason,
                    });
                    return;
                }
                say!(
                    out,
                    "checkpoint {} {} {:016x}",
                    r.instance.0,
                    r.commit_seq,
                    mirror.replicated_hash()
                );
                server.broadcast_commit(r);
                records += 1;
            }
            if mirror.replicated_hash() != authority.replicated_hash() {
                failure.get_or_insert(ServeError::RecordMismatch {
                    instance: authority.id(),
                    step: step.step,
                    reason: format!(
                        "the records give replicated hash {:016x} at commit {}, the authority has {:016x} at commit {}",
                        mirror.replicated_hash(),
                        mirror.commit_seq(),
                        authority.replicated_hash(),
                        authority.commit_seq()
                    ),
                });
                return;
            }
        }
        let set_source = SetSource {
            set: step.set,
            handles: step.instances,
        };
        if step.step == step.steps {
            finals = step
                .instances
                .iter()
                .filter_map(|&h| step.set.instance(h).ok())
                .map(|i| i.snapshot())
                .collect();
        }
        let due = instant_after(
            start,
            options
                .step_time
                .checked_mul(step.step)
                .unwrap_or(Duration::MAX),
        );
        if let Err(e) = server.poll_until(due, &set_source) {
            failure.get_or_insert(e.into());
        }
        print_events(&mut server, out);
    })?;
    if let Some(e) = failure {
        return Err(e);
    }
    for m in &mirrors {
        say!(
            out,
            "final {} {} {:016x}",
            m.id().0,
            m.commit_seq(),
            m.replicated_hash()
        );
    }
    server.finish();
    // Ends once every receiver left or fell silent (evicted); with no
    // receiver ever, stays the whole linger for late joiners.
    let linger_end = instant_after(Instant::now(), options.linger);
    let mut done_at: Option<Instant> = None;
    loop {
        let now = Instant::now();
        if now >= linger_end {
            break;
        }
        // Stay a moment after the last receiver left, to acknowledge
        // repeated byes whose first acknowledgement was lost.
        if server.all_done() {
            let t = *done_at.get_or_insert(now);
            if now.duration_since(t) >= Duration::from_millis(300) {
                break;
            }
        } else {
            done_at = None;
        }
        server.poll_until((now + Duration::from_millis(20)).min(linger_end), &finals)?;
        print_events(&mut server, out);
    }
    let c = server.counters();
    say!(out, "shim {}", server.shim_counters());
    say!(
        out,
        "served receivers={} evicted={} welcomes={} commits={} statuses={} requests={} snapshots={} reused={} refused={} malformed={}",
        server.joined_count(),
        c.evicted,
        c.welcomes,
        c.commits,
        c.statuses,
        c.requests,
        c.snapshots,
        c.snapshots_reused,
        c.refused,
        server.malformed_datagrams()
    );
    Ok(ServeReport {
        records,
        counters: c,
        shim: server.shim_counters(),
    })
}

/// Options of `join`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct JoinOptions {
    /// Shim on everything the receiver sends.
    pub shim: ShimDesc,
    /// Give up when the final state is not reached in this long.
    pub timeout: Duration,
}

/// What `join` did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct JoinReport {
    /// Instances replicated.
    pub instances: usize,
    /// The receiver's report.
    pub receiver: smithereens_net::receiver::ReceiverReport,
}

/// Joins the server at `server` (a loopback `HOST:PORT`), builds its
/// scenario's instances as core replicas and replicates until it holds the
/// server's final state (see the module docs for what it prints to `out`).
///
/// # Errors
/// [`JoinError`]: a bad or non-loopback address, a scenario that does not
/// build here or builds other assets than the server's, or a timeout.
pub fn join(
    server: &str,
    options: &JoinOptions,
    out: &mut dyn Write,
) -> Result<JoinReport, JoinError> {
    let addr = smithereens_net::loopback_address(server)?;
    let desc = ReceiverDesc {
        shim: options.shim,
        timeout: options.timeout,
        ..ReceiverDesc::new(addr)
    };
    let joining = smithereens_net::join(desc)?;
    let welcome = joining.welcome();
    let file = ScenarioFile::parse(&welcome.scenario)?;
    let built = build(&file, Path::new(&welcome.scenario_dir), &mut |_| {})?;
    let instances = core_instances(&built.scenario)?;
    let count = instances.len();
    let local = joining.local_addr()?;
    let mut receiver = joining.start(instances)?;
    say!(out, "joined {addr} as {local} instances={count}");
    let report = receiver.run(&mut |e| match e {
        ReceiverEvent::Applied {
            instance,
            commit_seq,
            hash,
            by,
        } => say!(
            out,
            "applied {} {commit_seq} {hash:016x} {}",
            instance.0,
            match by {
                smithereens_net::Reached::Commit => "commit",
                smithereens_net::Reached::Snapshot => "snapshot",
            }
        ),
        ReceiverEvent::Requested { instance, have } => {
            say!(out, "requested {} {have}", instance.0)
        }
    })?;
    let c = report.counters;
    say!(out, "done instances={count}");
    say!(out, "shim {}", report.shim);
    say!(
        out,
        "received applied={} snapshots={} duplicates={} gaps={} requests={} statuses={} refused={} malformed={} bye={}",
        c.applied,
        c.snapshots,
        c.duplicates,
        c.gaps,
        c.requests,
        c.statuses,
        c.refused,
        report.malformed,
        if report.bye_acknowledged {
            "acknowledged"
        } else {
            "unacknowledged"
        }
    );
    Ok(JoinReport {
        instances: count,
        receiver: report,
    })
}
