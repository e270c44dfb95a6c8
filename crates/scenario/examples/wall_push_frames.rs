//! Which frames of the built-in `wall-push` the bounded stepper subdivides,
//! and why (issue 14, benchmark gaps): for every frame whose first trial
//! came in over half the tolerance it prints the frame, the trials, the
//! first trial's largest joint anchor error (mm), the joint that had it
//! (vehicle and wheel), that vehicle's chassis speed and vertical speed
//! (m/s), what of the vehicle touches the wall (chassis, holding colliders,
//! wheels) and the held parts that broke or were launched that frame.
//! Headless; timings are the bench's business, not this example's.
//!
//! `cargo run --release -p smithereens-scenario --example wall_push_frames
//! -- [--vehicles N] [--hold colliders|fixed-joints] [--steps N] [--file PATH]
//! [--trace K] [--trials K [--no-ccd]]`

use rapier3d::prelude::*;
use smithereens_rapier::recorded_run::run_observed;
use smithereens_scenario::{ScenarioFile, build, builtin};
use std::path::Path;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let vehicles: usize = arg("--vehicles").map_or(Ok(8), |v| v.parse())?;
    let hold = arg("--hold").unwrap_or_else(|| "colliders".into());
    // `--file PATH`: a variant of the scene instead of the built-in.
    let text = match arg("--file") {
        Some(path) => std::fs::read_to_string(path)?,
        None => builtin("wall-push").ok_or("no wall-push")?.to_string(),
    };
    let mut file = ScenarioFile::parse(&text)?;
    file.vehicles.truncate(vehicles);
    file.launches.retain(|l| (l.vehicle as usize) < vehicles);
    for v in &mut file.vehicles {
        v.hold = hold.clone();
    }
    if let Some(steps) = arg("--steps") {
        file.duration = steps.parse::<f32>()? / 60.0;
        let end = file.duration;
        file.launches.retain(|l| l.time < end);
    }
    if let Some(k) = arg("--trials") {
        return trials(&file, k.parse()?);
    }
    let tolerance = file.substep.clone().unwrap_or_default().tolerance;
    let built = build(&file, Path::new("."), &mut |_| {})?;
    println!(
        "wall-push, {vehicles} vehicle(s), hold = {hold}, tolerance {:.3} mm",
        tolerance * 1e3
    );
    println!(
        "frame trials  first err mm  joint (vehicle/wheel)  |v| m/s  v_y m/s  touching wall  held events"
    );
    let trace: Option<usize> = arg("--trace").map(|v| v.parse()).transpose()?;
    // Deepest contact of a launched part with the wall, m, and its frame.
    let mut launched_depth = (0.0f32, 0);
    let (_, summary) = run_observed(&built.scenario, &mut |_, _| {}, &mut |step| {
        let w = step.physics;
        for l in 0..step.held.launcher_count() {
            let id = smithereens_rapier::LauncherId(l);
            for i in 0..4 {
                if step.held.status(id, i) != Some(smithereens_rapier::PartStatus::Launched) {
                    continue;
                }
                let Some(b) = step.held.part_body(id, i).and_then(|b| w.bodies.get(b)) else {
                    continue;
                };
                for c in b.colliders() {
                    for pair in w.narrow_phase.contact_pairs_with(*c) {
                        for m in pair.manifolds() {
                            for p in &m.points {
                                if -p.dist > launched_depth.0 {
                                    launched_depth = (-p.dist, step.step);
                                }
                            }
                        }
                    }
                }
            }
        }
        let Some(f) = step.frame else { return };
        if let Some(k) = trace {
            trace_vehicle(&step, k);
        }
        if f.first_error <= 0.5 * tolerance && f.trials == 1 {
            return;
        }
        let w = step.physics;
        let joint = f.first_worst_joint.and_then(|j| {
            step.vehicles.iter().enumerate().find_map(|(k, v)| {
                v.wheel_joints
                    .iter()
                    .position(|&h| h == j)
                    .map(|i| (k, format!("wheel {i}")))
                    .or_else(|| {
                        v.jointed
                            .iter()
                            .flatten()
                            .position(|p| p.joint == Some(j))
                            .map(|i| (k, format!("part {i}")))
                    })
            })
        });
        let (who, what) = joint.unwrap_or((usize::MAX, "-".into()));
        let (speed, vy, touching) = match step.vehicles.get(who) {
            Some(v) => {
                let c = &w.bodies[v.chassis];
                let mut touching = Vec::new();
                for pair in w.narrow_phase.contact_pairs() {
                    if !pair.has_any_active_contact() {
                        continue;
                    }
                    let (Some(c1), Some(c2)) = (
                        w.colliders.get(pair.collider1),
                        w.colliders.get(pair.collider2),
                    ) else {
                        continue;
                    };
                    let fixed = |c: &Collider| {
                        c.parent()
                            .and_then(|p| w.bodies.get(p))
                            .is_some_and(|b| b.is_fixed())
                            && c.compute_aabb().mins.x > 3.99
                    };
                    let other = if fixed(c1) {
                        (c2, pair.collider2)
                    } else if fixed(c2) {
                        (c1, pair.collider1)
                    } else {
                        continue;
                    };
                    let Some(parent) = other.0.parent() else {
                        continue;
                    };
                    let name = if parent == v.chassis {
                        if other.0.shape().as_cuboid().is_some() {
                            "chassis".to_string()
                        } else {
                            "held part".to_string()
                        }
                    } else if let Some(i) = v.wheels.iter().position(|&h| h == parent) {
                        format!("wheel {i}")
                    } else {
                        continue;
                    };
                    touching.push(name);
                }
                touching.sort();
                touching.dedup();
                (c.linvel().length(), c.linvel().y, touching.join(","))
            }
            None => (0.0, 0.0, String::new()),
        };
        let events: Vec<String> = step
            .held_events
            .iter()
            .filter(|e| e.broken)
            .map(|e| format!("l{} {:?} broke", e.launcher.0, e.target))
            .collect();
        println!(
            "{:>5} {:>6}  {:>12.4}  v{who} {what:<16}  {speed:>7.3}  {vy:>7.3}  {touching:<13}  {}",
            step.step,
            f.trials,
            f.first_error * 1e3,
            events.join("; ")
        );
    })?;
    println!(
        "{:?}\nheld parts broken {}, launches {}, deepest launched-part contact {:.1} mm (frame {})",
        summary.substep,
        summary.held_parts_broken,
        summary.launches,
        launched_depth.0 * 1e3,
        launched_depth.1
    );
    Ok(())
}

/// `--trace K`: vehicle K's chassis and wheels every frame.
fn trace_vehicle(step: &smithereens_rapier::recorded_run::RunStep<'_>, k: usize) {
    let w = step.physics;
    let Some(v) = step.vehicles.get(k) else {
        return;
    };
    let c = &w.bodies[v.chassis];
    let (axis, angle) = c.rotation().to_axis_angle();
    let yaw = (axis.y * angle).to_degrees();
    let mut line = format!(
        "  t{:>4} v{k} p=({:.3},{:.4},{:.3}) yaw {:.2} v=({:.2},{:.3},{:.2}) w=({:.2},{:.2},{:.2})",
        step.step,
        c.translation().x,
        c.translation().y,
        c.translation().z,
        yaw,
        c.linvel().x,
        c.linvel().y,
        c.linvel().z,
        c.angvel().x,
        c.angvel().y,
        c.angvel().z
    );
    for (i, (&wb, &j)) in v.wheels.iter().zip(&v.wheel_joints).enumerate() {
        let b = &w.bodies[wb];
        let Some(j) = w.impulse_joints.get(j) else {
            continue;
        };
        let f1 = *w.bodies[j.body1()].position() * j.data.local_frame1;
        let f2 = *b.position() * j.data.local_frame2;
        let d = f1.rotation.inverse() * (f2.translation - f1.translation);
        let mut depth = 0.0f32;
        let mut n = 0;
        for col in b.colliders() {
            for pair in w.narrow_phase.contact_pairs_with(*col) {
                for m in pair.manifolds() {
                    for p in &m.points {
                        n += 1;
                        depth = depth.max(-p.dist);
                    }
                }
            }
        }
        line += &format!(
            " | w{i} e={:.3}mm ω={:.1} n={n} d={:.2}mm",
            d.length() * 1e3,
            b.angvel().length(),
            depth * 1e3
        );
    }
    println!("{line}");
}

/// `--trials K`: vehicle K alone (with the ground and the wall) under its
/// own bounded stepper, printing every trial of every subdivided frame:
/// segment length, each wheel joint's anchor error (mm) and the wheels'
/// and chassis' deepest contact (mm). Shows what a rejected trial did.
fn trials(file: &ScenarioFile, k: usize) -> Result<(), Box<dyn std::error::Error>> {
    use smithereens_rapier::recorded_run::{insert_plain_body, insert_vehicle};
    use smithereens_rapier::{BoundedStepper, FrameStep, HeldParts, insert_ground};
    let built = build(file, Path::new("."), &mut |_| {})?;
    let s = &built.scenario;
    let mut physics = smithereens_rapier::new_physics_world(&s.settings);
    if let Some(d) = s.prediction_distance {
        physics
            .integration_parameters
            .normalized_prediction_distance = d;
    }
    if std::env::args().any(|a| a == "--no-ccd") {
        // Rapier's global CCD switch: no motion clamping at all.
        physics.integration_parameters.max_ccd_substeps = 0;
    }
    if let Some(y) = s.settings.ground_y {
        insert_ground(&mut physics, y, s.settings.friction);
    }
    for b in &s.bodies {
        insert_plain_body(&mut physics, b, s.settings.friction, s.settings.restitution)?;
    }
    let mut held = HeldParts::with_impact(s.settings.impact)?;
    let v = insert_vehicle(
        &mut physics,
        &mut held,
        s.vehicles.get(k).ok_or("no such vehicle")?,
        s.settings.friction,
    )?;
    let mut stepper = BoundedStepper::new(s.substep.unwrap_or_default())?;
    struct Log<'a> {
        v: &'a smithereens_rapier::recorded_run::VehicleBodies,
        lines: Vec<String>,
    }
    impl FrameStep for Log<'_> {
        fn step(&mut self, w: &mut PhysicsWorld) {
            let before = w.bodies[self.v.chassis].translation();
            let wheel_before = w.bodies[self.v.wheels[0]].translation();
            w.step();
            let c = &w.bodies[self.v.chassis];
            let mut line = format!(
                "    dt {:.5} chassis moved {:.1} mm, wheel 0 {:.1} mm, ccd {} {}",
                w.integration_parameters.dt,
                (c.translation() - before).length() * 1e3,
                (w.bodies[self.v.wheels[0]].translation() - wheel_before).length() * 1e3,
                c.is_ccd_enabled(),
                c.is_ccd_active()
            );
            let c = &w.bodies[self.v.chassis];
            line += &format!(
                " chassis v=({:.2},{:.2},{:.2}) ω=({:.2},{:.2},{:.2})",
                c.linvel().x,
                c.linvel().y,
                c.linvel().z,
                c.angvel().x,
                c.angvel().y,
                c.angvel().z
            );
            for (i, (&wb, &j)) in self.v.wheels.iter().zip(&self.v.wheel_joints).enumerate() {
                let Some(j) = w.impulse_joints.get(j) else {
                    continue;
                };
                let f1 = *w.bodies[j.body1()].position() * j.data.local_frame1;
                let f2 = *w.bodies[wb].position() * j.data.local_frame2;
                let d = f1.rotation.inverse() * (f2.translation - f1.translation);
                line += &format!(
                    " | w{i} {:.3} ({:.1},{:.1},{:.1}) v=({:.2},{:.2},{:.2})",
                    d.length() * 1e3,
                    d.x * 1e3,
                    d.y * 1e3,
                    d.z * 1e3,
                    w.bodies[wb].linvel().x,
                    w.bodies[wb].linvel().y,
                    w.bodies[wb].linvel().z
                );
            }
            for (name, body) in std::iter::once(("chassis", self.v.chassis))
                .chain(self.v.wheels.iter().map(|&b| ("wheel", b)))
            {
                for col in w.bodies[body].colliders() {
                    for pair in w.narrow_phase.contact_pairs_with(*col) {
                        let depth = pair
                            .manifolds()
                            .iter()
                            .flat_map(|m| m.points.iter())
                            .map(|p| -p.dist)
                            .fold(f32::MIN, f32::max);
                        let other = if pair.collider1 == *col {
                            pair.collider2
                        } else {
                            pair.collider1
                        };
                        if depth > 1e-3 && std::env::var_os("CONTACTS").is_some() {
                            line += &format!(" [{name} {col:?}-{other:?} {:.1}mm]", depth * 1e3);
                        }
                    }
                }
            }
            self.lines.push(line);
        }
    }
    for frame in 1..=s.steps {
        v.apply_drive(&mut physics);
        let mut log = Log {
            v: &v,
            lines: Vec::new(),
        };
        let f = stepper.step_with(&mut physics, &mut log);
        let mut events = Vec::new();
        held.after_step(&physics);
        held.commit_damage(&mut physics, &mut events);
        if f.subdivided {
            println!(
                "frame {frame}: {} trials, first {:.3} mm",
                f.trials,
                f.first_error * 1e3
            );
            for l in &log.lines {
                println!("{l}");
            }
        }
        for e in events.iter().filter(|e| e.broken) {
            println!("frame {frame}: {:?} broke", e.target);
        }
    }
    println!("{:?}", stepper.diagnostics());
    Ok(())
}
