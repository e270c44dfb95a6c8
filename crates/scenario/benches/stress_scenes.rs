//! Issue 13's runtime benchmark: stress scenes in the game's Rapier world,
//! per-frame destruction time (stress solves, damage, commits: the safe
//! point) and whole-step time (Rapier included), median / p95 / max over
//! every frame, with bonds broken and the largest residual of any solve.
//!
//! Scenes: the four stress built-ins as they ship; a 48 × 24 × 2 block wall
//! (12 × 6 × 0.5 m, 2,304 chunks) too weak for its own weight (compression
//! fatal at 0.5 × its 141 kPa base stress) collapsing under gravity alone;
//! a 30 × 10 × 2 block bridge deck on three piers (684 chunks) too weak in
//! tension for its own weight, collapsing under gravity alone.
//!
//! `cargo bench -p smithereens-scenario --bench stress_scenes` (release;
//! `SCENE=bridge` runs only the scenes whose name contains `bridge`).
//! Wall-clock times on whatever machine runs it (2 shared cores here):
//! read them against each other.

use smithereens_rapier::recorded_run::run_observed;
use smithereens_scenario::{ScenarioFile, build, builtin};
use std::path::Path;

const WALL: &str = r#"
name = "wall-48x24x2-gravity"
duration = 3.0
prediction_distance = 0.05
[asset]
supports = "ground"
[asset.box]
size = [12.0, 6.0, 0.5]
blocks = [48, 24, 2]
density = 2400.0
strength_per_area = 1.0e5
[asset.stress]
compression = [3.5e4, 7.0e4]
"#;

const BRIDGE: &str = r#"
name = "bridge-30x10x2-gravity"
duration = 3.0
prediction_distance = 0.05
[asset]
supports = "ground"
[asset.box]
size = [15.0, 4.5, 5.0]
blocks = [30, 9, 10]
density = 2400.0
strength_per_area = 1.0e5
carve = [
  [-6.5, -2.25, -2.5, -0.5, 1.25, 2.5],
  [0.5, -2.25, -2.5, 6.5, 1.25, 2.5],
  [-7.5, -2.25, -2.5, 7.5, 1.25, -0.5],
  [-7.5, -2.25, 0.5, 7.5, 1.25, 2.5],
]
[asset.stress]
tension = [1.0e5, 2.0e5]
shear = [1.0e5, 2.0e5]
"#;

fn quantiles(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    let q = |f: f64| v[((v.len() - 1) as f64 * f).round() as usize];
    (q(0.5), q(0.95), q(1.0))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "| scene | chunks | bonds broken | destruction median / p95 / max, ms | step (Rapier incl.) median / p95 / max, ms | stress solves | worst stress update, ms | largest residual |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut scenes: Vec<(String, String)> = [
        "tower-gravity",
        "wall-gravity",
        "bridge-truck",
        "bridge-pier",
    ]
    .iter()
    .map(|n| Ok((n.to_string(), builtin(n).ok_or("no built-in")?.to_string())))
    .collect::<Result<_, Box<dyn std::error::Error>>>()?;
    scenes.push(("wall 48×24×2, weak, gravity".into(), WALL.into()));
    scenes.push((
        "bridge 30×10×2 on 3 piers, weak, gravity".into(),
        BRIDGE.into(),
    ));
    // `SCENE=part-of-a-name` runs only the scenes whose name contains it.
    let only = std::env::var("SCENE").ok();
    for (name, text) in scenes {
        if only.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        let file = ScenarioFile::parse(&text)?;
        let built = build(&file, Path::new("."), &mut |_| {})?;
        let (mut destruction, mut steps) = (Vec::new(), Vec::new());
        let (mut solves, mut residual, mut stress_max) = (0u32, 0.0f32, 0.0f64);
        let (_, summary) = run_observed(&built.scenario, &mut |_, _| {}, &mut |s| {
            destruction.push(s.report.destruction_seconds * 1e3);
            steps.push(s.step_seconds * 1e3);
            for r in s.report.instances.values() {
                if let Some(st) = r.stress {
                    solves += st.solves;
                    residual = residual.max(st.max_residual);
                    stress_max = stress_max.max(st.seconds * 1e3);
                }
            }
        })?;
        let (d50, d95, dmax) = quantiles(destruction);
        let (s50, s95, smax) = quantiles(steps);
        println!(
            "| {name} | {} | {} of {} | {d50:.3} / {d95:.3} / {dmax:.2} | {s50:.3} / {s95:.2} / {smax:.2} | {solves} | {stress_max:.2} | {residual:.1e} |",
            summary.chunks, summary.bonds_broken, summary.bonds
        );
    }
    Ok(())
}
