//! `simulate` records a replayable run; `replay` re-simulates it bit for bit
//! and notices a tampered run.

use smithereens::simulate::{ReplayReport, ScenarioSource, SimulateError, replay, simulate};
use smithereens_core::record::RunRecord;

#[test]
fn a_simulated_run_replays_with_identical_hashes() {
    let source = ScenarioSource::resolve("wall").unwrap();
    let (record, summary) = simulate(&source, Some(90), &mut |_, _| {}).unwrap();
    assert_eq!(record.frame_count, 91);
    assert!(summary.bonds_broken > 0);
    // Through JSON, as the CLI does.
    let back = RunRecord::from_json(&record.to_json()).unwrap();
    assert_eq!(
        replay(&back, &mut |_, _| {}).unwrap(),
        ReplayReport {
            frames: 91,
            first_divergence: None,
            other_engine: None,
        }
    );
    assert_eq!(record.engine.as_deref(), Some(smithereens::ENGINE));
}

#[test]
fn a_tampered_run_is_reported_at_the_first_divergent_frame() {
    let source = ScenarioSource::resolve("tower").unwrap();
    let (mut record, _) = simulate(&source, Some(40), &mut |_, _| {}).unwrap();
    record.frame_hashes[17] ^= 1;
    assert_eq!(
        replay(&record, &mut |_, _| {}).unwrap().first_divergence,
        Some(17)
    );
    record.frame_hashes.truncate(30);
    record.frame_hashes[17] ^= 1;
    assert_eq!(
        replay(&record, &mut |_, _| {}).unwrap().first_divergence,
        Some(30)
    );
}

#[test]
fn runs_without_a_scenario_and_unknown_scenarios_are_typed_errors() {
    let record = RunRecord::new("x", 1.0 / 60.0);
    assert!(matches!(
        replay(&record, &mut |_, _| {}),
        Err(SimulateError::NoScenario)
    ));
    assert!(ScenarioSource::resolve("no-such-scenario-or-file.toml").is_err());
}

#[test]
fn the_cli_replay_verify_exits_non_zero_on_divergence() {
    let exe = env!("CARGO_BIN_EXE_smithereens");
    let dir = std::env::temp_dir().join(format!("smithereens-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = dir.join("tower.run.json");
    let ok = std::process::Command::new(exe)
        .args(["simulate", "tower", "--steps", "30", "-o"])
        .arg(&run)
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(
        dir.join("tower.run.html").exists(),
        "a viewer page is written next to the run"
    );
    let verify = std::process::Command::new(exe)
        .args(["replay", "--verify"])
        .arg(&run)
        .output()
        .unwrap();
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );
    let mut record = RunRecord::from_json(&std::fs::read(&run).unwrap()).unwrap();
    record.frame_hashes[12] ^= 0xff;
    std::fs::write(&run, record.to_json()).unwrap();
    let bad = std::process::Command::new(exe)
        .args(["replay", "--verify"])
        .arg(&run)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    let message = String::from_utf8_lossy(&bad.stderr).into_owned();
    assert!(message.contains("diverged at frame 12"), "{message}");
    assert!(!message.contains("recorded by"), "same build: {message}");
    // A run from another build says so when it diverges.
    record.engine = Some("smithereens 0.0.9 (0123456789ab)".into());
    std::fs::write(&run, record.to_json()).unwrap();
    let other = std::process::Command::new(exe)
        .args(["replay", "--verify"])
        .arg(&run)
        .output()
        .unwrap();
    let message = String::from_utf8_lossy(&other.stderr).into_owned();
    assert!(
        message.contains("recorded by smithereens 0.0.9 (0123456789ab), this is smithereens "),
        "{message}"
    );
    // Recorded data that `export` refuses is refused here too (it used to
    // "verify" from the embedded scenario alone; bad-input sweep).
    record.timestep = 0.0;
    std::fs::write(&run, record.to_json()).unwrap();
    let tampered = std::process::Command::new(exe)
        .args(["replay", "--verify"])
        .arg(&run)
        .output()
        .unwrap();
    assert_eq!(tampered.status.code(), Some(1));
    let message = String::from_utf8_lossy(&tampered.stderr).into_owned();
    assert!(message.contains("time step"), "{message}");
    std::fs::write(&run, b"{\"format\":\"smithereens-run\"").unwrap();
    let truncated = std::process::Command::new(exe)
        .args(["replay", "--verify"])
        .arg(&run)
        .output()
        .unwrap();
    assert_eq!(truncated.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_multi_instance_run_replays_with_identical_hashes() {
    let source = ScenarioSource::resolve("town").unwrap();
    let (record, summary) = simulate(&source, Some(120), &mut |_, _| {}).unwrap();
    assert_eq!(summary.instances, 37);
    assert_eq!(record.frame_count, 121);
    assert_eq!(record.plain_bodies.len(), 1);
    assert!(summary.instances_broken > 0);
    let back = RunRecord::from_json(&record.to_json()).unwrap();
    assert_eq!(
        replay(&back, &mut |_, _| {}).unwrap().first_divergence,
        None
    );
}

#[test]
fn the_wall_push_builtin_simulates_prints_its_vehicles_and_replays_with_verify() {
    // The whole 10 s built-in (issue 14 items 6 and 7) through the CLI, as a
    // user runs it: simulate, the summary's held-part rows, replay --verify.
    let exe = env!("CARGO_BIN_EXE_smithereens");
    let dir = std::env::temp_dir().join(format!("smithereens-wall-push-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = dir.join("wall_push.run.json");
    let out = std::process::Command::new(exe)
        .args(["simulate", "wall-push", "-o"])
        .arg(&run)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout).into_owned();
    for row in [
        "| vehicles ",
        "| held parts launched ",
        "| held parts broken ",
        "| trials per frame (bounded stepper) ",
        "| stall rule trips ",
    ] {
        assert!(table.contains(row), "{row} missing from\n{table}");
    }
    // No destructible instance: no chunk rows reading 0 (new-user finding:
    // "lowest chunk point 0.000 m", "bodies created 0" beside 40 bodies).
    for row in ["| chunks ", "| lowest chunk point", "| bodies created "] {
        assert!(!table.contains(row), "{row} in\n{table}");
    }
    let record = RunRecord::from_json(&std::fs::read(&run).unwrap()).unwrap();
    assert_eq!(record.frame_count, 601);
    assert_eq!(record.held_parts.len(), 32);
    assert_eq!(
        record
            .held_parts
            .iter()
            .filter(|h| !h.broken && h.released_frame.is_some())
            .count(),
        6
    );
    assert!(record.held_parts.iter().any(|h| h.broken));
    let verify = std::process::Command::new(exe)
        .args(["replay", "--verify"])
        .arg(&run)
        .output()
        .unwrap();
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );
    assert!(
        String::from_utf8_lossy(&verify.stdout)
            .contains("replayed 601 frames (600 steps after the first): every state hash matches")
    );
    let listed = std::process::Command::new(exe)
        .arg("scenarios")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&listed.stdout).contains("wall-push"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `simulate -o` naming a mesh or asset file the scenario reads is refused
/// before anything is written (it used to replace the input with run JSON;
/// bad-input sweep).
#[test]
fn simulate_refuses_an_output_that_would_overwrite_a_file_the_scenario_reads() {
    let exe = env!("CARGO_BIN_EXE_smithereens");
    let dir = std::env::temp_dir().join(format!("smithereens-sim-inputs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mesh = dir.join("m.obj");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/meshes/spot.obj"),
        &mesh,
    )
    .unwrap();
    let before = std::fs::read(&mesh).unwrap();
    let scenario = dir.join("s.toml");
    std::fs::write(
        &scenario,
        "name = \"s\"\nduration = 0.1\n[asset]\nsupports = \"ground\"\n[asset.mesh]\npath = \"m.obj\"\nchunks = 4\n",
    )
    .unwrap();
    let out = std::process::Command::new(exe)
        .arg("simulate")
        .arg(&scenario)
        .arg("-o")
        .arg(&mesh)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("which the scenario reads"), "{stderr}");
    assert_eq!(std::fs::read(&mesh).unwrap(), before);
    assert!(!dir.join("m.html").exists());
    std::fs::remove_dir_all(&dir).ok();
}
