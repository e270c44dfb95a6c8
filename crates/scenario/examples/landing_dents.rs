//! The deepest transient dents of a built-in scene: the frames on which a
//! body's render mesh dips more than 5 cm below the ground, with its
//! lowest point on the frames around and its spin before.
//!
//! ```text
//! cargo run --release -p smithereens-scenario --example landing_dents -- tower [PREDICTION_M]
//! ```
//!
//! Measured with it (600 steps, default settings): the tower's deepest
//! dent (13.0 cm) is a one-chunk body landing on a corner. Its spin goes
//! 9.1 → 16.2 → 30.4 rad/s over the landing frames: the corner's contact
//! impulse spins it up, and in the next 1/60 s step it turns by 0.5 rad,
//! swinging another corner 13 cm into the ground before the contact there
//! exists. A prediction distance of 5 to 20 cm (the second argument) does
//! not remove it, nor does CCD on every piece (measured by setting
//! `DestructionSettings::ccd_speed` to 0.001 m/s in the library; this
//! example has no switch for it).

use smithereens_core::record::{RunBody, pose_from_array};

use smithereens_scenario::{ScenarioFile, build, builtin};
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let name = std::env::args().nth(1).unwrap_or_else(|| "tower".into());
    let text = builtin(&name).ok_or_else(|| format!("no built-in scene {name}"))?;
    let mut file = ScenarioFile::parse(text)?;
    let divide: f32 = std::env::args().nth(3).map_or(Ok(1.0), |d| d.parse())?;
    file.duration = 600.0 * file.timestep;
    file.timestep /= divide;
    if let Some(d) = std::env::args().nth(2).filter(|d| !d.is_empty()) {
        file.prediction_distance = Some(d.parse()?);
    }
    if let Some(seed) = std::env::var("SEED").ok().and_then(|s| s.parse().ok()) {
        for a in file.asset.iter_mut().chain(file.instances.iter_mut()) {
            if let Some(b) = a.box_.as_mut() {
                b.seed = seed;
            }
        }
    }
    let mut built = build(&file, Path::new("."), &mut |_| {})?;
    if std::env::args().nth(4).is_some_and(|a| a == "off") {
        built.scenario.landing = None;
    }
    let t = std::time::Instant::now();
    let diag = std::env::var("DIAG").is_ok();
    let (rec, summary) = smithereens_rapier::recorded_run::run_observed(
        &built.scenario,
        &mut |_, _| {},
        &mut |s| {
            if !diag {
                return;
            }
            let ph = s.physics;
            for (h, b) in ph.bodies.iter() {
                if !b.is_dynamic() {
                    continue;
                }
                let low = b
                    .colliders()
                    .iter()
                    .filter_map(|&c| ph.colliders.get(c))
                    .map(|c| c.compute_aabb().mins.y)
                    .fold(f32::INFINITY, f32::min);
                if low > -0.05 {
                    continue;
                }
                let mut partners = Vec::new();
                for &c in b.colliders() {
                    for pair in ph.narrow_phase.contact_pairs_with(c) {
                        let other = if pair.collider1 == c { pair.collider2 } else { pair.collider1 };
                        let ob = ph.colliders.get(other).and_then(|o| o.parent());
                        let (m, fixed) = ob
                            .and_then(|ob| ph.bodies.get(ob))
                            .map_or((0.0, true), |ob| (ob.mass(), ob.is_fixed()));
                        let pts: usize = pair.manifolds().iter().map(|m| m.points.len()).sum();
                        let deepest = pair
                            .manifolds()
                            .iter()
                            .flat_map(|m| m.points.iter().map(|p| p.dist))
                            .fold(f32::INFINITY, f32::min);
                        partners.push(format!(
                            "[{}{:.0}kg pts {} dmin {:.3} active {}]",
                            if fixed { "fixed " } else { "" },
                            m,
                            pts,
                            deepest,
                            pair.has_any_active_contact()
                        ));
                    }
                }
                println!(
                    "step {} body {:?} {:.0} kg low {:.3} sleeping {} v {:.2} w {:.2} contacts {}",
                    s.step,
                    h.into_raw_parts().0,
                    b.mass(),
                    low,
                    b.is_sleeping(),
                    b.linvel().length(),
                    b.angvel().length(),
                    partners.join(" ")
                );
            }
        },
    )?;
    println!(
        "{name}: lowest point ever {:.3} m, at the end {:.3} m; {} extra landing sub-steps; {:.2} s",
        summary.lowest_chunk_y_ever,
        summary.lowest_chunk_y,
        summary.landing_substeps,
        t.elapsed().as_secs_f64()
    );
    let dt = file.timestep as f32;
    let pose = |body: &RunBody, frame: u32| {
        pose_from_array(&body.poses[(frame - body.first_frame) as usize])
    };
    let lowest = |body: &RunBody, frame: u32| {
        let pose = pose(body, frame);
        body.chunks
            .iter()
            .flat_map(|&c| rec.chunks[c as usize].mesh.positions.iter())
            .map(|&v| pose.transform_point(v).y)
            .fold(f32::INFINITY, f32::min)
    };
    let mut dents = Vec::new();
    for (b, body) in rec.bodies.iter().enumerate() {
        for frame in body.first_frame..body.first_frame + body.poses.len() as u32 {
            let y = lowest(body, frame);
            if y < -0.05 {
                dents.push((y, b, frame));
            }
        }
    }
    dents.sort_by(|a, b| a.0.total_cmp(&b.0));
    for &(y, b, frame) in dents.iter().take(8) {
        let body = &rec.bodies[b];
        let last = body.first_frame + body.poses.len() as u32 - 1;
        let around: Vec<String> = (frame.saturating_sub(3).max(body.first_frame)
            ..=(frame + 2).min(last))
            .map(|f| format!("{f}: {:.3}", lowest(body, f)))
            .collect();
        let spin: Vec<String> = (frame.saturating_sub(4).max(body.first_frame + 1)..=frame)
            .map(|f| {
                let turn = pose(body, f).rotation * pose(body, f - 1).rotation.inverse();
                let angle = turn.to_axis_angle().1;
                format!("{:.1}", angle.min(std::f32::consts::TAU - angle) / dt)
            })
            .collect();
        println!(
            "body {} ({} chunks) on frame {frame}: {y:.3} m; lowest point {}; spin {} rad/s",
            body.id,
            body.chunks.len(),
            around.join(", "),
            spin.join(", ")
        );
    }
    Ok(())
}
