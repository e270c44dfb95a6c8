//! Per-step cost of whole scenes, split into destruction work (damage,
//! planning, commit) and Rapier time: median / p95 / max over the run.
//! Run with `cargo bench -p smithereens-rapier --bench frames`.

mod scenes;

use smithereens_rapier::DestructionWorld;

struct Stats {
    median: f64,
    p95: f64,
    max: f64,
}

fn stats(mut v: Vec<f64>) -> Stats {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    Stats {
        median: at(0.5),
        p95: at(0.95),
        max: at(1.0),
    }
}

fn measure(name: &str, mut w: DestructionWorld, steps: usize) {
    let (mut destruction, mut physics) = (Vec::new(), Vec::new());
    let mut broken = 0;
    for _ in 0..steps {
        let r = w.step().expect("step");
        destruction.push(r.destruction_seconds * 1e3);
        physics.push(r.physics_seconds * 1e3);
        broken += r.broken.len();
    }
    let (d, p) = (stats(destruction), stats(physics));
    println!(
        "{name:<18} chunks {:>5}  broken {broken:>5}  bodies {:>5}  destruction ms median {:.3} p95 {:.3} max {:.3}  rapier ms median {:.3} p95 {:.3} max {:.3}",
        w.instance().asset().chunk_count(),
        w.dynamic_body_count(),
        d.median,
        d.p95,
        d.max,
        p.median,
        p.p95,
        p.max
    );
}

fn main() {
    // `cargo test --benches` runs bench targets with `--bench` absent; keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    let steps = if quick { 5 } else { 240 };
    measure("wall 24x12x2", scenes::wall(24, 12, 2), steps);
    measure("wall 48x24x2", scenes::wall(48, 24, 2), steps);
    measure("bridge 900", scenes::bridge(60), steps);
    for n in [100, 1000, 5000] {
        if quick && n > 100 {
            continue;
        }
        measure(
            &format!("debris {n}"),
            scenes::debris(n),
            if quick { 5 } else { 120 },
        );
    }
}
