//! The held-projectile seed's regression scene as the built-in `wall_push`
//! (issue 14 item 6).
#![allow(clippy::unwrap_used)]

use rapier3d::prelude::*;
use smithereens_rapier::recorded_run::run_observed;
use smithereens_scenario::{ScenarioFile, build, builtin};
use std::path::Path;

/// x of the wall's face, m.
const WALL_X: f32 = 4.0;

#[derive(Debug, Default)]
struct Measured {
    trials: Vec<u32>,
    /// Largest chassis speed over the last second, per vehicle, m/s.
    rest_speed: Vec<f32>,
    /// Deepest contact with the wall, per vehicle (its chassis, wheels and holding colliders), m.
    penetration: Vec<f32>,
    /// Deepest contact of anything else with the wall, m.
    other_penetration: f32,
    /// Largest wheel-joint anchor error over the last 5 s, per vehicle, m.
    wheel_error: Vec<f32>,
    summary: Option<smithereens_rapier::recorded_run::RunSummary>,
    broken: usize,
}

fn run(file: &ScenarioFile) -> Measured {
    let built = build(file, Path::new("."), &mut |_| {}).unwrap();
    let steps = built.scenario.steps;
    let n = built.scenario.vehicles.len();
    let mut m = Measured {
        rest_speed: vec![0.0; n],
        penetration: vec![0.0; n],
        wheel_error: vec![0.0; n],
        ..Measured::default()
    };
    let (_, summary) = run_observed(&built.scenario, &mut |_, _| {}, &mut |step| {
        let w = step.physics;
        if let Some(f) = step.frame {
            m.trials.push(f.trials);
        }
        if std::env::var_os("TRACEV").is_some()
            && (step.step % 15 == 0 || step.frame.is_some_and(|f| f.trials > 1))
        {
            let v = &step.vehicles[0];
            let b = &w.bodies[v.chassis];
            println!(
                "{} v {:.3?} x {:.3?} w {:.3?} trials {:?}",
                step.step,
                b.linvel(),
                b.translation(),
                b.angvel(),
                step.frame.map(|f| f.trials)
            );
        }
        let owner = |b: RigidBodyHandle| {
            step.vehicles
                .iter()
                .position(|v| v.chassis == b || v.wheels.contains(&b))
        };
        for pair in w.narrow_phase.contact_pairs() {
            let (Some(c1), Some(c2)) = (
                w.colliders.get(pair.collider1),
                w.colliders.get(pair.collider2),
            ) else {
                continue;
            };
            let wall = |c: &Collider| {
                c.parent()
                    .and_then(|p| w.bodies.get(p))
                    .is_some_and(|b| b.is_fixed())
                    && c.compute_aabb().mins.x > WALL_X - 0.01
            };
            let other = if wall(c1) {
                c2
            } else if wall(c2) {
                c1
            } else {
                continue;
            };
            let depth = pair
                .manifolds()
                .iter()
                .flat_map(|mf| mf.points.iter())
                .map(|p| -p.dist)
                .fold(0.0f32, f32::max);
            match other.parent().and_then(owner) {
                Some(k) => m.penetration[k] = m.penetration[k].max(depth),
                None => m.other_penetration = m.other_penetration.max(depth),
            }
        }
        if step.step * 2 > step.steps {
            for (k, v) in step.vehicles.iter().enumerate() {
                for &j in &v.wheel_joints {
                    let j = w.impulse_joints.get(j).unwrap();
                    let f1 = *w.bodies[j.body1()].position() * j.data.local_frame1;
                    let f2 = *w.bodies[j.body2()].position() * j.data.local_frame2;
                    m.wheel_error[k] =
                        m.wheel_error[k].max(f1.translation.distance(f2.translation));
                }
            }
        }
        if step.step + 60 > step.steps {
            for (k, v) in step.vehicles.iter().enumerate() {
                m.rest_speed[k] = m.rest_speed[k].max(w.bodies[v.chassis].linvel().length());
            }
        }
        m.broken += step
            .held_events
            .iter()
            .filter(|e| e.broken && e.ammunition)
            .count();
    })
    .unwrap();
    let _ = steps;
    m.summary = Some(summary);
    m
}

#[test]
fn probe() {
    let mut file = ScenarioFile::parse(builtin("wall_push").unwrap()).unwrap();
    if let Ok(n) = std::env::var("VEHICLES") {
        let n: usize = n.parse().unwrap();
        file.vehicles.truncate(n);
        file.launches.retain(|l| (l.vehicle as usize) < n);
    }
    if let Ok(w) = std::env::var("WARM") {
        file.warmstart_joints = Some(w == "1");
    }
    if let Ok(w) = std::env::var("HZ") {
        file.contact_frequency = Some(w.parse().unwrap());
    }
    if let Ok(w) = std::env::var("ITERS") {
        file.solver_iterations = Some(w.parse().unwrap());
    }
    if let Ok(w) = std::env::var("PGS") {
        file.pgs_iterations = Some(w.parse().unwrap());
    }
    if let Ok(w) = std::env::var("WHEEL") {
        for v in &mut file.vehicles {
            for wh in &mut v.wheels {
                wh.mass = w.parse().unwrap();
            }
        }
    }
    if std::env::var_os("JOINTS").is_some() {
        for v in &mut file.vehicles {
            v.hold = "fixed-joints".into();
        }
    }
    if let Ok(k) = std::env::var("ONLY") {
        let k: usize = k.parse().unwrap();
        let mut v = file.vehicles[k].clone();
        if let Some(j) = v.like {
            let b = file.vehicles[j as usize].clone();
            v.like = None;
            v.size = b.size;
            v.mass = b.mass;
            v.wheels = b.wheels;
            v.launchers = b.launchers;
            if v.drive.is_none() {
                v.drive = b.drive;
            }
        }
        file.vehicles = vec![v];
        file.launches.retain(|l| l.vehicle as usize == k);
        for l in &mut file.launches {
            l.vehicle = 0;
        }
    }
    let m = run(&file);
    if std::env::var_os("COMPACT").is_some() {
        let s = m.summary.as_ref().unwrap();
        let d = s.substep.unwrap();
        println!(
            "COMPACT trials/frame {:.2} subdiv {} trips {} longest {} maxtrials {} | rest {:?} | wheel max {:.3} mm | pen {:?} mm | broken {}",
            d.trials as f64 / d.frames as f64,
            d.subdivided_frames,
            d.stall_trips,
            d.longest_subdivided_run,
            d.max_trials_in_frame,
            m.rest_speed
                .iter()
                .map(|v| (v * 1000.0).round() / 1000.0)
                .collect::<Vec<_>>(),
            m.wheel_error.iter().fold(0f32, |a, &b| a.max(b)) * 1e3,
            m.penetration
                .iter()
                .map(|v| (v * 1e6).round() / 1e3)
                .collect::<Vec<_>>(),
            m.broken
        );
        return;
    }
    let s = m.summary.as_ref().unwrap();
    let sub: Vec<(usize, u32)> = m
        .trials
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, t)| *t > 1)
        .collect();
    println!(
        "wheel err {:?}\n{:?}\nrest {:?}\npen {:?} other {}\nbroken {} launches {}\nsubdivided frames {:?}",
        m.wheel_error,
        s.substep,
        m.rest_speed,
        m.penetration,
        m.other_penetration,
        m.broken,
        s.launches,
        &sub[..sub.len().min(40)]
    );
}
