//! The per-update cost of `InstanceStress` on the 100 × 50 × 2 wall
//! (10,000 chunks) solved reduced (`REDUCE_ABOVE`), and for comparison in
//! full (`reduce_above = 0`), under the default frame
//! budget (50,000 bond passes, `DestructionSettings::stress_work_per_frame`),
//! in the four scenes of `fixtures::multiresolution_scenes` (those of
//! `tests/issue_13_multiresolution.rs`): the solid wall
//! and the wall whose support is removed under columns 40–59, each of
//! concrete (stands) and of a weak material (collapses). Each update's
//! event is committed at once (headless), as the test does, until the
//! stress is idle or 3,000 updates have run. Prints, per scene, the time of
//! `InstanceStress::new` (which prepares the first cluster), the updates,
//! their median, p95 and worst time, and the updates over 1 ms with their
//! clusters and work (`SLOW_MS=0.7` lists those over 0.7 ms instead;
//! `STAGES=1` adds where each listed update found and left the solve in
//! progress, `SolveProgress::reduced_round` and `building`, at the cost of
//! a state copy per update; `LOG=PATH` writes one line per update:
//! scene, update, ms, solves, iterations, passes, preparations, deferred,
//! clusters and, with `STAGES=1`, the stages; `RUNS=5` runs each scene
//! five times and adds each update's fastest time over the runs, which
//! the machine's other work only slows: the updates are the same in
//! every run, bit for bit, so their minimum is each update's own cost).
//! On Linux each update's CPU time (the thread's, `CLOCK_THREAD_CPUTIME_ID`)
//! is measured beside its wall-clock time: the time the scheduler gave
//! other work in between counts in the second, not in the first. The
//! summary line gives the worst of each and the updates over 1 ms by
//! each, and `LOG` adds the CPU time as a column. `FAULTS=1`
//! (Linux) adds each listed update's minor page faults (the thread's, from
//! `/proc/thread-self/stat`), which neither callgrind's instruction counts
//! nor the CPU time separate from the work (`LOG`'s last column).
//! `cargo run --release -p smithereens-core --example stress_updates [-- FILTER]`
#![allow(missing_docs, clippy::unwrap_used)]

use smithereens_core::fixtures::multiresolution_scenes;
use smithereens_core::glam::Vec3;
use smithereens_core::stress::{InstanceStress, REDUCE_ABOVE, StressDesc, StressMaterials};
use smithereens_core::*;
use std::sync::Arc;
use std::time::Instant;

/// The calling thread's minor page faults so far (Linux; `None`
/// elsewhere or when the file cannot be read).
fn thread_minor_faults() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // Fields after the command's closing parenthesis: state is field 3,
    // minflt field 10.
    let rest = &stat[stat.rfind(')')? + 2..];
    rest.split_whitespace().nth(7)?.parse().ok()
}

/// The calling thread's CPU time so far, in milliseconds (Linux; `None`
/// elsewhere).
fn thread_cpu_ms() -> Option<f64> {
    #[cfg(target_os = "linux")]
    {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        Some(t.tv_sec as f64 * 1e3 + t.tv_nsec as f64 * 1e-6)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let slow_ms: f64 = std::env::var("SLOW_MS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    let stages = std::env::var_os("STAGES").is_some();
    let faults = std::env::var_os("FAULTS").is_some();
    let mut log = std::env::var_os("LOG").map(|p| {
        std::io::BufWriter::new(std::fs::File::create(p).expect("LOG: cannot create the file"))
    });
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
        .max(1);
    for scene in multiresolution_scenes() {
        for (mode, reduce_above) in [("reduced", REDUCE_ABOVE), ("full", 0)] {
            let name = format!("{}, {mode}", scene.name);
            if !name.contains(filter.as_str()) {
                continue;
            }
            // Per update, its fastest time over the runs.
            let mut fastest: Vec<f64> = Vec::new();
            for _ in 0..runs {
                let asset = Arc::new(Asset::new(&scene.desc).unwrap());
                let mut instance = Instance::new(asset, Pose::IDENTITY).unwrap();
                let mut desc = StressDesc::new(StressMaterials::uniform(scene.material));
                desc.settings.reduce_above = reduce_above;
                desc.settings.max_iterations = 1000;
                let t0 = Instant::now();
                let mut stress = InstanceStress::new(&instance, desc).unwrap();
                let new_ms = t0.elapsed().as_secs_f64() * 1e3;
                let mut times = Vec::new();
                let mut cpu_times = Vec::new();
                let mut slow = Vec::new();
                let mut broken = 0;
                let stage_of = |stress: &InstanceStress| {
                    if !stages {
                        return String::new();
                    }
                    let state = stress.state();
                    let p = state
                        .progress
                        .first()
                        .map(|(_, p)| (p.reduced_round(), p.building()));
                    format!(" ({p:?}, preparing {:?})", state.preparing)
                };
                let mut before = stage_of(&stress);
                for update in 0..3000 {
                    let mut budget = 50_000u64;
                    let f0 = faults.then(thread_minor_faults).flatten();
                    let c0 = thread_cpu_ms();
                    let t0 = Instant::now();
                    let u = stress
                        .update_within(
                            &instance,
                            Vec3::new(0.0, -9.81, 0.0),
                            1.0 / 60.0,
                            &mut budget,
                        )
                        .unwrap();
                    let ms = t0.elapsed().as_secs_f64() * 1e3;
                    let cpu_ms = c0.zip(thread_cpu_ms()).map(|(a, b)| b - a);
                    let faulted = f0.zip(thread_minor_faults()).map(|(a, b)| b - a);
                    times.push(ms);
                    cpu_times.extend(cpu_ms);
                    let after = stage_of(&stress);
                    if let Some(log) = log.as_mut() {
                        use std::io::Write;
                        writeln!(
                            log,
                            "{name}\t{update}\t{ms:.4}\t{}\t{}\t{}\t{}\t{}\t{}\t{before} ->{after}\t{}\t{}",
                            u.solves,
                            u.iterations,
                            u.work,
                            u.preparing,
                            u.deferred,
                            instance.clusters().count(),
                            cpu_ms.map_or(String::new(), |c| format!("{c:.4}")),
                            faulted.map_or(String::new(), |f| f.to_string())
                        )
                        .expect("LOG: cannot write");
                    }
                    if ms > slow_ms {
                        slow.push(format!(
                        "update {update}: {ms:.2} ms{}{}, {} clusters, {} iterations, {} passes{before} ->{after}",
                        cpu_ms.map_or(String::new(), |c| format!(" (CPU {c:.2} ms)")),
                        faulted.map_or(String::new(), |f| format!(", {f} page faults")),
                        instance.clusters().count(),
                        u.iterations,
                        u.work
                    ));
                    }
                    before = after;
                    if let Some(event) = u.event {
                        instance.admit(event).unwrap();
                        let out = instance.commit(&mut HeadlessBackend::default()).unwrap();
                        broken += out.broken.len();
                        stress.observe_commit(&instance, &out);
                    } else if stress.is_idle() {
                        break;
                    }
                }
                let n = times.len();
                let mut sorted = times.clone();
                sorted.sort_by(f64::total_cmp);
                println!(
                    "{name}: new {new_ms:.2} ms; {n} updates, {broken} bonds broken; median {:.3}, p95 {:.3}, worst {:.2} ms; {} over {slow_ms} ms",
                    sorted[n / 2],
                    sorted[n * 95 / 100],
                    sorted[n - 1],
                    slow.len()
                );
                if !cpu_times.is_empty() {
                    let worst = cpu_times.iter().copied().fold(0.0, f64::max);
                    println!(
                        "  CPU time: worst {worst:.2} ms; {} over {slow_ms} ms",
                        cpu_times.iter().filter(|&&c| c > slow_ms).count()
                    );
                }
                for line in slow.iter().take(20) {
                    println!("  {line}");
                }
                if fastest.is_empty() {
                    fastest = times;
                } else {
                    assert_eq!(fastest.len(), n, "the runs differ: not deterministic");
                    for (f, t) in fastest.iter_mut().zip(&times) {
                        *f = f.min(*t);
                    }
                }
            }
            if runs > 1 {
                let n = fastest.len();
                let mut sorted = fastest.clone();
                sorted.sort_by(f64::total_cmp);
                let (slowest, worst) = fastest
                    .iter()
                    .copied()
                    .enumerate()
                    .max_by(|a, b| a.1.total_cmp(&b.1))
                    .unwrap();
                println!(
                    "{name}: each update's fastest of {runs} runs: median {:.3}, p95 {:.3}, p99 {:.3}, largest {worst:.3} ms (update {slowest}); {} over 1 ms",
                    sorted[n / 2],
                    sorted[n * 95 / 100],
                    sorted[n * 99 / 100],
                    fastest.iter().filter(|&&t| t > 1.0).count()
                );
            }
        }
    }
}
