//! Issue 16: a run file's sizes are checked against the data it actually
//! holds and against the documented cap before any reader allocates for
//! them. A hand-edited `frame_count` of 1e8 made `export` and `view` abort
//! on a 480 GB allocation while `replay --verify` passed the same file.
#![allow(clippy::unwrap_used)]

use smithereens_core::record::{
    MAX_RUN_FRAMES, RunBody, RunBond, RunBreak, RunChunk, RunError, RunEvent, RunProjectile,
    RunRecord,
};
use smithereens_core::{ChunkMesh, glam::Vec3};

const IDENTITY: [f32; 7] = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0];

/// A consistent three-frame run of one chunk owned by one body.
fn three_frames() -> RunRecord {
    let mut run = RunRecord::new("three", 1.0 / 60.0);
    run.frame_count = 3;
    run.frame_hashes = vec![1, 2, 3];
    run.chunks.push(RunChunk {
        centroid: Vec3::ZERO,
        support: false,
        mesh: ChunkMesh::default(),
    });
    run.bonds.push(RunBond {
        chunk0: 0,
        chunk1: None,
        centroid: Vec3::ZERO,
    });
    run.bodies.push(RunBody {
        id: 0,
        chunks: vec![0],
        supported: false,
        first_frame: 0,
        poses: vec![IDENTITY; 3],
    });
    run
}

fn read(run: &RunRecord) -> Result<RunRecord, RunError> {
    RunRecord::from_json(&run.to_json())
}

#[test]
fn a_consistent_run_reads_back_unchanged() {
    let run = three_frames();
    assert_eq!(read(&run).unwrap(), run);
}

#[test]
fn a_frame_count_beyond_the_cap_is_refused_whatever_the_file_holds() {
    for declared in [10_000_000, 100_000_000, 1_000_000_000, u32::MAX] {
        let mut run = three_frames();
        run.frame_count = declared;
        assert_eq!(read(&run), Err(RunError::TooManyFrames { declared }));
    }
    let mut run = three_frames();
    run.frame_count = MAX_RUN_FRAMES + 1;
    assert!(matches!(read(&run), Err(RunError::TooManyFrames { .. })));
}

#[test]
fn a_frame_count_that_disagrees_with_the_frames_present_is_refused() {
    for declared in [0, 2, 4, 1000, MAX_RUN_FRAMES] {
        let mut run = three_frames();
        run.frame_count = declared;
        assert_eq!(
            read(&run),
            Err(RunError::FrameCount {
                declared,
                present: 3
            }),
            "declared {declared}"
        );
    }
    let mut run = three_frames();
    run.frame_hashes.pop();
    assert_eq!(
        read(&run),
        Err(RunError::FrameCount {
            declared: 3,
            present: 2
        })
    );
}

#[test]
fn poses_events_and_breaks_past_the_last_frame_are_refused() {
    let mut run = three_frames();
    run.projectiles.push(RunProjectile {
        radius: 0.1,
        first_frame: 1,
        poses: vec![IDENTITY; 3],
    });
    assert!(matches!(read(&run), Err(RunError::Inconsistent(m)) if m.contains("projectile 0")));

    let mut run = three_frames();
    run.events.push(RunEvent {
        frame: 3,
        id: 7,
        point: Vec3::ZERO,
        radius: 1.0,
        damage: 1.0,
        inner_radius: None,
    });
    assert!(matches!(read(&run), Err(RunError::Inconsistent(m)) if m.contains("event 7")));

    let mut run = three_frames();
    run.breaks.push(RunBreak {
        frame: u32::MAX,
        bond: 0,
    });
    assert!(matches!(read(&run), Err(RunError::Inconsistent(m)) if m.contains("break of bond 0")));

    let mut run = three_frames();
    run.bodies[0].first_frame = u32::MAX;
    assert!(matches!(read(&run), Err(RunError::Inconsistent(_))));
}
