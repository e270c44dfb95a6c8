//! Scratch probe: where do the wall-push wheel joints' anchor errors come from?
#![allow(clippy::unwrap_used)]
use rapier3d::prelude::*;
use smithereens_rapier::{
    BoundedStepper, HeldPartDesc, HeldParts, LauncherDesc, PartMaterial, PartShape, SubstepSettings,
};
use std::sync::Arc;

#[derive(Clone, Copy, Debug)]
struct Cfg {
    iters: usize,
    pgs: usize,
    warm: bool,
    wheel_mass: f32,
    drive_on_wheels: bool,
    drive: f32,
    wall: bool,
    held: bool,
    stepper: bool,
    softness_hz: f32,
    contact_hz: f32,
    ball: bool,
    coulomb: bool,
    motor: bool,
    rear_only: bool,
    n: u32,
    lib: bool,
    pen_mm: f32,
}

fn run(c: Cfg, frames: u32) {
    let mut w = PhysicsWorld::new();
    w.integration_parameters.num_solver_iterations = c.iters;
    w.integration_parameters.num_internal_pgs_iterations = c.pgs;
    w.integration_parameters.warmstart_joints = c.warm;
    if c.contact_hz > 0.0 {
        w.integration_parameters
            .static_contact_softness
            .natural_frequency = c.contact_hz;
        w.integration_parameters.contact_softness.natural_frequency = c.contact_hz / 2.0;
    }
    if c.lib {
        w.integration_parameters.contact_softness.natural_frequency = 120.0;
        w.integration_parameters
            .static_contact_softness
            .natural_frequency = 240.0;
    }
    if c.pen_mm > 0.0 {
        w.integration_parameters.normalized_allowed_linear_error = c.pen_mm * 1e-3;
    }
    if c.coulomb {
        w.integration_parameters.friction_model = FrictionModel::Coulomb;
    }
    w.insert(
        RigidBodyBuilder::fixed(),
        ColliderBuilder::cuboid(200.0, 0.1, 200.0).translation(Vector::new(0.0, -0.1, 0.0)),
    );
    let wall_x = 4.0;
    if c.wall {
        w.insert(
            RigidBodyBuilder::fixed(),
            ColliderBuilder::cuboid(0.25, 1.5, 200.0).translation(Vector::new(
                wall_x + 0.25,
                1.5,
                0.0,
            )),
        );
    }
    let origin = Vector::new(wall_x - 2.25 - 0.5, 0.75, 0.0);
    let (chassis, _) = w.insert(
        RigidBodyBuilder::dynamic().translation(origin),
        ColliderBuilder::cuboid(1.8, 0.3, 0.9).mass(1200.0),
    );
    let mut wheels = vec![];
    let mut joints = vec![];
    for (dx, dz) in [(1.2, 1.0), (1.2, -1.0), (-1.2, 1.0), (-1.2, -1.0)] {
        let anchor = Vector::new(dx, -0.35, dz * 1.1);
        let (wheel, _) = w.insert(
            RigidBodyBuilder::dynamic().translation(origin + anchor),
            if c.ball {
                ColliderBuilder::ball(0.4)
            } else {
                ColliderBuilder::cylinder(0.1, 0.4)
                    .rotation(Vector::X * std::f32::consts::FRAC_PI_2)
            }
            .mass(c.wheel_mass)
            .friction(1.0),
        );
        let mut joint = RevoluteJointBuilder::new(Vector::Z).local_anchor1(anchor);
        if c.motor && (!c.rear_only || dx < 0.0) {
            let wheels_driven = if c.rear_only { 2.0 } else { 4.0 };
            joint = joint
                .motor_velocity(-50.0, 1.0e4)
                .motor_max_force(c.drive * 0.4 / wheels_driven);
        }
        if c.softness_hz > 0.0 {
            joint = joint.softness(SpringCoefficients::new(c.softness_hz, 1.0));
        }
        joints.push(w.insert_impulse_joint(chassis, wheel, joint));
        wheels.push(wheel);
    }
    let mut held = HeldParts::new();
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
    let desc = Arc::new(LauncherDesc {
        weapon: 0,
        parts: vec![part(-0.3), part(-0.1), part(0.1), part(0.3)],
        independent_durability: false,
        weapon_health: 1000.0,
    });
    if c.held {
        held.add_launcher(&mut w, chassis, desc).unwrap();
    } else {
        for p in &desc.parts {
            let (b, _) = w.insert(
                RigidBodyBuilder::dynamic().pose(Pose::from_translation(origin) * p.pose),
                p.shape.collider().mass(p.mass),
            );
            w.insert_impulse_joint(chassis, b, FixedJointBuilder::new().local_frame1(p.pose));
        }
    }
    for k in 1..c.n {
        let origin = Vector::new(wall_x - 2.25 - 0.5, 0.75, 4.0 * k as f32);
        let (ch, _) = w.insert(
            RigidBodyBuilder::dynamic().translation(origin),
            ColliderBuilder::cuboid(1.8, 0.3, 0.9).mass(1200.0),
        );
        for (dx, dz) in [(1.2, 1.0), (1.2, -1.0), (-1.2, 1.0), (-1.2, -1.0)] {
            let anchor = Vector::new(dx, -0.35, dz * 1.1);
            let (wheel, _) = w.insert(
                RigidBodyBuilder::dynamic().translation(origin + anchor),
                ColliderBuilder::cylinder(0.1, 0.4)
                    .rotation(Vector::X * std::f32::consts::FRAC_PI_2)
                    .mass(c.wheel_mass)
                    .friction(1.0),
            );
            joints.push(w.insert_impulse_joint(
                ch,
                wheel,
                RevoluteJointBuilder::new(Vector::Z).local_anchor1(anchor),
            ));
        }
        w.bodies[ch].add_force(Vector::new(c.drive, 0.0, 0.0), true);
    }
    let mut stepper = BoundedStepper::new(SubstepSettings::default()).unwrap();
    // Per-axis wheel error stats (chassis frame), last 5 s
    let mut worst = [0f32; 3];
    let mut sum_err = 0f64;
    let mut n = 0u32;
    let mut max_err = 0f32;
    let mut rest_speed = 0f32;
    let mut pen = 0f32;
    for f in 0..frames {
        if c.motor {
        } else if c.drive_on_wheels {
            // Torque about each wheel's axle (z): drive force × radius split over the 4 wheels
            // so that the ground friction pushes the car forward with `drive`.
            let axis = w.bodies[chassis].rotation() * Vector::Z;
            let t = c.drive * 0.4 / 4.0;
            for &wh in &wheels {
                let b = &mut w.bodies[wh];
                b.reset_torques(false);
                b.add_torque(-axis * t, true);
            }
            let b = &mut w.bodies[chassis];
            b.reset_torques(false);
            b.add_torque(axis * t * 4.0, true);
        } else {
            let b = &mut w.bodies[chassis];
            b.reset_forces(false);
            b.add_force(Vector::new(c.drive, 0.0, 0.0), true);
        }
        if c.stepper {
            let o = stepper.step(&mut w);
            if o.trials > 1 && std::env::var_os("TRACE").is_some() {
                println!(
                    "  frame {f}: {o:?} chassis v {:?} x {}",
                    w.bodies[chassis].linvel(),
                    w.bodies[chassis].translation().x
                );
            }
        } else {
            w.step();
        }
        let cpose = *w.bodies[chassis].position();
        let mut frame_max = 0f32;
        for &jh in &joints {
            let j = w.impulse_joints.get(jh).unwrap();
            let cp = *w.bodies[j.body1()].position();
            let _ = cpose;
            let f1 = cp * j.data.local_frame1;
            let f2 = *w.bodies[j.body2()].position() * j.data.local_frame2;
            let d = cp.rotation.inverse() * (f2.translation - f1.translation);
            if f >= frames / 2 {
                for k in 0..3 {
                    worst[k] = worst[k].max(d[k].abs());
                }
            }
            frame_max = frame_max.max(d.length());
        }
        if f >= frames / 2 {
            sum_err += frame_max as f64;
            n += 1;
            max_err = max_err.max(frame_max);
        }
        if f + 60 >= frames {
            rest_speed = rest_speed.max(w.bodies[chassis].linvel().length());
        }
        for (_, col) in w.colliders.iter() {
            let body = col.parent().and_then(|p| w.bodies.get(p));
            if col.is_enabled() && body.is_some_and(|b| b.is_dynamic() && b.is_enabled()) {
                pen = pen.max(col.compute_aabb().maxs.x - wall_x);
            }
        }
    }
    let d = stepper.diagnostics();
    println!(
        "{c:?}\n   wheel err mean {:.3} mm max {:.3} mm | per axis x {:.3} y {:.3} z {:.3} mm | chassis x {:.3} | rest {:.4} m/s pen {:.2} mm | trials/frame {:.2} subdiv {} trips {}",
        sum_err / n as f64 * 1e3,
        max_err * 1e3,
        worst[0] * 1e3,
        worst[1] * 1e3,
        worst[2] * 1e3,
        w.bodies[chassis].translation().x,
        rest_speed,
        pen * 1e3,
        d.trials as f64 / d.frames.max(1) as f64,
        d.subdivided_frames,
        d.stall_trips
    );
}

fn main() {
    let base = Cfg {
        iters: 4,
        pgs: 1,
        warm: false,
        wheel_mass: 25.0,
        drive_on_wheels: false,
        drive: 11000.0,
        wall: true,
        held: true,
        stepper: false,
        softness_hz: 0.0,
        contact_hz: 0.0,
        ball: false,
        coulomb: false,
        motor: false,
        rear_only: false,
        n: 1,
        lib: false,
        pen_mm: 0.0,
    };
    let frames = 600;
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map(String::as_str).unwrap_or("all");
    let mut cfgs = vec![];
    if which == "all" || which == "causes" {
        cfgs.push(base);
        cfgs.push(Cfg { drive: 0.0, ..base });
        cfgs.push(Cfg {
            wall: false,
            drive: 0.0,
            ..base
        });
        cfgs.push(Cfg { warm: true, ..base });
        cfgs.push(Cfg {
            warm: true,
            drive: 0.0,
            ..base
        });
        cfgs.push(Cfg { iters: 8, ..base });
        cfgs.push(Cfg { pgs: 4, ..base });
        cfgs.push(Cfg {
            wheel_mass: 60.0,
            ..base
        });
        cfgs.push(Cfg {
            wheel_mass: 100.0,
            ..base
        });
        cfgs.push(Cfg {
            drive_on_wheels: true,
            ..base
        });
        cfgs.push(Cfg {
            drive_on_wheels: true,
            warm: true,
            ..base
        });
        cfgs.push(Cfg {
            warm: true,
            iters: 8,
            ..base
        });
    }
    if which == "grid" {
        for m in [25.0, 50.0, 100.0] {
            for iters in [4, 8, 16] {
                for pgs in [1, 2] {
                    for warm in [false, true] {
                        cfgs.push(Cfg {
                            wheel_mass: m,
                            iters,
                            pgs,
                            warm,
                            ..base
                        });
                    }
                }
            }
        }
    }
    if which == "drive" {
        for m in [25.0, 50.0] {
            for (iters, pgs) in [(4, 1), (8, 2), (16, 1), (16, 2)] {
                for warm in [false, true] {
                    let b = Cfg {
                        wheel_mass: m,
                        iters,
                        pgs,
                        warm,
                        ..base
                    };
                    cfgs.push(b);
                    cfgs.push(Cfg { motor: true, ..b });
                    cfgs.push(Cfg {
                        motor: true,
                        rear_only: true,
                        ..b
                    });
                }
            }
        }
    }
    if which == "contact" {
        cfgs.push(Cfg { ball: true, ..base });
        cfgs.push(Cfg {
            ball: true,
            drive: 0.0,
            ..base
        });
        cfgs.push(Cfg {
            contact_hz: 240.0,
            ..base
        });
        cfgs.push(Cfg {
            contact_hz: 1000.0,
            ..base
        });
        cfgs.push(Cfg {
            contact_hz: 20.0,
            ..base
        });
        cfgs.push(Cfg {
            coulomb: true,
            ..base
        });
        cfgs.push(Cfg {
            softness_hz: 60.0,
            ..base
        });
        cfgs.push(Cfg {
            softness_hz: 1000.0,
            ..base
        });
    }
    if which == "many" {
        let fix = Cfg {
            wheel_mass: 50.0,
            iters: 8,
            pgs: 2,
            ..base
        };
        for n in [1, 2, 4, 8] {
            cfgs.push(Cfg { n, ..fix });
            cfgs.push(Cfg {
                n,
                warm: true,
                ..fix
            });
        }
    }
    if which == "lib" {
        let fix = Cfg {
            wheel_mass: 50.0,
            iters: 8,
            pgs: 2,
            ..base
        };
        for n in [1, 4] {
            cfgs.push(Cfg {
                n,
                lib: true,
                ..fix
            });
            cfgs.push(Cfg {
                n,
                pen_mm: 1.0,
                ..fix
            });
            cfgs.push(Cfg {
                n,
                lib: true,
                pen_mm: 1.0,
                ..fix
            });
            cfgs.push(Cfg {
                n,
                lib: true,
                pen_mm: 1.0,
                warm: true,
                ..fix
            });
        }
    }
    if which == "trace" {
        let fix = Cfg {
            wheel_mass: 50.0,
            iters: 8,
            pgs: 2,
            warm: true,
            stepper: true,
            ..base
        };
        cfgs.push(fix);
        cfgs.push(Cfg { motor: true, ..fix });
    }
    if which == "all" || which == "stepper" {
        let fix = Cfg {
            wheel_mass: 50.0,
            iters: 8,
            pgs: 2,
            warm: true,
            ..base
        };
        let fix16 = Cfg {
            wheel_mass: 50.0,
            iters: 16,
            pgs: 1,
            warm: true,
            ..base
        };
        for c in [
            base,
            Cfg {
                held: false,
                ..base
            },
            fix,
            Cfg { held: false, ..fix },
            fix16,
            Cfg {
                held: false,
                ..fix16
            },
            Cfg { motor: true, ..fix },
            Cfg {
                motor: true,
                held: false,
                ..fix
            },
        ] {
            cfgs.push(Cfg { stepper: true, ..c });
        }
    }
    for c in cfgs {
        run(c, frames);
    }
}
