//! Animated glTF export, read back with the `gltf` crate.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

use gltf::animation::util::ReadOutputs;
use smithereens::demo::{DemoOptions, run_demo};
use smithereens::export::{ExportError, ExportOptions, export_glb, sampled_frames};
use smithereens_core::record::{PoseArray, RunRecord};
use std::process::Command;
use std::sync::OnceLock;

/// A real recorded run (the demo, shortened), made once for all tests.
fn demo_run() -> &'static RunRecord {
    static RUN: OnceLock<RunRecord> = OnceLock::new();
    RUN.get_or_init(|| {
        let options = DemoOptions {
            steps: 90,
            ..DemoOptions::default()
        };
        run_demo(&options, &mut |_| {}, &mut |_, _| {})
            .unwrap()
            .record
    })
}

/// The pose of `chunk` on `frame`, found independently of the exporter.
fn chunk_pose(run: &RunRecord, frame: u32, chunk: u32) -> PoseArray {
    let body = run
        .bodies
        .iter()
        .find(|b| {
            b.chunks.contains(&chunk)
                && frame >= b.first_frame
                && ((frame - b.first_frame) as usize) < b.poses.len()
        })
        .unwrap();
    body.poses[(frame - body.first_frame) as usize]
}

fn assert_close(a: &[f32], b: &[f32], tol: f32, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= tol, "{what}: {a:?} vs {b:?}");
    }
}

/// `q` and `-q` are the same rotation.
fn assert_same_rotation(q: [f32; 4], pose: &PoseArray, what: &str) {
    let dot: f32 = q.iter().zip(&pose[3..7]).map(|(a, b)| a * b).sum();
    assert!(
        (dot.abs() - 1.0).abs() < 1e-5,
        "{what}: {q:?} vs {:?}",
        &pose[3..7]
    );
}

struct Sampled {
    times: Vec<f32>,
    /// Per node: translations and rotations per key.
    translations: Vec<Vec<[f32; 3]>>,
    rotations: Vec<Vec<[f32; 4]>>,
}

fn read_animation(doc: &gltf::Gltf) -> Sampled {
    let blob = doc.blob.as_deref().expect("GLB carries its binary chunk");
    let n = doc.nodes().count();
    let mut out = Sampled {
        times: vec![],
        translations: vec![vec![]; n],
        rotations: vec![vec![]; n],
    };
    let animation = doc.animations().next().expect("one animation");
    for channel in animation.channels() {
        let reader = channel.reader(|_| Some(blob));
        let times: Vec<f32> = reader.read_inputs().unwrap().collect();
        if out.times.is_empty() {
            out.times = times.clone();
        }
        assert_eq!(times, out.times, "all channels share the key times");
        let node = channel.target().node().index();
        match reader.read_outputs().unwrap() {
            ReadOutputs::Translations(t) => out.translations[node] = t.collect(),
            ReadOutputs::Rotations(r) => out.rotations[node] = r.into_f32().collect(),
            _ => panic!("only translation and rotation channels are written"),
        }
    }
    out
}

#[test]
fn the_glb_has_one_node_per_chunk_with_exterior_and_interior_primitives() {
    let run = demo_run();
    let glb = export_glb(run, &ExportOptions::default()).unwrap();
    let doc = gltf::Gltf::from_slice(&glb).unwrap();
    let blob = doc.blob.as_deref().unwrap();
    assert_eq!(doc.nodes().count(), run.chunks.len());
    assert_eq!(
        doc.scenes().next().unwrap().nodes().count(),
        run.chunks.len()
    );
    for (node, chunk) in doc.nodes().zip(&run.chunks) {
        let mesh = node.mesh().expect("every demo chunk has a mesh");
        let mut triangles = (0, 0);
        for primitive in mesh.primitives() {
            let reader = primitive.reader(|_| Some(blob));
            let positions: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
            assert_eq!(
                positions,
                chunk
                    .mesh
                    .positions
                    .iter()
                    .map(|p| p.to_array())
                    .collect::<Vec<_>>(),
                "vertices stay in asset space"
            );
            let indices: Vec<u32> = reader.read_indices().unwrap().into_u32().collect();
            match primitive.material().name() {
                Some("exterior") => {
                    assert_eq!(
                        indices,
                        chunk
                            .mesh
                            .exterior
                            .iter()
                            .flatten()
                            .copied()
                            .collect::<Vec<_>>()
                    );
                    triangles.0 = indices.len() / 3;
                }
                Some("interior") => {
                    assert_eq!(
                        indices,
                        chunk
                            .mesh
                            .interior
                            .iter()
                            .flatten()
                            .copied()
                            .collect::<Vec<_>>()
                    );
                    triangles.1 = indices.len() / 3;
                }
                other => panic!("unexpected material {other:?}"),
            }
        }
        assert_eq!(
            triangles,
            (chunk.mesh.exterior.len(), chunk.mesh.interior.len()),
            "{:?}",
            node.name()
        );
    }
    assert!(
        run.chunks.iter().all(|c| !c.mesh.interior.is_empty()),
        "every demo chunk has cut faces"
    );
}

#[test]
fn the_animation_spans_the_run_and_starts_and_ends_on_its_poses() {
    let run = demo_run();
    let glb = export_glb(run, &ExportOptions::default()).unwrap();
    let doc = gltf::Gltf::from_slice(&glb).unwrap();
    assert_eq!(doc.animations().count(), 1);
    assert_eq!(
        doc.animations().next().unwrap().channels().count(),
        2 * run.chunks.len()
    );
    let a = read_animation(&doc);
    assert_eq!(a.times.len(), run.frame_count as usize, "one key per frame");
    assert_eq!(a.times[0], 0.0);
    let duration = (run.frame_count - 1) as f32 * run.timestep;
    assert!(
        (a.times[a.times.len() - 1] - duration).abs() < 1e-5,
        "{} vs {duration}",
        a.times[a.times.len() - 1]
    );
    let last = run.frame_count - 1;
    let mut moved = 0;
    for c in 0..run.chunks.len() {
        let (first_pose, last_pose) = (
            chunk_pose(run, 0, c as u32),
            chunk_pose(run, last, c as u32),
        );
        let (t, r) = (&a.translations[c], &a.rotations[c]);
        assert_eq!(t.len(), a.times.len());
        assert_eq!(r.len(), a.times.len());
        assert_eq!(
            t[0],
            [first_pose[0], first_pose[1], first_pose[2]],
            "chunk {c} first translation"
        );
        assert_eq!(
            t[t.len() - 1],
            [last_pose[0], last_pose[1], last_pose[2]],
            "chunk {c} last translation"
        );
        assert_same_rotation(r[0], &first_pose, &format!("chunk {c} first rotation"));
        assert_same_rotation(
            r[r.len() - 1],
            &last_pose,
            &format!("chunk {c} last rotation"),
        );
        if (0..3).any(|k| (first_pose[k] - last_pose[k]).abs() > 0.01) {
            moved += 1;
        }
        // Consecutive keys stay in one hemisphere so slerp takes the short way.
        assert!(
            r.windows(2)
                .all(|w| w[0].iter().zip(&w[1]).map(|(x, y)| x * y).sum::<f32>() >= 0.0)
        );
    }
    assert!(moved > 0, "the demo moves some chunks");
    // The node's rest transform is frame 0.
    for (node, c) in doc.nodes().zip(0u32..) {
        let (t, r, _) = node.transform().decomposed();
        let p = chunk_pose(run, 0, c);
        assert_close(&t, &p[..3], 0.0, "rest translation");
        assert_same_rotation(r, &p, "rest rotation");
    }
}

#[test]
fn sampling_every_k_frames_keeps_the_last_frame() {
    let run = demo_run();
    let glb = export_glb(run, &ExportOptions { every: 7 }).unwrap();
    let doc = gltf::Gltf::from_slice(&glb).unwrap();
    let a = read_animation(&doc);
    let frames = sampled_frames(run.frame_count, 7);
    assert_eq!(frames.len(), (run.frame_count as usize - 1).div_ceil(7) + 1);
    assert_eq!(*frames.last().unwrap(), run.frame_count - 1);
    assert_eq!(a.times.len(), frames.len());
    let duration = (run.frame_count - 1) as f32 * run.timestep;
    assert!((a.times[a.times.len() - 1] - duration).abs() < 1e-5);
    let last = chunk_pose(run, run.frame_count - 1, 0);
    assert_eq!(
        a.translations[0][frames.len() - 1],
        [last[0], last[1], last[2]]
    );
    assert!(glb.len() < export_glb(run, &ExportOptions::default()).unwrap().len());
}

#[test]
fn runs_the_exporter_cannot_animate_are_rejected_with_a_reason() {
    let run = demo_run();
    assert_eq!(
        export_glb(run, &ExportOptions { every: 0 }),
        Err(ExportError::ZeroInterval)
    );

    let mut orphan = run.clone();
    orphan.bodies[0].chunks.retain(|&c| c != 3);
    assert!(matches!(
        export_glb(&orphan, &ExportOptions::default()),
        Err(ExportError::Ownership {
            chunk: 3,
            frame: 0,
            owners: 0
        })
    ));

    let mut bad_mesh = run.clone();
    bad_mesh.chunks[2].mesh.interior[0][1] = 1_000_000;
    assert!(matches!(
        export_glb(&bad_mesh, &ExportOptions::default()),
        Err(ExportError::MeshIndex {
            chunk: 2,
            vertex: 1_000_000,
            ..
        })
    ));

    let mut nan = run.clone();
    nan.bodies[0].poses[0][1] = f32::NAN;
    assert!(matches!(
        export_glb(&nan, &ExportOptions::default()),
        Err(ExportError::NonFinite(_))
    ));
}

#[test]
fn the_cli_exports_a_run_and_refuses_truncated_or_foreign_files() {
    let dir = std::env::temp_dir().join(format!("smithereens-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = demo_run().to_json();
    let good = dir.join("good.run.json");
    let cut = dir.join("cut.run.json");
    let foreign = dir.join("foreign.json");
    std::fs::write(&good, &json).unwrap();
    std::fs::write(&cut, &json[..json.len() / 3]).unwrap();
    std::fs::write(&foreign, br#"{"format":"something-else","version":1}"#).unwrap();
    let exe = env!("CARGO_BIN_EXE_smithereens");

    let out = dir.join("good.glb");
    let ok = Command::new(exe)
        .args(["export"])
        .arg(&good)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let doc = gltf::Gltf::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(doc.nodes().count(), demo_run().chunks.len());

    for (file, expected) in [
        (&cut, "not valid JSON"),
        (&foreign, "not a Smithereens run file"),
    ] {
        let r = Command::new(exe)
            .args(["export"])
            .arg(file)
            .arg("-o")
            .arg(dir.join("x.glb"))
            .output()
            .unwrap();
        assert_eq!(r.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&r.stderr);
        assert!(
            stderr.contains(expected) && stderr.contains(&file.display().to_string()),
            "{stderr}"
        );
        assert!(!dir.join("x.glb").exists());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_pose_with_a_zero_quaternion_is_rejected() {
    let out = smithereens::demo::run_demo(
        &smithereens::demo::DemoOptions {
            steps: 5,
            ..Default::default()
        },
        &mut |_| {},
        &mut |_, _| {},
    )
    .unwrap();
    let mut run = out.record;
    run.bodies[0].poses[0][3..7].copy_from_slice(&[0.0; 4]);
    let err = smithereens::export::export_glb(&run, &smithereens::export::ExportOptions::default())
        .unwrap_err();
    assert!(
        matches!(err, smithereens::export::ExportError::BadRotation { .. }),
        "{err}"
    );
    assert!(
        smithereens::export::validate_run(&run).is_err(),
        "view refuses it too"
    );
}
