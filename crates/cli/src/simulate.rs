//! `simulate` and `replay`: run a scenario file (or a built-in) and record
//! it; re-simulate a recorded run and compare its per-frame state hashes.

use smithereens_core::record::RunRecord;
use smithereens_rapier::recorded_run::{RunSummary, run};
use smithereens_scenario::{ScenarioFile, ScenarioFileError, build, builtin};
use std::path::{Path, PathBuf};

/// Errors of `simulate` and `replay`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SimulateError {
    /// The scenario could not be read or built.
    #[error(transparent)]
    Scenario(#[from] ScenarioFileError),
    /// The simulation failed.
    #[error("simulation")]
    Run(#[from] smithereens_rapier::recorded_run::RunError),
    /// `--steps` is 0 or more than a run of the scenario may hold
    /// ([`ScenarioFile::max_steps`]).
    #[error(
        "--steps {steps} is out of range: this scenario's run takes 1 to {max} steps of {} s (3600 s at most)",
        smithereens_core::quantity::sig(*.timestep)
    )]
    Steps {
        /// The override given.
        steps: u32,
        /// The most the scenario allows.
        max: u32,
        /// The scenario's timestep, s.
        timestep: f32,
    },
    /// The run has no embedded scenario.
    #[error(
        "this run carries no scenario (only runs written by `smithereens simulate` can be replayed)"
    )]
    NoScenario,
}

/// Where a scenario comes from: a built-in name or a TOML file.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioSource {
    /// The TOML text.
    pub text: String,
    /// Folder for relative paths inside it.
    pub dir: PathBuf,
}

impl ScenarioSource {
    /// Resolves `name_or_path`: a built-in name (one of
    /// [`smithereens_scenario::BUILTINS`], e.g. `wall` or `wall-push`)
    /// or the path of a TOML file.
    ///
    /// # Errors
    /// [`ScenarioFileError::Io`] when it is neither.
    pub fn resolve(name_or_path: &str) -> Result<Self, ScenarioFileError> {
        if let Some(text) = builtin(name_or_path) {
            return Ok(Self {
                text: text.to_string(),
                dir: PathBuf::from("."),
            });
        }
        let path = Path::new(name_or_path);
        if !path.exists() {
            let names: Vec<&str> = smithereens_scenario::BUILTINS
                .iter()
                .map(|(n, _)| *n)
                .collect();
            return Err(ScenarioFileError::Invalid {
                field: format!("scenario {name_or_path:?}"),
                problem: format!("is neither a file nor a built-in ({})", names.join(", ")),
            });
        }
        let text = smithereens_authoring::read_input_to_string(path).map_err(|source| {
            ScenarioFileError::Io {
                path: path.to_path_buf(),
                source,
            }
        })?;
        let dir = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        Ok(Self { text, dir })
    }
}

/// Runs a scenario; `steps` overrides its duration
/// ([`ScenarioFile::truncate`]: projectiles and explosions after the new end
/// are left out). The record embeds the scenario text (with the override
/// applied) so it can be replayed.
///
/// # Errors
/// [`SimulateError::Steps`] for an override of 0 or more than
/// [`MAX_STEPS`](smithereens_scenario::MAX_STEPS); any other
/// [`SimulateError`] from reading, building or running the scenario.
pub fn simulate(
    source: &ScenarioSource,
    steps: Option<u32>,
    progress: &mut dyn FnMut(u32, u32),
) -> Result<(RunRecord, RunSummary), SimulateError> {
    let mut file = ScenarioFile::parse(&source.text)?;
    check_steps(&file, steps)?;
    if let Some(n) = steps {
        // Launches after the new end are left out of the file as run (and
        // so of its replay); the command line says which.
        file.truncate(n)?;
    }
    let built = build(&file, &source.dir, &mut |_| {})?;
    let (mut record, summary) = run(&built.scenario, progress)?;
    // The file as run (with any override), so the replay needs nothing else.
    record.scenario = Some(if steps.is_some() {
        file.to_toml()?
    } else {
        source.text.clone()
    });
    // Absolute, so `replay` works from any working directory.
    let dir = std::fs::canonicalize(&source.dir).unwrap_or_else(|_| source.dir.clone());
    record.scenario_dir = Some(dir.to_string_lossy().into_owned());
    record.engine = Some(crate::ENGINE.into());
    Ok((record, summary))
}

/// Refuses a `--steps` override of 0 or beyond what `file` allows.
///
/// # Errors
/// [`SimulateError::Steps`].
pub fn check_steps(file: &ScenarioFile, steps: Option<u32>) -> Result<(), SimulateError> {
    match steps {
        Some(n) if n == 0 || n > file.max_steps() => Err(SimulateError::Steps {
            steps: n,
            max: file.max_steps(),
            timestep: file.timestep,
        }),
        _ => Ok(()),
    }
}

/// Result of re-simulating a run.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayReport {
    /// Frames compared.
    pub frames: usize,
    /// First frame whose hash differs (or where one run ended), if any.
    pub first_divergence: Option<usize>,
    /// The build that recorded the run, when it is not this one (a
    /// divergence is then expected whenever the engine's numbers changed).
    pub other_engine: Option<String>,
}

/// Re-simulates a recorded run from its embedded scenario and compares the
/// state hash of every frame.
///
/// # Errors
/// [`SimulateError::NoScenario`] for a run without a scenario, or any
/// error building or running it.
pub fn replay(
    record: &RunRecord,
    progress: &mut dyn FnMut(u32, u32),
) -> Result<ReplayReport, SimulateError> {
    let text = record.scenario.as_ref().ok_or(SimulateError::NoScenario)?;
    let dir = PathBuf::from(record.scenario_dir.clone().unwrap_or_else(|| ".".into()));
    let file = ScenarioFile::parse(text)?;
    let built = build(&file, &dir, &mut |_| {})?;
    let (again, _) = run(&built.scenario, progress)?;
    let (a, b) = (&record.frame_hashes, &again.frame_hashes);
    let first_divergence = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .or((a.len() != b.len()).then_some(a.len().min(b.len())));
    Ok(ReplayReport {
        frames: a.len().min(b.len()),
        first_divergence,
        other_engine: record.engine.clone().filter(|e| e != crate::ENGINE),
    })
}
