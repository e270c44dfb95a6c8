//! Bounded sub-stepping (issue 14 item 5): trial cap, stall rule, faithful
//! rollback of rejected trials, and decisions that are the same in every
//! process.
#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use rapier3d::prelude::*;
use smithereens_rapier::{
    BoundedStepper, FrameOutcome, FrameStep, SubstepError, SubstepSettings, SubstepState,
    max_joint_anchor_error, warm_up,
};

/// A fixed anchor, four 1 kg links on spherical joints and a 400 kg weight
/// swinging at the end: a mass ratio an iterative solver leaves with
/// millimetre anchor errors at 60 Hz.
fn heavy_chain() -> PhysicsWorld {
    let mut w = PhysicsWorld::new();
    let anchor = w.insert_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, 5.0, 0.0)));
    let mut prev = anchor;
    for i in 1..=5 {
        let last = i == 5;
        let (b, _) = w.insert(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(0.5 * i as f32, 5.0, 0.0))
                .linvel(if last {
                    Vector::new(0.0, 0.0, 3.0)
                } else {
                    Vector::ZERO
                }),
            ColliderBuilder::ball(if last { 0.3 } else { 0.05 })
                .mass(if last { 400.0 } else { 1.0 })
                .collision_groups(InteractionGroups::none()),
        );
        let joint = SphericalJointBuilder::new()
            .local_anchor1(if prev == anchor {
                Vector::ZERO
            } else {
                Vector::new(0.25, 0.0, 0.0)
            })
            .local_anchor2(Vector::new(-0.25, 0.0, 0.0));
        w.insert_impulse_joint(prev, b, joint);
        prev = b;
    }
    w
}

fn bits(w: &PhysicsWorld) -> Vec<u32> {
    let mut out = Vec::new();
    for (_, b) in w.bodies.iter() {
        out.extend(b.translation().to_array().map(f32::to_bits));
        out.extend(b.rotation().to_array().map(f32::to_bits));
        out.extend(b.linvel().to_array().map(f32::to_bits));
        out.extend(b.angvel().to_array().map(f32::to_bits));
    }
    out
}

fn hash(words: &[u32]) -> u64 {
    words.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &w| {
        (h ^ u64::from(w)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[test]
fn settings_out_of_range_are_refused() {
    let s = SubstepSettings::default();
    let bad = [
        (
            SubstepSettings {
                tolerance: 0.0,
                ..s
            },
            SubstepError::BadTolerance(0.0),
        ),
        (
            SubstepSettings {
                tolerance: -1e-4,
                ..s
            },
            SubstepError::BadTolerance(-1e-4),
        ),
        (
            SubstepSettings { max_trials: 0, ..s },
            SubstepError::NoTrials,
        ),
        (
            SubstepSettings { max_depth: 0, ..s },
            SubstepError::BadDepth(0),
        ),
        (
            SubstepSettings { max_depth: 17, ..s },
            SubstepError::BadDepth(17),
        ),
        (
            SubstepSettings {
                stall_frames: 0,
                ..s
            },
            SubstepError::NoStallFrames,
        ),
    ];
    for (settings, err) in bad {
        assert_eq!(BoundedStepper::new(settings).err(), Some(err));
    }
    let nan = SubstepSettings {
        tolerance: f32::NAN,
        ..s
    };
    assert!(matches!(
        BoundedStepper::new(nan).err(),
        Some(SubstepError::BadTolerance(_))
    ));
    assert!(BoundedStepper::new(s).is_ok());
    assert_eq!(s.tolerance, 1e-4);
    assert_eq!(s.max_trials, 64);
}

#[test]
fn a_world_within_tolerance_takes_one_trial_per_frame() {
    let mut w = PhysicsWorld::new();
    w.insert(RigidBodyBuilder::dynamic(), ColliderBuilder::ball(0.5));
    let mut stepper = BoundedStepper::new(SubstepSettings::default()).unwrap();
    for _ in 0..10 {
        let out = stepper.step(&mut w);
        assert_eq!((out.trials, out.segments, out.subdivided), (1, 1, false));
    }
    assert_eq!(stepper.diagnostics().trials, 10);
    assert_eq!(max_joint_anchor_error(&w), 0.0);
}

#[test]
fn the_joint_error_counts_only_locked_axes() {
    // Two bodies 0.3 m apart on a prismatic joint along x whose anchors are
    // 0.3 m apart along the free axis and 0.002 m along a locked one.
    let mut w = PhysicsWorld::new();
    let a = w.insert_body(RigidBodyBuilder::fixed());
    let b = w.insert_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.3, 0.002, 0.0)));
    w.insert_impulse_joint(a, b, PrismaticJointBuilder::new(Vector::X));
    assert!((max_joint_anchor_error(&w) - 0.002).abs() < 1e-6);
}

/// Records every trial's segment length; `reject` drops the last one, so
/// `accepted` is the sequence of accepted segments.
#[derive(Default)]
struct Recorder {
    accepted: Vec<f32>,
    trials: u32,
}

impl FrameStep for Recorder {
    fn step(&mut self, physics: &mut PhysicsWorld) {
        self.accepted.push(physics.integration_parameters.dt);
        self.trials += 1;
        physics.step();
    }
    fn reject(&mut self) {
        self.accepted.pop();
    }
}

#[test]
fn the_heavy_chain_subdivides_within_the_cap_and_the_stall_rule_bounds_the_run() {
    let mut w = heavy_chain();
    let settings = SubstepSettings {
        stall_frames: 3,
        ..SubstepSettings::default()
    };
    let mut stepper = BoundedStepper::new(settings).unwrap();
    let mut outcomes: Vec<FrameOutcome> = Vec::new();
    let mut rec = Recorder::default();
    for _ in 0..120 {
        let before = rec.trials;
        let out = stepper.step_with(&mut w, &mut rec);
        assert_eq!(rec.trials - before, out.trials, "every trial counted");
        assert!(out.trials >= 1 && out.trials <= 64);
        outcomes.push(out);
    }
    let d = *stepper.diagnostics();
    let subdivided = outcomes.iter().filter(|o| o.subdivided).count() as u64;
    assert!(subdivided > 0, "the scene must need subdivision: {d:?}");
    assert_eq!(d.subdivided_frames, subdivided);
    assert_eq!(d.trials, u64::from(rec.trials));
    // No run of subdivided frames longer than stall_frames.
    let mut run = 0;
    let mut longest = 0;
    for o in &outcomes {
        run = if o.subdivided { run + 1 } else { 0 };
        longest = longest.max(run);
        if o.stalled {
            assert_eq!((o.trials, o.subdivided, o.over_tolerance), (1, false, true));
        }
    }
    assert!(longest <= 3, "{longest}");
    assert_eq!(d.longest_subdivided_run, longest);
    assert!(d.stall_trips >= 1, "{d:?}");
    assert_eq!(
        d.stalled_frames,
        outcomes.iter().filter(|o| o.stalled).count() as u64
    );
    // The accepted segments of each frame cover exactly the frame.
    let total: f64 = rec.accepted.iter().map(|&s| f64::from(s)).sum();
    assert!((total - 120.0 / 60.0).abs() < 1e-5, "{total}");
    assert_eq!(w.integration_parameters.dt, 1.0 / 60.0, "dt restored");
    println!("heavy chain: {d:?}");
}

#[test]
fn rejected_trials_leave_no_trace() {
    // The stepper's world ends bit for bit where plain steps of the accepted
    // segment lengths end: a restored trial changes nothing.
    let mut a = heavy_chain();
    let mut stepper = BoundedStepper::new(SubstepSettings {
        stall_frames: 1000,
        ..SubstepSettings::default()
    })
    .unwrap();
    let mut rec = Recorder::default();
    for _ in 0..30 {
        stepper.step_with(&mut a, &mut rec);
    }
    assert!(
        rec.trials as usize > rec.accepted.len(),
        "some trials were rejected"
    );
    let mut b = heavy_chain();
    for &dt in &rec.accepted {
        b.integration_parameters.dt = dt;
        b.step();
    }
    assert_eq!(bits(&a), bits(&b));
}

/// Three boxes dropped in a stack onto a fixed ground: contacts, sleep
/// candidates and warm-started contact impulses (what `heavy_chain` lacks).
fn box_stack() -> PhysicsWorld {
    let mut w = PhysicsWorld::new();
    w.insert(
        RigidBodyBuilder::fixed(),
        ColliderBuilder::cuboid(5.0, 0.1, 5.0),
    );
    for i in 0..3 {
        w.insert(
            RigidBodyBuilder::dynamic().translation(Vector::new(
                0.05 * i as f32,
                0.4 + 0.55 * i as f32,
                0.0,
            )),
            ColliderBuilder::cuboid(0.25, 0.25, 0.25),
        );
    }
    w
}

#[test]
fn warm_up_leaves_the_world_bit_for_bit_as_it_was() {
    // Fresh, and mid-motion (the chain's joints loaded and its weight
    // swinging; the boxes landing on each other): a warmed-up world steps to
    // the same bits as one that was not.
    for (name, make) in [
        ("heavy chain", heavy_chain as fn() -> PhysicsWorld),
        ("box stack", box_stack),
    ] {
        for lead in [0, 10] {
            let mut a = make();
            let mut b = make();
            for _ in 0..lead {
                a.step();
                b.step();
            }
            let before = bits(&a);
            warm_up(&mut a);
            assert_eq!(bits(&a), before, "{name}: warm_up left the state as it was");
            for _ in 0..60 {
                a.step();
                b.step();
            }
            assert_ne!(bits(&a), before, "{name}: the world moved");
            assert_eq!(bits(&a), bits(&b), "{name}, warmed after {lead} steps");
        }
    }
}

/// 90 frames of the heavy chain with a snapshot (world + stepper state) at
/// frame 45 resumed in a fresh world: the (hash, decisions) of each half.
fn run_with_resume() -> (u64, Vec<(u32, bool, bool)>) {
    let settings = SubstepSettings {
        stall_frames: 4,
        ..SubstepSettings::default()
    };
    let mut w = heavy_chain();
    let mut stepper = BoundedStepper::new(settings).unwrap();
    let mut decisions = Vec::new();
    for _ in 0..45 {
        let o = stepper.step(&mut w);
        decisions.push((o.trials, o.subdivided, o.stalled));
    }
    let bytes = postcard::to_allocvec(&w).unwrap();
    let state = postcard::to_allocvec(&stepper.state()).unwrap();
    let mut resumed: PhysicsWorld = postcard::from_bytes(&bytes).unwrap();
    let mut stepper2 = BoundedStepper::new(settings).unwrap();
    stepper2.set_state(postcard::from_bytes::<SubstepState>(&state).unwrap());
    for _ in 45..90 {
        let o = stepper.step(&mut w);
        let o2 = stepper2.step(&mut resumed);
        assert_eq!(o, o2);
        decisions.push((o.trials, o.subdivided, o.stalled));
    }
    assert_eq!(bits(&w), bits(&resumed), "resumed world diverged");
    (hash(&bits(&w)), decisions)
}

#[test]
fn a_resumed_world_and_another_process_decide_every_frame_the_same_way() {
    if std::env::var_os("SUBSTEP_CHILD").is_some() {
        let (h, d) = run_with_resume();
        println!(
            "CHILD {h:016x} {}",
            hash(
                &d.iter()
                    .map(|x| x.0 * 4 + u32::from(x.1) * 2 + u32::from(x.2))
                    .collect::<Vec<_>>()
            )
        );
        return;
    }
    let (h, d) = run_with_resume();
    let dh = hash(
        &d.iter()
            .map(|x| x.0 * 4 + u32::from(x.1) * 2 + u32::from(x.2))
            .collect::<Vec<_>>(),
    );
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_resumed_world_and_another_process_decide_every_frame_the_same_way",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("SUBSTEP_CHILD", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find_map(|l| l.find("CHILD ").map(|at| l[at..].to_string()))
        .unwrap_or_else(|| panic!("child said: {text}"));
    assert_eq!(line, format!("CHILD {h:016x} {dh}"));
    assert!(d.iter().any(|x| x.1), "the run subdivided");
}

#[test]
fn the_stall_rule_lets_go_at_the_first_frame_under_tolerance() {
    let mut w = heavy_chain();
    let mut stepper = BoundedStepper::new(SubstepSettings {
        stall_frames: 2,
        ..SubstepSettings::default()
    })
    .unwrap();
    let outs: Vec<FrameOutcome> = (0..4).map(|_| stepper.step(&mut w)).collect();
    assert!(outs[0].subdivided && outs[1].subdivided);
    assert!(outs[2].stalled && outs[3].stalled);
    assert_eq!(
        stepper.state(),
        SubstepState {
            subdivided_run: 2,
            stalled: true
        }
    );
    // The joints go (the weight is released): the next frame is within tolerance.
    let joints: Vec<_> = w.impulse_joints.iter().map(|(h, _)| h).collect();
    for j in joints {
        w.remove_impulse_joint(j);
    }
    let out = stepper.step(&mut w);
    assert_eq!(
        (out.trials, out.stalled, out.over_tolerance),
        (1, false, false)
    );
    assert_eq!(stepper.state(), SubstepState::default());
    let d = stepper.diagnostics();
    assert_eq!(
        (d.stall_trips, d.stalled_frames, d.longest_subdivided_run),
        (1, 2, 2)
    );
}
