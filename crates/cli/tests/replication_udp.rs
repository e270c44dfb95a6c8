//! Issue 16 item 7: replication over real UDP sockets on 127.0.0.1.
//!
//! `smithereens serve town` (37 instances) and 8 `smithereens join`
//! processes, every one of them sending through a shim that drops 30 %,
//! duplicates 10 % and reorders 10 % of its datagrams. One receiver is
//! killed mid-run and started again (a late joiner). Every state any
//! receiver reports has the server's replicated hash for that instance and
//! commit, and every receiver, the restarted one included, ends at the
//! server's final commit of every instance. Nothing leaves loopback: both
//! commands refuse other addresses.

#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const RECEIVERS: usize = 8;
const SHIM: [&str; 6] = ["--loss", "0.3", "--duplicate", "0.1", "--reorder", "0.1"];

/// A child process whose stdout lines are collected by a thread.
struct Proc {
    name: String,
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
    reader: Option<std::thread::JoinHandle<()>>,
    status: Option<ExitStatus>,
}

impl Proc {
    fn spawn(name: &str, args: &[String]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_smithereens"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let out = child.stdout.take().unwrap();
        let sink = lines.clone();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                sink.lock().unwrap().push(line);
            }
        });
        Self {
            name: name.to_string(),
            child,
            lines,
            reader: Some(reader),
            status: None,
        }
    }

    fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    fn count(&self, prefix: &str) -> usize {
        self.lines
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.starts_with(prefix))
            .count()
    }

    /// Polls for the exit; true once exited.
    fn exited(&mut self) -> bool {
        if self.status.is_none() {
            self.status = self.child.try_wait().unwrap();
        }
        self.status.is_some()
    }

    fn kill(&mut self) {
        if self.status.is_none() {
            let _ = self.child.kill();
            self.status = self.child.wait().ok();
        }
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
    }
}

/// Kills every process still running when the test ends, passed or not.
#[derive(Default)]
struct Procs(Vec<Proc>);

impl Drop for Procs {
    fn drop(&mut self) {
        for p in &mut self.0 {
            p.kill();
        }
    }
}

fn free_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn receiver_args(port: u16, seed: u64) -> Vec<String> {
    let mut a = args(&["join", &format!("127.0.0.1:{port}"), "--timeout-s", "60"]);
    a.extend(args(&SHIM));
    a.extend(args(&["--shim-seed", &seed.to_string()]));
    a
}

/// `key=value` fields of the first line starting with `prefix`.
fn counters(lines: &[String], prefix: &str) -> BTreeMap<String, u64> {
    let line = lines
        .iter()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no {prefix:?} line"));
    line.split_whitespace()
        .filter_map(|f| f.split_once('='))
        .filter_map(|(k, v)| v.parse().ok().map(|v| (k.to_string(), v)))
        .collect()
}

#[test]
fn eight_receivers_behind_a_lossy_duplicating_reordering_udp_shim_follow_the_server_and_a_restarted_one_converges()
 {
    let t0 = Instant::now();
    let port = free_port();
    let mut procs = Procs::default();
    let mut server_args = args(&[
        "serve",
        "town",
        "--port",
        &port.to_string(),
        "--step-ms",
        "8",
        "--wait-for",
        &RECEIVERS.to_string(),
        "--linger-s",
        "30",
        "--shim-seed",
        "7",
    ]);
    server_args.extend(args(&SHIM));
    procs.0.push(Proc::spawn("server", &server_args));
    for r in 0..RECEIVERS {
        let name = format!("receiver {r}");
        procs
            .0
            .push(Proc::spawn(&name, &receiver_args(port, 100 + r as u64)));
    }
    // Receiver 0 is killed once it has followed some commits, while the
    // run goes on, and started again.
    let deadline = t0 + Duration::from_secs(90);
    while procs.0[1].count("applied") < 10 {
        assert!(Instant::now() < deadline, "receiver 0 applied nothing");
        assert!(!procs.0[0].exited(), "the server stopped early");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        procs.0[0].count("final"),
        0,
        "the run must still be going when receiver 0 is killed"
    );
    let checkpoints_at_kill = procs.0[0].count("checkpoint");
    procs.0[1].kill();
    let killed_after = procs.0[1].count("applied");
    procs
        .0
        .push(Proc::spawn("receiver 0 again", &receiver_args(port, 900)));
    let restarted = procs.0.len() - 1;

    // Everyone but the killed one exits by itself.
    loop {
        let running: Vec<String> = procs
            .0
            .iter_mut()
            .enumerate()
            .filter(|(k, _)| *k != 1)
            .filter_map(|(_, p)| (!p.exited()).then(|| p.name.clone()))
            .collect();
        if running.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "still running: {running:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    let wall = t0.elapsed();
    for p in &mut procs.0 {
        p.kill(); // joins the readers: every line is in
    }
    for (k, p) in procs.0.iter().enumerate() {
        if k != 1 {
            assert!(
                p.status.unwrap().success(),
                "{} failed: {:?}\n{}",
                p.name,
                p.status,
                p.lines()[p.lines().len().saturating_sub(5)..].join("\n")
            );
        }
    }

    let server = procs.0[0].lines();
    let mut checkpoints: BTreeMap<(u64, u64), String> = BTreeMap::new();
    let mut finals: BTreeMap<u64, u64> = BTreeMap::new();
    for l in &server {
        let f: Vec<&str> = l.split_whitespace().collect();
        match f.as_slice() {
            ["checkpoint", i, s, h] | ["final", i, s, h] => {
                let key = (i.parse().unwrap(), s.parse().unwrap());
                if let Some(old) = checkpoints.insert(key, h.to_string()) {
                    assert_eq!(&old, h, "the server printed two hashes for {key:?}");
                }
                if f[0] == "final" {
                    finals.insert(key.0, key.1);
                }
            }
            _ => {}
        }
    }
    assert_eq!(finals.len(), 37, "town has 37 instances");
    let commits: u64 = finals.values().sum();
    assert!(commits > 300, "{commits} commits");

    let mut snapshot_receivers = 0;
    let mut applied_total = 0;
    for (k, p) in procs.0.iter().enumerate().skip(1) {
        let lines = p.lines();
        let mut reached: BTreeSet<(u64, u64)> = BTreeSet::new();
        let mut by_snapshot = 0;
        for l in &lines {
            let f: Vec<&str> = l.split_whitespace().collect();
            if let ["applied", i, s, h, how] = f.as_slice() {
                let key: (u64, u64) = (i.parse().unwrap(), s.parse().unwrap());
                let expected = checkpoints.get(&key);
                assert_eq!(
                    expected.map(String::as_str),
                    Some(*h),
                    "{}: instance {} commit {} has another hash than the server's",
                    p.name,
                    key.0,
                    key.1
                );
                reached.insert(key);
                by_snapshot += usize::from(*how == "snapshot");
                applied_total += 1;
            }
        }
        snapshot_receivers += usize::from(by_snapshot > 0);
        if k == 1 {
            // Killed: its states were checked above; it reached no end.
            assert!(killed_after >= 10 && !reached.is_empty());
            continue;
        }
        for (&i, &s) in finals.iter().filter(|(_, s)| **s > 0) {
            assert!(
                reached.contains(&(i, s)),
                "{} never reached instance {i}'s final commit {s}",
                p.name
            );
        }
        assert!(lines.iter().any(|l| l == "done instances=37"), "{}", p.name);
        let shim = counters(&lines, "shim ");
        for c in ["dropped", "duplicated", "reordered"] {
            assert!(shim[c] > 0, "{}: shim {c} = 0: {shim:?}", p.name);
        }
        if k == restarted {
            assert!(
                by_snapshot > 0,
                "the restarted receiver caught up by snapshot"
            );
        }
    }
    assert!(snapshot_receivers >= 1);

    let shim = counters(&server, "shim ");
    for c in ["dropped", "duplicated", "reordered"] {
        assert!(shim[c] > 0, "server: shim {c} = 0: {shim:?}");
    }
    let served = counters(&server, "served ");
    assert!(served["snapshots"] > 0, "{served:?}");
    // Every receiver joined at least once. Under a loaded machine one can
    // fall silent for `silent_after` (3 s), be evicted and join again on
    // its next keepalive, so each join past the first needs an eviction
    // of that receiver before it.
    let distinct = RECEIVERS as u64 + 1;
    assert!(
        served["receivers"] >= distinct && served["receivers"] <= distinct + served["evicted"],
        "joins {} for {distinct} receivers with {} evictions: {served:?}",
        served["receivers"],
        served["evicted"]
    );
    let receivers_sent: u64 = procs.0[2..]
        .iter()
        .map(|p| counters(&p.lines(), "shim ")["sent"])
        .sum();
    eprintln!(
        "{commits} commits over 37 instances; {applied_total} states reported by receivers; \
         server shim {shim:?}; served {served:?}; datagrams sent by the finishing receivers: \
         {receivers_sent}; {snapshot_receivers} receivers used snapshots; receiver 0 killed \
         after {checkpoints_at_kill} checkpoints; wall {:.1} s",
        wall.as_secs_f64()
    );
}

#[test]
fn join_refuses_an_address_off_loopback_without_sending_anything() {
    for address in ["192.0.2.1:4000", "[2001:db8::1]:4000", "example.com:4000"] {
        let out = Command::new(env!("CARGO_BIN_EXE_smithereens"))
            .args(["join", address, "--timeout-s", "1"])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{address}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("not a loopback address") || err.contains("bad address"),
            "{address}: {err}"
        );
    }
}

#[test]
fn join_times_out_with_a_typed_message_when_no_server_answers() {
    let port = free_port();
    let out = Command::new(env!("CARGO_BIN_EXE_smithereens"))
        .args(["join", &format!("127.0.0.1:{port}"), "--timeout-s", "0.5"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("timed out"), "{err}");
}

#[test]
fn serve_on_a_port_in_use_is_a_typed_bind_error() {
    let taken = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let out = Command::new(env!("CARGO_BIN_EXE_smithereens"))
        .args(["serve", "wall", "--port", &port.to_string(), "--steps", "2"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("cannot bind UDP 127.0.0.1:{port}")),
        "{err}"
    );
}

/// `serve wall` on `port` for `steps` steps of 10 ms, waiting for one
/// receiver, then `extra`.
fn serve_wall_to_one(port: u16, steps: &str, extra: &[&str]) -> Vec<String> {
    let port = port.to_string();
    let mut list = vec![
        "serve",
        "wall",
        "--port",
        &port,
        "--steps",
        steps,
        "--step-ms",
        "10",
        "--wait-for",
        "1",
    ];
    list.extend_from_slice(extra);
    args(&list)
}

/// Waits up to `limit` for `p` to print a line starting with `prefix`.
fn wait_for_line(p: &Proc, prefix: &str, limit: Duration) {
    let t = Instant::now();
    while p.count(prefix) == 0 {
        assert!(t.elapsed() < limit, "{}: no {prefix:?} line", p.name);
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits up to `limit` for `p` to exit; the time it took.
fn wait_exit(p: &mut Proc, limit: Duration) -> Duration {
    let t = Instant::now();
    while !p.exited() {
        assert!(t.elapsed() < limit, "{} still runs after {limit:?}", p.name);
        std::thread::sleep(Duration::from_millis(20));
    }
    t.elapsed()
}

#[test]
fn serve_ends_soon_after_its_only_receiver_is_killed_not_after_its_linger() {
    let port = free_port();
    let mut procs = Procs::default();
    let serve = serve_wall_to_one(port, "300", &["--linger-s", "60"]);
    procs.0.push(Proc::spawn("server", &serve));
    procs.0.push(Proc::spawn(
        "receiver",
        &args(&["join", &format!("127.0.0.1:{port}"), "--timeout-s", "60"]),
    ));
    wait_for_line(&procs.0[1], "joined", Duration::from_secs(30));
    std::thread::sleep(Duration::from_millis(500));
    procs.0[1].kill();
    // The run has at most 3 s left, then 3 s of silence evict the receiver.
    let took = wait_exit(&mut procs.0[0], Duration::from_secs(20));
    assert!(procs.0[0].status.unwrap().success());
    let lines = procs.0[0].lines();
    let served = counters(&lines, "served");
    assert_eq!(served["receivers"], 1, "{lines:?}");
    assert_eq!(served["evicted"], 1, "{lines:?}");
    eprintln!(
        "server exit {:.1} s after the receiver was killed (linger 60 s)",
        took.as_secs_f64()
    );
}

#[test]
fn join_gives_up_soon_after_its_server_is_killed_naming_the_silence() {
    let port = free_port();
    let mut procs = Procs::default();
    let serve = serve_wall_to_one(port, "3000", &[]);
    procs.0.push(Proc::spawn("server", &serve));
    let join = Command::new(env!("CARGO_BIN_EXE_smithereens"))
        .args(["join", &format!("127.0.0.1:{port}"), "--timeout-s", "60"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_line(&procs.0[0], "joined", Duration::from_secs(30));
    std::thread::sleep(Duration::from_millis(800));
    procs.0[0].kill();
    let t = Instant::now();
    let out = join.wait_with_output().unwrap();
    let took = t.elapsed();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("the server at 127.0.0.1:{port} fell silent")),
        "{err}"
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
    eprintln!(
        "receiver exit {:.1} s after the server was killed (timeout 60 s)",
        took.as_secs_f64()
    );
}

#[test]
fn join_refuses_port_0_a_missing_port_and_ipv6_loopback_and_names_a_refused_port() {
    for (address, says) in [
        ("127.0.0.1:0", "port 0"),
        ("localhost:0", "port 0"),
        ("[::1]", "the port is missing"),
        ("[::1]:4000", "127.0.0.1 only"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_smithereens"))
            .args(["join", address, "--timeout-s", "30"])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{address}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{address}: {err}");
    }
    let port = free_port();
    let t = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_smithereens"))
        .args(["join", &format!("127.0.0.1:{port}"), "--timeout-s", "30"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is a server listening on"), "{err}");
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
}
