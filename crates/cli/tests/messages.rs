//! Issue 16, item 9: what a new user reads. Progress shows when stderr is
//! piped; messages give measured values with sensible digits and units in
//! m³; a mesh far outside metre scale is told its size, not that it may be
//! "vanishingly small" or "encloses no volume".
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

use smithereens_authoring::{MeshError, mesh_from_triangles};
use smithereens_core::glam::DVec3;
use std::path::Path;
use std::process::Command;

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("smithereens-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An OBJ cube of side `side` m with a corner at the origin.
fn cube_obj(side: f64) -> String {
    let mut text = String::new();
    for x in [0.0, side] {
        for y in [0.0, side] {
            for z in [0.0, side] {
                text += &format!("v {x:e} {y:e} {z:e}\n");
            }
        }
    }
    for [a, b, c, d] in [
        [1, 3, 4, 2],
        [5, 6, 8, 7],
        [1, 2, 6, 5],
        [3, 7, 8, 4],
        [1, 5, 7, 3],
        [2, 4, 8, 6],
    ] {
        text += &format!("f {a} {b} {c}\nf {a} {c} {d}\n");
    }
    text
}

#[test]
fn meshes_far_from_metre_scale_are_told_their_size() {
    let dir = temp_dir("scale");
    let exe = env!("CARGO_BIN_EXE_smithereens");
    for (side, says) in [
        (2e30, "mesh is 2e30 m across"),
        (1e-20, "mesh is 1e-20 m across"),
    ] {
        let mesh = dir.join("cube.obj");
        std::fs::write(&mesh, cube_obj(side)).unwrap();
        let out = Command::new(exe)
            .args(["fracture", "--chunks", "4", "-o"])
            .arg(dir.join("cube.smasset"))
            .arg(&mesh)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(says), "{stderr}");
        assert!(stderr.contains("is it in metres?"), "{stderr}");
        assert!(
            !stderr.contains("vanishingly") && !stderr.contains("no volume"),
            "{stderr}"
        );
        assert!(!dir.join("cube.smasset").exists());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn mesh_errors_print_positions_and_volumes_with_four_significant_digits() {
    // A cube whose top face is missing, near the origin: the open edge's
    // midpoint has a coordinate of about 1e-15.
    let e = 1.237562040387987e-15;
    let p = vec![
        DVec3::new(e, 0.0, 0.0),
        DVec3::new(1.0, 0.0, 0.0),
        DVec3::new(0.0, 1.0, 0.0),
        DVec3::new(0.0, 0.0, 1.0),
    ];
    let err = mesh_from_triangles(p, vec![[0, 2, 1], [0, 1, 3], [1, 2, 3]]).unwrap_err();
    assert!(matches!(err, MeshError::NotClosed { .. }), "{err:?}");
    let text = err.to_string();
    assert!(!text.contains("00000000"), "{text}");
    assert!(text.ends_with(" m"), "{text}");
    // Flat: zero volume, in m³.
    let flat = MeshError::ZeroVolume { volume: 7.5e29 }.to_string();
    assert!(flat.contains("7.5e29 m³"), "{flat}");
}

#[test]
fn piped_progress_prints_plain_lines_on_stderr() {
    let dir = temp_dir("progress");
    let exe = env!("CARGO_BIN_EXE_smithereens");
    let mesh = dir.join("cube.obj");
    std::fs::write(&mesh, cube_obj(1.0)).unwrap();
    // Output captured: stderr is a pipe, not a terminal.
    let out = Command::new(exe)
        .args(["fracture", "--chunks", "6", "-o"])
        .arg(dir.join("cube.smasset"))
        .arg(&mesh)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("fracture: "))
        .collect();
    assert!(lines.len() >= 2, "a first and a last line: {stderr}");
    assert!(lines.last().unwrap().contains("(100 %)"), "{stderr}");
    // Before the total is known the line says so, not "0/0".
    assert!(!stderr.contains("0/0"), "{stderr}");
    // The provenance, shown by inspect, says m³.
    let inspect = Command::new(exe)
        .arg("inspect")
        .arg(dir.join("cube.smasset"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&inspect.stdout);
    assert!(
        !stdout.contains(" m3") && !stdout.contains("du/m2"),
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn simulate_with_zero_steps_is_refused_by_its_flag_before_any_work() {
    let dir = temp_dir("zero-steps");
    let out = Command::new(env!("CARGO_BIN_EXE_smithereens"))
        .args(["simulate", "wall", "--steps", "0", "-o"])
        .arg(dir.join("run.json"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "--steps 0 is out of range: this scenario's run takes 1 to 215999 steps of 0.01667 s (3600 s at most)"
        ),
        "{stderr}"
    );
    assert!(
        !stderr.contains("duration") && !stderr.contains("simulate: "),
        "no word about the duration, no progress line: {stderr}"
    );
    assert!(!dir.join("run.json").exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn waits_beyond_a_day_and_hole_limits_below_three_are_refused_by_their_flags() {
    let exe = env!("CARGO_BIN_EXE_smithereens");
    // Far longer waits overflowed the clock (a panic) before this check.
    let out = Command::new(exe)
        .args(["join", "127.0.0.1:9", "--timeout-s", "1e19"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("--timeout-s 10000000000000000000 is out of range: give 0 to 86400 s"),
        "{stderr}"
    );
    // A negative value reaches the range check instead of looking like a flag.
    let out = Command::new(exe)
        .args(["serve", "wall", "--linger-s", "-1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("--linger-s -1 is out of range"), "{stderr}");
    // The smallest hole has three edges.
    let out = Command::new(exe)
        .args(["fracture", "x.obj", "-o", "x.smasset", "--close-holes", "2"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("2 is not in 3.."), "{stderr}");
}

/// Every file the CLI reads must be a regular file: a directory is refused
/// with a message saying so, and a device such as `/dev/zero` (which reads
/// for ever) is refused before a byte is read. Covered: the asset of
/// `inspect`, the run of `view` and `replay`, the scenario of `simulate`,
/// the mesh and the site file of `fracture`.
#[test]
fn inputs_that_are_not_regular_files_are_refused_before_reading() {
    let dir = temp_dir("irregular");
    let exe = env!("CARGO_BIN_EXE_smithereens");
    let mesh = dir.join("cube.obj");
    std::fs::write(&mesh, cube_obj(1.0)).unwrap();
    // A directory named like each input, and `/dev/zero` where it is a device.
    let folder = dir.join("input.obj");
    std::fs::create_dir_all(&folder).unwrap();
    let zero = std::path::Path::new("/dev/zero");
    let mut inputs = vec![folder.clone()];
    if std::fs::metadata(zero).is_ok_and(|m| !m.is_file()) {
        // Named .obj so that `fracture` gets past the mesh format check.
        #[cfg(unix)]
        {
            let link = dir.join("zero.obj");
            std::os::unix::fs::symlink(zero, &link).unwrap();
            inputs.push(link);
        }
    }
    let out_file = dir.join("out.smasset");
    for input in &inputs {
        let runs: Vec<Vec<std::ffi::OsString>> = vec![
            vec!["inspect".into(), input.into()],
            vec!["view".into(), input.into()],
            vec!["replay".into(), input.into()],
            vec![
                "simulate".into(),
                input.into(),
                "--output".into(),
                dir.join("x.run.json").into(),
            ],
            vec![
                "fracture".into(),
                "-o".into(),
                out_file.clone().into(),
                input.into(),
            ],
            vec![
                "fracture".into(),
                "--site-file".into(),
                input.into(),
                "-o".into(),
                out_file.clone().into(),
                mesh.clone().into(),
            ],
        ];
        for args in runs {
            let out = Command::new(exe).args(&args).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
            assert!(stderr.contains("not a regular file"), "{args:?}: {stderr}");
        }
    }
    assert!(!out_file.exists(), "nothing was written");
    std::fs::remove_dir_all(&dir).ok();
}

/// An output that is a folder is refused before any work, and nothing is
/// written: `fracture --gltf DIR` used to fracture, write the asset, and
/// only then fail on the glTF.
#[test]
fn outputs_that_are_folders_are_refused_before_any_work() {
    let dir = temp_dir("folder-output");
    let exe = env!("CARGO_BIN_EXE_smithereens");
    let mesh = dir.join("cube.obj");
    std::fs::write(&mesh, cube_obj(1.0)).unwrap();
    let folder = dir.join("out");
    std::fs::create_dir_all(&folder).unwrap();
    let asset = dir.join("cube.smasset");
    let runs: Vec<Vec<std::ffi::OsString>> = vec![
        vec![
            "fracture".into(),
            "--chunks".into(),
            "4".into(),
            "-o".into(),
            asset.clone().into(),
            "--gltf".into(),
            folder.clone().into(),
            mesh.clone().into(),
        ],
        vec![
            "fracture".into(),
            "--chunks".into(),
            "4".into(),
            "-o".into(),
            folder.clone().into(),
            mesh.clone().into(),
        ],
        vec![
            "simulate".into(),
            "wall".into(),
            "--output".into(),
            folder.clone().into(),
        ],
        vec![
            "export".into(),
            dir.join("any.run.json").into(),
            "--output".into(),
            folder.clone().into(),
        ],
    ];
    for args in runs {
        let out = Command::new(exe).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("it is a folder"), "{args:?}: {stderr}");
        assert!(!stderr.contains("fracture:"), "no work was done: {stderr}");
    }
    assert!(!asset.exists(), "the asset was not written");
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).ok();
}

/// A third-party reader's panic on a malformed file is a one-line error,
/// not "thread 'main' panicked at …" followed by the error.
#[test]
fn a_reader_panic_on_a_malformed_file_prints_only_the_error() {
    let dir = temp_dir("reader-panic");
    let exe = env!("CARGO_BIN_EXE_smithereens");
    let mesh = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../authoring/tests/data/fuzz_gltf_accessor_out_of_range.glb"
    ));
    let out = Command::new(exe)
        .args(["fracture", "--chunks", "4", "-o"])
        .arg(dir.join("out.smasset"))
        .arg(mesh)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("failed an internal check"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stderr.contains("RUST_BACKTRACE"), "{stderr}");
    std::fs::remove_dir_all(dir).ok();
}
