//! Why the wall-push vehicle's wheel joints drift (issue 14 item 6): one
//! 1.2 t chassis on four revolute-jointed wheels, holding 4 capsules as
//! colliders, pushed by 11 kN into a wall for 10 s at 60 Hz with plain
//! Rapier steps. Prints, over the last 5 s, the wheel joints' largest anchor
//! error and its vertical (load) and horizontal parts, and the chassis'
//! largest speed over the last second, for the wheel mass, the solver's
//! sweeps (substeps × Gauss–Seidel iterations), the contact stiffness,
//! joint warm starting, and with the drive or the wall taken away.
//!
//! `cargo run --release -p smithereens-rapier --example wheel_joint_drift`

use rapier3d::prelude::*;
use smithereens_rapier::{HeldPartDesc, HeldParts, LauncherDesc, PartMaterial, PartShape};
use std::sync::Arc;

#[derive(Clone, Copy)]
struct Case {
    wheel_mass: f32,
    substeps: usize,
    sweeps: usize,
    /// Contact natural frequency, Hz (twice it against fixed bodies).
    contact_hz: f32,
    warm_start: bool,
    drive: f32,
    wall: bool,
}

/// (largest error, its largest vertical part, its largest horizontal part) in m, rest speed m/s.
fn run(c: Case) -> (f32, f32, f32, f32) {
    let mut w = PhysicsWorld::new();
    let p = &mut w.integration_parameters;
    p.num_solver_iterations = c.substeps;
    p.num_internal_pgs_iterations = c.sweeps;
    p.warmstart_joints = c.warm_start;
    p.contact_softness.natural_frequency = c.contact_hz;
    p.static_contact_softness.natural_frequency = 2.0 * c.contact_hz;
    w.insert(
        RigidBodyBuilder::fixed(),
        ColliderBuilder::cuboid(200.0, 0.1, 200.0).translation(Vector::new(0.0, -0.1, 0.0)),
    );
    if c.wall {
        w.insert(
            RigidBodyBuilder::fixed(),
            ColliderBuilder::cuboid(0.25, 1.5, 20.0).translation(Vector::new(4.25, 1.5, 0.0)),
        );
    }
    let origin = Vector::new(1.66, 0.75, 0.0);
    let (chassis, _) = w.insert(
        RigidBodyBuilder::dynamic().translation(origin),
        ColliderBuilder::cuboid(1.8, 0.3, 0.9).mass(1200.0),
    );
    let mut joints = Vec::new();
    for (dx, dz) in [(1.2, 1.1), (1.2, -1.1), (-1.2, 1.1), (-1.2, -1.1)] {
        let anchor = Vector::new(dx, -0.35, dz);
        let (wheel, _) = w.insert(
            RigidBodyBuilder::dynamic().translation(origin + anchor),
            ColliderBuilder::cylinder(0.1, 0.4)
                .rotation(Vector::X * std::f32::consts::FRAC_PI_2)
                .mass(c.wheel_mass)
                .friction(1.0),
        );
        joints.push(w.insert_impulse_joint(
            chassis,
            wheel,
            RevoluteJointBuilder::new(Vector::Z).local_anchor1(anchor),
        ));
    }
    let part = |z: f32| HeldPartDesc {
        shape: PartShape::Capsule {
            half_height: 0.35,
            radius: 0.08,
        },
        material: PartMaterial::default(),
        mass: 6.0,
        pose: Pose::from_parts(
            Vector::new(1.9, 0.55, z),
            Rotation::from_axis_angle(Vector::Z, std::f32::consts::FRAC_PI_2),
        ),
        health: 100.0,
    };
    let desc = LauncherDesc {
        weapon: 0,
        parts: vec![part(-0.3), part(-0.1), part(0.1), part(0.3)],
        independent_durability: false,
        weapon_health: 1000.0,
    };
    let mut held = HeldParts::new();
    if held.add_launcher(&mut w, chassis, Arc::new(desc)).is_err() {
        return (f32::NAN, f32::NAN, f32::NAN, f32::NAN);
    }
    w.bodies[chassis].add_force(Vector::new(c.drive, 0.0, 0.0), true);
    let (mut worst, mut vertical, mut horizontal, mut rest) = (0f32, 0f32, 0f32, 0f32);
    for frame in 0..600 {
        w.step();
        if frame >= 300 {
            let cp = *w.bodies[chassis].position();
            for &j in &joints {
                let Some(j) = w.impulse_joints.get(j) else {
                    continue;
                };
                let f1 = cp * j.data.local_frame1;
                let f2 = *w.bodies[j.body2()].position() * j.data.local_frame2;
                let d = cp.rotation.inverse() * (f2.translation - f1.translation);
                worst = worst.max(d.length());
                vertical = vertical.max(d.y.abs());
                horizontal = horizontal.max(d.x.abs().max(d.z.abs()));
            }
        }
        if frame >= 540 {
            rest = rest.max(w.bodies[chassis].linvel().length());
        }
    }
    (worst, vertical, horizontal, rest)
}

fn main() {
    let base = Case {
        wheel_mass: 25.0,
        substeps: 4,
        sweeps: 1,
        contact_hz: 30.0,
        warm_start: false,
        drive: 11_000.0,
        wall: true,
    };
    let mut cases: Vec<(String, Case)> = vec![
        ("25 kg, Rapier defaults (4 × 1, 30 Hz)".into(), base),
        ("  drive off".into(), Case { drive: 0.0, ..base }),
        (
            "  drive off, no wall".into(),
            Case {
                drive: 0.0,
                wall: false,
                ..base
            },
        ),
        (
            "  joints warm-started".into(),
            Case {
                warm_start: true,
                ..base
            },
        ),
    ];
    for m in [25.0, 50.0, 100.0] {
        for (substeps, sweeps) in [(4, 1), (8, 1), (8, 2), (16, 1), (8, 4)] {
            cases.push((
                format!("{m} kg, {substeps} × {sweeps}"),
                Case {
                    wheel_mass: m,
                    substeps,
                    sweeps,
                    ..base
                },
            ));
        }
    }
    let scene = Case {
        wheel_mass: 50.0,
        substeps: 8,
        sweeps: 2,
        contact_hz: 120.0,
        ..base
    };
    cases.push(("50 kg, 8 × 2, 120 Hz (the library's world)".into(), scene));
    cases.push((
        "  joints warm-started".into(),
        Case {
            warm_start: true,
            ..scene
        },
    ));
    cases.push((
        "  8 × 4, warm-started (wall_push before)".into(),
        Case {
            warm_start: true,
            sweeps: 4,
            ..scene
        },
    ));
    cases.push((
        "  8 × 6, warm-started (the wall_push built-in)".into(),
        Case {
            warm_start: true,
            sweeps: 6,
            ..scene
        },
    ));
    println!(
        "{:<48} {:>9} {:>9} {:>11} {:>9}",
        "case", "error mm", "vertical", "horizontal", "rest m/s"
    );
    for (name, c) in cases {
        let (e, v, h, r) = run(c);
        println!(
            "{name:<48} {:>9.3} {:>9.3} {:>11.3} {r:>9.4}",
            e * 1e3,
            v * 1e3,
            h * 1e3
        );
    }
}
