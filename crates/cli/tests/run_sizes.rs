//! Issue 16, item 4: sizes read from files and flags are checked against
//! the data present and the documented caps before anything is allocated.
//! A run file with `frame_count` = 1e8 made `export` and `view` abort on a
//! 480 GB allocation while `replay --verify` passed it; `demo --steps
//! 4000000000` aborted the same way.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

use smithereens::demo::{DemoError, DemoOptions, run_demo};
use smithereens::export::{
    ExportError, ExportOptions, MAX_GLB_BIN_BYTES, export_glb, validate_run,
};
use smithereens::simulate::{ScenarioSource, SimulateError, simulate};
use smithereens_core::ChunkMesh;
use smithereens_core::glam::Vec3;
use smithereens_core::record::{MAX_RUN_FRAMES, MAX_RUN_STEPS, RunBody, RunChunk, RunRecord};
use smithereens_rapier::recorded_run::RunError;
use std::process::Command;

const IDENTITY: [f32; 7] = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0];

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("smithereens-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn export_view_and_replay_refuse_a_hand_edited_frame_count_with_exit_code_1() {
    let exe = env!("CARGO_BIN_EXE_smithereens");
    let dir = temp_dir("frame-count");
    let source = ScenarioSource::resolve("wall").unwrap();
    let (record, _) = simulate(&source, Some(20), &mut |_, _| {}).unwrap();
    // 1e7, 1e8, 1e9 frames declared, 21 present; and 20 declared, 21 present.
    for (declared, says) in [
        (10_000_000u32, "a run holds at most 600001"),
        (100_000_000, "a run holds at most 600001"),
        (1_000_000_000, "a run holds at most 600001"),
        (20, "declares 20 frames but holds 21"),
    ] {
        let mut edited = record.clone();
        edited.frame_count = declared;
        let run = dir.join(format!("edited-{declared}.run.json"));
        std::fs::write(&run, edited.to_json()).unwrap();
        let glb = dir.join("out.glb");
        for args in [
            vec![
                "export".as_ref(),
                run.as_os_str(),
                "-o".as_ref(),
                glb.as_os_str(),
            ],
            vec!["view".as_ref(), run.as_os_str()],
            vec!["replay".as_ref(), "--verify".as_ref(), run.as_os_str()],
        ] {
            let out = Command::new(exe).args(&args).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
            assert!(stderr.contains(says), "{args:?}: {stderr}");
            assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        }
        assert!(!glb.exists(), "nothing written for {declared}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A run of `chunks` chunks, all in one body that lives `poses` frames, of
/// which `frame_count` are declared.
fn one_body_run(chunks: u32, poses: u32, frame_count: u32) -> RunRecord {
    let mut run = RunRecord::new("sizes", 1.0 / 60.0);
    run.frame_count = frame_count;
    run.chunks = (0..chunks)
        .map(|_| RunChunk {
            centroid: Vec3::ZERO,
            support: false,
            mesh: ChunkMesh::default(),
        })
        .collect();
    run.bodies.push(RunBody {
        id: 0,
        chunks: (0..chunks).collect(),
        supported: false,
        first_frame: 0,
        poses: vec![IDENTITY; poses as usize],
    });
    run
}

#[test]
fn the_exporter_checks_frames_against_the_cap_and_the_poses_present_without_allocating_per_frame() {
    // Built in memory (no file reader in between): the exporter's own checks.
    let huge = one_body_run(1000, 2, 1_000_000_000);
    assert_eq!(
        export_glb(&huge, &ExportOptions::default()),
        Err(ExportError::TooManyFrames(1_000_000_000))
    );
    // At the cap, 1000 chunks × 600 001 frames would be 2.4 GB of owner
    // tables; the sweep needs one entry per chunk and finds frame 2 unowned.
    let short = one_body_run(1000, 2, MAX_RUN_FRAMES);
    assert_eq!(
        validate_run(&short),
        Err(ExportError::Ownership {
            chunk: 0,
            frame: 2,
            owners: 0
        })
    );
    // A body naming a missing chunk is an error, not an index panic.
    let mut stray = one_body_run(2, 2, 2);
    stray.bodies[0].chunks.push(9);
    assert!(matches!(
        validate_run(&stray),
        Err(ExportError::ChunkIndex { chunk: 9, .. })
    ));
}

#[test]
fn an_export_too_large_for_one_glb_is_refused_with_the_interval_that_fits() {
    // 4000 chunks keyed on 600 001 frames: 67 GB of keys.
    let run = one_body_run(4000, MAX_RUN_FRAMES, MAX_RUN_FRAMES);
    let err = export_glb(&run, &ExportOptions::default()).unwrap_err();
    let ExportError::TooLarge {
        bytes,
        every_needed: Some(every),
    } = err
    else {
        panic!("{err:?}");
    };
    assert!(bytes > MAX_GLB_BIN_BYTES);
    // (600 000 / every + 1) keys × (4 + 4000 × 28) bytes must fit; one less must not.
    let keys = |e: u64| (MAX_RUN_STEPS as u64).div_ceil(e) + 1;
    assert!(keys(every as u64) * 112_004 <= MAX_GLB_BIN_BYTES);
    assert!(keys(every as u64 - 1) * 112_004 > MAX_GLB_BIN_BYTES);
    assert!(
        err.to_string().contains(&format!("--every {every}")),
        "{err}"
    );
}

#[test]
fn demo_steps_beyond_the_cap_fail_before_the_fracture_starts() {
    for steps in [MAX_RUN_STEPS + 1, 4_000_000_000] {
        let options = DemoOptions {
            steps,
            ..DemoOptions::default()
        };
        let mut fractured = false;
        let err = run_demo(&options, &mut |_| fractured = true, &mut |_, _| {}).unwrap_err();
        assert!(
            matches!(err, DemoError::Scenario(RunError::TooManySteps { steps: s }) if s == steps),
            "{err:?}"
        );
        assert!(!fractured);
    }
}

#[test]
fn simulate_steps_of_zero_or_beyond_the_cap_name_the_flag() {
    let source = ScenarioSource::resolve("wall").unwrap();
    // The wall's 1/60 s steps reach the 3600 s limit after 215,999 steps,
    // before the 600,000-step cap of a run.
    for steps in [0, 215_999 + 1, 300_000, MAX_RUN_STEPS + 1, u32::MAX] {
        let err = simulate(&source, Some(steps), &mut |_, _| {}).unwrap_err();
        assert!(
            matches!(err, SimulateError::Steps { steps: s, max: 215_999, .. } if s == steps),
            "{err:?}"
        );
        let text = err.to_string();
        assert!(
            text.contains("--steps") && !text.contains("duration"),
            "{text}"
        );
    }
}
